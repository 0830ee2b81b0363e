"""Theorem 1 for directed and bipartite samples: the |U| x |V| matrix, two budgets, the check's verdicts.

Hand-computed matrices and norms for tiny graphs; Hypothesis for the
dilation identity behind footnote 1 (the transformed undirected graph's
symmetric matrix has the oriented matrix's spectral norm); every verdict of
``lgekit theory directed`` fed an input that must fail.

Built on the rest of issue #18: bipartite graphs (``Graph.from_biadjacency``,
``Graph.kind``, kind-aware ``split_edges``) and the two-table model
(``context_embedding_``, used by the slow end-to-end check).
"""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lgekit
from lgekit import theory
from lgekit.evaluation import EdgeSplit, split_edges
from lgekit.experiments.check_directed import directed_claims
from lgekit.theory.bounds import clipped_logistic_loss
from lgekit.theory.rademacher import PairPattern, expected_spectral_norm


def _cycle():
    # arcs 0->1, 1->2, 2->0 (edges() lists them in this CSR order)
    return lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 0)], directed=True)


def _biadjacency():
    # left 0 -- right 0 and 2; left 1 -- right 1: node indices 0, 1 (left), 2, 3, 4 (right)
    return lgekit.Graph.from_biadjacency(np.array([[1, 0, 1], [0, 1, 0]]))


def _split(graph, train_pos, train_neg, test_pos, test_neg):
    """A hand-made EdgeSplit (the train graph is not used by the theory)."""
    arr = [np.asarray(a, dtype=np.int64).reshape(-1, 2) for a in (train_pos, train_neg, test_pos, test_neg)]
    return EdgeSplit(graph, graph, *arr)


# -- the matrix, by hand -----------------------------------------------------------------------------------------
def test_directed_graph_matrix_rows_sources_columns_targets():
    A = PairPattern.from_graph(_cycle()).matrix(np.array([1, -1, 1], dtype=np.int8)).toarray()
    np.testing.assert_array_equal(A, [[0, 1, 0], [0, 0, -1], [1, 0, 0]])
    # a signed permutation matrix: every singular value is 1, whatever the signs
    assert expected_spectral_norm(_cycle(), n_draws=3, seed=0).mean == pytest.approx(1.0, abs=1e-12)


def test_bipartite_graph_matrix_is_n_left_by_n_right():
    pattern = PairPattern.from_graph(_biadjacency())
    assert pattern.shape == (2, 3) and pattern.kind == "bipartite"
    A = pattern.matrix(np.array([1, -1, 1], dtype=np.int8)).toarray()
    np.testing.assert_array_equal(A, [[1, 0, -1], [0, 1, 0]])
    # A A^T = diag(2, 1) for every sign pattern: ||A|| = sqrt 2 (the one-table n x n matrix would be 5 x 5)
    assert expected_spectral_norm(pattern, n_draws=4, seed=1).mean == pytest.approx(math.sqrt(2), abs=1e-12)


def test_theorem1_pairs_maps_right_nodes_and_refuses_wrong_sides():
    b = _biadjacency()
    assert theory.theorem1_sides(b) == (2, 3, 2)
    np.testing.assert_array_equal(theory.theorem1_pairs(b, [[0, 4], [1, 2]]), [[0, 2], [1, 0]])
    with pytest.raises(ValueError, match=r"\(left, right\) pairs"):
        theory.theorem1_pairs(b, [[2, 4]])          # right-right: not a pair of the sample space
    with pytest.raises(ValueError, match=r"\(left, right\) pairs"):
        theory.theorem1_pairs(b, [[0, 1]])          # left-left
    with pytest.raises(TypeError, match="integer"):
        theory.theorem1_pairs(b, [[0.0, 2.0]])
    assert theory.theorem1_sides(_cycle()) == (3, 3, 0)
    with pytest.raises(ValueError, match="directed or bipartite"):
        theory.theorem1_sides(lgekit.Graph.from_edges([(0, 1)]))


def test_directed_split_pattern_is_the_oriented_sample():
    g = _cycle()
    split = _split(g, [[0, 1], [1, 2]], [[1, 0], [0, 2]], [[2, 0]], [[2, 1]])
    pattern, scale = theory.theorem1_pattern(split)
    assert scale == 1.0 and pattern.shape == (3, 3) and pattern.kind == "bipartite"
    A = pattern.matrix(np.array([1, 1, -1, -1], dtype=np.int8)).toarray()
    # (0,1)+ (1,2)+ (1,0)- (0,2)-: the reverse arc (1, 0) is its own entry, not folded onto (0, 1)
    np.testing.assert_array_equal(A, [[0, 1, -1], [-1, 0, 1], [0, 0, 0]])


def test_bipartite_split_pattern_counts_columns_within_the_right_side():
    b = _biadjacency()
    split = _split(b, [[0, 2], [1, 3]], [[0, 3], [1, 4]], [[0, 4]], [[1, 2]])
    pattern, scale = theory.theorem1_pattern(split)
    A = pattern.matrix(np.array([1, -1, 1, 1], dtype=np.int8)).toarray()
    np.testing.assert_array_equal(A, [[1, 1, 0], [0, -1, 1]])
    # the estimate's draw is the first signs of its seed (no orientation coin for an oriented sample)
    est = theory.theorem1_spectral_norm(split, n_draws=1, seed=0)
    assert est.convention == "oriented" and est.scale == 1.0 and est.estimate.shape == (2, 3)
    A0 = pattern.matrix(pattern.draw_signs(np.random.default_rng(0))).toarray()
    assert est.value == pytest.approx(np.linalg.norm(A0, 2), rel=1e-12)


def test_conventions_follow_the_kind():
    g = _cycle()
    split = _split(g, [[0, 1]], [[1, 0]], [[1, 2]], [[2, 1]])
    for convention in theory.CONVENTIONS:
        with pytest.raises(ValueError, match="oriented"):
            theory.theorem1_spectral_norm(split, convention, n_draws=1, seed=0)
    undirected = split_edges(lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]), seed=0)
    with pytest.raises(ValueError, match="no orientation"):
        theory.theorem1_spectral_norm(undirected, "oriented", n_draws=1, seed=0)
    # the undirected default is unchanged: "symmetric", halved
    assert theory.theorem1_spectral_norm(undirected, n_draws=1, seed=0).convention == "symmetric"


def test_undirected_default_is_bit_identical_to_symmetric():
    g = lgekit.datasets.load("synthetic-blogcatalog", n_nodes=300, seed=0)
    split = split_edges(g, seed=0)
    a = theory.theorem1_spectral_norm(split, n_draws=2, seed=3)
    b = theory.theorem1_spectral_norm(split, "symmetric", n_draws=2, seed=3)
    assert a.value == b.value and a.scale == 0.5


# -- two budgets ------------------------------------------------------------------------------------------------
def test_norm_constants_take_the_two_tables():
    X = np.array([[3.0, 4.0], [0.0, 0.0]])
    Y = np.array([[1.0, 0.0], [0.0, 2.0]])
    assert theory.norm_constants(X, Y) == (25.0, 5.0)
    model = SimpleNamespace(embedding_=X, context_embedding_=Y)
    assert theory.norm_constants(model) == (25.0, 5.0)
    assert theory.norm_constants(SimpleNamespace(embedding_=X)) == (25.0, 25.0)   # one table: C_U = C_V
    with pytest.raises(ValueError, match="dimension"):
        theory.norm_constants(X, np.ones((2, 3)))
    b = theory.theorem1_bound(0.1, n_samples=100, spectral_norm=3.0, C_U=25.0, C_V=4.0, B=1.0)
    assert b.complexity == pytest.approx(2 * 3.0 * 10.0 / 100)


def test_generalization_gap_scores_x_u_dot_y_v():
    g = _cycle()
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    Y = np.array([[0.0, 2.0], [3.0, 0.0], [1.0, -1.0]])
    split = _split(g, [[0, 1]], [[1, 0]], [[2, 0]], [[0, 2]])
    gap = theory.generalization_gap(SimpleNamespace(embedding_=X, context_embedding_=Y), split)
    # train: +x0.y1 = 3, -x1.y0 = -2; test: +x2.y0 = 2, -x0.y2 = -1
    assert gap.train_loss == pytest.approx(clipped_logistic_loss([3.0, -2.0]))
    assert gap.test_loss == pytest.approx(clipped_logistic_loss([2.0, -1.0]))
    # without the context table the score is symmetric: x0.x1 = 0 on both training pairs
    one = theory.generalization_gap(X, split)
    assert one.train_loss == pytest.approx(math.log(2))


def test_generalization_gap_bipartite_context_is_indexed_within_the_right_side():
    b = _biadjacency()
    X = np.array([[1.0], [2.0]])                 # two left nodes
    Y = np.array([[1.0], [-1.0], [3.0]])         # three right nodes
    split = _split(b, [[0, 2], [1, 3]], [[0, 3]], [[0, 4]], [[1, 4]])
    gap = theory.generalization_gap(X, split, context=Y)
    # train margins: 1*1, 2*(-1), -(1*(-1)); test: 1*3, -(2*3)
    assert gap.train_loss == pytest.approx(clipped_logistic_loss([1.0, -2.0, 1.0]))
    assert gap.test_loss == pytest.approx(clipped_logistic_loss([3.0, -6.0]))
    with pytest.raises(ValueError, match="context"):
        theory.generalization_gap(X, split, context=Y[:2])


@given(st.integers(1, 7), st.integers(1, 7), st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1,
                                                         max_size=25), st.integers(0, 2**32 - 1))
def test_dilation_has_the_oriented_norm(n_rows, n_cols, cells, seed):
    # footnote 1: the transformed undirected graph (|U| + |V| nodes, one sign per pair at both orientations)
    # has the symmetric matrix [[0, A], [A^T, 0]], whose singular values are those of A, twice
    pairs = np.array([(r % n_rows, c % n_cols) for r, c in cells], dtype=np.int64)
    oriented = PairPattern(pairs, shape=(n_rows, n_cols), kind="bipartite")
    dilation = PairPattern(np.column_stack([pairs[:, 0], n_rows + pairs[:, 1]]),
                           shape=(n_rows + n_cols,) * 2, kind="homogeneous")
    signs = oriented.draw_signs(seed)
    A = oriented.matrix(signs).toarray()
    S = dilation.matrix(signs).toarray()
    np.testing.assert_array_equal(S, np.block([[np.zeros((n_rows, n_rows)), A], [A.T, np.zeros((n_cols, n_cols))]]))
    assert np.linalg.norm(S, 2) == pytest.approx(np.linalg.norm(A, 2), rel=1e-12, abs=1e-12)
    # and the two-budget complexity never exceeds the one-budget one of the transform (AM-GM)
    cu, cv = float(seed % 97) + 0.5, float(seed % 13) + 0.25
    assert 2 * math.sqrt(cu * cv) <= cu + cv + 1e-12


def test_directed_split_of_email_eu_core(data_dir):
    g = lgekit.datasets.load("email-eu-core", directed=True, data_home=data_dir)
    split = split_edges(g, seed=0)
    pattern, _ = theory.theorem1_pattern(split)
    assert pattern.shape == (g.n_nodes, g.n_nodes)
    m = len(split.train_positives) + len(split.train_negatives)
    assert pattern.n_pairs == m
    # the oriented matrix is not symmetric: an arc without its reverse has a single entry
    A = pattern.matrix(np.ones(m, dtype=np.int8))
    assert (A != A.T).nnz > 0


# -- the verdicts can fail ----------------------------------------------------------------------------------------
def _spectral(graph="g", value=10.0, dilation=None, D=16, shape=(100, 100)):
    return {"graph": graph, "shape": shape, "E||A||": value, "min draw": value * 0.999, "D_max": D,
            "Khintchine": math.sqrt(2 * D * math.log(sum(shape))), "E||dilation||": value if dilation is None else
            dilation, "draws": [value * 0.999, value, value * 1.001]}


def _rows(graph="g", gaps=(0.3, 0.1, 0.02), complexity=(5.0, 1.0, 0.2), test=(0.9, 0.7, 0.66), confidence=0.1,
          value=10.0, m=2000, C_V=None):
    # bound = training loss + complexity + confidence, training loss = held-out loss - gap; the budgets C_U (and C_V,
    # unless given) from the complexity 2 E||A|| sqrt(C_U C_V) / m
    out = []
    for lam, gap, comp, t in zip((0.0, 1.0, 10.0), gaps, complexity, test):
        C_U = comp * m / (2 * value)
        C = C_U if C_V is None else C_V
        out.append({"graph": graph, "lam_r": lam, "diverged": False, "test loss": t, "train loss": t - gap,
                    "bound": t - gap + comp + confidence, "m + m'": m, "C_U": C_U, "C_V": C,
                    "one-budget complexity": value * (C_U + C) / m, "confidence": confidence,
                    "complexity": comp, "gap": gap, "trivial loss": math.log(2), "B": 1.0})
    return out


def _hand(spectral, rows):
    """The second path when the check is right: the same numbers, the norm from its own draws."""
    keys = ("m + m'", "C_U", "C_V", "train loss", "test loss", "gap", "trivial loss", "confidence", "complexity",
            "bound")
    return {"spectral": {r["graph"]: {"value": r["E||A||"], "draws": np.array([0.998, 0.999, 1.0, 1.001, 1.002])
                                      * r["E||A||"]} for r in spectral},
            "rows": {(r["graph"], r["lam_r"]): {k: r[k] for k in keys} for r in rows if not r["diverged"]}}


def _verdicts(claims):
    return {c.claim: c.passed for c in claims}


def test_claims_pass_on_consistent_measurements():
    spectral, rows = [_spectral("d"), _spectral("b")], _rows("d") + _rows("b")
    v = _verdicts(directed_claims(spectral, rows, hand=_hand(spectral, rows)))
    assert all(v.values()), v
    assert "gap-shrinks-with-lam_r[b]" in v


@pytest.mark.parametrize("wrong", [
    # issue 41: C_U = C_V = ||X||^2, the context table never read (the check's rows carry it; the second path reads
    # the context table)
    lambda spectral, rows: [r.update(C_V=r["C_U"]) for r in rows],
    # issue 41: the directed scale 1 -> 2 (the norm doubled, the bound with it)
    lambda spectral, rows: [s.update({"E||A||": 2 * s["E||A||"], "draws": [2 * d for d in s["draws"]]})
                            for s in spectral],
    # a complexity without its factor 2
    lambda spectral, rows: [r.update(complexity=r["complexity"] / 2, bound=r["bound"] - r["complexity"] / 2)
                            for r in rows],
    # m + m' without the negatives
    lambda spectral, rows: [r.update({"m + m'": r["m + m'"] // 5}) for r in rows],
])
def test_assembled_twice_fails_on_a_wrong_directed_assembly(wrong):
    spectral, rows = [_spectral("d")], _rows("d", C_V=40.0)
    hand = _hand(spectral, rows)
    wrong(spectral, rows)
    assert _verdicts(directed_claims(spectral, rows, hand=hand))["assembled-twice-agrees"] is False


@pytest.mark.parametrize("claim, spectral, rows", [
    # a symmetrised matrix put in place of the oriented one (or a side mapping that drops pairs)
    ("footnote-1-dilation", [_spectral(dilation=12.0)], _rows()),
    ("khintchine-upper-bound", [_spectral(value=40.0)], _rows()),
    ("sqrt-max-degree-lower-bound", [_spectral(value=3.0)], _rows()),
    # a bound computed with C_U + C_V halved or the wrong matrix: below the held-out loss
    ("bound-holds", [_spectral()], _rows(complexity=(5.0, 1.0, 0.001), confidence=0.0)),
    ("vacuous-without-regularization[g]", [_spectral()], _rows(complexity=(0.01, 0.005, 0.001), test=(0.7, 0.7, 0.66))),
    ("complexity-falls-with-lam_r[g]", [_spectral()], _rows(complexity=(5.0, 6.0, 0.2))),
    ("gap-shrinks-with-lam_r[g]", [_spectral()], _rows(gaps=(0.1, 0.2, 0.3))),
])
def test_each_claim_can_fail(claim, spectral, rows):
    v = _verdicts(directed_claims(spectral, rows))
    assert v[claim] is False, v


def test_bound_holds_is_not_tested_when_every_bound_is_at_least_b():
    # a bound >= B holds for any implementation: nothing could have been caught, so not a PASS
    rows = _rows(complexity=(5.0, 3.0, 2.0))
    claim = next(c for c in directed_claims([_spectral()], rows) if c.claim == "bound-holds")
    assert claim.status == "INCONCLUSIVE" and "not tested" in claim.evidence


def test_claims_fail_without_measurements():
    v = _verdicts(directed_claims([], []))
    assert not any(v.values())
    diverged = [dict(r, diverged=True) for r in _rows()]
    assert _verdicts(directed_claims([_spectral()], diverged))["bound-holds"] is False


def test_directed_check_is_registered(capsys):
    from lgekit._commands.theory import CHECKS
    from lgekit.experiments.checks import VERIFIERS

    from lgekit import cli

    assert "directed" in VERIFIERS and "directed" in CHECKS
    with pytest.raises(SystemExit):
        cli.main(["theory", "--help"])
    assert "directed" in capsys.readouterr().out


@pytest.mark.slow
def test_verify_directed_quick_end_to_end(tmp_path):
    """The quick check runs and every claim passes (needs the two-table model and bipartite splits)."""
    import io

    from lgekit.experiments.checks import run_verifier

    stream = io.StringIO()
    status = run_verifier("directed", quick=True, seed=0, out=tmp_path, stream=stream)
    text = stream.getvalue()
    assert (tmp_path / "directed.txt").exists() and (tmp_path / "directed.png").exists()
    assert status == 0, text
    assert "PASS footnote-1-dilation" in text


# -- what the mutation run of issue 41 found unguarded ---------------------------------------------------------------
def test_users_groups_graph_is_named_and_keeps_the_label_names():
    from lgekit.experiments.check_directed import users_groups_graph

    synthetic = lgekit.datasets.load("synthetic-blogcatalog", n_nodes=60, seed=0)
    names = [f"group {k}" for k in range(synthetic.n_labels)]       # names that are not 0..k-1
    labelled = lgekit.Graph.from_edges(synthetic.edges(), nodes=synthetic.n_nodes, labels=synthetic.labels,
                                       label_names=names, name="named")
    g = users_groups_graph(labelled)
    assert g.name == "named-groups" and g.kind == "bipartite"
    assert list(g.target_ids) == names
    assert users_groups_graph(labelled, name="mine").name == "mine"


@pytest.mark.parametrize("forward", [-0.1, 1.5])
def test_synthetic_directed_graph_refuses_a_share_outside_zero_one(forward):
    from lgekit.experiments.check_directed import synthetic_directed_graph

    with pytest.raises(ValueError, match="forward must be in"):
        synthetic_directed_graph(n_nodes=50, mean_degree=4, forward=forward)


def test_the_complexity_s_tolerance_is_the_norm_s_through_its_derivative():
    from lgekit.experiments.check_directed import SOLVER_TOL, directed_comparisons
    from lgekit.theory.reassembly import agreement_tolerance

    spectral, rows = [_spectral("d")], _rows("d", C_V=40.0)
    hand = _hand(spectral, rows)
    got = {(c[0], c[1]): c[4] for c in directed_comparisons(spectral, rows, hand)}
    tol = agreement_tolerance(hand["spectral"]["d"]["draws"], 3, 10.0, SOLVER_TOL, first_draws=spectral[0]["draws"])
    assert got[("E||A_sigma||", "d")] == pytest.approx(tol)
    r = rows[0]
    two = 2 * math.sqrt(r["C_U"] * r["C_V"]) / r["m + m'"]
    assert got[("complexity", "d, lam_r=0")] == pytest.approx(two * tol + 1e-9 * max(1.0, r["complexity"]))
    one = (r["C_U"] + r["C_V"]) / r["m + m'"]
    assert got[("one-budget complexity", "d, lam_r=0")] == pytest.approx(one * tol + 1e-9 * max(1.0, 10 * one))
