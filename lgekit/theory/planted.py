r"""Theorem 1's statistical model with a known distribution: where the bound stops being vacuous.

Theorem 1 (Gao et al., ICLR 2019, Section 3.1) is about i.i.d. samples
:math:`(a_i, b_i, y_i)` from a distribution :math:`\mathcal P`: positives
from an unknown distribution :math:`\mathcal Q` over vertex pairs, negatives
uniform.  On a real graph :math:`\mathcal P` is unknown and the expected loss
can only be estimated on held-out pairs; here it is *known*, so the
generalization error is computed exactly and the sample size :math:`m + m'`
can grow beyond the number of distinct pairs, which is what the bound needs.

The model (:class:`PlantedPairDistribution`): n vertices in k equal
communities; :math:`\mathcal Q` is uniform over the ordered pairs
:math:`(u, v)`, :math:`u \ne v`, inside a community; with probability
:math:`1/(1+r)` a sample is a positive from :math:`\mathcal Q`, otherwise a
negative uniform over all ordered pairs :math:`u \ne v` (uniform negatives
as in Section 3.2; r = 4 negatives per positive as in the appendix's
experimental protocol).

Why large samples are needed.  The zero embedding has loss :math:`\ln 2`.
For a mean squared norm :math:`\bar s` the complexity term is about
:math:`2\sqrt{2n/(m+m')}\,\bar s` (:math:`\mathbb E\|A_{\rm sym}\|_2/2
\approx \sqrt{2(m+m')/n}` for spread-out pairs), while the training loss can
fall below :math:`\ln 2` by at most about :math:`0.1\,\bar s` to first order:
uniform negatives have mean score :math:`\ge -\bar s/(n-1)` for any
embedding, so only the positives (a fifth of the sample, score at most
:math:`\bar s` each when the norms are equal) move the loss.  The bound can
therefore be non-vacuous only once :math:`(m+m')/n` is in the thousands --
BlogCatalog's sample has :math:`(m+m')/n \approx 130`.
:func:`planted_bound_rows` measures this.
"""
import logging
import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import log_expit

from .._random import check_random_state
from .._validation import Interval, validate_params
from .bounds import nonvacuous_norm_threshold, theorem1_bound
from .capacity import fit_signed_pairs

__all__ = ["PlantedPairDistribution", "symmetric_sign_sum_norm", "planted_bound_rows"]

logger = logging.getLogger(__name__)

LN2 = math.log(2.0)


#: the constraints of the arguments below, checked by :func:`lgekit._validation.validate_params` (the estimators'
#: mechanism: one message form, ``<caller>: <name> must be <what is accepted>, got <value>``)
_DISTRIBUTION = {"n_nodes": [Interval(numbers.Integral, 4, None, closed="left")],
                 "n_communities": [Interval(numbers.Integral, 1, None, closed="left")],
                 "negatives_per_positive": [Interval(numbers.Integral, 1, None, closed="left")]}
_COUNT = [Interval(numbers.Integral, 1, None, closed="left")]


def _clipped_loss(margins, B):
    loss = -log_expit(np.asarray(margins, dtype=np.float64))
    return loss if B is None else np.minimum(loss, float(B))


@dataclass(frozen=True)
class PlantedPairDistribution:
    r"""A planted-partition distribution :math:`\mathcal P` over labelled ordered pairs.

    Parameters
    ----------
    n_nodes : int >= 4
    n_communities : int, 1 <= k <= n_nodes / 2
        Vertex u is in community ``u * k // n_nodes`` (contiguous blocks of
        near-equal size, each with at least 2 vertices).
    negatives_per_positive : int >= 1, default 4
        r: a sample is positive with probability 1/(1+r).

    Examples
    --------
    >>> P = PlantedPairDistribution(20, 2)
    >>> pairs, y = P.sample(1000, seed=0)
    >>> pairs.shape, sorted(set(y.tolist())), bool(np.all(pairs[:, 0] != pairs[:, 1]))
    ((1000, 2), [-1, 1], True)
    >>> round(P.expected_loss(np.zeros((20, 3))), 6) == round(math.log(2), 6)
    True
    """

    n_nodes: int
    n_communities: int
    negatives_per_positive: int = 4

    def __post_init__(self):
        validate_params(_DISTRIBUTION, {"n_nodes": self.n_nodes, "n_communities": self.n_communities,
                                        "negatives_per_positive": self.negatives_per_positive},
                        "PlantedPairDistribution")
        n, k = int(self.n_nodes), int(self.n_communities)
        if 2 * k > n:
            raise ValueError(f"n_communities must be at most n_nodes / 2 = {n // 2} (each community needs two "
                             f"vertices for a positive pair), got {k}")

    @property
    def communities(self):
        """Community of every vertex, ndarray (n,) of int."""
        return np.arange(self.n_nodes) * self.n_communities // self.n_nodes

    @property
    def positive_fraction(self):
        """:math:`1/(1+r)`."""
        return 1.0 / (1.0 + self.negatives_per_positive)

    def pair_probabilities(self):
        r"""Probabilities of (u, v, +1) and (u, v, -1) for every ordered pair.

        Returns
        -------
        p_pos, p_neg : ndarray (n, n)
            Zero on the diagonal; together they sum to 1.
        """
        n = self.n_nodes
        comm = self.communities
        within = (comm[:, None] == comm[None, :]) & ~np.eye(n, dtype=bool)
        p_pos = within * (self.positive_fraction / within.sum())
        off = ~np.eye(n, dtype=bool)
        p_neg = off * ((1.0 - self.positive_fraction) / (n * (n - 1)))
        return p_pos, p_neg

    def sample(self, n_samples, seed=None):
        """``n_samples`` i.i.d. labelled pairs: ``(pairs (M, 2) int64, labels (M,) int8)``."""
        validate_params({"n_samples": _COUNT}, {"n_samples": n_samples}, "PlantedPairDistribution.sample")
        M = int(n_samples)
        rng = check_random_state(seed, "seed")
        n = self.n_nodes
        y = np.where(rng.random(M) < self.positive_fraction, 1, -1).astype(np.int8)
        pairs = np.empty((M, 2), dtype=np.int64)
        neg = y < 0
        k_neg = int(neg.sum())
        # a uniform ordered pair u != v: v = u + 1 + j (mod n), j uniform in 0..n-2
        u = rng.integers(0, n, size=k_neg)
        pairs[neg, 0] = u
        pairs[neg, 1] = (u + 1 + rng.integers(0, n - 1, size=k_neg)) % n
        k_pos = M - k_neg
        comm = self.communities
        starts = np.searchsorted(comm, np.arange(self.n_communities))
        sizes = np.bincount(comm, minlength=self.n_communities)
        # a community with probability proportional to its number of ordered pairs, then a pair inside it
        weights = sizes * (sizes - 1.0)
        c = rng.choice(self.n_communities, size=k_pos, p=weights / weights.sum())
        a = rng.integers(0, sizes[c])
        b = (a + 1 + rng.integers(0, sizes[c] - 1)) % sizes[c]
        pairs[~neg, 0] = starts[c] + a
        pairs[~neg, 1] = starts[c] + b
        return pairs, y

    def expected_loss(self, X, B=None):
        r""":math:`\mathbb E_{\mathcal P}\,\min(l(y\,x_a^\top x_b), B)`, computed exactly (O(n^2 D)).

        Parameters
        ----------
        X : ndarray (n, D)
        B : float, optional
            Clip the logistic loss at B.
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != self.n_nodes:
            raise ValueError(f"X must have shape (n_nodes={self.n_nodes}, D), got {X.shape}")
        Z = X @ X.T
        p_pos, p_neg = self.pair_probabilities()
        return float((p_pos * _clipped_loss(Z, B)).sum() + (p_neg * _clipped_loss(-Z, B)).sum())


def symmetric_sign_sum_norm(counts, n_draws=5, seed=None):
    r"""Monte Carlo :math:`\mathbb E_\sigma\|A_{\rm sym}\|_2` for a sample with repeated pairs, from its counts.

    Parameters
    ----------
    counts : ndarray (n, n)
        ``counts[u, v]`` = number of samples of the unordered pair {u, v}
        (only the strict upper triangle is read).
    n_draws : int, default 5
    seed : None, int or numpy.random.Generator

    Returns
    -------
    mean, std_error : float

    Notes
    -----
    Each sample carries its own sign, so the entry of a pair seen c times is
    a sum of c independent signs, distributed as :math:`2\,\mathrm{Bin}(c,
    1/2) - c`; it is placed at (u, v) and (v, u).  Drawing that sum directly
    gives the same matrix law as :class:`~lgekit.theory.PairPattern` with
    ``kind="homogeneous"`` on the full sample, at a cost independent of the
    sample size (one dense :math:`n \times n` SVD per draw).
    """
    C = np.asarray(counts)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ValueError(f"counts must be a square (n, n) array, got shape {C.shape}")
    validate_params({"n_draws": _COUNT}, {"n_draws": n_draws}, "symmetric_sign_sum_norm")
    n_draws = int(n_draws)
    rng = check_random_state(seed, "seed")
    iu = np.triu_indices(C.shape[0], k=1)
    c = C[iu].astype(np.int64)
    values = np.empty(n_draws)
    for i in range(n_draws):
        A = np.zeros(C.shape)
        A[iu] = 2.0 * rng.binomial(c, 0.5) - c
        A = A + A.T
        values[i] = np.linalg.norm(A, 2)
    se = float(values.std(ddof=1) / math.sqrt(n_draws)) if n_draws > 1 else 0.0
    return float(values.mean()), se


def planted_bound_rows(distribution, sample_sizes, lam_rs, dim=8, B=1.0, delta=0.05, n_draws=5, seed=None,
                       maxiter=500):
    r"""Theorem 1 on the planted model: for each sample size and :math:`\lambda_r`, bound vs exact loss.

    For each sample size M: draw M samples from ``distribution``; estimate
    :math:`\mathbb E\|A_{\rm sym}\|_2/2` (the value Theorem 1 needs for a
    one-vector-per-vertex embedding, :mod:`lgekit.theory.bounds`); for each
    :math:`\lambda_r` fit the mean logistic loss plus
    :math:`\lambda_r \cdot` mean squared norm by full-batch L-BFGS
    (:func:`~lgekit.theory.fit_signed_pairs`, with the counts of the distinct
    samples as weights) and evaluate the bound with :math:`C = \|X\|_F^2`.

    Parameters
    ----------
    distribution : PlantedPairDistribution
    sample_sizes : sequence of int
        M = m + m'.
    lam_rs : sequence of float
    dim : int, default 8
    B : float, default 1
        The logistic loss is clipped at B (fixed in advance, above ln 2).
    delta : float, default 0.05
    n_draws : int, default 5
        Sign draws per sample.
    seed : None, int or numpy.random.Generator
    maxiter : int, default 500
        L-BFGS iterations per fit.

    Returns
    -------
    list of dict
        One row per (M, lam_r): ``M``, ``M/n``, ``lam_r``, ``mean ||x||^2``,
        ``E||A_sym||/2``, ``s*`` (:func:`~lgekit.theory.nonvacuous_norm_threshold`),
        ``train loss``, ``expected loss`` (exact, under
        :math:`\mathcal P`), ``gap``, ``complexity``, ``confidence``,
        ``bound``, ``trivial loss``, ``B``, ``vacuous``, ``holds``; and what a second path needs to
        recompute them: ``n_draws``, ``embedding`` (the fitted X) and ``sample`` (the distinct unordered
        pairs, their labels and how often each (pair, label) was drawn).
    """
    if not isinstance(distribution, PlantedPairDistribution):
        raise TypeError(f"distribution must be a PlantedPairDistribution, got {type(distribution).__name__}")
    rng = check_random_state(seed, "seed")
    n = distribution.n_nodes
    trivial = float(min(LN2, B))
    rows = []
    for M in sample_sizes:
        validate_params({"each of sample_sizes": _COUNT}, {"each of sample_sizes": M}, "planted_bound_rows")
        M = int(M)
        pairs, y = distribution.sample(M, seed=rng)
        lo, hi = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
        counts = np.zeros((n, n), dtype=np.int64)
        np.add.at(counts, (lo, hi), 1)
        norm, norm_se = symmetric_sign_sum_norm(counts, n_draws=n_draws, seed=rng)
        spectral = norm / 2.0
        # the distinct (unordered pair, label) rows and their counts: the same mean loss as the sample
        keys = (lo * n + hi) * 2 + (y > 0)
        uniq, cnt = np.unique(keys, return_counts=True)
        upairs = np.column_stack([(uniq // 2) // n, (uniq // 2) % n])
        ulab = np.where(uniq % 2 == 1, 1, -1)
        s_star = nonvacuous_norm_threshold(M, spectral, n, trivial_loss=trivial, B=B, delta=delta)
        for lam in lam_rs:
            fit = fit_signed_pairs(upairs, ulab, n, dim, lam_r=float(lam), maxiter=maxiter, seed=rng,
                                   weights=cnt.astype(np.float64))
            X = fit.embedding
            z = ulab * np.einsum("ij,ij->i", X[upairs[:, 0]], X[upairs[:, 1]])
            train = float((cnt * _clipped_loss(z, B)).sum() / M)
            expected = distribution.expected_loss(X, B)
            C = float((X * X).sum())
            bound = theorem1_bound(train, M, spectral, C, C, B, delta=delta)
            rows.append({
                "M": M, "M/n": M / n, "lam_r": float(lam), "mean ||x||^2": C / n, "E||A_sym||/2": spectral,
                "s.e.": norm_se / 2.0, "s*": s_star, "train loss": train, "expected loss": expected,
                "gap": expected - train, "complexity": bound.complexity, "confidence": bound.confidence,
                "bound": bound.rhs, "trivial loss": trivial, "B": B, "vacuous": bound.is_vacuous(trivial),
                "holds": expected <= bound.rhs, "n_draws": n_draws, "embedding": X,
                "sample": (upairs, ulab, cnt),
            })
            logger.info("planted M=%d lam_r=%g: s=%.3f train %.4f expected %.4f bound %.4f", M, lam,
                        C / n, train, expected, bound.rhs)
    return rows
