"""JSON for lgekit's records and model files: NumPy values become plain Python.

Two entry points, for the two ways JSON is written here:

* :func:`to_json_safe` converts a whole structure before it is written, and
  makes it *strict* JSON: a non-finite float becomes ``None`` (JSON has no
  ``NaN``), so any parser reads an experiment record.  Whether a run went
  non-finite is recorded explicitly (``"diverged": true``), not as ``NaN``.
* :func:`json_default` is the ``default=`` hook of :func:`json.dumps`: it is
  called only for what the encoder cannot write itself, so floats, including
  non-finite ones, are left to the encoder (``allow_nan``).  Model files use
  it: a model's history keeps a ``NaN`` objective as ``NaN`` when read back.

Both turn a NumPy scalar into its Python value, an array into (nested) lists,
and any other object into its ``str``.

Reading is one function, :func:`parse_json`, for every JSON file lgekit reads
(the output folder's manifest, ``fit.json``, the results store's cells, a
model file's metadata): its size and its nesting depth are checked before the
parser sees it, so that a crafted file (``[`` two hundred thousand times) is
one :class:`JSONLimitError` naming the file, never a ``RecursionError``
traceback, and a huge one is refused from its length.
"""
import json
import math
import re
import sys

__all__ = ["to_json_safe", "json_default", "parse_json", "json_depth", "JSONLimitError", "MAX_JSON_DEPTH"]

#: the deepest nesting parse_json accepts: lgekit's own files nest 5 levels at most (a cell's history of
#: records of lists), so 64 leaves room for any file it writes and is far below the parser's recursion limit
MAX_JSON_DEPTH = 64

# a whole string (escapes included: a quote inside one does not end it), or a bracket
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_OPENING = frozenset(b"[{")


class JSONLimitError(ValueError):
    """A JSON text is larger or nested deeper than the file it stands for can be; or it does not parse."""


def to_json_safe(obj):
    """A copy of ``obj`` that :func:`json.dumps` writes as strict JSON.

    Parameters
    ----------
    obj : object
        Dicts, lists and tuples are converted recursively (dict keys become
        strings, tuples lists); arrays become lists of their elements.

    Returns
    -------
    object
        ``None``, ``bool``, ``int``, ``float`` (finite), ``str``, ``list`` or
        ``dict`` only.  Non-finite floats (NumPy's or Python's) become
        ``None``; any other object becomes its ``str``.

    Examples
    --------
    >>> import numpy as np
    >>> to_json_safe({"ap": np.float32(0.5), "norms": np.array([1, 2]), 3: float("nan")})
    {'ap': 0.5, 'norms': [1, 2], '3': None}
    """
    if isinstance(obj, dict):
        return {str(k): to_json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json_safe(v) for v in obj]
    np = _numpy()
    if np is not None and isinstance(obj, np.ndarray):
        return to_json_safe(obj.tolist())
    if np is not None and isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


def json_default(obj):
    """The ``default=`` hook of :func:`json.dumps` for NumPy values.

    Returns
    -------
    object
        A NumPy scalar's Python value, an array's nested lists, or else the
        object's ``str``.

    Examples
    --------
    >>> import json
    >>> import numpy as np
    >>> json.dumps({"n": np.int64(3), "x": np.array([0.5, np.nan])}, default=json_default)
    '{"n": 3, "x": [0.5, NaN]}'
    """
    np = _numpy()
    if np is not None and isinstance(obj, np.generic):
        return obj.item()
    if np is not None and isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _numpy():
    """NumPy when it is imported, else None: then no value can be one of its (this module never imports it, so
    that the output folder, which parses its manifest here, keeps ``lgekit --help`` free of it)."""
    return sys.modules.get("numpy")


def json_depth(data, stop=None):
    """The deepest nesting of arrays and objects in the JSON text ``data`` (bytes or str), without parsing it.

    Brackets inside strings do not count.  One pass of a regular expression
    over the text (no recursion): it is what :func:`parse_json` checks before
    the parser, whose recursion a deeply nested text would exhaust.  With
    ``stop``, the scan ends as soon as the depth passes it.

    Examples
    --------
    >>> json_depth(b'{"a": [1, [2]], "b": "[[[ inside a string"}')
    3
    >>> json_depth("7")
    0
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    depth = deepest = 0
    for match in _TOKEN.finditer(raw):
        token = match.group()
        if len(token) != 1:
            continue   # a string
        if token[0] in _OPENING:
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop is not None and deepest > stop:
                    break
        else:
            depth -= 1
    return deepest


def parse_json(data, *, what, max_bytes=None, max_depth=MAX_JSON_DEPTH):
    """The value of the JSON text ``data``, checked before parsing: at most ``max_bytes`` and ``max_depth`` deep.

    Parameters
    ----------
    data : bytes or str
        UTF-8 JSON text.
    what : str
        The file, as messages name it (``"fit.json 'out/fit.json'"``).
    max_bytes : int, optional
        The most bytes a file of its kind holds.
    max_depth : int, default :data:`MAX_JSON_DEPTH`

    Returns
    -------
    object

    Raises
    ------
    JSONLimitError
        A ``ValueError`` naming ``what``: longer than ``max_bytes``, nested
        deeper than ``max_depth`` (said before any parsing), not UTF-8, or not
        JSON.

    Examples
    --------
    >>> parse_json(b'{"a": [1, 2]}', what="a record")
    {'a': [1, 2]}
    >>> parse_json("[" * 100 + "]" * 100, what="a record")
    Traceback (most recent call last):
    ...
    lgekit._json.JSONLimitError: a record is nested more than 64 levels deep, deeper than any JSON file lgekit reads may be: not a file lgekit wrote
    """
    size = len(data)
    if max_bytes is not None and size > max_bytes:
        raise JSONLimitError(f"{what} holds {size:,} bytes, more than the {max_bytes:,} a file of its kind may hold")
    depth = json_depth(data, stop=max_depth)
    if depth > max_depth:
        raise JSONLimitError(f"{what} is nested more than {max_depth} levels deep, deeper than any JSON file lgekit "
                             "reads may be: not a file lgekit wrote")
    try:
        return json.loads(data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data)
    except UnicodeDecodeError as exc:
        raise JSONLimitError(f"{what} is not UTF-8 text (byte {exc.start:,})") from None
    except (ValueError, RecursionError) as exc:
        raise JSONLimitError(f"{what} is not valid JSON ({str(exc)[:120]})") from None
