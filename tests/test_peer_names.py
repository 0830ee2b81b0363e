"""The names peers use, where they cost nothing (issue 43, items 5, 8 and 9): gensim's ``most_similar(topn=,
positive=, negative=)``, ``model[key]`` and ``to_gensim()``, karateclub's ``get_embedding()``, and
``NodeEmbedding`` as scikit-learn expects it (one embedding per grid point at any number of threads, the
``positive_only`` tag).  gensim is no lgekit dependency: its test is skipped without it."""
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.utils import estimator_checks as checks

from lgekit import Graph, LogisticEmbedding
from lgekit.datasets import planted_partition_graph
from lgekit.models.transductive import NodeEmbedding


@pytest.fixture(scope="module")
def fitted():
    g = planted_partition_graph(n_nodes=150, n_labels=3, mean_degree=8, seed=2)
    return g, LogisticEmbedding(dim=6, epochs=5, random_state=0).fit(g)


def _combined(model, positive, negative, by):
    """gensim's combined query written out: the mean of +/- (unit, for cosine) vectors, the inputs left out."""
    x = model.embedding_.astype(np.float64)
    rows = [int(np.flatnonzero(model.node_ids_ == u)[0]) for u in positive + negative]
    v = x[rows]
    if by == "cosine":
        v = v / np.linalg.norm(v, axis=1, keepdims=True)
    q = (np.r_[np.ones(len(positive)), -np.ones(len(negative))] @ v) / len(rows)
    scores = x @ q
    if by == "cosine":
        scores = scores / (np.linalg.norm(x, axis=1) * np.linalg.norm(q))
    scores[rows] = -np.inf
    order = np.argsort(-scores, kind="stable")
    return model.node_ids_[order], scores[order]


@pytest.mark.parametrize("by", ["score", "cosine"])
def test_positive_and_negative_make_one_combined_query(fitted, by):
    g, model = fitted
    pos, neg = g.node_ids[:3].tolist(), g.node_ids[10:12].tolist()
    ids, scores = model.most_similar(positive=pos, negative=neg, topn=7, by=by)
    want_ids, want_scores = _combined(model, pos, neg, by)
    assert ids.tolist() == want_ids[:7].tolist() and np.allclose(scores, want_scores[:7])
    assert not set(ids.tolist()) & set(pos + neg)
    # the wrong version, a batch: one answer per node, not one for the combination
    batch, _ = model.most_similar(pos, k=7, by=by)
    assert batch.shape == (3, 7) and ids.shape == (7,)
    one, _ = model.most_similar(positive=pos[0], topn=7, by=by)       # one node: gensim's most_similar(key)
    assert one.tolist() == model.most_similar(pos[0], 7, by=by)[0].tolist()


def test_topn_is_k_and_bad_combinations_are_refused(fitted):
    g, model = fitted
    node = g.node_ids[0]
    assert model.most_similar(node, topn=5)[0].tolist() == model.most_similar(node, k=5)[0].tolist()
    with pytest.raises(ValueError, match="k=3 and topn=5"):
        model.most_similar(node, k=3, topn=5)
    with pytest.raises(ValueError, match="give either node .* or positive="):
        model.most_similar(node, positive=[node])
    with pytest.raises(TypeError, match="most_similar needs node, or positive="):
        model.most_similar()
    with pytest.raises(ValueError, match="positive and negative are both empty"):
        model.most_similar(positive=[])
    with pytest.raises(KeyError):
        model.most_similar(positive=["no such node"])


def test_model_key_and_get_embedding(fitted):
    g, model = fitted
    node = g.node_ids[4]
    assert np.array_equal(model[node], model.transform(node))
    assert np.array_equal(model[[node, g.node_ids[0]]], model.transform([node, g.node_ids[0]]))
    emb = model.get_embedding()
    assert np.array_equal(emb, model.embedding_) and emb is not model.embedding_
    emb[0, 0] += 1.0
    assert not np.array_equal(emb, model.embedding_)        # a copy: writing it leaves the model alone


def test_to_gensim_agrees_with_most_similar(fitted):
    pytest.importorskip("gensim")
    g, model = fitted
    kv = model.to_gensim()
    assert kv.index_to_key == [str(i) for i in model.node_ids_.tolist()]
    assert np.allclose(kv[str(g.node_ids[3])], model[g.node_ids[3]], atol=1e-6)
    for node in g.node_ids[:20].tolist():
        ids, scores = model.most_similar(node, topn=5, by="cosine")
        theirs = kv.most_similar(str(node), topn=5)
        assert [k for k, _ in theirs] == [str(i) for i in ids.tolist()]
        assert np.allclose([s for _, s in theirs], scores, atol=1e-5)
    pos, neg = g.node_ids[:3].tolist(), g.node_ids[5:7].tolist()
    ours, _ = model.most_similar(positive=pos, negative=neg, topn=5, by="cosine")
    theirs = kv.most_similar(positive=[str(u) for u in pos], negative=[str(u) for u in neg], topn=5)
    assert [k for k, _ in theirs] == [str(i) for i in ours.tolist()]


# ---------------------------------------------------------------------- NodeEmbedding
def test_the_cache_holds_at_two_threads_so_the_refit_is_the_scored_embedding():
    g = planted_partition_graph(n_nodes=120, n_labels=3, seed=0)
    y = np.asarray(g.labels.argmax(axis=1)).ravel()
    model = LogisticEmbedding(dim=8, epochs=3, random_state=0, n_threads=2)    # hogwild: runs differ
    NodeEmbedding.clear_cache()
    pipe = make_pipeline(NodeEmbedding(model, graph=g), LogisticRegression())
    search = GridSearchCV(pipe, {"nodeembedding__model__lam_r": [0.1, 1.0]}, cv=KFold(3, shuffle=True, random_state=0))
    search.fit(g.node_ids.reshape(-1, 1), y)
    info = NodeEmbedding.cache_info()
    # 2 grid points x 3 folds + 1 refit = 7 fits, 2 trained: the wrong version (no cache at 2 threads) trains 7
    assert (info["misses"], info["hits"]) == (2, 5)
    best = search.best_estimator_.named_steps["nodeembedding"].model_
    scored = NodeEmbedding(model.set_params(lam_r=search.best_params_["nodeembedding__model__lam_r"]),
                           graph=g).fit().model_
    assert best is scored


def test_a_graph_of_non_negative_ids_declares_positive_only_input():
    g = Graph.from_edges(np.column_stack([np.arange(150), np.roll(np.arange(150), 1)]))
    estimator = NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=0), graph=g)
    checks.check_positive_only_tag_during_fit("NodeEmbedding", estimator)     # failed before issue 43
    with pytest.raises(ValueError, match=r"Negative values in data passed to NodeEmbedding: .* got -1"):
        estimator.fit([[0], [-1]])
    signed = Graph.from_edges([(-1, 0), (0, 1)])
    assert NodeEmbedding(graph=signed).__sklearn_tags__().input_tags.positive_only is False
