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

cimport cython
from cython.parallel cimport prange, threadid
from libc.math cimport fabs, isfinite
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t

from lgekit._common cimport floating, dot, axpy, rng_stream, rng_below

__all__ = ["dcd_epoch", "solve_vertex", "vertex_certificates", "hinge_losses", "dual_counts", "UPHILL_RTOL"]

# the safeguard's slack: w is uphill of x_u when P(w) - P(x_u) > _UPHILL_RTOL * P(x_u) (lgekit.reference's
# UPHILL_RTOL, the same rule; P >= 0)
cdef double _UPHILL_RTOL = 1e-9
UPHILL_RTOL = _UPHILL_RTOL


cdef inline bint _uphill(double p_new, double p_old) noexcept nogil:
    """Whether the block primal value p_new is above p_old by more than round-off (the safeguard's test)."""
    return p_new - p_old > _UPHILL_RTOL * p_old


# ---------------------------------------------------------------------------
# The block solver (one vertex).  Everything takes raw pointers so that the
# epoch and the stand-alone ``solve_vertex`` run the very same code.
# ---------------------------------------------------------------------------

cdef inline void _build_w(floating* w, const floating* X, Py_ssize_t D, const int32_t* nbr,
                          const int8_t* sign, const double* alpha, Py_ssize_t deg) noexcept nogil:
    """w <- sum_j alpha_j s_j x_{nbr_j}, skipping alpha_j = 0, in entry order."""
    cdef Py_ssize_t i, j
    for i in range(D):
        w[i] = 0
    for j in range(deg):
        if alpha[j] != 0:
            axpy(<floating>(alpha[j] * sign[j]), X + <Py_ssize_t>nbr[j] * D, w, D)


cdef inline double _projected_gradient(double G, double a, double U) noexcept nogil:
    if a <= 0:
        return G if G < 0 else 0.0
    if a >= U:
        return G if G > 0 else 0.0
    return G


cdef void _first_order(Py_ssize_t* perm, const int8_t* sign, Py_ssize_t deg,
                       bint shuffle) noexcept nogil:
    """The coordinate order a visit starts from.

    ``shuffle`` (LIBLINEAR): the identity, which every pass then re-shuffles in
    place.  Otherwise Algorithm 1's listing of D, kept for every pass: the
    edges N+(u) first, then the negatives N-(u), each in entry order.
    """
    cdef Py_ssize_t i, j = 0
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


cdef int _dcd_passes(floating* w, const floating* X, Py_ssize_t D, const int32_t* nbr,
                     const int8_t* sign, const double* upper, double* alpha, const double* sqnorm,
                     Py_ssize_t deg, int max_passes, double tol, bint shuffle, uint64_t* rng,
                     Py_ssize_t* perm) noexcept nogil:
    """At most ``max_passes`` DCD passes over the deg coordinates; returns the passes run.

    ``perm`` holds the coordinate order (from ``_first_order``); with
    ``shuffle`` it is re-permuted in place before every pass (LIBLINEAR's
    forward Fisher-Yates), else every pass follows it as it is.  ``sqnorm`` is
    indexed like X (``sqnorm[nbr_j] = ||x_{nbr_j}||^2``).  Stops after a pass
    whose largest |projected gradient| (measured when each coordinate was
    visited, as LIBLINEAR does) is <= tol.
    """
    cdef Py_ssize_t i, j, k, tmp
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
            PG = _projected_gradient(G, a_old, U)
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


cdef double _certificates(const floating* w, const floating* X, Py_ssize_t D, const int32_t* nbr,
                          const int8_t* sign, const double* upper, const double* alpha,
                          Py_ssize_t deg, double* dual, double* viol) noexcept nogil:
    """Returns P(w); stores the dual D(alpha) = sum_j alpha_j - 1/2 ||w||^2 (w = w(alpha)) and the
    largest |projected gradient| at w."""
    cdef Py_ssize_t k
    cdef double m, G, PG, ww, hinge = 0.0, asum = 0.0, v = 0.0
    ww = dot(w, w, D)
    for k in range(deg):
        m = sign[k] * <double>dot(w, X + <Py_ssize_t>nbr[k] * D, D)
        G = m - 1.0
        if G < 0:
            hinge += upper[k] * (-G)
        asum += alpha[k]
        PG = fabs(_projected_gradient(G, alpha[k], upper[k]))
        if PG > v:
            v = PG
    dual[0] = asum - 0.5 * ww
    viol[0] = v
    return 0.5 * ww + hinge


cdef double _both_primals(const floating* w, const floating* x, const floating* X, Py_ssize_t D,
                          const int32_t* nbr, const int8_t* sign, const double* upper, const double* alpha,
                          Py_ssize_t deg, double* p_x, double* dual, double* viol) noexcept nogil:
    """``_certificates`` at w (returned, with dual and viol) and the block primal P(x) at x (in p_x), each
    partner row read once for both."""
    cdef Py_ssize_t k
    cdef const floating* xv
    cdef double mw, mx, G, PG, ww, hinge = 0.0, hx = 0.0, asum = 0.0, v = 0.0
    ww = dot(w, w, D)
    for k in range(deg):
        xv = X + <Py_ssize_t>nbr[k] * D
        mw = sign[k] * <double>dot(w, xv, D)
        mx = sign[k] * <double>dot(x, xv, D)
        G = mw - 1.0
        if G < 0:
            hinge += upper[k] * (-G)
        if mx < 1.0:
            hx += upper[k] * (1.0 - mx)
        asum += alpha[k]
        PG = fabs(_projected_gradient(G, alpha[k], upper[k]))
        if PG > v:
            v = PG
    dual[0] = asum - 0.5 * ww
    viol[0] = v
    p_x[0] = 0.5 * <double>dot(x, x, D) + hx
    return 0.5 * ww + hinge


cdef inline int _visit(Py_ssize_t u, floating* w, Py_ssize_t* perm, floating* X, double* sqnorm,
                       Py_ssize_t D, const int64_t* indptr, const int32_t* nbr, const int8_t* sign,
                       const double* upper, double* alpha, int inner_passes, double tol,
                       bint shuffle, int monotone_passes, uint64_t seed, bint certify,
                       double* gap, double* viol, int8_t* kept) noexcept nogil:
    """One block update x_u <- argmin (approximately); returns 0, or 1 if x_u is not finite.

    ``certify``: store the certificates of the vector the visit leaves in ``gap[u]`` and ``viol[u]``.
    They cost a pass over the partners (a dot product each) unless the safeguard, which needs P(w)
    anyway, is on.

    ``monotone_passes >= 0`` turns the safeguard on: when w(alpha) is uphill
    of the stored x_u in the block's primal (``_uphill``), up to that many
    further passes run (while max |PG| > tol); if w is still uphill, x_u keeps
    its vector (``kept[u] = 1``; the duals keep their progress).  No visit then
    raises L, which is lam_r P(x_u) plus terms free of x_u, beyond round-off.
    """
    cdef int64_t start = indptr[u]
    cdef Py_ssize_t deg = indptr[u + 1] - start
    cdef Py_ssize_t i
    cdef uint64_t rng = rng_stream(seed, <uint64_t>u)
    cdef int extra = 0
    cdef bint monotone = monotone_passes >= 0
    cdef bint keep = False
    cdef double ww, p_new = 0.0, p_old = 0.0, dual = 0.0, v = 0.0
    cdef const int32_t* nb = nbr + start
    cdef const int8_t* sg = sign + start
    cdef const double* up = upper + start
    cdef double* al = alpha + start
    _build_w(w, X, D, nb, sg, al, deg)
    if deg > 0:
        _first_order(perm, sg, deg, shuffle)
        _dcd_passes(w, X, D, nb, sg, up, al, sqnorm, deg, inner_passes, tol, shuffle, &rng, perm)
    if monotone:
        p_new = _both_primals(w, X + u * D, X, D, nb, sg, up, al, deg, &p_old, &dual, &v)
    elif certify:
        p_new = _certificates(w, X, D, nb, sg, up, al, deg, &dual, &v)
    if monotone:
        while _uphill(p_new, p_old) and extra < monotone_passes and v > tol:
            # the passes from duals fitted to the neighbours' previous vectors went uphill: go
            # on solving the block (its optimum is no worse than x_u)
            _dcd_passes(w, X, D, nb, sg, up, al, sqnorm, deg, 1, tol, shuffle, &rng, perm)
            p_new = _certificates(w, X, D, nb, sg, up, al, deg, &dual, &v)
            extra += 1
        keep = _uphill(p_new, p_old)
        kept[u] = keep
    if certify:
        # weak duality holds for any primal point: certify the one stored
        gap[u] = (p_old if keep else p_new) - dual
        viol[u] = v
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

@cython.boundscheck(False)
@cython.wraparound(False)
def dcd_epoch(floating[:, ::1] X, double[::1] sqnorm, const int64_t[::1] indptr,
              const int32_t[::1] nbr, const int8_t[::1] sign, const double[::1] upper,
              double[::1] alpha, const int32_t[::1] order, const int64_t[::1] block_ptr,
              int inner_passes, double tol, uint64_t seed, int n_threads, bint diagnostics,
              double[::1] gap, double[::1] viol, bint shuffle=False, int monotone_passes=-1,
              int8_t[::1] kept=None, const int8_t[::1] certify=None):
    """Run one DCD epoch in place (X, sqnorm, alpha; gap and viol when ``diagnostics``).

    Parameters
    ----------
    X : (n, D) float32/float64, C-contiguous
        The embedding, updated in place.
    sqnorm : (n,) float64
        ``||x_v||^2`` of every row of X on entry; kept up to date.
    indptr, nbr, sign, upper : pair CSR
        Vertex u's entries are ``indptr[u]:indptr[u+1]``: partner ``nbr``,
        label ``sign`` (+1 / -1) and box bound ``upper`` (U = c / lam_r).
    alpha : float64, aligned with nbr
        Dual variables, in [0, upper]; updated in place (warm start).
    order, block_ptr
        The vertices of this epoch in visiting order, cut into blocks that
        run one after the other; vertices of one block run in parallel.
    inner_passes : int
        Maximal number of DCD passes per vertex visit.
    tol : float
        A visit stops early after a pass whose max |projected gradient| <= tol.
    seed : uint64
        Vertex u draws its permutations from stream u of this seed.
    n_threads : int
    diagnostics : bool
        Compute the certificates ``gap[u]`` and ``viol[u]`` of the visited u
        (of those with ``certify[u]``, when given); other entries of ``gap``
        and ``viol`` are left as they were.  Without the safeguard they cost
        a dot product per pair at each certified visit; with it, none.
    shuffle : bool, default False
        A fresh permutation of u's entries before every pass (LIBLINEAR);
        False: Algorithm 1's listing, the +1 entries then the -1 entries.
    monotone_passes : int, default -1
        >= 0: the safeguard, with at most that many further passes per
        visit; -1: off (Algorithm 1 as printed).
    kept : (n,) int8, needed with the safeguard
        ``kept[u]`` is set to 1 when u kept its vector, 0 when it took w.
    certify : (n,) int8, optional
        With ``diagnostics``: certify only the vertices u with ``certify[u]``
        (the sampled record's vertices); default all.

    Returns
    -------
    bad_vertex : int
        -1, or a vertex whose new vector was not finite (the epoch stops at
        the end of that block).
    """
    cdef Py_ssize_t n = X.shape[0], D = X.shape[1]
    cdef Py_ssize_t n_blocks = block_ptr.shape[0] - 1
    cdef Py_ssize_t max_deg = 0, b, t, i, u, lo, hi
    cdef int64_t[::1] bad = np.full(1, -1, dtype=np.int64)
    cdef int nt = max(1, n_threads)
    if sqnorm.shape[0] != n or indptr.shape[0] != n + 1 or alpha.shape[0] != nbr.shape[0]:
        raise ValueError("dcd_epoch: inconsistent array shapes")
    if sign.shape[0] != nbr.shape[0] or upper.shape[0] != nbr.shape[0]:
        raise ValueError("dcd_epoch: inconsistent pair-CSR arrays")
    if diagnostics and (gap.shape[0] != n or viol.shape[0] != n):
        raise ValueError("dcd_epoch: gap and viol must have one entry per vertex")
    if certify is not None and certify.shape[0] != n:
        raise ValueError("dcd_epoch: certify must have one entry per vertex")
    if n_blocks < 0 or block_ptr[n_blocks] > order.shape[0]:
        raise ValueError("dcd_epoch: block_ptr does not fit order")
    for u in range(n):
        if indptr[u + 1] - indptr[u] > max_deg:
            max_deg = indptr[u + 1] - indptr[u]
    dtype = np.float32 if floating is float else np.float64
    # one row a thread, each wider than needed by a cache line: a thread's w (written at every
    # coordinate step) and its coordinate order never share a line with another thread's
    cdef floating[:, ::1] W = np.empty((nt, max(D, 1) + 64 // sizeof(floating)), dtype=dtype)
    cdef Py_ssize_t[:, ::1] P = np.empty((nt, max(max_deg, 1) + 64 // sizeof(Py_ssize_t)), dtype=np.intp)
    cdef double dummy_gap[1]
    cdef double* gp = &gap[0] if diagnostics else dummy_gap
    cdef double* vp = &viol[0] if diagnostics else dummy_gap
    cdef int8_t dummy_kept[1]
    cdef bint monotone = monotone_passes >= 0
    if monotone and (kept is None or kept.shape[0] != n):
        raise ValueError("dcd_epoch: the safeguard (monotone_passes >= 0) needs kept, one entry per vertex")
    cdef int8_t* kp = &kept[0] if monotone and n > 0 else dummy_kept
    cdef floating* Xp = &X[0, 0] if n > 0 and D > 0 else NULL
    cdef const int8_t* cp = &certify[0] if certify is not None and n > 0 else NULL
    if n == 0 or D == 0:
        return -1
    with nogil:
        for b in range(n_blocks):
            if nt == 1 or block_ptr[b + 1] - block_ptr[b] == 1:
                for i in range(block_ptr[b], block_ptr[b + 1]):
                    u = order[i]
                    if _visit(u, &W[0, 0], &P[0, 0], Xp, &sqnorm[0], D, &indptr[0], &nbr[0],
                              &sign[0], &upper[0], &alpha[0], inner_passes, tol, shuffle,
                              monotone_passes, seed, diagnostics and (cp == NULL or cp[u] != 0), gp, vp, kp):
                        bad[0] = u
            else:
                lo = block_ptr[b]
                hi = block_ptr[b + 1]
                for i in prange(lo, hi, num_threads=nt, schedule="dynamic", chunksize=4):
                    t = threadid()
                    if _visit(order[i], &W[t, 0], &P[t, 0], Xp, &sqnorm[0], D, &indptr[0],
                              &nbr[0], &sign[0], &upper[0], &alpha[0], inner_passes, tol, shuffle,
                              monotone_passes, seed, diagnostics and (cp == NULL or cp[order[i]] != 0),
                              gp, vp, kp):
                        bad[0] = order[i]
            if bad[0] >= 0:
                break
    return int(bad[0])


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
    if D == 0:
        return np.zeros(0, dtype=dtype), 0, 0.0, 0.0
    for i in range(deg):
        sq[i] = dot(Xp + i * D, Xp + i * D, D)
    with nogil:
        _build_w(&w[0], Xp, D, &idx[0], &sign[0] if deg else NULL, &alpha[0] if deg else NULL, deg)
        if deg > 0:
            _first_order(&perm[0], &sign[0], deg, shuffle)
            passes = _dcd_passes(&w[0], Xp, D, &idx[0], &sign[0], &upper[0], &alpha[0], &sq[0],
                                 deg, max_passes, tol, shuffle, &rng, &perm[0])
            gap = _certificates(&w[0], Xp, D, &idx[0], &sign[0], &upper[0], &alpha[0], deg, &dual, &viol)
            gap -= dual
    return np.asarray(w)[:D].copy(), passes, gap, viol


cdef void _stored_certificates(floating* w, const floating* X, Py_ssize_t D, Py_ssize_t u,
                               const int32_t* nbr, const int8_t* sign, const double* upper,
                               const double* alpha, Py_ssize_t deg, double* gap,
                               double* viol) noexcept nogil:
    """P(x_u) - D(alpha) with the stored x_u, and max |PG| of the dual at alpha."""
    cdef Py_ssize_t k
    cdef const floating* xu = X + u * D
    cdef const floating* xv
    cdef double hx = 0.0, asum = 0.0, v = 0.0, mx, G, PG
    _build_w(w, X, D, nbr, sign, alpha, deg)
    for k in range(deg):
        xv = X + <Py_ssize_t>nbr[k] * D
        mx = sign[k] * <double>dot(xu, xv, D)
        if mx < 1.0:
            hx += upper[k] * (1.0 - mx)
        asum += alpha[k]
        G = sign[k] * <double>dot(w, xv, D) - 1.0
        PG = fabs(_projected_gradient(G, alpha[k], upper[k]))
        if PG > v:
            v = PG
    gap[0] = 0.5 * <double>dot(xu, xu, D) + hx - asum + 0.5 * <double>dot(w, w, D)
    viol[0] = v


def vertex_certificates(floating[:, ::1] X, const int64_t[::1] indptr, const int32_t[::1] nbr,
                        const int8_t[::1] sign, const double[::1] upper, const double[::1] alpha,
                        int n_threads):
    """Certificates of every vertex's sub-problem at the CURRENT embedding.

    For each u, with the partners' current vectors: the duality gap
    ``P(x_u) - D(alpha_u)`` between the stored vector x_u and the stored
    duals (>= 0; 0 iff x_u solves its block and alpha_u its dual, i.e. u is
    at a block-coordinate fixed point), and the largest |projected gradient|
    of the dual at alpha_u.  Units: the per-vertex SVM's (L / lam_r).
    Returns (gap, viol), float64 arrays of length n.
    """
    cdef Py_ssize_t n = X.shape[0], D = X.shape[1], u, t
    cdef int nt = max(1, n_threads)
    gap_arr = np.zeros(n, dtype=np.float64)
    viol_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] g = gap_arr, v = viol_arr
    if n == 0 or D == 0:
        return gap_arr, viol_arr
    if indptr.shape[0] != n + 1 or alpha.shape[0] != nbr.shape[0] or upper.shape[0] != nbr.shape[0] \
            or sign.shape[0] != nbr.shape[0]:
        raise ValueError("vertex_certificates: inconsistent array shapes")
    dtype = np.float32 if floating is float else np.float64
    cdef floating[:, ::1] W = np.empty((nt, D + 64 // sizeof(floating)), dtype=dtype)   # rows a cache line apart
    cdef const floating* Xp = &X[0, 0]
    with nogil:
        for u in prange(n, num_threads=nt, schedule="dynamic", chunksize=16):
            t = threadid()
            _stored_certificates(&W[t, 0], Xp, D, u, &nbr[0] + indptr[u], &sign[0] + indptr[u],
                                 &upper[0] + indptr[u], &alpha[0] + indptr[u],
                                 indptr[u + 1] - indptr[u], &g[u], &v[u])
    return gap_arr, viol_arr


cdef enum:
    _CHUNK = 4096


def hinge_losses(floating[:, ::1] X, const int64_t[:, ::1] pairs, const double[::1] coef,
                 int n_threads):
    """sum_i coef_i * max(0, 1 - x_{p_i0} . x_{p_i1}), with ``coef`` signed.

    Positive ``coef`` means an edge (loss h(x_u.x_v)), negative a negative
    pair (loss |coef| h(-x_u.x_v)).  Returns (positive part, negative part).
    Sums are taken over fixed chunks and then in chunk order, so the result
    does not depend on the number of threads.
    """
    cdef Py_ssize_t m = pairs.shape[0], D = X.shape[1]
    cdef Py_ssize_t n_chunks = (m + _CHUNK - 1) // _CHUNK, c, i, lo, hi
    pos_arr = np.zeros(max(n_chunks, 1), dtype=np.float64)
    neg_arr = np.zeros(max(n_chunks, 1), dtype=np.float64)
    cdef double[::1] pos = pos_arr, neg = neg_arr
    cdef double z, a, sp, sn
    if coef.shape[0] != m:
        raise ValueError("hinge_losses: coef needs one entry per pair")
    if m == 0 or D == 0:
        return 0.0, 0.0
    cdef const floating* Xp = &X[0, 0]
    with nogil:
        for c in prange(n_chunks, num_threads=max(1, n_threads), schedule="static"):
            lo = c * _CHUNK
            hi = min(lo + _CHUNK, m)
            sp = 0.0
            sn = 0.0
            for i in range(lo, hi):
                z = dot(Xp + pairs[i, 0] * D, Xp + pairs[i, 1] * D, D)
                a = coef[i]
                if a > 0:
                    if z < 1.0:
                        sp = sp + a * (1.0 - z)
                else:
                    if z > -1.0:
                        sn = sn - a * (1.0 + z)
            pos[c] = sp
            neg[c] = sn
    return float(pos_arr.sum()), float(neg_arr.sum())


def dual_counts(const double[::1] alpha, const double[::1] upper, int n_threads):
    """``(n_zero, n_bound)``: the duals at 0 and those at a positive upper bound, counted on ``n_threads``
    (integer sums: the same for any thread count).  An epoch record's counts without two serial NumPy
    passes and their temporaries over every entry."""
    cdef Py_ssize_t i, m = alpha.shape[0]
    cdef int64_t n_zero = 0, n_bound = 0
    if upper.shape[0] != m:
        raise ValueError("dual_counts: upper needs one entry per dual")
    with nogil:
        for i in prange(m, num_threads=max(1, n_threads), schedule="static"):
            if alpha[i] == 0:
                n_zero += 1
            elif alpha[i] == upper[i] and upper[i] > 0:
                n_bound += 1
    return int(n_zero), int(n_bound)
