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
fit's ``seed``: ``rng_stream(seed, 2 t)`` orders the visits, ``rng_stream(seed, 2 t + 1)``
resamples negatives; nothing else is random, so epoch ``t`` is a function of
``(seed, t, X)``.

Edge order (``edge_epoch``): visit every pair once, in a fresh random order
(below); for pair p = (u, v), with s = x_u . x_v from the current values::

    g   = -coef[p] sigma(-s)      (positive)       g = coef[p] sigma(s)   (negative)
    x_u <- (1 - lr rfac[u]) x_u - lr g x_v
    x_v <- (1 - lr rfac[v]) x_v - lr g x_u          (both from the OLD x_u, x_v)

where ``rfac[x] = 2 lam_r / cnt(x)`` and cnt(x) is the number of training
pairs containing x: the regulariser's gradient 2 lam_r x is split over the
visits of x, so that one epoch applies lam_r ||x||^2 once.

Two visiting orders, one per schedule (``edge_order`` returns either):

* hogwild: a uniformly random permutation of the pairs (a parallel
  random-bucket shuffle, then Fisher-Yates per bucket; independent of the
  thread count).  One thread runs it in order; n threads take its buckets a
  few at a time as they finish and update shared rows without locks (Recht
  et al. 2011): not reproducible for n > 1.
* deterministic: a stratified order (the DSGD scheme of Gemulla et al., KDD
  2011, for a symmetric pair set).  Each epoch deals the vertices at random
  into K groups of equal size (``edge_group_count``: a group's rows fill
  about 128 KiB); pair (u, v) belongs to block {group(u), group(v)}; the
  K (K + 1) / 2 blocks form K rounds (K - 1 rounds of K / 2 vertex-disjoint
  blocks by the circle method, one round of the K blocks {a, a}), visited in
  random order, each block's pairs in a uniformly random order.  The blocks
  of a round touch disjoint rows, so threads share a round's blocks and
  meet at a barrier after it, and the result is BIT-IDENTICAL for any
  number of threads.  A block's rows also fit in a core's L2 cache.  With
  K = 1 (small graphs) the order is a uniformly random permutation.

Either way the pair loop is software-pipelined: the next pair's score is
computed before this pair's update (and again after it when the two pairs
share a vertex), which overlaps two dependency chains and changes no bit.

Vertex order (``vertex_epoch``): for each vertex u in random order take the
full gradient of Eq. 4 over u's incident pairs with the current neighbours,
and step ``x_u <- x_u - lr dL/dx_u``.  ``hogwild`` splits the shuffled
vertices into chunks; ``deterministic`` gives each vertex a level
``1 + max(level of the earlier vertices it shares a pair with)`` and runs the
levels in order with a barrier between them (the vertices of a level are
independent), which reproduces the sequential loop bit for bit.

After the epoch ``diagnostics`` computes, per vertex (in parallel, results
per vertex, summed by the caller, so also thread-count independent), the
Eq. 4 gradient norm, the losses of the pairs whose smaller end is u, and
||x_u||^2.
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

from lgekit._common cimport (floating, dot, axpy, sigmoid, sigmoidf, sigmoid_fused, log_sigmoid, log_sigmoidf,
                             rng_stream, rng_below, rng_below2, lgk_ftz_begin, lgk_ftz_end)


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
    _SHUF_BUCKET = 2048     # mean bucket size (phase 3 shuffles a bucket in cache)


cdef inline Py_ssize_t _n_chunks(Py_ssize_t P) noexcept nogil:
    return (P + _SHUF_CHUNK - 1) // _SHUF_CHUNK


cdef inline Py_ssize_t _n_buckets(Py_ssize_t P) noexcept nogil:
    return (P + _SHUF_BUCKET - 1) // _SHUF_BUCKET


def shuffle_workspace_size(Py_ssize_t P):
    """Length of the int64 ``offsets`` work array that ``edge_epoch`` needs for P pairs."""
    return max(_n_chunks(P) * _n_buckets(P), 1)


ctypedef fused shuffled_item:
    PairRec
    int32_t


cdef void _fisher_yates(shuffled_item* a, Py_ssize_t n, uint64_t state) noexcept nogil:
    """Shuffle a[0:n] in place, uniformly, with the stream ``state``: Fisher-Yates run forwards
    (step i swaps a[i] with a uniform a[j], j <= i), so that a[i] is read in address order, which
    the hardware prefetcher follows, and the random a[j] fall in the part already read, which is in
    cache.  (Durstenfeld's backward loop draws j from the part not yet read: a cache miss a step
    when ``a`` was just written elsewhere, as the buckets of ``_shuffle_records`` are.)"""
    cdef Py_ssize_t i = 1
    cdef uint64_t j0, j1
    cdef shuffled_item tmp
    while i + 1 < n:                # two steps a draw (rng_below2)
        rng_below2(&state, <uint64_t>(i + 1), <uint64_t>(i + 2), &j0, &j1)
        tmp = a[i]
        a[i] = a[j0]
        a[j0] = tmp
        tmp = a[i + 1]
        a[i + 1] = a[j1]
        a[j1] = tmp
        i += 2
    if i < n:
        j0 = rng_below(&state, <uint64_t>(i + 1))
        tmp = a[i]
        a[i] = a[j0]
        a[j0] = tmp


cdef void _shuffle_records(const PairRec* src, PairRec* dst, Py_ssize_t P, int64_t* off,
                           uint64_t seed, int n_threads, bint scatter_only=False) noexcept nogil:
    """dst <- src in a uniformly random order, in parallel, independent of n_threads.

    Random-bucket shuffle (Sanders, "Random permutations on distributed, external and
    hierarchical memory", IPL 1998): every record draws a bucket uniformly from K (chunk c of the
    input uses the stream rng_stream(rng_stream(seed, 0), c)); records are scattered bucket by
    bucket, keeping input order within a bucket; each bucket is then Fisher-Yates shuffled with
    the stream rng_stream(rng_stream(seed, 1), b).  Given the bucket sizes every arrangement is
    equally likely, so the result is a uniform permutation.  ``off``: C * K int64.
    ``scatter_only``: stop before the buckets' Fisher-Yates (``_uniform_run`` shuffles each bucket
    right before running it, while it is in cache).
    """
    cdef Py_ssize_t C = _n_chunks(P), K = _n_buckets(P), c, b, i, lo, hi
    cdef uint64_t s_bucket = rng_stream(seed, 0), s_shuffle = rng_stream(seed, 1), st
    cdef int64_t total = 0, t
    cdef int64_t* row
    cdef uint64_t b0, b1
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
        i = c * _SHUF_CHUNK
        b0 = b1 = 0                 # assigned in the loop body: private to the thread (prange)
        while i + 1 < hi:           # records i, i + 1 from one draw (rng_below2), here and below
            rng_below2(&st, <uint64_t>K, <uint64_t>K, &b0, &b1)
            row[b0] += 1
            row[b1] += 1
            i = i + 2               # (not +=, which prange would take for a reduction)
        if i < hi:
            row[rng_below(&st, <uint64_t>K)] += 1
    for b in range(K):
        for c in range(C):
            t = off[c * K + b]
            off[c * K + b] = total
            total += t
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = off + c * K
        # the same stream again: redrawing a bucket costs less than storing it and reading it back
        st = rng_stream(s_bucket, <uint64_t>c)
        hi = (c + 1) * _SHUF_CHUNK
        if hi > P:
            hi = P
        i = c * _SHUF_CHUNK
        b0 = b1 = 0
        while i + 1 < hi:
            rng_below2(&st, <uint64_t>K, <uint64_t>K, &b0, &b1)
            dst[row[b0]] = src[i]
            row[b0] += 1
            dst[row[b1]] = src[i + 1]
            row[b1] += 1
            i = i + 2
        if i < hi:
            b = <Py_ssize_t>rng_below(&st, <uint64_t>K)
            dst[row[b]] = src[i]
            row[b] += 1
    if not scatter_only:
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
    cdef int64_t[::1] off = np.empty(shuffle_workspace_size(n), np.int64)
    cdef PairRec[::1] s = src
    cdef PairRec[::1] d = dst
    if n > 0:
        with nogil:
            _shuffle_records(&s[0], &d[0], n, &off[0], rng_stream(seed, <uint64_t>(2 * epoch)),
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
cdef inline floating _step_size(floating s, floating lc) noexcept nogil:
    """k = -lr dl/ds = lr c sigma(-s) (positive pair, lc = lr c > 0) or lr c sigma(s) (negative, lc < 0).
    float32 embeddings take the sigmoid in single precision (an inlined exp, see _common.pxd)."""
    return lc * sigmoid_fused(-s if lc > 0 else s)


cdef extern from *:
    """
    #if defined(__AVX2__) && defined(__FMA__)
    #include <immintrin.h>
    /* _pair_update for floats, written out so that the D % 8 tail takes one 4-wide step instead of
       gcc's run-time alias checks and scalar loop.  Same arithmetic, element by element, as gcc's
       contraction of the loop below: x_u = fma(au, a, k b), x_v = fma(av, b, k a) from the old
       a = x_u, b = x_v. */
    #define LGK_AVX2_UPDATE 1
    static inline void lgk_pair_updatef_avx2(float* xu, float* xv, float au, float av, float k, Py_ssize_t n) {
        __m256 vau = _mm256_set1_ps(au), vav = _mm256_set1_ps(av), vk = _mm256_set1_ps(k), a, b;
        __m128 a4, b4;
        __m256 c, d, e, f, g, h;
        Py_ssize_t i = 0;
        /* four vectors of each row a step: fewer loop instructions (2-4% faster epochs at D=100) */
        for (; i + 32 <= n; i += 32) {
            a = _mm256_loadu_ps(xu + i);
            b = _mm256_loadu_ps(xv + i);
            c = _mm256_loadu_ps(xu + i + 8);
            d = _mm256_loadu_ps(xv + i + 8);
            e = _mm256_loadu_ps(xu + i + 16);
            f = _mm256_loadu_ps(xv + i + 16);
            g = _mm256_loadu_ps(xu + i + 24);
            h = _mm256_loadu_ps(xv + i + 24);
            _mm256_storeu_ps(xu + i, _mm256_fmadd_ps(vau, a, _mm256_mul_ps(vk, b)));
            _mm256_storeu_ps(xv + i, _mm256_fmadd_ps(vav, b, _mm256_mul_ps(vk, a)));
            _mm256_storeu_ps(xu + i + 8, _mm256_fmadd_ps(vau, c, _mm256_mul_ps(vk, d)));
            _mm256_storeu_ps(xv + i + 8, _mm256_fmadd_ps(vav, d, _mm256_mul_ps(vk, c)));
            _mm256_storeu_ps(xu + i + 16, _mm256_fmadd_ps(vau, e, _mm256_mul_ps(vk, f)));
            _mm256_storeu_ps(xv + i + 16, _mm256_fmadd_ps(vav, f, _mm256_mul_ps(vk, e)));
            _mm256_storeu_ps(xu + i + 24, _mm256_fmadd_ps(vau, g, _mm256_mul_ps(vk, h)));
            _mm256_storeu_ps(xv + i + 24, _mm256_fmadd_ps(vav, h, _mm256_mul_ps(vk, g)));
        }
        for (; i + 8 <= n; i += 8) {
            a = _mm256_loadu_ps(xu + i);
            b = _mm256_loadu_ps(xv + i);
            _mm256_storeu_ps(xu + i, _mm256_fmadd_ps(vau, a, _mm256_mul_ps(vk, b)));
            _mm256_storeu_ps(xv + i, _mm256_fmadd_ps(vav, b, _mm256_mul_ps(vk, a)));
        }
        if (i + 4 <= n) {
            a4 = _mm_loadu_ps(xu + i);
            b4 = _mm_loadu_ps(xv + i);
            _mm_storeu_ps(xu + i, _mm_fmadd_ps(_mm256_castps256_ps128(vau), a4, _mm_mul_ps(_mm256_castps256_ps128(vk), b4)));
            _mm_storeu_ps(xv + i, _mm_fmadd_ps(_mm256_castps256_ps128(vav), b4, _mm_mul_ps(_mm256_castps256_ps128(vk), a4)));
            i += 4;
        }
        for (; i < n; i++) {
            float a1 = xu[i], b1 = xv[i];
            xu[i] = fmaf(au, a1, k * b1);
            xv[i] = fmaf(av, b1, k * a1);
        }
    }
    #else
    #define LGK_AVX2_UPDATE 0
    #define lgk_pair_updatef_avx2(xu, xv, au, av, k, n) ((void)0)   /* never called */
    #endif
    """
    bint LGK_AVX2_UPDATE
    void lgk_pair_updatef_avx2(float* xu, float* xv, float au, float av, float k, Py_ssize_t n) noexcept nogil


cdef inline void _pair_update(floating* xu, floating* xv, floating au, floating av, floating k,
                              Py_ssize_t D) noexcept nogil:
    """x_u <- au x_u + k x_v and x_v <- av x_v + k x_u, both from the old values."""
    cdef Py_ssize_t i
    cdef floating a, b
    if floating is float:
        if LGK_AVX2_UPDATE:
            lgk_pair_updatef_avx2(xu, xv, au, av, k, D)
            return
    for i in range(D):
        a = xu[i]
        b = xv[i]
        xu[i] = au * a + k * b
        xv[i] = av * b + k * a


cdef enum:
    _PF_NEAR = 4     # prefetch the two embedding rows this many pairs ahead


cdef inline void _prefetch_row_read(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCH(<const char*>row + off)
        off += 64


cdef inline void _prefetch_pair(const floating* E, Py_ssize_t D, const PairRec* r) noexcept nogil:
    """Start loading the two embedding rows of a pair that is _PF_NEAR updates ahead (one loop for
    both rows, which halves the loop's own instructions)."""
    cdef const char* xu = <const char*>(E + <Py_ssize_t>r.u * D)
    cdef const char* xv = <const char*>(E + <Py_ssize_t>r.v * D)
    cdef Py_ssize_t off = 0, nbytes = D * sizeof(floating)
    while off < nbytes:
        LGK_PREFETCHW(xu + off)
        LGK_PREFETCHW(xv + off)
        off += 64


cdef inline bint _shares_row(const PairRec* a, const PairRec* b) noexcept nogil:
    return a.u == b.u or a.u == b.v or a.v == b.u or a.v == b.v


cdef inline floating _pair_dot(const floating* E, Py_ssize_t D, const PairRec* r) noexcept nogil:
    return dot(E + <Py_ssize_t>r.u * D, E + <Py_ssize_t>r.v * D, D)


cdef void _edge_run(floating* E, Py_ssize_t D, const PairRec* seq, Py_ssize_t lo, Py_ssize_t hi,
                    const double* R, double lr, int* flag) noexcept nogil:
    """Pair updates for seq[lo:hi] in order (for pair r = (u, v), with s = x_u . x_v::

        k = lr c sigma(-s) (positive) or -lr c sigma(s) (negative)
        x_u <- (1 - lr R[u]) x_u + k x_v,   x_v <- (1 - lr R[v]) x_v + k x_u

    from the old x_u, x_v); stops, setting ``flag``, before a pair whose s is not finite.

    Software-pipelined: the score of the next pair is computed before this pair's update, so that
    the processor works on that dot product while this pair's sigmoid is still being computed
    (otherwise dot -> sigmoid -> update is one chain per pair and the core idles through most of
    it).  When the next pair shares a row with this one, its score is computed again after the
    update (0.05% of pairs on BlogCatalog): the result is exactly the sequential loop's.  The
    records are read in order; the rows they point to are prefetched _PF_NEAR pairs ahead."""
    cdef Py_ssize_t k, j
    cdef const PairRec* r
    cdef floating s, s_next = 0, step
    cdef bint has_next
    if lo >= hi:
        return
    s = _pair_dot(E, D, seq + lo)
    for k in range(lo, hi):
        if flag[0]:
            return
        j = k + _PF_NEAR
        if j < hi:
            _prefetch_pair(E, D, seq + j)
            LGK_PREFETCH(R + seq[j].u)
            LGK_PREFETCH(R + seq[j].v)
        r = seq + k
        if not isfinite(s):
            flag[0] = 1
            return
        step = _step_size(s, <floating>(lr * r.c))
        has_next = k + 1 < hi
        if has_next:
            s_next = _pair_dot(E, D, r + 1)
        _pair_update(E + <Py_ssize_t>r.u * D, E + <Py_ssize_t>r.v * D,
                     <floating>(1.0 - lr * R[r.u]), <floating>(1.0 - lr * R[r.v]), step, D)
        if has_next and _shares_row(r, r + 1):
            s_next = _pair_dot(E, D, r + 1)
        s = s_next


cdef inline void _shuffle_and_run(floating* E, Py_ssize_t D, PairRec* seq, Py_ssize_t lo, Py_ssize_t hi,
                                  uint64_t stream, const double* R, double lr, int* flag) noexcept nogil:
    """Fisher-Yates shuffle seq[lo:hi] with ``stream`` while it is in cache, then run its pairs
    (with subnormals flushed to zero: see ``lgk_ftz_begin``)."""
    cdef unsigned int fp_mode
    _fisher_yates(seq + lo, hi - lo, stream)
    fp_mode = lgk_ftz_begin()
    _edge_run(E, D, seq, lo, hi, R, lr, flag)
    lgk_ftz_end(fp_mode)


cdef void _uniform_run(floating* E, Py_ssize_t D, PairRec* seq, const int64_t* ends, Py_ssize_t b0,
                       Py_ssize_t b1, uint64_t shuffle_seed, const double* R, double lr, int* flag) noexcept nogil:
    """Buckets b0..b1-1 of the uniform shuffle (bucket b: seq[ends[b - 1]:ends[b]]), each shuffled
    with its stream rng_stream(shuffle_seed, b) (as ``_shuffle_records`` would) and run at once."""
    cdef Py_ssize_t b
    for b in range(b0, b1):
        _shuffle_and_run(E, D, seq, 0 if b == 0 else ends[b - 1], ends[b], rng_stream(shuffle_seed, <uint64_t>b),
                         R, lr, flag)
        if flag[0]:
            return


cdef enum:
    _GROUP_BYTES = 131072       # rows of one vertex group, at 4 bytes a coordinate (a block: two groups)
    _MIN_BLOCK_PAIRS = 1024     # fewer groups when the blocks would hold fewer pairs than this
    _MAX_GROUPS = 256


cdef Py_ssize_t _group_count(Py_ssize_t n, Py_ssize_t P, Py_ssize_t D) noexcept nogil:
    cdef Py_ssize_t rows = max(1, _GROUP_BYTES // (4 * D))
    cdef Py_ssize_t K = (n + rows - 1) // rows
    cdef Py_ssize_t cap = <Py_ssize_t>sqrt(2.0 * P / _MIN_BLOCK_PAIRS)
    if K > cap:
        K = cap
    if K > _MAX_GROUPS:
        K = _MAX_GROUPS
    if K < 2:
        return 1
    return K - (K & 1)


def sigmoid_float32(const float[::1] z, float[::1] out):
    """out <- the kernel's single-precision sigmoid of z (for tests of its accuracy)."""
    cdef Py_ssize_t i
    for i in range(z.shape[0]):
        out[i] = sigmoidf(z[i])


def log_sigmoid_float32(const float[::1] z, float[::1] out):
    """out <- the kernel's single-precision log(sigmoid(z)) (for tests of its accuracy)."""
    cdef Py_ssize_t i
    for i in range(z.shape[0]):
        out[i] = log_sigmoidf(z[i])


def edge_group_count(Py_ssize_t n, Py_ssize_t P, Py_ssize_t D):
    """K, the number of vertex groups of the edge-order schedule for n vertices, P pairs and dimension D.

    A group holds about 128 KiB of rows at 4 bytes a coordinate (so a block, two groups, stays in a
    core's L2 cache), blocks hold at least ~1,024 pairs on average, K <= 256, and K is even or 1.
    It depends on the data's shape only: float32 and float64 fits visit the pairs in the same order.
    """
    return _group_count(n, P, D)


cdef Py_ssize_t _block_table(Py_ssize_t K, const int32_t* round_order, int32_t* blk,
                             int64_t* round_ptr) noexcept nogil:
    """Number the blocks in visiting order: ``blk[a K + b] = blk[b K + a]`` is the index of block {a, b};
    ``round_ptr[i]`` is the first block of the i-th round visited.  Returns B = K (K + 1) / 2.

    Rounds 0..K-2 pair the groups off by the circle method (round r: {K-1, r} and
    {r + j, r - j} mod K-1 for j = 1..K/2-1), so each round's blocks are vertex-disjoint and every
    {a, b} with a != b occurs once; round K-1 holds the K blocks {a, a}."""
    cdef Py_ssize_t i, j, r, a, b, B = 0, M = K - 1
    for i in range(K):
        r = round_order[i]
        round_ptr[i] = B
        if r == M:
            for a in range(K):
                blk[a * K + a] = <int32_t>B
                B += 1
        else:
            blk[M * K + r] = <int32_t>B
            blk[r * K + M] = <int32_t>B
            B += 1
            for j in range(1, K // 2):
                a = (r + j) % M
                b = (r - j + M) % M
                blk[a * K + b] = <int32_t>B
                blk[b * K + a] = <int32_t>B
                B += 1
    round_ptr[K] = B
    return B


cdef int _edge_blocks(const PairRec* src, PairRec* dst, Py_ssize_t P, Py_ssize_t n, Py_ssize_t K,
                      uint64_t seed, int32_t* bid, int64_t* bptr, int64_t* round_ptr, int n_threads) noexcept nogil:
    """Arrange the epoch's blocks: dst <- src grouped by block, blocks in visiting order, each block
    in input order (a stable counting sort, so the result does not depend on n_threads).

    ``seed`` is the epoch's stream: rng_stream(seed, 0) assigns the vertices to K groups of equal
    size (a uniformly random permutation, position i -> group i mod K) and rng_stream(seed, 2)
    orders the rounds.  Block b ends up in dst[bptr[b]:bptr[b + 1]]; round i's blocks are
    round_ptr[i]..round_ptr[i + 1] - 1.  ``bid``: P int32; ``bptr``: K (K + 1) / 2 + 1 and
    ``round_ptr``: K + 1 int64.  Returns 1 when out of memory, else 0."""
    cdef Py_ssize_t B = K * (K + 1) // 2, T = n_threads, i, t, b, lo, hi
    cdef int32_t* perm = <int32_t*>malloc((2 * n + K + K * K) * sizeof(int32_t))
    cdef int64_t* cnt = <int64_t*>malloc(T * B * sizeof(int64_t))
    cdef int32_t* group
    cdef int32_t* rounds
    cdef int32_t* blk
    cdef int64_t* row
    cdef int64_t total = 0, c
    if perm == NULL or cnt == NULL:
        free(perm)
        free(cnt)
        return 1
    group = perm + n
    rounds = group + n
    blk = rounds + K
    for i in range(n):
        perm[i] = <int32_t>i
    _fisher_yates(perm, n, rng_stream(seed, 0))
    for i in range(n):
        group[perm[i]] = <int32_t>(i % K)
    for i in range(K):
        rounds[i] = <int32_t>i
    _fisher_yates(rounds, K, rng_stream(seed, 2))
    _block_table(K, rounds, blk, round_ptr)
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        row = cnt + t * B
        for b in range(B):
            row[b] = 0
        lo = (P * t) // T
        hi = (P * (t + 1)) // T
        for i in range(lo, hi):
            b = blk[group[src[i].u] * K + group[src[i].v]]
            bid[i] = <int32_t>b
            row[b] += 1
    for b in range(B):
        bptr[b] = total
        for t in range(T):
            c = cnt[t * B + b]
            cnt[t * B + b] = total
            total += c
    bptr[B] = total
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        row = cnt + t * B
        lo = (P * t) // T
        hi = (P * (t + 1)) // T
        for i in range(lo, hi):
            dst[row[bid[i]]] = src[i]
            row[bid[i]] += 1
    free(perm)
    free(cnt)
    return 0


def edge_epoch(floating[:, ::1] emb, const PairRec[::1] records, PairRec[::1] work, const double[::1] rfac,
               int32_t[::1] work_bid, uint64_t seed, Py_ssize_t epoch, double lr, int n_threads=1,
               bint deterministic=True, Py_ssize_t n_groups=0):
    """One edge-order epoch in place.  Returns 0, 1 if a non-finite score stopped it, 2 if out of memory.

    ``records``: the P training pairs (see ``fill_records``); ``work``: P records (receives the
    epoch's sequence); ``work_bid``: P int32 (the stratified order's block ids).  ``n_groups``: K, 0 for
    ``edge_group_count``.

    ``deterministic``: the stratified sequence, K rounds of vertex-disjoint blocks; the threads
    share each round's blocks and meet at a barrier after it (disjoint blocks commute exactly, so
    the result is bit-identical for any n_threads).  Otherwise (hogwild): a uniformly random
    permutation; the threads take its shuffle buckets (about 2,048 pairs each) four at a time, as they
    finish, and update without locks.  ``edge_order`` gives
    either sequence.
    """
    cdef Py_ssize_t P = records.shape[0], D = emb.shape[1], n = emb.shape[0]
    cdef Py_ssize_t K = n_groups if n_groups > 0 else _group_count(n, P, D)
    cdef Py_ssize_t B = K * (K + 1) // 2, b, i = 0
    cdef int flag = 0
    cdef int* fp = &flag
    cdef floating* E = &emb[0, 0]
    cdef const double* R = &rfac[0]
    cdef PairRec* W = &work[0]
    cdef uint64_t s = rng_stream(seed, <uint64_t>(2 * epoch)), s_shuffle
    cdef Py_ssize_t Kb
    cdef int64_t* BP
    cdef int64_t* RP
    cdef const int64_t* ends
    if P == 0:
        return 0
    if n_threads < 1:
        n_threads = 1
    if work.shape[0] < P or work_bid.shape[0] < P or rfac.shape[0] < n:
        raise ValueError("edge_epoch: work arrays too small")
    s_shuffle = rng_stream(s, 1)
    if not deterministic:
        BP = <int64_t*>malloc(shuffle_workspace_size(P) * sizeof(int64_t))
        if BP == NULL:
            return 2
        Kb = _n_buckets(P)
        ends = BP + (_n_chunks(P) - 1) * Kb     # after the scatter: bucket b ends at ends[b]
        with nogil:
            _shuffle_records(&records[0], W, P, BP, s, n_threads, True)
            if n_threads == 1:
                _uniform_run(E, D, W, ends, 0, Kb, s_shuffle, R, lr, fp)
            else:
                # buckets handed out a few at a time, not in fixed halves: on a shared machine one
                # core is often slowed for a while, and the other then takes more of the work
                for b in prange(Kb, num_threads=n_threads, schedule="dynamic", chunksize=4):
                    if fp[0] == 0:
                        _shuffle_and_run(E, D, W, 0 if b == 0 else ends[b - 1], ends[b],
                                         rng_stream(s_shuffle, <uint64_t>b), R, lr, fp)
        free(BP)
        return flag
    BP = <int64_t*>malloc((B + K + 2) * sizeof(int64_t))
    if BP == NULL:
        return 2
    RP = BP + B + 1
    with nogil:
        if _edge_blocks(&records[0], W, P, n, K, s, &work_bid[0], BP, RP, n_threads):
            flag = 2
        elif n_threads == 1:
            for b in range(B):
                _shuffle_and_run(E, D, W, BP[b], BP[b + 1], rng_stream(s_shuffle, <uint64_t>b), R, lr, fp)
                if flag:
                    break
        else:
            with parallel(num_threads=n_threads):
                for i in range(K):
                    for b in prange(RP[i], RP[i + 1], schedule="dynamic", chunksize=1):
                        if fp[0] == 0:
                            _shuffle_and_run(E, D, W, BP[b], BP[b + 1], rng_stream(s_shuffle, <uint64_t>b), R, lr, fp)
    free(BP)
    return flag


def edge_order(const int32_t[:, ::1] pairs, Py_ssize_t n, Py_ssize_t D, uint64_t seed, Py_ssize_t epoch,
               bint deterministic=True, Py_ssize_t n_groups=0):
    """The visiting sequence of ``edge_epoch`` (for tests and references).

    Returns ``(order, block_ptr, round_ptr)``: position k visits pair ``order[k]``; block b is
    ``order[block_ptr[b]:block_ptr[b + 1]]`` and round i holds blocks
    ``round_ptr[i]..round_ptr[i + 1] - 1``.  With ``deterministic=False`` (the hogwild
    schedule's uniform permutation) there is one block and one round.
    """
    cdef Py_ssize_t P = pairs.shape[0], K = n_groups if n_groups > 0 else _group_count(n, P, D)
    cdef Py_ssize_t B = K * (K + 1) // 2, b
    if not deterministic:
        return permutation(P, seed, epoch).astype(np.int64), np.array([0, P], np.int64), np.array([0, 1], np.int64)
    recs = np.zeros(max(P, 1), PAIR_RECORD_DTYPE)
    recs["u"][:P] = pairs[:, 0]
    recs["v"][:P] = pairs[:, 1]
    recs["c"][:P] = np.arange(P)          # the pair's index travels in the coefficient field
    out = np.empty_like(recs)
    bptr = np.zeros(B + 1, np.int64)
    rptr = np.zeros(K + 1, np.int64)
    cdef PairRec[::1] rv = recs
    cdef PairRec[::1] ov = out
    cdef int32_t[::1] bid = np.empty(max(P, 1), np.int32)
    cdef int64_t[::1] bp = bptr
    cdef int64_t[::1] rp = rptr
    cdef uint64_t s = rng_stream(seed, <uint64_t>(2 * epoch))
    if P == 0:
        return np.empty(0, np.int64), bptr, rptr
    if _edge_blocks(&rv[0], &ov[0], P, n, K, s, &bid[0], &bp[0], &rp[0], 1):
        raise MemoryError()
    for b in range(B):
        _fisher_yates(&ov[0] + bp[b], bp[b + 1] - bp[b], rng_stream(rng_stream(s, 1), <uint64_t>b))
    return out["c"][:P].astype(np.int64), bptr, rptr


# --------------------------------------------------------------------- vertex order
cdef inline int _vertex_step(floating* emb, Py_ssize_t D, Py_ssize_t u,
                             const int64_t* pptr, const int32_t* pnbr, const double* pcoef,
                             const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                             double lr, floating* g) noexcept nogil:
    """x_u <- x_u - lr * dL/dx_u (Eq. 4) with the current neighbours; 1 on a non-finite score.
    Subnormals are flushed to zero meanwhile (see ``lgk_ftz_begin``)."""
    cdef floating* xu = emb + u * D
    cdef floating* xv
    cdef Py_ssize_t i
    cdef int64_t j
    cdef double s
    cdef floating two_lr = <floating>(2.0 * lam_r)
    cdef int status = 1
    cdef unsigned int fp_mode = lgk_ftz_begin()
    for i in range(D):
        g[i] = two_lr * xu[i]
    for j in range(pptr[u], pptr[u + 1]):
        xv = emb + <Py_ssize_t>pnbr[j] * D
        s = dot(xu, xv, D)
        if not isfinite(s):
            break
        axpy(<floating>(-pcoef[j] * sigmoid(-s)), xv, g, D)
    else:
        for j in range(nptr[u], nptr[u + 1]):
            xv = emb + <Py_ssize_t>nnbr[j] * D
            s = dot(xu, xv, D)
            if not isfinite(s):
                break
            axpy(<floating>(lam_neg * sigmoid(s)), xv, g, D)
        else:
            axpy(<floating>(-lr), g, xu, D)
            status = 0
    lgk_ftz_end(fp_mode)
    return status


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
cdef enum:
    _PF_DIAG = 6     # prefetch the partner row this many partners ahead


cdef void _vertex_diag(const floating* emb, Py_ssize_t D, Py_ssize_t u,
                       const int64_t* pptr, const int32_t* pnbr, const double* pcoef,
                       const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                       floating* g, double* zbuf, double* wbuf, double* gout, double* gnorm, double* lpos,
                       double* lneg, double* norm2) noexcept nogil:
    """Vertex u's Eq. 4 gradient (into g), its norm, the losses of u's pairs counted at u and ||x_u||^2.

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
                coef = pcoef[j]
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


def diagnostics(const floating[:, ::1] emb, const int64_t[::1] pos_indptr, const int32_t[::1] pos_nbr,
                const double[::1] pos_coef, const int64_t[::1] neg_indptr, const int32_t[::1] neg_nbr,
                double lam_neg, double lam_r, floating[:, ::1] scratch, double[::1] gnorm, double[::1] lpos,
                double[::1] lneg, double[::1] norm2, int n_threads=1, double[:, ::1] grad=None):
    """Per-vertex Eq. 4 gradient norm, pair losses (each pair's at its smaller end) and squared norm.

    Scores, gradients and their accumulation, and the pair losses' log sigma, are in the
    embedding's precision (``scratch``: (n_threads, D) of the same dtype); the losses' weights,
    the norms and all sums in double.

    For every vertex u: ``gnorm[u] = ||dL/dx_u||`` over all u's training pairs (the full
    gradient of Eq. 4, regulariser included), ``lpos[u] = -sum_{v in N+(u), v > u} c_uv log sigma(s)``,
    ``lneg[u] = -lam_neg sum_{v in N-(u), v > u} log sigma(-s)`` (each pair's loss is counted at
    its smaller end, so the objective's loss terms are ``lpos.sum()`` and ``lneg.sum()``) and
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
    # per thread: the scores and loss weights of one partner list (see _vertex_diag)
    cdef Py_ssize_t L = max(1, int(np.diff(pos_indptr).max(initial=0)), int(np.diff(neg_indptr).max(initial=0)))
    cdef double[:, ::1] loss_buf = np.empty((n_threads, 2 * L))
    cdef double* LB = &loss_buf[0, 0]
    with nogil:
        for u in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=64):
            gout = G + u * D if want_grad else NULL
            _vertex_diag(E, D, u, pp, pn, pc, npt, nn, lam_neg, lam_r, S + threadid() * D,
                         LB + threadid() * 2 * L, LB + threadid() * 2 * L + L, gout,
                         &gnorm[0], &lpos[0], &lneg[0], &norm2[0])
