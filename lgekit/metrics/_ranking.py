"""Ranking metrics of link prediction: each positive pair ranked against negatives for its source (MRR and
Hits@k, OGB's protocol), the ranks themselves and the negative candidates."""
from numbers import Integral

import numpy as np

from .._random import check_random_state
from .._validation import InvalidParameterError, Interval, Options, check_pairs, validate_arguments
from ..datasets import as_graph
from ._embedding import check_embedding
from ._link import pair_scores

__all__ = ["TIES", "ranks_from_scores", "mrr_and_hits", "sample_candidates", "link_ranking"]


#: how a positive ranks among negatives that score exactly as it does
TIES = ("average", "pessimistic", "optimistic")


@validate_arguments({"ties": [Options(str, TIES)]})
def ranks_from_scores(positive_scores, negative_scores, *, ties="average"):
    """The rank of each positive among its negatives: 1 + the negatives that score above it.

    Negatives that score exactly as the positive does count by ``ties``:
    ``"optimistic"`` puts the positive first among them (rank
    :math:`1 + \\#\\{s^- > s^+\\}`), ``"pessimistic"`` last
    (:math:`1 + \\#\\{s^- \\ge s^+\\}`), ``"average"`` half way (the mean of
    the two).  OGB's link-prediction evaluator ranks with ``"average"`` for
    its MRR (``ogbl-citation2``; ``ogb/linkproppred/evaluate.py``,
    ``_eval_mrr``), and its Hits@K against one shared set of negatives
    (``ogbl-collab``, ``-ppa``, ``-ddi``: a hit when the positive scores
    strictly above the K-th best negative) is ``"pessimistic"``.  A constant
    scorer gets rank 1 optimistically, ``m + 1`` pessimistically.

    Parameters
    ----------
    positive_scores : 1-D array (P,) of finite reals
    negative_scores : array (P, m), one row of negatives per positive, or (m,) shared by all
    ties : {"average", "pessimistic", "optimistic"}, default "average"

    Returns
    -------
    float64 ndarray (P,)
        Ranks in ``[1, m + 1]`` (halves with ``"average"``).

    Examples
    --------
    >>> ranks_from_scores([2.0, 1.0], [[3.0, 2.0, 0.0], [1.0, 1.0, 1.0]]).tolist()
    [2.5, 2.5]
    >>> ranks_from_scores([2.0, 1.0], [[3.0, 2.0, 0.0], [1.0, 1.0, 1.0]], ties="pessimistic").tolist()
    [3.0, 4.0]
    """
    pos = np.asarray(positive_scores, dtype=np.float64)
    neg = np.asarray(negative_scores, dtype=np.float64)
    if pos.ndim != 1 or len(pos) == 0:
        raise ValueError(f"positive_scores must be a non-empty 1-D array, got shape {pos.shape}")
    if neg.ndim == 1:
        neg = neg[None, :]
    if neg.ndim != 2 or neg.shape[0] not in (1, len(pos)) or neg.shape[1] == 0:
        raise ValueError(f"negative_scores must have shape ({len(pos)}, m) (one row per positive) or (m,) (shared), "
                         f"m >= 1, got {np.shape(negative_scores)}")
    if not (np.isfinite(pos).all() and np.isfinite(neg).all()):
        raise ValueError("positive_scores and negative_scores must be finite (a diverged model?)")
    if neg.shape[0] == 1 and len(pos) > 1:
        # shared negatives: count by bisection, not a (P, m) comparison
        s = np.sort(neg[0])
        above = len(s) - np.searchsorted(s, pos, side="right")
        at_least = len(s) - np.searchsorted(s, pos, side="left")
    else:
        above = (neg > pos[:, None]).sum(axis=1)
        at_least = (neg >= pos[:, None]).sum(axis=1)
    return _ranks(above, at_least, ties)


def _ranks(above, at_least, ties):
    """Ranks from the counts of negatives above and at least the positive (see :func:`ranks_from_scores`)."""
    if ties == "optimistic":
        return 1.0 + np.asarray(above, dtype=np.float64)
    if ties == "pessimistic":
        return 1.0 + np.asarray(at_least, dtype=np.float64)
    return 1.0 + 0.5 * (np.asarray(above, dtype=np.float64) + at_least)


def _check_ks(ks):
    ks = (ks,) if isinstance(ks, Integral) else tuple(ks)
    if not ks or any(isinstance(k, bool) or not isinstance(k, Integral) or k < 1 for k in ks):
        raise InvalidParameterError(f"ks must be a positive int or a non-empty sequence of them, got {ks!r}",
                                    parameter="ks", value=ks, accepted="ints >= 1")
    return tuple(int(k) for k in ks)


def mrr_and_hits(ranks, ks=(1, 3, 10)):
    """``{"mrr": mean of 1 / rank, "hits@k": share of ranks <= k for each k}`` of ranks (from
    :func:`ranks_from_scores`).

    Examples
    --------
    >>> mrr_and_hits([1.0, 2.0, 4.0], ks=(1, 3))
    {'mrr': 0.5833333333333334, 'hits@1': 0.3333333333333333, 'hits@3': 0.6666666666666666}
    """
    r = np.asarray(ranks, dtype=np.float64)
    if r.ndim != 1 or len(r) == 0 or not np.all(r >= 1):
        raise ValueError(f"ranks must be a non-empty 1-D array of ranks >= 1, got shape {r.shape}")
    out = {"mrr": float(np.mean(1.0 / r))}
    for k in _check_ks(ks):
        out[f"hits@{k}"] = float(np.mean(r <= k))
    return out


def _known_matrix(graph, n_rows, n_candidates):
    """The pairs that are no negative, as a (sources, candidates) CSR: a graph's edges (out-arcs of a
    directed graph, left-right edges of a bipartite one); None without a graph."""
    if graph is None:
        return None
    graph = as_graph(graph, "graph")
    if n_rows is None:
        n_rows = graph.n_nodes
    known = graph.biadjacency("csr") if graph.kind == "bipartite" else graph.to_scipy("csr")
    if known.shape != (n_rows, n_candidates):
        raise ValueError(f"graph: its adjacency has shape {known.shape}, but the sources and candidates are "
                         f"{n_rows} x {n_candidates}")
    return known.astype(bool).tocsr()


@validate_arguments({"n_negatives": [Interval(Integral, 1, None, closed="left")], "seed": ["random_state"]})
def sample_candidates(positives, n_candidates, n_negatives, *, graph=None, exclude_self=True, seed=0):
    """Negative candidates for each positive pair ``(u, v)``: ``n_negatives`` targets ``w`` drawn for ``u``.

    Each row is drawn uniformly, with replacement, from the targets ``w`` in
    ``[0, n_candidates)`` other than ``v`` itself, ``u`` itself (with
    ``exclude_self``: one node set on both sides) and, given a ``graph``,
    every ``w`` with ``(u, w)`` an edge (the *filtered* setting: a known link
    is no negative).  A drawn target that is not allowed is drawn again.

    Parameters
    ----------
    positives : int array (P, 2)
        (source row, target row), e.g. ``split.test_positives``.
    n_candidates : int
        Rows of the target table (the number of nodes; a bipartite model's
        right nodes).
    n_negatives : int >= 1
    graph : Graph or any form of :func:`lgekit.datasets.as_graph`, optional
    exclude_self : bool, default True
    seed : None, int or numpy.random.Generator, default 0

    Returns
    -------
    int64 ndarray (P, n_negatives)

    Raises
    ------
    ValueError
        When some source has no allowed target.
    """
    graph = None if graph is None else as_graph(graph, "graph")
    n_sources = graph.n_left if graph is not None and graph.kind == "bipartite" else None
    if graph is not None and n_sources is None:
        n_sources = graph.n_nodes
    # the two columns index different tables (a bipartite graph's left and right nodes): each its own range
    p = check_pairs(positives, np.iinfo(np.int64).max, "positives")
    if len(p) and p[:, 1].max() >= n_candidates:
        raise ValueError(f"positives: targets must lie in [0, {n_candidates}), got {int(p[:, 1].max())}")
    if len(p) and n_sources is not None and p[:, 0].max() >= n_sources:
        raise ValueError(f"positives: sources must lie in [0, {n_sources}) (the graph's "
                         f"{'left ' if graph.kind == 'bipartite' else ''}nodes), got {int(p[:, 0].max())}")
    known = _known_matrix(graph, n_sources, n_candidates)
    rng = check_random_state(seed, "seed")
    out = rng.integers(0, n_candidates, size=(len(p), int(n_negatives)), dtype=np.int64)

    # the known pairs as sorted keys u * n_candidates + w: a membership test is one bisection
    keys = None if known is None else np.sort(
        np.repeat(np.arange(known.shape[0], dtype=np.int64), np.diff(known.indptr)) * n_candidates
        + known.indices)

    def forbidden(rows, w):
        mask = w == p[rows, 1][:, None]
        if exclude_self:
            mask |= w == p[rows, 0][:, None]
        if keys is not None and len(keys):
            q = p[rows, 0][:, None] * n_candidates + w
            mask |= keys[np.minimum(np.searchsorted(keys, q), len(keys) - 1)] == q
        return mask

    rows = np.arange(len(p))
    for _ in range(_REDRAWS):
        mask = forbidden(rows, out[rows])
        hit = mask.any(axis=1)
        rows, mask = rows[hit], mask[hit]
        if not len(rows):
            return out
        block = out[rows]
        block[mask] = rng.integers(0, n_candidates, size=int(mask.sum()), dtype=np.int64)
        out[rows] = block
    # sources with few allowed targets (dense rows): draw from the list of those targets
    for i in rows:
        u, v = p[i]
        banned = [v, u] if exclude_self else [v]
        if known is not None:
            banned.extend(known.indices[known.indptr[u]:known.indptr[u + 1]])
        allowed = np.setdiff1d(np.arange(n_candidates), banned)
        if not len(allowed):
            raise ValueError(f"positives: source {int(u)} (row {i}) has no target left to be a negative")
        out[i] = rng.choice(allowed, size=out.shape[1])
    return out


# redraws of the forbidden candidates before the few sources left draw from an explicit list
_REDRAWS = 20


@validate_arguments({"ties": [Options(str, TIES)], "seed": ["random_state"]})
def link_ranking(embedding, positives, context=None, *, candidates=100, graph=None, ties="average",
                 ks=(1, 3, 10), exclude_self=None, seed=0):
    """MRR and Hits@k of link prediction: each positive pair ranked against negatives for its source.

    OGB's protocol (Hu et al. 2020, ``ogbl-citation2``): for a held-out pair
    ``(u, v)``, score ``s(u, v)`` (``x_u . x_v``, or ``x_u . y_v`` with a
    context table) and the negatives ``s(u, w)`` of candidate targets ``w``
    for the same source; the positive's rank is 1 + the negatives above it
    (ties by ``ties``: :func:`ranks_from_scores`), MRR the mean of 1/rank
    and Hits@k the share of ranks at most k.

    Parameters
    ----------
    embedding : array (n_nodes, dim)
    positives : int array (P, 2)
        (source row, target row), e.g. ``split.test_positives``.
    context : array (n_targets, dim), optional
        See :func:`pair_scores`.
    candidates : int >= 1 or "all", default 100
        An int: that many negatives per positive drawn by
        :func:`sample_candidates` (from ``seed``).  ``"all"``: every allowed
        target (exact, costs a product with the whole table, done in blocks
        of bounded memory).
    graph : Graph or any form of :func:`lgekit.datasets.as_graph`, optional
        Its edges are not negatives (the *filtered* setting; pass the full
        graph, so that no held-out or training link counts against a
        positive).  Without it, only ``v`` and (``exclude_self``) ``u``
        are left out: OGB's candidates are raw samples, unfiltered.
    ties : {"average", "pessimistic", "optimistic"}, default "average"
        OGB's MRR uses ``"average"``.
    ks : int or sequence of ints, default (1, 3, 10)
    exclude_self : bool, optional
        Leave ``u`` out of its own candidates; default: True when the
        sources and targets are one node set (no context, or a context with
        as many rows; a bipartite graph given as ``graph`` says False).
    seed : None, int or numpy.random.Generator, default 0

    Returns
    -------
    dict
        ``{"mrr", "hits@k" for each k, "n_positives", "n_candidates", "ties"}``;
        ``"n_candidates"`` is the number per positive (``"all"``: the
        smallest over the positives).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.0]])
    >>> link_ranking(x, [[0, 3]], candidates="all", ks=(1, 2))   # 3 ties with 1 (0.5 < 1), beats 2
    {'mrr': 0.5, 'hits@1': 0.0, 'hits@2': 1.0, 'n_positives': 1, 'n_candidates': 2, 'ties': 'average'}
    """
    x = check_embedding(embedding)
    y = x if context is None else check_embedding(context, "context")
    if y.shape[1] != x.shape[1]:
        raise ValueError(f"context must have the embedding's dimension {x.shape[1]}, got {y.shape}")
    ks = _check_ks(ks)
    graph = None if graph is None else as_graph(graph, "graph")   # a networkx graph too: the one reading
    if exclude_self is None:
        exclude_self = y.shape[0] == x.shape[0] and not (graph is not None and graph.kind == "bipartite")
    p = check_pairs(positives, max(x.shape[0], y.shape[0]), "positives")
    if len(p) == 0:
        raise ValueError("positives: need at least one pair, got none")
    for col, rows, what in ((0, x.shape[0], "embedding"), (1, y.shape[0], "context")):
        if p[:, col].max() >= rows:
            raise ValueError(f"positives: column {col} indexes the {what}'s {rows} rows, got {int(p[:, col].max())}")
    if isinstance(candidates, str):
        if candidates != "all":
            raise ValueError(f"candidates must be a positive int (negatives sampled per positive) or 'all', "
                             f"got {candidates!r}")
        above, at_least, counts = _rank_against_all(x, y, p, graph, exclude_self)
        ranks = _ranks(above, at_least, ties)
        n_cand = int(counts.min())
    else:
        if isinstance(candidates, bool) or not isinstance(candidates, Integral) or candidates < 1:
            raise ValueError(f"candidates must be a positive int (negatives sampled per positive) or 'all', "
                             f"got {candidates!r}")
        w = sample_candidates(p, y.shape[0], int(candidates), graph=graph, exclude_self=exclude_self, seed=seed)
        neg_pairs = np.stack([np.repeat(p[:, 0], w.shape[1]), w.ravel()], axis=1)
        pos_scores = pair_scores(x, p, context=None if context is None else y)
        neg_scores = pair_scores(x, neg_pairs, context=None if context is None else y).reshape(w.shape)
        ranks = ranks_from_scores(pos_scores, neg_scores, ties=ties)
        n_cand = int(candidates)
    out = mrr_and_hits(ranks, ks)
    out.update(n_positives=len(p), n_candidates=n_cand, ties=ties)
    return out


# bytes of float64 scores one block of "all"-candidate ranking holds
_RANK_BLOCK_BYTES = 8 * 2**20


def _rank_against_all(x, y, p, graph, exclude_self):
    """Per positive: negatives above it, negatives at least it, and negatives, over every allowed target.

    The positive's own score is read from the same matrix product as its negatives', so equal
    scores compare equal whatever BLAS's order of summation."""
    n_rows, n = x.shape[0], y.shape[0]
    known = _known_matrix(graph, x.shape[0], n)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    height = max(1, _RANK_BLOCK_BYTES // (8 * n))
    above = np.empty(len(p), dtype=np.int64)
    at_least = np.empty(len(p), dtype=np.int64)
    counts = np.empty(len(p), dtype=np.int64)
    for a in range(0, len(p), height):
        b = min(len(p), a + height)
        u, v = p[a:b, 0], p[a:b, 1]
        s = x[u] @ y.T
        r = np.arange(b - a)
        pos = s[r, v]
        allowed = np.ones(s.shape, dtype=bool)
        if known is not None:
            allowed[known[u].toarray()] = False
        allowed[r, v] = False
        if exclude_self:
            allowed[r, u] = False
        above[a:b] = ((s > pos[:, None]) & allowed).sum(axis=1)
        at_least[a:b] = ((s >= pos[:, None]) & allowed).sum(axis=1)
        counts[a:b] = allowed.sum(axis=1)
    if counts.min() < 1:
        i = int(np.argmin(counts))
        raise ValueError(f"positives: source {int(p[i, 0])} (row {i}) has no target left to be a negative")
    return above, at_least, counts
