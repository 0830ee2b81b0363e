"""DCDSolver: HingeEmbedding's solver (the pair CSR, the duals, the colouring, one epoch at a time).

Also the per-vertex view of the pairs (:func:`pair_csr`) and the stand-alone
block solver (:func:`solve_vertex_svm`), which :mod:`lgekit.models.hinge`
re-exports.
"""
import logging
import numbers
from collections import namedtuple

import numpy as np

from .._random import check_random_state, draw_seed
from .._simd import load_kernel
from .._validation import check_pairs
from ._diagnostic_sample import (DCD_PAIR_SAMPLE, MIN_VERTICES, VERTEX_FRACTION, diagnostics_mode, mean_estimate,
                                 sample_indices, sample_rng, total_estimate)
from ._pair_csr import pair_layout
from ._schedules import greedy_coloring, grouped_order, permutation, stream_seed
from ._solver import EpochOrder, EpochStatus, Solver, check_scaled_weights, mean_one_weights, read_only
from ._training_data import TrainingData

_dcd = load_kernel("lgekit.models._dcd")  # the AVX2+FMA build when the CPU has it
_dcd_diagnostics = load_kernel("lgekit.models._dcd_diagnostics")
_scoring = load_kernel("lgekit._scoring")

__all__ = ["DCDSolver", "PairCSR", "pair_csr", "solve_vertex_svm"]

logger = logging.getLogger(__name__)

#: the safeguard's cap on the further passes of a visit that went uphill (``monotone=True``)
MONOTONE_PASSES = 20

#: the stream of the kernel seed that breaks the colouring's degree ties (epochs use streams 2t and 2t + 1)
COLOURING_STREAM = 2**64 - 1


PairCSR = namedtuple("PairCSR", ["indptr", "nbr", "sign", "coef", "upper"])
PairCSR.__doc__ = """Training pairs seen from each vertex (the layout of the dual variables).

Vertex ``u``'s entries are ``indptr[u]:indptr[u + 1]``; entry ``k`` stands for
one occurrence of a pair ``{u, nbr[k]}`` with label ``sign[k]`` (+1 edge,
-1 negative), loss weight ``coef[k]`` (``lam_pos * edge_weight`` or
``lam_neg``) and box bound ``upper[k] = coef[k] / lam_r`` (the ``lam_r`` of the entry's
vertex: of its table, for the two tables of a directed or bipartite graph).  Every pair
occurrence gives two entries, one at each end.
"""


def _check_real(value, name, low=None, low_open=False, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}: {value!r}")
    value = float(value)
    bad = not np.isfinite(value)
    if low is not None:
        bad = bad or (value <= low if low_open else value < low)
    if high is not None:
        bad = bad or value > high
    if bad:
        rng = (f"{'>' if low_open else '>='} {low}" if low is not None else "finite")
        raise ValueError(f"{name} must be a finite number {rng}, got {value!r}")
    return value


def _check_pairs(pairs, n_nodes, name):
    """Index pairs as validated for every lgekit function, minus self-pairs (no SVM term for them)."""
    arr = check_pairs(pairs, n_nodes, name)
    if np.any(arr[:, 0] == arr[:, 1]):
        raise ValueError(f"{name} contains self-pairs (u, u), e.g. {arr[arr[:, 0] == arr[:, 1]][0].tolist()}: "
                         "x_u . x_u is not a linear SVM term in x_u; remove them")
    return arr


def pair_csr(n_nodes, positives, negatives, *, positive_weights=None, lam_pos=1.0, lam_neg=0.03,
             lam_r=3.0):
    """Build the per-vertex view of the training pairs that the DCD kernel walks.

    Parameters
    ----------
    n_nodes : int
    positives : (m, 2) int array
        Edges (index pairs), each undirected edge listed once.
    negatives : (k, 2) int array
        Negative pairs.  Repeats are kept: a pair listed twice is two terms of
        the objective and gets two dual variables at each end; a pair that is
        also an edge gets one entry of each sign.
    positive_weights : (m,) float array, optional
        Edge weights (default 1); the loss weight of an edge is
        ``lam_pos * weight``.
    lam_pos, lam_neg : float
    lam_r : float or (n_nodes,) array of float
        The regularisation, one for every vertex or each vertex its own (the
        two tables of a directed or bipartite graph): an entry of vertex u
        is bounded by ``coef / lam_r[u]``, its block SVM's box.

    Returns
    -------
    PairCSR
        Entries sorted by vertex, then partner, then sign (+1 first), then
        input order: a deterministic layout, independent of thread count.
    """
    if n_nodes >= 2**31:
        raise ValueError(f"n_nodes: at most 2**31 - 1 vertices are supported (int32 partners), got {n_nodes}")
    positives = _check_pairs(positives, n_nodes, "positives")
    negatives = _check_pairs(negatives, n_nodes, "negatives")
    if positive_weights is None:
        positive_weights = np.ones(len(positives))
    positive_weights = np.asarray(positive_weights, dtype=np.float64)
    if positive_weights.shape != (len(positives),):
        raise ValueError(f"positive_weights must have shape ({len(positives)},), got {positive_weights.shape}")
    if not np.all(np.isfinite(positive_weights)) or np.any(positive_weights < 0):
        raise ValueError("positive_weights must be finite and non-negative")
    lam_r = np.asarray(lam_r, dtype=np.float64)
    if lam_r.ndim and lam_r.shape != (n_nodes,):
        raise ValueError(f"lam_r must be a number or one per vertex ({n_nodes},), got shape {lam_r.shape}")
    n_entries = 2 * (len(positives) + len(negatives))
    indptr = np.empty(n_nodes + 1, dtype=np.int64)
    nbr, sign, coef = np.empty(n_entries, np.int32), np.empty(n_entries, np.int8), np.empty(n_entries)
    # the stable sort by (vertex, partner, sign) of the pairs seen from both ends, as two counting sorts
    pair_layout(n_nodes, positives, negatives, np.ascontiguousarray(lam_pos * positive_weights), float(lam_neg),
                indptr, nbr, sign, coef)
    if lam_r.ndim:
        lam_r = np.repeat(lam_r, np.diff(indptr))   # the owner of each entry: its vertex's box
    return PairCSR(indptr, nbr, sign, coef, coef / lam_r)


def solve_vertex_svm(neighbour_vectors, signs, lam_pos=1.0, lam_neg=0.03, lam_r=3.0, tol=1e-8,
                     max_passes=100_000, seed=0, *, weights=None, alpha0=None):
    """Solve one vertex's block sub-problem with the kernel's DCD solver.

    With every other vector fixed, the part of the hinge embedding objective
    that depends on ``x`` is a linear SVM without bias:

    .. math::

        \\min_x \\; \\frac{\\lambda_r}{2}\\|x\\|^2
              + \\sum_j c_j \\max(0, 1 - s_j\\, x\\cdot x_j),
        \\qquad c_j = \\lambda_+ w_j \\;(s_j = +1), \\; \\lambda_- \\;(s_j = -1),

    i.e. scikit-learn's ``LinearSVC(loss="hinge", dual=True,
    fit_intercept=False, C=1/lam_r, class_weight={1: lam_pos, -1: lam_neg})``
    on the rows ``neighbour_vectors`` with labels ``signs``.  This runs the
    same compiled block solver the epochs use (LIBLINEAR's
    ``solve_l2r_l1l2_svc``), to convergence.

    Parameters
    ----------
    neighbour_vectors : (k, D) array
        The partners' vectors (rows); float32 or float64 (kept), else float64.
    signs : (k,) array of +1 / -1
    lam_pos, lam_neg, lam_r : float
        Loss weights and the regularisation (``lam_r > 0``).
    tol : float, default 1e-8
        Stop after a pass whose largest absolute projected gradient is <= tol.
    max_passes : int, default 100000
    seed : int, default 0
        Seed of the coordinate permutations.
    weights : (k,) array, optional
        Edge weights multiplying ``lam_pos`` for the +1 rows (default 1).
    alpha0 : (k,) array, optional
        Warm start for the duals (clipped into the box); default zeros.

    Returns
    -------
    x : (D,) array
        The solution ``x = sum_j alpha_j s_j x_j``.
    alpha : (k,) float64
        The duals, each in ``[0, c_j / lam_r]``.
    gap : float
        Duality gap ``P(x) - D(alpha)`` of the sub-problem scaled by
        ``1 / lam_r`` (the SVM's own units); 0 at the optimum.
    n_passes : int
        Passes run (``max_passes`` means the tolerance was not reached).

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.models.hinge import solve_vertex_svm
    >>> rng = np.random.default_rng(0)
    >>> xs, s = rng.normal(size=(20, 4)), np.where(rng.random(20) < 0.5, 1, -1)
    >>> x, alpha, gap, n_passes = solve_vertex_svm(xs, s, lam_r=1.0)
    >>> bool(abs(gap) < 1e-6)
    True
    """
    X = np.asarray(neighbour_vectors)
    if X.ndim != 2:
        raise ValueError(f"neighbour_vectors must be a 2-D (k, D) array, got shape {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    if not np.all(np.isfinite(X)):
        raise ValueError("neighbour_vectors contains NaN or infinite values")
    s = np.asarray(signs)
    if s.shape != (X.shape[0],) or not np.all(np.isin(s, (-1, 1))):
        raise ValueError(f"signs must be a ({X.shape[0]},) array of +1/-1, got shape {s.shape} "
                         f"with values {np.unique(s)[:5].tolist()}")
    lam_pos = _check_real(lam_pos, "lam_pos", low=0)
    lam_neg = _check_real(lam_neg, "lam_neg", low=0)
    lam_r = _check_real(lam_r, "lam_r", low=0, low_open=True)
    tol = _check_real(tol, "tol", low=0)
    if isinstance(max_passes, bool) or not isinstance(max_passes, numbers.Integral) or max_passes < 1:
        raise ValueError(f"max_passes must be an int >= 1, got {max_passes!r}")
    w = np.ones(len(s)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != s.shape or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"weights must be a ({len(s)},) array of finite non-negative numbers")
    coef = np.where(s > 0, lam_pos * w, lam_neg)
    upper = np.ascontiguousarray(coef / lam_r)
    if alpha0 is None:
        alpha = np.zeros(len(s))
    else:
        alpha = np.clip(np.asarray(alpha0, dtype=np.float64), 0, upper)
        if alpha.shape != s.shape:
            raise ValueError(f"alpha0 must have shape {s.shape}, got {alpha.shape}")
        alpha = np.ascontiguousarray(alpha)
    seed = draw_seed(check_random_state(seed, "seed"))
    x, n_passes, gap, _viol = _dcd.solve_vertex(X, np.ascontiguousarray(s, dtype=np.int8), upper,
                                                alpha, int(max_passes), tol, seed)
    return x, alpha, float(gap), int(n_passes)


class DCDSolver(Solver):
    r"""Dual coordinate descent on the hinge objective (HingeEmbedding's solver; the paper's Algorithm 1).

    Built by :class:`~lgekit.HingeEmbedding` at ``fit`` and kept as its
    ``solver_``; see that class for the mathematics (Eq. 3, the per-vertex
    SVM of Eq. 4, Hsieh et al.'s dual coordinate descent).  It holds the
    pairs seen from each vertex (:attr:`pair_csr`), one dual variable per
    entry (:attr:`dual_coef`, kept across epochs: every visit is a warm
    start), the colouring of the deterministic schedule and the kernel seed.

    Parameters
    ----------
    data : TrainingData
    embedding : ndarray of shape (n_nodes, dim), float32 or float64
        Updated in place (C-contiguous).
    seed : int in [0, 2**64)
        The random streams (SplitMix64, ``rng_stream`` of ``_common.pxd``, the
        streams the SGD uses): epoch ``t`` visits the vertices in the order
        ``_schedules.permutation(n, seed, t)`` (stream ``2 t``); from
        ``s = rng_stream(seed, 2 t + 1)`` it orders the colour classes
        (``_schedules.permutation(n_colors, s, 0)``) and seeds the vertices'
        coordinate permutations (``rng_stream(s, 1)``, see
        :meth:`coordinate_seed`).  The colouring breaks degree ties with
        ``_schedules.permutation(n, rng_stream(seed, 2**64 - 1), 0)``.
    lam_pos, lam_neg, lam_r : float
        The objective's weights (``lam_r > 0``).
    inner_passes : int
    tol : float
    inner_order : {"fixed", "random"}
        Algorithm 1's listing of a vertex's pairs (edges, then negatives) at
        every pass, or a fresh permutation per pass (LIBLINEAR); see
        :class:`~lgekit.HingeEmbedding`.
    monotone : bool
        The safeguard that keeps every visit from raising the objective
        (at most :data:`MONOTONE_PASSES` further passes, then the old vector
        is kept); see :class:`~lgekit.HingeEmbedding`.
    weighting : {"sample", "scale"}
        ``"scale"``: edge :math:`e`'s loss weight is ``lam_pos * w_e``;
        ``"sample"``: ``lam_pos * w_e / mean(w)`` (the expectation of
        drawing edges by weight; :meth:`training_data` keeps the raw weights).
    schedule : {"deterministic", "hogwild"}
    n_threads : int
    record_diagnostics : {"sampled", "exact"} or bool
        Whether :meth:`epoch_record` holds the objective and its parts
        (``"exact"``: :meth:`diagnostics`, one more pass over the pairs;
        ``"sampled"`` or True: :meth:`sampled_diagnostics`, estimates from
        a sample of the pairs) or only what the epoch computed anyway
        (False: :meth:`certificates`).
    lam_r_context : float
        With ``n_source``: the :math:`\lambda_r` of the rows ``n_source..``
        (the context table of a directed or bipartite graph; ignored
        without; ``> 0``).  A vertex's block SVM (Eq. 4) then has the box
        :math:`[0, c / \lambda_r]` of its own table, and the objective the
        term :math:`\tfrac{\lambda_r}{2}\|x\|^2` of each table.
    n_source : int or None, default None
        Rows of the first table of a stacked two-table embedding
        (:class:`~lgekit.models.TableLayout`); None: one table.
    state : dict or None, default None
        The :meth:`state` of an earlier solver on the same pairs (other
        lambdas: clipped into the new box) or of a loaded model: its duals
        continue where they stopped.  Duals of another shape (other pairs)
        are ignored: the duals then start from zero.

    The arguments are the estimator's parameters as it validated them; the
    solver does not check them again.

    Examples
    --------
    >>> import networkx as nx
    >>> import lgekit
    >>> model = lgekit.HingeEmbedding(dim=4, lam_r=1.0, epochs=2, random_state=0).fit(nx.karate_club_graph())
    >>> solver = model.solver_
    >>> order = solver.epoch_order(2)        # colour classes in the order epoch 2 runs them
    >>> sorted(order.order.tolist()) == list(range(34)), len(order.block_ptr) - 1 == solver.n_colors
    (True, True)
    >>> int(solver.run_epoch(2)), sorted(solver.state())
    (0, ['alpha'])
    """

    settings = ("n_threads", "schedule", "inner_passes", "tol", "inner_order", "monotone", "record_diagnostics")
    # pair_csr's peak per pair (two entries, each: the first counting sort's order 8 B, a two-table graph's
    # per-entry lambda_r 8 B, then partner, sign, weight, bound and dual 29 B) plus the objective's pair list (24 B)
    bytes_per_pair = 114
    default_advice = ("increase lam_r: the dual box [0, lam / lam_r] grows as lam_r -> 0 and the "
                      "block updates can blow up (the paper: embeddings are very bad for lam_r near 0)")

    def __init__(self, data, embedding, *, seed, lam_pos, lam_neg, lam_r, lam_r_context, inner_passes, tol,
                 inner_order, monotone, weighting, schedule, n_threads, record_diagnostics, n_source=None,
                 state=None):
        super().__init__(embedding, seed, n_threads)
        if data.n_nodes != self.embedding.shape[0]:
            raise ValueError(f"data has {data.n_nodes} nodes but the embedding has {self.embedding.shape[0]} rows")
        lam_r_context = float(lam_r_context)
        self.key = {"lam_pos": float(lam_pos), "lam_neg": float(lam_neg), "lam_r": float(lam_r),
                    "lam_r_context": lam_r_context, "weighting": weighting}
        self._lam_pos, self._lam_neg, self._lam_r = float(lam_pos), float(lam_neg), float(lam_r)
        # a stacked two-table embedding (directed / bipartite graph): rows n_source.. are the context
        # table, regularised by lam_r_context, which bounds the duals of their entries by coef / lam_r_context
        self._row_lam_r = self._lam_r
        if n_source is not None:
            n_source = int(n_source)
            if not 0 < n_source < data.n_nodes:
                raise ValueError(f"n_source must lie in [1, {data.n_nodes}) (rows of the first table), got {n_source}")
            if lam_r_context != self._lam_r:
                self._row_lam_r = np.full(data.n_nodes, self._lam_r)
                self._row_lam_r[n_source:] = lam_r_context
        self.weighting = weighting
        self.schedule = schedule
        self.inner_passes = int(inner_passes)
        self.tol = float(tol)
        self.inner_order = inner_order
        self.monotone = bool(monotone)
        self.record_diagnostics = diagnostics_mode(record_diagnostics) or False
        self._kept = None
        self._n_pos = len(data.positives)
        self._node_ids, self._train_graph = data.node_ids, data.train_graph
        self._pos_weights = np.asarray(data.pos_weights, dtype=np.float64)
        if weighting == "scale":
            check_scaled_weights(data.pos_weights)
        # DCD visits every pair of a block: "sample" takes the expectation of drawing edges by weight,
        # the weights divided by their mean
        loss_weights = mean_one_weights(self._pos_weights) if weighting == "sample" else self._pos_weights
        csr = pair_csr(data.n_nodes, data.positives, data.negatives, positive_weights=loss_weights,
                       lam_pos=self._lam_pos, lam_neg=self._lam_neg, lam_r=self._row_lam_r)
        self._csr = csr
        alpha = (state or {}).get("alpha")
        if alpha is None or np.shape(alpha) != csr.nbr.shape:
            alpha = np.zeros(len(csr.nbr))
        self._alpha = np.ascontiguousarray(np.clip(np.asarray(alpha, dtype=np.float64), 0.0, csr.upper))
        self._obj_pairs = np.ascontiguousarray(np.vstack([data.positives, data.negatives]), dtype=np.int64)
        self._obj_coef = np.concatenate([self._lam_pos * loss_weights, np.full(len(data.negatives), -self._lam_neg)])
        self._has_pairs = np.diff(csr.indptr) > 0
        self._colors = None
        self._certificates = None

    # ------------------------------------------------------------------ settings and state
    #: the coordinate orders of a visit (see :attr:`inner_order`)
    inner_orders = ("fixed", "random")

    @property
    def inner_order(self):
        """``"fixed"`` (every pass visits a vertex's pairs in :attr:`pair_csr` order) or ``"random"`` (a
        fresh permutation per pass, LIBLINEAR's, from :meth:`coordinate_seed`); settable between epochs."""
        return self._inner_order

    @inner_order.setter
    def inner_order(self, value):
        if value not in self.inner_orders:
            raise ValueError(f"inner_order must be one of {self.inner_orders}, got {value!r}")
        self._inner_order = value

    @property
    def pair_csr(self):
        """The training pairs seen from each vertex (:class:`PairCSR`, the duals' layout)."""
        return self._csr

    @property
    def dual_coef(self):
        """The duals, one per entry of :attr:`pair_csr` (read-only view of the live array)."""
        return read_only(self._alpha)

    @property
    def colors(self):
        """The colour of each vertex in the deterministic schedule (int32, read-only)."""
        return read_only(self._colouring())

    @property
    def n_colors(self):
        return int(self._colouring().max()) + 1 if self.n_nodes else 0

    def training_data(self):
        """The :class:`~lgekit.models.TrainingData` this solver trains on (views of its pair list)."""
        return TrainingData(n_nodes=self.n_nodes, node_ids=self._node_ids, train_graph=self._train_graph,
                            positives=self._obj_pairs[:self._n_pos], pos_weights=self._pos_weights,
                            negatives=self._obj_pairs[self._n_pos:])

    def zero_objective(self):
        # h(0) = 1: every pair costs its coefficient
        return float(np.abs(self._obj_coef).sum())

    def state(self):
        return {"alpha": self._alpha.copy()}

    def set_state(self, arrays):
        unexpected = sorted(set(arrays) - {"alpha"})
        if unexpected:
            raise ValueError(f"unexpected state arrays {unexpected} for a DCDSolver (only 'alpha')")
        if "alpha" in arrays:
            alpha = np.asarray(arrays["alpha"], dtype=np.float64)
            if alpha.shape != self._alpha.shape:
                raise ValueError(f"alpha must have shape {self._alpha.shape}, got {alpha.shape}")
            self._alpha[...] = alpha

    @classmethod
    def check_state(cls, arrays):
        """The duals a model file holds (``alpha``): 1-D float64, finite and >= 0."""
        unexpected = sorted(set(arrays) - {"alpha"})
        if unexpected:
            raise ValueError(f"unexpected solver arrays {unexpected} for a HingeEmbedding (only 'alpha')")
        if "alpha" in arrays:
            alpha = arrays["alpha"]
            if alpha.ndim != 1 or alpha.dtype != np.float64:
                raise ValueError(f"the duals 'alpha' must be a 1-D float64 array, got shape {alpha.shape} "
                                 f"of {alpha.dtype}")
            if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
                raise ValueError("the duals 'alpha' must be finite and >= 0")

    def divergence_advice(self, record, epoch):
        return f"lam_r={self._lam_r:g} is too small: {self.default_advice}", "lam_r"

    # ------------------------------------------------------------------ orders
    def _colouring(self):
        """Greedy colouring of the pair graph, largest degree first, ties in a seeded random order."""
        if self._colors is None:
            n = self.n_nodes
            deg = np.diff(self._csr.indptr)
            tie = permutation(n, stream_seed(self.seed, COLOURING_STREAM), 0).astype(np.int64)
            visit = tie[np.argsort(-deg[tie], kind="stable")]
            self._colors = greedy_coloring(self._csr.indptr, self._csr.nbr, visit)
            logger.debug("deterministic schedule: %d colour classes", self.n_colors)
        return self._colors

    def coordinate_seed(self, epoch):
        """The seed of epoch ``epoch``'s coordinate permutations: vertex ``u`` draws its passes' orders
        from ``rng_stream(coordinate_seed(epoch), u)`` (LIBLINEAR's forward Fisher-Yates)."""
        return stream_seed(stream_seed(self.seed, 2 * epoch + 1), 1)

    def epoch_order(self, epoch):
        """The :class:`~lgekit.models._solver.EpochOrder` of epoch ``epoch``: the vertices in a uniformly random
        order; with ``schedule="deterministic"``, grouped by colour class (one block, and one round,
        per class, the classes in a random order; within a class the random order is kept)."""
        n = self.n_nodes
        perm = permutation(n, self.seed, epoch, self.n_threads)
        if self._schedule == "hogwild":
            return EpochOrder(perm, np.array([0, n], np.int64), np.array([0, 1], np.int64))
        colors = self._colouring()
        k = self.n_colors
        rank = permutation(k, stream_seed(self.seed, 2 * epoch + 1), 0)
        # the colour classes in the random order `rank`, each keeping perm's order: a counting sort on
        # the epoch's threads (perm[argsort(rank[colors][perm], stable)], without a serial sort)
        order, block_ptr = grouped_order(perm, colors, rank, self.n_threads)
        return EpochOrder(order, block_ptr, np.arange(k + 1, dtype=np.int64))

    # ------------------------------------------------------------------ epochs
    def run_epoch(self, epoch):
        """One pass of Algorithm 1 over the vertices in :meth:`epoch_order` ``(epoch)``, in place.

        Returns
        -------
        EpochStatus
            ``NONFINITE`` when a vertex got a non-finite vector (the epoch
            stops at the end of its block).
        """
        X = self.embedding
        csr = self._csr
        n = X.shape[0]
        order = self.epoch_order(epoch)
        sqnorm = _scoring.row_sqnorms(X, self.n_threads)       # on the epoch's threads, not a serial einsum
        # the certificates the record will read: every vertex's (exact), a sample's (sampled) or none
        certified = self.certified_vertices(epoch)
        certify = None
        if certified is not None and len(certified) < n:
            certify = np.zeros(n, np.int8)
            certify[certified] = 1
        gap, viol = (np.zeros(n), np.zeros(n)) if certified is not None else (None, None)
        kept = np.zeros(n, np.int8)
        rule = _dcd.VisitRule(self.inner_passes, self.tol, self._inner_order == "random",
                              MONOTONE_PASSES if self.monotone else -1)
        bad = _dcd.dcd_epoch(X, sqnorm, csr, self._alpha, np.ascontiguousarray(order.order, dtype=np.int32),
                             order.block_ptr, rule, self.coordinate_seed(epoch), self.n_threads, kept,
                             None if certified is None else _dcd.Certificates(gap, viol, certify))
        self._kept = int(kept.sum())
        self._certificates = None if certified is None else (certified, gap[certified], viol[certified])
        if bad >= 0:
            logger.warning("epoch %d: vertex %d got a non-finite vector", epoch, bad)
            return EpochStatus.NONFINITE
        return EpochStatus.OK

    def epoch_record(self, epoch, status):
        """The record of epoch ``epoch``: the :meth:`diagnostics` with ``record_diagnostics``, else the
        :meth:`certificates` alone (the dual counts and NaN elsewhere, and ``diverged``, when ``status``
        is ``NONFINITE``)."""
        if status:
            nan = float("nan")
            record = self.dual_counts()
            record.update(mean_norm=nan, n_kept=0, diverged=True)
            if self.record_diagnostics:
                record.update(objective=nan, loss_pos=nan, loss_neg=nan, reg=nan, objective_se=nan, loss_pos_se=nan,
                              loss_neg_se=nan, duality_gap=nan, duality_gap_se=nan, max_violation=nan)
            return record
        if self.record_diagnostics == "exact":
            record = self.diagnostics()
            record.update(objective_se=0.0, loss_pos_se=0.0, loss_neg_se=0.0)
            return record
        return self.sampled_diagnostics(epoch) if self.record_diagnostics else self.certificates()

    def dual_counts(self):
        """``n_alpha_zero``, ``n_alpha_free``, ``n_alpha_bound``: duals at 0, strictly inside the box, at
        its upper bound (the last two are the support vectors)."""
        alpha, upper = self._alpha, self._csr.upper
        n_zero, n_bound = _dcd_diagnostics.dual_counts(alpha, upper, self.n_threads)
        return {"n_alpha_zero": n_zero, "n_alpha_free": int(len(alpha) - n_zero - n_bound), "n_alpha_bound": n_bound}

    def certified_vertices(self, epoch):
        """The vertices whose certificates epoch ``epoch`` computes at their visits, for its record: every
        vertex with pairs (``record_diagnostics="exact"``), a sample of them (``"sampled"``: a share
        ``VERTEX_FRACTION``, at least ``MIN_VERTICES``, from the epoch's own stream of the diagnostic
        sample, :mod:`~lgekit.models._diagnostic_sample`), or None (no diagnostics: none).  Sorted int64."""
        if not self.record_diagnostics:
            return None
        with_pairs = np.flatnonzero(self._has_pairs)
        if self.record_diagnostics == "exact":
            return with_pairs
        return with_pairs[sample_indices(len(with_pairs), VERTEX_FRACTION, MIN_VERTICES,
                                         sample_rng(self.seed, epoch, part=1))]

    def certificates(self, sqnorm=None):
        """The mean norm, the dual counts, ``n_kept``, ``diverged`` (False) and the certificates the last
        epoch computed at the visits of :meth:`certified_vertices` (none without diagnostics):
        ``duality_gap``, the mean over the vertices with pairs of the block SVM's duality gap when it was
        solved (from a sample: unbiased, with its standard error ``duality_gap_se``, 0 when every vertex
        was certified), and ``max_violation``, the largest absolute projected gradient among them (a
        sample's largest: a lower bound of the whole graph's).  ``sqnorm``: the rows' squared norms, when
        known."""
        if sqnorm is None:
            sqnorm = _scoring.row_sqnorms(self.embedding, self.n_threads)
        record = self.dual_counts()
        record.update(mean_norm=float(np.mean(np.sqrt(sqnorm))), n_kept=self._kept or 0, diverged=False)
        if self._certificates is not None:
            _, gap, viol = self._certificates
            gap_mean, gap_se = mean_estimate(gap, int(self._has_pairs.sum()))
            record.update(duality_gap=gap_mean, duality_gap_se=gap_se,
                          max_violation=float(viol.max()) if len(viol) else 0.0)
        return record

    def diagnostics(self):
        """The record of the current embedding and duals: the objective (Eq. 3) and its parts, then the
        :meth:`certificates`."""
        X = self.embedding
        sqnorm = _scoring.row_sqnorms(X, self.n_threads)
        loss_pos, loss_neg = _dcd_diagnostics.hinge_losses(X, self._obj_pairs, self._obj_coef, self.n_threads)
        if np.ndim(self._row_lam_r):
            reg = 0.5 * float(np.dot(self._row_lam_r, sqnorm))          # each table its own lambda_r
        else:
            reg = 0.5 * self._lam_r * float(sqnorm.sum())
        record = {"objective": loss_pos + loss_neg + reg, "loss_pos": loss_pos, "loss_neg": loss_neg, "reg": reg}
        record.update(self.certificates(sqnorm))
        return record

    def sampled_diagnostics(self, epoch):
        """The :meth:`diagnostics` with the loss parts estimated from a sample of the pairs
        (:mod:`~lgekit.models._diagnostic_sample`, drawn from epoch ``epoch``'s own stream of the seed),
        and their standard errors ``objective_se``, ``loss_pos_se`` and ``loss_neg_se``; the regulariser,
        the mean norm and the certificates are exact."""
        X = self.embedding
        sqnorm = _scoring.row_sqnorms(X, self.n_threads)
        if np.ndim(self._row_lam_r):
            reg = 0.5 * float(np.dot(self._row_lam_r, sqnorm))
        else:
            reg = 0.5 * self._lam_r * float(sqnorm.sum())
        population = len(self._obj_pairs)
        idx = sample_indices(population, 0.0, DCD_PAIR_SAMPLE, sample_rng(self.seed, epoch))
        z = _scoring.pair_dots(X, X, self._obj_pairs[idx], self.n_threads)
        coef = self._obj_coef[idx]
        # an edge (coef > 0) costs coef * h(z), a negative pair |coef| * h(-z), h(z) = max(0, 1 - z)
        pos = np.where(coef > 0, coef * np.maximum(0.0, 1.0 - z), 0.0)
        neg = np.where(coef < 0, -coef * np.maximum(0.0, 1.0 + z), 0.0)
        loss_pos, se_pos = total_estimate(pos, population)
        loss_neg, se_neg = total_estimate(neg, population)
        # one sample for both parts: the objective's error is that of the sum, not of independent parts
        loss_total, se_total = total_estimate(pos + neg, population)
        record = {"objective": loss_total + reg, "loss_pos": loss_pos, "loss_neg": loss_neg, "reg": reg,
                  "objective_se": se_total, "loss_pos_se": se_pos, "loss_neg_se": se_neg}
        record.update(self.certificates(sqnorm))
        return record

    def __repr__(self):
        return (f"<DCDSolver: {len(self._csr.nbr) // 2:,} pairs on {self.n_nodes:,} nodes, dim {self.dim}, "
                f"{self.embedding.dtype}, schedule={self._schedule!r}, inner_passes={self.inner_passes}, "
                f"{self.n_threads} thread(s), seed {self.seed}>")
