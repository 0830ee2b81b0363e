# cython: language_level=3
"""Dual coordinate descent for the hinge-loss linear graph embedding.

The model (Gao et al., ICLR 2019, Section 4) minimises

    L(X) = lam_pos * sum_{(u,v) in E+} w_uv h(x_u . x_v)
         + lam_neg * sum_{(u,v) in E-}      h(-x_u . x_v)
         + lam_r / 2 * sum_v ||x_v||^2,                      h(z) = max(0, 1 - z)

by block coordinate descent over the vertices (the paper's Algorithm 1).  With
every other vector fixed, the terms of L touching x_u are, divided by lam_r,
a soft-margin linear SVM without bias whose "training points" are u's pair
partners x_j with labels s_j (+1 for an edge, -1 for a negative pair):

    primal   min_w  P(w) = 1/2 ||w||^2 + sum_j U_j max(0, 1 - s_j w . x_j),
             U_j = c_j / lam_r,   c_j = lam_pos * w_uv (s_j = +1)  or  lam_neg (s_j = -1)

    dual     min_a  f(a) = 1/2 a^T Q a - e^T a,   Q_jk = s_j s_k x_j . x_k
             subject to 0 <= a_j <= U_j               (the box constraints)

    and w(a) = sum_j a_j s_j x_j,   D(a) = -f(a) = e^T a - 1/2 ||w(a)||^2.

The block solver is LIBLINEAR's ``solve_l2r_l1l2_svc`` for the L1 (hinge)
loss, i.e. Hsieh, Chang, Lin, Keerthi & Sundararajan, "A Dual Coordinate
Descent Method for Large-scale Linear SVM", ICML 2008, Algorithm 1, without
shrinking:

    w <- sum_j a_j s_j x_j                 (stored duals, CURRENT neighbours)
    repeat inner_passes times (or until max |PG| <= tol):
        shuffle: permute the coordinates (LIBLINEAR's forward Fisher-Yates);
        else: Algorithm 1's listing of D (+1 entries, then -1 entries)
        for j in that order:
            G  = s_j w . x_j - 1                                (gradient of f)
            PG = min(G, 0) if a_j = 0, max(G, 0) if a_j = U_j, else G
            if |PG| > 1e-12:
                a_j <- min(max(a_j - G / Q_jj, 0), U_j),  Q_jj = ||x_j||^2
                w   <- w + (a_j_new - a_j_old) s_j x_j
    x_u <- w

The coordinate order.  Algorithm 1 runs over the set D of line 2 without
saying in which order; with one pass per visit, from duals fitted to the
neighbours' previous vectors, the order decides whether the iteration
settles at moderate lam_r (benchmarks/README.md, "DCD inner order"): hence
the choice, ``shuffle``, and the safeguard below.

The safeguard (``monotone_passes >= 0``; not in Algorithm 1).  The terms of
L that involve x_u are lam_r P(x_u), so a visit lowers L iff P(w) <= P(x_u)
for the stored x_u.  When w is uphill, P(w) - P(x_u) > UPHILL_RTOL P(x_u), up
to ``monotone_passes`` further passes run while max |PG| > tol, and if w is
still uphill x_u keeps its vector (the duals keep their progress).  Then no
visit raises L by more than round-off: the sequential iteration cannot
diverge (sum_v ||x_v||^2 <= 2 L(X_0) / lam_r).  With hogwild threads a
neighbour may change during the check, so the bound holds only for the
sequential and colour-class schedules.  The slack UPHILL_RTOL (1e-9) makes
a tie a tie: at a block's optimum the duals, not unique, may move while
w(alpha) = x_u, and a strict ">" would let round-off decide the branch.

One dual variable per (vertex, incident pair): the duals live in an array
aligned with the "pair CSR" (for each vertex u, its entries: partner, sign,
U) and are kept across epochs, so each visit is a warm start.  A pair that
occurs several times (twice as a negative, or as an edge and a negative) has
one entry per occurrence, exactly as the sum in L counts it.

Q_jj = 0 (a partner whose vector is exactly zero): LIBLINEAR would divide by
zero.  Then G = -1 and the coordinate's dual objective is -a_j, whose exact
minimiser over [0, U_j] is U_j; we set a_j = U_j and leave w alone (the
partner contributes nothing to w), which keeps the duality gap exact.

Certificates (computed after the passes for the vertices the caller asks
about: all, a record's sample, or none; for the vector actually stored in
x_u: w, or the kept vector x):

    gap_u  = P(x_u) - D(a),  D(a) = sum_j a_j - 1/2 ||w||^2           (>= 0)
    viol_u = max_j |PG_j| at w                             (0 iff KKT hold)

both in the units of the per-vertex SVM (i.e. of L / lam_r).  Without the
safeguard they cost a dot product per partner; the safeguard needs P(w)
anyway (and reads each partner row once for P(w) and P(x_u)).

The kernel reads its arguments into three C structs once per epoch (gensim's config struct): the
``PairCSR`` with its duals, the ``Block`` of one vertex (its slice of the CSR: the SVM's training points),
and the ``VisitConfig`` every visit reads (the ``VisitRule``, the seed, where the certificates go).

Schedules.  ``order`` lists the vertices of one epoch, cut into blocks by
``block_ptr``; blocks run one after the other and the vertices of a block run
in parallel (OpenMP, dynamic scheduling).  The estimator passes either one
block (the paper's sequential random order; with several threads that is
Hogwild: a vertex may read a neighbour's vector while it is being written),
or the colour classes of the pair graph (no two vertices of a block share a
pair, so no vertex reads what another writes: bit-identical results for any
thread count).  The randomness of vertex u's inner permutation comes from
stream ``u`` of the epoch's seed, never from the thread that runs it.
"""
import numpy as np
from collections import namedtuple

from cython.parallel cimport prange, threadid
from libc.math cimport fabs, isfinite
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t

from lgekit._common cimport floating, dot, axpy, rng_stream, rng_below
from lgekit.models._dcd_block cimport PairCSR, Block, block_of, build_w, projected_gradient, read_pair_csr

__all__ = ["dcd_epoch", "solve_vertex", "UPHILL_RTOL", "VisitRule", "Certificates"]

# the safeguard's slack: w is uphill of x_u when P(w) - P(x_u) > _UPHILL_RTOL * P(x_u) (lgekit.reference's
# UPHILL_RTOL, the same rule; P >= 0)
cdef double _UPHILL_RTOL = 1e-9
UPHILL_RTOL = _UPHILL_RTOL

VisitRule = namedtuple("VisitRule", ["inner_passes", "tol", "shuffle", "monotone_passes"], defaults=(False, -1))
VisitRule.__doc__ = """How ``dcd_epoch`` solves a vertex's block: at most ``inner_passes`` DCD passes, stopping
after a pass whose largest |projected gradient| is <= ``tol``; ``shuffle``: a fresh permutation of the
coordinates before every pass (LIBLINEAR), else Algorithm 1's listing; ``monotone_passes`` >= 0: the
safeguard with at most that many further passes, -1: off (Algorithm 1 as printed)."""

Certificates = namedtuple("Certificates", ["gap", "viol", "certify"], defaults=(None,))
Certificates.__doc__ = """Where ``dcd_epoch`` stores the certificates of the vertices it visits: ``gap[u]`` and
``viol[u]`` (float64, one entry per vertex), for the vertices u with ``certify[u]`` (int8, one per vertex;
None: every vertex).  The other entries are left as they were."""


cdef inline bint _uphill(double p_new, double p_old) noexcept nogil:
    """Whether the block primal value p_new is above p_old by more than round-off (the safeguard's test)."""
    return p_new - p_old > _UPHILL_RTOL * p_old


# ---------------------------------------------------------------------------
# The block solver (one vertex).  Everything takes raw pointers so that the
# epoch and the stand-alone ``solve_vertex`` run the very same code.
# ---------------------------------------------------------------------------

cdef struct VisitConfig:
    # What every visit of an epoch reads besides its vertex (gensim's config struct).
    int inner_passes            # the VisitRule
    double tol
    bint shuffle
    int monotone_passes
    uint64_t seed               # vertex u's permutations come from stream u of it
    bint certify                # store the certificates of the visited vertices (with certify_mask[u], if given)
    const int8_t* certify_mask  # NULL: every vertex
    double* gap
    double* viol
    int8_t* kept                # the safeguard's verdict per vertex (1: kept its vector)


cdef void _first_order(Py_ssize_t* perm, const Block* blk, bint shuffle) noexcept nogil:
    """The coordinate order a visit starts from.

    ``shuffle`` (LIBLINEAR): the identity, which every pass then re-shuffles in
    place.  Otherwise Algorithm 1's listing of D, kept for every pass: the
    edges N+(u) first, then the negatives N-(u), each in entry order.
    """
    cdef const int8_t* sign = blk.sign
    cdef Py_ssize_t i, j = 0, deg = blk.deg
    if shuffle:
        for i in range(deg):
            perm[i] = i
        return
    for i in range(deg):
        if sign[i] > 0:
            perm[j] = i
            j += 1
    for i in range(deg):
        if sign[i] <= 0:
            perm[j] = i
            j += 1


cdef int _dcd_passes(floating* w, const floating* X, Py_ssize_t D, const double* sqnorm, const Block* blk,
                     int max_passes, const VisitConfig* cfg, uint64_t* rng, Py_ssize_t* perm) noexcept nogil:
    """At most ``max_passes`` DCD passes over the block's coordinates; returns the passes run.

    ``perm`` holds the coordinate order (from ``_first_order``); with
    ``cfg.shuffle`` it is re-permuted in place before every pass (LIBLINEAR's
    forward Fisher-Yates), else every pass follows it as it is.  ``sqnorm`` is
    indexed like X (``sqnorm[nbr_j] = ||x_{nbr_j}||^2``).  Stops after a pass
    whose largest |projected gradient| (measured when each coordinate was
    visited, as LIBLINEAR does) is <= ``cfg.tol``.
    """
    cdef const int32_t* nbr = blk.nbr
    cdef const int8_t* sign = blk.sign
    cdef const double* upper = blk.upper
    cdef double* alpha = blk.alpha
    cdef Py_ssize_t deg = blk.deg, i, j, k, tmp
    cdef bint shuffle = cfg.shuffle
    cdef double tol = cfg.tol
    cdef int p
    cdef double G, PG, Q, a_old, a_new, viol, U
    cdef const floating* xv
    for p in range(max_passes):
        if shuffle:
            for i in range(deg):
                j = i + <Py_ssize_t>rng_below(rng, <uint64_t>(deg - i))
                tmp = perm[i]
                perm[i] = perm[j]
                perm[j] = tmp
        viol = 0.0
        for i in range(deg):
            k = perm[i]
            xv = X + <Py_ssize_t>nbr[k] * D
            G = sign[k] * <double>dot(w, xv, D) - 1.0
            a_old = alpha[k]
            U = upper[k]
            PG = projected_gradient(G, a_old, U)
            if fabs(PG) > viol:
                viol = fabs(PG)
            if fabs(PG) > 1e-12:
                Q = sqnorm[nbr[k]]
                if Q > 0:
                    a_new = a_old - G / Q
                    if a_new < 0:
                        a_new = 0.0
                    elif a_new > U:
                        a_new = U
                    alpha[k] = a_new
                    if a_new != a_old:
                        axpy(<floating>((a_new - a_old) * sign[k]), xv, w, D)
                else:
                    alpha[k] = U
        if viol <= tol:
            return p + 1
    return max_passes


cdef double _certificates(const floating* w, const floating* X, Py_ssize_t D, const Block* blk, double* dual,
                          double* viol) noexcept nogil:
    """Returns P(w); stores the dual D(alpha) = sum_j alpha_j - 1/2 ||w||^2 (w = w(alpha)) and the
    largest |projected gradient| at w."""
    cdef const int32_t* nbr = blk.nbr
    cdef const int8_t* sign = blk.sign
    cdef const double* upper = blk.upper
    cdef const double* alpha = blk.alpha
    cdef Py_ssize_t k
    cdef double m, G, PG, ww, hinge = 0.0, asum = 0.0, v = 0.0
    ww = dot(w, w, D)
    for k in range(blk.deg):
        m = sign[k] * <double>dot(w, X + <Py_ssize_t>nbr[k] * D, D)
        G = m - 1.0
        if G < 0:
            hinge += upper[k] * (-G)
        asum += alpha[k]
        PG = fabs(projected_gradient(G, alpha[k], upper[k]))
        if PG > v:
            v = PG
    dual[0] = asum - 0.5 * ww
    viol[0] = v
    return 0.5 * ww + hinge


cdef double _both_primals(const floating* w, const floating* x, const floating* X, Py_ssize_t D, const Block* blk,
                          double* p_x, double* dual, double* viol) noexcept nogil:
    """``_certificates`` at w (returned, with dual and viol) and the block primal P(x) at x (in p_x), each
    partner row read once for both."""
    cdef const int32_t* nbr = blk.nbr
    cdef const int8_t* sign = blk.sign
    cdef const double* upper = blk.upper
    cdef const double* alpha = blk.alpha
    cdef Py_ssize_t k
    cdef const floating* xv
    cdef double mw, mx, G, PG, ww, hinge = 0.0, hx = 0.0, asum = 0.0, v = 0.0
    ww = dot(w, w, D)
    for k in range(blk.deg):
        xv = X + <Py_ssize_t>nbr[k] * D
        mw = sign[k] * <double>dot(w, xv, D)
        mx = sign[k] * <double>dot(x, xv, D)
        G = mw - 1.0
        if G < 0:
            hinge += upper[k] * (-G)
        if mx < 1.0:
            hx += upper[k] * (1.0 - mx)
        asum += alpha[k]
        PG = fabs(projected_gradient(G, alpha[k], upper[k]))
        if PG > v:
            v = PG
    dual[0] = asum - 0.5 * ww
    viol[0] = v
    p_x[0] = 0.5 * <double>dot(x, x, D) + hx
    return 0.5 * ww + hinge


cdef inline int _visit(Py_ssize_t u, floating* w, Py_ssize_t* perm, floating* X, double* sqnorm, Py_ssize_t D,
                       const PairCSR* csr, const VisitConfig* cfg) noexcept nogil:
    """One block update x_u <- argmin (approximately); returns 0, or 1 if x_u is not finite.

    ``cfg.certify``: store the certificates of the vector the visit leaves in ``cfg.gap[u]`` and
    ``cfg.viol[u]`` (for the vertices of ``cfg.certify_mask``, when given).  They cost a pass over the
    partners (a dot product each) unless the safeguard, which needs P(w) anyway, is on.

    ``cfg.monotone_passes >= 0`` turns the safeguard on: when w(alpha) is uphill
    of the stored x_u in the block's primal (``_uphill``), up to that many
    further passes run (while max |PG| > tol); if w is still uphill, x_u keeps
    its vector (``cfg.kept[u] = 1``; the duals keep their progress).  No visit then
    raises L, which is lam_r P(x_u) plus terms free of x_u, beyond round-off.
    """
    cdef Block blk = block_of(csr, u)
    cdef Py_ssize_t i
    cdef uint64_t rng = rng_stream(cfg.seed, <uint64_t>u)
    cdef int extra = 0
    cdef bint monotone = cfg.monotone_passes >= 0
    cdef bint certify = cfg.certify and (cfg.certify_mask == NULL or cfg.certify_mask[u] != 0)
    cdef bint keep = False
    cdef double ww, p_new = 0.0, p_old = 0.0, dual = 0.0, v = 0.0
    build_w(w, X, D, &blk)
    if blk.deg > 0:
        _first_order(perm, &blk, cfg.shuffle)
        _dcd_passes(w, X, D, sqnorm, &blk, cfg.inner_passes, cfg, &rng, perm)
    if monotone:
        p_new = _both_primals(w, X + u * D, X, D, &blk, &p_old, &dual, &v)
    elif certify:
        p_new = _certificates(w, X, D, &blk, &dual, &v)
    if monotone:
        while _uphill(p_new, p_old) and extra < cfg.monotone_passes and v > cfg.tol:
            # the passes from duals fitted to the neighbours' previous vectors went uphill: go
            # on solving the block (its optimum is no worse than x_u)
            _dcd_passes(w, X, D, sqnorm, &blk, 1, cfg, &rng, perm)
            p_new = _certificates(w, X, D, &blk, &dual, &v)
            extra += 1
        keep = _uphill(p_new, p_old)
        cfg.kept[u] = keep
    if certify:
        # weak duality holds for any primal point: certify the one stored
        cfg.gap[u] = (p_old if keep else p_new) - dual
        cfg.viol[u] = v
    if keep:
        return 0
    ww = dot(w, w, D)
    for i in range(D):
        X[u * D + i] = w[i]
    sqnorm[u] = ww
    return 0 if isfinite(ww) else 1


# ---------------------------------------------------------------------------
# Python entry points
# ---------------------------------------------------------------------------

def dcd_epoch(floating[:, ::1] X, double[::1] sqnorm, csr, double[::1] alpha, const int32_t[::1] order,
              const int64_t[::1] block_ptr, rule, uint64_t seed, int n_threads, int8_t[::1] kept=None,
              certificates=None):
    """Run one DCD epoch in place (X, sqnorm, alpha; the certificates and ``kept`` when given).

    Parameters
    ----------
    X : (n, D) float32/float64, C-contiguous
        The embedding, updated in place.
    sqnorm : (n,) float64
        ``||x_v||^2`` of every row of X on entry; kept up to date.
    csr : PairCSR
        The pairs seen from each vertex (``lgekit.models.PairCSR``; its
        ``indptr``, ``nbr``, ``sign`` and ``upper`` are read): vertex u's
        entries are ``indptr[u]:indptr[u+1]``, each a partner, a label
        (+1 / -1) and a box bound (U = c / lam_r).
    alpha : float64, aligned with ``csr.nbr``
        Dual variables, in [0, upper]; updated in place (warm start).
    order, block_ptr
        The vertices of this epoch in visiting order, cut into blocks that
        run one after the other; vertices of one block run in parallel.
    rule : VisitRule
        How a visit solves its block: ``inner_passes``, ``tol``, ``shuffle``
        (a fresh permutation of u's entries before every pass, LIBLINEAR;
        False: Algorithm 1's listing, the +1 entries then the -1 entries) and
        ``monotone_passes`` (>= 0: the safeguard, with at most that many
        further passes per visit; -1: off, Algorithm 1 as printed).
    seed : uint64
        Vertex u draws its permutations from stream u of this seed.
    n_threads : int
    kept : (n,) int8, needed with the safeguard
        ``kept[u]`` is set to 1 when u kept its vector, 0 when it took w.
    certificates : Certificates, optional
        Compute the certificates ``gap[u]`` and ``viol[u]`` of the visited u
        (of those with ``certify[u]``, when given); other entries are left as
        they were.  Without the safeguard they cost a dot product per pair at
        each certified visit; with it, none.  None: no certificates.

    Returns
    -------
    bad_vertex : int
        -1, or a vertex whose new vector was not finite (the epoch stops at
        the end of that block).
    """
    cdef Py_ssize_t n = X.shape[0], D = X.shape[1]
    cdef Py_ssize_t n_blocks = block_ptr.shape[0] - 1
    cdef Py_ssize_t max_deg = 0, b, t, i, u, lo, hi
    cdef int64_t bad = -1
    cdef int64_t* bad_vertex = &bad
    cdef int nt = max(1, n_threads)
    cdef PairCSR pairs
    cdef VisitConfig cfg
    cdef double[::1] gap, viol
    cdef const int8_t[::1] certify
    cdef int8_t dummy_kept[1]
    if sqnorm.shape[0] != n:
        raise ValueError(f"dcd_epoch: sqnorm needs one entry per vertex ({n}), got {sqnorm.shape[0]}")
    read_pair_csr(csr, alpha, n, &pairs)
    if n_blocks < 0 or block_ptr[n_blocks] > order.shape[0]:
        raise ValueError("dcd_epoch: block_ptr does not fit order")
    cfg.inner_passes = rule.inner_passes
    cfg.tol = rule.tol
    cfg.shuffle = rule.shuffle
    cfg.monotone_passes = rule.monotone_passes
    cfg.seed = seed
    cfg.certify = certificates is not None
    cfg.certify_mask = NULL
    cfg.gap = cfg.viol = NULL
    if cfg.certify:
        gap, viol = certificates.gap, certificates.viol
        if gap.shape[0] != n or viol.shape[0] != n:
            raise ValueError("dcd_epoch: certificates.gap and .viol must have one entry per vertex")
        if certificates.certify is not None:
            certify = certificates.certify
            if certify.shape[0] != n:
                raise ValueError("dcd_epoch: certificates.certify must have one entry per vertex")
            cfg.certify_mask = &certify[0] if n > 0 else NULL
        cfg.gap = &gap[0] if n > 0 else NULL
        cfg.viol = &viol[0] if n > 0 else NULL
    if cfg.monotone_passes >= 0 and (kept is None or kept.shape[0] != n):
        raise ValueError("dcd_epoch: the safeguard (monotone_passes >= 0) needs kept, one entry per vertex")
    cfg.kept = &kept[0] if cfg.monotone_passes >= 0 and n > 0 else dummy_kept
    if n == 0 or D == 0:
        return -1
    for u in range(n):
        if pairs.indptr[u + 1] - pairs.indptr[u] > max_deg:
            max_deg = pairs.indptr[u + 1] - pairs.indptr[u]
    dtype = np.float32 if floating is float else np.float64
    # one row a thread, each wider than needed by a cache line: a thread's w (written at every
    # coordinate step) and its coordinate order never share a line with another thread's
    cdef floating[:, ::1] w_rows = np.empty((nt, max(D, 1) + 64 // sizeof(floating)), dtype=dtype)
    cdef Py_ssize_t[:, ::1] perm_rows = np.empty((nt, max(max_deg, 1) + 64 // sizeof(Py_ssize_t)), dtype=np.intp)
    cdef floating* rows = &X[0, 0]
    with nogil:
        for b in range(n_blocks):
            if nt == 1 or block_ptr[b + 1] - block_ptr[b] == 1:
                for i in range(block_ptr[b], block_ptr[b + 1]):
                    u = order[i]
                    if _visit(u, &w_rows[0, 0], &perm_rows[0, 0], rows, &sqnorm[0], D, &pairs, &cfg):
                        bad_vertex[0] = u
            else:
                lo = block_ptr[b]
                hi = block_ptr[b + 1]
                for i in prange(lo, hi, num_threads=nt, schedule="dynamic", chunksize=4):
                    t = threadid()
                    if _visit(order[i], &w_rows[t, 0], &perm_rows[t, 0], rows, &sqnorm[0], D, &pairs, &cfg):
                        bad_vertex[0] = order[i]
            if bad_vertex[0] >= 0:
                break
    return int(bad)


def solve_vertex(floating[:, ::1] neighbours, const int8_t[::1] sign, const double[::1] upper,
                 double[::1] alpha, int max_passes, double tol, uint64_t seed, bint shuffle=True):
    """Solve one vertex's SVM sub-problem with the epoch's block solver.

    ``neighbours`` (k, D) are the partners' vectors, ``sign`` their labels,
    ``upper`` the box bounds; ``alpha`` (warm start) is updated in place.
    Returns ``(w, n_passes, gap, viol)``; with ``shuffle`` (the default) the
    permutations come from stream 0 of ``seed``, else every pass takes
    Algorithm 1's listing.
    """
    cdef Py_ssize_t deg = neighbours.shape[0], D = neighbours.shape[1], i
    if sign.shape[0] != deg or upper.shape[0] != deg or alpha.shape[0] != deg:
        raise ValueError("solve_vertex: sign, upper and alpha need one entry per neighbour")
    dtype = np.float32 if floating is float else np.float64
    cdef floating[::1] w = np.zeros(max(D, 1), dtype=dtype)
    cdef double[::1] sq = np.empty(max(deg, 1), dtype=np.float64)
    cdef int32_t[::1] idx = np.arange(max(deg, 1), dtype=np.int32)
    cdef Py_ssize_t[::1] perm = np.empty(max(deg, 1), dtype=np.intp)
    cdef uint64_t rng = rng_stream(seed, 0)
    cdef int passes = 0
    cdef double gap = 0.0, viol = 0.0, dual = 0.0
    cdef const floating* Xp = &neighbours[0, 0] if deg > 0 and D > 0 else NULL
    cdef Block blk
    cdef VisitConfig cfg
    if D == 0:
        return np.zeros(0, dtype=dtype), 0, 0.0, 0.0
    for i in range(deg):
        sq[i] = dot(Xp + i * D, Xp + i * D, D)
    blk.nbr = &idx[0]                   # the block's partners are the rows of neighbours, in order
    blk.sign = &sign[0] if deg else NULL
    blk.upper = &upper[0] if deg else NULL
    blk.alpha = &alpha[0] if deg else NULL
    blk.deg = deg
    cfg.tol = tol
    cfg.shuffle = shuffle
    with nogil:
        build_w(&w[0], Xp, D, &blk)
        if deg > 0:
            _first_order(&perm[0], &blk, shuffle)
            passes = _dcd_passes(&w[0], Xp, D, &sq[0], &blk, max_passes, &cfg, &rng, &perm[0])
            gap = _certificates(&w[0], Xp, D, &blk, &dual, &viol)
            gap -= dual
    return np.asarray(w)[:D].copy(), passes, gap, viol
