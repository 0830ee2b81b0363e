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
# # 5. A norm-based generalization bound, term by term
#
# Notebooks 2-4 showed empirically that the norm, not the dimension, decides
# whether a linear graph embedding generalizes.  Theorem 1 of Gao et al.
# (ICLR 2019) is the theoretical side: a Rademacher-complexity bound in which
# the dimension $D$ **does not appear at all**.  Here we evaluate it on real
# trained embeddings, one term at a time, and ask the question every bound
# deserves: *is it vacuous?*
#
# **The setting** (Section 3.1).  The training data are $m + m'$ labelled
# pairs $(a_i, b_i, y_i)$ -- the training edges ($y=+1$) and the sampled
# negative pairs ($y=-1$) -- drawn i.i.d. from a distribution $\mathcal P$
# over pairs.  The hypothesis class is every embedding whose total squared
# norms are bounded, $\sum_u\|x_u\|^2 \le C_U$ and $\sum_v\|x_v\|^2 \le C_V$
# (for our one-vector-per-vertex model $C_U = C_V = \sum_v\|x_v\|^2$),
# scoring a pair by $x_a\cdot x_b$.  The loss $l(y\,x_a\cdot x_b)$ is
# 1-Lipschitz and lies in $[0, B]$.  Theorem 1: with probability
# $\ge 1-\delta$, for every such $x$,
#
# $$
# \mathbb E_{\mathcal P}\,l \;\le\;
# \underbrace{\frac{1}{m+m'}\sum_{i}l(y_i\,x_{a_i}\cdot x_{b_i})}_{\text{training loss}}
# + \underbrace{\frac{2}{m+m'}\,\mathbb E_\sigma\|A_\sigma\|_2\sqrt{C_U C_V}}_{\text{complexity}}
# + \underbrace{4B\sqrt{\frac{2\ln(4/\delta)}{m+m'}}}_{\text{confidence}},
# $$
#
# where $A_\sigma$ has an independent uniform sign $\sigma_i$ at each
# sampled pair $(a_i, b_i)$ and zeros elsewhere.  The heart of the proof
# (appendix) is one line: $\sum_i\sigma_i\,x_{a_i}\cdot x_{b_i} =
# \mathrm{tr}(X_U^\top A_\sigma X_V) \le \|A_\sigma\|_2\,\|X_U\|_F\|X_V\|_F$.
#
# **Which $A_\sigma$?**  Our graph is undirected, so a pair has no
# orientation, and our model has one vector per vertex.  Then
# $\mathrm{tr}(X^\top A X) = \mathrm{tr}(X^\top \frac{A + A^\top}{2} X) \le
# \frac12\|A + A^\top\|_2\,\|X\|_F^2$ for *any* orientation $A$, and
# $\frac12\|A + A^\top\|_2 \le \|A\|_2$: the symmetric matrix (one sign at
# both $(a,b)$ and $(b,a)$), halved, is what the theorem needs, and the
# smallest valid choice (`lgekit.theory.bounds` has the derivation).
#
# So the bound needs two numbers we do not have in closed form for a real
# graph: the training loss (easy) and $\mathbb E_\sigma\|A_\sigma\|_2$, the
# expected spectral norm of a random-sign matrix on the sample's pattern.
# That is where we start.  `LGEKIT_TUTORIAL_FULL=1` uses BlogCatalog and
# larger random graphs.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

import lgekit
from lgekit import datasets, theory

FULL = os.environ.get("LGEKIT_TUTORIAL_FULL") == "1"
SEED = 0
N_DRAWS = 5 if FULL else 3

# %% [markdown]
# ## 1. Random-sign matrices on Erdős–Rényi patterns
#
# Put each of the $n^2$ cells in the pattern independently with probability
# $d/n$ (average degree $d$, $m \approx nd$ pairs) and give every non-zero a
# random sign.  Three predictions for $\mathbb E\|A_\sigma\|_2$:
#
# * **the paper's estimate** $\sqrt{m\ln n/n} = \sqrt{d\ln n}$ (appendix,
#   a central-limit heuristic plus an $\epsilon$-net union bound; the
#   non-commutative Khintchine inequality gives the same order rigorously
#   when every row holds about $d$ pairs);
# * **$2\sqrt d$**, the sharp value when $d \gg \ln n$ (Bandeira & van Handel
#   2016): the edge of the semicircle/Marchenko-Pastur law -- no $\ln n$;
# * for sparse patterns ($d \lesssim \ln n$) the **largest degree**
#   $D_{\max}$ takes over: $\|A\|_2 \ge \sqrt{D_{\max}}$ always (the norm of
#   the densest row), and Benaych-Georges, Bordenave & Knowles (2017) give
#   $\sqrt d\,\Lambda(D_{\max}/d)$ with $\Lambda(a) = a/\sqrt{a-1}$ for
#   $a\ge2$, else 2.
#
# `theory.erdos_renyi_pairs` draws the pattern and
# `theory.expected_spectral_norm` averages the spectral norm (Lanczos) over
# a few sign draws.

# %%
n_er = 8000 if FULL else 2000
degrees = [1, 2, 4, 8, 16, 32, 64]
er_rows = []
for d in degrees:
    est = theory.expected_spectral_norm(theory.erdos_renyi_pairs(n_er, d, seed=SEED), n_draws=N_DRAWS,
                                        seed=SEED + 1, shape=(n_er, n_er))
    er_rows.append(dict(d=est.mean_degree, measured=est.mean, se=est.std_error, D_max=est.max_degree,
                        two_sqrt_d=theory.bandeira_van_handel_estimate(est.mean_degree),
                        paper=theory.paper_estimate(est.n_pairs, n_er),
                        bbk=theory.bbk_estimate(est.max_degree, est.mean_degree)))
print(f"n = {n_er}")
print(f"{'d':>6} {'E||A||':>8} {'s.e.':>6} {'D_max':>6} {'2 sqrt d':>9} {'sqrt(d ln n)':>13} {'BBK':>7}")
for r in er_rows:
    print(f"{r['d']:6.2f} {r['measured']:8.3f} {r['se']:6.3f} {r['D_max']:6d} {r['two_sqrt_d']:9.3f} "
          f"{r['paper']:13.3f} {r['bbk']:7.3f}")

ds = np.array([r["d"] for r in er_rows])
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.loglog(ds, [r["measured"] for r in er_rows], "ko", label="measured $E\\|A_\\sigma\\|_2$")
ax.loglog(ds, [r["two_sqrt_d"] for r in er_rows], "-", label="$2\\sqrt{d}$")
ax.loglog(ds, [r["paper"] for r in er_rows], "--", label="paper: $\\sqrt{d \\ln n}$")
ax.loglog(ds, [r["bbk"] for r in er_rows], ":", label="BBK: $\\sqrt{d}\\,\\Lambda(D_{max}/d)$")
ax.loglog(ds, np.sqrt([r["D_max"] for r in er_rows]), "x", label="$\\sqrt{D_{max}}$")
ax.set(xlabel="average degree d", ylabel="spectral norm",
       title=f"random signs on an n x n pattern of density d/n (not symmetric), n = {n_er}")
ax.legend(fontsize=8)
plt.tight_layout()
plt.show()
dense = [r for r in er_rows if r["d"] >= 8]
assert all(abs(r["measured"] / r["two_sqrt_d"] - 1) < 0.1 and r["paper"] > r["measured"] for r in dense)
print("average degrees where the measurement exceeds the paper's estimate:",
      [round(r["d"], 2) for r in er_rows if r["measured"] > r["paper"]])
if not FULL:   # the quick run's n = 2000 (at n = 8000 the sqrt(ln n) grows and the sparsest case is closer)
    assert er_rows[0]["measured"] > er_rows[0]["paper"], "at d ~ 1 the constant-1 estimate is below the measurement"
# the appendix's own derivation: t = sqrt(8 m ln n / n), i.e. sqrt(8) sqrt(d ln n), above every measurement
assert all(r["measured"] < np.sqrt(8) * r["paper"] for r in er_rows), "sqrt(8 d ln n) bounds every measurement"

# %% [markdown]
# **What the figure shows** (asserted above): for $d \ge 8$ the measurements
# hug $2\sqrt d$ (within 10%), and the paper's $\sqrt{d\ln n}$ sits above
# them by roughly the factor $\sqrt{\ln n}/2$ -- pessimistic, as the
# paper's footnote 5 suspects ("a more accurate estimation could remove the
# $(\ln n)^{0.5}$ factor").  The paper states an order, $O(\sqrt{m\ln n/n})$;
# the curve $\sqrt{d\ln n}$ takes its constant as 1.  The appendix's own
# derivation uses $t = \sqrt{8m\ln n/n} = \sqrt 8\,\sqrt{d\ln n}$, which
# lies above every measurement here (asserted).  With the constant 1 it is
# not an upper bound: at the sparsest pattern ($d \approx 1$, $n = 2000$)
# the measurement *exceeds* $\sqrt{d\ln n}$.  There the measurements rise
# above $2\sqrt d$ towards the maximum-degree predictions: in sparse graphs
# one dense row dominates.  (The pattern is an $n \times n$ matrix whose
# $n^2$ cells are drawn independently -- not the symmetric adjacency of a
# graph $G(n, d/n)$: `erdos_renyi_pairs` draws the bipartite kind by
# default, and that is what Theorem 1's $A_\sigma$ is.)
#
# ## 2. Real graphs have hubs
#
# Real graphs are not Erdős–Rényi: their degrees are heavy-tailed.  Now the
# pattern is the actual training sample of a link-prediction split -- the
# training edges plus their uniform negatives, $m$ pairs in all.  Compare
# the measurement with the predictions computed from its average degree and
# from its maximum degree.

# %%
# the real graph when its files are on this machine, else a synthetic stand-in (and a note saying so)
graph, note = datasets.load_or_synthetic("blogcatalog" if FULL else "email-eu-core",
                                         n_nodes=10_312 if FULL else 1_000, seed=SEED)
if note:
    print(note)
split = lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
n = graph.n_nodes
m = len(split.train_positives) + len(split.train_negatives)   # m + m', the theorem's sample size


def claim(holds, what):
    """Assert a claim of the text on the graph it was written for (email-Eu-core, quick run); elsewhere report it.

    The prose describes the default run.  On the synthetic stand-in or the full-size graph the numbers differ,
    and a claim that does not hold there is printed instead of stopping the notebook.
    """
    if graph.name == "email-eu-core" and not FULL:
        assert holds, what
    elif not holds:
        print(f"[on {graph.name} the text's claim does not hold: {what}]")

# the same sample under each pair convention; "symmetric" (halved) is the one Theorem 1 needs
spec = {c: theory.theorem1_spectral_norm(split, c, n_draws=N_DRAWS, seed=SEED + 2) for c in theory.CONVENTIONS}
real = spec["symmetric"].estimate
er_same = theory.expected_spectral_norm(
    theory.PairPattern.erdos_renyi(n, real.mean_degree, kind="homogeneous", seed=SEED + 3), n_draws=N_DRAWS,
    seed=SEED + 4)
print(f"{graph.name}: n = {n}, m + m' = {m} training pairs")
print(f"{'pattern':<32} {'E||A||':>8} {'mean deg':>9} {'D_max':>6} {'2 sqrt d':>9} {'sqrt D_max':>11} {'BBK':>7}")
for name, est in [(f"{graph.name} sample, A + A^T", real), ("Erdos-Renyi, same n and degree", er_same)]:
    print(f"{name:<32} {est.mean:8.3f} {est.mean_degree:9.2f} {est.max_degree:6d} "
          f"{theory.bandeira_van_handel_estimate(est.mean_degree):9.3f} {np.sqrt(est.max_degree):11.3f} "
          f"{theory.bbk_estimate(est.max_degree, est.mean_degree):7.3f}")
print("\nsensitivity to the convention (value = what enters Theorem 1):")
for c, v in spec.items():
    print(f"  {c:<10} E||A|| {v.estimate.mean:8.3f}  value {v.value:8.3f}")
bbk_real = theory.bbk_estimate(real.max_degree, real.mean_degree)
claim(real.max_degree > 2 * real.mean_degree and real.mean > er_same.mean, "the real sample's norm exceeds the Erdos-Renyi one")
claim(abs(real.mean - bbk_real) < abs(real.mean - theory.bandeira_van_handel_estimate(real.mean_degree)), "the real sample follows the hub prediction")

# %% [markdown]
# **What the table shows** (asserted above): the real sample, whose largest
# degree is several times its mean, has a larger norm than the Erdős–Rényi
# pattern with the same number of pairs, and it is closer to the hub
# prediction $\sqrt d\,\Lambda(D_{\max}/d)$ than to $2\sqrt d$.  The lesson for the bound: **the complexity term is governed
# by the hubs**, not by the average degree.  The conventions table shows how
# much a careless choice of $A_\sigma$ costs: orienting every pair $u < v$
# piles a hub's pairs into one row.
#
# ## 3. The bound on trained embeddings
#
# We train `LogisticEmbedding` with several $\lambda_r$, then assemble the
# three terms with `lgekit.theory`:
#
# * `norm_constants(X)` gives $C_U = C_V = \sum_v\|x_v\|^2$;
# * `generalization_gap(X, split, B=1)` measures the mean logistic loss,
#   clipped at $B = 1$, on the training sample and on the held-out pairs
#   (drawn the same way: the theorem's $\mathbb E_{\mathcal P}l$ is estimated
#   by the held-out loss), and the *trivial loss* of the all-zero embedding,
#   $\ln 2$;
# * `theorem1_bound(train_loss, m + m', E||A||, C_U, C_V, B, delta)` returns
#   the right-hand side and its terms, and `nonvacuous_norm_threshold` the
#   mean squared norm $s^*$ above which the bound is vacuous even with zero
#   training loss.
#
# The loss is the one of Section 3.1 (unweighted logistic), clipped at a $B$
# fixed in advance (the logistic loss is unbounded; $B = 1$ keeps the zero
# embedding's $\ln 2$ unclipped), and we train on it ($\lambda_+ = \lambda_-
# = 1$).  The paper's step is $\gamma_t = (t + c)^{-1/2}$; it gives no value
# for $c$ and does not say whether $t$ counts epochs or updates.  In lgekit
# $t$ is the epoch, counted from 0 (every update of epoch $t$ takes the step
# $\gamma_t$; asserted below).  lgekit's default offset $c = 1$ diverges in
# the first epoch with these weights (shown below), so we use $c = 100$
# (`lr_offset=100`): a step of $0.1$ in the first epoch.
# A bound at or above the trivial loss says nothing -- the zero embedding
# already achieves it.  Caveat: the theorem is for a class fixed in advance;
# plugging in the trained embedding's own $C$ is the usual heuristic reading
# (a union bound over a grid of $C$ values would add a small $\ln\ln$ term).

# %%
DIM = 100 if FULL else 32
EPOCHS = 20 if FULL else 15
LAM_RS = [0.0, 1.0, 3.0, 10.0]
B = 1.0
try:
    lgekit.LogisticEmbedding(dim=DIM, lam_pos=1.0, lam_neg=1.0, lam_r=0.0, epochs=EPOCHS, lr_offset=1,
                             random_state=SEED).fit(split)
    diverged_at = None
except lgekit.DivergenceError as exc:
    diverged_at = exc.epoch
print(f"lam_+ = lam_- = 1 with c = 1: diverged at epoch {diverged_at} (0-based)")
assert diverged_at == 0
A_norm = spec["symmetric"].value
s_star = theory.nonvacuous_norm_threshold(m, A_norm, n, B=B)
print(f"s* = {s_star:.3f}: above this mean squared norm the bound is vacuous whatever the training loss")
models, bound_rows = {}, []
for lam_r in LAM_RS:
    model = lgekit.LogisticEmbedding(dim=DIM, lam_pos=1.0, lam_neg=1.0, lam_r=lam_r, epochs=EPOCHS, lr_offset=100,
                                     random_state=SEED).fit(split)
    models[lam_r] = model
    claim(all(np.isclose(r["lr"], (r["epoch"] + 100) ** -0.5) for r in model.history_),
          "t counts epochs: epoch t (from 0) steps by (t + 100)^(-1/2), 0.1 in the first")
    X = model.embedding_
    C_U, C_V = theory.norm_constants(X)
    gap = theory.generalization_gap(X, split, B=B)
    bound = theory.theorem1_bound(gap.train_loss, m, A_norm, C_U, C_V, B, delta=0.05)
    bound_rows.append(dict(lam_r=lam_r, mean_sq=C_U / n, train=gap.train_loss, test=gap.test_loss,
                           complexity=bound.complexity, confidence=bound.confidence, rhs=bound.rhs,
                           trivial=gap.trivial_loss))

print(f"{'lam_r':>6} {'mean|x|^2':>10} {'train':>7} {'held-out':>9} {'complexity':>11} {'confidence':>11} "
      f"{'bound':>8} {'trivial':>8}  verdict")
for r in bound_rows:
    verdict = "vacuous" if r["rhs"] >= r["trivial"] else "NON-vacuous"
    print(f"{r['lam_r']:6g} {r['mean_sq']:10.3f} {r['train']:7.4f} {r['test']:9.4f} {r['complexity']:11.4f} "
          f"{r['confidence']:11.4f} {r['rhs']:8.4f} {r['trivial']:8.4f}  {verdict}; "
          f"holds: {r['test'] <= r['rhs']}")

# %%
lam_axis = np.arange(len(LAM_RS))
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
rhs_all = np.array([r["rhs"] for r in bound_rows])
for ax, top in zip(axes, [1.05 * rhs_all.max(), 2.2 * bound_rows[0]["trivial"]]):
    bottom = np.zeros(len(LAM_RS))
    for key, label in [("train", "training loss"), ("complexity", "complexity term"),
                       ("confidence", "confidence term")]:
        vals = np.array([r[key] for r in bound_rows])
        ax.bar(lam_axis, vals, bottom=bottom, label=label)
        bottom += vals
    ax.plot(lam_axis, [r["test"] for r in bound_rows], "ko-", label="held-out loss (measured)")
    ax.axhline(bound_rows[0]["trivial"], color="r", ls="--", label="trivial loss (zero embedding)")
    for k, total in enumerate(rhs_all):
        if total > top:                        # a bar cut by the zoomed axis: say where it ends
            ax.annotate(f"bound {total:.1f}", (k, top), xytext=(0, -14), textcoords="offset points",
                        ha="center", fontsize=8)
    ax.set(xticks=lam_axis, xticklabels=[f"{l:g}" for l in LAM_RS], xlabel="$\\lambda_r$", ylabel="loss",
           ylim=(0, top))
axes[0].set_title("Theorem 1, term by term")
axes[1].set_title("the same, zoomed to twice the trivial loss")
axes[0].legend(fontsize=8, loc="upper right")
plt.tight_layout()
plt.show()

held_out = [r["test"] for r in bound_rows]
print("held-out loss per lam_r:", np.round(held_out, 3), "  bound per lam_r:", np.round(rhs_all, 3))
assert all(r["test"] <= r["rhs"] for r in bound_rows)                          # the bound holds
claim(all(a < b for a, b in zip(held_out, held_out[1:])), "the held-out loss rises with lam_r")                      # held-out loss rises with lam_r
claim(all(a > b for a, b in zip(rhs_all, rhs_all[1:])), "the bound falls with lam_r")                        # while the bound falls
comp = [r["complexity"] for r in bound_rows]
assert all(a > b for a, b in zip(comp, comp[1:]))
claim(all(np.isclose(r["complexity"], 2 * r["mean_sq"] * n * (spec["symmetric"].estimate.mean / 2) / m)
          for r in bound_rows), "complexity = 2 mean||x||^2 n (E||A_sym||/2) / (m + m')")
below_s_star = [r["mean_sq"] < s_star for r in bound_rows]
print(f"mean squared norm below s* = {s_star:.3f}:", dict(zip(LAM_RS, below_s_star)))
claim(not below_s_star[0] and below_s_star[-1] and all(r["rhs"] >= r["trivial"] for r in bound_rows), "the norms cross s* and the bound stays vacuous")

# %% [markdown]
# **What to look at.**
#
# * The bound **holds** in every row (held-out loss below the stacked bar;
#   asserted) -- it is a theorem, after all.
# * The **complexity term** falls steadily with $\lambda_r$ (asserted): it is
#   proportional to $\sum_v\|x_v\|^2$, which the penalty shrinks.  Note that
#   $D$ appears nowhere.
# * The bound and the measured held-out loss move in **opposite
#   directions** (asserted): as $\lambda_r$ grows the bound falls, but the
#   held-out loss *rises* towards $\ln 2$ -- the penalty shrinks the scores
#   of all pairs towards 0, and the logistic loss of a score near 0 is near
#   $\ln 2$.  A falling bound is not a falling loss: it only promises that
#   training and held-out losses get closer, and here they meet near the
#   trivial loss (the right panel shows the training loss that the left
#   panel's scale hides at $\lambda_r = 0$).
# * The **confidence term** is tiny here ($4B\sqrt{2\ln 80/(m+m')}$ with
#   $B = 1$): with $B$ fixed in advance it no longer depends on the norms.
# * Whether any row is non-vacuous depends on the sample size per vertex:
#   the complexity term is $2\,\overline{\|x\|^2}\;n\,(\mathbb E\|A_{\rm sym}\|_2/2)/(m+m')$
#   (one table: the halved norm of the symmetric matrix is the value Theorem
#   1 takes; asserted), about $2\sqrt{2n/(m+m')}\,\overline{\|x\|^2}$ for an Erdős–Rényi
#   sample, while below $s^*$ the training loss falls below $\ln 2$ by only a
#   fraction of $\overline{\|x\|^2}$ (uniform negatives have mean score
#   $\ge -\overline{\|x\|^2}/(n-1)$ for any embedding, so only the positives
#   help).  Here the mean squared norm falls below $s^*$ between two
#   consecutive values of $\lambda_r$, and the bound is still vacuous on the
#   other side (asserted below); `lgekit theory bound` shows, on a planted
#   model of Theorem 1's own distribution, how many samples per vertex it
#   takes to become non-vacuous.
#
# Being vacuous does not make the theorem useless: its *shape* -- capacity
# controlled by $\sum_v\|x_v\|^2$ and a spectral norm, independent of $D$ --
# is what the experiments of notebooks 2-4 confirmed.  But the absolute
# numbers should not be quoted as guarantees.
#
# ## Exercises
#
# **Exercise 1 (is the $\ln n$ needed?).**  Write `norms_at_fixed_degree(ns,
# d, seed)` returning $\mathbb E\|A_\sigma\|_2$ (`N_DRAWS` sign draws) on an
# Erdős–Rényi pattern of average degree `d` for each $n$ in `ns`
# (`theory.erdos_renyi_pairs`, `theory.expected_spectral_norm`).  The check
# cell plots the ratios to $2\sqrt d$ and to $\sqrt{d\ln n}$ against $n$ at
# $d = 8$.  Which ratio changes less with $n$, and is it constant?

# %% tags=["exercise"]
def norms_at_fixed_degree(ns, d, seed):
    raise NotImplementedError("exercise 5.1: E||A_sigma|| on an n x n pattern of density d/n, for each n")


# %% tags=["solution"]
def norms_at_fixed_degree(ns, d, seed):
    out = []
    for n_i in ns:
        est = theory.expected_spectral_norm(theory.erdos_renyi_pairs(n_i, d, seed=seed), n_draws=N_DRAWS,
                                            seed=seed + 1, shape=(n_i, n_i))
        out.append(est.mean)
    return np.array(out)
# The ratio to sqrt(d ln n) falls as n grows, by more than a tenth over this
# range (it keeps a sqrt(ln n) that the measurements do not have); the ratio
# to 2 sqrt(d) changes far less but is not constant: at d = 8 it sits a few
# per cent above 1 and rises slowly with n (both asserted below).  d = 8 is
# about ln n here, the sparse regime where the largest degree sets the norm,
# and the largest degree grows like log n / log log n: `lgekit theory
# rademacher` labels d = 5 and 10 "grows with the hubs" for the same reason.
# Only for d >> ln n does the ratio to 2 sqrt(d) settle at 1.

# %% tags=["check"]
def grade_exercise_1(norms_at_fixed_degree):
    """Exercise 1 against measurements of its own, at d = 8 and n = 300, 1000 (where the formulas miss).

    The reference is E||A_sigma|| on four patterns of other seeds; the answer must lie within four
    standard deviations of their mean (2 % at least), which rejects 2 sqrt(d) (6 % low at n = 1000, about
    ten standard deviations), sqrt(d ln n), sqrt(D_max) and any constant: the answer must be a measurement.
    """
    ns_toy, d = [300, 1000], 8
    got = np.asarray(norms_at_fixed_degree(ns_toy, d, seed=SEED + 7), dtype=float)
    assert got.shape == (len(ns_toy),), f"one value per n: got shape {got.shape}"
    for n_i, value in zip(ns_toy, got):
        ref = [theory.expected_spectral_norm(theory.erdos_renyi_pairs(n_i, d, seed=100 + k), n_draws=2,
                                             seed=200 + k, shape=(n_i, n_i)).mean for k in range(4)]
        tol = max(4 * np.std(ref, ddof=1), 0.02 * np.mean(ref))
        assert abs(value - np.mean(ref)) < tol, (
            f"n = {n_i}: {value:.3f}, but measurements on other patterns give {np.mean(ref):.3f} +- {tol:.3f}")


grade_exercise_1(norms_at_fixed_degree)
ns = [500, 1000, 2000, 4000, 8000]
measured = norms_at_fixed_degree(ns, 8, seed=SEED)
ratio_bvh = measured / (2 * np.sqrt(8))
ratio_paper = measured / np.sqrt(8 * np.log(ns))
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogx(ns, ratio_bvh, "o-", label="measured / $2\\sqrt{d}$")
ax.semilogx(ns, ratio_paper, "s-", label="measured / $\\sqrt{d\\ln n}$")
ax.set(xlabel="n", ylabel="ratio", title="d = 8")
ax.legend()
plt.tight_layout()
plt.show()
print("ratio to 2 sqrt(d):", np.round(ratio_bvh, 3), "  ratio to sqrt(d ln n):", np.round(ratio_paper, 3))
assert np.all((ratio_bvh > 0.95) & (ratio_bvh < 1.15)), "E||A|| should stay within 15% of 2 sqrt(d) at d = 8"
assert np.all(np.diff(ratio_paper) < 0), "the ratio to sqrt(d ln n) falls as n grows"
change_bvh, change_paper = ratio_bvh[-1] / ratio_bvh[0] - 1, ratio_paper[-1] / ratio_paper[0] - 1
print(f"from n = {ns[0]} to {ns[-1]}: ratio to 2 sqrt(d) {change_bvh:+.1%}, to sqrt(d ln n) {change_paper:+.1%}")
claim(change_paper < -0.10 and abs(change_bvh) < abs(change_paper) / 3, "the ratio to 2 sqrt(d) changes far less")
claim(np.all(ratio_bvh > 1.0) and change_bvh > 0, "the ratio to 2 sqrt(d) is above 1 and rises with n (the hubs)")

# %% [markdown]
# **Exercise 2 (the degree sequence explains the hubs).**  Write
# `random_twins(train_graph, seed)` returning a Chung–Lu random graph with
# the **same expected degrees** as `train_graph`
# (`datasets.chung_lu_graph(degrees, seed=...)`) and an Erdős–Rényi graph
# with the same number of edges (`datasets.gnm_random_graph`).  The check
# cell measures $\mathbb E\|A_\sigma\|$ on the *edges* of all three (a
# `Graph` can be passed directly: one sign per undirected edge, a symmetric
# matrix).  Which of the two random models reproduces the real graph's
# spectral norm?

# %% tags=["exercise"]
def random_twins(train_graph, seed):
    """(Chung-Lu graph with train_graph's expected degrees, G(n, m) with its edge count)."""
    raise NotImplementedError("exercise 5.2: a Chung-Lu twin and a G(n, m) twin of the training graph")


# %% tags=["solution"]
def random_twins(train_graph, seed):
    """(Chung-Lu graph with train_graph's expected degrees, G(n, m) with its edge count)."""
    return (datasets.chung_lu_graph(train_graph.degrees.astype(float), seed=seed),
            datasets.gnm_random_graph(train_graph.n_nodes, train_graph.n_edges, seed=seed))
# Chung-Lu keeps the heavy tail and lands close to the real graph; G(n, m)
# has the same average degree but no hubs, and a clearly smaller norm.  The
# real graph's communities matter much less than its degree sequence here.

# %% tags=["check"]
def grade_exercise_2(random_twins, train_graph):
    """Exercise 2 on ``train_graph``: two new random graphs, one with its degrees per vertex, one with its edge count.

    The Chung-Lu twin must keep each vertex's degree (correlation > 0.8 with the real degrees, edge count
    within 5 %), the G(n, m) twin must have exactly m edges and no hubs (degree variance near its mean), and
    neither may be the real graph itself (at most half of either's edges are real edges).
    """
    cl_twin, er_twin = random_twins(train_graph, seed=SEED)
    real = train_graph.degrees.astype(float)
    for name, twin in [("Chung-Lu", cl_twin), ("G(n, m)", er_twin)]:
        assert twin.n_nodes == train_graph.n_nodes, f"the {name} twin has {twin.n_nodes} vertices, not {train_graph.n_nodes}"
        shared = train_graph.has_edges(twin.edges()).mean()
        assert shared < 0.5, f"{shared:.0%} of the {name} twin's edges are real edges: draw a new random graph"
    assert er_twin.n_edges == train_graph.n_edges, f"G(n, m) twin: {er_twin.n_edges} edges, not {train_graph.n_edges}"
    assert er_twin.degrees.var() < 2 * er_twin.degrees.mean(), "the G(n, m) twin has hubs: it is not uniform"
    assert abs(cl_twin.n_edges / train_graph.n_edges - 1) < 0.05, f"Chung-Lu twin: {cl_twin.n_edges} edges"
    corr = np.corrcoef(real, cl_twin.degrees)[0, 1]
    assert corr > 0.8, f"the Chung-Lu twin's degrees correlate {corr:.2f} with the real ones: keep each vertex's degree"


grade_exercise_2(random_twins, split.train_graph)
cl, er = random_twins(split.train_graph, seed=SEED)
norms = {}
for name, g in [("real training graph", split.train_graph), ("Chung-Lu, same degrees", cl),
                ("G(n, m), same edge count", er)]:
    norms[name] = theory.expected_spectral_norm(g, n_draws=N_DRAWS, seed=SEED + 5).mean
    print(f"{name:<26} edges {g.n_edges:7d}  D_max {int(g.degrees.max()):5d}  E||A|| {norms[name]:7.3f}")
real_norm, cl_norm, er_norm = norms.values()
claim(abs(cl_norm / real_norm - 1) < 0.15 and er_norm < 0.8 * real_norm, "Chung-Lu matches the real norm, G(n, m) falls short")

# %% [markdown]
# **Exercise 3 (can shrinking rescue the bound?).**  Take the unregularized
# embedding $X$ ($\lambda_r = 0$) and scale it, $X_c = cX$ for
# $c \in (0, 1]$.  Shrinking keeps every ranking (AP is unchanged) but
# changes the losses: $C$ scales by $c^2$, the training loss grows.  Write
# `scaled_bound(X, c)` returning the bound's right-hand side for $X_c$ (with
# `split`, `m`, `A_norm`, `B` and $\delta = 0.05$ as in Section 3).  The check
# cell evaluates it on a fine grid of $c$ from $10^{-4}$ to 1 (evenly spaced
# in $\log c$).  Where is it smallest?  Compare its limit as $c \to 0$ with
# the bound of the **zero embedding** (training loss $\ln 2$, complexity 0:
# only the confidence term is left).  Is any scale below the trivial loss?
# What does that say about "rank-based" versus "loss-based" generalization?

# %% tags=["exercise"]
def scaled_bound(X, c):
    raise NotImplementedError("exercise 5.3: Theorem 1's right-hand side for the embedding c X")


# %% tags=["solution"]
def scaled_bound(X, c):
    Xc = c * np.asarray(X, dtype=np.float64)
    C_U, C_V = theory.norm_constants(Xc)
    gap_c = theory.generalization_gap(Xc, split, B=B)
    return theory.theorem1_bound(gap_c.train_loss, m, A_norm, C_U, C_V, B, delta=0.05).rhs
# Shrinking trades the complexity term (~ c^2) against the training loss,
# which climbs towards ln 2 as c -> 0.  Here the trade never pays: the bound
# rises with c over the whole grid, so its infimum is the limit c -> 0,
# ln 2 + the confidence term -- the bound of the zero embedding, which
# predicts nothing.  Every scale is above the trivial loss ln 2: the bound
# controls the *loss*, and a loss near ln 2 says nothing about the *ranking*
# (AP), which shrinking leaves untouched.
# Margin-based bounds (ramp losses with a scale) are the usual way to talk
# about rankings instead.

# %% tags=["check"]
def grade_exercise_3(scaled_bound, X, rhs_at_1):
    """Exercise 3: c = 1 gives ``rhs_at_1``, c -> 0 the zero embedding's bound, and c = 0.3 Theorem 1 on 0.3 X.

    Every ingredient must be recomputed for c X: norm constants kept from X leave the complexity term at
    c -> 0, a training loss kept from X leaves it below ln 2, and constants scaled by c (not c^2) give
    another value at c = 0.3.
    """
    assert np.isclose(scaled_bound(X, 1.0), rhs_at_1, rtol=1e-6), "c = 1 must give the unscaled embedding's bound"
    zero = theory.theorem1_bound(np.log(2), m, A_norm, 0.0, 0.0, B, delta=0.05).rhs
    assert np.isclose(scaled_bound(X, 1e-6), zero, rtol=1e-5), (
        f"as c -> 0 the bound must tend to the zero embedding's, ln 2 + confidence = {zero:.4f}")
    X3 = 0.3 * np.asarray(X, dtype=np.float64)
    want = theory.theorem1_bound(theory.generalization_gap(X3, split, B=B).train_loss, m, A_norm,
                                 *theory.norm_constants(X3), B, delta=0.05).rhs
    assert np.isclose(scaled_bound(X, 0.3), want, rtol=1e-6), f"c = 0.3: {scaled_bound(X, 0.3)}, Theorem 1 on 0.3 X gives {want}"


X0 = models[0.0].embedding_
grade_exercise_3(scaled_bound, X0, bound_rows[0]["rhs"])
cs = np.geomspace(1e-4, 1.0, 60)
rhs_c = np.array([scaled_bound(X0, c) for c in cs])
best_c = int(np.argmin(rhs_c))
trivial = bound_rows[0]["trivial"]
zero_bound = theory.theorem1_bound(trivial, m, A_norm, 0.0, 0.0, B, delta=0.05)
print(f"min bound {rhs_c[best_c]:.4f} at c = {cs[best_c]:.1e} (the grid's smallest); zero embedding's bound "
      f"{zero_bound.rhs:.4f} = ln 2 + confidence {zero_bound.confidence:.4f}; trivial loss {trivial:.4f}")
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogx(cs, rhs_c, label="bound for c X")
ax.axhline(zero_bound.rhs, color="k", ls=":", label="zero embedding's bound ($c \\to 0$)")
ax.axhline(trivial, color="r", ls="--", label="trivial loss $\\ln 2$")
ax.set(xlabel="scale c", ylabel="loss", ylim=(0, min(rhs_c.max(), 4 * trivial)))
ax.legend(fontsize=8)
plt.tight_layout()
plt.show()
claim(np.all(np.diff(rhs_c) > 0), "the bound rises with c over the whole grid")
claim(best_c == 0 and abs(rhs_c[0] - zero_bound.rhs) < 1e-3, "its infimum is the zero embedding's bound, at c -> 0")
claim(rhs_c.min() > trivial, "no scale makes the bound non-vacuous")
