r"""Theorem 1 of Gao et al. (ICLR 2019): a norm-based generalization bound, evaluated.

The setting
-----------
Training data are :math:`m` i.i.d. labelled pairs :math:`(a_i, b_i, y_i)`
from a distribution :math:`\mathcal D` over vertex pairs and labels
:math:`y \in \{\pm 1\}` (positives and sampled negatives alike).  The
hypothesis class is every embedding with bounded total squared norm on
each side,

.. math::

    \mathcal H = \Bigl\{x : \sum_{u \in U}\|x_u\|_2^2 \le C_U,\;
                            \sum_{v \in V}\|x_v\|_2^2 \le C_V\Bigr\},

with score :math:`x_a^\top x_b` (a homogeneous graph has :math:`U = V` and
:math:`C_U = C_V = \sum_v \|x_v\|^2`).  The loss :math:`\ell(y\,x_a^\top x_b)`
is :math:`L`-Lipschitz in the score and takes values in :math:`[0, B]`.

The bound
---------
With probability at least :math:`1-\delta` over the sample, every
:math:`x \in \mathcal H` satisfies

.. math::

    \mathbb E_{\mathcal D}\,\ell \;\le\;
    \underbrace{\frac1m\sum_{i=1}^m \ell(y_i\,x_{a_i}^\top x_{b_i})}_{\text{training loss}}
    \;+\; \underbrace{\frac{2L\sqrt{C_U C_V}}{m}\,
          \mathbb E_\sigma\|A_\sigma\|_2}_{\text{complexity}}
    \;+\; \underbrace{3B\sqrt{\frac{\ln(2/\delta)}{2m}}}_{\text{confidence}},

where :math:`A_\sigma` is the :math:`|U| \times |V|` matrix with an
independent uniform sign :math:`\sigma_i` at every sampled pair
:math:`(a_i, b_i)` (:mod:`lgekit.theory.rademacher`).

Derivation (so that every constant can be checked): the standard
Rademacher bound with the *empirical* Rademacher complexity (Mohri,
Rostamizadeh & Talwalkar, *Foundations of Machine Learning*, 2nd ed.,
Theorem 3.3, scaled to losses in :math:`[0, B]`) gives
:math:`\hat{\mathfrak R}_S + 3B\sqrt{\ln(2/\delta)/2m}` with a factor 2 on
the complexity; Talagrand's contraction lemma removes the loss at the
price of :math:`L`; and

.. math::

    m\,\hat{\mathfrak R}_S(\mathcal H) =
    \mathbb E_\sigma \sup_{x\in\mathcal H} \sum_i \sigma_i\, x_{a_i}^\top x_{b_i}
    = \mathbb E_\sigma \sup \operatorname{tr}(X_U^\top A_\sigma X_V)
    \le \sqrt{C_U C_V}\;\mathbb E_\sigma\|A_\sigma\|_2

because :math:`\operatorname{tr}(X_U^\top A X_V) \le \|A\|_2 \|X_U\|_F \|X_V\|_F`
(the labels :math:`y_i` are absorbed into the symmetric signs).  This is
Theorem 1 of the paper as we reconstruct it: the paper's text was not
available to this implementation verbatim, so the constants (2 on the
complexity term, 3 and :math:`\ln(2/\delta)` on the confidence term) are
those of the cited textbook theorem, and :math:`C_U, C_V` bound *total
squared* norms.  With the paper's estimate
:math:`\mathbb E\|A_\sigma\| \approx \sqrt{m\ln n/n}` the complexity term is
:math:`2\sqrt{C_U C_V \ln n/(mn)}`: small when the *average* squared norm
:math:`C/n` is small, whatever the dimension.

Caveats, stated once: the theorem is for a class fixed before seeing the
data; plugging in the trained embedding's own :math:`C_U, C_V` (as
:func:`verify_bound` does) is the usual heuristic reading and would need a
union bound over a grid of :math:`C` values (a :math:`\ln\ln` term) to be
rigorous.  The logistic loss is unbounded, so :math:`B` comes from a
*clipped* logistic loss :math:`\min(\ell, B)` (still 1-Lipschitz); choosing
:math:`B = \ln(1 + e^{R^2})` with :math:`R` the largest vector norm means no
pair of the embedding's vertices is actually clipped.
"""
import logging
import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import log_expit

__all__ = [
    "Theorem1Bound",
    "theorem1_bound",
    "norm_constants",
    "logistic_loss_bound",
    "clipped_logistic_loss",
    "GeneralizationGap",
    "generalization_gap",
    "training_sample_pairs",
]

logger = logging.getLogger(__name__)

LN2 = math.log(2.0)


def _check_nonneg(value, name, allow_zero=True):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Theorem1Bound:
    """The right-hand side of Theorem 1 and its three terms.

    Attributes
    ----------
    rhs : float
        ``train_loss + complexity + confidence``.
    train_loss, complexity, confidence : float
        The three terms.
    n_samples, spectral_norm, C_U, C_V, B, delta, lipschitz : float
        The inputs.
    """

    rhs: float
    train_loss: float
    complexity: float
    confidence: float
    n_samples: int
    spectral_norm: float
    C_U: float
    C_V: float
    B: float
    delta: float
    lipschitz: float

    @property
    def gap_bound(self):
        """``complexity + confidence``: the bound on expected minus training loss."""
        return self.complexity + self.confidence

    def is_vacuous(self, trivial_loss=LN2):
        """True when the bound is no better than the trivial predictor's loss.

        For the logistic loss the all-zero embedding scores 0 on every pair
        and has loss :math:`\\ln 2`; a bound at or above it says nothing.
        """
        return self.rhs >= trivial_loss


def theorem1_bound(train_loss, n_samples, spectral_norm, C_U, C_V, B, delta=0.05, lipschitz=1.0):
    r"""Evaluate Theorem 1's right-hand side.

    .. math::

        \text{rhs} = \hat\ell + \frac{2L\sqrt{C_U C_V}}{m}\,\mathbb E_\sigma\|A_\sigma\|_2
                     + 3B\sqrt{\frac{\ln(2/\delta)}{2m}}

    Parameters
    ----------
    train_loss : float
        Mean training loss :math:`\hat\ell` over the m pairs (>= 0).
    n_samples : int
        m, the number of training pairs (positives plus negatives).
    spectral_norm : float
        :math:`\mathbb E_\sigma\|A_\sigma\|_2` of the training pairs
        (:func:`~lgekit.theory.rademacher.expected_spectral_norm`).
    C_U, C_V : float
        Total squared norms of the two sides (:func:`norm_constants`).
    B : float
        Upper bound of the (clipped) loss (:func:`logistic_loss_bound`).
    delta : float in (0, 1), default 0.05
        Failure probability.
    lipschitz : float, default 1
        Lipschitz constant L of the loss in the score (1 for the logistic loss).

    Returns
    -------
    Theorem1Bound

    See Also
    --------
    lgekit.theory.bounds : the statement, its derivation and its caveats.

    Examples
    --------
    >>> b = theorem1_bound(0.3, n_samples=10_000, spectral_norm=20.0, C_U=50.0, C_V=50.0, B=2.0)
    >>> round(b.complexity, 4), round(b.rhs, 4)
    (0.2, 0.5815)
    """
    train_loss = _check_nonneg(train_loss, "train_loss")
    if not isinstance(n_samples, numbers.Integral) or isinstance(n_samples, bool) or n_samples < 1:
        raise ValueError(f"n_samples must be a positive int, got {n_samples!r}")
    spectral_norm = _check_nonneg(spectral_norm, "spectral_norm")
    C_U = _check_nonneg(C_U, "C_U")
    C_V = _check_nonneg(C_V, "C_V")
    B = _check_nonneg(B, "B", allow_zero=False)
    lipschitz = _check_nonneg(lipschitz, "lipschitz")
    if not isinstance(delta, numbers.Real) or not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    m = int(n_samples)
    complexity = 2.0 * lipschitz * math.sqrt(C_U * C_V) * spectral_norm / m
    confidence = 3.0 * B * math.sqrt(math.log(2.0 / delta) / (2.0 * m))
    return Theorem1Bound(
        rhs=train_loss + complexity + confidence, train_loss=train_loss, complexity=complexity,
        confidence=confidence, n_samples=m, spectral_norm=spectral_norm, C_U=C_U, C_V=C_V, B=B,
        delta=float(delta), lipschitz=lipschitz,
    )


def _embedding_array(model_or_embedding, name="model_or_embedding"):
    emb = getattr(model_or_embedding, "embedding_", model_or_embedding)
    if emb is model_or_embedding and hasattr(model_or_embedding, "fit") and not hasattr(
            model_or_embedding, "embedding_"):
        raise ValueError(f"{name} is an unfitted model: call fit first")
    X = np.asarray(emb, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be an (n, D) embedding or a fitted model, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains non-finite values")
    return X


def norm_constants(embedding, context=None):
    r""":math:`C_U` and :math:`C_V` of a trained embedding: total squared norms.

    Parameters
    ----------
    embedding : ndarray (n, D) or fitted model
        Vectors of the U side (all vertices for a homogeneous embedding).
    context : ndarray (n', D), optional
        Vectors of the V side when they differ (context / target vectors).

    Returns
    -------
    (C_U, C_V) : tuple of float
        :math:`\sum_u\|x_u\|^2` and :math:`\sum_v\|x_v\|^2`; equal when
        ``context`` is None.
    """
    X = _embedding_array(embedding, "embedding")
    cu = float(np.einsum("ij,ij->", X, X))
    if context is None:
        return cu, cu
    Y = _embedding_array(context, "context")
    return cu, float(np.einsum("ij,ij->", Y, Y))


def logistic_loss_bound(embedding, context=None):
    r"""B for the clipped logistic loss: :math:`\ln(1 + e^{R_U R_V})`.

    :math:`R_U, R_V` are the largest vector norms, so
    :math:`|x_a^\top x_b| \le R_U R_V` on every pair and clipping the logistic
    loss at this B changes nothing on this embedding.
    """
    X = _embedding_array(embedding, "embedding")
    ru = float(np.sqrt(np.einsum("ij,ij->i", X, X).max(initial=0.0)))
    if context is None:
        rv = ru
    else:
        Y = _embedding_array(context, "context")
        rv = float(np.sqrt(np.einsum("ij,ij->i", Y, Y).max(initial=0.0)))
    z = ru * rv
    return float(z + math.log1p(math.exp(-z))) if z > 0 else LN2


def clipped_logistic_loss(margins, B=None, weights=None):
    r"""Mean of :math:`\min(w \log(1 + e^{-z}), B)` over margins :math:`z = y\,x_a^\top x_b`.

    ``weights`` (one per margin, default 1) multiply the loss before clipping.
    """
    z = np.asarray(margins, dtype=np.float64)
    loss = -log_expit(z)
    if weights is not None:
        loss = loss * np.asarray(weights, dtype=np.float64)
    if B is not None:
        loss = np.minimum(loss, float(B))
    return float(loss.mean()) if loss.size else 0.0


def _margins(X, pos, neg):
    pos = np.asarray(pos, dtype=np.int64).reshape(-1, 2)
    neg = np.asarray(neg, dtype=np.int64).reshape(-1, 2)
    n = X.shape[0]
    for name, p in (("positives", pos), ("negatives", neg)):
        if p.size and (p.min() < 0 or p.max() >= n):
            raise ValueError(f"{name} index vertices outside the embedding's {n} rows")
    zp = np.einsum("ij,ij->i", X[pos[:, 0]], X[pos[:, 1]])
    zn = -np.einsum("ij,ij->i", X[neg[:, 0]], X[neg[:, 1]])
    return np.concatenate([zp, zn])


@dataclass(frozen=True)
class GeneralizationGap:
    r"""Measured (weighted) logistic losses on the theorem's distribution.

    Attributes
    ----------
    train_loss, test_loss : float
        Mean loss over training / held-out pairs (positives with y = +1,
        negatives with y = -1; a positive's loss is multiplied by
        ``pos_weight``, a negative's by ``neg_weight``).
    gap : float
        ``test_loss - train_loss``.
    trivial_loss : float
        Held-out loss of the all-zero embedding (every score 0):
        :math:`\ln 2` times the mean weight.  A bound at or above it is vacuous.
    n_train, n_test : int
    pos_weight, neg_weight : float
    """

    train_loss: float
    test_loss: float
    gap: float
    trivial_loss: float
    n_train: int
    n_test: int
    pos_weight: float = 1.0
    neg_weight: float = 1.0


def training_sample_pairs(split):
    """The theorem's training sample of an EdgeSplit: positives then negatives, with labels."""
    pos = np.asarray(split.train_positives, dtype=np.int64).reshape(-1, 2)
    neg = np.asarray(split.train_negatives, dtype=np.int64).reshape(-1, 2)
    pairs = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(len(pos), np.int8), -np.ones(len(neg), np.int8)])
    return pairs, labels


def generalization_gap(model_or_embedding, split, B=None, pos_weight=1.0, neg_weight=1.0):
    r"""Test-minus-train logistic loss on the theorem's distribution.

    Parameters
    ----------
    model_or_embedding : fitted model (with ``embedding_``) or ndarray (n, D)
    split : lgekit.EdgeSplit
        Training pairs: ``train_positives`` (y = +1) and ``train_negatives``
        (y = -1); held-out pairs: ``test_positives`` and ``test_negatives``,
        drawn the same way, so both samples come from the same distribution
        over labelled pairs (the theorem's :math:`\mathcal D`).
    B : float, optional
        Clip the loss at B (as in the theorem); default no clipping.
    pos_weight, neg_weight : float, default 1
        Per-label weights of the loss, e.g. a model's ``lam_pos`` and
        ``lam_neg``: Theorem 1 holds for any fixed bounded Lipschitz loss,
        including this label-weighted one (Lipschitz constant
        ``max(pos_weight, neg_weight)``), and it is the loss the model was
        trained on.

    Returns
    -------
    GeneralizationGap
    """
    X = _embedding_array(model_or_embedding)
    for field_name in ("train_positives", "train_negatives", "test_positives", "test_negatives"):
        if not hasattr(split, field_name):
            raise TypeError(f"split must be an lgekit.EdgeSplit (missing {field_name}), got {type(split).__name__}")
    wp = _check_nonneg(pos_weight, "pos_weight", allow_zero=False)
    wn = _check_nonneg(neg_weight, "neg_weight", allow_zero=False)

    def weights(pos, neg):
        return np.concatenate([np.full(len(np.asarray(pos).reshape(-1, 2)), wp),
                               np.full(len(np.asarray(neg).reshape(-1, 2)), wn)])

    z_train = _margins(X, split.train_positives, split.train_negatives)
    z_test = _margins(X, split.test_positives, split.test_negatives)
    if z_train.size == 0 or z_test.size == 0:
        raise ValueError("split must have training and held-out pairs")
    w_train = weights(split.train_positives, split.train_negatives)
    w_test = weights(split.test_positives, split.test_negatives)
    train = clipped_logistic_loss(z_train, B, w_train)
    test = clipped_logistic_loss(z_test, B, w_test)
    return GeneralizationGap(train_loss=train, test_loss=test, gap=test - train,
                             trivial_loss=LN2 * float(w_test.mean()), n_train=int(z_train.size),
                             n_test=int(z_test.size), pos_weight=wp, neg_weight=wn)
