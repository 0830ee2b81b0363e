# cython: language_level=3
"""Kernels on sampled pair patterns: CSR structure by counting sort, and the
Gram product of a random-sign (Rademacher) matrix, ``y = A^T (A x)``.

``A`` is stored as a CSR *pattern* (``indptr``, ``indices``) plus one ``int8``
sign per stored entry, so a Monte Carlo draw only rewrites the sign array and
the product reads 5 bytes per non-zero instead of 12 (float64 data + int32
index).  ``A^T`` is a second CSR pattern whose signs are gathered through the
permutation returned by :func:`csr_from_coo`.

Both products run in row-parallel ``prange`` loops: every output row is a
sum computed by exactly one thread in a fixed order, hence results are
bit-for-bit identical for any ``n_threads``.
"""
import numpy as np

cimport numpy as cnp
from cython.parallel cimport prange
from libc.stdint cimport int8_t, int64_t

from lgekit._common cimport floating

cnp.import_array()


def csr_from_coo(Py_ssize_t n_rows, const int[::1] rows, const int[::1] cols):
    """Stable counting sort of (row, col) entries into CSR order.

    Parameters
    ----------
    n_rows : int
        Number of rows; every ``rows[k]`` must lie in ``[0, n_rows)``
        (checked by the caller).
    rows, cols : int32 arrays of equal length
        The entries, in any order.

    Returns
    -------
    indptr : int64 array of length n_rows + 1
    indices : int32 array, the column of each CSR entry
    perm : int64 array, ``perm[k]`` is the input position of CSR entry ``k``
        (so ``data_csr = data[perm]``).

    Notes
    -----
    O(nnz + n_rows) time, no comparison sort; entries of a row keep their
    input order.
    """
    cdef Py_ssize_t nnz = rows.shape[0]
    cdef Py_ssize_t k, r, pos
    indptr_arr = np.zeros(n_rows + 1, dtype=np.int64)
    indices_arr = np.empty(nnz, dtype=np.int32)
    perm_arr = np.empty(nnz, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    cdef int[::1] indices = indices_arr
    cdef int64_t[::1] perm = perm_arr
    cdef int64_t[::1] fill
    with nogil:
        for k in range(nnz):
            indptr[rows[k] + 1] += 1
        for r in range(n_rows):
            indptr[r + 1] += indptr[r]
    fill_arr = indptr_arr[:n_rows].copy()
    fill = fill_arr
    with nogil:
        for k in range(nnz):
            r = rows[k]
            pos = fill[r]
            fill[r] = pos + 1
            indices[pos] = cols[k]
            perm[pos] = k
    return indptr_arr, indices_arr, perm_arr


cdef void _sign_matvec(const int64_t[::1] indptr, const int[::1] indices, const int8_t[::1] signs,
                       const floating[::1] x, floating[::1] y, int n_threads) noexcept nogil:
    """y = A x for A given by a CSR pattern with +-1 (or small integer) entries.

    Four independent partial sums per row break the floating-point add
    latency chain (the loop is latency-bound otherwise); the summation
    order is fixed, so results do not depend on the thread count.
    """
    cdef Py_ssize_t i, k, end, n = indptr.shape[0] - 1
    cdef double s0, s1, s2, s3
    for i in prange(n, num_threads=n_threads, schedule="static"):
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        k = indptr[i]
        end = indptr[i + 1]
        while k + 4 <= end:
            s0 = s0 + signs[k] * x[indices[k]]
            s1 = s1 + signs[k + 1] * x[indices[k + 1]]
            s2 = s2 + signs[k + 2] * x[indices[k + 2]]
            s3 = s3 + signs[k + 3] * x[indices[k + 3]]
            k = k + 4
        while k < end:
            s0 = s0 + signs[k] * x[indices[k]]
            k = k + 1
        y[i] = <floating>((s0 + s1) + (s2 + s3))


def sign_matvec(const int64_t[::1] indptr, const int[::1] indices, const int8_t[::1] signs,
                const floating[::1] x, floating[::1] out, int n_threads=1):
    """``out = A @ x`` where ``A`` is the signed CSR pattern (accumulated in double)."""
    with nogil:
        _sign_matvec(indptr, indices, signs, x, out, n_threads)
    return out


def sign_gram_matvec(const int64_t[::1] indptr, const int[::1] indices, const int8_t[::1] signs,
                     const int64_t[::1] t_indptr, const int[::1] t_indices, const int8_t[::1] t_signs,
                     const floating[::1] x, floating[::1] tmp, floating[::1] out, int n_threads=1):
    """``out = A^T (A x)``; ``tmp`` (length n_rows) receives ``A x``.

    ``(t_indptr, t_indices, t_signs)`` must be the CSR form of ``A^T``.
    For a symmetric ``A`` pass the same arrays twice.
    """
    with nogil:
        _sign_matvec(indptr, indices, signs, x, tmp, n_threads)
        _sign_matvec(t_indptr, t_indices, t_signs, tmp, out, n_threads)
    return out
