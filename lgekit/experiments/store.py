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
cell file is written and synced in the run's staging folder inside the output
folder, then renamed onto ``cells/<key>.json``
(:meth:`lgekit._output_folder.OutputFolder.replace_in_subfolder`).  A rename
is atomic, so after a ``kill -9`` at *any* instant each cell file is either
whole or absent: there is no torn last line to detect, no reader heuristics,
and a cell can never be stored twice, because its key is its file name.
Resuming a sweep is listing the folder.  The JSON-lines index is rebuilt from
the cell files at the end of every run and by :meth:`write_index`, so tools
that want a single file get one, and a stale or missing index is harmless.
No temporary is ever left in ``cells/`` or beside the results: what an
interrupted run leaves is its staging folder, listed in the folder's manifest,
which the next run removes (no file is removed for its name: a user's
``.report.md.20240101.md`` stays).

A damaged cell file (not JSON, nested absurdly deep, another cell's record, a
folder in its place) is never fatal: the cell is recomputed, and a record that
cannot be stored (a folder holds its name) is kept for the run in memory, with
one warning naming the path.

One process at a time writes into a folder: :meth:`ResultsStore.lock` (the
output folder's lock, which ``lgekit fit`` takes too) is held for a whole
``lgekit reproduce`` (plan, sweep, figures, report), so a second run on the
same folder is refused before it writes anything.
"""
import io
import json
import logging

from .._input_file import open_regular_file, read_input_bytes
from .._json import JSONLimitError, parse_json, to_json_safe
from .._output_folder import OutputFolder

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
                out.append(parse_json(line, what=f"line {number}"))
            except JSONLimitError as exc:
                logger.warning("%s: line %d does not parse (%s); skipped", path, number, exc)
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
        self._unstored = {}   # key -> record of a cell whose file could not be written (a folder holds its name)

    def __repr__(self):
        return f"ResultsStore({str(self.folder)!r})"

    def _path(self, key):
        if not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"key must be a lowercase hex digest, got {key!r}")
        return self.cells_dir / f"{key}.json"

    def put(self, record):
        """Store one record (atomically replacing any older record of the same cell).

        A record whose file cannot be written because a folder holds its name
        (``cells/<key>.json/``) is kept in memory for this store's lifetime,
        with one warning saying what to remove: the sweep goes on, and the
        report of this run has the cell.
        """
        record = to_json_safe(record)
        text = json.dumps(record, sort_keys=True, allow_nan=False)
        path = self._path(record["key"])
        try:
            self.output.replace_in_subfolder("cells", path.name, (text + "\n").encode("utf-8"))
        except IsADirectoryError:
            self._unstored[record["key"]] = record
            self._damaged(path, "it is a folder, not a cell file; this run keeps the cell's record in memory only: "
                                "remove the folder to store it", action="")
            return
        self._unstored.pop(record["key"], None)

    def get(self, key):
        """The record of cell ``key``, or ``None`` if it has none or its file is damaged.

        A cell file is damaged when it cannot be read, is not a regular file
        (a folder, a FIFO, a link to a device: refused without reading), holds
        more than :data:`MAX_CELL_BYTES` or is nested deeper than any record
        (:func:`lgekit._json.parse_json`), is not UTF-8 JSON, is not a JSON
        object, or holds another cell's record (its ``key`` differs from its
        file name): then ``None`` (the cell is recomputed), and one warning
        naming the file and what is wrong, once per file.
        """
        path = self._path(key)
        if key in self._unstored:
            return self._unstored[key]
        try:
            # a FIFO or a link to /dev/zero is refused at once, and a huge file from its size
            raw = read_input_bytes(path, bytes_per_byte=_JSON_BYTES_PER_BYTE, max_bytes=MAX_CELL_BYTES,
                                   what="a cell record")
            record = parse_json(raw, what="it", max_bytes=MAX_CELL_BYTES)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:  # only by outside damage
            return self._damaged(path, f"unreadable: {exc}")
        if not isinstance(record, dict):
            return self._damaged(path, f"it holds a JSON {type(record).__name__}, not a cell record")
        if record.get("key") != key:
            return self._damaged(path, f"it holds the record of another cell (key {str(record.get('key'))[:12]!r})")
        if not isinstance(record.get("config"), dict):
            return self._damaged(path, "it has no cell configuration")
        return record

    def _damaged(self, path, why, action=": the cell will be recomputed"):
        if path.name not in self._warned:
            self._warned.add(path.name)
            logger.warning("damaged cell file %s (%s)%s", path, why, action)
        return None

    def keys(self):
        """Keys of every stored cell (finished or not), sorted."""
        return sorted({p.stem for p in self.cells_dir.glob("*.json") if not p.name.startswith(".")}
                      | set(self._unstored))

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

