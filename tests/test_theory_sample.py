"""Tests of lgekit.theory.sample: Theorem 1's labelled sample of an EdgeSplit and the matrix it lays out.

The sample module is the one place a split becomes :math:`E_\\pm` (pairs and
labels) and a graph's edges become (row, column) entries of
:math:`A_\\sigma`; these tests pin both down by hand on tiny graphs and by
Hypothesis on random bipartite ones, and check that the module's two readers
(the pattern of :func:`oriented_training_pairs` and the margins of
:func:`generalization_gap`) see exactly that sample.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lgekit
from lgekit.evaluation import EdgeSplit, split_edges
from lgekit.theory import (
    PairPattern,
    generalization_gap,
    oriented_training_pairs,
    theorem1_pairs,
    theorem1_pattern,
    theorem1_sample,
    theorem1_sides,
)


def _hand_split():
    g = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    arrays = [np.array(a, dtype=np.int64).reshape(-1, 2) for a in
              ([[0, 1], [1, 2], [2, 3]], [[1, 3], [0, 3], [1, 0], [2, 0]], [[0, 2]], [[3, 1], [2, 1]])]
    return EdgeSplit(g, g, *arrays)


def test_sample_is_positives_then_negatives_with_their_labels():
    split = _hand_split()
    pairs, labels = theorem1_sample(split)
    np.testing.assert_array_equal(pairs, [[0, 1], [1, 2], [2, 3], [1, 3], [0, 3], [1, 0], [2, 0]])
    assert labels.dtype == np.int8 and labels.tolist() == [1, 1, 1, -1, -1, -1, -1]
    pairs, labels = theorem1_sample(split, "test")
    np.testing.assert_array_equal(pairs, [[0, 2], [3, 1], [2, 1]])
    assert labels.tolist() == [1, -1, -1] and pairs.dtype == np.int64


def test_sample_of_a_drawn_split_counts_every_pair_once():
    g = lgekit.Graph.from_edges([(i, (i + 1) % 30) for i in range(30)] + [(i, (i + 7) % 30) for i in range(30)])
    split = split_edges(g, test_fraction=0.2, negatives_per_positive=3, seed=4)
    for part in ("train", "test"):
        pairs, labels = theorem1_sample(split, part)
        pos, neg = getattr(split, f"{part}_positives"), getattr(split, f"{part}_negatives")
        assert len(pairs) == len(labels) == len(pos) + len(neg)
        np.testing.assert_array_equal(pairs[labels > 0], pos)
        np.testing.assert_array_equal(pairs[labels < 0], neg)


@pytest.mark.parametrize("part", ["validation", "Train", "", None, 0])
def test_sample_refuses_an_unknown_part(part):
    with pytest.raises(ValueError, match=r"part must be one of \('train', 'test'\)"):
        theorem1_sample(_hand_split(), part)


@pytest.mark.parametrize("split", [None, np.zeros((3, 2)), lgekit.Graph.from_edges([(0, 1)])])
def test_sample_refuses_what_is_not_a_split(split):
    with pytest.raises(TypeError, match="split must be an lgekit.EdgeSplit"):
        theorem1_sample(split)


def test_the_layouts_read_the_same_sample():
    split = _hand_split()
    pairs, _ = theorem1_sample(split)
    sym, kind, scale = oriented_training_pairs(split, "symmetric")
    np.testing.assert_array_equal(sym, pairs)
    assert (kind, scale) == ("homogeneous", 0.5)
    np.testing.assert_array_equal(oriented_training_pairs(split, "sorted")[0], np.sort(pairs, axis=1))
    rand = oriented_training_pairs(split, "random", seed=3)[0]
    np.testing.assert_array_equal(np.sort(rand, axis=1), np.sort(pairs, axis=1))
    # "source": 3 positives and 4 negatives are not a whole number of negatives per positive
    with pytest.raises(ValueError, match="whole number of negatives per positive, got 4 negatives for 3"):
        oriented_training_pairs(split, "source", seed=0)


def test_generalization_gap_scores_the_sample_with_its_labels():
    split = _hand_split()
    X = np.random.default_rng(2).normal(size=(4, 3))
    gap = generalization_gap(X, split, pos_weight=2.0, neg_weight=0.5)
    for part, loss in (("train", gap.train_loss), ("test", gap.test_loss)):
        pairs, labels = theorem1_sample(split, part)
        margins = labels * np.einsum("ij,ij->i", X[pairs[:, 0]], X[pairs[:, 1]])
        weights = np.where(labels > 0, 2.0, 0.5)
        assert loss == pytest.approx(np.mean(weights * np.log1p(np.exp(-margins))), rel=1e-12)
    assert (gap.n_train, gap.n_test) == (7, 3)


# -- the two sides of a directed or bipartite graph -----------------------------------------------------------------
def test_sides_of_each_kind():
    assert theorem1_sides(lgekit.Graph.from_edges([(0, 1), (1, 2)], directed=True)) == (3, 3, 0)
    assert theorem1_sides(lgekit.Graph.from_biadjacency(np.ones((2, 5)))) == (2, 5, 2)
    with pytest.raises(ValueError, match="directed or bipartite.*got kind 'undirected'"):
        theorem1_sides(lgekit.Graph.from_edges([(0, 1)]))
    for not_a_graph in (None, np.eye(3), "graph"):
        with pytest.raises(TypeError, match="graph must be an lgekit.Graph"):
            theorem1_sides(not_a_graph)


@st.composite
def bipartite_graphs(draw):
    """A biadjacency with at least one edge; shrinks to a 1 x 1 graph."""
    n_left, n_right = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cells = draw(st.sets(st.tuples(st.integers(0, n_left - 1), st.integers(0, n_right - 1)), min_size=1))
    B = np.zeros((n_left, n_right))
    for i, j in cells:
        B[i, j] = 1
    return lgekit.Graph.from_biadjacency(B), B


@given(bipartite_graphs(), st.integers(0, 2**32 - 1))
def test_graph_pattern_is_the_biadjacency_and_the_pairs_map_to_it(data, seed):
    graph, B = data
    pattern = PairPattern.from_graph(graph)
    assert pattern.shape == B.shape and pattern.kind == "bipartite"
    signs = pattern.draw_signs(seed)
    A = pattern.matrix(signs).toarray()
    np.testing.assert_array_equal(A != 0, B != 0)
    # the same entries as mapping the graph's (left, right) edges with theorem1_pairs
    mapped = PairPattern(theorem1_pairs(graph, graph.edges()), shape=B.shape, kind="bipartite")
    np.testing.assert_array_equal(mapped.matrix(signs).toarray(), A)


def test_directed_split_pattern_uses_the_arcs_as_rows_and_columns():
    g = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 0), (0, 2)], directed=True)
    split = EdgeSplit(g, g, np.array([[0, 1], [1, 2]]), np.array([[1, 0]]), np.array([[2, 0]]), np.array([[0, 0]]))
    pattern, scale = theorem1_pattern(split)
    A = pattern.matrix(np.array([1, 1, -1], dtype=np.int8)).toarray()
    np.testing.assert_array_equal(A, [[0, 1, 0], [-1, 0, 1], [0, 0, 0]])
    assert scale == 1.0
    with pytest.raises(ValueError, match="convention must be 'oriented'"):
        theorem1_pattern(split, "symmetric")
