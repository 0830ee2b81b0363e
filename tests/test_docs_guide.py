"""The user guide (``docs/guide/``) and the class docstrings that point there.

The guide took over the discussion the estimators' docstrings used to hold (their Notes), so these checks
keep the two honest with each other and with the code: every page is reachable; its code cells run; its
tables of defaults are the estimators' defaults; its measured figures stay in ``benchmarks/README.md``
(prose names a section there, and the section exists); the class docstrings keep their reference sections
(Parameters for every argument, See Also, Examples), have no Notes, and link to a guide section that
exists; the theory page lists every check of ``lgekit theory`` and every claim a check judges, from the
code.  Each check has a test beside it that feeds it the wrong version and sees it fail.

The built pages (MathJax, widths, no network) are checked in a browser by ``tests/test_docs_browser.py``;
Sphinx itself (``-W``) runs in CI (``.ci/run``).
"""
import ast
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from lgekit.experiments.check_directed import directed_claims
from lgekit.experiments.check_rademacher import rademacher_claims
from lgekit.experiments.check_shattering import shattering_claims
from lgekit.experiments.checks import VERIFIERS
from lgekit.experiments.verdict import STATUSES
from lgekit.models import BaseEmbedding, HingeEmbedding, HingeEmbeddingCV, LogisticEmbedding, LogisticEmbeddingCV
from lgekit.models.cv import EmbeddingCV

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GUIDE = DOCS / "guide"
BENCHMARKS_README = ROOT / "benchmarks" / "README.md"

pytestmark = pytest.mark.skipif(not GUIDE.is_dir(), reason="needs a source checkout (docs/guide)")


def _load_docs_module(name):
    # by file, as conf.py loads it: docs/ is no package
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


theory_checks = _load_docs_module("theory_checks") if (DOCS / "theory_checks.py").is_file() else None
PAGES = sorted(GUIDE.glob("*.md")) if GUIDE.is_dir() else []


# ---------------------------------------------------------------------------------------------- helpers
def toctree_entries(text):
    """The documents the ``{toctree}`` blocks of a MyST page list."""
    entries = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
        entries += [line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":")]
    return entries


def unreachable_pages(index_text, pages):
    """The guide pages (names without ``.md``) that the guide's index does not list."""
    listed = set(toctree_entries(index_text))
    return sorted(page for page in pages if page != "index" and page not in listed)


def code_cells(text):
    """The sources of the ``{code-cell}`` blocks of a MyST-NB page, in order."""
    return re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S)


def run_cells(text):
    """Run a page's code cells in order in one namespace, as the notebook kernel does."""
    namespace = {"__name__": "__guide__"}
    for number, source in enumerate(code_cells(text)):
        exec(compile(source, f"<code cell {number}>", "exec"), namespace)
    return namespace


def defaults_table(text):
    """``{parameter: default literal}`` from a page's "| `name` | `default` | why |" table rows."""
    return {m["name"]: m["value"] for m in re.finditer(r"^\| `(?P<name>\w+)` \| `(?P<value>[^`]*)` \|", text, re.M)}


def default_mismatches(table, params):
    """What a defaults table gets wrong against ``get_params()``: missing, extra and stale rows."""
    problems = [f"{name}: no row" for name in sorted(set(params) - set(table))]
    problems += [f"{name}: no such parameter" for name in sorted(set(table) - set(params))]
    for name in sorted(set(table) & set(params)):
        value = ast.literal_eval(table[name])
        if value != params[name] or type(value) is not type(params[name]):
            problems.append(f"{name}: the table says {table[name]}, the estimator {params[name]!r}")
    return problems


def benchmark_sections(text):
    """The section names a text cites as ``benchmarks/README.md``, "Name" (and "Other")."""
    names = []
    pattern = r'benchmarks/README\.md`*,?\s*\(?\s*"(?P<first>[^"]+)"(?P<rest>(?:\s+and\s+"[^"]+")*)'
    for match in re.finditer(pattern, text):
        names.append(match["first"])
        names += re.findall(r'"([^"]+)"', match["rest"])
    return [" ".join(name.split()) for name in names]


def readme_headings(text):
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


def missing_sections(names, headings):
    """The cited names that head no section (a heading may go on after the name: "(issue 44)")."""
    return [name for name in names if not any(heading.startswith(name) for heading in headings)]


def measured_figures(text):
    """Numbers shaped like measurements (0.867, 12 %, 1,335,930) in a page's prose.

    Code (cells, fences, inline), maths and substitutions are not prose: a figure printed by a code cell
    is computed when the page is built, and a substitution is the code's value.
    """
    prose = re.sub(r"```.*?```", " ", text, flags=re.S)
    prose = re.sub(r"\$\$.*?\$\$", " ", prose, flags=re.S)
    prose = re.sub(r"\$[^$\n]+\$", " ", prose)
    prose = re.sub(r"`[^`]*`|\{\{[^}]*\}\}", " ", prose)
    return re.findall(r"\d+\.\d{2,}|\d+(?:\.\d+)?\s*%|\b\d{1,3}(?:,\d{3})+\b", prose)


def guide_labels():
    """Every ``(label)=`` target the guide defines."""
    return {label for page in PAGES for label in re.findall(r"^\((guide[\w-]*)\)=$", page.read_text(), re.M)}


def docstring_problems(cls, labels, examples=True):
    """What keeps ``cls``'s docstring from being a reference entry that links to its guide.

    It must have no Notes (the discussion lives in the guide), a ``:ref:`User Guide <label>``` to a
    label the guide defines, See Also and (unless ``examples`` is False, for a mixin) Examples, and, in
    Parameters, every argument of its ``__init__`` (``a, b`` lines document several).
    """
    doc = cls.__doc__ or ""
    cleaned = inspect.cleandoc(doc)
    problems = []
    if theory_checks.docstring_section(cleaned, "Notes"):
        problems.append("has a Notes section: the discussion belongs in the user guide")
    links = re.findall(r":ref:`User Guide <([\w-]+)>`", doc)
    if not links:
        problems.append("no :ref:`User Guide <label>` link")
    problems += [f"links to {label}, which the guide does not define" for label in links if label not in labels]
    wanted = ("See Also", "Examples") if examples else ()
    problems += [f"no {title} section" for title in wanted if not theory_checks.docstring_section(cleaned, title)]
    if "__init__" in vars(cls):
        documented = set()
        for line in theory_checks.docstring_section(cleaned, "Parameters").splitlines():
            if line and not line.startswith(" "):
                documented.update(name.strip() for name in line.split(":")[0].split(","))
        arguments = [name for name in inspect.signature(cls.__init__).parameters if name != "self"]
        problems += [f"Parameters does not document {name}" for name in arguments if name not in documented]
    return problems


# ---------------------------------------------------------------------------------------------- the pages
def test_every_guide_page_is_reachable_from_the_site():
    assert "guide/index" in toctree_entries((DOCS / "index.md").read_text()), "docs/index.md does not list the guide"
    pages = [page.stem for page in PAGES]
    assert {"logistic", "hinge", "evaluation", "theory"} <= set(pages), pages
    assert unreachable_pages((GUIDE / "index.md").read_text(), pages) == []


def test_an_orphan_page_is_caught():
    index = (GUIDE / "index.md").read_text()
    assert unreachable_pages(index, [page.stem for page in PAGES] + ["forgotten"]) == ["forgotten"]


@pytest.mark.parametrize("page", [p for p in PAGES if code_cells(p.read_text())], ids=lambda p: p.stem)
def test_the_guide_code_cells_run(page, monkeypatch, tmp_path):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)           # a cell that writes a file writes it here, as the docs build runs them
    run_cells(page.read_text())


def test_a_cell_that_fails_fails_the_check():
    page = "```{code-cell} ipython3\nx = 1\n```\n\n```{code-cell} ipython3\nassert x == 2, 'stale'\n```\n"
    with pytest.raises(AssertionError, match="stale"):
        run_cells(page)


@pytest.mark.parametrize(("page", "estimator"), [("logistic", LogisticEmbedding), ("hinge", HingeEmbedding)])
def test_the_tables_of_defaults_are_the_estimators_defaults(page, estimator):
    table = defaults_table((GUIDE / f"{page}.md").read_text())
    assert default_mismatches(table, estimator().get_params()) == []


def test_a_stale_or_missing_default_is_caught():
    text = (GUIDE / "logistic.md").read_text()
    stale = text.replace("| `lam_r` | `0.3` |", "| `lam_r` | `0.5` |")
    assert stale != text
    assert default_mismatches(defaults_table(stale), LogisticEmbedding().get_params()) == [
        "lam_r: the table says 0.5, the estimator 0.3"]
    missing = re.sub(r"^\| `lam_tie` \|.*\n", "", text, flags=re.M)
    assert default_mismatches(defaults_table(missing), LogisticEmbedding().get_params()) == ["lam_tie: no row"]


def test_benchmark_sections_the_guide_and_the_docstrings_cite_exist():
    headings = readme_headings(BENCHMARKS_README.read_text())
    texts = [page.read_text() for page in PAGES]
    texts += [cls.__doc__ for cls in (BaseEmbedding, LogisticEmbedding, HingeEmbedding, LogisticEmbeddingCV,
                                      HingeEmbeddingCV)]
    names = [name for text in texts for name in benchmark_sections(text)]
    assert len(names) >= 10, f"too few citations found ({names}): is the pattern still the guide's?"
    assert missing_sections(names, headings) == []


def test_a_renamed_benchmark_section_is_caught():
    headings = readme_headings(BENCHMARKS_README.read_text())
    cited = benchmark_sections('(`benchmarks/README.md`, "Norms chosen by\nvalidation" and "Direction: tied")')
    assert cited == ["Norms chosen by validation", "Direction: tied"]
    assert missing_sections(cited, headings) == ["Direction: tied"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_measured_figures_stay_in_the_benchmarks(page):
    assert measured_figures(page.read_text()) == [], (
        "a measurement copied into the guide's prose: cite its benchmarks/README.md section, or print it "
        "from a code cell")


def test_a_copied_measurement_is_caught():
    text = ("The default reaches AP 0.887 on BlogCatalog, 12 % above, on 1,335,930 pairs; "
            "$\\gamma_0 \\approx 0.037$ and `0.03` are not prose, nor is {{ divergence_max_mean_norm }}.")
    assert measured_figures(text) == ["0.887", "12 %", "1,335,930"]


# ---------------------------------------------------------------------------------------------- docstrings
@pytest.mark.parametrize("cls", [BaseEmbedding, LogisticEmbedding, HingeEmbedding, LogisticEmbeddingCV,
                                 HingeEmbeddingCV, EmbeddingCV], ids=lambda c: c.__name__)
def test_class_docstrings_are_reference_entries_that_link_to_the_guide(cls):
    assert docstring_problems(cls, guide_labels(), examples=cls is not EmbeddingCV) == []


def test_a_docstring_that_still_holds_the_guide_is_caught():
    class Old:
        """A model.

        Read more in the :ref:`User Guide <guide-nowhere>`.

        Parameters
        ----------
        dim : int

        Notes
        -----
        Three hundred lines of discussion.
        """

        def __init__(self, dim=1, *, lam_r=0.3):
            self.dim, self.lam_r = dim, lam_r

    assert docstring_problems(Old, guide_labels()) == [
        "has a Notes section: the discussion belongs in the user guide",
        "links to guide-nowhere, which the guide does not define",
        "no See Also section", "no Examples section", "Parameters does not document lam_r"]


# ---------------------------------------------------------------------------------------------- the theory page
def _claims_emitted_without_measurements():
    """Claim names the checks' verdict functions emit on empty measurements (those that take them)."""
    return {"rademacher": [v.claim for v in rademacher_claims([])],
            "shattering": [v.claim for v in shattering_claims([], [], [])],
            "directed": [v.claim for v in directed_claims([], [])]}


def unlisted_claims(page, emitted):
    """``{check: [claims it judges that its section of the page does not name]}``, checks with none left out."""
    missing = {}
    for check, claims in emitted.items():
        section = page.split(f"### `lgekit theory {check}`")[1].split("\n### ")[0] if check in page else ""
        unlisted = [claim for claim in claims if f"``{claim}``" not in section]
        if unlisted:
            missing[check] = unlisted
    return missing


def test_the_theory_page_has_every_check_and_every_claim_the_code_judges():
    page = theory_checks.checks_page(VERIFIERS, ROOT)
    for name in VERIFIERS:
        assert f"### `lgekit theory {name}`" in page and f"(guide-theory-{name})=" in page, name
        assert f"theory/verify_{name}.py" in page, f"{name}: its script is not named"
    emitted = _claims_emitted_without_measurements()
    assert all(emitted.values()), emitted
    assert unlisted_claims(page, emitted) == {}, "claims a check judges that its docstring (so the guide) omits"
    statuses = theory_checks.statuses_page(STATUSES)
    assert all(f"| `{status}` |" in statuses for status in STATUSES)


def test_a_check_added_to_the_code_appears_on_the_page_and_one_without_claims_is_refused():
    def verify_parity(quick=False, seed=0):
        """Parity of the degrees, checked.

        Returns
        -------
        TheoryReport
            Claims: ``handshake-lemma`` (the degrees sum to twice the edges).
        """

    page = theory_checks.checks_page({**VERIFIERS, "parity": verify_parity})
    assert "### `lgekit theory parity`" in page and "``handshake-lemma``" in page
    assert "Parity of the degrees, checked." in page

    def verify_silent(quick=False, seed=0):
        """A check whose docstring forgot its claims.

        Returns
        -------
        TheoryReport
        """

    with pytest.raises(ValueError, match="names no claim"):
        theory_checks.checks_page({"silent": verify_silent})


def test_a_hand_written_claim_list_that_misses_a_claim_is_caught():
    # the wrong version: a page written once by hand, which a claim added (or renamed) later does not reach
    page = theory_checks.checks_page(VERIFIERS, ROOT)
    emitted = _claims_emitted_without_measurements()
    dropped = emitted["rademacher"][-1]
    stale = page.replace(f"``{dropped}``", "``a-claim-renamed``")
    assert unlisted_claims(stale, emitted) == {"rademacher": [dropped]}
    without_a_check = theory_checks.checks_page({k: v for k, v in VERIFIERS.items() if k != "shattering"}, ROOT)
    assert set(unlisted_claims(without_a_check, emitted)) == {"shattering"}


# ---------------------------------------------------------------------------------------------- the code's numbers
THRESHOLDS = ("divergence_max_mean_norm", "divergence_objective_factor", "divergence_norm_growth",
              "divergence_norm_growth_alone", "divergence_growth_epochs")


def copied_thresholds(text):
    """The estimators' thresholds a page writes down as numbers instead of the ``{{ name }}`` substitutions."""
    return [name for name in THRESHOLDS if re.search(rf"`{name}`\s*\(\s*[0-9]", text)]


def test_the_guide_takes_the_thresholds_from_the_code():
    used = {name for page in PAGES for name in re.findall(r"\{\{\s*(\w+)\s*\}\}", page.read_text())}
    assert used, "the guide uses no substitution"
    conf = (DOCS / "conf.py").read_text()
    for name in used:
        assert hasattr(BaseEmbedding, name), f"{{{{ {name} }}}} is no attribute of BaseEmbedding"
        assert f'"{name}"' in conf, f"docs/conf.py does not define the substitution {name}"
    assert [name for page in PAGES for name in copied_thresholds(page.read_text())] == []


def test_a_copied_threshold_is_caught():
    assert copied_thresholds("* `divergence_max_mean_norm` (1e8): a mean row norm above it") == [
        "divergence_max_mean_norm"]
    assert copied_thresholds("* `divergence_max_mean_norm` ({{ divergence_max_mean_norm }})") == []
