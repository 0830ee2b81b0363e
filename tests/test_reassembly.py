"""The second path (lgekit.theory.reassembly) against numbers known in closed form.

The checks' ``assembled-twice-agrees`` claims are only as good as the second path they compare with, so each of
its functions is pinned here on cases whose answer is known without either path: a matching (every draw of
its sign matrix has norm 1), a star, a complete graph with every label -1, formulas written out term by term
with Python loops, and Student's t from scipy.  Each test also names the wrong version it rejects.
"""
import math

import numpy as np
import pytest
from scipy.stats import t as student_t

import lgekit
from lgekit.evaluation import EdgeSplit
from lgekit.theory import reassembly as R


def _split(graph, train_pos, train_neg, test_pos, test_neg):
    arr = [np.asarray(a, dtype=np.int64).reshape(-1, 2) for a in (train_pos, train_neg, test_pos, test_neg)]
    return EdgeSplit(graph, graph, *arr)


def _matching_split(n=8):
    # a perfect matching of 2 positives + 2 negatives on 8 nodes: disjoint pairs
    g = lgekit.Graph.from_edges([(0, 1), (2, 3)], nodes=n)
    return _split(g, [(0, 1), (2, 3)], [(4, 5), (6, 7)], [(0, 2)], [(1, 3)])


# -- the sign matrices -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("symmetric, expected", [(False, 1.0), (True, 1.0)])
def test_a_matching_has_norm_one_at_every_draw(symmetric, expected):
    # disjoint pairs: A is a signed permutation block, A + A^T a sum of disjoint [[0, s], [s, 0]]: norm 1 whatever
    # the signs (a wrong solver, a missing sign, or signs added twice would show)
    rows, cols = np.array([0, 2, 4, 6]), np.array([1, 3, 5, 7])
    got = R.sign_matrix_norms(rows, cols, (8, 8), symmetric, 5, np.random.default_rng(0))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_a_row_of_d_signs_has_norm_sqrt_d_and_repeats_add():
    rng = np.random.default_rng(1)
    star = R.sign_matrix_norms(np.zeros(9, int), np.arange(9), (1, 9), False, 4, rng)
    np.testing.assert_allclose(star, 3.0, rtol=1e-12)              # sqrt(9), whatever the signs
    twice = R.sign_matrix_norms(np.array([0, 0]), np.array([1, 1]), (2, 2), False, 200, rng)
    assert set(np.round(twice, 12)) == {0.0, 2.0}                   # the two signs of one pair add: 0 or +-2
    assert 0.35 < np.mean(twice == 0) < 0.65


def test_the_sparse_solver_agrees_with_the_dense_one(monkeypatch):
    rng = np.random.default_rng(2)
    rows, cols = rng.integers(0, 60, 400), rng.integers(0, 50, 400)
    for symmetric, shape in ((False, (60, 50)), (True, (60, 60))):
        dense = R.sign_matrix_norms(rows, cols, shape, symmetric, 3, np.random.default_rng(3))
        monkeypatch.setattr(R, "DENSE_LIMIT", 10)
        sparse = R.sign_matrix_norms(rows, cols, shape, symmetric, 3, np.random.default_rng(3))
        monkeypatch.setattr(R, "DENSE_LIMIT", 3000)
        np.testing.assert_allclose(sparse, dense, rtol=1e-8)


def test_the_signs_are_fair_and_independent():
    # the mean of the norm of a 1 x 1 matrix is 1 for any signs; a 1 x m row's entries: sum of squares m. Fairness
    # shows in a long row's sum: the norm of the 1 x 1 matrix holding m summed signs is |sum| ~ sqrt(2 m / pi)
    got = R.sign_matrix_norms(np.zeros(400, int), np.zeros(400, int), (1, 1), False, 400, np.random.default_rng(4))
    assert abs(got.mean() / math.sqrt(2 * 400 / math.pi) - 1) < 0.1      # all +1 would give 400


# -- Theorem 1's norm and terms --------------------------------------------------------------------------------------
@pytest.mark.parametrize("convention, value", [("symmetric", 0.5), ("sorted", 1.0), ("random", 1.0), ("source", None)])
def test_theorem1_norm_of_a_matching(convention, value):
    value_got, draws = R.theorem1_norm_by_hand(_matching_split(), convention, 4, 0)
    assert draws.shape == (4,)
    if value is not None:                    # 1/2 for the symmetric matrix (the 1/2 of ||A + A^T|| / 2), 1 otherwise
        np.testing.assert_allclose(draws, value, rtol=1e-12)
        assert value_got == pytest.approx(value)
    else:                                    # source re-attaches negatives to positives' sources: not a matching
        assert np.all(draws >= 1.0 - 1e-12)


def test_theorem1_norm_oriented_maps_the_right_side():
    # bipartite: 2 left nodes (0, 1), 3 right nodes (2, 3, 4); pairs (0, 2), (0, 4), (1, 3): column = index - 2
    g = lgekit.Graph.from_biadjacency(np.array([[1, 0, 1], [0, 1, 0]]))
    split = _split(g, [(0, 2), (1, 3)], [(0, 4)], [(1, 2)], [(1, 4)])
    _, draws = R.theorem1_norm_by_hand(split, "oriented", 6, 0, n_left=2)
    # row 0 holds two signs (norm sqrt 2 block), row 1 one sign in another column: the norm is sqrt(2) at every draw
    np.testing.assert_allclose(draws, math.sqrt(2), rtol=1e-12)
    with pytest.raises(ValueError, match="convention must be"):
        R.theorem1_norm_by_hand(split, "nonsense", 2, 0)


def test_theorem1_terms_written_out_term_by_term():
    split = _matching_split()
    rng = np.random.default_rng(5)
    X = rng.standard_normal((8, 3))
    B, delta, norm = 1.0, 0.05, 0.5

    def loss(pairs, sign):
        return [min(math.log1p(math.exp(-sign * float(X[a] @ X[b]))), B) for a, b in pairs]

    train = np.mean(loss(split.train_positives, 1) + loss(split.train_negatives, -1))
    test = np.mean(loss(split.test_positives, 1) + loss(split.test_negatives, -1))
    C = float(sum(float(x @ x) for x in X))
    complexity = 2 * norm * C / 4
    confidence = 4 * B * math.sqrt(2 * math.log(4 / delta) / 4)
    got = R.theorem1_terms_by_hand(split, X, None, norm, B, delta)
    expected = {"m + m'": 4, "C_U": C, "C_V": C, "train loss": train, "test loss": test, "gap": test - train,
                "trivial loss": math.log(2), "complexity": complexity, "confidence": confidence,
                "bound": train + complexity + confidence, "mean ||x||^2": C / 8,
                "s*": max(math.log(2) - confidence, 0.0) * 4 / (2 * 8 * norm)}
    assert got == pytest.approx(expected, rel=1e-12)


def test_theorem1_terms_read_both_tables_and_the_right_offset():
    # bipartite: X the 2 left rows, Y the 3 right rows; a pair (a, b) scores X[a] . Y[b - 2]
    g = lgekit.Graph.from_biadjacency(np.array([[1, 0, 1], [0, 1, 0]]))
    split = _split(g, [(0, 2), (1, 3)], [(0, 3)], [(1, 4)], [(0, 4)])
    X = np.array([[1.0, 0.0], [0.0, 2.0]])
    Y = np.array([[3.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    got = R.theorem1_terms_by_hand(split, X, Y, 1.0, 10.0, 0.05, n_left=2)
    assert (got["C_U"], got["C_V"]) == (5.0, 12.0)                 # not C_V = C_U: the context table is read
    margins = [3.0, 2.0, -0.0]                                       # (0, 2): 3; (1, 3): 2; negative (0, 3): -0
    assert got["train loss"] == pytest.approx(np.mean([math.log1p(math.exp(-z)) for z in margins]))
    assert got["complexity"] == pytest.approx(2 * math.sqrt(5 * 12) / 3)


def test_norm_threshold_by_hand():
    m, n, value = 10_000, 100, 20.0
    room = math.log(2) - 4 * math.sqrt(2 * math.log(80) / m)
    assert R.norm_threshold_by_hand(m, n, value, 1.0, 0.05) == pytest.approx(room * m / (2 * n * value))
    assert R.norm_threshold_by_hand(10, n, value, 1.0, 0.05) == 0.0          # the confidence alone is vacuous
    assert R.norm_threshold_by_hand(m, n, 0.0, 1.0, 0.05) == math.inf
    assert R.norm_threshold_by_hand(m, n, value, 0.5, 0.05) == pytest.approx(
        (0.5 - 2 * math.sqrt(2 * math.log(80) / m)) * m / (2 * n * value))   # the trivial loss clipped at B


# -- the planted model -----------------------------------------------------------------------------------------------
def test_planted_terms_of_the_zero_embedding_and_the_exact_expectation():
    from lgekit.theory import PlantedPairDistribution

    P = PlantedPairDistribution(12, 3)
    pairs, y = P.sample(3000, seed=0)
    lo, hi = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    keys, counts = np.unique((lo * 12 + hi) * 2 + (y > 0), return_counts=True)
    upairs = np.column_stack([(keys // 2) // 12, (keys // 2) % 12])
    ulab = np.where(keys % 2 == 1, 1, -1)
    zero = R.planted_terms_by_hand(12, 3, 4, upairs, ulab, counts, np.zeros((12, 2)), 1.0, 0.05, 4, 0)
    assert zero["M"] == 3000 and zero["train loss"] == pytest.approx(math.log(2))
    assert zero["expected loss"] == pytest.approx(math.log(2)) and zero["complexity"] == 0.0
    X = np.random.default_rng(1).standard_normal((12, 2))
    got = R.planted_terms_by_hand(12, 3, 4, upairs, ulab, counts, X, 1.0, 0.05, 4, 0)
    assert got["expected loss"] == pytest.approx(P.expected_loss(X, B=1.0), rel=1e-12)
    Z = X @ X.T
    train = sum(c * min(math.log1p(math.exp(-l * Z[a, b])), 1.0) for (a, b), l, c in zip(upairs, ulab, counts)) / 3000
    assert got["train loss"] == pytest.approx(train, rel=1e-12)
    assert got["complexity"] == pytest.approx(2 * got["E||A_sym||/2"] * float(np.sum(X * X)) / 3000)
    # one sign per sample: a pair drawn c times holds a sum of c signs, E||.|| grows like sqrt(M), not like M
    assert 0.3 * math.sqrt(3000 / 12) < got["E||A_sym||/2"] < 3 * math.sqrt(3000 / 12)


# -- capacity and Claim 1 --------------------------------------------------------------------------------------------
def test_signed_fit_by_hand_on_a_triangle():
    pairs = np.array([[0, 1], [1, 2], [0, 2]])
    y = np.array([1, -1, 1])
    X = np.array([[2.0, 0.0], [1.0, 1.0], [0.5, -3.0]])
    s = np.array([2.0, 0.5 - 3.0, 1.0])
    z = y * s                                                     # 2, 2.5, 1
    got = R.signed_fit_by_hand(pairs, y, X, 0.1, 0)
    assert got["loss"] == pytest.approx(np.mean(np.log1p(np.exp(-z))))
    assert got["mean_sq_norm"] == pytest.approx((4 + 2 + 9.25) / 3)
    assert got["objective"] == pytest.approx(got["loss"] + 0.1 * got["mean_sq_norm"])
    assert (got["min_margin"], got["violated"], got["frac_margin>1"]) == (1.0, 1, pytest.approx(2 / 3))
    assert 0.0 <= got["permuted frac_margin>1"] <= 1.0


def test_the_permutation_control_matches_by_chance_only():
    # memorised labels (every margin 2): a permutation of balanced labels matches about half of them
    rng = np.random.default_rng(6)
    y = rng.choice([-1, 1], size=2000)
    pairs = np.column_stack([np.arange(2000), np.arange(2000) + 2000])
    X = np.zeros((4000, 1))
    X[:2000, 0], X[2000:, 0] = 1.0, 2.0 * y                       # x_a . x_b = 2 y
    got = R.signed_fit_by_hand(pairs, y, X, 0.0, 7)
    assert got["frac_margin>1"] == 1.0 and abs(got["permuted frac_margin>1"] - 0.5) < 0.05


@pytest.mark.parametrize("d", [2, 4, 7])
def test_the_lower_bound_of_a_clique_with_every_label_minus_one_is_d(d, monkeypatch):
    # K_{d+1}, all -1: A_y = -(J - I) has lambda_max = 1, so 2|E| / (n * 1) = d (shattering_norm_lower_bound's Notes)
    edges = np.array([(i, j) for i in range(d + 1) for j in range(i + 1, d + 1)])
    assert R.shattering_lower_bound_by_hand(edges, -np.ones(len(edges)), d + 1) == pytest.approx(d)
    monkeypatch.setattr(R, "DENSE_LIMIT", 1)                      # the ARPACK path
    assert R.shattering_lower_bound_by_hand(edges, -np.ones(len(edges)), d + 1) == pytest.approx(d, rel=1e-8)
    # all +1: lambda_max = d, bound 1 (the edge-wise bound)
    assert R.shattering_lower_bound_by_hand(edges, np.ones(len(edges)), d + 1) == pytest.approx(1.0, rel=1e-8)


def test_erdos_renyi_patterns_have_the_asked_density():
    # d = n: every cell is a pair, a dense +-1 n x n matrix, norm near 2 sqrt(n); d = n / 4: near 2 sqrt(n / 4)
    full = R.erdos_renyi_norms_by_hand(100, 100, 3, 0)
    quarter = R.erdos_renyi_norms_by_hand(100, 25, 3, 1)
    assert np.all(np.abs(full / (2 * 10) - 1) < 0.1) and np.all(np.abs(quarter / (2 * 5) - 1) < 0.15)
    assert len(set(np.round(quarter, 10))) == 3                   # fresh patterns and signs every time


# -- the tolerance and the seed --------------------------------------------------------------------------------------
def test_agreement_tolerance_is_students_t_on_the_pooled_spread():
    second = np.array([1.0, 2.0, 3.0, 4.0])
    first = np.array([2.0, 2.5, 3.5])
    ss = np.sum((second - second.mean()) ** 2) + np.sum((first - first.mean()) ** 2)
    s = math.sqrt(ss / 5)
    expected = student_t.ppf(1 - R.FALSE_ALARM / 2, 5) * s * math.sqrt(1 / 3 + 1 / 4) + 1e-3 * 10
    assert R.agreement_tolerance(second, 3, 10.0, 1e-3, first_draws=first) == pytest.approx(expected)
    # the same first path given by its standard error
    se = first.std(ddof=1) / math.sqrt(3)
    assert R.agreement_tolerance(second, 3, 10.0, 1e-3, first_se=se) == pytest.approx(expected)
    # a first path without Monte Carlo error: only the second path's draws count
    alone = student_t.ppf(1 - R.FALSE_ALARM / 2, 3) * second.std(ddof=1) * math.sqrt(1 / 4)
    assert R.agreement_tolerance(second, math.inf, 1.0) == pytest.approx(alone)
    assert R.agreement_tolerance(np.full(4, 2.0), 3, 2.0, 1e-3) == pytest.approx(2e-3)   # no spread: the solver's
    with pytest.raises(ValueError, match="at least two draws"):
        R.agreement_tolerance([1.0], 3, 1.0)


def test_second_path_seed_leaves_the_first_paths_draws_alone():
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    seeds = [R.second_path_seed(a), R.second_path_seed(a)]
    assert a.random() == b.random()                                # nothing was drawn from the generator
    assert seeds[0] != seeds[1]                                    # each call its own child
    c = np.random.default_rng(9)
    assert [R.second_path_seed(c), R.second_path_seed(c)] == seeds  # and fixed by the seed
