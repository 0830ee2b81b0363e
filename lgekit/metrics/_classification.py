"""Node classification: Micro- and Macro-F1 of one-vs-rest logistic regression on the embedding (the DeepWalk
``scoring.py`` protocol), its splits, and the same F1 as a scikit-learn scorer."""
import logging
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier

from .._random import check_random_state
from .._validation import InvalidParameterError, Interval, Options, validate_arguments, validate_params
from ..datasets import as_labels
from ._embedding import check_embedding

__all__ = ["node_classification_f1", "NodeClassificationSplit", "node_classification_split", "top_k_f1",
           "top_k_f1_scorer", "TopKF1Scorer"]

logger = logging.getLogger(__name__)

_STRATEGIES = ("topk", "threshold")
_RATIO = [Interval(Real, 0, 1, closed="neither")]


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
