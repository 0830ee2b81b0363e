"""Figure 2 of Gao et al. (ICLR 2019): the average stochastic-gradient norm (Eq. 2) per SGD epoch.

The paper (Section 3.2): the stochastic gradients become smaller during the
later stage of SGD (vanishing gradients).  This module holds the figure's
spec, that claim, the rule that judges it and the plot (a log axis with plain
tick labels).
"""
import math

from .aggregate import epoch_curve, group, run_series
from .plotting import epoch_panel, lam_label, new_figure
from .spec import LAM_R_SGD, SGD_FIXED, SGD_QUICK, SGD_RECORD, FigureSpec, sgd_note
from .verdict import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Claim, judged, lam_text, number, spread_rows

__all__ = ["SPEC", "CLAIM", "gradients_vanish", "plot"]

CLAIM = Claim(
    name="gradients_vanish", figure="fig2",
    reads=("vanish_ratio", "no_vanish_ratio"),
    statement="The stochastic gradients (Eq. 2) become smaller during the later stage of SGD "
              "(vanishing gradients, Sec. 3.2, Fig. 2)",
)

SPEC = FigureSpec(
    name="fig2", paper="Figure 2",
    title="Average stochastic-gradient norm per epoch (SGD, D = {dim})",
    # the verdict reads the gradient norms: SGD_RECORD records them exactly, not as the default sampled estimate
    model="LogisticEmbedding", params=dict(SGD_FIXED), grid={"lam_r": LAM_R_SGD}, record=SGD_RECORD,
    quick=SGD_QUICK, claims=("gradients_vanish",), thresholds={"vanish_ratio": 0.5, "no_vanish_ratio": 0.9},
    note=sgd_note(),
)


def _grad_ratio(run):
    _, ys = run_series(run, "mean_grad_norm")
    return ys[-1] / max(ys) if len(ys) >= 2 and max(ys) > 0 else None


@judged(CLAIM, SPEC)
def gradients_vanish(runs, th):
    """Fig. 2: the average stochastic-gradient norm (Eq. 2) of SGD decays towards zero.

    Rule, on the mean ``mean_grad_norm`` curve g(t) of the smallest λr:
    REPRODUCED if g(T) <= vanish_ratio * max g; NOT REPRODUCED if
    g(T) > no_vanish_ratio * max g; INCONCLUSIVE in between or without data.
    """
    groups = group(runs, "lam_r")
    numbers = {}
    for lam, rs in groups.items():
        c = epoch_curve(rs, "mean_grad_norm")
        if len(c) >= 2:
            peak_epoch, peak = c.peak()
            last_epoch, last = c.final()
            numbers[lam] = {"peak": peak, "peak_epoch": peak_epoch, "last": last, "last_epoch": last_epoch,
                            "ratio": last / peak if peak > 0 else math.nan}
    lam0 = min(groups)
    if lam0 not in numbers:
        return CLAIM.verdict(INCONCLUSIVE, f"{lam_text(lam0)} has fewer than 2 recorded gradient norms", numbers, th)
    d = numbers[lam0]
    others = "; ".join(f"{lam_text(k)} ends at {number(v['ratio'], 2)} of its peak"
                       for k, v in numbers.items() if k != lam0)
    evidence = (f"{lam_text(lam0)}: gradient norm peaks at {number(d['peak'])} (epoch {d['peak_epoch']}) and ends at "
                f"{number(d['last'])} (epoch {d['last_epoch']}), {number(d['ratio'], 2)} of the peak"
                + (f"; {others}" if others else ""))
    if not math.isfinite(d["ratio"]):
        verdict = INCONCLUSIVE
    elif d["ratio"] <= th["vanish_ratio"]:
        verdict = REPRODUCED
    elif d["ratio"] > th["no_vanish_ratio"]:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers["spread"] = spread_rows(runs, "lam_r", "final/peak gradient norm", _grad_ratio)
    return CLAIM.verdict(verdict, evidence, numbers, th)


def plot(runs, spec, subtitle=""):
    """The mean gradient norm per epoch on a log axis, one curve per λr; returns ``(figure, drawn)``."""
    fig, (ax,) = new_figure(1, spec.title, subtitle, width=6.0)
    panel = epoch_panel(ax, group(runs, "lam_r"), "mean_grad_norm", lam_label, "",
                        "average ‖∂L/∂x_u‖₂ (Eq. 2)", logy=True)
    return fig, {"panels": [panel]}
