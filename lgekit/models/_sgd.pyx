# cython: language_level=3
"""Stochastic gradient descent for the logistic (negative-sampling) linear graph embedding.

The objective (Gao et al., ICLR 2019, Section 3.2; the regularised form of Eq. 1)::

    L(X) = - lam_pos sum_{(u,v) in E+} w_uv log sigma(x_u . x_v)
           - lam_neg sum_{(u,v) in E-}      log sigma(-x_u . x_v)
           + lam_r   sum_v ||x_v||^2

Every training pair is a record (two int32 ends, 8 bytes) of the epoch's ``PairRecords``
(``_incidence.pyx``): records ``0..n_pos-1`` are the positives (coefficient
``coef[p] = lam_pos * w_p``), the rest the negatives (``coef[p] = lam_neg``).  The coefficient is
not stored with the pair: it follows from the index p (and, for a weighted graph, the n_pos-long
``pos_coef``).  Epoch ``t`` uses the step ``lr`` given by the caller
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

Two visiting orders, by the ``Schedule`` of ``_schedules.pxd`` (``_schedules.pyx`` builds both;
``edge_order`` there returns either):

* hogwild: a uniformly random permutation of the pairs.  One thread runs it in order; n threads
  take its shuffle buckets a few at a time as they finish and update shared rows without locks
  (Recht et al. 2011): not reproducible for n > 1.
* deterministic: the stratified order of vertex-disjoint blocks (DSGD, Gemulla et al. 2011).  The
  blocks of a round touch disjoint rows, so threads share a round's blocks and meet at a barrier
  after it, and the result is BIT-IDENTICAL for any number of threads.  ``blocks`` runs the same
  blocks without the barriers (one thread: the same bits).

Either way an order is a sequence of int32 record indices (4 bytes a pair), never a copy of
the records: a run gathers the next ``_RUN_CHUNK`` pairs of it, with their coefficients, into a
small per-thread buffer (in cache) and runs the pair loop over that buffer.  The pair loop is
software-pipelined: the next pair's score is computed before this pair's update (and again
after it when the two pairs share a vertex), which overlaps two dependency chains and changes
no bit.

Vertex order (``vertex_epoch``): for each vertex u in random order take the
full gradient of Eq. 2 over u's incident pairs (its ``IncidenceLists``) with the current neighbours,
and step ``x_u <- x_u - lr dL/dx_u``.  ``hogwild`` splits the shuffled
vertices into chunks; ``deterministic`` gives each vertex a level
``1 + max(level of the earlier vertices it shares a pair with)`` and runs the
levels in order with a barrier between them (the vertices of a level are
independent), which reproduces the sequential loop bit for bit.

An epoch returns an ``EpochStatus`` of ``_common.pxd`` (``EPOCH_STATUS`` here gives the values by name).

Pinned coordinates (``edge_epoch``'s ``pinned``, the node biases of a directed graph): after each
pair update a row's pinned coordinate, if it has one, is put back to ``pin_value`` -- projected SGD
onto the set where that coordinate is constant.

The per-epoch diagnostics (objective, norms, Eq. 2 gradient) are in ``_sgd_diagnostics.pyx``;
negative resampling is ``lgekit._sampling.sample_negatives``.
"""

import numpy as np

from cython.parallel cimport prange, parallel, threadid
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free

from lgekit._common cimport (floating, dot, axpy, sigmoid, sigmoidf, sigmoid_fused, log_sigmoidf, rng_stream,
                             EpochStatus, EPOCH_OK, EPOCH_NONFINITE, EPOCH_OUT_OF_MEMORY)
from lgekit._intrinsics cimport (LGK_PREFETCH, LGK_PREFETCHW, LGK_AVX2_UPDATE, lgk_pair_updatef_avx2,
                                 lgk_ftz_begin, lgk_ftz_end)
from lgekit.models._incidence cimport PairRec, PairSet, Incidence, read_pairs, read_incidence
from lgekit.models._schedules cimport (Schedule, SCHEDULE_HOGWILD, SCHEDULE_DETERMINISTIC, SCHEDULE_BLOCKS,
                                       schedule_code, fisher_yates, shuffle_indices, shuffle_chunks,
                                       shuffle_buckets, shuffle_offsets_size, group_count, edge_blocks,
                                       vertex_levels)

#: the values of the ``EpochStatus`` an epoch returns, by name (``lgekit.models._solver.EpochStatus`` mirrors them)
EPOCH_STATUS = {"OK": EPOCH_OK, "NONFINITE": EPOCH_NONFINITE, "OUT_OF_MEMORY": EPOCH_OUT_OF_MEMORY}


# --------------------------------------------------------------------- edge order
cdef packed struct PairVisit:
    # One pair as the pair loop reads it (16 bytes): the record's ends and its signed coefficient,
    # ``c > 0`` for a positive pair (lam_pos * weight), ``c < 0`` for a negative one (-lam_neg).
    int32_t u
    int32_t v
    double c


cdef struct EdgeConfig:
    # What every pair update of an edge-order epoch reads besides the rows (gensim's config struct).
    PairSet pairs               # the records and their coefficients
    const double* reg_factor    # each row's share of the regulariser's gradient a visit applies, 2 lam_r / c_x
    double lr
    const int32_t* pinned       # each row's held coordinate (< 0: none), or NULL: no row holds one
    double pin_value
    int* stop                   # the epoch's status, shared by the threads: set by the update that stops it


cdef enum:
    _RUN_CHUNK = 512        # pairs gathered at a time (8 KiB of PairVisit: stays in L1 with the rows)
    _RUN_STRIDE = 516       # PairVisits between two threads' buffers: a cache line more than a chunk
    _GATHER_AHEAD = 16      # records prefetched this many indices ahead of the gather


cdef inline floating _step_size(floating s, floating lc) noexcept nogil:
    """k = -lr dl/ds = lr c sigma(-s) (positive pair, lc = lr c > 0) or lr c sigma(s) (negative, lc < 0).
    float32 embeddings take the sigmoid in single precision (an inlined exp, see _common.pxd)."""
    return lc * sigmoid_fused(-s if lc > 0 else s)


cdef inline void _pair_update(floating* xu, floating* xv, floating au, floating av, floating k,
                              Py_ssize_t dim) noexcept nogil:
    """x_u <- au x_u + k x_v and x_v <- av x_v + k x_u, both from the old values."""
    cdef Py_ssize_t i
    cdef floating a, b
    if floating is float:
        if LGK_AVX2_UPDATE:
            lgk_pair_updatef_avx2(xu, xv, au, av, k, dim)
            return
    for i in range(dim):
        a = xu[i]
        b = xv[i]
        xu[i] = au * a + k * b
        xv[i] = av * b + k * a


cdef enum:
    _PF_NEAR = 4     # prefetch the two embedding rows this many pairs ahead


cdef inline void _prefetch_pair(const floating* emb, Py_ssize_t dim, const PairVisit* r) noexcept nogil:
    """Start loading the two embedding rows of a pair that is _PF_NEAR updates ahead (one loop for
    both rows, which halves the loop's own instructions)."""
    cdef const char* xu = <const char*>(emb + <Py_ssize_t>r.u * dim)
    cdef const char* xv = <const char*>(emb + <Py_ssize_t>r.v * dim)
    cdef Py_ssize_t off = 0, nbytes = dim * sizeof(floating)
    while off < nbytes:
        LGK_PREFETCHW(xu + off)
        LGK_PREFETCHW(xv + off)
        off += 64


cdef inline bint _shares_row(const PairVisit* a, const PairVisit* b) noexcept nogil:
    return a.u == b.u or a.u == b.v or a.v == b.u or a.v == b.v


cdef inline floating _pair_dot(const floating* emb, Py_ssize_t dim, const PairVisit* r) noexcept nogil:
    return dot(emb + <Py_ssize_t>r.u * dim, emb + <Py_ssize_t>r.v * dim, dim)


cdef inline void _pin(floating* emb, Py_ssize_t dim, const int32_t* pinned, int32_t row,
                      double pin_value) noexcept nogil:
    """Put row ``row``'s held coordinate (pinned[row], none when < 0) back to ``pin_value`` after an update:
    projected SGD onto {x : x[pinned[row]] = pin_value}, which is how a node bias rides on a constant
    coordinate."""
    if pinned[row] >= 0:
        emb[<Py_ssize_t>row * dim + pinned[row]] = <floating>pin_value


cdef void _edge_run(floating* emb, Py_ssize_t dim, const PairVisit* seq, Py_ssize_t n,
                    const EdgeConfig* cfg) noexcept nogil:
    """Pair updates for seq[0:n] in order (for pair r = (u, v), with s = x_u . x_v::

        k = lr c sigma(-s) (positive) or -lr c sigma(s) (negative)
        x_u <- (1 - lr reg[u]) x_u + k x_v,   x_v <- (1 - lr reg[v]) x_v + k x_u

    from the old x_u, x_v, ``reg`` the rows' ``reg_factor``); stops, setting ``cfg.stop`` to
    ``EPOCH_NONFINITE``, before a pair whose s is not finite.  With ``cfg.pinned`` each updated row's held
    coordinate is then put back to ``cfg.pin_value`` (see ``_pin``).

    Software-pipelined: the score of the next pair is computed before this pair's update, so that
    the processor works on that dot product while this pair's sigmoid is still being computed
    (otherwise dot -> sigmoid -> update is one chain per pair and the core idles through most of
    it).  When the next pair shares a row with this one, its score is computed again after the
    update (0.05% of pairs on BlogCatalog): the result is exactly the sequential loop's.  The
    pairs are read in order; the rows they point to are prefetched _PF_NEAR pairs ahead."""
    cdef const double* reg = cfg.reg_factor
    cdef double lr = cfg.lr, pin_value = cfg.pin_value
    cdef const int32_t* pinned = cfg.pinned
    cdef int* stop = cfg.stop
    cdef Py_ssize_t k, j
    cdef const PairVisit* r
    cdef floating s, s_next = 0, step
    cdef bint has_next
    if n <= 0:
        return
    s = _pair_dot(emb, dim, seq)
    for k in range(n):
        if stop[0]:
            return
        j = k + _PF_NEAR
        if j < n:
            _prefetch_pair(emb, dim, seq + j)
            LGK_PREFETCH(reg + seq[j].u)
            LGK_PREFETCH(reg + seq[j].v)
        r = seq + k
        if not isfinite(s):
            stop[0] = EPOCH_NONFINITE
            return
        step = _step_size(s, <floating>(lr * r.c))
        has_next = k + 1 < n
        if has_next:
            s_next = _pair_dot(emb, dim, r + 1)
        _pair_update(emb + <Py_ssize_t>r.u * dim, emb + <Py_ssize_t>r.v * dim,
                     <floating>(1.0 - lr * reg[r.u]), <floating>(1.0 - lr * reg[r.v]), step, dim)
        if pinned != NULL:
            _pin(emb, dim, pinned, r.u, pin_value)
            _pin(emb, dim, pinned, r.v, pin_value)
        if has_next and _shares_row(r, r + 1):
            s_next = _pair_dot(emb, dim, r + 1)
        s = s_next


cdef inline void _gather(const PairSet* pairs, const int32_t* idx, Py_ssize_t n, PairVisit* buf) noexcept nogil:
    """buf[0:n] <- the records idx[0:n] with their coefficients.  The records are read in the order's
    random order (a cache miss each on a large graph): they are prefetched _GATHER_AHEAD indices ahead,
    and as the loads do not depend on one another they overlap.  The coefficient is a select on
    p < n_pos, not a branch (positives and negatives come in random order)."""
    cdef const PairRec* records = pairs.records
    cdef const double* pos_coef = pairs.pos_coef
    cdef double lam_pos = pairs.lam_pos, neg_coef = -pairs.lam_neg
    cdef Py_ssize_t n_pos = pairs.n_pos, j
    cdef int32_t p
    cdef double c
    for j in range(n):
        if j + _GATHER_AHEAD < n:
            LGK_PREFETCH(records + idx[j + _GATHER_AHEAD])
        p = idx[j]
        c = neg_coef
        if p < n_pos:
            c = pos_coef[p] if pos_coef != NULL else lam_pos
        buf[j].u = records[p].u
        buf[j].v = records[p].v
        buf[j].c = c


cdef void _run_order(floating* emb, Py_ssize_t dim, const EdgeConfig* cfg, const int32_t* idx, Py_ssize_t n,
                     PairVisit* buf) noexcept nogil:
    """Pair updates for the records idx[0:n], in that order: _RUN_CHUNK of them at a time gathered into
    ``buf`` (per thread) and run by ``_edge_run`` (the pipeline restarts at a chunk's first pair with the
    score the sequential loop computes there: the result is the same bits)."""
    cdef Py_ssize_t done = 0, chunk
    while done < n and not cfg.stop[0]:
        chunk = n - done if n - done < _RUN_CHUNK else _RUN_CHUNK
        _gather(&cfg.pairs, idx + done, chunk, buf)
        _edge_run(emb, dim, buf, chunk, cfg)
        done += chunk


cdef inline void _shuffle_and_run(floating* emb, Py_ssize_t dim, const EdgeConfig* cfg, int32_t* idx,
                                  Py_ssize_t n, uint64_t stream, PairVisit* buf) noexcept nogil:
    """Fisher-Yates shuffle the indices idx[0:n] with ``stream`` while they are in cache, then run their
    pairs (with subnormals flushed to zero: see ``lgk_ftz_begin``)."""
    cdef unsigned int fp_mode
    fisher_yates(idx, n, stream)
    fp_mode = lgk_ftz_begin()
    _run_order(emb, dim, cfg, idx, n, buf)
    lgk_ftz_end(fp_mode)


cdef void _uniform_run(floating* emb, Py_ssize_t dim, const EdgeConfig* cfg, int32_t* idx, const int64_t* ends,
                       Py_ssize_t first, Py_ssize_t last, uint64_t shuffle_seed, PairVisit* buf) noexcept nogil:
    """Buckets first..last-1 of the uniform shuffle (bucket b: idx[ends[b - 1]:ends[b]]), each shuffled
    with its stream rng_stream(shuffle_seed, b) (as ``shuffle_indices`` would) and run at once."""
    cdef Py_ssize_t b, lo
    for b in range(first, last):
        lo = 0 if b == 0 else ends[b - 1]
        _shuffle_and_run(emb, dim, cfg, idx + lo, ends[b] - lo, rng_stream(shuffle_seed, <uint64_t>b), buf)
        if cfg.stop[0]:
            return


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


def edge_epoch(floating[:, ::1] emb, pairs, const double[::1] rfac, int32_t[::1] work, uint64_t seed,
               Py_ssize_t epoch, double lr, int n_threads=1, schedule="deterministic", Py_ssize_t n_groups=0,
               const int32_t[::1] pinned=None, double pin_value=1.0):
    """One edge-order epoch in place; returns its ``EpochStatus`` (``EPOCH_STATUS``): OK, NONFINITE when a
    non-finite score stopped it, OUT_OF_MEMORY when its work space could not be allocated (nothing updated).

    ``pairs``: the P training pairs, a ``PairRecords`` (the n_pos positives first).  Pair p's coefficient is
    ``pos_coef[p]`` for a positive (``lam_pos`` when ``pos_coef`` is None or empty) and ``lam_neg`` for a
    negative.  ``rfac``: each row's share of the regulariser's gradient a visit applies.  ``work``: P int32,
    receives the epoch's order (record indices).  ``n_groups``: K, 0 for ``edge_group_count``.

    ``schedule`` (a name of ``_schedules.SCHEDULES``): ``"deterministic"``, the stratified sequence, K rounds
    of vertex-disjoint blocks; the threads share each round's blocks and meet at a barrier after it
    (disjoint blocks commute exactly, so the result is bit-identical for any n_threads).  ``"hogwild"``: a
    uniformly random permutation; the threads take its shuffle buckets (about 2,048 pairs each) four at a
    time, as they finish, and update without locks.  ``"blocks"``: the stratified sequence's blocks handed
    out in round order without the barriers.  One thread runs the deterministic sequence; several update
    without locks (not reproducible), but a thread meets another's rows only where a block of the next
    round starts before the last of its round ends.  ``edge_order`` gives the sequence.

    ``pinned``: None, or one int32 per row: the coordinate of that row held at ``pin_value`` (put back
    after each of the row's updates; < 0: none).  A directed graph's node biases ride on such a
    coordinate (``LogisticEmbedding(node_bias=True)``).

    Memory: besides ``work``, the shuffle's offsets (about P / 2**27 * P / 2**11 int64) or the block
    table, and 8 KiB of gathered pairs per thread; all of it freed at the one exit.
    """
    cdef Py_ssize_t n_rows = emb.shape[0], dim = emb.shape[1], n_pairs, n_buckets, n_blocks, b, i = 0
    cdef Py_ssize_t K
    cdef Schedule kind = <Schedule>schedule_code(schedule, "edge_epoch")
    cdef EdgeConfig cfg
    cdef int status = EPOCH_OK
    cdef uint64_t stream = rng_stream(seed, <uint64_t>(2 * epoch)), shuffle_seed
    cdef floating* rows
    cdef int32_t* order
    cdef int64_t* offsets = NULL        # the shuffle's counters (hogwild), or the blocks' and rounds' starts
    cdef int64_t* block_ptr
    cdef int64_t* round_ptr
    cdef const int64_t* bucket_ends
    cdef PairVisit* buffers = NULL      # _RUN_CHUNK gathered pairs a thread, _RUN_STRIDE apart
    read_pairs(pairs, &cfg.pairs)
    n_pairs = cfg.pairs.n_pairs
    if n_pairs == 0:
        return EPOCH_OK
    cfg.pinned = NULL
    if pinned is not None:
        if pinned.shape[0] != n_rows:
            raise ValueError(f"edge_epoch: pinned needs one entry per row ({n_rows}), got {pinned.shape[0]}")
        for b in range(n_rows):
            if pinned[b] >= dim:
                raise ValueError(f"edge_epoch: pinned[{b}] = {pinned[b]} is not a coordinate (dim {dim})")
        cfg.pinned = &pinned[0]
    if n_threads < 1:
        n_threads = 1
    if work.shape[0] < n_pairs or rfac.shape[0] < n_rows:
        raise ValueError(f"edge_epoch: work needs {n_pairs} entries and rfac {n_rows}, got {work.shape[0]} and "
                         f"{rfac.shape[0]}")
    K = n_groups if n_groups > 0 else group_count(n_rows, n_pairs, dim)
    n_blocks = K * (K + 1) // 2
    cfg.reg_factor = &rfac[0]
    cfg.lr = lr
    cfg.pin_value = pin_value
    cfg.stop = &status
    rows = &emb[0, 0]
    order = &work[0]
    shuffle_seed = rng_stream(stream, 1)
    try:
        buffers = <PairVisit*>malloc(n_threads * _RUN_STRIDE * sizeof(PairVisit))
        if buffers == NULL:
            return EPOCH_OUT_OF_MEMORY
        if kind == SCHEDULE_HOGWILD:
            offsets = <int64_t*>malloc(shuffle_offsets_size(n_pairs) * sizeof(int64_t))
            if offsets == NULL:
                return EPOCH_OUT_OF_MEMORY
            n_buckets = shuffle_buckets(n_pairs)
            bucket_ends = offsets + (shuffle_chunks(n_pairs) - 1) * n_buckets   # after the scatter
            with nogil:
                shuffle_indices(order, n_pairs, offsets, stream, n_threads, True)
                if n_threads == 1:
                    _uniform_run(rows, dim, &cfg, order, bucket_ends, 0, n_buckets, shuffle_seed, buffers)
                else:
                    # buckets handed out a few at a time, not in fixed halves: on a shared machine one
                    # core is often slowed for a while, and the other then takes more of the work
                    for b in prange(n_buckets, num_threads=n_threads, schedule="dynamic", chunksize=4):
                        if cfg.stop[0] == EPOCH_OK:
                            _shuffle_and_run(rows, dim, &cfg, order + (0 if b == 0 else bucket_ends[b - 1]),
                                             bucket_ends[b] - (0 if b == 0 else bucket_ends[b - 1]),
                                             rng_stream(shuffle_seed, <uint64_t>b),
                                             buffers + threadid() * _RUN_STRIDE)
            return status
        offsets = <int64_t*>malloc((n_blocks + K + 2) * sizeof(int64_t))
        if offsets == NULL:
            return EPOCH_OUT_OF_MEMORY
        block_ptr = offsets
        round_ptr = offsets + n_blocks + 1
        with nogil:
            if edge_blocks(cfg.pairs.records, order, n_pairs, n_rows, K, stream, block_ptr, round_ptr,
                           n_threads) != EPOCH_OK:
                status = EPOCH_OUT_OF_MEMORY
            elif n_threads == 1:
                for b in range(n_blocks):
                    _shuffle_and_run(rows, dim, &cfg, order + block_ptr[b], block_ptr[b + 1] - block_ptr[b],
                                     rng_stream(shuffle_seed, <uint64_t>b), buffers)
                    if status != EPOCH_OK:
                        break
            elif kind == SCHEDULE_BLOCKS:
                # blocks of one round share no row, so without the barriers two threads write the same
                # row only at a round's boundary; a uniform order would have every thread write every
                # row, each write moving the row's cache lines from the core that wrote it last
                for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic", chunksize=1):
                    if cfg.stop[0] == EPOCH_OK:
                        _shuffle_and_run(rows, dim, &cfg, order + block_ptr[b], block_ptr[b + 1] - block_ptr[b],
                                         rng_stream(shuffle_seed, <uint64_t>b), buffers + threadid() * _RUN_STRIDE)
            else:
                with parallel(num_threads=n_threads):
                    for i in range(K):
                        for b in prange(round_ptr[i], round_ptr[i + 1], schedule="dynamic", chunksize=1):
                            if cfg.stop[0] == EPOCH_OK:
                                _shuffle_and_run(rows, dim, &cfg, order + block_ptr[b],
                                                 block_ptr[b + 1] - block_ptr[b],
                                                 rng_stream(shuffle_seed, <uint64_t>b),
                                                 buffers + threadid() * _RUN_STRIDE)
        return status
    finally:
        free(offsets)
        free(buffers)


# --------------------------------------------------------------------- vertex order
cdef inline EpochStatus _vertex_step(floating* emb, Py_ssize_t dim, Py_ssize_t u, const Incidence* lists,
                                     double lam_r, double lr, floating* grad) noexcept nogil:
    """x_u <- x_u - lr * dL/dx_u (Eq. 2) with the current neighbours; ``EPOCH_NONFINITE`` on a non-finite
    score (x_u then unchanged).  Subnormals are flushed to zero meanwhile (see ``lgk_ftz_begin``)."""
    cdef const int64_t* pos_ptr = lists.pos_ptr
    cdef const int32_t* pos_nbr = lists.pos_nbr
    cdef const double* pos_coef = lists.pos_coef
    cdef double pos_scale = lists.pos_scale, lam_neg = lists.lam_neg
    cdef const int64_t* neg_ptr = lists.neg_ptr
    cdef const int32_t* neg_nbr = lists.neg_nbr
    cdef floating* xu = emb + u * dim
    cdef floating* xv
    cdef Py_ssize_t i
    cdef int64_t j
    cdef double s
    cdef floating two_lam_r = <floating>(2.0 * lam_r)
    cdef EpochStatus status = EPOCH_NONFINITE
    cdef unsigned int fp_mode = lgk_ftz_begin()
    for i in range(dim):
        grad[i] = two_lam_r * xu[i]
    for j in range(pos_ptr[u], pos_ptr[u + 1]):
        xv = emb + <Py_ssize_t>pos_nbr[j] * dim
        s = dot(xu, xv, dim)
        if not isfinite(s):
            break
        axpy(<floating>(-(pos_coef[j] if pos_coef != NULL else pos_scale) * sigmoid(-s)), xv, grad, dim)
    else:
        for j in range(neg_ptr[u], neg_ptr[u + 1]):
            xv = emb + <Py_ssize_t>neg_nbr[j] * dim
            s = dot(xu, xv, dim)
            if not isfinite(s):
                break
            axpy(<floating>(lam_neg * sigmoid(s)), xv, grad, dim)
        else:
            axpy(<floating>(-lr), grad, xu, dim)
            status = EPOCH_OK
    lgk_ftz_end(fp_mode)
    return status


def tie_rows(floating[:, ::1] emb, Py_ssize_t n_source, Py_ssize_t n_free, double share, int n_threads=1):
    """Pull row ``u`` and row ``n_source + u`` together, for every ``u < n_source``, in place.

    On the first ``n_free`` coordinates, ``d = share (x - y) / 2``, ``x <- x - d``, ``y <- y + d``: the
    proximal step of a directed graph's tie (the mean kept, the difference shrunk by ``1 - share``).  Each
    pair of rows is its own work, so the result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t dim = emb.shape[1], u, k
    if emb.shape[0] != 2 * n_source or not 0 <= n_free <= dim:
        raise ValueError(f"tie_rows: need 2 * n_source rows and n_free <= {dim}, got {emb.shape[0]} rows, "
                         f"n_source={n_source}, n_free={n_free}")
    if n_source == 0 or n_free == 0:
        return
    cdef floating* rows = &emb[0, 0]
    cdef floating* source
    cdef floating* target
    cdef floating half = <floating>(0.5 * share)
    cdef floating d
    with nogil:
        for u in prange(n_source, num_threads=n_threads, schedule="static"):
            source = rows + u * dim
            target = rows + (n_source + u) * dim
            for k in range(n_free):
                d = (source[k] - target[k]) * half
                source[k] = source[k] - d
                target[k] = target[k] + d


def vertex_epoch(floating[:, ::1] emb, lists, double lam_r, floating[:, ::1] scratch, const int32_t[::1] order,
                 double lr, int n_threads=1, schedule="deterministic", const double[::1] row_lam_r=None):
    """One vertex-order epoch (Eq. 2 steps) in place, visiting the vertices in ``order``
    (``permutation(n, seed, epoch)``).  Returns its ``EpochStatus``: OK, or NONFINITE on a non-finite score.

    ``lists``: the ``IncidenceLists`` of the training pairs.  ``scratch`` has a row of at least D entries
    per thread (rows a cache line wider than D keep each thread's gradient off the lines of the others).
    ``schedule``: ``"deterministic"`` (levels of independent vertices with a barrier after each, the same
    bits on any number of threads) or ``"hogwild"`` (the shuffled vertices in chunks, without locks).
    ``row_lam_r``: each vertex's own lambda_r (n entries; the two tables of a stacked table each have
    theirs), None: ``lam_r`` for all.
    """
    cdef Py_ssize_t n = emb.shape[0], dim = emb.shape[1], k, n_levels, level = 0
    cdef Schedule kind = <Schedule>schedule_code(schedule, "vertex_epoch")
    cdef Incidence incidence
    cdef int status = EPOCH_OK
    cdef int* stop = &status
    cdef floating* rows = &emb[0, 0]
    cdef floating* grads = &scratch[0, 0]
    cdef Py_ssize_t grad_stride = scratch.shape[1]
    cdef const int32_t* visit = &order[0]
    cdef const double* own_lam_r = NULL
    cdef int32_t[::1] level_work          # the deterministic schedule's levels: each vertex's, then the vertices
    cdef int64_t[::1] level_ptr_work      # by level, and where each level starts (vertex_levels)
    cdef int32_t* items = NULL
    cdef int64_t* level_ptr = NULL
    if kind == SCHEDULE_BLOCKS:
        raise ValueError("vertex_epoch: schedule must be 'deterministic' or 'hogwild' (the vertex order has no "
                         "pair blocks), got 'blocks'")
    if n == 0:
        return EPOCH_OK
    read_incidence(lists, n, &incidence)
    if n_threads > scratch.shape[0] or scratch.shape[1] < dim:
        raise ValueError(f"scratch must have at least n_threads = {n_threads} rows of at least D = {dim} entries, "
                         f"got shape ({scratch.shape[0]}, {scratch.shape[1]})")
    if row_lam_r is not None:
        if row_lam_r.shape[0] != n:
            raise ValueError(f"row_lam_r must have one entry per row ({n}), got {row_lam_r.shape[0]}")
        own_lam_r = &row_lam_r[0]
    if n_threads > 1 and kind == SCHEDULE_DETERMINISTIC:
        level_work, level_ptr_work = np.empty(2 * n, np.int32), np.empty(n + 2, np.int64)
        items, level_ptr = &level_work[n], &level_ptr_work[0]
    with nogil:
        if n_threads <= 1:
            for k in range(n):
                if _vertex_step(rows, dim, visit[k], &incidence, own_lam_r[visit[k]] if own_lam_r != NULL else lam_r,
                                lr, grads) != EPOCH_OK:
                    status = EPOCH_NONFINITE
                    break
        elif kind == SCHEDULE_HOGWILD:
            for k in prange(n, num_threads=n_threads, schedule="static"):
                if stop[0] == EPOCH_OK:
                    if _vertex_step(rows, dim, visit[k], &incidence,
                                    own_lam_r[visit[k]] if own_lam_r != NULL else lam_r, lr,
                                    grads + threadid() * grad_stride) != EPOCH_OK:
                        stop[0] = EPOCH_NONFINITE
        else:
            n_levels = vertex_levels(visit, n, &incidence, &level_work[0], level_ptr, items)
            with parallel(num_threads=n_threads):
                for level in range(1, n_levels + 1):
                    for k in prange(level_ptr[level], level_ptr[level + 1], schedule="static"):
                        if stop[0] == EPOCH_OK:
                            if _vertex_step(rows, dim, items[k], &incidence,
                                            own_lam_r[items[k]] if own_lam_r != NULL else lam_r, lr,
                                            grads + threadid() * grad_stride) != EPOCH_OK:
                                stop[0] = EPOCH_NONFINITE
    return status
