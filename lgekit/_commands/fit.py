"""``lgekit fit``: train one embedding on a graph; write the embedding and its history."""
import json
import logging
import time
from numbers import Integral, Real
from pathlib import Path

from .._progress import write_line
from .._validation import Interval
from ._common import CommandError, check_options, load_graph, require_negatives, split_graph

__all__ = ["register", "run"]

logger = logging.getLogger(__name__)

_MODELS = {"logistic": "LogisticEmbedding", "hinge": "HingeEmbedding"}

_EPILOG = """\
writes into DIR:
  embedding.npz   the fitted model (lgekit.models.BaseEmbedding.load reads it back)
  embedding.txt   the vectors in word2vec text format (first line: n_nodes dim)
  history.json    one record per epoch (objective, norms, test AP with --split, ...)
  fit.json        the settings and final metrics

example:
  lgekit fit blogcatalog --model logistic --lam-r 0.6 --epochs 20 --split 0.2 --out emb/
  lgekit evaluate emb/embedding.npz blogcatalog --split 0.2 --labels
  lgekit fit email-eu-core --directed --model logistic --split 0.2 --out emb-directed/
"""


def register(subparsers):
    import argparse

    p = subparsers.add_parser(
        "fit", help="train one embedding (SGD logistic or DCD hinge) and write it with its history",
        description="Train a linear graph embedding on GRAPH and write the embedding (npz and word2vec text) "
                    "and its per-epoch history.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("graph", metavar="GRAPH", help="a data set name or a path the loaders accept")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--directed", action="store_true",
                      help="keep the arcs' direction: the model learns an out- and an in-vector per node "
                           "(the model's embedding and context embedding; the paper's footnote 1)")
    kind.add_argument("--bipartite", action="store_true",
                      help="read GRAPH as (left, right) pairs of a bipartite graph: the model learns a left and a "
                           "right table")
    p.add_argument("--model", choices=sorted(_MODELS), required=True,
                   help="logistic: SGD on the logistic loss (LogisticEmbedding); hinge: DCD on the hinge loss "
                        "(HingeEmbedding)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split and of the model (default 0)")
    p.add_argument("--split", type=float, default=None, metavar="TEST_FRACTION",
                   help="hold out this fraction of the edges (train on the rest, record test AP per epoch); "
                        "lgekit evaluate --split with the same fraction and --seed scores the same test edges")
    p.add_argument("--threads", type=int, default=1, help="threads of the kernel (default 1: reproducible)")
    group = p.add_argument_group(
        "model parameters", "every parameter of the estimator (see its documentation); generated from the "
        "estimators' parameter tables; default: the model's own")
    for name, (constraints, models) in _model_parameters().items():
        _add_parameter_option(group, name, constraints, models)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.set_defaults(func=run)


# options of the command itself, checked before anything is loaded
_OPTIONS = {
    "seed": [Interval(Integral, 0, None, closed="left")],
    "split": [Interval(Real, 0, 1, closed="neither")],
    "threads": [Interval(Integral, 1, None, closed="left")],
}
# estimator parameters that the command sets itself: the seed (--seed), the threads (--threads),
# the verbosity (-v) and warm starts (a command always fits afresh)
_SET_BY_THE_COMMAND = {"random_state", "n_threads", "verbose", "warm_start"}
# HingeEmbedding's dual box [0, lam / lam_r] (Eq. 4) needs lam_r > 0, beyond the common table's >= 0
_MODEL_OPTIONS = {"hinge": {"lam_r": [Interval(Real, 0, None, closed="neither")]}}


def _model_parameters():
    """Every estimator parameter the command exposes: name -> (constraints, the --model values having it)."""
    from .. import _parameters

    tables = {"logistic": _parameters.LOGISTIC, "hinge": _parameters.HINGE}
    out = {}
    for model, table in tables.items():
        for name, constraints in table.items():
            if name not in _SET_BY_THE_COMMAND:
                out.setdefault(name, (constraints, []))[1].append(model)
    return out


def _add_parameter_option(group, name, constraints, models):
    """One ``--name`` option whose type and choices follow the parameter's constraints."""
    import argparse

    from .._validation import DTypes, Options, make_constraint

    flag = "--" + name.replace("_", "-")
    where = "" if len(models) == len(_MODELS) else f" (--model {' / '.join(models)} only)"
    kinds = [make_constraint(c) for c in constraints]
    accepted = " or ".join(alt for k in kinds for alt in k.alternatives())
    kw = {"default": None, "dest": name}
    if constraints == ["boolean"]:
        kw["action"] = argparse.BooleanOptionalAction
    elif isinstance(kinds[0], (Options, DTypes)):
        kw["choices"] = sorted(kinds[0].options if isinstance(kinds[0], Options) else kinds[0].names)
    elif isinstance(kinds[0], Interval):
        kw["type"] = int if kinds[0].type is Integral else float
        kw["metavar"] = "INT" if kinds[0].type is Integral else "X"
    group.add_argument(flag, help=f"{name}: {accepted}{where}", **kw)


def prepare_out(folder):
    """Create ``folder`` and check that it is writable (PermissionError naming it otherwise)."""
    import os

    folder = Path(folder).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise PermissionError(f"output folder {str(folder)!r} is not writable: {exc.strerror or exc}") from None
    return folder


def _load(args):
    """The graph, with the direction (``--directed``) or the two sides (``--bipartite``) kept when asked."""
    if not (getattr(args, "directed", False) or getattr(args, "bipartite", False)):
        return load_graph(args.graph)
    from .. import datasets
    from ._common import unavailable_message

    kwargs = {"directed": True} if args.directed else {"bipartite": True}
    flag = "--directed" if args.directed else "--bipartite"
    try:
        return datasets.load(args.graph, **kwargs)
    except (datasets.DownloadError, datasets.DatasetNotFoundError) as exc:
        raise CommandError(unavailable_message(exc)) from None
    except (FileNotFoundError, KeyError, ValueError, TypeError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise CommandError(f"cannot load {str(args.graph)!r} with {flag}: {message}") from None


def _table_pairs(graph, pairs):
    """Node-index pairs as (embedding_ row, context_embedding_ row): the right side counts from 0 if bipartite."""
    if getattr(graph, "kind", None) == "bipartite":
        from ..theory.bounds import theorem1_pairs

        return theorem1_pairs(graph, pairs)
    return pairs


def run(args):
    from .. import models
    from .._atomic import atomic_write_text
    from ..callbacks import LinkPredictionCallback
    from ..experiments.store import to_json_safe

    # before loading the graph: a bad value should not cost a data set load first
    given = {name: getattr(args, name) for name in _model_parameters() if getattr(args, name) is not None}
    for name in given:
        constraints, having = _model_parameters()[name]
        if args.model not in having:
            raise CommandError(f"--{name.replace('_', '-')} applies to --model {' / '.join(having)}, "
                               f"not to --model {args.model}")
    table = models.LogisticEmbedding._parameter_constraints if args.model == "logistic" else \
        models.HingeEmbedding._parameter_constraints
    check_options(args, {**_OPTIONS, **{name: table[name] for name in given},
                         **{name: c for name, c in _MODEL_OPTIONS.get(args.model, {}).items() if name in given}})
    limit = models.max_n_threads()
    if args.threads > limit:
        raise CommandError(f"--threads must be an int in [1, {limit}] (64 x the CPUs of this machine), "
                           f"got {args.threads}")
    # progress goes to stderr (the results to stdout): the load and the split here, the model's preparation
    # and epochs from the estimator (verbose below)
    started = time.perf_counter()
    # (no "loading ..." line first: a graph that cannot be loaded gets its one-line error alone)
    graph = _load(args)
    write_line(f"loaded {args.graph}: {graph.n_nodes:,} nodes, {graph.n_edges:,} edges in "
               f"{time.perf_counter() - started:.1f}s")
    require_negatives(graph, args.graph)
    out = prepare_out(args.out)        # after the load: a graph that fails to load leaves no folder behind
    # word2vec's text format separates fields by whitespace: ids holding some cannot be written there
    word2vec_ok = all(str(i) and not any(c.isspace() for c in str(i)) for i in graph.node_ids)
    params = {**given, "random_state": args.seed, "n_threads": args.threads,
              # 1: the preparation and the epochs' progress (a bar on a terminal, a line every few seconds in
              # a pipe or a log); -v adds a line per epoch
              "verbose": 1 + min(getattr(args, "verbose", 0), 1)}
    cls = getattr(models, _MODELS[args.model], None)
    if cls is None:
        raise CommandError(f"model {args.model!r} ({_MODELS[args.model]}) is not available in this installation")
    model = cls(**params)
    callbacks = []
    data = graph
    split = None
    if args.split is not None:
        started = time.perf_counter()
        split = split_graph(graph, args.split, args.seed, args.graph)
        write_line(f"split: {len(split.train_positives):,} training and {len(split.test_positives):,} test edges "
                   f"(--split {args.split:g}, --seed {args.seed}) in {time.perf_counter() - started:.1f}s")
        data = split
        # test AP after every epoch (a two-table model's pairs score x_u . y_v; the callback knows)
        callbacks.append(LinkPredictionCallback(split, every=1, train=False))
    try:
        model.fit(data, callbacks=callbacks)
    except models.DivergenceError as exc:
        atomic_write_text(out / "history.json",
                          json.dumps(to_json_safe(exc.history), indent=1) + "\n")
        raise CommandError(f"training diverged: {exc} (history so far in {out / 'history.json'})") from None
    except MemoryError as exc:
        # the model's estimate says what is needed and which option to lower (--dim): one line, exit 2
        raise CommandError(f"out of memory: {exc}") from None
    # the verbosity is the command's display, not the model's: saved, the model is as quiet as a new one
    model.set_params(verbose=0)
    written = [out / "embedding.npz"]
    model.save(written[0])
    if word2vec_ok:
        written.append(out / "embedding.txt")
        model.to_word2vec(written[-1])
    else:
        print("note: some node ids contain whitespace, which word2vec's text format cannot hold: "
              "embedding.txt not written (embedding.npz has the ids)")
    atomic_write_text(out / "history.json", json.dumps(to_json_safe(model.history_), indent=1) + "\n")
    final = {}
    if split is not None:
        from ..metrics import average_precision, direction_average_precision, non_reciprocal_arcs, roc_auc

        x, context = model.embedding_, getattr(model, "context_embedding_", None)
        test_pos, test_neg = _table_pairs(graph, split.test_positives), _table_pairs(graph, split.test_negatives)
        final["test_ap"] = average_precision(x, test_pos, test_neg, context=context)
        final["test_auc"] = roc_auc(x, test_pos, test_neg, context=context)
        final["train_ap"] = average_precision(x, _table_pairs(graph, split.train_positives),
                                              _table_pairs(graph, split.train_negatives), context=context)
        if getattr(graph, "kind", None) == "directed" and len(non_reciprocal_arcs(graph, split.test_positives)):
            # can the model tell a held-out arc from its reverse? (0.5 for a symmetric score)
            final["test_direction_ap"] = direction_average_precision(x, split.test_positives, context=context,
                                                                     graph=graph)
    info = {"graph": args.graph, "kind": getattr(graph, "kind", "directed" if graph.is_directed else "undirected"),
            "model": type(model).__name__, "params": model.get_params(),
            "split": args.split, "seed": args.seed, "n_iter": model.n_iter_,
            "final": final, "n_nodes": graph.n_nodes, "n_edges": graph.n_edges}
    atomic_write_text(out / "fit.json", json.dumps(to_json_safe(info), indent=1, sort_keys=True) + "\n")
    last = model.history_[-1] if model.history_ else {}
    print(f"{type(model).__name__} on {args.graph}: {model.n_iter_} epochs, objective "
          f"{last.get('objective', float('nan')):.6g}, mean norm {last.get('mean_norm', float('nan')):.4g}")
    for key, value in final.items():
        print(f"{key}: {value:.4f}")
    written += [out / "history.json", out / "fit.json"]
    print("wrote " + ", ".join(str(path) for path in written))
    return 0
