"""The pair CSR's counting sorts (lgekit/models/_pair_csr.pyx) against its definition.

``pair_csr`` promises every pair seen from both ends, sorted by vertex, then partner, then sign (+1
first), then input order (the concatenation [positives, positives reversed, negatives, negatives
reversed]).  The definition here is a stable sort of that concatenation by the composite key, the way
pair_csr computed it before the counting sorts; the layout decides the DCD's bits (the duals' order,
Algorithm 1's listing), so it must be the same array for array.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from lgekit.models._pair_csr import pair_layout
from lgekit.models.hinge import pair_csr


def defined_layout(n, pos, neg, pos_coef, neg_coef):
    """(indptr, nbr, sign, coef): the concatenation sorted stably by (vertex, partner, sign)."""
    rows = np.concatenate([pos[:, 0], pos[:, 1], neg[:, 0], neg[:, 1]])
    cols = np.concatenate([pos[:, 1], pos[:, 0], neg[:, 1], neg[:, 0]])
    sign = np.concatenate([np.ones(2 * len(pos), np.int8), -np.ones(2 * len(neg), np.int8)])
    coef = np.concatenate([pos_coef, pos_coef, np.full(2 * len(neg), neg_coef)])
    order = np.lexsort((sign < 0, cols, rows))                  # stable: ties keep the concatenation's order
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return indptr, cols[order].astype(np.int32), sign[order], coef[order]


@st.composite
def pair_lists(draw):
    """Vertices and pairs with what the layout must order: repeats, a pair and its reverse, an edge that
    is also a negative, isolated vertices, distinct weights (so that the order of equal keys shows)."""
    n = draw(st.integers(2, 9))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    pos = draw(st.lists(pair, max_size=14))
    neg = draw(st.lists(pair, max_size=14))
    if pos and draw(st.booleans()):
        neg.append(pos[0])                                       # an edge that is also a negative
        pos.append(pos[0][::-1])                                 # and the same pair reversed, another weight
    pos = np.array(pos, np.int64).reshape(-1, 2)
    neg = np.array(neg, np.int64).reshape(-1, 2)
    weights = np.arange(1, len(pos) + 1, dtype=np.float64)      # distinct: equal keys are told apart
    return n, pos, neg, weights


@given(pair_lists())
def test_counting_sorts_give_the_defined_layout(case):
    n, pos, neg, weights = case
    got = pair_csr(n, pos, neg, positive_weights=weights, lam_pos=0.5, lam_neg=0.25, lam_r=2.0)
    want = defined_layout(n, pos, neg, 0.5 * weights, 0.25)
    for name, g, w in zip(("indptr", "nbr", "sign", "coef"), got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w), name
    np.testing.assert_array_equal(got.upper, got.coef / 2.0)


def test_a_row_sort_alone_is_not_the_layout():
    """The check has teeth: vertex 0's incidence order (by input position, one counting sort by row)
    interleaves partners and signs; the layout sorts them."""
    pos, neg = np.array([[0, 3], [2, 0]]), np.array([[0, 2], [1, 0], [0, 1]])
    layout = pair_csr(4, pos, neg)
    row0 = slice(layout.indptr[0], layout.indptr[1])
    assert layout.nbr[row0].tolist() == [1, 1, 2, 2, 3] and layout.sign[row0].tolist() == [-1, -1, 1, -1, 1]
    incidence = [3, 2, 2, 1, 1]                                  # the order vertex 0 meets them in the input
    assert layout.nbr[row0].tolist() != incidence


def test_per_vertex_lambda_r_bounds_each_entry_by_its_owner():
    pos, neg = np.array([[0, 1], [1, 2]]), np.array([[0, 2]])
    lam_r = np.array([1.0, 2.0, 4.0])
    layout = pair_csr(3, pos, neg, lam_pos=1.0, lam_neg=0.5, lam_r=lam_r)
    owner = np.repeat(np.arange(3), np.diff(layout.indptr))
    np.testing.assert_array_equal(layout.upper, layout.coef / lam_r[owner])


def test_bad_arrays_are_refused_by_name():
    pos, neg = np.array([[0, 1]], np.int64), np.zeros((0, 2), np.int64)
    out = dict(indptr=np.empty(3, np.int64), nbr=np.empty(2, np.int32), sign=np.empty(2, np.int8),
               coef=np.empty(2))
    with pytest.raises(ValueError, match="pos_coef needs 1 entries"):
        pair_layout(2, pos, neg, np.ones(2), 0.1, *out.values())
    with pytest.raises(ValueError, match="indptr needs 3 entries, nbr, sign and coef 2"):
        pair_layout(2, pos, neg, np.ones(1), 0.1, np.empty(2, np.int64), *list(out.values())[1:])
    pair_layout(2, pos, neg, np.ones(1), 0.1, *out.values())
    assert out["indptr"].tolist() == [0, 1, 2] and out["nbr"].tolist() == [1, 0]
