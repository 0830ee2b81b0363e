# cython: language_level=3
"""What a DCD epoch's record reads besides the epoch: the block certificates at the current embedding, the
hinge objective's two loss sums, and the counts of the duals at their bounds.

``vertex_certificates`` is the duality gap and the largest projected gradient of every vertex's SVM (Eq. 4)
with its stored vector and duals (``_dcd_block.pxd``: the same block the epoch solves); ``hinge_losses`` the
loss parts of Eq. 3 over fixed chunks of the pairs; ``dual_counts`` the duals at 0 and at their box bound.
All of it is independent of the thread count.  Nothing here writes the embedding or the duals.
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport fabs
from libc.stdint cimport int8_t, int32_t, int64_t

from lgekit._common cimport floating, dot
from lgekit.models._dcd_block cimport PairCSR, Block, block_of, build_w, projected_gradient, read_pair_csr

__all__ = ["vertex_certificates", "hinge_losses", "dual_counts"]


cdef void _stored_certificates(floating* w, const floating* X, Py_ssize_t D, Py_ssize_t u, const Block* blk,
                               double* gap, double* viol) noexcept nogil:
    """P(x_u) - D(alpha) with the stored x_u, and max |PG| of the dual at alpha."""
    cdef const int32_t* nbr = blk.nbr
    cdef const int8_t* sign = blk.sign
    cdef const double* upper = blk.upper
    cdef const double* alpha = blk.alpha
    cdef Py_ssize_t k
    cdef const floating* xu = X + u * D
    cdef const floating* xv
    cdef double hx = 0.0, asum = 0.0, v = 0.0, mx, G, PG
    build_w(w, X, D, blk)
    for k in range(blk.deg):
        xv = X + <Py_ssize_t>nbr[k] * D
        mx = sign[k] * <double>dot(xu, xv, D)
        if mx < 1.0:
            hx += upper[k] * (1.0 - mx)
        asum += alpha[k]
        G = sign[k] * <double>dot(w, xv, D) - 1.0
        PG = fabs(projected_gradient(G, alpha[k], upper[k]))
        if PG > v:
            v = PG
    gap[0] = 0.5 * <double>dot(xu, xu, D) + hx - asum + 0.5 * <double>dot(w, w, D)
    viol[0] = v


def vertex_certificates(floating[:, ::1] X, csr, double[::1] alpha, int n_threads):
    """Certificates of every vertex's sub-problem at the CURRENT embedding.

    For each u, with the partners' current vectors: the duality gap
    ``P(x_u) - D(alpha_u)`` between the stored vector x_u and the stored
    duals (>= 0; 0 iff x_u solves its block and alpha_u its dual, i.e. u is
    at a block-coordinate fixed point), and the largest |projected gradient|
    of the dual at alpha_u.  Units: the per-vertex SVM's (L / lam_r).
    ``csr``: the ``lgekit.models.PairCSR`` the duals ``alpha`` belong to (not written).
    Returns (gap, viol), float64 arrays of length n.
    """
    cdef Py_ssize_t n = X.shape[0], D = X.shape[1], u, t
    cdef int nt = max(1, n_threads)
    cdef PairCSR pairs
    cdef Block blk
    gap_arr = np.zeros(n, dtype=np.float64)
    viol_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] g = gap_arr, v = viol_arr
    if n == 0 or D == 0:
        return gap_arr, viol_arr
    read_pair_csr(csr, alpha, n, &pairs)
    dtype = np.float32 if floating is float else np.float64
    cdef floating[:, ::1] W = np.empty((nt, D + 64 // sizeof(floating)), dtype=dtype)   # rows a cache line apart
    cdef const floating* Xp = &X[0, 0]
    with nogil:
        for u in prange(n, num_threads=nt, schedule="dynamic", chunksize=16):
            t = threadid()
            blk = block_of(&pairs, u)
            _stored_certificates(&W[t, 0], Xp, D, u, &blk, &g[u], &v[u])
    return gap_arr, viol_arr


cdef enum:
    _CHUNK = 4096


def hinge_losses(floating[:, ::1] X, const int64_t[:, ::1] pairs, const double[::1] coef,
                 int n_threads):
    """sum_i coef_i * max(0, 1 - x_{p_i0} . x_{p_i1}), with ``coef`` signed.

    Positive ``coef`` means an edge (loss h(x_u.x_v)), negative a negative
    pair (loss |coef| h(-x_u.x_v)).  Returns (positive part, negative part).
    Sums are taken over fixed chunks and then in chunk order, so the result
    does not depend on the number of threads.
    """
    cdef Py_ssize_t m = pairs.shape[0], D = X.shape[1]
    cdef Py_ssize_t n_chunks = (m + _CHUNK - 1) // _CHUNK, c, i, lo, hi
    pos_arr = np.zeros(max(n_chunks, 1), dtype=np.float64)
    neg_arr = np.zeros(max(n_chunks, 1), dtype=np.float64)
    cdef double[::1] pos = pos_arr, neg = neg_arr
    cdef double z, a, sp, sn
    if coef.shape[0] != m:
        raise ValueError("hinge_losses: coef needs one entry per pair")
    if m == 0 or D == 0:
        return 0.0, 0.0
    cdef const floating* Xp = &X[0, 0]
    with nogil:
        for c in prange(n_chunks, num_threads=max(1, n_threads), schedule="static"):
            lo = c * _CHUNK
            hi = min(lo + _CHUNK, m)
            sp = 0.0
            sn = 0.0
            for i in range(lo, hi):
                z = dot(Xp + pairs[i, 0] * D, Xp + pairs[i, 1] * D, D)
                a = coef[i]
                if a > 0:
                    if z < 1.0:
                        sp = sp + a * (1.0 - z)
                else:
                    if z > -1.0:
                        sn = sn - a * (1.0 + z)
            pos[c] = sp
            neg[c] = sn
    return float(pos_arr.sum()), float(neg_arr.sum())


def dual_counts(const double[::1] alpha, const double[::1] upper, int n_threads):
    """``(n_zero, n_bound)``: the duals at 0 and those at a positive upper bound, counted on ``n_threads``
    (integer sums: the same for any thread count).  An epoch record's counts without two serial NumPy
    passes and their temporaries over every entry."""
    cdef Py_ssize_t i, m = alpha.shape[0]
    cdef int64_t n_zero = 0, n_bound = 0
    if upper.shape[0] != m:
        raise ValueError("dual_counts: upper needs one entry per dual")
    with nogil:
        for i in prange(m, num_threads=max(1, n_threads), schedule="static"):
            if alpha[i] == 0:
                n_zero += 1
            elif alpha[i] == upper[i] and upper[i] > 0:
                n_bound += 1
    return int(n_zero), int(n_bound)
