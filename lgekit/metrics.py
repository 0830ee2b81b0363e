"""Scores of an embedding: link prediction (AP, ROC-AUC of ``x_u . x_v``, or
``x_u . y_v`` with a second table; MRR and Hits@k of each positive ranked against
negatives for its source, OGB's protocol), direction prediction on a directed graph
(AP of telling an arc from its reverse) and node classification (Micro/Macro-F1
of one-vs-rest logistic regression, the DeepWalk ``scoring.py`` protocol)."""
import logging
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ._interop import is_networkx
from ._random import check_random_state
from ._simd import load_kernel
from ._validation import (
    InvalidParameterError,
    Interval,
    Options,
    check_pairs,
    validate_arguments,
    validate_params,
)
from .datasets import as_graph, as_labels
from .evaluation import EdgeSplit, LeakError, check_directed, non_reciprocal_arcs, sample_negative_pairs
from .graph import Graph

# the AVX2 build when the CPU has it (same scores for float32 embeddings; lgekit._simd)
_scoring = load_kernel("lgekit._scoring")

__all__ = ["pair_scores", "average_precision", "average_precision_from_scores", "roc_auc",
           "non_reciprocal_arcs", "direction_average_precision", "node_classification_f1", "top_k_f1",
           "top_k_f1_scorer", "TopKF1Scorer", "ranks_from_scores", "mrr_and_hits", "sample_candidates", "link_ranking",
           "TIES", "NodeClassificationSplit", "node_classification_split", "EDGE_OPERATORS",
           "LinkPredictionFeatures", "link_prediction_features", "edge_classifier_scores"]

logger = logging.getLogger(__name__)

_STRATEGIES = ("topk", "threshold")
_RATIO = [Interval(Real, 0, 1, closed="neither")]


# ---------------------------------------------------------------------- validation
def check_embedding(embedding, name="embedding"):
    """``embedding`` as a dense, finite, real (n_nodes, dim) array; a TypeError or ValueError naming ``name``
    otherwise (a diverged model's NaN rows are said to be one).

    The one reading of an embedding: an array (or nested lists), or a fitted lgekit model, which gives its
    ``embedding_`` (the source / left table of a two-table model).  A graph (lgekit's, networkx's, a
    split) is refused by name, never read as an array.
    """
    if isinstance(embedding, (Graph, EdgeSplit)) or is_networkx(embedding):
        raise TypeError(f"{name} must be an (n_nodes, dim) array of numbers or a fitted model, got a graph "
                        f"({type(embedding).__module__.split('.')[0]}.{type(embedding).__name__}); pass the "
                        "model's embedding_")
    if hasattr(embedding, "embedding_") and not isinstance(embedding, np.ndarray):
        embedding = embedding.embedding_
    if sp.issparse(embedding):
        raise TypeError(f"{name} must be a dense (n_nodes, dim) array, got a scipy.sparse matrix")
    try:
        x = np.asarray(embedding)
    except Exception as exc:  # ragged lists and other non-arrays
        raise TypeError(f"{name} must be an (n_nodes, dim) array of numbers: {exc}") from None
    if x.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_nodes, dim), got shape {x.shape}")
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        bad = np.argwhere(~np.isfinite(x))[0]
        raise ValueError(f"{name} contains non-finite values (NaN or inf), e.g. at row {bad[0]}, column {bad[1]}; "
                         "a diverged model? (try a smaller learning rate or a larger lam_r)")
    return x


# ---------------------------------------------------------------------- link prediction
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


# ---------------------------------------------------------------------- direction (directed graphs)
def direction_average_precision(embedding, arcs, context=None, graph=None, score="log_odds"):
    r"""Can the scores tell an arc ``(u, v)`` from its reverse ``(v, u)``?  AP of the one against the other.

    The paper's footnote 1 handles a directed graph with two vectors per
    node, an out-vector :math:`x_u` (``embedding``) and an in-vector
    :math:`y_v` (``context``), scoring :math:`s(u, v) = x_u^\top y_v`, which
    can differ from :math:`s(v, u) = x_v^\top y_u`.  The direction task
    takes a pair that is linked one way and asks *which way*.  Under the
    logistic model, with arcs independent and
    :math:`P(u \to v) = \sigma(s(u, v))`,

    .. math::

        \frac{P(u \to v,\ v \not\to u)}{P(v \to u,\ u \not\to v)}
        = \frac{\sigma(s(u, v))\,\sigma(-s(v, u))}{\sigma(s(v, u))\,\sigma(-s(u, v))}
        = e^{\,s(u, v) - s(v, u)},

    so the model's log-odds that the arc points :math:`u \to v` is the
    antisymmetric score :math:`d(u, v) = s(u, v) - s(v, u)` (``score=
    "log_odds"``, the default).  Each arc's :math:`d(u, v)` is a positive,
    its reverse's :math:`d(v, u) = -d(u, v)` a negative, and the average
    precision (:func:`average_precision_from_scores`) of the two sets is
    returned: 1 when every arc's log-odds is positive, 1/2 when they are all
    0.  A degree rule :math:`\log r_u - \log r_v` is such a score too.

    ``score="raw"`` ranks the raw scores :math:`s(u, v)` of the arcs against
    :math:`s(v, u)` of the reverses, pooled over all pairs: a pair whose
    vectors are long outranks the reverse of a pair whose vectors are short,
    so it mixes *is there a link* into *which way*.  It was lgekit's first
    direction AP, kept to compare with records made with it.

    A one-table (undirected) model scores :math:`x_u^\top x_v = x_v^\top
    x_u`: every positive ties with its negative, and the AP is exactly 0.5
    with either ``score`` -- the chance level by construction.

    Parameters
    ----------
    embedding : array (n_nodes, dim)
        The source (out-) vectors.
    arcs : int array (k, 2)
        Held-out arcs (source, target) as node indices, e.g.
        ``split.test_positives`` of a directed split.
    context : array (n_nodes, dim), optional
        The target (in-) vectors; default ``embedding`` (a symmetric scorer).
    graph : Graph or any form of :func:`lgekit.datasets.as_graph`, optional
        The full directed graph.  When given, the arcs whose reverse is also
        an arc (or that are self-loops) are dropped first
        (:func:`non_reciprocal_arcs`): their direction is not a question.
    score : {"log_odds", "raw"}, default "log_odds"
        Rank each arc's log-odds :math:`s(u, v) - s(v, u)` against its
        negation, or (``"raw"``) the pooled raw scores of arcs against those
        of reverses.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    TypeError, ValueError
        A bad embedding or arcs array; a ``graph`` that is not directed or
        does not match the embedding's rows; no arc left; without ``graph``,
        a self-loop or an arc whose reverse is also in ``arcs`` (the same pair
        would be a positive and a negative).

    Notes
    -----
    Cost :math:`O(k \cdot dim + k \log k)`.  The pair scores are those of
    :func:`average_precision`, so the link-prediction AP on the held-out arcs
    (against ``split.test_negatives``) and this direction AP measure the same
    model on two questions: *is there an arc?* and *which way does it go?*

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])      # x_u = (1, u)
    >>> y = np.array([[0.0, -1.0], [1.0, -1.0], [2.0, -1.0]])   # y_v = (v, -1): x_u . y_v = v - u
    >>> direction_average_precision(x, [[0, 1], [1, 2], [0, 2]], context=y)
    1.0
    >>> direction_average_precision(x, [[0, 1], [1, 2], [0, 2]])   # one table: symmetric scores
    0.5
    """
    if score not in ("log_odds", "raw"):
        raise ValueError(f"score must be 'log_odds' (each pair's s(u, v) - s(v, u)) or 'raw' (pooled raw scores), "
                         f"got {score!r}")
    x = check_embedding(embedding)
    if graph is not None:
        graph = check_directed(graph)
        if graph.n_nodes != x.shape[0]:
            raise ValueError(f"graph has {graph.n_nodes} nodes but the embedding has {x.shape[0]} rows")
        a = non_reciprocal_arcs(graph, arcs)
        if len(a) == 0:
            raise ValueError("arcs: every arc is a self-loop or reciprocated in the graph: no direction to tell")
    else:
        a = check_pairs(arcs, x.shape[0], "arcs")
        if len(a) == 0:
            raise ValueError("arcs: need at least one arc, got none")
        loops = np.flatnonzero(a[:, 0] == a[:, 1])
        if len(loops):
            raise ValueError(f"arcs: a self-loop is its own reverse, e.g. {a[loops[0]].tolist()} at row "
                             f"{loops[0]}; drop self-loops (or pass graph= to drop them)")
        n = max(x.shape[0], 1)
        keys = a[:, 0] * n + a[:, 1]
        both = np.isin(a[:, 1] * n + a[:, 0], keys)
        if both.any():
            i = int(np.flatnonzero(both)[0])
            raise ValueError(f"arcs: {a[i].tolist()} (row {i}) and its reverse are both in arcs, so the pair would "
                             "be a positive and a negative; pass graph= to keep only non-reciprocal arcs")
    if context is not None:
        y = check_embedding(context, "context")
        if y.shape != x.shape:
            raise ValueError(f"context must have the embedding's shape {x.shape} (one in-vector per node), "
                             f"got {y.shape}")
    scores = pair_scores(x, np.concatenate([a, np.ascontiguousarray(a[:, ::-1])]), context=context)
    forward, backward = scores[:len(a)], scores[len(a):]
    if score == "log_odds":
        forward, backward = forward - backward, backward - forward
    return average_precision_from_scores(forward, backward)


# ---------------------------------------------------------------------- node classification
def _label_matrix(labels, n_nodes):
    """Labels (any form of :func:`lgekit.datasets.as_labels`) as the 0/1 membership matrix, one row per node."""
    return as_labels(labels, n_nodes).matrix


def _check_ratios(train_ratio):
    """``train_ratio`` as a list of floats; each entry of a list is named ``train_ratio[i]`` in messages."""
    if isinstance(train_ratio, np.ndarray):
        train_ratio = train_ratio.tolist()
    if not isinstance(train_ratio, (list, tuple)):
        validate_params({"train_ratio": _RATIO}, {"train_ratio": train_ratio}, "node_classification_f1")
        return [float(train_ratio)]
    if len(train_ratio) == 0:
        raise InvalidParameterError("node_classification_f1: train_ratio must be a number in (0, 1) or a "
                                    "non-empty list of them, got an empty list", parameter="train_ratio",
                                    value=train_ratio, accepted="a number in (0, 1) or a non-empty list of them")
    for i, ratio in enumerate(train_ratio):
        validate_params({f"train_ratio[{i}]": _RATIO}, {f"train_ratio[{i}]": ratio}, "node_classification_f1")
    return [float(ratio) for ratio in train_ratio]


def _top_k_predictions(scores, counts):
    """0/1 predictions: row ``i``'s ``counts[i]`` top-scored labels (ties: the first label first)."""
    pred = np.zeros(scores.shape, dtype=np.int8)
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(scores.shape[1])[None, :].repeat(len(scores), 0), axis=1)
    pred[ranks < np.asarray(counts)[:, None]] = 1
    return pred


def _predict(classifier, x_test, y_test_counts, strategy):
    """0/1 predictions: each node's k top-scored labels (k = true count), or probability > 0.5."""
    proba = classifier.predict_proba(x_test)
    if strategy == "threshold":
        return (proba > 0.5).astype(np.int8)
    return _top_k_predictions(proba, y_test_counts)


def _draw_split(n, n_train, rng):
    """(train, test, classifier seed): the positions of one split of n labelled nodes and the liblinear seed,
    drawn from ``rng`` in that order (a permutation, then one integer)."""
    perm = rng.permutation(n)
    return perm[:n_train], perm[n_train:], int(rng.integers(2**31 - 1))


def _labelled_part(y):
    """(labelled, y): the rows of the csr membership matrix ``y`` with a label, and their dense 0/1 rows over
    the classes some node has."""
    labelled = np.flatnonzero(np.diff(y.indptr) > 0)
    y = y[labelled]
    y = y[:, np.flatnonzero(np.asarray(y.sum(axis=0)).ravel() > 0)]
    if len(labelled) < 2 or y.shape[1] == 0:
        raise ValueError(f"labels: need at least 2 labelled nodes, got {len(labelled)} (with {y.shape[1]} "
                         "non-empty classes)")
    return labelled, y.toarray()  # (n_labelled, n_classes) int8: small, and what f1_score wants


def _train_size(ratio, n):
    n_train = int(round(ratio * n))
    if not 1 <= n_train <= n - 1:
        raise ValueError(f"train_ratio={ratio} leaves {n_train} of {n} labelled nodes for training; "
                         "both the training and the test part must be non-empty")
    return n_train


def _one_split(x, y, n_train, rng, strategy, C):
    train, test, classifier_seed = _draw_split(x.shape[0], n_train, rng)
    clf = OneVsRestClassifier(LogisticRegression(C=C, solver="liblinear", random_state=classifier_seed))
    with warnings.catch_warnings():
        # a class with no positive (or only positive) training nodes gets a constant predictor
        warnings.filterwarnings("ignore", message="Label .* is present in all training examples")
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        clf.fit(x[train], y[train])
    y_test = y[test]
    pred = _predict(clf, x[test], y_test.sum(axis=1), strategy)
    micro = f1_score(y_test, pred, average="micro", zero_division=0)
    macro = f1_score(y_test, pred, average="macro", zero_division=0)
    return float(micro), float(macro)


@validate_arguments({
    # train_ratio may also be a list: checked entry by entry in the body (_check_ratios)
    "seed": ["random_state"],
    "strategy": [Options(str, _STRATEGIES)],
    "n_repeats": [Interval(Integral, 1, None, closed="left")],
    "C": [Interval(Real, 0, None, closed="neither")],
})
def node_classification_f1(embedding, labels, train_ratio=0.5, seed=0, strategy="topk", n_repeats=1, C=1.0):
    """Micro- and Macro-F1 of predicting node labels from the embedding.

    The DeepWalk ``scoring.py`` protocol (Perozzi et al. 2014; also node2vec,
    LINE and the paper's Figure 6): shuffle the labelled nodes, train one-vs-rest
    L2-regularised logistic regression (LIBLINEAR) on the first
    ``train_ratio`` of them, and predict for each remaining node its ``k``
    top-scored labels, where ``k`` is the node's true number of labels.

    Parameters
    ----------
    embedding : array (n_nodes, dim)
    labels : Graph, networkx graph, (n_nodes, n_classes) 0/1 matrix, or one class per node
        Node memberships, any form of :func:`lgekit.datasets.as_labels`: a
        Graph's ``labels``, a networkx graph's label node attribute (``club``,
        ``label``, ...), a sparse or dense matrix, a 1-D integer array
        (negative: unlabelled) or a sequence of class names.  Nodes without
        any label are left out; classes without any member are dropped.
    train_ratio : float in (0, 1) or list of floats, default 0.5
        Fraction of the labelled nodes used for training
        (``int(round(ratio * n_labelled))`` nodes).
    seed : None, int or numpy.random.Generator, default 0
        Shuffles (and LIBLINEAR's coordinate order).
    strategy : {"topk", "threshold"}, default "topk"
        ``"topk"``: the protocol above; ``"threshold"``: predict every label
        whose probability exceeds 0.5 (can predict none).
    n_repeats : int >= 1, default 1
        Independent shuffles per ratio; the scores are their means.
    C : float > 0, default 1.0
        Inverse regularisation strength of the logistic regressions.

    Returns
    -------
    dict
        ``{"micro_f1", "macro_f1", "train_ratio", "n_repeats", "n_train", "n_test"}``, and with
        ``n_repeats > 1`` also ``"micro_f1_std"``, ``"macro_f1_std"`` and the
        per-repeat lists ``"micro_f1_all"``, ``"macro_f1_all"``.  For a list of
        ratios: ``{ratio: that dict}``.

    Raises
    ------
    lgekit._validation.InvalidParameterError
        A bad ``train_ratio``, ``seed``, ``strategy``, ``n_repeats`` or ``C``
        (a ``ValueError`` and a ``TypeError``).
    ValueError
        Shapes that disagree, non-finite embedding values, too few labelled
        nodes for the ratio, no labels at all.

    Notes
    -----
    Micro-F1 pools the decisions of all (test node, class) cells; Macro-F1
    averages per-class F1 over the classes with at least one member (a class
    absent from the test nodes and never predicted counts 0, as in scikit-
    learn with ``zero_division=0``).  Single-label data (email-Eu-core) work
    the same way: ``k = 1`` picks the arg-max class, so Micro-F1 equals
    accuracy.  Cost: ``n_classes`` LIBLINEAR fits on ``n_train x dim`` data.

    See Also
    --------
    top_k_f1_scorer : the same F1 as a ``scoring=`` of scikit-learn's model selection.

    References
    ----------
    Perozzi, Al-Rfou & Skiena, "DeepWalk", KDD 2014, Sec. 5 and its
    ``example_graphs/scoring.py``.

    Examples
    --------
    >>> import numpy as np
    >>> labels = np.repeat(np.eye(3, dtype=int), 20, axis=0)   # 60 nodes, 3 classes
    >>> result = node_classification_f1(labels * 5.0, labels, seed=0)
    >>> result["micro_f1"], result["macro_f1"]
    (1.0, 1.0)
    """
    x = check_embedding(embedding).astype(np.float64, copy=False)
    y = _label_matrix(labels, x.shape[0])
    many = isinstance(train_ratio, (list, tuple, np.ndarray))
    ratios = _check_ratios(train_ratio)

    labelled, y = _labelled_part(y)
    x = x[labelled]
    n = len(labelled)
    rng = check_random_state(seed, "seed")
    results = {}
    for ratio in ratios:
        n_train = _train_size(ratio, n)
        scores = [_one_split(x, y, n_train, rng, strategy, float(C)) for _ in range(n_repeats)]
        micro = [s[0] for s in scores]
        macro = [s[1] for s in scores]
        res = {"micro_f1": float(np.mean(micro)), "macro_f1": float(np.mean(macro)), "train_ratio": ratio,
               "n_repeats": int(n_repeats), "n_train": n_train, "n_test": n - n_train}
        if n_repeats > 1:
            res.update(micro_f1_std=float(np.std(micro, ddof=1)), macro_f1_std=float(np.std(macro, ddof=1)),
                       micro_f1_all=micro, macro_f1_all=macro)
        logger.info("node classification, train_ratio=%g: micro-F1 %.4f, macro-F1 %.4f", ratio,
                    res["micro_f1"], res["macro_f1"])
        results[ratio] = res
    return results if many else results[ratios[0]]


class NodeClassificationSplit(NamedTuple):
    """The first split :func:`node_classification_f1` draws (see :func:`node_classification_split`)."""

    labelled: np.ndarray
    y: np.ndarray
    train: np.ndarray
    test: np.ndarray
    classifier_seed: int


def node_classification_split(labels, train_ratio=0.5, seed=0):
    """The split that ``node_classification_f1(embedding, labels, train_ratio, seed)`` scores first.

    For scoring the same protocol elsewhere, e.g. a ``GridSearchCV`` over
    :class:`~lgekit.NodeEmbedding` with :func:`top_k_f1_scorer`, ``cv=[(split.train,
    split.test)]`` and the classifier seeded with ``split.classifier_seed``,
    which then reproduces :func:`node_classification_f1`'s scores.

    Parameters
    ----------
    labels : any form of :func:`lgekit.datasets.as_labels`
        As :func:`node_classification_f1` takes them (one row per node).
    train_ratio : float in (0, 1), default 0.5
    seed : None, int or numpy.random.Generator, default 0

    Returns
    -------
    NodeClassificationSplit
        ``labelled`` (the node indices with a label), ``y`` (their dense 0/1
        rows over the classes some node has), ``train`` and ``test``
        (positions in ``labelled``) and ``classifier_seed`` (liblinear's
        ``random_state``), drawn as :func:`node_classification_f1` draws them.

    Raises
    ------
    ValueError
        As :func:`node_classification_f1` for the labels and the ratio.

    Examples
    --------
    >>> labels = np.repeat(np.eye(3, dtype=int), 4, axis=0)         # 12 nodes, 3 classes
    >>> split = node_classification_split(labels, train_ratio=0.5, seed=0)
    >>> len(split.train), len(split.test), split.y.shape
    (6, 6, (12, 3))
    """
    ratios = _check_ratios(train_ratio)
    if len(ratios) != 1:
        raise ValueError(f"train_ratio: one split has one ratio, got {len(ratios)} ({ratios}); call "
                         "node_classification_split once per ratio")
    ratio = ratios[0]
    labelled, y = _labelled_part(as_labels(labels).matrix)
    train, test, classifier_seed = _draw_split(len(labelled), _train_size(ratio, len(labelled)),
                                               check_random_state(seed, "seed"))
    return NodeClassificationSplit(labelled, y, train, test, classifier_seed)


_AVERAGES = ("micro", "macro")


def top_k_f1(y_true, scores, average="micro", classes=None):
    """F1 of predicting for each sample its ``k`` top-scored labels, ``k`` its true number of labels.

    The prediction rule of :func:`node_classification_f1` (DeepWalk's
    protocol) on given scores, e.g. a classifier's ``predict_proba``.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, n_labels)
        One label per sample, or a 0/1 label indicator matrix (multi-label;
        dense or scipy sparse), whose columns are those of ``scores``.
    scores : array-like of shape (n, n_labels)
        Higher: more likely.
    average : {"micro", "macro"}, default "micro"
        scikit-learn's meaning (``f1_score(..., zero_division=0)``).
    classes : array-like of shape (n_labels,), optional
        For one label per sample: the label of each column of ``scores``
        (a classifier's ``classes_``; default ``0..n_labels-1``).  A sample
        whose label is not among them counts as a missed label (a column
        never predicted).

    Returns
    -------
    float
    """
    validate_params({"average": [Options(str, set(_AVERAGES))]}, {"average": average}, "top_k_f1")
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[1] == 0 or not np.all(np.isfinite(scores)):
        raise ValueError(f"scores must be a finite 2-D array of shape (n, n_labels >= 1), got shape {scores.shape}")
    if sp.issparse(y_true) or np.ndim(y_true) == 2:
        y = y_true.toarray() if sp.issparse(y_true) else np.asarray(y_true)
        if y.shape != scores.shape:
            raise ValueError(f"y_true: a label indicator matrix must have the shape of scores {scores.shape}, "
                             f"got {y.shape}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y_true: a 2-D y_true must be a 0/1 label indicator matrix")
        y = y.astype(np.int8)
    else:
        labels = np.asarray(y_true)
        if labels.ndim != 1 or len(labels) != len(scores):
            raise ValueError(f"y_true must hold one label per row of scores ({len(scores)}), got shape "
                             f"{labels.shape}")
        classes = np.arange(scores.shape[1]) if classes is None else np.asarray(classes)
        if classes.shape != (scores.shape[1],):
            raise ValueError(f"classes must name the {scores.shape[1]} columns of scores, got shape {classes.shape}")
        # a label no column names (absent from the classifier's training fold) is a column never predicted
        unseen = np.setdiff1d(labels, classes) if len(labels) else labels[:0]
        if len(unseen):
            classes = np.concatenate([classes, unseen])
            scores = np.hstack([scores, np.full((len(scores), len(unseen)), -np.inf)])
        y = (labels[:, None] == classes[None, :]).astype(np.int8)
    pred = _top_k_predictions(scores, y.sum(axis=1))
    return float(f1_score(y, pred, average=average, zero_division=0))


class TopKF1Scorer:
    """A scikit-learn scorer (``scoring=`` of ``GridSearchCV``, ``cross_val_score``...) of :func:`top_k_f1`.

    Called as ``scorer(estimator, X, y)``: the top-k F1 of ``estimator``'s
    ``predict_proba(X)`` (``decision_function(X)`` when it has none) against
    ``y``.  Made by :func:`top_k_f1_scorer`; a module-level class, so that
    it pickles to ``GridSearchCV(..., n_jobs=k)``'s workers.
    """

    def __init__(self, average="micro"):
        validate_params({"average": [Options(str, set(_AVERAGES))]}, {"average": average}, "top_k_f1_scorer")
        self.average = average

    def __call__(self, estimator, X, y_true, sample_weight=None):
        if sample_weight is not None:
            raise ValueError("sample_weight: the top-k F1 scorer weighs every sample equally; got sample weights")
        if hasattr(estimator, "predict_proba"):
            scores = estimator.predict_proba(X)
        elif hasattr(estimator, "decision_function"):
            scores = estimator.decision_function(X)
        else:
            raise TypeError(f"estimator must have predict_proba or decision_function to rank labels, got "
                            f"{type(estimator).__name__}")
        if isinstance(scores, list):
            # a multi-output classifier's per-label [P(0), P(1)] columns: the positive ones
            widths = {np.shape(s)[1] for s in scores}
            if widths != {2}:
                raise ValueError("estimator: a per-label predict_proba must give [P(0), P(1)] for every label; a "
                                 "label with one class in the training fold has no P(1) (use OneVsRestClassifier)")
            scores = np.column_stack([np.asarray(s)[:, 1] for s in scores])
        scores = np.asarray(scores)
        if scores.ndim == 1:                  # a binary decision_function: the positive class's column
            scores = np.column_stack([-scores, scores])
        return top_k_f1(y_true, scores, self.average, classes=getattr(estimator, "classes_", None))

    def __repr__(self):
        return f"top_k_f1_scorer(average={self.average!r})"


def top_k_f1_scorer(average="micro"):
    """The top-k F1 of :func:`node_classification_f1` as a ``scoring=`` for scikit-learn's model selection.

    scikit-learn's ``"f1_micro"`` and ``"f1_macro"`` score ``predict``,
    which for a one-vs-rest classifier of a multi-label graph gives a node
    every label whose probability exceeds 0.5, often none; DeepWalk's
    protocol, and the paper's F1, predict each node's ``k`` most probable
    labels, ``k`` its true number of labels.  With the same split and
    classifier this scorer gives :func:`node_classification_f1`'s value.

    Parameters
    ----------
    average : {"micro", "macro"}, default "micro"

    Returns
    -------
    TopKF1Scorer

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.multiclass import OneVsRestClassifier
    >>> x = np.repeat(np.eye(3), 10, axis=0) * 4
    >>> y = np.repeat(np.eye(3, dtype=int), 10, axis=0)
    >>> clf = OneVsRestClassifier(LogisticRegression()).fit(x, y)
    >>> top_k_f1_scorer("macro")(clf, x, y)
    1.0
    """
    return TopKF1Scorer(average)


# ---------------------------------------------------------------------- ranking (MRR, Hits@k)
#: how a positive ranks among negatives that score exactly as it does
TIES = ("average", "pessimistic", "optimistic")


@validate_arguments({"ties": [Options(str, TIES)]})
def ranks_from_scores(positive_scores, negative_scores, *, ties="average"):
    """The rank of each positive among its negatives: 1 + the negatives that score above it.

    Negatives that score exactly as the positive does count by ``ties``:
    ``"optimistic"`` puts the positive first among them (rank
    :math:`1 + \\#\\{s^- > s^+\\}`), ``"pessimistic"`` last
    (:math:`1 + \\#\\{s^- \\ge s^+\\}`), ``"average"`` half way (the mean of
    the two).  OGB's link-prediction evaluator ranks with ``"average"`` for
    its MRR (``ogbl-citation2``; ``ogb/linkproppred/evaluate.py``,
    ``_eval_mrr``), and its Hits@K against one shared set of negatives
    (``ogbl-collab``, ``-ppa``, ``-ddi``: a hit when the positive scores
    strictly above the K-th best negative) is ``"pessimistic"``.  A constant
    scorer gets rank 1 optimistically, ``m + 1`` pessimistically.

    Parameters
    ----------
    positive_scores : 1-D array (P,) of finite reals
    negative_scores : array (P, m), one row of negatives per positive, or (m,) shared by all
    ties : {"average", "pessimistic", "optimistic"}, default "average"

    Returns
    -------
    float64 ndarray (P,)
        Ranks in ``[1, m + 1]`` (halves with ``"average"``).

    Examples
    --------
    >>> ranks_from_scores([2.0, 1.0], [[3.0, 2.0, 0.0], [1.0, 1.0, 1.0]]).tolist()
    [2.5, 2.5]
    >>> ranks_from_scores([2.0, 1.0], [[3.0, 2.0, 0.0], [1.0, 1.0, 1.0]], ties="pessimistic").tolist()
    [3.0, 4.0]
    """
    pos = np.asarray(positive_scores, dtype=np.float64)
    neg = np.asarray(negative_scores, dtype=np.float64)
    if pos.ndim != 1 or len(pos) == 0:
        raise ValueError(f"positive_scores must be a non-empty 1-D array, got shape {pos.shape}")
    if neg.ndim == 1:
        neg = neg[None, :]
    if neg.ndim != 2 or neg.shape[0] not in (1, len(pos)) or neg.shape[1] == 0:
        raise ValueError(f"negative_scores must have shape ({len(pos)}, m) (one row per positive) or (m,) (shared), "
                         f"m >= 1, got {np.shape(negative_scores)}")
    if not (np.isfinite(pos).all() and np.isfinite(neg).all()):
        raise ValueError("positive_scores and negative_scores must be finite (a diverged model?)")
    if neg.shape[0] == 1 and len(pos) > 1:
        # shared negatives: count by bisection, not a (P, m) comparison
        s = np.sort(neg[0])
        above = len(s) - np.searchsorted(s, pos, side="right")
        at_least = len(s) - np.searchsorted(s, pos, side="left")
    else:
        above = (neg > pos[:, None]).sum(axis=1)
        at_least = (neg >= pos[:, None]).sum(axis=1)
    return _ranks(above, at_least, ties)


def _ranks(above, at_least, ties):
    """Ranks from the counts of negatives above and at least the positive (see :func:`ranks_from_scores`)."""
    if ties == "optimistic":
        return 1.0 + np.asarray(above, dtype=np.float64)
    if ties == "pessimistic":
        return 1.0 + np.asarray(at_least, dtype=np.float64)
    return 1.0 + 0.5 * (np.asarray(above, dtype=np.float64) + at_least)


def _check_ks(ks):
    ks = (ks,) if isinstance(ks, Integral) else tuple(ks)
    if not ks or any(isinstance(k, bool) or not isinstance(k, Integral) or k < 1 for k in ks):
        raise InvalidParameterError(f"ks must be a positive int or a non-empty sequence of them, got {ks!r}",
                                    parameter="ks", value=ks, accepted="ints >= 1")
    return tuple(int(k) for k in ks)


def mrr_and_hits(ranks, ks=(1, 3, 10)):
    """``{"mrr": mean of 1 / rank, "hits@k": share of ranks <= k for each k}`` of ranks (from
    :func:`ranks_from_scores`).

    Examples
    --------
    >>> mrr_and_hits([1.0, 2.0, 4.0], ks=(1, 3))
    {'mrr': 0.5833333333333334, 'hits@1': 0.3333333333333333, 'hits@3': 0.6666666666666666}
    """
    r = np.asarray(ranks, dtype=np.float64)
    if r.ndim != 1 or len(r) == 0 or not np.all(r >= 1):
        raise ValueError(f"ranks must be a non-empty 1-D array of ranks >= 1, got shape {r.shape}")
    out = {"mrr": float(np.mean(1.0 / r))}
    for k in _check_ks(ks):
        out[f"hits@{k}"] = float(np.mean(r <= k))
    return out


def _known_matrix(graph, n_rows, n_candidates):
    """The pairs that are no negative, as a (sources, candidates) CSR: a graph's edges (out-arcs of a
    directed graph, left-right edges of a bipartite one); None without a graph."""
    if graph is None:
        return None
    graph = as_graph(graph, "graph")
    if n_rows is None:
        n_rows = graph.n_nodes
    known = graph.biadjacency("csr") if graph.kind == "bipartite" else graph.to_scipy("csr")
    if known.shape != (n_rows, n_candidates):
        raise ValueError(f"graph: its adjacency has shape {known.shape}, but the sources and candidates are "
                         f"{n_rows} x {n_candidates}")
    return known.astype(bool).tocsr()


@validate_arguments({"n_negatives": [Interval(Integral, 1, None, closed="left")], "seed": ["random_state"]})
def sample_candidates(positives, n_candidates, n_negatives, *, graph=None, exclude_self=True, seed=0):
    """Negative candidates for each positive pair ``(u, v)``: ``n_negatives`` targets ``w`` drawn for ``u``.

    Each row is drawn uniformly, with replacement, from the targets ``w`` in
    ``[0, n_candidates)`` other than ``v`` itself, ``u`` itself (with
    ``exclude_self``: one node set on both sides) and, given a ``graph``,
    every ``w`` with ``(u, w)`` an edge (the *filtered* setting: a known link
    is no negative).  A drawn target that is not allowed is drawn again.

    Parameters
    ----------
    positives : int array (P, 2)
        (source row, target row), e.g. ``split.test_positives``.
    n_candidates : int
        Rows of the target table (the number of nodes; a bipartite model's
        right nodes).
    n_negatives : int >= 1
    graph : Graph or any form of :func:`lgekit.datasets.as_graph`, optional
    exclude_self : bool, default True
    seed : None, int or numpy.random.Generator, default 0

    Returns
    -------
    int64 ndarray (P, n_negatives)

    Raises
    ------
    ValueError
        When some source has no allowed target.
    """
    graph = None if graph is None else as_graph(graph, "graph")
    n_sources = graph.n_left if graph is not None and graph.kind == "bipartite" else None
    if graph is not None and n_sources is None:
        n_sources = graph.n_nodes
    # the two columns index different tables (a bipartite graph's left and right nodes): each its own range
    p = check_pairs(positives, np.iinfo(np.int64).max, "positives")
    if len(p) and p[:, 1].max() >= n_candidates:
        raise ValueError(f"positives: targets must lie in [0, {n_candidates}), got {int(p[:, 1].max())}")
    if len(p) and n_sources is not None and p[:, 0].max() >= n_sources:
        raise ValueError(f"positives: sources must lie in [0, {n_sources}) (the graph's "
                         f"{'left ' if graph.kind == 'bipartite' else ''}nodes), got {int(p[:, 0].max())}")
    known = _known_matrix(graph, n_sources, n_candidates)
    rng = check_random_state(seed, "seed")
    out = rng.integers(0, n_candidates, size=(len(p), int(n_negatives)), dtype=np.int64)

    # the known pairs as sorted keys u * n_candidates + w: a membership test is one bisection
    keys = None if known is None else np.sort(
        np.repeat(np.arange(known.shape[0], dtype=np.int64), np.diff(known.indptr)) * n_candidates
        + known.indices)

    def forbidden(rows, w):
        mask = w == p[rows, 1][:, None]
        if exclude_self:
            mask |= w == p[rows, 0][:, None]
        if keys is not None and len(keys):
            q = p[rows, 0][:, None] * n_candidates + w
            mask |= keys[np.minimum(np.searchsorted(keys, q), len(keys) - 1)] == q
        return mask

    rows = np.arange(len(p))
    for _ in range(_REDRAWS):
        mask = forbidden(rows, out[rows])
        hit = mask.any(axis=1)
        rows, mask = rows[hit], mask[hit]
        if not len(rows):
            return out
        block = out[rows]
        block[mask] = rng.integers(0, n_candidates, size=int(mask.sum()), dtype=np.int64)
        out[rows] = block
    # sources with few allowed targets (dense rows): draw from the list of those targets
    for i in rows:
        u, v = p[i]
        banned = [v, u] if exclude_self else [v]
        if known is not None:
            banned.extend(known.indices[known.indptr[u]:known.indptr[u + 1]])
        allowed = np.setdiff1d(np.arange(n_candidates), banned)
        if not len(allowed):
            raise ValueError(f"positives: source {int(u)} (row {i}) has no target left to be a negative")
        out[i] = rng.choice(allowed, size=out.shape[1])
    return out


# redraws of the forbidden candidates before the few sources left draw from an explicit list
_REDRAWS = 20


@validate_arguments({"ties": [Options(str, TIES)], "seed": ["random_state"]})
def link_ranking(embedding, positives, context=None, *, candidates=100, graph=None, ties="average",
                 ks=(1, 3, 10), exclude_self=None, seed=0):
    """MRR and Hits@k of link prediction: each positive pair ranked against negatives for its source.

    OGB's protocol (Hu et al. 2020, ``ogbl-citation2``): for a held-out pair
    ``(u, v)``, score ``s(u, v)`` (``x_u . x_v``, or ``x_u . y_v`` with a
    context table) and the negatives ``s(u, w)`` of candidate targets ``w``
    for the same source; the positive's rank is 1 + the negatives above it
    (ties by ``ties``: :func:`ranks_from_scores`), MRR the mean of 1/rank
    and Hits@k the share of ranks at most k.

    Parameters
    ----------
    embedding : array (n_nodes, dim)
    positives : int array (P, 2)
        (source row, target row), e.g. ``split.test_positives``.
    context : array (n_targets, dim), optional
        See :func:`pair_scores`.
    candidates : int >= 1 or "all", default 100
        An int: that many negatives per positive drawn by
        :func:`sample_candidates` (from ``seed``).  ``"all"``: every allowed
        target (exact, costs a product with the whole table, done in blocks
        of bounded memory).
    graph : Graph or any form of :func:`lgekit.datasets.as_graph`, optional
        Its edges are not negatives (the *filtered* setting; pass the full
        graph, so that no held-out or training link counts against a
        positive).  Without it, only ``v`` and (``exclude_self``) ``u``
        are left out: OGB's candidates are raw samples, unfiltered.
    ties : {"average", "pessimistic", "optimistic"}, default "average"
        OGB's MRR uses ``"average"``.
    ks : int or sequence of ints, default (1, 3, 10)
    exclude_self : bool, optional
        Leave ``u`` out of its own candidates; default: True when the
        sources and targets are one node set (no context, or a context with
        as many rows; a bipartite graph given as ``graph`` says False).
    seed : None, int or numpy.random.Generator, default 0

    Returns
    -------
    dict
        ``{"mrr", "hits@k" for each k, "n_positives", "n_candidates", "ties"}``;
        ``"n_candidates"`` is the number per positive (``"all"``: the
        smallest over the positives).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.0]])
    >>> link_ranking(x, [[0, 3]], candidates="all", ks=(1, 2))   # 3 ties with 1 (0.5 < 1), beats 2
    {'mrr': 0.5, 'hits@1': 0.0, 'hits@2': 1.0, 'n_positives': 1, 'n_candidates': 2, 'ties': 'average'}
    """
    x = check_embedding(embedding)
    y = x if context is None else check_embedding(context, "context")
    if y.shape[1] != x.shape[1]:
        raise ValueError(f"context must have the embedding's dimension {x.shape[1]}, got {y.shape}")
    ks = _check_ks(ks)
    graph = None if graph is None else as_graph(graph, "graph")   # a networkx graph too: the one reading
    if exclude_self is None:
        exclude_self = y.shape[0] == x.shape[0] and not (graph is not None and graph.kind == "bipartite")
    p = check_pairs(positives, max(x.shape[0], y.shape[0]), "positives")
    if len(p) == 0:
        raise ValueError("positives: need at least one pair, got none")
    for col, rows, what in ((0, x.shape[0], "embedding"), (1, y.shape[0], "context")):
        if p[:, col].max() >= rows:
            raise ValueError(f"positives: column {col} indexes the {what}'s {rows} rows, got {int(p[:, col].max())}")
    if isinstance(candidates, str):
        if candidates != "all":
            raise ValueError(f"candidates must be a positive int (negatives sampled per positive) or 'all', "
                             f"got {candidates!r}")
        above, at_least, counts = _rank_against_all(x, y, p, graph, exclude_self)
        ranks = _ranks(above, at_least, ties)
        n_cand = int(counts.min())
    else:
        if isinstance(candidates, bool) or not isinstance(candidates, Integral) or candidates < 1:
            raise ValueError(f"candidates must be a positive int (negatives sampled per positive) or 'all', "
                             f"got {candidates!r}")
        w = sample_candidates(p, y.shape[0], int(candidates), graph=graph, exclude_self=exclude_self, seed=seed)
        neg_pairs = np.stack([np.repeat(p[:, 0], w.shape[1]), w.ravel()], axis=1)
        pos_scores = pair_scores(x, p, context=None if context is None else y)
        neg_scores = pair_scores(x, neg_pairs, context=None if context is None else y).reshape(w.shape)
        ranks = ranks_from_scores(pos_scores, neg_scores, ties=ties)
        n_cand = int(candidates)
    out = mrr_and_hits(ranks, ks)
    out.update(n_positives=len(p), n_candidates=n_cand, ties=ties)
    return out


# bytes of float64 scores one block of "all"-candidate ranking holds
_RANK_BLOCK_BYTES = 8 * 2**20


def _rank_against_all(x, y, p, graph, exclude_self):
    """Per positive: negatives above it, negatives at least it, and negatives, over every allowed target.

    The positive's own score is read from the same matrix product as its negatives', so equal
    scores compare equal whatever BLAS's order of summation."""
    n_rows, n = x.shape[0], y.shape[0]
    known = _known_matrix(graph, x.shape[0], n)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    height = max(1, _RANK_BLOCK_BYTES // (8 * n))
    above = np.empty(len(p), dtype=np.int64)
    at_least = np.empty(len(p), dtype=np.int64)
    counts = np.empty(len(p), dtype=np.int64)
    for a in range(0, len(p), height):
        b = min(len(p), a + height)
        u, v = p[a:b, 0], p[a:b, 1]
        s = x[u] @ y.T
        r = np.arange(b - a)
        pos = s[r, v]
        allowed = np.ones(s.shape, dtype=bool)
        if known is not None:
            allowed[known[u].toarray()] = False
        allowed[r, v] = False
        if exclude_self:
            allowed[r, u] = False
        above[a:b] = ((s > pos[:, None]) & allowed).sum(axis=1)
        at_least[a:b] = ((s >= pos[:, None]) & allowed).sum(axis=1)
        counts[a:b] = allowed.sum(axis=1)
    if counts.min() < 1:
        i = int(np.argmin(counts))
        raise ValueError(f"positives: source {int(p[i, 0])} (row {i}) has no target left to be a negative")
    return above, at_least, counts
