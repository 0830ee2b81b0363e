"""Node labels as one thing: a 0/1 node-by-class membership matrix (CSR, int8), multi-label allowed.

Every entry point that takes labels (the :class:`~lgekit.Graph`
constructors, the loaders' label files, :func:`lgekit.metrics.node_classification_f1`)
builds that matrix here, under one rule for values: an entry is 0 or 1
(booleans allowed); a stored 0 is no membership; a membership stored twice
is one membership; anything else (-1, 5, 0.5, NaN) is refused rather than
guessed at.

Examples
--------
>>> membership_from_pairs([0, 2, 2], [1, 0, 0], (3, 2)).toarray().tolist()
[[0, 1], [0, 0], [1, 0]]
>>> mat, names = label_matrix({"a": "x", "c": ["x", "y"]}, None, np.array(["a", "b", "c"]), 3)
>>> mat.toarray().tolist(), names.tolist()
([[1, 0], [0, 0], [1, 1]], ['x', 'y'])
"""
import numbers

import numpy as np
import scipy.sparse as sp

from .ids import comparable_ids, index_in, object_array

__all__ = ["check_real", "membership_from_pairs", "membership_matrix", "label_matrix", "membership_from_ids",
           "node_label_matrix", "graph_labels"]


def check_real(dtype, what):
    """Refuse complex and non-numeric matrices (their imaginary parts or text would be dropped silently)."""
    if np.dtype(dtype).kind not in "biuf":
        raise TypeError(f"{what} must hold real numbers (bool, int or float), got dtype {np.dtype(dtype)}")


def membership_from_pairs(rows, cols, shape):
    """The 0/1 CSR (int8) matrix with a 1 at each ``(rows[i], cols[i])``; a pair given twice is one membership."""
    rows = np.asarray(rows, dtype=np.int64).ravel()
    cols = np.asarray(cols, dtype=np.int64).ravel()
    mat = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=shape)
    mat.sum_duplicates()
    mat.data[:] = 1  # a membership stored twice was summed to 2
    mat.sort_indices()
    return mat


def membership_matrix(labels, n, what="labels"):
    """The membership matrix of a sparse or dense ``(n, k)`` 0/1 matrix (a new matrix: the input is not written).

    Raises
    ------
    TypeError
        A complex or non-numeric matrix.
    ValueError
        Not one row per node, or a value other than 0 and 1 (named with its node index and class).
    """
    if not sp.issparse(labels):
        labels = np.asarray(labels)
    check_real(labels.dtype, what)
    coo = sp.coo_matrix(labels)
    if coo.shape[0] != n:
        raise ValueError(f"{what} must have one row per node ({n}), got {coo.shape[0]}")
    data = coo.data
    bad = ~((data == 0) | (data == 1))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} must hold 0/1 memberships (1: member, 0 or absent: not), got {data[i].item()!r} "
                         f"at node index {int(coo.row[i])}, class {int(coo.col[i])}")
    keep = data == 1
    return membership_from_pairs(coo.row[keep], coo.col[keep], coo.shape)


def graph_labels(labels, label_names, n):
    """``(matrix, names)`` of the labels a graph of ``n`` nodes is given, or ``(None, None)`` without labels.

    ``labels`` is the scipy.sparse ``(n, k)`` 0/1 matrix :class:`lgekit.Graph`
    takes (read by :func:`membership_matrix` into a new matrix, so that the
    graph may freeze it), ``label_names`` its ``k`` class names (default
    ``0..k-1``), refused without ``labels``.
    """
    if labels is None:
        if label_names is not None:
            raise ValueError("label_names given without labels")
        return None, None
    if not sp.issparse(labels):
        raise TypeError(f"labels must be a scipy.sparse (n_nodes, n_classes) matrix here, got {type(labels).__name__}; "
                        "Graph.from_edges accepts more forms")
    lab = membership_matrix(labels, n)  # a new matrix: never writes into (read-only) input arrays
    names = np.arange(lab.shape[1]) if label_names is None else np.asarray(label_names)
    if names.shape != (lab.shape[1],):
        raise ValueError(f"label_names must have one name per class ({lab.shape[1]}), got shape {names.shape}")
    return lab, names


def _class_names(values):
    """Sorted distinct class names of ``values`` and each value's column."""
    if any(isinstance(v, str) and v.endswith("\x00") for v in values):
        # a <U array would drop the NUL and merge "c\x00" with "c": exact Python strings instead
        names = sorted(set(values), key=str)
        lookup = {name: j for j, name in enumerate(names)}
        return object_array(names), [lookup[v] for v in values]
    return np.unique(np.asarray(values), return_inverse=True) if values else (np.empty(0), [])


def label_matrix(labels, label_names, node_ids, n):
    """Any accepted form of node labels as ``(membership matrix, class names)``, or ``(None, None)``.

    Parameters
    ----------
    labels : None, matrix, sequence or mapping
        A sparse or dense ``(n, k)`` 0/1 matrix in node order; a 1-D
        sequence of one class per node (``None``: unlabeled); or a mapping
        ``{node id: class or iterable of classes}``.
    label_names : array-like or None
        The class names; a class not among them is refused.  Default: the
        matrix's column numbers, or the sorted distinct classes.
    node_ids : array or None
        The graph's node ids (None: ``0..n-1``), to place a mapping's keys.
        An id that names two nodes (a left and a right node of a bipartite
        graph) cannot be a mapping's key.
    n : int
        Number of nodes.
    """
    if labels is None:
        if label_names is not None:
            raise ValueError("label_names given without labels; pass labels too, or drop label_names")
        return None, None
    if sp.issparse(labels) or (isinstance(labels, np.ndarray) and labels.ndim == 2):
        return membership_matrix(labels, n), label_names
    if isinstance(labels, dict):
        shared = set()
        if node_ids is None:
            node_index = {i: i for i in range(n)}
        else:
            node_index = {}
            for i, key in enumerate(np.asarray(node_ids).tolist()):
                if node_index.setdefault(key, i) != i:
                    shared.add(key)
        rows, values = [], []
        for key, value in labels.items():
            if key not in node_index:
                raise ValueError(f"labels given for unknown node id {key!r}")
            if key in shared:
                raise ValueError(f"labels given for node id {key!r}, which names a left and a right node of the "
                                 "bipartite graph; give labels as a matrix or a per-node sequence in node order "
                                 "(left nodes, then right nodes)")
            items = [value] if isinstance(value, (str, bytes, numbers.Number)) or value is None else list(value)
            for item in items:
                if item is not None:
                    rows.append(node_index[key])
                    values.append(item)
    else:
        seq = list(labels)
        if len(seq) != n:
            raise ValueError(f"a per-node label sequence must have one entry per node ({n}), got {len(seq)}")
        rows = [i for i, value in enumerate(seq) if value is not None]
        values = [seq[i] for i in rows]
    if label_names is not None:
        names = np.asarray(label_names)
        lookup = {key: j for j, key in enumerate(names.tolist())}
        try:
            cols = [lookup[v] for v in values]
        except KeyError as exc:
            raise ValueError(f"label {exc.args[0]!r} is not among label_names") from None
    else:
        names, cols = _class_names(values)
    return membership_from_pairs(rows, cols, (n, len(names))), names


def node_label_matrix(labels, n=None, what="labels"):
    """A label matrix or one class per node, in node order, as ``(membership matrix, class names)``.

    The reading of labels given as data (:func:`lgekit.datasets.as_labels`
    reads a graph's labels and calls this for the other forms):

    * a scipy sparse or dense 2-D ``(n, n_classes)`` 0/1 matrix: its columns
      are the classes (names None: the column numbers);
    * a 1-D integer array (or list of ints): one class per node, a negative
      class for an unlabelled node (names ``0..max``);
    * a 1-D sequence of class names (strings, ``None`` for an unlabelled
      node): names the sorted distinct classes, as :func:`label_matrix` reads them.

    ``n`` (None: the data's own length) is the number of rows it must have.

    Raises
    ------
    TypeError
        A scalar, a string, a mapping.
    ValueError
        Another number of rows, another shape, a 1-D array of floats or bools
        (a class is an integer or a name, not a measurement).
    """
    if isinstance(labels, (str, bytes, dict)) or np.isscalar(labels):
        raise TypeError(f"{what} must be a (n_nodes, n_classes) 0/1 matrix or a per-node class sequence, got "
                        f"{type(labels).__name__}")
    if not sp.issparse(labels):
        arr = _numeric_array(labels)
        if arr is None:                      # class names, or None for an unlabelled node
            seq = list(labels)
            _check_rows(len(seq), n, what)
            return label_matrix(seq, None, None, len(seq))
        if arr.ndim == 1:
            if arr.dtype.kind not in "iu":
                raise ValueError(f"a 1-D {what} array must hold integer classes (negative: unlabelled) or class "
                                 f"names, got dtype {arr.dtype}")
            _check_rows(len(arr), n, what)
            rows = np.flatnonzero(arr >= 0)
            cols = arr[rows].astype(np.int64)
            k = int(cols.max()) + 1 if len(cols) else 0
            return membership_from_pairs(rows, cols, (len(arr), k)), np.arange(k)
        if arr.ndim != 2:
            raise ValueError(f"{what} must be a (n_nodes, n_classes) 0/1 matrix or a 1-D per-node class array, "
                             f"got shape {arr.shape}")
        labels = arr
    _check_rows(labels.shape[0], n, what)
    return membership_matrix(labels, labels.shape[0], what), None


def _check_rows(rows, n, what):
    if n is not None and rows != n:
        raise ValueError(f"{what} has {rows} rows (one per node) but there are {n} nodes")


def _numeric_array(values):
    """``values`` as a numeric array when NumPy reads it as one, else None (names, ragged rows, None entries)."""
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        return None
    return arr if arr.dtype.kind in "biuf" else None


def membership_from_ids(node_ids, members, classes, class_names, *, fail):
    """The membership matrix from ``(member id, class)`` pairs, as label files give them.

    ``class_names`` fixes the columns (None: the sorted distinct classes).
    ``fail(row, message)`` reports the first pair naming an unknown node or
    class (it must raise; the loaders' versions name the file and line).
    Returns ``(matrix, class names)``.
    """
    node_ids, members = comparable_ids(node_ids, members)
    rows = index_in(node_ids, np.argsort(node_ids, kind="stable"), members)
    if np.any(rows < 0):
        r = int(np.flatnonzero(rows < 0)[0])
        fail(r, f"label given for node {_py(members[r])!r}, which is not a node of the graph")
    if class_names is None:
        class_names, cols = np.unique(classes, return_inverse=True)
    else:
        cols = index_in(class_names, np.argsort(class_names, kind="stable"), classes)
        if np.any(cols < 0):
            r = int(np.flatnonzero(cols < 0)[0])
            fail(r, f"class {_py(classes[r])!r} is not among the listed classes")
    return membership_from_pairs(rows, cols, (len(node_ids), len(class_names))), class_names


def _py(value):
    """A NumPy scalar as the plain Python value (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value
