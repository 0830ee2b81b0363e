"""Lower layers never import higher ones.

``lgekit.theory`` is the paper's mathematics; training (``lgekit.models``),
the harness (``lgekit.experiments``) and plotting (matplotlib) sit above it.
Importing it must not pull any of them in, checked in a fresh interpreter so
that no other test's imports hide a violation.
"""
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lgekit

# the source tree under test, whatever copy an installed lgekit would be
ROOT = Path(lgekit.__file__).resolve().parent.parent


def _modules_after(statement):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    code = f"{statement}\nimport json, sys, lgekit\nprint(json.dumps([lgekit.__file__, sorted(sys.modules)]))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    where, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(where).resolve().parent.parent == ROOT  # the tree under test, not an installed copy
    return set(modules)


@pytest.mark.parametrize("statement", [
    "import lgekit.theory",
    "from lgekit.theory import *",
    "import lgekit.theory.rademacher, lgekit.theory.bounds, lgekit.theory.planted, lgekit.theory.shattering, "
    "lgekit.theory.capacity",
])
def test_theory_imports_no_higher_layer(statement):
    modules = _modules_after(statement)
    assert "lgekit.theory" in modules
    for higher in ("lgekit.experiments", "lgekit.models", "matplotlib"):
        assert not {m for m in modules if m == higher or m.startswith(higher + ".")}, f"{statement} imported {higher}"


def test_the_check_detects_an_upward_import():
    # the assertion above must be able to fail: the harness does pull these in
    modules = _modules_after("import lgekit.experiments.theory_checks")
    assert "lgekit.experiments" in modules and "lgekit.theory" in modules


def _imported_modules(path):
    """Absolute names of every module ``path`` imports, at any depth (lazy imports in functions included)."""
    package = "lgekit.theory".split(".")
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return names


def test_imported_modules_resolves_relative_imports(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import numpy as np\nfrom .. import models\ndef f():\n    from ..experiments.store import x\n")
    names = _imported_modules(src)
    assert {"numpy", "lgekit.models", "lgekit.experiments.store"} <= set(names)


def test_no_theory_source_imports_a_higher_layer():
    # a lazy import inside a function escapes the import-time check; the source does not
    sources = sorted((ROOT / "lgekit" / "theory").glob("*.py"))
    assert sources
    for path in sources:
        for name in _imported_modules(path):
            for higher in ("lgekit.experiments", "lgekit.models", "matplotlib"):
                assert not (name == higher or name.startswith(higher + ".")), f"{path.name} imports {name}"
