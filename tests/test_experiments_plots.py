"""Figures 1-6 on synthetic runs whose picture is known: series, shared axes, AP ranges, diverged runs,
integer epoch ticks, panel letters, and stale figures removed from a reused output folder."""
import itertools

import numpy as np
import pytest

from lgekit.experiments.figures import plot_figure
from lgekit.experiments.plan import effective_spec
from lgekit.experiments.spec import cell_key

_counter = itertools.count()
T = np.arange(1, 21, dtype=float)


def _run(history=None, status="ok", metrics=None, seed=0, diverged_epoch=None, reason=None, **grid):
    """A run as plots/verdicts see it; ``history`` maps key -> per-epoch values (None: not recorded)."""
    history = history or {}
    n = max((len(v) for v in history.values()), default=0)
    hist = [{"epoch": t, **{k: v[t] for k, v in history.items() if t < len(v) and v[t] is not None}}
            for t in range(n)]
    if status == "diverged":
        if not hist:
            hist = [{"epoch": 0}]
        hist[-1]["diverged"] = True
        hist[-1]["divergence_reason"] = reason or "non-finite values (objective)"
        diverged_epoch = len(hist) - 1 if diverged_epoch is None else diverged_epoch
    return {"key": cell_key({"n": next(_counter)}), "seed": seed, "status": status, "history": hist,
            "metrics": metrics or {}, "diverged_epoch": diverged_epoch, "error": None,
            "divergence_reason": reason, **grid}


def _overfit_curve(peak_epoch=6, peak=0.8, drop=0.06, n=20):
    up = np.linspace(0.5, peak, peak_epoch)
    down = np.linspace(peak, peak - drop, n - peak_epoch + 1)[1:]
    return list(np.concatenate([up, down]))


def _fig4(overfits_by_dim, lams=(0.0, 1.0)):
    runs = []
    for dim, overfits in overfits_by_dim.items():
        curve = _overfit_curve() if overfits else list(np.linspace(0.5, 0.8, 20))
        runs.append(_run({"test_ap": curve}, lam_r=lams[0], dim=dim))
        for lam in lams[1:]:
            runs.append(_run({"test_ap": list(np.linspace(0.6, 0.9, 20))}, lam_r=lam, dim=dim))
    return runs


def _points(name, values, extra=None):
    runs = []
    for x, v in values.items():
        if v == "diverged":
            runs.append(_run({"mean_norm": [1.0, 30.0, 900.0], "test_ap": [0.41, 0.33, None],
                              "train_ap": [0.6, 0.7, None]}, status="diverged", **{name: x}))
        else:
            runs.append(_run(metrics={"test_ap": v, **(extra or {})}, **{name: x}))
    return runs


def _draw(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


def _titles(fig):
    return [ax.get_title() for ax in fig.axes]


# ---------------------------------------------------------------------------- per-epoch figures
def test_epoch_figure_series_bands_and_where_a_run_diverged():
    runs = [_run({"mean_norm": list(1 + np.sqrt(T) + 0.1 * s)}, lam_r=0.0, seed=s) for s in range(3)]
    runs.append(_run({"mean_norm": list(1 + T)}, lam_r=1.0))
    runs.append(_run({"mean_norm": [1.0, 5.0, 50.0, None]}, status="diverged", lam_r=0.2))
    fig, drawn = plot_figure("fig1", runs, effective_spec("fig1"))
    (panel,) = drawn["panels"]
    assert [s["label"] for s in panel["series"]] == ["λr = 0", "λr = 0.2", "λr = 1"]
    s0 = panel["series"][0]
    assert s0["n_seeds"] == 3 and np.allclose(s0["y"], 1 + np.sqrt(T) + 0.1)
    div = panel["series"][1]
    assert div["n_diverged"] == 1 and div["x"] == []
    # diverged during its 4th epoch, having reached a mean norm of 50 after the 3rd
    assert div["diverged"] == [{"seed": 0, "epoch": 4, "reached": [3, 50.0]}]
    ax = fig.axes[0]
    assert len(ax.collections) == 1  # one ± std band: only λr = 0 has several seeds
    assert [t.get_text() for t in ax.texts] == ["λr = 0.2: diverged (epoch 4)"]
    assert ax.texts[0].xy == (4, 50.0)
    crosses = [line for line in ax.lines if line.get_marker() == "x"]
    assert [(list(c.get_xdata()), list(c.get_ydata())) for c in crosses] == [([4], [50.0])]
    (dotted,) = [line for line in ax.lines if line.get_linestyle() == ":"]  # the partial curve, on to the ✕
    assert list(dotted.get_xdata()) == [1, 2, 3, 4] and list(dotted.get_ydata()) == [1.0, 5.0, 50.0, 50.0]
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"λr = 0", "λr = 0.2 (diverged)", "λr = 1"}


def test_a_run_that_diverged_before_recording_is_marked_on_the_epoch_axis():
    runs = [_run({"mean_norm": list(1 + T)}, lam_r=1.0), _run(status="diverged", lam_r=0.0)]
    fig, drawn = plot_figure("fig1", runs, effective_spec("fig1"))
    assert drawn["panels"][0]["series"][0]["diverged"] == [{"seed": 0, "epoch": 1, "reached": None}]
    ax = fig.axes[0]
    (cross,) = [line for line in ax.lines if line.get_marker() == "x"]
    # x in data (epoch 1), y in axes coordinates (0 = the bottom axis)
    assert cross.get_transform() == ax.get_xaxis_transform()
    assert list(cross.get_xdata()) == [1] and list(cross.get_ydata()) == [0.0]
    assert [t.get_text() for t in ax.texts] == ["λr = 0: diverged (epoch 1)"]


@pytest.mark.parametrize("name", ["fig1", "fig2", "fig3", "fig4"])
def test_epoch_ticks_are_integers(name):
    key = {"fig1": "mean_norm", "fig2": "mean_grad_norm"}.get(name, "test_ap")
    runs = [_run({key: [0.5, 0.6, 0.55]}, lam_r=0.0, dim=30)]
    fig, _ = plot_figure(name, runs, effective_spec(name))
    _draw(fig)
    for ax in fig.axes:
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_single_panel_figures_have_no_panel_letter():
    assert _titles(plot_figure("fig1", [_run({"mean_norm": list(T)}, lam_r=0.0)], effective_spec("fig1"))[0]) == [""]
    assert _titles(plot_figure("fig2", [_run({"mean_grad_norm": list(T)}, lam_r=0.0)],
                               effective_spec("fig2"))[0]) == [""]
    assert _titles(plot_figure("fig3", [_run({"test_ap": _overfit_curve()}, lam_r=0.0)],
                               effective_spec("fig3"))[0]) == ["link prediction"]
    assert _titles(plot_figure("fig4", _fig4({30: True}, lams=(0.0,)), effective_spec("fig4"))[0]) == ["λr = 0"]
    assert _titles(plot_figure("fig5", _points("lam_r", {0.1: 0.6, 1.0: 0.8}), effective_spec("fig5"))[0]) == [""]
    assert _titles(plot_figure("fig6", _points("dim", {30: 0.8, 100: 0.8}), effective_spec("fig6"))[0]) == [""]
    for fig, _ in (plot_figure("fig1", [], effective_spec("fig1")), plot_figure("fig6", [], effective_spec("fig6"))):
        assert not any(t.startswith("(") for t in _titles(fig))


def test_fig3_has_lettered_f1_panels_only_with_labels():
    spec = effective_spec("fig3")
    plain = [_run({"test_ap": _overfit_curve()}, lam_r=0.0)]
    assert len(plot_figure("fig3", plain, spec)[1]["panels"]) == 1
    hist = {"test_ap": _overfit_curve(), "micro_f1": [None] * 4 + [0.3] + [None] * 15,
            "macro_f1": [None] * 4 + [0.2] + [None] * 15}
    fig, drawn = plot_figure("fig3", [_run(hist, lam_r=0.0)], spec)
    assert [p["ylabel"] for p in drawn["panels"]] == ["test AP", "Micro-F1", "Macro-F1"]
    titles = [p["title"] for p in drawn["panels"]]
    assert titles == ["(a) link prediction", "(b) node classification: Micro-F1",
                      "(c) node classification: Macro-F1"]
    assert len(set(titles)) == len(titles)      # two panels never share a title (issue 35 item 7)
    assert drawn["panels"][1]["series"][0]["x"] == [5]
    assert len(fig.axes) == 3


def test_fig4_panels_share_their_y_axis():
    runs = _fig4({5: False, 30: True, 100: True})
    runs.append(_run({"test_ap": list(np.linspace(0.2, 0.3, 20))}, lam_r=1.0, dim=5))  # a low curve in panel (b)
    fig, drawn = plot_figure("fig4", runs, effective_spec("fig4"))
    assert [p["title"] for p in drawn["panels"]] == ["(a) λr = 0", "(b) λr = 1"]
    assert [s["label"] for s in drawn["panels"][0]["series"]] == ["D = 5", "D = 30", "D = 100"]
    a, b = fig.axes
    assert drawn["sharey"] and a.get_shared_y_axes().joined(a, b)
    _draw(fig)
    assert a.get_ylim() == b.get_ylim() and a.get_ylim()[0] <= 0.2  # panel (a) shows (b)'s low curve's range


# ---------------------------------------------------------------------------- final-metric figures
def test_fig5_shows_where_each_run_diverged_and_what_it_reached():
    runs = _points("lam_r", {0.01: "diverged", 0.1: 0.6, 1.0: 0.8, 100.0: 0.7}, extra={"train_ap": 0.9})
    fig, drawn = plot_figure("fig5", runs, effective_spec("fig5"))
    main, diverged = drawn["panels"]
    assert main["xscale"] == "log" and fig.axes[0].get_xscale() == "log"
    assert [s["label"] for s in main["series"]] == ["train AP", "test AP"]
    assert main["series"][1]["x"] == [0.1, 1.0, 100.0]
    # panel (a): the ✕ at λr = 0.01 is at the last test AP the run reached (0.33 after epoch 2), labelled
    assert main["diverged_x"] == [0.01]
    assert main["diverged"] == [{"x": 0.01, "seed": 0, "epoch": 3, "test_ap": 0.33, "label": "λr = 0.01"}]
    ax_a, ax_b = fig.axes
    assert ([line.get_ydata()[0] for line in ax_a.lines if line.get_marker() == "x" and len(line.get_xdata())]
            == [0.33])
    assert "epoch 3" in [t.get_text() for t in ax_a.texts]
    # panel (b): that run's AP per epoch up to the epoch it diverged, marked and labelled on the epoch axis
    assert [p["title"] for p in drawn["panels"]] == ["(a) D = 100", "(b) diverged runs: AP per epoch until divergence"]
    (series,) = diverged["series"]
    assert series["epoch"] == 3 and series["test_ap"] == [(1, 0.41), (2, 0.33)]
    assert series["train_ap"] == [(1, 0.6), (2, 0.7)]
    assert "λr = 0.01 diverged (epoch 3)" in [t.get_text() for t in ax_b.texts]
    assert ax_b.get_xlim()[1] > 3  # the divergence epoch inside the frame
    for ax in (ax_a, ax_b):
        assert ax.get_ylim() == (0.0, 1.0)


def test_fig5_without_divergence_is_one_panel():
    fig, drawn = plot_figure("fig5", _points("lam_r", {0.1: 0.6, 1.0: 0.8}), effective_spec("fig5"))
    assert len(drawn["panels"]) == 1 and len(fig.axes) == 1 and "diverged" not in drawn["panels"][0]


def test_fig6_full_ap_range_and_a_spread_band():
    """A flat result must look flat: AP on [0, 1], and the claim's spread (over D >= 30) shaded."""
    runs = _points("dim", {10: 0.6, 30: 0.80, 100: 0.81, 1600: 0.805})
    fig, drawn = plot_figure("fig6", runs, effective_spec("fig6"))
    (panel,) = drawn["panels"]
    assert panel["xlabel"] == "dimension D" and panel["series"][0]["x"] == [10.0, 30.0, 100.0, 1600.0]
    assert panel["ylim"] == [0.0, 1.0] and fig.axes[0].get_ylim() == (0.0, 1.0)
    assert panel["spread_band"] == pytest.approx([0.80, 0.81])  # D = 10 is outside the claim
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "spread over D ≥ 30: 0.010 (insensitive if ≤ 0.02)" in legend


# ---------------------------------------------------------------------------- stale figures
def test_rerun_into_a_folder_with_other_figures_removes_them(tmp_path):
    """A new report never stands beside an earlier run's figures; figures lgekit did not write stay (issue 26)."""
    from lgekit._output_folder import OutputFolder
    from lgekit.experiments import expand
    from lgekit.experiments.report import write_outputs

    earlier = OutputFolder(tmp_path, command="lgekit reproduce")  # an earlier run's figures, listed in the folder's manifest
    for i in range(1, 7):
        for ext in ("png", "pdf"):
            earlier.write_bytes(f"fig{i}.{ext}", b"old")
    (tmp_path / "fig5.pdf").write_bytes(b"edited by the user")  # no longer lgekit's
    user = {"fig3.pdf.orig": b"mine", "fig10.txt": b"mine", "myfig5.png": b"mine", "fig2.png.bak": b"mine",
            "fig8.png": b"the user's own, named like a figure", "fig5.pdf": b"edited by the user"}
    for name, data in user.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "fig7.png").mkdir()  # not a file: left alone
    plan = expand(["fig4"], dataset={"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 200, "seed": 0}},
                  quick=True)
    outputs = write_outputs(plan, tmp_path)  # no cell computed: the figure is drawn empty
    names = sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".png", ".pdf"))
    assert names == ["fig4.pdf", "fig4.png", "fig5.pdf", "fig7.png", "fig8.png", "myfig5.png"]
    assert (tmp_path / "fig4.png").read_bytes() != b"old"
    for name, data in user.items():
        assert (tmp_path / name).read_bytes() == data
    assert sorted(outputs.removed) == sorted(f"fig{i}.{ext}" for i in (1, 2, 3, 5, 6) for ext in ("png", "pdf")
                                             if f"fig{i}.{ext}" != "fig5.pdf")
    md = (tmp_path / "report.md").read_text()
    assert "Removed from this folder" in md and "fig1.png" in md


# ---------------------------------------------------------------------------- figures that say what they show
# issue 27 item 6
def _all_figures_runs():
    f1 = [None] * 20
    f1[0], f1[4], f1[19] = 0.5, 0.6, 0.7
    sgd = [_run({"mean_norm": list(T), "mean_grad_norm": list(1 / T), "test_ap": _overfit_curve(), "micro_f1": f1,
                 "macro_f1": f1}, lam_r=lam, dim=30) for lam in (0.0, 1.0)]
    return {"fig1": sgd, "fig2": sgd, "fig3": sgd, "fig4": sgd,
            "fig5": _points("lam_r", {0.1: 0.6, 1.0: 0.8}), "fig6": _points("dim", {30: 0.8, 100: 0.8})}


def test_every_figure_names_its_data_set_and_mode():
    from types import SimpleNamespace

    from lgekit.experiments.report import figure_subtitle

    quick = figure_subtitle(SimpleNamespace(dataset={"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 1000,
                                                                                                 "seed": 0}},
                                            quick=True, seeds=[0]))
    headline = "Graph: 1,000-node synthetic, not BlogCatalog (quick smoke test)"
    details = ("data set: synthetic-blogcatalog (n_nodes=1000, seed=0), a synthetic stand-in for BlogCatalog; "
               "quick mode (fewer epochs and grid points), 1 seed")
    assert quick == f"{headline}\n{details}"
    full = figure_subtitle(SimpleNamespace(dataset={"path": "/data/my-graph.txt", "sha256": "0" * 64}, quick=False,
                                           seeds=[0, 1, 2]))
    assert full == ("Graph: my-graph.txt, as --dataset asked\n"
                    "data set: my-graph.txt; full mode (the paper's epochs and grids), 3 seeds")
    for name, runs in _all_figures_runs().items():
        spec = effective_spec(name, quick=True)
        fig, drawn = plot_figure(name, runs, spec, quick)
        # the figure's first line says which graph and why; the title, then the details (wrapped) follow
        first, rest = fig.get_suptitle().split("\n", 1)
        assert first == headline, name
        assert " ".join(rest.split()) == f"{spec.title} {details}", name
        assert drawn["subtitle"] == quick


def test_log_axes_show_plain_tick_labels():
    runs = _all_figures_runs()
    fig, _ = plot_figure("fig2", runs["fig2"], effective_spec("fig2"))
    _draw(fig)
    y = fig.axes[0].yaxis
    assert [y.get_major_formatter()(v, 0) for v in (0.01, 1.0, 10.0)] == ["0.01", "1", "10"]
    y.axes.set_ylim(0.4, 2.2)  # under 1.5 decades: the minor ticks at 2, 3, 5 x a decade are labelled, plainly
    assert [y.get_minor_formatter()(v, 0) for v in (0.5, 0.6, 2.0)] == ["0.5", "", "2"]
    fig, _ = plot_figure("fig5", _points("lam_r", {0.01: 0.6, 1.0: 0.8, 100.0: 0.7}), effective_spec("fig5"))
    _draw(fig)
    x = fig.axes[0].xaxis  # 4 decades: decades only
    assert [x.get_major_formatter()(v, 0) for v in (0.01, 100.0)] == ["0.01", "100"]
    assert x.get_minor_formatter()(0.02, 0) == ""
    labels = [t.get_text() for t in x.get_ticklabels() if t.get_text()]
    assert labels and not [s for s in labels if "e" in s or "×" in s or "$" in s], labels


def test_f1_sampled_at_a_few_epochs_is_drawn_as_markers_on_dotted_lines():
    fig, drawn = plot_figure("fig3", _all_figures_runs()["fig3"], effective_spec("fig3", quick=True))
    _draw(fig)
    for ax in fig.axes[1:]:
        assert list(ax.get_xticks()) == [1, 5, 20]
        for line in ax.get_lines():
            assert (line.get_marker(), line.get_linestyle()) == ("o", ":")
    assert [line.get_marker() for line in fig.axes[0].get_lines()] == ["None", "None"]  # test AP: every epoch


def test_the_note_names_figure_4s_largest_d_of_its_mode():
    for name in ("fig1", "fig2", "fig3", "fig4"):
        full, quick = effective_spec(name).note, effective_spec(name, quick=True).note
        assert "Figure 4's largest D = 300" in full and "Figure 4's largest D" not in quick, name
        assert "quick mode keeps that c although its Figure 4 stops at D = 100" in quick
    assert max(effective_spec("fig4", quick=True).grid["dim"]) == 100
