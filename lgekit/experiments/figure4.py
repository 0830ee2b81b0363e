"""Figure 4 of Gao et al. (ICLR 2019): test AP per SGD epoch for several dimensions D, one panel per λr.

The paper (Section 3.2): without norm regularization (λr = 0) the embedding
overfits for any D greater than 10.  This module holds the figure's spec, that
claim, the rule that judges it and the plot.
"""
import dataclasses

from .aggregate import divergence_summary, epoch_curve, group
from .plotting import dim_label, epoch_panel, lam_label, new_figure, panel_titles
from .spec import LAM_R_SGD, OVERFIT, SGD_DIMS, SGD_FIXED, SGD_QUICK_DIMS, SGD_RECORD, FigureSpec, Override, sgd_note
from .verdict import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Claim, ap_drop, judged, lam_text, number,
                      overfit_summary, spread_rows)

__all__ = ["SPEC", "CLAIM", "lam0_overfits_every_dim", "plot"]

CLAIM = Claim(
    name="lam0_overfits_every_dim", figure="fig4",
    reads=("overfit_drop", "no_overfit_drop", "early_fraction", "noise_se", "dims_above"),
    statement="Without norm regularization (λr = 0) the embedding overfits for any D greater than 10 "
              "(Sec. 3.2, Fig. 4)",
)

SPEC = FigureSpec(
    name="fig4", paper="Figure 4",
    title="Test AP per epoch for several dimensions D, one panel per λr (SGD)",
    model="LogisticEmbedding", params=dict(SGD_FIXED), grid={"lam_r": LAM_R_SGD, "dim": SGD_DIMS},
    # test AP alone: no F1, and the model's diagnostics sampled (no verdict here reads them)
    record=dataclasses.replace(SGD_RECORD, f1_epochs=(), exact_diagnostics=False),
    quick=Override(params={"epochs": 20}, grid={"lam_r": [0.0, 1.0], "dim": list(SGD_QUICK_DIMS)},
                   note=sgd_note(quick=True)),
    claims=("lam0_overfits_every_dim",), thresholds=dict(OVERFIT, dims_above=10),
    note=sgd_note(),
)


def _classify_overfit(d, th):
    """Fig. 4's reading of one curve: a drop after an early peak (the peak's timing is Fig. 3's claim)."""
    early = d["peak_epoch"] <= th["early_fraction"] * d["last_epoch"]
    if d["drop"] >= d["margin"] and early:
        return REPRODUCED
    if d["drop"] < th["no_overfit_drop"]:
        return NOT_REPRODUCED
    return INCONCLUSIVE


@judged(CLAIM, SPEC)
def lam0_overfits_every_dim(runs, th):
    """Fig. 4: without regularization (smallest λr) the test AP drops after its peak for every D > dims_above.

    Rule: for each D > ``dims_above``, classify the smallest λr's test-AP curve
    (finished runs) as in :func:`small_lam_r_overfits`.  A D whose every run
    diverged has no usable embedding: it cannot show overfitting, and is read
    as the failure to generalize in its strongest form (the evidence says so,
    with the divergence epochs and reasons), provided that some finished D
    overfits.  REPRODUCED if every finished D overfits (diverged D beside
    them allowed); NOT REPRODUCED if no finished D overfits and none is
    inconclusive; INCONCLUSIVE otherwise, when no D finished, or without
    D > ``dims_above``.
    """
    lam0 = min(r["lam_r"] for r in runs)
    floor = th["dims_above"]
    by_dim = group([r for r in runs if r["lam_r"] == lam0], "dim")
    numbers, verdicts, diverged = {}, {}, {}
    for dim, rs in by_dim.items():
        if dim <= floor:
            continue
        live = [r for r in rs if r.get("status") != "error"]
        c = epoch_curve(live, "test_ap")
        if len(c) >= 3:
            numbers[dim] = dict(overfit_summary(c, th), n_diverged=c.n_diverged)
            verdicts[dim] = _classify_overfit(numbers[dim], th)
            train = epoch_curve(live, "train_ap")
            if len(train) >= 2:  # recorded: overfitting shows as the train AP rising while the test AP drops
                numbers[dim]["train_first"], numbers[dim]["train_last"] = float(train.mean[0]), float(train.mean[-1])
        elif live and all(r.get("status") == "diverged" for r in live):
            diverged[dim] = live
    unusable = ""
    if diverged:
        unusable = "; ".join(f"D={dim}: every run diverged ({divergence_summary(rs)}): no usable embedding"
                             for dim, rs in diverged.items())
    if not verdicts:
        why = (f"no {lam_text(lam0)} run with D > {floor:g} finished, so none can show overfitting"
               + (f"; {unusable}" if unusable else "")) if diverged else \
              f"no {lam_text(lam0)} run with D > {floor:g} and 3+ recorded epochs"
        return CLAIM.verdict(INCONCLUSIVE, why, {"diverged_dims": sorted(diverged)}, th)
    parts = []
    for dim, d in numbers.items():
        part = (f"D={dim}: peak {number(d['peak'])} at epoch {d['peak_epoch']}, end {number(d['last'])} "
                f"(drop {number(d['drop'], 2)})")
        if "train_last" in d:
            part += f", train AP {number(d['train_first'])} -> {number(d['train_last'])}"
        if d["n_diverged"]:
            part += f" over the finished runs ({d['n_diverged']} diverged)"
        parts.append(part)
    evidence = f"{lam_text(lam0)}: " + "; ".join(parts)
    if unusable:
        evidence += "; " + unusable
    numbers["diverged_dims"] = sorted(diverged)
    numbers["spread"] = spread_rows([r for r in runs if r["lam_r"] == lam0 and r.get("dim", 0) > floor], "dim",
                                     "test-AP drop after the peak", ap_drop)
    values = set(verdicts.values())
    if values == {REPRODUCED}:
        verdict = REPRODUCED
        if diverged:
            evidence += (" (counted with the claim: without regularization those runs do not generalize at all, "
                         "as every finished D overfits)")
    elif REPRODUCED not in values:
        verdict = NOT_REPRODUCED if values == {NOT_REPRODUCED} else INCONCLUSIVE
    else:
        verdict = INCONCLUSIVE
        evidence += ("; overfits for D in {" + ", ".join(str(k) for k, v in verdicts.items() if v == REPRODUCED)
                     + "} only")
    return CLAIM.verdict(verdict, evidence, numbers, th)


def plot(runs, spec, subtitle=""):
    """One panel per λr, one test-AP curve per D, on one shared y-axis."""
    by_lam = group(runs, "lam_r")
    # the λr panels are compared with one another: one y-axis for all
    fig, axes = new_figure(max(1, len(by_lam)), spec.title, subtitle, width=4.2, sharey=True)
    titles = panel_titles(*(lam_label(lam) for lam in by_lam))
    panels = []
    for ax, title, (lam, rs) in zip(axes, titles, by_lam.items()):
        panels.append(epoch_panel(ax, group(rs, "dim"), "test_ap", dim_label, title, "test AP"))
    for ax in axes[1:]:
        ax.set_ylabel("")
    return fig, {"panels": panels, "sharey": True}
