"""The schedules' parallel steps compute what their serial definitions do, bit for bit.

The counting sorts' offsets (``column_scan``) and the vertex shuffle's draws
(``fisher_yates_parallel``) moved onto the threads (issue 23); the orders built from
them must not change, for any thread count, or a seeded fit would change."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lgekit.models import _schedules

from splitmix import SplitMix64, fisher_yates


def serial_column_offsets(counts):
    """The definition: walk the counters column by column, row by row, keeping a running total."""
    offsets = np.empty_like(counts)
    total = 0
    for b in range(counts.shape[1]):
        for r in range(counts.shape[0]):
            offsets[r, b] = total
            total += counts[r, b]
    return offsets


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (16, 4097), (70, 2000)])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_column_offsets_are_the_serial_scan(shape, threads):
    # (16, 4097) and (70, 2000) hold more than 65,536 counters: the threads share the columns
    counts = np.random.default_rng(sum(shape)).integers(0, 9, shape).astype(np.int64)
    offsets, start = _schedules.column_offsets(counts, threads)
    expected = serial_column_offsets(counts) if counts.size < 20_000 else None
    if expected is None:      # the same definition in array form, for the large shapes
        col_start = np.concatenate([[0], np.cumsum(counts.sum(axis=0))])
        expected = col_start[:-1] + np.cumsum(counts, axis=0) - counts
    np.testing.assert_array_equal(offsets, expected)
    np.testing.assert_array_equal(start, np.concatenate([[0], np.cumsum(counts.sum(axis=0))]))


def python_fisher_yates(n, state):
    """``fisher_yates`` of _schedules.pxd from the Python SplitMix64 twin: steps i = 1, 2, ... swap a[i]
    with a[j], j uniform in [0, i], two steps from one draw's two halves, a last odd step from its high half."""
    rng = SplitMix64(0, 0)
    rng.state = state
    return fisher_yates(rng, n)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 1000, 1001])
def test_parallel_fisher_yates_is_the_serial_shuffle(n):
    for state in (0, 12345, 2**64 - 1):
        for threads in (1, 2):
            assert _schedules.shuffled_range(n, state, threads).tolist() == python_fisher_yates(n, state)


def test_parallel_fisher_yates_large_is_thread_independent():
    # 200,001 vertices: above the one-thread threshold, odd (a last single step); the twin checks a prefix
    # of the draws' effect through the whole permutation
    n, state = 200_001, 987654321
    one = _schedules.shuffled_range(n, state, 1)
    assert one.tolist() == python_fisher_yates(n, state)
    for threads in (2, 3, 4):
        np.testing.assert_array_equal(_schedules.shuffled_range(n, state, threads), one)


def test_permutation_is_thread_independent_with_a_parallel_scan():
    # 3.2M indices: 49 chunks x 1,563 buckets = 76,587 counters, above the one-thread threshold of the scan
    P = 3_200_000
    one = _schedules.permutation(P, 5, 2, 1)
    assert np.array_equal(np.sort(one), np.arange(P, dtype=np.int32))
    for threads in (2, 3):
        np.testing.assert_array_equal(_schedules.permutation(P, 5, 2, threads), one)


def test_shuffled_range_rejects_a_negative_length():
    with pytest.raises(ValueError, match="n must be in"):
        _schedules.shuffled_range(-1, 0)


@given(st.integers(0, 3000), st.integers(1, 40), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3, 8]))
@settings(max_examples=40, deadline=None)
def test_grouped_order_is_the_stable_argsort_by_ranked_group(n, k, seed, n_threads):
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n).astype(np.int32)
    group = rng.integers(0, k, n).astype(np.int32)
    rank = rng.permutation(k).astype(np.int32)
    order, group_ptr = _schedules.grouped_order(perm, group, rank, n_threads)
    np.testing.assert_array_equal(order, perm[np.argsort(rank[group][perm], kind="stable")])
    np.testing.assert_array_equal(group_ptr, np.r_[0, np.cumsum(np.bincount(rank[group], minlength=k))])


def test_grouped_order_above_the_serial_threshold_for_any_thread_count():
    rng = np.random.default_rng(5)
    n, k = 200_000, 57
    perm, group, rank = (rng.permutation(n).astype(np.int32), rng.integers(0, k, n).astype(np.int32),
                         rng.permutation(k).astype(np.int32))
    expected = perm[np.argsort(rank[group][perm], kind="stable")]
    for t in (1, 2, 5):
        np.testing.assert_array_equal(_schedules.grouped_order(perm, group, rank, t)[0], expected)
    with pytest.raises(ValueError, match="at least one group"):
        _schedules.grouped_order(perm, group, np.empty(0, np.int32))
