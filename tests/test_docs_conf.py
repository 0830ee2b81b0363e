"""docs/conf.py documents the installed lgekit, or the checkout when its kernels are built in place."""
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lgekit

ROOT = Path(__file__).resolve().parent.parent


def _load_import_path():
    spec = importlib.util.spec_from_file_location("lgekit_import", ROOT / "docs" / "lgekit_import.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lgekit_import = _load_import_path()


def _source_tree(tmp_path, built):
    root = tmp_path / "checkout"
    (root / "lgekit").mkdir(parents=True)
    (root / "lgekit" / "__init__.py").write_text("raise ImportError('the unbuilt checkout was imported')\n")
    if built:
        (root / "lgekit" / f"_openmp{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    return root


def test_in_place_build_is_documented_first(tmp_path):
    root = _source_tree(tmp_path, built=True)
    path = lgekit_import.import_path(root, ["/somewhere", str(root), ""])
    assert path[0] == str(root.resolve())
    assert path.count(str(root.resolve())) == 1 and "/somewhere" in path


def test_unbuilt_checkout_leaves_the_path(tmp_path):
    root = _source_tree(tmp_path, built=False)
    path = lgekit_import.import_path(root, [str(root), "", ".", str(root / "docs" / ".."), "/site"])
    assert path == ["/site"]


def test_docs_of_a_non_editable_install_import_the_installed_package(tmp_path):
    # The bug of issue 25: `python3 -m sphinx docs ...` from the root of a checkout whose kernels were
    # never built put that checkout first on sys.path, and `import lgekit` failed on lgekit._sampling.
    # Here the checkout is a copy of lgekit's Python files without kernels, and the "installed"
    # lgekit is the one this test session imports.
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "lgekit", root / "lgekit",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__", "*_avx2.pyx"))
    shutil.copytree(ROOT / "docs", root / "docs", ignore=shutil.ignore_patterns("_build", "api", "tutorials",
                                                                              "jupyter_execute"))
    installed = Path(lgekit.__file__).resolve().parent
    if installed.is_relative_to(root):
        pytest.skip("lgekit is not installed outside the copy")
    script = ("import sys, runpy; from pathlib import Path\n"
              "sys.path[:] = runpy.run_path('docs/lgekit_import.py')['import_path'](Path.cwd(), sys.path)\n"
              "import lgekit, lgekit.models; print(lgekit.__file__)\n")
    # python -m puts the current folder (the checkout) first on sys.path, as python -m sphinx does
    (root / "probe.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": ""}
    # without the choice, the checkout wins and its missing kernels fail the import
    plain = subprocess.run([sys.executable, "-c", "import lgekit.models"], cwd=root, env=env,
                           capture_output=True, text=True)
    assert plain.returncode != 0 and "ModuleNotFoundError: No module named 'lgekit." in plain.stderr, plain.stderr
    chosen = subprocess.run([sys.executable, "-m", "probe"], cwd=root, env=env, capture_output=True, text=True)
    assert chosen.returncode == 0, chosen.stderr
    assert Path(chosen.stdout.strip()).resolve().parent == installed
