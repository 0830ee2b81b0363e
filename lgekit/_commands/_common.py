"""Helpers shared by the sub-commands."""
__all__ = ["load_graph", "unavailable_message"]


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
    from ..cli import CommandError

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
