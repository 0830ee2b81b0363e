# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 3. Norm versus dimension
#
# The folklore of graph embedding says: *keep $D$ small, otherwise you
# over-fit*.  DeepWalk, LINE and node2vec all use $D \approx 100$, and the
# matrix-factorization view (Levy & Goldberg 2014) makes the dimension look
# like the regulariser: a rank-$D$ factorization of some association matrix.
# Gao et al. (ICLR 2019) argue the opposite: the capacity that matters is the
# **norm** of the vectors, and a rank constraint is a crude proxy for it.
#
# This notebook tests both views on a real graph:
#
# 1. **Figure 4 of the paper** -- the test AP of SGD training for several
#    dimensions $D$, without and with the norm penalty $\lambda_r$;
# 2. the **PMI factorization** view -- build the shifted PMI matrix of the
#    training graph, factorize it with a truncated eigendecomposition (a *rank*
#    constraint), and compare with a **low-norm factorization** of the same
#    matrix (singular-value soft-thresholding, a *norm* constraint).
#
# `LGEKIT_TUTORIAL_FULL=1` switches to BlogCatalog, 50 epochs, the grid
# $D \in \{5, 10, 30, 100, 300\}$ (the paper's text does not list its
# Figure 4 grid; it discusses $D$ up to and beyond 10) and all four
# $\lambda_r$ values of the paper's Figure 4 (0, 0.2, 0.6, 1).

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from threadpoolctl import threadpool_limits

import lgekit
from lgekit import datasets, metrics
from lgekit.callbacks import LinkPredictionCallback

FULL = os.environ.get("LGEKIT_TUTORIAL_FULL") == "1"
SEED = 0
EPOCHS = 50 if FULL else 20
DIMS = [5, 10, 30, 100, 300] if FULL else [5, 10, 30, 100]
LAM_RS = [0.0, 0.2, 0.6, 1.0] if FULL else [0.0, 0.2]


# the real graph when its files are on this machine, else a synthetic stand-in (and a note saying so)
graph, note = datasets.load_or_synthetic("blogcatalog" if FULL else "email-eu-core",
                                         n_nodes=10_312 if FULL else 1_000, seed=SEED)
if note:
    print(note)
split = lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
print(f"{graph.name}: {graph.n_nodes} vertices, {graph.n_edges} edges, "
      f"{len(split.test_positives)} held out")


def claim(holds, what):
    """Assert a claim of the text on the graph it was written for (email-Eu-core, quick run); elsewhere report it.

    The prose describes the default run.  On the synthetic stand-in or the full-size graph the numbers differ,
    and a claim that does not hold there is printed instead of stopping the notebook.
    """
    if graph.name == "email-eu-core" and not FULL:
        assert holds, what
    elif not holds:
        print(f"[on {graph.name} the text's claim does not hold: {what}]")

# %% [markdown]
# ## 1. Figure 4: the dimension sweep
#
# **Claim: without a penalty every dimension over-fits; with one, large
# dimensions are harmless.**  For each $\lambda_r$ and each $D$ we train
# `LogisticEmbedding` with SGD, three model seeds each, and record the test
# AP after every epoch (`LinkPredictionCallback(split, train=False)` skips
# the training AP to save time).  The prediction of the "dimension is the
# regulariser" view: small $D$ generalizes, large $D$ over-fits, whatever
# $\lambda_r$.  The prediction of the "norm is the regulariser" view:
#
# * with $\lambda_r = 0$ **every** dimension eventually over-fits (the norms
#   grow without bound in any $D$ large enough to separate the training
#   pairs), so the test AP decays after an early peak for all $D$;
# * with $\lambda_r > 0$ large dimensions are harmless -- the test AP keeps
#   improving or levels off, and large $D$ is at least as good as small $D$.

# %%
SEEDS = range(3)
COLOUR = {dim: f"C{i}" for i, dim in enumerate(DIMS)}       # one colour per D in the sweep's panels
LAM_COLOUR = {lam_r: f"C{i + len(DIMS)}" for i, lam_r in enumerate(LAM_RS)}   # and one per lambda_r elsewhere
runs = {}
t_start = time.perf_counter()
for lam_r in LAM_RS:
    for dim in DIMS:
        runs[lam_r, dim] = [lgekit.LogisticEmbedding(dim=dim, lam_r=lam_r, epochs=EPOCHS, random_state=seed)
                            .fit(split, callbacks=[LinkPredictionCallback(split, train=False)]) for seed in SEEDS]
print(f"{len(runs) * len(SEEDS)} runs in {time.perf_counter() - t_start:.0f} s")


def series(model, key):
    hist = [r for r in model.history_ if key in r]
    return np.array([r["epoch"] + 1 for r in hist]), np.array([r[key] for r in hist])


def seed_band(models, key):
    """(epochs, mean, sd) of one history field over the seeds' models."""
    values = np.array([series(m, key)[1] for m in models])
    return series(models[0], key)[0], values.mean(axis=0), values.std(axis=0, ddof=1)


fig, axes = plt.subplots(1, len(LAM_RS), figsize=(5 * len(LAM_RS), 3.6), sharey=True, squeeze=False)
for ax, lam_r in zip(axes[0], LAM_RS):
    for dim in DIMS:
        e, mean, sd = seed_band(runs[lam_r, dim], "test_ap")
        ax.plot(e, mean, color=COLOUR[dim], label=f"D = {dim}")
        ax.fill_between(e, mean - sd, mean + sd, color=COLOUR[dim], alpha=0.25, lw=0)
    ax.set(title=f"$\\lambda_r$ = {lam_r:g}", xlabel="epoch")
axes[0, 0].set_ylabel("test AP")
axes[0, 0].legend()
plt.suptitle(f"Figure 4: test AP during SGD, for several dimensions (mean $\\pm$ sd, {len(SEEDS)} seeds)")
plt.tight_layout()
plt.show()

# %% [markdown]
# **What the figure shows**, summarised per run by its best and final mean
# test AP and its final mean vector norm, and asserted below: in the
# $\lambda_r = 0$ rows the gap *best - final* is positive for every $D$
# (the run peaked and decayed), larger for larger $D$; with the penalty it is
# below 0.01, and the largest $D$ ends at least as high as the smallest.
# Compare the norms across rows too: for a fixed $\lambda_r > 0$ the norm
# depends little on $D$.

# %%
print(f"{'lam_r':>6} {'D':>5} {'best AP':>8} {'final AP':>9} {'best-final':>11} {'mean norm':>10}")
table = {}
for (lam_r, dim), models in runs.items():
    _, ap, _ = seed_band(models, "test_ap")
    norm = np.mean([m.history_[-1]["mean_norm"] for m in models])
    table[lam_r, dim] = (ap.max(), ap[-1], norm)
    print(f"{lam_r:6g} {dim:5d} {ap.max():8.4f} {ap[-1]:9.4f} {ap.max() - ap[-1]:11.4f} {norm:10.3f}")
drops0 = [table[0.0, d][0] - table[0.0, d][1] for d in DIMS]
claim(all(x > 0.01 for x in drops0) and drops0[-1] > drops0[0], "without a penalty every D peaks and decays, the largest most")
for lam_r in LAM_RS[1:]:
    claim(all(table[lam_r, d][0] - table[lam_r, d][1] < 0.01 for d in DIMS), "with a penalty no D decays")
    claim(table[lam_r, DIMS[-1]][1] >= table[lam_r, DIMS[0]][1], "with a penalty the largest D is at least as good as the smallest")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for lam_r in LAM_RS:
    axes[0].semilogx(DIMS, [table[lam_r, d][1] for d in DIMS], "o-", color=LAM_COLOUR[lam_r],
                     label=f"$\\lambda_r$ = {lam_r:g}")
    axes[1].semilogx(DIMS, [table[lam_r, d][2] for d in DIMS], "o-", color=LAM_COLOUR[lam_r])
axes[0].set(xlabel="dimension D", ylabel=f"mean test AP after {EPOCHS} epochs")
axes[1].set(xlabel="dimension D", ylabel="final mean norm")
axes[0].legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 2. The PMI view: dimension as the regulariser
#
# Levy & Goldberg (NeurIPS 2014) showed that skip-gram with $k$ negative
# samples drawn from the unigram distribution is, at its optimum and when
# $D$ is large enough, an implicit factorization $x_u \cdot y_v = M_{uv}$ of
# the **shifted PMI matrix**
#
# $$
# M_{uv} = \log\frac{P(u, v)}{P(u)\,P(v)} - \log k .
# $$
#
# For a graph with window 1 (LINE's first-order proximity), $P(u,v) =
# A_{uv}/\mathrm{vol}(G)$ and $P(u) = d_u/\mathrm{vol}(G)$, with
# $\mathrm{vol}(G) = \sum_u d_u = 2|E|$ (each edge counted in both
# directions, so that $P$ sums to 1 over ordered pairs), so
# $M_{uv} = \log\frac{\mathrm{vol}(G)\,A_{uv}}{d_u d_v} - \log k$: edges
# between low-degree vertices are the most "surprising".  (The paper's
# Section 2.3 writes $|E|$ where we write $\mathrm{vol}(G)$: its $M$ is ours
# minus $\log 2$, the same matrix at $2k$ negatives; asserted below.)  Non-edges have
# $M_{uv} = -\infty$; the standard fix is the **shifted positive PMI**
# $\max(M_{uv}, 0)$, a sparse matrix.  The explicit recipe is then: take the
# best rank-$D$ approximation (truncated eigen/singular value decomposition)
# and split it as $X Y^\top$.
#
# (Our `LogisticEmbedding` draws negatives *uniformly* and never draws an
# edge as a negative.  The same pair-by-pair calculation then has no finite
# answer: a training edge only ever appears as a positive, so its optimal
# score is $+\infty$, and a sampled negative pair only as a negative, so its
# optimal score is $-\infty$ -- an unconstrained optimum at infinite norm,
# which is notebook 2's norm growth again.  A norm penalty keeps the solution
# finite; a small dimension does so only if it leaves the pairs
# non-separable.  We use the classical degree-based matrix here because it
# is the textbook construction.)
#
# We build $M$ from the **training** graph only.  It is symmetric, so its
# singular value decomposition comes from its eigendecomposition
# $M = \sum_i \lambda_i q_i q_i^\top$: singular values $|\lambda_i|$, and
# $x_u = (\sqrt{|\lambda_i|}\,q_{iu})_i$, $y_v = (\mathrm{sign}(\lambda_i)\sqrt{|\lambda_i|}\,q_{iv})_i$.
# `metrics.average_precision(X, ..., context=Y)` scores pairs by
# $x_u \cdot y_v$.  (Scoring by $x_u\cdot x_v$ would flip the sign of every
# component with $\lambda_i < 0$.)

# %%
def shifted_ppmi(train_graph, k=4):
    """max(log(vol A_uv / (d_u d_v)) - log k, 0) as a sparse symmetric matrix."""
    A = train_graph.to_scipy().tocoo()
    d = np.asarray(train_graph.degrees, dtype=float)
    vol = d.sum()
    pmi = np.log(vol * A.data / (d[A.row] * d[A.col])) - np.log(k)
    M = sp.csr_matrix((np.maximum(pmi, 0.0), (A.row, A.col)), shape=A.shape)
    M.eliminate_zeros()
    return M


M = shifted_ppmi(split.train_graph, k=split.negatives_per_positive)
claim(split.train_graph.degrees.sum() == 2 * split.train_graph.n_edges, "vol(G) = sum of degrees = 2|E|")
M_paper = shifted_ppmi(split.train_graph, k=2 * split.negatives_per_positive)     # log(|E| A / (d d)) - log k
M_less = M.copy()
M_less.data = np.maximum(M_less.data - np.log(2), 0.0)
claim(abs(M_paper - M_less).max() < 1e-12, "the paper's |E| in place of vol(G): our M minus log 2, clipped at 0")
def eigenpairs(M):
    """Eigenpairs of the symmetric M, largest magnitude first (its singular values, in order).

    All n of them by a dense eigh up to a few thousand vertices (under a second at n = 1,005); for the
    full-size graph the 1,000 of largest magnitude (Lanczos), which pins the soft-threshold's rank at
    1,000 for thresholds below the 1,000th singular value.
    """
    if M.shape[0] <= 3000:
        with threadpool_limits(limits=1):     # one thread: faster than an oversubscribed BLAS on a busy machine
            lam, Q = np.linalg.eigh(M.toarray())
    else:
        lam, Q = eigsh(M, k=1000, which="LM")
    order = np.argsort(-np.abs(lam))
    return lam[order], Q[:, order]


t0 = time.perf_counter()
lam, Q = eigenpairs(M)
K = max(DIMS)
print(f"SPPMI: {M.nnz} non-zeros (training graph has {2 * split.train_graph.n_edges} stored entries); "
      f"{len(lam)} eigenpairs in {time.perf_counter() - t0:.1f} s; {int((lam < 0).sum())} negative, "
      f"{int((np.abs(lam) < 1e-9).sum())} zero")


def factor(lam, Q, shrink=0.0, dim=None):
    """X, Y with X Y^T = the rank-`dim` part of M, singular values shrunk by `shrink` (clipped at 0)."""
    lam, Q = lam[:dim], Q[:, :dim]
    s = np.maximum(np.abs(lam) - shrink, 0.0)
    X = Q * np.sqrt(s)
    return X, X * np.sign(lam)


# %%
print(f"{'D':>5} {'test AP':>8} {'mean ||x_v||':>13} {'nuclear norm of XY^T':>21}")
svd_rows = []
for dim in DIMS:
    X, Y = factor(lam, Q, dim=dim)
    ap = metrics.average_precision(X, split.test_positives, split.test_negatives, context=Y)
    svd_rows.append((dim, ap, np.linalg.norm(X, axis=1).mean()))
    print(f"{dim:5d} {ap:8.4f} {svd_rows[-1][2]:13.3f} {np.abs(lam[:dim]).sum():21.1f}")
best_svd = int(np.argmax([r[1] for r in svd_rows]))
claim(0 < best_svd < len(DIMS) - 1 or svd_rows[-1][1] < max(r[1] for r in svd_rows), "truncation's AP peaks before the largest D")   # AP rises, then falls

# %% [markdown]
# **What the table shows** (asserted: the AP peaks before the largest $D$):
# in the PMI view the dimension really is the knob.
# A small $D$ keeps only the dominant community structure; as $D$ grows the
# factorization reproduces more of $M$ itself, including its **zeros at the
# held-out edges** (the training matrix knows nothing about them).  The
# limit $D = n$ is an exact factorization, $x_u\cdot y_v = M_{uv}$, which
# scores every test pair -- positive or negative -- with exactly $0$: AP at
# chance.  We can check that limit without computing it:

# %%
test_pairs = np.vstack([split.test_positives, split.test_negatives])
exact_scores = np.asarray(M[test_pairs[:, 0], test_pairs[:, 1]]).ravel()
print("distinct scores of the exact factorization on the test pairs:", np.unique(exact_scores))
assert np.all(exact_scores == 0)

# %% [markdown]
# ## 3. Low-norm factorization: the norm as the regulariser
#
# A factorization has a **norm** as well as a rank.  The key identity
# (Srebro, Rennie & Jaakkola 2005) is
#
# $$
# \min_{X Y^\top = Z}\ \tfrac12\left(\|X\|_F^2 + \|Y\|_F^2\right) = \|Z\|_* ,
# $$
#
# the **nuclear norm** (sum of singular values) of $Z$, attained by the
# balanced split $X = U\Sigma^{1/2}$, $Y = V\Sigma^{1/2}$.  A penalty on the
# squared norms of the vectors of *both* tables -- the
# $\lambda_r\sum_v\|x_v\|^2$ of the embedding objective, summed over
# $x$ and $y$ -- is therefore a nuclear-norm penalty on the score matrix, a
# convex surrogate of rank.  With one table, as `LogisticEmbedding` trains
# on an undirected graph, $Y = X$ forces $Z = XX^\top \succeq 0$: there
# $\sum_v\|x_v\|^2 = \operatorname{tr} Z = \|Z\|_*$ still, but only
# positive semidefinite $Z$ can be reached, and the SPPMI above has
# negative eigenvalues (counted in its print-out; asserted below) that one
# table cannot reproduce.  For the squared loss and two tables the penalty
# has a closed form:
#
# $$
# \min_{X,Y}\ \tfrac12\|M - XY^\top\|_F^2 + \tfrac{\tau}{2}\left(\|X\|_F^2 + \|Y\|_F^2\right)
# \quad\Longrightarrow\quad
# XY^\top = \sum_i \max(\sigma_i - \tau, 0)\, u_i v_i^\top ,
# $$
#
# **singular-value soft-thresholding**: every singular value shrinks by
# $\tau$, the small ones vanish.  Truncation keeps the top $D$ values
# *unchanged* and drops the rest; soft-thresholding lets the dimension be as
# large as we like and controls the norm instead.  Below, all $n$
# eigenpairs are kept and $\tau$ varies (as a fraction of the top singular
# value); the rank that survives the threshold is an output, not a choice.

# %%
X5, Y5 = factor(lam, Q, dim=5)
claim(np.isclose(np.linalg.svd(X5 @ Y5.T, compute_uv=False).sum(), 0.5 * ((X5 ** 2).sum() + (Y5 ** 2).sum())),
      "the balanced split attains the nuclear norm: ||XY^T||_* = (||X||^2 + ||Y||^2) / 2")
claim(int((lam < 0).sum()) > 0, "the SPPMI has negative eigenvalues, which no X X^T reproduces")
sigma_max = np.abs(lam[0])
soft_rows = []
print(f"{'tau':>7} {'rank kept':>9} {'test AP':>8} {'mean ||x_v||':>13}")
for frac in [0.05, 0.1, 0.2, 0.3, 0.5]:
    X, Y = factor(lam, Q, shrink=frac * sigma_max)
    ap = metrics.average_precision(X, split.test_positives, split.test_negatives, context=Y)
    rank = int((np.abs(lam) > frac * sigma_max).sum())
    soft_rows.append((frac * sigma_max, rank, ap, np.linalg.norm(X, axis=1).mean()))
    print(f"{frac * sigma_max:7.2f} {rank:9d} {ap:8.4f} {soft_rows[-1][3]:13.3f}")
ranks = [r[1] for r in soft_rows]
assert all(a > b for a, b in zip(ranks, ranks[1:])), "a larger threshold keeps fewer singular values"

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot([r[2] for r in svd_rows], [r[1] for r in svd_rows], "o-", label="truncated (rank D)")
for (dim, ap, norm) in svd_rows:
    ax.annotate(f"D={dim}", (norm, ap), textcoords="offset points", xytext=(4, -10), fontsize=8)
ax.plot([r[3] for r in soft_rows], [r[2] for r in soft_rows], "s-", label="soft-thresholded (all n)")
for lam_r in LAM_RS:
    pts = [(table[lam_r, d][2], table[lam_r, d][1]) for d in DIMS]
    ax.plot(*zip(*pts), "^:", color=LAM_COLOUR[lam_r], label=f"SGD logistic, $\\lambda_r$ = {lam_r:g}")
ax.set(xlabel="mean vector norm $\\frac{1}{n}\\sum_v\\|x_v\\|$", ylabel="test AP")
ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# The scatter puts every embedding of this notebook on one axis: its mean
# norm.  Read it with care -- the PMI factorizations and SGD optimise
# different losses, and the norms of $X$ and of $Y$ are both involved in the
# PMI scores -- but look for the shape.  Truncation moves along its curve by
# changing $D$; soft-thresholding moves along its own by changing $\tau$, a
# norm budget with all $n$ dimensions kept; each SGD curve changes $D$ at a
# fixed $\lambda_r$.  Along truncation, soft-thresholding and the
# $\lambda_r = 0$ curve the AP first rises with the norm (more signal
# fitted) and then falls (noise fitted).  Along the $\lambda_r = 0.2$ curve
# it only rises (from about 0.78 at $D = 5$ to 0.835 at $D = 100$) while the
# norm moves less than half as far as at $\lambda_r = 0$: with the penalty,
# more dimensions buy signal, not noise (all asserted below).  Whether
# soft-thresholding at its best $\tau$ beats truncation at its best $D$ can
# be read from the two tables above -- but note that choosing $\tau$ or $D$
# by the test AP is the leak of notebook 1; Exercise 2 does it properly.

# %%
def rises_then_falls(norms, aps):
    """True when, ordered by norm, the AP peaks strictly inside the curve."""
    ap_by_norm = np.asarray(aps)[np.argsort(norms)]
    return 0 < int(np.argmax(ap_by_norm)) < len(ap_by_norm) - 1


sgd_curves = {lam_r: ([table[lam_r, d][2] for d in DIMS], [table[lam_r, d][1] for d in DIMS]) for lam_r in LAM_RS}
claim(rises_then_falls([r[2] for r in svd_rows], [r[1] for r in svd_rows]), "along truncation AP rises, then falls")
claim(rises_then_falls([r[3] for r in soft_rows], [r[2] for r in soft_rows]), "along soft-thresholding AP rises, then falls")
claim(rises_then_falls(*sgd_curves[0.0]), "along the lam_r = 0 curve AP rises, then falls")
norms_02, aps_02 = sgd_curves[0.2]
print(f"lam_r = 0.2: final AP {aps_02[0]:.3f} at D = {DIMS[0]} ... {aps_02[-1]:.3f} at D = {DIMS[-1]}; "
      f"norm range {np.ptp(norms_02):.2f} vs {np.ptp(sgd_curves[0.0][0]):.2f} at lam_r = 0")
claim(np.all(np.diff(np.asarray(aps_02)[np.argsort(norms_02)]) > 0), "along the lam_r = 0.2 curve AP only rises")
claim(abs(aps_02[0] - 0.78) < 0.01 and abs(aps_02[-1] - 0.835) < 0.01, "lam_r = 0.2: from about 0.78 to 0.835")
claim(np.ptp(norms_02) < 0.5 * np.ptp(sgd_curves[0.0][0]), "with the penalty the norm moves less than half as far")

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (the nuclear-norm identity).**  Write `half_sq_norm(X, Y)`
# $= \tfrac12(\|X\|_F^2 + \|Y\|_F^2)$ and `reparametrise(X, Y, R)` returning
# $X' = XR$, $Y' = YR^{-\top}$.  The check cell takes the rank-30 part of $M$,
# $Z = XY^\top$ with the balanced split `factor(lam, Q, dim=30)`, and
# verifies (a) $\tfrac12(\|X\|_F^2 + \|Y\|_F^2) = \|Z\|_*$ and (b) that a
# random invertible $R$ gives the same scores $X'Y'^\top = Z$ but a larger
# norm.  What does this say about a norm bound being a property of the
# *factorization*, not only of the score matrix?

# %% tags=["exercise"]
def half_sq_norm(X, Y):
    raise NotImplementedError("exercise 3.1: 1/2 (||X||_F^2 + ||Y||_F^2)")


def reparametrise(X, Y, R):
    raise NotImplementedError("exercise 3.1: (X R, Y R^-T)")


# %% tags=["solution"]
def half_sq_norm(X, Y):
    return 0.5 * (np.sum(X ** 2) + np.sum(Y ** 2))


def reparametrise(X, Y, R):
    return X @ R, Y @ np.linalg.inv(R).T
# By the AM-GM inequality applied to the singular values, the balanced split
# is the minimum-norm factorization of Z; every other split has a larger
# norm.  A generalization bound in terms of ||x_v|| therefore bounds the best
# factorization available -- SGD from a small random start, which tends to
# stay near balanced factorizations, is what makes the norm meaningful.

# %% tags=["check"]
def grade_exercise_1(half_sq_norm, reparametrise):
    """Exercise 1 on random factors and a random R that is neither orthogonal nor symmetric.

    For such an R the transposes and inverses cannot be mixed up unnoticed: R^-T, R^-1, R^T and R give
    four different Y'; the squared, halved norm is compared with the formula.
    """
    rng = np.random.default_rng(4)
    X_toy, Y_toy = rng.normal(size=(7, 3)), rng.normal(size=(7, 3))
    R_toy = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
    want = 0.5 * (np.sum(X_toy ** 2) + np.sum(Y_toy ** 2))
    assert np.isclose(half_sq_norm(X_toy, Y_toy), want), f"half_sq_norm: {half_sq_norm(X_toy, Y_toy)}, expected {want}"
    X2_toy, Y2_toy = reparametrise(X_toy, Y_toy, R_toy)
    assert np.allclose(X2_toy, X_toy @ R_toy), "X' must be X R"
    assert np.allclose(X2_toy @ Y2_toy.T, X_toy @ Y_toy.T), "X' Y'^T must equal X Y^T (Y' = Y R^-T)"


grade_exercise_1(half_sq_norm, reparametrise)
X30, Y30 = factor(lam, Q, dim=30)
nuclear = np.abs(lam[:30]).sum()          # singular values of a symmetric matrix are |eigenvalues|
print(f"(a) 1/2 (||X||^2 + ||Y||^2) = {half_sq_norm(X30, Y30):.6f},  ||Z||_* = {nuclear:.6f}")
assert np.isclose(half_sq_norm(X30, Y30), nuclear)
R = np.eye(30) + 0.5 * np.random.default_rng(SEED).normal(size=(30, 30))
X2, Y2 = reparametrise(X30, Y30, R)
some_pairs = split.test_positives[:1000]
same = np.allclose(metrics.pair_scores(X30, some_pairs, context=Y30), metrics.pair_scores(X2, some_pairs, context=Y2),
                   atol=1e-8)
print(f"(b) same scores: {same};  1/2 (||X'||^2 + ||Y'||^2) = {half_sq_norm(X2, Y2):.3f}")
assert same and half_sq_norm(X2, Y2) > half_sq_norm(X30, Y30)

# %% [markdown]
# **Exercise 2 (choose $\tau$ and $D$ honestly).**  Write
# `choose_on_validation(train_graph, seed)`: split `train_graph` again
# (`lgekit.split_edges(train_graph, seed=seed)`), build the SPPMI of the
# inner training graph, and return the $D$ in `DIMS` (truncation) and the
# shrinkage fraction in `FRACS` (soft-thresholding) with the best AP on the
# inner held-out edges.  The check cell refits both on the full training
# graph (the matrix `M` above) and reports their **test** AP once.  Score the
# candidates with `metrics.average_precision` (by any import): the check cell
# watches which pairs and which embedding it is given, and refuses a choice
# that looked at a test pair or scored an SPPMI that holds the validation
# edges.  Which
# family wins, and by how much compared with the noise you would expect from
# a different seed?

# %% tags=["exercise"]
FRACS = [0.05, 0.1, 0.2, 0.3, 0.5]


def choose_on_validation(train_graph, seed):
    """(best D for truncation, best fraction of sigma_max for soft-thresholding), chosen on an inner split."""
    raise NotImplementedError("exercise 3.2: choose D and tau on a validation split of the training graph")


# %% tags=["solution"]
def choose_on_validation(train_graph, seed):
    """(best D for truncation, best fraction of sigma_max for soft-thresholding), chosen on an inner split."""
    inner = lgekit.split_edges(train_graph, test_fraction=0.2, seed=seed)
    lam_i, Q_i = eigenpairs(shifted_ppmi(inner.train_graph, k=inner.negatives_per_positive))

    def val_ap(X, Y):
        return metrics.average_precision(X, inner.test_positives, inner.test_negatives, context=Y)

    best_dim = max(DIMS, key=lambda d: val_ap(*factor(lam_i, Q_i, dim=d)))
    best_frac = max(FRACS, key=lambda f: val_ap(*factor(lam_i, Q_i, shrink=f * abs(lam_i[0]))))
    return best_dim, best_frac
# The selection uses only training edges.  To judge "by how much", rerun the
# whole cell with other seeds for `split` and the inner split: a difference
# smaller than the seed-to-seed spread is not a finding.

# %% tags=["check"]
def _watching(function, replacements):
    """Run ``function()`` with ``replacements`` (real object -> stand-in) swapped in wherever the answer can reach
    them: the attributes of ``lgekit.metrics`` and the notebook's globals bound to them (``metrics.average_precision``,
    ``from lgekit.metrics import average_precision as ap`` and a local import inside the answer alike)."""
    places = [vars(metrics), function.__globals__]
    swapped = [(place, name, value) for place in places for name, value in list(place.items())
               if any(value is real for real in replacements)]
    for place, name, value in swapped:
        place[name] = next(stand_in for real, stand_in in replacements.items() if value is real)
    try:
        return function()
    finally:
        for place, name, value in swapped:
            place[name] = value


def grade_exercise_2(choose_on_validation, train_graph, test_positives, seed):
    """Exercise 2: a choice in the grids, made by scoring every candidate on edges of the training graph only.

    The value cannot tell an honest choice from one made on the test pairs (both are members of the grids),
    so the method is checked: every call of ``metrics.average_precision`` is watched (by whatever name the
    answer imports it), there must be one per candidate at least, and every positive it scores must be an
    edge of ``train_graph`` -- never one of the held-out ``test_positives`` -- held out of it: at most half of
    its edges (an inner split holds out a fifth; scoring all of them measures the fit, not the
    generalization).  And the embedding scored must not come from the SPPMI of the whole ``train_graph``
    (which holds the validation edges): its scores on the validation pairs are compared with those of every
    candidate factorisation of that SPPMI -- the notebook's ``lam, Q`` reused, or ``shifted_ppmi(train_graph)``
    factorised afresh, give them exactly.  (Negatives are not checked against the test pairs: an honest inner
    split may draw a held-out edge as a negative, since it is not an edge of the training graph.)
    """
    scored = []
    real_average_precision = metrics.average_precision

    def watched(embedding, positives, negatives, *args, **kwargs):
        context = kwargs.get("context", args[0] if args else None)
        scored.append((np.asarray(embedding), np.asarray(positives), np.asarray(negatives),
                       None if context is None else np.asarray(context)))
        return real_average_precision(embedding, positives, negatives, *args, **kwargs)

    choice = _watching(lambda: choose_on_validation(train_graph, seed=seed), {real_average_precision: watched})
    best_d, best_f = choice
    assert best_d in DIMS and best_f in FRACS, f"the choice {choice} must be a D of DIMS and a fraction of FRACS"
    assert len(scored) >= len(DIMS) + len(FRACS), (
        f"{len(scored)} candidates scored with metrics.average_precision; every D and every fraction must be")
    held_out = {tuple(sorted(p)) for p in np.asarray(test_positives).tolist()}
    lam_all, Q_all = eigenpairs(shifted_ppmi(train_graph))
    leaky = [factor(lam_all, Q_all, dim=d) for d in DIMS]
    leaky += [factor(lam_all, Q_all, shrink=f * abs(lam_all[0])) for f in FRACS]
    for embedding, positives, _, context in scored:
        touched = held_out & {tuple(sorted(p)) for p in positives.tolist()}
        assert not touched, f"the selection scored {len(touched)} held-out test edges: the leak of notebook 1"
        assert train_graph.has_edges(positives).all(), "the validation positives must be edges of the training graph"
        assert len(positives) <= 0.5 * train_graph.n_edges, (
            f"{len(positives)} of the training graph's {train_graph.n_edges} edges scored: hold some out (an inner split)")
        Y = embedding if context is None else context
        scores = np.einsum("ij,ij->i", embedding[positives[:, 0]], Y[positives[:, 1]])
        for X_l, Y_l in leaky:
            assert not np.allclose(scores, np.einsum("ij,ij->i", X_l[positives[:, 0]], Y_l[positives[:, 1]]),
                                   rtol=1e-6, atol=1e-9), (
                "a candidate was scored with the SPPMI of the whole training graph, which holds the validation "
                "edges: build the SPPMI of the inner training graph and factor that")
    return choice


best_dim, best_frac = grade_exercise_2(choose_on_validation, split.train_graph, split.test_positives, seed=SEED + 1)
X_t, Y_t = factor(lam, Q, dim=best_dim)
X_s, Y_s = factor(lam, Q, shrink=best_frac * sigma_max)
ap_t = metrics.average_precision(X_t, split.test_positives, split.test_negatives, context=Y_t)
ap_s = metrics.average_precision(X_s, split.test_positives, split.test_negatives, context=Y_s)
print(f"truncation:        chosen D = {best_dim:<4}  test AP {ap_t:.4f}")
print(f"soft-thresholding: chosen tau = {best_frac} sigma_max  test AP {ap_s:.4f}")
claim(ap_t > 0.2 and ap_s > 0.2, "both choices beat chance")

# %% [markdown]
# **Exercise 3 (whose norms grow?).**  Write `degree_norm_spearman(X,
# degrees)`, the Spearman rank correlation between the vectors' norms
# $\|x_v\|$ and the degrees.  The check cell applies it to the SGD models of
# the largest $D$, for $\lambda_r = 0$ and the largest $\lambda_r$ in
# `LAM_RS`, with the training degrees; the solution also plots $\|x_v\|$
# against $d_v$.  Explain the pattern with the gradient of Eq. (2) (how many
# terms push on a vertex?) and with the way `LogisticEmbedding` spreads the
# penalty over a vertex's pairs.

# %% tags=["exercise"]
def degree_norm_spearman(X, degrees):
    raise NotImplementedError("exercise 3.3: Spearman correlation of ||x_v|| with the degree")


# %% tags=["solution"]
from scipy.stats import spearmanr


def degree_norm_spearman(X, degrees):
    return float(spearmanr(degrees, np.linalg.norm(X, axis=1)).statistic)


d_train = split.train_graph.degrees
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
for ax, lam_r in zip(axes, [0.0, LAM_RS[-1]]):
    X_big = runs[lam_r, max(DIMS)][0].embedding_
    ax.semilogx(np.maximum(d_train, 0.8), np.linalg.norm(X_big, axis=1), ".", alpha=0.4, color=LAM_COLOUR[lam_r])
    ax.set(xlabel="training degree (0 plotted at 0.8)",
           title=f"$\\lambda_r$ = {lam_r:g}: Spearman {degree_norm_spearman(X_big, d_train):.2f}")
axes[0].set_ylabel("$\\|x_v\\|$")
plt.tight_layout()
plt.show()
# Per epoch, a vertex of degree d receives d positive pushes, but about
# 4 x (mean degree) negative ones whatever its own degree (both ends of a
# negative pair are uniform over the vertices).  So the edge terms, and with
# them the growth of the norm, scale with the degree: without a penalty
# high-degree vertices travel furthest.  Vertices with no training edge still
# move: they occur in uniform negative pairs, which only push them away from
# others.  The penalty lam_r ||x_v||^2 acts once per vertex per epoch (it is
# split over the vertex's pairs), while the loss terms scale with the degree
# -- so even with the penalty, hubs can afford longer vectors.  The capacity
# measures of notebook 5 are driven by exactly these hubs.

# %% tags=["check"]
def grade_exercise_3(degree_norm_spearman):
    """Exercise 3 on a toy where Spearman differs from the tempting neighbours.

    The norms are a monotone but far from linear function of heavy-tailed degrees, with tied degrees, and X
    is not square: Pearson's r, ranks that break ties by position, or norms of the columns all give other
    values than Spearman's rho (ties share their mean rank).
    """
    degrees = np.array([1, 1, 2, 3, 3, 3, 8, 40, 200, 1000])
    X_toy = np.zeros((10, 4))
    X_toy[:, 0] = np.log1p(degrees) + np.array([0.0, 0.3, 0.1, 0.0, 0.2, -0.1, 0.0, 0.1, 0.0, 0.0])
    X_toy[:, 1] = [1.5, 0.0, 0.8, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]     # the norms' order is not column 0's
    rank = lambda v: np.argsort(np.argsort(v, kind="stable"), kind="stable").astype(float)
    tied_mean = lambda v: np.array([rank(v)[v == x].mean() for x in v])
    norms = np.linalg.norm(X_toy, axis=1)
    want = np.corrcoef(tied_mean(degrees), tied_mean(norms))[0, 1]
    got = degree_norm_spearman(X_toy, degrees)
    assert np.isclose(got, want), f"Spearman's rho of the toy case: {got}, expected {want:.4f}"
    assert np.isclose(degree_norm_spearman(X_toy, -degrees), -want), "reversing the degrees must flip the sign"


grade_exercise_3(degree_norm_spearman)
for lam_r in [0.0, LAM_RS[-1]]:
    rho = degree_norm_spearman(runs[lam_r, max(DIMS)][0].embedding_, split.train_graph.degrees)
    print(f"lam_r={lam_r:g}: Spearman(degree, norm) = {rho:.3f}")
    claim(rho > 0.5, "high-degree vertices get the longest vectors")
