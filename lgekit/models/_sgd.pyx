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
tasks of one level touch disjoint rows.  Edge order: thread c takes the c-th
slice of every level and runs through the levels without barriers; a pair
waits until its two rows have received exactly the updates that precede it in
the sequence (per-vertex tickets, acquire/release atomics), then publishes.
Vertex order: levels in order with a barrier between them.  Every pair of
conflicting tasks keeps its sequential order and disjoint updates commute
exactly, so the result is BIT-IDENTICAL to the sequential loop for any number
of threads.

After the epoch ``diagnostics`` computes, per vertex (in parallel, results
per vertex, summed by the caller, so also thread-count independent), the
Eq. 4 gradient norm, the halves of the pair losses, and ||x_u||^2.
"""
import numpy as np

cimport cython
from cython.parallel cimport prange, parallel, threadid
from libc.math cimport sqrt, isfinite, exp, log1p
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

cdef extern from *:
    """
    #include <sched.h>
    #define LGK_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
    #define LGK_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
    #if defined(__x86_64__) || defined(__i386__)
    #define LGK_PAUSE() __builtin_ia32_pause()
    #else
    #define LGK_PAUSE() ((void)0)
    #endif
    #define LGK_YIELD() sched_yield()
    """
    int32_t LGK_LOAD_ACQ(const int32_t* p) noexcept nogil
    void LGK_STORE_REL(int32_t* p, int32_t v) noexcept nogil
    void LGK_PAUSE() noexcept nogil
    void LGK_YIELD() noexcept nogil

from lgekit._common cimport floating, dot, axpy, scal, sigmoid, log_sigmoid, rng_next, rng_stream, rng_below


# --------------------------------------------------------------------- random order
cdef packed struct PairRec:
    # One training pair as the edge-order loop reads it (16 bytes).  ``c > 0``: a positive pair
    # with coefficient c (lam_pos * weight); ``c <= 0``: a negative pair with coefficient -c.
    int32_t u
    int32_t v
    double c


PAIR_RECORD_DTYPE = np.dtype([("u", np.int32), ("v", np.int32), ("c", np.float64)])

cdef enum:
    _SHUF_CHUNK = 65536     # records per phase-1/2 chunk (one RNG stream each)
    _SHUF_BUCKET = 8192     # mean bucket size (phase 3 shuffles a bucket in cache)


cdef inline Py_ssize_t _n_chunks(Py_ssize_t P) noexcept nogil:
    return (P + _SHUF_CHUNK - 1) // _SHUF_CHUNK


cdef inline Py_ssize_t _n_buckets(Py_ssize_t P) noexcept nogil:
    return (P + _SHUF_BUCKET - 1) // _SHUF_BUCKET


def shuffle_workspace_size(Py_ssize_t P):
    """Length of the int64 ``offsets`` work array that ``edge_epoch`` needs for P pairs."""
    return max(_n_chunks(P) * _n_buckets(P), 1)


cdef void _fisher_yates(PairRec* a, Py_ssize_t n, uint64_t state) noexcept nogil:
    cdef Py_ssize_t i = n - 1, j
    cdef PairRec tmp
    while i > 0:
        j = <Py_ssize_t>rng_below(&state, <uint64_t>(i + 1))
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp
        i -= 1


cdef void _shuffle_records(const PairRec* src, PairRec* dst, Py_ssize_t P, int32_t* bid, int64_t* off,
                           uint64_t seed, int n_threads) noexcept nogil:
    """dst <- src in a uniformly random order, in parallel, independent of n_threads.

    Random-bucket shuffle (Sanders, "Random permutations on distributed, external and
    hierarchical memory", IPL 1998): every record draws a bucket uniformly from K (chunk c of the
    input uses the stream rng_stream(rng_stream(seed, 0), c)); records are scattered bucket by
    bucket, keeping input order within a bucket; each bucket is then Fisher-Yates shuffled with
    the stream rng_stream(rng_stream(seed, 1), b).  Given the bucket sizes every arrangement is
    equally likely, so the result is a uniform permutation.  ``bid``: P int32; ``off``: C * K int64.
    """
    cdef Py_ssize_t C = _n_chunks(P), K = _n_buckets(P), c, b, i, lo, hi
    cdef uint64_t s_bucket = rng_stream(seed, 0), s_shuffle = rng_stream(seed, 1), st
    cdef int64_t total = 0, t
    cdef int64_t* row
    if P <= 0:
        return
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = off + c * K
        for b in range(K):
            row[b] = 0
        st = rng_stream(s_bucket, <uint64_t>c)
        hi = (c + 1) * _SHUF_CHUNK
        if hi > P:
            hi = P
        for i in range(c * _SHUF_CHUNK, hi):
            b = <Py_ssize_t>rng_below(&st, <uint64_t>K)
            bid[i] = <int32_t>b
            row[b] += 1
    for b in range(K):
        for c in range(C):
            t = off[c * K + b]
            off[c * K + b] = total
            total += t
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = off + c * K
        hi = (c + 1) * _SHUF_CHUNK
        if hi > P:
            hi = P
        for i in range(c * _SHUF_CHUNK, hi):
            dst[row[bid[i]]] = src[i]
            row[bid[i]] += 1
    # after the scatter, off[(C - 1) * K + b] is the end of bucket b
    for b in prange(K, num_threads=n_threads, schedule="dynamic"):
        lo = 0 if b == 0 else off[(C - 1) * K + b - 1]
        hi = off[(C - 1) * K + b]
        _fisher_yates(dst + lo, hi - lo, rng_stream(s_shuffle, <uint64_t>b))


def permutation(Py_ssize_t n, uint64_t seed, Py_ssize_t epoch, int n_threads=1):
    """The visiting order the kernels use at ``epoch`` for ``n`` tasks: position k visits task
    ``permutation(...)[k]`` (for tests and references; independent of ``n_threads``)."""
    src = np.zeros(n, dtype=PAIR_RECORD_DTYPE)
    src["u"] = np.arange(n, dtype=np.int32)
    dst = np.empty_like(src)
    cdef int32_t[::1] bid = np.empty(max(n, 1), np.int32)
    cdef int64_t[::1] off = np.empty(shuffle_workspace_size(n), np.int64)
    cdef PairRec[::1] s = src
    cdef PairRec[::1] d = dst
    if n > 0:
        with nogil:
            _shuffle_records(&s[0], &d[0], n, &bid[0], &off[0], rng_stream(seed, <uint64_t>(2 * epoch)),
                             n_threads)
    return np.ascontiguousarray(dst["u"])


def fill_records(PairRec[::1] out, const int32_t[:, ::1] pairs, const double[::1] coef, Py_ssize_t n_pos,
                 Py_ssize_t start=0):
    """out[start + i] <- (pairs[i], +coef[i] if start + i < n_pos else -coef[i])."""
    cdef Py_ssize_t i, k = pairs.shape[0]
    with nogil:
        for i in range(k):
            out[start + i].u = pairs[i, 0]
            out[start + i].v = pairs[i, 1]
            out[start + i].c = coef[i] if start + i < n_pos else -coef[i]


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
cdef inline int _edge_step(floating* emb, Py_ssize_t D, const PairRec* r, const double* rfac,
                           double lr) noexcept nogil:
    """One pair update; returns 1 (and changes nothing) when x_u . x_v is not finite."""
    cdef Py_ssize_t u = r.u, v = r.v, i
    cdef floating* xu = emb + u * D
    cdef floating* xv = emb + v * D
    cdef double s = dot(xu, xv, D)
    cdef double g, c = r.c
    cdef floating k, au, av, a, b
    if not isfinite(s):
        return 1
    if c > 0:
        g = -c * sigmoid(-s)        # positive: d/ds of -c log sigma(s)
    else:
        g = -c * sigmoid(s)         # negative: d/ds of -|c| log sigma(-s)
    k = <floating>(-lr * g)
    au = <floating>(1.0 - lr * rfac[u])
    av = <floating>(1.0 - lr * rfac[v])
    for i in range(D):
        a = xu[i]
        b = xv[i]
        xu[i] = au * a + k * b
        xv[i] = av * b + k * a
    return 0


cdef enum:
    _PF_NEAR = 6     # prefetch the two embedding rows this many pairs ahead


cdef inline void _prefetch_row(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCHW(<const char*>row + off)
        off += 64


cdef inline void _prefetch_row_read(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCH(<const char*>row + off)
        off += 64


cdef inline void _prefetch_pair(const floating* E, Py_ssize_t D, const PairRec* r) noexcept nogil:
    """Start loading the two embedding rows of a pair that is _PF_NEAR updates ahead."""
    _prefetch_row(E + <Py_ssize_t>r.u * D, D * sizeof(floating))
    _prefetch_row(E + <Py_ssize_t>r.v * D, D * sizeof(floating))


cdef void _edge_run(floating* E, Py_ssize_t D, const PairRec* seq, Py_ssize_t lo, Py_ssize_t hi,
                    const double* R, double lr, int* flag) noexcept nogil:
    """Pair updates for seq[lo:hi] in order.  The records are read sequentially; the rows they
    point to are random accesses, prefetched a few pairs ahead."""
    cdef Py_ssize_t k
    cdef const PairRec* r
    for k in range(lo, hi):
        if flag[0]:
            return
        if k + _PF_NEAR < hi:
            r = seq + k + _PF_NEAR
            _prefetch_pair(E, D, r)
            LGK_PREFETCH(R + r.u)
            LGK_PREFETCH(R + r.v)
        if _edge_step(E, D, seq + k, R, lr):
            flag[0] = 1
            return


cdef inline bint _wait_ticket(const int32_t* done, int32_t x, int32_t ticket, const int* flag) noexcept nogil:
    """Wait until vertex x has seen ``ticket`` updates (acquire); False if the run was aborted."""
    cdef int spins = 0
    while LGK_LOAD_ACQ(done + x) != ticket:
        if flag[0]:
            return False
        spins += 1
        if spins < 256:
            LGK_PAUSE()
        else:
            LGK_YIELD()     # the thread we wait for may need this CPU (busy machine)
    return True


cdef void _edge_run_dataflow(floating* E, Py_ssize_t D, const PairRec* seq, const int32_t* tkt,
                             Py_ssize_t lo, Py_ssize_t hi, const double* R, double lr, int32_t* done,
                             int* flag) noexcept nogil:
    """Like _edge_run, but pair k first waits until its two vertices have received exactly the
    updates that precede it in the sequential order (tickets tkt[2k], tkt[2k + 1]) and then
    publishes its own (release): conflicting pairs keep their sequential order, so the result is
    that of the sequential loop, with no global barrier."""
    cdef Py_ssize_t k
    cdef const PairRec* r
    for k in range(lo, hi):
        if flag[0]:
            return
        if k + _PF_NEAR < hi:
            r = seq + k + _PF_NEAR
            _prefetch_pair(E, D, r)
        r = seq + k
        if not _wait_ticket(done, r.u, tkt[2 * k], flag) or not _wait_ticket(done, r.v, tkt[2 * k + 1], flag):
            return
        if _edge_step(E, D, r, R, lr):
            flag[0] = 1
            return
        LGK_STORE_REL(done + r.u, tkt[2 * k] + 1)
        LGK_STORE_REL(done + r.v, tkt[2 * k + 1] + 1)


cdef void _tickets(const PairRec* seq, Py_ssize_t P, Py_ssize_t n, int32_t* count, int32_t* tkt) noexcept nogil:
    """tkt[2k], tkt[2k+1]: how many earlier pairs of ``seq`` touch u, v.  In level-grouped order
    a vertex's pairs keep their sequential order, so these are the sequential counts."""
    cdef Py_ssize_t k, x
    for x in range(n):
        count[x] = 0
    for k in range(P):
        tkt[2 * k] = count[seq[k].u]
        count[seq[k].u] += 1
        tkt[2 * k + 1] = count[seq[k].v]
        count[seq[k].v] += 1


cdef Py_ssize_t _edge_levels(const PairRec* seq, Py_ssize_t P, Py_ssize_t n, int32_t* last,
                             int32_t* lvl) noexcept nogil:
    """lvl[k] = 1 + max level of the earlier pairs sharing a vertex with pair k; returns L."""
    cdef Py_ssize_t k, x, L = 0
    cdef int32_t u, v, l
    for x in range(n):
        last[x] = 0
    for k in range(P):
        u = seq[k].u
        v = seq[k].v
        l = (last[u] if last[u] > last[v] else last[v]) + 1
        last[u] = l
        last[v] = l
        lvl[k] = l
        if l > L:
            L = l
    return L


cdef int _group_by_level(const PairRec* src, PairRec* dst, const int32_t* lvl, Py_ssize_t P, Py_ssize_t L,
                         int64_t* bptr, int n_threads) noexcept nogil:
    """Stable counting sort of the records by level, parallel over fixed chunks (the placement does
    not depend on n_threads).  Level l (1..L) ends up in dst[bptr[l]:bptr[l + 1]].  Returns 1 when
    out of memory."""
    cdef Py_ssize_t C = _n_chunks(P), c, l, i, hi
    cdef int64_t total = 0, t
    cdef int64_t* cnt = <int64_t*>malloc(C * (L + 1) * sizeof(int64_t))
    cdef int64_t* row
    if cnt == NULL:
        return 1
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = cnt + c * (L + 1)
        for l in range(L + 1):
            row[l] = 0
        hi = (c + 1) * _SHUF_CHUNK
        if hi > P:
            hi = P
        for i in range(c * _SHUF_CHUNK, hi):
            row[lvl[i]] += 1
    for l in range(1, L + 1):
        bptr[l] = total
        for c in range(C):
            t = cnt[c * (L + 1) + l]
            cnt[c * (L + 1) + l] = total
            total += t
    bptr[L + 1] = total
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = cnt + c * (L + 1)
        hi = (c + 1) * _SHUF_CHUNK
        if hi > P:
            hi = P
        for i in range(c * _SHUF_CHUNK, hi):
            dst[row[lvl[i]]] = src[i]
            row[lvl[i]] += 1
    free(cnt)
    return 0


def edge_epoch(floating[:, ::1] emb, const PairRec[::1] records, PairRec[::1] work, PairRec[::1] work2,
               const double[::1] rfac, int32_t[::1] work_bid, int64_t[::1] work_off, int32_t[::1] work_last,
               int32_t[::1] work_lvl, int32_t[::1] work_tkt, uint64_t seed, Py_ssize_t epoch, double lr,
               int n_threads=1, bint deterministic=True):
    """One edge-order epoch in place.  Returns 0, 1 if a non-finite score stopped it, 2 if out of memory.

    ``records``: the P training pairs (see ``fill_records``); ``work``: P records (receives the
    shuffled sequence); ``work2``: P records, ``work_lvl``: P int32 and ``work_tkt``: 2 P int32
    (deterministic schedule with n_threads > 1 only, else they may have length 1); ``work_bid``:
    P int32; ``work_off``: ``shuffle_workspace_size(P)`` int64; ``work_last``: n int32.
    """
    cdef Py_ssize_t P = records.shape[0], D = emb.shape[1], n = emb.shape[0]
    cdef Py_ssize_t c, L = 0, lev = 0, lo, hi, span
    cdef int flag = 0
    cdef int* fp = &flag
    cdef floating* E = &emb[0, 0]
    cdef const double* R = &rfac[0]
    cdef PairRec* W = &work[0]
    cdef PairRec* T = &work2[0]
    cdef int64_t* BP = NULL
    if P == 0:
        return 0
    if n_threads < 1:
        n_threads = 1
    if work.shape[0] < P or work_bid.shape[0] < P or work_off.shape[0] < shuffle_workspace_size(P):
        raise ValueError("edge_epoch: work arrays too small")
    if n_threads > 1 and deterministic and (work2.shape[0] < P or work_lvl.shape[0] < P
                                            or work_last.shape[0] < n or work_tkt.shape[0] < 2 * P):
        raise ValueError("edge_epoch: deterministic work arrays too small")
    with nogil:
        _shuffle_records(&records[0], W, P, &work_bid[0], &work_off[0], rng_stream(seed, <uint64_t>(2 * epoch)),
                         n_threads)
        if n_threads == 1:
            _edge_run(E, D, W, 0, P, R, lr, fp)
        elif not deterministic:
            # Hogwild: thread c takes the c-th contiguous slice of the shuffled sequence.
            for c in prange(n_threads, num_threads=n_threads, schedule="static", chunksize=1):
                _edge_run(E, D, W, (P * c) // n_threads, (P * (c + 1)) // n_threads, R, lr, fp)
        else:
            L = _edge_levels(W, P, n, &work_last[0], &work_lvl[0])
            BP = <int64_t*>malloc((L + 2) * sizeof(int64_t))
            if BP == NULL or _group_by_level(W, T, &work_lvl[0], P, L, BP, n_threads):
                flag = 2
            else:
                # thread c takes the c-th slice of every level and runs through the levels without
                # barriers, waiting only for the pairs it depends on (vertex tickets)
                _tickets(T, P, n, &work_last[0], &work_tkt[0])
                for c in range(n):
                    work_last[c] = 0
                for c in prange(n_threads, num_threads=n_threads, schedule="static", chunksize=1):
                    for lev in range(1, L + 1):
                        span = BP[lev + 1] - BP[lev]
                        lo = BP[lev] + (span * c) // n_threads
                        hi = BP[lev] + (span * (c + 1)) // n_threads
                        _edge_run_dataflow(E, D, T, &work_tkt[0], lo, hi, R, lr, &work_last[0], fp)
            free(BP)
    return flag


def edge_levels(const PairRec[::1] records, Py_ssize_t n, uint64_t seed, Py_ssize_t epoch):
    """Number of conflict levels (parallel batches) of the deterministic schedule at ``epoch``."""
    cdef Py_ssize_t P = records.shape[0]
    if P == 0:
        return 0
    work = np.empty(P, PAIR_RECORD_DTYPE)
    cdef PairRec[::1] w = work
    cdef int32_t[::1] bid = np.empty(P, np.int32)
    cdef int64_t[::1] off = np.empty(shuffle_workspace_size(P), np.int64)
    cdef int32_t[::1] last = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] lvl = np.empty(P, np.int32)
    _shuffle_records(&records[0], &w[0], P, &bid[0], &off[0], rng_stream(seed, <uint64_t>(2 * epoch)), 1)
    return _edge_levels(&w[0], P, n, &last[0], &lvl[0])


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
                 double lam_neg, double lam_r, floating[:, ::1] scratch, const int32_t[::1] order,
                 int32_t[::1] work_lvl, int64_t[::1] work_bptr, int32_t[::1] work_items,
                 double lr, int n_threads=1, bint deterministic=True):
    """One vertex-order epoch (Eq. 4 steps) in place, visiting the vertices in ``order``
    (``permutation(n, seed, epoch)``).  Returns 0, or 1 on a non-finite score.

    ``scratch`` has shape (n_threads, D); ``work_lvl``, ``work_items``: n entries; ``work_bptr``: n + 2.
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
    cdef const int32_t* O = &order[0]
    cdef int32_t* IT = &work_items[0]
    cdef int64_t* BP = &work_bptr[0]
    if n == 0:
        return 0
    if n_threads > scratch.shape[0]:
        raise ValueError("scratch must have n_threads rows")
    with nogil:
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
cdef inline double _logsig_sigminus(double z, double* sig_minus) noexcept nogil:
    """Returns log sigma(z) and stores sigma(-z), with one exp and one log1p, safe for any z."""
    cdef double e
    if z >= 0:
        e = exp(-z)
        sig_minus[0] = e / (1.0 + e)
        return -log1p(e)
    e = exp(z)
    sig_minus[0] = 1.0 / (1.0 + e)
    return z - log1p(e)


cdef void _vertex_diag(const floating* emb, Py_ssize_t D, Py_ssize_t u,
                       const int64_t* pptr, const int32_t* pnbr, const double* pcoef,
                       const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                       floating* g, double* gout, double* gnorm, double* lpos, double* lneg,
                       double* norm2) noexcept nogil:
    cdef const floating* xu = emb + u * D
    cdef const floating* xv
    cdef Py_ssize_t i
    cdef int64_t j
    cdef double s, sm, acc = 0, lp = 0, ln = 0, nn = 0
    cdef floating c
    cdef floating two_lam_r = <floating>(2.0 * lam_r)
    for i in range(D):
        g[i] = two_lam_r * xu[i]
        nn += <double>xu[i] * xu[i]
    for j in range(pptr[u], pptr[u + 1]):
        if j + 2 < pptr[u + 1]:
            _prefetch_row_read(emb + <Py_ssize_t>pnbr[j + 2] * D, D * sizeof(floating))
        xv = emb + <Py_ssize_t>pnbr[j] * D
        s = dot(xu, xv, D)
        lp -= pcoef[j] * _logsig_sigminus(s, &sm)      # -c log sigma(s), sm = sigma(-s)
        c = <floating>(-pcoef[j] * sm)
        for i in range(D):
            g[i] += c * xv[i]
    for j in range(nptr[u], nptr[u + 1]):
        if j + 2 < nptr[u + 1]:
            _prefetch_row_read(emb + <Py_ssize_t>nnbr[j + 2] * D, D * sizeof(floating))
        xv = emb + <Py_ssize_t>nnbr[j] * D
        s = dot(xu, xv, D)
        ln -= lam_neg * _logsig_sigminus(-s, &sm)      # -lam_neg log sigma(-s), sm = sigma(s)
        c = <floating>(lam_neg * sm)
        for i in range(D):
            g[i] += c * xv[i]
    for i in range(D):
        acc += <double>g[i] * g[i]
    if gout != NULL:
        for i in range(D):
            gout[i] = g[i]
    gnorm[u] = sqrt(acc)
    lpos[u] = lp
    lneg[u] = ln
    norm2[u] = nn


def diagnostics(const floating[:, ::1] emb, const int64_t[::1] pos_indptr, const int32_t[::1] pos_nbr,
                const double[::1] pos_coef, const int64_t[::1] neg_indptr, const int32_t[::1] neg_nbr,
                double lam_neg, double lam_r, floating[:, ::1] scratch, double[::1] gnorm, double[::1] lpos,
                double[::1] lneg, double[::1] norm2, int n_threads=1, double[:, ::1] grad=None):
    """Per-vertex Eq. 4 gradient norm, pair-loss halves and squared norm.

    Scores, gradients and their accumulation are in the embedding's precision (``scratch``:
    (n_threads, D) of the same dtype); losses, norms and their sums in double.

    For every vertex u: ``gnorm[u] = ||dL/dx_u||`` over all u's training pairs (the full
    gradient of Eq. 4, regulariser included), ``lpos[u] = -sum_{v in N+(u)} c_uv log sigma(s)``,
    ``lneg[u] = -lam_neg sum_{v in N-(u)} log sigma(-s)`` (each pair is seen from both ends, so
    the objective's loss terms are ``lpos.sum() / 2`` and ``lneg.sum() / 2``) and
    ``norm2[u] = ||x_u||^2``.  With ``grad`` (n, D) the gradients themselves are stored too.
    Results are per vertex, hence independent of ``n_threads``.
    """
    cdef Py_ssize_t n = emb.shape[0], D = emb.shape[1], u, i
    cdef const floating* E = &emb[0, 0]
    cdef floating* S = &scratch[0, 0]
    cdef const int64_t* pp = &pos_indptr[0]
    cdef const int64_t* npt = &neg_indptr[0]
    cdef const int32_t* pn = &pos_nbr[0] if pos_nbr.shape[0] else NULL
    cdef const int32_t* nn = &neg_nbr[0] if neg_nbr.shape[0] else NULL
    cdef const double* pc = &pos_coef[0] if pos_coef.shape[0] else NULL
    cdef bint want_grad = grad is not None
    cdef double* G = &grad[0, 0] if want_grad else NULL
    cdef double* gout
    if n_threads > scratch.shape[0] or scratch.shape[1] < D:
        raise ValueError("scratch must have shape (n_threads, D)")
    with nogil:
        for u in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=64):
            gout = G + u * D if want_grad else NULL
            _vertex_diag(E, D, u, pp, pn, pc, npt, nn, lam_neg, lam_r, S + threadid() * D, gout,
                         &gnorm[0], &lpos[0], &lneg[0], &norm2[0])
