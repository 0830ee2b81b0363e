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
# # 8. The norm dial: Figures 1-4 under your fingers
#
# Tutorials 2 and 3 ran the paper's Figures 1-4 for a few fixed settings.
# Here four sliders -- the penalty $\lambda_r$, the dimension $D$, the number
# of epochs and the base step -- retrain `LogisticEmbedding` on a small graph
# after every move and redraw all four figures, so you can *feel* the claim
# of the course: **the norm, not the dimension, decides generalization.**
#
# * **Figure 1** -- mean vector norm per epoch;
# * **Figure 2** -- mean gradient norm per epoch (vanishing gradients);
# * **Figure 3** -- training and test AP per epoch (early peak and decay
#   without a penalty);
# * **Figure 4** -- final test AP against $D$ at the current $\lambda_r$,
#   epochs and step (the current $D$ marked).
#
# Things to try: set $\lambda_r = 0$ and push the epochs up -- the norm keeps
# growing and the test AP sags while the training AP reaches 1; now raise
# $\lambda_r$ and watch the norm curve flatten and the sag disappear; then
# move $D$ from 2 to 128 at each setting and compare Figure 4's curves.
# Double the step and see the same story happen in fewer epochs (the norm
# travelled, not the epoch count, is what matters).
#
# The graph is a seeded planted-partition graph of 400 vertices (lgekit's
# generator), small enough that a fit takes a fraction of a second.  Running
# this notebook without a live Jupyter front end (as a script, or executed by
# `nbclient` in CI) draws the figures once, at the default settings, and
# skips the sliders.

# %%
import time
from functools import lru_cache

import matplotlib.pyplot as plt
import numpy as np

import lgekit
from lgekit import datasets, metrics
from lgekit.callbacks import LinkPredictionCallback

SEED = 0
graph = datasets.planted_partition_graph(n_nodes=400, n_labels=8, mean_degree=12, seed=SEED)
split = lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
CHANCE = 1 / (1 + split.negatives_per_positive)
DIMS = (2, 8, 32, 128)
# the first fit of a session pays one-time start-up costs (seconds); pay them here, so that the times
# printed in the figures' titles are those of a retraining
lgekit.LogisticEmbedding(dim=2, epochs=1, random_state=SEED).fit(split, callbacks=[LinkPredictionCallback(split)])
print(f"{graph.name}: {graph.n_nodes} vertices, {graph.n_edges} edges; {len(split.test_positives)} held out")


@lru_cache(maxsize=256)
def train(lam_r, dim, epochs, lr):
    """The per-epoch history of one fit (cached: moving a slider back costs nothing)."""
    model = lgekit.LogisticEmbedding(dim=dim, lam_r=lam_r, epochs=epochs, lr=lr, random_state=SEED)
    try:
        model.fit(split, callbacks=[LinkPredictionCallback(split)])
    except lgekit.DivergenceError as exc:      # too large a step: show the epochs before the blow-up
        return tuple(exc.history), True
    return tuple(model.history_), False


def field(history, key):
    return np.array([r["epoch"] + 1 for r in history if key in r]), np.array([r[key] for r in history if key in r])


def draw(lam_r=0.0, dim=32, epochs=30, lr=1.0):
    """Retrain at these settings and draw Figures 1-4; returns the figure and the retraining time."""
    t0 = time.perf_counter()
    history, diverged = train(lam_r, dim, epochs, lr)
    seconds = time.perf_counter() - t0
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.4))
    axes[0].plot(*field(history, "mean_norm"), color="C0")
    axes[0].set(xlabel="epoch", ylabel="mean $\\|x_v\\|$", title="Figure 1: mean norm")
    axes[1].plot(*field(history, "mean_grad_norm"), color="C1")
    axes[1].set(xlabel="epoch", ylabel="mean gradient norm", yscale="log", title="Figure 2: gradient norm")
    axes[2].plot(*field(history, "train_ap"), "--", color="C2", label="train AP")
    axes[2].plot(*field(history, "test_ap"), color="C2", label="test AP")
    axes[2].axhline(CHANCE, color="grey", ls=":", label="chance")
    axes[2].set(xlabel="epoch", ylabel="average precision", ylim=(0, 1.02), title="Figure 3: AP per epoch")
    axes[2].legend(fontsize=8)
    final_ap = [field(train(lam_r, d, epochs, lr)[0], "test_ap")[1][-1] for d in DIMS]
    axes[3].semilogx(DIMS, final_ap, "o-", color="C3")
    axes[3].plot([dim], [field(history, "test_ap")[1][-1]], "k*", ms=12, label=f"D = {dim}")
    axes[3].axhline(CHANCE, color="grey", ls=":")
    axes[3].set(xlabel="dimension D", ylabel=f"test AP after {epochs} epochs", ylim=(0, 1.02),
                title="Figure 4: AP against D")
    axes[3].legend(fontsize=8)
    state = "DIVERGED (step too large)" if diverged else f"final mean norm {history[-1]['mean_norm']:.2f}"
    fig.suptitle(f"$\\lambda_r$ = {lam_r:g}, D = {dim}, {epochs} epochs, step {lr:g}: {state}; "
                 f"retrained in {seconds:.2f} s", fontsize=10)
    plt.tight_layout()
    return fig, seconds


# %% [markdown]
# ## The default settings, drawn once
#
# **Claim: without a penalty the run memorises; with one it does not.**  The
# static figure at $\lambda_r = 0$, then the numbers of the same fit at
# $\lambda_r = 0.6$ (the cell asserts the contrast, so this page cannot
# drift from what the sliders show).

# %%
fig, seconds = draw()
plt.show()
free, _ = train(0.0, 32, 30, 1.0)
penalised, _ = train(0.6, 32, 30, 1.0)
for name, h in [("lam_r = 0", free), ("lam_r = 0.6", penalised)]:
    _, test_ap = field(h, "test_ap")
    print(f"{name:<12} final mean norm {h[-1]['mean_norm']:.2f}  train AP {h[-1]['train_ap']:.3f}  "
          f"test AP best {test_ap.max():.3f}, final {test_ap[-1]:.3f}")
assert free[-1]["mean_norm"] > 1.5 * penalised[-1]["mean_norm"]
assert free[-1]["train_ap"] > penalised[-1]["train_ap"]
assert field(free, "test_ap")[1].max() - free[-1]["test_ap"] > field(penalised, "test_ap")[1].max() - penalised[-1]["test_ap"]

# %% [markdown]
# **What the figure shows** (the contrast asserted above): at
# $\lambda_r = 0$ the mean norm grows through all 30 epochs, the training AP
# climbs above the penalised model's while the test AP falls back from its
# early peak by more than the penalised model's does; the penalised run ends
# with less than two thirds of the norm.
#
# ## The dial
#
# Move a slider and the four figures are redrawn (the title says how long
# the retraining took).  The sliders need a live Jupyter front end with
# ipywidgets (`pip install -e ".[tutorials]"`); elsewhere this cell says so
# and does nothing.

# %%
def has_widget_frontend():
    """True inside a Jupyter kernel (where a front end may render widgets), False in a plain script."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and "IPKernelApp" in shell.config


try:
    import ipywidgets as widgets        # optional: the 'tutorials' extra
    from IPython.display import display
except ImportError:
    widgets = None

if widgets is None or not has_widget_frontend():
    print("no widget front end here: the static figure above is the whole dial")
else:
    controls = dict(
        lam_r=widgets.SelectionSlider(options=[0.0, 0.03, 0.1, 0.2, 0.3, 0.6, 1.0, 2.0], value=0.0,
                                      description="lambda_r", continuous_update=False),
        dim=widgets.SelectionSlider(options=list(DIMS), value=32, description="D", continuous_update=False),
        epochs=widgets.IntSlider(value=30, min=1, max=100, description="epochs", continuous_update=False),
        lr=widgets.SelectionSlider(options=[0.25, 0.5, 1.0, 1.5, 2.0], value=1.0, description="step",
                                   continuous_update=False),
    )
    output = widgets.Output()

    def redraw(_change=None):
        with output:
            output.clear_output(wait=True)
            draw(**{name: control.value for name, control in controls.items()})
            plt.show()

    for control in controls.values():
        control.observe(redraw, names="value")
    # the figure above is the dial's starting state; the output fills at the first move
    display(widgets.VBox([widgets.HBox(list(controls.values())[:2]), widgets.HBox(list(controls.values())[2:]),
                          output]))
