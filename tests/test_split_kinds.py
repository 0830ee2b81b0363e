"""split_edges and sample_negative_pairs on directed and bipartite graphs (issue #18).

Directed: the unit is the arc; a reversed arc without its reciprocal is a
legitimate negative.  Bipartite: every pair, positive or negative, is (left,
right).  Undirected graphs follow the same protocol as before: the split is
rebuilt here from its definition (the seed's draws in order) and must agree
bit for bit.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from lgekit import Graph, split_edges
from lgekit._random import check_random_state, draw_seed
from lgekit._sampling import sample_pairs
from lgekit.evaluation import _pattern, sample_negative_pairs
from strategies import graphs


def pair_set(pairs):
    return {tuple(p) for p in np.asarray(pairs).tolist()}


def stored(g):
    """Every (u, v) the CSR stores: arcs if directed, both orientations otherwise."""
    e = pair_set(g.edges())
    return e if g.is_directed else e | {(v, u) for u, v in e}


@st.composite
def bipartite_graphs(draw, max_left=7, max_right=8, max_edges=30):
    nl, nr = draw(st.integers(1, max_left)), draw(st.integers(1, max_right))
    pairs = draw(st.lists(st.tuples(st.integers(0, nl - 1), st.integers(0, nr - 1)), max_size=max_edges))
    weights = draw(st.one_of(st.none(), st.just([1.5] * len(pairs))))
    return Graph.from_edges(np.array(pairs, dtype=np.int64).reshape(-1, 2), weights=weights, nodes=(nl, nr),
                            bipartite=True)


def check_kind_split(g, s):
    """The invariants of a split of any kind, checked independently of EdgeSplit.check."""
    m, n_test = g.n_edges, len(s.test_positives)
    assert s.train_graph.kind == g.kind and s.train_graph.n_left == g.n_left
    assert s.train_graph.node_ids.tolist() == g.node_ids.tolist()
    train, test = pair_set(s.train_positives), pair_set(s.test_positives)
    assert len(train) + len(test) == m and not train & test and train | test == pair_set(g.edges())
    assert not test & stored(s.train_graph)  # no test arc / edge in training
    for arr in (s.train_negatives, s.test_negatives):
        assert not np.any(arr[:, 0] == arr[:, 1])
    assert not pair_set(s.test_negatives) & stored(g)
    assert not pair_set(s.train_negatives) & stored(s.train_graph)
    if g.kind == "bipartite":
        for arr in (s.train_positives, s.test_positives, s.train_negatives, s.test_negatives):
            assert np.all(arr[:, 0] < g.n_left) and np.all(arr[:, 1] >= g.n_left)
    if g.kind == "undirected":
        for arr in (s.train_negatives, s.test_negatives):
            assert np.all(arr[:, 0] < arr[:, 1])
    assert s.summary()["kind"] == g.kind
    return n_test


# ---------------------------------------------------------------------- directed
@given(graphs(max_nodes=12, directed=True, connected=st.booleans(), weighted=st.booleans()),
       st.sampled_from([0.1, 0.3, 0.5]), st.integers(0, 3), st.integers(0, 2**32),
       st.sampled_from(["uniform", "degree"]), st.booleans())
def test_directed_split_keeps_arcs(g, fraction, r, seed, sampler, keep_connected):
    try:
        s = split_edges(g, fraction, r, seed=seed, negative_sampler=sampler, keep_connected=keep_connected)
    except ValueError as exc:
        assert "no node pair is available" in str(exc) or "keep_connected=True only" in str(exc)
        return
    assert g.kind == "directed"
    check_kind_split(g, s)
    # arcs stay arcs: each test positive is an arc of g, in its own direction
    assert g.has_edges(s.test_positives).all()


def test_reversed_arcs_are_negatives_and_reciprocal_pairs_are_not():
    # a directed 12-cycle plus one reciprocal pair: (1, 0) is an arc, (2, 1) is not
    arcs = [(i, (i + 1) % 12) for i in range(12)] + [(1, 0)]
    g = Graph.from_edges(arcs, directed=True)
    pairs = pair_set(sample_negative_pairs(g, 20_000, seed=0))
    reverses = {(v, u) for u, v in arcs} - set(arcs)
    assert reverses <= pairs  # every reversed arc without a reciprocal is drawn (1/131 each, 20k draws)
    assert not pairs & set(arcs)
    assert len(pairs) == 12 * 11 - len(arcs)  # every ordered non-arc is reachable
    # the unit is the arc: a held-out arc's reverse may stay in training (seeds 0.. until the pair is split)
    for seed in range(40):
        s = split_edges(g, 0.5, 2, seed=seed)
        check_kind_split(g, s)
        test, train = pair_set(s.test_positives), pair_set(s.train_positives)
        if any((v, u) in train for u, v in test):
            break
    else:
        pytest.fail("no split of 40 held out one arc of the reciprocal pair (0, 1), (1, 0)")
    assert s.check() is s


# ---------------------------------------------------------------------- bipartite
@given(bipartite_graphs(), st.sampled_from([0.0, 0.2, 0.5]), st.integers(0, 3), st.integers(0, 2**32),
       st.sampled_from(["uniform", "degree"]), st.booleans())
def test_bipartite_split_is_left_right_and_leak_free(g, fraction, r, seed, sampler, keep_connected):
    try:
        s = split_edges(g, fraction, r, seed=seed, negative_sampler=sampler, keep_connected=keep_connected)
    except ValueError as exc:
        msg = str(exc)
        assert "keep_connected=True only" in msg or "no node pair is available" in msg
        if "no node pair" in msg:
            assert "left-right pair" in msg
        return
    n_test = check_kind_split(g, s)
    assert n_test == round(fraction * g.n_edges)
    assert s.train_graph.left_ids.tolist() == g.left_ids.tolist()
    if keep_connected:
        assert s.summary()["n_components_train"] == s.summary()["n_components"]
    again = split_edges(g, fraction, r, seed=seed, negative_sampler=sampler, keep_connected=keep_connected)
    for name in ("train_positives", "train_negatives", "test_positives", "test_negatives"):
        np.testing.assert_array_equal(getattr(s, name), getattr(again, name))


@given(bipartite_graphs(), st.integers(1, 300), st.integers(0, 2**32), st.sampled_from(["uniform", "degree"]))
def test_bipartite_negatives_are_left_right_non_edges(g, k, seed, sampler):
    nl = g.n_left
    edges = pair_set(g.edges())
    non_edges = {(u, v) for u in range(nl) for v in range(nl, g.n_nodes)} - edges
    if sampler == "degree":
        deg = g.degrees
        non_edges = {(u, v) for u, v in non_edges if deg[u] and deg[v]}
    try:
        pairs = sample_negative_pairs(g, k, seed=seed, sampler=sampler)
    except ValueError as exc:
        assert not non_edges and ("no node pair is available" in str(exc) or "at least one edge" in str(exc))
        return
    assert pairs.shape == (k, 2) and pair_set(pairs) <= non_edges


def test_bipartite_uniform_negatives_are_uniform_over_left_right_non_edges():
    # sparse (rejection sampling) and dense (explicit list) graphs both draw each non-edge equally often
    for density in (0.2, 0.97):
        rng = np.random.default_rng(1)
        b = (rng.random((10, 12)) < density).astype(float)
        g = Graph.from_biadjacency(b)
        non_edges = sorted((u, 10 + v) for u, v in zip(*np.nonzero(b == 0)))
        assert len(non_edges) >= 2 and (density < 0.5 or len(non_edges) < 0.05 * 120)  # both code paths
        pairs = sample_negative_pairs(g, 400 * len(non_edges), seed=2)
        counts = {p: 0 for p in non_edges}
        for p in map(tuple, pairs.tolist()):
            counts[p] += 1  # a KeyError would be a pair outside the non-edges
        # chi-square goodness of fit: p < 1e-4 would flag a biased sampler (the seed is fixed)
        assert stats.chisquare(list(counts.values())).pvalue > 1e-4


def test_bipartite_degree_negatives_follow_side_degrees():
    b = np.zeros((3, 4))
    b[0, :] = 1
    b[1, 0] = 1
    g = Graph.from_biadjacency(b)  # left degrees 4, 1, 0; right degrees 2, 1, 1, 1
    pairs = sample_negative_pairs(g, 50_000, seed=0, sampler="degree")
    assert set(pairs[:, 0].tolist()) == {1} and set(pairs[:, 1].tolist()) == {4, 5, 6}
    # complete bipartite: nothing to draw, said in the graph's terms
    with pytest.raises(ValueError, match="bipartite graph has 5 nodes \\(2 left, 3 right\\).*every left-right pair"):
        sample_negative_pairs(Graph.from_biadjacency(np.ones((2, 3))), 1)
    with pytest.raises(ValueError, match="every left-right pair"):
        split_edges(Graph.from_biadjacency(np.ones((2, 3))), 0.2)


def test_bipartite_exclude_and_check():
    g = Graph.from_biadjacency(np.eye(3, 4))
    pairs = sample_negative_pairs(g, 5000, seed=0, exclude=np.array([[0, 4], [1, 5]]))
    assert not pair_set(pairs) & {(0, 3), (1, 4), (2, 5), (0, 4), (1, 5)}
    assert len(pair_set(pairs)) == 12 - 3 - 2


# ---------------------------------------------------------------------- undirected: the protocol as before
@given(graphs(max_nodes=14, connected=st.booleans(), weighted=st.booleans()), st.sampled_from([0.1, 0.3]),
       st.integers(1, 3), st.integers(0, 2**32))
def test_undirected_split_is_the_documented_draws(g, fraction, r, seed):
    """The undirected path draws exactly what it drew before issue #18, in the same order.

    Rebuilt from the protocol's definition: the held-out edges are
    ``sort(rng.choice(m, n_test, replace=False))`` of the seed's Generator,
    then the training and test negatives are the uniform, canonical
    (``u < v``) kernel draws from the next two seeds of that Generator.
    """
    try:
        s = split_edges(g, fraction, r, seed=seed)
    except ValueError as exc:
        assert "no node pair is available" in str(exc)
        return
    assert g.kind == "undirected"
    check_kind_split(g, s)
    rng = check_random_state(seed, "seed")
    edges = g.edges()
    n_test = int(round(fraction * len(edges)))
    test_idx = np.sort(rng.choice(np.arange(len(edges)), size=n_test, replace=False)) if n_test else []
    np.testing.assert_array_equal(s.test_positives, edges[test_idx].reshape(-1, 2))
    for graph, arr in ((s.train_graph, s.train_negatives), (g, s.test_negatives)):
        k = len(arr)
        if not k:
            continue
        pattern = _pattern(graph)
        n = graph.n_nodes
        if n * (n - 1) - pattern.nnz < 0.05 * n * n:
            break  # a nearly complete graph: drawn from the explicit list of non-edges, not from the kernel
        expected, _ = sample_pairs(pattern.indptr, pattern.indices, n, k, draw_seed(rng), None, None, True, -1, 1)
        np.testing.assert_array_equal(arr, expected)


@given(graphs(max_nodes=12, directed=st.booleans()), st.integers(1, 200), st.integers(0, 2**32))
def test_non_bipartite_negatives_are_the_plain_kernel_draws(g, k, seed):
    """For undirected and directed graphs the uniform sampler calls the kernel as before: uniform ends, no cdf."""
    try:
        pairs = sample_negative_pairs(g, k, seed=seed)
    except ValueError:
        return
    pattern = _pattern(g)
    expected, _ = sample_pairs(pattern.indptr, pattern.indices, g.n_nodes, k,
                               draw_seed(check_random_state(seed, "seed")), None, None, not g.is_directed, -1, 1)
    if g.n_nodes * (g.n_nodes - 1) - pattern.nnz >= 0.05 * g.n_nodes ** 2:
        np.testing.assert_array_equal(pairs, expected)  # rejection sampling (not the dense explicit list)


# ---------------------------------------------------------------------- real data
def test_email_eu_core_directed_split(data_dir):
    from lgekit import datasets

    g = datasets.load("email-eu-core", data_home=data_dir, directed=True)
    s = split_edges(g, seed=0)  # runs every leak check on the 24,929 arcs
    assert s.train_graph.kind == "directed"
    assert len(s.test_positives) == round(0.2 * 24_929) and len(s.train_positives) == 24_929 - len(s.test_positives)
    arcs = stored(g)
    assert not pair_set(s.test_negatives) & arcs
    assert not pair_set(s.test_positives) & stored(s.train_graph)
    # reversed arcs without a reciprocal are legitimate negatives; with ~2.5% density a few are drawn
    reverses = {(v, u) for u, v in arcs} - arcs
    assert pair_set(s.test_negatives) & reverses
