"""LinkPredictionCallback(direction=True): the direction task recorded beside link prediction (issue 24)."""
import networkx as nx
import numpy as np
import pytest

import lgekit
from lgekit.callbacks import LinkPredictionCallback
from lgekit.metrics import direction_average_precision


@pytest.fixture(scope="module")
def one_way_split():
    # a growing network: every arc points from a newer node to an older one, none is reciprocated
    graph = lgekit.Graph.from_networkx(nx.gnc_graph(300, seed=0))
    assert graph.kind == "directed"
    return lgekit.split_edges(graph, test_fraction=0.2, seed=0)


def test_direction_ap_is_recorded_every_epoch_and_equals_the_metric(one_way_split):
    split = one_way_split
    cb = LinkPredictionCallback(split, train=False, direction=True)
    model = lgekit.LogisticEmbedding(dim=8, epochs=3, lam_r=0.1, random_state=0).fit(split, callbacks=[cb])
    assert [("test_ap" in r, "test_direction_ap" in r) for r in model.history_] == [(True, True)] * 3
    expected = direction_average_precision(model.embedding_, split.test_positives,
                                           context=model.context_embedding_, graph=split.graph)
    assert model.history_[-1]["test_direction_ap"] == pytest.approx(expected, abs=1e-12)
    assert 0.0 <= expected <= 1.0


def test_the_held_out_name_carries_over(one_way_split):
    cb = LinkPredictionCallback(one_way_split, train=False, direction=True, heldout_name="val")
    model = lgekit.LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(one_way_split, callbacks=[cb])
    assert "val_direction_ap" in model.history_[0] and "test_direction_ap" not in model.history_[0]


def test_direction_is_refused_on_an_undirected_split():
    graph = lgekit.Graph.from_networkx(nx.karate_club_graph())
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    with pytest.raises(ValueError, match="direction=True needs a directed split"):
        LinkPredictionCallback(split, direction=True)
    with pytest.raises((TypeError, ValueError), match="direction"):
        LinkPredictionCallback(split, direction="yes")


def test_direction_is_refused_when_every_held_out_arc_is_reciprocated():
    arcs = [(u, v) for u in range(12) for v in range(12) if u != v and abs(u - v) <= 2]
    graph = lgekit.Graph.from_edges(np.array(arcs), directed=True)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    with pytest.raises(ValueError, match="no arc has a direction to tell"):
        LinkPredictionCallback(split, direction=True)


def test_the_split_holds_the_direction_task_beside_its_uniform_negatives(one_way_split):
    split = one_way_split
    arcs, reverses = split.direction_pairs()
    # every held-out arc of a growing network is one-way: all of them, in order, and turned round
    np.testing.assert_array_equal(arcs, split.test_positives)
    np.testing.assert_array_equal(reverses, split.test_positives[:, ::-1])
    assert not split.graph.has_edges(reverses).any()
    # the link-prediction negatives stay the uniform ones
    assert len(split.test_negatives) == 4 * len(split.test_positives)


def test_direction_pairs_leave_out_reciprocated_arcs_and_refuse_an_undirected_split():
    arcs = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 4), (4, 0), (2, 4), (4, 2), (0, 3)]
    graph = lgekit.Graph.from_edges(np.array(arcs), directed=True)
    split = lgekit.split_edges(graph, test_fraction=0.5, seed=1)
    kept, rev = split.direction_pairs()
    reciprocated = {(0, 1), (1, 0), (2, 4), (4, 2)}
    held = {tuple(p) for p in split.test_positives.tolist()}
    assert {tuple(p) for p in kept.tolist()} == held - reciprocated
    undirected = lgekit.split_edges(lgekit.Graph.from_networkx(nx.karate_club_graph()), test_fraction=0.2, seed=0)
    with pytest.raises(ValueError, match="directed"):
        undirected.direction_pairs()
