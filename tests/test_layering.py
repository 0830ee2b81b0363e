"""Lower layers never import higher ones, and every module of lgekit has a layer.

The layers, from the bottom up (:data:`LAYERS`)::

    foundation  (version, validation, seeds, ids, atomic files, JSON, progress, parameter tables, kernels' helpers)
    < graph     (the Graph, its labels)
    < data      (datasets, evaluation, metrics; theory, which is pure maths and may use only the two below)
    < models < callbacks < experiments < commands < cli

:data:`LAYER_OF` gives each module or package its layer; a module takes the
layer of the longest name in the table that contains it, so a new file inside
a package needs no line here and a new top-level module needs one.  Modules
may import modules of their own layer or of a lower one; :data:`ONLY` narrows
that for a package (theory may import only the foundation and the graph), and
:data:`THIRD_PARTY_FLOOR` keeps heavy third-party packages above a layer
(nothing below the experiments may import matplotlib, even inside a function).

Two checks, because each sees what the other cannot:

* the source, read with :mod:`ast`: every ``import`` of every file under
  ``lgekit/``, those inside functions included (a lazy import escapes an
  import-time check but is still an upward dependency);
* a fresh interpreter per layer (a subprocess, so no other test's imports hide
  anything): importing the layer's modules must not load a module of a higher
  layer -- which also catches ``importlib`` strings and the compiled kernels'
  own imports, which no ``ast`` of a ``.py`` file shows.

Both are shown to fail on a synthetic package with an upward import.  The
same file counts function-level imports (at most :data:`MAX_FUNCTION_LEVEL_IMPORTS`
of lgekit's own or standard modules) and requires a comment saying why beside
each one, and looks for import circles.
"""
import ast
import functools
import io
import json
import os
import subprocess
import sys
import textwrap
import tokenize
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import lgekit

# the source tree under test, whatever copy an installed lgekit would be
ROOT = Path(lgekit.__file__).resolve().parent.parent
PACKAGE = "lgekit"

LAYERS = ("foundation", "graph", "data", "models", "callbacks", "experiments", "commands", "cli")

LAYER_OF = {
    "lgekit._version": "foundation",
    "lgekit._validation": "foundation",
    "lgekit._random": "foundation",
    "lgekit._atomic": "foundation",
    "lgekit._json": "foundation",
    "lgekit._progress": "foundation",
    "lgekit._parameters": "foundation",     # the estimators' parameter tables, read by lgekit fit too
    "lgekit._output_folder": "foundation",
    "lgekit._manifest": "foundation",       # which files of an output folder are lgekit's, and its runs
    "lgekit._folder_lock": "foundation",    # one writer at a time in an output folder (flock)
    "lgekit._memory": "foundation",         # the memory left to allocate, which bounds fits and file reads
    "lgekit._input_file": "foundation",     # every file lgekit reads: regular, bounded before it is read
    "lgekit._simd": "foundation",           # picks a kernel build; imports the kernel by name when asked
    "lgekit._openmp": "foundation",         # compiled
    "lgekit._sampling": "foundation",       # compiled
    "lgekit._scoring": "foundation",        # compiled
    "lgekit._scoring_avx2": "foundation",   # compiled: setup.py's AVX2 build of _scoring
    "lgekit.ids": "foundation",
    "lgekit._interop": "foundation",        # what networkx / pandas objects say, as arrays for the Graph
    "lgekit.reference": "foundation",       # plain NumPy, imports nothing of lgekit
    "lgekit.adjacency": "foundation",      # the canonical CSR matrix of an edge array or a matrix (ids, labels below)
    "lgekit.labels": "foundation",          # the one label-matrix builder (imports only ids)
    "lgekit.graph": "graph",
    "lgekit.datasets": "data",
    "lgekit.evaluation": "data",
    "lgekit.metrics": "data",
    "lgekit.neighbours": "data",          # top-k scores of an embedding, blocked
    "lgekit.theory": "data",
    "lgekit.models": "models",
    "lgekit._show_versions": "models",      # reports the kernel build the models picked
    "lgekit.callbacks": "callbacks",
    "lgekit.experiments": "experiments",
    "lgekit.plotting": "experiments",       # a picture of one embedding (matplotlib)
    "lgekit._commands": "commands",
    "lgekit.cli": "cli",
    "lgekit.__main__": "cli",
    "lgekit": "cli",                        # the package's own names resolve lazily to any layer (PEP 562)
}

# packages that may import only these layers (and themselves)
ONLY = {"lgekit.theory": ("foundation", "graph")}

# third-party packages that no module below the given layer may import, even lazily
# (joblib is not among them: scikit-learn, which the models use, imports it)
THIRD_PARTY_FLOOR = {"matplotlib": "experiments", "dask": "experiments", "distributed": "experiments"}

MAX_FUNCTION_LEVEL_IMPORTS = 40

# modules the runtime check does not import: running it is running the command line
NOT_IMPORTED = {"lgekit.__main__"}


# -- reading the package ---------------------------------------------------------------------------------------
def module_files(root, package):
    """``{module name: path}`` of every ``.py`` and compiled ``.pyx`` module of ``package`` under ``root``.

    A folder of modules is a package (its ``__init__.py``, or the folder itself
    for a namespace package).
    """
    base = root / package
    found = {}
    for path in sorted(base.rglob("*.py")) + sorted(base.rglob("*.pyx")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.setdefault(".".join(parts), path)
        for i in range(1, len(parts)):
            found.setdefault(".".join(parts[:i]), root.joinpath(*parts[:i]))
    return found


def unit_of(module, table):
    """The name in ``table`` that assigns ``module``'s layer: itself or the innermost package containing it.

    The root package covers only its own ``__init__``: a new top-level module
    must be given a layer, not inherit the facade's.
    """
    parts = module.split(".")
    for i in range(len(parts), 1 if len(parts) > 1 else 0, -1):
        if ".".join(parts[:i]) in table:
            return ".".join(parts[:i])
    return None


def layer_of(module, table):
    """The layer of ``module`` under ``table`` (None: unassigned)."""
    unit = unit_of(module, table)
    return None if unit is None else table[unit]


def _parse(path):
    return _parse_text(path.read_text(encoding="utf-8"), str(path))


@functools.lru_cache(maxsize=None)
def _parse_text(text, filename):  # keyed on the text: a test rewrites its toy files in place
    return ast.parse(text, filename)


@functools.lru_cache(maxsize=None)
def _function_parents(tree):
    """``{node: True}`` for every node inside a function (a lazy import runs only when the function does)."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inside.update(ast.walk(node))
    return inside


def imports_of(module, path, modules, package):
    """Every import statement of a ``.py`` module: ``(line, end line, targets, in_function)``.

    ``targets`` are absolute module names: an lgekit module (the longest known
    prefix; ``from . import x`` names the submodule ``x`` when there is one) or
    a third-party / standard top-level name.
    """
    tree = _parse(path)
    lazy = _function_parents(tree)
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            names = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                     for alias in node.names]
        else:
            continue
        targets = []
        for name in names:
            if name == package or name.startswith(package + "."):
                while name not in modules and "." in name:
                    name = name.rpartition(".")[0]
            else:
                name = name.split(".")[0]
            if name not in targets:
                targets.append(name)
        found.append((node.lineno, node.end_lineno, targets, node in lazy))
    return found


def rank(layer):
    return LAYERS.index(layer) if layer in LAYERS else None


def allowed(importer, imported, table, only):
    """Whether lgekit module ``importer`` may import lgekit module ``imported`` under ``table`` and ``only``."""
    mine, theirs = layer_of(importer, table), layer_of(imported, table)
    if mine is None or theirs is None:
        return True  # reported as unassigned instead
    unit = unit_of(importer, table)
    if unit in only and unit_of(imported, table) != unit:
        return theirs in only[unit]
    return rank(theirs) <= rank(mine)


def third_party_allowed(importer, name, table, floors):
    floor = floors.get(name)
    return floor is None or rank(layer_of(importer, table)) >= rank(floor)


def static_violations(root, package, table, only=None, floors=None):
    """``file:line: importer (layer) imports imported (layer)`` for every upward import in the source."""
    only, floors = only or {}, floors or {}
    modules = module_files(root, package)
    found = []
    for module, path in modules.items():
        if path.suffix != ".py" or layer_of(module, table) is None:
            continue  # a compiled kernel, a namespace package, or unassigned (reported as such)
        for line, _, targets, in_function in imports_of(module, path, modules, package):
            where = f"{path.relative_to(root)}:{line}: {module} ({layer_of(module, table)})"
            lazily = " inside a function" if in_function else ""
            for target in targets:
                if target in modules and target != module and not allowed(module, target, table, only):
                    found.append(f"{where} imports {target} ({layer_of(target, table)}){lazily}")
                elif target not in modules and not third_party_allowed(module, target, table, floors):
                    found.append(f"{where} imports {target}{lazily}: only from layer {floors[target]!r} up")
    return found


def unassigned(root, package, table):
    return [f"{path.relative_to(root)} ({module}) has no layer: add a line '\"{module}\": \"<layer>\",' to "
            f"LAYER_OF in tests/test_layering.py, <layer> one of {LAYERS}"
            for module, path in module_files(root, package).items() if layer_of(module, table) is None]


_IMPORT_EACH = """
import importlib, json, sys
seen, loaded = set(sys.modules), []
for name in {names!r}:
    importlib.import_module(name)
    loaded.append([name, sorted(set(sys.modules) - seen)])
    seen.update(sys.modules)
import {package}
print(json.dumps([{package}.__file__, loaded]))
"""


def loaded_by(root, package, names):
    """Import ``names`` one after the other in a fresh interpreter: ``(package.__file__, [[name, new modules]])``.

    Each name comes with the modules its own import loaded first (those an
    earlier name had loaded are not repeated).
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    code = _IMPORT_EACH.format(names=list(names), package=package)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          cwd=root)
    if proc.returncode != 0:
        raise AssertionError(f"importing {names} failed in a fresh interpreter:\n{proc.stderr[-3000:]}")
    where, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    return where, loaded


def _loaded_violations(importer, loaded, modules, package, table, only, floors):
    found = []
    for name in loaded:
        if name == package:
            continue  # loaded with any of its modules
        if name not in modules:
            if "." not in name and not third_party_allowed(importer, name, table, floors):
                found.append(f"importing {importer} ({layer_of(importer, table)}) loaded {name}: only from layer "
                             f"{floors[name]!r} up")
        elif not allowed(importer, name, table, only):
            found.append(f"importing {importer} ({layer_of(importer, table)}) loaded {name} "
                         f"({layer_of(name, table)})")
    return found


def runtime_violations(root, package, table, only=None, floors=None, skip=()):
    """Upward imports seen in fresh interpreters: one per layer (and per :data:`ONLY` package).

    Each module of the group is imported in turn, so a higher module is
    reported once, with the first module whose import loaded it.
    """
    only, floors = only or {}, floors or {}
    modules = module_files(root, package)
    groups = {}
    for module, path in modules.items():
        if module == package or module in skip or layer_of(module, table) is None or path.is_dir():
            continue
        unit = unit_of(module, table)
        groups.setdefault(unit if unit in only else layer_of(module, table), []).append(module)

    def check(group):
        where, loaded = loaded_by(root, package, group)
        assert Path(where).resolve().parent.parent == Path(root).resolve(), f"imported {where}, not the tree under test"
        return [line for importer, new in loaded
                for line in _loaded_violations(importer, new, modules, package, table, only, floors)]

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return [line for lines in pool.map(check, groups.values()) for line in lines]


def _graph(root, package):
    modules = module_files(root, package)
    edges = {}
    for module, path in modules.items():
        if path.suffix == ".py":
            edges[module] = {t for _, _, targets, _ in imports_of(module, path, modules, package) for t in targets
                             if t in modules and t != module}
    return edges


def circles(root, package):
    """Groups of lgekit modules that import one another, directly or not, function-level imports included."""
    edges = _graph(root, package)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _comment_lines(path):
    """``{line: comment text}`` of a file, without lint directives (``noqa``, ``type: ignore``, ``pragma``)."""
    return _comments_of(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _comments_of(text):
    comments = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            for directive in ("noqa", "type: ignore", "pragma"):
                if text.startswith(directive):
                    text = ""
            if text:
                comments[token.start[0]] = text
    return comments


def function_level_imports(root, package):
    """``(path, line, targets, explained)`` of every import inside a function under ``root/package``.

    Explained: a comment on one of the statement's lines or on the line above;
    an import right below an explained one (a block of lazy imports) shares
    its comment.
    """
    modules = module_files(root, package)
    found = []
    for module, path in modules.items():
        if path.suffix != ".py":
            continue
        comments = _comment_lines(path)
        lazy = sorted((line, end, targets) for line, end, targets, in_function in
                      imports_of(module, path, modules, package) if in_function)
        explained_until = -1
        for line, end, targets in lazy:
            explained = (any(n in comments for n in range(line - 1, end + 1)) or line == explained_until + 1)
            if explained:
                explained_until = end
            found.append((path, line, targets, explained))
    return found


def own_or_standard(target, package):
    return target == package or target.startswith(package + ".") or target in sys.stdlib_module_names


# -- lgekit ----------------------------------------------------------------------------------------------------
def test_every_module_has_a_layer():
    missing = unassigned(ROOT, PACKAGE, LAYER_OF)
    assert not missing, "\n".join(missing)


def test_the_layer_table_names_only_modules_that_exist():
    modules = module_files(ROOT, PACKAGE)
    stale = [name for name in LAYER_OF if name not in modules]
    assert not stale, f"LAYER_OF names modules that no longer exist (remove or rename them): {stale}"
    assert set(LAYER_OF.values()) <= set(LAYERS) and set(ONLY) <= set(LAYER_OF)


def test_no_source_imports_a_higher_layer():
    found = static_violations(ROOT, PACKAGE, LAYER_OF, ONLY, THIRD_PARTY_FLOOR)
    assert not found, f"{len(found)} upward imports:\n" + "\n".join(found)


def test_no_import_loads_a_higher_layer_in_a_fresh_interpreter():
    found = runtime_violations(ROOT, PACKAGE, LAYER_OF, ONLY, THIRD_PARTY_FLOOR, skip=NOT_IMPORTED)
    assert not found, f"{len(found)} upward imports at run time:\n" + "\n".join(found)


def test_theory_is_pure_mathematics():
    # the rule the layer table encodes, spelled out: no training, no harness, no plotting
    _, [(_, loaded)] = loaded_by(ROOT, PACKAGE, ["lgekit.theory"])
    assert "lgekit.theory.sample" in loaded
    for higher in ("lgekit.experiments", "lgekit.models", "lgekit.datasets", "matplotlib"):
        assert not [m for m in loaded if m == higher or m.startswith(higher + ".")], f"lgekit.theory imported {higher}"


def test_no_import_circles():
    found = circles(ROOT, PACKAGE)
    assert not found, "import circles (function-level imports included):\n" + "\n".join(
        " <-> ".join(group) for group in found)


def test_few_function_level_imports_of_lgekit_or_the_standard_library():
    lazy = [(path, line, targets) for path, line, targets, _ in function_level_imports(ROOT, PACKAGE)
            if any(own_or_standard(t, PACKAGE) for t in targets)]
    listing = "\n".join(f"{path.relative_to(ROOT)}:{line}: {', '.join(targets)}" for path, line, targets in lazy)
    assert len(lazy) <= MAX_FUNCTION_LEVEL_IMPORTS, (
        f"{len(lazy)} imports of lgekit's own or standard modules inside functions (at most "
        f"{MAX_FUNCTION_LEVEL_IMPORTS}): move them to the top of the module\n{listing}")


def test_every_function_level_import_says_why():
    unexplained = [f"{path.relative_to(ROOT)}:{line}: {', '.join(targets)}"
                   for path, line, targets, explained in function_level_imports(ROOT, PACKAGE) if not explained]
    assert not unexplained, (
        f"{len(unexplained)} imports inside functions without a comment saying why they are not at the top "
        "(an optional or heavy dependency; same line or the line above):\n" + "\n".join(unexplained))


# -- the checks can fail ---------------------------------------------------------------------------------------
def _write_package(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


_TOY_LAYERS = {"toy.low": "foundation", "toy.high": "models", "toy.pure": "data", "toy": "cli"}


def test_static_check_reports_an_upward_import_even_inside_a_function(tmp_path):
    _write_package(tmp_path, {
        "toy/__init__.py": "",
        "toy/high.py": "from . import low\nVALUE = 1\n",
        "toy/low.py": "import json\n\ndef f():\n    from .high import VALUE  # lazy, but still upward\n    return VALUE\n",
        "toy/pure.py": "import matplotlib\nfrom . import high\n",
    })
    found = static_violations(tmp_path, "toy", _TOY_LAYERS, {"toy.pure": ("foundation",)}, {"matplotlib": "models"})
    assert len(found) == 3, found
    assert found[0].startswith("toy/low.py:4: toy.low (foundation) imports toy.high (models) inside a function")
    assert any("toy.pure (data) imports matplotlib: only from layer 'models' up" in line for line in found)
    assert any("toy.pure (data) imports toy.high (models)" in line for line in found)
    # the same tree with the imports pointing down is clean
    _write_package(tmp_path, {"toy/low.py": "import json\n", "toy/pure.py": "from . import low\n"})
    assert static_violations(tmp_path, "toy", _TOY_LAYERS, {"toy.pure": ("foundation",)}) == []


def test_runtime_check_reports_an_upward_import_in_a_fresh_interpreter(tmp_path):
    _write_package(tmp_path, {
        "toy/__init__.py": "",
        "toy/high.py": "VALUE = 1\n",
        # an import the source does not show: only running the module reveals it
        "toy/low.py": "import importlib\nimportlib.import_module('toy.' + 'high')\n",
        "toy/pure.py": "",
    })
    assert static_violations(tmp_path, "toy", _TOY_LAYERS) == []
    found = runtime_violations(tmp_path, "toy", _TOY_LAYERS)
    assert found == ["importing toy.low (foundation) loaded toy.high (models)"]
    # ONLY: a package may not import a lower layer it is not granted (theory and the data layer's others)
    _write_package(tmp_path, {"toy/low.py": "", "toy/mid.py": "", "toy/pure.py": "from . import low, mid\n"})
    table = dict(_TOY_LAYERS, **{"toy.mid": "graph"})
    assert runtime_violations(tmp_path, "toy", table) == []
    assert runtime_violations(tmp_path, "toy", table, {"toy.pure": ("foundation",)}) == [
        "importing toy.pure (data) loaded toy.mid (graph)"]


def test_a_module_without_a_layer_is_reported_with_where_to_add_it(tmp_path):
    _write_package(tmp_path, {"toy/__init__.py": "", "toy/low.py": "", "toy/newcomer.py": "", "toy/sub/x.py": ""})
    found = unassigned(tmp_path, "toy", {"toy.low": "foundation", "toy.sub": "graph"})
    # toy/sub/x.py takes toy.sub's layer; toy/low.py has its own line; the package and the newcomer have none
    assert sorted(found) == sorted(
        f"{path} ({name}) has no layer: add a line '\"{name}\": \"<layer>\",' to LAYER_OF in "
        f"tests/test_layering.py, <layer> one of {LAYERS}"
        for path, name in [("toy/__init__.py", "toy"), ("toy/newcomer.py", "toy.newcomer")])


def test_circles_and_unexplained_lazy_imports_are_found(tmp_path):
    _write_package(tmp_path, {
        "toy/__init__.py": "",
        "toy/a.py": "from . import b\n",
        "toy/b.py": textwrap.dedent("""\
            def f():
                from . import a
                import json
                return a, json


            def g():
                # networkx is heavy and optional
                import networkx
                import os
                return networkx, os


            def h():
                import sys  # only to read argv here
                return sys
            """),
    })
    assert circles(tmp_path, "toy") == [["toy.a", "toy.b"]]
    lazy = function_level_imports(tmp_path, "toy")
    assert [(line, targets, explained) for _, line, targets, explained in lazy] == [
        (2, ["toy.a"], False), (3, ["json"], False), (9, ["networkx"], True), (10, ["os"], True),
        (15, ["sys"], True)]
    assert [own_or_standard(targets[0], "toy") for _, _, targets, _ in lazy] == [True, True, False, True, True]
