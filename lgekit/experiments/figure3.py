"""Figure 3 of Gao et al. (ICLR 2019): test AP per SGD epoch, and Micro/Macro-F1 at a few epochs.

The paper (Section 3.2): "the generalization performance of embedding
vectors starts to drop after 5~20 epochs when λr is small, indicating that
they are overfitting the training dataset afterwards".  This module holds the
figure's spec, that claim, the rule that judges it and the plot.
"""
from .aggregate import epoch_curve, group, run_series
from .plotting import epoch_panel, has_history_key, lam_label, new_figure, panel_titles
from .spec import LAM_R_SGD, OVERFIT, RISE, SGD_FIXED, SGD_QUICK, SGD_RECORD, FigureSpec, sgd_note
from .verdict import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Claim, ap_drop, judged, lam_text, number,
                      overfit_summary, spread_rows)

__all__ = ["SPEC", "CLAIM", "small_lam_r_overfits", "plot", "PAPER_FIG3"]

#: the paper's sentence the rule is judged against (quoted in the evidence)
PAPER_FIG3 = ("the generalization performance of embedding vectors starts to drop after 5~20 epochs when λr is "
              "small, indicating that they are overfitting the training dataset afterwards")

CLAIM = Claim(
    name="small_lam_r_overfits", figure="fig3",
    reads=("overfit_drop", "no_overfit_drop", "early_fraction", "noise_se", "min_peak_epoch", "rise_min", "no_rise"),
    statement="With small λr the test AP rises for a few epochs, then \"starts to drop after 5~20 epochs\" "
              "(overfitting; Sec. 3.2, Fig. 3)",
)

SPEC = FigureSpec(
    name="fig3", paper="Figure 3",
    title="Test AP per epoch, and Micro/Macro-F1 at a few epochs (SGD, D = {dim})",
    model="LogisticEmbedding", params=dict(SGD_FIXED), grid={"lam_r": LAM_R_SGD}, record=SGD_RECORD,
    quick=SGD_QUICK, claims=("small_lam_r_overfits",), thresholds=dict(OVERFIT, **RISE),
    note=sgd_note(),
)


def _ap_rise(run):
    _, ys = run_series(run, "test_ap")
    return max(ys) - ys[0] if len(ys) >= 3 else None


def _ap_peak_epoch(run):
    xs, ys = run_series(run, "test_ap")
    return float(xs[ys.index(max(ys))]) if len(ys) >= 3 else None


def _classify_rise_then_drop(d, th):
    """Fig. 3's reading: the test AP rises for a few epochs, peaks, then drops while training continues.

    NOT REPRODUCED when it does not drop (drop < no_overfit_drop), when the
    drop starts before epoch ``min_peak_epoch`` (the last epoch within
    no_overfit_drop of the peak is earlier: it falls from the start, no "drop
    after 5~20 epochs"), or when it does not rise (rise < no_rise);
    REPRODUCED when the drop and the rise both clear their margins, the drop
    starts at or after min_peak_epoch and the peak comes by
    early_fraction * T; INCONCLUSIVE otherwise.
    """
    if d["drop"] < th["no_overfit_drop"] or d["drop_start"] < th["min_peak_epoch"] or d["rise"] < th["no_rise"]:
        return NOT_REPRODUCED
    early = d["peak_epoch"] <= th["early_fraction"] * d["last_epoch"]
    if d["drop"] >= d["margin"] and d["rise"] >= d["rise_margin"] and early:
        return REPRODUCED
    return INCONCLUSIVE


@judged(CLAIM, SPEC)
def small_lam_r_overfits(runs, th):
    """Fig. 3: with small λr the test AP rises for a few epochs, peaks, then drops (overfitting).

    The paper (Sec. 3.2): "the generalization performance of embedding
    vectors starts to drop after 5~20 epochs when λr is small, indicating that
    they are overfitting the training dataset afterwards".

    Rule, on the mean test-AP curve a(t) of the smallest λr (t = 1..T
    completed epochs): with p = argmax a, rise = a(p) - a(1),
    drop = a(p) - a(T), s = the last epoch with a(s) >= a(p) - no_overfit_drop
    (where the drop starts), margin = max(overfit_drop, noise_se SE over seeds)
    and rise margin = max(rise_min, noise_se SE over seeds):

    * REPRODUCED if s >= min_peak_epoch, p <= early_fraction * T,
      rise >= rise margin and drop >= margin;
    * NOT REPRODUCED if drop < no_overfit_drop (AP still at its best at the
      end), s < min_peak_epoch (the AP falls from the first epochs: a peak at
      epoch 1 is not the paper's curve) or rise < no_rise (it never rises);
    * INCONCLUSIVE otherwise (a late peak, or a drop or rise inside the
      noise).

    The largest λr's drop is reported for contrast.
    """
    groups = group(runs, "lam_r")
    numbers = {}
    for lam, rs in groups.items():
        c = epoch_curve(rs, "test_ap")
        if len(c) >= 3:
            numbers[lam] = overfit_summary(c, th)
    lam0 = min(groups)
    if lam0 not in numbers:
        return CLAIM.verdict(INCONCLUSIVE, f"{lam_text(lam0)} has fewer than 3 recorded test-AP values", numbers, th)
    d = numbers[lam0]
    evidence = (f"{lam_text(lam0)}: test AP {number(d['first'])} after epoch {d['first_epoch']}, peaks at epoch "
                f"{d['peak_epoch']} ({number(d['peak'])}) and ends at {number(d['last'])} at epoch {d['last_epoch']} "
                f"(rise {number(d['rise'], 2)}, needed ≥ {number(d['rise_margin'], 2)}; drop {number(d['drop'], 2)}, "
                f"needed ≥ {number(d['margin'], 2)}); it stays within {th['no_overfit_drop']:g} of the peak until "
                f"epoch {d['drop_start']}, so the drop starts after epoch {d['drop_start']} (needed: after epoch "
                f"{th['min_peak_epoch']:g} or later, with the peak by epoch "
                f"{th['early_fraction'] * d['last_epoch']:g})")
    if d["drop_start"] < th["min_peak_epoch"]:
        evidence += (f"; a drop from epoch {d['drop_start']} on means the test AP falls from the first epochs, not "
                     f"after a rise (the paper: \"{PAPER_FIG3}\")")
    lam_max = max(groups)
    if lam_max != lam0 and lam_max in numbers:
        e = numbers[lam_max]
        evidence += (f"; {lam_text(lam_max)} drops {number(e['drop'], 2)} (peak {number(e['peak'])} at epoch "
                     f"{e['peak_epoch']})")
    small = [r for r in runs if r.get("lam_r") == lam0]
    numbers["spread"] = (spread_rows(small, "lam_r", "test-AP peak epoch", _ap_peak_epoch)
                         + spread_rows(small, "lam_r", "test-AP rise to the peak", _ap_rise)
                         + spread_rows(small, "lam_r", "test-AP drop after the peak", ap_drop))
    return CLAIM.verdict(_classify_rise_then_drop(d, th), evidence, numbers, th)


def plot(runs, spec, subtitle=""):
    """(a) test AP per epoch; (b), (c) Micro/Macro-F1 at the sampled epochs when recorded."""
    with_f1 = has_history_key(runs, "micro_f1")
    fig, axes = new_figure(3 if with_f1 else 1, spec.title, subtitle, width=5.0 if with_f1 else 6.0)
    groups = group(runs, "lam_r")
    titles = panel_titles("link prediction", *(["node classification: Micro-F1", "node classification: Macro-F1"]
                                               if with_f1 else []))
    panels = [epoch_panel(axes[0], groups, "test_ap", lam_label, titles[0], "test AP")]
    if with_f1:
        panels.append(epoch_panel(axes[1], groups, "micro_f1", lam_label, titles[1], "Micro-F1", markers=True))
        panels.append(epoch_panel(axes[2], groups, "macro_f1", lam_label, titles[2], "Macro-F1", markers=True))
    return fig, {"panels": panels}
