# cython: language_level=3
"""Per-epoch diagnostics of the logistic embedding: the objective's parts and the Eq. 2 gradient.

After an epoch ``diagnostics`` computes, per vertex (in parallel; results per vertex, summed by
the caller, so independent of the thread count), the norm of the full gradient of Eq. 2, the
losses of the pairs whose smaller end is u, and ||x_u||^2, over the training pairs' ``IncidenceLists``
(``_incidence.pyx``).  Nothing here writes the embedding.
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t

from lgekit._common cimport floating, dot, sigmoid_fused, log_sigmoid, log_sigmoidf
from lgekit._intrinsics cimport LGK_PREFETCH, lgk_ftz_begin, lgk_ftz_end
from lgekit.models._incidence cimport Incidence, read_incidence


cdef inline void _prefetch_row_read(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCH(<const char*>row + off)
        off += 64


cdef enum:
    _PF_DIAG = 6     # prefetch the partner row this many partners ahead


cdef struct VertexDiagnostics:
    # Where ``_vertex_diag`` writes vertex u's results: entry u of each array (grad: its row, or NULL: not kept).
    double* grad_norm
    double* loss_pos
    double* loss_neg
    double* sqnorm
    double* grad


cdef void _vertex_diag(const floating* emb, Py_ssize_t dim, Py_ssize_t u, const Incidence* lists, double lam_r,
                       floating* grad, double* scores, double* weights, const VertexDiagnostics* out) noexcept nogil:
    """Vertex u's Eq. 2 gradient (into ``grad``), its norm, the losses of u's pairs counted at u and
    ||x_u||^2, written to entry u of ``out``'s arrays.

    A pair's loss is counted once, at its smaller end (a self-pair, in u's list twice, half each
    time).  The partner rows are read in list order, the next partner's score computed before this
    one's sigmoid and gradient term (software pipelining, as in ``_edge_run``; nothing is written
    to the embedding here, so no score is recomputed).  The gradient's sigmoid is taken in the
    embedding's precision.  The losses are taken after the list, over the scores kept in ``scores``
    (their weights in ``weights``; both as long as u's longest partner list): deciding per partner
    whether to take it would be a branch on v > u, mispredicted half the time.  Their log sigma is in
    the embedding's precision too (float: ``log_sigmoidf``, vectorised over the list), their sum in
    double.
    """
    cdef const int64_t* pos_ptr = lists.pos_ptr
    cdef const int32_t* pos_nbr = lists.pos_nbr
    cdef const double* pos_coef = lists.pos_coef
    cdef double pos_scale = lists.pos_scale, lam_neg = lists.lam_neg
    cdef const int64_t* neg_ptr = lists.neg_ptr
    cdef const int32_t* neg_nbr = lists.neg_nbr
    cdef const floating* xu = emb + u * dim
    cdef const floating* xv
    cdef Py_ssize_t i, negative, kept
    cdef int64_t j, lo, hi
    cdef const int32_t* nbr
    cdef double acc = 0, sqnorm = 0, loss, coef, share
    cdef floating s, s_next = 0, c
    cdef floating* kept_scores = <floating*>scores     # in the embedding's precision
    cdef floating two_lam_r = <floating>(2.0 * lam_r)
    cdef unsigned int fp_mode = lgk_ftz_begin()   # subnormals to zero, as in the updates
    for i in range(dim):
        grad[i] = two_lam_r * xu[i]
        sqnorm += <double>xu[i] * xu[i]
    out.loss_pos[u] = 0
    out.loss_neg[u] = 0
    for negative in range(2):           # the positive partners, then the negative ones
        lo = neg_ptr[u] if negative else pos_ptr[u]
        hi = neg_ptr[u + 1] if negative else pos_ptr[u + 1]
        nbr = neg_nbr if negative else pos_nbr
        if lo >= hi:
            continue
        kept = 0
        s = dot(xu, emb + <Py_ssize_t>nbr[lo] * dim, dim)
        for j in range(lo, hi):
            if j + _PF_DIAG < hi:
                _prefetch_row_read(emb + <Py_ssize_t>nbr[j + _PF_DIAG] * dim, dim * sizeof(floating))
            xv = emb + <Py_ssize_t>nbr[j] * dim
            if j + 1 < hi:
                s_next = dot(xu, emb + <Py_ssize_t>nbr[j + 1] * dim, dim)
            share = <double>(nbr[j] > u) + 0.5 * <double>(nbr[j] == u)
            if not negative:
                # loss -c log sigma(s); dL/dx_u gets -c sigma(-s) x_v
                coef = pos_coef[j] if pos_coef != NULL else pos_scale
                kept_scores[kept] = s
                c = <floating>(-coef) * sigmoid_fused(-s)
            else:
                # loss -lam_neg log sigma(-s); dL/dx_u gets lam_neg sigma(s) x_v
                coef = lam_neg
                kept_scores[kept] = -s
                c = <floating>coef * sigmoid_fused(s)
            weights[kept] = coef * share
            kept += share > 0
            for i in range(dim):
                grad[i] += c * xv[i]
            s = s_next
        loss = 0
        if floating is float:
            for i in range(kept):       # branch-free and inlined: vectorised
                kept_scores[i] = log_sigmoidf(kept_scores[i])
            for i in range(kept):
                loss -= weights[i] * kept_scores[i]
        else:
            for i in range(kept):
                loss -= weights[i] * log_sigmoid(kept_scores[i])
        if negative:
            out.loss_neg[u] = loss
        else:
            out.loss_pos[u] = loss
    for i in range(dim):
        acc += <double>grad[i] * grad[i]
    if out.grad != NULL:
        for i in range(dim):
            out.grad[u * dim + i] = grad[i]
    out.grad_norm[u] = sqrt(acc)
    out.sqnorm[u] = sqnorm
    lgk_ftz_end(fp_mode)


cdef Py_ssize_t _longest_list(const int64_t* indptr, Py_ssize_t n, int n_threads):
    """max(indptr[u + 1] - indptr[u]) over the n vertices: the longest incidence list (0 without vertices),
    each thread taking a slice of the vertices."""
    cdef Py_ssize_t T = max(1, min(n_threads, n // 65536)), t, u, lo, hi, m
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


def diagnostics(const floating[:, ::1] emb, lists, double lam_r, floating[:, ::1] scratch, double[::1] gnorm,
                double[::1] lpos, double[::1] lneg, double[::1] norm2, int n_threads=1, double[:, ::1] grad=None,
                const int32_t[::1] vertices=None):
    """Per-vertex Eq. 2 gradient norm, pair losses (each pair's at its smaller end) and squared norm.

    ``lists``: the ``IncidenceLists`` of the training pairs.  Scores, gradients and their accumulation,
    and the pair losses' log sigma, are in the embedding's precision (``scratch``: (n_threads, >= D) of the
    same dtype, one row a thread; rows wider than D by a cache line keep one thread's gradient off the
    line another thread is writing); the losses' weights, the norms and all sums in double.

    For every vertex u: ``gnorm[u] = ||dL/dx_u||`` over all u's training pairs (the full
    gradient of Eq. 2, regulariser included), ``lpos[u] = -sum_{v in N+(u), v > u} c_uv log sigma(s)``,
    ``lneg[u] = -lam_neg sum_{v in N-(u), v > u} log sigma(-s)`` (each pair's loss is counted at
    its smaller end, so the objective's loss terms are ``lpos.sum()`` and ``lneg.sum()``) and
    ``norm2[u] = ||x_u||^2``.  With ``grad`` (n, D) the gradients themselves are stored too.
    The lists' ``pos_coef`` holds c_uv per entry of the positive lists; empty, every c_uv is their
    ``pos_scale`` (an unweighted graph needs no per-entry coefficients: 16 bytes an edge saved).
    Results are per vertex, hence independent of ``n_threads``.  With ``vertices`` only those
    vertices are computed (the entries of the others are left as they are): the sampled
    diagnostics' gradient norms, at the cost of the sample's incidence lists alone.
    """
    cdef Py_ssize_t n = emb.shape[0], dim = emb.shape[1], u, k
    cdef Incidence incidence
    cdef VertexDiagnostics out
    cdef const floating* rows = &emb[0, 0]
    cdef floating* grads = &scratch[0, 0]
    cdef Py_ssize_t grad_stride = scratch.shape[1]
    cdef bint subset = vertices is not None
    cdef Py_ssize_t n_visit = vertices.shape[0] if subset else n
    cdef const int32_t* visit = &vertices[0] if subset and n_visit > 0 else NULL
    read_incidence(lists, n, &incidence)
    if subset:
        for k in range(n_visit):
            if not 0 <= vertices[k] < n:
                raise ValueError(f"vertices[{k}] = {vertices[k]} is not a row of the embedding (0..{n - 1})")
    if n_threads > scratch.shape[0] or scratch.shape[1] < dim:
        raise ValueError(f"scratch must have at least n_threads = {n_threads} rows of at least D = {dim} entries, "
                         f"got shape ({scratch.shape[0]}, {scratch.shape[1]})")
    out.grad_norm = &gnorm[0]
    out.loss_pos = &lpos[0]
    out.loss_neg = &lneg[0]
    out.sqnorm = &norm2[0]
    out.grad = &grad[0, 0] if grad is not None else NULL
    # per thread: the scores and loss weights of one partner list (see _vertex_diag), a cache line apart
    cdef Py_ssize_t longest = max(1, _longest_list(incidence.pos_ptr, n, n_threads),
                                  _longest_list(incidence.neg_ptr, n, n_threads))
    cdef Py_ssize_t buffer_stride = 2 * longest + 8
    cdef double[:, ::1] loss_buffers = np.empty((n_threads, buffer_stride))
    cdef double* buffers = &loss_buffers[0, 0]
    with nogil:
        for k in prange(n_visit, num_threads=n_threads, schedule="dynamic", chunksize=64):
            u = visit[k] if subset else k
            _vertex_diag(rows, dim, u, &incidence, lam_r, grads + threadid() * grad_stride,
                         buffers + threadid() * buffer_stride, buffers + threadid() * buffer_stride + longest, &out)
