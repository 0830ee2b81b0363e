r"""Node embeddings as per-node features: the transductive route to scikit-learn's model selection.

An embedding model is fitted on a *graph*; scikit-learn's splitters cut ``X``
into samples.  :class:`NodeEmbedding` reconciles the two the way DeepWalk
evaluates node classification: the graph is a parameter, ``X`` holds node ids,
``fit`` embeds the whole graph (without labels: the embedding never sees
``y``), and ``transform(ids)`` returns the rows of those nodes.  Each
training fold of a ``GridSearchCV`` then sees the same embedding of one
parameter setting, and the classifier after it learns from that fold's
labels only.
"""
import hashlib
from collections import OrderedDict

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from ..datasets import as_graph
from ..graph import Graph
from ._base import BaseEmbedding, model_is_non_deterministic
from .logistic import LogisticEmbedding

__all__ = ["NodeEmbedding"]

# fitted models by (graph content, model class, parameters): the k folds of one setting train once
_CACHE = OrderedDict()
_CACHE_STATS = {"hits": 0, "misses": 0}
#: how many fitted models the cache keeps (least recently used first out); one per grid point of a search
CACHE_SIZE = 16

_TABLES = ("embedding", "context", "both")


def _graph_fingerprint(graph):
    """A digest of everything a fit reads from ``graph``: kind, sides, adjacency, weights and node ids.

    scikit-learn's ``clone`` deep-copies a parameter that is not an estimator,
    so the graph of a clone is an equal object, not the same one: the cache
    must recognise it by content.  (Hashing BlogCatalog's 667,970 CSR entries
    takes milliseconds; a fit takes seconds.)
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{graph.kind}|{graph.n_left}|{graph.n_nodes}|{graph.is_weighted}".encode())
    for array in (graph.indptr, graph.indices) + ((graph.weights,) if graph.is_weighted else ()):
        digest.update(np.ascontiguousarray(array).tobytes())
    ids = np.asarray(graph.node_ids)
    # object ids (mixed types) hashed by their repr: 1 and "1" differ, as they do as nodes
    digest.update(ids.tobytes() if ids.dtype.kind in "iuU" else repr(ids.tolist()).encode())
    return digest.hexdigest()


def _cache_key(model, graph):
    """The cache key of fitting ``model`` on ``graph``, or None when the fit is not reproducible.

    Only a fit seeded by an int is meant to be the same fit twice: with
    ``random_state`` None or a ``Generator`` every fit draws anew, and caching
    it would hide that.  A seeded fit on ``n_threads > 1`` with the
    ``"hogwild"`` or ``"blocks"`` schedule is cached too: two runs of it differ
    only by the threads' races, and the cache makes the folds of one grid
    point, and ``best_estimator_``'s refit, use the one embedding that was
    scored.
    """
    params = model.get_params(deep=False)
    seed = params.get("random_state")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        return None
    fixed = tuple(sorted((name, repr(value)) for name, value in params.items() if name != "verbose"))
    return (_graph_fingerprint(graph), f"{type(model).__module__}.{type(model).__qualname__}", fixed)


def _ids_non_negative(graph):
    """Whether every node id of ``graph`` is an integer >= 0 (scikit-learn's ``positive_only`` input tag).

    Decided for a Graph or a split as given (its ids are at hand); another form would have to be read
    first, so its tag stays False (the scikit-learn default) and a negative id is refused as any unknown id.
    """
    graph = getattr(graph, "graph", graph) if not isinstance(graph, Graph) else graph
    if not isinstance(graph, Graph):
        return False
    ids = np.asarray(graph.node_ids)
    return bool(ids.dtype.kind == "u" or (ids.dtype.kind == "i" and (ids.size == 0 or ids.min() >= 0)))


class NodeEmbedding(TransformerMixin, BaseEstimator):
    r"""The embedding of one graph as features of its nodes, for scikit-learn's model selection.

    ``fit`` trains ``model`` on the whole ``graph`` (the labels ``y`` are not
    used); ``transform(X)`` returns the embedding rows of the node ids in
    ``X`` (one column of ids, or several side by side: see "X" below).
    With ``X`` a column of node ids and ``y`` their labels, a
    :class:`~sklearn.pipeline.Pipeline` of a ``NodeEmbedding`` and a
    classifier is an ordinary supervised estimator, so ``GridSearchCV``,
    ``cross_val_score`` and the other model-selection tools split the
    *labelled nodes*, not the graph: DeepWalk's protocol (Perozzi et al.
    2014, Section 6.1), where the representation is learnt once from the
    unlabelled graph and only the classifier sees the training labels.

    Parameters
    ----------
    model : BaseEmbedding or None, default None
        The unfitted estimator to train (``LogisticEmbedding`` or
        ``HingeEmbedding``); it is cloned, never fitted in place.  None:
        ``LogisticEmbedding()`` with its defaults.  Its parameters are
        reachable as ``model__<name>``, e.g. ``{"nodeembedding__model__lam_r":
        [0.1, 0.3, 1.0]}`` in a grid over a pipeline.
    graph : lgekit.Graph, or any form of :func:`lgekit.datasets.as_graph`
        The graph whose nodes ``X`` names (a path, an edge array, a
        DataFrame, networkx, scipy are read at ``fit``).  Required at ``fit`` (None is
        accepted by the constructor so that ``clone`` and ``get_params`` work
        as scikit-learn expects).
    table : {"embedding", "context", "both"}, default "embedding"
        Which vectors a node's features are, for a directed graph: its
        source (out-) vector (``embedding_``), its target (in-) vector
        (``context_embedding_``), or both side by side (``2 * dim``
        features).  A bipartite graph: ``"embedding"`` for left node ids,
        ``"context"`` for right node ids.  An undirected graph has one table:
        only ``"embedding"``.
    cache : bool, default True
        Reuse a fitted model when the same parameters (``random_state`` an
        int) meet a graph with the same content: the folds of one grid point
        train once, and ``GridSearchCV``'s refit of the best point returns
        the embedding it scored.  This holds on any number of threads: a
        seeded fit with ``n_threads > 1`` and a racing schedule
        (``"hogwild"``, ``"blocks"``), which is not reproducible, is cached
        too, so within this process its folds share one embedding (another
        process trains its own, which differs).  With ``random_state`` None
        or a Generator nothing is cached (each fit is meant to draw anew).
        The cache lives in this process (``GridSearchCV(..., n_jobs=k)``
        workers each keep their own) and holds the last ``CACHE_SIZE`` fits;
        :meth:`clear_cache` empties it.

    Attributes
    ----------
    graph_ : lgekit.Graph
        ``graph`` as read by :func:`lgekit.datasets.as_graph`.
    model_ : BaseEmbedding
        The fitted model (shared with the cache: treat it as read-only).
    n_features_out_ : int
        Columns of :meth:`transform`'s output: ``n_features_in_`` times
        ``dim`` (``2 * dim`` with ``table="both"``).
    n_features_in_ : int
        Columns of node ids in the ``X`` of ``fit`` (1 for a sequence).
    feature_names_in_ : ndarray of str
        Their names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    lgekit.metrics.node_classification_f1 : the paper's protocol on a fitted embedding (one-vs-rest,
        top-k predictions).
    lgekit.metrics.top_k_f1_scorer : the same protocol as a ``scoring=`` of ``GridSearchCV``.

    Notes
    -----
    The embedding is transductive: it sees every node and every edge,
    including those of the test fold's nodes, but never a label, so the
    classifier's score is not inflated by the labels; this is how the
    node-classification results of DeepWalk, LINE and the paper are
    computed.  Link prediction needs a held-out *edge* set instead: use
    :func:`lgekit.split_edges` and the estimator's ``score``.

    **X.**  A sequence of node ids is one column; a 2-D ``X`` (or a
    DataFrame) holds ``m`` columns of node ids, e.g. the two endpoints of an
    edge, and :meth:`transform` puts each column's rows side by side
    (columns named by :meth:`get_feature_names_out`, so that
    ``set_output(transform="pandas")`` and a ``ColumnTransformer`` that
    gives one column of ids to a ``NodeEmbedding`` and other columns to
    other transformers work).  Integer ids that arrive as floats (``3.0``,
    as in a float matrix or a pandas column with missing values elsewhere)
    are the integer ids of a graph whose ids are integers; NaN, infinity,
    complex numbers, empty and sparse ``X`` are refused with
    scikit-learn's messages.

    **scikit-learn's estimator checks.**  ``NodeEmbedding`` passes
    scikit-learn's own suite (``parametrize_with_checks``, run in
    ``tests/test_sklearn_estimator_checks.py``) but for the checks listed,
    with their reason, in :attr:`ESTIMATOR_CHECKS_EXPECTED_FAILURES`.  Its
    tags say that ``X`` holds node ids (``input_tags.categorical``: the
    suite then feeds small integers, which the checks' graph holds as
    nodes), that the output is float64 whatever the ids' dtype, that ``y``
    is not required, and ``non_deterministic`` when ``model`` races on
    threads (``n_threads > 1`` with a ``"hogwild"`` or ``"blocks"``
    schedule).

    **F1 scores.**  ``GridSearchCV(..., scoring="f1_micro")`` of a
    one-vs-rest classifier scores *thresholded* predictions: a node gets
    every label whose probability exceeds 0.5, often none on a multi-label
    graph with many rare labels (BlogCatalog: 39 labels, most nodes have 1
    or 2, and few labels reach 0.5 for a node), so recall collapses and the
    score is far below the paper's.  DeepWalk's protocol, which the paper
    and :func:`lgekit.metrics.node_classification_f1` follow, predicts for
    each test node its ``k`` most probable labels, ``k`` its true number of
    labels: every node gets as many labels as it has, and only their choice
    is scored.  Pass ``scoring=lgekit.metrics.top_k_f1_scorer("micro")`` (or
    ``"macro"``) to select by the paper's number; with the same split and
    classifier it equals ``node_classification_f1`` (both figures on
    BlogCatalog: ``benchmarks/README.md``, "scikit-learn").

    Cost: one fit of ``model`` per distinct parameter setting (a cached
    setting costs a content hash of the graph, :math:`O(|E|)`), and
    :math:`O(k \cdot dim)` per ``transform`` of ``k`` ids.

    References
    ----------
    .. [1] B. Perozzi, R. Al-Rfou, S. Skiena, "DeepWalk: Online Learning of
       Social Representations", KDD 2014, Section 6.1 (the embedding is
       learnt from the whole graph; a one-vs-rest logistic regression is
       trained on a fraction of the labelled nodes).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from sklearn.pipeline import make_pipeline
    >>> from lgekit import LogisticEmbedding
    >>> from lgekit.datasets import planted_partition_graph
    >>> from lgekit.models.transductive import NodeEmbedding
    >>> g = planted_partition_graph(n_nodes=120, n_labels=3, seed=0)
    >>> y = np.asarray(g.labels.argmax(axis=1)).ravel()       # one label per node
    >>> pipe = make_pipeline(NodeEmbedding(LogisticEmbedding(dim=8, epochs=5, random_state=0), graph=g),
    ...                      LogisticRegression())
    >>> grid = {"nodeembedding__model__lam_r": [0.1, 1.0]}
    >>> search = GridSearchCV(pipe, grid, cv=KFold(3, shuffle=True, random_state=0))
    >>> search.fit(g.node_ids.reshape(-1, 1), y).best_params_.keys()
    dict_keys(['nodeembedding__model__lam_r'])
    """

    #: scikit-learn's estimator checks that cannot apply, with the reason (``parametrize_with_checks``'s
    #: ``expected_failed_checks``; any other failing check is a bug)
    ESTIMATOR_CHECKS_EXPECTED_FAILURES = {
        "check_fit2d_predict1d": "a 1-D X is a sequence of node ids, one per sample (what GridSearchCV and "
                                 "cross_val_score hand over for a column of ids), not one sample's features: it "
                                 "is transformed, not refused with 'Reshape your data'",
    }

    def __init__(self, model=None, graph=None, *, table="embedding", cache=True):
        self.model = model
        self.graph = graph
        self.table = table
        self.cache = cache

    def _check_params(self):
        if self.model is not None and not isinstance(self.model, BaseEmbedding):
            raise TypeError(f"model must be an lgekit embedding estimator (LogisticEmbedding, HingeEmbedding) or "
                            f"None, got {type(self.model).__name__}")
        self.graph_ = as_graph(self.graph, "graph")
        if self.table not in _TABLES:
            raise ValueError(f"table must be one of {', '.join(map(repr, _TABLES))}, got {self.table!r}")
        kind = self.graph_.kind
        if kind == "undirected" and self.table != "embedding":
            raise ValueError(f"table={self.table!r}: an undirected graph's model has one table; use "
                             "table='embedding'")
        if kind == "bipartite" and self.table == "both":
            raise ValueError("table='both' needs a directed graph: a bipartite graph's left and right nodes have one "
                             "vector each (table='embedding' for left ids, 'context' for right ids)")
        if not isinstance(self.cache, (bool, np.bool_)):
            raise TypeError(f"cache must be a bool, got {self.cache!r}")

    def __sklearn_tags__(self):
        """scikit-learn's tags: a transformer of node-id columns (see "scikit-learn's estimator checks")."""
        tags = super().__sklearn_tags__()
        # X holds node ids: told they are categorical, the suite feeds small integers (rounded from its
        # float matrices), which the graph of tests/test_sklearn_estimator_checks.py holds as node ids
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        tags.input_tags.string = True
        # the output is float64 whatever the dtype of the ids
        tags.transformer_tags.preserves_dtype = []
        tags.requires_fit = True
        tags.target_tags.required = False
        tags.non_deterministic = model_is_non_deterministic(self.model)
        # a graph whose ids are all integers >= 0 has no node a negative number names: X must not hold one
        tags.input_tags.positive_only = _ids_non_negative(self.graph)
        return tags

    def fit(self, X=None, y=None):
        """Embed the whole graph (or take the cached embedding of the same setting).

        Parameters
        ----------
        X : array-like of node ids, shape (k,) or (k, m), or None
            The nodes of this training fold, one column of ids or ``m``
            (e.g. an edge's two endpoints); they must be nodes of ``graph``
            (checked), but the embedding is of the whole graph.  Sets
            ``n_features_in_`` (the columns: 1 for shape (k,)) and, for a
            DataFrame with string column names, ``feature_names_in_``.
        y : ignored
            The labels are the next step's business: the embedding never sees them.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            An id that is not a node of ``graph``; NaN or infinity; an empty
            ``X``; complex numbers (scikit-learn's messages).
        TypeError
            A sparse matrix (a graph is the ``graph`` parameter; ``X`` names
            its nodes).
        """
        self._check_params()
        for name in ("n_features_in_", "feature_names_in_"):
            self.__dict__.pop(name, None)
        if X is not None:
            self._ids(X, reset=True)    # a node id that is not in the graph is an error now, not at transform
        model = LogisticEmbedding() if self.model is None else self.model
        key = _cache_key(model, self.graph_) if self.cache else None
        if key is not None and key in _CACHE:
            _CACHE.move_to_end(key)
            _CACHE_STATS["hits"] += 1
            self.model_ = _CACHE[key]
        else:
            self.model_ = clone(model).fit(self.graph_)
            if key is not None:
                _CACHE_STATS["misses"] += 1
                _CACHE[key] = self.model_
                while len(_CACHE) > CACHE_SIZE:
                    _CACHE.popitem(last=False)
        self.n_features_out_ = self._width() * getattr(self, "n_features_in_", 1)
        return self

    def _width(self):
        """Columns of output per column of ids."""
        return self.model_.dim * (2 if self.table == "both" else 1)

    def _ids(self, X, reset=False):
        """``X`` as a 2-D array of node ids, one column per id of a sample: a sequence is one column.

        Validated as scikit-learn validates (its messages for sparse, complex, non-finite and empty
        input); ``reset`` sets ``n_features_in_``/``feature_names_in_``, else they are checked.
        """
        if not issparse(X) and not hasattr(X, "columns"):
            X = np.asarray(X)
            if X.ndim == 1:
                X = X.reshape(-1, 1)
        ids = validate_data(self, X, reset=reset, accept_sparse=False, dtype=None, ensure_all_finite=True,
                            ensure_min_samples=1, ensure_min_features=1)
        own = np.asarray(self.graph_.node_ids).dtype
        if own.kind in "iu" and ids.dtype.kind == "f" and np.all(np.mod(ids, 1) == 0):
            ids = ids.astype(np.int64)      # integer ids that arrived as floats (a float matrix, a pandas column)
        if ids.dtype.kind in "if" and ids.size and ids.min() < 0 and _ids_non_negative(self.graph_):
            raise ValueError(f"Negative values in data passed to NodeEmbedding: X holds node ids, and every node "
                             f"id of graph is an integer >= 0, got {ids.min().item()!r}")
        side = "right" if self.table == "context" and self.graph_.kind == "bipartite" else \
            "left" if self.graph_.kind == "bipartite" else None
        try:
            self.graph_.index_of(ids.ravel(), side=side)
        except (KeyError, ValueError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise ValueError(f"X: {message}") from None
        return ids

    def transform(self, X):
        """The embedding rows of the node ids in ``X``, float64.

        Parameters
        ----------
        X : array-like of node ids, shape (k,) or (k, m)
            ``m`` columns of ids (as many as at ``fit``).

        Returns
        -------
        ndarray of shape (k, ``n_features_out_``)
            Per column of ids, its rows side by side (see :meth:`get_feature_names_out`).
        """
        check_is_fitted(self)
        ids = self._ids(X)
        parts = []
        for column in ids.T:
            if self.table in ("embedding", "both"):
                parts.append(self.model_.transform(column))
            if self.table in ("context", "both"):
                parts.append(self.model_.transform(column, context=True))
        return np.hstack(parts).astype(np.float64, copy=False)

    def get_feature_names_out(self, input_features=None):
        """Names of :meth:`transform`'s columns: per input column ``c``, ``c_0 .. c_{dim-1}`` (its
        node's vector; for ``table="context"`` its context vector), and with ``table="both"`` also
        ``c_context0 ..`` after them.

        Parameters
        ----------
        input_features : array-like of str, optional
            The input columns' names; default ``feature_names_in_``, else ``x0, x1, ...``.

        Returns
        -------
        ndarray of str objects
        """
        check_is_fitted(self)
        n_in = getattr(self, "n_features_in_", 1)
        if input_features is None:
            input_features = getattr(self, "feature_names_in_", [f"x{i}" for i in range(n_in)])
        input_features = list(input_features)
        if len(input_features) != n_in:
            raise ValueError(f"input_features must have {n_in} names (the columns of X at fit), "
                             f"got {len(input_features)}")
        own = getattr(self, "feature_names_in_", None)
        if own is not None and list(own) != input_features:
            raise ValueError(f"input_features must equal feature_names_in_ {list(own)}, got {input_features}")
        dim = self.model_.dim
        names = []
        for feature in input_features:
            if self.table in ("embedding", "both"):
                names += [f"{feature}_{j}" for j in range(dim)]
            if self.table == "context":
                names += [f"{feature}_{j}" for j in range(dim)]
            if self.table == "both":
                names += [f"{feature}_context{j}" for j in range(dim)]
        return np.asarray(names, dtype=object)

    @staticmethod
    def clear_cache():
        """Forget every cached fit (and reset :meth:`cache_info`'s counts)."""
        _CACHE.clear()
        _CACHE_STATS.update(hits=0, misses=0)

    @staticmethod
    def cache_info():
        """``{"hits": ..., "misses": ..., "size": ...}``: fits reused, fits trained and cached, fits held now."""
        return {**_CACHE_STATS, "size": len(_CACHE)}
