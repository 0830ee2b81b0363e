"""Evidence for the estimators' defaults (issue 27, item 4): test AP over a small grid of lambda_r and epochs.

For each real data set (BlogCatalog, PPI, Facebook, email-Eu-core; undirected, the paper's 80/20 split
with 4 uniform negatives per positive), each lambda_r and each seed, one model is trained for the
largest epoch count with the test AP recorded after every epoch: the step size lr / sqrt(t + lr_offset)
does not depend on the number of epochs asked for, so the AP after epoch k of that run is the AP of a
k-epoch fit.  Everything else is the estimator's default (D = 100, lr = 1, ...), except what the
command line sets: ``--lr-offset`` (default: the estimator's).  A diverged fit counts as AP 0.5
(chance is 0.2 with 4 negatives: 0.5 is generous, and it never wins the median).

Prints, for each model, a table of the median test AP over the data sets (rows: lambda_r, columns:
epochs) and the per-data-set values, and the best cell.

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_defaults.py [--seeds 1] [--hinge] [--datasets ...]
"""
import argparse
import time

import numpy as np

import lgekit
from lgekit.callbacks import LinkPredictionCallback

DATASETS = ("blogcatalog", "ppi", "facebook", "email-eu-core")


def test_ap_per_epoch(model, split):
    """The test AP after each epoch of ``model.fit(split)``; a diverged fit gives NaN from its epoch on."""
    try:
        model.fit(split, callbacks=[LinkPredictionCallback(split, every=1, train=False)])
        history = model.history_
    except lgekit.DivergenceError as exc:
        history = exc.history
    ap = np.full(model.epochs, np.nan)
    for record in history:
        if "test_ap" in record and np.isfinite(record["test_ap"]) and not record.get("diverged"):
            ap[record["epoch"]] = record["test_ap"]
    return ap


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--lam-r", type=float, nargs="+", default=[0.0, 0.1, 0.3, 1.0, 3.0])
    parser.add_argument("--epochs", type=int, nargs="+", default=[5, 10, 20, 50])
    parser.add_argument("--lr-offset", type=float, default=None)
    parser.add_argument("--hinge", action="store_true",
                        help="HingeEmbedding (DCD) instead of LogisticEmbedding; lambda_r > 0 only")
    args = parser.parse_args()
    cls = lgekit.HingeEmbedding if args.hinge else lgekit.LogisticEmbedding
    lams = [lam for lam in args.lam_r if lam > 0 or not args.hinge]
    extra = {} if args.lr_offset is None or args.hinge else {"lr_offset": args.lr_offset}
    n_epochs = max(args.epochs)
    # ap[dataset][lam] = (seeds, n_epochs)
    ap = {}
    for name in args.datasets:
        graph = lgekit.datasets.load(name)
        ap[name] = {}
        for lam in lams:
            runs = []
            for seed in range(args.seeds):
                split = lgekit.split_edges(graph, test_fraction=0.2, seed=seed)
                started = time.perf_counter()
                model = cls(lam_r=lam, epochs=n_epochs, random_state=seed, **extra)
                runs.append(test_ap_per_epoch(model, split))
                print(f"  {name:14s} lam_r={lam:<5g} seed {seed}: AP at epochs {args.epochs} = "
                      f"{[round(float(runs[-1][e - 1]), 4) for e in args.epochs]} "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)
            ap[name][lam] = np.nan_to_num(np.array(runs), nan=0.5)
    print(f"\n{cls.__name__}, D = {cls().dim}, {args.seeds} seed(s), 80/20 split; "
          f"{'defaults' if not extra else extra}")
    print("median over data sets of the mean test AP over seeds (rows lambda_r, columns epochs)\n")
    print("| lambda_r | " + " | ".join(f"{e} epochs" for e in args.epochs) + " |")
    print("|---|" + "---|" * len(args.epochs))
    best = None
    for lam in lams:
        cells = []
        for e in args.epochs:
            median = float(np.median([ap[name][lam][:, e - 1].mean() for name in args.datasets]))
            cells.append(median)
            if best is None or median > best[0]:
                best = (median, lam, e)
        print(f"| {lam:g} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    print(f"\nbest: lambda_r = {best[1]:g}, {best[2]} epochs, median test AP {best[0]:.3f}")
    print("\nper data set (mean test AP over seeds):\n")
    print("| data set | lambda_r | " + " | ".join(f"{e} epochs" for e in args.epochs) + " |")
    print("|---|---|" + "---|" * len(args.epochs))
    for name in args.datasets:
        for lam in lams:
            print(f"| {name} | {lam:g} | " + " | ".join(f"{ap[name][lam][:, e - 1].mean():.3f}"
                                                      for e in args.epochs) + " |")


if __name__ == "__main__":
    main()
