"""Figures, verdicts and the report of a sweep: ``report.md`` and ``report.html`` (images inline).

:func:`write_outputs` reads the records of a plan from the store, draws each
figure (PNG + PDF), applies each claim's verdict rule and writes the report;
:func:`reproduce` is the whole pipeline (expand, run, write) behind
``lgekit reproduce``.
"""
import base64
import datetime
import html
import json
import logging
import re

from .. import datasets
from .._json import to_json_safe
from .aggregate import divergence_summary, format_spread, last_value, runs_for_figure
from .engine import run_sweep
from .figures import judge, plot_figure
from .plan import expand
from .plotting import save_figure
from .spec import DEFAULT_DATASET, SPLIT, THRESHOLDS, dataset_label, default_seeds
from .store import ResultsStore
from .verdict import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

__all__ = ["write_outputs", "reproduce", "Outputs", "figure_subtitle", "graph_headline", "graph_reason", "planned_files", "remove_stale_figures"]

logger = logging.getLogger(__name__)


class Outputs:
    """What :func:`write_outputs` produced: paths, verdicts, drawn-figure descriptions, errors.

    ``removed`` lists the figure files of an earlier run that were deleted;
    ``all_diverged`` the figures every run of which diverged.
    """

    def __init__(self):
        self.figures = {}      # name -> [png, pdf]
        self.drawn = {}        # name -> description (see plots)
        self.verdicts = []     # Verdict objects
        self.errors = []       # error records (status "error") of the plan
        self.diverged = []     # (figure, entry) of diverged runs
        self.missing = []      # keys of cells without a record
        self.removed = []      # figure files of an earlier report that this one does not draw (deleted)
        self.all_diverged = []  # figures every run of which diverged
        self.report_md = None
        self.report_html = None
        self.summary_json = None
        self.headline = None   # graph_headline: which graph the run used, and why


def _fmt_params(params, grid):
    fixed = {k: v for k, v in params.items() if k not in grid and k not in ("random_state", "n_threads")}
    return ", ".join(f"{k}={v}" for k, v in sorted(fixed.items()))


def _grid_text(grid):
    return "; ".join(f"{k} ∈ {{{', '.join(f'{v:g}' for v in values)}}}" for k, values in grid.items())


def write_outputs(plan, out, *, result=None, command=None):
    """Draw the figures and write ``report.md``, ``report.html`` and ``summary.json`` into ``out``.

    Parameters
    ----------
    plan : Plan
    out : str, path or ResultsStore
        The output folder (holding the results store); pass the store whose
        :meth:`~ResultsStore.lock` the caller holds to write under that lock.
    result : SweepResult, optional
        Adds the sweep's wall time and outcome counts to the report.
    command : str, optional
        The command line that produced the results (quoted in the report).

    Returns
    -------
    Outputs

    Raises
    ------
    RuntimeError
        When another run holds the folder's lock (see :meth:`ResultsStore.lock`).
    """
    store = out if isinstance(out, ResultsStore) else ResultsStore(out)
    # under the folder lock, one run of the folder: the figures and the report are published together
    with store.lock(), store.output.run():
        return _write_outputs(plan, store, result, command)


def graph_headline(dataset):
    """The first line of the report, of every figure and of the command's output: which graph, and why.

    Short enough for the first line of a one-panel figure; :func:`graph_reason`
    says the rest.  A quick run's default graph is a small generated one, not
    BlogCatalog: a figure shared alone must say so before anything else.

    Examples
    --------
    >>> graph_headline({"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 1000, "seed": 0}})
    'Graph: 1,000-node synthetic, not BlogCatalog (quick smoke test)'
    >>> graph_headline({"name": "blogcatalog", "kwargs": {}})
    'Graph: blogcatalog, as --dataset asked'
    """
    if dataset.get("name") == DEFAULT_DATASET:
        n = dataset.get("kwargs", {}).get("n_nodes", datasets.info(DEFAULT_DATASET).n_nodes)
        why = "quick smoke test" if "n_nodes" in dataset.get("kwargs", {}) else "the default, no download"
        return f"Graph: {n:,}-node synthetic, not BlogCatalog ({why})"
    return f"Graph: {dataset_label(dataset)}, as --dataset asked"


def graph_reason(dataset, *, negatives_per_positive=SPLIT["negatives_per_positive"]):
    """What follows :func:`graph_headline` in the report: the graph exactly, why it ran, where the paper's is.

    For the embedded default it says where BlogCatalog is (found on this
    machine, or how to fetch it), and for every graph the test AP of a
    random embedding (:math:`1 / (1 + r)` with ``r`` negatives per
    positive), so that a low AP is read against chance, not against 0.
    """
    chance = (f"A random embedding's test AP is 1/(1+{negatives_per_positive}) = "
              f"{1 / (1 + negatives_per_positive):.2f} here ({negatives_per_positive} negatives per held-out edge).")
    if dataset.get("name") != DEFAULT_DATASET:
        return f"The run used {dataset_label(dataset)}, the data set given by --dataset. {chance}"
    quick = "n_nodes" in dataset.get("kwargs", {})
    found = datasets.locate("blogcatalog")
    where = (f"BlogCatalog is on this machine ({found}): `lgekit reproduce --dataset blogcatalog` runs the paper's "
             "setting on it." if found is not None else
             "BlogCatalog is not on this machine: `lgekit datasets fetch blogcatalog`, then `lgekit reproduce "
             "--dataset blogcatalog`, runs the paper's setting.")
    what = (f"`lgekit reproduce` without --dataset runs {'quick mode on ' if quick else ''}"
            f"{dataset_label(dataset)}, a generated BlogCatalog-shaped graph (`lgekit datasets list` lists it)"
            + (", small so that the whole pipeline is checked quickly; its numbers are not the paper's, which "
               "come from BlogCatalog." if quick else
               ", which needs no download; it has BlogCatalog's size, not its edges, so its numbers are not the "
               "paper's."))
    return f"{what} {where} {chance}"


def figure_subtitle(plan):
    """The lines around every figure's title: first :func:`graph_headline`, then the data set and the mode.

    Returned as ``"headline\\ndetails"``: :func:`lgekit.experiments.plotting.new_figure`
    puts the headline above the title, so that a PNG shared alone says on
    its first line which graph it shows and why.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> print(figure_subtitle(SimpleNamespace(dataset={"name": "blogcatalog", "kwargs": {}}, quick=False, seeds=[0, 1])))
    Graph: blogcatalog, as --dataset asked
    data set: blogcatalog; full mode (the paper's epochs and grids), 2 seeds
    """
    label = dataset_label(plan.dataset)
    if plan.dataset.get("name", "").startswith("synthetic"):
        label += (", a synthetic stand-in for BlogCatalog" if plan.dataset["name"] == DEFAULT_DATASET
                  else ", a synthetic graph")
    mode = ("quick mode (fewer epochs and grid points)" if plan.quick
            else "full mode (the paper's epochs and grids)")
    seeds = len(plan.seeds)
    return f"{graph_headline(plan.dataset)}\ndata set: {label}; {mode}, {seeds} seed{'s' if seeds != 1 else ''}"


def _write_outputs(plan, store, result, command):
    outputs = Outputs()
    records = {}
    for key in plan.cells:
        rec = store.get(key)
        if rec is None:
            outputs.missing.append(key)
        else:
            records[key] = rec
            if rec.get("status") == "error":
                outputs.errors.append(rec)
    sections = []
    for name, entries in plan.figures.items():
        spec = plan.specs[name]
        runs = runs_for_figure(entries, records)
        fig, drawn = plot_figure(name, runs, spec, figure_subtitle(plan))
        outputs.figures[name] = save_figure(fig, store.output, name)
        outputs.drawn[name] = drawn
        verdicts = [judge(claim, runs, spec.thresholds) for claim in spec.claims]
        outputs.verdicts.extend(verdicts)
        for run in runs:
            if run["status"] == "diverged":
                outputs.diverged.append((name, run))
        if _all_diverged(runs):
            outputs.all_diverged.append(name)
        sections.append((name, spec, runs, verdicts))
    outputs.removed = remove_stale_figures(store.output, keep=plan.figures)
    n_status = {}
    for rec in records.values():
        n_status[rec.get("status")] = n_status.get(rec.get("status"), 0) + 1
    outputs.headline = graph_headline(plan.dataset)
    context = {
        "headline": outputs.headline,
        "reason": graph_reason(plan.dataset),
        "dataset": dataset_label(plan.dataset),
        "mode": "quick" if plan.quick else "full",
        "seeds": plan.seeds,
        "n_cells": len(plan.cells),
        "n_status": n_status,
        "missing": len(outputs.missing),
        "result": result,
        "command": command,
        "generated": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "versions": next((r.get("versions") for r in records.values() if r.get("versions")), {}),
        "dataset_info": next((r.get("dataset") for r in records.values() if r.get("dataset")), {}),
        "compute_seconds": sum((r.get("timings") or {}).get("total", 0.0) or 0.0 for r in records.values()),
    }
    md = _markdown(sections, outputs, context)
    outputs.report_md = store.output.write_text("report.md", md)
    outputs.report_html = store.output.write_text("report.html", _html(sections, outputs, context, store.output))
    summary = {
        "dataset": plan.dataset, "mode": context["mode"], "seeds": plan.seeds, "n_cells": len(plan.cells),
        "status_counts": n_status, "missing": outputs.missing,
        "verdicts": [{"claim": v.claim, "figure": v.figure, "verdict": v.status, "statement": v.statement,
                      "evidence": v.evidence, "thresholds": v.thresholds,
                      "differs_from_paper": v.numbers.get("differs_text"),
                      "spread_over_seeds": to_json_safe(v.numbers.get("spread", []))} for v in outputs.verdicts],
        "wall_seconds": None if result is None else result.seconds,
        "figures": {name: [p.name for p in paths] for name, paths in outputs.figures.items()},
        "thresholds": {name: dict(spec.thresholds) for name, spec in plan.specs.items()},
        "all_diverged": outputs.all_diverged,
    }
    outputs.summary_json = store.output.write_text("summary.json", json.dumps(summary, indent=2, ensure_ascii=False)
                                                   + "\n")
    return outputs


#: the figure files a report writes (and only those are ever removed as stale)
_FIGURE_FILE = re.compile(r"(fig[1-9][0-9]*)\.(?:png|pdf)")
#: the formats each figure is saved in (:func:`lgekit.experiments.plotting.save_figure`)
FIGURE_FORMATS = ("png", "pdf")


def planned_files(plan):
    """Every file name a reproduce of ``plan`` writes in its output folder (besides ``cells/``)."""
    return (["plan.json", "records.jsonl", "report.md", "report.html", "summary.json"]
            + [f"{name}.{ext}" for name in plan.figures for ext in FIGURE_FORMATS])


def remove_stale_figures(output, keep):
    """Delete the figure files of an earlier run that the report being written does not draw.

    An earlier run into the same folder (another data set, or other figures)
    left its ``figN.png``/``figN.pdf``; beside a new report they would pass for
    its results.  Only files the folder's manifest proves lgekit wrote
    (:meth:`lgekit._output_folder.OutputFolder.remove_stale`) are removed: a
    ``fig2.png`` of the user's, or one the user changed, stays.  Their cells
    stay in the store, so rerunning those figures redraws them without
    recomputing.

    Parameters
    ----------
    output : OutputFolder
    keep : iterable of str
        Figure names (``"fig4"``) of the current report.

    Returns
    -------
    list of str
        The names of the files removed.
    """
    keep = {f"{name}.{ext}" for name in keep for ext in FIGURE_FORMATS}
    removed = output.remove_stale(keep, match=_FIGURE_FILE.fullmatch)
    if removed:
        logger.info("removed the figures of an earlier run that this report does not draw: %s", ", ".join(removed))
    return removed


def _all_diverged(runs):
    judged = [r for r in runs if r["status"] != "error"]
    return bool(judged) and all(r["status"] == "diverged" for r in judged)


def _threshold_lines(spec):
    """The figure's verdict thresholds, one markdown bullet each: name, value, meaning."""
    return [f"* `{name}` = {value:g}: {THRESHOLDS.get(name, '')}" for name, value in spec.thresholds.items()]


def _spread_text(verdict, seeds):
    """The verdict's decisive quantities over seeds, min / median / max per grid point (one line)."""
    rows = (verdict.numbers or {}).get("spread") or []
    if not rows:
        return None
    if len(seeds) < 2:
        return (f"Judged on one seed ({seeds[0]}): no spread over seeds is shown; the full settings are judged "
                "over 3 seeds (`--seeds 3`, the default of `--full`).") if seeds else None
    return (f"Over the {len(seeds)} seeds (min / median / max, n finished runs): "
            + "; ".join(f"{r['point']} {r['quantity']} {format_spread(r)}" for r in rows) + ".")


def _differs_text(verdict):
    """The 'differs from the paper' line of a verdict that reproduces the main claim but not every detail."""
    text = (verdict.numbers or {}).get("differs_text")
    return f"Differs from the paper: {text}." if text else None


def _diverged_text(runs):
    """Each diverged run: where it diverged, what it reached, the reason recorded."""
    parts = []
    for r in runs:
        if r["status"] != "diverged":
            continue
        epoch = r["diverged_epoch"] + 1 if r.get("diverged_epoch") is not None else "?"
        reached = _reached(r)
        parts.append(f"{_run_label(r)} at epoch {epoch}" + (f" ({reached})" if reached else "")
                     + f": {r.get('divergence_reason') or 'no reason recorded'}")
    return parts


def _reached(run):
    out = []
    for key, label in (("test_ap", "last test AP"), ("mean_norm", "last mean norm")):
        value = last_value(run, key)
        if value is not None:
            out.append(f"{label} {value[1]:.3g} at epoch {value[0]}")
    return ", ".join(out)


_BADGE = {REPRODUCED: "✅", NOT_REPRODUCED: "❌", INCONCLUSIVE: "❔"}

#: the rule for a figure some of whose cells failed (lgekit.experiments.verdict.judged), said in every report
_FAILED_RULE = ("A failed cell (it raised, its worker died, or it has no record) is never drawn nor judged. A figure "
                "with failed cells is judged on the cells that finished only when every grid point of the figure "
                "kept at least one finished run; otherwise its verdicts are INCONCLUSIVE, whatever the remaining "
                "cells show. Either way the verdict says how many of its runs failed.")


def _failed_note(verdict):
    """`` (3 of 20 runs failed)`` for a verdict judged with failed runs, else empty."""
    n = (verdict.numbers or {}).get("n_failed")
    return f" ({n} run{'s' if n != 1 else ''} failed)" if n else ""


def _header_lines(context):
    r = context["result"]
    counts = ", ".join(f"{n} {s}" for s, n in sorted(context["n_status"].items(), key=lambda kv: str(kv[0])))
    info = context["dataset_info"]
    lines = [
        f"* Data set: **{context['dataset']}**"
        + (f" ({info.get('n_nodes')} nodes, {info.get('n_edges')} edges, "
           f"{'with' if info.get('has_labels') else 'without'} labels; 80/20 edge split, 4 uniform negatives "
           "per positive)" if info else "")
        + (f"; weighted (weights {info['weights'][0]:.4g} to {info['weights'][1]:.4g}): the models' default "
           "weighting='sample' draws each SGD epoch's edges with probability proportional to weight (LINE's "
           "sampling, unit steps) and gives DCD the weights divided by their mean" if info.get("weights") else ""),
        f"* Mode: **{context['mode']}**; seeds: {', '.join(map(str, context['seeds']))}",
        f"* Cells: {context['n_cells']} ({counts or 'none stored'}"
        + (f", {context['missing']} missing" if context["missing"] else "") + ")",
    ]
    if r is not None:
        lines.append(f"* This run: {r.n_run} cells computed, {r.n_skipped} reused from the store; wall time "
                     f"{r.seconds:.1f} s on {r.engine}")
    lines.append(f"* Compute time summed over cells: {context['compute_seconds']:.1f} s")
    v = context["versions"]
    if v:
        lines.append("* Versions: " + ", ".join(f"{k} {v[k]}" for k in ("lgekit", "python", "numpy", "scipy",
                                                                          "sklearn", "matplotlib") if v.get(k)))
    if context["command"]:
        lines.append(f"* Command: `{context['command']}`")
    lines.append(f"* Generated: {context['generated']}")
    return lines


def _markdown(sections, outputs, context):
    # the first line says which graph and why: a report on a stand-in must not read as the paper's
    out = ["# Reproducing Gao et al. (ICLR 2019), *The Importance of Norm Regularization in Linear Graph "
           f"Embedding* — {context['headline']}", "", context["reason"], ""]
    out += _header_lines(context)
    out += ["", "## Verdicts", "", "| Figure | Claim | Verdict |", "|---|---|---|"]
    for v in outputs.verdicts:
        out.append(f"| {v.figure} | {v.statement} | {_BADGE[v.status]} **{v.status}**{_failed_note(v)} |")
    out += ["", "Each verdict applies the rule in the figure's module (`lgekit/experiments/figure1.py` ... "
            "`figure6.py`) with the thresholds fixed in advance in the figure's spec there, listed under each figure.",
            "", _FAILED_RULE, ""]
    if outputs.all_diverged:
        out += [f"**Every run of {', '.join(outputs.all_diverged)} diverged**: those figures have no curve or point "
                "to judge, and their verdicts are INCONCLUSIVE; the reasons recorded are under each figure.", ""]
    if outputs.removed:
        out += ["Removed from this folder, as an earlier run's figures that this report does not draw: "
                + ", ".join(outputs.removed) + ".", ""]
    for name, spec, runs, verdicts in sections:
        out += [f"## {spec.paper}: {spec.title}", "",
                f"![{spec.paper}]({name}.png)", "",
                f"Files: [{name}.png]({name}.png), [{name}.pdf]({name}.pdf). Model `{spec.model}` with "
                f"{_fmt_params(spec.params, spec.grid)}; grid {_grid_text(spec.grid)}.", ""]
        if spec.note:
            out += [f"Setting: {spec.note}", ""]
        if name in outputs.all_diverged:
            out += [f"**Every run of this figure diverged** ({divergence_summary(runs)}), so nothing could be "
                    "drawn or judged. A run diverges when its objective or norms become non-finite or blow up "
                    "(`lgekit.DivergenceError`); the check that fired is quoted per run below.", ""]
        for v in verdicts:
            out += [f"**Verdict: {v.status}.** {v.line()}", ""]
            out += [line for text in (_differs_text(v), _spread_text(v, context["seeds"])) if text
                    for line in (text, "")]
        if spec.thresholds:
            out += ["Thresholds (fixed in advance in the spec):", ""] + _threshold_lines(spec) + [""]
        div = _diverged_text(runs)
        if div:
            out.append("Diverged runs (drawn with a red ✕ at the epoch they diverged): " + "; ".join(div) + ".")
            out.append("")
        err = [r for r in runs if r["status"] == "error"]
        if err:
            out.append(f"Failed runs (not drawn): {', '.join(_run_label(r) for r in err)}; see Errors below.")
            out.append("")
    if outputs.errors:
        out += ["## Errors", ""]
        for rec in outputs.errors:
            e = rec.get("error") or {}
            out += [f"* `{rec['key'][:12]}` {rec['config']['model']} "
                    f"{json.dumps(rec['config']['params'], sort_keys=True)}: {e.get('type')}: {e.get('message')}",
                    "", "```", (e.get("traceback") or "").rstrip()[-3000:], "```", ""]
    return "\n".join(out).rstrip() + "\n"


def _run_label(run):
    parts = [f"{k}={run[k]:g}" for k in ("lam_r", "dim") if k in run]
    return " ".join(parts + [f"seed={run['seed']}"])


def _html(sections, outputs, context, output):
    e = html.escape
    css = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45}"
           "img{max-width:100%;border:1px solid #ddd}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
           ".REPRODUCED{color:#176b1e}.NOT{color:#a11}.INCONCLUSIVE{color:#8a6d00}"
           "pre{background:#f6f6f6;padding:.6em;overflow:auto;font-size:85%}")
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>lgekit reproduce report</title>", f"<style>{css}</style></head><body>",
             "<h1>Reproducing Gao et al. (ICLR 2019), <i>The Importance of Norm Regularization in Linear Graph "
             f"Embedding</i> — {e(context['headline'])}</h1>", f"<p>{_inline(context['reason'])}</p>", "<ul>"]
    for line in _header_lines(context):
        parts.append(f"<li>{_inline(line[2:])}</li>")
    parts += ["</ul>", "<h2>Verdicts</h2>", "<table><tr><th>Figure</th><th>Claim</th><th>Verdict</th></tr>"]
    for v in outputs.verdicts:
        parts.append(f"<tr><td>{e(v.figure)}</td><td>{e(v.statement)}</td>"
                     f"<td class='{v.status.split()[0]}'><b>{e(v.status)}</b>{e(_failed_note(v))}</td></tr>")
    parts.append("</table>")
    parts.append("<p>Each verdict applies the rule in the figure's module (<code>lgekit/experiments/figure1.py</code> "
                 "... <code>figure6.py</code>) with the thresholds fixed in advance in the figure's spec there, listed "
                 f"under each figure.</p><p>{e(_FAILED_RULE)}</p>")
    if outputs.all_diverged:
        parts.append(f"<p><b>Every run of {e(', '.join(outputs.all_diverged))} diverged</b>: those figures have no "
                     "curve or point to judge, and their verdicts are INCONCLUSIVE.</p>")
    if outputs.removed:
        parts.append("<p>Removed from this folder, as an earlier run's figures that this report does not draw: "
                     f"{e(', '.join(outputs.removed))}.</p>")
    for name, spec, runs, verdicts in sections:
        data = base64.b64encode(output.read_bytes(f"{name}.png")).decode("ascii")
        parts += [f"<h2>{e(spec.paper)}: {e(spec.title)}</h2>",
                  f"<img alt='{e(spec.paper)}' src='data:image/png;base64,{data}'>",
                  f"<p>Model <code>{e(spec.model)}</code> with {e(_fmt_params(spec.params, spec.grid))}; "
                  f"grid {e(_grid_text(spec.grid))}.</p>"]
        if spec.note:
            parts.append(f"<p>Setting: {e(spec.note)}</p>")
        if name in outputs.all_diverged:
            parts.append(f"<p><b>Every run of this figure diverged</b> ({e(divergence_summary(runs))}), so nothing "
                         "could be drawn or judged.</p>")
        for v in verdicts:
            parts += [f"<p><b class='{v.status.split()[0]}'>Verdict: {e(v.status)}.</b> {e(v.statement)} — "
                      f"observed: {e(v.evidence)}: <b class='{v.status.split()[0]}'>{e(v.status)}</b></p>"]
            parts += [f"<p>{_inline(text)}</p>" for text in (_differs_text(v), _spread_text(v, context["seeds"]))
                      if text]
        if spec.thresholds:
            parts.append("<p>Thresholds (fixed in advance in the spec):</p><ul>" + "".join(
                f"<li><code>{e(k)}</code> = {value:g}: {e(THRESHOLDS.get(k, ''))}</li>"
                for k, value in spec.thresholds.items()) + "</ul>")
        div = _diverged_text(runs)
        if div:
            parts.append("<p>Diverged runs (red ✕ at the epoch they diverged): " + e("; ".join(div)) + ".</p>")
    if outputs.errors:
        parts.append("<h2>Errors</h2>")
        for rec in outputs.errors:
            err = rec.get("error") or {}
            parts.append(f"<p><code>{e(rec['key'][:12])}</code> {e(rec['config']['model'])}: "
                         f"{e(str(err.get('type')))}: {e(str(err.get('message')))}</p>"
                         f"<pre>{e((err.get('traceback') or '')[-3000:])}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _inline(text):
    """Markdown ``**bold**`` and `` `code` `` of the header lines, as HTML."""
    text = html.escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def reproduce(figures=None, *, dataset=None, out="lgekit-results", seeds=None, quick=None, n_jobs=None,
              scheduler=None, force=False, verbose=0, progress=True, overrides=None, command=None, timeout=10.0):
    """Expand, run and report: the Python form of ``lgekit reproduce``.

    Parameters
    ----------
    figures : list of str, optional
        Default: all six.
    dataset : str or path, optional
        Default: the embedded synthetic BlogCatalog-shaped graph.
    out : str or path
        Output folder (results store, figures, reports).
    seeds : int, list of int or None
        Seeds per grid point (see :func:`~lgekit.experiments.plan.expand`).
        ``None``: 3 in full mode, 1 in quick mode
        (:func:`~lgekit.experiments.spec.default_seeds`), so that the full
        settings are judged over 3 seeds with their spread in the report.
    quick : bool or None
        Default: quick for the embedded default data set, full for a named one.
    n_jobs, scheduler, force, verbose, progress, timeout
        See :func:`lgekit.experiments.engine.run_sweep`.
    overrides : dict, optional
        See :func:`lgekit.experiments.plan.expand`.

    Returns
    -------
    (SweepResult, Outputs)

    Raises
    ------
    RuntimeError
        When another run holds the lock of ``out``; nothing has been written then.
    """
    if quick is None:
        quick = dataset is None
    if seeds is None:
        seeds = default_seeds(quick)
    plan = expand(figures, dataset=dataset, seeds=seeds, quick=quick, overrides=overrides)
    store = ResultsStore(out, force=force)
    # one lock for the whole command: a second run on the folder is refused before it writes anything
    # (plan.json included); and one run of the folder: plan, index, figures and report are published together
    # when the report is written (the cells as they finish), and an interrupted run leaves the earlier ones
    with store.lock(), store.output.run():
        # every name this run writes, checked before the sweep: a file of the user's is refused now, not after it
        store.output.check_writable(planned_files(plan))
        store.output.write_text("plan.json", json.dumps(plan.to_dict(), indent=1, sort_keys=True) + "\n")
        result = run_sweep(plan.cells, store, n_jobs=n_jobs, scheduler=scheduler, force=force, verbose=verbose,
                           progress=progress, timeout=timeout)
        outputs = write_outputs(plan, store, result=result, command=command)
    outputs.removed = store.output.removed   # what the publication removed (a figure changed meanwhile is kept)
    return result, outputs
