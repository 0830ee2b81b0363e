# cython: language_level=3
"""Kernel of :func:`lgekit.datasets.chung_lu_graph`.

Miller & Hagberg (2011), "Efficient generation of networks with given
expected degrees", WAW 2011, LNCS 6732, pp. 115-126 (the algorithm behind
networkx's ``expected_degree_graph``).  With the weights sorted in
decreasing order, row ``u`` of the Chung-Lu model includes each ``v > u``
independently with probability ``p_uv = min(1, w_u w_v / S)``, ``S = sum(w)``.
Because ``p_uv`` only decreases along the row, candidates are skipped
geometrically with the current (upper-bound) probability ``p`` and accepted
with probability ``q / p`` (thinning), which costs O(n + m) in total instead
of O(n^2).
"""
from libc.math cimport log, floor
from libc.stdint cimport uint64_t, int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

import numpy as np

from lgekit._common cimport rng_uniform


def chung_lu_edges(const double[::1] w, double total, uint64_t seed, int64_t capacity_hint):
    """Edges of a Chung-Lu graph on weights ``w`` sorted in decreasing order.

    Parameters
    ----------
    w : float64 array, sorted non-increasing, non-negative
    total : float
        ``S = sum(w)`` (> 0).
    seed : uint64
        SplitMix64 state.
    capacity_hint : int
        Initial buffer size in edges (grown as needed).

    Returns
    -------
    (m, 2) int64 array of positions ``u < v`` in the sorted order.
    """
    cdef Py_ssize_t n = w.shape[0]
    cdef uint64_t state = seed
    cdef int64_t cap = capacity_hint if capacity_hint > 16 else 16
    cdef int64_t count = 0
    cdef int64_t* buf = <int64_t*> malloc(2 * cap * sizeof(int64_t))
    cdef int64_t* grown
    cdef int64_t u, v
    cdef double factor, p, q, r, skip
    cdef bint failed = False
    if buf == NULL:
        raise MemoryError(f"cannot allocate an edge buffer of {cap} edges")
    with nogil:
        for u in range(n - 1):
            if w[u] <= 0 or failed:
                break
            v = u + 1
            factor = w[u] / total
            p = w[v] * factor
            if p > 1.0:
                p = 1.0
            while v < n and p > 0:
                if p != 1.0:
                    r = 1.0 - rng_uniform(&state)          # in (0, 1]
                    skip = floor(log(r) / log(1.0 - p))    # geometric number of rejected candidates
                    if skip >= <double>(n - v):
                        break
                    v += <int64_t>skip
                q = w[v] * factor
                if q > 1.0:
                    q = 1.0
                if rng_uniform(&state) < q / p:
                    if count == cap:
                        cap = 2 * cap
                        grown = <int64_t*> realloc(buf, 2 * cap * sizeof(int64_t))
                        if grown == NULL:
                            failed = True
                            break
                        buf = grown
                    buf[2 * count] = u
                    buf[2 * count + 1] = v
                    count += 1
                p = q
                v += 1
    if failed:
        free(buf)
        raise MemoryError(f"cannot grow the edge buffer to {cap} edges")
    out = np.empty((count, 2), dtype=np.int64)
    cdef int64_t[:, ::1] view = out
    if count:
        memcpy(&view[0, 0], buf, 2 * count * sizeof(int64_t))
    free(buf)
    return out
