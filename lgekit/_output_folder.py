"""Which files in an output folder are lgekit's, and which of its commands wrote each; one writer at a time.

A command that writes into a folder the user names (``lgekit reproduce --out``,
``lgekit fit --out``, ``lgekit theory --out``) must never delete or overwrite
a file the user put there, nor one another command wrote.  A name is not
proof (the user's ``fig2.png`` looks like ours), so every file lgekit writes
is listed in a manifest kept in the folder, ``.lgekit-manifest.json``, with
the command that wrote it and the SHA-256 of the content it wrote.

The rule, applied by :class:`OutputFolder` and nowhere else: a path is
deleted or overwritten only when it is

* a regular file inside the folder: reached from the folder through real
  folders only, each opened relative to the one before with ``O_NOFOLLOW``
  (the file too), and hashed and deleted through that same folder
  descriptor, so that no symbolic link on the way, even one swapped in
  meanwhile, leads outside;
* listed in the manifest by the command doing it (``fit`` never removes what
  ``reproduce`` or ``theory`` wrote);
* of the content listed (its SHA-256 is one the manifest records; a file the
  user edited afterwards is theirs again).

And one process writes into a folder at a time: :meth:`OutputFolder.lock`,
an exclusive ``flock`` on ``.lock`` in the folder, held by a command for its
whole run (a second ``fit`` or ``reproduce`` into the folder is refused).

The manifest::

    {"format": "lgekit output folder manifest", "version": 2,
     "files": {"embedding.npz": {"writer": "lgekit fit", "sha256": ["<64 hex digits>"]}, ...}}

A manifest is lgekit's only when every entry is one lgekit writes: a name
relative to the folder that stays inside it (no ``..``, no absolute path, no
empty, ``.`` or NUL component), a writer, and one or two 64-hex-digit hashes
(two while a write is pending, see below).  Anything else (a wildcard such as
``"*"``, a name leaving the folder) means the manifest was not written by
lgekit and proves nothing: the folder is then treated as one of the user's.
A version 1 manifest (before issue 33) records no writer: its files are
lgekit's but of no known command, so a command may rewrite one of the names
it writes (lgekit's commands write disjoint names) and never removes one.

The rules for a folder:

* Claiming: a missing or empty folder, or one that holds a valid manifest,
  is claimed (the manifest is created, with ``O_EXCL`` semantics, so two
  runs claiming at once do not overwrite each other's).  A folder that holds
  anything else is refused with :class:`FolderNotOursError`, unless
  ``force=True`` (``--force``): then lgekit writes into it, overwriting the
  files of the names it writes, and still removes nothing it cannot prove
  it wrote.  A subfolder the owner manages (``subfolders``, the store's
  ``cells/``) must be a real folder, never a symbolic link, forced or not.
* Writing: a file is written atomically (:mod:`lgekit._atomic`).  Before the
  rename, the manifest lists the name as *pending* with the old and the new
  hash, so that after a crash at any instant the file there is provably
  ours; after it, the new hash alone.  Overwriting a file that is not ours
  is refused (without ``force``); writing behind a symbolic link is refused
  always.
* Removing: :meth:`OutputFolder.remove` deletes a file only when this
  command wrote it, as above.

What does not count as content when deciding that a folder is empty: the
lock file ``.lock``, the temporaries of an interrupted write
(:data:`lgekit._atomic.TEMPORARY_PATTERN`), empty subfolders lgekit
creates (``subfolders``, e.g. the results store's ``cells/``), and nested
output folders (``lgekit theory`` writes ``lgekit-results/theory/`` beside
``lgekit reproduce``'s results).  A subfolder
named in ``subfolders`` belongs to the folder's owner as a whole: its
files are managed by their own writer (the store validates every cell file
by its content), not listed one by one.

Typical use::

    folder = OutputFolder("results", force=args.force, command="lgekit fit")  # FolderNotOursError: one line
    with folder.lock():                                     # FolderLockedError: another run writes there
        folder.check_writable(["embedding.npz", "embedding.txt"])  # before any long work
        folder.write_bytes("notes.txt", b"...")
        with folder.writing("embedding.npz", suffix=".npz") as tmp:
            numpy.savez(tmp, ...)
        folder.remove_stale(keep={"embedding.npz"})        # this command's earlier files this run did not write
"""
import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import threading
from pathlib import Path

from ._atomic import atomic_create_bytes, atomic_path, atomic_write_text, temporary_target
from ._input_file import file_sha256  # every file lgekit reads is read by that module (regular files only)

try:  # POSIX only: elsewhere a folder goes unlocked
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

__all__ = ["OutputFolder", "FolderNotOursError", "FolderLockedError", "MANIFEST_NAME", "LOCK_NAME", "DISK_ERRNOS",
           "disk_error_message", "file_sha256"]

#: the manifest's file name, in the folder it describes
MANIFEST_NAME = ".lgekit-manifest.json"
#: the lock file (flock) held while a command writes into the folder
LOCK_NAME = ".lock"
#: what a manifest says it is (a JSON file of another origin with the same name is not one)
_FORMAT = "lgekit output folder manifest"
_VERSION = 2
#: the versions read: 1 recorded no writer (see the module notes)
_READ_VERSIONS = (1, 2)
#: names that never make a folder "not empty": the lock file
_IGNORED = frozenset({LOCK_NAME})
#: a hash lgekit writes: SHA-256, lowercase hex
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: a manifest lgekit writes lists a few dozen names: a larger file is not one (and is not read whole)
_MANIFEST_MAX_BYTES = 16 << 20

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# a FIFO or a device in place of a file must not block an open
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# reading and deleting relative to a folder descriptor (POSIX): a folder swapped for a link cannot redirect them
_DIR_FD = os.open in os.supports_dir_fd and os.unlink in os.supports_dir_fd


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


class FolderLockedError(RuntimeError):
    """Another process (or another :class:`OutputFolder` object) is writing into the folder."""


def _name_problem(name):
    """Why ``name`` is not a name inside a folder that lgekit writes (a phrase), or None."""
    if not isinstance(name, str) or not name:
        return "it is not a non-empty str"
    if "\0" in name:
        return "it holds a NUL character"
    if name.startswith("/") or Path(name).is_absolute():
        return "it is an absolute path"
    parts = name.split("/")
    if ".." in parts:
        return "it leaves the folder ('..')"
    if "" in parts or "." in parts:
        return "it is not in normal form (an empty or '.' component)"
    if name in (MANIFEST_NAME, LOCK_NAME):
        return "it is the manifest or the lock file"
    return None


def _check_name(name):
    """A file name relative to the folder, one component or several, never leaving it."""
    if isinstance(name, str) and name and "\0" not in name and not Path(name).is_absolute():
        name = "/".join(Path(name).parts)  # "a//b", "./a" and "a/" as written by lgekit: "a/b", "a"
    problem = _name_problem(name)
    if problem is not None:
        raise ValueError(f"name must stay inside the folder and not be the manifest or the lock file, got "
                         f"{name!r}: {problem}")
    return name


def _entry(name, value, version):
    """A manifest entry as ``{"writer": str or None, "sha256": [hex, ...]}``, or a phrase saying why it is none."""
    if version == 1:  # a hash or a list of hashes, no writer
        writer, hashes = None, [value] if isinstance(value, str) else value
        if not isinstance(hashes, list):
            return f"the entry of {name!r} is neither a hash nor a list of hashes"
    else:
        if not isinstance(value, dict):
            return f"the entry of {name!r} is not an object with a writer and hashes"
        writer, hashes = value.get("writer"), value.get("sha256")
        if writer is not None and not (isinstance(writer, str) and writer):
            return f"the entry of {name!r} has a writer that is not a command name ({writer!r})"
        if not isinstance(hashes, list):
            return f"the entry of {name!r} has no hash list"
    if not hashes:
        return f"the entry of {name!r} has no hash"
    if len(hashes) > 2:
        return f"the entry of {name!r} lists {len(hashes)} hashes (lgekit lists one, two while a write is pending)"
    for h in hashes:
        if not (isinstance(h, str) and _SHA256.fullmatch(h)):
            return f"the entry of {name!r} lists {h!r}, which is not a SHA-256 (64 lowercase hex digits)"
    return {"writer": writer, "sha256": sorted(set(hashes))}


class OutputFolder:
    """An output folder that lgekit writes into, and the proof of which files in it are lgekit's.

    Parameters
    ----------
    path : str or path
        Created (with its parents) when missing.
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
        write) and ``force`` is false; when a subfolder is a symbolic link.
        The message names a few of them and says what ``--force`` does.
    PermissionError
        When the folder cannot be created or written.
    """

    def __init__(self, path, *, force=False, subfolders=(), command="lgekit"):
        self.path = Path(path).expanduser()
        self.force = bool(force)
        self.command = command
        self.subfolders = tuple(_check_name(s) for s in subfolders)
        self._held = None  # the lock this object holds: {"owner": (pid, thread id), "depth", "fd"}
        self._held_guard = threading.Lock()
        if self.path.exists() and not self.path.is_dir():
            raise PermissionError(f"output folder {str(self.path)!r} is not writable: it is a file; "
                                  "pass --out with a folder")
        self.files, problem = self._read_manifest()  # name -> {"writer", "sha256"}; None: no (valid) manifest
        if self.files is None:
            self._refuse_unless_forced(problem)
            self.files = {}
        self._check_subfolders()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            for sub in self.subfolders:
                (self.path / sub).mkdir(parents=True, exist_ok=True)
            self._check_subfolders()
            if problem is None and not self.manifest_path.exists():
                self._create_manifest()
            elif problem is not None:  # forced over a manifest that proves nothing: ours replaces it
                self._save()
        except OSError as exc:
            raise PermissionError(f"output folder {str(self.path)!r} is not writable: {exc.strerror or exc}; "
                                  "pass --out with a folder you can write to") from None

    def __repr__(self):
        return f"OutputFolder({str(self.path)!r})"

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
        """``(files, None)`` for a valid manifest, ``(None, None)`` when there is none, ``(None, why)`` otherwise."""
        try:
            info = os.lstat(self.manifest_path)
        except (FileNotFoundError, NotADirectoryError):
            return None, None
        except OSError as exc:
            return None, f"it cannot be read ({exc.strerror or exc})"
        if not stat.S_ISREG(info.st_mode):
            return None, "it is not a regular file"
        if info.st_size > _MANIFEST_MAX_BYTES:
            return None, f"it is {info.st_size:,} bytes, more than any manifest lgekit writes"
        try:
            fd = os.open(self.manifest_path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                raw = fh.read(_MANIFEST_MAX_BYTES + 1)
            data = json.loads(raw.decode("utf-8"))
        except FileNotFoundError:
            return None, None
        except (OSError, UnicodeDecodeError, ValueError):
            return None, "it is not UTF-8 JSON"
        if not (isinstance(data, dict) and data.get("format") == _FORMAT and isinstance(data.get("files"), dict)):
            return None, "it is not an lgekit manifest"
        version = data.get("version")
        if type(version) is not int or version not in _READ_VERSIONS:
            return None, f"its version is {version!r}, and this lgekit reads {' and '.join(map(str, _READ_VERSIONS))}"
        files = {}
        for name, value in data["files"].items():
            problem = _name_problem(name)
            if problem is not None:
                return None, f"it lists {name!r}, not a name inside the folder ({problem})"
            entry = _entry(name, value, version)
            if isinstance(entry, str):
                return None, entry
            files[name] = entry
        return files, None

    def _manifest_text(self):
        data = {"format": _FORMAT, "version": _VERSION, "files": dict(sorted(self.files.items()))}
        return json.dumps(data, indent=1) + "\n"

    def _save(self):
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.manifest_path, self._manifest_text())

    def _create_manifest(self):
        """Create the (empty) manifest unless another run created one meanwhile: then read that one."""
        try:
            atomic_create_bytes(self.manifest_path, self._manifest_text().encode("utf-8"))
        except FileExistsError:
            files, problem = self._read_manifest()
            if files is None:
                self._refuse_unless_forced(problem or "it appeared while this run claimed the folder")
                self._save()
            else:
                self.files = files

    def _foreign_entries(self):
        """Entries of the folder that make it 'not empty' (sorted names)."""
        if not self.path.is_dir():
            return []
        out = []
        for entry in sorted(self.path.iterdir()):
            name = entry.name
            if name in _IGNORED or temporary_target(name) is not None:
                continue
            if entry.is_dir() and not entry.is_symlink():
                if name in self.subfolders and not any(entry.iterdir()):
                    continue
                if OutputFolder.is_output_folder(entry):  # e.g. lgekit theory's theory/ inside reproduce's
                    continue
            out.append(name + ("/" if entry.is_dir() else ""))
        return out

    # ------------------------------------------------------------------ where a name leads
    def _link_on_the_way(self, name):
        """The first component of ``name``'s folders (a prefix) that is a symbolic link or no folder, or None.

        Every folder between the output folder and the file must be a real
        folder inside it: writing or deleting through a link would reach
        outside.  Missing folders are fine (nothing is behind them).
        """
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            try:
                info = os.lstat(self.path / prefix)
            except (FileNotFoundError, NotADirectoryError):
                return None
            if not stat.S_ISDIR(info.st_mode):
                return prefix
        return None

    @contextlib.contextmanager
    def _parent(self, name):
        """``(dir_fd, base)``: the folder holding ``name``, reached without following a link, and the file's name.

        Every folder on the way is opened relative to the one before it with
        ``O_NOFOLLOW``, so that what is read or deleted through ``dir_fd`` is
        inside the output folder even if a folder on the way is swapped for a
        link meanwhile.  ``OSError`` when one is a link or no folder.  Where
        the platform has no ``dir_fd`` functions, ``(None, path)`` after the
        same check made by path.
        """
        *folders, base = name.split("/")
        if not _DIR_FD:  # pragma: no cover - not POSIX
            if self._link_on_the_way(name) is not None:
                raise NotADirectoryError(errno.ENOTDIR, "a symbolic link on the way", name)
            yield None, str(self.path / name)
            return
        fd = os.open(self.path, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
        try:
            for part in folders:
                inner = os.open(part, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=fd)
                os.close(fd)
                fd = inner
            yield fd, base
        finally:
            os.close(fd)

    @staticmethod
    def _sha256_at(dir_fd, base):
        """The SHA-256 of the regular file ``base`` in ``dir_fd`` (not following a link), or None."""
        digest = hashlib.sha256()
        try:
            fd = os.open(base, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, dir_fd=dir_fd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()

    def _content_sha256(self, name):
        """The SHA-256 of ``name`` when it is a regular file inside the folder, no link on the way; else None."""
        try:
            with self._parent(name) as (dir_fd, base):
                return self._sha256_at(dir_fd, base)
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
        folder = OutputFolder.__new__(OutputFolder)
        folder.path = Path(path)
        return folder.path.is_dir() and folder._read_manifest()[0] is not None

    def writer(self, name):
        """The command the manifest says wrote ``name`` (None: unknown, an earlier manifest version; or unlisted)."""
        entry = self.files.get(_check_name(name))
        return None if entry is None else entry["writer"]

    def owns(self, name):
        """Whether this command may overwrite ``name``: a regular file inside the folder that it wrote.

        That is: listed by this command (or by an lgekit of manifest version
        1, which recorded no writer), and its content has the listed hash.
        """
        return self._proved(_check_name(name), {self.command, None})

    def owned(self):
        """The names of every file in the folder that :meth:`owns` accepts, sorted."""
        return sorted(name for name in self.files if self.owns(name))

    def check_writable(self, names):
        """Raise :class:`FolderNotOursError` when one of ``names`` cannot be written.

        A name behind a symbolic link (or a non-folder) is refused always; one
        that exists and is not ours (:meth:`owns`) is refused without
        ``force``.  Call it before long work, with every name the work will
        write.
        """
        names = list(map(_check_name, names))
        for name in names:
            link = self._link_on_the_way(name)
            if link is not None:
                raise FolderNotOursError(
                    f"{self.command} would write {name!r} in {str(self.path)!r} through {link!r}, which is a symbolic "
                    "link or no folder: lgekit writes only inside its output folder; remove it or choose another "
                    "folder")
            if (self.path / name).is_dir() and not (self.path / name).is_symlink():
                raise FolderNotOursError(f"{self.command} would write {name!r} in {str(self.path)!r}, which is a "
                                         "folder: move it away or choose another output folder")
        if self.force:
            return
        theirs = [n for n in names if os.path.lexists(self.path / n) and not self.owns(n)]
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
        subfolders are checked again (a real folder each) and the manifest is
        read again, so that what another run wrote since this object claimed
        the folder stays listed.

        Raises
        ------
        FolderLockedError
            When another process, thread or object holds it.
        FolderNotOursError
            When the lock file is not a regular file (a symbolic link: lgekit
            would create or lock a file outside), or a subfolder is a link.
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
                fd = self._acquire()
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

    def _acquire(self):
        path = self.path / LOCK_NAME
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, 0o666)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            fd = None
        if fd is None or not stat.S_ISREG(os.fstat(fd).st_mode):
            if fd is not None:
                os.close(fd)
            raise FolderNotOursError(f"the lock file {LOCK_NAME!r} in {str(self.path)!r} is not a regular file (a "
                                     "symbolic link, a FIFO, a device): lgekit did not make it; remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._check_subfolders()
            files, _ = self._read_manifest()
            if files is not None:
                self.files = files
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, BlockingIOError):
                raise self._locked_error() from None
            raise
        return fd

    def _locked_error(self):
        return FolderLockedError(f"another lgekit process is writing into {str(self.path)!r}; "
                                 "wait for it to finish or use another --out folder")

    def _check_subfolders(self):
        """Each subfolder the owner manages, where it exists, is a real folder inside: no link on the way."""
        for sub in self.subfolders:
            for i in range(1, len(sub.split("/")) + 1):
                prefix = "/".join(sub.split("/")[:i])
                try:
                    info = os.lstat(self.path / prefix)
                except (FileNotFoundError, NotADirectoryError):
                    break
                if not stat.S_ISDIR(info.st_mode):
                    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
                    raise FolderNotOursError(
                        f"output folder {str(self.path)!r}: {prefix!r} is {kind}, where lgekit keeps a folder of its "
                        "own: it writes only inside its output folder (never through a symbolic link, even with "
                        "--force); remove it or choose another folder")

    # ------------------------------------------------------------------ writing and removing
    @contextlib.contextmanager
    def writing(self, name, suffix=None):
        """Yield a temporary path; on success it becomes ``name`` in the folder, listed as this command's.

        Parameters
        ----------
        name : str
            Relative to the folder; its parent folder must exist.
        suffix : str, optional
            See :func:`lgekit._atomic.atomic_path`.

        Raises
        ------
        FolderNotOursError
            When ``name`` exists, is not ours, and writing was not forced; or
            when a symbolic link lies on the way.
        """
        name = _check_name(name)
        self.check_writable([name])
        path = self.path / name

        def list_pending(tmp):
            # listed before the rename: after a crash either content there is provably ours
            old = {self._content_sha256(name)} if self.owns(name) else set()
            self.files[name] = {"writer": self.command, "sha256": sorted(old | {file_sha256(tmp)})}
            self._save()

        with atomic_path(path, suffix=suffix, before_rename=list_pending) as tmp:
            yield tmp
        self.files[name] = {"writer": self.command, "sha256": [file_sha256(path)]}
        self._save()

    def write_bytes(self, name, data):
        """Write ``data`` to ``name`` atomically and list it as ours; returns the path."""
        with self.writing(name) as tmp:
            Path(tmp).write_bytes(data)
        return self.path / name

    def write_text(self, name, text, encoding="utf-8"):
        """Write ``text`` to ``name`` atomically and list it as ours; returns the path."""
        return self.write_bytes(name, text.encode(encoding))

    def remove(self, name):
        """Delete ``name`` when this command wrote it (see the module notes); returns whether it was deleted.

        A name this command listed whose file is gone, or no longer ours,
        leaves the manifest; another command's entries are left as they are.
        """
        name = _check_name(name)
        entry = self.files.get(name)
        if entry is None or entry["writer"] != self.command:
            return False
        removed = False
        with contextlib.suppress(OSError):  # a link or no folder on the way: nothing of ours there
            with self._parent(name) as (dir_fd, base):
                # hashed and unlinked through one folder descriptor: what is deleted is what was proved ours
                if self._sha256_at(dir_fd, base) in entry["sha256"]:
                    os.unlink(base, dir_fd=dir_fd)
                    removed = True
        del self.files[name]
        self._save()
        return removed

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
            The names deleted, sorted.  Files of those names that the user
            changed since lgekit wrote them are kept (and leave the manifest);
            files another command wrote (or an lgekit whose manifest named no
            writer) are not considered.
        """
        keep = {_check_name(k) for k in keep}
        candidates = [n for n in sorted(self.files) if n not in keep and self.files[n]["writer"] == self.command
                      and (match is None or match(n))]
        return [n for n in candidates if self.remove(n)]
