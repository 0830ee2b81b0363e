"""The result of one ``verify_*`` check: a table, claims with verdicts, and a figure.

Shared by the library's ``verify_*`` functions, the ``theory/verify_*.py``
scripts and ``lgekit theory ...``, so the three print the same thing.
"""
import dataclasses
import math
from pathlib import Path

from .._atomic import atomic_path, atomic_write_text

__all__ = ["Claim", "TheoryReport", "format_table"]


@dataclasses.dataclass(frozen=True)
class Claim:
    """One checked statement.

    Attributes
    ----------
    name : str
        Short identifier, e.g. ``"khintchine-upper-bound"``.
    passed : bool
        The verdict.
    details : str
        The numbers behind the verdict, in one line.
    """

    name: str
    passed: bool
    details: str

    def line(self):
        """``PASS <name>: <details>`` or ``FAIL ...``."""
        return f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.details}"


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


@dataclasses.dataclass
class TheoryReport:
    """Tables, claims and a figure produced by one ``verify_*`` function.

    Attributes
    ----------
    name : str
        ``"rademacher"``, ``"bound"``, ``"shattering"`` or ``"capacity"``.
    tables : list of (title, rows, columns)
        The tables, in print order.
    claims : list of Claim
        One verdict per checked statement.
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
        claim = Claim(name, bool(passed), details)
        self.claims.append(claim)
        return claim

    def text(self):
        """The whole report as text, the claim lines last."""
        parts = [format_table(rows, columns, title) for title, rows, columns in self.tables]
        if self.notes:
            parts.append("\n".join(self.notes))
        parts.append("\n".join(c.line() for c in self.claims))
        return "\n\n".join(parts) + "\n"

    def save(self, out_dir):
        """Write ``<name>.txt`` and ``<name>.png`` (if there is a plot) into ``out_dir``.

        Both files are written atomically.  Returns the list of paths written.
        """
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = [out_dir / f"{self.name}.txt"]
        atomic_write_text(written[0], self.text())
        if self.plot is not None:
            # a bare Figure renders through the Agg canvas: no pyplot, no
            # global backend state, safe in scripts, tests and servers
            from matplotlib.figure import Figure

            fig = Figure(figsize=(11, 4.2), layout="constrained")
            self.plot(fig)
            png = out_dir / f"{self.name}.png"
            with atomic_path(png) as tmp:
                fig.savefig(tmp, dpi=110, format="png")
            written.append(png)
        return written
