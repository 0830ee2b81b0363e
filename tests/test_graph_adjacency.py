"""lgekit.adjacency builds the same canonical CSR as the plain construction, whatever the input."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lgekit.adjacency import SymmetricCSR, adjacency_from_pairs, is_symmetric, mirrored
from lgekit.ids import sorted_ids


def plain(idx, weights, n, directed, duplicates):
    """The adjacency by its definition, one edge at a time (a dict of merged weights)."""
    merged = {}
    for k, (u, v) in enumerate(idx.tolist()):
        if u == v:
            continue
        key = (u, v) if directed else (min(u, v), max(u, v))
        w = 1.0 if weights is None else float(weights[k])
        if key in merged:
            if duplicates == "error":
                raise ValueError(f"edge {key} is repeated")
            w = 1.0 if weights is None else (max(merged[key], w) if duplicates == "max" else merged[key] + w)
        merged[key] = w
    rows, cols, vals = [], [], []
    for (u, v), w in merged.items():
        rows.append(u), cols.append(v), vals.append(w)
        if not directed:
            rows.append(v), cols.append(u), vals.append(w)
    mat = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    mat.sort_indices()
    return mat


@st.composite
def pair_lists(draw):
    n = draw(st.integers(1, 25))
    m = draw(st.integers(0, 60))
    idx = np.array(draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=m, max_size=m)),
                   dtype=np.int64).reshape(-1, 2)
    weights = None
    if draw(st.booleans()):
        # dyadic weights: sums are exact in any order, so the comparison tests the merge, not the rounding
        weights = np.array(draw(st.lists(st.integers(1, 64), min_size=m, max_size=m)), dtype=np.float64) / 8
    return idx, weights, n


@settings(max_examples=300, deadline=None)
@given(pair_lists(), st.booleans(), st.sampled_from(["sum", "max", "error"]))
def test_adjacency_equals_its_definition(case, directed, duplicates):
    idx, weights, n = case
    try:
        want = plain(idx, weights, n, directed, duplicates)
    except ValueError:
        with pytest.raises(ValueError, match=r"edge \(\d+, \d+\) is repeated and duplicates='error'"):
            adjacency_from_pairs(idx, weights, n, directed, duplicates)
        return
    got, n_loops = adjacency_from_pairs(idx, weights, n, directed, duplicates)
    assert n_loops == int(np.sum(idx[:, 0] == idx[:, 1]))
    assert isinstance(got, SymmetricCSR) != directed
    got = got.matrix if isinstance(got, SymmetricCSR) else got
    assert got.has_canonical_format
    for a, b in ((got.indptr, want.indptr), (got.indices, want.indices), (got.data, want.data)):
        np.testing.assert_array_equal(a, b)
    assert is_symmetric(got) or directed


def test_repeated_edge_is_named_first_in_row_major_order():
    idx = np.array([[3, 4], [0, 2], [4, 3], [2, 0]])
    for weights in (None, np.ones(4)):
        with pytest.raises(ValueError, match=r"edge \(0, 2\) is repeated and duplicates='error'"):
            adjacency_from_pairs(idx, weights, 5, False, "error")


def test_sums_follow_the_input_order():
    """Three copies of one edge: the weights are added in the order given, as a stable sort adds them."""
    w = np.array([1e16, 1.0, -1e16 + 4])  # order matters: (1e16 + 1) + (-1e16 + 4) != 1e16 + (1 + (-1e16 + 4))
    got, _ = adjacency_from_pairs(np.array([[0, 1], [1, 0], [0, 1]]), np.abs(w), 2, False, "sum")
    assert got.matrix.data.tolist() == [(1e16 + 1.0) + abs(-1e16 + 4)] * 2


def test_mirrored_and_symmetry_check():
    upper = sp.csr_matrix(np.triu(np.arange(1, 17, dtype=float).reshape(4, 4), 1))
    full = mirrored(upper)
    np.testing.assert_array_equal(full.toarray(), upper.toarray() + upper.toarray().T)
    assert is_symmetric(full) and not is_symmetric(upper)


def test_dense_integer_ids_are_numbered_like_np_unique():
    rng = np.random.default_rng(0)
    for values in (rng.integers(-5, 40, size=(30, 2)), rng.integers(0, 2**40, size=(30, 2)),
                   np.array([[7, 7]]), rng.integers(0, 3, size=(50, 2)).astype(np.uint64)):
        ids, idx = sorted_ids(values)
        want_ids, want_idx = np.unique(values, return_inverse=True)
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_array_equal(idx, want_idx.reshape(values.shape))
