r"""Cross-validated estimators: :math:`\lambda_r` (and optionally ``dim``) chosen on a validation split of
the training graph, then the chosen model refitted on the whole training graph -- scikit-learn's ``*CV``
pattern (``LogisticRegressionCV``, ``RidgeCV``) for :class:`LogisticEmbedding` and :class:`HingeEmbedding`.

The paper's lesson is that generalisation is governed by the norm, so :math:`\lambda_r` is the parameter
to choose, and its best value differs by graph and by task (``benchmarks/README.md``, "Norms chosen by
validation"): one default cannot be right everywhere.  The test split must not choose it.
"""
import math
import time

import numpy as np

from .. import _parameters, _progress
from .._random import check_random_state, draw_seed
from ..datasets import as_graph
from ..evaluation import validation_split
from ..metrics import node_classification_f1
from ._base import BaseEmbedding
from ._divergence import DivergenceError
from .hinge import HingeEmbedding
from .logistic import LogisticEmbedding

__all__ = ["EmbeddingCV", "HingeEmbeddingCV", "LogisticEmbeddingCV"]

#: the parameters of a ``*CV`` estimator that its estimator does not have (the rest are passed on)
_SEARCH_PARAMETERS = ("lam_rs", "dims", "scoring")


class EmbeddingCV:
    r"""The search of :class:`LogisticEmbeddingCV` and :class:`HingeEmbeddingCV` (a mixin placed before
    their estimator class; not for direct use).

    ``fit(X, y=None)`` carves one validation split out of ``X``'s training
    graph (:func:`lgekit.evaluation.validation_split`), fits one candidate
    per value of ``lam_rs`` (and of ``dims``) on the rest, each from the
    same initialisation and, with ``early_stopping``, stopped on the
    validation AP; scores each (``scoring``: the validation AP, or the
    node-classification F1 of ``y``'s training nodes); and refits the best
    setting on the whole training graph of ``X``, for the best candidate's
    epochs, into this estimator.  The choice is recorded in ``lam_r_``,
    ``dim_``, ``epochs_``, ``best_score_``, ``best_index_`` and
    ``cv_results_``.

    Read more in the :ref:`User Guide <guide-selection-cv>`: the four steps,
    why every candidate starts cold, and what it costs.
    """

    #: what a pickle keeps besides the estimator's own (see :meth:`BaseEmbedding.__getstate__`)
    _pickled_attributes = BaseEmbedding._pickled_attributes + (
        "lam_r_", "dim_", "epochs_", "best_score_", "best_index_", "cv_results_")

    @property
    def lam_r(self):
        """The :math:`\\lambda_r` in force: ``lam_r_``, the chosen value (set by ``fit``)."""
        value = self.__dict__.get("lam_r_")
        if value is None:
            raise AttributeError(f"lam_r: this {type(self).__name__} chooses lam_r from lam_rs at fit; the chosen "
                                 "value is lam_r_ once fitted")
        return value

    # ------------------------------------------------------------------ the search
    def _search_seed(self):
        """The int seed of the whole search: ``random_state`` itself when it is an int (so that the refit
        is ``Estimator(random_state=that int)``'s fit), else one drawn from it."""
        state = self.random_state
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            return int(state)
        return draw_seed(check_random_state(state)) % 2**63

    def _candidate(self, lam_r, dim, seed):
        """An unfitted estimator of this search's estimator class, with this one's parameters, ``lam_r``,
        ``dim`` and the search's seed."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k not in _SEARCH_PARAMETERS}
        # no diagnostics: only the validation AP is read, and the tables are the same without them
        params.update(lam_r=float(lam_r), dim=int(dim), random_state=seed, verbose=max(0, int(self.verbose) - 1),
                      diagnostics=False)
        return self._estimator_class(**params)

    def _labels(self, X, y):
        """``y`` for the F1 scores (None for ``scoring="ap"``), refused when it cannot score."""
        if self.scoring == "ap":
            return None
        if y is None:
            raise ValueError(f"y: scoring={self.scoring!r} scores node classification on the labels of the training "
                             "nodes, but y is None; pass y, a label matrix with one row per node of X's graph whose "
                             "rows of the nodes held out for testing are all 0 (never the labels the model is tested "
                             "on), or use scoring='ap'")
        if as_graph(X, "X").kind == "bipartite":     # a split's whole graph: only its kind is read
            raise ValueError(f"scoring={self.scoring!r}: a bipartite graph's embedding_ holds its left nodes only, "
                             "not one vector per row of y; use scoring='ap'")
        return y

    def fit(self, X, y=None, *, callbacks=None):
        """Choose ``lam_r`` (and ``dim``) on a validation split of ``X``'s training graph, then refit.

        Parameters
        ----------
        X : EdgeSplit, or a graph in any form of :func:`lgekit.datasets.as_graph`
            The training data (a split's training graph; never its test pairs).
        y : label matrix, optional
            For ``scoring="micro_f1"``/``"macro_f1"``: the labels of the
            training nodes, one row per node of ``X``'s graph (anything
            :func:`lgekit.metrics.node_classification_f1` takes), the rows
            of the nodes held out for testing all 0.  Ignored with
            ``scoring="ap"`` (so that the estimator can open a ``Pipeline``).
        callbacks : sequence of lgekit.callbacks.Callback, optional
            Called around the epochs of the refit (not of the candidates).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            ``y`` missing for an F1 score; a validation split that holds no
            edge (``validation_fraction`` too small for the graph).
        lgekit.models.DivergenceError
            When the refit diverges.  A candidate that diverges is scored
            NaN and never chosen; when every one does, ValueError.
        """
        self._validate_params()
        labels = self._labels(X, y)
        seed = self._search_seed()
        # the split an early-stopped fit with random_state=seed would carve itself (its first draw)
        validation = validation_split(X, self.validation_fraction, seed=draw_seed(check_random_state(seed)))
        dims = [int(self.dim)] if self.dims is None else [int(d) for d in self.dims]
        settings = [(float(lam), dim) for dim in dims for lam in self.lam_rs]
        results = {"params": [], "param_lam_r": [], "param_dim": [], "validation_ap": [], "validation_score": [],
                   "epochs": [], "fit_seconds": []}
        if labels is not None:
            results[f"validation_{self.scoring}"] = results["validation_score"]
        for lam, dim in settings:
            started = time.process_time()
            score, ap, epochs = self._fit_candidate(X, validation, lam, dim, seed, labels)
            results["params"].append({"lam_r": lam, "dim": dim})
            results["param_lam_r"].append(lam)
            results["param_dim"].append(dim)
            results["validation_ap"].append(ap)
            results["validation_score"].append(score)
            results["epochs"].append(epochs)
            results["fit_seconds"].append(time.process_time() - started)
            if self.verbose >= 1:
                _progress.write_line(f"{type(self).__name__}: lam_r={lam:g}, dim={dim}: validation {self.scoring} "
                                     f"{score:.4f} after {epochs} epochs ({results['fit_seconds'][-1]:.1f} CPU s)")
        scores = np.asarray(results["validation_score"], dtype=np.float64)
        if not np.any(np.isfinite(scores)):
            raise ValueError(f"{type(self).__name__}: every candidate diverged (lam_rs={list(self.lam_rs)}); try "
                             "larger lam_rs or a smaller lr")
        ranked = np.where(np.isfinite(scores), scores, -np.inf)
        best = int(np.argmax(ranked))                 # the first best in the grid's order
        order = np.argsort(-ranked, kind="stable")
        rank = np.empty(len(scores), dtype=np.int64)
        rank[order] = np.arange(1, len(scores) + 1)
        results = {k: (v if k == "params" else np.asarray(v)) for k, v in results.items()}
        results["rank_validation_score"] = rank
        self.cv_results_ = results
        self.best_index_ = best
        self.best_score_ = float(scores[best])
        self.lam_r_, self.dim_ = settings[best]
        self.epochs_ = int(results["epochs"][best])
        return self._refit(X, callbacks)

    def _fit_candidate(self, X, validation, lam, dim, seed, labels):
        """Fit one candidate on ``validation``'s training part; returns (score, validation AP, its epochs)."""
        candidate = self._candidate(lam, dim, seed)
        try:
            if self.early_stopping:
                candidate.fit(X, validation=validation)
                ap = candidate.best_validation_score_
                epochs = 0 if candidate.best_iteration_ is None else candidate.best_iteration_ + 1
            else:
                candidate.fit(validation)        # its training part, for every epoch
                ap, epochs = candidate.score(validation), int(self.epochs)
        except DivergenceError:
            return math.nan, math.nan, 0         # never chosen
        if labels is None:
            return float(ap), float(ap), epochs
        f1 = node_classification_f1(candidate.embedding_, labels, train_ratio=0.5, seed=seed)
        return float(f1[self.scoring]), float(ap), epochs

    def _refit(self, X, callbacks):
        """The chosen setting fitted on the whole training graph of ``X``, into this estimator."""
        with self._in_force():
            callbacks = self._prepare_fit(X, callbacks, continue_=False)
            self._train(callbacks, 0, self.epochs_)
        return self

    def _carves_validation(self):
        # the search's candidates stop early; the refit trains on every training edge
        return False

    def _in_force(self):
        """While the refit or a ``partial_fit`` runs: ``dim`` is the chosen ``dim_`` (the only searched
        parameter stored as an instance attribute; ``lam_r`` reads ``lam_r_``)."""
        return _Override(self, dim=self.dim_)

    def partial_fit(self, X, y=None, *, epochs=1, callbacks=None):
        """Run ``epochs`` more epochs of the chosen setting (``lam_r_``, ``dim_``), continuing the refit."""
        self._check_fitted()
        with self._in_force():
            return super().partial_fit(X, y, epochs=epochs, callbacks=callbacks)

    # ------------------------------------------------------------------ files
    def _model_file_class_name(self):
        # a model file holds the chosen estimator: its class and lam_r = lam_r_ (a grid is not a parameter a
        # model file can hold, nor does it describe the tables)
        return self._estimator_class.__name__

    def _params_for_save(self):
        with self._in_force():
            params = {k: v for k, v in super()._params_for_save().items() if k not in _SEARCH_PARAMETERS}
        estimator_params = set(self._estimator_class._get_param_names())
        params = {k: v for k, v in params.items() if k in estimator_params}
        params.update(lam_r=float(self.lam_r_), dim=int(self.dim_), epochs=int(self.epochs_), early_stopping=False)
        return params


class _Override:
    """Set instance attributes for the duration of a ``with`` block, then put the old values back."""

    def __init__(self, obj, **values):
        self._obj, self._values, self._old = obj, values, {}

    def __enter__(self):
        for name, value in self._values.items():
            self._old[name] = self._obj.__dict__.get(name)
            setattr(self._obj, name, value)
        return self._obj

    def __exit__(self, *exc):
        for name, value in self._old.items():
            setattr(self._obj, name, value)
        return False


class LogisticEmbeddingCV(EmbeddingCV, LogisticEmbedding):
    r""":class:`LogisticEmbedding` with :math:`\lambda_r` chosen on a validation split of the training graph.

    ``fit`` carves a validation split out of the training graph, fits one
    candidate per value of ``lam_rs`` (and of ``dims``) on the rest,
    early-stopped on the validation AP, and refits the best setting on the
    whole training graph: scikit-learn's ``*CV`` pattern
    (``LogisticRegressionCV``).  The test split never chooses.

    Read more in the :ref:`User Guide <guide-selection-cv>`.

    Parameters
    ----------
    lam_rs : sequence of float >= 0, default (0.1, 0.2, 0.3, 0.6, 1.0)
        The :math:`\lambda_r` searched (scikit-learn's ``Cs``): it holds the
        best link-AP value of every real graph measured in
        ``benchmarks/README.md`` ("Norms chosen by validation").
    dims : sequence of int >= 1 or None, default None
        Also search the dimension (every ``lam_rs`` value for each); None:
        ``dim`` only.
    scoring : {"ap", "micro_f1", "macro_f1"}, default "ap"
        ``"ap"``: link prediction, the average precision of the validation
        pairs; ``"micro_f1"``, ``"macro_f1"``: node classification on the
        labels ``y`` of the training nodes (see :meth:`fit`).
    early_stopping : bool, default True
        Each candidate stops when its validation AP has not improved by
        ``validation_tol`` for ``n_iter_no_change`` epochs and keeps its best
        epoch; the refit runs the chosen candidate's number of epochs
        (``epochs_``).  False: every candidate and the refit run ``epochs``.
    validation_fraction : float in (0, 1), default 0.1
        Share of the training edges held out as the validation split.
    n_iter_no_change, validation_tol
        The candidates' stopping rule (see :class:`LogisticEmbedding`).
    epochs : int, default 50
        The most epochs a candidate runs.
    random_state : None, int or numpy.random.Generator
        Seeds the validation split and every fit: with an int, the refit is
        ``LogisticEmbedding(random_state=that int)``'s fit of the chosen
        setting.
    dim, lam_pos, lam_neg, lam_r_context, lr, lr_offset, init_scale, order
        As for :class:`LogisticEmbedding`, for every candidate and the refit.
    negatives, weighting, dtype, n_threads, schedule, verbose, diagnostics
        As for :class:`LogisticEmbedding` (the candidates fit without
        ``diagnostics``, and one ``verbose`` level lower).
    reverse_negatives, node_bias, lam_tie
        As for :class:`LogisticEmbedding`.

    Attributes
    ----------
    lam_r_ : float
        The chosen :math:`\lambda_r` (also ``lam_r``, read-only).
    dim_ : int
        The chosen dimension (``dim`` unless ``dims`` is given).
    epochs_ : int
        The epochs of the refit.
    best_score_ : float
        The chosen candidate's validation score.
    best_index_ : int
        Its index in ``cv_results_``.
    cv_results_ : dict
        One entry per candidate, in the order of the search (``dims`` outer,
        ``lam_rs`` inner): ``"params"`` (dicts), ``"param_lam_r"``,
        ``"param_dim"``, ``"validation_score"`` (the ``scoring``; also under
        ``"validation_micro_f1"``/``"validation_macro_f1"`` for an F1 score),
        ``"validation_ap"``, ``"epochs"`` (those of the candidate's best epoch),
        ``"fit_seconds"`` (CPU seconds of the candidate's fit and score) and
        ``"rank_validation_score"``, as arrays.  A candidate that diverged
        scores NaN.
    embedding_, history_, n_iter_, ...
        Those of the refit, as for :class:`LogisticEmbedding`.

    See Also
    --------
    LogisticEmbedding : the estimator searched; ``early_stopping=True`` stops it on a validation split.
    HingeEmbeddingCV : the same search for the hinge loss.
    lgekit.evaluation.validation_split : the validation split every candidate is scored on.

    Examples
    --------
    >>> import networkx as nx
    >>> import lgekit
    >>> g = lgekit.Graph.from_networkx(nx.connected_caveman_graph(10, 8))    # 10 cliques of 8 in a ring
    >>> split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    >>> model = LogisticEmbeddingCV(dim=16, lam_rs=[0.03, 0.1, 0.3], epochs=30, random_state=0).fit(split)
    >>> model.lam_r_, model.epochs_, model.cv_results_["rank_validation_score"].tolist()
    (0.03, 26, [1, 3, 2])
    >>> round(model.score(split), 2)
    0.95
    """

    _parameter_constraints = _parameters.LOGISTIC_CV
    _estimator_class = LogisticEmbedding

    def __init__(self, dim=100, *, lam_rs=(0.1, 0.2, 0.3, 0.6, 1.0), dims=None, scoring="ap", lam_pos=1.0,
                 lam_neg=0.03, epochs=50, lr=1.0, lr_offset=1.0, init_scale=0.1, order="edge", negatives="fixed",
                 weighting="sample", dtype="float32", n_threads=1, schedule="hogwild", random_state=None, verbose=0,
                 diagnostics="sampled", lam_r_context=None, reverse_negatives=None, node_bias=None, lam_tie=None,
                 early_stopping=True, validation_fraction=0.1, n_iter_no_change=5, validation_tol=1e-4):
        self.dim = dim
        self.lam_rs = lam_rs
        self.dims = dims
        self.scoring = scoring
        self.lam_pos = lam_pos
        self.lam_neg = lam_neg
        self.epochs = epochs
        self.lr = lr
        self.lr_offset = lr_offset
        self.init_scale = init_scale
        self.order = order
        self.negatives = negatives
        self.weighting = weighting
        self.dtype = dtype
        self.n_threads = n_threads
        self.schedule = schedule
        self.random_state = random_state
        self.verbose = verbose
        self.diagnostics = diagnostics
        self.lam_r_context = lam_r_context
        self.reverse_negatives = reverse_negatives
        self.node_bias = node_bias
        self.lam_tie = lam_tie
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.validation_tol = validation_tol


class HingeEmbeddingCV(EmbeddingCV, HingeEmbedding):
    r""":class:`HingeEmbedding` with :math:`\lambda_r` chosen on a validation split of the training graph.

    The search of :class:`LogisticEmbeddingCV` for the hinge loss: one
    candidate per value of ``lam_rs`` (and of ``dims``), early-stopped on a
    validation split of the training graph, the best setting refitted on
    the whole training graph (its duals kept, and saved with the model).

    Read more in the :ref:`User Guide <guide-selection-cv>`.

    Parameters
    ----------
    lam_rs : sequence of float > 0, default (1.0, 2.0, 3.0, 5.0, 10.0)
        The :math:`\lambda_r` searched (DCD needs :math:`\lambda_r > 0`).
    dims, scoring, early_stopping, validation_fraction, n_iter_no_change, validation_tol
        As for :class:`LogisticEmbeddingCV`.
    epochs : int, default 20
        The most epochs a candidate runs.
    random_state : None, int or numpy.random.Generator
        As for :class:`LogisticEmbeddingCV`.
    dim, lam_pos, lam_neg, lam_r_context, inner_passes, inner_order, monotone
        As for :class:`HingeEmbedding`, for every candidate and the refit.
    weighting, init_scale, tol, dtype, n_threads, schedule, verbose, diagnostics
        As for :class:`HingeEmbedding`.

    Attributes
    ----------
    lam_r_, dim_, epochs_, best_score_, best_index_, cv_results_
        As for :class:`LogisticEmbeddingCV`.
    embedding_, history_, n_iter_, dual_coef_, ...
        Those of the refit, as for :class:`HingeEmbedding`.

    See Also
    --------
    HingeEmbedding : the estimator searched.
    LogisticEmbeddingCV : the same search for the logistic loss.

    Examples
    --------
    >>> import networkx as nx
    >>> import lgekit
    >>> g = lgekit.Graph.from_networkx(nx.connected_caveman_graph(10, 8))
    >>> split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    >>> model = HingeEmbeddingCV(dim=16, lam_rs=[1.0, 3.0], epochs=10, random_state=0).fit(split)
    >>> model.lam_r_ in (1.0, 3.0), model.cv_results_["param_lam_r"].tolist()
    (True, [1.0, 3.0])
    """

    _parameter_constraints = _parameters.HINGE_CV
    _estimator_class = HingeEmbedding

    def __init__(self, dim=100, *, lam_rs=(1.0, 2.0, 3.0, 5.0, 10.0), dims=None, scoring="ap", lam_pos=1.0,
                 lam_neg=0.03, epochs=20, inner_passes=1, inner_order="fixed", monotone=True, weighting="sample",
                 init_scale=0.1, tol=1e-3, dtype="float32", n_threads=1, schedule="deterministic", random_state=None,
                 verbose=0, diagnostics="sampled", lam_r_context=None, early_stopping=True, validation_fraction=0.1,
                 n_iter_no_change=5, validation_tol=1e-4):
        self.dim = dim
        self.lam_rs = lam_rs
        self.dims = dims
        self.scoring = scoring
        self.lam_pos = lam_pos
        self.lam_neg = lam_neg
        self.epochs = epochs
        self.inner_passes = inner_passes
        self.inner_order = inner_order
        self.monotone = monotone
        self.weighting = weighting
        self.init_scale = init_scale
        self.tol = tol
        self.dtype = dtype
        self.n_threads = n_threads
        self.schedule = schedule
        self.random_state = random_state
        self.verbose = verbose
        self.diagnostics = diagnostics
        self.lam_r_context = lam_r_context
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.validation_tol = validation_tol

