"""Tests of lgekit.theory.bounds: Theorem 1's right-hand side and the measured gap."""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lgekit.theory import (
    generalization_gap,
    logistic_loss_bound,
    norm_constants,
    rademacher_matrix,
    theorem1_bound,
)


def test_rhs_is_the_sum_of_the_three_terms():
    b = theorem1_bound(0.2, n_samples=5000, spectral_norm=12.0, C_U=30.0, C_V=40.0, B=3.0, delta=0.1,
                       lipschitz=0.5)
    assert b.complexity == pytest.approx(2 * 0.5 * math.sqrt(30 * 40) * 12.0 / 5000)
    assert b.confidence == pytest.approx(3 * 3.0 * math.sqrt(math.log(2 / 0.1) / (2 * 5000)))
    assert b.rhs == pytest.approx(0.2 + b.complexity + b.confidence)
    assert b.gap_bound == pytest.approx(b.complexity + b.confidence)
    assert not b.is_vacuous(trivial_loss=10.0) and b.is_vacuous(trivial_loss=0.2)


def test_bound_monotone_in_norm_and_sample_size():
    base = dict(train_loss=0.1, spectral_norm=10.0, B=1.0)
    small = theorem1_bound(n_samples=1000, C_U=1.0, C_V=1.0, **base)
    big_norm = theorem1_bound(n_samples=1000, C_U=4.0, C_V=4.0, **base)
    more_data = theorem1_bound(n_samples=4000, C_U=1.0, C_V=1.0, **base)
    assert big_norm.complexity == pytest.approx(4 * small.complexity)
    assert more_data.complexity == pytest.approx(small.complexity / 4)
    assert more_data.confidence == pytest.approx(small.confidence / 2)


@given(arrays(np.float64, (6, 3), elements=st.floats(-3, 3)), arrays(np.float64, (7, 3), elements=st.floats(-3, 3)),
       st.integers(0, 2**32 - 1))
def test_trace_inequality_behind_the_complexity_term(XU, XV, seed):
    # sum_i sigma_i x_{a_i}.x_{b_i} = tr(XU^T A_sigma XV) <= ||A_sigma|| ||XU||_F ||XV||_F for every sign draw:
    # the step that turns the Rademacher complexity into sqrt(C_U C_V) E||A_sigma||.
    rng = np.random.default_rng(seed)
    pairs = np.column_stack([rng.integers(0, 6, 15), rng.integers(0, 7, 15)])
    pairs = np.unique(pairs, axis=0)
    A = rademacher_matrix(pairs, shape=(6, 7), seed=rng).toarray()
    lhs = float(np.sum(A[pairs[:, 0], pairs[:, 1]] * np.einsum("ij,ij->i", XU[pairs[:, 0]], XV[pairs[:, 1]])))
    assert lhs == pytest.approx(np.trace(XU.T @ A @ XV), abs=1e-9)
    assert lhs <= np.linalg.norm(A, 2) * np.linalg.norm(XU) * np.linalg.norm(XV) + 1e-9


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
    with pytest.raises(ValueError, match="B must be > 0"):
        theorem1_bound(**{**ok, "B": 0.0})
    with pytest.raises(ValueError, match="train_loss"):
        theorem1_bound(**{**ok, "train_loss": float("nan")})
    with pytest.raises(TypeError, match="EdgeSplit"):
        generalization_gap(np.zeros((3, 2)), object())
    with pytest.raises(ValueError, match="outside"):
        generalization_gap(np.zeros((3, 2)), _split(np.random.default_rng(0), n=20))
    with pytest.raises(ValueError, match="non-finite"):
        norm_constants(np.full((2, 2), np.inf))
