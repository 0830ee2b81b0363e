"""One writer at a time in an output folder: an exclusive ``flock`` on the file ``.lock`` inside it.

A command holds the lock of the folder it writes into for its whole run, so a
second ``lgekit fit`` or ``lgekit reproduce`` into the same folder is refused
(:class:`FolderLockedError`) instead of interleaving its files with the
first's.  The kernel drops a ``flock`` when its process dies, however it dies,
so a killed run never leaves the folder locked.  The lock is re-entrant for
the thread that holds it through the same :class:`FolderLock` (``reproduce``
holds it and hands the folder to the sweep and the report, which take it
again); any other object, thread or process is refused.  Where there is no
``flock`` (Windows), folders go unlocked.

The lock file is opened relative to the folder's descriptor
(:class:`lgekit._atomic.OpenFolder`) and must be a regular file: a symbolic
link in its place would make lgekit create or lock a file outside the folder.
"""
import contextlib
import errno
import os
import threading

try:  # POSIX only: elsewhere a folder goes unlocked
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

__all__ = ["LOCK_NAME", "FolderLock", "FolderLockedError"]

#: the lock file (flock) held while a command writes into the folder
LOCK_NAME = ".lock"

# what opening the lock file raises when something other than a regular file has its name (a symbolic link, a
# folder, a FIFO, a device)
_NOT_A_FILE = (errno.ELOOP, errno.EISDIR, errno.EINVAL, errno.ENXIO)


class FolderLockedError(RuntimeError):
    """Another process (or another :class:`OutputFolder` object) is writing into the folder."""


class FolderLock:
    """The exclusive, re-entrant lock of one folder, as one object holds it.

    Parameters
    ----------
    path : path
        The folder, named in messages.
    not_ours : type
        The exception raised, with a message, when the lock file is not a
        regular file (lgekit did not make it): the output folder's
        :class:`~lgekit._output_folder.FolderNotOursError`.
    """

    def __init__(self, path, not_ours):
        self.path = path
        self._not_ours = not_ours
        self._held = None  # the lock this object holds: {"owner": (pid, thread id), "depth", "fd"}
        self._held_guard = threading.Lock()

    @contextlib.contextmanager
    def hold(self, folder, on_acquire=None):
        """Hold the lock of the open ``folder`` inside the block; ``on_acquire()`` runs once it is taken.

        ``on_acquire`` runs under the lock, when this object takes it (not
        when it re-enters it); if it raises, the lock is released and the
        exception propagates.

        Raises
        ------
        FolderLockedError
            When another process, thread or object holds it.
        """
        if fcntl is None:  # pragma: no cover - not POSIX: no locking
            yield
            return
        owner = (os.getpid(), threading.get_ident())
        with self._held_guard:
            held = self._held
            if held is not None and held["owner"][0] != owner[0]:
                held = None  # a copy made by fork: the lock is the parent's, not ours
            if held is not None:
                if held["owner"] != owner:
                    raise self._locked_error()
                held["depth"] += 1
            else:
                fd = self._acquire(folder, on_acquire)
                held = self._held = {"owner": owner, "depth": 1, "fd": fd}
        try:
            yield
        finally:
            with self._held_guard:
                held["depth"] -= 1
                if held["depth"] == 0:
                    if self._held is held:
                        self._held = None
                    os.close(held["fd"])

    def _acquire(self, folder, on_acquire):
        try:
            with folder.create(LOCK_NAME, replace=False) as fh:
                pass
        except FileExistsError:
            pass
        except OSError as exc:
            if exc.errno not in _NOT_A_FILE:
                raise
        try:
            fh = folder.open_read(LOCK_NAME)
        except OSError as exc:
            if exc.errno not in _NOT_A_FILE + (errno.ENOENT,):
                raise
            raise self._not_ours(f"the lock file {LOCK_NAME!r} in {str(self.path)!r} is not a regular file (a "
                                 "symbolic link, a folder, a FIFO, a device): lgekit did not make it; remove "
                                 "it") from None
        fd = os.dup(fh.fileno())
        fh.close()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if on_acquire is not None:
                on_acquire()
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, BlockingIOError):
                raise self._locked_error() from None
            raise
        return fd

    def _locked_error(self):
        return FolderLockedError(f"another lgekit process is writing into {str(self.path)!r}; "
                                 "wait for it to finish or use another --out folder")
