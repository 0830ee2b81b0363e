"""What an epoch and its record cost, per model and diagnostics mode, in one process (issue 36 goals 1-2).

For each model (``LogisticEmbedding``'s SGD, ``HingeEmbedding``'s DCD) at its defaults on one graph
(BlogCatalog when ``LGEKIT_DATA`` or ``../shared/data`` holds it, else the synthetic stand-in of its
shape), D = ``--dim``, ``--threads`` threads:

* ``epoch``: the solver's ``run_epoch`` (the kernel and what the solver does around it);
* ``record sampled`` / ``record exact``: the solver's ``epoch_record`` in each mode, right after
  an epoch (what ``fit`` adds to every epoch: the default sampled diagnostics, or the full pass);
* ``record off``: ``diagnostics=False``'s record (the mean norm, and DCD's certificates and counts);
* ``DCD monotone=False``: DCD without its safeguard (Algorithm 1 as printed), whose two checks, P(x_u)
  and P(w), are two of the five passes a visit makes over its partners: what goal 1's ratio would be
  without them.

Both models train in the same process, round by round: each round runs one epoch of each model and
every record mode after it, so drift of the machine hits all rows alike.  Medians over ``--rounds``
rounds (the first ``--warmup`` dropped).  Ratios: each record over its model's epoch, and DCD's epoch
over SGD's epoch (goal 1's ratio).

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_diagnostics.py [--rounds 12] [--dim 100] [--threads 1]
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


def _prepared(cls, graph, dim, threads, **params):
    """A model fitted for one epoch (the solver prepared, the first epoch's allocations done)."""
    model = cls(dim=dim, n_threads=threads, random_state=0, epochs=1, **params).fit(graph)
    return model.solver_


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    graph, note = _graph()
    print(f"graph: {graph}" + (f" ({note})" if note else ""))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"dim {args.dim}, {args.threads} thread(s), {args.rounds} rounds ({args.warmup} dropped)")
    solvers = {"SGD": _prepared(lgekit.LogisticEmbedding, graph, args.dim, args.threads),
               "DCD": _prepared(lgekit.HingeEmbedding, graph, args.dim, args.threads),
               # the oracle of goal 1: DCD without the safeguard, whose P(x_u) and P(w) cost two of the
               # five vector passes a visit makes over its partners
               "DCD monotone=False": _prepared(lgekit.HingeEmbedding, graph, args.dim, args.threads,
                                               monotone=False)}
    times = {(m, row): [] for m in solvers for row in ("epoch",) + MODES}
    epoch = 1
    for r in range(args.rounds):
        for name, solver in solvers.items():
            t0 = time.perf_counter()
            status = solver.run_epoch(epoch)
            t1 = time.perf_counter()
            assert status is EpochStatus.OK
            if r >= args.warmup:
                times[name, "epoch"].append(t1 - t0)
            order = MODES if r % 2 == 0 else MODES[::-1]      # alternate which record runs first
            for mode in order:
                solver.record_diagnostics = False if mode == "off" else mode
                t0 = time.perf_counter()
                solver.epoch_record(epoch, status)
                if r >= args.warmup:
                    times[name, mode].append(time.perf_counter() - t0)
        epoch += 1
    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print("| model | epoch (s) | record off (s) | record sampled (s) | record exact (s) "
          "| sampled / epoch | exact / epoch |")
    print("|---|---|---|---|---|---|---|")
    for name in solvers:
        e = med[name, "epoch"]
        print(f"| {name} | {e:.4f} | {med[name, 'off']:.4f} | {med[name, 'sampled']:.4f} | "
              f"{med[name, 'exact']:.4f} | {med[name, 'sampled'] / e:.1%} | {med[name, 'exact'] / e:.1%} |")
    ratios = [d / s for d, s in zip(times["DCD", "epoch"], times["SGD", "epoch"])]
    oracle = [d / s for d, s in zip(times["DCD monotone=False", "epoch"], times["SGD", "epoch"])]
    print()
    print(f"DCD (monotone=False) epoch / SGD epoch: {statistics.median(oracle):.2f}x")
    print(f"DCD epoch / SGD epoch: {statistics.median(ratios):.2f}x (median per-round ratio); "
          f"with the default records: "
          f"{(med['DCD', 'epoch'] + med['DCD', 'sampled']) / (med['SGD', 'epoch'] + med['SGD', 'sampled']):.2f}x")


if __name__ == "__main__":
    main()
