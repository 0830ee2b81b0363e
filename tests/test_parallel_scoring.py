"""The parallel average precision of ``lgekit/_scoring.pyx`` (the link-prediction callback's) equals
``metrics.average_precision_from_scores`` bit for bit, for any thread count."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from lgekit import metrics
from lgekit._scoring import average_precision_pairs, average_precision_scores, pair_dots


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
    assert average_precision_scores(pos, neg, threads) == metrics.average_precision_from_scores(pos, neg)


def test_many_negatives_split_over_threads():
    # enough negatives that every thread counts a slice of its own (16,384 a thread at least)
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(0.5, 1, 5000), rng.normal(0, 1, 70000)
    expected = metrics.average_precision_from_scores(pos, neg)
    assert [average_precision_scores(pos, neg, t) for t in (1, 2, 4)] == [expected] * 3


def test_pairs_equal_the_metric():
    rng = np.random.default_rng(1)
    emb = rng.normal(size=(300, 8)).astype(np.float32)
    pos = rng.integers(0, 300, (200, 2)).astype(np.int64)
    neg = rng.integers(0, 300, (900, 2)).astype(np.int64)
    assert average_precision_pairs(emb, emb, pos, neg, 2) == metrics.average_precision(emb, pos, neg)
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
