"""Writing files atomically: a temporary file in the same folder, then rename.

A reader (or a resumed sweep) therefore sees either the old file or the whole
new one, never a half-written file, even after ``kill -9``.
"""
import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_path", "atomic_write_bytes", "atomic_write_text"]


@contextlib.contextmanager
def atomic_path(path, suffix=None):
    """Yield a temporary path next to ``path``; on success rename it onto ``path``.

    The temporary file is removed if the body raises.  ``suffix`` defaults to
    the target's suffix so that libraries which infer a format from the file
    name (``numpy.savez``, ``matplotlib.savefig``) still do the right thing.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=suffix if suffix is not None else ("".join(path.suffixes) or ".tmp"),
        dir=folder,
    )
    os.close(fd)
    # mkstemp creates the file 0600; give the result the mode a plain open() would
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        yield Path(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(data)


def atomic_write_text(path, text, encoding="utf-8"):
    """Write ``text`` to ``path`` atomically."""
    atomic_write_bytes(path, text.encode(encoding))
