"""LogisticEmbeddingCV / HingeEmbeddingCV (issue 44, item 2): lambda_r chosen on a validation split of the
training graph, the best refitted on the WHOLE training graph.

Each check beside the wrong version it rejects: the refit trains on every training edge (not: the best
candidate kept, trained without the validation edges); a candidate is scored on the validation pairs it
did not train on, exactly as a stand-alone early-stopped fit scores them (not: on the test pairs); an F1
score reads only the labels it is given (not: the graph's own labels, the test nodes' included).
"""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline

import lgekit
from lgekit import HingeEmbedding, HingeEmbeddingCV, LogisticEmbedding, LogisticEmbeddingCV
from lgekit._validation import InvalidParameterError
from lgekit.metrics import node_classification_f1, node_classification_split
from lgekit.models.transductive import NodeEmbedding

GRID = (0.03, 0.1, 0.3)


def caveman(labels=True):
    import networkx as nx

    g = nx.connected_caveman_graph(10, 8)
    return lgekit.Graph.from_edges(list(g.edges()), nodes=80,
                                   labels={v: [v // 8 % 3] for v in range(80)} if labels else None)


@pytest.fixture(scope="module")
def graph():
    return caveman()


@pytest.fixture(scope="module")
def split(graph):
    return lgekit.split_edges(graph, test_fraction=0.2, seed=0)


@pytest.fixture(scope="module")
def fitted(split):
    return LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=30, random_state=0).fit(split)


def keys(pairs, n):
    pairs = np.asarray(pairs, dtype=np.int64)
    return set((pairs[:, 0] * n + pairs[:, 1]).tolist())


def test_the_refit_trains_on_every_training_edge(fitted, split):
    n = split.graph.n_nodes
    trained = keys(fitted.solver_.training_data().positives, n)
    assert trained == keys(split.train_positives, n)          # the validation edges back in, no test edge
    assert not trained & keys(split.test_positives, n)
    # the wrong version keeps the best candidate, which never saw the validation edges
    best = LogisticEmbedding(dim=8, lam_r=fitted.lam_r_, epochs=30, random_state=0, early_stopping=True).fit(split)
    assert keys(best.solver_.training_data().positives, n) < trained
    # the refit is LogisticEmbedding's own fit of the chosen setting, for the chosen epochs, bit for bit
    plain = LogisticEmbedding(dim=8, lam_r=fitted.lam_r_, epochs=fitted.epochs_, random_state=0).fit(split)
    assert np.array_equal(fitted.embedding_, plain.embedding_)
    assert fitted.n_iter_ == fitted.epochs_ and len(fitted.history_) == fitted.epochs_
    assert not hasattr(fitted, "best_iteration_")             # the refit does not stop early itself


def test_each_candidate_is_a_stand_alone_early_stopped_fit(fitted, split):
    results = fitted.cv_results_
    for i, lam in enumerate(GRID):
        alone = LogisticEmbedding(dim=8, lam_r=lam, epochs=30, random_state=0, early_stopping=True).fit(split)
        assert results["params"][i] == {"lam_r": lam, "dim": 8}
        assert results["validation_score"][i] == alone.best_validation_score_ == results["validation_ap"][i]
        assert results["epochs"][i] == alone.best_iteration_ + 1
    best = int(np.argmax(results["validation_score"]))
    assert fitted.best_index_ == best and fitted.lam_r_ == GRID[best] and fitted.lam_r == GRID[best]
    assert fitted.best_score_ == results["validation_score"][best]
    assert fitted.epochs_ == results["epochs"][best]
    assert sorted(results["rank_validation_score"]) == [1, 2, 3] and results["rank_validation_score"][best] == 1
    assert np.all(results["fit_seconds"] >= 0)


def test_the_validation_scores_are_not_test_scores(fitted, split):
    """The candidates are scored on the validation pairs; scored on the test pairs (the wrong version) they
    would read as the test AP of a model trained on the same edges."""
    for i, lam in enumerate(GRID):
        alone = LogisticEmbedding(dim=8, lam_r=lam, epochs=30, random_state=0, early_stopping=True).fit(split)
        assert fitted.cv_results_["validation_score"][i] != alone.score(split)


def test_without_early_stopping_every_fit_runs_epochs(split):
    cv = LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=6, random_state=0, early_stopping=False).fit(split)
    assert list(cv.cv_results_["epochs"]) == [6, 6, 6] and cv.epochs_ == 6 and cv.n_iter_ == 6
    val = lgekit.evaluation.validation_split(split, 0.1, seed=lgekit._random.draw_seed(np.random.default_rng(0)))
    for i, lam in enumerate(GRID):
        alone = LogisticEmbedding(dim=8, lam_r=lam, epochs=6, random_state=0).fit(val)
        assert cv.cv_results_["validation_score"][i] == alone.score(val)


def training_labels(graph, seed=0):
    """The labels of the classifier's training nodes of node_classification_f1(seed), the rest 0."""
    ns = node_classification_split(graph, 0.5, seed)
    keep = np.zeros(graph.n_nodes)
    keep[ns.labelled[ns.train]] = 1
    return sp.diags(keep) @ sp.csr_matrix(graph.labels)


@pytest.mark.parametrize("scoring", ["micro_f1", "macro_f1"])
def test_an_f1_score_reads_the_labels_it_is_given_only(scoring, graph, split):
    y = training_labels(graph)
    cv = LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=10, random_state=0, scoring=scoring).fit(split, y=y)
    results = cv.cv_results_
    assert np.array_equal(results[f"validation_{scoring}"], results["validation_score"])
    for i, lam in enumerate(GRID):
        alone = LogisticEmbedding(dim=8, lam_r=lam, epochs=10, random_state=0, early_stopping=True).fit(split)
        mine = node_classification_f1(alone.embedding_, y, train_ratio=0.5, seed=0)[scoring]
        assert results["validation_score"][i] == pytest.approx(mine, abs=1e-12)
        # the wrong version, every node's labels (the test nodes' too), scores otherwise
        leaked = node_classification_f1(alone.embedding_, graph.labels, train_ratio=0.5, seed=0)[scoring]
        assert leaked != pytest.approx(mine, abs=1e-12)
    with pytest.raises(ValueError, match="y: scoring='micro_f1' scores node classification"):
        LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=3, random_state=0, scoring="micro_f1").fit(split)


def test_a_grid_of_dims(split):
    cv = LogisticEmbeddingCV(dim=8, dims=(4, 8), lam_rs=(0.1, 0.3), epochs=10, random_state=0).fit(split)
    assert [p["dim"] for p in cv.cv_results_["params"]] == [4, 4, 8, 8]
    assert cv.embedding_.shape[1] == cv.dim_ and cv.dim == 8           # the parameter is left as given
    cv.partial_fit(split, epochs=2)                                      # continues at the chosen dim
    assert cv.embedding_.shape[1] == cv.dim_ and cv.n_iter_ == cv.epochs_ + 2 and cv.dim == 8


def test_a_diverged_candidate_is_never_chosen(split):
    # lam_r = 100: the regulariser's step overshoots (2 lr lam_r / c > 2 for a vertex in c pairs) and diverges
    cv = LogisticEmbeddingCV(dim=8, lam_rs=(100.0, 0.1), epochs=10, random_state=0).fit(split)
    assert np.isnan(cv.cv_results_["validation_score"][0]) and cv.lam_r_ == 0.1
    assert list(cv.cv_results_["rank_validation_score"]) == [2, 1]
    with pytest.raises(ValueError, match="every candidate diverged"):
        LogisticEmbeddingCV(dim=8, lam_rs=(0.1, 0.3), epochs=10, random_state=0, lr=1e4).fit(split)


def test_hinge_embedding_cv(split):
    cv = HingeEmbeddingCV(dim=8, lam_rs=(0.5, 1.0, 3.0), epochs=8, random_state=0).fit(split)
    plain = HingeEmbedding(dim=8, lam_r=cv.lam_r_, epochs=cv.epochs_, random_state=0).fit(split)
    assert np.array_equal(cv.embedding_, plain.embedding_)
    assert cv.score(split) == plain.score(split)


def test_save_writes_the_chosen_model_and_pickle_keeps_the_search(fitted, split, tmp_path):
    loaded = LogisticEmbedding.load(fitted.save(tmp_path / "cv.npz"))
    assert type(loaded) is LogisticEmbedding
    assert loaded.lam_r == fitted.lam_r_ and loaded.epochs == fitted.epochs_ and not loaded.early_stopping
    assert np.array_equal(loaded.embedding_, fitted.embedding_)
    copy = pickle.loads(pickle.dumps(fitted))
    assert copy.lam_r_ == fitted.lam_r_ and copy.cv_results_["params"] == fitted.cv_results_["params"]
    assert np.array_equal(copy.transform(), fitted.transform())


def test_scikit_learn_sees_the_grid_not_lam_r(fitted):
    params = LogisticEmbeddingCV().get_params()
    assert "lam_r" not in params and "warm_start" not in params and params["lam_rs"] == lgekit._parameters.DEFAULTS[
        "LogisticEmbeddingCV"]["lam_rs"]
    assert clone(fitted).get_params() == fitted.get_params()
    with pytest.raises(AttributeError, match="lam_r_ once fitted"):
        LogisticEmbeddingCV().lam_r
    with pytest.raises(ValueError, match="Invalid parameter 'lam_r'"):
        LogisticEmbeddingCV().set_params(lam_r=0.3)
    for cls in (LogisticEmbeddingCV, HingeEmbeddingCV):
        import inspect

        signature = {k: p.default for k, p in inspect.signature(cls).parameters.items()}
        assert signature == lgekit._parameters.DEFAULTS[cls.__name__]
        assert set(signature) == set(cls._parameter_constraints)


def test_inside_grid_search_through_node_embedding(graph):
    y = np.asarray(graph.labels.argmax(axis=1)).ravel()
    model = LogisticEmbeddingCV(dim=8, lam_rs=(0.1, 0.3), epochs=5, random_state=0)
    pipe = make_pipeline(NodeEmbedding(model, graph=graph), LogisticRegression(max_iter=300))
    search = GridSearchCV(pipe, {"nodeembedding__model__dim": [4, 8]}, cv=KFold(2, shuffle=True, random_state=0))
    search.fit(np.asarray(graph.node_ids).reshape(-1, 1), y)
    fitted = search.best_estimator_[0].model_
    assert isinstance(fitted, LogisticEmbeddingCV) and fitted.lam_r_ in (0.1, 0.3)


@pytest.mark.parametrize("params, match", [
    ({"lam_rs": []}, "lam_rs must be a non-empty sequence"), ({"lam_rs": [0.1, -1]}, "lam_rs"),
    ({"lam_rs": 0.3}, "lam_rs"), ({"lam_rs": [0.1, 0.1]}, "distinct"), ({"dims": [0]}, "dims"),
    ({"scoring": "f1"}, "scoring"), ({"validation_fraction": 1.0}, "validation_fraction")])
def test_bad_parameters_name_themselves(params, match, split):
    with pytest.raises(InvalidParameterError, match=match):
        LogisticEmbeddingCV(**params).fit(split)


def test_hinge_needs_positive_lam_rs(split):
    with pytest.raises(InvalidParameterError, match="lam_rs"):
        HingeEmbeddingCV(lam_rs=(0.0, 1.0)).fit(split)


def test_f1_scoring_refuses_a_bipartite_graph():
    matrix = np.eye(10, 12, dtype=int) + np.eye(10, 12, k=1, dtype=int)
    g = lgekit.Graph.from_biadjacency(matrix)
    with pytest.raises(ValueError, match="bipartite"):
        LogisticEmbeddingCV(scoring="micro_f1").fit(g, y=np.zeros((22, 2)))


def test_the_search_is_seeded_by_random_state(split):
    a = LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=10, random_state=4).fit(split)
    b = LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=10, random_state=4).fit(split)
    assert np.array_equal(a.cv_results_["validation_score"], b.cv_results_["validation_score"])
    assert np.array_equal(a.embedding_, b.embedding_)
    LogisticEmbeddingCV(dim=8, lam_rs=GRID, epochs=3, random_state=None).fit(split)   # drawn, any value


def test_inside_node_embedding_an_f1_score_asks_for_labels(graph):
    node = NodeEmbedding(LogisticEmbeddingCV(dim=4, lam_rs=(0.1, 0.3), epochs=3, random_state=0, scoring="micro_f1"),
                         graph=graph, cache=False)
    with pytest.raises(ValueError, match="y: scoring='micro_f1'"):
        node.fit(np.asarray(graph.node_ids).reshape(-1, 1))
