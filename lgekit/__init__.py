"""lgekit: linear graph embedding, with the theory of why its norms matter.

Data flows one way::

    files -> Graph -> split_edges -> model -> embedding -> metrics -> records -> figures

See the README for the two commands that run everything.
"""
__version__ = "0.1.0"

from ._show_versions import show_versions
from .graph import Graph, GraphWarning

__all__ = ["Graph", "GraphWarning", "show_versions", "__version__"]

from . import evaluation, metrics
from .evaluation import EdgeSplit, split_edges

__all__ += ["EdgeSplit", "split_edges", "evaluation", "metrics"]

from .models import HingeEmbedding

__all__ += ["HingeEmbedding"]

from . import callbacks
from .models import DivergenceError, LogisticEmbedding

__all__ += ["LogisticEmbedding", "DivergenceError", "callbacks"]

from . import datasets

__all__ += ["datasets"]

from . import theory

__all__ += ["theory"]

from . import experiments  # cheap: specs and store only; engine, plots, report load on first use

__all__ += ["experiments"]
