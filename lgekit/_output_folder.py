"""Which files in an output folder are lgekit's: a manifest of the names it wrote and their hashes.

A command that writes into a folder the user names (``lgekit reproduce --out``,
``lgekit fit --out``) must never delete or overwrite a file the user put
there.  A name is not proof (the user's ``fig2.png`` looks like ours), so every
file lgekit writes is listed, with the SHA-256 of its content, in a manifest
kept in the folder, ``.lgekit-manifest.json``.  A file is *ours* when the
manifest lists its name and its current content has the listed hash; a file
the user edited afterwards is theirs again.

The rules, applied by :class:`OutputFolder`:

* Claiming a folder: a missing or empty folder, or one that already holds a
  manifest, is claimed (the manifest is created).  A folder that holds
  anything else is refused with :class:`FolderNotOursError`, unless
  ``force=True`` (``--force``): then lgekit writes into it, overwriting the
  files of the names it writes, and still removes nothing it cannot prove
  it wrote.
* Writing: a file is written atomically (:mod:`lgekit._atomic`).  Before the
  rename, the manifest lists the name as *pending* with the old and the new
  hash, so that after a crash at any instant the file there is provably
  ours; after it, the new hash alone.  Overwriting an existing file that is
  not ours is refused (without ``force``).
* Removing: :meth:`OutputFolder.remove` deletes a file only when it is ours.

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

    folder = OutputFolder("results", force=args.force)      # FolderNotOursError -> one-line message
    folder.check_writable(["embedding.npz", "embedding.txt"])  # before any long work
    folder.write_bytes("notes.txt", b"...")
    with folder.writing("embedding.npz", suffix=".npz") as tmp:
        numpy.savez(tmp, ...)
    folder.remove_stale(keep={"embedding.npz"})            # an earlier run's files this one did not write
"""
import contextlib
import errno
import json
import os
from pathlib import Path

from ._atomic import atomic_path, atomic_write_text, temporary_target
from ._input_file import file_sha256  # every file lgekit reads is read by that module (regular files only)

__all__ = ["OutputFolder", "FolderNotOursError", "MANIFEST_NAME", "DISK_ERRNOS", "disk_error_message", "file_sha256"]

#: the manifest's file name, in the folder it describes
MANIFEST_NAME = ".lgekit-manifest.json"
#: what a manifest says it is (a JSON file of another origin with the same name is not one)
_FORMAT = "lgekit output folder manifest"
_VERSION = 1
#: names that never make a folder "not empty": the results store's lock file
_IGNORED = frozenset({".lock"})


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
    """The folder holds files lgekit cannot prove it wrote, and writing there was not forced."""


def _check_name(name):
    """A file name relative to the folder, one component or several, never leaving it."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str relative to the folder, got {name!r}")
    parts = Path(name).parts
    if Path(name).is_absolute() or ".." in parts or name == MANIFEST_NAME:
        raise ValueError(f"name must stay inside the folder and not be the manifest, got {name!r}")
    return Path(*parts).as_posix()


class OutputFolder:
    """An output folder that lgekit writes into, and the proof of which files in it are lgekit's.

    Parameters
    ----------
    path : str or path
        Created (with its parents) when missing.
    force : bool, default False
        Write into a folder that holds other files (``--force``): names lgekit
        writes are overwritten; nothing lgekit did not write is ever removed.
    subfolders : iterable of str, default ()
        Subfolders the owner manages itself (created here; see the module
        notes).
    command : str, default ""
        What claims the folder (``"lgekit reproduce"``), named in messages.

    Raises
    ------
    FolderNotOursError
        When the folder holds other files and ``force`` is false.  The
        message names a few of them and says what ``--force`` does.
    PermissionError
        When the folder cannot be created or written.
    """

    def __init__(self, path, *, force=False, subfolders=(), command="lgekit"):
        self.path = Path(path).expanduser()
        self.force = bool(force)
        self.command = command
        self.subfolders = tuple(_check_name(s) for s in subfolders)
        if self.path.exists() and not self.path.is_dir():
            raise PermissionError(f"output folder {str(self.path)!r} is not writable: it is a file; "
                                  "pass --out with a folder")
        self.files = self._read_manifest()  # name -> list of accepted hashes; None: no (valid) manifest
        if self.files is None:
            foreign = self._foreign_entries()
            if foreign and not self.force:
                shown = ", ".join(repr(n) for n in foreign[:4]) + (f" and {len(foreign) - 4} more"
                                                                   if len(foreign) > 4 else "")
                raise FolderNotOursError(
                    f"output folder {str(self.path)!r} is not empty and is not an lgekit output folder (it holds "
                    f"{shown} and no {MANIFEST_NAME}): choose an empty or new folder, or pass --force to write "
                    f"into it ({command} then overwrites the files it writes, and never removes a file it did "
                    "not write)")
            self.files = {}
        try:
            for sub in self.subfolders:
                (self.path / sub).mkdir(parents=True, exist_ok=True)
            self._save()
        except OSError as exc:
            raise PermissionError(f"output folder {str(self.path)!r} is not writable: {exc.strerror or exc}; "
                                  "pass --out with a folder you can write to") from None

    def __repr__(self):
        return f"OutputFolder({str(self.path)!r})"

    # ------------------------------------------------------------------ the manifest
    @property
    def manifest_path(self):
        return self.path / MANIFEST_NAME

    def _read_manifest(self):
        try:
            data = json.loads(self.manifest_path.read_bytes().decode("utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, UnicodeDecodeError, ValueError):
            return None  # damaged: nothing in the folder can be proved ours
        if not (isinstance(data, dict) and data.get("format") == _FORMAT and isinstance(data.get("files"), dict)):
            return None
        files = {}
        for name, hashes in data["files"].items():
            if isinstance(hashes, str):
                hashes = [hashes]
            if isinstance(name, str) and isinstance(hashes, list) and all(isinstance(h, str) for h in hashes):
                files[name] = list(hashes)
        return files

    def _save(self):
        self.path.mkdir(parents=True, exist_ok=True)
        data = {"format": _FORMAT, "version": _VERSION, "files": dict(sorted(self.files.items()))}
        atomic_write_text(self.manifest_path, json.dumps(data, indent=1) + "\n")

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

    # ------------------------------------------------------------------ questions
    @staticmethod
    def is_output_folder(path):
        """Whether ``path`` is a folder with a valid lgekit manifest (without claiming it)."""
        folder = OutputFolder.__new__(OutputFolder)
        folder.path = Path(path)
        return folder.path.is_dir() and folder._read_manifest() is not None

    def owns(self, name):
        """Whether ``name`` is a regular file lgekit wrote (listed, and its content has the listed hash)."""
        name = _check_name(name)
        hashes = self.files.get(name)
        path = self.path / name
        if not hashes or path.is_symlink() or not path.is_file():
            return False
        return "*" in hashes or file_sha256(path) in hashes

    def owned(self):
        """The names of every file in the folder that is ours, sorted."""
        return sorted(name for name in self.files if self.owns(name))

    def check_writable(self, names):
        """Raise :class:`FolderNotOursError` when one of ``names`` exists and is not ours (without ``force``).

        Call it before long work, with every name the work will write.
        """
        if self.force:
            return
        theirs = [n for n in map(_check_name, names)
                  if ((self.path / n).exists() or (self.path / n).is_symlink()) and not self.owns(n)]
        if theirs:
            raise FolderNotOursError(
                f"{self.command} would overwrite {', '.join(repr(n) for n in theirs)} in {str(self.path)!r}, which "
                f"lgekit did not write (or which was changed since): move {'them' if len(theirs) > 1 else 'it'} "
                "away, or pass --force to overwrite")

    # ------------------------------------------------------------------ writing and removing
    @contextlib.contextmanager
    def writing(self, name, suffix=None):
        """Yield a temporary path; on success it becomes ``name`` in the folder, listed as ours.

        Parameters
        ----------
        name : str
            Relative to the folder; its parent folder must exist.
        suffix : str, optional
            See :func:`lgekit._atomic.atomic_path`.

        Raises
        ------
        FolderNotOursError
            When ``name`` exists, is not ours, and writing was not forced.
        """
        name = _check_name(name)
        self.check_writable([name])
        path = self.path / name

        def list_pending(tmp):
            # listed before the rename: after a crash either content there is provably ours
            self.files[name] = sorted(({file_sha256(path)} if self.owns(name) else set()) | {file_sha256(tmp)})
            self._save()

        with atomic_path(path, suffix=suffix, before_rename=list_pending) as tmp:
            yield tmp
        self.files[name] = [file_sha256(path)]
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
        """Delete ``name`` when it is ours; returns whether it was deleted.

        A listed name whose file is gone, or no longer ours, leaves the manifest.
        """
        name = _check_name(name)
        removed = False
        if self.owns(name):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path / name)
                removed = True
        if name in self.files:
            del self.files[name]
            self._save()
        return removed

    def remove_stale(self, keep, match=None):
        """Delete our files that this run did not write: listed, ours, not in ``keep``.

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
            changed since lgekit wrote them are kept (and leave the manifest).
        """
        keep = {_check_name(k) for k in keep}
        candidates = [n for n in sorted(self.files) if n not in keep and (match is None or match(n))]
        return [n for n in candidates if self.remove(n)]
