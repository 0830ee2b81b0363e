"""The ``lgekit`` command.

Each sub-command lives in its own module under ``lgekit/_commands/`` and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` to
the callable that runs it (returning the exit status).  This module only wires
them together, so the command line stays the top layer: nothing imports it.
"""
import argparse
import importlib
import logging
import sys

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


def build_parser():
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="lgekit",
        description="Linear graph embedding: data sets, training, evaluation, the paper's figures and its theory checks.",
    )
    parser.add_argument("--version", action="version", version=f"lgekit {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (repeatable)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"lgekit._commands.{name}").register(sub)
    return parser


class CommandError(Exception):
    """A user error the command reports in one line (exit status 2)."""


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from .datasets import DownloadError

    try:
        return int(args.func(args) or 0)
    except DownloadError as exc:  # a data set reached without lgekit._commands._common.load_graph
        if args.verbose >= 2:
            raise
        from ._commands._common import unavailable_message

        print(f"lgekit {args.command}: error: {unavailable_message(exc)}", file=sys.stderr)
        return 2
    except (CommandError, ValueError, TypeError, FileNotFoundError, KeyError, PermissionError, MemoryError) as exc:
        if args.verbose >= 2:
            raise
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"lgekit {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"lgekit {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
