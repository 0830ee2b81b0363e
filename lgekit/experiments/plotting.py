"""The panels Figures 1-6 are drawn with, and the conventions they share.

Each figure module's ``plot(runs, spec, subtitle)`` returns ``(figure, drawn)``:
the matplotlib Figure and a plain description of what was drawn (panels, axis
labels, scales and limits, and per series its label, x, y, how many seeds and
which runs diverged), which tests and the report inspect.

Conventions:

* The title is the figure's; the subtitle names the data set and the mode
  (quick or full), so that a PNG shared alone says what it shows.
* Curves are means over seeds with a band of ± one standard deviation
  (drawn when there are two seeds or more).  Epoch axes have integer ticks.
* Quantities sampled at a few epochs (Figure 3's F1) are drawn as markers
  joined by dotted lines, with a tick at each sampled epoch: the line between
  two samples is not a measurement.
* Log axes label their ticks in plain numbers (``2``, ``0.5``), not ``2 × 10⁰``.
* Panels are lettered "(a)", "(b)", ... only when a figure has several.
* Panels that are compared share their y-axis (Figure 4's λr panels).
* Average precision against a grid parameter (Figures 5 and 6) is drawn on
  its full range [0, 1], so that a flat result looks flat; Figure 6 also
  shades the spread of the test AP over the dimensions its claim covers.
* A diverged run is never averaged in.  On a per-epoch panel its partial
  curve is dotted and ends in a red ✕ at the epoch it diverged (x) and the
  last value it reached (y), labelled with its grid value and that epoch; a run that recorded
  nothing gets the ✕ on the bottom axis at that epoch.  Figures 5 and 6 mark
  a diverged grid point with a red ✕ at the last test AP the run reached and
  add a panel of the diverged runs' train/test AP per epoch up to their
  divergence.
"""
import math
import textwrap

import numpy as np

from .aggregate import diverged_epoch, epoch_curve, group, last_value, point_summary
from .verdict import write_report_files

__all__ = ["epoch_panel", "point_panel", "diverged_runs_panel", "with_diverged_panel", "new_figure", "panel_titles",
           "lam_label", "dim_label", "has_history_key", "plain_log_ticks", "save_figure"]

#: characters of the subtitle per inch of figure width at the title's size (it wraps beyond)
SUBTITLE_CHARS_PER_INCH = 11
#: a log axis spanning at most this many decades labels its minor ticks too (:func:`plain_log_ticks`)
MINOR_LABELS_DECADES = 1.5

_DIVERGED_STYLE = {"marker": "x", "color": "tab:red", "markersize": 9, "markeredgewidth": 2, "linestyle": "none"}


def _integer_epochs(ax):
    from matplotlib.ticker import MaxNLocator  # lazy: only drawing needs matplotlib

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def plain_log_ticks(axis):
    """Label a log axis's ticks as plain numbers (``2``, ``0.05``), not ``2 × 10⁰`` or ``6e-01``.

    Every decade is labelled; the minor ticks at 2, 3 and 5 times a decade too
    when the axis spans at most :data:`MINOR_LABELS_DECADES` decades (a short
    axis would otherwise show one label or none, a long one would be crowded).
    """
    from matplotlib.ticker import FuncFormatter  # lazy, as every matplotlib import here: only drawing needs it

    def major(value, _):
        return f"{value:g}"

    def minor(value, _):
        low, high = sorted(axis.get_view_interval())
        if value <= 0 or low <= 0 or math.log10(high / low) > MINOR_LABELS_DECADES:
            return ""
        mantissa = value / 10.0 ** math.floor(math.log10(value) + 1e-9)
        return f"{value:g}" if any(abs(mantissa - m) < 1e-6 for m in (2, 3, 5)) else ""

    axis.set_major_formatter(FuncFormatter(major))
    axis.set_minor_formatter(FuncFormatter(minor))


def _diverged_epoch(run):
    """Completed epochs (1-based) at which the run diverged; 1 when it recorded nothing."""
    return diverged_epoch(run) or 1


def _mark_divergence(ax, epoch, reached, text, color="tab:red"):
    """A red ✕ at (``epoch``, the value ``reached``), or on the bottom axis when nothing was reached."""
    if reached is None:
        ax.plot([epoch], [0.0], **_DIVERGED_STYLE, transform=ax.get_xaxis_transform(), clip_on=False)
        ax.annotate(text, (epoch, 0.0), xycoords=ax.get_xaxis_transform(), textcoords="offset points",
                    xytext=(4, 6), color=color, fontsize=8)
    else:
        ax.plot([epoch], [reached], **_DIVERGED_STYLE)
        ax.annotate(text, (epoch, reached), textcoords="offset points", xytext=(4, 4), color=color, fontsize=8)


def epoch_panel(ax, groups, key, label_of, title, ylabel, *, logy=False, markers=False):
    """One panel of per-epoch curves, one per group; returns its description."""
    panel = {"title": title, "xlabel": "epoch", "ylabel": ylabel, "xscale": "linear",
             "yscale": "log" if logy else "linear", "series": []}
    cmap = _colors(len(groups))
    for color, (value, runs) in zip(cmap, groups.items()):
        c = epoch_curve(runs, key)
        label = label_of(value)
        series = {"label": label, "x": c.epochs.tolist(), "y": c.mean.tolist(),
                  "n_seeds": int(c.n.max()) if len(c) else 0, "n_diverged": c.n_diverged, "diverged": []}
        if len(c):
            ax.plot(c.epochs, c.mean, color=color, label=label, marker="o" if markers else None,
                    markersize=5 if markers else None, linestyle=":" if markers else "-")
            if c.n.max() > 1:
                ax.fill_between(c.epochs, c.mean - c.std, c.mean + c.std, color=color, alpha=0.2, linewidth=0)
        labelled = bool(len(c))
        for run in runs:
            if run.get("status") != "diverged":
                continue
            epoch = _diverged_epoch(run)
            reached = last_value(run, key)
            xs = [int(rec["epoch"]) + 1 for rec in run["history"] if _finite(rec.get(key))]
            ys = [float(rec[key]) for rec in run["history"] if _finite(rec.get(key))]
            if xs and xs[-1] < epoch:  # carry the dotted line on to the ✕ at the divergence epoch
                xs, ys = xs + [epoch], ys + [ys[-1]]
            if xs:
                ax.plot(xs, ys, color=color, linestyle=":", label=None if labelled else f"{label} (diverged)")
                labelled = True
            elif not labelled:
                ax.plot([], [], color=color, linestyle=":", label=f"{label} (diverged)")
                labelled = True
            _mark_divergence(ax, epoch, None if reached is None else reached[1],
                             f"{label}: diverged (epoch {epoch})")
            series["diverged"].append({"seed": run.get("seed"), "epoch": epoch,
                                       "reached": None if reached is None else list(reached)})
        panel["series"].append(series)
    if logy:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    sampled = sorted({x for s in panel["series"] for x in s["x"]})
    if markers and sampled:  # a tick at each epoch the quantity was measured at
        ax.set_xticks(sampled)
    else:
        _integer_epochs(ax)
    ax.set_title(title)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:  # nothing labelled when every run failed
        ax.legend(fontsize=8)
    return panel


def _finite(value):
    return value is not None and not (isinstance(value, float) and not math.isfinite(value))


def point_panel(ax, groups, metrics, xlabel, title, *, logx=True, label_of=None):
    """One panel of final metrics against a grid parameter, AP on [0, 1]; returns its description."""
    panel = {"title": title, "xlabel": xlabel, "ylabel": "average precision",
             "xscale": "log" if logx else "linear", "yscale": "linear", "ylim": [0.0, 1.0], "series": []}
    xs = np.array(list(groups), dtype=float)
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
    # a diverged grid point: a red ✕ at the last test AP its run reached (bottom axis if none), labelled
    diverged = []
    for x, runs in zip(xs, groups.values()):
        for run in runs:
            if run.get("status") != "diverged":
                continue
            epoch = _diverged_epoch(run)
            reached = last_value(run, "test_ap")
            y = None if reached is None else reached[1]
            if y is None:
                ax.plot([x], [0.0], **_DIVERGED_STYLE, transform=ax.get_xaxis_transform(), clip_on=False)
            else:
                ax.plot([x], [y], **_DIVERGED_STYLE)
            # centred under the ✕: neighbouring grid points leave little room beside it
            ax.annotate(f"epoch {epoch}", (x, 0.0 if y is None else y),
                        xycoords=ax.get_xaxis_transform() if y is None else "data",
                        textcoords="offset points", xytext=(0, 8 if y is None else -14), ha="center",
                        color="tab:red", fontsize=8)
            diverged.append({"x": float(x), "seed": run.get("seed"), "epoch": epoch, "test_ap": y,
                             "label": None if label_of is None else label_of(x)})
    if diverged:
        ax.plot([], [], **_DIVERGED_STYLE, label="diverged at the epoch shown (last test AP reached)")
        panel["diverged"] = diverged
        panel["diverged_x"] = sorted({d["x"] for d in diverged})
    if logx:
        ax.set_xscale("log")
        plain_log_ticks(ax.xaxis)
    ax.set_ylim(0.0, 1.0)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("average precision")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="lower right")
    return panel


def diverged_runs_panel(ax, groups, label_of, title):
    """Train/test AP per epoch of each diverged run, up to the epoch it diverged (marked on the x-axis)."""
    panel = {"title": title, "xlabel": "epoch", "ylabel": "average precision", "xscale": "linear",
             "yscale": "linear", "ylim": [0.0, 1.0], "series": []}
    diverged = [(value, run) for value, runs in groups.items() for run in runs if run.get("status") == "diverged"]
    for color, (value, run) in zip(_colors(len(diverged)), diverged):
        epoch = _diverged_epoch(run)
        label = f"{label_of(value)}, seed {run.get('seed')}"
        test = [(int(r["epoch"]) + 1, float(r["test_ap"])) for r in run["history"] if _finite(r.get("test_ap"))]
        train = [(int(r["epoch"]) + 1, float(r["train_ap"])) for r in run["history"] if _finite(r.get("train_ap"))]
        if test:
            ax.plot(*zip(*test), color=color, marker="o", markersize=3, label=f"{label}: test AP")
        if train:
            ax.plot(*zip(*train), color=color, linestyle="--", label=f"{label}: train AP")
        ax.axvline(epoch, color=color, linestyle=":", linewidth=1)
        ax.plot([epoch], [0.0], **_DIVERGED_STYLE, transform=ax.get_xaxis_transform(), clip_on=False)
        ax.annotate(f"{label_of(value)} diverged (epoch {epoch})", (epoch, 0.0), xycoords=ax.get_xaxis_transform(),
                    textcoords="offset points", xytext=(-4, 8), rotation=90, ha="right", va="bottom",
                    color="tab:red", fontsize=8)
        panel["series"].append({"label": label, "epoch": epoch, "test_ap": test, "train_ap": train})
    last = max((_diverged_epoch(run) for _, run in diverged), default=1)
    ax.set_xlim(0.5, last + 0.5)  # the last divergence epoch inside the frame, not on its edge
    ax.set_ylim(0.0, 1.0)
    _integer_epochs(ax)
    ax.set_title(title)
    ax.set_xlabel("epoch")
    ax.set_ylabel("average precision")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left")
    return panel


def _colors(n):
    import matplotlib  # lazy: only drawing needs it

    cmap = matplotlib.colormaps["viridis"]
    return [cmap(i / max(1, n - 1) * 0.9) for i in range(n)]


def lam_label(v):
    return f"λr = {v:g}"


def dim_label(v):
    return f"D = {v:g}"


def new_figure(ncols, title, subtitle="", width=5.0, height=3.8, sharey=False):
    """A Figure of ``ncols`` panels in a row, titled ``title`` with ``subtitle`` (the data set and mode) under it.

    A ``subtitle`` of two parts, ``"headline\\ndetails"``, puts its headline (which graph, and why:
    :func:`lgekit.experiments.report.graph_headline`) above the title, as the figure's first line."""
    # a bare Figure (no pyplot): no global state, no GUI backend, nothing to close
    from matplotlib.figure import Figure

    head, _, subtitle = subtitle.rpartition("\n")
    lines = textwrap.wrap(subtitle, width=int(SUBTITLE_CHARS_PER_INCH * width * ncols)) if subtitle else []
    fig = Figure(figsize=(width * ncols, height + 0.2 * (len(lines) + bool(head))), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False, sharey=sharey)
    fig.suptitle("\n".join(([head] if head else []) + [title] + lines), fontsize=11)
    return fig, list(axes[0])


def panel_titles(*titles):
    """Panel titles, lettered "(a)", "(b)", ... only when there are several."""
    if len(titles) < 2:
        return list(titles)
    return [f"({chr(97 + i)}) {t}" for i, t in enumerate(titles)]


def has_history_key(runs, key):
    """Whether some run recorded ``key`` in its history."""
    return any(key in rec for run in runs for rec in run["history"])


def with_diverged_panel(runs, spec, subtitle, key, metrics, xlabel, title, label_of, decorate=None):
    """Figures 5 and 6: final AP against a grid parameter, and a panel of the diverged runs when there are any."""
    groups = group(runs, key)
    any_diverged = any(r.get("status") == "diverged" for r in runs)
    fig, axes = new_figure(2 if any_diverged else 1, spec.title, subtitle, width=6.0 if not any_diverged else 5.5)
    # alone, the panel needs no title: the figure's names D or λr already
    titles = panel_titles(title, "diverged runs: AP per epoch until divergence") if any_diverged else [""]
    panels = [point_panel(axes[0], groups, metrics, xlabel, titles[0], label_of=label_of)]
    if decorate is not None:
        decorate(axes[0], groups, panels[0])
    if any_diverged:
        panels.append(diverged_runs_panel(axes[1], groups, label_of, titles[1]))
    return fig, {"panels": panels}


def save_figure(fig, folder, name):
    """Write ``name.png`` and ``name.pdf`` into ``folder`` atomically; returns the two paths.

    Through :func:`lgekit.experiments.verdict.write_report_files`, the
    writer the theory checks use too.
    """
    return write_report_files(folder, name, figure=fig)
