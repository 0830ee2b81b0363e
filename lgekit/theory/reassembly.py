r"""The numbers the theory checks rest on, computed a second time from the paper's statements alone.

``lgekit theory bound``, ``directed``, ``capacity`` and ``shattering`` assemble
their numbers through the helpers of :mod:`lgekit.theory` (the sample's
layout, the Lanczos solver, :func:`~lgekit.theory.theorem1_bound`,
:func:`~lgekit.theory.fit_signed_pairs`, ...).  A wrong helper there moves a
number and, as often as not, moves its verdict's threshold with it, so the
checks also compute every number a second time, here, with nothing shared:
each function below reads the raw arrays (the split's pairs, the embedding's
tables), counts its own pairs, draws its own Rademacher signs from its own
generator, solves with its own eigensolver (NumPy's dense ``eigvalsh``, or
ARPACK for a matrix too large to hold densely) and writes each formula out
as the paper prints it.  The checks' claims ``assembled-twice-agrees`` (and
their relatives) FAIL when the two paths differ by more than the Monte Carlo
error allows, naming the term.

Nothing here imports another module of :mod:`lgekit.theory`, on purpose: a
second path that called the first path's helpers would agree with it however
wrong it were.

References
----------
Gao, Zhang, Peng & Parameswaran, "The Importance of Norm Regularization in
Linear Graph Embedding", ICLR 2019: Section 3.1 (Theorem 1, Claim 1 and the
discussion after them); the appendix (proof of Theorem 1).
"""
import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from scipy.stats import t as student_t

__all__ = [
    "DENSE_LIMIT",
    "sign_matrix_norms",
    "theorem1_norm_by_hand",
    "theorem1_terms_by_hand",
    "norm_threshold_by_hand",
    "planted_terms_by_hand",
    "signed_fit_by_hand",
    "erdos_renyi_norms_by_hand",
    "shattering_lower_bound_by_hand",
    "agreement_tolerance",
    "second_path_seed",
]

#: matrices with at most this many rows and columns are solved densely (NumPy's ``eigvalsh``); larger ones by ARPACK
DENSE_LIMIT = 3000
#: per-comparison false-alarm probability of :func:`agreement_tolerance` (two-sided)
FALSE_ALARM = 1e-3


def second_path_seed(rng):
    """An int seed for the second path, spawned from ``rng``'s seed sequence without drawing from ``rng``.

    The first path's draws are then exactly those it makes without a second path, and the second path's are
    still fixed by the one seed the check was given (each call spawns the next child of the sequence).  A
    generator without a seed sequence gives a seed drawn from it instead.
    """
    seq = getattr(rng.bit_generator, "seed_seq", None)
    if not isinstance(seq, np.random.SeedSequence):
        return int(rng.integers(2**63 - 1))
    return int(seq.spawn(1)[0].generate_state(1, np.uint64)[0] >> np.uint64(1))


def _top_singular_value(rows, cols, values, shape, symmetric):
    """The spectral norm of the matrix with ``values`` at ``(rows, cols)`` (repeats added), by its own solver.

    ``symmetric``: the matrix is ``M + M^T`` (a value at both orientations): the norm is the largest
    ``|eigenvalue|``.  Otherwise the norm is the square root of the top eigenvalue of the smaller Gram matrix.
    """
    n_rows, n_cols = shape
    M = sp.coo_matrix((values, (rows, cols)), shape=shape).tocsr()     # repeats summed
    if symmetric:
        S = M + M.T
        if n_rows <= DENSE_LIMIT:
            eig = np.linalg.eigvalsh(S.toarray())
            return float(max(abs(eig[0]), abs(eig[-1])))
        return float(abs(eigsh(S.tocsr(), k=1, which="LM", tol=1e-10, return_eigenvectors=False)[0]))
    G = (M.T @ M) if n_cols <= n_rows else (M @ M.T)    # the smaller Gram matrix, exact in float64
    if G.shape[0] <= DENSE_LIMIT:
        top = float(np.linalg.eigvalsh(G.toarray())[-1])
    else:
        top = float(eigsh(G.tocsr(), k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0])
    return math.sqrt(max(top, 0.0))


def sign_matrix_norms(rows, cols, shape, symmetric, n_draws, rng, layout=None):
    r""":math:`\|A_\sigma\|_2` for ``n_draws`` fresh draws of independent uniform signs, one per listed pair.

    Parameters
    ----------
    rows, cols : int arrays (m,)
        Where pair i puts its sign (repeats add, as the sum over samples in Theorem 1's :math:`A_\sigma`).
    shape : (int, int)
    symmetric : bool
        Put each sign at both (row, col) and (col, row): the norm of :math:`A + A^\top`.
    n_draws : int
    rng : numpy.random.Generator
    layout : callable, optional
        ``layout(rng) -> (rows, cols)``: a layout drawn afresh for every draw (an orientation by coins),
        in place of ``rows, cols``.

    Returns
    -------
    ndarray (n_draws,)
    """
    out = np.empty(int(n_draws))
    for k in range(int(n_draws)):
        r, c = (rows, cols) if layout is None else layout(rng)
        signs = rng.choice(np.array([-1.0, 1.0]), size=len(r))
        out[k] = _top_singular_value(r, c, signs, shape, symmetric)
    return out


def _split_arrays(split, part):
    pos = np.asarray(getattr(split, f"{part}_positives"), dtype=np.int64).reshape(-1, 2)
    neg = np.asarray(getattr(split, f"{part}_negatives"), dtype=np.int64).reshape(-1, 2)
    return pos, neg


def theorem1_norm_by_hand(split, convention, n_draws, seed, n_left=None):
    r"""The :math:`\mathbb E_\sigma\|A_\sigma\|_2` Theorem 1 needs, by a second path: ``(value, draws, scale)``.

    Theorem 1 (Section 3.1): :math:`A_\sigma` has an independent uniform sign at every one of the
    :math:`m + m'` sampled pairs (``train_positives`` and ``train_negatives``, read here directly) and zeros
    elsewhere.  For an undirected sample and one vector per vertex the theorem's supremum is
    :math:`C\,\lambda_{\max}(A + A^\top)/2` (:mod:`lgekit.theory.bounds` derives it): the value is half the
    norm of the symmetric matrix.

    Parameters
    ----------
    split : lgekit.EdgeSplit
    convention : {"symmetric", "random", "sorted", "source", "oriented"}
        "oriented": the :math:`|U| \times |V|` matrix of a directed (rows sources, columns targets, n x n) or
        bipartite (rows the left nodes, columns the right nodes counted from ``n_left``) sample.
        "symmetric": :math:`\|A + A^\top\|/2`.  "sorted": every pair as (min, max), n x n.  "random": each
        pair turned by a fair coin, fresh coins every draw.  "source": positives by a coin, negative j as
        (source of positive ``j // r``, a uniformly chosen end of negative j), fresh every draw.
    n_draws : int
    seed : int
        The second path's own generator (``numpy.random.default_rng(seed)``).
    n_left : int, optional
        The number of left nodes of a bipartite sample (``convention="oriented"``); None for a directed one.

    Returns
    -------
    value : float
        Mean over the draws, times the scale (1/2 for "symmetric", 1 otherwise).
    draws : ndarray (n_draws,)
        The scaled draws (their spread is the Monte Carlo error of ``value``).
    """
    rng = np.random.default_rng(seed)
    pos, neg = _split_arrays(split, "train")
    pairs = np.concatenate([pos, neg])
    n = int(split.graph.n_nodes)
    if convention == "oriented":
        offset = 0 if n_left is None else int(n_left)
        shape = (n, n) if n_left is None else (offset, n - offset)
        draws = sign_matrix_norms(pairs[:, 0], pairs[:, 1] - offset, shape, False, n_draws, rng)
        return float(draws.mean()), draws
    if convention == "symmetric":
        draws = 0.5 * sign_matrix_norms(pairs[:, 0], pairs[:, 1], (n, n), True, n_draws, rng)
        return float(draws.mean()), draws
    if convention == "sorted":
        draws = sign_matrix_norms(pairs.min(axis=1), pairs.max(axis=1), (n, n), False, n_draws, rng)
        return float(draws.mean()), draws

    def coins(g):
        turn = g.random(len(pairs)) < 0.5
        return np.where(turn, pairs[:, 1], pairs[:, 0]), np.where(turn, pairs[:, 0], pairs[:, 1])

    def source(g):
        a, b = coins(g)
        r = len(neg) // len(pos)
        j = np.arange(len(neg))
        ends = np.where(g.random(len(neg)) < 0.5, neg[:, 0], neg[:, 1])
        return np.concatenate([a[:len(pos)], a[j // r]]), np.concatenate([b[:len(pos)], ends])

    if convention not in ("random", "source"):
        raise ValueError(f"convention must be 'symmetric', 'random', 'sorted', 'source' or 'oriented', "
                         f"got {convention!r}")
    draws = sign_matrix_norms(None, None, (n, n), False, n_draws, rng, layout=coins if convention == "random"
                              else source)
    return float(draws.mean()), draws


def _clipped_logistic(margins, B):
    # the logistic loss log(1 + e^{-z}), clipped at B: Theorem 1 needs a loss bounded by B (Section 3.1)
    return np.minimum(np.logaddexp(0.0, -margins), B)


def theorem1_terms_by_hand(split, X, Y, norm_value, B, delta, n_left=None):
    r"""Theorem 1's right-hand side and the measured losses, written out from the statement (Section 3.1).

    .. math::

        \frac{1}{m+m'}\sum_{i} l(y_i\,x_{a_i}^\top x_{b_i})
        + \frac{2}{m+m'}\,\mathbb E_\sigma\|A_\sigma\|_2\sqrt{C_U C_V}
        + 4B\sqrt{\frac{2\ln(4/\delta)}{m+m'}}

    with l the logistic loss clipped at B, :math:`C_U = \sum_u\|x_u\|^2` over the table ``X`` and
    :math:`C_V = \sum_v\|y_v\|^2` over ``Y`` (``Y = X`` for one table).

    Parameters
    ----------
    split : lgekit.EdgeSplit
        Its four arrays of pairs, read directly.
    X : ndarray (n or n_left, D)
        The source / left table (every vertex for one table).
    Y : ndarray or None
        The target / right table; None for one table.
    norm_value : float
        :math:`\mathbb E_\sigma\|A_\sigma\|_2` as it enters (:func:`theorem1_norm_by_hand`).
    B, delta : float
    n_left : int, optional
        A bipartite sample's left side: a pair's second index minus ``n_left`` is its row of ``Y``.

    Returns
    -------
    dict
        ``"m + m'"``, ``"C_U"``, ``"C_V"``, ``"train loss"``, ``"test loss"``, ``"gap"``,
        ``"trivial loss"`` (the zero embedding's, :math:`\min(\ln 2, B)`), ``"complexity"``,
        ``"confidence"``, ``"bound"``, ``"mean ||x||^2"`` (over the rows of ``X``) and ``"s*"`` (the mean
        squared norm above which the bound is vacuous at zero training loss, one table).
    """
    X = np.asarray(X, dtype=np.float64)
    Yt = X if Y is None else np.asarray(Y, dtype=np.float64)
    offset = 0 if n_left is None else int(n_left)

    def loss(part):
        pos, neg = _split_arrays(split, part)
        s_pos = np.sum(X[pos[:, 0]] * Yt[pos[:, 1] - offset], axis=1)
        s_neg = np.sum(X[neg[:, 0]] * Yt[neg[:, 1] - offset], axis=1)
        return float(np.concatenate([_clipped_logistic(s_pos, B), _clipped_logistic(-s_neg, B)]).mean())

    pos, neg = _split_arrays(split, "train")
    m = len(pos) + len(neg)
    C_U = float(np.sum(X * X))
    C_V = float(np.sum(Yt * Yt))
    train, test = loss("train"), loss("test")
    complexity = 2.0 * norm_value * math.sqrt(C_U * C_V) / m
    confidence = 4.0 * B * math.sqrt(2.0 * math.log(4.0 / delta) / m)
    trivial = min(math.log(2.0), B)
    n = X.shape[0]
    s_star = norm_threshold_by_hand(m, n, norm_value, B, delta)
    return {"m + m'": m, "C_U": C_U, "C_V": C_V, "train loss": train, "test loss": test, "gap": test - train,
            "trivial loss": trivial, "complexity": complexity, "confidence": confidence,
            "bound": train + complexity + confidence, "mean ||x||^2": C_U / n, "s*": s_star}


def norm_threshold_by_hand(m, n, norm_value, B, delta):
    r"""The mean squared norm :math:`s^*` above which Theorem 1's bound is vacuous even at zero training loss.

    One table, :math:`C_U = C_V = n\bar s`: the bound is below the zero embedding's loss
    :math:`\ell_0 = \min(\ln 2, B)` only if :math:`\frac{2}{m}\mathbb E\|A_\sigma\|_2\,n\bar s +
    4B\sqrt{2\ln(4/\delta)/m} < \ell_0`, i.e. :math:`\bar s < (\ell_0 - 4B\sqrt{2\ln(4/\delta)/m})\,
    m / (2n\,\mathbb E\|A_\sigma\|_2)` (0 when the confidence term alone reaches :math:`\ell_0`).
    """
    room = min(math.log(2.0), B) - 4.0 * B * math.sqrt(2.0 * math.log(4.0 / delta) / m)
    if room <= 0:
        return 0.0
    return math.inf if norm_value == 0 else room * m / (2.0 * n * norm_value)


def planted_terms_by_hand(n_nodes, n_communities, negatives_per_positive, pairs, labels, counts, X, B, delta,
                          n_draws, seed):
    r"""Theorem 1 on the planted model, by a second path: the exact expected loss and the bound of one fit.

    The distribution (:class:`~lgekit.theory.PlantedPairDistribution`'s statement): vertex u is in community
    ``u * k // n``; a sample is a positive with probability :math:`1/(1+r)`, uniform over the ordered pairs
    :math:`u \ne v` inside a community, else a negative uniform over all ordered pairs :math:`u \ne v`.

    Parameters
    ----------
    n_nodes, n_communities, negatives_per_positive : int
    pairs, labels, counts : arrays
        The sample as its distinct unordered (pair, label) rows and how often each was drawn.
    X : ndarray (n, D)
    B, delta : float
    n_draws, seed : int
        For :math:`\mathbb E\|A_{\rm sym}\|_2/2`: one sign per *sample* (a pair drawn c times carries the sum
        of c signs), drawn here sample by sample.

    Returns
    -------
    dict
        ``"M"``, ``"E||A_sym||/2"``, ``"draws"``, ``"C"`` (:math:`\|X\|_F^2`), ``"mean ||x||^2"``,
        ``"train loss"``, ``"expected loss"``, ``"complexity"``, ``"confidence"``, ``"bound"``.
    """
    n, k, r = int(n_nodes), int(n_communities), int(negatives_per_positive)
    X = np.asarray(X, dtype=np.float64)
    pairs = np.asarray(pairs, dtype=np.int64)
    y = np.asarray(labels, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64)
    M = int(c.sum())
    Z = X @ X.T
    train = float(np.sum(c * _clipped_logistic(y * Z[pairs[:, 0], pairs[:, 1]], B)) / M)
    community = (np.arange(n) * k) // n
    same = (community[:, None] == community[None, :]) & ~np.eye(n, dtype=bool)
    off = ~np.eye(n, dtype=bool)
    p_pos = same / same.sum() / (1 + r)
    p_neg = off / off.sum() * r / (1 + r)
    expected = float(np.sum(p_pos * _clipped_logistic(Z, B)) + np.sum(p_neg * _clipped_logistic(-Z, B)))
    every = np.repeat(np.arange(len(pairs)), c)          # one row per sample
    rng = np.random.default_rng(seed)
    draws = 0.5 * sign_matrix_norms(pairs[every, 0], pairs[every, 1], (n, n), True, n_draws, rng)
    norm_value = float(draws.mean())
    C = float(np.sum(X * X))
    complexity = 2.0 * norm_value * C / M
    confidence = 4.0 * B * math.sqrt(2.0 * math.log(4.0 / delta) / M)
    return {"M": M, "E||A_sym||/2": norm_value, "draws": draws, "C": C, "mean ||x||^2": C / n, "train loss": train,
            "expected loss": expected, "complexity": complexity, "confidence": confidence,
            "bound": train + complexity + confidence}


def erdos_renyi_norms_by_hand(n, d, n_patterns, seed):
    r""":math:`\|A_\sigma\|_2` on fresh Erdős–Rényi patterns, by a second path: one sign draw per pattern.

    Theorem 1's pair model (the appendix's Erdős–Rényi estimate): each of the :math:`n^2` cells of the
    bipartite :math:`n \times n` matrix is a pair with probability :math:`d/n`, independently; each pair
    carries an independent uniform sign.  Drawn here cell by cell (a dense Bernoulli mask), for ``n`` up to a
    few thousand.

    Returns
    -------
    ndarray (n_patterns,)
    """
    rng = np.random.default_rng(seed)
    out = np.empty(int(n_patterns))
    for k in range(int(n_patterns)):
        rows, cols = np.nonzero(rng.random((n, n)) < d / n)
        out[k] = sign_matrix_norms(rows, cols, (n, n), False, 1, rng)[0]
    return out


def signed_fit_by_hand(pairs, labels, X, lam_r, seed):
    r"""The capacity objective of a fitted embedding, by a second path, and its label-permutation control.

    The objective (Section 3.1's discussion; :mod:`lgekit.theory.capacity`):
    :math:`\frac1m\sum_e\log(1 + e^{-y_e x_a^\top x_b}) + \lambda_r\frac1n\sum_v\|x_v\|^2` on the given
    labels; the control scores the same embedding against the labels permuted at random among the edges,
    which an embedding fitted to *these* labels matches no better than chance.

    Returns
    -------
    dict
        ``"loss"``, ``"objective"``, ``"mean_sq_norm"``, ``"min_margin"``, ``"violated"`` (margins <= 1),
        ``"frac_margin>1"``, ``"permuted frac_margin>1"``.
    """
    X = np.asarray(X, dtype=np.float64)
    pairs = np.asarray(pairs, dtype=np.int64)
    y = np.asarray(labels, dtype=np.float64)
    s = np.sum(X[pairs[:, 0]] * X[pairs[:, 1]], axis=1)
    z = y * s
    loss = float(np.mean(np.logaddexp(0.0, -z)))
    sq = float(np.sum(X * X) / X.shape[0])
    permuted = np.random.default_rng(seed).permutation(y)
    return {"loss": loss, "objective": loss + lam_r * sq, "mean_sq_norm": sq, "min_margin": float(z.min()),
            "violated": int(np.sum(z <= 1.0)), "frac_margin>1": float(np.mean(z > 1.0)),
            "permuted frac_margin>1": float(np.mean(permuted * s > 1.0))}


def shattering_lower_bound_by_hand(edges, labels, n_nodes):
    r"""Claim 1's norm lower bound by a second path: :math:`2|E| / (n\,\lambda_{\max}(A_y))`.

    If :math:`y_e x_a^\top x_b > 1` on every edge then :math:`|E| < \tfrac12\operatorname{tr}(X^\top A_y X)
    \le \tfrac12\lambda_{\max}(A_y)\|X\|_F^2`, :math:`A_y` the signed adjacency matrix (:math:`y_e` at both
    positions of edge e).  Infinite when :math:`\lambda_{\max} \le 0`.
    """
    e = np.asarray(edges, dtype=np.int64)
    y = np.asarray(labels, dtype=np.float64)
    n = int(n_nodes)
    if n <= DENSE_LIMIT:
        A = np.zeros((n, n))
        A[e[:, 0], e[:, 1]] = y
        A[e[:, 1], e[:, 0]] = y
        top = float(np.linalg.eigvalsh(A)[-1])
    else:
        A = sp.coo_matrix((np.r_[y, y], (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(n, n)).tocsr()
        top = float(eigsh(A, k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0])
    return math.inf if top <= 0 else 2.0 * len(e) / (n * top)


def agreement_tolerance(draws, n_first, value, solver_tol=0.0, first_draws=None, first_se=None):
    r"""How far a Monte Carlo estimate from ``n_first`` draws may sit from the mean of ``draws``, by chance alone.

    If both paths compute the same thing, both are means of draws of one distribution, and their difference
    has variance :math:`s^2 (1/k_1 + 1/k_2)`.  With the spread s estimated from the draws (the second path's,
    pooled with the first path's when ``first_draws`` or ``first_se`` gives them), the difference exceeds
    :math:`t_{\nu}(1 - \alpha/2)\, s \sqrt{1/k_1 + 1/k_2}` with probability :math:`\alpha` =
    :data:`FALSE_ALARM` (Student's t, :math:`\nu` the degrees of freedom of s).  A solver whose answer is
    low by at most ``solver_tol`` relative (Lanczos's Ritz values) adds ``solver_tol * value``.

    Parameters
    ----------
    draws : array
        The second path's draws (at least two).
    n_first : int or float
        The first path's number of draws (``math.inf``: a number without Monte Carlo error; 1 for an
        estimate whose draws share one random layout, which varies as much as a draw).
    value : float
        The magnitude the solver tolerance is relative to.
    solver_tol : float, default 0
    first_draws : array, optional
        The first path's draws, pooled into s.
    first_se : float, optional
        Or their standard error (sample standard deviation over :math:`\sqrt{k_1}`), pooled the same way.

    Returns
    -------
    float
    """
    draws = np.asarray(draws, dtype=np.float64)
    k2 = draws.size
    if k2 < 2:
        raise ValueError(f"draws must hold at least two draws of the second path (their spread is the tolerance's), "
                         f"got {k2}")
    ss, dof = float(np.sum((draws - draws.mean()) ** 2)), k2 - 1
    if first_draws is not None and np.size(first_draws) >= 2:
        f = np.asarray(first_draws, dtype=np.float64)
        ss += float(np.sum((f - f.mean()) ** 2))
        dof += f.size - 1
    elif first_se is not None and math.isfinite(n_first) and n_first >= 2:
        ss += float(first_se) ** 2 * n_first * (n_first - 1)
        dof += int(n_first) - 1
    s = math.sqrt(ss / dof)
    inv = (0.0 if math.isinf(n_first) else 1.0 / n_first) + 1.0 / k2
    return float(student_t.ppf(1.0 - FALSE_ALARM / 2.0, dof) * s * math.sqrt(inv) + solver_tol * abs(value))
