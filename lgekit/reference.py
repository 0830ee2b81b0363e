r"""Reference implementations of lgekit's solvers, in plain NumPy and Python.

Every function here is written to be read next to the paper (Gao, Zhang,
Peng & Parameswaran, ICLR 2019 [1]_), about one line of code per line of
mathematics; speed only matters so far as an epoch on a graph of a thousand
vertices takes seconds, not minutes.  The compiled kernels (``lgekit.models._sgd``,
``lgekit.models._dcd``) compute the same things fast; the test suite
certifies them against this module to about 1e-12 in float64, by feeding a
kernel and its reference the same visiting order.  That is why every epoch
here takes its visiting order (and DCD its coordinate orders) as an
argument: drawing the order is the kernel's business, the update rule is the
paper's.

Logistic (negative-sampling) model, trained by SGD (paper, Section 3.2):

* :func:`logistic_objective` -- the objective of Section 3.2;
* :func:`logistic_gradient` -- its gradient, Eq. (2);
* :func:`sgd_edge_epoch` -- one epoch of per-pair SGD steps;
* :func:`sgd_vertex_epoch` -- one epoch of per-vertex steps along Eq. (2);
* :func:`learning_rate` -- the step :math:`\gamma_t = \mathrm{lr}\,(t + c)^{-1/2}`;
* :func:`logistic_diagnostics` -- what ``LogisticEmbedding`` records after
  each epoch (objective parts, mean norm, mean gradient norm).

Hinge-loss model, trained by dual coordinate descent (paper, Section 4;
Hsieh et al. [2]_):

* :func:`hinge_objective` -- Eq. (3);
* :func:`vertex_svm_primal`, :func:`vertex_svm_dual`,
  :func:`vertex_certificates` -- one vertex's SVM, Eq. (4), its dual, and
  the duality gap / projected-gradient certificates;
* :func:`dcd_vertex_update` -- ``DcdUpdate`` of Algorithm 1;
* :func:`dcd_epoch` -- one pass of Algorithm 1's main loop;
* :func:`listed_coordinate_orders`, :func:`random_coordinate_orders` --
  coordinate orders for DCD (Algorithm 1's listing of D, or LIBLINEAR's
  per-pass permutations);
* :func:`hinge_diagnostics` -- what ``HingeEmbedding`` records after each
  epoch.

Two tables -- directed and bipartite graphs (footnote 1; Theorem 1's
bipartite setting, :math:`a \in U`, :math:`b \in V`, with budgets
:math:`C_U`, :math:`C_V`): a source/left vector :math:`x_u` and a
target/right vector :math:`y_v`, scored :math:`x_u\cdot y_v`, each table
with its own :math:`\lambda_r`:

* :func:`two_table_scores`, :func:`two_table_logistic_objective`,
  :func:`two_table_logistic_gradient` -- the objective and Eq. (2) per table;
* :func:`two_table_sgd_edge_epoch` -- one edge-order SGD epoch;
* :func:`two_table_sgd_vertex_epoch` -- one vertex-order SGD epoch;
* :func:`reverse_negatives` -- a directed graph's direction-aware
  negatives (the reverse of each one-way arc);
* :func:`stack_tables` -- the footnote's "transformed undirected bipartite
  graph": one table of both, on which the estimators' solvers run.

Equation numbers are those of the paper's LaTeX source, whose numbered
displays are (1) the negative-sampling objective, (2) the gradient
:math:`\partial L/\partial x_u`, (3) the hinge-loss objective and (4) one
vertex's SVM.  The logistic objective that Section 3.2 minimises by SGD is
the unnumbered display that opens its "Experiment Setting" paragraph.

All arithmetic is in float64, whatever the dtype of the input; inputs are
never modified.  Pairs are index pairs ``(u, v)`` into the rows of ``X``.

References
----------
.. [1] Y. Gao, C. Zhang, J. Peng, A. Parameswaran, "The Importance of Norm
   Regularization in Linear Graph Embedding: Theoretical Analysis and
   Empirical Demonstration", ICLR 2019.  Section 3.2 (objective, Eq. 2,
   step size), Section 4 (Eq. 3, Eq. 4), Algorithm 1 (appendix).
.. [2] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan,
   "A Dual Coordinate Descent Method for Large-scale Linear SVM", ICML 2008,
   Algorithm 1.

Examples
--------
One SGD epoch on a triangle with one negative pair, in a given order:

>>> import numpy as np
>>> from lgekit import reference
>>> X = np.array([[0.3, 0.1], [0.2, -0.1], [-0.1, 0.4]])
>>> pos, neg = [[0, 1], [1, 2], [0, 2]], [[0, 1]]
>>> before = reference.logistic_objective(X, pos, neg, lam_r=0.1).objective
>>> X1 = reference.sgd_edge_epoch(X, pos, neg, order=[2, 0, 3, 1], lr=0.1, lam_r=0.1)
>>> after = reference.logistic_objective(X1, pos, neg, lam_r=0.1).objective
>>> bool(after < before)
True
"""
import math
from collections import namedtuple

import numpy as np

__all__ = [
    "Objective", "DCDEpoch",
    "sigmoid", "log_sigmoid", "learning_rate",
    "logistic_objective", "logistic_gradient", "logistic_diagnostics",
    "sgd_edge_epoch", "sgd_vertex_epoch",
    "hinge_objective", "vertex_svm_primal", "vertex_svm_dual", "projected_gradient",
    "vertex_certificates", "dcd_vertex_update", "dcd_epoch", "listed_coordinate_orders", "random_coordinate_orders",
    "hinge_diagnostics",
    "two_table_scores", "two_table_logistic_objective", "two_table_logistic_gradient", "two_table_sgd_edge_epoch",
    "two_table_sgd_vertex_epoch", "reverse_negatives", "stack_tables", "bias_pins", "tie_penalty", "tie_step",
    "order_biases",
]

Objective = namedtuple("Objective", ["objective", "loss_pos", "loss_neg", "reg"])
Objective.__doc__ = """An objective and its three parts (``objective = loss_pos + loss_neg + reg``).

The field names are the keys of the estimators' ``history_`` records.
"""

DCDEpoch = namedtuple("DCDEpoch", ["X", "alpha", "gap", "violation"])
DCDEpoch.__doc__ = """Result of :func:`dcd_epoch`: the new embedding and duals, and per vertex the
duality gap and largest absolute projected gradient of its SVM when it was visited (0 if not visited)."""

# Algorithm 1 updates a dual when its projected gradient is not 0.  Rounding leaves |PG| ~ 1e-16
# at a coordinate that is already optimal; the kernel (like LIBLINEAR) treats |PG| <= 1e-12 as 0
# so that such a coordinate is not "updated" by a step of pure round-off.
PG_ZERO = 1e-12

# The DCD safeguard (``dcd_epoch(monotone_passes=...)``) calls w uphill of x_u when
# P(w) - P(x_u) > UPHILL_RTOL * P(x_u) (P >= 0), as the kernel does.  At a block's optimum the duals
# are not unique and may move along a direction that leaves w(alpha) = x_u, so P(w) = P(x_u) in real
# arithmetic; the slack, far above float64 round-off and far below a real rise, keeps the last bit of
# two sums from deciding whether the further passes run.
UPHILL_RTOL = 1e-9


# --------------------------------------------------------------------------- shared mathematics
def sigmoid(z):
    r"""The logistic function :math:`\sigma(z) = 1 / (1 + e^{-z})`, elementwise.

    Parameters
    ----------
    z : float or array_like

    Returns
    -------
    float or ndarray
        :math:`\sigma(z)`, computed without overflow for any finite ``z``:
        :math:`e^{z} / (1 + e^{z})` for negative ``z``.

    Examples
    --------
    >>> from lgekit.reference import sigmoid
    >>> float(sigmoid(0.0)), float(sigmoid(-800.0))
    (0.5, 0.0)
    """
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(-np.abs(z))                       # <= 1: never overflows
    out = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return out[()] if out.ndim == 0 else out


def log_sigmoid(z):
    r""":math:`\log\sigma(z) = \min(z, 0) - \log(1 + e^{-|z|})`, elementwise.

    Exact for large :math:`|z|` of either sign, where :math:`\log(\sigma(z))`
    computed naively would give ``log(0)`` or round to 0.

    Parameters
    ----------
    z : float or array_like

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from lgekit.reference import log_sigmoid
    >>> float(log_sigmoid(-800.0)), bool(log_sigmoid(40.0) < 0)
    (-800.0, True)
    """
    z = np.asarray(z, dtype=np.float64)
    out = np.minimum(z, 0.0) - np.log1p(np.exp(-np.abs(z)))
    return out[()] if out.ndim == 0 else out


def _sigma(z):
    # sigmoid of one Python float: the epoch loops call it once per pair, and math.exp on a
    # scalar is about twenty times faster than a NumPy call
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def learning_rate(epoch, lr=1.0, lr_offset=1.0):
    r"""The SGD step of epoch ``t`` (0-based): :math:`\gamma_t = \mathrm{lr}\,(t + c)^{-1/2}`.

    The paper (Section 3.2) uses :math:`\gamma_t = (t + c)^{-1/2}`; ``lr``
    scales it, ``lr_offset`` is :math:`c`.

    Parameters
    ----------
    epoch : int
        :math:`t`, counted from 0.
    lr : float, default 1.0
    lr_offset : float, default 1.0

    Returns
    -------
    float

    Examples
    --------
    >>> from lgekit.reference import learning_rate
    >>> learning_rate(3, lr=1.0, lr_offset=1.0)
    0.5
    """
    return float(lr) * (epoch + float(lr_offset)) ** -0.5


# --------------------------------------------------------------------------- input handling
def _embedding(X):
    X = np.array(X, dtype=np.float64, copy=True)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D (n_nodes, dim) array, got shape {X.shape}")
    return X


def _pairs(pairs, n, name):
    arr = np.asarray(pairs, dtype=np.int64)
    if arr.size == 0:
        return arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be a (k, 2) array of index pairs, got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{name} must hold row indices in [0, {n}), got values in [{arr.min()}, {arr.max()}]")
    return arr


def _weights(weights, m):
    if weights is None:
        return np.ones(m)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (m,):
        raise ValueError(f"weights must have shape ({m},), one per positive pair, got {w.shape}")
    return w


def _order(order, size, what):
    arr = np.asarray(order, dtype=np.int64).reshape(-1)
    if len(arr) and (arr.min() < 0 or arr.max() >= size):
        raise ValueError(f"order must hold {what} indices in [0, {size}), got values in "
                         f"[{arr.min()}, {arr.max()}]")
    return arr


def _scores(X, pairs):
    """x_u . x_v for every pair (u, v)."""
    return np.einsum("ij,ij->i", X[pairs[:, 0]], X[pairs[:, 1]])


# --------------------------------------------------------------------------- logistic model
def logistic_objective(X, positives, negatives, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=0.0):
    r"""The logistic objective of Section 3.2 and its three parts.

    .. math::

        L(X) = \underbrace{-\lambda_+ \sum_{(u,v)\in E_+} w_{uv}\log\sigma(x_u\cdot x_v)}_{\text{loss\_pos}}
               \underbrace{-\lambda_- \sum_{(u,v)\in E_-} \log\sigma(-x_u\cdot x_v)}_{\text{loss\_neg}}
               + \underbrace{\lambda_r \sum_v \|x_v\|^2}_{\text{reg}}

    Parameters
    ----------
    X : (n, D) array_like
        The embedding, one row per vertex.
    positives : (m, 2) array_like of int
        :math:`E_+`, the training edges.
    negatives : (k, 2) array_like of int
        :math:`E_-`, the negative pairs (a pair listed twice is two terms).
    weights : (m,) array_like, optional
        Edge weights :math:`w_{uv}` (default 1; the paper's graphs are
        unweighted).
    lam_pos, lam_neg, lam_r : float, default 1.0, 0.03, 0.0
        :math:`\lambda_{+1}, \lambda_{-1}, \lambda_r` (``LogisticEmbedding``'s
        defaults).

    Returns
    -------
    Objective
        ``(objective, loss_pos, loss_neg, reg)``.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, a pair list is not (k, 2) or holds an index
        outside ``[0, n)``, or ``weights`` has not one entry per edge (the
        same checks in every function of this module).

    Notes
    -----
    Cost :math:`O((m + k) D + nD)`.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import logistic_objective
    >>> X = np.zeros((3, 2))                                  # every score 0: each term is log 2
    >>> obj = logistic_objective(X, [[0, 1], [1, 2]], [[0, 2]], lam_neg=1.0)
    >>> bool(np.isclose(obj.objective, 3 * np.log(2))), obj.reg
    (True, 0.0)
    """
    X = _embedding(X)
    n = X.shape[0]
    pos, neg = _pairs(positives, n, "positives"), _pairs(negatives, n, "negatives")
    w = _weights(weights, len(pos))
    loss_pos = -lam_pos * float(np.sum(w * log_sigmoid(_scores(X, pos))))
    loss_neg = -lam_neg * float(np.sum(log_sigmoid(-_scores(X, neg))))
    reg = lam_r * float(np.sum(X * X))
    return Objective(loss_pos + loss_neg + reg, loss_pos, loss_neg, reg)


def logistic_gradient(X, positives, negatives, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=0.0):
    r"""The gradient of :func:`logistic_objective`: Eq. (2) for every vertex at once.

    .. math::

        \frac{\partial L}{\partial x_u} =
            -\lambda_+ \sum_{v \in N_+(u)} w_{uv}\,\sigma(-x_u\cdot x_v)\,x_v
            +\lambda_- \sum_{v \in N_-(u)} \sigma(x_u\cdot x_v)\,x_v
            + 2\lambda_r x_u

    The paper writes Eq. (2) with :math:`\lambda_\pm = 1` and unit weights.
    :math:`N_\pm(u)` lists a partner once per pair containing ``u``, so a
    pair listed twice counts twice (and a self-pair :math:`(u, u)`, whose
    score is :math:`\|x_u\|^2`, contributes twice to its own vertex).

    Parameters
    ----------
    X, positives, negatives, weights, lam_pos, lam_neg, lam_r
        As in :func:`logistic_objective`.

    Returns
    -------
    (n, D) ndarray of float64
        Row ``u`` is :math:`\partial L / \partial x_u`.

    Notes
    -----
    Cost :math:`O((m + k) D + nD)`.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import logistic_gradient
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])                # orthogonal: sigma(0) = 1/2
    >>> logistic_gradient(X, [[0, 1]], [], lam_r=0.0).tolist()   # -sigma(0) x_v at each end
    [[0.0, -1.0], [-0.5, 0.0]]
    """
    X = _embedding(X)
    n = X.shape[0]
    pos, neg = _pairs(positives, n, "positives"), _pairs(negatives, n, "negatives")
    w = _weights(weights, len(pos))
    # dl/ds for each pair: the loss -c log sigma(s) of an edge has derivative -c sigma(-s), the
    # loss -c log sigma(-s) of a negative pair +c sigma(s); s = x_u . x_v then sends it to both ends
    coef = np.concatenate([-lam_pos * w * sigmoid(-_scores(X, pos)), lam_neg * sigmoid(_scores(X, neg))])
    pairs = np.vstack([pos, neg])
    grad = 2.0 * lam_r * X
    np.add.at(grad, pairs[:, 0], coef[:, None] * X[pairs[:, 1]])
    np.add.at(grad, pairs[:, 1], coef[:, None] * X[pairs[:, 0]])
    return grad


def logistic_diagnostics(X, positives, negatives, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=0.0):
    r"""What ``LogisticEmbedding`` records after each epoch, computed from the definitions.

    Parameters
    ----------
    X, positives, negatives, weights, lam_pos, lam_neg, lam_r
        As in :func:`logistic_objective`.

    Returns
    -------
    dict
        ``objective``, ``loss_pos``, ``loss_neg``, ``reg`` (see
        :func:`logistic_objective`); ``mean_norm`` :math:`= \frac1n\sum_v\|x_v\|`
        (the paper's Figure 1); ``mean_grad_norm``
        :math:`= \frac1n\sum_u\|\partial L/\partial x_u\|` with the full
        Eq. (2) gradient (Figure 2); and the arrays ``grad`` (n, D) and
        ``grad_norm`` (n,).

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import logistic_diagnostics
    >>> d = logistic_diagnostics(np.array([[3.0, 4.0], [0.0, 0.0]]), [[0, 1]], [], lam_r=0.5)
    >>> d["mean_norm"], d["reg"]
    (2.5, 12.5)
    """
    kwargs = dict(weights=weights, lam_pos=lam_pos, lam_neg=lam_neg, lam_r=lam_r)
    X = _embedding(X)
    parts = logistic_objective(X, positives, negatives, **kwargs)
    grad = logistic_gradient(X, positives, negatives, **kwargs)
    grad_norm = np.linalg.norm(grad, axis=1)
    return {**parts._asdict(), "mean_norm": float(np.linalg.norm(X, axis=1).mean()),
            "mean_grad_norm": float(grad_norm.mean()), "grad": grad, "grad_norm": grad_norm}


def sgd_edge_epoch(X, positives, negatives, order, lr, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=0.0,
                   visits=None, pinned=None, pin_value=1.0):
    r"""One edge-order SGD epoch: one step per training pair, in the given order.

    The training pairs are numbered as the rows of
    ``np.vstack([positives, negatives])``.  For pair :math:`p = (u, v)` with
    score :math:`s = x_u\cdot x_v` at the current vectors, let

    .. math::

        g = -\lambda_+ w_{uv}\,\sigma(-s) \quad\text{(edge)}, \qquad
        g = \lambda_-\,\sigma(s) \quad\text{(negative pair)},

    the derivative of the pair's loss with respect to :math:`s`.  Both ends
    move at once, from their old values:

    .. math::

        x_u \leftarrow x_u - \gamma\,\big(g\,x_v + \tfrac{2\lambda_r}{c_u}\,x_u\big),\qquad
        x_v \leftarrow x_v - \gamma\,\big(g\,x_u + \tfrac{2\lambda_r}{c_v}\,x_v\big),

    where :math:`c_x` is the number of training pairs containing :math:`x`.
    :math:`g\,x_v` is the pair's term of Eq. (2) at :math:`u`; the
    regulariser's gradient :math:`2\lambda_r x` is shared among the
    :math:`c_x` visits of :math:`x`, so that one epoch applies
    :math:`\lambda_r\|x\|^2` once (the full :math:`2\lambda_r x` at every
    visit would multiply :math:`\lambda_r` by the degree).  Summed over an
    epoch the steps are :math:`-\gamma\,\nabla L + O(\gamma^2)`.

    Parameters
    ----------
    X : (n, D) array_like
        The embedding at the start of the epoch (not modified).
    positives, negatives : array_like of int pairs
        :math:`E_+` and :math:`E_-`.
    order : sequence of int
        Pair indices in visiting order; an SGD epoch is a permutation of
        ``range(len(positives) + len(negatives))`` (``LogisticEmbedding``
        draws a uniform or a stratified one), but any sequence is accepted.
    lr : float
        The step :math:`\gamma` of this epoch (see :func:`learning_rate`).
    weights, lam_pos, lam_neg, lam_r
        As in :func:`logistic_objective`.
    visits : (n,) array_like of float, optional
        The :math:`c_x` that share the regulariser (default: the number of
        training pairs containing :math:`x`).  ``LogisticEmbedding``'s
        ``weighting="sample"`` passes the expected visits of an epoch that
        draws its edges by weight.
    pinned : (n,) array_like of int, optional
        Per row, a coordinate held at ``pin_value`` (negative: none): after
        each step a row takes, that coordinate is put back (projected SGD
        onto :math:`\{x : x_k = \kappa\}`).  ``LogisticEmbedding``'s node
        biases ride on such a coordinate (see :func:`bias_pins`).
    pin_value : float, default 1.0
        :math:`\kappa`.

    Returns
    -------
    (n, D) ndarray of float64
        The embedding after the epoch.

    Raises
    ------
    ValueError
        If ``order`` holds an index outside the pairs (and see
        :func:`logistic_objective`).

    Notes
    -----
    ``LogisticEmbedding(order="edge")`` runs this rule.  Cost
    :math:`O(|E_+ \cup E_-|\,D)`, with a Python loop over the pairs.
    """
    X = _embedding(X)
    n = X.shape[0]
    pos, neg = _pairs(positives, n, "positives"), _pairs(negatives, n, "negatives")
    pairs = np.vstack([pos, neg])
    coef = np.concatenate([lam_pos * _weights(weights, len(pos)), np.full(len(neg), float(lam_neg))])
    n_pos = len(pos)
    count = np.bincount(pairs.ravel(), minlength=n) if visits is None else np.asarray(visits, dtype=np.float64)
    reg_share = 2.0 * lam_r / np.where(count > 0, count, 1)     # 2 lam_r / c_x; unused where c_x = 0
    # Python lists: the loop reads one number at a time, which is slow on NumPy scalars
    pins = _pins(pinned, n, X.shape[1])
    pairs, coef, reg_share = pairs.tolist(), coef.tolist(), reg_share.tolist()
    for p in _order(order, len(pairs), "pair").tolist():
        u, v = pairs[p]
        xu, xv = X[u], X[v]
        s = float(xu @ xv)
        g = -coef[p] * _sigma(-s) if p < n_pos else coef[p] * _sigma(s)
        # the right-hand sides are computed before either row is written: both from the old values
        X[u], X[v] = ((1.0 - lr * reg_share[u]) * xu - lr * g * xv,
                      (1.0 - lr * reg_share[v]) * xv - lr * g * xu)
        if pins is not None:
            for row in (u, v):
                if pins[row] >= 0:
                    X[row, pins[row]] = pin_value
    return X


def _pins(pinned, n, D):
    """``pinned`` checked: None, or a list of n coordinates (< 0: none) below D."""
    if pinned is None:
        return None
    pins = np.asarray(pinned)
    if pins.shape != (n,) or pins.dtype.kind not in "iu" or np.any(pins >= D):
        raise ValueError(f"pinned must hold one integer coordinate below {D} (or < 0: none) per row ({n}), "
                         f"got {pins.dtype} of shape {pins.shape}")
    return pins.tolist()


def bias_pins(n_x, n_y, D):
    r"""The ``pinned`` rows of node biases on the stacked table ``vstack([X, Y])`` (:func:`stack_tables`).

    A source vector :math:`x_u = (x'_u, b_u, \kappa)` and a target vector
    :math:`y_v = (y'_v, \kappa, c_v)` score

    .. math::  x_u\cdot y_v = x'_u\cdot y'_v + \kappa\,(b_u + c_v),

    a source bias and a target bias carried by the two tables themselves
    (``LogisticEmbedding(node_bias=True)``): source rows hold their last
    coordinate (``D - 1``) at :math:`\kappa`, target rows the one before.

    Examples
    --------
    >>> bias_pins(2, 3, 4).tolist()
    [3, 3, 2, 2, 2]
    """
    if D < 2:
        raise ValueError(f"node biases need D >= 2 (a bias and a constant coordinate), got D={D}")
    return np.r_[np.full(n_x, D - 1), np.full(n_y, D - 2)].astype(np.int64)


def sgd_vertex_epoch(X, positives, negatives, order, lr, *, weights=None, lam_pos=1.0, lam_neg=0.03,
                     lam_r=0.0):
    r"""One vertex-order SGD epoch: for each vertex in the given order, one step along Eq. (2).

    .. math::

        x_u \leftarrow x_u - \gamma\,\frac{\partial L}{\partial x_u}(X),

    with the gradient of :func:`logistic_gradient` at the current vectors:
    vertices visited earlier in the epoch have already moved (Gauss-Seidel,
    not Jacobi).

    Parameters
    ----------
    X : (n, D) array_like
        The embedding at the start of the epoch (not modified).
    positives, negatives : array_like of int pairs
    order : sequence of int
        Vertex indices in visiting order (``LogisticEmbedding`` draws a
        uniformly random permutation of ``range(n)``).
    lr : float
        The step :math:`\gamma` of this epoch.  The step grows with the
        degree, so it must be much smaller than in the edge order.
    weights, lam_pos, lam_neg, lam_r
        As in :func:`logistic_objective`.

    Returns
    -------
    (n, D) ndarray of float64

    Raises
    ------
    ValueError
        If ``order`` holds an index outside ``[0, n)`` (and see
        :func:`logistic_objective`).

    Notes
    -----
    ``LogisticEmbedding(order="vertex")`` runs this rule.  Cost
    :math:`O(|E_+ \cup E_-|\,D)`: every pair is read from both of its ends.
    """
    X = _embedding(X)
    n = X.shape[0]
    pos, neg = _pairs(positives, n, "positives"), _pairs(negatives, n, "negatives")
    w = _weights(weights, len(pos))
    # N_+(u) and N_-(u) of Eq. (2), as (partner, coefficient) lists: each pair at both ends
    pos_partners = [[] for _ in range(n)]
    neg_partners = [[] for _ in range(n)]
    for (a, b), wp in zip(pos.tolist(), w.tolist()):
        pos_partners[a].append((b, lam_pos * wp))
        pos_partners[b].append((a, lam_pos * wp))
    for a, b in neg.tolist():
        neg_partners[a].append((b, float(lam_neg)))
        neg_partners[b].append((a, float(lam_neg)))
    for u in _order(order, n, "vertex").tolist():
        grad = 2.0 * lam_r * X[u]
        for v, c in pos_partners[u]:
            grad += -c * _sigma(-float(X[u] @ X[v])) * X[v]
        for v, c in neg_partners[u]:
            grad += c * _sigma(float(X[u] @ X[v])) * X[v]
        X[u] = X[u] - lr * grad
    return X


# --------------------------------------------------------------------------- hinge model
def hinge_objective(X, positives, negatives, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=3.0):
    r"""The hinge-loss objective, Eq. (3), and its three parts.

    .. math::

        L(X) = \lambda_+ \sum_{(u,v)\in E_+} w_{uv}\,h(x_u\cdot x_v)
             + \lambda_- \sum_{(u,v)\in E_-} h(-x_u\cdot x_v)
             + \frac{\lambda_r}{2} \sum_v \|x_v\|^2,
        \qquad h(z) = \max(0, 1 - z).

    Note the :math:`\lambda_r/2`, against :math:`\lambda_r` in the logistic
    objective.

    Parameters
    ----------
    X, positives, negatives, weights
        As in :func:`logistic_objective`.
    lam_pos, lam_neg, lam_r : float, default 1.0, 0.03, 3.0
        ``HingeEmbedding``'s defaults.

    Returns
    -------
    Objective

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import hinge_objective
    >>> X = np.array([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0]])   # the edge has margin 2, the negative 1
    >>> hinge_objective(X, [[0, 1]], [[0, 2]], lam_r=1.0)
    Objective(objective=3.0, loss_pos=0.0, loss_neg=0.0, reg=3.0)
    """
    X = _embedding(X)
    n = X.shape[0]
    pos, neg = _pairs(positives, n, "positives"), _pairs(negatives, n, "negatives")
    w = _weights(weights, len(pos))
    loss_pos = float(np.sum(lam_pos * w * np.maximum(0.0, 1.0 - _scores(X, pos))))
    loss_neg = float(np.sum(lam_neg * np.maximum(0.0, 1.0 + _scores(X, neg))))
    reg = 0.5 * lam_r * float(np.sum(X * X))
    return Objective(loss_pos + loss_neg + reg, loss_pos, loss_neg, reg)


def vertex_svm_primal(x, partners, signs, upper):
    r"""One vertex's SVM, Eq. (4): :math:`P(x) = \frac12\|x\|^2 + \sum_j U_j\,h(s_j\,x\cdot x_j)`.

    With every vector but :math:`x_u` fixed, the terms of Eq. (3) that
    contain :math:`x_u` are :math:`\lambda_r P(x_u)` (Eq. 4): a linear SVM
    without bias whose training points are the partners :math:`x_j`, with
    labels :math:`s_j = +1` (edge) or :math:`-1` (negative pair) and box
    bounds :math:`U_j = \lambda_{s_j} w_j / \lambda_r`.

    Parameters
    ----------
    x : (D,) array_like
    partners : (k, D) array_like
        The partners' vectors :math:`x_j`, one row per pair containing u.
    signs : (k,) array_like of +1 / -1
    upper : (k,) array_like
        :math:`U_j`.

    Returns
    -------
    float
    """
    x = np.asarray(x, dtype=np.float64)
    partners, signs = np.asarray(partners, dtype=np.float64), np.asarray(signs, dtype=np.float64)
    margins = signs * (partners @ x)
    return 0.5 * float(x @ x) + float(np.sum(np.asarray(upper) * np.maximum(0.0, 1.0 - margins)))


def vertex_svm_dual(alpha, partners, signs):
    r"""The dual objective of one vertex's SVM, :math:`D(\alpha) = \sum_j\alpha_j - \frac12\|w(\alpha)\|^2`.

    With :math:`w(\alpha) = \sum_j \alpha_j s_j x_j` (line 3 of Algorithm 1),
    :math:`D(\alpha) = -f(\alpha)` where
    :math:`f(\alpha) = \frac12\alpha^\top Q\alpha - e^\top\alpha`,
    :math:`Q_{jk} = s_j s_k\,x_j\cdot x_k`, is the function DCD minimises
    over the box :math:`0 \le \alpha_j \le U_j`.  Weak duality:
    :math:`D(\alpha) \le P(x)` for every feasible :math:`\alpha` and every
    :math:`x`, with equality exactly at the optimum.

    Parameters
    ----------
    alpha : (k,) array_like
    partners : (k, D) array_like
    signs : (k,) array_like of +1 / -1

    Returns
    -------
    float
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    w = (alpha * np.asarray(signs, dtype=np.float64)) @ np.asarray(partners, dtype=np.float64)
    return float(alpha.sum()) - 0.5 * float(w @ w)


def projected_gradient(G, alpha, upper):
    r"""The projected gradient of Algorithm 1 (line 7), elementwise.

    .. math::

        PG = \min(G, 0) \text{ if } \alpha = 0,\qquad
             \max(G, 0) \text{ if } \alpha = U,\qquad
             G \text{ otherwise}.

    Only the part of the gradient that points into the box counts: all
    :math:`PG_j = 0` is the KKT condition of the dual.

    Parameters
    ----------
    G, alpha, upper : float or array_like

    Returns
    -------
    float or ndarray
    """
    G, alpha, upper = (np.asarray(a, dtype=np.float64) for a in (G, alpha, upper))
    out = np.where(alpha <= 0, np.minimum(G, 0.0), np.where(alpha >= upper, np.maximum(G, 0.0), G))
    return out[()] if out.ndim == 0 else out


def vertex_certificates(x, alpha, partners, signs, upper, *, w=None):
    r"""Duality gap and KKT violation of one vertex's SVM.

    Parameters
    ----------
    x : (D,) array_like
        The primal point (the vertex's vector).
    alpha : (k,) array_like
        The duals, in the box.
    partners, signs, upper
        As in :func:`vertex_svm_primal`.
    w : (D,) array_like, optional
        :math:`w(\alpha)` if already known (DCD keeps it up to date);
        default: computed from ``alpha``.

    Returns
    -------
    gap : float
        :math:`P(x) - D(\alpha) \ge 0` (:func:`vertex_svm_primal` minus
        :func:`vertex_svm_dual`); 0 iff ``x`` and ``alpha`` are both optimal.
    violation : float
        :math:`\max_j |PG_j|` with :math:`G_j = s_j\,w\cdot x_j - 1` (0 for no
        partners); 0 iff ``alpha`` is optimal.
    """
    partners = np.asarray(partners, dtype=np.float64)
    signs = np.asarray(signs, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    if w is None:
        w = (alpha * signs) @ partners
    w = np.asarray(w, dtype=np.float64)
    gap = vertex_svm_primal(x, partners, signs, upper) - (float(alpha.sum()) - 0.5 * float(w @ w))
    G = signs * (partners @ w) - 1.0
    violation = float(np.abs(projected_gradient(G, alpha, upper)).max()) if len(alpha) else 0.0
    return gap, violation


def dcd_vertex_update(partners, signs, upper, alpha, orders, *, inner_passes=1, tol=0.0):
    r"""``DcdUpdate`` of Algorithm 1: dual coordinate descent on one vertex's SVM.

    Starting from the stored duals (a warm start), with the partners fixed::

        w <- sum_j alpha_j s_j x_j                          (line 3)
        for each pass, in the pass's coordinate order:
            G  <- s_j w . x_j - 1                           (line 5)
            PG <- projected gradient                        (line 7)
            if PG != 0:                                     (line 8)
                alpha_j <- min(max(alpha_j - G / Q_jj, 0), U_j),  Q_jj = ||x_j||^2
                w <- w + (alpha_j_new - alpha_j_old) s_j x_j
        x_u <- w

    Each coordinate step minimises the dual's :math:`f(\alpha)` exactly
    along that coordinate inside the box, so :math:`D(\alpha)` never
    decreases.  Three details the paper leaves open, done as the kernel
    does: the order of the coordinates, given by ``orders`` (line 4 runs
    over the set D; :func:`listed_coordinate_orders` takes line 2's listing,
    :func:`random_coordinate_orders` a fresh permutation per pass as
    LIBLINEAR, Hsieh et al. 2008); "PG != 0" means
    :math:`|PG| > 10^{-12}` (round-off); after a pass whose largest
    :math:`|PG|` is at most ``tol`` the visit stops early.  A partner with
    :math:`Q_{jj} = 0` (a zero vector) makes the coordinate's objective
    :math:`-\alpha_j`, minimised at :math:`U_j`.

    Parameters
    ----------
    partners : (k, D) array_like
        The partners' vectors :math:`x_j`.
    signs : (k,) array_like of +1 / -1
    upper : (k,) array_like
        Box bounds :math:`U_j`.
    alpha : (k,) array_like
        The duals at the start (in the box); not modified.
    orders : iterator of sequences of int
        One coordinate order (a permutation of ``range(k)``) per pass; only
        as many are taken as passes are run.
    inner_passes : int, default 1
        Maximal number of passes (1 in the paper).
    tol : float, default 0.0
        Stop after a pass whose largest :math:`|PG|` (as seen when each
        coordinate was visited) is at most ``tol``.

    Returns
    -------
    w : (D,) ndarray
        The new vector :math:`x_u`.
    alpha : (k,) ndarray
        The new duals.
    n_passes : int
        Passes run (0 when ``k = 0``).

    Raises
    ------
    ValueError
        If the shapes disagree on ``k`` or ``inner_passes < 1``.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from lgekit.reference import dcd_vertex_update
    >>> partners, signs, U = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1]), np.array([1.0, 1.0])
    >>> w, alpha, n = dcd_vertex_update(partners, signs, U, np.zeros(2), itertools.repeat([0, 1]),
    ...                                 inner_passes=10, tol=1e-12)
    >>> w.tolist(), alpha.tolist(), n
    ([1.0, -1.0], [1.0, 1.0], 2)
    """
    partners = np.asarray(partners, dtype=np.float64)
    signs = np.asarray(signs, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    alpha = np.array(alpha, dtype=np.float64, copy=True)
    k = len(alpha)
    if partners.ndim != 2 or partners.shape[0] != k or signs.shape != (k,) or upper.shape != (k,):
        raise ValueError(f"partners (k, D), signs (k,), upper (k,) and alpha (k,) must agree on k; got "
                         f"{partners.shape}, {signs.shape}, {upper.shape} and {alpha.shape}")
    if inner_passes < 1:
        raise ValueError(f"inner_passes must be an int >= 1, got {inner_passes!r}")
    Q = np.einsum("ij,ij->i", partners, partners)
    support = alpha != 0
    w = (alpha[support] * signs[support]) @ partners[support]
    if k == 0:
        return w, alpha, 0
    # the loop reads one number at a time: Python floats, as NumPy scalars are much slower
    a, s, U, Q = alpha.tolist(), signs.tolist(), upper.tolist(), Q.tolist()
    for n_passes in range(1, inner_passes + 1):
        largest = 0.0
        for j in next(orders):
            G = s[j] * float(w @ partners[j]) - 1.0
            PG = min(G, 0.0) if a[j] <= 0 else max(G, 0.0) if a[j] >= U[j] else G
            largest = max(largest, abs(PG))
            if abs(PG) > PG_ZERO:
                if Q[j] > 0:
                    old = a[j]
                    a[j] = min(max(old - G / Q[j], 0.0), U[j])
                    w += (a[j] - old) * s[j] * partners[j]
                else:
                    a[j] = U[j]
        if largest <= tol:
            break
    return w, np.array(a), n_passes


def dcd_epoch(X, alpha, csr, order, coordinate_orders, *, inner_passes=1, tol=0.0, monotone_passes=None):
    r"""One epoch of Algorithm 1: ``DcdUpdate`` for every vertex, in the given order.

    Each visit rebuilds :math:`w` from the vertex's stored duals and its
    partners' *current* vectors, runs :func:`dcd_vertex_update`, records the
    certificates of the vertex's SVM at the final :math:`w`
    (:func:`vertex_certificates`) and writes :math:`x_u \leftarrow w`.  The
    duals persist across epochs: one per (vertex, incident pair occurrence),
    aligned with ``csr``.

    With ``monotone_passes`` set, a safeguard that is not in Algorithm 1
    keeps every visit from raising the objective (Eq. 3): the terms of L
    that involve :math:`x_u` are :math:`\lambda_r P_u(x_u)`, with
    :math:`P_u` vertex ``u``'s SVM primal (Eq. 4, :func:`vertex_svm_primal`).
    If :math:`P_u(w) - P_u(x_u) > \epsilon\,P_u(x_u)` (``UPHILL_RTOL``
    :math:`= \epsilon`: a rise beyond round-off), the duals (fitted to the
    partners' previous vectors) led uphill: up to ``monotone_passes`` more
    passes run, one at a time, while the largest :math:`|PG|` at :math:`w`
    exceeds ``tol``; if :math:`w` is still uphill, :math:`x_u` keeps its
    vector (the duals keep their progress) and the certificates are those of
    the kept vector.

    Parameters
    ----------
    X : (n, D) array_like
        The embedding at the start of the epoch (not modified).
    alpha : array_like of float, aligned with ``csr.nbr``
        The duals (not modified).
    csr : lgekit.models.hinge.PairCSR
        The training pairs seen from each vertex (from
        :func:`lgekit.models.hinge.pair_csr`): vertex ``u``'s entries are
        ``csr.indptr[u]:csr.indptr[u + 1]``, with partner ``csr.nbr``,
        label ``csr.sign`` and box bound ``csr.upper``.  No self-pairs.
    order : sequence of int
        The vertices in visiting order (Algorithm 1 visits all of ``V``;
        ``HingeEmbedding`` draws a random order, or its colour classes).
    coordinate_orders : callable
        ``coordinate_orders(u, k)`` returns an iterator of coordinate orders
        (permutations of ``range(k)``), one per inner pass of vertex ``u``'s
        visit; see :func:`random_coordinate_orders`.
    inner_passes : int, default 1
    tol : float, default 0.0
        As in :func:`dcd_vertex_update`.
    monotone_passes : int or None, default None
        None: Algorithm 1 as printed.  An int >= 0: the safeguard above, with
        at most that many further passes per visit (they take the next orders
        of the same ``coordinate_orders`` iterator).

    Returns
    -------
    DCDEpoch
        ``(X, alpha, gap, violation)``; ``gap[u]`` and ``violation[u]`` are
        those of vertex ``u``'s SVM at its last visit (0 if not visited).

    Raises
    ------
    ValueError
        If ``csr`` does not describe the rows of ``X``, ``alpha`` is not
        aligned with it, or ``order`` holds an index outside ``[0, n)``.

    Notes
    -----
    Cost per epoch :math:`O(|E_\pm|\,D\,(2 + \mathrm{inner\_passes}))`, with
    Python loops over the vertices and the coordinates.
    """
    X = _embedding(X)
    alpha = np.array(alpha, dtype=np.float64, copy=True)
    n = X.shape[0]
    if len(csr.indptr) != n + 1 or alpha.shape != csr.nbr.shape:
        raise ValueError(f"csr must describe {n} vertices and alpha have one entry per csr entry; got "
                         f"{len(csr.indptr) - 1} vertices, {len(csr.nbr)} entries and alpha of shape {alpha.shape}")
    gap, violation = np.zeros(n), np.zeros(n)
    for u in _order(order, n, "vertex"):
        entries = slice(csr.indptr[u], csr.indptr[u + 1])
        # a copy of the partners' rows: none of them is x_u (no self-pairs), so they stay fixed
        partners = X[csr.nbr[entries]]
        signs = csr.sign[entries].astype(np.float64)
        upper = csr.upper[entries]
        k = len(signs)
        orders = coordinate_orders(int(u), k) if k else iter(())
        w, alpha[entries], _ = dcd_vertex_update(partners, signs, upper, alpha[entries], orders,
                                                 inner_passes=inner_passes, tol=tol)
        gap[u], violation[u] = vertex_certificates(w, alpha[entries], partners, signs, upper, w=w)
        if monotone_passes is not None:
            p_old = vertex_svm_primal(X[u], partners, signs, upper)

            def uphill(w):
                return vertex_svm_primal(w, partners, signs, upper) - p_old > UPHILL_RTOL * p_old

            extra = 0
            while uphill(w) and extra < monotone_passes and violation[u] > tol:
                w, alpha[entries], _ = dcd_vertex_update(partners, signs, upper, alpha[entries], orders, tol=tol)
                gap[u], violation[u] = vertex_certificates(w, alpha[entries], partners, signs, upper, w=w)
                extra += 1
            if uphill(w):                                                # keep x_u: certify it
                gap[u], violation[u] = vertex_certificates(X[u], alpha[entries], partners, signs, upper, w=w)
                continue
        X[u] = w
    return DCDEpoch(X, alpha, gap, violation)


def listed_coordinate_orders(csr):
    r"""Algorithm 1's coordinate order for :func:`dcd_epoch`: the set D as line 2 lists it.

    Vertex ``u``'s pairs with label +1 (its edges :math:`N_+(u)`), then those
    with label -1 (its negatives :math:`N_-(u)`), each in the order of
    ``csr``; the same order at every pass.  This is ``HingeEmbedding``'s
    ``inner_order="fixed"``.

    Parameters
    ----------
    csr : lgekit.models.hinge.PairCSR
        The pairs seen from each vertex (as in :func:`dcd_epoch`).

    Returns
    -------
    callable
        ``coordinate_orders(u, k)``, an iterator of orders of ``range(k)``.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.models.hinge import pair_csr
    >>> from lgekit.reference import listed_coordinate_orders
    >>> csr = pair_csr(3, [[0, 2]], [[0, 1]])            # vertex 0: partner 1 (-1), partner 2 (+1)
    >>> next(listed_coordinate_orders(csr)(0, 2)).tolist()
    [1, 0]
    """
    def coordinate_orders(u, k):
        signs = np.asarray(csr.sign[csr.indptr[u]:csr.indptr[u + 1]])
        if len(signs) != k:
            raise ValueError(f"vertex {u} has {len(signs)} entries in csr, not k={k}")
        listing = np.concatenate([np.flatnonzero(signs > 0), np.flatnonzero(signs <= 0)])
        while True:
            yield listing

    return coordinate_orders


def random_coordinate_orders(seed=None):
    r"""Uniformly random coordinate orders for :func:`dcd_epoch`, a fresh permutation per pass.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        Seeds one generator shared by all visits, so the orders depend on
        the sequence of visits as well as on ``seed``.

    Returns
    -------
    callable
        ``coordinate_orders(u, k)``, an iterator of permutations of
        ``range(k)``.

    Examples
    --------
    >>> from lgekit.reference import random_coordinate_orders
    >>> orders = random_coordinate_orders(0)(u=5, k=4)
    >>> sorted(next(orders).tolist())
    [0, 1, 2, 3]
    """
    rng = np.random.default_rng(seed)

    def coordinate_orders(u, k):
        while True:
            yield rng.permutation(k)

    return coordinate_orders


def hinge_diagnostics(X, positives, negatives, csr, alpha, gap=None, violation=None, *, weights=None,
                      lam_pos=1.0, lam_neg=0.03, lam_r=3.0):
    r"""What ``HingeEmbedding`` records after each epoch, computed from the definitions.

    Parameters
    ----------
    X, positives, negatives, weights, lam_pos, lam_neg, lam_r
        As in :func:`hinge_objective`.
    csr : lgekit.models.hinge.PairCSR
        The pairs seen from each vertex (as in :func:`dcd_epoch`).
    alpha : array_like
        The duals after the epoch, aligned with ``csr``.
    gap, violation : (n,) array_like, optional
        The per-vertex certificates returned by :func:`dcd_epoch`; without
        them the record has no ``duality_gap`` and ``max_violation``.

    Returns
    -------
    dict
        ``objective``, ``loss_pos``, ``loss_neg``, ``reg`` (Eq. 3);
        ``mean_norm``; the dual counts ``n_alpha_zero`` (pairs beyond the
        margin), ``n_alpha_free`` (on the margin) and ``n_alpha_bound``
        (:math:`\alpha_j = U_j > 0`: margin violators); and, given the
        certificates, ``duality_gap`` (mean of ``gap`` over the vertices
        that have pairs, in the units of Eq. 4, i.e. of :math:`L/\lambda_r`)
        and ``max_violation``.
    """
    X = _embedding(X)
    alpha = np.asarray(alpha, dtype=np.float64)
    parts = hinge_objective(X, positives, negatives, weights=weights, lam_pos=lam_pos, lam_neg=lam_neg,
                            lam_r=lam_r)
    n_zero = int(np.count_nonzero(alpha == 0))
    n_bound = int(np.count_nonzero((alpha == csr.upper) & (csr.upper > 0)))
    record = {**parts._asdict(), "mean_norm": float(np.linalg.norm(X, axis=1).mean()),
              "n_alpha_zero": n_zero, "n_alpha_free": len(alpha) - n_zero - n_bound, "n_alpha_bound": n_bound}
    if gap is not None:
        has_pairs = np.diff(csr.indptr) > 0
        gap = np.asarray(gap, dtype=np.float64)
        record["duality_gap"] = float(gap[has_pairs].mean()) if has_pairs.any() else 0.0
    if violation is not None:
        violation = np.asarray(violation, dtype=np.float64)
        record["max_violation"] = float(violation.max()) if len(violation) else 0.0
    return record


# --------------------------------------------------------------------------- two tables
# Directed and bipartite graphs.  The paper's footnote 1: "The directed case is usually handled by
# associating each node with two embedding vectors for incoming and outgoing edges respectively,
# which is equivalent as learning embedding on a transformed undirected bipartite graph."  Theorem 1
# is stated in that bipartite setting: a sample of pairs (a_i, b_i), a in U, b in V, and separate
# norm budgets sum_{u in U} ||x_u||^2 <= C_U, sum_{v in V} ||x_v||^2 <= C_V.  Below, X holds the
# vectors of U (sources / left nodes, ``embedding_``) and Y those of V (targets / right nodes,
# ``context_embedding_``); a pair (u, v) indexes a row of X and a row of Y.
def _two_tables(X, Y):
    X, Y = _embedding(X), _embedding(Y)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must have the same number of columns (dim), got {X.shape} and {Y.shape}")
    return X, Y


def _table_pairs(pairs, n_x, n_y, name):
    arr = np.asarray(pairs, dtype=np.int64)
    if arr.size == 0:
        return arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be a (k, 2) array of (row of X, row of Y) pairs, got shape {arr.shape}")
    for col, n, table in ((0, n_x, "X"), (1, n_y, "Y")):
        if arr[:, col].min() < 0 or arr[:, col].max() >= n:
            raise ValueError(f"{name}: column {col} must hold row indices of {table} in [0, {n}), got values in "
                             f"[{arr[:, col].min()}, {arr[:, col].max()}]")
    return arr


def two_table_scores(X, Y, pairs):
    r""":math:`x_u\cdot y_v` for every pair ``(u, v)``: row ``u`` of ``X`` against row ``v`` of ``Y``.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import two_table_scores
    >>> X, Y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[2.0, 3.0]])
    >>> two_table_scores(X, Y, [[0, 0], [1, 0]]).tolist()     # asymmetric: x_0 . y_0 != x_1 . y_0
    [2.0, 3.0]
    """
    X, Y = _two_tables(X, Y)
    pairs = _table_pairs(pairs, len(X), len(Y), "pairs")
    return np.einsum("ij,ij->i", X[pairs[:, 0]], Y[pairs[:, 1]])


def two_table_logistic_objective(X, Y, positives, negatives, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=0.0,
                                 lam_r_context=None):
    r"""The logistic objective of Section 3.2 with two tables, and its three parts.

    .. math::

        L(X, Y) = -\lambda_+ \sum_{(u,v)\in E_+} w_{uv}\log\sigma(x_u\cdot y_v)
                  -\lambda_- \sum_{(u,v)\in E_-} \log\sigma(-x_u\cdot y_v)
                  + \lambda_r^U \sum_{u} \|x_u\|^2 + \lambda_r^V \sum_{v} \|y_v\|^2

    Each table has its own :math:`\lambda_r` term, the Lagrangian form of
    Theorem 1's two budgets :math:`C_U` and :math:`C_V`.

    Parameters
    ----------
    X : (n_U, D) array_like
        Source / left vectors :math:`x_u`.
    Y : (n_V, D) array_like
        Target / right vectors :math:`y_v`.
    positives, negatives : (k, 2) array_like of int
        Pairs ``(u, v)``: a row of ``X`` and a row of ``Y``.
    weights, lam_pos, lam_neg : as in :func:`logistic_objective`
    lam_r : float, default 0.0
        :math:`\lambda_r^U`, the regularisation of ``X``.
    lam_r_context : float, optional
        :math:`\lambda_r^V`, the regularisation of ``Y`` (default ``lam_r``).

    Returns
    -------
    Objective
        ``reg`` holds both tables' terms.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import two_table_logistic_objective
    >>> X, Y = np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])
    >>> two_table_logistic_objective(X, Y, [[0, 0]], [], lam_r=1.0, lam_r_context=0.5).reg   # 1 * 1 + 0.5 * 4
    3.0
    """
    X, Y = _two_tables(X, Y)
    lam_r_context = lam_r if lam_r_context is None else lam_r_context
    pos = _table_pairs(positives, len(X), len(Y), "positives")
    neg = _table_pairs(negatives, len(X), len(Y), "negatives")
    w = _weights(weights, len(pos))
    loss_pos = -lam_pos * float(np.sum(w * log_sigmoid(two_table_scores(X, Y, pos))))
    loss_neg = -lam_neg * float(np.sum(log_sigmoid(-two_table_scores(X, Y, neg))))
    reg = lam_r * float(np.sum(X * X)) + lam_r_context * float(np.sum(Y * Y))
    return Objective(loss_pos + loss_neg + reg, loss_pos, loss_neg, reg)


def two_table_logistic_gradient(X, Y, positives, negatives, *, weights=None, lam_pos=1.0, lam_neg=0.03, lam_r=0.0,
                                lam_r_context=None):
    r"""The gradient of :func:`two_table_logistic_objective`: Eq. (2) for each table.

    .. math::

        \frac{\partial L}{\partial x_u} = \sum_{v:\,(u,v)\in E_\pm} g_{uv}\, y_v + 2\lambda_r^U x_u,
        \qquad
        \frac{\partial L}{\partial y_v} = \sum_{u:\,(u,v)\in E_\pm} g_{uv}\, x_u + 2\lambda_r^V y_v,

    with :math:`g_{uv} = -\lambda_+ w_{uv}\sigma(-x_u\cdot y_v)` for an edge
    and :math:`\lambda_-\sigma(x_u\cdot y_v)` for a negative pair.

    Returns
    -------
    (gX, gY) : ndarrays of float64, shapes of ``X`` and ``Y``

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import two_table_logistic_gradient
    >>> gX, gY = two_table_logistic_gradient([[1.0, 0.0]], [[0.0, 2.0]], [[0, 0]], [])   # sigma(0) = 1/2
    >>> gX.tolist(), gY.tolist()
    ([[0.0, -1.0]], [[-0.5, 0.0]])
    """
    X, Y = _two_tables(X, Y)
    lam_r_context = lam_r if lam_r_context is None else lam_r_context
    pos = _table_pairs(positives, len(X), len(Y), "positives")
    neg = _table_pairs(negatives, len(X), len(Y), "negatives")
    w = _weights(weights, len(pos))
    coef = np.concatenate([-lam_pos * w * sigmoid(-two_table_scores(X, Y, pos)),
                           lam_neg * sigmoid(two_table_scores(X, Y, neg))])
    pairs = np.vstack([pos, neg])
    gX, gY = 2.0 * lam_r * X, 2.0 * lam_r_context * Y
    np.add.at(gX, pairs[:, 0], coef[:, None] * Y[pairs[:, 1]])
    np.add.at(gY, pairs[:, 1], coef[:, None] * X[pairs[:, 0]])
    return gX, gY


def two_table_sgd_edge_epoch(X, Y, positives, negatives, order, lr, *, weights=None, lam_pos=1.0, lam_neg=0.03,
                             lam_r=0.0, lam_r_context=None, visits=None):
    r"""One edge-order SGD epoch with two tables: one step per training pair, in the given order.

    The pairs are numbered as the rows of ``np.vstack([positives, negatives])``.
    For pair :math:`p = (u, v)` with :math:`s = x_u\cdot y_v` and :math:`g`
    the derivative of its loss with respect to :math:`s` (as in
    :func:`sgd_edge_epoch`), both vectors move at once, from their old values:

    .. math::

        x_u \leftarrow x_u - \gamma\,\big(g\,y_v + \tfrac{2\lambda_r^U}{c_u}\,x_u\big),\qquad
        y_v \leftarrow y_v - \gamma\,\big(g\,x_u + \tfrac{2\lambda_r^V}{c_v}\,y_v\big),

    where :math:`c_u` counts the training pairs whose source/left end is
    :math:`u` and :math:`c_v` those whose target/right end is :math:`v`:
    each table's regulariser is shared among the visits of its vectors, so
    that an epoch applies :math:`\lambda_r^U\|x_u\|^2` and
    :math:`\lambda_r^V\|y_v\|^2` once.  This is :func:`sgd_edge_epoch` on the
    stacked table ``np.vstack([X, Y])`` with the pairs
    :math:`(u, n_U + v)` -- footnote 1's "transformed undirected bipartite
    graph", which is how ``LogisticEmbedding`` trains a directed or bipartite
    graph -- except that here each table has its own :math:`\lambda_r`.

    Parameters
    ----------
    X : (n_U, D) array_like
        Source / left vectors at the start of the epoch (not modified).
    Y : (n_V, D) array_like
        Target / right vectors (not modified).
    positives, negatives : array_like of int pairs ``(u, v)``
    order : sequence of int
        Pair indices in visiting order.
    lr : float
        The step :math:`\gamma`.
    weights, lam_pos, lam_neg : as in :func:`logistic_objective`
    lam_r, lam_r_context : float
        :math:`\lambda_r^U` and :math:`\lambda_r^V` (default ``lam_r``).
    visits : pair of (n_U,) and (n_V,) array_like, optional
        The :math:`c_u` and :math:`c_v` (default: the pair counts).

    Returns
    -------
    (X, Y) : ndarrays of float64
        The two tables after the epoch.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit import reference
    >>> X, Y = np.array([[0.3, 0.1], [0.2, -0.1]]), np.array([[-0.1, 0.4], [0.5, 0.2]])
    >>> pos, neg = [[0, 1], [1, 0]], [[0, 0]]
    >>> X1, Y1 = reference.two_table_sgd_edge_epoch(X, Y, pos, neg, [2, 0, 1], 0.1, lam_r=0.1, lam_r_context=0.3)
    >>> Z, stacked = reference.stack_tables(X, Y, np.vstack([pos, neg]))
    >>> Z1 = reference.sgd_edge_epoch(Z, stacked[:2], stacked[2:], [2, 0, 1], 0.1, lam_r=0.2)
    >>> bool(np.allclose(np.vstack([X1, Y1]), Z1))      # one lambda_r each: the two forms differ ...
    False
    >>> X2, Y2 = reference.two_table_sgd_edge_epoch(X, Y, pos, neg, [2, 0, 1], 0.1, lam_r=0.2)
    >>> bool(np.allclose(np.vstack([X2, Y2]), Z1))      # ... and with one lambda_r they are the same epoch
    True
    """
    X, Y = _two_tables(X, Y)
    lam_r_context = lam_r if lam_r_context is None else lam_r_context
    pos = _table_pairs(positives, len(X), len(Y), "positives")
    neg = _table_pairs(negatives, len(X), len(Y), "negatives")
    pairs = np.vstack([pos, neg])
    coef = np.concatenate([lam_pos * _weights(weights, len(pos)), np.full(len(neg), float(lam_neg))])
    n_pos = len(pos)
    if visits is None:
        cx, cy = np.bincount(pairs[:, 0], minlength=len(X)), np.bincount(pairs[:, 1], minlength=len(Y))
    else:
        cx, cy = (np.asarray(c, dtype=np.float64) for c in visits)
    share_x = 2.0 * lam_r / np.where(cx > 0, cx, 1)               # 2 lambda_r^U / c_u
    share_y = 2.0 * lam_r_context / np.where(cy > 0, cy, 1)       # 2 lambda_r^V / c_v
    pairs, coef, share_x, share_y = pairs.tolist(), coef.tolist(), share_x.tolist(), share_y.tolist()
    for p in _order(order, len(pairs), "pair").tolist():
        u, v = pairs[p]
        xu, yv = X[u], Y[v]
        s = float(xu @ yv)
        g = -coef[p] * _sigma(-s) if p < n_pos else coef[p] * _sigma(s)
        # both right-hand sides from the old values
        X[u], Y[v] = ((1.0 - lr * share_x[u]) * xu - lr * g * yv,
                      (1.0 - lr * share_y[v]) * yv - lr * g * xu)
    return X, Y


def two_table_sgd_vertex_epoch(X, Y, positives, negatives, order, lr, *, weights=None, lam_pos=1.0, lam_neg=0.03,
                               lam_r=0.0, lam_r_context=None):
    r"""One vertex-order SGD epoch with two tables: each vector, in the given order, steps along its Eq. (2).

    The vectors are numbered as the rows of ``np.vstack([X, Y])``: ``k < n_U``
    is :math:`x_k`, ``k >= n_U`` is :math:`y_{k - n_U}`.  A step uses the
    gradient of :func:`two_table_logistic_gradient` at the current vectors
    (those visited earlier have moved), with the vector's own table's
    :math:`\lambda_r`:

    .. math::

        x_u \leftarrow x_u - \gamma\Big(\sum_{v} g_{uv}\,y_v + 2\lambda_r^U x_u\Big),\qquad
        y_v \leftarrow y_v - \gamma\Big(\sum_{u} g_{uv}\,x_u + 2\lambda_r^V y_v\Big).

    With one :math:`\lambda_r` this is :func:`sgd_vertex_epoch` on the
    stacked table (:func:`stack_tables`).

    Parameters
    ----------
    X, Y, positives, negatives, weights, lam_pos, lam_neg, lam_r, lam_r_context
        As in :func:`two_table_logistic_objective`.
    order : sequence of int
        Stacked row indices in ``[0, n_U + n_V)``, in visiting order.
    lr : float
        The step :math:`\gamma`.

    Returns
    -------
    (X, Y) : ndarrays of float64

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit import reference
    >>> X, Y = np.array([[0.3, 0.1], [0.2, -0.1]]), np.array([[-0.1, 0.4], [0.5, 0.2]])
    >>> pos, neg = [[0, 1], [1, 0]], [[0, 0]]
    >>> X1, Y1 = reference.two_table_sgd_vertex_epoch(X, Y, pos, neg, [3, 0, 2, 1], 0.1, lam_r=0.2)
    >>> Z, stacked = reference.stack_tables(X, Y, np.vstack([pos, neg]))
    >>> Z1 = reference.sgd_vertex_epoch(Z, stacked[:2], stacked[2:], [3, 0, 2, 1], 0.1, lam_r=0.2)
    >>> bool(np.allclose(np.vstack([X1, Y1]), Z1))
    True
    """
    X, Y = _two_tables(X, Y)
    lam_r_context = lam_r if lam_r_context is None else lam_r_context
    pos = _table_pairs(positives, len(X), len(Y), "positives")
    neg = _table_pairs(negatives, len(X), len(Y), "negatives")
    w = _weights(weights, len(pos))
    n_x = len(X)
    # each vector's partners in the other table, with the pair's coefficient and its sign (+1: edge)
    partners = [[] for _ in range(n_x + len(Y))]
    for pairs, coefs, sign in ((pos, lam_pos * w, 1.0), (neg, np.full(len(neg), float(lam_neg)), -1.0)):
        for (u, v), c in zip(pairs.tolist(), coefs.tolist()):
            partners[u].append((n_x + v, c, sign))
            partners[n_x + v].append((u, c, sign))
    Z = np.vstack([X, Y])
    for k in _order(order, len(Z), "vertex").tolist():
        grad = 2.0 * (lam_r if k < n_x else lam_r_context) * Z[k]
        for j, c, sign in partners[k]:
            s = float(Z[k] @ Z[j])
            # d/ds of -c log sigma(s) (edge) is -c sigma(-s); of -c log sigma(-s) (negative), c sigma(s)
            grad += (-c * _sigma(-s) if sign > 0 else c * _sigma(s)) * Z[j]
        Z[k] = Z[k] - lr * grad
    return Z[:n_x], Z[n_x:]


def reverse_negatives(arcs, share, per_positive, coins):
    r"""A directed graph's direction-aware negatives: the reverse :math:`(v, u)` of each one-way arc.

    An arc :math:`u \to v` is one-way when :math:`v \to u` is not among
    ``arcs``.  With :math:`q` negatives per arc and the share :math:`\rho`,
    each one-way arc gets :math:`\lfloor\rho q\rfloor` copies of its
    reverse, and one more when its coin is below
    :math:`\rho q - \lfloor\rho q\rfloor`: :math:`\rho q` in expectation.
    ``LogisticEmbedding(reverse_negatives=rho)`` puts them in place of as
    many uniform negatives, so that its objective (in expectation over the
    coins) is :func:`two_table_logistic_objective` with

    .. math::

        -\lambda_- \sum_{(a,b)\in E_-^{\mathrm{unif}}} \log\sigma(-x_a\cdot y_b)
        -\lambda_- \rho q \sum_{u\to v \text{ one-way}} \log\sigma(-x_v\cdot y_u)

    as its negative part: the reverse of an arc is pushed below the arc
    itself, which is what the direction task asks.

    Parameters
    ----------
    arcs : (m, 2) array_like of int
        The training arcs :math:`(u, v)`.
    share : float in [0, 1]
        :math:`\rho`.
    per_positive : float
        :math:`q`.
    coins : sequence of float in [0, 1)
        One per one-way arc, in the order of ``arcs``.

    Returns
    -------
    (R, 2) ndarray of int64
        The reverse pairs, arc by arc in the order of ``arcs``.

    Examples
    --------
    >>> from lgekit.reference import reverse_negatives
    >>> arcs = [[0, 1], [1, 0], [1, 2], [2, 3]]          # 0 <-> 1 reciprocated; 1 -> 2, 2 -> 3 one-way
    >>> reverse_negatives(arcs, 0.25, 6, [0.9, 0.1]).tolist()   # rho q = 1.5: one copy, a second below 0.5
    [[2, 1], [3, 2], [3, 2]]
    """
    arcs = np.asarray(arcs, dtype=np.int64).reshape(-1, 2)
    present = set(map(tuple, arcs.tolist()))
    expected = share * per_positive
    whole = int(np.floor(expected))
    out = []
    coin = iter(coins)
    for u, v in arcs.tolist():
        if (v, u) in present:
            continue                   # reciprocated: its reverse is an arc, not a negative
        copies = whole + (1 if next(coin) < expected - whole else 0)
        out.extend([(v, u)] * copies)
    return np.array(out, dtype=np.int64).reshape(-1, 2)


def stack_tables(X, Y, pairs):
    r"""Footnote 1's transform: the tables ``X`` and ``Y`` as one table, the pairs as its row pairs.

    Returns ``(np.vstack([X, Y]), pairs + [0, len(X)])``: row ``u`` is
    :math:`x_u`, row ``len(X) + v`` is :math:`y_v`, and every pair joins an
    ``X`` row to a ``Y`` row, so that an undirected (one-table) method run on
    the result is the two-table method.  This is the stacked table that
    ``LogisticEmbedding`` and ``HingeEmbedding`` train for a directed or
    bipartite graph.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import stack_tables
    >>> Z, p = stack_tables(np.ones((2, 3)), np.zeros((4, 3)), [[1, 3]])
    >>> Z.shape, p.tolist()
    ((6, 3), [[1, 5]])
    """
    X, Y = _two_tables(X, Y)
    pairs = _table_pairs(pairs, len(X), len(Y), "pairs")
    return np.vstack([X, Y]), pairs + np.array([0, len(X)], dtype=np.int64)


def tie_penalty(X, Y, lam_tie, free=None):
    r"""The tie between a directed graph's two tables: :math:`\lambda_{\mathrm{tie}}\sum_u\|x'_u - y'_u\|^2`.

    ``x'_u`` and ``y'_u`` are the first ``free`` coordinates of node ``u``'s
    source vector (row ``u`` of ``X``) and target vector (row ``u`` of ``Y``):
    all of them, or all but the node biases' last two
    (``LogisticEmbedding(lam_tie=...)``).

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import tie_penalty
    >>> tie_penalty(np.array([[1.0, 2.0]]), np.array([[0.0, 2.0]]), 0.5)
    0.5
    """
    X, Y = _two_tables(X, Y)
    free = X.shape[1] if free is None else int(free)
    if len(X) != len(Y) or not 0 <= free <= X.shape[1]:
        raise ValueError(f"the tie needs two tables of the same nodes and free <= D, got {len(X)} and {len(Y)} "
                         f"rows, free={free}")
    total = 0.0
    for u in range(len(X)):
        for k in range(free):
            total += float(X[u, k] - Y[u, k]) ** 2
    return lam_tie * total


def tie_step(X, Y, step, lam_tie, free=None):
    r"""The proximal step of :func:`tie_penalty` with step size ``step``: the tables after it.

    .. math::

        (X, Y) \leftarrow \arg\min_{X', Y'}\ \tfrac12\|X' - X\|^2 + \tfrac12\|Y' - Y\|^2
            + \mathrm{step}\cdot\lambda_{\mathrm{tie}}\sum_u\|x'_u - y'_u\|^2

    Its optimality conditions, :math:`x - x_0 + 2 s\lambda(x - y) = 0` and
    :math:`y - y_0 - 2 s\lambda(x - y) = 0`, keep the node's mean
    :math:`m = (x_0 + y_0)/2` and shrink its half-difference
    :math:`h = (x_0 - y_0)/2` to :math:`h / (1 + 4 s\lambda)`: the new
    vectors are :math:`m \pm h / (1 + 4 s\lambda)`, coordinate by free
    coordinate (the others are left as they are).  ``LogisticEmbedding``
    takes this step once after every epoch, with the epoch's step
    :math:`\gamma_t`.

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import tie_step
    >>> X, Y = tie_step(np.array([[1.0, 5.0]]), np.array([[0.0, 7.0]]), 0.5, 0.5, free=1)
    >>> X.tolist(), Y.tolist()        # 1 + 4 * 0.5 * 0.5 = 2: the half-difference 0.5 halved
    ([[0.75, 5.0]], [[0.25, 7.0]])
    """
    X, Y = _two_tables(X, Y)
    free = X.shape[1] if free is None else int(free)
    if len(X) != len(Y) or not 0 <= free <= X.shape[1]:
        raise ValueError(f"the tie needs two tables of the same nodes and free <= D, got {len(X)} and {len(Y)} "
                         f"rows, free={free}")
    X, Y = X.copy(), Y.copy()
    shrink = 1.0 / (1.0 + 4.0 * step * lam_tie)
    for u in range(len(X)):
        for k in range(free):
            mean, half = (X[u, k] + Y[u, k]) / 2, (X[u, k] - Y[u, k]) / 2
            X[u, k], Y[u, k] = mean + half * shrink, mean - half * shrink
    return X, Y


def order_biases(X, Y):
    r"""A directed graph's node biases projected onto a node order: the tables after the projection.

    With node biases (:func:`bias_pins`) node ``u``'s source row carries
    :math:`b_u` in coordinate ``D - 2`` and its target row :math:`c_u` in
    coordinate ``D - 1``.  The nearest pair with :math:`b_u + c_u = 0` is
    :math:`b_u = a_u`, :math:`c_u = -a_u` with :math:`a_u = (b_u - c_u)/2`,
    and the biases then add :math:`\kappa(a_u - a_v)` to the score of
    :math:`u \to v`: a Bradley-Terry order.  ``LogisticEmbedding`` projects
    after every epoch (after :func:`tie_step`).

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.reference import order_biases
    >>> X, Y = order_biases(np.array([[0.1, 0.75, 0.5]]), np.array([[0.2, 0.5, 0.25]]))
    >>> X.tolist(), Y.tolist()                  # b = 0.75, c = 0.25: a = 0.25
    ([[0.1, 0.25, 0.5]], [[0.2, 0.5, -0.25]])
    """
    X, Y = _two_tables(X, Y)
    D = X.shape[1]
    if len(X) != len(Y) or D < 2:
        raise ValueError(f"node biases need two tables of the same nodes and D >= 2, got {len(X)} and {len(Y)} "
                         f"rows of {D} columns")
    X, Y = X.copy(), Y.copy()
    for u in range(len(X)):
        a = (X[u, D - 2] - Y[u, D - 1]) / 2
        X[u, D - 2], Y[u, D - 1] = a, -a
    return X, Y
