"""Writing files atomically: a temporary file in the same folder, then rename.

A reader (or a resumed sweep) therefore sees either the old file or the whole
new one, never a half-written file, even after ``kill -9``.

Temporary files are named ``.lgekit-tmp.<32 hex digits>.<target name>``
(:data:`TEMPORARY_PATTERN`): a name no user file is likely to have, so that a
cleanup after an interrupted run can remove exactly what lgekit left behind and
nothing else (:func:`temporary_target`).  The target's own name comes last, so
libraries that infer a format from the suffix (``numpy.savez``,
``matplotlib.savefig``) still see it.

Writing inside a folder that someone else may change meanwhile (an output
folder, :mod:`lgekit._output_folder`) goes by descriptor instead of by path:
:func:`open_folder` opens the folder once, walking from the root one component
at a time with ``O_NOFOLLOW``, and every later open, rename, link and unlink
is made relative to that descriptor (``dir_fd=``), so that a folder renamed or
swapped for a symbolic link after it was opened redirects nothing.
"""
import contextlib
import errno
import os
import re
import secrets
import stat
import weakref
from pathlib import Path

__all__ = ["atomic_path", "atomic_write_bytes", "atomic_write_text", "atomic_create_bytes", "TEMPORARY_PREFIX",
           "TEMPORARY_PATTERN", "temporary_target", "DIR_FD", "NO_HARD_LINKS", "check_file_target", "create_file_at",
           "open_folder", "open_subfolder", "OpenFolder"]

#: every temporary file lgekit writes starts with this
TEMPORARY_PREFIX = ".lgekit-tmp."
#: the full name of a temporary: prefix, 128 random bits in lowercase hex, the target's name
TEMPORARY_PATTERN = re.compile(r"\.lgekit-tmp\.([0-9a-f]{32})\.(.+)", re.DOTALL)

# room for the prefix and token within the 255-byte name limit of common file systems
_MAX_NAME_BYTES = 255 - len(TEMPORARY_PREFIX) - 33

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# a FIFO or a device in place of a file must not block an open
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
#: whether this platform opens, renames, links and unlinks relative to a folder descriptor (POSIX)
DIR_FD = all(f in os.supports_dir_fd for f in (os.open, os.mkdir, os.rename, os.unlink, os.rmdir, os.stat)) and bool(
    _O_NOFOLLOW and _O_DIRECTORY)


def check_file_target(path):
    """``path`` as a Path when it can name a file to write; IsADirectoryError when it names a folder.

    A path written with a trailing separator (``"results/"``) names a folder
    even when nothing is there yet (``Path`` would drop the separator and
    write a file called ``results``); an existing folder is one too.
    """
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if text.endswith(("/", os.sep)) or (os.altsep and text.endswith(os.altsep)):
        raise IsADirectoryError(errno.EISDIR, f"{text!r} ends with {text[-1]!r}, so it names a folder; name a file "
                                              "(e.g. 'model.npz' inside it)", text)
    if os.path.isdir(text):
        raise IsADirectoryError(errno.EISDIR, f"{text!r} is a folder; name a file (e.g. "
                                              f"{os.path.join(text, 'model.npz')!r})", text)
    return Path(text)


def open_subfolder(dir_fd, name, *, create=False):
    """A descriptor of the folder ``name`` (one component) inside the folder ``dir_fd``, never through a link.

    With ``create``, a missing folder is made first.  ``OSError`` (ELOOP or
    ENOTDIR) when ``name`` is a symbolic link or no folder.
    """
    flags = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise
    with contextlib.suppress(FileExistsError):   # made meanwhile by another run: opened below, checked as any
        os.mkdir(name, 0o777, dir_fd=dir_fd)
    return os.open(name, flags, dir_fd=dir_fd)


def open_folder(path, *, create=False):
    """A descriptor of the folder ``path``, opened from the root one component at a time, never through a link.

    The folders above ``path`` are taken as they are when it is opened (their
    symbolic links resolved once: ``/tmp`` may be a link to ``/private/tmp``),
    and then each component is opened relative to the one before with
    ``O_NOFOLLOW``; ``path`` itself must be a real folder.  With ``create``,
    missing folders are made on the way.  What is done through the
    descriptor afterwards stays in that folder, wherever it is moved and
    whatever is put at its path.

    Raises
    ------
    OSError
        ``ELOOP``/``ENOTDIR`` when ``path`` (or a folder above it, swapped in
        meanwhile) is a symbolic link or no folder; ``ENOENT`` when it is
        missing and not ``create``; ``ENAMETOOLONG``, ``EACCES``... as the
        system says.
    """
    absolute = Path(os.path.abspath(os.fspath(path)))
    # the folders above, resolved once; the folder itself, never through a link
    parts = list(Path(os.path.realpath(absolute.parent)).parts[1:]) + [absolute.name] if absolute.name else []
    fd = os.open(absolute.anchor or os.sep, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for part in parts:
            inner = open_subfolder(fd, part, create=create)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_file_at(dir_fd, name, mode=0o666):
    """A new file ``name`` in the folder ``dir_fd``, opened for writing in binary; ``FileExistsError`` if one is there.

    Never follows a symbolic link: a name taken by anything is refused
    (``O_CREAT | O_EXCL | O_NOFOLLOW``).
    """
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, mode, dir_fd=dir_fd)
    return os.fdopen(fd, "wb")


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
    path = check_file_target(path)
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
NO_HARD_LINKS = frozenset(code for code in (errno.EPERM, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", None),
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
            if exc.errno not in NO_HARD_LINKS:
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


class OpenFolder:
    """A folder opened once; every open, rename, link and unlink inside it goes through this object.

    On POSIX it holds a descriptor (from :func:`open_folder` or
    :func:`open_subfolder`) and works relative to it (``dir_fd=``), never
    following a symbolic link: what it does stays in the folder it opened,
    wherever that folder is moved and whatever is put at its path meanwhile.
    Elsewhere (Windows) it works by path, after the same checks (no
    protection against a folder swapped meanwhile).

    Parameters
    ----------
    path : str or path
        Where the folder is (for messages, and the fallback by path).
    fd : int or None
        Its descriptor, owned by this object from now on (closed with it).
    """

    def __init__(self, path, fd=None):
        self.path = Path(path)
        self.fd = fd
        self._close = weakref.finalize(self, os.close, fd) if fd is not None else None

    @classmethod
    def open(cls, path, *, create=False):
        """The folder ``path`` (see :func:`open_folder`); OSError when it is missing (unless ``create``),
        a symbolic link or no folder."""
        if DIR_FD:
            return cls(path, open_folder(path, create=create))
        path = Path(os.path.abspath(os.fspath(path)))  # pragma: no cover - not POSIX
        if create:  # pragma: no cover
            path.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or not path.is_dir():  # pragma: no cover
            raise NotADirectoryError(errno.ENOTDIR, "a symbolic link or no folder", str(path))
        return cls(path)  # pragma: no cover

    def sub(self, name, *, create=False):
        """The folder ``name`` (one component) inside this one, never through a link (see :func:`open_subfolder`)."""
        if self.fd is not None:
            return OpenFolder(self.path / name, open_subfolder(self.fd, name, create=create))
        path = self.path / name  # pragma: no cover - not POSIX
        if create and not os.path.lexists(path):  # pragma: no cover
            path.mkdir()
        if path.is_symlink() or not path.is_dir():  # pragma: no cover
            raise NotADirectoryError(errno.ENOTDIR, "a symbolic link or no folder", str(path))
        return OpenFolder(path)  # pragma: no cover

    def close(self):
        if self._close is not None:
            self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"OpenFolder({str(self.path)!r})"

    def _at(self, name):
        return {"dir_fd": self.fd} if self.fd is not None else {}

    def _name(self, name):
        return name if self.fd is not None else str(self.path / name)

    def lstat(self, name):
        """``os.stat`` of ``name`` without following a link."""
        return os.stat(self._name(name), follow_symlinks=False, **self._at(name))

    def exists(self, name):
        """Whether anything (a file, a folder, a link) is called ``name`` here."""
        try:
            self.lstat(name)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    def open_read(self, name):
        """``name`` opened for reading in binary, if it is a regular file (a link, FIFO or device is refused:
        ``OSError``, with ``EINVAL`` for a file that is there but not regular)."""
        fd = os.open(self._name(name), os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY,
                     **self._at(name))
        return self._regular_file(fd, name, "rb")

    def create(self, name, *, replace=False):
        """A new file ``name``, opened for writing in binary (never through a link).

        Without ``replace``, ``FileExistsError`` when anything is called
        ``name``; with it, a regular file of that name is emptied first (the
        reserved names lgekit rewrites under its lock).
        """
        flags = os.O_WRONLY | os.O_CREAT | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY | (os.O_TRUNC if replace else os.O_EXCL)
        fd = os.open(self._name(name), flags | _O_NONBLOCK, 0o666, **self._at(name))
        return self._regular_file(fd, name, "wb")

    def _regular_file(self, fd, name, mode):
        """``fd`` as a file object in ``mode`` if it is a regular file; else closed, and ``OSError`` (EINVAL).

        Opened non-blocking so that a FIFO cannot hang the open; blocking again for the reads and writes."""
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a regular file", str(self.path / name))
        if _O_NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, mode)

    def mkdir(self, name, mode=0o777):
        os.mkdir(self._name(name), mode, **self._at(name))

    def unlink(self, name):
        os.unlink(self._name(name), **self._at(name))

    def rmdir(self, name):
        os.rmdir(self._name(name), **self._at(name))

    def rename(self, name, dest, dest_name):
        """Rename ``name`` here to ``dest_name`` in the open folder ``dest`` (replacing a file there)."""
        if self.fd is not None and dest.fd is not None:
            os.rename(name, dest_name, src_dir_fd=self.fd, dst_dir_fd=dest.fd)
        else:  # pragma: no cover - not POSIX
            os.replace(self.path / name, dest.path / dest_name)

    def link(self, name, dest, dest_name):
        """Give the file ``name`` here a second name, ``dest_name`` in ``dest``: never replaces anything there.

        ``FileExistsError`` when ``dest_name`` is taken; an OSError with an
        errno of :data:`NO_HARD_LINKS` on a file system without hard links.
        """
        if self.fd is not None and dest.fd is not None:
            os.link(name, dest_name, src_dir_fd=self.fd, dst_dir_fd=dest.fd, follow_symlinks=False)
        else:  # pragma: no cover - not POSIX
            os.link(self.path / name, dest.path / dest_name)

    def names(self):
        """The names of the entries of the folder, sorted."""
        return sorted(os.listdir(self.fd if self.fd is not None else self.path))

    def fsync(self):
        """Make the folder's entries (renames, links) durable, where the platform can."""
        if self.fd is not None:
            with contextlib.suppress(OSError):   # some file systems refuse fsync on a folder: nothing to do there
                os.fsync(self.fd)
