"""lgekit.datasets.fetch against a local HTTP server on 127.0.0.1 (never the internet)."""
import dataclasses
import functools
import gzip
import hashlib
import http.server
import io
import re
import socket
import tarfile
import threading
import urllib.error
import zipfile

import numpy as np
import pytest

from lgekit import datasets
from lgekit.cli import main
from lgekit.datasets import ChecksumError, DownloadError, _fetch, _registry
from lgekit.datasets._registry import DataFile, DatasetInfo, Download


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        super().do_GET()


@pytest.fixture
def server(tmp_path):
    """Serve tmp_path/www on 127.0.0.1; yields (folder, base URL, list of requested paths)."""
    root = tmp_path / "www"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(root)))
    httpd.requests = []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}", httpd.requests
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def isolated_homes(tmp_path, monkeypatch):
    """No real mirror or cache is visible: LGEKIT_DATA and LGEKIT_CACHE point at empty folders."""
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "mirror", tmp_path / "cache"


def sha(data):
    return hashlib.sha256(data).hexdigest()


def register(monkeypatch, entry):
    monkeypatch.setitem(_registry._BY_NAME, entry.name, entry)
    return entry


EDGES = b"0 1\n1 2\n2 0\n2 3\n"
LABELS = b"0 a\n1 b\n"
MAT_BYTES = b"pretend this is a .mat file\n"


def toy_entry(base, **urls):
    """A three-download data set: a gzipped edge list, a zip with a nested folder, a plain file."""
    return DatasetInfo(
        name="toy", title="toy", description="toy data set", citation="nobody", homepage="", n_nodes=4, n_edges=4,
        n_labels=2, n_memberships=2, multilabel=False,
        files=(DataFile("edges.txt", sha(EDGES), "", "table:2"), DataFile("labels.txt", sha(LABELS), "", "table:2"),
               DataFile("blob.mat", sha(MAT_BYTES), "", "mat")),
        downloads=(
            Download(urls=tuple(urls.get("edges", [f"{base}/edges.txt.gz"])), archive="gz",
                     members=(("edges.txt", "edges.txt"),)),
            Download(urls=(f"{base}/toy.zip",), archive="zip", members=(("labels.txt", "labels.txt"),)),
            Download(urls=(f"{base}/blob.mat",), archive=None, members=(("blob.mat", "blob.mat"),)),
        ),
    )


def publish_toy(root, edges=EDGES):
    (root / "edges.txt.gz").write_bytes(gzip.compress(edges))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("toy-dataset/readme.txt", "hello")
        archive.writestr("toy-dataset/data/labels.txt", LABELS)
    (root / "toy.zip").write_bytes(buffer.getvalue())
    (root / "blob.mat").write_bytes(MAT_BYTES)


def leftovers(folder):
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_fetch_success_and_no_second_download(server, isolated_homes, monkeypatch):
    root, base, requests = server
    _, cache = isolated_homes
    publish_toy(root)
    register(monkeypatch, toy_entry(base))
    folder = datasets.fetch("toy", verbose=False)
    assert folder == cache / "toy"
    assert (folder / "edges.txt").read_bytes() == EDGES
    assert (folder / "labels.txt").read_bytes() == LABELS
    assert (folder / "blob.mat").read_bytes() == MAT_BYTES
    assert leftovers(folder) == ["blob.mat", "edges.txt", "labels.txt"]  # no staging files, no archives
    assert datasets.locate("toy") == folder
    assert len(requests) == 3
    # already there: nothing is downloaded again, unless forced
    assert datasets.fetch("toy") == folder and len(requests) == 3
    datasets.fetch("toy", force=True)
    assert len(requests) == 6
    g = datasets.load(folder / "edges.txt")
    assert (g.n_nodes, g.n_edges) == (4, 4)


def test_fetch_into_data_home(server, isolated_homes, monkeypatch, tmp_path):
    root, base, _ = server
    publish_toy(root)
    register(monkeypatch, toy_entry(base))
    folder = datasets.fetch("toy", data_home=tmp_path / "elsewhere")
    assert folder == tmp_path / "elsewhere" / "toy" and (folder / "edges.txt").exists()
    assert not (isolated_homes[1] / "toy").exists()


def test_checksum_mismatch_leaves_nothing_behind(server, isolated_homes, monkeypatch):
    root, base, _ = server
    _, cache = isolated_homes
    publish_toy(root, edges=EDGES + b"3 0\n")  # the publisher's file changed
    register(monkeypatch, toy_entry(base))
    with pytest.raises(ChecksumError, match=r"(?s)edges.txt has the wrong content; tried:.*edges.txt.gz: edges.txt: SHA-256 [0-9a-f]{64} != expected " + sha(EDGES)):
        datasets.fetch("toy")
    assert leftovers(cache) == []  # not even the other, correct, files of the data set
    assert datasets.locate("toy") is None


def test_checksum_mismatch_in_a_later_download_keeps_nothing(server, isolated_homes, monkeypatch):
    root, base, _ = server
    _, cache = isolated_homes
    publish_toy(root)
    (root / "blob.mat").write_bytes(b"tampered")
    register(monkeypatch, toy_entry(base))
    with pytest.raises(ChecksumError, match=r"blob.mat has the wrong content"):
        datasets.fetch("toy")
    assert leftovers(cache) == []


def test_http_404_names_url_file_and_manual_steps(server, isolated_homes, monkeypatch):
    root, base, _ = server
    _, cache = isolated_homes
    publish_toy(root)
    (root / "edges.txt.gz").unlink()
    register(monkeypatch, toy_entry(base))
    with pytest.raises(DownloadError) as info:
        datasets.fetch("toy")
    message = str(info.value)
    assert not isinstance(info.value, ChecksumError)
    assert f"{base}/edges.txt.gz: HTTP 404" in message
    assert "data set 'toy': edges.txt could not be downloaded" in message
    assert f"download {base}/edges.txt.gz, gunzip it to edges.txt" in message
    assert re.search(r"place edges.txt, labels.txt, blob.mat in " + re.escape(str(cache / "toy")), message)
    assert "LGEKIT_DATA" in message
    assert leftovers(cache) == []


def test_connection_refused(isolated_homes, monkeypatch):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/edges.txt.gz"
    entry = toy_entry(f"http://127.0.0.1:{port}")
    register(monkeypatch, entry)
    with pytest.raises(DownloadError, match=re.escape(url) + r": .*[Cc]onnection refused"):
        datasets.fetch("toy", timeout=5)
    assert leftovers(isolated_homes[1]) == []


def test_mirror_is_tried_after_a_failure(server, isolated_homes, monkeypatch):
    root, base, requests = server
    publish_toy(root)
    register(monkeypatch, toy_entry(base, edges=[f"{base}/gone/edges.txt.gz", f"{base}/edges.txt.gz"]))
    folder = datasets.fetch("toy")
    assert (folder / "edges.txt").read_bytes() == EDGES
    assert requests[:2] == ["/gone/edges.txt.gz", "/edges.txt.gz"]


def test_corrupt_archive_is_a_checksum_error(server, isolated_homes, monkeypatch):
    root, base, _ = server
    publish_toy(root)
    (root / "toy.zip").write_bytes(b"PK\x03\x04 definitely not a zip")
    register(monkeypatch, toy_entry(base))
    with pytest.raises(ChecksumError, match=r"toy.zip: the download is not a valid zip archive"):
        datasets.fetch("toy")


def test_cli_fetch(server, isolated_homes, monkeypatch, tmp_path, capsys):
    root, base, _ = server
    publish_toy(root)
    register(monkeypatch, toy_entry(base))
    assert main(["datasets", "fetch", "toy", "--data-home", str(tmp_path / "dh")]) == 0
    assert str(tmp_path / "dh" / "toy") in capsys.readouterr().out
    (root / "edges.txt.gz").unlink()
    assert main(["datasets", "fetch", "toy", "--force", "--data-home", str(tmp_path / "dh2")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lgekit datasets: error: data set 'toy'") and "HTTP 404" in err


def test_fetch_rejects_embedded_and_unknown():
    with pytest.raises(ValueError, match=r"'synthetic-blogcatalog' is generated on the fly"):
        datasets.fetch("synthetic-blogcatalog")
    with pytest.raises(ValueError, match=r"unknown data set 'citeseer'"):
        datasets.fetch("citeseer")


# ---------------------------------------------------------------------- the real entries, publisher formats
def serve_as(monkeypatch, name, base, paths):
    """Point a registered entry's downloads at the local server (same archive types and members)."""
    entry = datasets.info(name)
    downloads = tuple(dataclasses.replace(d, urls=(f"{base}/{p}",)) for d, p in zip(entry.downloads, paths))
    return register(monkeypatch, dataclasses.replace(entry, downloads=downloads))


def test_facebook_as_snap_serves_it(server, isolated_homes, monkeypatch, data_dir):
    """SNAP's gzip has no comment line, so its bytes differ from the mirror's: the content digest accepts it."""
    root, base, _ = server
    raw = (data_dir / "facebook" / "facebook_combined.txt").read_bytes()
    snap = raw.split(b"\n", 1)[1]
    assert sha(snap) != datasets.info("facebook").files[0].sha256
    (root / "facebook_combined.txt.gz").write_bytes(gzip.compress(snap))
    serve_as(monkeypatch, "facebook", base, ["facebook_combined.txt.gz"])
    g = datasets.load("facebook")  # not found locally: downloaded into the cache, then loaded
    assert (g.n_nodes, g.n_edges) == (4039, 88234)
    assert datasets.locate("facebook") == isolated_homes[1] / "facebook"
    # the same content in another order is a different graph file: rejected
    lines = snap.split(b"\n")
    (root / "facebook_combined.txt.gz").write_bytes(gzip.compress(b"\n".join(lines[1:] + lines[:1])))
    with pytest.raises(ChecksumError, match=r"content SHA-256 [0-9a-f]{64} != expected"):
        datasets.fetch("facebook", force=True, data_home=isolated_homes[0])


def test_blogcatalog_as_asu_serves_it(server, isolated_homes, monkeypatch, data_dir):
    """ASU's zip: BlogCatalog-dataset/data/*.csv, comma-separated."""
    root, base, _ = server
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("BlogCatalog-dataset/readme.txt", (data_dir / "blogcatalog" / "readme.txt").read_bytes())
        for name in ("nodes.csv", "edges.csv", "groups.csv", "group-edges.csv"):
            raw = (data_dir / "blogcatalog" / name).read_bytes()
            archive.writestr(f"BlogCatalog-dataset/data/{name}", re.sub(rb"[ \t]+", b",", raw))
    (root / "BlogCatalog-dataset.zip").write_bytes(buffer.getvalue())
    serve_as(monkeypatch, "blogcatalog", base, ["BlogCatalog-dataset.zip"])
    folder = datasets.fetch("blogcatalog")
    assert sorted(p.name for p in folder.iterdir()) == ["edges.csv", "group-edges.csv", "groups.csv", "nodes.csv"]
    g = datasets.load("blogcatalog")
    assert (g.n_nodes, g.n_edges, g.n_labels, g.labels.nnz) == (10_312, 333_983, 39, 14_476)
    reference = datasets.load("blogcatalog", data_home=data_dir)
    np.testing.assert_array_equal(g.edges(), reference.edges())


def test_email_eu_core_two_downloads(server, isolated_homes, monkeypatch, data_dir):
    root, base, _ = server
    for name in ("email-Eu-core.txt", "email-Eu-core-department-labels.txt"):
        (root / (name + ".gz")).write_bytes(gzip.compress((data_dir / "email-eu-core" / name).read_bytes()))
    serve_as(monkeypatch, "email-eu-core", base, ["email-Eu-core.txt.gz", "email-Eu-core-department-labels.txt.gz"])
    g = datasets.load("email-eu-core")
    assert (g.n_nodes, g.n_labels, g.n_edges) == (1005, 42, 16_064)
    assert set(datasets.verify("email-eu-core").values()) == {None}


# ---------------------------------------------------------------------- issue 13 item 14: one message, exit 2
def _no_network(*args, **kwargs):
    raise AssertionError("the network was touched although LGEKIT_OFFLINE is set")


def _refused(url, dest, timeout, progress):
    raise urllib.error.URLError("[Errno 111] Connection refused")


def test_offline_fetch_never_touches_the_network(isolated_homes, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(_fetch, "_download", _no_network)
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    expected = (r"data set 'ppi' is not available locally and downloads are disabled \(LGEKIT_OFFLINE is set\)\.\n"
                r"To install it by hand:\n  - download ")
    with pytest.raises(DownloadError, match=expected) as info:
        datasets.fetch("ppi")
    assert info.value.hint.startswith("To install it by hand:") and info.value.dataset == "ppi"
    assert main(["datasets", "fetch", "ppi"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("lgekit datasets: error: data set 'ppi' is not available: downloads are "
                                        "disabled (LGEKIT_OFFLINE is set)\nTo install it by hand:\n")
    assert err.count("error:") == 1 and "Traceback" not in err
    assert not (isolated_homes[1] / "ppi").exists()  # nothing created either
    # files already in place are found without the network, offline or not
    (tmp_path / "dh" / "facebook").mkdir(parents=True)
    (tmp_path / "dh" / "facebook" / "facebook_combined.txt").write_text("0 1\n")
    assert main(["datasets", "fetch", "facebook", "--data-home", str(tmp_path / "dh")]) == 0
    assert main(["datasets", "fetch", "facebook", "--force", "--data-home", str(tmp_path / "dh")]) == 2


def _commands(tmp_path):
    emb = tmp_path / "emb.txt"
    emb.write_text("2 2\n0 0.1 0.2\n1 0.3 0.4\n")
    return {
        "datasets": ["datasets", "fetch", "ppi"],
        "fit": ["fit", "ppi", "--model", "logistic", "--out", str(tmp_path / "fit")],
        "evaluate": ["evaluate", str(emb), "ppi"],
        "demo": ["demo", "--dataset", "ppi"],
        "reproduce": ["reproduce", "--dataset", "ppi", "--out", str(tmp_path / "rep")],
    }


@pytest.mark.parametrize("command", ["datasets", "fit", "evaluate", "demo", "reproduce"])
@pytest.mark.parametrize("why", ["offline", "download fails"])
def test_every_command_prints_only_the_hand_install_hint(isolated_homes, monkeypatch, tmp_path, capsys, command, why):
    """A missing data set was a DownloadError traceback; now one message on stderr and exit status 2."""
    if why == "offline":
        monkeypatch.setenv("LGEKIT_OFFLINE", "1")
        monkeypatch.setattr(_fetch, "_download", _no_network)
    else:
        monkeypatch.delenv("LGEKIT_OFFLINE", raising=False)
        monkeypatch.setattr(_fetch, "_download", _refused)
    assert main(_commands(tmp_path)[command]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"lgekit {command}: error: data set 'ppi' is not available: ")
    reason = err.split("\n", 1)[0]
    if why == "offline":
        assert "downloads are disabled (LGEKIT_OFFLINE is set)" in reason
    else:
        assert "could not be downloaded (http://snap.stanford.edu/node2vec/Homo_sapiens.mat: " \
               "[Errno 111] Connection refused)" in reason
    assert "\nTo install it by hand:\n  - download http://snap.stanford.edu/node2vec/Homo_sapiens.mat" in err
    assert err.count("error:") == 1 and "Traceback" not in err and "tried:" not in err


def test_cora_as_linqs_serves_it(server, isolated_homes, monkeypatch, data_dir):
    """LINQS's cora.tgz: cora/cora.cites and cora/README beside cora.content; only cora.cites is kept, and a
    link in the archive is never extracted (the wrong version: a symlink named cora.cites)."""
    root, base, _ = server

    def tgz(members):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, data, link in members:
                item = tarfile.TarInfo(name)
                if link:
                    item.type, item.linkname = tarfile.SYMTYPE, data
                    archive.addfile(item)
                else:
                    item.size = len(data)
                    archive.addfile(item, io.BytesIO(data))
        return buffer.getvalue()

    cites = (data_dir / "cora" / "cora.cites").read_bytes()
    (root / "cora.tgz").write_bytes(tgz([("cora/README", b"LINQS Cora", False), ("cora/cora.cites", cites, False)]))
    serve_as(monkeypatch, "cora", base, ["cora.tgz"])
    folder = datasets.fetch("cora")
    assert sorted(p.name for p in folder.iterdir()) == ["cora.cites"]
    assert datasets.load("cora", directed=True).n_edges == 5429
    (root / "cora.tgz").write_bytes(tgz([("cora/cora.cites", "/etc/passwd", True)]))
    with pytest.raises(ChecksumError, match=r"the archive has no member named 'cora.cites'"):
        datasets.fetch("cora", force=True, data_home=isolated_homes[0])
    (root / "cora.tgz").write_bytes(b"\x1f\x8b definitely not a tar.gz")
    with pytest.raises(ChecksumError, match=r"not a valid .tar.gz archive"):
        datasets.fetch("cora", force=True, data_home=isolated_homes[0])
