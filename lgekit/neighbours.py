"""Nearest neighbours of an embedding: for each query vector, the ``k`` candidate rows that score
highest, by the inner product (a linear graph embedding's own score ``x_u . y_v``) or by cosine.

The candidates are scored block by block (a BLAS matrix product of a block of queries with a block
of candidates, on BLAS's threads) and only each query's running top ``k`` is kept, so the memory is
bounded by the block, never ``n_queries x n_candidates``: a graph too large for a dense ``n x n``
product is served the same way.  :meth:`lgekit.models.LogisticEmbedding.most_similar` (and
HingeEmbedding's) maps node ids to rows, picks the tables by direction and calls :func:`top_k_scores`.
"""
from numbers import Integral

import numpy as np

from ._validation import Interval, Options, validate_arguments

__all__ = ["top_k_scores"]   # BY, the accepted values of ``by``, is no name a user calls

#: what ``by`` accepts: the inner product (the model's score) or the cosine of the same two vectors
BY = ("score", "cosine")

# bytes of float64 scores (and as many again of masks and a partition's copy, about 4x) a block
# holds: 8 MiB of scores keeps the working set near 32 MiB whatever the graph's size
_BLOCK_BYTES = 8 * 2**20
# queries a block: enough rows for BLAS to run at speed, few enough that a block spans many candidates
_QUERIES_PER_BLOCK = 256


def _check_table(table, name):
    x = np.asarray(table)
    if x.ndim != 2 or x.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a 2-D array of real numbers (rows, dim), got shape {x.shape} "
                         f"and dtype {x.dtype}")
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        raise ValueError(f"{name} contains non-finite values (NaN or inf): a diverged model?")
    return x


def _inverse_norms(x):
    """1 / ||x_i|| of every row in float64, 1 for a zero row (which stays zero: its cosine with anything is 0)."""
    norms = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64))
    return 1.0 / np.where(norms > 0, norms, 1.0)


def _float64_rows(x, lo, hi, scale=None):
    """Rows ``lo:hi`` of ``x`` in float64, each times ``scale`` (cosine: its inverse norm) when given."""
    rows = np.asarray(x[lo:hi], dtype=np.float64)
    return rows if scale is None else rows * scale[lo:hi, None]


def _select(scores, kk):
    """Positions of the ``kk`` largest entries of each row of ``scores``, in the order of the ranking:
    score descending, then position ascending (of equal scores, the earlier column first).

    ``np.argpartition`` alone leaves which of several scores equal to the ``kk``-th largest get in to
    chance; here every score above the ``kk``-th largest value ``t`` is taken, then the first
    ``kk - #above`` columns scoring exactly ``t``."""
    r, w = scores.shape
    if kk >= w:
        return np.argsort(-scores, axis=1, kind="stable")
    t = np.partition(scores, w - kk, axis=1)[:, w - kk][:, None]
    above = scores > t
    tied = scores == t
    need = kk - above.sum(axis=1, keepdims=True)
    chosen = above | (tied & (np.cumsum(tied, axis=1) <= need))
    pos = np.nonzero(chosen)[1].reshape(r, kk)          # ascending columns within each row
    order = np.argsort(-np.take_along_axis(scores, pos, axis=1), axis=1, kind="stable")
    return np.take_along_axis(pos, order, axis=1)


@validate_arguments({"k": [Interval(Integral, 1, None, closed="left")], "by": [Options(str, set(BY))]})
def top_k_scores(queries, candidates, k, *, exclude=None, by="score", block_bytes=None):
    """The ``k`` candidates scoring highest for each query, with their scores.

    Parameters
    ----------
    queries : array (m, dim)
        The query vectors (e.g. ``embedding_[rows]``).
    candidates : array (n, dim)
        The vectors they are scored against (``embedding_``, or the other
        table ``context_embedding_`` of a two-table model).
    k : int >= 1
        Neighbours per query; at most ``n`` (``n - 1`` with ``exclude``).
    exclude : int array (m,), optional
        Per query, one candidate row that may not be returned (the query
        node itself), or -1 for none.
    by : {"score", "cosine"}, default "score"
        ``"score"``: the inner product :math:`q \\cdot c`;  ``"cosine"``:
        :math:`q \\cdot c / (\\lVert q\\rVert \\lVert c\\rVert)`, 0 for a zero vector.
    block_bytes : int, optional
        Bytes of float64 scores one block holds (default 8 MiB); smaller
        blocks give the same answer in less memory.

    Returns
    -------
    rows : int64 ndarray (m, k)
        Candidate rows, best first.  Ties: of equal scores, the smaller row
        comes first (deterministic, whatever the blocks).
    scores : float64 ndarray (m, k)

    Raises
    ------
    ValueError
        Shapes that disagree, non-finite values, ``k`` above the number of
        candidates, an ``exclude`` of the wrong shape or out of range.

    Notes
    -----
    Scores are float64 whatever the tables' dtype (each block is converted
    on its own: a float32 table is never copied whole).  Cost
    :math:`O(m \\cdot n \\cdot dim)` in matrix products, plus a partition of
    each block; memory :math:`O(\\text{block} + m k)`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [2.0, 0.0]])
    >>> rows, scores = top_k_scores(x[:1], x, 2, exclude=[0])
    >>> rows.tolist(), scores.tolist()
    ([[3, 1]], [[2.0, 0.9]])
    """
    q = _check_table(queries, "queries")
    c = _check_table(candidates, "candidates")
    if q.shape[1] != c.shape[1]:
        raise ValueError(f"queries and candidates must have the same dimension, got {q.shape[1]} and {c.shape[1]}")
    m, n = q.shape[0], c.shape[0]
    ex = np.full(m, -1, dtype=np.int64) if exclude is None else np.asarray(exclude)
    if ex.shape != (m,) or ex.dtype.kind not in "iu":
        raise ValueError(f"exclude must be an integer array with one entry per query ({m}), got shape {ex.shape} "
                         f"and dtype {ex.dtype}")
    if m and (ex.min() < -1 or ex.max() >= n):
        raise ValueError(f"exclude must hold candidate rows in [0, {n}) or -1 (none), got values in "
                         f"[{ex.min()}, {ex.max()}]")
    available = n - (1 if (ex >= 0).any() else 0)
    if k > available:
        raise ValueError(f"k={k} exceeds the {available} candidates there are"
                         + (" besides the query node itself" if available < n else "") + f"; pass k <= {available}")
    # float64 a block at a time: a float32 table is never copied whole
    q_scale = c_scale = None
    if by == "cosine":
        q_scale, c_scale = _inverse_norms(q), _inverse_norms(c)
    budget = max(1, int(block_bytes if block_bytes is not None else _BLOCK_BYTES) // 8)
    height = int(max(1, min(m, _QUERIES_PER_BLOCK, budget)))      # queries a block
    width = int(min(n, max(k, budget // height)))                  # candidates a block
    rows = np.empty((m, k), dtype=np.int64)
    scores = np.empty((m, k), dtype=np.float64)
    for a in range(0, m, height):
        b = min(m, a + height)
        best_rows = np.empty((b - a, 0), dtype=np.int64)
        best = np.empty((b - a, 0), dtype=np.float64)
        for lo in range(0, n, width):
            hi = min(n, lo + width)
            block = _float64_rows(q, a, b, q_scale) @ _float64_rows(c, lo, hi, c_scale).T
            hit = np.flatnonzero((ex[a:b] >= lo) & (ex[a:b] < hi))
            block[hit, ex[a:b][hit] - lo] = -np.inf
            pos = _select(block, min(k, hi - lo))
            # the running best (earlier, smaller rows) first: of equal scores, positions keep row order
            merged = np.concatenate([best, np.take_along_axis(block, pos, axis=1)], axis=1)
            merged_rows = np.concatenate([best_rows, pos + lo], axis=1)
            keep = _select(merged, min(k, merged.shape[1]))
            best = np.take_along_axis(merged, keep, axis=1)
            best_rows = np.take_along_axis(merged_rows, keep, axis=1)
        rows[a:b], scores[a:b] = best_rows, best
    return rows, scores
