"""The edges of lgekit.theory that the theory checks' verdicts cannot reach, pinned.

Issue 41's mutation run (``.ci/mutation``, ``benchmarks/README.md``: "Mutation testing of the theory checks")
left mutants alive where a correct run of ``lgekit theory ... --quick`` never goes: an argument refused, an
empty input, a warning, a default, a seed's range, a community of another size.  Each test below kills the
mutants of one such edge (named in its comment) by computing what the statement says there.
"""
import inspect
import math
import time
import warnings

import networkx as nx
import numpy as np
import pytest

import lgekit.theory.rademacher as R
from lgekit import Graph, datasets
from lgekit.evaluation import EdgeSplit
from lgekit.experiments import check_bound, check_rademacher
from lgekit.experiments.check_shattering import adversarial_labellings
from lgekit.experiments.theorem1 import fit_across_lam_r
from lgekit.theory import (
    PlantedPairDistribution,
    adversarial_regular_graphs,
    bandeira_van_handel_bound,
    erdos_renyi_pairs,
    expected_spectral_norm,
    fit_signed_pairs,
    generalization_gap,
    logistic_loss_bound,
    oriented_training_pairs,
    random_labelled_regular_graph,
    shattering_norm_lower_bound,
    theorem1_bound,
    theorem1_pairs,
    theorem1_spectral_norm,
)
from lgekit.theory.shattering import edge_labels


# -- bounds ----------------------------------------------------------------------------------------------------------
def _split(train_pos, train_neg, test_pos, test_neg, n=6):
    g = Graph.from_edges([(0, 1)], nodes=n)
    arr = [np.asarray(a, dtype=np.int64).reshape(-1, 2) for a in (train_pos, train_neg, test_pos, test_neg)]
    return EdgeSplit(g, g, *arr)


@pytest.mark.parametrize("delta", [-0.5, 0.0, 1.0, 2.0])
def test_delta_outside_zero_one_is_refused(delta):
    # the estimators' message form (lgekit._validation): the caller, the argument, what is accepted, the value
    with pytest.raises(ValueError, match=rf"^theorem1_bound: delta must be a number in \(0, 1\), got {delta}$"):
        theorem1_bound(0.1, 10, 1.0, 1.0, 1.0, 1.0, delta=delta)


def test_generalization_gap_refuses_an_empty_side_and_pairs_beyond_either_table():
    X = np.ones((6, 2))
    with pytest.raises(ValueError, match="training and held-out pairs"):
        generalization_gap(X, _split([], [], [(0, 1)], [(2, 3)]))
    with pytest.raises(ValueError, match="training and held-out pairs"):
        generalization_gap(X, _split([(0, 1)], [(2, 3)], [], []))
    # a context table of 3 rows: a pair's second index 5 is two rows past it (not only the first row past it)
    with pytest.raises(ValueError, match="context's 3 rows"):
        generalization_gap(X, _split([(0, 5)], [(1, 2)], [(0, 1)], [(1, 2)]), context=np.ones((3, 2)))


def test_logistic_loss_bound_is_the_largest_loss_of_the_embedding():
    # R_U R_V = 2 * 3 = 6: B = log(1 + e^6), the loss of the worst margin -6, computed stably
    X, Y = np.array([[2.0, 0.0], [0.0, 1.0]]), np.array([[0.0, 3.0]])
    assert logistic_loss_bound(X, context=Y) == pytest.approx(math.log1p(math.exp(6.0)))
    assert logistic_loss_bound(np.zeros((2, 2))) == pytest.approx(math.log(2))


# -- capacity --------------------------------------------------------------------------------------------------------
def test_random_regular_graphs_differ_from_seed_to_seed():
    # the networkx seed is drawn from the generator over [0, 2^31 - 1): 40 seeds, 40 different graphs
    graphs = {tuple(map(tuple, random_labelled_regular_graph(30, 3, seed=s)[0].edges().tolist())) for s in range(40)}
    assert len(graphs) == 40


@pytest.mark.parametrize("labels, lam_r, match", [
    ([1], 0.0, "labels must be"),                 # fewer labels than pairs
    ([1, 1, 1], 0.0, "labels must be"),           # more
    ([1, -1], float("nan"), "lam_r"),
    ([1, -1], float("inf"), "lam_r"),
])
def test_fit_signed_pairs_refuses_bad_labels_and_penalties(labels, lam_r, match):
    with pytest.raises(ValueError, match=match):
        fit_signed_pairs(np.array([[0, 1], [1, 2]]), labels, 3, 2, lam_r=lam_r)


def test_planted_communities_of_different_sizes_are_drawn_by_their_pair_counts():
    # 10 vertices, 3 communities: sizes 4, 3, 3 -- a positive falls in a community in proportion to its
    # 12, 6, 6 ordered pairs (not equally: equal weights pass only when the sizes are equal)
    P = PlantedPairDistribution(10, 3)
    pairs, y = P.sample(60_000, seed=0)
    comm = P.communities[pairs[y > 0, 0]]
    share = np.bincount(comm, minlength=3) / len(comm)
    assert np.allclose(share, [0.5, 0.25, 0.25], atol=0.01)


# -- spectral norms --------------------------------------------------------------------------------------------------
def test_bandeira_van_handel_bound_reads_the_shape_by_value():
    # numpy ints: equal values, distinct objects
    shape = (np.int64(1000), np.int64(1000))
    assert bandeira_van_handel_bound(25, shape, symmetric=True) == bandeira_van_handel_bound(25, (1000, 1000), True)
    with pytest.raises(ValueError, match="square"):
        bandeira_van_handel_bound(25, (1000, 999), symmetric=True)


def test_a_converged_estimate_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error", R.SpectralNormConvergenceWarning)
        expected_spectral_norm(erdos_renyi_pairs(500, 5, seed=0), n_draws=2, seed=1, shape=(500, 500))


def test_erdos_renyi_needs_two_vertices_and_reads_the_kind_by_value():
    with pytest.raises(ValueError, match=r"^erdos_renyi_pairs: n must be an int >= 2, got 1$"):
        erdos_renyi_pairs(1, 0.5)
    # homogeneous: each of the C(n, 2) pairs with probability d / (n - 1): d = n - 1 is the complete graph
    assert len(erdos_renyi_pairs(5, 4, kind="homogeneous", seed=0)) == 10
    # a kind spelt at run time (not an interned literal) is the same kind
    kind = "".join(["bi", "partite"])
    pairs = erdos_renyi_pairs(200, 20, kind=kind, seed=3)
    assert np.any(pairs[:, 0] > pairs[:, 1]) and np.any(pairs[:, 0] == pairs[:, 1])     # ordered pairs, diagonal too


def test_orthogonal_restart_gives_up_when_the_basis_spans_the_space():
    basis = [v.astype(np.float32) for v in np.eye(4)]
    assert R._orthogonal_restart(basis, 4, np.dtype(np.float32), np.random.default_rng(0)) is None
    fresh = R._orthogonal_restart(basis[:3], 4, np.dtype(np.float32), np.random.default_rng(0))
    assert fresh is not None and abs(abs(float(fresh[3])) - 1) < 1e-6

    class InTheSpan:          # a "random" vector that the basis already spans: nothing orthogonal is left of it
        @staticmethod
        def standard_normal(n):
            return np.array([1.0, 2.0, 3.0, 0.0])

    assert R._orthogonal_restart(basis[:3], 4, np.dtype(np.float32), InTheSpan()) is None


def test_orthogonal_restart_scales_its_threshold_with_the_dimension():
    # what is left of a draw after Gram-Schmidt counts as nothing below 1e-8 sqrt(n) (rounding grows with n):
    # at n = 4 a remainder of 1.5e-8 is nothing, one of 3e-8 is a direction (a fixed 1e-8 would take both)
    basis = [v for v in np.eye(4)[:3]]

    class Scripted:
        def __init__(self, last):
            self.last = last

        def standard_normal(self, n):
            return np.array([1.0, 2.0, 3.0, self.last])

    assert R._orthogonal_restart(basis, 4, np.dtype(np.float64), Scripted(1.5e-8)) is None
    fresh = R._orthogonal_restart(basis, 4, np.dtype(np.float64), Scripted(3e-8))
    assert fresh is not None and abs(abs(float(fresh[3])) - 1) < 1e-9



class _ScriptedNormals(np.random.Generator):
    """A Generator whose first draws are given vectors: restarts that land where the test puts them."""

    def __init__(self, scripted):
        super().__init__(np.random.PCG64(0))
        self._scripted = list(scripted)

    def standard_normal(self, *args, **kwargs):
        return np.asarray(self._scripted.pop(0), dtype=np.float64) if self._scripted else \
            super().standard_normal(*args, **kwargs)


def test_lanczos_restarts_three_times_after_breakdowns():
    # diag(1, 1, 1, 1, 9) from e_1: every start in span(e_1..e_4) is an eigenvector (a breakdown at once);
    # the first two restarts are made to land there too, the third reaches e_5: the top, 9, is found only
    # if three restarts are allowed (two would stop at 1, an answer 9x too small).
    A = np.diag([1.0, 1.0, 1.0, 1.0, 9.0])
    e = np.eye(5)
    rng = _ScriptedNormals([e[1], e[2], e[3] + e[4]])
    theta = R._lanczos_top(lambda q: A @ q, e[0].copy(), 1e-8, 50, np.dtype(np.float64), rng)[0]
    assert theta == pytest.approx(9.0, rel=1e-9)
    # one restart more than allowed: the answer stays at the invariant subspaces' 1 (a lower bound, as documented)
    rng = _ScriptedNormals([e[1], e[2], e[3], e[4]])
    theta = R._lanczos_top(lambda q: A @ q, e[0].copy(), 1e-8, 50, np.dtype(np.float64), rng)[0]
    assert theta == pytest.approx(1.0, rel=1e-9)

# -- the sample ------------------------------------------------------------------------------------------------------
def test_theorem1_pairs_edges():
    g = Graph.from_edges([(0, 1), (1, 2)], directed=True)
    assert theorem1_pairs(g, []).shape == (0, 2)
    with pytest.raises(ValueError, match=r"\(k, 2\) array"):
        theorem1_pairs(g, np.zeros((2, 2, 2), dtype=int))
    with pytest.raises(ValueError, match=r"\(k, 2\) array"):
        theorem1_pairs(g, np.zeros(4, dtype=int))


def test_source_convention_needs_positives():
    split = _split([], [(0, 1), (2, 3)], [(0, 2)], [(1, 3)])
    with pytest.raises(ValueError, match="whole number of negatives per positive"):
        oriented_training_pairs(split, "source", seed=0)


def test_documented_defaults():
    assert inspect.signature(theorem1_spectral_norm).parameters["n_draws"].default == 5
    params = inspect.signature(fit_across_lam_r).parameters
    assert all(params[name].kind is inspect.Parameter.KEYWORD_ONLY
               for name in ("spectral", "B", "delta", "dim", "epochs", "seed"))


# -- Claim 1 ---------------------------------------------------------------------------------------------------------
def test_edge_labels_refuse_what_is_not_a_sign_and_name_it():
    g = Graph.from_edges([(0, 1), (1, 2), (2, 0)])
    with pytest.raises(TypeError, match="labels must be"):
        edge_labels(g, np.array(["a", "b", "c"]))
    with pytest.raises(TypeError, match="labels must be"):
        edge_labels(g, np.array([True, False, True]))
    with pytest.raises(ValueError, match=r"got e\.g\. \[2, 3\]"):
        edge_labels(g, [1, 2, 3])


def test_the_lower_bound_of_a_graph_without_edges_is_zero():
    assert shattering_norm_lower_bound(Graph.from_edges(np.empty((0, 2), int), nodes=4), 1) == 0.0


def test_adversarial_graphs_have_their_named_degrees():
    degrees = {"K_{3,3}": 3, "K_{4,4}": 4, "K_4 + K_{3,3}": 3, "K_{3,3,3}": 6, "K_{10,10}": 10, "Petersen": 3,
               "C_12(1,4)": 4, "Q_4": 4, "K_5 + K_5": 4}
    got = {name: (int(g.degrees.min()), int(g.degrees.max())) for name, g in adversarial_regular_graphs()}
    assert got == {name: (d, d) for name, d in degrees.items()}
    assert nx.is_isomorphic(nx.circulant_graph(12, [1, 4]),
                            dict(adversarial_regular_graphs())["C_12(1,4)"].to_networkx())


def test_polish_refuses_an_update_that_breaks_a_margin(monkeypatch):
    # the per-vertex QP's solution is checked before it is taken: a solver answer at half the right size (margins
    # (1 + eps) / 2, a smaller norm) must be refused, not taken because it is smaller
    import lgekit.theory.shattering as S
    from lgekit.theory import check_shattering, polish_shattering, shattering_embedding

    graph, labels = random_labelled_regular_graph(40, 3, seed=0)
    X = shattering_embedding(graph, labels, seed=0)
    real = S.nnls
    monkeypatch.setattr(S, "nnls", lambda A, b: (0.5 * real(A, b)[0], 0.0))
    polished = polish_shattering(graph, labels, X, eps=0.1, sweeps=2, seed=0)
    assert check_shattering(graph, labels, polished).min_margin >= 1.1 - 1e-9


def test_an_exactly_singular_system_is_reported_with_an_infinite_condition(monkeypatch):
    import lgekit.theory.shattering as S
    from lgekit.theory import ShatteringError, shattering_embedding

    real = np.linalg.svd

    def singular(N, full_matrices=True):
        U, s, Vt = real(N, full_matrices=full_matrices)
        if len(s) > 1:
            s = s.copy()
            s[-1] = 0.0
        return U, s, Vt

    monkeypatch.setattr(S.np.linalg, "svd", singular)
    graph, labels = random_labelled_regular_graph(20, 3, seed=0)
    with pytest.raises(ShatteringError) as info:
        shattering_embedding(graph, labels, seed=0)
    assert info.value.condition == math.inf and "singular system" in str(info.value)


def test_one_community_is_a_planted_model_too():
    # k = 1: every ordered pair u != v is a positive's candidate (the distribution's smallest case)
    P = PlantedPairDistribution(6, 1)
    p_pos, p_neg = P.pair_probabilities()
    assert np.allclose(p_pos[~np.eye(6, dtype=bool)], (1 / 5) / 30) and p_pos.sum() + p_neg.sum() == pytest.approx(1)


def test_the_shattering_table_times_each_construction_by_differences(monkeypatch):
    # a clock that ticks 1.0 a reading: every construction takes exactly one tick (a ratio of readings would not)
    import itertools

    import lgekit.experiments.check_shattering as check

    ticks = itertools.count(100.0)
    monkeypatch.setattr(check, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: next(ticks))}))
    monkeypatch.setattr(check, "random_labelled_regular_graph",
                        lambda n, d, seed=None: random_labelled_regular_graph(2 * d + 2, d, seed=seed))
    monkeypatch.setattr(check, "adversarial_regular_graphs", lambda: adversarial_regular_graphs()[:1])
    report = check.verify_shattering(quick=True)
    assert [r["seconds"] for r in report.data["rows"]] == [1.0] * len(report.data["rows"])


# -- the adversarial labellings of `lgekit theory shattering` (issue 45's mutation sample: `% 2` -> `* 2` made
# "alternating" all -1 but the first edge, and Claim 1 still held on it, so no verdict could notice) -------------
def test_the_adversarial_labellings_are_what_they_are_named():
    labellings = dict(adversarial_labellings(7, 3, np.random.default_rng(0)))
    assert list(labellings) == ["all +1", "all -1", "alternating", "random 0", "random 1", "random 2"]
    assert labellings["all +1"].tolist() == [1] * 7 and labellings["all -1"].tolist() == [-1] * 7
    assert labellings["alternating"].tolist() == [1, -1, 1, -1, 1, -1, 1]
    assert all(lab.dtype == np.int8 and set(lab.tolist()) <= {-1, 1} for lab in labellings.values())
    # the random ones come from the generator given, in order: the check's seed decides them
    again = dict(adversarial_labellings(7, 3, np.random.default_rng(0)))
    assert all(np.array_equal(labellings[k], again[k]) for k in labellings)
    assert len({labellings[f"random {i}"].tobytes() for i in range(3)}) == 3


def test_the_bound_checks_seconds_are_durations(monkeypatch):
    # the seconds the bound check prints for its spectral norms and its second path are times taken, between 0
    # and the wall time of the whole measurement (a clock reading, or a sum of two readings, is far above it)
    monkeypatch.setattr(check_bound, "_load_bound_graph", lambda quick, seed, data_home: (
        datasets.load("synthetic-blogcatalog", n_nodes=300, seed=seed), None))
    started = time.perf_counter()
    measured = check_bound.measure_bound(quick=True, lam_rs=(0.0, 10.0), dim=8, epochs=5, planted_sizes=(1000,))
    wall = time.perf_counter() - started
    assert 0 < measured["t_spec"] <= wall and 0 < measured["t_hand"] <= wall


def test_the_rademacher_checks_seconds_are_a_duration(monkeypatch):
    monkeypatch.setattr(check_rademacher, "PAIR_BUDGET", (5000, 5000))
    started = time.perf_counter()
    measured = check_rademacher.measure_rademacher(quick=True, ns=[250], ds=(2,))
    assert 0 < measured["seconds"] <= time.perf_counter() - started
