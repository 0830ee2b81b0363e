"""Figure 6 of Gao et al. (ICLR 2019): DCD's test AP against the dimension D at λr = 3.

The paper (Section 4): with norm regularization, as long as D is reasonably
large (≥ 30) its exact choice has very little effect on DCD's test AP.  This
module holds the figure's spec, that claim, the rule that judges it and the
plot.
"""
import math

from .aggregate import group, point_summary
from .plotting import dim_label, with_diverged_panel
from .spec import DCD_FIXED, DCD_RECORD, FigureSpec, Override
from .verdict import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Claim, final_metric, judged, number, spread_rows,
                      standard_error)

__all__ = ["SPEC", "CLAIM", "dcd_insensitive_to_dim", "plot"]

CLAIM = Claim(
    name="dcd_insensitive_to_dim", figure="fig6",
    reads=("insensitive_range", "sensitive_range", "min_dim", "noise_se"),
    statement="With norm regularization (λr = 3), as long as D is reasonably large (≥ 30) its exact choice "
              "has very little effect on DCD's test AP (Sec. 4, Fig. 6)",
)

SPEC = FigureSpec(
    name="fig6", paper="Figure 6",
    title="DCD: test AP against the dimension D (λr = {lam_r:g}, {epochs} epochs)",
    model="HingeEmbedding", params=dict(DCD_FIXED), grid={"dim": (10, 30, 100, 300, 1000, 1600)},
    record=DCD_RECORD, quick=Override(params={"epochs": 10}, grid={"dim": [10, 30, 100, 300]}),
    claims=("dcd_insensitive_to_dim",),
    thresholds={"insensitive_range": 0.02, "sensitive_range": 0.05, "min_dim": 30, "noise_se": 2.0},
)


@judged(CLAIM, SPEC)
def dcd_insensitive_to_dim(runs, th):
    """Fig. 6: with λr fixed, DCD's test AP hardly changes with D once D >= min_dim.

    Rule, on the mean final test AP per D >= ``min_dim`` (at least two such D
    with a finished run): spread = max - min.  REPRODUCED if
    spread <= insensitive_range; NOT REPRODUCED if
    spread > max(sensitive_range, noise_se SE); INCONCLUSIVE otherwise.
    """
    floor = th["min_dim"]
    groups = group(runs, "dim")
    stats = {dim: point_summary(rs, "test_ap") for dim, rs in groups.items()}
    big = {dim: s for dim, s in stats.items() if dim >= floor and s["n"] > 0}
    if len(big) < 2:
        return CLAIM.verdict(INCONCLUSIVE, f"fewer than two D >= {floor:g} with a finished run",
                             {k: v["mean"] for k, v in stats.items()}, th)
    means = {dim: s["mean"] for dim, s in big.items()}
    hi, lo = max(means, key=means.get), min(means, key=means.get)
    spread_ap = means[hi] - means[lo]
    se = math.hypot(standard_error(big[hi]["std"], big[hi]["n"]), standard_error(big[lo]["std"], big[lo]["n"]))
    evidence = ("test AP " + ", ".join(f"{number(m)} (D={d})" for d, m in means.items())
                + f": spread {number(spread_ap, 2)} over D ≥ {floor:g} "
                  f"(insensitive if ≤ {th['insensitive_range']:g})")
    small = {d: s["mean"] for d, s in stats.items() if d < floor and s["n"] > 0}
    if small:
        evidence += f"; below {floor:g}: " + ", ".join(f"{number(m)} (D={d})" for d, m in small.items())
    div = [d for d, s in stats.items() if s["n"] == 0 and s["n_diverged"]]
    if div:
        evidence += "; every run diverged at D ∈ {" + ", ".join(f"{d:g}" for d in div) + "}"
    if spread_ap <= th["insensitive_range"]:
        verdict = REPRODUCED
    elif spread_ap > max(th["sensitive_range"], th["noise_se"] * se):
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers = {"range": spread_ap, "test_ap": {k: v["mean"] for k, v in stats.items()},
               "spread": spread_rows([r for r in runs if r.get("dim", 0) >= floor], "dim", "final test AP",
                                      final_metric("test_ap"))}
    return CLAIM.verdict(verdict, evidence, numbers, th)


def plot(runs, spec, subtitle=""):
    """Final test AP against D (log axis), the spread over the covered D shaded, and the diverged runs' panel."""
    floor = spec.thresholds.get("min_dim", 30)
    tolerance = spec.thresholds.get("insensitive_range")

    def spread_band(ax, groups, panel):
        # the claim is about the spread over D >= floor: shade it, so its size is read against [0, 1]
        means = {d: point_summary(rs, "test_ap")["mean"] for d, rs in groups.items() if d >= floor}
        means = {d: m for d, m in means.items() if not math.isnan(m)}
        if len(means) < 2:
            return
        lo, hi = min(means.values()), max(means.values())
        text = f"spread over D ≥ {floor:g}: {hi - lo:.3f}"
        if tolerance is not None:
            text += f" (insensitive if ≤ {tolerance:g})"
        ax.axhspan(lo, hi, xmin=0, xmax=1, color="tab:green", alpha=0.15, linewidth=0, label=text)
        ax.legend(fontsize=8, loc="lower right")
        panel["spread_band"] = [lo, hi]

    return with_diverged_panel(runs, spec, subtitle, "dim", [("test_ap", "test AP")], "dimension D",
                                f"λr = {spec.params.get('lam_r', '?'):g}", dim_label, spread_band)
