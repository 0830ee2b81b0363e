# cython: language_level=3
"""Contract of the negative-pair sampler kernel (see _sampling.pyx).

Other kernels may ``cimport`` these nogil helpers to test membership of a pair
in a CSR adjacency (sorted rows) or to draw a node from a cumulative
distribution while they run.
"""
from libc.stdint cimport uint64_t, int32_t, int64_t

ctypedef fused index_t:
    int32_t
    int64_t

ctypedef fused offset_t:
    int32_t
    int64_t


cdef inline bint csr_row_has(const offset_t* indptr, const index_t* indices, int64_t u, int64_t v) noexcept nogil:
    """Is ``v`` in the sorted row ``u`` of a CSR pattern given by raw pointers?  Binary search, O(log deg u)."""
    cdef int64_t lo = indptr[u]
    cdef int64_t hi = indptr[u + 1]
    cdef int64_t mid
    cdef int64_t x
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        x = indices[mid]
        if x < v:
            lo = mid + 1
        elif x > v:
            hi = mid
        else:
            return True
    return False


cdef inline bint csr_has_edge(const offset_t[::1] indptr, const index_t[::1] indices,
                              int64_t u, int64_t v) noexcept nogil:
    """``csr_row_has`` on typed memoryviews."""
    return csr_row_has(&indptr[0], &indices[0], u, v)


cdef inline int64_t cdf_search_ptr(const double* cdf, int64_t n, double r) noexcept nogil:
    """Smallest i with ``r < cdf[i]`` among the n entries at ``cdf`` (non-decreasing, last entry 1)."""
    cdef int64_t lo = 0
    cdef int64_t hi = n - 1
    cdef int64_t mid
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if r < cdf[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int64_t cdf_search(const double[::1] cdf, double r) noexcept nogil:
    """``cdf_search_ptr`` on a typed memoryview."""
    return cdf_search_ptr(&cdf[0], cdf.shape[0], r)
