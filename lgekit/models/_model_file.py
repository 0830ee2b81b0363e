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

word2vec text files are written (:func:`write_word2vec`) and read
(:func:`read_word2vec`) here too, both streamed: the writer holds one block of
rows as text at a time, and the reader prices what it will allocate (the
vectors and the ids, from a first pass over the file) against the memory left
before allocating it, then fills it in a second pass -- about
:data:`WORD2VEC_READ_BYTES_PER_BYTE` bytes of memory per byte of the file,
where a list-of-lists reader needs dozens.
"""
import json
import math
import re
import struct
import tokenize
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np

from .._atomic import atomic_path
from .._input_file import DataFormatError, memory_bound, open_regular_file
from .._json import JSONLimitError, json_default, parse_json
from .._memory import available_memory, format_bytes
from .._version import __version__
from ..ids import check_no_nan_ids, object_array
from ._training_data import TWO_TABLE_KINDS

__all__ = ["CONTEXT_PREFIX", "FORMAT_VERSION", "MALFORMED_FILE_ERRORS", "ModelFile", "WORD2VEC_READ_BYTES_PER_BYTE", "WRITE_PEAK_BYTES",
           "model_file_from_arrays", "read_checked_npz", "read_model_file", "read_npy_header", "read_word2vec",
           "word2vec_names", "write_model_file", "write_word2vec"]

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

#: what a two-table model's word2vec file prefixes to the ids of its context rows (``"context:12"``: node 12's
#: in-vector), by default; ``lgekit evaluate`` splits such a file on it
CONTEXT_PREFIX = "context:"

#: the most memory writing a model file or a word2vec file takes beyond the model itself: numpy.savez writes
#: each array through a 16 MiB buffer (and its bytes), the word2vec writer one block of rows as text
#: (:data:`_WORD2VEC_BLOCK_BYTES`); tests/test_word2vec_memory.py measures both under this figure
WRITE_PEAK_BYTES = 48 << 20
#: the text of one block of word2vec rows (about): what the writer holds at a time
_WORD2VEC_BLOCK_BYTES = 1 << 20
#: the memory the word2vec reader needs per byte of its file, at most: a row of d numbers and an id of w
#: characters takes at least 2d + w + 1 bytes of text, and 8d bytes of float64 numbers once read, plus its id
#: (an int64, or 4 bytes a character) twice while the ids are checked for repeats; what a file needs exactly is
#: priced after the first pass, before anything is allocated (read_word2vec); tests/test_word2vec_memory.py
#: measures the peak under this bound
WORD2VEC_READ_BYTES_PER_BYTE = 8
# the longest line a word2vec file may have per number (a float written with every digit takes ~25 characters)
_WORD2VEC_LINE_BYTES_PER_NUMBER = 64
#: an id written as a whole number that reads back as the same text (no sign, no leading zero): kept as int64
_CANONICAL_INT = re.compile(rb"0|-?[1-9][0-9]{0,18}")
_INT64 = (-(2**63), 2**63 - 1)
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
    if isinstance(value, float) and math.isnan(value):
        raise ValueError("node id nan cannot be saved: NaN is never equal to itself, so no lookup would find it "
                         "again (lgekit refuses NaN ids wherever ids enter)")
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
        return parse_json(str(array[()]), what=f"{name!r}")
    except JSONLimitError as exc:
        raise ValueError(f"{path}: {str(exc)[:200]}") from None


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
            ids = object_array([_decode_id(value) for value in values])  # a list of tuples stays 1-D
            return check_no_nan_ids(ids, f"{path}: '{name}_json'")
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

    ``path`` may be a binary file open for writing instead (``lgekit fit``
    writes into its run's staging folder so): the arrays are written to it,
    and it is left open.

    Raises
    ------
    ValueError
        If a node id is of a type the file cannot hold.
    IsADirectoryError
        When ``path`` names a folder (an existing one, or one written with a
        trailing ``/``).
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
    if hasattr(path, "write"):
        np.savez(path, **arrays)
        return path
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
def word2vec_names(node_ids, context_node_ids=None, context_prefix=CONTEXT_PREFIX):
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

    Written a block of rows at a time (about 1 MiB of text): the memory it
    takes does not grow with the model (:data:`WRITE_PEAK_BYTES` bounds it).
    ``path`` may be a binary file open for writing instead (left open).

    Raises
    ------
    IsADirectoryError
        When ``path`` names a folder.
    """
    if hasattr(path, "write"):
        _write_word2vec_rows(path, vectors, names, binary)
        return path
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            _write_word2vec_rows(fh, vectors, names, binary)
    return path


def _write_word2vec_rows(fh, vectors, names, binary):
    n, dim = vectors.shape
    fh.write(f"{n} {dim}\n".encode("ascii"))
    per_row = max(1, dim) * (4 if binary else 24)
    step = max(1, _WORD2VEC_BLOCK_BYTES // per_row)
    fmt = "%.9g" if vectors.dtype == np.float32 else "%.17g"
    for lo in range(0, n, step):
        block = vectors[lo:lo + step]
        if binary:
            rows = np.ascontiguousarray(block, dtype="<f4")
            fh.write(b"".join(name.encode("utf-8") + b" " + row.tobytes() + b"\n"
                              for name, row in zip(names[lo:lo + step], rows)))
            continue
        # float32 numbers formatted as the doubles they equal: the same text as formatting the float32
        lines = [name + " " + " ".join([fmt % x for x in row]) for name, row in zip(names[lo:lo + step],
                                                                                     block.tolist())]
        fh.write(("\n".join(lines) + "\n").encode("utf-8"))


def read_word2vec(path):
    """The vectors and ids of a word2vec text file: ``(vectors (n, dim) float64, ids (n,))``.

    The ids are int64 when every one is a whole number written as such
    (``12``, not ``012`` or ``+12``), else text.  Two passes: the first reads
    the ids (their number, longest length and kind) and checks every line,
    so that the memory the result takes is known -- and refused in one line
    when it exceeds what is left -- before it is allocated; the second fills
    it, a block of lines at a time.

    Raises
    ------
    FileNotFoundError
    DataFormatError
        A ``ValueError`` naming the file and the line: not a word2vec text
        file (its first line must be ``n_vectors dim``), a line with another
        number of fields, a coordinate that is not a finite number, an id
        given twice, ids that are not UTF-8, a header that announces another
        number of vectors than the file holds, or more memory than is left.
    """
    with open_regular_file(path, bytes_per_byte=WORD2VEC_READ_BYTES_PER_BYTE, what="a word2vec file") as fh:
        header = fh.readline(256).split()
        if len(header) != 2 or not all(h.isdigit() for h in header):
            raise DataFormatError(f"not a word2vec text file (first line must be 'n_vectors dim', got "
                                  f"{b' '.join(header)[:60].decode('utf-8', 'replace')!r})", path=path, line=1)
        n, dim = int(header[0]), int(header[1])
        size = fh.seek(0, 2)
        fh.seek(len(b" ".join(header)))
        fh.readline()
        start = fh.tell()
        # each row is at least an id and dim numbers, one character and a separator each
        if n * 2 * (dim + 1) > size - start + 1:
            raise DataFormatError(f"the header announces {n:,} vectors of dimension {dim:,}, which take at least "
                                  f"{n * 2 * (dim + 1):,} bytes of text, but the file holds {size - start:,} after "
                                  "it", path=path, line=1)
        longest, characters, integers, count = _word2vec_ids_pass(fh, path, dim)
        if count != n:
            raise DataFormatError(f"the header announces {n:,} vectors, the file holds {count:,}", path=path)
        kind, id_bytes = _word2vec_id_kind(n, longest, characters, integers)
        needed = n * dim * 8 + id_bytes
        available, source = available_memory()
        if available is not None and needed > available:
            raise DataFormatError(f"reading it needs {format_bytes(needed)} ({n:,} vectors of {dim:,} float64 numbers "
                                  f"and their ids, checked for repeats) but {format_bytes(available)} is available "
                                  f"({source})", path=path)
        vectors = np.empty((n, dim), dtype=np.float64)
        ids = np.empty(n, dtype=kind)
        fh.seek(start)
        _word2vec_fill_pass(fh, path, dim, vectors, ids, integers)
    _refuse_duplicate_ids(ids, path)
    return vectors, ids


def _word2vec_id_kind(n, longest, characters, integers):
    """``(dtype, bytes)``: how the ids are held and the memory they take, their check for repeats included.

    Whole numbers: int64.  Text: a ``<U`` array (4 bytes a character of the
    longest id, for every id), unless one id much longer than the others
    makes Python strings cheaper (an object array).  The check for repeats
    sorts a copy of a fixed-width array, or builds a set of the strings.
    """
    if integers:
        return np.int64, 17 * n
    fixed = 8 * max(longest, 1) * n + n
    objects = 4 * characters + 160 * n    # str objects (their text in up to 4 bytes a character), the set's slots
    return (f"<U{max(longest, 1)}", fixed) if fixed <= objects else (object, objects)


def _word2vec_lines(fh, dim, path):
    """``(line number, fields)`` of each non-empty line after the header, each line bounded in length."""
    limit = _WORD2VEC_LINE_BYTES_PER_NUMBER * (dim + 1) + 4096
    number = 1
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            raise DataFormatError(f"a line longer than {limit:,} bytes, more than an id and {dim:,} numbers take",
                                  path=path, line=number)
        fields = line.split()
        if fields:
            yield number, fields


def _word2vec_ids_pass(fh, path, dim):
    """First pass: every line has an id and ``dim`` fields.

    Returns ``(longest id and all ids' length, in characters; whether every id is a whole number; count)``.
    """
    longest, characters, integers, count = 0, 0, True, 0
    for number, fields in _word2vec_lines(fh, dim, path):
        if len(fields) != dim + 1:
            raise DataFormatError(f"expected a node id and {dim} numbers, got {len(fields)} fields", path=path,
                                  line=number)
        name = fields[0]
        if integers and not (_CANONICAL_INT.fullmatch(name) and _INT64[0] <= int(name) <= _INT64[1]):
            integers = False   # text ids (a whole number beyond int64 too: it stays exact as text)
        if b"\0" in name:
            raise DataFormatError("the node id holds a NUL character", path=path, line=number)
        try:
            length = len(name.decode("utf-8"))
        except UnicodeDecodeError:
            raise DataFormatError("the node id is not UTF-8 text", path=path, line=number) from None
        longest, characters, count = max(longest, length), characters + length, count + 1
    return longest, characters, integers, count


def _word2vec_fill_pass(fh, path, dim, vectors, ids, integers, block=1 << 14):
    """Second pass: parse the numbers and ids into ``vectors`` and ``ids``, about ``block`` numbers at a time."""
    row = 0
    numbers, names, lines = [], [], []

    def flush():
        nonlocal row
        k = len(names)
        try:
            values = np.array(numbers, dtype=np.float64).reshape(k, dim)
        except ValueError:
            for number, line_values in zip(lines, (numbers[i * dim:(i + 1) * dim] for i in range(k))):
                for x in line_values:
                    try:
                        float(x)
                    except ValueError:
                        raise DataFormatError(f"non-numeric coordinate {x[:40].decode('utf-8', 'replace')!r}",
                                              path=path, line=number) from None
            raise
        bad = ~np.isfinite(values)
        if bad.any():
            at = int(np.argwhere(bad)[0][0])
            raise DataFormatError(f"a coordinate of node {names[at].decode('utf-8', 'replace')!r} is not a finite "
                                  "number (NaN or infinity): an embedding lgekit can score holds finite numbers only",
                                  path=path, line=lines[at])
        vectors[row:row + k] = values
        ids[row:row + k] = [int(x) for x in names] if integers else [x.decode("utf-8") for x in names]
        row += k
        numbers.clear()
        names.clear()
        lines.clear()

    for number, fields in _word2vec_lines(fh, dim, path):
        names.append(fields[0])
        numbers.extend(fields[1:])
        lines.append(number)
        if len(numbers) + len(names) >= block:
            flush()
    if names:
        flush()


def _refuse_duplicate_ids(ids, path):
    """A word2vec file names each vector once: an id given twice is refused (which row would be the node's?)."""
    if len(ids) < 2:
        return
    if ids.dtype.kind == "O":
        seen, twice = set(), []
        for x in ids.tolist():
            if x in seen:
                twice.append(x)
            seen.add(x)
    else:
        ordered = np.sort(ids)   # one copy and a mask: what _word2vec_id_kind priced
        repeated = ordered[1:] == ordered[:-1]
        twice = ordered[1:][repeated][:3].tolist() if repeated.any() else []
    if twice:
        shown = ", ".join(repr(x) for x in twice[:3])
        raise DataFormatError(f"node id(s) {shown} name two or more vectors: a word2vec file names each vector once "
                              "(which row would be the node's?)", path=path)
