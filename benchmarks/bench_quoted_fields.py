"""Should the careful reader split quoted fields with Python's ``csv`` module?  Measured, not assumed.

Issue 45 asked for ``csv`` in place of the hand-written ``_split_quoted`` of
``lgekit/datasets/_edgelist.py`` if it measures no slower.  ``csv.reader``
does not read lgekit's grammar as it stands (it keeps the whitespace around a
field, accepts a quote inside an unquoted field, and cannot split on runs of
whitespace), so the candidate measured here is the cheapest *equivalent* use of
it: ``csv.reader`` on each line, its fields kept when none holds a quote or
starts or ends with whitespace, and ``_split_quoted`` for every other line
(and for every error, whose message is the grammar's).  The script
first checks that the candidate gives the same fields, or the same error, as
``_split_quoted`` on every line it times and on a set of awkward lines; then
it times both, in one process, alternating rounds, CPU time, medians:

* per line: the splitter alone, over the lines of the file (and, as a floor
  for any use of ``csv``, the bare ``csv.reader`` call, which does not give
  the grammar's fields);
* per file: ``lgekit.datasets.read_edge_list`` of the whole file, once with
  each splitter in place.

Two files of quoted names (``"Valjean, Jean","Myriel",5``): every field
quoted (R's ``write.csv``, pandas' ``QUOTE_ALL``), and only the names that
hold the delimiter (``csv.QUOTE_MINIMAL``).

    python3 benchmarks/bench_quoted_fields.py [--lines 200000] [--rounds 5]
"""
import argparse
import csv
import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from lgekit.datasets import DataFormatError, _edgelist, read_edge_list

_WHITESPACE = " \t\r\f\v"
_split_quoted = _edgelist._split_quoted     # the careful reader's own, whatever is patched in below


def csv_split(body, delimiter, path, lineno):
    """``_split_quoted`` through ``csv.reader`` where that gives the same fields; ``_split_quoted`` elsewhere.

    ``csv.reader`` (strict) drops nothing but the delimiters and the quotes
    around a field, so its fields are the grammar's exactly when none holds a
    quote (a doubled quote inside quotes, or a quote csv took as text: one
    inside an unquoted field or after whitespace) and none starts or ends
    with whitespace (which the grammar drops around a field); text after a
    closing quote, or a quote left open, is a ``csv.Error``.
    """
    if delimiter is None:
        return _split_quoted(body, delimiter, path, lineno)
    try:
        fields = next(csv.reader((body,), delimiter=delimiter, strict=True))
    except csv.Error:
        return _split_quoted(body, delimiter, path, lineno)       # the grammar's message
    space = _WHITESPACE.replace(delimiter, "")
    for f in fields:
        if '"' in f or (f and (f[0] in space or f[-1] in space)):
            return _split_quoted(body, delimiter, path, lineno)
    return fields


AWKWARD = ['"a, b",c', '"a, b", c', '" a ",b', 'a, "b"', '"a" , "b"', ' "a",b', 'a "b",c', '"a"b,c', '"a""b",c', 'a,,b', 'a,b,', ',a', '""', '"a',
           '"a",', '"a\tb"\t"c"', '"x" "y"', 'a"b,c', '"é, 中",ß', '"a,b","c,d","1.5"', '"a" ,b', 'a ,"b"']


def same(line, delimiter):
    def run(split):
        try:
            return split(line, delimiter, "f.csv", 1)
        except DataFormatError as exc:
            return ("error", str(exc))
    return run(_split_quoted) == run(csv_split)


def names(rng, n):
    first = ["Jean", "Marie", "Ann", "Bob", "Li", "José", "Zoë", "Kim", "Omar", "Eve"]
    last = ["Valjean", "Thénardier", "Smith", "Doe", "Wang", "García", "Müller", "Ng", "Okafor", "Ross"]
    return [f"{last[rng.integers(10)]}, {first[rng.integers(10)]} {i}" for i in range(n)]


def write_file(path, n_lines, quoting, seed=0):
    rng = np.random.default_rng(seed)
    people = names(rng, max(2, n_lines // 10))
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=quoting, lineterminator="\n")
    writer.writerow(["source", "target", "weight"])
    for u, v, w in zip(rng.integers(len(people), size=n_lines), rng.integers(len(people), size=n_lines),
                       rng.integers(1, 10, size=n_lines)):
        if u != v:
            writer.writerow([people[u], people[v], int(w)])
    path.write_text(buf.getvalue(), encoding="utf-8")


def cpu_seconds(fn, *args):
    t = time.process_time()
    fn(*args)
    return time.process_time() - t


def bench(path, rounds):
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    assert all(same(line, ",") for line in lines), "the candidate differs from _split_quoted on the file"

    def split_all(split):
        for line in lines:
            split(line, ",", path, 1)

    real = _split_quoted

    def read_with(split):
        _edgelist._split_quoted = split
        try:
            return read_edge_list(path)
        finally:
            _edgelist._split_quoted = real

    a, b = read_with(real), read_with(csv_split)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), "the two reads differ"
    def bare_csv(body, delimiter, path, lineno):   # csv.reader alone: not the grammar, a floor for any use of it
        return next(csv.reader((body,), delimiter=delimiter, strict=True))

    times = {"split, _split_quoted": [], "split, csv candidate": [], "split, bare csv": [], "read, _split_quoted": [],
             "read, csv candidate": []}
    for _ in range(rounds):   # alternating rounds: a load on the machine hits both alike
        times["split, _split_quoted"].append(cpu_seconds(split_all, real))
        times["split, csv candidate"].append(cpu_seconds(split_all, csv_split))
        times["split, bare csv"].append(cpu_seconds(split_all, bare_csv))
        times["read, _split_quoted"].append(cpu_seconds(read_with, real))
        times["read, csv candidate"].append(cpu_seconds(read_with, csv_split))
    return len(lines), {k: statistics.median(v) for k, v in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    bad = [line for line in AWKWARD for d in (",", "\t") if not same(line, d)]
    assert not bad, f"the candidate differs from _split_quoted on {bad}"
    print(f"agreement: same fields or same error on {len(AWKWARD)} awkward lines (',' and tab) and on every "
          "line timed below")
    with tempfile.TemporaryDirectory() as tmp:
        for label, quoting in (("every field quoted", csv.QUOTE_ALL), ("names with ',' quoted", csv.QUOTE_MINIMAL)):
            path = Path(tmp) / "edges.csv"
            write_file(path, args.lines, quoting)
            n, med = bench(path, args.rounds)
            print(f"\n{label}: {n:,} lines, {path.stat().st_size / 2**20:.1f} MiB; CPU seconds, median of "
                  f"{args.rounds} alternating rounds")
            print(f"{'':34s} {'_split_quoted':>14s} {'csv candidate':>14s} {'ratio':>7s}")
            for what in ("split", "read"):
                base, cand = med[f"{what}, _split_quoted"], med[f"{what}, csv candidate"]
                print(f"{what + (' (splitter alone)' if what == 'split' else ' (read_edge_list)'):34s} "
                      f"{base:14.3f} {cand:14.3f} {cand / base:7.2f}")
            bare = med["split, bare csv"]
            print(f"{'split, bare csv.reader (not equal)':34s} {'':14s} {bare:14.3f} "
                  f"{bare / med['split, _split_quoted']:7.2f}")


if __name__ == "__main__":
    main()
