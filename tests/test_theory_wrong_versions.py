"""The wrong computations of issue 41, swapped into the real checks: each must now make a claim FAIL.

Issue 41 found 15 of 31 wrong computations printing PASS on every claim of ``lgekit theory ... --quick``; the
ones it listed are written here as a developer would write them (a helper of lgekit.theory replaced, the check
left alone) and each run end to end, on small graphs so that the whole file takes seconds.  The claims that
catch them are the second paths (``assembled-twice-agrees``, ``independent-patterns-differ``, ...), which
recompute every number without the helper that went wrong (:mod:`lgekit.theory.reassembly`).

The same small runs without a wrong version pass those claims (``test_the_small_runs_pass_the_second_paths``):
what fails below fails because of the change.
"""
import dataclasses
import functools

import numpy as np
import pytest

import lgekit.experiments.check_bound as check_bound
import lgekit.experiments.check_capacity as check_capacity
import lgekit.experiments.check_directed as check_directed
import lgekit.experiments.check_rademacher as check_rademacher
import lgekit.experiments.theorem1 as theorem1
import lgekit.theory.bounds as bounds
import lgekit.theory.sample as sample
from lgekit import datasets
from lgekit.experiments.verdict import FAIL
from lgekit.theory.rademacher import PairPattern

SECOND_PATHS = {"assembled-twice-agrees", "bandeira-van-handel-band", "independent-patterns-differ",
                "fresh-patterns-agree", "labels-decide-the-fit"}


@pytest.fixture
def small(monkeypatch):
    """The checks on small graphs: a 300-node BlogCatalog-shaped graph, a 200-node directed one, 300 users x groups."""
    monkeypatch.setattr(check_bound, "_load_bound_graph", lambda quick, seed, data_home: (
        datasets.load("synthetic-blogcatalog", n_nodes=300, seed=seed), None))
    monkeypatch.setattr(check_directed, "_load_graphs", lambda quick, seed, data_home: (
        check_directed.synthetic_directed_graph(n_nodes=200, mean_degree=10, seed=seed),
        check_directed.users_groups_graph(datasets.load("synthetic-blogcatalog", n_nodes=300, seed=seed)), []))
    monkeypatch.setattr(check_rademacher, "PAIR_BUDGET", (5000, 5000))
    return {
        "bound": lambda: check_bound.verify_bound(quick=True, lam_rs=(0.0, 10.0), dim=8, epochs=5,
                                                  planted_sizes=(1000, 10000)),
        "directed": lambda: check_directed.verify_directed(quick=True, lam_rs=(0.0, 10.0), dim=8, epochs=4),
        "rademacher": lambda: check_rademacher.verify_rademacher(quick=True, ns=[250, 500], ds=(2, 30)),
        "capacity": lambda: check_capacity.verify_capacity(quick=True),
    }


def _status(report):
    return {c.claim: c.status for c in report.claims}


@pytest.mark.parametrize("name", ["bound", "directed", "rademacher", "capacity"])
def test_the_small_runs_pass_the_second_paths(small, name):
    got = _status(small[name]())
    assert {c: s for c, s in got.items() if c in SECOND_PATHS and s != "PASS"} == {}, got


# -- Theorem 1 on an undirected sample -------------------------------------------------------------------------------
def _unsquared_budgets(embedding, context=None):
    # "the norm budget C built from unsquared norms"
    X = np.asarray(getattr(embedding, "embedding_", embedding), dtype=float)
    c = float(np.linalg.norm(X, axis=1).sum())
    return c, c


def _one_norm_for_every_convention(real):
    # "the spectral norm computed once and reused for every convention (16.33 vs random 16.33, sorted 16.33)"
    cache = {}

    def cached(split, convention=None, **kw):
        if "value" not in cache:
            cache["value"] = real(split, convention, **kw)
        return dataclasses.replace(cache["value"], convention=convention)

    return cached


def _positives_only(real):
    # "A_sigma built from the positive pairs only (38 % low)"
    @functools.wraps(real)
    def positives(split, part="train"):
        pairs, labels = real(split, part)
        return pairs[labels > 0], labels[labels > 0]

    return positives


def _doubled_complexity(real):
    # "the complexity factor 2 -> 4 (bound 3.536 -> 6.659)": a bound too large, which still "holds"
    def bound(*args, **kw):
        b = real(*args, **kw)
        return dataclasses.replace(b, complexity=2 * b.complexity, rhs=b.rhs + b.complexity)

    return bound


def _clip_maximum(margins, B=None, weights=None):
    # "the clip minimum -> maximum"
    from scipy.special import log_expit

    loss = -log_expit(np.asarray(margins, dtype=np.float64))
    if weights is not None:
        loss = loss * np.asarray(weights, dtype=np.float64)
    if B is not None:
        loss = np.maximum(loss, float(B))
    return float(loss.mean()) if loss.size else 0.0


@pytest.mark.parametrize("target, attribute, wrong", [
    (theorem1, "norm_constants", lambda real: _unsquared_budgets),
    (check_bound, "theorem1_spectral_norm", _one_norm_for_every_convention),
    (sample, "theorem1_sample", _positives_only),
    # "the unsigned adjacency in the graph's sample (8x too large)"
    (PairPattern, "draw_signs", lambda real: lambda self, seed=None: np.ones(self.n_pairs, dtype=np.int8)),
    (theorem1, "theorem1_bound", _doubled_complexity),
    (bounds, "clipped_logistic_loss", lambda real: _clip_maximum),
], ids=["unsquared budgets", "one norm for every convention", "positives only", "unsigned adjacency",
        "complexity factor 4", "clip maximum"])
def test_the_bound_check_fails_on_issue_41s_wrong_computations(small, monkeypatch, target, attribute, wrong):
    monkeypatch.setattr(target, attribute, wrong(getattr(target, attribute)))
    got = _status(small["bound"]())
    assert got["assembled-twice-agrees"] == FAIL, got


# -- Theorem 1 with two tables ---------------------------------------------------------------------------------------
def _context_never_read(embedding, context=None):
    # "C_U = C_V = ||X||^2 (the context table never read)"
    X = np.asarray(getattr(embedding, "embedding_", embedding), dtype=float)
    c = float(np.sum(X * X))
    return c, c


def _directed_scale_two(real):
    # "the directed scale 1 -> 2"
    def pattern(split, convention=None, seed=None):
        p, _ = real(split, convention, seed)
        return p, 2.0

    return pattern


@pytest.mark.parametrize("target, attribute, wrong", [
    (theorem1, "norm_constants", lambda real: _context_never_read),
    (check_directed, "theorem1_pattern", _directed_scale_two),
], ids=["context table never read", "directed scale 2"])
def test_the_directed_check_fails_on_issue_41s_wrong_computations(small, monkeypatch, target, attribute, wrong):
    monkeypatch.setattr(target, attribute, wrong(getattr(target, attribute)))
    got = _status(small["directed"]())
    assert got["assembled-twice-agrees"] == FAIL, got


# -- the spectral norm on Erdos-Renyi pairs --------------------------------------------------------------------------
def test_the_rademacher_check_fails_on_one_pattern_for_every_independent_one(small, monkeypatch):
    # "every 'independent pattern' of a cell replaced by one pattern passes (the spread collapses to +-0.0 %)"
    real = PairPattern.erdos_renyi.__func__
    cache = {}

    def one(cls, n, d, kind="bipartite", seed=None):
        if (n, d) not in cache:
            cache[(n, d)] = real(cls, n, d, kind=kind, seed=seed)
        return cache[(n, d)]

    monkeypatch.setattr(check_rademacher.PairPattern, "erdos_renyi", classmethod(one))
    got = _status(small["rademacher"]())
    assert got["independent-patterns-differ"] == FAIL, got


def test_the_rademacher_check_fails_on_a_sign_bug(small, monkeypatch):
    # signs +1 with probability 0.7: a sampling bug the dense cross-check (same pattern, same signs) cannot see
    def biased(self, seed=None):
        rng = np.random.default_rng(seed) if not isinstance(seed, np.random.Generator) else seed
        return np.where(rng.random(self.n_pairs) < 0.7, 1, -1).astype(np.int8)

    monkeypatch.setattr(PairPattern, "draw_signs", biased)
    got = _status(small["rademacher"]())
    assert got["fresh-patterns-agree"] == FAIL, got


# -- capacity --------------------------------------------------------------------------------------------------------
def test_the_capacity_check_fails_on_a_fit_that_ignores_the_labels(small, monkeypatch):
    # "a fit that ignores the random labels passes": it fits all +1 and reports its margins on those
    real = check_capacity.fit_signed_pairs

    def ignoring(pairs, labels, *args, **kw):
        return real(pairs, np.ones_like(np.asarray(labels)), *args, **kw)

    monkeypatch.setattr(check_capacity, "fit_signed_pairs", ignoring)
    got = _status(small["capacity"]())
    assert got["assembled-twice-agrees"] == FAIL and got["labels-decide-the-fit"] == FAIL, got


# -- the report's tables say what the data say (the mutation run found their cells unguarded) -----------------------
def test_the_directed_tables_are_the_measurements(small):
    report = small["directed"]()
    for r in report.data["spectral"]:
        n_rows, n_cols = r["shape"]
        assert r["(m+m')/(|U|+|V|)"] == pytest.approx(r["m + m'"] / (n_rows + n_cols))
    title, rows, _ = next(t for t in report.tables if t[0].startswith("Second path"))
    assert rows and all(row["check"] != row["second path"] or row["tolerance"] >= 0 for row in rows)
    norms = {r["graph"]: r["E||A||"] for r in report.data["spectral"]}
    shown = {row["what"].split(", ")[1]: row["check"] for row in rows if row["what"].startswith("E||A_sigma||")}
    assert shown == norms


def test_the_capacity_control_uses_the_labels_share(small, monkeypatch):
    report = small["capacity"]()
    shares = {h["share +1"] for h in report.data["hand"]["rows"].values()}
    assert len(shares) == 1 and 0.4 < shares.pop() < 0.6          # random +-1 labels: about half +1


def test_one_sign_draw_has_no_standard_error(small, monkeypatch):
    report = check_directed.verify_directed(quick=True, lam_rs=(0.0,), dim=4, epochs=2, n_draws=1)
    assert [r["s.e."] for r in report.data["spectral"]] == [0.0, 0.0]


def test_run_verifier_refuses_a_folder_of_the_users_by_default(monkeypatch, tmp_path):
    from lgekit._output_folder import FolderNotOursError
    from lgekit.experiments import checks
    from lgekit.experiments.verdict import TheoryReport

    monkeypatch.setitem(checks.VERIFIERS, "capacity", lambda quick, seed: TheoryReport(name="capacity"))
    (tmp_path / "mine.txt").write_text("mine\n")
    with pytest.raises(FolderNotOursError):
        checks.run_verifier("capacity", out=tmp_path)
    assert checks.run_verifier("capacity", out=tmp_path, force=True) == 0
