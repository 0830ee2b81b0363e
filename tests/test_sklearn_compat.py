"""scikit-learn conventions (issue #16, item 3): fit(X, y=None, *, callbacks=None), fit_transform,
partial_fit, transform of a graph, score(split), clone / get_params / set_params, a Pipeline that
trains a node classifier, and the supported way to tune lam_r (GridSearchCV needs indexable X)."""
import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import make_pipeline

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding
from lgekit.callbacks import Callback

MODELS = {
    "logistic": lambda **kw: LogisticEmbedding(**{"dim": 16, "epochs": 8, "lam_r": 0.3, "random_state": 0, **kw}),
    "hinge": lambda **kw: HingeEmbedding(**{"dim": 16, "epochs": 4, "lam_r": 1.0, "random_state": 0, **kw}),
}


@pytest.fixture(scope="module")
def labelled():
    """A planted partition with one label per node: (graph, y) with y[i] the label of node i."""
    g = lgekit.datasets.planted_partition_graph(n_nodes=400, n_labels=4, mean_degree=12, labels_per_node=1,
                                                mixing=0.1, seed=3)
    y = np.asarray(g.labels.argmax(axis=1)).ravel()
    assert np.all(np.asarray(g.labels.sum(axis=1)).ravel() == 1)
    return g, y


@pytest.fixture(scope="module")
def split(labelled):
    return lgekit.split_edges(labelled[0], test_fraction=0.2, seed=0)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_pipeline_trains_a_node_classifier(labelled, kind):
    graph, y = labelled
    pipe = make_pipeline(MODELS[kind](), LogisticRegression(max_iter=2000))
    pipe.fit(graph, y)                       # y reaches the classifier; the embedding ignores it
    embedding = pipe[0]
    assert embedding.n_iter_ == embedding.epochs
    rows = embedding.transform(graph)        # one row per node, in the graph's node order
    assert rows.shape == (graph.n_nodes, 16)
    np.testing.assert_array_equal(rows, embedding.embedding_)
    predicted = pipe.predict(graph)
    assert predicted.shape == y.shape
    # four balanced communities: chance is 0.25; the communities are what the embedding learns
    assert np.mean(predicted == y) > 0.6
    assert pipe.score(graph, y) == pytest.approx(np.mean(predicted == y))


def test_fit_transform_is_fit_then_transform(labelled):
    graph, y = labelled
    rows = MODELS["logistic"]().fit_transform(graph, y)
    model = MODELS["logistic"]().fit(graph)
    np.testing.assert_array_equal(rows, model.transform(graph))
    # fit_params reach fit: callbacks run
    seen = []

    class Count(Callback):
        def on_epoch_end(self, model, epoch, record):
            seen.append(epoch)

    MODELS["logistic"](epochs=3).fit_transform(graph, callbacks=[Count()])
    assert seen == [0, 1, 2]


def test_y_and_callbacks_are_not_confused():
    # fit's second positional argument is y (ignored), callbacks are keyword-only
    g = nx.karate_club_graph()
    labels = np.array([g.nodes[v]["club"] == "Officer" for v in g], dtype=int)
    model = LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(g, labels)
    assert model.n_iter_ == 2
    with pytest.raises(TypeError):
        model.fit(g, labels, [Callback()])                          # noqa: the third is keyword-only
    with pytest.raises(TypeError):
        model.partial_fit(g, labels, 2)
    model.partial_fit(g, labels, epochs=2)
    assert model.n_iter_ == 4
    with pytest.raises(TypeError, match="callbacks must be a sequence of lgekit.callbacks.Callback objects, "
                                        "got one Callback; pass \\[callback\\]"):
        model.fit(g, callbacks=Callback())
    with pytest.raises(TypeError, match="callbacks must be lgekit.callbacks.Callback objects, got int"):
        model.fit(g, callbacks=[3])


def test_transform_of_a_networkx_graph_follows_its_node_order():
    g = nx.les_miserables_graph()          # string ids; weights up to 31, hence the small step
    model = LogisticEmbedding(dim=4, epochs=1, lr=0.05, random_state=0).fit(g)
    rows = model.transform(g)
    assert rows.shape == (g.number_of_nodes(), 4)
    for i, node in enumerate(g.nodes):
        np.testing.assert_array_equal(rows[i], model.transform([node])[0])
    # a subgraph: its nodes' rows, in its order
    sub = g.subgraph(["Valjean", "Javert", "Cosette"])
    expected = model.transform(list(sub.nodes))
    np.testing.assert_array_equal(model.transform(sub), expected)
    with pytest.raises(KeyError):
        model.transform(nx.Graph([("Valjean", "nobody")]))


def test_transform_of_a_split_and_of_a_scipy_matrix(split):
    model = MODELS["logistic"]().fit(split)
    np.testing.assert_array_equal(model.transform(split), model.embedding_)
    scipy_model = MODELS["logistic"]().fit(split.graph.to_scipy())
    np.testing.assert_array_equal(scipy_model.transform(split.graph.to_scipy()), scipy_model.embedding_)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_score_is_the_test_average_precision(split, kind):
    model = MODELS[kind]().fit(split)
    ap = lgekit.metrics.average_precision(model.embedding_, split.test_positives, split.test_negatives)
    assert model.score(split) == ap
    chance = 1 / (1 + split.negatives_per_positive)
    assert model.score(split) > 2 * chance
    with pytest.raises(TypeError, match="X must be an EdgeSplit .* got Graph"):
        model.score(split.graph)
    other = lgekit.split_edges(lgekit.datasets.planted_partition_graph(n_nodes=50, n_labels=2, seed=1), seed=0)
    with pytest.raises(ValueError, match="not the 400 nodes the model was fitted on"):
        model.score(other)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_clone_get_and_set_params(split, kind):
    model = MODELS[kind]()
    params = model.get_params()
    assert params["random_state"] == 0 and params["dim"] == 16
    copy = clone(model)
    assert copy.get_params() == params and copy is not model
    np.testing.assert_array_equal(copy.fit(split).embedding_, clone(model).fit(split).embedding_)
    fitted = clone(model).fit(split)
    again = clone(fitted)                     # clone drops the fitted state
    assert not hasattr(again, "embedding_") and not hasattr(again, "solver_")
    assert again.set_params(lam_r=2.0).lam_r == 2.0
    with pytest.raises(ValueError, match="Invalid parameter 'nope'"):
        model.set_params(nope=1)


def test_tuning_lam_r_over_a_validation_split(labelled):
    """The loop the docs show instead of GridSearchCV: fit on a validation split carved out of the
    training graph, pick by its score, refit on the split, report the test AP once."""
    graph, _ = labelled
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    val = lgekit.split_edges(split.train_graph, test_fraction=0.2, seed=1)
    base = LogisticEmbedding(dim=16, epochs=10, random_state=0)
    scores = {}
    for params in ParameterGrid({"lam_r": [0.0, 0.3, 3.0]}):
        scores[params["lam_r"]] = clone(base).set_params(**params).fit(val).score(val)
    best = max(scores, key=scores.get)
    assert len(set(scores.values())) == 3     # the parameter matters on the validation edges
    final = clone(base).set_params(lam_r=best).fit(split)
    assert 0.5 < final.score(split) <= 1.0
    # the validation split never saw the test edges
    assert not np.any(val.graph.has_edges(split.test_positives))
