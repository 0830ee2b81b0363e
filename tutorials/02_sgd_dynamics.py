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
# # 2. SGD dynamics: norms grow, gradients vanish, early stopping regularizes
#
# Notebook 1 trained a logistic linear graph embedding and saw the training
# AP approach 1 while the test AP stalled.  Here we watch *how* SGD gets
# there, following Section 3 of Gao et al. (ICLR 2019) and its Figures 1-3:
#
# * **Figure 1** -- the mean vector norm $\frac1n\sum_v\|x_v\|$ keeps growing
#   during training when there is no penalty ($\lambda_r = 0$), but ever more
#   slowly;
# * **Figure 2** -- the mean gradient norm
#   $\frac1n\sum_u\|\partial L/\partial x_u\|$ shrinks towards 0: the
#   gradients *vanish* as the pairs get fitted;
# * **Figure 3** -- the test AP peaks early and then degrades without
#   $\lambda_r$; a positive $\lambda_r$ stops the degradation.
#
# The paper's reading: SGD with a decaying step size and vanishing gradients
# **cannot travel far** in a limited number of epochs, so the norms stay
# bounded -- and (notebook 5) bounded norms are what make the embedding
# generalize.  Stopping early is therefore an *implicit* norm regulariser,
# $\lambda_r$ an *explicit* one.
#
# Set `LGEKIT_TUTORIAL_FULL=1` for the full-size run (BlogCatalog, 50 epochs,
# $D = 100$, as in the paper); the default is a small real graph and fewer
# epochs.

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np

import lgekit
from lgekit import datasets, metrics
from lgekit.callbacks import Callback, EarlyStopping, LinkPredictionCallback

FULL = os.environ.get("LGEKIT_TUTORIAL_FULL") == "1"
SEED = 0
DIM = 100
EPOCHS = 50 if FULL else 30
LAM_RS = [0.0, 0.2, 0.6, 1.0]  # the paper's values for Figures 1-3


# the real graph when its files are on this machine, else a synthetic stand-in (and a note saying so)
graph, note = datasets.load_or_synthetic("blogcatalog" if FULL else "email-eu-core",
                                         n_nodes=10_312 if FULL else 1_000, seed=SEED)
if note:
    print(note)
split = lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
print(f"{graph.name}: {graph.n_nodes} vertices, {graph.n_edges} edges; "
      f"{len(split.train_positives)} training edges, {len(split.test_positives)} test edges")

# %% [markdown]
# ## 1. One run per $\lambda_r$
#
# We train `LogisticEmbedding` (SGD, step $\eta_t = (t+1)^{-1/2}$, $D = 100$)
# once for each $\lambda_r$ of the paper.  Everything we plot comes from the
# per-epoch records in `model.history_`:
#
# * `mean_norm` and `mean_grad_norm` are computed by the model itself after
#   every epoch (the gradient is the full Eq. 2 gradient of each vertex, not a
#   single stochastic step);
# * `train_ap` and `test_ap` are added by a `LinkPredictionCallback`, which
#   scores the split after every epoch.

# %%
runs = {}
for lam_r in LAM_RS:
    t0 = time.perf_counter()
    model = lgekit.LogisticEmbedding(dim=DIM, lam_r=lam_r, epochs=EPOCHS, random_state=SEED)
    model.fit(split, callbacks=[LinkPredictionCallback(split)])
    runs[lam_r] = model
    h = model.history_[-1]
    print(f"lam_r={lam_r:<4} {time.perf_counter() - t0:5.1f} s   final mean norm {h['mean_norm']:.3f}   "
          f"grad norm {h['mean_grad_norm']:.4f}   train AP {h['train_ap']:.3f}   test AP {h['test_ap']:.3f}")


def series(model, key):
    """(epochs, values) of one history field, 1-based epochs."""
    hist = [r for r in model.history_ if key in r]
    return np.array([r["epoch"] + 1 for r in hist]), np.array([r[key] for r in hist])


# %% [markdown]
# ## 2. Figure 1: the norms grow
#
# Why should the norms grow at all?  Take one edge $(u, v)$ that the model
# already ranks correctly, $s = x_u\cdot x_v > 0$.  Its loss
# $-\log\sigma(s)$ is still positive and its gradient pushes $x_u$ further
# along $x_v$ -- forever: the loss only reaches 0 at $s = \infty$.  Once the
# training pairs are (nearly) separable, which they are as soon as
# $D$ is large enough, the unregularised objective has **no finite
# minimiser**, and every step makes some vectors longer.  (This is the
# graph-embedding instance of a general fact: gradient descent on separable
# logistic regression diverges in norm and converges in *direction*, to the
# max-margin solution -- Soudry et al., JMLR 2018.)
#
# With $\lambda_r > 0$ the penalty's gradient $2\lambda_r x_u$ eventually
# balances the loss gradient and the norm settles at a finite value, smaller
# for larger $\lambda_r$.
#
# **What to look at:** the $\lambda_r = 0$ curve should keep rising but bend
# over (slower growth), the others should flatten at levels ordered by
# $\lambda_r$.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for lam_r, model in runs.items():
    e, norm = series(model, "mean_norm")
    axes[0].plot(e, norm, label=f"$\\lambda_r$ = {lam_r:g}")
    axes[1].semilogx(e, norm, label=f"$\\lambda_r$ = {lam_r:g}")
axes[0].set(xlabel="epoch", ylabel="mean $\\|x_v\\|$", title="Figure 1: mean vector norm")
axes[1].set(xlabel="epoch (log scale)", ylabel="mean $\\|x_v\\|$", title="same, against $\\log t$")
axes[0].legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# The right panel uses a logarithmic time axis.  If the unregularised curve
# looks roughly straight there, the norm grows roughly like $\log t$: very
# slowly.  That slowness is the subject of the next section.
#
# ## 3. Figure 2: the gradients vanish
#
# From Eq. 2, the contribution of an edge $(u,v)$ to
# $\partial L/\partial x_u$ is $-\lambda_+\sigma(-s)\,x_v$ with
# $\sigma(-s) \approx e^{-s}$ for large $s$: a fitted pair pushes
# **exponentially weakly**.  So the better the fit, the smaller the gradient,
# and combined with the decaying step $\eta_t = (t+1)^{-1/2}$ SGD moves less
# and less.  The total distance travelled after $T$ epochs is at most about
# $\sum_{t<T}\eta_t\,\|\nabla_t\|$, which with vanishing $\|\nabla_t\|$ grows
# much slower than $\sum_t \eta_t \sim 2\sqrt T$.  That is the paper's
# explanation of why the norms stay moderate even without a penalty.
#
# With $\lambda_r > 0$ the gradient goes to zero for a different reason: the
# iterates approach a genuine minimiser, where the gradient is exactly zero.
# **What to look at:** every curve should fall; the question is what remains
# when the norm is still growing ($\lambda_r = 0$) -- a small gradient does not
# mean we are near a minimum.

# %%
fig, ax = plt.subplots(figsize=(6, 3.8))
for lam_r, model in runs.items():
    e, g = series(model, "mean_grad_norm")
    ax.loglog(e, g, label=f"$\\lambda_r$ = {lam_r:g}")
e, lr = series(runs[0.0], "lr")
ax.loglog(e, lr, "k:", label="step size $\\eta_t$")
ax.set(xlabel="epoch", ylabel="mean $\\|\\partial L / \\partial x_u\\|$", title="Figure 2: mean gradient norm")
ax.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 4. Figure 3: generalization over time
#
# Now the consequence.  The left panel shows the **test** AP per epoch;
# the right one, dashed, the **training** AP.  **What to look at:**
#
# * $\lambda_r = 0$: the test AP should peak within the first few epochs and
#   then decline, while the training AP keeps climbing towards 1 -- the model
#   is memorising the training edges, and the norm growth of Figure 1 is what
#   lets it;
# * moderate $\lambda_r$: the test AP should level off instead of declining,
#   at or above the unregularised peak;
# * large $\lambda_r$: the norms are held so small that the model
#   under-fits -- both APs stay lower.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
for lam_r, model in runs.items():
    e, test_ap = series(model, "test_ap")
    line, = axes[0].plot(e, test_ap, label=f"$\\lambda_r$ = {lam_r:g}")
    e, train_ap = series(model, "train_ap")
    axes[1].plot(e, train_ap, "--", color=line.get_color())
axes[0].set(xlabel="epoch", ylabel="average precision", title="Figure 3: test AP")
axes[1].set(xlabel="epoch", title="training AP (dashed)")
axes[0].legend()
plt.tight_layout()
plt.show()

for lam_r, model in runs.items():
    e, test_ap = series(model, "test_ap")
    best = int(np.argmax(test_ap))
    print(f"lam_r={lam_r:<4} best test AP {test_ap[best]:.4f} at epoch {e[best]:>3}, "
          f"final {test_ap[-1]:.4f}  (drop {test_ap[best] - test_ap[-1]:+.4f})")

# %% [markdown]
# Where did the over-fitting go?  Compare the scores $x_u\cdot x_v$ the
# final unregularised model gives to **training edges**, **test edges** and
# **test negatives**.  A model that generalizes scores test edges like
# training edges.  Memorisation shows up as training edges pushed far to the
# right while held-out edges stay behind, mixed with the negatives.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.5), sharey=True)
for ax, lam_r in zip(axes, [0.0, LAM_RS[-1]]):
    X = runs[lam_r].embedding_
    for pairs, name in [(split.train_positives, "training edges"), (split.test_positives, "test edges"),
                        (split.test_negatives, "test negatives")]:
        ax.hist(metrics.pair_scores(X, pairs), bins=80, density=True, histtype="step", label=name)
    ax.set(xlabel="score $x_u \\cdot x_v$", title=f"$\\lambda_r$ = {lam_r:g}")
axes[0].set_ylabel("density")
axes[0].legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 5. Early stopping, done right
#
# If the test AP peaks early, why not stop there?  Because choosing the stop
# epoch by the **test** AP is a leak (notebook 1): the number reported would
# be the maximum of a noisy curve over the very data it is reported on.  The
# honest recipe is a **validation** split carved out of the training graph:
#
# 1. `outer = split_edges(graph)` -- test edges, never looked at until the end;
# 2. `inner = split_edges(outer.train_graph)` -- validation edges taken from
#    the training edges; fit on `inner` and monitor its held-out AP;
# 3. `EarlyStopping(monitor="test_ap", restore_best=True)` stops when the
#    *validation* AP has not improved for `patience` epochs and restores the
#    best embedding (the callback's field is called `test_ap` because for
#    `inner` the held-out edges are its test set);
# 4. report the outer test AP of that embedding, once.
#
# The early-stopped model trains on fewer edges (80% of 80%), so it starts
# with a handicap; whether stopping still pays depends on how strongly the
# unregularised model over-fits.

# %%
inner = lgekit.split_edges(split.train_graph, test_fraction=0.2, negatives_per_positive=4, seed=SEED + 1)
stopper = EarlyStopping(monitor="test_ap", patience=5, restore_best=True)
early = lgekit.LogisticEmbedding(dim=DIM, lam_r=0.0, epochs=EPOCHS, random_state=SEED)
early.fit(inner, callbacks=[LinkPredictionCallback(inner, train=False), stopper])
print(f"stopped after epoch {stopper.stopped_epoch_}, best validation AP {stopper.best_value_:.4f} "
      f"at epoch {stopper.best_epoch_}")
ap_early = metrics.average_precision(early.embedding_, split.test_positives, split.test_negatives)
norm_early = np.linalg.norm(early.embedding_, axis=1).mean()

rows = [("lam_r = 0, early stopping on validation", ap_early, norm_early)]
for lam_r, model in runs.items():
    rows.append((f"lam_r = {lam_r:g}, all {EPOCHS} epochs",
                 metrics.average_precision(model.embedding_, split.test_positives, split.test_negatives),
                 model.history_[-1]["mean_norm"]))
print(f"\n{'model':<42} {'test AP':>8} {'mean norm':>10}")
for name, ap, norm in rows:
    print(f"{name:<42} {ap:8.4f} {norm:10.3f}")

# %% [markdown]
# Read the last column together with the AP: the early-stopped model should
# have a **smaller mean norm** than the unregularised model trained to the
# end, like the models with a penalty.  Early stopping and $\lambda_r$ act
# on the same quantity.  (Note the epoch numbers of `EarlyStopping` are the
# 0-based `epoch` of the history records.)
#
# ## 6. The same SGD, written plainly: `lgekit.reference`
#
# `LogisticEmbedding` runs its epochs in a compiled kernel, tuned for speed
# (shuffles, vectorised updates, threads).  The rule it implements is short,
# and `lgekit.reference.sgd_edge_epoch` states it in a dozen lines of NumPy,
# to be read next to the paper: for each pair $(u, v)$, in a random order,
# with $s = x_u\cdot x_v$ and $g = -\lambda_+\sigma(-s)$ (edge) or
# $g = \lambda_-\sigma(s)$ (negative pair),
#
# $$
# x_u \leftarrow x_u - \eta_t\big(g\,x_v + \tfrac{2\lambda_r}{c_u}x_u\big),\qquad
# x_v \leftarrow x_v - \eta_t\big(g\,x_u + \tfrac{2\lambda_r}{c_v}x_v\big),
# $$
#
# where $c_x$ counts the pairs containing $x$, so that one epoch applies the
# penalty's gradient $2\lambda_r x$ once.  (`lgekit/reference.py` also holds
# the objective, its gradient Eq. (2), the vertex-order epoch and the
# diagnostics.)  lgekit's tests feed the reference the kernel's own pair
# order and require the same embedding to $10^{-12}$; that order is a
# private detail of the kernel, so here we check two public things instead:
#
# 1. **the records**: `reference.logistic_diagnostics` recomputes, from the
#    definitions, what the model stores in `history_` after an epoch;
# 2. **the dynamics**: reference epochs from the model's starting point, in
#    a random order of our own, against the fast model refitted with several
#    seeds.  Two runs in different orders are not equal; the reference
#    should sit inside the spread between the fast model's seeds.
#
# We work in float64 and time both with `time.perf_counter`.

# %%
from lgekit import reference

LAM = dict(lam_pos=1.0, lam_neg=0.03, lam_r=0.6)
REF_EPOCHS = 3
positives, negatives = split.train_positives, split.train_negatives
weights = split.train_graph.edge_weights()

fast_runs = []
for seed in range(8):
    fast_model = lgekit.LogisticEmbedding(dim=DIM, epochs=REF_EPOCHS, dtype="float64", random_state=seed, **LAM)
    fast_runs.append(fast_model.fit(split))

# 1. the records of the first run, recomputed from its final embedding
recomputed = reference.logistic_diagnostics(fast_runs[0].embedding_, positives, negatives, weights=weights, **LAM)
for key in ("objective", "loss_pos", "loss_neg", "reg", "mean_norm", "mean_grad_norm"):
    kept = fast_runs[0].history_[-1][key]
    print(f"{key:<15} model {kept:14.6f}   reference {recomputed[key]:14.6f}   "
          f"relative difference {abs(kept - recomputed[key]) / abs(recomputed[key]):.1e}")

# %%
# 2. the dynamics: reference epochs from the first run's starting point (epochs=0 returns it)
start = lgekit.LogisticEmbedding(dim=DIM, epochs=0, dtype="float64", random_state=0, **LAM).fit(split).embedding_
order_rng = np.random.default_rng(SEED)
n_pairs = len(positives) + len(negatives)
X, ref_curve, ref_seconds = start, [], []
for t in range(REF_EPOCHS):
    order = order_rng.permutation(n_pairs)
    t0 = time.perf_counter()
    X = reference.sgd_edge_epoch(X, positives, negatives, order, reference.learning_rate(t), weights=weights, **LAM)
    ref_seconds.append(time.perf_counter() - t0)
    ref_curve.append(reference.logistic_objective(X, positives, negatives, weights=weights, **LAM).objective)

fast_curves = np.array([[r["objective"] for r in m.history_] for m in fast_runs])
mean, sd = fast_curves.mean(axis=0), fast_curves.std(axis=0, ddof=1)
print(f"{'epoch':>5} {'reference':>11} {'fast model (8 seeds)':>24} {'z':>6}")
for t in range(REF_EPOCHS):
    print(f"{t + 1:>5} {ref_curve[t]:11.2f} {mean[t]:13.2f} +- {sd[t]:6.2f} {(ref_curve[t] - mean[t]) / sd[t]:6.2f}")

# the kernel's time per epoch, without the diagnostics (the reference's time above excludes them too)
t0 = time.perf_counter()
lgekit.LogisticEmbedding(dim=DIM, epochs=REF_EPOCHS, dtype="float64", random_state=0, diagnostics=False,
                         **LAM).fit(split)
fast_seconds = (time.perf_counter() - t0) / REF_EPOCHS
print(f"\none epoch over {n_pairs:,} pairs: reference {np.mean(ref_seconds):.2f} s, kernel {fast_seconds:.3f} s "
      f"(including its setup): {np.mean(ref_seconds) / fast_seconds:.0f}x")

# %% [markdown]
# **What to look at.**  The records agree to rounding error (relative
# differences of $10^{-13}$ at most, often exactly 0): the numbers plotted in
# Figures 1-3 mean exactly what their definitions say.  The reference's objective should lie
# within a few standard deviations of the fast model's mean (a $z$ of order
# 1), and the two curves fall together; the spread itself is what the
# random pair order contributes (the seeds also change the small random
# initialisation).  The kernel is one to two orders of magnitude faster: the
# Python loop pays an interpreter round trip and a few small NumPy calls for
# each of the pairs, the kernel a few hundred floating-point operations.
#
# ## Exercises
#
# **Exercise 1 (write a callback).**  The vanishing-gradient story says the
# training pairs get *fitted*, one after another.  Write a `Callback`
# subclass whose `on_epoch_end(model, epoch, record)` adds to the record the
# fraction of training edges with $\sigma(-s) < 0.05$ (i.e. $s > \log 19$)
# and the fraction of training negatives with $\sigma(s) < 0.05$.  Train an
# unregularised model with it and plot both fractions per epoch next to
# `mean_grad_norm`.  (`model.embedding_` is the current embedding; the
# callback runs after every epoch.)

# %% tags=["exercise"]
class FittedFraction(Callback):
    def __init__(self, positives, negatives, threshold=np.log(19)):
        self.positives, self.negatives, self.threshold = positives, negatives, threshold

    def on_epoch_end(self, model, epoch, record):
        ...  # your code here: add record["fitted_pos"] and record["fitted_neg"]

# %% tags=["solution"]
class FittedFraction(Callback):
    """Adds the fractions of training edges / negatives fitted with margin > threshold."""

    def __init__(self, positives, negatives, threshold=np.log(19)):
        self.positives, self.negatives, self.threshold = positives, negatives, threshold

    def on_epoch_end(self, model, epoch, record):
        X = model.embedding_
        record["fitted_pos"] = float(np.mean(metrics.pair_scores(X, self.positives) > self.threshold))
        record["fitted_neg"] = float(np.mean(metrics.pair_scores(X, self.negatives) < -self.threshold))


watch = lgekit.LogisticEmbedding(dim=DIM, lam_r=0.0, epochs=EPOCHS, random_state=SEED)
watch.fit(split, callbacks=[FittedFraction(split.train_positives, split.train_negatives)])
fig, ax = plt.subplots(figsize=(6, 3.5))
for key, label in [("fitted_pos", "edges with $\\sigma(-s) < 0.05$"),
                   ("fitted_neg", "negatives with $\\sigma(s) < 0.05$")]:
    ax.plot(*series(watch, key), label=label)
ax.set(xlabel="epoch", ylabel="fraction of training pairs")
ax2 = ax.twinx()
ax2.plot(*series(watch, "mean_grad_norm"), "k:", label="mean gradient norm")
ax2.set_ylabel("mean gradient norm")
ax.legend(loc="center right")
plt.tight_layout()
plt.show()
# The fraction of fitted edges rises while the gradient norm falls: each
# fitted edge contributes at most 0.05 * lam_pos * ||x_v|| to the gradient.
# The negatives (weight lam_neg = 0.03) are fitted far less: their term pulls
# little, so most of the remaining gradient comes from the edges not yet fitted.

# %% [markdown]
# **Exercise 2 (is the growth logarithmic?).**  Fit
# $\text{mean norm}(t) \approx a + b\log t$ to the unregularised run over the
# second half of training (`np.polyfit` on $\log t$), and also a power law
# $c\,t^{p}$ (a line in log-log).  Which fits better?  Then change the base
# learning rate (`lr=0.25`, `0.5`, `2.0`): how do the norm curves and the best
# test AP move?  What does that say about "training longer" versus "training
# with larger steps"?

# %% tags=["exercise"]
e, norm = series(runs[0.0], "mean_norm")
# a, b = ...   (norm ~ a + b log t)
# p = ...      (norm ~ c t^p)

# %% tags=["solution"]
e, norm = series(runs[0.0], "mean_norm")
late = e > EPOCHS // 2
b, a = np.polyfit(np.log(e[late]), norm[late], 1)
p, logc = np.polyfit(np.log(e[late]), np.log(norm[late]), 1)
res_log = norm[late] - (a + b * np.log(e[late]))
res_pow = norm[late] - np.exp(logc) * e[late] ** p
print(f"log fit:   norm ~ {a:.3f} + {b:.3f} log t     RMS residual {np.sqrt(np.mean(res_log ** 2)):.4f}")
print(f"power fit: norm ~ {np.exp(logc):.3f} t^{p:.3f}       RMS residual {np.sqrt(np.mean(res_pow ** 2)):.4f}")
# Compare the residuals: which law fits better can depend on the graph and
# the window.  The robust conclusion is the size of p: compare it with 1/2,
# the growth rate that the sum of the step sizes, sum_t (t+1)^(-1/2) ~ 2 sqrt(t),
# would allow if the gradients did not vanish.

fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
for lr in [0.25, 0.5, 1.0, 2.0]:
    try:
        m = runs[0.0] if lr == 1.0 else lgekit.LogisticEmbedding(dim=DIM, lr=lr, epochs=EPOCHS, random_state=SEED).fit(
            split, callbacks=[LinkPredictionCallback(split, train=False)])
    except lgekit.DivergenceError as exc:
        print(f"lr={lr:<5} diverged at epoch {exc.epoch} (mean norm {exc.history[-1]['mean_norm']:.3g})")
        continue
    axes[0].plot(*series(m, "mean_norm"), label=f"lr = {lr:g}")
    ep, ap = series(m, "test_ap")
    axes[1].plot(ep, ap, label=f"lr = {lr:g}")
    print(f"lr={lr:<5} final mean norm {m.history_[-1]['mean_norm']:.3f}  best test AP {ap.max():.4f} "
          f"(epoch {ep[np.argmax(ap)]})  final {ap[-1]:.4f}")
axes[0].set(xlabel="epoch", ylabel="mean norm")
axes[1].set(xlabel="epoch", ylabel="test AP")
axes[0].legend()
plt.tight_layout()
plt.show()
# A larger step reaches large norms sooner, and its test AP peaks earlier and
# falls sooner; a smaller step moves along a similar path more slowly.  To a
# first approximation what matters is how far the iterates travelled (their
# norm), not the epoch count: "number of epochs" is a regularisation
# parameter only relative to a step size.  Too large a step makes SGD blow up
# (a hub's vector receives hundreds of updates per epoch); lgekit then raises
# DivergenceError, whose .history keeps the records up to the blow-up.

# %% [markdown]
# **Exercise 3 (early stopping as a norm budget).**  If early stopping is a
# norm regulariser, the test AP should be (roughly) a function of the mean
# norm, whichever way the norm was limited.  Plot, for every run in `runs`
# and every epoch, the test AP against the mean norm of that epoch, on one
# scatter plot coloured by $\lambda_r$.  Do the curves collapse?  Where do
# they disagree, and why might a penalty differ from a budget?

# %% tags=["exercise"]
# for lam_r, model in runs.items():
#     ...

# %% tags=["solution"]
fig, ax = plt.subplots(figsize=(6, 4))
for lam_r, model in runs.items():
    _, norm = series(model, "mean_norm")
    _, ap = series(model, "test_ap")
    ax.plot(norm, ap, "o-", ms=3, label=f"$\\lambda_r$ = {lam_r:g}")
ax.axvline(norm_early, color="k", ls=":", label="early-stopped model")
ax.set(xlabel="mean norm at that epoch", ylabel="test AP at that epoch")
ax.legend()
plt.tight_layout()
plt.show()
# The curves overlap only partly.  A penalty shrinks every vector by the same
# rule at every step, while stopping leaves whatever shape SGD reached: the
# mean norm is a one-number summary of the capacity (notebook 5 uses the
# maximum norm and the spectral norm of the pair matrix, not the mean).
# Still, along the lam_r = 0 curve the AP first rises with the norm and then
# falls: beyond some norm, extra length buys memorisation, not prediction.
