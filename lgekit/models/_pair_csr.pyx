# cython: language_level=3
"""The pair CSR of the hinge embedding's DCD: every training pair seen from both of its ends.

``lgekit.models.hinge.pair_csr`` lays the pairs out for the DCD kernel: vertex u's entries, one per
occurrence of a pair containing u, sorted by partner, then sign (+1 first), then input order, where the
input is the concatenation

    [positives as (u, v), positives as (v, u), negatives as (u, v), negatives as (v, u)]

(entry e of it: row, partner, sign, coefficient).  That order is a stable sort by the key
(row, partner, sign); here it takes two stable counting sorts, the least significant key first (a
radix sort on two digits): by (partner, sign), then by row.  O(m + n) time for m entries and n
vertices, against the O(m log m) of a comparison sort of the composite key, and no key array.
"""
import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t

__all__ = ["pair_layout"]


cdef inline void _entry(const int64_t* pos, const int64_t* neg, int64_t m, int64_t k, int64_t e,
                        int64_t* row, int64_t* col, bint* negative) noexcept nogil:
    """Row, partner and label of entry e of the concatenation above (positives, then negatives,
    each as given and then reversed)."""
    if e < 2 * m:
        negative[0] = False
        if e < m:
            row[0] = pos[2 * e]
            col[0] = pos[2 * e + 1]
        else:
            row[0] = pos[2 * (e - m) + 1]
            col[0] = pos[2 * (e - m)]
    else:
        negative[0] = True
        e -= 2 * m
        if e < k:
            row[0] = neg[2 * e]
            col[0] = neg[2 * e + 1]
        else:
            row[0] = neg[2 * (e - k) + 1]
            col[0] = neg[2 * (e - k)]


def pair_layout(Py_ssize_t n, const int64_t[:, ::1] positives, const int64_t[:, ::1] negatives,
                const double[::1] pos_coef, double neg_coef, int64_t[::1] indptr, int32_t[::1] nbr,
                int8_t[::1] sign, double[::1] coef):
    """Fill the pair CSR of ``n`` vertices (see the module docstring) in place.

    Parameters
    ----------
    n : int
        Vertices; every index in the pairs must lie in ``[0, n)`` (the caller checks).
    positives, negatives : (m, 2), (k, 2) int64
    pos_coef : (m,) float64
        The loss coefficient of each positive (``lam_pos * weight``).
    neg_coef : float
        The loss coefficient of every negative (``lam_neg``).
    indptr : (n + 1,) int64
        Out: vertex u's entries are ``indptr[u]:indptr[u + 1]``.
    nbr, sign, coef : (2 m + 2 k,) int32, int8, float64
        Out: each entry's partner, label (+1 / -1) and coefficient.
    """
    cdef int64_t m = positives.shape[0], k = negatives.shape[0], M = 2 * (m + k), e, t, row, col, at
    cdef bint negative
    if pos_coef.shape[0] != m:
        raise ValueError(f"pair_layout: pos_coef needs {m} entries (one per positive), got {pos_coef.shape[0]}")
    if indptr.shape[0] != n + 1 or nbr.shape[0] != M or sign.shape[0] != M or coef.shape[0] != M:
        raise ValueError(f"pair_layout: indptr needs {n + 1} entries, nbr, sign and coef {M}")
    if (m and positives.shape[1] != 2) or (k and negatives.shape[1] != 2):
        raise ValueError("pair_layout: the pairs must have two columns")
    indptr[0] = 0
    if M == 0:
        indptr[:] = 0
        return
    cdef int64_t[::1] by_partner = np.empty(M, dtype=np.int64)     # the entries sorted by (partner, sign)
    cdef int64_t[::1] fill = np.zeros(2 * n + 1, dtype=np.int64)   # counts, then next free slot, per key
    cdef const int64_t* pos = &positives[0, 0] if m else NULL
    cdef const int64_t* neg = &negatives[0, 0] if k else NULL
    with nogil:
        # first digit: (partner, sign), key 2 partner + (sign < 0); stable in e
        for e in range(M):
            _entry(pos, neg, m, k, e, &row, &col, &negative)
            fill[2 * col + negative + 1] += 1
        for t in range(2 * n):
            fill[t + 1] += fill[t]
        for e in range(M):
            _entry(pos, neg, m, k, e, &row, &col, &negative)
            at = 2 * col + negative
            by_partner[fill[at]] = e
            fill[at] += 1
        # second digit: the row, stable in the first digit's order
        for t in range(n + 1):
            indptr[t] = 0
        for e in range(M):
            _entry(pos, neg, m, k, e, &row, &col, &negative)
            indptr[row + 1] += 1
        for t in range(n):
            indptr[t + 1] += indptr[t]
        for t in range(n):
            fill[t] = indptr[t]
        for t in range(M):
            e = by_partner[t]
            _entry(pos, neg, m, k, e, &row, &col, &negative)
            at = fill[row]
            fill[row] += 1
            nbr[at] = <int32_t>col
            sign[at] = -1 if negative else 1
            coef[at] = neg_coef if negative else pos_coef[e % m]
