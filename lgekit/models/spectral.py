"""A non-learned baseline: the adjacency spectral embedding."""
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from threadpoolctl import threadpool_limits

from .._random import check_random_state
from .._validation import Interval, validate_params
from ..datasets import as_graph

__all__ = ["spectral_embedding"]

# below this many nodes a dense eigendecomposition is both faster and exact
_DENSE_MAX_NODES = 600


def spectral_embedding(graph, dim, seed=None):
    """Adjacency spectral embedding: the ``dim`` eigenvectors of largest
    ``|eigenvalue|``, each scaled by ``sqrt(|eigenvalue|)``.

    With :math:`A = \\sum_i \\lambda_i v_i v_i^T` and the ``dim`` eigenpairs of
    largest :math:`|\\lambda_i|`, the embedding is
    :math:`X = [\\sqrt{|\\lambda_1|} v_1, \\dots, \\sqrt{|\\lambda_d|} v_d]`, so
    :math:`X X^T = \\sum_{i \\le d} |\\lambda_i| v_i v_i^T`: the best rank-``d``
    approximation of :math:`A` when the kept eigenvalues are positive.  A
    kept negative eigenvalue (the bipartite-like part of the graph) enters the
    dot-product score with the wrong sign; with a linear score ``x_u . x_v``
    nothing better is possible, since ``X X^T`` is positive semi-definite.
    It is the natural non-learned counterpart of the paper's linear
    embeddings, which also score pairs by ``x_u . x_v``.

    Parameters
    ----------
    graph : Graph, or any form of :func:`lgekit.datasets.as_graph`
        Edge weights are used if the graph is weighted.  A directed graph is
        symmetrised as :math:`(A + A^T) / 2`.  For link prediction, embed the
        *training* graph (``split.train_graph``), never the full graph.
    dim : int
        Number of dimensions, ``1 <= dim <= n_nodes``.
    seed : None, int or numpy.random.Generator, default None
        Seeds the start vector of ARPACK, so the result is reproducible.

    Returns
    -------
    embedding : ndarray (n_nodes, dim), float64
        Columns ordered by decreasing ``|eigenvalue|``; each column's sign is
        fixed so that its largest-magnitude entry is positive.

    Raises
    ------
    TypeError
        ``graph`` is none of the forms of a graph.
    ValueError
        ``dim`` out of range.

    Notes
    -----
    Computed by ARPACK (:func:`scipy.sparse.linalg.eigsh`, ``which="LM"``):
    roughly :math:`O(\\text{iterations} \\cdot (m \\cdot d + n d^2))`; a few
    seconds for BlogCatalog at ``dim=32``.  Graphs of at most 600 nodes (or
    ``dim`` close to ``n``) use a dense ``numpy.linalg.eigh``.

    References
    ----------
    Sussman, Tang, Fishkind & Priebe, "A consistent adjacency spectral
    embedding for stochastic blockmodel graphs", JASA 2012.

    Examples
    --------
    >>> from lgekit import Graph
    >>> g = Graph.from_edges([(0, 1), (1, 2), (2, 0), (3, 4)])
    >>> x = spectral_embedding(g, 1, seed=0)   # top eigenpair: 2, the triangle's (1, 1, 1) / sqrt(3)
    >>> x.shape
    (5, 1)
    >>> np.round(x @ x.T, 6)[0].tolist()       # x_0 . x_v = 2 / 3 inside the triangle
    [0.666667, 0.666667, 0.666667, 0.0, 0.0]
    """
    graph = as_graph(graph)
    n = graph.n_nodes
    validate_params({"dim": [Interval(Integral, 1, n, closed="both", right_name="n_nodes")]}, {"dim": dim},
                    caller="spectral_embedding")
    dim = int(dim)
    rng = check_random_state(seed, "seed")
    a = graph.to_scipy().astype(np.float64)
    if graph.is_directed:
        a = (a + a.T) * 0.5
    # the dense work is small (n x dim for ARPACK, n <= 600 for eigh): threaded BLAS would only
    # add synchronisation between threads that each have almost nothing to do
    with threadpool_limits(limits=1, user_api="blas"):
        if n <= _DENSE_MAX_NODES or dim >= n - 1 or a.nnz == 0:
            values, vectors = np.linalg.eigh(a.toarray())
        else:
            v0 = rng.uniform(-1.0, 1.0, size=n)
            values, vectors = eigsh(sp.csr_matrix(a), k=dim, which="LM", v0=v0)
    order = np.argsort(-np.abs(values), kind="stable")[:dim]
    values, vectors = values[order], vectors[:, order]
    # deterministic signs: the largest-magnitude entry of each column is positive
    pivot = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[pivot, np.arange(dim)])
    signs[signs == 0] = 1.0
    return np.ascontiguousarray(vectors * (signs * np.sqrt(np.abs(values)))[None, :])
