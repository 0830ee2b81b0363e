"""The quick run says which graph it ran and why (issue 35, item 6).

``lgekit reproduce`` without --dataset runs quick mode on a 1,000-node generated graph, not
BlogCatalog.  The report's, the command's and every figure's first line say so (with where the real
BlogCatalog is), and ``lgekit datasets list`` lists that graph with the counts of the graph that runs.
"""
import re

import pytest

from lgekit import datasets
from lgekit.cli import main
from lgekit.experiments import report
from lgekit.experiments.plan import expand
from lgekit.experiments.report import graph_headline, graph_reason
from lgekit.experiments.spec import DEFAULT_DATASET, QUICK_DATASET_KWARGS

QUICK = {"name": DEFAULT_DATASET, "kwargs": dict(QUICK_DATASET_KWARGS)}


def test_the_quick_plan_runs_the_small_synthetic_graph_and_the_headline_says_so():
    plan = expand(["fig5"], quick=True)
    assert plan.dataset == QUICK
    assert graph_headline(plan.dataset) == (f"Graph: {QUICK_DATASET_KWARGS['n_nodes']:,}-node synthetic, "
                                            "not BlogCatalog (quick smoke test)")
    full = expand(["fig5"], quick=False).dataset
    assert graph_headline(full) == f"Graph: {datasets.info(DEFAULT_DATASET).n_nodes:,}-node synthetic, not " \
                                   "BlogCatalog (the default, no download)"
    assert graph_headline({"name": "ppi", "kwargs": {}}) == "Graph: ppi, as --dataset asked"


def test_the_reason_points_at_blogcatalog_where_it_is(data_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    found = graph_reason(QUICK)
    assert f"BlogCatalog is on this machine ({data_dir / 'blogcatalog'})" in found
    assert "--dataset blogcatalog" in found and "not the paper's" in found
    assert "A random embedding's test AP is 1/(1+4) = 0.20" in found
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    missing = graph_reason(QUICK)
    assert "BlogCatalog is not on this machine: `lgekit datasets fetch blogcatalog`" in missing
    assert "on this machine (" not in missing
    assert "BlogCatalog" not in graph_reason({"name": "ppi", "kwargs": {}}).split(".")[0].replace("ppi", "")


def _counts(row):
    """(nodes, edges) of a `datasets list` row."""
    nodes, edges = re.findall(r"\s([\d,]+)\s+([\d,]+)\s+\d+\s", row)[0]
    return int(nodes.replace(",", "")), int(edges.replace(",", ""))


def test_datasets_list_shows_the_graph_the_quick_run_loads(capsys):
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    label = f"{DEFAULT_DATASET} ({', '.join(f'{k}={v}' for k, v in sorted(QUICK_DATASET_KWARGS.items()))})"
    quick_row = next(line for line in out if line.startswith(label))
    registry_row = next(line for line in out if line.startswith(DEFAULT_DATASET + " "))
    assert "lgekit reproduce` quick mode's graph" in quick_row
    ran = datasets.load(DEFAULT_DATASET, **expand(["fig5"], quick=True).dataset["kwargs"])

    def check(row):
        assert _counts(row) == (ran.n_nodes, ran.n_edges)

    check(quick_row)
    with pytest.raises(AssertionError):       # the registry's row (the full mode's graph) is not what runs
        check(registry_row)


TINY = {"*": {"params": {"epochs": 2, "dim": 8}}, "fig6": {"grid": {"dim": [4, 8]}}}


def test_the_report_and_the_command_say_it_first(tmp_path, monkeypatch, capsys):
    """A quick run (the real quick graph, tiny epochs): the first line of stdout, report.md and report.html (its
    heading) names the graph and why; the paragraph under the heading says the rest."""
    real = report.expand
    monkeypatch.setattr(report, "expand", lambda *a, **k: real(*a, **dict(k, overrides=TINY)))
    out = tmp_path / "res"
    assert main(["reproduce", "6", "--out", str(out), "--jobs", "1"]) == 0
    headline = graph_headline(QUICK)
    assert capsys.readouterr().out.splitlines()[0] == headline
    md = (out / "report.md").read_text().splitlines()
    assert md[0].startswith("# Reproducing Gao et al.") and md[0].endswith(f" — {headline}")
    assert md[2].startswith(f"`lgekit reproduce` without --dataset runs quick mode on {DEFAULT_DATASET} "
                            f"(n_nodes={QUICK_DATASET_KWARGS['n_nodes']}")
    body = (out / "report.html").read_text().split("<body>", 1)[1].lstrip()
    assert body.startswith("<h1>Reproducing Gao et al.") and body.split("</h1>")[0].endswith(f" — {headline}")
    assert body.split("</h1>", 1)[1].lstrip().startswith("<p><code>lgekit reproduce</code> without --dataset")
