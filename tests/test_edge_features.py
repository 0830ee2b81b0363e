"""node2vec's link-prediction protocol (issue 43, item 11): edge features of two node vectors and a logistic
regression trained on training pairs only, leak-checked.  Each check is shown failing on the wrong version."""
import numpy as np
import pytest

import lgekit
from lgekit.datasets import planted_partition_graph
from lgekit.evaluation import LeakError
from lgekit.metrics import _link, edge_classifier_scores, link_prediction_features
from lgekit.metrics._link import EDGE_OPERATORS


@pytest.fixture(scope="module")
def split():
    g = planted_partition_graph(n_nodes=300, n_labels=4, mean_degree=10, mixing=0.1, seed=1)
    return lgekit.split_edges(g, test_fraction=0.2, seed=0)


def _keys(pairs, n):
    return set((np.minimum(pairs[:, 0], pairs[:, 1]) * n + np.maximum(pairs[:, 0], pairs[:, 1])).tolist())


def test_each_operator_is_nodes_vectors_combined_coordinate_by_coordinate(split):
    x = np.random.default_rng(0).normal(size=(split.graph.n_nodes, 5))
    expected = {"hadamard": lambda a, b: a * b, "average": lambda a, b: (a + b) / 2,
                "l1": lambda a, b: np.abs(a - b), "l2": lambda a, b: (a - b) ** 2}
    assert set(EDGE_OPERATORS) == set(expected)
    for name, f in expected.items():
        data = link_prediction_features(x, split, name)
        u, v = data.test_pairs[:, 0], data.test_pairs[:, 1]
        assert np.allclose(data.test_features, f(x[u], x[v]))
        u, v = data.train_pairs[:, 0], data.train_pairs[:, 1]
        assert np.allclose(data.train_features, f(x[u], x[v]))
    # the wrong version, concatenation [x_u, x_v], has twice the columns
    assert link_prediction_features(x, split).train_features.shape[1] == 5


def test_the_classifier_learns_from_training_pairs_only(split):
    x = np.random.default_rng(0).normal(size=(split.graph.n_nodes, 4))
    data = link_prediction_features(x, split, seed=3)
    n = split.graph.n_nodes
    k = len(split.train_positives)
    assert data.train_labels.tolist() == [1] * k + [0] * k
    assert _keys(data.train_pairs[:k], n) == _keys(split.train_positives, n)
    negatives = data.train_pairs[k:]
    assert not _keys(negatives, n) & _keys(split.train_positives, n)            # training non-edges
    test = np.concatenate([split.test_positives, split.test_negatives])
    assert not _keys(data.train_pairs, n) & _keys(test, n)                       # no test pair
    assert np.array_equal(data.test_pairs, test)
    assert data.test_labels.sum() == len(split.test_positives)
    assert np.array_equal(link_prediction_features(x, split, seed=3).train_pairs, data.train_pairs)   # seeded
    capped = link_prediction_features(x, split, max_train_edges=50)
    assert len(capped.train_labels) == 100


def test_the_leak_check_rejects_test_pairs_among_the_training_pairs(split, monkeypatch):
    x = np.random.default_rng(0).normal(size=(split.graph.n_nodes, 4))
    k = len(split.train_positives)
    # the wrong version: training negatives taken from the split's test negatives (the classifier sees test pairs)
    monkeypatch.setattr(_link, "sample_negative_pairs", lambda graph, n, **kw: split.test_negatives[:n])
    with pytest.raises(LeakError, match=r"training negative \[.*\] is a test pair"):
        link_prediction_features(x, split)
    # the wrong version: "negatives" that are edges of the training graph
    monkeypatch.setattr(_link, "sample_negative_pairs", lambda graph, n, **kw: split.train_positives[::-1][:n])
    with pytest.raises(LeakError, match="a training negative is an edge of the training graph"):
        link_prediction_features(x, split)
    assert k > 0


def test_a_structured_embedding_scores_far_above_a_random_one(split):
    good = lgekit.LogisticEmbedding(dim=8, epochs=30, random_state=0).fit(split).embedding_
    noise = np.random.default_rng(0).normal(size=good.shape)
    ok = edge_classifier_scores(good, split)
    chance = edge_classifier_scores(noise, split)
    # chance: AP 1/5 (4 negatives a positive), AUC 1/2; 301 positives put both within a few hundredths
    assert ok["average_precision"] > 0.4 > 0.3 > chance["average_precision"]
    assert ok["roc_auc"] > 0.7 and abs(chance["roc_auc"] - 0.5) < 0.08
    assert ok["n_test_pairs"] == len(split.test_positives) + len(split.test_negatives)
    assert ok == edge_classifier_scores(good, split)                            # deterministic


def test_bad_arguments_are_named(split):
    x = np.zeros((split.graph.n_nodes, 3))
    with pytest.raises(ValueError, match="operator must be"):
        link_prediction_features(x, split, "concat")
    with pytest.raises(TypeError, match="split must be an lgekit EdgeSplit"):
        link_prediction_features(x, split.graph)
    with pytest.raises(ValueError, match=r"embedding has 3 rows but the split's graph has 300 nodes"):
        link_prediction_features(x[:3], split)
    with pytest.raises(ValueError, match="C must be"):
        edge_classifier_scores(x, split, C=0)
