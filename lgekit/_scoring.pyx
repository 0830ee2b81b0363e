# cython: language_level=3
"""Pair scores ``x_u . y_v`` for many pairs (the kernel behind
:func:`lgekit.metrics.pair_scores`): one pass over the pairs, float64
accumulation whatever the embedding's precision, no temporaries; and the
average precision of scores ranked against each other.

setup.py also builds it with AVX2 (``lgekit._scoring_avx2``, picked by
:mod:`lgekit._simd`): for float32 embeddings its scores are the generic
build's bit for bit, for float64 ones they may differ in the last bits (FMA)."""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport isfinite
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, malloc, free
from lgekit._common cimport floating
from lgekit._intrinsics cimport LGK_AVX2_DOT_F64, LGK_PREFETCH, lgk_dotf_f64_avx2


cdef enum:
    _PF_AHEAD = 8     # prefetch the rows of the pair this many pairs ahead: the pairs come in random order
    _SCORE_CHUNK = 256  # scores computed, then ranked, this many at a time (2 KiB a thread)


cdef inline double _dot_f64(const floating* x, const floating* y, Py_ssize_t d) noexcept nogil:
    """sum_j x[j] y[j] in float64, in eight independent partial sums (j mod 8) added in a fixed tree.

    Independent sums let the compiler keep them in vector registers; a single running sum is one
    long dependency chain of additions.  The order is fixed, so results do not depend on threads."""
    cdef double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0
    cdef Py_ssize_t j = 0
    if floating is float:
        if LGK_AVX2_DOT_F64:        # the same sums in vector registers (the AVX2 build only)
            return lgk_dotf_f64_avx2(x, y, d)
    while j + 8 <= d:
        s0 += <double>x[j] * <double>y[j]
        s1 += <double>x[j + 1] * <double>y[j + 1]
        s2 += <double>x[j + 2] * <double>y[j + 2]
        s3 += <double>x[j + 3] * <double>y[j + 3]
        s4 += <double>x[j + 4] * <double>y[j + 4]
        s5 += <double>x[j + 5] * <double>y[j + 5]
        s6 += <double>x[j + 6] * <double>y[j + 6]
        s7 += <double>x[j + 7] * <double>y[j + 7]
        j += 8
    while j < d:
        s0 += <double>x[j] * <double>y[j]
        j += 1
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))


cdef inline void _prefetch_row(const void* row, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t off = 0
    while off < nbytes:
        LGK_PREFETCH(<const char*>row + off)
        off += 64


def pair_dots(const floating[:, ::1] x, const floating[:, ::1] y, const int64_t[:, ::1] pairs,
              int n_threads=1):
    """scores[k] = sum_j x[u_k, j] * y[v_k, j] in float64 (indices must be in range).

    Each score is computed by one thread in a fixed order, so the result is the same for any
    ``n_threads``."""
    cdef Py_ssize_t k, n = pairs.shape[0], d = x.shape[1]
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    if n == 0 or d == 0:
        out_arr[:] = 0.0
        return out_arr
    with nogil:
        for k in prange(n, num_threads=max(n_threads, 1), schedule="static"):
            if k + _PF_AHEAD < n:
                _prefetch_row(&x[pairs[k + _PF_AHEAD, 0], 0], d * sizeof(floating))
                _prefetch_row(&y[pairs[k + _PF_AHEAD, 1], 0], d * sizeof(floating))
            out[k] = _dot_f64(&x[pairs[k, 0], 0], &y[pairs[k, 1], 0], d)
    return out_arr


def row_sqnorms(const floating[:, ::1] x, int n_threads=1):
    """``||x_u||^2`` of every row in float64, the pair score ``x_u . x_u`` (the same sums as
    ``pair_dots``), on ``n_threads``.  What the solvers need after every parallel epoch (DCD's
    partner norms, a record's mean norm) without a serial NumPy pass over the whole table.  Each row
    is one thread's, so the result does not depend on ``n_threads``."""
    cdef Py_ssize_t u, n = x.shape[0], d = x.shape[1]
    out_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    if n == 0 or d == 0:
        return out_arr
    with nogil:
        for u in prange(n, num_threads=max(n_threads, 1), schedule="static"):
            out[u] = _dot_f64(&x[u, 0], &x[u, 0], d)
    return out_arr


# ---------------------------------------------------------------------- average precision
cdef inline Py_ssize_t _bisect_right(const double* t, Py_ssize_t m, double s) noexcept nogil:
    """The number of entries of t[0:m] (ascending) at most s, by a branch-free bisection."""
    cdef const double* base = t
    cdef Py_ssize_t half, n = m
    if m == 0:
        return 0
    while n > 1:
        half = n >> 1
        base += half * (base[half - 1] <= s)     # a multiply, not a branch
        n -= half
    return (base - t) + (base[0] <= s)


cdef struct RankGrid:
    # The thresholds' index: G equal cells of width 1 / inv over [lo, lo + G / inv); cell(x) clamps
    # floor((x - lo) inv) to [0, G - 1], which never decreases as x grows, so that a threshold in an
    # earlier cell than a score's is below the score and one in a later cell above it.
    const double* t
    Py_ssize_t m
    double lo
    double inv
    Py_ssize_t G
    int64_t* start          # G + 1 entries: start[c] = the number of thresholds in cells < c


cdef inline Py_ssize_t _cell(const RankGrid* g, double x) noexcept nogil:
    cdef double c = (x - g.lo) * g.inv
    if c < 0:
        return 0
    if c >= g.G - 1:
        return g.G - 1
    return <Py_ssize_t>c


cdef inline Py_ssize_t _rank(const RankGrid* g, double s) noexcept nogil:
    """The number of thresholds at most s: those of the cells before s's cell, plus those of its own
    cell at most s (a bisection of that cell's few thresholds).  About one cache miss a score,
    against one at most of a ~17-step bisection of all the thresholds."""
    cdef Py_ssize_t c = _cell(g, s)
    cdef int64_t a = g.start[c]
    return a + _bisect_right(g.t + a, g.start[c + 1] - a, s)


cdef int _grid_init(RankGrid* g, const double* t, Py_ssize_t m) noexcept nogil:
    """Index the m ascending thresholds in G = m cells (m >= 1).  Returns 1 when out of memory."""
    cdef Py_ssize_t i, c
    g.t = t
    g.m = m
    g.G = m if m > 1 else 1
    g.lo = t[0]
    g.inv = (g.G / (t[m - 1] - t[0])) if t[m - 1] > t[0] else 0.0
    if not isfinite(g.inv):         # a range too small to divide: one cell (then a plain bisection)
        g.inv = 0.0
    g.start = <int64_t*>calloc(g.G + 1, sizeof(int64_t))
    if g.start == NULL:
        return 1
    for i in range(m):
        g.start[_cell(g, t[i]) + 1] += 1
    for c in range(g.G):
        g.start[c + 1] += g.start[c]
    return 0


cdef int _rank_histogram(const double* t, Py_ssize_t m, const double* scores, Py_ssize_t k, int64_t* hist,
                         int n_threads) noexcept nogil:
    """hist[r] += the number of scores[0:k] with exactly r thresholds t[0:m] (ascending, m >= 1) at
    most them.  Threads count contiguous slices into rows of their own (m + 1 int64 each), summed in
    a fixed order: the result does not depend on n_threads.  Returns 1 when a score is not finite
    (the histogram is then incomplete), 2 when out of memory, else 0."""
    cdef Py_ssize_t T = n_threads if n_threads > 1 else 1, i, r, c
    cdef RankGrid grid
    cdef int64_t* rows
    cdef int64_t* row
    cdef int bad = 0
    cdef int* badp = &bad           # written through a pointer: a name assigned in prange is lastprivate
    if T > 1 and k < 16384 * T:      # below ~16k scores a thread, starting threads costs more than it saves
        T = max(1, k // 16384)
    rows = <int64_t*>calloc(T * (m + 1), sizeof(int64_t))
    if rows == NULL or _grid_init(&grid, t, m):
        free(rows)
        return 2
    for c in prange(T, num_threads=T, schedule="static", chunksize=1):
        row = rows + c * (m + 1)
        for i in range((k * c) // T, (k * (c + 1)) // T):
            if not isfinite(scores[i]):
                badp[0] = 1          # every writer stores the same 1
                break
            row[_rank(&grid, scores[i])] += 1
    for r in range(m + 1):
        for c in range(T):
            hist[r] += rows[c * (m + 1) + r]
    free(rows)
    free(grid.start)
    return bad


def _distinct(pos):
    """The distinct values of the ascending ``pos`` and how many times each occurs (no second sort)."""
    last = np.ones(len(pos), dtype=bool)
    last[:len(pos) - 1] = pos[1:] != pos[:len(pos) - 1]    # last occurrence of each distinct score
    ends = np.flatnonzero(last) + 1
    return np.ascontiguousarray(pos[last]), np.diff(ends, prepend=0)


def _ap_from_ranks(Py_ssize_t n_pos, counts, hist):
    """AP from the multiplicities of the distinct positive scores (ascending) and the negatives' rank
    histogram among them (see ``average_precision_scores``)."""
    # the positives at or above the j-th distinct score: all but those below it
    tp = n_pos - (np.cumsum(counts) - counts)
    # a negative with rank r scores at least thresholds[0..r-1]: fp[j] = sum of hist[r] over r > j
    fp = np.cumsum(hist[::-1])[::-1][1:]
    return float(np.sum(counts * (tp / (tp + fp))) / n_pos)


def _sorted_positives(pos_scores):
    pos = np.sort(np.asarray(pos_scores, dtype=np.float64).ravel())
    if len(pos) and not (np.isfinite(pos[0]) and np.isfinite(pos[len(pos) - 1])):
        raise ValueError("scores must be finite (NaN sorts last, so checking the ends suffices)")
    return pos


def _negative_ranks(const double[::1] thresholds, const double[::1] scores, int n_threads):
    """The rank histogram of the negatives' scores among the distinct positive scores (see ``_rank_histogram``)."""
    hist = np.zeros(thresholds.shape[0] + 1, np.int64)
    cdef int64_t[::1] h = hist
    cdef int status
    if scores.shape[0] == 0:
        return hist
    with nogil:
        status = _rank_histogram(&thresholds[0], thresholds.shape[0], &scores[0], scores.shape[0], &h[0], n_threads)
    if status == 2:
        raise MemoryError("average precision: out of memory for the per-thread rank counts")
    if status == 1:
        raise ValueError("scores must be finite: a negative example's score is NaN or infinite")
    return hist


def average_precision_scores(positive_scores, negative_scores, int n_threads=1):
    """Average precision of the scores of positive and negative examples, as
    ``lgekit.metrics.average_precision_from_scores`` defines it (scikit-learn's, ties as one threshold),
    bit for bit, for any ``n_threads``.

    Only the positives are sorted (usually the smaller class: a fifth of a link-prediction split);
    each negative is placed among the distinct positive scores, in parallel, by an index of equal
    cells over their range (one cell per threshold, so a score's cell holds about one threshold),
    and the false positives at each threshold are a suffix sum of those placements.  Cost
    O(P log P) for P positives plus about O(N) for N negatives (O(N log P) when the positive scores
    crowd into a few cells), against O((P + N) log (P + N)) for one sort of everything."""
    pos = _sorted_positives(positive_scores)
    neg = np.ascontiguousarray(negative_scores, dtype=np.float64).ravel()
    if len(pos) == 0 or len(neg) == 0:
        raise ValueError(f"need at least one positive and one negative score, got {len(pos)} and {len(neg)}")
    thresholds, counts = _distinct(pos)
    return _ap_from_ranks(len(pos), counts, _negative_ranks(thresholds, neg, n_threads))


def average_precision_pairs(x, y, const int64_t[:, ::1] positives, const int64_t[:, ::1] negatives,
                            int n_threads=1):
    """``average_precision_scores`` of the pair scores x_u . y_v (``pair_dots``) of ``positives`` and
    ``negatives``, every step on ``n_threads``.  ``x``, ``y``: C-contiguous float32 or float64 arrays of
    one dtype and width (``y`` may be ``x``); the caller has checked the indices, as for ``pair_dots``."""
    if positives.shape[0] == 0 or negatives.shape[0] == 0:
        raise ValueError(f"need at least one positive and one negative pair, got {positives.shape[0]} and "
                         f"{negatives.shape[0]}")
    return average_precision_scores(pair_dots(x, y, positives, n_threads), pair_dots(x, y, negatives, n_threads),
                                    n_threads)
