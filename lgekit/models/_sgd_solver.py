"""SGDSolver: LogisticEmbedding's solver (prepared pairs, work arrays, seed, one epoch at a time)."""
import math

import numpy as np

from .._sampling import alias_table, sample_alias, sample_negatives
from .._simd import load_kernel
from ._diagnostic_sample import (MIN_VERTICES, PAIR_SAMPLE, VERTEX_FRACTION, diagnostics_mode,
                                 mean_estimate, sample_indices, sample_rng, total_estimate)
from ._incidence import (PAIR_RECORD_DTYPE, IncidenceLists, PairRecords, fill_pair_records, owned_incidence,
                         pair_counts, record_incidence)
from ._schedules import edge_group_count, edge_order, permutation, stream_seed
from ._solver import EpochOrder, EpochStatus, Solver, check_scaled_weights, mean_one_weights, read_only
from ._training_data import TrainingData
from ._two_tables import BIAS_CONSTANT, TwoTableExtras

# the AVX2+FMA builds when the CPU has them
_sgd = load_kernel("lgekit.models._sgd")
_sgd_diagnostics = load_kernel("lgekit.models._sgd_diagnostics")
_scoring = load_kernel("lgekit._scoring")

__all__ = ["SGDSolver"]

_INT32_MAX = np.iinfo(np.int32).max

#: the epochs whose diagnostic vertex samples one build of the sampled record's lists covers (then the whole
#: lists): a short fit pays a fraction of the whole lists' cost, a long one the whole lists once more
SAMPLE_WINDOW = 8


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
        The objective's weights.
    lam_r_context : float
        With ``n_source``: the :math:`\lambda_r` of the rows ``n_source..``
        (the context table of a directed or bipartite graph); ignored without.
    n_source : int or None, default None
        The embedding is the stacked table of a directed or bipartite graph
        (:class:`~lgekit.models.TableLayout`): rows ``0..n_source-1`` the
        source/left vectors, the rest the target/right vectors.  It changes
        two things.  The regulariser's :math:`\lambda_r` is ``lam_r`` on the
        first rows and ``lam_r_context`` on the others: the edge order's
        per-vertex factors ``2 lambda_r / c_x`` (computed here), the vertex
        order's per-row ``row_lam_r`` and the diagnostics (each table's rows
        through the kernel with its own :math:`\lambda_r`).  And
        ``negatives="resample"`` draws each negative's source row uniformly
        among the first table's rows and its target row among the second
        table's (a directed graph's node never with itself), rejecting the
        positives.
    lr, lr_offset : float
        Epoch ``t`` steps by :math:`\gamma_t = \mathrm{lr}\,(t + \mathrm{lr\_offset})^{-1/2}`.
    order : {"edge", "vertex"}
    negatives : {"fixed", "resample"}
    weighting : {"sample", "scale"}
        How edge weights :math:`w_e` enter (they make no difference on an
        unweighted graph).  ``"scale"``: edge :math:`e`'s loss is multiplied
        by :math:`w_e` (footnote 1 of the paper).  ``"sample"``: LINE's edge
        sampling (Tang et al. 2015): each edge-order epoch draws its
        :math:`m` positive pairs with replacement, edge :math:`e` with
        probability :math:`w_e / \sum w`, from an alias table and the stream
        ``rng_stream(rng_stream(seed, 2 t), 2)``, and steps with the unit
        coefficient ``lam_pos``; in expectation this is the ``"scale"``
        objective with the weights divided by their mean, and no single step
        is larger than an unweighted one.  The diagnostics report that
        expected objective; the vertex order, a full-gradient method, uses the
        mean-1 weights directly.
    schedule : {"hogwild", "deterministic", "blocks"}
        ``"blocks"``: the ``"deterministic"`` order's blocks without its
        barriers (edge order only: the estimator refuses it with the vertex
        order); on one thread the same bits as ``"deterministic"``.
    n_threads : int
    record_diagnostics : bool
        Whether an epoch's record (:meth:`epoch_record`) holds the
        :meth:`diagnostics`; :meth:`prepare` then builds the per-vertex
        incidence lists they read, instead of their first call.
    state : dict or None, default None
        An SGD solver keeps no state beyond the embedding: None or empty.
    node_bias : bool or None, default False
        Node biases on a constant coordinate (two tables, edge order): source
        rows hold column ``dim - 1`` at
        :data:`~lgekit.models._two_tables.BIAS_CONSTANT` and carry their bias
        in ``dim - 2``, target rows the other way round; the kernel puts the
        constant back after every update (``edge_epoch``'s ``pinned``).
        None: on for a directed graph with the edge order and ``dim >= 2``.
    lam_tie : float >= 0 or None
        A directed graph's tie :math:`\lambda_{\mathrm{tie}}\sum_u\|x'_u - y'_u\|^2`
        between node ``u``'s source row and its target row ``n_source + u``
        (their free coordinates: all but the node biases' two), applied by
        its proximal step at the end of every epoch (:meth:`tie_step`).
        None: :math:`r / (1 - r)` for a directed graph, ``r`` the training
        arcs' :meth:`~lgekit.Graph.reciprocity` (capped at
        :data:`~lgekit.models._two_tables.MAX_TIE_RECIPROCITY`), 0 otherwise.
        Both extras live in :mod:`lgekit.models._two_tables`; the estimator
        checks them against the graph before it builds the solver
        (:func:`~lgekit.models._two_tables.check_extras`).

    The other arguments are the estimator's parameters as it validated them;
    the solver does not check them again.

    Notes
    -----
    Memory: one 8-byte record per training pair (two int32 ids; a pair's
    coefficient follows from its index, plus one float64 per positive pair
    on a weighted graph), the epoch's visiting order (edge order: an int32
    record index a pair, whatever the schedule; the kernel gathers the
    pairs it is about to update into a small buffer), and, for the vertex
    order and the diagnostics, the incidence lists (two int32 partners a
    pair, and a float64 coefficient per positive entry on a weighted graph):
    :attr:`bytes_per_pair` a pair in all, the figure the estimator's memory
    check uses.  The user's pair arrays
    are not kept: :attr:`positives`, :attr:`negatives` and
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

    settings = ("n_threads", "schedule", "lr", "lr_offset", "record_diagnostics")
    schedules = ("deterministic", "hogwild", "blocks")
    # what the solver allocates per training pair once the input pairs exist (the memory check runs after
    # they are made): the 8-byte pair record, the epoch's int32 visiting order (4) and the diagnostics'
    # incidence lists (two int32 partners, 8), plus a float64 coefficient per positive on a weighted graph
    bytes_per_pair = 24
    default_advice = "try a smaller lr (or a larger lr_offset) or a larger lam_r"

    def __init__(self, data, embedding, *, seed, lam_pos, lam_neg, lam_r, lam_r_context, lr, lr_offset, order,
                 negatives, weighting, schedule, n_threads, record_diagnostics, node_bias, lam_tie,
                 n_source=None, state=None):
        super().__init__(embedding, seed, n_threads)
        n = data.n_nodes
        if n != self.embedding.shape[0]:
            raise ValueError(f"data has {n} nodes but the embedding has {self.embedding.shape[0]} rows")
        m, k = len(data.positives), len(data.negatives)
        if n > _INT32_MAX or 2 * (m + k) > _INT32_MAX:
            raise ValueError(f"data: too large for the SGD kernel ({n} nodes, {m + k} pairs; "
                             f"at most {_INT32_MAX} nodes and {_INT32_MAX // 2} pairs)")
        self.key = {"lam_pos": float(lam_pos), "lam_neg": float(lam_neg), "lam_r": float(lam_r),
                    "lam_r_context": float(lam_r_context), "order": order, "negatives": negatives,
                    "weighting": weighting, "node_bias": node_bias, "lam_tie": lam_tie}
        self._lam_pos, self._lam_neg, self._lam_r = float(lam_pos), float(lam_neg), float(lam_r)
        lam_r_context = float(lam_r_context)
        # a stacked two-table embedding (directed / bipartite graph): rows n_source.. are the context table,
        # regularised by lam_r_context; one lambda_r for all rows otherwise (the kernels' scalar path)
        self._n_source = None if n_source is None else int(n_source)
        self._lam_r_context = lam_r_context
        self._per_row_lam_r = self._n_source is not None and lam_r_context != self._lam_r
        if self._n_source is not None and not 0 < self._n_source < n:
            raise ValueError(f"n_source must lie in [1, {n}) (rows of the first table), got {n_source}")
        # node biases and the tie (a stacked table's extras), resolved for this graph (the estimator checked them)
        self._extras = TwoTableExtras(node_bias=node_bias, lam_tie=lam_tie, graph=data.train_graph, order=order,
                                      shape=self.embedding.shape, n_source=self._n_source)
        # the last n_reverse negatives are a directed graph's reverse pairs (TrainingData): kept when resampling
        self._n_reverse = int(data.n_reverse)
        if not 0 <= self._n_reverse <= k:
            raise ValueError(f"data.n_reverse must lie in [0, {k}] (the negatives), got {data.n_reverse}")
        self._order, self._negatives, self._weighting = order, negatives, weighting
        self.schedule = schedule
        self.lr, self.lr_offset = float(lr), float(lr_offset)
        self._n_pos, self._n_neg = m, k
        self._node_ids = data.node_ids
        self._train_graph = data.train_graph
        weights = np.asarray(data.pos_weights, dtype=np.float64)
        if weighting == "scale":
            check_scaled_weights(data.pos_weights)
        # unit weights need no array: lam_pos * 1.0 is lam_pos, the same bits
        self._weights = None if bool(np.all(weights == 1.0)) else np.ascontiguousarray(weights)
        # weighting="sample" on a weighted graph: the records first hold the edges with their mean-1
        # weights (what the diagnostics' incidence lists and the counts are built from, in prepare), and
        # every edge-order epoch then overwrites the positives with its draw
        objective_weights = self._weights
        self._alias = self._source_positives = self._visits = None
        if self._weights is not None and weighting == "sample":
            objective_weights = np.ascontiguousarray(mean_one_weights(weights))
            if bool(np.all(weights == weights[0])):
                objective_weights = None        # equal weights: drawing is visiting each edge once
            elif order == "edge":
                self._source_positives = np.ascontiguousarray(data.positives, dtype=np.int32)
                prob, alias = np.empty(m), np.empty(m, np.int32)
                alias_table(self._weights, prob, alias)
                self._alias = (prob, alias)
                # the expected number of visits of each vertex by a positive draw: the regulariser's split
                self._visits = (np.bincount(self._source_positives[:, 0], objective_weights, minlength=n)
                                + np.bincount(self._source_positives[:, 1], objective_weights, minlength=n))
        # 8-byte records (two int32 ends); a pair's coefficient follows from its index: the positives'
        # (lam_pos times their objective weights) are kept apart only when they differ (None: all lam_pos)
        self._records = np.empty(m + k, PAIR_RECORD_DTYPE)
        self._pos_coef = fill_pair_records(self._records, 0, np.ascontiguousarray(data.positives),
                                                      self._lam_pos, objective_weights)
        self._pos_coef_total = float(self._pos_coef.sum()) if self._pos_coef is not None else self._lam_pos * m
        fill_pair_records(self._records, m, np.ascontiguousarray(data.negatives), self._lam_neg,
                                     negative=True)
        self._pos_count = self._count = self._rfac = None
        self._pos_incidence = self._neg_incidence = None
        self._sample_window = None
        self._work = None
        self._scratch = {}
        self._skip_diagonal = False
        if negatives == "resample":
            self._prepare_resampling(data)
        if order == "edge":
            # the epoch's visiting order: record indices (4 bytes a pair), not a copy of the records
            self._work = np.empty(max(m + k, 1), np.int32)
        self.record_diagnostics = diagnostics_mode(record_diagnostics) or False
        if state:
            self.set_state(state)

    def settings_in_force(self):
        """The tie's weight, whether the rows carry node biases (and whether they are an order) and how many
        negatives are reverse pairs: what ``lam_tie``, ``node_bias`` and ``reverse_negatives`` resolved to."""
        return {**self._extras.settings_in_force(), "n_reverse_negatives": self._n_reverse}

    @property
    def lam_tie(self):
        """The tie's weight in force (``lam_tie=None`` resolved; 0 without a tie)."""
        return self._extras.lam_tie

    @property
    def node_bias(self):
        """Whether the rows carry node biases on a constant coordinate (the kernel's ``pinned``)."""
        return self._extras.node_bias

    @property
    def biases_are_an_order(self):
        """Whether the node biases are a node order (a directed graph's, see :meth:`order_biases`)."""
        return self._extras.biases_are_an_order

    def tie_step(self, step):
        """The tie's proximal step at step size ``step``, in place
        (:meth:`~lgekit.models._two_tables.TwoTableExtras.tie_step`; a no-op without a tie)."""
        self._extras.tie_step(self.embedding, step, self.n_threads)

    def order_biases(self):
        """Project a directed graph's node biases onto a node order, in place
        (:meth:`~lgekit.models._two_tables.TwoTableExtras.order_biases`; a no-op without)."""
        self._extras.order_biases(self.embedding)

    def _prepare_resampling(self, data):
        """The adjacency the resampled negatives avoid, and a check that there is something to draw.

        One table: the training graph's CSR (a pair is refused in either
        orientation).  Two tables: the positives as a CSR over the stacked
        rows, source row -> target rows (in the rows the solver trains, so it
        holds after :func:`~lgekit.models._training_data.match_rows` renumbered them); a
        directed graph's node is also refused as its own partner
        (``skip_diagonal``: row ``u`` and row ``n_source + u`` are one node)."""
        n, k = data.n_nodes, len(data.negatives) - self._n_reverse
        if self._n_source is None:
            g = data.train_graph
            self._graph_indptr = np.ascontiguousarray(g.indptr, dtype=np.int64)
            self._graph_indices = np.ascontiguousarray(g.indices, dtype=np.int32)
            n_possible = n * (n - 1) // 2 - g.n_edges
        else:
            pos = np.unique(np.asarray(data.positives, dtype=np.int64), axis=0)   # sorted rows, sorted columns
            self._graph_indptr = np.zeros(n + 1, np.int64)
            np.cumsum(np.bincount(pos[:, 0], minlength=n), out=self._graph_indptr[1:])
            self._graph_indices = np.ascontiguousarray(pos[:, 1], dtype=np.int32)
            self._skip_diagonal = getattr(data.train_graph, "kind", None) == "directed"
            ns = self._n_source
            diagonal = min(ns, n - ns) if self._skip_diagonal else 0
            n_possible = ns * (n - ns) - diagonal - len(pos)
        if k and n_possible <= 0:
            raise ValueError("negatives='resample': the training graph is complete, there are no "
                             "non-edges to sample")

    def prepare(self):
        """Build what the epochs derive from the records: the pair counts (the regulariser's split) and
        the incidence lists of the vertex order (and of the exact diagnostics), whose row lengths are the
        counts.  The estimator calls it after dropping its input pairs, so that these and those arrays are
        never in memory together; :meth:`run_epoch` calls it if nobody did.  The sampled diagnostics build
        lists of their vertices alone (:meth:`_sample_lists`)."""
        if self._order == "vertex" or self.record_diagnostics == "exact":
            self._incidence_lists()
        if self._pos_count is None:
            if self._pos_incidence is not None:
                self._pos_count = np.diff(self._pos_incidence[0])
            else:
                self._pos_count = np.zeros(self.n_nodes, np.int64)
                pair_counts(self._edge_records(), 0, self._n_pos, self._pos_count, self.n_threads)
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

    @property
    def weighting(self):
        """``"sample"`` or ``"scale"`` (see the class docstring)."""
        return self._weighting

    @property
    def samples_positives(self):
        """Whether each epoch draws its positive pairs (``weighting="sample"`` on a weighted graph, edge
        order)."""
        return self._alias is not None

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
        """The pairs as the edge-order kernel visits them, positives first (a read-only copy): fields ``u``,
        ``v`` (int32) and ``c`` (``lam_pos * weight`` for a positive pair, ``-lam_neg`` for a negative).
        The solver stores only ``u`` and ``v``; the kernel derives ``c`` from the pair's index."""
        out = np.empty(self.n_pairs, [("u", np.int32), ("v", np.int32), ("c", np.float64)])
        out["u"], out["v"] = self._records["u"], self._records["v"]
        pos_coef = self._epoch_pos_coef()
        out["c"][:self._n_pos] = self._lam_pos if pos_coef is None else pos_coef
        out["c"][self._n_pos:] = -self._lam_neg
        return read_only(out)

    def _epoch_pos_coef(self):
        """The positives' coefficients an edge-order epoch steps with (None: all ``lam_pos``): drawn
        positives step with ``lam_pos`` (their draw is the weighting)."""
        return None if self._alias is not None else self._pos_coef

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
        """The positive (edge) pairs (a read-only (m, 2) int32 copy); when the epochs draw them
        (:attr:`samples_positives`), the graph's edges, not the last draw (:meth:`epoch_positives`)."""
        if self._source_positives is not None:
            return read_only(self._source_positives.copy())
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
        """Each pair's loss weight, ``lam_pos * weight`` or ``lam_neg`` (a read-only float64 copy), as the
        next edge-order epoch's records hold them (``lam_pos`` for drawn positives)."""
        return read_only(np.abs(self.records["c"]))

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
    def regularisation(self):
        r"""The :math:`\lambda_r` of each row (read-only float64): ``lam_r``, and ``lam_r_context`` on the
        rows of a stacked table's context table (``n_source..``)."""
        lam = np.full(self.n_nodes, self._lam_r)
        if self._n_source is not None:
            lam[self._n_source:] = self._lam_r_context
        return read_only(lam)

    @property
    def n_source(self):
        """Rows of the first table of a stacked two-table embedding, or None (one table)."""
        return self._n_source

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
        return int(edge_group_count(self.n_nodes, self.n_pairs, self.dim))

    def training_data(self):
        """The :class:`~lgekit.models.TrainingData` this solver trains on now (int64 copies of the pairs;
        with ``negatives="resample"``, the negatives of the last epoch)."""
        return TrainingData(n_nodes=self.n_nodes, node_ids=self._node_ids, train_graph=self._train_graph,
                            positives=self.positives.astype(np.int64), pos_weights=np.array(self.positive_weights),
                            negatives=self.negatives.astype(np.int64), n_reverse=self._n_reverse)

    def zero_objective(self):
        # sigma(0) = 1/2: every pair costs its coefficient times log 2
        return math.log(2.0) * (self._pos_coef_total + self._lam_neg * self._n_neg)

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
            pair_counts(self._records, self._n_pos, self.n_pairs, count, self.n_threads)
        self._count = count
        # the regulariser's share per visit: 2 lam_r over the visits an epoch makes (expected visits when
        # the positives are drawn), so that an epoch applies lam_r ||x||^2 once
        visits = count if self._visits is None else self._visits + (count - self._pos_count)
        lam_r = self._lam_r if not self._per_row_lam_r else np.asarray(self.regularisation)
        self._rfac = np.where(visits > 0, 2.0 * lam_r / np.where(visits > 0, visits, 1), 0.0)

    def _edge_records(self):
        """The positives as 8-byte records: the records' first m, or (:attr:`samples_positives`, whose
        epochs overwrite those with their draws) the graph's edges."""
        if self._source_positives is not None:
            return self._source_positives.view(PAIR_RECORD_DTYPE).reshape(-1)
        return self._records[:self._n_pos]

    def _incidence_lists(self):
        """(pos_indptr, pos_nbr, pos_coef, neg_indptr, neg_nbr): every vertex's partners, for the
        vertex order and the diagnostics (the negatives' lists are rebuilt after a resampling).
        ``pos_coef`` is empty when every positive's coefficient is ``lam_pos`` (the kernels' ``pos_scale``)."""
        n, m = self.n_nodes, self._n_pos
        if self._pos_incidence is None:
            indptr, nbr = np.empty(n + 1, np.int64), np.empty(2 * m, np.int32)
            coef = np.empty(0 if self._pos_coef is None else 2 * m)
            record_incidence(self._edge_records(), 0, m, indptr, nbr, None if self._pos_coef is None else coef,
                             self.n_threads, self._pos_coef)
            self._pos_incidence = (indptr, nbr, coef)
        if self._neg_incidence is None:
            indptr, nbr = np.empty(n + 1, np.int64), np.empty(2 * self._n_neg, np.int32)
            record_incidence(self._records, m, self.n_pairs, indptr, nbr, None, self.n_threads)
            self._neg_incidence = (indptr, nbr)
        self._sample_window = None                      # the whole lists serve every sample from now on
        return self._pos_incidence + self._neg_incidence

    def _kernel_lists(self, lists):
        """The incidence lists ``lists`` (pos_indptr, pos_nbr, pos_coef, neg_indptr, neg_nbr) with the
        coefficients that go with them, as the kernels read them (:data:`~lgekit.models._incidence.IncidenceLists`)."""
        return IncidenceLists(*lists, pos_scale=self._lam_pos, lam_neg=self._lam_neg)

    def _sample_lists(self, epoch):
        """The incidence lists the sampled diagnostics of epoch ``epoch`` read: the whole lists once they
        exist, else lists of the rows of the vertex samples of ``SAMPLE_WINDOW`` epochs from ``epoch`` on
        (the first draw of each epoch's diagnostic stream), the other rows empty: the same rows, entries
        and order as the whole lists (``_incidence.owned_incidence``), for a fraction of their cost.  A
        fit longer than the window (or resampling its negatives) builds the whole lists at the next
        sample."""
        if self._pos_incidence is not None and self._neg_incidence is not None:
            return self._pos_incidence + self._neg_incidence
        window = self._sample_window
        if window is not None and window[0] <= epoch < window[1]:
            return window[2]
        if window is not None or self._negatives == "resample":
            return self._incidence_lists()
        n, m = self.n_nodes, self._n_pos
        owners = np.zeros(n, np.int8)
        for e in range(epoch, epoch + SAMPLE_WINDOW):
            owners[sample_indices(n, VERTEX_FRACTION, MIN_VERTICES, sample_rng(self.seed, e))] = 1
        pos_indptr, neg_indptr = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
        pos_nbr, pos_coef = owned_incidence(self._edge_records(), 0, m, owners, pos_indptr, self._pos_coef)
        neg_nbr, _ = owned_incidence(self._records, m, self.n_pairs, owners, neg_indptr)
        lists = (pos_indptr, pos_nbr, pos_coef, neg_indptr, neg_nbr)
        self._sample_window = (epoch, epoch + SAMPLE_WINDOW, lists)
        return lists

    def _rows(self, name):
        """A scratch row of the embedding's dtype per thread, kept while n_threads stays: ``dim`` entries
        and a cache line (64 bytes) more, so that no two threads' rows, written at every step, share a
        cache line (which would move between their cores at every write)."""
        shape = (self.n_threads, self.dim + 64 // self.embedding.dtype.itemsize)
        array = self._scratch.get(name)
        if array is None or array.shape != shape or array.dtype != self.embedding.dtype:
            array = self._scratch[name] = np.empty(shape, self.embedding.dtype)
        return array

    # ------------------------------------------------------------------ epochs
    def epoch_positives(self, epoch):
        """The positive pairs epoch ``epoch`` trains on: the edges, or (:attr:`samples_positives`) its draw
        of m edges with probability proportional to weight, computed without changing the solver."""
        if self._alias is None:
            return self.positives
        out = np.empty((self._n_pos, 2), np.int32)
        self._draw_positives(out, epoch)
        out.flags.writeable = False
        return out

    def _draw_positives(self, out, epoch):
        picks = np.empty(self._n_pos, np.int32)
        # drawn and gathered on the epoch's threads (the draws do not depend on their number)
        sample_alias(picks, *self._alias, stream_seed(self.seed, 2 * epoch), 2, self.n_threads,
                     self._source_positives, out)

    def epoch_negatives(self, epoch):
        """The negative pairs epoch ``epoch`` trains on: the fixed ones, or (``negatives="resample"``) the
        ones it draws from ``rng_stream(seed, 2 epoch + 1)``, computed without changing the solver."""
        if self._negatives == "fixed" or self._n_neg == self._n_reverse:
            return self.negatives
        out = np.array(self.negatives)          # the reverse pairs at the end stay
        self._draw_negatives(out, epoch)
        out.flags.writeable = False
        return out

    def _draw_negatives(self, out, epoch):
        """Fill ``out`` (the uniform negatives: all but the last ``n_reverse``) with epoch ``epoch``'s draw;
        a stacked table's pairs join a source row to a target row (``sample_negatives``' two-table form)."""
        if sample_negatives(out[:len(out) - self._n_reverse], self._graph_indptr, self._graph_indices, self.seed,
                            epoch, self.n_threads, self._n_source or 0, self._skip_diagonal):
            raise ValueError("negatives='resample': could not find non-edge pairs (the training graph "
                             "is nearly complete)")

    def epoch_order(self, epoch, negatives=None, positives=None):
        """The :class:`~lgekit.models._solver.EpochOrder` of epoch ``epoch`` under the current schedule.

        Edge order: indices into :attr:`pairs` (the positives, then
        ``negatives``, by default the current ones; pass
        ``epoch_negatives(epoch)`` for a resampling epoch not yet run, and
        ``epoch_positives(epoch)`` as ``positives`` for a sampling one);
        ``"deterministic"`` and ``"blocks"`` give the stratified order's blocks and rounds.
        Vertex order: a permutation of the vertices (one block).
        """
        if self._order == "vertex":
            perm = permutation(self.n_nodes, self.seed, epoch, self.n_threads)
            return EpochOrder(perm, np.array([0, self.n_nodes], np.int64), np.array([0, 1], np.int64))
        if negatives is None and positives is None:
            pairs = self.pairs
        else:
            pairs = np.vstack([self._pairs(0, self._n_pos) if positives is None else positives,
                               self.negatives if negatives is None else negatives])
        order, block_ptr, round_ptr = edge_order(np.ascontiguousarray(pairs, dtype=np.int32), self.n_nodes, self.dim,
                                                 self.seed, epoch, self._schedule)
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
        if self._alias is not None:
            drawn = np.empty((self._n_pos, 2), np.int32)
            self._draw_positives(drawn, epoch)
            fill_pair_records(self._records, 0, drawn, self._lam_pos)
            del drawn
        if self._negatives == "resample" and self._n_neg > self._n_reverse:
            # an 8-byte record is an int32 pair: draw straight into the records (if the draw fails, the
            # ValueError ends the fit; the negatives then are a mix of old and new ones, all valid pairs)
            self._draw_negatives(self._records[self._n_pos:].view(np.int32).reshape(self._n_neg, 2), epoch)
            self._neg_incidence = None
            self._update_counts()
        emb = self.embedding
        if self._order == "edge":
            self._extras.project(emb)
            pairs = PairRecords(self._records, self._n_pos, self._epoch_pos_coef(), self._lam_pos, self._lam_neg)
            status = EpochStatus(_sgd.edge_epoch(emb, pairs, self._rfac, self._work, self.seed, epoch, lr, threads,
                                                 self._schedule, pinned=self._extras.pins, pin_value=BIAS_CONSTANT))
            if status is EpochStatus.OUT_OF_MEMORY:
                raise MemoryError(f"edge_epoch: out of memory for the epoch's ordering work space (epoch {epoch}, "
                                  f"{self.n_pairs:,} pairs); free memory or use fewer n_threads")
        else:
            if self._schedule == "blocks":
                raise ValueError("schedule='blocks' runs the edge order's pair blocks; the vertex order takes "
                                 "'deterministic' or 'hogwild'")
            order = permutation(self.n_nodes, self.seed, epoch, threads)
            # two lambda_r: each vertex's step regularises with its own table's (row_lam_r)
            status = EpochStatus(_sgd.vertex_epoch(emb, self._kernel_lists(self._incidence_lists()), self._lam_r,
                                                   self._rows("vertex"), order, lr, threads, self._schedule,
                                                   self.regularisation if self._per_row_lam_r else None))
        if status is EpochStatus.OK:
            self._extras.epoch_end(emb, lr, threads)
        return status

    def epoch_record(self, epoch, status):
        """The record of epoch ``epoch``: its step ``lr`` and, with ``record_diagnostics``, the
        :meth:`diagnostics` (NaN and ``diverged`` when ``status`` is ``NONFINITE``); without, the
        ``mean_norm`` alone, computed on the epoch's threads (a serial NumPy pass over the table after
        every parallel epoch would not scale with the epoch)."""
        record = {"lr": self.learning_rate(epoch)}
        if status:
            nan = float("nan")
            record.update(objective=nan, loss_pos=nan, loss_neg=nan, reg=nan, mean_norm=nan,
                          mean_grad_norm=nan, diverged=True)
            if self.record_diagnostics:
                record.update(objective_se=nan, loss_pos_se=nan, loss_neg_se=nan, mean_grad_norm_se=nan)
        elif self.record_diagnostics == "exact":
            record.update(self.diagnostics())
            record.update(objective_se=0.0, loss_pos_se=0.0, loss_neg_se=0.0, mean_grad_norm_se=0.0)
        elif self.record_diagnostics:
            record.update(self.sampled_diagnostics(epoch))
        else:
            record["mean_norm"] = float(np.sqrt(_scoring.row_sqnorms(self.embedding, self.n_threads)).mean())
        return record

    def objective_estimate(self, initial_score=None):
        if not self.record_diagnostics:
            return None  # the records carry no objective to compare with: skip the extra pass
        if initial_score is not None and initial_score <= 0.5:
            # a fresh uniform initialisation: a score x_u . x_v has mean 0 and variance score**2, so a pair
            # costs log 2 + score**2 / 8 on average (softplus's Taylor series): within 3% of the exact value
            # on Les Miserables, ample for a 10x check, and it spares a full pass over the pairs (about one
            # epoch's diagnostics)
            ns = self._n_source
            source = self.embedding if ns is None else self.embedding[:ns]
            reg = self._lam_r * float(np.einsum("ij,ij->", source, source, dtype=np.float64))
            if ns is not None:
                context = self.embedding[ns:]
                reg += self._lam_r_context * float(np.einsum("ij,ij->", context, context, dtype=np.float64))
            reg += self._extras.tie_penalty(self.embedding)
            return self.zero_objective() * (1.0 + initial_score * initial_score / (8.0 * math.log(2.0))) + reg
        return self.diagnostics()["objective"]

    def divergence_advice(self, record, epoch):
        """Name the cause: a regulariser step that overshoots (lam_r), else the step size (lr), or the
        edge weights with ``weighting="scale"``."""
        lam_r, lr = self._lam_r, self.lr
        if self._n_source is not None:
            lam_r = max(lam_r, self._lam_r_context)   # the table whose regulariser steps are the larger
        gamma = self.learning_rate(epoch)
        if lam_r > 0:
            # each step multiplies x by 1 - gamma * 2 lam_r / c (edge order, c = the vector's pair count; c = 1
            # in vertex order): past a factor of -1 it overshoots zero by more than |x| and grows every visit
            c = self.min_pair_count if self._order == "edge" else 1
            shrink = gamma * 2.0 * lam_r / c
            if shrink > 2.0:
                return (f"lam_r={lam_r:g} is too large for the step size: a regulariser step multiplies a vector "
                        f"by 1 - lr_t * 2 * lam_r / c = {1.0 - shrink:.3g} (lr_t = {gamma:.3g} at epoch {epoch}, "
                        f"c = {c} pair{'s' if c != 1 else ''} of the vector), overshooting zero and growing "
                        f"at every visit; use lam_r < {c / gamma:.3g} at this lr (or a smaller lr)"), "lam_r"
        advice = (f"lr={lr:g} is too large here (step lr_t = lr / sqrt(t + lr_offset) = {gamma:.3g} at epoch "
                  f"{epoch}); use a smaller lr (or a larger lr_offset)")
        if lam_r == 0:
            advice += ", or a lam_r > 0, which bounds the norms"
        weights = self.positive_weights
        if self._weighting == "scale" and weights.size and float(weights.max()) > 1.0:
            advice += (f"; the edge weights (up to {float(weights.max()):.4g}) multiply the steps with "
                       "weighting='scale': weighting='sample' draws heavy edges more often with unit steps instead")
            return advice, "weighting"
        return advice, "lr"

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
        tied = self._extras.lam_tie > 0
        grad = np.empty((n, dim)) if return_arrays or tied else None
        if not self._per_row_lam_r:
            _sgd_diagnostics.diagnostics(emb, self._kernel_lists(self._incidence_lists()), self._lam_r,
                                         self._rows("diagnostics"), gnorm, lpos, lneg, norm2, self.n_threads, grad)
            reg = self._lam_r * float(norm2.sum())
        else:
            self._table_diagnostics(gnorm, lpos, lneg, norm2, grad)
            ns = self._n_source
            reg = self._lam_r * float(norm2[:ns].sum()) + self._lam_r_context * float(norm2[ns:].sum())
        if tied:
            reg += self._extras.tie_penalty(emb)
            self._extras.add_tie_gradient(emb, grad, gnorm)
        loss_pos = float(lpos.sum())
        loss_neg = float(lneg.sum())
        out = {"objective": loss_pos + loss_neg + reg, "loss_pos": loss_pos, "loss_neg": loss_neg, "reg": reg,
               "mean_norm": float(np.sqrt(norm2).mean()), "mean_grad_norm": float(gnorm.mean()),
               "diverged": False}
        if return_arrays:
            out["grad"] = grad
            out["grad_norm"] = gnorm
        return out

    def sampled_diagnostics(self, epoch):
        """The :meth:`diagnostics` estimated from a sample (:mod:`~lgekit.models._diagnostic_sample`), with
        their standard errors: the loss parts from a sample of the pairs, the mean gradient norm from the
        exact gradients of a sample of vertices, the regulariser and the mean norm exactly.  The sample is
        drawn from epoch ``epoch``'s own stream of the seed.

        Returns
        -------
        dict
            The keys of :meth:`diagnostics`, and ``objective_se``, ``loss_pos_se``, ``loss_neg_se`` and
            ``mean_grad_norm_se`` (0 where the sample is the whole population).
        """
        emb = self.embedding
        n = self.n_nodes
        rng = sample_rng(self.seed, epoch)
        norm2 = _scoring.row_sqnorms(emb, self.n_threads)
        if self._per_row_lam_r:
            ns = self._n_source
            reg = self._lam_r * float(norm2[:ns].sum()) + self._lam_r_context * float(norm2[ns:].sum())
        else:
            reg = self._lam_r * float(norm2.sum())
        reg += self._extras.tie_penalty(emb)
        vertices = sample_indices(n, VERTEX_FRACTION, MIN_VERTICES, rng).astype(np.int32)
        gnorm, lpos, lneg, scratch_norm2 = (np.empty(n) for _ in range(4))
        # the tie's gradient joins the kernel's, row by row (untouched rows of np.empty cost no memory)
        grad = np.empty(emb.shape) if self._extras.lam_tie > 0 else None
        lists = self._sample_lists(epoch)
        if not self._per_row_lam_r:
            _sgd_diagnostics.diagnostics(emb, self._kernel_lists(lists), self._lam_r, self._rows("diagnostics"), gnorm,
                                         lpos, lneg, scratch_norm2, self.n_threads, grad, vertices)
        else:
            self._table_diagnostics(gnorm, lpos, lneg, scratch_norm2, grad, vertices, lists)
        if grad is not None:
            self._extras.add_tie_gradient(emb, grad, gnorm, vertices)
        grad_mean, grad_se = mean_estimate(gnorm[vertices], n)
        m = self._n_pos
        loss_pos, se_pos = self._sampled_loss(0, m, False, rng)
        loss_neg, se_neg = self._sampled_loss(m, self.n_pairs, True, rng)
        return {"objective": loss_pos + loss_neg + reg, "loss_pos": loss_pos, "loss_neg": loss_neg, "reg": reg,
                "mean_norm": float(np.sqrt(norm2).mean()), "mean_grad_norm": grad_mean, "diverged": False,
                "objective_se": math.hypot(se_pos, se_neg), "loss_pos_se": se_pos, "loss_neg_se": se_neg,
                "mean_grad_norm_se": grad_se}

    def _sampled_loss(self, lo, hi, negative, rng):
        """(total, standard error) of one loss part, the positives' (records ``lo:hi`` = ``0:m``; the
        graph's edges when the epochs draw them) or the negatives' (``m:P``), from a sample of its pairs:
        ``c softplus(-s)`` for an edge (``c = lam_pos`` times its objective weight), ``lam_neg softplus(s)``
        for a negative pair, ``s = x_u . x_v``."""
        idx = sample_indices(hi - lo, 0.0, PAIR_SAMPLE, rng)
        if not negative and self._source_positives is not None:
            pairs = self._source_positives[idx].astype(np.int64)
        else:
            records = self._records[lo:hi][idx]
            pairs = np.column_stack([records["u"], records["v"]]).astype(np.int64)
        s = _scoring.pair_dots(self.embedding, self.embedding, pairs, self.n_threads)
        if negative:
            losses = self._lam_neg * np.logaddexp(0.0, s)
        else:
            coef = self._lam_pos if self._pos_coef is None else self._pos_coef[idx]
            losses = coef * np.logaddexp(0.0, -s)
        return total_estimate(losses, hi - lo)

    def _table_diagnostics(self, gnorm, lpos, lneg, norm2, grad, vertices=None, lists=None):
        """The diagnostics of a stacked table whose two tables have their own lambda_r: the kernel takes one
        lam_r, so it runs once per table, over incidence lists emptied outside that table's rows (their
        indptr clipped at the first context row).  Every pair joins a source row to a context row, so
        each row's list, gradient and norm are what one call would give with that row's lambda_r, and
        each pair's loss, counted at its smaller end, the source row, is counted once, in the first
        call; the two calls together read every list once, as one call does."""
        pos_indptr, pos_nbr, pos_coef, neg_indptr, neg_nbr = self._incidence_lists() if lists is None else lists
        ns, n = self._n_source, self.n_nodes
        for clip, lam_r, rows in ((np.minimum, self._lam_r, slice(0, ns)),
                                  (np.maximum, self._lam_r_context, slice(ns, n))):
            outs = [np.empty(n) for _ in range(4)]
            g = None if grad is None else np.empty_like(grad)
            subset = None if vertices is None else np.ascontiguousarray(vertices[(vertices >= rows.start)
                                                                                 & (vertices < rows.stop)])
            clipped = (clip(pos_indptr, pos_indptr[ns]), pos_nbr, pos_coef, clip(neg_indptr, neg_indptr[ns]), neg_nbr)
            _sgd_diagnostics.diagnostics(self.embedding, self._kernel_lists(clipped), lam_r, self._rows("diagnostics"),
                                         *outs, self.n_threads, g, subset)
            for target, out in zip((gnorm, lpos, lneg, norm2), outs):
                target[rows] = out[rows]
            if grad is not None:
                # the sampled rows alone: the others were never computed (nor their pages touched)
                copied = rows if subset is None else subset
                grad[copied] = g[copied]

    def __repr__(self):
        return (f"<SGDSolver: {self.n_pairs:,} pairs ({self._n_pos:,} positive) on {self.n_nodes:,} nodes, dim "
                f"{self.dim}, {self.embedding.dtype}, order={self._order!r}, negatives={self._negatives!r}, "
                f"schedule={self._schedule!r}, {self.n_threads} thread(s), seed {self.seed}>")
