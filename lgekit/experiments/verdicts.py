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

from .aggregate import divergence_summary, epoch_curve, group, point_summary, run_series, spread
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


def _spread_rows(runs, name, quantity, per_run):
    """Per grid value of ``name``: the spread over seeds of ``per_run(run)`` over the finished runs.

    Returns a list of ``{"point": "<name>=<value>", "quantity", **spread}``
    (see :func:`lgekit.experiments.aggregate.spread`), which the report prints
    as min / median / max beside the verdict.
    """
    rows = []
    for value, rs in group([r for r in runs if r.get("status") == "ok"], name).items():
        values = [per_run(r) for r in sorted(rs, key=lambda r: r.get("seed", 0))]
        label = _lam(value) if name == "lam_r" else f"D={value:g}"
        rows.append(dict(spread([v for v in values if v is not None]), point=label, quantity=quantity))
    return rows


def _norm_ratio(run):
    _, ys = run_series(run, "mean_norm")
    return ys[-1] / ys[0] if len(ys) >= 2 and ys[0] > 0 else None


def _grad_ratio(run):
    _, ys = run_series(run, "mean_grad_norm")
    return ys[-1] / max(ys) if len(ys) >= 2 and max(ys) > 0 else None


def _ap_drop(run):
    _, ys = run_series(run, "test_ap")
    return max(ys) - ys[-1] if len(ys) >= 3 else None


def _ap_rise(run):
    _, ys = run_series(run, "test_ap")
    return max(ys) - ys[0] if len(ys) >= 3 else None


def _ap_peak_epoch(run):
    xs, ys = run_series(run, "test_ap")
    return float(xs[ys.index(max(ys))]) if len(ys) >= 3 else None


def _final_metric(metric):
    def value(run):
        x = (run.get("metrics") or {}).get(metric)
        return float(x) if x is not None else None
    return value


#: the paper's Section 3.2 sentences each figure rule is judged against (quoted in evidence and docstrings)
PAPER_FIG1 = ("the average norm of embedding vectors increases consistently after each epoch, but the increase "
              "rate gets slower as time progresses")
PAPER_FIG1_LARGEST = ("the generalization performance is worst near the end of SGD execution when λr = 0, which "
                      "coincides with the fact that embedding vectors in that case also have the largest norm among "
                      "all settings")
PAPER_FIG3 = ("the generalization performance of embedding vectors starts to drop after 5~20 epochs when λr is "
              "small, indicating that they are overfitting the training dataset afterwards")


def _trend(d, th):
    """'grows', 'falls' or 'barely grows' for a norm curve summary ``d`` (first/last)."""
    if d["last"] >= (1 + th["norm_growth_min"]) * d["first"]:
        return "grows"
    if d["last"] < d["first"]:
        return "falls"
    return "barely grows"


@_rule("norms_grow_slowing")
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
            numbers[lam]["trend"] = _trend(numbers[lam], th)
    lam0 = min(groups)
    if lam0 not in numbers:
        return _inconclusive(claim, f"{_lam(lam0)} has fewer than 3 recorded epochs", numbers, th)
    d = numbers[lam0]
    grow1, grow2 = d["mid"] - d["first"], d["last"] - d["mid"]
    others = {k: v for k, v in numbers.items() if k != lam0}
    per_lam = "; ".join(f"{_lam(k)} {v['trend']} ({_fmt(v['first'])} -> {_fmt(v['last'])}, "
                        f"{100 * (v['last'] / v['first'] - 1):+.0f}%)" for k, v in others.items())
    evidence = (f"{_lam(lam0)}: mean norm {_fmt(d['first'])} after epoch 1, {_fmt(d['mid'])} at epoch "
                f"{d['mid_epoch']}, {_fmt(d['last'])} at epoch {d['last_epoch']} (growth {_fmt(grow1)} then "
                f"{_fmt(grow2)})" + (f"; {per_lam}" if per_lam else ""))
    differs = sorted(k for k, v in numbers.items() if v["trend"] != "grows")
    numbers["differs_from_paper"] = differs
    if differs:
        numbers["differs_text"] = (
            "the paper's norms grow at every λr (\"" + PAPER_FIG1 + "\"); here the mean norm "
            + "; ".join(f"{numbers[k]['trend']} at {_lam(k)} ({_fmt(numbers[k]['first'])} -> "
                        f"{_fmt(numbers[k]['last'])})" for k in differs))
    above = {k: v["last"] for k, v in others.items() if v["last"] > d["last"]}
    clearly_above = {k: x for k, x in above.items() if x > (1 + th["norm_growth_min"]) * d["last"]}
    if above:
        evidence += ("; λr=0 does not have the largest final norm: " + ", ".join(
            f"{_lam(k)} ends at {_fmt(x)}" for k, x in above.items()) + f" (the paper: \"{PAPER_FIG1_LARGEST}\")")
    if d["last"] <= d["first"] or grow2 >= grow1 or clearly_above:
        verdict = NOT_REPRODUCED
    elif d["trend"] == "grows" and not above:
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    numbers["spread"] = _spread_rows(runs, "lam_r", "final/first mean norm", _norm_ratio)
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
    numbers["spread"] = _spread_rows(runs, "lam_r", "final/peak gradient norm", _grad_ratio)
    return _verdict(claim, verdict, evidence, numbers, th)


def _overfit(curve, th):
    """Peak, first and final epoch/value, drop, rise and the noise margins of a test-AP curve."""
    peak_epoch, peak = curve.peak()
    last_epoch, last = curve.final()
    first_epoch, first = int(curve.epochs[0]), float(curve.mean[0])
    n = int(curve.n[-1])
    se = math.hypot(_se(curve.std_at(peak_epoch), n), _se(curve.std_at(last_epoch), n))
    se_rise = math.hypot(_se(curve.std_at(peak_epoch), n), _se(curve.std_at(first_epoch), n))
    out = {"peak": peak, "peak_epoch": peak_epoch, "last": last, "last_epoch": last_epoch, "first": first,
           "first_epoch": first_epoch, "drop": peak - last, "rise": peak - first,
           "margin": max(th["overfit_drop"], th["noise_se"] * se), "n_seeds": n}
    if "rise_min" in th:
        out["rise_margin"] = max(th["rise_min"], th["noise_se"] * se_rise)
        # where the drop starts: the last epoch still within no_overfit_drop of the peak.  The argmax alone is
        # fragile on a flat top (two epochs 2e-4 apart swap with the seeds); the plateau's end is not
        near = curve.epochs[curve.mean >= peak - th["no_overfit_drop"]]
        out["drop_start"] = int(near.max())
    return out


def _classify_overfit(d, th):
    """Fig. 4's reading of one curve: a drop after an early peak (the peak's timing is Fig. 3's claim)."""
    early = d["peak_epoch"] <= th["early_fraction"] * d["last_epoch"]
    if d["drop"] >= d["margin"] and early:
        return REPRODUCED
    if d["drop"] < th["no_overfit_drop"]:
        return NOT_REPRODUCED
    return INCONCLUSIVE


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


@_rule("small_lam_r_overfits")
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
    evidence = (f"{_lam(lam0)}: test AP {_fmt(d['first'])} after epoch {d['first_epoch']}, peaks at epoch "
                f"{d['peak_epoch']} ({_fmt(d['peak'])}) and ends at {_fmt(d['last'])} at epoch {d['last_epoch']} "
                f"(rise {_fmt(d['rise'], 2)}, needed ≥ {_fmt(d['rise_margin'], 2)}; drop {_fmt(d['drop'], 2)}, "
                f"needed ≥ {_fmt(d['margin'], 2)}); it stays within {th['no_overfit_drop']:g} of the peak until "
                f"epoch {d['drop_start']}, so the drop starts after epoch {d['drop_start']} (needed: after epoch "
                f"{th['min_peak_epoch']:g} or later, with the peak by epoch {th['early_fraction'] * d['last_epoch']:g})")
    if d["drop_start"] < th["min_peak_epoch"]:
        evidence += (f"; a drop from epoch {d['drop_start']} on means the test AP falls from the first epochs, not "
                     f"after a rise (the paper: \"{PAPER_FIG3}\")")
    lam_max = max(groups)
    if lam_max != lam0 and lam_max in numbers:
        e = numbers[lam_max]
        evidence += f"; {_lam(lam_max)} drops {_fmt(e['drop'], 2)} (peak {_fmt(e['peak'])} at epoch {e['peak_epoch']})"
    small = [r for r in runs if r.get("lam_r") == lam0]
    numbers["spread"] = (_spread_rows(small, "lam_r", "test-AP peak epoch", _ap_peak_epoch)
                         + _spread_rows(small, "lam_r", "test-AP rise to the peak", _ap_rise)
                         + _spread_rows(small, "lam_r", "test-AP drop after the peak", _ap_drop))
    return _verdict(claim, _classify_rise_then_drop(d, th), evidence, numbers, th)


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
        why = (f"no {_lam(lam0)} run with D > {floor:g} finished, so none can show overfitting"
               + (f"; {unusable}" if unusable else "")) if diverged else \
              f"no {_lam(lam0)} run with D > {floor:g} and 3+ recorded epochs"
        return _inconclusive(claim, why, {"diverged_dims": sorted(diverged)}, th)
    parts = []
    for dim, d in numbers.items():
        part = (f"D={dim}: peak {_fmt(d['peak'])} at epoch {d['peak_epoch']}, end {_fmt(d['last'])} "
                f"(drop {_fmt(d['drop'], 2)})")
        if "train_last" in d:
            part += f", train AP {_fmt(d['train_first'])} -> {_fmt(d['train_last'])}"
        if d["n_diverged"]:
            part += f" over the finished runs ({d['n_diverged']} diverged)"
        parts.append(part)
    evidence = f"{_lam(lam0)}: " + "; ".join(parts)
    if unusable:
        evidence += "; " + unusable
    numbers["diverged_dims"] = sorted(diverged)
    numbers["spread"] = _spread_rows([r for r in runs if r["lam_r"] == lam0 and r.get("dim", 0) > floor], "dim",
                                     "test-AP drop after the peak", _ap_drop)
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
               "train_ap": {k: v["train"]["mean"] for k, v in stats.items()},
               "spread": _spread_rows([r for r in runs if r["lam_r"] in (lam0, best_lam)], "lam_r", "final test AP",
                                      _final_metric("test_ap"))}
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
    spread_ap = means[hi] - means[lo]
    se = math.hypot(_se(big[hi]["std"], big[hi]["n"]), _se(big[lo]["std"], big[lo]["n"]))
    evidence = ("test AP " + ", ".join(f"{_fmt(m)} (D={d})" for d, m in means.items())
                + f": spread {_fmt(spread_ap, 2)} over D ≥ {floor:g} "
                  f"(insensitive if ≤ {th['insensitive_range']:g})")
    small = {d: s["mean"] for d, s in stats.items() if d < floor and s["n"] > 0}
    if small:
        evidence += f"; below {floor:g}: " + ", ".join(f"{_fmt(m)} (D={d})" for d, m in small.items())
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
               "spread": _spread_rows([r for r in runs if r.get("dim", 0) >= floor], "dim", "final test AP",
                                      _final_metric("test_ap"))}
    return _verdict(claim, verdict, evidence, numbers, th)


#: claim name -> statement (as in the paper, with its section and figure), figure, rule
CLAIMS = {
    "norms_grow_slowing": {
        "figure": "fig1", "rule": norms_grow_slowing,
        "statement": "Without regularization, the average norm of the embedding vectors increases consistently "
                     "during SGD, but the increase rate gets slower (Sec. 3.2, Fig. 1; the paper's norms grow at "
                     "every λr drawn)",
    },
    "gradients_vanish": {
        "figure": "fig2", "rule": gradients_vanish,
        "statement": "The stochastic gradients (Eq. 2) become smaller during the later stage of SGD "
                     "(vanishing gradients, Sec. 3.2, Fig. 2)",
    },
    "small_lam_r_overfits": {
        "figure": "fig3", "rule": small_lam_r_overfits,
        "statement": "With small λr the test AP rises for a few epochs, then \"starts to drop after 5~20 epochs\" "
                     "(overfitting; Sec. 3.2, Fig. 3)",
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
