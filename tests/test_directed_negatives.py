"""Issue 24: direction-aware negatives, and the two-table options that used to be refused.

* ``reverse_negatives``: the pairs are the reference's (:func:`lgekit.reference.reverse_negatives`), they
  replace uniform negatives one for one, and the kernel's epochs on them are the two-table reference epoch
  (1e-12, float64); refused with a clear error for undirected and bipartite graphs.
* the vertex order with two lambda_r: kernel = :func:`lgekit.reference.two_table_sgd_vertex_epoch`.
* ``negatives="resample"`` with two tables: each draw is the SplitMix64 replay of the documented rule
  (source row uniform, then target row uniform, positives and a directed node's own pair rejected).
* undirected graphs: the option does nothing (bit-identical fits).
"""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from splitmix import SplitMix64

import lgekit
from lgekit import LogisticEmbedding, reference
from lgekit._validation import InvalidParameterError
from lgekit.models._training_data import DIRECTED_REVERSE_SHARE, one_way_arcs, reverse_negative_pairs
from test_two_tables import EPOCH_PARAMS, _two_table_pairs, bipartite_graphs, directed_graphs

NEG_BLOCK = 16384    # _sampling.pyx's _NEG_BLOCK: rows drawn from one stream


# ----------------------------------------------------------------- the reverse pairs
@settings(max_examples=30)
@given(graph=directed_graphs(), share=st.sampled_from([0.1, 0.25, 0.5, 1.0]),
       q=st.sampled_from([1.0, 4.0, 2.5]), seed=st.integers(0, 2**32 - 1))
def test_reverse_pairs_are_the_references(graph, share, q, seed):
    arcs = graph.edges()
    got = reverse_negative_pairs(graph, arcs, share, q, np.random.default_rng(seed))
    lonely = one_way_arcs(graph, arcs)
    coins = np.random.default_rng(seed).random(len(lonely))
    np.testing.assert_array_equal(got, reference.reverse_negatives(arcs, share, q, coins))
    # every pair is the reverse of a one-way arc, hence not an arc itself
    assert not np.any(graph.has_edges(got)) if len(got) else True


def test_a_whole_number_of_reverses_needs_no_coin():
    g = lgekit.Graph.from_edges([(0, 1), (1, 0), (1, 2), (2, 3), (3, 1)], directed=True)
    pairs = reverse_negative_pairs(g, g.edges(), 0.5, 4.0, np.random.default_rng(0))
    # rho q = 2: two copies of the reverse of each one-way arc (1->2, 2->3, 3->1), none for 0 <-> 1
    assert sorted(map(tuple, pairs.tolist())) == [(1, 3), (1, 3), (2, 1), (2, 1), (3, 2), (3, 2)]


def test_reverse_negatives_replace_uniform_ones_in_a_split():
    g = lgekit.Graph.from_networkx(nx.gnc_graph(60, seed=2))
    split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    solver = LogisticEmbedding(dim=4, epochs=0, reverse_negatives=0.25, random_state=0).fit(split).solver_
    ns = solver.n_source
    neg = _two_table_pairs(solver.negatives, ns)
    k, m = len(split.train_negatives), len(split.train_positives)
    assert len(neg) == k                                     # the same number of pairs
    r = solver.training_data().n_reverse
    # gnc arcs all point one way: rho q = 0.25 * 4 = 1 reverse per training arc, in the arcs' order
    assert r == m
    np.testing.assert_array_equal(neg[k - r:], np.asarray(split.train_positives)[:, ::-1])
    np.testing.assert_array_equal(neg[:k - r], np.asarray(split.train_negatives)[:k - r])


@settings(max_examples=20)
@given(graph=directed_graphs(), share=st.sampled_from([0.1, 0.5, 1.0]))
def test_kernel_epochs_with_reverse_negatives_equal_the_reference(graph, share):
    model = LogisticEmbedding(epochs=0, random_state=3, reverse_negatives=share, lam_r=0.2, lam_r_context=0.6,
                              **EPOCH_PARAMS).fit(graph)
    solver, ns = model.solver_, model.embedding_.shape[0]
    pos, neg = _two_table_pairs(solver.positives, ns), _two_table_pairs(solver.negatives, ns)
    X, Y = model.embedding_.copy(), model.context_embedding_.copy()
    for t in range(2):
        X, Y = reference.two_table_sgd_edge_epoch(X, Y, pos, neg, solver.epoch_order(t).order, solver.learning_rate(t),
                                                  lam_pos=model.lam_pos, lam_neg=model.lam_neg, lam_r=0.2,
                                                  lam_r_context=0.6)
        assert int(solver.run_epoch(t)) == 0
    np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.context_embedding_, Y, rtol=0, atol=1e-12)
    objective = reference.two_table_logistic_objective(X, Y, pos, neg, lam_pos=model.lam_pos, lam_neg=model.lam_neg,
                                                       lam_r=0.2, lam_r_context=0.6)
    assert solver.diagnostics()["objective"] == pytest.approx(objective.objective, rel=1e-12)


def test_default_share_is_on_for_directed_graphs_only():
    # a graph with reciprocated arcs: the default share is DIRECTED_REVERSE_SHARE times the reciprocity
    g = lgekit.Graph.from_networkx(nx.gnp_random_graph(60, 0.15, seed=1, directed=True))
    assert DIRECTED_REVERSE_SHARE > 0 and g.reciprocity() > 0.1
    solver = LogisticEmbedding(dim=4, epochs=0, random_state=0).fit(g).solver_
    assert solver.training_data().n_reverse > 0
    off = LogisticEmbedding(dim=4, epochs=0, reverse_negatives=0.0, random_state=0).fit(g).solver_
    assert off.training_data().n_reverse == 0


def test_undirected_fits_ignore_reverse_negatives_none_bit_for_bit():
    g = nx.karate_club_graph()
    a = LogisticEmbedding(dim=8, epochs=3, random_state=5).fit(g)
    b = LogisticEmbedding(dim=8, epochs=3, random_state=5, reverse_negatives=0.0).fit(g)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)


@pytest.mark.parametrize("kind", ["undirected", "bipartite"])
def test_reverse_negatives_on_other_kinds_name_the_parameter(kind):
    if kind == "undirected":
        g = nx.karate_club_graph()
    else:
        g = lgekit.Graph.from_biadjacency(np.array([[1, 0, 1], [0, 1, 1]]))
    with pytest.raises(InvalidParameterError, match=f"reverse_negatives must be None or 0 for an? {kind} graph, "
                                                    "got 0.3"):
        LogisticEmbedding(dim=4, epochs=1, reverse_negatives=0.3).fit(g)
    with pytest.raises(InvalidParameterError, match="reverse_negatives"):
        LogisticEmbedding(dim=4, epochs=1, reverse_negatives=1.5).fit(g)


def test_changing_the_share_between_partial_fits_rebuilds_the_pairs():
    g = lgekit.Graph.from_networkx(nx.gnc_graph(50, seed=4))
    model = LogisticEmbedding(dim=4, epochs=1, reverse_negatives=0.0, random_state=0).fit(g)
    assert model.solver_.training_data().n_reverse == 0
    model.set_params(reverse_negatives=0.5).partial_fit(g)
    assert model.solver_.training_data().n_reverse > 0


# ----------------------------------------------------------------- vertex order, two lambda_r
@settings(max_examples=20)
@given(graph=st.one_of(directed_graphs(), bipartite_graphs()),
       lams=st.sampled_from([(0.3, 1.1), (0.0, 0.8), (0.9, 0.1)]))
def test_vertex_order_with_two_lambdas_equals_the_reference(graph, lams):
    params = {**EPOCH_PARAMS, "lr_offset": 50.0}
    model = LogisticEmbedding(epochs=0, random_state=3, order="vertex", lam_r=lams[0], lam_r_context=lams[1],
                              reverse_negatives=0.0, **params).fit(graph)
    solver, ns = model.solver_, model.embedding_.shape[0]
    pos, neg = _two_table_pairs(solver.positives, ns), _two_table_pairs(solver.negatives, ns)
    X, Y = model.embedding_.copy(), model.context_embedding_.copy()
    for t in range(2):
        X, Y = reference.two_table_sgd_vertex_epoch(X, Y, pos, neg, solver.epoch_order(t).order,
                                                    solver.learning_rate(t), weights=solver.positive_weights,
                                                    lam_pos=model.lam_pos, lam_neg=model.lam_neg, lam_r=lams[0],
                                                    lam_r_context=lams[1])
        assert int(solver.run_epoch(t)) == 0
    np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.context_embedding_, Y, rtol=0, atol=1e-12)


def test_vertex_order_deterministic_threads_match_one_thread():
    g = lgekit.Graph.from_networkx(nx.gnc_graph(120, seed=3))
    fits = [LogisticEmbedding(dim=8, epochs=2, order="vertex", lr_offset=500.0, lam_r=0.1, lam_r_context=0.4,
                              schedule="deterministic", n_threads=k, random_state=0).fit(g) for k in (1, 2)]
    np.testing.assert_array_equal(fits[0].embedding_, fits[1].embedding_)
    np.testing.assert_array_equal(fits[0].context_embedding_, fits[1].context_embedding_)


# ----------------------------------------------------------------- resampled negatives, two tables
def _replay_two_table_draw(seed, epoch, k, n, ns, positives, skip_diagonal):
    """The documented rule, on SplitMix64's Python twin: block b of NEG_BLOCK rows reads
    rng_stream(rng_stream(seed, 2 epoch + 1), b); a trial draws the source row, then the target row."""
    base = SplitMix64(seed, 2 * epoch + 1).state
    known = set(map(tuple, np.asarray(positives).tolist()))
    out = []
    for b in range((k + NEG_BLOCK - 1) // NEG_BLOCK):
        rng = SplitMix64(base, b)
        for _ in range(min(NEG_BLOCK, k - b * NEG_BLOCK)):
            while True:
                u = rng.below(ns)
                v = ns + rng.below(n - ns)
                if not (skip_diagonal and v - ns == u) and (u, v) not in known:
                    break
            out.append((u, v))
    return np.array(out, dtype=np.int64).reshape(-1, 2)


@settings(max_examples=20)
@given(graph=st.one_of(directed_graphs(), bipartite_graphs()), share=st.sampled_from([0.0, 0.25]))
def test_two_table_resampling_is_the_reference_draw(graph, share):
    share = share if graph.kind == "directed" else 0.0
    model = LogisticEmbedding(epochs=0, random_state=1, negatives="resample", reverse_negatives=share,
                              **EPOCH_PARAMS).fit(graph)
    solver = model.solver_
    n, ns = solver.n_nodes, solver.n_source
    r = solver.training_data().n_reverse
    before = np.asarray(solver.negatives)
    for epoch in (0, 3):
        drawn = np.asarray(solver.epoch_negatives(epoch))
        k = len(drawn) - r
        expected = _replay_two_table_draw(solver.seed, epoch, k, n, ns, solver.positives, graph.kind == "directed")
        np.testing.assert_array_equal(drawn[:k], expected)
        np.testing.assert_array_equal(drawn[k:], before[k:])          # the reverse pairs stay
    # and an epoch trains on that draw
    assert int(solver.run_epoch(0)) == 0
    np.testing.assert_array_equal(solver.negatives, solver.epoch_negatives(0))


def test_bipartite_resampling_keeps_left_right_semantics():
    rng = np.random.default_rng(0)
    B = (rng.random((15, 25)) < 0.2).astype(float)
    B[np.arange(15), np.arange(15)] = 1
    g = lgekit.Graph.from_biadjacency(B)
    model = LogisticEmbedding(dim=4, epochs=3, negatives="resample", random_state=0).fit(g)
    neg = _two_table_pairs(model.solver_.negatives, g.n_left)
    assert neg[:, 0].max() < g.n_left and neg[:, 1].max() < g.n_right
    assert not np.any(B[neg[:, 0], neg[:, 1]])                  # non-edges, left to right
    assert model.embedding_.shape == (g.n_left, 4) and model.context_embedding_.shape == (g.n_right, 4)
