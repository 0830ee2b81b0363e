"""The estimator base of every lgekit embedding model: training.  Validation, seeding, the three starts of a fit
(fresh, warm, on a reused solver), the epoch loop with its history, callbacks, progress and divergence checks.
The fitted vectors and what they answer (``transform``, ``score``, ``score_pairs``, ``most_similar``, the
files) are :mod:`._node_vectors`' (gensim's ``KeyedVectors`` beside its ``Word2Vec``).
Data to index pairs is :mod:`._training_data`'s job, file formats :mod:`._model_file`'s, and the epochs the
solver's (:mod:`._solver`): a model is its ``__init__``, its parameter table and its solver class."""
import logging
import math
import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import TransformerTags

from .. import _parameters, _progress
from ..graph import warn_outside_lgekit
from .._openmp import openmp_enabled
from .._random import check_random_state, draw_seed
from .._validation import InvalidParameterError, validate_parameter_constraints
from ..evaluation import check_validation_split, validation_split
from ._divergence import (GROWTH_EPOCHS, MAX_MEAN_NORM, NORM_GROWTH, NORM_GROWTH_ALONE, OBJECTIVE_FACTOR,
                          DivergenceError, divergence_reason)
from ._early_stopping import ValidationMonitor
from ._interrupt import DeferredInterrupt
from ._machine import MAX_THREADS_PER_CPU, available_cores, available_memory, format_bytes, max_n_threads
from ._node_vectors import NodeVectors
from ._training_data import TrainingData, describe_input, match_rows, training_data

__all__ = ["BaseEmbedding", "DivergenceError", "model_is_non_deterministic"]

logger = logging.getLogger(__name__)

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


class BaseEmbedding(NodeVectors, BaseEstimator):
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
    # the divergence thresholds, defined in _divergence.py (the user guide's "When a fit diverges" says what
    # each means); a subclass or a user may change them, None disables a check
    divergence_max_mean_norm = MAX_MEAN_NORM
    divergence_objective_factor = OBJECTIVE_FACTOR
    divergence_norm_growth = NORM_GROWTH
    divergence_norm_growth_alone = NORM_GROWTH_ALONE
    divergence_growth_epochs = GROWTH_EPOCHS
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
    def _check_against_graph(self, kind):
        """Refuse the parameters a graph of kind ``kind`` (``"undirected"``, ``"directed"``, ``"bipartite"``)
        cannot take, with the parameter's own error: the second half of parameter validation, run by ``fit``
        as soon as the graph's kind is known and before any table is allocated.  The base has none; a model
        with such parameters extends it (LogisticEmbedding: the directed extras)."""

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
                f"an int in [1, {limit}] ({MAX_THREADS_PER_CPU} x the {available_cores()} CPUs this process may use; "
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
        self._forget("_validation_data")
        source = X
        if self._carves_validation():
            # drawn first, given a validation split or not, so that the fit's other draws are the same either way
            # (a fit given the split it would have carved is that fit, bit for bit); kept for continued fits
            if not hasattr(self, "_validation_seed"):
                self._validation_seed = draw_seed(rng)
            source = validation if validation is not None else \
                validation_split(X, self.validation_fraction, seed=self._validation_seed)
        # a continued fit rebuilding its pairs reuses the first fit's coins: the same split, the same pairs
        train = training_data(source, rng, negatives_per_positive=self.negatives_per_positive, n_threads=self.n_threads,
                              reverse_negatives=self._pairs_options["reverse_negatives"],
                              reverse_seed=getattr(self, "_reverse_seed", None))
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
        """Everything before the first epoch, in three steps; returns the checked callbacks.

        1. The start: :meth:`_start_fresh` (new seeds, ``X``'s training pairs, a new table) or, continuing,
           :meth:`_start_warm` (the fitted table(s) go on, on ``X``'s pairs, or on the solver's own when
           ``X`` is the data it was built on: :meth:`_built_on`).
        2. The solver: the one held, as it is, when nothing but its per-epoch settings changed
           (:meth:`_solver_reusable`: a loop of ``partial_fit(X, epochs=1)``); else a new one, on its
           predecessor's pairs when only a parameter changed, and with its state (DCD's duals) on the same
           data.
        3. The run's checks: divergence references and, with early stopping, the validation monitor.
        """
        self._validate_params()
        callbacks = self._check_callbacks(callbacks)
        validation = self._check_validation(X, validation)
        solver = getattr(self, "solver_", None)
        same_source = continue_ and self._built_on(solver, X, validation)
        # verbose >= 1 says what is prepared before the first epoch (sampling, pair records, initialisation)
        prepared_from = self._preparation_begins(X, announce=not same_source)
        if continue_:
            train = self._start_warm(X, validation, same_source)
        else:
            solver = None   # the previous fit's solver is freed before the new one's arrays are allocated
            train = self._start_fresh(X, validation)
        arguments = self._solver_arguments()
        reuse = train is None and self._solver_reusable(solver, arguments)
        if reuse:
            solver.embedding = self._training_table()
        else:
            if train is None:                 # the same data, other parameters: rebuild on the same pairs
                train = solver.training_data()
            else:
                self._set_node_ids(train)
            state = solver.state() if same_source else getattr(self, "_loaded_state", None)
            solver = None
            self._forget("solver_")
            n_pairs = len(train.positives) + len(train.negatives)
            self.solver_ = self._solver_class(train, self._training_table(), seed=self._kernel_seed,
                                              n_source=getattr(self, "_n_source", None), state=state or None,
                                              **arguments)
            self._forget("_loaded_state")
            train = None                      # the input pairs: the solver has what it needs
            if not continue_:                 # a fresh table: drawn now (see _start_fresh)
                self._fill_initial_embedding(self._training_table(), self._rng)
            self.solver_.prepare()
        for name in self.solver_.settings:    # what may change between epochs without a rebuild
            setattr(self.solver_, name, arguments[name])
        self._data_source = X
        self._forget("_validation_source")
        if validation is not None:
            self._validation_source = validation
        self._id_lookup = None
        self._prepare_divergence_checks(fresh=not continue_, start=self.n_iter_)
        self._prepare_monitor(fresh=not continue_)
        if not reuse:
            self._preparation_ends(prepared_from, n_pairs)
        return callbacks

    def _built_on(self, solver, X, validation):
        """Whether ``solver`` was built on the data object ``X`` itself, with the same pair options
        (:meth:`_pair_options`) and the same validation split."""
        return (solver is not None and X is getattr(self, "_data_source", None)
                and getattr(self, "_pairs_options", None) == self._pair_options()
                and validation is getattr(self, "_validation_source", None))

    def _start_fresh(self, X, validation):
        """A new fit: the seeds drawn from ``random_state``, ``X``'s training pairs, the table allocated (its
        values drawn once the solver is built), no history.  Returns the pairs."""
        # the previous fit's solver goes before the new one's arrays are allocated
        self._forget("solver_", "_loaded_state", "_reverse_seed", "_validation_seed")
        rng = self._rng = check_random_state(self.random_state)
        train = self._training_data(X, rng, validation)
        self._check_against_graph("undirected" if train.layout is None else train.layout.kind)
        self._check_memory(train)
        self._kernel_seed = draw_seed(rng)
        # allocated now, drawn after the solver is built: untouched pages cost no memory while the
        # solver copies the input pairs, and the draws are the same (the solver draws nothing)
        self._set_table(np.empty((train.n_nodes, self.dim), dtype=self._dtype), train.layout)
        self.history_ = []
        self.n_iter_ = 0
        return train

    def _start_warm(self, X, validation, same_source):
        """A continued fit (``warm_start``, ``partial_fit``): the fitted table(s) go on.  Returns ``X``'s
        training pairs, drawn from the fit's own generator and matched to the fitted rows by node id, or
        None when ``X`` is the data the solver was built on (``same_source``: the solver has its pairs)."""
        # the fitted kind: new data must be of it (_check_same_kind), and a parameter changed since is checked
        self._check_against_graph(getattr(self, "graph_kind_", "undirected"))
        train = None
        if not same_source:
            rng = self._rng if hasattr(self, "_rng") else check_random_state(self.random_state)
            train = self._training_data(X, rng, validation)
            self._check_same_kind(train)
            # rows by id: the same nodes in another order train their own rows; other nodes are refused
            context_ids = getattr(self, "context_node_ids_", None)
            train = match_rows(train, self.node_ids_, context_ids)
            if hasattr(self, "_validation_data"):
                self._validation_data = match_rows(self._validation_data, self.node_ids_, context_ids)
        table = self._training_table()
        if table.shape[1] != self.dim:
            raise ValueError(f"dim: is {self.dim} but the fitted embedding has {table.shape[1]} "
                             "columns; call fit with warm_start=False to start afresh")
        self._set_table(np.ascontiguousarray(table, dtype=self._dtype))
        if not hasattr(self, "_kernel_seed"):
            self._kernel_seed = draw_seed(check_random_state(self.random_state))
        return train

    def _solver_reusable(self, solver, arguments):
        """Whether ``solver`` may run the next epochs as it is: drawn from the same seed, built with the same
        arguments but for its per-epoch ``settings``, and training a table of the same dtype."""
        return (solver is not None and solver.seed == self._kernel_seed
                and solver.key == {k: v for k, v in arguments.items() if k not in solver.settings}
                and solver.embedding.dtype == self._training_table().dtype)

    def _prepare_monitor(self, fresh):
        """The early-stopping monitor of this ``fit`` (``_monitor``; None without early stopping), and the
        attributes it fills: a fit without early stopping removes an earlier one's; a continued one
        (``warm_start``) starts from the tables it continues, scored, as the best so far."""
        self._forget("_monitor")
        if not self._carves_validation():
            self._forget(*self._EARLY_STOPPING_ATTRIBUTES)
            return
        data = self._validation_data
        self._monitor = ValidationMonitor(data.positives, data.negatives, n_iter_no_change=self.n_iter_no_change,
                                          tol=self.validation_tol)
        if fresh or not isinstance(getattr(self, "validation_scores_", None), list):
            self._forget(*self._EARLY_STOPPING_ATTRIBUTES)      # a fresh fit: nothing of an earlier one
            self.validation_scores_ = []
        if not fresh and self.n_iter_ > 0:
            # the tables held now: those of best_iteration_ after an early-stopped fit, else of the last epoch
            epoch = getattr(self, "best_iteration_", None)
            epoch = self.n_iter_ - 1 if epoch is None else epoch
            table = self._training_table()
            self._monitor.start(self._monitor.score(table, self.n_threads), epoch, table, self.solver_)

    # ------------------------------------------------------------------ one or two tables
    def _set_node_ids(self, train):
        """``node_ids_`` (and, for two tables, ``context_node_ids_``) of freshly coerced data."""
        layout = train.layout
        if layout is None:
            self.node_ids_ = train.node_ids
            self._forget("context_node_ids_")
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
        if hasattr(self, "embedding_") or getattr(self, "_table", None) is not None:
            self._id_lookup = None
        if getattr(self, "_table", None) is not None:
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
            monitor = getattr(self, "_monitor", None)
            self._forget("_monitor")
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
        monitor = getattr(self, "_monitor", None)
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
