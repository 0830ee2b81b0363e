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

__all__ = ["edge_lists", "graphs", "embeddings", "node_ids", "regular_components", "labelled_regular_graphs"]


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


# -- d-regular graphs, adversarial for Claim 1 -----------------------------------------------------------------------
def _complete(d):
    """K_{d+1}: the tight case of Claim 1 (every vertex adjacent to all others)."""
    return [(i, j) for i in range(d + 1) for j in range(i + 1, d + 1)], d + 1


def _complete_bipartite(d):
    """K_{d,d}: every vertex of a side has the same neighbours (twins)."""
    return [(i, d + j) for i in range(d) for j in range(d)], 2 * d


def _complete_multipartite(d, part):
    """K_{t,...,t} with d/t + 1 parts of size t: degree d, twins within each part."""
    parts = d // part + 1
    n = parts * part
    return [(i, j) for i in range(n) for j in range(i + 1, n) if i // part != j // part], n


def _circulant(n, offsets):
    """C_n(S): i ~ i +- s (mod n) for s in S; degree 2|S|, minus one if n/2 is in S."""
    edges = {(min(i, (i + s) % n), max(i, (i + s) % n)) for i in range(n) for s in offsets}
    return sorted(edges), n


def _generalized_petersen(n, k):
    """GP(n, k): outer cycle, spokes, inner star polygon; 3-regular (GP(5, 2) is the Petersen graph)."""
    edges = set()
    for i in range(n):
        edges.add((min(i, (i + 1) % n), max(i, (i + 1) % n)))
        edges.add((i, n + i))
        a, b = n + i, n + (i + k) % n
        edges.add((min(a, b), max(a, b)))
    return sorted(edges), 2 * n


def _hypercube(d):
    """Q_d: bipartite, vertex-transitive, 2**d vertices."""
    return [(i, i ^ (1 << b)) for i in range(2 ** d) for b in range(d) if i < i ^ (1 << b)], 2 ** d


@st.composite
def regular_components(draw, d):
    """One connected-or-not d-regular piece, from the families that break naive constructions.

    Shrinks towards ``K_{d+1}`` (the first family) and small parameters.
    """
    families = ["complete", "complete bipartite", "circulant"]
    if d >= 2 and any(d % t == 0 and t < d for t in range(2, d)):
        families.append("complete multipartite")
    if d == 3:
        families.append("generalized Petersen")
    if d <= 5:
        families.append("hypercube")
    family = draw(st.sampled_from(families))
    if family == "complete":
        return family, *_complete(d)
    if family == "complete bipartite":
        return family, *_complete_bipartite(d)
    if family == "complete multipartite":
        part = draw(st.sampled_from([t for t in range(2, d) if d % t == 0]))
        return f"{family} (parts of {part})", *_complete_multipartite(d, part)
    if family == "generalized Petersen":
        n = draw(st.integers(3, 12))
        k = draw(st.integers(1, max(1, (n - 1) // 2)))
        return f"GP({n},{k})", *_generalized_petersen(n, k)
    if family == "hypercube":
        return family, *_hypercube(d)
    # circulant: d/2 distinct offsets in 1..(n-1)/2, plus n/2 when d is odd (n even)
    half = d // 2
    n = draw(st.integers(d + 1, d + 24))
    if d % 2:
        n += n % 2
    pool = list(range(1, (n - 1) // 2 + 1))
    offsets = draw(st.lists(st.sampled_from(pool), min_size=half, max_size=half, unique=True)) if half else []
    if d % 2:
        offsets.append(n // 2)
    return f"C_{n}{tuple(offsets)}", *_circulant(n, offsets)


@st.composite
def labelled_regular_graphs(draw, max_degree=8, max_components=3):
    """``(graph, d, labels, description)``: a d-regular graph and an edge labelling, adversarial for Claim 1.

    The graph is a disjoint union of 1 to ``max_components`` pieces, each a
    complete graph :math:`K_{d+1}`, a complete bipartite :math:`K_{d,d}`, a
    complete multipartite graph, a circulant, a generalised Petersen graph
    (d = 3) or a hypercube (d <= 5) -- families with twins, symmetry and
    small girth, which defeat constructions that rely on random vertices
    being in general position.  Labels are all +1, all -1, alternating in
    ``graph.edges()`` order, constant per component with alternating signs,
    or drawn edge by edge.  Everything shrinks towards one ``K_3`` (d = 2)
    with every label +1.
    """
    d = draw(st.integers(2, max_degree))
    k = draw(st.integers(1, max_components))
    edges, names, offset, comp_of_node = [], [], 0, []
    for c in range(k):
        name, piece, n_piece = draw(regular_components(d))
        edges += [(u + offset, v + offset) for u, v in piece]
        comp_of_node += [c] * n_piece
        names.append(name)
        offset += n_piece
    graph = Graph.from_edges(np.array(edges, dtype=np.int64), nodes=offset)
    m = graph.n_edges
    kind = draw(st.sampled_from(["all +1", "all -1", "alternating", "per component", "drawn"]))
    if kind == "all +1":
        labels = np.ones(m, np.int8)
    elif kind == "all -1":
        labels = -np.ones(m, np.int8)
    elif kind == "alternating":
        labels = np.where(np.arange(m) % 2 == 0, 1, -1).astype(np.int8)
    elif kind == "per component":
        comp = np.asarray(comp_of_node)[graph.edges()[:, 0]]
        labels = np.where(comp % 2 == 0, 1, -1).astype(np.int8)
    else:
        labels = np.array(draw(st.lists(st.sampled_from([1, -1]), min_size=m, max_size=m)), dtype=np.int8)
    return graph, d, labels, f"{' + '.join(names)}, d={d}, labels {kind}"
