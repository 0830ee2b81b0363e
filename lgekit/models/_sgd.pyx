# cython: language_level=3
"""Stochastic gradient descent for the logistic (negative-sampling) linear graph embedding.

The objective (Gao et al., ICLR 2019, Section 3.2; the regularised form of Eq. 1)::

    L(X) = - lam_pos sum_{(u,v) in E+} w_uv log sigma(x_u . x_v)
           - lam_neg sum_{(u,v) in E-}      log sigma(-x_u . x_v)
           + lam_r   sum_v ||x_v||^2

Every training pair is a record of ``records`` (two int32 ends, 8 bytes): records
``0..n_pos-1`` are the positives (coefficient ``coef[p] = lam_pos * w_p``), the rest
the negatives (``coef[p] = lam_neg``).  The coefficient is not stored with the pair: it
follows from the index p (and, for a weighted graph, the n_pos-long ``pos_coef``).  Epoch ``t`` uses the step ``lr`` given by the caller
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

Two visiting orders, one per schedule (``_schedules.pyx`` builds both; ``edge_order`` there
returns either):

* hogwild: a uniformly random permutation of the pairs.  One thread runs it in order; n threads
  take its shuffle buckets a few at a time as they finish and update shared rows without locks
  (Recht et al. 2011): not reproducible for n > 1.
* deterministic: the stratified order of vertex-disjoint blocks (DSGD, Gemulla et al. 2011).  The
  blocks of a round touch disjoint rows, so threads share a round's blocks and meet at a barrier
  after it, and the result is BIT-IDENTICAL for any number of threads.

Either way an order is a sequence of int32 record indices (4 bytes a pair), never a copy of
the records: a run gathers the next ``_RUN_CHUNK`` pairs of it, with their coefficients, into a
small per-thread buffer (in cache) and runs the pair loop over that buffer.  The pair loop is
software-pipelined: the next pair's score is computed before this pair's update (and again
after it when the two pairs share a vertex), which overlaps two dependency chains and changes
no bit.

Vertex order (``vertex_epoch``): for each vertex u in random order take the
full gradient of Eq. 2 over u's incident pairs with the current neighbours,
and step ``x_u <- x_u - lr dL/dx_u``.  ``hogwild`` splits the shuffled
vertices into chunks; ``deterministic`` gives each vertex a level
``1 + max(level of the earlier vertices it shares a pair with)`` and runs the
levels in order with a barrier between them (the vertices of a level are
independent), which reproduces the sequential loop bit for bit.

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

from lgekit._common cimport (floating, dot, axpy, sigmoid, sigmoidf, sigmoid_fused, log_sigmoidf, rng_stream)
from lgekit._intrinsics cimport (LGK_PREFETCH, LGK_PREFETCHW, LGK_AVX2_UPDATE, lgk_pair_updatef_avx2,
                                 lgk_ftz_begin, lgk_ftz_end)
from lgekit.models._incidence cimport PairRec
from lgekit.models._schedules cimport (fisher_yates, shuffle_indices, shuffle_chunks, shuffle_buckets,
                                       shuffle_offsets_size, group_count, edge_blocks, vertex_levels)


# --------------------------------------------------------------------- edge order
cdef packed struct PairVisit:
    # One pair as the pair loop reads it (16 bytes): the record's ends and its signed coefficient,
    # ``c > 0`` for a positive pair (lam_pos * weight), ``c < 0`` for a negative one (-lam_neg).
    int32_t u
    int32_t v
    double c


cdef struct PairCoefs:
    # What a record index p needs to become a PairVisit's coefficient (see ``_gather``).
    const double* pos       # n_pos coefficients of the positives; NULL: every positive has lam_pos
    double lam_pos
    double neg              # -lam_neg
    Py_ssize_t n_pos


cdef enum:
    _RUN_CHUNK = 512        # pairs gathered at a time (8 KiB of PairVisit: stays in L1 with the rows)
    _RUN_STRIDE = 516       # PairVisits between two threads' buffers: a cache line more than a chunk
    _GATHER_AHEAD = 16      # records prefetched this many indices ahead of the gather



cdef inline floating _step_size(floating s, floating lc) noexcept nogil:
    """k = -lr dl/ds = lr c sigma(-s) (positive pair, lc = lr c > 0) or lr c sigma(s) (negative, lc < 0).
    float32 embeddings take the sigmoid in single precision (an inlined exp, see _common.pxd)."""
    return lc * sigmoid_fused(-s if lc > 0 else s)


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


cdef inline void _prefetch_pair(const floating* E, Py_ssize_t D, const PairVisit* r) noexcept nogil:
    """Start loading the two embedding rows of a pair that is _PF_NEAR updates ahead (one loop for
    both rows, which halves the loop's own instructions)."""
    cdef const char* xu = <const char*>(E + <Py_ssize_t>r.u * D)
    cdef const char* xv = <const char*>(E + <Py_ssize_t>r.v * D)
    cdef Py_ssize_t off = 0, nbytes = D * sizeof(floating)
    while off < nbytes:
        LGK_PREFETCHW(xu + off)
        LGK_PREFETCHW(xv + off)
        off += 64


cdef inline bint _shares_row(const PairVisit* a, const PairVisit* b) noexcept nogil:
    return a.u == b.u or a.u == b.v or a.v == b.u or a.v == b.v


cdef inline floating _pair_dot(const floating* E, Py_ssize_t D, const PairVisit* r) noexcept nogil:
    return dot(E + <Py_ssize_t>r.u * D, E + <Py_ssize_t>r.v * D, D)


cdef inline void _pin(floating* E, Py_ssize_t D, const int32_t* PIN, int32_t row, double pinv) noexcept nogil:
    """Put row ``row``'s held coordinate (PIN[row], none when < 0) back to ``pinv`` after an update: projected
    SGD onto {x : x[PIN[row]] = pinv}, which is how a node bias rides on a constant coordinate."""
    if PIN[row] >= 0:
        E[<Py_ssize_t>row * D + PIN[row]] = <floating>pinv


cdef void _edge_run(floating* E, Py_ssize_t D, const PairVisit* seq, Py_ssize_t lo, Py_ssize_t hi,
                    const double* R, double lr, int* flag, const int32_t* PIN, double pinv) noexcept nogil:
    """Pair updates for seq[lo:hi] in order (for pair r = (u, v), with s = x_u . x_v::

        k = lr c sigma(-s) (positive) or -lr c sigma(s) (negative)
        x_u <- (1 - lr R[u]) x_u + k x_v,   x_v <- (1 - lr R[v]) x_v + k x_u

    from the old x_u, x_v); stops, setting ``flag``, before a pair whose s is not finite.  With ``PIN``
    (not NULL) each updated row's held coordinate is then put back to ``pinv`` (see ``_pin``).

    Software-pipelined: the score of the next pair is computed before this pair's update, so that
    the processor works on that dot product while this pair's sigmoid is still being computed
    (otherwise dot -> sigmoid -> update is one chain per pair and the core idles through most of
    it).  When the next pair shares a row with this one, its score is computed again after the
    update (0.05% of pairs on BlogCatalog): the result is exactly the sequential loop's.  The
    pairs are read in order; the rows they point to are prefetched _PF_NEAR pairs ahead."""
    cdef Py_ssize_t k, j
    cdef const PairVisit* r
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
        if PIN != NULL:
            _pin(E, D, PIN, r.u, pinv)
            _pin(E, D, PIN, r.v, pinv)
        if has_next and _shares_row(r, r + 1):
            s_next = _pair_dot(E, D, r + 1)
        s = s_next


cdef inline void _gather(const PairRec* records, const int32_t* idx, Py_ssize_t k, PairCoefs* cf,
                         PairVisit* buf) noexcept nogil:
    """buf[0:k] <- the records idx[0:k] with their coefficients.  The records are read in the order's
    random order (a cache miss each on a large graph): they are prefetched _GATHER_AHEAD indices ahead,
    and as the loads do not depend on one another they overlap.  The coefficient is a select on
    p < n_pos, not a branch (positives and negatives come in random order)."""
    cdef Py_ssize_t j
    cdef int32_t p
    cdef double c
    for j in range(k):
        if j + _GATHER_AHEAD < k:
            LGK_PREFETCH(records + idx[j + _GATHER_AHEAD])
        p = idx[j]
        c = cf.neg
        if p < cf.n_pos:
            c = cf.pos[p] if cf.pos != NULL else cf.lam_pos
        buf[j].u = records[p].u
        buf[j].v = records[p].v
        buf[j].c = c


cdef void _run_order(floating* E, Py_ssize_t D, const PairRec* records, const int32_t* idx, Py_ssize_t lo,
                     Py_ssize_t hi, PairCoefs* cf, const double* R, double lr, PairVisit* buf,
                     int* flag, const int32_t* PIN, double pinv) noexcept nogil:
    """Pair updates for the records idx[lo:hi], in that order: _RUN_CHUNK of them at a time gathered
    into ``buf`` (per thread) and run by ``_edge_run`` (the pipeline restarts at a chunk's first pair
    with the score the sequential loop computes there: the result is the same bits)."""
    cdef Py_ssize_t a, k
    a = lo
    while a < hi and not flag[0]:
        k = hi - a if hi - a < _RUN_CHUNK else _RUN_CHUNK
        _gather(records, idx + a, k, cf, buf)
        _edge_run(E, D, buf, 0, k, R, lr, flag, PIN, pinv)
        a += k


cdef inline void _shuffle_and_run(floating* E, Py_ssize_t D, const PairRec* records, int32_t* idx, Py_ssize_t lo,
                                  Py_ssize_t hi, uint64_t stream, PairCoefs* cf, const double* R, double lr,
                                  PairVisit* buf, int* flag, const int32_t* PIN, double pinv) noexcept nogil:
    """Fisher-Yates shuffle the indices idx[lo:hi] with ``stream`` while they are in cache, then run
    their pairs (with subnormals flushed to zero: see ``lgk_ftz_begin``)."""
    cdef unsigned int fp_mode
    fisher_yates(idx + lo, hi - lo, stream)
    fp_mode = lgk_ftz_begin()
    _run_order(E, D, records, idx, lo, hi, cf, R, lr, buf, flag, PIN, pinv)
    lgk_ftz_end(fp_mode)


cdef void _uniform_run(floating* E, Py_ssize_t D, const PairRec* records, int32_t* idx, const int64_t* ends,
                       Py_ssize_t b0, Py_ssize_t b1, uint64_t shuffle_seed, PairCoefs* cf, const double* R,
                       double lr, PairVisit* buf, int* flag, const int32_t* PIN, double pinv) noexcept nogil:
    """Buckets b0..b1-1 of the uniform shuffle (bucket b: idx[ends[b - 1]:ends[b]]), each shuffled
    with its stream rng_stream(shuffle_seed, b) (as ``shuffle_indices`` would) and run at once."""
    cdef Py_ssize_t b
    for b in range(b0, b1):
        _shuffle_and_run(E, D, records, idx, 0 if b == 0 else ends[b - 1], ends[b],
                         rng_stream(shuffle_seed, <uint64_t>b), cf, R, lr, buf, flag, PIN, pinv)
        if flag[0]:
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


def edge_epoch(floating[:, ::1] emb, const PairRec[::1] records, const double[::1] pos_coef, double lam_pos,
               double lam_neg, Py_ssize_t n_pos, const double[::1] rfac, int32_t[::1] work, uint64_t seed,
               Py_ssize_t epoch, double lr, int n_threads=1, bint stratified=True, Py_ssize_t n_groups=0,
               bint barriers=True, const int32_t[::1] pinned=None, double pin_value=1.0):
    """One edge-order epoch in place.  Returns 0, 1 if a non-finite score stopped it, 2 if out of memory.

    ``records``: the P training pairs (see ``fill_pair_records``), the n_pos positives first.  Pair p's
    coefficient is ``pos_coef[p]`` for a positive (``lam_pos`` when ``pos_coef`` is None or empty) and
    ``lam_neg`` for a negative.  ``work``: P int32, receives the epoch's order (record indices).
    ``n_groups``: K, 0 for ``edge_group_count``.

    ``stratified``: the stratified sequence, K rounds of vertex-disjoint blocks; the threads
    share each round's blocks and meet at a barrier after it (disjoint blocks commute exactly, so
    the result is bit-identical for any n_threads).  Otherwise (hogwild): a uniformly random
    permutation; the threads take its shuffle buckets (about 2,048 pairs each) four at a time, as they
    finish, and update without locks.  ``edge_order`` gives either sequence.

    ``barriers=False`` (with ``stratified``; the ``"blocks"`` schedule): the stratified sequence's
    blocks handed out in round order without the barriers.  One thread runs the deterministic
    sequence; several update without locks (not reproducible), but a thread meets another's rows
    only where a block of the next round starts before the last of its round ends.

    ``pinned``: None, or one int32 per row: the coordinate of that row held at ``pin_value`` (put back
    after each of the row's updates; < 0: none).  A directed graph's node biases ride on such a
    coordinate (``LogisticEmbedding(node_bias=True)``).

    Memory: besides ``work``, the shuffle's offsets (about P / 2**27 * P / 2**11 int64) or the block
    table, and 8 KiB of gathered pairs per thread.
    """
    cdef Py_ssize_t P = records.shape[0], D = emb.shape[1], n = emb.shape[0]
    cdef Py_ssize_t K = n_groups if n_groups > 0 else group_count(n, P, D)
    cdef Py_ssize_t B = K * (K + 1) // 2, b, i = 0
    cdef int flag = 0
    cdef int* fp = &flag
    cdef floating* E = &emb[0, 0]
    cdef const double* R = &rfac[0]
    cdef const PairRec* REC
    cdef int32_t* W
    cdef uint64_t s = rng_stream(seed, <uint64_t>(2 * epoch)), s_shuffle
    cdef Py_ssize_t Kb
    cdef int64_t* BP
    cdef int64_t* RP
    cdef const int64_t* ends
    cdef PairVisit* bufs
    cdef PairCoefs cf
    cdef const int32_t* PIN = NULL
    if P == 0:
        return 0
    if pinned is not None:
        if pinned.shape[0] != n:
            raise ValueError(f"edge_epoch: pinned needs one entry per row ({n}), got {pinned.shape[0]}")
        for b in range(n):
            if pinned[b] >= D:
                raise ValueError(f"edge_epoch: pinned[{b}] = {pinned[b]} is not a coordinate (dim {D})")
        PIN = &pinned[0]
    if n_threads < 1:
        n_threads = 1
    if work.shape[0] < P or rfac.shape[0] < n:
        raise ValueError(f"edge_epoch: work needs {P} entries and rfac {n}, got {work.shape[0]} and {rfac.shape[0]}")
    if n_pos < 0 or n_pos > P:
        raise ValueError(f"edge_epoch: n_pos must be in [0, {P}], got {n_pos}")
    cf.pos = NULL
    if pos_coef is not None and pos_coef.shape[0] > 0:
        if pos_coef.shape[0] != n_pos:
            raise ValueError(f"edge_epoch: pos_coef has {pos_coef.shape[0]} entries for {n_pos} positives")
        cf.pos = &pos_coef[0]
    cf.lam_pos = lam_pos
    cf.neg = -lam_neg
    cf.n_pos = n_pos
    REC = &records[0]
    W = &work[0]
    s_shuffle = rng_stream(s, 1)
    bufs = <PairVisit*>malloc(n_threads * _RUN_STRIDE * sizeof(PairVisit))
    if bufs == NULL:
        return 2
    if not stratified:
        BP = <int64_t*>malloc(shuffle_offsets_size(P) * sizeof(int64_t))
        if BP == NULL:
            free(bufs)
            return 2
        Kb = shuffle_buckets(P)
        ends = BP + (shuffle_chunks(P) - 1) * Kb     # after the scatter: bucket b ends at ends[b]
        with nogil:
            shuffle_indices(W, P, BP, s, n_threads, True)
            if n_threads == 1:
                _uniform_run(E, D, REC, W, ends, 0, Kb, s_shuffle, &cf, R, lr, bufs, fp, PIN, pin_value)
            else:
                # buckets handed out a few at a time, not in fixed halves: on a shared machine one
                # core is often slowed for a while, and the other then takes more of the work
                for b in prange(Kb, num_threads=n_threads, schedule="dynamic", chunksize=4):
                    if fp[0] == 0:
                        _shuffle_and_run(E, D, REC, W, 0 if b == 0 else ends[b - 1], ends[b],
                                         rng_stream(s_shuffle, <uint64_t>b), &cf, R, lr,
                                         bufs + threadid() * _RUN_STRIDE, fp, PIN, pin_value)
        free(BP)
        free(bufs)
        return flag
    BP = <int64_t*>malloc((B + K + 2) * sizeof(int64_t))
    if BP == NULL:
        free(bufs)
        return 2
    RP = BP + B + 1
    with nogil:
        if edge_blocks(REC, W, P, n, K, s, BP, RP, n_threads):
            flag = 2
        elif n_threads == 1:
            for b in range(B):
                _shuffle_and_run(E, D, REC, W, BP[b], BP[b + 1], rng_stream(s_shuffle, <uint64_t>b), &cf, R, lr,
                                 bufs, fp, PIN, pin_value)
                if flag:
                    break
        elif not barriers:
            # blocks of one round share no row, so without the barriers two threads write the same
            # row only at a round's boundary; a uniform order would have every thread write every
            # row, each write moving the row's cache lines from the core that wrote it last
            for b in prange(B, num_threads=n_threads, schedule="dynamic", chunksize=1):
                if fp[0] == 0:
                    _shuffle_and_run(E, D, REC, W, BP[b], BP[b + 1], rng_stream(s_shuffle, <uint64_t>b),
                                     &cf, R, lr, bufs + threadid() * _RUN_STRIDE, fp, PIN, pin_value)
        else:
            with parallel(num_threads=n_threads):
                for i in range(K):
                    for b in prange(RP[i], RP[i + 1], schedule="dynamic", chunksize=1):
                        if fp[0] == 0:
                            _shuffle_and_run(E, D, REC, W, BP[b], BP[b + 1], rng_stream(s_shuffle, <uint64_t>b),
                                             &cf, R, lr, bufs + threadid() * _RUN_STRIDE, fp, PIN, pin_value)
    free(BP)
    free(bufs)
    return flag


# --------------------------------------------------------------------- vertex order
cdef inline int _vertex_step(floating* emb, Py_ssize_t D, Py_ssize_t u,
                             const int64_t* pptr, const int32_t* pnbr, const double* pcoef, double pos_scale,
                             const int64_t* nptr, const int32_t* nnbr, double lam_neg, double lam_r,
                             double lr, floating* g) noexcept nogil:
    """x_u <- x_u - lr * dL/dx_u (Eq. 2) with the current neighbours; 1 on a non-finite score.
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
        axpy(<floating>(-(pcoef[j] if pcoef != NULL else pos_scale) * sigmoid(-s)), xv, g, D)
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


def tie_rows(floating[:, ::1] emb, Py_ssize_t n_source, Py_ssize_t n_free, double share, int n_threads=1):
    """Pull row ``u`` and row ``n_source + u`` together, for every ``u < n_source``, in place.

    On the first ``n_free`` coordinates, ``d = share (x - y) / 2``, ``x <- x - d``, ``y <- y + d``: the
    proximal step of a directed graph's tie (the mean kept, the difference shrunk by ``1 - share``).  Each
    pair of rows is its own work, so the result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t D = emb.shape[1], u, k
    if emb.shape[0] != 2 * n_source or not 0 <= n_free <= D:
        raise ValueError(f"tie_rows: need 2 * n_source rows and n_free <= {D}, got {emb.shape[0]} rows, "
                         f"n_source={n_source}, n_free={n_free}")
    if n_source == 0 or n_free == 0:
        return
    cdef floating* E = &emb[0, 0]
    cdef floating* x
    cdef floating* y
    cdef floating half = <floating>(0.5 * share)
    cdef floating d
    with nogil:
        for u in prange(n_source, num_threads=n_threads, schedule="static"):
            x = E + u * D
            y = E + (n_source + u) * D
            for k in range(n_free):
                d = (x[k] - y[k]) * half
                x[k] = x[k] - d
                y[k] = y[k] + d


def vertex_epoch(floating[:, ::1] emb, const int64_t[::1] pos_indptr, const int32_t[::1] pos_nbr,
                 const double[::1] pos_coef, const int64_t[::1] neg_indptr, const int32_t[::1] neg_nbr,
                 double lam_neg, double lam_r, floating[:, ::1] scratch, const int32_t[::1] order,
                 int32_t[::1] work_lvl, int64_t[::1] work_bptr, int32_t[::1] work_items,
                 double lr, int n_threads=1, bint deterministic=True, double pos_scale=1.0,
                 const double[::1] row_lam_r=None):
    """One vertex-order epoch (Eq. 2 steps) in place, visiting the vertices in ``order``
    (``permutation(n, seed, epoch)``).  Returns 0, or 1 on a non-finite score.

    ``scratch`` has a row of at least D entries per thread (rows a cache line wider than D keep each
    thread's gradient off the lines of the others); ``work_lvl``, ``work_items``: n entries; ``work_bptr``: n + 2.
    ``pos_coef``: the coefficient of each entry of the positive lists; empty: ``pos_scale`` for all.
    ``row_lam_r``: each vertex's own lambda_r (n entries; the two tables of a stacked table each have
    theirs), None: ``lam_r`` for all.
    """
    cdef Py_ssize_t n = emb.shape[0], D = emb.shape[1], k, L, lev = 0
    cdef int flag = 0
    cdef int* fp = &flag
    cdef floating* E = &emb[0, 0]
    cdef floating* S = &scratch[0, 0]
    cdef Py_ssize_t S_stride = scratch.shape[1]
    cdef const int64_t* pp = &pos_indptr[0]
    cdef const int64_t* npt = &neg_indptr[0]
    cdef const int32_t* pn = &pos_nbr[0] if pos_nbr.shape[0] else NULL
    cdef const int32_t* nn = &neg_nbr[0] if neg_nbr.shape[0] else NULL
    cdef const double* pc = &pos_coef[0] if pos_coef.shape[0] else NULL
    cdef const int32_t* O = &order[0]
    cdef int32_t* IT = &work_items[0]
    cdef int64_t* BP = &work_bptr[0]
    cdef const double* RL = NULL
    if n == 0:
        return 0
    if n_threads > scratch.shape[0] or scratch.shape[1] < D:
        raise ValueError(f"scratch must have at least n_threads = {n_threads} rows of at least D = {D} entries, "
                         f"got shape ({scratch.shape[0]}, {scratch.shape[1]})")
    if row_lam_r is not None:
        if row_lam_r.shape[0] != n:
            raise ValueError(f"row_lam_r must have one entry per row ({n}), got {row_lam_r.shape[0]}")
        RL = &row_lam_r[0]
    with nogil:
        if n_threads <= 1:
            for k in range(n):
                if _vertex_step(E, D, O[k], pp, pn, pc, pos_scale, npt, nn, lam_neg,
                                RL[O[k]] if RL != NULL else lam_r, lr, S):
                    flag = 1
                    break
        elif not deterministic:
            for k in prange(n, num_threads=n_threads, schedule="static"):
                if fp[0] == 0:
                    if _vertex_step(E, D, O[k], pp, pn, pc, pos_scale, npt, nn, lam_neg,
                                    RL[O[k]] if RL != NULL else lam_r, lr, S + threadid() * S_stride):
                        fp[0] = 1
        else:
            L = vertex_levels(O, n, pp, pn, npt, nn, &work_lvl[0], BP, IT)
            with parallel(num_threads=n_threads):
                for lev in range(1, L + 1):
                    for k in prange(BP[lev], BP[lev + 1], schedule="static"):
                        if fp[0] == 0:
                            if _vertex_step(E, D, IT[k], pp, pn, pc, pos_scale, npt, nn, lam_neg,
                                            RL[IT[k]] if RL != NULL else lam_r, lr, S + threadid() * S_stride):
                                fp[0] = 1
    return flag


# --------------------------------------------------------------------- diagnostics
