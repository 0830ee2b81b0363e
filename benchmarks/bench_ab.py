"""A/B: time the same workload on two builds of lgekit, in alternating rounds of one run.

Two source trees side by side (default: commit e5f8e3d as A and HEAD as B; ``git archive`` of each
into a temporary folder, so neither touches the working tree; ``--tree A=path --tree B=path`` for
trees already unpacked, e.g. on a machine without ``.git``), each built in place
(``python3 setup.py build_ext --inplace -j N``).  Every round runs one subprocess per tree, with
``PYTHONPATH`` set to that tree, so that the two builds never share a process, and alternates which
tree goes first.  Each subprocess runs the ``--workloads`` on the same graph, saved once by this
process: ``sgd-hogwild`` / ``sgd-deterministic`` fit ``LogisticEmbedding`` (D = 100, float32,
``diagnostics=False``, 4 negatives a positive), ``dcd-deterministic`` ``HingeEmbedding`` (D = 100,
float32, ``diagnostics=False`` where the tree has it), and each times its epochs the two ways issue
23 contrasts:

* ``fit``: the median of ``history_[i]["seconds"]`` over a ``fit`` of ``--epochs`` epochs (the first
  epoch, which pays for first touches of the work arrays, is left out);
* ``partial``: the median over ``--epochs`` calls of ``partial_fit(epochs=1)``, each timed around
  the call (what ``bench_scaling.py`` times: it adds the per-call overhead of ``partial_fit``).

``link-prediction`` times ``metrics.average_precision`` of the graph's edges against four uniform
pairs each with a fixed random embedding (the link-prediction callback's work per epoch), per call.

It prints, per (workload, threads, method), each tree's median throughput over the rounds, the
per-round ratios B/A and their median (> 1: B is faster).  One sample = one positive and its four
negatives (LINE's unit), so samples/s = edges / epoch seconds.

With ``--in-process`` (issue 45: a refactor of the kernels, whose A/B must see a 2 % difference) the two
builds share ONE process instead: tree A (``--commits A ...``) is unpacked with its package renamed
``lgekit_a`` (every ``lgekit`` name in its sources, so that its kernels import each other and never this
tree's) and built, and this tree's ``lgekit`` is B.  On the training split of ``--graph blogcatalog`` each
``--kernel-workloads`` entry (``sgd-edge``, ``sgd-edge-hogwild``, ``sgd-vertex``, ``dcd``: D = 100, float32,
one thread, no diagnostics) is fitted ``--after`` epochs by both builds (the same bits, or the tool stops),
then each round restores both solvers to that state and times ``--epochs`` epochs of each (``solver.run_epoch``
from epoch ``--after`` on; one timing a round), in CPU time
(``time.process_time``), alternating which build goes first; it prints the medians, the per-round ratios
B/A of the epoch times (< 1: B is faster) and whether every epoch of A and B gave the same bits.

Usage::

    python3 benchmarks/bench_ab.py --graph chung-lu --nodes 100000 --threads 1 2 --rounds 3
    python3 benchmarks/bench_ab.py --commits 2d866a3 HEAD --graph blogcatalog --workloads link-prediction dcd-deterministic
    python3 benchmarks/bench_ab.py --tree A=/tmp/old --tree B=/tmp/new --threads 16 --json ab.json
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_ab.py --in-process --commits main HEAD --graph blogcatalog \
        --rounds 15 --epochs 4 --workdir /tmp/ab45
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_COMMITS = ("e5f8e3d", "HEAD")


# ---------------------------------------------------------------------- the trees
def unpack(commit, dest):
    """``git archive`` of ``commit`` unpacked into ``dest`` (the working tree is not touched)."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def build(tree, jobs, log, package="lgekit"):
    """Build the kernels of ``tree`` (its package ``package``) in place; returns the seconds it took."""
    env = dict(os.environ, LGEKIT_BUILD_JOBS=str(jobs))
    env.pop("LGEKIT_BUILD_ONLY", None)
    start = time.perf_counter()
    with open(log, "w") as out:
        result = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", str(jobs)], cwd=tree,
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode or not list(Path(tree, package).rglob("_sgd*.so")):
        raise SystemExit(f"bench_ab: building {tree} failed (exit {result.returncode}); see {log}")
    return time.perf_counter() - start


# ---------------------------------------------------------------------- the graph
def save_graph(kind, n_nodes, path):
    """Write the workload's graph as a symmetric CSR matrix (what ``Graph.from_scipy`` reads in every
    lgekit version the tool compares); returns its name."""
    import scipy.sparse as sp

    import lgekit
    from lgekit.datasets import chung_lu_graph, youtube_like_degrees

    if kind == "chung-lu":
        n_edges = round(3_319_221 * n_nodes / 500_000)           # YouTube's edges per node (bench_scaling)
        g = chung_lu_graph(youtube_like_degrees(n_nodes=n_nodes, n_edges=n_edges), seed=0)
        name = f"Chung-Lu {g.n_nodes:,}/{g.n_edges:,}"
    else:
        g = lgekit.split_edges(lgekit.datasets.load("blogcatalog"), test_fraction=0.2, seed=0).train_graph
        name = f"BlogCatalog train {g.n_nodes:,}/{g.n_edges:,}"
    sp.save_npz(path, g.to_scipy("csr"))
    return name


# ---------------------------------------------------------------------- one tree, one round (subprocess)
WORKLOADS = ("sgd-hogwild", "sgd-deterministic", "sgd-blocks", "dcd-deterministic", "link-prediction")


def _model(workload, threads, epochs):
    """The estimator a workload fits, with the records' extra passes off where the tree's lgekit can."""
    import lgekit

    if workload.startswith("sgd-"):
        return lgekit.LogisticEmbedding(dim=100, lam_r=0.6, epochs=epochs, n_threads=threads,
                                        schedule=workload[4:], diagnostics=False, random_state=0)
    params = dict(dim=100, lam_r=3.0, epochs=epochs, n_threads=threads, schedule="deterministic", random_state=0)
    try:
        return lgekit.HingeEmbedding(**params, diagnostics=False)
    except TypeError:       # a tree from before HingeEmbedding(diagnostics=...): its records have the objective
        return lgekit.HingeEmbedding(**params)


def _link_prediction_seconds(g, threads, calls):
    """Per-call seconds of ``metrics.average_precision`` (the callback's per-epoch work on a one-table model):
    the graph's edges against four uniform pairs each, scored by a fixed random float32 embedding."""
    import numpy as np

    from lgekit import metrics

    rng = np.random.default_rng(0)
    emb = (rng.standard_normal((g.n_nodes, 100)) * 0.3).astype(np.float32)
    pos = np.ascontiguousarray(g.edges(), dtype=np.int64)
    neg = rng.integers(0, g.n_nodes, (4 * len(pos), 2), dtype=np.int64)
    metrics.average_precision(emb, pos, neg, n_threads=threads)            # warm-up
    out = []
    for _ in range(calls):
        start = time.perf_counter()
        metrics.average_precision(emb, pos, neg, n_threads=threads)
        out.append(time.perf_counter() - start)
    return out


def worker(args):
    import numpy as np
    import scipy.sparse as sp

    import lgekit

    g = lgekit.Graph.from_scipy(sp.load_npz(args.graph_file))
    out = {"lgekit": str(Path(lgekit.__file__).resolve().parent), "n_edges": g.n_edges, "cells": []}
    for workload in args.workloads:
        for t in args.threads:
            if workload == "link-prediction":
                calls = _link_prediction_seconds(g, t, args.epochs)
                out["cells"].append({"workload": workload, "threads": t, "fit": float(np.median(calls)),
                                     "partial": float(np.median(calls))})
                continue
            model = _model(workload, t, args.epochs + 1).fit(g)
            fit_epoch = float(np.median([r["seconds"] for r in model.history_[1:]]))
            calls = []
            for _ in range(args.epochs):
                start = time.perf_counter()
                model.partial_fit(g, epochs=1)
                calls.append(time.perf_counter() - start)
            out["cells"].append({"workload": workload, "threads": t, "fit": fit_epoch,
                                 "partial": float(np.median(calls))})
    print(json.dumps(out))


def run_round(tree, args, graph_file):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--graph-file", str(graph_file),
           "--epochs", str(args.epochs), "--threads", *map(str, args.threads), "--workloads", *args.workloads]
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tree)
    if result.returncode:
        raise SystemExit(f"bench_ab: the worker on {tree} failed:\n{result.stderr[-3000:]}")
    data = json.loads(result.stdout.strip().splitlines()[-1])
    if Path(data["lgekit"]) != (Path(tree) / "lgekit").resolve():
        raise SystemExit(f"bench_ab: the worker for {tree} imported lgekit from {data['lgekit']}")
    return data


# ---------------------------------------------------------------------- one process (--in-process)
RENAMED = "lgekit_a"
_NAME = re.compile(r"(?<![\w-])lgekit(?![\w-])")

#: what ``--in-process`` times: the estimator and its parameters beyond D = 100, float32, one thread, no diagnostics
KERNEL_WORKLOADS = {
    "sgd-edge": ("LogisticEmbedding", dict(lam_r=0.6, schedule="deterministic")),
    "sgd-edge-hogwild": ("LogisticEmbedding", dict(lam_r=0.6, schedule="hogwild")),
    "sgd-vertex": ("LogisticEmbedding", dict(lam_r=0.6, order="vertex", lr=0.02)),
    "dcd": ("HingeEmbedding", dict(lam_r=3.0)),
}


def renamed_tree(commit, dest):
    """``commit`` unpacked into ``dest`` with its package renamed :data:`RENAMED`: the folder and every
    ``lgekit`` name in its sources and ``setup.py`` (imports, cimports, the kernels' module names)."""
    unpack(commit, dest)
    Path(dest, "lgekit").rename(Path(dest, RENAMED))
    for path in [Path(dest, "setup.py"), *Path(dest, RENAMED).rglob("*")]:
        if path.suffix in (".py", ".pyx", ".pxd", ".h") and path.is_file():
            path.write_text(_NAME.sub(RENAMED, path.read_text()))
    return dest


def _state(solver):
    return solver.embedding.copy(), solver.state()


def _restore(solver, state):
    solver.embedding[...] = state[0]
    solver.set_state(state[1])


def in_process(args, work):
    """Time the training epochs of tree A (renamed) against this tree's in one process (see the docstring)."""
    import numpy as np

    import lgekit as lgekit_b

    tree = work / "A"
    if not Path(tree, RENAMED).is_dir():
        renamed_tree(args.commits[0], tree)
    if not list(Path(tree, RENAMED).rglob("_sgd*.so")):
        seconds = build(tree, args.jobs, work / "build-A.log", RENAMED)
        print(f"# built A ({args.commits[0]}, as {RENAMED}) in {seconds:.0f} s with -j {args.jobs}", flush=True)
    sys.path.insert(0, str(tree))
    import importlib

    lgekit_a = importlib.import_module(RENAMED)
    graph_file = work / "graph.npz"
    graph_name = save_graph(args.graph, args.nodes, graph_file)
    import scipy.sparse as sp

    matrix = sp.load_npz(graph_file)
    print(f"# {graph_name}; A = {args.commits[0]} ({Path(lgekit_a.__file__).parent}), B = this tree "
          f"({Path(lgekit_b.__file__).parent}); {args.rounds} rounds of {args.epochs} epochs (from #{args.after}) each, "
          f"CPU time an epoch; D = 100 float32, one thread, no diagnostics", flush=True)
    table = []
    print(f"\n{'workload':<18} {'A ms':>8} {'B ms':>8} {'median B/A':>10} {'same bits':>9}  B/A per round")
    for workload in args.kernel_workloads:
        estimator, params = KERNEL_WORKLOADS[workload]
        solvers, states = {}, {}
        for name, package in (("A", lgekit_a), ("B", lgekit_b)):
            model = getattr(package, estimator)(dim=100, epochs=args.after, n_threads=1, diagnostics=False,
                                                random_state=0, **params).fit(matrix)
            solvers[name], states[name] = model.solver_, _state(model.solver_)
        same = bool(np.array_equal(states["A"][0], states["B"][0]))
        if not same:
            raise SystemExit(f"bench_ab: {workload}: A and B fitted different embeddings in {args.after} epochs")
        times = {"A": [], "B": []}
        for r in range(args.rounds):
            ends = {}
            for name in ("AB" if r % 2 == 0 else "BA"):
                solver = solvers[name]
                _restore(solver, states[name])
                start = time.process_time()
                statuses = [solver.run_epoch(args.after + e) for e in range(args.epochs)]
                times[name].append((time.process_time() - start) / args.epochs)
                if any(statuses):
                    raise SystemExit(f"bench_ab: {workload}: an epoch of {name} did not finish ({statuses!r})")
                ends[name] = _state(solver)
            same = same and bool(np.array_equal(ends["A"][0], ends["B"][0])) and all(
                np.array_equal(ends["A"][1][k], ends["B"][1][k]) for k in ends["A"][1])
        ratios = [b / a for a, b in zip(times["A"], times["B"])]
        row = {"workload": workload, "A_ms": 1e3 * statistics.median(times["A"]),
               "B_ms": 1e3 * statistics.median(times["B"]), "ratios": ratios,
               "median_ratio": statistics.median(ratios), "same_bits": same}
        table.append(row)
        print(f"{workload:<18} {row['A_ms']:>8.1f} {row['B_ms']:>8.1f} {row['median_ratio']:>10.3f} {str(same):>9}  "
              f"{' '.join(f'{x:.3f}' for x in ratios)}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"graph": graph_name, "A": args.commits[0], "B": "this tree",
                                               "table": table}, indent=2))


# ---------------------------------------------------------------------- main
def parse_trees(items):
    trees = {}
    for item in items or []:
        name, sep, path = item.partition("=")
        if not sep or name not in ("A", "B") or not Path(path, "setup.py").is_file():
            raise SystemExit(f"bench_ab: --tree takes A=PATH or B=PATH, a folder holding setup.py; got {item!r}")
        trees[name] = Path(path).resolve()
    if trees and set(trees) != {"A", "B"}:
        raise SystemExit("bench_ab: give both --tree A=PATH and --tree B=PATH (or neither, for --commits)")
    return trees


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", nargs=2, default=DEFAULT_COMMITS, metavar=("A", "B"),
                        help=f"the two commits (default {' '.join(DEFAULT_COMMITS)})")
    parser.add_argument("--tree", action="append", metavar="NAME=PATH",
                        help="an unpacked source tree instead of a commit (A=... and B=...)")
    parser.add_argument("--no-build", action="store_true", help="the --tree folders are built already")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="build jobs (default: the cores)")
    parser.add_argument("--graph", choices=("chung-lu", "blogcatalog"), default="chung-lu")
    parser.add_argument("--nodes", type=int, default=500_000, help="Chung-Lu nodes (default 500,000)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=None,
                        help="what each round times (default sgd-hogwild): an SGD or DCD epoch, or link-prediction "
                             "(metrics.average_precision of the graph's edges against 4 random pairs each)")
    parser.add_argument("--schedules", nargs="+", choices=("hogwild", "deterministic"), default=None,
                        help="SGD schedules: the same as --workloads sgd-<schedule> ...")
    parser.add_argument("--epochs", type=int, default=8, help="timed epochs a fit, and partial_fit calls (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--workdir", help="where to unpack and build (default: a temporary folder, removed)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--in-process", action="store_true",
                        help="A (the first --commits, renamed lgekit_a) against this tree in one process (see above)")
    parser.add_argument("--kernel-workloads", nargs="+", choices=tuple(KERNEL_WORKLOADS), default=list(KERNEL_WORKLOADS),
                        help="what --in-process times (default: all)")
    parser.add_argument("--after", type=int, default=2, help="--in-process: epochs fitted before the timed one")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--graph-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.workloads = list(args.workloads or []) + [f"sgd-{s}" for s in args.schedules or []]
    args.workloads = list(dict.fromkeys(args.workloads)) or ["sgd-hogwild"]
    if args.worker:
        return worker(args)
    if min(args.threads) < 1 or args.epochs < 1 or args.rounds < 1 or args.nodes < 100 or args.jobs < 1:
        parser.error("--threads, --epochs, --rounds and --jobs must be at least 1, --nodes at least 100")
    trees = parse_trees(args.tree)
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="lgekit-ab-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.in_process:
        if args.tree or args.after < 0:
            parser.error("--in-process takes --commits (A; B is this tree), not --tree, and --after >= 0")
        try:
            return in_process(args, work)
        finally:
            if not args.workdir:
                shutil.rmtree(work, ignore_errors=True)
    try:
        labels = {}
        if not trees:
            for name, commit in zip("AB", args.commits):
                trees[name] = unpack(commit, work / name)
                labels[name] = commit
        else:
            labels = {name: str(path) for name, path in trees.items()}
        if not (args.tree and args.no_build):
            for name in "AB":
                seconds = build(trees[name], args.jobs, work / f"build-{name}.log")
                print(f"# built {name} ({labels[name]}) in {seconds:.0f} s with -j {args.jobs}", flush=True)
        graph_file = work / "graph.npz"
        graph_name = save_graph(args.graph, args.nodes, graph_file)
        print(f"# {graph_name}; A = {labels['A']}, B = {labels['B']}; {args.rounds} rounds, {args.epochs} epochs a "
              f"cell; D = 100 float32, no diagnostics; link-prediction 'samples' are scored pairs / 5", flush=True)
        rounds = []
        for r in range(args.rounds):
            order = "AB" if r % 2 == 0 else "BA"
            got = {name: run_round(trees[name], args, graph_file) for name in order}
            rounds.append(got)
            line = []
            for a, b in zip(got["A"]["cells"], got["B"]["cells"]):
                line.append(f"{a['workload']}/{a['threads']}t fit {a['fit'] / b['fit']:.3f} "
                            f"partial {a['partial'] / b['partial']:.3f}")
            print(f"round {r + 1} ({order} first): B/A " + "; ".join(line), flush=True)
        edges = rounds[0]["A"]["n_edges"]
        print(f"\n{'workload':<18} {'threads':>7} {'method':<8} {'A M samples/s':>14} {'B M samples/s':>14} "
              f"{'B/A per round':<26} {'median B/A':>10}")
        table = []
        for i, cell in enumerate(rounds[0]["A"]["cells"]):
            for method in ("fit", "partial"):
                a = [rd["A"]["cells"][i][method] for rd in rounds]
                b = [rd["B"]["cells"][i][method] for rd in rounds]
                ratios = [x / y for x, y in zip(a, b)]
                row = {"workload": cell["workload"], "threads": cell["threads"], "method": method,
                       "A_samples_per_s": edges / statistics.median(a), "B_samples_per_s": edges / statistics.median(b),
                       "ratios": ratios, "median_ratio": statistics.median(ratios)}
                table.append(row)
                print(f"{row['workload']:<18} {row['threads']:>7} {method:<8} {row['A_samples_per_s'] / 1e6:>14.2f} "
                      f"{row['B_samples_per_s'] / 1e6:>14.2f} {' '.join(f'{x:.3f}' for x in ratios):<26} "
                      f"{row['median_ratio']:>10.3f}")
        if args.json:
            Path(args.json).write_text(json.dumps({"graph": graph_name, "A": labels["A"], "B": labels["B"],
                                                   "rounds": rounds, "table": table}, indent=2))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
