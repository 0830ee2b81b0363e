"""The estimator base shared by every lgekit embedding model.

:class:`BaseEmbedding` does everything that is not the optimiser: parameter
validation, turning the user's data into index pairs, seeding, initialising
the embedding, the epoch loop with its history, callbacks, progress bar and
divergence handling, and the exits (``transform``, ``score_pairs``,
``save``/``load``, ``to_word2vec``).  A model subclasses it and supplies the
solver through a handful of hooks (see the class docstring).
"""
import importlib
import json
import logging
import math
import numbers
import sys
import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator

from .._atomic import atomic_path, atomic_write_text
from .._random import check_random_state, draw_seed

__all__ = ["BaseEmbedding", "DivergenceError", "TrainingData"]

logger = logging.getLogger(__name__)

_FORMAT_VERSION = 1


class DivergenceError(FloatingPointError):
    """Training produced non-finite values or exploding norms.

    Attributes
    ----------
    epoch : int
        The epoch (0-based index ``t``) at which divergence was detected.
    history : list of dict
        The history records so far; the last one has ``"diverged": True``.
        The estimator keeps them as ``history_`` too, so a parameter sweep can
        mark the run as diverged instead of crashing.
    """

    def __init__(self, message, epoch=None, history=None):
        super().__init__(message)
        self.epoch = epoch
        self.history = [] if history is None else history


@dataclass(frozen=True)
class TrainingData:
    """What a solver trains on, in internal node indices.

    Attributes
    ----------
    n_nodes : int
    node_ids : ndarray of shape (n_nodes,)
        External id of each row of the embedding.
    train_graph : lgekit.Graph
        The graph whose edges are the positive pairs (the training graph of a
        split).  Solvers that resample negatives avoid its edges.
    positives : ndarray of shape (m, 2), int64
        Positive (edge) pairs.
    pos_weights : ndarray of shape (m,), float64
        Weight of each positive pair (1 for unweighted graphs).
    negatives : ndarray of shape (k, 2), int64
        Negative pairs (no self-pairs).
    split : EdgeSplit or None
        The split the data came from, if any.
    """

    n_nodes: int
    node_ids: np.ndarray
    train_graph: object
    positives: np.ndarray
    pos_weights: np.ndarray
    negatives: np.ndarray
    split: object = None


def _is_edge_split(data):
    return all(hasattr(data, a) for a in ("train_graph", "train_positives", "train_negatives"))


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj)


class BaseEmbedding(BaseEstimator):
    """Base class of the linear graph embedding estimators (not for direct use).

    Contract for subclasses
    -----------------------
    A subclass defines ``__init__`` with keyword arguments that it only stores
    (scikit-learn rule).  Among them, these common ones are validated here:
    ``dim``, ``lam_pos``, ``lam_neg``, ``lam_r``, ``epochs``, ``init_scale``,
    ``dtype``, ``n_threads``, ``schedule``, ``random_state``, ``verbose`` (and
    ``warm_start`` if the subclass has it).  The subclass implements:

    ``_check_params(self)``
        Validate its own parameters; raise ``ValueError``/``TypeError`` naming
        the parameter, the value and what is accepted.  Called at every fit
        after the common checks.
    ``_init_solver(self, data, seed)``
        Set up the solver for a :class:`TrainingData` ``data``.
        ``self.embedding_`` already holds the starting point (a fresh uniform
        initialisation, or the current model when continuing), C-contiguous,
        of dtype ``self._dtype``; the solver must update it IN PLACE (callbacks
        read it between epochs).  ``seed`` is an int in [0, 2**64) for the
        kernel's SplitMix64 state; derive per-epoch/per-block streams from it
        (``rng_stream(seed, epoch)``) so that epoch ``t`` depends only on
        ``(seed, t)`` and continuing a fit equals a longer fit.
    ``_run_epoch(self, epoch)`` -> dict
        Run epoch ``epoch`` (0-based, continues across ``partial_fit``) and
        return the record: at least ``"objective"``, ``"loss_pos"``,
        ``"loss_neg"``, ``"reg"``; optionally ``"mean_norm"`` (computed here if
        missing), ``"diverged"`` (True when the kernel saw a non-finite value;
        the base then raises :class:`DivergenceError`) and model-specific keys.
        The base adds ``"epoch"``, ``"seconds"`` (wall time of ``_run_epoch``)
        and checks the objective and the norms for finiteness.
    ``_solver_state_for_save(self)`` -> dict of arrays (optional)
        Extra arrays to store in ``save`` (e.g. dual variables).
    ``_restore_solver_state(self, arrays)`` (optional)
        Receives them back in ``load``.
    ``_set_solver_state(self, arrays)`` (optional)
        Puts back a state saved during the same fit (EarlyStopping's best
        epoch); defaults to ``_restore_solver_state``.
    ``_divergence_advice`` (class attribute, str)
        What to suggest in the divergence message.
    ``_embedding_restored(self)`` (optional)
        Called after :class:`~lgekit.callbacks.EarlyStopping` copied a best
        embedding back into ``embedding_`` (e.g. to reset dual variables).

    Data
    ----
    ``fit(data)`` accepts an ``EdgeSplit`` (trains on ``train_graph`` edges
    and ``train_negatives``), an :class:`lgekit.Graph`, a networkx graph
    (edge attribute ``weight`` used when present) or a scipy sparse adjacency
    matrix.  For a graph, ``negatives_per_positive`` (4) uniform negative
    pairs per edge are drawn with :func:`lgekit.evaluation.sample_negative_pairs`
    from a seed drawn from ``random_state``.

    History
    -------
    ``history_`` holds one dict per epoch with ``"epoch"`` (0-based ``t``),
    ``"seconds"``, ``"objective"``, ``"loss_pos"``, ``"loss_neg"``, ``"reg"``,
    ``"mean_norm"`` (mean L2 norm of the rows), ``"diverged"`` (False unless
    this record ended the run), model keys and whatever callbacks add.
    """

    negatives_per_positive = 4
    _divergence_advice = "try a smaller learning rate or a larger lam_r"
    # A mean row norm above this counts as divergence (the scores x_u . x_v
    # would be ~1e16: sigmoids saturate and float32 overflows soon after).
    _max_mean_norm = 1e8

    # ------------------------------------------------------------------ validation
    def _check_common_params(self):
        def bad(name, value, accepted):
            raise ValueError(f"{name} must be {accepted}, got {value!r}")

        def check_int(name, value, low):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be an int >= {low}, got {type(value).__name__}: {value!r}")
            if value < low:
                bad(name, value, f"an int >= {low}")

        def check_real(name, value, *, positive=False):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a real number, got {type(value).__name__}: {value!r}")
            if not math.isfinite(value) or value < 0 or (positive and value == 0):
                bad(name, value, "a finite number > 0" if positive else "a finite number >= 0")

        check_int("dim", self.dim, 1)
        for name in ("lam_pos", "lam_neg", "lam_r"):
            check_real(name, getattr(self, name))
        check_int("epochs", self.epochs, 0)
        check_real("init_scale", self.init_scale)
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            dtype = None
        if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            bad("dtype", self.dtype, "'float32' or 'float64'")
        self._dtype = dtype
        check_int("n_threads", self.n_threads, 1)
        if self.schedule not in ("deterministic", "hogwild"):
            bad("schedule", self.schedule, "'deterministic' or 'hogwild'")
        check_int("verbose", self.verbose, 0)
        rs = self.random_state
        if not (rs is None or isinstance(rs, np.random.Generator)
                or (isinstance(rs, numbers.Integral) and not isinstance(rs, bool))):
            raise TypeError(f"random_state must be None, a non-negative int or a numpy.random.Generator, "
                            f"got {type(rs).__name__}: {rs!r}")
        if isinstance(rs, numbers.Integral) and rs < 0:
            bad("random_state", rs, "None, a non-negative int or a numpy.random.Generator")
        if self.n_threads > 1:
            from .._openmp import openmp_enabled
            if not openmp_enabled():
                import warnings
                warnings.warn(f"n_threads={self.n_threads} requested but lgekit was built without OpenMP; "
                              "running on one thread", RuntimeWarning, stacklevel=3)

    def _check_params(self):  # pragma: no cover - overridden
        """Validate model-specific parameters (hook)."""

    # ------------------------------------------------------------------ data
    def _coerce_data(self, data, rng):
        """Turn the accepted data forms into a :class:`TrainingData`."""
        from ..graph import Graph

        split = None
        if _is_edge_split(data):
            split = data
            graph = data.train_graph
            positives = np.asarray(data.train_positives, dtype=np.int64).reshape(-1, 2)
            negatives = np.asarray(data.train_negatives, dtype=np.int64).reshape(-1, 2)
            pos_weights = None
            edges = graph.edges()
            if len(edges) == len(positives) and np.array_equal(edges, positives):
                pos_weights = graph.edge_weights().astype(np.float64)
            elif graph.is_weighted:
                raise ValueError("data: the split's train_positives differ from train_graph.edges(), so "
                                 "their weights are unknown; pass a split made by lgekit.split_edges")
        else:
            if isinstance(data, Graph):
                graph = data
            elif type(data).__module__.split(".")[0] == "networkx":
                weighted = any("weight" in d for _, _, d in data.edges(data=True))
                graph = Graph.from_networkx(data, weight="weight" if weighted else None)
            elif hasattr(data, "tocsr") and hasattr(data, "shape"):
                graph = Graph.from_scipy(data)
            else:
                raise TypeError(
                    "data must be an EdgeSplit (from lgekit.split_edges), an lgekit.Graph, a networkx graph "
                    f"or a scipy sparse adjacency matrix, got {type(data).__name__}")
            positives = graph.edges()
            pos_weights = graph.edge_weights().astype(np.float64)
            negatives = None
        n = graph.n_nodes
        if len(positives) == 0:
            raise ValueError(f"data: the training graph has no edges ({n} nodes, 0 edges); "
                             "an embedding needs at least one positive pair")
        if pos_weights is None:
            pos_weights = np.ones(len(positives))
        if negatives is None:
            from ..evaluation import sample_negative_pairs

            k = self.negatives_per_positive * len(positives)
            negatives = np.asarray(sample_negative_pairs(graph, k, seed=draw_seed(rng)), dtype=np.int64)
        for name, pairs in (("positive", positives), ("negative", negatives)):
            if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
                raise ValueError(f"data: {name} pairs must be node indices in [0, {n}), got values in "
                                 f"[{pairs.min()}, {pairs.max()}]")
            if len(pairs) and np.any(pairs[:, 0] == pairs[:, 1]):
                raise ValueError(f"data: {name} pairs contain self-pairs (u, u), e.g. "
                                 f"{pairs[pairs[:, 0] == pairs[:, 1]][0].tolist()}; they are not allowed")
        if not np.all(np.isfinite(pos_weights)) or np.any(pos_weights < 0):
            raise ValueError("data: edge weights must be finite and >= 0")
        return TrainingData(n_nodes=n, node_ids=np.asarray(graph.node_ids), train_graph=graph,
                            positives=np.ascontiguousarray(positives),
                            pos_weights=np.ascontiguousarray(pos_weights),
                            negatives=np.ascontiguousarray(negatives), split=split)

    # ------------------------------------------------------------------ fitting
    def fit(self, data, callbacks=None):
        """Fit the embedding.

        Parameters
        ----------
        data : EdgeSplit, lgekit.Graph, networkx graph or scipy sparse matrix
            Training data; see the class docstring.
        callbacks : sequence of lgekit.callbacks.Callback, optional
            Called in order at the start, after every epoch (a callback
            returning True stops training) and at the end.

        Returns
        -------
        self

        Raises
        ------
        DivergenceError
            When the iterates become non-finite or explode (``history_`` is
            kept, its last record has ``"diverged": True``).
        """
        warm = bool(getattr(self, "warm_start", False)) and hasattr(self, "embedding_")
        return self._fit(data, callbacks, self.epochs, continue_=warm)

    def partial_fit(self, data, epochs=1, callbacks=None):
        """Run ``epochs`` more epochs, continuing from the current model.

        The learning-rate schedule and the per-epoch random streams continue
        from ``n_iter_``, so ``fit`` with ``epochs=a`` followed by
        ``partial_fit(data, epochs=b)`` on the same data equals one fit with
        ``epochs=a + b`` (with ``negatives="fixed"`` and a split, or the same
        graph object, as data).  An unfitted estimator is initialised first.
        Given the same data object again and unchanged parameters, it keeps
        the training state already prepared (``LogisticEmbedding``'s pair
        records and work arrays, ``HingeEmbedding``'s pair lists), so that a
        loop of ``partial_fit(data, epochs=1)`` costs what the epochs of one
        ``fit`` cost; new data or a changed parameter rebuilds it.
        """
        if isinstance(epochs, bool) or not isinstance(epochs, numbers.Integral) or epochs < 1:
            raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
        return self._fit(data, callbacks, int(epochs), continue_=hasattr(self, "embedding_"))

    def fit_transform(self, data, callbacks=None):
        """Fit and return ``embedding_`` (rows in internal node order)."""
        return self.fit(data, callbacks=callbacks).embedding_

    def _fit(self, data, callbacks, n_epochs, continue_):
        self._check_common_params()
        self._check_params()
        callbacks = list(callbacks or [])
        for cb in callbacks:
            if not hasattr(cb, "on_epoch_end"):
                raise TypeError(f"callbacks must be lgekit.callbacks.Callback objects, got {type(cb).__name__}")
        if continue_:
            if getattr(self, "_train_data_source", None) is data and getattr(self, "_train_data", None) is not None:
                train = self._train_data
            else:
                train = self._coerce_data(data, self._rng if hasattr(self, "_rng") else
                                          check_random_state(self.random_state))
            if train.n_nodes != self.embedding_.shape[0]:
                raise ValueError(f"data: has {train.n_nodes} nodes but the fitted embedding has "
                                 f"{self.embedding_.shape[0]} rows; call fit to start afresh")
            if self.embedding_.shape[1] != self.dim:
                raise ValueError(f"dim: is {self.dim} but the fitted embedding has {self.embedding_.shape[1]} "
                                 "columns; call fit with warm_start=False to start afresh")
            self.embedding_ = np.ascontiguousarray(self.embedding_, dtype=self._dtype)
            start = self.n_iter_
            if not hasattr(self, "_kernel_seed"):
                self._kernel_seed = draw_seed(check_random_state(self.random_state))
        else:
            rng = check_random_state(self.random_state)
            self._rng = rng
            train = self._coerce_data(data, rng)
            self._kernel_seed = draw_seed(rng)
            self.embedding_ = self._initial_embedding(train.n_nodes, rng)
            self.history_ = []
            self.n_iter_ = 0
            start = 0
        self._train_data = train
        self._train_data_source = data
        self.node_ids_ = train.node_ids
        self._id_lookup = None
        self._init_solver(train, self._kernel_seed)
        self._train(callbacks, start, n_epochs)
        return self

    def _initial_embedding(self, n_nodes, rng, block=65536):
        """Uniform in [-init_scale, init_scale], drawn row block by row block (the same numbers as one
        ``rng.uniform`` call, without its float64 temporary of the whole matrix)."""
        emb = np.empty((n_nodes, self.dim), dtype=self._dtype)
        for lo in range(0, n_nodes, block):
            hi = min(lo + block, n_nodes)
            emb[lo:hi] = rng.uniform(-self.init_scale, self.init_scale, size=(hi - lo, self.dim))
        return emb

    def _train(self, callbacks, start, n_epochs):
        self._last_planned_epoch = start + n_epochs - 1
        for cb in callbacks:
            if hasattr(cb, "on_train_begin"):
                cb.on_train_begin(self)
        bar = None
        if self.verbose and n_epochs > 1 and sys.stderr.isatty():
            from tqdm.auto import tqdm
            bar = tqdm(total=n_epochs, desc=type(self).__name__, unit="epoch")
        try:
            for epoch in range(start, start + n_epochs):
                t0 = time.perf_counter()
                out = self._run_epoch(epoch)
                seconds = time.perf_counter() - t0
                record = {"epoch": epoch, "seconds": seconds}
                record.update(out)
                if "mean_norm" not in record:
                    record["mean_norm"] = float(np.mean(np.sqrt(np.einsum(
                        "ij,ij->i", self.embedding_, self.embedding_, dtype=np.float64))))
                diverged = bool(record.get("diverged", False))
                values = [record.get(k) for k in ("objective", "loss_pos", "loss_neg", "reg", "mean_norm")]
                if any(v is not None and not np.isfinite(v) for v in values):
                    diverged = True
                if record["mean_norm"] > self._max_mean_norm:
                    diverged = True
                record["diverged"] = diverged
                self.history_.append(record)
                self.n_iter_ = epoch + 1
                if diverged:
                    msg = (f"{type(self).__name__} diverged at epoch {epoch} (0-based): non-finite values or "
                           f"exploding norms (mean norm {record['mean_norm']:.3g}, objective "
                           f"{record.get('objective')}); {self._divergence_advice}")
                    logger.warning(msg)
                    raise DivergenceError(msg, epoch=epoch, history=list(self.history_))
                if self.verbose >= 2:
                    logger.info("epoch %d: objective %.6g, mean norm %.4g (%.3fs)", epoch,
                                record.get("objective", float("nan")), record["mean_norm"], seconds)
                stop = False
                for cb in callbacks:
                    if cb.on_epoch_end(self, epoch, record):
                        stop = True
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(objective=f"{record.get('objective', float('nan')):.5g}")
                if stop:
                    logger.info("stopped by a callback after epoch %d", epoch)
                    break
        finally:
            if bar is not None:
                bar.close()
        for cb in callbacks:
            if hasattr(cb, "on_train_end"):
                cb.on_train_end(self)

    def _restore_embedding(self, embedding, solver_state=None):
        """Copy ``embedding`` (and the solver state saved with it, see ``_solver_state_for_save``)
        back in place (used by EarlyStopping)."""
        self.embedding_[...] = embedding
        if solver_state:
            self._set_solver_state(solver_state)
        hook = getattr(self, "_embedding_restored", None)
        if hook is not None:
            hook()

    # ------------------------------------------------------------------ exits
    def _check_fitted(self):
        if not hasattr(self, "embedding_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _rows(self, nodes, index, what):
        nodes = np.asarray(nodes)
        n = self.embedding_.shape[0]
        if index:
            if nodes.dtype.kind not in "iu":
                raise TypeError(f"{what}: with index=True nodes must be integer indices, got dtype {nodes.dtype}")
            if nodes.size and (nodes.min() < 0 or nodes.max() >= n):
                raise ValueError(f"{what}: indices must lie in [0, {n}), got values in [{nodes.min()}, {nodes.max()}]")
            return nodes.astype(np.int64)
        if self._id_lookup is None:
            ids = np.asarray(self.node_ids_)
            self._id_lookup = (ids, None if ids.dtype.kind == "O" else np.argsort(ids, kind="stable"))
        from ..graph import _index_ids
        ids, sorter = self._id_lookup
        return _index_ids(nodes, ids, sorter, what)

    def transform(self, nodes=None, *, index=False):
        """Embedding rows of ``nodes`` (node ids; internal indices with ``index=True``).

        ``nodes=None`` returns a copy of the whole embedding.
        """
        self._check_fitted()
        if nodes is None:
            return self.embedding_.copy()
        return self.embedding_[self._rows(nodes, index, "transform")]

    def score_pairs(self, pairs, *, index=False):
        """Scores ``x_u . x_v`` of node pairs, shape (k, 2) of node ids (indices with ``index=True``).

        Computed in float64.
        """
        self._check_fitted()
        pairs = np.asarray(pairs)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError(f"pairs must have shape (k, 2), got {pairs.shape}")
        rows = self._rows(pairs, index, "score_pairs")
        emb = self.embedding_
        return np.einsum("ij,ij->i", emb[rows[:, 0]], emb[rows[:, 1]], dtype=np.float64)

    def _params_for_save(self):
        params = {}
        for key, value in self.get_params(deep=False).items():
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, np.dtype) or isinstance(value, type):
                value = np.dtype(value).name
            if key == "random_state" and not (value is None or isinstance(value, int)):
                value = None  # a Generator cannot be stored; a loaded model gets fresh entropy
            params[key] = value
        return params

    def save(self, path):
        """Save the fitted model to an ``.npz`` file (atomically).

        Stores the embedding, node ids, parameters, history and class, plus
        any solver state the model adds.  Read it back with :meth:`load`.
        """
        self._check_fitted()
        ids = np.asarray(self.node_ids_)
        ids_kind = "native"
        if ids.dtype.kind == "O":
            ids = ids.astype(str)
            ids_kind = "str"
        cls = type(self)
        meta = {
            "format_version": _FORMAT_VERSION,
            "class": f"{cls.__module__}:{cls.__qualname__}",
            "params": self._params_for_save(),
            "history": self.history_,
            "n_iter": int(self.n_iter_),
            "node_ids_kind": ids_kind,
            "kernel_seed": int(getattr(self, "_kernel_seed", 0)),
        }
        from .. import __version__
        meta["lgekit_version"] = __version__
        arrays = {"embedding": self.embedding_, "node_ids": ids,
                  "meta": np.array(json.dumps(meta, default=_json_default))}
        for key, value in (self._solver_state_for_save() or {}).items():
            arrays[f"solver__{key}"] = np.asarray(value)
        with atomic_path(path, suffix=".npz") as tmp:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)
        return path

    def _solver_state_for_save(self):
        return {}

    def _restore_solver_state(self, arrays):
        pass

    def _set_solver_state(self, arrays):
        """Put back a state taken by ``_solver_state_for_save`` during this fit (same data)."""
        self._restore_solver_state(arrays)

    @classmethod
    def load(cls, path):
        """Load a model saved by :meth:`save`; returns an instance of the stored class.

        Raises
        ------
        TypeError
            When the file holds a model that is not a ``cls``.
        ValueError
            When the file is not an lgekit model file.
        """
        with np.load(path, allow_pickle=False) as f:
            if "meta" not in f.files or "embedding" not in f.files:
                raise ValueError(f"{path} is not an lgekit model file (no 'meta'/'embedding' arrays)")
            meta = json.loads(str(f["meta"]))
            embedding = f["embedding"]
            ids = f["node_ids"]
            solver = {k[len("solver__"):]: f[k] for k in f.files if k.startswith("solver__")}
        module, _, qualname = meta["class"].partition(":")
        try:
            target = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"{path}: model class {meta['class']} cannot be imported: {exc}") from None
        if not (isinstance(target, type) and issubclass(target, cls)):
            raise TypeError(f"{path} holds a {qualname}, not a {cls.__name__}")
        accepted = set(target._get_param_names())
        params = {k: v for k, v in meta["params"].items() if k in accepted}
        dropped = sorted(set(meta["params"]) - accepted)
        if dropped:
            logger.warning("%s: ignoring unknown parameters %s", path, dropped)
        model = target(**params)
        model.embedding_ = np.ascontiguousarray(embedding)
        model.node_ids_ = ids
        model.history_ = meta["history"]
        model.n_iter_ = meta["n_iter"]
        model._kernel_seed = meta.get("kernel_seed", 0)
        model._id_lookup = None
        model._restore_solver_state(solver)
        return model

    def to_word2vec(self, path, *, binary=False):
        """Write the embedding in word2vec text format (atomically).

        First line ``"<n_nodes> <dim>"``, then one line per node:
        its id and the coordinates (``repr`` precision).  Readable by
        ``gensim.models.KeyedVectors.load_word2vec_format(path)``.

        Raises
        ------
        ValueError
            If a node id contains whitespace (the format cannot hold it).
        """
        self._check_fitted()
        if binary:
            raise ValueError("binary=True is not supported; only the text format is written")
        ids = [str(i) for i in np.asarray(self.node_ids_).tolist()]
        for i in ids:
            if not i or any(c.isspace() for c in i):
                raise ValueError(f"node id {i!r} is empty or contains whitespace; word2vec format cannot store it")
        emb = self.embedding_
        fmt = "%.9g" if emb.dtype == np.float32 else "%.17g"
        lines = [f"{emb.shape[0]} {emb.shape[1]}"]
        for node, row in zip(ids, emb):
            lines.append(node + " " + " ".join(fmt % x for x in row))
        atomic_write_text(path, "\n".join(lines) + "\n")
        return path
