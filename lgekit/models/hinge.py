"""Hinge-loss linear graph embedding by dual coordinate descent (the paper's Algorithm 1)."""
import logging
import numbers
from collections import namedtuple

import numpy as np

from .._random import check_random_state, draw_seed
from .._simd import load_kernel
from . import _schedules
from ._base import BaseEmbedding

_dcd = load_kernel("lgekit.models._dcd")  # the AVX2+FMA build when the CPU has it

__all__ = ["HingeEmbedding", "solve_vertex_svm", "pair_csr", "PairCSR"]

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
    """Index pairs as validated for every lgekit function, minus self-pairs (no SVM term for them)."""
    from ..evaluation import _check_pairs as check_index_pairs

    arr = check_index_pairs(pairs, n_nodes, name)
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
    if n_nodes >= 2**31:
        raise ValueError(f"n_nodes: at most 2**31 - 1 vertices are supported (int32 partners), got {n_nodes}")
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
    # one int64 key (vertex, partner, sign) sorted stably == lexsort on the three, 3x faster
    key = (rows * n_nodes + cols) * 2 + (sign < 0)
    order = np.argsort(key, kind="stable")
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


def _epoch_rng(seed, epoch):
    """The epoch's generator: depends on (seed, epoch) only, so continuing a fit equals a longer fit."""
    return np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32, 0x4443, epoch]))


class HingeEmbedding(BaseEmbedding):
    r"""Linear graph embedding with the hinge loss, by dual coordinate descent.

    Minimises the paper's Section 4 objective

    .. math::

        L(X) = \lambda_+ \sum_{(u,v)\in E_+} w_{uv}\, h(x_u\cdot x_v)
             + \lambda_- \sum_{(u,v)\in E_-} h(-x_u\cdot x_v)
             + \frac{\lambda_r}{2} \sum_v \|x_v\|^2,
        \qquad h(z) = \max(0, 1 - z),

    by block coordinate descent over the vertices (Algorithm 1 of the
    paper).  With the other vectors fixed, the terms touching :math:`x_u`
    are a linear SVM without bias (divided by :math:`\lambda_r`):

    .. math::

        \min_x \tfrac12\|x\|^2 + \sum_j U_j\, h(s_j\, x\cdot x_j),
        \qquad U_j = \lambda_{s_j} w_j / \lambda_r,

    whose dual :math:`\min_\alpha \tfrac12\alpha^\top Q\alpha - e^\top\alpha`,
    :math:`0\le\alpha_j\le U_j`, :math:`Q_{jk} = s_j s_k\, x_j\cdot x_k`, is
    solved by LIBLINEAR's dual coordinate descent (Hsieh et al. 2008).  One
    dual variable per (vertex, incident pair) is kept across epochs; each
    visit of ``u`` rebuilds :math:`w = \sum_j \alpha_j s_j x_j` from the
    current neighbours, makes ``inner_passes`` passes over u's pairs in a
    random order with the clipped Newton step
    :math:`\alpha_j \leftarrow \min(\max(\alpha_j - G_j/Q_{jj}, 0), U_j)`,
    :math:`G_j = s_j w\cdot x_j - 1`, and sets :math:`x_u \leftarrow w`.

    Parameters
    ----------
    dim : int, default 100
        Embedding dimension D.
    lam_pos, lam_neg : float, default 1.0, 0.03
        Weights of the edge and negative-pair losses (>= 0).
    lam_r : float, default 3.0
        Norm regularisation, > 0 (the dual box is ``[0, lam / lam_r]``).
        Small values make the box huge: the paper reports very bad embeddings
        for :math:`\lambda_r \approx 0`, and the iteration may blow up, which
        raises :class:`~lgekit.models.DivergenceError`.
    epochs : int, default 20
        Passes over the vertices.
    inner_passes : int, default 1
        DCD passes over a vertex's pairs per visit.  1 is the paper's setting;
        with 1 pass the global objective is NOT monotone in the early epochs
        (on BlogCatalog it rises before it falls), because each visit solves
        the block only approximately, starting from duals that were optimal
        for the neighbours' previous vectors.  3 passes give a smooth
        decrease for about 2x the cost per epoch.
    init_scale : float, default 0.1
        Initial coordinates are uniform on ``[-init_scale, init_scale]``.
        Only the neighbours' initial vectors matter: a vertex's own vector is
        rebuilt from its (zero) duals at its first visit.
    tol : float, default 1e-3
        A visit stops before ``inner_passes`` passes once a pass sees no
        projected gradient larger than ``tol`` (LIBLINEAR's stopping rule on
        the block).  No effect with ``inner_passes=1``.
    dtype : {"float32", "float64"}, default "float32"
        Precision of the embedding (the duals are always float64).
    n_threads : int, default 1
        OpenMP threads; at most 64 x ``os.cpu_count()``
        (:func:`lgekit.models.max_n_threads`).
    schedule : {"deterministic", "hogwild"}, default "deterministic"
        "deterministic": the vertices are greedily coloured once (largest
        degree first, ties broken by the seed) so that no two vertices of a
        colour share a pair; each epoch visits the colour classes in a random
        order and the vertices of a class in parallel.  Results are
        bit-identical for any ``n_threads``.  "hogwild": one random order,
        vertices split across threads without locks (a vertex may read a
        neighbour's vector while it is written); with ``n_threads=1`` this is
        exactly the paper's sequential algorithm and reproducible, with more
        threads it is not reproducible.  The deterministic schedule waits at
        a barrier after each colour class (about 50 on BlogCatalog): on a
        machine whose cores are busy with other work, a descheduled thread
        stalls the others and spinning threads steal CPU, which can make two
        threads slower than one; ``OMP_WAIT_POLICY=passive`` limits the damage.
    random_state : None, int or numpy.random.Generator
        Seeds the initialisation, the negatives drawn for a graph, the
        colouring and every epoch's orders.
    verbose : int, default 0
        1: progress bar on a terminal; 2: also log every epoch.
    warm_start : bool, default False
        When True, ``fit`` on an already fitted model continues from its
        embedding (and from its duals if the data is the same object).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_nodes, dim)
    history_ : list of dict
        Per epoch: "epoch", "seconds", "objective", "loss_pos", "loss_neg",
        "reg", "mean_norm", "diverged", and the solver's certificates:
        "n_alpha_zero", "n_alpha_free", "n_alpha_bound" (duals at 0, strictly
        inside, at U: the last two are the support vectors), "duality_gap"
        (mean over the vertices with pairs of the block SVM's duality gap
        ``P(x_u) - D(alpha_u)`` when it was solved, in the SVM's units, i.e.
        of ``L / lam_r``), "max_violation" (largest |projected gradient| of
        the dual at those moments; both are 0 iff every block was solved
        exactly), plus what callbacks add.
    dual_coef_ : ndarray of float64
        The duals, aligned with :attr:`pair_csr_`.
    pair_csr_ : PairCSR
        The training pairs seen from each vertex (see :func:`pair_csr`).
    n_iter_ : int
        Epochs run.

    Notes
    -----
    Cost per epoch: each pair occurrence is an entry at both of its ends;
    an entry costs one axpy to build w (skipped when its dual is 0), one dot
    and at most one axpy per pass, and one dot for the certificates, so an
    epoch takes about :math:`(4 + 4\,\mathrm{inner\_passes})\, D` multiply-adds
    per pair, plus one dot per pair for the objective: :math:`O(|E_\pm| D)`.
    Memory: per entry a partner (int32), sign (int8), loss weight, bound and
    dual (float64), i.e. 58 bytes per pair, next to the :math:`nD` embedding.

    A pair listed several times (a repeated negative, or an edge also drawn as
    a negative) is several terms of L and gets one dual per occurrence.

    Divergence: only non-finite values and a mean norm above
    ``divergence_max_mean_norm`` (1e8) count; the objective and norm-growth
    checks of :class:`~lgekit.models.BaseEmbedding` are off
    (``divergence_objective_factor = divergence_norm_growth = None``),
    because DCD's first epochs may raise the objective by orders of
    magnitude and recover (email-eu-core, D = 100, :math:`\lambda_r = 0.1`:
    x80,000 by epoch 4, below its start by epoch 9).

    References
    ----------
    .. [1] T. Gao, X. Zhang, R. Peng, A. Parameswaran, "The Importance of Norm
       Regularization in Linear Graph Embedding: Theoretical Analysis and
       Empirical Demonstration", ICLR 2019, Section 4 and Algorithm 1.
    .. [2] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan,
       "A Dual Coordinate Descent Method for Large-scale Linear SVM",
       ICML 2008, Algorithm 1.

    Examples
    --------
    >>> import networkx as nx
    >>> from lgekit import HingeEmbedding
    >>> model = HingeEmbedding(dim=8, lam_r=1.0, epochs=5, random_state=0)
    >>> X = model.fit_transform(nx.karate_club_graph())
    >>> X.shape
    (34, 8)
    >>> bool(model.history_[-1]["duality_gap"] >= 0)
    True
    """

    _divergence_advice = ("increase lam_r: the dual box [0, lam / lam_r] grows as lam_r -> 0 and the "
                          "block updates can blow up (the paper: embeddings are very bad for lam_r near 0)")
    # DCD's early epochs may raise the objective by orders of magnitude and recover (email-eu-core, D = 100,
    # lam_r = 0.1: x80,000 with norms x10, x5, x2 in three epochs, back below the start by epoch 9), so only
    # non-finite values and a mean norm above divergence_max_mean_norm count as divergence
    divergence_objective_factor = None
    divergence_norm_growth = None
    divergence_norm_growth_alone = None
    # pair_csr's peak per pair (two entries, each: keys, order and sorted copies ~70 B, then partner, sign,
    # weight, bound and dual 29 B) plus the objective's pair list (24 B)
    _bytes_per_pair = 216

    def __init__(self, dim=100, *, lam_pos=1.0, lam_neg=0.03, lam_r=3.0, epochs=20, inner_passes=1,
                 init_scale=0.1, tol=1e-3, dtype="float32", n_threads=1, schedule="deterministic",
                 random_state=None, verbose=0, warm_start=False):
        self.dim = dim
        self.lam_pos = lam_pos
        self.lam_neg = lam_neg
        self.lam_r = lam_r
        self.epochs = epochs
        self.inner_passes = inner_passes
        self.init_scale = init_scale
        self.tol = tol
        self.dtype = dtype
        self.n_threads = n_threads
        self.schedule = schedule
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    # ------------------------------------------------------------------ hooks
    def _check_params(self):
        if self.lam_r <= 0:
            raise ValueError(f"lam_r must be > 0 for HingeEmbedding (the dual box is [0, lam / lam_r]), "
                             f"got {self.lam_r!r}")
        ip = self.inner_passes
        if isinstance(ip, bool) or not isinstance(ip, numbers.Integral):
            raise TypeError(f"inner_passes must be an int >= 1, got {type(ip).__name__}: {ip!r}")
        if ip < 1:
            raise ValueError(f"inner_passes must be an int >= 1, got {ip!r}")
        if isinstance(self.tol, bool) or not isinstance(self.tol, numbers.Real):
            raise TypeError(f"tol must be a real number, got {type(self.tol).__name__}: {self.tol!r}")
        if not np.isfinite(self.tol) or self.tol < 0:
            raise ValueError(f"tol must be a finite number >= 0, got {self.tol!r}")

    def _init_solver(self, data, seed):
        key = (float(self.lam_pos), float(self.lam_neg), float(self.lam_r))
        same_data = getattr(self, "_solver_data", None) is data
        if not (same_data and getattr(self, "_solver_key", None) == key):
            csr = pair_csr(data.n_nodes, data.positives, data.negatives,
                           positive_weights=data.pos_weights, lam_pos=key[0], lam_neg=key[1], lam_r=key[2])
            restored = getattr(self, "_restored_alpha", None)
            old = getattr(self, "dual_coef_", None)
            if restored is not None and restored.shape == csr.nbr.shape:
                alpha = restored                      # a loaded model continues where it stopped
            elif same_data and old is not None and old.shape == csr.nbr.shape:
                alpha = old                           # same pairs, other lambdas: clip into the new box
            else:
                alpha = np.zeros(len(csr.nbr))
            self.pair_csr_ = csr
            self.dual_coef_ = np.ascontiguousarray(np.clip(alpha, 0.0, csr.upper), dtype=np.float64)
            self._restored_alpha = None
            self._obj_pairs = np.ascontiguousarray(np.vstack([data.positives, data.negatives]), dtype=np.int64)
            self._obj_coef = np.concatenate([key[0] * data.pos_weights, np.full(len(data.negatives), -key[1])])
            self._has_pairs = np.diff(csr.indptr) > 0
            self._colors = None
            self._solver_data = data
            self._solver_key = key
        if self.schedule == "deterministic" and self._colors is None:
            rng = np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32, 0x636F6C]))
            deg = np.diff(self.pair_csr_.indptr)
            tie = rng.permutation(data.n_nodes)
            visit = tie[np.argsort(-deg[tie], kind="stable")].astype(np.int64)
            self._colors = _schedules.greedy_coloring(self.pair_csr_.indptr, self.pair_csr_.nbr, visit)
            self._n_colors = int(self._colors.max()) + 1 if data.n_nodes else 0
            logger.debug("deterministic schedule: %d colour classes", self._n_colors)
        self._seed = int(seed)

    def _schedule(self, rng, n):
        perm = rng.permutation(n)
        if self.schedule == "hogwild":
            return perm.astype(np.int32), np.array([0, n], dtype=np.int64)
        rank = rng.permutation(self._n_colors)
        r = rank[self._colors]
        order = perm[np.argsort(r[perm], kind="stable")]
        counts = np.bincount(r, minlength=self._n_colors)
        block_ptr = np.zeros(self._n_colors + 1, dtype=np.int64)
        np.cumsum(counts, out=block_ptr[1:])
        return order.astype(np.int32), block_ptr

    def _run_epoch(self, epoch):
        X = self.embedding_
        csr = self.pair_csr_
        n = X.shape[0]
        rng = _epoch_rng(self._seed, epoch)
        order, block_ptr = self._schedule(rng, n)
        kseed = draw_seed(rng)
        sqnorm = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        gap = np.zeros(n)
        viol = np.zeros(n)
        bad = _dcd.dcd_epoch(X, sqnorm, csr.indptr, csr.nbr, csr.sign, csr.upper, self.dual_coef_,
                             order, block_ptr, int(self.inner_passes), float(self.tol), kseed,
                             int(self.n_threads), True, gap, viol)
        alpha, upper = self.dual_coef_, csr.upper
        n_zero = int(np.count_nonzero(alpha == 0))
        n_bound = int(np.count_nonzero((alpha == upper) & (upper > 0)))
        record = {
            "n_alpha_zero": n_zero,
            "n_alpha_free": int(len(alpha) - n_zero - n_bound),
            "n_alpha_bound": n_bound,
        }
        if bad >= 0:
            record.update(objective=float("nan"), loss_pos=float("nan"), loss_neg=float("nan"),
                          reg=float("nan"), mean_norm=float("nan"), duality_gap=float("nan"),
                          max_violation=float("nan"), diverged=True)
            logger.warning("epoch %d: vertex %d got a non-finite vector", epoch, bad)
            return record
        loss_pos, loss_neg = _dcd.hinge_losses(X, self._obj_pairs, self._obj_coef, int(self.n_threads))
        reg = 0.5 * float(self.lam_r) * float(sqnorm.sum())
        has = self._has_pairs
        record.update(
            objective=loss_pos + loss_neg + reg,
            loss_pos=loss_pos,
            loss_neg=loss_neg,
            reg=reg,
            mean_norm=float(np.mean(np.sqrt(sqnorm))),
            duality_gap=float(gap[has].mean()) if has.any() else 0.0,
            max_violation=float(viol.max()) if n else 0.0,
        )
        return record

    def _solver_divergence_advice(self, record):
        return f"lam_r={float(self.lam_r):g} is too small: {self._divergence_advice}", "lam_r"

    def _solver_state_for_save(self):
        return {"alpha": self.dual_coef_} if getattr(self, "dual_coef_", None) is not None else {}

    def _check_solver_state(self, arrays, n_nodes):
        unexpected = sorted(set(arrays) - {"alpha"})
        if unexpected:
            raise ValueError(f"unexpected solver arrays {unexpected} for a HingeEmbedding (only 'alpha')")
        if "alpha" in arrays:
            alpha = arrays["alpha"]
            if alpha.ndim != 1 or alpha.dtype != np.float64:
                raise ValueError(f"the duals 'alpha' must be a 1-D float64 array, got shape {alpha.shape} "
                                 f"of {alpha.dtype}")
            if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
                raise ValueError("the duals 'alpha' must be finite and >= 0")

    def _set_solver_state(self, arrays):
        if "alpha" in arrays and getattr(self, "dual_coef_", None) is not None:
            self.dual_coef_[...] = arrays["alpha"]     # same pairs: the duals of the restored epoch

    def _restore_solver_state(self, arrays):
        if "alpha" in arrays:
            self._restored_alpha = np.asarray(arrays["alpha"], dtype=np.float64)
            self.dual_coef_ = self._restored_alpha
