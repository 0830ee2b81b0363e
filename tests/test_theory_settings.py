"""Each theory check runs with the settings its docstring states, quick and full.

A setting that changes (a grid value, a dimension, an iteration cap, the quick branch taken for the full one)
moves no verdict of a run that still passes -- the mutation run of issue 41 found such mutants surviving every
claim -- so the settings are pinned here.  Each check is run with its expensive steps replaced by recorders
(and its graphs by small ones), which is fast for the full settings too.
"""
import numpy as np
import pytest

import lgekit.experiments.check_bound as check_bound
import lgekit.experiments.check_capacity as check_capacity
import lgekit.experiments.check_directed as check_directed
import lgekit.experiments.check_rademacher as check_rademacher
import lgekit.experiments.check_shattering as check_shattering
from lgekit import datasets, theory


class Recorded(Exception):
    """Raised by a recorder once the settings it watches are known."""


@pytest.mark.parametrize("quick, lam_rs, dim, epochs, n_draws, sizes", [
    (True, [0.0, 1.0, 3.0, 10.0], 32, 15, 3, [1_000, 10_000, 100_000, 1_000_000]),
    (False, [0.0, 1.0, 3.0, 10.0, 30.0], 100, 20, 5,
     [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 10_000_000]),
])
def test_bound_settings(monkeypatch, quick, lam_rs, dim, epochs, n_draws, sizes):
    seen = {}
    small = datasets.load("synthetic-blogcatalog", n_nodes=200, seed=0)
    monkeypatch.setattr(check_bound, "_load_bound_graph",
                        lambda q, seed, data_home: seen.update(quick=q) or (small, None))
    real_norm = check_bound.theorem1_spectral_norm

    def norm(split, convention, n_draws, **kw):
        seen.setdefault("conventions", []).append(convention)
        seen["n_draws"] = n_draws
        return real_norm(split, convention, n_draws=n_draws, **kw)

    def fits(split, lam_r_grid, **kw):
        seen.update(lam_rs=list(lam_r_grid), **kw)
        return iter(())

    def planted(distribution, planted_sizes, planted_lams, **kw):
        seen.update(n_nodes=distribution.n_nodes, communities=distribution.n_communities, sizes=list(planted_sizes),
                    planted_lams=list(planted_lams), planted=kw)
        raise Recorded

    monkeypatch.setattr(check_bound, "theorem1_spectral_norm", norm)
    monkeypatch.setattr(check_bound, "fit_across_lam_r", fits)
    monkeypatch.setattr(check_bound, "planted_bound_rows", planted)
    with pytest.raises(Recorded):
        check_bound.verify_bound(quick=quick)
    assert seen["quick"] is quick and seen["conventions"] == list(theory.CONVENTIONS)
    assert (seen["lam_rs"], seen["dim"], seen["epochs"], seen["n_draws"]) == (lam_rs, dim, epochs, n_draws)
    assert (seen["lam_pos"], seen["lam_neg"], seen["lr_offset"], seen["B"], seen["delta"]) == (1.0, 1.0, 100.0, 1.0, 0.05)
    assert (seen["n_nodes"], seen["communities"], seen["sizes"]) == (40, 4, sizes)
    assert seen["planted_lams"] == [0.0, 0.003, 0.01, 0.03, 0.1]
    assert seen["planted"] == {"dim": 8, "B": 1.0, "delta": 0.05, "n_draws": check_bound.PLANTED_DRAWS,
                               "seed": seen["planted"]["seed"]}


@pytest.mark.parametrize("quick, lam_rs, dim, epochs, n_draws", [
    (True, [0.0, 1.0, 10.0], 16, 10, 3),
    (False, [0.0, 0.3, 1.0, 3.0, 10.0], 32, 20, 5),
])
def test_directed_settings(monkeypatch, quick, lam_rs, dim, epochs, n_draws):
    seen = []
    monkeypatch.setattr(check_directed, "_load_graphs", lambda q, seed, data_home: (
        check_directed.synthetic_directed_graph(n_nodes=120, mean_degree=6, seed=seed),
        check_directed.users_groups_graph(datasets.load("synthetic-blogcatalog", n_nodes=150, seed=seed)),
        [f"quick={q}"]))

    def fits(split, lam_r_grid, **kw):
        seen.append(dict(kw, lam_rs=list(lam_r_grid)))
        return iter(())

    monkeypatch.setattr(check_directed, "fit_across_lam_r", fits)
    report = check_directed.verify_directed(quick=quick)
    assert f"quick={quick}" in report.notes
    settings = ("lam_rs", "dim", "epochs", "lam_pos", "lam_neg", "lr_offset", "B", "delta", "seed")
    assert len(seen) == 2 and all({k: s[k] for k in settings} == {k: seen[0][k] for k in settings} for s in seen)
    got = seen[0]
    assert (got["lam_rs"], got["dim"], got["epochs"]) == (lam_rs, dim, epochs)
    assert (got["lam_pos"], got["lam_neg"], got["lr_offset"], got["B"], got["delta"]) == (1.0, 1.0, 100.0, 1.0, 0.05)
    assert [len(r["draws"]) for r in report.data["spectral"]] == [n_draws, n_draws]


@pytest.mark.parametrize("quick, n, d, dims, lams, maxiter", [
    (True, 200, 6, [3, 6, 24], [0.0, 0.1, 1.0], 400),
    (False, 1000, 10, [5, 10, 40, 160], [0.0, 0.01, 0.1, 1.0], 2000),
])
def test_capacity_settings(monkeypatch, quick, n, d, dims, lams, maxiter):
    seen = {}

    def graph(n_, d_, seed=None):
        seen.update(n=n_, d=d_)
        return theory.random_labelled_regular_graph(20, 4, seed=seed)

    def table(graph_, labels, dims_, lams_, seed=0, maxiter=2000, verbose=0):
        seen.update(dims=list(dims_), lams=list(lams_), maxiter=maxiter)
        raise Recorded

    monkeypatch.setattr(check_capacity, "random_labelled_regular_graph", graph)
    monkeypatch.setattr(check_capacity, "capacity_table", table)
    with pytest.raises(Recorded):
        check_capacity.verify_capacity(quick=quick)
    assert seen == {"n": n, "d": d, "dims": dims, "lams": lams, "maxiter": maxiter}


@pytest.mark.parametrize("quick, ds, ns, labellings, seeds", [
    (True, [3, 6, 10], [100, 300, 1000], 5, 3),
    (False, [3, 5, 10, 20], [100, 300, 1000, 3000, 10000], 20, 10),
])
def test_shattering_settings(monkeypatch, quick, ds, ns, labellings, seeds):
    cells = []

    def graph(n, d, seed=None):
        cells.append((d, n))
        return theory.random_labelled_regular_graph(2 * d + 2, d, seed=seed)

    monkeypatch.setattr(check_shattering, "random_labelled_regular_graph", graph)
    monkeypatch.setattr(check_shattering, "adversarial_regular_graphs", lambda: theory.adversarial_regular_graphs()[:1])
    report = check_shattering.verify_shattering(quick=quick)
    assert cells == [(d, n) for d in ds for n in ns if n > d and (n * d) % 2 == 0]
    assert len(report.data["adversarial"]) == (3 + labellings) * seeds
    assert report.tables[1][1][0]["cases"] == (3 + labellings) * seeds            # the table says so too
    assert [r["d"] for r in report.data["tight"]] == list(range(2, 9))


@pytest.mark.parametrize("quick, ns, n_draws, budget", [
    (True, [1000, 3000, 10_000, 30_000, 100_000], 2, 2_000_000),
    (False, [1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000], 5, 8_000_000),
])
def test_rademacher_settings(monkeypatch, quick, ns, n_draws, budget):
    cells, draws = [], []
    real_er = theory.PairPattern.erdos_renyi.__func__

    def tiny(cls, n, d, kind="bipartite", seed=None):
        cells.append((d, n))
        return real_er(cls, 40, min(d, 8), kind=kind, seed=seed)

    real_norm = check_rademacher.expected_spectral_norm

    def norm(pattern, n_draws=1, **kw):
        draws.append(n_draws)
        return real_norm(pattern, n_draws=n_draws, **kw)

    monkeypatch.setattr(check_rademacher.PairPattern, "erdos_renyi", classmethod(tiny))
    monkeypatch.setattr(check_rademacher, "expected_spectral_norm", norm)
    monkeypatch.setattr(check_rademacher, "erdos_renyi_norms_by_hand", lambda n, d, k, seed: np.ones(k))
    report = check_rademacher.verify_rademacher(quick=quick)
    grid = [(d, n) for d in (2, 5, 10, 50) for n in ns]
    assert sorted(set(cells)) == sorted(grid)
    patterns = {(r["d"], r["n"]): r["patterns"] for r in report.data["rows"]}
    assert patterns == {(d, n): min(16, max(1, budget // (n * d))) for d, n in grid}
    one = [r for r in report.data["rows"] if r["patterns"] == 1]
    assert one and all(len(r["values"]) == n_draws for r in one)
    assert set(draws) == ({n_draws, 1} if len(one) < len(grid) else {n_draws})


@pytest.mark.parametrize("verify", [check_bound.verify_bound, check_directed.verify_directed,
                                    check_rademacher.verify_rademacher, check_shattering.verify_shattering,
                                    check_capacity.verify_capacity])
def test_every_check_runs_its_full_settings_unless_asked_for_quick(verify):
    import inspect

    assert inspect.signature(verify).parameters["quick"].default is False
    assert inspect.signature(verify).parameters["seed"].default == 0
