"""The one verdict type and the one report writer, shared by the figures and the theory checks.

A :class:`Verdict` is the outcome of checking one claim of the paper.  Its
``status`` speaks one of two vocabularies, chosen by what kind of evidence
decides it (:data:`STATUSES` documents every value):

* a *theory check* (``lgekit theory ...``, ``theory/verify_*.py``) computes
  a quantity the mathematics fixes, so each claim either holds or not:
  :data:`PASS` or :data:`FAIL`;
* a *figure* (``lgekit reproduce``) compares noisy training runs against
  thresholds fixed in advance, so it can also be undecided:
  :data:`REPRODUCED`, :data:`NOT_REPRODUCED` or :data:`INCONCLUSIVE`.

:func:`write_report_files` writes a report's text and its figure atomically
(temporary file, then rename, :mod:`lgekit._atomic`), whichever kind it is.
:class:`TheoryReport` is a theory check's whole result: tables, verdicts, a
figure.
"""
import dataclasses
import math

from .._output_folder import OutputFolder

__all__ = [
    "PASS", "FAIL", "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE", "STATUSES", "Verdict", "TheoryReport",
    "format_table", "write_report_files",
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
    INCONCLUSIVE: "figure: too little data, every run diverged, or an effect between the two thresholds",
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
        """A theory check's verdict: ``PASS`` when ``holds`` is true, else ``FAIL``."""
        return cls(claim, PASS if holds else FAIL, evidence)

    @property
    def passed(self):
        """True for ``PASS`` and ``REPRODUCED``."""
        return self.status in _HOLDS

    def line(self):
        """One line: ``PASS <claim>: <evidence>`` for a theory check.

        For a figure, ``<statement> — observed: <evidence>: <status>``, as in report.md.
        """
        if self.status in (PASS, FAIL):
            return f"{self.status} {self.claim}: {self.evidence}"
        return f"{self.statement} — observed: {self.evidence}: {self.status}"


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
    """Write ``<name>.txt`` (when ``text`` is given) and ``<name>.<ext>`` per figure format, atomically.

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
    if text is not None:
        written.append(output.write_text(f"{name}.txt", text))
    if figure is not None:
        for ext, kw in formats:
            with output.writing(f"{name}.{ext}") as tmp:
                figure.savefig(tmp, format=ext, **kw)
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
        One ``PASS``/``FAIL`` verdict per checked statement.
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
        """True when every claim passed."""
        return all(c.passed for c in self.claims)

    @property
    def exit_status(self):
        """0 when every claim passed, else 1."""
        return 0 if self.passed else 1

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

        ``out_dir`` is claimed as an :class:`~lgekit._output_folder.OutputFolder`
        (``force``: accept a folder holding other files).  Returns the list of
        paths written.
        """
        fig = None
        if self.plot is not None:
            # a bare Figure renders through the Agg canvas: no pyplot, no
            # global backend state, safe in scripts, tests and servers
            from matplotlib.figure import Figure

            fig = Figure(figsize=(11, 4.2), layout="constrained")
            self.plot(fig)
        output = OutputFolder(out_dir, force=force, command="lgekit theory")
        return write_report_files(output, self.name, self.text(), fig, formats=(("png", {"dpi": 110}),))
