"""Seeded random graph generators, all returning :class:`lgekit.Graph`.

Written in the style of ``networkx.generators.random_graphs``: each function
cites its algorithm, takes ``seed`` (None, an int or a
:class:`numpy.random.Generator`; the same seed gives the same graph) and
validates its arguments against a table of constraints
(:mod:`lgekit._validation`): an ``InvalidParameterError`` (a ``ValueError``
and a ``TypeError``) names the offending argument, the value and what is
accepted.  Every
graph is simple and undirected (no self-loops, no repeated edges) with nodes
``0..n-1``.

The generators used at the paper's scale (G(n, m) and Chung-Lu with 500,000
nodes and 3.3 million edges) are vectorised NumPy or a small Cython kernel
and take seconds; ``random_regular_graph`` wraps networkx, which is fast
enough for the sizes it is used at.
"""
import functools
import logging
import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from .._random import check_random_state, draw_seed
from .._validation import InvalidParameterError, Interval, validate_arguments, validate_params
from ..graph import Graph
from ._generators import chung_lu_edges

__all__ = [
    "erdos_renyi_graph",
    "gnm_random_graph",
    "random_regular_graph",
    "chung_lu_graph",
    "powerlaw_expected_degrees",
    "youtube_like_degrees",
    "expected_edge_count",
    "planted_partition_graph",
    "BLOGCATALOG_SHAPE",
]

logger = logging.getLogger(__name__)

# Up to this many node pairs, G(n, m) draws pair indices without replacement
# (numpy's Generator.choice); above it, it draws pairs with replacement and
# rejects collisions, which needs O(m) memory whatever n is.
_EXACT_CHOICE_MAX_PAIRS = 10_000_000

# BlogCatalog3 (Tang & Liu 2009) as counted from the ASU files; the defaults of
# planted_partition_graph reproduce these.
BLOGCATALOG_SHAPE = {
    "n_nodes": 10_312,
    "n_edges": 333_983,
    "n_labels": 39,
    "n_memberships": 14_476,
    "max_degree": 3_992,
}


# ---------------------------------------------------------------------- argument checks
def _within(name, value, interval, caller):
    """Check a bound computed from other arguments (the static part is in the function's table)."""
    validate_params({name: [interval]}, {name: value}, caller)


def _invalid(caller, name, value, message):
    """A parameter that contradicts another one: the error type and prefix of a table's, with its own message."""
    return InvalidParameterError(f"{caller}: {message}", parameter=name, value=value)


def _graph(edges, n, name):
    """Graph on nodes 0..n-1 from distinct index pairs u != v (no checks needed beyond Graph's)."""
    return Graph.from_edges(np.asarray(edges, dtype=np.int64).reshape(-1, 2), nodes=n, name=name)


# ---------------------------------------------------------------------- uniform graphs
def _pairs_from_index(k, n):
    """Decode lexicographic indices of pairs u < v of {0..n-1} (row u starts at u*(2n-u-1)/2)."""
    k = np.asarray(k, dtype=np.int64)
    b = 2 * n - 1
    u = np.floor((b - np.sqrt(float(b) * b - 8.0 * k)) / 2).astype(np.int64)
    u = np.clip(u, 0, n - 2)

    def offset(r):
        return r * (2 * n - r - 1) // 2

    # correct the floating-point estimate (at most one step either way)
    u -= offset(u) > k
    u += offset(u + 1) <= k
    v = k - offset(u) + u + 1
    return np.column_stack([u, v])


_NODES = [Interval(Integral, 0, None, closed="left")]


@validate_arguments({"n": _NODES, "m": [Interval(Integral, 0, None, closed="left")], "seed": ["random_state"]})
def gnm_random_graph(n, m, seed=None):
    """A uniformly random simple graph with ``n`` nodes and exactly ``m`` edges, G(n, m).

    Parameters
    ----------
    n : int
        Number of nodes (>= 0).
    m : int
        Number of edges, ``0 <= m <= n (n - 1) / 2``.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    Graph

    Notes
    -----
    Erdős & Rényi (1959).  With at most 10 million node pairs the ``m`` edges
    are ``m`` pair indices drawn without replacement.  Above that, ordered
    pairs ``(u, v)`` with ``u != v`` are drawn uniformly (so each unordered
    pair has probability ``2 / (n (n - 1))``) in vectorised batches until at
    least ``m`` distinct pairs have been drawn; repeated pairs collapse into
    one.  The draws are exchangeable, so given their number the distinct
    pairs are a uniform subset of all pairs, and ``m`` of them chosen
    uniformly at random are a uniform ``m``-subset: the law is exactly
    G(n, m).  Expected cost O(m log m) while ``m`` is a small fraction of the
    pairs (at the paper's scale, 500,000 nodes and 3.3M edges, about a second
    plus building the Graph).

    Examples
    --------
    >>> g = gnm_random_graph(100, 250, seed=0)
    >>> g.n_nodes, g.n_edges
    (100, 250)
    """
    n, m = int(n), int(m)
    n_pairs = n * (n - 1) // 2
    if m > n_pairs:
        raise _invalid("gnm_random_graph", "m", m,
                       f"m must be <= n (n - 1) / 2 = {n_pairs} for a simple graph on n={n} nodes, got {m}")
    rng = check_random_state(seed, "seed")
    return _graph(_gnm_pairs(n, m, rng), n, f"gnm({n},{m})")


def _gnm_pairs(n, m, rng):
    """The edges of gnm_random_graph as an (m, 2) array of pairs u < v (arguments already checked)."""
    n_pairs = n * (n - 1) // 2
    if m == 0:
        return np.empty((0, 2), np.int64)
    if n_pairs <= _EXACT_CHOICE_MAX_PAIRS:
        return _pairs_from_index(rng.choice(n_pairs, size=m, replace=False), n)
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < m:
        need = m - len(keys)
        # a fresh pair collides with probability len(keys) / n_pairs
        batch = int(need * n_pairs / (n_pairs - len(keys)) * 1.02) + 64
        batch = min(batch, 50_000_000)
        u = rng.integers(0, n, size=batch, dtype=np.int64)
        v = rng.integers(0, n, size=batch, dtype=np.int64)
        keep = u != v
        u, v = u[keep], v[keep]
        keys = _sorted_unique(np.concatenate([keys, np.minimum(u, v) * n + np.maximum(u, v)]))
    if len(keys) > m:
        # the distinct pairs drawn so far are, given their number, a uniform subset of all pairs
        # (the draws are exchangeable); a uniform m-subset of them is a uniform m-subset of all pairs
        keys = keys[np.sort(rng.permutation(len(keys))[:m])]
    return np.column_stack([keys // n, keys % n])


def _sorted_unique(values):
    """np.unique for a 1-D int array by sorting (numpy 2.3+'s hash-based np.unique is slow on large ranges)."""
    values = np.sort(values)
    keep = np.ones(len(values), dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    return values[keep]


@validate_arguments({"n": _NODES, "p": [Interval(Real, 0, 1, closed="both")], "seed": ["random_state"]})
def erdos_renyi_graph(n, p, seed=None):
    """The Erdős–Rényi graph G(n, p): each of the ``n (n - 1) / 2`` pairs is an edge with probability ``p``.

    Parameters
    ----------
    n : int
        Number of nodes (>= 0).
    p : float
        Edge probability in [0, 1].
    seed : None, int or numpy.random.Generator

    Returns
    -------
    Graph

    Notes
    -----
    Gilbert (1959).  Conditioned on its number of edges ``M``, G(n, p) is
    uniform over graphs with ``M`` edges; so ``M ~ Binomial(n (n - 1) / 2, p)``
    is drawn first and the graph is :func:`gnm_random_graph` ``(n, M)`` with
    the same generator.  The law is exact, and the cost is O(M log M) instead
    of O(n^2) (compare Batagelj & Brandes 2005, "Efficient generation of large
    random networks").

    Examples
    --------
    >>> erdos_renyi_graph(50, 0.1, seed=1).n_nodes
    50
    """
    n, p = int(n), float(p)
    rng = check_random_state(seed, "seed")
    m = int(rng.binomial(n * (n - 1) // 2, p)) if n > 1 else 0
    graph = gnm_random_graph(n, m, seed=rng)
    graph.name = f"gnp({n},{p:g})"
    return graph


@validate_arguments({"d": [Interval(Integral, 0, None, closed="left")], "n": _NODES, "seed": ["random_state"]})
def random_regular_graph(d, n, seed=None):
    """A uniformly random ``d``-regular simple graph on ``n`` nodes (networkx's implementation).

    Parameters
    ----------
    d : int
        Degree of every node, ``0 <= d < n``.
    n : int
        Number of nodes; ``n * d`` must be even.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    Graph

    Notes
    -----
    Calls :func:`networkx.random_regular_graph` (Steger & Wormald 1999, "Generating
    random regular graphs quickly"; Kim & Vu 2003), seeded with an integer
    drawn from ``seed``.  About a second for ``n = 5000, d = 20``.

    Examples
    --------
    >>> g = random_regular_graph(3, 10, seed=0)
    >>> sorted(set(g.degrees.tolist()))
    [3]
    """
    import networkx as nx  # slow to import (about 0.3 s), and only this generator uses it

    d, n = int(d), int(n)
    if n and d >= n:
        raise _invalid("random_regular_graph", "d", d, f"d must be < n for a simple graph, got d={d}, n={n}")
    if (n * d) % 2:
        raise _invalid("random_regular_graph", "d", d,
                       f"n * d must be even (every edge has two ends), got n={n}, d={d}")
    rng = check_random_state(seed, "seed")
    g = nx.random_regular_graph(d, n, seed=int(rng.integers(0, 2**32 - 1)))
    edges = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    return _graph(edges, n, f"regular({d},{n})")


# ---------------------------------------------------------------------- Chung-Lu
def _check_weights(expected_degrees, name="expected_degrees"):
    w = np.asarray(expected_degrees)
    if w.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence, got shape {w.shape}")
    if w.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    bad = ~np.isfinite(w) | (w < 0)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be finite and non-negative; entry {i} is {float(w[i])!r}")
    return w


def expected_edge_count(expected_degrees):
    """Expected number of edges of :func:`chung_lu_graph` on these weights.

    ``sum_{u < v} min(1, w_u w_v / S)`` with ``S = sum(w)``, computed in
    O(n log n): with the weights sorted in decreasing order, the pairs capped
    at probability 1 are a prefix of each row.
    """
    return _expected_edge_count_sorted(np.sort(_check_weights(expected_degrees))[::-1])


def _expected_edge_count_sorted(w):
    """expected_edge_count for weights already sorted in decreasing order."""
    total = float(w.sum())
    if total <= 0:
        return 0.0
    prefix = np.concatenate([[0.0], np.cumsum(w)])
    # for each u, the v's with w_v >= S / w_u are capped at probability 1: a prefix of the sorted order
    with np.errstate(divide="ignore"):
        threshold = np.where(w > 0, total / np.where(w > 0, w, 1.0), np.inf)
    capped = np.searchsorted(-w, -threshold, side="right")
    row = capped + w / total * (total - prefix[capped])
    own = np.minimum(1.0, w * w / total)  # the v = u term, excluded (no self-loops)
    return float((row - own).sum() / 2)


@validate_arguments({"seed": ["random_state"]})
def chung_lu_graph(expected_degrees, seed=None):
    """A Chung–Lu random graph with the given expected degrees.

    Each pair ``u != v`` is an edge independently with probability
    ``min(1, w_u w_v / S)``, ``S = sum(w)``; so node ``u`` has expected degree
    close to ``w_u`` (exactly ``w_u - w_u^2 / S`` when no probability is
    capped, since self-loops are excluded).

    Parameters
    ----------
    expected_degrees : array-like of shape (n,)
        Non-negative weights ``w``.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    Graph
        Simple and undirected on nodes ``0..n-1`` (node ``i`` has weight ``w[i]``).

    Notes
    -----
    Chung & Lu (2002), "Connected components in random graphs with given
    expected degree sequences", Annals of Combinatorics 6.  Sampled with the
    O(n + m) skipping algorithm of Miller & Hagberg (2011), "Efficient
    generation of networks with given expected degrees" (a Cython kernel).
    Nothing is rejected or redrawn: each pair is visited at most once, so the
    graph is simple by construction and its edge count is random, with mean
    :func:`expected_edge_count` ``(w)`` and variance below that mean.

    Examples
    --------
    >>> g = chung_lu_graph([3, 3, 2, 2, 2, 1, 1], seed=0)
    >>> g.n_nodes
    7
    """
    w = _check_weights(expected_degrees)
    rng = check_random_state(seed, "seed")
    return _graph(_chung_lu_pairs(w, rng), len(w), "chung-lu")


def _chung_lu_pairs(w, rng):
    """The edges of chung_lu_graph as an (m, 2) array of node indices (weights already checked)."""
    total = float(w.sum())
    if len(w) < 2 or total <= 0:
        return np.empty((0, 2), np.int64)
    order = np.argsort(-w, kind="stable")
    w_sorted = np.ascontiguousarray(w[order])
    capacity = int(total / 2 + 6 * math.sqrt(total) + 64)
    return order[chung_lu_edges(w_sorted, total, draw_seed(rng), capacity)]


_EXPONENT = [Interval(Real, 1, None, closed="neither")]
_POSITIVE = Interval(Real, 0, None, closed="neither")


@validate_arguments({
    "n": [Interval(Integral, 2, None, closed="left")],
    "mean_degree": [_POSITIVE],
    "exponent": _EXPONENT,
    "max_degree": [_POSITIVE, None],
})
def powerlaw_expected_degrees(n, mean_degree, exponent=2.5, max_degree=None):
    """The deterministic power-law weight sequence of Chung & Lu (2002).

    ``w_i = c (i + i_0)^{-1/(beta - 1)}`` for ``i = 0..n-1``, with ``c`` and
    ``i_0`` solved so that the mean is ``mean_degree`` and the largest weight
    ``max_degree``.  The tail of the weights (hence of the Chung–Lu degrees)
    follows ``P(w > x) ~ x^{-(beta - 1)}``.

    Parameters
    ----------
    n : int
        Number of nodes (>= 2).
    mean_degree : float
        Average weight, ``0 < mean_degree < max_degree``.
    exponent : float, default 2.5
        Power-law exponent ``beta > 1`` of the degree distribution.
    max_degree : float, optional
        Largest weight, ``mean_degree < max_degree <= n - 1``.  Default: the
        structural cutoff ``sqrt(n * mean_degree)`` (capped at ``n - 1``),
        where ``w_max^2 = S`` so no Chung–Lu probability exceeds 1 (Boguñá,
        Pastor-Satorras & Vespignani 2004).

    Returns
    -------
    ndarray of shape (n,), float64, non-increasing

    Examples
    --------
    >>> w = powerlaw_expected_degrees(1000, 10.0, exponent=2.5, max_degree=200)
    >>> round(float(w.mean()), 6), round(float(w.max()), 6)
    (10.0, 200.0)
    """
    n, mean_degree, exponent = int(n), float(mean_degree), float(exponent)
    max_degree = min(math.sqrt(n * mean_degree), n - 1.0) if max_degree is None else float(max_degree)
    if max_degree > n - 1:
        raise _invalid("powerlaw_expected_degrees", "max_degree", max_degree,
                       f"max_degree must be <= n - 1 = {n - 1} for a simple graph, got {max_degree}")
    if not mean_degree < max_degree:
        raise _invalid("powerlaw_expected_degrees", "mean_degree", mean_degree,
                       f"mean_degree ({mean_degree}) must be below max_degree ({max_degree})")
    alpha = 1.0 / (exponent - 1.0)
    i = np.arange(n, dtype=np.float64)
    target = mean_degree / max_degree  # = mean(((i + i0) / i0)^-alpha), increasing in i0

    def ratio(i0):
        return float(np.mean(np.exp(-alpha * np.log1p(i / i0))))

    lo, hi = 1e-12, 1e15
    if not ratio(lo) < target < ratio(hi):
        raise ValueError(f"no power law with exponent {exponent} has mean {mean_degree} and maximum {max_degree} on {n} nodes")
    while hi > lo * (1 + 1e-12):  # bisection on log(i0)
        mid = math.sqrt(lo * hi)
        if ratio(mid) < target:
            lo = mid
        else:
            hi = mid
    i0 = math.sqrt(lo * hi)
    w = max_degree * np.exp(-alpha * np.log1p(i / i0))
    return w * (mean_degree / w.mean())  # remove the last bisection rounding


@validate_arguments({
    "n_nodes": [Interval(Integral, 2, None, closed="left")],
    "n_edges": [Interval(Integral, 1, None, closed="left")],
    "exponent": _EXPONENT,
    "max_degree": [_POSITIVE],
})
def youtube_like_degrees(n_nodes=500_000, n_edges=3_319_221, exponent=2.2, max_degree=20_000):
    """Expected degrees for a Chung–Lu stand-in of the paper's YouTube subgraph.

    The paper (Gao et al., ICLR 2019) trains on the first 500,000 nodes of the
    YouTube graph of Mislove et al. (IMC 2007), which have 3,319,221 edges.
    This returns the weights of :func:`powerlaw_expected_degrees` with the
    given exponent and largest weight whose :func:`expected_edge_count` is
    ``n_edges``: ``chung_lu_graph`` on them has that many edges on average
    (standard deviation below ``sqrt(n_edges)``, about 1,800).

    The exponent and the largest degree are assumptions, not fits: YouTube's
    degree distribution is heavy-tailed with exponents reported around 2
    (Mislove et al. 2007) and hubs of tens of thousands of friends in the full
    1.1M-node graph; 2.2 and 20,000 are plausible values for the subgraph.

    Examples
    --------
    >>> w = youtube_like_degrees(n_nodes=10_000, n_edges=66_000, max_degree=1_000)
    >>> abs(expected_edge_count(w) - 66_000) < 1
    True
    """
    # plain Python numbers: they are the cache key of _youtube_like_degrees
    n_nodes, n_edges, exponent, max_degree = int(n_nodes), int(n_edges), float(exponent), float(max_degree)
    if max_degree > n_nodes - 1:
        raise _invalid("youtube_like_degrees", "max_degree", max_degree,
                       f"max_degree must be <= n_nodes - 1 = {n_nodes - 1}, got {max_degree}")
    return _youtube_like_degrees(n_nodes, n_edges, exponent, max_degree).copy()


@functools.lru_cache(maxsize=4)
def _youtube_like_degrees(n, n_edges, exponent, max_degree):
    # w_i = max_degree * ((i + i0) / i0)^(-alpha): every weight grows with i0, so the expected
    # edge count does too; bisect log(i0) until it matches n_edges
    alpha = 1.0 / (exponent - 1.0)
    i = np.arange(n, dtype=np.float64)

    def weights(i0):
        return max_degree * np.exp(-alpha * np.log1p(i / i0))

    lo, hi = 1e-9, 1e12
    if _expected_edge_count_sorted(weights(hi)) < n_edges:
        raise ValueError(f"cannot reach n_edges={n_edges} expected edges on n_nodes={n} with max_degree={max_degree:g}; "
                         "raise max_degree")
    if _expected_edge_count_sorted(weights(lo)) > n_edges:
        raise ValueError(f"n_edges={n_edges} is too few for max_degree={max_degree:g} on n_nodes={n}; lower max_degree")
    while hi > lo * (1 + 1e-10):
        mid = math.sqrt(lo * hi)
        count = _expected_edge_count_sorted(weights(mid))
        if abs(count - n_edges) < 0.01:
            lo = hi = mid
            break
        if count < n_edges:
            lo = mid
        else:
            hi = mid
    w = weights(math.sqrt(lo * hi))
    w.flags.writeable = False
    return w


# ---------------------------------------------------------------------- planted partition
@validate_arguments({
    "n_nodes": [Interval(Integral, 2, None, closed="left")],
    "n_labels": [Interval(Integral, 1, None, closed="left")],
    "mean_degree": [_POSITIVE, None],
    "labels_per_node": [Interval(Real, 1, None, closed="left"), None],
    "mixing": [Interval(Real, 0, 1, closed="both")],
    "degree_exponent": _EXPONENT,
    "max_degree": [_POSITIVE, None],
    "seed": ["random_state"],
    "name": [str, None],
})
def planted_partition_graph(n_nodes=10_312, n_labels=39, mean_degree=None, labels_per_node=None, mixing=0.5,
                            degree_exponent=1.9, max_degree=None, seed=0, name="synthetic-blogcatalog"):
    """A planted-partition graph with overlapping multi-labels, shaped like BlogCatalog by default.

    Every node belongs to one or more of ``n_labels`` communities, which are
    its labels.  A fraction ``1 - mixing`` of each node's expected degree
    goes to neighbours in its own communities, the rest to neighbours
    anywhere; expected degrees follow a power law, so there are hubs.

    Parameters
    ----------
    n_nodes : int, default 10312
    n_labels : int, default 39
        Number of communities (classes); ``1 <= n_labels <= n_nodes``.
    mean_degree : float, optional
        Average degree; default BlogCatalog's ``2 * 333983 / 10312 = 64.78``,
        capped at ``(n_nodes - 1) / 4`` for small graphs.
    labels_per_node : float, optional
        Mean number of labels per node (>= 1); default BlogCatalog's
        ``14476 / 10312 = 1.404``.
    mixing : float, default 0.5
        Fraction of expected degree spent outside the node's communities
        (LFR's mixing parameter mu), in [0, 1].  0 gives disjoint-ish blocks,
        1 a Chung–Lu graph that ignores the labels.
    degree_exponent : float, default 1.9
        Exponent ``beta`` of :func:`powerlaw_expected_degrees`.  With 1.9 and
        the default maximum the expected degrees have BlogCatalog's median
        (about 20) and 99th percentile (about 900).
    max_degree : float, optional
        Largest expected degree; default ``0.387 * (n_nodes - 1)``
        (BlogCatalog's 3992 / 10311), at least ``2 * mean_degree``.
    seed : None, int or numpy.random.Generator, default 0
    name : str or None, default "synthetic-blogcatalog"

    Returns
    -------
    Graph
        Simple, undirected, nodes ``0..n-1``; ``labels`` is the node-by-class
        membership matrix (class names ``0..n_labels-1``); no isolated node.

    Notes
    -----
    A degree-corrected stochastic block model with overlapping communities
    (Karrer & Newman 2011, "Stochastic blockmodels and community structure in
    networks"; Ball, Karrer & Newman 2011, "Efficient and principled method
    for detecting communities in networks"), sampled by "ball dropping":

    1. Labels.  Node ``i`` gets ``k_i = 1 + G`` labels, ``G`` geometric with
       mean ``labels_per_node - 1`` (BlogCatalog: 72% of nodes have one
       label); the communities are drawn without replacement with
       popularities decaying geometrically from the first to the last class
       by a factor 60 (BlogCatalog's class sizes span 8 to 1623), via the
       Gumbel-top-k trick.  A class left empty is given to one random node.
    2. Degrees.  Expected degrees ``w`` are the power law above, randomly
       assigned to nodes.  Node ``i`` spreads ``(1 - mixing) w_i / k_i``
       over each of its communities.
    3. Edges.  ``m = round(n * mean_degree / 2)`` distinct edges are drawn:
       with probability ``mixing`` both ends are drawn proportionally to
       ``w`` over all nodes; otherwise a (node, community) membership is
       drawn proportionally to its share, and the other end proportionally
       to the shares in the same community.  Self-loops and pairs already
       drawn are rejected and redrawn, so the graph is simple with exactly
       ``m`` edges (hubs whose pairs saturate end up a little below their
       target degree).
    4. Nodes still isolated get one edge each, to a member of their first
       community drawn by share (BlogCatalog has no isolated node), so the
       graph has ``m`` plus a few edges.

    Examples
    --------
    >>> g = planted_partition_graph(n_nodes=300, n_labels=5, mean_degree=8, seed=1)
    >>> g.n_nodes, g.n_labels, len(g.isolated_nodes)
    (300, 5, 0)
    """
    n, k = int(n_nodes), int(n_labels)
    _within("n_labels", k, Interval(Integral, 1, n, closed="both", right_name="n_nodes"), "planted_partition_graph")
    shape = BLOGCATALOG_SHAPE
    if mean_degree is None:
        mean_degree = min(2 * shape["n_edges"] / shape["n_nodes"], (n - 1) / 4)
    mean_degree = float(mean_degree)
    if mean_degree > (n - 1) / 2:
        raise _invalid("planted_partition_graph", "mean_degree", mean_degree,
                       f"mean_degree must be <= (n_nodes - 1) / 2 = {(n - 1) / 2:g} for a sparse-enough graph, "
                       f"got {mean_degree}")
    if labels_per_node is None:
        labels_per_node = min(shape["n_memberships"] / shape["n_nodes"], float(k))
    _within("labels_per_node", labels_per_node, Interval(Real, 1, k, closed="both", right_name="n_labels"),
            "planted_partition_graph")
    labels_per_node, mixing, degree_exponent = float(labels_per_node), float(mixing), float(degree_exponent)
    if max_degree is None:
        max_degree = min(max(shape["max_degree"] / (shape["n_nodes"] - 1) * (n - 1), 2 * mean_degree), n - 1)
    rng = check_random_state(seed, "seed")

    # 1. labels: k_i = 1 + geometric extra labels, classes by popularity without replacement
    extra_mean = labels_per_node - 1.0
    n_lab = rng.geometric(1.0 / (1.0 + extra_mean), size=n) if extra_mean > 0 else np.ones(n, np.int64)
    n_lab = np.minimum(n_lab, k)
    log_pop = -np.log(60.0) * np.arange(k) / max(k - 1, 1)
    ranked = np.argsort(-(log_pop + rng.gumbel(size=(n, k))), axis=1)
    member = np.arange(k)[None, :] < n_lab[:, None]  # the first k_i ranked classes of each node
    nodes_of = np.repeat(np.arange(n), n_lab)
    classes_of = ranked[member]
    empty = np.setdiff1d(np.arange(k), classes_of)
    if empty.size:  # give every class at least one member (the class was empty, so it is new to the node)
        nodes_of = np.concatenate([nodes_of, rng.choice(n, size=empty.size, replace=False)])
        classes_of = np.concatenate([classes_of, empty])
    n_lab = np.bincount(nodes_of, minlength=n)

    # 2. expected degrees and per-membership shares, memberships grouped by class
    w = rng.permutation(powerlaw_expected_degrees(n, mean_degree, degree_exponent, max_degree))
    order = np.lexsort((nodes_of, classes_of))
    nodes_of, classes_of = nodes_of[order], classes_of[order]
    share = w[nodes_of] / n_lab[nodes_of]
    share_cum = np.cumsum(share)
    class_start = np.searchsorted(classes_of, np.arange(k))
    class_end = np.searchsorted(classes_of, np.arange(k), side="right")
    cum_before = np.concatenate([[0.0], share_cum])
    class_lo, class_hi = cum_before[class_start], cum_before[class_end]
    w_cum = np.cumsum(w)

    # 3. ball dropping with rejection of loops and repeated pairs until m distinct edges
    m = int(round(n * mean_degree / 2))
    keys = np.empty(0, dtype=np.int64)
    rounds = 0
    while len(keys) < m:
        rounds += 1
        if rounds > 200:
            raise RuntimeError(f"planted_partition_graph could not place {m} distinct edges; lower mean_degree or max_degree")
        batch = int((m - len(keys)) * 1.1) + 64
        glob = rng.random(batch) < mixing
        u = np.empty(batch, dtype=np.int64)
        v = np.empty(batch, dtype=np.int64)
        g = int(glob.sum())
        u[glob] = np.searchsorted(w_cum, rng.random(g) * w_cum[-1], side="right")
        v[glob] = np.searchsorted(w_cum, rng.random(g) * w_cum[-1], side="right")
        b = batch - g
        first = np.searchsorted(share_cum, rng.random(b) * share_cum[-1], side="right")
        first = np.minimum(first, len(share) - 1)
        c = classes_of[first]
        second = np.searchsorted(share_cum, class_lo[c] + rng.random(b) * (class_hi[c] - class_lo[c]), side="right")
        second = np.clip(second, class_start[c], class_end[c] - 1)
        u[~glob] = nodes_of[first]
        v[~glob] = nodes_of[second]
        u = np.minimum(u, n - 1)
        v = np.minimum(v, n - 1)
        keep = u != v
        u, v = u[keep], v[keep]
        drawn = np.concatenate([keys, np.minimum(u, v) * n + np.maximum(u, v)])
        _, first_seen = np.unique(drawn, return_index=True)
        first_seen.sort()
        keys = drawn[first_seen[:m]]
    edges = np.column_stack([keys // n, keys % n])

    # 4. no isolated nodes: one edge into the node's first community (or anywhere, if alone there)
    degree = np.bincount(edges.ravel(), minlength=n)
    isolated = np.flatnonzero(degree == 0)
    if isolated.size:
        by_node = np.lexsort((classes_of, nodes_of))
        c = classes_of[by_node[np.searchsorted(nodes_of[by_node], isolated)]]
        partner = np.searchsorted(share_cum, class_lo[c] + rng.random(isolated.size) * (class_hi[c] - class_lo[c]),
                                  side="right")
        partner = nodes_of[np.clip(partner, class_start[c], class_end[c] - 1)]
        anywhere = np.searchsorted(w_cum, rng.random(isolated.size) * w_cum[-1], side="right")
        partner = np.where(partner == isolated, np.minimum(anywhere, n - 1), partner)
        partner = np.where(partner == isolated, (isolated + 1) % n, partner)
        edges = np.concatenate([edges, np.column_stack([isolated, partner])])
    labels = sp.csr_matrix((np.ones(len(nodes_of), dtype=np.int8), (nodes_of, classes_of)), shape=(n, k))
    graph = Graph.from_edges(edges, nodes=n, labels=labels, label_names=np.arange(k), name=name)
    logger.debug("planted_partition_graph: %d nodes, %d edges in %d rounds", n, graph.n_edges, rounds)
    return graph
