"""Speed of the data layer: loading the real data sets and generating graphs at the paper's scale.

Rows (each the median of ``--repeats`` runs, with min and max):

* ``load <name>``: ``lgekit.datasets.load(name)`` for each real data set that
  is available locally (parse the files and build the Graph);
* ``synthetic-blogcatalog``: the embedded default (10,312 nodes, ~334k edges);
* ``youtube_like_degrees``: the expected-degree sequence of the YouTube
  stand-in (computed once, then cached by lgekit; the first call is timed);
* ``chung_lu_graph 500k``: Chung-Lu on those degrees (500,000 nodes,
  ~3.3M edges), Graph included;
* ``gnm_random_graph 500k``: G(n, m) with n = 500,000, m = 3,319,221.

Targets (issue 2, section 7): BlogCatalog well under 1 s; Chung-Lu 500k/3.3M
under 20 s.  The machine is shared, so rows run interleaved, one run of each
per round, and the medians are what to quote.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_data.py [--repeats 5] [--skip-large]
"""
import argparse
import statistics
import sys
import time

import lgekit
from lgekit import datasets

REAL = ("blogcatalog", "ppi", "facebook", "email-eu-core")
YOUTUBE_NODES, YOUTUBE_EDGES = 500_000, 3_319_221


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per row (default: 5; the median is reported)")
    parser.add_argument("--skip-large", action="store_true", help="skip the 500k-node generators")
    parser.add_argument("--data-home", default=None, help="folder of the real data sets (default: lgekit's search path)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")

    rows = {}
    notes = {}
    for name in REAL:
        if datasets.locate(name, args.data_home) is None:
            print(f"# {name}: not available locally, skipped (set LGEKIT_DATA)", file=sys.stderr)
            continue
        rows[f"load {name}"] = lambda name=name: datasets.load(name, data_home=args.data_home, download=False)
    rows["synthetic-blogcatalog"] = lambda: datasets.load("synthetic-blogcatalog")

    if not args.skip_large:
        seconds, degrees = timed(lambda: datasets.youtube_like_degrees(YOUTUBE_NODES, YOUTUBE_EDGES))
        notes["youtube_like_degrees (once)"] = seconds
        counter = iter(range(10**9))
        rows["chung_lu_graph 500k"] = lambda: datasets.chung_lu_graph(degrees, seed=next(counter))
        rows["gnm_random_graph 500k"] = lambda: datasets.gnm_random_graph(YOUTUBE_NODES, YOUTUBE_EDGES,
                                                                          seed=next(counter))

    times = {key: [] for key in rows}
    shapes = {}
    for _ in range(args.repeats):  # interleaved: one run of every row per round
        for key, fn in rows.items():
            seconds, graph = timed(fn)
            times[key].append(seconds)
            shapes[key] = f"{graph.n_nodes:,} nodes, {graph.n_edges:,} edges"

    print(f"lgekit {lgekit.__version__} data-layer benchmark, median of {args.repeats} run(s)")
    width = max(len(k) for k in list(rows) + list(notes))
    print(f"{'row':<{width}}  {'median s':>9}  {'min s':>7}  {'max s':>7}  graph")
    print("-" * (width + 60))
    for key, values in times.items():
        print(f"{key:<{width}}  {statistics.median(values):9.3f}  {min(values):7.3f}  {max(values):7.3f}  {shapes[key]}")
    for key, seconds in notes.items():
        print(f"{key:<{width}}  {seconds:9.3f}  {'':>7}  {'':>7}  (single run; cached afterwards)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
