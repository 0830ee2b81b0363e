"""lgekit._validation: each constraint accepts exactly what it documents, and messages say what and why.

The Hypothesis tests compare every constraint with an independent predicate
written from its docstring, over values of every kind (ints, floats with NaN
and infinities, NumPy scalars, bools, strings, None).
"""
import math
from fractions import Fraction
from numbers import Integral, Real

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lgekit import Graph
from lgekit._validation import (
    DTypes,
    InstanceOf,
    Interval,
    InvalidParameterError,
    Options,
    check_pairs,
    make_constraint,
    validate_arguments,
    validate_parameter_constraints,
    validate_params,
)

CLOSED = ("left", "right", "both", "neither")

# every kind of value a caller might pass
anything = st.one_of(
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10**6, 10**6).map(np.int64),
    st.floats(width=32, allow_nan=True, allow_infinity=True).map(np.float32),
    st.booleans(),
    st.booleans().map(np.bool_),
    st.none(),
    st.text(max_size=5),
    st.fractions(max_denominator=10),
    st.lists(st.integers(), max_size=3),
)
bounds = st.one_of(st.none(), st.integers(-50, 50), st.floats(-50, 50, allow_nan=False))


def _is_bool(v):
    return isinstance(v, (bool, np.bool_))


def _in_interval(v, left, right, closed):
    """The documented meaning of Interval, written independently of its implementation."""
    if left is not None and not (v >= left if closed in ("left", "both") else v > left):
        return False
    if right is not None and not (v <= right if closed in ("right", "both") else v < right):
        return False
    return True


@st.composite
def intervals(draw):
    left, right = draw(bounds), draw(bounds)
    if left is not None and right is not None and left > right:
        left, right = right, left
    return left, right, draw(st.sampled_from(CLOSED))


# --------------------------------------------------------------------------- Interval
@given(intervals(), anything)
def test_integral_interval_accepts_exactly_ints_in_range(interval, value):
    left, right, closed = interval
    c = Interval(Integral, left, right, closed=closed)
    is_int = isinstance(value, (int, np.integer)) and not _is_bool(value)
    assert c.is_satisfied_by(value) == (is_int and _in_interval(value, left, right, closed))


@given(intervals(), anything)
def test_real_interval_accepts_exactly_finite_reals_in_range(interval, value):
    left, right, closed = interval
    c = Interval(Real, left, right, closed=closed)
    is_real = isinstance(value, (int, float, np.integer, np.floating, Fraction)) and not _is_bool(value)
    finite = is_real and (isinstance(value, (int, np.integer, Fraction)) or math.isfinite(value))
    assert c.is_satisfied_by(value) == (finite and _in_interval(value, left, right, closed))


@given(st.sampled_from(CLOSED))
def test_bools_are_never_numbers(closed):
    for kind in (Integral, Real):
        c = Interval(kind, None, None, closed=closed)
        for flag in (True, False, np.True_, np.False_):
            assert not c.is_satisfied_by(flag)
        assert c.is_satisfied_by(1) and c.is_satisfied_by(np.int32(0))


def test_huge_integers_are_compared_exactly():
    assert Interval(Real, 0, None, closed="left").is_satisfied_by(10**400)   # no OverflowError converting
    assert not Interval(Integral, None, 10**400, closed="neither").is_satisfied_by(10**400)
    assert not Interval(Integral, 0, None, closed="left").is_satisfied_by(2.0)  # whole floats are not ints


@pytest.mark.parametrize("constraint, text", [
    (Interval(Integral, 1, None, closed="left"), "an int >= 1"),
    (Interval(Integral, 0, None, closed="neither"), "an int > 0"),
    (Interval(Integral, None, 5, closed="right"), "an int <= 5"),
    (Interval(Integral, None, 5, closed="neither"), "an int < 5"),
    (Interval(Integral, None, None, closed="both"), "an int"),
    (Interval(Integral, 1, 10, closed="both"), "an int in [1, 10]"),
    (Interval(Integral, 1, 10, closed="both", right_name="n_nodes"), "an int in [1, n_nodes=10]"),
    (Interval(Real, 0, None, closed="left"), "a finite number >= 0"),
    (Interval(Real, 0, None, closed="neither"), "a finite number > 0"),
    (Interval(Real, None, None, closed="neither"), "a finite number"),
    (Interval(Real, 0, 1, closed="left"), "a number in [0, 1)"),
    (Interval(Real, 0, 1, closed="neither"), "a number in (0, 1)"),
    (Interval(Real, 0.5, 1, closed="right", left_name="lo"), "a number in (lo=0.5, 1]"),
    (Options(str, {"hogwild", "deterministic"}), "'deterministic' or 'hogwild'"),
    (Options(str, ("uniform", "degree", "zipf")), "'uniform', 'degree' or 'zipf'"),
    (make_constraint("boolean"), "True or False"),
    (make_constraint("random_state"), "None, a non-negative int or a numpy.random.Generator"),
    (make_constraint(None), "None"),
    (make_constraint(Graph), "an instance of lgekit.graph.Graph"),
    (InstanceOf(Graph, "an lgekit.Graph"), "an lgekit.Graph"),
    (DTypes("float32", "float64"), "'float32' or 'float64'"),
])
def test_descriptions(constraint, text):
    assert str(constraint) == text


def test_bad_intervals_are_refused_when_the_table_is_written():
    with pytest.raises(TypeError, match="Interval type"):
        Interval(float, 0, 1, closed="both")
    with pytest.raises(ValueError, match="closed must be"):
        Interval(Real, 0, 1, closed="open")
    with pytest.raises(ValueError, match="exceeds"):
        Interval(Real, 2, 1, closed="both")
    with pytest.raises(TypeError, match="bounds"):
        Interval(Real, True, None, closed="left")
    with pytest.raises(TypeError, match="unknown parameter constraint"):
        make_constraint("array-like")


# --------------------------------------------------------------------------- other constraints
@given(st.sets(st.text(max_size=3), min_size=1, max_size=4), anything)
def test_options_accept_exactly_their_values(options, value):
    c = Options(str, options)
    assert c.is_satisfied_by(value) == (isinstance(value, str) and value in options)


def test_options_refuse_bools_standing_for_ints():
    c = Options(int, {0, 1})
    assert c.is_satisfied_by(0) and c.is_satisfied_by(1)
    assert not c.is_satisfied_by(False) and not c.is_satisfied_by(True)
    assert Options(bool, {True}).is_satisfied_by(True)
    assert not Options(str, {"a"}).is_satisfied_by(np.array(["a", "b"]))   # no elementwise comparison


@given(anything)
def test_boolean_accepts_exactly_bools(value):
    assert make_constraint("boolean").is_satisfied_by(value) == _is_bool(value)


@given(anything)
def test_random_state_accepts_exactly_none_non_negative_ints_and_generators(value):
    expected = value is None or (isinstance(value, (int, np.integer)) and not _is_bool(value) and value >= 0)
    assert make_constraint("random_state").is_satisfied_by(value) == expected


def test_random_state_generators():
    c = make_constraint("random_state")
    assert c.is_satisfied_by(np.random.default_rng(0))
    assert not c.is_satisfied_by(np.random.RandomState(0))   # the legacy global-state API is never taken


@pytest.mark.parametrize("value, ok", [("float32", True), (np.float64, True), (np.dtype("float32"), True),
                                       ("float16", False), (None, False), ("no-such-type", False), (3, False)])
def test_dtypes(value, ok):
    assert DTypes("float32", "float64").is_satisfied_by(value) == ok


def test_dtype_messages():
    table = {"dtype": [DTypes("float32", "float64")]}
    for value, shown in (("float16", "'float16'"), (None, "None"), (3, "int: 3")):
        with pytest.raises(InvalidParameterError, match=rf"^dtype must be 'float32' or 'float64', got {shown}$"):
            validate_params(table, {"dtype": value})


# --------------------------------------------------------------------------- messages
TABLE = {
    "dim": [Interval(Integral, 1, None, closed="left")],
    "lam_r": [Interval(Real, 0, None, closed="left")],
    "train_sample": [Interval(Integral, 2, None, closed="left"), None],
    "order": [Options(str, {"edge", "vertex"})],
    "diagnostics": ["boolean"],
}


@given(st.sampled_from(sorted(TABLE)), anything)
def test_a_rejected_value_is_named_with_what_is_accepted(name, value):
    constraints = [make_constraint(c) for c in TABLE[name]]
    if any(c.is_satisfied_by(value) for c in constraints):
        validate_params(TABLE, {**GOOD, name: value}, "Model")
        return
    with pytest.raises(InvalidParameterError) as info:
        validate_params(TABLE, {**GOOD, name: value}, "Model")
    accepted = " or ".join(str(c) for c in constraints)
    message = str(info.value)
    assert message.startswith(f"Model: {name} must be {accepted}, got ")
    shown = message[len(f"Model: {name} must be {accepted}, got "):]
    plain = repr(value.item() if isinstance(value, np.generic) else value)   # NumPy scalars read as typed
    plain = plain if len(plain) <= 100 else plain[:97] + "..."
    type_ok = value is None or any(c.type_ok(value) for c in constraints)
    assert shown == (plain if type_ok else f"{type(value).__name__}: {plain}")
    assert (info.value.parameter, info.value.accepted) == (name, accepted)
    assert info.value.value is value


GOOD = {"dim": 8, "lam_r": 0.5, "train_sample": None, "order": "edge", "diagnostics": True}


@pytest.mark.parametrize("params, message", [
    ({"dim": 0}, "Model: dim must be an int >= 1, got 0"),
    ({"dim": 2.5}, "Model: dim must be an int >= 1, got float: 2.5"),
    ({"dim": np.int64(-3)}, "Model: dim must be an int >= 1, got -3"),
    ({"lam_r": -0.1}, "Model: lam_r must be a finite number >= 0, got -0.1"),
    ({"lam_r": float("nan")}, "Model: lam_r must be a finite number >= 0, got nan"),
    ({"lam_r": np.float64(-1.0)}, "Model: lam_r must be a finite number >= 0, got -1.0"),
    ({"lam_r": "fast"}, "Model: lam_r must be a finite number >= 0, got str: 'fast'"),
    ({"train_sample": 1}, "Model: train_sample must be an int >= 2 or None, got 1"),
    ({"order": "random"}, "Model: order must be 'edge' or 'vertex', got 'random'"),
    ({"order": None}, "Model: order must be 'edge' or 'vertex', got None"),
    ({"diagnostics": 1}, "Model: diagnostics must be True or False, got int: 1"),
])
def test_messages(params, message):
    with pytest.raises(InvalidParameterError) as info:
        validate_parameter_constraints(TABLE, {**GOOD, **params}, caller="Model")
    assert str(info.value) == message
    # a ValueError and a TypeError, so that callers written for either keep working
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_long_values_are_cut():
    with pytest.raises(InvalidParameterError) as info:
        validate_params({"dim": TABLE["dim"]}, {"dim": list(range(1000))})
    assert str(info.value).endswith("...") and len(str(info.value)) < 160
    assert str(info.value).startswith("dim must be")      # no caller, no prefix


def test_a_table_naming_an_unknown_parameter_is_a_bug_not_a_user_error():
    with pytest.raises(TypeError, match="names 'dimm'") as info:
        validate_params({"dimm": TABLE["dim"]}, {"dim": 8}, "Model")
    assert not isinstance(info.value, InvalidParameterError)
    validate_params(TABLE, {**GOOD, "unchecked": object()}, "Model")   # parameters without an entry pass


# --------------------------------------------------------------------------- the decorator
@validate_arguments({"n": [Interval(Integral, 0, None, closed="left")], "p": [Interval(Real, 0, 1, closed="both")]})
def _coin(n, p=0.5, *, label="x"):
    """Flip."""
    return n, p, label


def test_decorator_checks_positional_keyword_and_default_arguments():
    assert _coin(3) == (3, 0.5, "x") and _coin(n=2, p=1, label="y") == (2, 1, "y")
    with pytest.raises(InvalidParameterError, match=r"^_coin: n must be an int >= 0, got -1$"):
        _coin(-1)
    with pytest.raises(InvalidParameterError, match=r"^_coin: p must be a number in \[0, 1\], got 2$"):
        _coin(1, p=2)
    with pytest.raises(TypeError, match="missing a required argument"):
        _coin()
    assert _coin.__doc__ == "Flip." and _coin.__name__ == "_coin"
    assert list(_coin._parameter_constraints) == ["n", "p"]

    with pytest.raises(InvalidParameterError, match="p must be"):
        @validate_arguments({"p": [Interval(Real, 0, 1, closed="both")]})
        def bad_default(p=3.0):
            return p

        bad_default()


def test_decorator_refuses_a_table_that_names_no_parameter():
    with pytest.raises(TypeError, match=r"names \['q'\]"):
        @validate_arguments({"q": [None]})
        def f(p):
            return p


# --------------------------------------------------------------------------- node pairs
@given(st.integers(1, 30), st.sampled_from([np.int8, np.int32, np.int64, np.uint16, np.uint64]), st.data())
def test_check_pairs_accepts_exactly_integer_pairs_in_range(n_nodes, dtype, data):
    info = np.iinfo(dtype)
    arr = data.draw(hnp.arrays(dtype, st.tuples(st.integers(1, 6), st.just(2)),
                               elements=st.integers(max(info.min, -5), min(info.max, n_nodes + 5))))
    in_range = bool(((arr >= 0) & (arr < n_nodes)).all())
    if in_range:
        out = check_pairs(arr, n_nodes, "pairs")
        assert out.dtype == np.int64 and out.flags.c_contiguous and out.shape == arr.shape
        np.testing.assert_array_equal(out, arr.astype(np.int64))
    else:
        with pytest.raises(InvalidParameterError, match=rf"pairs must hold node indices in \[0, {n_nodes}\), got"):
            check_pairs(arr, n_nodes, "pairs")


@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.just(2)), elements=st.integers(0, 3).map(float)))
def test_check_pairs_refuses_floats_even_whole_ones(arr):
    with pytest.raises(InvalidParameterError, match=r"exclude must hold integer node indices, got dtype float64 \("):
        check_pairs(arr, 10, "exclude")


@pytest.mark.parametrize("pairs, message", [
    (np.array([[True, False]]), "got dtype bool"),
    ([["a", "b"]], "must hold integer node indices"),
    ([0, 1, 2], r"must be an \(k, 2\) array of node index pairs, got shape \(3,\)"),
    (np.zeros((2, 3), dtype=int), r"got shape \(2, 3\)"),
    ([[0, 1], [2]], r"must be an \(k, 2\) array of node index pairs: "),
    (np.array([[0, 2**64 - 1]], dtype=np.uint64), r"got values in \[0, 18446744073709551615\]"),  # no wrap-around
])
def test_check_pairs_errors(pairs, message):
    with pytest.raises(InvalidParameterError, match=message):
        check_pairs(pairs, 5, "pairs")


def test_check_pairs_empty_inputs():
    for empty in ([], np.empty((0, 2)), np.empty((0, 2), dtype=np.uint8), np.empty(0, dtype=object)):
        out = check_pairs(empty, 3, "pairs")
        assert out.shape == (0, 2) and out.dtype == np.int64


def test_one_pair_rule_everywhere():
    """evaluation, metrics and Graph used to disagree on float indices; they now share check_pairs."""
    import lgekit.evaluation
    from lgekit.evaluation import sample_negative_pairs
    from lgekit.metrics import pair_scores

    assert lgekit.evaluation._check_pairs is check_pairs   # the alias models/hinge.py still imports
    g = Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0)])
    floats = [[0.0, 2.0]]
    for call in (lambda: sample_negative_pairs(g, 2, seed=0, exclude=floats),
                 lambda: pair_scores(np.ones((4, 2)), floats),
                 lambda: g.has_edges(floats)):
        with pytest.raises(InvalidParameterError, match="must hold integer node indices, got dtype float64"):
            call()
    assert g.has_edges(np.array([[0, 1], [0, 2]], dtype=np.int32)).tolist() == [True, False]
