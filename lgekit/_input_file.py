"""Every file lgekit reads: a regular file, read with a bound, before any large allocation.

One rule for the edge lists, label files and ``.mat`` files of
:mod:`lgekit.datasets`, the model files of :mod:`lgekit.models`, ``lgekit
evaluate``'s embedding files and the results store's cell records:

* **Regular files only.**  A device (``/dev/zero``, ``/dev/urandom``: read
  until memory runs out), a FIFO (blocks until a writer comes), a socket or a
  folder is refused before it is read -- checked on the path
  (:func:`check_regular_file`) and again on the opened descriptor
  (:func:`open_regular_file`), so that a path swapped in between is caught.
  Symlinks are followed: what counts is the file they lead to.
* **A bound before reading.**  Each reader says how much memory it needs per
  byte of the file (``bytes_per_byte``: parsing a text edge list builds
  several arrays as long as the text) and may add a bound of its own
  (``max_bytes``: a cell record is kilobytes); a file whose size, times that
  factor, exceeds what the machine has left (:func:`lgekit._memory.available_memory`)
  is refused from its size, before a byte is read.
* **Compressed text is bounded as it unpacks.**  A gzip file is decompressed
  in blocks, and refused as soon as it passes the smaller of the gzip cap
  (:func:`gunzip_cap`) and what the memory allows, so that a few kilobytes
  that unpack to gigabytes cost a few blocks, not the gigabytes.
* **Text is text.**  A NUL byte in a text file (a sparse file, a binary file
  given by mistake) is refused at the first block that holds one.
"""
import gzip
import hashlib
import os
import stat
import zlib
from pathlib import Path

from ._memory import MEMORY_ENV, available_memory, format_bytes

__all__ = ["BLOCK_BYTES", "DataFormatError", "MAX_GUNZIPPED_BYTES", "check_regular_file", "file_sha256",
           "gunzip_cap", "memory_bound", "open_regular_file", "read_input_bytes"]

#: bytes read (or unpacked) at a time: the granularity at which a bound or a NUL byte stops a read
BLOCK_BYTES = 1 << 20

#: the most bytes a gzip file may decompress to by default (4 GiB); the environment variable
#: LGEKIT_MAX_GUNZIPPED_BYTES changes it (the memory the machine has left may bound it lower)
MAX_GUNZIPPED_BYTES = 4 * 2**30

_GZIP_MAGIC = b"\x1f\x8b"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class DataFormatError(ValueError):
    """A file lgekit reads is malformed, or is not a file it may read.  The message names the file, the line
    (when known) and what was expected.

    Attributes
    ----------
    path : pathlib.Path or None
    line : int or None
        1-based line number in the (decompressed) file.
    """

    def __init__(self, message, *, path=None, line=None):
        self.path = None if path is None else Path(path)
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}, line {line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


def _refuse_mode(path, mode):
    """The error for a path whose mode is not a regular file's (None when it is one)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return DataFormatError("is a folder, expected a file", path=path)
    kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")
    return DataFormatError(f"is {kind}, not a regular file; lgekit reads regular files and folders only (copy "
                           "the data into a file first)", path=path)


def check_regular_file(path):
    """``path`` as a Path, if it names a regular file (symlinks followed); otherwise an error at once.

    A device (``/dev/zero``, read until memory runs out), a FIFO (blocks
    until a writer comes) or a socket is never opened.

    Raises
    ------
    FileNotFoundError
        Nothing is there (or a symlink that leads nowhere).
    DataFormatError
        A folder, or a file that is not a regular one.
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    problem = _refuse_mode(path, mode)
    if problem is not None:
        raise problem
    return path


def open_regular_file(path, *, bytes_per_byte=None, max_bytes=None, what="the file"):
    """``path`` opened for reading in binary, if it is a regular file within the bound; refused otherwise, at once.

    The path is checked (:func:`check_regular_file`), then opened without
    blocking and checked again on the descriptor: a FIFO put in its place in
    between is refused, not waited on.  With ``bytes_per_byte`` or
    ``max_bytes`` (see :func:`read_input_bytes`) the file's size is checked
    against the bound before anything is read.

    Returns
    -------
    file object (binary, seekable)

    Raises
    ------
    FileNotFoundError, DataFormatError
    """
    path = check_regular_file(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    try:
        info = os.fstat(fd)
        problem = _refuse_mode(path, info.st_mode)
        if problem is not None:
            raise problem
        if bytes_per_byte is not None or max_bytes is not None:
            limit, why = _bound(max_bytes, bytes_per_byte or 1, what)
            _check_size(path, info.st_size, limit, why)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_size(path, size, limit, why):
    if limit is not None and size > limit:
        raise DataFormatError(f"the file holds {format_bytes(size)} ({size:,} bytes), more than "
                              f"{format_bytes(limit)} ({limit:,} bytes): {why}", path=path)


def memory_bound(bytes_per_byte=1):
    """``(bytes, why)``: the most bytes of a file that may be read when reading it needs ``bytes_per_byte``
    of memory for each byte; ``(None, None)`` when the platform does not say how much memory is left."""
    available, source = available_memory()
    if available is None:
        return None, None
    override = "" if source.startswith(f"${MEMORY_ENV}") else f"; ${MEMORY_ENV} overrides it"
    why = (f"reading it needs about {bytes_per_byte:g} bytes of memory per byte of the file, and "
           f"{format_bytes(available)} is available ({source}{override})")
    return available // max(bytes_per_byte, 1), why


def gunzip_cap():
    """The most bytes a gzip file may decompress to: ``$LGEKIT_MAX_GUNZIPPED_BYTES``, else :data:`MAX_GUNZIPPED_BYTES`."""
    value = os.environ.get("LGEKIT_MAX_GUNZIPPED_BYTES", "").strip()
    if not value:
        return MAX_GUNZIPPED_BYTES
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"LGEKIT_MAX_GUNZIPPED_BYTES must be a positive whole number of bytes, got {value!r}")
    return int(value)


def _bound(max_bytes, bytes_per_byte, what):
    """``(limit, why)``: the smaller of the caller's bound and the memory's (None: no bound known)."""
    limit, why = memory_bound(bytes_per_byte)
    if max_bytes is not None and (limit is None or max_bytes <= limit):
        return max_bytes, f"{max_bytes:,} bytes is the most {what} may hold"
    return limit, why


def _check_text(block, path, before):
    """Refuse a NUL byte in ``block`` of a text file (``before``: the blocks read ahead of it)."""
    at = block.find(b"\0")
    if at < 0:
        return
    text = b"".join(before) + block[:at]  # only on the way to an error
    line = text.count(b"\n") + 1
    column = len(text) - (text.rfind(b"\n") + 1) + 1
    raise DataFormatError(f"control character U+0000 at column {column}: is this a text file? (a NUL byte, "
                          f"byte {len(text) + 1:,} of the text: a binary file, or a sparse file of zeros?)",
                          path=path, line=line)


def read_input_bytes(path, *, bytes_per_byte=1, max_bytes=None, what="the file", text=False, gunzip=False):
    """The bytes of the regular file ``path``, refused from its size when reading it would not fit.

    Parameters
    ----------
    path : str or pathlib.Path
    bytes_per_byte : float, default 1
        The memory the caller needs per byte it is given (the file's bytes,
        or the unpacked bytes of a gzip file): the size is bounded by the
        memory left (:func:`memory_bound`).
    max_bytes : int, optional
        The caller's own bound (what a file of its kind may hold).
    what : str
        The kind of file, for messages (``"a cell record"``).
    text : bool, default False
        Refuse a NUL byte (in the first block that holds one), unless the
        text starts with a UTF-16 byte-order mark (UTF-16 holds NUL bytes;
        the caller refuses it with its own advice).
    gunzip : bool or None, default False
        True: decompress (gzip); None: decompress when the file starts with
        the gzip magic number or its name ends in ``.gz``.  The unpacked size
        is bounded by :func:`gunzip_cap` and by the memory, block by block.

    Raises
    ------
    FileNotFoundError
        Nothing is there.
    DataFormatError
        Not a regular file; larger than the bound (the message says which
        bound and why); a NUL byte in text; a corrupt gzip file.
    """
    path = Path(path)
    limit, why = _bound(max_bytes, bytes_per_byte, what)
    with open_regular_file(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(2)
        if gunzip is None:
            gunzip = head == _GZIP_MAGIC or path.suffix == ".gz"
        # UTF-16 holds NUL bytes: its byte-order mark is left to the caller, which refuses it with advice
        text = text and head not in _UTF16_BOMS
        if not gunzip:
            _check_size(path, size, limit, why)
            blocks, total = [head], len(head)
            if text:
                _check_text(head, path, ())
            while True:
                # never more than the size said (plus one block: a file still growing is read to the bound)
                block = fh.read(BLOCK_BYTES)
                if not block:
                    break
                if text:
                    _check_text(block, path, blocks)
                total += len(block)
                if limit is not None and total > limit:
                    raise DataFormatError(f"the file grew past {format_bytes(limit)} while being read: {why}",
                                          path=path)
                blocks.append(block)
            return b"".join(blocks)
        fh.seek(0)
        return _gunzip(fh, path, limit, why, text)


def _gunzip(fh, path, limit, why, text):
    """The unpacked bytes of a gzip stream, block by block, refused as soon as they pass the bound."""
    cap = gunzip_cap()
    if limit is None or cap <= limit:
        limit, why = cap, None
    blocks, total = [], 0
    try:
        with gzip.GzipFile(fileobj=fh) as stream:  # every member of a multi-member file, as gzip.decompress reads
            while True:
                block = stream.read(min(BLOCK_BYTES, limit + 1 - total))
                if not block:
                    break
                if text and not blocks and block[:2] in _UTF16_BOMS:
                    text = False  # as above
                if text:
                    _check_text(block, path, blocks)
                total += len(block)
                blocks.append(block)
                if total > limit:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise DataFormatError(
            f"corrupt or truncated gzip file ({exc}); download it again, or decompress it by hand to see what is wrong",
            path=path,
        ) from None
    if total > limit:
        if why is None:
            raise DataFormatError(f"the gzip file decompresses to more than {limit:,} bytes, the cap on what lgekit "
                                  "decompresses; decompress it by hand, or raise the cap with the environment "
                                  "variable LGEKIT_MAX_GUNZIPPED_BYTES", path=path)
        raise DataFormatError(f"the gzip file decompresses to more than {format_bytes(limit)} ({limit:,} bytes), "
                              f"refused after that much: {why}", path=path)
    return b"".join(blocks)


def file_sha256(path, *, gunzip=False):
    """The SHA-256 (hex) of a regular file's content, read in blocks (constant memory).

    With ``gunzip=True``, of the bytes a gzip file unpacks to (at most
    :func:`gunzip_cap` of them): a data set's file may be kept gzipped.

    Raises
    ------
    FileNotFoundError, DataFormatError
        Not a regular file (a FIFO is never waited on); a corrupt or
        oversized gzip file.
    """
    digest = hashlib.sha256()
    with open_regular_file(path) as fh:
        if not gunzip:
            for block in iter(lambda: fh.read(BLOCK_BYTES), b""):
                digest.update(block)
            return digest.hexdigest()
        cap, total = gunzip_cap(), 0
        try:
            with gzip.GzipFile(fileobj=fh) as stream:
                for block in iter(lambda: stream.read(BLOCK_BYTES), b""):
                    total += len(block)
                    if total > cap:
                        raise DataFormatError(f"the gzip file decompresses to more than {cap:,} bytes, the cap on "
                                              "what lgekit decompresses (LGEKIT_MAX_GUNZIPPED_BYTES)", path=path)
                    digest.update(block)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataFormatError(f"corrupt or truncated gzip file ({exc})", path=path) from None
    return digest.hexdigest()
