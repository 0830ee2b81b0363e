"""The estimator base shared by every lgekit embedding model.

:class:`BaseEmbedding` does everything that is not the optimiser: parameter
validation, turning the user's data into index pairs, seeding, initialising
the embedding, the epoch loop with its history, callbacks, progress bar and
divergence handling, and the exits (``transform``, ``score_pairs``,
``save``/``load``, ``to_word2vec``).  A model subclasses it and supplies the
solver through a handful of hooks (see the class docstring).
"""
import contextlib
import json
import logging
import math
import numbers
import os
import re
import struct
import time
import tokenize
import warnings
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator

from .._atomic import atomic_path, atomic_write_text
from .._random import check_random_state, draw_seed
from .. import _parameters
from .._validation import InvalidParameterError, validate_parameter_constraints

__all__ = ["BaseEmbedding", "DivergenceError", "TableLayout", "TrainingData", "available_memory", "graph_kind",
           "max_n_threads"]

logger = logging.getLogger(__name__)

# 2: the class is stored by its registry name, object node ids as typed JSON
# 3: the graph's kind ("graph_kind"); directed and bipartite models add the second table
#    ("context_embedding") and its node ids ("context_node_ids[_json]", "context_node_ids_kind").
#    Models of undirected graphs are still written as format 2 (nothing in them changed).
_FORMAT_VERSION = 3

#: the kinds of graph whose model learns two tables (sources / left nodes, targets / right nodes)
TWO_TABLE_KINDS = ("directed", "bipartite")


class DivergenceError(FloatingPointError):
    """Training produced non-finite values, exploding norms or a blown-up objective.

    Attributes
    ----------
    epoch : int
        The epoch (0-based index ``t``) at which divergence was detected.
    history : list of dict
        The history records so far; the last one has ``"diverged": True``
        and ``"divergence_reason"``.  The estimator keeps them as
        ``history_`` too, so a parameter sweep can mark the run as diverged
        instead of crashing.
    reason : str or None
        Which check fired (see :class:`BaseEmbedding`, "Divergence").
    parameter : str or None
        The parameter the advice names (``"lr"``, ``"lam_r"``,
        ``"init_scale"``), when the cause is clear.
    """

    def __init__(self, message, epoch=None, history=None, reason=None, parameter=None):
        super().__init__(message)
        self.epoch = epoch
        self.history = [] if history is None else history
        self.reason = reason
        self.parameter = parameter


@dataclass(frozen=True)
class TrainingData:
    """What a solver trains on, in internal node indices.

    Attributes
    ----------
    n_nodes : int
    node_ids : ndarray of shape (n_nodes,)
        External id of each row of the embedding.
    train_graph : lgekit.Graph
        The graph whose edges are the positive pairs (the training graph of a
        split).  Solvers that resample negatives avoid its edges.
    positives : ndarray of shape (m, 2), int64
        Positive (edge) pairs.
    pos_weights : ndarray of shape (m,), float64
        Weight of each positive pair (1 for unweighted graphs).
    negatives : ndarray of shape (k, 2), int64
        Negative pairs (no self-pairs).
    layout : TableLayout or None
        For a directed or bipartite graph, how the rows split into the two
        tables: ``n_nodes`` is then ``n_source + n_target``, the pairs are
        already in the rows of the stacked table, ``(u, n_source + v)``, and
        ``node_ids`` holds the source ids followed by the target ids.  None
        for an undirected graph (one table) and for the data a solver gives
        back (:meth:`~lgekit.models.SGDSolver.training_data`).

    A solver copies what it needs into its own layout when it is built; the
    estimator does not keep this object (its arrays are the size of the
    training set).
    """

    n_nodes: int
    node_ids: np.ndarray
    train_graph: object
    positives: np.ndarray
    pos_weights: np.ndarray
    negatives: np.ndarray
    layout: object = None


def graph_kind(graph):
    """``"undirected"``, ``"directed"`` or ``"bipartite"``: ``graph.kind``, or for a graph object
    without one, ``"directed"`` when ``graph.is_directed`` else ``"undirected"``."""
    return getattr(graph, "kind", "directed" if getattr(graph, "is_directed", False) else "undirected")


def _concat_ids(a, b):
    """Two id arrays end to end, as an object array when their dtypes differ (no int -> str casts)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == b.dtype:
        return np.concatenate([a, b])
    out = np.empty(len(a) + len(b), dtype=object)
    for i, value in enumerate(a.tolist() + b.tolist()):   # one by one: a tuple id stays one id
        out[i] = value
    return out


@dataclass(frozen=True)
class TableLayout:
    r"""Where the two tables of a directed or bipartite graph sit in the one table the solver trains.

    The paper's footnote 1: a directed graph is embedded with two vectors per
    node, an out-vector :math:`x_u` and an in-vector :math:`y_v`, scored
    :math:`x_u\cdot y_v` -- "equivalent to learning embedding on a
    transformed undirected bipartite graph" whose left side holds the
    sources and whose right side holds the targets.  A bipartite graph (Theorem
    1's setting: :math:`a \in U`, :math:`b \in V`) is that form already.
    The solvers therefore train ONE table of ``n_source + n_target`` rows,
    rows ``0..n_source-1`` the source/left vectors and the rest the
    target/right vectors, on the pairs ``(u, n_source + v)``: every pair of
    the stacked table joins a source row to a target row, so its updates are
    the two-table updates (:mod:`lgekit.reference`, "Two tables"), and the
    kernels need no second code path.

    Attributes
    ----------
    kind : {"directed", "bipartite"}
    n_source, n_target : int
        Rows of ``embedding_`` (sources: every node of a directed graph;
        the left nodes of a bipartite one) and of ``context_embedding_``.
    source_ids, target_ids : ndarray
        The external ids of those rows (the same array for a directed graph;
        the graph's ``left_ids`` and ``right_ids`` for a bipartite one).
    target_offset : int
        The graph index of the first target node: 0 for a directed graph,
        ``n_left`` for a bipartite one (whose right nodes are graph indices
        ``n_left..n_nodes-1``).
    """

    kind: str
    n_source: int
    n_target: int
    source_ids: np.ndarray
    target_ids: np.ndarray
    target_offset: int

    @classmethod
    def of(cls, graph):
        """The layout of ``graph``'s two tables, or None for an undirected graph."""
        kind = graph_kind(graph)
        if kind == "directed":
            ids = np.asarray(graph.node_ids)
            return cls("directed", graph.n_nodes, graph.n_nodes, ids, ids, 0)
        if kind == "bipartite":
            n_left = int(graph.n_left)
            return cls("bipartite", n_left, graph.n_nodes - n_left, np.asarray(graph.left_ids),
                       np.asarray(graph.right_ids), n_left)
        return None

    @property
    def n_rows(self):
        """Rows of the stacked table."""
        return self.n_source + self.n_target

    @property
    def row_ids(self):
        """The id of each row of the stacked table (sources, then targets)."""
        return _concat_ids(self.source_ids, self.target_ids)

    def table_pairs(self, pairs, what="pairs"):
        """Graph index pairs as rows of the stacked table: ``(u, n_source + v - target_offset)``.

        A bipartite pair may come as (right, left): it is turned round, the
        edge being the same.  A pair inside one side of a bipartite graph has
        no two-table score and raises ValueError naming ``what``.
        """
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if self.kind == "bipartite":
            left = pairs < self.n_source
            flip = ~left[:, 0] & left[:, 1]
            if np.any(flip):
                pairs = pairs.copy()
                pairs[flip] = pairs[flip][:, ::-1]
            inside = left[:, 0] == left[:, 1]
            if np.any(inside):
                bad = pairs[inside][0].tolist()
                raise ValueError(f"X: {what} must join a left node to a right node of the bipartite graph "
                                 f"(left indices < n_left={self.n_source}), got the pair {bad} inside one side")
            return np.ascontiguousarray(pairs)
        out = pairs.copy()
        out[:, 1] += self.n_source - self.target_offset
        return out


def _is_edge_split(data):
    return all(hasattr(data, a) for a in ("train_graph", "train_positives", "train_negatives"))


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj)


# ---------------------------------------------------------------------- resources
#: at most this many threads per CPU: beyond, OpenMP gains nothing and far beyond it crashes
_MAX_THREADS_PER_CPU = 64


def max_n_threads():
    """The largest ``n_threads`` the estimators accept: 64 x ``os.cpu_count()``.

    Oversubscribing a CPU a few times can help a busy machine; tens of
    thousands of OpenMP threads exhaust the thread stacks and crash the
    process (``n_threads=100000`` ended in a segmentation fault).
    """
    return _MAX_THREADS_PER_CPU * (os.cpu_count() or 1)


#: environment variable overriding the available memory (bytes, or with a K/M/G/T suffix)
MEMORY_ENV = "LGEKIT_AVAILABLE_MEMORY"

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _parse_bytes(text):
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:I?B)?\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"${MEMORY_ENV} must be a number of bytes, optionally with a K/M/G/T suffix "
                         f"(e.g. 8G), got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def _read_int(path):
    try:
        with open(path) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _proc_status_bytes(field):
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def available_memory():
    """Memory this process can still allocate without swapping, as ``(bytes, source)``.

    The smallest of: ``MemAvailable`` of ``/proc/meminfo`` (else
    ``SC_AVPHYS_PAGES x SC_PAGE_SIZE``), the room left under a cgroup memory
    limit (v2 ``memory.max``, v1 ``memory.limit_in_bytes``) and under the
    soft ``RLIMIT_AS`` / ``RLIMIT_DATA`` limits.  The environment variable
    ``LGEKIT_AVAILABLE_MEMORY`` (bytes, or e.g. ``"2G"``) overrides them all.

    Returns
    -------
    (int, str) or (None, None)
        ``(None, None)`` when the platform tells nothing.
    """
    env = os.environ.get(MEMORY_ENV)
    if env:
        return _parse_bytes(env), f"${MEMORY_ENV}"
    found = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append((int(line.split()[1]) * 1024, "MemAvailable in /proc/meminfo"))
                    break
    except (OSError, ValueError, IndexError):
        pass
    if not found:
        try:
            found.append((os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "free physical memory"))
        except (ValueError, OSError, AttributeError):
            pass
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        if limit is not None and usage is not None and limit < 2**60:  # "max" / 2**63-ish mean none
            found.append((max(limit - usage, 0), f"cgroup limit {limit_file}"))
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        resource = None
    if resource is not None:
        for name, field in (("RLIMIT_AS", "VmSize"), ("RLIMIT_DATA", "VmData")):
            soft = resource.getrlimit(getattr(resource, name))[0]
            used = _proc_status_bytes(field)
            if soft != resource.RLIM_INFINITY and used is not None:
                found.append((max(soft - used, 0), f"the {name} limit"))
    if not found:
        return None, None
    return min(found, key=lambda item: item[0])


def _format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


# ---------------------------------------------------------------------- model files
def _estimator_registry():
    """lgekit's own estimators by class name: the only classes :meth:`BaseEmbedding.load` builds."""
    from .hinge import HingeEmbedding
    from .logistic import LogisticEmbedding

    return {"LogisticEmbedding": LogisticEmbedding, "HingeEmbedding": HingeEmbedding}


# what files of format 1 stored as "class" (module:qualname) for lgekit's own estimators
_LEGACY_CLASS_NAMES = {"lgekit.models.logistic:LogisticEmbedding": "LogisticEmbedding",
                       "lgekit.models.hinge:HingeEmbedding": "HingeEmbedding"}

# anything parsing untrusted bytes can raise (zipfile, zlib, numpy's .npy header parser, json): each is
# a malformed file, reported as ValueError naming it (numpy parses a .npy header with tokenize and
# ast.literal_eval: SyntaxError, TokenError)
MALFORMED_FILE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, TypeError, LookupError, ArithmeticError,
              struct.error, RuntimeError, SyntaxError, tokenize.TokenError, MemoryError)

_MAX_MEMBERS = 64
# deflate cannot expand data more than ~1032x: a member declaring more is a zip bomb or garbage
_MAX_DEFLATE_RATIO = 1100


def read_checked_npz(path):
    """The arrays of an ``.npz`` file, read without pickles and with every header checked first.

    No array is allocated before its declared shape and dtype agree with the
    member's size in the zip directory, so a crafted header cannot make numpy
    allocate more than the file holds.  OSError of opening the file
    (missing, permission) propagates; anything wrong inside it is a
    ValueError naming the file.
    """
    with open(path, "rb") as fh:
        try:
            return _read_npz_members(fh)
        except MALFORMED_FILE_ERRORS as exc:
            raise ValueError(f"{path} is not a readable .npz model file ({type(exc).__name__}: {exc})") from exc


def _read_npz_members(fh):
    fmt = np.lib.format
    zf = zipfile.ZipFile(fh)
    infos = zf.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise ValueError(f"{len(infos)} members, more than a model file has")
    arrays = {}
    for info in infos:
        if not info.filename.endswith(".npy") or info.is_dir():
            raise ValueError(f"member {info.filename!r} is not a .npy array")
        key = info.filename[:-len(".npy")]
        if key in arrays:
            raise ValueError(f"member {info.filename!r} appears twice")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.compress_size != info.file_size:
                raise ValueError(f"member {key!r}: stored size {info.compress_size} != size {info.file_size}")
        elif info.file_size > _MAX_DEFLATE_RATIO * info.compress_size + 2**16:
            raise ValueError(f"member {key!r}: declares {info.file_size} bytes from {info.compress_size} compressed")
        with zf.open(info) as member:
            version = fmt.read_magic(member)
            if version == (1, 0):
                shape, _, dtype = fmt.read_array_header_1_0(member)
            elif version in ((2, 0), (3, 0)):
                shape, _, dtype = fmt.read_array_header_2_0(member)
            else:
                raise ValueError(f"member {key!r}: unsupported .npy version {version}")
            header = member.tell()
        if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in "biufUS":
            raise ValueError(f"member {key!r}: dtype {dtype} is not a plain number or string type")
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes != info.file_size - header:
            raise ValueError(f"member {key!r}: header declares shape {shape} of {dtype} ({nbytes} bytes) but "
                             f"the member holds {info.file_size - header} bytes")
        with zf.open(info) as member:
            arrays[key] = fmt.read_array(member, allow_pickle=False)
            if member.read(1):   # also completes the read, so that zipfile checks the CRC
                raise ValueError(f"member {key!r}: data after the array")
    return arrays


def _encode_id(value):
    """A node id as JSON that keeps its type: ints, floats, strs, bools and None are JSON's own;
    a tuple becomes ``{"tuple": [...]}`` (the only dict in the encoding)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"tuple": [_encode_id(v) for v in value]}
    raise ValueError(f"node id {value!r} of type {type(value).__name__} cannot be saved: model files store "
                     "ids that are ints, floats, strs, bools, None or tuples of them")


def _check_loaded_ids(ids, n, path, what, table):
    if ids.shape != (n,):
        raise ValueError(f"{path}: {ids.shape[0] if ids.ndim == 1 else ids.shape} {what} for {n} {table} rows")
    if (len(set(ids.tolist())) if ids.dtype.kind == "O" else len(np.unique(ids))) != n:
        raise ValueError(f"{path}: the {what} are not unique")


def _store_node_ids(arrays, name, ids):
    """Put ``ids`` in ``arrays`` as ``name`` (int or str ids) or ``name + "_json"`` (typed JSON); return
    the kind written, ``"native"`` or ``"json"``."""
    ids = np.asarray(ids)
    if ids.ndim == 1 and ids.dtype.kind in "iuUS":
        arrays[name] = ids
        return "native"
    if ids.ndim != 1:
        raise ValueError(f"{name}_ must be 1-D, got shape {ids.shape}")
    arrays[name + "_json"] = np.array(json.dumps([_encode_id(v) for v in ids.tolist()]))
    return "json"


def _decode_id(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict) and list(value) == ["tuple"] and isinstance(value["tuple"], list):
        return tuple(_decode_id(v) for v in value["tuple"])
    raise ValueError(f"a node id must be an int, float, str, bool, null or {{'tuple': [...]}}, got {value!r}")


_MISSING = object()


def _parse_json_scalar(array, path, name):
    """The JSON document held by a 0-d string array of a model file."""
    if array.shape != () or array.dtype.kind != "U":
        raise ValueError(f"{path}: {name!r} must be a 0-d string array, got shape {array.shape} of {array.dtype}")
    try:
        return json.loads(str(array[()]))
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path}: {name!r} is not valid JSON ({str(exc)[:100]})") from None


def _load_node_ids(arrays, kind, path, name="node_ids"):
    """The node ids of a model file (``name``: ``"node_ids"`` or ``"context_node_ids"``), with the types
    they had when saved."""
    if name != "node_ids":
        arrays = {key.replace(name, "node_ids"): value for key, value in arrays.items()
                  if key in (name, name + "_json")}
    if kind == "json":
        if "node_ids_json" not in arrays:
            raise ValueError(f"{path}: {name}_kind is 'json' but there is no '{name}_json' array")
        values = _parse_json_scalar(arrays["node_ids_json"], path, f"{name}_json")
        if not isinstance(values, list):
            raise ValueError(f"{path}: '{name}_json' must hold a JSON list")
        ids = np.empty(len(values), dtype=object)
        try:
            for i, value in enumerate(values):  # one by one: a list of tuples would become a 2-D array
                ids[i] = _decode_id(value)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"{path}: {str(exc)[:200]}") from None
        return ids
    if "node_ids" not in arrays:
        raise ValueError(f"{path}: no '{name}' array")
    ids = arrays["node_ids"]
    if ids.dtype.kind not in "iuUS":
        raise ValueError(f"{path}: '{name}' must hold integers or strings, got dtype {ids.dtype}")
    if kind == "str" and ids.ndim == 1:
        # format 1 stored object ids as their str(): the types are lost, the strings are the ids
        out = np.empty(len(ids), dtype=object)
        for i, value in enumerate(ids.astype(str).tolist()):
            out[i] = value
        return out
    return ids


class BaseEmbedding(BaseEstimator):
    r"""Base class of the linear graph embedding estimators (not for direct use).

    Notes
    -----
    **Contract for subclasses.**
    A subclass defines ``__init__`` with keyword arguments that it only stores
    (scikit-learn rule).  Among them, these common ones are validated here:
    ``dim``, ``lam_pos``, ``lam_neg``, ``lam_r``, ``epochs``, ``init_scale``,
    ``dtype``, ``n_threads``, ``schedule``, ``random_state``, ``verbose`` (and
    ``warm_start`` if the subclass has it).  The subclass implements:

    ``_check_params(self)``
        Validate its own parameters; raise ``ValueError``/``TypeError`` naming
        the parameter, the value and what is accepted.  Called at every fit
        after the common checks.
    ``_solver_key(self)`` -> tuple
        The parameters the solver's prepared state depends on; a fitted
        solver whose ``key`` differs is rebuilt (on the same pairs) at the
        next ``fit``/``partial_fit``.
    ``_make_solver(self, data, seed, state)`` -> :class:`~lgekit.models.Solver`
        Build the solver for a :class:`TrainingData` ``data``, bound to
        ``self.embedding_`` (C-contiguous, of dtype ``self._dtype``; the solver
        updates it IN PLACE, callbacks read it between epochs).  For a
        directed or bipartite graph ``self.embedding_`` is, during this call
        only, the whole stacked table (see "Two tables"), which is what
        ``data``'s pairs index.  ``seed`` is an
        int in [0, 2**64) for the kernel's SplitMix64 streams; epoch ``t`` must
        depend only on ``(seed, t)``, so that continuing a fit equals a longer
        fit.  ``state``: arrays of an earlier solver on the same pairs (its
        :meth:`~lgekit.models.Solver.state`, or a loaded model's), or None.
        The base drops ``data`` afterwards and then calls the solver's
        ``prepare()``, so that what it builds from its own arrays does not
        coexist with the user-sized input arrays.
    ``_configure_solver(self, solver)`` (optional)
        Pass the settings that may change between epochs without a rebuild
        (``n_threads``, ``schedule``, step sizes...).  The default sets
        ``n_threads`` and ``schedule``.
    ``_run_epoch(self, epoch)`` -> dict
        Run epoch ``epoch`` (0-based, continues across ``partial_fit``) with
        ``self.solver_.run_epoch`` and return the record: at least
        ``"objective"``, ``"loss_pos"``, ``"loss_neg"``, ``"reg"``; optionally
        ``"mean_norm"`` (computed here if missing), ``"diverged"`` (True when
        the solver reported :attr:`~lgekit.models.EpochStatus.NONFINITE`; the
        base then raises :class:`DivergenceError`) and model-specific keys.
        The base adds ``"epoch"``, ``"seconds"`` (wall time of ``_run_epoch``)
        and checks the objective and the norms for finiteness.
    ``_check_solver_state(self, arrays, n_nodes)`` (optional)
        Validate the solver arrays ``load`` read (ValueError if wrong); they
        are handed to the first ``_make_solver`` after the load as ``state``.
    ``_solver_divergence_advice(self, record)`` -> (str, str or None) (optional)
        What to suggest when training diverged, and the parameter it names
        (``"lr"``, ``"lam_r"``...); defaults to the class attribute
        ``_divergence_advice`` and ``None``.  An oversized ``init_scale`` is
        recognised here, before this hook is asked.
    ``_current_objective(self)`` -> float or None (optional)
        The objective of ``embedding_`` now, for the objective check (see
        "Divergence"; the all-zero embedding's comes from
        ``solver_.zero_objective()``); ``None`` disables it.
    ``_bytes_per_pair`` (class attribute, int)
        Memory the solver allocates per training pair, for the estimate
        compared with the available memory before a fit allocates anything.

    **Data.**
    ``fit(X)`` accepts an ``EdgeSplit`` (trains on ``train_graph`` edges
    and ``train_negatives``), an :class:`lgekit.Graph`, a networkx graph
    (edge attribute ``weight`` used when present) or a scipy sparse adjacency
    matrix.  For a graph, ``negatives_per_positive`` (4) uniform negative
    pairs per edge are drawn with :func:`lgekit.evaluation.sample_negative_pairs`
    from a seed drawn from ``random_state``.

    **Two tables.**
    For a directed graph (``graph.kind == "directed"``) or a bipartite one,
    the model learns a source/left table ``embedding_`` (rows: ``node_ids_``)
    and a target/right table ``context_embedding_`` (rows:
    ``context_node_ids_``; a directed graph's nodes again, a bipartite
    graph's right nodes), scoring a pair :math:`x_u \cdot y_v`.  The solver
    trains ONE stacked table of ``n_source + n_target`` rows on the pairs
    ``(u, n_source + v)`` (:class:`TableLayout`; the paper's footnote 1), so
    the kernels are those of the undirected case; ``embedding_`` and
    ``context_embedding_`` are views of its rows.  ``graph_kind_`` says
    which case a model is.  :meth:`score_pairs` takes (source, target) or
    (left, right) ids, :meth:`transform` gives source/left rows and, with
    ``context=True``, target/right rows; :meth:`save` stores both tables and
    the kind (format 3); :meth:`to_word2vec` writes both (see there).  For an
    undirected graph nothing of this exists and nothing changes.

    **Progress.**
    ``verbose`` says what a fit writes to ``sys.stderr`` (printed: no
    ``logging`` set-up needed).  0: nothing.  1: a line when the preparation
    starts (the input's size) and one when it ends (the training pairs, the
    seconds it took), then the epochs' progress: a tqdm bar on a terminal, a
    notebook bar in Jupyter, and elsewhere (a pipe, a log file, CI) one line
    every 5 seconds with the epochs done and planned, the elapsed time and
    the ETA (a call that runs a single epoch shows none of these).  2: also
    one line per epoch (its index, objective, mean norm, the metrics
    callbacks recorded such as ``test_ap``, its seconds).

    **History.**
    ``history_`` holds one dict per epoch with ``"epoch"`` (0-based ``t``),
    ``"seconds"``, ``"objective"``, ``"loss_pos"``, ``"loss_neg"``, ``"reg"``,
    ``"mean_norm"`` (mean L2 norm of the rows), ``"diverged"`` (False unless
    this record ended the run), model keys and whatever callbacks add.  The
    record that ends a diverged run also has ``"divergence_reason"``.

    **Divergence.**
    After every epoch the record is checked; the first check that fires
    ends the run with :class:`DivergenceError` (``history_`` kept).  The
    thresholds are class attributes, so a subclass (or a user, on the class)
    can change them; ``None`` disables a check.

    * any non-finite objective, loss part or mean norm;
    * ``divergence_max_mean_norm`` (1e8): a mean row norm above it (scores
      near 1e16 saturate every sigmoid; float32 overflows soon after);
    * ``divergence_objective_factor`` (10): the objective above this many
      times its reference, the larger of the objective of the embedding the
      run started from and of the all-zero embedding (``log 2`` per unit of
      pair weight for the logistic loss).  An optimiser that is working
      never ends an epoch an order of magnitude worse than doing nothing;
    * ``divergence_norm_growth`` (1.5) for ``divergence_growth_epochs`` (3):
      the mean norm grew by at least this factor in each of the last 3
      epochs while the objective rose in each (geometric growth while
      getting worse); when the records carry no objective, a growth of
      ``divergence_norm_growth_alone`` (2) per epoch for 3 epochs.

    The message names the parameter to change when the cause is clear
    (``init_scale`` when the starting vectors are already out of range,
    else the model's own analysis, e.g. ``lam_r`` or ``lr``).

    **Solver and callbacks.**
    A fit keeps its training state in one object, ``solver_`` (an
    :class:`~lgekit.models.SGDSolver` or :class:`~lgekit.models.DCDSolver`):
    the prepared pairs, work arrays, seed, and ``run_epoch(t)``,
    ``diagnostics()``, ``epoch_order(t)``, ``state()``/``set_state()``.
    ``planned_epochs_`` (a ``range``) holds the epochs the running
    ``fit``/``partial_fit`` plans; callbacks read it (and ``embedding_``,
    ``history_``, ``solver_``) between epochs.

    **scikit-learn.**
    What works: ``get_params``/``set_params`` and :func:`sklearn.base.clone`
    (the constructor only stores its keyword arguments); ``fit(X, y=None, *,
    callbacks=None)``, ``partial_fit(X, y=None, *, epochs=1, callbacks=None)``
    and ``fit_transform(X, y=None, **fit_params)`` ignore ``y``, and
    ``transform(graph)`` returns the rows of the graph's nodes in its node
    order, so an embedding can open a :class:`~sklearn.pipeline.Pipeline`
    whose later steps use one label per node::

        pipe = make_pipeline(LogisticEmbedding(lam_r=0.6), LogisticRegression())
        pipe.fit(graph, y)          # y[i]: the label of graph's i-th node
        pipe.predict(graph)

    ``score(split)`` is the test AP of an ``EdgeSplit``.  What does not work:
    ``GridSearchCV``, ``cross_val_score`` and the other model-selection tools
    index ``X`` by sample, and a graph is one object, not a sequence of
    samples (splitting its edges is :func:`lgekit.split_edges`'s job, with
    its leak checks).  Tune ``lam_r`` on a validation split carved out of the
    training graph, and look at the test split once::

        split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
        val = lgekit.split_edges(split.train_graph, test_fraction=0.2, seed=1)
        base = LogisticEmbedding(dim=64, epochs=20, random_state=0)
        scores = {p["lam_r"]: clone(base).set_params(**p).fit(val).score(val)
                  for p in ParameterGrid({"lam_r": [0.0, 0.3, 1.0]})}
        best = clone(base).set_params(lam_r=max(scores, key=scores.get)).fit(split)
        best.score(split)

    **Memory.**
    Before a fresh fit allocates the embedding and the solver's arrays, the
    bytes they need are compared with :func:`available_memory` (override it
    with the environment variable ``LGEKIT_AVAILABLE_MEMORY``); when they do
    not fit, a ``MemoryError`` says how much is needed, how much is
    available and which parameter to lower.  The initialisation draws in
    blocks of 256 KiB, so the peak stays near the embedding's size.
    """

    negatives_per_positive = 4
    _divergence_advice = "try a smaller learning rate or a larger lam_r"
    #: a mean row norm above this is divergence (scores ~1e16: sigmoids saturate, float32 overflows soon after)
    divergence_max_mean_norm = 1e8
    #: an objective above this many times the larger of its starting and all-zero values is divergence
    divergence_objective_factor = 10.0
    #: norm growth per epoch that, kept for ``divergence_growth_epochs`` epochs with a rising objective, is
    #: divergence
    divergence_norm_growth = 1.5
    #: the same without objective values in the records (e.g. ``diagnostics=False``)
    divergence_norm_growth_alone = 2.0
    divergence_growth_epochs = 3
    #: a typical initial score sqrt(dim) * init_scale**2 / 3 above this blames init_scale (sigmoids saturated
    #: from the start)
    _saturated_initial_score = 10.0
    #: bytes of the solver's arrays per training pair (see ``_check_memory``)
    _bytes_per_pair = 0
    #: the initialisation draws at most this many bytes at a time (a block that stays in a core's cache)
    _init_block_bytes = 256 * 2**10
    #: whether the solver takes a separate lambda_r for the context table (``lam_r_context``)
    _per_table_lam_r = False

    # ------------------------------------------------------------------ validation
    #: the declarative table of the parameters every estimator shares (see :mod:`lgekit._validation`);
    #: subclasses extend it with their own
    _parameter_constraints = _parameters.COMMON

    def _check_common_params(self):
        caller = type(self).__name__
        validate_parameter_constraints(self._parameter_constraints, self.get_params(), caller=caller)

        def bad(name, value, accepted):
            raise InvalidParameterError(f"{caller}: {name} must be {accepted}, got {value!r}", parameter=name,
                                        value=value, accepted=accepted)

        lam_r_context = getattr(self, "lam_r_context", None)
        if lam_r_context is not None and float(lam_r_context) != float(self.lam_r) and not self._per_table_lam_r:
            bad("lam_r_context", lam_r_context,
                f"None or equal to lam_r={self.lam_r!r} for {caller} (its solver applies one lam_r to every "
                "vector)")
        dtype = np.dtype(self.dtype)
        self._dtype = dtype
        # bounds that depend on another parameter or on the machine, beyond what a table can say:
        # the largest init_scale whose uniform draws (and their span 2 * init_scale) are finite in dtype
        biggest = float(np.finfo(dtype).max) / 2
        if self.init_scale > biggest:
            bad("init_scale", self.init_scale, f"a finite number >= 0 and <= {biggest:.3g} with dtype={dtype.name} "
                "(larger initial values are not representable; the default is 0.1)")
        limit = max_n_threads()
        if self.n_threads > limit:
            bad("n_threads", self.n_threads,
                f"an int in [1, {limit}] ({_MAX_THREADS_PER_CPU} x the {os.cpu_count() or 1} CPUs of this machine; "
                "more threads cannot run usefully and OpenMP crashes on far more)")
        if self.n_threads > 1:
            from .._openmp import openmp_enabled
            if not openmp_enabled():
                import warnings
                warnings.warn(f"n_threads={self.n_threads} requested but lgekit was built without OpenMP; "
                              "running on one thread", RuntimeWarning, stacklevel=3)

    def _check_params(self):  # pragma: no cover - overridden
        """Validate model-specific parameters (hook)."""

    # ------------------------------------------------------------------ data
    def _coerce_data(self, data, rng):
        """Turn the accepted forms of ``X`` into a :class:`TrainingData`."""
        from ..graph import Graph

        if _is_edge_split(data):
            graph = data.train_graph
            positives = np.asarray(data.train_positives, dtype=np.int64).reshape(-1, 2)
            negatives = np.asarray(data.train_negatives, dtype=np.int64).reshape(-1, 2)
            pos_weights = None
            edges = graph.edges()
            if len(edges) == len(positives) and np.array_equal(edges, positives):
                pos_weights = graph.edge_weights().astype(np.float64)
            elif graph.is_weighted:
                raise ValueError("X: the split's train_positives differ from train_graph.edges(), so "
                                 "their weights are unknown; pass a split made by lgekit.split_edges")
        else:
            if isinstance(data, Graph):
                graph = data
            elif type(data).__module__.split(".")[0] == "networkx":
                graph = Graph.from_networkx(data)   # its "weight" attribute, as Graph.from_networkx reads it
            elif hasattr(data, "tocsr") and hasattr(data, "shape"):
                graph = Graph.from_scipy(data)
            else:
                raise TypeError(
                    "X must be an EdgeSplit (from lgekit.split_edges), an lgekit.Graph, a networkx graph "
                    f"or a scipy sparse adjacency matrix, got {type(data).__name__}")
            positives = graph.edges()
            pos_weights = graph.edge_weights().astype(np.float64)
            negatives = None
        n = graph.n_nodes
        if len(positives) == 0:
            raise ValueError(f"X: the training graph has no edges ({n} nodes, 0 edges); "
                             "an embedding needs at least one positive pair")
        if pos_weights is None:
            pos_weights = np.ones(len(positives))
        given = [("positive", positives)]
        if negatives is None:
            from ..evaluation import sample_negative_pairs

            # drawn here: valid by construction (in range, no self-pairs), so not checked again
            k = self.negatives_per_positive * len(positives)
            negatives = np.asarray(sample_negative_pairs(graph, k, seed=draw_seed(rng), n_threads=int(self.n_threads)),
                                   dtype=np.int64)
        else:
            given.append(("negative", negatives))
        for name, pairs in given:
            if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
                raise ValueError(f"X: {name} pairs must be node indices in [0, {n}), got values in "
                                 f"[{pairs.min()}, {pairs.max()}]")
            if len(pairs) and np.any(pairs[:, 0] == pairs[:, 1]):
                raise ValueError(f"X: {name} pairs contain self-pairs (u, u), e.g. "
                                 f"{pairs[pairs[:, 0] == pairs[:, 1]][0].tolist()}; they are not allowed")
        if not np.all(np.isfinite(pos_weights)) or np.any(pos_weights < 0):
            raise ValueError("X: edge weights must be finite and >= 0")
        layout = TableLayout.of(graph)
        if layout is not None:
            # two tables (footnote 1): the pairs become rows of the stacked table, (u, n_source + v)
            return TrainingData(n_nodes=layout.n_rows, node_ids=layout.row_ids, train_graph=graph,
                                positives=layout.table_pairs(positives, "positive pairs"),
                                pos_weights=np.ascontiguousarray(pos_weights),
                                negatives=layout.table_pairs(negatives, "negative pairs"), layout=layout)
        return TrainingData(n_nodes=n, node_ids=np.asarray(graph.node_ids), train_graph=graph,
                            positives=np.ascontiguousarray(positives),
                            pos_weights=np.ascontiguousarray(pos_weights),
                            negatives=np.ascontiguousarray(negatives))

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, *, callbacks=None):
        """Fit the embedding.

        Parameters
        ----------
        X : EdgeSplit, lgekit.Graph, networkx graph or scipy sparse matrix
            Training data; see the class docstring.
        y : ignored
            Accepted so that the estimator can open a scikit-learn ``Pipeline``
            whose later steps take labels (e.g. one label per node of ``X``).
        callbacks : sequence of lgekit.callbacks.Callback, optional
            Called in order at the start, after every epoch (a callback
            returning True stops training) and at the end.

        Returns
        -------
        self

        Raises
        ------
        DivergenceError
            When the iterates become non-finite or explode (``history_`` is
            kept, its last record has ``"diverged": True``).
        """
        warm = bool(getattr(self, "warm_start", False)) and hasattr(self, "embedding_")
        return self._fit(X, callbacks, self.epochs, continue_=warm)

    def partial_fit(self, X, y=None, *, epochs=1, callbacks=None):
        """Run ``epochs`` more epochs, continuing from the current model.

        The learning-rate schedule and the per-epoch random streams continue
        from ``n_iter_``, so ``fit`` with ``epochs=a`` followed by
        ``partial_fit(X, epochs=b)`` on the same data equals one fit with
        ``epochs=a + b`` (with ``negatives="fixed"`` and a split, or the same
        graph object, as data).  An unfitted estimator is initialised first.
        Given the same data object again and unchanged parameters, it keeps
        the solver already prepared (``solver_``: pair records, work arrays,
        duals), so that a loop of ``partial_fit(X, epochs=1)`` costs what the
        epochs of one ``fit`` cost; new data or a changed parameter rebuilds
        it (on the same pairs when only a parameter changed).

        Parameters
        ----------
        X : EdgeSplit, lgekit.Graph, networkx graph or scipy sparse matrix
        y : ignored
        epochs : int, default 1
        callbacks : sequence of lgekit.callbacks.Callback, optional
        """
        if isinstance(epochs, bool) or not isinstance(epochs, numbers.Integral) or epochs < 1:
            raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
        return self._fit(X, callbacks, int(epochs), continue_=hasattr(self, "embedding_"))

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then return :meth:`transform` ``(X)``: the rows of ``X``'s nodes in ``X``'s node order
        (for the training graph, the whole embedding, a copy of ``embedding_``).

        ``fit_params`` go to :meth:`fit` (``callbacks``).
        """
        return self.fit(X, y, **fit_params).transform(X)

    def _check_callbacks(self, callbacks):
        if callbacks is None:
            return []
        if hasattr(callbacks, "on_epoch_end") or isinstance(callbacks, (str, bytes)):
            raise TypeError(f"callbacks must be a sequence of lgekit.callbacks.Callback objects, got one "
                            f"{type(callbacks).__name__}; pass [callback]")
        try:
            callbacks = list(callbacks)
        except TypeError:
            raise TypeError(f"callbacks must be a sequence of lgekit.callbacks.Callback objects, got "
                            f"{type(callbacks).__name__}: {callbacks!r}") from None
        for cb in callbacks:
            if not hasattr(cb, "on_epoch_end"):
                raise TypeError(f"callbacks must be lgekit.callbacks.Callback objects, got {type(cb).__name__}")
        return callbacks

    def _fit(self, X, callbacks, n_epochs, continue_):
        self._check_common_params()
        self._check_params()
        callbacks = self._check_callbacks(callbacks)
        solver = getattr(self, "solver_", None)
        same_source = solver is not None and X is getattr(self, "_data_source", None)
        # verbose >= 1 says what is prepared before the first epoch (sampling, pair records, initialisation)
        prepared_from = self._preparation_begins(X, announce=not (continue_ and same_source))
        if continue_:
            train = None if same_source else self._coerce_data(
                X, self._rng if hasattr(self, "_rng") else check_random_state(self.random_state))
            table = self._training_table()
            if train is not None:
                self._check_same_tables(train)
            n_nodes = solver.n_nodes if train is None else train.n_nodes
            if n_nodes != table.shape[0]:
                raise ValueError(f"X: has {n_nodes} nodes but the fitted embedding has "
                                 f"{table.shape[0]} rows; call fit to start afresh")
            if table.shape[1] != self.dim:
                raise ValueError(f"dim: is {self.dim} but the fitted embedding has {table.shape[1]} "
                                 "columns; call fit with warm_start=False to start afresh")
            self._set_table(np.ascontiguousarray(table, dtype=self._dtype))
            start = self.n_iter_
            if not hasattr(self, "_kernel_seed"):
                self._kernel_seed = draw_seed(check_random_state(self.random_state))
            fill_from = None
        else:
            # free the previous fit's solver before the new one's arrays are allocated
            self.__dict__.pop("solver_", None)
            self.__dict__.pop("_loaded_state", None)
            solver, same_source = None, False
            rng = check_random_state(self.random_state)
            self._rng = rng
            train = self._coerce_data(X, rng)
            self._check_memory(train)
            self._kernel_seed = draw_seed(rng)
            # allocated now, drawn after the solver is built: untouched pages cost no memory while the
            # solver copies the input pairs, and the draws are the same (the solver draws nothing)
            self._set_table(np.empty((train.n_nodes, self.dim), dtype=self._dtype), train.layout)
            fill_from = rng
            self.history_ = []
            self.n_iter_ = 0
            start = 0
        reuse = (solver is not None and train is None and solver.key == self._solver_key()
                 and solver.seed == self._kernel_seed and solver.embedding.dtype == self._training_table().dtype)
        if reuse:
            solver.embedding = self._training_table()
        else:
            if train is None:                 # the same data, other parameters: rebuild on the same pairs
                train = solver.training_data()
            else:
                self._set_node_ids(train)
            state = solver.state() if same_source else getattr(self, "_loaded_state", None)
            self.__dict__.pop("solver_", None)
            solver = None
            n_pairs = len(train.positives) + len(train.negatives)
            with self._whole_table_as_embedding():
                self.solver_ = self._make_solver(train, self._kernel_seed, state or None)
            self.__dict__.pop("_loaded_state", None)
            train = None                      # the input pairs: the solver has what it needs
            if fill_from is not None:
                self._fill_initial_embedding(self._training_table(), fill_from)
            self.solver_.prepare()
        self._configure_solver(self.solver_)
        self._data_source = X
        self._id_lookup = None
        self._prepare_divergence_checks(fresh=not continue_, start=start)
        if not reuse:
            self._preparation_ends(prepared_from, n_pairs)
        self._train(callbacks, start, n_epochs)
        return self

    def _solver_key(self):
        """The parameters the solver's prepared state depends on (hook)."""
        return ()

    # ------------------------------------------------------------------ one or two tables
    def _training_table(self):
        """The array the solver trains: ``embedding_`` itself (undirected graph), or the stacked table
        whose first ``n_source`` rows are ``embedding_`` and the rest ``context_embedding_``."""
        table = self.__dict__.get("_table")
        return self.embedding_ if table is None else table

    def _set_table(self, table, layout=_MISSING):
        """Bind the trained ``table``: for one table ``embedding_ = table``; for two, ``embedding_`` and
        ``context_embedding_`` become views of its rows.  ``layout`` (a :class:`TableLayout`, or None
        for one table) changes the split; by default the fitted one is kept."""
        if layout is _MISSING:   # keep the fitted split
            kind = getattr(self, "graph_kind_", "undirected")
            n_source = self.__dict__.get("_n_source")
        else:
            kind = "undirected" if layout is None else layout.kind
            n_source = None if layout is None else layout.n_source
        if kind not in TWO_TABLE_KINDS:
            for name in ("_table", "_n_source", "context_embedding_"):
                self.__dict__.pop(name, None)
            self.embedding_ = table
        else:
            self._table, self._n_source = table, int(n_source)
            # row slices of a C-contiguous array are C-contiguous views: the solver's updates show in both
            self.embedding_ = table[:n_source]
            self.context_embedding_ = table[n_source:]
        self.graph_kind_ = kind

    def _set_node_ids(self, train):
        """``node_ids_`` (and, for two tables, ``context_node_ids_``) of freshly coerced data."""
        layout = train.layout
        if layout is None:
            self.node_ids_ = train.node_ids
            self.__dict__.pop("context_node_ids_", None)
        else:
            self.node_ids_ = layout.source_ids
            self.context_node_ids_ = layout.target_ids

    def _check_same_tables(self, train):
        """Continuing a fit on new data: the data must have the fitted model's kind and table sizes."""
        layout = train.layout
        kind = "undirected" if layout is None else layout.kind
        fitted = getattr(self, "graph_kind_", "undirected")
        if kind != fitted:
            raise ValueError(f"X: is a {kind} graph but the model was fitted on a {fitted} graph; "
                             "call fit to start afresh")
        if layout is not None and layout.n_source != self.embedding_.shape[0]:
            raise ValueError(f"X: has {layout.n_source} source/left nodes but the fitted embedding_ has "
                             f"{self.embedding_.shape[0]} rows; call fit to start afresh")

    @contextlib.contextmanager
    def _whole_table_as_embedding(self):
        """While the solver is built, ``embedding_`` is the whole trained table (``_make_solver`` binds
        its solver to ``self.embedding_``); afterwards the source/left view again."""
        table = self.__dict__.get("_table")
        if table is None:
            yield
            return
        view = self.embedding_
        self.embedding_ = table
        try:
            yield
        finally:
            self.embedding_ = view

    def __getstate__(self):
        # the two views are rebuilt from the table on unpickling: pickled apart they would become copies
        # that the solver's updates no longer reach
        state = super().__getstate__()
        if state.get("_table") is not None:
            state = {k: v for k, v in state.items() if k not in ("embedding_", "context_embedding_")}
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if self.__dict__.get("_table") is not None:
            self._set_table(self._table)

    def _make_solver(self, data, seed, state):  # pragma: no cover - overridden
        """Build the solver (hook; see the class docstring)."""
        raise NotImplementedError

    def _configure_solver(self, solver):
        """Settings that may change between fits without rebuilding the solver (hook)."""
        solver.n_threads = int(self.n_threads)
        solver.schedule = self.schedule

    # ------------------------------------------------------------------ memory
    def _memory_needed(self, train):
        """Bytes a fresh fit allocates, by part: the embedding, the per-thread work rows and the
        solver's per-pair (and per-node) arrays."""
        row = int(self.dim) * self._dtype.itemsize
        return {
            "embedding": train.n_nodes * row,
            "work": 2 * int(self.n_threads) * row,
            "pairs": (len(train.positives) + len(train.negatives)) * self._bytes_per_pair + 64 * train.n_nodes,
        }

    def _check_memory(self, train):
        """MemoryError before allocating what cannot fit (it would thrash, then fail, much later)."""
        parts = self._memory_needed(train)
        needed = sum(parts.values())
        available, source = available_memory()
        if available is None or needed <= available:
            return
        n_pairs = len(train.positives) + len(train.negatives)
        largest = max(parts, key=parts.get)
        if largest == "pairs":
            advice = ("use fewer training pairs: fewer negatives per edge (lgekit.split_edges(..., "
                      "negatives_per_positive=k)) or a smaller graph")
        else:
            advice = f"lower dim (now {self.dim})"
            if largest == "work":
                advice += f" or n_threads (now {self.n_threads})"
            if self._dtype == np.float64:
                advice += " or use dtype='float32' (half the bytes)"
        raise MemoryError(
            f"{type(self).__name__}: training needs about {_format_bytes(needed)} ({_format_bytes(parts['embedding'])} "
            f"for the {train.n_nodes:,} x {self.dim:,} {self._dtype.name} embedding, {_format_bytes(parts['work'])} "
            f"for {self.n_threads} thread(s)' work rows, {_format_bytes(parts['pairs'])} for {n_pairs:,} training "
            f"pairs) but only {_format_bytes(available)} is available ({source}); {advice}")

    def _initial_embedding(self, n_nodes, rng):
        """A fresh (n_nodes, dim) embedding drawn by :meth:`_fill_initial_embedding`."""
        return self._fill_initial_embedding(np.empty((n_nodes, self.dim), dtype=self._dtype), rng)

    def _fill_initial_embedding(self, emb, rng):
        """Fill ``emb`` uniformly in [-init_scale, init_scale]: the numbers one ``rng.uniform(-s, s, emb.shape)``
        call gives (``low + (high - low) * next_double``, in float64, cast to the dtype), drawn at most
        ``_init_block_bytes`` at a time, so that the peak memory is the embedding plus one block (and the
        block stays in cache between the draw, the scaling and the cast)."""
        flat = emb.reshape(-1)
        low, span = -float(self.init_scale), 2.0 * float(self.init_scale)
        step = max(1, self._init_block_bytes // 8)
        # float64 is drawn straight into the embedding; float32 through one float64 block
        buffer = None if emb.dtype == np.float64 else np.empty(min(step, flat.size))
        for lo in range(0, flat.size, step):
            hi = min(lo + step, flat.size)
            block = flat[lo:hi] if buffer is None else buffer[:hi - lo]
            rng.random(out=block)
            block *= span
            # the float64 sum rounded to the embedding's dtype on the way out: the cast of block + low
            np.add(block, low, out=flat[lo:hi], casting="same_kind")
        return emb

    # ------------------------------------------------------------------ divergence
    def _current_objective(self):
        """Objective of ``embedding_`` now (hook; None: unknown or not computed)."""
        return None

    def _prepare_divergence_checks(self, fresh, start):
        """Reference values of the divergence checks, taken where this run starts."""
        self._run_start = start
        if fresh:
            s = float(self.init_scale)
            self._initial_score = math.sqrt(self.dim) * s * s / 3.0
        elif not hasattr(self, "_initial_score"):
            self._initial_score = None
        if not fresh and getattr(self, "_divergence_solver", None) is self.solver_:
            return  # same solver: keep the reference of the run that started it (partial_fit loops cost nothing)
        ref = None
        if self.divergence_objective_factor is not None:
            values = [v for v in (self.solver_.zero_objective(), self._current_objective())
                      if v is not None and math.isfinite(v)]
            ref = max(values) if values else None
        self._divergence_reference = ref
        self._divergence_solver = self.solver_

    def _divergence_reason(self, record):
        """Which divergence check ``record`` (not yet in ``history_``) fails, or None."""
        keys = ("objective", "loss_pos", "loss_neg", "reg", "mean_norm")
        bad = [k for k in keys if record.get(k) is not None and not np.isfinite(record[k])]
        if record.get("diverged") or bad:
            return f"non-finite values ({', '.join(bad) or 'in the embedding'})"
        norm, objective = record["mean_norm"], record.get("objective")
        limit = self.divergence_max_mean_norm
        if limit is not None and norm > limit:
            return f"the mean norm {norm:.3g} exceeds divergence_max_mean_norm={limit:g}"
        factor, ref = self.divergence_objective_factor, getattr(self, "_divergence_reference", None)
        if factor is not None and ref and objective is not None and objective > factor * ref:
            return (f"the objective {objective:.4g} is more than {factor:g}x its reference {ref:.4g} (the larger "
                    "of the objectives of the starting and of the all-zero embedding)")
        k = self.divergence_growth_epochs
        recent = self.history_[len(self.history_) - k:] + [record] if k and len(self.history_) >= k else []
        if recent and all(r.get("mean_norm") is not None for r in recent):
            norms = [r["mean_norm"] for r in recent]
            growth = min(b / a if a > 0 else math.inf for a, b in zip(norms, norms[1:]))
            objectives = [r.get("objective") for r in recent]
            shown = " -> ".join(f"{v:.3g}" for v in norms)
            if all(v is not None for v in objectives):
                rate = self.divergence_norm_growth
                if rate is not None and growth >= rate and all(b > a for a, b in zip(objectives, objectives[1:])):
                    return (f"the mean norm grew at least {rate:g}x per epoch for {k} epochs ({shown}) while the "
                            f"objective rose ({' -> '.join(f'{v:.4g}' for v in objectives)})")
            elif self.divergence_norm_growth_alone is not None and growth >= self.divergence_norm_growth_alone:
                return (f"the mean norm grew at least {self.divergence_norm_growth_alone:g}x per epoch for {k} "
                        f"epochs ({shown})")
        return None

    def _divergence_advice_for(self, record):
        """(advice, parameter) for a diverged ``record``: init_scale when the start was already out of
        range, else the model's analysis (``_solver_divergence_advice``)."""
        score = getattr(self, "_initial_score", None)
        if score is not None and (not math.isfinite(score) or score > self._saturated_initial_score):
            return (f"init_scale={self.init_scale:g} is too large for dim={self.dim}: the initial scores x_u . x_v "
                    f"are of typical size sqrt(dim) * init_scale**2 / 3 = {score:.3g} (every sigmoid saturated, or "
                    f"overflowing {self._dtype.name}); use a smaller init_scale (the default is 0.1)"), "init_scale"
        return self._solver_divergence_advice(record)

    def _solver_divergence_advice(self, record):
        """(advice, parameter) for a divergence the model can explain (hook)."""
        return self._divergence_advice, None

    # ------------------------------------------------------------------ progress
    def _preparation_begins(self, X, announce):
        """Start timing the preparation; with ``verbose >= 1`` and ``announce``, say what is prepared."""
        if self.verbose >= 1 and announce:
            from .._progress import write_line

            size = self._input_size(X)
            write_line(f"{type(self).__name__}: preparing the training pairs{' of ' + size if size else ''} ...")
        return time.perf_counter()

    @staticmethod
    def _input_size(X):
        """``X``'s size in words ("10,312 nodes, 333,983 edges"), read without converting it; "" if unknown."""
        from ..graph import Graph

        if _is_edge_split(X):
            return (f"{X.train_graph.n_nodes:,} nodes, {len(X.train_positives):,} training edges, "
                    f"{len(X.train_negatives):,} given negatives")
        if isinstance(X, Graph):
            return f"{X.n_nodes:,} nodes, {X.n_edges:,} edges"
        if type(X).__module__.split(".")[0] == "networkx":
            return f"{X.number_of_nodes():,} nodes, {X.number_of_edges():,} edges"
        if hasattr(X, "tocsr") and hasattr(X, "shape") and hasattr(X, "nnz"):
            return f"{X.shape[0]:,} nodes, {X.nnz:,} stored entries"
        return ""  # not a form fit accepts: _coerce_data says so next

    def _preparation_ends(self, started, n_pairs):
        """With ``verbose >= 1``: the pairs prepared and how long it took since ``started``."""
        if self.verbose >= 1:
            from .._progress import format_duration, write_line

            seconds = time.perf_counter() - started
            took = f"{seconds:.1f}s" if seconds < 60 else format_duration(seconds)
            write_line(f"{type(self).__name__}: {n_pairs:,} training pairs on {self._training_table().shape[0]:,} nodes "
                       f"ready in {took}")

    def _epoch_summary(self, record):
        """One epoch in words: objective, mean norm, the metrics callbacks recorded, seconds."""
        parts = []
        if record.get("objective") is not None:
            parts.append(f"objective {record['objective']:.6g}")
        parts.append(f"mean norm {record['mean_norm']:.4g}")
        parts += [f"{key} {record[key]:.4f}" for key in sorted(record)
                  if key.endswith(("_ap", "_f1")) and isinstance(record[key], float)]
        parts.append(f"{record['seconds']:.3f}s")
        return f"epoch {record['epoch']}: " + ", ".join(parts)

    def _train(self, callbacks, start, n_epochs):
        from .. import _progress

        self.planned_epochs_ = range(start, start + n_epochs)
        for cb in callbacks:
            if hasattr(cb, "on_train_begin"):
                cb.on_train_begin(self)
        name = type(self).__name__
        # verbose >= 1: a bar on a terminal or in a notebook, a line every few seconds in a pipe or a log
        # (lgekit._progress decides); a single epoch gets none, or a loop of partial_fit(X, epochs=1) would
        # draw one bar per call
        shown = n_epochs > 1 and self.verbose >= 1
        bar = _progress.progress(n_epochs, desc=name, unit="epoch", enabled=shown)
        # verbose >= 2: a printed line per epoch, written to stderr directly (visible with no logging set up),
        # above the bar or between the periodic lines
        say = bar.write if shown else _progress.write_line
        try:
            for epoch in range(start, start + n_epochs):
                t0 = time.perf_counter()
                out = self._run_epoch(epoch)
                seconds = time.perf_counter() - t0
                record = {"epoch": epoch, "seconds": seconds}
                record.update(out)
                if "mean_norm" not in record:
                    table = self._training_table()     # every vector, of both tables
                    record["mean_norm"] = float(np.mean(np.sqrt(np.einsum(
                        "ij,ij->i", table, table, dtype=np.float64))))
                reason = self._divergence_reason(record)
                record["diverged"] = reason is not None
                if reason is not None:
                    record["divergence_reason"] = reason
                self.history_.append(record)
                self.n_iter_ = epoch + 1
                if reason is not None:
                    advice, parameter = self._divergence_advice_for(record)
                    msg = f"{name} diverged at epoch {epoch} (0-based): {reason}; {advice}"
                    logger.warning(msg)
                    raise DivergenceError(msg, epoch=epoch, history=list(self.history_), reason=reason,
                                          parameter=parameter)
                stop = False
                for cb in callbacks:
                    if cb.on_epoch_end(self, epoch, record):
                        stop = True
                if self.verbose >= 2:
                    say(f"{name}: {self._epoch_summary(record)}")
                objective = record.get("objective")
                bar.update(1, postfix=None if objective is None else f"objective {objective:.5g}")
                if stop:
                    logger.info("stopped by a callback after epoch %d", epoch)
                    if self.verbose >= 2:
                        say(f"{name}: stopped by a callback after epoch {epoch}")
                    break
        finally:
            bar.close()
        for cb in callbacks:
            if hasattr(cb, "on_train_end"):
                cb.on_train_end(self)

    # ------------------------------------------------------------------ exits
    def _check_fitted(self):
        if not hasattr(self, "embedding_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _is_two_table(self):
        return "_table" in self.__dict__

    def _side(self, context):
        """(table, ids, side name) of the source/left side (``context`` False) or the target/right side."""
        if not context:
            return self.embedding_, self.node_ids_, "source"
        if not self._is_two_table():
            raise ValueError(f"context=True: this {type(self).__name__} was fitted on an undirected graph and has "
                             "one table (embedding_); context vectors exist for directed and bipartite graphs")
        return self.context_embedding_, self.context_node_ids_, "target"

    def _node_array(self, nodes, ndim, index):
        """``nodes`` as an array of ``ndim`` dimensions; with object node ids (mixed types, tuples) the
        outer sequence is taken element by element, so that a tuple id stays one id instead of
        becoming an axis and ``[1, "1"]`` stays an int and a str."""
        kinds = {np.asarray(self.node_ids_).dtype.kind}
        if self._is_two_table():
            kinds.add(np.asarray(self.context_node_ids_).dtype.kind)
        if index or isinstance(nodes, np.ndarray) or "O" not in kinds:
            return np.asarray(nodes)
        outer = list(nodes)
        if ndim == 2:
            outer = [list(pair) if isinstance(pair, (list, tuple, np.ndarray)) else [pair] for pair in outer]
            if any(len(pair) != 2 for pair in outer):
                raise ValueError(f"pairs must have shape (k, 2), got rows of lengths "
                                 f"{sorted({len(p) for p in outer})}")
            out = np.empty((len(outer), 2), dtype=object)
            for i, (u, v) in enumerate(outer):
                out[i, 0], out[i, 1] = u, v
            return out
        out = np.empty(len(outer), dtype=object)
        for i, value in enumerate(outer):
            out[i] = value
        return out

    def _rows(self, nodes, index, what, context=False):
        """Row indices of ``nodes`` (ids, or indices with ``index``) in ``embedding_`` or, with
        ``context``, in ``context_embedding_``."""
        from ..graph import node_id_query, node_positions

        table, ids, side = self._side(context)
        # ids beyond int64 or of mixed types stay exact (np.asarray would round or stringify them)
        nodes = np.asarray(nodes) if index else node_id_query(nodes)
        n = table.shape[0]
        if index:
            if nodes.dtype.kind not in "iu":
                raise TypeError(f"{what}: with index=True nodes must be integer indices, got dtype {nodes.dtype}")
            if nodes.size and (nodes.min() < 0 or nodes.max() >= n):
                raise ValueError(f"{what}: indices must lie in [0, {n}), got values in [{nodes.min()}, {nodes.max()}]")
            return nodes.astype(np.int64)
        if self._id_lookup is None:
            self._id_lookup = {}
        if side not in self._id_lookup:
            ids = np.asarray(ids)
            self._id_lookup[side] = (ids, None if ids.dtype.kind == "O" else np.argsort(ids, kind="stable"))
        ids, sorter = self._id_lookup[side]
        return node_positions(nodes, ids, sorter, what)

    def _graph_node_ids(self, X, context=False):
        """The node ids of a graph-like ``X`` in its node order, or None when ``X`` is not one.  For a
        bipartite graph and a bipartite model: the ids of one side (the right side with ``context``)."""
        from ..graph import Graph

        if _is_edge_split(X) and hasattr(X, "graph"):
            X = X.graph
        if isinstance(X, Graph):
            if graph_kind(X) == "bipartite" and getattr(self, "graph_kind_", None) == "bipartite":
                return np.asarray(X.right_ids if context else X.left_ids)
            return np.asarray(X.node_ids)
        if type(X).__module__.split(".")[0] == "networkx":
            ids = np.empty(X.number_of_nodes(), dtype=object)
            for i, node in enumerate(X.nodes):   # one by one: a tuple id stays one id
                ids[i] = node
            return ids
        if hasattr(X, "tocsr") and hasattr(X, "shape") and len(X.shape) == 2:
            return np.arange(X.shape[0])
        return None

    def transform(self, X=None, *, index=False, context=False):
        """Embedding rows of the nodes of ``X``.

        Parameters
        ----------
        X : None, graph, sequence of node ids, or one node id
            ``None``: a copy of the whole embedding.  A graph (an
            :class:`lgekit.Graph`, an ``EdgeSplit``, a networkx graph or a
            scipy sparse adjacency matrix, whose nodes are ``0..n-1``): the
            rows of its nodes in its node order, so that in a scikit-learn
            ``Pipeline`` ``transform(graph)`` gives one row per node, aligned
            with per-node labels.  A sequence of node ids (internal indices
            with ``index=True``): their rows.  With ids of mixed types the
            types count: ``1`` and ``"1"`` are two nodes; a tuple in the
            sequence is one (tuple) id.
        index : bool, default False
        context : bool, default False
            Models of directed and bipartite graphs have two tables.  False:
            rows of ``embedding_``, the source (out-) vectors of a directed
            graph, the left nodes' vectors of a bipartite one.  True: rows of
            ``context_embedding_``, the target (in-) vectors, the right
            nodes' vectors (ids and indices then name right nodes; a
            bipartite graph as ``X`` gives its right nodes' rows).  An
            undirected model has no context table: ValueError.

        Returns
        -------
        ndarray of shape (k, dim), or (dim,) for one id

        Raises
        ------
        KeyError
            For an id that is not a node of the fitted model (of that side).
        ValueError
            ``context=True`` on a model of an undirected graph.
        """
        self._check_fitted()
        table, own, _ = self._side(context)
        if X is None:
            return table.copy()
        if not index:
            ids = self._graph_node_ids(X, context)
            if ids is not None:
                own = np.asarray(own)
                if ids.shape == own.shape and ids.dtype == own.dtype and np.array_equal(ids, own):
                    return table.copy()     # the training graph: every row, in order
                return table[self._rows(ids, False, "transform", context)]
        if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
            X = np.asarray(X)  # one id
        else:
            X = self._node_array(X, 1, index)
        return table[self._rows(X, index, "transform", context)]

    def score(self, X, y=None):
        """Test average precision of the embedding on a link-prediction split.

        Parameters
        ----------
        X : EdgeSplit
            From :func:`lgekit.split_edges` (on the graph the model was fitted
            on, or a split of it): its ``test_positives`` are ranked against
            its ``test_negatives`` by :math:`x_u \\cdot x_v` (by
            :math:`x_u \\cdot y_v`, ``embedding_[u] . context_embedding_[v]``,
            for a directed or bipartite graph).
        y : ignored

        Returns
        -------
        float
            :func:`lgekit.metrics.average_precision` of the test pairs (higher
            is better; about ``1 / (1 + r)`` for a random embedding with ``r``
            negatives per positive).

        Raises
        ------
        TypeError
            When ``X`` is not an ``EdgeSplit``.
        ValueError
            When the split's nodes (or kind) are not the model's.
        """
        self._check_fitted()
        if not all(hasattr(X, a) for a in ("test_positives", "test_negatives", "graph")):
            raise TypeError(f"X must be an EdgeSplit (from lgekit.split_edges) whose test pairs are scored, "
                            f"got {type(X).__name__}")
        n = self._training_table().shape[0]
        kind = graph_kind(X.graph)
        fitted = getattr(self, "graph_kind_", "undirected")
        if kind != fitted and (kind in TWO_TABLE_KINDS or fitted in TWO_TABLE_KINDS):
            raise ValueError(f"X: the split's graph is {kind} but the model was fitted on a {fitted} graph")
        layout = TableLayout.of(X.graph)
        ids = np.asarray(X.graph.node_ids if layout is None else layout.row_ids)
        own = np.asarray(self.node_ids_ if layout is None else _concat_ids(self.node_ids_, self.context_node_ids_))
        if ids.shape != own.shape or not np.array_equal(ids, own):
            raise ValueError(f"X: the split's graph has {len(ids)} nodes that are not the {n} nodes the model "
                             "was fitted on, in the same order; score a split of the fitted graph")
        from ..metrics import average_precision, average_precision_from_scores

        if layout is None:
            return float(average_precision(self.embedding_, X.test_positives, X.test_negatives))
        table = self._training_table()

        def scores(pairs):
            rows = layout.table_pairs(pairs, "test pairs")
            return np.einsum("ij,ij->i", table[rows[:, 0]], table[rows[:, 1]], dtype=np.float64)

        return float(average_precision_from_scores(scores(X.test_positives), scores(X.test_negatives)))

    def score_pairs(self, pairs, *, index=False):
        """Scores of node pairs, shape (k, 2) of node ids (indices with ``index=True``), in float64.

        Undirected graph: :math:`x_u \\cdot x_v`.  Directed graph: pairs are
        (source, target) and the score :math:`x_u \\cdot y_v`,
        ``embedding_[u] . context_embedding_[v]``, so ``(u, v)`` and
        ``(v, u)`` score differently.  Bipartite graph: pairs are (left id,
        right id), each looked up among its own side's ids (indices with
        ``index=True`` count from 0 within each side).
        """
        self._check_fitted()
        pairs = self._node_array(pairs, 2, index)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError(f"pairs must have shape (k, 2), got {pairs.shape}")
        if not self._is_two_table():
            rows = self._rows(pairs, index, "score_pairs")
            emb = self.embedding_
            return np.einsum("ij,ij->i", emb[rows[:, 0]], emb[rows[:, 1]], dtype=np.float64)
        sources = self._rows(pairs[:, 0], index, "score_pairs (sources / left nodes)")
        targets = self._rows(pairs[:, 1], index, "score_pairs (targets / right nodes)", context=True)
        return np.einsum("ij,ij->i", self.embedding_[sources], self.context_embedding_[targets], dtype=np.float64)

    def _params_for_save(self):
        params = {}
        for key, value in self.get_params(deep=False).items():
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, np.dtype) or isinstance(value, type):
                value = np.dtype(value).name
            if key == "random_state" and not (value is None or isinstance(value, int)):
                value = None  # a Generator cannot be stored; a loaded model gets fresh entropy
            params[key] = value
        return params

    def save(self, path):
        """Save the fitted model to an ``.npz`` file (atomically).

        Stores the embedding, node ids, parameters, history and class, plus
        any solver state the model adds.  Read it back with :meth:`load`.

        Node ids keep their types: an integer or string id array is stored
        as such; any other ids (mixed ints and strings, tuples, floats,
        bools, None) as typed JSON, so that ``1`` and ``"1"`` stay two ids
        and ``(1, "a")`` stays a tuple.

        Raises
        ------
        ValueError
            If a node id is of a type the file cannot hold (none of the above).
        """
        self._check_fitted()
        arrays = {"embedding": self.embedding_}
        ids_kind = _store_node_ids(arrays, "node_ids", self.node_ids_)
        cls = type(self)
        two_tables = self._is_two_table()
        meta = {
            # a one-table model is written as format 2 (all it needs), so that older lgekits still read it
            "format_version": _FORMAT_VERSION if two_tables else 2,
            "class": cls.__name__,
            "params": self._params_for_save(),
            "history": self.history_,
            "n_iter": int(self.n_iter_),
            "node_ids_kind": ids_kind,
            "kernel_seed": int(getattr(self, "_kernel_seed", 0)),
        }
        if two_tables:
            meta["graph_kind"] = self.graph_kind_
            arrays["context_embedding"] = self.context_embedding_
            meta["context_node_ids_kind"] = _store_node_ids(arrays, "context_node_ids", self.context_node_ids_)
        from .._version import __version__
        meta["lgekit_version"] = __version__
        arrays["meta"] = np.array(json.dumps(meta, default=_json_default))
        for key, value in (self._solver_state_for_save() or {}).items():
            arrays[f"solver__{key}"] = np.asarray(value)
        with atomic_path(path, suffix=".npz") as tmp:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)
        return path

    def _solver_state_for_save(self):
        """The solver's state arrays (e.g. DCD's duals): the fitted solver's, or those a loaded model
        keeps for its first fit."""
        solver = getattr(self, "solver_", None)
        if solver is not None:
            return solver.state()
        return dict(getattr(self, "_loaded_state", None) or {})

    def _check_solver_state(self, arrays, n_nodes):
        """Validate the solver arrays ``load`` read (hook): ValueError naming what is wrong."""
        if arrays:
            raise ValueError(f"unexpected solver arrays {sorted(arrays)} for a {type(self).__name__}")

    @classmethod
    def _resolve_stored_class(cls, name, path):
        """The class a file names, from lgekit's registry (or ``cls`` itself): never an import."""
        if not isinstance(name, str):
            raise ValueError(f"{path}: the stored class must be a string, got {name!r}")
        if name in (cls.__name__, f"{cls.__module__}:{cls.__qualname__}"):
            return cls  # named by the caller's own code, not by the file
        registry = _estimator_registry()
        target = registry.get(_LEGACY_CLASS_NAMES.get(name, name))
        if target is None:
            raise ValueError(f"{path}: unknown model class {name[:200]!r}; model files hold one of lgekit's "
                             f"estimators ({', '.join(sorted(registry))})")
        return target

    @classmethod
    def load(cls, path):
        """Load a model saved by :meth:`save`; returns an instance of the stored class.

        The stored class name is looked up among lgekit's own estimators
        (``LogisticEmbedding``, ``HingeEmbedding``; or ``cls`` itself), never
        imported; no pickle is ever read.  Every array's shape and dtype and
        every metadata field is checked before the model is built.

        Raises
        ------
        TypeError
            When the file holds a model that is not a ``cls``.
        ValueError
            When the file is not an lgekit model file, or is truncated,
            corrupted or inconsistent (the message names the file).
        FileNotFoundError, PermissionError
            When the file cannot be opened.
        """
        return cls._from_arrays(read_checked_npz(path), path)

    @classmethod
    def _from_arrays(cls, arrays, path):
        """The model held by the arrays of a model file (read by ``read_checked_npz``); see :meth:`load`."""
        if "meta" not in arrays or "embedding" not in arrays:
            raise ValueError(f"{path} is not an lgekit model file (no 'meta'/'embedding' arrays)")
        solver_arrays = {k[len("solver__"):]: v for k, v in arrays.items() if k.startswith("solver__")}
        unexpected = set(arrays) - {"meta", "embedding", "node_ids", "node_ids_json", "context_embedding",
                                    "context_node_ids", "context_node_ids_json"} - {
            f"solver__{k}" for k in solver_arrays}
        if unexpected:
            raise ValueError(f"{path}: unexpected arrays {sorted(unexpected)} in a model file")
        meta = _parse_json_scalar(arrays["meta"], path, "meta")
        if not isinstance(meta, dict):
            raise ValueError(f"{path}: 'meta' must hold a JSON object, got {type(meta).__name__}")

        def field(name, check, accepted, default=_MISSING):
            if name not in meta:
                if default is _MISSING:
                    raise ValueError(f"{path}: metadata field {name!r} is missing")
                return default
            value = meta[name]
            if not check(value):
                raise ValueError(f"{path}: metadata field {name!r} must be {accepted}, got {str(value)[:100]!r}")
            return value

        def is_int(v):
            return isinstance(v, int) and not isinstance(v, bool)

        version = field("format_version", lambda v: is_int(v) and 1 <= v <= _FORMAT_VERSION,
                        f"an int in [1, {_FORMAT_VERSION}] (a newer lgekit may have written it)")
        target = cls._resolve_stored_class(field("class", lambda v: isinstance(v, str), "a string"), path)
        if not issubclass(target, cls):
            raise TypeError(f"{path} holds a {target.__name__}, not a {cls.__name__}")
        params = field("params", lambda v: isinstance(v, dict) and all(
            isinstance(k, str) and (p is None or isinstance(p, (bool, int, float, str))) for k, p in v.items()),
            "an object of parameter names to numbers, strings, booleans or null")
        history = field("history", lambda v: isinstance(v, list) and all(
            isinstance(r, dict) and all(isinstance(k, str) for k in r) for r in v), "a list of objects", [])
        n_iter = field("n_iter", lambda v: is_int(v) and v >= 0, "an int >= 0")
        if len(history) > n_iter:
            raise ValueError(f"{path}: {len(history)} history records for n_iter={n_iter} epochs")
        for record in history:
            epoch = record.get("epoch", 0)
            if not (is_int(epoch) and 0 <= epoch < n_iter):
                raise ValueError(f"{path}: history record epoch {str(epoch)[:40]!r} is not an int in [0, {n_iter})")
        kernel_seed = field("kernel_seed", lambda v: is_int(v) and 0 <= v < 2**64, "an int in [0, 2**64)", 0)
        field("lgekit_version", lambda v: isinstance(v, str), "a string", "")
        known = {"format_version", "class", "params", "history", "n_iter", "node_ids_kind", "kernel_seed",
                 "lgekit_version", "graph_kind", "context_node_ids_kind"}
        unknown = sorted(set(meta) - known)
        if unknown:
            raise ValueError(f"{path}: unknown metadata fields {unknown[:10]}")
        ids_kind = field("node_ids_kind", lambda v: v in (("native", "str") if version == 1 else ("native", "json")),
                         "'native' or 'str'" if version == 1 else "'native' or 'json'", "native")
        # files before format 3 hold models of undirected graphs (one table)
        kinds = ("undirected",) + (TWO_TABLE_KINDS if version >= 3 else ())
        kind = field("graph_kind", lambda v: v in kinds, " or ".join(map(repr, kinds)) + (
                     f" in a format {version} file" if version < 3 else ""), "undirected")
        two_tables = kind in TWO_TABLE_KINDS
        context_ids_kind = field("context_node_ids_kind", lambda v: v in ("native", "json"), "'native' or 'json'",
                                 "native" if two_tables else None)
        context_arrays = {"context_embedding", "context_node_ids", "context_node_ids_json"} & set(arrays)
        if two_tables != ("context_embedding" in arrays) or (not two_tables and (context_arrays or
                                                                                   context_ids_kind is not None)):
            raise ValueError(f"{path}: a model of a {kind} graph must {'' if two_tables else 'not '}have the "
                             "second table ('context_embedding' and its node ids)")

        accepted = set(target._get_param_names())
        dropped = sorted(set(params) - accepted)
        if dropped:
            logger.warning("%s: ignoring unknown parameters %s", path, dropped)
        model = target(**{k: v for k, v in params.items() if k in accepted})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # e.g. "no OpenMP": about fitting, not about this file
            try:
                model._check_common_params()
                model._check_params()
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{path}: invalid stored parameter: {exc}") from None

        embedding = arrays["embedding"]
        if embedding.ndim != 2 or embedding.shape[0] < 1 or embedding.shape[1] != model.dim:
            raise ValueError(f"{path}: 'embedding' must have shape (n_nodes >= 1, dim={model.dim}), "
                             f"got {embedding.shape}")
        if embedding.dtype != model._dtype:
            raise ValueError(f"{path}: 'embedding' must have the stored dtype {model._dtype.name}, "
                             f"got {embedding.dtype}")
        n = embedding.shape[0]
        ids = _load_node_ids(arrays, ids_kind, path)
        _check_loaded_ids(ids, n, path, "node ids", "embedding")
        table, context_ids, layout = np.ascontiguousarray(embedding), None, None
        if two_tables:
            context = arrays["context_embedding"]
            if context.ndim != 2 or context.shape[0] < 1 or context.shape[1] != model.dim or context.dtype != model._dtype:
                raise ValueError(f"{path}: 'context_embedding' must have shape (n_targets >= 1, dim={model.dim}) "
                                 f"and dtype {model._dtype.name}, got {context.shape} of {context.dtype}")
            context_ids = _load_node_ids(arrays, context_ids_kind, path, "context_node_ids")
            _check_loaded_ids(context_ids, context.shape[0], path, "context node ids", "context_embedding")
            if kind == "directed" and (context_ids.shape != ids.shape or not np.array_equal(context_ids, ids)):
                raise ValueError(f"{path}: a directed model's context node ids must be its node ids")
            # one stacked table again, as the solver trains it (rows: sources / left, then targets / right)
            table = np.concatenate([embedding, context])
            layout = TableLayout(kind, n, context.shape[0], ids, context_ids, 0 if kind == "directed" else n)
        try:
            model._check_solver_state(solver_arrays, table.shape[0])
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

        model._set_table(table, layout)
        model.node_ids_ = ids
        if two_tables:
            model.context_node_ids_ = context_ids
        model.history_ = history
        model.n_iter_ = n_iter
        model._kernel_seed = kernel_seed
        model._id_lookup = None
        model._loaded_state = dict(solver_arrays) or None
        return model

    def to_word2vec(self, path, *, binary=False, context_prefix="context:"):
        """Write the embedding in word2vec's format (atomically), text or binary.

        Text: a header line ``"<n_vectors> <dim>"``, then one line per vector:
        its name and the coordinates (``repr`` precision).  Binary (``binary=True``,
        word2vec's ``-binary 1`` and gensim's ``binary=True``): the same header
        line, then per vector its name in UTF-8, one space, ``dim`` float32
        little-endian numbers and a newline; float64 embeddings are rounded to
        float32, which is all the format holds.  Both are readable by
        ``gensim.models.KeyedVectors.load_word2vec_format(path, binary=...)``.

        Naming: the rows of ``embedding_`` are named by their node ids (what
        :meth:`transform` takes).  A model of a directed or bipartite graph
        writes both tables in the one file: first the ``embedding_`` rows
        (source / left nodes) named by their ids, then the
        ``context_embedding_`` rows (target / right nodes) named
        ``context_prefix + id`` (``"context:12"``: the in-vector of node 12
        of a directed graph, or the vector of right node 12 of a bipartite
        one), so the header counts ``n_source + n_target`` vectors and
        ``kv["12"] @ kv["context:12"]`` is a score of :meth:`score_pairs`.

        Parameters
        ----------
        path : str or path-like
        binary : bool, default False
        context_prefix : str, default "context:"
            Prepended to the ids of the context table's rows (two-table
            models only); non-empty, without whitespace.

        Raises
        ------
        ValueError
            If a name is empty or contains whitespace (the format cannot
            hold it), or two vectors would get the same name.
        """
        self._check_fitted()
        ids = [str(i) for i in np.asarray(self.node_ids_).tolist()]
        emb = self.embedding_
        if self._is_two_table():
            if not isinstance(context_prefix, str) or not context_prefix or any(c.isspace() for c in context_prefix):
                raise ValueError(f"context_prefix must be a non-empty string without whitespace, got {context_prefix!r}")
            ids += [context_prefix + str(i) for i in np.asarray(self.context_node_ids_).tolist()]
            if len(set(ids)) != len(ids):
                seen, dup = set(), None
                for name in ids:
                    if name in seen:
                        dup = name
                        break
                    seen.add(name)
                raise ValueError(f"two vectors would both be named {dup!r} in the word2vec file; pass another "
                                 "context_prefix")
            emb = self._training_table()     # the stacked rows: embedding_, then context_embedding_
        for i in ids:
            if not i or any(c.isspace() for c in i):
                raise ValueError(f"node id {i!r} is empty or contains whitespace; word2vec format cannot store it")
        if binary:
            rows = np.ascontiguousarray(emb, dtype="<f4")
            with atomic_path(path) as tmp:
                with open(tmp, "wb") as fh:
                    fh.write(f"{emb.shape[0]} {emb.shape[1]}\n".encode("ascii"))
                    for node, row in zip(ids, rows):
                        fh.write(node.encode("utf-8") + b" " + row.tobytes() + b"\n")
            return path
        fmt = "%.9g" if emb.dtype == np.float32 else "%.17g"
        lines = [f"{emb.shape[0]} {emb.shape[1]}"]
        for node, row in zip(ids, emb):
            lines.append(node + " " + " ".join(fmt % x for x in row))
        atomic_write_text(path, "\n".join(lines) + "\n")
        return path
