"""Per-epoch steps that issue 23 moved onto the threads, against the serial code they replace, in one process.

Each row times the kernel lgekit runs now on 1 and on ``--threads`` threads and the serial NumPy (or
one-stream) computation it replaced, interleaved round by round; medians over ``--repeats`` rounds and
the median per-round ratio baseline / kernel (> 1: the kernel is faster).  No data set is needed:

* **DCD colour-class order**: the vertices of an epoch's permutation grouped by colour class, the
  classes in a random order (``_schedules.grouped_order``, a counting sort on the threads) against
  ``perm[np.argsort(rank[colors][perm], kind="stable")]`` on 16-bit keys (NumPy's radix sort) plus
  the class offsets, what ``DCDSolver.epoch_order`` computed before; ``--nodes`` vertices (default
  500,000, the paper's YouTube size) in ``--colors`` classes;
* **weighted positives**: an epoch's draw of ``--edges`` edges from the alias table and the gather of
  their endpoints (``_sampling.sample_alias`` with ``rows``/``out_rows``) against one stream of draws
  followed by ``np.take``, what ``SGDSolver`` ran before.

The results are checked equal before timing (the order bit for bit; the gathered rows against
``rows[draws]``).

Usage::

    python3 benchmarks/bench_epoch_steps.py [--threads 2] [--repeats 9] [--nodes 500000] [--edges 3300000]
"""
import argparse
import statistics
import time

import numpy as np

from lgekit import _sampling
from lgekit.models import _schedules


def _seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def colour_order_cases(n, k, threads):
    rng = np.random.default_rng(0)
    perm = rng.permutation(n).astype(np.int32)
    colors = rng.integers(0, k, n).astype(np.int32)
    rank = rng.permutation(k).astype(np.int32)

    def numpy_sort():
        r = rank[colors]
        order = perm[np.argsort(r[perm].astype(np.int16), kind="stable")]
        ptr = np.zeros(k + 1, np.int64)
        np.cumsum(np.bincount(r, minlength=k), out=ptr[1:])
        return order, ptr

    expected = numpy_sort()
    for t in (1, threads):
        got = _schedules.grouped_order(perm, colors, rank, t)
        assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
    return numpy_sort, {t: (lambda t=t: _schedules.grouped_order(perm, colors, rank, t)) for t in (1, threads)}


def alias_cases(m, threads):
    rng = np.random.default_rng(1)
    weights = rng.uniform(0.1, 10.0, m)
    prob, alias = np.empty(m), np.empty(m, np.int32)
    _sampling.alias_table(weights, prob, alias)
    rows = rng.integers(0, max(2, m // 7), (m, 2)).astype(np.int32)
    picks, out = np.empty(m, np.int32), np.empty((m, 2), np.int32)

    def serial():
        _sampling.sample_alias(picks, prob, alias, 1, 2, 1)
        np.take(rows, picks, axis=0, out=out)

    for t in (1, threads):
        _sampling.sample_alias(picks, prob, alias, 1, 2, t, rows, out)
        assert np.array_equal(out, rows[picks])
    return serial, {t: (lambda t=t: _sampling.sample_alias(picks, prob, alias, 1, 2, t, rows, out))
                    for t in (1, threads)}


def run(name, baseline, kernels, repeats):
    times = {"baseline": [], **{t: [] for t in kernels}}
    for _ in range(repeats):
        times["baseline"].append(_seconds(baseline))
        for t, fn in kernels.items():
            times[t].append(_seconds(fn))
    base = np.asarray(times["baseline"])
    cells = [f"{statistics.median(times['baseline']) * 1e3:9.2f}"]
    for t in kernels:
        ratio = statistics.median(base / np.asarray(times[t]))
        cells.append(f"{statistics.median(times[t]) * 1e3:9.2f} ({ratio:4.2f}x)")
    print(f"{name:<44}" + "".join(f"{c:>18}" for c in cells), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="the parallel column's threads (default 2)")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--nodes", type=int, default=500_000)
    parser.add_argument("--colors", type=int, default=80)
    parser.add_argument("--edges", type=int, default=3_300_000)
    args = parser.parse_args(argv)
    if args.threads < 1 or args.repeats < 1 or args.nodes < 1 or args.colors < 1 or args.edges < 1:
        parser.error("--threads, --repeats, --nodes, --colors and --edges must be at least 1")
    print(f"# medians of {args.repeats} interleaved rounds, ms (baseline / kernel, median per-round ratio)")
    print(f"{'step':<44}{'serial before':>18}{'now, 1 thread':>18}{f'now, {args.threads} threads':>18}")
    run(f"DCD colour order ({args.nodes:,} vertices, {args.colors} classes)",
        *colour_order_cases(args.nodes, args.colors, args.threads), args.repeats)
    run(f"weighted positives ({args.edges:,} draws + gather)", *alias_cases(args.edges, args.threads), args.repeats)


if __name__ == "__main__":
    main()
