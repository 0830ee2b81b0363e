"""The ``lgekit`` command.

Each sub-command lives in its own module under ``lgekit/_commands/`` and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` to
the callable that runs it (returning the exit status).  This module only wires
them together, so the command line stays the top layer: nothing imports it.

Errors.  A user error is printed in one line, ``lgekit COMMAND: error:
MESSAGE``, with exit status 2: a :class:`~lgekit._commands._common.CommandError`
(each command converts the errors it expects from its input into one), an
:class:`~lgekit._validation.InvalidParameterError`, the data sets' errors
(``DataFormatError``, ``DatasetNotFoundError``, ``DownloadError``),
:class:`lgekit.DivergenceError`, and ``FileNotFoundError``,
``PermissionError``, ``MemoryError``.  Anything else is a bug in lgekit and is
not caught: it propagates with its traceback (exit status 1 from the
``lgekit`` script).  ``-vv`` shows the traceback of user errors too.

``-v`` / ``--verbose`` is accepted anywhere on the line, before or after the
sub-command, and counts add up (``lgekit -v fit -v ...`` is ``-vv``).
"""
import argparse
import importlib
import logging
import sys

from ._commands._common import CommandError, unavailable_message
from ._validation import InvalidParameterError
from ._version import __version__

__all__ = ["main", "build_parser"]

# sub-command modules, in the order ``lgekit --help`` lists them
_COMMANDS = [
    "datasets",
    "demo",
    "reproduce",
    "fit",
    "evaluate",
    "theory",
]


# every parser level stores its -v count under its own name (argparse copies a sub-command's
# namespace over its parent's, so one shared name would keep only the innermost count)
_VERBOSE_PREFIX = "_verbose_level"


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose every command and sub-command takes ``-v/--verbose``.

    Sub-parsers are built with the class of their parent, so the option
    reaches ``lgekit datasets list -v`` too.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        level = len(self.prog.split()) - 1
        self.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                          dest=f"{_VERBOSE_PREFIX}{level}",
                          help="more log output; repeat for more (-vv also shows the traceback of any error)")

    def error(self, message):
        """A mistake on the command line, in one line with exit status 2 (argparse prints its usage block)."""
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")


def build_parser():
    parser = _Parser(
        prog="lgekit",
        description="Linear graph embedding: data sets, training, evaluation, the paper's figures and its theory checks.",
    )
    parser.add_argument("--version", action="version", version=f"lgekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"lgekit._commands.{name}").register(sub)
    return parser


def _verbosity(args):
    """The total ``-v`` count over every level, stored as ``args.verbose``; the per-level counts removed."""
    levels = [key for key in vars(args) if key.startswith(_VERBOSE_PREFIX)]
    args.verbose = sum(getattr(args, key) for key in levels)
    for key in levels:
        delattr(args, key)
    return args.verbose


def _user_error_types(command):
    """The exception types reported in one line.

    The data-set and model errors are looked up among the modules already
    imported: a command that never imported ``lgekit.models`` cannot have
    raised a ``DivergenceError``, and ``lgekit --help`` must not import NumPy
    to name it.
    """
    types = [CommandError, InvalidParameterError, FileNotFoundError, PermissionError, MemoryError]
    for module, names in (("lgekit.datasets", ("DataFormatError", "DatasetNotFoundError", "DownloadError")),
                          ("lgekit.models", ("DivergenceError",))):
        if module in sys.modules:
            types += [getattr(sys.modules[module], name) for name in names]
    return tuple(types)


def _message(exc):
    data = sys.modules.get("lgekit.datasets")
    if data is not None and isinstance(exc, (data.DownloadError, data.DatasetNotFoundError)):
        # what failed, then the steps to install the files by hand
        return unavailable_message(exc)
    if isinstance(exc, MemoryError):
        return f"out of memory: {exc}" if str(exc) else "out of memory"
    return str(exc) or type(exc).__name__


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    verbose = _verbosity(args)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"lgekit {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if verbose >= 2 or not isinstance(exc, _user_error_types(args.command)):
            raise
        print(f"lgekit {args.command}: error: {_message(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
