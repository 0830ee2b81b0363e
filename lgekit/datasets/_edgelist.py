"""The readers of lgekit's text data files: edge lists, label files, id lists, tables of numbers.

One grammar serves every text file lgekit reads (SNAP edge lists, the ASU
CSV files, ``.edgelist`` files, spreadsheet and pandas exports, DeepWalk's
``node label`` files); it is written out in full in :func:`read_edge_list`,
and its tokens (comments, integers, numbers, delimiters, header names) are
:mod:`._grammar`'s.

Every text file may be gzipped (``.gz`` suffix or gzip magic bytes), starts
with an optional UTF-8 byte-order mark, and has ``\n``, ``\r\n`` or ``\r``
line ends.

Speed: the vectorised readers of :mod:`._fast_reader` read a table of
numbers (or an edge list of names) first; they are an optimisation only.
Whenever they balk, the careful line-by-line reader here reads the file again
and either returns the same arrays or raises a :class:`DataFormatError`
naming the file, the line and what was expected.
"""
import logging
import re
from pathlib import Path

import numpy as np

from .._input_file import (MAX_GUNZIPPED_BYTES, DataFormatError, check_regular_file, gunzip_cap,
                           memory_bound, open_regular_file, read_input_bytes)
from ..graph import GraphWarning, warn_outside_lgekit
from ..ids import text_array
from ._fast_reader import fast_names, fast_table, tabs_on_every_line
from ._grammar import (HEADER_NAMES, INT64_MAX, INT64_MIN, INT_RE, MAX_ID_DIGITS, NUMBER_RE, check_delimiter,
                       strip_comment_bytes)

__all__ = [
    "CAREFUL_BYTES_PER_BYTE", "DataFormatError", "HEADER_NAMES", "MAX_GUNZIPPED_BYTES", "MAX_ID_DIGITS",
    "PARSE_BYTES_PER_BYTE", "Table", "check_delimiter", "check_regular_file", "gunzip_cap", "data_line_numbers",
    "read_bytes", "read_edge_list", "read_edge_table", "read_id_list", "read_label_file", "read_table",
    "read_text_bytes", "sniff_delimiter",
]

logger = logging.getLogger(__name__)

_NON_FINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_WHITESPACE = " \t\r\f\v"
_WHITESPACE_RE = re.compile(r"[ \t\r\f\v]+")
_BAD_CHAR_RE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ufeff\u2028\u2029]")
_UTF8_BOM = b"\xef\xbb\xbf"
_ID_TYPES = (None, "int", "str")


# ---------------------------------------------------------------------- raw bytes
#: the memory a text file costs per byte while it is parsed, at most: the fast readers build several arrays as
#: long as the text (bytes, masks, token offsets); measured peaks are 16x (random ids) to 25x ("1 2" lines),
#: see benchmarks/README.md ("Memory of reading an edge list")
PARSE_BYTES_PER_BYTE = 32

#: the memory the careful line-by-line reader costs per byte of text, at most: Python strings and lists per
#: field (measured up to 46x on 'id name' lines of 4 bytes, see benchmarks/README.md)
CAREFUL_BYTES_PER_BYTE = 64


def _check_careful_memory(path, raw):
    """Refuse, before it starts, a careful (line-by-line) read that would not fit the memory left."""
    limit, why = memory_bound(CAREFUL_BYTES_PER_BYTE)
    if limit is not None and len(raw) > limit:
        raise DataFormatError(f"the text ({len(raw):,} bytes) needs the careful line-by-line reader (quotes, mixed "
                              f"or unusual ids), which would not fit: {why.replace('of the file', 'of text')}; "
                              "simplify the file (no quotes, integer ids) for the fast reader", path=path)


# what the first bytes of a compressed file say it is, and how to unpack it by hand (only gzip is read)
_COMPRESSED = ((b"BZh", "bzip2", "bunzip2 -k FILE"), (b"\xfd7zXZ\x00", "xz", "unxz -k FILE"),
               (b"PK\x03\x04", "zip", "unzip FILE"), (b"\x28\xb5\x2f\xfd", "zstd", "unzstd FILE"),
               (b"7z\xbc\xaf\x27\x1c", "7-Zip", "7z x FILE"), (b"\x04\x22\x4d\x18", "lz4", "unlz4 FILE"))


def read_bytes(path):
    """The bytes of ``path``, gunzipped when it is a gzip file (by suffix or magic number).

    The file is read by :func:`lgekit._input_file.read_input_bytes`: regular
    files only; refused from its size when parsing it would need more memory
    than the machine has left (:data:`PARSE_BYTES_PER_BYTE` per byte); a
    gzip file unpacked block by block up to :func:`gunzip_cap` (4 GiB unless
    ``LGEKIT_MAX_GUNZIPPED_BYTES`` says otherwise) or what the memory allows;
    a NUL byte refused at the first block holding one.  Gzip is the only
    compression read: a bzip2, xz, zip, zstd, 7-Zip or lz4 file is refused,
    saying how to unpack it.

    Raises
    ------
    FileNotFoundError, DataFormatError
    """
    path = Path(path)
    with open_regular_file(path) as fh:
        head = fh.read(8)
    for magic, name, how in _COMPRESSED:
        if head.startswith(magic):
            raise DataFormatError(f"a {name}-compressed file (by its first bytes); lgekit reads plain text and gzip "
                                  f"(.gz) only: unpack it first ({how})", path=path)
    return read_input_bytes(path, bytes_per_byte=PARSE_BYTES_PER_BYTE, what="a text file", text=True, gunzip=None)


def read_text_bytes(path, raw=None):
    """The bytes of a text file, normalised: UTF-8 byte-order mark removed, ``\\r`` line ends made ``\\n``.

    A BOM is what Windows tools write at the start of a UTF-8 file; it is not
    part of the first id.  A UTF-16 file (its BOM) is refused with advice.
    """
    path = Path(path)
    if raw is None:
        raw = read_bytes(path)
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM):]
    elif raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise DataFormatError("the file is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8",
                              path=path, line=1)
    if b"\r" in raw and b"\n" not in raw:
        raw = raw.replace(b"\r", b"\n")  # classic Mac OS line ends
    return raw


def sniff_delimiter(raw):
    """The field separator of a text table (see :func:`read_edge_list`): None means runs of whitespace.

    The first of ``,`` ``;`` ``|`` in the first data line; else a tab when
    every data line holds as many tabs as the first (a TSV file, whose fields
    may contain spaces); else None.
    """
    start = 0
    first = None
    while start < len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        body = strip_comment_bytes(raw[start:end]).strip(b" \t\r\f\v")
        if body:
            first = body
            break
        start = end + 1
    if first is None:
        return None
    for d in (b",", b";", b"|"):
        if d in first:
            return d.decode()
    if b"\t" not in first:
        return None
    return "\t" if tabs_on_every_line(raw, first.count(b"\t")) else None


# ---------------------------------------------------------------------- lines and fields
def _decode(body, path, lineno):
    """One data line as text: strict UTF-8 (replacement characters would merge distinct ids)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(
            f"not UTF-8 text: byte 0x{body[exc.start]:02x} at column {exc.start + 1}; save the file as UTF-8",
            path=path, line=lineno) from None
    bad = _BAD_CHAR_RE.search(text)
    if bad is not None:
        char = bad.group()
        what = ("a byte-order mark (U+FEFF) inside the file (files joined with their BOMs?); remove it"
                if char == "\ufeff" else f"control character U+{ord(char):04X} at column {bad.start() + 1}: "
                "is this a text file?")
        raise DataFormatError(what, path=path, line=lineno)
    return text


def _split_quoted(body, delimiter, path, lineno):
    """Fields of a line holding a double quote: CSV quoting (``"a, b"``, ``""`` for a quote)."""
    fields = []
    i, n = 0, len(body)
    # whitespace around a field is dropped, but a tab that separates fields is no whitespace
    # ('"alice"\t"bob"', R's write.table(sep="\t"))
    space = _WHITESPACE if delimiter is None else _WHITESPACE.replace(delimiter, "")
    while True:
        while i < n and body[i] in space:
            i += 1
        if delimiter is None and i >= n:
            break
        if i < n and body[i] == '"':
            parts = []
            i += 1
            while True:
                j = body.find('"', i)
                if j < 0:
                    raise DataFormatError(f"field {len(fields) + 1}: a quoted field is not closed (a '#' or '%' "
                                          "inside quotes still starts a comment)", path=path, line=lineno)
                parts.append(body[i:j])
                if body.startswith('"', j + 1):
                    parts.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
            field = "".join(parts)
            while i < n and body[i] in space:
                i += 1
            if i < n and delimiter is not None and body[i] != delimiter or (
                    delimiter is None and i < n and body[i - 1] not in _WHITESPACE):
                raise DataFormatError(f"field {len(fields) + 1}: text after the closing quote", path=path, line=lineno)
        else:
            if delimiter is None:
                m = _WHITESPACE_RE.search(body, i)
                j = n if m is None else m.start()
                field = body[i:j]
            else:
                j = body.find(delimiter, i)
                j = n if j < 0 else j
                field = body[i:j].strip(space)
            if '"' in field:
                raise DataFormatError(f"field {len(fields) + 1} ({field!r}): a quote inside an unquoted field; "
                                      "quote the whole field and double the inner quote (\"a \"\"b\"\"\")",
                                      path=path, line=lineno)
            i = j
        fields.append(field)
        if i >= n:
            break
        if delimiter is not None:
            i += 1  # past the delimiter
            if i >= n:
                fields.append("")
                break
    return fields


def _split_fields(body, delimiter, path, lineno):
    if '"' in body:
        return _split_quoted(body, delimiter, path, lineno)
    if delimiter is None:
        return _WHITESPACE_RE.split(body.strip(_WHITESPACE))
    return [f.strip(_WHITESPACE) for f in body.split(delimiter)]


def _data_lines(path, raw, delimiter):
    """(line number, fields, line text) of every data line: comments cut, blank lines skipped, UTF-8 checked."""
    start, lineno = 0, 0
    while start <= len(raw):  # lazily: the header sniffer reads two lines of files of millions
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        line, start, lineno = raw[start:end], end + 1, lineno + 1
        body = strip_comment_bytes(line).strip(b" \t\r\f\v")
        if not body:
            continue
        text = _decode(body, path, lineno)
        yield lineno, _split_fields(text, delimiter, path, lineno), text


def _digits(field):
    return len(field) - (field[:1] in "+-")


def _parse_int(field, j, path, lineno, describe):
    """An integer field of an integer-only table (ASU files, checksummed tables)."""
    if not INT_RE.fullmatch(field):
        kind = "is empty" if field == "" else f"{field!r}, is not an integer"
        raise DataFormatError(f"field {j + 1}{'' if field == '' else ','} {kind}; expected {describe}",
                              path=path, line=lineno)
    if _digits(field) > MAX_ID_DIGITS:
        raise DataFormatError(f"field {j + 1} is an integer of {_digits(field):,} digits; at most {MAX_ID_DIGITS:,} "
                              "are accepted", path=path, line=lineno)
    return int(field)


def _parse_weight(field, j, path, lineno, describe):
    if not (NUMBER_RE.fullmatch(field) or _NON_FINITE_RE.fullmatch(field)):
        raise DataFormatError(f"field {j + 1} is {field!r}, expected a number (edge weight); {describe}",
                              path=path, line=lineno)
    return float(field)


# ---------------------------------------------------------------------- numeric tables
def _describe_fields(allowed, int_cols, delimiter, what):
    sep = "whitespace" if delimiter is None else repr(delimiter)
    counts = " or ".join(str(k) for k in allowed)
    return f"{counts} {sep}-separated field(s) per line ({what}); the first {int_cols} must be integers"


def _slow_table(path, raw, allowed, int_cols, delimiter, what):
    """Line-by-line parse with precise errors; returns (values (r, k), k, line_numbers)."""
    describe = _describe_fields(allowed, int_cols, delimiter, what)
    rows = []
    lines_of_rows = []
    k = None
    first_line = None
    for lineno, fields, line in _data_lines(path, raw, delimiter):
        shown = line.strip()[:80]
        if k is None:
            if len(fields) not in allowed:
                raise DataFormatError(f"expected {describe}; found {len(fields)}: {shown!r}", path=path, line=lineno)
            k, first_line = len(fields), lineno
        elif len(fields) != k:
            raise DataFormatError(
                f"ragged rows: expected {k} field(s) like the first data line (line {first_line}), "
                f"found {len(fields)}: {shown!r}",
                path=path, line=lineno,
            )
        row = []
        for j, field in enumerate(fields):
            if j < int_cols:
                value = _parse_int(field, j, path, lineno, describe)
                if not INT64_MIN <= value <= INT64_MAX:
                    raise DataFormatError(f"field {j + 1} ({field}) does not fit a 64-bit integer", path=path, line=lineno)
            else:
                value = _parse_weight(field, j, path, lineno, describe)
            row.append(value)
        rows.append(row)
        lines_of_rows.append(lineno)
    if k is None:
        raise DataFormatError(f"no data: the file is empty or holds only comments; expected {describe}", path=path)
    dtype = np.int64 if k == int_cols else np.float64
    return np.array(rows, dtype=dtype).reshape(-1, k), k, np.asarray(lines_of_rows, dtype=np.int64)


def data_line_numbers(raw):
    """1-based line number of every data (non-blank, non-comment) line."""
    out = []
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if strip_comment_bytes(line).strip(b" \t\r\f\v"):
            out.append(lineno)
    return np.asarray(out, dtype=np.int64)


class Table:
    """A parsed numeric table and how to find the line of a row again."""

    __slots__ = ("path", "raw", "values", "k", "_lines")

    def __init__(self, path, raw, values, k, lines=None):
        self.path, self.raw, self.values, self.k, self._lines = path, raw, values, k, lines

    def line_of(self, row):
        if self._lines is None:
            self._lines = data_line_numbers(self.raw)
        return int(self._lines[row])

    def fail(self, row, message):
        raise DataFormatError(message, path=self.path, line=self.line_of(row))


def read_table(path, *, allowed=(2,), int_cols=2, delimiter=None, what="values", raw=None):
    """Parse a numeric text table; see the module docstring for the accepted syntax."""
    path = Path(path)
    raw = read_text_bytes(path, raw)
    delimiter = sniff_delimiter(raw) if delimiter is None else check_delimiter(delimiter)
    fast = fast_table(raw, allowed, int_cols, delimiter)
    if fast is not None:
        return Table(path, raw, fast[0], fast[1])
    _check_careful_memory(path, raw)
    values, k, lines = _slow_table(path, raw, allowed, int_cols, delimiter, what)
    return Table(path, raw, values, k, lines)


def read_edge_list(path, *, delimiter=None, header=None, id_type=None):
    """Read an edge list file.

    Parameters
    ----------
    path : str or pathlib.Path
        Text file (``.gz`` allowed), one ``u v [weight]`` a line.
    delimiter : str, optional
        Field separator: ``"whitespace"`` (runs of spaces/tabs), ``"\\t"``
        (tabs only), or one punctuation character (``","``, ``";"``, ...).
        Sniffed by default, see the grammar below.
    header : bool, optional
        Whether the first data line names the columns.  Sniffed by default.
    id_type : {None, "int", "str"}, optional
        ``"int"``: every id must be an integer; ``"str"``: every id is read as
        text, as written; default: integers when every id is one, else text.

    Returns
    -------
    edges : ndarray of shape (m, 2)
        Node ids as written: int64 when every id is an integer that fits;
        object (Python ints) when some integer does not; for text ids a
        string (``<U``) array, or object (str) when an id is longer than 64
        characters (:func:`lgekit.ids.text_array`).
    weights : ndarray of shape (m,), float64, or None
        The third column when present; finite and positive.

    Raises
    ------
    DataFormatError
        With the file and the line: empty file, ragged rows, a malformed id
        or weight (see the grammar), text that is not UTF-8.

    Warns
    -----
    GraphWarning
        Ids are read as text although some are integers (``1 2`` and
        ``alice bob`` in one file): ``"1"`` is then a name, not the number 1.

    Notes
    -----
    The grammar, line by line (a *data line* is a line that is not blank once
    its comment is removed):

    * **Encoding.**  UTF-8; a leading byte-order mark is ignored.  Line ends
      ``\\n``, ``\\r\\n`` or ``\\r``.  Control characters and a BOM inside
      the file are errors.  A ``.gz`` file is decompressed first.
    * **Comments.**  ``#`` or ``%`` starts a comment that runs to the end of
      the line, wherever it stands (ids cannot contain them).
    * **Fields.**  Two or three a line, the same number on every data line:
      ``u v`` or ``u v weight``.  The separator is ``delimiter``, else
      sniffed: the first of ``,`` ``;`` ``|`` in the first data line; else a
      tab when every data line holds as many tabs as the first (TSV: fields
      may contain spaces); else runs of whitespace (space, tab, ``\\f``,
      ``\\v``).  Whitespace around a field is dropped.  A field may be
      enclosed in double quotes (CSV style: ``"Valjean, Jean"``, ``""`` for
      a quote inside), which lets it contain the separator.
    * **Ids.**  An *integer* is ``[+-]?[0-9]+`` (at most 4,300 digits, no
      size limit otherwise: ``2**63 - 1`` and beyond are kept exact;
      ``007`` is 7).  Any other text that is not a decimal number is a
      *name*.  A decimal number that is not an integer (``1.0``, ``3.5``,
      ``1e3``) is refused as an id, with or without a weight column, since
      reading it as the integer or as the name would both be guesses.  When
      every id of the file is an integer the ids are integers; otherwise
      every id is its text (and a :class:`~lgekit.GraphWarning` says so if
      some were integers).  ``id_type`` fixes the choice.
    * **Weight.**  A decimal number ``[+-]?(digits[.digits]|.digits)[e[+-]digits]``
      (``nan``/``inf`` are recognised and refused): finite and positive.
    * **Header.**  The first data line is a header, and skipped, when none
      of its fields is a decimal number, it has as many fields as the second
      data line, and either every field is a usual column name
      (``HEADER_NAMES`` of ``lgekit/datasets/_grammar.py``: ``source``, ``target``,
      ``weight``, ``from``, ``to``, ``u``, ``v``, ...; any case), or the
      second data line's ids
      are integers, or (three columns) the second line's weight is a number.
      ``header`` fixes the choice.

    Node ids map to graph nodes as :meth:`lgekit.Graph.from_edges` maps
    them: sorted distinct ids (numbers by value, names by code point).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "lesmis.tsv"
    >>> _ = path.write_text("source\\ttarget\\tweight\\nNapoleon\\tMyriel\\t1\\nJean Valjean\\tMyriel\\t5\\n")
    >>> edges, weights = read_edge_list(path)
    >>> edges.tolist(), weights.tolist()
    ([['Napoleon', 'Myriel'], ['Jean Valjean', 'Myriel']], [1.0, 5.0])
    """
    edges, weights, _ = read_edge_table(path, delimiter=delimiter, header=header, id_type=id_type)
    return edges, weights


_EDGE_FIELDS = "node ids u v and an optional weight"


def _describe_edges(delimiter):
    sep = "whitespace" if delimiter is None else repr(delimiter)
    return f"2 or 3 {sep}-separated field(s) per line ({_EDGE_FIELDS})"


def _is_header(first, second):
    """The header rule of :func:`read_edge_list` on the fields of the first two data lines."""
    if any(NUMBER_RE.fullmatch(f) for f in first):
        return False
    if second is None:
        return all(f.lower() in HEADER_NAMES for f in first)
    if len(second) != len(first) or len(first) not in (2, 3):
        return False
    return (all(f.lower() in HEADER_NAMES for f in first)
            or all(INT_RE.fullmatch(f) for f in second[:2])
            or (len(second) == 3 and bool(NUMBER_RE.fullmatch(second[2]))))


# header names that say which end of an edge a column holds (HEADER_NAMES has them all)
_TARGET_NAMES = frozenset({"to", "target", "dst", "destination", "to_id", "target_id", "head"})
_SOURCE_NAMES = frozenset({"from", "source", "src", "from_id", "source_id", "tail"})


def _header_doubt(fields, header):
    """Why a first line taken as a header deserves a warning (None when it is a plain ``source target``).

    Two cases a user must see: the names put the target first (``to from``:
    lgekit reads the first column as the source whatever the header says,
    which reverses every arc of a directed graph), and a header guessed only
    from its neighbour (its fields are not column names, so it may be an
    edge between nodes so named).
    """
    names = [f.lower() for f in fields]
    if names[0] in _TARGET_NAMES or names[1] in _SOURCE_NAMES:
        return ("was taken as a header that names the first column as the edges' target: lgekit reads the first "
                "column as the source of each edge and the second as its target, whatever the header says (arcs "
                "u -> v with directed=True); swap the columns if the file lists target, source")
    if header is None and not all(name in HEADER_NAMES for name in names):
        return ("was taken as a header and skipped (its fields are not numbers, the next line's are); pass "
                "header=False to read it as an edge between nodes of those names, or header=True to say it is "
                "a header")
    return None


def _check_one_reading(path, raw, delimiter):
    """Refuse a first data line that a sniffed ``,`` ``;`` ``|`` and whitespace would split in two different ways.

    ``n;1 n;2`` is the ``;``-separated fields ``n``, ``1 n``, ``2`` (an id
    and a weight) or the whitespace-separated ids ``n;1`` and ``n;2``: when
    every whitespace-separated token holds the delimiter between two other
    characters, no guess is safe.  (``1, 2`` and ``Jean Valjean,Myriel``
    read one way only: a delimiter at a token's end, a token without it.)
    """
    first = next(_data_lines(path, raw, None), None) if b'"' not in raw[:4096] else None
    if first is None:
        return
    lineno, tokens, text = first
    if len(tokens) >= 2 and all(delimiter in t.strip(delimiter) for t in tokens):
        fields = _split_fields(text, delimiter, path, lineno)
        raise DataFormatError(f"{text[:80]!r} reads two ways: {delimiter!r}-separated, the fields {fields[:4]}, or "
                              f"whitespace-separated, the fields {tokens[:4]}; say which: lgekit.datasets.load(path, "
                              f"delimiter={delimiter!r}) or delimiter='whitespace'",
                              path=path, line=lineno)


def _blank_line(raw, lineno):
    """``raw`` with line ``lineno`` (1-based) emptied, every other line where it was."""
    start = 0
    for _ in range(lineno - 1):
        start = raw.index(b"\n", start) + 1
    end = raw.find(b"\n", start)
    end = len(raw) if end < 0 else end
    return raw[:start] + raw[end:]


def _int_array(tokens):
    """Integer tokens as int64 when all fit, else as exact Python ints (an object array)."""
    values = [int(t) for t in tokens]
    if all(INT64_MIN <= v <= INT64_MAX for v in values):
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _str_array(tokens):
    out = np.empty(len(tokens), dtype=object)
    out[:] = tokens
    return out


def read_edge_table(path, *, delimiter=None, header=None, id_type=None):
    """``(edges, weights, table)``: :func:`read_edge_list`, plus a :class:`Table` that finds the line of a row."""
    path = Path(path)
    if id_type not in _ID_TYPES:
        raise ValueError(f"id_type must be None (integers if every id is one, else text), 'int' or 'str', "
                         f"got {id_type!r}")
    if header not in (None, True, False):
        raise ValueError(f"header must be None (sniff), True or False, got {header!r}")
    raw = read_text_bytes(path)
    sniffed = delimiter is None
    delimiter = sniff_delimiter(raw) if sniffed else check_delimiter(delimiter)
    if sniffed and delimiter in (",", ";", "|"):
        _check_one_reading(path, raw, delimiter)
    if header is not False:
        lines = _data_lines(path, raw, delimiter)
        first, second = next(lines, None), next(lines, None)
        if first is not None and (header or _is_header(first[1], None if second is None else second[1])):
            logger.info("%s: line %d taken as a header: %s", path, first[0], first[2][:80])
            doubt = _header_doubt(first[1], header)
            if doubt:
                warn_outside_lgekit(f"{path}, line {first[0]}: {first[2][:80]!r} {doubt}", GraphWarning)
            raw = _blank_line(raw, first[0])
    if id_type != "str":
        fast = fast_table(raw, (2, 3), 2, delimiter)
        if fast is not None:
            values, k = fast
            edges = values[:, :2].astype(np.int64)
            weights = np.ascontiguousarray(values[:, 2]) if k == 3 else None
            return _check_weights(edges, weights, Table(path, raw, None, k))
    if id_type != "int":
        named = fast_names(raw, delimiter, any_text=id_type == "str")
        if named is not None:
            edges, weights, k = named
            return _check_weights(edges, weights, Table(path, raw, None, k))
    _check_careful_memory(path, raw)
    return _slow_edges(path, raw, delimiter, id_type, tab_sniffed=sniffed and delimiter == "\t")


def _slow_edges(path, raw, delimiter, id_type, tab_sniffed=False):
    describe = _describe_edges(delimiter)

    def tab_note(fields):
        if tab_sniffed and any(" " in f for f in fields):
            return (" (the file was read as tab-separated since every line holds as many tabs; pass "
                    "delimiter='whitespace' if spaces separate fields too)")
        return ""

    rows, lines = [], []
    k = first_line = None
    for lineno, fields, line in _data_lines(path, raw, delimiter):
        if k is None:
            if len(fields) not in (2, 3):
                raise DataFormatError(f"expected {describe}; found {len(fields)}: {line[:80]!r}",
                                      path=path, line=lineno)
            k, first_line = len(fields), lineno
        elif len(fields) != k:
            raise DataFormatError(
                f"ragged rows: expected {k} field(s) like the first data line (line {first_line}), "
                f"found {len(fields)}: {line[:80]!r}", path=path, line=lineno)
        rows.append(fields)
        lines.append(lineno)
    if k is None:
        raise DataFormatError(f"no data: the file is empty or holds only comments; expected {describe}", path=path)
    first_name = first_int = None
    for r, fields in enumerate(rows):
        for j in (0, 1):
            token = fields[j]
            if token == "":
                raise DataFormatError(f"field {j + 1} is empty; expected {describe}", path=path, line=lines[r])
            if id_type == "str":
                continue
            if INT_RE.fullmatch(token):
                if _digits(token) > MAX_ID_DIGITS:
                    raise DataFormatError(
                        f"field {j + 1} is an integer of {_digits(token):,} digits; node ids may have at most "
                        f"{MAX_ID_DIGITS:,} digits (pass id_type='str' to keep such ids as text)",
                        path=path, line=lines[r])
                if first_int is None:
                    first_int = (token, lines[r])
            elif id_type == "int":
                raise DataFormatError(f"field {j + 1}, {token[:80]!r}, is not an integer; expected {describe}, "
                                      "integer ids (id_type='int')", path=path, line=lines[r])
            elif NUMBER_RE.fullmatch(token):
                raise DataFormatError(
                    f"field {j + 1} is {token!r}, a number that is not an integer; node ids are integers or names "
                    "(text that is not a number): write it as an integer, or pass id_type='str' to read every id "
                    f"as text{tab_note(fields)}", path=path, line=lines[r])
            elif first_name is None:
                first_name = (token, lines[r], tab_note(fields))
    tokens = [f for fields in rows for f in fields[:2]]
    if id_type == "str" or first_name is not None:
        if first_name is not None and first_int is not None:
            warn_outside_lgekit(
                f"{path}: node ids read as text: line {first_name[1]} has the id {first_name[0][:80]!r}, which is "
                f"not an integer, while others are integers (e.g. {first_int[0][:80]!r} on line {first_int[1]}), so "
                "every id is its text ('1' is not 1); pass id_type='str' to say this is intended, or fix the file"
                + first_name[2], GraphWarning)
        edges = text_array(tokens).reshape(-1, 2)
    else:
        edges = _int_array(tokens).reshape(-1, 2)
    weights = None
    if k == 3:
        weights = np.array([_parse_weight(fields[2], 2, path, lines[r], describe) for r, fields in enumerate(rows)],
                           dtype=np.float64)
    return _check_weights(edges, weights, Table(path, raw, None, k, np.asarray(lines, dtype=np.int64)))


def _py(value):
    """A NumPy scalar as the plain Python value (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_weights(edges, weights, table):
    if weights is not None:
        bad = ~np.isfinite(weights) | (weights <= 0)
        if np.any(bad):
            r = int(np.flatnonzero(bad)[0])
            table.fail(r, f"edge ({_py(edges[r, 0])}, {_py(edges[r, 1])}) has weight {float(weights[r])!r}; "
                          "weights must be finite and positive")
    return edges, weights, table


def read_id_list(path, *, delimiter=None, what="node ids"):
    """Read a one-column file of unique integer ids (ASU ``nodes.csv`` / ``groups.csv``)."""
    table = read_table(path, allowed=(1,), int_cols=1, delimiter=delimiter, what=f"one integer a line: {what}")
    ids = table.values[:, 0].astype(np.int64, copy=False)
    order = np.argsort(ids, kind="stable")
    dup = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if dup.size:
        r = int(order[dup[0] + 1])
        table.fail(r, f"{what[:-1] if what.endswith('s') else what} {ids[r]} is listed twice; ids must be unique")
    return ids, table


def read_label_file(path, *, delimiter=None, node_type=None):
    """Read ``node label [label ...]`` lines (comments, encoding, separators and quotes as in an edge list).

    Parameters
    ----------
    path : str or pathlib.Path
    delimiter : str, optional
        Sniffed by default, as for an edge list.
    node_type : {None, "int", "str"}, optional
        How node ids are read: ``"int"`` requires integers, ``"str"`` keeps
        the text; default: integers when every node id is one, else text.

    Returns
    -------
    nodes : ndarray, one entry per (node, label) membership
        int64, exact Python ints (object) beyond int64, or str (object).
    labels : ndarray (int64 when every label token is an integer, else str)
    lines : ndarray of int64, the line of each membership, or None (then
        :func:`data_line_numbers` finds it)
    """
    path = Path(path)
    raw = read_text_bytes(path)
    delimiter = sniff_delimiter(raw) if delimiter is None else check_delimiter(delimiter)
    if node_type != "str":
        # fast path: exactly two integer columns (SNAP, ASU group-edges.csv)
        fast = fast_table(raw, (2,), 2, delimiter)
        if fast is not None:
            values = fast[0]
            return values[:, 0].copy(), values[:, 1].copy(), None
    sep = "whitespace" if delimiter is None else repr(delimiter)
    _check_careful_memory(path, raw)
    nodes, labels, lines = [], [], []
    for lineno, fields, line in _data_lines(path, raw, delimiter):
        if len(fields) < 2 or any(f == "" for f in fields):
            raise DataFormatError(
                f"expected {sep}-separated 'node label [label ...]' (a node id and at least one label), "
                f"got {line[:80]!r}", path=path, line=lineno)
        node = fields[0]
        if node_type != "str" and INT_RE.fullmatch(node) and _digits(node) > MAX_ID_DIGITS:
            raise DataFormatError(f"node id is an integer of {_digits(node):,} digits; at most {MAX_ID_DIGITS:,} "
                                  "are accepted", path=path, line=lineno)
        if node_type == "int" and not INT_RE.fullmatch(node):
            raise DataFormatError(f"node id {node[:80]!r} is not an integer (the graph's node ids are integers); "
                                  "expected 'node label [label ...]'", path=path, line=lineno)
        for label in fields[1:]:
            nodes.append(node)
            labels.append(label)
            lines.append(lineno)
    if not nodes:
        raise DataFormatError("no data: the file is empty or holds only comments; expected 'node label [label ...]' lines",
                              path=path)
    if node_type != "str" and all(INT_RE.fullmatch(x) for x in nodes):
        node_array = _int_array(nodes)
    else:
        node_array = _str_array(nodes)
    if all(INT_RE.fullmatch(x) and _digits(x) <= 18 for x in labels):
        label_array = np.array([int(x) for x in labels], dtype=np.int64)
    else:
        label_array = np.array(labels, dtype=str)
    return node_array, label_array, np.array(lines, dtype=np.int64)
