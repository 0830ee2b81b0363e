"""The one verdict type, the claims figures are judged on, and the one report writer.

A :class:`Verdict` is the outcome of checking one claim of the paper.  Its
``status`` speaks one of two vocabularies, chosen by what kind of evidence
decides it (:data:`STATUSES` documents every value):

* a *theory check* (``lgekit theory ...``, ``theory/verify_*.py``) computes
  a quantity the mathematics fixes, so each claim either holds or not:
  :data:`PASS` or :data:`FAIL` -- or :data:`INCONCLUSIVE` when the cells it
  has cannot decide it (no hubs to test a hub claim, an n-range too short
  to tell two growth rates apart): never a PASS the data cannot earn;
* a *figure* (``lgekit reproduce``) compares noisy training runs against
  thresholds fixed in advance, so it can also be undecided:
  :data:`REPRODUCED`, :data:`NOT_REPRODUCED` or :data:`INCONCLUSIVE`.

A figure's :class:`Claim` is a sentence of the paper and the thresholds its
rule reads; :func:`judged` turns a figure module's rule into a function of runs
that resolves its thresholds and judges the empty and the all-diverged cases
alike; the helpers below it (:func:`spread_rows`, :func:`overfit_summary`, ...)
are the pieces the six rules share.

:func:`write_report_files` writes a report's text and its figure, published
together (:meth:`lgekit._output_folder.OutputFolder.run`), whichever kind it is.
:class:`TheoryReport` is a theory check's whole result: tables, verdicts, a
figure.
"""
import dataclasses
import functools
import math

from .._output_folder import OutputFolder
from .aggregate import divergence_summary, group, run_series, spread

__all__ = [
    "PASS", "FAIL", "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE", "STATUSES", "Verdict", "TheoryReport",
    "Claim", "CLAIMS", "judged", "lost_grid_points", "format_table", "write_report_files", "agreement_verdict",
]

PASS = "PASS"
FAIL = "FAIL"
REPRODUCED = "REPRODUCED"
NOT_REPRODUCED = "NOT REPRODUCED"
INCONCLUSIVE = "INCONCLUSIVE"

#: every allowed :attr:`Verdict.status` and what it means
STATUSES = {
    PASS: "theory check: the computed quantity satisfies the claim",
    FAIL: "theory check: it does not (for a theorem, a bug; otherwise the claim or its threshold is wrong)",
    REPRODUCED: "figure: the measured runs show the paper's effect beyond the figure's thresholds and the noise",
    NOT_REPRODUCED: "figure: the measured runs clearly lack the effect",
    INCONCLUSIVE: "figure: too little data, every run diverged, or an effect between the two thresholds; "
                  "theory check: the cells measured cannot decide the claim (not tested)",
}
#: the statuses that count as the claim holding
_HOLDS = frozenset({PASS, REPRODUCED})


@dataclasses.dataclass
class Verdict:
    """The outcome of checking one claim.

    Attributes
    ----------
    claim : str
        Short identifier, e.g. ``"khintchine-upper-bound"`` or ``"norms_grow_slowing"``.
    status : str
        One of :data:`STATUSES`: ``"PASS"``/``"FAIL"`` for a theory check,
        ``"REPRODUCED"``/``"NOT REPRODUCED"``/``"INCONCLUSIVE"`` for a figure.
    evidence : str
        The numbers behind the status, in one line.
    statement : str, default ""
        The claim as the paper makes it (figures).
    figure : str, default ""
        The figure the claim is read from (``"fig1"`` ...), empty for a theory check.
    numbers : dict
        The measured values the status was decided on.
    thresholds : dict
        The thresholds the rule applied.

    Raises
    ------
    ValueError
        When ``status`` is not one of :data:`STATUSES`.
    """

    claim: str
    status: str
    evidence: str
    statement: str = ""
    figure: str = ""
    numbers: dict = dataclasses.field(default_factory=dict)
    thresholds: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {sorted(STATUSES)}, got {self.status!r}")

    @classmethod
    def check(cls, claim, holds, evidence):
        """A theory check's verdict: ``PASS`` when ``holds`` is true, ``INCONCLUSIVE`` when it is None, else ``FAIL``.

        None means the data cannot decide the claim; the evidence then says why.
        """
        if holds is None:
            return cls(claim, INCONCLUSIVE, evidence)
        return cls(claim, PASS if holds else FAIL, evidence)

    @property
    def passed(self):
        """True for ``PASS`` and ``REPRODUCED``."""
        return self.status in _HOLDS

    def line(self):
        """One line: ``PASS <claim>: <evidence>`` for a theory check (FAIL, INCONCLUSIVE alike).

        For a figure, ``<statement> — observed: <evidence>: <status>``, as in report.md.
        """
        if self.status in (PASS, FAIL) or not self.figure:
            return f"{self.status} {self.claim}: {self.evidence}"
        return f"{self.statement} — observed: {self.evidence}: {self.status}"


#: claim name -> :class:`Claim`; each figure module's claim enters it when it is defined
CLAIMS = {}


@dataclasses.dataclass(frozen=True)
class Claim:
    """A claim of the paper that a figure is judged on.

    Attributes
    ----------
    name : str
        Identifier, e.g. ``"norms_grow_slowing"``.
    figure : str
        The figure it is read from (``"fig1"`` ...).
    statement : str
        The claim as the paper words it, with its section and figure.
    reads : tuple of str
        The thresholds its rule reads (names of
        :data:`lgekit.experiments.spec.THRESHOLDS`); the figure's spec must fix
        each of them in advance.
    """

    name: str
    figure: str
    statement: str
    reads: tuple

    def __post_init__(self):
        object.__setattr__(self, "reads", tuple(self.reads))
        CLAIMS[self.name] = self

    def verdict(self, status, evidence, numbers, thresholds):
        """A :class:`Verdict` of this claim."""
        return Verdict(claim=self.name, status=status, evidence=evidence, statement=self.statement,
                       figure=self.figure, numbers=numbers or {}, thresholds=dict(thresholds))

    def thresholds_for(self, defaults, thresholds=None):
        """The thresholds the rule reads: ``defaults`` (its figure spec's), with ``thresholds`` replacing some.

        Raises
        ------
        ValueError
            For a name in ``thresholds`` that no figure rule reads (names other
            rules read are ignored: a figure's other claims' thresholds are
            not this rule's business).
        """
        out = {name: defaults[name] for name in self.reads}
        known = {name for claim in CLAIMS.values() for name in claim.reads}
        for key, value in (thresholds or {}).items():
            if key in self.reads:
                out[key] = value
            elif key not in known:
                raise ValueError(f"unknown threshold {key!r} for {self.name}: it reads {', '.join(self.reads)}")
        return out


def agreement_verdict(claim, comparisons):
    """A theory check's number against its second path: PASS when every pair agrees within its tolerance.

    Parameters
    ----------
    claim : str
        The claim's name (``"assembled-twice-agrees"``).
    comparisons : list of (term, where, first, second, tolerance)
        ``first`` the check's number, ``second`` the same number computed a second time
        (:mod:`lgekit.theory.reassembly`), ``tolerance`` how far apart chance and rounding may put them.
        A difference in either direction beyond it, or a non-finite number where the other is finite,
        disagrees.

    Returns
    -------
    Verdict
        FAIL naming each term that disagrees (where, both numbers, the tolerance), or when there is no
        comparison at all; else PASS with the largest difference relative to its tolerance.
    """
    if not comparisons:
        return Verdict.check(claim, False, "no second path: nothing was computed twice")
    off, worst = [], (0.0, None)
    for term, where, first, second, tol in comparisons:
        a, b = float(first), float(second)
        if math.isfinite(a) and math.isfinite(b):
            ratio = abs(a - b) / tol if tol > 0 else (0.0 if a == b else math.inf)
        else:
            ratio = 0.0 if a == b else math.inf
        if ratio > 1:
            off.append(f"{term} at {where}: {a:.6g} vs {b:.6g} (tolerance {tol:.3g})")
        if ratio >= worst[0]:
            worst = (ratio, f"{term} at {where}")
    terms = sorted({c[0] for c in comparisons})
    return Verdict.check(
        claim, not off,
        f"{len(comparisons)} numbers computed twice ({', '.join(terms)}): "
        + (f"{len(off)} disagree: " + "; ".join(off[:6]) if off else
           f"all within tolerance, the closest call {worst[1]} at {worst[0]:.2f} of its tolerance"))


def judged(claim, spec):
    """Decorate the rule of ``claim``: ``rule(runs, th)`` becomes ``rule(runs, thresholds=None)``.

    The decorated rule takes its thresholds from ``spec`` (the figure's
    :class:`~lgekit.experiments.spec.FigureSpec`), with ``thresholds``
    replacing some, and answers ``INCONCLUSIVE`` without calling the rule when
    there is no run to judge: no run at all, every run failed, or every run
    diverged (the evidence then gives the recorded reasons).

    **No silent verdict on failed cells.**  A failed run (status ``error``: its
    cell raised, its worker died, or it has no record) is never judged, and a
    figure with failed runs is judged on the runs that finished only when
    every grid point of the figure kept at least one finished run (ok or
    diverged): the claims are read across the grid, and a point with no run
    could turn any of them.  Otherwise the verdict is ``INCONCLUSIVE``, naming
    the points lost.  When the rule does run, its evidence says on how many
    of the runs it was judged and how many failed; its noise margins use the
    seeds that finished.
    """

    def wrap(fn):
        @functools.wraps(fn)
        def rule(runs, thresholds=None):
            th = claim.thresholds_for(spec.thresholds, thresholds)
            judged_runs = [r for r in runs if r.get("status") != "error"]
            if not judged_runs:
                return claim.verdict(INCONCLUSIVE, "no runs" if not runs else "every run failed (see Errors)", {},
                                     th)
            if all(r.get("status") == "diverged" for r in judged_runs):
                return claim.verdict(
                    INCONCLUSIVE, f"every one of the {len(judged_runs)} runs diverged, so nothing can be judged: "
                                  + divergence_summary(judged_runs), {"n_diverged": len(judged_runs)}, th)
            failed = len(runs) - len(judged_runs)
            if not failed:
                return fn(runs, th)
            lost = lost_grid_points(runs, tuple(getattr(spec, "grid", None) or ()))
            if lost:
                return claim.verdict(
                    INCONCLUSIVE, f"{failed} of the {len(runs)} runs failed (see Errors) and {len(lost)} grid "
                                  f"point(s) have no finished run ({', '.join(lost[:4])}"
                                  f"{', ...' if len(lost) > 4 else ''}): the claim is read across the grid, so the "
                                  "runs that remain cannot decide it", {"n_failed": failed, "lost_points": lost}, th)
            verdict = fn(runs, th)
            verdict.evidence += (f" (judged on the {len(judged_runs)} of {len(runs)} runs that finished: {failed} "
                                 "failed, and every grid point kept a finished run)")
            verdict.numbers = {**(verdict.numbers or {}), "n_failed": failed}
            return verdict

        return rule

    return wrap


def lost_grid_points(runs, names):
    """The grid points (``"lam_r=0.1, dim=8"``) of ``runs`` none of whose runs finished (all failed), in order."""
    points = {}
    for r in runs:
        points.setdefault(tuple(r.get(n) for n in names), []).append(r)
    return [", ".join(f"{n}={v:g}" if isinstance(v, (int, float)) else f"{n}={v}" for n, v in zip(names, point))
            or "the only point" for point, rs in points.items() if all(r.get("status") == "error" for r in rs)]


# ---------------------------------------------------------------------------- what the six rules share
def standard_error(std, n):
    """``std / sqrt(n)``, 0 for one run: the noise an effect must exceed ``noise_se`` times."""
    return std / math.sqrt(n) if n > 1 else 0.0


def number(x, digits=3):
    """``x`` to ``digits`` significant digits for evidence lines; ``"nan"`` for a missing value."""
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}g}"


def lam_text(value):
    """``"λr=0.2"``."""
    return f"λr={value:g}"


def spread_rows(runs, name, quantity, per_run):
    """Per grid value of ``name``: the spread over seeds of ``per_run(run)`` over the finished runs.

    Returns a list of ``{"point": "<name>=<value>", "quantity", **spread}``
    (see :func:`lgekit.experiments.aggregate.spread`), which the report prints
    as min / median / max beside the verdict.
    """
    rows = []
    for value, rs in group([r for r in runs if r.get("status") == "ok"], name).items():
        values = [per_run(r) for r in sorted(rs, key=lambda r: r.get("seed", 0))]
        label = lam_text(value) if name == "lam_r" else f"D={value:g}"
        rows.append(dict(spread([v for v in values if v is not None]), point=label, quantity=quantity))
    return rows


def ap_drop(run):
    """Peak minus final test AP of one run (``None`` under 3 recorded values)."""
    _, ys = run_series(run, "test_ap")
    return max(ys) - ys[-1] if len(ys) >= 3 else None


def final_metric(metric):
    """``run -> run["metrics"][metric]`` as a float, ``None`` when not recorded."""
    def value(run):
        x = (run.get("metrics") or {}).get(metric)
        return float(x) if x is not None else None
    return value


def overfit_summary(curve, th):
    """Peak, first and final epoch/value, drop, rise and the noise margins of a test-AP curve (Figs 3-4)."""
    peak_epoch, peak = curve.peak()
    last_epoch, last = curve.final()
    first_epoch, first = int(curve.epochs[0]), float(curve.mean[0])
    n = int(curve.n[-1])
    se = math.hypot(standard_error(curve.std_at(peak_epoch), n), standard_error(curve.std_at(last_epoch), n))
    se_rise = math.hypot(standard_error(curve.std_at(peak_epoch), n), standard_error(curve.std_at(first_epoch), n))
    out = {"peak": peak, "peak_epoch": peak_epoch, "last": last, "last_epoch": last_epoch, "first": first,
           "first_epoch": first_epoch, "drop": peak - last, "rise": peak - first,
           "margin": max(th["overfit_drop"], th["noise_se"] * se), "n_seeds": n}
    if "rise_min" in th:
        out["rise_margin"] = max(th["rise_min"], th["noise_se"] * se_rise)
        # where the drop starts: the last epoch still within no_overfit_drop of the peak.  The argmax alone is
        # fragile on a flat top (two epochs 2e-4 apart swap with the seeds); the plateau's end is not
        near = curve.epochs[curve.mean >= peak - th["no_overfit_drop"]]
        out["drop_start"] = int(near.max())
    return out


def _fmt(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value == 0:
            return "0"
        if abs(value) >= 1e5 or abs(value) < 1e-3:
            return f"{value:.3e}"
        return f"{value:.4g}"
    return str(value)


def format_table(rows, columns=None, title=None):
    """Render a list of dicts as an aligned plain-text table.

    Parameters
    ----------
    rows : list of dict
        One dict per row.
    columns : list of str, optional
        Column order (default: keys of the first row).
    title : str, optional
        A line printed above the table.

    Returns
    -------
    str

    Examples
    --------
    >>> print(format_table([{"n": 10, "ratio": 0.5}], title="t"))
    t
     n  ratio
    --  -----
    10    0.5
    """
    if not rows:
        return (title + "\n" if title else "") + "(no rows)"
    columns = list(columns or rows[0].keys())
    cells = [[_fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = [title] if title else []
    lines.append("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells)
    return "\n".join(lines)


def write_report_files(folder, name, text=None, figure=None, formats=(("png", {"dpi": 130}), ("pdf", {}))):
    """Write ``<name>.txt`` (when ``text`` is given) and ``<name>.<ext>`` per figure format, published together.

    Parameters
    ----------
    folder : OutputFolder or path
        A path is claimed as an :class:`~lgekit._output_folder.OutputFolder`
        (created if needed; a folder holding files lgekit did not write is
        refused).  Each file written is listed in its manifest.
    name : str
        The file stem.
    text : str, optional
    figure : matplotlib.figure.Figure, optional
    formats : sequence of (str, dict), default PNG at 130 dpi and PDF
        Extension and the keyword arguments of ``Figure.savefig``.

    Returns
    -------
    list of pathlib.Path
        The files written, the text first.
    """
    output = folder if isinstance(folder, OutputFolder) else OutputFolder(folder)
    written = []
    with output.run():   # published together (with the rest of the run, when one is open)
        if text is not None:
            written.append(output.write_text(f"{name}.txt", text))
        if figure is not None:
            for ext, kw in formats:
                with output.writing(f"{name}.{ext}") as fh:
                    figure.savefig(fh, format=ext, **kw)
                written.append(output.path / f"{name}.{ext}")
    return written


@dataclasses.dataclass
class TheoryReport:
    """Tables, verdicts and a figure produced by one theory check (``verify_*``).

    Attributes
    ----------
    name : str
        ``"rademacher"``, ``"bound"``, ``"shattering"`` or ``"capacity"``.
    tables : list of (title, rows, columns)
        The tables, in print order.
    claims : list of Verdict
        One ``PASS``/``FAIL``/``INCONCLUSIVE`` verdict per checked statement.
    notes : list of str
        Free-text remarks printed between the tables and the verdicts.
    plot : callable or None
        ``plot(fig)`` draws the report's figure on a matplotlib Figure.
    data : dict
        Raw results for programmatic use.
    """

    name: str
    tables: list = dataclasses.field(default_factory=list)
    claims: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)
    plot: object = None
    data: dict = dataclasses.field(default_factory=dict)

    @property
    def passed(self):
        """True when every claim passed (an INCONCLUSIVE one did not)."""
        return all(c.passed for c in self.claims)

    @property
    def failed(self):
        """The claims that FAILed."""
        return [c for c in self.claims if c.status == FAIL]

    @property
    def exit_status(self):
        """1 when a claim FAILed, else 0: an INCONCLUSIVE claim is printed as such, not counted as a failure."""
        return 1 if self.failed else 0

    def add_table(self, title, rows, columns=None):
        self.tables.append((title, list(rows), columns))

    def add_claim(self, name, passed, details):
        claim = Verdict.check(name, bool(passed), details)
        self.claims.append(claim)
        return claim

    def text(self):
        """The whole report as text, the claim lines last."""
        parts = [format_table(rows, columns, title) for title, rows, columns in self.tables]
        if self.notes:
            parts.append("\n".join(self.notes))
        parts.append("\n".join(c.line() for c in self.claims))
        return "\n\n".join(parts) + "\n"

    def save(self, out_dir, force=False):
        """Write ``<name>.txt`` and ``<name>.png`` (if there is a plot) into ``out_dir``, atomically.

        ``out_dir`` is an :class:`~lgekit._output_folder.OutputFolder`, or a
        path claimed as one (``force``: accept a folder holding other files).
        Returns the list of paths written.
        """
        fig = None
        if self.plot is not None:
            # a bare Figure renders through the Agg canvas: no pyplot, no
            # global backend state, safe in scripts, tests and servers
            from matplotlib.figure import Figure

            fig = Figure(figsize=(11, 4.2), layout="constrained")
            self.plot(fig)
        output = (out_dir if isinstance(out_dir, OutputFolder)
                  else OutputFolder(out_dir, force=force, command="lgekit theory"))
        return write_report_files(output, self.name, self.text(), fig, formats=(("png", {"dpi": 110}),))
