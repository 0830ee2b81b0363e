# cython: language_level=3
"""Stochastic gradient descent for the logistic (negative-sampling) linear graph embedding.

The objective (Gao et al., ICLR 2019, Section 3.2, Eq. 3)::

    L(X) = - lam_pos sum_{(u,v) in E+} w_uv log sigma(x_u . x_v)
           - lam_neg sum_{(u,v) in E-}      log sigma(-x_u . x_v)
           + lam_r   sum_v ||x_v||^2

Every training pair is a row of ``pairs``: rows ``0..n_pos-1`` are the
positives (coefficient ``coef[p] = lam_pos * w_p``), the rest the negatives
(``coef[p] = lam_neg``).  Epoch ``t`` uses the step ``lr`` given by the caller
(``lr0 * (t + lr_offset) ** -0.5``) and two SplitMix64 streams derived from the
fit's ``seed``: ``rng_stream(seed, 2 t)`` shuffles, ``rng_stream(seed, 2 t + 1)``
resamples negatives; nothing else is random, so epoch ``t`` is a function of
``(seed, t, X)``.

Edge order (``edge_epoch``): visit the pairs in a fresh uniformly random order
(Fisher-Yates); for pair p = (u, v), with s = x_u . x_v from the current values::

    g   = -coef[p] sigma(-s)      (positive)       g = coef[p] sigma(s)   (negative)
    x_u <- (1 - lr rfac[u]) x_u - lr g x_v
    x_v <- (1 - lr rfac[v]) x_v - lr g x_u          (both from the OLD x_u, x_v)

where ``rfac[x] = 2 lam_r / cnt(x)`` and cnt(x) is the number of training
pairs containing x: the regulariser's gradient 2 lam_r x is split over the
visits of x, so that one epoch applies lam_r ||x||^2 once.

Vertex order (``vertex_epoch``): for each vertex u in random order take the
full gradient of Eq. 4 over u's incident pairs with the current neighbours,
and step ``x_u <- x_u - lr dL/dx_u``.

Threads.  ``n_threads == 1``: plain sequential loop.  ``hogwild``: the shuffled
sequence is split into contiguous chunks processed concurrently without locks
(Recht et al. 2011); not reproducible.  ``deterministic``: each task (pair,
or vertex) gets a level ``1 + max(level of the earlier tasks it conflicts
with)`` (conflict: shares a vertex, or for vertex order, is a neighbour); the
tasks of one level touch disjoint rows, levels run in order with a barrier
between them and the tasks of a level in parallel.  Every pair of conflicting
tasks keeps its sequential order and disjoint updates commute exactly, so the
result is BIT-IDENTICAL to the sequential loop for any number of threads.

After the epoch ``diagnostics`` computes, per vertex (in parallel, results
per vertex, summed by the caller, so also thread-count independent), the
Eq. 4 gradient norm, the halves of the pair losses, and ||x_u||^2.
"""
import numpy as np

cimport cython
from cython.parallel cimport prange, parallel, threadid
from libc.math cimport sqrt, isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define LGK_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 3)
    #define LGK_PREFETCHW(p) __builtin_prefetch((const void*)(p), 1, 3)
    #else
    #define LGK_PREFETCH(p) ((void)0)
    #define LGK_PREFETCHW(p) ((void)0)
    #endif
    """
    void LGK_PREFETCH(const void* p) noexcept nogil
    void LGK_PREFETCHW(const void* p) noexcept nogil

from lgekit._common cimport floating, dot, axpy, scal, sigmoid, log_sigmoid, rng_next, rng_stream, rng_below


# --------------------------------------------------------------------- random order
cdef void _shuffle_identity(int32_t* order, Py_ssize_t n, uint64_t state) noexcept nogil:
    """order <- a uniformly random permutation of 0..n-1 (Fisher-Yates, from the top)."""
    cdef Py_ssize_t i, j
    cdef int32_t tmp
    for i in range(n):
        order[i] = <int32_t>i
    i = n - 1
    while i > 0:
        j = <Py_ssize_t>rng_below(&state, <uint64_t>(i + 1))
        tmp = order[i]
        order[i] = order[j]
        order[j] = tmp
        i -= 1


def permutation(Py_ssize_t n, uint64_t seed, Py_ssize_t epoch):
    """The visiting order the kernels use at ``epoch`` for ``n`` tasks (for tests and references)."""
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] o = out
    if n > 0:
        _shuffle_identity(&o[0], n, rng_stream(seed, <uint64_t>(2 * epoch)))
    return out


# --------------------------------------------------------------------- negatives
cdef inline bint _has_arc(const int64_t* indptr, const int32_t* indices, int32_t u, int32_t v) noexcept nogil:
    """Binary search for v in the sorted row u of a CSR."""
    cdef int64_t lo = indptr[u], hi = indptr[u + 1], mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[u + 1] and indices[lo] == v


cdef enum:
    _NEG_BLOCK = 16384
    _MAX_TRIES = 100000


def sample_negatives(int32_t[:, ::1] out, const int64_t[::1] indptr, const int32_t[::1] indices,
                     uint64_t seed, Py_ssize_t epoch, int n_threads=1):
    """Fill ``out`` with uniform pairs (u, v): u != v and neither (u, v) nor (v, u) an arc of the CSR.

    Block ``b`` of ``_NEG_BLOCK`` rows uses the stream ``rng_stream(rng_stream(seed, 2 epoch + 1), b)``,
    so the result does not depend on ``n_threads``.  Returns 0, or 1 when some pair needed more
    than ``_MAX_TRIES`` draws (a nearly complete graph).
    """
    cdef Py_ssize_t k = out.shape[0]
    cdef int32_t n = <int32_t>(indptr.shape[0] - 1)
    cdef Py_ssize_t n_blocks = (k + _NEG_BLOCK - 1) // _NEG_BLOCK
    cdef uint64_t base = rng_stream(seed, <uint64_t>(2 * epoch + 1))
    cdef Py_ssize_t b
    cdef int failed = 0
    cdef int* fp = &failed
    if k == 0:
        return 0
    if n < 2:
        return 1
    with nogil:
        for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic"):
            if _fill_block(&out[0, 0], k, b, n, &indptr[0], &indices[0], rng_stream(base, <uint64_t>b)):
                fp[0] = 1
    return failed


cdef int _fill_block(int32_t* out, Py_ssize_t k, Py_ssize_t b, int32_t n, const int64_t* indptr,
                     const int32_t* indices, uint64_t state) noexcept nogil:
    cdef Py_ssize_t r, stop = (b + 1) * _NEG_BLOCK
    cdef int32_t u, v
    cdef Py_ssize_t tries
    if stop > k:
        stop = k
    for r in range(b * _NEG_BLOCK, stop):
        tries = 0
        while True:
            u = <int32_t>rng_below(&state, <uint64_t>n)
            v = <int32_t>rng_below(&state, <uint64_t>n)
            if u != v and not _has_arc(indptr, indices, u, v) and not _has_arc(indptr, indices, v, u):
                break
            tries += 1
            if tries > _MAX_TRIES:
                return 1
        out[2 * r] = u
        out[2 * r + 1] = v
    return 0


def build_incidence(const int32_t[:, ::1] pairs, Py_ssize_t n, int64_t[::1] indptr, int32_t[::1] nbr,
                    int32_t[::1] src):
    """Symmetric incidence lists of a pair list by counting sort (stable in the pair index).

    Row x of the result lists, for every pair p = (x, y) or (y, x), the partner y (``nbr``) and p
    (``src``), in increasing p.  ``indptr`` has n + 1 entries, ``nbr`` and ``src`` 2 k.
    """
    cdef Py_ssize_t k = pairs.shape[0], p, x
    cdef int32_t u, v
    cdef int64_t* fill
    with nogil:
        for x in range(n + 1):
            indptr[x] = 0
        for p in range(k):
            indptr[pairs[p, 0] + 1] += 1
            indptr[pairs[p, 1] + 1] += 1
        for x in range(n):
            indptr[x + 1] += indptr[x]
        fill = <int64_t*>malloc((n + 1) * sizeof(int64_t))
        if fill != NULL:
            for x in range(n):
                fill[x] = indptr[x]
            for p in range(k):
                u = pairs[p, 0]
                v = pairs[p, 1]
                nbr[fill[u]] = v
                src[fill[u]] = <int32_t>p
                fill[u] += 1
                nbr[fill[v]] = u
                src[fill[v]] = <int32_t>p
                fill[v] += 1
            free(fill)
    if fill == NULL:
        raise MemoryError()


# --------------------------------------------------------------------- edge order
cdef inline int _edge_step(floating* emb, Py_ssize_t D, const int32_t* pairs, const double* coef,
                           Py_ssize_t n_pos, const double* rfac, Py_ssize_t p, double lr) noexcept nogil:
    """One pair update; returns 1 (and changes nothing) when x_u . x_v is not finite."""
    cdef Py_ssize_t u = pairs[2 * p], v = pairs[2 * p + 1], i
    cdef floating* xu = emb + u * D
    cdef floating* xv = emb + v * D
    cdef double s = dot(xu, xv, D)
    cdef double g
    cdef floating k, au, av, a, b
    if not isfinite(s):
        return 1
    if p < n_pos:
        g = -coef[p] * sigmoid(-s)
    else:
        g = coef[p] * sigmoid(s)
    k = <floating>(-lr * g)
    au = <floating>(1.0 - lr * rfac[u])
    av = <floating>(1.0 - lr * rfac[v])
    for i in range(D):
        a = xu[i]
        b = xv[i]
        xu[i] = au * a + k * b
        xv[i] = av * b + k * a
    return 0


cdef Py_ssize_t _edge_levels(const int32_t* pairs, const int32_t* order, Py_ssize_t P, Py_ssize_t n,
                             int32_t* last, int32_t* lvl, int64_t* bptr, int32_t* items) noexcept nogil:
    """Conflict levels of the pair sequence; items grouped by level (stable), bptr = level offsets.

    Returns the number of levels L (bptr has L + 1 meaningful entries, bptr must hold P + 2)."""
    cdef Py_ssize_t k, L = 0, x
    cdef int32_t p, u, v, l
    for x in range(n):
        last[x] = 0
    for k in range(P):
        p = order[k]
        u = pairs[2 * p]
        v = pairs[2 * p + 1]
        l = last[u] if last[u] > last[v] else last[v]
        l += 1
        last[u] = l
        last[v] = l
        lvl[k] = l
        if l > L:
            L = l
    for x in range(L + 2):
        bptr[x] = 0
    for k in range(P):
        bptr[lvl[k]] += 1          # level l (1-based) counted at bptr[l]
    # exclusive prefix: level l occupies [bptr[l-1], bptr[l]) after the shift below
    for x in range(1, L + 1):
        bptr[x] += bptr[x - 1]
    for k in range(P - 1, -1, -1):
        bptr[lvl[k]] -= 1
        items[bptr[lvl[k]]] = order[k]
    # now level l occupies [bptr[l], bptr[l+1]) for l = 1..L with bptr[L+1] = P
    bptr[L + 1] = P
    return L


cdef Py_ssize_t _PF_FAR = 16     # prefetch the pair record this many steps ahead
cdef Py_ssize_t _PF_NEAR = 6     # and the two embedding rows this many steps ahead
cdef int _PF_ROWS = 1

def _set_prefetch(far, near, rows):
    global _PF_FAR, _PF_NEAR, _PF_ROWS
    _PF_FAR = far; _PF_NEAR = near; _PF_ROWS = rows


cdef inline void _prefetch_row(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCHW(<const char*>row + off)
        off += 64


cdef void _edge_run(floating* E, Py_ssize_t D, const int32_t* PR, const double* C, Py_ssize_t n_pos,
                    const double* R, const int32_t* seq, Py_ssize_t lo, Py_ssize_t hi, double lr,
                    int* flag) noexcept nogil:
    """Pair updates for seq[lo:hi], in order, with software prefetching (the pair records and
    rows are random accesses: without it the loop waits on memory most of the time)."""
    cdef Py_ssize_t k, q
    cdef int32_t p
    for k in range(lo, hi):
        if flag[0]:
            return
        if k + _PF_FAR < hi:
            p = seq[k + _PF_FAR]
            LGK_PREFETCH(PR + 2 * p)
            LGK_PREFETCH(C + p)
        if _PF_ROWS and k + _PF_NEAR < hi:
            p = seq[k + _PF_NEAR]
            _prefetch_row(E + <Py_ssize_t>PR[2 * p] * D, D * sizeof(floating))
            _prefetch_row(E + <Py_ssize_t>PR[2 * p + 1] * D, D * sizeof(floating))
            LGK_PREFETCH(R + PR[2 * p])
            LGK_PREFETCH(R + PR[2 * p + 1])
        if _edge_step(E, D, PR, C, n_pos, R, seq[k], lr):
            flag[0] = 1
            return


def edge_epoch(floating[:, ::1] emb, const int32_t[:, ::1] pairs, const double[::1] coef, Py_ssize_t n_pos,
               const double[::1] rfac, int32_t[::1] order, int32_t[::1] work_last, int32_t[::1] work_lvl,
               int64_t[::1] work_bptr, int32_t[::1] work_items, uint64_t seed, Py_ssize_t epoch, double lr,
               int n_threads=1, bint deterministic=True):
    """One edge-order epoch in place.  Returns 0, or 1 if a non-finite score stopped it.

    Work arrays: ``order``, ``work_lvl``, ``work_items`` of length P; ``work_last`` of length n;
    ``work_bptr`` of length P + 2 (the last four are used only by the deterministic parallel
    schedule).
    """
    cdef Py_ssize_t P = pairs.shape[0], D = emb.shape[1], n = emb.shape[0]
    cdef Py_ssize_t c, L, lev = 0, lo, hi, span
    cdef int flag = 0
    cdef int* fp = &flag
    cdef floating* E = &emb[0, 0]
    cdef const int32_t* PR = &pairs[0, 0]
    cdef const double* C = &coef[0]
    cdef const double* R = &rfac[0]
    cdef int32_t* O = &order[0]
    cdef int32_t* IT
    cdef int64_t* BP
    if P == 0:
        return 0
    if n_threads < 1:
        n_threads = 1
    with nogil:
        _shuffle_identity(O, P, rng_stream(seed, <uint64_t>(2 * epoch)))
        if n_threads == 1:
            _edge_run(E, D, PR, C, n_pos, R, O, 0, P, lr, fp)
        elif not deterministic:
            # Hogwild: thread c takes the c-th contiguous slice of the shuffled sequence.
            for c in prange(n_threads, num_threads=n_threads, schedule="static", chunksize=1):
                _edge_run(E, D, PR, C, n_pos, R, O, (P * c) // n_threads, (P * (c + 1)) // n_threads, lr, fp)
        else:
            L = _edge_levels(PR, O, P, n, &work_last[0], &work_lvl[0], &work_bptr[0], &work_items[0])
            IT = &work_items[0]
            BP = &work_bptr[0]
            with parallel(num_threads=n_threads):
                for lev in range(1, L + 1):
                    for c in prange(n_threads, schedule="static", chunksize=1):
                        span = BP[lev + 1] - BP[lev]
                        lo = BP[lev] + (span * c) // n_threads
                        hi = BP[lev] + (span * (c + 1)) // n_threads
                        _edge_run(E, D, PR, C, n_pos, R, IT, lo, hi, lr, fp)
    return flag


def edge_levels(const int32_t[:, ::1] pairs, Py_ssize_t n, uint64_t seed, Py_ssize_t epoch):
    """Number of conflict levels (parallel batches) of the deterministic schedule at ``epoch``."""
    cdef Py_ssize_t P = pairs.shape[0]
    order = permutation(P, seed, epoch)
    cdef int32_t[::1] o = order
    cdef int32_t[::1] last = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] lvl = np.empty(max(P, 1), np.int32)
    cdef int64_t[::1] bptr = np.empty(P + 2, np.int64)
    cdef int32_t[::1] items = np.empty(max(P, 1), np.int32)
    if P == 0:
        return 0
    return _edge_levels(&pairs[0, 0], &o[0], P, n, &last[0], &lvl[0], &bptr[0], &items[0])


# --------------------------------------------------------------------- vertex order
cdef inline int _vertex_step(floating* emb, Py_ssize_t D, Py_ssize_t u,
                             const int64_t* pptr, const int32_t* pnbr, const double* pcoef,
                             const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                             double lr, floating* g) noexcept nogil:
    """x_u <- x_u - lr * dL/dx_u (Eq. 4) with the current neighbours; 1 on a non-finite score."""
    cdef floating* xu = emb + u * D
    cdef floating* xv
    cdef Py_ssize_t i
    cdef int64_t j
    cdef double s
    cdef floating two_lr = <floating>(2.0 * lam_r)
    for i in range(D):
        g[i] = two_lr * xu[i]
    for j in range(pptr[u], pptr[u + 1]):
        xv = emb + <Py_ssize_t>pnbr[j] * D
        s = dot(xu, xv, D)
        if not isfinite(s):
            return 1
        axpy(<floating>(-pcoef[j] * sigmoid(-s)), xv, g, D)
    for j in range(nptr[u], nptr[u + 1]):
        xv = emb + <Py_ssize_t>nnbr[j] * D
        s = dot(xu, xv, D)
        if not isfinite(s):
            return 1
        axpy(<floating>(lam_neg * sigmoid(s)), xv, g, D)
    axpy(<floating>(-lr), g, xu, D)
    return 0


cdef Py_ssize_t _vertex_levels(const int32_t* order, Py_ssize_t n, const int64_t* pptr, const int32_t* pnbr,
                               const int64_t* nptr, const int32_t* nnbr, int32_t* lv, int64_t* bptr,
                               int32_t* items) noexcept nogil:
    """Levels of the vertex sequence: 1 + max level of the already-visited pair partners."""
    cdef Py_ssize_t k, x, L = 0
    cdef int64_t j
    cdef int32_t u, l
    for x in range(n):
        lv[x] = 0
    for k in range(n):
        u = order[k]
        l = 0
        for j in range(pptr[u], pptr[u + 1]):
            if lv[pnbr[j]] > l:
                l = lv[pnbr[j]]
        for j in range(nptr[u], nptr[u + 1]):
            if lv[nnbr[j]] > l:
                l = lv[nnbr[j]]
        lv[u] = l + 1
        if l + 1 > L:
            L = l + 1
    for x in range(L + 2):
        bptr[x] = 0
    for k in range(n):
        bptr[lv[order[k]]] += 1
    for x in range(1, L + 1):
        bptr[x] += bptr[x - 1]
    for k in range(n - 1, -1, -1):
        u = order[k]
        bptr[lv[u]] -= 1
        items[bptr[lv[u]]] = u
    bptr[L + 1] = n
    return L


def vertex_epoch(floating[:, ::1] emb, const int64_t[::1] pos_indptr, const int32_t[::1] pos_nbr,
                 const double[::1] pos_coef, const int64_t[::1] neg_indptr, const int32_t[::1] neg_nbr,
                 double lam_neg, double lam_r, floating[:, ::1] scratch, int32_t[::1] order,
                 int32_t[::1] work_lvl, int64_t[::1] work_bptr, int32_t[::1] work_items,
                 uint64_t seed, Py_ssize_t epoch, double lr, int n_threads=1, bint deterministic=True):
    """One vertex-order epoch (Eq. 4 steps) in place.  Returns 0, or 1 on a non-finite score.

    ``scratch`` has shape (n_threads, D); ``order``, ``work_lvl``, ``work_items``: n entries;
    ``work_bptr``: n + 2.
    """
    cdef Py_ssize_t n = emb.shape[0], D = emb.shape[1], k, L, lev = 0
    cdef int flag = 0
    cdef int* fp = &flag
    cdef floating* E = &emb[0, 0]
    cdef floating* S = &scratch[0, 0]
    cdef const int64_t* pp = &pos_indptr[0]
    cdef const int64_t* npt = &neg_indptr[0]
    cdef const int32_t* pn = &pos_nbr[0] if pos_nbr.shape[0] else NULL
    cdef const int32_t* nn = &neg_nbr[0] if neg_nbr.shape[0] else NULL
    cdef const double* pc = &pos_coef[0] if pos_coef.shape[0] else NULL
    cdef int32_t* O = &order[0]
    cdef int32_t* IT = &work_items[0]
    cdef int64_t* BP = &work_bptr[0]
    if n == 0:
        return 0
    if n_threads > scratch.shape[0]:
        raise ValueError("scratch must have n_threads rows")
    with nogil:
        _shuffle_identity(O, n, rng_stream(seed, <uint64_t>(2 * epoch)))
        if n_threads <= 1:
            for k in range(n):
                if _vertex_step(E, D, O[k], pp, pn, pc, npt, nn, lam_neg, lam_r, lr, S):
                    flag = 1
                    break
        elif not deterministic:
            for k in prange(n, num_threads=n_threads, schedule="static"):
                if fp[0] == 0:
                    if _vertex_step(E, D, O[k], pp, pn, pc, npt, nn, lam_neg, lam_r, lr, S + threadid() * D):
                        fp[0] = 1
        else:
            L = _vertex_levels(O, n, pp, pn, npt, nn, &work_lvl[0], BP, IT)
            with parallel(num_threads=n_threads):
                for lev in range(1, L + 1):
                    for k in prange(BP[lev], BP[lev + 1], schedule="static"):
                        if fp[0] == 0:
                            if _vertex_step(E, D, IT[k], pp, pn, pc, npt, nn, lam_neg, lam_r, lr,
                                            S + threadid() * D):
                                fp[0] = 1
    return flag


# --------------------------------------------------------------------- diagnostics
cdef void _vertex_diag(const floating* emb, Py_ssize_t D, Py_ssize_t u,
                       const int64_t* pptr, const int32_t* pnbr, const double* pcoef,
                       const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                       double* g, double* gnorm, double* lpos, double* lneg, double* norm2) noexcept nogil:
    cdef const floating* xu = emb + u * D
    cdef const floating* xv
    cdef Py_ssize_t i
    cdef int64_t j
    cdef double s, c, acc = 0, lp = 0, ln = 0, nn = 0
    for i in range(D):
        g[i] = 2.0 * lam_r * xu[i]
        nn += <double>xu[i] * xu[i]
    for j in range(pptr[u], pptr[u + 1]):
        xv = emb + <Py_ssize_t>pnbr[j] * D
        s = dot(xu, xv, D)
        lp -= pcoef[j] * log_sigmoid(s)
        c = -pcoef[j] * sigmoid(-s)
        for i in range(D):
            g[i] += c * xv[i]
    for j in range(nptr[u], nptr[u + 1]):
        xv = emb + <Py_ssize_t>nnbr[j] * D
        s = dot(xu, xv, D)
        ln -= lam_neg * log_sigmoid(-s)
        c = lam_neg * sigmoid(s)
        for i in range(D):
            g[i] += c * xv[i]
    for i in range(D):
        acc += g[i] * g[i]
    gnorm[u] = sqrt(acc)
    lpos[u] = lp
    lneg[u] = ln
    norm2[u] = nn


def diagnostics(const floating[:, ::1] emb, const int64_t[::1] pos_indptr, const int32_t[::1] pos_nbr,
                const double[::1] pos_coef, const int64_t[::1] neg_indptr, const int32_t[::1] neg_nbr,
                double lam_neg, double lam_r, double[:, ::1] scratch, double[::1] gnorm, double[::1] lpos,
                double[::1] lneg, double[::1] norm2, int n_threads=1, double[:, ::1] grad=None):
    """Per-vertex Eq. 4 gradient norm, pair-loss halves and squared norm, in double precision.

    For every vertex u: ``gnorm[u] = ||dL/dx_u||`` over all u's training pairs (the full
    gradient of Eq. 4, regulariser included), ``lpos[u] = -sum_{v in N+(u)} c_uv log sigma(s)``,
    ``lneg[u] = -lam_neg sum_{v in N-(u)} log sigma(-s)`` (each pair is seen from both ends, so
    the objective's loss terms are ``lpos.sum() / 2`` and ``lneg.sum() / 2``) and
    ``norm2[u] = ||x_u||^2``.  With ``grad`` (n, D) the gradients themselves are stored too.
    Results are per vertex, hence independent of ``n_threads``.
    """
    cdef Py_ssize_t n = emb.shape[0], D = emb.shape[1], u, i
    cdef const floating* E = &emb[0, 0]
    cdef double* S = &scratch[0, 0]
    cdef const int64_t* pp = &pos_indptr[0]
    cdef const int64_t* npt = &neg_indptr[0]
    cdef const int32_t* pn = &pos_nbr[0] if pos_nbr.shape[0] else NULL
    cdef const int32_t* nn = &neg_nbr[0] if neg_nbr.shape[0] else NULL
    cdef const double* pc = &pos_coef[0] if pos_coef.shape[0] else NULL
    cdef bint want_grad = grad is not None
    cdef double* G = &grad[0, 0] if want_grad else NULL
    cdef double* buf
    if n_threads > scratch.shape[0]:
        raise ValueError("scratch must have n_threads rows")
    with nogil:
        for u in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=64):
            buf = G + u * D if want_grad else S + threadid() * D
            _vertex_diag(E, D, u, pp, pn, pc, npt, nn, lam_neg, lam_r, buf, &gnorm[0], &lpos[0],
                         &lneg[0], &norm2[0])
