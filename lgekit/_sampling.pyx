# cython: language_level=3
"""Negative-pair sampling by rejection against a CSR adjacency: the kernel behind
:func:`lgekit.evaluation.sample_negative_pairs` (``sample_pairs``) and the SGD's training
negatives (``sample_negatives``); and the weighted edge sampler of ``weighting="sample"``
(``alias_table``, ``sample_alias``).

Each pair draws its two ends independently -- uniformly over the vertices, or
from a given cumulative distribution (the word2vec/LINE ``degree**0.75``
"unigram" law) -- and is rejected while it is a self-pair or an edge of the
pattern, tested by binary search in the sorted CSR row.  The caller (Python)
has already checked that enough mass lies on acceptable pairs, so the loop
terminates quickly; ``max_trials`` is a belt-and-braces cap that turns a
would-be hang into an error.

Randomness: SplitMix64 (``lgekit/_common.pxd``) seeded by the caller, so a
seed gives the same pairs on every platform: ``sample_pairs`` reads one stream
in order (its trials can be tested ahead of time and in parallel, because a
SplitMix64 state is a counter); ``sample_negatives`` gives each block of rows
its own stream, so that threads can fill blocks in any order.  Neither result
depends on the number of threads.
"""
import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport uint64_t, int32_t, int64_t
from libc.math cimport frexp, ldexp
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from lgekit._intrinsics cimport LGK_PREFETCH
from lgekit._common cimport rng_next, rng_stream, rng_uniform, rng_below
from lgekit._sampling cimport index_t, offset_t, csr_has_edge, csr_row_has, cdf_search_ptr


cdef enum:
    _BATCH = 64             # trials drawn, and their CSR rows prefetched, before they are tested
    _BLOCK_TRIALS = 16384   # trials of one block of the threaded sampler
    _WAVE_BLOCKS = 8        # blocks per thread in one parallel region of the threaded sampler


cdef int64_t _sample_trials(const index_t* indptr, const index_t* indices, int64_t n_nodes, uint64_t state,
                            int64_t n_trials, const double* cdf_u, const double* cdf_v, bint canonical,
                            int64_t* out, int32_t* trial_of, int64_t max_accept, int64_t* used) noexcept nogil:
    """Run ``n_trials`` trials from the stream position ``state`` (two draws a trial: u, then v), writing
    the accepted pairs to ``out`` (and, if ``trial_of`` is not NULL, the trial of each), and stopping
    early once ``max_accept`` are accepted.  Returns the number accepted; ``used[0]``: trials run.

    Draws are taken ``_BATCH`` trials ahead of the tests and the rows they will search are prefetched
    (first the row pointers, then the rows): the tests are memory-bound (two random rows a trial), and
    this way their loads overlap.  The trials, and hence the pairs, are exactly the sequential ones."""
    cdef int64_t cu[_BATCH]
    cdef int64_t cv[_BATCH]
    cdef int64_t done = 0, k = 0, nb, i, u, v, t
    used[0] = 0
    while done < n_trials and k < max_accept:
        nb = min(<int64_t>_BATCH, n_trials - done)
        for i in range(nb):
            if cdf_u != NULL:
                cu[i] = cdf_search_ptr(cdf_u, n_nodes, rng_uniform(&state))
            else:
                cu[i] = <int64_t>rng_below(&state, <uint64_t>n_nodes)
            if cdf_v != NULL:
                cv[i] = cdf_search_ptr(cdf_v, n_nodes, rng_uniform(&state))
            else:
                cv[i] = <int64_t>rng_below(&state, <uint64_t>n_nodes)
            LGK_PREFETCH(indptr + cu[i])
        for i in range(nb):
            LGK_PREFETCH(indices + indptr[cu[i]])
        for i in range(nb):
            u = cu[i]
            v = cv[i]
            if u == v or csr_row_has(indptr, indices, u, v):
                continue
            if canonical and u > v:
                t = u
                u = v
                v = t
            out[2 * k] = u
            out[2 * k + 1] = v
            if trial_of != NULL:
                trial_of[k] = <int32_t>(done + i)
            k += 1
            if k == max_accept:
                used[0] = done + i + 1
                return k
        done += nb
    used[0] = done
    return k


cdef inline uint64_t _advance(uint64_t state, uint64_t draws) noexcept nogil:
    """The SplitMix64 state ``draws`` draws later (its state is a counter: each draw adds the constant)."""
    return state + draws * <uint64_t>0x9E3779B97F4A7C15ULL


def sample_pairs(const index_t[::1] indptr, const index_t[::1] indices, int64_t n_nodes,
                 int64_t n_pairs, uint64_t seed, const double[::1] cdf_u=None,
                 const double[::1] cdf_v=None, bint canonical=False, int64_t max_trials=-1,
                 int n_threads=1):
    """Draw ``n_pairs`` pairs (u, v), u != v, (u, v) not in the CSR pattern.

    Parameters
    ----------
    indptr, indices : CSR pattern (rows sorted); pairs stored there are rejected.
    n_nodes : number of vertices (< 2**32 for the uniform draw).
    n_pairs : number of pairs to return.
    seed : SplitMix64 seed.
    cdf_u, cdf_v : cumulative distributions of the two ends (length n_nodes,
        last entry 1.0), or None for uniform.
    canonical : return (min, max) -- for undirected graphs.
    max_trials : cap on the number of draws (-1: no cap).
    n_threads : threads testing blocks of trials at once; the result does not depend on it.

    Returns
    -------
    pairs : int64 ndarray (n_pairs, 2)
    n_trials : number of draws used, or -1 if ``max_trials`` was hit

    Notes
    -----
    Trial j (0-based) takes draws 2j and 2j + 1 of the stream ``rng_stream(seed, 0)`` and the pairs
    are the accepted trials in order, so the trials are known before they are tested: the sampler
    draws them ahead and prefetches the rows it will search, and with ``n_threads > 1`` the threads
    test blocks of ``_BLOCK_TRIALS`` trials, each from its position in the stream (SplitMix64's state
    is a counter), the blocks' accepted pairs then joined in trial order: the same pairs, trial count
    and failure as one thread.
    """
    out_arr = np.empty((n_pairs, 2), dtype=np.int64)
    cdef int64_t[:, ::1] out = out_arr
    cdef uint64_t state = rng_stream(seed, 0)
    cdef int64_t k = 0, trials = 0, nb, used = 0, take, b, T, W, left
    cdef bint capped = max_trials >= 0
    cdef bint failed = False
    cdef const double* pu = &cdf_u[0] if cdf_u is not None else NULL
    cdef const double* pv = &cdf_v[0] if cdf_v is not None else NULL
    cdef const index_t* ip = &indptr[0]
    cdef const index_t* ix = &indices[0] if indices.shape[0] else NULL
    cdef int64_t* buf = NULL
    cdef int32_t* pos = NULL
    cdef int64_t* acc = NULL
    cdef int64_t* usedb = NULL
    if n_pairs <= 0:
        return out_arr, 0
    if n_nodes < 1:
        raise ValueError("sample_pairs: n_nodes must be >= 1")
    T = n_threads if n_threads > 1 else 1
    W = T * _WAVE_BLOCKS if T > 1 else 1
    if T > 1:
        buf = <int64_t*>malloc(W * _BLOCK_TRIALS * 2 * sizeof(int64_t))
        pos = <int32_t*>malloc(W * _BLOCK_TRIALS * sizeof(int32_t))
        acc = <int64_t*>malloc(2 * W * sizeof(int64_t))
        if buf == NULL or pos == NULL or acc == NULL:
            free(buf)
            free(pos)
            free(acc)
            raise MemoryError()
        usedb = acc + W
    with nogil:
        if T == 1:
            while k < n_pairs:
                if capped and trials >= max_trials:
                    failed = True
                    break
                nb = _BLOCK_TRIALS if not capped else min(<int64_t>_BLOCK_TRIALS, max_trials - trials)
                k += _sample_trials(ip, ix, n_nodes, _advance(state, 2 * trials), nb, pu, pv, canonical,
                                    &out[0, 0] + 2 * k, NULL, n_pairs - k, &used)
                trials += used
        else:
            while k < n_pairs and not failed:
                # a wave of W blocks (several per thread, so that a parallel region does enough work to
                # pay for waking the threads): block b tests trials [trials + b B, trials + (b + 1) B),
                # within the cap
                for b in prange(W, num_threads=T, schedule="dynamic", chunksize=1):
                    left = _BLOCK_TRIALS
                    if capped:
                        left = min(left, max(<int64_t>0, max_trials - trials - b * _BLOCK_TRIALS))
                    acc[b] = _sample_trials(ip, ix, n_nodes, _advance(state, 2 * (trials + b * _BLOCK_TRIALS)),
                                            left, pu, pv, canonical, buf + b * _BLOCK_TRIALS * 2,
                                            pos + b * _BLOCK_TRIALS, n_pairs, usedb + b)
                for b in range(W):
                    take = min(acc[b], n_pairs - k)
                    memcpy(&out[0, 0] + 2 * k, buf + b * _BLOCK_TRIALS * 2, take * 2 * sizeof(int64_t))
                    k += take
                    if k == n_pairs:
                        trials += b * _BLOCK_TRIALS + pos[b * _BLOCK_TRIALS + take - 1] + 1
                        break
                    if usedb[b] < _BLOCK_TRIALS:       # the cap ended this block: nothing after it counts
                        trials += b * _BLOCK_TRIALS + usedb[b]
                        failed = True
                        break
                else:
                    trials += W * _BLOCK_TRIALS
                if not failed and k < n_pairs and capped and trials >= max_trials:
                    failed = True
    if T > 1:
        free(buf)
        free(pos)
        free(acc)
    return out_arr, (-1 if failed else trials)


def pairs_in_pattern(const index_t[::1] indptr, const index_t[::1] indices,
                     const int64_t[:, ::1] pairs):
    """Boolean mask: is each pair (u, v) stored in the CSR pattern?  (Indices
    must already be checked to lie in range.)"""
    cdef Py_ssize_t k, n = pairs.shape[0]
    mask_arr = np.zeros(n, dtype=np.bool_)
    cdef unsigned char[::1] mask = mask_arr.view(np.uint8)
    with nogil:
        for k in range(n):
            mask[k] = csr_has_edge(indptr, indices, pairs[k, 0], pairs[k, 1])
    return mask_arr


cdef enum:
    _NEG_BLOCK = 16384      # rows of ``sample_negatives`` drawn from one stream
    _ALIAS_BLOCK = 65536    # draws of ``sample_alias`` from one stream
    _MAX_TRIES = 100000     # draws for one pair before giving up (a nearly complete graph)


def sample_negatives(int32_t[:, ::1] out, const int64_t[::1] indptr, const int32_t[::1] indices,
                     uint64_t seed, Py_ssize_t epoch, int n_threads=1, int32_t n_source=0,
                     bint skip_diagonal=False):
    """Fill ``out`` with uniform non-edge pairs (u, v) of one table, or of the two tables of a stacked one.

    One table (``n_source == 0``): u and v uniform over the n rows; a pair is rejected when u == v or
    when (u, v) or (v, u) is stored in the CSR.  Two tables (``n_source > 0``, the stacked table of a
    directed or bipartite graph, :class:`lgekit.models.TableLayout`): u uniform over the source rows
    ``0..n_source-1``, then v uniform over the target rows ``n_source..n-1``; rejected when (u, v) is
    stored in the CSR (the positives, source row -> target rows) or, with ``skip_diagonal`` (a directed
    graph, whose node u is row u and row n_source + u), when v == n_source + u.  Either way each trial
    takes two draws, u then v.

    Block ``b`` of ``_NEG_BLOCK`` rows uses the stream ``rng_stream(rng_stream(seed, 2 epoch + 1), b)``
    (the SGD's negative-resampling stream of epoch ``epoch``), so the result does not depend on
    ``n_threads``.  Returns 0, or 1 when some pair needed more than ``_MAX_TRIES`` draws.
    """
    cdef Py_ssize_t k = out.shape[0]
    cdef int32_t n = <int32_t>(indptr.shape[0] - 1)
    cdef Py_ssize_t n_blocks = (k + _NEG_BLOCK - 1) // _NEG_BLOCK
    cdef uint64_t base = rng_stream(seed, <uint64_t>(2 * epoch + 1))
    cdef Py_ssize_t b
    cdef int failed = 0
    cdef int* fp = &failed
    if n_source < 0 or n_source >= max(n, 1):
        raise ValueError(f"sample_negatives: n_source must be 0 (one table) or in [1, {n}), got {n_source}")
    if k == 0:
        return 0
    if n < 2:
        return 1
    with nogil:
        for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic"):
            if _fill_negative_block(out, b, n, indptr, indices, rng_stream(base, <uint64_t>b), n_source,
                                    skip_diagonal):
                fp[0] = 1
    return failed


cdef int _fill_negative_block(int32_t[:, ::1] out, Py_ssize_t b, int32_t n, const int64_t[::1] indptr,
                              const int32_t[::1] indices, uint64_t state, int32_t n_source,
                              bint skip_diagonal) noexcept nogil:
    cdef Py_ssize_t r, stop = min((b + 1) * _NEG_BLOCK, out.shape[0])
    cdef int32_t u, v
    cdef Py_ssize_t tries
    for r in range(b * _NEG_BLOCK, stop):
        tries = 0
        while True:
            if n_source == 0:
                u = <int32_t>rng_below(&state, <uint64_t>n)
                v = <int32_t>rng_below(&state, <uint64_t>n)
                if u != v and not csr_has_edge(indptr, indices, u, v) and not csr_has_edge(indptr, indices, v, u):
                    break
            else:
                u = <int32_t>rng_below(&state, <uint64_t>n_source)
                v = n_source + <int32_t>rng_below(&state, <uint64_t>(n - n_source))
                if not (skip_diagonal and v - n_source == u) and not csr_has_edge(indptr, indices, u, v):
                    break
            tries += 1
            if tries > _MAX_TRIES:
                return 1
        out[r, 0] = u
        out[r, 1] = v
    return 0


# --------------------------------------------------------------------- weighted edge sampling
def alias_table(const double[::1] weights, double[::1] prob, int32_t[::1] alias):
    """Walker's alias table for drawing index i with probability ``weights[i] / sum(weights)``.

    Vose's construction (M. D. Vose, "A linear algorithm for generating random numbers with a given
    distribution", IEEE TSE 1991): scale the weights to mean 1, then pair every column below 1 with one
    above it, which gives its excess to fill the short column up to 1.  A draw is then one uniform column
    ``i`` and one coin: ``i`` if the coin is below ``prob[i]``, else ``alias[i]`` (LINE's edge sampler,
    Tang et al. 2015).  O(m) to build, O(1) a draw.  The caller has checked that the weights are finite,
    non-negative and not all zero, and that m < 2**31.

    The weights are first divided by the power of two just above their maximum (an exact scaling), so
    that their sum cannot overflow however large they are (``[1e308, 1e308, 1, 1]`` draws 1/2, 1/2, as
    ``[1, 1, 1e-308, 1e-308]`` does) and the table does not depend on a common factor of the weights;
    for weights whose sum is finite the table is the same, bit for bit, as without the scaling.
    """
    cdef Py_ssize_t m = weights.shape[0], i, n_small = 0, n_large = 0, s, l
    cdef double total = 0.0, largest = 0.0
    cdef int exponent = 0
    cdef int32_t* small
    cdef int32_t* large
    if prob.shape[0] != m or alias.shape[0] != m:
        raise ValueError(f"alias_table: prob and alias must have {m} entries")
    if m == 0:
        return
    for i in range(m):
        if weights[i] > largest:
            largest = weights[i]
    frexp(largest, &exponent)        # largest = f * 2**exponent, f in [0.5, 1): the weights / 2**exponent are <= 1
    for i in range(m):
        total += ldexp(weights[i], -exponent)
    small = <int32_t*>malloc(m * sizeof(int32_t))
    large = <int32_t*>malloc(m * sizeof(int32_t))
    if small == NULL or large == NULL:
        free(small)
        free(large)
        raise MemoryError(f"alias_table: {m} entries")
    with nogil:
        for i in range(m):
            prob[i] = ldexp(weights[i], -exponent) * m / total
            alias[i] = <int32_t>i
            if prob[i] < 1.0:
                small[n_small] = <int32_t>i
                n_small += 1
            else:
                large[n_large] = <int32_t>i
                n_large += 1
        while n_small and n_large:
            n_small -= 1
            s = small[n_small]
            l = large[n_large - 1]
            alias[s] = <int32_t>l
            prob[l] -= 1.0 - prob[s]
            if prob[l] < 1.0:
                n_large -= 1
                small[n_small] = <int32_t>l
                n_small += 1
        # what is left is 1 up to rounding: those columns never use their alias
        while n_large:
            n_large -= 1
            prob[large[n_large]] = 1.0
        while n_small:
            n_small -= 1
            prob[small[n_small]] = 1.0
    free(small)
    free(large)


cdef inline int32_t _alias_draw(uint64_t* state, const double* prob, const int32_t* alias, uint64_t m) noexcept nogil:
    """One draw from the alias table: a uniform column, then a coin against its ``prob``."""
    cdef int64_t i = <int64_t>rng_below(state, m)
    return <int32_t>i if rng_uniform(state) < prob[i] else alias[i]


def sample_alias(int32_t[::1] out, const double[::1] prob, const int32_t[::1] alias, uint64_t seed, uint64_t k,
                 int n_threads=1, const int32_t[:, ::1] rows=None, int32_t[:, ::1] out_rows=None):
    """Fill ``out`` with independent draws from the alias table (``alias_table``), on ``n_threads``.

    Block ``b`` of ``_ALIAS_BLOCK`` draws reads the SplitMix64 stream ``rng_stream(rng_stream(seed, k), b)``
    in order (two numbers a draw: the column, then the coin), so the draws do not depend on
    ``n_threads``.  With ``rows`` and ``out_rows`` (an edge list and an array of ``len(out)`` rows),
    also ``out_rows[j] = rows[out[j]]``: an epoch's drawn edges, gathered by the threads that drew them.
    """
    cdef Py_ssize_t j, b, m = prob.shape[0], k_out = out.shape[0]
    cdef Py_ssize_t n_blocks = (k_out + _ALIAS_BLOCK - 1) // _ALIAS_BLOCK
    cdef uint64_t base = rng_stream(seed, k), state
    cdef bint gather = rows is not None
    cdef int32_t pick
    if alias.shape[0] != m:
        raise ValueError("sample_alias: prob and alias differ in length")
    if k_out and m == 0:
        raise ValueError("sample_alias: the table is empty")
    if gather and (out_rows is None or out_rows.shape[0] != k_out or rows.shape[0] != m
                   or out_rows.shape[1] != rows.shape[1]):
        raise ValueError("sample_alias: rows needs one row per table entry and out_rows one row per draw, "
                         "of the same width")
    if k_out == 0:
        return
    with nogil:
        for b in prange(n_blocks, num_threads=max(n_threads, 1), schedule="static"):
            state = rng_stream(base, <uint64_t>b)
            for j in range(b * _ALIAS_BLOCK, min((b + 1) * _ALIAS_BLOCK, k_out)):
                out[j] = _alias_draw(&state, &prob[0], &alias[0], <uint64_t>m)
            if gather:
                # a second loop: its loads are independent of one another, so their cache misses overlap,
                # where inside the draw loop each would wait behind the draw's own misses
                for j in range(b * _ALIAS_BLOCK, min((b + 1) * _ALIAS_BLOCK, k_out)):
                    pick = out[j]
                    out_rows[j, 0] = rows[pick, 0]
                    out_rows[j, 1] = rows[pick, 1]
