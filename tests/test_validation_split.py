"""The validation split (issue 44): carved out of the training graph alone, never out of the test pairs.

Each check is shown failing on the plausible wrong version: a validation split of the FULL graph (which
holds the test edges), the test split itself used as the validation split, and a sampler that avoids
the test edges when it draws validation negatives (a leak that no overlap check can see: it is caught by
changing the split's test pairs and watching the validation split change).
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lgekit
from lgekit.evaluation import (EdgeSplit, LeakError, check_validation_split, sample_negative_pairs, split_edges,
                               validation_split)


def ring(n=40, ks=(1, 2, 3), directed=False):
    return lgekit.Graph.from_edges([(i, (i + k) % n) for i in range(n) for k in ks], nodes=n, directed=directed)


def bipartite(n_left=15, n_right=20):
    matrix = np.zeros((n_left, n_right), dtype=int)
    for i in range(n_left):
        matrix[i, [(i * 3 + k) % n_right for k in range(4)]] = 1
    return lgekit.Graph.from_biadjacency(matrix)


def keys(pairs, n):
    pairs = np.asarray(pairs, dtype=np.int64)
    return set((pairs[:, 0] * n + pairs[:, 1]).tolist())


@pytest.mark.parametrize("graph", [ring(), ring(directed=True), bipartite()], ids=["undirected", "directed", "bipartite"])
def test_a_validation_split_is_a_split_of_the_training_graph(graph):
    split = split_edges(graph, test_fraction=0.2, seed=0)
    val = validation_split(split, validation_fraction=0.25, seed=3)
    n = graph.n_nodes
    assert val.graph.kind == graph.kind
    assert keys(val.graph.edges(), n) == keys(split.train_positives, n)
    # the validation edges are training edges, none a test edge; what is left trains
    assert keys(val.test_positives, n) <= keys(split.train_positives, n)
    assert not keys(val.test_positives, n) & keys(split.test_positives, n)
    assert keys(val.train_positives, n) | keys(val.test_positives, n) == keys(split.train_positives, n)
    assert len(val.test_positives) == round(0.25 * len(split.train_positives))
    assert len(val.test_negatives) == split.negatives_per_positive * len(val.test_positives)
    assert not split.train_graph.has_edges(val.test_negatives).any()
    assert check_validation_split(split, val) is val


def test_the_same_seed_gives_the_same_validation_split():
    split = split_edges(ring(), test_fraction=0.2, seed=0)
    a, b = validation_split(split, 0.2, seed=5), validation_split(split, 0.2, seed=5)
    for name in ("train_positives", "train_negatives", "test_positives", "test_negatives"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.test_positives, validation_split(split, 0.2, seed=6).test_positives)


def test_a_split_carries_its_protocol_into_the_validation_split():
    split = split_edges(ring(60), test_fraction=0.2, seed=0, negatives_per_positive=2, keep_connected=True,
                        negative_sampler="degree")
    val = validation_split(split, 0.2, seed=1)
    assert (val.negatives_per_positive, val.keep_connected, val.negative_sampler) == (2, True, "degree")
    assert validation_split(split, 0.2, seed=1, negatives_per_positive=3).negatives_per_positive == 3
    # a graph is its own training graph, with the paper's protocol
    graph_val = validation_split(ring(), 0.2, seed=1)
    assert graph_val.graph.n_edges == ring().n_edges and graph_val.negatives_per_positive == 4


# ---------------------------------------------------------------------- the wrong versions are caught
def test_a_validation_split_of_the_full_graph_is_a_leak():
    """Carved from split.graph, the validation split can hold test edges (and its graph is not the
    training graph): the check refuses it, whichever edges it happened to hold out."""
    split = split_edges(ring(), test_fraction=0.2, seed=0)
    wrong = validation_split(split.graph, 0.2, seed=1)
    with pytest.raises(LeakError, match="not the training graph"):
        check_validation_split(split, wrong)
    # the test split itself, monitored as a validation split (the old EarlyStopping("test_ap") example)
    with pytest.raises(LeakError, match="not the training graph"):
        check_validation_split(split, split)


def test_a_validation_positive_that_is_a_test_edge_is_caught():
    """A forged split whose graph is the training graph but whose held-out pairs are the test edges."""
    split = split_edges(ring(), test_fraction=0.2, seed=0)
    val = validation_split(split, 0.2, seed=1)
    forged = EdgeSplit(graph=val.graph, train_graph=val.train_graph, train_positives=val.train_positives,
                       train_negatives=val.train_negatives, test_positives=split.test_positives[:len(val.test_positives)],
                       test_negatives=val.test_negatives, negatives_per_positive=4)
    with pytest.raises(LeakError):
        check_validation_split(split, forged)


def _same_training_graph_other_test_pairs(split, seed):
    """A split with ``split``'s training graph (and training pairs) but other held-out test edges: the test
    positives are non-edges of ``split.graph`` added to the training graph."""
    g, n = split.train_graph, split.graph.n_nodes
    others = sample_negative_pairs(split.graph, len(split.test_positives), seed=seed)
    others = np.unique(others, axis=0)
    full = g.with_edges(np.concatenate([g.edges(), others]))
    test_pos = np.ascontiguousarray(full.edges()[~g.has_edges(full.edges())])
    test_neg = sample_negative_pairs(full, 4 * len(test_pos), seed=seed)
    other = EdgeSplit(graph=full, train_graph=g, train_positives=split.train_positives,
                      train_negatives=split.train_negatives, test_positives=test_pos, test_negatives=test_neg,
                      negatives_per_positive=4)
    other.check()
    assert not keys(test_pos, n) & keys(split.test_positives, n)
    return other


def _leaky_validation_split(split, fraction, seed):
    """The wrong version: validation negatives drawn avoiding the test edges as well (the sampler is told
    which pairs are held out for testing)."""
    rng = np.random.default_rng(seed)
    train = split.train_graph
    edges = train.edges()
    held = np.sort(rng.choice(len(edges), round(fraction * len(edges)), replace=False))
    negatives = sample_negative_pairs(train, 4 * len(held), seed=rng, exclude=split.test_positives)
    return edges[held], negatives


def _proper_validation_pairs(split, fraction, seed):
    val = validation_split(split, fraction, seed=seed)
    return val.test_positives, val.test_negatives


def _depends_on_test_pairs(make, seeds=range(8)):
    """Whether ``make(split, fraction, seed)``'s validation pairs change when only the test pairs change."""
    split = split_edges(ring(24, ks=(1, 2, 3, 4)), test_fraction=0.3, seed=0)
    other = _same_training_graph_other_test_pairs(split, seed=1)
    for seed in seeds:
        a, b = make(split, 0.3, seed), make(other, 0.3, seed)
        if any(x.shape != y.shape or not np.array_equal(x, y) for x, y in zip(a, b)):
            return True
    return False


def test_the_validation_split_does_not_depend_on_the_test_pairs():
    assert not _depends_on_test_pairs(_proper_validation_pairs)
    # the wrong version fails the same check: it avoided the test edges, so it changed with them
    assert _depends_on_test_pairs(_leaky_validation_split)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("fraction", [0, 1, 1.5, -0.1, "0.1", None, np.nan])
def test_a_bad_validation_fraction_names_itself(fraction):
    with pytest.raises((ValueError, TypeError), match="validation_fraction"):
        validation_split(ring(), validation_fraction=fraction)


def test_a_validation_fraction_that_holds_out_nothing_says_what_to_use():
    graph = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0)])
    with pytest.raises(ValueError, match=r"holds out 0 of the 4 training edges.*\[0\.25, 0\.75\]"):
        validation_split(graph, validation_fraction=0.1)
    with pytest.raises(ValueError, match="needs at least 2"):
        validation_split(lgekit.Graph.from_edges([(0, 1)], nodes=3), validation_fraction=0.5)


def test_check_validation_split_refuses_what_is_not_a_split():
    split = split_edges(ring(), test_fraction=0.2, seed=0)
    with pytest.raises(TypeError, match="validation must be an EdgeSplit"):
        check_validation_split(split, split.test_positives)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(12, 40), fraction=st.floats(0.1, 0.5), seed=st.integers(0, 2**16))
def test_every_validation_split_passes_its_own_check(n, fraction, seed):
    split = split_edges(ring(n), test_fraction=0.2, seed=seed)
    val = validation_split(split, fraction, seed=seed + 1)
    check_validation_split(split, val)
    assert val.train_graph.n_edges + len(val.test_positives) == split.train_graph.n_edges
