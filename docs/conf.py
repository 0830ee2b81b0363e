"""Sphinx configuration of lgekit's documentation.

Build (from the repository root, with the ``docs`` extra installed)::

    python3 -m sphinx -W -b html docs docs/_build

Two kinds of page are generated here, at configuration time, so that they
cannot drift from the code:

* ``api/``: one page per public module, listing the names in its
  ``__all__``.  Each object gets its own page (autosummary + numpydoc) under
  the first module of ``API_MODULES`` that exports it; the other modules
  that re-export it link there, and a reference by any other path
  (``lgekit.models.LogisticEmbedding``, ``lgekit.graph.Graph.from_networkx``)
  resolves to that page.
* ``tutorials/``: the jupytext percent-format scripts of ``../tutorials`` as
  notebooks, which MyST-NB executes and renders with their outputs.
* ``guide/generated/``: the parts of the user guide that the code writes (see
  ``theory_checks.py``): the verdict statuses and, per theory check, its
  claims, included by ``guide/theory.md``.  The user guide's other numbers
  that are the code's (the estimators' thresholds) are MyST substitutions
  (``myst_substitutions`` below); the rest are printed by its code cells.
  Executed notebooks are cached in ``<output folder>/.jupyter_cache`` (keyed on the
  code and on the environment that decides which data the tutorials load),
  so a rebuild re-executes only what changed; delete that folder to force a
  fresh run after changing lgekit itself.

The three folders are build products (see ``docs/.gitignore``).
"""
import builtins
import importlib
import importlib.util
import inspect
import json
import os
import sys
from pathlib import Path

import jupytext
import nbformat
from sphinx.pycode import ModuleAnalyzer, PycodeError
from sphinx.util.docstrings import prepare_docstring

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def _load_sibling(name):
    # by file, not through sys.path: Sphinx runs this file from docs/, and nothing else here needs docs/ importable
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The installed lgekit, or the checkout's when its kernels are built in place (see lgekit_import.py).
sys.path[:] = _load_sibling("lgekit_import").import_path(ROOT, sys.path)
try:
    import lgekit
except ImportError as error:
    raise RuntimeError(
        f"cannot import lgekit to document it ({error}); install it with python3 -m pip install \".[docs]\" "
        "or build it in place with python3 -m pip install -e \".[docs]\"") from error

# -- project -------------------------------------------------------------------

project = "lgekit"
author = "lgekit developers"
copyright = "lgekit developers"
release = lgekit.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax from the package (a PyPI wheel), copied into _static/mathjax: the site renders its
    # formulas offline, where the default (a CDN) leaves raw LaTeX
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinxarg.ext",
]

templates_path = ["_templates"]
# MyST-NB writes the executed notebooks' images next to the output folder, i.e. into docs/jupyter_execute
# for the documented command (`-b html docs docs/_build`); they are build products, not sources.
# guide/generated holds pieces that guide pages include, not pages of their own
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "guide/generated"]
html_theme = "alabaster"
html_title = f"lgekit {release}"
html_theme_options = {
    "description": "Linear graph embedding, and why its norms matter",
    "fixed_sidebar": True,
    "page_width": "1200px",     # the tutorials' code and tables need more than the default 940px
    "sidebar_width": "240px",
}
# lgekit.css: below 1,300 px the page fills the window and long code lines wrap instead of
# scrolling (tests/test_docs_browser.py checks it at 1,280 px)
html_static_path = ["_static"]
html_css_files = ["lgekit.css"]
# Generated (and git-ignored) sources end in .rst / .ipynb; the hand-written pages are MyST Markdown.
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
# Quotes and ellipses only: with dashes on, "--data-home" in the generated CLI reference would
# be printed with an en dash, an option that does not exist.
smartquotes_action = "qe"

# -- API pages -----------------------------------------------------------------

# The public modules, in the order the API reference lists them.  An object
# exported by several (lgekit.LogisticEmbedding is lgekit.models.LogisticEmbedding)
# is documented under the first, which is the path the README teaches.
API_MODULES = [
    ("lgekit", "The top level: the names most programs need."),
    ("lgekit.ids", "Node ids: exact arrays of any ids, matching ids to indices, the two sides of a bipartite graph."),
    ("lgekit.labels", "Node-label matrices, built in one place."),
    ("lgekit.datasets", "Loaders, the data-set registry, downloads and random-graph generators."),
    ("lgekit.evaluation", "Leak-checked link-prediction splits."),
    ("lgekit.metrics", "Average precision, ROC-AUC, MRR and Hits@k, and node-classification F1."),
    ("lgekit.neighbours", "Nearest neighbours of an embedding: blocked top-k by score or cosine."),
    ("lgekit.callbacks", "Per-epoch evaluation and early stopping during fit."),
    ("lgekit.models", "The estimators and what they share."),
    ("lgekit.plotting", "A picture of an embedding: PCA or t-SNE to 2-D, coloured by label."),
    ("lgekit.reference", "Plain NumPy reference implementations the kernels are tested against."),
    ("lgekit.theory", "The paper's mathematics: spectral norms, Theorem 1, Claim 1, capacity fits, the planted model."),
    ("lgekit.experiments", "The harness: Figures 1-6 and the theory checks, one verdict type, one report writer."),
    ("lgekit.experiments.verdict", "One verdict type, the claims, and the report writer."),
    ("lgekit.experiments.checks", "Running a theory check: lgekit theory and the theory/verify_*.py scripts."),
    ("lgekit.experiments.check_rademacher", "lgekit theory rademacher: E||A_sigma|| against the spectral-norm estimates."),
    ("lgekit.experiments.check_bound", "lgekit theory bound: Theorem 1's bound against the measured gap."),
    ("lgekit.experiments.check_directed", "lgekit theory directed: Theorem 1 with two tables."),
    ("lgekit.experiments.check_shattering", "lgekit theory shattering: Claim 1's construction."),
    ("lgekit.experiments.check_capacity", "lgekit theory capacity: random labels, norm against dimension."),
]

autosummary_generate = True
autodoc_member_order = "bysource"
autodoc_typehints = "none"            # the numpydoc Parameters section states every type
numpydoc_show_class_members = False   # the class template lists members through autodoc instead
numpydoc_class_members_toctree = False

# Members a documented class inherits from the standard library or from
# scikit-learn are documented there; listing them here would repeat
# BaseException.with_traceback on every exception and BaseEstimator.get_params
# on every estimator.
_FOREIGN_BASES = sorted(
    {name for name, value in vars(builtins).items() if isinstance(value, type)}
    | {name for name, value in vars(importlib.import_module("sklearn.base")).items() if isinstance(value, type)}
    | {"Enum", "IntEnum", "Generic", "Protocol"}
)
# Filled by _api_pages: data whose repr is too long to print in a signature line.
autosummary_context = {"foreign_bases": ", ".join(_FOREIGN_BASES), "long_values": []}
# Filled by _api_pages: the fields of documented dataclasses, which are public data even though
# they are class attributes with plain values (see _skip_class_constants).
_DATACLASS_FIELDS = set()
_LONG_VALUE = 600    # characters of repr()


def _kind(obj):
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


_SECTIONS = [("class", "Classes"), ("function", "Functions"), ("exception", "Exceptions and warnings"), ("data", "Data")]


def _public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        raise RuntimeError(f"{module.__name__} has no __all__: the API pages list exactly the names in __all__")
    return [name for name in names if not name.startswith("_")]


def _api_pages():
    """Return ``{relative path: rst text}`` for api/ and api/generated/, and the alias map.

    The api/generated/ values are None: autosummary writes those pages; they
    are listed so that pages of names no longer public are deleted.
    """
    home = {}        # id(obj) -> canonical full name
    aliases = {}     # any other full name of a documented object -> canonical full name
    pages = {}
    documented_modules = {name for name, _ in API_MODULES}
    for modname, summary in API_MODULES:
        module = importlib.import_module(modname)
        sections = {kind: [] for kind, _ in _SECTIONS}
        elsewhere, submodules = [], []
        for name in _public_names(module):
            obj = getattr(module, name)
            kind = _kind(obj)
            if kind == "module":
                if obj.__name__ in documented_modules:
                    submodules.append(obj.__name__)
                continue
            full = f"{modname}.{name}"
            # Plain values (numbers, strings) are not identities worth sharing.
            if kind != "data" and id(obj) in home:
                aliases[full] = home[id(obj)]
                elsewhere.append((kind, home[id(obj)]))
                continue
            home.setdefault(id(obj), full)
            if kind in ("class", "exception"):
                _DATACLASS_FIELDS.update(getattr(obj, "__dataclass_fields__", {}))
            sections[kind].append(name)
            pages[f"api/generated/{full}.rst"] = None
            defined_as = f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', None)}"
            if kind != "data" and defined_as != full:
                aliases[defined_as] = full          # lgekit.models.logistic.LogisticEmbedding
            if kind == "data" and len(repr(obj)) > _LONG_VALUE:
                autosummary_context["long_values"].append(full)

        lines = [modname, "=" * len(modname), "", f".. automodule:: {modname}", "", f".. currentmodule:: {modname}", ""]
        for kind, title in _SECTIONS:
            if sections[kind]:
                lines += [title, "-" * len(title), "", ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
                lines += [f"   {name}" for name in sections[kind]] + [""]
        if elsewhere:
            role = {"class": "class", "exception": "exc", "function": "func", "data": "data"}
            lines += ["Also exported here", "------------------", "",
                      "These names are documented under their main import path:", ""]
            lines += [f"* :{role[kind]}:`{target}`" for kind, target in elsewhere] + [""]
        if submodules:
            lines += ["Submodules", "----------", ""] + [f"* :mod:`{name}`" for name in submodules] + [""]
        pages[f"api/{modname}.rst"] = "\n".join(lines)

    index = ["API reference", "=============", "",
             "Every public name, module by module, from the docstrings.  Each module's page",
             "lists exactly its ``__all__``.", "", ".. toctree::", "   :hidden:", ""]
    index += [f"   {modname}" for modname, _ in API_MODULES] + [""]
    index += [".. list-table::", "   :widths: 30 70", ""]
    for modname, summary in API_MODULES:
        index += [f"   * - :mod:`{modname}`", f"     - {summary}"]
    pages["api/index.rst"] = "\n".join(index) + "\n"
    return pages, aliases


# -- tutorials -----------------------------------------------------------------

# What decides a tutorial's output besides its code: which data it finds and its size switch.  It goes
# into a hidden first cell, so the execution cache (keyed on code cells) misses when it changes.  The
# same cell asks for inline figures: CI exports MPLBACKEND=Agg, which the kernel would otherwise obey
# and so render no figure at all.
_TUTORIAL_ENVIRONMENT = ("LGEKIT_DATA", "LGEKIT_TUTORIAL_FULL", "LGEKIT_OFFLINE", "LGEKIT_CACHE")


def _tutorial_notebooks():
    """Return ``{relative path: notebook json}`` for the tutorials of ../tutorials."""
    environment = {name: os.environ.get(name) for name in _TUTORIAL_ENVIRONMENT}
    key = (f"# docs build of lgekit {lgekit.__version__}, environment {json.dumps(environment, sort_keys=True)}\n"
           "%matplotlib inline")
    notebooks = {}
    for script in sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.py")):
        notebook = jupytext.read(script, fmt="py:percent")
        notebook.cells.insert(0, nbformat.v4.new_code_cell(key, metadata={"tags": ["remove-cell"]}))
        notebook.metadata.pop("jupytext", None)
        for number, cell in enumerate(notebook.cells):
            cell.id = f"cell-{number}"   # jupytext draws random ids; keep the file stable between builds
            tags = cell.metadata.get("tags", [])
            if "solution" in tags:   # folded, so that a reader meets the exercise before its answer
                cell.metadata["tags"] = [*tags, "hide-cell"]
        notebooks[f"tutorials/{script.stem}.ipynb"] = nbformat.writes(notebook, version=4) + "\n"
    if not notebooks:
        raise RuntimeError(f"no tutorials found in {ROOT / 'tutorials'}")
    return notebooks


def _write_generated(files, folders):
    """Write ``files`` under docs/, touching only what changed; delete stale files in ``folders``.

    A file whose text is None is kept if it exists (another tool writes it).
    A stale page would fail the build ("document isn't included in any
    toctree") on the next local build after a name stops being public.
    """
    for relative, text in files.items():
        if text is None:
            continue
        path = DOCS / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        # An unchanged mtime keeps Sphinx from re-reading (and MyST-NB from re-checking) the page.
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    keep = {DOCS / relative for relative in files}
    for folder in folders:
        for path in (DOCS / folder).glob("*.*"):
            if path.is_file() and path not in keep:
                path.unlink()


# -- the user guide's generated parts --------------------------------------------

def _guide_pieces():
    """Return ``{relative path: MyST text}`` for guide/generated/: the verdict statuses and the theory checks."""
    theory_checks = _load_sibling("theory_checks")
    verifiers = importlib.import_module("lgekit.experiments.checks").VERIFIERS
    statuses = importlib.import_module("lgekit.experiments.verdict").STATUSES
    return {"guide/generated/theory_statuses.md": theory_checks.statuses_page(statuses),
            "guide/generated/theory_checks.md": theory_checks.checks_page(verifiers, ROOT)}


_pages, API_ALIASES = _api_pages()
_write_generated({**_pages, **_tutorial_notebooks(), **_guide_pieces()},
                 folders=["api", "api/generated", "tutorials", "guide/generated"])


def _canonical(name):
    """``name`` with its longest aliased prefix replaced (a method of a re-exported class too)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in API_ALIASES:
            return ".".join([API_ALIASES[prefix], *parts[end:]])
    return None


def _resolve_alias(app, env, node, contnode):
    """Resolve a reference to a documented object by another of its names to its page."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    candidates = [target]
    if node.get("py:module"):
        candidates.insert(0, f"{node['py:module']}.{target}")
    for candidate in candidates:
        canonical = _canonical(candidate)
        if canonical is not None:
            return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                                     canonical, node, contnode)
    return None


def _skip_sklearn_machinery(app, what, name, obj, skip, options):
    """Leave out the metadata-routing methods scikit-learn generates on every estimator.

    ``set_fit_request`` and friends are defined on each subclass (so the
    foreign-base filter above does not catch them), their docstrings are
    scikit-learn's and point into its glossary, and they are documented there.
    """
    if name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request")):
        if "sklearn" in (getattr(obj, "__module__", None) or ""):
            return True
    return None


_PLAIN = (bool, int, float, complex, str, bytes, type(None))


def _skip_class_constants(app, what, name, obj, skip, options):
    """Leave out a class's tuning constants (``divergence_max_mean_norm = MAX_MEAN_NORM``).

    They carry ``#:`` comments for readers of the source, which autodoc would
    turn into public attributes on the class's page; the class's Notes say
    which ones a user may change and what they mean.  Dataclass fields stay.
    """
    if what in ("class", "exception") and isinstance(obj, _PLAIN) and name not in _DATACLASS_FIELDS:
        return True
    return None


def _data_doc_from_definition(app, what, name, obj, options, lines):
    """Document a re-exported constant by its ``#:`` comment where it is defined.

    autodoc looks for ``#:`` comments only in the module it documents
    (``lgekit.datasets``), not where the constant is assigned
    (``lgekit.datasets._loaders``); without one it shows the docstring of
    the value's type ("frozenset() -> empty frozenset object"), which says
    nothing about the constant.
    """
    type_doc = getattr(type(obj), "__doc__", None) if what == "data" else None
    if not isinstance(type_doc, str) or "\n".join(lines).strip() != "\n".join(prepare_docstring(type_doc)).strip():
        return
    package, _, attr = name.rpartition(".")
    for modname in sorted(sys.modules):
        if modname.startswith(package + ".") and getattr(sys.modules[modname], attr, None) is obj:
            try:
                docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
            except PycodeError:
                continue
            if ("", attr) in docs:
                lines[:] = list(docs[("", attr)])
                return
    lines[:] = []


def _cache_in_output_folder(app, config):
    # MyST-NB's default is beside the output folder, i.e. docs/.jupyter_cache for the documented
    # command; inside it, a fresh output folder is a fresh cache.
    config.nb_execution_cache_path = str(Path(app.outdir) / ".jupyter_cache")


def setup(app):
    app.connect("config-inited", _cache_in_output_folder)
    app.connect("missing-reference", _resolve_alias)
    app.connect("autodoc-skip-member", _skip_sklearn_machinery)
    app.connect("autodoc-skip-member", _skip_class_constants)
    # before numpydoc (priority 500) reformats the lines this compares
    app.connect("autodoc-process-docstring", _data_doc_from_definition, priority=400)


# -- MyST and MyST-NB ----------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "substitution", "deflist"]
myst_heading_anchors = 3


def _number(value):
    """A threshold as the guide prints it: ``1e8``, ``10``, ``1.5``."""
    if isinstance(value, float) and value >= 1e5:
        mantissa, exponent = f"{value:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:g}"


# {{ name }} in a guide page: the value the code holds, so that the prose cannot drift from it
_BASE = importlib.import_module("lgekit.models").BaseEmbedding
myst_substitutions = {
    name: _number(getattr(_BASE, name))
    for name in ("negatives_per_positive", "divergence_max_mean_norm", "divergence_objective_factor",
                 "divergence_norm_growth", "divergence_norm_growth_alone", "divergence_growth_epochs")
}

nb_execution_mode = "cache"            # in <output folder>/.jupyter_cache, see _cache_in_output_folder
nb_execution_in_temp = True          # the tutorials write files; keep them out of the checkout
nb_execution_timeout = 600           # per cell
nb_execution_raise_on_error = True   # a tutorial that fails fails the build ...
nb_execution_show_tb = True          # ... and the log shows the cell and its traceback
nb_merge_streams = True
# No ipywidgets JavaScript: myst-nb would load RequireJS and the widget manager from a CDN, and the
# site must work offline.  The norm dial (tutorial 08) is interactive in Jupyter; on the site it shows
# the static figure it draws when executed.
nb_ipywidgets_js = {}
# Only the solution cells are folded (see _tutorial_notebooks), so the toggle can say what it hides.
nb_code_prompt_show = "Show the solution"
nb_code_prompt_hide = "Hide the solution"
