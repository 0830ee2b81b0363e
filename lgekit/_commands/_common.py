"""Helpers shared by the sub-commands."""
from pathlib import Path

__all__ = ["load_graph"]


def load_graph(name_or_path, kind="graph file"):
    """``lgekit.datasets.load`` with a one-line :class:`CommandError` for unknown names and unreadable files.

    ``kind`` names what a path is in the message ("graph file", "data set file").
    """
    from .. import datasets
    from ..cli import CommandError

    try:
        return datasets.load(name_or_path)
    except (FileNotFoundError, KeyError, ValueError) as exc:
        exists = Path(name_or_path).expanduser().exists()
        what = f"cannot read {kind}" if exists else "unknown data set"
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise CommandError(f"{what} {name_or_path!r}: {message}") from None
