"""Verdict rules: is each claim of the paper borne out by the measured runs?

Each rule is a small function of a list of *runs* (see
:mod:`lgekit.experiments.aggregate`) returning a :class:`Verdict`:
``REPRODUCED``, ``NOT REPRODUCED`` or ``INCONCLUSIVE`` (too little data, or
an effect between the "clearly there" and "clearly absent" thresholds), with
the numbers it was decided on.  The thresholds are module constants, fixed in
advance (not tuned on results), and each rule's docstring states them.

Noise: where several seeds are available, an effect must also exceed twice
its standard error over seeds (``2 * std / sqrt(n)``), i.e. it must be
distinguishable from seed-to-seed variation at roughly the 95% level under a
normal approximation; with one seed only the absolute thresholds apply.
"""
import math
from dataclasses import dataclass, field

from .aggregate import epoch_curve, group, point_summary

__all__ = [
    "Verdict", "CLAIMS", "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE",
    "norms_grow_slowing", "gradients_vanish", "small_lam_r_overfits", "lam0_overfits_every_dim",
    "dcd_poor_near_zero", "dcd_insensitive_to_dim",
]

REPRODUCED = "REPRODUCED"
NOT_REPRODUCED = "NOT REPRODUCED"
INCONCLUSIVE = "INCONCLUSIVE"

#: a norm "grows" if its last value exceeds its first (after one epoch) by this fraction
NORM_GROWTH_MIN = 0.05
#: a gradient norm has "vanished" when it ends at most this fraction of its peak ...
VANISH_RATIO = 0.5
#: ... and clearly has not when it ends above this fraction of its peak
NO_VANISH_RATIO = 0.9
#: an AP drop from the peak to the end of at least this much is overfitting ...
OVERFIT_DROP = 0.01
#: ... and a drop below this is "no overfitting" (between the two: inconclusive)
NO_OVERFIT_DROP = 0.002
#: the peak must come in the first this-fraction of the epochs to be "early"
EARLY_FRACTION = 0.6
#: DCD is "poor" near lam_r = 0 if its test AP there is below the best by at least this ...
POOR_GAP = 0.05
#: ... and not poor if within this of the best
NOT_POOR_GAP = 0.01
#: DCD is "insensitive" to D >= 30 if its test AP varies by at most this over those D ...
INSENSITIVE_RANGE = 0.02
#: ... and sensitive if by more than this
SENSITIVE_RANGE = 0.05


@dataclass
class Verdict:
    """The outcome of one claim's rule."""

    claim: str
    statement: str
    figure: str
    verdict: str
    evidence: str
    numbers: dict = field(default_factory=dict)

    def line(self):
        """One line: the claim, the evidence, the verdict (as in report.md)."""
        return f"{self.statement} — observed: {self.evidence}: {self.verdict}"


def _se(std, n):
    return std / math.sqrt(n) if n > 1 else 0.0


def _fmt(x, digits=3):
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}g}"


def _lam(value):
    return f"λr={value:g}"


def _inconclusive(claim, why, numbers=None):
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], INCONCLUSIVE, why, numbers or {})


def norms_grow_slowing(runs):
    """Fig. 1: without regularization the vector norms grow during SGD, ever more slowly.

    Rule, on the mean norm curve n(t) of the smallest λr (t = completed epochs,
    1..T, mid = the epoch nearest T/2):
    grows := n(T) >= (1 + NORM_GROWTH_MIN) n(1); slows := n(T) - n(mid) < n(mid) - n(1).
    REPRODUCED if it grows and slows; NOT REPRODUCED if n(T) <= n(1) or the
    growth accelerates (second half >= first half); INCONCLUSIVE otherwise
    (growth under NORM_GROWTH_MIN, fewer than 3 epochs, no finished run).
    The other λr are reported as evidence (their final norms should be smaller).
    """
    claim = "norms_grow_slowing"
    groups = group(runs, "lam_r")
    if not groups:
        return _inconclusive(claim, "no runs")
    numbers = {}
    for lam, rs in groups.items():
        c = epoch_curve(rs, "mean_norm")
        if len(c) >= 3:
            first, last = float(c.mean[0]), float(c.mean[-1])
            mid_epoch = int(c.epochs[len(c) // 2])
            mid = c.at(mid_epoch)
            numbers[lam] = {"first": first, "mid": mid, "last": last, "mid_epoch": mid_epoch,
                            "last_epoch": int(c.epochs[-1]), "n_diverged": c.n_diverged}
    lam0 = min(groups)
    if lam0 not in numbers:
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 3 recorded epochs", numbers)
    d = numbers[lam0]
    grow1, grow2 = d["mid"] - d["first"], d["last"] - d["mid"]
    others = "; ".join(f"{_lam(k)} ends at {_fmt(v['last'])}" for k, v in numbers.items() if k != lam0)
    evidence = (f"{_lam(lam0)}: mean norm {_fmt(d['first'])} after epoch 1, {_fmt(d['mid'])} at epoch "
                f"{d['mid_epoch']}, {_fmt(d['last'])} at epoch {d['last_epoch']} (growth {_fmt(grow1)} then "
                f"{_fmt(grow2)})" + (f"; {others}" if others else ""))
    if d["last"] <= d["first"] or grow2 >= grow1:
        verdict = NOT_REPRODUCED
    elif d["last"] >= (1 + NORM_GROWTH_MIN) * d["first"]:
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], verdict, evidence, numbers)


def gradients_vanish(runs):
    """Fig. 2: the average stochastic-gradient norm of SGD decays towards zero.

    Rule, on the mean ``mean_grad_norm`` curve g(t) of the smallest λr:
    REPRODUCED if g(T) <= VANISH_RATIO * max g; NOT REPRODUCED if
    g(T) > NO_VANISH_RATIO * max g; INCONCLUSIVE in between or without data.
    """
    claim = "gradients_vanish"
    groups = group(runs, "lam_r")
    if not groups:
        return _inconclusive(claim, "no runs")
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
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 2 recorded gradient norms", numbers)
    d = numbers[lam0]
    others = "; ".join(f"{_lam(k)} ends at {_fmt(v['ratio'], 2)} of its peak"
                       for k, v in numbers.items() if k != lam0)
    evidence = (f"{_lam(lam0)}: gradient norm peaks at {_fmt(d['peak'])} (epoch {d['peak_epoch']}) and ends at "
                f"{_fmt(d['last'])} (epoch {d['last_epoch']}), {_fmt(d['ratio'], 2)} of the peak"
                + (f"; {others}" if others else ""))
    if not math.isfinite(d["ratio"]):
        verdict = INCONCLUSIVE
    elif d["ratio"] <= VANISH_RATIO:
        verdict = REPRODUCED
    elif d["ratio"] > NO_VANISH_RATIO:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], verdict, evidence, numbers)


def _overfit(curve):
    """Peak epoch/value, final epoch/value, drop and the noise margin of a test-AP curve."""
    peak_epoch, peak = curve.peak()
    last_epoch, last = curve.final()
    n = int(curve.n[-1])
    se = math.hypot(_se(curve.std_at(peak_epoch), n), _se(curve.std_at(last_epoch), n))
    return {"peak": peak, "peak_epoch": peak_epoch, "last": last, "last_epoch": last_epoch,
            "drop": peak - last, "margin": max(OVERFIT_DROP, 2 * se), "n_seeds": n}


def _classify_overfit(d):
    early = d["peak_epoch"] <= EARLY_FRACTION * d["last_epoch"]
    if d["drop"] >= d["margin"] and early:
        return REPRODUCED
    if d["drop"] < NO_OVERFIT_DROP:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def small_lam_r_overfits(runs):
    """Fig. 3: with small λr the test AP peaks after a few epochs, then drops (overfitting).

    Rule, on the mean test-AP curve a(t) of the smallest λr: with p = argmax a,
    drop = a(p) - a(T) and margin = max(OVERFIT_DROP, 2 SE over seeds):
    REPRODUCED if drop >= margin and p <= EARLY_FRACTION * T;
    NOT REPRODUCED if drop < NO_OVERFIT_DROP (AP still at its best at the end);
    INCONCLUSIVE otherwise.  The largest λr's drop is reported for contrast.
    """
    claim = "small_lam_r_overfits"
    groups = group(runs, "lam_r")
    numbers = {}
    for lam, rs in groups.items():
        c = epoch_curve(rs, "test_ap")
        if len(c) >= 3:
            numbers[lam] = _overfit(c)
    if not groups:
        return _inconclusive(claim, "no runs")
    lam0 = min(groups)
    if lam0 not in numbers:
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 3 recorded test-AP values", numbers)
    d = numbers[lam0]
    evidence = (f"{_lam(lam0)} peaks at epoch {d['peak_epoch']} ({_fmt(d['peak'])}) and ends at "
                f"{_fmt(d['last'])} at epoch {d['last_epoch']} (drop {_fmt(d['drop'], 2)}, needed ≥ "
                f"{_fmt(d['margin'], 2)} with the peak in the first {EARLY_FRACTION:.0%} of the epochs)")
    lam_max = max(groups)
    if lam_max != lam0 and lam_max in numbers:
        e = numbers[lam_max]
        evidence += f"; {_lam(lam_max)} drops {_fmt(e['drop'], 2)} (peak {_fmt(e['peak'])} at epoch {e['peak_epoch']})"
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], _classify_overfit(d), evidence, numbers)


def lam0_overfits_every_dim(runs):
    """Fig. 4: without regularization (smallest λr) the test AP drops after its peak for every D > 10.

    Rule: for each D > 10, classify the λr-min test-AP curve as in
    :func:`small_lam_r_overfits`.  REPRODUCED if every such D overfits;
    NOT REPRODUCED if none does; INCONCLUSIVE otherwise or without D > 10.
    """
    claim = "lam0_overfits_every_dim"
    if not runs:
        return _inconclusive(claim, "no runs")
    lam0 = min(r["lam_r"] for r in runs)
    by_dim = group([r for r in runs if r["lam_r"] == lam0], "dim")
    numbers, verdicts = {}, {}
    for dim, rs in by_dim.items():
        c = epoch_curve(rs, "test_ap")
        if dim > 10 and len(c) >= 3:
            numbers[dim] = _overfit(c)
            verdicts[dim] = _classify_overfit(numbers[dim])
    if not verdicts:
        return _inconclusive(claim, f"no {_lam(lam0)} run with D > 10 and 3+ recorded epochs", numbers)
    parts = [f"D={dim}: peak {_fmt(d['peak'])} at epoch {d['peak_epoch']}, end {_fmt(d['last'])} "
             f"(drop {_fmt(d['drop'], 2)})" for dim, d in numbers.items()]
    evidence = f"{_lam(lam0)}: " + "; ".join(parts)
    values = set(verdicts.values())
    if values == {REPRODUCED}:
        verdict = REPRODUCED
    elif REPRODUCED not in values:
        verdict = NOT_REPRODUCED if values == {NOT_REPRODUCED} else INCONCLUSIVE
    else:
        verdict = INCONCLUSIVE
        evidence += "; overfits for D in {" + ", ".join(str(k) for k, v in verdicts.items() if v == REPRODUCED) + "} only"
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], verdict, evidence, numbers)


def dcd_poor_near_zero(runs):
    """Fig. 5: DCD generalizes poorly when λr is close to 0.

    Rule, on the mean final test AP per λr: gap = best - AP(smallest λr),
    margin = max(POOR_GAP, 2 SE of the difference).  REPRODUCED if
    gap >= margin; NOT REPRODUCED if gap < NOT_POOR_GAP; INCONCLUSIVE
    otherwise.  Train AP at the smallest λr is reported (overfitting shows as
    train AP far above test AP).  Runs that diverged are reported, not averaged.
    When every run at the smallest λr diverged, that counts as poor (no usable
    embedding): REPRODUCED if the smallest λr that finished is itself at least
    NOT_POOR_GAP below the best (the trend points the same way), else
    INCONCLUSIVE.
    """
    claim = "dcd_poor_near_zero"
    groups = group(runs, "lam_r")
    stats = {lam: {"test": point_summary(rs, "test_ap"), "train": point_summary(rs, "train_ap")}
             for lam, rs in groups.items()}
    finished = {lam: s for lam, s in stats.items() if s["test"]["n"] > 0}
    if len(finished) < 2:
        return _inconclusive(claim, "fewer than two λr values with a finished run",
                             {k: v["test"]["mean"] for k, v in stats.items()})
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
        evidence = ("every run diverged at λr ∈ {" + ", ".join(f"{v:g}" for v in div) + "} (no usable embedding); "
                    f"the smallest finished, {_lam(low)}, has test AP {_fmt(finished[low]['test']['mean'])} "
                    f"(train AP {_fmt(finished[low]['train']['mean'])}) vs best "
                    f"{_fmt(finished[best_lam]['test']['mean'])} at {_lam(best_lam)}")
        numbers = {"diverged_lam_r": div, "gap_smallest_finished": gap_low, "best_lam_r": best_lam,
                   "test_ap": {k: v["test"]["mean"] for k, v in stats.items()}}
        spec = CLAIMS[claim]
        verdict = REPRODUCED if (div and gap_low >= NOT_POOR_GAP) else INCONCLUSIVE
        return Verdict(claim, spec["statement"], spec["figure"], verdict, evidence, numbers)
    best_lam = max(finished, key=lambda k: finished[k]["test"]["mean"])
    b, z = finished[best_lam]["test"], finished[lam0]["test"]
    gap = b["mean"] - z["mean"]
    margin = max(POOR_GAP, 2 * math.hypot(_se(b["std"], b["n"]), _se(z["std"], z["n"])))
    train0 = finished[lam0]["train"]["mean"]
    evidence = (f"test AP {_fmt(z['mean'])} at {_lam(lam0)} (train AP {_fmt(train0)}) vs best {_fmt(b['mean'])} "
                f"at {_lam(best_lam)}: gap {_fmt(gap, 2)} (needed ≥ {_fmt(margin, 2)})")
    if gap >= margin:
        verdict = REPRODUCED
    elif gap < NOT_POOR_GAP:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers = {"gap": gap, "margin": margin, "best_lam_r": best_lam,
               "test_ap": {k: v["test"]["mean"] for k, v in stats.items()},
               "train_ap": {k: v["train"]["mean"] for k, v in stats.items()}}
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], verdict, evidence, numbers)


def dcd_insensitive_to_dim(runs):
    """Fig. 6: with λr fixed, DCD's test AP hardly changes with D once D >= 30.

    Rule, on the mean final test AP per D >= 30 (at least two such D with a
    finished run): spread = max - min.  REPRODUCED if spread <= INSENSITIVE_RANGE;
    NOT REPRODUCED if spread > max(SENSITIVE_RANGE, 2 SE); INCONCLUSIVE otherwise.
    """
    claim = "dcd_insensitive_to_dim"
    groups = group(runs, "dim")
    stats = {dim: point_summary(rs, "test_ap") for dim, rs in groups.items()}
    big = {dim: s for dim, s in stats.items() if dim >= 30 and s["n"] > 0}
    if len(big) < 2:
        return _inconclusive(claim, "fewer than two D >= 30 with a finished run",
                             {k: v["mean"] for k, v in stats.items()})
    means = {dim: s["mean"] for dim, s in big.items()}
    hi, lo = max(means, key=means.get), min(means, key=means.get)
    spread = means[hi] - means[lo]
    se = math.hypot(_se(big[hi]["std"], big[hi]["n"]), _se(big[lo]["std"], big[lo]["n"]))
    evidence = ("test AP " + ", ".join(f"{_fmt(m)} (D={d})" for d, m in means.items())
                + f": spread {_fmt(spread, 2)} over D ≥ 30 (insensitive if ≤ {INSENSITIVE_RANGE})")
    small = {d: s["mean"] for d, s in stats.items() if d < 30 and s["n"] > 0}
    if small:
        evidence += "; below 30: " + ", ".join(f"{_fmt(m)} (D={d})" for d, m in small.items())
    if spread <= INSENSITIVE_RANGE:
        verdict = REPRODUCED
    elif spread > max(SENSITIVE_RANGE, 2 * se):
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers = {"spread": spread, "test_ap": {k: v["mean"] for k, v in stats.items()}}
    spec = CLAIMS[claim]
    return Verdict(claim, spec["statement"], spec["figure"], verdict, evidence, numbers)


#: claim name -> statement (as in the paper), figure, rule
CLAIMS = {
    "norms_grow_slowing": {
        "figure": "fig1", "rule": norms_grow_slowing,
        "statement": "Without regularization, the average norm of the embedding vectors keeps growing "
                     "during SGD, but ever more slowly (Sec. 5.2, Fig. 1)",
    },
    "gradients_vanish": {
        "figure": "fig2", "rule": gradients_vanish,
        "statement": "The average stochastic-gradient norm decays towards zero as training goes on "
                     "(vanishing gradients, Sec. 5.2, Fig. 2)",
    },
    "small_lam_r_overfits": {
        "figure": "fig3", "rule": small_lam_r_overfits,
        "statement": "With small λr the test AP peaks after a few epochs and then drops (overfitting; "
                     "Sec. 5.2, Fig. 3)",
    },
    "lam0_overfits_every_dim": {
        "figure": "fig4", "rule": lam0_overfits_every_dim,
        "statement": "Without regularization (λr = 0) SGD overfits for every D > 10 (Sec. 5.3, Fig. 4)",
    },
    "dcd_poor_near_zero": {
        "figure": "fig5", "rule": dcd_poor_near_zero,
        "statement": "DCD, which optimizes to convergence, generalizes poorly when λr is close to 0 "
                     "(Sec. 5.4, Fig. 5)",
    },
    "dcd_insensitive_to_dim": {
        "figure": "fig6", "rule": dcd_insensitive_to_dim,
        "statement": "With norm regularization (λr = 3), DCD's test AP is insensitive to the dimension "
                     "for D ≥ 30 (Sec. 5.4, Fig. 6)",
    },
}


def judge(claim, runs):
    """Apply the rule of ``claim`` to ``runs``; returns a :class:`Verdict`."""
    return CLAIMS[claim]["rule"](runs)
