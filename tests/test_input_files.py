"""Issue 33, the inputs: every file lgekit reads is a regular file, read with a bound (``lgekit/_input_file.py``).

Items 5 (a registered data set's local copy is checked against the registry),
7 (model files that are devices or FIFOs), 8 (store cells that are), 9
(memory far beyond the input: NUL files, gzip, .mat), 10 (quoted fields of a
tab-separated file) and 14's small ones.  Memory is bounded through
``$LGEKIT_AVAILABLE_MEMORY`` and measured with :mod:`tracemalloc`, never by
allocating gigabytes; a call that might block runs in a daemon thread with a
deadline.
"""
import bz2
import gzip
import hashlib
import io
import logging
import lzma
import os
import re
import shutil
from pathlib import Path
import time
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from lgekit import Graph, GraphWarning, _input_file, datasets
from lgekit.cli import main
from lgekit.datasets import DataFormatError
from lgekit.datasets import _fetch
from lgekit.datasets._loaders import read_mat
from lgekit.datasets._registry import DataFile
from lgekit.experiments import store as store_module
from lgekit.experiments.spec import cell_key, dataset_spec
from lgekit.experiments.store import ResultsStore
from lgekit.models import LogisticEmbedding
from blocking import ends_within

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="os.mkfifo needs a POSIX system")




def _peak_bytes(call):
    """``(outcome, peak bytes traced)`` of ``call()`` (NumPy's buffers are traced too)."""
    tracemalloc.start()
    try:
        try:
            outcome = {"value": call()}
        except Exception as exc:  # noqa: BLE001 - handed back to the test
            outcome = {"error": exc}
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _devices():
    return [d for d in ("/dev/zero", "/dev/urandom") if os.path.exists(d)]


@pytest.fixture
def model_file(tmp_path):
    edges = [(i, (i + 1) % 30) for i in range(30)] + [(i, (i + 7) % 30) for i in range(30)]
    model = LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(Graph.from_edges(edges))
    return model.save(tmp_path / "m.npz")


# ---------------------------------------------------------------------- item 7: model files
@pytest.mark.parametrize("device", _devices())
def test_model_load_refuses_a_device_at_once(device):
    outcome = ends_within(5, lambda: LogisticEmbedding.load(device))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert f"{device}: is a character device, not a regular file" in str(outcome["error"])


@needs_fifo
def test_model_load_refuses_a_fifo_at_once(tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    outcome = ends_within(5, lambda: LogisticEmbedding.load(fifo))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert "is a FIFO (named pipe), not a regular file" in str(outcome["error"])


@needs_fifo
def test_a_fifo_swapped_in_after_the_path_check_is_refused_on_the_descriptor(tmp_path, monkeypatch):
    fifo = tmp_path / "cell.json"
    os.mkfifo(fifo)
    # the path check passes (as for a regular file that is replaced by a FIFO just after it): the check of the
    # opened descriptor must still refuse it, without waiting for a writer
    monkeypatch.setattr(_input_file, "check_regular_file", lambda path: path)
    outcome = ends_within(5, lambda: _input_file.read_input_bytes(fifo))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert "is a FIFO (named pipe), not a regular file" in str(outcome["error"])


@pytest.mark.parametrize("kind", ["fifo", "device", "missing"])
def test_evaluate_says_not_a_regular_file_rather_than_does_not_exist(tmp_path, capsys, kind):
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {(i + 1) % 20}\n" for i in range(20)))
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("os.mkfifo needs a POSIX system")
        path = tmp_path / "emb.npz"
        os.mkfifo(path)
    elif kind == "device":
        if not _devices():
            pytest.skip("no /dev/zero")
        path = _devices()[0]
    else:
        path = tmp_path / "nothing.npz"
    outcome = ends_within(10, lambda: main(["evaluate", str(path), str(graph)]))
    assert outcome.get("value") == 2, outcome
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    if kind == "missing":   # the wrong message is still right where it is true
        assert "does not exist" in err
    else:
        assert "not a regular file" in err and "does not exist" not in err


def test_model_file_arrays_are_bounded_by_the_memory_left(model_file, monkeypatch):
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1K")
    with pytest.raises(ValueError, match=r"m\.npz is not a readable \.npz model file .*its arrays declare .* more "
                                         r"than the memory left: .*\$LGEKIT_AVAILABLE_MEMORY"):
        LogisticEmbedding.load(model_file)
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1G")   # the same file, memory enough: it loads
    assert LogisticEmbedding.load(model_file).embedding_.shape == (30, 4)


# ---------------------------------------------------------------------- item 8: store cells
def _record(key):
    return {"key": key, "status": "ok", "config": {"model": "M", "params": {}}, "history": [{"epoch": 0}],
            "metrics": {"test_ap": 0.5}, "timings": {"total": 1.0}}


@pytest.mark.parametrize("damage", ["fifo", "link to /dev/zero", "oversized"])
def test_a_cell_that_is_a_fifo_a_device_or_huge_is_damaged_not_read(tmp_path, monkeypatch, caplog, damage):
    store = ResultsStore(tmp_path / "out")
    key = cell_key({"i": 1})
    store.put(_record(key))
    cell = store.cells_dir / f"{key}.json"
    assert store.get(key)["key"] == key
    if damage == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("os.mkfifo needs a POSIX system")
        cell.unlink()
        os.mkfifo(cell)
    elif damage == "link to /dev/zero":
        if not _devices():
            pytest.skip("no /dev/zero")
        cell.unlink()
        cell.symlink_to("/dev/zero")
    else:
        monkeypatch.setattr(store_module, "MAX_CELL_BYTES", cell.stat().st_size - 1)
    with caplog.at_level(logging.WARNING, logger="lgekit.experiments.store"):
        outcome = ends_within(5, lambda: (store.get(key), store.finished_keys()))
    assert outcome.get("value") == (None, set()), outcome
    assert re.search(r"damaged cell file .*: the cell will be recomputed", caplog.text)
    assert ("not a regular file" if damage != "oversized" else "is the most a cell record may hold") in caplog.text
    if damage != "oversized":
        store.put(_record(key))   # recomputing replaces the entry itself (never writes through it)
        assert cell.is_file() and not cell.is_symlink() and store.get(key)["key"] == key


# ---------------------------------------------------------------------- item 9: memory
def test_a_sparse_file_of_nul_bytes_is_refused_from_its_first_block(tmp_path, monkeypatch):
    nul = tmp_path / "zeros.txt"
    with open(nul, "wb") as fh:
        fh.truncate(64 * 2**20)   # sparse: no disk used
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1T")   # the memory allows it: the content refuses it
    start = time.perf_counter()
    outcome, peak = _peak_bytes(lambda: datasets.load(nul))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert re.search(r"zeros\.txt, line 1: control character U\+0000 at column 1: is this a text file\?",
                     str(outcome["error"]))
    assert peak < 8 * 2**20, f"{peak:,} bytes traced: the file was read whole"
    assert time.perf_counter() - start < 5


def test_a_text_file_beyond_the_memory_is_refused_from_its_size(tmp_path, monkeypatch):
    f = tmp_path / "g.txt"
    f.write_text("".join(f"{i} {i + 1}\n" for i in range(100_000)))   # ~1.2 MB
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "8M")   # 8 MiB / 32 bytes per byte: 256 KiB of text
    outcome, peak = _peak_bytes(lambda: datasets.load(f))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert re.search(r"g\.txt: the file holds 1\.\d MiB .* more than 256\.0 KiB .*: reading it needs about 32 bytes "
                     r"of memory per byte of the file, and 8\.0 MiB is available \(\$LGEKIT_AVAILABLE_MEMORY",
                     str(outcome["error"]))
    assert peak < 2**20
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1G")
    assert datasets.load(f).n_edges == 100_000


def test_the_careful_reader_is_bounded_by_its_own_cost(tmp_path, monkeypatch):
    quoted, plain = tmp_path / "q.txt", tmp_path / "p.txt"
    quoted.write_text("".join(f'"{i}" "{i + 1}"\n' for i in range(10_000)))   # quotes: the line-by-line reader
    plain.write_bytes(b" " * (quoted.stat().st_size - 4) + b"1 2\n")          # as large, for the fast reader
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", str(48 * quoted.stat().st_size))  # 32x fits, 64x does not
    assert datasets.load(plain).n_edges == 1
    with pytest.raises(DataFormatError, match=r"q\.txt: the text \([0-9,]+ bytes\) needs the careful line-by-line "
                                              r"reader .* which would not fit: reading it needs about 64 bytes"):
        datasets.load(quoted)


def test_a_gzip_file_is_unpacked_only_as_far_as_the_memory_allows(tmp_path, monkeypatch):
    f = tmp_path / "ones.txt.gz"
    f.write_bytes(gzip.compress(b"1 2\n" * (8 * 2**20), compresslevel=1))   # 32 MiB unpacked, far under 4 GiB
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "64M")   # 64 MiB / 32: 2 MiB of text
    outcome, peak = _peak_bytes(lambda: datasets.load(f))
    assert isinstance(outcome.get("error"), DataFormatError), outcome
    assert re.search(r"the gzip file decompresses to more than 2\.0 MiB \(2,097,152 bytes\), refused after that "
                     r"much: reading it needs about 32 bytes", str(outcome["error"]))
    assert peak < 8 * 2**20, f"{peak:,} bytes traced"


def test_a_mat_file_reads_only_the_variables_it_uses(tmp_path, monkeypatch):
    f = tmp_path / "g.mat"
    ring = sp.csr_matrix(sp.diags([1.0, 1.0], [1, -1], shape=(50, 50)))
    # 64 MiB of zeros beside the graph, compressed to a few hundred kB
    for extra in ("before", "after"):   # scipy stops once it has read what it was asked for: order matters to it
        graph = {"network": ring, "group": sp.csr_matrix(np.eye(50))}
        zeros = {"extra": np.zeros((2048, 4096))}
        contents = {**zeros, **graph} if extra == "before" else {**graph, **zeros}
        scipy.io.savemat(f, contents, do_compression=True)
        assert f.stat().st_size < 2**20
        outcome, peak = _peak_bytes(lambda: datasets.load(f))
        assert outcome["value"].n_edges == 49 and outcome["value"].n_labels == 50
        assert peak < 16 * 2**20, f"{peak:,} bytes traced: the unused variable was read"
    with pytest.raises(DataFormatError, match=r"no variable 'adjacency' .*; variables found: \['extra', 'group', "
                                              r"'network'\]"):
        read_mat(f, network_key="adjacency")
    # a dense variable that is used is bounded by its declared shape, before it is read
    g = tmp_path / "dense.mat"
    scipy.io.savemat(g, {"network": np.zeros((400, 400))}, do_compression=True)
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1M")
    with pytest.raises(DataFormatError, match=r"dense\.mat: variable 'network' declares a 400x400 double matrix "
                                              r"\(1\.2 MiB\), more than the memory left: .*1\.0 MiB is available"):
        datasets.load(g)
    # a sparse one by its nzmax (the entries it declares)
    h = tmp_path / "sparse.mat"
    band = sp.diags([1.0] * 61, range(-30, 31), shape=(3000, 3000))   # regular: compresses to a few kB
    scipy.io.savemat(h, {"network": sp.csr_matrix(band)}, do_compression=True)
    with pytest.raises(DataFormatError, match=r"sparse\.mat: variable 'network' declares a 3000x3000 sparse matrix of "
                                              r"182,070 entries \(2\.\d MiB\), more than the memory left"):
        datasets.load(h)
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1G")
    assert read_mat(h)[0].nnz == 182_070   # with the memory for it, the same file reads


# ---------------------------------------------------------------------- item 10: quoted TSV
def test_quoted_fields_of_a_tab_separated_file_are_read(tmp_path):
    f = tmp_path / "r.tsv"
    f.write_text('"source"\t"target"\t"weight"\n"alice"\t"bob"\t2\n"bob smith"\t"carol"\t1\n')  # R's write.table
    edges, weights = datasets.read_edge_list(f)
    assert edges.tolist() == [["alice", "bob"], ["bob smith", "carol"]] and weights.tolist() == [2.0, 1.0]
    assert datasets.read_edge_list(f, delimiter="\t")[0].tolist() == edges.tolist()
    # an empty field between quoted ones is an empty field (said so), not "text after the closing quote"
    g = tmp_path / "gap.tsv"
    g.write_text('"a"\t\t"b"\n"c"\t\t"d"\n')
    with pytest.raises(DataFormatError, match=r"gap\.tsv, line 1: field 2 is empty"):
        datasets.read_edge_list(g)


# ---------------------------------------------------------------------- item 14: the small ones
@pytest.mark.parametrize("name, pack, tool", [
    ("g.txt.bz2", bz2.compress, "bzip2"),
    ("g.txt.xz", lzma.compress, "xz"),
    ("g.zip", None, "zip"),
])
def test_other_compressions_are_named(tmp_path, name, pack, tool):
    text = b"1 2\n2 3\n"
    f = tmp_path / name
    if pack is None:
        with zipfile.ZipFile(f, "w") as archive:
            archive.writestr("g.txt", text)
    else:
        f.write_bytes(pack(text))
    with pytest.raises(DataFormatError, match=rf"a {tool}-compressed file \(by its first bytes\); lgekit reads plain "
                                              r"text and gzip \(\.gz\) only: unpack it first"):
        datasets.load(f)


def test_weights_that_add_up_past_the_largest_float_name_the_file_and_lines(tmp_path):
    f = tmp_path / "w.txt"
    f.write_text("1 2 1e308\n2 3 1\n2 1 1e308\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # no overflow warning on the way
        with pytest.raises(DataFormatError, match=r"w\.txt, line 1: edge \(1, 2\) is listed 2 times \(lines 1, 3\) and "
                                                  r"its weights add up to more than the largest float"):
            datasets.load(f)
    f.write_text("1 2 1e308\n2 3 1e308\n")   # large, but no edge's sum overflows: read as it is
    assert datasets.load(f).n_edges == 2


@pytest.mark.parametrize("argv", [["fit", "g.txt", "--model", "logistic", "--out", ""],
                                  ["reproduce", "1", "--out", " "], ["theory", "capacity", "--out", ""]])
def test_an_empty_out_is_refused_in_one_line(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.txt").write_text("1 2\n2 3\n3 1\n3 4\n")
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "argument --out: expected a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]   # nothing written in the current folder


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "soon"])
def test_scheduler_timeout_must_be_positive(capsys, value):
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", "1", f"--scheduler-timeout={value}"])
    assert exit_.value.code == 2
    assert "argument --scheduler-timeout: expected a positive" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["fit"], ["fit", "g.txt", "--model", "nope", "--out", "o"],
                                  ["reproduce", "--jobs", "0"], ["datasets", "info"], ["evaluate", "a"],
                                  ["nosuchcommand"], ["fit", "--bogus"]])
def test_command_line_mistakes_are_one_line(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert re.match(r"lgekit( \w+)*: error: .* \(`lgekit( \w+)* --help` lists the options\)$", err.strip())


def test_lgekit_data_replaces_the_checkout_data_folder_as_the_readme_says(tmp_path, monkeypatch):
    """README: $LGEKIT_DATA when set, else the checkout's shared/data, then the cache.  The wrong reading
    (the checkout searched after $LGEKIT_DATA) would find facebook in the checkout below."""
    env, checkout = tmp_path / "env", tmp_path / "shared-data"
    (checkout / "facebook").mkdir(parents=True)
    (checkout / "facebook" / "facebook_combined.txt").write_text("0 1\n")
    env.mkdir()
    monkeypatch.setattr(_fetch, "_checkout_data_dir", lambda: checkout)
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LGEKIT_DATA", str(env))
    assert datasets.search_path() == [env, tmp_path / "cache"]
    assert datasets.locate("facebook") is None           # an empty $LGEKIT_DATA means: not here
    monkeypatch.delenv("LGEKIT_DATA")
    assert datasets.search_path() == [checkout, tmp_path / "cache"]
    assert datasets.locate("facebook") == checkout / "facebook"
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "`$LGEKIT_DATA` when it is\nset, else in `shared/data`" in readme


def test_a_line_that_reads_two_ways_is_refused(tmp_path):
    f = tmp_path / "n.txt"
    f.write_text("n;1 n;2\nn;2 n;3\n")
    with pytest.raises(DataFormatError, match=r"n\.txt, line 1: 'n;1 n;2' reads two ways: ';'-separated, the fields "
                                              r"\['n', '1 n', '2'\], or whitespace-separated, the fields "
                                              r"\['n;1', 'n;2'\]"):
        datasets.read_edge_list(f)
    assert datasets.read_edge_list(f, delimiter="whitespace")[0].tolist() == [["n;1", "n;2"], ["n;2", "n;3"]]
    # the lines a sniffed separator reads one way only are read as before
    for text, edges in (("1, 2\n2, 3\n", [[1, 2], [2, 3]]),
                        ("Jean Valjean,Myriel\nMyriel,Napoleon\n",
                         [["Jean Valjean", "Myriel"], ["Myriel", "Napoleon"]])):
        f.write_text(text)
        assert datasets.read_edge_list(f)[0].tolist() == edges


@pytest.mark.parametrize("text, header, warned", [
    ("to from\n1 2\n2 3\n", None, "names the first column as the edges' target"),
    ("target,source\n1,2\n2,3\n", True, "names the first column as the edges' target"),
    ("alice bob\n1 2\n2 3\n", None, "was taken as a header and skipped"),
    ("source target\n1 2\n2 3\n", None, None),
    ("alice bob\n1 2\n2 3\n", True, None),
])
def test_a_doubtful_header_warns(tmp_path, text, header, warned):
    f = tmp_path / "h.txt"
    f.write_text(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        edges, _ = datasets.read_edge_list(f, header=header)
    assert edges.tolist() == [[1, 2], [2, 3]]
    shown = [str(w.message) for w in caught if issubclass(w.category, GraphWarning)]
    if warned is None:
        assert not shown
    else:
        assert len(shown) == 1 and re.search(r"h\.txt, line 1: .* " + re.escape(warned), shown[0])


# ---------------------------------------------------------------------- item 5: registered data sets
def _spec_for(content, name="edges.txt"):
    return DataFile(name, hashlib.sha256(content).hexdigest(), "", "table:2")


def test_a_copy_is_checked_again_when_it_changes(tmp_path):
    f = tmp_path / "edges.txt"
    f.write_bytes(b"1 2\n3 4\n")
    spec = _spec_for(b"1 2\n3 4\n")
    assert _fetch._check_file(f, spec) is None
    f.write_bytes(b"1 2\n3 5\n")   # the same size: the memo is keyed by more than the size
    os.utime(f, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert "SHA-256" in _fetch._check_file(f, spec)
    g = tmp_path / "edges2.txt.gz"   # a gzipped copy is judged by what it unpacks to
    g.write_bytes(gzip.compress(b"1 2\n3 4\n"))
    assert _fetch._check_file(g, spec) is None


@pytest.fixture
def crafted_facebook(tmp_path, monkeypatch):
    home = tmp_path / "data"
    (home / "facebook").mkdir(parents=True)
    (home / "facebook" / "facebook_combined.txt").write_text("0 1\n1 2\n2 3\n3 4\n4 0\n")
    monkeypatch.setenv("LGEKIT_DATA", str(home))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_fetch, "_checkout_data_dir", lambda: None)
    return home / "facebook"


def test_datasets_list_does_not_show_a_crafted_file_as_found(crafted_facebook, capsys):
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("facebook "))
    assert row.endswith("modified") and f"no: {crafted_facebook} is a modified copy (facebook_combined.txt)" in row
    assert "lgekit refuses to read it under the registered name" in out


def test_a_modified_copy_is_refused_by_load_and_by_the_plan(crafted_facebook, tmp_path, capsys):
    message = (r"facebook_combined\.txt: this copy of the registered data set 'facebook' is not the publisher's: "
               r"SHA-256 [0-9a-f]{64} != expected 6d0f316c[0-9a-f]+, .* give their path instead")
    with pytest.raises(DataFormatError, match=message):
        datasets.load("facebook")
    with pytest.raises(DataFormatError, match=message):
        dataset_spec("facebook")
    # by path the same file is a data set of its own, keyed by its content
    by_path = dataset_spec(str(crafted_facebook / "facebook_combined.txt"))
    assert by_path["sha256"] == hashlib.sha256(b"0 1\n1 2\n2 3\n3 4\n4 0\n").hexdigest()
    # lgekit reproduce refuses it before a cell is looked up or written
    assert main(["reproduce", "5", "--dataset", "facebook", "--out", str(tmp_path / "r")]) == 2
    assert "is not the publisher's" in capsys.readouterr().err
    assert not (tmp_path / "r" / "cells").exists() or not any((tmp_path / "r" / "cells").iterdir())


def test_the_publishers_files_are_accepted_as_copied_or_gzipped(data_dir, tmp_path, monkeypatch):
    home = tmp_path / "data"
    shutil.copytree(data_dir / "email-eu-core", home / "email-eu-core")
    path = home / "email-eu-core" / "email-Eu-core.txt"
    path.with_name(path.name + ".gz").write_bytes(gzip.compress(path.read_bytes()))
    path.unlink()
    monkeypatch.setenv("LGEKIT_DATA", str(home))
    assert datasets.load("email-eu-core").n_edges == 16_064
    # the edit: the first 5,000 lines
    lines = io.BytesIO(gzip.decompress(path.with_name(path.name + ".gz").read_bytes())).readlines()
    path.with_name(path.name + ".gz").unlink()
    path.write_bytes(b"".join(lines[:5000]))
    with pytest.raises(DataFormatError, match="is not the publisher's"):
        datasets.load("email-eu-core")
