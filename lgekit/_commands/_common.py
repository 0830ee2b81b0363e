"""What the sub-commands share: the user-error type, option checks, data loading.

A command turns the errors it expects from its user's input (a bad option, a
file that does not parse, a graph that cannot be split) into
:class:`CommandError` at its own boundary, close to where the input is used;
``lgekit.cli`` prints those (and the library's own user-facing errors) in one
line, and lets anything else -- a bug -- show its traceback.

Nothing here imports the scientific stack at module level: ``lgekit --help``
must stay fast.
"""
import contextlib

from .._validation import validate_params

__all__ = ["CommandError", "as_command_error", "check_options", "load_graph", "require_negatives", "split_graph",
           "unavailable_message"]


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


def load_graph(name_or_path, kind="graph file"):
    """``lgekit.datasets.load`` with a one-message :class:`CommandError` for every way it can fail.

    Names and paths are resolved as :func:`lgekit.datasets.resolve` says (a
    registered name first, then a path).  A registered data set that is
    missing and cannot be downloaded (offline, ``LGEKIT_OFFLINE=1``, an HTTP
    error) gives :func:`unavailable_message`; an unknown name "unknown data
    set"; a file that does not parse "cannot read <kind>".  ``kind`` names
    what a path is in the message ("graph file", "data set file").
    """
    from .. import datasets

    try:
        source = datasets.resolve(name_or_path)
    except FileNotFoundError as exc:
        raise CommandError(f"unknown data set {str(name_or_path)!r}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise CommandError(f"cannot read {kind} {str(name_or_path)!r}: {exc}") from None
    try:
        return datasets.load(name_or_path)
    except (datasets.DownloadError, datasets.DatasetNotFoundError) as exc:
        raise CommandError(unavailable_message(exc)) from None
    except (FileNotFoundError, KeyError, ValueError) as exc:
        what = f"cannot read {kind}" if source.kind == "path" else "cannot load data set"
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise CommandError(f"{what} {str(name_or_path)!r}: {message}") from None


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
    from ..evaluation import split_edges

    with as_command_error(ValueError, prefix=f"cannot split the graph {what!r}: "):
        split = split_edges(graph, test_fraction=test_fraction, seed=seed)
    n_train, n_test = len(split.train_positives), len(split.test_positives)
    if n_train == 0 or n_test == 0:
        raise CommandError(f"a {test_fraction:g} split of the graph {what!r} ({graph.n_edges} edges) leaves {n_train} "
                           f"training and {n_test} test edges; both need at least one: choose another fraction")
    return split
