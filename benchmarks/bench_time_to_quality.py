"""Time to a good embedding: how long each model takes to reach its quality, not what an epoch costs
(issue 46, item 1).

For each graph (BlogCatalog, PPI, Facebook by default) on its 80/20 link-prediction split
(``split_edges(seed=0)``, 4 negatives per positive) and each model at its defaults
(``LogisticEmbedding``'s SGD, 50 epochs; ``HingeEmbedding``'s DCD, 20 epochs), one ``fit`` per round,
timed from the call (preparation included: the pairs, DCD's pair CSR and colouring) to the end of each
epoch, with the test AP after every epoch measured by a callback whose own time is taken out.  The
test AP is read only to *measure* when each quality was reached; nothing here chooses or stops a model
on it.

Reported per graph, model and thread count (1, and ``--threads``, default all cores), medians over
``--rounds`` rounds (the models alternate within a round, their order alternating between rounds;
one-thread times are CPU times, which other processes on a shared host do not inflate, many-thread
times wall times):

* ``best AP`` (the epoch it came at) and the AP of the last (default) epoch;
* ``own``: the time to reach within ``--within`` (0.005) of the model's own best test AP;
* ``common``: the time to reach the quality both models reach, the lower of their best APs minus
  ``--within`` -- the issue's goal is DCD's time to it at most 1.2x SGD's on every graph;
* the time to fixed AP levels (``--levels``; by default every 0.01 from 0.05 below the common quality
  up to it), "-" where a model never reaches one;
* the whole default fit's time.

Early stopping (issue 44) is not timed yet: see ``early_stopping_configs``.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_time_to_quality.py [--graphs blogcatalog ppi facebook]
        [--rounds 3] [--threads 2] [--levels 0.84 0.86]
"""
import argparse
import math
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import lgekit
from lgekit.callbacks import Callback
from lgekit.metrics import average_precision


def _data_dir():
    env = os.environ.get("LGEKIT_DATA")
    here = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
    return env or (str(here) if here.is_dir() else None)


def _clock(threads):
    """CPU time on one thread (immune to other processes on a shared host), wall time on more."""
    return time.process_time if threads == 1 else time.perf_counter


class TestAPTimer(Callback):
    """After every epoch: the time since ``start`` minus this callback's own time, and the test AP."""

    def __init__(self, split, clock, threads):
        self.split, self.clock, self.threads = split, clock, threads
        self.start, self.excluded, self.curve = None, 0.0, []

    def on_epoch_end(self, model, epoch, record):
        t = self.clock()
        ap = average_precision(model.embedding_, self.split.test_positives, self.split.test_negatives,
                               n_threads=self.threads)
        self.curve.append((t - self.start - self.excluded, ap))
        self.excluded += self.clock() - t
        return False


def default_configs():
    """{name: estimator class and parameters}: each model at its defaults."""
    return {"SGD": (lgekit.LogisticEmbedding, {}), "DCD": (lgekit.HingeEmbedding, {})}


def early_stopping_configs():
    """{name: (estimator class, parameters)} of the models with early stopping on a validation split held
    out of the training graph (issue 44): none until that lands.

    TODO(issue 44): return e.g. ``{"SGD, early stopping": (lgekit.LogisticEmbedding, {...}), "DCD, early
    stopping": (lgekit.HingeEmbedding, {...})}`` with the parameters that turn it on.  The rows are then
    timed like the others; their curve ends where the fit stopped, and their "own" and "common" columns
    say what quality the stopped fit reached and when (the validation split, not the test AP, decides
    the stop).
    """
    return {}


def timed_fit(cls, params, split, threads):
    """[(seconds since the fit call, test AP)] after each epoch of one fit."""
    clock = _clock(threads)
    timer = TestAPTimer(split, clock, threads)
    model = cls(random_state=0, n_threads=threads, **params)
    timer.start = clock()
    model.fit(split, callbacks=[timer])
    return timer.curve


def time_to(curve, level):
    """Seconds until the curve's AP first reaches ``level`` (NaN: never)."""
    return next((t for t, ap in curve if ap >= level), math.nan)


def epoch_to(curve, level):
    """The first epoch (0-based) whose AP reaches ``level`` ("-": never)."""
    return next((str(i) for i, (_, ap) in enumerate(curve) if ap >= level), "-")


def measure(graph_name, configs, threads_list, rounds):
    """{(name, threads): [curve per round]} for one graph."""
    split = lgekit.split_edges(lgekit.datasets.load(graph_name, download=False), test_fraction=0.2, seed=0)
    curves = {}
    names = list(configs)
    for r in range(rounds):
        for threads in threads_list:
            for name in (names if r % 2 == 0 else names[::-1]):
                cls, params = configs[name]
                curves.setdefault((name, threads), []).append(timed_fit(cls, params, split, threads))
    return curves


def _fmt(seconds):
    return "-" if math.isnan(seconds) else f"{seconds:.2f}"


def report(graph_name, curves, threads_list, within, levels):
    """Print the graph's table; return {threads: DCD / SGD time to the common quality}."""
    names = sorted({name for name, _ in curves}, key=lambda n: (n != "SGD", n != "DCD", n))
    best = {key: max(ap for _, ap in runs[0]) for key, runs in curves.items()}
    ratios = {}
    print(f"\n### {graph_name}\n")
    for threads in threads_list:
        common = min(best[name, threads] for name in names if name in ("SGD", "DCD")) - within
        lv = levels or [round(x, 2) for x in np.arange(math.ceil(100 * (common - 0.05)) / 100, common, 0.01)]
        lv = sorted(set(lv) | {round(common, 4)})
        print(f"{threads} thread(s); common quality {common:.4f} (the lower best AP - {within:g})\n")
        print("| model | best AP (epoch) | last AP | own: within "
              f"{within:g} of best, s (epoch) | common, s (epoch) | " + " | ".join(f"AP >= {x:.4g} (s)" for x in lv)
              + " | whole fit (s) |")
        print("|---|---|---|---|---|" + "---|" * len(lv) + "---|")
        med = {}
        for name in names:
            runs = curves[name, threads]
            aps = [ap for _, ap in runs[0]]
            b = max(aps)
            own = statistics.median(time_to(c, b - within) for c in runs)
            med[name] = statistics.median(time_to(c, common) for c in runs)
            cells = [statistics.median(time_to(c, x) for c in runs) for x in lv]
            total = statistics.median(c[-1][0] for c in runs)
            print(f"| {name} | {b:.4f} ({aps.index(b)}) | {aps[-1]:.4f} | {_fmt(own)} ({epoch_to(runs[0], b - within)}) | "
                  f"{_fmt(med[name])} ({epoch_to(runs[0], common)}) | "
                  + " | ".join(_fmt(x) for x in cells) + f" | {total:.2f} |")
        ratios[threads] = med.get("DCD", math.nan) / med.get("SGD", math.nan)
        print(f"\nDCD / SGD time to the common quality: {ratios[threads]:.2f}x (goal <= 1.2x)\n")
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["blogcatalog", "ppi", "facebook"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="the many-thread runs' count")
    parser.add_argument("--within", type=float, default=0.005)
    parser.add_argument("--levels", type=float, nargs="*", default=None)
    args = parser.parse_args(argv)
    if _data_dir():
        os.environ.setdefault("LGEKIT_DATA", _data_dir())
    threads_list = [1] if args.threads <= 1 else [1, args.threads]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"lgekit {lgekit.__version__}; {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {load:.1f}; {args.rounds} rounds; one thread: CPU time, more: wall time")
    configs = {**default_configs(), **early_stopping_configs()}
    if not early_stopping_configs():
        print("early stopping: not timed (issue 44 has not landed; see early_stopping_configs)")
    summary = {}
    for graph_name in args.graphs:
        curves = measure(graph_name, configs, threads_list, args.rounds)
        summary[graph_name] = report(graph_name, curves, threads_list, args.within, args.levels)
    print("| graph | " + " | ".join(f"DCD / SGD, {t} thread(s)" for t in threads_list) + " |")
    print("|---|" + "---|" * len(threads_list))
    for graph_name, ratios in summary.items():
        print(f"| {graph_name} | " + " | ".join(f"{ratios[t]:.2f}x" for t in threads_list) + " |")


if __name__ == "__main__":
    main()
