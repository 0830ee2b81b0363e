"""Linear graph embedding models: one estimator base, one module per model."""
from ._base import BaseEmbedding, DivergenceError
# LogisticEmbedding (SGD, lgekit/models/logistic.py) is exported below once it lands.
# HingeEmbedding: the "dcd" helper adds `from .hinge import HingeEmbedding` here.

__all__ = ["BaseEmbedding", "DivergenceError"]
