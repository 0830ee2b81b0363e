"""The results store: one JSON file per finished cell, plus a JSON-lines index.

Layout of an output folder::

    DIR/cells/<key>.json    one record per finished cell (the source of truth)
    DIR/records.jsonl       every record, one per line, sorted by key (derived)
    DIR/.lock               held (flock) while a sweep writes into DIR

Why one file per cell rather than appending to a single JSON-lines file: a
cell file is written to a temporary name in the same folder, fsync'ed, and
renamed onto ``<key>.json`` (:func:`lgekit._atomic.atomic_path`).  A rename is
atomic, so after a ``kill -9`` at *any* instant each cell file is either whole
or absent: there is no torn last line to detect, no reader heuristics, and a
cell can never be stored twice, because its key is its file name.  Resuming a
sweep is listing the folder.  The JSON-lines index is rebuilt from the cell
files (again atomically) at the end of every run and by :meth:`write_index`,
so tools that want a single file get one, and a stale or missing index is
harmless.  Leftover temporary files of an interrupted write start with a dot
and are ignored (and removed by :meth:`ResultsStore.clean_temporary_files`).
"""
import contextlib
import json
import logging
import math
import os
from pathlib import Path

from .._atomic import atomic_write_text

__all__ = ["ResultsStore", "read_jsonl", "to_json_safe", "strip_timings", "FINISHED_STATUSES"]

logger = logging.getLogger(__name__)

#: records with these statuses are results; "error" cells are recomputed on the next run
FINISHED_STATUSES = ("ok", "diverged")


def to_json_safe(obj):
    """Convert NumPy scalars/arrays to Python, and non-finite floats to ``None``.

    Records must be strict JSON (readable by any parser); whether a run went
    non-finite is recorded explicitly (``"diverged": true``), not as ``NaN``.
    """
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        np = None
    if isinstance(obj, dict):
        return {str(k): to_json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json_safe(v) for v in obj]
    if np is not None:
        if isinstance(obj, np.ndarray):
            return to_json_safe(obj.tolist())
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            obj = float(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


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
    with open(path, encoding="utf-8") as fh:
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
        Created (with parents) if missing.

    Raises
    ------
    PermissionError
        When the folder cannot be created or written (the message names it).
    """

    def __init__(self, folder):
        self.folder = Path(folder).expanduser()
        self.cells_dir = self.folder / "cells"
        self.index_path = self.folder / "records.jsonl"
        try:
            self.cells_dir.mkdir(parents=True, exist_ok=True)
            probe = self.folder / f".write-probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise PermissionError(
                f"output folder {str(self.folder)!r} is not writable: {exc.strerror or exc}; "
                "pass --out with a folder you can write to"
            ) from None

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
        """The record of cell ``key``, or ``None`` if it has none (or it cannot be read)."""
        path = self._path(key)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError) as exc:  # only by outside damage
            logger.warning("cannot read %s (%s); the cell will be recomputed", path, exc)
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
        atomic_write_text(self.index_path, "".join(line + "\n" for line in lines))
        return self.index_path

    def clean_temporary_files(self):
        """Remove temporary files left by writes that were killed; returns how many."""
        removed = 0
        for folder in (self.cells_dir, self.folder):
            for path in folder.glob(".*"):
                # atomic_path names its temporary ".<name>.<random><suffix>": 3+ dots
                if path.name.count(".") < 3 or not path.is_file():
                    continue
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
        return removed

    @contextlib.contextmanager
    def lock(self):
        """Hold an exclusive lock on the folder (released automatically if the process dies).

        Raises
        ------
        RuntimeError
            If another process holds it (two sweeps writing the same folder).
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no locking
            yield
            return
        fh = open(self.folder / ".lock", "a+")
        try:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RuntimeError(
                    f"another lgekit process is writing into {str(self.folder)!r}; "
                    "wait for it to finish or use another --out folder"
                ) from None
            yield
        finally:
            fh.close()
