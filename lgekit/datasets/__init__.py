"""Graphs to embed: the paper's real data sets, files by path, and seeded random generators.

>>> from lgekit import datasets
>>> g = datasets.load("synthetic-blogcatalog", n_nodes=500, seed=0)
>>> g.name, g.n_nodes, g.n_labels
('synthetic-blogcatalog', 500, 39)

Registered data sets (``lgekit datasets list``): ``blogcatalog``, ``ppi``,
``facebook``, ``email-eu-core`` (files found locally or downloaded from
their publishers, see :func:`fetch`) and ``synthetic-blogcatalog`` (generated,
no download).  Any edge list, ``.mat`` file or ASU folder loads by path;
:func:`resolve` says which of the two a string means, by the rule
:func:`load` applies.
"""
import dataclasses
import hashlib
import logging
import os
import warnings
from pathlib import Path
from typing import NamedTuple, Optional, Tuple

import numpy as np
import scipy.sparse as sp

from .._interop import dataframe_edges, is_dataframe, is_networkx
from ..graph import Graph, GraphWarning
from ..labels import node_label_matrix
from . import generators
from ._fetch import (
    ChecksumError,
    DatasetNotFoundError,
    DownloadError,
    cache_dir,
    check_local_copy,
    fetch,
    file_sha256,
    find_data_home,
    locate,
    manual_instructions,
    offline,
    search_path,
    verify,
)
from ._edgelist import (
    DataFormatError,
    check_regular_file,
    read_edge_list,
    read_label_file,
)
from ._loaders import ASU_FILES, file_in, load_asu_folder, load_edge_list, load_cora, load_email_eu_core, load_mat
from ._registry import DatasetInfo, info, registry, resolve_name
from .generators import (
    chung_lu_graph,
    erdos_renyi_graph,
    expected_edge_count,
    gnm_random_graph,
    planted_partition_graph,
    powerlaw_expected_degrees,
    random_regular_graph,
    youtube_like_degrees,
)

# What a user calls: the readers and loaders, the registry and where data sets live, their errors and
# result classes, the generators.  The edge-list grammar's tables (HEADER_NAMES ...) stay in
# datasets/_grammar.py; tests/test_public_api.py pins this list.
__all__ = [
    "as_graph", "as_labels", "NodeLabels", "LABEL_ATTRIBUTES", "load", "load_or_synthetic", "resolve", "DatasetSource", "fetch", "registry", "info", "find_data_home",
    "locate", "search_path", "cache_dir", "verify", "check_local_copy", "offline",
    "DatasetInfo", "DataFormatError", "DownloadError", "ChecksumError", "DatasetNotFoundError",
    "read_edge_list", "read_label_file",
    "erdos_renyi_graph", "gnm_random_graph", "random_regular_graph", "chung_lu_graph",
    "powerlaw_expected_degrees", "youtube_like_degrees", "expected_edge_count", "planted_partition_graph",
    "generators",
]

logger = logging.getLogger(__name__)

FORMATS = ("edgelist", "mat", "asu")
_MAT_SUFFIXES = (".mat",)


def _guess_format(path):
    if path.is_dir():
        if any((path / f).exists() or (path / (f + ".gz")).exists() for f in ("edges.csv",)):
            return "asu"
        raise ValueError(f"{path} is a folder but not an ASU data set folder (nodes.csv, edges.csv, groups.csv, "
                         "group-edges.csv); pass the path of a file")
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _MAT_SUFFIXES:
        return "mat"
    return "edgelist"


@dataclasses.dataclass(frozen=True)
class DatasetSource:
    """What a name or path given to :func:`load` refers to (see :func:`resolve`).

    Attributes
    ----------
    kind : {"registered", "path"}
    name : str
        The registered name, or the name :func:`load` gives a graph read from
        a path (a file's name up to its first dot, a folder's name).
    path : pathlib.Path or None
        The absolute path of a file or folder; None for a registered name.
    format : {"edgelist", "mat", "asu"} or None
        How a path is read; None for a registered name.
    files : tuple of pathlib.Path
        The files whose bytes make the graph of a path: the file itself, or
        an ASU folder's four files (each possibly ``.gz``).  Empty for a
        registered name.
    embedded : bool
        A registered data set generated on the fly (no files).
    """

    kind: str
    name: str
    path: Optional[Path] = None
    format: Optional[str] = None
    files: Tuple[Path, ...] = ()
    embedded: bool = False

    def content_sha256(self):
        """SHA-256 (hex) of the content of a path, or None for a registered name.

        For a file, the SHA-256 of its bytes; for a folder, of the name and
        SHA-256 of each of its files, so editing any file changes it.  A
        registered data set is identified by its name: its files are the
        publisher's, checked against the registry's digests when downloaded
        and whenever they are loaded or planned (:func:`check_local_copy`
        refuses any other copy).
        """
        if self.kind == "registered":
            return None
        if self.format != "asu":
            return file_sha256(self.files[0])
        digest = hashlib.sha256(b"lgekit-folder-v1\n")
        for path in self.files:
            digest.update(f"{path.name}\0{file_sha256(path)}\n".encode())
        return digest.hexdigest()


def resolve(name_or_path, *, format=None):
    """Say what :func:`load` would read for ``name_or_path``, without reading it.

    The rule of every lgekit entry point (the library, ``lgekit fit``,
    ``lgekit reproduce --dataset``, ...): a ``str`` that is a registered name
    (case-insensitive, aliases allowed) is that data set, even when a file or
    folder of that name exists; anything else is a path, which must exist.
    To load a file called ``facebook``, pass ``Path("facebook")`` or
    ``"./facebook"``.

    Parameters
    ----------
    name_or_path : str or pathlib.Path
    format : {"edgelist", "mat", "asu"}, optional
        As in :func:`load`.

    Returns
    -------
    DatasetSource

    Raises
    ------
    FileNotFoundError
        Neither a registered name nor an existing path (or an ASU folder
        missing one of its files).
    TypeError, ValueError
        Not a str or path; an empty string; an unknown ``format``; a folder
        that is not an ASU data set.
    DataFormatError
        A path that is neither a regular file nor a folder (a device, a
        FIFO, a socket): refused before anything opens it.

    Examples
    --------
    >>> resolve("Email-EU-Core").name, resolve("email-eu-core").kind
    ('email-eu-core', 'registered')
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS} or None, got {format!r}")
    if not isinstance(name_or_path, (str, Path)):
        raise TypeError(f"name_or_path must be a data set name or a path, got {type(name_or_path).__name__}")
    if isinstance(name_or_path, str) and not name_or_path.strip():
        # Path("") is the current folder: an empty string is a mistake, never a request to read "."
        raise ValueError(f"name_or_path is empty ({name_or_path!r}); pass a registered data set "
                         f"({', '.join(registry())}) or the path of a file or folder ('.' for the current folder)")
    key = resolve_name(name_or_path) if isinstance(name_or_path, str) else None
    if key is not None:
        return DatasetSource(kind="registered", name=key, embedded=info(key).embedded)
    path = Path(name_or_path).expanduser()
    if not path.exists():
        raise FileNotFoundError(
            f"{str(name_or_path)!r} is neither a registered data set ({', '.join(registry())}) nor an existing "
            "file or folder"
        )
    if not path.is_dir():
        check_regular_file(path)  # a device or a FIFO is refused here, before anything opens it
    # the name is the one the user wrote (not a symlink's target); the path is absolute, for cache keys
    name = path.name if path.is_dir() else path.name.split(".")[0]
    path = path.resolve()
    fmt = format or _guess_format(path)
    if fmt == "asu":
        found = tuple(file_in(path, f) for f in ASU_FILES)
        missing = [f for f, p in zip(ASU_FILES, found) if p is None]
        if missing:
            raise FileNotFoundError(f"{path}: not an ASU data set folder; missing {', '.join(missing)} "
                                    f"(expected {', '.join(ASU_FILES)})")
        files = found
    else:
        files = (path,)
    return DatasetSource(kind="path", name=name, path=path, format=fmt, files=files)


def load(name_or_path, *, data_home=None, format=None, delimiter=None, labels=None, directed=None,
         download=None, header=None, id_type=None, bipartite=False, **generator_kwargs):
    """Load a graph: a registered data set by name, or a file or folder by path.

    Parameters
    ----------
    name_or_path : str, pathlib.Path, or any form of :func:`as_graph`
        A registered name (case-insensitive: ``"blogcatalog"``, ``"ppi"``,
        ``"facebook"``, ``"email-eu-core"``, ``"cora"``, ``"synthetic-blogcatalog"``) or
        the path of an edge list (``.txt``/``.csv``/``.tsv``/``.edgelist``/...,
        may be ``.gz``), of a DeepWalk ``.mat`` file, or of an ASU folder.  A
        string that is a registered name always means the data set; to load
        a file or folder called ``facebook``, pass ``Path("facebook")`` or
        ``"./facebook"`` (the rule of :func:`resolve`).  Any other form (an
        array, a DataFrame, a networkx graph, a matrix, a Graph) is read by
        :func:`as_graph`, with ``directed``, ``bipartite`` and ``labels``.
    data_home : str or pathlib.Path, optional
        Folder holding ``<name>/<files>`` for registered data sets; default:
        ``$LGEKIT_DATA``, a source checkout's ``../shared/data``, then the
        user cache (see :func:`find_data_home`).  Missing files are
        downloaded into it (or the user cache) when ``download`` is true.
    format : {"edgelist", "mat", "asu"}, optional
        File format of a path; guessed from the suffix (``.mat``) or from a
        folder's contents (``edges.csv``: ASU) by default.
    delimiter : str, optional
        Field separator of text files; sniffed by default (``,`` ``;`` ``|``,
        tab or whitespace; see :func:`lgekit.datasets.read_edge_list`).
    labels : str, pathlib.Path or array-like, optional
        Node labels for a path: a ``node label [label ...]`` file, or any
        form :meth:`lgekit.Graph.from_edges` accepts.  For a ``.mat`` file
        this replaces its ``group`` matrix.
    directed : bool, optional
        Keep arcs as directed edges instead of symmetrising: a line ``u v``
        of an edge list is the arc ``u -> v``, entry ``(i, j)`` of a ``.mat``
        network the arc ``i -> j``.  Default: a path is read undirected, a
        registered data set as its registry entry says
        (:attr:`DatasetInfo.default_kind`): ``load("cora")`` gives its 5,429
        citations, citing -> cited (the LINQS file writes each line ``<cited>
        <citing>``; ``directed=False`` merges them into 5,278 edges);
        ``load("email-eu-core")`` is read undirected, which it says in one
        line (an INFO log record; a note on the command line), and
        ``directed=True`` gives its 24,929 arcs (25,571 minus 642 self-loops).
    download : bool, optional
        Fetch a registered data set that is not found locally.  Default:
        yes, unless the environment variable ``LGEKIT_OFFLINE`` is set (to
        anything but ``0``), in which case a missing data set is a
        :class:`DatasetNotFoundError` (a ``FileNotFoundError``) saying how to
        install it by hand.
    header : bool, optional
        Edge lists only: whether the first data line is a header; sniffed
        by default (see :func:`lgekit.datasets.read_edge_list`).
    id_type : {None, "int", "str"}, optional
        Edge lists only: read node ids as integers (``"int"``), as text
        (``"str"``), or integers when every id is one, else text (default).
    bipartite : bool, default False
        Paths only: read a bipartite graph (:attr:`lgekit.Graph.kind`
        ``"bipartite"``).  An edge list's first column holds left ids and its
        second right ids, two namespaces (``3 3`` joins left node 3 and right
        node 3); a ``.mat`` file's ``network`` is the ``(n_left, n_right)``
        biadjacency matrix.  Refused with ``directed=True``, for ASU folders
        and for the registered data sets (none is bipartite).
    **generator_kwargs
        For ``"synthetic-blogcatalog"`` only: keyword arguments of
        :func:`planted_partition_graph` (``n_nodes``, ``n_labels``,
        ``mean_degree``, ``mixing``, ``seed``, ...).

    Returns
    -------
    Graph
        With ``graph.name`` set to the registered name or the file's stem.
        Node ids are as written in the file: integers (exact at any size)
        or strings, numbered in sorted order as
        :meth:`lgekit.Graph.from_edges` numbers them.

    Raises
    ------
    DataFormatError
        A file is malformed (a ``ValueError``; the message names the file and
        line); a local copy of a registered data set whose files match
        neither of the registry's SHA-256 digests (:func:`check_local_copy`:
        it is refused, not read under the registered name; load it by path);
        a path that is neither a regular file nor a folder (``/dev/zero``,
        a FIFO: refused at once); a gzip file that decompresses to more than
        4 GiB (the cap; the environment variable ``LGEKIT_MAX_GUNZIPPED_BYTES``
        changes it).
    FileNotFoundError
        A path does not exist; :class:`DatasetNotFoundError` when a
        registered data set is missing and may not be downloaded.
    DownloadError
        A registered data set is missing and could not be downloaded.
    ValueError, TypeError
        Bad arguments (an empty name, unknown name, unknown format, generator arguments for a file).

    Notes
    -----
    Self-loops: registered data sets drop them and log the count at INFO
    (email-Eu-core has 642, PPI's matrix 894 diagonal entries: known
    properties of the data, not news).  Files loaded by path keep lgekit's
    default: :class:`lgekit.Graph` drops them with a :class:`lgekit.GraphWarning`.
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        given = [k for k, v in dict(header=header, id_type=id_type, delimiter=delimiter, format=format,
                                    data_home=data_home, download=download).items() if v is not None]
        if given or generator_kwargs:
            raise TypeError(f"header, id_type, delimiter, format, data_home and download apply to files and "
                            f"registered data sets, and generator arguments to 'synthetic-blogcatalog', not to a "
                            f"{type(name_or_path).__name__}; got {given + sorted(generator_kwargs)}")
        return as_graph(name_or_path, "name_or_path", directed=directed or None, bipartite=bipartite or None,
                        labels=labels)
    source = resolve(name_or_path, format=format)
    if bipartite and directed:
        raise ValueError("bipartite=True and directed=True: a bipartite graph is stored undirected (its edges join "
                         "the two sides); pass one of them")
    if bipartite and source.kind == "registered":
        raise ValueError(f"bipartite=True: the registered data set {source.name!r} is not bipartite; bipartite "
                         "graphs load from an edge list or a .mat file by path")
    if source.kind == "registered":
        if header is not None or id_type is not None:
            raise TypeError(f"header and id_type apply to edge list files, not to the registered data set "
                            f"{source.name!r}")
        return _load_registered(source.name, data_home=data_home, delimiter=delimiter, labels=labels,
                                directed=directed, download=download, generator_kwargs=generator_kwargs)
    path = source.path
    directed = bool(directed)   # a path has no kind of its own: undirected unless asked
    if generator_kwargs:
        raise TypeError(f"unexpected keyword argument(s) {sorted(generator_kwargs)} for a file; generator arguments "
                        "only apply to 'synthetic-blogcatalog'")
    if source.format != "edgelist" and (header is not None or id_type is not None):
        raise TypeError(f"header and id_type apply to edge list files, not to the {source.format} file {path}")
    if source.format == "asu":
        if bipartite:
            raise ValueError(f"bipartite=True: an ASU folder ({path}) holds one node set; bipartite graphs load "
                             "from an edge list or a .mat file")
        if labels is not None:
            raise ValueError("labels cannot be given for an ASU folder: its labels are group-edges.csv")
        return load_asu_folder(path, delimiter=delimiter, directed=directed, name=source.name)
    if source.format == "mat":
        return load_mat(path, labels=labels, directed=directed, name=source.name, bipartite=bipartite)
    return load_edge_list(path, delimiter=delimiter, labels=labels, directed=directed, name=source.name,
                          header=header, id_type=id_type, bipartite=bipartite)


#: the forms a graph may come in, as error messages name them
_GRAPH_FORMS = ("an lgekit.Graph, an EdgeSplit, a file path (or registered data set name), an (m, 2) or (m, 3) "
               "edge array or list of pairs, an (n, n) adjacency array, a pandas DataFrame, a networkx graph or a scipy sparse adjacency matrix")


def as_graph(data, what="graph", *, directed=None, bipartite=None, labels=None):
    """``data`` as an :class:`lgekit.Graph`: the one reading of every form a graph may come in.

    Every lgekit function that takes a graph reads it here (``fit`` and
    ``partial_fit`` of both models, :func:`lgekit.split_edges`,
    :func:`lgekit.evaluation.sample_negative_pairs`, :func:`load`,
    ``NodeEmbedding(graph=...)``, ``metrics.direction_average_precision(graph=...)``,
    ``lgekit fit GRAPH``), so each takes every form:

    ============================  ==========================================================
    ``data``                      read as
    ============================  ==========================================================
    :class:`lgekit.Graph`         itself
    ``EdgeSplit``                 its whole graph, ``split.graph`` (``fit`` trains on its
                                  training part instead)
    ``str`` or ``os.PathLike``    :func:`load`: a registered data set's name, or the path of
                                  an edge list, ``.mat`` file or ASU folder
    array of shape (m, 2)/(m, 3)  an edge list, :meth:`lgekit.Graph.from_edges`: source,
    or a list of pairs/triples    target and, in a third column, the weight
    array of shape (n, n), >= 0,  an adjacency matrix, :meth:`lgekit.Graph.from_scipy`
    zero diagonal                 (the rule below)
    ``pandas.DataFrame``          an edge list, read by name when it has a column called
                                  ``source`` or ``target`` (then both, and ``weight`` when
                                  there is one), else by position: 2 columns (source,
                                  target) or 3 (source, target, weight).  A column this
                                  rule would ignore is a ``ValueError`` naming it
                                  (:meth:`lgekit.Graph.from_pandas` picks columns freely)
    networkx graph                :meth:`lgekit.Graph.from_networkx`: its kind, its
                                  ``weight`` attribute
    scipy sparse matrix           :meth:`lgekit.Graph.from_scipy`: a symmetric matrix is
                                  undirected; an asymmetric one is symmetrised with a
                                  :class:`lgekit.GraphWarning` unless ``directed`` is given
    ============================  ==========================================================

    Weights mean the same in every form, and a pair given twice is merged by
    one rule ("Edge weights" in :class:`lgekit.Graph`).

    **Adjacency matrix or edge list.**  A square NumPy array of non-negative
    numbers with a zero diagonal is an adjacency matrix (0/1, or weights);
    any other ``(m, 2)`` or ``(m, 3)`` array is an edge list, and a list or
    tuple always is.  A 2 x 2 or 3 x 3 array has both shapes: a 3 x 3 one
    with a zero diagonal is no valid edge list (its last row's weight is 0),
    and a 2 x 2 one is read both ways alike only as ``[[0, 1], [1, 0]]``
    (or when an off-diagonal zero makes the edge-list reading a self-loop);
    any other 2 x 2 one, e.g. ``[[0, 2], [3, 0]]``, is refused with both
    readings.  Pass it to :meth:`lgekit.Graph.from_edges` or
    :meth:`~lgekit.Graph.from_scipy` to say which.

    Parameters
    ----------
    data : any form above
    what : str, default "graph"
        The argument's name, for error messages.
    directed, bipartite : bool, optional
        For the forms without a kind of their own (a path, an array, a list,
        a DataFrame): read arcs, or two id namespaces (default: undirected;
        a registered data set's name: the kind its registry entry gives,
        :func:`load`).  A networkx graph and a matrix take them as
        :meth:`~lgekit.Graph.from_networkx` and :meth:`~lgekit.Graph.from_scipy`
        do (``bipartite`` is refused for a matrix); a Graph or a split, which
        have a kind, refuse them.
    labels : optional
        Node labels, as :func:`load` takes them, for a path, an edge list or
        a matrix.

    Returns
    -------
    Graph

    Raises
    ------
    TypeError
        ``data`` is none of the forms (the message names ``what`` and lists
        them), or an option the form cannot take.
    ValueError
        An array of another shape, a DataFrame column the rule would ignore,
        and whatever the constructor refuses.

    Examples
    --------
    >>> import numpy as np
    >>> as_graph(np.array([[0, 1, 2.0], [1, 2, 0.5]]))
    <Graph 3 nodes, 2 undirected edges, weighted>
    >>> as_graph([("a", "b"), ("b", "c")], directed=True)
    <Graph 3 nodes, 2 directed edges>
    >>> as_graph(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]]))   # a triangle's adjacency matrix
    <Graph 3 nodes, 3 undirected edges>
    """
    if isinstance(data, Graph) or _is_split(data):
        given = [k for k, v in dict(directed=directed, bipartite=bipartite, labels=labels).items() if v is not None]
        if given:
            raise TypeError(f"{what} is {'an EdgeSplit' if _is_split(data) else 'a Graph'}, which has its kind and "
                            f"labels already; {', '.join(given)} apply to the other forms")
        return data if isinstance(data, Graph) else data.graph
    if isinstance(data, (str, os.PathLike)):
        return load(data, directed=directed, bipartite=bool(bipartite), labels=labels)
    if is_networkx(data):
        if labels is not None:
            raise TypeError(f"labels apply to edge lists and matrices; {what} is a networkx graph, whose labels "
                            "Graph.from_networkx(..., label_attr=...) reads")
        return Graph.from_networkx(data, directed=directed, bipartite=bipartite)
    if sp.issparse(data):
        if bipartite:
            raise TypeError(f"bipartite applies to edge lists; {what} is a matrix: Graph.from_scipy(matrix, "
                            "n_left=...) or Graph.from_biadjacency reads a bipartite one")
        return Graph.from_scipy(data, directed=directed, labels=labels)
    if isinstance(data, np.ndarray) and _is_adjacency(data, what):
        if bipartite:
            raise TypeError(f"bipartite applies to edge lists; {what} is an adjacency matrix: "
                            "Graph.from_biadjacency reads a bipartite one")
        return Graph.from_scipy(sp.csr_matrix(data), directed=directed, labels=labels)
    if isinstance(data, np.ndarray) and not (data.ndim == 2 and data.shape[1] in (2, 3)):
        raise ValueError(f"{what} is an array of shape {data.shape}; an edge list array has shape (m, 2) "
                         "(source, target) or (m, 3) (source, target, weight), an adjacency matrix shape (n, n) "
                         "with a zero diagonal")
    weights = None
    if is_dataframe(data):
        data, weights = dataframe_edges(data, None, None, None, what)  # the rule above, errors naming `what`
    if isinstance(data, (np.ndarray, list, tuple)):
        return Graph.from_edges(data, weights=weights, directed=bool(directed), bipartite=bool(bipartite),
                                labels=labels)
    raise TypeError(f"{what} must be {_GRAPH_FORMS}; got {type(data).__name__}")


def _is_adjacency(arr, what):
    """Whether the array ``arr`` is an adjacency matrix by the rule of :func:`as_graph` (else an edge list).

    A square array of non-negative real numbers with a zero diagonal is an
    adjacency matrix.  Of those, a 2 x 2 or 3 x 3 one has an edge list's shape
    too: a 3 x 3 one never is a valid edge list (its last row's weight is its
    zero diagonal entry), nor is a 2 x 2 one with a zero entry off the diagonal
    (a self-loop row); a 2 x 2 one without is read the same both ways only as
    ``[[0, 1], [1, 0]]``, and any other is refused, naming both readings.
    """
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 2 or arr.dtype.kind not in "biuf":
        return False
    if not (np.all(np.isfinite(arr)) and np.all(arr >= 0) and not np.any(np.diagonal(arr))):
        return False
    if arr.shape[0] == 2 and np.all(arr[[0, 1], [1, 0]] != 0) and not np.all(arr[[0, 1], [1, 0]] == 1):
        a, b = arr[0, 1].item(), arr[1, 0].item()
        raise ValueError(f"{what} is ambiguous: the 2 x 2 array {arr.tolist()} reads as an adjacency matrix (nodes 0 "
                         f"and 1, weights {a} and {b}) and as an edge list (edges (0, {a}) and ({b}, 0)); say which: "
                         "Graph.from_scipy(scipy.sparse.csr_matrix(array)) or Graph.from_edges(array)")
    return True


def _is_split(data):
    """Whether ``data`` is an ``EdgeSplit`` (of :func:`lgekit.split_edges`), by what it holds: evaluation, which
    defines the class, reads graphs through this module."""
    return isinstance(getattr(data, "graph", None), Graph) and hasattr(data, "train_graph")


#: node attributes that hold a networkx graph's labels, looked for in this order when ``label_attribute`` is not
#: given (``"labels"`` is what :meth:`lgekit.Graph.to_networkx` writes; ``"club"`` is networkx's karate club's)
LABEL_ATTRIBUTES = ("labels", "label", "class", "club", "group", "community")

_LABEL_FORMS = ("an lgekit.Graph (or EdgeSplit) with labels, a networkx graph with a label node attribute, a "
                "(n_nodes, n_classes) 0/1 matrix (dense or scipy sparse), or one class per node (a 1-D integer "
                "array, negative for unlabelled, or a sequence of class names, None for unlabelled)")


class NodeLabels(NamedTuple):
    """Node labels as :func:`as_labels` reads them."""

    matrix: object          # (n_nodes, n_classes) 0/1 CSR int8
    names: Optional[np.ndarray]   # the class names, or None: the column numbers


def as_labels(data, n_nodes=None, what="labels", *, label_attribute=None):
    """``data`` as node labels, one row per node: the one reading of every form labels may come in.

    Every lgekit function that takes labels reads them here
    (:func:`lgekit.metrics.node_classification_f1`,
    :func:`~lgekit.metrics.node_classification_split`,
    :func:`lgekit.plotting.plot_embedding`,
    :class:`lgekit.callbacks.NodeClassificationCallback`):

    ========================================  =================================================
    ``data``                                  read as
    ========================================  =================================================
    :class:`lgekit.Graph`, ``EdgeSplit``      the graph's ``labels`` and ``label_names``
    networkx graph                            the node attribute ``label_attribute`` (default:
                                              the first of :data:`LABEL_ATTRIBUTES` that a
                                              node has), a class or an iterable of classes, in
                                              the node order of ``as_graph(data)``; a node
                                              without it is unlabelled
    sparse or dense ``(n, k)`` 0/1 matrix     memberships, a column per class
    1-D integer array                         one class per node, negative: unlabelled
    sequence of class names                   one class per node, ``None``: unlabelled
    ========================================  =================================================

    A networkx graph is never read as an array (its nodes are not classes).

    Parameters
    ----------
    data : any form above
    n_nodes : int, optional
        The rows the labels must have (the embedding's rows).
    what : str, default "labels"
        The argument's name, for error messages.
    label_attribute : str, optional
        A networkx graph's node attribute holding the labels.

    Returns
    -------
    NodeLabels
        ``matrix`` (CSR int8, 0/1) and ``names`` (None for a matrix: the
        column numbers).

    Raises
    ------
    TypeError
        None of the forms (the message lists them); ``label_attribute`` for
        a form that is not a networkx graph.
    ValueError
        No labels (a Graph without them, a networkx graph whose nodes have
        none of the attributes), another number of rows than ``n_nodes``, a
        value that is not a 0/1 membership.

    Examples
    --------
    >>> import networkx as nx
    >>> labels = as_labels(nx.karate_club_graph())          # its "club" node attribute
    >>> labels.matrix.shape, labels.names.tolist()
    ((34, 2), ['Mr. Hi', 'Officer'])
    >>> as_labels([0, 2, -1]).matrix.toarray().tolist()
    [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    """
    if label_attribute is not None and not is_networkx(data):
        raise TypeError(f"label_attribute applies to a networkx graph's node attribute; {what} is a "
                        f"{type(data).__name__}")
    if is_networkx(data):
        matrix, names = _networkx_labels(data, what, label_attribute)
    elif isinstance(data, Graph) or _is_split(data):
        graph = as_graph(data, what)
        if graph.labels is None:
            raise ValueError(f"{what}: the graph {graph.name or ''} has no node labels".replace("  ", " "))
        matrix, names = graph.labels, graph.label_names
    elif isinstance(data, (str, bytes, os.PathLike, dict)) or is_dataframe(data) or np.isscalar(data) or data is None:
        raise TypeError(f"{what} must be {_LABEL_FORMS}; got {type(data).__name__}")
    else:
        try:
            matrix, names = node_label_matrix(data, None, what)
        except TypeError:
            raise TypeError(f"{what} must be {_LABEL_FORMS}; got {type(data).__name__}") from None
    if n_nodes is not None and matrix.shape[0] != n_nodes:
        raise ValueError(f"{what} has {matrix.shape[0]} rows (one per node) but the embedding has {n_nodes} rows")
    return NodeLabels(matrix, names)


def _networkx_labels(nx_graph, what, attribute):
    """``(matrix, names)`` from a networkx graph's node attribute, in :func:`as_graph`'s node order."""
    if attribute is None:
        present = set()
        for _, data in nx_graph.nodes(data=True):
            present.update(data)
        attribute = next((a for a in LABEL_ATTRIBUTES if a in present), None)
        if attribute is None:
            raise ValueError(f"{what} is a networkx graph whose nodes have none of the label attributes "
                             f"{list(LABEL_ATTRIBUTES)} (they have {sorted(map(str, present)) or 'no attributes'}); "
                             "name the attribute with label_attribute=...")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)   # self-loops dropped: nothing to do with the labels
        graph = Graph.from_networkx(nx_graph, weight=None, label_attr=attribute)
    if graph.labels is None or graph.labels.nnz == 0:
        raise ValueError(f"{what}: no node of the networkx graph has the label attribute {attribute!r}")
    return graph.labels, graph.label_names


def load_or_synthetic(name, *, n_nodes=None, seed=None, data_home=None):
    """The registered data set ``name`` if its files are on this machine, else a synthetic stand-in.

    For tutorials, demos and quick checks that must run anywhere: never
    downloads.  The stand-in is ``"synthetic-blogcatalog"`` (a seeded
    planted-partition graph, see :func:`planted_partition_graph`).

    Parameters
    ----------
    name : str
        A registered data set (see :func:`load`).
    n_nodes : int, optional
        Nodes of the stand-in (default: the generator's, BlogCatalog's 10,312).
    seed : None, int or numpy.random.Generator
        Seed of the stand-in.
    data_home : str or pathlib.Path, optional
        As in :func:`load`.

    Returns
    -------
    graph : Graph
    note : str or None
        None when ``graph`` is the real data set, else a sentence saying that
        it was not found, which graph stands in, and how to get the real one.

    Examples
    --------
    >>> graph, note = load_or_synthetic("blogcatalog", n_nodes=300, seed=0)
    >>> graph.name in ("blogcatalog", "synthetic-blogcatalog")
    True
    """
    key = resolve_name(name)
    if key is None:
        raise ValueError(f"name must be a registered data set ({', '.join(sorted(registry()))}), got {name!r}")
    try:
        return load(key, data_home=data_home, download=False), None
    except (FileNotFoundError, OSError) as exc:
        kwargs = {"seed": seed} if n_nodes is None else {"n_nodes": n_nodes, "seed": seed}
        note = (f"{key} is not available on this machine ({type(exc).__name__}), so the synthetic-blogcatalog "
                f"graph stands in for it; `lgekit datasets fetch {key}` or LGEKIT_DATA gives the real one")
        return load("synthetic-blogcatalog", **kwargs), note


def _load_registered(key, *, data_home, delimiter, labels, directed, download, generator_kwargs):
    entry = info(key)
    if directed is None:
        directed = entry.default_kind == "directed"
    if entry.embedded:
        if labels is not None:
            raise ValueError(f"labels cannot be given for {key!r}: it is generated with its own labels")
        if directed:
            raise ValueError(f"{key!r} is undirected; directed=True is not supported for it")
        kwargs = dict(generator_kwargs)
        kwargs.setdefault("name", key)
        return planted_partition_graph(**kwargs)
    if generator_kwargs:
        raise TypeError(f"unexpected keyword argument(s) {sorted(generator_kwargs)} for data set {key!r}; "
                        "generator arguments only apply to 'synthetic-blogcatalog'")
    if labels is not None:
        raise ValueError(f"labels cannot be given for the registered data set {key!r}; load its files by path instead")
    folder = locate(key, data_home)
    if folder is None:
        is_offline = offline()
        if download is None:
            download = not is_offline
        if not download:
            where = ", ".join(str(p) for p in search_path(data_home))
            if is_offline:
                reason = f"not found in {where}, and downloads are disabled (LGEKIT_OFFLINE is set)"
                target = Path(data_home).expanduser() / entry.folder if data_home is not None else None
                hint = manual_instructions(entry, target)
            else:
                reason = f"not found in {where}"
                hint = f"run `lgekit datasets fetch {key}` or call lgekit.datasets.fetch({key!r})"
            sep = ".\n" if is_offline else "; "  # the hand-install steps are several lines
            raise DatasetNotFoundError(f"data set {key!r} {reason}{sep}{hint}", dataset=key, reason=reason, hint=hint)
        folder = fetch(key, data_home=data_home)
    check_local_copy(key, folder)  # an edited copy is not the registered data set (its results would be stored so)
    files = {f.name: file_in(folder, f.name) for f in entry.files}
    logger.info("loading %s from %s", key, folder)
    if entry.kind == "directed" and not directed:
        # one line saying how the data was read (the command line turns it into a note)
        logger.info("%s is a directed data set read undirected: each arc's direction dropped, reciprocal arcs "
                    "merged (directed=True, or --directed, keeps the arcs)", key)
    if key == "blogcatalog":
        return load_asu_folder(folder, delimiter=delimiter, directed=directed, name=key, self_loops="drop")
    if key == "ppi":
        return load_mat(files["Homo_sapiens.mat"], directed=directed, name=key, self_loops="drop")
    if key == "facebook":
        return load_edge_list(files["facebook_combined.txt"], delimiter=delimiter, directed=directed, name=key,
                              self_loops="drop", header=False, id_type="int")
    if key == "cora":
        return load_cora(files["cora.cites"], directed=directed, name=key)
    if key == "email-eu-core":
        return load_email_eu_core(files["email-Eu-core.txt"], files["email-Eu-core-department-labels.txt"],
                                  directed=directed, name=key, self_loops="drop")
    raise AssertionError(f"no loader for registered data set {key!r}")  # pragma: no cover
