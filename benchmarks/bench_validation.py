"""Norms chosen by validation (issue 44): early stopping and the ``*CV`` estimators against the defaults.

Everything runs on lgekit's protocol: ``split_edges(graph, 0.2, seed)`` (80/20, 4 uniform negatives per
positive); link AP on the test pairs; node classification by ``node_classification_f1(embedding,
labels, train_ratio=0.5, seed)`` (top-k, one-vs-rest liblinear) on the embedding of the TRAINING graph;
one thread, CPU seconds (``time.process_time``) of the fit alone; medians over the seeds.  Three parts:

* ``--part es``: early stopping alone, per real data set: the default fit (50 epochs for
  LogisticEmbedding, 20 for HingeEmbedding), with its test AP after every epoch, so that the best fixed
  epoch count (chosen on the TEST split: an oracle) is read off the same run; against
  ``early_stopping=True`` (its test AP, the epochs it ran, its CPU time), and against the epochs chosen
  the same way then refitted on every training edge (the ``*CV`` estimator with the default lambda_r
  alone: ``LogisticEmbeddingCV(lam_rs=[0.3])``).
* ``--part cv``: on BlogCatalog and PPI, the default fit, early stopping, ``LogisticEmbeddingCV`` at its
  defaults (``scoring="ap"``) and with ``scoring="micro_f1"`` (fed the labels of the classifier's
  training nodes only), and the oracle: every lambda_r of the CV's grid fitted at the defaults and
  scored on the test split, the best per metric -- what a choice on validation could reach at best.
* ``--part grid``: the test AP of LogisticEmbedding at each lambda_r of a grid (the defaults otherwise), per
  real data set: where each graph's best lambda_r lies, which the CV estimator's default grid must cover.
* ``--part warm``: warm starts along the lambda_r path (each candidate continued from the previous
  one's tables, largest lambda_r first) against cold candidates, on one validation split of
  BlogCatalog: the validation AP of each lambda_r both ways.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_validation.py --part es [--seeds 3]
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_validation.py --part cv [--seeds 3]
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_validation.py --part grid [--seeds 3]
    LGEKIT_DATA=../shared/data python3 benchmarks/bench_validation.py --part warm
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp

import lgekit
from lgekit import HingeEmbedding, HingeEmbeddingCV, LogisticEmbedding, LogisticEmbeddingCV
from lgekit.callbacks import LinkPredictionCallback
from lgekit.metrics import node_classification_f1, node_classification_split

ES_DATASETS = ("blogcatalog", "ppi", "facebook", "email-eu-core", "cora")
CV_DATASETS = ("blogcatalog", "ppi")


def timed_fit(model, X, **kwargs):
    """``model.fit(X, **kwargs)`` and its CPU seconds."""
    started = time.process_time()
    model.fit(X, **kwargs)
    return time.process_time() - started


def f1(model, graph, seed):
    scores = node_classification_f1(model.embedding_, graph.labels, train_ratio=0.5, seed=seed)
    return scores["micro_f1"], scores["macro_f1"]


def training_labels(graph, seed):
    """The label matrix of the classifier's training nodes of ``node_classification_f1(..., seed=seed)``,
    every other row 0: what a CV scored by F1 may see."""
    split = node_classification_split(graph, 0.5, seed)
    keep = np.zeros(graph.n_nodes)
    keep[split.labelled[split.train]] = 1.0
    return sp.diags(keep) @ sp.csr_matrix(graph.labels)


def median(values):
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else float("nan")


# ---------------------------------------------------------------------- early stopping alone
def part_es(args):
    print("| data set | model | best fixed epochs (test AP, oracle) | default epochs: test AP | early stopping: "
          "test AP | AP lost to the best fixed count | epochs run (best) | epochs + refit: test AP (lost) | "
          "CPU s default / early stopping / epochs + refit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        graph = lgekit.datasets.load(name)
        for cls, cv_cls in ((LogisticEmbedding, LogisticEmbeddingCV), (HingeEmbedding, HingeEmbeddingCV)):
            rows = []
            for seed in range(args.seeds):
                split = lgekit.split_edges(graph, test_fraction=0.2, seed=seed)
                curve = cls(dim=args.dim, random_state=seed, diagnostics=False)
                seconds = timed_fit(curve, split, callbacks=[LinkPredictionCallback(split, train=False)])
                ap = np.array([r["test_ap"] for r in curve.history_])
                stopped = cls(**{**curve.get_params(), "early_stopping": True})
                es_seconds = timed_fit(stopped, split)
                params = {k: v for k, v in curve.get_params().items() if k not in ("lam_r", "warm_start")}
                refit = cv_cls(**{**params, "early_stopping": True}, lam_rs=[curve.lam_r])
                refit_seconds = timed_fit(refit, split)
                rows.append(dict(best=ap.max(), best_epochs=int(ap.argmax()) + 1, last=ap[-1],
                                 es=stopped.score(split), run=stopped.n_iter_, kept=stopped.best_iteration_ + 1,
                                 refit=refit.score(split), seconds=seconds, es_seconds=es_seconds,
                                 refit_seconds=refit_seconds))
            m = {k: median([r[k] for r in rows]) for k in rows[0]}
            lost = median([r["best"] - r["es"] for r in rows])
            refit_lost = median([r["best"] - r["refit"] for r in rows])
            print(f"| {name} | {cls.__name__} | {m['best_epochs']:.0f} ({m['best']:.4f}) | {m['last']:.4f} | "
                  f"{m['es']:.4f} | {lost:+.4f} | {m['run']:.0f} ({m['kept']:.0f}) | {m['refit']:.4f} "
                  f"({refit_lost:+.4f}) | {m['seconds']:.2f} / {m['es_seconds']:.2f} / {m['refit_seconds']:.2f} |",
                  flush=True)


# ---------------------------------------------------------------------- the CV estimators
def part_cv(args):
    grid = LogisticEmbeddingCV().lam_rs
    oracle_dims = sorted({args.dim, *(args.dims or ())})
    settings = [(dim, lam) for dim in oracle_dims for lam in grid]
    for name in args.cv_datasets:
        graph = lgekit.datasets.load(name)
        rows = {}

        def add(label, seed, model, seconds, split):
            micro, macro = f1(model, graph, seed)
            rows.setdefault(label, []).append(dict(ap=model.score(split), micro=micro, macro=macro, seconds=seconds,
                                                   lam=getattr(model, "lam_r_", model.get_params().get("lam_r")),
                                                   epochs=getattr(model, "epochs_", model.n_iter_), seed=seed))

        oracle, base = [], {}
        for seed in range(args.seeds):
            split = lgekit.split_edges(graph, test_fraction=0.2, seed=seed)
            common = dict(dim=args.dim, random_state=seed, diagnostics=False)
            default = LogisticEmbedding(**common)
            add("LogisticEmbedding (defaults)", seed, default, timed_fit(default, split), split)
            stopped = LogisticEmbedding(**common, early_stopping=True)
            add("LogisticEmbedding(early_stopping=True)", seed, stopped, timed_fit(stopped, split), split)
            cv = LogisticEmbeddingCV(**common)
            add("LogisticEmbeddingCV (defaults: scoring='ap')", seed, cv, timed_fit(cv, split), split)
            cv_f1 = LogisticEmbeddingCV(**common, scoring="micro_f1")
            add("LogisticEmbeddingCV(scoring='micro_f1')", seed, cv_f1,
                timed_fit(cv_f1, split, y=training_labels(graph, seed)), split)
            if args.dims:
                cv_dims = LogisticEmbeddingCV(**common, dims=tuple(args.dims))
                add(f"LogisticEmbeddingCV(dims={tuple(args.dims)})", seed, cv_dims, timed_fit(cv_dims, split), split)
            per_setting = {}
            for dim in oracle_dims:
                for lam in grid:
                    model = LogisticEmbedding(**{**common, "lam_r": lam, "dim": dim})
                    seconds = timed_fit(model, split)
                    micro, macro = f1(model, graph, seed)
                    per_setting[dim, lam] = dict(ap=model.score(split), micro=micro, macro=macro, seconds=seconds)
            oracle.append(per_setting)
            # one default fit's CPU time, for the ratios: the mean of the default fit timed first and of the same
            # fit timed again last (the oracle's), so that a change of load during the seed hits both sides
            again = LogisticEmbedding(**common)
            base[seed] = (rows["LogisticEmbedding (defaults)"][-1]["seconds"] + timed_fit(again, split)) / 2
            print(f"{name} seed {seed}: done", flush=True)
        print(f"\n{name}, dim {args.dim}, medians over {args.seeds} seed(s); CPU s of the fit, and its ratio to one "
              "default fit of the same seed (the median of the ratios)")
        print("\n| estimator | lambda_r (chosen) | epochs | link AP | micro-F1 | macro-F1 | CPU s (x one default fit) |")
        print("|---|---|---|---|---|---|---|")
        for label, results in rows.items():
            m = {k: median([r[k] for r in results]) for k in ("ap", "micro", "macro", "seconds", "epochs")}
            ratio = median([r["seconds"] / base[r["seed"]] for r in results])
            lams = "/".join(f"{r['lam']:g}" for r in results)
            print(f"| {label} | {lams} | {m['epochs']:.0f} | {m['ap']:.4f} | {m['micro']:.4f} | {m['macro']:.4f} | "
                  f"{m['seconds']:.2f} ({ratio:.1f}x) |")
        print("\nOracle (lambda_r chosen on the TEST split, per metric; 50 epochs, the defaults otherwise):")
        print("\n| dim | lambda_r | link AP | micro-F1 | macro-F1 |\n|---|---|---|---|---|")
        for dim, lam in settings:
            print(f"| {dim} | {lam:g} | " + " | ".join(f"{median([o[dim, lam][k] for o in oracle]):.4f}"
                                                      for k in ("ap", "micro", "macro")) + " |")
        best = {k: max(settings, key=lambda s: median([o[s][k] for o in oracle])) for k in ("ap", "micro", "macro")}
        print("\nbest (dim, lambda_r) per metric (oracle): " + ", ".join(
            f"{k} {v[0]}, {v[1]:g} ({median([o[v][k] for o in oracle]):.4f})" for k, v in best.items()))


# ---------------------------------------------------------------------- where the best lambda_r lies
def part_grid(args):
    grid = args.lam_rs
    print("| data set | " + " | ".join(f"lambda_r = {lam:g}" for lam in grid) + " | best |")
    print("|---|" + "---|" * (len(grid) + 1))
    for name in args.datasets:
        graph = lgekit.datasets.load(name)
        ap = {lam: [] for lam in grid}
        for seed in range(args.seeds):
            split = lgekit.split_edges(graph, test_fraction=0.2, seed=seed)
            for lam in grid:
                ap[lam].append(LogisticEmbedding(dim=args.dim, lam_r=lam, random_state=seed,
                                                 diagnostics=False).fit(split).score(split))
        m = {lam: median(v) for lam, v in ap.items()}
        print(f"| {name} | " + " | ".join(f"{m[lam]:.4f}" for lam in grid) + f" | {max(m, key=m.get):g} |",
              flush=True)


# ---------------------------------------------------------------------- warm starts along the path
def part_warm(args):
    graph = lgekit.datasets.load(args.warm_dataset)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    for cls, grid in ((LogisticEmbedding, sorted(LogisticEmbeddingCV().lam_rs, reverse=True)),
                      (HingeEmbedding, sorted(HingeEmbeddingCV().lam_rs, reverse=True))):
        cold, warm = {}, {}
        path = cls(dim=args.dim, random_state=0, diagnostics=False, early_stopping=True)
        for i, lam in enumerate(grid):
            model = cls(**{**path.get_params(), "lam_r": lam})
            seconds = timed_fit(model, split)
            cold[lam] = (model.best_validation_score_, model.n_iter_, seconds)
            # the same validation split (its seed is kept by a continued fit), from the previous tables; a
            # continued fit counts its starting tables as the best so far
            start = getattr(path, "n_iter_", 0)
            path.set_params(lam_r=lam, warm_start=i > 0)
            seconds = timed_fit(path, split)
            warm[lam] = (path.best_validation_score_, path.n_iter_ - start, seconds)
        print(f"\n{cls.__name__} on {args.warm_dataset} (seed 0, dim {args.dim}, early stopping on one validation "
              "split): validation AP, epochs, CPU s")
        print("\n| lambda_r | cold | warm (from the previous lambda_r's tables) |\n|---|---|---|")
        for lam in grid:
            c, w = cold[lam], warm[lam]
            print(f"| {lam:g} | {c[0]:.4f}, {c[1]} epochs, {c[2]:.2f} s | {w[0]:.4f}, {w[1]} epochs, {w[2]:.2f} s |")
        print(f"| total CPU s | {sum(c[2] for c in cold.values()):.2f} | {sum(w[2] for w in warm.values()):.2f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("es", "cv", "grid", "warm"), required=True)
    parser.add_argument("--lam-rs", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 1.0],
                        help="--part grid: the lambda_r values")
    parser.add_argument("--datasets", nargs="+", default=list(ES_DATASETS))
    parser.add_argument("--cv-datasets", nargs="+", default=list(CV_DATASETS))
    parser.add_argument("--warm-dataset", default="blogcatalog")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--dims", type=int, nargs="+", default=None,
                        help="--part cv: also LogisticEmbeddingCV(dims=DIMS), and the oracle at each of DIMS")
    args = parser.parse_args(argv)
    {"es": part_es, "cv": part_cv, "grid": part_grid, "warm": part_warm}[args.part](args)


if __name__ == "__main__":
    main()
