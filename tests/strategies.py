"""Shared Hypothesis strategies: graphs and embeddings.

Import them in a test module as ``from strategies import graphs, embeddings``
(pytest puts ``tests/`` on ``sys.path``: the folder has no ``__init__.py`` and
pytest's default "prepend" import mode inserts it).

Graphs are *built*, never filtered: connectivity comes from a random tree
drawn first, so a connected graph costs no rejected examples, and every choice
shrinks towards the smallest simple graph (fewer nodes, the tree's parents
towards node 0, no extra edges, weights towards 1, no labels).
"""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lgekit import Graph

__all__ = ["edge_lists", "graphs", "embeddings", "node_ids"]


def node_ids(kind, n):
    """External node ids of ``kind``: "index" (0..n-1), "int" (non-contiguous ints), "str",
    "mixed" (ints and strings) or "tuple" (grid coordinates, as networkx's grid graphs use)."""
    if kind == "index":
        return list(range(n))
    if kind == "int":
        return [7 * i + 3 for i in range(n)]
    if kind == "str":
        return [f"v{i}" for i in range(n)]
    if kind == "mixed":
        return [i if i % 2 else f"v{i}" for i in range(n)]
    if kind == "tuple":
        return [(i // 3, i % 3) for i in range(n)]
    raise ValueError(f"unknown id kind {kind!r}")


@st.composite
def edge_lists(draw, min_nodes=0, max_nodes=12, max_edges=30,
               ids=st.sampled_from(["index", "int", "str", "mixed", "tuple"]),
               self_loops=True, duplicates=True):
    """Raw input for ``Graph.from_edges``: ``(ids, edges, weights)``.

    ``edges`` is a list of id pairs that may contain self-loops and repeated
    edges (in either orientation) when allowed; ``weights`` are positive
    floats aligned with it; ``ids`` lists every node (isolated ones too).
    """
    n = draw(st.integers(min_nodes, max_nodes))
    kind = draw(ids)
    labels = node_ids(kind, n)
    if n == 0:
        return labels, [], []
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    raw = draw(st.lists(pair, max_size=max_edges))
    if not self_loops:
        raw = [(u, v) for u, v in raw if u != v]  # a structural rewrite, not a filter of examples
    if not duplicates:
        seen, unique = set(), []
        for u, v in raw:
            key = (min(u, v), max(u, v))
            if key not in seen:
                seen.add(key)
                unique.append((u, v))
        raw = unique
    weights = draw(st.lists(st.floats(0.25, 8.0), min_size=len(raw), max_size=len(raw)))
    return labels, [(labels[u], labels[v]) for u, v in raw], weights


@st.composite
def graphs(draw, min_nodes=0, max_nodes=12, max_extra_edges=24, connected=False, directed=False,
           weighted=False, labelled=False, n_classes=3, ids="index"):
    """A small simple :class:`lgekit.Graph` (no self-loops; duplicates merged).

    Parameters
    ----------
    min_nodes, max_nodes : bounds on the number of nodes.
    max_extra_edges : edges drawn on top of the spanning tree (if any).
    connected : bool or strategy of bool
        Start from a random spanning tree (node i attaches to a parent < i;
        shrinks towards the star at node 0), so the graph is connected
        (weakly, if directed) by construction.
    directed, weighted, labelled : bool or strategy of bool
    n_classes : number of label classes when labelled (each node gets a
        random subset; some nodes may get none).
    ids : "index", "int", "str", "mixed", "tuple" or a strategy of those.
    """
    def resolve(value):
        return draw(value) if isinstance(value, st.SearchStrategy) else value

    connected, directed, weighted, labelled = map(resolve, (connected, directed, weighted, labelled))
    kind = resolve(ids)
    n = draw(st.integers(min_nodes, max_nodes))
    pairs = []
    if connected:
        for i in range(1, n):
            parent = draw(st.integers(0, i - 1))
            flip = directed and draw(st.booleans())
            pairs.append((i, parent) if flip else (parent, i))
    if n >= 2:
        # v = u + 1 + k (mod n) is never u: simple graphs by construction
        extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 2)), max_size=max_extra_edges))
        pairs += [(u, (u + 1 + k) % n) for u, k in extra]
    weights = None
    if weighted:
        weights = draw(st.lists(st.floats(0.5, 4.0).map(lambda w: round(w, 3)), min_size=len(pairs),
                                max_size=len(pairs)))
    labels = None
    if labelled:
        labels = [draw(st.sets(st.integers(0, n_classes - 1), max_size=n_classes)) for _ in range(n)]
        labels = np.array([[int(j in s) for j in range(n_classes)] for s in labels], dtype=np.int8).reshape(n, n_classes)
    ident = node_ids(kind, n)
    if kind in ("index", "int"):
        edges = np.array([(ident[u], ident[v]) for u, v in pairs], dtype=np.int64).reshape(-1, 2)
    else:
        edges = [(ident[u], ident[v]) for u, v in pairs]
    return Graph.from_edges(edges, weights=weights, nodes=n if kind == "index" else ident, directed=directed,
                            labels=labels)


def embeddings(n_nodes, dim=st.integers(1, 6), bound=10.0, dtype=np.float64):
    """(n_nodes, dim) arrays with finite elements in [-bound, bound].

    ``n_nodes`` and ``dim`` are ints or strategies of ints.
    """
    rows = n_nodes if isinstance(n_nodes, st.SearchStrategy) else st.just(n_nodes)
    cols = dim if isinstance(dim, st.SearchStrategy) else st.just(dim)
    width = 32 if np.dtype(dtype) == np.float32 else 64
    return st.tuples(rows, cols).flatmap(
        lambda shape: hnp.arrays(dtype, shape, elements=st.floats(-bound, bound, allow_nan=False,
                                                                   allow_infinity=False, width=width)))
