"""SGDSolver: LogisticEmbedding's solver (prepared pairs, work arrays, seed, one epoch at a time)."""
import math

import numpy as np

from .. import _sampling
from .._simd import load_kernel
from . import _schedules
from ._solver import EpochOrder, EpochStatus, Solver, read_only

# the AVX2+FMA builds when the CPU has them
_sgd = load_kernel("lgekit.models._sgd")
_sgd_diagnostics = load_kernel("lgekit.models._sgd_diagnostics")

__all__ = ["SGDSolver"]

_INT32_MAX = np.iinfo(np.int32).max
_ORDERS = ("edge", "vertex")
_NEGATIVES = ("fixed", "resample")


class SGDSolver(Solver):
    r"""Stochastic gradient descent on the regularised logistic objective (LogisticEmbedding's solver).

    Built by :class:`~lgekit.LogisticEmbedding` at ``fit`` and kept as its
    ``solver_``; see that class for the mathematics (Section 3.2 of the
    paper; the objective's gradient is Eq. 2).  The solver holds the
    training pairs as the kernel reads them, the work arrays of an epoch and
    the kernel seed, and runs epochs in place on ``embedding``.

    Parameters
    ----------
    data : TrainingData
        The pairs, in internal node indices.
    embedding : ndarray of shape (n_nodes, dim), float32 or float64
        Updated in place (C-contiguous).
    seed : int in [0, 2**64)
        Epoch ``t`` visits the pairs in the order of the SplitMix64 stream
        ``rng_stream(seed, 2 t)`` and resamples negatives from
        ``rng_stream(seed, 2 t + 1)``.
    lam_pos, lam_neg, lam_r : float
        The objective's weights (validated by the estimator).
    lr, lr_offset : float
        Epoch ``t`` steps by :math:`\gamma_t = \mathrm{lr}\,(t + \mathrm{lr\_offset})^{-1/2}`.
    order : {"edge", "vertex"}
    negatives : {"fixed", "resample"}
    schedule : {"hogwild", "deterministic"}
    n_threads : int
    prepare_diagnostics : bool, default True
        Let :meth:`prepare` build the per-vertex incidence lists the
        diagnostics read (they are needed after every epoch), instead of the
        first call of :meth:`diagnostics`.

    Notes
    -----
    Memory: one 16-byte record per training pair (two int32 ids and the
    signed coefficient), the epoch's copy of them in visiting order (edge
    order; 16 bytes a pair), the stratified schedule's block ids
    (``schedule="deterministic"``; 4 bytes a pair), and, for the vertex order
    and the diagnostics, the incidence lists (two int32 partners a pair, and
    a float64 coefficient per positive entry).  The user's pair arrays are
    not kept: :attr:`positives`, :attr:`negatives` and
    :meth:`training_data` rebuild them from the records.

    Examples
    --------
    >>> import networkx as nx
    >>> import lgekit
    >>> model = lgekit.LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(nx.karate_club_graph())
    >>> solver = model.solver_
    >>> solver.n_positives, solver.n_negatives
    (78, 312)
    >>> order = solver.epoch_order(2)       # what the next epoch will visit, pair by pair
    >>> sorted(order.order.tolist()) == list(range(390))
    True
    >>> int(solver.run_epoch(2))            # EpochStatus.OK
    0
    """

    def __init__(self, data, embedding, *, seed, lam_pos=1.0, lam_neg=0.03, lam_r=0.0, lr=1.0, lr_offset=1.0,
                 order="edge", negatives="fixed", schedule="hogwild", n_threads=1, prepare_diagnostics=True):
        if order not in _ORDERS:
            raise ValueError(f"order must be one of {_ORDERS}, got {order!r}")
        if negatives not in _NEGATIVES:
            raise ValueError(f"negatives must be one of {_NEGATIVES}, got {negatives!r}")
        super().__init__(embedding, seed, n_threads)
        n = data.n_nodes
        if n != self.embedding.shape[0]:
            raise ValueError(f"data has {n} nodes but the embedding has {self.embedding.shape[0]} rows")
        m, k = len(data.positives), len(data.negatives)
        if n > _INT32_MAX or 2 * (m + k) > _INT32_MAX:
            raise ValueError(f"data: too large for the SGD kernel ({n} nodes, {m + k} pairs; "
                             f"at most {_INT32_MAX} nodes and {_INT32_MAX // 2} pairs)")
        self.key = (float(lam_pos), float(lam_neg), float(lam_r), order, negatives)
        self._lam_pos, self._lam_neg, self._lam_r = self.key[:3]
        self._order, self._negatives = order, negatives
        self.schedule = schedule
        self.lr, self.lr_offset = float(lr), float(lr_offset)
        self._n_pos, self._n_neg = m, k
        self._node_ids = data.node_ids
        self._train_graph = data.train_graph
        weights = np.asarray(data.pos_weights, dtype=np.float64)
        # unit weights need no array: lam_pos * 1.0 is lam_pos, the same bits
        self._weights = None if bool(np.all(weights == 1.0)) else np.ascontiguousarray(weights)
        self._records = np.empty(m + k, _schedules.PAIR_RECORD_DTYPE)
        _schedules.fill_pair_records(self._records, 0, np.ascontiguousarray(data.positives), self._lam_pos,
                                     self._weights)
        _schedules.fill_pair_records(self._records, m, np.ascontiguousarray(data.negatives), self._lam_neg,
                                     negative=True)
        self._pos_count = self._count = self._rfac = None
        self._pos_incidence = self._neg_incidence = None
        self._work = self._bid = self._vertex_work = None
        self._scratch = {}
        if negatives == "resample":
            g = data.train_graph
            self._graph_indptr = np.ascontiguousarray(g.indptr, dtype=np.int64)
            self._graph_indices = np.ascontiguousarray(g.indices, dtype=np.int32)
            n_possible = n * (n - 1) // 2 - g.n_edges
            if k and n_possible <= 0:
                raise ValueError("negatives='resample': the training graph is complete, there are no "
                                 "non-edges to sample")
            self._neg_buffer = np.empty((k, 2), np.int32)
        if order == "edge":
            self._work = np.empty(m + k, _schedules.PAIR_RECORD_DTYPE)
        self.prepare_diagnostics = bool(prepare_diagnostics)

    def prepare(self):
        """Build what the epochs derive from the records: the pair counts (the regulariser's split) and
        the incidence lists of the vertex order and (``prepare_diagnostics``) of the diagnostics, whose
        row lengths are the counts.  The estimator calls it after dropping its input pairs, so that these
        and those arrays are never in memory together; :meth:`run_epoch` calls it if nobody did."""
        if self.prepare_diagnostics or self._order == "vertex":
            self._incidence_lists()
        if self._pos_count is None:
            if self._pos_incidence is not None:
                self._pos_count = np.diff(self._pos_incidence[0])
            else:
                self._pos_count = np.zeros(self.n_nodes, np.int64)
                _schedules.pair_counts(self._records, 0, self._n_pos, self._pos_count, self.n_threads)
        if self._count is None:
            self._update_counts()

    # ------------------------------------------------------------------ settings
    @property
    def order(self):
        """``"edge"`` (pair updates) or ``"vertex"`` (full Eq. 2 steps per vertex)."""
        return self._order

    @property
    def negatives_mode(self):
        """``"fixed"`` or ``"resample"``."""
        return self._negatives

    def learning_rate(self, epoch):
        r"""The step :math:`\gamma_t = \mathrm{lr}\,(t + \mathrm{lr\_offset})^{-1/2}` of epoch ``t``."""
        return self.lr * (epoch + self.lr_offset) ** -0.5

    # ------------------------------------------------------------------ the pairs
    @property
    def n_positives(self):
        return self._n_pos

    @property
    def n_negatives(self):
        return self._n_neg

    @property
    def n_pairs(self):
        return self._n_pos + self._n_neg

    @property
    def records(self):
        """The pair records the edge-order kernel reads (read-only), positives first: fields ``u``,
        ``v`` (int32) and ``c`` (``lam_pos * weight`` for a positive pair, ``-lam_neg`` for a negative)."""
        return read_only(self._records)

    def _pairs(self, lo, hi):
        out = np.empty((hi - lo, 2), np.int32)
        out[:, 0] = self._records["u"][lo:hi]
        out[:, 1] = self._records["v"][lo:hi]
        out.flags.writeable = False
        return out

    @property
    def pairs(self):
        """All training pairs, positives first (a read-only (P, 2) int32 copy)."""
        return self._pairs(0, self.n_pairs)

    @property
    def positives(self):
        """The positive (edge) pairs (a read-only (m, 2) int32 copy)."""
        return self._pairs(0, self._n_pos)

    @property
    def negatives(self):
        """The negative pairs of the current epoch (the last one run; a read-only (k, 2) int32 copy)."""
        return self._pairs(self._n_pos, self.n_pairs)

    @property
    def positive_weights(self):
        """The edge weights of the positive pairs (float64; ones for an unweighted graph)."""
        return read_only(np.ones(self._n_pos) if self._weights is None else self._weights)

    @property
    def coefficients(self):
        """Each pair's loss weight, ``lam_pos * weight`` or ``lam_neg`` (a read-only float64 copy)."""
        return read_only(np.abs(self._records["c"]))

    @property
    def pair_counts(self):
        """Number of training pairs containing each vertex (read-only int64)."""
        self._ensure_counts()
        return read_only(self._count)

    @property
    def regulariser_factors(self):
        r"""``2 lam_r / c_x`` per vertex (0 for a vertex in no pair): the share of the regulariser's
        gradient an edge-order visit of :math:`x` applies (read-only float64)."""
        self._ensure_counts()
        return read_only(self._rfac)

    @property
    def min_pair_count(self):
        """The fewest training pairs any vertex that has some is in."""
        self._ensure_counts()
        count = self._count
        positive = count[count > 0]
        return int(positive.min()) if positive.size else 1

    @property
    def n_groups(self):
        """K, the vertex groups of the deterministic edge-order schedule (1: a uniform permutation)."""
        return int(_schedules.edge_group_count(self.n_nodes, self.n_pairs, self.dim))

    def training_data(self):
        """The :class:`~lgekit.models.TrainingData` this solver trains on now (int64 copies of the pairs;
        with ``negatives="resample"``, the negatives of the last epoch)."""
        from ._base import TrainingData

        return TrainingData(n_nodes=self.n_nodes, node_ids=self._node_ids, train_graph=self._train_graph,
                            positives=self.positives.astype(np.int64), pos_weights=np.array(self.positive_weights),
                            negatives=self.negatives.astype(np.int64))

    def zero_objective(self):
        # sigma(0) = 1/2: every pair costs its coefficient times log 2
        return math.log(2.0) * (float(self._records["c"][:self._n_pos].sum()) + self._lam_neg * self._n_neg)

    # ------------------------------------------------------------------ prepared structures
    def _ensure_counts(self):
        if self._count is None:
            self.prepare()

    def _update_counts(self):
        """After the negatives change: the pair counts and the regulariser's per-vertex factors."""
        if self._neg_incidence is not None:
            count = self._pos_count + np.diff(self._neg_incidence[0])
        else:
            count = self._pos_count.copy()
            _schedules.pair_counts(self._records, self._n_pos, self.n_pairs, count, self.n_threads)
        self._count = count
        self._rfac = np.where(count > 0, 2.0 * self._lam_r / np.maximum(count, 1), 0.0)

    def _incidence_lists(self):
        """(pos_indptr, pos_nbr, pos_coef, neg_indptr, neg_nbr): every vertex's partners, for the
        vertex order and the diagnostics (the negatives' lists are rebuilt after a resampling)."""
        n, m = self.n_nodes, self._n_pos
        if self._pos_incidence is None:
            indptr, nbr, coef = np.empty(n + 1, np.int64), np.empty(2 * m, np.int32), np.empty(2 * m)
            _schedules.record_incidence(self._records, 0, m, indptr, nbr, coef, self.n_threads)
            self._pos_incidence = (indptr, nbr, coef)
        if self._neg_incidence is None:
            indptr, nbr = np.empty(n + 1, np.int64), np.empty(2 * self._n_neg, np.int32)
            _schedules.record_incidence(self._records, m, self.n_pairs, indptr, nbr, None, self.n_threads)
            self._neg_incidence = (indptr, nbr)
        return self._pos_incidence + self._neg_incidence

    def _rows(self, name):
        """A (n_threads, dim) scratch array of the embedding's dtype, kept while n_threads stays."""
        shape = (self.n_threads, self.dim)
        array = self._scratch.get(name)
        if array is None or array.shape != shape or array.dtype != self.embedding.dtype:
            array = self._scratch[name] = np.empty(shape, self.embedding.dtype)
        return array

    def _block_ids(self):
        """The int32 work array of edge_epoch's stratified order.  The hogwild schedule never touches it,
        so it then gets a view of the work records (which it fills anyway) instead of P fresh int32."""
        if self._schedule == "hogwild":
            return self._work.view(np.int32)[:self.n_pairs]
        if self._bid is None:
            self._bid = np.empty(max(self.n_pairs, 1), np.int32)
        return self._bid

    # ------------------------------------------------------------------ epochs
    def epoch_negatives(self, epoch):
        """The negative pairs epoch ``epoch`` trains on: the fixed ones, or (``negatives="resample"``) the
        ones it draws from ``rng_stream(seed, 2 epoch + 1)``, computed without changing the solver."""
        if self._negatives == "fixed" or not self._n_neg:
            return self.negatives
        out = np.empty((self._n_neg, 2), np.int32)
        self._draw_negatives(out, epoch)
        out.flags.writeable = False
        return out

    def _draw_negatives(self, out, epoch):
        if _sampling.sample_negatives(out, self._graph_indptr, self._graph_indices, self.seed, epoch, self.n_threads):
            raise ValueError("negatives='resample': could not find non-edge pairs (the training graph "
                             "is nearly complete)")

    def epoch_order(self, epoch, negatives=None):
        """The :class:`~lgekit.models.EpochOrder` of epoch ``epoch`` under the current schedule.

        Edge order: indices into :attr:`pairs` (the positives, then
        ``negatives``, by default the current ones; pass
        ``epoch_negatives(epoch)`` for a resampling epoch not yet run);
        ``"deterministic"`` gives the stratified order's blocks and rounds.
        Vertex order: a permutation of the vertices (one block).
        """
        if self._order == "vertex":
            perm = _schedules.permutation(self.n_nodes, self.seed, epoch, self.n_threads)
            return EpochOrder(perm, np.array([0, self.n_nodes], np.int64), np.array([0, 1], np.int64))
        pairs = self.pairs if negatives is None else np.vstack([self.positives, negatives])
        order, block_ptr, round_ptr = _schedules.edge_order(np.ascontiguousarray(pairs, dtype=np.int32),
                                                            self.n_nodes, self.dim, self.seed, epoch,
                                                            self._schedule == "deterministic")
        return EpochOrder(order, block_ptr, round_ptr)

    def run_epoch(self, epoch):
        """Epoch ``epoch``: resample the negatives (``negatives="resample"``), then one update pass over the
        pairs (edge order) or the vertices (vertex order) at step :meth:`learning_rate` ``(epoch)``.

        Returns
        -------
        EpochStatus

        Raises
        ------
        MemoryError
            When the epoch's ordering work space cannot be allocated.
        ValueError
            When resampling finds no non-edge pairs.
        """
        self._ensure_counts()
        lr = self.learning_rate(epoch)
        threads = self.n_threads
        deterministic = self._schedule == "deterministic"
        if self._negatives == "resample" and self._n_neg:
            self._draw_negatives(self._neg_buffer, epoch)
            _schedules.fill_pair_records(self._records, self._n_pos, self._neg_buffer, self._lam_neg, negative=True)
            self._neg_incidence = None
            self._update_counts()
        emb = self.embedding
        if self._order == "edge":
            flag = _sgd.edge_epoch(emb, self._records, self._work, self._rfac, self._block_ids(), self.seed, epoch,
                                   lr, threads, deterministic)
            if flag == 2:
                raise MemoryError(f"edge_epoch: out of memory for the epoch's ordering work space (epoch {epoch}, "
                                  f"{self.n_pairs:,} pairs); free memory or use fewer n_threads")
        else:
            n = self.n_nodes
            if self._vertex_work is None:
                self._vertex_work = (np.empty(max(n, 1), np.int32), np.empty(n + 2, np.int64),
                                     np.empty(max(n, 1), np.int32))
            order = _schedules.permutation(n, self.seed, epoch, threads)
            flag = _sgd.vertex_epoch(emb, *self._incidence_lists(), self._lam_neg, self._lam_r,
                                     self._rows("vertex"), order, *self._vertex_work, lr, threads, deterministic)
        return EpochStatus(1 if flag else 0)

    def diagnostics(self, return_arrays=False):
        """Objective parts, mean norm and mean Eq. 2 gradient norm of the current embedding.

        Returns
        -------
        dict
            ``objective``, ``loss_pos``, ``loss_neg``, ``reg``, ``mean_norm``,
            ``mean_grad_norm`` and ``diverged`` (False); with
            ``return_arrays``, also ``grad`` (n_nodes, dim) and ``grad_norm``
            (n_nodes,), float64.
        """
        emb = self.embedding
        n, dim = emb.shape
        gnorm, lpos, lneg, norm2 = (np.empty(n) for _ in range(4))
        grad = np.empty((n, dim)) if return_arrays else None
        _sgd_diagnostics.diagnostics(emb, *self._incidence_lists(), self._lam_neg, self._lam_r, self._rows("diagnostics"),
                                     gnorm, lpos, lneg, norm2, self.n_threads, grad)
        loss_pos = float(lpos.sum())
        loss_neg = float(lneg.sum())
        reg = self._lam_r * float(norm2.sum())
        out = {"objective": loss_pos + loss_neg + reg, "loss_pos": loss_pos, "loss_neg": loss_neg, "reg": reg,
               "mean_norm": float(np.sqrt(norm2).mean()), "mean_grad_norm": float(gnorm.mean()),
               "diverged": False}
        if return_arrays:
            out["grad"] = grad
            out["grad_norm"] = gnorm
        return out

    def __repr__(self):
        return (f"<SGDSolver: {self.n_pairs:,} pairs ({self._n_pos:,} positive) on {self.n_nodes:,} nodes, dim "
                f"{self.dim}, {self.embedding.dtype}, order={self._order!r}, negatives={self._negatives!r}, "
                f"schedule={self._schedule!r}, {self.n_threads} thread(s), seed {self.seed}>")
