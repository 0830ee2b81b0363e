"""Verdict rules: is each claim of the paper borne out by the measured runs?

Each rule is a small function of a list of *runs* (see
:mod:`lgekit.experiments.aggregate`) and of its thresholds, returning a
:class:`~lgekit.experiments.reporting.Verdict` (the type the theory checks
share) whose status is ``REPRODUCED``, ``NOT REPRODUCED`` or ``INCONCLUSIVE`` (too
little data, every run diverged, or an effect between the "clearly there" and
"clearly absent" thresholds), with the numbers it was decided on.  The
thresholds are fixed in advance in the figure's spec
(:attr:`lgekit.experiments.specs.FigureSpec.thresholds`, their meanings in
:data:`lgekit.experiments.specs.THRESHOLDS`), not tuned on results; the
report states them beside each verdict.

Noise: where several seeds are available, an effect must also exceed
``noise_se`` standard errors over seeds (``std / sqrt(n)``); with
``noise_se = 2`` it must be distinguishable from seed-to-seed variation at
roughly the 95% level under a normal approximation.  With one seed only the
absolute thresholds apply.

Divergence: a diverged run has no usable embedding.  It is never averaged
into a curve or a point; when every run of a figure diverged its verdict is
``INCONCLUSIVE`` and the evidence gives the recorded reasons.  Figures 4 and
5 read a grid point whose every run diverged at the smallest λr as the
claim's failure to generalize in its strongest form, and say so.
"""
import functools
import math

from .aggregate import divergence_summary, epoch_curve, group, point_summary
from .reporting import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Verdict

__all__ = [
    "Verdict", "CLAIMS", "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE", "judge", "thresholds_for",
    "norms_grow_slowing", "gradients_vanish", "small_lam_r_overfits", "lam0_overfits_every_dim",
    "dcd_poor_near_zero", "dcd_insensitive_to_dim",
]


def thresholds_for(claim, thresholds=None):
    """The thresholds of ``claim``: its figure spec's, with ``thresholds`` (a mapping) replacing some.

    Parameters
    ----------
    claim : str
        A key of :data:`CLAIMS`.
    thresholds : dict, optional
        Name -> value; names of thresholds other rules read are ignored.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        For a name the claim's rule does not read (the message lists those it reads).
    """
    from .specs import CLAIM_THRESHOLDS, FIGURES, THRESHOLDS

    names = CLAIM_THRESHOLDS[claim]
    out = {name: FIGURES[CLAIMS[claim]["figure"]].thresholds[name] for name in names}
    for key, value in (thresholds or {}).items():
        if key in names:
            out[key] = value
        elif key not in THRESHOLDS:  # a figure's other claims' thresholds are not this rule's business
            raise ValueError(f"unknown threshold {key!r} for {claim}: it reads {', '.join(names)}")
    return out


def _se(std, n):
    return std / math.sqrt(n) if n > 1 else 0.0


def _fmt(x, digits=3):
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}g}"


def _lam(value):
    return f"λr={value:g}"


def _verdict(claim, verdict, evidence, numbers, th):
    spec = CLAIMS[claim]
    return Verdict(claim=claim, status=verdict, evidence=evidence, statement=spec["statement"], figure=spec["figure"],
                   numbers=numbers, thresholds=dict(th))


def _inconclusive(claim, why, numbers, th):
    return _verdict(claim, INCONCLUSIVE, why, numbers or {}, th)


def _rule(claim):
    """Decorate a rule: resolve its thresholds, and judge the empty and the all-diverged cases alike."""

    def wrap(fn):
        @functools.wraps(fn)
        def rule(runs, thresholds=None):
            th = thresholds_for(claim, thresholds)
            judged = [r for r in runs if r.get("status") != "error"]
            if not judged:
                return _inconclusive(claim, "no runs" if not runs else "every run failed (see Errors)", {}, th)
            if all(r.get("status") == "diverged" for r in judged):
                return _inconclusive(
                    claim, f"every one of the {len(judged)} runs diverged, so nothing can be judged: "
                           + divergence_summary(judged), {"n_diverged": len(judged)}, th)
            return fn(runs, th)

        return rule

    return wrap


@_rule("norms_grow_slowing")
def norms_grow_slowing(runs, th):
    """Fig. 1: without regularization the vector norms grow during SGD, ever more slowly.

    Rule, on the mean norm curve n(t) of the smallest λr (t = completed epochs,
    1..T, mid = the epoch nearest T/2):
    grows := n(T) >= (1 + norm_growth_min) n(1); slows := n(T) - n(mid) < n(mid) - n(1).
    REPRODUCED if it grows and slows; NOT REPRODUCED if n(T) <= n(1) or the
    growth accelerates (second half >= first half); INCONCLUSIVE otherwise
    (growth under ``norm_growth_min``, fewer than 3 epochs, no finished run).
    The other λr are reported as evidence (their final norms should be smaller).
    """
    claim = "norms_grow_slowing"
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
    lam0 = min(groups)
    if lam0 not in numbers:
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 3 recorded epochs", numbers, th)
    d = numbers[lam0]
    grow1, grow2 = d["mid"] - d["first"], d["last"] - d["mid"]
    others = "; ".join(f"{_lam(k)} ends at {_fmt(v['last'])}" for k, v in numbers.items() if k != lam0)
    evidence = (f"{_lam(lam0)}: mean norm {_fmt(d['first'])} after epoch 1, {_fmt(d['mid'])} at epoch "
                f"{d['mid_epoch']}, {_fmt(d['last'])} at epoch {d['last_epoch']} (growth {_fmt(grow1)} then "
                f"{_fmt(grow2)})" + (f"; {others}" if others else ""))
    if d["last"] <= d["first"] or grow2 >= grow1:
        verdict = NOT_REPRODUCED
    elif d["last"] >= (1 + th["norm_growth_min"]) * d["first"]:
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    return _verdict(claim, verdict, evidence, numbers, th)


@_rule("gradients_vanish")
def gradients_vanish(runs, th):
    """Fig. 2: the average stochastic-gradient norm (Eq. 2) of SGD decays towards zero.

    Rule, on the mean ``mean_grad_norm`` curve g(t) of the smallest λr:
    REPRODUCED if g(T) <= vanish_ratio * max g; NOT REPRODUCED if
    g(T) > no_vanish_ratio * max g; INCONCLUSIVE in between or without data.
    """
    claim = "gradients_vanish"
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
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 2 recorded gradient norms", numbers, th)
    d = numbers[lam0]
    others = "; ".join(f"{_lam(k)} ends at {_fmt(v['ratio'], 2)} of its peak"
                       for k, v in numbers.items() if k != lam0)
    evidence = (f"{_lam(lam0)}: gradient norm peaks at {_fmt(d['peak'])} (epoch {d['peak_epoch']}) and ends at "
                f"{_fmt(d['last'])} (epoch {d['last_epoch']}), {_fmt(d['ratio'], 2)} of the peak"
                + (f"; {others}" if others else ""))
    if not math.isfinite(d["ratio"]):
        verdict = INCONCLUSIVE
    elif d["ratio"] <= th["vanish_ratio"]:
        verdict = REPRODUCED
    elif d["ratio"] > th["no_vanish_ratio"]:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    return _verdict(claim, verdict, evidence, numbers, th)


def _overfit(curve, th):
    """Peak epoch/value, final epoch/value, drop and the noise margin of a test-AP curve."""
    peak_epoch, peak = curve.peak()
    last_epoch, last = curve.final()
    n = int(curve.n[-1])
    se = math.hypot(_se(curve.std_at(peak_epoch), n), _se(curve.std_at(last_epoch), n))
    return {"peak": peak, "peak_epoch": peak_epoch, "last": last, "last_epoch": last_epoch,
            "drop": peak - last, "margin": max(th["overfit_drop"], th["noise_se"] * se), "n_seeds": n}


def _classify_overfit(d, th):
    early = d["peak_epoch"] <= th["early_fraction"] * d["last_epoch"]
    if d["drop"] >= d["margin"] and early:
        return REPRODUCED
    if d["drop"] < th["no_overfit_drop"]:
        return NOT_REPRODUCED
    return INCONCLUSIVE


@_rule("small_lam_r_overfits")
def small_lam_r_overfits(runs, th):
    """Fig. 3: with small λr the test AP peaks after a few epochs, then drops (overfitting).

    Rule, on the mean test-AP curve a(t) of the smallest λr: with p = argmax a,
    drop = a(p) - a(T) and margin = max(overfit_drop, noise_se SE over seeds):
    REPRODUCED if drop >= margin and p <= early_fraction * T;
    NOT REPRODUCED if drop < no_overfit_drop (AP still at its best at the end);
    INCONCLUSIVE otherwise.  The largest λr's drop is reported for contrast.
    """
    claim = "small_lam_r_overfits"
    groups = group(runs, "lam_r")
    numbers = {}
    for lam, rs in groups.items():
        c = epoch_curve(rs, "test_ap")
        if len(c) >= 3:
            numbers[lam] = _overfit(c, th)
    lam0 = min(groups)
    if lam0 not in numbers:
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 3 recorded test-AP values", numbers, th)
    d = numbers[lam0]
    evidence = (f"{_lam(lam0)} peaks at epoch {d['peak_epoch']} ({_fmt(d['peak'])}) and ends at "
                f"{_fmt(d['last'])} at epoch {d['last_epoch']} (drop {_fmt(d['drop'], 2)}, needed ≥ "
                f"{_fmt(d['margin'], 2)} with the peak in the first {th['early_fraction']:.0%} of the epochs)")
    lam_max = max(groups)
    if lam_max != lam0 and lam_max in numbers:
        e = numbers[lam_max]
        evidence += f"; {_lam(lam_max)} drops {_fmt(e['drop'], 2)} (peak {_fmt(e['peak'])} at epoch {e['peak_epoch']})"
    return _verdict(claim, _classify_overfit(d, th), evidence, numbers, th)


@_rule("lam0_overfits_every_dim")
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
    claim = "lam0_overfits_every_dim"
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
            numbers[dim] = dict(_overfit(c, th), n_diverged=c.n_diverged)
            verdicts[dim] = _classify_overfit(numbers[dim], th)
        elif live and all(r.get("status") == "diverged" for r in live):
            diverged[dim] = live
    unusable = ""
    if diverged:
        unusable = "; ".join(f"D={dim}: every run diverged ({divergence_summary(rs)}): no usable embedding"
                             for dim, rs in diverged.items())
    if not verdicts:
        why = (f"no {_lam(lam0)} run with D > {floor:g} finished, so none can show overfitting"
               + (f"; {unusable}" if unusable else "")) if diverged else \
              f"no {_lam(lam0)} run with D > {floor:g} and 3+ recorded epochs"
        return _inconclusive(claim, why, {"diverged_dims": sorted(diverged)}, th)
    parts = []
    for dim, d in numbers.items():
        part = (f"D={dim}: peak {_fmt(d['peak'])} at epoch {d['peak_epoch']}, end {_fmt(d['last'])} "
                f"(drop {_fmt(d['drop'], 2)})")
        if d["n_diverged"]:
            part += f" over the finished runs ({d['n_diverged']} diverged)"
        parts.append(part)
    evidence = f"{_lam(lam0)}: " + "; ".join(parts)
    if unusable:
        evidence += "; " + unusable
    numbers["diverged_dims"] = sorted(diverged)
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
        evidence += "; overfits for D in {" + ", ".join(str(k) for k, v in verdicts.items() if v == REPRODUCED) + "} only"
    return _verdict(claim, verdict, evidence, numbers, th)


@_rule("dcd_poor_near_zero")
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
    claim = "dcd_poor_near_zero"
    groups = group(runs, "lam_r")
    stats = {lam: {"test": point_summary(rs, "test_ap"), "train": point_summary(rs, "train_ap")}
             for lam, rs in groups.items()}
    finished = {lam: s for lam, s in stats.items() if s["test"]["n"] > 0}
    if len(finished) < 2:
        return _inconclusive(claim, "fewer than two λr values with a finished run",
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
                    f"{reasons}); the smallest finished, {_lam(low)}, has test AP "
                    f"{_fmt(finished[low]['test']['mean'])} (train AP {_fmt(finished[low]['train']['mean'])}) vs best "
                    f"{_fmt(finished[best_lam]['test']['mean'])} at {_lam(best_lam)}")
        numbers = {"diverged_lam_r": div, "gap_smallest_finished": gap_low, "best_lam_r": best_lam,
                   "test_ap": {k: v["test"]["mean"] for k, v in stats.items()}}
        verdict = REPRODUCED if (div and gap_low >= th["not_poor_gap"]) else INCONCLUSIVE
        return _verdict(claim, verdict, evidence, numbers, th)
    best_lam = max(finished, key=lambda k: finished[k]["test"]["mean"])
    b, z = finished[best_lam]["test"], finished[lam0]["test"]
    gap = b["mean"] - z["mean"]
    margin = max(th["poor_gap"], th["noise_se"] * math.hypot(_se(b["std"], b["n"]), _se(z["std"], z["n"])))
    train0 = finished[lam0]["train"]["mean"]
    evidence = (f"test AP {_fmt(z['mean'])} at {_lam(lam0)} (train AP {_fmt(train0)}) vs best {_fmt(b['mean'])} "
                f"at {_lam(best_lam)}: gap {_fmt(gap, 2)} (needed ≥ {_fmt(margin, 2)})")
    if gap >= margin:
        verdict = REPRODUCED
    elif gap < th["not_poor_gap"]:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers = {"gap": gap, "margin": margin, "best_lam_r": best_lam,
               "test_ap": {k: v["test"]["mean"] for k, v in stats.items()},
               "train_ap": {k: v["train"]["mean"] for k, v in stats.items()}}
    return _verdict(claim, verdict, evidence, numbers, th)


@_rule("dcd_insensitive_to_dim")
def dcd_insensitive_to_dim(runs, th):
    """Fig. 6: with λr fixed, DCD's test AP hardly changes with D once D >= min_dim.

    Rule, on the mean final test AP per D >= ``min_dim`` (at least two such D
    with a finished run): spread = max - min.  REPRODUCED if
    spread <= insensitive_range; NOT REPRODUCED if
    spread > max(sensitive_range, noise_se SE); INCONCLUSIVE otherwise.
    """
    claim = "dcd_insensitive_to_dim"
    floor = th["min_dim"]
    groups = group(runs, "dim")
    stats = {dim: point_summary(rs, "test_ap") for dim, rs in groups.items()}
    big = {dim: s for dim, s in stats.items() if dim >= floor and s["n"] > 0}
    if len(big) < 2:
        return _inconclusive(claim, f"fewer than two D >= {floor:g} with a finished run",
                             {k: v["mean"] for k, v in stats.items()}, th)
    means = {dim: s["mean"] for dim, s in big.items()}
    hi, lo = max(means, key=means.get), min(means, key=means.get)
    spread = means[hi] - means[lo]
    se = math.hypot(_se(big[hi]["std"], big[hi]["n"]), _se(big[lo]["std"], big[lo]["n"]))
    evidence = ("test AP " + ", ".join(f"{_fmt(m)} (D={d})" for d, m in means.items())
                + f": spread {_fmt(spread, 2)} over D ≥ {floor:g} (insensitive if ≤ {th['insensitive_range']:g})")
    small = {d: s["mean"] for d, s in stats.items() if d < floor and s["n"] > 0}
    if small:
        evidence += f"; below {floor:g}: " + ", ".join(f"{_fmt(m)} (D={d})" for d, m in small.items())
    div = [d for d, s in stats.items() if s["n"] == 0 and s["n_diverged"]]
    if div:
        evidence += "; every run diverged at D ∈ {" + ", ".join(f"{d:g}" for d in div) + "}"
    if spread <= th["insensitive_range"]:
        verdict = REPRODUCED
    elif spread > max(th["sensitive_range"], th["noise_se"] * se):
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers = {"spread": spread, "test_ap": {k: v["mean"] for k, v in stats.items()}}
    return _verdict(claim, verdict, evidence, numbers, th)


#: claim name -> statement (as in the paper, with its section and figure), figure, rule
CLAIMS = {
    "norms_grow_slowing": {
        "figure": "fig1", "rule": norms_grow_slowing,
        "statement": "Without regularization, the average norm of the embedding vectors increases consistently "
                     "during SGD, but the increase rate gets slower (Sec. 3.2, Fig. 1)",
    },
    "gradients_vanish": {
        "figure": "fig2", "rule": gradients_vanish,
        "statement": "The stochastic gradients (Eq. 2) become smaller during the later stage of SGD "
                     "(vanishing gradients, Sec. 3.2, Fig. 2)",
    },
    "small_lam_r_overfits": {
        "figure": "fig3", "rule": small_lam_r_overfits,
        "statement": "With small λr the test AP starts to drop after a few epochs (overfitting; "
                     "Sec. 3.2, Fig. 3)",
    },
    "lam0_overfits_every_dim": {
        "figure": "fig4", "rule": lam0_overfits_every_dim,
        "statement": "Without norm regularization (λr = 0) the embedding overfits for any D greater than 10 "
                     "(Sec. 3.2, Fig. 4)",
    },
    "dcd_poor_near_zero": {
        "figure": "fig5", "rule": dcd_poor_near_zero,
        "statement": "DCD's embedding quality is very bad when λr ≈ 0 (Sec. 4, Fig. 5)",
    },
    "dcd_insensitive_to_dim": {
        "figure": "fig6", "rule": dcd_insensitive_to_dim,
        "statement": "With norm regularization (λr = 3), as long as D is reasonably large (≥ 30) its exact choice "
                     "has very little effect on DCD's test AP (Sec. 4, Fig. 6)",
    },
}


def judge(claim, runs, thresholds=None):
    """Apply the rule of ``claim`` to ``runs``.

    Parameters
    ----------
    claim : str
        A key of :data:`CLAIMS`.
    runs : list of dict
        See :func:`lgekit.experiments.aggregate.runs_for_figure`.
    thresholds : dict, optional
        The figure spec's thresholds (default: those of
        :data:`lgekit.experiments.specs.FIGURES`); entries for other claims
        of the same figure are ignored.

    Returns
    -------
    Verdict
    """
    return CLAIMS[claim]["rule"](runs, thresholds)
