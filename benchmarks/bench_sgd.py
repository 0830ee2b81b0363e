"""Throughput of the LogisticEmbedding SGD kernel (edge order), with baselines in the same run.

Unit: samples/s, one sample = one positive pair and its 4 negatives, gradients applied to both
ends (the unit of LINE and word2vec).  One edge-order epoch on BlogCatalog's 80 % training split
is 267,186 samples = 1,335,930 pair updates.

Rows (medians of ``--repeats`` runs after one warm-up; the five kernel configurations are timed
interleaved, round by round, ``--kernel-rounds`` rounds, and their speed-ups are medians of
per-round ratios, because the machine's speed drifts by tens of percent over minutes; the
1-thread rows also give the fastest round):

* ``kernel, 1 thread``: the update pass alone (``model.solver_.run_epoch``, i.e. ``_sgd.edge_epoch``:
  the epoch's ordering and the updates), D=100, float32, for both schedules: ``hogwild`` visits the pairs in a uniformly random
  order (the default, the paper's SGD), ``deterministic`` in the stratified order whose rounds of
  vertex-disjoint, L2-sized blocks make it reproducible on any number of threads.
* ``kernel, 2 threads``: the same on two threads; speed-ups against the same schedule on one
  thread (and, for deterministic, against the default's one thread).
* ``2 x 1 thread, no sharing``: what two threads gain on this machine, at this moment, when
  they share nothing: two default 1-thread epochs run at once, in two Python threads (the kernel
  releases the GIL), on two separate models; its speed-up is the work of two epochs over the
  time of one 1-thread epoch.  Hogwild's threads instead write the same rows, and each such row
  moves from one core's cache to the other's (a cache line took 45-50 ns between the two
  virtual CPUs in some runs here and 135-250 ns in others, presumably as the host placed them on
  one die or on two), while this row holds two embeddings and two pair lists in the shared cache
  instead of one.  So neither bounds the other; side by side they separate the machine's share
  of a shortfall from the code's.
* ``full epoch``: ``partial_fit(epochs=1)``, i.e. the update pass plus the per-epoch
  diagnostics (objective, norms, Eq. 4 gradient norms); ``diagnostics=False``: the same
  without them.
* ``epoch, norms x30``: ``partial_fit(epochs=1)`` (diagnostics on, lam_r=0) from a trained
  embedding multiplied by 30, interleaved with epochs from the embedding itself: saturated scores
  cost no more than ordinary ones (subnormals are flushed to zero in the kernels).
* ``numpy (levels)``: a vectorised NumPy implementation of the SAME epoch as the default
  kernel: the shuffled sequence is cut into conflict-free levels (a pair's level is one more
  than the highest level of the earlier pairs sharing a vertex with it) and each level is one
  vectorised update, which is exactly the sequential epoch; its result is checked against the
  kernel's.
* ``gensim``: Word2Vec skip-gram, negative=4, window=1, over the training edges as two-word
  sentences (one epoch; each sentence yields two (word, context) samples), if gensim imports.
* ``quality`` (not with --quick): 50-epoch fits on the split with both schedules, lam_r = 0.6
  and 0: best and final test AP and whether the mean norm rises in every epoch after the first
  (the paper's Figure 2), so that the orders' statistical effect is measured in the same run.
* ``chung-lu``: a fit on the Chung-Lu stand-in of the paper's YouTube graph
  (``chung_lu_graph(youtube_like_degrees(), seed=0)``: 500,000 nodes, ~3.3M edges), in a subprocess
  that reports its peak RSS: the preparation (``fit`` with ``epochs=0``: negative sampling, pair
  records, counts, initialisation, the diagnostics' incidence lists), one epoch with diagnostics,
  then one without (the update pass).  Preparation is compared with the update pass, and the fit's
  extra peak memory (peak RSS minus the RSS once the graph is built) with what the issue allows:
  1.5 x (the embedding + 12 bytes per training pair).  ``--chung-lu`` runs only this section.

Usage::

    python benchmarks/bench_sgd.py               # BlogCatalog if found, else the synthetic stand-in
    python benchmarks/bench_sgd.py --quick       # fewer repeats, no Chung-Lu
    python benchmarks/bench_sgd.py --chung-lu    # only the Chung-Lu preparation / memory rows
    python benchmarks/bench_sgd.py --json out.json

The machine is shared and timings are noisy: compare rows of one run, not runs.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import lgekit
from lgekit._openmp import max_threads
from lgekit._simd import load_kernel

_sgd = load_kernel("lgekit.models._sgd")  # the build the models run (AVX2+FMA when the CPU has it)

D = 100


def load_split():
    try:
        g = lgekit.datasets.load("blogcatalog")
    except Exception as exc:  # noqa: BLE001 - any failure: fall back to the embedded stand-in
        print(f"# blogcatalog not available ({exc}); using synthetic-blogcatalog", file=sys.stderr)
        g = lgekit.datasets.load("synthetic-blogcatalog")
    return lgekit.split_edges(g, test_fraction=0.2, seed=0)


def prepared_model(split, n_threads, schedule, dtype="float32"):
    """A model whose solver is built (``fit`` with no epoch)."""
    return lgekit.LogisticEmbedding(dim=D, lam_r=0.6, epochs=0, dtype=dtype, n_threads=n_threads,
                                    schedule=schedule, random_state=0).fit(split)


def update_pass(m, epoch):
    """Model ``m``'s update pass of ``epoch`` (its solver's epoch: fixed negatives, so the kernel alone);
    returns the solver's status (0: OK)."""
    return int(m.solver_.run_epoch(epoch))


def kernel_epoch(m, epoch):
    """One update pass of model ``m``'s kernel; returns (wall seconds, CPU seconds of all threads)."""
    t0, c0 = time.perf_counter(), time.process_time()
    flag = update_pass(m, epoch)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    assert flag == 0
    return dt, dc


def independent_epochs(pair, epoch, pool):
    """One 1-thread update pass of each of the two models in ``pair`` at the same time, in the two
    threads of ``pool``; returns (wall seconds, CPU seconds) for both."""
    t0, c0 = time.perf_counter(), time.process_time()
    futures = [pool.submit(update_pass, m, epoch) for m in pair]
    flags = [f.result() for f in futures]
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    assert flags == [0, 0]
    return dt, dc


def time_kernels(models, repeats):
    """Interleaved timing: each round runs every configuration once (in a rotating order), so that a
    slow phase of a shared machine hits all of them alike.  Returns {name: (wall times, CPU times)}
    with one entry per round; ratios are then taken round by round."""
    names = list(models)
    out = {name: ([], []) for name in names}
    with ThreadPoolExecutor(max_workers=2) as pool:
        def run(name, epoch):
            m = models[name]
            return independent_epochs(m, epoch, pool) if isinstance(m, tuple) else kernel_epoch(m, epoch)
        for name in names:  # warm-up
            run(name, 0)
        for r in range(repeats):
            for j in range(len(names)):
                name = names[(r + j) % len(names)]
                dt, dc = run(name, r + 1)
                out[name][0].append(dt)
                out[name][1].append(dc)
    return out


def median_ratio(a, b):
    """Median over rounds of a[i] / b[i]."""
    return float(np.median(np.asarray(a) / np.asarray(b)))


def time_full_epoch(split, repeats, diagnostics=True):
    m = lgekit.LogisticEmbedding(dim=D, lam_r=0.6, epochs=1, random_state=0, diagnostics=diagnostics).fit(split)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        m.partial_fit(split, epochs=1)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


class _NoDivergenceChecks(lgekit.LogisticEmbedding):
    """The x30 embedding is a deliberately blown-up state, which the objective check rightly calls
    divergence: switched off where only the epoch's cost is measured."""
    divergence_objective_factor = None
    divergence_norm_growth = None
    divergence_norm_growth_alone = None


def time_blown_up_epoch(split, repeats, scale=30.0):
    """Median epoch of ``partial_fit(epochs=1)`` (diagnostics on) from a trained embedding and from the
    same embedding times ``scale``, interleaved; returns (fresh seconds, blown-up seconds, median ratio).

    x30 makes every score saturate, as in Figure 4's D=300, lam_r=0 cell late in training: subnormal
    arithmetic made such epochs 17-27x slower before the kernels flushed subnormals to zero."""
    m = _NoDivergenceChecks(dim=D, lam_r=0.0, epochs=1, random_state=0).fit(split)
    fresh = m.embedding_.copy()
    times = {"fresh": [], "blown": []}
    for _ in range(repeats):
        for name, emb in (("fresh", fresh), ("blown", fresh * scale)):
            m.embedding_[:] = emb
            t0 = time.perf_counter()
            m.partial_fit(split, epochs=1)
            times[name].append(time.perf_counter() - t0)
    return (float(np.median(times["fresh"])), float(np.median(times["blown"])),
            median_ratio(times["blown"], times["fresh"]))


def numpy_epoch(X, solver, epoch):
    """The default kernel's epoch, vectorised per conflict-free level (exact sequential semantics), in
    the visiting order the solver reports.  Returns the number of levels."""
    n, lr, rfac = X.shape[0], solver.learning_rate(epoch), solver.regulariser_factors
    seq = solver.records[solver.epoch_order(epoch).order]
    u, v, c = seq["u"].astype(np.int64), seq["v"].astype(np.int64), seq["c"]
    # levels: 1 + max level of the earlier pairs touching u or v (a Python loop would dominate;
    # this one is the only sequential part and is done with plain ints)
    lvl = np.empty(len(seq), np.int64)
    uu, vv = u.tolist(), v.tolist()
    lst = [0] * n
    for k in range(len(seq)):
        a, b = uu[k], vv[k]
        l = (lst[a] if lst[a] > lst[b] else lst[b]) + 1
        lst[a] = lst[b] = l
        lvl[k] = l
    idx = np.argsort(lvl, kind="stable")
    bounds = np.searchsorted(lvl[idx], np.arange(1, lvl.max() + 2))
    dt = X.dtype.type
    for a, b in zip(bounds[:-1], bounds[1:]):
        sel = idx[a:b]
        pu, pv, pc = u[sel], v[sel], c[sel]
        xu, xv = X[pu], X[pv]
        s = np.einsum("ij,ij->i", xu, xv, dtype=np.float64)
        sig = np.where(pc > 0, 1 / (1 + np.exp(s)), 1 / (1 + np.exp(-s)))
        g = -pc * sig
        k = (-lr * g).astype(dt)[:, None]
        au = (1.0 - lr * rfac[pu]).astype(dt)[:, None]
        av = (1.0 - lr * rfac[pv]).astype(dt)[:, None]
        X[pu] = au * xu + k * xv
        X[pv] = av * xv + k * xu
    return int(lvl.max())


def time_numpy(split, repeats):
    """Median NumPy epoch time, the median per-round ratio to the default kernel's epoch timed right
    before it (same start, same epoch), the largest difference between the two, and the levels."""
    m = prepared_model(split, 1, "hogwild")
    times, ratios = [], []
    start = m.embedding_.copy()
    err = 0.0
    for r in range(repeats):
        m.embedding_[...] = start
        t_kernel = kernel_epoch(m, r)[0]
        X = start.copy()
        t0 = time.perf_counter()
        levels = numpy_epoch(X, m.solver_, r)
        times.append(time.perf_counter() - t0)
        ratios.append(times[-1] / t_kernel)
        # the kernel's epoch from the same start gives the same result (float32 rounding only)
        err = max(err, float(np.abs(m.embedding_ - X).max()))
    return float(np.median(times)), float(np.median(ratios)), err, levels


def quality(split, schedule, lam_r, epochs=50):
    from lgekit.callbacks import LinkPredictionCallback
    m = lgekit.LogisticEmbedding(dim=D, lam_r=lam_r, epochs=epochs, random_state=0, schedule=schedule)
    m.fit(split, callbacks=[LinkPredictionCallback(split, train=False)])
    ap = np.array([r["test_ap"] for r in m.history_])
    norms = np.array([r["mean_norm"] for r in m.history_])
    return {"schedule": schedule, "lam_r": lam_r, "best_test_ap": float(ap.max()), "best_epoch": int(ap.argmax()),
            "final_test_ap": float(ap[-1]), "norm_first": float(norms[0]), "norm_final": float(norms[-1]),
            "norm_rises_every_epoch": bool(np.all(np.diff(norms)[1:] > 0))}


def time_gensim(split, workers):
    try:
        from gensim.models import Word2Vec
    except ImportError:
        return None
    sentences = [[str(a), str(b)] for a, b in split.train_positives.tolist()]
    kw = dict(vector_size=D, window=1, sg=1, hs=0, negative=4, min_count=0, sample=0, workers=workers, seed=0)
    model = Word2Vec(**kw)
    model.build_vocab(sentences)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        model.train(sentences, total_examples=len(sentences), epochs=1)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


CHUNG_LU_CHILD = r"""
import json, resource, sys, time
import lgekit
from lgekit.datasets import chung_lu_graph, youtube_like_degrees

def status_mb(field):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith(field + ":"))

def peak_mb():
    # the peak since the reset below (VmHWM), else the process's lifetime peak
    try:
        return status_mb("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

t0 = time.perf_counter()
g = chung_lu_graph(youtube_like_degrees(), seed=0)
t_graph = time.perf_counter() - t0
# generating the graph peaked above what it keeps: reset the high-water mark (Linux: "5" to clear_refs), so
# that the fit's peak is measured from the memory the graph holds, not from the generator's transient peak
try:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    reset = True
except OSError:
    reset = False
rss_graph = status_mb("VmRSS") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
model = lgekit.LogisticEmbedding(dim=100, lam_r=0.6, epochs=0, random_state=0, n_threads=int(sys.argv[1]),
                                 schedule=sys.argv[2])
t0 = time.perf_counter()
model.fit(g)                                                   # the preparation alone
t_prepare = time.perf_counter() - t0
rss_prepare = peak_mb()
model.partial_fit(g, epochs=1)                                 # one epoch with diagnostics
rss_fit = peak_mb()
model.set_params(diagnostics=False).partial_fit(g, epochs=1)   # the update pass alone
solver = model.solver_
print(json.dumps({"n_nodes": g.n_nodes, "n_edges": g.n_edges, "n_pairs": solver.n_pairs,
                  "graph_seconds": t_graph, "prepare_seconds": t_prepare,
                  "epoch_seconds": model.history_[0]["seconds"], "update_seconds": model.history_[1]["seconds"],
                  "embedding_mb": model.embedding_.nbytes / 2**20,
                  "rss_after_graph_mb": rss_graph, "peak_rss_prepare_mb": rss_prepare,
                  "peak_rss_mb": rss_fit, "peak_rss_all_mb": peak_mb(), "peak_reset": reset}))
"""


def chung_lu(n_threads, schedule):
    out = subprocess.run([sys.executable, "-c", CHUNG_LU_CHILD, str(n_threads), schedule], capture_output=True,
                         text=True, check=True, env=os.environ.copy())
    return json.loads(out.stdout.strip().splitlines()[-1])


def chung_lu_rows(configs):
    """The Chung-Lu rows: per (threads, schedule), the epoch, the update pass, the preparation against
    the update pass, and the fit's extra peak memory against 1.5 x (embedding + 12 bytes a pair)."""
    result = {}
    for nt, sched in configs:
        cl = chung_lu(nt, sched)
        result[f"chung_lu_{nt}_{sched}"] = cl
        need = cl["embedding_mb"] + 12 * cl["n_pairs"] / 2**20
        extra = cl["peak_rss_mb"] - cl["rss_after_graph_mb"]
        print(f"chung-lu {cl['n_nodes']:,} nodes / {cl['n_edges']:,} edges, {nt} thread(s) {sched}: "
              f"epoch {cl['epoch_seconds']:.2f} s incl. diagnostics, update pass {cl['update_seconds']:.2f} s "
              f"({cl['n_edges'] / cl['update_seconds'] / 1e6:.2f} M samples/s), graph {cl['graph_seconds']:.1f} s",
              flush=True)
        print(f"  preparation {cl['prepare_seconds']:.2f} s = {cl['prepare_seconds'] / cl['update_seconds']:.2f} x "
              f"the update pass (target <= 1); fit's extra peak RSS {extra:.0f} MB = {extra / need:.2f} x "
              f"(embedding {cl['embedding_mb']:.0f} MB + 12 B x {cl['n_pairs']:,} pairs = {need:.0f} MB; target "
              f"<= 1.5), of which preparation {cl['peak_rss_prepare_mb'] - cl['rss_after_graph_mb']:.0f} MB; peak "
              f"RSS {cl['peak_rss_mb']:.0f} MB (RSS with the graph {cl['rss_after_graph_mb']:.0f} MB"
              f"{'' if cl['peak_reset'] else ', its peak: the fit reused memory the generator freed'})", flush=True)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--kernel-rounds", type=int, default=None,
                        help="interleaved rounds of the five kernel configurations (cheap: about 0.4 s each; "
                             "default 30, 10 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="3 repeats, 10 kernel rounds unless --kernel-rounds says otherwise, skip Chung-Lu")
    parser.add_argument("--chung-lu", action="store_true",
                        help="only the Chung-Lu rows (preparation time and peak memory of a fit)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    if args.chung_lu:
        result = chung_lu_rows(((1, "hogwild"), (1, "deterministic"), (2, "hogwild")))
        if args.json:
            from lgekit._atomic import atomic_write_text
            atomic_write_text(args.json, json.dumps(result, indent=2))
        return
    repeats = 3 if args.quick else args.repeats
    rounds = args.kernel_rounds if args.kernel_rounds is not None else (10 if args.quick else 30)
    if rounds < 1:
        parser.error(f"--kernel-rounds must be at least 1, got {rounds}")

    split = load_split()
    n_samples = len(split.train_positives)
    n_updates = n_samples + len(split.train_negatives)
    print(f"# graph: {split.graph}, training samples per epoch: {n_samples:,} ({n_updates:,} pair updates), "
          f"D={D}, float32, OpenMP max threads {max_threads()}, kernel build: {_sgd.__name__}")
    rows = []

    def row(name, seconds, note=""):
        rows.append({"name": name, "seconds": seconds, "samples_per_s": n_samples / seconds, "note": note})
        print(f"{name:<28} {seconds * 1e3:9.1f} ms   {n_samples / seconds / 1e6:7.2f} M samples/s  {note}",
              flush=True)

    models = {(1, "hogwild"): prepared_model(split, 1, "hogwild"),
              (1, "deterministic"): prepared_model(split, 1, "deterministic"),
              (2, "hogwild"): prepared_model(split, 2, "hogwild"),
              (2, "deterministic"): prepared_model(split, 2, "deterministic"),
              "independent": (prepared_model(split, 1, "hogwild"), prepared_model(split, 1, "hogwild"))}
    groups = models[1, "deterministic"].solver_.n_groups
    timed = time_kernels(models, rounds)
    independent = 2 * median_ratio(timed[1, "hogwild"][0], timed["independent"][0])
    best = {k: float(np.min(v[0])) for k, v in timed.items()}
    wall = {k: float(np.median(v[0])) for k, v in timed.items()}
    cpu = {k: float(np.median(v[1])) for k, v in timed.items()}
    t1 = wall[1, "hogwild"]
    row("kernel, 1 thread, hogwild", t1, f"uniform order (default); fastest round {best[1, 'hogwild'] * 1e3:.1f} ms; "
        f"CPU time {cpu[1, 'hogwild'] * 1e3:.1f} ms "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    row("kernel, 1 thread, determ.", wall[1, "deterministic"],
        f"stratified order, K={groups} groups; fastest round {best[1, 'deterministic'] * 1e3:.1f} ms; "
        f"{median_ratio(timed[1, 'hogwild'][0], timed[1, 'deterministic'][0]):.2f}x the default")
    row("kernel, 2 threads hogwild", wall[2, "hogwild"],
        f"speed-up {median_ratio(timed[1, 'hogwild'][0], timed[2, 'hogwild'][0]):.2f}x, "
        f"CPU time {cpu[2, 'hogwild'] * 1e3:.1f} ms")
    row("kernel, 2 threads determ.", wall[2, "deterministic"],
        f"speed-up {median_ratio(timed[1, 'deterministic'][0], timed[2, 'deterministic'][0]):.2f}x over its "
        f"1 thread ({median_ratio(timed[1, 'hogwild'][0], timed[2, 'deterministic'][0]):.2f}x over the default's), "
        f"CPU time {cpu[2, 'deterministic'] * 1e3:.1f} ms")
    row("2 x 1 thread, no sharing", wall["independent"] / 2,
        f"two default epochs at once on separate models: speed-up {independent:.2f}x (hogwild's 2-thread "
        f"speed-up is {median_ratio(timed[1, 'hogwild'][0], timed[2, 'hogwild'][0]) / independent:.2f}x this)")
    tf = time_full_epoch(split, max(3, repeats // 2))
    row("full epoch (+diagnostics)", tf, "1 thread")
    tn = time_full_epoch(split, max(3, repeats // 2), diagnostics=False)
    row("full epoch, diagnostics=False", tn, f"1 thread; diagnostics cost {(tf - tn) * 1e3:.0f} ms per epoch")
    fresh, blown, blow_ratio = time_blown_up_epoch(split, max(3, repeats // 2))
    row("epoch, norms x30 (+diag.)", blown, f"1 thread; {blow_ratio:.2f}x the same model's epoch at its trained "
        f"norms ({fresh * 1e3:.0f} ms): the cost does not depend on the values")
    tn, ratio, err, levels = time_numpy(split, 3 if args.quick else 5)
    row("numpy (levels), 1 thread", tn, f"default kernel is {ratio:.0f}x faster (per-round ratio); {levels:,} "
        f"levels; max |diff| {err:.1e}")
    for workers in (1, 2):
        tg = time_gensim(split, workers)
        if tg is None:
            print("gensim                       not installed (pip install gensim to compare)")
            break
        row(f"gensim word2vec, {workers} worker{'s' if workers > 1 else ''}", tg,
            "skip-gram, negative=4, window=1, edges as sentences")
    result = {"rows": rows, "n_samples": n_samples, "levels": levels, "groups": groups,
              "kernel_rounds": {k if isinstance(k, str) else f"{k[0]} {k[1]}": v[0] for k, v in timed.items()}}
    if not args.quick:
        result["quality"] = []
        for lam_r in (0.6, 0.0):
            for sched in ("hogwild", "deterministic"):
                q = quality(split, sched, lam_r)
                result["quality"].append(q)
                print(f"quality {sched:<13} lam_r={lam_r}: best test AP {q['best_test_ap']:.4f} (epoch "
                      f"{q['best_epoch']}), final {q['final_test_ap']:.4f}; mean norm {q['norm_first']:.2f} -> "
                      f"{q['norm_final']:.2f}, rises every epoch: {q['norm_rises_every_epoch']}", flush=True)
        result.update(chung_lu_rows(((1, "hogwild"), (1, "deterministic"), (2, "hogwild"), (2, "deterministic"))))
    if args.json:
        from lgekit._atomic import atomic_write_text
        atomic_write_text(args.json, json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
