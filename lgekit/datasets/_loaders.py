"""Readers for the graph file formats lgekit knows, with errors that name the file and the line.

Formats
-------
edge list
    One edge a line: ``u v`` or ``u v weight``; integer node ids; fields
    separated by whitespace, or by one delimiter (``,`` ``;`` ``|``, sniffed
    from the first data line or given) with optional spaces around it.  Text
    from ``#`` or ``%`` to the end of a line is a comment; blank lines are
    skipped.  A ``.gz`` file (or any file starting with the gzip magic bytes)
    is decompressed first.  This covers SNAP edge lists, the ASU CSV files and
    most ``.edgelist`` files.
label file
    ``node label [label ...]`` a line (DeepWalk's and SNAP's ``node label``
    convention; several lines per node are fine): an integer node id, then
    one or more class names (integers if every class token is one, strings
    otherwise).
.mat
    MATLAB v5/v7 file with a sparse (or dense) adjacency ``network`` and a
    node-by-class ``group`` matrix: the DeepWalk / node2vec convention of
    ``blogcatalog.mat`` and ``Homo_sapiens.mat``.
ASU folder
    ``nodes.csv``, ``edges.csv``, ``groups.csv``, ``group-edges.csv``
    (BlogCatalog3, Flickr, YouTube from the ASU Social Computing Data
    Repository), comma or whitespace separated, 1-based ids.

Speed: a text table is parsed by :func:`numpy.fromstring` after a vectorised
check that every data line has the same number of fields; that fast path is
an optimisation only.  Whenever it balks, a plain line-by-line parser reads
the file again and either returns the same arrays or raises a
:class:`DataFormatError` naming the file, the line and what was expected.
"""
import gzip
import logging
import re
import warnings
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..graph import Graph

__all__ = [
    "DataFormatError",
    "read_edge_list",
    "read_id_list",
    "read_label_file",
    "read_mat",
    "load_edge_list",
    "load_mat",
    "load_asu_folder",
    "load_email_eu_core",
]

logger = logging.getLogger(__name__)

COMMENT_CHARS = ("#", "%")
_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min
_WHITESPACE_DELIMITERS = (None, " ", "\t", "whitespace")


class DataFormatError(ValueError):
    """A data file is malformed.  The message names the file, the line (when known) and what was expected.

    Attributes
    ----------
    path : pathlib.Path or None
    line : int or None
        1-based line number in the (decompressed) file.
    """

    def __init__(self, message, *, path=None, line=None):
        self.path = None if path is None else Path(path)
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}, line {line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


# ---------------------------------------------------------------------- raw bytes
def read_bytes(path):
    """The bytes of ``path``, gunzipped when it is a gzip file (by suffix or magic number)."""
    path = Path(path)
    if path.is_dir():
        raise DataFormatError("is a folder, expected a file", path=path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    if raw[:2] == b"\x1f\x8b" or path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataFormatError(
                f"corrupt or truncated gzip file ({exc}); download it again, or decompress it by hand to see what is wrong",
                path=path,
            ) from None
    return raw


def check_delimiter(delimiter):
    """Normalise ``delimiter``: None for runs of whitespace, else one non-numeric character."""
    if delimiter in _WHITESPACE_DELIMITERS:
        return None
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter.isalnum() or delimiter in "+-.\n\r#%":
        raise ValueError(
            f"delimiter must be None (sniff), 'whitespace', ' ', '\\t' or one punctuation character such as ',' or ';', "
            f"got {delimiter!r}"
        )
    return delimiter


def _strip_comment(line):
    for c in COMMENT_CHARS:
        cut = line.find(c)
        if cut >= 0:
            line = line[:cut]
    return line


def sniff_delimiter(raw):
    """The delimiter of the first data line: ',' ';' or '|' if it holds one, else None (whitespace)."""
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        body = _strip_comment(raw[start:end].decode("latin-1")).strip()
        if body:
            for d in (",", ";", "|"):
                if d in body:
                    return d
            return None
        start = end + 1
    return None


def _without_comments(raw):
    """``raw`` with comments blanked out (line count preserved)."""
    if b"#" not in raw and b"%" not in raw:
        return raw
    # common case (SNAP): a block of comment lines at the top, none after
    pos = 0
    while pos < len(raw) and raw[pos:pos + 1] in (b"#", b"%"):
        nl = raw.find(b"\n", pos)
        if nl < 0:
            return b"\n" * raw.count(b"\n")
        pos = nl + 1
    rest = raw[pos:]
    if b"#" not in rest and b"%" not in rest:
        return b"\n" * raw[:pos].count(b"\n") + rest
    lines = raw.split(b"\n")
    out = []
    for line in lines:
        for c in (b"#", b"%"):
            cut = line.find(c)
            if cut >= 0:
                line = line[:cut]
        out.append(line)
    return b"\n".join(out)


# ---------------------------------------------------------------------- numeric tables
def _describe_fields(allowed, int_cols, delimiter, what):
    sep = "whitespace" if delimiter is None else repr(delimiter)
    counts = " or ".join(str(k) for k in allowed)
    return f"{counts} {sep}-separated field(s) per line ({what}); the first {int_cols} must be integers"


def _fast_table(raw, allowed, int_cols, delimiter):
    """Vectorised parse; returns (values (r, k) array, k) or None when anything looks off."""
    body = _without_comments(raw)
    c = np.frombuffer(body, dtype=np.uint8)
    if c.size == 0:
        return None
    space = (c == 32) | ((c >= 9) & (c <= 13))
    d = None if delimiter is None else ord(delimiter)
    if d is not None:
        is_delim = c == d
        space_or_delim = space | is_delim
    else:
        space_or_delim = space
    start = ~space_or_delim
    start[1:] &= space_or_delim[:-1]
    starts = np.flatnonzero(start)
    if starts.size == 0:
        return None
    newlines = np.flatnonzero(c == 10)
    line_of_start = np.searchsorted(newlines, starts)
    n_lines = len(newlines) + 1
    ntok = np.bincount(line_of_start, minlength=n_lines)
    nonblank = ntok > 0
    k = int(ntok[line_of_start[0]])
    if k not in allowed or np.any(ntok[nonblank] != k):
        return None
    if d is not None:
        ndel = np.bincount(np.searchsorted(newlines, np.flatnonzero(is_delim)), minlength=n_lines)
        if np.any(ndel[nonblank] != k - 1) or np.any(ndel[~nonblank] != 0):
            return None
        body = body.replace(delimiter.encode(), b" ")
    dtype = np.int64 if k == int_cols else np.float64
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            values = np.fromstring(body, dtype=dtype, sep=" ")
    except (ValueError, DeprecationWarning):
        return None
    if values.size != starts.size:
        return None
    values = values.reshape(-1, k)
    if dtype == np.int64:
        if values.size and (values.max() == _INT64_MAX or values.min() == _INT64_MIN):
            return None  # fromstring saturates on overflow; let the slow path say where
    else:
        ids = values[:, :int_cols]
        if not np.all(np.isfinite(ids)) or np.any(ids != np.round(ids)) or np.any(np.abs(ids) >= 2.0**53):
            return None
    return values, k


def _slow_table(path, raw, allowed, int_cols, delimiter, what):
    """Line-by-line parse with precise errors; returns (values (r, k), k, line_numbers)."""
    describe = _describe_fields(allowed, int_cols, delimiter, what)
    text = raw.decode("utf-8", errors="replace")
    rows = []
    lines_of_rows = []
    k = None
    first_line = None
    for lineno, line in enumerate(text.split("\n"), start=1):
        body = _strip_comment(line).strip()
        if not body:
            continue
        fields = body.split() if delimiter is None else [f.strip() for f in body.split(delimiter)]
        shown = line.strip()[:80]
        if k is None:
            if len(fields) not in allowed:
                raise DataFormatError(f"expected {describe}; found {len(fields)}: {shown!r}", path=path, line=lineno)
            k, first_line = len(fields), lineno
        elif len(fields) != k:
            raise DataFormatError(
                f"ragged rows: expected {k} field(s) like the first data line (line {first_line}), "
                f"found {len(fields)}: {shown!r}",
                path=path, line=lineno,
            )
        row = []
        for j, field in enumerate(fields):
            if j < int_cols:
                if not _INT_RE.match(field):
                    kind = "empty" if field == "" else f"{field!r} is not an integer"
                    raise DataFormatError(
                        f"field {j + 1} is {kind}; expected {describe}", path=path, line=lineno
                    )
                value = int(field)
                if not _INT64_MIN < value < _INT64_MAX:
                    raise DataFormatError(f"field {j + 1} ({field}) does not fit a 64-bit integer", path=path, line=lineno)
            else:
                try:
                    value = float(field)
                except ValueError:
                    raise DataFormatError(
                        f"field {j + 1} is {field!r}, expected a number (edge weight); {describe}", path=path, line=lineno
                    ) from None
            row.append(value)
        rows.append(row)
        lines_of_rows.append(lineno)
    if k is None:
        raise DataFormatError(f"no data: the file is empty or holds only comments; expected {describe}", path=path)
    dtype = np.int64 if k == int_cols else np.float64
    return np.array(rows, dtype=dtype).reshape(-1, k), k, np.asarray(lines_of_rows, dtype=np.int64)


def data_line_numbers(raw):
    """1-based line number of every data (non-blank, non-comment) line."""
    out = []
    for lineno, line in enumerate(raw.decode("utf-8", errors="replace").split("\n"), start=1):
        if _strip_comment(line).strip():
            out.append(lineno)
    return np.asarray(out, dtype=np.int64)


class _Table:
    """A parsed numeric table and how to find the line of a row again."""

    __slots__ = ("path", "raw", "values", "k", "_lines")

    def __init__(self, path, raw, values, k, lines=None):
        self.path, self.raw, self.values, self.k, self._lines = path, raw, values, k, lines

    def line_of(self, row):
        if self._lines is None:
            self._lines = data_line_numbers(self.raw)
        return int(self._lines[row])

    def fail(self, row, message):
        raise DataFormatError(message, path=self.path, line=self.line_of(row))


def read_table(path, *, allowed=(2,), int_cols=2, delimiter=None, what="values", raw=None):
    """Parse a numeric text table; see the module docstring for the accepted syntax."""
    path = Path(path)
    if raw is None:
        raw = read_bytes(path)
    delimiter = sniff_delimiter(raw) if delimiter is None else check_delimiter(delimiter)
    fast = _fast_table(raw, allowed, int_cols, delimiter)
    if fast is not None:
        return _Table(path, raw, fast[0], fast[1])
    values, k, lines = _slow_table(path, raw, allowed, int_cols, delimiter, what)
    return _Table(path, raw, values, k, lines)


def read_edge_list(path, *, delimiter=None):
    """Read an edge list file.

    Parameters
    ----------
    path : str or pathlib.Path
        Text file (``.gz`` allowed), one ``u v [weight]`` a line.
    delimiter : str, optional
        Field separator; sniffed from the first data line by default.

    Returns
    -------
    edges : ndarray of shape (m, 2), int64
        Node ids as written.
    weights : ndarray of shape (m,), float64, or None
        The third column when present; finite and positive.

    Raises
    ------
    DataFormatError
        With the file and the line: empty file, ragged rows, a non-integer id,
        a non-numeric, non-finite or non-positive weight.
    """
    edges, weights, _ = _read_edges(path, delimiter=delimiter)
    return edges, weights


def _read_edges(path, *, delimiter=None):
    """read_edge_list, plus the parsed table (to find the line of a row in later error messages)."""
    table = read_table(path, allowed=(2, 3), int_cols=2, delimiter=delimiter,
                       what="node ids u v and an optional weight")
    values = table.values
    edges = values[:, :2].astype(np.int64, copy=False)
    weights = None
    if table.k == 3:
        weights = np.ascontiguousarray(values[:, 2])
        bad = ~np.isfinite(weights) | (weights <= 0)
        if np.any(bad):
            r = int(np.flatnonzero(bad)[0])
            table.fail(r, f"edge ({edges[r, 0]}, {edges[r, 1]}) has weight {float(weights[r])!r}; weights must be finite and positive")
    return edges, weights, table


def read_id_list(path, *, delimiter=None, what="node ids"):
    """Read a one-column file of unique integer ids (ASU ``nodes.csv`` / ``groups.csv``)."""
    table = read_table(path, allowed=(1,), int_cols=1, delimiter=delimiter, what=f"one integer a line: {what}")
    ids = table.values[:, 0].astype(np.int64, copy=False)
    order = np.argsort(ids, kind="stable")
    dup = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if dup.size:
        r = int(order[dup[0] + 1])
        table.fail(r, f"{what[:-1] if what.endswith('s') else what} {ids[r]} is listed twice; ids must be unique")
    return ids, table


def read_label_file(path, *, delimiter=None):
    """Read ``node label [label ...]`` lines.

    Returns
    -------
    nodes : ndarray of int64, one entry per (node, label) membership
    labels : ndarray (int64 when every label token is an integer, else str)
    lines : ndarray of int64, the line of each membership
    """
    path = Path(path)
    raw = read_bytes(path)
    delimiter = sniff_delimiter(raw) if delimiter is None else check_delimiter(delimiter)
    # fast path: exactly two integer columns (SNAP, ASU group-edges.csv)
    fast = _fast_table(raw, (2,), 2, delimiter)
    if fast is not None:
        values = fast[0]
        return values[:, 0].copy(), values[:, 1].copy(), None
    sep = "whitespace" if delimiter is None else repr(delimiter)
    nodes, labels, lines = [], [], []
    text = raw.decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.split("\n"), start=1):
        body = _strip_comment(line).strip()
        if not body:
            continue
        fields = body.split() if delimiter is None else [f.strip() for f in body.split(delimiter)]
        if len(fields) < 2 or any(f == "" for f in fields):
            raise DataFormatError(
                f"expected {sep}-separated 'node label [label ...]' (an integer node id and at least one label), "
                f"got {line.strip()[:80]!r}",
                path=path, line=lineno,
            )
        if not _INT_RE.match(fields[0]):
            raise DataFormatError(f"node id {fields[0]!r} is not an integer; expected 'node label [label ...]'",
                                  path=path, line=lineno)
        for label in fields[1:]:
            nodes.append(int(fields[0]))
            labels.append(label)
            lines.append(lineno)
    if not nodes:
        raise DataFormatError("no data: the file is empty or holds only comments; expected 'node label [label ...]' lines",
                              path=path)
    if all(_INT_RE.match(x) for x in labels):
        label_array = np.array([int(x) for x in labels], dtype=np.int64)
    else:
        label_array = np.array(labels, dtype=str)
    return np.array(nodes, dtype=np.int64), label_array, np.array(lines, dtype=np.int64)


# ---------------------------------------------------------------------- .mat
def read_mat(path, *, network_key="network", group_key="group"):
    """Read a DeepWalk/node2vec ``.mat`` file.

    Returns
    -------
    network : scipy.sparse.csr_matrix, shape (n, n)
    group : scipy.sparse.csr_matrix, shape (n, k), or None when the file has no ``group_key``
    """
    import scipy.io

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        contents = scipy.io.loadmat(str(path))
    except NotImplementedError:
        raise DataFormatError(
            "MATLAB v7.3 (HDF5) .mat files are not supported; re-save it in MATLAB with save(..., '-v7')",
            path=path,
        ) from None
    except Exception as exc:  # scipy raises many types (ValueError, OSError, TypeError, ...) for bad files
        raise DataFormatError(
            f"not a readable MATLAB .mat file: the file is truncated or corrupt ({type(exc).__name__}: {exc})",
            path=path,
        ) from exc
    found = sorted(k for k in contents if not k.startswith("__"))
    if network_key not in contents:
        raise DataFormatError(
            f"no variable {network_key!r} (the adjacency matrix, DeepWalk convention); variables found: {found}",
            path=path,
        )

    def matrix(key):
        value = contents[key]
        if sp.issparse(value):
            return sp.csr_matrix(value)
        value = np.asarray(value)
        if value.ndim != 2 or value.dtype.kind not in "biuf":
            raise DataFormatError(f"variable {key!r} must be a 2-D numeric or sparse matrix, got {value.dtype} of shape {value.shape}",
                                  path=path)
        return sp.csr_matrix(value)

    network = matrix(network_key)
    if network.shape[0] != network.shape[1]:
        raise DataFormatError(f"{network_key!r} must be a square adjacency matrix, got shape {network.shape}", path=path)
    group = None
    if group_key in contents:
        group = matrix(group_key)
        if group.shape[0] != network.shape[0]:
            raise DataFormatError(
                f"{group_key!r} must have one row per node ({network.shape[0]}), got shape {group.shape}", path=path
            )
        group.eliminate_zeros()
        if group.nnz and not np.all(group.data == 1):
            bad = group.data[group.data != 1][0]
            raise DataFormatError(f"{group_key!r} must hold 0/1 memberships, found {bad!r}", path=path)
    return network, group


# ---------------------------------------------------------------------- graphs
def _drop_self_loops(edges, weights, policy, path):
    """Self-loops: policy "warn" leaves them to Graph (which warns); "drop" removes and logs them."""
    if policy == "warn":
        return edges, weights
    loops = edges[:, 0] == edges[:, 1]
    n = int(loops.sum())
    if n:
        logger.info("%s: dropped %d self-loop(s)", path, n)
        edges = edges[~loops]
        weights = None if weights is None else weights[~loops]
    return edges, weights


def _py(value):
    """A NumPy scalar as the plain Python value (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _index_in(ids, order, values):
    """Position in ``ids`` of each of ``values`` (``order`` sorts ``ids``); -1 where absent."""
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


def _graph_from_indices(idx, weights, node_ids, *, directed, labels=None, label_names=None, name=None):
    """Graph from index pairs into ``node_ids`` (Graph.from_scipy keeps the ids without looking them up again)."""
    n = len(node_ids)
    data = np.ones(len(idx)) if weights is None else weights
    adj = sp.coo_matrix((data, (idx[:, 0], idx[:, 1])), shape=(n, n))
    return Graph.from_scipy(adj, node_ids=node_ids, labels=labels, label_names=label_names, directed=directed,
                            weighted=weights is not None, duplicates="sum", name=name)


def _membership_matrix(node_ids, members, classes, class_names, *, fail):
    """CSR (n_nodes, n_classes) from membership pairs; ``fail(row, message)`` reports unknown ids."""
    order = np.argsort(node_ids, kind="stable")
    rows = _index_in(node_ids, order, members)
    if np.any(rows < 0):
        r = int(np.flatnonzero(rows < 0)[0])
        fail(r, f"label given for node {_py(members[r])!r}, which is not a node of the graph")
    if class_names is None:
        class_names, cols = np.unique(classes, return_inverse=True)
    else:
        corder = np.argsort(class_names, kind="stable")
        cols = _index_in(class_names, corder, classes)
        if np.any(cols < 0):
            r = int(np.flatnonzero(cols < 0)[0])
            fail(r, f"class {_py(classes[r])!r} is not among the listed classes")
    mat = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, np.asarray(cols).ravel())),
                        shape=(len(node_ids), len(class_names)))
    mat.sum_duplicates()
    mat.data[:] = 1
    return mat, class_names


def _labels_from_file(label_path, node_ids, delimiter):
    members, classes, lines = read_label_file(label_path, delimiter=delimiter)
    raw = None

    def fail(r, message):
        nonlocal raw
        if lines is not None:
            line = int(lines[r])
        else:
            raw = read_bytes(label_path) if raw is None else raw
            line = int(data_line_numbers(raw)[r])
        raise DataFormatError(message, path=label_path, line=line)

    return _membership_matrix(node_ids, members, classes, None, fail=fail)


def _check_edges_known(table, edges, node_ids, what):
    """Every endpoint must be a listed node; returns index pairs."""
    order = np.argsort(node_ids, kind="stable")
    idx = _index_in(node_ids, order, edges.ravel()).reshape(edges.shape)
    if np.any(idx < 0):
        flat = int(np.flatnonzero(idx.ravel() < 0)[0])
        r = flat // 2
        table.fail(r, f"node {edges.ravel()[flat]} is not listed in {what}")
    return idx


def load_edge_list(path, *, delimiter=None, labels=None, directed=False, name=None, self_loops="warn"):
    """A Graph from an edge list file, with optional labels (a label file path, or any form Graph accepts)."""
    path = Path(path)
    edges, weights, table = _read_edges(path, delimiter=delimiter)
    edges, weights = _drop_self_loops(edges, weights, self_loops, path)
    node_ids = np.sort(edges.ravel())
    distinct = np.ones(len(node_ids), dtype=bool)
    distinct[1:] = node_ids[1:] != node_ids[:-1]
    node_ids = node_ids[distinct]  # = np.unique(edges), which is slow on large id ranges in numpy >= 2.3
    label_matrix = names = None
    if labels is not None and isinstance(labels, (str, Path)):
        label_matrix, names = _labels_from_file(Path(labels), node_ids, delimiter=None)
    elif labels is not None:
        label_matrix = labels
    idx = np.searchsorted(node_ids, edges)  # node_ids = np.unique(edges): every endpoint is found
    return _graph_from_indices(idx, weights, node_ids, directed=directed, labels=label_matrix, label_names=names,
                               name=name)


def load_mat(path, *, labels=None, directed=False, name=None, self_loops="warn",
             network_key="network", group_key="group"):
    """A Graph from a DeepWalk/node2vec ``.mat`` file (``network`` adjacency, ``group`` labels)."""
    path = Path(path)
    network, group = read_mat(path, network_key=network_key, group_key=group_key)
    if self_loops == "drop":
        n_loops = int(np.count_nonzero(network.diagonal()))
        if n_loops:
            logger.info("%s: dropped %d self-loop(s) (diagonal entries of %r)", path, n_loops, network_key)
            network = network.tolil()
            network.setdiag(0)
            network = network.tocsr()
            network.eliminate_zeros()
    try:
        graph = Graph.from_scipy(network, directed=directed, name=name)
    except ValueError as exc:
        raise DataFormatError(f"variable {network_key!r}: {exc}", path=path) from None
    if isinstance(labels, (str, Path)):
        label_matrix, names = _labels_from_file(Path(labels), graph.node_ids, delimiter=None)
        return graph.with_labels(label_matrix, names)
    if labels is not None:
        return graph.with_labels(labels)
    if group is not None:
        return graph.with_labels(group)
    return graph


ASU_FILES = ("nodes.csv", "edges.csv", "groups.csv", "group-edges.csv")


def _existing(folder, filename):
    """``folder/filename``, or its ``.gz`` sibling when only that exists."""
    path = Path(folder) / filename
    if not path.exists() and path.with_name(path.name + ".gz").exists():
        return path.with_name(path.name + ".gz")
    return path


def load_asu_folder(folder, *, delimiter=None, directed=False, name=None, self_loops="warn"):
    """A labelled Graph from an ASU Social Computing folder (BlogCatalog3 and siblings).

    ``nodes.csv`` fixes the node set (isolated nodes kept) and order,
    ``groups.csv`` the classes; every id in ``edges.csv`` and
    ``group-edges.csv`` must be listed there.  Comma- or whitespace-separated.
    """
    folder = Path(folder)
    paths = {f: _existing(folder, f) for f in ASU_FILES}
    missing = [f for f, p in paths.items() if not p.exists()]
    if missing:
        raise FileNotFoundError(f"{folder}: not an ASU data set folder; missing {', '.join(missing)} "
                                f"(expected {', '.join(ASU_FILES)})")
    node_ids, _ = read_id_list(paths["nodes.csv"], delimiter=delimiter, what="node ids")
    edges, weights, edge_table = _read_edges(paths["edges.csv"], delimiter=delimiter)
    idx = _check_edges_known(edge_table, edges, node_ids, paths["nodes.csv"].name)
    group_ids, _ = read_id_list(paths["groups.csv"], delimiter=delimiter, what="group ids")
    member_table = read_table(paths["group-edges.csv"], allowed=(2,), int_cols=2, delimiter=delimiter,
                              what="node id, group id")
    pairs = member_table.values

    def fail(r, message):
        member_table.fail(r, message.replace("among the listed classes", f"listed in {paths['groups.csv'].name}")
                          .replace("not a node of the graph", f"not listed in {paths['nodes.csv'].name}"))

    labels, names = _membership_matrix(node_ids, pairs[:, 0], pairs[:, 1], group_ids, fail=fail)
    idx, weights = _drop_self_loops(idx, weights, self_loops, paths["edges.csv"])
    return _graph_from_indices(idx, weights, node_ids, directed=directed, labels=labels, label_names=names, name=name)


def load_email_eu_core(edge_path, label_path, *, directed=False, name=None, self_loops="drop"):
    """email-Eu-core: the ``node label`` file lists every node (one department each); the edge list must use only those."""
    edges, weights, table = _read_edges(edge_path)
    members, classes, lines = read_label_file(label_path)
    node_ids = np.unique(members)
    if len(node_ids) != len(members):
        counts = np.bincount(np.searchsorted(node_ids, members))
        dup = node_ids[np.flatnonzero(counts > 1)[0]]
        r = int(np.flatnonzero(members == dup)[1])
        line = int(lines[r]) if lines is not None else int(data_line_numbers(read_bytes(label_path))[r])
        raise DataFormatError(f"node {dup} has a second department; email-Eu-core has exactly one per node",
                              path=label_path, line=line)
    idx = _check_edges_known(table, edges, node_ids, Path(label_path).name)
    idx, weights = _drop_self_loops(idx, weights, self_loops, edge_path)

    def fail(r, message):  # pragma: no cover - every member is a node by construction
        raise DataFormatError(message, path=label_path)

    labels, names = _membership_matrix(node_ids, members, classes, None, fail=fail)
    return _graph_from_indices(idx, weights, node_ids, directed=directed, labels=labels, label_names=names, name=name)
