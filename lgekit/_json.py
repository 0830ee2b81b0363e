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
"""
import math

import numpy as np

__all__ = ["to_json_safe", "json_default"]


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
    >>> to_json_safe({"ap": np.float32(0.5), "norms": np.array([1, 2]), 3: float("nan")})
    {'ap': 0.5, 'norms': [1, 2], '3': None}
    """
    if isinstance(obj, dict):
        return {str(k): to_json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_json_safe(obj.tolist())
    if isinstance(obj, np.generic):
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
    >>> json.dumps({"n": np.int64(3), "x": np.array([0.5, np.nan])}, default=json_default)
    '{"n": 3, "x": [0.5, NaN]}'
    """
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)
