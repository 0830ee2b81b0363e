"""Tests of lgekit.theory.bounds: Theorem 1's right-hand side and the measured gap."""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lgekit.theory.rademacher as rademacher_module
from lgekit import Graph, split_edges
from lgekit.theory import (
    PairPattern,
    generalization_gap,
    logistic_loss_bound,
    nonvacuous_norm_threshold,
    norm_constants,
    oriented_training_pairs,
    rademacher_matrix,
    theorem1_bound,
    theorem1_spectral_norm,
)


def test_theorem1_matches_the_printed_statement_computed_by_hand():
    # Theorem 1 (Section 3.1): rhs = train + 2/(m+m') E||A|| sqrt(C_U C_V) + 4 B sqrt(2 ln(4/delta)/(m+m')).
    # m+m' = 20000, E||A|| = 40, C_U = 100, C_V = 64, B = 1, delta = 0.05:
    #   complexity = 2/20000 * 40 * sqrt(6400) = 2/20000 * 40 * 80 = 0.32
    #   confidence = 4 * 1 * sqrt(2 * ln(80) / 20000) = 4 * sqrt(2 * 4.382026634673881 / 20000)
    #              = 4 * sqrt(0.00043820266346738813) = 4 * 0.02093329079402921 = 0.08373316317611684
    #   rhs = 0.25 + 0.32 + 0.08373316317611684 = 0.653733163176117
    # (the first version's 3 B sqrt(ln(2/delta) / 2m) gave 0.0288 for the last term)
    b = theorem1_bound(0.25, n_samples=20_000, spectral_norm=40.0, C_U=100.0, C_V=64.0, B=1.0, delta=0.05)
    assert b.complexity == pytest.approx(0.32, rel=1e-12)
    assert b.confidence == pytest.approx(0.08373316317611684, rel=1e-12)
    assert b.rhs == pytest.approx(0.653733163176117, rel=1e-12)
    assert b.gap_bound == pytest.approx(0.32 + 0.08373316317611684, rel=1e-12)
    assert not b.is_vacuous(trivial_loss=0.7) and b.is_vacuous(trivial_loss=0.65)


def test_confidence_term_by_hand_at_another_delta_and_b():
    # m+m' = 5000, B = 2, delta = 0.01: 4 * 2 * sqrt(2 ln(400) / 5000) = 8 * sqrt(2 * 5.991464547107982 / 5000)
    #   = 8 * sqrt(0.0023965858188431926) = 8 * 0.04895493661361633 = 0.39163949290893063
    b = theorem1_bound(0.0, n_samples=5000, spectral_norm=0.0, C_U=1.0, C_V=1.0, B=2.0, delta=0.01)
    assert b.confidence == pytest.approx(0.39163949290893063, rel=1e-12)
    assert b.complexity == 0.0 and b.rhs == pytest.approx(0.39163949290893063, rel=1e-12)


def test_lipschitz_constant_scales_only_the_complexity():
    # the theorem applied to the 1-Lipschitz loss l/L (bounded by B/L), multiplied by L:
    # complexity 0.32 * 0.5 = 0.16, confidence unchanged 0.08373316317611684
    b = theorem1_bound(0.25, n_samples=20_000, spectral_norm=40.0, C_U=100.0, C_V=64.0, B=1.0, lipschitz=0.5)
    assert b.complexity == pytest.approx(0.16, rel=1e-12)
    assert b.confidence == pytest.approx(0.08373316317611684, rel=1e-12)


def test_nonvacuous_norm_threshold_by_hand():
    # m+m' = 1e6, E||A|| = 50, n = 1e4, trivial ln 2, B = 1, delta = 0.05:
    #   confidence = 4 sqrt(2 ln 80 / 1e6) = 4 * 0.0029604146246 = 0.011841657498406386
    #   s* = (0.6931471805599453 - 0.011841657498406386) * 1e6 / (2 * 1e4 * 50) = 0.6813055230615389
    assert nonvacuous_norm_threshold(1_000_000, 50.0, 10_000) == pytest.approx(0.6813055230615389, rel=1e-12)
    # at s* with zero training loss the bound equals the trivial loss: complexity = 2 * 50 * (1e4 s*) / 1e6
    s_star = nonvacuous_norm_threshold(1_000_000, 50.0, 10_000)
    b = theorem1_bound(0.0, 1_000_000, 50.0, 1e4 * s_star, 1e4 * s_star, 1.0)
    assert b.rhs == pytest.approx(math.log(2), rel=1e-12)
    # the confidence term alone above the trivial loss: nothing is non-vacuous
    assert nonvacuous_norm_threshold(10, 50.0, 100) == 0.0


def test_bound_monotone_in_norm_and_sample_size():
    base = dict(train_loss=0.1, spectral_norm=10.0, B=1.0)
    small = theorem1_bound(n_samples=1000, C_U=1.0, C_V=1.0, **base)
    big_norm = theorem1_bound(n_samples=1000, C_U=4.0, C_V=4.0, **base)
    more_data = theorem1_bound(n_samples=4000, C_U=1.0, C_V=1.0, **base)
    assert big_norm.complexity == pytest.approx(4 * small.complexity)
    assert more_data.complexity == pytest.approx(small.complexity / 4)
    assert more_data.confidence == pytest.approx(small.confidence / 2)


@given(st.integers(2, 40), st.integers(2, 40), st.integers(1, 200), st.floats(0.1, 10), st.floats(0.1, 10),
       st.integers(0, 2**32 - 1))
def test_complexity_term_is_the_supremum_of_the_rademacher_sum(n_rows, n_cols, m, C_U, C_V, seed):
    # The step from the Rademacher complexity to Theorem 1's complexity term: for one sign draw,
    #   sup { sum_i sigma_i x_{a_i}.x_{b_i} : ||X_U||_F^2 <= C_U, ||X_V||_F^2 <= C_V } = sqrt(C_U C_V) ||A_sigma||_2,
    # attained by the top singular pair.  lgekit's A_sigma (a sign at every pair, repeated pairs adding), its
    # spectral norm on the Lanczos path, and theorem1_bound's complexity = 2/m of that supremum (times E over the
    # signs) must all agree with the supremum computed here from the pairs alone: a wrong matrix (a pair's sign
    # at the wrong place, repeats not added), a wrong norm (Frobenius, 0 after a breakdown, the second singular
    # value) or a wrong constant in the complexity term fails it.
    rng = np.random.default_rng(seed)
    pairs = np.column_stack([rng.integers(0, n_rows, m), rng.integers(0, n_cols, m)])
    pattern = PairPattern(pairs, shape=(n_rows, n_cols))
    signs = pattern.draw_signs(rng)
    # the Rademacher sum as a bilinear form, built from the pairs without lgekit's matrix
    M = np.zeros((n_rows, n_cols))
    np.add.at(M, (pairs[:, 0], pairs[:, 1]), signs.astype(float))
    U, S, Vt = np.linalg.svd(M)
    XU = math.sqrt(C_U) * U[:, :1]
    XV = math.sqrt(C_V) * Vt[:1].T
    attained = float(np.sum(signs * np.einsum("ij,ij->i", XU[pairs[:, 0]], XV[pairs[:, 1]])))
    assert attained == pytest.approx(math.sqrt(C_U * C_V) * S[0], rel=1e-9, abs=1e-9)
    # no embedding in the ball does better (a random one, scaled onto the ball's boundary)
    YU, YV = rng.standard_normal((n_rows, 3)), rng.standard_normal((n_cols, 3))
    YU *= math.sqrt(C_U) / np.linalg.norm(YU)
    YV *= math.sqrt(C_V) / np.linalg.norm(YV)
    assert float(np.sum(signs * np.einsum("ij,ij->i", YU[pairs[:, 0]], YV[pairs[:, 1]]))) <= attained + 1e-9
    # lgekit's pieces
    assert np.array_equal(pattern.matrix(signs).toarray(), M)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rademacher_module, "_DENSE_LIMIT", 1)  # the Lanczos path every real estimate takes
        value = pattern.spectral_norm(signs, tol=1e-6, dtype=np.float64)[0]
    assert S[0] * (1 - 1e-6) <= value <= S[0] * (1 + 1e-9)
    bound = theorem1_bound(0.0, m, value, C_U, C_V, B=1.0)
    assert bound.complexity == pytest.approx(2 * attained / m, rel=1e-6, abs=1e-12)


def _split(rng, n=20, k=30):
    return SimpleNamespace(
        train_positives=rng.integers(0, n, (k, 2)), train_negatives=rng.integers(0, n, (2 * k, 2)),
        test_positives=rng.integers(0, n, (k // 2, 2)), test_negatives=rng.integers(0, n, (k, 2)))


def test_generalization_gap_matches_direct_computation():
    rng = np.random.default_rng(0)
    split = _split(rng)
    X = rng.normal(size=(20, 4))

    def loss(pos, neg, wp=1.0, wn=1.0):
        sp_ = np.einsum("ij,ij->i", X[pos[:, 0]], X[pos[:, 1]])
        sn = np.einsum("ij,ij->i", X[neg[:, 0]], X[neg[:, 1]])
        return np.concatenate([wp * np.log1p(np.exp(-sp_)), wn * np.log1p(np.exp(sn))]).mean()

    g = generalization_gap(X, split)
    assert g.train_loss == pytest.approx(loss(split.train_positives, split.train_negatives))
    assert g.test_loss == pytest.approx(loss(split.test_positives, split.test_negatives))
    assert g.gap == pytest.approx(g.test_loss - g.train_loss)
    assert g.trivial_loss == pytest.approx(math.log(2))
    w = generalization_gap(SimpleNamespace(embedding_=X), split, pos_weight=1.0, neg_weight=0.03)
    assert w.test_loss == pytest.approx(loss(split.test_positives, split.test_negatives, 1.0, 0.03))
    # zero embedding: every score 0, loss = ln 2 x weight on both samples
    z = generalization_gap(np.zeros((20, 4)), split)
    assert z.train_loss == pytest.approx(math.log(2)) and z.gap == pytest.approx(0.0)


def test_norm_constants_and_loss_bound():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5))
    cu, cv = norm_constants(X)
    assert cu == cv == pytest.approx((X ** 2).sum())
    Y = rng.normal(size=(10, 5))
    assert norm_constants(X, Y)[1] == pytest.approx((Y ** 2).sum())
    B = logistic_loss_bound(X)
    scores = X @ X.T
    assert np.log1p(np.exp(np.abs(scores))).max() <= B + 1e-9  # no pair's loss exceeds B
    assert logistic_loss_bound(np.zeros((3, 2))) == pytest.approx(math.log(2))


def test_errors():
    ok = dict(train_loss=0.1, n_samples=10, spectral_norm=1.0, C_U=1.0, C_V=1.0, B=1.0)
    with pytest.raises(ValueError, match="n_samples"):
        theorem1_bound(**{**ok, "n_samples": 0})
    with pytest.raises(ValueError, match="delta"):
        theorem1_bound(**ok, delta=1.5)
    with pytest.raises(ValueError, match="C_U"):
        theorem1_bound(**{**ok, "C_U": -1.0})
    with pytest.raises(ValueError, match=r"^theorem1_bound: B must be a finite number > 0, got 0\.0$"):
        theorem1_bound(**{**ok, "B": 0.0})
    with pytest.raises(ValueError, match="train_loss"):
        theorem1_bound(**{**ok, "train_loss": float("nan")})
    with pytest.raises(TypeError, match="EdgeSplit"):
        generalization_gap(np.zeros((3, 2)), object())
    with pytest.raises(ValueError, match="outside"):
        generalization_gap(np.zeros((3, 2)), _split(np.random.default_rng(0), n=20))
    with pytest.raises(ValueError, match="non-finite"):
        norm_constants(np.full((2, 2), np.inf))
    with pytest.raises(TypeError, match=r"^theorem1_bound: spectral_norm must be a finite number >= 0, got str: '20'$"):
        theorem1_bound(**{**ok, "spectral_norm": "20"})
    with pytest.raises(ValueError, match="n_nodes"):
        nonvacuous_norm_threshold(10, 1.0, 0)
    with pytest.raises(ValueError, match=r"^nonvacuous_norm_threshold: spectral_norm must be a finite number >= 0, "
                                         r"got -1\.0$"):
        nonvacuous_norm_threshold(10, -1.0, 5)
    assert nonvacuous_norm_threshold(10**6, 0.0, 5) == math.inf
    split = split_edges(_karate(), test_fraction=0.2, seed=0)
    with pytest.raises(ValueError, match="convention must be one of"):
        oriented_training_pairs(split, "upper")
    with pytest.raises(TypeError, match="EdgeSplit"):
        oriented_training_pairs(object())


def _karate():
    import networkx as nx

    return Graph.from_networkx(nx.karate_club_graph())


@given(st.integers(2, 9), st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=1, max_size=30),
       st.integers(0, 2**32 - 1))
def test_symmetric_matrix_is_what_the_homogeneous_model_needs(n, raw, seed):
    # For one vector per vertex (X_U = X_V = X, C = ||X||_F^2) the proof's supremum over the sign draw is
    # sup tr(X^T A X) = C lambda_max((A + A^T)/2), whatever the orientation of A; and for the same signs
    # ||A + A^T|| / 2 <= ||A|| for EVERY orientation, so E||A + A^T||/2 is the smallest valid value.
    pairs = np.array([(u % n, v % n) for u, v in raw if u % n != v % n], dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        pairs = np.array([[0, 1]])
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], size=len(pairs))
    flip = rng.random(len(pairs)) < 0.5
    oriented = np.where(flip[:, None], pairs[:, ::-1], pairs)
    A = np.zeros((n, n))
    np.add.at(A, (oriented[:, 0], oriented[:, 1]), signs)
    sym = PairPattern(pairs, shape=(n, n), kind="homogeneous").matrix(signs.astype(np.int8)).toarray()
    assert np.allclose(sym, A + A.T)
    assert np.linalg.norm(sym, 2) / 2 <= np.linalg.norm(A, 2) * (1 + 1e-12) + 1e-12
    # the supremum is attained on the top eigenvector: C = 3
    w, V = np.linalg.eigh(sym / 2)
    X = np.zeros((n, 2))
    X[:, 0] = math.sqrt(3.0) * V[:, -1]
    value = float(np.sum(signs * np.einsum("ij,ij->i", X[oriented[:, 0]], X[oriented[:, 1]])))
    assert value == pytest.approx(3.0 * w[-1], abs=1e-9)


def test_conventions_lay_out_the_same_sample():
    split = split_edges(_karate(), test_fraction=0.2, seed=0)
    pos, neg = np.asarray(split.train_positives), np.asarray(split.train_negatives)
    m = len(pos) + len(neg)
    canon = np.sort(np.concatenate([pos, neg]), axis=1)
    p, kind, scale = oriented_training_pairs(split, "symmetric")
    assert kind == "homogeneous" and scale == 0.5 and np.array_equal(np.sort(p, axis=1), canon)
    p, kind, scale = oriented_training_pairs(split, "sorted")
    assert kind == "bipartite" and scale == 1.0 and np.all(p[:, 0] < p[:, 1])
    p, _, _ = oriented_training_pairs(split, "random", seed=1)
    assert np.array_equal(np.sort(p, axis=1), canon) and 0 < np.mean(p[:, 0] > p[:, 1]) < 1
    p, _, _ = oriented_training_pairs(split, "source", seed=1)
    assert p.shape == (m, 2)
    r = len(neg) // len(pos)
    # negative j hangs on the source of positive j // r; its other end is one end of the original negative
    assert np.array_equal(p[len(pos):, 0], p[np.arange(len(neg)) // r, 0])
    assert np.all((p[len(pos):, 1] == neg[:, 0]) | (p[len(pos):, 1] == neg[:, 1]))


def test_symmetric_value_is_the_smallest_on_a_hub():
    # a star with 30 leaves, as positives, plus 4 negatives per positive among the leaves: sorted (u < v) puts
    # every positive in row 0 (norm >= sqrt(30)); the symmetric value is half the norm of the signed star
    import networkx as nx

    split = split_edges(Graph.from_networkx(nx.star_graph(30)), test_fraction=0.1, seed=0)
    values = {c: theorem1_spectral_norm(split, c, n_draws=20, seed=2).value for c in ("symmetric", "sorted", "random")}
    assert values["symmetric"] <= values["random"] and values["symmetric"] <= values["sorted"]
    assert values["sorted"] >= math.sqrt(len(split.train_positives)) * (1 - 1e-3)


@pytest.mark.slow
def test_blogcatalog_sensitivity_to_the_convention(data_dir):
    # issue 17 measured 43.7 (random), 58.2 (u < v) and 90.5 (negatives on the positive's source) for the same
    # estimator on BlogCatalog's training sample; the symmetric matrix gives 61.4, so 30.7 enters the theorem
    from lgekit import datasets

    graph = datasets.load("blogcatalog", data_home=data_dir, download=False)
    split = split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=0)
    got = {c: theorem1_spectral_norm(split, c, n_draws=2, seed=0) for c in ("symmetric", "random", "sorted",
                                                                          "source")}
    assert got["symmetric"].estimate.mean == pytest.approx(61.4, rel=0.03)
    assert got["symmetric"].value == pytest.approx(30.7, rel=0.03)
    assert got["random"].value == pytest.approx(43.7, rel=0.03)
    assert got["sorted"].value == pytest.approx(58.2, rel=0.03)
    assert got["source"].value == pytest.approx(90.5, rel=0.03)


# -- the planted model (lgekit.theory.planted) ------------------------------------------------------------------------
def test_planted_distribution_probabilities_and_sampler_agree():
    from lgekit.theory import PlantedPairDistribution

    P = PlantedPairDistribution(12, 3)
    p_pos, p_neg = P.pair_probabilities()
    assert p_pos.sum() + p_neg.sum() == pytest.approx(1.0)
    assert p_pos.sum() == pytest.approx(1 / 5) and np.all(np.diag(p_pos) == 0) and np.all(np.diag(p_neg) == 0)
    comm = P.communities
    assert np.all(p_pos[comm[:, None] != comm[None, :]] == 0)
    M = 200_000
    pairs, y = P.sample(M, seed=0)
    counts_pos = np.zeros((12, 12))
    counts_neg = np.zeros((12, 12))
    np.add.at(counts_pos, (pairs[y > 0, 0], pairs[y > 0, 1]), 1)
    np.add.at(counts_neg, (pairs[y < 0, 0], pairs[y < 0, 1]), 1)
    # every cell count is Binomial(M, p): within 5 standard deviations
    for counts, p in ((counts_pos, p_pos), (counts_neg, p_neg)):
        assert np.all(np.abs(counts - M * p) <= 5 * np.sqrt(M * p * (1 - p)) + 1e-9)


def test_planted_expected_loss_is_exact():
    from lgekit.theory import PlantedPairDistribution
    from lgekit.theory.bounds import clipped_logistic_loss

    P = PlantedPairDistribution(10, 2)
    assert P.expected_loss(np.zeros((10, 4))) == pytest.approx(math.log(2))
    X = np.random.default_rng(1).normal(size=(10, 4))
    exact = P.expected_loss(X, B=1.0)
    pairs, y = P.sample(400_000, seed=2)
    losses = np.minimum(np.log1p(np.exp(-y * np.einsum("ij,ij->i", X[pairs[:, 0]], X[pairs[:, 1]]))), 1.0)
    # a mean of 4e5 losses in [0, 1]: standard error <= 0.5 / sqrt(4e5) = 8e-4; 5 of them
    assert losses.mean() == pytest.approx(exact, abs=4e-3)
    assert clipped_logistic_loss(y * np.einsum("ij,ij->i", X[pairs[:, 0]], X[pairs[:, 1]]), 1.0) == pytest.approx(
        losses.mean())


def test_sign_sums_from_counts_match_the_pair_pattern():
    # a sample with repeated pairs: the entry of a pair seen c times is a sum of c signs; drawing it as
    # 2 Bin(c, 1/2) - c gives the same law as PairPattern(kind="homogeneous") on the full sample
    from lgekit.theory import PlantedPairDistribution, expected_spectral_norm, symmetric_sign_sum_norm

    P = PlantedPairDistribution(30, 3)
    pairs, _ = P.sample(20_000, seed=3)
    counts = np.zeros((30, 30), dtype=np.int64)
    np.add.at(counts, (pairs.min(axis=1), pairs.max(axis=1)), 1)
    a, a_se = symmetric_sign_sum_norm(counts, n_draws=40, seed=4)
    b = expected_spectral_norm(pairs, n_draws=40, seed=5, shape=(30, 30), kind="homogeneous")
    # two independent Monte Carlo means: within 5 combined standard errors
    assert abs(a - b.mean) <= 5 * math.hypot(a_se, b.std_error)


def test_planted_bound_rows_evaluate_theorem1():
    from lgekit.theory import PlantedPairDistribution, planted_bound_rows

    rows = planted_bound_rows(PlantedPairDistribution(12, 3), [2000], [0.01, 0.1], dim=3, n_draws=3, seed=0,
                              maxiter=200)
    assert [r["lam_r"] for r in rows] == [0.01, 0.1]
    for r in rows:
        b = theorem1_bound(r["train loss"], 2000, r["E||A_sym||/2"], 12 * r["mean ||x||^2"],
                           12 * r["mean ||x||^2"], 1.0)
        assert r["bound"] == pytest.approx(b.rhs) and r["holds"] == (r["expected loss"] <= r["bound"])
        assert r["gap"] == pytest.approx(r["expected loss"] - r["train loss"])
    # a stronger penalty gives a smaller norm
    assert rows[1]["mean ||x||^2"] < rows[0]["mean ||x||^2"]


def test_planted_errors():
    from lgekit.theory import PlantedPairDistribution, planted_bound_rows, symmetric_sign_sum_norm

    with pytest.raises(ValueError, match="n_communities must be at most"):
        PlantedPairDistribution(10, 6)
    with pytest.raises(TypeError, match="n_nodes must be an int"):
        PlantedPairDistribution(10.5, 2)
    with pytest.raises(ValueError, match="X must have shape"):
        PlantedPairDistribution(10, 2).expected_loss(np.zeros((9, 2)))
    with pytest.raises(ValueError, match="square"):
        symmetric_sign_sum_norm(np.zeros((3, 4)))
    with pytest.raises(TypeError, match="PlantedPairDistribution"):
        planted_bound_rows(object(), [10], [0.1])
