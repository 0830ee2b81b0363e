"""Property and error-path tests of lgekit.Graph (the CSR graph every component consumes)."""
import re
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from lgekit import Graph, GraphWarning
from strategies import edge_lists, graphs


def canonical_pairs(edges, directed=False):
    """Set of edges as the graph should store them: no self-loops, undirected pairs unordered."""
    out = set()
    for u, v in edges:
        if u == v:
            continue
        out.add((u, v) if directed else frozenset((u, v)))
    return out


def stored_pairs(g):
    ids = g.node_ids.tolist()
    return {(ids[u], ids[v]) if g.is_directed else frozenset((ids[u], ids[v])) for u, v in g.edges().tolist()}


def assert_csr_invariants(g):
    indptr, indices = g.indptr, g.indices
    n = g.n_nodes
    assert indptr.shape == (n + 1,) and indptr[0] == 0 and np.all(np.diff(indptr) >= 0)
    assert indptr[-1] == len(indices) == len(g.weights)
    assert indices.dtype == np.int32 and indptr.dtype == np.int32  # small graphs fit int32
    for arr in (indptr, indices, g.weights, g.node_ids):
        assert not arr.flags.writeable
    rows = np.repeat(np.arange(n), np.diff(indptr))
    # sorted, no repeated column, within each row
    same_row = rows[1:] == rows[:-1]
    assert np.all(indices[1:][same_row] > indices[:-1][same_row])
    assert not np.any(rows == indices), "self-loop stored"
    assert np.all(g.weights > 0) and np.all(np.isfinite(g.weights))
    assert np.array_equal(g.degrees, np.diff(indptr))
    adj = sp.csr_matrix((g.weights, indices, indptr), shape=(n, n))
    if not g.is_directed:
        assert (adj != adj.T).nnz == 0, "undirected CSR must be symmetric"
        assert g.n_edges * 2 == len(indices)
        e = g.edges()
        assert np.all(e[:, 0] < e[:, 1])
    else:
        assert g.n_edges == len(indices)
    e = g.edges()
    assert e.dtype == np.int64 and e.shape == (g.n_edges, 2)
    keys = e[:, 0] * max(n, 1) + e[:, 1]
    assert np.all(np.diff(keys) > 0), "edges() must be lexicographically sorted and unique"


# ---------------------------------------------------------------------- round trips
@given(edge_lists(), st.booleans())
def test_edges_graph_edges_round_trip(data, directed):
    ids, edges, _ = data
    n_loops = sum(u == v for u, v in edges)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = Graph.from_edges(edges, nodes=ids, directed=directed)
    loop_warnings = [w for w in caught if issubclass(w.category, GraphWarning)]
    if n_loops:
        assert len(loop_warnings) == 1 and f"dropped {n_loops} self-loop" in str(loop_warnings[0].message)
    else:
        assert not loop_warnings
    assert g.node_ids.tolist() == ids
    assert stored_pairs(g) == canonical_pairs(edges, directed)
    assert g.n_edges == len(canonical_pairs(edges, directed))
    assert_csr_invariants(g)
    # ids -> indices -> ids (index_of cannot tell a tuple id from a list of ids)
    if ids and not isinstance(ids[0], tuple):
        assert g.node_ids[g.index_of(ids)].tolist() == ids
        assert [int(g.index_of(x)) for x in ids] == list(range(len(ids)))


@given(edge_lists(ids=st.just("str"), self_loops=False))
def test_default_node_ids_are_the_sorted_endpoints(data):
    _, edges, _ = data
    g = Graph.from_edges(edges)
    assert g.node_ids.tolist() == sorted({x for e in edges for x in e})
    assert stored_pairs(g) == canonical_pairs(edges)


@given(edge_lists(min_nodes=1, self_loops=False), st.sampled_from(["sum", "max"]))
def test_duplicates_merged_with_policy(data, policy):
    ids, edges, weights = data
    g = Graph.from_edges(edges, weights=weights, nodes=ids, duplicates=policy)
    expected = {}
    for (u, v), w in zip(edges, weights):
        key = frozenset((u, v))
        expected[key] = (expected.get(key, 0.0) + w) if policy == "sum" else max(expected.get(key, 0.0), w)
    got = {frozenset((g.node_ids[u], g.node_ids[v])): w for (u, v), w in zip(g.edges().tolist(), g.edge_weights())}
    assert got.keys() == expected.keys()
    for key, w in expected.items():
        assert got[key] == pytest.approx(w, rel=1e-12)
    assert g.is_weighted  # weights were given
    assert_csr_invariants(g)


ANY_IDS = st.sampled_from(["index", "int", "str", "mixed", "tuple"])


@given(graphs(directed=st.booleans(), weighted=st.booleans(), labelled=st.booleans(), ids=ANY_IDS))
def test_strategy_graphs_are_simple_csr(g):
    assert_csr_invariants(g)


@given(graphs(connected=True, directed=st.booleans()))
def test_connected_strategy_is_connected(g):
    from scipy.sparse.csgraph import connected_components

    if g.n_nodes:
        assert connected_components(g.to_scipy(), directed=g.is_directed, connection="weak")[0] == 1


def assert_same_graph(a, b):
    assert a.n_nodes == b.n_nodes and a.is_directed == b.is_directed
    assert a.node_ids.tolist() == b.node_ids.tolist()
    assert np.array_equal(a.edges(), b.edges())
    assert np.allclose(a.edge_weights(), b.edge_weights())
    assert a.is_weighted == b.is_weighted
    if a.labels is None:
        assert b.labels is None
    else:
        # the same memberships, by class name (class order may differ)
        def memberships(g):
            names = g.label_names.tolist()
            lab = g.labels.tocoo()
            return {(int(r), names[c]) for r, c in zip(lab.row, lab.col)}

        assert memberships(a) == memberships(b)


@given(graphs(directed=st.booleans(), weighted=st.booleans(), labelled=st.booleans(), ids=ANY_IDS))
def test_networkx_round_trip(g):
    h = g.to_networkx()
    assert h.number_of_nodes() == g.n_nodes and h.number_of_edges() == g.n_edges
    assert h.is_directed() == g.is_directed
    back = Graph.from_networkx(h, label_attr="labels" if g.labels is not None else None,
                               directed=True if g.is_directed else None)
    if g.n_edges == 0:
        # the default weight="weight" finds no edge carrying it: an edgeless graph comes back unweighted
        assert not back.is_weighted
        g = g._replace(weighted=False)
    assert_same_graph(g, back)


@given(graphs(directed=st.booleans(), weighted=st.booleans(), labelled=st.booleans()))
def test_scipy_round_trip(g):
    m = g.to_scipy()
    assert m.shape == (g.n_nodes, g.n_nodes)
    m.data[:] += 0.0  # the copy is writable and the graph is untouched
    back = Graph.from_scipy(m, node_ids=g.node_ids, labels=g.labels, label_names=g.label_names,
                            directed=g.is_directed, weighted=g.is_weighted)
    assert_same_graph(g, back)


@given(graphs(weighted=st.booleans(), labelled=True, directed=st.booleans()))
def test_with_edges_keeps_nodes_labels_and_weights(g):
    # regression: with_edges on a labelled graph used to fail writing into read-only label arrays
    keep = g.edges()[::2]
    w = g.edge_weights()[::2] if g.is_weighted else None
    h = g.with_edges(keep, weights=w)
    assert np.array_equal(h.edges(), keep)
    assert h.node_ids.tolist() == g.node_ids.tolist()
    assert (h.labels != g.labels).nnz == 0
    if g.is_weighted:
        assert np.array_equal(h.edge_weights(), w)
    assert_csr_invariants(h)


def test_label_matrix_input_not_mutated_and_copied():
    labels = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 1]], dtype=np.int8))
    labels.data[:] = 1
    g = Graph.from_edges([(0, 1), (1, 2)], nodes=3, labels=labels)
    labels.data[:] = 0  # changing the caller's matrix afterwards must not change the graph
    assert g.labels.toarray().tolist() == [[1, 0], [0, 1], [1, 1]]


@given(graphs(directed=st.booleans()), st.data())
def test_has_edges_matches_edge_set(g, data):
    n = g.n_nodes
    if n == 0:
        return
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=20))
    stored = {tuple(e) for e in g.edges().tolist()}
    if not g.is_directed:
        stored |= {(v, u) for u, v in stored}
    assert g.has_edges(pairs).tolist() == [p in stored for p in pairs]


def test_mixed_and_tuple_ids_kept_as_given():
    # NumPy alone would turn 1 into "1" and tuples into a third axis
    g = Graph.from_edges([(1, "a"), ("a", 2)])
    assert g.node_ids.tolist() == [1, "a", 2] and int(g.index_of(1)) == 0 and int(g.index_of("a")) == 1
    g = Graph.from_edges([((0, 0), (0, 1)), ((0, 1), (1, 1))], nodes=[(0, 0), (0, 1), (1, 1), (1, 0)])
    assert g.node_ids.tolist() == [(0, 0), (0, 1), (1, 1), (1, 0)] and g.edges().tolist() == [[0, 1], [1, 2]]
    grid = nx.grid_2d_graph(2, 3)
    assert Graph.from_networkx(grid).node_ids.tolist() == list(grid.nodes())
    assert Graph.from_networkx(nx.Graph([(1, "a")])).node_ids.tolist() == [1, "a"]


def test_not_pairs_rejected():
    with pytest.raises(ValueError, match="edges must be pairs"):
        Graph.from_edges([1, 2, 3])


def test_isolated_nodes_kept_and_reported():
    g = Graph.from_edges([("a", "b")], nodes=["a", "b", "c", "d"])
    assert g.n_nodes == 4 and g.isolated_nodes.tolist() == [2, 3]
    assert g.summary()["n_isolated"] == 2


def test_self_loop_warning_counts():
    with pytest.warns(GraphWarning, match="dropped 2 self-loop"):
        g = Graph.from_edges([(0, 0), (0, 1), (1, 1)])
    assert g.edges().tolist() == [[0, 1]]
    with pytest.warns(GraphWarning, match="dropped 1 self-loop"):
        Graph.from_scipy(sp.csr_matrix(np.array([[1, 1], [1, 0]])))


# ---------------------------------------------------------------------- errors
def test_ragged_rows_rejected():
    with pytest.raises(ValueError, match="ragged: row 0 has 2 entries, row 1 has 3"):
        Graph.from_edges([(0, 1), (1, 2, 3.0), (2, 3)])


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.nan, np.inf])
def test_bad_weights_rejected(bad):
    with pytest.raises(ValueError, match=r"weights must be finite positive numbers \(float or int, at most 1.8e308\); edge 1 \(1, 2\) has weight"):
        Graph.from_edges([(0, 1), (1, 2)], weights=[1.0, bad])


def test_bad_weight_shape_and_type():
    with pytest.raises(ValueError, match="one value per edge"):
        Graph.from_edges([(0, 1), (1, 2)], weights=[1.0])
    with pytest.raises(ValueError, match=r"weights must be finite positive numbers .*; edge 0 \(0, 1\) has weight 'heavy'"):
        Graph.from_edges([(0, 1)], weights=["heavy"])
    with pytest.raises(ValueError, match="matrix entries must be finite and non-negative"):
        Graph.from_scipy(np.array([[0, -1.0], [-1.0, 0]]))


def test_unknown_label_ids_rejected():
    with pytest.raises(ValueError, match="labels given for unknown node id 'z'"):
        Graph.from_edges([("a", "b")], labels={"a": 1, "z": 2})
    with pytest.raises(ValueError, match="one entry per node"):
        Graph.from_edges([("a", "b")], labels=[1, 2, 3])


def test_unknown_edge_ids_and_ranges():
    with pytest.raises(KeyError, match="unknown node id"):
        Graph.from_edges([("a", "x")], nodes=["a", "b"])
    with pytest.raises(ValueError, match=r"edge endpoints must lie in \[0, 2\)"):
        Graph.from_edges([(0, 2)], nodes=2)
    with pytest.raises(KeyError, match="unknown node id"):
        Graph.from_edges([(0, 1)]).index_of(5)


def test_duplicates_error_policy():
    with pytest.raises(ValueError, match="is repeated and duplicates='error'"):
        Graph.from_edges([(0, 1), (1, 0)], duplicates="error")
    with pytest.raises(ValueError, match="duplicates must be one of"):
        Graph.from_edges([(0, 1)], duplicates="mean")


def test_edge_array_shape_errors():
    with pytest.raises(ValueError, match=r"shape \(m, 2\) or \(m, 3\)"):
        Graph.from_edges(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="duplicated"):
        Graph.from_edges([(0, 1)], nodes=[0, 1, 1])


# ---------------------------------------------------------------------- issue 13: exact ids, one label rule, messages
big_ints = st.integers(-(2**70), 2**70) | st.sampled_from([2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64])


@given(st.lists(st.tuples(big_ints, big_ints), min_size=1, max_size=12), st.booleans())
def test_integer_ids_stay_exact_at_any_size(pairs, weighted):
    """Item 8: Python ints >= 2**63 went through float64 (4 ids became 3 nodes)."""
    edges = [(u, v, 1.5) for u, v in pairs] if weighted else pairs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)  # self-loops
        g = Graph.from_edges(edges)
    ids = sorted({x for p in pairs for x in p})
    assert g.node_ids.tolist() == ids  # exact, sorted like int64 ids
    assert all(type(x) is int for x in g.node_ids.tolist())
    assert g.node_ids.dtype == (np.int64 if all(-(2**63) <= x < 2**63 for x in ids) else object)
    assert stored_pairs(g) == canonical_pairs(pairs)
    assert g.index_of(ids).tolist() == list(range(len(ids)))
    assert int(g.index_of(ids[-1])) == len(ids) - 1


def test_issue_example_four_big_ids_are_four_nodes():
    g = Graph.from_edges([(2**63, 2**63 + 1), (2**63 + 2, 2**63 + 3)])
    assert g.n_nodes == 4 and g.node_ids.tolist() == [2**63, 2**63 + 1, 2**63 + 2, 2**63 + 3]
    g = Graph.from_edges(np.array([[2**63, 2**64 - 1]], dtype=np.uint64))
    assert g.node_ids.tolist() == [2**63, 2**64 - 1] and g.index_of(2**64 - 1) == 1
    with pytest.raises(ValueError, match=r"float node ids must be whole numbers of magnitude below 2\*\*53"):
        Graph.from_edges(np.array([[2.0**60, 1.0]]))
    with pytest.raises(ValueError, match=r"index_of: node ids given as floats of magnitude 2\*\*53 or more"):
        Graph.from_edges([(1, 2)]).index_of(np.array([2.0**60]))


def _labels_with_explicit_zero():
    lab = sp.csr_matrix((np.array([1, 0, 1], dtype=np.int8), np.array([0, 1, 1]), np.array([0, 2, 2, 3])),
                        shape=(3, 2))
    assert lab.nnz == 3  # the stored zero is there
    return lab


def test_explicit_zeros_in_a_label_matrix_are_not_memberships():
    """Item 9: lab.data[:] = 1 made the stored zero a membership."""
    adj = Graph.from_edges([(0, 1), (1, 2)]).to_scipy()
    for g in (Graph(adj, labels=_labels_with_explicit_zero()),
              Graph.from_edges([(0, 1), (1, 2)], labels=_labels_with_explicit_zero()),
              Graph.from_scipy(adj, labels=_labels_with_explicit_zero())):
        assert g.labels.toarray().tolist() == [[1, 0], [0, 0], [0, 1]] and g.labels.nnz == 2
    # a membership stored twice (COO duplicates) is one membership; booleans are memberships
    dup = sp.coo_matrix((np.ones(3), ([0, 0, 2], [1, 1, 0])), shape=(3, 2))
    assert Graph(adj, labels=dup).labels.toarray().tolist() == [[0, 1], [0, 0], [1, 0]]
    assert Graph(adj, labels=sp.csr_matrix(np.eye(3, 2, dtype=bool))).labels.nnz == 2


@pytest.mark.parametrize("value", [-1, 5, 2, 0.5, np.nan])
def test_label_values_other_than_0_1_are_refused_by_every_constructor(value):
    """Item 9: Graph(adj, labels=...) accepted -1 and 5 as memberships while from_edges refused them."""
    adj = Graph.from_edges([(0, 1), (1, 2)]).to_scipy()
    dense = np.array([[1, 0], [0, 1], [0, 0]], dtype=float)
    dense[2, 1] = value
    match = rf"labels must hold 0/1 memberships \(1: member, 0 or absent: not\), got {re.escape(repr(float(value)))} " \
            r"at node index 2, class 1"
    for build in (lambda: Graph(adj, labels=sp.csr_matrix(dense)),
                  lambda: Graph.from_edges([(0, 1), (1, 2)], labels=dense),
                  lambda: Graph.from_edges([(0, 1), (1, 2)], labels=sp.csr_matrix(dense)),
                  lambda: Graph.from_scipy(adj, labels=dense)):
        with pytest.raises(ValueError, match=match):
            build()


def test_neighbors_of_a_non_node_is_a_key_error_naming_it():
    """Item 16: neighbors(-1) returned [] and neighbors(99) raised a bare IndexError."""
    g = Graph.from_edges([("a", "b"), ("b", "c")])
    assert g.neighbors(1).tolist() == [0, 2] and g.neighbors(np.int64(0)).tolist() == [1]
    for bad in (-1, 3, 99):
        with pytest.raises(KeyError, match=rf"neighbors: node index {bad} is not a node of this graph \(indices run "
                                           r"over \[0, 3\)\); use graph.index_of\(node_id\)"):
            g.neighbors(bad)
    with pytest.raises(TypeError, match=r"neighbors takes a node index, an int in \[0, 3\), got str 'a'"):
        g.neighbors("a")


def test_directed_networkx_graph_stays_directed_unless_asked_to_symmetrise():
    """Issue 27 item 3: a DiGraph means directed (it used to be symmetrised with a warning)."""
    dg = nx.DiGraph()
    dg.add_weighted_edges_from([(0, 1, 2.0), (1, 0, 3.0), (1, 2, 1.0), (2, 3, 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = Graph.from_networkx(dg, weight="weight")
        same = Graph.from_networkx(dg, weight="weight", directed=False)
        Graph.from_networkx(nx.path_graph(3))  # undirected input: no warning
    assert g.kind == "directed" and g.n_edges == 4
    assert g.edges().tolist() == [[0, 1], [1, 0], [1, 2], [2, 3]] and g.edge_weights().tolist() == [2.0, 3.0, 1.0, 1.0]
    assert_same_graph(g, Graph.from_networkx(dg, weight="weight", directed=True))
    assert same.kind == "undirected" and same.edges().tolist() == [[0, 1], [1, 2], [2, 3]]
    assert same.edge_weights().tolist() == [3.0, 1.0, 1.0]  # reciprocal arcs: the larger weight
    with pytest.raises(ValueError, match="directed=True needs a networkx DiGraph"):
        Graph.from_networkx(nx.path_graph(3), directed=True)


def test_multidigraph_is_directed_and_merges_parallel_arcs_by_the_one_rule():
    mg = nx.MultiDiGraph()
    mg.add_weighted_edges_from([("a", "b", 1.0), ("a", "b", 2.5), ("b", "a", 1.0)])
    g = Graph.from_networkx(mg)
    assert g.kind == "directed" and g.edges().tolist() == [[0, 1], [1, 0]]
    assert g.edge_weights().tolist() == [2.5, 1.0]          # the largest, as every entry point merges a repeat
    assert Graph.from_networkx(mg, duplicates="sum").edge_weights().tolist() == [3.5, 1.0]
    assert Graph.from_networkx(mg, duplicates="last").edge_weights().tolist() == [2.5, 1.0]
    with pytest.raises(ValueError, match=r"duplicates must be one of 'max', 'sum', 'last', 'error' .*got 'mean'"):
        Graph.from_networkx(mg, duplicates="mean")
    assert Graph.from_networkx(mg, directed=False).kind == "undirected"


def test_asymmetric_adjacency_is_symmetrised_with_a_warning():
    a = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [0, 1, 0]], dtype=float))
    with pytest.warns(GraphWarning, match=r"the adjacency matrix is not symmetric \(2 entries differ from their "
                                          r"transpose\): it is symmetrised into an undirected graph.*pass "
                                          r"directed=False to Graph.from_scipy"):
        g = Graph.from_scipy(a)
    assert g.edges().tolist() == [[0, 1], [1, 2]] and not g.is_directed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same_graph(g, Graph.from_scipy(a, directed=False))
        Graph.from_scipy(a + a.T)  # symmetric: no warning
        assert Graph.from_scipy(a, directed=True).n_edges == 3


def test_complex_adjacency_and_stray_label_names_are_refused():
    """Item 16: a complex adjacency lost its imaginary part, label_names without labels was ignored."""
    c = sp.csr_matrix(np.array([[0, 1 + 1j], [1 + 1j, 0]]))
    with pytest.raises(TypeError, match=r"adjacency must hold real numbers \(bool, int or float\), "
                                        r"got dtype complex128"):
        Graph(c)
    with pytest.raises(TypeError, match=r"matrix must hold real numbers .*got dtype complex128"):
        Graph.from_scipy(c)
    with pytest.raises(TypeError, match=r"matrix must hold real numbers .*got dtype <U1"):
        Graph.from_scipy(np.array([["0", "1"], ["1", "0"]]))
    with pytest.raises(ValueError, match="label_names given without labels"):
        Graph.from_edges([(0, 1)], label_names=["x"])
    with pytest.raises(ValueError, match="label_names given without labels"):
        Graph.from_scipy(sp.csr_matrix(np.array([[0, 1], [1, 0]])), label_names=["x"])


def test_node_ids_array_of_the_caller_stays_writable():
    ids = np.array([10, 20], dtype=np.int64)
    g = Graph(Graph.from_edges([(0, 1)]).to_scipy(), node_ids=ids)
    assert ids.flags.writeable and not g.node_ids.flags.writeable


def test_the_callers_adjacency_is_neither_changed_nor_frozen():
    adj = Graph.from_edges([(0, 1), (1, 2)]).to_scipy()
    Graph(adj)
    assert adj.indptr.flags.writeable and adj.indices.flags.writeable and adj.data.flags.writeable
    Graph(adj)  # used to fail: "WRITEBACKIFCOPY base is read-only" (the first graph had frozen indptr)
