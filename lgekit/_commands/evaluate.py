r"""``lgekit evaluate``: link-prediction AP / AUC and node-classification F1 of an embedding file.

The graph's kind comes from the embedding: a model file (``.npz``) records it,
and ``fit.json`` beside the word2vec files of ``lgekit fit`` says it and which
file holds which table; ``--directed`` / ``--bipartite`` say it for other
files.  A directed or bipartite model is scored as it was trained, by
:math:`x_u \cdot y_v` (``embedding_`` row of the source / left node,
``context_embedding_`` row of the target / right node), on the graph loaded
with the same kind, so ``--test-fraction F --seed S`` gives the test AP that
``lgekit fit`` recorded with the same F and S.

A file of ``lgekit fit``'s folder is read as ``fit.json`` describes it:
each file it names must have the content it records (a folder mixing two
runs is refused in one line), and ``--test-fraction``/``--seed`` must be the
split the model was trained on (another split's "test" edges include edges
the model trained on: refused, saying which split fit.json records).
"""
import argparse
import io
import json
import logging
from collections import namedtuple
from numbers import Integral, Real
from pathlib import Path

from .._input_file import check_regular_file, file_sha256, open_regular_file, read_input_bytes
from .._json import parse_json
from .._validation import Interval
from ._common import (CommandError, add_kind_options, add_test_fraction_option, as_command_error, check_options,
                      load_graph, require_negatives, split_graph)

__all__ = ["register", "run", "read_embedding", "align_embedding", "Embedding"]

logger = logging.getLogger(__name__)

# NumPy, the models and the metrics are imported inside the functions: `lgekit --help` imports this module

_EPILOG = """\
EMBEDDING is any file `lgekit fit` writes: the model file (embedding.npz, as model.save writes
it), the word2vec text files (embedding.txt, and context_embedding.txt for a directed or
bipartite model: fit.json beside them names the kind and the tables), or fit.json itself;
also an .npz with an 'embedding' array (and optionally 'node_ids', 'context_embedding',
'context_node_ids'), a .npy array (rows = graph node order), or a word2vec text file (first line:
n_vectors dim; then: node_id x_1 ... x_dim; a two-table model's file written by model.to_word2vec
names the target / right rows 'context:ID').

The graph is loaded with the embedding's kind: the model file's, fit.json's, or --directed /
--bipartite for a file that does not say.  A directed or bipartite model scores x_u . y_v.

With --test-fraction F the graph's edges are split exactly as `lgekit fit --test-fraction F --seed S`
split them (same F and seed): the test edges and test negatives are scored, and the AP equals fit's
recorded test AP. Without it, every edge is scored against 4 uniformly drawn non-edges per edge
(how well the embedding reconstructs the graph).

example:
  lgekit fit email-eu-core --directed --model logistic --test-fraction 0.2 --out emb/
  lgekit evaluate emb/embedding.npz email-eu-core --test-fraction 0.2
  lgekit evaluate emb/context_embedding.txt email-eu-core --test-fraction 0.2    # the same AP
"""

#: an embedding as read from a file: the source / only table, its ids (None: rows in graph order), the context
#: table and its ids (None for one table), and the graph kind the file records (None: the file does not say)
#: (and the split fit.json records, None when no fit.json describes the file)
Embedding = namedtuple("Embedding", "vectors ids context context_ids kind split", defaults=(None,))

_TWO_TABLES = ("directed", "bipartite")

# fit.json names files, a kind, settings and a history summary (kilobytes)
_MAX_FIT_RECORD_BYTES = 2**20


def register(subparsers):
    p = subparsers.add_parser(
        "evaluate", help="AP / AUC (link prediction) and Micro/Macro-F1 (node labels) of an embedding file",
        description="Score an embedding on a graph: average precision and ROC-AUC of x_u . x_v (x_u . y_v for a "
                    "directed or bipartite model) for edges against non-edges, and optionally "
                    "node-classification F1.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("embedding", metavar="EMBEDDING",
                   help="embedding file: any file lgekit fit writes (.npz, word2vec .txt, fit.json), or a .npy")
    p.add_argument("graph", metavar="GRAPH", help="a data set name or a path the loaders accept")
    add_kind_options(p, "when the embedding file does not say (a model file and lgekit fit's folder do): ")
    add_test_fraction_option(p, "score the test edges of the split with this test fraction (as lgekit fit "
                                "--test-fraction with the same --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split / negatives / F1 shuffles (default 0)")
    p.add_argument("--labels", action="store_true",
                   help="also report node-classification Micro/Macro-F1 (the graph must carry labels)")
    p.add_argument("--train-ratio", type=float, default=0.5,
                   help="fraction of labelled nodes used to train the classifiers (default 0.5)")
    p.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    p.set_defaults(func=run)


def _read_word2vec(path):
    """A word2vec text file's vectors and ids (:func:`lgekit.models.read_word2vec`: streamed, bounded, checked)."""
    from ..models import read_word2vec   # NumPy: imported when evaluate runs, not at `lgekit --help`

    return read_word2vec(path)


def _fit_record(folder):
    """``fit.json`` of ``lgekit fit`` in ``folder`` (its kind and which file holds which table), or None."""
    path = Path(folder) / "fit.json"
    if not path.is_file():
        return None
    try:
        raw = read_input_bytes(path, max_bytes=_MAX_FIT_RECORD_BYTES, what="a fit record")
        record = parse_json(raw, what="it", max_bytes=_MAX_FIT_RECORD_BYTES)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable fit record ({exc})") from None
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict) or \
            record.get("kind") not in ("undirected",) + _TWO_TABLES:
        return None     # not written by this version of lgekit fit: the embedding file alone decides
    return record


def _check_same_run(record, folder, names):
    """Each of ``names`` in ``folder`` has the content ``fit.json`` records: files of one run, never two mixed."""
    recorded = record.get("sha256")
    if not isinstance(recorded, dict):
        return   # a fit.json of an lgekit before issue 42 records no hashes
    for name in names:
        expected = recorded.get(name)
        if expected is not None and file_sha256(Path(folder) / name) != expected:
            raise ValueError(f"{str(Path(folder) / name)!r} is not the file {str(Path(folder) / 'fit.json')!r} "
                             "describes (its content changed since that fit, or the folder holds files of two "
                             "runs: a fit interrupted while it published, which the next lgekit command into the "
                             "folder finishes); run lgekit fit again, or evaluate the file alone, copied elsewhere")


def _read_fit_folder(record, folder, path):
    """The embedding that the fit record in ``folder`` describes; ``path`` is the file the user named.

    A word2vec file is read with its partner table (``embedding.txt`` with
    ``context_embedding.txt``); the model file, the history or the record
    itself stand for the model file (or the word2vec files without it).
    """
    files, folder = record["files"], Path(folder)
    role = next((r for r, name in files.items() if name == path.name), "record")
    model = files.get("model")
    if role not in ("embedding", "context_embedding") and model and (folder / model).is_file():
        _check_same_run(record, folder, [model])
        return _with_split(read_embedding(folder / model, use_fit_record=False), record)
    name = files.get("embedding")
    if not name or not (folder / name).is_file():
        raise ValueError(f"{path}: the fit record lists no embedding file that exists in {str(folder)!r}")
    context = context_ids = None
    if record["kind"] in _TWO_TABLES:
        other = files.get("context_embedding") or "context_embedding.txt"
        if not (folder / other).is_file():
            raise ValueError(f"{path}: a {record['kind']} model has two tables, but the target / right table's "
                             f"file {other!r} is missing beside it")
        _check_same_run(record, folder, [name, other])
        context, context_ids = _read_word2vec(folder / other)
    else:
        _check_same_run(record, folder, [name])
    vectors, ids = _read_word2vec(folder / name)
    return _with_split(Embedding(vectors, ids, context, context_ids, record["kind"]), record)


def _with_split(embedding, record):
    """``embedding`` with the split ``fit.json`` records: ``{"test_fraction": F or None, "seed": S}``."""
    return embedding._replace(split={"test_fraction": record.get("test_fraction"), "seed": record.get("seed")})


def _check_split(embedding, args):
    """Refuse to score "test" edges of another split than the one the model was trained on (fit.json's)."""
    recorded = embedding.split
    if recorded is None or args.test_fraction is None:
        return
    fraction, seed = recorded["test_fraction"], recorded["seed"]
    if fraction is None:
        raise CommandError(f"--test-fraction {args.test_fraction:g}: fit.json beside {args.embedding!r} records a fit "
                           "on every edge (no --test-fraction), so no edge was held out and every 'test' edge was "
                           "trained on; leave --test-fraction out to score how well the embedding reconstructs the "
                           "graph")
    if (fraction, seed) != (args.test_fraction, args.seed):
        raise CommandError(f"--test-fraction {args.test_fraction:g} --seed {args.seed}: fit.json beside "
                           f"{args.embedding!r} records that the model was trained on the split --test-fraction "
                           f"{fraction:g} --seed {seed}; another split's 'test' edges include edges it trained on "
                           f"(its AP would be too high): pass --test-fraction {fraction:g} --seed {seed}")


def _split_context_rows(vectors, ids, path):
    """A two-table word2vec file of ``to_word2vec``: the rows named ``context:ID`` are the context table."""
    # lazy: NumPy and the models load when evaluate runs, not at `lgekit --help`
    import numpy as np
    from ..models._model_file import CONTEXT_PREFIX

    names = np.asarray([str(i) for i in ids], dtype=object)
    context = np.asarray([n.startswith(CONTEXT_PREFIX) for n in names.tolist()], dtype=bool)
    if not context.any():
        return None
    if not context[np.argmax(context):].all():
        raise ValueError(f"{path}: the rows named '{CONTEXT_PREFIX}ID' (the target / right table) must follow the "
                         "source / left rows, as model.to_word2vec writes them")
    stripped = np.asarray([n[len(CONTEXT_PREFIX):] for n in names[context].tolist()], dtype=object)
    return Embedding(vectors[~context], ids[~context], vectors[context], stripped, None)


def read_embedding(path, use_fit_record=True):
    """Read an embedding file, as an :data:`Embedding` ``(vectors, ids, context, context_ids, kind)``.

    ``ids`` is ``None`` for a bare array (rows are graph node indices);
    ``context`` and ``context_ids`` are the second table of a directed or
    bipartite model (None for one table); ``kind`` is the graph kind the file
    records (a model file; ``fit.json`` beside ``lgekit fit``'s word2vec
    files), or None when it does not say.

    Raises
    ------
    FileNotFoundError, ValueError
    """
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np

    path = Path(path).expanduser()
    try:
        check_regular_file(path)  # a device or a FIFO is "not a regular file", refused before it is opened
    except FileNotFoundError:
        raise FileNotFoundError(f"embedding file {str(path)!r} does not exist") from None
    if use_fit_record:
        record = _fit_record(path.parent)
        named = set(record["files"].values()) | {"fit.json"} if record else set()
        if record and path.name in named:
            return _read_fit_folder(record, path.parent, path)
        if path.name == "fit.json":
            raise ValueError(f"{path}: not a fit record of this version of lgekit fit (no 'files' and 'kind')")
    with open_regular_file(path) as fh:
        magic = fh.read(6)
    if magic.startswith(b"PK"):  # .npz (zip)
        # lazy: the models (and the kernels) load only when a model file is read, not at CLI start
        from ..models import BaseEmbedding
        from ..models._model_file import read_checked_npz

        # checked reader: no pickle, no import, no header that allocates more than the file holds;
        # a truncated or garbage zip is a ValueError naming the file
        arrays = read_checked_npz(path)
        if "meta" in arrays and "embedding" in arrays:
            # a model file: loaded as a model, so that every check of load (its class, parameters, shapes) applies
            model = BaseEmbedding.load(path)
            kind = getattr(model, "graph_kind_", "undirected")
            two = kind in _TWO_TABLES
            return Embedding(np.asarray(model.embedding_), np.asarray(model.node_ids_),
                             np.asarray(model.context_embedding_) if two else None,
                             np.asarray(model.context_node_ids_) if two else None, kind)
        for key in ("embedding", "embedding_", "vectors"):
            if key in arrays:
                return Embedding(arrays[key], arrays.get("node_ids"), arrays.get("context_embedding"),
                                 arrays.get("context_node_ids"), None)
        raise ValueError(f"{path}: an .npz without an 'embedding' array (has: {', '.join(sorted(arrays))})")
    if magic == b"\x93NUMPY":
        return Embedding(_read_npy(path), None, None, None, None)
    vectors, ids = _read_word2vec(path)
    return _split_context_rows(vectors, ids, path) or Embedding(vectors, ids, None, None, None)


def _read_npy(path):
    """A ``.npy`` array, its header checked against the file's size before anything is allocated."""
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np

    # lazy: the models load only when a .npy file is read, not at CLI start
    from ..models._model_file import MALFORMED_FILE_ERRORS, read_npy_header

    fmt = np.lib.format
    with open_regular_file(path, bytes_per_byte=1, what="a .npy array") as fh:
        try:
            shape, dtype = read_npy_header(fh, "the array")
            size = path.stat().st_size - fh.tell()
            if dtype.hasobject:
                raise ValueError("object arrays (pickles) are never loaded")
            if dtype.kind not in "biuf":
                raise ValueError(f"it holds {dtype} values; an embedding holds real numbers")
            nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if nbytes != size:
                raise ValueError(f"the header declares shape {shape} of {dtype} ({nbytes} bytes) but the file holds "
                                 f"{size} bytes after it")
            fh.seek(0)
            return fmt.read_array(fh, allow_pickle=False)
        except MALFORMED_FILE_ERRORS as exc:
            raise ValueError(f"{path}: not a readable .npy array ({type(exc).__name__}: {exc})") from None


def align_embedding(vectors, ids, graph, side=None):
    """Rows of ``vectors`` reordered to the graph's node order (ValueError if nodes are missing).

    ``side`` (``"left"`` or ``"right"``, bipartite graphs) aligns to that
    side's ids and order instead of every node's.  The vectors must be real
    and finite, and each id must name one row: a ValueError says which row
    or id is not.
    """
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np

    vectors = _real_vectors(vectors)
    graph_ids = np.asarray(graph.node_ids if side is None else graph.left_ids if side == "left" else graph.right_ids)
    n = len(graph_ids)
    nodes = "nodes" if side is None else f"{side} nodes"
    if ids is None:
        if len(vectors) != n:
            raise ValueError(f"the embedding has {len(vectors)} rows but the graph has {n} {nodes} (a bare array "
                             "must have one row per node, in the graph's order)")
        return vectors
    ids = _ids_like(np.asarray(ids), graph_ids)
    if len(ids) != len(vectors):
        raise ValueError(f"the embedding has {len(vectors)} rows but {len(ids)} node ids")
    distinct = len(set(ids.tolist())) if ids.dtype.kind == "O" else len(np.unique(ids))
    if distinct != len(ids):
        raise ValueError(f"the embedding names {len(ids) - distinct} node id(s) twice: each node has one vector")
    known = np.isin(ids, graph_ids) if ids.dtype.kind != "O" and graph_ids.dtype.kind != "O" else np.array(
        [i in set(graph_ids.tolist()) for i in ids.tolist()], dtype=bool)
    if not known.all():
        extra = ids[~known][:3].tolist()
        where = "in the graph" if side is None else f"{side} nodes of the graph"
        raise ValueError(f"{int((~known).sum())} embedding node id(s) are not {where}, e.g. {extra}")
    index = np.asarray(graph.index_of(ids) if side is None else graph.index_of(ids, side=side), dtype=np.int64)
    if side == "right":
        index -= graph.n_left
    out = np.zeros((n, vectors.shape[1]))
    out[index] = vectors
    filled = np.zeros(n, dtype=bool)
    filled[index] = True
    if not filled.all():
        raise ValueError(f"the embedding has no vector for {int((~filled).sum())} of the graph's {n} {nodes}, e.g. "
                         f"{graph_ids[~filled][:3].tolist()}")
    return out


def _real_vectors(vectors):
    """``vectors`` as a 2-D float64 array of finite numbers; a ValueError saying what else it is."""
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np

    vectors = np.asarray(vectors)
    if vectors.dtype.kind == "c":
        raise ValueError(f"the embedding holds complex numbers ({vectors.dtype}); an embedding holds real numbers "
                         "(take the real part yourself if that is what you mean)")
    if vectors.dtype.kind not in "biuf":
        raise ValueError(f"the embedding must hold numbers, got dtype {vectors.dtype}")
    vectors = vectors.astype(np.float64, copy=False)
    if vectors.ndim != 2:
        raise ValueError(f"the embedding must be a 2-D (n_nodes, dim) array, got shape {vectors.shape}")
    bad = ~np.isfinite(vectors)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"the embedding holds {int(bad.sum()):,} non-finite value(s) (NaN or infinity), e.g. row "
                         f"{row}, column {col}: a diverged model? lgekit scores finite embeddings only")
    return vectors


def _ids_like(ids, graph_ids):
    """The embedding's ids in the graph's terms: text that spells a whole number is that number when the
    graph's ids are numbers (at any size: beyond int64 they stay exact), numbers are text when the graph's are."""
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np

    from ..ids import as_id_array, is_integer_id   # lgekit's one reading of node ids (NumPy)

    graph_ints = graph_ids.dtype.kind in "iu" or (graph_ids.dtype.kind == "O" and len(graph_ids)
                                                  and all(is_integer_id(i) for i in graph_ids.tolist()))
    if ids.dtype.kind in "OUS" and graph_ints:
        values = [int(i) if isinstance(i, str) and _spells_int(i) else i for i in ids.tolist()]
        if not all(is_integer_id(v) for v in values):
            raise ValueError("the embedding's node ids are not integers but the graph's are")
        return as_id_array(values, "the embedding's node ids")
    if ids.dtype.kind in "iu" and graph_ids.dtype.kind not in "iuO":
        return ids.astype(str).astype(object)
    if ids.dtype.kind in "US":
        return ids.astype(object)
    return ids


def _spells_int(text):
    text = text.strip()
    return text.lstrip("+-").isdigit() and text.isascii()


def _kind(embedding, args):
    """The graph kind to load and score with: the file's, else the option's, else undirected; conflicts refused."""
    option = "directed" if args.directed else "bipartite" if args.bipartite else None
    if embedding.kind is not None and option is not None and option != embedding.kind:
        raise CommandError(f"--{option}: the embedding file records a model of a {embedding.kind} graph; drop the "
                           "option (the file says the kind)")
    kind = embedding.kind or option or ("directed?" if embedding.context is not None else "undirected")
    if kind == "directed?":
        raise CommandError(f"{args.embedding!r} holds two tables (a directed or bipartite model) but does not say "
                           "which: pass --directed or --bipartite")
    if kind in _TWO_TABLES and embedding.context is None:
        raise CommandError(f"--{kind}: {args.embedding!r} holds one table, but a {kind} graph is scored x_u . y_v "
                           "with two (pass lgekit fit's embedding.npz, or its embedding.txt with "
                           "context_embedding.txt and fit.json beside it)")
    return kind


def _score_tables(embedding, graph):
    """``(x, context)`` indexed by the graph's node indices: pair (u, v) scores ``x[u] . context[v]``.

    For one table ``context`` is None (``x[u] . x[v]``).  A bipartite graph's
    left rows of ``x`` and right rows of ``context`` are filled (the others
    stay 0 and are never read: every pair is (left, right)).
    """
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np

    if embedding.context is None:
        return align_embedding(embedding.vectors, embedding.ids, graph), None
    if graph.kind == "directed":
        return (align_embedding(embedding.vectors, embedding.ids, graph),
                align_embedding(embedding.context, embedding.context_ids, graph))
    left = align_embedding(embedding.vectors, embedding.ids, graph, side="left")
    right = align_embedding(embedding.context, embedding.context_ids, graph, side="right")
    if left.shape[1] != right.shape[1]:
        raise ValueError(f"the two tables have {left.shape[1]} and {right.shape[1]} columns; they must have one dim")
    x = np.zeros((graph.n_nodes, left.shape[1]))
    context = np.zeros_like(x)
    x[:graph.n_left] = left
    context[graph.n_left:] = right
    return x, context


_OPTIONS = {
    "test_fraction": [Interval(Real, 0, 1, closed="neither")],
    "seed": [Interval(Integral, 0, None, closed="left")],
    "train_ratio": [Interval(Real, 0, 1, closed="neither")],
}


def run(args):
    # lazy: NumPy and the metrics load when evaluate runs, not at `lgekit --help`
    import numpy as np
    from ..evaluation import sample_negative_pairs
    from ..metrics import average_precision, node_classification_f1, roc_auc

    check_options(args, _OPTIONS)
    # the files are the user's: whatever does not parse or match the graph is said in one line
    with as_command_error(ValueError):
        embedding = read_embedding(args.embedding)
    _check_split(embedding, args)
    kind = _kind(embedding, args)
    graph = load_graph(args.graph, graph_kind=kind)   # the model's kind, whatever the data set's default reading
    with as_command_error(ValueError):
        x, context = _score_tables(embedding, graph)
    require_negatives(graph, args.graph)
    scores = {"n_nodes": int(graph.n_nodes), "dim": int(x.shape[1]), "kind": kind}
    if args.test_fraction is not None:
        split = split_graph(graph, args.test_fraction, args.seed, args.graph)
        pos, neg = split.test_positives, split.test_negatives
        scores["pairs"] = f"test edges of a {args.test_fraction:g} split (seed {args.seed})"
        scores["train_ap"] = average_precision(x, split.train_positives, split.train_negatives, context=context)
    else:
        pos = graph.edges()
        neg = sample_negative_pairs(graph, 4 * len(pos), seed=args.seed)
        scores["pairs"] = f"all {len(pos)} edges vs {len(neg)} uniform non-edges (seed {args.seed})"
    scores["ap"] = average_precision(x, pos, neg, context=context)
    scores["auc"] = roc_auc(x, pos, neg, context=context)
    if args.labels:
        if graph.labels is None:
            raise CommandError(f"--labels: graph {args.graph!r} carries no node labels")
        # one vector per node: the out-vector of a directed graph's node, a bipartite node's own side's vector
        features = x if context is None or kind == "directed" else np.where(
            (np.arange(graph.n_nodes) < graph.n_left)[:, None], x, context)
        with as_command_error(ValueError, prefix="--labels: "):  # e.g. too few labelled nodes for the ratio
            f1 = node_classification_f1(features, graph.labels, train_ratio=args.train_ratio, seed=args.seed)
        scores["micro_f1"] = f1["micro_f1"]
        scores["macro_f1"] = f1["macro_f1"]
    if args.json:
        print(json.dumps(scores, sort_keys=True))
    else:
        print(f"pairs: {scores['pairs']} ({kind} graph{', scores x_u . y_v' if context is not None else ''})")
        names = {"ap": "AP", "auc": "AUC", "train_ap": "train AP", "micro_f1": "Micro-F1", "macro_f1": "Macro-F1"}
        for key, name in names.items():
            if key in scores:
                print(f"{name}: {scores[key]:.4f}")
    return 0
