"""LogisticEmbedding as an estimator: parameters, data forms, reproducibility, persistence, errors."""
import json

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import lgekit
from lgekit import LogisticEmbedding
from lgekit.models import BaseEmbedding, DivergenceError
from lgekit.models._machine import available_cores


@pytest.fixture(scope="module")
def graph():
    rng = np.random.default_rng(0)
    n = 60
    edges = rng.integers(0, n, size=(300, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    return lgekit.Graph.from_edges(edges, nodes=n)


@pytest.fixture(scope="module")
def split(graph):
    return lgekit.split_edges(graph, test_fraction=0.2, seed=0)


def small(**kw):
    kw.setdefault("dim", 8)
    kw.setdefault("epochs", 3)
    kw.setdefault("random_state", 0)
    return LogisticEmbedding(**kw)


# ----------------------------------------------------------------- estimator protocol
def test_init_only_stores_and_clone_roundtrip():
    model = LogisticEmbedding(dim=7, lam_r=0.5, order="vertex", random_state=3)
    params = model.get_params()
    assert params["dim"] == 7 and params["lam_r"] == 0.5 and params["order"] == "vertex"
    twin = clone(model)
    assert twin is not model and twin.get_params() == params
    twin.set_params(lam_r=1.5, epochs=2)
    assert twin.lam_r == 1.5 and model.lam_r == 0.5
    # __init__ does not validate (scikit-learn rule): a bad value is only rejected at fit
    LogisticEmbedding(dim=-1)
    assert not hasattr(model, "embedding_")


def test_defaults_match_the_paper_but_regularise():
    # the paper's D, lambda_+, lambda_- and initial scale; lam_r = 0.3 from benchmarks/bench_defaults.py
    p = LogisticEmbedding().get_params()
    assert (p["dim"], p["lam_pos"], p["lam_neg"], p["lam_r"], p["lr"], p["lr_offset"], p["init_scale"]) == (
        100, 1.0, 0.03, 0.3, 1.0, 1.0, 0.1)
    assert (p["order"], p["negatives"], p["dtype"], p["n_threads"], p["schedule"]) == (
        "edge", "fixed", "float32", 1, "hogwild")  # hogwild: the paper's uniform pair order


def test_fit_attributes_and_history(split):
    model = small(lam_r=0.2).fit(split)
    assert model.embedding_.shape == (split.graph.n_nodes, 8)
    assert model.embedding_.dtype == np.float32 and model.embedding_.flags.c_contiguous
    assert model.n_iter_ == 3 and [r["epoch"] for r in model.history_] == [0, 1, 2]
    for r in model.history_:
        assert r["diverged"] is False
        assert r["objective"] == pytest.approx(r["loss_pos"] + r["loss_neg"] + r["reg"], rel=1e-12)
        assert r["seconds"] >= 0 and r["mean_norm"] > 0 and r["mean_grad_norm"] > 0
    # SGD with a decaying step decreases this objective on a small graph
    assert model.history_[-1]["objective"] < model.history_[0]["objective"]


def test_init_uniform_in_scale(graph):
    model = small(epochs=0, init_scale=0.25, dim=50).fit(graph)
    emb = model.embedding_
    assert np.abs(emb).max() <= 0.25
    # uniform on [-a, a]: mean 0, variance a^2 / 3; 3000 draws -> std error of the variance ~ 0.25^2 * 0.016
    assert emb.mean() == pytest.approx(0.0, abs=4 * 0.25 / np.sqrt(3 * emb.size))
    assert emb.var() == pytest.approx(0.25 ** 2 / 3, rel=0.08)
    assert model.history_ == [] and model.n_iter_ == 0


def test_same_seed_same_model_other_seed_other_model(graph):
    a = small(random_state=5).fit(graph).embedding_
    b = small(random_state=5).fit(graph).embedding_
    c = small(random_state=6).fit(graph).embedding_
    assert np.array_equal(a, b)
    assert not np.allclose(a, c)


def test_generator_random_state(graph):
    a = small(random_state=np.random.default_rng(1)).fit(graph).embedding_
    b = small(random_state=np.random.default_rng(1)).fit(graph).embedding_
    assert np.array_equal(a, b)


def test_data_forms_agree(graph):
    """A Graph, its networkx graph and its scipy matrix give the same model (same seed)."""
    base = small().fit(graph).embedding_
    from_nx = small().fit(graph.to_networkx()).embedding_
    from_sp = small().fit(graph.to_scipy()).embedding_
    assert np.array_equal(base, from_nx)
    assert np.array_equal(base, from_sp)


def test_graph_fit_draws_four_negatives_per_edge(graph):
    model = small(epochs=1).fit(graph)
    negatives = model.solver_.negatives
    assert len(negatives) == 4 * graph.n_edges and model.solver_.n_positives == graph.n_edges
    assert not np.any(graph.has_edges(negatives))


def test_split_fit_uses_training_pairs(split):
    model = small(epochs=1).fit(split)
    assert np.array_equal(model.solver_.positives, split.train_positives)
    assert np.array_equal(model.solver_.negatives, split.train_negatives)
    data = model.solver_.training_data()
    assert np.array_equal(data.positives, split.train_positives) and data.positives.dtype == np.int64
    assert np.array_equal(data.negatives, split.train_negatives)


def test_partial_fit_continues_exactly(split):
    full = small(epochs=4).fit(split)
    part = small(epochs=2).fit(split)
    part.partial_fit(split, epochs=2)
    assert part.n_iter_ == 4 and len(part.history_) == 4
    assert np.array_equal(full.embedding_, part.embedding_)
    assert part.history_[3]["lr"] == full.history_[3]["lr"]


def test_warm_start(split):
    model = small(epochs=2, warm_start=True).fit(split)
    first = model.embedding_.copy()
    model.fit(split)
    assert model.n_iter_ == 4 and not np.array_equal(first, model.embedding_)
    reference = small(epochs=4).fit(split)
    assert np.array_equal(reference.embedding_, model.embedding_)


@pytest.mark.parametrize("order", ["edge", "vertex"])
def test_partial_fit_keeps_solver_state_until_data_or_parameters_change(graph, split, order):
    model = small(epochs=1, order=order, lr=0.02).fit(split)
    solver = model.solver_
    model.partial_fit(split, epochs=1)
    assert model.solver_ is solver                  # same data, same parameters: nothing rebuilt
    model.set_params(lam_r=0.5)
    model.partial_fit(split, epochs=1)
    assert model.solver_ is not solver              # a new lam_r: rebuilt, and it takes effect
    # the same three epochs with the state built afresh for the last one (an equal split, new object)
    fresh = small(epochs=2, order=order, lr=0.02).fit(split).set_params(lam_r=0.5)
    fresh.partial_fit(lgekit.split_edges(graph, test_fraction=0.2, seed=0), epochs=1)
    assert np.array_equal(model.embedding_, fresh.embedding_)
    assert model.history_[-1]["objective"] == fresh.history_[-1]["objective"]
    unchanged = small(epochs=3, order=order, lr=0.02).fit(split)
    assert not np.array_equal(model.embedding_, unchanged.embedding_)


def test_partial_fit_passes_epoch_settings_without_rebuilding(split):
    # lr, lr_offset, n_threads and schedule only change how the next epochs run: the solver stays
    model = small(epochs=1).fit(split)
    solver = model.solver_
    model.set_params(lr=0.3, lr_offset=2.0, n_threads=2, schedule="deterministic").partial_fit(split, epochs=1)
    assert model.solver_ is solver
    assert (solver.lr, solver.lr_offset, solver.n_threads, solver.schedule) == (0.3, 2.0, 2, "deterministic")
    assert model.history_[-1]["lr"] == solver.learning_rate(1) == 0.3 * 3.0 ** -0.5
    model.set_params(dim=5)
    with pytest.raises(ValueError, match="dim: is 5 but the fitted embedding has 8 columns"):
        model.partial_fit(split, epochs=1)


def test_partial_fit_on_unfitted_model_initialises(split):
    model = small().partial_fit(split, epochs=1)
    assert model.n_iter_ == 1


def test_transform_and_score_pairs_by_id():
    g = lgekit.Graph.from_edges([["a", "b"], ["b", "c"], ["c", "d"], ["d", "a"], ["a", "c"]])
    model = small(dim=4).fit(g)
    ids = list(model.node_ids_)
    assert sorted(ids) == ["a", "b", "c", "d"]
    rows = model.transform(["c", "a"])
    assert np.array_equal(rows, model.embedding_[[ids.index("c"), ids.index("a")]])
    s = model.score_pairs([["a", "b"], ["c", "d"]])
    expect = [float(model.embedding_[ids.index("a")].astype(float) @ model.embedding_[ids.index("b")]),
              float(model.embedding_[ids.index("c")].astype(float) @ model.embedding_[ids.index("d")])]
    np.testing.assert_allclose(s, expect, rtol=1e-6)
    np.testing.assert_allclose(model.score_pairs([[0, 1]], index=True),
                               [model.embedding_[0].astype(float) @ model.embedding_[1]], rtol=1e-6)
    assert np.array_equal(model.transform(), model.embedding_)
    with pytest.raises(KeyError, match="zz"):
        model.transform(["zz"])
    with pytest.raises(ValueError, match=r"shape \(k, 2\)"):
        model.score_pairs([1, 2, 3])
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        model.transform([7], index=True)


def test_fit_transform(graph):
    emb = small().fit_transform(graph)
    assert np.array_equal(emb, small().fit(graph).embedding_)


def test_unfitted_errors():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="fit"):
        LogisticEmbedding().transform([0])


# ----------------------------------------------------------------- persistence
def test_save_load_roundtrip(split, tmp_path):
    model = small(lam_r=0.3, dtype="float64").fit(split)
    path = model.save(tmp_path / "m.npz")
    loaded = BaseEmbedding.load(path)
    assert type(loaded) is LogisticEmbedding
    assert loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.embedding_, model.embedding_) and loaded.embedding_.dtype == np.float64
    assert np.array_equal(loaded.node_ids_, model.node_ids_)
    assert loaded.n_iter_ == model.n_iter_
    assert json.dumps(loaded.history_) == json.dumps(model.history_)
    # continuing the loaded model equals continuing the original (same kernel seed, same epoch index)
    model.partial_fit(split, epochs=1)
    loaded.partial_fit(split, epochs=1)
    assert np.array_equal(loaded.embedding_, model.embedding_)
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]  # no temporary file left behind


def test_load_checks_class(split, tmp_path):
    path = small().fit(split).save(tmp_path / "m.npz")
    assert type(LogisticEmbedding.load(path)) is LogisticEmbedding
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not an lgekit model file"):
        LogisticEmbedding.load(tmp_path / "other.npz")


def test_string_ids_survive_save(tmp_path):
    g = lgekit.Graph.from_edges([["x", "y"], ["y", "z"], ["z", "w"]])
    model = small(dim=3).fit(g)
    loaded = LogisticEmbedding.load(model.save(tmp_path / "s.npz"))
    assert list(loaded.node_ids_) == list(model.node_ids_)
    np.testing.assert_array_equal(loaded.transform(["y"]), model.transform(["y"]))


def test_to_word2vec(split, tmp_path):
    model = small(dim=5).fit(split)
    path = model.to_word2vec(tmp_path / "emb.txt")
    lines = (tmp_path / "emb.txt").read_text().splitlines()
    assert lines[0] == f"{split.graph.n_nodes} 5"
    assert len(lines) == split.graph.n_nodes + 1
    first = lines[1].split()
    assert first[0] == str(model.node_ids_[0])
    np.testing.assert_array_equal(np.array(first[1:], dtype=np.float32), model.embedding_[0])
    assert path == tmp_path / "emb.txt"


def test_to_word2vec_rejects_whitespace_ids(tmp_path):
    g = lgekit.Graph.from_edges([["a b", "c"], ["c", "d"]])
    model = small(dim=2).fit(g)
    with pytest.raises(ValueError, match="whitespace"):
        model.to_word2vec(tmp_path / "e.txt")
    assert not (tmp_path / "e.txt").exists()


# ----------------------------------------------------------------- errors
@pytest.mark.parametrize("param, value, match", [
    ("dim", 0, r"dim must be an int >= 1, got 0"),
    ("dim", -3, r"dim must be .*got -3"),
    ("lam_pos", -1.0, r"lam_pos must be a finite number >= 0, got -1.0"),
    ("lam_neg", -0.5, r"lam_neg must be .*got -0.5"),
    ("lam_r", -0.1, r"lam_r must be .*got -0.1"),
    ("lam_r", float("nan"), r"lam_r must be .*got nan"),
    ("lr", 0.0, r"lr must be a finite number > 0, got 0.0"),
    ("lr", -1.0, r"lr must be .*got -1.0"),
    ("lr_offset", 0, r"lr_offset must be .*got 0"),
    ("epochs", -1, r"epochs must be an int >= 0, got -1"),
    ("init_scale", -0.1, r"init_scale must be .*got -0.1"),
    ("order", "random", r"order must be 'edge' or 'vertex', got 'random'"),
    ("negatives", "all", r"negatives must be 'fixed' or 'resample', got 'all'"),
    ("schedule", "fast", r"schedule must be 'blocks', 'deterministic' or 'hogwild', got 'fast'"),
    ("n_threads", 0, r"n_threads must be an int >= 1, got 0"),
    ("dtype", "float16", r"dtype must be 'float32' or 'float64', got 'float16'"),
    ("dtype", None, r"dtype must be 'float32' or 'float64', got None"),
    ("random_state", -1, r"random_state must be .*got -1"),
])
def test_bad_parameters_raise_value_error(graph, param, value, match):
    with pytest.raises(ValueError, match=match):
        small(**{param: value}).fit(graph)


@pytest.mark.parametrize("param, value", [("dim", 2.5), ("n_threads", "2"), ("lr", "fast"),
                                          ("random_state", "seed")])
def test_bad_parameter_types_raise_type_error(graph, param, value):
    with pytest.raises(TypeError, match=param):
        small(**{param: value}).fit(graph)


def test_n_threads_is_bounded_instead_of_crashing(graph):
    # issue #13 item 4: n_threads=100000 used to end in a segmentation fault inside OpenMP
    limit = lgekit.models.max_n_threads()
    assert limit == 64 * available_cores()
    with pytest.raises(ValueError, match=rf"n_threads must be an int in \[1, {limit}\] \(64 x the \d+ CPUs this process may use.*got 100000"):
        small(n_threads=100000).fit(graph)
    with pytest.raises(ValueError, match="n_threads"):
        small(n_threads=limit + 1).fit(graph)
    small(n_threads=limit)._validate_params()   # the bound itself is accepted


def test_init_scale_beyond_the_dtype_is_refused(graph):
    with pytest.raises(ValueError, match=r"init_scale must be .*<= 1.7e\+38 with dtype=float32.*got 1e\+39"):
        small(init_scale=1e39).fit(graph)
    with pytest.raises(ValueError, match=r"init_scale must be .*with dtype=float64.*got 1e\+308"):
        small(init_scale=1e308, dtype="float64").fit(graph)


def test_graph_without_edges_raises():
    empty = lgekit.Graph.from_edges(np.empty((0, 2), dtype=int), nodes=5)
    with pytest.raises(ValueError, match=r"no edges \(5 nodes, 0 edges\)"):
        small().fit(empty)
    with pytest.raises(ValueError, match="no edges"):
        small().fit(nx.empty_graph(4))
    with pytest.raises(ValueError, match="no edges"):
        small().fit(sp.csr_matrix((3, 3)))


def test_bad_data_type_raises():
    with pytest.raises(TypeError, match="X must be an lgekit.Graph, an EdgeSplit, .*; got dict"):
        small().fit({0: 1})
    assert small().fit([[0, 1], [1, 2], [2, 3]]).embedding_.shape[0] == 4   # a list of pairs is an edge list


def test_bad_callback_raises(graph):
    with pytest.raises(TypeError, match="callbacks"):
        small().fit(graph, callbacks=[object()])


def test_divergence_raises_with_history(graph):
    # vertex order with a step far above the stable range: the norms explode within a few epochs
    model = small(order="vertex", lr=50.0, epochs=30, init_scale=1.0)
    with pytest.raises(DivergenceError, match=r"diverged at epoch \d+.*smaller lr") as info:
        model.fit(graph)
    err = info.value
    assert isinstance(err, FloatingPointError)
    assert err.history[-1]["diverged"] is True
    assert all(r["diverged"] is False for r in err.history[:-1])
    assert err.epoch == err.history[-1]["epoch"] == len(err.history) - 1
    assert model.history_[-1]["diverged"] is True and model.n_iter_ == err.epoch + 1


def test_resample_changes_negatives_each_epoch(split):
    model = small(negatives="resample", epochs=1).fit(split)
    neg0 = model.solver_.negatives
    model.partial_fit(split, epochs=1)
    neg1 = model.solver_.negatives
    assert np.array_equal(neg1, model.solver_.epoch_negatives(1))   # what epoch 1 drew, drawn again
    assert len(neg0) == len(split.train_negatives)
    assert not np.array_equal(neg0, neg1)
    assert not np.any(split.train_graph.has_edges(neg1))


def test_diagnostics_off_skips_the_extra_pass_but_trains_identically():
    g = lgekit.datasets.planted_partition_graph(n_nodes=200, n_labels=4, mean_degree=10, seed=5)
    split = lgekit.split_edges(g, seed=1)
    kw = dict(dim=8, lam_r=0.2, epochs=3, dtype="float64", random_state=7)
    full = lgekit.LogisticEmbedding(**kw).fit(split)
    lean = lgekit.LogisticEmbedding(diagnostics=False, **kw).fit(split)
    np.testing.assert_array_equal(lean.embedding_, full.embedding_)
    assert all("objective" not in r and "mean_grad_norm" not in r for r in lean.history_)
    assert [r["mean_norm"] for r in lean.history_] == pytest.approx([r["mean_norm"] for r in full.history_])
    with pytest.raises(ValueError, match="diagnostics must be 'exact', 'sampled', True or False, got 'yes'"):
        lgekit.LogisticEmbedding(diagnostics="yes").fit(split)


def test_transform_finds_ids_beyond_int64_exactly():
    big = 2**63 + 1
    g = lgekit.Graph.from_edges([(big, big + 1), (big + 1, 5), (5, 7), (7, 8)])
    model = small(epochs=1).fit(g)
    rows = model.transform([big, 5])
    assert np.array_equal(rows, model.embedding_[[list(model.node_ids_).index(big), list(model.node_ids_).index(5)]])


@pytest.mark.parametrize("estimator", [LogisticEmbedding, lgekit.HingeEmbedding])
def test_the_no_openmp_warning_points_at_the_callers_line(monkeypatch, graph, estimator):
    # a serial build warns that n_threads > 1 runs on one thread; the warning must name the user's line
    # (the project's filterwarnings turns RuntimeWarnings raised *in* lgekit into errors), whichever
    # methods of the estimator sit between
    from lgekit.models import _base

    monkeypatch.setattr(_base, "openmp_enabled", lambda: False)
    with pytest.warns(RuntimeWarning, match="built without OpenMP") as caught:
        estimator(dim=4, epochs=1, n_threads=2, lam_r=1.0, random_state=0).fit(graph)
    assert [w.filename for w in caught] == [__file__]
