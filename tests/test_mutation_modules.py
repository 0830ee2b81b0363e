"""The mutation driver follows the theory code: every module in its tables, every accepted survivor in its module.

``.ci/mutation/mutants.py`` mutates the modules named in its ``CHECKS`` table (and runs the tests of its
``TESTS`` table on a survivor); ``survivors.json`` accepts equivalent survivors by module and line.  When
code moves to a new module (issue 45: the predictions of E||A_sigma|| out of ``rademacher.py``), a module
missing from the tables is never mutated, and an accepted survivor left pointing at the old module matches
nothing, so ``mutants.py ci`` would report it as NEW.  These tests read the driver's source (it imports
cosmic-ray, an optional dependency) and catch both.
"""
import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / ".ci" / "mutation" / "mutants.py"
ACCEPTED = ROOT / ".ci" / "mutation" / "survivors.json"


def driver_table(source, name):
    """The literal dict assigned to ``name`` at the top level of the driver's source."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{name} is not assigned in the driver")


def theory_modules(root):
    """The modules whose mutants the theory checks must notice: lgekit/theory/*.py and the checks' modules."""
    theory = [p for p in (root / "lgekit" / "theory").glob("*.py") if p.name != "__init__.py"]
    checks = list((root / "lgekit" / "experiments").glob("check_*.py"))
    checks += [root / "lgekit" / "experiments" / name for name in ("checks.py", "theorem1.py")]
    return sorted(p.relative_to(root).as_posix() for p in theory + checks if p.exists())


def coverage_gaps(source, root):
    """Problems of the driver's tables: a module in neither table, or a table entry for a file that is gone."""
    gaps = []
    for table in ("CHECKS", "TESTS"):
        listed = driver_table(source, table)
        gaps += [f"{table} lacks {m}" for m in theory_modules(root) if m not in listed]
        gaps += [f"{table} names {m}, which does not exist" for m in listed if not (root / m).exists()]
    return gaps


def misplaced_survivors(accepted, root):
    """Accepted survivors whose line before the mutation is not in the module they name."""
    out = []
    for s in accepted:
        path = root / s["module"]
        lines = {line.strip() for line in path.read_text(encoding="utf-8").splitlines()} if path.exists() else set()
        # several changed lines are joined by " / ", which a single line may also hold (a division)
        parts = [s["before"]] if s["before"] in lines else s["before"].split(" / ")
        if not all(part in lines for part in parts):
            out.append(f"{s['module']}: {s['before']}")
    return out


def test_every_theory_module_is_in_the_driver_tables():
    assert coverage_gaps(DRIVER.read_text(encoding="utf-8"), ROOT) == []


def test_a_module_left_out_of_the_driver_is_caught():
    # the wrong version: the driver as it was before predictions.py split off rademacher.py
    source = "\n".join(line for line in DRIVER.read_text(encoding="utf-8").splitlines()
                       if "lgekit/theory/predictions.py" not in line)
    assert coverage_gaps(source, ROOT) == ["CHECKS lacks lgekit/theory/predictions.py",
                                           "TESTS lacks lgekit/theory/predictions.py"]


def test_a_module_that_is_gone_is_caught(tmp_path):
    for module in theory_modules(ROOT):
        if module != "lgekit/theory/predictions.py":
            (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / module).write_text("")
    gaps = coverage_gaps(DRIVER.read_text(encoding="utf-8"), tmp_path)
    assert gaps == ["CHECKS names lgekit/theory/predictions.py, which does not exist",
                    "TESTS names lgekit/theory/predictions.py, which does not exist"]


def test_every_accepted_survivor_is_in_its_module():
    accepted = json.loads(ACCEPTED.read_text(encoding="utf-8"))["survivors"]
    assert len(accepted) == 15
    assert misplaced_survivors(accepted, ROOT) == []


@pytest.mark.parametrize("module", ["lgekit/theory/predictions.py", "lgekit/theory/sample.py"])
def test_a_survivor_left_in_another_module_is_caught(module):
    # the wrong version: Lanczos's accepted survivor pointing at a module that does not hold its line
    accepted = json.loads(ACCEPTED.read_text(encoding="utf-8"))["survivors"]
    lanczos = next(s for s in accepted if s["module"] == "lgekit/theory/rademacher.py")
    assert misplaced_survivors([dict(lanczos, module=module)], ROOT) == [f"{module}: {lanczos['before']}"]
