"""Early stopping on a validation split of the training graph (issue 44, item 1).

What is checked, each beside the wrong version it rejects: the validation edges are removed from what the
model trains on (not: trained on every edge); the validation split comes from the training graph (not: the
test split, not: the full graph); the fitted tables are those of the best epoch (not: of the last one);
scikit-learn's stopping rule (not: Keras's min_delta rule, not: off by one); the validation AP is the AP
of the pairs under the model's own scores, for one table and for two.
"""
import math
import pickle

import numpy as np
import pytest

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding
from lgekit._random import check_random_state, draw_seed
from lgekit._validation import InvalidParameterError
from lgekit.callbacks import Callback, EarlyStopping, LinkPredictionCallback
from lgekit.evaluation import LeakError, validation_split
from lgekit.metrics import average_precision_from_scores
from lgekit.models._early_stopping import ValidationMonitor
from lgekit.models.transductive import NodeEmbedding

MODELS = {"logistic": lambda **kw: LogisticEmbedding(**{"dim": 8, "epochs": 30, "lam_r": 0.1, **kw}),
          "hinge": lambda **kw: HingeEmbedding(**{"dim": 8, "epochs": 12, "lam_r": 1.0, **kw})}


def caveman(directed=False):
    import networkx as nx

    g = nx.connected_caveman_graph(10, 8)
    if directed:
        g = nx.DiGraph([(u, v) for u, v in g.edges()] + [(v, u) for u, v in g.edges() if (u + v) % 3 == 0])
    return lgekit.Graph.from_networkx(g)


def bipartite():
    rng = np.random.default_rng(0)
    matrix = (rng.random((30, 40)) < 0.15).astype(int)
    matrix[np.arange(30), np.arange(30)] = 1
    return lgekit.Graph.from_biadjacency(matrix)


@pytest.fixture(scope="module")
def split():
    return lgekit.split_edges(caveman(), test_fraction=0.2, seed=0)


class Snapshots(Callback):
    """The tables after every epoch, as the callbacks see them (before the best epoch is put back)."""

    def __init__(self):
        self.tables = []

    def on_epoch_end(self, model, epoch, record):
        self.tables.append(model.embedding_.copy())


def keys(pairs, n):
    pairs = np.asarray(pairs, dtype=np.int64)
    return set((pairs[:, 0] * n + pairs[:, 1]).tolist())


def carved(model, X):
    """The validation split a fresh early-stopped fit of ``model`` carves from ``X`` (its first draw)."""
    seed = draw_seed(check_random_state(model.random_state))
    return validation_split(X, model.validation_fraction, seed=seed)


# ---------------------------------------------------------------------- what is trained, what is scored
@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_validation_edges_are_not_trained_on(name, split):
    model = MODELS[name](random_state=0, early_stopping=True, validation_fraction=0.2).fit(split)
    val = carved(model, split)
    n = split.graph.n_nodes
    trained = keys(model.solver_.training_data().positives, n)
    assert trained == keys(val.train_positives, n)
    assert not trained & keys(val.test_positives, n)
    # the wrong version (the validation edges trained on too) would train on every training edge
    assert trained != keys(split.train_positives, n)
    # the monitor scored exactly the carved validation pairs
    assert np.array_equal(model._validation_data.positives, val.test_positives)
    assert np.array_equal(model._validation_data.negatives, val.test_negatives)


def test_without_early_stopping_every_training_edge_is_trained_on(split):
    model = MODELS["logistic"](random_state=0).fit(split)
    n = split.graph.n_nodes
    assert keys(model.solver_.training_data().positives, n) == keys(split.train_positives, n)
    assert "val_ap" not in model.history_[0] and not hasattr(model, "best_iteration_")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_records_the_attributes_and_the_restored_epoch(name, split):
    model = MODELS[name](random_state=0, early_stopping=True, n_iter_no_change=3)
    model.fit(split)
    scores = [r["val_ap"] for r in model.history_]
    assert model.validation_scores_ == scores and len(scores) == model.n_iter_
    assert model.best_iteration_ == int(np.argmax(scores))
    assert model.best_validation_score_ == max(scores)
    # the fitted tables are the best epoch's (a snapshot taken after each epoch, before the restore); the
    # wrong version (no restore) keeps the last epoch's
    snapshots = Snapshots()
    again = MODELS[name](random_state=0, early_stopping=True, n_iter_no_change=3).fit(split, callbacks=[snapshots])
    assert again.validation_scores_ == scores
    assert np.array_equal(again.embedding_, snapshots.tables[model.best_iteration_])
    assert np.array_equal(model.embedding_, again.embedding_)
    if scores[-1] != max(scores):          # (DCD may have settled: its last epochs then change nothing)
        assert not np.array_equal(model.embedding_, snapshots.tables[-1])
    if name == "logistic":
        assert scores[-1] < max(scores)       # this fit did stop past its best epoch: the check above ran
    # the restored tables score best_validation_score_ on the validation pairs (one table: x_u . x_v)
    assert model.score(carved(model, split)) == pytest.approx(model.best_validation_score_, abs=1e-12)


def test_it_stops_once_the_validation_ap_stops_improving(split):
    model = MODELS["logistic"](random_state=0, early_stopping=True, n_iter_no_change=2, validation_tol=1.0,
                               epochs=30)
    model.fit(split)
    # with validation_tol=1 no epoch improves by enough: it stops after n_iter_no_change epochs past the first
    assert model.n_iter_ == 3 and model.best_iteration_ in (0, 1, 2)


def test_a_given_validation_split_is_the_one_fit_would_carve(split):
    """fit(X, validation=...) with the split fit carves itself is that fit, bit for bit (a grid can share one)."""
    model = MODELS["logistic"](random_state=3, early_stopping=True)
    own = model.fit(split).embedding_.copy()
    given = MODELS["logistic"](random_state=3, early_stopping=True).fit(split, validation=carved(model, split))
    assert np.array_equal(own, given.embedding_)
    assert given.validation_scores_ == model.validation_scores_


def test_a_validation_split_that_touches_the_test_pairs_is_refused(split):
    model = MODELS["logistic"](random_state=0, early_stopping=True)
    with pytest.raises(LeakError, match="not the training graph"):
        model.fit(split, validation=split)                       # stopping on the test split
    with pytest.raises(LeakError, match="not the training graph"):
        model.fit(split, validation=validation_split(split.graph, 0.1, seed=0))   # carved from the full graph
    with pytest.raises(ValueError, match="early_stopping=False"):
        MODELS["logistic"](random_state=0).fit(split, validation=carved(model, split))
    with pytest.raises(TypeError, match="validation must be an EdgeSplit"):
        model.fit(split, validation=split.test_positives)


def test_the_validation_split_is_seeded_from_random_state(split):
    a = MODELS["logistic"](random_state=7, early_stopping=True).fit(split)
    b = MODELS["logistic"](random_state=7, early_stopping=True).fit(split)
    c = MODELS["logistic"](random_state=8, early_stopping=True).fit(split)
    assert a.validation_scores_ == b.validation_scores_ and np.array_equal(a.embedding_, b.embedding_)
    assert not np.array_equal(a._validation_data.positives, c._validation_data.positives)


def test_a_graph_is_split_as_its_own_training_graph():
    graph = caveman()
    model = MODELS["logistic"](random_state=0, early_stopping=True).fit(graph)
    val = carved(model, graph)
    assert keys(model.solver_.training_data().positives, graph.n_nodes) == keys(val.train_positives, graph.n_nodes)


# ---------------------------------------------------------------------- two tables
@pytest.mark.parametrize("make", [lambda: caveman(directed=True), bipartite], ids=["directed", "bipartite"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_two_tables_score_x_u_dot_y_v(make, name):
    graph = make()
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    model = MODELS[name](random_state=0, early_stopping=True, validation_fraction=0.2).fit(split)
    val = carved(model, split)
    offset = graph.n_left if graph.kind == "bipartite" else 0

    def scores(pairs):
        return model.score_pairs(np.asarray(pairs) - [0, offset], index=True)
    ap = average_precision_from_scores(scores(val.test_positives), scores(val.test_negatives))
    assert ap == pytest.approx(model.best_validation_score_, abs=1e-9)
    assert model.score(val) == pytest.approx(ap, abs=1e-12)
    # the wrong version, the source table scored against itself (x_u . x_v), is another number
    if graph.kind == "directed":
        x = model.embedding_.astype(np.float64)
        wrong = average_precision_from_scores(np.einsum("ij,ij->i", x[val.test_positives[:, 0]], x[val.test_positives[:, 1]]),
                                              np.einsum("ij,ij->i", x[val.test_negatives[:, 0]], x[val.test_negatives[:, 1]]))
        assert abs(wrong - ap) > 1e-6


# ---------------------------------------------------------------------- the stopping rule
def run_rule(scores, n_iter_no_change, tol):
    table = np.zeros((2, 1), dtype=np.float32)

    class NoState:
        def state(self):
            return {}

        def set_state(self, arrays):
            pass
    monitor = ValidationMonitor(np.zeros((1, 2), np.int64), np.zeros((1, 2), np.int64),
                                n_iter_no_change=n_iter_no_change, tol=tol)
    for epoch, score in enumerate(scores):
        table[0, 0] = epoch
        if monitor.update(epoch, score, table, NoState()):
            return epoch, monitor.best_epoch
    return None, monitor.best_epoch


def keras_rule(scores, patience, min_delta):
    """The wrong version: Keras's rule, where a gain below min_delta is not a new best either."""
    best, best_epoch, wait = -math.inf, None, 0
    for epoch, score in enumerate(scores):
        if score > best + min_delta:
            best, best_epoch, wait = score, epoch, 0
        else:
            wait += 1
            if wait >= patience:
                return epoch, best_epoch
    return None, best_epoch


def test_scikit_learns_rule():
    """MLPClassifier's rule: a gain below tol counts as no improvement but is a new best all the same."""
    small_gains = [0.5, 0.6, 0.60005, 0.6001, 0.60015, 0.5]
    assert run_rule(small_gains, n_iter_no_change=3, tol=1e-3) == (4, 4)
    assert keras_rule(small_gains, patience=3, min_delta=1e-3) == (4, 1)       # restores another epoch
    # n_iter_no_change epochs without improvement stop the fit, not one more (sklearn's SGD counts so)
    flat = [0.5, 0.4, 0.4, 0.4, 0.4]
    assert run_rule(flat, n_iter_no_change=2, tol=0.0) == (2, 0)
    assert run_rule([0.1, 0.2, 0.3, 0.4], n_iter_no_change=1, tol=0.0) == (None, 3)
    # NaN is never an improvement (a comparison the other way round would reset the count)
    assert run_rule([0.5, math.nan, math.nan], n_iter_no_change=2, tol=0.0) == (2, 0)


# ---------------------------------------------------------------------- partial_fit, warm starts, files
def test_partial_fit_refuses_early_stopping_as_scikit_learn_does(split):
    model = MODELS["logistic"](random_state=0, early_stopping=True)
    with pytest.raises(ValueError, match="partial_fit does not support early_stopping=True"):
        model.partial_fit(split)
    model.fit(split)
    with pytest.raises(ValueError, match="warm_start=True"):
        model.partial_fit(split)
    # switched off, the model continues on every training edge and drops the early-stopped fit's attributes
    model.set_params(early_stopping=False).partial_fit(split, epochs=2)
    n = split.graph.n_nodes
    assert keys(model.solver_.training_data().positives, n) == keys(split.train_positives, n)
    assert not hasattr(model, "best_iteration_") and not hasattr(model, "validation_scores_")


def test_a_warm_start_continues_on_the_same_validation_split(split):
    model = MODELS["logistic"](random_state=0, early_stopping=True, epochs=6).fit(split)
    first = list(model.validation_scores_)
    pairs = model._validation_data.positives.copy()
    model.set_params(warm_start=True, epochs=5).fit(split)
    assert np.array_equal(model._validation_data.positives, pairs)
    assert model.validation_scores_[:len(first)] == first and len(model.validation_scores_) > len(first)
    assert model.best_validation_score_ == max(model.validation_scores_)


def test_a_warm_start_that_only_gets_worse_keeps_the_tables_it_started_from(split):
    model = MODELS["logistic"](random_state=0, early_stopping=True, epochs=8).fit(split)
    before, best, n_iter = model.embedding_.copy(), model.best_iteration_, model.n_iter_
    # no pull towards the edges, a strong push from the negatives: the validation AP falls every epoch
    model.set_params(warm_start=True, lam_pos=0.0, lam_neg=1.0, epochs=4, n_iter_no_change=4).fit(split)
    assert model.n_iter_ == n_iter + 4
    assert max(model.validation_scores_[-4:]) < model.best_validation_score_
    assert model.best_iteration_ == best and np.array_equal(model.embedding_, before)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_save_load_and_pickle_keep_the_early_stopping_attributes(name, split, tmp_path):
    model = MODELS[name](random_state=0, early_stopping=True).fit(split)
    loaded = type(model).load(model.save(tmp_path / "m.npz"))
    unpickled = pickle.loads(pickle.dumps(model))
    for other in (loaded, unpickled):
        assert other.validation_scores_ == model.validation_scores_
        assert other.best_iteration_ == model.best_iteration_
        assert other.best_validation_score_ == model.best_validation_score_
        assert other._validation_seed == model._validation_seed
        # a continued fit of the copy stops on the same validation pairs as the original's would
        other.set_params(warm_start=True, epochs=1).fit(split)
        assert np.array_equal(other._validation_data.positives, model._validation_data.positives)


def test_a_model_file_with_a_malformed_early_stopping_field_is_refused(split, tmp_path):
    import json

    model = MODELS["logistic"](random_state=0, early_stopping=True).fit(split)
    path = model.save(tmp_path / "m.npz")
    arrays = dict(np.load(path))
    meta = json.loads(str(arrays["meta"]))
    for bad in ({"best_iteration": 10**6}, {"validation_scores": ["x"]}, {"best_validation_score": None,
                                                                             "surprise": 1}):
        broken = {**meta, "early_stopping": {**meta["early_stopping"], **bad}}
        np.savez(tmp_path / "bad.npz", **{**arrays, "meta": np.array(json.dumps(broken))})
        with pytest.raises(ValueError, match="early_stopping"):
            LogisticEmbedding.load(tmp_path / "bad.npz")


# ---------------------------------------------------------------------- the rest of the library
def test_node_embedding_fits_an_early_stopped_model():
    graph = caveman()
    node = NodeEmbedding(MODELS["logistic"](random_state=0, early_stopping=True), graph=graph, cache=False)
    out = node.fit(graph.node_ids).transform(graph.node_ids[:5])
    assert out.shape == (5, 8) and node.model_.best_iteration_ is not None


def test_callbacks_see_the_validation_ap_and_a_callback_may_stop(split):
    model = MODELS["logistic"](random_state=0, early_stopping=True, n_iter_no_change=100)
    stopper = EarlyStopping("val_ap", patience=1, restore_best=False)
    model.fit(split, callbacks=[LinkPredictionCallback(split, train=False), stopper])
    assert all("val_ap" in r and "test_ap" in r for r in model.history_)
    assert model.n_iter_ < 30 and stopper.stopped_epoch_ == model.n_iter_ - 1


@pytest.mark.parametrize("param, value", [("early_stopping", 1), ("validation_fraction", 0.0),
                                          ("validation_fraction", 1.0), ("n_iter_no_change", 0),
                                          ("validation_tol", -1e-3), ("validation_tol", math.inf)])
def test_bad_parameters_name_themselves(param, value, split):
    with pytest.raises(InvalidParameterError, match=param):
        MODELS["logistic"](**{param: value}).fit(split)


def test_too_small_a_validation_fraction_says_so():
    graph = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    with pytest.raises(ValueError, match="validation_fraction=0.1 holds out 0 of the 5 training edges"):
        MODELS["logistic"](early_stopping=True).fit(graph)


def test_lgekit_fit_early_stopping_records_the_kept_epoch(tmp_path, capsys):
    import json

    import networkx as nx

    from lgekit.cli import main

    path = tmp_path / "caveman.edgelist"
    path.write_text("".join(f"{u} {v}\n" for u, v in nx.connected_caveman_graph(10, 8).edges()))
    out = tmp_path / "emb"
    code = main(["fit", str(path), "--model", "logistic", "--dim", "8", "--epochs", "30", "--early-stopping",
                 "--n-iter-no-change", "3", "--validation-fraction", "0.2", "--test-fraction", "0.2", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    info = json.loads((out / "fit.json").read_text())
    history = json.loads((out / "history.json").read_text())
    best = info["early_stopping"]["best_iteration"]
    assert info["params"]["early_stopping"] is True and len(history) == info["n_iter"]
    assert info["early_stopping"]["best_validation_score"] == max(r["val_ap"] for r in history)
    assert f"the tables of epoch {best} (0-based)" in printed
    loaded = LogisticEmbedding.load(out / "embedding.npz")
    assert loaded.best_iteration_ == best and loaded.validation_scores_ == [r["val_ap"] for r in history]
    # the final test AP is the kept epoch's, which the history's test AP of that epoch says too
    assert info["final"]["test_ap"] == pytest.approx(history[best]["test_ap"], abs=1e-9)


def test_verbose_says_why_it_stopped_and_which_tables_it_kept(split, capsys):
    model = MODELS["logistic"](random_state=0, early_stopping=True, n_iter_no_change=2, verbose=2).fit(split)
    err = capsys.readouterr().err
    assert f"stopped early after epoch {model.n_iter_ - 1}: val_ap did not improve by validation_tol=0.0001" in err
    assert f"the tables of epoch {model.best_iteration_} (val_ap {model.best_validation_score_:.4f})" in err
    assert "val_ap" in err.splitlines()[2]          # each epoch's line shows the validation AP
