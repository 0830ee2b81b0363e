"""The top-k F1 scorer (issue #35, item 2): DeepWalk's protocol of ``metrics.node_classification_f1`` as a
``scoring=`` of scikit-learn's model selection, equal to it on the same split, unlike the thresholded
``"f1_micro"``."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import lgekit
from lgekit import LogisticEmbedding
from lgekit._validation import InvalidParameterError
from lgekit.metrics import node_classification_f1, node_classification_split, top_k_f1, top_k_f1_scorer
from lgekit.models.transductive import NodeEmbedding


@pytest.fixture(autouse=True)
def empty_cache():
    NodeEmbedding.clear_cache()
    yield
    NodeEmbedding.clear_cache()


@pytest.fixture(scope="module")
def multilabel():
    """A planted partition whose nodes carry about two of six labels each (BlogCatalog's kind of task)."""
    return lgekit.datasets.planted_partition_graph(n_nodes=300, n_labels=6, mean_degree=10, labels_per_node=2.0,
                                                   mixing=0.3, seed=4)


def test_grid_search_scorer_equals_node_classification_f1_on_the_same_split(multilabel):
    graph = multilabel
    model = LogisticEmbedding(dim=16, epochs=6, lam_r=0.3, random_state=0)
    expected = node_classification_f1(model.fit(graph).embedding_, graph.labels, train_ratio=0.5, seed=7)
    labelled, y, train, test, classifier_seed = node_classification_split(graph, 0.5, 7)
    split = (train, test)
    assert np.mean(y.sum(axis=1)) > 1.5          # multi-label: the regime where the two F1s differ
    pipe = make_pipeline(NodeEmbedding(model, graph=graph),
                         OneVsRestClassifier(LogisticRegression(solver="liblinear", random_state=classifier_seed)))
    scoring = {"micro": top_k_f1_scorer("micro"), "macro": top_k_f1_scorer("macro"), "sklearn_micro": "f1_micro"}
    search = GridSearchCV(pipe, {"nodeembedding__model__lam_r": [0.3]}, scoring=scoring, cv=[split], refit="micro")
    search.fit(np.asarray(graph.node_ids)[labelled].reshape(-1, 1), y)
    results = search.cv_results_
    assert results["mean_test_micro"][0] == pytest.approx(expected["micro_f1"], abs=1e-12)
    assert results["mean_test_macro"][0] == pytest.approx(expected["macro_f1"], abs=1e-12)
    # scikit-learn's thresholded F1 is another number (lower: nodes left with no label predicted)
    assert results["mean_test_sklearn_micro"][0] < expected["micro_f1"] - 0.02
    assert search.best_score_ == results["mean_test_micro"][0]


def test_scorer_ranks_a_grid_in_cross_validation(multilabel):
    graph = multilabel
    labelled, y, *_ = node_classification_split(graph, 0.5, 0)
    pipe = make_pipeline(NodeEmbedding(LogisticEmbedding(dim=8, epochs=4, random_state=0), graph=graph),
                         OneVsRestClassifier(LogisticRegression(solver="liblinear")))
    X = np.asarray(graph.node_ids)[labelled].reshape(-1, 1)
    search = GridSearchCV(pipe, {"nodeembedding__model__lam_r": [0.0, 1.0]}, scoring=top_k_f1_scorer("macro"),
                          cv=KFold(3, shuffle=True, random_state=0)).fit(X, y)
    assert 0 < search.best_score_ <= 1
    scores = cross_val_score(pipe, X, y, scoring=top_k_f1_scorer(), cv=KFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all((scores > 0) & (scores <= 1))


def test_top_k_predicts_each_row_its_number_of_labels():
    y = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]])
    scores = np.array([[0.9, 0.1, 0.8, 0.0],      # top 2: labels 0 and 2 (one right)
                       [0.1, 0.2, 0.3, 0.0],      # top 1: label 2 (right)
                       [0.5, 0.4, 0.3, 0.6]])     # top 2: labels 3 and 0 (both right)
    pred = np.array([[1, 0, 1, 0], [0, 0, 1, 0], [1, 0, 0, 1]])
    for average in ("micro", "macro"):
        assert top_k_f1(y, scores, average) == f1_score(y, pred, average=average, zero_division=0)
    # the wrong rules give other numbers: one label per node, or every score above 0.5
    assert top_k_f1(y, scores) != f1_score(y, np.eye(4, dtype=int)[scores.argmax(axis=1)], average="micro")
    assert top_k_f1(y, scores) != f1_score(y, (scores > 0.5).astype(int), average="micro")


def test_one_label_per_sample_is_accuracy_and_reads_classes():
    scores = np.array([[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]])
    assert top_k_f1(np.array(["b", "a", "a"]), scores, classes=["a", "b"]) == pytest.approx(2 / 3)
    # a label that no column names is a miss, never a free pass
    assert top_k_f1(np.array(["b", "a", "z"]), scores, classes=["a", "b"]) == pytest.approx(2 / 3)
    assert top_k_f1(np.array([1, 0, 1]), scores) == 1.0


@pytest.mark.parametrize("call, error, match", [
    (lambda: top_k_f1([[1, 0]], [[0.5, 0.5]], average="weighted"), InvalidParameterError, "average"),
    (lambda: top_k_f1([[1, 0, 0]], [[0.5, 0.5]]), ValueError, "y_true: a label indicator matrix must have the shape"),
    (lambda: top_k_f1([[2, 0]], [[0.5, 0.5]]), ValueError, "0/1 label indicator"),
    (lambda: top_k_f1([0], [[np.nan, 0.5]]), ValueError, "scores must be a finite 2-D array"),
    (lambda: top_k_f1([0, 1], [[0.1, 0.5]]), ValueError, "one label per row of scores"),
    (lambda: top_k_f1([0], [[0.1, 0.5]], classes=[0]), ValueError, "classes must name the 2 columns"),
    (lambda: top_k_f1_scorer("samples"), InvalidParameterError, "average"),
])
def test_bad_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_scorer_pickles_and_falls_back_to_decision_function():
    rng = np.random.default_rng(0)
    y = (rng.random((60, 3)) < 0.4).astype(int)
    y[y.sum(axis=1) == 0, 0] = 1
    x = y * 2.0 + rng.normal(scale=0.5, size=y.shape)
    svm = OneVsRestClassifier(LinearSVC()).fit(x, y)
    scorer = pickle.loads(pickle.dumps(top_k_f1_scorer("micro")))
    assert scorer(svm, x, y) == top_k_f1(y, svm.decision_function(x))
    assert repr(scorer) == "top_k_f1_scorer(average='micro')"
    with pytest.raises(ValueError, match="sample_weight"):
        scorer(svm, x, y, sample_weight=np.ones(60))


def test_scorer_reads_a_per_label_predict_proba():
    rng = np.random.default_rng(1)
    y = (rng.random((40, 3)) < 0.5).astype(int)
    y[:, 0] = 1 - y[:, 1]                    # every row has a label; every label both classes
    x = y + rng.normal(scale=0.3, size=y.shape)
    knn = KNeighborsClassifier(5).fit(x, y)  # multi-label: a list of (n, 2) probabilities
    expected = top_k_f1(y, np.column_stack([p[:, 1] for p in knn.predict_proba(x)]), "macro")
    assert top_k_f1_scorer("macro")(knn, x, y) == expected
    one_class = y.copy()
    one_class[:, 2] = 0
    with pytest.raises(ValueError, match="one class in the training fold"):
        top_k_f1_scorer()(KNeighborsClassifier(5).fit(x, one_class), x, one_class)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_top_k_f1_is_f1_of_each_rows_k_best_labels(data):
    """Against a row-by-row reading of the rule: each row's k largest scores (distinct, so no ties)."""
    n, m = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 6))
    y = data.draw(arrays(np.int8, (n, m), elements=st.integers(0, 1)))
    scores = data.draw(arrays(np.float64, (n, m), elements=st.floats(-1e6, 1e6), unique=True))
    pred = np.zeros_like(y)
    for i in range(n):
        k = int(y[i].sum())
        best = sorted(range(m), key=lambda j: -scores[i, j])[:k]
        pred[i, best] = 1
    for average in ("micro", "macro"):
        assert top_k_f1(y, scores, average) == f1_score(y, pred, average=average, zero_division=0)


def test_node_classification_split_is_the_metrics_own_draw(multilabel):
    """The split scored first by node_classification_f1: scoring it by hand gives the metric's numbers; a split
    drawn with the calls in another order (the classifier seed before the permutation) does not."""
    graph = multilabel
    x = LogisticEmbedding(dim=8, epochs=3, random_state=0).fit(graph).embedding_
    expected = node_classification_f1(x, graph.labels, train_ratio=0.5, seed=3)

    def by_hand(labelled, y, train, test, classifier_seed):
        clf = OneVsRestClassifier(LogisticRegression(solver="liblinear", random_state=classifier_seed))
        clf.fit(x[labelled][train], y[train])
        return top_k_f1(y[test], clf.predict_proba(x[labelled][test]))

    split = node_classification_split(graph, 0.5, 3)
    assert by_hand(*split) == pytest.approx(expected["micro_f1"], abs=1e-12)
    rng = np.random.default_rng(3)
    seed_first = int(rng.integers(2**31 - 1))
    perm = rng.permutation(len(split.labelled))
    wrong = (split.labelled, split.y, perm[:len(split.train)], perm[len(split.train):], seed_first)
    assert by_hand(*wrong) != pytest.approx(expected["micro_f1"], abs=1e-12)
    with pytest.raises(ValueError, match="one split has one ratio"):
        node_classification_split(graph, [0.3, 0.5])
