"""Verdict rules, plots and the report on synthetic record sets whose answer is known."""
import contextlib
import itertools
import os

import numpy as np
import pytest

from lgekit.experiments import figures as V
from lgekit.experiments.plan import effective_spec
from lgekit.experiments.spec import cell_key

_counter = itertools.count()


def _run(history=None, status="ok", metrics=None, seed=0, reason="non-finite values (objective)", **grid):
    """A run as plots/verdicts see it; ``history`` maps key -> per-epoch values."""
    history = history or {}
    n = max((len(v) for v in history.values()), default=0)
    hist = [{"epoch": t, **{k: v[t] for k, v in history.items() if t < len(v)}} for t in range(n)]
    if status == "diverged" and hist:
        hist[-1]["diverged"] = True
        hist[-1]["divergence_reason"] = reason
    return {"key": cell_key({"n": next(_counter)}), "seed": seed, "status": status, "history": hist,
            "metrics": metrics or {}, "diverged_epoch": n - 1 if status == "diverged" else None, "error": None,
            "divergence_reason": reason if status == "diverged" else None, **grid}


T = np.arange(1, 21, dtype=float)


# ---------------------------------------------------------------------------- Fig 1
def test_norms_sqrt_growth_is_reproduced():
    runs = [_run({"mean_norm": list(1 + np.sqrt(T) / (1 + lam))}, lam_r=lam) for lam in (0.0, 0.2, 1.0)]
    v = V.norms_grow_slowing(runs)
    assert v.status == V.REPRODUCED, v.evidence
    assert "λr=0" in v.evidence and "λr=1 grows (1.5 -> 3.24, +116%)" in v.evidence
    assert v.numbers["differs_from_paper"] == [] and "differs_text" not in v.numbers


@pytest.mark.parametrize("curve", [1 + T ** 2, 5 - 0.1 * T, np.full(20, 2.0)])
def test_norms_accelerating_or_shrinking_is_not_reproduced(curve):
    assert V.norms_grow_slowing([_run({"mean_norm": list(curve)}, lam_r=0.0)]).status == V.NOT_REPRODUCED


def test_norms_tiny_growth_is_inconclusive():
    curve = 1 + 0.01 * np.sqrt(T)  # grows by ~4% < NORM_GROWTH_MIN, slowing
    assert V.norms_grow_slowing([_run({"mean_norm": list(curve)}, lam_r=0.0)]).status == V.INCONCLUSIVE


def test_norms_without_data_is_inconclusive():
    assert V.norms_grow_slowing([]).status == V.INCONCLUSIVE
    assert V.norms_grow_slowing([_run({"mean_norm": [1.0, 2.0]}, lam_r=0.0)]).status == V.INCONCLUSIVE


# ---------------------------------------------------------------------------- Fig 2
@pytest.mark.parametrize("curve,expected", [
    (1 / T, V.REPRODUCED),                       # ends at 5% of the peak
    (np.full(20, 3.0), V.NOT_REPRODUCED),        # never decays
    (1 - 0.3 * (T - 1) / 19, V.INCONCLUSIVE),    # ends at 0.7 of the peak
])
def test_gradients_vanish(curve, expected):
    v = V.gradients_vanish([_run({"mean_grad_norm": list(curve)}, lam_r=0.0),
                            _run({"mean_grad_norm": list(np.full(20, 1.0))}, lam_r=1.0)])
    assert v.status == expected, v.evidence


# ---------------------------------------------------------------------------- Fig 3
def _overfit_curve(peak_epoch=6, peak=0.8, drop=0.06, n=20):
    up = np.linspace(0.5, peak, peak_epoch)
    down = np.linspace(peak, peak - drop, n - peak_epoch + 1)[1:]
    return list(np.concatenate([up, down]))


def test_small_lam_r_overfits_reproduced_with_contrast():
    runs = [_run({"test_ap": _overfit_curve()}, lam_r=0.0),
            _run({"test_ap": list(np.linspace(0.5, 0.85, 20))}, lam_r=1.0)]
    v = V.small_lam_r_overfits(runs)
    assert v.status == V.REPRODUCED
    assert "peaks at epoch 6 (0.8)" in v.evidence and "λr=1 drops 0" in v.evidence


def test_monotone_test_ap_is_not_overfitting():
    v = V.small_lam_r_overfits([_run({"test_ap": list(np.linspace(0.5, 0.8, 20))}, lam_r=0.0)])
    assert v.status == V.NOT_REPRODUCED


def test_late_peak_is_inconclusive():
    v = V.small_lam_r_overfits([_run({"test_ap": _overfit_curve(peak_epoch=18, drop=0.03)}, lam_r=0.0)])
    assert v.status == V.INCONCLUSIVE


def test_drop_within_seed_noise_is_inconclusive():
    # two seeds: final values 0.70 and 0.80 (std 0.071, SE 0.05 -> margin ~0.1 > drop 0.03)
    a = _overfit_curve(drop=0.03)
    b = list(np.array(a))
    a[-1], b[-1] = a[-1] - 0.05, b[-1] + 0.05
    runs = [_run({"test_ap": a}, lam_r=0.0, seed=0), _run({"test_ap": b}, lam_r=0.0, seed=1)]
    v = V.small_lam_r_overfits(runs)
    assert v.status == V.INCONCLUSIVE
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
    assert V.lam0_overfits_every_dim(_fig4({5: False, 10: False, 30: True, 100: True})).status == V.REPRODUCED
    v = V.lam0_overfits_every_dim(_fig4({30: True, 100: False, 300: True}))
    assert v.status == V.INCONCLUSIVE and "{30, 300} only" in v.evidence
    assert V.lam0_overfits_every_dim(_fig4({30: False, 100: False})).status == V.NOT_REPRODUCED
    assert V.lam0_overfits_every_dim(_fig4({5: True, 10: True})).status == V.INCONCLUSIVE


def _blow_up(dim, seed=0, epochs=4):
    """A λr = 0 run that diverges during epoch ``epochs`` (1-based), test AP flat near 0.48 until then."""
    return _run({"test_ap": [0.48] * (epochs - 1) + [None], "mean_norm": [5.0 * 3 ** t for t in range(epochs)]},
                status="diverged", seed=seed, lam_r=0.0, dim=dim,
                reason="the objective 2.9e+06 is more than 10x its reference 2.07e+05")


def test_lam0_diverged_dim_is_no_usable_embedding():
    """Issue #17 item 6: the D = 300, λr = 0 cell diverging is 'no usable embedding', said in the evidence."""
    runs = _fig4({5: False, 30: True, 100: True})
    runs.append(_blow_up(300))
    v = V.lam0_overfits_every_dim(runs)
    assert v.status == V.REPRODUCED, v.evidence
    assert "D=300: every run diverged (1 run diverged at epoch 4; reason: the objective 2.9e+06 is more than 10x" \
        in v.evidence and "no usable embedding" in v.evidence
    assert "D=300: peak" not in v.evidence  # its flat partial curve is not read as an overfitting curve
    assert v.numbers["diverged_dims"] == [300]
    # diverged beside a D that does not overfit: the finished evidence decides
    runs = _fig4({30: True, 100: False}) + [_blow_up(300)]
    v = V.lam0_overfits_every_dim(runs)
    assert v.status == V.INCONCLUSIVE and "no usable embedding" in v.evidence and "{30} only" in v.evidence
    assert V.lam0_overfits_every_dim(_fig4({30: False}) + [_blow_up(300)]).status == V.NOT_REPRODUCED
    # nothing finished above D = 10: a divergence cannot show overfitting
    runs = _fig4({5: False}) + [_blow_up(30), _blow_up(300)]
    v = V.lam0_overfits_every_dim(runs)
    assert v.status == V.INCONCLUSIVE
    assert "no λr=0 run with D > 10 finished" in v.evidence and "D=30: every run diverged" in v.evidence
    # some seeds diverged, others finished: the finished ones decide, the count is reported
    runs = _fig4({30: True}) + [_blow_up(30, seed=1)]
    v = V.lam0_overfits_every_dim(runs)
    assert v.status == V.REPRODUCED and "over the finished runs (1 diverged)" in v.evidence


def test_every_run_diverged_is_inconclusive_with_the_reasons():
    runs = [_blow_up(dim) for dim in (30, 100)]
    for rule in (V.lam0_overfits_every_dim, V.small_lam_r_overfits, V.norms_grow_slowing, V.gradients_vanish):
        v = rule(runs)
        assert v.status == V.INCONCLUSIVE
        assert v.evidence.startswith("every one of the 2 runs diverged, so nothing can be judged: 2 runs diverged "
                                     "at epoch 4; reason: the objective 2.9e+06 is more than 10x its reference")
        assert "(2 runs)" in v.evidence


def test_verdicts_use_the_thresholds_of_the_spec():
    from lgekit.experiments.figures import FIGURES

    runs = [_run({"mean_norm": list(1 + 0.1 * np.sqrt(T))}, lam_r=0.0)]  # grows by 30%, slowing
    assert FIGURES["fig1"].thresholds == {"norm_growth_min": 0.05}
    v = V.norms_grow_slowing(runs)
    assert v.status == V.REPRODUCED and v.thresholds == {"norm_growth_min": 0.05}
    stricter = V.judge("norms_grow_slowing", runs, {"norm_growth_min": 0.5})
    assert stricter.status == V.INCONCLUSIVE and stricter.thresholds == {"norm_growth_min": 0.5}
    # another claim's threshold is ignored; a name no rule reads is an error
    assert V.judge("norms_grow_slowing", runs, {"min_dim": 30}).status == V.REPRODUCED
    with pytest.raises(ValueError,
                       match="unknown threshold 'norm_growth' for norms_grow_slowing: it reads norm_growth_min"):
        V.judge("norms_grow_slowing", runs, {"norm_growth": 0.5})


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
    assert v.status == V.REPRODUCED and "gap 0.2" in v.evidence and "train AP 0.99" in v.evidence
    assert V.dcd_poor_near_zero(_points("lam_r", {0.01: 0.795, 1.0: 0.80})).status == V.NOT_REPRODUCED
    assert V.dcd_poor_near_zero(_points("lam_r", {0.01: 0.77, 1.0: 0.80})).status == V.INCONCLUSIVE
    v = V.dcd_poor_near_zero(_points("lam_r", {0.01: "diverged", 1.0: 0.8, 10.0: 0.7}))
    assert v.status == V.INCONCLUSIVE and "diverged at λr ∈ {0.01}" in v.evidence and "λr=1, has test AP 0.8" in v.evidence
    v = V.dcd_poor_near_zero(_points("lam_r", {0.01: "diverged", 0.1: "diverged", 1.0: 0.74, 3.0: 0.86}))
    assert v.status == V.REPRODUCED and "diverged at λr ∈ {0.01, 0.1}" in v.evidence


# ---------------------------------------------------------------------------- Fig 6
def test_dcd_insensitive_to_dim():
    flat = _points("dim", {10: 0.6, 30: 0.80, 100: 0.81, 300: 0.805})
    assert V.dcd_insensitive_to_dim(flat).status == V.REPRODUCED
    assert V.dcd_insensitive_to_dim(_points("dim", {30: 0.7, 300: 0.8})).status == V.NOT_REPRODUCED
    assert V.dcd_insensitive_to_dim(_points("dim", {30: 0.77, 300: 0.80})).status == V.INCONCLUSIVE
    assert V.dcd_insensitive_to_dim(_points("dim", {10: 0.7, 30: 0.8})).status == V.INCONCLUSIVE


def test_every_claim_has_a_rule_and_a_figure():
    assert set(V.CLAIMS) == {"norms_grow_slowing", "gradients_vanish", "small_lam_r_overfits",
                             "lam0_overfits_every_dim", "dcd_poor_near_zero", "dcd_insensitive_to_dim"}
    assert set(V.RULES) == set(V.CLAIMS)
    for claim, spec in V.CLAIMS.items():
        assert claim in effective_spec(spec.figure).claims
        assert V.judge(claim, []).status == V.INCONCLUSIVE


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
    from lgekit.experiments.store import read_jsonl

    index = read_jsonl(out / "records.jsonl")
    assert sorted(r["key"] for r in index) == sorted(plan.cells)
    for rec in index:
        assert rec["config"] == plan.cells[rec["key"]]
        cfg = rec["config"]
        if rec["status"] != "ok":
            continue
        assert len(rec["history"]) == cfg["params"]["epochs"]
        assert "seconds" not in rec["history"][0] and len(rec["timings"]["epoch_seconds"]) == 4
        # LinkPredictionCallback's wall time goes with the other timings, out of the history
        assert "eval_seconds" not in rec["history"][0] and len(rec["timings"]["eval_seconds"]) == 4
        assert 0.0 <= rec["metrics"]["test_ap"] <= 1.0
        # the callback's last test AP is the final embedding's
        assert rec["history"][-1]["test_ap"] == pytest.approx(rec["metrics"]["test_ap"], abs=1e-12)
        if cfg["model"] == "HingeEmbedding":  # train AP per epoch on the callback's sample, and at the end
            assert all("train_ap" in h and "test_ap" in h for h in rec["history"])
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
        assert labels[0] == [f"λr = {v:g}" for v in spec.grid["lam_r"]]
        for s in drawn["panels"][0]["series"]:
            assert s["n_seeds"] + s["n_diverged"] == 2
            if s["n_seeds"]:
                assert s["x"] == [1, 2, 3, 4]
    if name == "fig3":
        assert [p["ylabel"] for p in drawn["panels"]] == ["test AP", "Micro-F1", "Macro-F1"]
    if name == "fig4":
        assert len(drawn["panels"]) == 2 and labels[0] == ["D = 5", "D = 30"]
    if name in ("fig5", "fig6"):
        assert labels[0] == (["train AP", "test AP"] if name == "fig5" else ["test AP"])
        diverged = [r for r in runs_for(plan, out, name) if r["status"] == "diverged"]
        # a second panel only for runs that diverged (DCD at the smallest λr may)
        assert len(drawn["panels"]) == (2 if diverged else 1)
        if diverged:
            assert len(drawn["panels"][1]["series"]) == len(diverged)
        assert drawn["panels"][0]["xscale"] == "log" and drawn["panels"][0]["ylim"] == [0.0, 1.0]


def runs_for(plan, out, name):
    from lgekit.experiments import ResultsStore
    from lgekit.experiments.aggregate import runs_for_figure

    store = ResultsStore(out)
    return runs_for_figure(plan.figures[name], {k: store.get(k) for k in plan.cells})


def test_tiny_report_has_a_verdict_line_per_claim(tiny_sweep):
    plan, out, result, outputs = tiny_sweep
    from lgekit.experiments.figures import CLAIMS

    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    for claim_spec in CLAIMS.values():
        line = next(l for l in md.splitlines() if l.startswith("**Verdict:") and claim_spec.statement in l)
        assert line.rstrip().endswith(("REPRODUCED", "NOT REPRODUCED", "INCONCLUSIVE"))
    assert html.count("data:image/png;base64,") == 6
    assert len(outputs.verdicts) == len(CLAIMS)
    # every threshold is stated beside its figure, with its value
    for name, spec in plan.specs.items():
        section = md.split(f"## {spec.paper}:")[1].split("\n## ")[0]
        for key, value in spec.thresholds.items():
            assert f"* `{key}` = {value:g}: " in section
            assert f"<code>{key}</code> = {value:g}: " in html



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
    assert err["type"] in ("ValueError", "InvalidParameterError") and "dim" in err["message"] and "Traceback" in err["traceback"]
    store = ResultsStore(tmp_path)
    (div,) = [r for r in store.records() if r["status"] == "diverged"]
    assert div["history"] and div["history"][-1]["diverged"] is True
    assert div["diverged_epoch"] == div["history"][-1]["epoch"]
    # errors are retried by the next run, results are not
    again = run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    assert (again.n_skipped, again.n_error) == (2, 1)


def test_local_processes_give_the_same_records(tiny_sweep, tmp_path):
    """Two loky worker processes reproduce the in-process records exactly (minus timings)."""
    from lgekit.experiments import ResultsStore
    from lgekit.experiments.store import strip_timings
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
    from lgekit.experiments import ResultsStore
    from lgekit.experiments.store import strip_timings
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
    from lgekit.experiments import ResultsStore
    from lgekit.experiments.store import strip_timings
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


# ---------------------------------------------------------------------------- longest cells first (issue #14)
def test_cells_are_dispatched_longest_first(monkeypatch, tmp_path):
    from lgekit.experiments import engine, tasks
    from lgekit.experiments.plan import estimated_cost

    plan = tiny_plan(["fig4", "fig6"])
    order = engine.dispatch_order(plan.cells)
    costs = [estimated_cost(plan.cells[k]) for k in order]
    assert costs == sorted(costs, reverse=True) and sorted(order) == sorted(plan.cells)
    # ties (same cost) broken by key: the order is a function of the plan
    for (a, ca), (b, cb) in zip(zip(order, costs), zip(order[1:], costs[1:])):
        assert ca > cb or a < b
    params = [plan.cells[k]["params"] for k in order]
    assert params[0]["dim"] == 60 and plan.cells[order[0]]["model"] == "HingeEmbedding"
    assert params[-1]["dim"] == 5  # the short SGD cells fill the tail

    started = []
    run_cell = engine.run_cell

    def spy(config, **kwargs):
        started.append(cell_key(config))
        return run_cell(config, **kwargs)

    monkeypatch.setattr(engine, "run_cell", spy)
    done = engine.run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    assert started == order and done.n_run == len(order)


def test_dispatch_order_does_not_change_the_records(monkeypatch, tiny_sweep, tmp_path):
    """Cells are independent and keyed: reversed dispatch stores the same records."""
    from lgekit.experiments import ResultsStore, engine
    from lgekit.experiments.store import strip_timings

    plan_all, out, _, _ = tiny_sweep
    plan = tiny_plan(["fig6"], seeds=2)
    forward = engine.dispatch_order(plan.cells)
    monkeypatch.setattr(engine, "dispatch_order", lambda cells: list(reversed(forward)))
    engine.run_sweep(plan.cells, tmp_path, n_jobs=1, progress=False)
    ref, new = ResultsStore(out), ResultsStore(tmp_path)
    for key in plan.cells:
        assert strip_timings(ref.get(key)) == strip_timings(new.get(key))


# ---------------------------------------------------------------------------- progress (issue #16 item 5)
class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_line_progress_writes_a_line_every_interval_with_eta():
    import io

    from lgekit._progress import SweepLines

    clock, out = _Clock(), io.StringIO()
    p = SweepLines(10, initial=2, remaining_cost=80.0, stream=out, interval=5.0, clock=clock, heartbeat=False)
    clock.now += 1.0
    p.update("ok", cost=40.0)  # 1 s in: no line yet
    assert out.getvalue() == ""
    clock.now += 5.0
    p.update("diverged", cost=20.0)  # 6 s in: 60 of 80 cost units done -> 2 s to go
    clock.now += 2.0
    p.update("error", cost=5.0)  # 2 s after the last line: none
    clock.now += 65.0
    p.close()
    lines = out.getvalue().splitlines()
    assert lines == [
        "cells 4/10 done (2 reused; 1 diverged, 0 failed), elapsed 6s, ETA 2s",
        "cells 5/10 done (2 reused; 1 diverged, 1 failed), elapsed 1m13s, ETA 17s",  # 73 s x 15/65
    ]


def test_line_progress_counts_cells_when_costs_are_unknown():
    import io

    from lgekit._progress import SweepLines

    clock, out = _Clock(), io.StringIO()
    p = SweepLines(4, stream=out, interval=0.0, clock=clock, heartbeat=False)
    assert p.line() == "cells 0/4 done (0 diverged, 0 failed), elapsed 0s, ETA unknown"
    clock.now += 3600 + 30
    p.update("ok")
    assert out.getvalue().splitlines()[-1] == "cells 1/4 done (0 diverged, 0 failed), elapsed 1h00m30s, ETA 3h01m30s"
    for _ in range(3):
        p.update("ok")
    assert out.getvalue().splitlines()[-1].endswith(", done")


def test_line_progress_heartbeat_while_no_cell_finishes():
    """In a log, a cell that runs for minutes must not look like a hang: lines keep coming."""
    import io
    import time

    from lgekit._progress import SweepLines

    out = io.StringIO()
    p = SweepLines(3, stream=out, interval=0.05)
    time.sleep(0.5)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and all(line.startswith("cells 0/3 done") for line in lines)


def test_progress_display_follows_the_stream():
    import io

    from lgekit import _progress as progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    line = progress.sweep_progress(3, stream=io.StringIO(), interval=0)
    assert isinstance(line, progress.SweepLines)
    line.close()
    bar = progress.sweep_progress(3, stream=Terminal())
    assert type(bar).__name__ == "_SweepBar" and type(bar.bar).__module__.startswith("tqdm")
    bar.update("diverged")
    bar.close()
    assert "1 diverged, 0 failed" in bar.bar.postfix
    assert type(progress.sweep_progress(3, stream=Terminal(), enabled=False)).__name__ == "_Silent"


def test_sweep_piped_to_a_file_prints_progress_lines(monkeypatch, capsys, tmp_path):
    """The one interval of lgekit._progress, set after every import, reaches the sweep (issue 22)."""
    from lgekit import _progress
    from lgekit.experiments.engine import run_sweep

    monkeypatch.setattr(_progress, "PROGRESS_INTERVAL", 0.0)  # a line per cell
    plan = tiny_plan(["fig6"])
    run_sweep(plan.cells, tmp_path, n_jobs=1, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" done")[0] for line in err if line.startswith("cells ")][-3:] == \
        ["cells 1/3", "cells 2/3", "cells 3/3"]
    assert "elapsed" in err[-1] and err[-1].endswith(", done")


# ---------------------------------------------------------------------------- a figure whose every run diverged
def test_report_says_when_every_run_of_a_figure_diverged(tmp_path):
    """Issue #17 item 7: on a graph where every cell diverges the report says so, and why."""
    from lgekit.experiments import ResultsStore
    from lgekit.experiments.report import write_outputs

    plan = tiny_plan(["fig1", "fig6"])
    store = ResultsStore(tmp_path)
    for key, config in plan.cells.items():
        diverged = config["model"] == "LogisticEmbedding"
        history = [{"epoch": 0, "mean_norm": None, "objective": None, "diverged": True,
                    "divergence_reason": "non-finite values (objective, mean_norm)"}] if diverged else \
            [{"epoch": t, "mean_norm": 1.0, "test_ap": 0.7} for t in range(4)]
        store.put({"key": key, "config": config, "status": "diverged" if diverged else "ok", "history": history,
                   "metrics": {} if diverged else {"test_ap": 0.7, "train_ap": 0.8},
                   "diverged_epoch": 0 if diverged else None,
                   "error": {"type": "DivergenceError", "message": "diverged", "reason": "x"} if diverged else None})
    outputs = write_outputs(plan, store)
    assert outputs.all_diverged == ["fig1"]
    (v1,) = [v for v in outputs.verdicts if v.figure == "fig1"]
    assert v1.status == "INCONCLUSIVE"
    assert "every one of the 4 runs diverged" in v1.evidence
    assert "non-finite values (objective, mean_norm)" in v1.evidence
    md = (tmp_path / "report.md").read_text()
    assert "**Every run of fig1 diverged**" in md
    fig1 = md.split("## Figure 1:")[1].split("\n## ")[0]
    assert ("**Every run of this figure diverged** (4 runs diverged at epoch 1; reason: non-finite values "
            "(objective, mean_norm) (4 runs))") in fig1
    assert "lam_r=0 seed=0 at epoch 1: non-finite values (objective, mean_norm)" in fig1
    assert "Every run of this figure diverged" not in md.split("## Figure 6:")[1]
    assert "Every run of this figure diverged" in (tmp_path / "report.html").read_text()
    import json

    assert json.loads((tmp_path / "summary.json").read_text())["all_diverged"] == ["fig1"]


# ---------------------------------------------------------------------------- the public callbacks record a cell
def test_recording_callbacks_are_the_public_ones():
    from lgekit.callbacks import LinkPredictionCallback, NodeClassificationCallback
    from lgekit.experiments.tasks import AtEpochs, recording_callbacks

    split = object.__new__(type("S", (), {}))
    for attr in ("train_positives", "train_negatives", "test_positives", "test_negatives"):
        setattr(split, attr, np.zeros((1, 2), dtype=np.int64))
    labels = np.eye(3)
    lp, f1 = recording_callbacks(split, {"ap_every": 2, "train_ap": True, "f1_epochs": [1, 5]}, labels, seed=7)
    assert isinstance(lp, LinkPredictionCallback) and (lp.every, lp.train, lp.seed) == (2, True, 7)
    assert isinstance(f1, AtEpochs) and isinstance(f1.callback, NodeClassificationCallback)
    assert f1.epochs == {1, 5} and f1.callback.seed == 7 and f1.callback.every == 1
    assert recording_callbacks(split, {"f1_epochs": [1]}, None) == []  # no labels, no F1
    with pytest.raises(ValueError, match="unknown record key 'test_ap_every'"):
        recording_callbacks(split, {"test_ap_every": 1})


def test_at_epochs_calls_only_at_its_epochs():
    from lgekit.callbacks import Callback
    from lgekit.experiments.tasks import AtEpochs

    class Count(Callback):
        def __init__(self):
            self.calls = []

        def on_epoch_end(self, model, epoch, record):
            self.calls.append(epoch)
            record["x"] = epoch
            return epoch == 4

    inner = Count()
    cb = AtEpochs(inner, [2, 5])
    records = [{} for _ in range(6)]
    stops = [cb.on_epoch_end(None, t, records[t]) for t in range(6)]
    assert inner.calls == [1, 4] and stops == [False, False, False, False, True, False]
    assert [("x" in r, "eval_seconds" in r) for r in records] == [(False, False), (True, True), (False, False),
                                                                  (False, False), (True, True), (False, False)]
