"""Every theory verdict can FAIL: each check is fed an input that must fail.

The ``*_claims`` functions turn measurements into PASS/FAIL; here each is
given (a) measurements consistent with the theory, on which every claim
passes, and (b) for every claim, the measurements a plausible wrong
implementation would produce, on which that claim must fail.  Two checks are
also run end to end with a wrong spectral-norm estimator swapped in.
"""
import copy
import math
from types import SimpleNamespace

import numpy as np
import pytest

import lgekit.experiments.check_rademacher as reports
from lgekit.experiments.verdict import FAIL, PASS, STATUSES, TheoryReport, Verdict, format_table, write_report_files
from lgekit.experiments.check_bound import bound_claims
from lgekit.experiments.check_capacity import capacity_claims
from lgekit.experiments.check_rademacher import fit_log_trend, rademacher_claims, verify_rademacher
from lgekit.experiments.check_shattering import shattering_claims
from lgekit.theory.rademacher import bandeira_van_handel_estimate, bbk_estimate, khintchine_bound, paper_estimate


def verdicts(claims):
    assert all(c.status in (PASS, FAIL) for c in claims)
    return {c.claim: c.passed for c in claims}


# -- rademacher ------------------------------------------------------------------------------------------------------
def _rademacher_rows(measure):
    """Rows of verify_rademacher's table for d in (2, 50), n in 1e3..1e5, with E||A|| = measure(d, n, D)."""
    rows = []
    for d in (2, 50):
        for n in (1000, 10_000, 100_000):
            # a typical largest degree of G(n, d/n): about ln n / ln ln n for d = 2, d + 4 sqrt(d) for d = 50
            D = round(math.log(n) / math.log(math.log(n)) * 2.2) if d == 2 else round(d + 4 * math.sqrt(d))
            value = measure(d, n, D)
            rows.append({
                "d": d, "n": n, "regime": reports._regime(d, n), "E||A||": value, "s.e.": 0.01,
                "min draw/sqrt(D)": value / math.sqrt(D), "||A||/sqrt(d)": value / math.sqrt(d),
                "ratio s.e.": 0.01 / math.sqrt(d), "paper sqrt(m ln n/n)": paper_estimate(n * d, n),
                "2 sqrt(d)": bandeira_van_handel_estimate(d), "sqrt(D_max)": math.sqrt(D), "BBK": bbk_estimate(D, d),
                "Khintchine": khintchine_bound(D, (n, n)),
            })
    return rows


def _trends(rows):
    out = {}
    for d in sorted({r["d"] for r in rows}):
        sub = [r for r in rows if r["d"] == d]
        out[d] = fit_log_trend([r["n"] for r in sub], [r["||A||/sqrt(d)"] for r in sub],
                               se=[r["ratio s.e."] for r in sub])
    return out


def _truth(d, n, D):
    # what the measurements look like: 2 sqrt(d) (1 + 0.5 %) when dense, BBK (+3 %) when sparse
    return 2 * math.sqrt(d) * 1.005 if d == 50 else 1.03 * bbk_estimate(D, d)


def test_rademacher_claims_pass_on_measurements_consistent_with_the_theory():
    rows = _rademacher_rows(_truth)
    assert all(verdicts(rademacher_claims(rows, _trends(rows))).values())


@pytest.mark.parametrize("wrong, must_fail", [
    # the paper's estimate reported as the measurement
    (lambda d, n, D: paper_estimate(n * d, n),
     {"paper-estimate-overestimates", "bandeira-van-handel-2sqrt(d)", "footnote-removable-dense"}),
    # the signs forgotten: the unsigned adjacency matrix has norm about its mean degree
    (lambda d, n, D: d + 1.0 if d == 50 else _truth(d, n, D),
     {"khintchine-upper-bound", "bandeira-van-handel-2sqrt(d)"}),
    # a norm below the densest row's: impossible for a +-1 matrix
    (lambda d, n, D: 0.9 * math.sqrt(D), {"sqrt-max-degree-lower-bound", "bandeira-van-handel-2sqrt(d)", "bbk-sparse"}),
    # 2 sqrt(d) everywhere (the dense-regime formula applied to sparse patterns): no growth at d = 2
    (lambda d, n, D: 2 * math.sqrt(d), {"footnote-not-removable-sparse", "bbk-sparse"}),
])
def test_rademacher_claims_fail_on_a_wrong_estimator(wrong, must_fail):
    rows = _rademacher_rows(wrong)
    got = verdicts(rademacher_claims(rows, _trends(rows)))
    assert {name for name, ok in got.items() if not ok} >= must_fail, got


def test_rademacher_claims_fail_without_data():
    got = verdicts(rademacher_claims([], {}))
    assert not any(got.values())


def test_verify_rademacher_end_to_end_with_the_paper_estimate_instead_of_a_measurement(monkeypatch):
    # a plausible bug: returning the paper's sqrt(m ln n / n) instead of measuring E||A_sigma||
    def paper_instead(pattern, n_draws=1, seed=None, n_threads=1, verbose=0):
        value = paper_estimate(pattern.n_pairs, pattern.shape[0])
        return SimpleNamespace(mean=value, std_error=0.0, values=np.full(n_draws, value))

    monkeypatch.setattr(reports, "expected_spectral_norm", paper_instead)
    report = verify_rademacher(quick=True, ns=[300, 1000, 3000], ds=(2, 30), seed=0)
    got = verdicts(report.claims)
    assert not got["paper-estimate-overestimates"]
    assert not got["footnote-removable-dense"]
    assert not got["bandeira-van-handel-2sqrt(d)"]
    assert report.exit_status == 1


# -- bound -----------------------------------------------------------------------------------------------------------
def _spectral_rows():
    # BlogCatalog's measured values (issue 17 and theorem1_spectral_norm's Notes)
    rows = [{"convention": "symmetric", "E||A||": 61.4, "value": 30.7, "value s.e.": 0.03, "ER E||A||": 32.2,
             "D_max": 3343, "mean degree": 259.1, "BBK": bbk_estimate(3343, 259.1), "s*": 1.44}]
    for name, value in (("random", 43.6), ("sorted", 58.1), ("source", 90.6)):
        rows.append({"convention": name, "E||A||": value, "value": value, "value s.e.": 0.05, "ER E||A||": 22.8,
                     "D_max": 3000, "mean degree": 129.6, "BBK": 50.0, "s*": 1.0})
    return rows


def _graph_rows():
    common = {"diverged": False, "s*": 1.44, "trivial loss": math.log(2), "B": 1.0, "confidence": 0.0102}
    rows = []
    for lam, s, train, test, comp in ((0.0, 33.6, 0.10, 0.80, 15.9), (3.0, 9.0, 0.32, 0.62, 4.26),
                                      (10.0, 0.287, 0.643, 0.6476, 0.136), (30.0, 0.0795, 0.669, 0.6701, 0.0377)):
        bound = train + comp + 0.0102
        rows.append({**common, "lam_r": lam, "mean ||x||^2": s, "train loss": train, "test loss": test,
                     "gap": test - train, "complexity": comp, "bound": bound, "vacuous": bound >= math.log(2)})
    return rows


def _planted_rows():
    rows = []
    for M, train, expected, bound in ((10_000, 0.597, 0.611, 0.893), (100_000, 0.588, 0.589, 0.689),
                                      (1_000_000, 0.588, 0.588, 0.617)):
        rows.append({"M": M, "M/n": M / 40, "lam_r": 0.01, "mean ||x||^2": 1.0, "train loss": train,
                     "expected loss": expected, "bound": bound, "trivial loss": math.log(2), "B": 1.0,
                     "vacuous": bound >= math.log(2)})
    return rows


def test_bound_claims_pass_on_consistent_measurements():
    got = verdicts(bound_claims(_spectral_rows(), _graph_rows(), _planted_rows()))
    assert all(got.values()), got


def _mutated(which, change):
    data = {"spectral": _spectral_rows(), "graph": _graph_rows(), "planted": _planted_rows()}
    change(data[which])
    return verdicts(bound_claims(data["spectral"], data["graph"], data["planted"]))


def _violate(rows):
    rows[2]["test loss"] = rows[2]["bound"] + 0.01  # an informative row (bound < B) above its bound


def _halve_forgotten(rows):
    rows[0]["value"] = rows[0]["E||A||"]  # ||A + A^T|| put in without the 1/2


def _hub_blind(rows):
    rows[0]["E||A||"] = rows[0]["ER E||A||"]  # an estimator blind to the hubs: the Erdos-Renyi value
    rows[0]["value"] = rows[0]["E||A||"] / 2


def _mean_norm_as_c(rows):
    for r in rows:  # C taken as the MEAN squared norm instead of the total: complexity / n
        r["complexity"] /= 10312
        r["bound"] = r["train loss"] + r["complexity"] + r["confidence"]
        r["vacuous"] = r["bound"] >= r["trivial loss"]


def _never_small(rows):
    for r in rows:  # a lam_r grid that never reaches s*
        r["mean ||x||^2"] = max(r["mean ||x||^2"], 2.0)


def _complexity_up(rows):
    rows[-1]["complexity"] = rows[-2]["complexity"] * 2


def _gap_up(rows):
    rows[-1]["gap"] = rows[0]["gap"] + 1


def _all_vacuous(rows):
    for r in rows:
        r["bound"], r["vacuous"] = 0.9, True


def _nothing_informative(rows):
    for r in rows:
        r["bound"] = max(r["bound"], 1.0)


@pytest.mark.parametrize("which, change, claim", [
    ("graph", _violate, "bound-holds"),
    ("spectral", _halve_forgotten, "symmetric-A-sigma-smallest"),
    ("spectral", _hub_blind, "degrees-set-spectral-norm"),
    ("graph", _mean_norm_as_c, "vacuous-without-regularization"),
    ("graph", _never_small, "norm-threshold-reached"),
    ("graph", _complexity_up, "complexity-falls-with-lam_r"),
    ("graph", _gap_up, "gap-shrinks-with-lam_r"),
    ("planted", _all_vacuous, "planted-nonvacuous-at-large-m"),
])
def test_bound_claims_fail_on_wrong_measurements(which, change, claim):
    assert _mutated(which, change)[claim] is False


def test_bound_holds_cannot_pass_when_nothing_is_informative():
    # a bound at or above B holds for ANY implementation (the clipped loss never exceeds B): no evidence
    spectral, graph, planted = _spectral_rows(), _graph_rows(), _planted_rows()
    _nothing_informative(graph)
    _nothing_informative(planted)
    claims = bound_claims(spectral, graph, planted)
    bad = next(c for c in claims if c.claim == "bound-holds")
    assert not bad.passed and "nothing" in bad.evidence


def test_bound_holds_catches_a_zero_spectral_norm_on_the_unregularized_row():
    # a wrong estimator returning 0: the lam_r = 0 bound becomes train + confidence = 0.11 < B, below the held-out
    # loss 0.80, and the check fails
    graph = _graph_rows()
    for r in graph:
        r["complexity"] = 0.0
        r["bound"] = r["train loss"] + r["confidence"]
        r["vacuous"] = r["bound"] >= r["trivial loss"]
    assert verdicts(bound_claims(_spectral_rows(), graph, _planted_rows()))["bound-holds"] is False


# -- shattering ------------------------------------------------------------------------------------------------------
def _shattering_inputs():
    rows = [{"d": d, "n": n, "edges": n * d // 2, "violated": 0, "min margin": 1.1, "mean ||x||^2": 1.3 * d,
             "lower bd (these labels)": math.sqrt(d) / 2, "polished violated": 0, "polished median": 0.9 * math.sqrt(d),
             "polished median/lower": 1.8} for d in (3, 6) for n in (100, 1000)]
    adversarial = [{"graph": g, "labels": lab, "failed": False, "min margin": 1.1}
                   for g in ("K_{3,3}", "K_{4,4}") for lab in ("all +1", "all -1", "random 0")]
    tight = [{"d": d, "dim d: violated": 0, "dim d-1 fails": True} for d in range(2, 9)]
    return rows, adversarial, tight


def test_shattering_claims_pass_on_a_correct_construction():
    assert all(verdicts(shattering_claims(*_shattering_inputs())).values())


@pytest.mark.parametrize("change, claim", [
    (lambda r, a, t: r[0].update(violated=3), "claim1-random-labels"),
    # the equal-margin construction: every complete bipartite graph with constant labels failed
    (lambda r, a, t: a[0].update(failed=True), "claim1-adversarial"),
    (lambda r, a, t: t[3].update({"dim d-1 fails": False}), "tight-case-K_{d+1}"),
    (lambda r, a, t: r[1].update({"mean ||x||^2": 0.5 * r[1]["lower bd (these labels)"]}),
     "norm-lower-bound-consistent"),
    (lambda r, a, t: r[2].update({"polished median/lower": 3.5}), "polished-norm-within-3x-of-lower-bound"),
    (lambda r, a, t: r[1].update({"polished median": 2 * r[0]["polished median"]}), "polished-norm-flat-in-n"),
])
def test_shattering_claims_fail_on_a_wrong_construction(change, claim):
    rows, adversarial, tight = copy.deepcopy(_shattering_inputs())
    change(rows, adversarial, tight)
    assert verdicts(shattering_claims(rows, adversarial, tight))[claim] is False


def test_shattering_claims_fail_without_data():
    assert not any(verdicts(shattering_claims([], [], [])).values())


# -- capacity --------------------------------------------------------------------------------------------------------
def _capacity_rows():
    rows = []
    for D in (3, 6, 24):
        for lam, loss, viol in ((0.0, 1e-5, 0), (0.1, 0.55, 200), (1.0, 0.6931, 600)):
            if D == 3 and lam == 0:
                loss, viol = 0.2, 150  # below the degree: cannot memorise
            rows.append({"D": D, "lam_r": lam, "train_loss": loss, "violated": viol, "min_margin": 1.2 if not viol
                         else 0.0, "frac_margin>1": 1.0 - viol / 600})
    return rows


def test_capacity_claims_pass_on_consistent_fits():
    assert all(verdicts(capacity_claims(_capacity_rows(), 6, threshold=0.3, n_edges=600)).values())


@pytest.mark.parametrize("change, claim", [
    (lambda rows: next(r for r in rows if r["D"] == 6 and r["lam_r"] == 0).update(train_loss=0.05, violated=4),
     "dimension-d-memorises"),
    (lambda rows: next(r for r in rows if r["D"] == 24 and r["lam_r"] == 0).update(violated=1),
     "unregularized-large-D-memorises"),
    # a penalty that did nothing (e.g. lam_r divided by n twice): memorised despite lam_r above the threshold
    (lambda rows: next(r for r in rows if r["D"] == 24 and r["lam_r"] == 1.0).update(train_loss=1e-4, violated=0),
     "norm-penalty-prevents-memorisation"),
    (lambda rows: next(r for r in rows if r["D"] == 24 and r["lam_r"] == 0.1).update(train_loss=0.3),
     "penalty-not-dimension-sets-fit"),
])
def test_capacity_claims_fail_on_wrong_fits(change, claim):
    rows = _capacity_rows()
    change(rows)
    assert verdicts(capacity_claims(rows, 6, threshold=0.3, n_edges=600))[claim] is False


def test_capacity_penalty_claim_fails_when_the_grid_misses_the_threshold():
    got = verdicts(capacity_claims(_capacity_rows(), 6, threshold=5.0, n_edges=600))
    assert got["norm-penalty-prevents-memorisation"] is False


# -- the one verdict type and the one writer, shared with the figures --------------------------------------------------
def test_a_theory_verdict_and_a_figure_verdict_are_one_type():
    from lgekit.experiments import figures as figure_verdicts
    from lgekit.experiments import verdict

    assert verdict.Verdict is Verdict
    check = Verdict.check("khintchine-upper-bound", True, "max measured/bound = 0.9")
    assert (check.status, check.passed) == (PASS, True)
    assert check.line() == "PASS khintchine-upper-bound: max measured/bound = 0.9"
    failed = Verdict.check("x", False, "why")
    assert (failed.status, failed.passed, failed.line()) == (FAIL, False, "FAIL x: why")
    fig = Verdict("norms_grow_slowing", figure_verdicts.INCONCLUSIVE, "3 epochs", statement="Norms grow", figure="fig1")
    assert not fig.passed and fig.status == "INCONCLUSIVE"
    assert fig.line() == "Norms grow — observed: 3 epochs: INCONCLUSIVE"
    assert Verdict("c", figure_verdicts.REPRODUCED, "e").passed
    assert set(STATUSES) == {PASS, FAIL, figure_verdicts.REPRODUCED, figure_verdicts.NOT_REPRODUCED,
                             figure_verdicts.INCONCLUSIVE}


@pytest.mark.parametrize("status", ["pass", "OK", "NOT_REPRODUCED", True, ""])
def test_verdict_rejects_a_status_outside_both_vocabularies(status):
    with pytest.raises(ValueError, match="status must be one of"):
        Verdict("c", status, "evidence")


def test_a_figure_rule_returns_the_shared_verdict():
    from lgekit.experiments import figures as figure_verdicts

    v = figure_verdicts.norms_grow_slowing([])
    assert isinstance(v, Verdict) and v.status == figure_verdicts.INCONCLUSIVE and v.figure == "fig1"


def test_theory_report_text_ends_with_the_claim_lines_and_the_writer_is_atomic(tmp_path):
    import os

    report = TheoryReport(name="demo")
    report.add_table("a table", [{"n": 10, "ratio": 0.5}, {"n": 1000, "ratio": 1e-5}])
    report.notes.append("a note")
    report.add_claim("first", True, "1 <= 2")
    report.add_claim("second", 0, "3 > 2")
    text = report.text()
    assert text.endswith("PASS first: 1 <= 2\nFAIL second: 3 > 2\n")
    assert format_table(report.tables[0][1], title="a table") in text and "1.000e-05" in text
    assert report.exit_status == 1 and not report.passed

    report.plot = lambda fig: fig.subplots().plot([0, 1], [1, 0])
    written = report.save(tmp_path / "new")
    assert [p.name for p in written] == ["demo.txt", "demo.png"]
    assert (tmp_path / "new" / "demo.txt").read_text() == text
    assert (tmp_path / "new" / "demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # no temporary left behind; the manifest lists the files lgekit wrote
    assert sorted(os.listdir(tmp_path / "new")) == [".lgekit-manifest.json", "demo.png", "demo.txt"]


def test_the_writer_leaves_the_old_file_when_drawing_fails(tmp_path):
    from matplotlib.figure import Figure

    old = Figure()
    old.subplots().plot([0, 1], [1, 0])
    write_report_files(tmp_path, "f", text="old\n", figure=old, formats=(("png", {}),))
    old_png = (tmp_path / "f.png").read_bytes()

    class Broken(Figure):
        def savefig(self, *args, **kwargs):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_report_files(tmp_path, "f", text="new\n", figure=Broken(), formats=(("png", {}),))
    # the text was replaced whole; the figure kept its old content and no temporary is left
    assert (tmp_path / "f.txt").read_text() == "new\n"
    assert (tmp_path / "f.png").read_bytes() == old_png
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lgekit-manifest.json", "f.png", "f.txt"]


def test_main_parses_the_options_of_each_check(monkeypatch, tmp_path):
    from lgekit.experiments import checks as theory_checks

    original = theory_checks.run_verifier
    calls = []
    monkeypatch.setattr(theory_checks, "run_verifier", lambda name, **kw: calls.append((name, kw)) or 0)
    assert theory_checks.main("bound", ["--quick", "--seed", "3", "--out", str(tmp_path),
                                        "--convention", "sorted"]) == 0
    assert theory_checks.main("capacity", []) == 0
    assert calls == [("bound", {"quick": True, "seed": 3, "out": str(tmp_path), "force": False,
                                "convention": "sorted"}),
                     ("capacity", {"quick": False, "seed": 0, "out": "lgekit-results/theory", "force": False})]
    with pytest.raises(SystemExit):  # --convention belongs to the bound check only
        theory_checks.main("shattering", ["--convention", "sorted"])
    with pytest.raises(ValueError, match="unknown theory check 'nonsense'"):
        theory_checks.main("nonsense", [])
    with pytest.raises(ValueError, match="unknown theory check"):
        original("nonsense")


def test_theory_refuses_a_folder_of_the_users_unless_forced(monkeypatch, tmp_path, capsys):
    """`lgekit theory --out DIR` refuses a folder holding files lgekit did not write before running the check;
    --force writes into it, overwriting only CHECK.txt, and the user's files stay."""
    from lgekit import cli
    from lgekit.experiments import checks

    ran = []

    def fake_check(quick, seed):
        ran.append((quick, seed))
        report = TheoryReport(name="capacity")
        report.add_claim("always", True, "fine")
        return report

    monkeypatch.setitem(checks.VERIFIERS, "capacity", fake_check)
    for name, content in (("notes.md", "mine\n"), ("capacity.txt", "my own capacity notes\n")):
        (tmp_path / name).write_text(content)
    assert cli.main(["theory", "capacity", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--force" in err and str(tmp_path) in err and err.count("\n") == 1
    assert ran == []  # refused before the check ran
    assert (tmp_path / "capacity.txt").read_text() == "my own capacity notes\n"
    assert cli.main(["theory", "capacity", "--out", str(tmp_path), "--force", "--quick", "--seed", "4"]) == 0
    assert ran == [(True, 4)]
    assert "PASS always: fine" in (tmp_path / "capacity.txt").read_text()
    assert (tmp_path / "notes.md").read_text() == "mine\n"
    # a folder lgekit wrote is accepted again without --force
    assert cli.main(["theory", "capacity", "--out", str(tmp_path / "new")]) == 0
    assert cli.main(["theory", "capacity", "--out", str(tmp_path / "new")]) == 0
