"""The vectorised readers of edge lists give what the careful line-by-line parser gives, or step aside for it.

``fast_names`` (text ids) and ``fast_table`` (numbers) of ``_fast_reader`` are optimisations
only: on every file they either return exactly the careful parser's arrays
or return None (and the careful parser then reads the file, with its
messages).  The grammar itself is tested against a plain re-implementation
in test_edgelist_grammar.py.
"""
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lgekit import Graph, GraphWarning, datasets
from lgekit.datasets import DataFormatError, _edgelist, _fast_reader

LETTERS = "abcdfghxyzABCQ_.-+é中ß0123456789eE"


@st.composite
def name_files(draw):
    """(raw bytes, delimiter argument) of an edge list of names in one of the dialects the fast path may read."""
    n = draw(st.integers(1, 12))
    names = draw(st.lists(st.text(LETTERS, min_size=1, max_size=8), min_size=n, max_size=n))
    m = draw(st.integers(1, 25))
    rows = [(draw(st.sampled_from(names)), draw(st.sampled_from(names))) for _ in range(m)]
    weighted = draw(st.booleans())
    weights = [draw(st.sampled_from(["1", "2.5", ".5", "3e2", "1E-3", "+4", "0.25", "7."])) for _ in range(m)]
    sep = draw(st.sampled_from([",", ";", "\t", " ", "  ", "|"]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [sep.join((u, v, w) if weighted else (u, v)) for (u, v), w in zip(rows, weights)]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "# a comment")
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "")
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    delimiter = draw(st.sampled_from([None, sep.strip() or "whitespace"]))
    return text.encode(), delimiter


def careful(raw, delimiter):
    raw = _edgelist.read_text_bytes("x.txt", raw)
    d = _edgelist.sniff_delimiter(raw) if delimiter is None else _edgelist.check_delimiter(delimiter)
    return raw, d


@settings(max_examples=300, deadline=None)
@given(name_files(), st.booleans())
def test_fast_names_equal_the_careful_parser_or_step_aside(case, any_text):
    raw, delimiter = case
    raw, d = careful(raw, delimiter)
    fast = _fast_reader.fast_names(raw, d, any_text=any_text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GraphWarning)  # ids read as text: the careful path's own warning
            edges, weights, _ = _edgelist._slow_edges("x.txt", raw, d, "str" if any_text else None)
    except DataFormatError:
        assert fast is None  # every error is the careful parser's to report
        return
    if fast is None:
        return
    assert fast[0].tolist() == edges.tolist()
    assert (fast[1] is None and weights is None) or fast[1].tolist() == weights.tolist()


@pytest.mark.parametrize("text, delimiter", [
    ("alice,bob\nbob,carol\n", None),
    ("alice\tbob\t2.5\r\nbob\tcarol\t1\r\n", None),
    ("# SNAP-style\nu_1 u_2\nu_2 u_3\n\nu_3 u_1\n", None),
    ("Zoë;Jürgen\nJürgen;中文\n", ";"),
])
def test_common_text_files_take_the_fast_path(tmp_path, text, delimiter):
    raw, d = careful(text.encode(), delimiter)
    fast = _fast_reader.fast_names(raw, d)
    assert fast is not None  # so the equality above is not vacuous on the files that matter
    path = tmp_path / "g.txt"
    path.write_bytes(text.encode())
    edges, weights = datasets.read_edge_list(path, delimiter=delimiter)
    assert edges.tolist() == fast[0].tolist()
    g = datasets.load(path, delimiter=delimiter)
    assert g.node_ids.tolist() == sorted({x for pair in edges.tolist() for x in pair})
    expected = Graph.from_edges([tuple(p) for p in edges.tolist()], weights=weights)
    assert g.edges().tolist() == expected.edges().tolist()


@pytest.mark.parametrize("text, line, what", [
    ("a,b\nb,c\nc,,d\n", 3, "ragged rows|field 2 is empty"),
    ("a,b\nb,c\nc,\n", 3, "field 2 is empty"),
    ("a b\nb 1.5\n", 2, "a number that is not an integer"),
    ("a,b,1\nb,c,nan\n", 2, "has weight nan"),
    ("a,b,1\nb,c,heavy\n", 2, "expected a number"),
    ("a,b\nb,c\x01\n", 2, "control character U\\+0001"),
])
def test_errors_still_name_their_line(tmp_path, text, line, what):
    path = tmp_path / "bad.txt"
    path.write_bytes(text.encode())
    with pytest.raises(DataFormatError, match=rf"line {line}: .*({what})"):
        datasets.load(path)


def test_mixed_integer_and_text_ids_still_warn():
    raw, d = careful(b"1,alice\n2,bob\n", None)
    assert _fast_reader.fast_names(raw, d) is None  # integers among the ids: the careful path warns
    assert _fast_reader.fast_names(raw, d, any_text=True)[0].tolist() == [["1", "alice"], ["2", "bob"]]
