"""The manifest of an output folder: which files in it are lgekit's, which command wrote each, and its runs.

Every file lgekit writes into a folder the user names is listed in
``.lgekit-manifest.json`` (:data:`MANIFEST_NAME`), kept in that folder, with
the command that wrote it and the SHA-256 of the content it wrote; so are the
runs staging their files there (:mod:`lgekit._output_folder` says how a run
publishes, and why a name is not proof).  This module reads and writes that
file; :class:`lgekit._output_folder.OutputFolder` decides with it.

The manifest::

    {"format": "lgekit output folder manifest", "version": 3,
     "files": {"embedding.npz": {"writer": "lgekit fit", "sha256": ["<64 hex digits>"]}, ...},
     "runs": {".lgekit-run.<32 hex>": {"writer": "lgekit fit", "state": "writing"}, ...}}

A manifest is lgekit's only when every entry is one lgekit writes: a name
relative to the folder that stays inside it (no ``..``, no absolute path, no
empty, ``.`` or NUL component), a writer, and one or two 64-hex-digit hashes;
a run named ``.lgekit-run.<32 hex digits>`` in a known state.  Anything else
(a wildcard such as ``"*"``, a name leaving the folder) means the manifest was
not written by lgekit and proves nothing: the folder is then treated as one
of the user's.  A version 1 manifest (before issue 33) records no writer: its
files are lgekit's but of no known command, so a command may rewrite one of
the names it writes (lgekit's commands write disjoint names) and never
removes one.  A manifest is at most :data:`MANIFEST_MAX_BYTES` and nested a
few levels (:func:`lgekit._json.parse_json`): a larger or deeper one is not
lgekit's, said in one line.  It is only ever written under the folder's lock
(:mod:`lgekit._folder_lock`), through ``.lgekit-manifest.json.new`` and a
rename (:func:`write_manifest`).
"""
import json
import os
import re
import stat
from pathlib import Path

from ._folder_lock import LOCK_NAME
from ._json import JSONLimitError, parse_json

__all__ = ["MANIFEST_NAME", "MANIFEST_NEXT", "MANIFEST_MAX_BYTES", "RUN_PREFIX", "check_name", "name_problem",
           "read_manifest", "manifest_text", "write_manifest"]

#: the manifest's file name, in the folder it describes
MANIFEST_NAME = ".lgekit-manifest.json"
#: the manifest's next version, written under the lock and renamed onto the manifest
MANIFEST_NEXT = MANIFEST_NAME + ".new"
#: every run's staging folder starts with this, followed by 32 hex digits
RUN_PREFIX = ".lgekit-run."
_RUN_NAME = re.compile(re.escape(RUN_PREFIX) + r"[0-9a-f]{32}")
#: a staged file's name in its run folder: its place in the run's order, then the file's own name
_STAGED_NAME = re.compile(r"[0-9]{4,}\.[^/\0]+")
#: what a manifest says it is (a JSON file of another origin with the same name is not one)
_FORMAT = "lgekit output folder manifest"
_VERSION = 3
#: the versions read: 1 recorded no writer, 2 no runs (see the module notes)
_READ_VERSIONS = (1, 2, 3)
#: the states of a run: staging its files; its journal written, linking them into place; kept by its command
_RUN_STATES = ("writing", "publishing", "failed")
#: the names lgekit reserves for itself in an output folder (never a file it writes for a user)
_RESERVED = frozenset({LOCK_NAME, MANIFEST_NAME, MANIFEST_NEXT})
#: a hash lgekit writes: SHA-256, lowercase hex
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: a manifest lgekit writes lists a few dozen names: a larger file is not one (and is not read whole)
MANIFEST_MAX_BYTES = 16 << 20


def name_problem(name):
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
    if name in _RESERVED:
        return "it is the manifest or the lock file"
    if _RUN_NAME.fullmatch(parts[0]):
        return "it is inside a run's staging folder"
    return None


def check_name(name):
    """A file name relative to the folder, one component or several, never leaving it."""
    if isinstance(name, str) and name and "\0" not in name and not Path(name).is_absolute():
        name = "/".join(Path(name).parts)  # "a//b", "./a" and "a/" as written by lgekit: "a/b", "a"
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"name must stay inside the folder and not be the manifest or the lock file, got "
                         f"{name!r}: {problem}")
    return name


def _is_hash(h):
    return isinstance(h, str) and _SHA256.fullmatch(h) is not None


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
        if not _is_hash(h):
            return f"the entry of {name!r} lists {h!r}, which is not a SHA-256 (64 lowercase hex digits)"
    return {"writer": writer, "sha256": sorted(set(hashes))}


def _run_entry(name, value):
    """A manifest's run entry, checked: ``{"writer", "state"[, "files", "remove"]}``, or a phrase saying why not."""
    if not _RUN_NAME.fullmatch(name):
        return f"it lists a run {name!r}, not a name lgekit gives a run"
    if not (isinstance(value, dict) and isinstance(value.get("writer"), str) and value["writer"]
            and value.get("state") in _RUN_STATES):
        return f"the run {name!r} has no writer or no known state"
    out = {"writer": value["writer"], "state": value["state"]}
    if value["state"] == "publishing":
        files, remove = value.get("files"), value.get("remove", [])
        if not (isinstance(files, list) and isinstance(remove, list)):
            return f"the run {name!r} is publishing without a journal"
        for item in files:
            if not (isinstance(item, list) and len(item) == 3 and name_problem(item[0]) is None
                    and isinstance(item[1], str) and _STAGED_NAME.fullmatch(item[1]) and _is_hash(item[2])):
                return f"the run {name!r} lists {str(item)[:80]!r}, not a staged file of lgekit's"
        if any(name_problem(n) is not None for n in remove):
            return f"the run {name!r} would remove a name outside the folder"
        if not isinstance(value.get("force", False), bool):
            return f"the run {name!r} has a force flag that is not a boolean"
        out.update(files=[list(item) for item in files], remove=list(remove), force=value.get("force", False))
    return out


def read_manifest(folder):
    """``(files, runs, None)`` for a valid manifest in the open ``folder``, ``(None, None, None)`` for none (or no
    folder), ``(None, None, why)`` for one that proves nothing (``why``: a phrase)."""
    if folder is None:
        return None, None, None
    try:
        info = folder.lstat(MANIFEST_NAME)
    except (FileNotFoundError, NotADirectoryError):
        return None, None, None
    except OSError as exc:
        return None, None, f"it cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return None, None, "it is not a regular file"
    if info.st_size > MANIFEST_MAX_BYTES:
        return None, None, f"it is {info.st_size:,} bytes, more than any manifest lgekit writes"
    try:
        with folder.open_read(MANIFEST_NAME) as fh:
            raw = fh.read(MANIFEST_MAX_BYTES + 1)
        data = parse_json(raw, what="it", max_bytes=MANIFEST_MAX_BYTES, max_depth=8)
    except FileNotFoundError:
        return None, None, None
    except JSONLimitError as exc:
        return None, None, str(exc)
    except OSError:
        return None, None, "it cannot be read"
    if not (isinstance(data, dict) and data.get("format") == _FORMAT and isinstance(data.get("files"), dict)):
        return None, None, "it is not an lgekit manifest"
    version = data.get("version")
    if type(version) is not int or version not in _READ_VERSIONS:
        return None, None, (f"its version is {version!r}, and this lgekit reads "
                            f"{', '.join(map(str, _READ_VERSIONS))}")
    files = {}
    for name, value in data["files"].items():
        problem = name_problem(name)
        if problem is not None:
            return None, None, f"it lists {name!r}, not a name inside the folder ({problem})"
        entry = _entry(name, value, version)
        if isinstance(entry, str):
            return None, None, entry
        files[name] = entry
    runs = {}
    listed = data.get("runs", {}) if version >= 3 else {}
    if not isinstance(listed, dict):
        return None, None, "its runs are not an object"
    for name, value in listed.items():
        entry = _run_entry(name, value)
        if isinstance(entry, str):
            return None, None, entry
        runs[name] = entry
    return files, runs, None


def manifest_text(files, runs):
    """The manifest listing ``files`` and ``runs``, as :func:`write_manifest` writes it."""
    data = {"format": _FORMAT, "version": _VERSION, "files": dict(sorted(files.items())),
            "runs": dict(sorted(runs.items()))}
    return json.dumps(data, indent=1) + "\n"


def write_manifest(folder, files, runs):
    """Write the manifest of the open ``folder`` (under its lock): its next version, synced, renamed onto it."""
    with folder.create(MANIFEST_NEXT, replace=True) as fh:
        fh.write(manifest_text(files, runs).encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())
    folder.rename(MANIFEST_NEXT, folder, MANIFEST_NAME)
