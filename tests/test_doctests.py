"""Every docstring example of lgekit runs and prints what it says (numpydoc's Examples are doctests).

pytest's own ``--doctest-modules`` is not part of the README's command, so an example that went stale (a
history record that gained keys, say) would otherwise only be caught by a reader.  Each module is imported
by its package name, as a user imports it; a module whose optional dependency is missing is skipped, naming it.
"""
import doctest
import importlib
import pkgutil

import pytest

import lgekit

MODULES = sorted(m.name for m in pkgutil.walk_packages(lgekit.__path__, "lgekit.")
                 if not m.name.endswith(("_avx2", "__main__")))     # __main__ runs the CLI when imported


def test_the_walk_finds_the_modules_with_examples():
    """The list is not empty or cut short: the modules whose examples matter most are in it."""
    assert {"lgekit.graph", "lgekit.reference", "lgekit.models.logistic", "lgekit.models._sgd_solver"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, monkeypatch, tmp_path):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)                  # an example that writes a file writes it here
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        if exc.name and not exc.name.startswith("lgekit"):
            pytest.skip(f"{name} needs {exc.name}, not installed")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             raise_on_error=False, report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (see stdout)"


def test_a_stale_example_is_caught():
    """The wrong version: an example whose printed value is out of date fails the check above."""
    stale = type(importlib)("stale")
    stale.__doc__ = ">>> sorted({'b': 1, 'a': 2})\n['a']\n"
    result = doctest.testmod(stale, optionflags=doctest.NORMALIZE_WHITESPACE, report=False, verbose=False)
    assert (result.failed, result.attempted) == (1, 1)
