"""Speed of lgekit.theory: Monte Carlo spectral norms and the Claim 1 construction.

Rows (each the median of ``--repeats`` runs, with min and max):

* ``ER n=1e6 d=10: generation + 5 draws``: ``PairPattern.erdos_renyi`` (about
  1e7 pairs, CSR of A and A^T) plus ``expected_spectral_norm(..., n_draws=5)``;
  target <= 30 s;
* ``ER n=1e5 d=50: 5 draws``: the draws only (5e6 pairs); target <= 20 s;
* ``shattering n=5000 d=20``: ``shattering_embedding`` on a random 20-regular
  graph (graph generation excluded); target <= 2 s;
* ``baseline: numpy 2e7 float32 sum``: a fixed amount of memory-bound work
  timed in the same rounds, so a reader can see how busy the machine was
  (on an idle core it takes ~10 ms).

The machine is shared: rows run interleaved, one run of each per round, and
the medians are what to quote.

Usage::

    python3 benchmarks/bench_theory.py [--repeats 3] [--n-threads 1]
"""
import argparse
import statistics
import sys
import time

import numpy as np

from lgekit.theory import PairPattern, expected_spectral_norm, random_labelled_regular_graph, shattering_embedding

TARGETS = {
    "ER n=1e6 d=10: generation + 5 draws": 30.0,
    "ER n=1e5 d=50: 5 draws": 20.0,
    "shattering n=5000 d=20": 2.0,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-threads", type=int, default=1, help="threads of the product kernel (default 1)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")

    big = np.ones(20_000_000, dtype=np.float32)
    pattern50 = PairPattern.erdos_renyi(100_000, 50, seed=1)
    graph, labels = random_labelled_regular_graph(5000, 20, seed=2)

    def er_1e6():
        t0 = time.perf_counter()
        pattern = PairPattern.erdos_renyi(1_000_000, 10, seed=0)
        est = expected_spectral_norm(pattern, n_draws=5, seed=0, n_threads=args.n_threads)
        return time.perf_counter() - t0, f"E||A|| = {est.mean:.4f} +- {est.std_error:.4f}, {est.n_matvec} products"

    def er_1e5():
        t0 = time.perf_counter()
        est = expected_spectral_norm(pattern50, n_draws=5, seed=0, n_threads=args.n_threads)
        return time.perf_counter() - t0, f"E||A|| = {est.mean:.4f} +- {est.std_error:.4f}, {est.n_matvec} products"

    def shatter():
        t0 = time.perf_counter()
        X = shattering_embedding(graph, labels, seed=0)
        return time.perf_counter() - t0, f"mean ||x||^2 = {np.einsum('ij,ij->i', X, X).mean():.2f}"

    def baseline():
        t0 = time.perf_counter()
        float(big.sum())
        return time.perf_counter() - t0, ""

    rows = {"ER n=1e6 d=10: generation + 5 draws": er_1e6, "ER n=1e5 d=50: 5 draws": er_1e5,
            "shattering n=5000 d=20": shatter, "baseline: numpy 2e7 float32 sum": baseline}
    times = {k: [] for k in rows}
    notes = {}
    for r in range(args.repeats):
        for name, fn in rows.items():
            secs, note = fn()
            times[name].append(secs)
            notes[name] = note
            print(f"round {r + 1}: {name}: {secs:.3f} s {note}", file=sys.stderr, flush=True)
    print(f"{'benchmark':<40} {'median s':>9} {'min':>8} {'max':>8} {'target':>7}  note")
    ok = True
    for name, ts in times.items():
        med = statistics.median(ts)
        target = TARGETS.get(name)
        flag = ""
        if target is not None:
            flag = "ok" if med <= target else "SLOW"
            ok &= med <= target
        print(f"{name:<40} {med:9.3f} {min(ts):8.3f} {max(ts):8.3f} {target if target else '':>7} {flag:>4}  "
              f"{notes[name]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
