"""The graph every lgekit component consumes: an immutable CSR adjacency with node ids and labels."""
import logging
import os
import sys
import warnings
from typing import NamedTuple

import numpy as np

from ._interop import checked_weights, dataframe_edges, is_dataframe, networkx_parts, to_networkx
from ._validation import check_pairs
from .adjacency import (adjacency_from_pairs, biadjacency_block, bipartite_adjacency, canonical_adjacency, check_n_left,
                        matrix_pairs, square_matrix)
from .ids import (
    as_id_array,
    concat_ids,
    edge_id_array,
    ids_to_indices,
    is_integer_id,
    node_id_query,
    node_id_table,
    node_positions,
    two_sided_ids_to_indices,
    two_sided_positions,
)
from .labels import graph_labels, label_matrix

__all__ = ["DUPLICATES", "Graph", "GraphWarning", "TableSides"]

logger = logging.getLogger(__name__)

#: how every entry point merges a pair given more than once (see "Edge weights" in :class:`Graph`)
DUPLICATES = "max"
_DUPLICATE_POLICIES = ("max", "sum", "last", "error")


class TableSides(NamedTuple):
    """The two tables of a directed or bipartite graph's model (see :meth:`Graph.table_sides`)."""

    n_source: int
    n_target: int
    target_offset: int


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


class Graph:
    """An immutable graph in compressed sparse row (CSR) form.

    Nodes are numbered ``0..n_nodes-1`` internally; ``node_ids`` maps those
    indices back to the user's labels (ints, strings, any hashable).  By
    default a graph is undirected and simple: edges are symmetrised, duplicate
    edges are merged and self-loops are dropped with a :class:`GraphWarning`
    that counts them.  Isolated nodes are kept.

    **Edge weights** (the one rule of every entry point: an edge-list file,
    an array, a DataFrame, networkx, scipy).  A pair given more than once is
    one edge, whose weight is the largest given; in an undirected or
    bipartite graph ``(u, v)`` and ``(v, u)`` are the same pair.  So a file
    that lists both directions (``1 2 3`` and ``2 1 3``), a symmetric matrix
    and a networkx graph all give that edge weight 3, never 6, and exact
    duplicate lines count once.  ``duplicates="sum"`` (on :meth:`from_edges`,
    :meth:`from_pandas`, :meth:`from_networkx` and :meth:`from_scipy`) adds
    the weights instead, for lines that count interactions; ``"last"`` keeps
    the one given last (networkx's rule, as ``networkx.from_pandas_edgelist``
    reads a DataFrame); ``"error"`` refuses a repeat.  An unweighted graph
    stays unweighted: a repeated edge weighs 1.  (A sparse matrix's own
    entries are first what scipy makes of them: one stored twice is their
    sum.)

    A graph is of one of three kinds (:attr:`kind`):

    * ``"undirected"`` (the default): the CSR is symmetric, :meth:`edges`
      lists each edge once as ``(u, v)`` with ``u < v``;
    * ``"directed"`` (``directed=True``): row ``u`` of the CSR holds the
      targets of the arcs leaving ``u``; :meth:`edges` lists arcs
      ``(source, target)``;
    * ``"bipartite"`` (``n_left`` given): two node sets, the left set ``U``
      (indices ``0..n_left-1``) and the right set ``V`` (indices
      ``n_left..n_nodes-1``), every edge joining ``U`` to ``V``.  The CSR is
      stored symmetric, so every algorithm for undirected graphs runs on it
      unchanged; :meth:`edges` lists each edge once as ``(left index, right
      index)``.  Each side has its own ids (:attr:`left_ids`,
      :attr:`right_ids`): the same id may name a left and a right node,
      and :meth:`index_of` takes ``side=`` to tell them apart.

    Build one with :meth:`from_edges`, :meth:`from_scipy`,
    :meth:`from_networkx`, :meth:`from_pandas` or :meth:`from_biadjacency`,
    or with :func:`lgekit.datasets.load`.

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
        Keep ``adjacency`` as arcs (row: source, column: target).
    weighted : bool, optional
        Whether edge weights are meaningful (default: any weight differs from 1).
    name : str, optional
        Free-form name shown by ``repr`` and used in experiment records.
    n_left : int, optional
        Make the graph bipartite: nodes ``0..n_left-1`` are the left set,
        the others the right set.  ``adjacency`` must then be symmetric with
        no entry inside a side, and ``directed`` False.  ``node_ids`` must be
        unique within each side (the sides are separate id namespaces).

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

    A bipartite graph of users and items whose ids overlap:

    >>> b = Graph.from_edges([(1, 1), (1, 2), (2, 2)], bipartite=True)
    >>> b.kind, b.n_left, b.n_right, b.left_ids.tolist(), b.right_ids.tolist()
    ('bipartite', 2, 2, [1, 2], [1, 2])
    >>> b.edges().tolist()
    [[0, 2], [0, 3], [1, 3]]
    >>> int(b.index_of(2, side="left")), int(b.index_of(2, side="right"))
    (1, 3)
    """

    __slots__ = ("_adj", "_node_ids", "_sorter", "_labels", "_label_names", "_directed", "_weighted", "name",
                 "_n_left")

    def __init__(self, adjacency, *, node_ids=None, labels=None, label_names=None, directed=False,
                 weighted=None, name=None, n_left=None):
        # the invariants every kernel relies on, checked; canonical, read-only arrays
        adj, n_left = canonical_adjacency(adjacency, directed, n_left)
        n = adj.shape[0]
        self._adj, self._n_left = adj, n_left
        self._directed = bool(directed)
        self._weighted = bool(np.any(adj.data != 1.0)) if weighted is None else bool(weighted)
        self.name = name

        ids, self._sorter = node_id_table(node_ids, n, n_left)
        self._node_ids = _readonly(ids)
        self._labels, self._label_names = graph_labels(labels, label_names, n)
        if self._labels is not None:
            for part in (self._labels.indices, self._labels.indptr, self._labels.data, self._label_names):
                _readonly(part)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, edges, *, weights=None, nodes=None, directed=False, labels=None, label_names=None,
                   duplicates=DUPLICATES, name=None, bipartite=False):
        """Build a graph from an edge list.

        Parameters
        ----------
        edges : array-like of shape (m, 2), iterable of pairs, or pandas.DataFrame
            Endpoints, as node ids of any hashable type, kept exactly (the
            rules of :mod:`lgekit.ids`: integers at any size, floats only
            when whole and below 2**53, text as written).  A third column is
            taken as weights when ``weights`` is not given.  A DataFrame is
            read by name when it has a ``source`` or ``target`` column (and
            ``weight``), else by position, and a column that would be ignored
            is refused (:func:`lgekit.datasets.as_graph`; :meth:`from_pandas`
            picks columns freely).
        weights : array-like of shape (m,), optional
            Positive finite edge weights (default: unweighted, all 1).
        nodes : int or array-like, optional
            All node ids, fixing their order and keeping isolated nodes.  An
            int ``n`` means ids ``0..n-1`` (then ``edges`` are indices).  By
            default the ids are the sorted distinct endpoints.  With
            ``bipartite=True``, a pair ``(left nodes, right nodes)``, each an
            int or a sequence of ids as above.
        directed : bool, default False
            Keep arcs ``(source, target)`` as given instead of symmetrising.
        labels : optional
            A ``(n_nodes, n_classes)`` 0/1 matrix in node order, a sequence
            of one class per node (``None``: unlabeled) or a mapping
            ``{node_id: class or classes}``; the one rule of every
            constructor is :func:`lgekit.labels.label_matrix`'s.
        label_names : array-like, optional
            Class names for ``labels`` (default ``0..k-1`` for a matrix);
            refused without ``labels``.
        duplicates : {"max", "sum", "last", "error"}, default "max"
            How the weights of a repeated edge are merged: the rule of
            every entry point, "Edge weights" in :class:`Graph`.
        name : str, optional
        bipartite : bool, default False
            Build a bipartite graph: the first column holds left ids, the
            second right ids, and the two are separate namespaces (left id 3
            and right id 3 are two nodes).  Left nodes come first, each side
            numbered as ``nodes`` says (by default its sorted distinct ids);
            ``labels`` in node order (left, then right).  A pair never forms
            a self-loop.  Refused together with ``directed=True``.

        Returns
        -------
        Graph

        Raises
        ------
        ValueError
            Ragged rows, non-finite or non-positive weights, unknown ids in
            ``labels``, label values other than 0/1, ``label_names`` without
            ``labels``, ``duplicates="error"`` with a repeated edge;
            ``bipartite=True`` with ``directed=True`` or ``nodes`` not a pair.

        Examples
        --------
        >>> g = Graph.from_edges([("ann", "film"), ("bob", "film"), ("bob", "song")], bipartite=True)
        >>> g
        <Graph 4 nodes (2 left, 2 right), 3 bipartite edges>
        >>> g.left_ids.tolist(), g.right_ids.tolist(), g.edges().tolist()
        (['ann', 'bob'], ['film', 'song'], [[0, 2], [1, 2], [1, 3]])
        """
        _check_duplicates(duplicates)
        arr, weight_column = dataframe_edges(edges, None, None, None, "edges") if is_dataframe(edges) else \
            edge_id_array(edges)
        if weight_column is not None:
            if weights is not None:
                raise ValueError("edges has a third (weight) column and weights was given too; pass one of them")
            weights = weight_column
        m = arr.shape[0]
        if weights is not None:
            w = np.asarray(weights)
            if w.shape != (m,):
                raise ValueError(f"weights must have one value per edge ({m}), got shape {w.shape}")
            w = checked_weights(w, lambda i: "edge {} ({!r}, {!r})".format(i, *arr[i].tolist()))
        else:
            w = None

        # ids -> indices
        if bipartite:
            if directed:
                raise ValueError("bipartite=True and directed=True: a bipartite graph is stored undirected (its "
                                 "edges join the two sides); pass one of them")
            node_ids, idx, n, n_left = two_sided_ids_to_indices(arr, nodes)
        else:
            n_left = None
            node_ids, idx, n = ids_to_indices(arr, nodes, "nodes", "edges")

        adj = _adjacency_from_indices(idx, w, n, directed, duplicates)
        lab, names = label_matrix(labels, label_names, node_ids, n)
        return cls(adj, node_ids=node_ids, labels=lab, label_names=names, directed=directed,
                   weighted=w is not None, name=name, n_left=n_left)

    @classmethod
    def from_scipy(cls, matrix, *, node_ids=None, labels=None, label_names=None, directed=None,
                   weighted=None, duplicates=DUPLICATES, name=None, n_left=None):
        """Build a graph from a square scipy.sparse (or dense) adjacency matrix.

        For an undirected graph, entry ``(i, j)`` and ``(j, i)`` are one edge;
        an asymmetric matrix is symmetrised with ``duplicates`` (the larger
        by default, the rule of every entry point: "Edge weights" in
        :class:`Graph`; so a symmetric matrix keeps its values).  Self-loops (the
        diagonal) are dropped with a warning.  ``weighted`` defaults to whether
        any stored entry differs from 1.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like, shape (n, n)
            Real, finite, non-negative entries; a complex matrix is refused.
            Entries stored twice in a sparse matrix are summed (scipy's
            rule: the matrix is what ``matrix.toarray()`` shows).
        node_ids, labels, label_names, weighted, name
            As in :meth:`from_edges` and :class:`Graph`.
        directed : bool, optional
            ``True`` keeps entry ``(i, j)`` as the arc ``i -> j``.  ``False``
            symmetrises.  The default symmetrises too, but warns
            (:class:`GraphWarning`) when the matrix is not symmetric: the
            direction of an arc is dropped, which should be asked for; pass
            ``directed=False`` to say that is intended.
        duplicates : {"max", "sum", "last", "error"}, default "max"
            How ``(i, j)`` and ``(j, i)`` are merged when symmetrising.
        n_left : int, optional
            A bipartite graph: rows/columns ``0..n_left-1`` are the left
            nodes, the others the right nodes (as :meth:`to_scipy` gives
            them; :meth:`from_biadjacency` takes the ``(n_left, n_right)``
            block alone).  The matrix is symmetrised (no warning: a bipartite
            graph is undirected) and may hold no entry inside a side.

        Raises
        ------
        TypeError
            A complex or non-numeric matrix.
        ValueError
            Not square, negative or non-finite entries; an entry inside a
            side with ``n_left``; ``n_left`` with ``directed=True``.
        """
        _check_duplicates(duplicates)
        coo = square_matrix(matrix)
        if n_left is not None:
            n_left = check_n_left(n_left, coo.shape[0], directed)
            directed = False
        if directed is None:
            directed = False
            csr = coo.tocsr()
            asymmetric = (csr != csr.T).nnz
            if asymmetric:
                warn_outside_lgekit(
                    f"the adjacency matrix is not symmetric ({asymmetric} entries differ from their transpose): it "
                    f"is symmetrised into an undirected graph, (i, j) and (j, i) merged by duplicates={duplicates!r}, "
                    "so the direction of every arc is dropped; pass directed=False to "
                    "Graph.from_scipy to do this without a warning, or directed=True to keep the arcs",
                    GraphWarning)
        edges, data = matrix_pairs(coo, directed)   # an undirected graph's (i, j) and (j, i) merge by duplicates
        if weighted is None:
            weighted = bool(np.any(data != 1))
        n = coo.shape[0]
        adj = _adjacency_from_indices(edges, data if weighted else None, n, directed, duplicates)
        ids = None if node_ids is None else as_id_array(node_ids, "node_ids")
        lab, names = label_matrix(labels, label_names, ids, n)
        return cls(adj, node_ids=ids, labels=lab, label_names=names, directed=directed,
                   weighted=weighted, name=name, n_left=n_left)

    @classmethod
    def from_biadjacency(cls, matrix, *, left_ids=None, right_ids=None, labels=None, label_names=None,
                         weighted=None, name=None):
        """Build a bipartite graph from its ``(n_left, n_right)`` biadjacency matrix.

        Entry ``(i, j)`` is an edge between left node ``i`` and right node
        ``j`` (as networkx's ``bipartite.from_biadjacency_matrix`` reads it);
        the graph's adjacency is the symmetric block matrix
        ``[[0, B], [B^T, 0]]``, so left node ``i`` is node index ``i`` and
        right node ``j`` is node index ``n_left + j``.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array-like, shape (n_left, n_right)
            Real, finite, non-negative entries; zeros are no edge; entries
            stored twice in a sparse matrix are summed (scipy's rule).
        left_ids, right_ids : array-like, optional
            Ids of the left and right nodes (default ``0..n_left-1`` and
            ``0..n_right-1``: two id namespaces, see :meth:`index_of`).
            Unique within a side.
        labels, label_names
            As in :meth:`from_edges`, in node order (left, then right).
        weighted : bool, optional
            Default: whether any stored entry differs from 1.
        name : str, optional

        Returns
        -------
        Graph
            ``kind == "bipartite"``.

        Raises
        ------
        TypeError
            A complex or non-numeric matrix.
        ValueError
            Not 2-D, negative or non-finite entries, ids of the wrong length
            or repeated within a side.

        Examples
        --------
        >>> g = Graph.from_biadjacency([[1, 0, 1], [0, 1, 0]], right_ids=["x", "y", "z"])
        >>> g
        <Graph 5 nodes (2 left, 3 right), 3 bipartite edges>
        >>> g.edges().tolist(), g.biadjacency().toarray().tolist()
        ([[0, 2], [0, 4], [1, 3]], [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        """
        block = biadjacency_block(matrix)
        n_left, n_right = block.shape
        ids = []
        for side_ids, count, what, where in ((left_ids, n_left, "left_ids", "row"),
                                             (right_ids, n_right, "right_ids", "column")):
            ids.append(np.arange(count, dtype=np.int64) if side_ids is None else as_id_array(side_ids, what))
            if ids[-1].shape != (count,):
                raise ValueError(f"{what} must have one id per {where} of matrix ({count}), got shape {ids[-1].shape}")
        node_ids = concat_ids(*ids)
        adj = bipartite_adjacency(block)
        if weighted is None:
            weighted = bool(np.any(block.data != 1))
        lab, names = label_matrix(labels, label_names, node_ids, n_left + n_right)
        return cls(adj, node_ids=node_ids, labels=lab, label_names=names, weighted=weighted, name=name,
                   n_left=n_left)

    @classmethod
    def from_networkx(cls, nx_graph, *, weight="weight", label_attr=None, directed=None, name=None,
                      bipartite=None, duplicates=DUPLICATES):
        """Build a graph from a networkx graph, keeping its kind.

        A ``DiGraph`` or ``MultiDiGraph`` gives a directed graph (it used to
        be symmetrised with a warning: pass ``directed=False`` for that), a
        graph whose nodes carry networkx's ``bipartite`` attribute a
        bipartite one, any other graph an undirected one.

        Parameters
        ----------
        nx_graph : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
            Parallel edges of a multigraph, and reciprocal arcs read with
            ``directed=False``, are one edge merged by ``duplicates``.
        weight : str or None, default "weight"
            Edge attribute holding the weight, a finite positive number
            (networkx's convention): an edge without it weighs 1, a graph
            where no edge has it is unweighted; ``None`` ignores weights.
            What a weight does is the estimators' ``weighting`` parameter.
        label_attr : str, optional
            Node attribute holding a class or an iterable of classes.
        directed : bool, optional
            Default: whether ``nx_graph`` is directed.  ``False`` symmetrises
            a directed graph (reciprocal arcs become one edge, merged by
            ``duplicates``); ``True`` is refused for an undirected ``nx_graph``
            (``nx_graph.to_directed()`` gives both arcs of every edge).
        name : str, optional
            Default: ``nx_graph.name``.
        bipartite : str, bool or None, default None
            The node attribute giving each node's side (0: left, 1: right;
            :mod:`networkx.algorithms.bipartite`).  ``None`` detects it: an
            undirected graph (or one read with ``directed=False``) whose
            every node has ``bipartite`` 0 or 1 and every edge joins the
            sides is bipartite.  ``True`` or an attribute name requires it
            (a node without it, another value or an edge inside a side is a
            ``ValueError``); ``False`` reads the edges alone.  Left nodes
            come first, each side in ``nx_graph``'s order.
        duplicates : {"max", "sum", "last", "error"}, default "max"
            How the weights of parallel edges merge: the rule of every entry
            point, "Edge weights" in :class:`Graph` (``"sum"`` adds a
            multigraph's parallel edges).

        Raises
        ------
        TypeError
            Not a networkx graph; ``directed`` or ``bipartite`` of the wrong type.
        ValueError
            A weight that is not a finite positive number (``None``, ``"a"``,
            ``nan``, ``0``, ``10**400``); a required ``bipartite`` attribute
            missing or not 0/1, or an edge inside a side.

        Examples
        --------
        >>> import networkx as nx
        >>> Graph.from_networkx(nx.DiGraph([(0, 1), (1, 0), (1, 2)]))
        <Graph 3 nodes, 3 directed edges>
        >>> Graph.from_networkx(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), directed=False).n_edges
        2
        >>> Graph.from_networkx(nx.complete_bipartite_graph(2, 3), name="K23")  # nodes carry bipartite=0 or 1
        <Graph 'K23': 5 nodes (2 left, 3 right), 6 bipartite edges>
        """
        _check_duplicates(duplicates)
        parts = networkx_parts(nx_graph, weight=weight, label_attr=label_attr, directed=directed, bipartite=bipartite)
        weights = None if parts.weights is None else checked_weights(parts.weights, parts.describe_edge, attr=weight)
        g = cls.from_edges(parts.edges, weights=weights, nodes=len(parts.node_ids), directed=parts.directed,
                           duplicates=duplicates, name=name or (nx_graph.name or None))
        if parts.n_left is not None:
            g = Graph(g._adj, weighted=g.is_weighted, name=g.name, n_left=parts.n_left)
        return g._replace(node_ids=parts.node_ids, labels=parts.labels)

    @classmethod
    def from_pandas(cls, df, source="source", target="target", weight=None, *, nodes=None, directed=False,
                    labels=None, label_names=None, duplicates=DUPLICATES, name=None, bipartite=False):
        """Build a graph from a pandas DataFrame with a row per edge, its columns named as networkx names them.

        The arguments ``source``, ``target`` and ``weight`` mean what
        ``networkx.from_pandas_edgelist``'s ``source``, ``target`` and
        ``edge_attr`` (one column) mean, and node ids compare as networkx
        compares them (``1`` and ``"1"`` are two nodes).  Where a Graph
        differs from networkx's reading:

        * a pair given in more than one row is merged by ``duplicates``: the
          largest weight by default (the rule of every entry point, "Edge
          weights" in :class:`Graph`); networkx keeps the last row's, which
          ``duplicates="last"`` gives;
        * a self-loop (``u == v``) is dropped with a :class:`GraphWarning`
          pointing at the caller's line (networkx keeps it; a Graph has none,
          as the models score pairs of distinct nodes);
        * a missing id (NaN, None, ``pd.NA``) is refused with its row label
          (networkx makes a node of it);
        * a whole float id (``2.0``) is the int ``2`` (:mod:`lgekit.ids`).

        Parameters
        ----------
        df : pandas.DataFrame
        source, target : column names, default "source" and "target"
            The columns holding each edge's two node ids (or its source and
            target, with ``directed=True``; its left and right ids, with
            ``bipartite=True``).  The ids are read as :meth:`from_edges`
            reads them: exact integers of any size, text as written.
        weight : column name, optional
            The column holding each edge's weight (finite and positive);
            default: unweighted (networkx's ``edge_attr=None``): other columns
            are not read.  To read every column or refuse one that would be
            ignored, pass ``df`` to :func:`lgekit.datasets.as_graph` (or to
            ``fit``, ``split_edges``, ...).
        duplicates : {"max", "sum", "last", "error"}, default "max"
            How the weights of a repeated pair merge (see above).
        nodes, directed, labels, label_names, name, bipartite
            As in :meth:`from_edges`.

        Raises
        ------
        TypeError
            ``df`` is not a DataFrame.
        ValueError
            A column that ``df`` does not have (the message lists the ones it
            has), a missing id, a bad weight (named by its edge's ids).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"from": ["ann", "bob"], "to": ["bob", "cid"], "w": [1.0, 2.5]})
        >>> g = Graph.from_pandas(df, source="from", target="to", weight="w")
        >>> g, g.node_ids.tolist(), g.edge_weights().tolist()
        (<Graph 3 nodes, 2 undirected edges, weighted>, ['ann', 'bob', 'cid'], [1.0, 2.5])
        >>> both = pd.DataFrame({"source": [1, 2], "target": [2, 1], "weight": [5.0, 3.0]})
        >>> [Graph.from_pandas(both, weight="weight", duplicates=d).edge_weights().tolist() for d in ("max", "last")]
        [[5.0], [3.0]]
        """
        if not is_dataframe(df):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}; Graph.from_edges takes "
                            "other edge lists")
        if source is None or target is None:
            raise ValueError(f"source and target must name columns of df (its columns are {list(df.columns)}), "
                             f"got source={source!r}, target={target!r}")
        edges, weights = dataframe_edges(df, source, target, weight)
        return cls.from_edges(edges, weights=weights, nodes=nodes, directed=directed, labels=labels,
                              label_names=label_names, duplicates=duplicates, name=name, bipartite=bipartite)

    # ------------------------------------------------------------------ derived graphs
    def _replace(self, *, adjacency=None, node_ids=None, labels=False, label_names=None, weighted=None):
        node_ids = self._node_ids if node_ids is None else node_ids
        if labels is False:
            lab, names = self._labels, self._label_names
        else:
            lab, names = label_matrix(labels, label_names, np.asarray(node_ids), self.n_nodes)
        return Graph(self._adj if adjacency is None else adjacency, node_ids=node_ids, labels=lab,
                     label_names=names, directed=self._directed,
                     weighted=self._weighted if weighted is None else weighted, name=self.name,
                     n_left=self._n_left)

    def with_labels(self, labels, label_names=None):
        """A copy of this graph with other node labels (see :meth:`from_edges` for the forms)."""
        return self._replace(labels=labels, label_names=label_names)

    def with_edges(self, edges, weights=None):
        """A graph on the same nodes (ids, labels, kind) with another edge set given as index pairs.

        Used by :func:`lgekit.split_edges` to build the training graph.  For a
        directed graph the pairs are arcs ``(source, target)``; for a
        bipartite graph each pair must join the two sides (a ``ValueError``
        otherwise).
        """
        idx = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        adj = _adjacency_from_indices(idx, w, self.n_nodes, self._directed, "sum")
        return self._replace(adjacency=adj, weighted=w is not None)

    # ------------------------------------------------------------------ exits
    def to_scipy(self, format="csr"):
        """A writable copy of the adjacency as a scipy.sparse matrix.

        Square, ``(n_nodes, n_nodes)``: symmetric if undirected or bipartite
        (the two off-diagonal blocks of a bipartite graph are :meth:`biadjacency`
        and its transpose), rows the sources if directed.
        ``Graph.from_scipy(g.to_scipy(), node_ids=g.node_ids, n_left=g.n_left,
        directed=g.is_directed)`` gives ``g`` back.
        """
        return self._adj.copy().asformat(format)

    def biadjacency(self, format="csr"):
        """The ``(n_left, n_right)`` biadjacency matrix of a bipartite graph (a writable copy).

        Entry ``(i, j)`` is the weight of the edge between left node ``i`` and
        right node ``j`` (node index ``n_left + j``).  The inverse of
        :meth:`from_biadjacency`.

        Raises
        ------
        ValueError
            The graph is not bipartite.
        """
        if self._n_left is None:
            raise ValueError(f"biadjacency needs a bipartite graph; this one is {self.kind} "
                             "(build one with Graph.from_biadjacency or bipartite=True)")
        return self._adj[:self._n_left, self._n_left:].asformat(format, copy=True)

    def to_networkx(self):
        """A networkx graph with node ids, ``weight`` and ``labels`` attributes.

        A ``DiGraph`` if directed, else a ``Graph``.  The nodes of a
        bipartite graph carry networkx's ``bipartite`` attribute (0: left,
        1: right), as :mod:`networkx.algorithms.bipartite` expects.  A
        networkx node is one node, so when the two sides share an id the
        nodes are named ``(0, left id)`` and ``(1, right id)`` instead
        (when the ids are disjoint they are the ids themselves);
        ``Graph.from_networkx(h, bipartite="bipartite")`` reads either back
        (the tuples then are the ids).
        """
        return to_networkx(self)

    # ------------------------------------------------------------------ properties
    @property
    def n_nodes(self):
        """Number of nodes, isolated ones included."""
        return self._adj.shape[0]

    @property
    def n_edges(self):
        """Number of edges (each undirected or bipartite edge once; arcs if directed)."""
        nnz = self._adj.nnz
        return nnz if self._directed else nnz // 2

    @property
    def is_directed(self):
        """True for a directed graph (``kind == "directed"``) only."""
        return self._directed

    @property
    def kind(self):
        """``"undirected"``, ``"directed"`` or ``"bipartite"``."""
        if self._n_left is not None:
            return "bipartite"
        return "directed" if self._directed else "undirected"

    @property
    def is_bipartite(self):
        """True for a bipartite graph (``kind == "bipartite"``)."""
        return self._n_left is not None

    @property
    def n_left(self):
        """Number of left nodes (indices ``0..n_left-1``) of a bipartite graph; None for other kinds."""
        return self._n_left

    @property
    def n_right(self):
        """Number of right nodes (indices ``n_left..n_nodes-1``) of a bipartite graph; None for other kinds."""
        return None if self._n_left is None else self.n_nodes - self._n_left

    @property
    def left_ids(self):
        """Ids of the left nodes, in index order (read-only); None unless bipartite."""
        return None if self._n_left is None else self._node_ids[:self._n_left]

    @property
    def right_ids(self):
        """Ids of the right nodes: right node ``j`` is node index ``n_left + j`` (read-only); None unless bipartite."""
        return None if self._n_left is None else self._node_ids[self._n_left:]

    def table_sides(self):
        r"""The two vertex sets a directed or bipartite graph is embedded on: ``(n_source, n_target, target_offset)``.

        The paper's footnote 1 embeds a directed graph with an out-vector
        :math:`x_u` (a row of ``embedding_``) and an in-vector :math:`y_v`
        (a row of ``context_embedding_``) per node, scored
        :math:`x_u \cdot y_v`; Theorem 1's bipartite setting has
        :math:`a \in U`, :math:`b \in V`.  Both are one shape: the sources
        :math:`U` (every node of a directed graph, the left nodes of a
        bipartite one) and the targets :math:`V` (every node, or the right
        nodes, which start at node index ``target_offset = n_left``).  A pair
        of node indices ``(u, v)`` is row ``u`` of the source table and row
        ``v - target_offset`` of the target table; the rows' ids are
        :attr:`source_ids` and :attr:`target_ids`.

        Returns
        -------
        TableSides or None
            A named tuple ``(n_source, n_target, target_offset)`` of ints;
            None for an undirected graph, whose model has one table.

        Examples
        --------
        >>> Graph.from_edges([(0, 1), (1, 2)], directed=True).table_sides()
        TableSides(n_source=3, n_target=3, target_offset=0)
        >>> Graph.from_biadjacency([[1, 0, 1], [0, 1, 0]]).table_sides()
        TableSides(n_source=2, n_target=3, target_offset=2)
        >>> Graph.from_edges([(0, 1)]).table_sides() is None
        True
        """
        if self._n_left is not None:
            return TableSides(int(self._n_left), int(self.n_nodes - self._n_left), int(self._n_left))
        if self._directed:
            return TableSides(int(self.n_nodes), int(self.n_nodes), 0)
        return None

    @property
    def source_ids(self):
        """Ids of the source table's rows (:meth:`table_sides`): all node ids if directed, the left ids if
        bipartite, None if undirected."""
        return self._node_ids if self._directed else self.left_ids

    @property
    def target_ids(self):
        """Ids of the target table's rows (:meth:`table_sides`): all node ids if directed, the right ids if
        bipartite, None if undirected."""
        return self._node_ids if self._directed else self.right_ids

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

    def index_of(self, ids, side=None):
        """Internal index (or indices) of node id(s).

        Parameters
        ----------
        ids : hashable or array-like of hashables
            One node id, or several (the result then has their shape).
        side : {None, "left", "right", 0, 1}, default None
            Bipartite graphs only: the side whose ids ``ids`` are (0 and 1 are
            networkx's ``bipartite`` values).  The sides are separate id
            namespaces, so right id 3 is found by ``index_of(3, side="right")``
            and its index is ``n_left`` plus its position in :attr:`right_ids`.
            Without ``side`` an id is looked up on both sides and must be on
            exactly one.

        Returns
        -------
        int64 or ndarray of int64
            Node indices (``0..n_nodes-1``).

        Raises
        ------
        KeyError
            An id is not a node (of that side).
        ValueError
            ``side`` given for a graph that is not bipartite, or an id on both
            sides of a bipartite graph looked up without ``side``.
        """
        scalar = np.ndim(ids) == 0 and not isinstance(ids, (list, tuple))
        query = node_id_query([ids] if scalar else ids)
        if self._n_left is None:
            if side is not None:
                raise ValueError(f"side={side!r} applies to bipartite graphs; this graph is {self.kind}")
            out = node_positions(query, self._node_ids, self._sorter, "index_of")
        else:
            out = two_sided_positions(query, self._node_ids, self._sorter, self._n_left, side)
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
        if not is_integer_id(i):
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

    def reciprocity(self):
        r"""The share of a directed graph's arcs whose reverse is an arc too (self-loops left out).

        .. math::  r = \frac{|\{(u, v) \in E : u \ne v,\ (v, u) \in E\}|}{|\{(u, v) \in E : u \ne v\}|}

        networkx's ``overall_reciprocity`` on a graph without self-loops.  It
        sets ``LogisticEmbedding``'s default ``lam_tie``, :math:`r / (1 - r)`.

        Returns
        -------
        float in [0, 1]
            0.0 for a graph without an arc between two nodes (nothing is
            reciprocated).

        Raises
        ------
        ValueError
            The graph is not directed (an undirected edge is its own reverse;
            a bipartite graph's edges have no reverse).

        Examples
        --------
        >>> g = Graph.from_edges([(0, 1), (1, 0), (1, 2)], directed=True)
        >>> g.reciprocity()
        0.6666666666666666
        """
        if self.kind != "directed":
            article = "an" if self.kind[0] in "aeiou" else "a"
            raise ValueError(f"reciprocity is defined for a directed graph, got {article} {self.kind} one (load it with "
                             "directed=True)")
        arcs = self.edges()
        arcs = arcs[arcs[:, 0] != arcs[:, 1]]
        if len(arcs) == 0:
            return 0.0
        return float(np.count_nonzero(self.has_edges(arcs[:, ::-1]))) / len(arcs)

    def summary(self):
        """Plain-dict statistics (for printing, records and the CLI).

        ``kind`` is :attr:`kind`; a bipartite graph adds ``n_left`` and ``n_right``.
        """
        deg = self.degrees
        out = {
            "name": self.name,
            "kind": self.kind,
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
        if self._n_left is not None:
            out["n_left"], out["n_right"] = int(self.n_left), int(self.n_right)
        return out

    def __repr__(self):
        s = self.summary()
        sides = f" ({s['n_left']} left, {s['n_right']} right)" if s["kind"] == "bipartite" else ""
        extra = f", {s['n_labels']} labels" if s["n_labels"] else ""
        extra += f", {s['n_isolated']} isolated" if s["n_isolated"] else ""
        extra += ", weighted" if s["weighted"] else ""
        name = f"{self.name!r}: " if self.name else ""
        return f"<Graph {name}{s['n_nodes']} nodes{sides}, {s['n_edges']} {s['kind']} edges{extra}>"

    def __len__(self):
        return self.n_nodes


# ---------------------------------------------------------------------- helpers
def _check_duplicates(duplicates):
    if not isinstance(duplicates, str) or duplicates not in _DUPLICATE_POLICIES:
        raise ValueError(f"duplicates must be one of {', '.join(map(repr, _DUPLICATE_POLICIES))} (how a repeated "
                         f"edge's weights merge), got {duplicates!r}")


def _adjacency_from_indices(idx, weights, n, directed, duplicates):
    """:func:`lgekit.adjacency.adjacency_from_pairs`, warning (at the user's line) of dropped self-loops."""
    adj, n_loops = adjacency_from_pairs(idx, weights, n, directed, duplicates)
    if n_loops:
        warn_outside_lgekit(f"dropped {n_loops} self-loop(s)", GraphWarning)
    return adj
