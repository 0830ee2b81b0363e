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
    duplicates : {"max", "sum", "last", "error"}
        How the weights of a repeated edge merge: the largest, their sum
        (added in the order given, so the result is the same bit for bit on
        every run), the one given last (networkx's rule), or a ValueError.

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
    if weights is None:
        upper = _unweighted(u, v, n, duplicates)
    else:
        upper = _weighted(u, v, np.asarray(weights, dtype=np.float64), n, duplicates)
    return (upper if directed else SymmetricCSR(mirrored(upper))), n_loops


def _unweighted(u, v, n, duplicates):
    """CSR of the distinct pairs ``(u, v)``, each of weight 1 (a repeated edge stays 1)."""
    # scipy's counting sort by row and per-row sort (coo -> csr) beat one sort of all the edge keys;
    # summing the duplicates then counts them
    upper = sp.coo_matrix((np.ones(len(u)), (u, v)), shape=(n, n)).tocsr()
    upper.sum_duplicates()
    if duplicates == "error" and upper.nnz != len(u):
        k = int(np.flatnonzero(upper.data > 1)[0])  # the first repeated pair in row-major order
        row = int(np.searchsorted(upper.indptr, k, side="right")) - 1
        raise ValueError(f"edge ({row}, {int(upper.indices[k])}) is repeated and duplicates='error'")
    upper.data[:] = 1.0
    return upper


def _weighted(u, v, weights, n, duplicates):
    """CSR of the distinct pairs ``(u, v)``, a repeated pair's weights merged by ``duplicates``."""
    width = max(n, 1)
    key = u * width + v
    # a stable order, so that the weights of a repeated edge are summed (or the last found) in the order given
    order = np.argsort(key, kind="stable" if duplicates in ("sum", "last") else None)
    key = key[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    if duplicates == "error" and not first.all():
        k = key[int(np.flatnonzero(~first)[0])]
        raise ValueError(f"edge ({k // width}, {k % width}) is repeated and duplicates='error'")
    starts = np.flatnonzero(first)
    rows, cols = key[starts] // width, key[starts] % width
    if duplicates == "last":
        w = weights[order][np.append(starts[1:], len(key)) - 1] if len(starts) else np.zeros(0)
    else:
        w = (np.maximum if duplicates == "max" else np.add).reduceat(weights[order], starts) if len(starts) else \
            np.zeros(0)
    # the keys are sorted by row, then column: that is CSR order already
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return sp.csr_matrix((w, cols, indptr), shape=(n, n))


class SymmetricCSR:
    """A CSR matrix that :func:`mirrored` made symmetric: :class:`lgekit.Graph` need not check it again."""

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
    up_ptr, low_ptr = upper.indptr.astype(np.int64), lower.indptr.astype(np.int64)
    indptr = up_ptr + low_ptr
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1], dtype=np.float64)
    # entry p of upper row r goes after the whole lower row r: to p + low_ptr[r + 1]; entry q of lower
    # row r goes before the upper row: to q + up_ptr[r]
    up_at = np.arange(len(upper.indices), dtype=np.int64) + np.repeat(low_ptr[1:], np.diff(up_ptr))
    low_at = np.arange(len(lower.indices), dtype=np.int64) + np.repeat(up_ptr[:-1], np.diff(low_ptr))
    indices[up_at], data[up_at] = upper.indices, upper.data
    indices[low_at], data[low_at] = lower.indices, lower.data
    return sp.csr_matrix((data, indices, indptr), shape=upper.shape)
