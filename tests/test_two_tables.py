"""Directed and bipartite graphs: two tables (footnote 1 of the paper; Theorem 1's bipartite setting).

The estimators train one stacked table of ``n_source + n_target`` rows on the pairs
``(u, n_source + v)``; these tests certify that this is the two-table method of
``lgekit.reference`` (kernel epochs to 1e-12 in float64, the diagnostics with a separate lambda_r
per table), and test the exits: ``embedding_`` / ``context_embedding_``, ``score_pairs``,
``transform``, ``save``/``load``, ``to_word2vec``, pickling; and that undirected graphs are
untouched.
"""
import ast
import inspect
import json
import pickle
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding, reference
from lgekit._validation import InvalidParameterError
from lgekit.models import TableLayout
from lgekit.models._model_file import CONTEXT_PREFIX

# node_bias=False, lam_tie=0: these certify the plain two-table epoch (tests/test_node_bias.py certifies the
# biases, tests/test_directed_tie.py the tie)
EPOCH_PARAMS = dict(dim=4, dtype="float64", lam_neg=0.4, lr=0.5, lr_offset=2.0, init_scale=0.4, node_bias=False,
                    lam_tie=0.0)


# ----------------------------------------------------------------- graphs
@st.composite
def directed_graphs(draw, min_nodes=4, max_nodes=9):
    """A directed graph whose every node is in an arc (a directed path), plus random arcs (either way)."""
    n = draw(st.integers(min_nodes, max_nodes))
    arcs = {(i, i + 1) for i in range(n - 1)}
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    arcs |= {(u, v) for u, v in extra if u != v}
    return lgekit.Graph.from_edges(sorted(arcs), directed=True, nodes=n)


@st.composite
def bipartite_graphs(draw):
    """A bipartite graph (every node with an edge, at least one left-right non-edge), ids overlapping
    between the sides."""
    n_left, n_right = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    B = np.zeros((n_left, n_right))
    for i in range(max(n_left, n_right)):        # every node in an edge
        B[i % n_left, i % n_right] = 1
    extra = draw(st.lists(st.tuples(st.integers(0, n_left - 1), st.integers(0, n_right - 1)), max_size=8))
    for i, j in extra:
        B[i, j] = 1
    assume(not B.all())     # the negatives need a left-right non-edge
    return lgekit.Graph.from_biadjacency(B)


def _two_table_pairs(pairs, n_source):
    """Stacked rows (u, n_source + v) back to table rows (u, v)."""
    pairs = np.asarray(pairs, dtype=np.int64)
    assert np.all(pairs[:, 0] < n_source) and np.all(pairs[:, 1] >= n_source)
    return pairs - np.array([0, n_source])


def _check_epochs_against_reference(graph, epochs=2, **params):
    model = LogisticEmbedding(epochs=0, random_state=3, **{**EPOCH_PARAMS, **params}).fit(graph)
    solver = model.solver_
    ns = model.embedding_.shape[0]
    X, Y = model.embedding_.copy(), model.context_embedding_.copy()
    pos = _two_table_pairs(solver.positives, ns)
    neg = _two_table_pairs(solver.negatives, ns)
    # the stacked positives are the graph's edges, (source, target) / (left, right within its side)
    layout = TableLayout.of(graph)
    expected = graph.edges() - np.array([0, layout.target_offset])
    np.testing.assert_array_equal(pos, expected)
    lam_r = model.lam_r
    lam_r_context = model.lam_r if model.lam_r_context is None else model.lam_r_context
    for t in range(epochs):
        order = solver.epoch_order(t).order
        X, Y = reference.two_table_sgd_edge_epoch(X, Y, pos, neg, order, solver.learning_rate(t),
                                                  weights=solver.positive_weights, lam_pos=model.lam_pos,
                                                  lam_neg=model.lam_neg, lam_r=lam_r, lam_r_context=lam_r_context)
        assert int(solver.run_epoch(t)) == 0
    assert not np.allclose(X, model.embedding_ * 0)     # the epochs moved the vectors
    np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.context_embedding_, Y, rtol=0, atol=1e-12)
    return model


# ----------------------------------------------------------------- kernel = reference
@settings(max_examples=25)
@given(graph=directed_graphs(), lams=st.sampled_from([(0.0, None), (0.3, None), (0.3, 1.1), (0.0, 0.8)]))
def test_directed_kernel_epochs_equal_the_two_table_reference(graph, lams):
    _check_epochs_against_reference(graph, lam_r=lams[0], lam_r_context=lams[1])


@settings(max_examples=25)
@given(graph=bipartite_graphs(), lams=st.sampled_from([(0.3, None), (0.3, 1.1), (0.9, 0.0)]))
def test_bipartite_kernel_epochs_equal_the_two_table_reference(graph, lams):
    model = _check_epochs_against_reference(graph, lam_r=lams[0], lam_r_context=lams[1])
    assert model.embedding_.shape[0] == graph.n_left and model.context_embedding_.shape[0] == graph.n_right


def test_deterministic_schedule_equals_the_reference_too():
    g = lgekit.Graph.from_edges(
        [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (4, 1), (3, 4), (2, 4)], directed=True)
    _check_epochs_against_reference(g, epochs=3, schedule="deterministic", lam_r=0.2, lam_r_context=0.7)


def test_per_table_regulariser_factors_and_diagnostics_match_the_reference():
    g = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 0), (2, 3), (3, 1), (4, 0), (1, 4)], directed=True)
    model = LogisticEmbedding(epochs=2, random_state=1, lam_r=0.25, lam_r_context=0.9, **EPOCH_PARAMS).fit(g)
    solver, ns = model.solver_, g.n_nodes
    counts = solver.pair_counts
    expected = np.where(counts > 0, 2 * np.r_[np.full(ns, 0.25), np.full(ns, 0.9)] / np.maximum(counts, 1), 0)
    np.testing.assert_allclose(solver.regulariser_factors, expected, rtol=1e-15)
    pos, neg = _two_table_pairs(solver.positives, ns), _two_table_pairs(solver.negatives, ns)
    X, Y = model.embedding_, model.context_embedding_
    kw = dict(lam_pos=model.lam_pos, lam_neg=model.lam_neg, lam_r=0.25, lam_r_context=0.9)
    obj = reference.two_table_logistic_objective(X, Y, pos, neg, **kw)
    gX, gY = reference.two_table_logistic_gradient(X, Y, pos, neg, **kw)
    diag = solver.diagnostics(return_arrays=True)
    for key in ("objective", "loss_pos", "loss_neg", "reg"):
        assert diag[key] == pytest.approx(getattr(obj, key), rel=1e-12, abs=1e-14)
        assert model.history_[-1][key] == pytest.approx(getattr(obj, key), rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(diag["grad"], np.vstack([gX, gY]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(diag["grad_norm"], np.linalg.norm(np.vstack([gX, gY]), axis=1), rtol=1e-12)


def test_stacked_reference_is_the_two_table_reference_with_one_lambda():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    pairs = np.array([[0, 1], [1, 4], [3, 0], [2, 2], [0, 3], [3, 3]])
    Z, stacked = reference.stack_tables(X, Y, pairs)
    order = rng.permutation(6)
    X1, Y1 = reference.two_table_sgd_edge_epoch(X, Y, pairs[:4], pairs[4:], order, 0.2, lam_r=0.4)
    Z1 = reference.sgd_edge_epoch(Z, stacked[:4], stacked[4:], order, 0.2, lam_r=0.4)
    np.testing.assert_allclose(np.vstack([X1, Y1]), Z1, rtol=0, atol=1e-15)


# ----------------------------------------------------------------- the estimators' exits
@pytest.fixture(scope="module")
def directed():
    return lgekit.Graph.from_edges([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "b"), ("e", "a"),
                                    ("b", "e"), ("d", "e")], directed=True)


@pytest.fixture(scope="module")
def bipartite():
    # left ids and right ids overlap: 1 is a left node and a right node
    return lgekit.Graph.from_edges([(1, 1), (1, 2), (2, 2), (3, 1), (3, 3), (2, 4), (4, 4)], bipartite=True)


@pytest.mark.parametrize("cls", [LogisticEmbedding, HingeEmbedding])
def test_directed_model_has_two_views_of_one_table_and_asymmetric_scores(directed, cls):
    model = cls(dim=6, epochs=3, lam_r=0.5, random_state=0).fit(directed)
    assert model.graph_kind_ == "directed"
    assert model.embedding_.shape == model.context_embedding_.shape == (5, 6)
    table = model.solver_.embedding
    assert table.shape == (10, 6)
    assert np.shares_memory(model.embedding_, table) and np.shares_memory(model.context_embedding_, table)
    assert list(model.node_ids_) == list(model.context_node_ids_) == ["a", "b", "c", "d", "e"]
    s = model.score_pairs([["a", "b"], ["b", "a"]])
    x, y = model.embedding_, model.context_embedding_
    np.testing.assert_allclose(s, [x[0] @ y[1], x[1] @ y[0]], rtol=1e-6)
    assert s[0] != s[1]
    np.testing.assert_array_equal(model.score_pairs([[0, 1]], index=True), s[:1])
    np.testing.assert_array_equal(model.transform(["c"]), x[[2]])
    np.testing.assert_array_equal(model.transform(["c"], context=True), y[[2]])
    np.testing.assert_array_equal(model.transform(directed), x)
    np.testing.assert_array_equal(model.transform(directed, context=True), y)


def test_bipartite_model_scores_left_ids_against_right_ids(bipartite):
    model = LogisticEmbedding(dim=4, epochs=3, lam_r=0.2, random_state=0).fit(bipartite)
    assert model.graph_kind_ == "bipartite"
    assert model.embedding_.shape == (4, 4) and model.context_embedding_.shape == (4, 4)
    left, right = list(bipartite.left_ids), list(bipartite.right_ids)
    assert list(model.node_ids_) == left and list(model.context_node_ids_) == right
    # (left 1, right 1) and (left 1, right 2): each id looked up on its own side
    s = model.score_pairs([[1, 1], [1, 2]])
    x, y = model.embedding_, model.context_embedding_
    np.testing.assert_allclose(s, [x[left.index(1)] @ y[right.index(1)], x[left.index(1)] @ y[right.index(2)]],
                               rtol=1e-6)
    assert model.transform(bipartite).shape == (4, 4)
    np.testing.assert_array_equal(model.transform(bipartite, context=True), y)
    split = lgekit.split_edges(bipartite, test_fraction=0.3, seed=0)
    assert 0.0 <= LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(split).score(split) <= 1.0


def test_undirected_model_has_no_context_table():
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(nx.karate_club_graph())
    assert not hasattr(model, "context_embedding_") and not hasattr(model, "context_node_ids_")
    assert model.graph_kind_ == "undirected"
    with pytest.raises(ValueError, match="context=True: .* undirected graph"):
        model.transform([0], context=True)


@pytest.mark.parametrize("cls,params", [(LogisticEmbedding, dict(lam_r=0.3)),
                                        (LogisticEmbedding, dict(lam_r=0.3, order="vertex", lr_offset=500.0)),
                                        (HingeEmbedding, dict(lam_r=1.0))])
def test_undirected_graphs_train_bit_identically_whatever_the_two_table_options(cls, params):
    g = nx.les_miserables_graph()
    base = cls(dim=8, epochs=3, random_state=4, **params).fit(g)
    # the same graph built explicitly undirected, and a lam_r_context (ignored: one table) set
    explicit = lgekit.Graph.from_networkx(g, directed=False)
    assert explicit.kind == "undirected"
    other = cls(dim=8, epochs=3, random_state=4, lam_r_context=params["lam_r"], **params).fit(explicit)
    np.testing.assert_array_equal(base.embedding_, other.embedding_)
    assert [r["objective"] for r in base.history_] == [r["objective"] for r in other.history_]
    assert not hasattr(other, "context_embedding_")
    if cls is LogisticEmbedding:
        lonely = cls(dim=8, epochs=3, random_state=4, lam_r_context=5.0, **params).fit(explicit)
        np.testing.assert_array_equal(base.embedding_, lonely.embedding_)


# ----------------------------------------------------------------- parameters
@pytest.mark.parametrize("kind", ["directed", "bipartite"])
def test_hinge_gives_each_table_its_own_lambda(kind, directed):
    # Eq. 3 with lam_r/2 ||x||^2 on the source table and lam_r_context/2 ||y||^2 on the target one: a
    # vertex's block SVM (Eq. 4) has the box [0, c / lambda] of its own table; the epochs are the
    # reference's DCD epochs on that pair CSR
    from lgekit.models._dcd_solver import MONOTONE_PASSES

    graph = directed if kind == "directed" else lgekit.Graph.from_edges(
        [(0, "a"), (0, "b"), (1, "a"), (2, "c"), (3, "b"), (3, "c"), (1, "d")], bipartite=True)
    kw = dict(dim=4, lam_r=0.5, lam_r_context=2.0, lam_neg=0.4, dtype="float64", random_state=3)
    start = HingeEmbedding(epochs=0, **kw).fit(graph).solver_.embedding.copy()
    model = HingeEmbedding(epochs=3, **kw).fit(graph)
    solver = model.solver_
    csr, n_source = solver.pair_csr, len(model.embedding_)
    owner = np.repeat(np.arange(len(csr.indptr) - 1), np.diff(csr.indptr))
    np.testing.assert_array_equal(csr.upper, csr.coef / np.where(owner < n_source, 0.5, 2.0))
    X, alpha = start, np.zeros(len(csr.nbr))
    for t in range(3):
        X, alpha, _, _ = reference.dcd_epoch(X, alpha, csr, solver.epoch_order(t).order,
                                             reference.listed_coordinate_orders(csr), inner_passes=1,
                                             tol=model.tol, monotone_passes=MONOTONE_PASSES)
    np.testing.assert_allclose(solver.embedding, X, rtol=0, atol=1e-10)
    x, y = model.embedding_, model.context_embedding_
    assert model.history_[-1]["reg"] == pytest.approx(0.25 * np.sum(x * x) + 1.0 * np.sum(y * y), rel=1e-12)
    with pytest.raises(InvalidParameterError, match="lam_r_context must be a finite number > 0 or None"):
        HingeEmbedding(dim=4, epochs=1, lam_r=1.0, lam_r_context=0.0).fit(graph)


def test_two_table_options_are_accepted_and_bad_values_name_the_parameter(directed):
    # the former refusals (issue 24): both now train; tests/test_directed_negatives.py certifies them
    LogisticEmbedding(dim=4, epochs=1, negatives="resample", random_state=0).fit(directed)
    LogisticEmbedding(dim=4, epochs=1, lam_r=0.1, lam_r_context=0.2, order="vertex", lr_offset=500.0,
                      random_state=0).fit(directed)
    with pytest.raises(InvalidParameterError, match="lam_r_context"):
        LogisticEmbedding(lam_r_context=-1.0).fit(directed)


def test_vertex_order_trains_a_directed_graph(directed):
    model = LogisticEmbedding(dim=4, epochs=2, order="vertex", lr_offset=500.0, lam_r=0.1,
                              random_state=0).fit(directed)
    assert np.isfinite(model.history_[-1]["objective"])


def test_continuing_on_a_graph_of_another_kind_is_refused(directed):
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(directed)
    undirected = lgekit.Graph.from_edges(directed.edges(), nodes=5)
    with pytest.raises(ValueError, match="is a undirected graph but the model was fitted on a directed graph"):
        model.partial_fit(undirected)


# ----------------------------------------------------------------- files and pickles
@pytest.mark.parametrize("cls", [LogisticEmbedding, HingeEmbedding])
@pytest.mark.parametrize("which", ["directed", "bipartite"])
def test_save_load_round_trips_both_tables_and_continues_training(tmp_path, cls, which, request):
    graph = request.getfixturevalue(which)
    split = lgekit.split_edges(graph, test_fraction=0.25, seed=1)
    lam = dict(lam_r=0.6, lam_r_context=0.3) if cls is LogisticEmbedding else dict(lam_r=0.6)
    model = cls(dim=4, epochs=2, random_state=2, dtype="float64", **lam).fit(split)
    path = model.save(tmp_path / "m.npz")
    loaded = cls.load(path)
    assert loaded.graph_kind_ == which
    np.testing.assert_array_equal(loaded.embedding_, model.embedding_)
    np.testing.assert_array_equal(loaded.context_embedding_, model.context_embedding_)
    assert list(loaded.context_node_ids_) == list(model.context_node_ids_)
    pair = [[model.node_ids_[0], model.context_node_ids_[-1]]]
    np.testing.assert_array_equal(loaded.score_pairs(pair), model.score_pairs(pair))
    # continuing the loaded model equals the longer fit
    loaded.partial_fit(split, epochs=1)
    longer = cls(dim=4, epochs=3, random_state=2, dtype="float64", **lam).fit(split)
    np.testing.assert_allclose(loaded.embedding_, longer.embedding_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(loaded.context_embedding_, longer.context_embedding_, rtol=0, atol=1e-12)


def test_object_ids_of_both_sides_round_trip(tmp_path):
    g = lgekit.Graph.from_edges([((1, "a"), 1), ((1, "a"), "1"), (2.5, "1")], bipartite=True)
    model = LogisticEmbedding(dim=3, epochs=1, random_state=0).fit(g)
    loaded = LogisticEmbedding.load(model.save(tmp_path / "o.npz"))
    assert loaded.node_ids_.tolist() == model.node_ids_.tolist()
    assert loaded.context_node_ids_.tolist() == model.context_node_ids_.tolist()
    np.testing.assert_array_equal(loaded.score_pairs([[(1, "a"), "1"]]), model.score_pairs([[(1, "a"), "1"]]))


def test_a_format_2_file_still_loads_as_an_undirected_model(tmp_path):
    model = LogisticEmbedding(dim=3, epochs=1, random_state=0).fit(nx.karate_club_graph())
    path = model.save(tmp_path / "new.npz")
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"]))
    # a one-table model is still written as format 2, without a kind: older lgekits read it
    assert meta["format_version"] == 2 and "graph_kind" not in meta
    old = tmp_path / "old.npz"
    loaded = LogisticEmbedding.load(path)
    assert loaded.graph_kind_ == "undirected" and not hasattr(loaded, "context_embedding_")
    np.testing.assert_array_equal(loaded.embedding_, model.embedding_)
    # a format 2 file cannot claim a kind
    meta["graph_kind"] = "directed"
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(old, **arrays)
    with pytest.raises(ValueError, match="'graph_kind' must be 'undirected' in a format 2 file"):
        LogisticEmbedding.load(old)
    # a two-table model is format 3, with its kind
    directed = LogisticEmbedding(dim=3, epochs=1, random_state=0).fit(
        lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 0)], directed=True))
    with np.load(directed.save(tmp_path / "d.npz")) as f:
        meta = json.loads(str(f["meta"]))
    assert meta["format_version"] == 3 and meta["graph_kind"] == "directed"


def test_a_two_table_file_without_its_second_table_is_refused(tmp_path, directed):
    path = LogisticEmbedding(dim=3, epochs=1, random_state=0).fit(directed).save(tmp_path / "d.npz")
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "context_embedding"}
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="must have the second table"):
        LogisticEmbedding.load(tmp_path / "bad.npz")


def test_to_word2vec_writes_both_tables(tmp_path, bipartite):
    model = LogisticEmbedding(dim=3, epochs=1, random_state=0, dtype="float64").fit(bipartite)
    model.to_word2vec(tmp_path / "v.txt")
    lines = (tmp_path / "v.txt").read_text().splitlines()
    assert lines[0] == "8 3"
    names = [line.split()[0] for line in lines[1:]]
    assert names == [str(i) for i in bipartite.left_ids] + [f"context:{i}" for i in bipartite.right_ids]
    vectors = {line.split()[0]: np.array(line.split()[1:], float) for line in lines[1:]}
    assert vectors["1"] @ vectors["context:2"] == pytest.approx(model.score_pairs([[1, 2]])[0], rel=1e-12)
    model.to_word2vec(tmp_path / "v.bin", binary=True, context_prefix="in/")
    assert b"in/4 " in (tmp_path / "v.bin").read_bytes()
    with pytest.raises(ValueError, match="context_prefix must be a non-empty string"):
        model.to_word2vec(tmp_path / "x.txt", context_prefix="")


def string_literals(source, value):
    """The lines of Python ``source`` whose code (not a docstring) holds the string ``value`` (in an f-string too)."""
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return sorted(node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == value
                  and id(node) not in docstrings)


def test_the_context_prefix_is_written_once():
    # the writer (to_word2vec, word2vec_names, to_gensim) and `lgekit evaluate`'s reader share one constant
    root = Path(lgekit.__file__).resolve().parent
    written = {path.relative_to(root).as_posix(): string_literals(path.read_text(), "context:")
               for path in root.rglob("*.py")}
    assert {path: lines for path, lines in written.items() if lines} == {
        "models/_model_file.py": [string_literals((root / "models/_model_file.py").read_text(), "context:")[0]]}
    assert inspect.signature(LogisticEmbedding.to_word2vec).parameters["context_prefix"].default == CONTEXT_PREFIX


def test_a_second_context_prefix_is_caught():
    wrong = 'def to_word2vec(self, path, *, context_prefix="context:"):\n    """Names rows "context:ID"."""\n'
    assert string_literals(wrong, "context:") == [1]
    assert string_literals('CONTEXT_PREFIX = "context:"\nx = f"{CONTEXT_PREFIX}ID"\n', "context:") == [1]
    assert string_literals('names = [f"context:{i}" for i in ids]\n', "context:") == [1]


def test_pickled_model_keeps_its_views_bound_to_the_trained_table(directed):
    split = lgekit.split_edges(directed, test_fraction=0.25, seed=0)
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(split)
    copy = pickle.loads(pickle.dumps(model))
    assert np.shares_memory(copy.embedding_, copy._table) and np.shares_memory(copy.context_embedding_, copy._table)
    # a pickle keeps what save() keeps, not the solver (issue #35): the copy rebuilds it on partial_fit
    assert "solver_" not in copy.__dict__
    copy.partial_fit(split, epochs=1)       # (a split: its negatives are fixed, the copy trains on the same)
    assert np.shares_memory(copy.embedding_, copy.solver_.embedding)
    assert np.shares_memory(copy.context_embedding_, copy.solver_.embedding)
    model.partial_fit(split, epochs=1)
    assert not np.shares_memory(copy.embedding_, model.embedding_)
    np.testing.assert_array_equal(copy.context_embedding_, model.context_embedding_)


# ----------------------------------------------------------------- email-Eu-core
def _direction_ap(model, arcs, full):
    """AP of held-out arcs (u, v) without a reciprocal arc, scored against their reverses (v, u)."""
    from lgekit.metrics import average_precision_from_scores

    lone = arcs[~full.has_edges(arcs[:, ::-1])]
    ids = np.asarray(full.node_ids)
    pos = model.score_pairs(ids[lone].tolist())
    neg = model.score_pairs(ids[lone[:, ::-1]].tolist())
    return average_precision_from_scores(pos, neg), len(lone)


def test_directed_model_on_email_eu_core(data_dir):
    graph = lgekit.datasets.load("email-eu-core", directed=True)
    assert graph.kind == "directed" and graph.n_edges > 20000
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    assert split.train_graph.kind == "directed"
    n = graph.n_nodes
    # no training negative is a training arc in its own direction (held-out arcs may be: the split does not
    # tell the model which pairs it holds out)
    assert not split.train_graph.has_edges(split.train_negatives).any()
    model = LogisticEmbedding(dim=32, epochs=12, lam_r=0.3, random_state=0).fit(split)
    pos, neg = model.solver_.positives.astype(np.int64), model.solver_.negatives.astype(np.int64)
    # in the stacked table a negative (v, u) -- a reversed arc of a non-reciprocal u -> v is one -- is the row
    # pair (v, n + u), never the positive (u, n + v): no training pair is both
    key = lambda p: p[:, 0] * 2 * n + p[:, 1]   # noqa: E731
    assert not np.isin(key(neg), key(pos)).any()
    # ... whereas one table would see some of them as the positives' own pairs (the old contradiction)
    unordered = lambda p: np.minimum(p[:, 0], p[:, 1]) * n + np.maximum(p[:, 0], p[:, 1])   # noqa: E731
    tables = pos - np.array([0, n]), neg - np.array([0, n])
    assert np.isin(unordered(tables[1]), unordered(tables[0])).any()
    history = model.history_
    assert all(np.isfinite(r["objective"]) for r in history) and history[-1]["objective"] < history[0]["objective"]
    assert model.score(split) > 0.5          # random: 1 / (1 + 4) = 0.2
    ap, k = _direction_ap(model, np.asarray(split.test_positives), graph)
    assert k > 100
    # one table scores (u, v) and (v, u) alike (AP 0.5, all ties); this fit: 0.617 on 1,431 arcs
    assert ap > 0.55


def test_callbacks_score_and_restore_both_tables_of_a_directed_model():
    # the link-prediction callback ranks x_u . y_v (not x_u . x_v), and early stopping puts back both tables
    from lgekit.callbacks import EarlyStopping, LinkPredictionCallback

    rng = np.random.default_rng(3)
    arcs = {(int(u), int(v)) for u, v in rng.integers(0, 40, size=(260, 2)) if u != v}
    graph = lgekit.Graph.from_edges(sorted(arcs), directed=True)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=1)
    model = lgekit.LogisticEmbedding(dim=6, epochs=12, lam_r=0.1, random_state=0)
    stop = EarlyStopping("test_ap", patience=100, restore_best=True)
    model.fit(split, callbacks=[LinkPredictionCallback(split), stop])
    best = model.history_[stop.best_epoch_]["test_ap"]
    assert model.score(split) == pytest.approx(best, abs=1e-12)
    for rec in model.history_:
        assert 0.0 <= rec["test_ap"] <= 1.0


def test_link_prediction_callback_on_a_bipartite_split_is_the_models_score():
    from lgekit.callbacks import LinkPredictionCallback

    rng = np.random.default_rng(5)
    edges = {(int(u), int(v)) for u, v in zip(rng.integers(0, 30, 200), rng.integers(0, 12, 200))}
    graph = lgekit.Graph.from_edges(sorted(edges), bipartite=True)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=2)
    model = LogisticEmbedding(dim=5, epochs=3, random_state=0).fit(split, callbacks=[LinkPredictionCallback(split)])
    assert model.history_[-1]["test_ap"] == pytest.approx(model.score(split), abs=1e-12)
