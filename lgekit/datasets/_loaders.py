"""Graphs from the file formats lgekit knows, with errors that name the file and the line.

Formats
-------
edge list
    One edge a line, ``u v`` or ``u v weight``, with string or integer node
    ids; a header row, comments, CSV/TSV/whitespace.  The grammar is given
    in full in :func:`lgekit.datasets.read_edge_list` (module ``_edgelist``).
label file
    ``node label [label ...]`` a line (DeepWalk's and SNAP's ``node label``
    convention; several lines per node are fine): a node id (written as in
    the edge list), then one or more class names (integers if every class
    token is one, strings otherwise).
.mat
    MATLAB v5/v7 file with a sparse (or dense) adjacency ``network`` and a
    node-by-class ``group`` matrix: the DeepWalk / node2vec convention of
    ``blogcatalog.mat`` and ``Homo_sapiens.mat``.
ASU folder
    ``nodes.csv``, ``edges.csv``, ``groups.csv``, ``group-edges.csv``
    (BlogCatalog3, Flickr, YouTube from the ASU Social Computing Data
    Repository), comma or whitespace separated, 1-based integer ids.
"""
import io
import logging
import math
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._input_file import memory_bound, open_regular_file, read_input_bytes
from .._memory import format_bytes
from ..adjacency import adjacency_from_pairs
from ..graph import DUPLICATES, Graph, GraphWarning, warn_outside_lgekit
from ..ids import comparable_ids, index_in, sorted_ids, text_array, two_sided_ids_to_indices
from ..labels import label_matrix, membership_from_ids
from ._edgelist import (
    DataFormatError,
    check_regular_file,
    data_line_numbers,
    read_edge_table,
    read_id_list,
    read_label_file,
    read_table,
    read_text_bytes,
)

__all__ = [
    "read_mat",
    "load_edge_list",
    "load_mat",
    "load_asu_folder",
    "load_email_eu_core",
    "load_cora",
    "file_in",
]

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------- .mat
# the file's bytes, and the CSR copy of the adjacency made from them: the memory a .mat file needs per byte
_MAT_BYTES_PER_BYTE = 4
# building a Graph of n nodes from a .mat adjacency takes memory per node whatever the edges (the CSC and CSR
# index pointers, the node ids): 45.5 bytes a node measured loading a 5,000,000-node matrix with 2 entries
# (tests/test_word2vec_memory.py checks the price holds)
MAT_BYTES_PER_NODE = 48
# MAT v5 (the format of scipy.io.savemat and MATLAB's -v7): element types and array classes used below
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_MX_SPARSE = 5
# bytes per element of each numeric class (mxDOUBLE .. mxUINT64), as read
_MX_ITEMSIZE = {6: 8, 7: 4, 8: 1, 9: 1, 10: 2, 11: 2, 12: 4, 13: 4, 14: 8, 15: 8}
_MX_NAMES = {5: "sparse", 6: "double", 7: "single", 8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32",
             13: "uint32", 14: "int64", 15: "uint64"}


def _mat_header(body, order):
    """``(name, class, dims, nzmax, complex)`` from the start of an miMATRIX element's body (its first sub-elements)."""
    fields = []
    pos = 0
    for _ in range(3):  # array flags, dimensions, name
        first = int.from_bytes(body[pos:pos + 4], order)
        if first >> 16:  # a small element: its size and type share the first word, data in the next four bytes
            size, data, pos = first >> 16, body[pos + 4:pos + 8], pos + 8
        else:
            size = int.from_bytes(body[pos + 4:pos + 8], order)
            data, pos = body[pos + 8:pos + 8 + size], pos + 8 + size + (-size % 8)
        fields.append(data[:size])
    flags, dims, name = fields
    if len(flags) < 8 or len(dims) < 8:
        raise ValueError("a variable's header is truncated")
    word = int.from_bytes(flags[:4], order)
    dims = tuple(int.from_bytes(dims[i:i + 4], order, signed=True) for i in range(0, len(dims) - 3, 4))
    return name.decode("latin-1"), word & 0xFF, dims, int.from_bytes(flags[4:8], order), bool(word & 0x800)


def _mat_subset(fh, path, used):
    """``(bytes, names)``: a MAT v5 file holding only the ``used`` variables of ``fh``, each checked to fit the
    memory first, and the names of every variable of ``fh``.

    Another variable is skipped without being decompressed, and a used one
    is refused from its declared size (dense: its shape; sparse: its
    ``nzmax``) before anything allocates it.  ``(None, None)`` for a file that
    is not MAT v5 (v4, v7.3: left to scipy, which says what it is).
    """
    header = fh.read(128)
    if len(header) < 128 or header[124:126] not in (b"\x00\x01", b"\x01\x00") or header[126:128] not in (b"IM", b"MI"):
        return None, None
    order = "little" if header[126:128] == b"IM" else "big"
    limit, why = memory_bound(1)
    kept, names = [header], []
    while True:
        tag = fh.read(8)
        if len(tag) < 8:
            break
        kind, size = int.from_bytes(tag[:4], order), int.from_bytes(tag[4:], order)
        payload = fh.read(size)
        if len(payload) < size:
            raise ValueError("the file is truncated")
        if kind == _MI_COMPRESSED:
            unpack = zlib.decompressobj()
            body = unpack.decompress(payload[:4096], 4096)  # the tag and the first sub-elements: a few dozen bytes
            kind, body = int.from_bytes(body[:4], order), body[8:]
        else:
            body = payload
        if kind != _MI_MATRIX:
            continue
        name, mclass, dims, nzmax, is_complex = _mat_header(body, order)
        names.append(name)
        if name not in used:
            continue
        if mclass == _MX_SPARSE:
            need = nzmax * (8 * (1 + is_complex) + 4) + (dims[-1] + 1) * 8
        else:
            need = math.prod(dims) * _MX_ITEMSIZE.get(mclass, 8) * (1 + is_complex)
        nodes = 0
        if name == used[0] and len(dims) == 2:   # the adjacency: the graph built from it is priced per node
            nodes = dims[0] if dims[0] == dims[1] else dims[0] + dims[1]
            need = max(need, nodes * MAT_BYTES_PER_NODE)
        if limit is not None and need > limit:
            shape = "x".join(map(str, dims))
            per_node = (f", about {MAT_BYTES_PER_NODE} bytes for each of its {nodes:,} nodes whatever its edges"
                        if nodes and nodes * MAT_BYTES_PER_NODE == need else "")
            raise DataFormatError(f"variable {name!r} declares a {shape} {_MX_NAMES.get(mclass, 'matrix')} matrix "
                                  f"{'of ' + format(nzmax, ',') + ' entries ' if mclass == _MX_SPARSE else ''}"
                                  f"({format_bytes(need)}{per_node}), more than the memory left: {why}", path=path)
        kept.append(tag + payload)
    return b"".join(kept), names


def read_mat(path, *, network_key="network", group_key="group", bipartite=False):
    """Read a DeepWalk/node2vec ``.mat`` file.

    With ``bipartite=True`` the ``network_key`` variable is a biadjacency
    matrix, ``(n_left, n_right)`` of any shape, and ``group`` has one row per
    node, left nodes first (``n_left + n_right`` rows).

    Returns
    -------
    network : scipy.sparse.csr_matrix, shape (n, n), or (n_left, n_right) if bipartite
    group : scipy.sparse.csr_matrix, shape (n, k), or None when the file has no ``group_key``
    """
    import scipy.io  # slow to import, and only .mat files need it

    path = check_regular_file(path)
    try:
        # only the two variables used are read (a file's other variables, compressed, may unpack to gigabytes),
        # and only when their declared sizes fit the memory left
        with open_regular_file(path, bytes_per_byte=_MAT_BYTES_PER_BYTE, what="a .mat file") as fh:
            if fh.read(2) == b"\x1f\x8b":   # a gzipped .mat (x.mat.gz): unpacked first, block by block, bounded
                fh = io.BytesIO(read_input_bytes(path, bytes_per_byte=_MAT_BYTES_PER_BYTE, what="a .mat file",
                                                 gunzip=True))
            fh.seek(0)
            subset, names = _mat_subset(fh, path, (network_key, group_key))
            fh.seek(0)
            contents = scipy.io.loadmat(fh if subset is None else io.BytesIO(subset),
                                        variable_names=[network_key, group_key])
    except DataFormatError:
        raise
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
    found = sorted(names if names is not None else (k for k in contents if not k.startswith("__")))
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
    if network.shape[0] != network.shape[1] and not bipartite:
        raise DataFormatError(f"{network_key!r} must be a square adjacency matrix, got shape {network.shape}; "
                              "load a biadjacency matrix with bipartite=True", path=path)
    n_nodes = sum(network.shape) if bipartite else network.shape[0]
    group = None
    if group_key in contents:
        group = matrix(group_key)
        if group.shape[0] != n_nodes:
            what = " (left nodes, then right nodes)" if bipartite else ""
            raise DataFormatError(
                f"{group_key!r} must have one row per node ({n_nodes}{what}), got shape {group.shape}", path=path
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


def _shown(value):
    """A node id as the plain Python value (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_weight_sums(idx, weights, node_ids, directed, table):
    """Refuse an edge listed several times whose weights add up past the largest float, naming its lines.

    A repeated edge's weights are added (:func:`_graph_from_indices`); two
    lines of weight ``1e308`` would give ``inf``, refused later with no file
    or line.  The weights are positive, so when their total is finite no
    pair's sum can overflow: the check costs one sum.
    """
    if weights is None:
        return
    with np.errstate(over="ignore"):
        if np.isfinite(weights.sum()):
            return
    keep = idx[:, 0] != idx[:, 1]  # self-loops are dropped, never added
    pairs = idx if directed else np.sort(idx, axis=1)
    _, group = np.unique(pairs, axis=0, return_inverse=True)
    group = group.ravel()
    with np.errstate(over="ignore"):
        sums = np.bincount(group[keep], weights=weights[keep], minlength=int(group.max()) + 1)
    bad = np.flatnonzero(~np.isfinite(sums))
    if bad.size:
        rows = np.flatnonzero((group == bad[0]) & keep)
        lines = ", ".join(str(table.line_of(int(r))) for r in rows[:5]) + (", ..." if len(rows) > 5 else "")
        u, v = (_shown(node_ids[i]) for i in idx[rows[0]])
        table.fail(int(rows[0]), f"edge ({u!r}, {v!r}) is listed {len(rows)} times (lines {lines}) and its weights "
                                 "add up to more than the largest float (about 1.8e308); a repeated edge's weights "
                                 "are added: scale the weights down")


def _graph_from_indices(idx, weights, node_ids, *, directed, labels=None, label_names=None, name=None):
    """Graph from index pairs into ``node_ids`` (numbered already: nothing is looked up again)."""
    n = len(node_ids)
    adj, n_loops = adjacency_from_pairs(idx, weights, n, directed, DUPLICATES)  # "Edge weights" in Graph
    if n_loops:
        warn_outside_lgekit(f"dropped {n_loops} self-loop(s)", GraphWarning)
    lab, names = label_matrix(labels, label_names, node_ids, n)
    return Graph(adj, node_ids=node_ids, labels=lab, label_names=names, directed=directed,
                 weighted=weights is not None, name=name)


def _labels_from_file(label_path, node_ids, delimiter):
    # node ids in the label file are read as the graph's are: "007" is 7 beside integer ids, "007" beside names
    text_ids = node_ids.dtype.kind == "U" or (node_ids.dtype.kind == "O" and len(node_ids)
                                              and isinstance(node_ids[0], str))
    members, classes, lines = read_label_file(label_path, delimiter=delimiter,
                                              node_type="str" if text_ids else "int")
    raw = None

    def fail(r, message):
        nonlocal raw
        if lines is not None:
            line = int(lines[r])
        else:
            raw = read_text_bytes(label_path) if raw is None else raw
            line = int(data_line_numbers(raw)[r])
        raise DataFormatError(message, path=label_path, line=line)

    return membership_from_ids(node_ids, members, classes, None, fail=fail)


def _check_edges_known(table, edges, node_ids, what):
    """Every endpoint must be a listed node; returns index pairs."""
    node_ids, values = comparable_ids(np.asarray(node_ids), edges.ravel())
    order = np.argsort(node_ids, kind="stable")
    idx = index_in(node_ids, order, values).reshape(edges.shape)
    if np.any(idx < 0):
        flat = int(np.flatnonzero(idx.ravel() < 0)[0])
        r = flat // 2
        table.fail(r, f"node {edges.ravel()[flat]} is not listed in {what}")
    return idx


def _compact(node_ids):
    """Text ids as a compact string array (:func:`lgekit.ids.text_array`), as Graph.from_edges keeps them."""
    if node_ids.dtype.kind == "O" and len(node_ids) and all(isinstance(x, str) for x in node_ids.tolist()):
        return text_array(node_ids.tolist())
    return node_ids


def _bipartite_edge_list(path, edges, weights, labels, name):
    """A bipartite Graph from (left id, right id) rows: two id namespaces, each numbered in sorted order."""
    node_ids, idx, n, n_left = two_sided_ids_to_indices(edges, None)
    node_ids = _compact(node_ids)
    label_matrix = names = None
    if labels is not None and isinstance(labels, (str, Path)):
        shared = np.intersect1d(*comparable_ids(node_ids[:n_left], node_ids[n_left:]))
        if len(shared):
            shown = shared[0].item() if isinstance(shared[0], np.generic) else shared[0]
            raise ValueError(f"{path}: a label file cannot say which side its node {shown!r} is on (the id "
                             "names a left and a right node); pass labels as a matrix in node order (left, then right)")
        label_matrix, names = _labels_from_file(Path(labels), node_ids, delimiter=None)
    elif labels is not None:
        label_matrix = labels
    data = np.ones(len(idx)) if weights is None else weights
    adj = sp.coo_matrix((data, (idx[:, 0], idx[:, 1])), shape=(n, n))
    return Graph.from_scipy(adj, node_ids=node_ids, labels=label_matrix, label_names=names, n_left=n_left,
                            weighted=weights is not None, duplicates=DUPLICATES, name=name)


def load_edge_list(path, *, delimiter=None, labels=None, directed=False, name=None, self_loops="warn",
                   header=None, id_type=None, bipartite=False):
    """A Graph from an edge list file (grammar: :func:`read_edge_list`), with optional labels.

    ``labels`` is a label file path (node ids written as in the edge list) or
    any form :meth:`lgekit.Graph.from_edges` accepts.  Nodes are the sorted
    distinct ids, as :meth:`Graph.from_edges` numbers them.  ``directed=True``
    keeps each line as the arc ``source -> target``.

    With ``bipartite=True`` the first column holds left ids and the second
    right ids, two namespaces (as :meth:`Graph.from_edges` with
    ``bipartite=True`` reads them): a line ``3 3`` is an edge between left
    node 3 and right node 3, not a self-loop.  A label file is then refused
    when an id is on both sides.
    """
    path = Path(path)
    edges, weights, table = read_edge_table(path, delimiter=delimiter, header=header, id_type=id_type)
    if bipartite:
        if directed:
            raise ValueError("bipartite=True and directed=True: a bipartite graph is stored undirected (its edges "
                             "join the two sides); pass one of them")
        return _bipartite_edge_list(path, edges, weights, labels, name)
    edges, weights = _drop_self_loops(edges, weights, self_loops, path)
    node_ids, idx = sorted_ids(edges)
    if self_loops == "warn":  # rows still match the file's lines
        _check_weight_sums(idx, weights, node_ids, directed, table)
    node_ids = _compact(node_ids)
    label_matrix = names = None
    if labels is not None and isinstance(labels, (str, Path)):
        label_matrix, names = _labels_from_file(Path(labels), node_ids, delimiter=None)
    elif labels is not None:
        label_matrix = labels
    return _graph_from_indices(idx, weights, node_ids, directed=directed, labels=label_matrix, label_names=names,
                               name=name)


def load_mat(path, *, labels=None, directed=False, name=None, self_loops="warn",
             network_key="network", group_key="group", bipartite=False):
    """A Graph from a DeepWalk/node2vec ``.mat`` file (``network`` adjacency, ``group`` labels).

    ``directed=True`` keeps entry ``(i, j)`` of ``network`` as the arc
    ``i -> j``.  With ``bipartite=True``, ``network`` is the ``(n_left,
    n_right)`` biadjacency matrix (:meth:`lgekit.Graph.from_biadjacency`:
    ids ``0..n_left-1`` and ``0..n_right-1``) and ``group`` has a row per
    node, left nodes first.
    """
    path = Path(path)
    network, group = read_mat(path, network_key=network_key, group_key=group_key, bipartite=bipartite)
    if bipartite:
        if directed:
            raise ValueError("bipartite=True and directed=True: a bipartite graph is stored undirected (its edges "
                             "join the two sides); pass one of them")
        if isinstance(labels, (str, Path)):
            raise ValueError(f"{path}: a label file cannot say which side of the bipartite graph a node id is on "
                             "(both sides are numbered from 0); pass labels as a matrix in node order (left, then "
                             "right), or store them as the group variable")
        try:
            graph = Graph.from_biadjacency(network, name=name)
        except ValueError as exc:
            raise DataFormatError(f"variable {network_key!r}: {exc}", path=path) from None
    else:
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


def file_in(folder, filename):
    """``folder/filename`` or its ``.gz`` sibling, whichever is a file (the plain one first), else None."""
    path = Path(folder) / filename
    if path.is_file():
        return path
    gz = path.with_name(path.name + ".gz")
    return gz if gz.is_file() else None


def load_asu_folder(folder, *, delimiter=None, directed=False, name=None, self_loops="warn"):
    """A labelled Graph from an ASU Social Computing folder (BlogCatalog3 and siblings).

    ``nodes.csv`` fixes the node set (isolated nodes kept) and order,
    ``groups.csv`` the classes; every id in ``edges.csv`` and
    ``group-edges.csv`` must be listed there.  Comma- or whitespace-separated.
    """
    folder = Path(folder)
    paths = {f: file_in(folder, f) for f in ASU_FILES}
    missing = [f for f, p in paths.items() if p is None]
    if missing:
        raise FileNotFoundError(f"{folder}: not an ASU data set folder; missing {', '.join(missing)} "
                                f"(expected {', '.join(ASU_FILES)})")
    node_ids, _ = read_id_list(paths["nodes.csv"], delimiter=delimiter, what="node ids")
    edges, weights, edge_table = read_edge_table(paths["edges.csv"], delimiter=delimiter, header=False, id_type="int")
    idx = _check_edges_known(edge_table, edges, node_ids, paths["nodes.csv"].name)
    _check_weight_sums(idx, weights, node_ids, directed, edge_table)
    group_ids, _ = read_id_list(paths["groups.csv"], delimiter=delimiter, what="group ids")
    member_table = read_table(paths["group-edges.csv"], allowed=(2,), int_cols=2, delimiter=delimiter,
                              what="node id, group id")
    pairs = member_table.values

    def fail(r, message):
        member_table.fail(r, message.replace("among the listed classes", f"listed in {paths['groups.csv'].name}")
                          .replace("not a node of the graph", f"not listed in {paths['nodes.csv'].name}"))

    labels, names = membership_from_ids(node_ids, pairs[:, 0], pairs[:, 1], group_ids, fail=fail)
    idx, weights = _drop_self_loops(idx, weights, self_loops, paths["edges.csv"])
    return _graph_from_indices(idx, weights, node_ids, directed=directed, labels=labels, label_names=names, name=name)


def load_email_eu_core(edge_path, label_path, *, directed=False, name=None, self_loops="drop"):
    """email-Eu-core: the ``node label`` file lists every node (one department each); the edge list must use only those."""
    edges, weights, table = read_edge_table(edge_path, header=False, id_type="int")
    members, classes, lines = read_label_file(label_path, node_type="int")
    node_ids = np.unique(members)
    if len(node_ids) != len(members):
        counts = np.bincount(np.searchsorted(node_ids, members))
        dup = node_ids[np.flatnonzero(counts > 1)[0]]
        r = int(np.flatnonzero(members == dup)[1])
        line = int(lines[r]) if lines is not None else int(data_line_numbers(read_text_bytes(label_path))[r])
        raise DataFormatError(f"node {dup} has a second department; email-Eu-core has exactly one per node",
                              path=label_path, line=line)
    idx = _check_edges_known(table, edges, node_ids, Path(label_path).name)
    idx, weights = _drop_self_loops(idx, weights, self_loops, edge_path)

    def fail(r, message):  # pragma: no cover - every member is a node by construction
        raise DataFormatError(message, path=label_path)

    labels, names = membership_from_ids(node_ids, members, classes, None, fail=fail)
    return _graph_from_indices(idx, weights, node_ids, directed=directed, labels=labels, label_names=names, name=name)


def load_cora(path, *, directed=False, name=None, self_loops="drop"):
    """Cora's ``cora.cites`` (LINQS): each line ``<cited> <citing>``, read as the arc citing -> cited.

    The LINQS README says "The citations are in the form ID of cited paper, ID of citing paper", so
    the arc is the second column to the first; reading the file as an ordinary edge list (first ->
    second) would reverse every citation.
    """
    edges, weights, _ = read_edge_table(path, header=False, id_type="int")
    if weights is not None:
        raise DataFormatError("cora.cites has two columns <cited> <citing>, found a third", path=path)
    arcs = np.ascontiguousarray(edges[:, ::-1])
    arcs, _ = _drop_self_loops(arcs, None, self_loops, path)
    node_ids, idx = sorted_ids(arcs)
    return _graph_from_indices(idx, None, node_ids, directed=directed, name=name)
