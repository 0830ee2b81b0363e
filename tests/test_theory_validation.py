"""lgekit.theory checks its arguments as the estimators do: lgekit._validation's constraint tables (issue 45).

Every refused scalar argument of the theory functions raises :class:`~lgekit._validation.InvalidParameterError`
(a ValueError and a TypeError) in the one message form ``<caller>: <name> must be <what is accepted>, got
<value>``, with the argument, the value and what is accepted also as attributes.  A hand-written check (the
``_check_*`` helpers these replaced) raises a plain ValueError with its own wording: the test below shows the
assertion refusing one.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from lgekit import Graph
from lgekit._validation import InvalidParameterError
from lgekit.evaluation import EdgeSplit
from lgekit.theory import (
    PairPattern,
    PlantedPairDistribution,
    erdos_renyi_pairs,
    expected_spectral_norm,
    fit_signed_pairs,
    generalization_gap,
    nonvacuous_norm_threshold,
    polish_shattering,
    random_labelled_regular_graph,
    shattering_embedding,
    spectral_norm,
    theorem1_bound,
)
from lgekit.theory.planted import planted_bound_rows, symmetric_sign_sum_norm

OK_BOUND = dict(train_loss=0.1, n_samples=10, spectral_norm=1.0, C_U=1.0, C_V=1.0, B=1.0)
PAIRS = np.array([[0, 1], [1, 2], [2, 0]])


def _split():
    g = Graph.from_edges([(0, 1)], nodes=6)
    arr = [np.asarray(a, dtype=np.int64).reshape(-1, 2) for a in ([[0, 1]], [[2, 3]], [[1, 2]], [[3, 4]])]
    return EdgeSplit(g, g, *arr)


def _regular():
    graph, labels = random_labelled_regular_graph(20, 3, seed=0)
    return graph, labels


def assert_refused_like_the_estimators(call, caller, name, value, accepted):
    """``call()`` raises InvalidParameterError naming ``caller``, ``name``, ``accepted`` and ``value``."""
    with pytest.raises(ValueError) as info:
        call()
    exc = info.value
    assert isinstance(exc, InvalidParameterError), f"a hand-written check: {type(exc).__name__}: {exc}"
    assert isinstance(exc, TypeError)
    assert exc.parameter == name
    assert exc.accepted == accepted
    assert exc.value is value or exc.value == value
    assert str(exc).startswith(f"{caller}: {name} must be {accepted}, got "), str(exc)


CASES = [
    (lambda: theorem1_bound(**OK_BOUND, delta=1.0), "theorem1_bound", "delta", 1.0, "a number in (0, 1)"),
    (lambda: theorem1_bound(**{**OK_BOUND, "n_samples": 0}), "theorem1_bound", "n_samples", 0, "an int >= 1"),
    (lambda: theorem1_bound(**{**OK_BOUND, "B": 0.0}), "theorem1_bound", "B", 0.0, "a finite number > 0"),
    (lambda: theorem1_bound(**{**OK_BOUND, "C_V": float("nan")}), "theorem1_bound", "C_V", None,
     "a finite number >= 0"),
    (lambda: nonvacuous_norm_threshold(10, 1.0, 0), "nonvacuous_norm_threshold", "n_nodes", 0, "an int >= 1"),
    (lambda: nonvacuous_norm_threshold(10, 1.0, 5, lipschitz=0.0), "nonvacuous_norm_threshold", "lipschitz", 0.0,
     "a finite number > 0"),
    (lambda: generalization_gap(np.zeros((6, 2)), _split(), pos_weight=0.0), "generalization_gap", "pos_weight",
     0.0, "a finite number > 0"),
    (lambda: expected_spectral_norm(PAIRS, n_draws=0), "expected_spectral_norm", "n_draws", 0, "an int >= 1"),
    (lambda: expected_spectral_norm(PAIRS, tol=1.0), "expected_spectral_norm", "tol", 1.0, "a number in (0, 1)"),
    (lambda: expected_spectral_norm(PAIRS, n_threads=True), "expected_spectral_norm", "n_threads", True,
     "an int >= 1"),
    (lambda: expected_spectral_norm(PAIRS, dtype="int32"), "expected_spectral_norm", "dtype", "int32",
     "'float32' or 'float64'"),
    (lambda: expected_spectral_norm(PAIRS, kind="directed"), "expected_spectral_norm", "kind", "directed",
     "'bipartite', 'homogeneous' or None"),
    (lambda: spectral_norm(sp.eye(500, format="csr"), maxiter=0), "spectral_norm", "maxiter", 0, "an int >= 1"),
    (lambda: PairPattern(PAIRS).spectral_norm(np.ones(3, np.int8), tol=0), "PairPattern.spectral_norm", "tol", 0,
     "a number in (0, 1)"),
    (lambda: PairPattern(PAIRS).gram_operator(np.ones(3, np.int8), n_threads=0), "PairPattern.gram_operator",
     "n_threads", 0, "an int >= 1"),
    (lambda: PairPattern(PAIRS, kind="directed"), "PairPattern", "kind", "directed", "'bipartite' or 'homogeneous'"),
    (lambda: PairPattern.erdos_renyi(1, 0.5), "PairPattern.erdos_renyi", "n", 1, "an int >= 2"),
    (lambda: erdos_renyi_pairs(10, 0), "erdos_renyi_pairs", "d", 0, "a finite number > 0"),
    (lambda: erdos_renyi_pairs(10.0, 2), "erdos_renyi_pairs", "n", 10.0, "an int >= 2"),
    (lambda: PlantedPairDistribution(3, 1), "PlantedPairDistribution", "n_nodes", 3, "an int >= 4"),
    (lambda: PlantedPairDistribution(40, 4, 0), "PlantedPairDistribution", "negatives_per_positive", 0,
     "an int >= 1"),
    (lambda: PlantedPairDistribution(40, 4).sample(0), "PlantedPairDistribution.sample", "n_samples", 0,
     "an int >= 1"),
    (lambda: symmetric_sign_sum_norm(np.zeros((3, 3)), n_draws=0), "symmetric_sign_sum_norm", "n_draws", 0,
     "an int >= 1"),
    (lambda: planted_bound_rows(PlantedPairDistribution(40, 4), [0], [0.0]), "planted_bound_rows",
     "each of sample_sizes", 0, "an int >= 1"),
    (lambda: shattering_embedding(*_regular(), eps=0.0), "shattering_embedding", "eps", 0.0, "a finite number > 0"),
    (lambda: shattering_embedding(*_regular(), dim=0), "shattering_embedding", "dim", 0, "an int >= 1"),
    (lambda: polish_shattering(*_regular(), np.ones((20, 3)), sweeps=-1), "polish_shattering", "sweeps", -1,
     "an int >= 0"),
    (lambda: fit_signed_pairs(PAIRS, np.ones(3), 3, 0), "fit_signed_pairs", "dim", 0, "an int >= 1"),
    (lambda: fit_signed_pairs(PAIRS, np.ones(3), 3, 2, lam_r=-1.0), "fit_signed_pairs", "lam_r", -1.0,
     "a finite number >= 0"),
]


@pytest.mark.parametrize("call, caller, name, value, accepted", CASES, ids=[f"{c[1]}-{c[2]}" for c in CASES])
def test_theory_arguments_are_refused_like_the_estimators(call, caller, name, value, accepted):
    if value is None:       # NaN: compare through the attribute
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.parameter == name and info.value.value != info.value.value
        assert str(info.value).startswith(f"{caller}: {name} must be {accepted}, got nan")
        return
    assert_refused_like_the_estimators(call, caller, name, value, accepted)


def test_a_hand_written_check_is_told_apart():
    # the wrong version: the _check_delta of bounds.py before issue 45, a plain ValueError in its own words
    def old_theorem1_bound(delta):
        if not 0 < delta < 1:
            raise ValueError(f"delta must be in (0, 1), got {delta!r}")

    with pytest.raises(AssertionError, match="a hand-written check"):
        assert_refused_like_the_estimators(lambda: old_theorem1_bound(1.0), "theorem1_bound", "delta", 1.0,
                                           "a number in (0, 1)")


def test_a_message_without_the_accepted_values_is_told_apart():
    # the wrong version: the estimators' error class, but the message says only that the value is wrong
    def vague(delta):
        raise InvalidParameterError(f"bad delta {delta!r}", parameter="delta", value=delta,
                                    accepted="a number in (0, 1)")

    with pytest.raises(AssertionError):
        assert_refused_like_the_estimators(lambda: vague(1.0), "theorem1_bound", "delta", 1.0, "a number in (0, 1)")
