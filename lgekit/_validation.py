"""Declarative validation of parameters: one table of constraints per estimator or function.

A table maps each parameter name to the list of constraints it may satisfy;
a value is valid when it satisfies at least one of them::

    from numbers import Integral, Real

    _parameter_constraints = {
        "dim": [Interval(Integral, 1, None, closed="left")],
        "lam_r": [Interval(Real, 0, None, closed="left")],
        "order": [Options(str, {"edge", "vertex"})],
        "random_state": ["random_state"],
        "max_degree": [Interval(Real, 0, None, closed="neither"), None],
    }

Functions use the :func:`validate_arguments` decorator; estimators call
:func:`validate_parameter_constraints` in ``fit``::

    validate_parameter_constraints(self._parameter_constraints, self.get_params(),
                                   caller=type(self).__name__)

A value outside the table raises :class:`InvalidParameterError`, a subclass
of both ``ValueError`` and ``TypeError``, with one message form::

    <caller>: <name> must be <what is accepted>, got <value>

(``got <type>: <value>`` when the value's type is accepted by none of the
constraints).  The idea and the class names follow scikit-learn's
``sklearn/utils/_param_validation.py``.

Rules every constraint keeps:

* bools are never numbers: ``True`` satisfies no :class:`Interval`, even
  though ``bool`` subclasses ``int``;
* :class:`Interval` over ``Real`` accepts only finite values (NaN and
  infinities never);
* :class:`Interval` over ``Integral`` accepts Python and NumPy integers, never
  floats, even whole ones (``2.0``).

The module imports NumPy only when a check needs it, so that the command
line can name :class:`InvalidParameterError` without loading the scientific
stack.
"""
import functools
import inspect
import math
import numbers

__all__ = [
    "InvalidParameterError",
    "Constraint",
    "Interval",
    "Options",
    "InstanceOf",
    "DTypes",
    "Grid",
    "make_constraint",
    "validate_params",
    "validate_parameter_constraints",
    "validate_arguments",
    "check_pairs",
]

# longer reprs of a rejected value are cut, so that a huge list or array does not flood the message
_MAX_VALUE_REPR = 100


class InvalidParameterError(ValueError, TypeError):
    """A parameter outside what its constraints accept: a user error, never a bug in lgekit.

    A subclass of both ``ValueError`` and ``TypeError`` (as scikit-learn's),
    so that code written against either keeps catching it.  The command line
    reports it in one line.

    Parameters
    ----------
    message : str
    parameter : str, optional
        Name of the offending parameter.
    value : object, optional
        The value received.
    accepted : str, optional
        What the parameter accepts, in words.
    """

    def __init__(self, message, *, parameter=None, value=None, accepted=None):
        super().__init__(message)
        self.parameter = parameter
        self.value = value
        self.accepted = accepted


# ---------------------------------------------------------------------- constraints
class Constraint:
    """A set of accepted values, described in words.

    Subclasses implement :meth:`is_satisfied_by` and :meth:`alternatives`;
    :meth:`type_ok` says whether the value's *type* is one the constraint
    could accept (for the ``got <type>: <value>`` form of the message).
    """

    def is_satisfied_by(self, value):  # pragma: no cover - abstract
        raise NotImplementedError

    def type_ok(self, value):
        return self.is_satisfied_by(value)

    def alternatives(self):
        """The accepted values as a list of phrases, joined with ", " and " or " in messages."""
        raise NotImplementedError  # pragma: no cover - abstract

    def __str__(self):
        return _join(self.alternatives())

    def __repr__(self):
        return f"<{type(self).__name__}: {self}>"


def _is_bool(value):
    # numpy.bool_ is not registered as a number, but say so explicitly: a flag is never a count
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"))


class Interval(Constraint):
    """Numbers of one type in an interval.

    Parameters
    ----------
    type : numbers.Integral or numbers.Real
        ``Integral`` accepts Python and NumPy integers; ``Real`` also accepts
        floats (Python, NumPy) and other finite reals.  Bools are refused by
        both.
    left, right : number or None
        The bounds; ``None`` leaves that side unbounded.
    closed : {"left", "right", "both", "neither"}
        Which bounds belong to the interval.
    left_name, right_name : str, optional
        What a bound stands for, shown in the message when the bound is
        computed from other arguments: ``Interval(Integral, 1, n, closed="both",
        right_name="n_nodes")`` reads "an int in [1, n_nodes=10]".

    Notes
    -----
    Described as "an int >= 1", "an int in [1, 10]", "a finite number > 0",
    "a number in [0, 1)" (a bounded real is finite by its bounds).
    """

    def __init__(self, type, left, right, *, closed, left_name=None, right_name=None):
        if type not in (numbers.Integral, numbers.Real):
            raise TypeError(f"Interval type must be numbers.Integral or numbers.Real, got {type!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither', got {closed!r}")
        for bound in (left, right):
            if bound is not None and (_is_bool(bound) or not isinstance(bound, numbers.Real)):
                raise TypeError(f"Interval bounds must be numbers or None, got {bound!r}")
        if left is not None and right is not None and left > right:
            raise ValueError(f"Interval left bound {left!r} exceeds right bound {right!r}")
        self.type = type
        self.left = left
        self.right = right
        self.closed = closed
        self.left_name = left_name
        self.right_name = right_name

    def type_ok(self, value):
        return isinstance(value, self.type) and not _is_bool(value)

    def is_satisfied_by(self, value):
        if not self.type_ok(value):
            return False
        # integers are exact whatever their size (math.isfinite would overflow converting a huge one)
        if not isinstance(value, numbers.Integral) and not math.isfinite(value):
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def _bound(self, value, name):
        return f"{name}={value}" if name else f"{value}"

    def alternatives(self):
        integral = self.type is numbers.Integral
        left_in = self.closed in ("left", "both")
        right_in = self.closed in ("right", "both")
        left = self._bound(self.left, self.left_name)
        right = self._bound(self.right, self.right_name)
        if self.left is not None and self.right is not None:
            noun = "an int" if integral else "a number"
            return [f"{noun} in {'[' if left_in else '('}{left}, {right}{']' if right_in else ')'}"]
        noun = "an int" if integral else "a finite number"
        if self.left is not None:
            return [f"{noun} {'>=' if left_in else '>'} {left}"]
        if self.right is not None:
            return [f"{noun} {'<=' if right_in else '<'} {right}"]
        return [noun]


class Options(Constraint):
    """A finite set of values of one type.

    Parameters
    ----------
    type : type
        Accepted values are instances of it (``Options(str, ...)`` refuses
        ``b"edge"``); bools are refused unless ``type`` is ``bool``.
    options : sequence or set
        The accepted values.  A sequence keeps its order in messages; a set
        is listed sorted.
    """

    def __init__(self, type, options):
        if isinstance(options, (set, frozenset)):
            options = sorted(options, key=repr)
        self.type = type
        self.options = tuple(options)
        if not self.options:
            raise ValueError("Options needs at least one option")

    def type_ok(self, value):
        return isinstance(value, self.type) and (self.type is bool or not _is_bool(value))

    def is_satisfied_by(self, value):
        # the type test first: `value in options` on an array would compare elementwise
        return self.type_ok(value) and value in self.options

    def alternatives(self):
        return [repr(o) for o in self.options]


class InstanceOf(Constraint):
    """Instances of a type, described as ``description`` (default: "an instance of module.Class")."""

    def __init__(self, type, description=None):
        self.type = type
        self.description = description or f"an instance of {type.__module__}.{type.__qualname__}"

    def is_satisfied_by(self, value):
        return isinstance(value, self.type)

    def alternatives(self):
        return [self.description]


class DTypes(Constraint):
    """Floating-point (or other) dtypes given in any form NumPy understands: ``"float32"``, ``np.float32``, ...

    ``None`` is refused even though ``np.dtype(None)`` is float64: a missing
    dtype is not a choice.

    Parameters
    ----------
    *names : str
        The accepted dtypes, e.g. ``DTypes("float32", "float64")``.
    """

    def __init__(self, *names):
        if not names:
            raise ValueError("DTypes needs at least one dtype name")
        self.names = names

    def type_ok(self, value):
        import numpy as np  # when a check needs it: the command line imports this module without NumPy

        # the forms a dtype is written in: a wrong one reads "got 'float16'", not "got str: 'float16'"
        return isinstance(value, (str, type, np.dtype))

    def is_satisfied_by(self, value):
        import numpy as np  # when a check needs it: the command line imports this module without NumPy

        if value is None:
            return False
        try:
            dtype = np.dtype(value)
        except TypeError:
            return False
        return any(dtype == np.dtype(name) for name in self.names)

    def alternatives(self):
        return [repr(name) for name in self.names]


class Grid(Constraint):
    """The values of a search: a non-empty sequence (list, tuple, 1-D array) of distinct values, each accepted
    by ``element`` (a :class:`Constraint`), e.g. ``Grid(Interval(Real, 0, None, closed="left"))`` for a grid
    of :math:`\\lambda_r`.  A string, a set (no order) and a mapping are not sequences here."""

    def __init__(self, element):
        self.element = make_constraint(element)

    def type_ok(self, value):
        if isinstance(value, (str, bytes, set, frozenset, dict)) or not hasattr(value, "__len__"):
            return False
        return getattr(value, "ndim", 1) == 1

    def is_satisfied_by(self, value):
        if not self.type_ok(value) or len(value) == 0:
            return False
        items = list(value)
        return all(self.element.is_satisfied_by(v) for v in items) and len(set(items)) == len(items)

    def alternatives(self):
        return [f"a non-empty sequence of distinct values, each {self.element}"]


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, value):
        return value is None

    def alternatives(self):
        return ["None"]


class _Booleans(Constraint):
    """``True`` / ``False`` (and NumPy bools); ints, even 0 and 1, are refused."""

    def is_satisfied_by(self, value):
        return _is_bool(value)

    def alternatives(self):
        return ["True", "False"]


class _RandomStates(Constraint):
    """What :func:`lgekit._random.check_random_state` accepts: None, an int >= 0, a Generator."""

    def type_ok(self, value):
        if value is None:
            return True
        if isinstance(value, numbers.Integral):
            return not _is_bool(value)
        import numpy as np  # when a check needs it: the command line imports this module without NumPy

        return isinstance(value, np.random.Generator)

    def is_satisfied_by(self, value):
        return self.type_ok(value) and not (isinstance(value, numbers.Integral) and value < 0)

    def alternatives(self):
        return ["None", "a non-negative int", "a numpy.random.Generator"]


# stateless: one instance each serves every table
_NAMED = {"boolean": _Booleans(), "random_state": _RandomStates()}
_NONE = _NoneConstraint()


def make_constraint(constraint):
    """The :class:`Constraint` a table entry stands for.

    ``None`` (the value None), ``"boolean"``, ``"random_state"``, a type (its
    instances) or a :class:`Constraint` itself.  Anything else is a mistake in
    the table, reported as a ``TypeError`` (a bug, not a user error).
    """
    if isinstance(constraint, Constraint):
        return constraint
    if constraint is None:
        return _NONE
    if isinstance(constraint, str) and constraint in _NAMED:
        return _NAMED[constraint]
    if isinstance(constraint, type):
        return InstanceOf(constraint)
    raise TypeError(f"unknown parameter constraint {constraint!r}: use None, 'boolean', 'random_state', a type "
                    "or a Constraint (Interval, Options, InstanceOf, DTypes)")


# ---------------------------------------------------------------------- messages
def _join(phrases):
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"


def _format_value(value):
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        value = value.item()  # np.float64(0.5) reads as 0.5, as the user typed it
    text = repr(value)
    return text if len(text) <= _MAX_VALUE_REPR else text[:_MAX_VALUE_REPR - 3] + "..."


def _received(value, constraints):
    if value is None or any(c.type_ok(value) for c in constraints):
        return _format_value(value)
    return f"{type(value).__name__}: {_format_value(value)}"


# ---------------------------------------------------------------------- validation
def _normalise(constraints):
    return {name: [make_constraint(c) for c in allowed] for name, allowed in constraints.items()}


def validate_params(constraints, params, caller=None):
    """Check each parameter of ``params`` named in ``constraints`` against its list of constraints.

    Parameters
    ----------
    constraints : dict of str to list
        The table: parameter name to the constraints it may satisfy (see
        :func:`make_constraint` for the forms an entry takes).
    params : dict of str to object
        Parameter values, e.g. ``estimator.get_params()``.  Parameters with
        no entry in the table are not checked here.
    caller : str, optional
        The estimator or function, named at the start of the message.

    Raises
    ------
    InvalidParameterError
        For the first parameter that satisfies none of its constraints.
    TypeError
        When the table names a parameter absent from ``params``: a mistyped
        table entry would otherwise silently check nothing.  This is a bug in
        the caller, hence a plain ``TypeError``, not an
        :class:`InvalidParameterError`.

    Examples
    --------
    >>> from numbers import Integral
    >>> table = {"dim": [Interval(Integral, 1, None, closed="left")]}
    >>> validate_params(table, {"dim": 8}, "LogisticEmbedding")
    >>> validate_params(table, {"dim": 0}, "LogisticEmbedding")
    Traceback (most recent call last):
      ...
    lgekit._validation.InvalidParameterError: LogisticEmbedding: dim must be an int >= 1, got 0
    """
    for name, allowed in constraints.items():
        if name not in params:
            raise TypeError(f"{caller or 'validate_params'}: the constraint table names {name!r}, which is not a "
                           f"parameter (parameters: {', '.join(sorted(params))})")
        value = params[name]
        allowed = [make_constraint(c) for c in allowed]
        if any(c.is_satisfied_by(value) for c in allowed):
            continue
        accepted = _join([phrase for c in allowed for phrase in c.alternatives()])
        prefix = f"{caller}: " if caller else ""
        raise InvalidParameterError(f"{prefix}{name} must be {accepted}, got {_received(value, allowed)}",
                                    parameter=name, value=value, accepted=accepted)


#: scikit-learn's name for :func:`validate_params`, for estimators ported from its conventions
validate_parameter_constraints = validate_params


def validate_arguments(constraints):
    """Decorator: validate a function's arguments against ``constraints`` on every call.

    The arguments are bound to the signature with their defaults filled in
    (so defaults are checked too) before the function body runs; the table is
    checked against the signature once, when the function is defined.  The
    table is kept as the wrapper's ``_parameter_constraints``.

    Parameters
    ----------
    constraints : dict of str to list
        As for :func:`validate_params`.

    Raises
    ------
    TypeError
        At definition time, when the table names a parameter the function
        does not have.

    Examples
    --------
    >>> from numbers import Real
    >>> @validate_arguments({"p": [Interval(Real, 0, 1, closed="both")]})
    ... def coin(p):
    ...     return p
    >>> coin(1.5)
    Traceback (most recent call last):
      ...
    lgekit._validation.InvalidParameterError: coin: p must be a number in [0, 1], got 1.5
    """
    table = _normalise(constraints)

    def decorator(func):
        signature = inspect.signature(func)
        unknown = sorted(set(table) - set(signature.parameters))
        if unknown:
            raise TypeError(f"the constraint table of {func.__qualname__} names {unknown}, which are not among "
                            f"its parameters {list(signature.parameters)}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            validate_params(table, bound.arguments, func.__name__)
            return func(*args, **kwargs)

        wrapper._parameter_constraints = constraints
        return wrapper

    return decorator


# ---------------------------------------------------------------------- node pairs
def check_pairs(pairs, n_nodes, name):
    """Node index pairs as a C-contiguous ``(k, 2)`` int64 array, or an error naming ``name``.

    The one rule every lgekit function applies to index pairs:

    * an array-like of shape ``(k, 2)``; an empty input of shape ``(0,)``
      (e.g. ``[]``) or ``(0, 2)`` is ``k = 0`` whatever its dtype;
    * an **integer** dtype.  Floats are refused even when they hold whole
      numbers (silently truncating ``1.7`` to node 1 is worse than asking for
      a cast); so are bools (a mask is not a list of indices), strings and
      objects;
    * every index in ``[0, n_nodes)``.

    Parameters
    ----------
    pairs : array-like of shape (k, 2)
    n_nodes : int
        Number of nodes (rows of the embedding, nodes of the graph).
    name : str
        The argument's name, for the message.

    Returns
    -------
    ndarray of shape (k, 2), int64, C-contiguous
        ``pairs`` itself when it already is one.

    Raises
    ------
    InvalidParameterError
        Wrong shape, a non-integer dtype, or an index out of range.

    Examples
    --------
    >>> check_pairs([[0, 1], [2, 0]], 3, "pairs").tolist()
    [[0, 1], [2, 0]]
    >>> check_pairs([[0.0, 1.0]], 3, "pairs")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    lgekit._validation.InvalidParameterError: pairs must hold integer node indices, got dtype float64 (cast ...)
    """
    import numpy as np  # when a check needs it: the command line imports this module without NumPy

    try:
        arr = np.asarray(pairs)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise InvalidParameterError(f"{name} must be an (k, 2) array of node index pairs: {exc}",
                                    parameter=name, value=pairs, accepted="an (k, 2) integer array") from None
    if arr.size == 0 and arr.shape in ((0,), (0, 2)):
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidParameterError(f"{name} must be an (k, 2) array of node index pairs, got shape {arr.shape}",
                                    parameter=name, value=pairs, accepted="an (k, 2) integer array")
    if arr.dtype.kind not in "iu":
        hint = " (cast whole-number floats with .astype(numpy.int64))" if arr.dtype.kind == "f" else ""
        raise InvalidParameterError(f"{name} must hold integer node indices, got dtype {arr.dtype}{hint}",
                                    parameter=name, value=pairs, accepted="an (k, 2) integer array")
    if arr.size:
        # compared in the input dtype: a uint64 above 2**63 must not wrap to a negative int64 first
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi >= n_nodes:
            raise InvalidParameterError(
                f"{name} must hold node indices in [0, {n_nodes}), got values in [{int(lo)}, {int(hi)}]",
                parameter=name, value=pairs, accepted=f"node indices in [0, {n_nodes})")
    return np.ascontiguousarray(arr, dtype=np.int64)
