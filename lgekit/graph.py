"""The graph every lgekit component consumes: an immutable CSR adjacency with node ids and labels."""
import logging
import numbers
import os
import sys
import warnings

import numpy as np
import scipy.sparse as sp

from ._validation import check_pairs

__all__ = ["Graph", "GraphWarning"]

logger = logging.getLogger(__name__)

_DUPLICATE_POLICIES = ("sum", "max", "error")


class GraphWarning(UserWarning):
    """Input was legal but was changed on the way in (self-loops dropped, ...)."""


def warn_outside_lgekit(message, category):
    """Warn at the first frame outside the lgekit package: the user's line, whichever entry point it called."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _readonly(array):
    array.flags.writeable = False
    return array


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# a float64 holds every integer of magnitude below 2**53 exactly, and no longer all of them above
_EXACT_FLOAT = 2**53


def _is_int(x):
    """An integer id (Python or NumPy int), not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _object_array(seq):
    arr = np.empty(len(seq), dtype=object)
    for i, x in enumerate(seq):
        arr[i] = x
    return arr


def _canonical_ints(arr):
    """Integer ids in their one representation: int64 when every id fits, else Python ints (object).

    Without this, NumPy would cast a mix of ids above and below 2**63 to float64
    and silently merge neighbouring ids; a uint64 array above 2**63 would
    compare through float64 against int64 queries.
    """
    values = [int(x) for x in arr.ravel().tolist()]
    if all(_INT64_MIN <= x <= _INT64_MAX for x in values):
        return np.array(values, dtype=np.int64).reshape(arr.shape)
    out = _object_array(values)
    return out.reshape(arr.shape)


def _as_id_array(values, what):
    """Node ids as a NumPy array: int64, str, or objects (Python ints beyond int64, mixed or tuple ids).

    Integer ids are kept exact at any size; float ids must be whole numbers of
    magnitude below 2**53 (beyond that a float64 no longer tells neighbouring
    integers apart).
    """
    if isinstance(values, np.ndarray):
        arr = values
    else:
        seq = list(values)
        try:
            arr = np.asarray(seq)
        except (ValueError, OverflowError):  # inhomogeneous nesting (tuple ids of different lengths)
            arr = None
        # NumPy turns mixed ids into strings (1 -> "1"), tuple ids into a second axis, and
        # Python ints beyond 2**63 next to others into float64: keep those ids as objects
        if arr is None or arr.ndim != 1 or (arr.dtype.kind in "US" and not all(isinstance(x, str) for x in seq)) or (
                arr.dtype.kind in "fO" and any(_is_int(x) and abs(x) >= _EXACT_FLOAT for x in seq)):
            arr = _object_array(seq)
    return _canonical_id_dtype(arr, what)


def _canonical_id_dtype(arr, what):
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{what}: node ids must be ints, strings or other hashables, got booleans")
    if kind == "c":
        raise TypeError(f"{what}: node ids must be ints, strings or other hashables, got complex numbers")
    if kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) >= _EXACT_FLOAT)
        if np.any(bad):
            raise ValueError(f"{what}: float node ids must be whole numbers of magnitude below 2**53 (a float64 "
                             f"is exact only there; pass larger ids as Python ints), got e.g. {arr[bad][:3].tolist()}")
        return arr.astype(np.int64)
    if kind == "u":
        if arr.size and arr.max() > _INT64_MAX:
            return _canonical_ints(arr)
        return arr.astype(np.int64)
    if kind == "i":
        return arr.astype(np.int64, copy=False)
    if kind == "O" and arr.size and all(_is_int(x) for x in arr.ravel().tolist()):
        return _canonical_ints(arr)
    return arr


def node_id_query(ids):
    """Node ids to look up, as an array that keeps every id exact (see :func:`node_positions`).

    NumPy alone turns ``[1, "a"]`` into strings and ``[2**63 + 1, 5]`` into
    float64; a 1-D list of such ids becomes an object array instead.
    """
    query = np.asarray(ids)
    if query.ndim == 1 and not isinstance(ids, np.ndarray):
        flat = list(ids)
        if query.dtype.kind in "US" and not all(isinstance(x, str) for x in flat):
            return _object_array(flat)  # mixed ids: NumPy made 1 into "1"
        if query.dtype.kind in "fO" and any(_is_int(x) and abs(x) >= _EXACT_FLOAT for x in flat):
            return _object_array(flat)  # ints beyond 2**53 (and their neighbours) made float64
    return query


def node_positions(ids, node_ids, sorter, what):
    """Positions of ``ids`` in ``node_ids`` (``sorter`` sorts node_ids); KeyError for unknown ids."""
    ids = np.asarray(ids)
    if ids.dtype.kind == "f":
        # a float query is compared exactly, never through a rounding cast: whole numbers below
        # 2**53 are the integers they spell; others can only match float ids, which lgekit never keeps
        finite = np.isfinite(ids)
        whole = finite & (ids == np.round(np.where(finite, ids, 0)))
        inexact = whole & (np.abs(ids) >= _EXACT_FLOAT)
        if np.any(inexact):
            raise ValueError(f"{what}: node ids given as floats of magnitude 2**53 or more are not exact; "
                             f"pass them as Python ints, got e.g. {ids[inexact][:3].tolist()}")
        if not np.all(whole):
            raise KeyError(f"{what}: unknown node id(s) {ids[~whole][:5].tolist()}")
        ids = ids.astype(np.int64)
    elif ids.dtype.kind == "u":
        if ids.size and ids.max() > _INT64_MAX:
            ids = _canonical_ints(ids)
        else:
            ids = ids.astype(np.int64)
    if node_ids.dtype.kind == "O" or ids.dtype.kind == "O" or node_ids.dtype.kind != ids.dtype.kind and not (
        node_ids.dtype.kind in "iu" and ids.dtype.kind in "iu"
    ):
        lookup = {key: i for i, key in enumerate(node_ids.tolist())}
        flat = ids.ravel().tolist()
        try:
            return np.fromiter((lookup[k] for k in flat), dtype=np.int64, count=len(flat)).reshape(ids.shape)
        except (KeyError, TypeError):
            unknown = [k for k in flat if not _hashable(k) or k not in lookup][:5]
            raise KeyError(f"{what}: unknown node id(s) {unknown}") from None
    pos = np.searchsorted(node_ids, ids, sorter=sorter)
    pos = np.minimum(pos, len(node_ids) - 1) if len(node_ids) else pos
    found = sorter[pos] if len(node_ids) else pos
    bad = ~(node_ids[found] == ids) if len(node_ids) else np.ones(ids.shape, bool)
    if np.any(bad):
        raise KeyError(f"{what}: unknown node id(s) {ids[bad][:5].tolist()}")
    return found.astype(np.int64, copy=False)


def _hashable(x):
    try:
        hash(x)
    except TypeError:
        return False
    return True


class Graph:
    """An immutable graph in compressed sparse row (CSR) form.

    Nodes are numbered ``0..n_nodes-1`` internally; ``node_ids`` maps those
    indices back to the user's labels (ints, strings, any hashable).  By
    default a graph is undirected and simple: edges are symmetrised, duplicate
    edges are merged and self-loops are dropped with a :class:`GraphWarning`
    that counts them.  Isolated nodes are kept.

    Build one with :meth:`from_edges`, :meth:`from_scipy` or
    :meth:`from_networkx`, or with :func:`lgekit.datasets.load`.

    Parameters
    ----------
    adjacency : scipy.sparse matrix, shape (n, n)
        Already-clean adjacency: real, non-negative (a complex matrix is a
        ``TypeError``), symmetric unless ``directed``, no diagonal.
        Use the ``from_*`` constructors for raw input: this constructor only
        checks the invariants.
    node_ids : array-like of length n, optional
        External id of each node (default ``0..n-1``).  Must be unique.
    labels : scipy.sparse matrix, shape (n, k), optional
        Node-by-class membership matrix (multi-label allowed): entries 0 or
        1 only, a stored 0 being no membership (see :meth:`from_edges`).
    label_names : array-like of length k, optional
        Name of each class (default ``0..k-1``).
    directed : bool, default False
    weighted : bool, optional
        Whether edge weights are meaningful (default: any weight differs from 1).
    name : str, optional
        Free-form name shown by ``repr`` and used in experiment records.

    Notes
    -----
    The CSR index arrays are int32 when the graph fits (``nnz < 2**31``) and
    int64 otherwise.  Every array a graph hands out is read-only; the
    ``to_*`` methods return copies.

    Examples
    --------
    >>> g = Graph.from_edges([("a", "b"), ("b", "c"), ("c", "a"), ("a", "b")])
    >>> g.n_nodes, g.n_edges
    (3, 3)
    >>> g.edges().tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> g.node_ids.tolist(), int(g.index_of("c"))
    (['a', 'b', 'c'], 2)
    """

    __slots__ = ("_adj", "_node_ids", "_sorter", "_labels", "_label_names", "_directed", "_weighted", "name")

    def __init__(self, adjacency, *, node_ids=None, labels=None, label_names=None, directed=False,
                 weighted=None, name=None):
        if not sp.issparse(adjacency):
            raise TypeError(f"adjacency must be a scipy.sparse matrix, got {type(adjacency).__name__}")
        _check_real(adjacency.dtype, "adjacency")
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
        if not directed and (adj != adj.T).nnz:
            raise ValueError("adjacency of an undirected graph must be symmetric; pass directed=True or use Graph.from_scipy")
        index_dtype = np.int32 if max(adj.nnz, n) < 2**31 - 1 else np.int64
        adj.indices = _readonly(adj.indices.astype(index_dtype, copy=False))
        adj.indptr = _readonly(adj.indptr.astype(index_dtype, copy=False))
        adj.data = _readonly(adj.data.astype(np.float64, copy=False))
        self._adj = adj
        self._directed = bool(directed)
        self._weighted = bool(np.any(adj.data != 1.0)) if weighted is None else bool(weighted)
        self.name = name

        if node_ids is None:
            ids = np.arange(n, dtype=np.int64)
        else:
            ids = _as_id_array(node_ids, "node_ids")
            if ids is node_ids:
                ids = ids.copy()  # the graph makes its ids read-only: never the caller's array
            if ids.shape != (n,):
                raise ValueError(f"node_ids must have one id per node ({n}), got shape {ids.shape}")
        if ids.dtype.kind != "O":
            sorter = np.argsort(ids, kind="stable")
            if n > 1 and np.any(ids[sorter[1:]] == ids[sorter[:-1]]):
                dup = ids[sorter[1:]][ids[sorter[1:]] == ids[sorter[:-1]]][:5].tolist()
                raise ValueError(f"node_ids must be unique; duplicated: {dup}")
        else:
            sorter = None
            if len(set(ids.tolist())) != n:
                raise ValueError("node_ids must be unique")
        self._node_ids = _readonly(ids)
        self._sorter = sorter

        if labels is None:
            if label_names is not None:
                raise ValueError("label_names given without labels")
            self._labels = None
            self._label_names = None
        else:
            if not sp.issparse(labels):
                raise TypeError(f"labels must be a scipy.sparse (n_nodes, n_classes) matrix here, got {type(labels).__name__}; "
                                "Graph.from_edges accepts more forms")
            lab = _membership_csr(labels, n)  # a new matrix: never writes into (read-only) input arrays
            lab.indices.flags.writeable = False
            lab.indptr.flags.writeable = False
            lab.data.flags.writeable = False
            names = np.arange(lab.shape[1]) if label_names is None else np.asarray(label_names)
            if names.shape != (lab.shape[1],):
                raise ValueError(f"label_names must have one name per class ({lab.shape[1]}), got shape {names.shape}")
            self._labels = lab
            self._label_names = _readonly(names)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, edges, *, weights=None, nodes=None, directed=False, labels=None, label_names=None,
                   duplicates="sum", name=None):
        """Build a graph from an edge list.

        Parameters
        ----------
        edges : array-like of shape (m, 2) or iterable of pairs
            Endpoints, as node ids of any hashable type.  A third column is
            taken as weights when ``weights`` is not given.  Integer ids are
            kept exact at any size: ids that fit int64 are stored as int64,
            otherwise (Python ints from 2**63 on) every integer id is kept
            as a Python int in an object array.  Float ids must be whole
            numbers below 2**53 in magnitude.
        weights : array-like of shape (m,), optional
            Positive finite edge weights (default: unweighted, all 1).
        nodes : int or array-like, optional
            All node ids, fixing their order and keeping isolated nodes.  An
            int ``n`` means ids ``0..n-1`` (then ``edges`` are indices).  By
            default the ids are the sorted distinct endpoints.
        directed : bool, default False
            Keep arcs as given instead of symmetrising.
        labels : optional
            Node labels in any of these forms: a sparse or dense
            ``(n_nodes, n_classes)`` 0/1 matrix in node order; a 1-D sequence of
            one class per node (``None`` for unlabeled); or a mapping
            ``{node_id: class or iterable of classes}``.  A matrix holds only
            0 and 1 (booleans too): 1 is a membership, 0 (stored or not) is
            none, an entry stored twice is one membership; any other value
            is refused.  This is the rule of every constructor.
        label_names : array-like, optional
            Class names for ``labels`` (default ``0..k-1`` for a matrix);
            refused without ``labels``.
        duplicates : {"sum", "max", "error"}, default "sum"
            How the weights of a repeated edge are merged (in an undirected
            graph ``(u, v)`` and ``(v, u)`` are the same edge).  Unweighted
            graphs stay unweighted: a repeated edge is one edge of weight 1.
        name : str, optional

        Returns
        -------
        Graph

        Raises
        ------
        ValueError
            Ragged rows, non-finite or non-positive weights, unknown ids in
            ``labels``, label values other than 0/1, ``label_names`` without
            ``labels``, ``duplicates="error"`` with a repeated edge.
        """
        if duplicates not in _DUPLICATE_POLICIES:
            raise ValueError(f"duplicates must be one of {_DUPLICATE_POLICIES}, got {duplicates!r}")
        arr, weight_column = _edge_array(edges)
        if weight_column is not None:
            if weights is not None:
                raise ValueError("edges has a third (weight) column and weights was given too; pass one of them")
            weights = weight_column
        m = arr.shape[0]
        if weights is not None:
            w = np.asarray(weights)
            if w.shape != (m,):
                raise ValueError(f"weights must have one value per edge ({m}), got shape {w.shape}")
            try:
                w = w.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError("weights must be numbers") from None
            bad = ~np.isfinite(w) | (w <= 0)
            if np.any(bad):
                i = int(np.flatnonzero(bad)[0])
                u, v = arr[i].tolist()  # plain Python values: no np.int64(...) in the message
                raise ValueError(f"weights must be finite and positive; edge {i} ({u!r}, {v!r}) has weight {float(w[i])!r}")
        else:
            w = None

        # ids -> indices
        if nodes is not None and isinstance(nodes, numbers.Integral):
            n = int(nodes)
            if n < 0:
                raise ValueError(f"nodes must be a non-negative int or a sequence of ids, got {n}")
            node_ids = None
            idx = _as_id_array(arr, "edges")
            if idx.dtype.kind == "O" and m and all(_is_int(x) for x in idx.ravel().tolist()):
                big = [x for x in idx.ravel().tolist() if not 0 <= x < n][:1]
                raise ValueError(f"edge endpoints must lie in [0, {n}) when nodes={n}; got {big[0]}")
            if idx.dtype.kind not in "iu":
                raise ValueError(f"with nodes={n} the edges must be integer indices, got dtype {arr.dtype}")
            idx = idx.astype(np.int64, copy=False)
            if m and (idx.min() < 0 or idx.max() >= n):
                raise ValueError(f"edge endpoints must lie in [0, {n}) when nodes={n}; got range [{idx.min()}, {idx.max()}]")
        else:
            ids_flat = _as_id_array(arr, "edges").ravel()
            if nodes is None:
                if ids_flat.dtype.kind == "O":
                    order = {}
                    for key in ids_flat.tolist():
                        order.setdefault(key, len(order))
                    keys = list(order)
                    if keys and all(_is_int(k) for k in keys):
                        # integers beyond int64, kept exact: sorted, like int64 ids
                        keys.sort()
                        order = {k: i for i, k in enumerate(keys)}
                    node_ids = np.empty(len(order), dtype=object)
                    node_ids[:] = list(order)
                    idx = np.fromiter((order[k] for k in ids_flat.tolist()), dtype=np.int64, count=len(ids_flat))
                else:
                    node_ids, idx = _unique_inverse(ids_flat)
                idx = idx.reshape(m, 2).astype(np.int64, copy=False)
            else:
                node_ids = _as_id_array(nodes, "nodes")
                if node_ids.ndim != 1:
                    raise ValueError(f"nodes must be 1-D, got shape {node_ids.shape}")
                sorter = np.argsort(node_ids, kind="stable") if node_ids.dtype.kind != "O" else None
                idx = node_positions(ids_flat, node_ids, sorter, "edges").reshape(m, 2)
            n = len(node_ids)

        adj = _adjacency_from_indices(idx, w, n, directed, duplicates)
        label_matrix, names = _label_matrix(labels, label_names, node_ids, n)
        return cls(adj, node_ids=node_ids, labels=label_matrix, label_names=names, directed=directed,
                   weighted=w is not None, name=name)

    @classmethod
    def from_scipy(cls, matrix, *, node_ids=None, labels=None, label_names=None, directed=None,
                   weighted=None, duplicates="max", name=None):
        """Build a graph from a square scipy.sparse (or dense) adjacency matrix.

        For an undirected graph, entry ``(i, j)`` and ``(j, i)`` are one edge;
        an asymmetric matrix is symmetrised with ``duplicates`` ("max" by
        default, so a symmetric 0/1 matrix stays 0/1).  Self-loops (the
        diagonal) are dropped with a warning.  ``weighted`` defaults to whether
        any stored entry differs from 1.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like, shape (n, n)
            Real, finite, non-negative entries; a complex matrix is refused.
        node_ids, labels, label_names, weighted, name
            As in :meth:`from_edges` and :class:`Graph`.
        directed : bool, optional
            ``True`` keeps entry ``(i, j)`` as the arc ``i -> j``.  ``False``
            symmetrises.  The default symmetrises too, but warns
            (:class:`GraphWarning`) when the matrix is not symmetric: the
            embeddings score pairs symmetrically, so the direction of an
            arc is dropped; pass ``directed=False`` to say that is intended.
        duplicates : {"max", "sum", "error"}, default "max"
            How ``(i, j)`` and ``(j, i)`` are merged when symmetrising.

        Raises
        ------
        TypeError
            A complex or non-numeric matrix.
        ValueError
            Not square, negative or non-finite entries.
        """
        if not sp.issparse(matrix):
            matrix = np.asarray(matrix)
            if matrix.ndim != 2:
                raise ValueError(f"matrix must be 2-D, got shape {matrix.shape}")
        _check_real(matrix.dtype, "matrix")
        coo = sp.coo_matrix(matrix)
        if coo.shape[0] != coo.shape[1]:
            raise ValueError(f"matrix must be square, got shape {coo.shape}")
        coo.eliminate_zeros()
        if directed is None:
            directed = False
            csr = coo.tocsr()
            asymmetric = (csr != csr.T).nnz
            if asymmetric:
                warn_outside_lgekit(
                    f"the adjacency matrix is not symmetric ({asymmetric} entries differ from their transpose): it "
                    f"is symmetrised into an undirected graph, (i, j) and (j, i) merged by duplicates={duplicates!r}, "
                    "since lgekit's embeddings score node pairs symmetrically; pass directed=False to "
                    "Graph.from_scipy to do this without a warning, or directed=True to keep the arcs",
                    GraphWarning)
        data = coo.data.astype(np.float64)
        if weighted is None:
            weighted = bool(np.any(data != 1))
        edges = np.column_stack([coo.row, coo.col]).astype(np.int64)
        if not directed:
            keep = edges[:, 0] <= edges[:, 1]
            # an asymmetric matrix contributes its lower triangle too
            lower = ~keep
            edges = np.concatenate([edges[keep], edges[lower][:, ::-1]])
            data = np.concatenate([data[keep], data[lower]])
        bad = ~np.isfinite(data) | (data < 0)
        if np.any(bad):
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"matrix entries must be finite and non-negative; entry ({edges[i, 0]}, {edges[i, 1]}) is {float(data[i])!r}")
        n = coo.shape[0]
        adj = _adjacency_from_indices(edges, data if weighted else None, n, directed, duplicates)
        ids = None if node_ids is None else _as_id_array(node_ids, "node_ids")
        label_matrix, names = _label_matrix(labels, label_names, ids, n)
        return cls(adj, node_ids=ids, labels=label_matrix, label_names=names, directed=directed,
                   weighted=weighted, name=name)

    @classmethod
    def from_networkx(cls, nx_graph, *, weight="weight", label_attr=None, directed=None, name=None):
        """Build a graph from a networkx (Di)Graph.

        Parameters
        ----------
        nx_graph : networkx.Graph or networkx.DiGraph
        weight : str or None, default "weight"
            Edge attribute holding the weight (networkx's convention, as in
            ``networkx.to_scipy_sparse_array``): an edge without it weighs 1,
            and a graph where no edge has it is unweighted.  ``None`` ignores
            weights.  The estimators' ``fit`` reads a networkx graph the same
            way; what a weight then does is their ``weighting`` parameter.
        label_attr : str, optional
            Node attribute holding a class or an iterable of classes.
        directed : bool, optional
            For a DiGraph: ``True`` keeps the arcs; ``False`` symmetrises
            (reciprocal arcs become one edge with the larger weight).  The
            default symmetrises like ``False`` and warns once
            (:class:`GraphWarning`), since lgekit's embeddings score pairs
            symmetrically and, with arcs kept, a reversed arc could be
            sampled as a negative.  An undirected ``nx_graph`` gives an
            undirected graph; ``directed=True`` is refused for it.
        name : str, optional
            Default: ``nx_graph.name``.

        Examples
        --------
        >>> import networkx as nx
        >>> Graph.from_networkx(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), directed=False).n_edges
        2
        """
        import networkx as nx

        if not isinstance(nx_graph, nx.Graph):
            raise TypeError(f"nx_graph must be a networkx graph, got {type(nx_graph).__name__}")
        if directed is not None and not isinstance(directed, (bool, np.bool_)):
            raise TypeError(f"directed must be None, True or False, got {directed!r}")
        if nx_graph.is_directed():
            if directed is None:
                warn_outside_lgekit(
                    "nx_graph is directed: its arcs are symmetrised into undirected edges (reciprocal arcs merged, "
                    "larger weight kept), since lgekit's embeddings score node pairs symmetrically; pass "
                    "directed=False to Graph.from_networkx to do this without a warning, or directed=True to keep "
                    "the arcs", GraphWarning)
                directed = False
        elif directed:
            raise ValueError("directed=True needs a networkx DiGraph; nx_graph is undirected "
                             "(nx_graph.to_directed() gives both arcs of every edge)")
        nodes = list(nx_graph.nodes())
        node_ids = np.empty(len(nodes), dtype=object)
        node_ids[:] = nodes
        try:
            candidate = np.asarray(nodes)
            if candidate.ndim == 1 and (candidate.dtype.kind in "iu" or (
                    candidate.dtype.kind == "U" and all(isinstance(x, str) for x in nodes))):
                node_ids = candidate  # homogeneous ints or strings (mixed ids stay objects)
        except (ValueError, TypeError):
            pass
        pos = {v: i for i, v in enumerate(nodes)}
        m = nx_graph.number_of_edges()
        edges = np.empty((m, 2), dtype=np.int64)
        weights = np.ones(m) if weight is not None else None
        found = False
        for k, (u, v, data) in enumerate(nx_graph.edges(data=True)):
            edges[k, 0] = pos[u]
            edges[k, 1] = pos[v]
            if weight is not None and weight in data:
                weights[k] = data[weight]
                found = True
        if not found:
            weights = None
        labels = None
        if label_attr is not None:
            labels = {v: nx_graph.nodes[v][label_attr] for v in nodes if label_attr in nx_graph.nodes[v]}
        g = cls.from_edges(edges, weights=weights, nodes=len(nodes), directed=bool(directed),
                           duplicates="max" if nx_graph.is_directed() and not directed else "sum",
                           name=name or (nx_graph.name or None))
        return g._replace(node_ids=node_ids, labels=labels)

    # ------------------------------------------------------------------ derived graphs
    def _replace(self, *, adjacency=None, node_ids=None, labels=False, label_names=None, weighted=None):
        node_ids = self._node_ids if node_ids is None else node_ids
        if labels is False:
            lab, names = self._labels, self._label_names
        else:
            lab, names = _label_matrix(labels, label_names, np.asarray(node_ids), self.n_nodes)
        return Graph(self._adj if adjacency is None else adjacency, node_ids=node_ids, labels=lab,
                     label_names=names, directed=self._directed,
                     weighted=self._weighted if weighted is None else weighted, name=self.name)

    def with_labels(self, labels, label_names=None):
        """A copy of this graph with other node labels (see :meth:`from_edges` for the forms)."""
        return self._replace(labels=labels, label_names=label_names)

    def with_edges(self, edges, weights=None):
        """A graph on the same nodes (ids, labels) with another edge set given as index pairs.

        Used by :func:`lgekit.split_edges` to build the training graph.
        """
        idx = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        adj = _adjacency_from_indices(idx, w, self.n_nodes, self._directed, "sum")
        return self._replace(adjacency=adj, weighted=w is not None)

    # ------------------------------------------------------------------ exits
    def to_scipy(self, format="csr"):
        """A writable copy of the adjacency as a scipy.sparse matrix (symmetric if undirected)."""
        return self._adj.copy().asformat(format)

    def to_networkx(self):
        """A networkx Graph (DiGraph if directed) with node ids, ``weight`` and ``labels`` attributes."""
        import networkx as nx

        g = nx.DiGraph() if self._directed else nx.Graph()
        if self.name:
            g.graph["name"] = self.name
        ids = self._node_ids.tolist()
        g.add_nodes_from(ids)
        e = self.edges()
        if self._weighted:
            w = self.edge_weights()
            g.add_weighted_edges_from((ids[u], ids[v], float(x)) for (u, v), x in zip(e.tolist(), w))
        else:
            g.add_edges_from((ids[u], ids[v]) for u, v in e.tolist())
        if self._labels is not None:
            names = self._label_names.tolist()
            lab = self._labels
            for i in range(self.n_nodes):
                g.nodes[ids[i]]["labels"] = [names[j] for j in lab.indices[lab.indptr[i]:lab.indptr[i + 1]]]
        return g

    # ------------------------------------------------------------------ properties
    @property
    def n_nodes(self):
        """Number of nodes, isolated ones included."""
        return self._adj.shape[0]

    @property
    def n_edges(self):
        """Number of edges (each undirected edge once; arcs if directed)."""
        nnz = self._adj.nnz
        return nnz if self._directed else nnz // 2

    @property
    def is_directed(self):
        return self._directed

    @property
    def is_weighted(self):
        return self._weighted

    @property
    def indptr(self):
        """CSR row pointer (read-only)."""
        return self._adj.indptr

    @property
    def indices(self):
        """CSR column indices, sorted within each row (read-only)."""
        return self._adj.indices

    @property
    def weights(self):
        """CSR values, aligned with :attr:`indices` (read-only, all 1 if unweighted)."""
        return self._adj.data

    @property
    def degrees(self):
        """Number of neighbours of each node (out-degree if directed)."""
        return np.diff(self._adj.indptr).astype(np.int64)

    @property
    def node_ids(self):
        """External id of each node, by internal index (read-only)."""
        return self._node_ids

    @property
    def labels(self):
        """Node-by-class 0/1 CSR matrix (int8), or None."""
        return self._labels

    @property
    def label_names(self):
        return self._label_names

    @property
    def n_labels(self):
        """Number of classes (0 without labels)."""
        return 0 if self._labels is None else self._labels.shape[1]

    @property
    def isolated_nodes(self):
        """Indices of nodes with no edge (in or out)."""
        deg = np.diff(self._adj.indptr)
        if self._directed:
            deg = deg + np.bincount(self._adj.indices, minlength=self.n_nodes)
        return np.flatnonzero(deg == 0)

    def index_of(self, ids):
        """Internal index (or indices) of node id(s); KeyError names unknown ids."""
        scalar = np.ndim(ids) == 0 and not isinstance(ids, (list, tuple))
        query = node_id_query([ids] if scalar else ids)
        out = node_positions(query, self._node_ids, self._sorter, "index_of")
        return out[0] if scalar else out

    def neighbors(self, i):
        """Indices of the neighbours of node index ``i`` (read-only view).

        Raises
        ------
        KeyError
            ``i`` is not a node index (``0 <= i < n_nodes``); negative indices
            do not count from the end.  Use :meth:`index_of` for a node id.
        TypeError
            ``i`` is not an integer.
        """
        n = self.n_nodes
        if not _is_int(i):
            raise TypeError(f"neighbors takes a node index, an int in [0, {n}), got {type(i).__name__} {i!r}; "
                            "use graph.neighbors(graph.index_of(node_id)) for a node id")
        i = int(i)
        if not 0 <= i < n:
            raise KeyError(f"neighbors: node index {i} is not a node of this graph (indices run over [0, {n})); "
                           "use graph.index_of(node_id) to get the index of a node id")
        return self._adj.indices[self._adj.indptr[i]:self._adj.indptr[i + 1]]

    def edges(self):
        """Edges as an (m, 2) int64 array of indices: each undirected edge once with u < v, sorted."""
        adj = self._adj
        rows = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(adj.indptr))
        cols = adj.indices.astype(np.int64)
        if self._directed:
            return np.column_stack([rows, cols])
        keep = rows < cols
        return np.column_stack([rows[keep], cols[keep]])

    def edge_weights(self):
        """Weights aligned with :meth:`edges`."""
        adj = self._adj
        if self._directed:
            return adj.data.copy()
        rows = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(adj.indptr))
        return adj.data[rows < adj.indices]

    def has_edges(self, pairs):
        """Boolean array: is each index pair (u, v) an edge?  Vectorised binary search in the CSR.

        ``pairs`` is an ``(k, 2)`` integer array of node indices (the rule of
        :func:`lgekit._validation.check_pairs`: floats are refused, not truncated).
        """
        pairs = check_pairs(pairs, self.n_nodes, "pairs")
        if len(pairs) == 0:
            return np.zeros(0, dtype=bool)
        u, v = pairs[:, 0], pairs[:, 1]
        n = self.n_nodes
        # a key per stored entry; rows are sorted and columns sorted within rows
        adj = self._adj
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(adj.indptr))
        keys = rows * n + adj.indices
        q = u * n + v
        pos = np.searchsorted(keys, q)
        pos = np.minimum(pos, max(len(keys) - 1, 0))
        return (keys[pos] == q) if len(keys) else np.zeros(len(q), bool)

    def summary(self):
        """Plain-dict statistics (for printing, records and the CLI)."""
        deg = self.degrees
        return {
            "name": self.name,
            "n_nodes": int(self.n_nodes),
            "n_edges": int(self.n_edges),
            "directed": self._directed,
            "weighted": self._weighted,
            "mean_degree": float(deg.mean()) if len(deg) else 0.0,
            "max_degree": int(deg.max()) if len(deg) else 0,
            "n_isolated": int(len(self.isolated_nodes)),
            "n_labels": int(self.n_labels),
            "n_memberships": int(self._labels.nnz) if self._labels is not None else 0,
        }

    def __repr__(self):
        s = self.summary()
        kind = "directed" if s["directed"] else "undirected"
        extra = f", {s['n_labels']} labels" if s["n_labels"] else ""
        extra += f", {s['n_isolated']} isolated" if s["n_isolated"] else ""
        extra += ", weighted" if s["weighted"] else ""
        name = f"{self.name!r}: " if self.name else ""
        return f"<Graph {name}{s['n_nodes']} nodes, {s['n_edges']} {kind} edges{extra}>"

    def __len__(self):
        return self.n_nodes


# ---------------------------------------------------------------------- helpers
def _unique_inverse(values):
    """``np.unique(values, return_inverse=True)`` by one argsort.

    NumPy 2.x's ``unique`` with ``return_inverse`` takes seconds on the
    millions of endpoints of a 500k-node edge list; a stable argsort and a
    cumulative sum give the same result in a fraction of that.
    """
    order = np.argsort(values)  # ties may come in any order: the inverse is the same
    ordered = values[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def _edge_array(edges):
    """Validate the shape of an edge list; return (ids, an (m, 2) array; the weight column or None)."""
    if isinstance(edges, np.ndarray):
        if edges.ndim != 2 or edges.shape[1] not in (2, 3):
            raise ValueError(f"edges must have shape (m, 2) or (m, 3) with weights, got {edges.shape}")
        return edges[:, :2], (edges[:, 2] if edges.shape[1] == 3 else None)
    rows = list(edges)
    try:
        lengths = {len(r) for r in rows} if rows else {2}
    except TypeError:
        bad = next(r for r in rows if not hasattr(r, "__len__"))
        raise ValueError(f"edges must be pairs (u, v) or triples (u, v, weight), got an entry {bad!r}") from None
    if len(lengths) > 1:
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise ValueError(f"edges are ragged: row 0 has {len(rows[0])} entries, row {bad} has {len(rows[bad])}")
    k = lengths.pop()
    if k not in (2, 3):
        raise ValueError(f"edges must have shape (m, 2) or (m, 3) with weights, got {(len(rows), k)}")
    # the ids apart from the weights: one float weight must not turn the ids into float64
    pairs = [(r[0], r[1]) for r in rows]
    weights = [r[2] for r in rows] if k == 3 else None
    try:
        arr = np.asarray(pairs) if pairs else np.empty((0, 2), dtype=np.int64)
    except (ValueError, OverflowError):  # inhomogeneous nesting, e.g. tuple ids of different lengths
        arr = None
    # NumPy would turn ids of mixed types into strings (1 -> "1"), tuple ids into a third
    # axis, and ints beyond 2**63 (with every other id) into float64: keep such ids as objects
    if arr is None or arr.ndim != 2 or (
            arr.dtype.kind in "US" and not all(isinstance(x, str) for p in pairs for x in p)) or (
            arr.dtype.kind in "fO" and any(_is_int(x) and abs(x) >= _EXACT_FLOAT for p in pairs for x in p)):
        arr = np.empty((len(pairs), 2), dtype=object)
        for i, (u, v) in enumerate(pairs):
            arr[i, 0] = u
            arr[i, 1] = v
    return arr, (None if weights is None else np.asarray(weights, dtype=object))


def _adjacency_from_indices(idx, weights, n, directed, duplicates):
    """CSR adjacency from index pairs: drop self-loops (warn), merge duplicates, symmetrise."""
    idx = np.asarray(idx, dtype=np.int64).reshape(-1, 2)
    u, v = idx[:, 0], idx[:, 1]
    loops = u == v
    n_loops = int(loops.sum())
    if n_loops:
        warnings.warn(f"dropped {n_loops} self-loop(s)", GraphWarning, stacklevel=3)
        u, v = u[~loops], v[~loops]
        if weights is not None:
            weights = weights[~loops]
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    key = u * max(n, 1) + v
    order = np.argsort(key, kind="stable")
    key = key[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    if duplicates == "error" and not first.all():
        k = int(np.flatnonzero(~first)[0])
        raise ValueError(f"edge ({u[order][k]}, {v[order][k]}) is repeated and duplicates='error'")
    starts = np.flatnonzero(first)
    uu, vv = u[order][starts], v[order][starts]
    if weights is None:
        w = np.ones(len(starts))
    else:
        w_sorted = np.asarray(weights, dtype=np.float64)[order]
        w = (np.maximum if duplicates == "max" else np.add).reduceat(w_sorted, starts) if len(starts) else np.zeros(0)
    if not directed:
        uu, vv, w = np.concatenate([uu, vv]), np.concatenate([vv, uu]), np.concatenate([w, w])
    return sp.csr_matrix((w, (uu, vv)), shape=(n, n))


def _check_real(dtype, what):
    """Refuse complex and non-numeric matrices (their imaginary parts or text would be dropped silently)."""
    if np.dtype(dtype).kind not in "biuf":
        raise TypeError(f"{what} must hold real numbers (bool, int or float), got dtype {np.dtype(dtype)}")


def _membership_csr(labels, n, what="labels"):
    """The 0/1 CSR (int8) membership matrix of a sparse or dense (n, k) label matrix.

    The one rule for label values, whatever the constructor: entries are 0 or
    1 (booleans allowed); a stored 0 is no membership (a sparse matrix may hold
    explicit zeros); an entry stored twice is one membership; anything else
    (-1, 5, 0.5, NaN) is refused rather than guessed at.
    """
    if not sp.issparse(labels):
        labels = np.asarray(labels)
    _check_real(labels.dtype, what)
    coo = sp.coo_matrix(labels)
    if coo.shape[0] != n:
        raise ValueError(f"{what} must have one row per node ({n}), got {coo.shape[0]}")
    data = coo.data
    bad = ~((data == 0) | (data == 1))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} must hold 0/1 memberships (1: member, 0 or absent: not), got {data[i].item()!r} "
                         f"at node index {int(coo.row[i])}, class {int(coo.col[i])}")
    keep = data == 1
    mat = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (coo.row[keep], coo.col[keep])),
                        shape=coo.shape)
    mat.sum_duplicates()
    mat.data[:] = 1  # a membership stored twice was summed to 2
    mat.sort_indices()
    return mat


def _label_matrix(labels, label_names, node_ids, n):
    """Normalise the accepted label forms to (csr int8 matrix, names) or (None, None)."""
    if labels is None:
        if label_names is not None:
            raise ValueError("label_names given without labels; pass labels too, or drop label_names")
        return None, None
    if sp.issparse(labels) or (isinstance(labels, np.ndarray) and labels.ndim == 2):
        return _membership_csr(labels, n), label_names
    if isinstance(labels, dict):
        if node_ids is None:
            node_index = {i: i for i in range(n)}
        else:
            node_index = {key: i for i, key in enumerate(np.asarray(node_ids).tolist())}
        rows, values = [], []
        for key, value in labels.items():
            if key not in node_index:
                raise ValueError(f"labels given for unknown node id {key!r}")
            items = [value] if isinstance(value, (str, bytes, numbers.Number)) or value is None else list(value)
            for item in items:
                if item is not None:
                    rows.append(node_index[key])
                    values.append(item)
    else:
        seq = list(labels)
        if len(seq) != n:
            raise ValueError(f"a per-node label sequence must have one entry per node ({n}), got {len(seq)}")
        rows = [i for i, value in enumerate(seq) if value is not None]
        values = [seq[i] for i in rows]
    if label_names is not None:
        names = np.asarray(label_names)
        lookup = {key: j for j, key in enumerate(names.tolist())}
        try:
            cols = [lookup[v] for v in values]
        except KeyError as exc:
            raise ValueError(f"label {exc.args[0]!r} is not among label_names") from None
    else:
        names, cols = np.unique(np.asarray(values), return_inverse=True) if values else (np.empty(0), [])
    mat = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                        shape=(n, len(names)))
    return mat, names
