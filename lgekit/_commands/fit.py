"""``lgekit fit``: train one embedding on a graph; write the embedding and its history."""
import argparse
import contextlib
import json
import sys
import textwrap
import time
from numbers import Integral, Real

from .. import _parameters
from .._memory import reserved_memory
from .._output_folder import FolderLockedError, FolderNotOursError, OutputFolder, disk_error_message
from .._progress import write_line
from .._validation import DTypes, Interval, Options, make_constraint
from ._common import (CommandError, add_kind_options, add_test_fraction_option, check_options, load_graph,
                      output_folder, require_negatives, split_graph)

__all__ = ["register", "run", "OUTPUT_FILES"]


_MODELS = {"logistic": "LogisticEmbedding", "hinge": "HingeEmbedding"}

#: every file ``lgekit fit`` may write into its folder, by role (fit.json's "files" names the ones a run wrote)
OUTPUT_FILES = {"model": "embedding.npz", "embedding": "embedding.txt", "context_embedding": "context_embedding.txt",
                "history": "history.json", "record": "fit.json", "plot": "embedding.png"}

_EPILOG = """\
writes into DIR:

- embedding.npz: the fitted model (lgekit.models.BaseEmbedding.load reads it back)
- embedding.txt: the vectors in word2vec text format (first line: n_vectors dim); for a
  directed graph the sources' (out-) vectors, for a bipartite one the left nodes'
- context_embedding.txt: directed or bipartite graphs only, the targets' (in-) vectors or
  the right nodes', in the same format (gensim's KeyedVectors reads each file alone)
- history.json: one record per epoch (objective, norms, test AP with --test-fraction, ...)
- fit.json: the settings, the final metrics, the graph's kind and the files written
- embedding.png: with --plot, the embedding projected to 2-D (PCA, or t-SNE with --plot tsne),
  coloured by the graph's labels (a multi-label node by its most frequent label)

lgekit evaluate reads any of them.  A folder that holds files lgekit did not write is refused
(--force writes there anyway); files of an earlier fit in DIR that this one does not write are
removed, and only those (.lgekit-manifest.json lists what each lgekit command wrote, with hashes:
the results of lgekit reproduce or theory in DIR are kept).  One run writes into DIR at a time.
The files are written into DIR/.lgekit-run.<id>/ and published together once every one is
complete: a fit that fails (or diverges, or is killed) leaves the earlier fit's files as they
were (a diverged fit's history stays in its run folder, which the next run removes).

presets (--preset NAME sets these; an option given on the line wins):

{presets}

examples:
  lgekit fit blogcatalog --model logistic --lam-r 0.6 --epochs 20 --test-fraction 0.2 --out emb/
  lgekit evaluate emb/embedding.npz blogcatalog --test-fraction 0.2 --labels
  lgekit fit email-eu-core --directed --model logistic --test-fraction 0.2 --out emb-directed/
"""


def _presets_text():
    lines = []
    for name, preset in _parameters.PRESETS.items():
        lines.append(textwrap.fill(f"- {name}: {preset['description']}", width=96, initial_indent="",
                                   subsequent_indent="  "))
        for model, params in preset["params"].items():
            lines.append(f"  --model {model}: " + " ".join(f"--{k.replace('_', '-')} {v:g}" if isinstance(v, float)
                                                        else f"--{k.replace('_', '-')} {v}"
                                                        for k, v in params.items()))
    return "\n".join(lines)


#: --plot's values (lgekit.plotting.METHODS, which imports matplotlib: written here for `lgekit --help`)
PLOT_METHODS = ("pca", "tsne")


class _PlotValue:
    """fit's parser (a mixin over the command line's parser class): ``--plot`` takes a value only when the
    next word is one of :data:`PLOT_METHODS`.

    argparse gives an option with an optional value (``nargs="?"``) the next word whatever it is, so
    ``lgekit fit --plot email-eu-core ...`` would read the graph as --plot's value ("invalid choice")
    and then miss GRAPH.  Before parsing, a ``--plot`` followed by a word that is not a method (nor an
    option) becomes ``--plot=pca``, leaving the word to GRAPH.
    """

    def parse_known_args(self, args=None, namespace=None):
        args = list(sys.argv[1:] if args is None else args)
        for i, word in enumerate(args[:-1]):
            if word == "--":
                break
            if word == "--plot" and not args[i + 1].startswith("-") and args[i + 1] not in PLOT_METHODS:
                args[i] = f"--plot={PLOT_METHODS[0]}"
        return super().parse_known_args(args, namespace)


def register(subparsers):
    p = subparsers.add_parser(
        "fit", help="train one embedding (SGD logistic or DCD hinge) and write it with its history",
        description="Train a linear graph embedding on GRAPH and write the embedding (npz and word2vec text) "
                    "and its per-epoch history.",
        epilog=_EPILOG.format(presets=_presets_text()), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("graph", metavar="GRAPH", help="a data set name or a path the loaders accept")
    add_kind_options(p)
    p.add_argument("--model", choices=sorted(_MODELS), required=True,
                   help="logistic: SGD on the logistic loss (LogisticEmbedding); hinge: DCD on the hinge loss "
                        "(HingeEmbedding)")
    p.add_argument("--preset", choices=sorted(_parameters.PRESETS), default=None,
                   help="start from a named set of parameters (listed below; 'paper': the paper's settings, "
                        "unregularised for logistic, lam_r = 3 for hinge); default: the estimator's defaults")
    p.add_argument("--seed", type=int, default=0, help="seed of the split and of the model (default 0)")
    add_test_fraction_option(p, "hold out this fraction of the edges (train on the rest, record test AP per "
                                "epoch); lgekit evaluate --test-fraction with the same fraction and --seed scores "
                                "the same test edges")
    p.add_argument("--threads", type=int, default=1, help="threads of the kernel (default 1: reproducible)")
    group = p.add_argument_group(
        "model parameters", "every parameter of the estimator (see its documentation), generated from the "
        "estimators' parameter tables; the default is shown for each --model")
    for name, (constraints, models) in _model_parameters().items():
        _add_parameter_option(group, name, constraints, models)
    p.add_argument("--plot", nargs="?", const=PLOT_METHODS[0], choices=PLOT_METHODS, default=None,
                   help="also draw the embedding in 2-D into DIR/embedding.png, coloured by the graph's labels: "
                        "--plot (PCA) or --plot tsne (slower)")
    p.__class__ = type(f"Fit{type(p).__name__}", (_PlotValue, type(p)), {})    # --plot's value: see _PlotValue
    p.add_argument("--out", required=True, metavar="DIR", type=output_folder, help="output folder (created if missing)")
    p.add_argument("--force", action="store_true",
                   help="write into DIR even if it holds files lgekit did not write (the files fit writes are "
                        "replaced; nothing else is removed)")
    p.set_defaults(func=run)


# options of the command itself, checked before anything is loaded
_OPTIONS = {
    "seed": [Interval(Integral, 0, None, closed="left")],
    "test_fraction": [Interval(Real, 0, 1, closed="neither")],
    "threads": [Interval(Integral, 1, None, closed="left")],
}
# estimator parameters that the command sets itself: the seed (--seed), the threads (--threads),
# the verbosity (-v) and warm starts (a command always fits afresh)
_SET_BY_THE_COMMAND = {"random_state", "n_threads", "verbose", "warm_start"}
# HingeEmbedding's dual box [0, lam / lam_r] (Eq. 4) needs lam_r > 0, beyond the common table's >= 0
_MODEL_OPTIONS = {"hinge": {"lam_r": [Interval(Real, 0, None, closed="neither")]}}


def _model_parameters():
    """Every estimator parameter the command exposes: name -> (constraints, the --model values having it)."""
    tables = {"logistic": _parameters.LOGISTIC, "hinge": _parameters.HINGE}
    out = {}
    for model, table in tables.items():
        for name, constraints in table.items():
            if name not in _SET_BY_THE_COMMAND:
                out.setdefault(name, (constraints, []))[1].append(model)
    return out


def _add_parameter_option(group, name, constraints, models):
    """One ``--name`` option whose type and choices follow the parameter's constraints, its help the default."""
    flag = "--" + name.replace("_", "-")
    where = "" if len(models) == len(_MODELS) else f" (--model {' / '.join(models)} only)"
    kinds = [make_constraint(c) for c in constraints]
    accepted = " or ".join(alt for k in kinds for alt in k.alternatives())
    defaults = {model: _parameters.DEFAULTS[_MODELS[model]][name] for model in models}
    if len(set(map(repr, defaults.values()))) == 1:
        default = f"default {_show(next(iter(defaults.values())))}"
    else:
        default = "default " + ", ".join(f"{_show(v)} (--model {m})" for m, v in defaults.items())
    kw = {"default": None, "dest": name}
    if constraints in (["boolean"], ["boolean", None]):
        # a switch; with None allowed, leaving it out keeps the estimator's None (e.g. --node-bias / --no-node-bias)
        kw["action"] = argparse.BooleanOptionalAction
    elif isinstance(kinds[0], (Options, DTypes)):
        kw["choices"] = sorted(kinds[0].options if isinstance(kinds[0], Options) else kinds[0].names)
    elif isinstance(kinds[0], Interval):
        kw["type"] = int if kinds[0].type is Integral else float
        kw["metavar"] = "INT" if kinds[0].type is Integral else "X"
    # "%" is argparse's format character in help texts
    group.add_argument(flag, help=f"{name}: {accepted}{where}; {default}".replace("%", "%%"), **kw)
    if "boolean" in constraints and "action" not in kw:
        # a choice that can also be switched off (diagnostics: sampled, exact, or --no-diagnostics)
        group.add_argument("--no-" + name.replace("_", "-"), dest=name, action="store_const", const=False,
                           help=f"{name}: False{where}")


def _show(value):
    """A default as typed on the command line: ``0.3``, ``edge``, ``None``, ``yes``/``no`` for switches."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _load(args):
    """The graph, with the direction (``--directed``) or the two sides (``--bipartite``) kept when asked."""
    kind = "directed" if args.directed else "bipartite" if args.bipartite else None
    return load_graph(args.graph, graph_kind=kind)


def _open_out(args, names, held):
    """The output folder, claimed for lgekit (refused if it holds the user's files, unless --force) and locked.

    The lock (the one ``lgekit reproduce`` takes) is entered on ``held``, an
    :class:`contextlib.ExitStack` that the command keeps open until its last
    file is written: a second run into the folder is refused here, before
    training, instead of mixing its files with this one's.
    """
    try:
        folder = OutputFolder(args.out, force=args.force, command="lgekit fit")
        held.enter_context(folder.lock())
        folder.check_writable(names)   # under the lock: the manifest as the last writer left it
    except (FolderNotOursError, FolderLockedError) as exc:
        raise CommandError(str(exc)) from None
    return folder


def _word2vec_ok(ids):
    """word2vec's text format separates fields by whitespace: an id that is empty or holds some cannot be written."""
    return all(str(i) and not any(c.isspace() for c in str(i)) for i in ids)


def _planned_files(graph):
    """The names this fit will write, known from the graph: the word2vec files only for ids the format can hold."""
    two = graph.kind in ("directed", "bipartite")
    ids = [graph.source_ids, graph.target_ids] if two else [graph.node_ids]
    tables = ["embedding", "context_embedding"] if two else ["embedding"]
    if not all(_word2vec_ok(list(i)) for i in ids):
        tables = []
    return [OUTPUT_FILES[role] for role in ["model", *tables, "history", "record"]]


def _write_tables(model, folder, word2vec_names, write_word2vec):
    """The word2vec text files of the model's tables: ``{role: name}`` of those written, and a note or None.

    One table: ``embedding.txt``.  Two (directed or bipartite graph):
    ``embedding.txt`` (sources / left nodes) and ``context_embedding.txt``
    (targets / right nodes), each a word2vec file of its own so that gensim's
    ``most_similar`` ranks vectors of one kind; the numbers are written as
    ``model.to_word2vec`` writes them (``word2vec_names`` and
    ``write_word2vec`` are :mod:`lgekit.models`', which the command imports
    when it runs).  Each is streamed into the run's
    staging folder a block of rows at a time (no scratch copy anywhere, and
    memory for a block, whatever the model's size).
    """
    two = getattr(model, "graph_kind_", "undirected") in ("directed", "bipartite")
    tables = [("embedding", model.embedding_, model.node_ids_)]
    if two:
        tables.append(("context_embedding", model.context_embedding_, model.context_node_ids_))
    if not all(_word2vec_ok(list(ids)) for _, _, ids in tables):
        return {}, ("some node ids are empty or contain whitespace, which word2vec's text format cannot hold: "
                    "no word2vec file written (embedding.npz has the ids)")
    try:
        names = [word2vec_names(ids) for _, _, ids in tables]
    except ValueError as exc:     # e.g. two ids with one name ("1" and 1): the format cannot tell them apart
        return {}, f"no word2vec file written: {exc} (embedding.npz has the ids)"
    written = {}
    for (role, vectors, _), table_names in zip(tables, names):
        with folder.writing(OUTPUT_FILES[role]) as fh:
            write_word2vec(fh, vectors, table_names)
        written[role] = OUTPUT_FILES[role]
    return written, None


def _table_pairs(graph, pairs):
    """Node-index pairs as (embedding_ row, context_embedding_ row): a bipartite graph's right side counts from 0."""
    sides = graph.table_sides()
    if sides is None or not sides.target_offset:
        return pairs
    return pairs - [0, sides.target_offset]


def _write_plot(model, graph, args, folder):
    """``embedding.png``: the picture of :func:`lgekit.plotting.plot_embedding`, titled with the model and graph."""
    from ..plotting import plot_embedding  # lazy: matplotlib only for --plot

    title = (f"{'PCA' if args.plot == 'pca' else 't-SNE'} of {type(model).__name__} on {args.graph}: "
             f"{model.embedding_.shape[0]:,} nodes ({model.embedding_.shape[1]} dimensions)")
    # a bipartite model's embedding_ holds the left nodes only, which the graph's label rows do not match
    fig = plot_embedding(model, graph if graph.labels is not None and graph.kind != "bipartite" else None,
                         method=args.plot, seed=args.seed, title=title)
    with folder.writing(OUTPUT_FILES["plot"]) as fh:
        fig.savefig(fh, format="png", dpi=110)
    return OUTPUT_FILES["plot"]


def run(args):
    with contextlib.ExitStack() as held:   # the output folder's lock, once taken, until the last file is written
        try:
            return _run(args, held)
        except (FolderNotOursError, FolderLockedError) as exc:   # a file of the user's met while publishing
            raise CommandError(str(exc)) from None
        except OSError as exc:   # a full disk: one line, as reproduce says it
            message = disk_error_message(args.out, exc, "free some space and run the same command again")
            if message is None:
                raise
            raise CommandError(message) from None


def _run(args, held):
    # the scientific stack, here and not at the top: `lgekit --help` and option errors must not pay for it
    from .. import models
    from ..models._model_file import WRITE_PEAK_BYTES, word2vec_names, write_word2vec
    from .._json import to_json_safe
    from ..callbacks import LinkPredictionCallback
    from ..evaluation import non_reciprocal_arcs
    from ..metrics import average_precision, direction_average_precision, roc_auc

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
    preset = _parameters.PRESETS[args.preset]["params"][args.model] if args.preset else {}
    # progress goes to stderr (the results to stdout): the load and the split here, the model's preparation
    # and epochs from the estimator (verbose below)
    started = time.perf_counter()
    # (no "loading ..." line first: a graph that cannot be loaded gets its one-line error alone)
    graph = _load(args)
    write_line(f"loaded {args.graph}: {graph.n_nodes:,} nodes, {graph.n_edges:,} edges in "
               f"{time.perf_counter() - started:.1f}s")
    require_negatives(graph, args.graph)
    # after the load (a graph that fails to load leaves no folder behind), before the training (a folder that
    # cannot take the results is said before the work)
    folder = _open_out(args, _planned_files(graph) + ([OUTPUT_FILES["plot"]] if args.plot else []), held)
    out = folder.path
    params = {**preset, **given, "random_state": args.seed, "n_threads": args.threads,
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
    if args.test_fraction is not None:
        started = time.perf_counter()
        split = split_graph(graph, args.test_fraction, args.seed, args.graph)
        write_line(f"split: {len(split.train_positives):,} training and {len(split.test_positives):,} test edges "
                   f"(--test-fraction {args.test_fraction:g}, --seed {args.seed}) in "
                   f"{time.perf_counter() - started:.1f}s")
        data = split
        # test AP after every epoch (a two-table model's pairs score x_u . y_v; the callback knows)
        callbacks.append(LinkPredictionCallback(split, every=1, train=False))
    # every file goes into this run's staging folder in DIR, and all are published together at the end of the
    # block: a fit that fails, diverges or is killed leaves the earlier fit's files exactly as they were
    with folder.run():
        # what writing the results takes is set aside while training, so that a fit whose files could not be
        # written is refused before it trains (the model's memory check counts it)
        # (numpy.savez's buffer and a block of word2vec text; with --plot, the 2-D projection's ~3 copies of the
        # (n, dim) float64 embedding)
        writing = WRITE_PEAK_BYTES + (3 * graph.n_nodes * int(model.dim) * 8 if args.plot else 0)
        with reserved_memory(writing, "writing " + ", ".join(_planned_files(graph))):
            try:
                model.fit(data, callbacks=callbacks)
            except models.DivergenceError as exc:
                folder.write_text(OUTPUT_FILES["history"], json.dumps(to_json_safe(exc.history), indent=1) + "\n")
                kept = folder.keep_run("training diverged")
                raise CommandError(f"training diverged: {exc} (nothing published: the files already in {str(out)!r} "
                                   f"are as they were; this run's history is in "
                                   f"{str(kept / folder.staged_name(OUTPUT_FILES['history']))}, removed by the next "
                                   "run into the folder)") from None
            except MemoryError as exc:
                # the model's estimate says what is needed and which option to lower (--dim): one line, exit 2
                raise CommandError(f"out of memory: {exc}") from None
        # the verbosity is the command's display, not the model's: saved, the model is as quiet as a new one
        model.set_params(verbose=0)
        files = {"model": OUTPUT_FILES["model"]}
        with folder.writing(OUTPUT_FILES["model"]) as fh:
            model.save(fh)
        tables, note = _write_tables(model, folder, word2vec_names, write_word2vec)
        files.update(tables)
        if args.plot:
            files["plot"] = _write_plot(model, graph, args, folder)
        folder.write_text(OUTPUT_FILES["history"], json.dumps(to_json_safe(model.history_), indent=1) + "\n")
        files.update(history=OUTPUT_FILES["history"], record=OUTPUT_FILES["record"])
        final = {}
        if split is not None:
            x, context = model.embedding_, getattr(model, "context_embedding_", None)
            test_pos, test_neg = _table_pairs(graph, split.test_positives), _table_pairs(graph, split.test_negatives)
            final["test_ap"] = average_precision(x, test_pos, test_neg, context=context)
            final["test_auc"] = roc_auc(x, test_pos, test_neg, context=context)
            final["train_ap"] = average_precision(x, _table_pairs(graph, split.train_positives),
                                                  _table_pairs(graph, split.train_negatives), context=context)
            if graph.kind == "directed" and len(non_reciprocal_arcs(graph, split.test_positives)):
                # can the model tell a held-out arc from its reverse? (0.5 for a symmetric score)
                final["test_direction_ap"] = direction_average_precision(x, split.test_positives, context=context,
                                                                         graph=graph)
        info = {"graph": args.graph, "kind": graph.kind, "model": type(model).__name__, "preset": args.preset,
                "params": model.get_params(), "test_fraction": args.test_fraction, "seed": args.seed,
                "n_iter": model.n_iter_, "final": final, "n_nodes": graph.n_nodes, "n_edges": graph.n_edges,
                "files": files,
                # the content of each file this record describes: lgekit evaluate refuses a folder mixing runs
                "sha256": {name: folder.staged_sha256(name) for role, name in files.items() if role != "record"}}
        if getattr(model, "best_iteration_", None) is not None:
            # --early-stopping: the epoch whose tables the model holds, chosen on a validation split of the training
            # edges
            info["early_stopping"] = {"best_iteration": model.best_iteration_,
                                      "best_validation_score": model.best_validation_score_}
        solver = getattr(model, "solver_", None)
        # what the graph-dependent defaults (None) resolved to for this graph (the tie's weight, the reverse pairs)
        info["in_force"] = solver.settings_in_force() if solver is not None else {}
        # last: the record names the files written before it
        folder.write_text(OUTPUT_FILES["record"], json.dumps(to_json_safe(info), indent=1, sort_keys=True) + "\n")
        # an earlier fit's files that this one did not write (its context table, a word2vec file these ids cannot
        # have): only files the manifest proves lgekit wrote, unchanged since, removed when the run publishes
        folder.remove_stale(keep=set(files.values()))
    removed = folder.removed   # what the publication removed (a file changed meanwhile is kept)
    last = model.history_[-1] if model.history_ else {}
    if "early_stopping" in info:      # the record of the tables the model holds
        last = next(r for r in model.history_ if r["epoch"] == model.best_iteration_)
    # without diagnostics the records hold no objective: say nothing of it rather than "nan"
    objective = f", objective {last['objective']:.6g}" if "objective" in last else ""
    print(f"{type(model).__name__} on {args.graph}: {model.n_iter_} epochs{objective}, mean norm "
          f"{last.get('mean_norm', float('nan')):.4g}")
    if "early_stopping" in info:
        print(f"early stopping: the tables of epoch {model.best_iteration_} (0-based), validation AP "
              f"{model.best_validation_score_:.4f} on {model.validation_fraction:g} of the training edges held out "
              "(the objective and mean norm above are that epoch's)")
    for key, value in final.items():
        print(f"{key}: {value:.4f}")
    if note:
        print(f"note: {note}")
    if removed:
        print("removed an earlier fit's " + ", ".join(str(out / name) for name in removed))
    print("wrote " + ", ".join(str(out / name) for name in files.values()))
    return 0
