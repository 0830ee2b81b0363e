"""The public surface (issue 45): each public module's ``__all__`` is what a user calls -- estimators,
functions, errors, result classes -- and not the file formats' internals (``read_npy_header``, the model
file's checked readers, the epoch's status enum, tables of accepted values).  The lists are pinned here, so
that a name joins or leaves the surface by a deliberate edit of this file; the README, the docs, the tutorials,
the benchmarks and the theory scripts import only pinned names from a package; a function or class is
exported by one module only; and ``dir(lgekit)`` is ``__all__`` (scikit-learn's ``__dir__``).

:mod:`lgekit.theory` has its own owner and is not pinned here.  Each check is shown failing on the wrong
version it exists to catch (a re-added internal, a name a tutorial imports that the package dropped, a second
export, the old ``__dir__``).
"""
import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import lgekit

ROOT = Path(lgekit.__file__).resolve().parent.parent

PUBLIC = {
    "lgekit": ["DivergenceError", "EdgeSplit", "Graph", "GraphWarning", "HingeEmbedding", "HingeEmbeddingCV",
               "LogisticEmbedding", "LogisticEmbeddingCV", "NodeEmbedding", "__version__", "callbacks", "datasets",
               "evaluation", "experiments", "metrics", "neighbours", "plotting", "reference", "show_versions",
               "split_edges", "theory"],
    "lgekit.callbacks": ["Callback", "EarlyStopping", "LinkPredictionCallback", "NodeClassificationCallback"],
    "lgekit.datasets": ["ChecksumError", "DataFormatError", "DatasetInfo", "DatasetNotFoundError", "DatasetSource",
                        "DownloadError", "LABEL_ATTRIBUTES", "NodeLabels", "as_graph", "as_labels", "cache_dir",
                        "check_local_copy", "chung_lu_graph", "erdos_renyi_graph", "expected_edge_count", "fetch",
                        "find_data_home", "generators", "gnm_random_graph", "info", "load", "load_or_synthetic",
                        "locate", "offline", "planted_partition_graph", "powerlaw_expected_degrees",
                        "random_regular_graph", "read_edge_list", "read_label_file", "registry", "resolve",
                        "search_path", "verify", "youtube_like_degrees"],
    "lgekit.evaluation": ["EdgeSplit", "LeakError", "check_validation_split", "non_reciprocal_arcs",
                          "sample_negative_pairs", "split_edges", "validation_split"],
    "lgekit.experiments": ["FIGURES", "FigureSpec", "Plan", "RecordSpec", "ResultsStore", "STATUSES", "TheoryReport",
                           "VERIFIERS", "Verdict", "expand", "reproduce", "run_sweep", "run_verifier",
                           "write_outputs", "write_report_files"],
    "lgekit.metrics": ["LinkPredictionFeatures", "NodeClassificationSplit", "TopKF1Scorer", "average_precision",
                       "average_precision_from_scores", "direction_average_precision", "edge_classifier_scores",
                       "link_prediction_features", "link_ranking", "mrr_and_hits", "node_classification_f1",
                       "node_classification_split", "pair_scores", "ranks_from_scores", "roc_auc",
                       "sample_candidates", "top_k_f1", "top_k_f1_scorer"],
    "lgekit.models": ["BaseEmbedding", "DCDSolver", "DivergenceError", "HingeEmbedding",
                      "HingeEmbeddingCV", "LogisticEmbedding", "LogisticEmbeddingCV", "NodeEmbedding", "SGDSolver",
                      "Solver", "TableLayout", "TrainingData", "available_memory", "max_n_threads", "read_word2vec",
                      "write_word2vec"],
    "lgekit.neighbours": ["top_k_scores"],
    "lgekit.plotting": ["plot_embedding", "project"],
    # every name one equation or algorithm step of the paper, which a student calls beside it
    "lgekit.reference": ["DCDEpoch", "Objective", "bias_pins", "dcd_epoch", "dcd_vertex_update", "hinge_diagnostics",
                         "hinge_objective", "learning_rate", "listed_coordinate_orders", "log_sigmoid",
                         "logistic_diagnostics", "logistic_gradient", "logistic_objective", "order_biases",
                         "projected_gradient", "random_coordinate_orders", "reverse_negatives", "sgd_edge_epoch",
                         "sgd_vertex_epoch", "sigmoid", "stack_tables", "tie_penalty", "tie_step",
                         "two_table_logistic_gradient", "two_table_logistic_objective", "two_table_scores",
                         "two_table_sgd_edge_epoch", "two_table_sgd_vertex_epoch", "vertex_certificates",
                         "vertex_svm_dual", "vertex_svm_primal"],
}

# the internals the trim took out, which must not come back (each stays importable from its private module)
INTERNALS = {
    "lgekit.models": {"read_npy_header": "_model_file", "read_checked_npz": "_model_file",
                      "MALFORMED_FILE_ERRORS": "_model_file", "WRITE_PEAK_BYTES": "_model_file",
                      "ModelFile": "_model_file", "model_file_from_arrays": "_model_file",
                      "read_model_file": "_model_file", "word2vec_names": "_model_file", "EpochStatus": "_solver",
                      "EpochOrder": "_solver", "EmbeddingCV": "cv"},
    "lgekit.datasets": {"HEADER_NAMES": "_grammar"},
    "lgekit.metrics": {"TIES": "_ranking", "EDGE_OPERATORS": "_link"},
    "lgekit.experiments": {"cell_key": "spec", "read_jsonl": "store", "strip_timings": "store", "run_cell": "tasks",
                           "resolve_figures": "plan"},
}


def surface_changes(pinned, names):
    """``(names added to the surface, names gone from it)`` against the ``pinned`` list."""
    return sorted(set(names) - set(pinned)), sorted(set(pinned) - set(names))


def exported_twice(surfaces):
    """Functions and classes that two of the modules ``{name: (module, __all__)}`` export (not the top level)."""
    home, twice = {}, []
    for modname, (module, names) in sorted(surfaces.items()):
        for name in names:
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if id(obj) in home and home[id(obj)] != modname:
                twice.append(f"{name}: {home[id(obj)]} and {modname}")
            home.setdefault(id(obj), modname)
    return twice


# ------------------------------------------------------------------ what the scripts and pages import
_FROM_IMPORT = re.compile(r"from\s+(lgekit(?:\.\w+)+)\s+import\s+(\([^)]*\)|[^\n]+)")
_ATTRIBUTE = re.compile(r"\blgekit\.((?:\w+\.)*\w+)")


def imported_names(text, python=True):
    """``{(module, name)}`` that ``text`` (Python source, or Markdown with code) imports or reads from a module
    of lgekit: ``from lgekit.X import a, b`` and ``lgekit.X.a``."""
    found = set()
    if python:
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("lgekit."):
                found |= {(node.module, alias.name) for alias in node.names}
    else:
        for module, names in _FROM_IMPORT.findall(text):
            found |= {(module, name) for name in re.findall(r"\b(\w+)\b(?:\s+as\s+\w+)?", names.strip("()"))
                      if name != "as"}
    for dotted in _ATTRIBUTE.findall(text):
        *module, name = ("lgekit." + dotted).split(".")
        found.add((".".join(module), name))
    return found


def is_submodule(module, name):
    try:
        return importlib.util.find_spec(f"{module}.{name}") is not None
    except ModuleNotFoundError:       # ``module`` is a module, not a package
        return False


def unpublished(uses, surfaces):
    """The ``(module, name)`` of ``uses`` that a pinned module does not publish (its private and submodule
    names, and the modules not pinned, are no question here)."""
    bad = []
    for module, name in sorted(uses):
        if module not in surfaces or name.startswith("_"):
            continue
        names = surfaces[module]
        if name not in names and not is_submodule(module, name):
            bad.append(f"{module}.{name}")
    return bad


def user_facing_files():
    """The README, the docs' pages and configuration, the tutorials, the benchmarks and the theory scripts."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs/guide").glob("*.md")),
             *sorted((ROOT / "docs").glob("*.py")), *sorted((ROOT / "tutorials").glob("*.py")),
             *sorted((ROOT / "tutorials").glob("*.md")), *sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted((ROOT / "theory").glob("*.py"))]
    return [path for path in files if path.is_file()]


# ------------------------------------------------------------------ the checks
@pytest.mark.parametrize("modname", sorted(PUBLIC))
def test_the_public_surface_is_the_pinned_list(modname):
    module = importlib.import_module(modname)
    assert surface_changes(PUBLIC[modname], module.__all__) == ([], [])
    assert len(module.__all__) == len(set(module.__all__)), "a name listed twice"
    for name in module.__all__:
        getattr(module, name)      # every listed name resolves


@pytest.mark.parametrize("modname", sorted(INTERNALS))
def test_the_internals_stay_out_of_the_package_and_in_their_modules(modname):
    package = importlib.import_module(modname)
    for name, home in INTERNALS[modname].items():
        assert name not in package.__all__ and name not in vars(package), f"{modname}.{name} is back"
        assert hasattr(importlib.import_module(f"{modname}.{home}"), name), f"{modname}.{home}.{name} moved"


def test_a_re_added_internal_or_a_dropped_name_is_caught():
    models = PUBLIC["lgekit.models"]
    assert surface_changes(models, models + ["read_npy_header"]) == (["read_npy_header"], [])
    assert surface_changes(models, [n for n in models if n != "LogisticEmbedding"]) == ([], ["LogisticEmbedding"])


def test_no_function_or_class_is_exported_by_two_modules():
    surfaces = {name: (importlib.import_module(name), PUBLIC[name]) for name in PUBLIC if name != "lgekit"}
    assert exported_twice(surfaces) == []


def test_a_second_export_is_caught():
    from lgekit import evaluation, metrics

    surfaces = {"lgekit.evaluation": (evaluation, ["non_reciprocal_arcs"]),
                "lgekit.metrics": (metrics, ["average_precision"])}
    assert exported_twice(surfaces) == []
    metrics_then = type("metrics", (), {"average_precision": metrics.average_precision,
                                        "non_reciprocal_arcs": evaluation.non_reciprocal_arcs})
    surfaces["lgekit.metrics"] = (metrics_then, ["average_precision", "non_reciprocal_arcs"])
    assert exported_twice(surfaces) == ["non_reciprocal_arcs: lgekit.evaluation and lgekit.metrics"]


def test_the_pages_and_scripts_import_only_published_names():
    surfaces = {name: PUBLIC[name] for name in PUBLIC if name != "lgekit"}
    uses = set()
    for path in user_facing_files():
        uses |= imported_names(path.read_text(encoding="utf-8"), python=path.suffix == ".py")
    assert ("lgekit.metrics", "average_precision") in uses and ("lgekit.datasets", "load") in uses
    assert unpublished(uses, surfaces) == []


def test_a_script_importing_a_dropped_name_is_caught():
    surfaces = {name: PUBLIC[name] for name in PUBLIC if name != "lgekit"}
    script = ("from lgekit.models import LogisticEmbedding, read_npy_header, _sgd_solver\n"
              "from lgekit.models.spectral import spectral_embedding\n"
              "x = lgekit.metrics.TIES, lgekit.plotting.dot_size\n")
    assert unpublished(imported_names(script), surfaces) == [
        "lgekit.metrics.TIES", "lgekit.models.read_npy_header", "lgekit.plotting.dot_size"]
    page = "```python\nfrom lgekit.metrics import (average_precision,\n    non_reciprocal_arcs)\n```\n"
    assert unpublished(imported_names(page, python=False), surfaces) == ["lgekit.metrics.non_reciprocal_arcs"]


def test_dir_of_lgekit_is_its_all():
    assert sorted(dir(lgekit)) == sorted(lgekit.__all__)
    # the old __dir__ (globals | __all__) also offered the loader's machinery
    old = sorted(set(vars(lgekit)) | set(lgekit.__all__))
    assert {"importlib", "_EXPORTS", "_SUBMODULES"} <= set(old) - set(dir(lgekit))
