r"""Theorem 1 of Gao et al. (ICLR 2019): a norm-based generalization bound, evaluated.

The statement (Section 3.1, Theorem 1)
--------------------------------------
Let :math:`E_\pm = \{(a_i, b_i, y_i)\}_{i=1}^{m+m'}` be i.i.d. samples from
a distribution :math:`\mathcal P` over :math:`V \times U \times \{\pm1\}`
(:math:`m` positives and :math:`m'` negatives), and
:math:`x : U \cup V \to \mathbb R^D`.  For any bounded 1-Lipschitz loss
:math:`l : \mathbb R \to [0, B]` and :math:`C_U, C_V > 0`, with probability
:math:`1-\delta` over the sample, every embedding with
:math:`\sum_{u \in U}\|x_u\|^2 \le C_U` and :math:`\sum_{v\in V}\|x_v\|^2 \le C_V`
satisfies

.. math::

    \mathbb E_{(a,b,y)\sim\mathcal P}\, l(y\,x_a^\top x_b) \;\le\;
    \frac{1}{m+m'}\sum_{i=1}^{m+m'} l(y_i\,x_{a_i}^\top x_{b_i})
    \;+\; \frac{2}{m+m'}\,\mathbb E_\sigma\|A_\sigma\|_2\,\sqrt{C_U C_V}
    \;+\; 4B\sqrt{\frac{2\ln(4/\delta)}{m+m'}},

where :math:`A_\sigma` has an independent uniform sign at every sampled pair
and zeros elsewhere.  :func:`theorem1_bound` evaluates exactly this, with
``n_samples`` :math:`= m+m'`.  Its ``lipschitz`` argument extends it to an
L-Lipschitz loss :math:`l` by applying the theorem to the 1-Lipschitz loss
:math:`l/L` (bounded by :math:`B/L`) and multiplying through by L: only the
complexity term gains the factor L; ``lipschitz=1`` is the printed statement.

The proof (appendix, "Proof of Theorem 1") goes through the empirical
Rademacher complexity :math:`\mathcal R`: the uniform-convergence theorem
gives :math:`2\mathcal R + 4B\sqrt{2\ln(4/\delta)/(m+m')}`, the contraction
lemma removes the loss and the labels, and

.. math::

    (m+m')\,\mathcal R \le
    \mathbb E_\sigma \sup_{x} \sum_i \sigma_i\, x_{a_i}^\top x_{b_i}
    = \mathbb E_\sigma \sup X_U^\top [A_\sigma \otimes I_D] X_V
    = \sqrt{C_U C_V}\;\mathbb E_\sigma\|A_\sigma\|_2 .

Which :math:`A_\sigma` for an undirected graph
---------------------------------------------
The theorem is stated for ordered pairs :math:`(a_i, b_i) \in V \times U`;
an undirected graph's sample has no orientation, and lgekit's model has one
vector per vertex (:math:`U = V`, :math:`X_U = X_V = X`,
:math:`C_U = C_V = C = \|X\|_F^2`).  The proof's supremum is then over that
smaller class.  Put the samples in any orientation and let
:math:`A = \sum_i \sigma_i e_{a_i} e_{b_i}^\top`.  Because
:math:`x_a^\top x_b = x_b^\top x_a`,

.. math::

    \sum_i \sigma_i\, x_{a_i}^\top x_{b_i} = \operatorname{tr}(X^\top A X)
    = \operatorname{tr}\Bigl(X^\top \tfrac{A + A^\top}{2} X\Bigr),
    \qquad
    \sup_{\|X\|_F^2 \le C} \operatorname{tr}(X^\top S X) = C\,\lambda_{\max}^+(S)

for symmetric :math:`S` (all the mass on a top eigenvector).  So the
quantity the proof needs is :math:`C\,\mathbb E\,\lambda^+_{\max}(A_{\rm sym})/2`
with :math:`A_{\rm sym} = A + A^\top` -- the *symmetric* matrix with
:math:`\sigma_i` at both :math:`(a_i, b_i)` and :math:`(b_i, a_i)`, which does
not depend on the orientation -- and

.. math::

    \tfrac12\lambda_{\max}(A_{\rm sym}) \le \tfrac12\|A_{\rm sym}\|_2
    \le \tfrac12(\|A\|_2 + \|A^\top\|_2) = \|A\|_2
    \quad\text{for every orientation } A .

:func:`~lgekit.theory.sample.theorem1_spectral_norm` therefore puts
:math:`\mathbb E_\sigma\|A_{\rm sym}\|_2 / 2` into the theorem by default
(``convention="symmetric"``): a valid upper bound for lgekit's model, and
the smallest of the spectral-norm values one can plug in.  Any orientation
(``"random"``, ``"sorted"`` u < v) also gives a valid but looser bound,
because the class with :math:`X_U = X_V` is inside the theorem's class.
``"source"`` is not an orientation of lgekit's sample: it re-attaches every
negative to its positive's source vertex, the layout of samplers that
corrupt one end of an edge (LINE, word2vec); it is offered only to show how
much the pair layout moves :math:`\mathbb E\|A_\sigma\|_2` and hence the
bound (:func:`nonvacuous_norm_threshold`).  Repeated pairs keep one sign
per *sample*, as the Rademacher complexity requires (their signs add).

Directed and bipartite samples: two tables, the theorem's own setting
-------------------------------------------------------------------------
For a directed graph the model keeps two vectors per node, an out-vector
:math:`x_u` (the ``embedding_`` table) and an in-vector :math:`y_v`
(``context_embedding_``), and scores an arc by :math:`x_u^\top y_v`; for a
bipartite graph the left nodes have ``embedding_`` and the right nodes
``context_embedding_``.  The paper's footnote 1 (Section 2) calls the
directed case "equivalent as learning embedding on a transformed undirected
bipartite graph": sources form one side, targets the other.  Both are
exactly the setting Theorem 1 is stated for -- ordered pairs, two vertex sets
with separate budgets :math:`C_U = \sum_u\|x_u\|^2` over the source /
left table and :math:`C_V = \sum_v\|y_v\|^2` over the target / right table
(:func:`norm_constants` of a fitted two-table model) -- so no symmetrisation
is needed or allowed: :math:`A_\sigma` is the :math:`|U| \times |V|` matrix
of the theorem's statement, a sign at (row = source / left index,
column = target / right index) of every sampled pair (convention
``"oriented"``, :func:`~lgekit.theory.sample.theorem1_pattern`), and the proof's step
:math:`\sup X_U^\top[A_\sigma \otimes I_D]X_V = \sqrt{C_U C_V}\,\|A_\sigma\|_2`
applies as printed.  For a directed graph :math:`|U| = |V| = n` (every node
has both vectors); for a bipartite graph :math:`|U| = n_{\rm left}`,
:math:`|V| = n_{\rm right}`.

The undirected transform of footnote 1 gives the same number: put the two
sides of the sample in one vertex set of :math:`|U| + |V|` nodes and train
one vector per node; its symmetric matrix is the dilation
:math:`\begin{pmatrix}0 & A\\ A^\top & 0\end{pmatrix}`, whose spectral
norm is :math:`\|A\|_2`, so the one-table bound's complexity
:math:`\frac{2}{m+m'}\cdot\frac{\|A\|_2}{2}\,(C_U + C_V)` is never below
the two-budget one, :math:`\frac{2}{m+m'}\|A\|_2\sqrt{C_U C_V}`, and equals
it when :math:`C_U = C_V` (AM-GM).

Caveats, stated once: the theorem is for a class fixed before seeing the
data; plugging in the trained embedding's own :math:`C` (as
:func:`~lgekit.experiments.check_bound.verify_bound` does) is the usual heuristic reading and
would need a union bound over a grid of :math:`C` values (a :math:`\ln\ln`
term) to be rigorous.  The logistic loss is unbounded, so the theorem
applies to a *clipped* logistic loss :math:`\min(l, B)` (still
1-Lipschitz); :func:`~lgekit.experiments.check_bound.verify_bound` fixes :math:`B = 1` in
advance, above the zero embedding's :math:`\ln 2`, and measures the clipped
losses.  :func:`logistic_loss_bound` gives the data-dependent alternative
:math:`B = \ln(1 + e^{R^2})` for which no pair of a given embedding is
clipped.

References
----------
Gao, Zhang, Peng & Parameswaran, "The Importance of Norm Regularization in
Linear Graph Embedding: Theoretical Analysis and Empirical Demonstration",
ICLR 2019: Section 3.1 (Theorem 1 and the definitions of :math:`\mathcal
L_t, \mathcal L_g`) and the appendix (proof of Theorem 1).
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import log_expit

from .._validation import Interval, validate_params
from .sample import theorem1_pairs, theorem1_sample

__all__ = [
    "Theorem1Bound",
    "theorem1_bound",
    "nonvacuous_norm_threshold",
    "norm_constants",
    "logistic_loss_bound",
    "clipped_logistic_loss",
    "GeneralizationGap",
    "generalization_gap",
]

LN2 = math.log(2.0)


#: the constraints of the arguments below, checked by :func:`lgekit._validation.validate_params` (the estimators'
#: mechanism: one message form, ``<caller>: <name> must be <what is accepted>, got <value>``)
_NONNEGATIVE = [Interval(numbers.Real, 0, None, closed="left")]
_POSITIVE = [Interval(numbers.Real, 0, None, closed="neither")]
_N_SAMPLES = [Interval(numbers.Integral, 1, None, closed="left")]   # m + m', positives plus negatives
_DELTA = [Interval(numbers.Real, 0, 1, closed="neither")]
_THEOREM1_BOUND = {"train_loss": _NONNEGATIVE, "n_samples": _N_SAMPLES, "spectral_norm": _NONNEGATIVE,
                   "C_U": _NONNEGATIVE, "C_V": _NONNEGATIVE, "B": _POSITIVE, "lipschitz": _NONNEGATIVE,
                   "delta": _DELTA}
_THRESHOLD = {"n_samples": _N_SAMPLES, "spectral_norm": _NONNEGATIVE, "n_nodes": _N_SAMPLES,
              "trivial_loss": _POSITIVE, "B": _POSITIVE, "lipschitz": _POSITIVE, "delta": _DELTA}
_WEIGHTS = {"pos_weight": _POSITIVE, "neg_weight": _POSITIVE}


def _confidence(B, n_samples, delta):
    # Theorem 1's last term, as printed: 4 B sqrt(2 ln(4 / delta) / (m + m'))
    return 4.0 * B * math.sqrt(2.0 * math.log(4.0 / delta) / n_samples)


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
        The inputs (``n_samples`` is the paper's :math:`m + m'`).
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
    r"""Evaluate Theorem 1's right-hand side exactly as printed (Section 3.1).

    .. math::

        \text{rhs} = \hat l + \frac{2L}{m+m'}\,\mathbb E_\sigma\|A_\sigma\|_2\sqrt{C_U C_V}
                     + 4B\sqrt{\frac{2\ln(4/\delta)}{m+m'}}

    Parameters
    ----------
    train_loss : float
        Mean training loss :math:`\hat l` over the :math:`m+m'` samples (>= 0).
    n_samples : int
        :math:`m + m'`, the number of training samples (positives plus negatives).
    spectral_norm : float
        :math:`\mathbb E_\sigma\|A_\sigma\|_2` of the training sample
        (:func:`~lgekit.theory.theorem1_spectral_norm` for an EdgeSplit).
    C_U, C_V : float
        Bounds on the total squared norms of the two sides (:func:`norm_constants`).
    B : float
        Upper bound of the (clipped) loss, > 0.
    delta : float in (0, 1), default 0.05
        Failure probability.
    lipschitz : float, default 1
        Lipschitz constant L of the loss in the score; the printed theorem
        has L = 1 (see the module docstring for L != 1).

    Returns
    -------
    Theorem1Bound

    Raises
    ------
    TypeError
        A non-numeric argument.
    ValueError
        A negative or non-finite value, ``n_samples < 1``, ``B <= 0`` or
        ``delta`` outside (0, 1).

    See Also
    --------
    lgekit.theory.bounds : the statement, the choice of :math:`A_\sigma` and the caveats.

    Examples
    --------
    >>> b = theorem1_bound(0.3, n_samples=10_000, spectral_norm=20.0, C_U=50.0, C_V=50.0, B=2.0)
    >>> round(b.complexity, 4), round(b.confidence, 4), round(b.rhs, 4)
    (0.2, 0.2368, 0.7368)
    """
    validate_params(_THEOREM1_BOUND, {"train_loss": train_loss, "n_samples": n_samples, "spectral_norm": spectral_norm,
                                      "C_U": C_U, "C_V": C_V, "B": B, "lipschitz": lipschitz, "delta": delta},
                    "theorem1_bound")
    train_loss, m, spectral_norm = float(train_loss), int(n_samples), float(spectral_norm)
    C_U, C_V = float(C_U), float(C_V)
    B, lipschitz, delta = float(B), float(lipschitz), float(delta)
    complexity = 2.0 * lipschitz * spectral_norm * math.sqrt(C_U * C_V) / m
    confidence = _confidence(B, m, delta)
    return Theorem1Bound(
        rhs=train_loss + complexity + confidence, train_loss=train_loss, complexity=complexity,
        confidence=confidence, n_samples=m, spectral_norm=spectral_norm, C_U=C_U, C_V=C_V, B=B,
        delta=delta, lipschitz=lipschitz,
    )


def nonvacuous_norm_threshold(n_samples, spectral_norm, n_nodes, trivial_loss=LN2, B=1.0, delta=0.05,
                              lipschitz=1.0):
    r"""The mean squared norm above which Theorem 1 is vacuous, whatever the training loss.

    For a homogeneous embedding (:math:`C_U = C_V = C = n\,\bar s`, with
    :math:`\bar s` the mean squared norm), the bound is below
    ``trivial_loss`` only if, even with zero training loss,

    .. math::

        \frac{2L\,\mathbb E\|A_\sigma\|_2\, n\,\bar s}{m+m'}
        + 4B\sqrt{\frac{2\ln(4/\delta)}{m+m'}} < \ell_0
        \iff
        \bar s < s^* = \frac{(\ell_0 - \text{confidence})\,(m+m')}{2L\,n\,\mathbb E\|A_\sigma\|_2}.

    Parameters
    ----------
    n_samples : int
        :math:`m + m'`.
    spectral_norm : float
        The :math:`\mathbb E\|A_\sigma\|_2` put into the theorem (>= 0).
    n_nodes : int
        n, the number of vertices the norms are averaged over.
    trivial_loss : float, default ln 2
        :math:`\ell_0`, the loss of the zero embedding.
    B, delta, lipschitz : float
        As in :func:`theorem1_bound`.

    Returns
    -------
    float
        :math:`s^*`; 0 when the confidence term alone reaches ``trivial_loss``
        (then no embedding gives a non-vacuous bound at this sample size);
        ``inf`` when ``spectral_norm`` is 0 (no pair sampled).

    Notes
    -----
    A necessary condition only: at :math:`\bar s < s^*` the bound is
    non-vacuous only if the training loss is also below
    :math:`\ell_0 - \text{complexity} - \text{confidence}`.

    Examples
    --------
    >>> # (ln 2 - 4 sqrt(2 ln 80 / 1e6)) * 1e6 / (2 * 1e4 * 50) = (0.69315 - 0.01184) * 1
    >>> round(nonvacuous_norm_threshold(1_000_000, 50.0, 10_000), 3)
    0.681
    """
    validate_params(_THRESHOLD, {"n_samples": n_samples, "spectral_norm": spectral_norm, "n_nodes": n_nodes,
                                 "trivial_loss": trivial_loss, "B": B, "lipschitz": lipschitz, "delta": delta},
                    "nonvacuous_norm_threshold")
    m, spectral_norm, trivial_loss, B = int(n_samples), float(spectral_norm), float(trivial_loss), float(B)
    lipschitz, delta = float(lipschitz), float(delta)
    room = trivial_loss - _confidence(B, m, delta)
    if room <= 0:
        return 0.0
    if spectral_norm == 0:
        return math.inf
    return room * m / (2.0 * lipschitz * int(n_nodes) * spectral_norm)


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


def _context_of(model_or_embedding, context):
    """``context`` if given, else a fitted two-table model's ``context_embedding_`` (None for one table)."""
    if context is not None:
        return context
    return getattr(model_or_embedding, "context_embedding_", None)


def norm_constants(embedding, context=None):
    r""":math:`C_U` and :math:`C_V` of a trained embedding: total squared norms.

    Parameters
    ----------
    embedding : ndarray (n, D) or fitted model
        Vectors of the U side (all vertices for a homogeneous embedding; the
        source / left table of a two-table model).  A fitted model trained on
        a directed or bipartite graph brings its ``context_embedding_`` as
        ``context``.
    context : ndarray (n', D), optional
        Vectors of the V side when they differ (the target / right table).

    Returns
    -------
    (C_U, C_V) : tuple of float
        :math:`\sum_u\|x_u\|^2` and :math:`\sum_v\|y_v\|^2`; equal when
        there is no context table (one vector per vertex: U = V).

    Notes
    -----
    Theorem 1 (Section 3.1) has separate budgets :math:`C_U, C_V` for its
    two vertex sets, and its complexity term uses :math:`\sqrt{C_U C_V}`;
    for a directed graph (footnote 1: out- and in-vectors) and a bipartite
    one the two tables are exactly those two sets.

    Examples
    --------
    >>> import numpy as np
    >>> norm_constants(np.array([[3.0, 4.0]]), context=np.array([[1.0, 0.0], [0.0, 2.0]]))
    (25.0, 5.0)
    """
    context = _context_of(embedding, context)
    X = _embedding_array(embedding, "embedding")
    cu = float(np.einsum("ij,ij->", X, X))
    if context is None:
        return cu, cu
    Y = _embedding_array(context, "context")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"context must have the embedding's dimension {X.shape[1]}, got shape {Y.shape}")
    return cu, float(np.einsum("ij,ij->", Y, Y))


def logistic_loss_bound(embedding, context=None):
    r"""B for the clipped logistic loss: :math:`\ln(1 + e^{R_U R_V})`.

    :math:`R_U, R_V` are the largest vector norms (of the two tables when
    ``context`` is given, or the model has a ``context_embedding_``), so
    :math:`|x_a^\top y_b| \le R_U R_V` on every pair and clipping the
    logistic loss at this B changes nothing on this embedding.
    """
    context = _context_of(embedding, context)
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


def _margins(X, pairs, labels, Y=None, graph=None, name="pairs"):
    """Margins y x_a . x_b (one table) or y x_a . y_b (two tables, pairs mapped by :func:`theorem1_pairs`)."""
    if Y is None:
        Y = X
    elif graph is not None and graph.kind == "bipartite":
        # the context table is indexed from 0 within the right side
        pairs = theorem1_pairs(graph, pairs, name)
    if pairs.size and (pairs.min() < 0 or pairs[:, 0].max() >= X.shape[0] or pairs[:, 1].max() >= Y.shape[0]):
        raise ValueError(f"{name} index vertices outside the embedding's {X.shape[0]} rows"
                         + ("" if Y is X else f" or the context's {Y.shape[0]} rows"))
    scores = np.einsum("ij,ij->i", X[pairs[:, 0]], Y[pairs[:, 1]])
    return np.where(labels > 0, scores, -scores)


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
        :math:`\ln 2` times the mean weight (clipped at B if B is given).
        A bound at or above it is vacuous.
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


def generalization_gap(model_or_embedding, split, B=None, pos_weight=1.0, neg_weight=1.0, context=None):
    r"""Test-minus-train logistic loss on the theorem's distribution.

    Parameters
    ----------
    model_or_embedding : fitted model (with ``embedding_``) or ndarray (n, D)
        A model fitted on a directed or bipartite graph brings its
        ``context_embedding_`` as ``context``.
    split : lgekit.EdgeSplit
        Training pairs: ``train_positives`` (y = +1) and ``train_negatives``
        (y = -1); held-out pairs: ``test_positives`` and ``test_negatives``,
        drawn the same way, so both samples come from the same distribution
        over labelled pairs (the theorem's :math:`\mathcal P`).
    B : float, optional
        Clip the loss at B (as in the theorem); default no clipping.
    pos_weight, neg_weight : float, default 1
        Per-label weights of the loss, e.g. a model's ``lam_pos`` and
        ``lam_neg``: Theorem 1 holds for any fixed bounded Lipschitz loss,
        including this label-weighted one (Lipschitz constant
        ``max(pos_weight, neg_weight)``), and it is the loss the model was
        trained on.
    context : ndarray (n', D), optional
        The target / right table of a two-table model: a pair (a, b) then
        scores :math:`x_a^\top y_b`.  For a bipartite split, b is a graph
        index in ``n_left..n_nodes-1`` and ``context`` has ``n_right`` rows
        (:func:`theorem1_pairs`).  Without it the score is
        :math:`x_a^\top x_b` (one vector per vertex, e.g. an undirected
        model evaluated on a directed split).

    Returns
    -------
    GeneralizationGap
    """
    context = _context_of(model_or_embedding, context)
    X = _embedding_array(model_or_embedding)
    Y = None if context is None else _embedding_array(context, "context")
    if Y is not None and Y.shape[1] != X.shape[1]:
        raise ValueError(f"context must have the embedding's dimension {X.shape[1]}, got shape {Y.shape}")
    graph = getattr(split, "graph", None)
    train_pairs, train_labels = theorem1_sample(split, "train")
    test_pairs, test_labels = theorem1_sample(split, "test")
    validate_params(_WEIGHTS, {"pos_weight": pos_weight, "neg_weight": neg_weight}, "generalization_gap")
    wp, wn = float(pos_weight), float(neg_weight)
    z_train = _margins(X, train_pairs, train_labels, Y, graph, "the training pairs")
    z_test = _margins(X, test_pairs, test_labels, Y, graph, "the held-out pairs")
    if z_train.size == 0 or z_test.size == 0:
        raise ValueError("split must have training and held-out pairs")
    w_train = np.where(train_labels > 0, wp, wn)
    w_test = np.where(test_labels > 0, wp, wn)
    train = clipped_logistic_loss(z_train, B, w_train)
    test = clipped_logistic_loss(z_test, B, w_test)
    # the zero embedding scores 0 everywhere: its (clipped, weighted) loss is what a bound must beat
    trivial = clipped_logistic_loss(np.zeros_like(z_test), B, w_test)
    return GeneralizationGap(train_loss=train, test_loss=test, gap=test - train,
                             trivial_loss=trivial, n_train=int(z_train.size),
                             n_test=int(z_test.size), pos_weight=wp, neg_weight=wn)
