"""Hinge-loss linear graph embedding by dual coordinate descent (the paper's Algorithm 1).

The estimator is :class:`HingeEmbedding`; its solver (:class:`~lgekit.models.DCDSolver`), the
per-vertex pair layout (:func:`pair_csr`) and the stand-alone block solver
(:func:`solve_vertex_svm`) live in ``_dcd_solver.py`` and are re-exported here.
"""

import numpy as np

from .. import _parameters
from ._base import BaseEmbedding
from ._diagnostic_sample import diagnostics_mode
from ._dcd_solver import DCDSolver, PairCSR, pair_csr, solve_vertex_svm

__all__ = ["HingeEmbedding", "solve_vertex_svm", "pair_csr", "PairCSR"]


class HingeEmbedding(BaseEmbedding):
    r"""Linear graph embedding with the hinge loss, by dual coordinate descent.

    Minimises the paper's Section 4 objective (Eq. 3)

    .. math::

        L(X) = \lambda_+ \sum_{(u,v)\in E_+} w_{uv}\, h(x_u\cdot x_v)
             + \lambda_- \sum_{(u,v)\in E_-} h(-x_u\cdot x_v)
             + \frac{\lambda_r}{2} \sum_v \|x_v\|^2,
        \qquad h(z) = \max(0, 1 - z),

    by block coordinate descent over the vertices (Algorithm 1): with the
    other vectors fixed, the terms touching :math:`x_u` are a linear SVM
    without bias (Eq. 4), whose dual each visit of ``u`` solves by
    LIBLINEAR's dual coordinate descent (Hsieh et al. 2008), keeping one
    dual variable per (vertex, incident pair) across epochs.

    Read more in the :ref:`User Guide <guide-hinge>`: the dual, the
    safeguard, the schedules, the defaults and why, the certificates.

    Parameters
    ----------
    dim : int, default 100
        Embedding dimension D.
    lam_pos, lam_neg : float, default 1.0, 0.03
        Weights of the edge and negative-pair losses (>= 0).
    lam_r : float, default 3.0
        Norm regularisation, > 0 (the dual box is ``[0, lam / lam_r]``).
        Small values make the box huge: the paper reports very bad embeddings
        for :math:`\lambda_r \approx 0`, and the iteration may blow up, which
        raises :class:`~lgekit.models.DivergenceError`.
    lam_r_context : None or float, default None
        The context table's :math:`\lambda_r` for a directed or bipartite
        graph (two tables, as for :class:`~lgekit.LogisticEmbedding`; None:
        ``lam_r``): the objective then has :math:`\tfrac{\lambda_r}{2}
        \|x\|^2` on the source/left vectors and :math:`\tfrac{\lambda_r^V}{2}
        \|y\|^2` on the target/right ones, and a vertex's dual box is
        :math:`[0, \lambda / \lambda_r]` with its own table's value.
    epochs : int, default 20
        Passes over the vertices.
    inner_passes : int, default 1
        DCD passes over a vertex's pairs per visit (1 is the paper's
        setting).  Without ``monotone`` the global objective is not
        monotone in the early epochs; more passes give a smoother decrease
        at a proportional cost.
    inner_order : {"fixed", "random"}, default "fixed"
        The order of the coordinates (a vertex's pairs) in a pass.
        "fixed": Algorithm 1's line 2 listing, the vertex's edges
        :math:`N_+(u)` then its negatives :math:`N_-(u)` (each by partner),
        the same at every pass.  "random": a fresh uniform permutation
        before every pass, as LIBLINEAR does, drawn from the vertex's own
        stream.
    monotone : bool, default True
        A safeguard that is not in Algorithm 1: a visit whose new vector
        would be a worse point of u's SVM primal :math:`P_u` (Eq. 4) than
        the stored one runs up to 20 further passes, and if it still would,
        :math:`x_u` keeps its vector (the history's "n_kept" counts these
        visits).  No visit then raises the objective, so a sequential or
        ``"deterministic"`` fit cannot diverge.  False: Algorithm 1 as
        printed.
    init_scale : float, default 0.1
        Initial coordinates are uniform on ``[-init_scale, init_scale]``.
        Only the neighbours' initial vectors matter: a vertex's own vector is
        rebuilt from its (zero) duals at its first visit.
    tol : float, default 1e-3
        A visit stops before ``inner_passes`` passes once a pass sees no
        projected gradient larger than ``tol`` (LIBLINEAR's stopping rule on
        the block).  With ``inner_passes=1`` it only ends ``monotone``'s
        further passes.
    weighting : {"sample", "scale"}, default "sample"
        What edge weights do (nothing on an unweighted graph): ``"scale"``
        bounds edge :math:`e`'s dual by :math:`\lambda_+ w_e / \lambda_r`
        (its hinge loss counts :math:`w_e` times); ``"sample"`` trains on
        the weights divided by their mean, the expectation of LINE-style
        edge sampling.
    dtype : {"float32", "float64"}, default "float32"
        Precision of the embedding (the duals are always float64).
    n_threads : int, default 1
        OpenMP threads; at most 64 x the cores this process may use
        (:func:`lgekit.models.max_n_threads`).
    schedule : {"deterministic", "hogwild"}, default "deterministic"
        "deterministic": the vertices are greedily coloured once so that no
        two vertices of a colour share a pair; each epoch visits the colour
        classes in a random order and the vertices of a class in parallel.
        Results are bit-identical for any ``n_threads``.  "hogwild": one
        random order, vertices split across threads without locks; with
        ``n_threads=1`` exactly the paper's sequential algorithm and
        reproducible, with more threads not reproducible.
    random_state : None, int or numpy.random.Generator
        Seeds the initialisation, the negatives drawn for a graph, the
        colouring and every epoch's orders.
    verbose : int, default 0
        What a fit writes to ``sys.stderr`` (no ``logging`` set-up needed):
        0 nothing; 1 the preparation and the epochs' progress (a bar on a
        terminal or in Jupyter, a line every few seconds elsewhere); 2 also
        a line per epoch.
    warm_start : bool, default False
        When True, ``fit`` on an already fitted model continues from its
        embedding (and from its duals if the data is the same object).
    diagnostics : {"sampled", "exact"} or bool, default "sampled"
        Record the objective (Eq. 3) and its parts, and the blocks'
        certificates, after every epoch.  ``"sampled"`` (or True) estimates
        the loss parts from a sample of the pairs and the certificates from
        a sample of the vertices, unbiased, with their standard errors
        (``"objective_se"``, ``"loss_pos_se"``, ``"loss_neg_se"``,
        ``"duality_gap_se"``); ``"exact"`` takes one more pass over all
        pairs, a dot product each, and certifies every vertex.  With False
        the records hold the mean norm, the dual counts and "n_kept", but
        no "objective", "loss_pos", "loss_neg", "reg" or certificates; the
        trained embedding is the same in all three cases.
    early_stopping : bool, default False
        Hold out a validation split of the training graph, train on the
        rest, and stop once the validation AP stops improving, keeping the
        best epoch's tables and duals (``epochs`` is then the most epochs
        run).  Off by default: it trains on fewer edges.
    validation_fraction : float in (0, 1), default 0.1
        The share of the training edges held out (with ``early_stopping``).
    n_iter_no_change : int >= 1, default 5
        Epochs without an improvement of at least ``validation_tol`` before
        stopping.
    validation_tol : float >= 0, default 1e-4
        The least gain of validation AP that counts as an improvement
        (scikit-learn's ``tol`` with ``early_stopping=True``; ``tol`` is
        DCD's).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_nodes, dim)
    history_ : list of dict
        Per epoch: "epoch", "seconds", "objective", "loss_pos", "loss_neg",
        "reg", "mean_norm", "diverged", the dual counts "n_alpha_zero",
        "n_alpha_free", "n_alpha_bound" (duals at 0, strictly inside, at U:
        the last two are the support vectors), "n_kept" (visits at which
        ``monotone`` kept the old vector), and with ``diagnostics`` the
        certificates: "duality_gap" (mean over the vertices with pairs of
        the block SVM's duality gap ``P(x_u) - D(alpha_u)`` when it was
        solved, in the SVM's units, i.e. of ``L / lam_r``; from the sampled
        vertices, with "duality_gap_se", by default), "max_violation"
        (largest absolute projected gradient of the dual at those moments,
        among the certified vertices; both are 0 iff every block was solved
        exactly), "val_ap" (with ``early_stopping``), plus what callbacks add.
    dual_coef_ : ndarray of float64
        The duals, aligned with :attr:`pair_csr_` (a read-only view of the
        solver's; a loaded or unpickled model's until its next fit).
    pair_csr_ : PairCSR
        The training pairs seen from each vertex (see :func:`pair_csr`).
    n_iter_ : int
        Epochs run.
    solver_ : DCDSolver
        The solver: pair CSR, duals, colouring and kernel seed, with
        ``run_epoch(t)``, ``diagnostics()``, ``epoch_order(t)`` and
        ``coordinate_seed(t)`` (see :class:`~lgekit.models.DCDSolver`).  A
        loaded or unpickled model has none until its next ``fit`` or
        ``partial_fit`` (a pickle keeps what :meth:`save` keeps: the duals).
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
        From ``fit`` when a value becomes non-finite or the mean norm passes
        ``divergence_max_mean_norm`` (its value: the
        :ref:`User Guide <guide-hinge-divergence>`); the objective and
        norm-growth checks of the estimator base are off (DCD's early epochs
        may rise and recover).  The message names ``lam_r``.

    See Also
    --------
    HingeEmbeddingCV : ``lam_r`` (and ``dim``) chosen on a validation split of the training graph.
    LogisticEmbedding : the logistic loss, by SGD (the paper's Section 3).
    lgekit.reference.dcd_epoch : one epoch in plain NumPy.

    References
    ----------
    .. [1] Y. Gao, C. Zhang, J. Peng, A. Parameswaran, "The Importance of Norm
       Regularization in Linear Graph Embedding: Theoretical Analysis and
       Empirical Demonstration", ICLR 2019, Section 4 and Algorithm 1.
    .. [2] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan,
       "A Dual Coordinate Descent Method for Large-scale Linear SVM",
       ICML 2008, Algorithm 1.

    Examples
    --------
    >>> import networkx as nx
    >>> from lgekit import HingeEmbedding
    >>> model = HingeEmbedding(dim=8, lam_r=1.0, epochs=5, random_state=0)
    >>> X = model.fit_transform(nx.karate_club_graph())
    >>> X.shape
    (34, 8)
    >>> bool(model.history_[-1]["duality_gap"] >= 0)
    True
    """

    # DCD's early epochs may raise the objective by orders of magnitude and recover (measured in
    # benchmarks/README.md, "DCD's first epochs without the safeguard"), so only non-finite values and a mean
    # norm above divergence_max_mean_norm count as divergence
    divergence_objective_factor = None
    divergence_norm_growth = None
    divergence_norm_growth_alone = None
    _parameter_constraints = _parameters.HINGE
    _solver_class = DCDSolver

    def __init__(self, dim=100, *, lam_pos=1.0, lam_neg=0.03, lam_r=3.0, epochs=20, inner_passes=1,
                 inner_order="fixed", monotone=True, weighting="sample", init_scale=0.1, tol=1e-3, dtype="float32", n_threads=1,
                 schedule="deterministic", random_state=None, verbose=0, warm_start=False, diagnostics="sampled",
                 lam_r_context=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=5,
                 validation_tol=1e-4):
        self.lam_r_context = lam_r_context
        self.dim = dim
        self.lam_pos = lam_pos
        self.lam_neg = lam_neg
        self.lam_r = lam_r
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
        self.warm_start = warm_start
        self.diagnostics = diagnostics
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.validation_tol = validation_tol

    def _solver_arguments(self):
        return dict(lam_pos=float(self.lam_pos), lam_neg=float(self.lam_neg), lam_r=float(self.lam_r),
                    lam_r_context=float(self.lam_r if self.lam_r_context is None else self.lam_r_context),
                    weighting=self.weighting, inner_passes=int(self.inner_passes), tol=float(self.tol),
                    inner_order=self.inner_order, monotone=bool(self.monotone), schedule=self.schedule,
                    n_threads=int(self.n_threads), record_diagnostics=diagnostics_mode(self.diagnostics) or False)

    @property
    def pair_csr_(self):
        """The training pairs seen from each vertex (:class:`PairCSR`, the layout of ``dual_coef_``)."""
        solver = self.__dict__.get("solver_")
        if solver is None:
            raise AttributeError("pair_csr_: this HingeEmbedding has no solver yet; call fit or partial_fit")
        return solver.pair_csr

    @property
    def dual_coef_(self):
        """The duals, aligned with ``pair_csr_`` (read-only; a loaded model's until its next fit)."""
        solver = self.__dict__.get("solver_")
        if solver is not None:
            return solver.dual_coef
        loaded = (self.__dict__.get("_loaded_state") or {}).get("alpha")
        if loaded is None:
            raise AttributeError("dual_coef_: this HingeEmbedding is not fitted")
        view = np.asarray(loaded, dtype=np.float64).view()
        view.flags.writeable = False
        return view
