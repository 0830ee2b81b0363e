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
__version__ = "0.1.0"

from ._show_versions import show_versions
from .graph import Graph, GraphWarning
from . import datasets, evaluation, metrics
from .evaluation import EdgeSplit, split_edges
from . import callbacks
from .models import DivergenceError, HingeEmbedding, LogisticEmbedding
from . import theory
from . import experiments  # cheap: specs and store only; engine, plots, report load on first use

__all__ = [
    "__version__", "show_versions",
    "Graph", "GraphWarning", "datasets",
    "EdgeSplit", "split_edges", "evaluation", "metrics",
    "LogisticEmbedding", "HingeEmbedding", "DivergenceError", "callbacks",
    "theory", "experiments",
]
