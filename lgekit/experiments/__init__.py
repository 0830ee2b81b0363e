"""The paper's Figures 1-6 and the theory checks: specs, a resumable sweep engine, plots, verdicts and reports.

Typical use (what ``lgekit reproduce`` does)::

    from lgekit import experiments
    plan = experiments.expand(["fig1", "fig5"], dataset=None, seeds=2, quick=True)
    result = experiments.run_sweep(plan.cells, "lgekit-results", n_jobs=2)
    experiments.write_outputs(plan, "lgekit-results")   # figures, report.md, report.html

One paper artefact, one module:

* Figure N is :mod:`~lgekit.experiments.figure1` ... :mod:`~lgekit.experiments.figure6`:
  its spec, the claim as the paper words it, the rule that judges it and the
  plot; :mod:`~lgekit.experiments.figures` gathers them.
* ``lgekit theory CHECK`` is :mod:`~lgekit.experiments.check_rademacher`,
  :mod:`~lgekit.experiments.check_bound`, :mod:`~lgekit.experiments.check_directed`,
  :mod:`~lgekit.experiments.check_shattering` or
  :mod:`~lgekit.experiments.check_capacity`, run by
  :mod:`~lgekit.experiments.checks`; the bound and directed checks share the
  λr sweep of :mod:`~lgekit.experiments.theorem1`.

The machinery they share, one noun a module: :mod:`~lgekit.experiments.spec`
(the spec types, the paper's settings, cell keys), :mod:`~lgekit.experiments.plan`
(expanding figures into cells, their cost), :mod:`~lgekit.experiments.store`
(the crash-safe results store), :mod:`~lgekit.experiments.tasks` (one cell,
recorded by the public callbacks), :mod:`~lgekit.experiments.engine` (local
processes or Dask, longest cells first), :mod:`~lgekit.experiments.aggregate`
(runs, curves, summaries), :mod:`~lgekit.experiments.verdict` (the one verdict
type -- PASS/FAIL for a check, REPRODUCED/NOT REPRODUCED/INCONCLUSIVE for a
figure -- the claims, and the one report writer), :mod:`~lgekit.experiments.plotting`
(the panels) and :mod:`~lgekit.experiments.report` (the reproduce report).
"""
from .checks import VERIFIERS, run_verifier
from .engine import run_sweep
from .figures import FIGURES
from .plan import Plan, expand
from .report import reproduce, write_outputs
from .spec import FigureSpec, RecordSpec
from .store import ResultsStore
from .verdict import STATUSES, TheoryReport, Verdict, write_report_files

# What a user calls: the figures and their spec types, expanding them into a plan, the sweep, the store, the
# report, the verdicts and the theory checks.  The harness's pieces (cell keys, one cell's run, the store's
# line reader, figure-name resolution) stay in their modules; tests/test_public_api.py pins this list.
__all__ = [
    "FIGURES", "FigureSpec", "Plan", "RecordSpec", "ResultsStore", "expand",
    "run_sweep", "write_outputs", "reproduce",
    "STATUSES", "TheoryReport", "Verdict", "write_report_files", "VERIFIERS", "run_verifier",
]
