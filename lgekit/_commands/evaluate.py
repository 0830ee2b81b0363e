"""``lgekit evaluate``: link-prediction AP / AUC and node-classification F1 of an embedding file."""
import json
import logging
from numbers import Integral, Real
from pathlib import Path

from .._validation import Interval
from ._common import CommandError, as_command_error, check_options, load_graph, require_negatives, split_graph

__all__ = ["register", "run", "read_embedding", "align_embedding"]

logger = logging.getLogger(__name__)

_EPILOG = """\
EMBEDDING is a model file written by `lgekit fit` / model.save (.npz), an .npz with an
'embedding' array (and optionally 'node_ids'), a .npy array (rows = graph node order), or a
word2vec text file (first line: n_nodes dim; then: node_id x_1 ... x_dim).

With --split F the graph's edges are split exactly as `lgekit fit --split F --seed S` split them
(same F and seed): the test edges and test negatives are scored. Without --split, every edge is
scored against 4 uniformly drawn non-edges per edge (how well the embedding reconstructs the graph).
"""


def register(subparsers):
    import argparse

    p = subparsers.add_parser(
        "evaluate", help="AP / AUC (link prediction) and Micro/Macro-F1 (node labels) of an embedding file",
        description="Score an embedding on a graph: average precision and ROC-AUC of x_u . x_v for edges "
                    "against non-edges, and optionally node-classification F1.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("embedding", metavar="EMBEDDING", help="embedding file (.npz, .npy or word2vec text)")
    p.add_argument("graph", metavar="GRAPH", help="a data set name or a path the loaders accept")
    p.add_argument("--split", type=float, default=None, metavar="TEST_FRACTION",
                   help="score the test edges of the split with this test fraction (as lgekit fit --split)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split / negatives / F1 shuffles (default 0)")
    p.add_argument("--labels", action="store_true",
                   help="also report node-classification Micro/Macro-F1 (the graph must carry labels)")
    p.add_argument("--train-ratio", type=float, default=0.5,
                   help="fraction of labelled nodes used to train the classifiers (default 0.5)")
    p.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    p.set_defaults(func=run)


def _read_word2vec(path):
    import numpy as np

    with open(path, encoding="utf-8") as fh:
        header = fh.readline().split()
        if len(header) != 2 or not all(h.isdigit() for h in header):
            raise ValueError(f"{path}: not a word2vec text file (first line must be 'n_nodes dim', got "
                             f"{' '.join(header)[:60]!r})")
        n, dim = int(header[0]), int(header[1])
        ids, rows = [], []
        for number, line in enumerate(fh, 2):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != dim + 1:
                raise ValueError(f"{path}, line {number}: expected a node id and {dim} numbers, got "
                                 f"{len(parts)} fields")
            ids.append(parts[0])
            try:
                rows.append([float(x) for x in parts[1:]])
            except ValueError:
                raise ValueError(f"{path}, line {number}: non-numeric coordinate") from None
    if len(ids) != n:
        raise ValueError(f"{path}: header announces {n} vectors, found {len(ids)}")
    return np.asarray(rows, dtype=np.float64).reshape(n, dim), np.asarray(ids, dtype=object)


def read_embedding(path):
    """Read an embedding file; returns ``(vectors (n, dim), node_ids or None)``.

    ``node_ids`` is ``None`` for a bare array (rows are graph node indices).

    Raises
    ------
    FileNotFoundError, ValueError
    """
    import numpy as np

    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"embedding file {str(path)!r} does not exist")
    with open(path, "rb") as fh:
        magic = fh.read(6)
    if magic.startswith(b"PK"):  # .npz (zip)
        from ..models import BaseEmbedding
        from ..models._base import read_checked_npz

        # checked reader: no pickle, no import, no header that allocates more than the file holds;
        # a truncated or garbage zip is a ValueError naming the file
        arrays = read_checked_npz(path)
        if "meta" in arrays and "embedding" in arrays:
            model = BaseEmbedding._from_arrays(arrays, path)
            return np.asarray(model.embedding_), np.asarray(model.node_ids_)
        for key in ("embedding", "embedding_", "vectors"):
            if key in arrays:
                return arrays[key], arrays.get("node_ids")
        raise ValueError(f"{path}: an .npz without an 'embedding' array (has: {', '.join(sorted(arrays))})")
    if magic == b"\x93NUMPY":
        return _read_npy(path), None
    return _read_word2vec(path)


def _read_npy(path):
    """A ``.npy`` array, its header checked against the file's size before anything is allocated."""
    import numpy as np

    from ..models._base import MALFORMED_FILE_ERRORS

    fmt = np.lib.format
    with open(path, "rb") as fh:
        try:
            version = fmt.read_magic(fh)
            if version == (1, 0):
                shape, _, dtype = fmt.read_array_header_1_0(fh)
            elif version in ((2, 0), (3, 0)):
                shape, _, dtype = fmt.read_array_header_2_0(fh)
            else:
                raise ValueError(f"unsupported .npy version {version}")
            size = path.stat().st_size - fh.tell()
            if dtype.hasobject:
                raise ValueError("object arrays (pickles) are never loaded")
            nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if nbytes != size:
                raise ValueError(f"the header declares shape {shape} of {dtype} ({nbytes} bytes) but the file holds "
                                 f"{size} bytes after it")
            fh.seek(0)
            return fmt.read_array(fh, allow_pickle=False)
        except MALFORMED_FILE_ERRORS as exc:
            raise ValueError(f"{path}: not a readable .npy array ({type(exc).__name__}: {exc})") from None


def align_embedding(vectors, ids, graph):
    """Rows of ``vectors`` reordered to the graph's node order (ValueError if nodes are missing)."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"the embedding must be a 2-D (n_nodes, dim) array, got shape {vectors.shape}")
    n = graph.n_nodes
    if ids is None:
        if len(vectors) != n:
            raise ValueError(f"the embedding has {len(vectors)} rows but the graph has {n} nodes (a bare array "
                             "must have one row per node, in the graph's order)")
        return vectors
    ids = np.asarray(ids)
    graph_ids = np.asarray(graph.node_ids)
    if ids.dtype.kind in "OUS" and graph_ids.dtype.kind in "iu":
        try:
            ids = np.array([int(i) for i in ids], dtype=np.int64)
        except ValueError:
            raise ValueError("the embedding's node ids are not integers but the graph's are") from None
    elif ids.dtype.kind in "iu" and graph_ids.dtype.kind not in "iu":
        ids = ids.astype(str).astype(object)
    elif ids.dtype.kind in "US":
        ids = ids.astype(object)
    known = np.isin(ids, graph_ids)
    if not known.all():
        extra = ids[~known][:3].tolist()
        raise ValueError(f"{int((~known).sum())} embedding node id(s) are not in the graph, e.g. {extra}")
    index = np.asarray(graph.index_of(ids), dtype=np.int64)
    out = np.full((n, vectors.shape[1]), np.nan)
    out[index] = vectors
    missing = np.isnan(out[:, 0]) if vectors.shape[1] else np.zeros(n, bool)
    if missing.any():
        raise ValueError(f"the embedding has no vector for {int(missing.sum())} of the graph's {n} nodes, e.g. "
                         f"{graph_ids[missing][:3].tolist()}")
    return out


_OPTIONS = {
    "split": [Interval(Real, 0, 1, closed="neither")],
    "seed": [Interval(Integral, 0, None, closed="left")],
    "train_ratio": [Interval(Real, 0, 1, closed="neither")],
}


def run(args):
    from ..evaluation import sample_negative_pairs
    from ..metrics import average_precision, node_classification_f1, roc_auc

    check_options(args, _OPTIONS)
    # the files are the user's: whatever does not parse or match the graph is said in one line
    with as_command_error(ValueError):
        vectors, ids = read_embedding(args.embedding)
    graph = load_graph(args.graph)
    with as_command_error(ValueError):
        emb = align_embedding(vectors, ids, graph)
    require_negatives(graph, args.graph)
    scores = {"n_nodes": int(graph.n_nodes), "dim": int(emb.shape[1])}
    if args.split is not None:
        split = split_graph(graph, args.split, args.seed, args.graph)
        pos, neg = split.test_positives, split.test_negatives
        scores["pairs"] = f"test edges of a {args.split:g} split (seed {args.seed})"
        scores["train_ap"] = average_precision(emb, split.train_positives, split.train_negatives)
    else:
        pos = graph.edges()
        neg = sample_negative_pairs(graph, 4 * len(pos), seed=args.seed)
        scores["pairs"] = f"all {len(pos)} edges vs {len(neg)} uniform non-edges (seed {args.seed})"
    scores["ap"] = average_precision(emb, pos, neg)
    scores["auc"] = roc_auc(emb, pos, neg)
    if args.labels:
        if graph.labels is None:
            raise CommandError(f"--labels: graph {args.graph!r} carries no node labels")
        with as_command_error(ValueError, prefix="--labels: "):  # e.g. too few labelled nodes for the ratio
            f1 = node_classification_f1(emb, graph.labels, train_ratio=args.train_ratio, seed=args.seed)
        scores["micro_f1"] = f1["micro_f1"]
        scores["macro_f1"] = f1["macro_f1"]
    if args.json:
        print(json.dumps(scores, sort_keys=True))
    else:
        print(f"pairs: {scores['pairs']}")
        names = {"ap": "AP", "auc": "AUC", "train_ap": "train AP", "micro_f1": "Micro-F1", "macro_f1": "Macro-F1"}
        for key, name in names.items():
            if key in scores:
                print(f"{name}: {scores[key]:.4f}")
    return 0
