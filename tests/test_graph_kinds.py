"""Graph kinds (issue #18): directed graphs keep their arcs, bipartite graphs keep their two sides.

Round trips through every constructor and loader, per-side id lookups, and
the real email-Eu-core arcs.
"""
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from lgekit import Graph, GraphWarning, datasets
from strategies import graphs


def side_ids(kind, n):
    """Ids of one side: "index" (0..n-1, so the two sides overlap), "int" (spread out) or "str"."""
    if kind == "index":
        return list(range(n))
    if kind == "int":
        return [5 * i + 2 for i in range(n)]
    return [f"s{i}" for i in range(n)]


@st.composite
def bipartite_inputs(draw, max_left=6, max_right=7, max_edges=20):
    """(left ids, right ids, edge list of (left id, right id), weights or None); repeats allowed."""
    n_left, n_right = draw(st.integers(0, max_left)), draw(st.integers(0, max_right))
    left = side_ids(draw(st.sampled_from(["index", "int", "str"])), n_left)
    right = side_ids(draw(st.sampled_from(["index", "int", "str"])), n_right)
    pairs = []
    if n_left and n_right:
        pairs = draw(st.lists(st.tuples(st.integers(0, n_left - 1), st.integers(0, n_right - 1)), max_size=max_edges))
    weights = None
    if draw(st.booleans()):
        weights = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.5]), min_size=len(pairs), max_size=len(pairs)))
    return left, right, [(left[i], right[j]) for i, j in pairs], weights


@st.composite
def bipartite_graphs(draw, **kwargs):
    left, right, edges, weights = draw(bipartite_inputs(**kwargs))
    return Graph.from_edges(edges, weights=weights, nodes=(left, right), bipartite=True)


def same_graph(a, b, ids=True):
    assert a.kind == b.kind and a.n_nodes == b.n_nodes and a.n_edges == b.n_edges
    # networkx has no graph-level "weighted": a graph none of whose (zero) edges has a weight is unweighted
    assert a.n_left == b.n_left and (a.is_weighted == b.is_weighted or a.n_edges == 0)
    np.testing.assert_array_equal(a.edges(), b.edges())
    np.testing.assert_array_equal(a.edge_weights(), b.edge_weights())
    assert (a.to_scipy() != b.to_scipy()).nnz == 0
    if ids:
        assert a.node_ids.tolist() == b.node_ids.tolist()


# ---------------------------------------------------------------------- kinds
def test_kind_of_each_constructor():
    und = Graph.from_edges([(0, 1), (1, 2)])
    dig = Graph.from_edges([(0, 1), (1, 2)], directed=True)
    bip = Graph.from_edges([(0, 1), (1, 2)], bipartite=True)
    assert (und.kind, dig.kind, bip.kind) == ("undirected", "directed", "bipartite")
    assert (und.is_directed, dig.is_directed, bip.is_directed) == (False, True, False)
    assert (und.is_bipartite, dig.is_bipartite, bip.is_bipartite) == (False, False, True)
    for g in (und, dig):  # the sides of a graph that has none: None, documented
        assert g.n_left is None and g.n_right is None and g.left_ids is None and g.right_ids is None
    assert (bip.n_left, bip.n_right) == (2, 2)
    assert bip.left_ids.tolist() == [0, 1] and bip.right_ids.tolist() == [1, 2]
    assert not bip.left_ids.flags.writeable and not bip.right_ids.flags.writeable


def test_summary_and_repr_show_the_kind():
    bip = Graph.from_biadjacency(np.array([[1, 0, 2], [0, 1, 0]]), name="toy")
    s = bip.summary()
    assert s["kind"] == "bipartite" and (s["n_left"], s["n_right"]) == (2, 3) and s["directed"] is False
    assert repr(bip) == "<Graph 'toy': 5 nodes (2 left, 3 right), 3 bipartite edges, weighted>"
    dig = Graph.from_edges([(0, 1), (1, 0), (1, 2)], directed=True)
    assert dig.summary()["kind"] == "directed" and "n_left" not in dig.summary()
    assert repr(dig) == "<Graph 3 nodes, 3 directed edges>"
    assert repr(Graph.from_edges([(0, 1)])) == "<Graph 2 nodes, 1 undirected edges>"


# ---------------------------------------------------------------------- bipartite construction
@given(bipartite_inputs())
def test_bipartite_from_edges_two_namespaces(data):
    left, right, edges, weights = data
    g = Graph.from_edges(edges, weights=weights, nodes=(left, right), bipartite=True)
    nl, nr = len(left), len(right)
    assert g.kind == "bipartite" and (g.n_left, g.n_right, g.n_nodes) == (nl, nr, nl + nr)
    assert g.left_ids.tolist() == left and g.right_ids.tolist() == right
    # one edge per distinct (left, right) pair, listed as (left index, right index), left < right
    expected = sorted({(left.index(a), nl + right.index(b)) for a, b in edges})
    assert [tuple(e) for e in g.edges().tolist()] == expected
    e = g.edges()
    assert np.all(e[:, 0] < nl) and np.all(e[:, 1] >= nl)
    adj = g.to_scipy()
    assert (adj != adj.T).nnz == 0  # stored symmetric: every undirected algorithm runs on it
    assert adj[:nl, :nl].nnz == 0 and adj[nl:, nl:].nnz == 0
    if weights is not None:  # a repeated pair weighs the largest of its weights, as in from_edges' default
        total = {}
        for (a, b), w in zip(edges, weights):
            key = (left.index(a), nl + right.index(b))
            total[key] = max(total.get(key, 0.0), w)
        assert g.edge_weights().tolist() == [total[k] for k in expected]
    # without nodes: each side's sorted distinct ids
    if edges:
        h = Graph.from_edges(edges, bipartite=True)
        assert h.left_ids.tolist() == sorted({a for a, _ in edges})
        assert h.right_ids.tolist() == sorted({b for _, b in edges})


@given(bipartite_graphs())
def test_bipartite_round_trips(g):
    # biadjacency <-> from_biadjacency
    b = g.biadjacency()
    assert b.shape == (g.n_left, g.n_right)
    same_graph(g, Graph.from_biadjacency(b, left_ids=g.left_ids, right_ids=g.right_ids, weighted=g.is_weighted))
    # to_scipy <-> from_scipy / the constructor with n_left
    same_graph(g, Graph.from_scipy(g.to_scipy(), node_ids=g.node_ids, n_left=g.n_left, weighted=g.is_weighted))
    same_graph(g, Graph(g.to_scipy(), node_ids=g.node_ids, n_left=g.n_left, weighted=g.is_weighted))
    # edges -> from_edges
    ids = g.node_ids.tolist()
    edges = [(ids[u], ids[v]) for u, v in g.edges().tolist()]
    again = Graph.from_edges(edges, weights=g.edge_weights() if g.is_weighted else None,
                             nodes=(g.left_ids.tolist(), g.right_ids.tolist()), bipartite=True)
    same_graph(g, again)
    # networkx, with its bipartite attribute
    h = g.to_networkx()
    assert isinstance(h, nx.Graph) and not h.is_directed()
    sides = nx.get_node_attributes(h, "bipartite")
    assert sorted(sides.values()) == [0] * g.n_left + [1] * g.n_right
    assert h.number_of_edges() == g.n_edges
    back = Graph.from_networkx(h, bipartite="bipartite", weight="weight" if g.is_weighted else None)
    shared = set(g.left_ids.tolist()) & set(g.right_ids.tolist())
    if shared:  # a networkx node is one node: the sides' ids are told apart as (0, id) and (1, id)
        assert back.left_ids.tolist() == [(0, x) for x in g.left_ids.tolist()]
        assert back.right_ids.tolist() == [(1, x) for x in g.right_ids.tolist()]
        same_graph(g, back, ids=False)
    else:
        same_graph(g, back)
    assert Graph.from_networkx(h, bipartite=True).n_left == g.n_left


@given(bipartite_graphs())
def test_index_of_per_side(g):
    nl = g.n_left
    left, right = g.left_ids.tolist(), g.right_ids.tolist()
    if left:
        np.testing.assert_array_equal(g.index_of(left, side="left"), np.arange(nl))
        np.testing.assert_array_equal(g.index_of(left, side=0), np.arange(nl))
    if right:
        np.testing.assert_array_equal(g.index_of(right, side="right"), nl + np.arange(g.n_right))
        np.testing.assert_array_equal(g.index_of(right, side=1), nl + np.arange(g.n_right))
    shared = set(left) & set(right)
    for i, x in enumerate(left + right):
        if x in shared:
            with pytest.raises(ValueError, match="name a left node and a right node.*side='left' or side='right'"):
                g.index_of(x)
        else:
            assert int(g.index_of(x)) == i


def test_index_of_errors():
    g = Graph.from_edges([(1, "a"), (2, 1)], bipartite=True)
    # mixed ids on a side keep their first-appearance order, as from_edges numbers mixed ids
    assert g.left_ids.tolist() == [1, 2] and g.right_ids.tolist() == ["a", 1]
    assert int(g.index_of("a")) == 2 and int(g.index_of(2)) == 1 and int(g.index_of(1, side="right")) == 3
    with pytest.raises(KeyError, match=r"index_of\(side='left'\): unknown node id\(s\) \['a'\]"):
        g.index_of("a", side="left")
    with pytest.raises(KeyError, match=r"unknown node id\(s\) \[7\]"):
        g.index_of([2, 7])
    with pytest.raises(ValueError, match="side must be 'left', 'right', 0 or 1"):
        g.index_of(1, side="top")
    with pytest.raises(ValueError, match="side='left' applies to bipartite graphs; this graph is undirected"):
        Graph.from_edges([(0, 1)]).index_of(0, side="left")


def test_bipartite_ids_unique_per_side_only():
    g = Graph.from_biadjacency(np.ones((2, 2)), left_ids=["x", "y"], right_ids=["x", "y"])
    assert g.node_ids.tolist() == ["x", "y", "x", "y"]
    with pytest.raises(ValueError, match="unique within the right side"):
        Graph.from_biadjacency(np.ones((2, 2)), right_ids=[3, 3])
    with pytest.raises(ValueError, match="right_ids must have one id per column of matrix \\(2\\), got shape"):
        Graph.from_biadjacency(np.ones((2, 2)), right_ids=[3])
    with pytest.raises(ValueError, match="names a left and a right node"):
        Graph.from_edges([("x", "x")], bipartite=True, labels={"x": 1})
    lab = Graph.from_edges([("x", "x")], bipartite=True, labels=[0, 1])  # per-node sequence: left then right
    assert lab.labels.toarray().tolist() == [[1, 0], [0, 1]]


def test_bipartite_refusals():
    with pytest.raises(ValueError, match="bipartite=True and directed=True"):
        Graph.from_edges([(0, 1)], bipartite=True, directed=True)
    with pytest.raises(ValueError, match="nodes must be a pair"):
        Graph.from_edges([(0, 1)], bipartite=True, nodes=[0, 1, 2])
    with pytest.raises(ValueError, match="joins node indices 0 and 1, both on the left side"):
        Graph(sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])), n_left=2)
    with pytest.raises(ValueError, match=r"n_left must lie in \[0, 3\]"):
        Graph(sp.csr_matrix((3, 3)), n_left=4)
    with pytest.raises(ValueError, match="a bipartite graph is stored undirected"):
        Graph.from_scipy(sp.csr_matrix((3, 3)), n_left=1, directed=True)
    with pytest.raises(ValueError, match="finite and non-negative; entry \\(0, 1\\) is -1.0"):
        Graph.from_biadjacency(np.array([[1, -1]]))
    with pytest.raises(TypeError, match="must hold real numbers"):
        Graph.from_biadjacency(np.array([[1j]]))
    with pytest.raises(ValueError, match="biadjacency needs a bipartite graph; this one is directed"):
        Graph.from_edges([(0, 1)], directed=True).biadjacency()
    with pytest.raises(ValueError, match="joins node indices"):
        Graph.from_biadjacency(np.ones((2, 1))).with_edges([[0, 1]])  # two left nodes


def test_bipartite_from_networkx_checks_the_attribute():
    h = nx.complete_bipartite_graph(2, 3)
    g = Graph.from_networkx(h, bipartite="bipartite")
    assert g.kind == "bipartite" and g.left_ids.tolist() == [0, 1] and g.right_ids.tolist() == [2, 3, 4]
    # left nodes first whatever networkx's node order; each side keeps its order
    k = nx.Graph()
    k.add_node("item", side=1)
    k.add_node("user", side=0)
    k.add_edge("user", "item")
    g = Graph.from_networkx(k, bipartite="side")
    assert g.node_ids.tolist() == ["user", "item"] and g.edges().tolist() == [[0, 1]]
    missing = nx.Graph([(0, 1)])
    with pytest.raises(ValueError, match="node 0 has no 'bipartite' attribute"):
        Graph.from_networkx(missing, bipartite=True)
    nx.set_node_attributes(missing, {0: 0, 1: 2}, "bipartite")
    with pytest.raises(ValueError, match="node 1 has bipartite=2; the side of a node must be 0 \\(left\\) or 1"):
        Graph.from_networkx(missing, bipartite=True)
    nx.set_node_attributes(missing, {0: 0, 1: 0}, "bipartite")
    with pytest.raises(ValueError, match="edge \\(0, 1\\) joins two nodes of the same side"):
        Graph.from_networkx(missing, bipartite=True)
    with pytest.raises(ValueError, match="bipartite and directed=True"):
        Graph.from_networkx(nx.DiGraph(h), bipartite=True, directed=True)
    with pytest.raises(TypeError, match=r"bipartite must be None \(detect\), True, False or a node attribute name"):
        Graph.from_networkx(h, bipartite=1)


def test_networkx_bipartite_attribute_is_detected():
    """Issue 27 item 3: networkx's bipartite node attribute makes a bipartite graph without being asked."""
    h = nx.complete_bipartite_graph(2, 3)
    assert_same = Graph.from_networkx(h, bipartite=True)
    g = Graph.from_networkx(h)
    assert g.kind == "bipartite" and g.n_left == 2 and g.edges().tolist() == assert_same.edges().tolist()
    # the way back: to_networkx writes the attribute, from_networkx reads it
    b = Graph.from_edges([("ann", "film"), ("bob", "film"), ("bob", "song")], bipartite=True)
    back = Graph.from_networkx(b.to_networkx())
    assert back.kind == "bipartite" and back.left_ids.tolist() == ["ann", "bob"] and back.n_edges == 3
    # not detected: bipartite=False, an edge inside a side, a node without the attribute or with another value
    assert Graph.from_networkx(h, bipartite=False).kind == "undirected"
    inside = h.copy()
    inside.add_edge(0, 1)
    assert Graph.from_networkx(inside).kind == "undirected"
    partial = nx.disjoint_union(nx.complete_graph(3), h)
    assert Graph.from_networkx(partial).kind == "undirected"
    other = h.copy()
    other.nodes[4]["bipartite"] = "right"
    assert Graph.from_networkx(other).kind == "undirected"
    # a DiGraph stays directed, unless read undirected
    d = nx.DiGraph(h)
    assert Graph.from_networkx(d).kind == "directed"
    assert Graph.from_networkx(d, directed=False).kind == "bipartite"


# ---------------------------------------------------------------------- directed: every constructor keeps arcs
@given(graphs(max_nodes=10, directed=True, weighted=st.booleans(), ids=st.sampled_from(["index", "int", "str"])))
def test_directed_round_trips(g):
    assert g.kind == "directed"
    arcs = {tuple(e) for e in g.edges().tolist()}
    # to_scipy / from_scipy(directed=True): rows are sources
    adj = g.to_scipy().tocoo()
    assert set(zip(adj.row.tolist(), adj.col.tolist())) == arcs
    same_graph(g, Graph.from_scipy(g.to_scipy(), node_ids=g.node_ids, directed=True, weighted=g.is_weighted))
    # networkx: a DiGraph with the same arcs, read back with directed=True
    h = g.to_networkx()
    assert h.is_directed() and h.number_of_edges() == g.n_edges
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # directed=True says what is meant: no warning
        same_graph(g, Graph.from_networkx(h, directed=True, weight="weight" if g.is_weighted else None))
    # from_edges(directed=True) on the ids
    ids = g.node_ids.tolist()
    same_graph(g, Graph.from_edges([(ids[u], ids[v]) for u, v in g.edges().tolist()],
                                   weights=g.edge_weights() if g.is_weighted else None, nodes=ids, directed=True))


def test_directed_defaults_of_each_constructor():
    arcs = [(0, 1), (1, 2)]
    a = sp.csr_matrix((np.ones(2), ([0, 1], [1, 2])), shape=(3, 3))
    with pytest.warns(GraphWarning, match="not symmetric"):
        assert Graph.from_scipy(a).kind == "undirected"
    assert Graph.from_networkx(nx.DiGraph(arcs)).kind == "directed"  # networkx says directed: so it is
    assert Graph.from_edges(arcs).kind == "undirected"  # from_edges' default: undirected, as documented
    for g in (Graph.from_scipy(a, directed=True), Graph.from_networkx(nx.DiGraph(arcs), directed=True),
              Graph.from_edges(arcs, directed=True)):
        assert g.kind == "directed" and g.edges().tolist() == [[0, 1], [1, 2]]
        assert not g.has_edges(np.array([[1, 0]]))[0]


# ---------------------------------------------------------------------- loaders
def test_edge_list_directed_and_bipartite(tmp_path):
    path = tmp_path / "arcs.txt"
    path.write_text("1 2\n2 3\n3 1\n3 2\n")
    g = datasets.load(path, directed=True)
    assert g.kind == "directed" and g.n_edges == 4
    assert {tuple(g.node_ids[e].tolist()) for e in g.edges()} == {(1, 2), (2, 3), (3, 1), (3, 2)}
    assert datasets.load(path).n_edges == 3  # the default symmetrises, as before

    bp = tmp_path / "ratings.tsv"
    bp.write_text("ann\tfilm\t2\nbob\tfilm\t1\nbob\tann\t3\n")
    g = datasets.load(bp, bipartite=True)
    assert g.kind == "bipartite" and g.name == "ratings"
    assert g.left_ids.tolist() == ["ann", "bob"] and g.right_ids.tolist() == ["ann", "film"]
    assert g.edges().tolist() == [[0, 3], [1, 2], [1, 3]] and g.edge_weights().tolist() == [2.0, 3.0, 1.0]
    # "3 3" joins left node 3 and right node 3: not a self-loop
    loops = tmp_path / "same.txt"
    loops.write_text("3 3\n3 4\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = datasets.load(loops, bipartite=True)
    assert g.n_edges == 2 and g.left_ids.tolist() == [3] and g.right_ids.tolist() == [3, 4]
    labels = tmp_path / "labels.txt"
    labels.write_text("3 a\n")
    with pytest.raises(ValueError, match="cannot say which side its node 3 is on"):
        datasets.load(loops, bipartite=True, labels=labels)
    with pytest.raises(ValueError, match="bipartite=True and directed=True"):
        datasets.load(loops, bipartite=True, directed=True)


def test_mat_directed_and_biadjacency(tmp_path):
    path = tmp_path / "arcs.mat"
    scipy.io.savemat(path, {"network": sp.csr_matrix(np.array([[0., 1, 0], [0, 0, 1], [0, 0, 0]]))})
    g = datasets.load(path, directed=True)
    assert g.kind == "directed" and g.edges().tolist() == [[0, 1], [1, 2]]
    bip = tmp_path / "bip.mat"
    scipy.io.savemat(bip, {"network": sp.csr_matrix(np.array([[1., 0, 1], [0, 1, 0]])),
                           "group": sp.csr_matrix(np.eye(5, 2))})
    g = datasets.load(bip, bipartite=True)
    assert g.kind == "bipartite" and (g.n_left, g.n_right) == (2, 3)
    assert g.edges().tolist() == [[0, 2], [0, 4], [1, 3]] and g.labels.toarray()[:2].tolist() == [[1, 0], [0, 1]]
    with pytest.raises(datasets.DataFormatError, match="must be a square adjacency matrix.*bipartite=True"):
        datasets.load(bip)
    with pytest.raises(ValueError, match="a label file cannot say which side"):
        datasets.load(bip, bipartite=True, labels=tmp_path / "x.txt")


def test_asu_folder_directed_and_refusals(tmp_path):
    for name, text in (("nodes.csv", "1\n2\n3\n"), ("edges.csv", "1,2\n2,3\n"), ("groups.csv", "1\n"),
                       ("group-edges.csv", "1,1\n")):
        (tmp_path / name).write_text(text)
    g = datasets.load(tmp_path, directed=True)
    assert g.kind == "directed" and g.edges().tolist() == [[0, 1], [1, 2]]
    with pytest.raises(ValueError, match="an ASU folder .* holds one node set"):
        datasets.load(tmp_path, bipartite=True)
    with pytest.raises(ValueError, match="'synthetic-blogcatalog' is not bipartite"):
        datasets.load("synthetic-blogcatalog", bipartite=True)


def test_email_eu_core_directed(data_dir):
    raw = np.loadtxt(data_dir / "email-eu-core" / "email-Eu-core.txt", dtype=np.int64)
    assert len(raw) == 25_571
    loops = raw[:, 0] == raw[:, 1]
    arcs = {tuple(a) for a in raw[~loops].tolist()}
    g = datasets.load("email-eu-core", data_home=data_dir, directed=True)
    assert g.kind == "directed" and g.n_edges == len(arcs) == 25_571 - int(loops.sum()) == 24_929
    ids = g.node_ids
    assert {(int(ids[u]), int(ids[v])) for u, v in g.edges().tolist()} == arcs
    # the default still symmetrises (16,064 undirected edges)
    assert datasets.load("email-eu-core", data_home=data_dir).n_edges == 16_064
