r"""Claim 1: a d-regular graph's edges can be shattered by a d-dimensional embedding.

Gao et al. (ICLR 2019), Claim 1: for every d-regular graph and *every*
labelling :math:`y \in \{\pm1\}^E` of its edges there are vectors
:math:`x_v \in \mathbb R^d` with :math:`y_{ab}\, x_a^\top x_b > 1` on every
edge.  So a dimension constraint alone (D = d) cannot stop an unregularized
embedding from fitting arbitrary labels; only the norm can.

This module builds such an embedding constructively
(:func:`shattering_embedding`), checks it (:func:`check_shattering`) and
computes a lower bound on the mean squared norm that *any* embedding
realising a given labelling needs (:func:`shattering_norm_lower_bound`).
"""
import logging
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import nnls
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.sparse.linalg import eigsh

from .._random import check_random_state
from .._validation import Interval, validate_params
from ..graph import Graph

__all__ = [
    "ShatteringError",
    "ShatteringCheck",
    "shattering_embedding",
    "check_shattering",
    "shattering_norm_lower_bound",
    "polish_shattering",
    "edge_labels",
    "adversarial_regular_graphs",
]

logger = logging.getLogger(__name__)


class ShatteringError(ValueError):
    """The construction met a singular or inconsistent linear system.

    Attributes
    ----------
    vertex : int
        The vertex being placed.
    n_constraints : int
        Equations in its system (already-placed neighbours).
    condition : float
        Condition number of the system (``inf`` when over-determined and
        inconsistent).
    """

    def __init__(self, message, vertex=-1, n_constraints=0, condition=float("inf")):
        super().__init__(message)
        self.vertex = vertex
        self.n_constraints = n_constraints
        self.condition = condition


#: the constraints of the arguments below, checked by :func:`lgekit._validation.validate_params` (the estimators'
#: mechanism: one message form, ``<caller>: <name> must be <what is accepted>, got <value>``)
_EPS = [Interval(numbers.Real, 0, None, closed="neither")]
_EMBEDDING = {"eps": _EPS, "dim": [Interval(numbers.Integral, 1, None, closed="left")]}
_POLISH = {"eps": _EPS, "sweeps": [Interval(numbers.Integral, 0, None, closed="left")]}


def _check_graph(graph):
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be an lgekit.Graph, got {type(graph).__name__}")
    if graph.is_directed:
        raise ValueError("graph must be undirected: Claim 1 is about undirected d-regular graphs")
    return graph


def _regular_degree(graph):
    deg = graph.degrees
    if graph.n_nodes == 0 or graph.n_edges == 0:
        raise ValueError("graph must have at least one edge (a 0-regular graph has nothing to shatter)")
    d = int(deg[0])
    if not np.all(deg == d):
        values, counts = np.unique(deg, return_counts=True)
        summary = ", ".join(f"{c} of degree {v}" for v, c in list(zip(values, counts))[:6])
        raise ValueError(f"graph must be d-regular (every vertex of the same degree), got {summary}")
    return d


def edge_labels(graph, labels):
    """Validate edge labels: a +-1 array aligned with ``graph.edges()``.

    Parameters
    ----------
    graph : lgekit.Graph
    labels : array-like of shape (n_edges,) or scalar +1 / -1
        One label per edge, in the order of ``graph.edges()``.  A scalar
        labels every edge the same.

    Returns
    -------
    ndarray of int8
    """
    m = graph.n_edges
    arr = np.asarray(labels)
    if arr.ndim == 0:
        arr = np.full(m, arr.item())
    if arr.shape != (m,):
        raise ValueError(f"labels must have one entry per edge ({m}, in graph.edges() order), got shape {arr.shape}")
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        raise TypeError(f"labels must be +1/-1 numbers, got dtype {arr.dtype}")
    if m and not np.all((arr == 1) | (arr == -1)):
        bad = arr[(arr != 1) & (arr != -1)][:5]
        raise ValueError(f"labels must be +1 or -1, got e.g. {bad.tolist()}")
    return arr.astype(np.int8)


def _csr_edge_index(graph):
    """Index into ``graph.edges()`` of each CSR entry (i, indices[k]) of the graph."""
    n = graph.n_nodes
    edges = graph.edges()
    keys = edges[:, 0] * n + edges[:, 1]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
    cols = graph.indices.astype(np.int64)
    ckeys = np.minimum(rows, cols) * n + np.maximum(rows, cols)
    return np.searchsorted(keys, ckeys)


def _csr_labels(graph, y):
    """Label of each CSR entry (i, indices[k]) of the graph."""
    return y[_csr_edge_index(graph)]


def _reverse_bfs_order(graph, rng):
    """Vertices so that every vertex except the last of its component has an unplaced neighbour.

    Within each connected component: a breadth-first order from a random
    start vertex, reversed.  Every vertex but the start (placed last) has its
    BFS parent placed after it.
    """
    adj = graph.to_scipy("csr")
    n_comp, comp = connected_components(adj, directed=False)
    order = []
    if n_comp == 1:
        start = int(rng.integers(graph.n_nodes))
        bfs = breadth_first_order(adj, start, directed=False, return_predecessors=False)
        return bfs[::-1].astype(np.int64), np.array([start])
    # one start per component: a random member
    perm = rng.permutation(graph.n_nodes)
    first = np.full(n_comp, -1, dtype=np.int64)
    first_seen = np.unique(comp[perm], return_index=True)[1]
    first[comp[perm[first_seen]]] = perm[first_seen]
    for c in range(n_comp):
        bfs = breadth_first_order(adj, int(first[c]), directed=False, return_predecessors=False)
        order.append(bfs[::-1])
    return np.concatenate(order).astype(np.int64), first


def shattering_embedding(graph, labels, eps=0.1, seed=None, dim=None, rcond=1e-10):
    r"""Claim 1's construction: vectors in :math:`\mathbb R^d` with every :math:`y_{ab}\,x_a^\top x_b \ge 1+\epsilon`.

    Parameters
    ----------
    graph : lgekit.Graph
        Undirected and d-regular (it may be disconnected).
    labels : array-like of +1/-1, shape (n_edges,), or a scalar
        The labelling to realise, aligned with ``graph.edges()``; it may be
        arbitrary.
    eps : float, default 0.1
        Every edge gets a margin :math:`y_{ab}\,x_a^\top x_b` drawn
        uniformly from :math:`[1+\epsilon, 1+2\epsilon]` (exactly, up to
        rounding): at least :math:`1+\epsilon`, and random (see Notes for why).
    seed : None, int or numpy.random.Generator
        Source of the start vertices, the target margins and the free
        (null-space) components.
    dim : int, optional
        Embedding dimension, default d.  Claim 1 guarantees success for
        ``dim >= d``; with ``dim < d`` the construction is attempted and a
        :class:`ShatteringError` is raised where a system has more equations
        than unknowns and is inconsistent (see Notes for the tight case).
    rcond : float, default 1e-10
        A system whose smallest singular value is below ``rcond`` times its
        largest is reported as singular.

    Returns
    -------
    ndarray of shape (n_nodes, dim), float64

    Raises
    ------
    ValueError
        Graph not d-regular, no edges, directed; bad labels, eps or dim.
    ShatteringError
        A singular system (probability zero with ``dim >= d``, see Notes) or
        an inconsistent over-determined one (``dim < d``).

    Notes
    -----
    *Algorithm.*  Order the vertices so that, within each connected
    component, every vertex except the last has a neighbour that comes
    after it: a breadth-first order from a random start, reversed (the BFS
    parent of every non-start vertex is placed later).  Draw a target margin
    :math:`c_e \sim U[1+\epsilon, 1+2\epsilon]` for every edge.  Place the
    vertices one at a time.  When placing :math:`v`, let :math:`N` be the
    :math:`k \times D` matrix of the already-placed neighbours' vectors and
    :math:`b_u = y_{uv} c_{uv}` their targets; the constraints of the edges to
    them are the linear equations :math:`N x_v = b` (edges to later
    neighbours are handled when those are placed).  Take

    .. math::

        x_v = N^{+} b + r_v\,\frac{P z}{\|P z\|},
        \qquad z \sim \mathcal N(0, I_D),

    the minimum-norm solution plus a random vector of the null space of
    :math:`N` (:math:`P` is its projector; both from one SVD of :math:`N`),
    of squared length :math:`r_v^2 = \rho_v \max((1+\epsilon)d -
    \|N^+ b\|^2,\ 1+\epsilon)` with :math:`\rho_v \sim U[0.9, 1.1]`, which
    keeps :math:`\|x_v\|^2` near :math:`(1+\epsilon)d`.

    *Why it cannot get stuck (with probability one, for dim >= d).*  Every
    vertex but the last of its component has :math:`k \le d-1` placed
    neighbours, so it keeps a null space of dimension :math:`D - k \ge 1`.
    Suppose every earlier system had full row rank.  Then :math:`b \mapsto
    N^+ b` maps the box of random targets onto an open set of the row space
    of :math:`N`, and the null-space part has a density on the null space
    (uniform direction, continuous random length), so :math:`x_v` has a
    density on all of :math:`\mathbb R^D` given everything placed before
    it.  It therefore avoids, with probability one, the finitely many
    subspaces spanned by at most :math:`D-1` earlier vectors: any
    :math:`\le D` placed vectors are linearly independent, every later
    system (at most :math:`d \le D` rows) has full row rank, and the last
    vertex of each component, whose :math:`d` rows are its neighbours'
    vectors, has an invertible (for ``dim = d``) system.  Each edge's
    equation is solved exactly when its later endpoint is placed and is never
    touched again, so every margin equals its target.

    *Why the margins are random.*  With one common target :math:`1+\epsilon`
    (the version before this one) vertices with the same placed neighbours
    and the same labels -- twins, e.g. one side of :math:`K_{3,3}` -- get the
    same :math:`N^+ b`, and with a one-dimensional null space their vectors
    all lie on one line :math:`p + t\,n`: three of them span only two
    dimensions, so the last vertex's square system was singular for *every*
    random draw (complete bipartite components with constant labels failed
    always, random labellings whenever two twins shared their labels).  No
    choice of the free component repairs that; random targets make
    :math:`N^+ b` itself generic, which is what the argument above needs.

    *Why not the proof sketch's version.*  The paper's sketch (appendix,
    "Proof Sketch of Claim 1") solves each vertex's system against all its
    neighbours with random placeholders for the unplaced ones and perturbs
    afterwards; the perturbation breaks earlier equalities once n is in the
    thousands, and solving against placed neighbours with the minimum-norm
    solution alone puts :math:`x_v` in the span of its neighbours, so the
    vectors collapse into low-dimensional subspaces and later systems become
    singular.  The null-space component prevents both.

    *Conditioning.*  Systems with :math:`k = d-1` rows in :math:`D = d`
    dimensions have a smallest singular value with a light (quadratic) tail
    near 0, while a square random system's is linear -- the reason for the
    order, which leaves one square system per component.

    *Tight case.*  :math:`K_{d+1}` with every label -1 needs :math:`d+1`
    pairwise-obtuse vectors, and at most :math:`D+1` fit in
    :math:`\mathbb R^D`, so ``dim = d - 1`` must fail (it does, at the last
    vertex) while ``dim = d`` succeeds.

    *Cost.*  One SVD of a :math:`k \times D` matrix per vertex:
    :math:`O(n d^3)`, about 1 s for n = 5000, d = 20.

    References
    ----------
    Gao, Zhang, Peng & Parameswaran, "The Importance of Norm Regularization
    in Linear Graph Embedding: Theoretical Analysis and Empirical
    Demonstration", ICLR 2019, Section 3.1, Claim 1, and the appendix's
    proof sketch of Claim 1.

    Examples
    --------
    >>> import networkx as nx
    >>> from lgekit import Graph
    >>> g = Graph.from_networkx(nx.complete_bipartite_graph(3, 3), bipartite=False)  # Claim 1's undirected graph
    >>> X = shattering_embedding(g, 1, seed=0)
    >>> check_shattering(g, 1, X).n_violated
    0
    """
    graph = _check_graph(graph)
    d = _regular_degree(graph)
    y = edge_labels(graph, labels)
    if dim is None:
        dim = d
    validate_params(_EMBEDDING, {"eps": eps, "dim": dim}, "shattering_embedding")
    dim = int(dim)
    eps = float(eps)
    rng = check_random_state(seed, "seed")
    n = graph.n_nodes
    indptr, indices = graph.indptr, graph.indices
    order, _ = _reverse_bfs_order(graph, rng)
    # one random target per edge, shared by the edge's two CSR entries
    margins = rng.uniform(1.0 + eps, 1.0 + 2.0 * eps, size=graph.n_edges)
    edge_of = _csr_edge_index(graph)
    lab = y[edge_of].astype(np.float64) * margins[edge_of]
    X = np.zeros((n, dim))
    placed = np.zeros(n, dtype=bool)
    target = (1.0 + eps) * d
    floor = 1.0 + eps
    scale = np.sqrt(target)
    Z = rng.standard_normal((n, dim))
    radius = rng.uniform(0.9, 1.1, size=n)
    worst = 1.0
    for v in order:
        lo, hi = indptr[v], indptr[v + 1]
        nbrs = indices[lo:hi]
        mask = placed[nbrs]
        k = int(mask.sum())
        z = Z[v]
        if k == 0:
            x = z * (scale * np.sqrt(radius[v]) / np.linalg.norm(z))
        else:
            N = X[nbrs[mask]]
            b = lab[lo:hi][mask]
            U, S, Vt = np.linalg.svd(N, full_matrices=True)
            r = min(k, dim)
            cond = S[0] / S[r - 1] if S[r - 1] > 0 else float("inf")
            if S[r - 1] <= rcond * S[0]:
                raise ShatteringError(
                    f"singular system at vertex {int(v)}: {k} placed neighbours, condition number "
                    f"{cond:.3g} > 1/rcond = {1 / rcond:.3g}; try another seed",
                    vertex=int(v), n_constraints=k, condition=cond)
            worst = max(worst, cond)
            coef = (U[:, :r].T @ b) / S[:r]
            x = Vt[:r].T @ coef
            if k > dim:
                resid = np.abs(N @ x - b).max()
                if resid > 1e-8 * (1.0 + eps):
                    raise ShatteringError(
                        f"inconsistent system at vertex {int(v)}: {k} constraints in dim={dim} "
                        f"dimensions, least-squares residual {resid:.3g}; Claim 1 needs dim >= d = {d}",
                        vertex=int(v), n_constraints=k)
            elif k < dim:
                null = Vt[k:]
                w = null.T @ (null @ z)
                norm = np.linalg.norm(w)
                if norm > 0:
                    # a continuous random length (not only a random direction) gives the free part a density
                    # on the whole null space, which the probability-one argument in the Notes needs
                    free = max(target - float(x @ x), floor) * radius[v]
                    x = x + w * (np.sqrt(free) / norm)
        X[v] = x
        placed[v] = True
    logger.debug("shattering_embedding: n=%d d=%d dim=%d worst condition %.3g", n, d, dim, worst)
    return X


def polish_shattering(graph, labels, X, eps=0.1, sweeps=2, seed=None):
    r"""Shrink a shattering embedding vertex by vertex, keeping every margin >= 1 + eps.

    Parameters
    ----------
    graph : lgekit.Graph
    labels : array-like of +1/-1 aligned with ``graph.edges()``, or a scalar
    X : ndarray (n, D)
        An embedding with every margin >= 1 + eps (e.g. from
        :func:`shattering_embedding`); not modified.
    eps : float, default 0.1
    sweeps : int, default 2
        Passes over all vertices (in a random order each).
    seed : None, int or numpy.random.Generator

    Returns
    -------
    ndarray (n, D)

    Notes
    -----
    Block coordinate descent on :math:`\sum_v\|x_v\|^2` under the
    constraints :math:`y_{uv}\,x_u^\top x_v \ge 1+\epsilon`.  With the
    neighbours fixed, vertex v's block is the small QP
    :math:`\min \tfrac12\|x\|^2` s.t. :math:`N x \ge (1+\epsilon)\mathbf 1`
    (rows :math:`y_{uv} x_u`), solved through its dual
    :math:`\min_{\mu \ge 0} \tfrac12 \mu^\top N N^\top \mu - (1+\epsilon)\mathbf
    1^\top\mu` by NNLS on the Cholesky factor, :math:`x = N^\top\mu`.  The
    current :math:`x_v` is feasible, so each step can only lower the total
    squared norm, and all constraints stay satisfied (up to rounding; an
    update that would violate one by more than 1e-9 is skipped).  It removes
    the heavy tail of the construction: a vertex whose equality system was
    ill-conditioned gets the smallest vector satisfying its inequalities.
    Cost: one d x d Cholesky and NNLS per vertex and sweep.
    """
    graph = _check_graph(graph)
    y = edge_labels(graph, labels)
    X = np.array(X, dtype=np.float64, copy=True)
    if X.ndim != 2 or X.shape[0] != graph.n_nodes:
        raise ValueError(f"X must have shape (n_nodes={graph.n_nodes}, D), got {X.shape}")
    validate_params(_POLISH, {"eps": eps, "sweeps": sweeps}, "polish_shattering")
    c = 1.0 + float(eps)
    rng = check_random_state(seed, "seed")
    indptr, indices = graph.indptr, graph.indices
    lab = _csr_labels(graph, y).astype(np.float64)
    for _ in range(int(sweeps)):
        for v in rng.permutation(graph.n_nodes):
            lo, hi = indptr[v], indptr[v + 1]
            if hi == lo:
                X[v] = 0.0
                continue
            N = lab[lo:hi, None] * X[indices[lo:hi]]
            K = N @ N.T
            try:
                L = np.linalg.cholesky(K + 1e-12 * np.trace(K) * np.eye(K.shape[0]))
            except np.linalg.LinAlgError:
                continue
            rhs = np.linalg.solve(L, np.full(K.shape[0], c))
            mu, _ = nnls(L.T, rhs)
            x = N.T @ mu
            if np.all(N @ x >= c - 1e-9) and x @ x < X[v] @ X[v]:
                X[v] = x
    return X


@dataclass(frozen=True)
class ShatteringCheck:
    """How well an embedding realises an edge labelling.

    Attributes
    ----------
    min_margin : float
        :math:`\\min_e y_e\\, x_a^\\top x_b`.
    n_violated : int
        Edges with margin :math:`\\le 1`.
    n_edges : int
    total_sq_norm, max_sq_norm, mean_sq_norm, median_sq_norm : float
        :math:`\\sum_v \\|x_v\\|^2`, its largest term, its mean and median.
    """

    min_margin: float
    n_violated: int
    n_edges: int
    total_sq_norm: float
    max_sq_norm: float
    mean_sq_norm: float
    median_sq_norm: float = float("nan")

    @property
    def shattered(self):
        """True when every edge has margin > 1."""
        return self.n_violated == 0


def check_shattering(graph, labels, X):
    """Margins and norms of an embedding against an edge labelling.

    Parameters
    ----------
    graph : lgekit.Graph
    labels : array-like of +1/-1 aligned with ``graph.edges()``, or a scalar
    X : ndarray of shape (n_nodes, D)

    Returns
    -------
    ShatteringCheck
    """
    graph = _check_graph(graph)
    y = edge_labels(graph, labels)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != graph.n_nodes:
        raise ValueError(f"X must have shape (n_nodes={graph.n_nodes}, D), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains non-finite values")
    e = graph.edges()
    margins = y * np.einsum("ij,ij->i", X[e[:, 0]], X[e[:, 1]])
    sq = np.einsum("ij,ij->i", X, X)
    return ShatteringCheck(
        min_margin=float(margins.min()) if margins.size else float("inf"),
        n_violated=int(np.count_nonzero(margins <= 1.0)),
        n_edges=int(e.shape[0]),
        total_sq_norm=float(sq.sum()),
        max_sq_norm=float(sq.max()) if sq.size else 0.0,
        mean_sq_norm=float(sq.mean()) if sq.size else 0.0,
        median_sq_norm=float(np.median(sq)) if sq.size else 0.0,
    )


def shattering_norm_lower_bound(graph, labels):
    r"""Lower bound on the mean squared norm of *any* embedding with all margins > 1.

    Parameters
    ----------
    graph : lgekit.Graph
        Undirected (need not be regular).
    labels : array-like of +1/-1 aligned with ``graph.edges()``, or a scalar

    Returns
    -------
    float
        :math:`2|E| / (n\,\lambda_{\max}(A_y))`, where :math:`A_y` is the
        signed adjacency matrix (:math:`y_e` at both positions of edge e);
        for a d-regular graph this is :math:`d / \lambda_{\max}(A_y)`.

    Notes
    -----
    If :math:`y_e x_a^\top x_b > 1` on every edge then

    .. math::

        |E| < \sum_e y_e\, x_a^\top x_b = \tfrac12 \operatorname{tr}(X^\top A_y X)
        \le \tfrac12 \lambda_{\max}(A_y)\, \|X\|_F^2 ,

    so :math:`\frac1n\sum_v\|x_v\|^2 > 2|E| / (n \lambda_{\max}(A_y))`
    (:math:`\lambda_{\max} > 0` necessarily).  For a d-regular graph
    :math:`\lambda_{\max}(A_y) \le d`, so the bound is at least 1 (the
    edge-wise bound :math:`\|x_a\|^2 + \|x_b\|^2 \ge 2|x_a^\top x_b| > 2`).
    Examples: :math:`K_{d+1}` with all labels -1 has :math:`\lambda_{\max} =
    1`, bound d; a random d-regular graph with all labels -1 has
    :math:`\lambda_{\max} \approx 2\sqrt{d-1}`, bound :math:`\approx
    \sqrt d/2`; random labels give about the same.  An embedding whose mean
    squared norm is below this bound cannot realise ``labels``: that is what
    a norm constraint forbids, whatever the dimension.
    """
    graph = _check_graph(graph)
    y = edge_labels(graph, labels)
    n = graph.n_nodes
    if graph.n_edges == 0:
        return 0.0
    data = _csr_labels(graph, y).astype(np.float64)
    A = sp.csr_matrix((data, graph.indices.copy(), graph.indptr.copy()), shape=(n, n))
    if n <= 400:
        lam = float(np.linalg.eigvalsh(A.toarray())[-1])
    else:
        lam = float(eigsh(A, k=1, which="LA", tol=1e-8, return_eigenvectors=False,
                          v0=np.ones(n))[0])
    if lam <= 0:
        return float("inf")
    return 2.0 * graph.n_edges / (n * lam)


def adversarial_regular_graphs():
    r"""Regular graphs with twins, symmetry and small girth: ``[(name, lgekit.Graph)]``.

    :math:`K_{3,3}`, :math:`K_{4,4}`, :math:`K_4 \cup K_{3,3}`, :math:`K_{3,3,3}`,
    :math:`K_{10,10}`, the Petersen graph, the circulant :math:`C_{12}(1, 4)`, the
    hypercube :math:`Q_4` and :math:`K_5 \cup K_5`: the cases a construction
    relying on random vertices being in general position gets wrong (issue 17
    found the equal-margin construction failing on every complete bipartite
    component with constant labels).
    """
    import networkx as nx  # heavy, and only these example graphs need it

    graphs = {
        "K_{3,3}": nx.complete_bipartite_graph(3, 3),
        "K_{4,4}": nx.complete_bipartite_graph(4, 4),
        "K_4 + K_{3,3}": nx.disjoint_union(nx.complete_graph(4), nx.complete_bipartite_graph(3, 3)),
        "K_{3,3,3}": nx.complete_multipartite_graph(3, 3, 3),
        "K_{10,10}": nx.complete_bipartite_graph(10, 10),
        "Petersen": nx.petersen_graph(),
        "C_12(1,4)": nx.circulant_graph(12, [1, 4]),
        "Q_4": nx.hypercube_graph(4),
        "K_5 + K_5": nx.disjoint_union(nx.complete_graph(5), nx.complete_graph(5)),
    }
    # bipartite=False: Claim 1 is about undirected d-regular graphs, whatever networkx's node attributes say
    return [(name, Graph.from_networkx(nx.convert_node_labels_to_integers(g), bipartite=False))
            for name, g in graphs.items()]
