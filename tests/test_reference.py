"""lgekit.reference certified by mathematics, not by another implementation.

The kernel tests check the compiled solvers against ``lgekit.reference``;
these tests check the reference itself, by properties its definitions imply:

* the gradient (Eq. 2) is the derivative of the objective: finite differences;
* an SGD epoch, edge or vertex order, is one gradient step to first order in
  the step size (the pairs' steps sum to the gradient), exactly one on a
  matching, and so lowers the objective at a small step;
* a DCD visit keeps the duals in their box, never lowers the block's dual
  objective (each coordinate step is an exact line minimisation), changes
  the global objective (Eq. 3) by at most lambda_r times the block's duality
  gap, and, run to convergence, meets LIBLINEAR's solution and the KKT
  conditions.
"""
import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from lgekit import reference
from lgekit.models.hinge import pair_csr
from strategies import embeddings, graphs


def tiny_pairs(n=10, m=18, k=30, seed=0):
    """Edges, weights and negatives on n vertices, with a repeated negative and one negative that
    is also an edge (both are separate terms of the objective)."""
    rng = np.random.default_rng(seed)
    pos = np.array([(i, i + 1) for i in range(n - 1)] + [tuple(rng.choice(n, 2, replace=False))
                                                          for _ in range(m - n + 1)])
    neg = np.array([tuple(rng.choice(n, 2, replace=False)) for _ in range(k)])
    neg = np.vstack([neg, neg[:1], pos[:1]])
    weights = rng.uniform(0.5, 2.0, len(pos))
    return pos, weights, neg


PARAMS = dict(lam_pos=1.3, lam_neg=0.4, lam_r=0.25)


# --------------------------------------------------------------------------- objective and gradient
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_logistic_gradient_equals_finite_differences(seed):
    pos, w, neg = tiny_pairs(seed=seed)
    rng = np.random.default_rng(10 + seed)
    X = rng.normal(scale=0.7, size=(10, 4))
    grad = reference.logistic_gradient(X, pos, neg, weights=w, **PARAMS)
    objective = lambda Y: reference.logistic_objective(Y, pos, neg, weights=w, **PARAMS).objective
    h = 1e-5
    fd = np.zeros_like(X)
    for i, j in itertools.product(*map(range, X.shape)):
        E = np.zeros_like(X)
        E[i, j] = h
        fd[i, j] = (objective(X + E) - objective(X - E)) / (2 * h)
    # central differences: truncation h^2 |f'''| / 6 ~ 1e-10 (|f'''| = O(10) here), cancellation
    # eps |f| / h ~ 2e-16 * 30 / 1e-5 ~ 1e-9; 1e-7 leaves a factor 100
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-7)
    assert np.abs(grad).max() > 0.1                                    # not vacuous


def test_objective_parts_and_diagnostics_are_consistent():
    pos, w, neg = tiny_pairs(seed=3)
    X = np.random.default_rng(3).normal(size=(10, 3))
    obj = reference.logistic_objective(X, pos, neg, weights=w, **PARAMS)
    assert obj.objective == pytest.approx(obj.loss_pos + obj.loss_neg + obj.reg, rel=1e-15)
    assert obj.loss_pos > 0 and obj.loss_neg > 0
    assert obj.reg == pytest.approx(PARAMS["lam_r"] * np.sum(X ** 2), rel=1e-15)
    diag = reference.logistic_diagnostics(X, pos, neg, weights=w, **PARAMS)
    assert diag["mean_norm"] == pytest.approx(np.mean(np.sqrt(np.sum(X ** 2, axis=1))), rel=1e-15)
    assert diag["mean_grad_norm"] == pytest.approx(np.mean(diag["grad_norm"]), rel=1e-15)
    # sigma and log sigma: exact at the extremes, where the naive formulas fail
    assert reference.log_sigmoid(-1000.0) == -1000.0 and reference.sigmoid(1000.0) == 1.0
    z = np.linspace(-30, 30, 61)
    np.testing.assert_allclose(reference.sigmoid(z) + reference.sigmoid(-z), 1.0, rtol=1e-15)
    np.testing.assert_allclose(np.exp(reference.log_sigmoid(z)), reference.sigmoid(z), rtol=1e-14)


def test_hinge_objective_is_the_sum_of_vertex_svms():
    """Eq. 3 and Eq. 4: each pair occurrence is one entry at each of its ends, so summing every
    vertex's block primal lambda_r P(x_u) counts every loss term twice and the penalty once."""
    pos, w, neg = tiny_pairs(seed=4)
    lam = dict(lam_pos=1.1, lam_neg=0.6, lam_r=0.8)
    X = np.random.default_rng(4).normal(scale=0.8, size=(10, 3))
    obj = reference.hinge_objective(X, pos, neg, weights=w, **lam)
    csr = pair_csr(10, pos, neg, positive_weights=w, **lam)
    blocks = sum(reference.vertex_svm_primal(X[u], X[csr.nbr[e]], csr.sign[e], csr.upper[e])
                 for u in range(10) for e in [slice(csr.indptr[u], csr.indptr[u + 1])])
    assert lam["lam_r"] * blocks == pytest.approx(2 * (obj.loss_pos + obj.loss_neg) + obj.reg, rel=1e-12)
    assert obj.loss_pos > 0 and obj.loss_neg > 0


# --------------------------------------------------------------------------- SGD epochs
def first_order_error(epoch, X, pos, w, neg, order, lr):
    """max |(X - epoch(X)) / lr - grad L(X)|: how far one epoch is from one gradient step."""
    grad = reference.logistic_gradient(X, pos, neg, weights=w, **PARAMS)
    moved = (X - epoch(X, pos, neg, order, lr, weights=w, **PARAMS)) / lr
    return np.abs(moved - grad).max()


@pytest.mark.parametrize("epoch,size", [(reference.sgd_edge_epoch, "pairs"), (reference.sgd_vertex_epoch, "n")])
def test_sgd_epoch_is_a_gradient_step_to_first_order(epoch, size):
    """Every pair's loss gradient is applied once and the penalty's gradient 2 lam_r x is split
    over the visits of x, so an epoch moves X by -lr grad L(X) + O(lr^2), in any order: the error
    falls linearly with lr (by 10x for a 10x smaller step, up to the O(lr^2) remainder)."""
    pos, w, neg = tiny_pairs(seed=5)
    X = np.random.default_rng(5).normal(scale=0.5, size=(10, 4))
    rng = np.random.default_rng(6)
    for _ in range(3):
        order = rng.permutation(len(pos) + len(neg) if size == "pairs" else 10)
        errors = [first_order_error(epoch, X, pos, w, neg, order, lr) for lr in (1e-3, 1e-4)]
        assert errors[1] < 0.15 * errors[0] and errors[1] < 1e-2


def test_sgd_edge_epoch_on_a_matching_is_exactly_a_gradient_step():
    # vertex-disjoint pairs: each vertex is in one pair, whose update uses the old values of both
    # ends, so the epoch IS X - lr grad L(X), whatever the order
    pos, neg = np.array([[0, 1], [2, 3]]), np.array([[4, 5]])
    w = np.array([0.7, 1.6])
    X = np.random.default_rng(7).normal(size=(6, 3))
    step = X - 0.3 * reference.logistic_gradient(X, pos, neg, weights=w, **PARAMS)
    for order in ([0, 1, 2], [2, 0, 1]):
        out = reference.sgd_edge_epoch(X, pos, neg, order, 0.3, weights=w, **PARAMS)
        np.testing.assert_allclose(out, step, rtol=0, atol=1e-15)


def test_pinned_edge_epoch_on_a_matching_is_exactly_a_projected_gradient_step():
    """Node biases (``pinned``): from a start whose pinned coordinates are kappa, an epoch over vertex-disjoint
    pairs is the gradient step with the pinned coordinates' components dropped -- projected gradient descent
    onto {x_k = kappa} -- and the gradient of a free coordinate is that of the score with kappa in place.  The
    unpinned epoch (the wrong version) moves the pinned coordinates."""
    pos, neg = np.array([[0, 3], [1, 4]]), np.array([[2, 5]])
    kappa = 0.4
    X = np.random.default_rng(11).normal(size=(6, 4))
    pins = reference.bias_pins(3, 3, 4)
    X[np.arange(6), pins] = kappa
    grad = reference.logistic_gradient(X, pos, neg, **PARAMS)
    grad[np.arange(6), pins] = 0.0
    for order in ([0, 1, 2], [2, 1, 0]):
        out = reference.sgd_edge_epoch(X, pos, neg, order, 0.3, pinned=pins, pin_value=kappa, **PARAMS)
        np.testing.assert_allclose(out, X - 0.3 * grad, rtol=0, atol=1e-15)
    free = reference.sgd_edge_epoch(X, pos, neg, [0, 1, 2], 0.3, **PARAMS)
    assert np.abs(free[np.arange(6), pins] - kappa).max() > 1e-3


def test_sgd_vertex_step_is_exactly_a_gradient_step_of_that_vertex():
    pos, w, neg = tiny_pairs(seed=8)
    X = np.random.default_rng(8).normal(size=(10, 3))
    out = reference.sgd_vertex_epoch(X, pos, neg, [4], 0.05, weights=w, **PARAMS)
    expected = X.copy()
    expected[4] -= 0.05 * reference.logistic_gradient(X, pos, neg, weights=w, **PARAMS)[4]
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("epoch,lr", [(reference.sgd_edge_epoch, 0.05), (reference.sgd_vertex_epoch, 0.01)])
def test_sgd_epoch_at_a_small_step_decreases_the_objective(epoch, lr):
    # to first order the decrease is lr ||grad L||^2 (the previous test); at these steps the
    # second-order term is small against it, and the epochs keep descending from epoch to epoch
    pos, w, neg = tiny_pairs(seed=9)
    X = np.random.default_rng(9).normal(scale=0.5, size=(10, 4))
    rng = np.random.default_rng(10)
    objective = lambda Y: reference.logistic_objective(Y, pos, neg, weights=w, **PARAMS).objective
    values = [objective(X)]
    for t in range(5):
        size = len(pos) + len(neg) if epoch is reference.sgd_edge_epoch else 10
        X = epoch(X, pos, neg, rng.permutation(size), lr, weights=w, **PARAMS)
        values.append(objective(X))
    assert np.all(np.diff(values) < 0), values
    g0 = reference.logistic_gradient(np.random.default_rng(9).normal(scale=0.5, size=(10, 4)), pos, neg,
                                     weights=w, **PARAMS)
    assert values[0] - values[1] == pytest.approx(lr * np.sum(g0 ** 2), rel=0.3)


# --------------------------------------------------------------------------- DCD
@st.composite
def dcd_problems(draw):
    """(X, csr, pairs, lam, seed): a small graph's edges as positives, negatives drawn as index
    pairs u, u + 1 + k (mod n) (never a self-pair, by construction), and an embedding."""
    g = draw(graphs(min_nodes=2, max_nodes=9, connected=True, weighted=st.booleans()))
    n = g.n_nodes
    neg = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 2)), min_size=1, max_size=3 * n))
    neg = np.array([(u, (u + 1 + k) % n) for u, k in neg])
    lam = dict(lam_pos=1.0, lam_neg=draw(st.sampled_from([0.03, 1.0])), lam_r=draw(st.sampled_from([0.05, 0.5, 3.0])))
    pairs = dict(positives=g.edges(), weights=g.edge_weights(), negatives=neg)
    csr = pair_csr(n, pairs["positives"], neg, positive_weights=pairs["weights"], **lam)
    X = draw(embeddings(n, dim=st.integers(1, 4), bound=2.0))
    return X, csr, pairs, lam, draw(st.integers(0, 2**32 - 1))


@given(dcd_problems(), st.sampled_from([1, 3]))
def test_dcd_visit_keeps_duals_feasible_and_raises_the_block_dual(problem, inner_passes):
    X, csr, pairs, lam, seed = problem
    objective = lambda Y: reference.hinge_objective(Y, pairs["positives"], pairs["negatives"],
                                                    weights=pairs["weights"], **lam).objective
    alpha = np.zeros(len(csr.nbr))
    orders = reference.random_coordinate_orders(seed)
    for u in itertools.chain.from_iterable(np.random.default_rng(seed).permutation(len(X)) for _ in range(2)):
        e = slice(csr.indptr[u], csr.indptr[u + 1])
        partners, s = X[csr.nbr[e]], csr.sign[e]
        dual_before, L_before = reference.vertex_svm_dual(alpha[e], partners, s), objective(X)
        X, alpha, gap, viol = reference.dcd_epoch(X, alpha, csr, [u], orders, inner_passes=inner_passes)
        # round-off of sums of products of the block's vectors and duals (U up to 80 here)
        scale = 1.0 + (np.abs(partners).sum() + np.abs(X[u]).sum()) ** 2 * (1.0 + alpha[e].sum())
        # the box constraints hold after every visit
        assert np.all((alpha >= 0) & (alpha <= csr.upper))
        # each coordinate step minimises f = -D exactly along its coordinate: D never falls
        assert reference.vertex_svm_dual(alpha[e], partners, s) >= dual_before - 1e-12 * scale
        # the new x_u is w(alpha_u), and weak duality holds
        np.testing.assert_allclose(X[u], (alpha[e] * s) @ partners, rtol=0, atol=1e-12 * scale)
        assert gap[u] >= -1e-12 * scale and viol[u] >= 0
        # L changes by lam_r (P(w) - P(x_old)) <= lam_r (P(w) - D(alpha)) = lam_r gap_u
        assert objective(X) <= L_before + lam["lam_r"] * gap[u] + 1e-12 * (abs(L_before) + lam["lam_r"] * scale)


@pytest.mark.parametrize("seed", [0, 1])
def test_dcd_converged_blocks_descend_the_objective_monotonically(seed):
    """With the blocks solved to a tiny duality gap, Algorithm 1 is exact block coordinate descent
    on Eq. 3: the objective never rises, visit after visit."""
    pos, w, neg = tiny_pairs(seed=seed)
    lam = dict(lam_pos=1.0, lam_neg=0.5, lam_r=1.5)
    csr = pair_csr(10, pos, neg, positive_weights=w, **lam)
    X = np.random.default_rng(seed).normal(size=(10, 4))
    alpha = np.zeros(len(csr.nbr))
    orders = reference.random_coordinate_orders(seed)
    values = [reference.hinge_objective(X, pos, neg, weights=w, **lam).objective]
    for u in itertools.chain.from_iterable(np.random.default_rng(seed).permutation(10) for _ in range(3)):
        X, alpha, gap, viol = reference.dcd_epoch(X, alpha, csr, [u], orders, inner_passes=10**4, tol=1e-10)
        assert gap[u] <= 1e-9
        values.append(reference.hinge_objective(X, pos, neg, weights=w, **lam).objective)
    # a visit can raise L by at most lam_r gap_u (previous test): here by 1.5e-9
    assert np.all(np.diff(values) <= 1.5e-9)
    assert values[-1] < 0.5 * values[0]                                 # not vacuous


def liblinear(partners, signs, lam_pos, lam_neg, lam_r):
    svc = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1.0 / lam_r,
                    class_weight={1: lam_pos, -1: lam_neg}, tol=1e-10, max_iter=10**6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)   # an unconverged reference proves nothing
        svc.fit(partners, signs)
    return svc.coef_.ravel()


@pytest.mark.parametrize("lam_r", [0.3, 3.0])
def test_dcd_vertex_update_converges_to_liblinear_and_kkt(lam_r):
    rng = np.random.default_rng(11)
    partners = rng.normal(size=(40, 5))
    signs = np.where(rng.random(40) < 0.4, 1, -1)
    lam_pos, lam_neg = 1.0, 0.3
    upper = np.where(signs > 0, lam_pos, lam_neg) / lam_r
    orders = reference.random_coordinate_orders(12)(0, 40)
    alpha = np.zeros(40)
    duals = [reference.vertex_svm_dual(alpha, partners, signs)]
    for _ in range(30):                       # one pass at a time: the dual rises with every pass
        x, alpha, n_passes = reference.dcd_vertex_update(partners, signs, upper, alpha, orders)
        assert n_passes == 1
        duals.append(reference.vertex_svm_dual(alpha, partners, signs))
    assert np.all(np.diff(duals) >= -1e-12 * np.abs(duals[1:]))
    x, alpha, n_passes = reference.dcd_vertex_update(partners, signs, upper, alpha, orders, inner_passes=10**5,
                                                     tol=1e-11)
    assert n_passes < 10**5
    gap, viol = reference.vertex_certificates(x, alpha, partners, signs, upper)
    assert -1e-12 <= gap < 1e-8 and viol <= 1e-11
    ref = liblinear(partners, signs, lam_pos, lam_neg, lam_r)
    assert np.linalg.norm(x - ref) <= 1e-4 * np.linalg.norm(ref)
    # KKT, read off the margins: alpha = 0 beyond the margin, = U inside it, free only on it
    margin = signs * (partners @ x)
    free = (alpha > 0) & (alpha < upper)
    assert np.all(margin[alpha == 0] >= 1 - 1e-8) and np.all(margin[alpha == upper] <= 1 + 1e-8)
    assert np.all(np.abs(margin[free] - 1) <= 1e-8) and free.any()


def test_zero_partner_takes_its_upper_bound():
    # Q_jj = 0 (a zero partner): the coordinate's f is -alpha_j, minimised at its upper bound
    partners = np.array([[1.0, 0.0], [0.0, 0.0]])
    x, alpha, _ = reference.dcd_vertex_update(partners, [1, -1], [2.0, 0.5], [0.0, 0.0],
                                              itertools.repeat([1, 0]))
    assert alpha.tolist() == [1.0, 0.5] and x.tolist() == [1.0, 0.0]


def test_dcd_epoch_with_an_isolated_vertex_zeroes_it():
    pos, w, neg = tiny_pairs(seed=13)
    csr = pair_csr(11, pos, neg, positive_weights=w)                # vertex 10 has no pairs
    X = np.random.default_rng(13).normal(size=(11, 3))
    out = reference.dcd_epoch(X, np.zeros(len(csr.nbr)), csr, range(11), reference.random_coordinate_orders(0))
    assert np.all(out.X[10] == 0) and out.gap[10] == 0 and out.violation[10] == 0
    np.testing.assert_array_equal(X, np.random.default_rng(13).normal(size=(11, 3)))   # input untouched


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("call,match", [
    (lambda X: reference.logistic_objective(X, [[0, 1, 2]], []), r"positives must be a \(k, 2\)"),
    (lambda X: reference.logistic_objective(X, [[0, 5]], []), r"positives must hold row indices in \[0, 3\)"),
    (lambda X: reference.logistic_objective(X, [[0, 1]], [], weights=[1.0, 2.0]), r"weights must have shape \(1,\)"),
    (lambda X: reference.sgd_edge_epoch(X, [[0, 1]], [[1, 2]], [0, 2], 0.1), r"order must hold pair indices"),
    (lambda X: reference.sgd_vertex_epoch(X, [[0, 1]], [], [3], 0.1), r"order must hold vertex indices"),
    (lambda X: reference.logistic_gradient(X[0], [[0, 1]], []), r"X must be a 2-D"),
    (lambda X: reference.dcd_vertex_update(X, [1, -1], [1.0, 1.0], [0.0, 0.0], iter(())), "must agree on k"),
])
def test_bad_inputs_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call(np.ones((3, 2)))
