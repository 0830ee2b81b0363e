"""NodeEmbedding: the transductive route to scikit-learn's model selection (issue 27, item 1)."""
import copy

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline

from lgekit import Graph, HingeEmbedding, LogisticEmbedding
from lgekit.models.transductive import NodeEmbedding


@pytest.fixture(autouse=True)
def empty_cache():
    NodeEmbedding.clear_cache()
    yield
    NodeEmbedding.clear_cache()


def _blocks(seed, n=150, k=3, p_in=0.15, p_out=0.01):
    """A stochastic block model: ``k`` equal communities, one label per node (its community); chance is 1/k."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    same = y[:, None] == y[None, :]
    upper = np.triu(rng.random((n, n)) < np.where(same, p_in, p_out), 1)
    return Graph.from_edges(np.argwhere(upper), nodes=n), y


@pytest.fixture(scope="module")
def labelled():
    return _blocks(seed=1)


def _pipe(g, **model):
    params = {"dim": 8, "epochs": 8, "random_state": 0, **model}
    return make_pipeline(NodeEmbedding(LogisticEmbedding(**params), graph=g), LogisticRegression(max_iter=500))


def test_grid_search_trains_once_per_setting_and_picks_a_regularised_model(labelled):
    g, y = labelled
    X = np.asarray(g.node_ids).reshape(-1, 1)
    search = GridSearchCV(_pipe(g), {"nodeembedding__model__lam_r": [0.0, 0.3, 1.0]},
                          cv=KFold(3, shuffle=True, random_state=0))
    search.fit(X, y)
    info = NodeEmbedding.cache_info()
    # 3 settings x 3 folds + the refit: 3 trainings (misses), the 7 other fits reuse one (hits)
    assert info["misses"] == 3 and info["hits"] == 7, info
    assert search.best_params_["nodeembedding__model__lam_r"] in (0.0, 0.3, 1.0)
    assert search.best_score_ > 0.8          # 3 balanced communities: chance is 1/3
    # the refitted model predicts labels of node ids
    assert search.predict(X[:5]).shape == (5,)


def test_cross_val_score_equals_a_manual_deepwalk_protocol(labelled):
    g, y = labelled
    X = np.asarray(g.node_ids)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(_pipe(g, lam_r=0.3), X, y, cv=cv)
    # by hand: embed the whole graph once, then a classifier per fold on its rows
    emb = LogisticEmbedding(dim=8, epochs=8, random_state=0, lam_r=0.3).fit(g).transform(X)
    manual = [LogisticRegression(max_iter=500).fit(emb[tr], y[tr]).score(emb[te], y[te]) for tr, te in cv.split(X)]
    np.testing.assert_allclose(scores, manual, rtol=0, atol=0)


def test_the_embedding_never_sees_the_labels_and_equals_a_plain_fit(labelled):
    g, y = labelled
    node = NodeEmbedding(LogisticEmbedding(dim=4, epochs=3, random_state=2), graph=g)
    rows = node.fit(g.node_ids[:10], y[:10]).transform(g.node_ids[[5, 0, 7]])
    plain = LogisticEmbedding(dim=4, epochs=3, random_state=2).fit(g)
    np.testing.assert_array_equal(rows, plain.transform(g.node_ids[[5, 0, 7]]).astype(np.float64))
    assert rows.dtype == np.float64 and node.n_features_out_ == 4


def test_the_cache_knows_a_cloned_graph_by_content_and_refuses_unseeded_fits(labelled):
    g, _ = labelled
    base = NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=0), graph=g)
    clone(base).fit()
    clone(base).fit()
    NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=0), graph=copy.deepcopy(g)).fit()
    assert NodeEmbedding.cache_info() == {"hits": 2, "misses": 1, "size": 1}
    # another seed, another graph of the same shape, or an unseeded model: trained anew
    NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=1), graph=g).fit()
    other, _ = _blocks(seed=2)
    NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=0), graph=other).fit()
    unseeded = NodeEmbedding(LogisticEmbedding(dim=4, epochs=2), graph=g)
    a, b = unseeded.fit().transform([0, 1]), clone(unseeded).fit().transform([0, 1])
    assert not np.array_equal(a, b)
    assert NodeEmbedding.cache_info() == {"hits": 2, "misses": 3, "size": 3}
    # cache=False always trains
    NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=0), graph=g, cache=False).fit()
    assert NodeEmbedding.cache_info()["hits"] == 2


def test_a_default_model_and_hinge_work(labelled):
    g, y = labelled
    assert NodeEmbedding(graph=g).fit().transform([0]).shape == (1, LogisticEmbedding().dim)
    pipe = make_pipeline(NodeEmbedding(HingeEmbedding(dim=4, epochs=2, random_state=0), graph=g),
                         OneVsRestClassifier(LogisticRegression()))
    assert cross_val_score(pipe, g.node_ids, y, cv=KFold(2, shuffle=True, random_state=0)).min() > 0.5


def test_directed_tables():
    g = Graph.from_edges([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 0)], directed=True)
    model = LogisticEmbedding(dim=3, epochs=2, random_state=0)
    both = NodeEmbedding(model, graph=g, table="both").fit()
    out = both.transform([2, 4])
    fitted = clone(model).fit(g)
    np.testing.assert_array_equal(out[:, :3], fitted.transform([2, 4]))
    np.testing.assert_array_equal(out[:, 3:], fitted.transform([2, 4], context=True))
    assert both.n_features_out_ == 6
    np.testing.assert_array_equal(NodeEmbedding(model, graph=g, table="context").fit().transform([2]),
                                  fitted.transform([2], context=True))


@pytest.mark.parametrize("kwargs, X, error, match", [
    ({"graph": None}, None, TypeError, "graph must be an lgekit.Graph"),
    ({"graph": 3.5}, None, TypeError, "graph must be an lgekit.Graph, an EdgeSplit, .*got float"),
    ({"model": LogisticRegression()}, None, TypeError, "model must be an lgekit embedding estimator"),
    ({"table": "context"}, None, ValueError, "undirected graph's model has one table"),
    ({"table": "rows"}, None, ValueError, "table must be one of 'embedding', 'context', 'both', got 'rows'"),
    ({"cache": "yes"}, None, TypeError, "cache must be a bool"),
    ({}, [[[0], [1]], [[2], [3]]], ValueError, r"Found array with dim 3"),
    ({}, [[0, 1], [2, 999]], ValueError, "X: .*999"),
    ({}, [0, 999], ValueError, "X: .*999"),
])
def test_bad_input_is_refused_with_a_clear_error(labelled, kwargs, X, error, match):
    g, _ = labelled
    params = {"model": LogisticEmbedding(dim=2, epochs=1, random_state=0), "graph": g, **kwargs}
    with pytest.raises(error, match=match):
        NodeEmbedding(**params).fit(X)


def test_transform_before_fit(labelled):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet"):
        NodeEmbedding(graph=labelled[0]).transform([0])
