"""Each theory check is measure -> claims -> tables -> plot (issue 45): ``verify_*`` computes nothing itself.

``measure_NAME`` returns the data, ``NAME_claims`` judges it, ``plot(fig, measured)`` draws it, and
``verify_NAME`` only runs the three and writes the tables.  The tests hand ``verify_*`` a measurement with one
number broken (by replacing ``measure_NAME``): a ``verify_*`` that still measured on its own would report the
unbroken run and PASS, so the claim that reads the broken number must FAIL here.  The two cheapest checks
(capacity, shattering: seconds each) stand for the five; the before/after reports of all five are compared in
the issue's report.
"""
import copy

import pytest
from matplotlib.figure import Figure

from lgekit.experiments import check_capacity, check_shattering


@pytest.fixture(scope="module")
def capacity_measured():
    return check_capacity.measure_capacity(quick=True, seed=0)


@pytest.fixture(scope="module")
def shattering_measured():
    return check_shattering.measure_shattering(quick=True, seed=0)


def _statuses(report):
    return {c.claim: c.status for c in report.claims}


def test_verify_capacity_judges_the_measured_data(monkeypatch, capacity_measured):
    measured = copy.deepcopy(capacity_measured)
    fit = next(r for r in measured["rows"] if r["D"] == measured["d"] and r["lam_r"] == 0.0)
    fit["violated"] = 1          # the wrong measurement: one margin <= 1 where Claim 1 memorises every label
    monkeypatch.setattr(check_capacity, "measure_capacity", lambda **kwargs: measured)
    report = check_capacity.verify_capacity(quick=True, seed=0)
    assert _statuses(report)["dimension-d-memorises"] == "FAIL"
    assert report.data["rows"] is measured["rows"]


def test_verify_capacity_is_measure_then_claims(monkeypatch, capacity_measured):
    monkeypatch.setattr(check_capacity, "measure_capacity", lambda **kwargs: capacity_measured)
    report = check_capacity.verify_capacity(quick=True, seed=0)
    m = capacity_measured
    direct = check_capacity.capacity_claims(m["rows"], m["d"], m["threshold"], n_edges=m["graph"].n_edges,
                                            hand=m["hand"], lower=m["lower_bound"])
    assert [(c.claim, c.status, c.evidence) for c in report.claims] == \
        [(c.claim, c.status, c.evidence) for c in direct]
    assert all(c.status == "PASS" for c in direct)


def test_verify_shattering_judges_the_measured_data(monkeypatch, shattering_measured):
    measured = copy.deepcopy(shattering_measured)
    measured["rows"][0]["violated"] = 3      # the wrong measurement: a construction that broke three margins
    monkeypatch.setattr(check_shattering, "measure_shattering", lambda **kwargs: measured)
    report = check_shattering.verify_shattering(quick=True, seed=0)
    statuses = _statuses(report)
    assert statuses["claim1-random-labels"] == "FAIL"
    assert statuses["tight-case-K_{d+1}"] == "PASS"


@pytest.mark.parametrize("module, fixture", [(check_capacity, "capacity_measured"),
                                             (check_shattering, "shattering_measured")])
def test_plot_draws_from_the_measured_data_alone(module, fixture, request):
    measured = request.getfixturevalue(fixture)
    fig = Figure()
    module.plot(fig, measured)
    lines = sum(len(ax.get_lines()) for ax in fig.axes)
    assert len(fig.axes) == 2 and lines > 0


def test_the_report_plot_is_plot_bound_to_the_measurement(monkeypatch, capacity_measured):
    monkeypatch.setattr(check_capacity, "measure_capacity", lambda **kwargs: capacity_measured)
    report = check_capacity.verify_capacity(quick=True, seed=0)
    assert report.plot.func is check_capacity.plot
    assert report.plot.keywords["measured"] is capacity_measured
