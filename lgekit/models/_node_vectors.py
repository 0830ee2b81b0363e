"""The fitted vectors of an embedding model, keyed by node id, and what they answer: rows, scores, neighbours,
files.  Training (:mod:`._base`) writes them; this module only reads them (and :meth:`NodeVectors.load`
sets them from a model file)."""
import logging
import warnings

import numpy as np
from sklearn.exceptions import NotFittedError

from ..ids import concat_ids, node_id_query, node_positions
from ..metrics import average_precision, average_precision_from_scores
from ..neighbours import top_k_scores
from ._model_file import (CONTEXT_PREFIX, ModelFile, model_file_from_arrays, read_checked_npz, word2vec_names,
                          write_model_file, write_word2vec)
from ._training_data import TWO_TABLE_KINDS, TableLayout, graph_node_ids

__all__ = ["NodeVectors"]

logger = logging.getLogger(__name__)

_MISSING = object()


class NodeVectors:
    """The fitted vectors of an embedding model and what they answer, keyed by node id.

    Rows (:meth:`transform`, ``model[node]``), scores (:meth:`score_pairs`,
    :meth:`score`), neighbours (:meth:`most_similar`) and files
    (:meth:`save` and :meth:`load`, :meth:`to_word2vec`, :meth:`to_gensim`).

    gensim keeps a trained model's vectors in an object of their own
    (``Word2Vec.wv``, a ``KeyedVectors``); an lgekit estimator keeps them as
    fitted attributes, as scikit-learn's estimators do, and this class is the
    part of :class:`~lgekit.models.BaseEmbedding` that reads them:
    ``embedding_`` (and, for a directed or bipartite graph,
    ``context_embedding_``, both views of the one trained table),
    ``node_ids_`` (``context_node_ids_``), ``graph_kind_``, ``history_`` and
    ``n_iter_``.  Not for direct use: :meth:`load` builds the estimator a
    model file names (with its parameters, checked by its
    ``_validate_params``, and its solver's state, checked by its
    ``_solver_class``).
    """

    #: lgekit's own estimators by class name: the only classes :meth:`load` builds from a file's name
    _registry = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # only lgekit's own estimators (the classes that train: BaseEmbedding does not): a file must not name
        # (and so build) a class of any other code
        if cls.__module__.split(".")[0] == "lgekit" and getattr(cls, "_solver_class", None) is not None:
            NodeVectors._registry[cls.__name__] = cls

    # ------------------------------------------------------------------ the fitted table(s)
    def _check_fitted(self):
        if not hasattr(self, "embedding_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _is_two_table(self):
        return hasattr(self, "_table")

    def _forget(self, *names):
        """Remove those of the attributes ``names`` that are set (what the model no longer has)."""
        for name in names:
            vars(self).pop(name, None)

    def _training_table(self):
        """The array the solver trains: ``embedding_`` itself (undirected graph), or the stacked table
        whose first ``n_source`` rows are ``embedding_`` and the rest ``context_embedding_``."""
        table = getattr(self, "_table", None)
        return self.embedding_ if table is None else table

    def _set_table(self, table, layout=_MISSING):
        """Bind the trained ``table``: for one table ``embedding_ = table``; for two, ``embedding_`` and
        ``context_embedding_`` become views of its rows.  ``layout`` (a :class:`TableLayout`, or None
        for one table) changes the split; by default the fitted one is kept."""
        if layout is _MISSING:   # keep the fitted split
            kind = getattr(self, "graph_kind_", "undirected")
            n_source = getattr(self, "_n_source", None)
        else:
            kind = "undirected" if layout is None else layout.kind
            n_source = None if layout is None else layout.n_source
        if kind not in TWO_TABLE_KINDS:
            self._forget("_table", "_n_source", "context_embedding_")
            self.embedding_ = table
        else:
            self._table, self._n_source = table, int(n_source)
            # row slices of a C-contiguous array are C-contiguous views: the solver's updates show in both
            self.embedding_ = table[:n_source]
            self.context_embedding_ = table[n_source:]
        self.graph_kind_ = kind

    # ------------------------------------------------------------------ rows, scores, neighbours, files
    def _side(self, context):
        """(table, ids, side name) of the source/left side (``context`` False) or the target/right side."""
        if not context:
            return self.embedding_, self.node_ids_, "source"
        if not self._is_two_table():
            raise ValueError(f"context=True: this {type(self).__name__} was fitted on an undirected graph and has "
                             "one table (embedding_); context vectors exist for directed and bipartite graphs")
        return self.context_embedding_, self.context_node_ids_, "target"

    def _node_array(self, nodes, ndim, index):
        """``nodes`` as an array of ``ndim`` dimensions; with object node ids (mixed types, tuples) the
        outer sequence is taken element by element, so that a tuple id stays one id instead of
        becoming an axis and ``[1, "1"]`` stays an int and a str."""
        kinds = {np.asarray(self.node_ids_).dtype.kind}
        if self._is_two_table():
            kinds.add(np.asarray(self.context_node_ids_).dtype.kind)
        if index or isinstance(nodes, np.ndarray) or "O" not in kinds:
            return np.asarray(nodes)
        outer = list(nodes)
        if ndim == 2:
            outer = [list(pair) if isinstance(pair, (list, tuple, np.ndarray)) else [pair] for pair in outer]
            if any(len(pair) != 2 for pair in outer):
                raise ValueError(f"pairs must have shape (k, 2), got rows of lengths "
                                 f"{sorted({len(p) for p in outer})}")
            out = np.empty((len(outer), 2), dtype=object)
            for i, (u, v) in enumerate(outer):
                out[i, 0], out[i, 1] = u, v
            return out
        out = np.empty(len(outer), dtype=object)
        for i, value in enumerate(outer):
            out[i] = value
        return out

    def _rows(self, nodes, index, what, context=False):
        """Row indices of ``nodes`` (ids, or indices with ``index``) in ``embedding_`` or, with
        ``context``, in ``context_embedding_``."""
        table, ids, side = self._side(context)
        # ids beyond int64 or of mixed types stay exact (np.asarray would round or stringify them)
        nodes = np.asarray(nodes) if index else node_id_query(nodes)
        n = table.shape[0]
        if index:
            if nodes.dtype.kind not in "iu":
                raise TypeError(f"{what}: with index=True nodes must be integer indices, got dtype {nodes.dtype}")
            if nodes.size and (nodes.min() < 0 or nodes.max() >= n):
                raise ValueError(f"{what}: indices must lie in [0, {n}), got values in [{nodes.min()}, {nodes.max()}]")
            return nodes.astype(np.int64)
        if self._id_lookup is None:
            self._id_lookup = {}
        if side not in self._id_lookup:
            ids = np.asarray(ids)
            self._id_lookup[side] = (ids, None if ids.dtype.kind == "O" else np.argsort(ids, kind="stable"))
        ids, sorter = self._id_lookup[side]
        return node_positions(nodes, ids, sorter, what)

    def _graph_node_ids(self, X, context=False):
        """The node ids of a graph-like ``X`` in its node order, or None when ``X`` is not one.  For a
        bipartite graph and a bipartite model: the ids of one side (the right side with ``context``)."""
        side = None
        if getattr(self, "graph_kind_", None) == "bipartite":
            side = "right" if context else "left"
        return graph_node_ids(X, side)

    def transform(self, X=None, *, index=False, context=False):
        """Embedding rows of the nodes of ``X``.

        Parameters
        ----------
        X : None, graph, sequence of node ids, or one node id
            ``None``: a copy of the whole embedding.  A graph (an
            :class:`lgekit.Graph`, an ``EdgeSplit``, a networkx graph or a
            scipy sparse adjacency matrix, whose nodes are ``0..n-1``): the
            rows of its nodes in its node order, so that in a scikit-learn
            ``Pipeline`` ``transform(graph)`` gives one row per node, aligned
            with per-node labels.  A sequence of node ids (internal indices
            with ``index=True``): their rows.  With ids of mixed types the
            types count: ``1`` and ``"1"`` are two nodes; a tuple in the
            sequence is one (tuple) id.
        index : bool, default False
        context : bool, default False
            Models of directed and bipartite graphs have two tables.  False:
            rows of ``embedding_``, the source (out-) vectors of a directed
            graph, the left nodes' vectors of a bipartite one.  True: rows of
            ``context_embedding_``, the target (in-) vectors, the right
            nodes' vectors (ids and indices then name right nodes; a
            bipartite graph as ``X`` gives its right nodes' rows).  An
            undirected model has no context table: ValueError.

        Returns
        -------
        ndarray of shape (k, dim), or (dim,) for one id

        Raises
        ------
        KeyError
            For an id that is not a node of the fitted model (of that side).
        ValueError
            ``context=True`` on a model of an undirected graph.
        """
        self._check_fitted()
        table, own, _ = self._side(context)
        if X is None:
            return table.copy()
        if not index:
            ids = self._graph_node_ids(X, context)
            if ids is not None:
                own = np.asarray(own)
                if ids.shape == own.shape and ids.dtype == own.dtype and np.array_equal(ids, own):
                    return table.copy()     # the training graph: every row, in order
                return table[self._rows(ids, False, "transform", context)]
        if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
            X = np.asarray(X)  # one id
        else:
            X = self._node_array(X, 1, index)
        return table[self._rows(X, index, "transform", context)]

    def score(self, X, y=None):
        """Test average precision of the embedding on a link-prediction split.

        Parameters
        ----------
        X : EdgeSplit
            From :func:`lgekit.split_edges` (on the graph the model was fitted
            on, or a split of it): its ``test_positives`` are ranked against
            its ``test_negatives`` by :math:`x_u \\cdot x_v` (by
            :math:`x_u \\cdot y_v`, ``embedding_[u] . context_embedding_[v]``,
            for a directed or bipartite graph).
        y : ignored

        Returns
        -------
        float
            :func:`lgekit.metrics.average_precision` of the test pairs (higher
            is better; about ``1 / (1 + r)`` for a random embedding with ``r``
            negatives per positive).

        Raises
        ------
        TypeError
            When ``X`` is not an ``EdgeSplit``.
        ValueError
            When the split's nodes (or kind) are not the model's.
        """
        self._check_fitted()
        if not all(hasattr(X, a) for a in ("test_positives", "test_negatives", "graph")):
            raise TypeError(f"X must be an EdgeSplit (from lgekit.split_edges) whose test pairs are scored, "
                            f"got {type(X).__name__}")
        n = self._training_table().shape[0]
        kind = X.graph.kind
        fitted = getattr(self, "graph_kind_", "undirected")
        if kind != fitted and (kind in TWO_TABLE_KINDS or fitted in TWO_TABLE_KINDS):
            raise ValueError(f"X: the split's graph is {kind} but the model was fitted on a {fitted} graph")
        layout = TableLayout.of(X.graph)
        ids = np.asarray(X.graph.node_ids if layout is None else layout.row_ids)
        own = np.asarray(self.node_ids_ if layout is None else concat_ids(self.node_ids_, self.context_node_ids_))
        if ids.shape != own.shape or not np.array_equal(ids, own):
            raise ValueError(f"X: the split's graph has {len(ids)} nodes that are not the {n} nodes the model "
                             "was fitted on, in the same order; score a split of the fitted graph")
        if layout is None:
            return float(average_precision(self.embedding_, X.test_positives, X.test_negatives))
        table = self._training_table()

        def scores(pairs):
            rows = layout.table_pairs(pairs, "test pairs")
            return np.einsum("ij,ij->i", table[rows[:, 0]], table[rows[:, 1]], dtype=np.float64)

        return float(average_precision_from_scores(scores(X.test_positives), scores(X.test_negatives)))

    def score_pairs(self, pairs, *, index=False):
        """Scores of node pairs, shape (k, 2) of node ids (indices with ``index=True``), in float64.

        Undirected graph: :math:`x_u \\cdot x_v`.  Directed graph: pairs are
        (source, target) and the score :math:`x_u \\cdot y_v`,
        ``embedding_[u] . context_embedding_[v]``, so ``(u, v)`` and
        ``(v, u)`` score differently.  Bipartite graph: pairs are (left id,
        right id), each looked up among its own side's ids (indices with
        ``index=True`` count from 0 within each side).
        """
        self._check_fitted()
        pairs = self._node_array(pairs, 2, index)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError(f"pairs must have shape (k, 2), got {pairs.shape}")
        if not self._is_two_table():
            rows = self._rows(pairs, index, "score_pairs")
            emb = self.embedding_
            return np.einsum("ij,ij->i", emb[rows[:, 0]], emb[rows[:, 1]], dtype=np.float64)
        sources = self._rows(pairs[:, 0], index, "score_pairs (sources / left nodes)")
        targets = self._rows(pairs[:, 1], index, "score_pairs (targets / right nodes)", context=True)
        return np.einsum("ij,ij->i", self.embedding_[sources], self.context_embedding_[targets], dtype=np.float64)

    def most_similar(self, node=None, k=10, *, by="score", direction=None, index=False, topn=None, positive=None,
                     negative=None):
        """The ``k`` nodes that score highest with ``node``: its nearest neighbours in the embedding.

        Parameters
        ----------
        node : node id, or a sequence of them
            Node ids as the graph gave them (internal row indices with
            ``index=True``); a sequence asks for each of its nodes (a tuple
            is a sequence, as in :meth:`transform`).  Leave it out to give
            ``positive`` / ``negative`` instead.
        k : int >= 1, default 10
        topn : int >= 1, optional
            gensim's name for ``k`` (``KeyedVectors.most_similar(..., topn=)``).
        positive, negative : node id or list of node ids, optional
            gensim's combined query: one query vector, the mean of the
            ``positive`` nodes' vectors minus the ``negative`` ones' (each
            first scaled to unit length with ``by="cosine"``, as gensim does,
            so the answer is gensim's; the raw vectors with ``by="score"``,
            whose scores are then the mean of the nodes' own scores), and
            none of them among the answers.  Returns one ``(ids, scores)``
            pair.
        by : {"score", "cosine"}, default "score"
            ``"score"``: the model's own score, the one :meth:`score_pairs`
            gives (:math:`x_u \\cdot x_v`, or :math:`x_u \\cdot y_v` for two
            tables); ``"cosine"``: the cosine of the same two vectors, which
            ignores their norms (the score grows with them; the paper's
            point is that norms matter).
        direction : {None, "out", "in"}
            An undirected model has one table: leave it None.  A model of a
            directed graph needs it: ``"out"`` ranks the targets ``v`` of arcs
            ``node -> v`` by :math:`x_{node} \\cdot y_v`; ``"in"`` ranks the
            sources ``w`` of arcs ``w -> node`` by :math:`x_w \\cdot y_{node}`.
            A bipartite model: ``"out"`` takes a left node and ranks right
            nodes, ``"in"`` takes a right node and ranks left ones.
        index : bool, default False

        Returns
        -------
        ids : ndarray (k,), or (len(node), k) for a sequence
            Node ids (row indices with ``index=True``), best first; of equal
            scores the node earlier in the model's node order comes first.
            The query node itself is never among them (on a bipartite graph
            the candidates are the other side's nodes).
        scores : float64 ndarray of the same shape

        Raises
        ------
        KeyError
            An id that is not a node of the model (of the query's side).
        ValueError
            A bad ``k`` (above the number of candidates), ``by`` or
            ``direction`` (missing for two tables, given for one).

        Notes
        -----
        :func:`lgekit.neighbours.top_k_scores` scores blocks of candidates
        with BLAS (on its threads) and keeps a running top ``k``, so memory
        stays bounded on graphs too large for an ``n x n`` product.  Cost
        :math:`O(\\text{len(node)} \\cdot n \\cdot dim)`.
        """
        self._check_fitted()
        if topn is not None:
            if k != 10 and k != topn:
                raise ValueError(f"k={k} and topn={topn}: topn is gensim's name for k; give one of them")
            k = topn
        if positive is not None or negative is not None:
            if node is not None:
                raise ValueError("node and positive/negative: give either node (one query per node) or positive= "
                                 "and negative= (one combined query, gensim's)")
            return self._combined_most_similar(positive, negative, k, by, direction, index)
        if node is None:
            raise TypeError("most_similar needs node, or positive= / negative=")
        query_side, candidate_side = self._query_sides(direction)
        one = isinstance(node, (str, bytes)) or not hasattr(node, "__iter__")
        rows = self._rows(self._node_array([node] if one else node, 1, index), index, "most_similar", query_side)
        queries = self._side(query_side)[0][rows]
        candidates, ids, _ = self._side(candidate_side)
        # one node set on both sides (undirected, directed): the query node is not its own neighbour
        exclude = None if getattr(self, "graph_kind_", None) == "bipartite" else rows
        found, scores = top_k_scores(queries, candidates, k, exclude=exclude, by=by)
        found = found if index else np.asarray(ids)[found]
        return (found[0], scores[0]) if one else (found, scores)

    def _query_sides(self, direction):
        """(query side, candidate side) of :meth:`most_similar`: False the embedding_, True the context table."""
        if not self._is_two_table():
            if direction is not None:
                raise ValueError(f"direction={direction!r}: this {type(self).__name__} was fitted on an undirected "
                                 "graph, whose one table scores x_u . x_v both ways; leave direction out (None)")
            query_side = candidate_side = False
        elif direction in ("out", "in"):
            query_side, candidate_side = direction == "in", direction == "out"
        else:
            raise ValueError(f"direction must be 'out' (node -> v, x_node . y_v) or 'in' (w -> node, x_w . y_node) "
                             f"for a model of a {self.graph_kind_} graph, got {direction!r}")
        return query_side, candidate_side

    # ---- the names other embedding libraries use (gensim's KeyedVectors, karateclub), where they cost nothing
    def _combined_most_similar(self, positive, negative, k, by, direction, index):
        """gensim's ``most_similar(positive=, negative=)``: one query, the weighted mean of the nodes' vectors."""
        query_side, candidate_side = self._query_sides(direction)
        as_list = lambda x: [] if x is None else [x] if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__") \
            else list(x)  # noqa: E731
        pos, neg = as_list(positive), as_list(negative)
        if not pos and not neg:
            raise ValueError("positive and negative are both empty: give at least one node")
        rows = self._rows(self._node_array(pos + neg, 1, index), index, "most_similar", query_side)
        table = self._side(query_side)[0]
        vectors = np.asarray(table[rows], dtype=np.float64)
        if by == "cosine":      # gensim's pre_normalize: each node's unit vector (a zero vector stays zero)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms > 0, norms, 1.0)
        weights = np.r_[np.ones(len(pos)), -np.ones(len(neg))]
        query = (weights @ vectors / len(weights))[None, :]
        candidates, ids, _ = self._side(candidate_side)
        same_set = getattr(self, "graph_kind_", None) != "bipartite" or query_side == candidate_side
        given = np.unique(rows) if same_set else np.empty(0, dtype=np.int64)
        found, scores = top_k_scores(query, candidates, min(k + len(given), candidates.shape[0]), by=by)
        keep = ~np.isin(found[0], given)
        if keep.sum() < k:
            raise ValueError(f"k={k} exceeds the {int(keep.sum())} candidates left besides the query's nodes")
        found, scores = found[0][keep][:k], scores[0][keep][:k]
        return (found if index else np.asarray(ids)[found]), scores

    def __getitem__(self, node):
        """The vector of node ``node`` (a row of ``embedding_``), or the rows of a list of ids: gensim's
        ``KeyedVectors[key]``.  ``model.transform(ids)`` is the same with its options."""
        return self.transform(node)

    def get_embedding(self):
        """A copy of ``embedding_``, one row per node in the model's node order: karateclub's name."""
        self._check_fitted()
        return np.array(self.embedding_, copy=True)

    def to_gensim(self):
        """The embedding as a gensim ``KeyedVectors``, keyed as :meth:`to_word2vec` names the rows.

        Needs gensim (not an lgekit dependency).  The keys are the node ids as
        text (a two-table model adds ``"context:<id>"`` keys for its context
        rows), the vectors float32 as in gensim; ``kv.most_similar(key,
        topn=k)`` ranks by cosine, as :meth:`most_similar` with
        ``by="cosine"`` does.

        Raises
        ------
        ImportError
            gensim is not installed (``pip install gensim``).
        """
        try:
            from gensim.models import KeyedVectors  # optional: gensim is no lgekit dependency, and slow to import
        except ImportError:
            raise ImportError("to_gensim needs gensim, which lgekit does not depend on: pip install gensim") from None
        self._check_fitted()
        two_tables = self._is_two_table()
        names = word2vec_names(self.node_ids_, self.context_node_ids_ if two_tables else None, CONTEXT_PREFIX)
        table = np.asarray(self._training_table(), dtype=np.float32)
        kv = KeyedVectors(vector_size=table.shape[1], count=0, dtype=np.float32)
        kv.add_vectors(list(names), table)
        return kv

    # ------------------------------------------------------------------ files
    def _params_for_save(self):
        params = {}
        for key, value in self.get_params(deep=False).items():
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, np.dtype) or isinstance(value, type):
                value = np.dtype(value).name
            if key == "random_state" and not (value is None or isinstance(value, int)):
                value = None  # a Generator cannot be stored; a loaded model gets fresh entropy
            params[key] = value
        return params

    def save(self, path):
        """Save the fitted model to an ``.npz`` file (atomically); read it back with :meth:`load`.

        Stores the embedding(s), node ids, parameters, history, class and
        the solver's state (see :mod:`lgekit.models._model_file` for the
        format).  Node ids keep their types: ``1`` and ``"1"`` stay two ids
        and ``(1, "a")`` stays a tuple.

        Raises
        ------
        ValueError
            If a node id is of a type the file cannot hold (ints, floats,
            strs, bools, None and tuples of them are held).
        """
        self._check_fitted()
        two_tables = self._is_two_table()
        solver = getattr(self, "solver_", None)
        state = solver.state() if solver is not None else dict(getattr(self, "_loaded_state", None) or {})
        return write_model_file(path, ModelFile(
            class_name=self._model_file_class_name(), params=self._params_for_save(), history=self.history_,
            n_iter=self.n_iter_, kernel_seed=getattr(self, "_kernel_seed", 0), graph_kind=self.graph_kind_,
            embedding=self.embedding_, node_ids=self.node_ids_,
            context_embedding=self.context_embedding_ if two_tables else None,
            context_node_ids=self.context_node_ids_ if two_tables else None, solver_state=state,
            early_stopping=self._early_stopping_state()))

    def _model_file_class_name(self):
        """The class a model file names (the one :meth:`load` builds)."""
        return type(self).__name__

    def _early_stopping_state(self):
        """What a model file keeps of early stopping (None when the model has nothing of it)."""
        state = {"validation_seed": getattr(self, "_validation_seed", None)}
        if hasattr(self, "validation_scores_"):
            state.update(best_iteration=self.best_iteration_, best_validation_score=self.best_validation_score_,
                         validation_scores=[float(v) for v in self.validation_scores_])
        return state if any(v is not None for v in state.values()) else None

    @classmethod
    def load(cls, path):
        """Load a model saved by :meth:`save`; returns an instance of the stored class.

        The stored class name is looked up among lgekit's own estimators
        (``LogisticEmbedding``, ``HingeEmbedding``; or ``cls`` itself), never
        imported; no pickle is ever read.  Every array's shape and dtype and
        every metadata field is checked before the model is built.

        Raises
        ------
        TypeError
            When the file holds a model that is not a ``cls``.
        ValueError
            When the file is not an lgekit model file, or is truncated,
            corrupted or inconsistent (the message names the file).
        FileNotFoundError, PermissionError
            When the file cannot be opened.
        """
        return cls._from_arrays(read_checked_npz(path), path)

    @classmethod
    def _from_arrays(cls, arrays, path):
        """The model held by the arrays of a model file (read by ``read_checked_npz``); see :meth:`load`."""
        mf = model_file_from_arrays(arrays, path)
        name = mf.class_name
        if name in (cls.__name__, f"{cls.__module__}:{cls.__qualname__}"):
            target = cls             # named by the caller's own code, not by the file
        else:
            target = NodeVectors._registry.get(name)
            if target is None:
                raise ValueError(f"{path}: unknown model class {name[:200]!r}; model files hold one of lgekit's "
                                 f"estimators ({', '.join(sorted(NodeVectors._registry))})")
        if not issubclass(target, cls):
            raise TypeError(f"{path} holds a {target.__name__}, not a {cls.__name__}")
        accepted = set(target._get_param_names())
        dropped = sorted(set(mf.params) - accepted)
        if dropped:
            logger.warning("%s: ignoring unknown parameters %s", path, dropped)
        model = target(**{k: v for k, v in mf.params.items() if k in accepted})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # e.g. "no OpenMP": about fitting, not about this file
            try:
                model._validate_params()
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{path}: invalid stored parameter: {exc}") from None
        embedding = mf.embedding
        if embedding.shape[1] != model.dim:
            raise ValueError(f"{path}: 'embedding' must have shape (n_nodes >= 1, dim={model.dim}), "
                             f"got {embedding.shape}")
        if embedding.dtype != model._dtype:
            raise ValueError(f"{path}: 'embedding' must have the stored dtype {model._dtype.name}, "
                             f"got {embedding.dtype}")
        table, layout = np.ascontiguousarray(embedding), None
        if mf.context_embedding is not None:
            # one stacked table again, as the solver trains it (rows: sources / left, then targets / right)
            table = np.concatenate([embedding, mf.context_embedding])
            n = embedding.shape[0]
            layout = TableLayout(mf.graph_kind, n, mf.context_embedding.shape[0], mf.node_ids, mf.context_node_ids,
                                 0 if mf.graph_kind == "directed" else n)
        try:
            target._solver_class.check_state(mf.solver_state)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        model._set_table(table, layout)
        model.node_ids_ = mf.node_ids
        if layout is not None:
            model.context_node_ids_ = mf.context_node_ids
        model.history_ = mf.history
        model.n_iter_ = mf.n_iter
        model._kernel_seed = mf.kernel_seed
        early = mf.early_stopping or {}
        if early.get("validation_seed") is not None:
            model._validation_seed = early["validation_seed"]
        if early.get("validation_scores") is not None:
            model.validation_scores_ = list(early["validation_scores"])
            model.best_iteration_ = early.get("best_iteration")
            model.best_validation_score_ = early.get("best_validation_score")
        model._id_lookup = None
        model._loaded_state = dict(mf.solver_state) or None
        return model

    def to_word2vec(self, path, *, binary=False, context_prefix=CONTEXT_PREFIX):
        """Write the embedding in word2vec's format (atomically), text or binary.

        Text: a header line ``"<n_vectors> <dim>"``, then one line per vector:
        its name and the coordinates (``repr`` precision).  Binary (``binary=True``,
        word2vec's ``-binary 1`` and gensim's ``binary=True``): the same header
        line, then per vector its name in UTF-8, one space, ``dim`` float32
        little-endian numbers and a newline; float64 embeddings are rounded to
        float32, which is all the format holds.  Both are readable by
        ``gensim.models.KeyedVectors.load_word2vec_format(path, binary=...)``.

        Naming: the rows of ``embedding_`` are named by their node ids (what
        :meth:`transform` takes), as text.  A model of a directed or bipartite
        graph writes both tables in the one file: first the ``embedding_`` rows
        (source / left nodes) named by their ids, then the
        ``context_embedding_`` rows (target / right nodes) named
        ``context_prefix + id`` (``"context:12"``: the in-vector of node 12
        of a directed graph, or the vector of right node 12 of a bipartite
        one), so the header counts ``n_source + n_target`` vectors and
        ``kv["12"] @ kv["context:12"]`` is a score of :meth:`score_pairs`.

        Parameters
        ----------
        path : str or path-like
        binary : bool, default False
        context_prefix : str, default "context:"
            Prepended to the ids of the context table's rows (two-table
            models only); non-empty, without whitespace.

        Raises
        ------
        ValueError
            If a name is empty, contains whitespace or is not valid UTF-8
            text (a lone surrogate), or two vectors would get the same name
            (ids ``1`` and ``"1"``, ``True`` and ``"True"``; the message
            names both): the format names vectors by text.  :meth:`save`
            keeps such ids.
        """
        self._check_fitted()
        two_tables = self._is_two_table()
        names = word2vec_names(self.node_ids_, self.context_node_ids_ if two_tables else None, context_prefix)
        # two tables: the stacked rows, embedding_ then context_embedding_
        return write_word2vec(path, self._training_table(), names, binary=binary)
