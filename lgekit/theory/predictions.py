r"""The predictions :math:`\mathbb{E}_\sigma\|A_\sigma\|_2` is compared against: formulas, no sampling.

:mod:`lgekit.theory.rademacher` measures the spectral norm of Theorem 1's
random-sign matrix :math:`A_\sigma` by Monte Carlo; this module holds what
the literature predicts for it, from the pattern's size and degrees alone:

* :func:`paper_estimate` -- the paper's :math:`\sqrt{m \ln n / n}` (appendix);
* :func:`bandeira_van_handel_estimate` -- the dense-regime :math:`2\sqrt d`;
* :func:`sqrt_max_degree_estimate` and :func:`bbk_estimate` -- the sparse
  regime, governed by the largest degree;
* :func:`khintchine_bound` and :func:`bandeira_van_handel_bound` -- rigorous
  upper bounds for any fixed pattern.

The symbols (``n_pairs`` = m, ``mean_degree`` = d, ``max_degree`` = D) are
those of :mod:`lgekit.theory.rademacher`.
"""
import math
import numbers

import numpy as np

__all__ = [
    "paper_estimate",
    "bandeira_van_handel_estimate",
    "sqrt_max_degree_estimate",
    "bbk_estimate",
    "khintchine_bound",
    "bandeira_van_handel_bound",
]


def _check_at_least(value, name, minimum, what, strict=False):
    """A finite real number (or array of them) >= ``minimum`` (> if ``strict``), as float / float ndarray.

    ``what`` says what the argument counts, for the message: the formulas take logarithms and square roots,
    so a value below the minimum would come back as NaN or a bare "math domain error".
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number or an array of them ({what}), got bool: {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or an array of them ({what}), "
                        f"got {type(value).__name__}: {value!r}") from None
    if arr.dtype.kind != "f" or np.asarray(value).dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or an array of them ({what}), "
                        f"got {type(value).__name__}: {value!r}")
    bad = ~np.isfinite(arr) | ((arr <= minimum) if strict else (arr < minimum))
    if np.any(bad):
        if arr.ndim == 0:
            got = repr(value)
        else:
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            got = f"{float(arr[where])!r} at index {where[0] if len(where) == 1 else where} ({int(bad.sum())} such)"
        raise ValueError(f"{name} must be a finite number {'>' if strict else '>='} {minimum:g} ({what}), got {got}")
    return float(arr) if arr.ndim == 0 else arr



def paper_estimate(n_pairs, n):
    r"""The paper's estimate :math:`\sqrt{m \ln n / n}` (Gao et al. 2019, appendix, Erdős–Rényi estimate).

    Parameters
    ----------
    n_pairs : int or array
        :math:`m`, the number of sampled pairs (non-zeros of the bipartite
        :math:`A_\sigma`); :math:`m/n = d` is the mean number per row.
    n : int or array
        Number of vertices (rows).

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        ``n_pairs < 0`` or ``n < 1`` (the logarithm would make NaN), or a
        NaN or infinite value.

    Notes
    -----
    The appendix ("Rough Estimation of :math:`\|A_\sigma\|_2` on
    Erdos-Renyi Graph") derives it from a central-limit approximation of
    :math:`y^\top A_\sigma x` and a union bound over an
    :math:`\epsilon`-net of the sphere.  The non-commutative Khintchine /
    matrix Bernstein inequality gives the same order rigorously when every
    row and column holds about :math:`m/n` pairs; see
    :func:`khintchine_bound`, which needs the *maximum* degree instead.  The
    paper's footnote 5 suspects the :math:`\sqrt{\ln n}` factor can be
    removed (:func:`~lgekit.experiments.check_rademacher.verify_rademacher` checks it).
    """
    n_pairs = _check_at_least(n_pairs, "n_pairs", 0, "the number of sampled pairs")
    n = _check_at_least(n, "n", 1, "the number of vertices")
    out = np.sqrt(n_pairs * np.log(n) / n)
    return float(out) if out.ndim == 0 else out


def bandeira_van_handel_estimate(mean_degree):
    r"""The sharp dense-regime value :math:`2\sqrt d`.

    Bandeira & van Handel (2016, Ann. Probab. 44(4), Theorem 1.1 and its
    Rademacher corollary): :math:`\mathbb E\|X\| \le (1+\epsilon)\,2\sigma +
    C(\epsilon)\,\sigma_* \sqrt{\log n}` with :math:`\sigma` the largest row
    standard deviation, :math:`\sqrt{\max_i \sum_j \mathbb E X_{ij}^2} =
    \sqrt d` here, and :math:`\sigma_* = \max |X_{ij}| = 1`.  For
    :math:`d \gg \ln n` the first term dominates, and :math:`2\sqrt d` is
    also the limit (semicircle / Marchenko–Pastur edge), so the bound is sharp.
    """
    d = _check_at_least(mean_degree, "mean_degree", 0, "the mean number of pairs per row")
    return 2.0 * np.sqrt(d) if np.ndim(d) else 2.0 * math.sqrt(d)


def sqrt_max_degree_estimate(max_degree):
    r""":math:`\sqrt{D_{\max}}`: the sparse-regime scale (Benaych-Georges, Bordenave & Knowles 2017).

    For d = O(ln n) the norm is governed by the largest degree.  It is also a
    deterministic lower bound for a matrix of distinct +-1 entries, whatever
    the signs: :math:`\|A\|_2` is at least the Euclidean norm of any row or
    column, and a row or column with :math:`D_{\max}` entries of +-1 has norm
    :math:`\sqrt{D_{\max}}`.
    """
    D = _check_at_least(max_degree, "max_degree", 0, "the largest number of pairs in a row or column")
    return np.sqrt(D) if np.ndim(D) else math.sqrt(D)


def bbk_estimate(max_degree, mean_degree):
    r"""The refined sparse-regime prediction :math:`\sqrt d\,\Lambda(D_{\max}/d)`.

    :math:`\Lambda(\alpha) = \alpha/\sqrt{\alpha - 1}` for :math:`\alpha \ge 2`
    and 2 otherwise (Benaych-Georges, Bordenave & Knowles, "Spectral radii of
    sparse random matrices", arXiv:1704.02945, 2017; Ann. IHP 2020).  For a
    star of degree D whose leaves have d further neighbours the top
    eigenvalue is :math:`D/\sqrt{D-d}`, whatever the signs; the formula is
    asymptotic (d <~ ln n) and ignores the O(1) fluctuations of the maximum.
    For a rectangular bipartite matrix apply it to the symmetric dilation:
    D over rows and columns, d the mean per row.
    """
    D = np.asarray(_check_at_least(max_degree, "max_degree", 0, "the largest number of pairs in a row or column"))
    d = np.asarray(_check_at_least(mean_degree, "mean_degree", 0, "the mean number of pairs per row", strict=True))
    alpha = D / d
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(alpha >= 2.0, alpha / np.sqrt(np.maximum(alpha - 1.0, 1e-300)), 2.0)
    out = np.sqrt(d) * lam
    return float(out) if out.ndim == 0 else out


def khintchine_bound(max_degree, shape):
    r"""Rigorous upper bound :math:`\sqrt{2 D \ln(n_1 + n_2)}` on :math:`\mathbb E_\sigma\|A_\sigma\|_2`.

    Matrix Rademacher series (Tropp 2015, *An Introduction to Matrix
    Concentration Inequalities*, Theorem 4.1.1): for :math:`Z = \sum_k
    \sigma_k B_k`, :math:`\mathbb E\|Z\| \le \sqrt{2 v \ln(n_1 + n_2)}` with
    :math:`v = \max(\|\sum B_k B_k^\top\|, \|\sum B_k^\top B_k\|)`.  With
    :math:`B_k = e_{a_k} e_{b_k}^\top` (or its symmetrisation) the two sums
    are the diagonal matrices of row and column counts, so :math:`v =
    D_{\max}`.  It holds for every fixed pattern; with balanced degrees
    (:math:`D \approx m/n`) it is the paper's :math:`\sqrt{m \ln n / n}` up to
    the constant.

    Parameters
    ----------
    max_degree : float or array
        :math:`D_{\max} \ge 0`, the largest number of pairs in a row or column.
    shape : (int, int)
        :math:`(n_1, n_2)`, the matrix's rows and columns, each at least 1.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        A negative, NaN or infinite ``max_degree``, or a ``shape`` that is
        not two positive ints.
    """
    if (not isinstance(shape, (tuple, list)) or len(shape) != 2
            or not all(isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_)) and s >= 1
                       for s in shape)):
        raise ValueError(f"shape must be a pair of positive ints (n_rows, n_cols) of the matrix, got {shape!r}")
    n1, n2 = shape
    D = np.asarray(_check_at_least(max_degree, "max_degree", 0, "the largest number of pairs in a row or column"))
    out = np.sqrt(2.0 * D * math.log(int(n1) + int(n2)))
    return float(out) if out.ndim == 0 else out


def bandeira_van_handel_bound(max_degree, shape, symmetric=False):
    r"""Bandeira--van Handel's upper bound on :math:`\mathbb E_\sigma\|A_\sigma\|_2` at a pattern's own degrees.

    Bandeira & van Handel (2016, Ann. Probab. 44(4), Theorem 1.1): for an :math:`N \times N` symmetric
    matrix :math:`X_{ij} = b_{ij} g_{ij}` with independent standard Gaussians :math:`g_{ij}` (:math:`i \ge j`),
    for every :math:`0 < \epsilon \le 1/2`

    .. math::

        \mathbb E\|X\| \le (1+\epsilon)\Bigl(2\sigma + \frac{6}{\sqrt{\ln(1+\epsilon)}}\,
        \sigma_*\sqrt{\ln N}\Bigr),
        \qquad \sigma = \max_i\sqrt{\textstyle\sum_j b_{ij}^2},\ \sigma_* = \max_{ij} b_{ij}.

    A sign matrix on a pattern of distinct pairs has :math:`b_{ij} \in \{0, 1\}`: :math:`\sigma =
    \sqrt{D_{\max}}`, :math:`\sigma_* = 1`.  Rademacher signs in place of Gaussians cost at most
    :math:`\sqrt{\pi/2}` (the contraction principle, Ledoux & Talagrand 1991, (4.8)), and a rectangular
    :math:`n_1 \times n_2` matrix has the norm of its symmetric dilation (:math:`N = n_1 + n_2`).  The
    minimum over a grid of :math:`\epsilon` is returned.  With :math:`\sqrt{D_{\max}}` below (a row of
    :math:`D_{\max}` signs), this is the band the theory puts around the norm at the pattern's own degrees.

    Parameters
    ----------
    max_degree : float
        :math:`D_{\max} \ge 0`, the largest number of pairs in a row or column.
    shape : (int, int)
        The matrix's shape.
    symmetric : bool, default False
        The matrix is symmetric (:math:`N = n`, e.g. :math:`A + A^\top`); else it is bounded through its
        dilation (:math:`N = n_1 + n_2`).

    Returns
    -------
    float
    """
    if (not isinstance(shape, (tuple, list)) or len(shape) != 2
            or not all(isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_)) and s >= 1
                       for s in shape)):
        raise ValueError(f"shape must be a pair of positive ints (n_rows, n_cols) of the matrix, got {shape!r}")
    D = _check_at_least(max_degree, "max_degree", 0, "the largest number of pairs in a row or column")
    if symmetric and shape[0] != shape[1]:
        raise ValueError(f"a symmetric matrix is square, got shape {shape!r}")
    N = int(shape[0]) if symmetric else int(shape[0]) + int(shape[1])
    eps = np.linspace(0.01, 0.5, 50)
    log_n = math.log(max(N, 2))
    gaussian = (1 + eps) * (2 * math.sqrt(D) + 6 / np.sqrt(np.log1p(eps)) * math.sqrt(log_n))
    return float(math.sqrt(math.pi / 2) * gaussian.min())
