"""The README's test command is what CI runs, installs what the tests need, and CI runs every test it skips
(issue 35 item 7).

The README's command installs the ``test`` extra only; the tests that need another extra (the tutorials'
jupytext, the Dask engine's distributed, ipywidgets) skip without it, and ``.ci/run`` runs them by name
after installing every extra.  These checks keep the three in step.
"""
import ast
import re
import tomllib
from pathlib import Path

import pytest

import lgekit

ROOT = Path(lgekit.__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# distribution names whose import name differs
IMPORT_NAMES = {"pyyaml": "yaml", "scikit-learn": "sklearn", "myst-nb": "myst_nb", "sphinx-argparse": "sphinxarg"}

pytestmark = pytest.mark.skipif(not (ROOT / ".ci" / "run").is_file() or not (ROOT / "README.md").is_file(),
                                reason="needs a source checkout (README.md and .ci/run)")


def _module(requirement):
    name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()
    return IMPORT_NAMES.get(name, name.replace("-", "_"))


def extra_modules():
    """``(installed by the test command, needing another extra)``: import names, from pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    core = {_module(r) for r in project["dependencies"]} | {_module(r) for r in extras["test"]}
    other = {_module(r) for name, reqs in extras.items() if name not in ("test", "all") for r in reqs
             if not r.startswith("lgekit")}
    return core, other - core


def readme_test_command(readme_text):
    """The shell line of the README's "Run the tests" code block."""
    after = readme_text.split("Run the tests", 1)[1]
    block = re.search(r"```bash\n(.*?)```", after, re.S).group(1)
    [line] = [x for x in block.splitlines() if x.strip()]
    return line.strip()


def needing_extras(other, tests_dir=TESTS):
    """``tests/<file>`` (a module-level importorskip) or ``tests/<file>::<test>`` for every importorskip of a
    module in ``other``."""
    needed = set()
    for path in sorted(tests_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text())
        owner = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for child in ast.walk(node):
                    owner.setdefault(id(child), node.name)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "importorskip" and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value.split(".")[0] in other):
                name = f"tests/{path.name}"
                needed.add(name if id(node) not in owner else f"{name}::{owner[id(node)]}")
    return needed


def unlisted(run_text, needed):
    """The entries of ``needed`` that ``run_text`` (.ci/run) does not name as pytest arguments."""
    named = set(re.findall(r"(tests/\S+\.py(?:::\w+)?)", run_text))
    return sorted(needed - named)


def test_ci_runs_the_readme_test_command_verbatim_and_it_installs_the_test_extra():
    command = readme_test_command((ROOT / "README.md").read_text())
    assert command == 'python3 -m pip install -e ".[test]" && python3 -m pytest'
    run_lines = [x.strip() for x in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command in run_lines
    # the wrong version is caught: a README that asks for every extra no longer matches CI's line
    other_readme = (ROOT / "README.md").read_text().replace('-e ".[test]" && python3 -m pytest',
                                                             '-e ".[all]" && python3 -m pytest')
    assert readme_test_command(other_readme) not in run_lines


def test_ci_runs_every_test_that_skips_without_the_other_extras():
    core, other = extra_modules()
    assert {"pytest", "hypothesis", "pandas", "yaml"} <= core and {"jupytext", "distributed", "ipywidgets"} <= other
    needed = needing_extras(other)
    assert "tests/test_tutorials.py" in needed      # the module-level importorskip of jupytext
    assert any(x.startswith("tests/test_experiments_engine.py::") for x in needed)
    run_text = (ROOT / ".ci" / "run").read_text()
    assert unlisted(run_text, needed) == []
    # the check has teeth: drop one name from the script and it is reported
    dropped = sorted(needed)[0]
    assert unlisted(run_text.replace(dropped, "tests/other.py"), needed) == [dropped]


def test_needing_extras_reads_module_level_and_in_test_skips(tmp_path):
    (tmp_path / "test_a.py").write_text("import pytest\nj = pytest.importorskip('jupytext')\n")
    (tmp_path / "test_b.py").write_text("import pytest\n\ndef test_x():\n    pytest.importorskip('distributed.x')\n"
                                        "\ndef test_y():\n    pytest.importorskip('pandas')\n")
    assert needing_extras({"jupytext", "distributed"}, tmp_path) == {"tests/test_a.py", "tests/test_b.py::test_x"}
