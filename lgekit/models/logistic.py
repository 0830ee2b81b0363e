"""LogisticEmbedding: the negative-sampling linear graph embedding trained by SGD.

The estimator validates, seeds and records; its solver (:class:`~lgekit.models.SGDSolver`,
``_sgd_solver.py``) holds the prepared pairs and runs the epochs.
"""
from .. import _parameters
from .._validation import InvalidParameterError
from ._base import BaseEmbedding
from ._diagnostic_sample import diagnostics_mode
from ._sgd_solver import SGDSolver
from ._two_tables import check_extras

__all__ = ["LogisticEmbedding"]


class LogisticEmbedding(BaseEmbedding):
    r"""Linear graph embedding with the logistic (negative-sampling) loss, trained by SGD.

    Learns one vector :math:`x_v \in \mathbb{R}^D` per node so that
    :math:`\sigma(x_u \cdot x_v)` is high for edges and low for sampled
    non-edges, minimising the regularised objective of the paper's
    Section 3.2 (:math:`w_{uv}` an edge's weight, :math:`E_+` the training
    edges, :math:`E_-` the negative pairs)

    .. math::

        L(X) = -\lambda_+ \sum_{(u,v) \in E_+} w_{uv} \log\sigma(x_u\cdot x_v)
               -\lambda_- \sum_{(u,v) \in E_-} \log\sigma(-x_u\cdot x_v)
               +\lambda_r \sum_v \|x_v\|^2

    by stochastic gradient descent along its gradient (Eq. 2), in a Cython
    kernel.  A directed or bipartite graph gets two tables, scoring
    :math:`x_u \cdot y_v`.

    Read more in the :ref:`User Guide <guide-logistic>`: the update rules,
    the schedules, the defaults and why, the directed extras and the
    diagnostics.

    Parameters
    ----------
    dim : int, default 100
        Embedding dimension :math:`D`.
    lam_pos : float, default 1.0
        Weight :math:`\lambda_+` of the positive (edge) terms.
    lam_neg : float, default 0.03
        Weight :math:`\lambda_-` of the negative terms.
    lam_r : float, default 0.3
        Norm regularisation :math:`\lambda_r` (the point of the paper: with
        0 the norms grow without bound and the model overfits).  ``lam_r=0``
        with ``lr_offset=9`` is the paper's unregularised setting
        (``lgekit fit --preset paper``); :class:`LogisticEmbeddingCV`
        chooses it on a validation split.
    lam_r_context : float or None, default None
        For a directed or bipartite graph (two tables): the
        :math:`\lambda_r` of the context table ``context_embedding_``
        (Theorem 1's separate norm budget :math:`C_V`); None: ``lam_r``.
        Ignored for an undirected graph.
    epochs : int, default 50
        Number of epochs run by :meth:`fit`.
    lr : float, default 1.0
        Base learning rate; epoch :math:`t` (0-based) uses
        :math:`\gamma_t = \mathrm{lr}\,(t + \mathrm{lr\_offset})^{-1/2}`.
    lr_offset : float, default 1.0
        The offset :math:`c` of the schedule (> 0).
    init_scale : float, default 0.1
        Initial coordinates are uniform in ``[-init_scale, init_scale]``.
    order : {"edge", "vertex"}, default "edge"
        ``"edge"``: per-pair updates in a random order each epoch;
        ``"vertex"``: per-vertex steps along the full Eq. 2 gradient (needs a
        much smaller step, e.g. ``lr_offset=750``).
    negatives : {"fixed", "resample"}, default "fixed"
        ``"fixed"``: the negative pairs given (split) or drawn once;
        ``"resample"``: as many fresh uniform non-edge pairs every epoch
        (for two tables, a source/left row and a target/right row).
    reverse_negatives : float in [0, 1] or None, default None
        Directed graphs only: the share :math:`\rho` of each one-way arc's
        negatives that are its reverse pair (direction-aware negatives);
        they replace as many uniform ones.  None: :math:`0.35\,r` for a
        directed graph, :math:`r` the training arcs'
        :meth:`~lgekit.Graph.reciprocity`, 0 otherwise.  A value > 0 for an
        undirected or bipartite graph is refused.
    node_bias : bool or None, default None
        Two tables only: carry a source bias :math:`b_u` and a target bias
        :math:`c_v` on a constant coordinate of the tables themselves (the
        last two of the ``dim`` columns), so that the score is
        :math:`x'_u\cdot y'_v + \kappa\,(b_u + c_v)`; a directed graph's
        biases are a node order, :math:`c_u = -b_u`.  None: on for a
        directed graph with ``order="edge"`` and ``dim >= 2``, off
        otherwise.  True is refused for an undirected graph, with
        ``order="vertex"`` and with ``dim=1``.
    lam_tie : float >= 0 or None, default None
        Directed graphs only: the weight :math:`\lambda_{\mathrm{tie}}` of
        :math:`\lambda_{\mathrm{tie}}\sum_u\|x'_u - y'_u\|^2`, which pulls
        each node's source and target vectors (their free coordinates)
        together, taken by its proximal step after every epoch.  None:
        :math:`r / (1 - r)`, the odds that a training arc is reciprocated
        (capped at :math:`r = 0.999`), for a directed graph, 0 otherwise.
        0: the two tables are free (footnote 1's model); a value > 0 for an
        undirected or bipartite graph is refused.
    weighting : {"sample", "scale"}, default "sample"
        What edge weights do (nothing on an unweighted graph; a graph's
        weights are its ``weight`` edge attribute, the values of a sparse
        matrix or an edge list's third column, see :class:`~lgekit.Graph`).
        ``"sample"``: LINE's edge sampling -- each epoch draws its
        :math:`|E_+|` positive pairs with probability proportional to weight
        and takes unit-weight steps (a weighted graph trains at the same
        ``lr`` as an unweighted one).  ``"scale"``: each edge's loss is
        multiplied by its weight (footnote 1 of the paper); weights far
        above 1 then need a smaller ``lr``.
    dtype : {"float32", "float64"}, default "float32"
        Precision of the embedding and of the update arithmetic.
    n_threads : int, default 1
        OpenMP threads for the epoch and the diagnostics; at most 64 x the
        cores this process may use (:func:`lgekit.models.max_n_threads`).
    schedule : {"hogwild", "deterministic", "blocks"}, default "hogwild"
        ``"hogwild"``: the pairs in a uniformly random order, threads
        without locks (not reproducible for ``n_threads > 1``);
        ``"deterministic"``: bit-identical results for any ``n_threads``
        (a stratified pair order); ``"blocks"``: the deterministic order's
        blocks without its barriers, threads without locks (not
        reproducible for ``n_threads > 1``; edge order only).  With one
        thread every schedule is reproducible.
    random_state : None, int or numpy.random.Generator
        Seeds the initialisation, the negatives drawn for a graph and the
        kernel's SplitMix64 streams.
    verbose : int, default 0
        What a fit writes to ``sys.stderr`` (no ``logging`` set-up needed):
        0 nothing; 1 the preparation and the epochs' progress (a bar on a
        terminal or in Jupyter, a line every few seconds elsewhere); 2 also
        a line per epoch.
    warm_start : bool, default False
        When True, ``fit`` on a fitted model continues from its embedding
        (as :meth:`partial_fit` does) instead of starting afresh.
    diagnostics : {"sampled", "exact"} or bool, default "sampled"
        Record the objective, its three parts and the mean Eq. 2 gradient
        norm after every epoch (the paper's Figures 1-3).  ``"sampled"``
        (or True) estimates them from a sample of the pairs and of the
        vertices, unbiased, and records each estimate's standard error
        (``"objective_se"``, ``"loss_pos_se"``, ``"loss_neg_se"``,
        ``"mean_grad_norm_se"``); the regulariser and the mean norm are
        exact.  ``"exact"`` takes one more pass over all pairs, which costs
        about as much as the epoch itself (the standard errors are then 0).
        With False the records hold only ``"epoch"``, ``"seconds"``,
        ``"lr"`` and ``"mean_norm"`` (plus callback fields).  The trained
        embedding is the same in all three cases.
    early_stopping : bool, default False
        Hold out a validation split of the training graph, train on the
        rest, and stop once the validation AP stops improving, keeping the
        best epoch's tables (``epochs`` is then the most epochs run).  Off
        by default: it trains on fewer edges.
    validation_fraction : float in (0, 1), default 0.1
        The share of the training edges held out (with ``early_stopping``).
    n_iter_no_change : int >= 1, default 5
        Epochs without an improvement of at least ``validation_tol`` before
        stopping.
    validation_tol : float >= 0, default 1e-4
        The least gain of validation AP that counts as an improvement
        (scikit-learn's ``tol`` with ``early_stopping=True``).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_nodes, dim)
        Row ``i`` is the vector of the node with internal index ``i``
        (``node_ids_[i]``).  For a directed graph the source (out-) vectors
        :math:`x_u`; for a bipartite graph the left nodes' vectors
        (``n_left`` rows).
    context_embedding_ : ndarray of shape (n_targets, dim)
        Only for a directed or bipartite graph: the target (in-) vectors
        :math:`y_v` (``n_nodes`` rows), or the right nodes' vectors
        (``n_right`` rows), aligned with ``context_node_ids_``.  Not set for
        an undirected graph.
    node_ids_ : ndarray of shape (n_nodes,)
        The ids of ``embedding_``'s rows (a bipartite graph's left ids).
    context_node_ids_ : ndarray
        The ids of ``context_embedding_``'s rows (two tables only).
    graph_kind_ : {"undirected", "directed", "bipartite"}
        The kind of the graph the model was fitted on.
    history_ : list of dict
        One record per epoch: ``epoch`` (0-based t), ``seconds``, ``lr``
        (:math:`\gamma_t`), ``objective``, ``loss_pos``, ``loss_neg``,
        ``reg``, ``mean_norm`` (mean of :math:`\|x_v\|`), ``mean_grad_norm``
        (mean over vertices of :math:`\|\partial L / \partial x_u\|`, Eq. 2),
        ``diverged``, ``val_ap`` (with ``early_stopping``), plus callback
        fields.
    n_iter_ : int
        Epochs run so far.
    solver_ : SGDSolver
        The solver: the training pairs as the kernel reads them, the work
        arrays and the kernel seed, with ``run_epoch(t)``, ``diagnostics()``,
        ``epoch_order(t)`` and ``epoch_negatives(t)`` (see
        :class:`~lgekit.models.SGDSolver`).  A loaded or unpickled model has
        none until its next ``fit``/``partial_fit`` (a pickle keeps what
        :meth:`save` keeps).
    planned_epochs_ : range
        The epochs the running (or last) ``fit``/``partial_fit`` call plans.
    validation_scores_ : list of float
        With ``early_stopping``: the validation AP after each epoch (also the
        records' ``"val_ap"``; a ``warm_start`` fit appends).
    best_validation_score_ : float
        With ``early_stopping``: the best of them.
    best_iteration_ : int
        With ``early_stopping``: the epoch (0-based) whose tables the model
        holds.

    Raises
    ------
    lgekit.models.DivergenceError
        From ``fit`` when a score becomes non-finite, the mean norm passes
        ``divergence_max_mean_norm``, the objective ends an epoch above
        ``divergence_objective_factor`` times the larger of its starting
        value and of the all-zero embedding's, or the mean norm grows by
        ``divergence_norm_growth`` per epoch for
        ``divergence_growth_epochs`` epochs while the objective rises
        (``divergence_norm_growth_alone`` without ``diagnostics``).  The
        thresholds are class attributes (their values: the
        :ref:`User Guide <guide-estimators-divergence>`); the message names
        ``lam_r`` when its regulariser step overshoots
        (:math:`\gamma_t \cdot 2\lambda_r / c > 2` for a vector in
        :math:`c` pairs), ``init_scale`` when the initial scores already
        saturate the sigmoids, else ``lr``.
    MemoryError
        From ``fit`` when the embedding and the pair arrays (about 24 bytes
        per pair) exceed the available memory, before allocating them.

    See Also
    --------
    LogisticEmbeddingCV : ``lam_r`` (and ``dim``) chosen on a validation split of the training graph.
    HingeEmbedding : the hinge loss, by dual coordinate descent (the paper's Section 4).
    NodeEmbedding : the embedding as node features for scikit-learn's model selection.
    lgekit.reference.sgd_edge_epoch : one epoch of the edge order in plain NumPy.

    References
    ----------
    .. [1] Y. Gao, C. Zhang, J. Peng, A. Parameswaran, "The Importance of
       Norm Regularization in Linear Graph Embedding: Theoretical Analysis
       and Empirical Demonstration", ICLR 2019.  Section 3.2 (the regularised
       objective), Eq. 2 (gradient), learning rate
       :math:`\gamma_t = (t + c)^{-1/2}`.

    Examples
    --------
    >>> import networkx as nx
    >>> from lgekit import LogisticEmbedding
    >>> g = nx.karate_club_graph()
    >>> model = LogisticEmbedding(dim=8, epochs=5, lam_r=0.1, random_state=0).fit(g)
    >>> model.embedding_.shape
    (34, 8)
    >>> len(model.history_), model.n_iter_
    (5, 5)
    >>> sorted(k for k in model.history_[0] if k != "seconds")  # doctest: +NORMALIZE_WHITESPACE
    ['diverged', 'epoch', 'loss_neg', 'loss_neg_se', 'loss_pos', 'loss_pos_se', 'lr', 'mean_grad_norm',
     'mean_grad_norm_se', 'mean_norm', 'objective', 'objective_se', 'reg']
    """

    _parameter_constraints = _parameters.LOGISTIC
    _solver_class = SGDSolver

    def __init__(self, dim=100, *, lam_pos=1.0, lam_neg=0.03, lam_r=0.3, epochs=50, lr=1.0, lr_offset=1.0,
                 init_scale=0.1, order="edge", negatives="fixed", weighting="sample", dtype="float32", n_threads=1,
                 schedule="hogwild", random_state=None, verbose=0, warm_start=False, diagnostics="sampled",
                 lam_r_context=None, reverse_negatives=None, node_bias=None, lam_tie=None, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=5, validation_tol=1e-4):
        self.dim = dim
        self.lam_pos = lam_pos
        self.lam_neg = lam_neg
        self.lam_r = lam_r
        self.lam_r_context = lam_r_context
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
        self.warm_start = warm_start
        self.diagnostics = diagnostics
        self.reverse_negatives = reverse_negatives
        self.node_bias = node_bias
        self.lam_tie = lam_tie
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.validation_tol = validation_tol

    def _validate_params(self):
        super()._validate_params()
        if self.schedule == "blocks" and self.order == "vertex":
            raise InvalidParameterError(
                "LogisticEmbedding: schedule='blocks' needs order='edge' (it runs the edge order's "
                "pair blocks); with order='vertex' use 'deterministic' or 'hogwild', got 'blocks'",
                parameter="schedule", value=self.schedule, accepted="'deterministic' or 'hogwild' with order='vertex'")

    def _check_against_graph(self, kind):
        super()._check_against_graph(kind)
        # node_bias and lam_tie against the graph's kind, the order and dim (the directed extras, _two_tables.py)
        check_extras(self.node_bias, self.lam_tie, kind, self.order, int(self.dim))

    def _memory_needed(self, train):
        parts = super()._memory_needed(train)
        layout = getattr(train, "layout", None)
        if (diagnostics_mode(self.diagnostics) == "exact" and getattr(layout, "kind", None) == "directed"
                and self.lam_tie != 0):
            # the tie's gradient joins the kernel's row by row, so the exact records hold every row's gradient
            parts["the exact diagnostics' gradients"] = train.n_nodes * int(self.dim) * 8
        return parts

    def _solver_arguments(self):
        return dict(lam_pos=float(self.lam_pos), lam_neg=float(self.lam_neg), lam_r=float(self.lam_r),
                    lam_r_context=float(self.lam_r if self.lam_r_context is None else self.lam_r_context),
                    order=self.order, negatives=self.negatives, weighting=self.weighting, lr=float(self.lr),
                    lr_offset=float(self.lr_offset), schedule=self.schedule, n_threads=int(self.n_threads),
                    record_diagnostics=diagnostics_mode(self.diagnostics) or False,
                    node_bias=None if self.node_bias is None else bool(self.node_bias),
                    lam_tie=None if self.lam_tie is None else float(self.lam_tie))
