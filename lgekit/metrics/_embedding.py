"""The one reading of an embedding that every metric scores: a dense, finite, real (n_nodes, dim) array."""
import numpy as np
import scipy.sparse as sp

from .._interop import is_networkx
from ..evaluation import EdgeSplit
from ..graph import Graph

__all__ = ["check_embedding"]


def check_embedding(embedding, name="embedding"):
    """``embedding`` as a dense, finite, real (n_nodes, dim) array; a TypeError or ValueError naming ``name``
    otherwise (a diverged model's NaN rows are said to be one).

    The one reading of an embedding: an array (or nested lists), or a fitted lgekit model, which gives its
    ``embedding_`` (the source / left table of a two-table model).  A graph (lgekit's, networkx's, a
    split) is refused by name, never read as an array.
    """
    if isinstance(embedding, (Graph, EdgeSplit)) or is_networkx(embedding):
        raise TypeError(f"{name} must be an (n_nodes, dim) array of numbers or a fitted model, got a graph "
                        f"({type(embedding).__module__.split('.')[0]}.{type(embedding).__name__}); pass the "
                        "model's embedding_")
    if hasattr(embedding, "embedding_") and not isinstance(embedding, np.ndarray):
        embedding = embedding.embedding_
    if sp.issparse(embedding):
        raise TypeError(f"{name} must be a dense (n_nodes, dim) array, got a scipy.sparse matrix")
    try:
        x = np.asarray(embedding)
    except Exception as exc:  # ragged lists and other non-arrays
        raise TypeError(f"{name} must be an (n_nodes, dim) array of numbers: {exc}") from None
    if x.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_nodes, dim), got shape {x.shape}")
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        bad = np.argwhere(~np.isfinite(x))[0]
        raise ValueError(f"{name} contains non-finite values (NaN or inf), e.g. at row {bad[0]}, column {bad[1]}; "
                         "a diverged model? (try a smaller learning rate or a larger lam_r)")
    return x
