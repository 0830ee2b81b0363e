"""Registered data sets state their kind and load as it (issue 43, items 3, 4 and 10), and the small things a
new user met: ``datasets info cora``, the offline hint's folder, pytest's data hint, ``fit --plot GRAPH``,
"an undirected", the plot's dots.  Each test fails on the code before issue 43."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lgekit
from lgekit import datasets
from lgekit.cli import main
from lgekit.plotting import METHODS, dot_size, plot_embedding
from lgekit._commands.fit import PLOT_METHODS


def test_every_registered_data_set_states_its_kind():
    kinds = {name: (entry.kind, entry.default_kind) for name, entry in datasets.registry().items()}
    assert kinds["cora"] == ("directed", "directed")
    assert kinds["email-eu-core"] == ("directed", "undirected")     # directed data, read undirected (and said)
    assert {kinds[n] for n in ("blogcatalog", "ppi", "facebook", "synthetic-blogcatalog")} == \
        {("undirected", "undirected")}


@pytest.mark.slow
def test_each_data_set_loads_as_its_registry_says(data_dir):
    for name, entry in datasets.registry().items():
        if entry.embedded:
            continue
        g = datasets.load(name, data_home=data_dir)
        assert (g.kind, g.n_nodes, g.n_edges) == (entry.default_kind, entry.n_nodes, entry.n_edges), name


def test_cora_loads_directed_and_says_how_email_eu_core_was_read(data_dir, caplog):
    cora = datasets.load("cora", data_home=data_dir)
    assert (cora.kind, cora.n_edges) == ("directed", 5429)
    assert 0 < cora.reciprocity() < 0.1                # the wrong version, an undirected Cora, refuses this
    caplog.set_level("INFO", logger="lgekit.datasets")
    email = datasets.load("email-eu-core", data_home=data_dir)
    assert email.kind == "undirected"
    said = [r.getMessage() for r in caplog.records if "directed data set read undirected" in r.getMessage()]
    assert said == ["email-eu-core is a directed data set read undirected: each arc's direction dropped, "
                    "reciprocal arcs merged (directed=True, or --directed, keeps the arcs)"]
    caplog.clear()
    datasets.load("email-eu-core", data_home=data_dir, directed=True)
    assert not [r for r in caplog.records if "read undirected" in r.getMessage()]


def test_fit_cora_trains_two_tables_and_evaluate_reads_the_model_kind(data_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    out = tmp_path / "cora"
    assert main(["fit", "cora", "--model", "logistic", "--dim", "4", "--epochs", "1", "--test-fraction", "0.2",
                 "--out", str(out)]) == 0
    assert (out / "context_embedding.txt").exists()
    capsys.readouterr()
    assert main(["evaluate", str(out / "embedding.npz"), "cora", "--test-fraction", "0.2"]) == 0


@pytest.mark.parametrize("name", sorted(datasets.registry()))
def test_datasets_info_runs_for_every_data_set(name, capsys):
    assert main(["datasets", "info", name]) == 0           # cora: KeyError 'tgz' before issue 43
    text = capsys.readouterr().out
    entry = datasets.info(name)
    assert f"{'arcs' if entry.default_kind == 'directed' else 'edges'} {entry.n_edges:,} ({entry.default_kind}" in text
    if name == "cora":
        assert "(tgz: extract it (tar -xzf) and copy the files below)" in text
    if name == "email-eu-core":
        assert "directed data read undirected by default" in text


def test_offline_fetch_says_to_place_the_files_where_they_are_looked_for(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    monkeypatch.setenv("LGEKIT_DATA", str(mirror))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    for call in (lambda: datasets.fetch("cora"), lambda: datasets.load("cora")):
        with pytest.raises(OSError) as info:
            call()
        assert f"place cora.cites in {mirror / 'cora'}" in str(info.value)   # not the user cache
        assert str(tmp_path / "cache") not in str(info.value).split("place cora.cites in")[1].splitlines()[0]


def test_pytest_data_hint_names_every_registered_folder(tmp_path):
    test = tmp_path / "test_needs_data.py"
    test.write_text("def test_x(data_dir):\n    pass\n")
    conftest = Path(__file__).with_name("conftest.py")
    (tmp_path / "conftest.py").write_text(conftest.read_text())
    env = {"LGEKIT_DATA": str(tmp_path / "none"), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(lgekit.__file__)
                                                                                             .parents[1])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    for name, entry in datasets.registry().items():
        if not entry.embedded:
            assert f"{entry.folder}/" in done.stdout, (name, done.stdout[-2000:])


def test_reciprocity_of_an_undirected_graph_says_an_undirected():
    with pytest.raises(ValueError, match="got an undirected one"):
        lgekit.Graph.from_edges([(0, 1)]).reciprocity()


def test_fit_plot_before_the_graph_leaves_the_graph_alone(labelled_mat_file, tmp_path, capsys):
    assert PLOT_METHODS == METHODS
    common = ["--model", "logistic", "--dim", "4", "--epochs", "1"]
    for args, method in ((["--plot", str(labelled_mat_file)], "pca"),
                         (["--plot", "tsne", str(labelled_mat_file)], "tsne"),
                         ([str(labelled_mat_file), "--plot"], "pca")):
        out = tmp_path / f"o{len(list(tmp_path.iterdir()))}"
        assert main(["fit", *args, *common, "--out", str(out)]) == 0, capsys.readouterr().err
        assert (out / "embedding.png").exists()
        assert json.loads((out / "fit.json").read_text())["files"]["plot"] == "embedding.png"
    capsys.readouterr()
    # a word that is no method is GRAPH: here no data set, said in one line
    assert main(["fit", "--plot", "umap", *common, "--out", str(tmp_path / "x")]) == 2
    assert "unknown data set 'umap'" in capsys.readouterr().err


def test_dots_are_large_on_small_graphs_and_small_on_large_ones():
    assert dot_size(34) == 60.0 and dot_size(10_312) == 4.0
    assert np.all(np.diff([dot_size(n) for n in (10, 100, 1_000, 10_000, 100_000)]) <= 0)
    x = np.random.default_rng(0).normal(size=(34, 3))
    sizes = plot_embedding(x, np.arange(34) % 2).axes[0].collections[0].get_sizes()
    assert sizes.min() >= 30                          # 4 pt^2 (2 pt across) before issue 43
