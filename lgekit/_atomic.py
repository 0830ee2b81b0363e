"""Writing files atomically: a temporary file in the same folder, then rename.

A reader (or a resumed sweep) therefore sees either the old file or the whole
new one, never a half-written file, even after ``kill -9``.

Temporary files are named ``.lgekit-tmp.<32 hex digits>.<target name>``
(:data:`TEMPORARY_PATTERN`): a name no user file is likely to have, so that a
cleanup after an interrupted run can remove exactly what lgekit left behind and
nothing else (:func:`temporary_target`).  The target's own name comes last, so
libraries that infer a format from the suffix (``numpy.savez``,
``matplotlib.savefig``) still see it.
"""
import contextlib
import errno
import os
import re
import secrets
from pathlib import Path

__all__ = ["atomic_path", "atomic_write_bytes", "atomic_write_text", "atomic_create_bytes", "TEMPORARY_PREFIX",
           "TEMPORARY_PATTERN", "temporary_target"]

#: every temporary file lgekit writes starts with this
TEMPORARY_PREFIX = ".lgekit-tmp."
#: the full name of a temporary: prefix, 128 random bits in lowercase hex, the target's name
TEMPORARY_PATTERN = re.compile(r"\.lgekit-tmp\.([0-9a-f]{32})\.(.+)", re.DOTALL)

# room for the prefix and token within the 255-byte name limit of common file systems
_MAX_NAME_BYTES = 255 - len(TEMPORARY_PREFIX) - 33


def temporary_target(name):
    """The name of the file a temporary called ``name`` was going to become, or ``None``.

    ``None`` means ``name`` is not an lgekit temporary (it does not match
    :data:`TEMPORARY_PATTERN` exactly) and must be left alone.

    Examples
    --------
    >>> temporary_target(".lgekit-tmp.0123456789abcdef0123456789abcdef.fig3.pdf")
    'fig3.pdf'
    >>> temporary_target(".fig3.pdf.k2j4.pdf") is None
    True
    """
    match = TEMPORARY_PATTERN.fullmatch(name)
    return match.group(2) if match else None


def _temporary_name(target_name, suffix):
    token = secrets.token_hex(16)
    tail = target_name
    if suffix and not tail.endswith(suffix):
        tail += suffix
    if len(os.fsencode(tail)) > _MAX_NAME_BYTES:
        # a very long target name: keep only its suffix (the format hint); the rename restores the name
        tail = "x" + (suffix if suffix is not None else "".join(Path(target_name).suffixes[-1:]))
        tail = tail if len(os.fsencode(tail)) <= _MAX_NAME_BYTES else "x.tmp"
    return f"{TEMPORARY_PREFIX}{token}.{tail}"


@contextlib.contextmanager
def atomic_path(path, suffix=None, before_rename=None):
    """Yield a temporary path next to ``path``; on success rename it onto ``path``.

    Parameters
    ----------
    path : str or path
        The file to write.  Its folder must exist.
    suffix : str, optional
        Appended to the temporary's name when the target's name does not
        already end with it (e.g. ``".npz"``, which ``numpy.savez`` would
        otherwise append itself).  By default the temporary ends with the
        target's name, hence with its suffix.
    before_rename : callable, optional
        ``before_rename(tmp)``, called once the temporary is written and
        synced, just before it replaces ``path`` (the output folder lists the
        new content as its own there, :mod:`lgekit._output_folder`).  If it
        raises, nothing is renamed.

    Yields
    ------
    pathlib.Path
        An empty file, created with the permissions a plain ``open(path, "w")``
        would give (``0o666`` minus the umask).

    Raises
    ------
    FileNotFoundError
        When the folder of ``path`` does not exist.

    Notes
    -----
    The temporary is created by ``os.open(..., O_CREAT | O_EXCL, 0o666)``, so
    the kernel applies the process umask: the umask is never read or changed,
    which would race with other threads creating files.  The temporary is
    removed if the body raises.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {folder} does not exist")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = folder / _temporary_name(path.name, suffix)
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:  # 128 random bits: only if the random source is broken
            continue
        break
    else:  # pragma: no cover
        raise FileExistsError(f"cannot create a temporary file next to {path}: every name tried exists")
    os.close(fd)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        if before_rename is not None:
            before_rename(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


#: what os.link raises on a file system without hard links (FAT, some network and FUSE file systems)
_NO_HARD_LINKS = frozenset(code for code in (errno.EPERM, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", None),
                                             errno.EXDEV, errno.EMLINK) if code is not None)


def atomic_create_bytes(path, data):
    """Create ``path`` holding ``data``, whole, unless a file of that name exists: then ``FileExistsError``.

    Two processes creating the same file at once: one succeeds, the other
    gets ``FileExistsError`` and nothing of its ``data`` is written (the
    output folder's manifest, :mod:`lgekit._output_folder`, is created so).
    The data goes to a temporary (as in :func:`atomic_path`), which is then
    hard-linked into place: unlike a rename, a link never replaces a file.
    On a file system without hard links ``path`` is created with ``O_EXCL``
    and written in place (exclusive still, but a crash may leave it short).
    """
    path = Path(path)
    tmp = path.parent / _temporary_name(path.name, None)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(data)


def atomic_write_text(path, text, encoding="utf-8"):
    """Write ``text`` to ``path`` atomically."""
    atomic_write_bytes(path, text.encode(encoding))
