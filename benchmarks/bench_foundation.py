"""Timings of the foundation on BlogCatalog (issue 2, section 7).

* load BlogCatalog + build the Graph + split it for link prediction
  (target: under 2 s in total);
* node-classification Micro/Macro-F1 on BlogCatalog with a D = 100 embedding
  (the spectral baseline) at one train ratio (target: under 30 s on 2 cores).

Each step is run ``--repeats`` times (default 5) and the median is reported
with the minimum and maximum, because the machine may be shared.  The
embedding is computed once, outside the timed F1 step.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_foundation.py [--repeats 5] [--dataset blogcatalog]
"""
import argparse
import statistics
import sys
import time

import lgekit
from lgekit import datasets, split_edges
from lgekit.metrics import node_classification_f1
from lgekit.models.spectral import spectral_embedding

TARGETS = {"load + build + split": 2.0, "node-classification F1 (D=100)": 30.0}


def timed(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per step (default 5; the median is reported)")
    parser.add_argument("--dataset", default="blogcatalog", help="data set name or path (default blogcatalog)")
    parser.add_argument("--dim", type=int, default=100, help="embedding dimension for the F1 step (default 100)")
    parser.add_argument("--train-ratio", type=float, default=0.5, help="train ratio of the F1 step (default 0.5)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")

    rows = []

    def load():
        return datasets.load(args.dataset, download=False)

    t_load, graph = timed(load, args.repeats)
    t_split, split = timed(lambda: split_edges(graph, seed=0), args.repeats)

    def load_and_split():
        return split_edges(load(), seed=0)

    t_total, _ = timed(load_and_split, args.repeats)
    rows.append(("load + build Graph", t_load, None))
    rows.append(("split_edges (leak-checked)", t_split, None))
    rows.append(("load + build + split", t_total, TARGETS["load + build + split"]))

    t0 = time.perf_counter()
    x = spectral_embedding(graph, args.dim, seed=0)
    t_embed = time.perf_counter() - t0
    t_f1, f1 = timed(lambda: node_classification_f1(x, graph, train_ratio=args.train_ratio, seed=0), args.repeats)
    rows.append((f"spectral embedding D={args.dim} (once)", [t_embed], None))
    rows.append((f"node-classification F1 (D={args.dim})", t_f1, TARGETS["node-classification F1 (D=100)"]))

    print(f"lgekit {lgekit.__version__} foundation benchmark: {graph!r}, {args.repeats} runs per step")
    print(f"{'step':<36} {'median s':>9} {'min s':>8} {'max s':>8} {'target s':>9}  ok")
    failed = False
    for name, times, target in rows:
        med = statistics.median(times)
        ok = "" if target is None else ("yes" if med < target else "NO")
        failed |= ok == "NO"
        print(f"{name:<36} {med:9.3f} {min(times):8.3f} {max(times):8.3f} "
              f"{'' if target is None else f'{target:9.1f}':>9}  {ok}")
    print(f"\nsplit: {split.summary()['n_train_positives']:,} train / {split.summary()['n_test_positives']:,} test "
          f"edges; F1 at train ratio {args.train_ratio}: micro {f1['micro_f1']:.4f}, macro {f1['macro_f1']:.4f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
