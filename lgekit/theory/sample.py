r"""Theorem 1's training sample and its random-sign matrix :math:`A_\sigma`.

Theorem 1 (Section 3.1) is stated for a sample
:math:`E_\pm = \{(a_i, b_i, y_i)\}_{i=1}^{m+m'}` of labelled vertex pairs;
an :class:`~lgekit.EdgeSplit` holds it as ``train_positives`` (y = +1)
and ``train_negatives`` (y = -1).  The theorem's complexity term needs
:math:`\mathbb E_\sigma\|A_\sigma\|_2`, with one independent sign at every
sampled pair; the labels drop out (the proof's contraction step), but where
each pair sits in :math:`A_\sigma` depends on the graph's kind:

* a directed or bipartite sample is the theorem's own setting: ordered
  pairs, rows U (sources / left nodes, the ``embedding_`` table), columns V
  (targets / right nodes, ``context_embedding_``), one layout
  (:data:`ORIENTED`);
* an undirected sample has no orientation and lgekit's model one vector per
  vertex: :data:`CONVENTIONS` lists the layouts, the default
  ``"symmetric"`` one (:math:`\|A + A^\top\|_2 / 2`) being the smallest valid
  value.

The derivation of both cases is in :mod:`lgekit.theory.bounds`, beside the
theorem it serves; this module lays the sample out
(:func:`theorem1_sample`, :func:`oriented_training_pairs`), builds the
pattern (:func:`theorem1_pattern`) and estimates the norm
(:func:`theorem1_spectral_norm`).
"""
from dataclasses import dataclass

import numpy as np

from .._random import check_random_state
from ..graph import Graph
from .rademacher import PairPattern, expected_spectral_norm

__all__ = [
    "CONVENTIONS",
    "ORIENTED",
    "theorem1_sides",
    "theorem1_pairs",
    "theorem1_sample",
    "oriented_training_pairs",
    "theorem1_pattern",
    "Theorem1SpectralNorm",
    "theorem1_spectral_norm",
]

#: the pair layouts of :func:`theorem1_spectral_norm` for an undirected sample; the first is the default
CONVENTIONS = ("symmetric", "random", "sorted", "source")
#: the one layout of a directed or bipartite sample: Theorem 1's ``|U| x |V|`` matrix, rows sources / left nodes
ORIENTED = "oriented"

_PARTS = ("train", "test")


def theorem1_sides(graph):
    r"""The two vertex sets of Theorem 1 for a directed or bipartite graph: ``(|U|, |V|, offset)``.

    :meth:`lgekit.Graph.table_sides`, read as Theorem 1's :math:`U` and
    :math:`V`, for a graph that must have them.

    Parameters
    ----------
    graph : lgekit.Graph
        Of kind "directed" (U = sources, V = targets, both all n nodes: every
        node has an out- and an in-vector) or "bipartite" (U = the left
        nodes ``0..n_left-1``, V = the right nodes ``n_left..n_nodes-1``).

    Returns
    -------
    lgekit.graph.TableSides
        ``(n_source, n_target, target_offset)``: :math:`|U|`, the rows of
        :math:`A_\sigma` and of ``embedding_``; :math:`|V|`, its columns and
        the rows of ``context_embedding_``; what to subtract from a pair's
        second node index to get its column (0 for directed, ``n_left`` for
        bipartite).

    Raises
    ------
    TypeError
        ``graph`` is not an :class:`lgekit.Graph`.
    ValueError
        An undirected graph: its sample has no orientation and its model one
        table, so Theorem 1 needs one of :data:`CONVENTIONS` instead.
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be an lgekit.Graph, got {type(graph).__name__}")
    sides = graph.table_sides()
    if sides is not None:
        return sides
    raise ValueError(f"graph must be directed or bipartite for Theorem 1's |U| x |V| matrix, got kind "
                     f"{graph.kind!r} (an undirected sample uses one of the conventions {CONVENTIONS})")


def theorem1_pairs(graph, pairs, name="pairs"):
    r"""Node-index pairs of a directed or bipartite graph as (row, column) indices of the two tables.

    Row: the source / left node's row of ``embedding_`` and of :math:`A_\sigma`;
    column: the target / right node's row of ``context_embedding_`` and
    column of :math:`A_\sigma`.

    Parameters
    ----------
    graph : lgekit.Graph
        Directed or bipartite (:func:`theorem1_sides`).
    pairs : int array (k, 2)
        Graph node indices: (source, target) arcs, or (left, right) pairs
        with the right node's index in ``n_left..n_nodes-1``.
    name : str
        The argument's name in messages.

    Returns
    -------
    ndarray (k, 2) of int64

    Raises
    ------
    ValueError
        A bipartite pair that is not (left, right), or an index outside the graph.

    Examples
    --------
    >>> import lgekit
    >>> g = lgekit.Graph.from_edges([(0, 1), (1, 2)], directed=True)
    >>> theorem1_pairs(g, [[0, 1], [2, 1]]).tolist()
    [[0, 1], [2, 1]]
    """
    n_rows, n_cols, offset = theorem1_sides(graph)
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be a (k, 2) array of node indices, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer node indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    rows, cols = arr[:, 0], arr[:, 1] - offset
    if rows.min() < 0 or rows.max() >= n_rows or cols.min() < 0 or cols.max() >= n_cols:
        side = "(left, right) pairs: first index in [0, n_left), second in [n_left, n_nodes)" if offset else \
            f"node indices in [0, {n_rows})"
        raise ValueError(f"{name} must hold {side}; got rows in [{int(arr[:, 0].min())}, {int(arr[:, 0].max())}] "
                         f"and columns in [{int(arr[:, 1].min())}, {int(arr[:, 1].max())}]")
    return np.column_stack([rows, cols])


def _check_split(split, parts=("train",)):
    for part in parts:
        for field_name in (f"{part}_positives", f"{part}_negatives"):
            if not hasattr(split, field_name):
                raise TypeError(f"split must be an lgekit.EdgeSplit (missing {field_name}), "
                                f"got {type(split).__name__}")


def _split_sides(split):
    """The split graph's two tables (:meth:`lgekit.Graph.table_sides`), or None: undirected, or no graph."""
    graph = getattr(split, "graph", None)
    return None if graph is None else graph.table_sides()


def theorem1_sample(split, part="train"):
    r"""The labelled pairs :math:`E_\pm` of an EdgeSplit: positives (y = +1), then negatives (y = -1).

    Parameters
    ----------
    split : lgekit.EdgeSplit
    part : {"train", "test"}, default "train"
        ``"train"``: the sample the theorem's right-hand side is computed
        on (``train_positives``, ``train_negatives``); ``"test"``: the
        held-out pairs drawn the same way, a fresh sample of the same
        distribution :math:`\mathcal P` (the left-hand side's expectation).

    Returns
    -------
    pairs : ndarray (m + m', 2) of int64
        Graph node indices, as the split stores them.
    labels : ndarray (m + m',) of int8
        +1 for the m positives, -1 for the m' negatives.

    Raises
    ------
    TypeError
        ``split`` is not an EdgeSplit.
    ValueError
        ``part`` is neither "train" nor "test".

    Examples
    --------
    >>> import lgekit
    >>> g = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0)])
    >>> split = lgekit.split_edges(g, test_fraction=0.25, negatives_per_positive=1, seed=0)
    >>> pairs, labels = theorem1_sample(split)
    >>> pairs.shape, labels.tolist()
    ((6, 2), [1, 1, 1, -1, -1, -1])
    """
    if part not in _PARTS:
        raise ValueError(f"part must be one of {_PARTS}, got {part!r}")
    _check_split(split, (part,))
    pos = np.asarray(getattr(split, f"{part}_positives"), dtype=np.int64).reshape(-1, 2)
    neg = np.asarray(getattr(split, f"{part}_negatives"), dtype=np.int64).reshape(-1, 2)
    labels = np.concatenate([np.ones(len(pos), np.int8), -np.ones(len(neg), np.int8)])
    return np.concatenate([pos, neg]), labels


def _check_convention(convention, split):
    if _split_sides(split) is not None:
        if convention not in (None, ORIENTED):
            raise ValueError(f"a {split.graph.kind} sample has one A_sigma, Theorem 1's |U| x |V| matrix: "
                             f"convention must be {ORIENTED!r} (or None), got {convention!r}; the conventions "
                             f"{CONVENTIONS} are for undirected samples")
        return ORIENTED
    if convention is None:
        return CONVENTIONS[0]
    if convention == ORIENTED:
        raise ValueError(f"convention={ORIENTED!r} needs a directed or bipartite sample (two tables); an "
                         f"undirected sample has no orientation: choose one of {CONVENTIONS}")
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS} (or {ORIENTED!r} for a directed or bipartite "
                         f"sample), got {convention!r}")
    return convention


def oriented_training_pairs(split, convention=None, seed=None):
    r"""The training sample of an EdgeSplit laid out for :math:`A_\sigma` under a convention.

    Parameters
    ----------
    split : lgekit.EdgeSplit
        Uses ``train_positives`` and ``train_negatives`` (both stored u < v
        for an undirected graph; (source, target) arcs for a directed one;
        (left, right) for a bipartite one).
    convention : {"symmetric", "random", "sorted", "source", "oriented"}, optional
        Default: "symmetric" for an undirected split, "oriented" (the only
        one allowed) for a directed or bipartite split.
        ``"oriented"``: each pair as (row, column) of Theorem 1's
        :math:`|U| \times |V|` matrix, :func:`theorem1_pairs` (rows
        sources / left nodes, columns targets / right nodes, the latter
        counted from 0 within the right side).
        ``"symmetric"``: the pairs as stored, for the symmetric matrix
        :math:`A_{\rm sym}` (one sign at both orientations;
        :mod:`lgekit.theory.bounds` derives why :math:`\|A_{\rm sym}\|_2/2`
        is what Theorem 1 needs for lgekit's one-vector-per-vertex model).
        ``"random"``: each pair oriented by a fair coin.
        ``"sorted"``: every pair as (u, v) with u < v.
        ``"source"``: positives oriented by a fair coin; negative j becomes
        (source of positive ``j // r``, a uniformly chosen end of negative
        j), with r negatives per positive -- the layout of a sampler that
        corrupts the target end, not lgekit's sample.
    seed : None, int or numpy.random.Generator
        For the coins of "random" and "source".

    Returns
    -------
    pairs : ndarray (m + m', 2) of int64
        Positives first, then negatives.
    kind : {"homogeneous", "bipartite"}
        The :class:`~lgekit.theory.PairPattern` kind to build.
    scale : float
        Multiply :math:`\mathbb E\|A\|_2` by it before putting it into the
        theorem (1/2 for "symmetric", 1 otherwise).

    Raises
    ------
    TypeError
        ``split`` is not an EdgeSplit.
    ValueError
        Unknown ``convention``, or one that does not fit the split's kind;
        "symmetric" with a self-pair (u, u) in the sample (its entry would
        need the weight 2 the pattern cannot hold).
    """
    _check_split(split)
    convention = _check_convention(convention, split)
    pairs, labels = theorem1_sample(split)
    if convention == ORIENTED:
        return theorem1_pairs(split.graph, pairs, "the training pairs"), "bipartite", 1.0
    if convention == "symmetric":
        if np.any(pairs[:, 0] == pairs[:, 1]):
            raise ValueError("convention='symmetric' needs a sample without self-pairs (u, u): "
                             "A + A^T would put 2 sigma on the diagonal")
        return pairs, "homogeneous", 0.5
    if convention == "sorted":
        return np.sort(pairs, axis=1), "bipartite", 1.0
    rng = check_random_state(seed, "seed")
    flip = rng.random(len(pairs)) < 0.5
    oriented = np.where(flip[:, None], pairs[:, ::-1], pairs)
    if convention == "random":
        return oriented, "bipartite", 1.0
    n_pos = int(np.count_nonzero(labels > 0))
    neg = pairs[n_pos:]
    if n_pos == 0 or len(neg) % n_pos:
        raise ValueError(f"convention='source' needs a whole number of negatives per positive, got "
                         f"{len(neg)} negatives for {n_pos} positives")
    r = len(neg) // n_pos
    sources = oriented[:n_pos, 0]
    ends = neg[np.arange(len(neg)), rng.integers(0, 2, size=len(neg))]
    attached = np.column_stack([sources[np.arange(len(neg)) // r], ends])
    return np.concatenate([oriented[:n_pos], attached]), "bipartite", 1.0


def theorem1_pattern(split, convention=None, seed=None):
    r"""The sparsity pattern of Theorem 1's :math:`A_\sigma` for an EdgeSplit's training sample.

    Parameters
    ----------
    split : lgekit.EdgeSplit
    convention : str, optional
        See :func:`oriented_training_pairs` (default "symmetric" for an
        undirected split, "oriented" for a directed or bipartite one).
    seed : None, int or numpy.random.Generator
        For the orientation coins of "random" and "source".

    Returns
    -------
    pattern : PairPattern
        For a directed split the :math:`n \times n` matrix with a sign at
        (source, target) of every training arc and negative; for a bipartite
        split the :math:`n_{\rm left} \times n_{\rm right}` matrix with a
        sign at (left, right - n_left) -- Theorem 1's matrix as defined in its
        statement (Section 3.1), rows U, columns V.  For an undirected split
        the n x n matrix of the convention.
    scale : float
        Multiply :math:`\|A\|_2` by it before putting it into the theorem
        (1/2 for "symmetric", 1 otherwise).

    Examples
    --------
    >>> import lgekit
    >>> g = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 0)], directed=True)
    >>> split = lgekit.split_edges(g, test_fraction=0.34, negatives_per_positive=1, seed=0)
    >>> pattern, scale = theorem1_pattern(split)
    >>> pattern.shape, pattern.kind, scale
    ((3, 3), 'bipartite', 1.0)
    """
    rng = check_random_state(seed, "seed")
    pairs, kind, scale = oriented_training_pairs(split, convention, seed=rng)
    sides = _split_sides(split)
    if sides is not None:
        shape = (max(sides.n_source, 1), max(sides.n_target, 1))
    else:
        n = int(split.graph.n_nodes) if hasattr(split, "graph") else int(pairs.max()) + 1
        shape = (n, n)
    return PairPattern(pairs, shape=shape, kind=kind), scale


@dataclass(frozen=True)
class Theorem1SpectralNorm:
    r""":math:`\mathbb E_\sigma\|A_\sigma\|_2` of a training sample under one convention.

    Attributes
    ----------
    value : float
        What to put into :func:`~lgekit.theory.theorem1_bound`: ``scale * estimate.mean``.
    convention : str
    scale : float
        1/2 for "symmetric", 1 otherwise.
    estimate : SpectralNormEstimate
        The Monte Carlo estimate of the matrix's own norm.
    """

    value: float
    convention: str
    scale: float
    estimate: object


def theorem1_spectral_norm(split, convention=None, n_draws=5, seed=None, tol=1e-3, n_threads=1):
    r"""The :math:`\mathbb E_\sigma\|A_\sigma\|_2` that Theorem 1 needs for an EdgeSplit's training sample.

    Parameters
    ----------
    split : lgekit.EdgeSplit
    convention : {"symmetric", "random", "sorted", "source", "oriented"}, optional
        See :func:`oriented_training_pairs`.  Default "symmetric" for an
        undirected split, the one the theorem needs for lgekit's
        one-vector-per-vertex model (derivation in :mod:`lgekit.theory.bounds`);
        "oriented" for a directed or bipartite split, the theorem's own
        :math:`|U| \times |V|` matrix (:func:`theorem1_pattern`).
    n_draws : int, default 5
        Sign draws of the Monte Carlo estimate.
    seed : None, int or numpy.random.Generator
        Source of the orientation coins and of the signs.
    tol : float, default 1e-3
        Relative accuracy of each draw (the estimate is biased low by at
        most ``tol`` relative).
    n_threads : int, default 1

    Returns
    -------
    Theorem1SpectralNorm

    Notes
    -----
    For the same signs, :math:`\|A + A^\top\|_2 / 2 \le \|A\|_2` for every
    orientation A, so the "symmetric" value is the smallest of the four up to
    Monte Carlo error; ``lgekit theory bound`` tabulates all four on a real
    training sample.
    """
    rng = check_random_state(seed, "seed")
    _check_split(split)
    convention = _check_convention(convention, split)
    pattern, scale = theorem1_pattern(split, convention, seed=rng)
    est = expected_spectral_norm(pattern, n_draws=n_draws, seed=rng, tol=tol, n_threads=n_threads)
    return Theorem1SpectralNorm(value=scale * est.mean, convention=convention, scale=scale, estimate=est)
