"""The tokens of lgekit's delimited-text grammar (written out in full in :func:`lgekit.datasets.read_edge_list`).

What a comment, an integer, a decimal number and a header name are, the
delimiters a table may use, and a file's text with its comments blanked out:
the careful line-by-line reader (:mod:`._edgelist`) and the vectorised one
(:mod:`._fast_reader`) read the same grammar from here.
"""
import re

import numpy as np

__all__ = ["COMMENT_CHARS", "HEADER_NAMES", "INT64_MAX", "INT64_MIN", "INT_RE", "MAX_ID_DIGITS", "NUMBER_RE",
           "check_delimiter", "strip_comment_bytes", "without_comments"]

COMMENT_CHARS = ("#", "%")
INT_RE = re.compile(r"[+-]?[0-9]+")
# a decimal number that a weight may be, and that an id may not be unless it is an integer
NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min
# CPython's default limit for int(text) (sys.get_int_max_str_digits); beyond it conversion is quadratic
MAX_ID_DIGITS = 4300
#: first rows made only of these names (case-insensitive) are headers, see read_edge_list
HEADER_NAMES = frozenset({
    "source", "target", "src", "dst", "destination", "from", "to", "u", "v", "node", "node1", "node2",
    "node_1", "node_2", "node_a", "node_b", "nodea", "nodeb", "id1", "id2", "id_1", "id_2", "source_id",
    "target_id", "from_id", "to_id", "head", "tail", "weight", "weights", "value", "count",
})


def check_delimiter(delimiter):
    """Normalise ``delimiter``: None for runs of whitespace, else one character (``"\\t"`` is a tab only)."""
    if delimiter in (None, " ", "whitespace"):
        return None
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter.isalnum() or delimiter in "+-.\n\r\"#%":
        raise ValueError(
            f"delimiter must be None (sniff), 'whitespace', '\\t' (tab) or one punctuation character such as "
            f"',' or ';', got {delimiter!r}"
        )
    return delimiter


def strip_comment_bytes(line):
    for c in (b"#", b"%"):
        cut = line.find(c)
        if cut >= 0:
            line = line[:cut]
    return line


def without_comments(raw):
    """``raw`` with comments blanked out (line count preserved)."""
    if b"#" not in raw and b"%" not in raw:
        return raw
    # common case (SNAP): a block of comment lines at the top, none after
    pos = 0
    while pos < len(raw) and raw[pos:pos + 1] in (b"#", b"%"):
        nl = raw.find(b"\n", pos)
        if nl < 0:
            return b"\n" * raw.count(b"\n")
        pos = nl + 1
    rest = raw[pos:]
    if b"#" not in rest and b"%" not in rest:
        return b"\n" * raw[:pos].count(b"\n") + rest
    return b"\n".join(strip_comment_bytes(line) for line in raw.split(b"\n"))
