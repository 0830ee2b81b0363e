"""Bad input files get a DataFormatError naming the file, the line and what was expected."""
import gzip
import re
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from lgekit import GraphWarning, datasets
from lgekit.datasets import DataFormatError
from blocking import ends_within


def write(path, text):
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def where(path, line=None):
    """Regex for the location prefix of an error message."""
    loc = re.escape(str(path))
    return loc + (rf", line {line}: " if line is not None else ": ")


def test_data_format_error_is_a_value_error_with_location(tmp_path):
    f = write(tmp_path / "g.txt", "1 2\n3 4.5\n")
    with pytest.raises(ValueError) as info:
        datasets.load(f)
    err = info.value
    assert isinstance(err, DataFormatError)
    assert err.path == f and err.line == 2


@pytest.mark.parametrize("text", ["", "\n\n  \n", "# only a comment\n% and another\n"])
def test_empty_file(tmp_path, text):
    f = write(tmp_path / "empty.txt", text)
    with pytest.raises(DataFormatError, match=where(f) + "no data: the file is empty or holds only comments; expected 2 or 3"):
        datasets.load(f)


NOT_AN_INTEGER = r"a number that is not an integer; node ids are integers or names"


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("# header\n1 2\n2 3.5\n", 3, rf"field 2 is '3\.5', {NOT_AN_INTEGER}"),
        # issue 13 item 7: "1.0 2.0" is refused with and without a weight column alike
        ("1.0 2.0\n", 1, rf"field 1 is '1\.0', {NOT_AN_INTEGER}"),
        ("1 2 0.5\n1.0 2.0 1\n", 2, rf"field 1 is '1\.0', {NOT_AN_INTEGER}"),
        ("a b\nc 1e3\n", 2, rf"field 2 is '1e3', {NOT_AN_INTEGER}"),
        ("1,2\n2,\n", 2, r"field 2 is empty"),
        ("1 2\n2 " + "9" * 100_000 + "\n", 2,
         r"field 2 is an integer of 100,000 digits; node ids may have at most 4,300"),
    ],
    ids=["decimal", "decimal-unweighted", "decimal-weighted", "exponent", "empty", "100000-digits"],
)
def test_malformed_ids(tmp_path, text, line, what):
    f = write(tmp_path / "bad.txt", text)
    with pytest.raises(DataFormatError, match=where(f, line) + what):
        datasets.load(f)


def test_id_type_int_refuses_names_in_one_sentence(tmp_path):
    """issue 16 item 2: the message said "field 1 is 'Napoleon' is not an integer"."""
    f = write(tmp_path / "lesmis.tsv", "1\t2\nNapoleon\tMyriel\n")
    with pytest.raises(DataFormatError, match=where(f, 2) + r"field 1, 'Napoleon', is not an integer; expected 2 or 3 "
                       r"'\\t'-separated") as info:
        datasets.load(f, id_type="int")
    assert "is 'Napoleon' is" not in str(info.value)


def test_mixed_integer_and_text_ids_are_text_with_a_warning(tmp_path):
    f = write(tmp_path / "mixed.txt", "1 2\n2 3\nalice bob\n")
    with pytest.warns(GraphWarning, match=re.escape(str(f)) + r": node ids read as text: line 3 has the id 'alice'"):
        g = datasets.load(f)
    assert g.node_ids.tolist() == ["1", "2", "3", "alice", "bob"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert datasets.load(f, id_type="str").node_ids.tolist() == ["1", "2", "3", "alice", "bob"]


def test_header_line_is_skipped(tmp_path):
    f = write(tmp_path / "edges.csv", "source,target\n1,2\n")
    g = datasets.load(f)
    assert g.node_ids.tolist() == [1, 2] and g.n_edges == 1
    # forced off, the header is data: its names make every id text
    with pytest.warns(GraphWarning, match="node ids read as text"):
        assert datasets.load(f, header=False).n_nodes == 4


@pytest.mark.parametrize(
    "raw, line, what",
    [
        (b"1 2\n2 caf\xe9\n", 2, r"not UTF-8 text: byte 0xe9 at column 6; save the file as UTF-8"),
        (b"1 2\n\xef\xbb\xbf2 3\n", 2, r"a byte-order mark \(U\+FEFF\) inside the file"),
        (b"1 2\n2 a\x00b\n", 2, r"control character U\+0000 at column 4"),
        (b"\xff\xfe1\x00 \x002\x00", 1, r"the file is UTF-16 text"),
        (b'a "b\n', 1, r"field 2: a quoted field is not closed"),
    ],
)
def test_encoding_errors_name_the_line(tmp_path, raw, line, what):
    f = write(tmp_path / "enc.txt", raw)
    with pytest.raises(DataFormatError, match=where(f, line) + what):
        datasets.load(f)


def test_utf8_bom_at_the_start_is_ignored(tmp_path):
    f = write(tmp_path / "bom.csv", b"\xef\xbb\xbfsource,target\r\n1,2\r\n2,3\r\n")
    g = datasets.load(f)
    assert g.node_ids.tolist() == [1, 2, 3] and g.n_edges == 2


def test_integer_ids_are_exact_at_any_size(tmp_path):
    """issue 13 item 7: a float64 table merged 2**53 + 1 into 2**53 and refused 2**63 - 1."""
    big = [2**53, 2**53 + 1, 2**63 - 1, 2**63, 10**30]
    text = "".join(f"{u} {v} 1.5\n" for u, v in zip(big, big[1:]))
    g = datasets.load(write(tmp_path / "big.txt", text))
    assert g.node_ids.tolist() == big and g.n_edges == 4
    g = datasets.load(write(tmp_path / "int64.txt", f"{2**63 - 1} {-(2**63)}\n{2**53 + 1} {2**53}\n"))
    assert g.node_ids.dtype == np.int64
    assert g.node_ids.tolist() == [-(2**63), 2**53, 2**53 + 1, 2**63 - 1]


@pytest.mark.parametrize(
    "text, line, found",
    [
        ("1 2\n2 3\n3 4 1.0 7\n", 3, 4),
        ("1 2\n2\n", 2, 1),
        ("1 2 1.0\n2 3\n", 2, 2),
    ],
)
def test_ragged_rows(tmp_path, text, line, found):
    f = write(tmp_path / "ragged.txt", text)
    with pytest.raises(DataFormatError, match=where(f, line) + rf"ragged rows: expected \d field\(s\) like the first data line \(line 1\), found {found}"):
        datasets.load(f)


def test_too_many_columns_on_first_line(tmp_path):
    f = write(tmp_path / "wide.txt", "1 2 3 4\n")
    with pytest.raises(DataFormatError, match=where(f, 1) + r"expected 2 or 3 whitespace-separated field\(s\).*found 4"):
        datasets.load(f)


@pytest.mark.parametrize("weight", ["-1.5", "nan", "NaN", "inf", "0"])
def test_bad_weights(tmp_path, weight):
    f = write(tmp_path / "w.txt", f"# weighted\n1 2 0.5\n\n2 3 {weight}\n3 4 1\n")
    with pytest.raises(DataFormatError, match=where(f, 4) + r"edge \(2, 3\) has weight .*finite and positive"):
        datasets.load(f)


def test_non_numeric_weight(tmp_path):
    f = write(tmp_path / "w.txt", "1 2 0.5\n2 3 heavy\n")
    with pytest.raises(DataFormatError, match=where(f, 2) + r"field 3 is 'heavy', expected a number"):
        datasets.load(f)


def test_corrupt_gzip(tmp_path):
    good = gzip.compress(b"1 2\n2 3\n" * 1000)
    f = write(tmp_path / "g.txt.gz", good[: len(good) // 2])
    with pytest.raises(DataFormatError, match=where(f) + "corrupt or truncated gzip file"):
        datasets.load(f)
    g = write(tmp_path / "h.txt.gz", b"this is not gzip at all")
    with pytest.raises(DataFormatError, match=where(g) + "corrupt or truncated gzip file"):
        datasets.load(g)


def test_gzip_content_errors_report_decompressed_lines(tmp_path):
    f = write(tmp_path / "g.txt.gz", gzip.compress(b"1 2\n2 3\n3 4.5\n"))
    with pytest.raises(DataFormatError, match=where(f, 3) + "field 2 is '4.5'"):
        datasets.load(f)


def test_truncated_mat(tmp_path):
    adj = sp.random(30, 30, density=0.2, random_state=0, format="csc")
    adj = ((adj + adj.T) > 0).astype(float)
    full = tmp_path / "full.mat"
    scipy.io.savemat(full, {"network": adj, "group": sp.csc_matrix(np.eye(30)[:, :3])})
    data = full.read_bytes()
    for cut in (10, 200, len(data) // 2, len(data) - 20):
        f = write(tmp_path / f"cut{cut}.mat", data[:cut])
        with pytest.raises(DataFormatError, match=where(f) + r"(not a readable MATLAB \.mat file: the file is truncated or corrupt|no variable 'network')"):
            datasets.load(f)


def test_mat_without_network(tmp_path):
    f = tmp_path / "x.mat"
    scipy.io.savemat(f, {"adjacency": np.eye(3)})
    with pytest.raises(DataFormatError, match=where(f) + r"no variable 'network'.*variables found: \['adjacency'\]"):
        datasets.load(f)


def test_mat_bad_shapes_and_values(tmp_path):
    f = tmp_path / "rect.mat"
    scipy.io.savemat(f, {"network": sp.csc_matrix(np.ones((3, 4)))})
    with pytest.raises(DataFormatError, match=where(f) + r"'network' must be a square adjacency matrix, got shape \(3, 4\)"):
        datasets.load(f)
    g = tmp_path / "group.mat"
    scipy.io.savemat(g, {"network": sp.csc_matrix(np.ones((3, 3)) - np.eye(3)), "group": np.ones((4, 2))})
    with pytest.raises(DataFormatError, match=where(g) + r"'group' must have one row per node \(3\)"):
        datasets.load(g)
    h = tmp_path / "neg.mat"
    net = np.array([[0, -1.0], [-1.0, 0]])
    scipy.io.savemat(h, {"network": sp.csc_matrix(net)})
    with pytest.raises(DataFormatError, match=where(h) + r"variable 'network': matrix entries must be finite and non-negative"):
        datasets.load(h)


def test_labels_for_unknown_nodes(tmp_path):
    edges = write(tmp_path / "e.txt", "1 2\n2 3\n")
    labels = write(tmp_path / "l.txt", "1 a\n2 b\n# comment\n7 a\n")
    with pytest.raises(DataFormatError, match=where(labels, 4) + r"label given for node 7, which is not a node of the graph"):
        datasets.load(edges, labels=labels)
    # integer labels take the fast path; the line is still found
    labels = write(tmp_path / "m.txt", "1 0\n2 1\n\n9 1\n")
    with pytest.raises(DataFormatError, match=where(labels, 4) + r"label given for node 9"):
        datasets.load(edges, labels=labels)


def test_label_file_syntax(tmp_path):
    edges = write(tmp_path / "e.txt", "1 2\n2 3\n")
    labels = write(tmp_path / "l.txt", "1 a\n2\n")
    with pytest.raises(DataFormatError, match=where(labels, 2) + r"expected whitespace-separated 'node label \[label \.\.\.\]'"):
        datasets.load(edges, labels=labels)
    labels = write(tmp_path / "n.txt", "x a\n")
    with pytest.raises(DataFormatError, match=where(labels, 1) + r"node id 'x' is not an integer"):
        datasets.load(edges, labels=labels)
    labels = write(tmp_path / "e2.txt", "")
    with pytest.raises(DataFormatError, match=where(labels) + r"no data"):
        datasets.load(edges, labels=labels)


def asu_folder(tmp_path, nodes="1\n2\n3\n", edges="1,2\n2,3\n", groups="1\n2\n", members="1,1\n3,2\n"):
    folder = tmp_path / "asu"
    folder.mkdir(exist_ok=True)
    for name, text in (("nodes.csv", nodes), ("edges.csv", edges), ("groups.csv", groups), ("group-edges.csv", members)):
        write(folder / name, text)
    return folder


def test_asu_folder_errors(tmp_path):
    folder = asu_folder(tmp_path, edges="1,2\n2,4\n")
    with pytest.raises(DataFormatError, match=where(folder / "edges.csv", 2) + r"node 4 is not listed in nodes.csv"):
        datasets.load(folder)
    folder = asu_folder(tmp_path, members="1,1\n3,5\n")
    with pytest.raises(DataFormatError, match=where(folder / "group-edges.csv", 2) + r"class 5 is not listed in groups.csv"):
        datasets.load(folder)
    folder = asu_folder(tmp_path, members="1,1\n8,2\n")
    with pytest.raises(DataFormatError, match=where(folder / "group-edges.csv", 2) + r"label given for node 8, which is not listed in nodes.csv"):
        datasets.load(folder)
    folder = asu_folder(tmp_path, nodes="1\n2\n3\n2\n")
    with pytest.raises(DataFormatError, match=where(folder / "nodes.csv", 4) + r"node id 2 is listed twice"):
        datasets.load(folder)
    (folder / "groups.csv").unlink()
    with pytest.raises(FileNotFoundError, match=r"not an ASU data set folder; missing groups.csv"):
        datasets.load(folder, format="asu")


def test_email_eu_core_duplicate_department(tmp_path):
    from lgekit.datasets import load_email_eu_core

    edges = write(tmp_path / "e.txt", "0 1\n1 2\n")
    labels = write(tmp_path / "l.txt", "0 1\n1 1\n2 3\n1 4\n")
    with pytest.raises(DataFormatError, match=where(labels, 4) + r"node 1 has a second department"):
        load_email_eu_core(edges, labels)
    labels = write(tmp_path / "l.txt", "0 1\n1 1\n")
    with pytest.raises(DataFormatError, match=where(edges, 2) + r"node 2 is not listed in l.txt"):
        load_email_eu_core(edges, labels)


def test_bad_arguments(tmp_path):
    f = write(tmp_path / "g.txt", "1 2\n")
    with pytest.raises(ValueError, match=r"delimiter must be None \(sniff\).*got 'ab'"):
        datasets.load(f, delimiter="ab")
    with pytest.raises(ValueError, match=r"format must be one of \('edgelist', 'mat', 'asu'\) or None, got 'xml'"):
        datasets.load(f, format="xml")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['n_nodes'\] for a file"):
        datasets.load(f, n_nodes=3)
    with pytest.raises(TypeError, match=r"name_or_path must be an lgekit.Graph, .*, a file path \(or registered data "
                                        r"set name\), .*; got int"):
        datasets.load(3)
    with pytest.raises(FileNotFoundError, match=r"'no-such-thing' is neither a registered data set \(blogcatalog, .*\) nor an existing file"):
        datasets.load("no-such-thing")
    with pytest.raises(ValueError, match=r"is a folder but not an ASU data set folder"):
        datasets.load(tmp_path)


def test_given_delimiter_is_enforced(tmp_path):
    f = write(tmp_path / "g.txt", "1 2\n2 3\n")
    with pytest.raises(DataFormatError, match=where(f, 1) + r"expected 2 or 3 ','-separated field\(s\).*found 1"):
        datasets.load(f, delimiter=",")


# ---------------------------------------------------------------------- issue 26 item 10: what is read at all


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="os.mkfifo needs a POSIX system")
@pytest.mark.parametrize("name", ["pipe", "pipe.txt", "pipe.mat", "pipe.gz"])
def test_a_fifo_is_refused_at_once(tmp_path, name):
    import os

    fifo = tmp_path / name
    os.mkfifo(fifo)
    for call in (lambda: datasets.load(fifo), lambda: datasets.read_edge_list(fifo),
                 lambda: datasets.load(write(tmp_path / "g.txt", "1 2\n"), labels=fifo)):
        outcome = ends_within(5, call)
        assert isinstance(outcome.get("error"), DataFormatError), outcome
        assert re.search(re.escape(str(fifo)) + r".*is a FIFO \(named pipe\), not a regular file; lgekit reads "
                         r"regular files and folders only", str(outcome["error"]))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_is_refused_at_once(device):
    import os

    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this system")
    outcome = ends_within(5, lambda: datasets.load(device))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert "is a character device, not a regular file" in str(outcome["error"])
    with pytest.raises(DataFormatError, match="character device"):
        datasets.read_edge_list(device)


@pytest.mark.parametrize("empty", ["", "   ", "\t"])
def test_an_empty_path_is_an_error_not_the_current_folder(empty):
    with pytest.raises(ValueError, match=r"name_or_path is empty .*; pass a registered data set .* or the path of "
                                         r"a file or folder \('\.' for the current folder\)"):
        datasets.load(empty)
    with pytest.raises(ValueError, match="name_or_path is empty"):
        datasets.resolve(empty)


@pytest.mark.parametrize("suffix", [".txt.gz", ".txt"])  # by suffix and by magic number
def test_gzip_decompression_has_a_cap(tmp_path, monkeypatch, suffix):
    text = "".join(f"{i} {i + 1}\n" for i in range(2000))  # 20 kB, compresses to a few kB
    f = write(tmp_path / f"big{suffix}", gzip.compress(text.encode()))
    assert datasets.load(f).n_edges == 2000  # the default cap (4 GiB) lets it through
    monkeypatch.setenv("LGEKIT_MAX_GUNZIPPED_BYTES", str(len(text) - 1))
    with pytest.raises(DataFormatError, match=where(f) + rf"the gzip file decompresses to more than "
                                              rf"{len(text) - 1:,} bytes, the cap on what lgekit decompresses; "
                                              r".*LGEKIT_MAX_GUNZIPPED_BYTES"):
        datasets.load(f)
    monkeypatch.setenv("LGEKIT_MAX_GUNZIPPED_BYTES", str(len(text)))  # exactly the size: allowed
    assert datasets.load(f).n_edges == 2000
    # a multi-member file counts every member against the cap
    f2 = write(tmp_path / f"two{suffix}", gzip.compress(text.encode()) + gzip.compress(text.encode()))
    with pytest.raises(DataFormatError, match="decompresses to more than"):
        datasets.load(f2)
    monkeypatch.setenv("LGEKIT_MAX_GUNZIPPED_BYTES", "lots")
    with pytest.raises(ValueError, match="LGEKIT_MAX_GUNZIPPED_BYTES must be a positive whole number of bytes, "
                                         "got 'lots'"):
        datasets.load(f)
