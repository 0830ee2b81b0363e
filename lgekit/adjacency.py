"""The adjacency matrix of a graph: a canonical CSR matrix built from node index pairs.

Canonical means what every kernel relies on: rows in order, column indices
sorted within each row, no duplicate entry, no stored zero.  An undirected
graph's matrix is symmetric; it is built as its upper triangle plus that
triangle's mirror image, each entry put where it belongs by arithmetic on the
row pointers (no sort beyond the one of the edge keys).
"""
import numpy as np
import scipy.sparse as sp

__all__ = ["SymmetricCSR", "adjacency_from_pairs", "is_symmetric", "mirrored"]


def is_symmetric(adj):
    """Whether a canonical CSR matrix equals its transpose (array by array: no boolean matrix is built)."""
    mirror = adj.T.tocsr()
    mirror.sort_indices()
    return all(np.array_equal(a, b) for a, b in ((adj.indptr, mirror.indptr), (adj.indices, mirror.indices),
                                                  (adj.data, mirror.data)))


def adjacency_from_pairs(idx, weights, n, directed, duplicates):
    """Canonical CSR adjacency from index pairs: self-loops dropped, duplicates merged, symmetrised unless ``directed``.

    Parameters
    ----------
    idx : array of shape (m, 2)
        Node index pairs (arcs if ``directed``).
    weights : array of shape (m,) or None
        Positive weights (None: all 1, and a repeated edge stays 1).
    n : int
        Number of nodes.
    directed : bool
    duplicates : {"sum", "max", "error"}
        How the weights of a repeated edge merge; "sum" adds them in the
        order given, so the result is the same bit for bit on every run.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix or SymmetricCSR
        Sorted indices, no duplicate; an undirected one comes wrapped in
        :class:`SymmetricCSR`.
    n_loops : int
        Self-loops dropped.
    """
    idx = np.asarray(idx, dtype=np.int64).reshape(-1, 2)
    u, v = idx[:, 0], idx[:, 1]
    loops = u == v
    n_loops = int(loops.sum())
    if n_loops:
        u, v = u[~loops], v[~loops]
        if weights is not None:
            weights = weights[~loops]
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    width = max(n, 1)
    key = u * width + v
    if weights is None:
        key = np.sort(key)  # a repeated edge weighs 1 whichever copy comes first: no order to keep
    else:
        # a stable order, so that the weights of a repeated edge are summed in the order given
        order = np.argsort(key, kind="stable" if duplicates == "sum" else None)
        key = key[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    if duplicates == "error" and not first.all():
        k = key[int(np.flatnonzero(~first)[0])]
        raise ValueError(f"edge ({k // width}, {k % width}) is repeated and duplicates='error'")
    starts = np.flatnonzero(first)
    rows, cols = key[starts] // width, key[starts] % width
    if weights is None:
        w = np.ones(len(starts))
    else:
        w_sorted = np.asarray(weights, dtype=np.float64)[order]
        w = (np.maximum if duplicates == "max" else np.add).reduceat(w_sorted, starts) if len(starts) else np.zeros(0)
    # the keys are sorted by row, then column: that is CSR order already
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    upper = sp.csr_matrix((w, cols, indptr), shape=(n, n))
    return (upper if directed else SymmetricCSR(mirrored(upper))), n_loops


class SymmetricCSR:
    """A CSR matrix that :func:`_mirrored` made symmetric, handed to :class:`Graph` (which trusts it)."""

    __slots__ = ("matrix",)

    def __init__(self, matrix):
        self.matrix = matrix


def mirrored(upper):
    """The symmetric CSR matrix whose upper triangle is ``upper`` (canonical, strictly upper triangular).

    Row ``r`` of the result is row ``r`` of the lower triangle (columns
    below ``r``) followed by row ``r`` of ``upper`` (columns above ``r``):
    each part is sorted already, so every entry's place is computed, not
    searched or sorted for.
    """
    lower = upper.T.tocsr()  # the transpose, rows sorted (scipy's csr_tocsc)
    n = upper.shape[0]
    up_ptr, low_ptr = upper.indptr.astype(np.int64), lower.indptr.astype(np.int64)
    indptr = up_ptr + low_ptr
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1], dtype=np.float64)
    up_rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(up_ptr))
    low_rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(low_ptr))
    up_at = np.arange(len(upper.indices), dtype=np.int64) + low_ptr[up_rows + 1]
    low_at = np.arange(len(lower.indices), dtype=np.int64) + up_ptr[low_rows]
    indices[up_at], data[up_at] = upper.indices, upper.data
    indices[low_at], data[low_at] = lower.indices, lower.data
    return sp.csr_matrix((data, indices, indptr), shape=upper.shape)
