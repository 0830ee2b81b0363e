"""pandas edge lists (issue 27 item 2): Graph.from_pandas, and a DataFrame wherever an edge list is accepted."""
import numpy as np
import pytest

import lgekit
from lgekit import Graph, datasets

pd = pytest.importorskip("pandas", reason="pandas is optional (the test extra installs it)")


def same_graph(a, b):
    assert a.kind == b.kind and a.node_ids.tolist() == b.node_ids.tolist()
    assert a.edges().tolist() == b.edges().tolist() and a.edge_weights().tolist() == b.edge_weights().tolist()
    assert a.is_weighted == b.is_weighted


@pytest.mark.parametrize("frame", [
    {"source": [1, 2, 3], "target": [2, 3, 1]},
    {"source": ["ann", "bob", "cid"], "target": ["bob", "cid", "ann"]},
    {"source": [2**70, 5, 7], "target": [5, 7, 2**70]},
    {"source": [1, "a", 1], "target": ["a", 2, 2]},
])
def test_from_pandas_reads_like_from_edges(frame):
    df = pd.DataFrame(frame)
    pairs = list(zip(frame["source"], frame["target"]))
    for directed in (False, True):
        same_graph(Graph.from_pandas(df, directed=directed), Graph.from_edges(pairs, directed=directed))
    same_graph(Graph.from_pandas(df, bipartite=True), Graph.from_edges(pairs, bipartite=True))
    same_graph(Graph.from_edges(df), Graph.from_edges(pairs))  # a DataFrame is an edge list too


def test_from_pandas_names_its_columns_like_networkx():
    df = pd.DataFrame({"w": [2.0, 0.5], "u": ["x", "y"], "v": ["y", "z"], "note": ["a", "b"]})
    g = Graph.from_pandas(df, source="u", target="v", weight="w", name="uv")
    assert g.name == "uv" and g.node_ids.tolist() == ["x", "y", "z"]
    assert g.edges().tolist() == [[0, 1], [1, 2]] and g.edge_weights().tolist() == [2.0, 0.5]
    assert not Graph.from_pandas(df, source="u", target="v").is_weighted
    # string dtype (pandas' own), categorical and numeric-as-float columns
    typed = pd.DataFrame({"source": pd.array(["x", "y"], dtype="string"),
                          "target": pd.Categorical(["y", "z"])})
    assert Graph.from_pandas(typed).node_ids.tolist() == ["x", "y", "z"]
    floats = pd.DataFrame({"source": [1.0, 2.0], "target": [2.0, 3.0]})
    assert Graph.from_pandas(floats).node_ids.tolist() == [1, 2, 3]


def test_a_dataframe_as_an_edge_list_takes_two_or_three_columns_by_position():
    df = pd.DataFrame({"a": [0, 1], "b": [1, 2], "weight": [3.0, 4.0]})
    g = Graph.from_edges(df)
    assert g.is_weighted and g.edge_weights().tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match=r"edges is a DataFrame with 4 columns \['a', 'b', 'weight', 'c'\]; an edge "
                                         r"list has 2 \(source, target\) or 3 .*Graph.from_pandas\(df, source=\.\.\."):
        Graph.from_edges(df.assign(c=1))


@pytest.mark.parametrize("kwargs, missing", [
    (dict(), "source='source', target='target'"),
    (dict(source="u"), "target='target'"),
    (dict(source="u", target="v", weight="weight"), "weight='weight'"),
    (dict(source="U", target="v"), "source='U'"),
])
def test_wrong_columns_are_named(kwargs, missing):
    df = pd.DataFrame({"u": [1], "v": [2], "w": [1.0]})
    with pytest.raises(ValueError, match=rf"df has no column for {missing}; its columns are \['u', 'v', 'w'\]"):
        Graph.from_pandas(df, **kwargs)


def test_missing_ids_and_bad_weights_are_refused_with_where():
    df = pd.DataFrame({"source": ["a", None, "c"], "target": ["b", "c", "a"]}, index=[10, 11, 12])
    with pytest.raises(ValueError, match=r"column 'source' \(source\) has missing node ids \(NaN/None/NA\) at "
                                         r"row\(s\) \[11\]"):
        Graph.from_pandas(df)
    nan_ids = pd.DataFrame({"source": [1.0, np.nan], "target": [2.0, 3.0]})
    with pytest.raises(ValueError, match=r"missing node ids .* at row\(s\) \[1\]"):
        Graph.from_pandas(nan_ids)
    weights = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "w": [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"edge 1 \('b', 'c'\) has weight nan"):
        Graph.from_pandas(weights, weight="w")
    nullable = weights.assign(w=pd.array([1.0, None], dtype="Float64"))
    with pytest.raises(ValueError, match=r"edge 1 \('b', 'c'\) has weight"):
        Graph.from_pandas(nullable, weight="w")
    with pytest.raises(TypeError, match="df must be a pandas DataFrame, got list"):
        Graph.from_pandas([("a", "b")])


def test_load_takes_a_dataframe():
    df = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"]})
    g = datasets.load(df, directed=True)
    same_graph(g, Graph.from_pandas(df, directed=True))
    with pytest.raises(TypeError, match="header, id_type, delimiter, format, data_home and download apply to files"):
        datasets.load(df, header=True)


def test_fit_takes_a_dataframe_edge_list_as_from_pandas_reads_it():
    # the estimators accept an edge-list DataFrame like every other edge list, a "weight" column included
    df = pd.DataFrame({"source": ["a", "b", "c", "a", "d"], "target": ["b", "c", "d", "c", "e"],
                       "weight": [1.0, 2.0, 1.0, 3.0, 1.0]})
    direct = lgekit.LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(df)
    via_graph = lgekit.LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(
        lgekit.Graph.from_pandas(df, weight="weight"))
    np.testing.assert_array_equal(direct.embedding_, via_graph.embedding_)
    assert list(direct.node_ids_) == ["a", "b", "c", "d", "e"]
    with pytest.raises(ValueError, match="source"):
        lgekit.LogisticEmbedding(dim=4, epochs=1).fit(df.rename(columns={"source": "from"}))
