"""The directed defaults away from the two graphs they were set on: synthetic graphs from no reciprocity to
nearly full (issue 34).

LogisticEmbedding's directed defaults read one statistic of the training arcs, the share r that are
reciprocated: the tie ``lam_tie = r / (1 - r)`` and the reverse share ``0.35 r``.  They were chosen on Cora
(r = 0.04 in a training split) and email-Eu-core (r = 0.57).  Here a planted-partition graph
(``lgekit.datasets.planted_partition_graph``, 1,000 nodes, 10 blocks, mean degree 20) is made directed with a
hidden node order: each edge {u, v}, u < v, becomes both arcs with probability ``p``, else the one arc u -> v
with probability 0.85 and v -> u otherwise, so that r = 2p / (1 + p) and the one-way arcs mostly point up the
order.  For each p and seed: one 80/20 ``split_edges`` (4 uniform non-arcs per arc), and

* **degree rule**: ``log r_u - log r_v``, ``r = (out + 1) / (in + 1)`` in the training arcs;
* **lgekit**: ``LogisticEmbedding(dim=32, epochs=20)`` at its defaults;
* **no tie**: the same with ``lam_tie=0``;
* **first landing**: ``lam_tie=0, reverse_negatives=0.1`` (issue 34's first landing but for the order
  projection and kappa, which have no switch).

Columns: link AP (held-out arcs against held-out non-arcs) and direction AP (each held-out one-way arc's
log-odds against its negation), medians over the seeds; the last two say whether the defaults' direction AP
is at least the degree rule's, and whether their link AP is at least the no-tie model's minus 0.01.  These
are measurements, not goals (issue 34's goals are on Cora and email-Eu-core, ``bench_directed.py``): a
graph whose direction is a noisy global order and nothing else is the degree rule's home ground.

Usage::

    python3 benchmarks/bench_reciprocity.py [--seeds 3] [--p 0 0.2 0.4 0.6 0.8]
"""
import argparse
import statistics
import sys
import time

import numpy as np

import lgekit
from lgekit import datasets
from lgekit.metrics import average_precision, average_precision_from_scores, direction_average_precision
from lgekit.models import LogisticEmbedding

ROWS = {"lgekit": {}, "no tie": {"lam_tie": 0.0}, "first landing": {"lam_tie": 0.0, "reverse_negatives": 0.1}}
FORWARD = 0.85


def reciprocal_graph(p, seed):
    """The planted-partition graph made directed: an edge both ways with probability p, else one way up the
    order with probability FORWARD."""
    rng = np.random.default_rng(seed)
    base = datasets.planted_partition_graph(n_nodes=1000, n_labels=10, mean_degree=20, seed=rng)
    edges = base.edges()
    both = rng.random(len(edges)) < p
    flip = rng.random(len(edges)) >= FORWARD
    one_way = np.where(flip[:, None], edges[:, ::-1], edges)[~both]
    arcs = np.concatenate([one_way, edges[both], edges[both][:, ::-1]])
    return lgekit.Graph.from_edges(arcs, nodes=np.arange(base.n_nodes), directed=True, name=f"reciprocal-{p:g}")


def degree_rule_ap(split, graph):
    arcs = np.asarray(split.train_positives)
    n = graph.n_nodes
    log_r = np.log((np.bincount(arcs[:, 0], minlength=n) + 1.0) / (np.bincount(arcs[:, 1], minlength=n) + 1.0))
    one_way, _ = split.direction_pairs()
    d = log_r[one_way[:, 0]] - log_r[one_way[:, 1]]
    return average_precision_from_scores(d, -d)


def run(p, seeds):
    out = {row: {"link": [], "dir": []} for row in ROWS}
    out["degree rule"] = {"dir": []}
    r_train, ties = [], []
    for seed in range(seeds):
        graph = reciprocal_graph(p, seed)
        split = lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=seed)
        r_train.append(split.train_graph.reciprocity())
        out["degree rule"]["dir"].append(degree_rule_ap(split, graph))
        one_way, _ = split.direction_pairs()
        for row, params in ROWS.items():
            m = LogisticEmbedding(dim=32, epochs=20, n_threads=1, random_state=seed, diagnostics=False,
                                  **params).fit(split)
            if row == "lgekit":
                ties.append(m.solver_.lam_tie)
            X, Y = m.embedding_, m.context_embedding_
            out[row]["link"].append(average_precision(X, split.test_positives, split.test_negatives, context=Y))
            out[row]["dir"].append(direction_average_precision(X, one_way, context=Y, graph=graph))
    med = {row: {k: statistics.median(v) for k, v in cols.items()} for row, cols in out.items()}
    return med, statistics.median(r_train), statistics.median(ties)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--p", type=float, nargs="+", default=[0.0, 0.2, 0.4, 0.6, 0.8],
                        help="the probabilities that an edge is both arcs")
    args = parser.parse_args(argv)
    if args.seeds < 1 or not all(0 <= p <= 1 for p in args.p):
        parser.error("--seeds must be >= 1 and every --p in [0, 1]")
    t0 = time.perf_counter()
    print(f"medians over seeds 0-{args.seeds - 1}; link AP / direction AP")
    print("| p | r (training) | lam_tie | degree rule | lgekit | no tie | first landing | dir >= degree rule "
          "| link >= no tie - 0.01 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in args.p:
        med, r, tie = run(p, args.seeds)
        above = med["lgekit"]["dir"] >= med["degree rule"]["dir"]
        kept = med["lgekit"]["link"] >= med["no tie"]["link"] - 0.01
        cells = " | ".join(f"{med[row]['link']:.3f} / {med[row]['dir']:.3f}" for row in ROWS)
        print(f"| {p:g} | {r:.3f} | {tie:.3f} | {med['degree rule']['dir']:.3f} | {cells} | "
              f"{'yes' if above else 'no'} | {'yes' if kept else 'no'} |", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
