"""Which lgekit the documentation describes: the installed package, or the checkout's in-place build.

``python3 -m sphinx`` puts the current folder first on ``sys.path``, so from
the repository root a plain ``import lgekit`` finds the source tree even when
its kernels were never compiled there (``pip install ".[docs]"``, a
non-editable install, compiles them into site-packages), and the build fails
with ``No module named 'lgekit._sampling'``.  :func:`import_path` decides
before ``conf.py`` imports lgekit:

* the source tree has compiled kernels (``pip install -e .`` or
  ``setup.py build_ext --inplace``): document it, first on the path, which is
  also what an editable install imports;
* it has none: take every entry that names the source tree off the path, so
  that the installed package is imported.

Kept out of ``conf.py`` so that the tests can exercise both routes without
running the configuration, which generates pages.
"""
import importlib.machinery
from pathlib import Path

__all__ = ["has_inplace_build", "import_path"]


def has_inplace_build(root):
    """Whether ``root/lgekit`` holds a compiled kernel (any extension-module suffix of this Python)."""
    package = Path(root) / "lgekit"
    return any((package / f"_openmp{suffix}").is_file() for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def import_path(root, path):
    """Return the ``sys.path`` (a new list) under which ``import lgekit`` gets the package to document.

    Parameters
    ----------
    root : path-like
        The repository root (the folder holding ``lgekit/`` and ``docs/``).
    path : list of str
        The current ``sys.path``.

    Returns
    -------
    list of str
        ``path`` with ``root`` first when it has an in-place build.  Otherwise
        ``path`` without the entries that name ``root``: its absolute path, and
        the relative entries ``""`` and ``"."``, which mean whatever folder is
        current at import time (Sphinx runs ``conf.py`` in ``docs/`` and
        autodoc from where it was started, often the root).
    """
    root = Path(root).resolve()

    def names_root(entry):
        return entry in ("", ".") or (Path(entry).is_absolute() and Path(entry).resolve() == root)

    rest = [entry for entry in path if not names_root(entry)]
    return [str(root), *rest] if has_inplace_build(root) else rest
