"""What an epoch's record costs, per model and diagnostics mode, against the epoch and against whole fits
(issue 36 goals 1-2, issue 46 items 2-3).

For each model (``LogisticEmbedding``'s SGD, ``HingeEmbedding``'s DCD) at its defaults on one graph
(BlogCatalog when ``LGEKIT_DATA`` or ``../shared/data`` holds it, else the synthetic stand-in of its
shape), D = ``--dim``, ``--threads`` threads:

* ``epoch``: the solver's ``run_epoch`` (the kernel and what the solver does around it), with the
  default ``diagnostics="sampled"`` (DCD certifies the record's vertex sample at their visits);
* ``record off`` / ``record sampled`` / ``record exact``: the solver's ``epoch_record`` in each mode,
  right after an epoch (what ``fit`` adds to every epoch);
* ``DCD monotone=False``: DCD without its safeguard (Algorithm 1 as printed), the oracle of the
  DCD / SGD epoch ratio: its P(x_u) and P(w) are two of the passes a visit makes over its partners;
* with ``--fits E [E ...]``: whole ``fit`` calls of E epochs (from the graph's training split, the
  solver built anew each time: preparation included) with the default sampled record and with
  ``diagnostics=False``; the record's share of the fit is the median of the per-round ratios - 1.

Everything runs in one process, round by round: each round runs one epoch of each model and every
record mode after it (the modes' order alternating), then the fits (the two modes' order alternating),
so drift of the machine hits all rows alike.  On one thread the times are CPU times
(``time.process_time``: on a shared host they do not count the time other processes take); on more,
wall times.  Medians over ``--rounds`` rounds (the first ``--warmup`` dropped).

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_diagnostics.py [--rounds 12] [--threads 1]
        [--fits 5 50] [--fit-rounds 5]
"""
import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import lgekit
from lgekit.models._solver import EpochStatus

MODES = ("off", "sampled", "exact")


def _data_dir():
    env = os.environ.get("LGEKIT_DATA")
    here = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
    return env or (str(here) if here.is_dir() else None)


def _graph():
    if _data_dir():
        os.environ.setdefault("LGEKIT_DATA", _data_dir())
    graph, note = lgekit.datasets.load_or_synthetic("blogcatalog")
    return graph, note


def _clock(threads):
    """CPU time on one thread (immune to other processes on a shared host), wall time on more."""
    return time.process_time if threads == 1 else time.perf_counter


def _prepared(cls, split, dim, threads, **params):
    """A model fitted for one epoch (the solver prepared, the first epoch's allocations done)."""
    model = cls(dim=dim, n_threads=threads, random_state=0, epochs=1, **params).fit(split)
    return model.solver_


def _machine(threads):
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}; "
            f"{threads} thread(s), {'CPU' if threads == 1 else 'wall'} time")


def epoch_and_records(split, dim, threads, rounds, warmup):
    """{(model, row): [seconds per round]} for the epoch and each record mode."""
    clock = _clock(threads)
    solvers = {"SGD": _prepared(lgekit.LogisticEmbedding, split, dim, threads),
               "DCD": _prepared(lgekit.HingeEmbedding, split, dim, threads),
               "DCD monotone=False": _prepared(lgekit.HingeEmbedding, split, dim, threads, monotone=False)}
    times = {(m, row): [] for m in solvers for row in ("epoch",) + MODES}
    epoch = 1
    for r in range(rounds):
        for name, solver in solvers.items():
            solver.record_diagnostics = "sampled"                 # the default: what the epoch certifies
            t0 = clock()
            status = solver.run_epoch(epoch)
            t1 = clock()
            assert status is EpochStatus.OK
            if r >= warmup:
                times[name, "epoch"].append(t1 - t0)
            for mode in (MODES if r % 2 == 0 else MODES[::-1]):
                solver.record_diagnostics = False if mode == "off" else mode
                t0 = clock()
                solver.epoch_record(epoch, status)
                if r >= warmup:
                    times[name, mode].append(clock() - t0)
        epoch += 1
    return times


def whole_fits(split, dim, threads, epochs, rounds):
    """{(model, E, mode): [seconds per round]} of whole fits, diagnostics sampled and off."""
    clock = _clock(threads)
    times = {}
    for r in range(rounds):
        for cls in (lgekit.LogisticEmbedding, lgekit.HingeEmbedding):
            for e in epochs:
                for mode in (("sampled", False) if r % 2 == 0 else (False, "sampled")):
                    t0 = clock()
                    cls(dim=dim, n_threads=threads, random_state=0, epochs=e, diagnostics=mode).fit(split)
                    times.setdefault((cls.__name__, e, mode), []).append(clock() - t0)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fits", type=int, nargs="*", default=[5, 50], help="epochs of the timed whole fits")
    parser.add_argument("--fit-rounds", type=int, default=5)
    args = parser.parse_args(argv)
    graph, note = _graph()
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    print(f"graph: {graph}" + (f" ({note})" if note else "") + "; its 80/20 split")
    print(f"machine: {_machine(args.threads)}; dim {args.dim}; {args.rounds} rounds ({args.warmup} dropped)")
    times = epoch_and_records(split, args.dim, args.threads, args.rounds, args.warmup)
    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print("| model | epoch (ms) | record off (ms) | record sampled (ms) | record exact (ms) "
          "| sampled / epoch | exact / epoch |")
    print("|---|---|---|---|---|---|---|")
    for name in ("SGD", "DCD", "DCD monotone=False"):
        e = med[name, "epoch"]
        print(f"| {name} | {1e3 * e:.1f} | {1e3 * med[name, 'off']:.1f} | {1e3 * med[name, 'sampled']:.1f} | "
              f"{1e3 * med[name, 'exact']:.1f} | {med[name, 'sampled'] / e:.1%} | {med[name, 'exact'] / e:.1%} |")
    ratio = [d / s for d, s in zip(times["DCD", "epoch"], times["SGD", "epoch"])]
    oracle = [d / s for d, s in zip(times["DCD monotone=False", "epoch"], times["SGD", "epoch"])]
    print()
    print(f"DCD epoch / SGD epoch: {statistics.median(ratio):.2f}x (median per-round ratio; "
          f"without the safeguard {statistics.median(oracle):.2f}x)")
    if args.fits:
        fits = whole_fits(split, args.dim, args.threads, args.fits, args.fit_rounds)
        print()
        print(f"Whole fits ({args.fit_rounds} alternating rounds; the record's share: median of the per-round "
              "ratios sampled / off, minus 1):")
        print()
        print("| model | epochs | fit, diagnostics=False (s) | fit, sampled (s) | record's share of the fit |")
        print("|---|---|---|---|---|")
        for cls in ("LogisticEmbedding", "HingeEmbedding"):
            for e in args.fits:
                on, off = fits[cls, e, "sampled"], fits[cls, e, False]
                share = statistics.median([a / b for a, b in zip(on, off)]) - 1
                print(f"| {cls} | {e} | {statistics.median(off):.3f} | {statistics.median(on):.3f} | {share:+.1%} |")


if __name__ == "__main__":
    main()
