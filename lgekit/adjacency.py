"""The adjacency matrix of a graph: a canonical CSR matrix built from node index pairs, or read from a matrix.

Canonical means what every kernel relies on: rows in order, column indices
sorted within each row, no duplicate entry, no stored zero.  An undirected
graph's matrix is symmetric; it is built as its upper triangle plus that
triangle's mirror image, each entry put where it belongs by arithmetic on the
row pointers (no sort beyond the one of the edge keys).

A matrix given by the user (:meth:`lgekit.Graph.from_scipy`,
:meth:`lgekit.Graph.from_biadjacency`) is read as its entries
(:func:`square_matrix` and :func:`matrix_pairs`, :func:`biadjacency_block`); an adjacency given
as clean (:class:`lgekit.Graph` itself) is checked and frozen by
:func:`canonical_adjacency`.
"""
import numpy as np
import scipy.sparse as sp

from .ids import is_integer_id
from .labels import check_real

__all__ = ["SymmetricCSR", "adjacency_from_pairs", "bipartite_adjacency", "biadjacency_block", "canonical_adjacency",
           "check_n_left", "is_symmetric", "matrix_pairs", "mirrored", "square_matrix"]


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


def check_n_left(n_left, n, directed):
    """``n_left`` as an int in [0, n]; a bipartite graph is never directed."""
    if not is_integer_id(n_left):
        raise TypeError(f"n_left must be an int (the number of left nodes), got {type(n_left).__name__} {n_left!r}")
    n_left = int(n_left)
    if not 0 <= n_left <= n:
        raise ValueError(f"n_left must lie in [0, {n}] (the number of nodes), got {n_left}")
    if directed:
        raise ValueError("a bipartite graph is stored undirected (its edges join the two sides); pass "
                         "directed=False with n_left, or drop n_left for a directed graph")
    return n_left


def canonical_adjacency(adjacency, directed, n_left):
    """A graph's own copy of an adjacency given as clean, checked: ``(adjacency, n_left)``.

    ``adjacency`` is a scipy.sparse matrix of reals (or a :class:`SymmetricCSR`,
    whose symmetry is not checked again); the copy is canonical, its weights
    float64, its index arrays int32 when they fit (int64 otherwise), and every
    array read-only.  Refused: a matrix that is not square, holds a self-loop,
    a weight that is not finite and positive, is asymmetric while not
    ``directed``, or, with ``n_left`` (checked by :func:`check_n_left`), joins
    two nodes of one side.
    """
    symmetric = isinstance(adjacency, SymmetricCSR)  # built symmetric: no need to check it again
    adjacency = adjacency.matrix if symmetric else adjacency
    if not sp.issparse(adjacency):
        raise TypeError(f"adjacency must be a scipy.sparse matrix, got {type(adjacency).__name__}")
    check_real(adjacency.dtype, "adjacency")
    # a copy: csr_matrix(csr) shares the arrays, which are cleaned in place and made read-only below
    adj = sp.csr_matrix(adjacency, copy=True)
    if adj.shape[0] != adj.shape[1]:
        raise ValueError(f"adjacency must be square, got shape {adj.shape}")
    n = adj.shape[0]
    adj.sum_duplicates()
    adj.sort_indices()
    adj.eliminate_zeros()
    if adj.diagonal().any():
        raise ValueError("adjacency has self-loops on its diagonal; build the graph with Graph.from_scipy to drop them")
    if adj.nnz and (not np.all(np.isfinite(adj.data)) or adj.data.min() < 0):
        raise ValueError("adjacency weights must be finite and positive")
    if not directed and not symmetric and not is_symmetric(adj):
        raise ValueError("adjacency of an undirected graph must be symmetric; pass directed=True or use Graph.from_scipy")
    if n_left is not None:
        n_left = check_n_left(n_left, n, directed)
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(adj.indptr))
        inside = (rows < n_left) == (adj.indices < n_left)
        if np.any(inside):
            k = int(np.flatnonzero(inside)[0])
            u, v = int(rows[k]), int(adj.indices[k])
            side = "left" if u < n_left else "right"
            raise ValueError(f"adjacency of a bipartite graph (n_left={n_left}) joins node indices {u} and {v}, "
                             f"both on the {side} side; every edge must join a left node (index < {n_left}) "
                             "to a right node")
    index_dtype = np.int32 if max(adj.nnz, n) < 2**31 - 1 else np.int64
    adj.indices = adj.indices.astype(index_dtype, copy=False)
    adj.indptr = adj.indptr.astype(index_dtype, copy=False)
    adj.data = adj.data.astype(np.float64, copy=False)
    for part in (adj.indices, adj.indptr, adj.data):
        part.flags.writeable = False
    return adj, n_left


def _matrix(matrix, shape):
    """``matrix`` as a scipy.sparse matrix or a 2-D array of reals (``shape`` says which 2-D shape in messages)."""
    if not sp.issparse(matrix):
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise ValueError(f"matrix must be {shape}, got shape {matrix.shape}")
    check_real(matrix.dtype, "matrix")
    return matrix


def _refuse_negative_or_non_finite(rows, cols, data):
    bad = ~np.isfinite(data) | (data < 0)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"matrix entries must be finite and non-negative; entry ({rows[i]}, {cols[i]}) is "
                         f"{float(data[i])!r}")


def square_matrix(matrix):
    """A square adjacency matrix as a COO matrix of the entries ``matrix.toarray()`` shows (an entry stored twice
    in a sparse matrix is their sum; zeros are no entry)."""
    coo = sp.coo_matrix(_matrix(matrix, "2-D"))
    if coo.shape[0] != coo.shape[1]:
        raise ValueError(f"matrix must be square, got shape {coo.shape}")
    coo.sum_duplicates()  # an entry stored twice is their sum: the matrix scipy means (A.toarray())
    coo.eliminate_zeros()
    return coo


def matrix_pairs(coo, directed):
    """The entries of a :func:`square_matrix` as ``(pairs, values)``, for :func:`adjacency_from_pairs`.

    int64 index pairs and float64 values, finite and non-negative (a
    ``ValueError`` names the first other).  For an undirected graph an entry
    ``(i, j)`` below the diagonal is given as the pair ``(j, i)``: both
    orientations of a pair then merge as repeated edges.
    """
    data = coo.data.astype(np.float64)
    edges = np.column_stack([coo.row, coo.col]).astype(np.int64)
    if not directed:
        keep = edges[:, 0] <= edges[:, 1]
        # an asymmetric matrix contributes its lower triangle too
        lower = ~keep
        edges = np.concatenate([edges[keep], edges[lower][:, ::-1]])
        data = np.concatenate([data[keep], data[lower]])
    _refuse_negative_or_non_finite(edges[:, 0], edges[:, 1], data)
    return edges, data


def biadjacency_block(matrix):
    """A ``(n_left, n_right)`` biadjacency matrix as a float64 CSR matrix of its entries (as ``toarray()``
    shows them), finite and non-negative (a ``ValueError`` names the first other)."""
    block = sp.csr_matrix(_matrix(matrix, "a 2-D (n_left, n_right) biadjacency matrix"), dtype=np.float64, copy=True)
    block.sum_duplicates()
    block.eliminate_zeros()
    if block.nnz and (not np.all(np.isfinite(block.data)) or block.data.min() < 0):
        coo = block.tocoo()
        _refuse_negative_or_non_finite(coo.row, coo.col, coo.data)
    return block


def bipartite_adjacency(block):
    """The symmetric adjacency ``[[0, B], [B^T, 0]]`` of the biadjacency matrix ``B``: left node ``i`` is node
    index ``i``, right node ``j`` node index ``n_left + j``."""
    n_left, n_right = block.shape
    if n_left and n_right:
        return sp.bmat([[None, block], [block.T, None]], format="csr")
    return sp.csr_matrix((n_left + n_right, n_left + n_right))
