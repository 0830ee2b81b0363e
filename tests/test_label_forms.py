"""Every graph form means the same everywhere (issue 43, items 1, 2 and 6): one reading of labels
(``datasets.as_labels``), a networkx graph never read as an array, the adjacency-or-edge-list rule of
``as_graph``, and ``link_ranking(graph=)`` taking each form.  Each test shows the wrong reading it rejects."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import lgekit
from lgekit import Graph, LogisticEmbedding
from lgekit.callbacks import NodeClassificationCallback
from lgekit.datasets import LABEL_ATTRIBUTES, as_graph, as_labels, planted_partition_graph
from lgekit.metrics import link_ranking, node_classification_f1, node_classification_split
from lgekit.plotting import colour_labels, plot_embedding


@pytest.fixture(scope="module")
def labelled():
    """A labelled graph, its networkx copy and an embedding that knows the labels."""
    g = planted_partition_graph(n_nodes=120, n_labels=3, mean_degree=8, mixing=0.1, seed=0)
    model = LogisticEmbedding(dim=8, epochs=10, random_state=0).fit(g)
    return g, g.to_networkx(), model


# ---------------------------------------------------------------------- labels
def test_a_networkx_graph_as_labels_is_its_label_attribute_not_an_array_of_node_ids(labelled):
    g, nx_graph, model = labelled
    expected = node_classification_f1(model.embedding_, g.labels)
    assert node_classification_f1(model.embedding_, nx_graph) == expected
    assert node_classification_f1(model, nx_graph) == expected            # a fitted model is an embedding too
    # the wrong reading (today's before issue 43): the graph as a 1-D array of node ids, one class per node
    wrong = node_classification_f1(model.embedding_, np.asarray(list(nx_graph)))
    assert wrong["micro_f1"] < expected["micro_f1"] - 0.3
    split = node_classification_split(nx_graph)
    assert np.array_equal(split.y, node_classification_split(g).y)


def test_labels_attributes_are_read_in_the_graph_node_order():
    # nodes inserted in another order than sorted: the rows follow as_graph's node order, as the embedding's do
    nx_graph = nx.Graph()
    nx_graph.add_nodes_from([(5, {"club": "b"}), (1, {"club": "a"}), (3, {})])
    nx_graph.add_edges_from([(5, 1), (1, 3)])
    labels = as_labels(nx_graph)
    assert as_graph(nx_graph).node_ids.tolist() == [5, 1, 3]
    assert labels.names.tolist() == ["a", "b"]
    assert labels.matrix.toarray().tolist() == [[0, 1], [1, 0], [0, 0]]   # node 3 has none: unlabelled


def test_the_karate_club_is_coloured_by_its_club():
    karate = nx.karate_club_graph()
    x = np.random.default_rng(0).normal(size=(34, 4))
    legend = [t.get_text() for t in plot_embedding(x, karate).axes[0].get_legend().get_texts()]
    assert sorted(legend) == ["Mr. Hi (17)", "Officer (17)"]
    classes, _ = colour_labels(karate, 34)
    assert set(classes.tolist()) == {0, 1}          # the wrong reading: 34 classes, one per node


def test_label_attribute_order_and_the_named_attribute():
    g = nx.path_graph(4)
    nx.set_node_attributes(g, {0: "x", 1: "y", 2: "x", 3: "y"}, "community")
    nx.set_node_attributes(g, {0: 1, 1: 1, 2: 2, 3: 2}, "group")
    assert LABEL_ATTRIBUTES.index("group") < LABEL_ATTRIBUTES.index("community")
    assert as_labels(g).names.tolist() == [1, 2]                            # "group" comes first
    assert as_labels(g, label_attribute="community").names.tolist() == ["x", "y"]
    with pytest.raises(ValueError, match=r"no node of the networkx graph has the label attribute 'colour'"):
        as_labels(g, label_attribute="colour")
    with pytest.raises(ValueError, match=r"none of the label attributes .*; name the attribute with label_attribute"):
        as_labels(nx.path_graph(3))
    with pytest.raises(TypeError, match="label_attribute applies to a networkx graph"):
        as_labels(np.zeros(3, dtype=int), label_attribute="club")


def test_every_other_form_is_read_once_and_bad_forms_are_refused(labelled):
    g, _, _ = labelled
    matrix = g.labels
    for form in (g, matrix, matrix.toarray(), lgekit.split_edges(g, seed=0)):
        assert (as_labels(form, g.n_nodes).matrix != matrix).nnz == 0
    assert as_labels(["a", None, "b"]).matrix.toarray().tolist() == [[1, 0], [0, 0], [0, 1]]
    for bad in ("blogcatalog", {0: "a"}, 3, None):
        with pytest.raises(TypeError, match=r"labels must be an lgekit.Graph \(or EdgeSplit\) with labels, a networkx"):
            as_labels(bad)
    with pytest.raises(ValueError, match=r"labels has 3 rows \(one per node\) but the embedding has 4 rows"):
        as_labels([0, 1, 1], 4)
    with pytest.raises(ValueError, match="must hold integer classes"):
        as_labels(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="has no node labels"):
        as_labels(Graph.from_edges([(0, 1)]))


def test_the_callback_reads_a_networkx_graph_as_its_labels(labelled):
    g, nx_graph, _ = labelled
    records = []
    for labels in (g, nx_graph):
        model = LogisticEmbedding(dim=4, epochs=2, random_state=0)
        model.fit(g, callbacks=[NodeClassificationCallback(labels, every=1)])
        records.append([(r["micro_f1"], r["macro_f1"]) for r in model.history_])
    assert records[0] == records[1]


def test_a_graph_is_never_read_as_an_embedding(labelled):
    g, nx_graph, _ = labelled
    for bad in (g, nx_graph):
        with pytest.raises(TypeError, match="embedding must be an .* array of numbers or a fitted model, got a graph"):
            node_classification_f1(bad, g)


# ---------------------------------------------------------------------- link_ranking(graph=)
def test_link_ranking_takes_a_networkx_graph_as_it_takes_a_graph(labelled):
    g, nx_graph, model = labelled
    split = lgekit.split_edges(g, seed=0)
    kwargs = dict(candidates=20, seed=0)
    expected = link_ranking(model.embedding_, split.test_positives, graph=g, **kwargs)
    assert link_ranking(model.embedding_, split.test_positives, graph=nx_graph, **kwargs) == expected
    assert link_ranking(model.embedding_, split.test_positives, graph=nx_graph, candidates="all") == \
        link_ranking(model.embedding_, split.test_positives, graph=g, candidates="all")
    # the wrong version, no graph: known edges count as negatives, a different (unfiltered) ranking
    assert link_ranking(model.embedding_, split.test_positives, **kwargs) != expected


# ---------------------------------------------------------------------- adjacency or edge list
def test_a_small_dense_adjacency_matrix_is_an_adjacency_matrix():
    triangle = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    assert sorted(map(tuple, as_graph(triangle).edges().tolist())) == [(0, 1), (0, 2), (1, 2)]
    pair = as_graph(np.array([[0, 1], [1, 0]]))
    assert (pair.n_nodes, pair.n_edges) == (2, 1)
    weighted = as_graph(np.array([[0, 2.5, 0], [2.5, 0, 1], [0, 1, 0]]))
    assert weighted.is_weighted and sorted(weighted.edge_weights().tolist()) == [1.0, 2.5]
    karate = nx.karate_club_graph()
    dense = nx.to_numpy_array(karate, weight=None)
    assert (as_graph(dense).to_scipy() != Graph.from_networkx(karate, weight=None).to_scipy()).nnz == 0


def test_an_edge_list_stays_an_edge_list_and_an_ambiguous_array_is_refused():
    edges = np.array([[0, 1, 2.0], [1, 2, 0.5], [0, 2, 1.0]])          # 3 x 3 with a non-zero diagonal
    g = as_graph(edges)
    assert g.is_weighted and g.n_edges == 3 and sorted(g.edge_weights().tolist()) == [0.5, 1.0, 2.0]
    assert as_graph([[0, 2], [3, 0]]).n_nodes == 3                   # a list is always an edge list
    with pytest.raises(ValueError, match=r"ambiguous: the 2 x 2 array \[\[0, 2\], \[3, 0\]\] reads as an adjacency "
                                         r"matrix .* and as an edge list \(edges \(0, 2\) and \(3, 0\)\)"):
        as_graph(np.array([[0, 2], [3, 0]]))
    with pytest.raises(ValueError, match=r"shape \(4, 5\); an edge list array has shape"):
        as_graph(np.zeros((4, 5)))


@given(st.integers(3, 12).flatmap(lambda n: st.lists(st.booleans(), min_size=n * (n - 1) // 2,
                                                     max_size=n * (n - 1) // 2).map(lambda bits: (n, bits))))
def test_any_symmetric_zero_diagonal_matrix_reads_as_itself(case):
    n, bits = case
    a = np.zeros((n, n), dtype=np.int8)
    a[np.triu_indices(n, 1)] = bits
    a = a + a.T
    assert np.array_equal(as_graph(a).to_scipy().toarray() != 0, a != 0)
