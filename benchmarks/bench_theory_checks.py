"""CPU cost of ``lgekit theory CHECK --quick``: this checkout against a baseline checkout, in alternating rounds.

Each round runs every check once from the baseline tree and once from this one (``PYTHONPATH`` pointing at
each, one BLAS/OpenMP thread), in alternating order, and records the user + system CPU seconds of the child
process (``resource.getrusage(RUSAGE_CHILDREN)``): CPU time, not wall time, since the host is shared.  The
table gives the medians over the rounds, their ratio, and whether each run exited 0 (no claim FAILed).

Usage::

    git archive <base commit> | tar -x -C /tmp/base     # plus the built kernels: cp lgekit/*.so lgekit/**/*.so
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_theory_checks.py --baseline /tmp/base [--rounds 3]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHECKS = ("capacity", "shattering", "directed", "bound", "rademacher")
HERE = Path(__file__).resolve().parent.parent


def cpu_of_one_run(tree, check):
    """(CPU seconds, exit status) of ``python -m lgekit theory CHECK --quick`` run from ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        status = subprocess.run([sys.executable, "-m", "lgekit", "theory", check, "--quick", "--out", out],
                                cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, type=Path, help="a checkout of the baseline commit, kernels built")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--checks", nargs="*", default=list(CHECKS))
    args = parser.parse_args(argv)
    trees = {"baseline": args.baseline.resolve(), "this": HERE}
    cpu = {(name, check): [] for name in trees for check in args.checks}
    status = {}
    for k in range(args.rounds):
        order = list(trees) if k % 2 == 0 else list(trees)[::-1]
        for check in args.checks:
            for name in order:
                seconds, code = cpu_of_one_run(trees[name], check)
                cpu[name, check].append(seconds)
                status[name, check] = status.get((name, check), 0) or code
                print(f"round {k + 1}: {check:<10} {name:<8} {seconds:6.1f} s CPU, exit {code}", file=sys.stderr)
    print(f"| check | baseline CPU s (median of {args.rounds}) | this tree | ratio | exit (baseline, this) |")
    print("|---|---|---|---|---|")
    for check in args.checks:
        base, this = statistics.median(cpu["baseline", check]), statistics.median(cpu["this", check])
        print(f"| {check} | {base:.1f} | {this:.1f} | {this / base:.2f} | {status['baseline', check]}, "
              f"{status['this', check]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
