"""Every entry point takes every form of a graph, through one reading (issue 35 item 4), merges a repeated pair by
one rule (issue 33 item 6), and Graph.from_pandas says where it differs from networkx (issue 35 item 5).

The client libraries are the real ones: pandas, networkx and scipy build the inputs.
"""
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lgekit
from lgekit import Graph, GraphWarning, datasets, split_edges
from lgekit.datasets import as_graph
from lgekit.evaluation import sample_negative_pairs
from lgekit.metrics import direction_average_precision
from lgekit.models.spectral import spectral_embedding
from lgekit.models.transductive import NodeEmbedding

pd = pytest.importorskip("pandas", reason="pandas is optional (the test extra installs it)")

# an undirected weighted edge set given with both directions of a pair, an exact duplicate line, and nodes 0..5
LINES = [(0, 1, 3.0), (1, 0, 3.0), (1, 2, 2.0), (1, 2, 2.0), (2, 3, 0.5), (3, 4, 1.5), (4, 5, 4.0), (5, 0, 1.0)]
EXPECTED = {(0, 1): 3.0, (1, 2): 2.0, (2, 3): 0.5, (3, 4): 1.5, (4, 5): 4.0, (0, 5): 1.0}


def same_graph(a, b):
    assert a.kind == b.kind and a.is_weighted == b.is_weighted
    assert a.node_ids.tolist() == b.node_ids.tolist()
    assert a.edges().tolist() == b.edges().tolist()
    assert a.edge_weights().tolist() == b.edge_weights().tolist()


def edge_file(tmp_path, lines=LINES, name="g.txt"):
    path = tmp_path / name
    path.write_text("".join(f"{u} {v} {w!r}\n" for u, v, w in lines))
    return path


def forms(tmp_path, lines=LINES):
    """The same edge set in every form the README lists, by the client libraries that make each."""
    arr = np.array(lines)
    named = pd.DataFrame(lines, columns=["source", "target", "weight"])
    nx_graph = nx.Graph()
    nx_graph.add_nodes_from(range(6))
    nx_graph.add_weighted_edges_from(lines)
    n = 6
    u, v, w = arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2]
    # a symmetric matrix holds each edge at (i, j) and (j, i): what scipy.sparse and networkx.to_scipy_sparse_array give
    matrix = sp.csr_matrix(nx.to_scipy_sparse_array(nx_graph, nodelist=range(n)))
    assert matrix.shape == (n, n) and len(u) == len(v) == len(w)
    return {
        "file path": edge_file(tmp_path, lines),
        "file path as str": str(edge_file(tmp_path, lines, "h.txt")),
        "ndarray (k, 3)": arr,
        "list of triples": [tuple(x) for x in lines],
        "DataFrame by name": named,
        "DataFrame by position": named.set_axis(["a", "b", "w"], axis=1),
        "networkx graph": nx_graph,
        "scipy sparse": matrix,
    }


def test_one_rule_for_a_pair_given_twice_at_every_entry_point(tmp_path):
    """33.6: `0 1 3` and `1 0 3` (and an exact duplicate line) give weight 3 whatever reads them, never 6."""
    reference = Graph.from_edges(np.array(LINES)[:, :2].astype(int), weights=np.array(LINES)[:, 2])
    assert {tuple(e): w for e, w in zip(reference.edges().tolist(), reference.edge_weights())} == EXPECTED
    built = {name: as_graph(x) for name, x in forms(tmp_path).items()}
    built["datasets.load"] = datasets.load(edge_file(tmp_path))
    built["Graph.from_pandas"] = Graph.from_pandas(pd.DataFrame(LINES, columns=["source", "target", "weight"]),
                                                   weight="weight")
    built["Graph.from_networkx"] = Graph.from_networkx(forms(tmp_path)["networkx graph"])
    built["Graph.from_scipy"] = Graph.from_scipy(forms(tmp_path)["scipy sparse"])
    reciprocal = nx.DiGraph()
    reciprocal.add_nodes_from(range(6))
    reciprocal.add_weighted_edges_from(LINES)
    built["networkx DiGraph read undirected"] = Graph.from_networkx(reciprocal, directed=False)
    for name, g in built.items():
        same_graph(g, reference)
    # the rule the entry points used to disagree on, shown to make a difference: summing gives 6
    summed = Graph.from_edges(np.array(LINES)[:, :2].astype(int), weights=np.array(LINES)[:, 2], duplicates="sum")
    assert summed.edge_weights()[0] == 6.0 and reference.edge_weights()[0] == 3.0
    # the choice is offered where lines count interactions, the same at every constructor
    df = pd.DataFrame(LINES, columns=["source", "target", "weight"])
    same_graph(Graph.from_pandas(df, weight="weight", duplicates="sum"), summed)
    mg = nx.MultiGraph()
    mg.add_nodes_from(range(6))
    mg.add_weighted_edges_from(LINES)
    same_graph(Graph.from_networkx(mg), reference)
    same_graph(Graph.from_networkx(mg, duplicates="sum"), summed)


def test_fit_split_load_and_node_embedding_take_every_form(tmp_path):
    """35.4: every function that takes a graph takes every form, and reads it as the same Graph."""
    reference = as_graph(np.array(LINES))
    expected = lgekit.LogisticEmbedding(dim=3, epochs=2, random_state=0).fit(reference).embedding_
    expected_hinge = lgekit.HingeEmbedding(dim=3, random_state=0).partial_fit(reference).embedding_
    split_ref = split_edges(reference, test_fraction=0.2, seed=3)
    for name, x in forms(tmp_path).items():
        same_graph(datasets.load(x), reference)
        split = split_edges(x, test_fraction=0.2, seed=3)
        same_graph(split.graph, reference)
        np.testing.assert_array_equal(split.test_positives, split_ref.test_positives, err_msg=name)
        np.testing.assert_array_equal(sample_negative_pairs(x, 5, seed=1), sample_negative_pairs(reference, 5, seed=1))
        fitted = lgekit.LogisticEmbedding(dim=3, epochs=2, random_state=0).fit(x)
        np.testing.assert_array_equal(fitted.embedding_, expected, err_msg=name)
        partial = lgekit.HingeEmbedding(dim=3, random_state=0).partial_fit(x, epochs=1)
        np.testing.assert_array_equal(partial.embedding_, expected_hinge, err_msg=name)
        np.testing.assert_allclose(spectral_embedding(x, 2, seed=0), spectral_embedding(reference, 2, seed=0))
        node_emb = NodeEmbedding(lgekit.LogisticEmbedding(dim=3, epochs=2, random_state=0), graph=x).fit([0, 1])
        np.testing.assert_array_equal(node_emb.transform([0, 5]), expected[[0, 5]])
    # a split is a graph too: its whole graph for split_edges, its training part for fit
    same_graph(as_graph(split_ref), reference)
    same_graph(split_edges(split_ref, seed=3).graph, reference)


def test_directed_forms_reach_the_direction_metric():
    arcs = [(0, 1), (1, 2), (2, 0), (2, 3)]
    digraph = nx.DiGraph(arcs)
    for x in (digraph, pd.DataFrame(arcs, columns=["source", "target"])):
        g = as_graph(x, directed=None if isinstance(x, nx.DiGraph) else True)
        assert g.kind == "directed" and g.n_edges == 4
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    ap = direction_average_precision(x, np.array(arcs), context=y, graph=digraph)
    assert ap == direction_average_precision(x, np.array(arcs), context=y, graph=Graph.from_networkx(digraph))
    with pytest.raises(ValueError, match="graph must be a directed graph"):
        direction_average_precision(x, np.array(arcs), context=y, graph=nx.Graph(arcs))


def test_the_issue_examples_now_work(tmp_path):
    """fit(edge_array) and split_edges(nx_graph) were refused; fit(df) with a `w` column ignored the weights."""
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
    assert lgekit.LogisticEmbedding(dim=2, epochs=1, random_state=0).fit(edges).embedding_.shape == (4, 2)
    assert split_edges(nx.karate_club_graph(), seed=0).graph.n_nodes == 34
    df = pd.DataFrame({"source": [0, 1, 2], "target": [1, 2, 3], "w": [1.0, 2.0, 3.0]})
    for call in (lambda: lgekit.LogisticEmbedding(dim=2, epochs=1).fit(df), lambda: datasets.load(df),
                 lambda: split_edges(df), lambda: Graph.from_edges(df), lambda: NodeEmbedding(graph=df).fit()):
        with pytest.raises(ValueError, match=r"column\(s\) \['w'\] would be ignored: beside 'source' and 'target' "
                                             r"only a 'weight' column is read"):
            call()
    # the same columns by position read the weight, in every entry point
    positional = df.set_axis(["u", "v", "w"], axis=1)
    for g in (as_graph(positional), datasets.load(positional), Graph.from_edges(positional),
              split_edges(positional, test_fraction=0.0).graph):
        assert g.is_weighted and g.edge_weights().tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("columns, match", [
    (["source", "dst"], r"a 'source' column but no 'target' column \(its columns are \['source', 'dst'\]\)"),
    (["to", "target"], r"a 'target' column but no 'source' column"),
    (["source", "target", "weight", "note"], r"column\(s\) \['note'\] would be ignored"),
    (["weight", "u", "v"], r"column 'weight' is its column 1 of \['weight', 'u', 'v'\]; read by position"),
    (["a", "b", "c", "d"], r"X is a DataFrame with 4 columns \['a', 'b', 'c', 'd'\]; an edge list has 2"),
    (["a"], r"X is a DataFrame with 1 columns \['a'\]"),
])
def test_a_dataframe_column_the_rule_would_not_read_is_named(columns, match):
    df = pd.DataFrame([[1] * len(columns), [2] * len(columns)], columns=columns)
    df.iloc[:, :2] = [[1, 2], [2, 3]] if len(columns) > 1 else [[1], [2]]
    with pytest.raises(ValueError, match=match):
        as_graph(df, "X")


def test_forms_that_are_not_a_graph_are_refused_naming_the_forms():
    with pytest.raises(ValueError, match=r"X is an array of shape \(4,\); an edge list array has shape \(m, 2\)"):
        as_graph(np.arange(4), "X")
    with pytest.raises(ValueError, match=r"shape \(2, 4\).*an adjacency matrix shape \(n, n\) with a zero diagonal"):
        as_graph(np.zeros((2, 4)), "X")
    for bad in (None, 3, {"a": 1}, pd.Series([1, 2])):
        with pytest.raises(TypeError, match=r"X must be an lgekit.Graph, an EdgeSplit, a file path .* a pandas "
                                            r"DataFrame, a networkx graph or a scipy sparse adjacency matrix; got"):
            as_graph(bad, "X")
    g = Graph.from_edges([(0, 1)])
    with pytest.raises(TypeError, match="graph is a Graph, which has its kind and labels already; directed apply"):
        as_graph(g, directed=True)
    with pytest.raises(TypeError, match="bipartite applies to edge lists; graph is a matrix"):
        as_graph(sp.csr_matrix((2, 2)), bipartite=True)
    with pytest.raises(TypeError, match="labels apply to edge lists and matrices; graph is a networkx graph"):
        as_graph(nx.path_graph(2), labels=[0, 1])
    # the wrong-version check: a reader that ignored `directed` for an edge list would give an undirected graph
    assert as_graph([(0, 1)], directed=True).kind == "directed" != as_graph([(0, 1)]).kind


# ---------------------------------------------------------------------- 35.5: from_pandas beside networkx
def test_from_pandas_matches_networkx_with_last_and_says_where_it_differs():
    df = pd.DataFrame({"source": [1, "1", 2, 1, 3], "target": [2, 3, "x", 2, 1],
                       "weight": [1.0, 2.0, 3.0, 5.0, 0.5]})
    # networkx keeps the last row of a repeated pair (1, 2): weight 5; lgekit's default keeps the largest
    reference = nx.from_pandas_edgelist(df, edge_attr="weight")
    last = Graph.from_pandas(df, weight="weight", duplicates="last")
    ours = {frozenset((last.node_ids[u], last.node_ids[v])): w
            for (u, v), w in zip(last.edges().tolist(), last.edge_weights())}
    theirs = {frozenset((u, v)): d["weight"] for u, v, d in reference.edges(data=True)}
    assert ours == theirs
    # 1 and "1" are two nodes in both (ids of mixed types compare by type, as Python's do)
    assert sorted(map(repr, last.node_ids.tolist())) == sorted(map(repr, reference.nodes))
    assert {type(x) for x in last.node_ids.tolist()} == {int, str}
    first_wins = df.iloc[::-1]
    assert Graph.from_pandas(first_wins, weight="weight", duplicates="last").edge_weights().tolist() != \
        last.edge_weights().tolist()   # "last" is the order of the rows, not a maximum in disguise
    default = Graph.from_pandas(df.assign(weight=[5.0, 2.0, 3.0, 1.0, 0.5]), weight="weight")
    weights = dict(zip(map(tuple, default.edges().tolist()), default.edge_weights().tolist()))
    assert weights[(int(default.index_of(1)), int(default.index_of(2)))] == 5.0   # the largest, not the last (1.0)


def test_a_self_loop_warning_names_the_callers_line():
    df = pd.DataFrame({"source": [1, 2], "target": [1, 3]})
    assert nx.number_of_selfloops(nx.from_pandas_edgelist(df)) == 1     # networkx keeps it; a Graph has none
    for build in (lambda: Graph.from_pandas(df), lambda: as_graph(df), lambda: Graph.from_edges([(1, 1), (2, 3)]),
                  lambda: datasets.load(df)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = build()
        assert g.n_edges == 1
        [w] = [w for w in caught if issubclass(w.category, GraphWarning)]
        assert "dropped 1 self-loop(s)" in str(w.message)
        assert w.filename == __file__, w.filename   # this file's line, not lgekit/graph.py's


def test_a_matrix_is_read_as_scipy_means_it():
    """An entry stored twice in a COO matrix is their sum (matrix.toarray()); (i, j) and (j, i) then follow the rule."""
    m = sp.coo_matrix((np.array([1.0, 2.0, 3.0, 3.0]), (np.array([0, 0, 0, 1]), np.array([1, 1, 2, 0]))), shape=(3, 3))
    dense = m.toarray()
    directed = Graph.from_scipy(m, directed=True)
    assert directed.to_scipy().toarray().tolist() == dense.tolist()
    assert Graph.from_scipy(m, directed=False).edge_weights().tolist() == [3.0, 3.0]   # max(1 + 2, 3), and 3
    same_graph(Graph.from_scipy(m, directed=True), Graph.from_scipy(dense, directed=True))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from([0.5, 1.0, 2.0, 3.0])),
                min_size=1, max_size=25).filter(lambda rows: any(u != v for u, v, _ in rows)))
def test_every_reader_applies_the_one_rule(tmp_path_factory, rows):
    """Random lines, reversed pairs and repeats included: the file reader, an array, a DataFrame and a networkx
    DiGraph read undirected all give the Graph whose edge weighs its largest weight."""
    rows = [(u, v, w) for u, v, w in rows if u != v]     # self-loops: dropped everywhere (with a warning)
    expected = {}
    for u, v, w in rows:
        key = (min(u, v), max(u, v))
        expected[key] = max(expected.get(key, 0.0), w)
    path = tmp_path_factory.mktemp("rule") / "g.txt"
    path.write_text("".join(f"{u} {v} {w!r}\n" for u, v, w in rows))
    graphs = [datasets.load(path), as_graph(np.array(rows)), as_graph(pd.DataFrame(rows)),
              as_graph([(u, v, w) for u, v, w in rows])]
    nodes = sorted({x for u, v, _ in rows for x in (u, v)})
    digraph = nx.DiGraph()
    digraph.add_nodes_from(nodes)       # networkx numbers nodes in the order they come
    for u, v, w in rows:     # a DiGraph holds one arc per direction: the larger weight of each, as the rule would
        if not digraph.has_edge(u, v) or digraph[u][v]["weight"] < w:
            digraph.add_edge(u, v, weight=w)
    graphs.append(Graph.from_networkx(digraph, directed=False))
    for g in graphs:
        assert g.node_ids.tolist() == nodes
        got = {(int(g.node_ids[a]), int(g.node_ids[b])): w for (a, b), w in zip(g.edges().tolist(), g.edge_weights())}
        assert got == expected
