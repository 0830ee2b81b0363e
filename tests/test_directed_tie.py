"""The tie between a directed graph's two tables and the order of its node biases (issue 34).

``LogisticEmbedding(lam_tie=...)`` adds lam_tie * sum_u ||x'_u - y'_u||^2 (the free coordinates of
node u's source and target vectors) and takes its proximal step after every epoch; a directed graph's
node biases are projected onto an order (c_u = -b_u) after it.  These tests certify the prox by its
optimality conditions, the solver's epochs against ``lgekit.reference`` (float64, 1e-12), the
diagnostics against the reference objective and gradient with the tie added, the defaults
(lam_tie = r / (1 - r), reverse share 0.35 r, r the training arcs' reciprocity) and the exits; each
with the wrong version that must fail.
"""
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import lgekit
from lgekit import LogisticEmbedding, reference
from lgekit.cli import main
from lgekit._validation import InvalidParameterError
from lgekit.models import _two_tables
from lgekit.models._training_data import DIRECTED_REVERSE_SHARE
from test_two_tables import EPOCH_PARAMS, bipartite_graphs, directed_graphs

TIE_PARAMS = {**{k: v for k, v in EPOCH_PARAMS.items() if k != "lam_tie"}, "lam_r": 0.3}
finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


# ----------------------------------------------------------------- reciprocity
@st.composite
def loopless_digraphs(draw):
    n = draw(st.integers(2, 9))
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=30))
    arcs = sorted({(u, v) for u, v in arcs if u != v})
    return n, arcs


@settings(max_examples=60, deadline=None)
@given(loopless_digraphs())
def test_reciprocity_is_networkx_overall_reciprocity(case):
    n, arcs = case
    if not arcs:
        assert lgekit.Graph.from_edges(np.zeros((0, 2), int), directed=True, nodes=n).reciprocity() == 0.0
        return
    g = lgekit.Graph.from_edges(arcs, directed=True, nodes=n)
    assert g.reciprocity() == pytest.approx(nx.overall_reciprocity(nx.DiGraph(arcs)), abs=1e-15)


def test_reciprocity_counts_arcs_not_pairs():
    """The wrong version, reciprocated pairs over all linked pairs, gives 1/2 here, not 2/3."""
    g = lgekit.Graph.from_edges([(0, 1), (1, 0), (1, 2)], directed=True)
    pairs = {frozenset(a) for a in [(0, 1), (1, 0), (1, 2)]}
    assert g.reciprocity() == pytest.approx(2 / 3)
    assert 1 / len(pairs) != pytest.approx(g.reciprocity())


def test_reciprocity_needs_a_directed_graph():
    with pytest.raises(ValueError, match="reciprocity is defined for a directed graph, got an undirected"):
        lgekit.Graph.from_networkx(nx.path_graph(3)).reciprocity()


# ----------------------------------------------------------------- the proximal step
@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, (3, 4), elements=finite), hnp.arrays(np.float64, (3, 4), elements=finite),
       st.floats(0.01, 2.0), st.floats(0.0, 10.0), st.integers(0, 4))
def test_tie_step_satisfies_the_prox_optimality_conditions(X0, Y0, step, lam, free):
    """x - x0 + 2 s lam (x - y) = 0, y - y0 - 2 s lam (x - y) = 0 on the free coordinates; the rest unmoved."""
    X, Y = reference.tie_step(X0, Y0, step, lam, free=free)
    d = X[:, :free] - Y[:, :free]
    np.testing.assert_allclose(X[:, :free] - X0[:, :free] + 2 * step * lam * d, 0, atol=1e-12)
    np.testing.assert_allclose(Y[:, :free] - Y0[:, :free] - 2 * step * lam * d, 0, atol=1e-12)
    np.testing.assert_array_equal(X[:, free:], X0[:, free:])
    np.testing.assert_array_equal(Y[:, free:], Y0[:, free:])


def test_wrong_tie_steps_fail_the_optimality_conditions():
    """A gradient step in place of the prox, and the shrink 1/(1 + 2 s lam), leave a residual."""
    rng = np.random.default_rng(0)
    X0, Y0, s, lam = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), 0.5, 2.0

    def residual(X, Y):
        return np.abs(X - X0 + 2 * s * lam * (X - Y)).max()

    gradient = (X0 - 2 * s * lam * (X0 - Y0), Y0 + 2 * s * lam * (X0 - Y0))
    half_mean, half_diff = (X0 + Y0) / 2, (X0 - Y0) / 2 / (1 + 2 * s * lam)
    assert residual(*gradient) > 0.1
    assert residual(half_mean + half_diff, half_mean - half_diff) > 0.1
    assert residual(*reference.tie_step(X0, Y0, s, lam)) < 1e-12


def test_the_solver_tie_step_is_the_reference():
    g = lgekit.Graph.from_networkx(nx.gnc_graph(12, seed=1))
    model = LogisticEmbedding(epochs=0, random_state=2, lam_tie=0.7, **{**TIE_PARAMS, "node_bias": True}).fit(g)
    solver, ns, D = model.solver_, model.embedding_.shape[0], model.dim
    X, Y = model.embedding_.copy(), model.context_embedding_.copy()
    solver.tie_step(0.3)
    X, Y = reference.tie_step(X, Y, 0.3, 0.7, free=D - 2)
    np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-15)
    np.testing.assert_allclose(model.context_embedding_, Y, rtol=0, atol=1e-15)


# ----------------------------------------------------------------- epochs against the reference
def _reference_epochs(model, epochs, *, tie=True, order=True):
    """(kernel table, reference table) after ``epochs`` epochs from the model's start."""
    solver = model.solver_
    ns, D = model.embedding_.shape[0], model.dim
    Z = np.vstack([model.embedding_, model.context_embedding_]).astype(np.float64)
    pins = None
    if solver.node_bias:
        kappa = _two_tables.BIAS_CONSTANT
        Z[:ns, D - 1] = kappa
        Z[ns:, D - 2] = kappa
        pins = reference.bias_pins(ns, ns, D)
    for t in range(epochs):
        step = solver.learning_rate(t)
        Z = reference.sgd_edge_epoch(Z, solver.positives, solver.negatives, solver.epoch_order(t).order, step,
                                     lam_pos=model.lam_pos, lam_neg=model.lam_neg, lam_r=model.lam_r, pinned=pins,
                                     pin_value=_two_tables.BIAS_CONSTANT if pins is not None else 1.0)
        if tie:
            X, Y = reference.tie_step(Z[:ns], Z[ns:], step, solver.lam_tie, free=D - 2 if pins is not None else D)
            Z = np.vstack([X, Y])
        if order and pins is not None:
            Z = np.vstack(reference.order_biases(Z[:ns], Z[ns:]))
        assert int(solver.run_epoch(t)) == 0
    return np.vstack([model.embedding_, model.context_embedding_]), Z


@settings(max_examples=20, deadline=None)
@given(graph=directed_graphs(), lam_tie=st.sampled_from([None, 0.0, 0.4, 5.0]), bias=st.booleans(),
       share=st.sampled_from([None, 0.0, 0.5]))
def test_kernel_epochs_with_a_tie_equal_the_reference(graph, lam_tie, bias, share):
    model = LogisticEmbedding(epochs=0, random_state=3, lam_tie=lam_tie, reverse_negatives=share,
                              **{**TIE_PARAMS, "node_bias": bias}).fit(graph)
    kernel, ref = _reference_epochs(model, 2)
    np.testing.assert_allclose(kernel, ref, rtol=0, atol=1e-12)
    if bias:   # the biases are an order: c_u = -b_u exactly
        D = model.dim
        np.testing.assert_array_equal(model.context_embedding_[:, D - 1], -model.embedding_[:, D - 2])


@pytest.mark.parametrize("wrong", ["no tie", "no order"])
def test_the_reference_without_a_step_is_not_the_kernel(wrong):
    g = lgekit.Graph.from_networkx(nx.gnc_graph(30, seed=2))
    model = LogisticEmbedding(epochs=0, random_state=1, lam_tie=2.0, **{**TIE_PARAMS, "node_bias": True}).fit(g)
    kernel, ref = _reference_epochs(model, 2, tie=wrong != "no tie", order=wrong != "no order")
    assert np.abs(kernel - ref).max() > 1e-6


def test_vertex_order_takes_the_tie_too():
    g = lgekit.Graph.from_networkx(nx.gnc_graph(20, seed=4))
    model = LogisticEmbedding(epochs=0, random_state=1, lam_tie=1.0, order="vertex", lr=0.05,
                              **{k: v for k, v in TIE_PARAMS.items() if k != "lr"}).fit(g)
    solver, ns = model.solver_, model.embedding_.shape[0]
    Z = np.vstack([model.embedding_, model.context_embedding_]).astype(np.float64)
    X, Y = reference.two_table_sgd_vertex_epoch(Z[:ns], Z[ns:], *_table_pairs(solver, ns), solver.epoch_order(0).order,
                                                solver.learning_rate(0), lam_pos=model.lam_pos, lam_neg=model.lam_neg,
                                                lam_r=model.lam_r)
    X, Y = reference.tie_step(X, Y, solver.learning_rate(0), 1.0)
    assert int(solver.run_epoch(0)) == 0
    np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.context_embedding_, Y, rtol=0, atol=1e-12)


def _table_pairs(solver, ns):
    return [np.asarray(p, np.int64) - np.array([0, ns]) for p in (solver.positives, solver.negatives)]


# ----------------------------------------------------------------- diagnostics
@pytest.mark.parametrize("bias", [False, True])
def test_diagnostics_hold_the_tie(bias):
    """objective = the reference objective + the tie penalty; each row's gradient norm that of the reference
    gradient plus the tie's (the diagnostics without the tie would be off in both)."""
    g = lgekit.Graph.from_networkx(nx.gnc_graph(25, seed=3))
    model = LogisticEmbedding(epochs=2, random_state=0, lam_tie=1.5, diagnostics="exact",
                              **{**TIE_PARAMS, "node_bias": bias}).fit(g)
    solver, ns, D = model.solver_, model.embedding_.shape[0], model.dim
    X, Y = model.embedding_, model.context_embedding_
    pos, neg = _table_pairs(solver, ns)
    free = D - 2 if bias else D
    obj = reference.two_table_logistic_objective(X, Y, pos, neg, lam_pos=model.lam_pos, lam_neg=model.lam_neg,
                                                 lam_r=model.lam_r)
    tie = reference.tie_penalty(X, Y, 1.5, free=free)
    assert tie > 1e-3
    diag = solver.diagnostics(return_arrays=True)
    assert diag["objective"] == pytest.approx(obj.objective + tie, rel=1e-12)
    assert diag["reg"] == pytest.approx(obj.reg + tie, rel=1e-12)
    gx, gy = reference.two_table_logistic_gradient(X, Y, pos, neg, lam_pos=model.lam_pos, lam_neg=model.lam_neg,
                                                   lam_r=model.lam_r)
    gx[:, :free] += 3.0 * (X[:, :free] - Y[:, :free])
    gy[:, :free] -= 3.0 * (X[:, :free] - Y[:, :free])
    expected = np.linalg.norm(np.vstack([gx, gy]), axis=1)
    np.testing.assert_allclose(diag["grad_norm"], expected, rtol=1e-10)
    assert diag["mean_grad_norm"] == pytest.approx(expected.mean(), rel=1e-10)
    # the sampled diagnostics take every vertex of so small a graph: the same figures
    sampled = solver.sampled_diagnostics(0)
    assert sampled["reg"] == pytest.approx(diag["reg"], rel=1e-12)
    assert sampled["mean_grad_norm"] == pytest.approx(diag["mean_grad_norm"], rel=1e-10)
    # and the history records them
    assert model.history_[-1]["objective"] == pytest.approx(diag["objective"], rel=1e-12)


# ----------------------------------------------------------------- defaults and exits
def test_default_tie_is_the_odds_of_reciprocity_of_the_training_arcs():
    g = lgekit.Graph.from_networkx(nx.gnp_random_graph(40, 0.15, seed=1, directed=True))
    split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    r = split.train_graph.reciprocity()
    assert 0.05 < r < 0.5
    assert LogisticEmbedding(dim=4, epochs=0, random_state=0).fit(split).solver_.lam_tie == pytest.approx(r / (1 - r))
    # the full graph's reciprocity is another number: the default reads the arcs the model is trained on
    assert g.reciprocity() != pytest.approx(r)
    assert LogisticEmbedding(dim=4, epochs=0, random_state=0, lam_tie=0.25).fit(split).solver_.lam_tie == 0.25
    assert LogisticEmbedding(dim=4, epochs=0, random_state=0).fit(nx.karate_club_graph()).solver_.lam_tie == 0.0


def test_the_largest_tie_ties_the_tables_without_overflow():
    """lam_tie = 1e12 (the largest accepted): each epoch ends with the two tables' free coordinates equal to
    within rounding, and the records stay finite (4 lr_t lam_tie would overflow much beyond it)."""
    g = lgekit.Graph.from_networkx(nx.gnp_random_graph(30, 0.2, seed=1, directed=True))
    model = LogisticEmbedding(dim=5, epochs=3, random_state=0, lam_tie=1e12, diagnostics="exact").fit(g)
    free = model.dim - 2
    np.testing.assert_allclose(model.embedding_[:, :free], model.context_embedding_[:, :free], atol=1e-6)
    assert all(np.isfinite(r["objective"]) and np.isfinite(r["mean_grad_norm"]) for r in model.history_)


def test_a_fully_reciprocal_graph_gets_a_finite_tie():
    g = lgekit.Graph.from_edges([(0, 1), (1, 0), (1, 2), (2, 1), (2, 0), (0, 2), (2, 3), (3, 2)], directed=True)
    assert g.reciprocity() == 1.0
    model = LogisticEmbedding(dim=4, epochs=3, random_state=0).fit(g)
    r = _two_tables.MAX_TIE_RECIPROCITY
    assert model.solver_.lam_tie == pytest.approx(r / (1 - r))
    assert np.all(np.isfinite(model.embedding_))


def test_default_reverse_share_follows_the_reciprocity():
    """0.35 r reverse pairs per one-way arc's negatives: none on a graph without reciprocated arcs."""
    dag = lgekit.Graph.from_networkx(nx.gnc_graph(80, seed=1))
    assert dag.reciprocity() == 0.0
    assert LogisticEmbedding(dim=4, epochs=0, random_state=0).fit(dag).solver_.training_data().n_reverse == 0
    g = lgekit.Graph.from_networkx(nx.gnp_random_graph(60, 0.2, seed=2, directed=True))
    r = g.reciprocity()
    solver = LogisticEmbedding(dim=4, epochs=0, random_state=0).fit(g).solver_
    one_way = round(g.n_edges * (1 - r))
    expected = DIRECTED_REVERSE_SHARE * r * 4 * one_way          # 4 negatives an arc by default
    # a coin an arc: the count is a sum of one_way Bernoulli draws; 5 standard deviations
    assert abs(solver.training_data().n_reverse - expected) < 5 * np.sqrt(one_way) + 1


@pytest.mark.parametrize("kind", ["undirected", "bipartite"])
def test_a_tie_is_refused_without_a_directed_graph(kind):
    graph = nx.karate_club_graph() if kind == "undirected" else lgekit.Graph.from_biadjacency(np.eye(3) + np.eye(3, k=1))
    with pytest.raises(InvalidParameterError, match="lam_tie > 0 needs a directed graph") as info:
        LogisticEmbedding(dim=4, epochs=1, random_state=0, lam_tie=0.5).fit(graph)
    assert info.value.parameter == "lam_tie"
    LogisticEmbedding(dim=4, epochs=1, random_state=0, lam_tie=0).fit(graph)   # 0 is no tie: accepted


@pytest.mark.parametrize("value", [-0.1, float("nan"), float("inf"), 1e13, "strong"])
def test_lam_tie_must_be_a_non_negative_number_or_none(value):
    with pytest.raises((InvalidParameterError, TypeError, ValueError), match="lam_tie"):
        LogisticEmbedding(lam_tie=value).fit(nx.gnc_graph(20, seed=0, create_using=nx.DiGraph))


@settings(max_examples=10, deadline=None)
@given(graph=bipartite_graphs())
def test_a_bipartite_graphs_biases_stay_free(graph):
    model = LogisticEmbedding(epochs=2, random_state=3, **{**TIE_PARAMS, "node_bias": True}).fit(graph)
    assert not model.solver_.biases_are_an_order and model.solver_.lam_tie == 0.0


def test_lgekit_fit_lam_tie_reaches_the_estimator(tmp_path):
    arcs = nx.gnp_random_graph(40, 0.15, seed=3, directed=True).edges()
    path = tmp_path / "arcs.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in arcs))
    for value, expected in (("0", 0.0), (None, None)):
        out = tmp_path / f"out{value}"
        extra = ["--lam-tie", value] if value is not None else []
        assert main(["fit", str(path), "--directed", "--model", "logistic", "--dim", "6", "--epochs", "2",
                     "--seed", "0", "--out", str(out), *extra]) == 0
        record = json.loads((out / "fit.json").read_text())
        assert record["params"]["lam_tie"] == expected
        # what the default resolved to: the odds of reciprocity of the training arcs (0 when asked for 0)
        assert (record["in_force"]["lam_tie"] == 0.0) == (value == "0") and record["in_force"]["node_bias"]
    source = np.loadtxt(tmp_path / "out0" / "embedding.txt", skiprows=1)[:, 1:]
    context = np.loadtxt(tmp_path / "outNone" / "context_embedding.txt", skiprows=1)[:, 1:]
    assert source.shape[1] == context.shape[1] == 6


# ----------------------------------------------------------------- the kernel
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tie_rows_kernel_is_the_reference_for_any_thread_count(dtype):
    from lgekit.models._sgd_solver import _sgd
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(2 * 37, 6)).astype(dtype)
    share = 1 - 1 / (1 + 4 * 0.3 * 1.7)
    X, Y = reference.tie_step(Z[:37].astype(np.float64), Z[37:].astype(np.float64), 0.3, 1.7, free=4)
    outs = []
    for threads in (1, 2):
        W = Z.copy()
        _sgd.tie_rows(W, 37, 4, share, threads)
        outs.append(W)
        np.testing.assert_allclose(W, np.vstack([X, Y]), rtol=0, atol=1e-12 if dtype == np.float64 else 1e-5)
    np.testing.assert_array_equal(outs[0], outs[1])
    with pytest.raises(ValueError, match="need 2 \\* n_source rows"):
        _sgd.tie_rows(Z, 36, 4, share, 1)
    with pytest.raises(ValueError, match="n_free <= 6"):
        _sgd.tie_rows(Z, 37, 7, share, 1)


def test_exact_diagnostics_with_a_tie_count_their_gradients_in_the_memory_check(monkeypatch):
    """The exact records of a tied fit hold every row's float64 gradient (2 n x D x 8 bytes): the memory check
    names them, and refuses a fit they would push past the memory left (the same fit sampled, or untied,
    passes)."""
    g = lgekit.Graph.from_networkx(nx.gnp_random_graph(300, 0.02, seed=1, directed=True))
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "30M")
    params = dict(dim=5000, epochs=1, random_state=0)      # embedding 600 x 5000 x 4 = 11.4 MiB, gradients 22.9
    with pytest.raises(MemoryError, match=r"22.9 MiB for the exact diagnostics' gradients\) but only 30.0 MiB"):
        LogisticEmbedding(**params, diagnostics="exact").fit(g)
    LogisticEmbedding(**params, diagnostics="sampled").fit(g)
    LogisticEmbedding(**params, diagnostics="exact", lam_tie=0).fit(g)


def test_sampled_diagnostics_with_two_lambdas_and_a_tie_are_the_exact_ones_on_a_small_graph():
    """lam_r_context != lam_r runs the diagnostics kernel once per table (the sampled rows' gradients copied
    per table); on a graph smaller than the vertex sample the sampled records equal the exact ones."""
    g = lgekit.Graph.from_networkx(nx.gnp_random_graph(40, 0.15, seed=6, directed=True))
    model = LogisticEmbedding(dim=6, epochs=2, random_state=0, lam_r=0.2, lam_r_context=0.7, lam_tie=0.9,
                              dtype="float64").fit(g)
    exact, sampled = model.solver_.diagnostics(), model.solver_.sampled_diagnostics(0)
    assert sampled["mean_grad_norm"] == pytest.approx(exact["mean_grad_norm"], rel=1e-12)
    assert sampled["reg"] == pytest.approx(exact["reg"], rel=1e-12)
