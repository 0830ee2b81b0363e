"""Which files in an output folder are lgekit's, which command wrote each, and one finished run at a time.

A command that writes into a folder the user names (``lgekit reproduce --out``,
``lgekit fit --out``, ``lgekit theory --out``) must never delete or overwrite
a file the user put there, nor one another command wrote; and the files it
leaves there must all belong to one finished run.  A name is not proof (the
user's ``fig2.png`` looks like ours), so every file lgekit writes is listed
in a manifest kept in the folder, ``.lgekit-manifest.json``, with the command
that wrote it and the SHA-256 of the content it wrote.

**The folder is held, not named.**  :class:`OutputFolder` opens the folder
once (:class:`lgekit._atomic.OpenFolder`: from the root, one component at a
time, ``O_NOFOLLOW``) and every open, rename, link and unlink afterwards is
made relative to that descriptor: a folder renamed, or swapped for a symbolic
link, after the run started redirects nothing.

**Deleting or overwriting** a path needs all of:

* a regular file inside the folder, reached through real folders only (each
  opened relative to the one before with ``O_NOFOLLOW``);
* listed in the manifest by the command doing it (``fit`` never removes what
  ``reproduce`` or ``theory`` wrote);
* of the content listed (its SHA-256 is one the manifest records; a file the
  user edited afterwards is theirs again) -- checked *after* the file has
  been moved aside, atomically, into the run's own folder: what is checked
  is what is deleted, whatever is renamed onto the name meanwhile (that file
  is left where it is).

**A run publishes together** (:meth:`OutputFolder.run`).  A run writes each
file into a staging folder of its own inside the output folder,
``.lgekit-run.<32 hex digits>`` (listed in the manifest before it is made),
and nothing else.  When every file is complete and synced, the manifest
records the run as *publishing*, with the name and hash of each file (the
journal); then each file is linked into place (a link never replaces a file:
the name's earlier content is first moved aside and proved ours, as above),
the files the run no longer writes are removed, and the manifest is written
last, listing the new files.  So:

* a run that fails or is killed before it publishes leaves the previous run's
  files exactly as they were, plus its staging folder, which the next run
  into the folder removes (it is listed in the manifest: proved, not
  guessed); a run may keep it on purpose (:meth:`OutputFolder.keep_run`: a
  diverged fit's history), and says where;
* a run killed while publishing (a few renames) is finished by the next run
  (the journal says what to link where: every file of it is complete).

Nothing else is ever removed: no name pattern is proof (a user's
``.report.md.20240101.md`` stays, whatever earlier lgekit temporaries were
called).

The manifest's format, and when a manifest proves something, are
:mod:`lgekit._manifest`'s; the lock is :mod:`lgekit._folder_lock`'s.

The rules for a folder:

* Claiming: a missing or empty folder, or one that holds a valid manifest,
  is claimed (the manifest is created under the folder's lock).  A folder
  that holds anything else is refused with :class:`FolderNotOursError`,
  unless ``force=True`` (``--force``): then lgekit writes into it,
  overwriting the files of the names it writes (regular files and links, never
  a folder), and still removes nothing it cannot prove it wrote.  A subfolder
  the owner manages (``subfolders``, the store's ``cells/``) must be a real
  folder, never a symbolic link, forced or not.
* One writer: :meth:`OutputFolder.lock`, an exclusive ``flock`` on ``.lock``
  in the folder (:class:`lgekit._folder_lock.FolderLock`), held by a command
  for its whole run (a second ``fit`` or ``reproduce`` into the folder is
  refused).  The manifest is only ever written under it, and the leftover
  runs are settled when it is taken.  (Where there is no ``flock``, on
  Windows, folders go unlocked and leftover runs stay.)

What does not count as content when deciding that a folder is empty: the
three names lgekit reserves (``.lock``, the manifest and its ``.new``), the
temporaries of an interrupted write of earlier versions
(:data:`lgekit._atomic.TEMPORARY_PATTERN`; not removed: they prove nothing),
the run folders the manifest lists, empty subfolders lgekit creates
(``subfolders``, e.g. the results store's ``cells/``), and nested output
folders (``lgekit theory`` writes ``lgekit-results/theory/`` beside ``lgekit
reproduce``'s results).  A subfolder named in ``subfolders`` belongs to the
folder's owner as a whole: its files are managed by their own writer (the
store validates every cell file by its content), not listed one by one
(:meth:`OutputFolder.replace_in_subfolder`).

Typical use::

    folder = OutputFolder("results", force=args.force, command="lgekit fit")  # FolderNotOursError: one line
    with folder.lock(), folder.run():                       # FolderLockedError: another run writes there
        folder.check_writable(["embedding.npz", "embedding.txt"])  # before any long work
        folder.write_bytes("notes.txt", b"...")
        with folder.writing("embedding.npz") as fh:          # a binary file in the run's staging folder
            numpy.savez(fh, ...)
        folder.remove_stale(keep={"embedding.npz"})         # this command's earlier files this run did not write
    # published together here; an exception inside the block publishes nothing
"""
import contextlib
import errno
import hashlib
import os
import secrets
import stat
from pathlib import Path

from ._atomic import NO_HARD_LINKS, OpenFolder, temporary_target
from ._folder_lock import LOCK_NAME, FolderLock, FolderLockedError
from ._input_file import file_sha256  # every file lgekit reads is read by that module (regular files only)
from ._manifest import (MANIFEST_MAX_BYTES, MANIFEST_NAME, MANIFEST_NEXT, RUN_PREFIX, check_name, name_problem,
                        read_manifest, write_manifest)

__all__ = ["OutputFolder", "FolderNotOursError", "FolderLockedError", "MANIFEST_NAME", "LOCK_NAME", "RUN_PREFIX",
           "DISK_ERRNOS", "MANIFEST_MAX_BYTES", "disk_error_message", "file_sha256"]

#: names that never make a folder "not empty" (a manifest does, when it is not a valid one: then it is looked at)
_IGNORED = frozenset({LOCK_NAME, MANIFEST_NEXT})

#: errors of the disk, not of lgekit (full, over quota, file too large, read-only): a command reports them in
#: one line, and the work done so far stays resumable
DISK_ERRNOS = frozenset(code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EFBIG, errno.EROFS)
                        if code is not None)


def disk_error_message(folder, exc, resume=""):
    """One line for a write into ``folder`` that the disk refused, or ``None`` when ``exc`` is no such error.

    Parameters
    ----------
    folder : str or path
        The output folder (named in the line).
    exc : BaseException
    resume : str, optional
        What the user does once space is freed (appended).

    Examples
    --------
    >>> import errno, os
    >>> disk_error_message("out", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    "cannot write into 'out': No space left on device (errno ENOSPC)"
    """
    code = getattr(exc, "errno", None)
    if not isinstance(exc, OSError) or code not in DISK_ERRNOS:
        return None
    return (f"cannot write into {str(folder)!r}: {os.strerror(code)} (errno {errno.errorcode.get(code, code)})"
            + (f"; {resume}" if resume else ""))


class FolderNotOursError(ValueError):
    """The folder holds files lgekit cannot prove it wrote, and writing there was not forced; or writing would
    leave the folder (a symbolic link on the way), which nothing forces."""


def _elided(path, limit=120):
    """A path quoted for a one-line message, its middle elided past ``limit`` characters."""
    text = str(path)
    return repr(text) if len(text) <= limit else repr(text[:limit // 2] + "..." + text[-limit // 2:])


def _sha256_of(fh):
    digest = hashlib.sha256()
    for block in iter(lambda: fh.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


class _Run:
    """One run's staging folder, what it staged, and what it will remove when it publishes."""

    def __init__(self, name, staging, writer):
        self.name = name            # ".lgekit-run.<hex>"
        self.staging = staging      # its OpenFolder
        self.writer = writer
        self.files = {}             # name -> [staged name, sha256], in the order first written
        self.remove = []            # names this run removes when it publishes
        self.kept = None            # why the run is kept unpublished (keep_run)
        self._count = 0

    def staged_name(self, name):
        self._count += 1
        return f"{self._count:04d}.{name.rsplit('/', 1)[-1]}"


class OutputFolder:
    """An output folder that lgekit writes into, the proof of which files in it are lgekit's, and its runs.

    Parameters
    ----------
    path : str or path
        Created (with its parents) when missing.  The folder itself must not
        be a symbolic link (the folders above it may be: they are resolved
        once, when it is opened).
    force : bool, default False
        Write into a folder that holds other files (``--force``): names lgekit
        writes are overwritten; nothing lgekit did not write is ever removed,
        and nothing is ever written behind a symbolic link.
    subfolders : iterable of str, default ()
        Subfolders the owner manages itself (created here; see the module
        notes).  Each must be a real folder, not a symbolic link.
    command : str, default "lgekit"
        What claims the folder (``"lgekit reproduce"``): named in messages,
        and recorded as the writer of every file written through this
        object.  Only files this command wrote are ever removed.

    Raises
    ------
    FolderNotOursError
        When the folder holds other files (or a manifest lgekit did not
        write) and ``force`` is false; when the folder or a subfolder is a
        symbolic link.  The message names a few of them and says what
        ``--force`` does.
    PermissionError
        When the folder cannot be created, opened or written (a file in its
        place, a name too long, a read-only file system...).
    """

    def __init__(self, path, *, force=False, subfolders=(), command="lgekit"):
        self.path = Path(path).expanduser()
        self.force = bool(force)
        self.command = command
        self.subfolders = tuple(check_name(s) for s in subfolders)
        self._lock = FolderLock(self.path, FolderNotOursError)
        self._run = None   # the run open on this object (see run())
        self.removed = []  # the names the last publication removed (remove_stale says what it will remove)
        self._check_length()
        self._root = self._open(create=False)   # None: nothing there yet
        self.files, self.runs, problem = self._read_manifest()  # None: no (valid) manifest
        if self.files is None:
            self._refuse_unless_forced(problem)
            self.files, self.runs = {}, {}
        self._check_subfolders()
        if self._root is None:
            self._root = self._open(create=True)
        try:
            for sub in self.subfolders:
                folder = self._root
                for part in sub.split("/"):
                    folder = folder.sub(part, create=True)
            self._check_subfolders()
            if problem is not None or not self._root.exists(MANIFEST_NAME):
                # a manifest of our own (forced over one that proves nothing), created under the lock
                self._claim(replace=problem is not None)
        except FolderNotOursError:
            raise
        except OSError as exc:
            raise self._unusable(exc) from None

    def __repr__(self):
        return f"OutputFolder({str(self.path)!r})"

    def _unusable(self, exc):
        return PermissionError(f"output folder {_elided(self.path)} is not writable: {exc.strerror or exc}; "
                               "pass --out with a folder you can write to")

    def _check_length(self):
        """A path longer than the system's limit is refused here (the folder could be made by descriptor, one
        component at a time, and then never be named again)."""
        try:
            limit = os.pathconf("/", "PC_PATH_MAX")
        except (OSError, ValueError, AttributeError):  # pragma: no cover - not POSIX
            return
        length = len(os.fsencode(os.path.abspath(self.path)))
        if length >= limit:
            raise PermissionError(f"output folder {_elided(self.path)} is not writable: its path is {length:,} bytes "
                                  f"long, and this system names files in fewer than {limit:,}; pass a shorter --out")

    def _open(self, create):
        """The folder, opened (see :class:`lgekit._atomic.OpenFolder`); None when missing and not ``create``."""
        try:
            return OpenFolder.open(self.path, create=create)
        except FileNotFoundError:
            if create:
                raise self._unusable(OSError(errno.ENOENT, "a folder on the way vanished")) from None
            return None
        except NotADirectoryError:
            raise self._not_a_folder() from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise FolderNotOursError(f"output folder {str(self.path)!r}: a symbolic link on the way changed while "
                                         "lgekit opened it, or loops; run again") from None
            raise self._unusable(exc) from None

    def _not_a_folder(self):
        """Why the folder could not be opened as one: it, or a folder above it, is a file or a symbolic link."""
        path = Path(os.path.abspath(self.path))
        if os.path.islink(path):
            return FolderNotOursError(
                f"output folder {_elided(self.path)} is a symbolic link (to {os.readlink(path)!r}): lgekit writes "
                "only into a real folder, never through a link; pass the folder it leads to")
        for above in [path, *path.parents]:
            if os.path.lexists(above) and not os.path.isdir(above):
                what = "it is a file" if above == path else f"{str(above)!r} is a file"
                return PermissionError(f"output folder {_elided(self.path)} is not writable: {what}; pass --out "
                                       "with a folder")
        return FolderNotOursError(f"output folder {_elided(self.path)} is reached through a symbolic link that "
                                  "changed while lgekit opened it; run again")

    def _refuse_unless_forced(self, problem):
        foreign = self._foreign_entries()
        if not foreign or self.force:
            return
        shown = ", ".join(repr(n) for n in foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
        why = (f"and no {MANIFEST_NAME}" if problem is None else
               f"and its {MANIFEST_NAME} is not one lgekit writes: {problem}")
        raise FolderNotOursError(
            f"output folder {str(self.path)!r} is not empty and is not an lgekit output folder (it holds {shown} "
            f"{why}): choose an empty or new folder, or pass --force to write into it ({self.command} then "
            "overwrites the files it writes, and never removes a file it did not write)")

    # ------------------------------------------------------------------ the manifest
    @property
    def manifest_path(self):
        return self.path / MANIFEST_NAME

    def _read_manifest(self):
        """``(files, runs, None)`` for a valid manifest, ``(None, None, None)`` for none, ``(None, None, why)`` else."""
        return read_manifest(self._root)

    def _save(self):
        """Write the manifest (under the lock)."""
        write_manifest(self._root, self.files, self.runs)

    def _claim(self, replace):
        """Create the manifest (``replace``: over one that proves nothing) under the lock, unless another run holds
        the folder: that run claims it, and this one is refused when it takes the lock."""
        try:
            with self.lock():   # the lock re-reads the manifest: one that appeared meanwhile is adopted
                if replace or not self._root.exists(MANIFEST_NAME):
                    self._save()
        except FolderLockedError:
            return

    def _foreign_entries(self):
        """Entries of the folder that make it 'not empty' (sorted names)."""
        if self._root is None:
            return []
        listed = set(getattr(self, "runs", None) or {})
        out = []
        for name in self._root.names():
            if name in _IGNORED or temporary_target(name) is not None or name in listed:
                continue
            try:
                info = self._root.lstat(name)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                with contextlib.suppress(OSError), self._root.sub(name) as sub:
                    if name in self.subfolders and not sub.names():
                        continue
                    if read_manifest(sub)[0] is not None:  # e.g. lgekit theory's theory/ in reproduce's
                        continue
            out.append(name + ("/" if stat.S_ISDIR(info.st_mode) else ""))
        return out

    # ------------------------------------------------------------------ where a name leads
    def _link_on_the_way(self, name):
        """The first component of ``name``'s folders (a prefix) that is a symbolic link or no folder, or None.

        Every folder between the output folder and the file must be a real
        folder inside it: writing or deleting through a link would reach
        outside.  Missing folders are fine (nothing is behind them).
        """
        parts = name.split("/")[:-1]
        folder = self._root
        opened = []
        try:
            for i, part in enumerate(parts):
                try:
                    folder = folder.sub(part)
                except (FileNotFoundError,):
                    return None
                except OSError:
                    return "/".join(parts[:i + 1])
                opened.append(folder)
        finally:
            for f in opened:
                f.close()
        return None

    @contextlib.contextmanager
    def _parent(self, name):
        """``(folder, base)``: the open folder holding ``name``, reached without following a link, and the name.

        Every folder on the way is opened relative to the one before it with
        ``O_NOFOLLOW`` (:meth:`lgekit._atomic.OpenFolder.sub`), so that what
        is read, linked or deleted through it is inside the output folder even
        if a folder on the way is swapped for a link meanwhile.  ``OSError``
        when one is a link or no folder.
        """
        *folders, base = name.split("/")
        opened = []
        folder = self._root
        try:
            for part in folders:
                folder = folder.sub(part)
                opened.append(folder)
            yield folder, base
        finally:
            for f in opened:
                f.close()

    @staticmethod
    def _sha256_at(folder, base):
        """The SHA-256 of the regular file ``base`` in the open ``folder`` (not following a link), or None."""
        try:
            with folder.open_read(base) as fh:
                return _sha256_of(fh)
        except OSError:
            return None

    def _content_sha256(self, name):
        """The SHA-256 of ``name`` when it is a regular file inside the folder, no link on the way; else None."""
        if self._root is None:
            return None
        try:
            with self._parent(name) as (folder, base):
                return self._sha256_at(folder, base)
        except OSError:
            return None

    def _proved(self, name, writers):
        """Whether ``name`` is listed by one of ``writers``, a regular file inside, with a listed hash."""
        entry = self.files.get(name)
        if entry is None or entry["writer"] not in writers:
            return False
        return self._content_sha256(name) in entry["sha256"]

    # ------------------------------------------------------------------ questions
    @staticmethod
    def is_output_folder(path):
        """Whether ``path`` is a folder with a valid lgekit manifest (without claiming it)."""
        try:
            with OpenFolder.open(path) as folder:
                return read_manifest(folder)[0] is not None
        except OSError:
            return False

    def writer(self, name):
        """The command the manifest says wrote ``name`` (None: unknown, an earlier manifest version; or unlisted)."""
        entry = self.files.get(check_name(name))
        return None if entry is None else entry["writer"]

    def owns(self, name):
        """Whether this command may overwrite ``name``: a regular file inside the folder that it wrote.

        That is: listed by this command (or by an lgekit of manifest version
        1, which recorded no writer), and its content has the listed hash.
        """
        return self._proved(check_name(name), {self.command, None})

    def owned(self):
        """The names of every file in the folder that :meth:`owns` accepts, sorted."""
        return sorted(name for name in self.files if self.owns(name))

    def _exists(self, name):
        try:
            with self._parent(name) as (folder, base):
                return folder.exists(base)
        except OSError:
            return False

    def _is_folder(self, name):
        try:
            with self._parent(name) as (folder, base):
                return stat.S_ISDIR(folder.lstat(base).st_mode)
        except OSError:
            return False

    def check_writable(self, names):
        """Raise :class:`FolderNotOursError` when one of ``names`` cannot be written.

        A name behind a symbolic link (or a non-folder) is refused always, and
        so is one that is a folder; one that exists and is not ours
        (:meth:`owns`) is refused without ``force``.  Call it before long
        work, with every name the work will write (publishing checks each
        again, on the file it replaces).
        """
        names = list(map(check_name, names))
        for name in names:
            link = self._link_on_the_way(name)
            if link is not None:
                raise FolderNotOursError(
                    f"{self.command} would write {name!r} in {str(self.path)!r} through {link!r}, which is a symbolic "
                    "link or no folder: lgekit writes only inside its output folder; remove it or choose another "
                    "folder")
            if self._is_folder(name):
                raise FolderNotOursError(f"{self.command} would write {name!r} in {str(self.path)!r}, which is a "
                                         "folder: move it away or choose another output folder")
        if self.force:
            return
        theirs = [n for n in names if self._exists(n) and not self.owns(n)]
        if theirs:
            shown = ", ".join(repr(n) + (f" (written by {self.writer(n)})" if self.writer(n) not in (None, self.command)
                                         else "") for n in theirs)
            raise FolderNotOursError(
                f"{self.command} would overwrite {shown} in {str(self.path)!r}, which "
                f"{self.command} did not write (or which was changed since): move "
                f"{'them' if len(theirs) > 1 else 'it'} away, or pass --force to overwrite")

    # ------------------------------------------------------------------ one writer at a time
    @contextlib.contextmanager
    def lock(self):
        """Hold an exclusive lock on the folder (released automatically if the process dies).

        A command holds it for its whole run.  It is re-entrant for the thread
        holding it through this same object (``reproduce`` holds it and hands
        the folder to the sweep and the report, which take it again); any
        other object, thread or process is refused.  When it is taken, the
        subfolders are checked again (a real folder each), the manifest is
        read again (what another run wrote since this object claimed the
        folder stays listed), and the runs it lists are settled: one killed
        while publishing is finished, any other removed (see the module
        notes).

        Raises
        ------
        FolderLockedError
            When another process, thread or object holds it.
        FolderNotOursError
            When the lock file is not a regular file (a symbolic link: lgekit
            would create or lock a file outside; a folder, a FIFO), or a
            subfolder is a link.
        """
        with self._lock.hold(self._root, self._on_lock):
            yield

    def _on_lock(self):
        """Once the lock is taken: the subfolders checked, the manifest read again, the leftover runs settled."""
        self._check_subfolders()
        files, runs, _ = self._read_manifest()
        if files is not None:
            self.files, self.runs = files, runs
            self._settle_runs()

    def _check_subfolders(self):
        """Each subfolder the owner manages, where it exists, is a real folder inside: no link on the way."""
        if self._root is None:
            return
        for sub in self.subfolders:
            parts = sub.split("/")
            for i in range(1, len(parts) + 1):
                prefix = "/".join(parts[:i])
                try:
                    with self._parent(prefix) as (folder, base):
                        info = folder.lstat(base)
                except (FileNotFoundError, NotADirectoryError):
                    break
                if not stat.S_ISDIR(info.st_mode):
                    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
                    raise FolderNotOursError(
                        f"output folder {str(self.path)!r}: {prefix!r} is {kind}, where lgekit keeps a folder of its "
                        "own: it writes only inside its output folder (never through a symbolic link, even with "
                        "--force); remove it or choose another folder")

    # ------------------------------------------------------------------ runs
    @contextlib.contextmanager
    def run(self):
        """Open a run: every file written inside the block is published together when it ends without an error.

        Takes the lock (re-entrant).  Re-entrant itself: a run already open
        on this object (in this thread) is the one used, and publishes when
        the outermost block ends.  An exception inside the block publishes
        nothing: the previous run's files stay as they were, and the staging
        folder is removed (or kept, see :meth:`keep_run`).

        Yields
        ------
        pathlib.Path
            The run's staging folder (where a kept run's files stay).
        """
        with self.lock():
            if self._run is not None:
                yield self._run.staging.path
                return
            run = self._open_run()
            self._run = run
            try:
                yield run.staging.path
            except BaseException:
                self._run = None
                self._close_run(run, publish=False)
                raise
            self._run = None
            self._close_run(run, publish=run.kept is None)

    def keep_run(self, why):
        """Keep the open run's staging folder unpublished (a diverged fit's history): returns its path.

        The run publishes nothing when it ends; its folder stays, listed in
        the manifest as *failed*, until the next run into the folder removes it.
        """
        if self._run is None:
            raise RuntimeError("keep_run() needs an open run (OutputFolder.run())")
        self._run.kept = why
        return self._run.staging.path

    def _open_run(self):
        name = RUN_PREFIX + secrets.token_hex(16)
        # listed before it is made: whenever the process dies, the folder is provably this run's
        self.runs[name] = {"writer": self.command, "state": "writing"}
        self._save()
        self._root.mkdir(name, 0o700)
        return _Run(name, self._root.sub(name), self.command)

    def _close_run(self, run, publish):
        """Publish ``run`` (or not), then remove its staging folder and its entry (a kept run stays, failed).

        A publication the disk interrupts (an ``OSError``) leaves the journal
        and the staging folder: the next run into the folder finishes it.
        """
        if publish and not (run.files or run.remove):   # nothing to publish (the cells went in as they came)
            self.removed = []
            self._remove_run(run.name, run.staging)
            return
        if publish:
            try:
                refused = self._publish(run)
            except FolderNotOursError:   # refused before the journal: nothing published, the run goes
                self._remove_run(run.name, run.staging)
                raise
            except BaseException:
                run.staging.close()
                raise
            self._remove_run(run.name, run.staging)
            if refused:
                raise FolderNotOursError("; ".join(refused) + f": {self.command} published its other files")
            return
        if run.kept is None:
            self._remove_run(run.name, run.staging)
            return
        self.runs[run.name] = {"writer": run.writer, "state": "failed"}
        self._save()
        run.staging.close()

    def _publish(self, run):
        # before anything is linked: every name still free, or holding a file this run may replace (a file of the
        # user's put there during the run refuses the whole run, and the earlier files stay as they were)
        taken = [name for name in run.files if self._exists(name) and not (
            (self.force and not self._is_folder(name)) or self._proved(name, {run.writer, None}))]
        if taken:
            raise FolderNotOursError(
                f"{self.command} would overwrite {', '.join(map(repr, taken))} in {str(self.path)!r}, which "
                f"{self.command} did not write (put there or changed while it ran): nothing of this run was "
                "published; move them away, or pass --force to overwrite")
        files = [[name, staged, sha] for name, (staged, sha) in run.files.items()]
        # the journal: from here on, a run killed midway is finished by the next one
        self.runs[run.name] = {"writer": run.writer, "state": "publishing", "files": files, "remove": run.remove,
                               "force": self.force}
        self._save()
        return self._apply_journal(run.name, run.staging, run.writer, files, run.remove, self.force)

    def _apply_journal(self, name, staging, writer, files, remove, force):
        """Link each staged file into place (its earlier content proved ours), remove the stale names, list them.

        Returns
        -------
        list of str
            Why a file was not published (a file that is not ours appeared at
            its name meanwhile), one phrase each; the other files are.
        """
        published, refused = {}, []
        for target, staged, sha in files:
            if self._content_sha256(target) == sha:    # already in place (a run finished by the next one)
                published[target] = sha
                continue
            if self._sha256_at(staging, staged) != sha:
                continue   # not staged (whole) any more: nothing of it is published
            try:
                self._install(staging, staged, target, writer, force)
            except FolderNotOursError as exc:
                refused.append(str(exc))
                continue
            published[target] = sha
        staging.fsync()
        self.removed = [n for n in remove if n not in published and self._remove_now(n, staging, writer)]
        for target, sha in published.items():
            self.files[target] = {"writer": writer, "sha256": [sha]}
        for n in remove:   # removed, or no longer ours (changed since, gone): it leaves the manifest either way
            entry = self.files.get(n)
            if n not in published and entry is not None and entry["writer"] == writer:
                del self.files[n]
        self._root.fsync()
        self.runs.pop(name, None)
        self._save()
        return refused

    def _take_aside(self, folder, base, staging):
        """Move whatever is called ``base`` in ``folder`` into ``staging``, atomically; its name there, or None."""
        aside = "earlier." + secrets.token_hex(8)
        try:
            folder.rename(base, staging, aside)
        except FileNotFoundError:
            return None
        return aside

    def _may_replace(self, staging, aside, name, writer, removing=False, force=False):
        """Whether the file moved aside from ``name`` may be replaced (or removed): ours, or forced."""
        try:
            info = staging.lstat(aside)
        except OSError:
            return False
        if stat.S_ISDIR(info.st_mode):
            return False
        if force and not removing:
            return True
        entry = self.files.get(name)
        writers = {writer} if removing else {writer, None}
        return (entry is not None and entry["writer"] in writers and stat.S_ISREG(info.st_mode)
                and self._sha256_at(staging, aside) in entry["sha256"])

    def _put_back(self, staging, aside, folder, base, name):
        """Return a file moved aside to ``name``, never replacing what is there now (then beside it, and said)."""
        for candidate in (base, f"{base}.kept-{secrets.token_hex(4)}"):
            try:
                staging.link(aside, folder, candidate)
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in NO_HARD_LINKS or folder.exists(candidate):
                    raise
                staging.rename(aside, folder, candidate)
                return
            staging.unlink(aside)
            if candidate != base:
                raise FolderNotOursError(f"{name!r} in {str(self.path)!r} changed while {self.command} published its "
                                         f"files: the file that was there is kept as {candidate!r} beside it")
            return

    def _install(self, staging, staged, name, writer, force):
        """Give the staged file the name ``name`` in the folder, replacing only a file proved replaceable."""
        with self._parent(name) as (folder, base):
            for _ in range(3):
                try:
                    staging.link(staged, folder, base)
                    return
                except FileExistsError:
                    pass
                except OSError as exc:
                    if exc.errno not in NO_HARD_LINKS:
                        raise
                    # no hard links here (FAT, some network file systems): a rename, after the same proof
                    aside = self._take_aside(folder, base, staging)
                    if aside is not None and not self._may_replace(staging, aside, name, writer, force=force):
                        self._put_back(staging, aside, folder, base, name)
                        raise self._not_ours(name) from None
                    staging.rename(staged, folder, base)
                    return
                aside = self._take_aside(folder, base, staging)
                if aside is not None and not self._may_replace(staging, aside, name, writer, force=force):
                    self._put_back(staging, aside, folder, base, name)
                    raise self._not_ours(name)
            raise FolderNotOursError(f"{name!r} in {str(self.path)!r} keeps being replaced while {self.command} "
                                     "publishes its files: another program writes there")

    def _not_ours(self, name):
        if self._is_folder(name):
            return FolderNotOursError(f"{self.command} would write {name!r} in {str(self.path)!r}, which is a "
                                      "folder: move it away or choose another output folder")
        return FolderNotOursError(f"{self.command} would overwrite {name!r} in {str(self.path)!r}, which "
                                  f"{self.command} did not write (or which was changed since): move it away, or "
                                  "pass --force to overwrite")

    def _remove_now(self, name, staging, writer):
        """Delete ``name`` if ``writer`` wrote it, as listed (moved aside first: what is checked is what goes)."""
        try:
            with self._parent(name) as (folder, base):
                aside = self._take_aside(folder, base, staging)
                if aside is None:
                    return False
                if not self._may_replace(staging, aside, name, writer, removing=True):
                    self._put_back(staging, aside, folder, base, name)
                    return False
                staging.unlink(aside)
                return True
        except FolderNotOursError:
            return False   # put back beside its name (said in the log of the run that finds it)
        except OSError:   # a link or no folder on the way: nothing of ours there
            return False

    def _remove_run(self, name, staging=None):
        """Remove the run folder ``name`` (listed: ours) and its entry; what it holds is the run's own."""
        try:
            staging = staging or self._root.sub(name)
        except OSError:
            staging = None   # gone, or not a folder any more: nothing of ours to remove
        if staging is not None:
            with staging:
                for entry in staging.names():
                    with contextlib.suppress(OSError):
                        if not stat.S_ISDIR(staging.lstat(entry).st_mode):
                            staging.unlink(entry)
            with contextlib.suppress(OSError):
                self._root.rmdir(name)
        self.runs.pop(name, None)
        self._save()

    def _settle_runs(self):
        """Under the lock: finish the runs killed while publishing; remove every other listed run's folder."""
        for name, entry in sorted(self.runs.items()):
            if entry["state"] != "publishing":
                self._remove_run(name)
                continue
            try:
                staging = self._root.sub(name)
            except OSError:
                self._remove_run(name)
                continue
            with staging:
                self._apply_journal(name, staging, entry["writer"], entry["files"], entry["remove"], entry["force"])
            self._remove_run(name)   # a file refused meanwhile stays as it is: its staged copy goes

    # ------------------------------------------------------------------ writing and removing
    @contextlib.contextmanager
    def writing(self, name):
        """Yield a new binary file; when the run publishes, it becomes ``name`` in the folder, listed as ours.

        The file is created in the run's staging folder (a run of its own,
        published at once, when none is open: :meth:`run`).

        Parameters
        ----------
        name : str
            Relative to the folder; its parent folder must exist when the run
            publishes.

        Raises
        ------
        FolderNotOursError
            When ``name`` exists, is not ours, and writing was not forced; or
            when a symbolic link lies on the way.
        """
        name = check_name(name)
        with self.run():
            self.check_writable([name])
            run = self._run
            staged = run.staged_name(name)
            try:
                with run.staging.create(staged) as fh:
                    yield fh
                    fh.flush()
                    os.fsync(fh.fileno())
                sha = self._sha256_at(run.staging, staged)
            except BaseException:
                with contextlib.suppress(OSError):
                    run.staging.unlink(staged)
                raise
            earlier = run.files.pop(name, None)
            if earlier is not None:   # written twice in one run: the last one counts
                with contextlib.suppress(OSError):
                    run.staging.unlink(earlier[0])
            run.files[name] = [staged, sha]
            if name in run.remove:
                run.remove.remove(name)

    def write_bytes(self, name, data):
        """Write ``data`` to ``name`` (published with the run) and list it as ours; returns the path."""
        with self.writing(name) as fh:
            fh.write(data)
        return self.path / name

    def write_text(self, name, text, encoding="utf-8"):
        """Write ``text`` to ``name`` (published with the run) and list it as ours; returns the path."""
        return self.write_bytes(name, text.encode(encoding))

    def staged_name(self, name):
        """The name of ``name``'s file in the open run's staging folder (see :meth:`keep_run`)."""
        return self._run.files[check_name(name)][0]

    def staged_sha256(self, name):
        """The SHA-256 of ``name`` as the open run will publish it."""
        return self._run.files[check_name(name)][1]

    def read_bytes(self, name):
        """The content of ``name`` as the open run will publish it (its staged file), else as the folder has it.

        Raises
        ------
        FileNotFoundError
            When neither the run nor the folder has a regular file of that name.
        """
        name = check_name(name)
        run = self._run
        try:
            if run is not None and name in run.files:
                with run.staging.open_read(run.files[name][0]) as fh:
                    return fh.read()
            with self._parent(name) as (folder, base), folder.open_read(base) as fh:
                return fh.read()
        except OSError:
            raise FileNotFoundError(f"{name!r}: no such file in {str(self.path)!r} or its open run") from None

    def replace_in_subfolder(self, subfolder, base, data):
        """Write ``data`` as the file ``base`` of a subfolder the owner manages, at once (not when the run ends).

        The store's cells are written so: staged and synced in the run's
        folder, then renamed into ``subfolder`` (replacing the earlier record
        of the cell, which the store validates by its content, not by the
        manifest).  Not listed in the manifest.

        Raises
        ------
        IsADirectoryError
            When ``subfolder/base`` is a folder.
        FolderNotOursError
            When ``subfolder`` is not one of ``subfolders``, or is a symbolic link.
        """
        if subfolder not in self.subfolders or "/" in base or name_problem(base) is not None:
            raise ValueError(f"subfolder must be one of {self.subfolders} and base one file name, got "
                             f"{subfolder!r}, {base!r}")
        with self.run():
            run = self._run
            staged = run.staged_name(base)
            try:
                with run.staging.create(staged) as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                self._check_subfolders()
                with self._parent(f"{subfolder}/{base}") as (folder, name):
                    run.staging.rename(staged, folder, name)
            except BaseException:
                with contextlib.suppress(OSError):
                    run.staging.unlink(staged)
                raise
        return self.path / subfolder / base

    def remove(self, name):
        """Delete ``name`` when this command wrote it (see the module notes); returns whether it is (to be) deleted.

        Inside an open run the file goes when the run publishes; otherwise at
        once.  A name this command listed whose file is gone, or no longer
        ours, leaves the manifest; another command's entries are left as they
        are.
        """
        name = check_name(name)
        entry = self.files.get(name)
        if entry is None or entry["writer"] != self.command:
            return False
        with self.run():
            ours = self._proved(name, {self.command})
            if ours:
                if name not in self._run.remove and name not in self._run.files:
                    self._run.remove.append(name)
            else:
                del self.files[name]
                self._save()
        return ours

    def remove_stale(self, keep, match=None):
        """Delete this command's files that this run did not write: listed by it, ours, not in ``keep``.

        Parameters
        ----------
        keep : iterable of str
            Names written by this run.
        match : callable, optional
            ``match(name) -> bool``: only names it accepts are considered
            (e.g. the figures of a report).

        Returns
        -------
        list of str
            The names deleted (when the run publishes), sorted.  Files of
            those names that the user changed since lgekit wrote them are
            kept (and leave the manifest); files another command wrote (or an
            lgekit whose manifest named no writer) are not considered.
        """
        keep = {check_name(k) for k in keep}
        candidates = [n for n in sorted(self.files) if n not in keep and self.files[n]["writer"] == self.command
                      and (match is None or match(n))]
        return [n for n in candidates if self.remove(n)]

