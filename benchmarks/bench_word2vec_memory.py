"""Memory of the word2vec reader and writer (issue 42, item 4), against the list-of-lists baseline, in one process.

For each file, the peak memory (tracemalloc, which counts NumPy's buffers) per byte of the file, and the CPU
seconds (the median of 3 rounds run without tracemalloc, which slows allocation-heavy code, lgekit and the
baseline alternating) of:

* reading it: ``lgekit.models.read_word2vec`` (two passes, the ids and vectors priced and allocated once)
  against the reader ``lgekit evaluate`` had before issue 42 (every line split into a list of floats, the
  lists made an array at the end), copied below as the baseline;
* writing it: ``lgekit.models.write_word2vec`` (a block of rows at a time) against joining every line in
  memory first (the writer before issue 42).

Files: the issue's shape (``n 1``, lines ``i 1``: the fewest bytes a vector takes), string ids, and, when
the real data is there, email-Eu-core's embedding as ``lgekit fit --dim 128`` writes it.

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_word2vec_memory.py [--lines 1000000]
"""
import argparse
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

import lgekit
from lgekit.models import read_word2vec, write_word2vec


def baseline_read(path):
    """The reader of ``lgekit evaluate`` before issue 42: lists of floats, then one array."""
    with open(path, encoding="utf-8") as fh:
        n, dim = map(int, fh.readline().split())
        ids, rows = [], []
        for line in fh:
            parts = line.split()
            if parts:
                ids.append(parts[0])
                rows.append([float(x) for x in parts[1:]])
    return np.asarray(rows, dtype=np.float64).reshape(n, dim), np.asarray(ids, dtype=object)


def baseline_write(path, vectors, names):
    """The writer before issue 42: every line joined in memory, then written."""
    lines = [f"{vectors.shape[0]} {vectors.shape[1]}"]
    for name, row in zip(names, vectors):
        lines.append(name + " " + " ".join("%.17g" % x for x in row))
    Path(path).write_text("\n".join(lines) + "\n")


def peak(fn, *args):
    """The peak memory ``fn(*args)`` allocates."""
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def cpu_seconds(fns, *args, rounds=3):
    """The median CPU seconds of each of ``fns`` on ``args``, the functions alternating round after round."""
    times = [[] for _ in fns]
    for _ in range(rounds):
        for fn, spent in zip(fns, times):
            started = time.process_time()
            fn(*args)
            spent.append(time.process_time() - started)
    return [float(np.median(t)) for t in times]


def row(what, size, fns, *args):
    ours_s, base_s = cpu_seconds(fns, *args)
    ours, base = (peak(fn, *args) for fn in fns)
    print(f"{what:40} {size / 1e6:7.1f}  {ours / size:10.2f} {ours_s:6.2f}  {base / size:12.2f} {base_s:6.2f}")


def files(folder, lines):
    """(label, path) of each file to read."""
    out = []
    for label, name in (("ids i, one number", "{i}"), ("ids node-i, one number", "node-{i}")):
        path = folder / f"{len(out)}.txt"
        with open(path, "w") as fh:
            fh.write(f"{lines} 1\n")
            for lo in range(0, lines, 100_000):
                fh.write("".join(f"{name.format(i=i)} 1\n" for i in range(lo, min(lines, lo + 100_000))))
        out.append((label, path))
    if lgekit.datasets.locate("email-eu-core") is not None:
        graph = lgekit.datasets.load("email-eu-core")
        model = lgekit.LogisticEmbedding(dim=128, epochs=5, random_state=0).fit(graph)
        path = folder / "email.txt"
        model.to_word2vec(path)
        out.append(("email-Eu-core, lgekit fit --dim 128", path))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="vectors in the synthetic files")
    args = parser.parse_args()
    import lgekit.models  # noqa: F401 - the imports are no part of what reading takes
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'file':40} {'MB':>7}  {'lgekit B/B':>10} {'s':>6}  {'baseline B/B':>12} {'s':>6}")
        for label, path in files(folder, args.lines):
            row(f"read {label}", path.stat().st_size, (read_word2vec, baseline_read), path)
        x = np.random.default_rng(0).normal(size=(20_000, 128))
        names = [str(i) for i in range(len(x))]
        write_word2vec(folder / "w.txt", x, names)
        row("write 20,000 x 128 float64", os.path.getsize(folder / "w.txt"), (write_word2vec, baseline_write),
            folder / "w.txt", x, names)

if __name__ == "__main__":
    main()
