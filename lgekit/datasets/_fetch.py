"""Finding data set files on disk, and downloading them from their publishers.

Search order for a registered data set (the first folder holding all of its
files wins):

1. ``data_home`` when given (nothing else is searched);
2. ``$LGEKIT_DATA`` when it is set, a local mirror laid out like ``../shared/data``
   (``blogcatalog/edges.csv``, ``ppi/Homo_sapiens.mat``, ...); else,
3. when lgekit runs from a source checkout, the checkout's sibling
   ``../shared/data``.  A folder named by ``$LGEKIT_DATA`` replaces that default rather than coming
   before it: whoever sets the variable says where the data is (a test that points it at an empty
   folder means "no data here"), as the README says;
4. the user cache: ``$LGEKIT_CACHE``, else
   ``platformdirs.user_cache_dir("lgekit")``.

:func:`fetch` downloads into ``data_home`` or the user cache, with the same
layout.  Each download goes to a staging folder next to its destination, is
decompressed or extracted there, every kept file is checked against its
SHA-256, and only then renamed into place, so an interrupted or corrupted
download never leaves a file behind.
"""
import contextlib
import gzip
import hashlib
import logging
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._input_file import DataFormatError, file_sha256  # one checksum for data sets and output manifests
from ._edgelist import read_table
from ._loaders import file_in, read_mat
from ._registry import info

__all__ = ["DownloadError", "ChecksumError", "DatasetNotFoundError", "cache_dir", "find_data_home", "search_path",
           "locate", "fetch", "offline", "content_digest", "file_sha256", "verify", "check_local_copy"]

logger = logging.getLogger(__name__)

_USER_AGENT = "lgekit-datasets (+https://github.com/; research data fetcher)"


class DownloadError(OSError):
    """A data set could not be downloaded; the message says what was tried and how to install it by hand.

    Attributes
    ----------
    dataset : str or None
        The registered name.
    reason : str
        What went wrong, in one line (the first URL's error, or that
        downloads are disabled).
    hint : str
        How to install the files by hand (the end of the message).
    """

    def __init__(self, message, *, dataset=None, reason="", hint=""):
        super().__init__(message)
        self.dataset = dataset
        self.reason = reason
        self.hint = hint


class ChecksumError(DownloadError):
    """A downloaded file does not match its registered SHA-256."""


class DatasetNotFoundError(FileNotFoundError):
    """A registered data set is not on disk and may not be downloaded (``download=False`` or ``LGEKIT_OFFLINE``).

    Attributes
    ----------
    dataset : str
    reason : str
        Where it was looked for and why nothing was downloaded, in one line.
    hint : str
        How to get it (``lgekit datasets fetch``, or by hand when offline).
    """

    def __init__(self, message, *, dataset=None, reason="", hint=""):
        super().__init__(message)
        self.dataset = dataset
        self.reason = reason
        self.hint = hint


def offline():
    """Whether downloads are forbidden: the environment variable ``LGEKIT_OFFLINE`` is set to anything but 0."""
    return os.environ.get("LGEKIT_OFFLINE", "0") not in ("", "0")


# ---------------------------------------------------------------------- where
def cache_dir():
    """The user cache folder for downloads: ``$LGEKIT_CACHE`` or the platform's cache dir for "lgekit"."""
    env = os.environ.get("LGEKIT_CACHE")
    if env:
        return Path(env).expanduser()
    import platformdirs  # only when LGEKIT_CACHE is unset: the command line's start stays light

    return Path(platformdirs.user_cache_dir("lgekit"))


def _checkout_data_dir():
    """``../shared/data`` beside a source checkout of lgekit (None for an installed package)."""
    root = Path(__file__).resolve().parents[2]
    if not ((root / "pyproject.toml").exists() or (root / "setup.py").exists()):
        return None
    candidate = root.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


def search_path(data_home=None):
    """The folders searched for data sets, in order (see the module docstring)."""
    if data_home is not None:
        return [Path(data_home).expanduser()]
    folders = []
    env = os.environ.get("LGEKIT_DATA")
    if env:
        folders.append(Path(env).expanduser())
    else:
        checkout = _checkout_data_dir()
        if checkout is not None:
            folders.append(checkout)
    folders.append(cache_dir())
    return folders


def find_data_home(data_home=None):
    """The folder data sets are looked for in first: ``data_home``, else ``$LGEKIT_DATA``, else a checkout's
    ``../shared/data``, else the user cache (which may not exist yet); :func:`search_path` lists them all
    (``$LGEKIT_DATA`` replaces the checkout's folder).

    Examples
    --------
    >>> find_data_home("/tmp/mirror").as_posix()
    '/tmp/mirror'
    """
    return search_path(data_home)[0]


def locate(name, data_home=None):
    """The folder holding every file of registered data set ``name``, or None if none does.

    A file ``x`` may also be present as ``x.gz``.  Embedded data sets
    (``synthetic-blogcatalog``) have no files and are never located.
    """
    entry = info(name)
    if entry.embedded:
        return None
    for home in search_path(data_home):
        folder = home / entry.folder
        if all(file_in(folder, f.name) for f in entry.files):
            return folder
    return None


def data_files(name, data_home=None):
    """{file name: path} of a located data set, or None."""
    entry = info(name)
    folder = locate(name, data_home)
    if folder is None:
        return None
    return {f.name: file_in(folder, f.name) for f in entry.files}




def content_digest(path, kind):
    """SHA-256 of a file's parsed content, independent of its formatting.

    ``kind`` is ``"table:<k>"`` for a text table of ``k`` integer columns
    (digest of ``b"lgekit-table-v1:<rows>:<k>\\n"`` followed by the values as
    little-endian int64, row by row: separators, line ends and comments do not
    matter) or ``"mat"`` for a DeepWalk ``.mat`` (digest of the shape and the
    canonical CSR arrays, indptr and indices as int64 and data as float64, of
    ``network`` then ``group``).
    """
    digest = hashlib.sha256()
    if kind.startswith("table:"):
        k = int(kind.split(":", 1)[1])
        values = read_table(path, allowed=(k,), int_cols=k, what="checksummed table").values
        digest.update(b"lgekit-table-v1:%d:%d\n" % values.shape)
        digest.update(np.ascontiguousarray(values, dtype="<i8").tobytes())
    elif kind == "mat":
        network, group = read_mat(path)
        for key, mat in (("network", network), ("group", group)):
            mat = sp.csr_matrix((0, 0)) if mat is None else sp.csr_matrix(mat, dtype=np.float64)
            mat.sum_duplicates()
            mat.sort_indices()
            mat.eliminate_zeros()
            digest.update(b"%s:%d:%d\n" % (key.encode(), *mat.shape))
            for arr, dtype in ((mat.indptr, "<i8"), (mat.indices, "<i8"), (mat.data, "<f8")):
                digest.update(np.ascontiguousarray(arr, dtype=dtype).tobytes())
    else:
        raise ValueError(f"kind must be 'table:<columns>' or 'mat', got {kind!r}")
    return digest.hexdigest()


def _check_file(path, spec):
    """None if ``path`` matches ``spec`` (raw or content digest), else a description of the mismatch.

    A ``.gz`` copy is checked by what it unpacks to.  The answer is kept for
    the process, keyed by the file's path, size, modification time and inode
    (an edited file changes one of them), so loading a data set again costs
    one ``stat`` per file.
    """
    path = Path(path)
    try:
        info = path.stat()
    except OSError as exc:
        return f"cannot be read ({exc})"
    memo = (str(path.resolve()), info.st_size, info.st_mtime_ns, info.st_ino, spec.sha256, spec.content_sha256)
    if memo not in _CHECKED:
        _CHECKED[memo] = _compare(path, spec)
    return _CHECKED[memo]


#: (path, size, mtime, inode, digests) -> what _compare said: a file is hashed once per process while unchanged
_CHECKED = {}


def _compare(path, spec):
    try:
        raw = file_sha256(path, gunzip=path.suffix == ".gz")
    except (ValueError, OSError) as exc:
        return f"cannot be read ({exc})"
    if raw == spec.sha256:
        return None
    if spec.content_sha256:
        try:
            content = content_digest(path, spec.kind)
        except (ValueError, OSError) as exc:
            return f"SHA-256 {raw} != expected {spec.sha256}, and its content cannot be parsed ({exc})"
        if content == spec.content_sha256:
            return None
        return (f"SHA-256 {raw} != expected {spec.sha256}, and content SHA-256 {content} != expected "
                f"{spec.content_sha256}")
    return f"SHA-256 {raw} != expected {spec.sha256}"


def verify(name, data_home=None):
    """Check the located files of a registered data set; {file name: None if OK else the mismatch}."""
    entry = info(name)
    files = data_files(name, data_home)
    if files is None:
        raise FileNotFoundError(f"data set {entry.name!r} not found in {', '.join(map(str, search_path(data_home)))}")
    return {spec.name: _check_file(files[spec.name], spec) for spec in entry.files}


def check_local_copy(name, folder):
    """Refuse a local copy of registered data set ``name`` in ``folder`` whose files are not the registry's.

    A registered name stands for the publisher's data: results are stored
    under it (``lgekit reproduce``'s cells) and reported with its counts.  A
    copy whose bytes match neither registered digest of a file (the raw
    SHA-256, or the content digest of a differently formatted copy) is
    refused, not read under that name; read by path, the same files are a
    data set of their own, keyed by their content.

    Raises
    ------
    DataFormatError
        Naming the first file that differs, both digests, and what to do.
    """
    entry = info(name)
    for spec in entry.files:
        path = file_in(folder, spec.name)
        problem = _check_file(path, spec)
        if problem is not None:
            raise DataFormatError(
                f"this copy of the registered data set {entry.name!r} is not the publisher's: {problem}. A "
                f"registered name stands for the publisher's files (results are stored and reported under it), so "
                f"this copy is refused. To use these files as your own data, give their path instead ("
                f"{folder if entry.name == 'blogcatalog' else path}), which keys results by their content; to get "
                f"the publisher's files, `lgekit datasets fetch {entry.name} --force`, or point LGEKIT_DATA "
                "elsewhere", path=path)
    return folder


# ---------------------------------------------------------------------- download
def manual_instructions(entry, folder=None):
    """How to install the files of ``entry`` by hand into ``folder``.

    Default: the first folder searched (:func:`find_data_home`: ``$LGEKIT_DATA`` when it is set, else a
    checkout's ``../shared/data``, else the user cache), so files placed there are the ones found next.
    """
    if folder is None:
        folder = find_data_home() / entry.folder
    return _manual_instructions(entry, folder)


def _manual_instructions(entry, folder):
    steps = []
    for download in entry.downloads:
        kept = ", ".join(local for _, local in download.members)
        steps.append(f"  - download {download.url}, {download.describe_archive()} {kept}")
    files = ", ".join(f.name for f in entry.files)
    return (
        "To install it by hand:\n" + "\n".join(steps) + f"\n  - place {files} in {folder}{os.sep}\n"
        f"  (or set LGEKIT_DATA to a folder holding {entry.folder}{os.sep}{entry.files[0].name} ..., "
        f"or pass data_home=...)."
    )


def _download(url, dest, timeout, progress):
    """Stream ``url`` into the file ``dest``."""
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response, open(dest, "wb") as out:
        total = response.headers.get("Content-Length")
        total = int(total) if total and total.isdigit() else None
        bar = None
        if progress:
            from tqdm.auto import tqdm  # a download's progress bar only; tqdm.auto probes for Jupyter on import

            bar = tqdm(total=total, unit="B", unit_scale=True, desc=Path(url).name, leave=False)
        try:
            for block in iter(lambda: response.read(1 << 16), b""):
                out.write(block)
                if bar is not None:
                    bar.update(len(block))
        finally:
            if bar is not None:
                bar.close()



def _copy_members(members, open_member, download, staging):
    """Copy the archive members ``download.members`` names (by base name, the first of each) into
    ``staging``; ``members`` is ``[(name, member)]``, ``open_member(member)`` a readable file.  Returns
    ``{local name: path}``; a member the archive lacks is a :class:`ChecksumError` listing what it has."""
    by_base = {}
    for name, member in members:
        by_base.setdefault(Path(name).name, member)
    out = {}
    for base, local in download.members:
        if base not in by_base:
            raise ChecksumError(f"the archive has no member named {base!r} (members: {sorted(by_base)[:10]})")
        target = staging / local
        with open_member(by_base[base]) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out[local] = target
    return out

def _unpack(download, archive_path, staging):
    """Decompress/extract ``archive_path`` into ``staging``; returns {local name: path}."""
    out = {}
    if download.archive is None:
        (_, local), = download.members
        target = staging / local
        os.replace(archive_path, target)
        out[local] = target
    elif download.archive == "gz":
        (_, local), = download.members
        target = staging / local
        try:
            with gzip.open(archive_path, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except (OSError, EOFError, zlib.error) as exc:
            raise ChecksumError(f"the download is not a valid gzip file ({exc})") from None
        out[local] = target
    elif download.archive == "zip":
        try:
            with zipfile.ZipFile(archive_path) as archive:
                members = [(m.filename, m) for m in archive.infolist() if not m.is_dir()]
                out.update(_copy_members(members, archive.open, download, staging))
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise ChecksumError(f"the download is not a valid zip archive ({exc})") from None
    elif download.archive == "tgz":
        try:
            with tarfile.open(archive_path, "r:gz") as archive:
                # regular files only: links and devices are never extracted
                members = [(m.name, m) for m in archive.getmembers() if m.isfile()]
                out.update(_copy_members(members, archive.extractfile, download, staging))
        except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise ChecksumError(f"the download is not a valid .tar.gz archive ({exc})") from None
    else:  # pragma: no cover - registry entries are fixed
        raise ValueError(f"unknown archive type {download.archive!r}")
    return out


def fetch(name, *, data_home=None, force=False, timeout=30, verbose=None):
    """Download a registered data set from its publisher (unless it is already there).

    Parameters
    ----------
    name : str
        A registered name (see :func:`lgekit.datasets.registry`).
    data_home : str or pathlib.Path, optional
        Where to put it (``<data_home>/<name>/...``); default the user cache
        (``$LGEKIT_CACHE`` or ``platformdirs.user_cache_dir("lgekit")``).
    force : bool, default False
        Download even when the files are already found.
    timeout : float, default 30
        Seconds to wait for the server (to connect, and for each read).
    verbose : bool, optional
        Show a progress bar (default: when stderr is a terminal).

    Returns
    -------
    pathlib.Path
        The folder holding the data set's files.

    Raises
    ------
    DownloadError
        No URL worked (offline, HTTP error, connection refused), or
        ``LGEKIT_OFFLINE`` is set and the files are not already there (then
        nothing touches the network): the message lists each URL tried with
        its error and how to place the files by hand (also in ``hint``).
    ChecksumError
        Every download that succeeded had the wrong content (no file is kept).
    """
    entry = info(name)
    if entry.embedded:
        raise ValueError(f"data set {entry.name!r} is generated on the fly and has nothing to download; "
                         f"use lgekit.datasets.load({entry.name!r})")
    if not force:
        found = locate(entry.name, data_home)
        if found is not None:
            logger.info("%s: already present in %s", entry.name, found)
            return found
    home = Path(data_home).expanduser() if data_home is not None else cache_dir()
    folder = home / entry.folder
    if offline():
        reason = "downloads are disabled (LGEKIT_OFFLINE is set)"
        # by hand, the files go where they are looked for first ($LGEKIT_DATA when it is set)
        hint = _manual_instructions(entry, find_data_home(data_home) / entry.folder)
        raise DownloadError(f"data set {entry.name!r} is not available locally and {reason}.\n{hint}",
                            dataset=entry.name, reason=reason, hint=hint)
    progress = sys.stderr.isatty() if verbose is None else bool(verbose)
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot create {folder} for data set {entry.name!r}: {exc}") from None
    staging = Path(tempfile.mkdtemp(prefix=f".{entry.folder}.download-", dir=folder))
    installed = False
    try:
        # every download is verified in the staging folder before any file is moved into place
        ready = {}
        for download in entry.downloads:
            ready.update(_fetch_one(entry, download, staging, timeout, progress, folder))
        for local, path in ready.items():
            os.replace(path, folder / local)
            logger.info("%s: installed %s", entry.name, folder / local)
        installed = True
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if created and not installed:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if still empty
    return folder


def _fetch_one(entry, download, staging, timeout, progress, folder):
    """Try each URL of one download; return {local name: verified staged path}."""
    specs = {f.name: f for f in entry.files}
    failures = []
    checksum_only = True
    for url in download.urls:
        archive_path = staging / ("download-" + Path(url).name)
        logger.info("%s: downloading %s", entry.name, url)
        try:
            _download(url, archive_path, timeout, progress)
        except urllib.error.HTTPError as exc:
            failures.append(f"{url}: HTTP {exc.code} {exc.reason}")
            checksum_only = False
            continue
        except urllib.error.URLError as exc:
            failures.append(f"{url}: {exc.reason}")
            checksum_only = False
            continue
        except (OSError, ValueError) as exc:  # timeouts, resets, malformed URLs
            failures.append(f"{url}: {type(exc).__name__}: {exc}")
            checksum_only = False
            continue
        try:
            staged = _unpack(download, archive_path, staging)
            for local, path in staged.items():
                problem = _check_file(path, specs[local])
                if problem:
                    raise ChecksumError(f"{local}: {problem}")
        except ChecksumError as exc:
            failures.append(f"{url}: {exc}")
            for path in staging.iterdir():
                if path.name.startswith("download-") or path.name in dict(download.members).values():
                    with contextlib.suppress(OSError):
                        path.unlink()
            continue
        finally:
            with contextlib.suppress(OSError):
                archive_path.unlink()
        return staged
    kept = ", ".join(local for _, local in download.members)
    cls = ChecksumError if checksum_only and failures else DownloadError
    what = "has the wrong content" if cls is ChecksumError else "could not be downloaded"
    hint = _manual_instructions(entry, folder)
    raise cls(
        f"data set {entry.name!r}: {kept} {what}; tried:\n"
        + "\n".join(f"  - {f}" for f in failures)
        + "\n" + hint,
        dataset=entry.name, reason=f"{kept} {what} ({failures[0] if failures else 'no URL'})", hint=hint,
    )
