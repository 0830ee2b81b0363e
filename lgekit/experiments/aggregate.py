"""From records to what figures and verdicts use: runs, per-epoch curves and per-point summaries.

A *run* is a plan entry (grid values, seed, key) joined with its record's
``status``, ``history`` and ``metrics``.  Plots and verdict rules take lists
of runs, so they can be tested on synthetic runs where the answer is known.
"""
import math

import numpy as np

__all__ = ["MISSING_RECORD", "runs_for_figure", "group", "epoch_curve", "point_summary", "Curve", "divergence_summary",
           "divergence_reason", "diverged_epoch", "last_value", "run_series", "spread", "format_spread"]


#: the error of a plan entry without a record (its cell was not computed, or its record could not be read)
MISSING_RECORD = {"type": "MissingRecord", "message": "no record of this cell is stored (the sweep did not finish "
                                                      "it, or its file is damaged): it is recomputed by the next run"}


def runs_for_figure(entries, records_by_key):
    """Join a figure's plan entries with their records.

    An entry without a record is a failed run (status ``"error"``, error
    :data:`MISSING_RECORD`): never drawn nor judged, and counted as failed by
    the verdicts (:func:`lgekit.experiments.verdict.judged`), so that a
    figure missing cells says so.
    """
    runs = []
    for entry in entries:
        rec = records_by_key.get(entry["key"])
        if rec is None:
            rec = {"status": "error", "error": dict(MISSING_RECORD)}
        run = dict(entry)
        run["status"] = rec.get("status")
        run["history"] = rec.get("history") or []
        run["metrics"] = rec.get("metrics") or {}
        run["diverged_epoch"] = rec.get("diverged_epoch")
        run["error"] = rec.get("error")
        run["divergence_reason"] = divergence_reason(run) if run["status"] == "diverged" else None
        runs.append(run)
    return runs


def divergence_reason(run):
    """The check that ended a diverged run, as recorded (``None`` if none was)."""
    for rec in reversed(run.get("history") or []):
        if rec.get("divergence_reason"):
            return rec["divergence_reason"]
    error = run.get("error") or {}
    return error.get("reason") or error.get("message")


def diverged_epoch(run):
    """Completed epochs (1-based) at which a diverged run stopped, or None when it recorded nothing."""
    if run.get("diverged_epoch") is not None:
        return int(run["diverged_epoch"]) + 1
    history = run.get("history") or []
    return int(history[-1]["epoch"]) + 1 if history else None


def last_value(run, key):
    """(epoch, value) of the last finite ``key`` the run recorded (1-based epochs), or None."""
    xs, ys = run_series(run, key)
    return (xs[-1], ys[-1]) if xs else None


def divergence_summary(runs, limit=3):
    """One sentence: at which epochs the diverged ``runs`` stopped, and the reasons they recorded.

    Identical reasons are counted once; at most ``limit`` distinct reasons
    are quoted.
    """
    diverged = [r for r in runs if r.get("status") == "diverged"]
    if not diverged:
        return "no run diverged"
    epochs = sorted({e for e in (diverged_epoch(r) for r in diverged) if e is not None})
    reasons = {}
    for run in diverged:
        reason = run.get("divergence_reason") or divergence_reason(run) or "no reason recorded"
        reasons[reason] = reasons.get(reason, 0) + 1
    quoted = [f"{text}" + (f" ({n} runs)" if n > 1 else "") for text, n in list(reasons.items())[:limit]]
    more = len(reasons) - limit
    where = ("at epoch " + ", ".join(map(str, epochs))) if epochs else "at an unknown epoch"
    return (f"{len(diverged)} run{'s' if len(diverged) > 1 else ''} diverged {where}; reason"
            f"{'s' if len(reasons) > 1 else ''}: " + "; ".join(quoted)
            + (f"; and {more} other reason{'s' if more > 1 else ''}" if more > 0 else ""))


def group(runs, *names):
    """``{value(s): [runs]}`` grouping by one or more grid names, keys sorted."""
    out = {}
    for run in runs:
        key = tuple(run.get(n) for n in names)
        out.setdefault(key if len(names) > 1 else key[0], []).append(run)
    return dict(sorted(out.items(), key=lambda kv: kv[0]))


class Curve:
    """A per-epoch quantity over the seeds of one grid point.

    Attributes
    ----------
    epochs : ndarray of int
        Completed epochs (1-based) at which at least one finished run recorded the quantity.
    mean, std, low, high : ndarray
        Mean, standard deviation (ddof=1, 0 for one run), min and max over runs.
    n : ndarray of int
        Runs contributing at each epoch.
    n_runs, n_diverged : int
        Runs (of any status except error) and diverged runs at this point.
    diverged : list of (epochs, values)
        The partial curves of diverged runs (drawn separately, never averaged).
    """

    def __init__(self, epochs, mean, std, low, high, n, n_runs, n_diverged, diverged):
        self.epochs, self.mean, self.std, self.low, self.high, self.n = epochs, mean, std, low, high, n
        self.n_runs, self.n_diverged, self.diverged = n_runs, n_diverged, diverged

    def __len__(self):
        return len(self.epochs)

    def at(self, epoch):
        """Mean at ``epoch`` (1-based completed epochs), NaN if not recorded."""
        idx = np.flatnonzero(self.epochs == epoch)
        return float(self.mean[idx[0]]) if len(idx) else math.nan

    def peak(self):
        """(epoch, value) of the maximum of the mean curve (earliest on ties)."""
        i = int(np.argmax(self.mean))
        return int(self.epochs[i]), float(self.mean[i])

    def final(self):
        return int(self.epochs[-1]), float(self.mean[-1])

    def std_at(self, epoch):
        idx = np.flatnonzero(self.epochs == epoch)
        return float(self.std[idx[0]]) if len(idx) else math.nan


def run_series(run, key):
    """(completed epochs, values) of history quantity ``key`` in one run, non-finite values left out."""
    xs, ys = [], []
    for rec in run["history"]:
        value = rec.get(key)
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            continue
        xs.append(int(rec["epoch"]) + 1)
        ys.append(float(value))
    return xs, ys


def spread(values):
    """The spread of a per-seed quantity: ``{"n", "min", "median", "max", "mean", "sd"}``.

    ``sd`` uses ddof=1 (0 for one value); every entry but ``n`` is NaN for no
    values.  The report shows min / median / max: with the three seeds of a
    full run, the median is the middle seed and the range is every seed.
    """
    arr = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if not len(arr):
        return {"n": 0, "min": math.nan, "median": math.nan, "max": math.nan, "mean": math.nan, "sd": math.nan}
    return {"n": int(len(arr)), "min": float(arr.min()), "median": float(np.median(arr)), "max": float(arr.max()),
            "mean": float(arr.mean()), "sd": float(arr.std(ddof=1)) if len(arr) > 1 else 0.0}


def format_spread(s, digits=3):
    """``"0.81 / 0.83 / 0.84 (n=3)"`` (min / median / max), or the one value for ``n = 1``."""
    if s["n"] == 0:
        return "no finished run"
    if s["n"] == 1:
        return f"{s['median']:.{digits}g} (n=1)"
    return f"{s['min']:.{digits}g} / {s['median']:.{digits}g} / {s['max']:.{digits}g} (n={s['n']})"


def epoch_curve(runs, key):
    """Aggregate history quantity ``key`` over runs (ok runs averaged; diverged kept apart)."""
    table = {}
    diverged = []
    n_runs = n_div = 0
    for run in runs:
        if run.get("status") == "error":
            continue
        n_runs += 1
        xs, ys = run_series(run, key)
        if run.get("status") == "diverged":
            n_div += 1
            diverged.append((np.array(xs, dtype=int), np.array(ys, dtype=float)))
            continue
        for x, y in zip(xs, ys):
            table.setdefault(x, []).append(y)
    epochs = np.array(sorted(table), dtype=int)
    vals = [np.array(table[e]) for e in epochs]
    mean = np.array([v.mean() for v in vals])
    std = np.array([v.std(ddof=1) if len(v) > 1 else 0.0 for v in vals])
    low = np.array([v.min() for v in vals])
    high = np.array([v.max() for v in vals])
    n = np.array([len(v) for v in vals], dtype=int)
    return Curve(epochs, mean, std, low, high, n, n_runs, n_div, diverged)


def point_summary(runs, metric):
    """Mean/std/n of a final metric over the finished (``ok``) runs of one grid point.

    Returns
    -------
    dict
        ``{"mean", "std", "n", "n_diverged", "n_error", "values"}``; ``mean``
        is NaN when no run finished.
    """
    values = [float(r["metrics"][metric]) for r in runs
              if r.get("status") == "ok" and r["metrics"].get(metric) is not None]
    arr = np.array(values, dtype=float)
    return {
        "mean": float(arr.mean()) if len(arr) else math.nan,
        "std": float(arr.std(ddof=1)) if len(arr) > 1 else 0.0,
        "n": len(arr),
        "n_diverged": sum(r.get("status") == "diverged" for r in runs),
        "n_error": sum(r.get("status") == "error" for r in runs),
        "values": values,
    }
