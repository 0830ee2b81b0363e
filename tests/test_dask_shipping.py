"""A Dask sweep whose workers cannot see the driver's data (issue 26 item 13).

The driver resolves the data set once and sends the graph to the workers
(``client.scatter(graph, broadcast=True)``, ``run_cell(config, graph=...)``);
before, every worker resolved the data set itself and, on a cluster that shares
no file system or environment with the driver, failed every cell with a
download error.  The cluster here is a real ``distributed.LocalCluster`` of
worker processes whose environment points ``LGEKIT_DATA`` and the cache at an
empty folder and forbids downloads; the driver's ``LGEKIT_DATA`` holds a small
edge list under a registered name (``facebook``), so the test needs no real
data.  Also here: a report whose every cell failed draws its figures without
matplotlib's "No artists with labels found to put in legend".
"""
import logging
import warnings

import numpy as np
import pytest

from lgekit import datasets
from lgekit.experiments import ResultsStore, expand, run_sweep, write_outputs
from lgekit.experiments.store import strip_timings

distributed = pytest.importorskip("distributed")

#: one small figure: two DCD cells (D = 8 and 16, 2 epochs) on the driver's data set
OVERRIDES = {"*": {"params": {"epochs": 2}}, "fig6": {"grid": {"dim": [8, 16]}}}


def _write_edge_list(folder):
    """A 120-node random graph as ``facebook/facebook_combined.txt`` (the registered name's file)."""
    rng = np.random.default_rng(0)
    edges = set()
    while len(edges) < 600:
        a, b = sorted(int(x) for x in rng.integers(0, 120, 2))
        if a != b:
            edges.add((a, b))
    (folder / "facebook").mkdir(parents=True)
    (folder / "facebook" / "facebook_combined.txt").write_text("".join(f"{a} {b}\n" for a, b in sorted(edges)))


@pytest.fixture
def driver_data(tmp_path, monkeypatch):
    """The driver's LGEKIT_DATA, downloads forbidden."""
    folder = tmp_path / "driver-data"
    _write_edge_list(folder)
    monkeypatch.setenv("LGEKIT_DATA", str(folder))
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    # the 120-node file stands in for the publisher's facebook file on the driver: the check that refuses an
    # edited copy under a registered name (tests/test_input_files.py) is not what this file tests
    monkeypatch.setattr(datasets, "check_local_copy", lambda name, folder: None)
    return folder


@pytest.fixture
def blind_cluster(tmp_path):
    """Two worker processes whose LGEKIT_DATA and cache are an empty folder, offline."""
    empty = tmp_path / "worker-data"
    empty.mkdir()
    env = {"LGEKIT_DATA": str(empty), "LGEKIT_CACHE": str(empty / "cache"), "LGEKIT_OFFLINE": "1"}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env=env, silence_logs=logging.ERROR) as cluster:
        yield cluster


def test_workers_that_cannot_see_the_data_run_the_sweep(driver_data, blind_cluster, tmp_path):
    with distributed.Client(blind_cluster) as client:
        # the premise: a worker on its own cannot load the data set the driver names
        with pytest.raises(Exception, match="facebook"):
            client.submit(datasets.load, "facebook", pure=False).result()
    plan = expand(["fig6"], dataset="facebook", seeds=1, quick=True, overrides=OVERRIDES)
    assert plan.dataset == {"name": "facebook", "kwargs": {}}
    result = run_sweep(plan.cells, tmp_path / "dask", scheduler=blind_cluster.scheduler_address, progress=False)
    assert result.n_error == 0, result.errors
    assert result.n_ok + result.n_diverged == len(plan.cells) == 2
    # the shipped graph gives the records an in-process run gives
    local = run_sweep(plan.cells, tmp_path / "local", n_jobs=1, progress=False)
    assert local.n_error == 0
    shipped, here = ResultsStore(tmp_path / "dask"), ResultsStore(tmp_path / "local")
    for key in plan.cells:
        assert shipped.get(key)["timings"]["engine"] == "dask"
        assert shipped.get(key)["dataset"]["n_nodes"] == 120
        assert strip_timings(shipped.get(key)) == strip_timings(here.get(key))


def test_a_driver_that_cannot_load_the_data_fails_before_any_cell(tmp_path, monkeypatch):
    """The data set is resolved on the driver: when the driver cannot load it, no cell is sent anywhere."""
    driver = tmp_path / "driver-data"
    _write_edge_list(driver)
    monkeypatch.setenv("LGEKIT_DATA", str(driver))
    # a spec of its own (directed=False is load's default): the graph cached by the test above is not reused
    spec = {"name": "facebook", "kwargs": {"directed": False}}
    plan = expand(["fig6"], dataset=spec, seeds=1, quick=True, overrides=OVERRIDES)
    (driver / "facebook" / "facebook_combined.txt").unlink()
    monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="data set 'facebook' not found"):
        run_sweep(plan.cells, tmp_path / "out", scheduler="127.0.0.1:1", progress=False, timeout=1)
    assert not list((tmp_path / "out" / "cells").glob("*.json"))


def test_a_report_whose_every_cell_failed_draws_no_legend_warning(tmp_path, caplog):
    plan = expand(None, dataset={"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 100, "seed": 0}},
                  seeds=1, quick=True)
    store = ResultsStore(tmp_path)
    for key, config in plan.cells.items():
        store.put({"key": key, "config": config, "status": "error", "history": [], "metrics": {},
                   "error": {"type": "DownloadError", "message": "no data on this worker", "traceback": ""}})
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        outputs = write_outputs(plan, store)
    messages = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records]
    assert not [m for m in messages if "No artists with labels" in m], messages
    assert {v.status for v in outputs.verdicts} == {"INCONCLUSIVE"}
    assert len(outputs.errors) == len(plan.cells) and set(outputs.figures) == set(plan.figures)
