"""Figure 5 of Gao et al. (ICLR 2019): DCD's train and test AP against λr.

The paper (Section 4): DCD's embedding quality is very bad when λr ≈ 0.  This
module holds the figure's spec, that claim, the rule that judges it and the
plot.
"""
import math

from .aggregate import divergence_summary, group, point_summary
from .plotting import lam_label, with_diverged_panel
from .spec import DCD_FIXED, DCD_RECORD, FigureSpec, Override
from .verdict import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Claim, final_metric, judged, lam_text, number,
                      spread_rows, standard_error)

__all__ = ["SPEC", "CLAIM", "dcd_poor_near_zero", "plot"]

CLAIM = Claim(
    name="dcd_poor_near_zero", figure="fig5",
    reads=("poor_gap", "not_poor_gap", "noise_se"),
    statement="DCD's embedding quality is very bad when λr ≈ 0 (Sec. 4, Fig. 5)",
)

SPEC = FigureSpec(
    name="fig5", paper="Figure 5",
    title="DCD: train and test AP against λr (D = {dim}, {epochs} epochs)",
    model="HingeEmbedding", params=dict(DCD_FIXED),
    grid={"lam_r": (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)}, record=DCD_RECORD,
    quick=Override(params={"epochs": 10}, grid={"lam_r": [0.01, 0.1, 1.0, 10.0, 100.0]}),
    claims=("dcd_poor_near_zero",), thresholds={"poor_gap": 0.05, "not_poor_gap": 0.01, "noise_se": 2.0},
)


@judged(CLAIM, SPEC)
def dcd_poor_near_zero(runs, th):
    """Fig. 5: DCD generalizes poorly when λr is close to 0.

    Rule, on the mean final test AP per λr: gap = best - AP(smallest λr),
    margin = max(poor_gap, noise_se SE of the difference).  REPRODUCED if
    gap >= margin; NOT REPRODUCED if gap < not_poor_gap; INCONCLUSIVE
    otherwise.  Train AP at the smallest λr is reported (overfitting shows as
    train AP far above test AP).  Runs that diverged are reported, not averaged.
    When every run at the smallest λr diverged, that counts as poor (no usable
    embedding): REPRODUCED if the smallest λr that finished is itself at least
    not_poor_gap below the best (the trend points the same way), else
    INCONCLUSIVE.
    """
    groups = group(runs, "lam_r")
    stats = {lam: {"test": point_summary(rs, "test_ap"), "train": point_summary(rs, "train_ap")}
             for lam, rs in groups.items()}
    finished = {lam: s for lam, s in stats.items() if s["test"]["n"] > 0}
    if len(finished) < 2:
        return CLAIM.verdict(INCONCLUSIVE, "fewer than two λr values with a finished run",
                             {k: v["test"]["mean"] for k, v in stats.items()}, th)
    lam0 = min(groups)
    if lam0 not in finished:
        # Every run at the smallest λr blew up: the solver produced no usable
        # embedding there, which is the paper's "quality ... very bad when
        # λr ≈ 0" in its strongest form.  Still require that the smallest
        # finished λr is not already as good as the best, or the evidence is
        # only that small λr is numerically unstable.
        div = sorted(lam for lam in groups if lam not in finished and stats[lam]["test"]["n_diverged"])
        low = min(finished)
        best_lam = max(finished, key=lambda k: finished[k]["test"]["mean"])
        gap_low = finished[best_lam]["test"]["mean"] - finished[low]["test"]["mean"]
        reasons = divergence_summary([r for lam in div for r in groups[lam]])
        evidence = ("every run diverged at λr ∈ {" + ", ".join(f"{v:g}" for v in div) + "} (no usable embedding: "
                    f"{reasons}); the smallest finished, {lam_text(low)}, has test AP "
                    f"{number(finished[low]['test']['mean'])} (train AP {number(finished[low]['train']['mean'])}) "
                    "vs best "
                    f"{number(finished[best_lam]['test']['mean'])} at {lam_text(best_lam)}")
        numbers = {"diverged_lam_r": div, "gap_smallest_finished": gap_low, "best_lam_r": best_lam,
                   "test_ap": {k: v["test"]["mean"] for k, v in stats.items()}}
        verdict = REPRODUCED if (div and gap_low >= th["not_poor_gap"]) else INCONCLUSIVE
        return CLAIM.verdict(verdict, evidence, numbers, th)
    best_lam = max(finished, key=lambda k: finished[k]["test"]["mean"])
    b, z = finished[best_lam]["test"], finished[lam0]["test"]
    gap = b["mean"] - z["mean"]
    se = math.hypot(standard_error(b["std"], b["n"]), standard_error(z["std"], z["n"]))
    margin = max(th["poor_gap"], th["noise_se"] * se)
    train0 = finished[lam0]["train"]["mean"]
    evidence = (f"test AP {number(z['mean'])} at {lam_text(lam0)} (train AP {number(train0)}) vs best "
                f"{number(b['mean'])} "
                f"at {lam_text(best_lam)}: gap {number(gap, 2)} (needed ≥ {number(margin, 2)})")
    if gap >= margin:
        verdict = REPRODUCED
    elif gap < th["not_poor_gap"]:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers = {"gap": gap, "margin": margin, "best_lam_r": best_lam,
               "test_ap": {k: v["test"]["mean"] for k, v in stats.items()},
               "train_ap": {k: v["train"]["mean"] for k, v in stats.items()},
               "spread": spread_rows([r for r in runs if r["lam_r"] in (lam0, best_lam)], "lam_r", "final test AP",
                                      final_metric("test_ap"))}
    return CLAIM.verdict(verdict, evidence, numbers, th)


def plot(runs, spec, subtitle=""):
    """Final train and test AP against λr (log axis), and the diverged runs' panel when there are any."""
    return with_diverged_panel(runs, spec, subtitle, "lam_r", [("train_ap", "train AP"), ("test_ap", "test AP")],
                               "λr", f"D = {spec.params.get('dim', '?'):g}", lam_label)
