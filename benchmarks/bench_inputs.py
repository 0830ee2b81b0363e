"""What reading a file costs before it is read: the bounds of ``lgekit/_input_file.py`` (issue 33).

Three tables:

1. The peak memory of reading an edge list (``read_edge_table``, traced by
   :mod:`tracemalloc`, which sees NumPy's buffers), per byte of the text, for
   the shapes of file that cost the most: short integer lines (``1 2``),
   random integer ids, weighted lines, string ids.  The reader's bound
   (``PARSE_BYTES_PER_BYTE`` in ``lgekit/datasets/_edgelist.py``) must stay
   above every row.
2. The check of a registered data set's local copy against the registry
   (``check_local_copy``): the first call hashes the files, later calls in the
   same process find the answer by (path, size, mtime, inode); and the content
   digest that a copy in the publisher's formatting needs instead.
3. (``--speed``) An integer edge list of 1.5M edges (SNAP's layout: a ``#``
   header, tab-separated) read by ``datasets.load`` against ``numpy.loadtxt``
   + ``Graph.from_edges``, and against ``datasets.load`` with the table's
   shape counted line by line (what the O(rows) recognition of the usual
   table replaced), in interleaved rounds; medians (issue 35, item 8).

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_inputs.py [--mib 16] [--speed] [--rounds 5]
"""
import argparse
import os
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from lgekit import datasets
from lgekit.datasets import _fetch
from lgekit.datasets._edgelist import CAREFUL_BYTES_PER_BYTE, PARSE_BYTES_PER_BYTE, read_edge_table


def _files(folder, mib):
    """``{shape: path}`` of edge lists of about ``mib`` MiB each."""
    rng = np.random.default_rng(0)
    size = mib * 2**20
    out = {}
    out["'1 2' lines"] = folder / "ones.txt"
    out["'1 2' lines"].write_bytes(b"1 2\n" * (size // 4))
    m = size // 14
    ids = rng.integers(0, 1_000_000, size=(m, 2))
    out["random int ids"] = folder / "ints.txt"
    np.savetxt(out["random int ids"], ids, fmt="%d")
    m = size // 12
    out["weighted 'u v w'"] = folder / "weighted.txt"
    lines = [f"{u} {v} 1\n" for u, v in rng.integers(0, 100, size=(m, 2))]
    out["weighted 'u v w'"].write_text("".join(lines))
    m = size // 24
    out["string ids (CSV)"] = folder / "names.csv"
    names = [f"user_{i:07d}" for i in range(100_000)]
    pick = rng.integers(0, len(names), size=(m, 2))
    out["string ids (CSV)"].write_text("".join(f"{names[a]},{names[b]}\n" for a, b in pick))
    m = size // 4
    out["'1 x' lines, careful"] = folder / "mixed.txt"   # an integer and a name: the line-by-line reader
    out["'1 x' lines, careful"].write_text("".join(f"{u} x\n" for u in rng.integers(0, 10, size=m)))
    return out


def memory_table(mib):
    print(f"peak memory of read_edge_table per byte of text (bounds: PARSE_BYTES_PER_BYTE = {PARSE_BYTES_PER_BYTE}, "
          f"CAREFUL_BYTES_PER_BYTE = {CAREFUL_BYTES_PER_BYTE} for the line-by-line reader)")
    print(f"{'file':<22}{'MiB':>8}{'peak MiB':>10}{'per byte':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape, path in _files(Path(tmp), mib).items():
            size = os.path.getsize(path)
            tracemalloc.start()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the mixed file's "ids read as text"
                read_edge_table(path)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"{shape:<22}{size / 2**20:>8.1f}{peak / 2**20:>10.1f}{peak / size:>10.1f}")


def check_table():
    print("\ncheck_local_copy: first call (hashes every file) and a second call (memoised), milliseconds")
    print(f"{'data set':<16}{'MiB':>8}{'first':>10}{'again':>10}")
    for name in ("blogcatalog", "ppi", "facebook", "email-eu-core"):
        folder = datasets.locate(name)
        if folder is None:
            print(f"{name:<16}  not found (set LGEKIT_DATA)")
            continue
        size = sum(os.path.getsize(p) for p in folder.iterdir() if p.is_file())
        _fetch._CHECKED.clear()
        t = time.perf_counter()
        datasets.check_local_copy(name, folder)
        first = time.perf_counter() - t
        t = time.perf_counter()
        datasets.check_local_copy(name, folder)
        again = time.perf_counter() - t
        print(f"{name:<16}{size / 2**20:>8.1f}{first * 1e3:>10.1f}{again * 1e3:>10.2f}")
    folder = datasets.locate("blogcatalog")
    if folder is not None:
        t = time.perf_counter()
        _fetch.content_digest(folder / "edges.csv", "table:2")
        print(f"content digest of BlogCatalog's edges.csv (a copy in the publisher's formatting): "
              f"{(time.perf_counter() - t) * 1e3:.0f} ms, once per process")


def speed_table(rounds):
    from lgekit import Graph
    from lgekit.datasets import _fast_reader

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "edges.txt"
        np.savetxt(path, rng.integers(0, 200_000, size=(1_500_000, 2)), fmt="%d", delimiter="\t",
                   header="FromNodeId\tToNodeId", comments="# ")
        shapes = _fast_reader._rows_in_order, _fast_reader._tab_rows

        def per_line():
            _fast_reader._rows_in_order, _fast_reader._tab_rows = (lambda *a, **k: None), (lambda *a, **k: False)
            try:
                return datasets.load(path)
            finally:
                _fast_reader._rows_in_order, _fast_reader._tab_rows = shapes

        rows = {"numpy.loadtxt + Graph.from_edges": lambda: Graph.from_edges(np.loadtxt(path, dtype=np.int64)),
                "datasets.load": lambda: datasets.load(path),
                "datasets.load, shape counted per line": per_line}
        times = {name: [] for name in rows}
        warnings.simplefilter("ignore")  # the random graph's few self-loops, dropped with a warning each time
        for _ in range(rounds):
            for name, call in rows.items():
                t = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - t)
    base = np.median(times["numpy.loadtxt + Graph.from_edges"])
    print(f"\n1.5M integer edges (tab-separated, '#' header), median of {rounds} interleaved rounds")
    for name, values in times.items():
        print(f"{name:<40}{np.median(values):>8.3f} s{np.median(values) / base:>8.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=16, help="size of each generated edge list (default 16)")
    parser.add_argument("--speed", action="store_true", help="also time an integer edge list of 1.5M edges")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the --speed table (default 5)")
    args = parser.parse_args()
    memory_table(args.mib)
    check_table()
    if args.speed:
        speed_table(args.rounds)


if __name__ == "__main__":
    main()
