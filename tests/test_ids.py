"""Node ids are kept exactly (lgekit.ids), whatever the entry point: NUL characters, mixed types, big ints."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from lgekit import Graph
from lgekit.ids import as_id_array, concat_ids, index_in, node_id_query, sorted_ids

NUL_IDS = [("a\x00", "a"), ("a", "a\x00\x00"), ("x\x00y\x00", "x\x00y"), ("\x00", "")]


@pytest.mark.parametrize("nul, plain", NUL_IDS)
def test_trailing_nul_ids_stay_distinct_in_from_edges(nul, plain):
    """Issue 26 item 9: a <U array drops trailing NULs, which merged "a\\x00" with "a" and moved edges."""
    g = Graph.from_edges([(nul, "b"), (plain, "c")])
    assert g.n_nodes == 4
    assert sorted(g.node_ids.tolist()) == sorted([nul, plain, "b", "c"])
    i, j = g.index_of(nul), g.index_of(plain)
    assert i != j and g.node_ids[i] == nul and g.node_ids[j] == plain
    assert g.neighbors(i).tolist() == [g.index_of("b")]
    assert g.neighbors(j).tolist() == [g.index_of("c")]
    # the ids are sorted by code point, as text ids always are
    assert g.node_ids.tolist() == sorted(g.node_ids.tolist())


@pytest.mark.parametrize("nul, plain", NUL_IDS)
def test_trailing_nul_ids_in_node_lists_ids_and_lookups(nul, plain):
    g = Graph.from_edges([(nul, plain)], nodes=[plain, nul, "z"])
    assert g.node_ids.tolist() == [plain, nul, "z"] and g.n_edges == 1
    h = Graph(sp.csr_matrix((3, 3)), node_ids=[nul, plain, "q"])  # not "node_ids must be unique"
    assert h.index_of([plain, nul]).tolist() == [1, 0]
    with pytest.raises(KeyError, match="unknown node id"):
        Graph.from_edges([("p", "q")]).index_of("p\x00")
    b = Graph.from_edges([(nul, "r"), (plain, "r")], bipartite=True)
    assert b.n_left == 2 and b.left_ids.tolist() == sorted([nul, plain])
    assert b.index_of(nul, side="left") != b.index_of(plain, side="left")


def test_trailing_nul_ids_from_networkx_and_in_labels():
    h = nx.Graph([("x\x00", "y"), ("x", "y")])
    g = Graph.from_networkx(h)
    assert g.node_ids.tolist() == ["x\x00", "y", "x"] and g.n_edges == 2
    lab = Graph.from_edges([("a", "b")], labels={"a": "c\x00", "b": "c"})
    assert lab.n_labels == 2 and sorted(lab.label_names.tolist()) == ["c", "c\x00"]
    assert lab.labels.toarray().sum() == 2


def test_id_arrays_keep_every_id_exactly():
    assert as_id_array([1, "1"], "ids").tolist() == [1, "1"]
    assert as_id_array([(1, 2), (3,)], "ids").tolist() == [(1, 2), (3,)]
    assert as_id_array([2**64, 5], "ids").tolist() == [2**64, 5]
    assert as_id_array(np.array([3.0, 4.0]), "ids").dtype == np.int64
    with pytest.raises(ValueError, match="float node ids must be whole numbers"):
        as_id_array([1.5], "ids")
    with pytest.raises(TypeError, match="got booleans"):
        as_id_array([True, False], "ids")
    assert node_id_query(["a\x00"]).dtype == object and node_id_query(["a"]).dtype.kind == "U"


def test_concat_ids_never_casts_between_types():
    assert concat_ids(np.array([1, 2]), np.array([3])).dtype == np.int64
    assert concat_ids(np.array(["a"]), np.array(["bcd"])).tolist() == ["a", "bcd"]
    mixed = concat_ids(np.array([1]), np.array(["1"]))
    assert mixed.dtype == object and mixed.tolist() == [1, "1"]
    tuples = np.empty(1, dtype=object)
    tuples[0] = (1, 2)
    out = concat_ids(tuples, np.array([7]))
    assert out.shape == (2,) and out.tolist() == [(1, 2), 7]  # a tuple id stays one id


def test_sorted_ids_and_index_in():
    ids, idx = sorted_ids(np.array([[5, 3], [3, 9]]))
    assert ids.tolist() == [3, 5, 9] and idx.tolist() == [[1, 0], [0, 2]]
    words = as_id_array(["b", "a\x00", "a"], "ids")
    ids, idx = sorted_ids(words)
    assert ids.tolist() == ["a", "a\x00", "b"] and idx.tolist() == [2, 1, 0]
    mixed, idx = sorted_ids(as_id_array([2, "a", 2], "ids"))
    assert mixed.tolist() == [2, "a"] and idx.tolist() == [0, 1, 0]  # no common order: first seen
    known = np.array([10, 11, 12, 13])
    assert index_in(known, np.arange(4), np.array([12, 9, 13])).tolist() == [2, -1, 3]
    gaps = np.array([30, 10, 20])
    assert index_in(gaps, np.argsort(gaps), np.array([20, 25])).tolist() == [2, -1]


# ---------------------------------------------------------------------- issue 26 item 12: networkx weights
@pytest.mark.parametrize("value, shown", [(None, r"missing \(None\)"), (10**400, r"1000000000000000000\d*"),
                                          ("heavy", "'heavy'"), (float("nan"), "nan"), (0, "0"), (-2.5, "-2.5"),
                                          (True, "True")],
                         ids=["None", "10**400", "text", "nan", "zero", "negative", "bool"])
def test_networkx_weight_errors_name_the_edge_by_its_node_ids(value, shown):
    h = nx.Graph()
    h.add_edge("ann", "bob", weight=1.0)
    h.add_edge("bob", "cid", weight=value)
    with pytest.raises(ValueError, match=rf"weights must be finite positive numbers \(float or int, at most "
                                         rf"1.8e308\); edge \('bob', 'cid'\) has weight={shown}"):
        Graph.from_networkx(h)
    d = nx.DiGraph()
    d.add_edge(7, 3, w=value)
    with pytest.raises(ValueError, match=rf"edge \(7, 3\) has w={shown}"):
        Graph.from_networkx(d, weight="w")


@pytest.mark.parametrize("value, shown", [(None, r"missing \(None\)"), (10**400, r"1000\d*"), ("x", "'x'")],
                         ids=["None", "10**400", "text"])
def test_from_edges_weight_errors_name_the_value(value, shown):
    with pytest.raises(ValueError, match=rf"edge 1 \('b', 'c'\) has weight {shown}"):
        Graph.from_edges([("a", "b", 1.0), ("b", "c", value)])
    with pytest.raises(ValueError, match=rf"edge 0 \(0, 1\) has weight {shown}"):
        Graph.from_edges([(0, 1)], weights=[value])


def test_networkx_big_but_finite_weights_are_kept():
    h = nx.Graph()
    h.add_edge(0, 1, weight=10**300)
    h.add_edge(1, 2, weight=np.float32(0.5))
    assert Graph.from_networkx(h).edge_weights().tolist() == [1e300, 0.5]
