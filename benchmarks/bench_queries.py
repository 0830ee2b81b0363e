"""Queries on a fitted embedding (issue 35, items 9-11), each against its plain NumPy baseline in one process.

* ``most_similar`` for every node (top 10, blocked, bounded memory) against the dense product
  ``X @ X.T`` followed by ``argpartition`` of each row (memory n x n float64);
* ``link_ranking`` (MRR, Hits@k) with 100 sampled candidates and with all candidates;
* ``plot_embedding`` (PCA).

Configurations are interleaved round by round; medians are quoted (the host drifts).  Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_queries.py [--rounds 3] [--epochs 5]
"""
import argparse
import statistics
import time

import numpy as np

import lgekit
from lgekit.metrics import link_ranking
from lgekit.neighbours import top_k_scores
from lgekit.plotting import plot_embedding


def dense_top_k(x, k):
    """The baseline: every score at once, the node itself removed, argpartition then a sort of the k."""
    s = x.astype(np.float64) @ x.astype(np.float64).T
    np.fill_diagonal(s, -np.inf)
    part = np.argpartition(-s, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(s, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=5)
    args = ap.parse_args()
    graph = lgekit.datasets.load("blogcatalog")
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    model = lgekit.LogisticEmbedding(dim=100, lam_r=0.6, epochs=args.epochs, random_state=0).fit(split)
    x = model.embedding_
    n = len(x)
    rows = np.arange(n)
    work = {
        "top-10 of every node, blocked (top_k_scores)": lambda: top_k_scores(x, x, 10, exclude=rows),
        "top-10 of every node, dense X X^T + argpartition": lambda: dense_top_k(x, 10),
        "most_similar of one node": lambda: model.most_similar(graph.node_ids[0], k=10),
        "MRR/Hits, 100 sampled candidates": lambda: link_ranking(x, split.test_positives, candidates=100,
                                                                 graph=graph),
        "MRR/Hits, all candidates": lambda: link_ranking(x, split.test_positives, candidates="all", graph=graph),
        "plot_embedding (PCA)": lambda: plot_embedding(model, graph),
    }
    blocked, dense = work["top-10 of every node, blocked (top_k_scores)"](), dense_top_k(x, 10)
    # the two agree wherever no tie sits at the 10th place (argpartition breaks such ties arbitrarily)
    print(f"BlogCatalog, {n:,} nodes, D = 100 float32, {len(split.test_positives):,} test positives; "
          f"blocked and dense top-10 agree on {np.mean(np.all(blocked[0] == dense, axis=1)):.4%} of the nodes")
    times = {name: [] for name in work}
    for _ in range(args.rounds):
        for name, fn in work.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    print(f"\n| query | median of {args.rounds} (s) |\n|---|---|")
    for name, ts in times.items():
        print(f"| {name} | {statistics.median(ts):.3f} |")
    print(f"\ndense baseline's score matrix: {n * n * 8 / 2**20:,.0f} MiB; the blocked one holds at most "
          f"{8 * 2**20 / 2**20:.0f} MiB of scores a block")


if __name__ == "__main__":
    main()
