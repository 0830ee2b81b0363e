"""Linear graph embedding models: one estimator base, one module per model."""
from ._base import BaseEmbedding, DivergenceError
# LogisticEmbedding (SGD, lgekit/models/logistic.py) is exported below once it lands.
from .hinge import HingeEmbedding

__all__ = ["BaseEmbedding", "DivergenceError"]
__all__ += ["HingeEmbedding"]
