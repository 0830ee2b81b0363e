# cython: language_level=3
"""Contract of the visiting orders (see _schedules.pyx): the in-cache shuffle,
and the schedules the SGD and DCD kernels run their updates in.  An order is a sequence of int32
record indices: the records stay where they are, and a kernel reads them through the order."""
from libc.stdint cimport int32_t, int64_t, uint64_t

from lgekit._common cimport EpochStatus, rng_below, rng_below2
from lgekit.models._incidence cimport Incidence, PairRec


cdef enum Schedule:
    # How an epoch's updates are spread over the threads (the solvers' ``schedule``; ``SCHEDULES`` of
    # _schedules.pyx names them in this order, and ``schedule_code`` reads a name).
    SCHEDULE_HOGWILD = 0        # a uniform order; threads update shared rows without locks (Recht et al. 2011)
    SCHEDULE_DETERMINISTIC = 1  # rounds of independent work with a barrier after each: the same bits on any threads
    SCHEDULE_BLOCKS = 2         # the deterministic order's blocks without its barriers (the SGD edge order)


cdef enum:
    SHUFFLE_CHUNK = 65536     # indices per phase-1/2 chunk of shuffle_indices (one RNG stream each)
    SHUFFLE_BUCKET = 2048     # mean bucket size (phase 3 shuffles a bucket in cache)


cdef inline Py_ssize_t shuffle_chunks(Py_ssize_t P) noexcept nogil:
    return (P + SHUFFLE_CHUNK - 1) // SHUFFLE_CHUNK


cdef inline Py_ssize_t shuffle_buckets(Py_ssize_t P) noexcept nogil:
    return (P + SHUFFLE_BUCKET - 1) // SHUFFLE_BUCKET


cdef inline Py_ssize_t shuffle_offsets_size(Py_ssize_t P) noexcept nogil:
    """Length of the int64 ``off`` work array of ``shuffle_indices`` for P indices: the C * K
    counters of the chunks and buckets, and K + 1 for their scan."""
    return shuffle_chunks(P) * shuffle_buckets(P) + shuffle_buckets(P) + 1


cdef inline void fisher_yates(int32_t* a, Py_ssize_t n, uint64_t state) noexcept nogil:
    """Shuffle a[0:n] in place, uniformly, with the stream ``state``: Fisher-Yates run forwards
    (step i swaps a[i] with a uniform a[j], j <= i), so that a[i] is read in address order, which
    the hardware prefetcher follows, and the random a[j] fall in the part already read, which is in
    cache.  (Durstenfeld's backward loop draws j from the part not yet read: a cache miss a step
    when ``a`` was just written elsewhere, as the buckets of ``shuffle_indices`` are.)"""
    cdef Py_ssize_t i = 1
    cdef uint64_t j0, j1
    cdef int32_t tmp
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



cdef int schedule_code(object name, str argument) except -1
cdef void shuffle_indices(int32_t* dst, Py_ssize_t P, int64_t* off, uint64_t seed, int n_threads,
                          bint scatter_only=*) noexcept nogil
cdef Py_ssize_t group_count(Py_ssize_t n, Py_ssize_t P, Py_ssize_t D) noexcept nogil
cdef EpochStatus edge_blocks(const PairRec* records, int32_t* dst, Py_ssize_t P, Py_ssize_t n, Py_ssize_t K,
                             uint64_t seed, int64_t* bptr, int64_t* round_ptr, int n_threads) noexcept nogil
cdef Py_ssize_t vertex_levels(const int32_t* order, Py_ssize_t n, const Incidence* lists, int32_t* level,
                              int64_t* level_ptr, int32_t* items) noexcept nogil
