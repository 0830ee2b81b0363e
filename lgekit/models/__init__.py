"""Linear graph embedding models: one estimator base, one module per model."""
from ._base import BaseEmbedding, DivergenceError, available_memory, max_n_threads
from .hinge import HingeEmbedding
from .logistic import LogisticEmbedding

__all__ = ["BaseEmbedding", "DivergenceError", "HingeEmbedding", "LogisticEmbedding", "available_memory",
           "max_n_threads"]
