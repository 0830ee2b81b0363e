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
# `LGEKIT_TUTORIAL_FULL=1` switches to BlogCatalog, 50 epochs, the paper's
# grid $D \in \{5, 10, 30, 100, 300\}$ and all four $\lambda_r$ values.

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

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

# %% [markdown]
# ## 1. Figure 4: the dimension sweep
#
# For each $\lambda_r$ and each $D$ we train `LogisticEmbedding` with SGD and
# record the test AP after every epoch (`LinkPredictionCallback(split,
# train=False)` skips the training AP to save time).  The prediction of the
# "dimension is the regulariser" view: small $D$ generalizes, large $D$
# over-fits, whatever $\lambda_r$.  The prediction of the "norm is the
# regulariser" view:
#
# * with $\lambda_r = 0$ **every** dimension eventually over-fits (the norms
#   grow without bound in any $D$ large enough to separate the training
#   pairs), so the test AP decays after an early peak for all $D$;
# * with $\lambda_r > 0$ large dimensions are harmless -- the test AP keeps
#   improving or levels off, and large $D$ is at least as good as small $D$.

# %%
runs = {}
t_start = time.perf_counter()
for lam_r in LAM_RS:
    for dim in DIMS:
        model = lgekit.LogisticEmbedding(dim=dim, lam_r=lam_r, epochs=EPOCHS, random_state=SEED)
        model.fit(split, callbacks=[LinkPredictionCallback(split, train=False)])
        runs[lam_r, dim] = model
print(f"{len(runs)} runs in {time.perf_counter() - t_start:.0f} s")


def series(model, key):
    hist = [r for r in model.history_ if key in r]
    return np.array([r["epoch"] + 1 for r in hist]), np.array([r[key] for r in hist])


fig, axes = plt.subplots(1, len(LAM_RS), figsize=(5 * len(LAM_RS), 3.6), sharey=True, squeeze=False)
for ax, lam_r in zip(axes[0], LAM_RS):
    for dim in DIMS:
        ax.plot(*series(runs[lam_r, dim], "test_ap"), label=f"D = {dim}")
    ax.set(title=f"$\\lambda_r$ = {lam_r:g}", xlabel="epoch")
axes[0, 0].set_ylabel("test AP")
axes[0, 0].legend()
plt.suptitle("Figure 4: test AP during SGD, for several dimensions")
plt.tight_layout()
plt.show()

# %% [markdown]
# Summarise each run by its final and its best test AP, and by its final
# mean vector norm.  **What to look at:** in the $\lambda_r = 0$ rows the
# gap *best - final* should be positive for the large dimensions (the run
# peaked and decayed); with the penalty it should be near 0.  And compare the
# norms across rows: for a fixed $\lambda_r$, does the norm depend much on
# $D$?

# %%
print(f"{'lam_r':>6} {'D':>5} {'best AP':>8} {'final AP':>9} {'best-final':>11} {'mean norm':>10}")
for (lam_r, dim), model in runs.items():
    _, ap = series(model, "test_ap")
    print(f"{lam_r:6g} {dim:5d} {ap.max():8.4f} {ap[-1]:9.4f} {ap.max() - ap[-1]:11.4f} "
          f"{model.history_[-1]['mean_norm']:10.3f}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for lam_r in LAM_RS:
    final = [series(runs[lam_r, d], "test_ap")[1][-1] for d in DIMS]
    norms = [runs[lam_r, d].history_[-1]["mean_norm"] for d in DIMS]
    axes[0].semilogx(DIMS, final, "o-", label=f"$\\lambda_r$ = {lam_r:g}")
    axes[1].semilogx(DIMS, norms, "o-", label=f"$\\lambda_r$ = {lam_r:g}")
axes[0].set(xlabel="dimension D", ylabel=f"test AP after {EPOCHS} epochs")
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
# A_{uv}/\mathrm{vol}(G)$ and $P(u) = d_u/\mathrm{vol}(G)$, so
# $M_{uv} = \log\frac{\mathrm{vol}(G)\,A_{uv}}{d_u d_v} - \log k$: edges
# between low-degree vertices are the most "surprising".  Non-edges have
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
K = max(DIMS)
t0 = time.perf_counter()
lam, Q = eigsh(M, k=K, which="LM")           # the K eigenvalues of largest magnitude
order = np.argsort(-np.abs(lam))
lam, Q = lam[order], Q[:, order]
print(f"SPPMI: {M.nnz} non-zeros (training graph has {2 * split.train_graph.n_edges} stored entries); "
      f"top {K} eigenpairs in {time.perf_counter() - t0:.1f} s; "
      f"{int((lam < 0).sum())} of them negative")


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

# %% [markdown]
# **What to look at:** in the PMI view the dimension really is the knob.
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
# squared norms of the vectors -- exactly the $\lambda_r\sum_v\|x_v\|^2$ of
# the embedding objective -- is therefore a nuclear-norm penalty on the score
# matrix, a convex surrogate of rank.  For the squared loss it has a closed
# form:
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
# large as we like and controls the norm instead.  Below, $D$ is fixed at
# its maximum and $\tau$ varies (as a fraction of the top singular value).

# %%
sigma_max = np.abs(lam[0])
soft_rows = []
print(f"{'tau':>7} {'rank kept':>9} {'test AP':>8} {'mean ||x_v||':>13}")
for frac in [0.05, 0.1, 0.2, 0.3, 0.5]:
    X, Y = factor(lam, Q, shrink=frac * sigma_max)
    ap = metrics.average_precision(X, split.test_positives, split.test_negatives, context=Y)
    rank = int((np.abs(lam) > frac * sigma_max).sum())
    soft_rows.append((frac * sigma_max, rank, ap, np.linalg.norm(X, axis=1).mean()))
    print(f"{frac * sigma_max:7.2f} {rank:9d} {ap:8.4f} {soft_rows[-1][3]:13.3f}")

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot([r[2] for r in svd_rows], [r[1] for r in svd_rows], "o-", label="truncated (rank D)")
for (dim, ap, norm) in svd_rows:
    ax.annotate(f"D={dim}", (norm, ap), textcoords="offset points", xytext=(4, -10), fontsize=8)
ax.plot([r[3] for r in soft_rows], [r[2] for r in soft_rows], "s-", label=f"soft-thresholded (D = {K})")
for lam_r in LAM_RS:
    pts = [(runs[lam_r, d].history_[-1]["mean_norm"], series(runs[lam_r, d], "test_ap")[1][-1]) for d in DIMS]
    ax.plot(*zip(*pts), "^:", label=f"SGD logistic, $\\lambda_r$ = {lam_r:g}")
ax.set(xlabel="mean vector norm $\\frac{1}{n}\\sum_v\\|x_v\\|$", ylabel="test AP")
ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# The scatter puts every embedding of this notebook on one axis: its mean
# norm.  Read it with care -- the PMI factorizations and SGD optimise
# different losses, and the norms of $X$ and of $Y$ are both involved in the
# PMI scores -- but look for the shape: along each family, AP first rises
# with the norm (more signal fitted) and then falls (noise fitted).
# Truncation moves along its curve by changing $D$; soft-thresholding and
# $\lambda_r$ move along theirs by changing a norm budget at a fixed, large
# $D$.  Whether soft-thresholding at its best $\tau$ beats truncation at its
# best $D$ is printed above -- but note that choosing $\tau$ or $D$ by the
# test AP is the leak of notebook 1; Exercise 2 does it properly.
#
# ## Exercises
#
# **Exercise 1 (the nuclear-norm identity).**  Take the rank-30 part of $M$,
# $Z = XY^\top$ with the balanced split returned by `factor(lam, Q, dim=30)`.
# (a) Check numerically that $\tfrac12(\|X\|_F^2 + \|Y\|_F^2) = \|Z\|_*$.
# (b) Draw a random invertible $R$ ($30\times 30$) and check that the
# factorization $X' = XR$, $Y' = YR^{-\top}$ gives the same scores
# $X'Y'^\top = Z$ but a larger norm.  What does this say about a norm bound
# being a property of the *factorization*, not only of the score matrix?

# %% tags=["exercise"]
X30, Y30 = factor(lam, Q, dim=30)
# (a) ...
# (b) R = ...

# %% tags=["solution"]
X30, Y30 = factor(lam, Q, dim=30)
half_norm = 0.5 * (np.sum(X30 ** 2) + np.sum(Y30 ** 2))
nuclear = np.abs(lam[:30]).sum()          # singular values of a symmetric matrix are |eigenvalues|
print(f"(a) 1/2 (||X||^2 + ||Y||^2) = {half_norm:.6f},  ||Z||_* = {nuclear:.6f}")

rng = np.random.default_rng(SEED)
R = np.eye(30) + 0.5 * rng.normal(size=(30, 30))
X2, Y2 = X30 @ R, Y30 @ np.linalg.inv(R).T
pairs = test_pairs[:1000]
same = np.allclose(metrics.pair_scores(X30, pairs, context=Y30), metrics.pair_scores(X2, pairs, context=Y2),
                   atol=1e-8)
print(f"(b) same scores: {same};  1/2 (||X'||^2 + ||Y'||^2) = {0.5 * (np.sum(X2 ** 2) + np.sum(Y2 ** 2)):.3f}")
# By the AM-GM inequality applied to the singular values, the balanced split
# is the minimum-norm factorization of Z; every other split has a larger
# norm.  A generalization bound in terms of ||x_v|| therefore bounds the best
# factorization available -- SGD from a small random start, which tends to
# stay near balanced factorizations, is what makes the norm meaningful.

# %% [markdown]
# **Exercise 2 (choose $\tau$ and $D$ honestly).**  Split the *training*
# graph again (`lgekit.split_edges(split.train_graph, seed=1)`), build the
# SPPMI of the inner training graph, choose the best $D$ (truncation) and the
# best shrinkage fraction (soft-thresholding) by the AP on the inner held-out
# edges, then refit both on the full training graph (the matrix `M` above)
# and report their **test** AP once.  Which family wins, and by how much
# compared with the noise you would expect from a different seed?

# %% tags=["exercise"]
inner = lgekit.split_edges(split.train_graph, test_fraction=0.2, seed=SEED + 1)
# M_inner = shifted_ppmi(inner.train_graph)
# ...

# %% tags=["solution"]
inner = lgekit.split_edges(split.train_graph, test_fraction=0.2, seed=SEED + 1)
M_inner = shifted_ppmi(inner.train_graph, k=inner.negatives_per_positive)
lam_i, Q_i = eigsh(M_inner, k=K, which="LM")
o = np.argsort(-np.abs(lam_i))
lam_i, Q_i = lam_i[o], Q_i[:, o]


def val_ap(X, Y):
    return metrics.average_precision(X, inner.test_positives, inner.test_negatives, context=Y)


best_dim = max(DIMS, key=lambda d: val_ap(*factor(lam_i, Q_i, dim=d)))
fracs = [0.05, 0.1, 0.2, 0.3, 0.5]
best_frac = max(fracs, key=lambda f: val_ap(*factor(lam_i, Q_i, shrink=f * abs(lam_i[0]))))
X_t, Y_t = factor(lam, Q, dim=best_dim)
X_s, Y_s = factor(lam, Q, shrink=best_frac * sigma_max)
print(f"truncation:        chosen D = {best_dim:<4}  test AP "
      f"{metrics.average_precision(X_t, split.test_positives, split.test_negatives, context=Y_t):.4f}")
print(f"soft-thresholding: chosen tau = {best_frac} sigma_max  test AP "
      f"{metrics.average_precision(X_s, split.test_positives, split.test_negatives, context=Y_s):.4f}")
# The selection uses only training edges.  To judge "by how much", rerun the
# whole cell with other seeds for `split` and `inner`: a difference smaller
# than the seed-to-seed spread is not a finding.

# %% [markdown]
# **Exercise 3 (whose norms grow?).**  In the unregularised SGD model with
# the largest $D$, which vertices have the longest vectors?  Plot $\|x_v\|$
# against the training degree $d_v$ for $\lambda_r = 0$ and for the largest
# $\lambda_r$ in `LAM_RS`, and compute the Spearman correlation.  Explain the
# pattern with the gradient of Eq. 4 (how many terms push on a vertex?) and
# with the way `LogisticEmbedding` spreads the penalty over a vertex's pairs.

# %% tags=["exercise"]
from scipy.stats import spearmanr

# norms = np.linalg.norm(runs[0.0, max(DIMS)].embedding_, axis=1)
# ...

# %% tags=["solution"]
from scipy.stats import spearmanr

d_train = split.train_graph.degrees
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
for ax, lam_r in zip(axes, [0.0, LAM_RS[-1]]):
    norms = np.linalg.norm(runs[lam_r, max(DIMS)].embedding_, axis=1)
    ax.semilogx(np.maximum(d_train, 0.8), norms, ".", alpha=0.4)
    rho = spearmanr(d_train, norms).statistic
    ax.set(xlabel="training degree (0 plotted at 0.8)", title=f"$\\lambda_r$ = {lam_r:g}: Spearman {rho:.2f}")
    lonely = d_train == 0
    print(f"lam_r={lam_r:g}: Spearman(degree, norm) = {rho:.3f}; mean norm of the {int(lonely.sum())} vertices "
          f"with no training edge: {norms[lonely].mean() if lonely.any() else float('nan'):.3f} "
          f"(all vertices: {norms.mean():.3f})")
axes[0].set_ylabel("$\\|x_v\\|$")
plt.tight_layout()
plt.show()
# Per epoch, a vertex of degree d receives d positive pushes, but about
# 4 x (mean degree) negative ones whatever its own degree (both ends of a
# negative pair are uniform over the vertices).  So the edge terms, and with
# them the growth of the norm, scale with the degree: without a penalty
# high-degree vertices travel furthest.  Vertices with no training edge still move: they occur in
# uniform negative pairs, which only push them away from others.  The
# penalty lam_r ||x_v||^2 acts once per vertex per epoch (it is split over the
# vertex's pairs), while the loss terms scale with the degree -- so even with
# the penalty, hubs can afford longer vectors.  The capacity measures of
# notebook 5 are driven by exactly these hubs.
