"""The parallel average precision of ``lgekit/_scoring.pyx`` (``lgekit.metrics``' and the link-prediction
callback's) equals the definition by sorting both classes, bit for bit, for any thread count."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from lgekit import metrics
from lgekit._scoring import average_precision_pairs, average_precision_scores, pair_dots
from lgekit._validation import InvalidParameterError


def sorting_ap(positive_scores, negative_scores):
    """AP by its definition over the distinct positive thresholds t: sum_t (#positives at t / P) TP(t) /
    (TP(t) + FP(t)), each count by a binary search in a sorted class (what lgekit.metrics computed before
    it used the kernel; scikit-learn's average_precision_score up to rounding)."""
    pos = np.sort(np.asarray(positive_scores, dtype=np.float64).ravel())
    neg = np.sort(np.asarray(negative_scores, dtype=np.float64).ravel())
    last = np.ones(len(pos), dtype=bool)
    last[:-1] = pos[1:] != pos[:-1]                      # last occurrence of each distinct score
    thresholds = pos[last]
    counts = np.diff(np.flatnonzero(last) + 1, prepend=0)
    tp = len(pos) - np.searchsorted(pos, thresholds, side="left")
    fp = len(neg) - np.searchsorted(neg, thresholds, side="left")
    return float(np.sum(counts * (tp / (tp + fp))) / len(pos))


@st.composite
def scored_classes(draw):
    """Scores of a few positives and negatives, often tied (a coarse grid), sometimes spread."""
    n_pos = draw(st.integers(1, 40))
    n_neg = draw(st.integers(1, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        return rng.integers(-3, 4, n_pos) / 2.0, rng.integers(-3, 4, n_neg) / 2.0
    scale = draw(st.sampled_from([1e-12, 1.0, 1e6]))
    return rng.normal(size=n_pos) * scale, rng.normal(size=n_neg) * scale


@given(scored_classes(), st.sampled_from([1, 2, 3]))
def test_equals_the_sorting_definition(classes, threads):
    pos, neg = classes
    expected = sorting_ap(pos, neg)
    assert average_precision_scores(pos, neg, threads) == expected
    assert metrics.average_precision_from_scores(pos, neg, n_threads=threads) == expected


def test_many_negatives_split_over_threads():
    # enough negatives that every thread counts a slice of its own (16,384 a thread at least)
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(0.5, 1, 5000), rng.normal(0, 1, 70000)
    expected = sorting_ap(pos, neg)
    assert [average_precision_scores(pos, neg, t) for t in (1, 2, 4)] == [expected] * 3
    assert [metrics.average_precision_from_scores(pos, neg, n_threads=t) for t in (1, 4)] == [expected] * 2


def test_pairs_equal_the_metric():
    rng = np.random.default_rng(1)
    emb = rng.normal(size=(300, 8)).astype(np.float32)
    pos = rng.integers(0, 300, (200, 2)).astype(np.int64)
    neg = rng.integers(0, 300, (900, 2)).astype(np.int64)
    expected = sorting_ap(metrics.pair_scores(emb, pos), metrics.pair_scores(emb, neg))
    assert average_precision_pairs(emb, emb, pos, neg, 2) == expected
    assert metrics.average_precision(emb, pos, neg) == metrics.average_precision(emb, pos, neg, n_threads=3) == expected
    assert np.array_equal(pair_dots(emb, emb, neg, 2), pair_dots(emb, emb, neg, 1))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_scores_are_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        average_precision_scores([1.0, 2.0], [0.5, bad])
    with pytest.raises(ValueError, match="finite"):
        average_precision_scores([1.0, bad], [0.5])


def test_empty_class_is_refused():
    with pytest.raises(ValueError, match="at least one positive and one negative"):
        average_precision_scores([], [0.5])


def test_metrics_ap_agrees_with_scikit_learn():
    from sklearn.metrics import average_precision_score
    rng = np.random.default_rng(4)
    pos, neg = rng.integers(-5, 6, 300) / 4.0, rng.integers(-6, 5, 1200) / 4.0     # many ties
    labels = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    assert metrics.average_precision_from_scores(pos, neg, n_threads=2) == pytest.approx(
        average_precision_score(labels, np.r_[pos, neg]), abs=1e-12)


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_metrics_ap_refuses_bad_thread_counts(bad):
    with pytest.raises(InvalidParameterError, match="n_threads"):
        metrics.average_precision_from_scores([1.0], [0.0], n_threads=bad)
    with pytest.raises(InvalidParameterError, match="n_threads"):
        metrics.average_precision(np.eye(2), [[0, 1]], [[0, 0]], n_threads=bad)


def test_metrics_ap_refuses_non_finite_and_empty_classes():
    with pytest.raises(ValueError, match="finite"):
        metrics.average_precision_from_scores([1.0, np.nan], [0.5])
    with pytest.raises(ValueError, match="finite"):
        metrics.average_precision_from_scores([1.0], [0.5, np.inf], n_threads=2)
    with pytest.raises(ValueError, match="at least one positive and one negative"):
        metrics.average_precision_from_scores([1.0], [])
