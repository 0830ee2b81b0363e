"""The edge-list loader against its documented grammar (``lgekit.datasets.read_edge_list``).

Hypothesis writes edge lists in every dialect the grammar allows (integer ids
of every size, names with spaces, quotes and non-ASCII letters, weights in
several notations, comments, blank lines, a header, CRLF/CR line ends, a
byte-order mark, gzip, CSV/TSV/whitespace separators) from a known list of
edges.  Each file is read three ways that must agree:

1. the edges it was written from;
2. ``reference_parse``, a second, deliberately plain implementation of the
   documented grammar (Python's ``csv`` module for delimited lines), written
   here from the docstring and sharing no code with the loader;
3. ``lgekit.datasets.load``, compared as a graph with ``Graph.from_edges``
   on the reference parse.
"""
import csv
import gzip
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lgekit import Graph, GraphWarning, datasets
from lgekit.datasets import DataFormatError, _grammar

# ---------------------------------------------------------------------- the grammar, re-implemented from its docs
INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
HEADER_NAMES = {"source", "target", "src", "dst", "destination", "from", "to", "u", "v", "node", "node1", "node2",
                "node_1", "node_2", "node_a", "node_b", "nodea", "nodeb", "id1", "id2", "id_1", "id_2", "source_id",
                "target_id", "from_id", "to_id", "head", "tail", "weight", "weights", "value", "count"}
WHITESPACE = " \t\r\f\v"


def reference_parse(raw, delimiter=None):
    """(pairs of ids, weights or None) of an edge list, by the documented grammar, written plainly."""
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\n" not in text:
        text = text.replace("\r", "\n")
    data = []
    for line in text.split("\n"):
        for c in "#%":
            if c in line:
                line = line[:line.index(c)]
        line = line.strip(WHITESPACE)
        if line:
            data.append(line)
    if delimiter is None:
        delimiter = next((c for c in ",;|" if c in data[0]), None)
        if delimiter is None and "\t" in data[0] and all(x.count("\t") == data[0].count("\t") for x in data):
            delimiter = "\t"
    if delimiter is None:
        rows = [re.split(r"[ \t\r\f\v]+", x) for x in data]
    else:
        rows = [[f.strip(WHITESPACE) for f in next(csv.reader([x], delimiter=delimiter, skipinitialspace=True))]
                for x in data]
    first = rows[0]
    second = rows[1] if len(rows) > 1 else None
    if not any(NUMBER.fullmatch(f) for f in first) and (
            (second is None and all(f.lower() in HEADER_NAMES for f in first))
            or (second is not None and len(second) == len(first) and (
                all(f.lower() in HEADER_NAMES for f in first)
                or all(INTEGER.fullmatch(f) for f in second[:2])
                or (len(first) == 3 and NUMBER.fullmatch(second[2]))))):
        rows = rows[1:]
    assert len({len(r) for r in rows}) == 1 and len(rows[0]) in (2, 3)
    ids = [f for r in rows for f in r[:2]]
    if all(INTEGER.fullmatch(f) for f in ids):
        ids = [int(f) for f in ids]
    pairs = list(zip(ids[0::2], ids[1::2]))
    weights = [float(r[2]) for r in rows] if len(rows[0]) == 3 else None
    return pairs, weights


# ---------------------------------------------------------------------- files written in every dialect
int_ids = (st.integers(-5, 60)
           | st.integers(-(2**80), 2**80)
           | st.sampled_from([2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1]))
name_chars = st.sampled_from(list("abcxyzABCXYZ_-.'()é漢ßΩ") + ["Jean", "Valjean", "0", "7"])


@st.composite
def names(draw, spaces, specials):
    """A node name: starts with a letter, so it is never a number; never a usual column name."""
    head = draw(st.sampled_from(list("abcxyzNMé漢Ω")))
    body = draw(st.lists(name_chars | (st.just(" ") if spaces else st.nothing())
                         | (st.sampled_from(['"', ",", ";", "|"]) if specials else st.nothing()), max_size=6))
    name = (head + "".join(body)).rstrip(" ")
    assume(name.lower() not in HEADER_NAMES)
    return name


def int_token(draw, value):
    """An integer as a file may spell it: a '+' sign or leading zeros sometimes."""
    sign = "-" if value < 0 else draw(st.sampled_from(["", "", "+"]))
    return sign + "0" * draw(st.sampled_from([0, 0, 0, 2])) + str(abs(value))


def weight_token(draw, value):
    return draw(st.sampled_from([repr(value), f"{value:.6g}", f"{value:.3e}", f"{value:.2f}".rstrip("0")]))


@st.composite
def edge_list_files(draw):
    """(file bytes, delimiter to pass or None, the pairs of ids written, their weights or None)."""
    dialect = draw(st.sampled_from(["whitespace", "tsv", "csv"]))
    delim = {"whitespace": None, "tsv": "\t", "csv": draw(st.sampled_from([",", ";", "|"]))}[dialect]
    text_ids = draw(st.booleans())
    specials = dialect == "csv" and draw(st.booleans())  # quotes and separators inside names, quoted
    if text_ids:
        pool = draw(st.lists(names(spaces=dialect != "whitespace", specials=specials), min_size=1, max_size=8,
                             unique=True))
    else:
        pool = draw(st.lists(int_ids, min_size=1, max_size=8, unique=True))
    edges = draw(st.lists(st.tuples(st.integers(0, len(pool) - 1), st.integers(0, len(pool) - 1)),
                          min_size=1, max_size=12))
    weighted = draw(st.booleans())
    weights = None
    tokens_w = None
    if weighted:
        values = draw(st.lists(st.floats(0.01, 1e6), min_size=len(edges), max_size=len(edges)))
        tokens_w = [weight_token(draw, w) for w in values]
        weights = [float(t) for t in tokens_w]  # what the text says, not the float it came from

    def field(token, is_text):
        if dialect == "csv" and (any(c in token for c in '",;|') or (is_text and draw(st.booleans()))):
            return '"' + token.replace('"', '""') + '"'
        return token

    # one separator per file: a file mixing "u v\tw" lines is tab-separated by the documented rule
    separator = draw(st.sampled_from([" ", "  ", "\t", " \t "])) if dialect == "whitespace" else None

    def join(fields):
        if dialect == "whitespace":
            return separator.join(fields)
        pad = draw(st.sampled_from(["", "", " "]))
        return (pad + delim + pad).join(fields)

    lines = []
    if draw(st.booleans()):
        header = ["source", "target"] + (["weight"] if weighted else [])
        lines.append(join([h.title() if draw(st.booleans()) else h for h in header]))
    pairs = []
    for k, (i, j) in enumerate(edges):
        u, v = pool[i], pool[j]
        pairs.append((u, v))
        fields = [field(x if text_ids else int_token(draw, x), text_ids) for x in (u, v)]
        if weighted:
            fields.append(tokens_w[k])
        line = join(fields)
        if draw(st.integers(0, 4)) == 0:
            line += draw(st.sampled_from([" # note", "\t% 3 4", "#x,y"]))
        lines.append(line)
    for _ in range(draw(st.integers(0, 3))):  # comment and blank lines anywhere, even before a header
        lines.insert(draw(st.integers(0, len(lines))),
                     draw(st.sampled_from(["# comment, with; separators | 1 2", "% 5 6 7", "", "   ", "\t"])))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = newline.join(lines) + draw(st.sampled_from([newline, ""]))
    raw = text.encode("utf-8")
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    if draw(st.booleans()):
        raw = gzip.compress(raw)
    # a name holding another separator character fools the sniffer by design: such files name it
    explicit = specials or draw(st.booleans())
    return raw, (delim if explicit else None), pairs, weights


def load_quietly(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)  # self-loops are dropped with a warning, by design
        return datasets.load(path, **kwargs)


@given(edge_list_files())
def test_loader_matches_the_documented_grammar(tmp_path_factory, document):
    raw, delimiter, pairs, weights = document
    # the plain re-implementation reads back exactly what was written
    assert reference_parse(raw, delimiter) == (pairs, weights)
    path = tmp_path_factory.mktemp("grammar") / "g.txt"
    path.write_bytes(raw)
    loaded = load_quietly(path, delimiter=delimiter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)
        expected = Graph.from_edges(pairs, weights=weights)
    assert loaded.node_ids.tolist() == expected.node_ids.tolist()
    assert [type(x) for x in loaded.node_ids.tolist()] == [type(x) for x in expected.node_ids.tolist()]
    np.testing.assert_array_equal(loaded.edges(), expected.edges())
    # a repeated edge weighs its largest weight in both (the one rule, "Edge weights" in Graph): exactly equal
    np.testing.assert_array_equal(loaded.edge_weights(), expected.edge_weights())
    assert loaded.is_weighted == (weights is not None)
    # read_edge_list gives the ids as written, in file order
    edges, w = datasets.read_edge_list(path, delimiter=delimiter)
    assert [tuple(e) for e in edges.tolist()] == pairs
    assert (w is None and weights is None) or w.tolist() == weights


def test_the_column_names_of_the_header_rule_are_the_documented_ones():
    assert _grammar.HEADER_NAMES == HEADER_NAMES  # the reference above copies them; a change must be deliberate


@given(st.lists(int_ids, min_size=2, max_size=6, unique=True), st.booleans(), st.data())
def test_integer_ids_are_exact_with_and_without_weights(tmp_path_factory, ids, weighted, data):
    """Issue 13 item 7: the weight column used to send ids through float64."""
    order = data.draw(st.permutations(ids))
    text = "".join(f"{u} {v}{' 2.5' if weighted else ''}\n" for u, v in zip(order, order[1:]))
    path = tmp_path_factory.mktemp("ints") / "g.txt"
    path.write_text(text)
    g = load_quietly(path)
    assert g.node_ids.tolist() == sorted(ids) and g.n_edges == len(ids) - 1


@given(st.sampled_from(["1.0", "2.5", "-0.5", "1e3", ".5", "7."]), st.booleans(), st.booleans())
def test_decimal_ids_are_refused_alike_with_and_without_weights(tmp_path_factory, token, weighted, first):
    """Issue 13 item 7: ``1.0 2.0 1`` was read as integer ids only when a weight column was present."""
    line = f"{token} 3" if first else f"3 {token}"
    text = f"1 2{' 1' if weighted else ''}\n{line}{' 1' if weighted else ''}\n"
    path = tmp_path_factory.mktemp("dec") / "g.txt"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=rf"g.txt, line 2: field {1 if first else 2} is {re.escape(repr(token))}, "
                                              "a number that is not an integer"):
        datasets.load(path)
    assert [x for x in datasets.load(path, id_type="str").node_ids.tolist()] == sorted({"1", "2", "3", token})


@given(st.integers(4301, 5000), st.booleans())
def test_oversized_integer_ids_name_the_file_and_line(tmp_path_factory, digits, weighted):
    path = tmp_path_factory.mktemp("huge") / "g.txt"
    path.write_text(f"# big\n1 2{' 1' if weighted else ''}\n2 {'9' * digits}{' 1' if weighted else ''}\n")
    with pytest.raises(DataFormatError, match=rf"g.txt, line 3: field 2 is an integer of {digits:,} digits"):
        datasets.load(path)
    g = datasets.load(path, id_type="str")  # as text they are fine
    assert g.node_ids.tolist() == sorted(["1", "2", "9" * digits])
