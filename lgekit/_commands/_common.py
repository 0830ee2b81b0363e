"""What the sub-commands share: the user-error type, option checks, data loading.

A command turns the errors it expects from its user's input (a bad option, a
file that does not parse, a graph that cannot be split) into
:class:`CommandError` at its own boundary, close to where the input is used;
``lgekit.cli`` prints those (and the library's own user-facing errors) in one
line, and lets anything else -- a bug -- show its traceback.

Nothing here imports the scientific stack at module level: ``lgekit --help``
must stay fast.
"""
import argparse
import contextlib
import logging
import math
import sys
import warnings

from .._validation import validate_params

__all__ = ["CommandError", "KIND_OPTIONS", "add_kind_options", "add_test_fraction_option", "as_command_error", "check_options", "input_notes", "load_graph",
           "output_folder", "positive_seconds", "require_negatives", "split_graph", "unavailable_message"]


class CommandError(Exception):
    """A user error the command reports in one line (exit status 2)."""


@contextlib.contextmanager
def as_command_error(*types, prefix=""):
    """Re-raise the listed exception types, raised inside the ``with`` block, as :class:`CommandError`.

    Wrap only the calls whose errors of those types come from the user's
    input (a graph file, an option), so that a bug elsewhere still shows its
    traceback.

    Parameters
    ----------
    *types : exception classes
    prefix : str
        Put before the original message (e.g. ``"cannot split the graph: "``).
    """
    try:
        yield
    except types as exc:
        raise CommandError(f"{prefix}{exc}") from exc   # -vv shows the original error as the cause


def check_options(args, constraints):
    """Check parsed options against a table of constraints keyed by their ``dest``; None means "not given".

    Messages name the option as typed (``--lam-r must be a finite number >=
    0, got -1.0``), and the error is an
    :class:`~lgekit._validation.InvalidParameterError`, which the command
    line reports in one line.

    Parameters
    ----------
    args : argparse.Namespace
    constraints : dict of str to list
        ``dest`` to constraints, as in :func:`lgekit._validation.validate_params`.
    """
    given = {dest: getattr(args, dest) for dest in constraints if getattr(args, dest) is not None}
    flag = {dest: "--" + dest.replace("_", "-") for dest in given}
    validate_params({flag[d]: constraints[d] for d in given}, {flag[d]: v for d, v in given.items()})


def output_folder(text):
    """An ``--out DIR`` value: any path but an empty one (``Path("")`` is the current folder, never meant)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a folder, got {text!r}; an empty path is not taken for the "
                                         "current folder: write '.' for it")
    return text


def positive_seconds(text):
    """A duration option (``--timeout SECONDS``): a positive, finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive, finite number of seconds, got {text!r}")
    return value


def add_kind_options(parser, when=""):
    """``--directed`` / ``--bipartite`` (mutually exclusive): the graph kind to load the graph with."""
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--directed", action="store_true",
                      help=f"{when}keep the arcs' direction: the model has an out- and an in-vector per node "
                           "(its embedding and context embedding; the paper's footnote 1), scored x_u . y_v")
    kind.add_argument("--bipartite", action="store_true",
                      help=f"{when}read GRAPH as (left, right) pairs of a bipartite graph: the model has a left "
                           "and a right table")
    return kind


class _DeprecatedAlias(argparse.Action):
    """An old spelling of an option: stores into the new option's dest and says, once, to use the new name."""

    def __init__(self, option_strings, dest, new_flag=None, **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"note: {option_string} is deprecated, use {self.new_flag} (the same setting)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_test_fraction_option(parser, help):
    """``--test-fraction F``, the held-out fraction of the edges (``split_edges``' ``test_fraction``).

    Every command names the setting the same way; ``--split``, its old name in
    ``fit`` and ``evaluate``, still works and says it is deprecated.
    """
    parser.add_argument("--test-fraction", type=float, default=None, metavar="F", dest="test_fraction", help=help)
    parser.add_argument("--split", type=float, dest="test_fraction", metavar="F", action=_DeprecatedAlias,
                        new_flag="--test-fraction", help=argparse.SUPPRESS)


def unavailable_message(exc):
    """The one message a command prints for a registered data set it cannot get.

    What failed, in one line, then how to install the files by hand: the
    list of URLs tried is in the exception for whoever wants it, but a user
    at a prompt needs the steps, not a traceback.

    Parameters
    ----------
    exc : lgekit.datasets.DownloadError or lgekit.datasets.DatasetNotFoundError

    Returns
    -------
    str
    """
    reason = getattr(exc, "reason", "") or str(exc).split("\n", 1)[0]
    hint = getattr(exc, "hint", "")
    name = getattr(exc, "dataset", None)
    head = f"data set {name!r} is not available: {reason}" if name else reason
    return f"{head}\n{hint}" if hint else head


#: ``--directed`` / ``--bipartite`` (and a model file's "undirected", for a data set whose default reading is
#: directed: Cora): the loaders' keyword for each graph kind
KIND_OPTIONS = {"directed": {"directed": True}, "bipartite": {"bipartite": True}, "undirected": {"directed": False}}


class _Notes(logging.Handler):
    """Turns the loaders' log records that say the input was changed ("dropped 642 self-loops") into notes.

    Installed on the ``lgekit.datasets`` logger while it does not propagate:
    a note record is kept (and said once, as a note), every other record at
    or above ``threshold`` (the level the user asked for) goes on to the
    root logger's handlers as before.
    """

    def __init__(self, threshold):
        super().__init__(logging.DEBUG)
        self.threshold = threshold
        self.lines = []

    def emit(self, record):
        if "dropped" in record.getMessage() and record.levelno < logging.WARNING:
            self.lines.append(record.getMessage())
        elif record.levelno >= self.threshold:
            logging.getLogger().handle(record)


@contextlib.contextmanager
def input_notes(what):
    """Say, in one plain line each on stderr, how the loaders changed the input read inside the block.

    A path's self-loops come as a :class:`~lgekit.GraphWarning` (shown by
    Python with a source line), a registered data set's as an INFO log record
    (a known property of the data set): a user at a prompt gets the same
    ``note: WHAT: dropped 2 self-loop(s)`` line for both.
    """
    datasets_logger = logging.getLogger("lgekit.datasets")
    handler = _Notes(datasets_logger.getEffectiveLevel())
    saved = datasets_logger.level, datasets_logger.propagate
    datasets_logger.addHandler(handler)
    datasets_logger.setLevel(logging.INFO)
    datasets_logger.propagate = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        datasets_logger.removeHandler(handler)
        datasets_logger.setLevel(saved[0])
        datasets_logger.propagate = saved[1]
    # what is not a GraphWarning is not ours to reword: shown as Python shows it
    for w in caught:
        if not _is_graph_warning(w.category):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    seen = set()
    for line in [str(w.message) for w in caught if _is_graph_warning(w.category)] + handler.lines:
        text = line if line.startswith(str(what)) else f"{what}: {line}"
        if text not in seen:
            seen.add(text)
            print(f"note: {text}", file=sys.stderr)


def _is_graph_warning(category):
    graph = sys.modules.get("lgekit.graph")
    return graph is not None and issubclass(category, graph.GraphWarning)


def load_graph(name_or_path, kind="graph file", graph_kind=None):
    """``lgekit.datasets.load`` with a one-message :class:`CommandError` for every way it can fail.

    Names and paths are resolved as :func:`lgekit.datasets.resolve` says (a
    registered name first, then a path).  A registered data set that is
    missing and cannot be downloaded (offline, ``LGEKIT_OFFLINE=1``, an HTTP
    error) gives :func:`unavailable_message`; an unknown name "unknown data
    set"; a file that does not parse "cannot read <kind>".  ``kind`` names
    what a path is in the message ("graph file", "data set file").
    ``graph_kind`` (``"directed"``, ``"bipartite"`` or None, undirected)
    keeps the arcs' direction or the two sides; the message then names the
    option.  What the loaders changed (self-loops dropped) is one ``note:``
    line on stderr (:func:`input_notes`).
    """
    from .. import datasets    # NumPy and SciPy: imported by the commands that load data, not by `lgekit --help`

    try:
        source = datasets.resolve(name_or_path)
    except FileNotFoundError as exc:
        raise CommandError(f"unknown data set {str(name_or_path)!r}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise CommandError(f"cannot read {kind} {str(name_or_path)!r}: {exc}") from None
    except OSError as exc:   # a name longer than the file system allows, a folder that cannot be listed...
        raise CommandError(f"cannot read {kind} {_shown(name_or_path)}: {exc.strerror or exc}") from None
    options = KIND_OPTIONS.get(graph_kind, {})
    try:
        with input_notes(name_or_path):
            return datasets.load(name_or_path, **options)
    except (datasets.DownloadError, datasets.DatasetNotFoundError) as exc:
        raise CommandError(unavailable_message(exc)) from None
    except OSError as exc:   # permission denied, an I/O error, a name too long on the way
        if isinstance(exc, FileNotFoundError):
            raise CommandError(f"cannot read {kind} {_shown(name_or_path)}: {exc}") from None
        raise CommandError(f"cannot read {kind} {_shown(name_or_path)}: {exc.strerror or exc}") from None
    except (KeyError, ValueError, TypeError) as exc:
        what = f"cannot read {kind}" if source.kind == "path" else "cannot load data set"
        if graph_kind in ("directed", "bipartite"):
            what = f"cannot load {kind if source.kind == 'path' else 'data set'} with --{graph_kind}"
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise CommandError(f"{what} {str(name_or_path)!r}: {message}") from None


def _shown(path, limit=120):
    """A path for a one-line message: quoted, its middle elided when it is longer than ``limit`` characters."""
    text = str(path)
    return repr(text) if len(text) <= limit else repr(text[:limit // 2] + "..." + text[-limit // 2:])


def require_negatives(graph, what):
    """A :class:`CommandError` unless ``graph`` has an edge and a non-edge (a positive and a negative pair).

    Training and scoring contrast edges with non-edges: a graph without edges,
    or a complete one, is a property of the user's data, better said here in
    one line than found deep inside a sampler.

    Parameters
    ----------
    graph : lgekit.Graph
    what : str
        How the graph is named in the message (its argument, e.g. ``"lesmis.tsv"``).
    """
    n = graph.n_nodes
    pairs = n * (n - 1) if graph.is_directed else n * (n - 1) // 2
    if graph.n_edges == 0:
        raise CommandError(f"the graph {what!r} has no edges ({n} nodes): there is no positive pair")
    if graph.n_edges >= pairs:
        raise CommandError(f"the graph {what!r} is complete ({n} nodes, {graph.n_edges} edges): there is no "
                           "non-edge to use as a negative pair")


def split_graph(graph, test_fraction, seed, what):
    """:func:`lgekit.split_edges` for a command: a split that cannot be made, or leaves a side empty, is a CommandError.

    Training needs a training edge and scoring a test edge; a fraction that
    rounds either count to 0 on a small graph is the user's choice, said in
    one line instead of failing later inside the metrics.

    Parameters
    ----------
    graph : lgekit.Graph
    test_fraction : float
        Already checked to lie in (0, 1).
    seed : int
    what : str
        How the graph is named in messages.

    Returns
    -------
    lgekit.EdgeSplit
    """
    from ..evaluation import split_edges    # NumPy and the kernels: only for the commands that split

    with as_command_error(ValueError, prefix=f"cannot split the graph {what!r}: "):
        split = split_edges(graph, test_fraction=test_fraction, seed=seed)
    n_train, n_test = len(split.train_positives), len(split.test_positives)
    if n_train == 0 or n_test == 0:
        raise CommandError(f"a {test_fraction:g} split of the graph {what!r} ({graph.n_edges} edges) leaves {n_train} "
                           f"training and {n_test} test edges; both need at least one: choose another fraction")
    return split
