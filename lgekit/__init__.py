"""lgekit: linear graph embedding, with the theory of why its norms matter.

Data flows one way::

    files -> Graph -> split_edges -> model -> embedding -> metrics -> records -> figures

* data in: :class:`Graph`, :mod:`lgekit.datasets` (loaders, registry, generators)
* evaluation: :func:`split_edges` (leak-checked), :mod:`lgekit.metrics`
* models: :class:`LogisticEmbedding` (SGD), :class:`HingeEmbedding` (DCD),
  :mod:`lgekit.callbacks`
* theory: :mod:`lgekit.theory`; the paper's figures: :mod:`lgekit.experiments`

See the README for the two commands that run everything.
"""
import importlib

from ._version import __version__

# Public names and the module that defines each.  They are imported on first use (PEP 562), so that
# ``import lgekit`` and ``lgekit --version`` do not pay for SciPy, scikit-learn and the kernels
# until something needs them.
_EXPORTS = {
    "show_versions": "._show_versions",
    "Graph": ".graph", "GraphWarning": ".graph",
    "EdgeSplit": ".evaluation", "split_edges": ".evaluation",
    "LogisticEmbedding": ".models", "HingeEmbedding": ".models", "DivergenceError": ".models",
    "NodeEmbedding": ".models", "LogisticEmbeddingCV": ".models", "HingeEmbeddingCV": ".models",
}
_SUBMODULES = {"datasets", "evaluation", "metrics", "neighbours", "callbacks", "models", "theory", "experiments", "reference",
               "plotting"}

__all__ = [
    "__version__", "show_versions",
    "Graph", "GraphWarning", "datasets",
    "EdgeSplit", "split_edges", "evaluation", "metrics", "neighbours",
    "LogisticEmbedding", "HingeEmbedding", "LogisticEmbeddingCV", "HingeEmbeddingCV", "NodeEmbedding",
    "DivergenceError", "callbacks",
    "theory", "experiments", "reference", "plotting",
]


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module("." + name, __name__)
    else:
        raise AttributeError(f"module 'lgekit' has no attribute {name!r}")
    globals()[name] = value      # later look-ups skip this function
    return value


def __dir__():
    # the public names only, as scikit-learn's __dir__ (tab completion offers them, not the loader's helpers)
    return list(__all__)
