# cython: language_level=3
"""One vertex's SVM (Eq. 4) as the DCD kernels read it (see _dcd.pyx): the pair CSR with its duals, a vertex's
slice of it (its ``Block``: the SVM's training points), w(alpha) and the projected gradient.  Shared by the
epoch (``_dcd.pyx``) and the certificates at rest (``_dcd_diagnostics.pyx``); nothing here is Python-level
but ``read_pair_csr``, which fills a ``PairCSR`` at a call's start."""
from libc.stdint cimport int8_t, int32_t, int64_t

from lgekit._common cimport floating, axpy


cdef struct PairCSR:
    # The pair CSR with its duals: vertex u's entries are indptr[u]:indptr[u + 1], each a partner, its label
    # (+1 edge, -1 negative), its box bound U = c / lam_r and its dual variable alpha (updated in place).
    const int64_t* indptr
    const int32_t* nbr
    const int8_t* sign
    const double* upper
    double* alpha


cdef struct Block:
    # One vertex's SVM (Eq. 4): its deg training points x_{nbr[j]} with labels sign[j], box bounds upper[j]
    # and duals alpha[j] (a slice of the PairCSR).
    const int32_t* nbr
    const int8_t* sign
    const double* upper
    double* alpha
    Py_ssize_t deg


cdef inline Block block_of(const PairCSR* csr, Py_ssize_t u) noexcept nogil:
    """Vertex u's slice of the pair CSR."""
    cdef Block blk
    cdef int64_t start = csr.indptr[u]
    blk.nbr = csr.nbr + start
    blk.sign = csr.sign + start
    blk.upper = csr.upper + start
    blk.alpha = csr.alpha + start
    blk.deg = csr.indptr[u + 1] - start
    return blk


cdef inline void build_w(floating* w, const floating* X, Py_ssize_t D, const Block* blk) noexcept nogil:
    """w <- sum_j alpha_j s_j x_{nbr_j}, skipping alpha_j = 0, in entry order."""
    cdef const int32_t* nbr = blk.nbr
    cdef const int8_t* sign = blk.sign
    cdef const double* alpha = blk.alpha
    cdef Py_ssize_t i, j
    for i in range(D):
        w[i] = 0
    for j in range(blk.deg):
        if alpha[j] != 0:
            axpy(<floating>(alpha[j] * sign[j]), X + <Py_ssize_t>nbr[j] * D, w, D)


cdef inline double projected_gradient(double G, double a, double U) noexcept nogil:
    if a <= 0:
        return G if G < 0 else 0.0
    if a >= U:
        return G if G > 0 else 0.0
    return G


cdef inline int read_pair_csr(object csr, double[::1] alpha, Py_ssize_t n, PairCSR* out) except -1:
    """Fill ``out`` from a ``lgekit.models.PairCSR`` of n vertices and its duals, checked for consistent shapes."""
    cdef const int64_t[::1] indptr = csr.indptr
    cdef const int32_t[::1] nbr = csr.nbr
    cdef const int8_t[::1] sign = csr.sign
    cdef const double[::1] upper = csr.upper
    cdef Py_ssize_t m = nbr.shape[0]
    if indptr.shape[0] != n + 1 or alpha.shape[0] != m or sign.shape[0] != m or upper.shape[0] != m:
        raise ValueError(f"csr: inconsistent pair CSR for {n} vertices: indptr has {indptr.shape[0]} entries (n + 1 "
                         f"needed), nbr {m}, sign {sign.shape[0]}, upper {upper.shape[0]}, alpha {alpha.shape[0]}")
    if not 0 <= indptr[n] <= m:
        raise ValueError(f"csr: indptr ends at {indptr[n]}, beyond the {m} entries")
    out.indptr = &indptr[0]
    out.nbr = &nbr[0] if m else NULL
    out.sign = &sign[0] if m else NULL
    out.upper = &upper[0] if m else NULL
    out.alpha = &alpha[0] if m else NULL
    return 0
