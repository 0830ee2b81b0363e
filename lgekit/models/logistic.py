"""LogisticEmbedding: the negative-sampling linear graph embedding trained by SGD.

The estimator validates, seeds and records; its solver (:class:`~lgekit.models.SGDSolver`,
``_sgd_solver.py``) holds the prepared pairs and runs the epochs.
"""
from .. import _parameters
from .._validation import InvalidParameterError
from ._base import BaseEmbedding
from ._diagnostic_sample import diagnostics_mode
from ._sgd_solver import SGDSolver

__all__ = ["LogisticEmbedding"]


class LogisticEmbedding(BaseEmbedding):
    r"""Linear graph embedding with the logistic (negative-sampling) loss, trained by SGD.

    Learns one vector :math:`x_v \in \mathbb{R}^D` per node so that
    :math:`\sigma(x_u \cdot x_v)` is high for edges and low for sampled
    non-edges, with an optional squared-norm regulariser (Gao et al. 2019,
    Section 3.2).  The loop runs in a Cython kernel (``lgekit.models._sgd``).

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
        0 the norms grow without bound and the model overfits).  The default
        is the best median test AP over four real graphs
        (``benchmarks/bench_defaults.py``); ``lam_r=0`` with ``lr_offset=9``
        is the paper's unregularised setting (``lgekit fit --preset paper``).
    lam_r_context : float or None, default None
        For a directed or bipartite graph (two tables, see Notes): the
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
        much smaller lr, see Notes).
    negatives : {"fixed", "resample"}, default "fixed"
        ``"fixed"``: the negative pairs given (split) or drawn once;
        ``"resample"``: as many fresh uniform non-edge pairs every epoch
        (for two tables, a source/left row and a target/right row).
    reverse_negatives : float in [0, 1] or None, default None
        Directed graphs only: the share :math:`\rho` of each one-way arc's
        negatives that are its reverse pair (direction-aware negatives, see
        Notes); they replace as many uniform ones.  None: :math:`0.35\,r`
        for a directed graph, :math:`r` the training arcs'
        :meth:`~lgekit.Graph.reciprocity`: reverse pairs tell a one-way arc
        from a reciprocated one, so a mostly reciprocated graph gains
        direction AP from them, while one without reciprocated arcs gains
        nothing and loses link AP (``benchmarks/README.md``, "Direction:
        ties", has the figures); 0 otherwise.  A value > 0 for an
        undirected or bipartite graph is refused.
    node_bias : bool or None, default None
        Two tables only: carry a source bias :math:`b_u` and a target bias
        :math:`c_v` on a constant coordinate of the tables themselves, so
        that the score is :math:`x'_u\cdot y'_v + \kappa\,(b_u + c_v)` (the
        last two of the ``dim`` columns; see Notes, "Node biases").  A
        directed graph's biases are a node order, :math:`c_u = -b_u` (Notes,
        "Ties").  None: on for a directed graph with ``order="edge"`` and
        ``dim >= 2``, off otherwise (on Cora they lift the direction AP
        past the degree rule's; ``benchmarks/README.md``, "Direction:
        ties", has the figures).  True is refused
        for an undirected graph (one table's :math:`x_u\cdot x_v` cannot
        carry :math:`b_u + c_v`), with ``order="vertex"`` and with ``dim=1``.
    lam_tie : float >= 0 or None, default None
        Directed graphs only: the weight :math:`\lambda_{\mathrm{tie}}` of
        :math:`\lambda_{\mathrm{tie}}\sum_u\|x'_u - y'_u\|^2`, which pulls
        each node's source and target vectors (their free coordinates)
        together, taken by its proximal step after every epoch (Notes,
        "Ties").  None: :math:`r / (1 - r)`, the odds that a training arc
        is reciprocated (capped at :math:`r = 0.999`), for a directed
        graph, 0 otherwise.  0: the two tables are free (footnote 1's model); a
        value > 0 for an undirected or bipartite graph is refused.
    weighting : {"sample", "scale"}, default "sample"
        What edge weights do (nothing on an unweighted graph; a graph's
        weights are its ``weight`` edge attribute, the values of a sparse
        matrix or an edge list's third column, see :class:`~lgekit.Graph`).
        ``"sample"``: LINE's edge sampling -- each epoch draws its
        :math:`|E_+|` positive pairs with probability proportional to weight
        and takes unit-weight steps, so heavy edges are visited more often,
        never with a larger step (a weighted graph trains at the same ``lr``
        as an unweighted one); in expectation the objective is the
        ``"scale"`` one with the weights divided by their mean.
        ``"scale"``: each edge's loss is multiplied by its weight (footnote 1
        of the paper); weights far above 1 then need a smaller ``lr``.
    dtype : {"float32", "float64"}, default "float32"
        Precision of the embedding and of the update arithmetic.
    n_threads : int, default 1
        OpenMP threads for the epoch and the diagnostics; at most
        64 x ``os.cpu_count()`` (:func:`lgekit.models.max_n_threads`).
    schedule : {"hogwild", "deterministic", "blocks"}, default "hogwild"
        ``"hogwild"``: the pairs in a uniformly random order, threads
        without locks (not reproducible for ``n_threads > 1``);
        ``"deterministic"``: bit-identical results for any ``n_threads``
        (a stratified pair order); ``"blocks"``: the deterministic order's
        blocks without its barriers, threads without locks (not
        reproducible for ``n_threads > 1``; the fastest on graphs whose
        table fits in the caches, such as BlogCatalog; edge order only);
        see Notes.
    random_state : None, int or numpy.random.Generator
        Seeds the initialisation, the negatives drawn for a graph and the
        kernel's SplitMix64 streams.
    verbose : int, default 0
        What a fit writes to ``sys.stderr`` (no ``logging`` set-up needed):
        0 nothing; 1 the preparation and the epochs' progress (a bar on a
        terminal or in Jupyter, a line every few seconds elsewhere); 2 also
        a line per epoch.  See "Progress" in
        :class:`~lgekit.models.BaseEmbedding`.
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
        best epoch's tables (see "Early stopping" in
        :class:`~lgekit.models.BaseEmbedding`; ``epochs`` is then the most
        epochs run).  Off by default: it trains on fewer edges, which costs
        link AP on sparse graphs (``benchmarks/README.md``, "Norms chosen by
        validation").
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
        ``divergence_max_mean_norm`` (1e8), the objective ends an epoch above
        ``divergence_objective_factor`` (10) times the larger of its starting
        value and of the all-zero embedding's, or the mean norm grows by
        ``divergence_norm_growth`` (1.5x) per epoch for
        ``divergence_growth_epochs`` (3) epochs while the objective rises
        (2x per epoch without ``diagnostics``).  The thresholds are class
        attributes (see :class:`~lgekit.models.BaseEmbedding`); the message
        names ``lam_r`` when its regulariser step overshoots
        (:math:`\gamma_t \cdot 2\lambda_r / c > 2` for a vector in
        :math:`c` pairs), ``init_scale`` when the initial scores already
        saturate the sigmoids, else ``lr``.
    MemoryError
        From ``fit`` when the embedding and the pair arrays (about 24 bytes
        per pair) exceed the available memory, before allocating them.

    Notes
    -----
    Objective (the regularised objective of Section 3.2; :math:`w_{uv}` = edge weight, 1 if
    unweighted; :math:`E_+` training edges, :math:`E_-` negative pairs):

    .. math::

        L(X) = -\lambda_+ \sum_{(u,v) \in E_+} w_{uv} \log\sigma(x_u\cdot x_v)
               -\lambda_- \sum_{(u,v) \in E_-} \log\sigma(-x_u\cdot x_v)
               +\lambda_r \sum_v \|x_v\|^2

    and its gradient (Eq. 2):

    .. math::

        \frac{\partial L}{\partial x_u} =
            -\lambda_+ \sum_{v \in N_+(u)} w_{uv}\,\sigma(-x_u\cdot x_v)\,x_v
            +\lambda_- \sum_{v \in N_-(u)} \sigma(x_u\cdot x_v)\,x_v
            + 2\lambda_r x_u .

    Edge order: each epoch visits every training pair (positives and
    negatives) once in a fresh random order (uniform with the default
    ``schedule="hogwild"``, stratified with ``"deterministic"``; see
    Schedules below).  For pair
    :math:`(u, v)` with :math:`s = x_u\cdot x_v` and
    :math:`g = -\lambda_+ w_{uv}\sigma(-s)` (edge) or
    :math:`g = \lambda_-\sigma(s)` (negative), both endpoints move at once
    from their old values:

    .. math::

        x_u \leftarrow x_u - \gamma_t\,(g\,x_v + \tfrac{2\lambda_r}{c_u} x_u),\qquad
        x_v \leftarrow x_v - \gamma_t\,(g\,x_u + \tfrac{2\lambda_r}{c_v} x_v),

    where :math:`c_x` is the number of training pairs containing :math:`x`:
    the regulariser's gradient is split over the visits of a vertex, so an
    epoch applies :math:`\lambda_r\|x\|^2` once (applying the full
    :math:`2\lambda_r x` at every visit would multiply :math:`\lambda_r` by the
    degree).  A vertex in no training pair is never updated.

    Directed and bipartite graphs (footnote 1 of the paper; Theorem 1's
    setting): two tables, a source/left vector :math:`x_u` (``embedding_``)
    and a target/right vector :math:`y_v` (``context_embedding_``), and the
    score of a pair is :math:`x_u\cdot y_v`, asymmetric for a directed
    graph.  The objective is the one above with :math:`x_u\cdot y_v` in the
    losses and :math:`\lambda_r\sum_u\|x_u\|^2 +
    \lambda_r^{\mathrm{ctx}}\sum_v\|y_v\|^2` (``lam_r_context``) as the
    regulariser.  The solver trains one stacked table of ``n_source +
    n_target`` rows on the pairs :math:`(u, n_\mathrm{source} + v)`, the
    "transformed undirected bipartite graph" of the footnote, so every
    update rule above applies unchanged (see :mod:`lgekit.reference`,
    "Two tables").  With ``negatives="resample"`` a negative joins a
    uniform source/left row to a uniform target/right row (never a directed
    graph's node to itself), as the split's negatives do.

    Direction-aware negatives (directed graphs, ``reverse_negatives``
    :math:`=\rho`).  Uniform negatives contain the reverse of an arc only by
    chance, so nothing asks :math:`x_u\cdot y_v` to exceed
    :math:`x_v\cdot y_u`.  With :math:`q = |E_-| / |E_+|` negatives per arc,
    each one-way arc :math:`u\to v` (its reverse not a training arc,
    :math:`E_1`) gets :math:`\rho q` copies of :math:`(v, u)` as negatives
    in expectation (whole copies and a coin for the fraction, drawn once
    from ``random_state``), replacing as many uniform ones.  The objective,
    in expectation over the coins, is

    .. math::

        L = -\lambda_+ \sum_{(u,v)\in E_+} w_{uv}\log\sigma(x_u\cdot y_v)
            -\lambda_- \sum_{(a,b)\in E_-^{\mathrm{unif}}} \log\sigma(-x_a\cdot y_b)
            -\lambda_- \rho q \sum_{(u,v)\in E_1} \log\sigma(-x_v\cdot y_u)
            + \lambda_r \sum_u \|x_u\|^2 + \lambda_r^{\mathrm{ctx}} \sum_v \|y_v\|^2,

    with :math:`|E_-^{\mathrm{unif}}| = |E_-| - \rho q |E_1|`: the same
    number of pairs and the same epoch as before
    (:func:`lgekit.reference.reverse_negatives` builds them).  The
    reverse pairs stay fixed when ``negatives="resample"`` redraws the
    uniform ones.  A held-out arc whose reverse is a training arc gets its
    own pair as a reverse negative: on a graph where most arcs are
    reciprocated this lowers the link-prediction AP (see
    ``benchmarks/README.md``, "Direction").

    Node biases (``node_bias``, two tables, edge order).  A per-node order
    is what tells most arcs' direction on citation and e-mail graphs (the
    degree rule :math:`\log\frac{d^+_u+1}{d^-_u+1} - \log\frac{d^+_v+1}{d^-_v+1}`
    scores it), and two tables can hold one
    exactly: :math:`x_u = (a_u, 1)`, :math:`y_v = (1, -a_v)` score
    :math:`a_u - a_v`.  Plain SGD falls well short of the degree rule on
    Cora (``benchmarks/README.md``, "Direction: node biases"): the order
    has to be spread over all ``dim`` coordinates of every vector under
    one :math:`\lambda_r`.  With ``node_bias`` the last two columns are
    set aside for it: a source row is :math:`x_u = (x'_u, b_u, \kappa)`
    and a target row :math:`y_v = (y'_v, \kappa, c_v)`, so

    .. math::

        x_u\cdot y_v = x'_u\cdot y'_v + \kappa\,(b_u + c_v),

    and the direction log-odds (see
    :func:`lgekit.metrics.direction_average_precision`) gain
    :math:`\kappa(b_u - c_u) - \kappa(b_v - c_v)`: Bradley-Terry's
    :math:`a_u - a_v` with :math:`a_u = \kappa(b_u - c_u)`.  The objective is
    the one above on these vectors, so :math:`\lambda_r\|x_u\|^2 =
    \lambda_r(\|x'_u\|^2 + b_u^2 + \kappa^2)`; in the bias
    :math:`\beta_u = \kappa b_u` that enters the score the regulariser is
    :math:`(\lambda_r/\kappa^2)\,\beta_u^2`, and an edge step moves it by
    :math:`\kappa^2` times a free coordinate's step
    (:math:`\beta_u \leftarrow (1 - \gamma_t\,2\lambda_r/c_u)\,\beta_u -
    \gamma_t\,\kappa^2 g`).  :math:`\kappa` is therefore the bias's
    regularisation, :math:`\lambda_r/\kappa^2`; lgekit uses
    :math:`\kappa = 0.5` (``lgekit.models._sgd_solver.BIAS_CONSTANT``): on
    Cora a larger :math:`\kappa` (weaker bias regularisation) trades link
    AP for direction AP, a smaller one the reverse (the measurements are in
    ``benchmarks/README.md``).  The constant coordinates are held by
    projection: after each update of a row the kernel puts its constant
    coordinate back to :math:`\kappa` (projected SGD onto
    :math:`\{x_{u,D-1} = \kappa,\ y_{v,D-2} = \kappa\}`; the partner's
    constant is :math:`\kappa` when a step reads it, so the step of every
    other coordinate is the gradient step of the biased score), and the
    solver projects the initial vectors before the first epoch
    (:func:`lgekit.reference.sgd_edge_epoch` with ``pinned`` and
    :func:`lgekit.reference.bias_pins` is the reference).  Why the biases
    learn the degree rule: with uniform negatives every node is the source
    (and the target) of the same expected number :math:`q|E_+|/n` of
    negative pairs, so with the vectors' terms left out the stationarity
    condition of :math:`\beta_u` balances
    :math:`\lambda_+\sum_{v \in N^+(u)}\sigma(-s_{uv})` against
    :math:`\lambda_-\sum_{\text{negatives }(u,\cdot)}\sigma(s)` plus the
    shrinkage; for small scores :math:`e^{\beta_u}` grows as the out-degree
    :math:`d^+_u` and :math:`e^{\gamma_v}` (:math:`\gamma_v = \kappa c_v`)
    as the in-degree, and :math:`\beta_u - \gamma_u \approx
    \log(d^+_u / d^-_u)` + const is the degree rule with the regulariser in
    place of its +1.  The free coordinates then learn what the order does
    not explain.  The history's ``reg`` and ``mean_norm`` count the constant
    coordinates (:math:`\lambda_r\kappa^2` a row, a fixed offset) and its
    ``mean_grad_norm`` their discarded gradient.

    Ties (directed graphs: ``lam_tie``, and the order of the biases).  Write
    a node's free coordinates as :math:`x'_u = z_u + w_u`,
    :math:`y'_u = z_u - w_u`.  The score then splits into a symmetric part
    :math:`z_u\cdot z_v - w_u\cdot w_v` and an antisymmetric part
    :math:`w_u\cdot z_v - z_u\cdot w_v`, and the direction log-odds are

    .. math::

        s(u, v) - s(v, u) = 2\,(w_u\cdot z_v - z_u\cdot w_v)
            + \kappa\,(b_u - c_u) - \kappa\,(b_v - c_v).

    A directed adjacency :math:`A` with :math:`m` arcs, a share :math:`r` of
    them reciprocated (:meth:`~lgekit.Graph.reciprocity`), splits the same
    way: :math:`\|A + A^\top\|_F^2 = 2m(1 + r)` and
    :math:`\|A - A^\top\|_F^2 = 2m(1 - r)`.  The antisymmetric part is
    learnt from the one-way arcs alone, yet the regulariser treats both parts
    alike, :math:`\lambda_r(\|x'_u\|^2 + \|y'_u\|^2) =
    2\lambda_r(\|z_u\|^2 + \|w_u\|^2)`: on a mostly reciprocated graph the
    :math:`w` fit noise and blur the order (on email-Eu-core the model
    without a tie tells direction worse than the degree rule).  The tie

    .. math::

        \lambda_{\mathrm{tie}}\sum_u \|x'_u - y'_u\|^2
            = 4\lambda_{\mathrm{tie}}\sum_u \|w_u\|^2

    raises the regularisation of :math:`w` alone, from :math:`2\lambda_r` to
    :math:`2\lambda_r + 4\lambda_{\mathrm{tie}}`.  Its default,
    :math:`\lambda_{\mathrm{tie}} = r / (1 - r)`, the ratio of reciprocated
    to one-way arcs, is 0 on a graph without reciprocated arcs (the two tables
    free: footnote 1's model) and grows without bound as the graph becomes
    symmetric (the tables tied: the undirected model with an order on top).
    The form is that ratio; its scale (1 a unit of odds) was set on Cora and
    email-Eu-core, where the prior that matches the two energies,
    :math:`\lambda_r r / (1 - r)`, ties too little (less link AP on both
    graphs) and twice the default adds nothing (``benchmarks/README.md``,
    "Direction: ties", has the figures).  After each epoch, at the epoch's step
    :math:`\gamma_t`, the solver takes the tie's proximal step: the
    minimiser of :math:`\tfrac12\|X - X_0\|^2 + \gamma_t\lambda_{\mathrm{tie}}
    \sum_u\|x'_u - y'_u\|^2` keeps :math:`x'_u + y'_u` and divides
    :math:`x'_u - y'_u` by :math:`1 + 4\gamma_t\lambda_{\mathrm{tie}}`
    (:func:`lgekit.reference.tie_step`); the edge order's regulariser, split
    over a row's visits, also takes one :math:`\gamma_t` step of its
    gradient an epoch, so the tie is applied at the regulariser's rate.  The
    history's ``objective``, ``reg`` and ``mean_grad_norm`` include it.

    The biases split alike: :math:`b_u + c_u` is a node's popularity, added to
    the score of every pair it is in, and :math:`b_u - c_u` its place in the
    order.  The free coordinates carry popularity already (through their
    norms), while on a sparse graph popularity biases fitted from a node's
    one or two training arcs push down every pair of the nodes that have
    none: on Cora they cost link AP and add no direction AP.  So
    after each epoch (after the tie) a directed graph's biases are projected
    onto :math:`b_u + c_u = 0`: :math:`a_u = (b_u - c_u)/2`,
    :math:`b_u = a_u`, :math:`c_u = -a_u` (:func:`lgekit.reference.order_biases`),
    and the biases add :math:`\kappa(a_u - a_v)` to the score of
    :math:`u \to v`: Bradley-Terry's order inside the embedding.  A
    bipartite graph's biases stay free (its sides share no node).

    Vertex order: each epoch visits the vertices in random order and steps
    :math:`x_u \leftarrow x_u - \gamma_t\,\partial L/\partial x_u` with the
    full Eq. 2 gradient at the current neighbours.  The step grows with the
    degree, so it needs a much smaller step :math:`\gamma_t` than the edge
    order, e.g. ``lr=1, lr_offset=750`` (:math:`\gamma_0 \approx 0.037`);
    too large a step raises :class:`~lgekit.models.DivergenceError` within a
    few epochs.

    Weighted graphs: with ``weighting="scale"`` each edge's term is
    multiplied by its weight (footnote 1 of the paper); with the default
    ``"sample"`` the weights are divided by their mean and realised by
    drawing each epoch's positives with probability :math:`w_e / \sum w`
    (an alias table, O(1) a draw; LINE [4]_), each step using
    :math:`\lambda_+`; the regulariser's split then counts expected visits.
    The vertex order (a full-gradient step) uses the mean-1 weights as
    they are.  With ``negatives="resample"``, epoch :math:`t` draws
    :math:`|E_-|` pairs with both ends uniform, rejecting self-pairs and
    training edges; the given negatives then only fix the count.

    The history's objective, its parts, the mean norm and the mean Eq. 2
    gradient norm are computed after each epoch in the kernel (double
    precision accumulation, parallel over vertices).  Cost per epoch:
    :math:`O(|E_+ \cup E_-|\,D)` for the updates and again for the
    diagnostics; memory :math:`O(nD + |E_+ \cup E_-|)`.

    Reproducibility: all randomness comes from ``random_state`` (the
    initialisation, the negatives drawn for a graph and one 64-bit kernel
    seed); epoch :math:`t` uses the SplitMix64 streams
    ``rng_stream(seed, 2t)`` (visiting order; its sub-stream 2 draws a
    weighted graph's positives) and ``rng_stream(seed, 2t+1)`` (resampled
    negatives).  With ``n_threads=1`` every fit is bit-for-bit
    reproducible.

    Schedules.  ``"hogwild"`` (default) visits the pairs in a uniformly
    random permutation, the paper's SGD; with ``n_threads > 1`` the threads
    take consecutive pieces of it (about 8,000 pairs) as they finish the
    previous ones and update shared rows without locks (Recht et al. [2]_):
    fast, but the result depends on thread timing, and each row written by
    both threads moves between the cores' caches.
    ``"deterministic"`` gives bit-identical results for ANY ``n_threads``.
    Edge order: the pairs are visited in a stratified order, as in
    distributed SGD for matrix factorisation [3]_: each epoch deals the
    vertices at random into :math:`K` equal groups (a group's rows fill about
    128 KiB; :math:`K \le 256`, even, and 1 on small graphs, where the order
    is a uniform permutation), cuts the pairs into the :math:`K(K+1)/2`
    blocks of group pairs and visits :math:`K` rounds of vertex-disjoint
    blocks in random order, each block's pairs in uniformly random order.
    Threads share a round's blocks and wait for each other after it; disjoint
    blocks commute exactly.  Every pair is still visited once per epoch, and
    a block's rows stay in the core's L2 cache.  The price is statistical:
    pairs of one block are visited close together, which changes the early
    course of the norms with ``lam_r=0``, so the paper's Figure 2 (a norm
    rising steadily) needs the default schedule.  :math:`K` depends only on the number of nodes and
    pairs and on ``dim``, not on ``dtype`` or ``n_threads``.  Vertex order:
    the shuffled vertices are cut into levels (a vertex's level is one more
    than the highest level of the earlier vertices it shares a pair with),
    run in order with a barrier between levels; the same order as
    ``"hogwild"`` on one thread.
    ``"blocks"`` (edge order) hands the threads the same blocks in the same
    round order but does not wait at the end of a round: a thread that
    finishes takes a block of the next round while others finish theirs.
    Blocks of one round share no row, so two threads write the same row
    only at a round's boundary, where ``"hogwild"`` has every thread write
    every row and each write moves the row between the cores' caches.  On
    one thread it is ``"deterministic"`` bit for bit; on more it is
    lock-free SGD over the stratified order (not reproducible), with the
    statistical caveat above.  ``benchmarks/README.md`` has the
    measurements.
    float32 fits compute the sigmoid, and the diagnostics' log-sigmoid, in
    single precision (an inlined exponential; relative errors below 4e-7).
    Results differ between float32 and float64 and between builds with
    different compilers/flags.

    scikit-learn: ``clone``, ``get_params``/``set_params`` and ``Pipeline``
    work (``fit(X, y=None, *, callbacks=None)`` ignores ``y``;
    ``transform(graph)`` gives one row per node of the graph, in its order,
    so ``make_pipeline(LogisticEmbedding(), LogisticRegression()).fit(graph, y)``
    trains a node classifier on labels ``y``); ``score(split)`` is the test
    AP.  ``GridSearchCV`` and ``cross_val_score`` over node labels go
    through :class:`~lgekit.models.NodeEmbedding` (the graph held as a
    parameter, node ids as ``X``); for link prediction tune ``lam_r`` on a
    validation split of the training graph (see
    :class:`~lgekit.models.BaseEmbedding`, "scikit-learn").

    References
    ----------
    .. [1] Y. Gao, C. Zhang, J. Peng, A. Parameswaran, "The Importance of
       Norm Regularization in Linear Graph Embedding: Theoretical Analysis
       and Empirical Demonstration", ICLR 2019.  Section 3.2 (the regularised
       objective), Eq. 2 (gradient), learning rate
       :math:`\gamma_t = (t + c)^{-1/2}`.
    .. [2] B. Recht, C. Re, S. Wright, F. Niu, "Hogwild!: A Lock-Free Approach
       to Parallelizing Stochastic Gradient Descent", NeurIPS 2011.
    .. [3] R. Gemulla, E. Nijkamp, P. J. Haas, Y. Sismanis, "Large-Scale Matrix
       Factorization with Distributed Stochastic Gradient Descent", KDD 2011
       (stratified SGD: blocks of disjoint rows and columns per stratum).
    .. [4] J. Tang, M. Qu, M. Wang, M. Zhang, J. Yan, Q. Mei, "LINE: Large-scale
       Information Network Embedding", WWW 2015 (edge sampling with an alias
       table, Section 4.2).

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
