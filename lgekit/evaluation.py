"""The link-prediction protocol: a leak-checked train/test split of the edges
with negative pairs, as in Gao et al. (ICLR 2019), Appendix, "Datasets and
Experimental Protocols".

:func:`split_edges` holds out a fraction of the edges for testing and draws
negative (non-edge) pairs for training and for testing;
:func:`validation_split` splits a TRAINING graph the same way, for choosing
what the test split must not choose (epochs, λr), and
:func:`check_validation_split` checks that it holds no test pair;
:func:`sample_negative_pairs` is the sampler it uses (a Cython kernel,
``lgekit/_sampling.pyx``).  Both respect the graph's kind: arcs stay arcs
in a directed graph, pairs join the two sides of a bipartite one.  Every
split is checked for leaks before it is returned (:meth:`EdgeSplit.check`), and :class:`LeakError` is raised if a check
ever fails -- that would be a bug in lgekit, not a user error.
"""
import logging
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ._random import check_random_state, draw_seed
from ._sampling import pairs_in_pattern, sample_pairs
from ._validation import Interval, Options, check_pairs, validate_arguments
from .datasets import as_graph
from .graph import Graph

# check_directed (is a graph directed, else a clear error) serves the direction metric: importable from here,
# not part of the public surface (tests/test_public_api.py pins this list)
__all__ = ["EdgeSplit", "LeakError", "check_validation_split", "non_reciprocal_arcs",
           "sample_negative_pairs", "split_edges", "validation_split"]

logger = logging.getLogger(__name__)

_SAMPLERS = ("uniform", "degree")
# unigram exponent of word2vec (Mikolov et al. 2013) and LINE (Tang et al. 2015)
_DEGREE_POWER = 0.75
# below this acceptance probability, rejection sampling is replaced by drawing
# from the explicit list of acceptable pairs (graphs this dense are small)
_MIN_ACCEPTANCE = 0.05


class LeakError(RuntimeError):
    """A train/test split violated the evaluation protocol (a bug, never a user error)."""


# ---------------------------------------------------------------------- sampling


def _pattern(graph, exclude=None):
    """CSR pattern of the pairs to reject: graph's edges, plus ``exclude``'s."""
    n = graph.n_nodes
    pattern = sp.csr_matrix((np.ones(len(graph.indices), dtype=np.int8), graph.indices, graph.indptr),
                            shape=(n, n))
    if exclude is not None:
        if isinstance(exclude, Graph):
            if exclude.n_nodes != n:
                raise ValueError(f"exclude must be a graph on the same {n} nodes, got {exclude.n_nodes} nodes")
            extra = sp.csr_matrix((np.ones(len(exclude.indices), dtype=np.int8), exclude.indices, exclude.indptr),
                                  shape=(n, n))
        else:
            pairs = check_pairs(exclude, n, "exclude")
            extra = sp.csr_matrix((np.ones(len(pairs), dtype=np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
        if not graph.is_directed:
            extra = extra + extra.T
        pattern = pattern + extra
        pattern.setdiag(0)
        pattern.eliminate_zeros()
        pattern.sum_duplicates()
        pattern.sort_indices()
    return pattern


# kept importable for lgekit.models.hinge until it imports check_pairs from lgekit._validation itself
_check_pairs = check_pairs


def _degree_distributions(graph):
    """``degree**0.75`` probabilities of the two ends.

    Out- and in-degree for a directed graph; for a bipartite graph the first
    end is drawn among the left nodes and the second among the right nodes.
    """
    out_deg = graph.degrees.astype(np.float64)
    if graph.is_directed:
        in_deg = np.bincount(graph.indices, minlength=graph.n_nodes).astype(np.float64)
    elif graph.is_bipartite:
        in_deg = out_deg.copy()
        out_deg[graph.n_left:] = 0.0
        in_deg[:graph.n_left] = 0.0
    else:
        in_deg = out_deg
    probs = []
    for deg in (out_deg, in_deg):
        w = deg ** _DEGREE_POWER
        total = w.sum()
        if total <= 0:
            raise ValueError("sampler='degree' needs a graph with at least one edge (every node has "
                             "degree 0); use sampler='uniform'")
        probs.append(w / total)
    return probs[0], probs[1]


def _cdf(p):
    """Cumulative distribution for ``cdf_search``: last entry exactly 1, zero-mass nodes unreachable."""
    cdf = np.cumsum(p)
    cdf[np.flatnonzero(p)[-1]:] = 1.0
    return np.ascontiguousarray(cdf)


@validate_arguments({
    "n_pairs": [Interval(Integral, 0, None, closed="left")],
    "seed": ["random_state"],
    "sampler": [Options(str, _SAMPLERS)],
    "n_threads": [Interval(Integral, 1, None, closed="left")],
})
def sample_negative_pairs(graph, n_pairs, seed=None, sampler="uniform", exclude=None, n_threads=1):
    """Draw node pairs that are not edges: the "negative" pairs of link prediction.

    Each pair draws its two ends independently -- uniformly over the vertices
    (``sampler="uniform"``, the paper's protocol) or with probability
    proportional to ``degree**0.75`` (``sampler="degree"``, the word2vec / LINE
    noise distribution) -- and is redrawn while it is a self-pair ``(u, u)``
    or an edge of ``graph`` (or of ``exclude``).  The pairs respect the
    graph's :attr:`~lgekit.Graph.kind`: for a bipartite graph the first end
    is drawn among the left nodes and the second among the right nodes, so
    every pair is a left-right non-edge.

    Parameters
    ----------
    graph : Graph, or any form of :func:`lgekit.datasets.as_graph`
        Its edges (either orientation if undirected; arcs if directed) are
        never returned; the pairs are node indices of the Graph it is read as.
    n_pairs : int
        Number of pairs to draw (>= 0).
    seed : None, int or numpy.random.Generator, default None
        Source of randomness; the same int gives the same pairs.
    sampler : {"uniform", "degree"}, default "uniform"
    exclude : Graph on the same nodes, or (k, 2) integer array of index pairs, optional
        More pairs never to return (for an undirected ``graph``, in either
        orientation).  Pairs follow :func:`lgekit._validation.check_pairs`
        (integer dtype; floats are refused, not truncated).
    n_threads : int, default 1
        Threads that test the drawn pairs against the graph; the pairs are the
        same for any value.

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), int64
        Node indices.  For an undirected graph each pair is canonicalised to
        ``u < v`` (the score ``x_u . x_v`` is symmetric, and this makes pairs
        comparable with :meth:`Graph.edges`); the distribution over unordered
        pairs is unchanged.  For a directed graph pairs are ordered ``(source,
        target)`` and ``(u, v)`` may be returned even if ``(v, u)`` is an arc
        (the model must tell the direction).  For a bipartite graph pairs are
        ``(left index, right index)``, so ``u < n_left <= v`` as in
        :meth:`Graph.edges`.

    Raises
    ------
    lgekit._validation.InvalidParameterError
        Bad ``n_pairs`` / ``seed`` / ``sampler`` / ``exclude`` pairs (a
        ``ValueError`` and a ``TypeError``).
    ValueError
        A graph with no acceptable pair (a complete graph has no non-edges);
        ``sampler="degree"`` on a graph without edges.

    Notes
    -----
    Pairs are drawn **with replacement**, as in the paper: the same negative
    pair can occur more than once (about a fraction ``k / n^2`` of ``k``
    uniform pairs repeat: 1% of BlogCatalog's 1.07M training negatives).
    Rejection sampling costs :math:`O(\\log d)` per draw (binary search in
    the sorted CSR row of ``u``) and ``1 / a`` draws per pair, where ``a``
    is the probability mass of acceptable pairs; that mass is computed first,
    in :math:`O(m)`.  When ``a = 0`` there is nothing to sample and a
    ``ValueError`` says so; when ``a < 0.05`` (a nearly complete graph, hence a
    small one) the acceptable pairs are listed explicitly and drawn from that
    list with the same distribution, so the sampler never spins.

    Examples
    --------
    >>> from lgekit import Graph
    >>> g = Graph.from_edges([(0, 1), (1, 2), (2, 3)])
    >>> pairs = sample_negative_pairs(g, 5, seed=0)
    >>> pairs.shape, bool(g.has_edges(pairs).any()), bool((pairs[:, 0] < pairs[:, 1]).all())
    ((5, 2), False, True)
    """
    graph = as_graph(graph)
    rng = check_random_state(seed, "seed")
    n = graph.n_nodes
    n_pairs = int(n_pairs)
    if n_pairs == 0:
        return np.empty((0, 2), dtype=np.int64)
    if n >= 2**32:
        raise ValueError(f"the sampler handles graphs of fewer than 2**32 nodes, got {n}")
    pattern = _pattern(graph, exclude)
    bipartite = graph.is_bipartite
    # a bipartite pair is drawn as (left, right): already ordered, never swapped
    canonical = not graph.is_directed and not bipartite

    # probability mass of acceptable pairs (not self, not in the pattern)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(pattern.indptr))
    if bipartite:
        n_left = graph.n_left
        # ordered (left, right) pairs; the pattern is symmetric, so count each stored pair once
        n_acceptable = n_left * (n - n_left) - int(np.count_nonzero((rows < n_left) & (pattern.indices >= n_left)))
    else:
        n_acceptable = n * (n - 1) - pattern.nnz  # ordered pairs
    if n_acceptable > 0 and sampler == "uniform" and bipartite:
        # the ends are uniform over the left and over the right nodes: drawn through their cdfs
        p, q = np.zeros(n), np.zeros(n)
        p[:n_left], q[n_left:] = 1.0 / n_left, 1.0 / (n - n_left)
        cdf_u, cdf_v = _cdf(p), _cdf(q)
    elif sampler == "uniform":
        cdf_u = cdf_v = None
        p = q = np.full(n, 1.0 / n) if n else np.zeros(0)
    else:
        p, q = _degree_distributions(graph)
        cdf_u, cdf_v = _cdf(p), _cdf(q)
    accept = 1.0 - float(np.dot(p, q)) - float(np.sum(p[rows] * q[pattern.indices])) if n else 0.0
    if n_acceptable <= 0 or accept <= 1e-12:
        pair = "left-right pair" if bipartite else "pair"
        raise ValueError(
            f"no node pair is available as a negative: the {graph.kind} graph has {n} nodes"
            + (f" ({n_left} left, {n - n_left} right)" if bipartite else "")
            + f" and {graph.n_edges} edges{' (plus the excluded pairs)' if exclude is not None else ''}, "
            + (f"so every {pair} of distinct nodes is an edge" if n_acceptable <= 0 else
               f"and every {pair} of positive-degree nodes is an edge under sampler={sampler!r}")
        )
    if accept < _MIN_ACCEPTANCE:
        logger.debug("acceptance %.3g < %.3g: drawing from the explicit list of non-edges", accept, _MIN_ACCEPTANCE)
        taken = pattern.toarray().astype(bool)
        np.fill_diagonal(taken, True)
        if canonical:
            taken |= np.tril(np.ones((n, n), dtype=bool))
        if bipartite:
            taken[n_left:, :] = True
            taken[:, :n_left] = True
        cand = np.argwhere(~taken)
        w = p[cand[:, 0]] * q[cand[:, 1]]
        if canonical:
            w = w + p[cand[:, 1]] * q[cand[:, 0]]
        pick = rng.choice(len(cand), size=n_pairs, replace=True, p=w / w.sum())
        return np.ascontiguousarray(cand[pick], dtype=np.int64)

    max_trials = int(10 * n_pairs / accept) + 1000
    pairs, trials = sample_pairs(pattern.indptr, pattern.indices, n, n_pairs, draw_seed(rng),
                                 cdf_u, cdf_v, canonical, max_trials, n_threads)
    if trials < 0:  # pragma: no cover - probability below 1e-20 by the acceptance check
        raise RuntimeError(f"negative sampling made {max_trials} draws for {n_pairs} pairs "
                           f"(acceptance {accept:.3g}); please report this as a bug")
    return pairs


# ---------------------------------------------------------------------- direction (directed graphs)
def check_directed(graph, name="graph"):
    """``graph`` (any form of :func:`lgekit.datasets.as_graph`) as a directed :class:`Graph`, else TypeError /
    ValueError naming ``name``."""
    graph = as_graph(graph, name)
    kind = getattr(graph, "kind", "directed" if graph.is_directed else "undirected")
    if kind != "directed":
        article = "an" if kind[0] in "aeiou" else "a"
        raise ValueError(f"{name} must be a directed graph (direction is only defined for arcs), got {article} {kind} "
                         "graph; load it with directed=True")
    return graph


def non_reciprocal_arcs(graph, arcs):
    """The arcs ``(u, v)`` of ``arcs`` whose reverse ``(v, u)`` is not an arc of ``graph``, self-loops dropped.

    Only these arcs have a direction to tell: for a reciprocated pair both
    orientations are edges, and a self-loop is its own reverse.

    Parameters
    ----------
    graph : lgekit.Graph
        Directed: the full graph (training and held-out arcs), so that an arc
        reciprocated only by a held-out arc is dropped as well.
    arcs : int array (k, 2)
        Node index pairs (source, target), e.g. ``split.test_positives``.

    Returns
    -------
    ndarray (k', 2) of int64
        The kept arcs, in their original order.

    Raises
    ------
    TypeError, ValueError
        ``graph`` is not a directed Graph; ``arcs`` is not a (k, 2) integer
        array of indices of ``graph``.

    Examples
    --------
    >>> g = Graph.from_edges([(0, 1), (1, 0), (1, 2)], directed=True)
    >>> non_reciprocal_arcs(g, [[0, 1], [1, 2]]).tolist()
    [[1, 2]]
    """
    graph = check_directed(graph)
    a = check_pairs(arcs, graph.n_nodes, "arcs")
    keep = (a[:, 0] != a[:, 1]) & ~graph.has_edges(np.ascontiguousarray(a[:, ::-1]))
    return a[keep]


# ---------------------------------------------------------------------- the split
@dataclass(frozen=True, eq=False)
class EdgeSplit:
    """A link-prediction split of one graph (returned by :func:`split_edges`).

    Attributes
    ----------
    graph : Graph
        The full graph.
    train_graph : Graph
        Same nodes (ids, labels), only the training edges (weights kept).
    train_positives : ndarray (m_train, 2) int64
        ``train_graph.edges()``.
    train_negatives : ndarray (r * m_train, 2) int64
        Non-edges of ``train_graph``, ``r = negatives_per_positive``.
    test_positives : ndarray (m_test, 2) int64
        Held-out edges of ``graph`` (sorted), absent from ``train_graph``.
    test_negatives : ndarray (r * m_test, 2) int64
        Non-edges of the full ``graph``.
    seed : int or None
        The int that reproduces this split (drawn from OS entropy when
        ``seed=None`` was given); None if a Generator was passed.
    test_fraction, negatives_per_positive, keep_connected, negative_sampler
        The arguments of :func:`split_edges`.

    All arrays are read-only.  ``check()`` re-runs the leak checks.
    """

    graph: Graph
    train_graph: Graph
    train_positives: np.ndarray = field(repr=False)
    train_negatives: np.ndarray = field(repr=False)
    test_positives: np.ndarray = field(repr=False)
    test_negatives: np.ndarray = field(repr=False)
    seed: object = None
    test_fraction: float = 0.2
    negatives_per_positive: int = 4
    keep_connected: bool = False
    negative_sampler: str = "uniform"

    def direction_pairs(self):
        """The direction task's held-out set: one-way arcs and their reverses (a directed split only).

        Link prediction ranks ``test_positives`` against the uniform
        ``test_negatives``; the direction task asks whether a model scores a
        held-out arc ``(u, v)`` above its reverse ``(v, u)``.  Only an arc
        whose reverse is not an arc of the full graph (and that is no
        self-loop) has a direction to tell (:func:`non_reciprocal_arcs`).

        Returns
        -------
        arcs, reverses : ndarray (k, 2) of int64
            The held-out one-way arcs, in ``test_positives``' order, and the
            same pairs turned round: the positives and negatives of
            :func:`lgekit.metrics.direction_average_precision`.

        Raises
        ------
        ValueError
            The split is not of a directed graph.
        """
        arcs = non_reciprocal_arcs(self.graph, self.test_positives)
        return arcs, np.ascontiguousarray(arcs[:, ::-1])

    def summary(self):
        """Counts of the split as a plain dict (for printing and records)."""
        n_comp_full = csgraph.connected_components(self.graph.to_scipy(), directed=self.graph.is_directed,
                                                   connection="weak")[0]
        n_comp_train = csgraph.connected_components(self.train_graph.to_scipy(),
                                                    directed=self.graph.is_directed, connection="weak")[0]
        return {
            "kind": self.graph.kind,
            "n_nodes": int(self.graph.n_nodes),
            "n_edges": int(self.graph.n_edges),
            "n_train_positives": int(len(self.train_positives)),
            "n_train_negatives": int(len(self.train_negatives)),
            "n_test_positives": int(len(self.test_positives)),
            "n_test_negatives": int(len(self.test_negatives)),
            "test_fraction": float(self.test_fraction),
            "negatives_per_positive": int(self.negatives_per_positive),
            "keep_connected": bool(self.keep_connected),
            "negative_sampler": self.negative_sampler,
            "n_components": int(n_comp_full),
            "n_components_train": int(n_comp_train),
            "n_isolated": int(len(self.graph.isolated_nodes)),
            "n_isolated_train": int(len(self.train_graph.isolated_nodes)),
            "seed": self.seed if isinstance(self.seed, (int, type(None))) else None,
        }

    def check(self):
        """Re-run the leak and count checks; raise :class:`LeakError` on the first violation."""
        _check_split(self)
        return self


def _fail(message):
    raise LeakError(f"edge split violates the evaluation protocol: {message}")


def _in_pattern(graph, pairs):
    if len(pairs) == 0:
        return np.zeros(0, dtype=bool)
    return pairs_in_pattern(graph.indptr, graph.indices, np.ascontiguousarray(pairs, dtype=np.int64))


def _check_split(s):
    g, t = s.graph, s.train_graph
    n = g.n_nodes
    r = s.negatives_per_positive
    if t.n_nodes != n or t.kind != g.kind or t.n_left != g.n_left:
        _fail(f"train_graph has {t.n_nodes} nodes ({t.kind}, n_left={t.n_left}), graph has {n} ({g.kind}, "
              f"n_left={g.n_left})")
    for name in ("train_positives", "train_negatives", "test_positives", "test_negatives"):
        arr = getattr(s, name)
        if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype != np.int64:
            _fail(f"{name} must be an (k, 2) int64 array, got shape {arr.shape} dtype {arr.dtype}")
        if len(arr) and (arr.min() < 0 or arr.max() >= n):
            _fail(f"{name} holds indices outside [0, {n})")
        if g.is_bipartite and len(arr) and not (np.all(arr[:, 0] < g.n_left) and np.all(arr[:, 1] >= g.n_left)):
            _fail(f"{name} holds a pair that is not (left node, right node) of the bipartite graph")
    m, m_test, m_train = g.n_edges, len(s.test_positives), len(s.train_positives)
    if m_train + m_test != m or t.n_edges != m_train:
        _fail(f"{m_train} train + {m_test} test positives != {m} edges (train_graph has {t.n_edges})")
    if not np.array_equal(s.train_positives, t.edges()):
        _fail("train_positives differs from train_graph.edges()")
    if len(s.train_negatives) != r * m_train or len(s.test_negatives) != r * m_test:
        _fail(f"expected {r} negatives per positive, got {len(s.train_negatives)} for {m_train} train and "
              f"{len(s.test_negatives)} for {m_test} test positives")
    if not _in_pattern(g, s.train_positives).all():
        _fail("a training edge is not an edge of the full graph")
    if not _in_pattern(g, s.test_positives).all():
        _fail("a test positive is not an edge of the full graph")
    key = s.test_positives[:, 0] * n + s.test_positives[:, 1]
    if not np.all(np.diff(key) > 0) and len(np.unique(key)) != m_test:  # sorted => O(k) check
        _fail("a test edge is held out twice")
    # no test edge in the training graph (both orientations: the undirected
    # CSR is symmetric; a directed graph's arcs are distinct from their reverses)
    if _in_pattern(t, s.test_positives).any():
        _fail("a test edge is in the training graph")
    for name, arr, ref, ref_name in (("test_negatives", s.test_negatives, g, "full graph"),
                                     ("train_negatives", s.train_negatives, t, "training graph")):
        if len(arr) and np.any(arr[:, 0] == arr[:, 1]):
            _fail(f"{name} contains a self-pair")
        if _in_pattern(ref, arr).any():
            _fail(f"{name} contains an edge of the {ref_name}")
    if s.keep_connected:
        directed = g.is_directed
        c_full = csgraph.connected_components(g.to_scipy(), directed=directed, connection="weak")[0]
        c_train = csgraph.connected_components(t.to_scipy(), directed=directed, connection="weak")[0]
        if c_full != c_train:
            _fail(f"keep_connected=True but the training graph has {c_train} components, the graph {c_full}")


def _random_spanning_forest(edges, n, rng):
    """Indices (into ``edges``) of a spanning forest: Kruskal's algorithm on a random edge order.

    Every connected component of the graph (weakly, if directed) gets a
    spanning tree.  The random ranks are distinct, so the minimum spanning
    forest is unique and is exactly the forest Kruskal builds when it scans
    the edges in that random order.
    """
    m = len(edges)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    rank = rng.permutation(m)  # rank[e]: position of edge e in the random order
    u = np.minimum(edges[:, 0], edges[:, 1])
    v = np.maximum(edges[:, 0], edges[:, 1])
    # an undirected pair may carry two arcs in a directed graph: keep the better-ranked one
    key = u * n + v
    order = np.lexsort((rank, key))
    first = np.ones(m, dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    keep = order[first]
    by_rank = np.empty(m, dtype=np.int64)
    by_rank[rank] = np.arange(m)
    weights = rank[keep].astype(np.float64) + 1.0  # > 0: scipy ignores zero entries
    matrix = sp.csr_matrix((weights, (u[keep], v[keep])), shape=(n, n))
    forest = csgraph.minimum_spanning_tree(matrix).tocoo()
    return np.sort(by_rank[forest.data.astype(np.int64) - 1])


@validate_arguments({
    "test_fraction": [Interval(Real, 0, 1, closed="left")],
    "negatives_per_positive": [Interval(Integral, 0, None, closed="left")],
    "seed": ["random_state"],
    "keep_connected": ["boolean"],
    "negative_sampler": [Options(str, _SAMPLERS)],
})
def split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=0, keep_connected=False,
                negative_sampler="uniform"):
    """Split a graph's edges for link prediction, with negative pairs, checked for leaks.

    The paper's protocol (Gao et al. 2019, Appendix, "Datasets and
    Experimental Protocols"): hold out a uniformly random ``test_fraction``
    of the edges as test positives; train on the rest; draw
    ``negatives_per_positive`` negative pairs per positive, both ends uniform
    over the vertices, for training and for testing.

    Parameters
    ----------
    graph : Graph, or any form of :func:`lgekit.datasets.as_graph`
        (a path, an edge array, a DataFrame, networkx, scipy, a split's
        whole graph); ``split.graph`` is the Graph it is read as.
    test_fraction : float in [0, 1), default 0.2
        Fraction of the edges held out; exactly ``round(test_fraction * m)``
        edges (Python's ``round``) are.
    negatives_per_positive : int >= 0, default 4
    seed : None, int or numpy.random.Generator, default 0
        The same int gives the same split (edges and negatives).  With
        ``None`` an int is drawn from OS entropy and stored in ``split.seed``.
    keep_connected : bool, default False
        Keep a random spanning forest (one tree per connected component,
        weakly connected if directed) in training and hold out test edges only
        among the remaining edges, so that training has the same connected
        components as the graph -- the node2vec / EvalNE protocol.  Then no
        node loses all its edges.
    negative_sampler : {"uniform", "degree"}, default "uniform"
        ``"uniform"``: both ends uniform over the vertices (the paper).
        ``"degree"``: each end with probability proportional to
        ``degree**0.75`` (word2vec, LINE); training negatives use the degrees
        of the training graph, test negatives those of the full graph.

    Returns
    -------
    EdgeSplit

    Raises
    ------
    TypeError
        ``graph`` is not a :class:`Graph`.
    lgekit._validation.InvalidParameterError
        A parameter of the wrong type or out of range (a ``ValueError`` and a
        ``TypeError``).
    ValueError
        ``keep_connected=True`` with more test edges
        requested than there are edges outside the spanning forest; a graph
        so dense that no negative pair exists.
    LeakError
        If a protocol check fails (a bug; please report it).

    Notes
    -----
    The split keeps the graph's :attr:`~lgekit.Graph.kind`, and so does
    ``train_graph``:

    * undirected: positives are edges ``(u, v)``, ``u < v``; negatives are
      unordered non-edges, canonicalised ``u < v``;
    * directed: the unit is the arc.  Positives are arcs ``(source,
      target)``; negatives are ordered pairs ``(u, v)``, ``u != v``, that are
      not arcs -- the reverse ``(v, u)`` of an arc without a reciprocal is a
      legitimate negative (telling the direction is part of the task);
    * bipartite: positives are edges ``(left, right)``; negatives are
      ``(left, right)`` non-edges (a pair inside one side is never drawn:
      it is not a question the graph can answer).

    Leak discipline, checked on every split (:meth:`EdgeSplit.check`):

    * no test edge is in the training graph (for an undirected graph, in
      either orientation; for a directed graph the unit is the arc, so the
      reverse arc ``(v, u)`` of a test arc ``(u, v)`` may be a training arc);
    * test negatives are never edges of the **full** graph nor self-pairs;
    * training negatives are never edges of the **training** graph nor
      self-pairs.  They may, by chance, coincide with a held-out test edge
      (probability about ``m_test / (n^2 / 2)`` per pair, 1.3e-3 on
      BlogCatalog): excluding test edges from the training negatives would
      tell the training procedure which pairs are test edges -- a leak -- and
      is what a practitioner who only has the training graph cannot do;
    * counts are exact and the same seed gives the same split;
    * for a bipartite graph every pair, positive or negative, is ``(left
      index, right index)``.

    Negative pairs are drawn with replacement (duplicates possible, as in the
    paper).  For undirected graphs all pairs are canonicalised ``u < v``;
    test positives are sorted.  A weighted graph's training graph keeps the
    weights of its edges.

    Cost: :math:`O(m \\log m)` for the split, :math:`O(r m \\log d)` for the
    negatives, leak checks included.

    References
    ----------
    Gao, Zhang, Peng & Parameswaran, "The Importance of Norm Regularization in
    Linear Graph Embedding", ICLR 2019, Appendix ("Datasets and Experimental Protocols").
    Grover & Leskovec, "node2vec", KDD 2016, Section 4.4 (connected residual
    graph).  Mara, Lijffijt & De Bie, "EvalNE", 2019.

    Examples
    --------
    >>> from lgekit import Graph
    >>> g = Graph.from_edges([(i, (i + k) % 20) for i in range(20) for k in (1, 2, 3)])
    >>> s = split_edges(g, test_fraction=0.2, seed=1)
    >>> s.summary()["n_test_positives"], len(s.test_negatives), s.train_graph.n_edges
    (12, 48, 48)
    """
    graph = as_graph(graph)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    rng = check_random_state(seed, "seed")
    stored_seed = int(seed) if isinstance(seed, Integral) else None
    test_fraction = float(test_fraction)
    r = int(negatives_per_positive)

    edges = graph.edges()
    m = len(edges)
    n_test = int(round(test_fraction * m))
    if keep_connected:
        forest = _random_spanning_forest(edges, graph.n_nodes, rng)
        candidates = np.setdiff1d(np.arange(m), forest, assume_unique=True)
        if n_test > len(candidates):
            raise ValueError(
                f"test_fraction={test_fraction} asks for {n_test} test edges, but with keep_connected=True only "
                f"{len(candidates)} of the {m} edges lie outside a spanning forest ({len(forest)} edges); "
                f"use test_fraction <= {len(candidates) / m:.4f} or keep_connected=False")
    else:
        candidates = np.arange(m)
    test_idx = np.sort(rng.choice(candidates, size=n_test, replace=False)) if n_test else np.zeros(0, np.int64)
    in_test = np.zeros(m, dtype=bool)
    in_test[test_idx] = True
    test_pos = np.ascontiguousarray(edges[in_test])
    train_weights = graph.edge_weights()[~in_test] if graph.is_weighted else None
    train_graph = graph.with_edges(edges[~in_test], weights=train_weights)
    train_pos = train_graph.edges()

    # training negatives see only the training graph; test negatives avoid every edge
    train_neg = sample_negative_pairs(train_graph, r * len(train_pos), seed=rng, sampler=negative_sampler)
    test_neg = sample_negative_pairs(graph, r * n_test, seed=rng, sampler=negative_sampler)

    for arr in (train_pos, train_neg, test_pos, test_neg):
        arr.flags.writeable = False
    split = EdgeSplit(graph=graph, train_graph=train_graph, train_positives=train_pos, train_negatives=train_neg,
                      test_positives=test_pos, test_negatives=test_neg, seed=stored_seed,
                      test_fraction=test_fraction, negatives_per_positive=r, keep_connected=bool(keep_connected),
                      negative_sampler=negative_sampler)
    _check_split(split)
    logger.info("split %s: %d train / %d test edges, %d + %d negatives", graph.name or "graph",
                len(train_pos), n_test, len(train_neg), len(test_neg))
    return split


# ---------------------------------------------------------------------- the validation split
@validate_arguments({
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    "seed": ["random_state"],
    "negatives_per_positive": [Interval(Integral, 1, None, closed="left"), None],
})
def validation_split(data, validation_fraction=0.1, seed=0, *, negatives_per_positive=None):
    """Hold out a validation part of a TRAINING graph: the split that chooses epochs and :math:`\\lambda_r`.

    The test split answers one question, once: how good is the model that
    was chosen.  Anything chosen by looking at it (when to stop, which
    :math:`\\lambda_r`) makes its answer optimistic.  The choices are made
    on a validation split instead, carved out of the training graph alone
    by the protocol of :func:`split_edges` -- a uniformly random
    ``validation_fraction`` of the training edges held out as validation
    positives, ``negatives_per_positive`` non-edges of the training graph
    per positive as validation negatives, and as many non-edges of what is
    left per remaining edge as its training negatives -- so that
    ``validation.graph`` is the training graph and nothing in it depends on
    the test pairs.  The estimators' ``early_stopping`` and the ``*CV``
    estimators (:class:`~lgekit.models.LogisticEmbeddingCV`) use it.

    Parameters
    ----------
    data : EdgeSplit, or a graph in any form of :func:`lgekit.datasets.as_graph`
        A split: its ``train_graph`` is split (never its test pairs), with
        its ``negatives_per_positive``, ``keep_connected`` and
        ``negative_sampler``, and the result is checked against it
        (:func:`check_validation_split`).  A graph: the whole graph is the
        training graph (4 negatives per positive, uniform, not kept
        connected).
    validation_fraction : float in (0, 1), default 0.1
        Share of the training edges held out, as ``split_edges``'s
        ``test_fraction`` (``round(validation_fraction * m)`` edges).
    seed : None, int or numpy.random.Generator, default 0
        The same int gives the same validation split.
    negatives_per_positive : int >= 1 or None, default None
        None: the split's own, or 4 for a graph.

    Returns
    -------
    EdgeSplit
        Of the training graph: ``graph`` is the training graph,
        ``train_graph`` what the model trains on, ``test_positives`` and
        ``test_negatives`` the validation pairs (score them with
        ``LinkPredictionCallback(validation, heldout_name="val")``).

    Raises
    ------
    ValueError
        When ``validation_fraction`` holds out no edge (too small for the
        graph) or every training edge, or cannot keep the training graph
        connected (``keep_connected`` splits).
    lgekit._validation.InvalidParameterError
        A parameter of the wrong type or out of range.

    Notes
    -----
    Validation negatives avoid the training graph's edges only, never the
    test pairs, for the reason :func:`split_edges` gives for training
    negatives: a sampler that avoided the held-out test edges would tell
    the model selection which pairs they are.  So a validation negative can
    be a test edge by chance (about ``m_test / (n^2 / 2)`` per pair), and the
    validation split of two splits that share a training graph is the same
    whatever their test pairs are.

    Examples
    --------
    >>> from lgekit import Graph
    >>> g = Graph.from_edges([(i, (i + k) % 30) for i in range(30) for k in (1, 2, 3)])
    >>> split = split_edges(g, test_fraction=0.2, seed=0)
    >>> val = validation_split(split, validation_fraction=0.25, seed=1)
    >>> val.graph.n_edges == split.train_graph.n_edges, len(val.test_positives), val.train_graph.n_edges
    (True, 18, 54)
    """
    if _is_train_test_split(data):
        graph, r = data.train_graph, getattr(data, "negatives_per_positive", 4)
        keep_connected, sampler = getattr(data, "keep_connected", False), getattr(data, "negative_sampler", "uniform")
    else:
        graph, r, keep_connected, sampler = as_graph(data, "data"), 4, False, "uniform"
    r = r if negatives_per_positive is None else int(negatives_per_positive)
    m = graph.n_edges
    n_held = int(round(float(validation_fraction) * m))
    if n_held < 1 or n_held >= m:
        raise ValueError(f"validation_fraction={validation_fraction!r} holds out {n_held} of the {m} training edges; "
                         "a validation split needs at least one validation edge and one edge left to train on: "
                         f"use a validation_fraction in [{1 / max(m, 1):.3g}, {1 - 1 / max(m, 1):.3g}]"
                         if m >= 2 else f"the training graph has {m} edge(s); a validation split needs at least 2")
    try:
        validation = split_edges(graph, test_fraction=validation_fraction, negatives_per_positive=r, seed=seed,
                                 keep_connected=keep_connected, negative_sampler=sampler)
    except ValueError as exc:
        if not keep_connected:
            raise
        raise ValueError(f"validation_fraction={validation_fraction!r}: {exc}") from None
    if _is_train_test_split(data):
        check_validation_split(data, validation)
    return validation


def _is_train_test_split(data):
    """Whether ``data`` is a split (by what it holds, as the estimators read it), whose training graph is
    ``data.train_graph``: :func:`lgekit.datasets.as_graph` reads a split as its WHOLE graph."""
    return hasattr(data, "train_graph") and hasattr(data, "test_positives")


def check_validation_split(data, validation):
    """Check that ``validation`` is a validation split of ``data``'s training graph; return it.

    Raises :class:`LeakError` when it is not: when its whole graph is not
    the training graph (the same nodes, kind and edges: a validation split
    of a split's full graph would hold out test edges as validation edges,
    or train on them), when a validation positive is a held-out test edge of
    ``data``, or when a validation negative is an edge of the training
    graph.  ``validation.check()`` runs too.  That the validation pairs do not
    depend on the test pairs is what :func:`validation_split` guarantees by
    construction (tested by changing a split's test pairs).

    Parameters
    ----------
    data : EdgeSplit, or a graph in any form of :func:`lgekit.datasets.as_graph`
        The train/test split (its ``train_graph`` is the training graph), or
        the training graph itself.
    validation : EdgeSplit
        The split whose test pairs are the validation pairs.

    Raises
    ------
    TypeError
        ``validation`` is not an ``EdgeSplit``.
    LeakError
        See above.
    """
    if not isinstance(validation, EdgeSplit):
        raise TypeError(f"validation must be an EdgeSplit (from lgekit.evaluation.validation_split), got "
                        f"{type(validation).__name__}")
    validation.check()
    split = data if _is_train_test_split(data) else None
    train, inner = (split.train_graph if split is not None else as_graph(data, "data")), validation.graph
    if (inner.n_nodes != train.n_nodes or inner.kind != train.kind or inner.n_left != train.n_left
            or not np.array_equal(inner.indptr, train.indptr) or not np.array_equal(inner.indices, train.indices)):
        _fail(f"the validation split's graph ({inner.n_nodes} nodes, {inner.n_edges} edges) is not the training "
              f"graph ({train.n_nodes} nodes, {train.n_edges} edges): a validation split must be carved out of "
              "split.train_graph, never out of the graph whose edges the test split holds out")
    if split is not None and len(split.test_positives) and len(validation.test_positives):
        n = split.graph.n_nodes
        test = split.test_positives[:, 0] * n + split.test_positives[:, 1]
        held = validation.test_positives[:, 0] * n + validation.test_positives[:, 1]
        if np.isin(held, test).any():
            _fail("a validation positive is a test edge of the split")
    if _in_pattern(train, validation.test_negatives).any():
        _fail("a validation negative is an edge of the training graph")
    return validation
