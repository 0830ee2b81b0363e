"""The estimator base of every lgekit embedding model: validation, seeding, the epoch loop with its history,
callbacks, progress and divergence checks, and the exits (``transform``, ``score``, ``score_pairs``,
``most_similar``).
Data to index pairs is :mod:`._training_data`'s job, file formats :mod:`._model_file`'s, and the epochs the
solver's (:mod:`._solver`): a model is its ``__init__``, its parameter table and its solver class."""
import logging
import math
import numbers
import os
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils import TransformerTags

from .. import _parameters, _progress
from ..graph import warn_outside_lgekit
from .._openmp import openmp_enabled
from .._random import check_random_state, draw_seed
from .._validation import InvalidParameterError, validate_parameter_constraints
from ..evaluation import check_validation_split, validation_split
from ..ids import concat_ids, node_id_query, node_positions
from ..metrics import average_precision, average_precision_from_scores
from ..neighbours import top_k_scores
from ._divergence import DivergenceError, divergence_reason
from ._early_stopping import ValidationMonitor
from ._interrupt import DeferredInterrupt
from ._machine import MAX_THREADS_PER_CPU, available_memory, format_bytes, max_n_threads
from ._model_file import ModelFile, model_file_from_arrays, read_checked_npz, word2vec_names, write_model_file, \
    write_word2vec
from ._training_data import TWO_TABLE_KINDS, TableLayout, TrainingData, describe_input, graph_node_ids, match_rows, \
    training_data

__all__ = ["BaseEmbedding", "DivergenceError", "model_is_non_deterministic"]

logger = logging.getLogger(__name__)

_MISSING = object()

#: the schedules whose updates race when ``n_threads > 1`` (the ``"deterministic"`` one is reproducible on any
#: number of threads)
RACING_SCHEDULES = ("hogwild", "blocks")


def model_is_non_deterministic(model):
    """Whether two fits of ``model`` with one int ``random_state`` may differ: ``n_threads > 1`` with a
    schedule whose updates race (:data:`RACING_SCHEDULES`).  None (a default model) is deterministic."""
    if model is None:
        return False
    params = model.get_params(deep=False)
    return params.get("n_threads", 1) != 1 and params.get("schedule") in RACING_SCHEDULES


class BaseEmbedding(BaseEstimator):
    r"""Base class of the linear graph embedding estimators (not for direct use).

    Everything :class:`~lgekit.LogisticEmbedding` and
    :class:`~lgekit.HingeEmbedding` share: ``fit`` on an ``EdgeSplit`` or a
    graph in any form :func:`lgekit.datasets.as_graph` reads (for a graph,
    ``negatives_per_positive`` uniform non-edges per edge are drawn),
    ``partial_fit``, the per-epoch ``history_`` with callbacks, progress,
    divergence and memory checks, early stopping on a validation split of
    the training graph, two tables (``embedding_``, ``context_embedding_``)
    for a directed or bipartite graph, and the fitted model's ``transform``,
    ``score``, ``score_pairs``, ``most_similar``, ``save``/``load`` and
    word2vec export.  A subclass is its ``__init__``, its parameter table
    and its solver class (the objective and its solver).

    Read more in the :ref:`User Guide <guide-estimators>`: the data a model
    takes, the two tables, the history, progress, divergence, memory,
    pickling, scikit-learn, and the anatomy of a model.

    Raises
    ------
    lgekit.models.DivergenceError
        From ``fit``/``partial_fit`` when a check of the epoch's record fires:
        a non-finite objective, loss part or mean norm;
        ``divergence_max_mean_norm``; ``divergence_objective_factor``;
        ``divergence_norm_growth`` for ``divergence_growth_epochs`` epochs
        (``divergence_norm_growth_alone`` when the records carry no
        objective).  These thresholds are class attributes (``None``
        disables a check); the guide says what each means.
    MemoryError
        From a fresh ``fit`` when the embedding and the solver's arrays do
        not fit in :func:`~lgekit.models.available_memory` (the environment
        variable ``LGEKIT_AVAILABLE_MEMORY`` overrides it), before
        allocating them.

    See Also
    --------
    LogisticEmbedding : the logistic loss, by SGD (the paper's Section 3).
    HingeEmbedding : the hinge loss, by dual coordinate descent (Section 4).
    LogisticEmbeddingCV : ``lam_r`` chosen on a validation split, then refitted.
    NodeEmbedding : the embedding as node features for scikit-learn's model selection.

    Examples
    --------
    >>> import networkx as nx
    >>> import lgekit
    >>> split = lgekit.split_edges(nx.karate_club_graph(), test_fraction=0.2, seed=0)
    >>> model = lgekit.LogisticEmbedding(dim=8, epochs=5, random_state=0).fit(split)
    >>> isinstance(model, lgekit.models.BaseEmbedding), model.transform([0, 33]).shape
    (True, (2, 8))
    >>> 0.0 <= model.score(split) <= 1.0
    True
    """

    negatives_per_positive = 4
    # the divergence thresholds (the class docstring's "Divergence" says what each means)
    divergence_max_mean_norm = 1e8
    divergence_objective_factor = 10.0
    divergence_norm_growth = 1.5
    divergence_norm_growth_alone = 2.0
    divergence_growth_epochs = 3
    #: a typical initial score sqrt(dim) * init_scale**2 / 3 above this blames init_scale (sigmoids saturated
    #: from the start)
    _saturated_initial_score = 10.0
    #: the initialisation draws at most this many bytes at a time (a block that stays in a core's cache)
    _init_block_bytes = 256 * 2**10
    #: the declarative table of the parameters every estimator shares (see :mod:`lgekit._validation`);
    #: subclasses extend it with their own
    _parameter_constraints = _parameters.COMMON
    #: the solver a model trains with (a :class:`~lgekit.models.Solver` subclass)
    _solver_class = None
    #: lgekit's own estimators by class name: the only classes :meth:`load` builds from a file's name
    _registry = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # only lgekit's own estimators: a file must not name (and so build) a class of any other code
        if cls.__module__.split(".")[0] == "lgekit":
            BaseEmbedding._registry[cls.__name__] = cls

    #: scikit-learn's estimator checks that do not apply: none run (the tags say X is a graph, not a
    #: samples x features matrix, and the suite feeds only such matrices); see :meth:`__sklearn_tags__`
    ESTIMATOR_CHECKS_EXPECTED_FAILURES = {}

    def __sklearn_tags__(self):
        """scikit-learn's tags: a transformer whose ``X`` is one graph (or a scipy sparse adjacency matrix).

        ``input_tags.two_d_array`` is False: a graph is one object, not rows of samples, and a dense
        2-D array is not one of its forms, so scikit-learn's estimator suite (which feeds samples x
        features matrices) skips these estimators, as it skips its own vectorizers of text and dicts;
        ``tests/test_sklearn_estimator_checks.py`` runs the checks that feed no data, and the full suite
        through :class:`~lgekit.models.transductive.NodeEmbedding`, whose ``X`` is node ids.
        ``non_deterministic``: ``n_threads > 1`` with a racing schedule.
        """
        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags(preserves_dtype=[])   # the model's dtype, not X's
        tags.input_tags.two_d_array = False
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        tags.requires_fit = True
        tags.non_deterministic = model_is_non_deterministic(self)
        return tags

    # ------------------------------------------------------------------ validation
    def _validate_params(self):
        caller = type(self).__name__
        validate_parameter_constraints(self._parameter_constraints, self.get_params(), caller=caller)

        def bad(name, value, accepted):
            raise InvalidParameterError(f"{caller}: {name} must be {accepted}, got {value!r}", parameter=name,
                                        value=value, accepted=accepted)

        dtype = np.dtype(self.dtype)
        self._dtype = dtype
        # bounds that depend on another parameter or on the machine, beyond what a table can say:
        # the largest init_scale whose uniform draws (and their span 2 * init_scale) are finite in dtype
        biggest = float(np.finfo(dtype).max) / 2
        if self.init_scale > biggest:
            bad("init_scale", self.init_scale, f"a finite number >= 0 and <= {biggest:.3g} with dtype={dtype.name} "
                "(larger initial values are not representable; the default is 0.1)")
        limit = max_n_threads()
        if self.n_threads > limit:
            bad("n_threads", self.n_threads,
                f"an int in [1, {limit}] ({MAX_THREADS_PER_CPU} x the {os.cpu_count() or 1} CPUs of this machine; "
                "more threads cannot run usefully and OpenMP crashes on far more)")
        if self.n_threads > 1 and not openmp_enabled():
            warn_outside_lgekit(f"n_threads={self.n_threads} requested but lgekit was built without OpenMP; "
                                "running on one thread", RuntimeWarning)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, *, callbacks=None, validation=None):
        """Fit the embedding.

        Parameters
        ----------
        X : EdgeSplit, or a graph in any form of :func:`lgekit.datasets.as_graph`
            Training data; see the class docstring.
        y : ignored
            Accepted so that the estimator can open a scikit-learn ``Pipeline``
            whose later steps take labels (e.g. one label per node of ``X``).
        callbacks : sequence of lgekit.callbacks.Callback, optional
            Called in order at the start, after every epoch (a callback
            returning True stops training) and at the end.
        validation : EdgeSplit, optional
            With ``early_stopping=True`` only: the validation split to stop
            on, made by :func:`lgekit.evaluation.validation_split` from
            ``X`` (checked: :func:`~lgekit.evaluation.check_validation_split`),
            instead of the one ``fit`` carves itself with
            ``validation_fraction``; several fits (a grid of ``lam_r``) can
            then share one.  See :ref:`Early stopping <guide-selection-early-stopping>` in the User Guide.

        Returns
        -------
        self

        Raises
        ------
        lgekit.evaluation.LeakError
            ``validation`` is not a validation split of ``X``'s training
            graph (it holds a test edge, or is a split of another graph).
        DivergenceError
            When the iterates become non-finite or explode (``history_`` is
            kept, its last record has ``"diverged": True``).
        KeyboardInterrupt
            After the epoch that was running is recorded: ``n_iter_`` and
            ``history_`` then describe the embedding, and ``partial_fit``
            continues as the uninterrupted fit would have.
        """
        warm = bool(getattr(self, "warm_start", False)) and hasattr(self, "embedding_")
        callbacks = self._prepare_fit(X, callbacks, continue_=warm, validation=validation)
        self._train(callbacks, self.n_iter_, self.epochs)
        return self

    def partial_fit(self, X, y=None, *, epochs=1, callbacks=None):
        """Run ``epochs`` more epochs, continuing from the current model.

        The learning-rate schedule and the per-epoch random streams continue
        from ``n_iter_``, so ``fit`` with ``epochs=a`` followed by
        ``partial_fit(X, epochs=b)`` on the same data equals one fit with
        ``epochs=a + b`` (with ``negatives="fixed"`` and a split, or the same
        graph object, as data).  An unfitted estimator is initialised first.
        Given the same data object again and unchanged parameters, it keeps
        the solver already prepared (``solver_``: pair records, work arrays,
        duals), so that a loop of ``partial_fit(X, epochs=1)`` costs what the
        epochs of one ``fit`` cost; new data or a changed parameter rebuilds
        it (on the same pairs when only a parameter changed).

        Another graph object must have the fitted model's nodes: its rows are
        matched by node id (the same ids in another order train the same
        rows); a graph with new or missing ids raises ValueError naming some.

        Parameters
        ----------
        X : EdgeSplit, or a graph in any form of :func:`lgekit.datasets.as_graph`
        y : ignored
        epochs : int, default 1
        callbacks : sequence of lgekit.callbacks.Callback, optional

        Raises
        ------
        ValueError
            With ``early_stopping=True``, as scikit-learn's ``MLPClassifier``:
            stopping is a decision over a whole fit (continue one with
            ``warm_start=True`` and ``fit``).
        """
        if isinstance(epochs, bool) or not isinstance(epochs, numbers.Integral) or epochs < 1:
            raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
        self._validate_params()
        if self._carves_validation():
            raise ValueError(f"{type(self).__name__}.partial_fit does not support early_stopping=True (whether to "
                             "stop is decided over a whole fit, as in scikit-learn); continue an early-stopped fit "
                             "with warm_start=True and fit, or set early_stopping=False (the model then trains on "
                             "every training edge, the validation edges included)")
        callbacks = self._prepare_fit(X, callbacks, continue_=hasattr(self, "embedding_"))
        self._train(callbacks, self.n_iter_, int(epochs))
        return self

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then return :meth:`transform` ``(X)``: the rows of ``X``'s nodes in ``X``'s node order
        (for the training graph, the whole embedding, a copy of ``embedding_``).

        ``fit_params`` go to :meth:`fit` (``callbacks``).
        """
        return self.fit(X, y, **fit_params).transform(X)

    def _check_callbacks(self, callbacks):
        if callbacks is None:
            return []
        if hasattr(callbacks, "on_epoch_end") or isinstance(callbacks, (str, bytes)):
            raise TypeError(f"callbacks must be a sequence of lgekit.callbacks.Callback objects, got one "
                            f"{type(callbacks).__name__}; pass [callback]")
        try:
            callbacks = list(callbacks)
        except TypeError:
            raise TypeError(f"callbacks must be a sequence of lgekit.callbacks.Callback objects, got "
                            f"{type(callbacks).__name__}: {callbacks!r}") from None
        for cb in callbacks:
            if not hasattr(cb, "on_epoch_end"):
                raise TypeError(f"callbacks must be lgekit.callbacks.Callback objects, got {type(cb).__name__}")
        return callbacks

    def _training_data(self, X, rng, validation=None):
        """The :class:`TrainingData` of ``X``; with early stopping, of the part of ``X``'s training graph
        that ``validation`` (or the validation split carved here) leaves to train on, and the validation
        pairs in ``_validation_data`` (a :class:`TrainingData` of the same rows, None without)."""
        self._pairs_options = self._pair_options()
        self.__dict__.pop("_validation_data", None)
        source = X
        if self._carves_validation():
            # drawn first, given a validation split or not, so that the fit's other draws are the same either way
            # (a fit given the split it would have carved is that fit, bit for bit); kept for continued fits
            if "_validation_seed" not in self.__dict__:
                self._validation_seed = draw_seed(rng)
            source = validation if validation is not None else \
                validation_split(X, self.validation_fraction, seed=self._validation_seed)
        # a continued fit rebuilding its pairs reuses the first fit's coins: the same split, the same pairs
        train = training_data(source, rng, negatives_per_positive=self.negatives_per_positive, n_threads=self.n_threads,
                              reverse_negatives=self._pairs_options["reverse_negatives"],
                              reverse_seed=self.__dict__.get("_reverse_seed"))
        self._reverse_seed = train.reverse_seed
        if source is not X:
            layout = train.layout

            def rows(pairs, what):
                pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
                return np.ascontiguousarray(pairs if layout is None else layout.table_pairs(pairs, what))
            positives = rows(source.test_positives, "validation positives")
            self._validation_data = TrainingData(
                n_nodes=train.n_nodes, node_ids=train.node_ids, train_graph=train.train_graph, positives=positives,
                pos_weights=np.ones(len(positives)), negatives=rows(source.test_negatives, "validation negatives"),
                layout=layout)
        return train

    def _pair_options(self):
        """The parameters that decide the training pairs themselves (a change rebuilds them from ``X``)."""
        carves = self._carves_validation()
        return {"reverse_negatives": getattr(self, "reverse_negatives", 0.0), "early_stopping": carves,
                "validation_fraction": self.validation_fraction if carves else None}

    def _carves_validation(self):
        """Whether ``fit`` trains on a part of the training graph and stops on the rest (``early_stopping``)."""
        return bool(getattr(self, "early_stopping", False))

    def _check_validation(self, X, validation):
        """``fit``'s ``validation`` argument, checked against ``X`` (None stays None)."""
        if validation is None:
            return None
        if not self._carves_validation():
            raise ValueError(f"validation: a validation split is what early stopping stops on, but this "
                             f"{type(self).__name__} has early_stopping=False; set early_stopping=True or leave "
                             "validation out")
        return check_validation_split(X, validation)

    # the attributes of an early-stopped fit (see "Early stopping"): a fit without it removes them
    _EARLY_STOPPING_ATTRIBUTES = ("validation_scores_", "best_validation_score_", "best_iteration_")

    def _prepare_fit(self, X, callbacks, continue_, validation=None):
        """Everything before the first epoch: validate, turn ``X`` into pairs, draw the seeds and the
        starting embedding, build (or keep) the solver and, with early stopping, the validation monitor.
        Returns the checked callbacks."""
        self._validate_params()
        callbacks = self._check_callbacks(callbacks)
        validation = self._check_validation(X, validation)
        solver = getattr(self, "solver_", None)
        same_source = (solver is not None and X is getattr(self, "_data_source", None)
                       and getattr(self, "_pairs_options", None) == self._pair_options()
                       and validation is self.__dict__.get("_validation_source"))
        # verbose >= 1 says what is prepared before the first epoch (sampling, pair records, initialisation)
        prepared_from = self._preparation_begins(X, announce=not (continue_ and same_source))
        if continue_:
            train = None if same_source else self._training_data(
                X, self._rng if hasattr(self, "_rng") else check_random_state(self.random_state), validation)
            table = self._training_table()
            if train is not None:
                self._check_same_kind(train)
                # rows by id: the same nodes in another order train their own rows; other nodes are refused
                train = match_rows(train, self.node_ids_, self.__dict__.get("context_node_ids_"))
                if "_validation_data" in self.__dict__:
                    self._validation_data = match_rows(self._validation_data, self.node_ids_,
                                                       self.__dict__.get("context_node_ids_"))
            if table.shape[1] != self.dim:
                raise ValueError(f"dim: is {self.dim} but the fitted embedding has {table.shape[1]} "
                                 "columns; call fit with warm_start=False to start afresh")
            self._set_table(np.ascontiguousarray(table, dtype=self._dtype))
            if not hasattr(self, "_kernel_seed"):
                self._kernel_seed = draw_seed(check_random_state(self.random_state))
            fill_from = None
        else:
            # free the previous fit's solver before the new one's arrays are allocated
            self.__dict__.pop("solver_", None)
            self.__dict__.pop("_loaded_state", None)
            solver, same_source = None, False
            rng = check_random_state(self.random_state)
            self._rng = rng
            self.__dict__.pop("_reverse_seed", None)
            self.__dict__.pop("_validation_seed", None)
            train = self._training_data(X, rng, validation)
            self._check_memory(train)
            self._kernel_seed = draw_seed(rng)
            # allocated now, drawn after the solver is built: untouched pages cost no memory while the
            # solver copies the input pairs, and the draws are the same (the solver draws nothing)
            self._set_table(np.empty((train.n_nodes, self.dim), dtype=self._dtype), train.layout)
            fill_from = rng
            self.history_ = []
            self.n_iter_ = 0
        arguments = self._solver_arguments()
        reuse = (solver is not None and train is None and solver.seed == self._kernel_seed
                 and solver.key == {k: v for k, v in arguments.items() if k not in solver.settings}
                 and solver.embedding.dtype == self._training_table().dtype)
        if reuse:
            solver.embedding = self._training_table()
        else:
            if train is None:                 # the same data, other parameters: rebuild on the same pairs
                train = solver.training_data()
            else:
                self._set_node_ids(train)
            state = solver.state() if same_source else getattr(self, "_loaded_state", None)
            self.__dict__.pop("solver_", None)
            solver = None
            n_pairs = len(train.positives) + len(train.negatives)
            self.solver_ = self._solver_class(train, self._training_table(), seed=self._kernel_seed,
                                              n_source=self.__dict__.get("_n_source"), state=state or None,
                                              **arguments)
            self.__dict__.pop("_loaded_state", None)
            train = None                      # the input pairs: the solver has what it needs
            if fill_from is not None:
                self._fill_initial_embedding(self._training_table(), fill_from)
            self.solver_.prepare()
        for name in self.solver_.settings:    # what may change between epochs without a rebuild
            setattr(self.solver_, name, arguments[name])
        self._data_source = X
        if validation is None:
            self.__dict__.pop("_validation_source", None)
        else:
            self._validation_source = validation
        self._id_lookup = None
        self._prepare_divergence_checks(fresh=not continue_, start=self.n_iter_)
        self._prepare_monitor(fresh=not continue_)
        if not reuse:
            self._preparation_ends(prepared_from, n_pairs)
        return callbacks

    def _prepare_monitor(self, fresh):
        """The early-stopping monitor of this ``fit`` (``_monitor``; None without early stopping), and the
        attributes it fills: a fit without early stopping removes an earlier one's; a continued one
        (``warm_start``) starts from the tables it continues, scored, as the best so far."""
        self.__dict__.pop("_monitor", None)
        if not self._carves_validation():
            for name in self._EARLY_STOPPING_ATTRIBUTES:
                self.__dict__.pop(name, None)
            return
        data = self._validation_data
        self._monitor = ValidationMonitor(data.positives, data.negatives, n_iter_no_change=self.n_iter_no_change,
                                          tol=self.validation_tol)
        if fresh or not isinstance(self.__dict__.get("validation_scores_"), list):
            for name in self._EARLY_STOPPING_ATTRIBUTES:      # a fresh fit: nothing of an earlier one
                self.__dict__.pop(name, None)
            self.validation_scores_ = []
        if not fresh and self.n_iter_ > 0:
            # the tables held now: those of best_iteration_ after an early-stopped fit, else of the last epoch
            epoch = self.__dict__.get("best_iteration_")
            epoch = self.n_iter_ - 1 if epoch is None else epoch
            table = self._training_table()
            self._monitor.start(self._monitor.score(table, self.n_threads), epoch, table, self.solver_)

    # ------------------------------------------------------------------ one or two tables
    def _training_table(self):
        """The array the solver trains: ``embedding_`` itself (undirected graph), or the stacked table
        whose first ``n_source`` rows are ``embedding_`` and the rest ``context_embedding_``."""
        table = self.__dict__.get("_table")
        return self.embedding_ if table is None else table

    def _set_table(self, table, layout=_MISSING):
        """Bind the trained ``table``: for one table ``embedding_ = table``; for two, ``embedding_`` and
        ``context_embedding_`` become views of its rows.  ``layout`` (a :class:`TableLayout`, or None
        for one table) changes the split; by default the fitted one is kept."""
        if layout is _MISSING:   # keep the fitted split
            kind = getattr(self, "graph_kind_", "undirected")
            n_source = self.__dict__.get("_n_source")
        else:
            kind = "undirected" if layout is None else layout.kind
            n_source = None if layout is None else layout.n_source
        if kind not in TWO_TABLE_KINDS:
            for name in ("_table", "_n_source", "context_embedding_"):
                self.__dict__.pop(name, None)
            self.embedding_ = table
        else:
            self._table, self._n_source = table, int(n_source)
            # row slices of a C-contiguous array are C-contiguous views: the solver's updates show in both
            self.embedding_ = table[:n_source]
            self.context_embedding_ = table[n_source:]
        self.graph_kind_ = kind

    def _set_node_ids(self, train):
        """``node_ids_`` (and, for two tables, ``context_node_ids_``) of freshly coerced data."""
        layout = train.layout
        if layout is None:
            self.node_ids_ = train.node_ids
            self.__dict__.pop("context_node_ids_", None)
        else:
            self.node_ids_ = layout.source_ids
            self.context_node_ids_ = layout.target_ids

    def _check_same_kind(self, train):
        """Continuing a fit on new data: the data must be a graph of the fitted model's kind."""
        kind = "undirected" if train.layout is None else train.layout.kind
        fitted = getattr(self, "graph_kind_", "undirected")
        if kind != fitted:
            raise ValueError(f"X: is a {kind} graph but the model was fitted on a {fitted} graph; "
                             "call fit to start afresh")

    #: what a pickle keeps of a fitted model besides the parameters: what :meth:`save` writes (the table(s),
    #: node ids, history, seeds; the solver's state goes in as ``_loaded_state``), not the solver's per-pair
    #: arrays nor the training data (``solver_``, ``_data_source``), which made a pickle many times its model file
    #: (benchmarks/README.md, "scikit-learn: F1 scorers and pickle sizes")
    _pickled_attributes = ("embedding_", "context_embedding_", "_table", "_n_source", "node_ids_", "context_node_ids_",
                           "graph_kind_", "history_", "n_iter_", "_kernel_seed", "_reverse_seed", "_dtype",
                           "_loaded_state", "_validation_seed") + _EARLY_STOPPING_ATTRIBUTES

    def __getstate__(self):
        """The parameters and what :meth:`save` keeps (``_pickled_attributes``), so that ``pickle`` and
        ``joblib.dump`` of a fitted model (or of a pipeline holding one) cost about its model file.

        An unpickled model is what :meth:`load` gives: ``transform``, ``score_pairs`` and ``score`` are
        the same, and ``partial_fit``/``fit`` with ``warm_start=True`` rebuild the solver from ``X``,
        starting from the embedding and the solver's saved state (DCD's duals), as after :meth:`load`;
        with an int ``random_state`` the rebuilt solver draws the first fit's pairs, so that continuing
        the unpickled model equals continuing the original.  The price: the first such call prepares
        the training pairs again (the seconds of a fit's preparation).  ``copy.deepcopy`` goes the same
        way (a copy has no solver until it trains).
        """
        state = super().__getstate__()
        kept = set(self._get_param_names()) | set(self._pickled_attributes) | {"_sklearn_version"}
        solver = state.get("solver_")
        state = {k: v for k, v in state.items() if k in kept}
        if solver is not None:
            state["_loaded_state"] = dict(solver.state()) or None
        if state.get("_table") is not None:
            # the two views are rebuilt from the table on unpickling: pickled apart they would become
            # copies of its rows
            state = {k: v for k, v in state.items() if k not in ("embedding_", "context_embedding_")}
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "embedding_" in self.__dict__ or self.__dict__.get("_table") is not None:
            self._id_lookup = None
        if self.__dict__.get("_table") is not None:
            self._set_table(self._table)

    # ------------------------------------------------------------------ memory
    def _memory_needed(self, train):
        """Bytes a fresh fit allocates, by part: the embedding, the per-thread work rows and the
        solver's per-pair (and per-node) arrays."""
        row = int(self.dim) * self._dtype.itemsize
        parts = {
            "embedding": train.n_nodes * row,
            "work": 2 * int(self.n_threads) * row,
            "pairs": (len(train.positives) + len(train.negatives)) * self._solver_class.bytes_per_pair,
            "nodes": 64 * train.n_nodes,   # per-node arrays (degrees, counts, orders), whatever the edges
        }
        if self._carves_validation():
            # early stopping keeps a copy of the best epoch's tables (the duals are the solver's business)
            parts["the best epoch's copy of the embedding (early stopping)"] = train.n_nodes * row
        return parts

    def _check_memory(self, train):
        """MemoryError before allocating what cannot fit (it would thrash, then fail, much later)."""
        parts = self._memory_needed(train)
        needed = sum(parts.values())
        available, source = available_memory()
        if available is None or needed <= available:
            return
        n_pairs = len(train.positives) + len(train.negatives)
        largest = max(parts, key=parts.get)
        if largest == "pairs":
            advice = ("use fewer training pairs: fewer negatives per edge (lgekit.split_edges(..., "
                      "negatives_per_positive=k)) or a smaller graph")
        elif largest == "nodes":
            advice = (f"the graph has {train.n_nodes:,} nodes for {n_pairs:,} training pairs: drop the nodes without "
                      "edges, or load a graph with fewer nodes")
        else:
            advice = f"lower dim (now {self.dim})"
            if largest == "work":
                advice += f" or n_threads (now {self.n_threads})"
            if self._dtype == np.float64:
                advice += " or use dtype='float32' (half the bytes)"
        # a model's own parts (e.g. LogisticEmbedding's exact diagnostics with a tie), named as it names them
        extra = "".join(f", {format_bytes(v)} for {k}" for k, v in parts.items()
                        if k not in ("embedding", "work", "pairs", "nodes"))
        raise MemoryError(
            f"{type(self).__name__}: training needs about {format_bytes(needed)} ({format_bytes(parts['embedding'])} "
            f"for the {train.n_nodes:,} x {self.dim:,} {self._dtype.name} embedding, {format_bytes(parts['work'])} "
            f"for {self.n_threads} thread(s)' work rows, {format_bytes(parts['nodes'])} for the {train.n_nodes:,} "
            f"nodes' arrays, {format_bytes(parts['pairs'])} for {n_pairs:,} training pairs{extra}) but only {format_bytes(available)} is available ({source}); {advice}")

    def _initial_embedding(self, n_nodes, rng):
        """A fresh (n_nodes, dim) embedding drawn by :meth:`_fill_initial_embedding`."""
        return self._fill_initial_embedding(np.empty((n_nodes, self.dim), dtype=self._dtype), rng)

    def _fill_initial_embedding(self, emb, rng):
        """Fill ``emb`` uniformly in [-init_scale, init_scale]: the numbers one ``rng.uniform(-s, s, emb.shape)``
        call gives (``low + (high - low) * next_double``, in float64, cast to the dtype), drawn at most
        ``_init_block_bytes`` at a time, so that the peak memory is the embedding plus one block (and the
        block stays in cache between the draw, the scaling and the cast)."""
        flat = emb.reshape(-1)
        low, span = -float(self.init_scale), 2.0 * float(self.init_scale)
        step = max(1, self._init_block_bytes // 8)
        # float64 is drawn straight into the embedding; float32 through one float64 block
        buffer = None if emb.dtype == np.float64 else np.empty(min(step, flat.size))
        for lo in range(0, flat.size, step):
            hi = min(lo + step, flat.size)
            block = flat[lo:hi] if buffer is None else buffer[:hi - lo]
            rng.random(out=block)
            block *= span
            # the float64 sum rounded to the embedding's dtype on the way out: the cast of block + low
            np.add(block, low, out=flat[lo:hi], casting="same_kind")
        return emb

    # ------------------------------------------------------------------ divergence
    def _prepare_divergence_checks(self, fresh, start):
        """Reference values of the divergence checks, taken where this run starts."""
        self._run_start = start
        if fresh:
            s = float(self.init_scale)
            self._initial_score = math.sqrt(self.dim) * s * s / 3.0
        elif not hasattr(self, "_initial_score"):
            self._initial_score = None
        if not fresh and getattr(self, "_divergence_solver", None) is self.solver_:
            return  # same solver: keep the reference of the run that started it (partial_fit loops cost nothing)
        ref = None
        if self.divergence_objective_factor is not None:
            # the estimate may use the typical initial score only while the embedding is its initialisation
            score = self._initial_score if self.n_iter_ == 0 else None
            values = [v for v in (self.solver_.zero_objective(), self.solver_.objective_estimate(score))
                      if v is not None and math.isfinite(v)]
            ref = max(values) if values else None
        self._divergence_reference = ref
        self._divergence_solver = self.solver_

    def _divergence_reason(self, record):
        """Which divergence check ``record`` (not yet in ``history_``) fails, or None."""
        return divergence_reason(
            record, self.history_, max_mean_norm=self.divergence_max_mean_norm,
            objective_factor=self.divergence_objective_factor,
            reference=getattr(self, "_divergence_reference", None), norm_growth=self.divergence_norm_growth,
            norm_growth_alone=self.divergence_norm_growth_alone, growth_epochs=self.divergence_growth_epochs)

    def _divergence_advice_for(self, record):
        """(advice, parameter) for a diverged ``record``: init_scale when the start was already out of
        range, else the solver's analysis."""
        score = getattr(self, "_initial_score", None)
        if score is not None and (not math.isfinite(score) or score > self._saturated_initial_score):
            return (f"init_scale={self.init_scale:g} is too large for dim={self.dim}: the initial scores x_u . x_v "
                    f"are of typical size sqrt(dim) * init_scale**2 / 3 = {score:.3g} (every sigmoid saturated, or "
                    f"overflowing {self._dtype.name}); use a smaller init_scale (the default is 0.1)"), "init_scale"
        return self.solver_.divergence_advice(record, getattr(self, "_run_start", 0))

    # ------------------------------------------------------------------ progress
    def _preparation_begins(self, X, announce):
        """Start timing the preparation; with ``verbose >= 1`` and ``announce``, say what is prepared."""
        if self.verbose >= 1 and announce:
            size = describe_input(X)
            _progress.write_line(f"{type(self).__name__}: preparing the training pairs{' of ' + size if size else ''} ...")
        return time.perf_counter()

    def _preparation_ends(self, started, n_pairs):
        """With ``verbose >= 1``: the pairs prepared and how long it took since ``started``."""
        if self.verbose >= 1:
            seconds = time.perf_counter() - started
            took = f"{seconds:.1f}s" if seconds < 60 else _progress.format_duration(seconds)
            _progress.write_line(f"{type(self).__name__}: {n_pairs:,} training pairs on "
                                 f"{self._training_table().shape[0]:,} nodes ready in {took}")

    def _epoch_summary(self, record):
        """One epoch in words: objective, mean norm, the metrics callbacks recorded, seconds."""
        parts = []
        if record.get("objective") is not None:
            se = record.get("objective_se")
            parts.append(f"objective {record['objective']:.6g}" + (f" ± {se:.2g}" if se else ""))
        parts.append(f"mean norm {record['mean_norm']:.4g}")
        parts += [f"{key} {record[key]:.4f}" for key in sorted(record)
                  if key.endswith(("_ap", "_f1")) and isinstance(record[key], float)]
        parts.append(f"{record['seconds']:.3f}s")
        return f"epoch {record['epoch']}: " + ", ".join(parts)

    def _train(self, callbacks, start, n_epochs):
        """The epoch loop: ``solver_.run_epoch``, the record, the divergence checks, the callbacks."""
        self.planned_epochs_ = range(start, start + n_epochs)
        for cb in callbacks:
            if hasattr(cb, "on_train_begin"):
                cb.on_train_begin(self)
        name = type(self).__name__
        solver = self.solver_
        # verbose >= 1: a bar on a terminal or in a notebook, a line every few seconds in a pipe or a log
        # (lgekit._progress decides); a single epoch gets none, or a loop of partial_fit(X, epochs=1) would
        # draw one bar per call
        shown = n_epochs > 1 and self.verbose >= 1
        bar = _progress.progress(n_epochs, desc=name, unit="epoch", enabled=shown)
        # verbose >= 2: a printed line per epoch, written to stderr directly (visible with no logging set up),
        # above the bar or between the periodic lines
        say = bar.write if shown else _progress.write_line
        try:
            for epoch in range(start, start + n_epochs):
                with DeferredInterrupt() as interrupt:
                    t0 = time.perf_counter()
                    status = solver.run_epoch(epoch)
                    record = {"epoch": epoch, "seconds": time.perf_counter() - t0}
                    record.update(solver.epoch_record(epoch, status))
                    stop = self._record_epoch(record, callbacks)
                interrupt.release()
                if self.verbose >= 2:
                    say(f"{name}: {self._epoch_summary(record)}")
                objective = record.get("objective")
                bar.update(1, postfix=None if objective is None else f"objective {objective:.5g}")
                if stop:
                    why = (f"stopped early after epoch {epoch}: val_ap did not improve by validation_tol="
                           f"{self.validation_tol:g} for {self.n_iter_no_change} epochs" if stop == "early stopping"
                           else f"stopped by a callback after epoch {epoch}")
                    logger.info(why)
                    if self.verbose >= 2:
                        say(f"{name}: {why}")
                    break
        finally:
            bar.close()
            # an exception (divergence, an interrupt) leaves the tables of the last epoch, the one history_ ends on
            monitor = self.__dict__.pop("_monitor", None)
        if monitor is not None:
            self._end_early_stopping(monitor)
            if self.verbose >= 2 and self.best_iteration_ is not None:
                say(f"{name}: the tables of epoch {self.best_iteration_} (val_ap {self.best_validation_score_:.4f}), "
                    "the best on the validation pairs, are the fitted model")
        for cb in callbacks:
            if hasattr(cb, "on_train_end"):
                cb.on_train_end(self)

    def _end_early_stopping(self, monitor):
        """The end of an early-stopped fit: the best epoch's tables back, and the attributes that say so."""
        self.best_iteration_ = monitor.restore(self._training_table(), self.solver_, self.n_iter_ - 1)
        self.best_validation_score_ = None if self.best_iteration_ is None else monitor.best_score
        self.validation_scores_ = self.validation_scores_ + monitor.scores

    def _record_epoch(self, record, callbacks):
        """Check ``record`` for divergence, score the validation pairs (early stopping: ``"val_ap"``), append
        it to ``history_``, run the callbacks.  Returns why to stop ("early stopping", "callback") or None."""
        epoch = record["epoch"]
        if "mean_norm" not in record:
            table = self._training_table()     # every vector, of both tables
            record["mean_norm"] = float(np.mean(np.sqrt(np.einsum("ij,ij->i", table, table, dtype=np.float64))))
        reason = self._divergence_reason(record)
        record["diverged"] = reason is not None
        if reason is not None:
            record["divergence_reason"] = reason
        stop = None
        monitor = self.__dict__.get("_monitor")
        if monitor is not None and reason is None:
            table = self._training_table()
            record["val_ap"] = monitor.score(table, self.n_threads)
            if monitor.update(epoch, record["val_ap"], table, self.solver_):
                stop = "early stopping"
        self.history_.append(record)
        self.n_iter_ = epoch + 1
        if reason is not None:
            advice, parameter = self._divergence_advice_for(record)
            msg = f"{type(self).__name__} diverged at epoch {epoch} (0-based): {reason}; {advice}"
            raise DivergenceError(msg, epoch=epoch, history=list(self.history_), reason=reason, parameter=parameter)
        for cb in callbacks:
            if cb.on_epoch_end(self, epoch, record):
                stop = stop or "callback"
        return stop

    # ------------------------------------------------------------------ exits
    def _check_fitted(self):
        if not hasattr(self, "embedding_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _is_two_table(self):
        return "_table" in self.__dict__

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
        names = word2vec_names(self.node_ids_, self.context_node_ids_ if two_tables else None, "context:")
        table = np.asarray(self._training_table(), dtype=np.float32)
        kv = KeyedVectors(vector_size=table.shape[1], count=0, dtype=np.float32)
        kv.add_vectors(list(names), table)
        return kv

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
        state = {"validation_seed": self.__dict__.get("_validation_seed")}
        if "validation_scores_" in self.__dict__:
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
            target = BaseEmbedding._registry.get(name)
            if target is None:
                raise ValueError(f"{path}: unknown model class {name[:200]!r}; model files hold one of lgekit's "
                                 f"estimators ({', '.join(sorted(BaseEmbedding._registry))})")
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

    def to_word2vec(self, path, *, binary=False, context_prefix="context:"):
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
