"""The results store: one JSON file per finished cell, plus a JSON-lines index.

Layout of an output folder::

    DIR/cells/<key>.json    one record per finished cell (the source of truth)
    DIR/records.jsonl       every record, one per line, sorted by key (derived)
    DIR/.lock               held (flock) while a sweep writes into DIR
    DIR/.lgekit-manifest.json   the files of DIR that lgekit wrote, with their hashes

The folder is an :class:`~lgekit._output_folder.OutputFolder`: a folder that
holds other files is refused unless forced, and only files the manifest proves
lgekit wrote are ever replaced or removed.  ``cells/`` is the store's own.

Why one file per cell rather than appending to a single JSON-lines file: a
cell file is written to a temporary name in the same folder, fsync'ed, and
renamed onto ``<key>.json`` (:func:`lgekit._atomic.atomic_path`).  A rename is
atomic, so after a ``kill -9`` at *any* instant each cell file is either whole
or absent: there is no torn last line to detect, no reader heuristics, and a
cell can never be stored twice, because its key is its file name.  Resuming a
sweep is listing the folder.  The JSON-lines index is rebuilt from the cell
files (again atomically) at the end of every run and by :meth:`write_index`,
so tools that want a single file get one, and a stale or missing index is
harmless.  Leftover temporary files of an interrupted write are named
``.lgekit-tmp.<random>.<target>`` (:mod:`lgekit._atomic`); they are ignored, and
:meth:`ResultsStore.clean_temporary_files` removes those (and only those) whose
target is a file the store or the report writes: the folder may hold the
user's own files too, and they are never touched.

One process at a time writes into a folder: :meth:`ResultsStore.lock` (the
output folder's lock, which ``lgekit fit`` takes too) is held for a whole
``lgekit reproduce`` (plan, sweep, figures, report), so a second run on the
same folder is refused before it writes anything.
"""
import contextlib
import io
import json
import logging
import os
import re
from pathlib import Path

from .._atomic import atomic_write_text, temporary_target
from .._input_file import open_regular_file, read_input_bytes
from .._json import to_json_safe
from .._output_folder import MANIFEST_NAME, OutputFolder

__all__ = ["ResultsStore", "read_jsonl", "strip_timings", "FINISHED_STATUSES", "MAX_CELL_BYTES"]

logger = logging.getLogger(__name__)

#: records with these statuses are results; "error" cells are recomputed on the next run
FINISHED_STATUSES = ("ok", "diverged")

#: the most bytes a cell record may hold: a record is a configuration, metrics and a history of a few hundred
#: epochs (kilobytes); anything far larger is damage, refused from its size before it is read
MAX_CELL_BYTES = 64 * 2**20
# json.loads builds Python objects from the text: several times its size in memory
_JSON_BYTES_PER_BYTE = 16


def strip_timings(record):
    """A copy of ``record`` without what legitimately differs between runs of the same cell.

    That is the ``timings`` entry (wall-clock seconds, where and when it ran);
    everything else (history, metrics, status, configuration, versions) is a
    function of the configuration alone for single-threaded cells.
    """
    return {k: v for k, v in record.items() if k != "timings"}


def read_jsonl(path):
    """Read a JSON-lines file, skipping (with a warning) any line that does not parse.

    The index written by :meth:`ResultsStore.write_index` is always whole; the
    tolerance is for files produced by other tools (e.g. ``cat`` of two
    indexes, or an append that was interrupted).
    """
    out = []
    with io.TextIOWrapper(open_regular_file(path, bytes_per_byte=_JSON_BYTES_PER_BYTE, what="a JSON-lines file"),
                          encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                logger.warning("%s: line %d does not parse; skipped", path, number)
    return out


class ResultsStore:
    """Records of finished cells in an output folder.

    Parameters
    ----------
    folder : str or path
        Created (with parents) if missing; claimed as an lgekit output folder
        (:class:`lgekit._output_folder.OutputFolder`, whose manifest lists the
        files of the folder that lgekit wrote: only those are ever replaced or
        removed).  ``cells/`` belongs to the store as a whole.
    force : bool, default False
        Accept a folder that holds files lgekit did not write (``--force``).

    Attributes
    ----------
    output : OutputFolder
        Writes the folder's other files (index, plan, report, figures).

    Raises
    ------
    FolderNotOursError
        When the folder is not empty, is no lgekit output folder, and
        ``force`` is false (the message names what it holds).
    PermissionError
        When the folder cannot be created or written (the message names it).
    """

    def __init__(self, folder, *, force=False):
        # claimed first: a folder of the user's is refused before anything (cells/ included) is created in it
        self.output = OutputFolder(folder, force=force, subfolders=("cells",), command="lgekit reproduce")
        self.folder = self.output.path
        self.cells_dir = self.folder / "cells"
        self.index_path = self.folder / "records.jsonl"
        self._warned = set()  # damaged cell files already reported

    def __repr__(self):
        return f"ResultsStore({str(self.folder)!r})"

    def _path(self, key):
        if not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"key must be a lowercase hex digest, got {key!r}")
        return self.cells_dir / f"{key}.json"

    def put(self, record):
        """Store one record (atomically replacing any older record of the same cell)."""
        record = to_json_safe(record)
        text = json.dumps(record, sort_keys=True, allow_nan=False)
        atomic_write_text(self._path(record["key"]), text + "\n")

    def get(self, key):
        """The record of cell ``key``, or ``None`` if it has none or its file is damaged.

        A cell file is damaged when it cannot be read, is not a regular file
        (a FIFO, a link to a device: refused without reading), holds more
        than :data:`MAX_CELL_BYTES`, is not UTF-8 JSON, is
        not a JSON object, or holds another cell's record (its ``key`` differs
        from its file name): then ``None`` (the cell is recomputed), and one
        warning naming the file and what is wrong, once per file.
        """
        path = self._path(key)
        try:
            # a FIFO or a link to /dev/zero is refused at once, and a huge file from its size
            raw = read_input_bytes(path, bytes_per_byte=_JSON_BYTES_PER_BYTE, max_bytes=MAX_CELL_BYTES,
                                   what="a cell record")
            record = json.loads(raw.decode("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # only by outside damage
            return self._damaged(path, f"unreadable: {type(exc).__name__}: {exc}")
        if not isinstance(record, dict):
            return self._damaged(path, f"it holds a JSON {type(record).__name__}, not a cell record")
        if record.get("key") != key:
            return self._damaged(path, f"it holds the record of another cell (key {str(record.get('key'))[:12]!r})")
        if not isinstance(record.get("config"), dict):
            return self._damaged(path, "it has no cell configuration")
        return record

    def _damaged(self, path, why):
        if path.name not in self._warned:
            self._warned.add(path.name)
            logger.warning("damaged cell file %s (%s): the cell will be recomputed", path, why)
        return None

    def keys(self):
        """Keys of every stored cell (finished or not), sorted."""
        return sorted(p.stem for p in self.cells_dir.glob("*.json") if not p.name.startswith("."))

    def finished_keys(self):
        """Keys of the cells whose records are results (status ``ok`` or ``diverged``)."""
        out = set()
        for key in self.keys():
            record = self.get(key)
            if record is not None and record.get("status") in FINISHED_STATUSES:
                out.add(key)
        return out

    def records(self, keys=None):
        """Records of ``keys`` (default: all), skipping cells without one."""
        keys = self.keys() if keys is None else keys
        out = []
        for key in keys:
            record = self.get(key)
            if record is not None:
                out.append(record)
        return out

    def write_index(self):
        """Rebuild ``records.jsonl`` from the cell files (atomically) and return its path."""
        lines = [json.dumps(r, sort_keys=True, allow_nan=False) for r in self.records()]
        self.output.write_text(self.index_path.name, "".join(line + "\n" for line in lines))
        return self.index_path

    def clean_temporary_files(self):
        """Remove the temporaries that interrupted writes of this store left behind; returns how many.

        Only files named exactly ``.lgekit-tmp.<32 hex digits>.<target>``
        (:data:`lgekit._atomic.TEMPORARY_PATTERN`) are removed, and only when
        ``<target>`` is a file this store or the report writes there (a cell
        record in ``cells/``; the index, plan, report, summary or a figure in
        the folder): every other file, dotfile or not, is the user's.  The
        temporaries of earlier lgekit versions (``tempfile.mkstemp`` names,
        ``.<target>.<8 random characters><target's suffix>``, e.g.
        ``.fig3.pdf.k2j4_x0q.pdf``) are recognised as well, for the same
        targets only.  Call it while holding :meth:`lock`, so that no live
        write is in progress.
        """
        removed = 0
        for folder, targets in ((self.cells_dir, _CELL_TARGETS), (self.folder, _FOLDER_TARGETS)):
            for path in folder.glob(".*"):
                target = temporary_target(path.name) or _legacy_temporary_target(path.name)
                if target is None or not targets.fullmatch(target) or path.is_symlink() or not path.is_file():
                    continue
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
        return removed

    def lock(self):
        """Hold the folder's exclusive lock (:meth:`lgekit._output_folder.OutputFolder.lock`).

        Re-entrant for the thread holding it through this same store:
        ``reproduce`` holds it for the whole command and hands the store to
        :func:`~lgekit.experiments.engine.run_sweep` and
        :func:`~lgekit.experiments.report.write_outputs`, which take it again.
        ``lgekit fit`` takes the same lock, so a fit and a sweep never write
        one folder at once.

        Raises
        ------
        lgekit._output_folder.FolderLockedError
            A ``RuntimeError``: another process, thread or store object holds
            it (two runs writing the same folder).
        """
        return self.output.lock()


#: targets whose temporaries clean_temporary_files may remove, in the folder and in cells/ ("write-probe":
#: the writability probe of earlier releases)
_FOLDER_TARGETS = re.compile(r"records\.jsonl|plan\.json|summary\.json|report\.(?:md|html)"
                             r"|fig[1-9][0-9]*\.(?:png|pdf)|write-probe|" + re.escape(MANIFEST_NAME))
_CELL_TARGETS = re.compile(r"[0-9a-f]+\.json")
#: the temporaries of earlier releases: tempfile.mkstemp(prefix=".<target>.", suffix=<target's suffixes>)
_LEGACY_TEMPORARY = re.compile(r"\.(.+)\.[a-z0-9_]{8}(\.[^.]+)", re.DOTALL)


def _legacy_temporary_target(name):
    """The target of a temporary named by earlier lgekit releases, or ``None``."""
    match = _LEGACY_TEMPORARY.fullmatch(name)
    if match is None or "".join(Path(match.group(1)).suffixes) != match.group(2):
        return None
    return match.group(1)
