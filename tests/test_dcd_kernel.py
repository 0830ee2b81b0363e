"""The DCD kernel (lgekit/models/_dcd.pyx) against lgekit.reference.

``lgekit.reference.dcd_epoch`` is written from the algorithm's statement
(paper Algorithm 1; Hsieh et al. 2008, Algorithm 1), not from the kernel:
dense vectors, Python loops.  It takes the coordinate orders as an argument;
here it gets the kernel's own (``kernel_coordinate_orders``, a Python twin of
the kernel's SplitMix64 streams).  On tiny graphs in float64 the kernel must
reproduce it to 1e-12.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from lgekit import reference
from lgekit.models import _dcd, _dcd_diagnostics, _schedules
from lgekit.models.hinge import pair_csr

from splitmix import SplitMix64, fisher_yates


# --------------------------------------------------------------------------
# The kernel's coordinate orders
# --------------------------------------------------------------------------

def kernel_coordinate_orders(seed):
    """The kernel's inner orders for an epoch seeded ``seed``: vertex u draws from stream u and
    re-shuffles one permutation in place at every pass (LIBLINEAR's forward Fisher-Yates)."""
    def orders(u, k):
        rng = SplitMix64(seed, u)
        perm = list(range(k))
        while True:
            for i in range(k):
                j = i + rng.below(k - i)
                perm[i], perm[j] = perm[j], perm[i]
            yield list(perm)
    return orders


def reference_epoch(X, alpha, csr, order, inner_passes, tol, seed):
    """lgekit.reference's epoch with the kernel's coordinate orders: (X, alpha, gap, viol)."""
    return reference.dcd_epoch(X, alpha, csr, order, kernel_coordinate_orders(seed), inner_passes=inner_passes,
                               tol=tol)


def kernel_epoch(X, alpha, csr, order, inner_passes, tol, seed, blocks=None, n_threads=1, shuffle=True,
                 monotone_passes=-1):
    """The kernel's epoch on copies; by default with LIBLINEAR's random inner orders and no safeguard
    (the orders ``reference_epoch`` replays); ``tests/test_dcd_inner_order.py`` covers the others."""
    X = X.copy()
    alpha = alpha.copy()
    n = X.shape[0]
    sq = np.einsum("ij,ij->i", X, X).astype(np.float64)
    gap, viol = np.zeros(n), np.zeros(n)
    order = np.ascontiguousarray(order, dtype=np.int32)
    block_ptr = np.array([0, len(order)], np.int64) if blocks is None else blocks
    kept = np.zeros(n, np.int8)
    bad = _dcd.dcd_epoch(X, sq, csr, alpha, order, block_ptr, _dcd.VisitRule(inner_passes, tol, shuffle, monotone_passes),
                         seed, n_threads, kept, _dcd.Certificates(gap, viol))
    assert bad == -1
    np.testing.assert_allclose(sq, np.einsum("ij,ij->i", X, X), rtol=1e-5)
    return X, alpha, gap, viol


def tiny_problem(n=12, D=5, seed=0, lam_pos=1.0, lam_neg=0.5, lam_r=1.5, dtype=np.float64):
    """A small graph exercising every layout case: weighted edges, a repeated
    negative, a pair that is both an edge and a negative, an isolated vertex."""
    rng = np.random.default_rng(seed)
    edges = set()
    while len(edges) < 2 * n:
        u, v = sorted(rng.choice(n - 1, 2, replace=False))   # vertex n-1 stays isolated
        edges.add((u, v))
    pos = np.array(sorted(edges), np.int64)
    neg = rng.choice(n - 1, size=(3 * n, 2))
    neg = neg[neg[:, 0] != neg[:, 1]]
    neg = np.vstack([neg, neg[:2], pos[:1]])                 # repeats, and an edge as a negative
    weights = rng.uniform(0.5, 2.0, len(pos))
    csr = pair_csr(n, pos, neg, positive_weights=weights, lam_pos=lam_pos, lam_neg=lam_neg, lam_r=lam_r)
    X = (rng.normal(size=(n, D)) * 0.5).astype(dtype)
    return X, csr, pos, neg, weights


# --------------------------------------------------------------------------
# Kernel == reference
# --------------------------------------------------------------------------

@pytest.mark.parametrize("inner_passes", [1, 3])
@pytest.mark.parametrize("problem_seed", [0, 1, 2])
def test_epochs_match_numpy_reference(inner_passes, problem_seed):
    X, csr, *_ = tiny_problem(seed=problem_seed)
    rng = np.random.default_rng(100 + problem_seed)
    alpha_k = alpha_r = np.zeros(len(csr.nbr))
    Xk = Xr = X
    for epoch in range(4):                                   # warm starts across epochs too
        order = rng.permutation(X.shape[0])
        seed = int(rng.integers(2**63)) * 2 + 1              # exercise the top bit of the seed
        Xk, alpha_k, gk, vk = kernel_epoch(Xk, alpha_k, csr, order, inner_passes, 0.0, seed)
        Xr, alpha_r, gr, vr = reference_epoch(Xr, alpha_r, csr, order, inner_passes, 0.0, seed)
        np.testing.assert_allclose(Xk, Xr, rtol=0, atol=1e-12)
        np.testing.assert_allclose(alpha_k, alpha_r, rtol=0, atol=1e-12)
        np.testing.assert_allclose(gk, gr, rtol=0, atol=1e-12)
        np.testing.assert_allclose(vk, vr, rtol=0, atol=1e-12)
    # the check is not vacuous: the duals visit all three states of the box
    assert np.any(alpha_k == 0) and np.any(alpha_k == csr.upper)
    assert np.any((alpha_k > 0) & (alpha_k < csr.upper))
    assert np.all(Xk[-1] == 0)                               # isolated vertex -> argmin of the reg.


def test_early_stop_by_tol_matches_reference():
    X, csr, *_ = tiny_problem(seed=3)
    order = np.arange(X.shape[0])[::-1]
    alpha = np.zeros(len(csr.nbr))
    # a loose tol makes some visits stop before the pass cap, others not
    for _ in range(3):
        Xk, ak, gk, vk = kernel_epoch(X, alpha, csr, order, 50, 0.05, 7)
        Xr, ar, gr, vr = reference_epoch(X, alpha, csr, order, 50, 0.05, 7)
        np.testing.assert_allclose(Xk, Xr, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ak, ar, rtol=0, atol=1e-12)
        X, alpha = Xk, ak


def test_zero_partner_vector_sets_dual_to_bound():
    # Q_jj = 0: the coordinate's dual objective is -alpha_j, minimised at U_j
    X, csr, *_ = tiny_problem(seed=4)
    X[3] = 0.0
    order = np.arange(X.shape[0])
    Xk, ak, gk, _ = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, [0, 1, 2, 4, 5], 1, 0.0, 1)
    Xr, ar, gr, _ = reference_epoch(X, np.zeros(len(csr.nbr)), csr, [0, 1, 2, 4, 5], 1, 0.0, 1)
    np.testing.assert_allclose(ak, ar, atol=1e-12)
    to3 = (csr.nbr == 3) & (np.repeat(np.arange(len(order)), np.diff(csr.indptr)) < 3)
    assert to3.any() and np.all(ak[to3] == csr.upper[to3])
    assert np.all(np.isfinite(Xk))


def test_float32_agrees_with_float64():
    X, csr, *_ = tiny_problem(seed=5)
    order = np.random.default_rng(0).permutation(X.shape[0])
    a64 = a32 = np.zeros(len(csr.nbr))
    X64, X32 = X, X.astype(np.float32)
    for _ in range(3):
        X64, a64, *_ = kernel_epoch(X64, a64, csr, order, 1, 0.0, 11)
        X32, a32, *_ = kernel_epoch(X32, a32, csr, order, 1, 0.0, 11)
    assert X32.dtype == np.float32
    # float32 rounding (2**-24 ~ 6e-8 relative per operation) over a few hundred
    # dependent operations on O(1) values stays far below 1e-4; branch flips of the
    # clip would show up as O(1) differences.
    np.testing.assert_allclose(X32, X64, rtol=0, atol=1e-4)


# --------------------------------------------------------------------------
# Schedules
# --------------------------------------------------------------------------

def colour_blocks(csr, rng):
    n = len(csr.indptr) - 1
    visit = np.argsort(-np.diff(csr.indptr), kind="stable").astype(np.int64)
    colors = _schedules.greedy_coloring(csr.indptr, csr.nbr, visit)
    perm = rng.permutation(n)
    rank = rng.permutation(colors.max() + 1)
    order = perm[np.argsort(rank[colors[perm]], kind="stable")]
    counts = np.bincount(rank[colors], minlength=colors.max() + 1)
    return colors, order, np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def test_greedy_coloring_is_proper():
    X, csr, *_ = tiny_problem(n=60, seed=6)
    colors, order, block_ptr = colour_blocks(csr, np.random.default_rng(0))
    rows = np.repeat(np.arange(len(colors)), np.diff(csr.indptr))
    assert np.all(colors[rows] != colors[csr.nbr])
    assert colors.max() <= np.diff(csr.indptr).max()        # Welsh-Powell bound (multi-entries only lower it)
    for b in range(len(block_ptr) - 1):
        assert len(set(colors[order[block_ptr[b]:block_ptr[b + 1]]])) == 1


@pytest.mark.parametrize("inner_passes", [1, 3])
def test_colour_blocks_identical_for_any_thread_count_and_equal_sequential(inner_passes):
    X, csr, *_ = tiny_problem(n=200, D=8, seed=7)
    colors, order, block_ptr = colour_blocks(csr, np.random.default_rng(1))
    runs = [kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, inner_passes, 0.0, 5, block_ptr, t)
            for t in (1, 2, 3)]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert np.array_equal(a, b)                      # bit-identical
    # vertices of one colour share no pair, so the parallel blocks are exactly the
    # sequential algorithm on that order
    ref = reference_epoch(X, np.zeros(len(csr.nbr)), csr, order, inner_passes, 0.0, 5)
    np.testing.assert_allclose(runs[0][0], ref[0], rtol=0, atol=1e-12)


def test_hogwild_two_threads_runs_and_stays_finite():
    X, csr, *_ = tiny_problem(n=300, D=8, seed=8)
    order = np.random.default_rng(2).permutation(300)
    Xh, ah, gh, vh = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, 1, 0.0, 5, None, 2)
    assert np.all(np.isfinite(Xh)) and np.all((ah >= 0) & (ah <= csr.upper))


def test_non_finite_vertex_is_reported():
    X, csr, *_ = tiny_problem(seed=9)
    X[2] = np.inf
    sq = np.einsum("ij,ij->i", X, X)
    alpha = np.full(len(csr.nbr), 0.0)
    alpha[csr.nbr == 2] = csr.upper[csr.nbr == 2]
    gap, viol = np.zeros(len(X)), np.zeros(len(X))
    bad = _dcd.dcd_epoch(X, sq, csr, alpha, np.arange(len(X), dtype=np.int32), np.array([0, len(X)], np.int64),
                         _dcd.VisitRule(1, 0.0), 1, 1, None, _dcd.Certificates(gap, viol))
    assert bad >= 0 and not np.all(np.isfinite(X[bad]))


# --------------------------------------------------------------------------
# Invariants (Hypothesis)
# --------------------------------------------------------------------------

@st.composite
def problems(draw, max_nodes=15, max_dim=6, lam_rs=(1e-3, 0.1, 1.0, 30.0), lam_negs=(0.0, 0.03, 1.0),
             scales=(0.0, 0.1, 3.0), max_passes=4):
    """A small random pair set (repeats, an edge drawn as a negative, isolated vertices possible), a
    start X, the inner passes and a seed."""
    n = draw(st.integers(2, max_nodes))
    D = draw(st.integers(1, max_dim))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    m = draw(st.integers(1, 3 * n))
    pairs = rng.integers(0, n, size=(m + 2 * m, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    if len(pairs) == 0:
        pairs = np.array([[0, 1]])
    pos, neg = pairs[:m], pairs[m:]
    lam_r = draw(st.sampled_from(lam_rs))
    lam_neg = draw(st.sampled_from(lam_negs))
    csr = pair_csr(n, pos, neg, lam_pos=1.0, lam_neg=lam_neg, lam_r=lam_r)
    X = rng.normal(size=(n, D)) * draw(st.sampled_from(scales))
    return X, csr, draw(st.integers(1, max_passes)), seed


@given(problems())
def test_duals_stay_in_box_and_gap_is_non_negative(problem):
    X, csr, passes, seed = problem
    alpha = np.zeros(len(csr.nbr))
    order = np.random.default_rng(seed).permutation(len(X))
    for _ in range(3):
        X, alpha, gap, viol = kernel_epoch(X, alpha, csr, order, passes, 0.0, seed)
        assert np.all((alpha >= 0) & (alpha <= csr.upper))
        scale = 1.0 + np.abs(X).max() ** 2 * (1.0 + alpha.sum())
        assert np.all(gap >= -1e-9 * scale)                 # weak duality, up to rounding
        assert np.all(viol >= 0)


def test_vertex_certificates_at_stored_vectors():
    """P(x_u) - D(alpha_u) with the stored x_u and the current partners; KKT of alpha_u."""
    X, csr, *_ = tiny_problem(seed=10)
    order = np.arange(X.shape[0])
    X, alpha, _, _ = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, 2, 0.0, 3)
    gap, viol = _dcd_diagnostics.vertex_certificates(X, csr, alpha, 2)
    for u in range(X.shape[0]):
        ks = np.arange(csr.indptr[u], csr.indptr[u + 1])
        ref_gap, ref_viol = reference.vertex_certificates(X[u], alpha[ks], X[csr.nbr[ks]], csr.sign[ks],
                                                          csr.upper[ks])
        assert gap[u] == pytest.approx(ref_gap, abs=1e-12)
        assert gap[u] >= -1e-12                                   # weak duality
        assert viol[u] == pytest.approx(ref_viol, abs=1e-12)
    # the last vertex visited saw its partners' final vectors, so its stored vector IS w(alpha)
    # and this gap equals the one the epoch certified for it
    _, _, g_epoch, _ = kernel_epoch(*tiny_problem(seed=10)[:1], np.zeros(len(csr.nbr)), csr, order, 2, 0.0, 3)
    assert gap[order[-1]] == pytest.approx(g_epoch[order[-1]], abs=1e-12)


def test_history_matches_reference_diagnostics():
    """HingeEmbedding's record of an epoch: the objective (Eq. 3), its parts, the mean norm and
    the dual counts, recomputed from their definitions at the fitted embedding and duals."""
    import lgekit
    rng = np.random.default_rng(12)
    edges = rng.integers(0, 40, size=(160, 2))
    graph = lgekit.Graph.from_edges(edges[edges[:, 0] != edges[:, 1]], nodes=40)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=1)
    model = lgekit.HingeEmbedding(dim=6, lam_r=1.5, lam_neg=0.4, epochs=3, dtype="float64",
                                  random_state=2).fit(split)
    ref = reference.hinge_diagnostics(model.embedding_, split.train_positives, split.train_negatives,
                                      model.pair_csr_, model.dual_coef_, lam_pos=model.lam_pos,
                                      lam_neg=model.lam_neg, lam_r=model.lam_r)
    rec = model.history_[-1]
    for key in ("objective", "loss_pos", "loss_neg", "reg", "mean_norm"):
        assert rec[key] == pytest.approx(ref[key], rel=1e-12, abs=1e-12), key
    for key in ("n_alpha_zero", "n_alpha_free", "n_alpha_bound"):
        assert rec[key] == ref[key], key
    assert min(ref["n_alpha_zero"], ref["n_alpha_free"], ref["n_alpha_bound"]) > 0   # not vacuous


# --------------------------------------------------------------------------
# HingeEmbedding's solver: its SplitMix64 streams, and a fit replayed by the reference
# --------------------------------------------------------------------------

def python_permutation(n, seed, epoch):
    """``_schedules.permutation`` for n <= 2,048 (one chunk and one bucket, so the bucket draws change
    nothing), i.e. the kernel's forward Fisher-Yates of bucket 0 with the stream
    ``rng_stream(rng_stream(rng_stream(seed, 2 epoch), 1), 0)``, from the Python SplitMix64 twin."""
    s = SplitMix64(seed, 2 * epoch).state
    return fisher_yates(SplitMix64(SplitMix64(s, 1).state, 0), n)


def test_stream_seed_is_the_kernels_rng_stream():
    for seed, k in ((0, 0), (7, 3), (2**64 - 1, 2**64 - 1), (123456789, 2**40)):
        assert _schedules.stream_seed(seed, k) == SplitMix64(seed, k).state


@pytest.mark.parametrize("n", [1, 2, 5, 34, 257])
def test_permutation_matches_the_python_twin(n):
    for seed, epoch in ((0, 0), (11, 3), (2**63 + 1, 7)):
        assert _schedules.permutation(n, seed, epoch).tolist() == python_permutation(n, seed, epoch)


def test_hinge_solver_epochs_are_reference_epochs_on_its_streams():
    """HingeEmbedding on the SplitMix64 streams: every epoch equals lgekit.reference's Algorithm 1 fed
    the solver's visiting order (``epoch_order``) and coordinate seed (``coordinate_seed``), both
    recomputed from the seed alone -- for the colour-class schedule and the sequential one."""
    import lgekit
    rng = np.random.default_rng(3)
    edges = rng.integers(0, 30, size=(90, 2))
    graph = lgekit.Graph.from_edges(edges[edges[:, 0] != edges[:, 1]], nodes=30)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=2)
    for schedule in ("deterministic", "hogwild"):
        kw = dict(dim=5, lam_r=1.2, lam_neg=0.4, inner_passes=2, dtype="float64", random_state=9, schedule=schedule,
                  inner_order="random", monotone=False)       # the default order: tests/test_dcd_inner_order.py
        start = lgekit.HingeEmbedding(epochs=0, **kw).fit(split)
        model = lgekit.HingeEmbedding(epochs=3, **kw).fit(split)
        solver = model.solver_
        assert solver.seed == start.solver_.seed
        X, alpha = start.embedding_.astype(np.float64), np.zeros(len(solver.pair_csr.nbr))
        for t in range(3):
            order = solver.epoch_order(t)
            if schedule == "hogwild":
                assert order.order.tolist() == python_permutation(30, solver.seed, t)
            else:
                colors = solver.colors
                for b in range(len(order.block_ptr) - 1):   # a block is one colour class
                    assert len(set(colors[order.order[order.block_ptr[b]:order.block_ptr[b + 1]]].tolist())) == 1
            X, alpha, _, _ = reference_epoch(X, alpha, solver.pair_csr, order.order, 2, model.tol,
                                             solver.coordinate_seed(t))
        np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.dual_coef_, alpha, rtol=0, atol=1e-12)
        assert np.abs(X - start.embedding_).max() > 0.01               # it moved: not vacuous


def test_hinge_streams_do_not_depend_on_numpy_seed_sequences():
    # the order of an epoch is a function of (seed, epoch) through the kernels' streams: two solvers with
    # the same seed agree, another seed or epoch differs, and the colour classes' order changes per epoch
    import lgekit
    graph = lgekit.datasets.planted_partition_graph(n_nodes=200, n_labels=4, mean_degree=8, seed=1)
    a = lgekit.HingeEmbedding(dim=4, epochs=1, random_state=5).fit(graph).solver_
    b = lgekit.HingeEmbedding(dim=4, epochs=1, random_state=5).fit(graph).solver_
    c = lgekit.HingeEmbedding(dim=4, epochs=1, random_state=6).fit(graph).solver_
    assert np.array_equal(a.epoch_order(4).order, b.epoch_order(4).order)
    assert a.coordinate_seed(4) == b.coordinate_seed(4) != a.coordinate_seed(5)
    assert not np.array_equal(a.epoch_order(4).order, c.epoch_order(4).order)
    assert not np.array_equal(a.epoch_order(4).order, a.epoch_order(5).order)
    sizes = [np.diff(a.epoch_order(t).block_ptr).tolist() for t in range(6)]
    assert len({tuple(s) for s in sizes}) > 1 and all(sorted(s) == sorted(sizes[0]) for s in sizes)


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.sampled_from([0.0, 1.0, 2.0])), max_size=300),
       st.integers(1, 4))
def test_dual_counts_match_numpy_for_any_thread_count(entries, n_threads):
    alpha = np.array([min(a, u) for a, u in entries], dtype=np.float64)     # duals live in [0, upper]
    upper = np.array([u for _, u in entries], dtype=np.float64)
    expected = (int(np.count_nonzero(alpha == 0)), int(np.count_nonzero((alpha == upper) & (upper > 0))))
    assert _dcd_diagnostics.dual_counts(alpha, upper, n_threads) == expected
    with pytest.raises(ValueError, match="one entry per dual"):
        _dcd_diagnostics.dual_counts(alpha, np.zeros(len(alpha) + 1), n_threads)


# --------------------------------------------------------------------------
# Certificates only where asked (issue 46, item 2)
# --------------------------------------------------------------------------

def _epoch_with(X, alpha, csr, seed, diagnostics, certify, shuffle, monotone_passes, dtype):
    X, alpha = X.astype(dtype), alpha.copy()
    n = len(X)
    sq = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    gap, viol, kept = np.full(n, -7.0), np.full(n, -7.0), np.zeros(n, np.int8)
    order = np.random.default_rng(seed).permutation(n).astype(np.int32)
    bad = _dcd.dcd_epoch(X, sq, csr, alpha, order, np.array([0, n], np.int64),
                         _dcd.VisitRule(2, 1e-3, shuffle, monotone_passes), seed, 1, kept,
                         _dcd.Certificates(gap, viol, certify) if diagnostics else None)
    assert bad == -1
    return X, alpha, gap, viol, kept


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("monotone_passes", [-1, 0, 5])
@pytest.mark.parametrize("shuffle", [False, True])
def test_certificates_where_asked_and_the_same_epoch_either_way(dtype, monotone_passes, shuffle):
    """The certificates are computed for the vertices asked about (all, or those with ``certify``) and
    left alone elsewhere; asking for none, some or all trains the same bits."""
    X, csr, *_ = tiny_problem(n=14, D=4, seed=5, lam_neg=0.5, lam_r=0.1)
    alpha = np.zeros(len(csr.nbr))
    certify = (np.arange(len(X)) % 3 == 0).astype(np.int8)
    for epoch in range(3):
        full = _epoch_with(X, alpha, csr, epoch, True, None, shuffle, monotone_passes, dtype)
        some = _epoch_with(X, alpha, csr, epoch, True, certify, shuffle, monotone_passes, dtype)
        none = _epoch_with(X, alpha, csr, epoch, False, None, shuffle, monotone_passes, dtype)
        for other in (some, none):
            for a, b in zip(full[:2] + full[4:], other[:2] + other[4:]):   # X, alpha, kept
                assert np.array_equal(a, b)
        asked = certify == 1
        assert np.array_equal(some[2][asked], full[2][asked]) and np.array_equal(some[3][asked], full[3][asked])
        assert np.all(some[2][~asked] == -7.0) and np.all(none[2] == -7.0)           # not computed there
        assert np.all(full[2] != -7.0)
        X, alpha = full[0].astype(np.float64), full[1]
    with pytest.raises(ValueError, match="certify must have one entry per vertex"):
        _epoch_with(X, alpha, csr, 0, True, certify[:-1], shuffle, monotone_passes, dtype)
