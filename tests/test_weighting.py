"""Edge weights: one meaning at every entry point, and the two ``weighting`` modes of LogisticEmbedding.

``weighting="sample"`` (the default) draws each epoch's positives with probability proportional to
weight from an alias table (LINE's edge sampling) and steps with unit coefficients; ``"scale"``
multiplies each edge's loss by its weight (footnote 1 of the paper).
"""
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from lgekit import Graph, LogisticEmbedding, reference
from lgekit import _sampling
from lgekit.models import DivergenceError

LAMBDAS = dict(lam_pos=1.0, lam_neg=0.3, lam_r=0.2)


def _implied_probabilities(prob, alias):
    """What an alias table draws: column i w.p. 1/m, then i w.p. prob[i], else alias[i]."""
    m = len(prob)
    p = prob / m
    np.add.at(p, alias, (1.0 - prob) / m)
    return p


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1e6, allow_nan=False), min_size=1, max_size=200).filter(lambda w: sum(w) > 0))
def test_alias_table_draws_each_index_with_probability_proportional_to_its_weight(weights):
    w = np.asarray(weights, dtype=np.float64)
    prob, alias = np.empty(len(w)), np.empty(len(w), np.int32)
    _sampling.alias_table(w, prob, alias)
    assert np.all((prob >= 0) & (prob <= 1)) and np.all((alias >= 0) & (alias < len(w)))
    np.testing.assert_allclose(_implied_probabilities(prob, alias), w / w.sum(), rtol=1e-9, atol=1e-12)


def test_alias_draws_match_the_distribution_and_are_reproducible():
    w = np.array([1.0, 0.0, 3.0, 6.0, 0.5, 9.5])
    prob, alias = np.empty(6), np.empty(6, np.int32)
    _sampling.alias_table(w, prob, alias)
    draws = np.empty(200_000, np.int32)
    _sampling.sample_alias(draws, prob, alias, 12345, 2)
    freq = np.bincount(draws, minlength=6) / len(draws)
    # 5 standard errors of a binomial proportion
    np.testing.assert_allclose(freq, w / w.sum(), atol=5 * np.sqrt(0.25 / len(draws)))
    assert freq[1] == 0.0                             # a weight-0 edge is never drawn
    again = np.empty_like(draws)
    _sampling.sample_alias(again, prob, alias, 12345, 2)
    np.testing.assert_array_equal(draws, again)
    _sampling.sample_alias(again, prob, alias, 12345, 3)
    assert not np.array_equal(draws, again)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 200_000), st.integers(1, 40), st.integers(0, 2**63 - 1))
def test_alias_draws_and_their_rows_do_not_depend_on_the_thread_count(k, m, seed):
    rng = np.random.default_rng(seed % 2**32)
    w = rng.uniform(0.0, 5.0, m) + (np.arange(m) == 0)
    prob, alias = np.empty(m), np.empty(m, np.int32)
    _sampling.alias_table(w, prob, alias)
    rows = rng.integers(0, 1000, (m, 2)).astype(np.int32)
    draws = [np.empty(k, np.int32) for _ in range(3)]
    gathered = [np.empty((k, 2), np.int32) for _ in range(3)]
    for d, g, t in zip(draws, gathered, (1, 2, 5)):
        _sampling.sample_alias(d, prob, alias, seed, 2, t, rows, g)
    assert all(np.array_equal(draws[0], d) for d in draws[1:])
    np.testing.assert_array_equal(gathered[0], rows[draws[0]])
    assert all(np.array_equal(gathered[0], g) for g in gathered[1:])
    if k:
        with pytest.raises(ValueError, match="one row per draw"):
            _sampling.sample_alias(draws[0], prob, alias, seed, 2, 1, rows, gathered[0][:-1])


def _weighted_graph(seed=0, n=30, p=0.25):
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(n, p, seed=seed)
    for u, v in g.edges():
        g[u][v]["weight"] = float(rng.choice([0.5, 1.0, 2.0, 7.0, 31.0]))
    return g


def test_les_miserables_trains_at_default_settings_for_every_seed():
    g = nx.les_miserables_graph()
    assert max(d["weight"] for *_, d in g.edges(data=True)) == 31
    norms = []
    for seed in range(6):
        model = LogisticEmbedding(random_state=seed).fit(g)        # weighting="sample" by default
        assert not any(r["diverged"] for r in model.history_)
        norms.append(model.history_[-1]["mean_norm"])
    # an unweighted graph of this size ends near the same norm: no blow-up from the weights
    plain = LogisticEmbedding(random_state=0).fit(Graph.from_networkx(g, weight=None))
    assert max(norms) < 3 * plain.history_[-1]["mean_norm"]


def test_scale_weighting_multiplies_the_steps_and_its_divergence_advice_names_weighting():
    g = nx.les_miserables_graph()
    with pytest.raises(DivergenceError) as info:
        LogisticEmbedding(weighting="scale", random_state=0).fit(g)
    assert "weighting='sample'" in str(info.value) and info.value.parameter == "weighting"


def test_every_entry_point_reads_the_same_weights():
    g = _weighted_graph(1)
    from_nx = Graph.from_networkx(g)
    assert from_nx.is_weighted
    adjacency = nx.to_scipy_sparse_array(g, nodelist=list(g.nodes()), format="csr")
    from_scipy = Graph.from_scipy(sp.csr_matrix(adjacency))
    edges = [(u, v, d["weight"]) for u, v, d in g.edges(data=True)]
    from_edges = Graph.from_edges(edges, nodes=g.number_of_nodes())
    for other in (from_scipy, from_edges):
        np.testing.assert_array_equal(other.edges(), from_nx.edges())
        np.testing.assert_array_equal(other.edge_weights(), from_nx.edge_weights())
    fitted = [LogisticEmbedding(dim=4, epochs=3, random_state=5).fit(x).embedding_
              for x in (g, from_nx, from_scipy, from_edges)]
    for emb in fitted[1:]:
        np.testing.assert_array_equal(emb, fitted[0])
    # a graph without the attribute is unweighted, whatever the entry point
    assert not Graph.from_networkx(nx.path_graph(4)).is_weighted
    assert not Graph.from_networkx(g, weight=None).is_weighted


@pytest.mark.parametrize("graph", [nx.path_graph(12), nx.karate_club_graph()], ids=["path", "karate"])
def test_weighting_changes_nothing_on_an_unweighted_or_uniformly_weighted_graph(graph):
    g = nx.Graph(graph.edges())                      # drop karate's own weights
    kwargs = dict(dim=6, epochs=4, lam_r=0.1, random_state=3)
    base = LogisticEmbedding(weighting="scale", **kwargs).fit(g).embedding_
    np.testing.assert_array_equal(LogisticEmbedding(weighting="sample", **kwargs).fit(g).embedding_, base)
    for u, v in g.edges():
        g[u][v]["weight"] = 3.0                      # equal weights carry no information for sampling
    np.testing.assert_array_equal(LogisticEmbedding(weighting="sample", **kwargs).fit(g).embedding_, base)


@pytest.mark.parametrize("seed", range(4))
def test_a_sampling_epoch_is_the_reference_epoch_on_its_drawn_edges(seed):
    g = Graph.from_networkx(_weighted_graph(seed))
    model = LogisticEmbedding(dim=5, epochs=1, dtype="float64", random_state=seed, **LAMBDAS).fit(g)
    solver = model.solver_
    assert solver.samples_positives
    edges, w = g.edges(), g.edge_weights()
    negatives = np.asarray(solver.negatives)
    visits = (np.bincount(edges.ravel(), np.repeat(w / w.mean(), 2), minlength=g.n_nodes)
              + np.bincount(negatives.ravel(), minlength=g.n_nodes))
    np.testing.assert_allclose(solver.regulariser_factors, np.where(visits > 0, 2 * LAMBDAS["lam_r"] / visits, 0),
                               rtol=1e-12)
    start = solver.embedding.copy()
    drawn = np.asarray(solver.epoch_positives(1))
    assert drawn.shape == edges.shape and not np.array_equal(drawn, edges)
    order = solver.epoch_order(1, positives=drawn).order
    expected = reference.sgd_edge_epoch(start, drawn, negatives, order, solver.learning_rate(1), visits=visits,
                                        **LAMBDAS)
    assert int(solver.run_epoch(1)) == 0
    np.testing.assert_allclose(solver.embedding, expected, rtol=0, atol=1e-12)
    # the graph's edges are still what the solver reports, the draw is what the epoch's records hold
    np.testing.assert_array_equal(solver.positives, edges)
    np.testing.assert_array_equal(solver.pairs[:len(edges)], drawn)


def test_sampled_fit_is_reproducible_and_its_objective_is_the_mean_one_weighted_one():
    g = Graph.from_networkx(_weighted_graph(2))
    kwargs = dict(dim=5, epochs=3, dtype="float64", random_state=11, **LAMBDAS)
    a = LogisticEmbedding(**kwargs).fit(g)
    b = LogisticEmbedding(**kwargs).fit(g)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    w = g.edge_weights()
    expected = reference.logistic_objective(a.embedding_, g.edges(), a.solver_.negatives, weights=w / w.mean(),
                                            **LAMBDAS).objective
    assert a.history_[-1]["objective"] == pytest.approx(expected, rel=1e-10)
    # "scale" keeps every edge once per epoch with the loss weight lam_pos * w
    scaled = LogisticEmbedding(weighting="scale", **{**kwargs, "epochs": 0}).fit(g)
    assert not scaled.solver_.samples_positives
    np.testing.assert_array_equal(scaled.solver_.coefficients[:len(w)], LAMBDAS["lam_pos"] * w)


def test_the_command_line_offers_weighting():
    out = subprocess.run([sys.executable, "-m", "lgekit", "fit", "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert "--weighting" in out and "sample" in out


@pytest.mark.parametrize("weighting", ["sample", "scale"])
def test_hinge_weighting_sets_the_dual_box_of_each_edge(weighting):
    from lgekit import HingeEmbedding

    g = Graph.from_networkx(_weighted_graph(4))
    w = g.edge_weights()
    model = HingeEmbedding(dim=4, epochs=1, lam_r=2.0, weighting=weighting, random_state=0).fit(g)
    csr = model.pair_csr_
    edge_coef = np.sort(csr.coef[csr.sign > 0])
    expected = np.sort(np.repeat(w / w.mean() if weighting == "sample" else w, 2))
    np.testing.assert_allclose(edge_coef, expected, rtol=1e-15)
    np.testing.assert_allclose(csr.upper, csr.coef / 2.0, rtol=1e-15)
    # switching the weighting on a warm start rebuilds the solver instead of keeping the old boxes
    model.set_params(weighting="scale" if weighting == "sample" else "sample", warm_start=True)
    model.fit(g)
    assert not np.allclose(np.sort(model.pair_csr_.coef[model.pair_csr_.sign > 0]), expected)


# ---------------------------------------------------------------------- huge and tiny weights (issue 26, item 4)
def _alias(w):
    w = np.asarray(w, dtype=np.float64)
    prob, alias = np.empty(len(w)), np.empty(len(w), np.int32)
    _sampling.alias_table(w, prob, alias)
    return prob, alias


@pytest.mark.parametrize("weights, expected", [
    ([1e308, 1e308, 1.0, 1.0], [0.5, 0.5, 0.0, 0.0]),
    ([1.7e308, 1.0, 1.7e308], [0.5, 0.0, 0.5]),
    ([1e308, 5e307, 0.0, 2.5e307], [4 / 7, 2 / 7, 0.0, 1 / 7]),
])
def test_alias_table_of_weights_whose_sum_overflows(weights, expected):
    # the sum of these weights is inf in float64: the table used to give the tiny weights the huge ones' share
    with np.errstate(over="raise"):
        prob, alias = _alias(weights)
    np.testing.assert_allclose(_implied_probabilities(prob, alias), expected, rtol=1e-12, atol=1e-300)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=50), st.integers(-1000, 1000))
def test_alias_table_is_invariant_to_scaling_the_weights(weights, k):
    """A power-of-two factor gives the same table bit for bit (the scaling is exact); 1e-300 and 1e300
    give the same probabilities to rounding."""
    w = np.asarray(weights)
    prob, alias = _alias(w)
    scaled = np.ldexp(w, k)
    if np.all(np.isfinite(scaled)) and np.all(scaled >= np.finfo(float).tiny):
        prob2, alias2 = _alias(scaled)
        np.testing.assert_array_equal(prob2, prob)
        np.testing.assert_array_equal(alias2, alias)
    for factor in (1e-300, 1e300):
        np.testing.assert_allclose(_implied_probabilities(*_alias(w * factor)), w / w.sum(), rtol=1e-9)


def _weighted_ring(scale):
    n = 40
    edges = [(i, (i + 1) % n) for i in range(n)] + [(i, (i + 7) % n) for i in range(n)]
    w = np.where(np.arange(len(edges)) % 2 == 0, 1.0, 1e308) * scale
    return Graph.from_edges(edges, weights=w)


@pytest.mark.parametrize("model", ["logistic", "hinge", "logistic-vertex"])
def test_sampled_weights_near_the_float_limit_train_as_the_same_weights_scaled_down(model):
    """Half the weights at 1e308: the model is the one of the same weights times 2**-1000 (bit for bit,
    an exact scaling) and of the weights times 1e-300 (to rounding); it used to train on wrong draws with
    only an overflow warning to show for it."""
    from lgekit import HingeEmbedding

    def fit(scale):
        if model == "hinge":
            est = HingeEmbedding(dim=4, epochs=3, lam_r=1.0, random_state=0, dtype="float64")
        else:
            est = LogisticEmbedding(dim=4, epochs=3, random_state=0, dtype="float64",
                                    **({"order": "vertex", "lr_offset": 100.0} if model == "logistic-vertex" else {}))
        return est.fit(_weighted_ring(scale))

    with np.errstate(over="raise"):
        huge = fit(1.0)
    assert np.all(np.isfinite(huge.embedding_))
    np.testing.assert_array_equal(huge.embedding_, fit(2.0**-1000).embedding_)
    np.testing.assert_allclose(huge.embedding_, fit(1e-300).embedding_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("cls_name", ["LogisticEmbedding", "HingeEmbedding"])
def test_scale_weighting_refuses_weights_whose_sum_overflows(cls_name):
    import lgekit

    cls = getattr(lgekit, cls_name)
    with pytest.raises(ValueError, match=r"weighting='scale': the edge weights \(up to 1e\+308\) sum to more than"):
        cls(dim=4, epochs=1, weighting="scale", random_state=0).fit(_weighted_ring(1.0))
    # the largest weights whose sum is finite are accepted
    g = _weighted_ring(1.0)
    ok = Graph.from_edges(g.edges(), weights=np.minimum(g.edge_weights(), 1e306))
    model = cls(dim=4, epochs=0, weighting="scale", random_state=0).fit(ok)    # epochs=0: the solver is built
    assert model.solver_.weighting == "scale" and model.n_iter_ == 0
