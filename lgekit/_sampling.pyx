# cython: language_level=3
"""Negative-pair sampling by rejection against a CSR adjacency: the kernel behind
:func:`lgekit.evaluation.sample_negative_pairs` (``sample_pairs``) and the SGD's training
negatives (``sample_negatives``).

Each pair draws its two ends independently -- uniformly over the vertices, or
from a given cumulative distribution (the word2vec/LINE ``degree**0.75``
"unigram" law) -- and is rejected while it is a self-pair or an edge of the
pattern, tested by binary search in the sorted CSR row.  The caller (Python)
has already checked that enough mass lies on acceptable pairs, so the loop
terminates quickly; ``max_trials`` is a belt-and-braces cap that turns a
would-be hang into an error.

Randomness: SplitMix64 (``lgekit/_common.pxd``) seeded by the caller, so a
seed gives the same pairs on every platform: ``sample_pairs`` advances one
state sequentially; ``sample_negatives`` gives each block of rows its own
stream, so that threads can fill blocks in any order.
"""
import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport uint64_t, int32_t, int64_t
from lgekit._common cimport rng_next, rng_stream, rng_uniform, rng_below
from lgekit._sampling cimport index_t, offset_t, csr_has_edge, cdf_search


def sample_pairs(const index_t[::1] indptr, const index_t[::1] indices, int64_t n_nodes,
                 int64_t n_pairs, uint64_t seed, const double[::1] cdf_u=None,
                 const double[::1] cdf_v=None, bint canonical=False, int64_t max_trials=-1):
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

    Returns
    -------
    pairs : int64 ndarray (n_pairs, 2)
    n_trials : number of draws used, or -1 if ``max_trials`` was hit
    """
    out_arr = np.empty((n_pairs, 2), dtype=np.int64)
    cdef int64_t[:, ::1] out = out_arr
    cdef uint64_t state = rng_stream(seed, 0)
    cdef int64_t k = 0, trials = 0, u, v, t
    cdef bint use_cdf_u = cdf_u is not None
    cdef bint use_cdf_v = cdf_v is not None
    cdef bint capped = max_trials >= 0
    cdef bint failed = False
    with nogil:
        while k < n_pairs:
            if capped and trials >= max_trials:
                failed = True
                break
            trials += 1
            if use_cdf_u:
                u = cdf_search(cdf_u, rng_uniform(&state))
            else:
                u = <int64_t>rng_below(&state, <uint64_t>n_nodes)
            if use_cdf_v:
                v = cdf_search(cdf_v, rng_uniform(&state))
            else:
                v = <int64_t>rng_below(&state, <uint64_t>n_nodes)
            if u == v or csr_has_edge(indptr, indices, u, v):
                continue
            if canonical and u > v:
                t = u
                u = v
                v = t
            out[k, 0] = u
            out[k, 1] = v
            k += 1
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
    _MAX_TRIES = 100000     # draws for one pair before giving up (a nearly complete graph)


def sample_negatives(int32_t[:, ::1] out, const int64_t[::1] indptr, const int32_t[::1] indices,
                     uint64_t seed, Py_ssize_t epoch, int n_threads=1):
    """Fill ``out`` with uniform pairs (u, v): u != v and neither (u, v) nor (v, u) an arc of the CSR.

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
    if k == 0:
        return 0
    if n < 2:
        return 1
    with nogil:
        for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic"):
            if _fill_negative_block(out, b, n, indptr, indices, rng_stream(base, <uint64_t>b)):
                fp[0] = 1
    return failed


cdef int _fill_negative_block(int32_t[:, ::1] out, Py_ssize_t b, int32_t n, const int64_t[::1] indptr,
                              const int32_t[::1] indices, uint64_t state) noexcept nogil:
    cdef Py_ssize_t r, stop = min((b + 1) * _NEG_BLOCK, out.shape[0])
    cdef int32_t u, v
    cdef Py_ssize_t tries
    for r in range(b * _NEG_BLOCK, stop):
        tries = 0
        while True:
            u = <int32_t>rng_below(&state, <uint64_t>n)
            v = <int32_t>rng_below(&state, <uint64_t>n)
            if u != v and not csr_has_edge(indptr, indices, u, v) and not csr_has_edge(indptr, indices, v, u):
                break
            tries += 1
            if tries > _MAX_TRIES:
                return 1
        out[r, 0] = u
        out[r, 1] = v
    return 0
