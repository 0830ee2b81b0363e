"""The interface every lgekit solver implements: one object per fitted model (``model.solver_``).

An estimator (:class:`~lgekit.models.BaseEmbedding`) turns the user's data
into a :class:`~lgekit.models.TrainingData`, draws the kernel seed and the
starting embedding, and hands both to its solver, which owns everything the
epochs need (the prepared pairs, the work arrays, the seed and the per-epoch
streams) and runs them.  The estimator keeps the history, the callbacks and
the divergence checks; the solver says what an epoch's record holds
(:meth:`Solver.epoch_record`), what to advise when a run diverges
(:meth:`Solver.divergence_advice`) and which state a model file keeps
(:meth:`Solver.state`, :meth:`Solver.check_state`).  The benchmarks and the
tests talk to the solver through these methods, never through its private
arrays.

A solver takes its settings as the estimator validated them (the estimator's
parameter table is the one place of defaults and checks): its constructor
has no defaults of its own for them.

The methods and properties documented on :class:`Solver` are a stable
interface; anything starting with ``_`` is not.
"""
import enum
import math
from collections import namedtuple

import numpy as np

__all__ = ["EpochOrder", "EpochStatus", "Solver"]


class EpochStatus(enum.IntEnum):
    """What :meth:`Solver.run_epoch` reports (0 is success, so ``if status:`` means trouble).

    The mirror of the status enum the training kernels return (``EpochStatus`` of ``lgekit/_common.pxd``,
    whose values the SGD kernel exports as ``EPOCH_STATUS``): a solver turns a kernel's return value into
    a member with ``EpochStatus(value)``, which refuses a value the enum does not name.
    """

    #: the epoch ran to its end
    OK = 0
    #: a score or a vector became non-finite: the epoch stopped there (the estimator raises
    #: :class:`~lgekit.models.DivergenceError`)
    NONFINITE = 1
    #: the kernel could not allocate the epoch's work space and updated nothing (:meth:`Solver.run_epoch`
    #: raises :class:`MemoryError` instead of returning it)
    OUT_OF_MEMORY = 2


EpochOrder = namedtuple("EpochOrder", ["order", "block_ptr", "round_ptr"])
EpochOrder.__doc__ = """The visiting order of one epoch, as the kernel runs it.

Position ``k`` of the epoch visits item ``order[k]`` (a training pair for the
SGD's edge order, a vertex for its vertex order and for DCD).  Block ``b`` is
``order[block_ptr[b]:block_ptr[b + 1]]`` and round ``i`` holds blocks
``round_ptr[i]`` to ``round_ptr[i + 1] - 1``: blocks of one round may run on
different threads at once, rounds run one after another.  An order without
blocks has one block and one round.  Running ``order`` sequentially is the
epoch on one thread, and with a deterministic schedule on any number.
"""


class Solver:
    """Base class of the solvers (not for direct use); documents their interface.

    A solver is built by its estimator at ``fit`` (``model.solver_``) and
    updates the estimator's ``embedding_`` in place.  Subclasses:
    :class:`~lgekit.models.SGDSolver` (``LogisticEmbedding``) and
    :class:`~lgekit.models.DCDSolver` (``HingeEmbedding``).

    Attributes
    ----------
    embedding : ndarray of shape (n_nodes, dim)
        The array the epochs update in place (the estimator's
        ``embedding_``).  Assigning another array of the same shape and dtype
        rebinds the solver to it.
    seed : int
        The 64-bit kernel seed every random stream of the epochs comes from
        (``rng_stream(seed, k)`` of ``lgekit/_common.pxd``): epoch ``t``
        depends only on ``(seed, t)`` and the embedding, so that continuing a
        fit equals a longer fit.
    n_threads : int
        OpenMP threads of the epochs (settable between epochs).
    """

    #: the constructor's arguments the prepared state depends on (set by the constructor): the estimator
    #: rebuilds the solver when one of them changes, and sets the others (:attr:`settings`) between epochs
    key = {}
    #: the constructor's arguments that may change between epochs, as attributes of the same names
    settings = ("n_threads", "schedule")
    #: the thread schedules the solver runs
    schedules = ("deterministic", "hogwild")
    #: bytes the solver allocates per training pair, for the memory check before a fit allocates anything
    bytes_per_pair = 0
    #: what to try when a run diverged and the solver has no better analysis (:meth:`divergence_advice`)
    default_advice = "try a smaller learning rate or a larger lam_r"

    @property
    def schedule(self):
        """``"deterministic"`` (the same result for any thread count) or ``"hogwild"`` (lock-free
        threads); settable between epochs."""
        return self._schedule

    @schedule.setter
    def schedule(self, value):
        if value not in self.schedules:
            raise ValueError(f"schedule must be one of {self.schedules}, got {value!r}")
        self._schedule = value

    def __init__(self, embedding, seed, n_threads):
        self._embedding = None
        self.embedding = embedding
        self._seed = int(seed)
        if not 0 <= self._seed < 2**64:
            raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")
        self.n_threads = n_threads

    # ------------------------------------------------------------------ binding
    @property
    def embedding(self):
        return self._embedding

    @embedding.setter
    def embedding(self, array):
        if not isinstance(array, np.ndarray) or array.ndim != 2:
            raise TypeError(f"embedding must be a 2-D numpy array, got {type(array).__name__}")
        if array.dtype not in (np.float32, np.float64) or not array.flags.c_contiguous or not array.flags.writeable:
            raise ValueError(f"embedding must be a writeable C-contiguous float32 or float64 array, got "
                             f"dtype {array.dtype}, C-contiguous={array.flags.c_contiguous}, "
                             f"writeable={array.flags.writeable}")
        old = self._embedding
        if old is not None and (array.shape != old.shape or array.dtype != old.dtype):
            raise ValueError(f"embedding must keep the shape {old.shape} and dtype {old.dtype} the solver was "
                             f"built for, got {array.shape} of {array.dtype}")
        self._embedding = array

    @property
    def n_threads(self):
        return self._n_threads

    @n_threads.setter
    def n_threads(self, value):
        value = int(value)
        if value < 1:
            raise ValueError(f"n_threads must be an int >= 1, got {value}")
        self._n_threads = value

    @property
    def seed(self):
        return self._seed

    @property
    def n_nodes(self):
        """Rows of the embedding."""
        return self._embedding.shape[0]

    @property
    def dim(self):
        """Columns of the embedding."""
        return self._embedding.shape[1]

    # ------------------------------------------------------------------ the interface
    def prepare(self):
        """Build the structures the epochs derive from the solver's own arrays (called once, by the
        estimator, after it released the input pairs); the default has none."""

    def run_epoch(self, epoch):
        """Run epoch ``epoch`` (0-based, continuing across ``partial_fit``) in place.

        Returns
        -------
        EpochStatus
            ``OK``, or ``NONFINITE`` when a non-finite value stopped the epoch.
        """
        raise NotImplementedError

    def diagnostics(self):
        """The per-epoch record fields of the current embedding (a dict of floats and ints)."""
        raise NotImplementedError

    def epoch_order(self, epoch):
        """The :class:`EpochOrder` that :meth:`run_epoch` follows at ``epoch``."""
        raise NotImplementedError

    def epoch_record(self, epoch, status):
        """The history record of epoch ``epoch``, just run with :meth:`run_epoch` and ended with ``status``.

        Returns
        -------
        dict
            At least ``"objective"``, ``"loss_pos"``, ``"loss_neg"`` and
            ``"reg"`` (None where not computed), with ``"diverged": True``
            and NaN values when ``status`` is ``NONFINITE``; the estimator
            adds ``"epoch"``, ``"seconds"`` and ``"mean_norm"`` if missing.
        """
        raise NotImplementedError

    def zero_objective(self):
        """The objective of the all-zero embedding on these pairs, or None when not defined."""
        return None

    def objective_estimate(self, initial_score=None):
        """The objective of the embedding now, as the divergence check's reference, or None (not computed).

        ``initial_score``, given while the embedding is still its uniform
        initialisation, is the typical size of its scores; a solver may then
        estimate instead of computing.
        """
        return None

    def divergence_advice(self, record, epoch):
        """``(advice, parameter)``: what to change after a run that started at ``epoch`` diverged with
        ``record``, and the parameter the advice names (None when unclear)."""
        return self.default_advice, None

    @classmethod
    def check_state(cls, arrays):
        """Validate state arrays read from a model file (those :meth:`state` returns): ValueError if wrong."""
        if arrays:
            raise ValueError(f"unexpected solver arrays {sorted(arrays)}: a {cls.__name__} keeps no state arrays")

    def settings_in_force(self):
        """What the estimator's graph-dependent defaults (None) resolved to for this fit, by name: a dict of
        JSON-ready values (``lgekit fit`` records it in ``fit.json``); empty where there are none."""
        return {}

    def state(self):
        """Copies of the arrays that, with the embedding, make up the solver's state between epochs
        (e.g. DCD's duals): what a model file stores and what early stopping restores."""
        return {}

    def set_state(self, arrays):
        """Put back arrays returned by :meth:`state` of this solver (same pairs)."""
        if arrays:
            raise ValueError(f"{type(self).__name__} has no state arrays, got {sorted(arrays)}")

    def __repr__(self):
        return (f"<{type(self).__name__}: {self.n_nodes:,} nodes, dim {self.dim}, {self.embedding.dtype}, "
                f"seed {self._seed}, {self.n_threads} thread(s)>")


def read_only(array):
    """``array`` marked read-only (a view when it is already an array), for the solvers' properties."""
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


def mean_one_weights(weights):
    """The edge weights divided by their mean (float64): what ``weighting="sample"`` trains on in
    expectation, the same total loss weight as an unweighted graph with as many edges.

    The weights are first divided by the power of two just above their maximum, an exact scaling, so
    that their sum cannot overflow (weights near 1e308 give the same result as the same weights times
    1e-300) and, for weights whose sum is finite, the result is the plain ``weights / mean``, bit for bit.

    Raises
    ------
    ValueError
        When every weight is 0 (nothing to draw, no mean to divide by).
    """
    weights = np.asarray(weights, dtype=np.float64)
    if not weights.size:
        return weights.copy()
    _, exponent = np.frexp(weights.max())
    scaled = np.ldexp(weights, -exponent)
    mean = float(scaled.mean())
    if not mean > 0:
        raise ValueError("weighting='sample': the edge weights are all 0, there is nothing to sample")
    return scaled / mean


def check_scaled_weights(weights):
    """Refuse ``weighting="scale"`` on weights whose sum overflows: every loss sum would be infinite.

    Raises
    ------
    ValueError
        Naming ``weighting``, the largest weight and what to do instead.
    """
    weights = np.asarray(weights, dtype=np.float64)
    with np.errstate(over="ignore"):
        total = float(np.sum(weights))
    if not math.isfinite(total):
        raise ValueError(f"weighting='scale': the edge weights (up to {float(weights.max()):.4g}) sum to more than "
                         "the largest float64, so the scaled objective overflows; use weighting='sample', which "
                         "depends only on the weights' ratios, or divide the weights by a common factor")
