"""DCD's inner coordinate order and its monotone safeguard (issue 17, item 8).

Algorithm 1 of the paper runs over the set D of a vertex's pairs without
saying in which order.  ``HingeEmbedding(inner_order=...)`` offers line 2's
listing ("fixed": edges, then negatives, the same every pass) and LIBLINEAR's
per-pass permutations ("random"); ``monotone=True`` adds a safeguard that no
visit raises the objective.  Measurements: benchmarks/README.md, "DCD inner
order".
"""
from functools import partial

import numpy as np
import pytest
from hypothesis import example, given, strategies as st

import lgekit
from lgekit import HingeEmbedding, reference
from lgekit.models import DivergenceError, _dcd
from lgekit.models._dcd_solver import MONOTONE_PASSES
from lgekit.models.hinge import PairCSR, pair_csr
from lgekit._validation import InvalidParameterError

from test_dcd_kernel import kernel_coordinate_orders, kernel_epoch, problems, tiny_problem


def reference_epoch(X, alpha, csr, order, inner_passes, tol, seed, shuffle, monotone_passes):
    orders = kernel_coordinate_orders(seed) if shuffle else reference.listed_coordinate_orders(csr)
    return reference.dcd_epoch(X, alpha, csr, order, orders, inner_passes=inner_passes, tol=tol,
                               monotone_passes=None if monotone_passes < 0 else monotone_passes)


# lam_r down to 0.05 reaches the regime where unguarded visits go uphill; values stay moderate, so
# kernel and reference agree to 1e-9 without rounding deciding the safeguard's branch (the safeguard's
# UPHILL_RTOL makes the exact ties, which do occur, ties for both: see TIE below)
small_problems = partial(problems, max_nodes=12, max_dim=5, lam_rs=(0.05, 0.3, 1.0, 5.0), lam_negs=(0.03, 0.5),
                         scales=(0.1, 1.0), max_passes=3)

# Hypothesis's find: D = 1, vertex 5 has the pair (5, 4) three times (twice an edge, once a negative).
# At its third visit x_5 = -1 / x_4 already solves its block (the kink of the two edges to 4); the
# duals are not unique there (with D = 1 every partner is collinear), and the pass moves them along a
# direction that leaves w(alpha) = x_5, so P(w) = P(x_5) in real arithmetic.  With a strict ">" the
# last bits of the two sums decided whether three further passes ran: the kernel's and the
# reference's roundings differed, and so did their duals (X agreed).
TIE = (np.array([[-0.73645409], [-0.16290995], [-0.48211931], [0.59884621], [0.03972211], [-0.29245675]]),
       PairCSR(indptr=np.array([0, 0, 2, 5, 7, 11, 16]),
               nbr=np.array([2, 4, 1, 3, 5, 2, 5, 1, 5, 5, 5, 2, 3, 4, 4, 4], dtype=np.int32),
               sign=np.array([-1, -1, -1, 1, 1, 1, -1, -1, 1, 1, -1, 1, -1, 1, 1, -1], dtype=np.int8),
               coef=np.array([0.03, 0.03, 0.03, 1, 1, 1, 0.03, 0.03, 1, 1, 0.03, 1, 0.03, 1, 1, 0.03]),
               upper=np.array([0.6, 0.6, 0.6, 20, 20, 20, 0.6, 0.6, 20, 20, 0.6, 20, 0.6, 20, 20, 0.6])),
       1, 1)


@given(small_problems(), st.booleans(), st.sampled_from([-1, 0, 3]))
@example(TIE, False, 3)
def test_kernel_equals_reference_for_both_orders_and_the_safeguard(problem, shuffle, monotone_passes):
    X, csr, passes, seed = problem
    order = np.random.default_rng(seed).permutation(len(X))
    Xk = Xr = X
    ak = ar = np.zeros(len(csr.nbr))
    for epoch in range(3):
        Xk, ak, gk, vk = kernel_epoch(Xk, ak, csr, order, passes, 1e-3, seed + epoch, shuffle=shuffle,
                                      monotone_passes=monotone_passes)
        Xr, ar, gr, vr = reference_epoch(Xr, ar, csr, order, passes, 1e-3, seed + epoch, shuffle, monotone_passes)
        scale = 1.0 + np.abs(Xr).max() ** 2
        np.testing.assert_allclose(Xk, Xr, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(ak, ar, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(gk, gr, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(vk, vr, rtol=0, atol=1e-9 * scale)


def test_the_tie_is_a_tie_and_a_strict_test_lets_round_off_decide_it(monkeypatch):
    """TIE's third epoch: vertex 5's w(alpha) equals x_5 to round-off while its duals can still move, so
    "uphill" must allow round-off.  With a rule that counts the tie as uphill (the strict test the kernel
    had did so whenever the round-off came out positive), the reference runs the further passes: its
    duals move, X does not."""
    assert _dcd.UPHILL_RTOL == reference.UPHILL_RTOL         # one rule in kernel and reference
    X, csr, passes, seed = TIE
    order = np.random.default_rng(seed).permutation(len(X))

    def epochs():
        Xr, ar = X, np.zeros(len(csr.nbr))
        for epoch in range(3):
            before = Xr
            Xr, ar, _, _ = reference_epoch(Xr, ar, csr, order, passes, 1e-3, seed + epoch, False, 3)
        return before, Xr, ar

    before, X3, a3 = epochs()
    entries = slice(csr.indptr[5], csr.indptr[6])
    partners, signs, upper = before[csr.nbr[entries]], csr.sign[entries].astype(float), csr.upper[entries]
    p = [reference.vertex_svm_primal(x, partners, signs, upper) for x in (before[5], X3[5])]
    assert abs(p[1] - p[0]) <= 1e-14 * p[0]                  # the same point of the block ...
    monkeypatch.setattr(reference, "UPHILL_RTOL", -1e-12)   # ties are uphill
    _, X3_tie_uphill, a3_tie_uphill = epochs()
    np.testing.assert_allclose(X3_tie_uphill, X3, rtol=0, atol=1e-12)
    assert np.abs(a3_tie_uphill - a3).max() > 1.0            # ... other duals: a non-unique dual, moved by a tie


@pytest.mark.parametrize("inner_passes", [1, 3])
def test_fixed_order_is_algorithm_1_listing_to_machine_precision(inner_passes):
    X, csr, *_ = tiny_problem(seed=1)
    order = np.random.default_rng(3).permutation(len(X))
    ak = ar = np.zeros(len(csr.nbr))
    Xk = Xr = X
    for epoch in range(4):
        Xk, ak, *_ = kernel_epoch(Xk, ak, csr, order, inner_passes, 0.0, epoch, shuffle=False)
        Xr, ar, *_ = reference_epoch(Xr, ar, csr, order, inner_passes, 0.0, epoch, False, -1)
        np.testing.assert_allclose(Xk, Xr, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ak, ar, rtol=0, atol=1e-12)
    # not vacuous: the listing differs from the CSR's partner order (signs interleave there) ...
    rows = np.repeat(np.arange(len(X)), np.diff(csr.indptr))
    assert any(np.any(np.diff(csr.sign[rows == u]) > 0) for u in range(len(X)))
    # ... and the random order gives another result
    Xs, *_ = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, inner_passes, 0.0, 0, shuffle=True)
    Xf, *_ = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, inner_passes, 0.0, 0, shuffle=False)
    assert np.abs(Xs - Xf).max() > 1e-6


def test_listed_orders_put_edges_first():
    pos, neg = np.array([[0, 3], [0, 1]]), np.array([[0, 2], [0, 1]])
    csr = pair_csr(4, pos, neg)
    # vertex 0's entries by partner: 1 (+1), 1 (-1), 2 (-1), 3 (+1)
    assert csr.sign[:4].tolist() == [1, -1, -1, 1]
    assert next(reference.listed_coordinate_orders(csr)(0, 4)).tolist() == [0, 3, 1, 2]
    with pytest.raises(ValueError, match="not k=3"):
        next(reference.listed_coordinate_orders(csr)(0, 3))


def test_fixed_order_ignores_the_coordinate_seed():
    X, csr, *_ = tiny_problem(seed=2)
    order = np.arange(len(X))
    a = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, 2, 0.0, 1, shuffle=False, monotone_passes=5)
    b = kernel_epoch(X, np.zeros(len(csr.nbr)), csr, order, 2, 0.0, 2**63 + 7, shuffle=False, monotone_passes=5)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


def test_safeguard_keeps_every_visit_downhill():
    """With the safeguard, each visit lowers (or keeps) L = Eq. 3; without it some visit raises it."""
    X, csr, pos, neg, weights = tiny_problem(n=14, D=4, seed=5, lam_neg=0.5, lam_r=0.05)
    rng = np.random.default_rng(0)

    def objective(Y):
        return reference.hinge_objective(Y, pos, neg, weights=weights, lam_pos=1.0, lam_neg=0.5,
                                         lam_r=0.05).objective

    rises = {}
    for monotone_passes in (-1, MONOTONE_PASSES):
        Y, alpha, worst = X, np.zeros(len(csr.nbr)), -np.inf
        for epoch in range(6):
            for u in rng.permutation(len(X)):                # one visit at a time
                before = objective(Y)
                Y, alpha, _, _ = kernel_epoch(Y, alpha, csr, [u], 1, 1e-3, epoch, shuffle=True,
                                              monotone_passes=monotone_passes)
                worst = max(worst, objective(Y) - before)
        rises[monotone_passes] = worst
    assert rises[MONOTONE_PASSES] <= 1e-9                    # round-off only
    assert rises[-1] > 1.0                                   # the check is not vacuous


def test_kept_flags_the_vertices_that_kept_their_vector():
    X, csr, *_ = tiny_problem(n=14, D=4, seed=5, lam_neg=0.5, lam_r=0.05)
    n = len(X)
    Y, alpha = X, np.zeros(len(csr.nbr))
    for epoch in range(3):
        Y, alpha, *_ = kernel_epoch(Y, alpha, csr, np.arange(n), 1, 1e-3, epoch, shuffle=True)
    Y = Y.copy()
    sq, gap, viol, kept = np.einsum("ij,ij->i", Y, Y), np.zeros(n), np.zeros(n), np.zeros(n, np.int8)
    before = Y.copy()
    # the safeguard with no further passes: a visit that goes uphill keeps its vector
    _dcd.dcd_epoch(Y, sq, csr, alpha, np.arange(n, dtype=np.int32), np.array([0, n], np.int64),
                   _dcd.VisitRule(1, 1e-3, True, 0), 9, 1, kept, _dcd.Certificates(gap, viol))
    assert kept.any()
    assert np.array_equal(Y[kept == 1], before[kept == 1])
    assert np.all(gap >= -1e-9)                              # the kept vector is certified, weakly dual
    with pytest.raises(ValueError, match="needs kept"):
        _dcd.dcd_epoch(Y, sq, csr, alpha, np.arange(n, dtype=np.int32), np.array([0, n], np.int64),
                       _dcd.VisitRule(1, 1e-3, True, 0), 9, 1, None, _dcd.Certificates(gap, viol))


# --------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------

def small_split(seed=3):
    rng = np.random.default_rng(seed)
    edges = rng.integers(0, 30, size=(90, 2))
    graph = lgekit.Graph.from_edges(edges[edges[:, 0] != edges[:, 1]], nodes=30)
    return lgekit.split_edges(graph, test_fraction=0.2, seed=2)


def test_defaults_are_the_fixed_order_with_the_safeguard():
    model = HingeEmbedding()
    assert model.inner_order == "fixed" and model.monotone is True
    assert {"inner_order", "monotone"} <= set(model.get_params())


@pytest.mark.parametrize("schedule", ["deterministic", "hogwild"])
def test_default_fit_is_the_reference_epochs_with_listed_orders_and_safeguard(schedule):
    split = small_split()
    kw = dict(dim=5, lam_r=0.2, lam_neg=0.4, inner_passes=1, dtype="float64", random_state=9, schedule=schedule)
    start = HingeEmbedding(epochs=0, **kw).fit(split)
    model = HingeEmbedding(epochs=4, **kw).fit(split)
    solver = model.solver_
    X, alpha = start.embedding_.astype(np.float64), np.zeros(len(solver.pair_csr.nbr))
    n_kept = 0
    for t in range(4):
        before = X.copy()
        X, alpha, _, _ = reference.dcd_epoch(X, alpha, solver.pair_csr, solver.epoch_order(t).order,
                                             reference.listed_coordinate_orders(solver.pair_csr), inner_passes=1,
                                             tol=model.tol, monotone_passes=MONOTONE_PASSES)
        n_kept += int(np.sum(np.all(X == before, axis=1) & np.any(before != 0, axis=1)))
    # the reference rebuilds w from the duals before each further pass of the safeguard, the kernel
    # carries it: ~1e-16 relative per step over a few hundred steps on O(1) vectors
    np.testing.assert_allclose(model.embedding_, X, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=0, atol=1e-10)
    assert sum(r["n_kept"] for r in model.history_) == n_kept


@pytest.mark.parametrize("inner_order", ["fixed", "random"])
@pytest.mark.parametrize("monotone", [True, False])
def test_fits_are_reproducible_bit_for_bit(inner_order, monotone):
    split = small_split()
    kw = dict(dim=6, lam_r=0.5, epochs=3, inner_order=inner_order, monotone=monotone, random_state=4)
    runs = [HingeEmbedding(n_threads=t, **kw).fit(split) for t in (1, 1, 2)]   # deterministic schedule
    for other in runs[1:]:
        assert np.array_equal(runs[0].embedding_, other.embedding_)
        assert np.array_equal(runs[0].dual_coef_, other.dual_coef_)


def test_the_options_change_the_fit_and_can_be_switched_between_calls():
    split = small_split()
    fits = {(o, m): HingeEmbedding(dim=6, lam_r=0.5, epochs=3, inner_order=o, monotone=m, random_state=4)
            .fit(split).embedding_ for o in ("fixed", "random") for m in (True, False)}
    assert len({f.tobytes() for f in fits.values()}) == 4
    # set_params between partial_fit calls reaches the solver
    model = HingeEmbedding(dim=6, lam_r=0.5, epochs=1, random_state=4)
    model.partial_fit(split)
    model.set_params(inner_order="random", monotone=False).partial_fit(split)
    assert model.solver_.inner_order == "random" and model.solver_.monotone is False


def test_default_does_not_diverge_where_algorithm_1_as_printed_does():
    """Karate club, lam_r = 1e-3: the unguarded iteration blows up (tests/test_hinge.py); the safeguard
    keeps the objective from rising at any epoch and so bounds the norms."""
    import networkx as nx
    g = nx.karate_club_graph()
    with pytest.raises(DivergenceError):
        HingeEmbedding(dim=8, lam_r=1e-3, epochs=30, random_state=0, inner_order="random", monotone=False).fit(g)
    model = HingeEmbedding(dim=8, lam_r=1e-3, epochs=30, random_state=0).fit(g)
    obj = np.array([r["objective"] for r in model.history_])
    assert np.all(np.isfinite(obj)) and np.all(np.diff(obj) <= 1e-9 * obj[:-1])
    # L(X_t) <= L(X_0) bounds sum_v ||x_v||^2 by 2 L(X_0) / lam_r
    assert np.sum(model.embedding_.astype(np.float64) ** 2) <= 2 * obj[0] / 1e-3 * (1 + 1e-6)


@pytest.mark.parametrize("params, error, match", [
    (dict(inner_order="sorted"), ValueError, "inner_order"),
    (dict(inner_order=1), (TypeError, ValueError), "inner_order"),
    (dict(monotone="yes"), (TypeError, ValueError), "monotone"),
])
def test_bad_options_are_rejected_by_name(params, error, match):
    import networkx as nx
    with pytest.raises(error, match=match):
        HingeEmbedding(dim=4, epochs=1, **params).fit(nx.karate_club_graph())


def test_command_line_exposes_the_options(capsys):
    from lgekit import cli
    with pytest.raises(SystemExit):
        cli.main(["fit", "--help"])
    out = capsys.readouterr().out
    assert "--inner-order {fixed,random}" in out and "--no-monotone" in out


# --------------------------------------------------------------------------
# BlogCatalog (the paper's data set): lam_r = 0.3 of Figure 5
# --------------------------------------------------------------------------

@pytest.mark.slow
def test_blogcatalog_lam_r_0_3_default_settles_where_the_random_order_diverged(data_dir):
    from lgekit.datasets import load
    split = lgekit.split_edges(load("blogcatalog"), test_fraction=0.2, seed=0)
    kw = dict(dim=100, lam_r=0.3, random_state=0)
    # LIBLINEAR's random order without the safeguard (lgekit before): the norms explode within a few epochs
    with pytest.raises(DivergenceError) as info:
        HingeEmbedding(epochs=20, inner_order="random", monotone=False, **kw).fit(split)
    assert info.value.epoch <= 8
    model = HingeEmbedding(epochs=8, **kw).fit(split)
    obj = np.array([r["objective"] for r in model.history_])
    assert np.all(np.isfinite(obj)) and np.all(np.diff(obj) <= 1e-9 * obj[:-1])
    assert obj[-1] < 0.5 * obj[0]                       # it descends, it does not merely stay put
    assert model.history_[-1]["mean_norm"] < 10          # vs 1e8 at the random order's divergence
