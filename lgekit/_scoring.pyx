# cython: language_level=3
"""Pair scores ``x_u . y_v`` for many pairs (the kernel behind
:func:`lgekit.metrics.pair_scores`): one pass over the pairs, float64
accumulation whatever the embedding's precision, no temporaries."""
import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int64_t
from lgekit._common cimport floating
from lgekit._intrinsics cimport LGK_PREFETCH


cdef enum:
    _PF_AHEAD = 8     # prefetch the rows of the pair this many pairs ahead: the pairs come in random order


cdef inline double _dot_f64(const floating* x, const floating* y, Py_ssize_t d) noexcept nogil:
    """sum_j x[j] y[j] in float64, in eight independent partial sums (j mod 8) added in a fixed tree.

    Independent sums let the compiler keep them in vector registers; a single running sum is one
    long dependency chain of additions.  The order is fixed, so results do not depend on threads."""
    cdef double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0
    cdef Py_ssize_t j = 0
    while j + 8 <= d:
        s0 += <double>x[j] * <double>y[j]
        s1 += <double>x[j + 1] * <double>y[j + 1]
        s2 += <double>x[j + 2] * <double>y[j + 2]
        s3 += <double>x[j + 3] * <double>y[j + 3]
        s4 += <double>x[j + 4] * <double>y[j + 4]
        s5 += <double>x[j + 5] * <double>y[j + 5]
        s6 += <double>x[j + 6] * <double>y[j + 6]
        s7 += <double>x[j + 7] * <double>y[j + 7]
        j += 8
    while j < d:
        s0 += <double>x[j] * <double>y[j]
        j += 1
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))


cdef inline void _prefetch_row(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCH(<const char*>row + off)
        off += 64


def pair_dots(const floating[:, ::1] x, const floating[:, ::1] y, const int64_t[:, ::1] pairs,
              int n_threads=1):
    """scores[k] = sum_j x[u_k, j] * y[v_k, j] in float64 (indices must be in range).

    Each score is computed by one thread in a fixed order, so the result is the same for any
    ``n_threads``."""
    cdef Py_ssize_t k, n = pairs.shape[0], d = x.shape[1]
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    if n == 0 or d == 0:
        out_arr[:] = 0.0
        return out_arr
    with nogil:
        for k in prange(n, num_threads=max(n_threads, 1), schedule="static"):
            if k + _PF_AHEAD < n:
                _prefetch_row(&x[pairs[k + _PF_AHEAD, 0], 0], d * sizeof(floating))
                _prefetch_row(&y[pairs[k + _PF_AHEAD, 1], 0], d * sizeof(floating))
            out[k] = _dot_f64(&x[pairs[k, 0], 0], &y[pairs[k, 1], 0], d)
    return out_arr
