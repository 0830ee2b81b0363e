"""Node ids: how lgekit keeps them exact, numbers them and finds them again.

Every layer that holds node ids (the graph, the loaders, model files) uses
these functions, so an id means the same everywhere.  The rules:

* **Exact.**  Integer ids are kept exact at any size: int64 when every id
  fits, else Python ints in an object array (NumPy would otherwise turn a
  mix of ids above and below 2**63 into float64 and merge neighbours).  Float
  ids must be whole numbers below 2**53 in magnitude (a float64 is exact
  only there).  A list mixing types (``1`` and ``"1"``), tuple ids and
  strings ending in NUL characters become object arrays: NumPy would turn
  ``1`` into ``"1"``, a tuple into a second axis, and a ``<U`` array drops
  trailing NULs, merging ``"a\\x00"`` with ``"a"``.
* **Numbered.**  By default nodes are the sorted distinct ids (numbers by
  value, names by code point); ids of mixed types keep their first-seen
  order, having no common order.
* **Found.**  A query id is compared exactly, never through a rounding cast.
* **Equal to itself.**  NaN is refused wherever ids enter (an array, a
  networkx graph, a model file): ``nan != nan``, so a node called NaN could
  be trained and saved but never found again (:func:`check_no_nan_ids`).

Examples
--------
>>> as_id_array([1, "1", (2, 3)], "ids").tolist()
[1, '1', (2, 3)]
>>> node_ids, idx = sorted_ids(as_id_array(["b", "a", "b"], "ids"))
>>> node_ids.tolist(), idx.tolist()
(['a', 'b'], [1, 0, 1])
>>> concat_ids(np.array([1, 2]), np.array(["x"])).tolist()
[1, 2, 'x']
"""
import numbers

import numpy as np

__all__ = [
    "is_integer_id", "object_array", "as_id_array", "text_array", "concat_ids", "node_id_query", "match_ids",
    "node_positions", "node_id_table", "unique_sorter", "sorted_ids", "ids_to_indices", "comparable_ids", "index_in",
    "edge_id_array", "two_sided_ids_to_indices", "two_sided_positions", "side_index", "check_no_nan_ids",
]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# a float64 holds every integer of magnitude below 2**53 exactly, and no longer all of them above
_EXACT_FLOAT = 2**53
# how a side of a bipartite graph may be named: networkx's ``bipartite`` attribute values or words
_SIDES = {"left": 0, 0: 0, "right": 1, 1: 1}
# a text id longer than this is kept in an object array: a <U array is as wide as its longest entry, for every node
_MAX_COMPACT_TEXT = 64


def is_integer_id(x):
    """An integer id (Python or NumPy int), not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def object_array(seq):
    """A 1-D object array of ``seq``'s items, filled one by one so that a tuple id stays one id."""
    arr = np.empty(len(seq), dtype=object)
    for i, x in enumerate(seq):
        arr[i] = x
    return arr


def _is_nan(x):
    """Whether ``x`` is a float NaN, or a tuple holding one (an id that is not equal to itself)."""
    if isinstance(x, tuple):
        return any(_is_nan(v) for v in x)
    return isinstance(x, (float, np.floating, complex, np.complexfloating)) and x != x


def check_no_nan_ids(ids, what):
    """``ids`` (an array) when no id is NaN; a ValueError naming ``what`` and the positions otherwise.

    A NaN is never equal to itself, so no lookup finds a node called NaN:
    networkx accepts ``G.add_node(float("nan"))``, pandas marks missing
    values so, and a model trained on such a node could be saved but never
    asked about it.

    Examples
    --------
    >>> check_no_nan_ids(np.array([1, "a"], dtype=object), "ids").tolist()
    [1, 'a']
    >>> check_no_nan_ids(object_array([1, float("nan")]), "node_ids")
    Traceback (most recent call last):
    ...
    ValueError: node_ids: node id NaN at position(s) [1]: NaN is never equal to itself, so no node called NaN could be found again; give the node a name (a str or an int)
    """
    arr = np.asarray(ids)
    if arr.dtype.kind in "fc":
        bad = np.flatnonzero(np.isnan(arr).reshape(-1))
    elif arr.dtype.kind == "O":
        bad = np.array([i for i, x in enumerate(arr.reshape(-1).tolist()) if _is_nan(x)], dtype=np.int64)
    else:
        return ids
    if len(bad):
        raise ValueError(f"{what}: node id NaN at position(s) {bad[:5].tolist()}: NaN is never equal to itself, so no "
                         "node called NaN could be found again; give the node a name (a str or an int)")
    return ids


def _ends_in_nul(x):
    return isinstance(x, (str, bytes)) and x[-1:] in ("\x00", b"\x00")


def _canonical_ints(arr):
    """Integer ids in their one representation: int64 when every id fits, else Python ints (object)."""
    values = [int(x) for x in arr.ravel().tolist()]
    if all(_INT64_MIN <= x <= _INT64_MAX for x in values):
        return np.array(values, dtype=np.int64).reshape(arr.shape)
    return object_array(values).reshape(arr.shape)


def _needs_objects(arr, items):
    """Whether NumPy's array ``arr`` of the Python ``items`` lost or changed an id (see the module notes)."""
    kind = arr.dtype.kind
    if kind in "US":
        return not all(isinstance(x, str) for x in items) or any(_ends_in_nul(x) for x in items)
    if kind in "fO":
        return any(is_integer_id(x) and abs(x) >= _EXACT_FLOAT for x in items)
    return False


def as_id_array(values, what):
    """Node ids as a NumPy array: int64, str, or objects (Python ints beyond int64, mixed or tuple ids).

    Parameters
    ----------
    values : array-like
        The ids.  An ndarray is taken as it is (its dtype already decided
        what each id is); other sequences are checked item by item.
    what : str
        How error messages name ``values``.

    Raises
    ------
    TypeError
        Boolean or complex ids.
    ValueError
        Float ids that are not whole numbers of magnitude below 2**53.
    """
    if isinstance(values, np.ndarray):
        arr = values
    else:
        seq = list(values)
        try:
            arr = np.asarray(seq)
        except (ValueError, OverflowError):  # inhomogeneous nesting (tuple ids of different lengths)
            arr = None
        if arr is None or arr.ndim != 1 or _needs_objects(arr, seq):
            arr = object_array(seq)
    return _canonical_id_dtype(arr, what)


def _canonical_id_dtype(arr, what):
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{what}: node ids must be ints, strings or other hashables, got booleans")
    if kind == "c":
        raise TypeError(f"{what}: node ids must be ints, strings or other hashables, got complex numbers")
    if kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) >= _EXACT_FLOAT)
        if np.any(bad):
            raise ValueError(f"{what}: float node ids must be whole numbers of magnitude below 2**53 (a float64 "
                             f"is exact only there; pass larger ids as Python ints), got e.g. {arr[bad][:3].tolist()}")
        return arr.astype(np.int64)
    if kind == "u":
        if arr.size and arr.max() > _INT64_MAX:
            return _canonical_ints(arr)
        return arr.astype(np.int64)
    if kind == "i":
        return arr.astype(np.int64, copy=False)
    if kind == "O" and arr.size and all(is_integer_id(x) for x in arr.ravel().tolist()):
        return _canonical_ints(arr)
    return check_no_nan_ids(arr, what)


def text_array(names):
    """Text ids as a compact ``<U`` array, or an object array when that would lose or waste something.

    Object when a name ends in a NUL character (a ``<U`` array drops it) or
    is longer than 64 characters (a ``<U`` array is as wide as its longest
    entry, for every node).
    """
    names = list(names)
    if names and (max(map(len, names)) > _MAX_COMPACT_TEXT or any(_ends_in_nul(x) for x in names)):
        return object_array(names)
    return np.array(names, dtype=str)


def concat_ids(a, b):
    """Two id arrays end to end: one dtype when they share it, else an object array (no int -> str casts).

    Used for the two sides of a bipartite graph and the two tables of a model.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == b.dtype or (a.dtype.kind == b.dtype.kind and a.dtype.kind in "iU"):
        return np.concatenate([a, b])
    return object_array(a.tolist() + b.tolist())


def node_id_query(ids):
    """Node ids to look up, as an array that keeps every id exact (see :func:`node_positions`).

    NumPy alone turns ``[1, "a"]`` into strings, ``[2**63 + 1, 5]`` into
    float64 and ``["a\\x00"]`` into ``["a"]``; a 1-D list of such ids
    becomes an object array instead.
    """
    query = np.asarray(ids)
    if query.ndim == 1 and not isinstance(ids, np.ndarray):
        flat = list(ids)
        if _needs_objects(query, flat):
            return object_array(flat)
    return query


def node_positions(ids, node_ids, sorter, what):
    """Positions of ``ids`` in ``node_ids`` (``sorter`` sorts node_ids); KeyError for unknown ids."""
    shown, pos, found = match_ids(ids, node_ids, sorter, what)
    if not np.all(found):
        raise KeyError(f"{what}: unknown node id(s) {shown[~found][:5].tolist()}")
    return pos


def _hashable(x):
    try:
        hash(x)
    except TypeError:
        return False
    return True


def match_ids(ids, node_ids, sorter, what):
    """``(ids as given, positions, found)``: where each of ``ids`` sits in ``node_ids``, elementwise.

    ``sorter`` sorts ``node_ids`` (None for object ids, looked up through a
    dict).  Positions are 0 where ``found`` is False.  Only a float query too
    large to be exact raises (a ValueError); an unknown id is just not found.
    """
    ids = np.asarray(ids)
    shown = ids
    whole = None
    if ids.dtype.kind == "f":
        # a float query is compared exactly, never through a rounding cast: whole numbers below
        # 2**53 are the integers they spell; others can only match float ids, which lgekit never keeps
        finite = np.isfinite(ids)
        whole = finite & (ids == np.round(np.where(finite, ids, 0)))
        inexact = whole & (np.abs(ids) >= _EXACT_FLOAT)
        if np.any(inexact):
            raise ValueError(f"{what}: node ids given as floats of magnitude 2**53 or more are not exact; "
                             f"pass them as Python ints, got e.g. {ids[inexact][:3].tolist()}")
        ids = np.where(whole, ids, 0).astype(np.int64)
    elif ids.dtype.kind == "u":
        if ids.size and ids.max() > _INT64_MAX:
            ids = _canonical_ints(ids)
        else:
            ids = ids.astype(np.int64)
    if node_ids.dtype.kind == "O" or ids.dtype.kind == "O" or node_ids.dtype.kind != ids.dtype.kind and not (
        node_ids.dtype.kind in "iu" and ids.dtype.kind in "iu"
    ):
        lookup = {key: i for i, key in enumerate(node_ids.tolist())}
        flat = ids.ravel().tolist()
        try:
            pos = np.fromiter((lookup.get(k, -1) for k in flat), dtype=np.int64, count=len(flat))
        except TypeError:  # an unhashable query is no node id
            pos = np.fromiter((lookup.get(k, -1) if _hashable(k) else -1 for k in flat), dtype=np.int64,
                              count=len(flat))
        pos = pos.reshape(ids.shape)
        found = pos >= 0
        pos = np.where(found, pos, 0)
    elif len(node_ids):
        pos = np.searchsorted(node_ids, ids, sorter=sorter)
        pos = sorter[np.minimum(pos, len(node_ids) - 1)]
        found = node_ids[pos] == ids
    else:
        pos, found = np.zeros(ids.shape, np.int64), np.zeros(ids.shape, bool)
    if whole is not None:
        found = found & whole
    return shown, pos.astype(np.int64, copy=False), np.asarray(found, dtype=bool)


def unique_sorter(ids, message):
    """The stable argsort of ``ids`` (None for object ids); ValueError(message) if an id repeats."""
    if ids.dtype.kind == "O":
        if len(set(ids.tolist())) != len(ids):
            raise ValueError(message)
        return None
    sorter = np.argsort(ids, kind="stable")
    if len(ids) > 1 and np.any(ids[sorter[1:]] == ids[sorter[:-1]]):
        dup = ids[sorter[1:]][ids[sorter[1:]] == ids[sorter[:-1]]][:5].tolist()
        raise ValueError(f"{message}; duplicated: {dup}")
    return sorter


def node_id_table(node_ids, n, n_left=None):
    """``(ids, sorter)`` of a graph's ``n`` nodes: their ids and the sorter :func:`node_positions` looks them up by.

    ``node_ids`` (default ``0..n-1``) as :func:`as_id_array` reads them, a
    copy (a graph makes its ids read-only, never the caller's array); each id
    unique (a ValueError names some repeated).  A bipartite graph (``n_left``
    left nodes) has two id namespaces: a sorter per side, each side's ids
    unique.
    """
    if node_ids is None:
        ids = np.arange(n, dtype=np.int64)
    else:
        ids = as_id_array(node_ids, "node_ids")
        if ids is node_ids:
            ids = ids.copy()  # the graph makes its ids read-only: never the caller's array
        if ids.shape != (n,):
            raise ValueError(f"node_ids must have one id per node ({n}), got shape {ids.shape}")
    if n_left is None:
        sorter = unique_sorter(ids, "node_ids must be unique")
    else:
        # two id namespaces: a sorter per side, each side's ids unique
        sorter = (unique_sorter(ids[:n_left], "node_ids must be unique within the left side"),
                  unique_sorter(ids[n_left:], "node_ids must be unique within the right side"))
    return ids, sorter


def _unique_inverse(values):
    """``np.unique(values, return_inverse=True)`` for a 1-D array, without its cost.

    NumPy 2.x's ``unique`` with ``return_inverse`` takes seconds on the
    millions of endpoints of a 500k-node edge list.  Integer ids that span a
    range not much wider than their count (SNAP's, ASU's) are counted in a
    table over that range, in linear time; others take one argsort and a
    cumulative sum.  Both give ``np.unique``'s result exactly.
    """
    if values.dtype.kind in "iu" and len(values):
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 4 * len(values) + 1024:
            offset = values - lo if lo else values
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[offset] = True
            distinct = np.flatnonzero(present)
            rank = np.empty(len(present), dtype=np.int64)
            rank[distinct] = np.arange(len(distinct), dtype=np.int64)
            return (distinct + lo).astype(values.dtype, copy=False), rank[offset]
    order = np.argsort(values)  # ties may come in any order: the inverse is the same
    ordered = values[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def sorted_ids(values):
    """Distinct ids of ``values`` and the index of each value among them: ``(node_ids, idx)``.

    The distinct ids are sorted when they share an order (numbers, or text);
    ids of mixed types (objects) keep their first-seen order.  ``idx`` has
    ``values``' shape.
    """
    flat = values.ravel()
    if flat.dtype.kind != "O":
        node_ids, idx = _unique_inverse(flat)
        return node_ids, idx.reshape(values.shape)
    order = dict.fromkeys(flat.tolist())
    keys = list(order)
    if keys and (all(is_integer_id(k) for k in keys) or all(isinstance(k, str) for k in keys)):
        keys.sort()
    lookup = {k: i for i, k in enumerate(keys)}
    idx = np.fromiter((lookup[k] for k in flat.tolist()), dtype=np.int64, count=len(flat))
    return object_array(keys), idx.reshape(values.shape)


def ids_to_indices(arr, nodes, nodes_name, what):
    """Node ids and the index of each entry of ``arr`` (an array of endpoint ids, any shape).

    ``nodes`` as in :meth:`lgekit.Graph.from_edges`: None (the distinct ids,
    sorted as :func:`sorted_ids` sorts them), an int ``n`` (``arr`` holds
    indices ``0..n-1``; the ids returned are None) or the sequence of all
    ids.  Returns ``(node_ids, idx, n)``.
    """
    m = arr.shape[0]
    if nodes is not None and isinstance(nodes, numbers.Integral):
        n = int(nodes)
        if n < 0:
            raise ValueError(f"{nodes_name} must be a non-negative int or a sequence of ids, got {n}")
        idx = as_id_array(arr, what)
        if idx.dtype.kind == "O" and m and all(is_integer_id(x) for x in idx.ravel().tolist()):
            big = [x for x in idx.ravel().tolist() if not 0 <= x < n][:1]
            raise ValueError(f"edge endpoints must lie in [0, {n}) when {nodes_name}={n}; got {big[0]}")
        if idx.dtype.kind not in "iu":
            raise ValueError(f"with {nodes_name}={n} the edges must be integer indices, got dtype {arr.dtype}")
        idx = idx.astype(np.int64, copy=False)
        if m and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"edge endpoints must lie in [0, {n}) when {nodes_name}={n}; got range "
                             f"[{idx.min()}, {idx.max()}]")
        return None, idx, n
    ids = as_id_array(arr, what)
    if nodes is None:
        node_ids, idx = sorted_ids(ids)
    else:
        node_ids = as_id_array(nodes, nodes_name)
        if node_ids.ndim != 1:
            raise ValueError(f"{nodes_name} must be 1-D, got shape {node_ids.shape}")
        sorter = np.argsort(node_ids, kind="stable") if node_ids.dtype.kind != "O" else None
        idx = node_positions(ids.ravel(), node_ids, sorter, what).reshape(arr.shape)
    return node_ids, idx.astype(np.int64, copy=False), len(node_ids)


def comparable_ids(a, b):
    """Two id arrays in one comparable dtype: objects (Python values) unless both are integers."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return a, b
    return a.astype(object), b.astype(object)


def index_in(ids, order, values):
    """Position in ``ids`` of each of ``values`` (``order`` sorts ``ids``); -1 where absent.

    Both arrays of one comparable dtype (see :func:`comparable_ids`).
    """
    values = np.asarray(values)
    n = len(ids)
    if not n:
        return np.full(values.shape, -1, dtype=np.int64)
    ids_sorted = ids[order]
    lo, hi = ids_sorted[0], ids_sorted[-1]
    if ids.dtype.kind in "iu" and values.dtype.kind in "iu" and hi - lo == n - 1:
        # distinct consecutive integers (0..n-1, 1..n, ...): no search needed
        pos = values.astype(np.int64, copy=False) - int(lo)
        inside = (pos >= 0) & (pos < n)
        return np.where(inside, order[np.where(inside, pos, 0)], -1)
    pos = np.searchsorted(ids_sorted, values)
    pos = np.minimum(pos, n - 1)
    found = ids_sorted[pos] == values
    return np.where(found, order[pos], -1)


def edge_id_array(edges):
    """The endpoints of an edge list as an ``(m, 2)`` id array, and its weight column (or None).

    ``edges`` is an ``(m, 2)`` or ``(m, 3)`` array, or an iterable of pairs
    or triples.  The ids keep the rules of :func:`as_id_array` (one float
    weight must not turn the ids into float64, and so on).

    Raises
    ------
    ValueError
        Ragged rows, entries that are not pairs or triples.
    """
    if isinstance(edges, np.ndarray):
        if edges.ndim != 2 or edges.shape[1] not in (2, 3):
            raise ValueError(f"edges must have shape (m, 2) or (m, 3) with weights, got {edges.shape}")
        return edges[:, :2], (edges[:, 2] if edges.shape[1] == 3 else None)
    rows = list(edges)
    try:
        lengths = {len(r) for r in rows} if rows else {2}
    except TypeError:
        bad = next(r for r in rows if not hasattr(r, "__len__"))
        raise ValueError(f"edges must be pairs (u, v) or triples (u, v, weight), got an entry {bad!r}") from None
    if len(lengths) > 1:
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise ValueError(f"edges are ragged: row 0 has {len(rows[0])} entries, row {bad} has {len(rows[bad])}")
    k = lengths.pop()
    if k not in (2, 3):
        raise ValueError(f"edges must have shape (m, 2) or (m, 3) with weights, got {(len(rows), k)}")
    pairs = [(r[0], r[1]) for r in rows]
    weights = [r[2] for r in rows] if k == 3 else None
    try:
        arr = np.asarray(pairs) if pairs else np.empty((0, 2), dtype=np.int64)
    except (ValueError, OverflowError):  # inhomogeneous nesting, e.g. tuple ids of different lengths
        arr = None
    if arr is None or arr.ndim != 2 or _needs_objects(arr, [x for p in pairs for x in p]):
        arr = np.empty((len(pairs), 2), dtype=object)
        for i, (u, v) in enumerate(pairs):
            arr[i, 0] = u
            arr[i, 1] = v
    return arr, (None if weights is None else np.asarray(weights, dtype=object))


# ---------------------------------------------------------------------- two namespaces (bipartite graphs)
def side_index(side):
    """0 (left) or 1 (right) for ``side`` in {"left", "right", 0, 1} (0 and 1: networkx's bipartite values)."""
    try:
        return _SIDES[side]
    except (KeyError, TypeError):
        raise ValueError(f"side must be 'left', 'right', 0 or 1 (networkx's bipartite attribute), "
                         f"got {side!r}") from None


def two_sided_ids_to_indices(arr, nodes):
    """:func:`ids_to_indices` for the ``(m, 2)`` (left id, right id) rows of a bipartite edge list.

    The two columns are two id namespaces, numbered separately (left nodes
    first): left id 3 and right id 3 are two nodes.  ``nodes`` is None or a
    pair ``(left nodes, right nodes)``, each as :func:`ids_to_indices` takes
    it.  Returns ``(node_ids, idx, n_nodes, n_left)``.
    """
    if nodes is None:
        nodes = (None, None)
    elif not (isinstance(nodes, (tuple, list)) and len(nodes) == 2 and not isinstance(nodes[0], (str, bytes))):
        raise ValueError("with bipartite=True, nodes must be a pair (left nodes, right nodes), each an int or "
                         f"a sequence of ids, got {type(nodes).__name__}")
    sides = []
    for j, (what, given) in enumerate((("left ids", nodes[0]), ("right ids", nodes[1]))):
        column = arr[:, j]
        # a column of one type (names beside integer ids on the other side) is read as that type, so its ids sort
        column = as_id_array(column.tolist(), what) if column.dtype.kind == "O" else column
        node_ids, idx, n = ids_to_indices(column, given, f"nodes[{j}]", what)
        sides.append((np.arange(n) if node_ids is None else node_ids, idx, n))
    (left, li, n_left), (right, ri, n_right) = sides
    idx = np.column_stack([li, n_left + ri]).reshape(-1, 2)
    return concat_ids(left, right), idx, n_left + n_right, n_left


def two_sided_positions(query, node_ids, sorters, n_left, side, what="index_of"):
    """Positions of ``query`` ids among a bipartite graph's nodes (left ids first, then right ids).

    ``sorters`` sort each side's ids (:func:`unique_sorter`).  With ``side``
    the ids are looked up on that side only; without, each must be on
    exactly one side.

    Raises
    ------
    KeyError
        An id that is not a node (of that side).
    ValueError
        Without ``side``, an id that names a left and a right node.
    """
    sides = ((node_ids[:n_left], sorters[0], 0), (node_ids[n_left:], sorters[1], n_left))
    if side is not None:
        ids, sorter, offset = sides[side_index(side)]
        return offset + node_positions(query, ids, sorter, f"{what}(side={side!r})")
    (shown, pl, fl), (_, pr, fr) = (match_ids(query, ids, sorter, what) for ids, sorter, _ in sides)
    if np.any(fl & fr):
        raise ValueError(f"{what}: node id(s) {shown[fl & fr][:5].tolist()} name a left node and a right "
                         "node of this bipartite graph; pass side='left' or side='right'")
    if not np.all(fl | fr):
        raise KeyError(f"{what}: unknown node id(s) {shown[~(fl | fr)][:5].tolist()}")
    return np.where(fl, pl, n_left + pr)
