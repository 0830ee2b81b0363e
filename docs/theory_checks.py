"""The user guide's list of the theory checks and of their claims, written from the code.

``docs/guide/theory.md`` explains ``lgekit theory``; what each check judges is
kept where the check is written, in its ``verify_*`` function's docstring
(its "Returns" section lists every claim with its threshold and the reason for
it), and the statuses a claim can end in are
:data:`lgekit.experiments.verdict.STATUSES`.  :func:`statuses_page` and
:func:`checks_page` turn those into MyST Markdown that the guide includes, so
a check added to :data:`lgekit.experiments.checks.VERIFIERS`, or a claim added
to a check's docstring, appears in the guide without anyone editing it.

Kept out of ``conf.py`` (which writes the pages when Sphinx runs it) so that
the tests can call these functions on checks of their own.
"""
import inspect
import re
import sys
from pathlib import Path

__all__ = ["statuses_page", "checks_page", "docstring_section"]


def statuses_page(statuses):
    """A MyST table of the verdict statuses and what each means.

    Parameters
    ----------
    statuses : dict of str to str
        Status -> meaning (:data:`lgekit.experiments.verdict.STATUSES`).

    Returns
    -------
    str
    """
    if not statuses:
        raise ValueError("statuses: no verdict status to list")
    rows = ["| status | meaning |", "|---|---|"]
    rows += [f"| `{status}` | {meaning.replace('|', '/')} |" for status, meaning in statuses.items()]
    return "\n".join(rows) + "\n"


def docstring_section(doc, title):
    """The body of the numpydoc section ``title`` of ``doc`` (a cleaned docstring), or "" when it has none.

    A section starts at its title underlined with dashes and ends at the next such title.
    """
    lines = doc.splitlines()
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip())
             and len(lines[i + 1].strip()) == len(lines[i].strip())]
    for k, i in enumerate(heads):
        if lines[i].strip() == title:
            end = heads[k + 1] if k + 1 < len(heads) else len(lines)
            return "\n".join(lines[i + 2:end]).strip("\n")
    return ""


def _claims_text(function):
    """The description under a ``verify_*`` function's "Returns": its tables and its claims, as reST."""
    returns = docstring_section(inspect.getdoc(function) or "", "Returns").splitlines()
    # numpydoc: the first line is the type (``TheoryReport``), the description is indented under it
    text = "\n".join(returns[1:])
    text = inspect.cleandoc("\n" + text) if text.strip() else ""
    if "``" not in text:
        raise ValueError(f"{function.__module__}.{function.__qualname__}: its docstring's Returns section names "
                         "no claim (``claim-name``); the guide lists each check's claims from there")
    return text


def checks_page(verifiers, root=None):
    """One MyST section per theory check: what it computes, how to run it, and its claims.

    Parameters
    ----------
    verifiers : dict of str to callable
        Check name -> its ``verify_*`` function
        (:data:`lgekit.experiments.checks.VERIFIERS`).
    root : path, optional
        The repository root: a check whose ``theory/verify_<name>.py``
        script exists there is said to have one.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        When there is no check, or a check's docstring has no Returns
        section naming its claims.
    """
    if not verifiers:
        raise ValueError("verifiers: no theory check to list")
    parts = []
    for name, function in verifiers.items():
        module = function.__module__
        summary = inspect.getdoc(function).split("\n\n")[0].replace("\n", " ")
        script = f"theory/verify_{name}.py"
        runs = f"``lgekit theory {name} [--quick]``"
        if root is not None and (Path(root) / script).is_file():
            runs += f" or ``python {script}``"
        reference = f":func:`~{module}.{function.__qualname__}`"
        parts.append("\n".join([
            f"(guide-theory-{name})=",
            f"### `lgekit theory {name}`",
            "",
            "```{eval-rst}",
            f".. currentmodule:: {module}",
            "",
            f"{summary}  Run it with {runs}; the check is {reference} in :mod:`{module}`.",
            "",
            _claims_text(function),
            "",
            ".. currentmodule:: None",
            "```",
            "",
        ]))
    return "\n".join(parts)


if __name__ == "__main__":      # a preview: python3 docs/theory_checks.py
    from lgekit.experiments.checks import VERIFIERS
    from lgekit.experiments.verdict import STATUSES

    sys.stdout.write(statuses_page(STATUSES) + "\n" + checks_page(VERIFIERS, Path(__file__).parent.parent))
