"""Direction prediction on a directed graph: can the scores tell an arc from its reverse?"""
import numpy as np

from .._validation import check_pairs
from ..evaluation import check_directed, non_reciprocal_arcs
from ._embedding import check_embedding
from ._link import average_precision_from_scores, pair_scores

__all__ = ["direction_average_precision"]


def direction_average_precision(embedding, arcs, context=None, graph=None, score="log_odds"):
    r"""Can the scores tell an arc ``(u, v)`` from its reverse ``(v, u)``?  AP of the one against the other.

    The paper's footnote 1 handles a directed graph with two vectors per
    node, an out-vector :math:`x_u` (``embedding``) and an in-vector
    :math:`y_v` (``context``), scoring :math:`s(u, v) = x_u^\top y_v`, which
    can differ from :math:`s(v, u) = x_v^\top y_u`.  The direction task
    takes a pair that is linked one way and asks *which way*.  Under the
    logistic model, with arcs independent and
    :math:`P(u \to v) = \sigma(s(u, v))`,

    .. math::

        \frac{P(u \to v,\ v \not\to u)}{P(v \to u,\ u \not\to v)}
        = \frac{\sigma(s(u, v))\,\sigma(-s(v, u))}{\sigma(s(v, u))\,\sigma(-s(u, v))}
        = e^{\,s(u, v) - s(v, u)},

    so the model's log-odds that the arc points :math:`u \to v` is the
    antisymmetric score :math:`d(u, v) = s(u, v) - s(v, u)` (``score=
    "log_odds"``, the default).  Each arc's :math:`d(u, v)` is a positive,
    its reverse's :math:`d(v, u) = -d(u, v)` a negative, and the average
    precision (:func:`average_precision_from_scores`) of the two sets is
    returned: 1 when every arc's log-odds is positive, 1/2 when they are all
    0.  A degree rule :math:`\log r_u - \log r_v` is such a score too.

    ``score="raw"`` ranks the raw scores :math:`s(u, v)` of the arcs against
    :math:`s(v, u)` of the reverses, pooled over all pairs: a pair whose
    vectors are long outranks the reverse of a pair whose vectors are short,
    so it mixes *is there a link* into *which way*.  It was lgekit's first
    direction AP, kept to compare with records made with it.

    A one-table (undirected) model scores :math:`x_u^\top x_v = x_v^\top
    x_u`: every positive ties with its negative, and the AP is exactly 0.5
    with either ``score`` -- the chance level by construction.

    Parameters
    ----------
    embedding : array (n_nodes, dim)
        The source (out-) vectors.
    arcs : int array (k, 2)
        Held-out arcs (source, target) as node indices, e.g.
        ``split.test_positives`` of a directed split.
    context : array (n_nodes, dim), optional
        The target (in-) vectors; default ``embedding`` (a symmetric scorer).
    graph : Graph or any form of :func:`lgekit.datasets.as_graph`, optional
        The full directed graph.  When given, the arcs whose reverse is also
        an arc (or that are self-loops) are dropped first
        (:func:`~lgekit.evaluation.non_reciprocal_arcs`): their direction is not a question.
    score : {"log_odds", "raw"}, default "log_odds"
        Rank each arc's log-odds :math:`s(u, v) - s(v, u)` against its
        negation, or (``"raw"``) the pooled raw scores of arcs against those
        of reverses.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    TypeError, ValueError
        A bad embedding or arcs array; a ``graph`` that is not directed or
        does not match the embedding's rows; no arc left; without ``graph``,
        a self-loop or an arc whose reverse is also in ``arcs`` (the same pair
        would be a positive and a negative).

    Notes
    -----
    Cost :math:`O(k \cdot dim + k \log k)`.  The pair scores are those of
    :func:`average_precision`, so the link-prediction AP on the held-out arcs
    (against ``split.test_negatives``) and this direction AP measure the same
    model on two questions: *is there an arc?* and *which way does it go?*

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])      # x_u = (1, u)
    >>> y = np.array([[0.0, -1.0], [1.0, -1.0], [2.0, -1.0]])   # y_v = (v, -1): x_u . y_v = v - u
    >>> direction_average_precision(x, [[0, 1], [1, 2], [0, 2]], context=y)
    1.0
    >>> direction_average_precision(x, [[0, 1], [1, 2], [0, 2]])   # one table: symmetric scores
    0.5
    """
    if score not in ("log_odds", "raw"):
        raise ValueError(f"score must be 'log_odds' (each pair's s(u, v) - s(v, u)) or 'raw' (pooled raw scores), "
                         f"got {score!r}")
    x = check_embedding(embedding)
    if graph is not None:
        graph = check_directed(graph)
        if graph.n_nodes != x.shape[0]:
            raise ValueError(f"graph has {graph.n_nodes} nodes but the embedding has {x.shape[0]} rows")
        a = non_reciprocal_arcs(graph, arcs)
        if len(a) == 0:
            raise ValueError("arcs: every arc is a self-loop or reciprocated in the graph: no direction to tell")
    else:
        a = check_pairs(arcs, x.shape[0], "arcs")
        if len(a) == 0:
            raise ValueError("arcs: need at least one arc, got none")
        loops = np.flatnonzero(a[:, 0] == a[:, 1])
        if len(loops):
            raise ValueError(f"arcs: a self-loop is its own reverse, e.g. {a[loops[0]].tolist()} at row "
                             f"{loops[0]}; drop self-loops (or pass graph= to drop them)")
        n = max(x.shape[0], 1)
        keys = a[:, 0] * n + a[:, 1]
        both = np.isin(a[:, 1] * n + a[:, 0], keys)
        if both.any():
            i = int(np.flatnonzero(both)[0])
            raise ValueError(f"arcs: {a[i].tolist()} (row {i}) and its reverse are both in arcs, so the pair would "
                             "be a positive and a negative; pass graph= to keep only non-reciprocal arcs")
    if context is not None:
        y = check_embedding(context, "context")
        if y.shape != x.shape:
            raise ValueError(f"context must have the embedding's shape {x.shape} (one in-vector per node), "
                             f"got {y.shape}")
    scores = pair_scores(x, np.concatenate([a, np.ascontiguousarray(a[:, ::-1])]), context=context)
    forward, backward = scores[:len(a)], scores[len(a):]
    if score == "log_odds":
        forward, backward = forward - backward, backward - forward
    return average_precision_from_scores(forward, backward)
