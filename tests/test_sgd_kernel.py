"""The SGD kernel against lgekit.reference, and its random building blocks.

``lgekit.reference`` states the documented update rules (LogisticEmbedding's
Notes) in the most literal way: a Python loop over pairs / vertices with
NumPy vectors.  The tests below feed it the kernel's own visiting order
(``_schedules.edge_order`` for the edge order, ``_schedules.permutation`` for the vertex
order) and resampled negatives (``_sampling.sample_negatives``), whose own
properties (permutation, blocks and rounds, uniformity, no self-pairs /
edges, seeding) are tested here.
"""
import itertools

import numpy as np
import pytest
from scipy import special, stats

import lgekit
from lgekit._validation import InvalidParameterError
from lgekit import LogisticEmbedding, _sampling, reference
from lgekit.models import _incidence, _schedules, _sgd, _sgd_diagnostics


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


def reference_fit(model, init, epochs):
    """``epochs`` epochs of ``model`` by lgekit.reference, fed the visiting orders and negatives its solver
    reports (``epoch_negatives``, ``epoch_order``) -- the solver's public interface, not its arrays."""
    solver = model.solver_
    X = np.array(init, dtype=np.float64, copy=True)
    pos = solver.positives
    params = dict(weights=solver.positive_weights, lam_pos=model.lam_pos, lam_neg=model.lam_neg, lam_r=model.lam_r)
    for t in range(epochs):
        lr = reference.learning_rate(t, model.lr, model.lr_offset)
        assert lr == solver.learning_rate(t)
        neg = solver.epoch_negatives(t)
        order = solver.epoch_order(t, neg).order
        if model.order == "edge":
            X = reference.sgd_edge_epoch(X, pos, neg, order, lr, **params)
        else:
            X = reference.sgd_vertex_epoch(X, pos, neg, order, lr, **params)
    return X


def _incidence_csr(pairs, n):
    """Symmetric incidence CSR of a pair list: (indptr int64, partner int32, pair index int32)."""
    k = len(pairs)
    indptr, nbr, src = np.empty(n + 1, np.int64), np.empty(2 * k, np.int32), np.empty(2 * k, np.int32)
    _incidence.build_incidence(np.ascontiguousarray(pairs, dtype=np.int32), n, indptr, nbr, src)
    return indptr, nbr, src


def objective_parts(X, model, positives, weights, negatives):
    return reference.logistic_objective(X, positives, negatives, weights=weights, lam_pos=model.lam_pos,
                                        lam_neg=model.lam_neg, lam_r=model.lam_r)


def fit_with_init(data, epochs, **params):
    """Fit ``epochs`` epochs and return (model, initial embedding)."""
    params.setdefault("random_state", 7)
    params.setdefault("dtype", "float64")
    params.setdefault("dim", 5)
    init_model = LogisticEmbedding(epochs=0, **params).fit(data)
    model = LogisticEmbedding(epochs=epochs, **params).fit(data)
    assert model.solver_.seed == init_model.solver_.seed
    return model, init_model.embedding_


@pytest.fixture(scope="module")
def split():
    return lgekit.split_edges(tiny_graph(n=16, m=40, seed=1), test_fraction=0.2, seed=3)


# ----------------------------------------------------------------- reference equality
@pytest.mark.parametrize("order", ["edge", "vertex"])
@pytest.mark.parametrize("lam_r", [0.0, 0.7])
@pytest.mark.parametrize("negatives", ["fixed", "resample"])
def test_epochs_match_numpy_reference(split, order, lam_r, negatives):
    lr = 0.5 if order == "edge" else 0.05
    model, init = fit_with_init(split, 3, order=order, lam_r=lam_r, negatives=negatives, lr=lr,
                                lr_offset=2.0, lam_neg=0.3)
    ref = reference_fit(model, init, 3)
    assert np.abs(ref).max() > 0.05  # the reference moved away from ~0: the comparison is not vacuous
    assert not np.allclose(ref, init, atol=1e-3)
    np.testing.assert_allclose(model.embedding_, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("negatives", ["fixed", "resample"])
def test_deterministic_schedule_matches_numpy_reference(split, negatives):
    model, init = fit_with_init(split, 3, schedule="deterministic", lam_r=0.7, negatives=negatives,
                                lr=0.5, lr_offset=2.0, lam_neg=0.3)
    ref = reference_fit(model, init, 3)
    assert not np.allclose(ref, init, atol=1e-3)
    np.testing.assert_allclose(model.embedding_, ref, rtol=0, atol=1e-12)


def test_weighted_graph_matches_reference():
    # "scale": every edge once per epoch with loss weight lam_pos * w (the sampled mode: test_weighting.py)
    g = tiny_graph(weighted=True, seed=4)
    model, init = fit_with_init(g, 2, lam_r=0.3, lr=0.5, weighting="scale")
    assert not np.all(model.solver_.positive_weights == 1)
    ref = reference_fit(model, init, 2)
    np.testing.assert_allclose(model.embedding_, ref, rtol=0, atol=1e-12)


def test_history_objective_matches_reference(split):
    model, init = fit_with_init(split, 2, lam_r=0.4, lr=0.5)
    solver = model.solver_
    ref = reference.logistic_diagnostics(model.embedding_, solver.positives, solver.negatives,
                                         weights=solver.positive_weights, lam_pos=model.lam_pos,
                                         lam_neg=model.lam_neg, lam_r=model.lam_r)
    rec = model.history_[-1]
    for key in ("objective", "loss_pos", "loss_neg", "reg", "mean_norm", "mean_grad_norm"):
        assert rec[key] == pytest.approx(ref[key], rel=1e-12, abs=1e-12), key
    assert rec["lr"] == pytest.approx(reference.learning_rate(1, model.lr, model.lr_offset), rel=1e-15)


def test_history_objective_uses_each_epochs_resampled_negatives(split):
    model, _ = fit_with_init(split, 3, lam_r=0.4, lr=0.5, negatives="resample")
    negatives = model.solver_.negatives
    assert not np.array_equal(np.sort(negatives, axis=0), np.sort(split.train_negatives, axis=0))
    assert np.array_equal(negatives, model.solver_.epoch_negatives(2))
    ref = objective_parts(model.embedding_, model, split.train_positives, np.ones(len(split.train_positives)),
                          negatives)
    rec = model.history_[-1]
    for key, value in ref._asdict().items():
        assert rec[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


# ----------------------------------------------------------------- Eq. 2 diagnostic
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_diagnostics_kernel_on_arbitrary_pairs(dtype):
    """The kernel's losses (each pair counted once, at its smaller end), gradients and norms against
    the reference, on pairs with repeats, both orientations and a self-pair, whose loss is halved
    between the two entries it has in its vertex's list."""
    rng = np.random.default_rng(5)
    n, D = 9, 6
    X = rng.normal(scale=0.8, size=(n, D)).astype(dtype)
    pos = np.array([[0, 1], [2, 1], [3, 3], [4, 7], [7, 4], [0, 1], [8, 2]])
    neg = np.array([[5, 0], [1, 6], [6, 6], [2, 8], [2, 8], [3, 4]])
    w = rng.uniform(0.5, 2.0, len(pos))
    lam_pos, lam_neg, lam_r = 1.3, 0.4, 0.25
    pptr, pnbr, src = _incidence_csr(pos, n)
    nptr, nnbr, _ = _incidence_csr(neg, n)
    # the solver builds the same lists from its records: same partners, coefficients in the same order
    records = np.empty(len(pos), _incidence.PAIR_RECORD_DTYPE)
    pair_coef = _incidence.fill_pair_records(records, 0, pos, lam_pos, w)
    rptr, rnbr, rcoef = np.empty(n + 1, np.int64), np.empty(2 * len(pos), np.int32), np.empty(2 * len(pos))
    _incidence.record_incidence(records, 0, len(pos), rptr, rnbr, rcoef, 2, pair_coef)
    assert np.array_equal(rptr, pptr) and np.array_equal(rnbr, pnbr)
    assert np.array_equal(rcoef, lam_pos * w[src])
    gnorm, lpos, lneg, norm2 = (np.empty(n) for _ in range(4))
    grad = np.empty((n, D))
    lists = _incidence.IncidenceLists(pptr, pnbr, np.ascontiguousarray(lam_pos * w[src]), nptr, nnbr, 1.0, lam_neg)
    _sgd_diagnostics.diagnostics(X, lists, lam_r, np.empty((2, D), dtype), gnorm, lpos, lneg, norm2, 2, grad)
    X64 = X.astype(np.float64)
    params = dict(weights=w, lam_pos=lam_pos, lam_neg=lam_neg, lam_r=lam_r)
    _, lp, ln, _ = reference.logistic_objective(X64, pos, neg, **params)
    G = reference.logistic_gradient(X64, pos, neg, **params)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    assert lpos.sum() == pytest.approx(lp, rel=tol) and lneg.sum() == pytest.approx(ln, rel=tol)
    np.testing.assert_allclose(grad, G, rtol=tol, atol=tol)
    np.testing.assert_allclose(gnorm, np.linalg.norm(G, axis=1), rtol=tol, atol=tol)
    np.testing.assert_allclose(norm2, (X64 * X64).sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("lam_r", [0.0, 0.5])
def test_gradient_diagnostic_equals_finite_differences(split, lam_r):
    model, _ = fit_with_init(split, 2, lam_r=lam_r, lr=0.5, lam_neg=0.4)
    diag = model.solver_.diagnostics(return_arrays=True)
    X = model.embedding_.copy()
    h = 1e-6
    fd = np.zeros_like(X)
    pos, neg = model.solver_.positives, model.solver_.negatives
    objective = lambda Y: objective_parts(Y, model, pos, np.ones(len(pos)), neg).objective
    for i, j in itertools.product(range(X.shape[0]), range(X.shape[1])):
        Xp, Xm = X.copy(), X.copy()
        Xp[i, j] += h
        Xm[i, j] -= h
        fd[i, j] = (objective(Xp) - objective(Xm)) / (2 * h)
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


def random_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    edges = rng.integers(0, n, size=(m, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    return lgekit.Graph.from_edges(edges, nodes=n)


@pytest.fixture(scope="module")
def medium_graph():
    return random_graph(300, 2400, 11)


@pytest.fixture(scope="module")
def blocked_graph():
    # large enough that the edge-order schedule has several vertex groups at dim=64
    return random_graph(2000, 16000, 12)


@pytest.mark.parametrize("order", ["edge", "vertex"])
@pytest.mark.parametrize("negatives", ["fixed", "resample"])
def test_deterministic_schedule_identical_for_any_thread_count(blocked_graph, order, negatives):
    lr = 0.5 if order == "edge" else 0.02
    kw = dict(dim=64, epochs=2, lam_r=0.2, lr=lr, order=order, negatives=negatives, random_state=3,
              schedule="deterministic")
    results = [LogisticEmbedding(n_threads=t, **kw).fit(blocked_graph) for t in (1, 2, 3)]
    if order == "edge":
        assert results[0].solver_.n_groups >= 4
    for other in results[1:]:
        assert np.array_equal(results[0].embedding_, other.embedding_)
        for a, b in zip(results[0].history_, other.history_):
            assert {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items() if k != "seconds"}
    # vertex order: the sequential algorithm, hogwild on one thread gives the same bits; edge order:
    # the stratified sequence, which the reference below replays pair by pair
    seq = LogisticEmbedding(n_threads=1, **{**kw, "schedule": "hogwild"}).fit(blocked_graph)
    assert np.array_equal(results[0].embedding_, seq.embedding_) == (order == "vertex")


def test_hogwild_two_threads_runs_and_is_close(blocked_graph):
    kw = dict(dim=64, epochs=3, lam_r=0.2, lr=0.5, random_state=3)
    det = LogisticEmbedding(**kw).fit(blocked_graph)
    hog = LogisticEmbedding(n_threads=2, schedule="hogwild", **kw).fit(blocked_graph)
    assert np.all(np.isfinite(hog.embedding_))
    # different update interleavings: not equal, but the same objective level (within 5%)
    assert hog.history_[-1]["objective"] == pytest.approx(det.history_[-1]["objective"], rel=0.05)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blocks_schedule_is_deterministic_on_one_thread_and_close_on_three(blocked_graph, dtype):
    kw = dict(dim=64, epochs=3, lam_r=0.2, lr=0.5, random_state=3, dtype=dtype)
    det = LogisticEmbedding(schedule="deterministic", **kw).fit(blocked_graph)
    one = LogisticEmbedding(schedule="blocks", **kw).fit(blocked_graph)
    assert det.solver_.n_groups >= 4            # several rounds: the barriers are what "blocks" drops
    # one thread: the stratified sequence itself, bit for bit (and so the records too)
    assert np.array_equal(one.embedding_, det.embedding_)
    assert [r["objective"] for r in one.history_] == [r["objective"] for r in det.history_]
    order_det, order_blocks = det.solver_.epoch_order(1), one.solver_.epoch_order(1)
    assert np.array_equal(order_det.order, order_blocks.order)
    assert np.array_equal(order_det.round_ptr, order_blocks.round_ptr)
    three = LogisticEmbedding(schedule="blocks", n_threads=3, **kw).fit(blocked_graph)
    assert np.all(np.isfinite(three.embedding_))
    # lock-free across a round's boundary only: the same objective level as the barriers give (within 5%)
    assert three.history_[-1]["objective"] == pytest.approx(det.history_[-1]["objective"], rel=0.05)


def test_blocks_schedule_kernel_on_one_thread_matches_the_reference(medium_graph):
    pairs, coef, n_pos, records, rfac, start = _epoch_inputs(medium_graph, dim=7)
    order = _schedules.edge_order(pairs, medium_graph.n_nodes, 7, 21, 4, n_groups=6)[0]
    ref = _reference_epoch(start, pairs, n_pos, order, 0.4)
    out = start.copy()
    assert _sgd.edge_epoch(out, _pairs(records, n_pos), rfac, np.empty(len(records), np.int32), 21, 4, 0.4, 1, "blocks",
                           6) == _sgd.EPOCH_STATUS["OK"]
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


def test_blocks_schedule_is_refused_where_it_has_no_meaning(blocked_graph):
    with pytest.raises(InvalidParameterError, match="schedule='blocks' needs order='edge'"):
        LogisticEmbedding(schedule="blocks", order="vertex", epochs=1).fit(blocked_graph)
    with pytest.raises(InvalidParameterError, match="schedule"):
        lgekit.HingeEmbedding(schedule="blocks", epochs=1).fit(blocked_graph)
    from lgekit.models.transductive import _cache_key

    # a seeded racing fit is cached too (issue 43: the folds of a grid point share one embedding), under its own key
    racing = _cache_key(LogisticEmbedding(schedule="blocks", n_threads=2, random_state=0), blocked_graph)
    serial = _cache_key(LogisticEmbedding(schedule="blocks", random_state=0), blocked_graph)
    assert racing is not None and serial is not None and racing != serial


EPOCH_LAMBDAS = dict(lam_pos=1.0, lam_neg=0.3, lam_r=0.3)   # of the stand-alone epochs below


def _epoch_inputs(graph, dim, seed=0):
    """Pairs (edges + 4 uniform negatives each), records, rfac and a random embedding (float64)."""
    rng = np.random.default_rng(seed)
    pos = graph.edges().astype(np.int32)
    n = graph.n_nodes
    neg = rng.integers(0, n, size=(4 * len(pos), 2)).astype(np.int32)
    neg = neg[neg[:, 0] != neg[:, 1]]
    pairs = np.ascontiguousarray(np.vstack([pos, neg]), dtype=np.int32)
    coef = np.concatenate([np.full(len(pos), EPOCH_LAMBDAS["lam_pos"]), np.full(len(neg), EPOCH_LAMBDAS["lam_neg"])])
    records = np.empty(len(pairs), _incidence.PAIR_RECORD_DTYPE)
    _incidence.fill_pair_records(records, 0, pairs, 1.0)     # coefficients: from the index (see _kernel_epoch)
    cnt = np.bincount(pairs.ravel(), minlength=n)
    rfac = np.where(cnt > 0, 2 * EPOCH_LAMBDAS["lam_r"] / np.maximum(cnt, 1), 0.0)
    emb = rng.uniform(-0.3, 0.3, size=(n, dim))
    return pairs, coef, len(pos), records, rfac, emb


def _reference_epoch(start, pairs, n_pos, order, lr):
    return reference.sgd_edge_epoch(start, pairs[:n_pos], pairs[n_pos:], order, lr, **EPOCH_LAMBDAS)


def _pairs(records, n_pos, pos_coef=None, lam_pos=EPOCH_LAMBDAS["lam_pos"], lam_neg=EPOCH_LAMBDAS["lam_neg"]):
    return _incidence.PairRecords(records, n_pos, pos_coef, lam_pos, lam_neg)


def _kernel_epoch(emb, records, n_pos, rfac, seed, epoch, lr, threads=1, schedule="deterministic", groups=0):
    status = _sgd.edge_epoch(emb, _pairs(records, n_pos), rfac, np.empty(len(records), np.int32), seed, epoch, lr,
                             threads, schedule, groups)
    assert status == _sgd.EPOCH_STATUS["OK"]
    return emb


@pytest.mark.parametrize("groups", [1, 2, 6])
def test_blocked_epoch_matches_reference_for_any_thread_count(medium_graph, groups):
    pairs, coef, n_pos, records, rfac, start = _epoch_inputs(medium_graph, dim=7)
    n = medium_graph.n_nodes
    order = _schedules.edge_order(pairs, n, 7, 21, 4, n_groups=groups)[0]
    ref = _reference_epoch(start, pairs, n_pos, order, 0.4)
    assert np.abs(ref - start).max() > 1e-3
    for threads in (1, 2, 3):
        out = _kernel_epoch(start.copy(), records, n_pos, rfac, 21, 4, 0.4, threads, "deterministic", groups)
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


def test_hogwild_epoch_is_the_uniform_order(medium_graph):
    pairs, coef, n_pos, records, rfac, start = _epoch_inputs(medium_graph, dim=7)
    order, bptr, rptr = _schedules.edge_order(pairs, medium_graph.n_nodes, 7, 21, 4, schedule="hogwild")
    assert np.array_equal(order, _schedules.permutation(len(pairs), 21, 4)) and bptr.tolist() == [0, len(pairs)]
    ref = _reference_epoch(start, pairs, n_pos, order, 0.4)
    out = _kernel_epoch(start.copy(), records, n_pos, rfac, 21, 4, 0.4, 1, "hogwild")
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)
    # two threads without locks: not reproducible (each thread starts its half of the sequence from
    # the rows as they are then), but it descends the objective as far as the sequential epoch does
    hog = _kernel_epoch(start.copy(), records, n_pos, rfac, 21, 4, 0.4, 2, "hogwild")
    assert np.all(np.isfinite(hog))
    objective = lambda X: reference.logistic_objective(X, pairs[:n_pos], pairs[n_pos:], **EPOCH_LAMBDAS).objective
    drop_ref, drop_hog = objective(start) - objective(ref), objective(start) - objective(hog)
    assert drop_ref > 0 and drop_hog == pytest.approx(drop_ref, rel=0.1)


def test_edge_order_is_stratified():
    # every pair once; K rounds of K/2 (and one of K) vertex-disjoint blocks; a block's pairs all
    # join the same two vertex groups
    rng = np.random.default_rng(3)
    n, K = 500, 8
    pairs = rng.integers(0, n, size=(20_000, 2)).astype(np.int32)
    pairs = np.ascontiguousarray(pairs[pairs[:, 0] != pairs[:, 1]])
    order, bptr, rptr = _schedules.edge_order(pairs, n, 16, 5, 2, n_groups=K)
    assert np.array_equal(np.sort(order), np.arange(len(pairs)))
    assert len(bptr) == K * (K + 1) // 2 + 1 and len(rptr) == K + 1 and rptr[-1] == len(bptr) - 1
    sizes = sorted(np.diff(rptr).tolist())
    assert sizes == [K // 2] * (K - 1) + [K]
    for i in range(K):
        seen = set()
        for b in range(rptr[i], rptr[i + 1]):
            rows = set(pairs[order[bptr[b]:bptr[b + 1]]].ravel().tolist())
            assert not rows & seen, "two blocks of one round share a vertex"
            seen |= rows
    # the groups, recovered from the round of K blocks {a, a}: every block then joins one pair of
    # groups, and the blocks cover all K (K + 1) / 2 pairs of groups once
    diagonal = int(np.flatnonzero(np.diff(rptr) == K)[0])
    group = {}
    for a, b in enumerate(range(rptr[diagonal], rptr[diagonal + 1])):
        for x in pairs[order[bptr[b]:bptr[b + 1]]].ravel().tolist():
            group[x] = a
    assert len(set(group.values())) == K
    joined = []
    for b in range(len(bptr) - 1):
        kinds = {tuple(sorted((group[x], group[y]))) for x, y in pairs[order[bptr[b]:bptr[b + 1]]].tolist()
                 if x in group and y in group}
        assert len(kinds) == 1, "a block joins more than one pair of groups"
        joined.append(kinds.pop())
    assert sorted(joined) == sorted((a, b) for a in range(K) for b in range(a, K))
    # a different epoch or seed deals the groups anew
    assert not np.array_equal(order, _schedules.edge_order(pairs, n, 16, 5, 3, n_groups=K)[0])
    assert not np.array_equal(order, _schedules.edge_order(pairs, n, 16, 6, 2, n_groups=K)[0])
    assert np.array_equal(order, _schedules.edge_order(pairs, n, 16, 5, 2, n_groups=K)[0])


def test_edge_order_with_one_group_is_a_uniform_permutation():
    # 4 pairs of a tiny graph (one group): all 24 orders equally likely over 24,000 seeds
    pairs = np.array([[0, 1], [1, 2], [2, 3], [0, 3]], np.int32)
    counts = {}
    for seed in range(24_000):
        key = tuple(_schedules.edge_order(pairs, 4, 8, seed, 0)[0])
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 24
    assert stats.chisquare(list(counts.values())).pvalue > 1e-4


def test_edge_group_count():
    assert _schedules.edge_group_count(10_312, 1_335_930, 100) == 32      # BlogCatalog's training split
    assert _schedules.edge_group_count(300, 12_000, 16) == 1             # small graphs: a uniform permutation
    assert _schedules.edge_group_count(500_000, 16_500_000, 100) == 178   # capped by >= ~1,024 pairs a block
    assert _schedules.edge_group_count(10**7, 10**9, 100) == 256
    for n, P, D in ((5000, 10**6, 64), (10**5, 10**6, 128), (50, 10, 1), (10**6, 10**8, 3)):
        K = _schedules.edge_group_count(n, P, D)
        assert K == 1 or (K % 2 == 0 and 2 <= K <= 256 and K * (K + 1) // 2 * 1024 <= 2 * P)


def test_sigmoid_float32_is_accurate():
    z = np.concatenate([np.linspace(-100, 100, 20001), [-1e30, -88.0, -87.5, 0.0, 87.5, 1e30]]).astype(np.float32)
    out = np.empty_like(z)
    _sgd.sigmoid_float32(z, out)
    exact = special.expit(z.astype(np.float64))
    tiny = z < -87   # e^-87 = 1.6e-38, the bottom of float32's normal range: the clamp takes over
    assert np.all(np.isfinite(out)) and np.all((out >= 0) & (out <= 1))
    rel = np.abs(out[~tiny] - exact[~tiny]) / exact[~tiny]
    assert rel.max() < 4e-7, rel.max()   # about 3 float32 ulps
    assert np.all(out[tiny] <= 1.7e-38)


def test_log_sigmoid_float32_is_accurate():
    """The diagnostics' single-precision log sigma: relative error of a few ulps over the whole range,
    including tiny losses (large z), where log(1 + e^-z) computed naively would round to 0."""
    z = np.concatenate([np.linspace(-100, 100, 20001), np.geomspace(1e-8, 80, 2001),
                        [-1e30, -87.5, 0.0, 1e30]]).astype(np.float32)
    out = np.empty_like(z)
    _sgd.log_sigmoid_float32(z, out)
    z64 = z.astype(np.float64)
    exact = np.minimum(z64, 0) - np.log1p(np.exp(-np.abs(z64)))
    assert np.all(np.isfinite(out)) and np.all(out <= 0)
    inside = np.abs(z64) < 87   # beyond, e^-|z| is clamped at e^-87 = 1.6e-38 (see the sigmoid)
    rel = np.abs(out[inside] - exact[inside]) / np.abs(exact[inside])
    assert rel.max() < 4e-7, rel.max()
    assert np.all(np.abs(out[~inside] - exact[~inside]) <= 1.7e-38 + 1e-7 * np.abs(exact[~inside]))


def test_permutation_is_a_seeded_permutation():
    p = _schedules.permutation(1000, 42, 3)
    # large enough for several chunks and buckets of the parallel shuffle; threads do not matter
    big = _schedules.permutation(300_000, 5, 0)
    assert np.array_equal(np.sort(big), np.arange(300_000))
    assert np.array_equal(big, _schedules.permutation(300_000, 5, 0, 2))
    assert np.array_equal(np.sort(p), np.arange(1000))
    assert np.array_equal(p, _schedules.permutation(1000, 42, 3))
    assert not np.array_equal(p, _schedules.permutation(1000, 42, 4))
    assert not np.array_equal(p, _schedules.permutation(1000, 43, 3))
    assert len(_schedules.permutation(0, 1, 0)) == 0


def test_permutation_positions_uniform_with_many_buckets():
    # 40,000 items = 20 buckets: the probability that item i lands in position block j is 1/10 for
    # every (i-block, j-block) pair; 20 seeds x 40,000 items -> 10 x 10 table, chi-square 81 dof.
    n, blocks = 40_000, 10
    table = np.zeros((blocks, blocks))
    for seed in range(20):
        p = _schedules.permutation(n, seed, 0)
        np.add.at(table, (p * blocks // n, np.arange(n) * blocks // n), 1)
    assert stats.chi2_contingency(table).pvalue > 1e-4


def test_permutation_is_uniform():
    # all 24 permutations of 4 items over 24,000 seeds: chi-square goodness of fit, 23 dof.
    counts = {}
    for seed in range(24_000):
        key = tuple(_schedules.permutation(4, seed, 0))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 24
    chi2 = stats.chisquare(list(counts.values()))
    assert chi2.pvalue > 1e-4  # fails with probability 1e-4 under uniformity (fixed seeds: deterministic)


def test_sample_negatives_avoids_edges_and_is_uniform():
    g = tiny_graph(n=12, m=25, seed=2)
    indptr, indices = np.asarray(g.indptr, np.int64), np.asarray(g.indices, np.int32)
    out = np.empty((40_000, 2), np.int32)
    assert _sampling.sample_negatives(out, indptr, indices, 9, 0) == 0
    assert not np.any(out[:, 0] == out[:, 1])
    assert not np.any(g.has_edges(out)) and not np.any(g.has_edges(out[:, ::-1]))
    # every non-edge ordered pair equally likely: chi-square over the allowed ordered pairs
    n = g.n_nodes
    allowed = [(u, v) for u in range(n) for v in range(n) if u != v and not g.has_edges([[u, v]])[0]]
    idx = {p: i for i, p in enumerate(allowed)}
    counts = np.bincount([idx[tuple(p)] for p in out.tolist()], minlength=len(allowed))
    assert stats.chisquare(counts).pvalue > 1e-4
    again = np.empty_like(out)
    _sampling.sample_negatives(again, indptr, indices, 9, 0, 2)  # thread count does not matter
    assert np.array_equal(out, again)
    _sampling.sample_negatives(again, indptr, indices, 9, 1)
    assert not np.array_equal(out, again)


def test_build_incidence():
    pairs = np.array([[0, 1], [2, 0], [1, 2], [0, 1]], np.int32)
    indptr, nbr, src = np.empty(4, np.int64), np.empty(8, np.int32), np.empty(8, np.int32)
    _incidence.build_incidence(pairs, 3, indptr, nbr, src)
    assert indptr.tolist() == [0, 3, 6, 8]
    assert nbr[:3].tolist() == [1, 2, 1] and src[:3].tolist() == [0, 1, 3]
    assert nbr[3:6].tolist() == [0, 2, 0] and src[3:6].tolist() == [0, 2, 3]
    assert nbr[6:].tolist() == [0, 1] and src[6:].tolist() == [1, 2]


def test_nonfinite_score_sets_flag_and_stops():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(4, 3))
    emb[2, 1] = np.inf
    pairs = np.array([[0, 1], [2, 3], [1, 3]], np.int32)
    records = np.empty(3, _incidence.PAIR_RECORD_DTYPE)
    _incidence.fill_pair_records(records, 0, pairs, 1.0)
    status = _sgd.edge_epoch(emb, _pairs(records, 3, None, 1.0, 1.0), np.zeros(4), np.empty(3, np.int32), 1, 0, 0.1)
    assert status == _sgd.EPOCH_STATUS["NONFINITE"]


@pytest.mark.parametrize("bad_position", [0, 1])
def test_nonfinite_score_in_a_pair_of_two_stops_where_the_sequential_loop_would(bad_position):
    # consecutive disjoint pairs are updated two at a time: a non-finite score in the first must
    # leave everything untouched, in the second must keep the first's update
    emb = np.full((4, 2), 0.5)
    pairs = np.array([[0, 1], [2, 3]], np.int32)
    order = _schedules.edge_order(pairs, 4, 2, 1, 0)[0]
    bad = pairs[order[bad_position]]
    emb[bad[0], 0] = np.inf
    records = np.empty(2, _incidence.PAIR_RECORD_DTYPE)
    _incidence.fill_pair_records(records, 0, pairs, 1.0)
    before = emb.copy()
    status = _sgd.edge_epoch(emb, _pairs(records, 2, None, 1.0, 1.0), np.zeros(4), np.empty(2, np.int32), 1, 0, 0.1)
    assert status == _sgd.EPOCH_STATUS["NONFINITE"]
    first = pairs[order[0]]
    changed = np.any(emb != before, axis=1)
    assert changed[first].all() == (bad_position == 1)
    assert not changed[pairs[order[1]]].any()


def test_edge_epoch_takes_each_coefficient_from_the_pair_index():
    """Records hold the pairs only: pair p steps with pos_coef[p] (p < n_pos), lam_pos without pos_coef,
    and lam_neg for p >= n_pos -- the reference's coefficients, in the solver's order."""
    rng = np.random.default_rng(3)
    n, D = 9, 4
    pairs = np.array([[0, 1], [2, 3], [4, 5], [1, 6], [7, 8], [3, 5]], np.int32)
    records = np.empty(len(pairs), _incidence.PAIR_RECORD_DTYPE)
    w = np.array([0.5, 2.0, 1.5])
    pos_coef = _incidence.fill_pair_records(records, 0, pairs[:3], 1.3, w)
    assert pos_coef.tolist() == (1.3 * w).tolist()
    assert _incidence.fill_pair_records(records, 3, pairs[3:], 0.2, negative=True) is None
    assert records["u"].tolist() == pairs[:, 0].tolist() and records["v"].tolist() == pairs[:, 1].tolist()
    start = rng.uniform(-0.5, 0.5, size=(n, D))
    order = _schedules.edge_order(pairs, n, D, 5, 1, schedule="hogwild")[0]
    for coef, weights in ((pos_coef, w), (None, None)):
        out = start.copy()
        assert _sgd.edge_epoch(out, _pairs(records, 3, coef, 1.3, 0.2), np.zeros(n), np.empty(6, np.int32), 5, 1, 0.3,
                               1, "hogwild") == _sgd.EPOCH_STATUS["OK"]
        ref = reference.sgd_edge_epoch(start, pairs[:3], pairs[3:], order, 0.3, weights=weights, lam_pos=1.3,
                                       lam_neg=0.2)
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-14)


def test_deterministic_schedule_on_a_hub():
    # a star plus a ring: the hub is in every block of its group's rounds; with 4 groups the rounds
    # are uneven (the hub's blocks are large) and the threads must still give the sequential bits
    n = 400
    edges = [(0, i) for i in range(1, n)] + [(i, i % (n - 1) + 1) for i in range(1, n)]
    g = lgekit.Graph.from_edges(np.array(edges), nodes=n)
    pairs, coef, n_pos, records, rfac, start = _epoch_inputs(g, dim=8, seed=2)
    ref = _kernel_epoch(start.copy(), records, n_pos, rfac, 9, 0, 0.3, 1, "deterministic", 4)
    for t in (2, 3):
        assert np.array_equal(_kernel_epoch(start.copy(), records, n_pos, rfac, 9, 0, 0.3, t, "deterministic", 4), ref)
