"""Link prediction: the score of a pair of nodes, the AP and ROC-AUC of held-out edges against non-edges,
and node2vec's protocol, a classifier on edge features learnt from the training graph."""
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from .._random import check_random_state
from .._simd import load_kernel
from .._validation import InvalidParameterError, Interval, Options, check_pairs, validate_arguments
from ..evaluation import EdgeSplit, LeakError, sample_negative_pairs
from ._embedding import check_embedding

# the AVX2 build when the CPU has it (same scores for float32 embeddings; lgekit._simd)
_scoring = load_kernel("lgekit._scoring")

__all__ = ["pair_scores", "average_precision", "average_precision_from_scores", "roc_auc", "EDGE_OPERATORS",
           "LinkPredictionFeatures", "link_prediction_features", "edge_classifier_scores"]


def pair_scores(embedding, pairs, context=None):
    """Score ``s(u, v) = x_u·x_v`` of each pair (``x_u·y_v`` with a context embedding).

    Parameters
    ----------
    embedding : array (n_nodes, dim)
    pairs : int array (k, 2)
        Node indices in ``[0, n_nodes)``, of an integer dtype (floats are
        refused, not truncated: :func:`lgekit._validation.check_pairs`).
        With ``context``, the first column indexes ``embedding`` and the
        second ``context``.
    context : array (n_context, dim), optional
        Second ("context" / target) vectors of a two-table model (a model
        fitted on a directed graph: ``context_embedding_``, one in-vector per
        node); default: ``embedding`` itself (the paper's symmetric model).
        It may have a different number of rows (a bipartite model's right
        table, indexed from 0 within the right side).

    Returns
    -------
    scores : float64 ndarray (k,)

    Notes
    -----
    Computed by a Cython kernel (``lgekit/_scoring.pyx``) in one pass with
    float64 products and sums, so a float32 embedding loses no precision and
    no (k, dim) temporary is made.  Cost :math:`O(k \\cdot dim)`.

    Examples
    --------
    >>> pair_scores([[1.0, 0.0], [0.5, 2.0]], [[0, 1], [1, 1]]).tolist()
    [0.5, 4.25]
    """
    x = check_embedding(embedding)
    y = x if context is None else check_embedding(context, "context")
    if y.shape[1] != x.shape[1]:
        raise ValueError(f"context must have the embedding's shape {x.shape} (or, as a bipartite model's right "
                         f"table, any number of rows of dimension {x.shape[1]}), got {y.shape}")
    p = check_pairs(pairs, max(x.shape[0], y.shape[0]), "pairs")
    if y.shape[0] != x.shape[0] and len(p):
        # the two columns index different tables: check each against its own
        for col, rows, what in ((0, x.shape[0], "embedding"), (1, y.shape[0], "context")):
            if p[:, col].max() >= rows:
                raise InvalidParameterError(
                    f"pairs: column {col} indexes the {what}'s {rows} rows, got index {int(p[:, col].max())}",
                    parameter="pairs", value=int(p[:, col].max()), accepted=f"indices in [0, {rows})")
    dtype = x.dtype if x.dtype == y.dtype and x.dtype in (np.float32, np.float64) else np.float64
    x = np.ascontiguousarray(x, dtype=dtype)
    y = x if context is None else np.ascontiguousarray(y, dtype=dtype)
    return _scoring.pair_dots(x, y, p)


def _class_scores(embedding, positives, negatives, context):
    """Scores of the positive and of the negative pairs, validated."""
    x = check_embedding(embedding)
    # a bipartite model's right table may have more rows than the left one: pair_scores checks each column
    n = x.shape[0] if context is None else max(x.shape[0], np.shape(context)[0])
    pos = check_pairs(positives, n, "positives")
    neg = check_pairs(negatives, n, "negatives")
    if len(pos) == 0 or len(neg) == 0:
        raise ValueError(f"need at least one positive and one negative pair, got {len(pos)} positives and "
                         f"{len(neg)} negatives")
    scores = pair_scores(x, np.concatenate([pos, neg]), context=context)
    return scores[:len(pos)], scores[len(pos):]


def _labelled_scores(embedding, positives, negatives, context):
    pos, neg = _class_scores(embedding, positives, negatives, context)
    y = np.concatenate([np.ones(len(pos), dtype=np.int8), np.zeros(len(neg), dtype=np.int8)])
    return y, np.concatenate([pos, neg])


@validate_arguments({"n_threads": [Interval(Integral, 1, None, closed="left")]})
def average_precision(embedding, positives, negatives, context=None, *, n_threads=1):
    """Average precision of ranking ``positives`` above ``negatives`` by ``x_u·x_v``.

    The paper's link-prediction metric (Gao et al. 2019, Section 3.2, footnote on AP): the
    step-function sum :math:`\\sum_n (R_n - R_{n-1}) P_n` over the distinct
    score thresholds, no interpolation, equal to
    :func:`sklearn.metrics.average_precision_score` (ties included).  With
    ``r`` negatives per positive, a random embedding scores about
    ``1 / (1 + r)``.

    Parameters
    ----------
    embedding : array (n_nodes, dim)
    positives, negatives : int arrays (k, 2)
        Node index pairs (e.g. ``split.test_positives``, ``split.test_negatives``).
    context : array (n_nodes, dim), optional
        See :func:`pair_scores`.
    n_threads : int, default 1
        Threads that rank the negatives (see
        :func:`average_precision_from_scores`); the result is the same for
        any number.

    Returns
    -------
    float in [0, 1]

    Notes
    -----
    Cost :math:`O(k \\cdot dim)` for the scores, then that of
    :func:`average_precision_from_scores`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0], [1.0], [-1.0]])
    >>> average_precision(x, [[0, 1]], [[0, 2], [1, 2]])
    1.0
    """
    pos, neg = _class_scores(embedding, positives, negatives, context)
    return _scoring.average_precision_scores(pos, neg, n_threads)


@validate_arguments({"n_threads": [Interval(Integral, 1, None, closed="left")]})
def average_precision_from_scores(positive_scores, negative_scores, *, n_threads=1):
    """Average precision of scores of positive and negative examples (higher = more likely positive).

    With :math:`P` positives and, for a threshold :math:`t`, :math:`TP(t)` and
    :math:`FP(t)` the positives and negatives scoring at least :math:`t`, the
    sum runs over the distinct positive scores :math:`t` (where recall
    changes)::

        AP = sum_t  (#positives scoring exactly t / P) * TP(t) / (TP(t) + FP(t))

    which is scikit-learn's ``average_precision_score`` (ties count as one
    threshold).  Only the positives are sorted; :math:`FP(t)` comes from
    placing every negative among the distinct positive scores, which the
    threads share (``lgekit/_scoring.pyx``), instead of a sort of all
    labelled scores.

    Parameters
    ----------
    positive_scores, negative_scores : 1-D arrays of finite reals, non-empty
    n_threads : int, default 1
        Threads that place the negatives.  The placements are counted, so
        the result is the same, bit for bit, for any number.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        When a class has no score or a score is not finite.

    Notes
    -----
    Cost :math:`O(P \\log P)` to sort the :math:`P` positive scores and
    about :math:`O(N)` to place the :math:`N` negatives (:math:`O(N \\log P)`
    when the positive scores crowd together).

    Examples
    --------
    >>> average_precision_from_scores([3.0, 1.0], [2.0, 0.0])   # precisions 1 and 2/3
    0.8333333333333333
    """
    return _scoring.average_precision_scores(positive_scores, negative_scores, n_threads)


def roc_auc(embedding, positives, negatives, context=None):
    """Area under the ROC curve of ``x_u·x_v`` separating ``positives`` from ``negatives``.

    Computed by :func:`sklearn.metrics.roc_auc_score` (ties count one half).
    A random embedding scores about 0.5.  Parameters as :func:`average_precision`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0], [1.0], [-1.0]])
    >>> roc_auc(x, [[0, 1]], [[0, 2], [1, 2]])
    1.0
    """
    y, scores = _labelled_scores(embedding, positives, negatives, context)
    return float(roc_auc_score(y, scores))



# ---------------------------------------------------------------------- link prediction by edge features
#: node2vec's binary operators (Grover & Leskovec 2016, Table 1): an edge's feature vector from its two
#: node vectors, coordinate by coordinate
EDGE_OPERATORS = {
    "hadamard": lambda a, b: a * b,
    "average": lambda a, b: (a + b) / 2,
    "l1": lambda a, b: np.abs(a - b),
    "l2": lambda a, b: (a - b) ** 2,
}


class LinkPredictionFeatures(NamedTuple):
    """The edge-feature data set of :func:`link_prediction_features`: training and test pairs, features, labels."""

    train_features: np.ndarray
    train_labels: np.ndarray
    test_features: np.ndarray
    test_labels: np.ndarray
    train_pairs: np.ndarray
    test_pairs: np.ndarray
    operator: str


def _pair_keys(pairs, n, directed):
    """One int64 key per pair (either orientation the same key for an undirected graph)."""
    u, v = pairs[:, 0], pairs[:, 1]
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    return u * np.int64(n) + v


def _check_training_pairs(split, positives, negatives):
    """The leak checks of the edge classifier's training pairs, as :meth:`EdgeSplit.check` checks the split.

    Its positives must be edges of the training graph, its negatives non-edges
    of the training graph (and no self-pair), and no training pair may be a test
    pair (a held-out edge or a test negative, in either orientation when
    undirected): the classifier learns from what the training graph says.
    """
    t, n = split.train_graph, split.graph.n_nodes
    directed = split.graph.is_directed
    train_keys = _pair_keys(split.train_positives, n, directed)
    if not np.isin(_pair_keys(positives, n, directed), train_keys).all():
        raise LeakError("edge classifier: a training positive is not an edge of the training graph")
    if len(negatives) and np.any(negatives[:, 0] == negatives[:, 1]):
        raise LeakError("edge classifier: a training negative is a self-pair")
    if np.isin(_pair_keys(negatives, n, directed), train_keys).any():
        raise LeakError("edge classifier: a training negative is an edge of the training graph")
    test_keys = _pair_keys(np.concatenate([split.test_positives, split.test_negatives]), n, directed)
    for name, pairs in (("positive", positives), ("negative", negatives)):
        hit = np.isin(_pair_keys(pairs, n, directed), test_keys)
        if hit.any():
            raise LeakError(f"edge classifier: training {name} {pairs[np.flatnonzero(hit)[0]].tolist()} is a test "
                            "pair (a held-out edge or a test negative); the classifier must not see test pairs")


def _split_tables(embedding, split, context):
    """The embedding (and context) checked against ``split``'s graph: one row per node."""
    if not isinstance(split, EdgeSplit):
        raise TypeError(f"split must be an lgekit EdgeSplit (lgekit.split_edges), got {type(split).__name__}")
    x = check_embedding(embedding)
    y = x if context is None else check_embedding(context, "context")
    n = split.graph.n_nodes
    for name, table in (("embedding", x), ("context", y)):
        if table.shape[0] != n:
            raise ValueError(f"{name} has {table.shape[0]} rows but the split's graph has {n} nodes; the edge "
                             "features need one row per node of the graph (a bipartite model's two tables "
                             "are not supported)")
    if y.shape[1] != x.shape[1]:
        raise ValueError(f"context must have the embedding's dimension {x.shape[1]}, got {y.shape[1]}")
    return x, y


@validate_arguments({"operator": [Options(str, set(EDGE_OPERATORS))], "seed": ["random_state"],
                     "max_train_edges": [None, Interval(Integral, 1, None, closed="left")]})
def link_prediction_features(embedding, split, operator="hadamard", *, context=None, seed=0, max_train_edges=None):
    r"""node2vec's link-prediction data: each pair of nodes as a feature vector of its two node vectors.

    The protocol of node2vec (Grover & Leskovec 2016, Sec. 4.4) and karateclub:
    an edge classifier learns from **training pairs only** -- the training
    graph's edges (label 1) and as many sampled non-edges of the training
    graph (label 0, uniform pairs, :func:`lgekit.evaluation.sample_negative_pairs`),
    none of them a test pair -- and is scored on the split's held-out edges
    and test negatives.  The feature of a pair :math:`(u, v)` is
    :math:`f(x_u, y_v)`, coordinate by coordinate:

    ==============  =====================================
    ``operator``    :math:`f(a, b)`
    ==============  =====================================
    ``"hadamard"``  :math:`a \odot b`
    ``"average"``   :math:`(a + b) / 2`
    ``"l1"``        :math:`|a - b|`
    ``"l2"``        :math:`(a - b)^2`
    ==============  =====================================

    Parameters
    ----------
    embedding : array (n_nodes, dim)
        One row per node of ``split.graph`` (the source / out-vectors of a
        directed model).
    split : EdgeSplit
        Of :func:`lgekit.split_edges`; its test pairs are the test set.
    operator : {"hadamard", "average", "l1", "l2"}, default "hadamard"
    context : array (n_nodes, dim), optional
        The second node's vectors :math:`y_v` (a directed model's
        ``context_embedding_``); default ``embedding``.
    seed : None, int or numpy.random.Generator, default 0
        Draws the training negatives (and the training edges kept under
        ``max_train_edges``).
    max_train_edges : int, optional
        Keep at most this many training edges (a uniform sample, in the
        training graph's edge order), to bound the classifier's data; default:
        all of them.

    Returns
    -------
    LinkPredictionFeatures
        ``train_features`` ``(2 k, dim)`` and ``train_labels`` (k edges then k
        non-edges), ``test_features`` and ``test_labels`` (the split's test
        positives then test negatives), the pairs themselves, the operator.

    Raises
    ------
    TypeError
        ``split`` is not an EdgeSplit.
    ValueError
        An embedding without one row per node, or with non-finite values.
    lgekit.evaluation.LeakError
        A training pair that is a test pair or that the training graph
        contradicts (checked whatever drew them).

    Examples
    --------
    >>> import numpy as np, lgekit
    >>> g = lgekit.datasets.planted_partition_graph(n_nodes=60, n_labels=3, mean_degree=6, seed=0)
    >>> split = lgekit.split_edges(g, seed=0)
    >>> x = np.random.default_rng(0).normal(size=(g.n_nodes, 4))
    >>> data = link_prediction_features(x, split, "hadamard")
    >>> data.train_features.shape == (2 * len(split.train_positives), 4), int(data.train_labels.sum())
    (True, 145)
    """
    x, y = _split_tables(embedding, split, context)
    rng = check_random_state(seed, "seed")
    positives = split.train_positives
    if max_train_edges is not None and len(positives) > max_train_edges:
        positives = positives[np.sort(rng.choice(len(positives), int(max_train_edges), replace=False))]
    test_pairs = np.concatenate([split.test_positives, split.test_negatives])
    # non-edges of the training graph, never a test pair (in either orientation when undirected)
    negatives = sample_negative_pairs(split.train_graph, len(positives), seed=rng, exclude=test_pairs)
    _check_training_pairs(split, positives, negatives)
    f = EDGE_OPERATORS[operator]
    train_pairs = np.concatenate([positives, negatives])
    labels = lambda k_pos, k_neg: np.concatenate([np.ones(k_pos, np.int8), np.zeros(k_neg, np.int8)])  # noqa: E731
    return LinkPredictionFeatures(
        f(x[train_pairs[:, 0]], y[train_pairs[:, 1]]), labels(len(positives), len(negatives)),
        f(x[test_pairs[:, 0]], y[test_pairs[:, 1]]), labels(len(split.test_positives), len(split.test_negatives)),
        train_pairs, test_pairs, operator)


@validate_arguments({"C": [Interval(Real, 0, None, closed="neither")]})
def edge_classifier_scores(embedding, split, operator="hadamard", *, context=None, seed=0, max_train_edges=None,
                           C=1.0):
    """AP and ROC-AUC of a logistic regression on edge features: node2vec's link-prediction protocol.

    :func:`link_prediction_features` builds the training pairs (training
    edges and as many sampled training non-edges, leak-checked) and the test
    pairs (the split's); a standardised L2 logistic regression
    (:class:`sklearn.preprocessing.StandardScaler` then
    :class:`sklearn.linear_model.LogisticRegression`, lbfgs, deterministic)
    learns from the training pairs, and its decision values rank the test
    pairs.  :func:`average_precision` scores the same test pairs by
    :math:`x_u \\cdot x_v` alone, the paper's protocol: the two answer
    "is the embedding good for link prediction?" for a classifier on top of
    it and for the model's own score.

    Parameters
    ----------
    embedding, split, operator, context, seed, max_train_edges
        As :func:`link_prediction_features`.
    C : float > 0, default 1.0
        Inverse regularisation strength of the logistic regression.

    Returns
    -------
    dict
        ``{"average_precision", "roc_auc", "operator", "n_train_pairs", "n_test_pairs"}``.

    Examples
    --------
    >>> import numpy as np, lgekit
    >>> g = lgekit.datasets.planted_partition_graph(n_nodes=60, n_labels=3, mean_degree=6, seed=0)
    >>> split = lgekit.split_edges(g, seed=0)
    >>> x = np.random.default_rng(0).normal(size=(g.n_nodes, 4))
    >>> sorted(edge_classifier_scores(x, split))
    ['average_precision', 'n_test_pairs', 'n_train_pairs', 'operator', 'roc_auc']
    """
    data = link_prediction_features(embedding, split, operator, context=context, seed=seed,
                                    max_train_edges=max_train_edges)
    classifier = make_pipeline(StandardScaler(), LogisticRegression(C=float(C), max_iter=1000))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        classifier.fit(data.train_features, data.train_labels)
    scores = classifier.decision_function(data.test_features)
    positive = data.test_labels == 1
    return {"average_precision": float(average_precision_from_scores(scores[positive], scores[~positive])),
            "roc_auc": float(roc_auc_score(data.test_labels, scores)), "operator": operator,
            "n_train_pairs": int(len(data.train_labels)), "n_test_pairs": int(len(data.test_labels))}
