"""The SGD kernel against a plain NumPy reference, and its random building blocks.

The reference re-implements the documented update rules (LogisticEmbedding's
Notes) in the most literal way: a Python loop over pairs / vertices with
NumPy vectors.  It takes the visiting order from ``_sgd.permutation`` and the
resampled negatives from ``_sgd.sample_negatives``, whose own properties
(permutation, uniformity, no self-pairs / edges, seeding) are tested here.
"""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

import lgekit
from lgekit import LogisticEmbedding
from lgekit.models import _sgd


def _sig(z):
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _log_sig(z):
    return -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))


def tiny_graph(n=14, m=30, seed=0, weighted=False):
    rng = np.random.default_rng(seed)
    edges = set()
    # a path keeps every vertex in some pair; the rest is random
    for i in range(n - 1):
        edges.add((i, i + 1))
    while len(edges) < m:
        u, v = sorted(rng.choice(n, 2, replace=False).tolist())
        edges.add((u, v))
    edges = np.array(sorted(edges))
    weights = rng.uniform(0.5, 2.0, len(edges)) if weighted else None
    return lgekit.Graph.from_edges(edges, weights=weights, nodes=n)


def reference_fit(model, data, init, seed, epochs):
    """Literal NumPy/Python implementation of ``epochs`` epochs of LogisticEmbedding."""
    X = np.array(init, dtype=np.float64, copy=True)
    n = X.shape[0]
    pos = data.positives
    w = data.pos_weights
    neg = data.negatives.copy()
    g = data.train_graph
    for t in range(epochs):
        lr = model.lr * (t + model.lr_offset) ** -0.5
        if model.negatives == "resample":
            buf = np.empty((len(neg), 2), np.int32)
            assert _sgd.sample_negatives(buf, np.asarray(g.indptr, np.int64), np.asarray(g.indices, np.int32),
                                         seed, t) == 0
            neg = buf.astype(np.int64)
        pairs = np.vstack([pos, neg])
        coef = np.concatenate([model.lam_pos * w, np.full(len(neg), model.lam_neg)])
        cnt = np.bincount(pairs.ravel(), minlength=n)
        if model.order == "edge":
            for p in _sgd.permutation(len(pairs), seed, t):
                u, v = pairs[p]
                s = float(X[u] @ X[v])
                gr = -coef[p] * _sig(-s) if p < len(pos) else coef[p] * _sig(s)
                xu, xv = X[u].copy(), X[v].copy()
                X[u] = (1.0 - lr * 2 * model.lam_r / cnt[u]) * xu + (-lr * gr) * xv
                X[v] = (1.0 - lr * 2 * model.lam_r / cnt[v]) * xv + (-lr * gr) * xu
        else:
            for u in _sgd.permutation(n, seed, t):
                grad = 2 * model.lam_r * X[u]
                for p, (a, b) in enumerate(pairs):
                    if u not in (a, b):
                        continue
                    v = b if a == u else a
                    s = float(X[u] @ X[v])
                    c = -coef[p] * _sig(-s) if p < len(pos) else coef[p] * _sig(s)
                    grad = grad + c * X[v]
                X[u] = X[u] - lr * grad
    return X


def reference_objective(X, pos, w, neg, lam_pos, lam_neg, lam_r):
    lp = -lam_pos * sum(wi * _log_sig(float(X[u] @ X[v])) for (u, v), wi in zip(pos, w))
    ln = -lam_neg * sum(_log_sig(-float(X[u] @ X[v])) for u, v in neg)
    reg = lam_r * float((X * X).sum())
    return lp + ln + reg, lp, ln, reg


def fit_with_init(data, epochs, **params):
    """Fit ``epochs`` epochs and return (model, initial embedding, kernel seed, training data)."""
    params.setdefault("random_state", 7)
    params.setdefault("dtype", "float64")
    params.setdefault("dim", 5)
    init_model = LogisticEmbedding(epochs=0, **params).fit(data)
    model = LogisticEmbedding(epochs=epochs, **params).fit(data)
    assert model._kernel_seed == init_model._kernel_seed
    return model, init_model.embedding_, model._kernel_seed, model._train_data


@pytest.fixture(scope="module")
def split():
    return lgekit.split_edges(tiny_graph(n=16, m=40, seed=1), test_fraction=0.2, seed=3)


# ----------------------------------------------------------------- reference equality
@pytest.mark.parametrize("order", ["edge", "vertex"])
@pytest.mark.parametrize("lam_r", [0.0, 0.7])
@pytest.mark.parametrize("negatives", ["fixed", "resample"])
def test_epochs_match_numpy_reference(split, order, lam_r, negatives):
    lr = 0.5 if order == "edge" else 0.05
    model, init, seed, data = fit_with_init(split, 3, order=order, lam_r=lam_r, negatives=negatives, lr=lr,
                                            lr_offset=2.0, lam_neg=0.3)
    ref = reference_fit(model, data, init, seed, 3)
    assert np.abs(ref).max() > 0.05  # the reference moved away from ~0: the comparison is not vacuous
    assert not np.allclose(ref, init, atol=1e-3)
    np.testing.assert_allclose(model.embedding_, ref, rtol=0, atol=1e-12)


def test_weighted_graph_matches_reference():
    g = tiny_graph(weighted=True, seed=4)
    model, init, seed, data = fit_with_init(g, 2, lam_r=0.3, lr=0.5)
    assert not np.all(data.pos_weights == 1)
    ref = reference_fit(model, data, init, seed, 2)
    np.testing.assert_allclose(model.embedding_, ref, rtol=0, atol=1e-12)


def test_history_objective_matches_reference(split):
    model, init, seed, data = fit_with_init(split, 2, lam_r=0.4, lr=0.5)
    obj, lp, ln, reg = reference_objective(model.embedding_, data.positives, data.pos_weights, data.negatives,
                                           model.lam_pos, model.lam_neg, model.lam_r)
    rec = model.history_[-1]
    for key, value in (("objective", obj), ("loss_pos", lp), ("loss_neg", ln), ("reg", reg)):
        assert rec[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    assert rec["mean_norm"] == pytest.approx(np.linalg.norm(model.embedding_, axis=1).mean(), rel=1e-12)
    assert rec["lr"] == pytest.approx(model.lr * (1 + model.lr_offset) ** -0.5, rel=1e-15)


# ----------------------------------------------------------------- Eq. 4 diagnostic
@pytest.mark.parametrize("lam_r", [0.0, 0.5])
def test_gradient_diagnostic_equals_finite_differences(split, lam_r):
    model, _, _, data = fit_with_init(split, 2, lam_r=lam_r, lr=0.5, lam_neg=0.4)
    diag = model._diagnostics(return_arrays=True)
    X = model.embedding_.copy()
    h = 1e-6
    fd = np.zeros_like(X)
    for i, j in itertools.product(range(X.shape[0]), range(X.shape[1])):
        Xp, Xm = X.copy(), X.copy()
        Xp[i, j] += h
        Xm[i, j] -= h
        args = (data.positives, data.pos_weights, data.negatives, model.lam_pos, model.lam_neg, lam_r)
        fd[i, j] = (reference_objective(Xp, *args)[0] - reference_objective(Xm, *args)[0]) / (2 * h)
    # central differences: truncation O(h^2 |f'''|) ~ 1e-12, cancellation ~ eps |f| / h ~ 1e-9
    np.testing.assert_allclose(diag["grad"], fd, rtol=0, atol=1e-7)
    np.testing.assert_allclose(diag["grad_norm"], np.linalg.norm(fd, axis=1), rtol=0, atol=1e-7)
    assert diag["mean_grad_norm"] == pytest.approx(np.linalg.norm(fd, axis=1).mean(), abs=1e-7)
    assert model.history_[-1]["mean_grad_norm"] == pytest.approx(diag["mean_grad_norm"], rel=1e-12)


# ----------------------------------------------------------------- precision and threads
def test_float32_agrees_with_float64(split):
    m64 = LogisticEmbedding(dim=8, epochs=3, lam_r=0.3, lr=0.5, dtype="float64", random_state=5).fit(split)
    m32 = LogisticEmbedding(dim=8, epochs=3, lam_r=0.3, lr=0.5, dtype="float32", random_state=5).fit(split)
    assert m32.embedding_.dtype == np.float32 and m64.embedding_.dtype == np.float64
    # Same init (float64 draws rounded to float32), same order.  Each float32 update has relative error
    # ~ D * eps32 = 8 * 6e-8 ~ 5e-7; a vertex takes ~3 epochs x ~20 pair visits = 60 updates, and the
    # contraction of the loss keeps errors from compounding beyond linear growth: ~3e-5 of |x| ~ 1.
    # Tolerance 3e-4 leaves a factor 10.
    scale = np.abs(m64.embedding_).max()
    assert np.abs(m32.embedding_ - m64.embedding_).max() <= 3e-4 * max(scale, 1.0)
    assert np.array_equal(m32.embedding_, m32.embedding_.astype(np.float64).astype(np.float32))
    h32, h64 = m32.history_[-1], m64.history_[-1]
    assert h32["objective"] == pytest.approx(h64["objective"], rel=1e-4)


@pytest.fixture(scope="module")
def medium_graph():
    # big enough that every level of the deterministic schedule has work for several threads
    rng = np.random.default_rng(11)
    n, m = 300, 2400
    edges = rng.integers(0, n, size=(m, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    return lgekit.Graph.from_edges(edges, nodes=n)


@pytest.mark.parametrize("order", ["edge", "vertex"])
@pytest.mark.parametrize("negatives", ["fixed", "resample"])
def test_deterministic_schedule_identical_for_any_thread_count(medium_graph, order, negatives):
    lr = 0.5 if order == "edge" else 0.02
    kw = dict(dim=16, epochs=2, lam_r=0.2, lr=lr, order=order, negatives=negatives, random_state=3,
              schedule="deterministic")
    results = [LogisticEmbedding(n_threads=t, **kw).fit(medium_graph) for t in (1, 2, 3)]
    for other in results[1:]:
        assert np.array_equal(results[0].embedding_, other.embedding_)
        for a, b in zip(results[0].history_, other.history_):
            assert {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items() if k != "seconds"}
    # and it is the sequential algorithm: hogwild on one thread gives the same bits
    seq = LogisticEmbedding(n_threads=1, **{**kw, "schedule": "hogwild"}).fit(medium_graph)
    assert np.array_equal(results[0].embedding_, seq.embedding_)


def test_hogwild_two_threads_runs_and_is_close(medium_graph):
    kw = dict(dim=16, epochs=3, lam_r=0.2, lr=0.5, random_state=3)
    det = LogisticEmbedding(**kw).fit(medium_graph)
    hog = LogisticEmbedding(n_threads=2, schedule="hogwild", **kw).fit(medium_graph)
    assert np.all(np.isfinite(hog.embedding_))
    # different update interleavings: not equal, but the same objective level (within 5%)
    assert hog.history_[-1]["objective"] == pytest.approx(det.history_[-1]["objective"], rel=0.05)


def test_levels_at_least_max_pair_count(medium_graph):
    model = LogisticEmbedding(dim=4, epochs=0, random_state=0).fit(medium_graph)
    model._init_solver(model._train_data, model._kernel_seed)
    pairs = model._pairs
    levels = _sgd.edge_levels(model._records, medium_graph.n_nodes, model._kernel_seed, 0)
    max_count = np.bincount(pairs.ravel()).max()
    assert max_count <= levels <= len(pairs)


# ----------------------------------------------------------------- random building blocks
def test_permutation_is_a_seeded_permutation():
    p = _sgd.permutation(1000, 42, 3)
    # large enough for several chunks and buckets of the parallel shuffle; threads do not matter
    big = _sgd.permutation(300_000, 5, 0)
    assert np.array_equal(np.sort(big), np.arange(300_000))
    assert np.array_equal(big, _sgd.permutation(300_000, 5, 0, 2))
    assert np.array_equal(np.sort(p), np.arange(1000))
    assert np.array_equal(p, _sgd.permutation(1000, 42, 3))
    assert not np.array_equal(p, _sgd.permutation(1000, 42, 4))
    assert not np.array_equal(p, _sgd.permutation(1000, 43, 3))
    assert len(_sgd.permutation(0, 1, 0)) == 0


def test_permutation_positions_uniform_with_many_buckets():
    # 40,000 items = 5 buckets: the probability that item i lands in position block j is 1/10 for
    # every (i-block, j-block) pair; 20 seeds x 40,000 items -> 10 x 10 table, chi-square 81 dof.
    n, blocks = 40_000, 10
    table = np.zeros((blocks, blocks))
    for seed in range(20):
        p = _sgd.permutation(n, seed, 0)
        np.add.at(table, (p * blocks // n, np.arange(n) * blocks // n), 1)
    assert stats.chi2_contingency(table).pvalue > 1e-4


def test_permutation_is_uniform():
    # all 24 permutations of 4 items over 24,000 seeds: chi-square goodness of fit, 23 dof.
    counts = {}
    for seed in range(24_000):
        key = tuple(_sgd.permutation(4, seed, 0))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 24
    chi2 = stats.chisquare(list(counts.values()))
    assert chi2.pvalue > 1e-4  # fails with probability 1e-4 under uniformity (fixed seeds: deterministic)


def test_sample_negatives_avoids_edges_and_is_uniform():
    g = tiny_graph(n=12, m=25, seed=2)
    indptr, indices = np.asarray(g.indptr, np.int64), np.asarray(g.indices, np.int32)
    out = np.empty((40_000, 2), np.int32)
    assert _sgd.sample_negatives(out, indptr, indices, 9, 0) == 0
    assert not np.any(out[:, 0] == out[:, 1])
    assert not np.any(g.has_edges(out)) and not np.any(g.has_edges(out[:, ::-1]))
    # every non-edge ordered pair equally likely: chi-square over the allowed ordered pairs
    n = g.n_nodes
    allowed = [(u, v) for u in range(n) for v in range(n) if u != v and not g.has_edges([[u, v]])[0]]
    idx = {p: i for i, p in enumerate(allowed)}
    counts = np.bincount([idx[tuple(p)] for p in out.tolist()], minlength=len(allowed))
    assert stats.chisquare(counts).pvalue > 1e-4
    again = np.empty_like(out)
    _sgd.sample_negatives(again, indptr, indices, 9, 0, 2)  # thread count does not matter
    assert np.array_equal(out, again)
    _sgd.sample_negatives(again, indptr, indices, 9, 1)
    assert not np.array_equal(out, again)


def test_build_incidence():
    pairs = np.array([[0, 1], [2, 0], [1, 2], [0, 1]], np.int32)
    indptr, nbr, src = np.empty(4, np.int64), np.empty(8, np.int32), np.empty(8, np.int32)
    _sgd.build_incidence(pairs, 3, indptr, nbr, src)
    assert indptr.tolist() == [0, 3, 6, 8]
    assert nbr[:3].tolist() == [1, 2, 1] and src[:3].tolist() == [0, 1, 3]
    assert nbr[3:6].tolist() == [0, 2, 0] and src[3:6].tolist() == [0, 2, 3]
    assert nbr[6:].tolist() == [0, 1] and src[6:].tolist() == [1, 2]


def test_nonfinite_score_sets_flag_and_stops():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(4, 3))
    emb[2, 1] = np.inf
    pairs = np.array([[0, 1], [2, 3], [1, 3]], np.int32)
    records = np.empty(3, _sgd.PAIR_RECORD_DTYPE)
    _sgd.fill_records(records, pairs, np.ones(3), 3)
    work = np.empty(3, _sgd.PAIR_RECORD_DTYPE)
    flag = _sgd.edge_epoch(emb, records, work, work, np.zeros(4), np.empty(3, np.int32),
                           np.empty(_sgd.shuffle_workspace_size(3), np.int64), np.empty(4, np.int32),
                           np.empty(3, np.int32), np.empty(6, np.int32), 1, 0, 0.1)
    assert flag == 1


def test_fill_records_signs():
    records = np.empty(3, _sgd.PAIR_RECORD_DTYPE)
    _sgd.fill_records(records, np.array([[0, 1], [1, 2], [0, 2]], np.int32), np.array([2.0, 0.5, 0.03]), 2)
    assert records["u"].tolist() == [0, 1, 0] and records["c"].tolist() == [2.0, 0.5, -0.03]


def test_deterministic_schedule_on_a_hub():
    # a star plus a ring: every pair touches the hub or a ring neighbour, so the pair sequence is one
    # long dependency chain; threads wait on each other all the time and must neither deadlock nor
    # change a bit
    n = 400
    edges = [(0, i) for i in range(1, n)] + [(i, i % (n - 1) + 1) for i in range(1, n)]
    g = lgekit.Graph.from_edges(np.array(edges), nodes=n)
    kw = dict(dim=8, epochs=2, lam_r=0.1, lr=0.3, random_state=1)
    ref = LogisticEmbedding(**kw).fit(g).embedding_
    for t in (2, 3):
        assert np.array_equal(LogisticEmbedding(n_threads=t, **kw).fit(g).embedding_, ref)
