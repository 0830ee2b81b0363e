"""The vectorised readers of lgekit's text tables: array operations over a file's bytes, no Python work per line.

An optimisation only (:mod:`._edgelist` says when each runs): on every file
they return exactly what the careful line-by-line reader returns, or None,
and the careful reader then reads the file (and says where it is wrong).
:func:`fast_table` reads tables of numbers (:func:`numpy.fromstring` after a
vectorised check that every data line has the same number of fields and that
id columns hold only integer digits), :func:`fast_names` edge lists whose ids
are names, and :func:`tabs_on_every_line` tells a TSV file from its tabs'
positions.
"""
import re
import warnings

import numpy as np

from ._grammar import INT64_MAX, INT64_MIN, NUMBER_RE, without_comments

__all__ = ["fast_names", "fast_table", "tabs_on_every_line"]


def tabs_on_every_line(raw, want):
    """Whether every data line of ``raw`` holds ``want`` tabs between its first and last visible character
    (:func:`lgekit.datasets._edgelist.sniff_delimiter`'s test of a TSV file; comments do not count).
    """
    # a tab: TSV only if every data line agrees (vectorised: SNAP files have millions of lines);
    # tabs count between a line's first and last visible character, as in the stripped first line
    body = without_comments(raw)
    c = np.frombuffer(body, dtype=np.uint8)
    newlines = np.flatnonzero(c == 10)
    if _tab_rows(body, c, newlines, want):
        return True
    starts, ends = np.r_[0, newlines + 1], np.r_[newlines, len(c)]
    ends -= (ends > starts) & (c[np.maximum(ends - 1, 0)] == 13) if len(c) else 0  # a \r\n line end
    tabs = _per_line(c == 9, newlines)
    filled = ends > starts
    # a line whose first and last bytes are visible holds all its tabs inside; the others (blank
    # lines, lines with surrounding whitespace) are few, and stripped one by one
    outer = np.zeros(len(starts), dtype=bool)
    outer[filled] = _is_white(c[starts[filled]]) | _is_white(c[ends[filled] - 1])
    if np.any(tabs[filled & ~outer] != want):
        return False
    for i in np.flatnonzero(outer).tolist():
        line = body[starts[i]:ends[i]].strip(b" \t\r\f\v")
        if line and line.count(b"\t") != want:
            return False
    return True


def _tab_rows(body, c, newlines, want):
    """Whether the data lines are consecutive, each with ``want`` tabs inside and no whitespace at either end.

    The usual TSV file, recognised from the tabs' positions in O(lines)
    (:func:`_on_their_lines`); when it says no, :func:`tabs_on_every_line`
    counts line by line, which also accepts lines with surrounding
    whitespace and blank lines among the rows.
    """
    tabs = np.flatnonzero(c == 9)
    if tabs.size == 0:
        return False
    lines_start, lines_end = np.r_[0, newlines + 1], np.r_[newlines, len(c)]
    first, last = (int(i) for i in np.searchsorted(newlines, tabs[[0, -1]]))
    starts, ends = lines_start[first:last + 1], lines_end[first:last + 1]
    if not _on_their_lines(tabs, want, last - first + 1, starts, ends):
        return False
    ends = ends - ((ends > starts) & (c[np.maximum(ends - 1, 0)] == 13))  # a \r\n line end
    if np.any(ends <= starts) or np.any(_is_white(c[starts]) | _is_white(c[ends - 1])):
        return False
    return not (body[:lines_start[first]].strip(b" \t\r\n\f\v") or body[lines_end[last]:].strip(b" \t\r\n\f\v"))


def _is_white(codes):
    """Which bytes are whitespace (space, tab, \\n, \\v, \\f, \\r)."""
    return (codes == 32) | ((codes >= 9) & (codes <= 13))


def _per_line(mask, newlines):
    """How many True entries of the byte mask ``mask`` fall on each line (lines end at ``newlines``).

    One pass over the bytes (a sum per line), not a search per entry.
    """
    bounds = np.r_[0, newlines + 1]
    counts = np.zeros(len(bounds), dtype=np.int64)
    inside = bounds < len(mask)  # a file ending in a newline has an empty last line
    counts[inside] = np.add.reduceat(mask.view(np.uint8), bounds[inside], dtype=np.int64)
    return counts


def fast_table(raw, allowed, int_cols, delimiter):
    """Vectorised parse; returns (values (r, k) array, k) or None when anything looks off."""
    body = without_comments(raw)
    c = np.frombuffer(body, dtype=np.uint8)
    if c.size == 0:
        return None
    space = (c == 32) | ((c >= 9) & (c <= 13))
    d = None if delimiter is None else ord(delimiter)
    if d is not None:
        is_delim = c == d
        space_or_delim = space | is_delim
    else:
        space_or_delim = space
    start = ~space_or_delim
    start[1:] &= space_or_delim[:-1]
    starts = np.flatnonzero(start)
    if starts.size == 0:
        return None
    newlines = np.flatnonzero(c == 10)
    k = _rows_in_order(starts, newlines, c.size, None if d is None else np.flatnonzero(is_delim))
    if k is None:  # blank lines among the rows, or rows that differ: counted line by line
        ntok = _per_line(start, newlines)
        nonblank = ntok > 0
        k = int(ntok[nonblank][0])
        if k not in allowed or np.any(ntok[nonblank] != k):
            return None
        if d is not None:
            ndel = _per_line(is_delim, newlines)
            if np.any(ndel[nonblank] != k - 1) or np.any(ndel[~nonblank] != 0):
                return None
    elif k not in allowed:
        return None
    if d is not None:
        body = body.replace(delimiter.encode(), b" ")
    if k > int_cols:
        # the values are parsed as float64, so the id columns are checked to hold only integer
        # literals (no "1.0", no "1e3") whose magnitude float64 represents exactly (below)
        token = np.cumsum(start) - 1
        id_byte = ~space_or_delim & (token % k < int_cols)
        digit_or_sign = ((c >= 48) & (c <= 57)) | (c == 43) | (c == 45)
        if np.any(id_byte & ~digit_or_sign):
            return None
    dtype = np.int64 if k == int_cols else np.float64
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            values = np.fromstring(body, dtype=dtype, sep=" ")
    except (ValueError, DeprecationWarning):
        return None
    if values.size != starts.size:
        return None
    values = values.reshape(-1, k)
    if dtype == np.int64:
        if values.size and (values.max() == INT64_MAX or values.min() == INT64_MIN):
            return None  # fromstring saturates on overflow; let the slow path say where
    else:
        ids = values[:, :int_cols]
        if not np.all(np.isfinite(ids)) or np.any(ids != np.round(ids)) or np.any(np.abs(ids) >= 2.0**53):
            return None  # a float64 no longer tells neighbouring integers apart: the slow path parses them exactly
    return values, k


def _rows_in_order(starts, newlines, n, delimiters=None):
    """``k`` when the data lines are consecutive and each holds exactly ``k`` tokens (and ``k - 1`` delimiters,
    none elsewhere); else None, and the caller counts line by line.

    The usual table (a block of comment lines, then rows) is recognised from
    the positions alone, in O(rows): with ``k`` tokens on the first row and
    ``k`` times as many tokens as rows from the first to the last, the
    sorted token starts fall ``k`` to a row exactly when each row's first
    token is on or after its line's start and its last before its line's end.
    """
    lines_start = np.r_[0, newlines + 1]
    lines_end = np.r_[newlines, n]
    first, last = (int(i) for i in np.searchsorted(newlines, starts[[0, -1]]))
    k = int(np.searchsorted(starts, lines_end[first]))
    rows = last - first + 1
    if not (_on_their_lines(starts, k, rows, lines_start[first:last + 1], lines_end[first:last + 1])
            and (delimiters is None or _on_their_lines(delimiters, k - 1, rows, lines_start[first:last + 1],
                                                       lines_end[first:last + 1]))):
        return None
    return k


def _on_their_lines(positions, per, rows, lines_start, lines_end):
    """Whether the sorted ``positions`` are ``per`` on each of ``rows`` lines in order (bounds given), no more."""
    if positions.size != per * rows:
        return False
    if per == 0:
        return True
    grid = positions.reshape(rows, per)
    return bool(np.all(grid[:, 0] >= lines_start) and np.all(grid[:, -1] < lines_end))


# bytes that may occur in a decimal number ([+-], digits, ".", "e", "E"): a token holding another byte is a name
_NUMBER_BYTES = np.zeros(256, dtype=bool)
_NUMBER_BYTES[list(b"0123456789+-.eE")] = True
# UTF-8 of the characters the grammar refuses beyond ASCII controls: C1 controls, BOM, line/paragraph separators
_BAD_UTF8_RE = re.compile(b"\xc2[\x80-\x9f]|\xef\xbb\xbf|\xe2\x80[\xa8\xa9]")


def fast_names(raw, delimiter, any_text=False):
    """Vectorised read of an edge list whose ids are names; ``(edges, weights, k)`` or None.

    The common case of text ids (a CSV or TSV export) in array operations
    over the file's bytes, with no Python work per line.  It reads only what
    it is sure of: every id holds a byte that no number has (``any_text``:
    every id is text anyway), no quotes, no whitespace inside a field, every
    line with the same 2 or 3 fields.  Anything else -- and every error --
    returns None, and the careful line-by-line parser reads the file (and
    says where it is wrong).  Both give the same arrays.
    """
    if b'"' in raw or _BAD_UTF8_RE.search(raw):
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    body = without_comments(raw)
    c = np.frombuffer(body, dtype=np.uint8)
    if c.size == 0:
        return None
    newline = c == 10
    line_end = newline | ((c == 13) & np.r_[newline[1:], True])  # a \r\n line end
    if np.any(((c < 32) & ~_is_white(c)) | (c == 127)):
        return None  # control characters: the careful path names them
    if delimiter is None:
        sep = _is_white(c)
    else:
        is_delim = c == ord(delimiter)
        sep = is_delim | line_end
        if np.any(_is_white(c) & ~sep):
            return None  # whitespace around or inside a field
    start = ~sep
    start[1:] &= sep[:-1]
    end = ~sep
    end[:-1] &= sep[1:]
    starts, ends = np.flatnonzero(start), np.flatnonzero(end) + 1
    if starts.size == 0:
        return None
    newlines = np.flatnonzero(newline)
    ntok = _per_line(start, newlines)
    filled = ntok > 0
    k = int(ntok[filled][0])
    if k not in (2, 3) or np.any(ntok[filled] != k):
        return None
    if delimiter is not None:
        ndel = _per_line(is_delim, newlines)
        if np.any(ndel[filled] != k - 1) or np.any(ndel[~filled] != 0):
            return None  # an empty field: the careful path says which
    starts, ends = starts.reshape(-1, k), ends.reshape(-1, k)
    if not any_text:
        # bytes of a name: neither a separator nor a byte of a number; count them per token
        name_bytes = (~_NUMBER_BYTES[c] & ~sep).astype(np.int32)
        per_token = np.add.reduceat(name_bytes, starts.ravel())
        if np.any(per_token.reshape(-1, k)[:, :2] == 0):
            return None  # an id that may be a number: integers, mixed ids and refusals are the careful path's
    ids = _token_bytes(c, starts[:, :2].ravel(), ends[:, :2].ravel())
    if ids is None:
        return None
    if c.max() < 128:
        edges = ids.astype(str).reshape(-1, 2)  # ASCII: NumPy decodes it (no NUL, at most 64 bytes: exact)
    else:
        distinct, inverse = np.unique(ids, return_inverse=True)
        names = np.array([x.decode("utf-8") for x in distinct.tolist()], dtype=str)
        edges = names[inverse.ravel()].reshape(-1, 2)
    weights = None
    if k == 3:
        column = _token_bytes(c, starts[:, 2], ends[:, 2])
        if column is None:
            return None
        texts = np.unique(column)
        if not all(NUMBER_RE.fullmatch(t.decode()) for t in texts.tolist()):
            return None  # not a decimal number (nan, inf, text): the careful path refuses it by line
        weights = column.astype(np.float64)
    return edges, weights, k


def _token_bytes(c, starts, ends, longest=64):
    """The tokens ``c[starts[i]:ends[i]]`` as a fixed-width bytes array (None if one is longer than ``longest``)."""
    lengths = ends - starts
    width = int(lengths.max()) if lengths.size else 1
    if width > longest:
        return None
    out = np.zeros((len(starts), width), dtype=np.uint8)
    for j in range(width):  # one column of bytes at a time: no (tokens x width) index array
        inside = lengths > j
        out[inside, j] = c[starts[inside] + j]
    return out.view(f"S{width}").ravel()
