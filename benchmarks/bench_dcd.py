"""Speed of the DCD hinge embedding on BlogCatalog, against the SGD logistic epoch (issue 4).

Targets (D = 100, float32, inner_passes = 1):

* one DCD epoch takes at most 1.5x one SGD edge-order epoch (LogisticEmbedding,
  order="edge", one thread), measured in the same process;
* two threads (schedule="hogwild") are at least 1.8x faster than one.

D = 1600 (the paper's largest dimension) is reported too.  Throughput is in
the SGD benchmark's unit: one sample = one training positive pair together
with its 4 negatives, i.e. samples/s = (training edges) / (epoch seconds).

Two timings per configuration:

* "epoch": the history's ``seconds`` of an epoch as ``fit`` runs it, i.e. the
  update and the per-epoch diagnostics each model records (DCD: objective,
  duality gaps, KKT violation, dual counts; SGD: objective and Eq. 4
  gradient norms);
* "update": the update alone (DCD: the kernel with its certificates turned
  off; SGD: the epoch minus a separately timed diagnostics call).

Configurations run interleaved, one epoch each per round, after one untimed
warm-up epoch, so that load from other processes hits all of them alike;
medians over ``--repeats`` rounds are reported with min and max.

With ``--breakdown`` (issue 46, item 2) it times instead where a DCD epoch goes, as the kernel alone on
copies of one state (BlogCatalog, D = 100, float32, one thread, CPU time, ``--repeats`` alternating
rounds, medians, each against an SGD epoch of the same round), after ``--after`` epochs of a default
fit (the safeguard's further passes grow as a fit goes on):

* Algorithm 1 as printed (``monotone=False``), no certificates: the rebuild of w and the pass;
* the same with every vertex certified (one more dot product a pair occurrence);
* the safeguard with no further passes (P(w) and P(x_u) at every visit, one read of the partners);
* the default safeguard (up to ``MONOTONE_PASSES`` further passes at visits that went uphill).

With ``--ab-kernel OTHER.so`` it times another build of the DCD kernel (a ``_dcd*.so`` copied from another
tree, loaded beside this tree's under another package name) against this tree's, on copies of one state
(BlogCatalog after ``--after`` default epochs, the default safeguard, every vertex certified as the
solver then did), alternating in one process, and says whether both gave the same bits.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_dcd.py [--repeats 5] [--dims 100,1600]
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_dcd.py --breakdown [--after 3 12] [--repeats 7]
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_dcd.py --ab-kernel /tmp/old/_dcd_avx2.*.so --after 3
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding, datasets, split_edges
from lgekit._simd import load_kernel
from lgekit.models._dcd_solver import MONOTONE_PASSES

_dcd = load_kernel("lgekit.models._dcd")  # the build the models run (AVX2+FMA when the CPU has it)


def dcd_update_seconds(model, epoch):
    """Time the DCD kernel alone (no certificates) on a copy of the model's state, in the visiting order
    and with the coordinate seed its solver uses at ``epoch``."""
    solver = model.solver_
    X = model.embedding_.copy()
    alpha = np.array(solver.dual_coef)
    csr = solver.pair_csr
    order = solver.epoch_order(epoch)
    sq = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    kept = np.zeros(len(X), np.int8)
    # the solver's inner order and monotone safeguard, as run_epoch passes them
    monotone_passes = MONOTONE_PASSES if solver.monotone else -1
    t0 = time.perf_counter()
    _dcd_epoch(_dcd, X, sq, csr, alpha, order, solver, solver.coordinate_seed(epoch), solver.n_threads, monotone_passes,
               kept, None)
    return time.perf_counter() - t0


def _dcd_epoch(kernel, X, sq, csr, alpha, order, solver, seed, n_threads, monotone_passes, kept, certificates):
    """``kernel.dcd_epoch`` with the solver's rule; ``certificates``: None or (gap, viol), every vertex.  A build
    from before issue 45 (no ``VisitRule``) takes the CSR's arrays and the rule one by one."""
    shuffle = solver.inner_order == "random"
    if hasattr(kernel, "VisitRule"):
        rule = kernel.VisitRule(solver.inner_passes, solver.tol, shuffle, monotone_passes)
        return kernel.dcd_epoch(X, sq, csr, alpha, order.order, order.block_ptr, rule, seed, n_threads, kept,
                                None if certificates is None else kernel.Certificates(*certificates))
    gap, viol = certificates if certificates is not None else (np.zeros(1), np.zeros(1))
    return kernel.dcd_epoch(X, sq, csr.indptr, csr.nbr, csr.sign, csr.upper, alpha, order.order, order.block_ptr,
                            solver.inner_passes, solver.tol, seed, n_threads, certificates is not None, gap, viol,
                            shuffle, monotone_passes, kept)


def sgd_update_seconds(model):
    """SGD epoch minus its diagnostics (timed separately on the current embedding)."""
    t0 = time.perf_counter()
    model.solver_.diagnostics()
    return model.history_[-1]["seconds"] - (time.perf_counter() - t0)


#: the breakdown's variants of the kernel: (certify every vertex, monotone_passes)
VARIANTS = {"Algorithm 1, no certificates": (False, -1), "Algorithm 1, certificates": (True, -1),
            "safeguard, no further passes": (False, 0), f"safeguard (default, <= {MONOTONE_PASSES} further)":
            (False, MONOTONE_PASSES)}


def breakdown(split, after, repeats):
    """Print the kernel's epoch in each VARIANTS row against an SGD epoch, after ``after`` default epochs."""
    sgd = LogisticEmbedding(dim=100, epochs=1, random_state=0, n_threads=1, diagnostics=False).fit(split)
    for epochs in after:
        model = HingeEmbedding(dim=100, epochs=epochs, random_state=0, n_threads=1, diagnostics=False).fit(split)
        solver, csr = model.solver_, model.solver_.pair_csr
        order = solver.epoch_order(epochs)
        n = len(model.embedding_)
        times = {k: [] for k in ("SGD epoch", *VARIANTS)}
        for r in range(repeats):
            t0 = time.process_time()
            sgd.partial_fit(split, epochs=1)
            times["SGD epoch"].append(time.process_time() - t0)
            for name in (VARIANTS if r % 2 == 0 else list(VARIANTS)[::-1]):
                certify, monotone_passes = VARIANTS[name]
                X, alpha = model.embedding_.copy(), np.array(solver.dual_coef)
                sq = np.einsum("ij,ij->i", X, X, dtype=np.float64)
                gap, viol, kept = np.zeros(n), np.zeros(n), np.zeros(n, np.int8)
                t0 = time.process_time()
                _dcd_epoch(_dcd, X, sq, csr, alpha, order, solver, solver.coordinate_seed(epochs), 1, monotone_passes,
                           kept, (gap, viol) if certify else None)
                times[name].append(time.process_time() - t0)
        base = statistics.median(times["SGD epoch"])
        print(f"\nafter {epochs} default epochs ({repeats} alternating rounds, CPU time, medians)\n")
        print("| kernel | epoch (ms) | / SGD epoch |")
        print("|---|---|---|")
        for name, v in times.items():
            print(f"| {name} | {1e3 * statistics.median(v):.1f} | {statistics.median(v) / base:.2f}x |")


def ab_kernel(split, path, after, repeats):
    """Print this tree's DCD kernel against the build at ``path`` (B/A per round, medians, same bits?)."""
    spec = importlib.util.spec_from_file_location("other." + Path(path).name.split(".")[0], path)
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    model = HingeEmbedding(dim=100, epochs=after, random_state=0, n_threads=1, diagnostics=False).fit(split)
    solver, csr = model.solver_, model.solver_.pair_csr
    order, n = solver.epoch_order(after), len(model.embedding_)
    times, out = {"A": [], "B": []}, {}
    for r in range(repeats):
        for name in ("AB" if r % 2 == 0 else "BA"):
            kernel = other if name == "A" else _dcd
            X, alpha = model.embedding_.copy(), np.array(solver.dual_coef)
            sq = np.einsum("ij,ij->i", X, X, dtype=np.float64)
            gap, viol, kept = np.zeros(n), np.zeros(n), np.zeros(n, np.int8)
            t0 = time.process_time()
            _dcd_epoch(kernel, X, sq, csr, alpha, order, solver, solver.coordinate_seed(after), 1, MONOTONE_PASSES, kept,
                       (gap, viol))
            times[name].append(time.process_time() - t0)
            out[name] = (X, alpha)
    same = all(np.array_equal(a, b) for a, b in zip(out["A"], out["B"]))
    ratios = [b / a for a, b in zip(times["A"], times["B"])]
    print(f"A ({path}): {1e3 * statistics.median(times['A']):.1f} ms, B (this tree): "
          f"{1e3 * statistics.median(times['B']):.1f} ms; B/A per round {' '.join(f'{x:.3f}' for x in ratios)}, "
          f"median {statistics.median(ratios):.3f}; the same X and duals: {same}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (default 5; medians reported)")
    parser.add_argument("--dims", default="100,1600", help="comma-separated dimensions (default 100,1600)")
    parser.add_argument("--dataset", default="blogcatalog")
    parser.add_argument("--breakdown", action="store_true", help="where a DCD epoch goes (see the docstring)")
    parser.add_argument("--after", type=int, nargs="+", default=[3, 12], help="the breakdown's training stages")
    parser.add_argument("--ab-kernel", default=None, help="another build's _dcd .so to time against this tree's")
    args = parser.parse_args(argv)
    dims = [int(d) for d in args.dims.split(",")]

    graph = datasets.load(args.dataset, download=False)
    split = split_edges(graph, seed=0)
    if args.ab_kernel:
        ab_kernel(split, args.ab_kernel, args.after[0], args.repeats)
        return 0
    if args.breakdown:
        print(f"lgekit {lgekit.__version__}: {graph!r}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        breakdown(split, args.after, args.repeats)
        return 0
    n_samples = len(split.train_positives)
    print(f"lgekit {lgekit.__version__}: {graph!r}; {n_samples:,} training edges, "
          f"{len(split.train_negatives):,} negatives; {args.repeats} rounds; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (timings are only comparable "
          "within one run when the machine is shared)")

    failed = False
    for dim in dims:
        reps = args.repeats if dim <= 300 else max(2, args.repeats // 2)
        configs = {
            "SGD logistic, edge order, 1 thread": LogisticEmbedding(dim=dim, lam_r=1.0, epochs=1, random_state=0),
            "DCD hinge ip=1, hogwild, 1 thread": HingeEmbedding(dim=dim, epochs=1, schedule="hogwild",
                                                                n_threads=1, random_state=0),
            "DCD hinge ip=1, hogwild, 2 threads": HingeEmbedding(dim=dim, epochs=1, schedule="hogwild",
                                                                 n_threads=2, random_state=0),
            "DCD hinge ip=1, deterministic, 1 thread": HingeEmbedding(dim=dim, epochs=1, n_threads=1,
                                                                      random_state=0),
            "DCD hinge ip=1, deterministic, 2 threads": HingeEmbedding(dim=dim, epochs=1, n_threads=2,
                                                                       random_state=0),
        }
        if dim <= 300:
            configs["DCD hinge ip=3, hogwild, 1 thread"] = HingeEmbedding(dim=dim, epochs=1, inner_passes=3,
                                                                          schedule="hogwild", random_state=0)
        epoch_s = {k: [] for k in configs}
        update_s = {k: [] for k in configs}
        for model in configs.values():
            model.fit(split)                                   # warm-up epoch, untimed
        for _ in range(reps):
            for name, model in configs.items():
                model.partial_fit(split, epochs=1)
                epoch_s[name].append(model.history_[-1]["seconds"])
                if isinstance(model, HingeEmbedding):
                    update_s[name].append(dcd_update_seconds(model, model.n_iter_))
                else:
                    update_s[name].append(sgd_update_seconds(model))

        med = {k: statistics.median(v) for k, v in epoch_s.items()}
        umed = {k: statistics.median(v) for k, v in update_s.items()}
        print(f"\nD = {dim}, float32, {reps} rounds")
        print(f"{'configuration':<42} {'epoch s':>8} {'min':>7} {'max':>7} {'samples/s':>10} "
              f"{'update s':>9} {'samples/s':>10}")
        for name in configs:
            print(f"{name:<42} {med[name]:8.3f} {min(epoch_s[name]):7.3f} {max(epoch_s[name]):7.3f} "
                  f"{n_samples / med[name]:10,.0f} {umed[name]:9.3f} {n_samples / umed[name]:10,.0f}")
        sgd = "SGD logistic, edge order, 1 thread"
        one, two = "DCD hinge ip=1, hogwild, 1 thread", "DCD hinge ip=1, hogwild, 2 threads"
        det1, det2 = "DCD hinge ip=1, deterministic, 1 thread", "DCD hinge ip=1, deterministic, 2 threads"
        ratio, uratio = med[one] / med[sgd], umed[one] / umed[sgd]
        speedup, uspeedup = med[one] / med[two], umed[one] / umed[two]
        print(f"DCD/SGD epoch time: {ratio:.2f} (update only: {uratio:.2f})"
              + (f"   target <= 1.5: {'yes' if ratio <= 1.5 else 'NO'}" if dim == 100 else ""))
        print(f"hogwild 2-thread speed-up: {speedup:.2f} (update only: {uspeedup:.2f})"
              + (f"   target >= 1.8: {'yes' if speedup >= 1.8 else 'NO'}" if dim == 100 else ""))
        print(f"deterministic 2-thread speed-up: {med[det1] / med[det2]:.2f} "
              f"(update only: {umed[det1] / umed[det2]:.2f}; {configs[det1].solver_.n_colors} colour classes)")
        print(f"load average now {os.getloadavg()[0]:.1f}")
        if dim == 100:
            failed |= ratio > 1.5 or speedup < 1.8
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
