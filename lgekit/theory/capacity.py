r"""Capacity: fitting random edge labels with a dimension constraint or a norm penalty.

On a random d-regular graph whose edges carry independent uniform labels
:math:`y_e \in \{\pm 1\}`, fit

.. math::

    \min_{X \in \mathbb R^{n \times D}}\;
    \frac1m \sum_{e=(a,b)} \log\bigl(1 + e^{-y_e\, x_a^\top x_b}\bigr)
    \;+\; \lambda_r \,\frac1n \sum_v \|x_v\|^2 .

* Unregularized with :math:`D = d` (a *dimension* constraint): Claim 1 says
  every labelling is realisable with margins > 1, and the optimiser finds one
  -- training loss -> 0 on pure noise.
* Norm-regularized with a large D: the penalty makes memorisation cost at
  least :math:`\lambda_r \cdot L`, where L is the mean squared norm any
  realising embedding needs (:func:`~lgekit.theory.shattering.shattering_norm_lower_bound`);
  for :math:`\lambda_r \ge \ln 2 / L` the all-zero embedding (objective
  :math:`\ln 2`) beats every memorising one, whatever D.

We measure *margins and loss*, not sign accuracy: shrinking an embedding
keeps every sign, so sign accuracy cannot show what a norm penalty removes.

Why a separate optimiser
------------------------
:class:`lgekit.LogisticEmbedding` trains on a graph's edges as positives and
samples its own negatives; these experiments need arbitrary *signed* pairs
(the negatives are specific edges of the graph), an exact objective to
certify "loss -> 0", and no learning-rate schedule in the way.  So this
module fits the objective above by full-batch L-BFGS (scipy) with an exact,
vectorised gradient (one sparse-dense product per evaluation).
"""
import logging
import numbers
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from threadpoolctl import threadpool_limits

from .._random import check_random_state
from .._validation import Interval, validate_params
from ..graph import Graph

__all__ = [
    "SignedFit",
    "signed_pair_objective",
    "fit_signed_pairs",
    "random_labelled_regular_graph",
]

logger = logging.getLogger(__name__)

#: the constraints of fit_signed_pairs' arguments, checked by :func:`lgekit._validation.validate_params` (the
#: estimators' mechanism: one message form, ``<caller>: <name> must be <what is accepted>, got <value>``)
_FIT = {"n_nodes": [Interval(numbers.Integral, 1, None, closed="left")],
        "dim": [Interval(numbers.Integral, 1, None, closed="left")],
        "lam_r": [Interval(numbers.Real, 0, None, closed="left")]}


@dataclass(frozen=True)
class SignedFit:
    """Result of :func:`fit_signed_pairs`.

    Attributes
    ----------
    embedding : ndarray (n, D)
    loss : float
        Mean logistic loss over the pairs (no penalty).
    objective : float
        ``loss + lam_r * mean_sq_norm``.
    min_margin : float
        :math:`\\min_e y_e x_a^\\top x_b`.
    frac_margin_gt1 : float
        Fraction of pairs with margin > 1.
    n_violated : int
        Pairs with margin <= 1.
    mean_sq_norm : float
    n_iter : int
    converged : bool
    seconds : float
    """

    embedding: np.ndarray
    loss: float
    objective: float
    min_margin: float
    frac_margin_gt1: float
    n_violated: int
    mean_sq_norm: float
    n_iter: int
    converged: bool
    seconds: float

    @property
    def memorised(self):
        """True when every pair has margin > 1."""
        return self.n_violated == 0


def signed_pair_objective(X, pairs, labels, lam_r=0.0, weights=None):
    r"""Objective and gradient of :func:`fit_signed_pairs` at X (plain NumPy reference).

    Returns
    -------
    value : float
        :math:`\sum_e w_e \log(1+e^{-y_e x_a^\top x_b}) / \sum_e w_e + \frac{\lambda_r}{n}\|X\|_F^2`
        (:math:`w_e = 1` without ``weights``).
    grad : ndarray, shape of X
    """
    X = np.asarray(X, dtype=np.float64)
    pairs = np.asarray(pairs, dtype=np.int64)
    y = np.asarray(labels, dtype=np.float64)
    n, m = X.shape[0], pairs.shape[0]
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    a, b = pairs[:, 0], pairs[:, 1]
    z = y * np.einsum("ij,ij->i", X[a], X[b])
    g = -y * expit(-z) * w
    grad = np.zeros_like(X)
    np.add.at(grad, a, g[:, None] * X[b])
    np.add.at(grad, b, g[:, None] * X[a])
    grad += (2.0 * lam_r / n) * X
    return float(-(w * log_expit(z)).sum() + lam_r * float((X * X).sum()) / n), grad


def fit_signed_pairs(pairs, labels, n_nodes, dim, lam_r=0.0, init_scale=0.1, maxiter=2000, gtol=1e-7,
                     seed=None, weights=None):
    r"""Full-batch L-BFGS on the signed-pair logistic loss with an L2 penalty.

    Parameters
    ----------
    pairs : array-like (m, 2) of int
        Vertex index pairs.
    labels : array-like (m,) of +1/-1
    n_nodes : int
    dim : int
        Embedding dimension D.
    lam_r : float, default 0
        Weight of the mean squared norm :math:`\frac1n\sum_v\|x_v\|^2`.
    init_scale : float, default 0.1
        Standard deviation of the Gaussian initialisation.
    maxiter : int, default 2000
        L-BFGS iterations.
    gtol : float, default 1e-7
        Stop when the largest gradient component falls below it.
    seed : None, int or numpy.random.Generator
    weights : array-like (m,) of positive floats, optional
        Multiplicity of each pair: the loss becomes the weighted mean
        :math:`\sum_e w_e \ell_e / \sum_e w_e`.  A sample with repeated
        (pair, label) rows is fitted exactly by its distinct rows with their
        counts as weights, at a cost independent of the sample size.

    Returns
    -------
    SignedFit
        ``loss``, ``min_margin``, ``frac_margin_gt1`` and ``n_violated``
        are over the given rows (``loss`` weighted).

    Notes
    -----
    Objective :math:`f(X) = \frac1m\sum_e \operatorname{softplus}(-y_e s_e)
    + \frac{\lambda_r}{n}\|X\|_F^2` with :math:`s_e = x_a^\top x_b`;
    gradient :math:`G X + \frac{2\lambda_r}{n} X` where :math:`G` is the
    symmetric sparse matrix with :math:`-y_e\,\sigma(-y_e s_e)/m` at
    :math:`(a,b)` and :math:`(b,a)`.  One evaluation costs O(m D).  The loss
    is non-convex in X; with :math:`\lambda_r = 0` it has no minimiser (the
    loss decreases to 0 along any separating direction), and L-BFGS stops on
    ``gtol`` once the loss is tiny.
    """
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind not in "iu":
        raise ValueError(f"pairs must be an (m, 2) integer array, got shape {pairs.shape} dtype {pairs.dtype}")
    y = np.asarray(labels, dtype=np.float64)
    if y.shape != (pairs.shape[0],) or not np.all(np.abs(y) == 1):
        raise ValueError(f"labels must be +1/-1, one per pair ({pairs.shape[0]}), got shape {y.shape}")
    validate_params(_FIT, {"n_nodes": n_nodes, "dim": dim, "lam_r": lam_r}, "fit_signed_pairs")
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n_nodes):
        raise ValueError(f"pairs must index vertices in [0, {n_nodes}), got range [{pairs.min()}, {pairs.max()}]")
    if weights is None:
        wn = np.full(pairs.shape[0], 1.0 / max(pairs.shape[0], 1))
    else:
        wn = np.asarray(weights, dtype=np.float64)
        if wn.shape != (pairs.shape[0],) or not np.all(np.isfinite(wn)) or np.any(wn <= 0):
            raise ValueError(f"weights must be positive finite numbers, one per pair ({pairs.shape[0]}), "
                             f"got shape {wn.shape}")
        wn = wn / wn.sum()
    rng = check_random_state(seed, "seed")
    n, D, m = int(n_nodes), int(dim), pairs.shape[0]
    a = pairs[:, 0].astype(np.int64)
    b = pairs[:, 1].astype(np.int64)
    # CSR structure of G once; each evaluation only gathers its data
    rows = np.concatenate([a, b])
    cols = np.concatenate([b, a])
    order = np.lexsort((cols, rows))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    indices = cols[order].astype(np.int32)
    owner = np.concatenate([np.arange(m), np.arange(m)])[order]
    lam = float(lam_r)

    def fun(w):
        X = w.reshape(n, D)
        z = y * (X[a] * X[b]).sum(axis=1)
        loss = -(wn * log_expit(z)).sum()
        g = -y * expit(-z) * wn
        G = sp.csr_matrix((g[owner], indices, indptr), shape=(n, n))
        grad = G @ X
        if lam:
            grad += (2.0 * lam / n) * X
        return loss + lam * float(np.dot(w, w)) / n, grad.ravel()

    x0 = rng.standard_normal(n * D) * float(init_scale)
    t0 = time.perf_counter()
    # The L-BFGS two-loop recursion works on short vectors: multi-threaded BLAS
    # would only add synchronisation between threads with almost nothing to do.
    with threadpool_limits(limits=1, user_api="blas"):
        res = minimize(fun, x0, jac=True, method="L-BFGS-B",
                       options={"maxiter": int(maxiter), "gtol": float(gtol), "ftol": 1e-15, "maxcor": 20})
    seconds = time.perf_counter() - t0
    X = res.x.reshape(n, D)
    z = y * (X[a] * X[b]).sum(axis=1)
    loss = float(-(wn * log_expit(z)).sum())
    sq = float((X * X).sum() / n)
    return SignedFit(
        embedding=X, loss=loss, objective=loss + lam * sq, min_margin=float(z.min()),
        frac_margin_gt1=float(np.mean(z > 1)), n_violated=int(np.count_nonzero(z <= 1)),
        mean_sq_norm=sq, n_iter=int(res.nit), converged=bool(res.success), seconds=seconds,
    )


def random_labelled_regular_graph(n, d, seed=None):
    """A random d-regular graph (networkx, configuration-model pairing) and uniform +-1 edge labels.

    Returns
    -------
    graph : lgekit.Graph
    labels : ndarray of int8, aligned with ``graph.edges()``
    """
    import networkx as nx  # heavy, and only these random graphs need it

    rng = check_random_state(seed, "seed")
    if not isinstance(n, numbers.Integral) or not isinstance(d, numbers.Integral) or d < 1 or n <= d:
        raise ValueError(f"need ints 1 <= d < n, got n={n!r}, d={d!r}")
    if (n * d) % 2:
        raise ValueError(f"n * d must be even for a d-regular graph, got n={n}, d={d}")
    g = nx.random_regular_graph(int(d), int(n), seed=int(rng.integers(2**31 - 1)))
    graph = Graph.from_networkx(g)
    labels = rng.choice(np.array([-1, 1], dtype=np.int8), size=graph.n_edges)
    return graph, labels
