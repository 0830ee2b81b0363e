# cython: language_level=3
"""Per-epoch diagnostics of the logistic embedding: the objective's parts and the Eq. 2 gradient.

After an epoch ``diagnostics`` computes, per vertex (in parallel; results per vertex, summed by
the caller, so independent of the thread count), the norm of the full gradient of Eq. 2, the
losses of the pairs whose smaller end is u, and ||x_u||^2.  Nothing here writes the embedding.
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t

from lgekit._common cimport floating, dot, sigmoid_fused, log_sigmoid, log_sigmoidf
from lgekit._intrinsics cimport LGK_PREFETCH, lgk_ftz_begin, lgk_ftz_end


cdef inline void _prefetch_row_read(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCH(<const char*>row + off)
        off += 64



cdef enum:
    _PF_DIAG = 6     # prefetch the partner row this many partners ahead


cdef void _vertex_diag(const floating* emb, Py_ssize_t D, Py_ssize_t u,
                       const int64_t* pptr, const int32_t* pnbr, const double* pcoef,
                       double pos_scale, const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                       floating* g, double* zbuf, double* wbuf, double* gout, double* gnorm, double* lpos,
                       double* lneg, double* norm2) noexcept nogil:
    """Vertex u's Eq. 2 gradient (into g), its norm, the losses of u's pairs counted at u and ||x_u||^2.

    A pair's loss is counted once, at its smaller end (a self-pair, in u's list twice, half each
    time).  The partner rows are read in list order, the next partner's score computed before this
    one's sigmoid and gradient term (software pipelining, as in ``_edge_run``; nothing is written
    to the embedding here, so no score is recomputed).  The gradient's sigmoid is taken in the
    embedding's precision.  The losses are taken after the list, over the scores kept in ``zbuf``
    (weights in ``wbuf``; both as long as u's longest partner list): deciding per partner whether
    to take it would be a branch on v > u, mispredicted half the time.  Their log sigma is in the
    embedding's precision too (float: ``log_sigmoidf``, vectorised over the list), their sum in
    double.
    """
    cdef const floating* xu = emb + u * D
    cdef const floating* xv
    cdef Py_ssize_t i, m, kept
    cdef int64_t j, lo, hi
    cdef const int32_t* nbr
    cdef double acc = 0, nn = 0, loss, coef, share
    cdef floating s, s_next = 0, c
    cdef floating* zs = <floating*>zbuf     # the kept scores, in the embedding's precision
    cdef floating two_lam_r = <floating>(2.0 * lam_r)
    cdef unsigned int fp_mode = lgk_ftz_begin()   # subnormals to zero, as in the updates
    for i in range(D):
        g[i] = two_lam_r * xu[i]
        nn += <double>xu[i] * xu[i]
    lpos[u] = 0
    lneg[u] = 0
    for m in range(2):              # m = 0: positive partners, m = 1: negative partners
        lo = pptr[u] if m == 0 else nptr[u]
        hi = pptr[u + 1] if m == 0 else nptr[u + 1]
        nbr = pnbr if m == 0 else nnbr
        if lo >= hi:
            continue
        kept = 0
        s = dot(xu, emb + <Py_ssize_t>nbr[lo] * D, D)
        for j in range(lo, hi):
            if j + _PF_DIAG < hi:
                _prefetch_row_read(emb + <Py_ssize_t>nbr[j + _PF_DIAG] * D, D * sizeof(floating))
            xv = emb + <Py_ssize_t>nbr[j] * D
            if j + 1 < hi:
                s_next = dot(xu, emb + <Py_ssize_t>nbr[j + 1] * D, D)
            share = <double>(nbr[j] > u) + 0.5 * <double>(nbr[j] == u)
            if m == 0:
                # loss -c log sigma(s); dL/dx_u gets -c sigma(-s) x_v
                coef = pcoef[j] if pcoef != NULL else pos_scale
                zs[kept] = s
                c = <floating>(-coef) * sigmoid_fused(-s)
            else:
                # loss -lam_neg log sigma(-s); dL/dx_u gets lam_neg sigma(s) x_v
                coef = lam_neg
                zs[kept] = -s
                c = <floating>coef * sigmoid_fused(s)
            wbuf[kept] = coef * share
            kept += share > 0
            for i in range(D):
                g[i] += c * xv[i]
            s = s_next
        loss = 0
        if floating is float:
            for i in range(kept):       # branch-free and inlined: vectorised
                zs[i] = log_sigmoidf(zs[i])
            for i in range(kept):
                loss -= wbuf[i] * zs[i]
        else:
            for i in range(kept):
                loss -= wbuf[i] * log_sigmoid(zs[i])
        if m == 0:
            lpos[u] = loss
        else:
            lneg[u] = loss
    for i in range(D):
        acc += <double>g[i] * g[i]
    if gout != NULL:
        for i in range(D):
            gout[i] = g[i]
    gnorm[u] = sqrt(acc)
    norm2[u] = nn
    lgk_ftz_end(fp_mode)


cdef Py_ssize_t _longest_list(const int64_t[::1] indptr, int n_threads):
    """max(indptr[u + 1] - indptr[u]): the longest incidence list (0 without vertices), each thread
    taking a slice of the vertices."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, T = max(1, min(n_threads, n // 65536)), t, u, lo, hi, m
    cdef int64_t[::1] best = np.zeros(T, np.int64)
    with nogil:
        for t in prange(T, num_threads=T, schedule="static", chunksize=1):
            lo = (n * t) // T
            hi = (n * (t + 1)) // T
            m = 0
            for u in range(lo, hi):
                if indptr[u + 1] - indptr[u] > m:
                    m = indptr[u + 1] - indptr[u]
            best[t] = m
    return max(best) if T > 0 else 0


def diagnostics(const floating[:, ::1] emb, const int64_t[::1] pos_indptr, const int32_t[::1] pos_nbr,
                const double[::1] pos_coef, const int64_t[::1] neg_indptr, const int32_t[::1] neg_nbr,
                double lam_neg, double lam_r, floating[:, ::1] scratch, double[::1] gnorm, double[::1] lpos,
                double[::1] lneg, double[::1] norm2, int n_threads=1, double[:, ::1] grad=None,
                double pos_scale=1.0, const int32_t[::1] vertices=None):
    """Per-vertex Eq. 2 gradient norm, pair losses (each pair's at its smaller end) and squared norm.

    Scores, gradients and their accumulation, and the pair losses' log sigma, are in the
    embedding's precision (``scratch``: (n_threads, >= D) of the same dtype, one row a thread; rows
    wider than D by a cache line keep one thread's gradient off the line another thread is writing);
    the losses' weights, the norms and all sums in double.

    For every vertex u: ``gnorm[u] = ||dL/dx_u||`` over all u's training pairs (the full
    gradient of Eq. 2, regulariser included), ``lpos[u] = -sum_{v in N+(u), v > u} c_uv log sigma(s)``,
    ``lneg[u] = -lam_neg sum_{v in N-(u), v > u} log sigma(-s)`` (each pair's loss is counted at
    its smaller end, so the objective's loss terms are ``lpos.sum()`` and ``lneg.sum()``) and
    ``norm2[u] = ||x_u||^2``.  With ``grad`` (n, D) the gradients themselves are stored too.
    ``pos_coef`` holds c_uv per entry of the positive lists; empty, every c_uv is ``pos_scale``
    (an unweighted graph needs no per-entry coefficients: 16 bytes an edge saved).
    Results are per vertex, hence independent of ``n_threads``.  With ``vertices`` only those
    vertices are computed (the entries of the others are left as they are): the sampled
    diagnostics' gradient norms, at the cost of the sample's incidence lists alone.
    """
    cdef Py_ssize_t n = emb.shape[0], D = emb.shape[1], u, i
    cdef const floating* E = &emb[0, 0]
    cdef floating* S = &scratch[0, 0]
    cdef const int64_t* pp = &pos_indptr[0]
    cdef const int64_t* npt = &neg_indptr[0]
    cdef const int32_t* pn = &pos_nbr[0] if pos_nbr.shape[0] else NULL
    cdef const int32_t* nn = &neg_nbr[0] if neg_nbr.shape[0] else NULL
    cdef const double* pc = &pos_coef[0] if pos_coef.shape[0] else NULL
    cdef Py_ssize_t S_stride = scratch.shape[1]
    cdef bint want_grad = grad is not None
    cdef double* G = &grad[0, 0] if want_grad else NULL
    cdef double* gout
    cdef bint subset = vertices is not None
    cdef Py_ssize_t n_visit = vertices.shape[0] if subset else n, k
    cdef const int32_t* vp = &vertices[0] if subset and n_visit > 0 else NULL
    if subset:
        for k in range(n_visit):
            if not 0 <= vertices[k] < n:
                raise ValueError(f"vertices[{k}] = {vertices[k]} is not a row of the embedding (0..{n - 1})")
    if n_threads > scratch.shape[0] or scratch.shape[1] < D:
        raise ValueError(f"scratch must have at least n_threads = {n_threads} rows of at least D = {D} entries, "
                         f"got shape ({scratch.shape[0]}, {scratch.shape[1]})")
    # per thread: the scores and loss weights of one partner list (see _vertex_diag), a cache line apart
    cdef Py_ssize_t L = max(1, _longest_list(pos_indptr, n_threads), _longest_list(neg_indptr, n_threads))
    cdef Py_ssize_t LB_stride = 2 * L + 8
    cdef double[:, ::1] loss_buf = np.empty((n_threads, LB_stride))
    cdef double* LB = &loss_buf[0, 0]
    with nogil:
        for k in prange(n_visit, num_threads=n_threads, schedule="dynamic", chunksize=64):
            u = vp[k] if subset else k
            gout = G + u * D if want_grad else NULL
            _vertex_diag(E, D, u, pp, pn, pc, pos_scale, npt, nn, lam_neg, lam_r, S + threadid() * S_stride,
                         LB + threadid() * LB_stride, LB + threadid() * LB_stride + L, gout,
                         &gnorm[0], &lpos[0], &lneg[0], &norm2[0])
