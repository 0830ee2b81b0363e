"""What a solver trains on: the user's data turned into index pairs (:class:`TrainingData`), and where
the two tables of a directed or bipartite graph sit in the one table the solvers train (:class:`TableLayout`).

``fit(X)`` accepts an ``EdgeSplit`` (trains on ``train_graph``'s edges and
``train_negatives``) or a graph in any form :func:`lgekit.datasets.as_graph`
reads (a Graph, a path, an edge array, a DataFrame, networkx, scipy).  For a graph, ``negatives_per_positive``
uniform negative pairs per edge are drawn with
:func:`lgekit.evaluation.sample_negative_pairs`.
"""
from dataclasses import dataclass, replace

import numpy as np

from .._interop import is_networkx
from .._random import draw_seed
from .._validation import InvalidParameterError
from ..datasets import as_graph
from ..evaluation import sample_negative_pairs
from ..graph import Graph
from ..ids import concat_ids, match_ids, object_array, unique_sorter

__all__ = ["DIRECTED_REVERSE_SHARE", "TWO_TABLE_KINDS", "TableLayout", "TrainingData", "describe_input",
           "graph_node_ids", "is_edge_split", "match_rows", "one_way_arcs", "reverse_negative_pairs",
           "training_data"]

#: the kinds of graph whose model learns two tables (sources / left nodes, targets / right nodes)
TWO_TABLE_KINDS = ("directed", "bipartite")

#: ``reverse_negatives=None`` on a directed graph: the share of each one-way arc's negatives that are its
#: reverse pair is this times the training arcs' reciprocity r (see ``benchmarks/README.md``, "Direction:
#: ties", for the measurements behind it)
DIRECTED_REVERSE_SHARE = 0.35


@dataclass(frozen=True)
class TrainingData:
    """What a solver trains on, in internal node indices.

    Attributes
    ----------
    n_nodes : int
    node_ids : ndarray of shape (n_nodes,)
        External id of each row of the embedding.
    train_graph : lgekit.Graph
        The graph whose edges are the positive pairs (the training graph of a
        split).  Solvers that resample negatives avoid its edges.
    positives : ndarray of shape (m, 2), int64
        Positive (edge) pairs.
    pos_weights : ndarray of shape (m,), float64
        Weight of each positive pair (1 for unweighted graphs).
    negatives : ndarray of shape (k, 2), int64
        Negative pairs (no self-pairs).  The last ``n_reverse`` of them are
        the direction-aware ones (the reverses of one-way arcs,
        :func:`reverse_negative_pairs`): a solver that resamples negatives
        redraws only the others, the uniform ones.
    reverse_seed : int or None
        The seed of their coins (None when there are none): a continued fit
        passes it back, so that the same split gives the same reverse pairs.
    layout : TableLayout or None
        For a directed or bipartite graph, how the rows split into the two
        tables: ``n_nodes`` is then ``n_source + n_target``, the pairs are
        already in the rows of the stacked table, ``(u, n_source + v)``, and
        ``node_ids`` holds the source ids followed by the target ids.  None
        for an undirected graph (one table) and for the data a solver gives
        back (:meth:`~lgekit.models.SGDSolver.training_data`).

    A solver copies what it needs into its own layout when it is built; the
    estimator does not keep this object (its arrays are the size of the
    training set).
    """

    n_nodes: int
    node_ids: np.ndarray
    train_graph: object
    positives: np.ndarray
    pos_weights: np.ndarray
    negatives: np.ndarray
    layout: object = None
    n_reverse: int = 0
    reverse_seed: object = None


@dataclass(frozen=True)
class TableLayout:
    r"""Where the two tables of a directed or bipartite graph sit in the one table the solver trains.

    The paper's footnote 1: a directed graph is embedded with two vectors per
    node, an out-vector :math:`x_u` and an in-vector :math:`y_v`, scored
    :math:`x_u\cdot y_v` -- "equivalent to learning embedding on a
    transformed undirected bipartite graph" whose left side holds the
    sources and whose right side holds the targets.  A bipartite graph (Theorem
    1's setting: :math:`a \in U`, :math:`b \in V`) is that form already.
    The solvers therefore train ONE table of ``n_source + n_target`` rows,
    rows ``0..n_source-1`` the source/left vectors and the rest the
    target/right vectors, on the pairs ``(u, n_source + v)``: every pair of
    the stacked table joins a source row to a target row, so its updates are
    the two-table updates (:mod:`lgekit.reference`, "Two tables"), and the
    kernels need no second code path.

    Attributes
    ----------
    kind : {"directed", "bipartite"}
    n_source, n_target : int
        Rows of ``embedding_`` (sources: every node of a directed graph;
        the left nodes of a bipartite one) and of ``context_embedding_``.
    source_ids, target_ids : ndarray
        The external ids of those rows (the same array for a directed graph;
        the graph's ``left_ids`` and ``right_ids`` for a bipartite one).
    target_offset : int
        The graph index of the first target node: 0 for a directed graph,
        ``n_left`` for a bipartite one (whose right nodes are graph indices
        ``n_left..n_nodes-1``).
    """

    kind: str
    n_source: int
    n_target: int
    source_ids: np.ndarray
    target_ids: np.ndarray
    target_offset: int

    @classmethod
    def of(cls, graph):
        """The layout of ``graph``'s two tables, or None for an undirected graph."""
        sides = graph.table_sides()
        if sides is None:
            return None
        return cls(graph.kind, sides.n_source, sides.n_target, np.asarray(graph.source_ids),
                   np.asarray(graph.target_ids), sides.target_offset)

    @property
    def n_rows(self):
        """Rows of the stacked table."""
        return self.n_source + self.n_target

    @property
    def row_ids(self):
        """The id of each row of the stacked table (sources, then targets)."""
        return concat_ids(self.source_ids, self.target_ids)

    def table_pairs(self, pairs, what="pairs"):
        """Graph index pairs as rows of the stacked table: ``(u, n_source + v - target_offset)``.

        A bipartite pair may come as (right, left): it is turned round, the
        edge being the same.  A pair inside one side of a bipartite graph has
        no two-table score and raises ValueError naming ``what``.
        """
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if self.kind == "bipartite":
            left = pairs < self.n_source
            flip = ~left[:, 0] & left[:, 1]
            if np.any(flip):
                pairs = pairs.copy()
                pairs[flip] = pairs[flip][:, ::-1]
            inside = left[:, 0] == left[:, 1]
            if np.any(inside):
                bad = pairs[inside][0].tolist()
                raise ValueError(f"X: {what} must join a left node to a right node of the bipartite graph "
                                 f"(left indices < n_left={self.n_source}), got the pair {bad} inside one side")
            return np.ascontiguousarray(pairs)
        out = pairs.copy()
        out[:, 1] += self.n_source - self.target_offset
        return out


def is_edge_split(data):
    """Whether ``data`` is an ``EdgeSplit`` (of :func:`lgekit.split_edges`), by what it holds."""
    return all(hasattr(data, a) for a in ("train_graph", "train_positives", "train_negatives"))


def _is_sparse_matrix(data):
    return hasattr(data, "tocsr") and hasattr(data, "shape")


def training_data(data, rng, *, negatives_per_positive, n_threads, reverse_negatives=0.0, reverse_seed=None):
    """The :class:`TrainingData` of ``fit``'s ``X``.

    Parameters
    ----------
    data : EdgeSplit, or any form of :func:`lgekit.datasets.as_graph`
    rng : numpy.random.Generator
        Draws the seed of the negatives sampled for a graph (nothing is
        drawn for a split, which brings its own), then, when reverse
        negatives are asked for, the seed of their coins.
    negatives_per_positive : int
        Negative pairs drawn per edge for a graph.
    n_threads : int
        Threads of the negative sampler.
    reverse_negatives : float in [0, 1] or None, default 0.0
        The share :math:`\rho` of each one-way arc's negatives that are its
        reverse pair (:func:`reverse_negative_pairs`); they replace as many
        of the uniform negatives, so the number of pairs stays the same.
        None: :data:`DIRECTED_REVERSE_SHARE` for a directed graph, 0
        otherwise.
    reverse_seed : int or None, default None
        The seed of the reverse pairs' coins; None: drawn from ``rng``.

    Raises
    ------
    ValueError
        Naming ``X``: no edges, pairs out of range or self-pairs, weights
        that are not finite and >= 0, a split whose positives are not its
        training graph's edges while that graph is weighted.
    InvalidParameterError
        ``reverse_negatives > 0`` for a graph that is not directed (an edge
        of an undirected graph is its own reverse; a bipartite pair has no
        reverse in the two tables).
    TypeError
        When ``data`` is none of the accepted forms.
    """
    if is_edge_split(data):
        graph = data.train_graph
        positives = np.asarray(data.train_positives, dtype=np.int64).reshape(-1, 2)
        negatives = np.asarray(data.train_negatives, dtype=np.int64).reshape(-1, 2)
        pos_weights = None
        edges = graph.edges()
        if len(edges) == len(positives) and np.array_equal(edges, positives):
            pos_weights = graph.edge_weights().astype(np.float64)
        elif graph.is_weighted:
            raise ValueError("X: the split's train_positives differ from train_graph.edges(), so "
                             "their weights are unknown; pass a split made by lgekit.split_edges")
    else:
        graph = as_graph(data, "X")
        positives = graph.edges()
        pos_weights = graph.edge_weights().astype(np.float64)
        negatives = None
    n = graph.n_nodes
    if len(positives) == 0:
        raise ValueError(f"X: the training graph has no edges ({n} nodes, 0 edges); "
                         "an embedding needs at least one positive pair")
    if pos_weights is None:
        pos_weights = np.ones(len(positives))
    given = [("positive", positives)]
    if negatives is None:
        # drawn here: valid by construction (in range, no self-pairs), so not checked again
        k = negatives_per_positive * len(positives)
        negatives = np.asarray(sample_negative_pairs(graph, k, seed=draw_seed(rng), n_threads=int(n_threads)),
                               dtype=np.int64)
    else:
        given.append(("negative", negatives))
    for name, pairs in given:
        if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
            raise ValueError(f"X: {name} pairs must be node indices in [0, {n}), got values in "
                             f"[{pairs.min()}, {pairs.max()}]")
        if len(pairs) and np.any(pairs[:, 0] == pairs[:, 1]):
            raise ValueError(f"X: {name} pairs contain self-pairs (u, u), e.g. "
                             f"{pairs[pairs[:, 0] == pairs[:, 1]][0].tolist()}; they are not allowed")
    if not np.all(np.isfinite(pos_weights)) or np.any(pos_weights < 0):
        raise ValueError("X: edge weights must be finite and >= 0")
    share = _reverse_share(reverse_negatives, graph)
    n_reverse = 0
    if share > 0 and len(negatives):
        if reverse_seed is None:
            reverse_seed = draw_seed(rng)
        reverse = reverse_negative_pairs(graph, positives, share, len(negatives) / len(positives),
                                         np.random.default_rng(reverse_seed))
        # they replace uniform negatives (the last ones drawn; a split's are in random order): as many pairs
        n_reverse = min(len(reverse), len(negatives))
        negatives = np.concatenate([negatives[:len(negatives) - n_reverse], reverse[:n_reverse]])
    layout = TableLayout.of(graph)
    if layout is not None:
        # two tables (footnote 1): the pairs become rows of the stacked table, (u, n_source + v)
        return TrainingData(n_nodes=layout.n_rows, node_ids=layout.row_ids, train_graph=graph,
                            positives=layout.table_pairs(positives, "positive pairs"),
                            pos_weights=np.ascontiguousarray(pos_weights),
                            negatives=layout.table_pairs(negatives, "negative pairs"), layout=layout,
                            n_reverse=n_reverse, reverse_seed=reverse_seed if n_reverse else None)
    return TrainingData(n_nodes=n, node_ids=np.asarray(graph.node_ids), train_graph=graph,
                        positives=np.ascontiguousarray(positives),
                        pos_weights=np.ascontiguousarray(pos_weights),
                        negatives=np.ascontiguousarray(negatives))


def _reverse_share(value, graph):
    """``reverse_negatives`` resolved for ``graph``: None is the directed default (0 for other kinds)."""
    if value is None:
        # reverse pairs tell a one-way arc from a reciprocated one; with none reciprocated the uniform
        # negatives already make every reverse a non-arc, and reverse pairs only take weight from the links
        return DIRECTED_REVERSE_SHARE * graph.reciprocity() if graph.kind == "directed" else 0.0
    value = float(value)
    if value > 0 and graph.kind != "directed":
        raise InvalidParameterError(
            f"reverse_negatives must be None or 0 for {'an' if graph.kind == 'undirected' else 'a'} {graph.kind} "
            f"graph, got {value!r}: only an arc of a directed graph has a reverse pair that is not itself (an "
            "undirected edge is its own reverse; a bipartite pair joins a left node to a right one)",
            parameter="reverse_negatives", value=value, accepted="None or 0 (undirected and bipartite graphs)")
    return value


def one_way_arcs(graph, arcs):
    """The rows of ``arcs`` (graph indices) whose reverse is not an arc of the directed ``graph``, in order."""
    arcs = np.asarray(arcs, dtype=np.int64).reshape(-1, 2)
    return arcs[~graph.has_edges(arcs[:, ::-1])]


def reverse_negative_pairs(graph, arcs, share, per_positive, rng):
    r"""The direction-aware negatives of a directed graph: the reverse of each one-way arc.

    Uniform negatives contain the reverse :math:`(v, u)` of an arc
    :math:`u \to v` only by chance (about :math:`|E_-| / n^2` of the time),
    so nothing in the objective asks for :math:`x_u\cdot y_v > x_v\cdot y_u`.
    Here a share :math:`\rho` of the :math:`q` negatives of each one-way arc
    (one whose reverse is not an arc of ``graph``) is its reverse pair:
    :math:`\lfloor \rho q\rfloor` copies, plus one more with probability
    :math:`\rho q - \lfloor \rho q\rfloor` (a coin per arc from ``rng``), so
    that each arc gets :math:`\rho q` of them in expectation.  A reciprocated
    arc gets none: its reverse is a positive.

    Parameters
    ----------
    graph : lgekit.Graph
        The directed training graph.
    arcs : (m, 2) array_like of int
        The positive arcs, graph indices.
    share : float in [0, 1]
        :math:`\rho`.
    per_positive : float
        :math:`q`, the negatives per positive arc.
    rng : numpy.random.Generator
        Draws the coins (one per one-way arc, in the order of ``arcs``).

    Returns
    -------
    (R, 2) ndarray of int64
        The pairs :math:`(v, u)`, grouped by arc in the order of ``arcs``
        (:func:`lgekit.reference.reverse_negatives` with the same coins).
    """
    lonely = one_way_arcs(graph, arcs)
    expected = share * per_positive
    whole = int(np.floor(expected))
    copies = whole + (rng.random(len(lonely)) < expected - whole)
    return np.repeat(lonely[:, ::-1], copies, axis=0)


def _few(values, k=5):
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:k])
    return shown + (f" and {len(values) - k} more" if len(values) > k else "")


def _positions(ids, fitted, what, table):
    """Where each of ``ids`` is among ``fitted`` (the rows of one fitted table); ValueError naming a few
    new and missing ids when the two are not the same set."""
    ids, fitted = np.asarray(ids), np.asarray(fitted)
    if ids.shape == fitted.shape and ids.dtype == fitted.dtype and np.array_equal(ids, fitted):
        return np.arange(len(ids), dtype=np.int64)
    _, pos, found = match_ids(ids, fitted, unique_sorter(fitted, f"{what}: the fitted node ids are not unique"),
                              what)
    _, _, known = match_ids(fitted, ids, unique_sorter(ids, f"{what}: node ids are not unique"), what)
    if np.all(found) and np.all(known):
        return pos
    parts = []
    new, missing = ids[~found].tolist(), fitted[~known].tolist()
    if new:
        parts.append(f"{len(new)} new id(s) ({_few(new)})")
    if missing:
        parts.append(f"{len(missing)} missing id(s) ({_few(missing)})")
    raise ValueError(f"{what}: its {table}nodes are not the {len(fitted)} nodes the model was fitted on: "
                     f"{' and '.join(parts)}; continue a fit only on a graph with the fitted node ids "
                     "(in any order), or call fit to start afresh")


def match_rows(train, source_ids, target_ids=None, what="X"):
    """``train`` with its pairs renumbered to the rows of a fitted model's table(s).

    Continuing a fit on another graph object must update each node's own
    row: a graph with the same ids in another order is renumbered, so that
    the row of ``"n1"`` stays the row of ``"n1"``.  Ids are compared exactly
    (``1`` and ``"1"`` are two ids).

    Parameters
    ----------
    train : TrainingData
    source_ids : ndarray
        The ids of the fitted ``embedding_``'s rows.
    target_ids : ndarray or None
        The ids of the fitted ``context_embedding_``'s rows (two tables).

    Raises
    ------
    ValueError
        When the ids (of either table) differ from the fitted ones as sets,
        naming a few ids that are new and a few that are missing.
    """
    layout = train.layout
    if layout is None:
        rows = _positions(train.node_ids, source_ids, what, "")
        row_ids = np.asarray(source_ids)
    else:
        source = _positions(layout.source_ids, source_ids, what, "source / left ")
        target = _positions(layout.target_ids, target_ids, what, "target / right ")
        rows = np.concatenate([source, len(source) + target])
        layout = replace(layout, source_ids=np.asarray(source_ids), target_ids=np.asarray(target_ids))
        row_ids = layout.row_ids
    if np.array_equal(rows, np.arange(len(rows))):
        return train                  # the same rows in the same order: nothing to renumber
    graph = train.train_graph
    if layout is None:
        # the training graph in the fitted node order too: a solver that resamples negatives draws them
        # from its adjacency, in row indices
        order = np.argsort(rows)
        graph = Graph.from_scipy(graph.to_scipy()[order][:, order], node_ids=row_ids, directed=False,
                                 weighted=graph.is_weighted)
    return replace(train, node_ids=row_ids, train_graph=graph, positives=rows[train.positives],
                   negatives=rows[train.negatives], layout=layout)


def describe_input(data):
    """``data``'s size in words ("10,312 nodes, 333,983 edges"), read without converting it; "" if unknown."""
    if is_edge_split(data):
        return (f"{data.train_graph.n_nodes:,} nodes, {len(data.train_positives):,} training edges, "
                f"{len(data.train_negatives):,} given negatives")
    if isinstance(data, Graph):
        return f"{data.n_nodes:,} nodes, {data.n_edges:,} edges"
    if is_networkx(data):
        return f"{data.number_of_nodes():,} nodes, {data.number_of_edges():,} edges"
    if _is_sparse_matrix(data) and hasattr(data, "nnz"):
        return f"{data.shape[0]:,} nodes, {data.nnz:,} stored entries"
    return ""  # not a form fit accepts: training_data says so next


def graph_node_ids(data, side=None):
    """The node ids of a graph-like ``data`` in its node order, or None when ``data`` is not one.

    ``side`` ("left" or "right") picks one side of a bipartite graph.  An
    ``EdgeSplit`` stands for its whole graph; a sparse matrix's nodes are
    ``0..n-1``.
    """
    if is_edge_split(data) and hasattr(data, "graph"):
        data = data.graph
    if isinstance(data, Graph):
        if side is not None and data.kind == "bipartite":
            return np.asarray(data.right_ids if side == "right" else data.left_ids)
        return np.asarray(data.node_ids)
    if is_networkx(data):
        return object_array(list(data.nodes))   # one by one: a tuple id stays one id
    if _is_sparse_matrix(data) and len(data.shape) == 2:
        return np.arange(data.shape[0])
    return None
