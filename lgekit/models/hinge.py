"""Hinge-loss linear graph embedding by dual coordinate descent (the paper's Algorithm 1)."""
import logging
import numbers
from collections import namedtuple

import numpy as np

from .._random import check_random_state, draw_seed
from . import _dcd

__all__ = ["solve_vertex_svm", "pair_csr", "PairCSR"]

logger = logging.getLogger(__name__)


PairCSR = namedtuple("PairCSR", ["indptr", "nbr", "sign", "coef", "upper"])
PairCSR.__doc__ = """Training pairs seen from each vertex (the layout of the dual variables).

Vertex ``u``'s entries are ``indptr[u]:indptr[u + 1]``; entry ``k`` stands for
one occurrence of a pair ``{u, nbr[k]}`` with label ``sign[k]`` (+1 edge,
-1 negative), loss weight ``coef[k]`` (``lam_pos * edge_weight`` or
``lam_neg``) and box bound ``upper[k] = coef[k] / lam_r``.  Every pair
occurrence gives two entries, one at each end.
"""


def _check_real(value, name, low=None, low_open=False, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}: {value!r}")
    value = float(value)
    bad = not np.isfinite(value)
    if low is not None:
        bad = bad or (value <= low if low_open else value < low)
    if high is not None:
        bad = bad or value > high
    if bad:
        rng = (f"{'>' if low_open else '>='} {low}" if low is not None else "finite")
        raise ValueError(f"{name} must be a finite number {rng}, got {value!r}")
    return value


def _check_pairs(pairs, n_nodes, name):
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (m, 2), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer vertex indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.min() < 0 or arr.max() >= n_nodes:
        raise ValueError(f"{name} must hold vertex indices in [0, {n_nodes}), got values in "
                         f"[{arr.min()}, {arr.max()}]")
    if np.any(arr[:, 0] == arr[:, 1]):
        raise ValueError(f"{name} contains self-pairs (u, u), e.g. {arr[arr[:, 0] == arr[:, 1]][0].tolist()}: "
                         "x_u . x_u is not a linear SVM term in x_u; remove them")
    return arr


def pair_csr(n_nodes, positives, negatives, *, positive_weights=None, lam_pos=1.0, lam_neg=0.03,
             lam_r=3.0):
    """Build the per-vertex view of the training pairs that the DCD kernel walks.

    Parameters
    ----------
    n_nodes : int
    positives : (m, 2) int array
        Edges (index pairs), each undirected edge listed once.
    negatives : (k, 2) int array
        Negative pairs.  Repeats are kept: a pair listed twice is two terms of
        the objective and gets two dual variables at each end; a pair that is
        also an edge gets one entry of each sign.
    positive_weights : (m,) float array, optional
        Edge weights (default 1); the loss weight of an edge is
        ``lam_pos * weight``.
    lam_pos, lam_neg, lam_r : float

    Returns
    -------
    PairCSR
        Entries sorted by vertex, then partner, then sign (+1 first), then
        input order: a deterministic layout, independent of thread count.
    """
    positives = _check_pairs(positives, n_nodes, "positives")
    negatives = _check_pairs(negatives, n_nodes, "negatives")
    if positive_weights is None:
        positive_weights = np.ones(len(positives))
    positive_weights = np.asarray(positive_weights, dtype=np.float64)
    if positive_weights.shape != (len(positives),):
        raise ValueError(f"positive_weights must have shape ({len(positives)},), got {positive_weights.shape}")
    if not np.all(np.isfinite(positive_weights)) or np.any(positive_weights < 0):
        raise ValueError("positive_weights must be finite and non-negative")
    rows = np.concatenate([positives[:, 0], positives[:, 1], negatives[:, 0], negatives[:, 1]])
    cols = np.concatenate([positives[:, 1], positives[:, 0], negatives[:, 1], negatives[:, 0]])
    sign = np.concatenate([np.ones(2 * len(positives), np.int8), -np.ones(2 * len(negatives), np.int8)])
    coef = np.concatenate([lam_pos * positive_weights, lam_pos * positive_weights,
                           np.full(2 * len(negatives), float(lam_neg))])
    order = np.lexsort((-sign, cols, rows))  # last key is primary
    rows, cols, sign, coef = rows[order], cols[order], sign[order], coef[order]
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_nodes), out=indptr[1:])
    return PairCSR(indptr, np.ascontiguousarray(cols, dtype=np.int32), np.ascontiguousarray(sign),
                   np.ascontiguousarray(coef), np.ascontiguousarray(coef / lam_r))


def solve_vertex_svm(neighbour_vectors, signs, lam_pos=1.0, lam_neg=0.03, lam_r=3.0, tol=1e-8,
                     max_passes=100_000, seed=0, *, weights=None, alpha0=None):
    """Solve one vertex's block sub-problem with the kernel's DCD solver.

    With every other vector fixed, the part of the hinge embedding objective
    that depends on ``x`` is a linear SVM without bias:

    .. math::

        \\min_x \\; \\frac{\\lambda_r}{2}\\|x\\|^2
              + \\sum_j c_j \\max(0, 1 - s_j\\, x\\cdot x_j),
        \\qquad c_j = \\lambda_+ w_j \\;(s_j = +1), \\; \\lambda_- \\;(s_j = -1),

    i.e. scikit-learn's ``LinearSVC(loss="hinge", dual=True,
    fit_intercept=False, C=1/lam_r, class_weight={1: lam_pos, -1: lam_neg})``
    on the rows ``neighbour_vectors`` with labels ``signs``.  This runs the
    same compiled block solver the epochs use (LIBLINEAR's
    ``solve_l2r_l1l2_svc``), to convergence.

    Parameters
    ----------
    neighbour_vectors : (k, D) array
        The partners' vectors (rows); float32 or float64 (kept), else float64.
    signs : (k,) array of +1 / -1
    lam_pos, lam_neg, lam_r : float
        Loss weights and the regularisation (``lam_r > 0``).
    tol : float, default 1e-8
        Stop after a pass whose largest |projected gradient| is <= tol.
    max_passes : int, default 100000
    seed : int, default 0
        Seed of the coordinate permutations.
    weights : (k,) array, optional
        Edge weights multiplying ``lam_pos`` for the +1 rows (default 1).
    alpha0 : (k,) array, optional
        Warm start for the duals (clipped into the box); default zeros.

    Returns
    -------
    x : (D,) array
        The solution ``x = sum_j alpha_j s_j x_j``.
    alpha : (k,) float64
        The duals, each in ``[0, c_j / lam_r]``.
    gap : float
        Duality gap ``P(x) - D(alpha)`` of the sub-problem scaled by
        ``1 / lam_r`` (the SVM's own units); 0 at the optimum.
    n_passes : int
        Passes run (``max_passes`` means the tolerance was not reached).

    Examples
    --------
    >>> import numpy as np
    >>> from lgekit.models.hinge import solve_vertex_svm
    >>> rng = np.random.default_rng(0)
    >>> xs, s = rng.normal(size=(20, 4)), np.where(rng.random(20) < 0.5, 1, -1)
    >>> x, alpha, gap, n_passes = solve_vertex_svm(xs, s, lam_r=1.0)
    >>> bool(abs(gap) < 1e-6)
    True
    """
    X = np.asarray(neighbour_vectors)
    if X.ndim != 2:
        raise ValueError(f"neighbour_vectors must be a 2-D (k, D) array, got shape {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    if not np.all(np.isfinite(X)):
        raise ValueError("neighbour_vectors contains NaN or infinite values")
    s = np.asarray(signs)
    if s.shape != (X.shape[0],) or not np.all(np.isin(s, (-1, 1))):
        raise ValueError(f"signs must be a ({X.shape[0]},) array of +1/-1, got shape {s.shape} "
                         f"with values {np.unique(s)[:5].tolist()}")
    lam_pos = _check_real(lam_pos, "lam_pos", low=0)
    lam_neg = _check_real(lam_neg, "lam_neg", low=0)
    lam_r = _check_real(lam_r, "lam_r", low=0, low_open=True)
    tol = _check_real(tol, "tol", low=0)
    if isinstance(max_passes, bool) or not isinstance(max_passes, numbers.Integral) or max_passes < 1:
        raise ValueError(f"max_passes must be an int >= 1, got {max_passes!r}")
    w = np.ones(len(s)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != s.shape or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"weights must be a ({len(s)},) array of finite non-negative numbers")
    coef = np.where(s > 0, lam_pos * w, lam_neg)
    upper = np.ascontiguousarray(coef / lam_r)
    if alpha0 is None:
        alpha = np.zeros(len(s))
    else:
        alpha = np.clip(np.asarray(alpha0, dtype=np.float64), 0, upper)
        if alpha.shape != s.shape:
            raise ValueError(f"alpha0 must have shape {s.shape}, got {alpha.shape}")
        alpha = np.ascontiguousarray(alpha)
    seed = draw_seed(check_random_state(seed, "seed"))
    x, n_passes, gap, _viol = _dcd.solve_vertex(X, np.ascontiguousarray(s, dtype=np.int8), upper,
                                                alpha, int(max_passes), tol, seed)
    return x, alpha, float(gap), int(n_passes)
