"""Linear graph embedding models: one estimator base, one module per model."""
from ._base import BaseEmbedding, DivergenceError
from .logistic import LogisticEmbedding
from .hinge import HingeEmbedding

__all__ = ["BaseEmbedding", "DivergenceError", "LogisticEmbedding"]
__all__ += ["HingeEmbedding"]
