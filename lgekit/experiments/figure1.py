"""Figure 1 of Gao et al. (ICLR 2019): the average norm of the embedding vectors per SGD epoch.

The paper (Section 3.2): "the average norm of embedding vectors increases
consistently after each epoch, but the increase rate gets slower as time
progresses"; and on Figure 3, λr = 0's vectors "have the largest norm among all
settings".  This module holds the figure's spec, that claim, the rule that
judges it and the plot.
"""
from .aggregate import epoch_curve, group, run_series
from .plotting import epoch_panel, lam_label, new_figure
from .spec import LAM_R_SGD, SGD_FIXED, SGD_QUICK, SGD_RECORD, FigureSpec, sgd_note
from .verdict import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Claim, judged, lam_text, number, spread_rows

__all__ = ["SPEC", "CLAIM", "norms_grow_slowing", "plot", "PAPER_FIG1", "PAPER_FIG1_LARGEST"]

#: the paper's Section 3.2 sentences the rule is judged against (quoted in the evidence)
PAPER_FIG1 = ("the average norm of embedding vectors increases consistently after each epoch, but the increase "
              "rate gets slower as time progresses")
PAPER_FIG1_LARGEST = ("the generalization performance is worst near the end of SGD execution when λr = 0, which "
                      "coincides with the fact that embedding vectors in that case also have the largest norm among "
                      "all settings")

CLAIM = Claim(
    name="norms_grow_slowing", figure="fig1",
    reads=("norm_growth_min",),
    statement="Without regularization, the average norm of the embedding vectors increases consistently "
              "during SGD, but the increase rate gets slower (Sec. 3.2, Fig. 1; the paper's norms grow at "
              "every λr drawn)",
)

SPEC = FigureSpec(
    name="fig1", paper="Figure 1",
    title="Average L2 norm of the embedding vectors per epoch (SGD, D = {dim})",
    model="LogisticEmbedding", params=dict(SGD_FIXED), grid={"lam_r": LAM_R_SGD}, record=SGD_RECORD,
    quick=SGD_QUICK, claims=("norms_grow_slowing",), thresholds={"norm_growth_min": 0.05},
    note=sgd_note(),
)


def _norm_ratio(run):
    _, ys = run_series(run, "mean_norm")
    return ys[-1] / ys[0] if len(ys) >= 2 and ys[0] > 0 else None


def _trend(d, th):
    """'grows', 'falls' or 'barely grows' for a norm curve summary ``d`` (first/last)."""
    if d["last"] >= (1 + th["norm_growth_min"]) * d["first"]:
        return "grows"
    if d["last"] < d["first"]:
        return "falls"
    return "barely grows"


@judged(CLAIM, SPEC)
def norms_grow_slowing(runs, th):
    """Fig. 1: without regularization the vector norms grow during SGD, ever more slowly.

    The paper (Sec. 3.2, on Fig. 1, drawn for several λr): "the average norm
    of embedding vectors increases consistently after each epoch, but the
    increase rate gets slower as time progresses"; and (on Fig. 3) λr = 0's
    vectors "have the largest norm among all settings".

    Rule, on the mean norm curve n(t) of each λr (t = completed epochs, 1..T,
    mid = the epoch nearest T/2):
    grows := n(T) >= (1 + norm_growth_min) n(1); falls := n(T) < n(1);
    slows := n(T) - n(mid) < n(mid) - n(1).

    * NOT REPRODUCED if at the smallest λr (the main claim) n(T) <= n(1) or
      the growth accelerates (second half >= first half), or if another λr
      ends more than ``norm_growth_min`` above the smallest λr's final norm
      (regularization that does not shrink the norms: a wrong sign or a
      regulariser that is not applied);
    * REPRODUCED if at the smallest λr the norm grows and slows, and its
      final norm is the largest (within ``norm_growth_min``);
    * INCONCLUSIVE otherwise (growth under ``norm_growth_min``, another λr
      ending within ``norm_growth_min`` above it, fewer than 3 epochs, no
      finished run).

    Every λr is classified (grows / barely grows / falls) in the evidence, and
    the λr at which the norms do not grow are listed in
    ``numbers["differs_from_paper"]`` (the report prints them as a "differs
    from the paper" line): the paper's norms grow at every λr, while an
    edge-order SGD that applies the regulariser at every visit shrinks them
    for large λr.  That difference does not decide the verdict: the claim the
    paper draws from Figure 1 (small norms come from early stopping) is the
    unregularized one.
    """
    groups = group(runs, "lam_r")
    numbers = {}
    for lam, rs in groups.items():
        c = epoch_curve(rs, "mean_norm")
        if len(c) >= 3:
            first, last = float(c.mean[0]), float(c.mean[-1])
            mid_epoch = int(c.epochs[len(c) // 2])
            mid = c.at(mid_epoch)
            numbers[lam] = {"first": first, "mid": mid, "last": last, "mid_epoch": mid_epoch,
                            "last_epoch": int(c.epochs[-1]), "n_diverged": c.n_diverged}
            numbers[lam]["trend"] = _trend(numbers[lam], th)
    lam0 = min(groups)
    if lam0 not in numbers:
        return CLAIM.verdict(INCONCLUSIVE, f"{lam_text(lam0)} has fewer than 3 recorded epochs", numbers, th)
    d = numbers[lam0]
    grow1, grow2 = d["mid"] - d["first"], d["last"] - d["mid"]
    others = {k: v for k, v in numbers.items() if k != lam0}
    per_lam = "; ".join(f"{lam_text(k)} {v['trend']} ({number(v['first'])} -> {number(v['last'])}, "
                        f"{100 * (v['last'] / v['first'] - 1):+.0f}%)" for k, v in others.items())
    evidence = (f"{lam_text(lam0)}: mean norm {number(d['first'])} after epoch 1, {number(d['mid'])} at epoch "
                f"{d['mid_epoch']}, {number(d['last'])} at epoch {d['last_epoch']} (growth {number(grow1)} then "
                f"{number(grow2)})" + (f"; {per_lam}" if per_lam else ""))
    differs = sorted(k for k, v in numbers.items() if v["trend"] != "grows")
    numbers["differs_from_paper"] = differs
    if differs:
        numbers["differs_text"] = (
            "the paper's norms grow at every λr (\"" + PAPER_FIG1 + "\"); here the mean norm "
            + "; ".join(f"{numbers[k]['trend']} at {lam_text(k)} ({number(numbers[k]['first'])} -> "
                        f"{number(numbers[k]['last'])})" for k in differs))
    above = {k: v["last"] for k, v in others.items() if v["last"] > d["last"]}
    clearly_above = {k: x for k, x in above.items() if x > (1 + th["norm_growth_min"]) * d["last"]}
    if above:
        evidence += ("; λr=0 does not have the largest final norm: " + ", ".join(
            f"{lam_text(k)} ends at {number(x)}" for k, x in above.items()) + f" (the paper: \"{PAPER_FIG1_LARGEST}\")")
    if d["last"] <= d["first"] or grow2 >= grow1 or clearly_above:
        verdict = NOT_REPRODUCED
    elif d["trend"] == "grows" and not above:
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers["spread"] = spread_rows(runs, "lam_r", "final/first mean norm", _norm_ratio)
    return CLAIM.verdict(verdict, evidence, numbers, th)


def plot(runs, spec, subtitle=""):
    """The mean norm per epoch, one curve per λr; returns ``(figure, drawn)``."""
    fig, (ax,) = new_figure(1, spec.title, subtitle, width=6.0)
    panel = epoch_panel(ax, group(runs, "lam_r"), "mean_norm", lam_label, "", "average ‖x_v‖₂")
    return fig, {"panels": [panel]}
