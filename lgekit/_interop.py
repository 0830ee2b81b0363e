"""What a networkx graph or a pandas DataFrame says about a graph, read as arrays (for :class:`lgekit.Graph`).

These functions know networkx's and pandas' conventions (and what a weight
may be, whoever gives it) and nothing of the CSR: they hand
:meth:`lgekit.Graph.from_networkx`, :meth:`lgekit.Graph.from_pandas` and
:meth:`lgekit.Graph.from_edges` node ids, index pairs and raw weights, and
write a graph's parts back out as a networkx graph.  pandas is never
imported (it is optional: a DataFrame is recognised by its type's module);
networkx only by :func:`networkx_parts` and :func:`to_networkx`, as it is slow to import.
"""
import numbers
from typing import Any, NamedTuple, Optional

import numpy as np

from .ids import check_no_nan_ids, is_integer_id, node_id_query, object_array, text_array

__all__ = ["NetworkxParts", "networkx_parts", "to_networkx", "is_dataframe", "is_networkx", "dataframe_edges",
           "checked_weights"]


class NetworkxParts(NamedTuple):
    """A networkx graph as arrays: what :meth:`lgekit.Graph.from_networkx` builds the graph from."""

    node_ids: np.ndarray
    edges: np.ndarray          # (m, 2) int64 node indices, one row per networkx edge
    weights: Optional[list]    # the raw weight of each edge (1 where absent), or None: unweighted
    describe_edge: Any         # k -> "edge (u, v)" with the node ids, for error messages
    directed: bool
    n_left: Optional[int]
    labels: Optional[dict]


def networkx_parts(nx_graph, *, weight, label_attr, directed, bipartite):
    """Read ``nx_graph`` as :meth:`lgekit.Graph.from_networkx` documents it (the graph and ``directed`` and
    ``bipartite`` checked here: a TypeError or ValueError names the argument)."""
    import networkx as nx  # slow to import (about 0.3 s), and only networkx users need it

    if not isinstance(nx_graph, nx.Graph):
        raise TypeError(f"nx_graph must be a networkx graph, got {type(nx_graph).__name__}")
    if directed is not None and not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be None, True or False, got {directed!r}")
    if bipartite is not None and not isinstance(bipartite, (bool, str)):
        raise TypeError(f"bipartite must be None (detect), True, False or a node attribute name (str), "
                        f"got {bipartite!r}")
    if (bipartite is True or isinstance(bipartite, str)) and directed:
        raise ValueError("bipartite and directed=True: a bipartite graph is stored undirected (its edges join "
                         "the two sides); pass one of them")
    if directed and not nx_graph.is_directed():
        raise ValueError("directed=True needs a networkx DiGraph; nx_graph is undirected "
                         "(nx_graph.to_directed() gives both arcs of every edge)")
    required = bipartite is True or isinstance(bipartite, str)
    attr = bipartite if isinstance(bipartite, str) else "bipartite"
    side = None
    # networkx's bipartite attribute is looked for in an undirected graph, or a directed one read undirected
    if required or (bipartite is None and not (nx_graph.is_directed() and directed is not False)):
        side = _sides(nx_graph, attr, required)
    directed = False if side is not None else (nx_graph.is_directed() if directed is None else bool(directed))
    nodes = list(nx_graph.nodes())
    n_left = None
    if side is not None:
        nodes = [v for v in nodes if side[v] == 0] + [v for v in nodes if side[v] == 1]
        n_left = sum(1 for v in nodes if side[v] == 0)
    query = node_id_query(nodes)  # ints and strings as NumPy arrays when that keeps every id exact
    node_ids = query if query.ndim == 1 and query.dtype.kind in "iuU" else object_array(nodes)
    check_no_nan_ids(node_ids, "nx_graph")   # networkx takes G.add_node(float("nan")); no lookup finds it again
    pos = {v: i for i, v in enumerate(nodes)}
    ends = list(nx_graph.edges())
    edges = np.array([(pos[u], pos[v]) for u, v in ends], dtype=np.int64).reshape(-1, 2)
    weights = None
    if weight is not None and any(weight in data for _, _, data in nx_graph.edges(data=True)):
        weights = [x for _, _, x in nx_graph.edges(data=weight, default=1)]
    labels = None
    if label_attr is not None:
        labels = {v: nx_graph.nodes[v][label_attr] for v in nodes if label_attr in nx_graph.nodes[v]}
    return NetworkxParts(node_ids, edges, weights, lambda k: "edge ({!r}, {!r})".format(*ends[k]), directed, n_left,
                         labels)


def _sides(nx_graph, attr, required):
    """{node: 0 or 1} from networkx's bipartite node attribute ``attr``; None when not ``required`` and absent."""
    side = {}
    for v, data in nx_graph.nodes(data=True):
        value = data.get(attr)
        if not (is_integer_id(value) and value in (0, 1)):
            if not required:
                return None
            if attr not in data:
                raise ValueError(f"node {v!r} has no {attr!r} attribute; with bipartite={attr!r} every "
                                 "node needs one (0: left set, 1: right set)")
            raise ValueError(f"node {v!r} has {attr}={value!r}; the side of a node must be 0 (left) or "
                             "1 (right), networkx's convention")
        side[v] = int(value)
    for u, v in nx_graph.edges():
        if side[u] == side[v]:
            if not required:
                return None
            raise ValueError(f"edge ({u!r}, {v!r}) joins two nodes of the same side ({attr}="
                             f"{side[u]}); a bipartite graph has edges between the sides only")
    return side if side or required else None


def to_networkx(graph):
    """``graph`` as a networkx graph (see :meth:`lgekit.Graph.to_networkx`)."""
    import networkx as nx  # slow to import (about 0.3 s), and only networkx users need it

    g = nx.DiGraph() if graph.is_directed else nx.Graph()
    if graph.name:
        g.graph["name"] = graph.name
    ids = graph.node_ids.tolist()
    if graph.is_bipartite:
        nl = graph.n_left
        left, right = ids[:nl], ids[nl:]
        if not set(left).isdisjoint(right):
            ids = [(0, x) for x in left] + [(1, x) for x in right]
        g.add_nodes_from(ids[:nl], bipartite=0)
        g.add_nodes_from(ids[nl:], bipartite=1)
    else:
        g.add_nodes_from(ids)
    e = graph.edges().tolist()
    if graph.is_weighted:
        g.add_weighted_edges_from((ids[u], ids[v], float(x)) for (u, v), x in zip(e, graph.edge_weights()))
    else:
        g.add_edges_from((ids[u], ids[v]) for u, v in e)
    if graph.labels is not None:
        names, lab = graph.label_names.tolist(), graph.labels
        for i in range(graph.n_nodes):
            g.nodes[ids[i]]["labels"] = [names[j] for j in lab.indices[lab.indptr[i]:lab.indptr[i + 1]]]
    return g


def is_networkx(x):
    """Whether ``x`` is a networkx graph, without importing networkx (slow to import)."""
    return type(x).__module__.split(".")[0] == "networkx"


def is_dataframe(x):
    """Whether ``x`` is a pandas DataFrame, without importing pandas (it is optional and slow to import)."""
    return type(x).__module__.split(".")[0] == "pandas" and type(x).__name__ == "DataFrame"


def _column(df, name, what):
    """Column ``name`` of ``df`` as an id or weight array that keeps every value exactly."""
    values = df[name].to_numpy()
    if values.ndim != 1:
        raise ValueError(f"{what}={name!r} names {values.shape[1]} columns of the DataFrame (a repeated column "
                         "name); give it a unique name")
    return values


def dataframe_edges(df, source, target, weight, what="df"):
    """``(edges, weights)`` from columns of a DataFrame: an ``(m, 2)`` id array and the raw weights or None.

    ``source``/``target``/``weight`` name columns; ``source=None`` reads
    ``df`` by the one rule of a DataFrame given as a graph
    (:func:`lgekit.datasets.as_graph`).  Missing id values (NaN, None, pd.NA) are refused with their row
    labels.
    """
    columns = list(df.columns)
    if source is None:
        names, weight = _columns_by_rule(columns, what)
    else:
        names = [source, target]
    wanted = [("source", names[0]), ("target", names[1])] + ([("weight", weight)] if weight is not None else [])
    missing = [f"{arg}={name!r}" for arg, name in wanted if name not in columns]
    if missing:
        raise ValueError(f"{what} has no column for {', '.join(missing)}; its columns are {columns}")
    ends = [_column(df, name, arg) for arg, name in wanted[:2]]
    for (arg, name), values in zip(wanted, ends):
        absent = df[name].isna().to_numpy()
        if absent.any():
            rows = df.index[absent][:3].tolist()
            raise ValueError(f"{what}: column {name!r} ({arg}) has missing node ids (NaN/None/NA) at row(s) {rows}; "
                             "drop or fill those rows first (df.dropna(subset=[...]))")
    ends = [_exact(values) for values in ends]
    if ends[0].dtype.kind == ends[1].dtype.kind != "O":
        edges = np.column_stack(ends)
    else:
        edges = np.empty((len(df), 2), dtype=object)
        edges[:, 0], edges[:, 1] = ends  # element by element: a tuple id stays one id
    weights = None if weight is None else _column(df, weight, "weight")
    return edges, weights


def _columns_by_rule(columns, what):
    """``([source, target], weight or None)``: the columns of a DataFrame given as a graph, by the one rule of
    :func:`lgekit.datasets.as_graph`; a column that the rule would ignore is a ValueError naming it."""
    pick = "pick them with Graph.from_pandas(df, source=..., target=..., weight=...)"
    if "source" in columns or "target" in columns:
        present, absent = ("source", "target") if "target" not in columns else ("target", "source")
        if absent not in columns:
            raise ValueError(f"{what} is a DataFrame with a {present!r} column but no {absent!r} column (its columns "
                             f"are {columns}); name both, or {pick}")
        extra = [c for c in columns if c not in ("source", "target", "weight")]
        if extra:
            raise ValueError(f"{what}: the DataFrame's column(s) {extra} would be ignored: beside 'source' and "
                             f"'target' only a 'weight' column is read (its columns are {columns}); rename the "
                             f"weight column 'weight', drop the others (df[['source', 'target']]), or {pick}")
        return ["source", "target"], "weight" if "weight" in columns else None
    if len(columns) not in (2, 3):
        raise ValueError(f"{what} is a DataFrame with {len(columns)} columns {columns}; an edge list has 2 "
                         "(source, target) or 3 (source, target, weight), read by position unless named 'source' "
                         f"and 'target': {pick}")
    if "weight" in columns[:2]:
        raise ValueError(f"{what}: the DataFrame's column 'weight' is its column {columns.index('weight') + 1} of "
                         f"{columns}; read by position (no 'source'/'target' columns), the weight is the third: "
                         "reorder the columns, or name them 'source' and 'target'")
    return columns[:2], columns[2] if len(columns) == 3 else None


def _exact(values):
    """An id column as NumPy would keep it exactly: text as compact strings when that loses nothing."""
    if values.dtype == object and len(values) and all(isinstance(x, str) for x in values.tolist()):
        return text_array(values.tolist())
    return values


def checked_weights(values, edge, attr=None):
    """Edge weights as finite positive float64; ValueError naming the first bad one's edge (``edge(i)``) otherwise.

    A weight is a real number (not a bool, a string or None); an int beyond
    float64's range (``10**400``) is refused like ``inf``, never an OverflowError.
    """
    values = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if values.dtype.kind in "biuf":
        w = values.astype(np.float64)
    else:
        w = np.full(len(values), np.nan)
        for i, x in enumerate(values.tolist()):
            if isinstance(x, numbers.Real) and not isinstance(x, bool):
                try:
                    w[i] = float(x)
                except OverflowError:
                    w[i] = np.inf
    bad = ~np.isfinite(w) | (w <= 0)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        x = values[i].item() if isinstance(values[i], np.generic) else values[i]
        shown = "missing (None)" if x is None else repr(x)
        which = f"has {attr}={shown}" if attr else f"has weight {shown}"
        raise ValueError(f"weights must be finite positive numbers (float or int, at most 1.8e308); {edge(i)} {which}")
    return w
