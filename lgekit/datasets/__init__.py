"""Graphs to embed: the paper's real data sets, files by path, and seeded random generators.

>>> from lgekit import datasets
>>> g = datasets.load("synthetic-blogcatalog", n_nodes=500, seed=0)
>>> g.name, g.n_nodes, g.n_labels
('synthetic-blogcatalog', 500, 39)

Registered data sets (``lgekit datasets list``): ``blogcatalog``, ``ppi``,
``facebook``, ``email-eu-core`` (files found locally or downloaded from
their publishers, see :func:`fetch`) and ``synthetic-blogcatalog`` (generated,
no download).  Any edge list, ``.mat`` file or ASU folder loads by path.
"""
import logging
import os
from pathlib import Path

from . import generators
from ._fetch import (
    ChecksumError,
    DownloadError,
    cache_dir,
    fetch,
    find_data_home,
    locate,
    search_path,
    verify,
)
from ._loaders import (
    DataFormatError,
    load_asu_folder,
    load_edge_list,
    load_email_eu_core,
    load_mat,
    read_edge_list,
    read_label_file,
)
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

__all__ = [
    "load", "fetch", "registry", "info", "find_data_home", "locate", "search_path", "cache_dir", "verify",
    "DatasetInfo", "DataFormatError", "DownloadError", "ChecksumError",
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


def load(name_or_path, *, data_home=None, format=None, delimiter=None, labels=None, directed=False,
         download=None, **generator_kwargs):
    """Load a graph: a registered data set by name, or a file or folder by path.

    Parameters
    ----------
    name_or_path : str or pathlib.Path
        A registered name (case-insensitive: ``"blogcatalog"``, ``"ppi"``,
        ``"facebook"``, ``"email-eu-core"``, ``"synthetic-blogcatalog"``) or
        the path of an edge list (``.txt``/``.csv``/``.edgelist``/... , may be
        ``.gz``), of a DeepWalk ``.mat`` file, or of an ASU folder.  A string
        that is a registered name always means the data set; to load a file
        or folder called ``facebook``, pass ``Path("facebook")`` or
        ``"./facebook"``.
    data_home : str or pathlib.Path, optional
        Folder holding ``<name>/<files>`` for registered data sets; default:
        ``$LGEKIT_DATA``, a source checkout's ``../shared/data``, then the
        user cache (see :func:`find_data_home`).  Missing files are
        downloaded into it (or the user cache) when ``download`` is true.
    format : {"edgelist", "mat", "asu"}, optional
        File format of a path; guessed from the suffix (``.mat``) or from a
        folder's contents (``edges.csv``: ASU) by default.
    delimiter : str, optional
        Field separator of text files; sniffed from the first data line
        (``,`` ``;`` ``|`` or whitespace) by default.
    labels : str, pathlib.Path or array-like, optional
        Node labels for a path: a ``node label [label ...]`` file, or any
        form :meth:`lgekit.Graph.from_edges` accepts.  For a ``.mat`` file
        this replaces its ``group`` matrix.
    directed : bool, default False
        Keep arcs as directed edges instead of symmetrising.
    download : bool, optional
        Fetch a registered data set that is not found locally.  Default:
        yes, unless the environment variable ``LGEKIT_OFFLINE`` is set (to
        anything but ``0``), in which case a missing data set is a
        ``FileNotFoundError`` saying how to get it.
    **generator_kwargs
        For ``"synthetic-blogcatalog"`` only: keyword arguments of
        :func:`planted_partition_graph` (``n_nodes``, ``n_labels``,
        ``mean_degree``, ``mixing``, ``seed``, ...).

    Returns
    -------
    Graph
        With ``graph.name`` set to the registered name or the file's stem.

    Raises
    ------
    DataFormatError
        A file is malformed (a ``ValueError``; the message names the file and line).
    FileNotFoundError
        A path does not exist.
    DownloadError
        A registered data set is missing and could not be downloaded.
    ValueError, TypeError
        Bad arguments (unknown name, unknown format, generator arguments for a file).

    Notes
    -----
    Self-loops: registered data sets drop them and log the count at INFO
    (email-Eu-core has 642, PPI's matrix 894 diagonal entries: known
    properties of the data, not news).  Files loaded by path keep lgekit's
    default: :class:`lgekit.Graph` drops them with a :class:`lgekit.GraphWarning`.
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS} or None, got {format!r}")
    if not isinstance(name_or_path, (str, Path)):
        raise TypeError(f"name_or_path must be a data set name or a path, got {type(name_or_path).__name__}")
    key = resolve_name(name_or_path) if isinstance(name_or_path, str) else None
    if key is not None:
        return _load_registered(key, data_home=data_home, delimiter=delimiter, labels=labels, directed=directed,
                                download=download, generator_kwargs=generator_kwargs)
    path = Path(name_or_path).expanduser()
    if generator_kwargs:
        raise TypeError(f"unexpected keyword argument(s) {sorted(generator_kwargs)} for a file; generator arguments "
                        "only apply to 'synthetic-blogcatalog'")
    if not path.exists():
        raise FileNotFoundError(
            f"{str(name_or_path)!r} is neither a registered data set ({', '.join(registry())}) nor an existing "
            "file or folder"
        )
    fmt = format or _guess_format(path)
    name = path.name if path.is_dir() else path.name.split(".")[0]
    if fmt == "asu":
        if labels is not None:
            raise ValueError("labels cannot be given for an ASU folder: its labels are group-edges.csv")
        return load_asu_folder(path, delimiter=delimiter, directed=directed, name=name)
    if fmt == "mat":
        return load_mat(path, labels=labels, directed=directed, name=name)
    return load_edge_list(path, delimiter=delimiter, labels=labels, directed=directed, name=name)


def _load_registered(key, *, data_home, delimiter, labels, directed, download, generator_kwargs):
    entry = info(key)
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
        if download is None:
            download = os.environ.get("LGEKIT_OFFLINE", "0") in ("", "0")
        if not download:
            raise FileNotFoundError(
                f"data set {key!r} not found in {', '.join(str(p) for p in search_path(data_home))}; "
                f"run `lgekit datasets fetch {key}` or call lgekit.datasets.fetch({key!r})"
            )
        folder = fetch(key, data_home=data_home)
    from ._fetch import _file_in

    files = {f.name: _file_in(folder, f.name) for f in entry.files}
    logger.info("loading %s from %s", key, folder)
    if key == "blogcatalog":
        return load_asu_folder(folder, delimiter=delimiter, directed=directed, name=key, self_loops="drop")
    if key == "ppi":
        return load_mat(files["Homo_sapiens.mat"], directed=directed, name=key, self_loops="drop")
    if key == "facebook":
        return load_edge_list(files["facebook_combined.txt"], delimiter=delimiter, directed=directed, name=key,
                              self_loops="drop")
    if key == "email-eu-core":
        return load_email_eu_core(files["email-Eu-core.txt"], files["email-Eu-core-department-labels.txt"],
                                  directed=directed, name=key, self_loops="drop")
    raise AssertionError(f"no loader for registered data set {key!r}")  # pragma: no cover
