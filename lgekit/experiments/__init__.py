"""The paper's Figures 1-6: declarative specs, a resumable sweep engine, plots and a verdict report.

Typical use (what ``lgekit reproduce`` does)::

    from lgekit import experiments
    plan = experiments.expand(["fig1", "fig5"], dataset=None, seeds=2, quick=True)
    result = experiments.run_sweep(plan.cells, "lgekit-results", n_jobs=2)
    experiments.write_outputs(plan, "lgekit-results")   # figures, report.md, report.html

Modules: :mod:`~lgekit.experiments.specs` (figure specs as typed
dataclasses, verdict thresholds, cell keys, the cost model),
:mod:`~lgekit.experiments.store` (the crash-safe results store),
:mod:`~lgekit.experiments.tasks` (one cell, recorded by the public callbacks),
:mod:`~lgekit.experiments.engine` (local joblib processes or Dask, longest
cells first; its progress display is :func:`lgekit._progress.sweep_progress`),
:mod:`~lgekit.experiments.plots`, :mod:`~lgekit.experiments.verdicts` and
:mod:`~lgekit.experiments.report`.

The theory checks (``lgekit theory ...``, ``theory/verify_*.py``) run on the
same harness: :mod:`~lgekit.experiments.theory_checks` (:func:`run_verifier`,
the scripts' shared ``main``) over :mod:`~lgekit.experiments.theory_bound`
(Theorem 1) and :mod:`~lgekit.experiments.theory_capacity` (Claim 1,
capacity).  Figures and checks share one verdict type and one report writer,
:mod:`~lgekit.experiments.reporting` (:class:`Verdict`: PASS/FAIL for a
check, REPRODUCED/NOT REPRODUCED/INCONCLUSIVE for a figure).
"""
from .specs import FIGURES, FigureSpec, Plan, RecordSpec, cell_key, expand, resolve_figures
from .reporting import STATUSES, TheoryReport, Verdict, write_report_files
from .store import ResultsStore, read_jsonl, strip_timings

__all__ = [
    "FIGURES", "FigureSpec", "Plan", "RecordSpec", "ResultsStore", "cell_key", "expand", "read_jsonl",
    "resolve_figures", "run_sweep", "run_cell", "strip_timings", "write_outputs", "reproduce",
    "STATUSES", "TheoryReport", "Verdict", "write_report_files", "VERIFIERS", "run_verifier",
]


def __getattr__(name):  # heavy parts (matplotlib, joblib, models) on first use only
    if name == "run_sweep":
        from .engine import run_sweep
        return run_sweep
    if name == "run_cell":
        from .tasks import run_cell
        return run_cell
    if name in ("VERIFIERS", "run_verifier"):
        from . import theory_checks
        return getattr(theory_checks, name)
    if name in ("write_outputs", "reproduce"):
        from . import report
        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
