"""Tests of Claim 1's construction (lgekit.theory.shattering)."""
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from lgekit import Graph
from strategies import labelled_regular_graphs
from lgekit.theory import (
    ShatteringError,
    check_shattering,
    polish_shattering,
    shattering_embedding,
    shattering_norm_lower_bound,
)


@st.composite
def random_regular_graphs(draw):
    """A random d-regular graph, 2 <= d <= 12, n <= 300, with a labelling; shrinks towards small d, n, seed 0."""
    d = draw(st.integers(2, 12))
    n = draw(st.integers(d + 1, 300))
    if (n * d) % 2:
        n = n + 1 if n < 300 else n - 1
    seed = draw(st.integers(0, 2**16))
    graph = Graph.from_networkx(nx.random_regular_graph(d, n, seed=seed))
    m = graph.n_edges
    kind = draw(st.sampled_from(["drawn", "all +1", "all -1", "alternating"]))
    if kind == "all +1":
        labels = np.ones(m, np.int8)
    elif kind == "all -1":
        labels = -np.ones(m, np.int8)
    elif kind == "alternating":
        labels = np.where(np.arange(m) % 2 == 0, 1, -1)
    else:
        labels = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=m, max_size=m)))
    return graph, d, labels, f"random {d}-regular, n={n}, labels {kind}"


def _assert_shattered(graph, d, labels, seed):
    X = shattering_embedding(graph, labels, eps=0.1, seed=seed)
    assert X.shape == (graph.n_nodes, d)
    chk = check_shattering(graph, labels, X)
    assert chk.n_violated == 0
    assert chk.min_margin > 1.0
    # every equation is solved exactly when its later endpoint is placed: each margin equals its random
    # target in [1 + eps, 1 + 2 eps], up to rounding
    e = graph.edges()
    margins = labels * np.einsum("ij,ij->i", X[e[:, 0]], X[e[:, 1]])
    assert np.all(margins >= 1.1 * (1 - 1e-6)) and np.all(margins <= 1.2 * (1 + 1e-6))
    # what any shattering embedding must spend
    assert chk.mean_sq_norm >= shattering_norm_lower_bound(graph, labels) * (1 - 1e-9)


@given(labelled_regular_graphs(), st.integers(0, 2**32 - 1))
def test_every_edge_gets_margin_above_one_on_adversarial_graphs(data, seed):
    # unions of K_{d+1}, K_{d,d}, complete multipartite graphs, circulants, generalised Petersen graphs and
    # hypercubes, with constant, alternating, per-component and drawn labels: the version with one common
    # target margin failed on every complete bipartite component with constant labels
    graph, d, labels, description = data
    note(description)
    _assert_shattered(graph, d, labels, seed)


@given(random_regular_graphs(), st.integers(0, 2**32 - 1))
def test_every_edge_gets_margin_above_one_on_random_regular_graphs(data, seed):
    graph, d, labels, description = data
    note(description)
    _assert_shattered(graph, d, labels, seed)


CASES = {
    "K_{3,3}": nx.complete_bipartite_graph(3, 3),
    "K_{4,4}": nx.complete_bipartite_graph(4, 4),
    "K_4 + K_{3,3}": nx.disjoint_union(nx.complete_graph(4), nx.complete_bipartite_graph(3, 3)),
    "K_{3,3,3}": nx.complete_multipartite_graph(3, 3, 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_complete_bipartite_components_every_seed_and_labelling(name):
    # the cases of issue 17: before the random target margins, constant labels failed for every seed (twins
    # on one side got vectors on one line, and the last vertex's system was singular) and random labellings
    # for 10-15 of 30 seeds
    graph = Graph.from_networkx(nx.convert_node_labels_to_integers(CASES[name]))
    rng = np.random.default_rng(17)
    labellings = [np.ones(graph.n_edges, np.int8), -np.ones(graph.n_edges, np.int8)]
    labellings += [rng.choice(np.array([-1, 1], np.int8), size=graph.n_edges) for _ in range(30)]
    for seed in range(30):
        for labels in (labellings[0], labellings[1], labellings[2 + seed]):
            X = shattering_embedding(graph, labels, seed=seed)
            assert check_shattering(graph, labels, X).n_violated == 0, (name, seed, labels.tolist())


@pytest.mark.parametrize("d", [2, 3, 4, 6, 9])
def test_tight_case_clique_all_minus_needs_d_dimensions(d):
    # K_{d+1} with every label -1 needs d+1 pairwise-obtuse vectors; at most D+1 exist in R^D, so it is
    # realisable in d dimensions and not in d-1.
    g = Graph.from_networkx(nx.complete_graph(d + 1))
    X = shattering_embedding(g, -1, seed=0)
    chk = check_shattering(g, -1, X)
    assert chk.n_violated == 0
    # any realisation with margins >= 1 + eps spends at least the lower bound d times 1 + eps; the
    # construction aims at the regular simplex's length (1 + eps) d, with random margins up to 1 + 2 eps and
    # random free lengths in [0.9, 1.1] times the target
    assert shattering_norm_lower_bound(g, -1) == pytest.approx(d)
    assert 1.1 * d * (1 - 1e-9) <= chk.mean_sq_norm <= 1.5 * 1.2 * d
    with pytest.raises(ShatteringError, match="needs dim >= d") as info:
        shattering_embedding(g, -1, seed=0, dim=d - 1)
    assert info.value.n_constraints == d


def test_larger_dimension_also_works():
    g = Graph.from_networkx(nx.random_regular_graph(4, 40, seed=1))
    y = np.random.default_rng(0).choice([-1, 1], size=g.n_edges)
    X = shattering_embedding(g, y, seed=0, dim=9)
    assert X.shape == (40, 9) and check_shattering(g, y, X).n_violated == 0


def test_well_conditioned_at_n_in_the_thousands_and_polish_keeps_margins():
    g = Graph.from_networkx(nx.random_regular_graph(8, 2000, seed=2))
    y = np.random.default_rng(1).choice([-1, 1], size=g.n_edges)
    X = shattering_embedding(g, y, seed=3)
    raw = check_shattering(g, y, X)
    assert raw.n_violated == 0 and raw.min_margin >= 1.1 * (1 - 1e-6)
    Xp = polish_shattering(g, y, X, sweeps=2, seed=4)
    pol = check_shattering(g, y, Xp)
    assert pol.n_violated == 0 and pol.min_margin >= 1.1 - 1e-9
    # each block step is a minimiser over a set containing the current vector: never increases a norm
    assert np.all(np.einsum("ij,ij->i", Xp, Xp) <= np.einsum("ij,ij->i", X, X) + 1e-12)
    assert pol.total_sq_norm < raw.total_sq_norm
    assert pol.mean_sq_norm >= shattering_norm_lower_bound(g, y)


def test_reproducible_from_seed():
    g = Graph.from_networkx(nx.random_regular_graph(3, 30, seed=0))
    a = shattering_embedding(g, 1, seed=5)
    b = shattering_embedding(g, 1, seed=5)
    assert np.array_equal(a, b)


def test_lower_bound_on_bipartite_and_clique():
    # bipartite d-regular graph, all -1: lambda_max(-A) = d, so the bound is the edge-wise 1
    g = Graph.from_networkx(nx.complete_bipartite_graph(3, 3))
    assert shattering_norm_lower_bound(g, -1) == pytest.approx(1.0)
    # all +1 on K_{d+1}: lambda_max(A) = d -> bound 1
    assert shattering_norm_lower_bound(Graph.from_networkx(nx.complete_graph(5)), 1) == pytest.approx(1.0)


def test_errors():
    path = Graph.from_networkx(nx.path_graph(4))
    with pytest.raises(ValueError, match="d-regular"):
        shattering_embedding(path, 1)
    cycle = Graph.from_networkx(nx.cycle_graph(5))
    with pytest.raises(ValueError, match="one entry per edge"):
        shattering_embedding(cycle, [1, -1])
    with pytest.raises(ValueError, match="must be \\+1 or -1"):
        shattering_embedding(cycle, [1, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="eps"):
        shattering_embedding(cycle, 1, eps=0)
    with pytest.raises(ValueError, match="dim"):
        shattering_embedding(cycle, 1, dim=0)
    with pytest.raises(TypeError, match="lgekit.Graph"):
        shattering_embedding(nx.cycle_graph(5), 1)
    with pytest.raises(ValueError, match="at least one edge"):
        shattering_embedding(Graph.from_edges(np.empty((0, 2), int), nodes=3), 1)
    # an absurd rcond declares every system singular: the error names the vertex and the condition number
    with pytest.raises(ShatteringError, match="singular system at vertex"):
        shattering_embedding(cycle, 1, rcond=2.0)
    with pytest.raises(ValueError, match="X must have shape"):
        check_shattering(cycle, 1, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="non-finite"):
        check_shattering(cycle, 1, np.full((5, 2), np.nan))
    assert math.isfinite(check_shattering(cycle, 1, np.ones((5, 2))).min_margin)


def test_adversarial_regular_graphs_are_regular_and_shattered():
    # the hard cases the theory check runs (twins, symmetry, small girth), now part of the mathematics
    from lgekit.theory import adversarial_regular_graphs

    graphs = adversarial_regular_graphs()
    names = [name for name, _ in graphs]
    assert len(set(names)) == len(names) >= 9 and "Petersen" in names and "K_{3,3}" in names
    for name, graph in graphs:
        d = int(graph.degrees[0])
        assert np.all(graph.degrees == d), name
        for labels in (1, -1):
            _assert_shattered(graph, d, np.full(graph.n_edges, labels, np.int8), seed=0)
