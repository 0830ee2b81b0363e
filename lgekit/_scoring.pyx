# cython: language_level=3
"""Pair scores ``x_u . y_v`` for many pairs (the kernel behind
:func:`lgekit.metrics.pair_scores`): one pass over the pairs, float64
accumulation whatever the embedding's precision, no temporaries."""
import numpy as np

from libc.stdint cimport int64_t
from lgekit._common cimport floating


def pair_dots(const floating[:, ::1] x, const floating[:, ::1] y, const int64_t[:, ::1] pairs):
    """scores[k] = sum_j x[u_k, j] * y[v_k, j] in float64 (indices must be in range)."""
    cdef Py_ssize_t k, j, n = pairs.shape[0], d = x.shape[1]
    cdef Py_ssize_t u, v
    cdef double s0, s1
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for k in range(n):
            u = pairs[k, 0]
            v = pairs[k, 1]
            s0 = 0.0
            s1 = 0.0
            j = 0
            while j + 2 <= d:
                s0 += <double>x[u, j] * <double>y[v, j]
                s1 += <double>x[u, j + 1] * <double>y[v, j + 1]
                j += 2
            if j < d:
                s0 += <double>x[u, j] * <double>y[v, j]
            out[k] = s0 + s1
    return out_arr
