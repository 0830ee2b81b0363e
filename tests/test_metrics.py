"""Metrics: pair scores, AP / ROC-AUC against scikit-learn and first principles,
node-classification F1 on cases whose answer is known, and the spectral baseline."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score
from threadpoolctl import threadpool_limits

from lgekit import Graph, split_edges
from lgekit.metrics import average_precision, node_classification_f1, pair_scores, roc_auc
from lgekit.models.spectral import spectral_embedding
from strategies import embeddings


@st.composite
def scored_pairs(draw, max_nodes=12, max_pairs=30):
    """(embedding, positives, negatives) with at least one pair of each kind."""
    n = draw(st.integers(2, max_nodes))
    x = draw(embeddings(n, dim=st.integers(1, 5)))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    pos = np.array(draw(st.lists(pair, min_size=1, max_size=max_pairs)), dtype=np.int64)
    neg = np.array(draw(st.lists(pair, min_size=1, max_size=max_pairs)), dtype=np.int64)
    return x, pos, neg


def reference_scores(x, pairs):
    return np.array([float(np.dot(x[u].astype(np.float64), x[v].astype(np.float64))) for u, v in pairs])


# ---------------------------------------------------------------------- link prediction
@given(scored_pairs())
def test_average_precision_equals_sklearn(data):
    x, pos, neg = data
    scores = np.concatenate([reference_scores(x, pos), reference_scores(x, neg)])
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    assert average_precision(x, pos, neg) == pytest.approx(average_precision_score(y, scores), abs=1e-12)
    assert roc_auc(x, pos, neg) == pytest.approx(roc_auc_score(y, scores), abs=1e-12)


@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_metrics_from_first_principles(n_pos, n_neg, seed):
    # continuous random scores (no ties): AP = mean over positives of the precision at
    # their rank; AUC = fraction of (positive, negative) pairs ranked correctly
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_pos + n_neg, 1))
    pos = np.column_stack([np.arange(n_pos), np.arange(n_pos)])              # score x_u^2
    neg = np.column_stack([np.arange(n_pos, n_pos + n_neg)] * 2)
    s_pos, s_neg = x[:n_pos, 0] ** 2, x[n_pos:, 0] ** 2
    ranks = np.sort([np.sum(np.r_[s_pos, s_neg] >= s) for s in s_pos])      # 1-based rank of each positive
    ap = np.mean(np.arange(1, n_pos + 1) / ranks)
    auc = np.mean(s_pos[:, None] > s_neg[None, :])
    assert average_precision(x, pos, neg) == pytest.approx(ap, abs=1e-12)
    assert roc_auc(x, pos, neg) == pytest.approx(auc, abs=1e-12)


def test_random_embedding_scores_about_chance():
    # 4 negatives per positive: AP of random scores ~ 1/5, AUC ~ 1/2.  With k = 2000
    # positives the AUC's standard deviation is sqrt((1 + r + 1) / (12 r k)) ~ 0.0072
    # (Hanley & McNeil); 5 sd = 0.036.  AP's spread is of the same order (empirically 0.01).
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 16))
    pos = rng.integers(0, 3000, size=(2000, 2))
    neg = rng.integers(0, 3000, size=(8000, 2))
    assert abs(roc_auc(x, pos, neg) - 0.5) < 0.036
    assert abs(average_precision(x, pos, neg) - 0.2) < 0.05


@given(st.integers(1, 30), st.integers(1, 8), st.integers(0, 200), st.integers(0, 2**32 - 1))
def test_pair_scores_matches_float64_reference(n, dim, k, seed):
    rng = np.random.default_rng(seed)
    x32 = rng.normal(size=(n, dim)).astype(np.float32)
    pairs = rng.integers(0, n, size=(k, 2))
    ref = reference_scores(x32, pairs)  # float32 inputs, float64 products and sums
    np.testing.assert_allclose(pair_scores(x32, pairs), ref, rtol=1e-12, atol=1e-12)
    ctx = rng.normal(size=(n, dim))
    np.testing.assert_allclose(pair_scores(x32, pairs, context=ctx),
                               [float(x32[u].astype(float) @ ctx[v]) for u, v in pairs], rtol=1e-12, atol=1e-12)


def test_pair_scores_any_layout_and_dtype():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(50, 5))
    pairs = rng.integers(0, 50, size=(301, 2))
    ref = reference_scores(x, pairs)
    np.testing.assert_allclose(pair_scores(np.asfortranarray(x), pairs), ref, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(pair_scores(x[:, ::-1], pairs[:, ::-1].astype(np.int32)), ref, rtol=1e-13, atol=1e-13)
    xi = rng.integers(-3, 4, size=(50, 5))
    np.testing.assert_array_equal(pair_scores(xi, pairs), reference_scores(xi.astype(float), pairs))
    mixed = pair_scores(x.astype(np.float32), pairs, context=x)  # float32 and float64: computed in float64
    np.testing.assert_allclose(mixed, [float(x[u].astype(np.float32).astype(float) @ x[v]) for u, v in pairs],
                               rtol=1e-12, atol=1e-12)
    assert pair_scores(x, np.empty((0, 2), dtype=np.int64)).shape == (0,)


def test_link_metric_input_errors():
    x = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"embedding contains non-finite values \(NaN or inf\), e.g. at row 2, column 1"):
        x_nan = x.copy()
        x_nan[2, 1] = np.nan
        average_precision(x_nan, [[0, 1]], [[0, 2]])
    # one pair rule (lgekit._validation.check_pairs) for metrics, evaluation and Graph.has_edges
    with pytest.raises(ValueError, match=r"positives must hold node indices in \[0, 4\), got values in \[0, 4\]"):
        average_precision(x, [[0, 4]], [[0, 2]])
    with pytest.raises(ValueError, match=r"negatives must hold node indices in \[0, 4\), got values in \[-1, 2\]"):
        roc_auc(x, [[0, 1]], [[-1, 2]])
    with pytest.raises(ValueError, match=r"pairs must be an \(k, 2\) array"):
        pair_scores(x, [0, 1, 2])
    with pytest.raises(ValueError, match="must hold integer node indices, got dtype float64"):
        pair_scores(x, [[0.0, 1.0]])
    with pytest.raises(ValueError, match=r"embedding must be 2-D \(n_nodes, dim\), got shape \(4,\)"):
        pair_scores(np.ones(4), [[0, 1]])
    with pytest.raises(TypeError, match="embedding must hold real numbers"):
        pair_scores(np.array([["a"]]), [[0, 0]])
    with pytest.raises(ValueError, match="need at least one positive and one negative pair, got 1 positives and 0"):
        average_precision(x, [[0, 1]], np.empty((0, 2), dtype=int))
    with pytest.raises(ValueError, match=r"context must have the embedding's shape \(4, 2\)"):
        pair_scores(x, [[0, 1]], context=np.ones((4, 3)))


# ---------------------------------------------------------------------- node classification
def one_hot(classes, k):
    out = np.zeros((len(classes), k), dtype=np.int8)
    out[np.arange(len(classes)), classes] = 1
    return out


def test_f1_is_one_when_embedding_is_the_labels():
    rng = np.random.default_rng(0)
    # multi-label: 300 nodes, 5 classes, 1-3 labels each; the embedding is the indicator itself,
    # so class j is linearly separable by feature j and the top-k rule recovers the labels exactly
    y = np.zeros((300, 5), dtype=np.int8)
    for i in range(300):
        y[i, rng.choice(5, size=rng.integers(1, 4), replace=False)] = 1
    x = 4.0 * y + 0.01 * rng.normal(size=y.shape)
    for strategy in ("topk", "threshold"):
        res = node_classification_f1(x, sp.csr_matrix(y), train_ratio=0.5, seed=1, strategy=strategy)
        assert res["micro_f1"] == 1.0 and res["macro_f1"] == 1.0, (strategy, res)
        assert res["n_train"] == 150 and res["n_test"] == 150


def test_f1_of_random_embedding_is_chance():
    # single label, K = 4 balanced iid classes, features independent of labels: each test
    # prediction is independent of the test label, so Micro-F1 (= accuracy with k = 1) is
    # Binomial(n_test, 1/4) / n_test: sd = sqrt(3/16 / 1000) = 0.0137; 5 sd = 0.068
    rng = np.random.default_rng(0)
    classes = rng.integers(0, 4, size=2000)
    x = rng.normal(size=(2000, 8))
    res = node_classification_f1(x, classes, train_ratio=0.5, seed=0)
    assert abs(res["micro_f1"] - 0.25) < 0.068
    assert res["macro_f1"] <= res["micro_f1"] + 0.068  # no class is predicted better than chance either


def test_single_label_micro_f1_is_accuracy():
    rng = np.random.default_rng(2)
    classes = rng.integers(0, 3, size=200)
    centers = rng.normal(scale=3.0, size=(3, 2))
    x = centers[classes] + rng.normal(size=(200, 2))
    res = node_classification_f1(x, classes, train_ratio=0.6, seed=0)
    # reproduce the protocol by hand: same permutation, one-vs-rest liblinear, arg-max
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    r = np.random.default_rng(0)
    perm = r.permutation(200)
    train, test = perm[:120], perm[120:]
    clf = OneVsRestClassifier(LogisticRegression(solver="liblinear", random_state=int(r.integers(2**31 - 1))))
    clf.fit(x[train], one_hot(classes[train], 3))
    acc = np.mean(np.argmax(clf.predict_proba(x[test]), axis=1) == classes[test])
    assert res["micro_f1"] == pytest.approx(acc, abs=1e-12)


def test_unlabelled_nodes_are_left_out():
    rng = np.random.default_rng(3)
    y = one_hot(rng.integers(0, 3, size=120), 3)
    x = rng.normal(size=(120, 4)) + 2.0 * y[:, :3] @ np.eye(3, 4)
    # add 60 unlabelled nodes with wild embeddings, interleaved
    x_all = np.zeros((180, 4))
    y_all = np.zeros((180, 3), dtype=np.int8)
    labelled = np.sort(rng.choice(180, size=120, replace=False))
    x_all[labelled], y_all[labelled] = x, y
    x_all[np.setdiff1d(np.arange(180), labelled)] = 1e3
    assert node_classification_f1(x_all, y_all, seed=4) == node_classification_f1(x, y, seed=4)


def test_f1_accepts_graph_lists_of_ratios_and_repeats():
    rng = np.random.default_rng(5)
    n = 90
    classes = np.arange(n) % 3
    g = Graph.from_edges([(i, (i + 1) % n) for i in range(n)], nodes=n, labels=list(classes))
    x = one_hot(classes, 3) * 3.0 + 0.1 * rng.normal(size=(n, 3))
    res = node_classification_f1(x, g, train_ratio=[0.3, 0.7], seed=0, n_repeats=3)
    assert set(res) == {0.3, 0.7}
    for ratio, r in res.items():
        assert r["train_ratio"] == ratio and r["n_repeats"] == 3
        assert len(r["micro_f1_all"]) == 3 and r["micro_f1"] == pytest.approx(np.mean(r["micro_f1_all"]))
        assert r["micro_f1_std"] == pytest.approx(np.std(r["micro_f1_all"], ddof=1))
    assert node_classification_f1(x, g, seed=0, n_repeats=3) == node_classification_f1(x, g, seed=0, n_repeats=3)
    single = node_classification_f1(x, g.labels, seed=0)
    assert "micro_f1_std" not in single


def test_f1_input_errors():
    x = np.ones((10, 2))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=r"labels has 9 rows \(one per node\) but the embedding has 10 rows"):
        node_classification_f1(x, y[:9])
    with pytest.raises(ValueError, match=r"train_ratio must be a number in \(0, 1\), got 1.0"):
        node_classification_f1(x, y, train_ratio=1.0)
    with pytest.raises(ValueError, match=r"train_ratio\[1\] must be a number in \(0, 1\), got 0"):
        node_classification_f1(x, y, train_ratio=[0.5, 0])
    with pytest.raises(ValueError, match="non-empty list"):
        node_classification_f1(x, y, train_ratio=[])
    with pytest.raises(ValueError, match=r"train_ratio=0.01 leaves 0 of 10 labelled nodes"):
        node_classification_f1(x, y, train_ratio=0.01)
    with pytest.raises(ValueError, match="strategy must be 'topk' or 'threshold', got 'argmax'"):
        node_classification_f1(x, y, strategy="argmax")
    with pytest.raises(ValueError, match="n_repeats must be an int >= 1, got 0"):
        node_classification_f1(x, y, n_repeats=0)
    with pytest.raises(ValueError, match="C must be a finite number > 0, got 0"):
        node_classification_f1(x, y, C=0)
    with pytest.raises(ValueError, match="has no node labels"):
        node_classification_f1(x, Graph.from_edges([(0, 1)], nodes=10))
    with pytest.raises(ValueError, match="need at least 2 labelled nodes"):
        node_classification_f1(x, np.full(10, -1))
    with pytest.raises(ValueError, match=r"labels must hold 0/1 memberships \(1: member, 0 or absent: not\), got 2.0 at node index 0, class 0"):
        node_classification_f1(x, 2 * np.eye(10, 3))
    x_nan = x.copy()
    x_nan[3, 0] = np.inf
    with pytest.raises(ValueError, match="embedding contains non-finite values"):
        node_classification_f1(x_nan, y)


# ---------------------------------------------------------------------- spectral baseline
@pytest.mark.parametrize("n, p", [(200, 0.05), (700, 0.02)])  # dense path, then ARPACK path
def test_spectral_embedding_is_top_abs_eigen_gram(n, p):
    rng = np.random.default_rng(n)
    a = np.triu(rng.random((n, n)) < p, 1)
    g = Graph.from_scipy(sp.csr_matrix(a + a.T))
    x = spectral_embedding(g, 6, seed=0)
    with threadpool_limits(limits=1, user_api="blas"):  # threaded BLAS crawls on a busy machine
        values, vectors = np.linalg.eigh(g.to_scipy().toarray())
    top = np.argsort(-np.abs(values))[:6]
    gram = (vectors[:, top] * np.abs(values[top])) @ vectors[:, top].T
    # the Gram matrix X X^T is independent of the eigenvectors' signs (distinct eigenvalues here)
    np.testing.assert_allclose(x @ x.T, gram, atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(x, axis=0) ** 2, np.abs(values[top]), rtol=1e-8)
    np.testing.assert_array_equal(x, spectral_embedding(g, 6, seed=0))


def test_spectral_baseline_on_planted_partition():
    # two dense blocks (p_in = 0.2) joined sparsely (p_out = 0.01).  The rank-2 embedding
    # scores a pair by its block pattern: ~p_in inside a block, ~p_out across.  Test
    # positives lie inside blocks (96%); of the r = 4 uniform negatives per positive half lie
    # inside blocks too, and inside a block the order is noise.  Hence AP ~ 1 / (1 + r/2) = 1/3
    # (chance: 1/5) and AUC ~ 1/2 + 1/2 * 1/2 = 3/4; degree noise moves both by a few 0.01
    # (0.33-0.36 and 0.75-0.77 over seeds 0-3), so +-0.05 separates them from chance.
    rng = np.random.default_rng(0)
    blocks = np.repeat([0, 1], 150)
    prob = np.where(blocks[:, None] == blocks[None, :], 0.2, 0.01)
    a = np.triu(rng.random((300, 300)) < prob, 1)
    g = Graph.from_scipy(sp.csr_matrix(a + a.T))
    s = split_edges(g, seed=0)
    x = spectral_embedding(s.train_graph, 2, seed=0)
    assert abs(average_precision(x, s.test_positives, s.test_negatives) - 1 / 3) < 0.05
    assert abs(roc_auc(x, s.test_positives, s.test_negatives) - 3 / 4) < 0.05
    # the blocks are the labels: the block indicator is linear in the embedding
    assert node_classification_f1(x, blocks, seed=0)["micro_f1"] > 0.95


def test_spectral_errors_and_directed():
    g = Graph.from_edges([(0, 1), (1, 2)], directed=True)
    x = spectral_embedding(g, 2, seed=0)  # symmetrised (A + A^T) / 2
    sym = Graph.from_edges([(0, 1), (1, 2)], weights=[0.5, 0.5])
    np.testing.assert_allclose(x @ x.T, spectral_embedding(sym, 2, seed=0) @ spectral_embedding(sym, 2, seed=0).T)
    with pytest.raises(ValueError, match=r"dim must be an int in \[1, n_nodes=3\], got 4"):
        spectral_embedding(g, 4)
    with pytest.raises(TypeError, match="graph must be an lgekit.Graph, an EdgeSplit, .*got dict"):
        spectral_embedding({}, 1)


# ---------------------------------------------------------------------- real data
@pytest.mark.slow
def test_email_eu_core_single_label(data_dir):
    from lgekit import datasets

    g = datasets.load("email-eu-core")
    x = spectral_embedding(g, 32, seed=0)
    res = node_classification_f1(x, g, train_ratio=0.5, seed=0)
    # majority-class rate (the best label-blind single-label predictor) is the largest class share
    counts = np.asarray(g.labels.sum(axis=0)).ravel()
    majority = counts.max() / counts.sum()
    assert res["micro_f1"] > majority + 0.1, (res, majority)


@pytest.mark.slow
def test_blogcatalog_node_classification(data_dir):
    from lgekit import datasets

    g = datasets.load("blogcatalog")
    assert g.n_labels == 39
    x = spectral_embedding(g, 32, seed=0)
    res = node_classification_f1(x, g, train_ratio=0.5, seed=0)
    # chance level of the top-k rule: predicting k labels by class frequency gives a
    # Micro-F1 near sum_j f_j^2 / sum_j f_j (f_j = class frequency), about 0.06 here
    freq = np.asarray(g.labels.sum(axis=0)).ravel() / g.labels.nnz
    chance = float(np.sum(freq ** 2))
    assert res["micro_f1"] > 2 * chance and 0 < res["macro_f1"] < res["micro_f1"]


# ---------------------------------------------------------------------- the README's main command
def test_demo_command_end_to_end(tmp_path, capsys):
    from lgekit.cli import main

    # a labelled two-community graph written as an edge list + label file
    rng = np.random.default_rng(0)
    blocks = np.repeat([0, 1], 60)
    prob = np.where(blocks[:, None] == blocks[None, :], 0.25, 0.02)
    u, v = np.nonzero(np.triu(rng.random((120, 120)) < prob, 1))
    (tmp_path / "g.txt").write_text("".join(f"{a} {b}\n" for a, b in zip(u, v)))
    assert main(["demo", "--dataset", str(tmp_path / "g.txt"), "--dim", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for text in ("n_test_positives", "test average precision", "test ROC-AUC", f"{round(0.2 * len(u)):,}"):
        assert text in out
    assert "Micro-F1" not in out  # no labels, no node classification
    assert main(["demo", "--dataset", str(tmp_path / "g.txt"), "--dim", "500"]) == 2
    assert "--dim 500 exceeds the number of nodes (120)" in capsys.readouterr().err


# ---------------------------------------------------------------------- AP from scores
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40), st.lists(st.integers(-3, 3), min_size=1, max_size=40),
       st.sampled_from([1.0, 0.25, 1e-3]))
def test_average_precision_from_scores_equals_sklearn_with_ties(pos, neg, scale):
    # small integer scores: ties within and across the classes on almost every draw
    from lgekit.metrics import average_precision_from_scores

    pos, neg = np.array(pos) * scale, np.array(neg) * scale
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    expected = average_precision_score(y, np.r_[pos, neg])
    assert average_precision_from_scores(pos, neg) == pytest.approx(expected, abs=1e-12)


def test_average_precision_from_scores_rejects_empty_and_nan():
    from lgekit.metrics import average_precision_from_scores

    with pytest.raises(ValueError, match="at least one positive and one negative"):
        average_precision_from_scores([], [1.0])
    with pytest.raises(ValueError, match="finite"):
        average_precision_from_scores([np.nan, 1.0], [0.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pair_scores_do_not_depend_on_threads(dtype):
    from lgekit._scoring import pair_dots

    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 37)).astype(dtype)
    pairs = rng.integers(0, 50, size=(1000, 2)).astype(np.int64)
    one = pair_dots(x, x, pairs, 1)
    assert np.array_equal(one, pair_dots(x, x, pairs, 2))
    assert np.allclose(one, reference_scores(x, pairs), rtol=1e-12, atol=1e-12)
