"""A picture of an embedding: its vectors projected to two dimensions (PCA, or t-SNE), coloured by label.

:func:`plot_embedding` is the one call; ``lgekit fit --plot`` draws the same picture into the fit's
output folder (``embedding.png``).  The paper's figures are drawn by :mod:`lgekit.experiments`.
"""
import textwrap
from collections import Counter
from numbers import Integral

import numpy as np
from matplotlib.figure import Figure
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE

from ._random import check_random_state
from ._validation import Interval, Options, validate_arguments
from .datasets import as_labels
from .metrics import check_embedding

# colour_labels, dot_size and METHODS serve plot_embedding: importable from here, not part of the public surface
__all__ = ["plot_embedding", "project"]

#: the projections :func:`plot_embedding` draws
METHODS = ("pca", "tsne")

_UNLABELLED, _OTHER = "#d9d9d9", "#8c8c8c"


@validate_arguments({"method": [Options(str, METHODS)], "seed": ["random_state"]})
def project(x, method="pca", seed=0):
    """The rows of ``x`` in two dimensions, and the axis labels.

    ``"pca"``: the first two principal components (:class:`sklearn.decomposition.PCA`),
    labelled with the share of the variance each explains.  ``"tsne"``:
    :class:`sklearn.manifold.TSNE` (PCA initialisation, perplexity 30 or
    ``(n - 1) / 3`` for fewer points), whose axes have no units; its
    Barnes-Hut iterations cost :math:`O(n \\log n)` each, a thousand of them,
    where PCA is one :math:`O(n \\cdot dim^2)` decomposition: far slower on a
    graph of thousands of nodes.

    Returns
    -------
    xy : float64 ndarray (n, 2)
    axis_labels : tuple of two str
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] < 3:
        raise ValueError(f"embedding: a projection needs at least 3 rows, got {x.shape[0]}")
    seed = int(check_random_state(seed, "seed").integers(2**31 - 1))
    if method == "pca":
        pca = PCA(n_components=min(2, x.shape[1]), random_state=seed)
        xy = pca.fit_transform(x)
        if xy.shape[1] == 1:           # a one-dimensional embedding: its only axis, against zero
            xy = np.column_stack([xy[:, 0], np.zeros(len(xy))])
        share = list(pca.explained_variance_ratio_) + [0.0]
        return xy, (f"PC1 ({share[0]:.0%} of the variance)", f"PC2 ({share[1]:.0%})")
    tsne = TSNE(n_components=2, init="pca", random_state=seed, perplexity=min(30.0, (x.shape[0] - 1) / 3))
    return tsne.fit_transform(x), ("t-SNE 1", "t-SNE 2")


def colour_labels(labels, n_nodes):
    """One class per node, to colour it by: ``(classes, note)``, ``classes[i] = -1`` for no label.

    ``labels`` is any form of :func:`lgekit.datasets.as_labels` (a Graph, a
    networkx graph's label attribute, a matrix, one class per node).  A node
    with several labels (BlogCatalog, PPI) takes the one among them with the
    most members in the whole graph (of equal sizes, the smaller class
    index), so that a picture shows the large groups; ``note`` says so.
    """
    m = as_labels(labels, n_nodes).matrix
    size = np.asarray(m.sum(axis=0)).ravel()
    # the rank of each class by size (largest first, then the smaller index): a node takes its best-ranked label
    rank = np.empty(len(size), dtype=np.int64)
    rank[np.lexsort((np.arange(len(size)), -size))] = np.arange(len(size))
    classes = np.full(n_nodes, -1, dtype=np.int64)
    multi = False
    for i in range(n_nodes):
        own = m.indices[m.indptr[i]:m.indptr[i + 1]]
        if len(own):
            classes[i] = own[np.argmin(rank[own])]
            multi |= len(own) > 1
    note = ("colour: each node's most frequent label (multi-label graph: of a node's labels, the one with "
            "the most members)") if multi else "colour: the node's label"
    return classes, note


def dot_size(n_points):
    """Marker area (points squared) of a scatter of ``n_points`` dots in :func:`plot_embedding`'s 7.5 x 6.5 in.

    The area a dot may take shrinks as the points crowd the plot: a total
    ink of about 40,000 pt^2 (about a sixth of the figure), one dot's share of
    it, held between 4 pt^2 (2 pt across: BlogCatalog's 10,312 nodes) and
    60 pt^2 (about 8.7 pt across: a karate club's 34).

    Examples
    --------
    >>> dot_size(34), dot_size(1_000), dot_size(10_312)
    (60.0, 40.0, 4.0)
    """
    return float(np.clip(40_000.0 / max(int(n_points), 1), 4.0, 60.0))


@validate_arguments({"method": [Options(str, METHODS)], "seed": ["random_state"],
                     "n_colours": [Interval(Integral, 2, 20, closed="both")]})
def plot_embedding(embedding, labels=None, *, method="pca", seed=0, title=None, label_names=None, n_colours=10):
    """Draw an embedding projected to 2-D, each node a dot coloured by its label; returns the Figure.

    Parameters
    ----------
    embedding : array (n_nodes, dim), or a fitted lgekit model
        A model gives its ``embedding_`` (for a directed or bipartite graph:
        the source / left nodes' table, said in the title).
    labels : Graph, networkx graph, (n_nodes, n_classes) 0/1 matrix, one class per node, optional
        Node labels, any form of :func:`lgekit.datasets.as_labels` (a
        networkx graph gives its ``club``, ``label``, ... node attribute).  A multi-label node is coloured
        by its most frequent label (:func:`colour_labels`); the
        ``n_colours - 1`` most common of those get a colour each, the rest
        one grey ("other labels"), unlabelled nodes a light grey.  None:
        one colour.
    method : {"pca", "tsne"}, default "pca"
        See :func:`project`.
    seed : None, int or numpy.random.Generator, default 0
        t-SNE's (and PCA's solver's) seed: the same seed, the same picture.
    title : str, optional
        The first line of the title; default: what is drawn (method, number
        of nodes, dimension).
    label_names : sequence of str, optional
        Names of the classes for the legend (default: the labels' own names,
        a Graph's ``label_names`` or a networkx attribute's values, else "label 3").
    n_colours : int in [2, 20], default 10

    Returns
    -------
    matplotlib.figure.Figure
        Not attached to pyplot: ``fig.savefig("embedding.png")`` writes it,
        and nothing is left open.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 8))
    >>> fig = plot_embedding(x, np.arange(40) % 3)
    >>> fig.axes[0].get_title().splitlines()[0]
    'PCA of 40 nodes (8 dimensions)'
    """
    which = ""
    if hasattr(embedding, "embedding_"):
        if getattr(embedding, "graph_kind_", "undirected") in ("directed", "bipartite"):
            which = "; source / left table (embedding_)"
        embedding = embedding.embedding_
    x = check_embedding(embedding)
    n = x.shape[0]
    if labels is not None and label_names is None:
        label_names = as_labels(labels, n).names
    xy, (xlabel, ylabel) = project(x, method, seed)
    dot = dot_size(n)
    fig = Figure(figsize=(7.5, 6.5), layout="constrained")
    ax = fig.add_subplot()
    head = title or f"{'PCA' if method == 'pca' else 't-SNE'} of {n:,} nodes ({x.shape[1]} dimensions)"
    if labels is None:
        ax.scatter(xy[:, 0], xy[:, 1], s=dot, alpha=0.6, linewidths=0, color="C0")
        note = "no labels: one colour"
    else:
        classes, note = colour_labels(labels, n)
        counts = Counter(classes[classes >= 0].tolist())
        shown = [c for c, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n_colours - 1]]
        # tab10 without its grey (C7, the "other labels" colour), then darker tones
        cmap = [f"C{i}" for i in range(10) if i != 7] + ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173",
                                                        "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
                                                        "#e7ba52"]
        names = [str(label_names[c]) if label_names is not None and c < len(label_names) else str(c) for c in shown]
        names = [f"label {name}" if name.isdigit() else name for name in names]
        groups = [(classes == -1, _UNLABELLED, f"no label ({int(np.sum(classes == -1)):,})"),
                  (~np.isin(classes, shown) & (classes >= 0), _OTHER,
                   f"other labels ({int(np.sum(~np.isin(classes, shown) & (classes >= 0))):,})")]
        groups += [(classes == c, cmap[i], f"{name} ({counts[c]:,})") for i, (c, name) in enumerate(zip(shown, names))]
        for mask, colour, label in groups:
            if mask.any():      # drawn first: the grey groups under the coloured ones
                ax.scatter(xy[mask, 0], xy[mask, 1], s=dot, alpha=0.6, linewidths=0, color=colour, label=label)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, markerscale=max(1.0, 12 / dot) ** 0.5,
                  frameon=False)
    ax.set_title("\n".join([head] + textwrap.wrap(note + which, 90)), fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig
