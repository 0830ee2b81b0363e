"""The sampled diagnostics: unbiased estimates whose standard errors mean what they say.

Each check is shown failing on a plausible wrong estimator: one that drops the finite-population
correction, one that samples the front of the population, one that counts a pair's loss at both of its
ends.
"""
import math
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lgekit
from lgekit._validation import InvalidParameterError
from lgekit.experiments.figure2 import SPEC as FIG2
from lgekit.experiments.plan import expand
from lgekit.models import _diagnostic_sample as ds


def _draws(estimator, population, size, rounds, seed=0):
    """(estimates, standard errors, truth) over ``rounds`` independent samples of ``population``."""
    rng = np.random.default_rng(seed)
    out = np.array([estimator(population, size, rng) for _ in range(rounds)])
    return out[:, 0], out[:, 1], population.sum()


def _right(population, size, rng):
    idx = ds.sample_indices(len(population), size / len(population), 0, rng)
    return ds.total_estimate(population[idx], len(population))


def _front_of_population(population, size, rng):     # wrong: not a random sample
    idx = np.sort(rng.choice(len(population) // 2, size=size, replace=False))
    return ds.total_estimate(population[idx], len(population))


def _without_sqrt_k(population, size, rng):           # wrong: the spread of one value, not of the mean
    idx = ds.sample_indices(len(population), size / len(population), 0, rng)
    values = population[idx]
    return len(population) * values.mean(), len(population) * values.std(ddof=1)


def _calibrated(estimates, errors, truth):
    """Unbiased (the estimates' mean within 4 of its standard errors of the truth) and calibrated (the
    stated standard error within 15 % of the estimates' actual spread)."""
    spread = estimates.std(ddof=1)
    unbiased = abs(estimates.mean() - truth) < 4 * spread / math.sqrt(len(estimates))
    return bool(unbiased and 0.85 < np.mean(errors) / spread < 1.15)


# a skewed population, like the pair losses: most small, a few large, sorted (so the front is atypical)
SKEWED = np.sort(np.random.default_rng(1).lognormal(0.0, 1.0, 5000))


def test_the_total_estimate_is_unbiased_and_its_error_calibrated():
    assert _calibrated(*_draws(_right, SKEWED, 400, 600))


@pytest.mark.parametrize("wrong", [_front_of_population, _without_sqrt_k])
def test_the_calibration_check_rejects_a_wrong_estimator(wrong):
    assert not _calibrated(*_draws(wrong, SKEWED, 400, 600))


def test_the_finite_population_correction_matters_for_large_samples():
    # with 90 % of the population sampled, the error without the correction is 3x too large
    rng = np.random.default_rng(3)
    z = []
    for _ in range(400):
        idx = ds.sample_indices(len(SKEWED), 0.9, 0, rng)
        mean, _ = ds.mean_estimate(SKEWED[idx], len(SKEWED))
        se_without = SKEWED[idx].std(ddof=1) / math.sqrt(len(idx))
        z.append((mean - SKEWED.mean()) / se_without)
    assert np.std(z) < 0.5          # the uncorrected error is far too wide
    assert _calibrated(*_draws(_right, SKEWED, 4500, 400))


@settings(max_examples=60, deadline=None)
@given(population=st.integers(1, 3000), fraction=st.floats(0.0, 1.0), minimum=st.integers(0, 400),
       seed=st.integers(0, 2**32 - 1))
def test_a_sample_is_distinct_sorted_and_whole_when_large(population, fraction, minimum, seed):
    idx = ds.sample_indices(population, fraction, minimum, np.random.default_rng(seed))
    assert idx.dtype == np.int64 and np.all(np.diff(idx) > 0)
    assert len(idx) == 0 or (0 <= idx[0] and idx[-1] < population)
    p = min(1.0, max(fraction, minimum / population))
    if p >= 1.0:   # the whole population: the exact total and no error
        assert len(idx) == population
        values = np.arange(population, dtype=float) ** 2
        assert ds.total_estimate(values[idx], population) == (pytest.approx(values.sum()), 0.0)
    else:          # a Bernoulli(p) sample: its size within 6 standard deviations of p N
        sd = math.sqrt(population * p * (1 - p))
        assert abs(len(idx) - p * population) <= 6 * sd + 1


def test_every_index_is_equally_likely():
    # the gaps' sums must not favour the front (a sample of the first indices would pass the size check)
    counts = np.zeros(1000)
    rng = np.random.default_rng(4)
    for _ in range(2000):
        counts[ds.sample_indices(1000, 0.05, 0, rng)] += 1
    expected = 2000 * 0.05
    assert abs(counts[:500].sum() - counts[500:].sum()) < 6 * math.sqrt(1000 * expected)
    assert ((counts - expected) ** 2 / expected).sum() < 1000 + 6 * math.sqrt(2000)    # chi-square, 999 dof


@pytest.mark.parametrize("value, mode", [(True, "sampled"), ("sampled", "sampled"), ("exact", "exact"),
                                         (False, None)])
def test_diagnostics_modes(value, mode):
    assert ds.diagnostics_mode(value) == mode


# ------------------------------------------------------------------------------- on the models
@pytest.fixture(scope="module")
def graph():
    # large enough that the samples are proper samples (more entries and vertices than the floors)
    return lgekit.datasets.planted_partition_graph(n_nodes=3000, n_labels=6, mean_degree=16, seed=2)


def _zs(model, graph, keys, rounds=40):
    """z-scores of ``rounds`` sampled records of one fitted embedding against its exact diagnostics."""
    solver = model.solver_
    exact = solver.diagnostics()
    z = {k: [] for k in keys}
    for epoch in range(100, 100 + rounds):           # every epoch's stream is its own sample
        rec = solver.sampled_diagnostics(epoch)
        for k in keys:
            z[k].append((rec[k] - exact[k]) / rec[k + "_se"])
    return {k: np.array(v) for k, v in z.items()}, exact


def test_logistic_sampled_diagnostics_estimate_the_exact_ones(graph):
    model = lgekit.LogisticEmbedding(dim=16, epochs=3, random_state=0).fit(graph)
    solver = model.solver_
    rec = solver.sampled_diagnostics(7)
    n_pos = len(solver._incidence_lists()[1])
    assert n_pos > ds.PAIR_SAMPLE and graph.n_nodes > ds.MIN_VERTICES     # a real sample
    assert rec == solver.sampled_diagnostics(7)                          # one epoch, one sample
    zs, exact = _zs(model, graph, ("loss_pos", "loss_neg", "mean_grad_norm"))
    for key, z in zs.items():
        assert abs(z.mean()) < 4 / math.sqrt(len(z)) + 0.15, (key, z.mean())
        assert 0.5 < z.std() < 1.5, (key, z.std())
    assert rec["reg"] == pytest.approx(exact["reg"], rel=1e-9)
    assert rec["mean_norm"] == pytest.approx(exact["mean_norm"], rel=1e-9)
    assert rec["objective"] == pytest.approx(rec["loss_pos"] + rec["loss_neg"] + rec["reg"])
    assert rec["objective_se"] == pytest.approx(math.hypot(rec["loss_pos_se"], rec["loss_neg_se"]))
    # the same check rejects a pair's loss counted at both of its ends (the share left out): a 2x bias
    doubled = [(2 * solver.sampled_diagnostics(e)["loss_pos"] - exact["loss_pos"])
               / (2 * solver.sampled_diagnostics(e)["loss_pos_se"]) for e in range(100, 120)]
    assert abs(np.mean(doubled)) > 4 / math.sqrt(20) + 0.15


@pytest.mark.parametrize("weighting", ["sample", "scale"])
def test_logistic_sampled_losses_on_a_weighted_graph(graph, weighting):
    """Weighted edges: each sampled edge's loss carries its objective weight (its weight, or with "sample"
    its weight over their mean, the records then holding each epoch's draw, not the edges): unbiased.
    (Fails with "sample" when the draws are read as the edges, each with an edge's weight.)"""
    edges = graph.edges()
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(edges))
    weighted = lgekit.Graph.from_edges(edges, weights=weights, nodes=graph.n_nodes)
    model = lgekit.LogisticEmbedding(dim=16, epochs=2, random_state=0, weighting=weighting).fit(weighted)
    assert model.solver_.samples_positives == (weighting == "sample")
    zs, _ = _zs(model, weighted, ("loss_pos", "loss_neg"))
    for key, z in zs.items():
        assert abs(z.mean()) < 4 / math.sqrt(len(z)) + 0.15, (key, z.mean())
        assert 0.5 < z.std() < 1.5, (key, z.std())


def test_hinge_sampled_diagnostics_estimate_the_exact_ones(graph):
    model = lgekit.HingeEmbedding(dim=16, epochs=2, random_state=0).fit(graph)
    zs, exact = _zs(model, graph, ("loss_pos", "loss_neg", "objective"))
    for key, z in zs.items():
        assert abs(z.mean()) < 4 / math.sqrt(len(z)) + 0.15, (key, z.mean())
        assert 0.5 < z.std() < 1.5, (key, z.std())
    rec = model.solver_.sampled_diagnostics(3)
    assert rec["duality_gap"] == exact["duality_gap"] and rec["reg"] == pytest.approx(exact["reg"], rel=1e-9)


@pytest.mark.parametrize("monotone", [True, False])
def test_hinge_sampled_certificates_are_those_of_the_sampled_vertices_at_their_visits(graph, monotone):
    """The sampled record's certificates are the exact record's, vertex for vertex, at the sampled vertices
    (the same epoch's visits: the embedding and duals are the same bits in both modes); the wrong version,
    certificates of the embedding after the epoch (``vertex_certificates``), differs from them."""
    from lgekit.models._dcd_solver import _dcd_diagnostics
    kw = dict(dim=8, epochs=1, random_state=3, monotone=monotone)
    exact = lgekit.HingeEmbedding(diagnostics="exact", **kw).fit(graph)
    sampled = lgekit.HingeEmbedding(diagnostics="sampled", **kw).fit(graph)
    for _ in range(2):
        np.testing.assert_array_equal(exact.embedding_, sampled.embedding_)
        v_all, g_all, p_all = exact.solver_._certificates
        v, g, p = sampled.solver_._certificates
        assert len(v_all) == int(exact.solver_._has_pairs.sum()) and 100 <= len(v) < len(v_all) / 4     # a sample
        at = np.searchsorted(v_all, v)
        assert np.array_equal(v_all[at], v) and np.array_equal(g_all[at], g) and np.array_equal(p_all[at], p)
        r, r_all = sampled.history_[-1], exact.history_[-1]
        assert r["duality_gap"] == pytest.approx(g.mean()) and r["duality_gap_se"] > 0 == r_all["duality_gap_se"]
        assert r["max_violation"] == p.max() <= r_all["max_violation"]
        solver = sampled.solver_
        csr, X = solver.pair_csr, np.ascontiguousarray(sampled.embedding_)
        after, _ = _dcd_diagnostics.vertex_certificates(X, csr, np.array(solver.dual_coef), 1)
        assert not np.allclose(after[v], g, rtol=1e-3)
        exact.partial_fit(graph)
        sampled.partial_fit(graph)


def test_hinge_sampled_duality_gap_is_unbiased_and_its_error_calibrated(graph):
    """The record's estimator on one epoch's exact certificates (the population), resampled: unbiased,
    its standard error calibrated; the check rejects the sample's standard deviation as the error."""
    model = lgekit.HingeEmbedding(dim=8, epochs=2, random_state=3, diagnostics="exact").fit(graph)
    population = model.solver_._certificates[1]
    population = population - population.mean() + population.sum() / len(population)

    def right(values, size, rng):
        idx = ds.sample_indices(len(values), ds.VERTEX_FRACTION, ds.MIN_VERTICES, rng)
        mean, se = ds.mean_estimate(values[idx], len(values))
        return mean * len(values), se * len(values)

    def spread_of_one_value(values, size, rng):
        idx = ds.sample_indices(len(values), ds.VERTEX_FRACTION, ds.MIN_VERTICES, rng)
        return values[idx].mean() * len(values), values[idx].std(ddof=1) * len(values)

    assert _calibrated(*_draws(right, population, 0, 500))
    assert not _calibrated(*_draws(spread_of_one_value, population, 0, 500))


@pytest.mark.parametrize("cls, kw", [(lgekit.LogisticEmbedding, {"epochs": 3}),
                                     (lgekit.HingeEmbedding, {"epochs": 2})])
def test_every_mode_trains_the_same_embedding_and_records_its_errors(graph, cls, kw):
    fits = {mode: cls(dim=8, random_state=1, diagnostics=mode, **kw).fit(graph)
            for mode in ("sampled", "exact", False, True)}
    for mode in ("exact", False, True):
        np.testing.assert_array_equal(fits[mode].embedding_, fits["sampled"].embedding_)
    se_keys = {"objective_se", "loss_pos_se", "loss_neg_se"}
    assert all(se_keys <= set(r) and all(r[k] > 0 for k in se_keys) for r in fits["sampled"].history_)
    assert all(all(r[k] == 0.0 for k in se_keys) for r in fits["exact"].history_)
    assert all(not se_keys & set(r) for r in fits[False].history_)
    assert fits[True].history_[-1]["objective"] == fits["sampled"].history_[-1]["objective"]
    # the default is the sampled record
    assert cls(dim=8, random_state=1, **kw).get_params()["diagnostics"] == "sampled"


def test_figure2_asks_for_exact_gradient_norms_and_shares_its_cells():
    plan = expand(["fig1", "fig2", "fig3"], quick=True)
    fig2_keys = {e["key"] for e in plan.figures["fig2"]}
    assert fig2_keys and all(plan.cells[k]["record"].get("exact_diagnostics") for k in fig2_keys)
    # Figures 1 and 3 train the very same runs (one cell each), recorded exactly for Figure 2
    assert fig2_keys == {e["key"] for e in plan.figures["fig1"]} == {e["key"] for e in plan.figures["fig3"]}
    assert FIG2.record.exact_diagnostics
    # a sweep of Figure 1 alone trains the very same cells (their keys do not depend on what else is drawn)
    alone = expand(["fig1"], quick=True)
    assert {e["key"] for e in alone.figures["fig1"]} == fig2_keys
    # Figure 4's other dimensions need no diagnostics for their verdict: sampled
    fig4 = expand(["fig4"], quick=True)
    assert not any(c["record"].get("exact_diagnostics") for c in fig4.cells.values())


# ------------------------------------------------------------------------------- one check of the value (issue 45)
@pytest.mark.parametrize("cls", [lgekit.LogisticEmbedding, lgekit.HingeEmbedding])
@pytest.mark.parametrize("bad, shown", [("full", "'full'"), ("Exact", "'Exact'"), (2.5, "float: 2.5"),
                                        (None, "None")])
def test_a_bad_diagnostics_value_is_refused_by_the_parameter_table(cls, bad, shown):
    with pytest.raises(InvalidParameterError, match=rf"diagnostics must be 'exact', 'sampled', True or False, "
                                                    rf"got {re.escape(shown)}$") as info:
        cls(dim=2, epochs=1, diagnostics=bad).fit(nx.path_graph(5))
    assert info.value.parameter == "diagnostics"


def test_the_table_is_the_only_check_of_diagnostics(monkeypatch):
    # the wrong version this guards against is a second check beside the table: without the table's entry
    # nothing else refuses the value, and diagnostics_mode passes a validated string through unchanged
    table = {k: v for k, v in lgekit.LogisticEmbedding._parameter_constraints.items() if k != "diagnostics"}
    monkeypatch.setattr(lgekit.LogisticEmbedding, "_parameter_constraints", table)
    lgekit.LogisticEmbedding(dim=2, epochs=1, diagnostics="full")._validate_params()
    assert ds.diagnostics_mode("full") == "full"
    assert not hasattr(ds, "DIAGNOSTICS")     # the accepted values are written in lgekit._parameters only
