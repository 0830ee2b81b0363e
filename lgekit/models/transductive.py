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
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import NotFittedError

from ..datasets import as_graph
from ._base import BaseEmbedding
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

    Only a fit seeded by an int is the same fit twice: with ``random_state``
    None or a ``Generator`` every fit draws anew, and caching it would hide
    that.  ``n_threads > 1`` with the ``"hogwild"`` or ``"blocks"``
    schedule is not reproducible either.
    """
    params = model.get_params(deep=False)
    seed = params.get("random_state")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        return None
    if params.get("n_threads", 1) != 1 and params.get("schedule") in ("hogwild", "blocks"):
        return None
    fixed = tuple(sorted((name, repr(value)) for name, value in params.items() if name != "verbose"))
    return (_graph_fingerprint(graph), f"{type(model).__module__}.{type(model).__qualname__}", fixed)


class NodeEmbedding(TransformerMixin, BaseEstimator):
    r"""The embedding of one graph as features of its nodes, for scikit-learn's model selection.

    ``fit`` trains ``model`` on the whole ``graph`` (the labels ``y`` are not
    used); ``transform(X)`` returns the embedding rows of the node ids in
    ``X``.  With ``X`` a column of node ids and ``y`` their labels, a
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
        train once.  The cache lives in this process (``GridSearchCV(...,
        n_jobs=k)`` workers each keep their own) and holds the last
        ``CACHE_SIZE`` fits; :meth:`clear_cache` empties it.

    Attributes
    ----------
    graph_ : lgekit.Graph
        ``graph`` as read by :func:`lgekit.datasets.as_graph`.
    model_ : BaseEmbedding
        The fitted model (shared with the cache: treat it as read-only).
    n_features_out_ : int
        Columns of :meth:`transform`'s output.

    See Also
    --------
    lgekit.metrics.node_classification_f1 : the paper's protocol on a fitted embedding (one-vs-rest,
        top-k predictions).

    Notes
    -----
    The embedding is transductive: it sees every node and every edge,
    including those of the test fold's nodes, but never a label, so the
    classifier's score is not inflated by the labels; this is how the
    node-classification results of DeepWalk, LINE and the paper are
    computed.  Link prediction needs a held-out *edge* set instead: use
    :func:`lgekit.split_edges` and the estimator's ``score``.

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

    def fit(self, X=None, y=None):
        """Embed the whole graph (or take the cached embedding of the same setting).

        Parameters
        ----------
        X : array-like of node ids, shape (k,) or (k, 1), or None
            The nodes of this training fold; they must be nodes of ``graph``
            (checked), but the embedding is of the whole graph.
        y : ignored
            The labels are the next step's business: the embedding never sees them.

        Returns
        -------
        self
        """
        self._check_params()
        if X is not None:
            self._ids(X)            # a node id that is not in the graph is an error now, not at transform
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
        self.n_features_out_ = self.model_.dim * (2 if self.table == "both" else 1)
        return self

    def _ids(self, X):
        """``X`` as a 1-D array of node ids: a sequence, or a one-column 2-D array (what splitters hand over)."""
        ids = np.asarray(X)
        if ids.ndim == 2 and ids.shape[1] == 1:
            ids = ids[:, 0]
        if ids.ndim != 1:
            raise ValueError(f"X must hold one node id per sample, shape (k,) or (k, 1), got shape {ids.shape}")
        side = "right" if self.table == "context" and self.graph_.kind == "bipartite" else \
            "left" if self.graph_.kind == "bipartite" else None
        try:
            self.graph_.index_of(ids, side=side)
        except (KeyError, ValueError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise ValueError(f"X: {message}") from None
        return ids

    def transform(self, X):
        """The embedding rows of the node ids in ``X``, shape (k, ``n_features_out_``), float64."""
        if not hasattr(self, "model_"):
            raise NotFittedError("this NodeEmbedding is not fitted yet; call fit first")
        ids = self._ids(X)
        if self.table == "both":
            parts = [self.model_.transform(ids), self.model_.transform(ids, context=True)]
            return np.hstack(parts).astype(np.float64, copy=False)
        return np.asarray(self.model_.transform(ids, context=self.table == "context"), dtype=np.float64)

    @staticmethod
    def clear_cache():
        """Forget every cached fit (and reset :meth:`cache_info`'s counts)."""
        _CACHE.clear()
        _CACHE_STATS.update(hits=0, misses=0)

    @staticmethod
    def cache_info():
        """``{"hits": ..., "misses": ..., "size": ...}``: fits reused, fits trained and cached, fits held now."""
        return {**_CACHE_STATS, "size": len(_CACHE)}
