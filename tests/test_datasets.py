"""lgekit.datasets.load on the real data sets, on reformatted copies, and on random edge lists."""
import gzip
import hashlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from hypothesis import given, strategies as st

from lgekit import Graph, GraphWarning, datasets
from lgekit.datasets import DataFormatError
from lgekit.cli import main

README_COUNTS = {
    # ../shared/data/README.md
    "blogcatalog": dict(n_nodes=10_312, n_edges=333_983, n_labels=39, n_memberships=14_476),
    "facebook": dict(n_nodes=4_039, n_edges=88_234),
    "email-eu-core": dict(n_nodes=1_005, n_labels=42, n_edges=16_064),
    "ppi": dict(n_nodes=3_890),
}


def same_graph(a, b):
    assert a.n_nodes == b.n_nodes and a.n_edges == b.n_edges
    np.testing.assert_array_equal(a.node_ids, b.node_ids)
    np.testing.assert_array_equal(a.edges(), b.edges())
    np.testing.assert_array_equal(a.edge_weights(), b.edge_weights())
    assert (a.labels is None) == (b.labels is None)
    if a.labels is not None:
        assert (a.labels != b.labels).nnz == 0
        np.testing.assert_array_equal(a.label_names, b.label_names)


# ---------------------------------------------------------------------- real data
def test_blogcatalog_counts(data_dir):
    g = datasets.load("blogcatalog", data_home=data_dir)
    expected = README_COUNTS["blogcatalog"]
    assert (g.n_nodes, g.n_edges, g.n_labels, g.labels.nnz) == (
        expected["n_nodes"], expected["n_edges"], expected["n_labels"], expected["n_memberships"])
    assert g.name == "blogcatalog" and not g.is_directed and not g.is_weighted
    # 1-based ids are kept as the node ids
    assert g.node_ids[0] == 1 and g.node_ids[-1] == expected["n_nodes"]
    np.testing.assert_array_equal(np.sort(g.label_names), np.arange(1, 40))
    # each undirected edge once in edges.csv, so the first line's pair is an edge
    assert g.has_edges([[g.index_of(1), g.index_of(176)]])[0]


def test_blogcatalog_comma_separated_copy_loads_identically(data_dir, tmp_path):
    """The publisher's files are comma-separated (and may have CRLF line ends)."""
    reference = datasets.load("blogcatalog", data_home=data_dir)
    folder = tmp_path / "blogcatalog"
    folder.mkdir()
    for name in ("nodes.csv", "edges.csv", "groups.csv", "group-edges.csv"):
        raw = (data_dir / "blogcatalog" / name).read_bytes()
        assert b"," not in raw  # the shared copy is whitespace-separated
        (folder / name).write_bytes(re.sub(rb"[ \t]+", b",", raw).replace(b"\n", b"\r\n"))
    same_graph(datasets.load(folder), reference)  # by path
    same_graph(datasets.load("blogcatalog", data_home=tmp_path), reference)  # by name


def test_ppi_counts(data_dir):
    g = datasets.load("ppi", data_home=data_dir)
    assert g.n_nodes == README_COUNTS["ppi"]["n_nodes"]
    mat = scipy.io.loadmat(data_dir / "ppi" / "Homo_sapiens.mat")
    network, group = mat["network"], mat["group"]
    # README: 76,584 nonzeros in `network`; the diagonal ones are self-loops, dropped
    assert network.nnz == 76_584
    assert 2 * g.n_edges + np.count_nonzero(network.diagonal()) == network.nnz
    assert g.n_labels == group.shape[1] == 50 and g.labels.nnz == group.nnz
    assert g.name == "ppi"


def test_ppi_by_path_warns_about_self_loops(data_dir):
    with pytest.warns(GraphWarning, match=r"dropped 894 self-loop"):
        g = datasets.load(data_dir / "ppi" / "Homo_sapiens.mat")
    assert g.name == "Homo_sapiens"
    same_graph(g, datasets.load("ppi", data_home=data_dir))


def test_facebook_counts(data_dir):
    g = datasets.load("facebook", data_home=data_dir)
    assert (g.n_nodes, g.n_edges) == (README_COUNTS["facebook"]["n_nodes"], README_COUNTS["facebook"]["n_edges"])
    assert g.labels is None and g.name == "facebook"
    np.testing.assert_array_equal(g.node_ids, np.arange(4039))


def test_facebook_snap_gz_copy_loads_identically(data_dir, tmp_path):
    """SNAP serves facebook_combined.txt.gz without the comment line the shared copy has."""
    raw = (data_dir / "facebook" / "facebook_combined.txt").read_bytes()
    assert raw.startswith(b"#")
    snap = raw.split(b"\n", 1)[1]
    path = tmp_path / "facebook_combined.txt.gz"
    path.write_bytes(gzip.compress(snap))
    reference = datasets.load("facebook", data_home=data_dir)
    same_graph(datasets.load(path), reference)
    # a data home with only the .gz file is found too
    (tmp_path / "facebook").mkdir()
    path.rename(tmp_path / "facebook" / path.name)
    same_graph(datasets.load("facebook", data_home=tmp_path), reference)


def test_email_eu_core_counts(data_dir):
    g = datasets.load("email-eu-core", data_home=data_dir)
    expected = README_COUNTS["email-eu-core"]
    assert (g.n_nodes, g.n_labels, g.n_edges) == (expected["n_nodes"], expected["n_labels"], expected["n_edges"])
    # single-label: one department per node
    np.testing.assert_array_equal(np.diff(g.labels.indptr), 1)
    # the registered loader drops the 642 self-loops quietly (logged, documented)
    arcs = np.loadtxt(data_dir / "email-eu-core" / "email-Eu-core.txt", dtype=np.int64)
    n_loops = int(np.sum(arcs[:, 0] == arcs[:, 1]))
    assert n_loops > 0
    directed = datasets.load("email-eu-core", data_home=data_dir, directed=True)
    assert directed.is_directed and directed.n_edges == len(arcs) - n_loops == 25_571 - n_loops
    # loaded by path, self-loops are dropped with lgekit's usual warning
    with pytest.warns(GraphWarning, match=rf"dropped {n_loops} self-loop"):
        by_path = datasets.load(data_dir / "email-eu-core" / "email-Eu-core.txt",
                                labels=data_dir / "email-eu-core" / "email-Eu-core-department-labels.txt")
    assert by_path.n_edges == g.n_edges and by_path.n_labels == 42


def test_registered_names_are_case_insensitive_with_aliases(data_dir):
    a = datasets.load("Email-Eu-Core", data_home=data_dir)
    b = datasets.load("email_eu_core", data_home=data_dir)
    same_graph(a, b)
    assert a.name == b.name == "email-eu-core"


def test_lgekit_data_environment_variable(data_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    assert datasets.find_data_home() == data_dir
    assert datasets.locate("facebook") == data_dir / "facebook"
    assert datasets.load("facebook").n_nodes == 4039


def test_verify_real_files(data_dir):
    for name in ("blogcatalog", "ppi", "facebook", "email-eu-core"):
        assert set(datasets.verify(name, data_home=data_dir).values()) == {None}


def test_missing_data_set_without_download(monkeypatch, tmp_path):
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    assert datasets.locate("ppi") is None
    with pytest.raises(FileNotFoundError, match=r"data set 'ppi' not found in .*mirror, .*cache; run `lgekit datasets fetch ppi`"):
        datasets.load("ppi", download=False)


def test_offline_environment_variable_disables_downloads(monkeypatch, tmp_path):
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    with pytest.raises(datasets.DatasetNotFoundError, match=r"data set 'facebook' not found in .*mirror, .*cache, and "
                       r"downloads are disabled \(LGEKIT_OFFLINE is set\)\.\nTo install it by hand:\n  - download "
                       r"https://snap\.stanford\.edu/data/facebook_combined\.txt\.gz") as info:
        datasets.load("facebook")
    assert isinstance(info.value, FileNotFoundError) and info.value.hint.startswith("To install it by hand:")


def test_registered_name_wins_over_a_local_folder(data_dir, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "facebook").mkdir()
    assert datasets.load("facebook", data_home=data_dir).n_edges == 88_234
    with pytest.raises(ValueError, match=r"is a folder but not an ASU data set folder"):
        datasets.load("./facebook")


def test_registered_data_set_argument_errors(data_dir):
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['seed'\] for data set 'facebook'"):
        datasets.load("facebook", data_home=data_dir, seed=1)
    with pytest.raises(ValueError, match=r"labels cannot be given for the registered data set 'facebook'"):
        datasets.load("facebook", data_home=data_dir, labels={0: 1})


# ---------------------------------------------------------------------- registry and embedded default
def test_registry_entries_are_complete():
    reg = datasets.registry()
    assert set(reg) == {"blogcatalog", "ppi", "facebook", "email-eu-core", "cora", "synthetic-blogcatalog"}
    for name, entry in reg.items():
        assert entry.name == name and entry.citation and entry.description and entry.n_nodes > 0
        if entry.embedded:
            assert not entry.files and not entry.downloads
            continue
        assert entry.files and entry.downloads
        produced = {local for d in entry.downloads for _, local in d.members}
        assert produced == {f.name for f in entry.files}  # every kept file comes from a download
        for f in entry.files:
            assert re.fullmatch("[0-9a-f]{64}", f.sha256) and re.fullmatch("[0-9a-f]{64}", f.content_sha256)
        for d in entry.downloads:
            assert all(u.startswith(("http://", "https://")) for u in d.urls)
    assert datasets.info("BlogCatalog3") is reg["blogcatalog"]
    with pytest.raises(ValueError, match=r"unknown data set 'citeseer'; registered: blogcatalog, ppi"):
        datasets.info("citeseer")


def test_registry_counts_match_loaded_graphs(data_dir):
    for name in ("blogcatalog", "ppi", "facebook", "email-eu-core", "cora"):
        entry, g = datasets.info(name), datasets.load(name, data_home=data_dir)
        assert (entry.n_nodes, entry.n_edges, entry.n_labels) == (g.n_nodes, g.n_edges, g.n_labels)
        assert entry.n_memberships == (g.labels.nnz if g.labels is not None else 0)


def test_synthetic_blogcatalog_default_shape():
    g = datasets.load("synthetic-blogcatalog")
    shape = datasets.generators.BLOGCATALOG_SHAPE
    assert g.name == "synthetic-blogcatalog"
    assert g.n_nodes == shape["n_nodes"] and g.n_labels == shape["n_labels"]
    # exactly m edges are placed, plus at most one per node that would otherwise be isolated
    assert shape["n_edges"] <= g.n_edges <= shape["n_edges"] + 0.05 * shape["n_nodes"]
    assert len(g.isolated_nodes) == 0
    # ~1.4 labels per node: 1 + geometric extra labels, mean 0.404 and sd sqrt(0.404 * 1.404) = 0.75,
    # so over 10,312 nodes the mean has sd 0.0074; 0.05 is > 6 sd
    assert abs(g.labels.nnz / g.n_nodes - shape["n_memberships"] / shape["n_nodes"]) < 0.05
    assert g.degrees.max() > 20 * np.median(g.degrees)  # heavy tail, like BlogCatalog (3992 vs 21)
    # the embedded default is fixed: its seed is part of the definition
    assert inspect.signature(datasets.planted_partition_graph).parameters["seed"].default == 0


def test_synthetic_blogcatalog_small_and_seeded():
    a = datasets.load("synthetic-blogcatalog", n_nodes=400, n_labels=6, mean_degree=10, seed=3)
    b = datasets.load("synthetic-blogcatalog", n_nodes=400, n_labels=6, mean_degree=10, seed=3)
    c = datasets.load("synthetic-blogcatalog", n_nodes=400, n_labels=6, mean_degree=10, seed=4)
    same_graph(a, b)
    assert a.n_nodes == 400 and a.n_labels == 6
    assert not np.array_equal(a.edges(), c.edges())
    with pytest.raises(ValueError, match=r"labels cannot be given for 'synthetic-blogcatalog'"):
        datasets.load("synthetic-blogcatalog", labels=[0] * 10)


# ---------------------------------------------------------------------- generic files
def test_edge_list_with_weights_labels_and_string_classes(tmp_path):
    (tmp_path / "g.edgelist").write_text("% weighted\n10 20 0.5\n20 30 2\n30 10 1.5 # inline comment\n40 50 1\n")
    (tmp_path / "labels.txt").write_text("10 red\n20 red blue\n50 blue\n")
    g = datasets.load(tmp_path / "g.edgelist", labels=tmp_path / "labels.txt")
    assert g.name == "g" and g.is_weighted
    np.testing.assert_array_equal(g.node_ids, [10, 20, 30, 40, 50])
    np.testing.assert_allclose(g.edge_weights(), [0.5, 1.5, 2.0, 1.0])
    assert g.label_names.tolist() == ["blue", "red"]
    assert g.labels.toarray().tolist() == [[0, 1], [1, 1], [0, 0], [0, 0], [1, 0]]


def test_mat_by_path_with_dense_matrices(tmp_path):
    net = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 2.5], [0, 0, 2.5, 0]])
    group = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    scipy.io.savemat(tmp_path / "toy.mat", {"network": net, "group": group})
    g = datasets.load(tmp_path / "toy.mat")
    assert (g.n_nodes, g.n_edges, g.n_labels, g.is_weighted) == (4, 3, 2, True)
    assert g.labels.toarray().tolist() == group.tolist()


pairs = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)).filter(lambda e: e[0] != e[1]),
                 min_size=1, max_size=40)


@given(
    edges=pairs,
    weighted=st.booleans(),
    delimiter=st.sampled_from([" ", "\t", ",", ";", " , ", "  "]),
    newline=st.sampled_from(["\n", "\r\n"]),
    comments=st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["# c", "% c", "", "   "])), max_size=4),
    compress=st.booleans(),
    data=st.data(),
)
def test_random_edge_lists_round_trip(tmp_path_factory, edges, weighted, delimiter, newline, comments, compress, data):
    """Write an edge list in a random dialect, load it, compare with Graph.from_edges on the same arrays."""
    edges = np.array(edges, dtype=np.int64)
    weights = None
    if weighted:
        weights = np.array(data.draw(st.lists(st.floats(0.01, 100.0), min_size=len(edges), max_size=len(edges))))
    lines = []
    for i, (u, v) in enumerate(edges):
        fields = [str(u), str(v)] + ([repr(float(weights[i]))] if weighted else [])
        lines.append(delimiter.join(fields))
    for position, text in sorted(comments, reverse=True):
        lines.insert(min(position, len(lines)), text)
    body = (newline.join(lines) + newline).encode()
    path = tmp_path_factory.mktemp("el") / ("g.txt.gz" if compress else "g.txt")
    path.write_bytes(gzip.compress(body) if compress else body)
    loaded = datasets.load(path)
    expected = Graph.from_edges(edges, weights=weights)  # a repeated edge merged by the one rule of both
    np.testing.assert_array_equal(loaded.node_ids, expected.node_ids)
    np.testing.assert_array_equal(loaded.edges(), expected.edges())
    np.testing.assert_allclose(loaded.edge_weights(), expected.edge_weights(), rtol=1e-12)


@given(rows=st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=4), min_size=1, max_size=8), data=st.data())
def test_fast_and_slow_table_parsers_agree(rows, data):
    """The vectorised parser either declines or returns exactly what the line-by-line parser returns."""
    from lgekit.datasets import _edgelist, _fast_reader

    delimiter = data.draw(st.sampled_from([None, ","]))
    sep = " " if delimiter is None else ","
    raw = "\n".join(sep.join(map(str, r)) for r in rows).encode()
    fast = _fast_reader.fast_table(raw, (2, 3), 2, delimiter)
    try:
        slow = _edgelist._slow_table("t.txt", raw, (2, 3), 2, delimiter, "test")
    except _edgelist.DataFormatError:
        assert fast is None
        return
    if fast is not None:
        np.testing.assert_array_equal(fast[0], slow[0])
        assert fast[1] == slow[1]


# ---------------------------------------------------------------------- command line
def test_cli_list_info(capsys, data_dir, monkeypatch):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"blogcatalog\s+10,312\s+333,983\s+39\s+" + re.escape(str(data_dir / "blogcatalog")), out)
    assert re.search(r"synthetic-blogcatalog .* embedded", out)
    assert main(["datasets", "info", "email-eu-core", "--verify"]) == 0
    out = capsys.readouterr().out
    assert "https://snap.stanford.edu/data/email-Eu-core.txt.gz" in out and "Leskovec" in out
    assert "email-Eu-core.txt: OK" in out


def test_cli_errors(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    assert main(["datasets", "info", "citeseer"]) == 2
    assert "lgekit datasets: error: unknown data set 'citeseer'" in capsys.readouterr().err
    assert main(["datasets", "fetch", "synthetic-blogcatalog"]) == 2
    assert "generated on the fly" in capsys.readouterr().err
    assert main(["datasets", "list"]) == 0
    assert "no (lgekit datasets fetch ppi)" in capsys.readouterr().out


def test_read_edge_list_and_label_file(tmp_path):
    (tmp_path / "e.csv").write_text("1;2;0.5\n2;3;1\n")
    edges, weights = datasets.read_edge_list(tmp_path / "e.csv")
    assert edges.tolist() == [[1, 2], [2, 3]] and weights.tolist() == [0.5, 1.0]
    (tmp_path / "l.txt").write_text("1 5\n2 6\n2 7\n")
    nodes, labels, _ = datasets.read_label_file(tmp_path / "l.txt")
    assert nodes.tolist() == [1, 2, 2] and labels.tolist() == [5, 6, 7]


# ---------------------------------------------------------------------- issue 16 item 2: any edge list, everywhere
@pytest.fixture
def lesmis_tsv(tmp_path):
    """networkx's Les Misérables graph as a spreadsheet would export it: a header, names, weights, tabs."""
    import networkx as nx

    g = nx.les_miserables_graph()
    path = tmp_path / "lesmis.tsv"
    path.write_text("source\ttarget\tweight\n"
                    + "".join(f"{u}\t{v}\t{d['weight']:g}\n" for u, v, d in g.edges(data=True)))
    return path, g


def test_string_id_edge_list_loads_like_from_networkx(lesmis_tsv):
    path, g = lesmis_tsv
    loaded = datasets.load(path)
    assert loaded.name == "lesmis" and loaded.is_weighted
    assert loaded.node_ids.tolist() == sorted(g.nodes())  # sorted, as Graph.from_edges numbers string ids
    expected = Graph.from_edges([(u, v, float(d["weight"])) for u, v, d in g.edges(data=True)])
    same_graph(loaded, expected)
    with pytest.raises(DataFormatError, match=r"lesmis.tsv, line 2: field 1, 'Napoleon', is not an integer"):
        datasets.load(path, id_type="int")


def test_string_id_edge_list_in_commands(lesmis_tsv, tmp_path, capsys):
    path, g = lesmis_tsv
    assert main(["demo", "--dataset", str(path), "--dim", "4"]) == 0
    assert "test average precision" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    emb = tmp_path / "emb.txt"
    emb.write_text(f"{g.number_of_nodes()} 3\n" + "".join(
        f"{v} {' '.join(f'{x:.4f}' for x in rng.normal(size=3))}\n" for v in g.nodes()))
    assert main(["evaluate", str(emb), str(path), "--json"]) == 0, capsys.readouterr().err
    assert '"n_nodes": 77' in capsys.readouterr().out


def test_demo_help_shows_a_single_percent_sign(capsys):
    """issue 16 item 8: the description printed "20%%"."""
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    out = capsys.readouterr().out
    assert "(20% held out" in " ".join(out.split()) and "%%" not in out


# ---------------------------------------------------------------------- one resolution rule (resolve)
def test_resolve_names_first_then_paths(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "facebook").write_text("0 1\n")
    src = datasets.resolve("Facebook")
    assert (src.kind, src.name, src.path, src.files) == ("registered", "facebook", None, ())
    assert src.content_sha256() is None
    for given in ("./facebook", Path("facebook"), tmp_path / "facebook"):
        src = datasets.resolve(given)
        assert (src.kind, src.name, src.path, src.format) == ("path", "facebook", tmp_path / "facebook", "edgelist")
    assert datasets.resolve("synthetic").embedded
    with pytest.raises(FileNotFoundError, match=r"'nope' is neither a registered data set"):
        datasets.resolve("nope")


def test_resolve_content_hash_follows_every_file_of_a_folder(tmp_path):
    folder = tmp_path / "asu"
    folder.mkdir()
    for name, text in (("nodes.csv", "1\n2\n3\n"), ("edges.csv", "1,2\n2,3\n"), ("groups.csv", "1\n"),
                       ("group-edges.csv", "1,1\n")):
        (folder / name).write_text(text)
    src = datasets.resolve(folder)
    assert src.format == "asu" and [p.name for p in src.files] == ["nodes.csv", "edges.csv", "groups.csv",
                                                                   "group-edges.csv"]
    before = src.content_sha256()
    (folder / "group-edges.csv").write_text("1,1\n2,1\n")
    assert datasets.resolve(folder).content_sha256() != before
    single = datasets.resolve(folder / "edges.csv")
    assert single.content_sha256() == hashlib.sha256(b"1,2\n2,3\n").hexdigest()
    assert datasets.load(folder).name == src.name == "asu"


def test_load_or_synthetic_gives_the_real_graph_when_its_files_are_here(data_dir):
    graph, note = datasets.load_or_synthetic("email-eu-core", n_nodes=50, seed=0, data_home=data_dir)
    assert note is None and graph.name == "email-eu-core" and graph.n_nodes > 50


def test_load_or_synthetic_stands_in_offline_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path))
    graph, note = datasets.load_or_synthetic("blogcatalog", n_nodes=120, seed=3, data_home=tmp_path)
    assert graph.name == "synthetic-blogcatalog" and graph.n_nodes == 120
    assert "blogcatalog is not available" in note and "lgekit datasets fetch blogcatalog" in note
    again, _ = datasets.load_or_synthetic("BlogCatalog", n_nodes=120, seed=3, data_home=tmp_path)
    assert again.n_edges == graph.n_edges                       # seeded
    with pytest.raises(ValueError, match="registered data set"):
        datasets.load_or_synthetic("no-such-graph")


# ---------------------------------------------------------------------- Cora (issue 34)
def test_cora_reads_each_line_as_citing_to_cited(data_dir):
    """LINQS writes ``<cited> <citing>``: the arc is the second column to the first.  The wrong version
    (the file read as an ordinary edge list, first -> second) has every arc reversed."""
    g = datasets.load("cora", directed=True, data_home=data_dir)
    assert (g.n_nodes, g.n_edges, g.kind) == (2708, 5429, "directed")
    rows = np.loadtxt(data_dir / "cora" / "cora.cites", dtype=np.int64)
    index = {int(i): k for k, i in enumerate(g.node_ids.tolist())}
    cited, citing = (np.array([index[int(i)] for i in rows[:, c]]) for c in (0, 1))
    assert g.has_edges(np.c_[citing, cited]).all()
    read_as_edge_list = datasets.load(data_dir / "cora" / "cora.cites", directed=True)
    assert read_as_edge_list.n_edges == 5429
    wrong = np.c_[np.searchsorted(read_as_edge_list.node_ids, rows[:, 0]),
                  np.searchsorted(read_as_edge_list.node_ids, rows[:, 1])]
    # the plain edge list holds cited -> citing; of those only the reciprocated pairs are Cora arcs
    assert g.has_edges(wrong).mean() < 0.1
    by_default = datasets.load("cora", data_home=data_dir)            # the registry says: directed (issue 43)
    assert (by_default.kind, by_default.n_edges) == ("directed", 5429) == ("directed", datasets.info("cora").n_edges)
    assert datasets.load("cora", data_home=data_dir, directed=False).n_edges == 5278


def test_cora_offline_says_how_to_place_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    with pytest.raises(FileNotFoundError) as info:
        datasets.load("cora", data_home=tmp_path / "home")
    message = str(info.value)
    assert "https://linqs-data.soe.ucsc.edu/public/lbc/cora.tgz, extract it (tar -xzf) and copy cora.cites" in message
    assert f"place cora.cites in {tmp_path / 'home' / 'cora'}" in message
