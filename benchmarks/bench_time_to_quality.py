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
* the whole fit's time (the ``fit`` call, the callback's own time taken out).

Early stopping (issue 44, ``early_stopping_configs``): each model with ``early_stopping=True`` (10 % of
the training graph's edges held out as its validation split; it stops after 5 epochs without a gain of
``validation_tol`` in validation AP and keeps its best epoch's tables), and the ``*CV`` estimators at
their defaults (every lambda_r of the grid early-stopped on one validation split, the best refitted on
the whole training graph).  Their times are counted the same way, from the ``fit`` call (the CV's
search included, its curve the refit's epochs); besides, per row: the epochs run and the epoch kept
(the CV: its chosen lambda_r and refit epochs), and the test AP of the model ``fit`` returns ("AP
kept") -- the test AP is read after the fit, never by it.  The validation split decides every stop.
``--early-stopping-cost`` times what early stopping adds to a short fit instead (``early_stopping_cost``).

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_time_to_quality.py [--graphs blogcatalog ppi facebook]
        [--rounds 3] [--threads 2] [--levels 0.84 0.86] [--no-early-stopping]
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_time_to_quality.py --early-stopping-cost [--rounds 5]
"""
import argparse
import dataclasses
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
    """{name: (estimator class, parameters)}: each model with early stopping on a validation split held out of
    its training graph (issue 44), and each ``*CV`` estimator at its defaults (lambda_r chosen on such a
    split, then refitted on the whole training graph).  The rows are timed like the defaults'; their curve
    ends where the fit stopped (the CV's: its refit's), and the validation split, never the test AP,
    decides every stop."""
    return {"SGD, early stopping": (lgekit.LogisticEmbedding, {"early_stopping": True}),
            "DCD, early stopping": (lgekit.HingeEmbedding, {"early_stopping": True}),
            "SGD CV": (lgekit.LogisticEmbeddingCV, {}),
            "DCD CV": (lgekit.HingeEmbeddingCV, {})}


@dataclasses.dataclass
class Run:
    """One timed ``fit``: ``curve`` [(seconds since the call, test AP)] after each epoch, ``seconds`` the whole
    call, ``kept`` the test AP of the fitted model, ``epochs`` what it ran (and kept)."""

    curve: list
    seconds: float
    kept: float
    epochs: str


def epochs_run(model):
    """The epochs ``model``'s fit ran, in words: "50"; "14, epoch 8 kept" after early stopping (its best epoch,
    0-based as the tables' "(epoch)" columns); "lambda_r 0.6, 35" for a ``*CV`` estimator (the chosen
    lambda_r, the refit's epochs)."""
    if hasattr(model, "lam_r_"):
        return f"lambda_r {model.lam_r_:g}, {model.epochs_}"
    kept = getattr(model, "best_iteration_", None)
    return f"{model.n_iter_}" + ("" if kept is None else f", epoch {kept} kept")


def timed_fit(cls, params, split, threads):
    """One fit of ``cls(random_state=0, n_threads=threads, **params)`` on ``split``, timed (:class:`Run`)."""
    clock = _clock(threads)
    timer = TestAPTimer(split, clock, threads)
    model = cls(random_state=0, n_threads=threads, **params)
    timer.start = clock()
    model.fit(split, callbacks=[timer])
    seconds = clock() - timer.start - timer.excluded
    # the fitted model's test AP, read after the fit (an early-stopped fit holds its best epoch's tables, not
    # the last epoch's of the curve)
    kept = average_precision(model.embedding_, split.test_positives, split.test_negatives, n_threads=threads)
    return Run(timer.curve, seconds, kept, epochs_run(model))


def family(name):
    """The model a row's name is of: "SGD" for "SGD", "SGD, early stopping" and "SGD CV"."""
    return name.replace(",", " ").split()[0]


def time_to(curve, level):
    """Seconds until the curve's AP first reaches ``level`` (NaN: never)."""
    return next((t for t, ap in curve if ap >= level), math.nan)


def epoch_to(curve, level):
    """The first epoch (0-based) whose AP reaches ``level`` ("-": never)."""
    return next((str(i) for i, (_, ap) in enumerate(curve) if ap >= level), "-")


def measure(graph_name, configs, threads_list, rounds):
    """{(name, threads): [Run per round]} for one graph."""
    split = lgekit.split_edges(lgekit.datasets.load(graph_name, download=False), test_fraction=0.2, seed=0)
    runs = {}
    names = list(configs)
    for r in range(rounds):
        for threads in threads_list:
            for name in (names if r % 2 == 0 else names[::-1]):
                cls, params = configs[name]
                runs.setdefault((name, threads), []).append(timed_fit(cls, params, split, threads))
    return runs


def _fmt(seconds):
    return "-" if math.isnan(seconds) else f"{seconds:.2f}"


def report(graph_name, runs, threads_list, within, levels):
    """Print the graph's table; return {threads: DCD / SGD time to the common quality}."""
    # SGD's rows, then DCD's, each family's default first
    names = sorted({name for name, _ in runs}, key=lambda n: (family(n) != "SGD", n != family(n), n))
    best = {key: max(ap for _, ap in rs[0].curve) for key, rs in runs.items()}
    ratios = {}
    print(f"\n### {graph_name}\n")
    for threads in threads_list:
        common = min(best[name, threads] for name in names if name in ("SGD", "DCD")) - within
        lv = levels or [round(x, 2) for x in np.arange(math.ceil(100 * (common - 0.05)) / 100, common, 0.01)]
        lv = sorted(set(lv) | {round(common, 4)})
        print(f"{threads} thread(s); common quality {common:.4f} (the lower best AP of SGD and DCD at their defaults "
              f"- {within:g})\n")
        print("| model | best test AP (epoch) | last AP | epochs run | AP kept | own: within "
              f"{within:g} of best, s (epoch) | common, s (epoch) | " + " | ".join(f"AP >= {x:.4g} (s)" for x in lv)
              + " | whole fit (s) |")
        print("|---|---|---|---|---|---|---|" + "---|" * len(lv) + "---|")
        med = {}
        for name in names:
            rs = runs[name, threads]
            curves = [r.curve for r in rs]
            aps = [ap for _, ap in curves[0]]
            b = max(aps)
            own = statistics.median(time_to(c, b - within) for c in curves)
            med[name] = statistics.median(time_to(c, common) for c in curves)
            cells = [statistics.median(time_to(c, x) for c in curves) for x in lv]
            total = statistics.median(r.seconds for r in rs)
            print(f"| {name} | {b:.4f} ({aps.index(b)}) | {aps[-1]:.4f} | {rs[0].epochs} | "
                  f"{statistics.median(r.kept for r in rs):.4f} | {_fmt(own)} ({epoch_to(curves[0], b - within)}) | "
                  f"{_fmt(med[name])} ({epoch_to(curves[0], common)}) | "
                  + " | ".join(_fmt(x) for x in cells) + f" | {total:.2f} |")
        ratios[threads] = med.get("DCD", math.nan) / med.get("SGD", math.nan)
        print(f"\nDCD / SGD time to the common quality: {ratios[threads]:.2f}x (goal <= 1.2x)\n")
    return ratios


def against_defaults(graph_name, runs, threads):
    """Rows of the summary: per model family (SGD, DCD) and variant, the AP kept and the whole fit's median
    seconds, and both against the family's default fit."""
    out = []
    for model in ("SGD", "DCD"):
        if (model, threads) not in runs:
            continue
        base = runs[model, threads]
        base_kept = statistics.median(r.kept for r in base)
        base_seconds = statistics.median(r.seconds for r in base)
        for name, t in runs:
            if t != threads or family(name) != model:
                continue
            rs = runs[name, t]
            kept, seconds = statistics.median(r.kept for r in rs), statistics.median(r.seconds for r in rs)
            out.append(f"| {graph_name} | {name} | {rs[0].epochs} | {kept:.4f} ({kept - base_kept:+.4f}) | "
                       f"{seconds:.2f} ({seconds / base_seconds:.2f}x) |")
    return out


def early_stopping_cost(graph_name, rounds, epochs=3):
    """What early stopping adds to a fit, one thread, CPU seconds, medians over ``rounds`` alternating rounds:
    ``validation_split`` alone (carving 10 % of the training edges and their negatives out, leak-checked), and
    a fit of ``epochs`` epochs of each model with ``early_stopping=True`` (``n_iter_no_change`` above
    ``epochs``, so that it runs them all) against the same fit without.  Returns {row: seconds}."""
    split = lgekit.split_edges(lgekit.datasets.load(graph_name, download=False), test_fraction=0.2, seed=0)
    fits = {f"{name}, {epochs} epochs{', early stopping' if es else ''}": (cls, es)
            for name, (cls, _) in default_configs().items() for es in (False, True)}
    times = {"validation_split": [], **{row: [] for row in fits}}
    for r in range(rounds):
        order = list(fits) if r % 2 == 0 else list(fits)[::-1]
        started = time.process_time()
        lgekit.evaluation.validation_split(split, 0.1, seed=r)
        times["validation_split"].append(time.process_time() - started)
        for row in order:
            cls, es = fits[row]
            model = cls(random_state=0, n_threads=1, epochs=epochs, diagnostics=False, early_stopping=es,
                        n_iter_no_change=epochs + 1)
            started = time.process_time()
            model.fit(split)
            times[row].append(time.process_time() - started)
    return {row: statistics.median(t) for row, t in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["blogcatalog", "ppi", "facebook"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="the many-thread runs' count")
    parser.add_argument("--within", type=float, default=0.005)
    parser.add_argument("--levels", type=float, nargs="*", default=None)
    parser.add_argument("--no-early-stopping", action="store_true",
                        help="the defaults only (no early-stopped fit, no CV estimator)")
    parser.add_argument("--early-stopping-cost", action="store_true",
                        help="instead: what early stopping adds to a short fit (validation_split, and 3-epoch fits "
                             "with and without early stopping), one thread, per graph")
    args = parser.parse_args(argv)
    if _data_dir():
        os.environ.setdefault("LGEKIT_DATA", _data_dir())
    if args.early_stopping_cost:
        print(f"one thread, CPU s, medians over {args.rounds} alternating rounds; load average "
              f"{os.getloadavg()[0]:.1f}\n\n| graph | what | CPU s |\n|---|---|---|")
        for graph_name in args.graphs:
            for row, seconds in early_stopping_cost(graph_name, args.rounds).items():
                print(f"| {graph_name} | {row} | {seconds:.3f} |", flush=True)
        return
    threads_list = [1] if args.threads <= 1 else [1, args.threads]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"lgekit {lgekit.__version__}; {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {load:.1f}; {args.rounds} rounds; one thread: CPU time, more: wall time")
    configs = {**default_configs(), **({} if args.no_early_stopping else early_stopping_configs())}
    summary, versus = {}, []
    for graph_name in args.graphs:
        runs = measure(graph_name, configs, threads_list, args.rounds)
        summary[graph_name] = report(graph_name, runs, threads_list, args.within, args.levels)
        versus += against_defaults(graph_name, runs, 1)
    print("| graph | " + " | ".join(f"DCD / SGD, {t} thread(s)" for t in threads_list) + " |")
    print("|---|" + "---|" * len(threads_list))
    for graph_name, ratios in summary.items():
        print(f"| {graph_name} | " + " | ".join(f"{ratios[t]:.2f}x" for t in threads_list) + " |")
    print("\nOne thread, against each model's default fit: the test AP of the model fit returns and the whole fit's "
          "CPU seconds (medians over the rounds)\n")
    print("| graph | model | epochs run | AP kept (vs default) | whole fit, s (x default) |\n|---|---|---|---|---|")
    print("\n".join(versus))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nload average at the end: {load:.1f}")


if __name__ == "__main__":
    main()
