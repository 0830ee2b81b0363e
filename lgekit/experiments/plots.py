"""Figures 1-6 drawn from runs, laid out like the paper's panels.

Each ``plot_figN(runs, spec)`` returns ``(figure, drawn)``: the matplotlib
Figure and a plain description of what was drawn (panels, axis labels and
scales, and per series its label, x, y and how many seeds/diverged runs), which
tests and the report inspect.  Curves are means over seeds with a band of
± one standard deviation (drawn when there are two seeds or more).  A diverged
run is drawn as its partial curve (dotted) ending in a red ✕ annotated
"diverged"; for final-metric figures a diverged grid point is a red ✕ on the
bottom axis.
"""
import numpy as np

from .aggregate import epoch_curve, group, point_summary

__all__ = ["plot_figure", "save_figure", "PLOTTERS"]

_DIVERGED_STYLE = {"marker": "x", "color": "tab:red", "markersize": 9, "markeredgewidth": 2, "linestyle": "none"}


def _epoch_panel(ax, groups, key, label_of, title, ylabel, *, logy=False, markers=False):
    """One panel of per-epoch curves, one per group; returns its description."""
    panel = {"title": title, "xlabel": "epoch", "ylabel": ylabel, "xscale": "linear",
             "yscale": "log" if logy else "linear", "series": []}
    cmap = _colors(len(groups))
    for color, (value, runs) in zip(cmap, groups.items()):
        c = epoch_curve(runs, key)
        label = label_of(value)
        series = {"label": label, "x": c.epochs.tolist(), "y": c.mean.tolist(), "n_seeds": int(c.n.max()) if len(c) else 0,
                  "n_diverged": c.n_diverged}
        if len(c):
            ax.plot(c.epochs, c.mean, color=color, label=label, marker="o" if markers else None,
                    markersize=4 if markers else None)
            if c.n.max() > 1:
                ax.fill_between(c.epochs, c.mean - c.std, c.mean + c.std, color=color, alpha=0.2, linewidth=0)
        for xs, ys in c.diverged:
            if len(xs):
                ax.plot(xs, ys, color=color, linestyle=":", label=None if len(c) else label)
                ax.plot(xs[-1:], ys[-1:], **_DIVERGED_STYLE)
                ax.annotate("diverged", (xs[-1], ys[-1]), textcoords="offset points", xytext=(4, 4),
                            color="tab:red", fontsize=8)
        if c.n_diverged and not any(len(xs) for xs, _ in c.diverged):
            ax.plot([], [], **_DIVERGED_STYLE, label=f"{label}: diverged at epoch 1")
        panel["series"].append(series)
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if groups:
        ax.legend(fontsize=8)
    return panel


def _point_panel(ax, groups, metrics, xlabel, title, *, logx=True):
    """One panel of final metrics against a grid parameter; returns its description."""
    panel = {"title": title, "xlabel": xlabel, "ylabel": "average precision",
             "xscale": "log" if logx else "linear", "yscale": "linear", "series": []}
    xs = np.array(list(groups), dtype=float)
    diverged_x = []
    for (metric, label), color in zip(metrics, ("tab:blue", "tab:orange", "tab:green")):
        stats = [point_summary(runs, metric) for runs in groups.values()]
        mean = np.array([s["mean"] for s in stats])
        std = np.array([s["std"] for s in stats])
        ok = ~np.isnan(mean)
        ax.plot(xs[ok], mean[ok], marker="o", color=color, label=label)
        if any(s["n"] > 1 for s in stats):
            ax.fill_between(xs[ok], (mean - std)[ok], (mean + std)[ok], color=color, alpha=0.2, linewidth=0)
        panel["series"].append({"label": label, "x": xs[ok].tolist(), "y": mean[ok].tolist(),
                                "n_seeds": max((s["n"] for s in stats), default=0),
                                "n_diverged": sum(s["n_diverged"] for s in stats)})
        diverged_x += [x for x, s in zip(xs, stats) if s["n_diverged"]]
    if logx:
        ax.set_xscale("log")
    if diverged_x:
        diverged_x = sorted(set(diverged_x))
        ymin = ax.get_ylim()[0]
        ax.plot(diverged_x, [ymin] * len(diverged_x), **_DIVERGED_STYLE, label="diverged", clip_on=False)
        for x in diverged_x:
            ax.annotate("diverged", (x, ymin), textcoords="offset points", xytext=(3, 6), color="tab:red", fontsize=8)
        panel["diverged_x"] = diverged_x
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("average precision")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return panel


def _colors(n):
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    return [cmap(i / max(1, n - 1) * 0.9) for i in range(n)]


def _lam_label(v):
    return f"λr = {v:g}"


def _dim_label(v):
    return f"D = {v:g}"


def _new(ncols, title, width=5.0, height=3.8):
    # a bare Figure (no pyplot): no global state, no GUI backend, nothing to close
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)
    fig.suptitle(title, fontsize=11)
    return fig, list(axes[0])


def plot_fig1(runs, spec):
    fig, (ax,) = _new(1, spec["title"], width=6.0)
    panel = _epoch_panel(ax, group(runs, "lam_r"), "mean_norm", _lam_label, "(a) average L2 norm",
                         "average ‖x_v‖₂")
    return fig, {"panels": [panel]}


def plot_fig2(runs, spec):
    fig, (ax,) = _new(1, spec["title"], width=6.0)
    panel = _epoch_panel(ax, group(runs, "lam_r"), "mean_grad_norm", _lam_label, "(a) stochastic-gradient norm",
                         "average ‖∇‖₂ (Eq. 4)", logy=True)
    return fig, {"panels": [panel]}


def _has(runs, key):
    return any(key in rec for run in runs for rec in run["history"])


def plot_fig3(runs, spec):
    with_f1 = _has(runs, "micro_f1")
    fig, axes = _new(3 if with_f1 else 1, spec["title"], width=5.0 if with_f1 else 6.0)
    groups = group(runs, "lam_r")
    panels = [_epoch_panel(axes[0], groups, "test_ap", _lam_label, "(a) link prediction", "test AP")]
    if with_f1:
        panels.append(_epoch_panel(axes[1], groups, "micro_f1", _lam_label, "(b) node classification",
                                   "Micro-F1", markers=True))
        panels.append(_epoch_panel(axes[2], groups, "macro_f1", _lam_label, "(c) node classification",
                                   "Macro-F1", markers=True))
    return fig, {"panels": panels}


def plot_fig4(runs, spec):
    by_lam = group(runs, "lam_r")
    fig, axes = _new(max(1, len(by_lam)), spec["title"], width=4.2)
    panels = []
    for i, (ax, (lam, rs)) in enumerate(zip(axes, by_lam.items())):
        panels.append(_epoch_panel(ax, group(rs, "dim"), "test_ap", _dim_label,
                                   f"({chr(97 + i)}) {_lam_label(lam)}", "test AP"))
    return fig, {"panels": panels}


def plot_fig5(runs, spec):
    fig, (ax,) = _new(1, spec["title"], width=6.0)
    panel = _point_panel(ax, group(runs, "lam_r"), [("train_ap", "train AP"), ("test_ap", "test AP")],
                         "λr", f"(a) D = {spec['params'].get('dim', '?')}")
    return fig, {"panels": [panel]}


def plot_fig6(runs, spec):
    fig, (ax,) = _new(1, spec["title"], width=6.0)
    panel = _point_panel(ax, group(runs, "dim"), [("test_ap", "test AP")], "dimension D",
                         f"(a) λr = {spec['params'].get('lam_r', '?')}")
    return fig, {"panels": [panel]}


PLOTTERS = {"fig1": plot_fig1, "fig2": plot_fig2, "fig3": plot_fig3, "fig4": plot_fig4,
            "fig5": plot_fig5, "fig6": plot_fig6}


def plot_figure(name, runs, spec):
    """Draw figure ``name`` from ``runs``; returns ``(matplotlib Figure, drawn description)``."""
    fig, drawn = PLOTTERS[name](runs, spec)
    drawn["figure"] = name
    drawn["title"] = spec["title"]
    return fig, drawn


def save_figure(fig, folder, name):
    """Write ``name.png`` and ``name.pdf`` into ``folder`` atomically; returns the two paths."""
    from pathlib import Path

    from .._atomic import atomic_path

    paths = []
    for ext, kw in (("png", {"dpi": 130}), ("pdf", {})):
        path = Path(folder) / f"{name}.{ext}"
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=ext, **kw)
        paths.append(path)
    return paths
