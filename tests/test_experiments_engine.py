"""Verdict rules, plots and the report on synthetic record sets whose answer is known."""
import contextlib
import itertools
import os

import numpy as np
import pytest

from lgekit.experiments import verdicts as V
from lgekit.experiments.plots import plot_figure
from lgekit.experiments.specs import cell_key, effective_spec

_counter = itertools.count()


def _run(history=None, status="ok", metrics=None, seed=0, **grid):
    """A run as plots/verdicts see it; ``history`` maps key -> per-epoch values."""
    history = history or {}
    n = max((len(v) for v in history.values()), default=0)
    hist = [{"epoch": t, **{k: v[t] for k, v in history.items() if t < len(v)}} for t in range(n)]
    if status == "diverged" and hist:
        hist[-1]["diverged"] = True
    return {"key": cell_key({"n": next(_counter)}), "seed": seed, "status": status, "history": hist,
            "metrics": metrics or {}, "diverged_epoch": n - 1 if status == "diverged" else None, "error": None,
            **grid}


T = np.arange(1, 21, dtype=float)


# ---------------------------------------------------------------------------- Fig 1
def test_norms_sqrt_growth_is_reproduced():
    runs = [_run({"mean_norm": list(1 + np.sqrt(T) / (1 + lam))}, lam_r=lam) for lam in (0.0, 0.2, 1.0)]
    v = V.norms_grow_slowing(runs)
    assert v.verdict == V.REPRODUCED, v.evidence
    assert "λr=0" in v.evidence and "λr=1 ends at" in v.evidence


@pytest.mark.parametrize("curve", [1 + T ** 2, 5 - 0.1 * T, np.full(20, 2.0)])
def test_norms_accelerating_or_shrinking_is_not_reproduced(curve):
    assert V.norms_grow_slowing([_run({"mean_norm": list(curve)}, lam_r=0.0)]).verdict == V.NOT_REPRODUCED


def test_norms_tiny_growth_is_inconclusive():
    curve = 1 + 0.01 * np.sqrt(T)  # grows by ~4% < NORM_GROWTH_MIN, slowing
    assert V.norms_grow_slowing([_run({"mean_norm": list(curve)}, lam_r=0.0)]).verdict == V.INCONCLUSIVE


def test_norms_without_data_is_inconclusive():
    assert V.norms_grow_slowing([]).verdict == V.INCONCLUSIVE
    assert V.norms_grow_slowing([_run({"mean_norm": [1.0, 2.0]}, lam_r=0.0)]).verdict == V.INCONCLUSIVE


# ---------------------------------------------------------------------------- Fig 2
@pytest.mark.parametrize("curve,expected", [
    (1 / T, V.REPRODUCED),                       # ends at 5% of the peak
    (np.full(20, 3.0), V.NOT_REPRODUCED),        # never decays
    (1 - 0.3 * (T - 1) / 19, V.INCONCLUSIVE),    # ends at 0.7 of the peak
])
def test_gradients_vanish(curve, expected):
    v = V.gradients_vanish([_run({"mean_grad_norm": list(curve)}, lam_r=0.0),
                            _run({"mean_grad_norm": list(np.full(20, 1.0))}, lam_r=1.0)])
    assert v.verdict == expected, v.evidence


# ---------------------------------------------------------------------------- Fig 3
def _overfit_curve(peak_epoch=6, peak=0.8, drop=0.06, n=20):
    up = np.linspace(0.5, peak, peak_epoch)
    down = np.linspace(peak, peak - drop, n - peak_epoch + 1)[1:]
    return list(np.concatenate([up, down]))


def test_small_lam_r_overfits_reproduced_with_contrast():
    runs = [_run({"test_ap": _overfit_curve()}, lam_r=0.0),
            _run({"test_ap": list(np.linspace(0.5, 0.85, 20))}, lam_r=1.0)]
    v = V.small_lam_r_overfits(runs)
    assert v.verdict == V.REPRODUCED
    assert "peaks at epoch 6 (0.8)" in v.evidence and "λr=1 drops 0" in v.evidence


def test_monotone_test_ap_is_not_overfitting():
    v = V.small_lam_r_overfits([_run({"test_ap": list(np.linspace(0.5, 0.8, 20))}, lam_r=0.0)])
    assert v.verdict == V.NOT_REPRODUCED


def test_late_peak_is_inconclusive():
    v = V.small_lam_r_overfits([_run({"test_ap": _overfit_curve(peak_epoch=18, drop=0.03)}, lam_r=0.0)])
    assert v.verdict == V.INCONCLUSIVE


def test_drop_within_seed_noise_is_inconclusive():
    # two seeds: final values 0.70 and 0.80 (std 0.071, SE 0.05 -> margin ~0.1 > drop 0.03)
    a = _overfit_curve(drop=0.03)
    b = list(np.array(a))
    a[-1], b[-1] = a[-1] - 0.05, b[-1] + 0.05
    runs = [_run({"test_ap": a}, lam_r=0.0, seed=0), _run({"test_ap": b}, lam_r=0.0, seed=1)]
    v = V.small_lam_r_overfits(runs)
    assert v.verdict == V.INCONCLUSIVE
    assert v.numbers[0.0]["margin"] > v.numbers[0.0]["drop"]


# ---------------------------------------------------------------------------- Fig 4
def _fig4(overfits_by_dim):
    runs = []
    for dim, overfits in overfits_by_dim.items():
        curve = _overfit_curve() if overfits else list(np.linspace(0.5, 0.8, 20))
        runs.append(_run({"test_ap": curve}, lam_r=0.0, dim=dim))
        runs.append(_run({"test_ap": list(np.linspace(0.5, 0.8, 20))}, lam_r=1.0, dim=dim))
    return runs


def test_lam0_overfits_every_dim():
    # D <= 10 are outside the claim: they may underfit
    assert V.lam0_overfits_every_dim(_fig4({5: False, 10: False, 30: True, 100: True})).verdict == V.REPRODUCED
    v = V.lam0_overfits_every_dim(_fig4({30: True, 100: False, 300: True}))
    assert v.verdict == V.INCONCLUSIVE and "{30, 300} only" in v.evidence
    assert V.lam0_overfits_every_dim(_fig4({30: False, 100: False})).verdict == V.NOT_REPRODUCED
    assert V.lam0_overfits_every_dim(_fig4({5: True, 10: True})).verdict == V.INCONCLUSIVE


# ---------------------------------------------------------------------------- Fig 5
def _points(name, values, metric="test_ap", extra=None):
    runs = []
    for x, v in values.items():
        if v == "diverged":
            runs.append(_run({"mean_norm": [1.0]}, status="diverged", **{name: x}))
        else:
            runs.append(_run(metrics={metric: v, **(extra or {})}, **{name: x}))
    return runs


def test_dcd_poor_near_zero():
    runs = _points("lam_r", {0.01: 0.60, 1.0: 0.80, 100.0: 0.70}, extra={"train_ap": 0.99})
    v = V.dcd_poor_near_zero(runs)
    assert v.verdict == V.REPRODUCED and "gap 0.2" in v.evidence and "train AP 0.99" in v.evidence
    assert V.dcd_poor_near_zero(_points("lam_r", {0.01: 0.795, 1.0: 0.80})).verdict == V.NOT_REPRODUCED
    assert V.dcd_poor_near_zero(_points("lam_r", {0.01: 0.77, 1.0: 0.80})).verdict == V.INCONCLUSIVE
    v = V.dcd_poor_near_zero(_points("lam_r", {0.01: "diverged", 1.0: 0.8, 10.0: 0.7}))
    assert v.verdict == V.INCONCLUSIVE and "diverged at λr ∈ {0.01}" in v.evidence and "λr=1, has test AP 0.8" in v.evidence
    v = V.dcd_poor_near_zero(_points("lam_r", {0.01: "diverged", 0.1: "diverged", 1.0: 0.74, 3.0: 0.86}))
    assert v.verdict == V.REPRODUCED and "diverged at λr ∈ {0.01, 0.1}" in v.evidence


# ---------------------------------------------------------------------------- Fig 6
def test_dcd_insensitive_to_dim():
    flat = _points("dim", {10: 0.6, 30: 0.80, 100: 0.81, 300: 0.805})
    assert V.dcd_insensitive_to_dim(flat).verdict == V.REPRODUCED
    assert V.dcd_insensitive_to_dim(_points("dim", {30: 0.7, 300: 0.8})).verdict == V.NOT_REPRODUCED
    assert V.dcd_insensitive_to_dim(_points("dim", {30: 0.77, 300: 0.80})).verdict == V.INCONCLUSIVE
    assert V.dcd_insensitive_to_dim(_points("dim", {10: 0.7, 30: 0.8})).verdict == V.INCONCLUSIVE


def test_every_claim_has_a_rule_and_a_figure():
    assert set(V.CLAIMS) == {"norms_grow_slowing", "gradients_vanish", "small_lam_r_overfits",
                             "lam0_overfits_every_dim", "dcd_poor_near_zero", "dcd_insensitive_to_dim"}
    for claim, spec in V.CLAIMS.items():
        assert claim in effective_spec(spec["figure"])["claims"]
        assert V.judge(claim, []).verdict == V.INCONCLUSIVE


# ---------------------------------------------------------------------------- plots
def test_epoch_figure_series_bands_and_diverged_marker():
    runs = [_run({"mean_norm": list(1 + np.sqrt(T) + 0.1 * s)}, lam_r=0.0, seed=s) for s in range(3)]
    runs.append(_run({"mean_norm": list(1 + T)}, lam_r=1.0))
    runs.append(_run({"mean_norm": [1.0, 5.0, 50.0]}, status="diverged", lam_r=0.2))
    fig, drawn = plot_figure("fig1", runs, effective_spec("fig1"))
    (panel,) = drawn["panels"]
    assert [s["label"] for s in panel["series"]] == ["λr = 0", "λr = 0.2", "λr = 1"]
    s0 = panel["series"][0]
    assert s0["n_seeds"] == 3 and np.allclose(s0["y"], 1 + np.sqrt(T) + 0.1)
    assert panel["series"][1]["n_diverged"] == 1 and panel["series"][1]["x"] == []
    ax = fig.axes[0]
    assert len(ax.collections) == 1  # one ± std band: only λr = 0 has several seeds
    texts = [t.get_text() for t in ax.texts]
    assert "diverged" in texts
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"λr = 0", "λr = 1"}


def test_fig3_has_f1_panels_only_with_labels():
    spec = effective_spec("fig3")
    plain = [_run({"test_ap": _overfit_curve()}, lam_r=0.0)]
    assert len(plot_figure("fig3", plain, spec)[1]["panels"]) == 1
    hist = {"test_ap": _overfit_curve(), "micro_f1": [None] * 4 + [0.3] + [None] * 15,
            "macro_f1": [None] * 4 + [0.2] + [None] * 15}
    fig, drawn = plot_figure("fig3", [_run(hist, lam_r=0.0)], spec)
    assert [p["ylabel"] for p in drawn["panels"]] == ["test AP", "Micro-F1", "Macro-F1"]
    assert drawn["panels"][1]["series"][0]["x"] == [5]
    assert len(fig.axes) == 3


def test_fig4_one_panel_per_lam_r_one_curve_per_dim():
    fig, drawn = plot_figure("fig4", _fig4({5: False, 30: True, 100: True}), effective_spec("fig4"))
    assert [p["title"] for p in drawn["panels"]] == ["(a) λr = 0", "(b) λr = 1"]
    assert [s["label"] for s in drawn["panels"][0]["series"]] == ["D = 5", "D = 30", "D = 100"]


def test_fig5_log_axis_and_diverged_points():
    runs = _points("lam_r", {0.01: "diverged", 0.1: 0.6, 1.0: 0.8, 100.0: 0.7}, extra={"train_ap": 0.9})
    fig, drawn = plot_figure("fig5", runs, effective_spec("fig5"))
    (panel,) = drawn["panels"]
    assert panel["xscale"] == "log" and fig.axes[0].get_xscale() == "log"
    assert [s["label"] for s in panel["series"]] == ["train AP", "test AP"]
    assert panel["series"][1]["x"] == [0.1, 1.0, 100.0]
    assert panel["diverged_x"] == [0.01]


def test_fig6_against_dim():
    fig, drawn = plot_figure("fig6", _points("dim", {10: 0.6, 30: 0.8, 1600: 0.8}), effective_spec("fig6"))
    assert drawn["panels"][0]["xlabel"] == "dimension D"
    assert drawn["panels"][0]["series"][0]["x"] == [10.0, 30.0, 1600.0]


# ---------------------------------------------------------------------------- engine, end to end
# Tiny scale: a 200-node BlogCatalog-shaped graph with 5 labels, 4 epochs, D = 16, few grid points.
TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 200, "n_labels": 5, "seed": 0}}
_F1 = {"record": {"f1_epochs": [2, 4]}}
TINY = {
    "*": {"params": {"epochs": 4, "dim": 16}, "record": {"f1_epochs": []}},  # D = 16 except where D varies
    "fig1": _F1, "fig2": _F1, "fig3": _F1,  # Figs 1-3 share their runs
    "fig4": {"grid": {"lam_r": [0.0, 1.0], "dim": [5, 30]}},
    "fig5": {"grid": {"lam_r": [0.01, 1.0, 100.0]}},
    "fig6": {"grid": {"dim": [10, 30, 60]}},
}


def tiny_plan(figures=None, seeds=1, overrides=None):
    from lgekit.experiments import expand

    return expand(figures, dataset=TINY_DATASET, seeds=seeds, quick=True, overrides=overrides or TINY)


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory):
    """Every figure at tiny scale, run once by the local engine (in-process: n_jobs=1)."""
    from lgekit.experiments.report import write_outputs
    from lgekit.experiments.engine import run_sweep

    out = tmp_path_factory.mktemp("tiny")
    plan = tiny_plan(seeds=2)
    result = run_sweep(plan.cells, out, n_jobs=1, progress=False)
    outputs = write_outputs(plan, out, result=result)
    return plan, out, result, outputs


def test_tiny_sweep_runs_every_cell(tiny_sweep):
    plan, out, result, outputs = tiny_sweep
    assert result.n_error == 0, result.errors
    assert result.n_ok + result.n_diverged == len(plan.cells) and result.n_skipped == 0
    from lgekit.experiments import read_jsonl

    index = read_jsonl(out / "records.jsonl")
    assert sorted(r["key"] for r in index) == sorted(plan.cells)
    for rec in index:
        assert rec["config"] == plan.cells[rec["key"]]
        cfg = rec["config"]
        if rec["status"] != "ok":
            continue
        assert len(rec["history"]) == cfg["params"]["epochs"]
        assert "seconds" not in rec["history"][0] and len(rec["timings"]["epoch_seconds"]) == 4
        assert 0.0 <= rec["metrics"]["test_ap"] <= 1.0
        if cfg["model"] == "LogisticEmbedding":
            assert all("test_ap" in h and "mean_grad_norm" in h and "mean_norm" in h for h in rec["history"])
            # F1 only after the requested numbers of epochs (the tiny graph has labels), Figs 1-3 only
            f1_epochs = [h["epoch"] + 1 for h in rec["history"] if "micro_f1" in h]
            in_fig3 = rec["key"] in {e["key"] for e in plan.figures["fig3"]}
            assert f1_epochs == ([2, 4] if in_fig3 else [])
        else:
            assert "train_ap" in rec["metrics"]


@pytest.mark.parametrize("name", ["fig1", "fig2", "fig3", "fig4", "fig5", "fig6"])
def test_tiny_figure_files_and_series(tiny_sweep, name):
    plan, out, result, outputs = tiny_sweep
    for ext in ("png", "pdf"):
        path = out / f"{name}.{ext}"
        assert path.is_file() and path.stat().st_size > 1000
    drawn = outputs.drawn[name]
    spec = plan.specs[name]
    labels = [[s["label"] for s in p["series"]] for p in drawn["panels"]]
    if name in ("fig1", "fig2", "fig3"):
        assert labels[0] == [f"λr = {v:g}" for v in spec["grid"]["lam_r"]]
        for s in drawn["panels"][0]["series"]:
            assert s["n_seeds"] + s["n_diverged"] == 2
            if s["n_seeds"]:
                assert s["x"] == [1, 2, 3, 4]
    if name == "fig3":
        assert [p["ylabel"] for p in drawn["panels"]] == ["test AP", "Micro-F1", "Macro-F1"]
    if name == "fig4":
        assert len(drawn["panels"]) == 2 and labels[0] == ["D = 5", "D = 30"]
    if name == "fig5":
        assert labels == [["train AP", "test AP"]] and drawn["panels"][0]["xscale"] == "log"
    if name == "fig6":
        assert labels == [["test AP"]]


def test_tiny_report_has_a_verdict_line_per_claim(tiny_sweep):
    plan, out, result, outputs = tiny_sweep
    from lgekit.experiments.verdicts import CLAIMS

    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    for claim, spec in CLAIMS.items():
        line = next(l for l in md.splitlines() if l.startswith("**Verdict:") and spec["statement"] in l)
        assert line.rstrip().endswith(("REPRODUCED", "NOT REPRODUCED", "INCONCLUSIVE"))
    assert html.count("data:image/png;base64,") == 6
    assert len(outputs.verdicts) == len(CLAIMS)


def test_resume_skips_finished_cells_and_force_recomputes(tiny_sweep, tmp_path):
    from lgekit.experiments.engine import run_sweep

    plan = tiny_plan(["fig6"])
    first = run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    assert first.n_run == 3
    again = run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    assert (again.n_skipped, again.n_run) == (3, 0)
    forced = run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False, force=True)
    assert (forced.n_skipped, forced.n_run) == (0, 3)


def test_failing_and_diverging_cells_do_not_stop_the_sweep(tmp_path):
    from lgekit.experiments import ResultsStore
    from lgekit.experiments.engine import run_sweep

    # D = 0 is rejected by the model (an error); a huge learning rate diverges
    plan = tiny_plan(["fig1", "fig6"], overrides={
        "*": {"params": {"epochs": 3, "dim": 8}, "record": {"f1_epochs": []}},
        "fig1": {"params": {"lr": 1e9}, "grid": {"lam_r": [1.0]}},
        "fig6": {"grid": {"dim": [0, 8]}}})
    result = run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    assert (result.n_ok, result.n_diverged, result.n_error) == (1, 1, 1)
    (err,) = result.errors
    assert err["model"] == "HingeEmbedding" and err["params"]["dim"] == 0
    assert err["type"] == "ValueError" and "dim" in err["message"] and "Traceback" in err["traceback"]
    store = ResultsStore(tmp_path)
    (div,) = [r for r in store.records() if r["status"] == "diverged"]
    assert div["history"] and div["history"][-1]["diverged"] is True
    assert div["diverged_epoch"] == div["history"][-1]["epoch"]
    # errors are retried by the next run, results are not
    again = run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    assert (again.n_skipped, again.n_error) == (2, 1)


def test_local_processes_give_the_same_records(tiny_sweep, tmp_path):
    """Two loky worker processes reproduce the in-process records exactly (minus timings)."""
    from lgekit.experiments import ResultsStore, strip_timings
    from lgekit.experiments.engine import run_sweep

    plan_all, out, _, _ = tiny_sweep
    plan = tiny_plan(["fig6"], seeds=2)
    result = run_sweep(plan.cells, tmp_path, n_jobs=2, progress=False)
    assert result.n_error == 0
    ref, new = ResultsStore(out), ResultsStore(tmp_path)
    for key in plan.cells:
        a, b = ref.get(key), new.get(key)
        assert b["timings"]["engine"] == "loky"
        assert strip_timings(a) == strip_timings(b)


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_records(tiny_sweep, tmp_path):
    pytest.importorskip("distributed")
    from lgekit.experiments import ResultsStore, strip_timings
    from lgekit.experiments.engine import run_sweep

    plan_all, out, _, _ = tiny_sweep
    plan = tiny_plan(["fig1", "fig5", "fig6"], seeds=2)
    result = run_sweep(plan.cells, tmp_path, n_jobs=2, scheduler="local", progress=False)
    assert result.n_error == 0 and result.engine == "dask:local"
    ref, new = ResultsStore(out), ResultsStore(tmp_path)
    for key in plan.cells:
        a, b = ref.get(key), new.get(key)
        assert b["timings"]["engine"] == "dask"
        assert strip_timings(a) == strip_timings(b)


def test_unreachable_scheduler_names_the_address(tmp_path):
    pytest.importorskip("distributed")
    import socket

    from lgekit.experiments.engine import SchedulerUnreachable, run_sweep

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    plan = tiny_plan(["fig6"])
    with pytest.raises(SchedulerUnreachable, match=f"tcp://127.0.0.1:{port}"):
        run_sweep(plan.cells, tmp_path, scheduler=f"127.0.0.1:{port}", progress=False, timeout=2)


@pytest.mark.slow
def test_dask_cluster_by_address(tiny_sweep, tmp_path):
    """``--scheduler tcp://HOST:PORT``: the same tasks sent to an already running cluster."""
    distributed = pytest.importorskip("distributed")
    from lgekit.experiments import ResultsStore, strip_timings
    from lgekit.experiments.engine import run_sweep

    plan_all, out, _, _ = tiny_sweep
    plan = tiny_plan(["fig6"], seeds=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        result = run_sweep(plan.cells, tmp_path, scheduler=cluster.scheduler_address, progress=False)
        assert result.n_error == 0 and result.engine == f"dask:{cluster.scheduler_address}"
    ref, new = ResultsStore(out), ResultsStore(tmp_path)
    for key in plan.cells:
        assert strip_timings(ref.get(key)) == strip_timings(new.get(key))


# ---------------------------------------------------------------------------- workers die with the driver
# issue #13, item 3; the whole sweep under kill -9 is tests/test_store_safety.py (slow)
_WORKER = """
import os, sys, time
from lgekit.experiments.engine import exit_with_parent
exit_with_parent(int(sys.argv[1]), interval=0.05)
print(os.getpid(), flush=True)
while True:  # a cell that would compute for ever
    sum(i * i for i in range(10000))
"""
_DRIVER = """
import subprocess, sys
worker = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(__import__("os").getpid())])
worker.wait()
"""


def _running(pid):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads the process table from /proc")
def test_exit_with_parent_ends_a_busy_worker_after_kill_9(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, _WORKER], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        worker = int(driver.stdout.readline())  # printed once its watchdog runs
        assert _running(worker)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(30)
        t0 = time.monotonic()
        while _running(worker) and time.monotonic() - t0 < 10:
            time.sleep(0.02)
        assert not _running(worker), "the worker outlived its driver by 10 s"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)  # the session this test started
        driver.wait(30)
        driver.stdout.close()


def test_exit_with_parent_ends_a_worker_whose_driver_is_already_gone():
    """A worker started after the driver died (its parent is an intermediary) ends at once."""
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: its pid names no process
    done = subprocess.run([sys.executable, "-c", "from lgekit.experiments.engine import exit_with_parent; "
                           f"exit_with_parent({gone.pid}); print('survived')"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "survived" not in done.stdout
