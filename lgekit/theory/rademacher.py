r"""Spectral norms of random-sign (Rademacher) matrices on sampled pairs.

Theorem 1 of Gao et al. (ICLR 2019) bounds the generalization error of a
norm-constrained linear graph embedding through

.. math::

    \mathbb{E}_\sigma \|A_\sigma\|_2, \qquad
    A_\sigma = \sum_{i=1}^{m} \sigma_i\, e_{a_i} e_{b_i}^\top ,

where :math:`(a_i, b_i)` are the :math:`m` sampled training pairs (positives
*and* negatives) and :math:`\sigma_i` are independent uniform signs.  This
module builds :math:`A_\sigma`, estimates :math:`\mathbb{E}_\sigma\|A_\sigma\|_2`
by Monte Carlo and generates the Erdős–Rényi pair samples of the theorem's
model; the predictions the estimate is compared against are formulas, in
:mod:`lgekit.theory.predictions`.

What "m" and "d" mean
---------------------
* ``n_pairs`` (the paper's :math:`m`): the number of sampled pairs, i.e. the
  number of non-zeros of the (bipartite) :math:`A_\sigma`.
* ``d`` (average degree): the mean number of non-zeros per row.  For the
  bipartite :math:`n \times n` matrix :math:`d = m/n`, so the paper's
  :math:`\sqrt{m \ln n / n} = \sqrt{d \ln n}`.  For the homogeneous
  (symmetric) matrix of :math:`m` unordered pairs, every pair fills two
  entries and :math:`d = 2m/n`, the average degree of the graph.
* ``max_degree`` :math:`D`: the largest number of non-zeros in any row *or*
  column (the largest vertex degree of the pair graph).
"""
import logging
import math
import numbers
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh_tridiagonal, eigvalsh

from .._progress import display_for, progress
from .._random import check_random_state
from .._validation import DTypes, Interval, Options, validate_params
from ..graph import Graph
from ._pairs import csr_from_coo, sign_gram_matvec
# the predictions moved to their own module; imported here so that ``lgekit.theory.rademacher.paper_estimate``
# and the others keep working (they are exported by lgekit.theory.predictions, not here)
from .predictions import (  # noqa: F401
    bandeira_van_handel_bound,
    bandeira_van_handel_estimate,
    bbk_estimate,
    khintchine_bound,
    paper_estimate,
    sqrt_max_degree_estimate,
)

__all__ = [
    "KINDS",
    "PairPattern",
    "SpectralNormEstimate",
    "SpectralNormConvergenceWarning",
    "rademacher_matrix",
    "erdos_renyi_pairs",
    "expected_spectral_norm",
    "spectral_norm",
    "dense_spectral_norm",
]

logger = logging.getLogger(__name__)

KINDS = ("bipartite", "homogeneous")

# matrices with min(shape) up to this size are solved densely (exact SVD)
_DENSE_LIMIT = 400
# Lanczos basis vectors kept for the warm start of the next draw (bytes)
_STORE_LIMIT = 512 * 2**20


class SpectralNormConvergenceWarning(UserWarning):
    """The Lanczos iteration hit ``maxiter`` before reaching ``tol``."""


#: the constraints of the arguments below, checked by :func:`lgekit._validation.validate_params` (the estimators'
#: mechanism: one message form, ``<caller>: <name> must be <what is accepted>, got <value>``)
_COUNT = [Interval(numbers.Integral, 1, None, closed="left")]
_CONSTRAINTS = {
    "kind": [Options(str, KINDS)],
    "dtype": [DTypes("float32", "float64")],
    "tol": [Interval(numbers.Real, 0, 1, closed="neither")],
    "n_draws": _COUNT,
    "maxiter": _COUNT,
    "n_threads": _COUNT,
    "n": [Interval(numbers.Integral, 2, None, closed="left")],
    "d": [Interval(numbers.Real, 0, None, closed="neither")],
}


def _table(*names, optional=()):
    """The constraints of ``names`` (``optional`` ones also accept None) from :data:`_CONSTRAINTS`."""
    return {name: _CONSTRAINTS[name] + ([None] if name in optional else []) for name in names}


def _as_pairs(pairs, name="pairs"):
    arr = np.asarray(pairs)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be an (m, 2) array of index pairs, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integer vertex indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must hold non-negative vertex indices, got {int(arr.min())}")
    return arr


@dataclass(frozen=True)
class _Csr:
    indptr: np.ndarray
    indices: np.ndarray
    sign_index: object  # int64 array or None (identity)


class PairPattern:
    r"""The sparsity pattern of :math:`A_\sigma`, prepared for many sign draws.

    Parameters
    ----------
    pairs : array-like of shape (m, 2)
        Integer index pairs :math:`(a_i, b_i)`.
    shape : tuple of int, optional
        ``(n_rows, n_cols)`` of the matrix.  Default: one past the largest
        index (both sides equal for ``kind="homogeneous"``).
    kind : {"bipartite", "homogeneous"}, default "bipartite"
        ``"bipartite"``: pair ``i`` puts :math:`\sigma_i` at ``(a_i, b_i)``
        only (rows and columns are different vertex sets, :math:`U \times V`:
        Theorem 1's matrix for ordered pairs).  ``"homogeneous"``: one sign
        per pair placed at both ``(a_i, b_i)`` and ``(b_i, a_i)`` (a
        symmetric matrix :math:`A + A^\top`: the signed adjacency matrix of
        the pair graph); half its norm is what Theorem 1 needs for an
        undirected sample and one vector per vertex (derivation in
        :mod:`lgekit.theory.bounds`).

    Notes
    -----
    Repeated pairs are kept: their signs add up, as in
    :math:`\sum_i \sigma_i e_{a_i} e_{b_i}^\top`.  The pattern stores the
    CSR structure of :math:`A` and of :math:`A^\top` (built once by a
    counting sort, O(m + n)); a draw only writes m ``int8`` signs.
    """

    def __init__(self, pairs, shape=None, kind="bipartite"):
        validate_params(_table("kind"), {"kind": kind}, "PairPattern")
        pairs = _as_pairs(pairs)
        self._init(pairs[:, 0], pairs[:, 1], shape, kind)

    # -- construction -----------------------------------------------------------------------------
    def _init(self, rows, cols, shape, kind):
        m = rows.shape[0]
        if shape is None:
            if kind == "homogeneous":
                n = int(max(rows.max(), cols.max())) + 1 if m else 0
                shape = (n, n)
            else:
                shape = (int(rows.max()) + 1 if m else 0, int(cols.max()) + 1 if m else 0)
        if (not isinstance(shape, (tuple, list)) or len(shape) != 2
                or not all(isinstance(s, numbers.Integral) and s > 0 for s in shape)):
            raise ValueError(f"shape must be a pair of positive ints (n_rows, n_cols), got {shape!r}")
        shape = (int(shape[0]), int(shape[1]))
        if kind == "homogeneous" and shape[0] != shape[1]:
            raise ValueError(f"shape must be square for kind='homogeneous', got {shape}")
        if max(shape) >= 2**31 - 1:
            raise ValueError(f"shape {shape} is too large: at most 2**31 - 2 rows and columns")
        if m and (rows.max() >= shape[0] or cols.max() >= shape[1]):
            raise ValueError(
                f"pairs index outside shape {shape}: largest row {int(rows.max())}, "
                f"largest column {int(cols.max())}"
            )
        self.shape = shape
        self.kind = kind
        self.n_pairs = int(m)
        r32 = np.ascontiguousarray(rows, dtype=np.int32)
        c32 = np.ascontiguousarray(cols, dtype=np.int32)
        if kind == "bipartite":
            self._row = self._csr(shape[0], r32, c32, np.arange(m, dtype=np.int64), sorted_rows=True)
            self._col = self._csr(shape[1], c32, r32, np.arange(m, dtype=np.int64))
        else:
            off = r32 != c32
            idx = np.arange(m, dtype=np.int64)
            rr = np.concatenate([r32, c32[off]])
            cc = np.concatenate([c32, r32[off]])
            self._row = self._csr(shape[0], rr, cc, np.concatenate([idx, idx[off]]))
            self._col = self._row
        self.row_counts = np.diff(self._row.indptr)
        self.col_counts = np.diff(self._col.indptr)

    @staticmethod
    def _csr(n, rows, cols, owner, sorted_rows=False):
        """CSR of the entries (rows, cols); ``sign_index[k]`` = pair owning CSR entry k (None: identity)."""
        if sorted_rows and (rows.size < 2 or np.all(rows[1:] >= rows[:-1])):
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
            indices, sign_index = cols, owner
        else:
            indptr, indices, perm = csr_from_coo(n, rows, cols)
            sign_index = owner[perm]
        if np.array_equal(sign_index, np.arange(sign_index.size)):
            sign_index = None
        return _Csr(indptr, indices, sign_index)

    @classmethod
    def from_graph(cls, graph):
        """The pattern of a graph's edges: Theorem 1's matrix for its kind.

        Parameters
        ----------
        graph : lgekit.Graph
            Undirected: the homogeneous n x n pattern, one sign per edge at
            both (u, v) and (v, u).  Directed: the bipartite n x n pattern, a
            sign at (source, target) of every arc.  Bipartite: the
            n_left x n_right pattern, a sign at (left, right - n_left) of
            every edge (rows U, columns V, as in Theorem 1's statement).
        """
        if not isinstance(graph, Graph):
            raise TypeError(f"graph must be an lgekit.Graph, got {type(graph).__name__}")
        edges = graph.edges()
        sides = graph.table_sides()
        if sides is None:
            n = max(graph.n_nodes, 1)
            return cls(edges, shape=(n, n), kind="homogeneous")
        # a directed or bipartite graph's edges are (source, target) / (left, right): row u, column v - offset
        pairs = np.column_stack([edges[:, 0], edges[:, 1] - sides.target_offset])
        return cls(pairs, shape=(max(sides.n_source, 1), max(sides.n_target, 1)), kind="bipartite")

    @classmethod
    def erdos_renyi(cls, n, d, kind="bipartite", seed=None):
        """The pattern of :func:`erdos_renyi_pairs` without materialising the pair array."""
        rng = check_random_state(seed, "seed")
        rows, cols = _er_rows_cols(n, d, kind, rng, "PairPattern.erdos_renyi")
        self = cls.__new__(cls)
        self._init(rows, cols, (n, n), kind)
        return self

    # -- properties ------------------------------------------------------------------------------
    @property
    def max_degree(self):
        """Largest number of non-zeros in a row or a column (with multiplicity)."""
        return int(max(self.row_counts.max(initial=0), self.col_counts.max(initial=0)))

    @property
    def mean_degree(self):
        """Average number of non-zeros per row."""
        return float(self.row_counts.sum()) / self.shape[0]

    @property
    def nnz(self):
        """Stored entries of A (``2 m`` minus diagonal pairs for homogeneous)."""
        return int(self._row.indptr[-1])

    def __repr__(self):
        return (f"PairPattern(kind={self.kind!r}, shape={self.shape}, n_pairs={self.n_pairs}, "
                f"mean_degree={self.mean_degree:.3g}, max_degree={self.max_degree})")

    # -- draws ----------------------------------------------------------------------------------
    def draw_signs(self, seed=None):
        """Independent uniform signs, one per pair (``int8`` array of +1/-1)."""
        rng = check_random_state(seed, "seed")
        bits = rng.integers(0, 2, size=self.n_pairs, dtype=np.int8)
        bits *= 2
        bits -= 1
        return bits

    def _data(self, csr, signs):
        return signs if csr.sign_index is None else signs[csr.sign_index]

    def matrix(self, signs, dtype=np.float64):
        """The matrix :math:`A_\\sigma` for given signs, as scipy CSR (duplicates summed)."""
        signs = self._check_signs(signs)
        csr = self._row
        mat = sp.csr_matrix(
            (self._data(csr, signs).astype(dtype), csr.indices.copy(), csr.indptr.copy()), shape=self.shape
        )  # copies: scipy sorts indices in place and must not touch the pattern
        mat.sum_duplicates()
        return mat

    def _check_signs(self, signs):
        signs = np.asarray(signs)
        if signs.shape != (self.n_pairs,):
            raise ValueError(f"signs must have shape ({self.n_pairs},), got {signs.shape}")
        return np.ascontiguousarray(signs, dtype=np.int8)

    def gram_operator(self, signs, dtype=np.float32, n_threads=1):
        """A function ``x -> A^T A x`` on vectors of length ``n_cols`` (float32 or float64)."""
        signs = self._check_signs(signs)
        validate_params(_table("dtype", "n_threads"), {"dtype": dtype, "n_threads": n_threads},
                        "PairPattern.gram_operator")
        dt = np.dtype(dtype)
        row, col = self._row, self._col
        s_row = self._data(row, signs)
        s_col = s_row if col is row else self._data(col, signs)
        tmp = np.empty(self.shape[0], dtype=dt)

        def apply(x):
            out = np.empty(self.shape[1], dtype=dt)
            sign_gram_matvec(row.indptr, row.indices, s_row, col.indptr, col.indices, s_col,
                                    x, tmp, out, n_threads)
            return out

        return apply

    def spectral_norm(self, signs, tol=1e-3, dtype=np.float32, v0=None, maxiter=1000, n_threads=1, seed=0):
        """:math:`\\|A_\\sigma\\|_2` for given signs; see :func:`spectral_norm`.

        ``v0`` (default: the square roots of the column degrees plus a random part drawn
        from ``seed``) is the Lanczos start vector; ``seed`` also draws the
        restart vectors after a breakdown.

        Returns
        -------
        value : float
        info : dict
            ``"n_matvec"``, ``"residual"`` (relative, on :math:`\\sigma^2`),
            ``"converged"``, ``"vector"`` (approximate top right singular
            vector or None), ``"method"`` ("dense" or "lanczos").
        """
        validate_params(_table("tol", "dtype", "maxiter", "n_threads"),
                        {"tol": tol, "dtype": dtype, "maxiter": maxiter, "n_threads": n_threads},
                        "PairPattern.spectral_norm")
        tol, dt = float(tol), np.dtype(dtype)
        if self.n_pairs == 0:
            return 0.0, {"n_matvec": 0, "residual": 0.0, "converged": True, "vector": None, "method": "empty"}
        if min(self.shape) <= _DENSE_LIMIT:
            dense = self.matrix(signs).toarray()
            return float(np.linalg.norm(dense, 2)), {
                "n_matvec": 0, "residual": 0.0, "converged": True, "vector": None, "method": "dense"}
        op = self.gram_operator(signs, dtype=dt, n_threads=n_threads)
        n = self.shape[1]
        rng = check_random_state(seed, "seed")
        if v0 is None:
            v0 = _start_vector(self.col_counts, dt, rng)
        v0 = np.ascontiguousarray(v0, dtype=dt)
        if v0.shape != (n,) or not np.all(np.isfinite(v0)) or not np.any(v0):
            raise ValueError(f"v0 must be a finite non-zero vector of length {n}")
        theta, vec, n_matvec, res, converged = _lanczos_top(op, v0, tol, maxiter, dt, rng)
        return math.sqrt(max(theta, 0.0)), {
            "n_matvec": n_matvec, "residual": res, "converged": converged, "vector": vec, "method": "lanczos"}


def _start_vector(col_counts, dt, rng):
    r"""Lanczos's start vector: :math:`\sqrt{\text{column degree}}` plus a random part drawn from ``rng``.

    The degree part points at the hubs, where the top singular vector of a
    sparse sign matrix concentrates; the random part (a tenth of its size)
    gives every eigenvector of :math:`A^\top A` a non-zero weight with
    probability one.  Without it the start vector can be orthogonal to the
    top eigenvector: a rank-one :math:`u v^\top` with a balanced :math:`v`
    and equal column degrees annihilates the degree vector, and Lanczos
    returned 0 for a matrix of norm 500.
    """
    base = np.sqrt(np.asarray(col_counts, dtype=np.float64)) + 0.01
    scale = 0.1 * float(np.linalg.norm(base)) / math.sqrt(base.size)
    return (base + scale * rng.standard_normal(base.size)).astype(dt)


#: restarts after a breakdown (an exactly invariant Krylov subspace) before the answer is taken as final
_MAX_RESTARTS = 3
#: steps a restarted block gets to raise the top Ritz value before a converged value is accepted
_RESTART_STEPS = 20


def _orthogonal_restart(basis, n, dt, rng):
    """A unit vector orthogonal to ``basis`` (twice Gram-Schmidt in float64), or None when they span R^n."""
    if len(basis) >= n:
        return None
    q = rng.standard_normal(n)
    for _ in range(2):
        for b in basis:
            b64 = b.astype(np.float64)
            q -= (b64 @ q) * b64
    norm = float(np.linalg.norm(q))
    if norm <= 1e-8 * math.sqrt(n):
        return None
    return (q / norm).astype(dt)


def _lanczos_top(op, v0, tol, maxiter, dt, rng=None):
    r"""Top eigenvalue of the PSD operator ``op`` by plain Lanczos (no re-orthogonalisation).

    Stops when the residual bound :math:`\beta_k |s_{k}|` of the top Ritz pair
    is at most ``2 tol theta``: then an eigenvalue lies within
    ``2 tol theta`` of the Ritz value ``theta``, i.e. its square root within
    ``tol`` relative.  Ritz values never exceed the top eigenvalue, so the
    error of the returned value is one-sided (an underestimate).  Without
    re-orthogonalisation Lanczos may produce spurious copies of converged
    eigenvalues, which does not affect the top one.

    The residual test proves only that *some* eigenvalue is near ``theta``:
    when the start vector has little weight on the top eigenvector, the
    Ritz value can settle on the second one first (an email-Eu-core draw
    stopped 2.4% low after 21 steps).  So a converged value is confirmed:
    the iteration goes on to ``max(k + 6, 1.5 k)`` steps and stops only if
    the top Ritz value has not risen by more than ``tol theta`` meanwhile
    (else it confirms the new value the same way).  The top eigenvalue
    emerges as the Krylov space grows, so the confirmation catches it unless
    its weight in the start vector is extremely small.

    *Breakdown.*  When :math:`\beta_k` vanishes the Krylov space is an
    invariant subspace: its Ritz values are exact eigenvalues, but not
    necessarily the top one (a start vector in the null space gives 0).
    The iteration then restarts from a random vector (``rng``) orthogonal to
    the basis so far, as a new block of the tridiagonal matrix (its
    off-diagonal entry 0), at most :data:`_MAX_RESTARTS` times, and a
    converged value is accepted only after the new block has had
    :data:`_RESTART_STEPS` steps to rise above it.  The answer is the top
    Ritz value over all blocks: still a lower bound, now exact whenever the
    blocks together span the top eigenvector.
    """
    rng = check_random_state(0 if rng is None else rng, "rng")
    n = v0.shape[0]
    q = v0 / np.linalg.norm(v0)
    q_prev = np.zeros_like(q)
    alphas, betas = [], []
    max_store = max(1, _STORE_LIMIT // (n * dt.itemsize))
    basis = []
    beta = 0.0
    theta, s, res, converged = 0.0, None, float("inf"), False
    confirm = None          # (step to confirm at, the converged top Ritz value)
    restarted_at, restarts = 0, 0
    k = 0
    for k in range(1, maxiter + 1):
        if len(basis) < max_store:
            basis.append(q)
        w = op(q)
        alpha = float(np.dot(w.astype(np.float64, copy=False), q))
        w -= dt.type(alpha) * q
        if beta:
            w -= dt.type(beta) * q_prev
        beta = float(np.linalg.norm(w))
        alphas.append(alpha)
        betas.append(beta)
        broke = beta <= 1e-12 * max(abs(alpha), 1.0)
        check = (k <= 3 or k % 3 == 0 or k == maxiter or broke or (confirm is not None and k == confirm[0]))
        if check:
            if k == 1:
                theta, s = alpha, np.ones((1, 1))
            else:
                vals, vecs = eigh_tridiagonal(np.array(alphas), np.array(betas[:-1]),
                                              select="i", select_range=(k - 1, k - 1))
                theta, s = float(vals[0]), vecs
            res = abs(beta * s[-1, 0])
            if broke:
                # an invariant subspace: exact Ritz values, but the top eigenvector may lie outside it
                fresh = (_orthogonal_restart(basis, n, dt, rng)
                         if restarts < _MAX_RESTARTS and len(basis) == k else None)
                if fresh is None:
                    converged = True
                    break
                restarts += 1
                restarted_at = k
                betas[-1] = beta = 0.0
                confirm = (k + _RESTART_STEPS, theta)
                q_prev, q = q, fresh
                continue
            if res <= 2.0 * tol * abs(theta):
                if confirm is None or theta > confirm[1] + tol * abs(confirm[1]):
                    step = max(k + 6, (3 * k) // 2, restarted_at + _RESTART_STEPS if restarts else 0)
                    confirm = (step, theta)     # converged: confirm it
                elif k >= confirm[0]:
                    converged = True
                    break
        q_prev, q = q, w / dt.type(beta)
    vec = None
    if s is not None and len(basis) >= s.shape[0]:
        vec = np.zeros(n, dtype=np.float64)
        for j in range(s.shape[0]):
            vec += s[j, 0] * basis[j]
        vec = vec.astype(dt)
    rel = res / abs(theta) if theta else float("inf")
    return theta, vec, k, rel, converged


def rademacher_matrix(pairs, shape=None, kind="bipartite", seed=None, dtype=np.float64):
    r"""The random-sign matrix :math:`A_\sigma` of Theorem 1.

    Parameters
    ----------
    pairs : array-like of shape (m, 2), lgekit.Graph or PairPattern
        The sampled pairs, positives and negatives alike.  A Graph gives its
        edges (:meth:`PairPattern.from_graph`: homogeneous for an undirected
        graph, the :math:`|U| \times |V|` matrix of Theorem 1 for a directed
        or bipartite one); the training sample of an EdgeSplit is
        :func:`lgekit.theory.theorem1_pattern`.
    shape : tuple of int, optional
        ``(n_rows, n_cols)``; default one past the largest index.
    kind : {"bipartite", "homogeneous"}, default "bipartite"
        See :class:`PairPattern`.  Ignored for a Graph or a PairPattern.
    seed : None, int or numpy.random.Generator
        Source of the signs.
    dtype : float dtype, default float64

    Returns
    -------
    scipy.sparse.csr_matrix
        An independent uniform :math:`\pm 1` at every sampled pair and 0
        elsewhere; symmetric for ``"homogeneous"`` (one sign per unordered
        pair).  Repeated pairs add their signs.

    Examples
    --------
    >>> import numpy as np
    >>> A = rademacher_matrix(np.array([[0, 1], [1, 2]]), shape=(3, 3), seed=0)
    >>> sorted(np.abs(A.data).tolist())
    [1.0, 1.0]
    >>> S = rademacher_matrix(np.array([[0, 1], [1, 2]]), kind="homogeneous", seed=0)
    >>> bool((S != S.T).nnz == 0)
    True
    """
    pattern = _as_pattern(pairs, shape, kind)
    return pattern.matrix(pattern.draw_signs(seed), dtype=dtype)


def _as_pattern(pairs, shape=None, kind=None):
    if isinstance(pairs, PairPattern):
        return pairs
    if isinstance(pairs, Graph):
        return PairPattern.from_graph(pairs)
    return PairPattern(pairs, shape=shape, kind="bipartite" if kind is None else kind)


def spectral_norm(matrix_or_pattern, signs=None, tol=1e-3, dtype=np.float32, maxiter=1000, n_threads=1, seed=0):
    r"""Largest singular value of a sparse matrix or of a signed pattern.

    Parameters
    ----------
    matrix_or_pattern : scipy sparse matrix, ndarray or PairPattern
    signs : int8 array, optional
        Required with a PairPattern.
    tol : float, default 1e-3
        Relative accuracy of the singular value (see Notes).
    dtype : {float32, float64}, default float32
        Precision of the Lanczos vectors (products accumulate in double).
    maxiter : int, default 1000
    n_threads : int, default 1
        Threads of the matrix-vector kernel; the result does not depend on it.
    seed : None, int or numpy.random.Generator, default 0
        Source of the random part of the start vector and of the restart
        vectors after a breakdown (fixed by default: the same matrix gives the
        same value).

    Returns
    -------
    float
        Never 0 for a non-zero matrix (with probability one over ``seed``).

    Notes
    -----
    Plain Lanczos on :math:`A^\top A` started from :math:`\sqrt{\text{column
    degree}}` plus a random part, restarted from a random orthogonal vector
    after a breakdown (:func:`_lanczos_top`); it stops when the top Ritz value :math:`\theta` has residual
    :math:`\le 2\,\mathrm{tol}\,\theta`.  The answer :math:`\sqrt\theta` then
    underestimates :math:`\|A\|_2` by at most ``tol`` relative (Ritz values
    never exceed the top eigenvalue).  Each step costs two sparse products,
    O(nnz).  Matrices with ``min(shape) <= 400`` are solved exactly (dense SVD).
    """
    if isinstance(matrix_or_pattern, PairPattern):
        if signs is None:
            raise ValueError("signs is required when matrix_or_pattern is a PairPattern")
        return matrix_or_pattern.spectral_norm(signs, tol=tol, dtype=dtype, maxiter=maxiter,
                                               n_threads=n_threads, seed=seed)[0]
    mat = matrix_or_pattern
    if not (sp.issparse(mat) or isinstance(mat, np.ndarray)) or mat.ndim != 2:
        raise TypeError(f"matrix_or_pattern must be a 2-D sparse matrix, ndarray or PairPattern, "
                        f"got {type(mat).__name__}")
    validate_params(_table("tol", "dtype", "maxiter", "n_threads"),
                    {"tol": tol, "dtype": dtype, "maxiter": maxiter, "n_threads": n_threads}, "spectral_norm")
    tol, dt = float(tol), np.dtype(dtype)
    if min(mat.shape) <= _DENSE_LIMIT or not sp.issparse(mat):
        dense = mat.toarray() if sp.issparse(mat) else np.asarray(mat, dtype=np.float64)
        return float(np.linalg.norm(dense, 2)) if dense.size else 0.0
    A = sp.csr_matrix(mat, dtype=dt)
    AT = sp.csr_matrix(A.T)

    def op(x):
        return AT @ (A @ x)

    rng = check_random_state(seed, "seed")
    v0 = _start_vector(np.asarray(abs(A).sum(axis=0)).ravel(), dt, rng)
    theta = _lanczos_top(op, v0, tol, maxiter, dt, rng)[0]
    return math.sqrt(max(theta, 0.0))


def dense_spectral_norm(matrix):
    r"""The exact largest singular value, by a dense symmetric eigensolver: the reference for Lanczos.

    Parameters
    ----------
    matrix : scipy sparse matrix or ndarray, 2-D

    Returns
    -------
    float
        :math:`\sqrt{\lambda_{\max}(G)}`, G the smaller Gram matrix (:math:`A^\top A` or :math:`A A^\top`)
        in float64, from LAPACK's ``syevr`` restricted to the top eigenvalue: exact to rounding, with no start
        vector and no stopping rule, and several times faster than a full SVD.  O(n^3): for matrices up to a
        few thousand rows.
    """
    if not (sp.issparse(matrix) or isinstance(matrix, np.ndarray)) or matrix.ndim != 2:
        raise TypeError(f"matrix must be a 2-D sparse matrix or ndarray, got {type(matrix).__name__}")
    A = matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64)
    if A.size == 0:
        return 0.0
    G = A.T @ A if A.shape[1] <= A.shape[0] else A @ A.T
    top = eigvalsh(G, subset_by_index=[G.shape[0] - 1, G.shape[0] - 1])[0]
    return math.sqrt(max(float(top), 0.0))


@dataclass(frozen=True)
class SpectralNormEstimate:
    r"""Monte Carlo estimate of :math:`\mathbb{E}_\sigma \|A_\sigma\|_2`.

    Attributes
    ----------
    mean : float
        Average over the draws.
    std_error : float
        Sample standard deviation / sqrt(n_draws) (0 for a single draw).
    values : ndarray
        One spectral norm per draw.
    tol : float
        Relative solver tolerance: each value underestimates the draw's true
        norm by at most ``tol`` relative, so the mean is biased low by at most
        ``tol * mean`` on top of the Monte Carlo error.
    kind, shape, n_pairs, mean_degree, max_degree :
        Description of the pattern.
    n_matvec : int
        Total Gram products over all draws.
    seconds : float
        Wall time of the draws (pattern construction excluded).
    """

    mean: float
    std_error: float
    values: np.ndarray
    tol: float
    kind: str
    shape: tuple
    n_pairs: int
    mean_degree: float
    max_degree: int
    n_matvec: int = 0
    seconds: float = 0.0
    converged: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def n_draws(self):
        return int(self.values.shape[0])


def expected_spectral_norm(pairs, n_draws=10, seed=None, *, shape=None, kind=None, tol=1e-3,
                           dtype=np.float32, maxiter=1000, n_threads=1, verbose=0):
    r"""Monte Carlo estimate of :math:`\mathbb{E}_\sigma\|A_\sigma\|_2` for fixed pairs.

    Parameters
    ----------
    pairs : array-like of shape (m, 2), lgekit.Graph or PairPattern
        The sampled pairs.  A Graph uses its edges, homogeneous (one sign per
        undirected edge); an array is bipartite unless ``kind`` says otherwise.
    n_draws : int, default 10
        Independent sign vectors.
    seed : None, int or numpy.random.Generator
        Source of all signs.
    shape : tuple of int, optional
        Matrix shape for an array of pairs.
    kind : {"bipartite", "homogeneous"}, optional
        For an array of pairs (default "bipartite").
    tol : float, default 1e-3
        Relative accuracy of each draw's norm (see Notes).
    dtype : {float32, float64}, default float32
        Precision of the Lanczos vectors.  float32 is safe here: the entries
        are exactly +-1, products accumulate in double, and float32 rounding
        (1e-7 relative) is far below ``tol``.
    maxiter : int, default 1000
        Lanczos steps per draw before a :class:`SpectralNormConvergenceWarning`.
    n_threads : int, default 1
        OpenMP threads of the product kernel (results identical for any value).
    verbose : int, default 0
        Show a progress bar when > 0 and stderr is a terminal (or this is a notebook).

    Returns
    -------
    SpectralNormEstimate

    Notes
    -----
    *Why tol = 1e-3 is enough.*  :math:`\|A_\sigma\|_2` is a convex,
    1-Lipschitz (in Frobenius norm) function of the signs, so it concentrates
    sub-Gaussianly around its mean at an O(1) scale (Talagrand); in practice
    the spread between draws is ~1e-4 relative for the patterns studied here.
    The solver error is one-sided (Ritz values underestimate) and at most
    ``tol`` relative; 1e-3 keeps it below every effect this module is used to
    resolve (predictions that differ by 5 % or more, trends of several % over
    a decade of n) while halving the Lanczos steps compared to 1e-6.
    ``std_error`` reports the Monte Carlo part only; ``tol * mean`` bounds the
    solver part.

    *Warm starts.*  Draw k+1 starts from the absolute values of draw k's top
    singular vector plus noise: in the sparse regime the top vector is
    localised around the largest-degree vertices, whose positions do not
    depend on the signs.  This typically halves the steps for d <= 10.

    *Cost.*  O(n_draws * steps * nnz), steps ~ 20-80 for tol = 1e-3.

    Examples
    --------
    >>> est = expected_spectral_norm(erdos_renyi_pairs(2000, 8, seed=1), n_draws=3, seed=2)
    >>> 2 * 8 ** 0.5 * 0.8 < est.mean < 2 * 8 ** 0.5 * 1.3
    True
    """
    validate_params(_table("n_draws", "maxiter", "n_threads", "tol", "dtype", "kind", optional=("kind",)),
                    {"n_draws": n_draws, "maxiter": maxiter, "n_threads": n_threads, "tol": tol, "dtype": dtype,
                     "kind": kind}, "expected_spectral_norm")
    n_draws, maxiter, n_threads, tol, dt = int(n_draws), int(maxiter), int(n_threads), float(tol), np.dtype(dtype)
    rng = check_random_state(seed, "seed")
    pattern = _as_pattern(pairs, shape, kind)
    values = np.empty(n_draws)
    n_matvec = 0
    converged_all = True
    warm = None
    t0 = time.perf_counter()
    # a bar only: one estimate is short, and a sweep over patterns would fill a log with their lines
    bar = progress(n_draws, desc=f"E||A_sigma|| ({pattern.shape[0]}x{pattern.shape[1]})", unit="draw",
                   enabled=bool(verbose) and display_for(sys.stderr) != "lines")
    try:
        for i in range(n_draws):
            signs = pattern.draw_signs(rng)
            v0 = None
            if warm is not None:
                v0 = np.abs(warm) + dt.type(0.1) * np.abs(rng.standard_normal(warm.shape[0])).astype(dt) / math.sqrt(
                    warm.shape[0])
            value, info = pattern.spectral_norm(signs, tol=tol, dtype=dt, v0=v0, maxiter=maxiter, n_threads=n_threads)
            values[i] = value
            n_matvec += info["n_matvec"]
            warm = info["vector"]
            if not info["converged"]:
                converged_all = False
            logger.debug("draw %d: ||A|| = %.6g (%s, %d products, residual %.2e)", i, value, info["method"],
                         info["n_matvec"], info["residual"])
            bar.update()
    finally:
        bar.close()
    seconds = time.perf_counter() - t0
    if not converged_all:
        warnings.warn(
            f"Lanczos did not reach tol={tol} within maxiter={maxiter} steps for some draws; "
            "the estimate may be low: raise maxiter or tol",
            SpectralNormConvergenceWarning, stacklevel=2,
        )
    std_error = float(values.std(ddof=1) / math.sqrt(n_draws)) if n_draws > 1 else 0.0
    return SpectralNormEstimate(
        mean=float(values.mean()), std_error=std_error, values=values, tol=tol, kind=pattern.kind,
        shape=pattern.shape, n_pairs=pattern.n_pairs, mean_degree=pattern.mean_degree,
        max_degree=pattern.max_degree, n_matvec=n_matvec, seconds=seconds, converged=converged_all,
    )


# -- the theorem's pair model -------------------------------------------------------------------------
def _er_keys(n_pos, m, n, kind, rng):
    """m distinct uniform keys: bipartite row*n+col over n*n cells; homogeneous min*n+max, u != v."""
    have = 0
    keys = np.empty(0, dtype=np.int64)
    while have < m:
        need = m - have
        # draw ~ the expected number of collisions extra (need**2 / 2N, doubled)
        # so that another round is rarely needed
        k = need + int(need * (need / n_pos)) + 16
        if kind == "bipartite":
            new = rng.integers(0, n_pos, size=k, dtype=np.int64)
        else:
            u = rng.integers(0, n, size=k, dtype=np.int64)
            v = rng.integers(0, n, size=k, dtype=np.int64)
            keep = u != v
            u, v = u[keep], v[keep]
            new = np.minimum(u, v) * n + np.maximum(u, v)
        chunks = np.concatenate([keys, new]) if keys.size else new
        chunks.sort()
        uniq = np.empty(chunks.shape[0], dtype=bool)
        if chunks.size:
            uniq[0] = True
            np.not_equal(chunks[1:], chunks[:-1], out=uniq[1:])
        keys = chunks[uniq]
        have = keys.shape[0]
    if have > m:
        # drop a uniformly random subset of the surplus: the remaining m keys
        # are still a uniformly random m-subset
        drop = rng.choice(have, size=have - m, replace=False)
        mask = np.ones(have, dtype=bool)
        mask[drop] = False
        keys = keys[mask]
    return keys


def _er_rows_cols(n, d, kind, rng, caller):
    validate_params(_table("n", "d", "kind"), {"n": n, "d": d, "kind": kind}, caller)
    n = int(n)
    if kind == "bipartite":
        n_pos = n * n
        p = d / n
    else:
        n_pos = n * (n - 1) // 2
        p = d / (n - 1)
    if p > 1:
        raise ValueError(f"d={d} exceeds the largest possible average degree for n={n} "
                         f"({n if kind == 'bipartite' else n - 1})")
    if n > 3_037_000_499:
        raise ValueError(f"n={n} is too large (n*n must fit in int64)")
    if p > 0.25:
        # dense: Bernoulli per cell is cheaper and exact
        if kind == "bipartite":
            mask = rng.random((n, n)) < p
            rows, cols = np.nonzero(mask)
        else:
            iu = np.triu_indices(n, k=1)
            keep = rng.random(iu[0].shape[0]) < p
            rows, cols = iu[0][keep], iu[1][keep]
        return rows.astype(np.int64), cols.astype(np.int64)
    m = int(rng.binomial(n_pos, p))
    keys = _er_keys(n_pos, m, n, kind, rng)
    rows = keys // n
    cols = keys - rows * n
    return rows, cols


def erdos_renyi_pairs(n, d, kind="bipartite", seed=None):
    r"""Pairs of Theorem 1's Erdős–Rényi model at a given average degree.

    Parameters
    ----------
    n : int
        Vertices per side (bipartite: rows ``U`` and columns ``V``, both of
        size n) or in total (homogeneous).
    d : float
        Average degree.  Bipartite: each of the :math:`n^2` cells is a pair
        with probability :math:`p = d/n` (mean d pairs per row, m ~ nd).
        Homogeneous: each of the :math:`\binom n2` unordered pairs with
        probability :math:`p = d/(n-1)` (mean degree d, m ~ nd/2).
    kind : {"bipartite", "homogeneous"}, default "bipartite"
    seed : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (m, 2), int64
        Distinct pairs sorted lexicographically; homogeneous pairs have
        ``u < v``.

    Notes
    -----
    Exact :math:`G(n, p)` sampling: :math:`m \sim \mathrm{Binomial}(N, p)`,
    then a uniformly random m-subset of the N cells, drawn with replacement
    as 64-bit keys, de-duplicated by one sort and topped up (collisions are
    rare: about :math:`m^2/2N`).  O(m log m) time, vectorised: about 1 s for
    n = 1e6, d = 10 (1e7 pairs).

    Examples
    --------
    >>> pairs = erdos_renyi_pairs(1000, 5, seed=0)
    >>> pairs.shape[1], 4000 < pairs.shape[0] < 6000
    (2, True)
    """
    rng = check_random_state(seed, "seed")
    rows, cols = _er_rows_cols(n, d, kind, rng, "erdos_renyi_pairs")
    return np.column_stack([rows, cols]).astype(np.int64, copy=False)
