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

With ``--edge-lists`` (issue 27 item 11), reading edge lists against the
libraries users already have, on files written to a temporary folder:

* a SNAP-style file of 3.3M integer edges (tab-separated, ``#`` header):
  ``numpy.loadtxt``, then ``Graph.from_edges`` on its array, and
  ``datasets.load`` of the file;
* a CSV with a header of 1M edges between 300,000 string ids:
  ``pandas.read_csv`` plus ``pandas.factorize`` (sorted) of the ids, and
  ``datasets.load`` of the file (pandas is optional; its rows are skipped
  without it).

Targets: ``datasets.load`` of the integer file within 2x of ``numpy.loadtxt``
plus ``Graph.from_edges``; the string file within 1.5x of pandas;
``Graph.from_edges`` on 3.3M integer pairs at most 0.5 s.

Targets (issue 2, section 7): BlogCatalog well under 1 s; Chung-Lu 500k/3.3M
under 20 s.  The machine is shared, so rows run interleaved, one run of each
per round, and the medians are what to quote.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_data.py [--repeats 5] [--skip-large] [--edge-lists]
"""
import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

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
    parser.add_argument("--edge-lists", action="store_true",
                        help="only the edge-list reading rows (3.3M integer edges, 1M string edges)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")

    if args.edge_lists:
        return edge_list_rows(args.repeats)
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


def write_edge_lists(folder, seed=0):
    """The two files of the edge-list rows (fixed seed): SNAP-style integers and a CSV of string ids."""
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, 1_100_000, size=(3_300_000, 2))
    ints = folder / "ints.txt"
    with open(ints, "w") as f:
        f.write("# Undirected graph: synthetic, SNAP's header\n# Nodes: 1100000 Edges: 3300000\n"
                "# FromNodeId\tToNodeId\n")
        np.savetxt(f, pairs, fmt="%d", delimiter="\t")
    names = np.array([f"user_{i:07d}" for i in range(300_000)])
    words = names[rng.integers(0, len(names), size=(1_000_000, 2))]
    strings = folder / "strings.csv"
    with open(strings, "w") as f:
        f.write("source,target\n")
        f.write("\n".join(f"{u},{v}" for u, v in words.tolist()) + "\n")
    return ints, strings


def edge_list_rows(repeats):
    try:
        import pandas as pd
    except ImportError:  # optional: its rows are skipped
        pd = None
    with tempfile.TemporaryDirectory() as tmp:
        ints, strings = write_edge_lists(Path(tmp))
        array = np.loadtxt(ints, dtype=np.int64)
        rows = {
            "numpy.loadtxt, 3.3M int edges": lambda: np.loadtxt(ints, dtype=np.int64),
            "Graph.from_edges, 3.3M int pairs": lambda: lgekit.Graph.from_edges(array),
            "datasets.load, 3.3M int edges": lambda: datasets.load(ints),
            "datasets.load, 1M string edges": lambda: datasets.load(strings),
        }
        if pd is not None:
            def pandas_read():
                frame = pd.read_csv(strings)
                return pd.factorize(pd.concat([frame.source, frame.target]), sort=True)

            rows["pandas read_csv + factorize, 1M string edges"] = pandas_read
        times = {key: [] for key in rows}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the random pairs hold a few self-loops: dropped, as documented
            for _ in range(repeats):  # interleaved: one run of every row per round
                for key, fn in rows.items():
                    times[key].append(timed(fn)[0])
    median = {key: statistics.median(values) for key, values in times.items()}
    print(f"lgekit {lgekit.__version__} edge-list reading, median of {repeats} interleaved run(s)")
    width = max(map(len, rows))
    print(f"{'row':<{width}}  {'median s':>9}  {'min s':>7}  {'max s':>7}")
    print("-" * (width + 30))
    for key, values in times.items():
        print(f"{key:<{width}}  {median[key]:9.3f}  {min(values):7.3f}  {max(values):7.3f}")
    base = median["numpy.loadtxt, 3.3M int edges"] + median["Graph.from_edges, 3.3M int pairs"]
    print(f"int load / (loadtxt + from_edges): {median['datasets.load, 3.3M int edges'] / base:.2f}x (target <= 2)")
    if pd is not None:
        ratio = median["datasets.load, 1M string edges"] / median["pandas read_csv + factorize, 1M string edges"]
        print(f"string load / pandas: {ratio:.2f}x (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
