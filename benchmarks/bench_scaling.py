"""Many-core scaling of the training kernels, and a model of what limits it, computed from the schedules.

Table 1 (measured): the median epoch of ``partial_fit(epochs=1)`` over ``--repeats`` rounds after a
warm-up, for 1, 2, 4, ... threads up to the machine's (``--threads`` to choose), the thread counts
interleaved round by round so that a drift of the machine's speed hits them alike.  Rows:

* SGD (``LogisticEmbedding``, D=100, float32, ``diagnostics=False``, so an epoch is the update pass
  plus its ordering) with the ``hogwild``, ``deterministic`` and ``blocks`` schedules;
* DCD (``HingeEmbedding``, D=100, float32, ``diagnostics=False``: the records keep the dual counts,
  without the objective's pass over the pairs and, since issue 46, without the blocks' certificates;
  before issue 23's third round the DCD rows timed that pass too) with both schedules;

on BlogCatalog's 80 % training split (the synthetic stand-in when the data set is not found) and on
a Chung-Lu graph with YouTube's size and degree law (500,000 nodes, ~3.3M edges; ``--quick``: 100,000
nodes).  Throughput is in samples/s, one sample = one positive pair and its 4 negatives (LINE's unit);
speed-ups are medians of per-round ratios against one thread.

Table 2 (computed from the schedule, not timed), so that a 2-core machine can say what more cores
would meet:

* deterministic SGD: the stratified order's rounds of vertex-disjoint blocks are handed out to T
  threads block by block (dynamic, in order) with a barrier after each round.  Simulating that
  hand-out with each block's pair count as its cost gives the makespan of every round; the ideal
  speed-up is P / sum(makespans) and the barrier-wait fraction 1 - P / (T sum(makespans)).
* hogwild SGD: threads write the same rows without locks, and a row written by two cores moves
  between their caches.  With p_v the share of the epoch's row updates that hit row v, the share of
  updates that hit a row another thread also writes within a window of W updates is
  sum_v p_v (1 - (1 - p_v)^(2 W (T - 1))).  W = 64 updates, about a microsecond.
* deterministic DCD: the colour classes of the pair graph run one after another, each vertex's work
  proportional to its pair count; the same hand-out simulation gives its barrier-wait fraction.

Usage::

    python benchmarks/bench_scaling.py               # every thread count up to the machine's
    python benchmarks/bench_scaling.py --quick       # smaller Chung-Lu graph, fewer repeats
    python benchmarks/bench_scaling.py --threads 1 2 4 8 16 --json out.json
"""
import argparse
import heapq
import json
import sys
import time

import numpy as np

import lgekit
from lgekit._openmp import max_threads
from lgekit._simd import load_kernel
from lgekit.datasets import chung_lu_graph, youtube_like_degrees
from lgekit.models import _schedules

_sgd_diagnostics = load_kernel("lgekit.models._sgd_diagnostics")   # the build the solver runs
_scoring = load_kernel("lgekit._scoring")

D = 100
NEGATIVES = 4
ROWS = ("sgd-hogwild", "sgd-deterministic", "sgd-blocks", "dcd-deterministic", "dcd-hogwild")
HOGWILD_WINDOW = 64


def load_blogcatalog():
    try:
        g = lgekit.datasets.load("blogcatalog")
    except Exception as exc:  # noqa: BLE001 - any failure: fall back to the embedded stand-in
        print(f"# blogcatalog not available ({exc}); using synthetic-blogcatalog", file=sys.stderr)
        g = lgekit.datasets.load("synthetic-blogcatalog")
    return "BlogCatalog", lgekit.split_edges(g, test_fraction=0.2, seed=0).train_graph


def chung_lu(n_nodes):
    n_edges = round(3_319_221 * n_nodes / 500_000)
    g = chung_lu_graph(youtube_like_degrees(n_nodes=n_nodes, n_edges=n_edges), seed=0)
    return f"Chung-Lu {g.n_nodes:,}/{g.n_edges:,}", g


def thread_counts(requested):
    if requested:
        return sorted(set(requested))
    top, counts, t = max_threads(), [], 1
    while t < top:
        counts.append(t)
        t *= 2
    return counts + [top]


def models(threads):
    """(kind, schedule) -> factory of a prepared model for a thread count."""
    def sgd(schedule):
        return lambda t: lgekit.LogisticEmbedding(dim=D, lam_r=0.6, epochs=1, n_threads=t, schedule=schedule,
                                                  diagnostics=False, random_state=0)

    def dcd(schedule):
        return lambda t: lgekit.HingeEmbedding(dim=D, lam_r=3.0, epochs=1, n_threads=t, schedule=schedule,
                                               diagnostics=False, random_state=0)
    return {("SGD", "hogwild"): sgd("hogwild"), ("SGD", "deterministic"): sgd("deterministic"),
            ("SGD", "blocks"): sgd("blocks"),
            ("DCD", "deterministic"): dcd("deterministic"), ("DCD", "hogwild"): dcd("hogwild")}


def time_epochs(graph, factory, threads, repeats):
    """Median epoch per thread count and median per-round speed-up against one thread."""
    fitted = {t: factory(t).fit(graph) for t in threads}          # also the warm-up epoch
    times = {t: [] for t in threads}
    for _ in range(repeats):
        for t in threads:
            start = time.perf_counter()
            fitted[t].partial_fit(graph, epochs=1)
            times[t].append(time.perf_counter() - start)
    base = np.asarray(times[threads[0]])
    return {t: (float(np.median(times[t])), float(np.median(base / np.asarray(times[t])))) for t in threads}


def dynamic_makespan(costs, n_threads):
    """Finish time of the last task when ``n_threads`` take ``costs`` in order, each the next one when free."""
    if n_threads <= 1 or len(costs) <= 1:
        return float(np.sum(costs))
    free = [0.0] * n_threads
    for c in costs:
        heapq.heapreplace(free, free[0] + float(c))
    return max(free)


def stratified_model(pairs, n, threads, seed=0):
    """Ideal speed-up and barrier-wait share of the deterministic SGD order for each thread count."""
    order, block_ptr, round_ptr = _schedules.edge_order(pairs, n, D, seed, 0, "deterministic")
    sizes = np.diff(block_ptr)
    out = {}
    for t in threads:
        makespan = sum(dynamic_makespan(sizes[round_ptr[i]:round_ptr[i + 1]], t) for i in range(len(round_ptr) - 1))
        out[t] = (len(pairs) / makespan, 1.0 - len(pairs) / (t * makespan))
    return out, len(sizes), len(round_ptr) - 1


def hogwild_shared_rows(pairs, n, threads, window=HOGWILD_WINDOW):
    """Share of row updates that hit a row another thread writes within ``window`` updates."""
    p = np.bincount(pairs.ravel(), minlength=n) / (2.0 * len(pairs))
    return {t: float(np.sum(p * -np.expm1(2 * window * (t - 1) * np.log1p(-np.minimum(p, 1 - 1e-12)))))
            for t in threads}


def coloring_model(pairs, n, threads):
    """Barrier-wait share of the deterministic DCD schedule: colour classes in turn, vertex cost = its pair count."""
    from lgekit.models.hinge import pair_csr

    csr = pair_csr(n, pairs[:0], pairs)          # the schedule only needs who shares a pair with whom
    degree = np.diff(csr.indptr)
    visit = np.argsort(-degree, kind="stable").astype(np.int64)
    colors = _schedules.greedy_coloring(csr.indptr, csr.nbr, visit)
    total = float(degree.sum())
    out = {}
    for t in threads:
        makespan = sum(dynamic_makespan(np.sort(degree[colors == c])[::-1], t) for c in range(colors.max() + 1))
        out[t] = (total / makespan, 1.0 - total / (t * makespan))
    return out, int(colors.max()) + 1


def training_pairs(graph, seed=0):
    """The pairs an epoch visits: the edges and NEGATIVES uniform vertex pairs per edge (a fit draws
    non-edges; for the schedule's shape the difference is negligible on a sparse graph)."""
    edges = graph.edges().astype(np.int32)
    rng = np.random.default_rng(seed)
    neg = rng.integers(0, graph.n_nodes, size=(NEGATIVES * len(edges), 2), dtype=np.int32)
    neg = neg[neg[:, 0] != neg[:, 1]]
    return np.ascontiguousarray(np.concatenate([edges, neg]))


def _median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def breakdown(graphs, threads, repeats):
    """Table 3: the parts of an SGD epoch, each timed on its own through the public API and the solver
    (medians of ``repeats``), for both schedules and each thread count.

    * call: ``partial_fit(epochs=1)`` around the call; epoch: its ``history_`` ``seconds`` (the solver's
      ``run_epoch``: the ordering and the update pass); per-call overhead: the difference (validation
      of the graph, the record, the callbacks' hooks);
    * mean norm: the row norms the solver adds to a record without diagnostics (``row_sqnorms`` of
      ``_scoring`` on the epoch's threads; a serial ``np.einsum`` before issue 23's second round);
    * order: the uniform permutation alone (``_schedules.permutation``, hogwild; the kernel runs the
      buckets' Fisher-Yates fused with their updates, so this is an upper bound of its share), or
      the stratified order's block sort, which ``edge_epoch`` runs inside the epoch (deterministic:
      not separable through the API, "in epoch");
    * diagnostics: ``solver.diagnostics()`` (objective parts and Eq. 2 gradient norms), what every
      epoch of a ``diagnostics=True`` fit adds;
    * link prediction: ``LinkPredictionCallback.on_epoch_end`` (test AP on the split's 20 % and a
      20,000-pair train sample), BlogCatalog only;
    * barrier wait: the deterministic schedule's idle share, computed from its blocks (table 2).
    """
    from lgekit.callbacks import LinkPredictionCallback

    rows = []
    print(f"\n# where an SGD epoch goes (ms, medians of {repeats})")
    print(f"{'graph':<26} {'schedule':<13} {'T':>3} {'call':>8} {'epoch':>8} {'overhead':>8} {'mean norm':>9} "
          f"{'order':>8} {'diagnost.':>9} {'link pred':>9} {'barrier':>8}")
    for name, graph in graphs:
        split = None
        if name == "BlogCatalog":
            split = lgekit.split_edges(lgekit.datasets.load("blogcatalog"), test_fraction=0.2, seed=0)
            graph = split.train_graph
        pairs = training_pairs(graph)
        strat = stratified_model(pairs, graph.n_nodes, threads)[0]
        for schedule in ("hogwild", "deterministic"):
            for t in threads:
                model = lgekit.LogisticEmbedding(dim=D, lam_r=0.6, epochs=1, n_threads=t, schedule=schedule,
                                                 diagnostics=False, random_state=0).fit(graph)
                solver = model.solver_
                calls, epochs = [], []
                for _ in range(repeats):
                    start = time.perf_counter()
                    model.partial_fit(graph, epochs=1)
                    calls.append(time.perf_counter() - start)
                    epochs.append(model.history_[-1]["seconds"])
                emb = model.embedding_
                norms = _median_seconds(lambda: _scoring.row_sqnorms(emb, t), repeats)
                order = (_median_seconds(lambda: _schedules.permutation(solver.n_pairs, solver.seed, 3, t), repeats)
                         if schedule == "hogwild" else None)
                solver.diagnostics()                       # builds the incidence lists once
                diag = _median_seconds(solver.diagnostics, repeats)
                lp = None
                if split is not None:
                    cb = LinkPredictionCallback(split)
                    cb.on_train_begin(model)
                    lp = _median_seconds(lambda: cb.on_epoch_end(model, 0, {}), repeats)
                call, epoch = float(np.median(calls)), float(np.median(epochs))
                wait = strat[t][1] if schedule == "deterministic" else None
                row = {"graph": name, "schedule": schedule, "threads": t, "call": call, "epoch": epoch,
                       "overhead": call - epoch, "mean_norm": norms, "order": order, "diagnostics": diag,
                       "link_prediction": lp, "barrier_wait_share": wait}
                rows.append(row)

                def ms(v, missing="-"):
                    return f"{1e3 * v:8.1f}" if v is not None else f"{missing:>8}"
                print(f"{name:<26} {schedule:<13} {t:>3} {ms(call)} {ms(epoch)} {ms(call - epoch)} {ms(norms):>9} "
                      f"{ms(order, 'in epoch')} {ms(diag):>9} {ms(lp):>9} {'-' if wait is None else f'{wait:.1%}':>8}",
                      flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", help="thread counts (default: 1, 2, 4, ... the machine's)")
    parser.add_argument("--repeats", type=int, default=7, help="timed epochs per configuration (default 7, 3 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a 100,000-node Chung-Lu graph and 3 repeats")
    parser.add_argument("--skip-measure", action="store_true", help="only the computed model (table 2)")
    parser.add_argument("--graphs", nargs="+", choices=("blogcatalog", "chung-lu"), default=["blogcatalog", "chung-lu"])
    parser.add_argument("--nodes", type=int, help="Chung-Lu nodes (default 500,000; 100,000 with --quick)")
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS), help="measured rows (default all)")
    parser.add_argument("--skip-model", action="store_true", help="no computed model (table 2)")
    parser.add_argument("--breakdown", action="store_true",
                        help="table 3: where an SGD epoch goes, per thread count (instead of table 1)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.repeats < 1 or (args.threads and min(args.threads) < 1):
        parser.error("--repeats and --threads must be at least 1")
    threads = thread_counts(args.threads)
    repeats = 3 if args.quick else args.repeats
    nodes = args.nodes or (100_000 if args.quick else 500_000)
    graphs = [load_blogcatalog() if g == "blogcatalog" else chung_lu(nodes) for g in args.graphs]
    print(f"# lgekit {lgekit.__version__}, {max_threads()} OpenMP threads available; thread counts {threads}; "
          f"median of {repeats} epochs")
    results = {"threads": threads, "measured": [], "model": []}
    if args.breakdown:
        results["breakdown"] = breakdown(graphs, threads, repeats)
    elif not args.skip_measure:
        print(f"\n{'graph':<26} {'solver':<4} {'schedule':<13} " + " ".join(f"{t:>17}" for t in threads))
        for name, graph in graphs:
            samples = graph.n_edges
            for (kind, schedule), factory in models(threads).items():
                if f"{kind}-{schedule}".lower() not in args.rows:
                    continue
                timed = time_epochs(graph, factory, threads, repeats)
                cells = []
                for t in threads:
                    seconds, speedup = timed[t]
                    cells.append(f"{samples / seconds / 1e6:6.2f} M/s {speedup:5.2f}x")
                    results["measured"].append({"graph": name, "solver": kind, "schedule": schedule, "threads": t,
                                                "seconds": seconds, "samples_per_s": samples / seconds,
                                                "speedup": speedup})
                print(f"{name:<26} {kind:<4} {schedule:<13} " + " ".join(f"{c:>17}" for c in cells), flush=True)
    if args.skip_model:
        graphs = []
    if graphs:
        model_threads = sorted(set(threads) | {2, 4, 8, 16, 32})
        print(f"\n# computed from the schedules (no timing): ideal speed-up / barrier-wait share, hogwild shared-row "
              f"share (W={HOGWILD_WINDOW})")
        print(f"{'graph':<26} {'model':<34} " + " ".join(f"{t:>13}" for t in model_threads))
        for name, graph in graphs:
            pairs = training_pairs(graph)
            strat, n_blocks, n_rounds = stratified_model(pairs, graph.n_nodes, model_threads)
            label = f"SGD deterministic ({n_blocks} blocks/{n_rounds} rounds)"
            print(f"{name:<26} {label:<34} " + " ".join(f"{s:5.2f}x/{w:5.1%}" for s, w in strat.values()))
            shared = hogwild_shared_rows(pairs, graph.n_nodes, model_threads)
            print(f"{name:<26} {'SGD hogwild: updates on shared rows':<34} " + " ".join(f"{v:13.2%}" for v in shared.values()))
            colour, n_colours = coloring_model(pairs, graph.n_nodes, model_threads)
            label = f"DCD deterministic ({n_colours} colours)"
            print(f"{name:<26} {label:<34} " + " ".join(f"{s:5.2f}x/{w:5.1%}" for s, w in colour.values()))
            results["model"].append({"graph": name, "threads": model_threads,
                                     "sgd_deterministic": {str(t): v for t, v in strat.items()},
                                     "sgd_hogwild_shared": {str(t): v for t, v in shared.items()},
                                     "dcd_deterministic": {str(t): v for t, v in colour.items()}})
    if args.json:
        with open(args.json, "w") as out:       # plain open: the script also runs against older lgekit trees
            json.dump(results, out, indent=2)


if __name__ == "__main__":
    main()
