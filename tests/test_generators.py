"""Seeded generators: reproducibility, exact counts, simple-graph invariants, and their laws (Monte Carlo).

Monte Carlo tolerances: an inclusion count over R independent graphs is
Binomial(R, p), so it is checked within 5 standard deviations,
5 sqrt(R p (1 - p)); with at most a few dozen such checks per test the
chance of a false failure is below 1e-4 (two-sided normal tail at 5 sd is
5.7e-7 per check).  The seeds are fixed, so the tests are deterministic.
"""
import itertools
import math

import numpy as np
import pytest

from lgekit import Graph
from lgekit.datasets import generators as gen
from lgekit.datasets import (
    chung_lu_graph,
    erdos_renyi_graph,
    expected_edge_count,
    gnm_random_graph,
    planted_partition_graph,
    powerlaw_expected_degrees,
    random_regular_graph,
    youtube_like_degrees,
)


def assert_simple(g, n):
    assert isinstance(g, Graph) and g.n_nodes == n and not g.is_directed and not g.is_weighted
    np.testing.assert_array_equal(g.node_ids, np.arange(n))
    e = g.edges()
    assert np.all(e[:, 0] < e[:, 1])  # no self-loops
    assert len(np.unique(e[:, 0] * max(n, 1) + e[:, 1])) == len(e)  # no repeated edges
    adj = g.to_scipy()
    assert (adj != adj.T).nnz == 0 and adj.diagonal().sum() == 0


def within(count, r, p, sds=5.0):
    return abs(count - r * p) <= sds * math.sqrt(r * p * (1 - p)) + 1e-9


def pair_counts(graphs, n):
    counts = np.zeros((n, n), dtype=np.int64)
    for g in graphs:
        e = g.edges()
        counts[e[:, 0], e[:, 1]] += 1
    return counts


# ---------------------------------------------------------------------- G(n, m), G(n, p)
def test_pair_index_decoding_is_lexicographic():
    for n in (2, 3, 7, 50):
        expected = np.array(list(itertools.combinations(range(n), 2)))
        np.testing.assert_array_equal(gen._pairs_from_index(np.arange(len(expected)), n), expected)
    n = 500_000  # row boundaries at the paper's scale, where floating point could be off by one
    for row in (0, 1, 2, 1000, n // 2, n - 3, n - 2):
        start = row * (2 * n - row - 1) // 2
        last = start + (n - row - 2)
        assert gen._pairs_from_index([start, last], n).tolist() == [[row, row + 1], [row, n - 1]]


@pytest.mark.parametrize("path", ["choice", "rejection"])
def test_gnm_is_uniform_over_pairs(path, monkeypatch):
    """Every pair of a 5-node graph with 3 edges is an edge with probability 3/10."""
    if path == "rejection":
        monkeypatch.setattr(gen, "_EXACT_CHOICE_MAX_PAIRS", 0)
    n, m, r = 5, 3, 2000
    rng = np.random.default_rng(12345)
    for _ in range(20):
        g = gnm_random_graph(n, m, seed=rng)
        assert_simple(g, n)
        assert g.n_edges == m
    # the law, on the sampler gnm_random_graph wraps (building 2000 Graph objects is slow)
    counts = np.zeros((n, n), dtype=np.int64)
    for _ in range(r):
        e = gen._gnm_pairs(n, m, rng)
        assert len(np.unique(e, axis=0)) == m and np.all(e[:, 0] < e[:, 1])
        counts[e[:, 0], e[:, 1]] += 1
    p = m / (n * (n - 1) / 2)
    for u, v in itertools.combinations(range(n), 2):
        assert within(counts[u, v], r, p), (u, v, counts[u, v])


def test_gnm_counts_seeds_and_large_path():
    g = gnm_random_graph(20_000, 60_000, seed=7)  # 2e8 pairs: the rejection path
    assert g.n_edges == 60_000
    assert_simple(g, 20_000)
    np.testing.assert_array_equal(g.edges(), gnm_random_graph(20_000, 60_000, seed=7).edges())
    assert not np.array_equal(g.edges(), gnm_random_graph(20_000, 60_000, seed=8).edges())
    small = gnm_random_graph(30, 100, seed=1)
    np.testing.assert_array_equal(small.edges(), gnm_random_graph(30, 100, seed=1).edges())
    assert gnm_random_graph(6, 15, seed=0).n_edges == 15  # complete graph
    assert gnm_random_graph(6, 0, seed=0).n_edges == 0
    assert gnm_random_graph(0, 0).n_nodes == 0


def test_gnm_errors():
    with pytest.raises(ValueError, match=r"m must be <= n \(n - 1\) / 2 = 10 for a simple graph on n=5 nodes, got 11"):
        gnm_random_graph(5, 11)
    # one message form for every parameter table (lgekit._validation): name, accepted values, value received
    with pytest.raises(ValueError, match=r"gnm_random_graph: n must be an int >= 0, got -1"):
        gnm_random_graph(-1, 0)
    with pytest.raises(TypeError, match=r"n must be an int >= 0, got float: 2.5"):
        gnm_random_graph(2.5, 1)
    with pytest.raises(TypeError, match=r"seed must be None, a non-negative int or a numpy.random.Generator"):
        gnm_random_graph(5, 2, seed="x")


def test_erdos_renyi():
    assert erdos_renyi_graph(10, 0.0, seed=0).n_edges == 0
    assert erdos_renyi_graph(10, 1.0, seed=0).n_edges == 45
    # mean edge count: Binomial(4950, 0.1) has mean 495 and variance 445.5; the mean of 30 graphs
    # has sd sqrt(445.5 / 30) = 3.85, checked within 5 sd
    counts = [erdos_renyi_graph(100, 0.1, seed=s).n_edges for s in range(30)]
    assert abs(np.mean(counts) - 495) < 5 * math.sqrt(445.5 / 30)
    # and the count varies like a binomial (not fixed like G(n, m))
    assert np.std(counts) > 5
    g = erdos_renyi_graph(100, 0.1, seed=3)
    assert_simple(g, 100)
    np.testing.assert_array_equal(g.edges(), erdos_renyi_graph(100, 0.1, seed=3).edges())
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\], got 1.5"):
        erdos_renyi_graph(10, 1.5)
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\], got nan"):
        erdos_renyi_graph(10, float("nan"))


def test_random_regular():
    g = random_regular_graph(4, 30, seed=2)
    assert_simple(g, 30)
    assert set(g.degrees.tolist()) == {4}
    np.testing.assert_array_equal(g.edges(), random_regular_graph(4, 30, seed=2).edges())
    assert random_regular_graph(0, 5, seed=0).n_edges == 0
    with pytest.raises(ValueError, match=r"n \* d must be even .* got n=5, d=3"):
        random_regular_graph(3, 5)
    with pytest.raises(ValueError, match=r"d must be < n for a simple graph, got d=5, n=5"):
        random_regular_graph(5, 5)
    with pytest.raises(ValueError, match=r"d must be an int >= 0, got -2"):
        random_regular_graph(-2, 5)


# ---------------------------------------------------------------------- Chung-Lu
def test_chung_lu_pair_probabilities():
    """Each pair is an edge with probability min(1, w_u w_v / S), in the caller's node order."""
    w = np.array([1.0, 4.0, 0.5, 3.0, 1.5])  # unsorted on purpose; S = 10, pair (1, 3) is capped at 1
    total = w.sum()
    r = 3000
    rng = np.random.default_rng(2024)
    counts = np.zeros((len(w), len(w)), dtype=np.int64)
    for _ in range(r):  # the sampler chung_lu_graph wraps
        e = np.sort(gen._chung_lu_pairs(w, rng), axis=1)
        counts[e[:, 0], e[:, 1]] += 1
    for u, v in itertools.combinations(range(len(w)), 2):
        p = min(1.0, w[u] * w[v] / total)
        if p == 1.0:
            assert counts[u, v] == r
        else:
            assert within(counts[u, v], r, p), (u, v, counts[u, v], r * p)
    assert_simple(chung_lu_graph(w, seed=rng), len(w))


def test_expected_edge_count_matches_brute_force():
    rng = np.random.default_rng(0)
    for w in (rng.pareto(1.5, size=300) * 5, np.array([5.0, 5.0, 5.0]), np.array([0.0, 1.0, 2.0, 0.0])):
        total = w.sum()
        p = np.minimum(1.0, np.outer(w, w) / total)
        assert expected_edge_count(w) == pytest.approx(np.triu(p, 1).sum(), rel=1e-12)
    assert expected_edge_count(np.zeros(4)) == 0.0


def test_chung_lu_edge_count_and_degrees():
    w = powerlaw_expected_degrees(3000, 10.0, exponent=2.5, max_degree=300.0)
    assert w.max() ** 2 > w.sum()  # some hub pairs are capped at probability 1
    graphs = [chung_lu_graph(w, seed=s) for s in range(5)]
    for g in graphs[:2]:
        assert_simple(g, 3000)
    # the edge count is a sum of independent Bernoullis: variance <= mean, so the mean of
    # 5 graphs has sd <= sqrt(E / 5)
    expected = expected_edge_count(w)
    assert abs(np.mean([g.n_edges for g in graphs]) - expected) < 5 * math.sqrt(expected / 5)
    # degree of the hub (node 0): mean sum_v min(1, w_0 w_v / S), same variance bound
    p0 = np.minimum(1.0, w[0] * w[1:] / w.sum())
    assert abs(np.mean([g.degrees[0] for g in graphs]) - p0.sum()) < 5 * math.sqrt(p0.sum() / 5)
    np.testing.assert_array_equal(graphs[0].edges(), chung_lu_graph(w, seed=0).edges())
    assert not np.array_equal(graphs[0].edges(), graphs[1].edges())


def test_chung_lu_edge_cases_and_errors():
    assert chung_lu_graph([], seed=0).n_nodes == 0
    assert chung_lu_graph([0, 0, 0], seed=0).n_edges == 0
    assert chung_lu_graph([3.0], seed=0).n_edges == 0
    with pytest.raises(ValueError, match=r"expected_degrees must be finite and non-negative; entry 1 is -1.0"):
        chung_lu_graph([1.0, -1.0])
    with pytest.raises(ValueError, match=r"expected_degrees must be finite and non-negative; entry 0 is nan"):
        chung_lu_graph([float("nan"), 1.0])
    with pytest.raises(ValueError, match=r"expected_degrees must be a 1-D sequence, got shape \(2, 2\)"):
        chung_lu_graph(np.ones((2, 2)))


def test_powerlaw_expected_degrees():
    n, mean, top, beta = 100_000, 10.0, 1000.0, 2.5
    w = powerlaw_expected_degrees(n, mean, exponent=beta, max_degree=top)
    assert w.shape == (n,)
    assert w.mean() == pytest.approx(mean, rel=1e-9) and w.max() == pytest.approx(top, rel=1e-6)
    assert np.all(np.diff(w) <= 0)
    # rank-size law: w_i ~ i^(-1/(beta-1)) in the tail
    i = np.arange(n // 10, n)
    slope = np.polyfit(np.log(i), np.log(w[i]), 1)[0]
    assert slope == pytest.approx(-1 / (beta - 1), abs=0.05)
    # default maximum: the structural cutoff sqrt(n * mean)
    assert powerlaw_expected_degrees(n, mean).max() == pytest.approx(math.sqrt(n * mean), rel=1e-6)
    with pytest.raises(ValueError, match=r"exponent must be a finite number > 1, got 1.0"):
        powerlaw_expected_degrees(100, 5.0, exponent=1.0)
    with pytest.raises(ValueError, match=r"mean_degree \(50.0\) must be below max_degree \(20.0\)"):
        powerlaw_expected_degrees(100, 50.0, max_degree=20.0)
    with pytest.raises(ValueError, match=r"max_degree must be <= n - 1 = 99 for a simple graph, got 150.0"):
        powerlaw_expected_degrees(100, 5.0, max_degree=150.0)


def test_youtube_like_degrees_small():
    w = youtube_like_degrees(n_nodes=20_000, n_edges=100_000, max_degree=2_000)
    assert len(w) == 20_000 and w.max() == pytest.approx(2_000)
    assert expected_edge_count(w) == pytest.approx(100_000, abs=1)
    with pytest.raises(ValueError, match=r"max_degree must be <= n_nodes - 1 = 99, got 500.0"):
        youtube_like_degrees(n_nodes=100, n_edges=200, max_degree=500)


@pytest.mark.slow
def test_youtube_scale_chung_lu():
    """The paper's YouTube subgraph size: 500,000 nodes, 3,319,221 edges on average."""
    w = youtube_like_degrees()
    g = chung_lu_graph(w, seed=0)
    assert g.n_nodes == 500_000
    assert abs(g.n_edges - 3_319_221) < 5 * math.sqrt(3_319_221)  # variance <= mean
    assert_simple(g, 500_000)
    big = gnm_random_graph(500_000, 3_319_221, seed=0)
    assert big.n_edges == 3_319_221
    assert_simple(big, 500_000)


# ---------------------------------------------------------------------- planted partition
def intra_fraction(g):
    """Fraction of edges whose ends share a label."""
    e = g.edges()
    lab = g.labels.tocsr().astype(np.int64)
    shared = np.asarray(lab[e[:, 0]].multiply(lab[e[:, 1]]).sum(axis=1)).ravel()
    return float(np.mean(shared > 0))


def test_planted_partition_invariants():
    kwargs = dict(n_nodes=2000, n_labels=12, mean_degree=12, seed=5)
    g = planted_partition_graph(**kwargs)
    assert_simple(g, 2000)
    m = round(2000 * 12 / 2)
    assert m <= g.n_edges <= m + 2000
    assert len(g.isolated_nodes) == 0
    per_node = np.diff(g.labels.indptr)
    per_class = np.bincount(g.labels.indices, minlength=12)
    assert per_node.min() >= 1 and per_class.min() >= 1 and g.n_labels == 12
    np.testing.assert_array_equal(g.label_names, np.arange(12))
    # 1 + geometric(mean 0.404) labels: sd 0.75 per node, so the mean over 2000 has sd 0.017
    assert abs(per_node.mean() - 1.404) < 5 * 0.75 / math.sqrt(2000)
    again = planted_partition_graph(**kwargs)
    np.testing.assert_array_equal(g.edges(), again.edges())
    assert (g.labels != again.labels).nnz == 0
    other = planted_partition_graph(**{**kwargs, "seed": 6})
    assert not np.array_equal(g.edges(), other.edges())


def test_planted_partition_mixing_controls_community_structure():
    fractions = [intra_fraction(planted_partition_graph(n_nodes=1500, n_labels=8, mean_degree=10, mixing=mu, seed=1))
                 for mu in (0.0, 0.5, 1.0)]
    assert fractions[0] >= 0.99  # every edge is drawn inside a community
    assert fractions[0] > fractions[1] > fractions[2]


def test_planted_partition_errors():
    with pytest.raises(ValueError, match=r"n_labels must be an int in \[1, n_nodes=10\], got 11"):
        planted_partition_graph(n_nodes=10, n_labels=11)
    with pytest.raises(ValueError, match=r"mixing must be a number in \[0, 1\], got 1.5"):
        planted_partition_graph(n_nodes=100, n_labels=3, mixing=1.5)
    with pytest.raises(ValueError, match=r"labels_per_node must be a finite number >= 1 or None, got 0.5"):
        planted_partition_graph(n_nodes=100, n_labels=3, labels_per_node=0.5)
    with pytest.raises(ValueError, match=r"labels_per_node must be a number in \[1, n_labels=3\], got 3.5"):
        planted_partition_graph(n_nodes=100, n_labels=3, labels_per_node=3.5)
    with pytest.raises(TypeError, match=r"mixing must be a number in \[0, 1\], got bool: True"):
        planted_partition_graph(n_nodes=100, n_labels=3, mixing=True)
    with pytest.raises(ValueError, match=r"mean_degree must be <= \(n_nodes - 1\) / 2 = 49.5 .* got 60.0"):
        planted_partition_graph(n_nodes=100, n_labels=3, mean_degree=60.0)
