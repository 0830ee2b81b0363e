"""Verdict rules, plots and the report on synthetic record sets whose answer is known."""
import itertools

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
    assert v.verdict == V.INCONCLUSIVE and "1 diverged" in v.evidence


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
