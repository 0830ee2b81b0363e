"""Model files: the ``.npz`` an estimator's ``save`` writes and ``load`` reads, and word2vec export.

A model file is a plain ``.npz`` (a zip of ``.npy`` arrays, never a pickle):

``embedding``
    The (source / left) table, ``(n, dim)`` float32 or float64.
``node_ids`` or ``node_ids_json``
    Its rows' ids: an int or str array as is, any other ids (mixed types,
    tuples, bools, floats, None) as typed JSON, so that ``1`` and ``"1"``
    stay two ids and ``(1, "a")`` stays a tuple.
``context_embedding``, ``context_node_ids[_json]``
    The target / right table of a directed or bipartite graph (format 3).
``solver__<name>``
    The solver's state (e.g. DCD's duals ``solver__alpha``).
``meta``
    One JSON object: ``format_version``, ``class`` (a registry name, never
    imported), ``params``, ``history``, ``n_iter``, ``node_ids_kind``,
    ``kernel_seed``, ``lgekit_version``, and for two tables ``graph_kind``
    and ``context_node_ids_kind``; for a model fitted with early stopping,
    ``early_stopping``: ``validation_seed`` (the seed of its validation
    split), ``best_iteration``, ``best_validation_score`` and
    ``validation_scores``.

Format versions: 1 stored the class as ``module:qualname`` and object ids as
their ``str``; 2 the class by its registry name and object ids as typed
JSON; 3 adds ``graph_kind`` and the second table.  Models of undirected
graphs are still written as format 2 (nothing in them changed), so that
older lgekits read them.

Reading trusts nothing: every array's header is checked against the bytes
the zip member holds before anything is allocated, and every metadata field
against what it may hold (:func:`read_checked_npz`, :func:`model_file_from_arrays`).
"""
import json
import math
import struct
import tokenize
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np

from .._atomic import atomic_path, atomic_write_text
from .._input_file import memory_bound, open_regular_file
from .._json import json_default
from .._memory import format_bytes
from .._version import __version__
from ..ids import object_array
from ._training_data import TWO_TABLE_KINDS

__all__ = ["FORMAT_VERSION", "MALFORMED_FILE_ERRORS", "ModelFile", "model_file_from_arrays", "read_checked_npz",
           "read_model_file", "read_npy_header", "word2vec_names", "write_model_file", "write_word2vec"]

# 2: the class is stored by its registry name, object node ids as typed JSON
# 3: the graph's kind ("graph_kind"); directed and bipartite models add the second table
#    ("context_embedding") and its node ids ("context_node_ids[_json]", "context_node_ids_kind").
FORMAT_VERSION = 3

# what files of format 1 stored as "class" (module:qualname) for lgekit's own estimators
_LEGACY_CLASS_NAMES = {"lgekit.models.logistic:LogisticEmbedding": "LogisticEmbedding",
                       "lgekit.models.hinge:HingeEmbedding": "HingeEmbedding"}

# anything parsing untrusted bytes can raise (zipfile, zlib, numpy's .npy header parser, json): each is
# a malformed file, reported as ValueError naming it (numpy parses a .npy header with tokenize and
# ast.literal_eval: SyntaxError, TokenError)
MALFORMED_FILE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, TypeError, LookupError,
                         ArithmeticError, struct.error, RuntimeError, SyntaxError, tokenize.TokenError, MemoryError)

_MAX_MEMBERS = 64
# deflate cannot expand data more than ~1032x: a member declaring more is a zip bomb or garbage
_MAX_DEFLATE_RATIO = 1100

_MISSING = object()


@dataclass
class ModelFile:
    """The content of a model file, checked for consistency with itself (not yet with a class).

    Attributes
    ----------
    class_name : str
        The estimator's registry name (format 1's ``module:qualname`` names
        of lgekit's own estimators are translated).
    params : dict
        Parameter names to numbers, strings, booleans or None.
    history : list of dict
    n_iter : int
    kernel_seed : int
    graph_kind : {"undirected", "directed", "bipartite"}
    embedding : ndarray of shape (n, dim)
    node_ids : ndarray of shape (n,)
    context_embedding, context_node_ids : ndarray or None
        The second table (directed and bipartite graphs).
    solver_state : dict of str to ndarray
        The ``solver__*`` arrays, by name.
    early_stopping : dict or None
        ``validation_seed`` (int or None), ``best_iteration`` (int or None),
        ``best_validation_score`` (float or None), ``validation_scores``
        (list of float or None): an early-stopped fit's, None for a model
        fitted without early stopping.
    """

    class_name: str
    params: dict
    history: list
    n_iter: int
    kernel_seed: int
    graph_kind: str
    embedding: np.ndarray
    node_ids: np.ndarray
    context_embedding: object = None
    context_node_ids: object = None
    solver_state: dict = None
    early_stopping: dict = None


# ---------------------------------------------------------------------- the .npz container
def read_checked_npz(path):
    """The arrays of an ``.npz`` file, read without pickles and with every header checked first.

    Only a regular file is opened (:func:`lgekit._input_file.open_regular_file`:
    ``/dev/zero``, a FIFO or a socket is refused at once, "not a regular
    file").  No array is allocated before its declared shape and dtype agree
    with the member's size in the zip directory, and the members' sizes
    together fit the memory left (:func:`lgekit._input_file.memory_bound`), so
    a crafted header cannot make numpy allocate more than the file holds or
    the machine has.  OSError of opening the file (missing, permission)
    propagates; anything wrong inside it is a ValueError naming the file.
    """
    with open_regular_file(path, what="a model file") as fh:
        try:
            return _read_npz_members(fh)
        except MALFORMED_FILE_ERRORS as exc:
            raise ValueError(f"{path} is not a readable .npz model file ({type(exc).__name__}: {exc})") from exc


def read_npy_header(fh, what):
    """``(shape, dtype)`` from the header of the ``.npy`` array ``fh`` is positioned at (left after the header).

    ValueError naming ``what`` for a version numpy's format does not define.
    """
    fmt = np.lib.format
    version = fmt.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = fmt.read_array_header_1_0(fh)
    elif version in ((2, 0), (3, 0)):
        shape, _, dtype = fmt.read_array_header_2_0(fh)
    else:
        raise ValueError(f"{what}: unsupported .npy version {version}")
    return shape, dtype


def _read_npz_members(fh):
    fmt = np.lib.format
    zf = zipfile.ZipFile(fh)
    infos = zf.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise ValueError(f"{len(infos)} members, more than a model file has")
    declared = sum(info.file_size for info in infos)
    limit, why = memory_bound()
    if limit is not None and declared > limit:
        raise ValueError(f"its arrays declare {format_bytes(declared)} in all, more than the memory left: {why}")
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
            shape, dtype = read_npy_header(member, f"member {key!r}")
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


# ---------------------------------------------------------------------- node ids
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


def _decode_id(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict) and list(value) == ["tuple"] and isinstance(value["tuple"], list):
        return tuple(_decode_id(v) for v in value["tuple"])
    raise ValueError(f"a node id must be an int, float, str, bool, null or {{'tuple': [...]}}, got {value!r}")


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
    if kind == "json":
        if name + "_json" not in arrays:
            raise ValueError(f"{path}: {name}_kind is 'json' but there is no '{name}_json' array")
        values = _parse_json_scalar(arrays[name + "_json"], path, f"{name}_json")
        if not isinstance(values, list):
            raise ValueError(f"{path}: '{name}_json' must hold a JSON list")
        try:
            return object_array([_decode_id(value) for value in values])  # a list of tuples stays 1-D
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"{path}: {str(exc)[:200]}") from None
    if name not in arrays:
        raise ValueError(f"{path}: no '{name}' array")
    ids = arrays[name]
    if ids.dtype.kind not in "iuUS":
        raise ValueError(f"{path}: '{name}' must hold integers or strings, got dtype {ids.dtype}")
    if kind == "str" and ids.ndim == 1:
        # format 1 stored object ids as their str(): the types are lost, the strings are the ids
        return object_array(ids.astype(str).tolist())
    return ids


def _check_loaded_ids(ids, n, path, what, table):
    if ids.shape != (n,):
        raise ValueError(f"{path}: {ids.shape[0] if ids.ndim == 1 else ids.shape} {what} for {n} {table} rows")
    if (len(set(ids.tolist())) if ids.dtype.kind == "O" else len(np.unique(ids))) != n:
        raise ValueError(f"{path}: the {what} are not unique")


# ---------------------------------------------------------------------- write and read
def write_model_file(path, model_file):
    """Write ``model_file`` (a :class:`ModelFile`) to ``path`` atomically; returns ``path``.

    Raises
    ------
    ValueError
        If a node id is of a type the file cannot hold.
    """
    mf = model_file
    two_tables = mf.graph_kind in TWO_TABLE_KINDS
    arrays = {"embedding": mf.embedding}
    meta = {
        # a one-table model is written as format 2 (all it needs), so that older lgekits still read it
        "format_version": FORMAT_VERSION if two_tables else 2,
        "class": mf.class_name,
        "params": mf.params,
        "history": mf.history,
        "n_iter": int(mf.n_iter),
        "node_ids_kind": _store_node_ids(arrays, "node_ids", mf.node_ids),
        "kernel_seed": int(mf.kernel_seed),
    }
    if two_tables:
        meta["graph_kind"] = mf.graph_kind
        arrays["context_embedding"] = mf.context_embedding
        meta["context_node_ids_kind"] = _store_node_ids(arrays, "context_node_ids", mf.context_node_ids)
    if mf.early_stopping:
        meta["early_stopping"] = mf.early_stopping
    meta["lgekit_version"] = __version__
    arrays["meta"] = np.array(json.dumps(meta, default=json_default))
    for key, value in (mf.solver_state or {}).items():
        arrays[f"solver__{key}"] = np.asarray(value)
    with atomic_path(path, suffix=".npz") as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    return path


def read_model_file(path):
    """The :class:`ModelFile` at ``path`` (see :func:`model_file_from_arrays`)."""
    return model_file_from_arrays(read_checked_npz(path), path)


def model_file_from_arrays(arrays, path):
    """The :class:`ModelFile` held by the arrays of a model file (from :func:`read_checked_npz`).

    Raises
    ------
    ValueError
        Naming ``path``, when a field is missing, of the wrong type or
        inconsistent with another (shapes, ids, history, format version).
    """
    if "meta" not in arrays or "embedding" not in arrays:
        raise ValueError(f"{path} is not an lgekit model file (no 'meta'/'embedding' arrays)")
    solver_state = {k[len("solver__"):]: v for k, v in arrays.items() if k.startswith("solver__")}
    unexpected = set(arrays) - {"meta", "embedding", "node_ids", "node_ids_json", "context_embedding",
                                "context_node_ids", "context_node_ids_json"} - {f"solver__{k}" for k in solver_state}
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

    version = field("format_version", lambda v: is_int(v) and 1 <= v <= FORMAT_VERSION,
                    f"an int in [1, {FORMAT_VERSION}] (a newer lgekit may have written it)")
    class_name = field("class", lambda v: isinstance(v, str), "a string")
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
    early = field("early_stopping", lambda v: isinstance(v, dict) and set(v) <= set(_EARLY_STOPPING_FIELDS) and all(
        v[k] is None or _EARLY_STOPPING_FIELDS[k][0](v[k], n_iter) for k in v),
        "an object of " + ", ".join(f"{k} ({what} or null)" for k, (_, what) in _EARLY_STOPPING_FIELDS.items()), None)
    field("lgekit_version", lambda v: isinstance(v, str), "a string", "")
    known = {"format_version", "class", "params", "history", "n_iter", "node_ids_kind", "kernel_seed",
             "lgekit_version", "graph_kind", "context_node_ids_kind", "early_stopping"}
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

    embedding = arrays["embedding"]
    if embedding.ndim != 2 or embedding.shape[0] < 1:
        raise ValueError(f"{path}: 'embedding' must have shape (n_nodes >= 1, dim), got {embedding.shape}")
    ids = _load_node_ids(arrays, ids_kind, path)
    _check_loaded_ids(ids, embedding.shape[0], path, "node ids", "embedding")
    context = context_ids = None
    if two_tables:
        context = arrays["context_embedding"]
        if context.ndim != 2 or context.shape[0] < 1 or context.shape[1] != embedding.shape[1] or \
                context.dtype != embedding.dtype:
            raise ValueError(f"{path}: 'context_embedding' must have shape (n_targets >= 1, "
                             f"dim={embedding.shape[1]}) and dtype {embedding.dtype.name}, got {context.shape} "
                             f"of {context.dtype}")
        context_ids = _load_node_ids(arrays, context_ids_kind, path, "context_node_ids")
        _check_loaded_ids(context_ids, context.shape[0], path, "context node ids", "context_embedding")
        if kind == "directed" and (context_ids.shape != ids.shape or not np.array_equal(context_ids, ids)):
            raise ValueError(f"{path}: a directed model's context node ids must be its node ids")
    return ModelFile(class_name=_LEGACY_CLASS_NAMES.get(class_name, class_name), params=params, history=history,
                     n_iter=n_iter, kernel_seed=kernel_seed, graph_kind=kind, embedding=embedding, node_ids=ids,
                     context_embedding=context, context_node_ids=context_ids, solver_state=solver_state,
                     early_stopping=early)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_finite_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# the fields of "early_stopping": (check of a value given n_iter, what is accepted); each may also be null
_EARLY_STOPPING_FIELDS = {
    "validation_seed": (lambda v, n_iter: _is_int(v) and 0 <= v < 2**64, "an int in [0, 2**64)"),
    "best_iteration": (lambda v, n_iter: _is_int(v) and 0 <= v < n_iter, "an int in [0, n_iter)"),
    "best_validation_score": (lambda v, n_iter: _is_finite_number(v), "a finite number"),
    "validation_scores": (lambda v, n_iter: isinstance(v, list) and len(v) <= n_iter and all(
        _is_finite_number(x) for x in v), "a list of at most n_iter finite numbers"),
}


# ---------------------------------------------------------------------- word2vec
def word2vec_names(node_ids, context_node_ids=None, context_prefix="context:"):
    """The names of a model's vectors in a word2vec file: the ids as text, then ``context_prefix + id``.

    Raises
    ------
    ValueError
        Naming the argument: an empty ``context_prefix`` or one with
        whitespace; a name that is empty, contains whitespace or cannot be
        written as UTF-8 (a lone surrogate); two ids that would get the same
        name (``1`` and ``"1"``, ``True`` and ``"True"``), naming both.
    """
    two_tables = context_node_ids is not None
    if two_tables and (not isinstance(context_prefix, str) or not context_prefix
                       or any(c.isspace() for c in context_prefix)):
        raise ValueError(f"context_prefix must be a non-empty string without whitespace, got {context_prefix!r}")
    ids = list(np.asarray(node_ids).tolist())
    names = [str(i) for i in ids]
    if two_tables:
        context = list(np.asarray(context_node_ids).tolist())
        ids += context
        names += [context_prefix + str(i) for i in context]
    first = {}
    for k, name in enumerate(names):
        if name in first:
            j = first[name]
            if two_tables and (j < len(node_ids)) != (k < len(node_ids)):
                raise ValueError(f"two vectors would both be named {name!r} in the word2vec file (node id "
                                 f"{ids[j]!r} and context node id {ids[k]!r}); pass another context_prefix")
            raise ValueError(f"node ids {ids[j]!r} and {ids[k]!r} would both be named {name!r} in the word2vec "
                             "file, which names vectors by text; save the model (model.save) to keep ids of "
                             "several types")
        first[name] = k
    for i, name in zip(ids, names):
        if not name or any(c.isspace() for c in name):
            raise ValueError(f"node id {name!r} is empty or contains whitespace; word2vec format cannot store it")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"node id {i!r} cannot be written as UTF-8 (it holds a lone surrogate); word2vec "
                             "files name vectors in UTF-8 text: save the model (model.save) instead") from None
    return names


def write_word2vec(path, vectors, names, *, binary=False):
    """Write ``vectors`` (one row per name of ``names``) in word2vec's format, atomically; returns ``path``.

    Text: a header line ``"<n_vectors> <dim>"``, then one line per vector:
    its name and the coordinates (``%.9g`` for float32, ``%.17g`` for
    float64: each number reads back exactly).  Binary (word2vec's
    ``-binary 1``, gensim's ``binary=True``): the same header line, then per
    vector its name in UTF-8, one space, ``dim`` float32 little-endian
    numbers and a newline; float64 is rounded to float32, all the format holds.
    """
    if binary:
        rows = np.ascontiguousarray(vectors, dtype="<f4")
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                fh.write(f"{vectors.shape[0]} {vectors.shape[1]}\n".encode("ascii"))
                for name, row in zip(names, rows):
                    fh.write(name.encode("utf-8") + b" " + row.tobytes() + b"\n")
        return path
    fmt = "%.9g" if vectors.dtype == np.float32 else "%.17g"
    lines = [f"{vectors.shape[0]} {vectors.shape[1]}"]
    for name, row in zip(names, vectors):
        lines.append(name + " " + " ".join(fmt % x for x in row))
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
