# cython: language_level=3
"""The training pairs as the kernels store them: 8-byte pair records, their per-vertex counts, and the
symmetric incidence lists (every vertex's partners) built from them.

* **Records** (``fill_pair_records``): one ``PairRec`` (two int32 ends) a training pair, the positives
  first; a record's coefficient follows from its index (see ``fill_pair_records``).
* **Counts** (``pair_counts``): how many records each vertex is an end of (the regulariser's split).
* **Incidence lists** (``record_incidence``, ``build_incidence``; ``owned_incidence``, the rows of some
  vertices alone): for every vertex its partners, the layout the vertex order and the diagnostics read.

A kernel takes the records of an epoch as one :data:`PairRecords` and the incidence lists as one
:data:`IncidenceLists`, each a bundle of arrays and the coefficients that go with them, which it reads
into a C struct (``PairSet``, ``Incidence`` of ``_incidence.pxd``) once at its start: the group travels
as one argument through the kernels' helpers, as gensim's config struct does.
"""
from collections import namedtuple

import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.stdlib cimport malloc, free

from lgekit._intrinsics cimport LGK_PREFETCHW


PAIR_RECORD_DTYPE = np.dtype([("u", np.int32), ("v", np.int32)])

PairRecords = namedtuple("PairRecords", ["records", "n_pos", "pos_coef", "lam_pos", "lam_neg"])
PairRecords.__doc__ = """The training pairs of an edge-order epoch, as ``_sgd.edge_epoch`` reads them.

``records`` holds the P pair records (``PAIR_RECORD_DTYPE``), the ``n_pos`` positives first.  Record p's
coefficient is ``pos_coef[p]`` for a positive (``lam_pos`` for every positive when ``pos_coef`` is None or
empty) and ``lam_neg`` for a negative, whose loss takes the opposite sign of its score."""

IncidenceLists = namedtuple("IncidenceLists", ["pos_indptr", "pos_nbr", "pos_coef", "neg_indptr", "neg_nbr",
                                               "pos_scale", "lam_neg"])
IncidenceLists.__doc__ = """Every vertex's partners, as the vertex order and the diagnostics read them.

Vertex u's positive partners are ``pos_nbr[pos_indptr[u]:pos_indptr[u + 1]]`` (int64 pointers, int32
partners), each with the coefficient ``pos_coef`` of the same entry (``pos_scale`` for every one when
``pos_coef`` is empty); its negative partners ``neg_nbr[neg_indptr[u]:neg_indptr[u + 1]]``, each with the
coefficient ``lam_neg``.  A pair is listed at both of its ends (``record_incidence`` builds the lists)."""


cdef int read_pairs(object pairs, PairSet* out) except -1:
    """Fill ``out`` from a :data:`PairRecords`, checked: ``n_pos`` within the records, one ``pos_coef`` per
    positive.  The struct points into ``pairs``' arrays."""
    cdef const PairRec[::1] records = pairs.records
    cdef const double[::1] pos_coef
    cdef Py_ssize_t n_pairs = records.shape[0], n_pos = pairs.n_pos
    if not 0 <= n_pos <= n_pairs:
        raise ValueError(f"pairs: n_pos must be in [0, {n_pairs}] (the records), got {n_pos}")
    out.records = &records[0] if n_pairs > 0 else NULL
    out.n_pairs = n_pairs
    out.n_pos = n_pos
    out.pos_coef = NULL
    if pairs.pos_coef is not None and len(pairs.pos_coef) > 0:
        pos_coef = pairs.pos_coef
        if pos_coef.shape[0] != n_pos:
            raise ValueError(f"pairs: pos_coef has {pos_coef.shape[0]} entries for {n_pos} positives")
        out.pos_coef = &pos_coef[0]
    out.lam_pos = pairs.lam_pos
    out.lam_neg = pairs.lam_neg
    return 0


cdef int read_incidence(object lists, Py_ssize_t n_vertices, Incidence* out) except -1:
    """Fill ``out`` from an :data:`IncidenceLists` of ``n_vertices`` rows, checked: both pointer arrays have
    ``n_vertices + 1`` entries ending within their partner lists, and ``pos_coef`` is empty or one per
    positive entry.  The struct points into ``lists``' arrays."""
    cdef const int64_t[::1] pos_indptr = lists.pos_indptr
    cdef const int64_t[::1] neg_indptr = lists.neg_indptr
    cdef const int32_t[::1] pos_nbr = lists.pos_nbr
    cdef const int32_t[::1] neg_nbr = lists.neg_nbr
    cdef const double[::1] pos_coef = lists.pos_coef
    if pos_indptr.shape[0] != n_vertices + 1 or neg_indptr.shape[0] != n_vertices + 1:
        raise ValueError(f"lists: pos_indptr and neg_indptr need n + 1 = {n_vertices + 1} entries, got "
                         f"{pos_indptr.shape[0]} and {neg_indptr.shape[0]}")
    if not (0 <= pos_indptr[n_vertices] <= pos_nbr.shape[0] and 0 <= neg_indptr[n_vertices] <= neg_nbr.shape[0]):
        raise ValueError(f"lists: the pointers end at {pos_indptr[n_vertices]} and {neg_indptr[n_vertices]}, beyond "
                         f"the {pos_nbr.shape[0]} positive and {neg_nbr.shape[0]} negative partners")
    if pos_coef.shape[0] not in (0, pos_nbr.shape[0]):
        raise ValueError(f"lists: pos_coef needs one entry per positive partner ({pos_nbr.shape[0]}) or none, "
                         f"got {pos_coef.shape[0]}")
    out.n_vertices = n_vertices
    out.pos_ptr = &pos_indptr[0]
    out.pos_nbr = &pos_nbr[0] if pos_nbr.shape[0] else NULL
    out.pos_coef = &pos_coef[0] if pos_coef.shape[0] else NULL
    out.pos_scale = lists.pos_scale
    out.neg_ptr = &neg_indptr[0]
    out.neg_nbr = &neg_nbr[0] if neg_nbr.shape[0] else NULL
    out.lam_neg = lists.lam_neg
    return 0


ctypedef fused pair_index_t:
    int32_t
    int64_t



def fill_pair_records(PairRec[::1] out, Py_ssize_t start, const pair_index_t[:, ::1] pairs, double scale,
                      const double[::1] weights=None, bint negative=False):
    """out[start + i] <- pairs[i] (int32 or int64 pairs, without an int32 copy); returns the pairs'
    coefficients c_i = scale * weights[i] (float64, the bits NumPy's ``scale * weights`` gives), or None
    without ``weights`` (every c_i is then ``scale``).  ``negative``: the pairs are negatives (their
    coefficient enters the loss with the opposite sign).

    A record holds the pair only (8 bytes): the kernels take a pair's coefficient from its position,
    ``lam_pos`` or the returned array for the positives (positions < n_pos), ``-lam_neg`` for the
    negatives, so a caller that writes positives with a ``scale`` (and no weights) states that their
    coefficient is that scale.  The caller has checked the indices (0 <= index < 2**31)."""
    cdef Py_ssize_t i, k = pairs.shape[0]
    cdef bint weighted = weights is not None
    if start < 0 or start + k > out.shape[0]:
        raise ValueError(f"fill_pair_records: {k} pairs from position {start} do not fit {out.shape[0]} records")
    if weighted and weights.shape[0] != k:
        raise ValueError(f"fill_pair_records: {weights.shape[0]} weights for {k} pairs")
    with nogil:
        for i in range(k):
            out[start + i].u = <int32_t>pairs[i, 0]
            out[start + i].v = <int32_t>pairs[i, 1]
    if not weighted:
        return None
    coef = np.empty(k)
    cdef double[::1] c = coef
    with nogil:
        for i in range(k):
            c[i] = scale * weights[i]
    return -coef if negative else coef

cdef enum:
    _SCATTER_AHEAD = 16         # pairs between prefetching a vertex's counter and using it
    _SCATTER_MIN_PAIRS = 65536  # fewer pairs than this per thread: fewer threads


cdef inline Py_ssize_t _scatter_threads(Py_ssize_t k, int n_threads) noexcept nogil:
    cdef Py_ssize_t T = n_threads if n_threads > 1 else 1
    if T > 1 and k // T < _SCATTER_MIN_PAIRS:
        T = max(1, k // _SCATTER_MIN_PAIRS)
    return T


cdef inline void _count_ends(const PairRec* records, Py_ssize_t lo, Py_ssize_t hi, int64_t* row) noexcept nogil:
    """row[x] += 1 for each end x of records[lo:hi], the counters prefetched a few records ahead so that
    the random increments overlap instead of waiting on memory one at a time."""
    cdef Py_ssize_t p
    for p in range(lo, hi):
        if p + _SCATTER_AHEAD < hi:
            LGK_PREFETCHW(row + records[p + _SCATTER_AHEAD].u)
            LGK_PREFETCHW(row + records[p + _SCATTER_AHEAD].v)
        row[records[p].u] += 1
        row[records[p].v] += 1


def pair_counts(const PairRec[::1] records, Py_ssize_t start, Py_ssize_t stop, int64_t[::1] counts,
                int n_threads=1):
    """counts[x] += the number of records in records[start:stop] with x as an end (a self-pair counts
    twice, as ``np.bincount(pairs.ravel())`` counts it).  Threads count contiguous slices into rows of
    their own and the rows are summed: the result does not depend on ``n_threads``."""
    cdef Py_ssize_t n = counts.shape[0], k = stop - start, T, t, p, lo, hi, x
    cdef int64_t* rows
    cdef int64_t* row
    if start < 0 or stop > records.shape[0] or k < 0:
        raise ValueError(f"pair_counts: the range [{start}, {stop}) is not within {records.shape[0]} records")
    if k == 0:
        return
    T = _scatter_threads(k, n_threads)
    rows = <int64_t*>malloc(T * n * sizeof(int64_t)) if T > 1 else &counts[0]
    if rows == NULL:
        raise MemoryError()
    with nogil:
        for t in prange(T, num_threads=T, schedule="static", chunksize=1):
            row = rows + t * n
            if T > 1:
                for x in range(n):
                    row[x] = 0
            lo = start + (k * t) // T
            hi = start + (k * (t + 1)) // T
            _count_ends(&records[0], lo, hi, row)
        if T > 1:
            for x in prange(n, num_threads=T, schedule="static"):
                for t in range(T):
                    counts[x] += rows[t * n + x]
    if T > 1:
        free(rows)


def record_incidence(const PairRec[::1] records, Py_ssize_t start, Py_ssize_t stop, int64_t[::1] indptr,
                     int32_t[::1] nbr, double[::1] coef=None, int n_threads=1, const double[::1] pair_coef=None):
    """Symmetric incidence lists of the records[start:stop], by counting sort, stable in the record index.

    Row x lists, for every record p = (x, y) or (y, x), the partner y (``nbr``) and, with ``coef``, the
    record's coefficient ``pair_coef[p - start]``, in increasing p: the lists ``build_incidence`` makes of
    the same pairs (with ``pair_coef[src]``), the layout the vertex order and the diagnostics read.
    ``indptr``: n + 1 int64 (n vertices); ``nbr`` (and ``coef``): 2 (stop - start) entries; ``pair_coef``
    (needed with ``coef``): stop - start entries.

    Threads count and place contiguous slices of the records, each in its own per-vertex counters
    (n int64 a thread), thread t's entries of a row after those of threads < t: the result does not
    depend on ``n_threads``.  The scatter prefetches the counters and the target entries a few
    records ahead, so that the random writes overlap instead of waiting on memory one at a time."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = stop - start, T, t, p, lo, hi, x, q
    cdef bint with_coef = coef is not None
    cdef const double* pc = NULL
    cdef int64_t* cnt
    cdef int64_t* row
    cdef int64_t total = 0, c
    cdef int32_t u, v
    if n < 0:
        raise ValueError("record_incidence: indptr must have n + 1 >= 1 entries")
    if start < 0 or stop > records.shape[0] or k < 0:
        raise ValueError(f"record_incidence: the range [{start}, {stop}) is not within {records.shape[0]} records")
    if nbr.shape[0] < 2 * k or (with_coef and coef.shape[0] < 2 * k):
        raise ValueError(f"record_incidence: nbr (and coef) need {2 * k} entries")
    if with_coef:
        if pair_coef is None or pair_coef.shape[0] != k:
            raise ValueError(f"record_incidence: coef needs pair_coef, the {k} records' coefficients")
        if k:
            pc = &pair_coef[0] - start     # pc[p]: the coefficient of record p
    T = _scatter_threads(k, n_threads)
    cnt = <int64_t*>malloc(T * (n + 1) * sizeof(int64_t))
    if cnt == NULL:
        raise MemoryError()
    with nogil:
        for t in prange(T, num_threads=T, schedule="static", chunksize=1):
            row = cnt + t * (n + 1)
            for x in range(n + 1):
                row[x] = 0
            lo = start + (k * t) // T
            hi = start + (k * (t + 1)) // T
            _count_ends(&records[0], lo, hi, row)
        # row x of thread t starts after rows < x of every thread and row x of threads < t
        for x in range(n):
            indptr[x] = total
            for t in range(T):
                c = cnt[t * (n + 1) + x]
                cnt[t * (n + 1) + x] = total
                total += c
        indptr[n] = total
        for t in prange(T, num_threads=T, schedule="static", chunksize=1):
            row = cnt + t * (n + 1)
            lo = start + (k * t) // T
            hi = start + (k * (t + 1)) // T
            for p in range(lo, hi):
                q = p + _SCATTER_AHEAD
                if q < hi:
                    # the counters were read recently (the count pass): the targets are the misses
                    LGK_PREFETCHW(&nbr[0] + row[records[q].u])
                    LGK_PREFETCHW(&nbr[0] + row[records[q].v])
                    if with_coef:
                        LGK_PREFETCHW(&coef[0] + row[records[q].u])
                        LGK_PREFETCHW(&coef[0] + row[records[q].v])
                u = records[p].u
                v = records[p].v
                nbr[row[u]] = v
                if with_coef:
                    coef[row[u]] = pc[p]
                row[u] += 1
                nbr[row[v]] = u
                if with_coef:
                    coef[row[v]] = pc[p]
                row[v] += 1
    free(cnt)


def owned_incidence(const PairRec[::1] records, Py_ssize_t start, Py_ssize_t stop, const int8_t[::1] owners,
                    int64_t[::1] indptr, const double[::1] pair_coef=None):
    """``record_incidence``'s lists restricted to the rows x with ``owners[x]`` (0 or 1): the same entries
    in the same order (increasing record index), the other rows empty.  Returns ``(nbr, coef)`` (``coef``
    empty without ``pair_coef``); ``indptr`` (n + 1) is filled.  Two serial passes over the records,
    without branches on the owners (they would be mispredicted): a row that is not kept writes its
    entries to one spare slot past the end.  For the sampled diagnostics' few vertices."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = stop - start, p, x
    cdef bint with_coef = pair_coef is not None
    cdef int32_t u, v
    cdef int64_t total = 0, c, at
    if owners.shape[0] != n:
        raise ValueError(f"owned_incidence: owners needs one entry per vertex ({n}), got {owners.shape[0]}")
    if start < 0 or stop > records.shape[0] or k < 0:
        raise ValueError(f"owned_incidence: the range [{start}, {stop}) is not within {records.shape[0]} records")
    if with_coef and pair_coef.shape[0] != k:
        raise ValueError(f"owned_incidence: pair_coef needs the {k} records' coefficients")
    for x in range(n):
        if owners[x] > 1 or owners[x] < 0:
            raise ValueError(f"owned_incidence: owners must be 0 or 1, got {owners[x]} at {x}")
    cdef int64_t[::1] fill = np.zeros(n + 1, np.int64)
    with nogil:
        for p in range(start, stop):
            fill[records[p].u] += owners[records[p].u]
            fill[records[p].v] += owners[records[p].v]
        for x in range(n):
            indptr[x] = total
            total += fill[x]
        indptr[n] = total
        for x in range(n):          # a row not kept fills the spare slot, entry `total`, and stays there
            fill[x] = indptr[x] if owners[x] else total
    nbr_arr = np.empty(total + 1, np.int32)
    coef_arr = np.empty(total + 1 if with_coef else 1)
    cdef int32_t[::1] nbr = nbr_arr
    cdef double[::1] coef = coef_arr
    with nogil:
        for p in range(start, stop):
            u = records[p].u
            v = records[p].v
            at = fill[u]
            nbr[at] = v
            if with_coef:
                coef[at] = pair_coef[p - start]
            fill[u] = at + owners[u]
            at = fill[v]
            nbr[at] = u
            if with_coef:
                coef[at] = pair_coef[p - start]
            fill[v] = at + owners[v]
    return nbr_arr[:total], coef_arr[:total if with_coef else 0]


# --------------------------------------------------------------------- negatives

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
