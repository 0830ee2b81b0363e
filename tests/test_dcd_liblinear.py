"""The per-vertex block solver, certified: against LIBLINEAR and by its own duality.

With every other vector fixed, the hinge embedding's objective in x_u is the
linear SVM that scikit-learn's ``LinearSVC(loss="hinge", dual=True,
fit_intercept=False, C=1/lam_r, class_weight={1: lam_pos, -1: lam_neg})``
solves with LIBLINEAR's own DCD.  The primal is strongly convex, so the
solution is unique and both solvers must land on the same x_u.  The primal
and dual objectives are lgekit.reference's (Eq. 4 of the paper and its dual).
"""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from lgekit.models.hinge import solve_vertex_svm
from lgekit.reference import vertex_svm_dual as dual, vertex_svm_primal as primal

LL_TOL = 1e-10          # LIBLINEAR stops when max PG - min PG <= tol; 1e-12 stalls in rounding noise
LL_MAX_ITER = 10**6


def liblinear(Xn, s, lam_pos, lam_neg, lam_r, weights=None):
    svc = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1.0 / lam_r,
                    class_weight={1: lam_pos, -1: lam_neg}, tol=LL_TOL, max_iter=LL_MAX_ITER)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)   # an unconverged reference proves nothing
        svc.fit(Xn, s, sample_weight=weights)
    assert list(svc.classes_) == [-1, 1]
    return svc.coef_.ravel()


def random_neighbourhood(seed, k, D, p_pos=0.3, scale=1.0):
    rng = np.random.default_rng(seed)
    Xn = rng.normal(size=(k, D)) * scale
    s = np.where(rng.random(k) < p_pos, 1, -1)
    s[0], s[1] = 1, -1                                        # both classes present
    return Xn, s


def assert_kkt(x, alpha, Xn, s, upper, tol):
    """Stationarity, box, complementary slackness of the per-vertex SVM."""
    np.testing.assert_allclose(x, (alpha * s) @ Xn, rtol=1e-9, atol=1e-12)
    assert np.all((alpha >= 0) & (alpha <= upper))
    margin = s * (Xn @ x)
    at0, atU = alpha == 0, alpha == upper
    free = ~at0 & ~atU
    assert np.all(margin[at0 & ~atU] >= 1 - tol)                # inactive: margin satisfied
    assert np.all(margin[atU & ~at0] <= 1 + tol)                # at bound: margin violated or tight
    assert np.all(np.abs(margin[free] - 1) <= tol)              # support vectors on the margin


# --------------------------------------------------------------------------
# random neighbourhoods
# --------------------------------------------------------------------------

@pytest.mark.parametrize("k,D", [(12, 3), (60, 8), (300, 20)])
@pytest.mark.parametrize("lam_r", [0.1, 1.0, 3.0, 30.0])
def test_matches_liblinear_on_random_neighbourhoods(k, D, lam_r):
    Xn, s = random_neighbourhood(k * 31 + D, k, D)
    lam_pos, lam_neg = 1.0, 0.03
    x, alpha, gap, n_passes = solve_vertex_svm(Xn, s, lam_pos, lam_neg, lam_r, tol=1e-10, max_passes=10**6)
    assert n_passes < 10**6
    ref = liblinear(Xn, s, lam_pos, lam_neg, lam_r)
    assert np.linalg.norm(x - ref) <= 1e-4 * np.linalg.norm(ref)
    upper = np.where(s > 0, lam_pos, lam_neg) / lam_r
    assert abs(gap) <= 1e-7 * max(1.0, primal(x, Xn, s, upper))   # >= 0 up to rounding
    assert_kkt(x, alpha, Xn, s, upper, tol=1e-8)


def test_matches_liblinear_with_edge_weights_and_other_lambdas():
    Xn, s = random_neighbourhood(5, 80, 6, p_pos=0.5)
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(s))
    lam_pos, lam_neg, lam_r = 0.7, 0.4, 0.5
    x, alpha, gap, _ = solve_vertex_svm(Xn, s, lam_pos, lam_neg, lam_r, tol=1e-10, weights=w)
    sample_weight = np.where(s > 0, w, 1.0)              # class_weight x sample_weight = c_j
    ref = liblinear(Xn, s, lam_pos, lam_neg, lam_r, weights=sample_weight)
    assert np.linalg.norm(x - ref) <= 1e-4 * np.linalg.norm(ref)
    assert_kkt(x, alpha, Xn, s, np.where(s > 0, lam_pos * w, lam_neg) / lam_r, tol=1e-8)


def test_dual_increases_every_pass_and_gap_vanishes():
    Xn, s = random_neighbourhood(7, 150, 10)
    lam_r = 1.0
    upper = np.where(s > 0, 1.0, 0.03) / lam_r
    alpha = np.zeros(len(s))
    duals, gaps = [dual(alpha, Xn, s)], []
    for p in range(60):
        # one pass at a time from the stored duals == a warm-started visit with inner_passes=1
        x, alpha, gap, n = solve_vertex_svm(Xn, s, 1.0, 0.03, lam_r, tol=0.0, max_passes=1, seed=p,
                                            alpha0=alpha)
        assert n == 1
        assert np.all((alpha >= 0) & (alpha <= upper))
        duals.append(dual(alpha, Xn, s))
        gaps.append(gap)
        # the returned gap is P(x) - D(alpha) at the returned point
        assert gap == pytest.approx(primal(x, Xn, s, upper) - duals[-1], rel=1e-9, abs=1e-9)
    # each coordinate step minimises the dual objective exactly along its coordinate
    assert np.all(np.diff(duals) >= -1e-12 * np.abs(duals[1:]))
    assert gaps[-1] < 1e-3 * gaps[0]
    x, alpha, gap, _ = solve_vertex_svm(Xn, s, 1.0, 0.03, lam_r, tol=1e-11, alpha0=alpha)
    assert -1e-12 <= gap < 1e-8
    assert_kkt(x, alpha, Xn, s, upper, tol=1e-9)


def test_float32_neighbours():
    Xn, s = random_neighbourhood(8, 100, 8)
    x32, *_ = solve_vertex_svm(Xn.astype(np.float32), s, 1.0, 0.03, 3.0, tol=1e-5)
    x64, *_ = solve_vertex_svm(Xn, s, 1.0, 0.03, 3.0, tol=1e-10)
    assert x32.dtype == np.float32
    # float32 accumulation error of w over ~1e3 steps (~1e3 * 6e-8) plus the looser tol
    np.testing.assert_allclose(x32, x64, rtol=0, atol=1e-3 * np.abs(x64).max())


def test_all_negative_neighbourhood_and_zero_vectors():
    Xn, s = random_neighbourhood(9, 20, 4)
    s[:] = -1
    Xn[3] = 0.0
    x, alpha, gap, _ = solve_vertex_svm(Xn, s, 1.0, 0.5, 1.0, tol=1e-10)
    upper = np.full(len(s), 0.5)
    assert alpha[3] == upper[3]                 # Q_jj = 0: the exact coordinate minimiser is U
    assert -1e-12 <= gap < 1e-8
    assert_kkt(x, alpha, Xn, s, upper, tol=1e-8)


@pytest.mark.parametrize("kwargs,match", [
    (dict(lam_r=0.0), "lam_r"),
    (dict(lam_r=-1.0), "lam_r"),
    (dict(lam_neg=-0.1), "lam_neg"),
    (dict(tol=float("nan")), "tol"),
    (dict(max_passes=0), "max_passes"),
])
def test_bad_parameters(kwargs, match):
    Xn, s = random_neighbourhood(0, 5, 2)
    with pytest.raises(ValueError, match=match):
        solve_vertex_svm(Xn, s, **kwargs)


def test_bad_arrays():
    Xn, s = random_neighbourhood(0, 5, 2)
    with pytest.raises(ValueError, match="signs"):
        solve_vertex_svm(Xn, np.zeros(5))
    with pytest.raises(ValueError, match="neighbour_vectors"):
        solve_vertex_svm(Xn[0], s)
    with pytest.raises(ValueError, match="NaN"):
        solve_vertex_svm(np.full((5, 2), np.nan), s)


# --------------------------------------------------------------------------
# real neighbourhoods: BlogCatalog, vectors from a short run of the epoch kernel
# --------------------------------------------------------------------------

def load_blogcatalog(data_dir):
    try:
        from lgekit.datasets import load
    except ImportError:
        load = None
    if load is not None:
        return load("blogcatalog")
    from lgekit import Graph
    edges = np.loadtxt(data_dir / "blogcatalog" / "edges.csv", dtype=np.int64, delimiter=None)
    return Graph.from_edges(edges - 1, nodes=int(edges.max()))


@pytest.fixture(scope="module")
def blogcatalog_model(data_dir):
    from lgekit.models.hinge import HingeEmbedding
    graph = load_blogcatalog(data_dir)
    model = HingeEmbedding(dim=24, lam_r=3.0, epochs=3, dtype="float64", random_state=0)
    return model.fit(graph)


@pytest.mark.parametrize("which", ["hub", "low-degree"])
@pytest.mark.parametrize("lam_r", [0.3, 3.0])
def test_matches_liblinear_on_blogcatalog_neighbourhoods(blogcatalog_model, which, lam_r):
    model = blogcatalog_model
    csr = model.pair_csr_
    deg = np.diff(csr.indptr)
    rows = np.repeat(np.arange(len(deg)), deg)
    pos_deg = np.bincount(rows[csr.sign > 0], minlength=len(deg))
    if which == "hub":
        u = int(np.argmax(pos_deg))
        assert pos_deg[u] > 1000
    else:
        u = int(np.flatnonzero((pos_deg >= 2) & (pos_deg <= 3))[0])
    ks = slice(csr.indptr[u], csr.indptr[u + 1])
    Xn = model.embedding_[csr.nbr[ks]]
    s = csr.sign[ks].astype(int)
    assert set(s) == {-1, 1}
    x, alpha, gap, n_passes = solve_vertex_svm(Xn, s, model.lam_pos, model.lam_neg, lam_r, tol=1e-10)
    ref = liblinear(Xn, s, model.lam_pos, model.lam_neg, lam_r)
    assert np.linalg.norm(x - ref) <= 1e-4 * np.linalg.norm(ref)
    upper = np.where(s > 0, model.lam_pos, model.lam_neg) / lam_r
    assert abs(gap) <= 1e-7 * max(1.0, primal(x, Xn, s, upper))   # >= 0 up to rounding
    assert_kkt(x, alpha, Xn, s, upper, tol=1e-8)
