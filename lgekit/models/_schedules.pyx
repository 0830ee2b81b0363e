# cython: language_level=3
"""The visiting orders of the training kernels: which update runs when, and on which thread.

Every order is a function of a seed and an epoch number through the SplitMix64 streams of
``_common.pxd`` (``rng_stream(seed, 2 t)`` for epoch t), never of the thread count, so that one
thread reproduces a run bit for bit and the deterministic schedules do so on any number of threads.

* **Uniform buckets** (``shuffle_indices``, ``permutation``): a uniformly random permutation of the
  pair indices by a parallel random-bucket shuffle; the SGD hogwild schedule and the vertex order use it.
* **Stratified blocks** (``edge_blocks``, ``group_count``, ``edge_order``): the DSGD scheme of
  Gemulla et al. (KDD 2011) for a symmetric pair set.  Each epoch deals the vertices at random into
  K groups of equal size; pair (u, v) belongs to block {group(u), group(v)}; the K (K + 1) / 2
  blocks form K rounds of vertex-disjoint blocks (the circle method), visited in random order,
  each block's pairs in a uniformly random order.  Threads share a round's blocks and meet at a
  barrier after it: the SGD's deterministic schedule.
* **Vertex levels** (``vertex_levels``): a vertex's level is one more than the highest level of
  the earlier vertices it shares a pair with; the vertices of a level are independent, so running
  the levels in order reproduces the sequential vertex loop on any number of threads.
* **Colouring** (``greedy_coloring``): a proper colouring of the pair graph, whose colour classes
  the DCD solver can run in parallel.

The data the orders run over, the 8-byte pair records and the incidence lists, are laid out by
``_incidence.pyx``.  Every order is a sequence of int32 record indices (4 bytes a pair): the records
are never copied into visiting order.
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free

from lgekit._common cimport EPOCH_OK, EPOCH_OUT_OF_MEMORY, rng_next, rng_stream, rng_below, rng_below2
from lgekit._intrinsics cimport LGK_PREFETCH, LGK_PREFETCHW
from lgekit.models._incidence import PAIR_RECORD_DTYPE

#: the schedules by name, in the order of the ``Schedule`` enum of _schedules.pxd (a name's index is its value)
SCHEDULES = ("hogwild", "deterministic", "blocks")


cdef int schedule_code(object name, str argument) except -1:
    """The ``Schedule`` named ``name`` (one of :data:`SCHEDULES`); ValueError naming ``argument`` otherwise."""
    if name not in SCHEDULES:
        raise ValueError(f"{argument}: schedule must be one of {SCHEDULES}, got {name!r}")
    return SCHEDULES.index(name)


def shuffle_workspace_size(Py_ssize_t P):
    """Length of the int64 ``offsets`` work array that ``edge_epoch`` needs for P pairs."""
    return shuffle_offsets_size(P)


cdef enum:
    _SERIAL_BELOW = 65536       # fewer entries than this: one thread (a parallel region costs more)
    _FY_AHEAD = 16              # Fisher-Yates steps between prefetching a swap's target and swapping


cdef inline int _threads_for(Py_ssize_t work, int n_threads) noexcept nogil:
    return 1 if work < _SERIAL_BELOW or n_threads < 1 else n_threads


cdef void column_scan(int64_t* cnt, Py_ssize_t R, Py_ssize_t K, int64_t* start, int n_threads) noexcept nogil:
    """Exclusive prefix sums of a counting sort's counters, in column-major order, in parallel.

    ``cnt`` holds R rows of K counters (``cnt[r K + b]``: how many items of row r, a chunk or a
    thread's slice, go to column b, a bucket or a block).  Afterwards ``cnt[r K + b]`` is where row
    r's first item of column b goes: column b starts at ``start[b]`` (columns in order, ``start[K]``
    the total) and holds row 0's items, then row 1's, and so on.  ``start``: K + 1 int64.

    Walking the counters column by column, as the definition reads, strides K entries a step (a
    cache and TLB miss each for a large K).  Instead each thread takes a slice of the columns and
    walks the rows in order, K / T contiguous counters a row: once to total its columns, then (after
    the columns' starts, a scan of K contiguous numbers) to replace each counter by its offset.  The
    sums are of integers, hence exact: the offsets are those of the serial walk."""
    cdef Py_ssize_t T = _threads_for(R * K, n_threads), t, r, b, lo, hi
    cdef int64_t total = 0, c
    cdef int64_t* row
    if T > K:
        T = K if K > 0 else 1
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        lo = (K * t) // T
        hi = (K * (t + 1)) // T
        for b in range(lo, hi):
            start[b] = 0
        for r in range(R):
            row = cnt + r * K
            for b in range(lo, hi):
                start[b] += row[b]
    for b in range(K):
        c = start[b]
        start[b] = total
        total += c
    start[K] = total
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        lo = (K * t) // T
        hi = (K * (t + 1)) // T
        for r in range(R):
            row = cnt + r * K
            for b in range(lo, hi):
                c = row[b]
                row[b] = start[b]
                start[b] += c
    # the second pass left the end of column b in start[b], which is the start of column b + 1
    for b in range(K, 0, -1):
        start[b] = start[b - 1]
    start[0] = 0


cdef void fisher_yates_parallel(int32_t* a, Py_ssize_t n, uint64_t state, int32_t* swaps,
                                int n_threads) noexcept nogil:
    """``fisher_yates(a, n, state)``, the same permutation, with its random draws taken in parallel.

    SplitMix64 is a counter: its d-th draw is a function of ``state + (d + 1) * gamma`` alone, and
    the shuffle uses draw d for its steps 2 d + 1 (high half) and 2 d + 2 (low half), whatever came
    before.  So every step's partner ``swaps[i]`` is computed first, by all threads; the swaps
    themselves depend on one another and run in order, with the partners known in advance, so the
    target entries are prefetched a few steps ahead and the loop rarely waits on memory.
    ``swaps``: n int32."""
    cdef Py_ssize_t T = _threads_for(n, n_threads), d, i, n_draws = n // 2
    cdef uint64_t st, z
    cdef int32_t tmp
    if n < 2:
        return
    for d in prange(n_draws, num_threads=T, schedule="static"):
        st = state + <uint64_t>d * <uint64_t>0x9E3779B97F4A7C15ULL
        z = rng_next(&st)
        swaps[2 * d + 1] = <int32_t>(((z >> 32) * <uint64_t>(2 * d + 2)) >> 32)
        if 2 * d + 2 < n:
            swaps[2 * d + 2] = <int32_t>(((z & <uint64_t>0xFFFFFFFFULL) * <uint64_t>(2 * d + 3)) >> 32)
    for i in range(1, n):
        if i + _FY_AHEAD < n:
            LGK_PREFETCHW(a + swaps[i + _FY_AHEAD])
        tmp = a[i]
        a[i] = a[swaps[i]]
        a[swaps[i]] = tmp


def column_offsets(const int64_t[:, ::1] counts, int n_threads=1):
    """The offsets ``column_scan`` computes for a counting sort (for tests): returns ``(offsets, start)``,
    ``offsets[r, b]`` where row r's first item of column b goes and ``start[b]`` where column b begins
    (``start[K]``: the total); independent of ``n_threads``."""
    cdef Py_ssize_t R = counts.shape[0], K = counts.shape[1]
    offsets = np.array(counts, dtype=np.int64, order="C")
    start = np.zeros(K + 1, np.int64)
    cdef int64_t[:, ::1] o = offsets
    cdef int64_t[::1] st = start
    if R > 0 and K > 0:
        with nogil:
            column_scan(&o[0, 0], R, K, &st[0], n_threads)
    return offsets, start


def shuffled_range(Py_ssize_t n, uint64_t state, int n_threads=1):
    """0..n-1 shuffled by ``fisher_yates_parallel`` with the stream ``state`` (int32; for tests: the
    permutation ``fisher_yates`` makes with that stream, for any ``n_threads``)."""
    if not 0 <= n <= 2147483647:
        raise ValueError(f"shuffled_range: n must be in [0, 2**31), got {n}")
    out = np.arange(n, dtype=np.int32)
    swaps = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] a = out
    cdef int32_t[::1] w = swaps
    if n > 1:
        with nogil:
            fisher_yates_parallel(&a[0], n, state, &w[0], n_threads)
    return out


cdef void shuffle_indices(int32_t* dst, Py_ssize_t P, int64_t* off, uint64_t seed, int n_threads,
                          bint scatter_only=False) noexcept nogil:
    """dst <- 0, 1, ..., P - 1 in a uniformly random order, in parallel, independent of n_threads.

    Random-bucket shuffle (Sanders, "Random permutations on distributed, external and
    hierarchical memory", IPL 1998): every index draws a bucket uniformly from K (chunk c of the
    input uses the stream rng_stream(rng_stream(seed, 0), c)); indices are scattered bucket by
    bucket, keeping input order within a bucket; each bucket is then Fisher-Yates shuffled with
    the stream rng_stream(rng_stream(seed, 1), b).  Given the bucket sizes every arrangement is
    equally likely, so the result is a uniform permutation.  ``off``: ``shuffle_offsets_size(P)``
    int64 (the C * K counters, chunk-major, and K + 1 for their scan).
    ``scatter_only``: stop before the buckets' Fisher-Yates (``_uniform_run`` shuffles each bucket
    right before running it, while it is in cache).
    """
    cdef Py_ssize_t C = shuffle_chunks(P), K = shuffle_buckets(P), c, b, i, lo, hi
    cdef uint64_t s_bucket = rng_stream(seed, 0), s_shuffle = rng_stream(seed, 1), st
    cdef int64_t* row
    cdef uint64_t b0, b1
    if P <= 0:
        return
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = off + c * K
        for b in range(K):
            row[b] = 0
        st = rng_stream(s_bucket, <uint64_t>c)
        hi = (c + 1) * SHUFFLE_CHUNK
        if hi > P:
            hi = P
        i = c * SHUFFLE_CHUNK
        b0 = b1 = 0                 # assigned in the loop body: private to the thread (prange)
        while i + 1 < hi:           # records i, i + 1 from one draw (rng_below2), here and below
            rng_below2(&st, <uint64_t>K, <uint64_t>K, &b0, &b1)
            row[b0] += 1
            row[b1] += 1
            i = i + 2               # (not +=, which prange would take for a reduction)
        if i < hi:
            row[rng_below(&st, <uint64_t>K)] += 1
    column_scan(off, C, K, off + C * K, n_threads)
    for c in prange(C, num_threads=n_threads, schedule="static"):
        row = off + c * K
        # the same stream again: redrawing a bucket costs less than storing it and reading it back
        st = rng_stream(s_bucket, <uint64_t>c)
        hi = (c + 1) * SHUFFLE_CHUNK
        if hi > P:
            hi = P
        i = c * SHUFFLE_CHUNK
        b0 = b1 = 0
        while i + 1 < hi:
            rng_below2(&st, <uint64_t>K, <uint64_t>K, &b0, &b1)
            dst[row[b0]] = <int32_t>i
            row[b0] += 1
            dst[row[b1]] = <int32_t>(i + 1)
            row[b1] += 1
            i = i + 2
        if i < hi:
            b = <Py_ssize_t>rng_below(&st, <uint64_t>K)
            dst[row[b]] = <int32_t>i
            row[b] += 1
    if not scatter_only:
        # after the scatter, off[(C - 1) * K + b] is the end of bucket b
        for b in prange(K, num_threads=n_threads, schedule="dynamic"):
            lo = 0 if b == 0 else off[(C - 1) * K + b - 1]
            hi = off[(C - 1) * K + b]
            fisher_yates(dst + lo, hi - lo, rng_stream(s_shuffle, <uint64_t>b))


def permutation(Py_ssize_t n, uint64_t seed, Py_ssize_t epoch, int n_threads=1):
    """The visiting order the kernels use at ``epoch`` for ``n`` tasks: position k visits task
    ``permutation(...)[k]`` (int32; for tests and references; independent of ``n_threads``)."""
    if n > 2147483647:
        raise ValueError(f"permutation: n must be below 2**31, got {n}")
    dst = np.empty(n, np.int32)
    cdef int64_t[::1] off = np.empty(shuffle_workspace_size(n), np.int64)
    cdef int32_t[::1] d = dst
    if n > 0:
        with nogil:
            shuffle_indices(&d[0], n, &off[0], rng_stream(seed, <uint64_t>(2 * epoch)), n_threads)
    return dst


def stream_seed(uint64_t seed, uint64_t k):
    """``rng_stream(seed, k)`` of ``_common.pxd``: the initial state of the k-th stream of ``seed``.

    The solvers name their random streams with it (e.g. ``stream_seed(seed, 2 t + 1)`` for the
    second stream of epoch t), so that Python and the kernels draw from the same SplitMix64 streams."""
    return rng_stream(seed, k)


cdef enum:
    _GROUP_BYTES = 131072       # rows of one vertex group, at 4 bytes a coordinate (a block: two groups)
    _MIN_BLOCK_PAIRS = 1024     # fewer groups when the blocks would hold fewer pairs than this
    _MAX_GROUPS = 256


cdef Py_ssize_t group_count(Py_ssize_t n, Py_ssize_t P, Py_ssize_t D) noexcept nogil:
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


def edge_group_count(Py_ssize_t n, Py_ssize_t P, Py_ssize_t D):
    """K, the number of vertex groups of the edge-order schedule for n vertices, P pairs and dimension D.

    A group holds about 128 KiB of rows at 4 bytes a coordinate (so a block, two groups, stays in a
    core's L2 cache), blocks hold at least ~1,024 pairs on average, K <= 256, and K is even or 1.
    It depends on the data's shape only: float32 and float64 fits visit the pairs in the same order.
    """
    return group_count(n, P, D)


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


cdef inline Py_ssize_t _record_block(const PairRec* r, const int32_t* group, const int32_t* blk,
                                     Py_ssize_t K) noexcept nogil:
    return blk[group[r.u] * K + group[r.v]]


cdef EpochStatus edge_blocks(const PairRec* records, int32_t* dst, Py_ssize_t P, Py_ssize_t n, Py_ssize_t K,
                             uint64_t seed, int64_t* bptr, int64_t* round_ptr, int n_threads) noexcept nogil:
    """Arrange the epoch's blocks: dst <- the indices 0..P-1 of the records grouped by block, blocks in
    visiting order, each block in index order (a stable counting sort, so the result does not depend
    on n_threads).

    ``seed`` is the epoch's stream: rng_stream(seed, 0) assigns the vertices to K groups of equal
    size (a uniformly random permutation, position i -> group i mod K) and rng_stream(seed, 2)
    orders the rounds.  Block b ends up in dst[bptr[b]:bptr[b + 1]]; round i's blocks are
    round_ptr[i]..round_ptr[i + 1] - 1.  ``dst``: P int32; ``bptr``: K (K + 1) / 2 + 1 and
    ``round_ptr``: K + 1 int64.  A record's block is looked up twice (count, then place) rather
    than kept: the lookup reads two int32 of the group table, which stays in cache, and keeping it
    would cost 4 bytes a pair.  Every step runs on the threads (the vertex shuffle's draws, the group
    table, the counts and their scan); only the shuffle's swaps, a chain of n dependent exchanges in
    a table that fits in cache, and the K-sized round table stay serial.  Returns ``EPOCH_OUT_OF_MEMORY``
    when its work space cannot be allocated, else ``EPOCH_OK``; frees that space at its one exit."""
    cdef int32_t* perm = <int32_t*>malloc((3 * n + K + K * K) * sizeof(int32_t))
    cdef int64_t* cnt = <int64_t*>malloc(n_threads * (K * (K + 1) // 2) * sizeof(int64_t))
    cdef EpochStatus status = EPOCH_OUT_OF_MEMORY
    if perm != NULL and cnt != NULL:
        _deal_blocks(records, dst, P, n, K, seed, bptr, round_ptr, n_threads, perm, cnt)
        status = EPOCH_OK
    free(perm)
    free(cnt)
    return status


cdef void _deal_blocks(const PairRec* records, int32_t* dst, Py_ssize_t P, Py_ssize_t n, Py_ssize_t K, uint64_t seed,
                       int64_t* bptr, int64_t* round_ptr, int n_threads, int32_t* perm, int64_t* cnt) noexcept nogil:
    """``edge_blocks``' work, in its work space: ``perm`` (3 n + K + K**2 int32: the vertex shuffle, the
    groups, the rounds, the block table and the shuffle's partners) and ``cnt`` (n_threads K (K + 1) / 2
    int64: each thread's block counters)."""
    cdef Py_ssize_t B = K * (K + 1) // 2, T = n_threads, Tn = _threads_for(n, n_threads), i, t, b, lo, hi
    cdef int32_t* group
    cdef int32_t* rounds
    cdef int32_t* blk
    cdef int64_t* row
    group = perm + n
    rounds = group + n
    blk = rounds + K
    for i in prange(n, num_threads=Tn, schedule="static"):
        perm[i] = <int32_t>i
    fisher_yates_parallel(perm, n, rng_stream(seed, 0), blk + K * K, n_threads)
    for i in prange(n, num_threads=Tn, schedule="static"):
        group[perm[i]] = <int32_t>(i % K)
    for i in range(K):
        rounds[i] = <int32_t>i
    fisher_yates(rounds, K, rng_stream(seed, 2))
    _block_table(K, rounds, blk, round_ptr)
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        row = cnt + t * B
        for b in range(B):
            row[b] = 0
        lo = (P * t) // T
        hi = (P * (t + 1)) // T
        for i in range(lo, hi):
            row[_record_block(records + i, group, blk, K)] += 1
    column_scan(cnt, T, B, bptr, n_threads)
    for t in prange(T, num_threads=T, schedule="static", chunksize=1):
        row = cnt + t * B
        lo = (P * t) // T
        hi = (P * (t + 1)) // T
        for i in range(lo, hi):
            b = _record_block(records + i, group, blk, K)
            dst[row[b]] = <int32_t>i
            row[b] += 1


def edge_order(const int32_t[:, ::1] pairs, Py_ssize_t n, Py_ssize_t D, uint64_t seed, Py_ssize_t epoch,
               schedule="deterministic", Py_ssize_t n_groups=0):
    """The visiting sequence of ``edge_epoch`` under ``schedule`` (for tests and references).

    Returns ``(order, block_ptr, round_ptr)``: position k visits pair ``order[k]``; block b is
    ``order[block_ptr[b]:block_ptr[b + 1]]`` and round i holds blocks
    ``round_ptr[i]..round_ptr[i + 1] - 1``.  ``"deterministic"`` and ``"blocks"`` visit the same
    stratified sequence; ``"hogwild"``, a uniform permutation, has one block and one round.
    """
    cdef Py_ssize_t P = pairs.shape[0], K = n_groups if n_groups > 0 else group_count(n, P, D)
    cdef Py_ssize_t B = K * (K + 1) // 2, b
    if schedule_code(schedule, "edge_order") == SCHEDULE_HOGWILD:
        return permutation(P, seed, epoch).astype(np.int64), np.array([0, P], np.int64), np.array([0, 1], np.int64)
    recs = np.zeros(max(P, 1), PAIR_RECORD_DTYPE)
    recs["u"][:P] = pairs[:, 0]
    recs["v"][:P] = pairs[:, 1]
    out = np.empty(max(P, 1), np.int32)
    bptr = np.zeros(B + 1, np.int64)
    rptr = np.zeros(K + 1, np.int64)
    cdef PairRec[::1] rv = recs
    cdef int32_t[::1] ov = out
    cdef int64_t[::1] bp = bptr
    cdef int64_t[::1] rp = rptr
    cdef uint64_t s = rng_stream(seed, <uint64_t>(2 * epoch))
    if P == 0:
        return np.empty(0, np.int64), bptr, rptr
    if edge_blocks(&rv[0], &ov[0], P, n, K, s, &bp[0], &rp[0], 1) != EPOCH_OK:
        raise MemoryError()
    for b in range(B):
        fisher_yates(&ov[0] + bp[b], bp[b + 1] - bp[b], rng_stream(rng_stream(s, 1), <uint64_t>b))
    return out[:P].astype(np.int64), bptr, rptr



cdef Py_ssize_t vertex_levels(const int32_t* order, Py_ssize_t n, const Incidence* lists, int32_t* level,
                              int64_t* level_ptr, int32_t* items) noexcept nogil:
    """Levels of the vertex sequence ``order``: a vertex's level is 1 + the highest level of the vertices before
    it that share a pair with it (``lists``).  ``items`` gets the vertices grouped by level, each level in
    ``order``'s order: level l = 1, ..., L is ``items[level_ptr[l]:level_ptr[l + 1]]``.  Returns L.
    ``level``, ``items``: n int32; ``level_ptr``: n + 2 int64."""
    cdef Py_ssize_t k, x, n_levels = 0
    cdef int64_t j
    cdef int32_t u, highest
    for x in range(n):
        level[x] = 0
    for k in range(n):
        u = order[k]
        highest = 0
        for j in range(lists.pos_ptr[u], lists.pos_ptr[u + 1]):
            if level[lists.pos_nbr[j]] > highest:
                highest = level[lists.pos_nbr[j]]
        for j in range(lists.neg_ptr[u], lists.neg_ptr[u + 1]):
            if level[lists.neg_nbr[j]] > highest:
                highest = level[lists.neg_nbr[j]]
        level[u] = highest + 1
        if highest + 1 > n_levels:
            n_levels = highest + 1
    for x in range(n_levels + 2):
        level_ptr[x] = 0
    for k in range(n):
        level_ptr[level[order[k]]] += 1
    for x in range(1, n_levels + 1):
        level_ptr[x] += level_ptr[x - 1]
    for k in range(n - 1, -1, -1):
        u = order[k]
        level_ptr[level[u]] -= 1
        items[level_ptr[level[u]]] = u
    level_ptr[n_levels + 1] = n
    return n_levels


def grouped_order(const int32_t[::1] perm, const int32_t[::1] group, const int32_t[::1] rank, int n_threads=1):
    """``perm`` grouped by group, the groups in the order ``rank`` gives them, stably: returns ``(order,
    group_ptr)``, ``order`` the items of ``perm`` whose group g has ``rank[g] == 0`` (in ``perm``'s
    order), then those of rank 1, and so on, the r-th at ``order[group_ptr[r]:group_ptr[r + 1]]``.
    What ``perm[np.argsort(rank[group][perm], kind="stable")]`` gives, as a counting sort on
    ``n_threads``: each thread counts and then scatters a contiguous slice of ``perm``, so the result
    does not depend on the thread count.  ``rank``: a permutation of the k groups; ``group``: one
    entry in ``[0, k)`` per item (the caller checked both)."""
    cdef Py_ssize_t n = perm.shape[0], k = rank.shape[0], T = _threads_for(perm.shape[0], n_threads), t, i, r
    if k < 1:
        raise ValueError("grouped_order: rank must rank at least one group")
    counts = np.zeros((T, k), np.int64)
    order = np.empty(n, np.int32)
    group_ptr = np.zeros(k + 1, np.int64)
    cdef int64_t[:, ::1] c = counts
    cdef int32_t[::1] out = order
    cdef int64_t[::1] gp = group_ptr
    cdef int32_t item
    if n == 0:
        return order, group_ptr
    with nogil:
        for t in prange(T, num_threads=T, schedule="static", chunksize=1):
            for i in range((n * t) // T, (n * (t + 1)) // T):
                c[t, rank[group[perm[i]]]] += 1
        column_scan(&c[0, 0], T, k, &gp[0], n_threads)
        for t in prange(T, num_threads=T, schedule="static", chunksize=1):
            for i in range((n * t) // T, (n * (t + 1)) // T):
                item = perm[i]
                r = rank[group[item]]
                out[c[t, r]] = item
                c[t, r] += 1
    return order, group_ptr


def greedy_coloring(const int64_t[::1] indptr, const int32_t[::1] nbr, const int64_t[::1] visit):
    """Greedy proper colouring: each vertex of ``visit`` (in that order) takes
    the smallest colour none of its already-coloured neighbours has.

    Uses at most max_degree + 1 colours (Welsh & Powell 1967 with the
    largest-first order).  Returns int32 colours.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1, i, k, u, c
    colors_arr = np.full(n, -1, dtype=np.int32)
    cdef int32_t[::1] color = colors_arr
    cdef int64_t[::1] mark = np.full(n + 1, -1, dtype=np.int64)
    with nogil:
        for i in range(visit.shape[0]):
            u = visit[i]
            for k in range(indptr[u], indptr[u + 1]):
                c = color[nbr[k]]
                if c >= 0:
                    mark[c] = u
            c = 0
            while mark[c] == u:
                c += 1
            color[u] = <int32_t>c
    return colors_arr
