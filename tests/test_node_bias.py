"""Node biases on a constant coordinate (``LogisticEmbedding(node_bias=...)``, issue 34).

A directed graph's source vector is x_u = (x'_u, b_u, kappa) and its target vector
y_v = (y'_v, kappa, c_v), so x_u . y_v = x'_u . y'_v + kappa (b_u + c_v).  The kernel holds the
constant coordinates by projection after every update, and a directed graph's biases are projected onto
an order (c_u = -b_u, ``lgekit.reference.order_biases``) after every epoch; these tests certify its epochs
against ``lgekit.reference.sgd_edge_epoch`` with ``pinned`` (float64, to 1e-12), show that a kernel which
forgot the projection (or the reference without it) is caught, and test the parameter's exits.  The tie
(``lam_tie``) is off here (``EPOCH_PARAMS``); ``tests/test_directed_tie.py`` certifies it.
"""
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lgekit
from lgekit import LogisticEmbedding, reference
from lgekit.cli import main
from lgekit._validation import InvalidParameterError
from lgekit.models import _two_tables
from test_two_tables import EPOCH_PARAMS, bipartite_graphs, directed_graphs

BIAS_PARAMS = {**EPOCH_PARAMS, "node_bias": True}


def _reference_epochs(model, epochs, pinned=True):
    """(kernel table, reference table) after ``epochs`` epochs from the model's projected start (a directed
    graph's biases projected onto an order after each)."""
    solver = model.solver_
    ns, D = model.embedding_.shape[0], model.dim
    Z = np.vstack([model.embedding_, model.context_embedding_]).astype(np.float64)
    kappa = _two_tables.BIAS_CONSTANT
    Z[:ns, D - 1] = kappa                 # the start the solver projects onto before its first epoch
    Z[ns:, D - 2] = kappa
    pins = reference.bias_pins(ns, len(Z) - ns, D) if pinned else None
    for t in range(epochs):
        Z = reference.sgd_edge_epoch(Z, solver.positives, solver.negatives, solver.epoch_order(t).order,
                                     solver.learning_rate(t), lam_pos=model.lam_pos, lam_neg=model.lam_neg,
                                     lam_r=model.lam_r, pinned=pins, pin_value=kappa)
        if solver.biases_are_an_order:
            Z = np.vstack(reference.order_biases(Z[:ns], Z[ns:]))
        assert int(solver.run_epoch(t)) == 0
    return np.vstack([model.embedding_, model.context_embedding_]), Z


@settings(max_examples=20, deadline=None)
@given(graph=directed_graphs(), share=st.sampled_from([0.0, 0.5]), schedule=st.sampled_from(["hogwild", "deterministic"]))
def test_kernel_epochs_with_node_biases_equal_the_reference(graph, share, schedule):
    model = LogisticEmbedding(epochs=0, random_state=3, reverse_negatives=share, lam_r=0.3, schedule=schedule,
                              **BIAS_PARAMS).fit(graph)
    kernel, ref = _reference_epochs(model, 2)
    np.testing.assert_allclose(kernel, ref, rtol=0, atol=1e-12)
    ns, D = model.embedding_.shape[0], model.dim
    # the constant coordinates are exactly kappa; the bias coordinates moved
    assert np.all(model.embedding_[:, D - 1] == _two_tables.BIAS_CONSTANT)
    assert np.all(model.context_embedding_[:, D - 2] == _two_tables.BIAS_CONSTANT)
    assert np.any(model.embedding_[:, D - 2] != ref[:ns, D - 2] * 0)


@settings(max_examples=10, deadline=None)
@given(graph=bipartite_graphs())
def test_a_bipartite_graph_takes_node_biases_when_asked(graph):
    assert not LogisticEmbedding(epochs=0, random_state=3, **{**EPOCH_PARAMS, "node_bias": None}).fit(graph).solver_.node_bias
    model = LogisticEmbedding(epochs=0, random_state=3, lam_r=0.3, **BIAS_PARAMS).fit(graph)
    kernel, ref = _reference_epochs(model, 2)
    np.testing.assert_allclose(kernel, ref, rtol=0, atol=1e-12)


def test_the_reference_without_the_projection_is_not_the_kernel():
    """The wrong version: the same epochs with nothing held (a kernel that ignored ``pinned``)."""
    g = lgekit.Graph.from_networkx(nx.gnc_graph(30, seed=2))
    model = LogisticEmbedding(epochs=0, random_state=1, lam_r=0.3, **BIAS_PARAMS).fit(g)
    kernel, unpinned = _reference_epochs(model, 2, pinned=False)
    assert np.abs(kernel - unpinned).max() > 1e-6


def test_reference_pins_hold_and_check_their_input():
    X = np.array([[0.3, 0.1, 1.0], [0.2, -0.1, 1.0], [-0.1, 1.0, 0.4], [0.5, 1.0, 0.2]])
    pins = reference.bias_pins(2, 2, 3)
    Z = reference.sgd_edge_epoch(X, [[0, 2], [1, 3]], [[0, 3]], [2, 0, 1], 0.5, lam_r=0.3, pinned=pins)
    assert Z[0, 2] == Z[1, 2] == Z[2, 1] == Z[3, 1] == 1.0
    free = reference.sgd_edge_epoch(X, [[0, 2], [1, 3]], [[0, 3]], [2, 0, 1], 0.5, lam_r=0.3)
    assert free[0, 2] != 1.0
    with pytest.raises(ValueError, match="pinned must hold one integer coordinate below 3"):
        reference.sgd_edge_epoch(X, [[0, 2]], [], [0], 0.5, pinned=[0, 3, 1, 1])
    with pytest.raises(ValueError, match="D >= 2"):
        reference.bias_pins(2, 2, 1)


def test_default_is_on_for_directed_graphs_only():
    g = lgekit.Graph.from_networkx(nx.gnc_graph(60, seed=1))
    assert LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(g).solver_.node_bias
    assert not LogisticEmbedding(dim=4, epochs=1, random_state=0, node_bias=False).fit(g).solver_.node_bias
    assert not LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(nx.karate_club_graph()).solver_.node_bias
    # the vertex order has no projection: the default leaves the biases off there
    assert not LogisticEmbedding(dim=4, epochs=1, random_state=0, order="vertex", lr_offset=50).fit(g).solver_.node_bias


@pytest.mark.parametrize("graph, params, match", [
    (nx.karate_club_graph(), {}, "needs two tables"),
    (nx.gnc_graph(20, seed=0), {"order": "vertex"}, "needs order='edge'"),
    (nx.gnc_graph(20, seed=0), {"dim": 1}, "needs dim >= 2"),
])
def test_node_bias_true_is_refused_where_it_cannot_work(graph, params, match):
    with pytest.raises(InvalidParameterError, match=match) as info:
        LogisticEmbedding(**{"dim": 4, "epochs": 1, "random_state": 0, **params}, node_bias=True).fit(graph)
    assert info.value.parameter == "node_bias"


class _NoSolver(lgekit.models.SGDSolver):
    """A solver that must not be built: the extras are the estimator's to refuse, at parameter validation."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("the solver was built for parameters the graph cannot take")


@pytest.mark.parametrize("graph, params, match", [
    (nx.karate_club_graph(), {"node_bias": True}, "node_bias=True needs two tables"),
    (nx.gnc_graph(20, seed=0), {"node_bias": True, "order": "vertex"}, "needs order='edge'"),
    (nx.karate_club_graph(), {"lam_tie": 0.5}, "lam_tie > 0 needs a directed graph"),
])
def test_the_extras_are_refused_at_validation_before_any_solver_or_table(graph, params, match, monkeypatch):
    # the wrong version (issue 45): the solver refusing them itself, once its arrays are built and the model
    # already holds a new, undrawn table
    monkeypatch.setattr(LogisticEmbedding, "_solver_class", _NoSolver)
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0, **params)
    with pytest.raises(InvalidParameterError, match=match):
        model.fit(graph)
    assert not hasattr(model, "embedding_")


def test_a_warm_fit_refuses_an_extra_the_fitted_graph_cannot_take(monkeypatch):
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(nx.karate_club_graph())
    before = model.embedding_.copy()
    monkeypatch.setattr(LogisticEmbedding, "_solver_class", _NoSolver)
    model.set_params(node_bias=True)
    with pytest.raises(InvalidParameterError, match="node_bias=True needs two tables"):
        model.partial_fit(nx.karate_club_graph())
    np.testing.assert_array_equal(model.embedding_, before)


def test_node_bias_must_be_a_boolean_or_none():
    with pytest.raises(InvalidParameterError, match="node_bias"):
        LogisticEmbedding(node_bias="yes").fit(nx.gnc_graph(20, seed=0))


def test_biases_learn_the_order_of_a_one_way_graph():
    """On a graph whose arcs all point one way, the biases alone (no free coordinates: dim=2) rank
    held-out arcs above their reverses."""
    g = lgekit.Graph.from_networkx(nx.gnc_graph(300, seed=0))
    split = lgekit.split_edges(g, seed=0)
    model = LogisticEmbedding(dim=2, epochs=20, random_state=0).fit(split)
    ap = lgekit.metrics.direction_average_precision(model.embedding_, split.test_positives,
                                                    context=model.context_embedding_, graph=g)
    assert ap > 0.9


def test_lgekit_fit_directed_trains_the_biases(tmp_path, capsys):
    """``lgekit fit --directed`` uses the default: the context table's constant column is kappa throughout."""
    arcs = nx.gnc_graph(80, seed=4).edges()
    path = tmp_path / "arcs.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in arcs))
    out = tmp_path / "out"
    assert main(["fit", str(path), "--directed", "--model", "logistic", "--dim", "6", "--epochs", "5",
                 "--test-fraction", "0.2", "--seed", "0", "--out", str(out)]) == 0
    assert "test_direction_ap" in capsys.readouterr().out
    context = np.loadtxt(out / "context_embedding.txt", skiprows=1)[:, 1:]
    source = np.loadtxt(out / "embedding.txt", skiprows=1)[:, 1:]
    np.testing.assert_allclose(context[:, -2], _two_tables.BIAS_CONSTANT, rtol=1e-6)
    np.testing.assert_allclose(source[:, -1], _two_tables.BIAS_CONSTANT, rtol=1e-6)
    assert json.loads((out / "fit.json").read_text())["params"]["node_bias"] is None


def test_lgekit_fit_no_node_bias_switches_them_off(tmp_path, capsys):
    """``--no-node-bias`` reaches the estimator as False: the record says so and the context table has no constant
    column (an ignored switch would leave the default, biases on); ``--node-bias`` on an undirected graph is a
    one-line error."""
    arcs = nx.gnc_graph(60, seed=5).edges()
    path = tmp_path / "arcs.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in arcs))
    out = tmp_path / "out"
    assert main(["fit", str(path), "--directed", "--model", "logistic", "--dim", "6", "--epochs", "3",
                 "--no-node-bias", "--out", str(out)]) == 0
    assert json.loads((out / "fit.json").read_text())["params"]["node_bias"] is False
    context = np.loadtxt(out / "context_embedding.txt", skiprows=1)[:, 1:]
    assert not np.allclose(context[:, -2], _two_tables.BIAS_CONSTANT)
    capsys.readouterr()
    assert main(["fit", str(path), "--model", "logistic", "--dim", "6", "--epochs", "3", "--node-bias",
                 "--out", str(tmp_path / "undirected")]) == 2
    err = capsys.readouterr().err
    assert "node_bias=True needs two tables" in err and "Traceback" not in err
