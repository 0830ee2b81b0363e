"""``lgekit demo``: load a graph, split it, score a spectral baseline.

The short end-to-end run of the README: data in, the paper's link-prediction
split (with its leak checks), a non-learned baseline embedding of the
*training* graph, its test average precision / ROC-AUC and, when the graph has
labels, its node-classification Micro/Macro-F1.
"""
import logging
import time
from numbers import Integral, Real

from .._validation import Interval
from ._common import CommandError, as_command_error, check_options, load_graph, require_negatives, split_graph

__all__ = ["register", "run"]

logger = logging.getLogger(__name__)

DEFAULT_DATASET = "blogcatalog"
FALLBACK_DATASET = "synthetic-blogcatalog"


def register(subparsers):
    parser = subparsers.add_parser(
        "demo",
        help="load a graph, split it for link prediction and score a spectral baseline",
        description=(
            "Load a graph, split its edges as in the paper (20% held out, 4 uniform negatives per "
            "positive, leak-checked), embed the training graph with the adjacency spectral embedding "
            "and print test AP / ROC-AUC, plus node-classification Micro/Macro-F1 when the graph has "
            "labels.  Default data set: the real BlogCatalog if it is available locally, else the "
            "embedded synthetic-blogcatalog."
        ),
    )
    parser.add_argument("--dataset", metavar="NAME|PATH", default=None,
                        help=f"a data set name or a path (default: {DEFAULT_DATASET} if available, "
                             f"else {FALLBACK_DATASET})")
    parser.add_argument("--dim", type=int, default=32, metavar="D",
                        help="embedding dimension of the spectral baseline (default: 32)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the split, the eigensolver and the classifier (default: 0)")
    parser.add_argument("--test-fraction", type=float, default=0.2, metavar="F",
                        help="fraction of the edges held out for testing (default: 0.2)")
    parser.set_defaults(func=run)
    return parser


def _load(name):
    """The requested data set, or the default one with a fallback to the synthetic graph."""
    from .. import datasets    # NumPy and SciPy: not at the top, so that `lgekit --help` stays fast

    if name is not None:
        return load_graph(name), None
    # never download implicitly: the demo must run offline on a fresh machine
    return datasets.load_or_synthetic(DEFAULT_DATASET)


def _table(rows):
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def _fmt(value):
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


_OPTIONS = {
    "dim": [Interval(Integral, 1, None, closed="left")],
    "seed": [Interval(Integral, 0, None, closed="left")],
    "test_fraction": [Interval(Real, 0, 1, closed="neither")],
}


def run(args):
    # the scientific stack, here and not at the top: `lgekit --help` and option errors must not pay for it
    from ..metrics import average_precision, node_classification_f1, roc_auc
    from ..models.spectral import spectral_embedding

    check_options(args, _OPTIONS)

    t0 = time.perf_counter()
    graph, note = _load(args.dataset)
    t_load = time.perf_counter() - t0
    if note:
        print(f"note: {note}\n")
    require_negatives(graph, graph.name or args.dataset)
    if args.dim > graph.n_nodes:
        raise CommandError(f"--dim {args.dim} exceeds the number of nodes ({graph.n_nodes})")

    s = graph.summary()
    print(f"graph {s['name'] or args.dataset}  (loaded in {t_load:.2f} s)")
    print(_table([(k, _fmt(v)) for k, v in s.items() if k != "name"]))

    t0 = time.perf_counter()
    split = split_graph(graph, args.test_fraction, args.seed, graph.name or args.dataset)
    t_split = time.perf_counter() - t0
    print(f"\nsplit (leak-checked, {t_split:.2f} s)")
    print(_table([(k, _fmt(v)) for k, v in split.summary().items()]))

    t0 = time.perf_counter()
    x = spectral_embedding(split.train_graph, args.dim, seed=args.seed)
    t_embed = time.perf_counter() - t0
    rows = [
        ("test average precision", f"{average_precision(x, split.test_positives, split.test_negatives):.4f}"),
        ("test ROC-AUC", f"{roc_auc(x, split.test_positives, split.test_negatives):.4f}"),
        ("chance AP (1 / (1 + negatives))", f"{1 / (1 + split.negatives_per_positive):.4f}"),
    ]
    if graph.labels is not None and graph.labels.nnz:
        t1 = time.perf_counter()
        with as_command_error(ValueError, prefix="node classification: "):  # e.g. too few labelled nodes
            f1 = node_classification_f1(x, graph, train_ratio=0.5, seed=args.seed)
        rows += [("node classification Micro-F1", f"{f1['micro_f1']:.4f}  (train ratio 0.5, "
                                                    f"{time.perf_counter() - t1:.1f} s)"),
                 ("node classification Macro-F1", f"{f1['macro_f1']:.4f}")]
    print(f"\nspectral baseline, dim={args.dim}, fitted on the training graph ({t_embed:.2f} s)")
    print(_table(rows))
    return 0
