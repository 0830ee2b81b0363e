"""Figure specs as typed dataclasses: unknown keys are rejected (naming them), thresholds are fixed in the
spec, and the cost model orders cells longest first."""
import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lgekit.experiments import spec as specs
from lgekit.experiments.figures import CLAIMS, FIGURES
from lgekit.experiments.plan import estimated_cost, expand
from lgekit.experiments.spec import THRESHOLDS, FigureSpec, Override, RecordSpec

TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 200, "n_labels": 5, "seed": 0}}
RECORD_KEYS = "ap_every, exact_diagnostics, f1_epochs, final_train_ap, train_ap"


# ---------------------------------------------------------------------------- unknown keys are errors
@pytest.mark.parametrize("bad", ["ap_evry", "test_ap_every", "train_ap_every", "f1_epoch", "AP_every"])
def test_misspelt_record_key_raises_naming_it_and_the_accepted_keys(bad):
    """A mistyped record key used to turn a metric off silently; now it is an error."""
    message = f"unknown record key '{bad}': accepted are {RECORD_KEYS}"
    with pytest.raises(ValueError, match=re.escape(message)):
        RecordSpec.from_dict({"ap_every": 1, bad: 1})
    with pytest.raises(ValueError, match=re.escape(message)):
        expand(["fig1"], dataset=TINY_DATASET, overrides={"fig1": {"record": {bad: 1}}})
    with pytest.raises(ValueError, match=re.escape(message)):
        expand(["fig1"], dataset=TINY_DATASET, overrides={"*": {"record": {bad: 1}}})
    with pytest.raises(ValueError, match=re.escape(message)):
        RecordSpec().updated({bad: 1})


def test_misspelt_override_part_figure_and_model_parameter_raise():
    with pytest.raises(ValueError, match=re.escape("unknown overrides['fig1'] key 'parms': accepted are grid, note, "
                                                   "params, record")):
        expand(["fig1"], dataset=TINY_DATASET, overrides={"fig1": {"parms": {"epochs": 2}}})
    with pytest.raises(ValueError, match=r"unknown overrides figure key 'fig7': accepted are \*, fig1, .*fig6"):
        expand(["fig1"], dataset=TINY_DATASET, overrides={"fig7": {}})
    # a misspelt model parameter would otherwise run the model's default
    with pytest.raises(ValueError, match=r"fig1: unknown params key 'lamr' for LogisticEmbedding: accepted are "
                                         r"diagnostics, dim, .*lam_r, .*"):
        expand(["fig1"], dataset=TINY_DATASET, overrides={"fig1": {"params": {"lamr": 0.1}}})
    with pytest.raises(ValueError, match=r"fig6: unknown grid key 'dims' for HingeEmbedding: accepted are "):
        expand(["fig6"], dataset=TINY_DATASET, overrides={"fig6": {"grid": {"dims": [10]}}})
    with pytest.raises(ValueError, match="random_state is set from the seeds"):
        expand(["fig6"], dataset=TINY_DATASET, overrides={"fig6": {"params": {"random_state": 3}}})


def test_figure_spec_from_dict_rejects_unknown_keys_and_bad_thresholds():
    base = FIGURES["fig6"].to_dict()
    assert FigureSpec.from_dict(base) == FIGURES["fig6"]  # plain data round trip
    assert FigureSpec.from_dict(FIGURES["fig4"].to_dict()) == FIGURES["fig4"]  # with its note
    with pytest.raises(TypeError, match=r"note must be a str, got int: 3"):
        FigureSpec.from_dict(dict(base, note=3))
    with pytest.raises(ValueError, match=r"unknown figure spec key 'claim': accepted are claims, grid, model, "
                                         r"name, note, paper, params, quick, record, thresholds, title"):
        FigureSpec.from_dict(dict(base, claim=["dcd_insensitive_to_dim"]))
    with pytest.raises(ValueError, match=r"unknown quick key 'epochs': accepted are grid, note, params, record"):
        FigureSpec.from_dict(dict(base, quick={"epochs": 3}))
    with pytest.raises(ValueError, match=r"unknown fig6 threshold key 'min_dims': accepted are insensitive_range, "
                                         r"min_dim, noise_se, sensitive_range"):
        FigureSpec.from_dict(dict(base, thresholds=dict(base["thresholds"], min_dims=30)))
    missing = dict(base["thresholds"])
    del missing["min_dim"]
    with pytest.raises(ValueError, match=r"fig6: thresholds min_dim are missing"):
        FigureSpec.from_dict(dict(base, thresholds=missing))
    with pytest.raises(ValueError, match=r"threshold noise_se must be a finite number, got nan"):
        FigureSpec.from_dict(dict(base, thresholds=dict(base["thresholds"], noise_se=float("nan"))))
    with pytest.raises(ValueError, match=r"unknown claim 'dcd_flat': accepted are "):
        FigureSpec.from_dict(dict(base, claims=["dcd_flat"]))
    with pytest.raises(ValueError, match=r"model must be one of LogisticEmbedding, HingeEmbedding, got 'SVM'"):
        FigureSpec.from_dict(dict(base, model="SVM"))


@pytest.mark.parametrize("record, error, match", [
    ({"ap_every": -1}, ValueError, r"record ap_every must be an int >= 0, got -1"),
    ({"ap_every": 1.5}, ValueError, r"record ap_every must be an int >= 0, got 1.5"),
    ({"ap_every": True}, ValueError, r"record ap_every must be an int >= 0, got True"),
    ({"train_ap": 1, "ap_every": 1}, TypeError, r"record train_ap must be True or False, got int: 1"),
    ({"f1_epochs": "5"}, TypeError, r"record f1_epochs must be a list of ints >= 1, got '5'"),
    ({"f1_epochs": [0, 5]}, ValueError, r"each of record f1_epochs must be an int >= 1, got 0"),
    ({"train_ap": True}, ValueError, r"train_ap=True needs ap_every >= 1"),
])
def test_record_spec_types(record, error, match):
    with pytest.raises(error, match=match):
        RecordSpec.from_dict(record)


_ACCEPTED = {f.name for f in dataclasses.fields(RecordSpec)}


@given(st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 3), min_size=1, max_size=4))
def test_any_unknown_record_key_is_named(mapping):
    unknown = [k for k in mapping if k not in _ACCEPTED]
    if not unknown:
        return
    with pytest.raises(ValueError) as info:
        RecordSpec.from_dict(mapping)
    assert f"unknown record key {unknown[0]!r}: accepted are {RECORD_KEYS}" == str(info.value)


@given(ap_every=st.integers(0, 5), train=st.booleans(), final=st.booleans(),
       f1=st.lists(st.integers(1, 60), max_size=6))
def test_record_spec_round_trips_and_normalises(ap_every, train, final, f1):
    train = train and ap_every > 0
    spec = RecordSpec.from_dict({"ap_every": ap_every, "train_ap": train, "final_train_ap": final, "f1_epochs": f1})
    assert spec.f1_epochs == tuple(sorted(set(f1)))
    assert RecordSpec.from_dict(spec.to_dict()) == spec
    assert specs.merge_records(spec, RecordSpec()) == spec


def test_overrides_are_typed_too():
    assert Override.from_dict({"params": {"epochs": 2}}).params == {"epochs": 2}
    with pytest.raises(ValueError, match=r"grid 'dim' must be a non-empty list of values, got \[\]"):
        Override.from_dict({"grid": {"dim": []}})
    with pytest.raises(TypeError, match=r"override params must be a dict, got \[1\]"):
        Override.from_dict({"params": [1]})


def test_a_misspelt_override_used_to_run_silently_now_every_metric_is_recorded():
    """The metric asked for is the metric recorded: the cell's record carries exactly the spec's fields."""
    plan = expand(["fig5"], dataset=TINY_DATASET, quick=True, overrides={"*": {"record": {"ap_every": 2}}})
    for config in plan.cells.values():
        assert config["record"] == {"ap_every": 2, "train_ap": True, "final_train_ap": True, "f1_epochs": []}
        assert config["schema"] == specs.SCHEMA_VERSION


# ---------------------------------------------------------------------------- thresholds in the spec
def test_every_claim_has_its_thresholds_in_its_figure_spec_and_described():
    assert {claim for spec in FIGURES.values() for claim in spec.claims} == set(CLAIMS)
    for name, spec in FIGURES.items():
        needed = {t for claim in spec.claims for t in CLAIMS[claim].reads}
        assert set(spec.thresholds) == needed, name
        for claim in spec.claims:
            assert CLAIMS[claim].figure == name
    assert {t for claim in CLAIMS.values() for t in claim.reads} == set(THRESHOLDS)
    assert all(THRESHOLDS.values())


def test_plan_json_holds_the_specs_thresholds():
    import json

    plan = expand(["fig4", "fig6"], dataset=TINY_DATASET, quick=True)
    data = json.loads(json.dumps(plan.to_dict()))
    assert data["specs"]["fig4"]["thresholds"]["dims_above"] == 10
    assert data["specs"]["fig6"]["thresholds"]["min_dim"] == 30
    assert data["specs"]["fig4"]["record"]["f1_epochs"] == []


# ---------------------------------------------------------------------------- cost model
def _config(model="LogisticEmbedding", dim=100, epochs=50, ap_every=1, f1=(), negatives=4):
    return {"model": model, "params": {"dim": dim, "epochs": epochs},
            "record": {"ap_every": ap_every, "f1_epochs": list(f1)},
            "split": {"test_fraction": 0.2, "negatives_per_positive": negatives}}


@given(model=st.sampled_from(["LogisticEmbedding", "HingeEmbedding"]), dim=st.integers(1, 2000),
       epochs=st.integers(1, 100), more=st.integers(1, 500))
def test_cost_grows_with_dimension_epochs_pairs_and_evaluations(model, dim, epochs, more):
    c = estimated_cost(_config(model, dim, epochs))
    assert estimated_cost(_config(model, dim + more, epochs)) > c
    assert estimated_cost(_config(model, dim, epochs + more)) > c
    assert estimated_cost(_config(model, dim, epochs, negatives=4 + more)) > c
    assert estimated_cost(_config(model, dim, epochs, f1=(1, 2))) > c
    assert estimated_cost(_config(model, dim, epochs, ap_every=0)) < c


def test_cost_ranks_the_papers_long_cells_first():
    plan = expand(dataset=TINY_DATASET, seeds=1)
    by = {}
    for name, entries in plan.figures.items():
        for e in entries:
            by[(name, e.get("lam_r"), e.get("dim"))] = estimated_cost(plan.cells[e["key"]])
    # Fig. 6's largest D and Fig. 4's D = 300 are the long ones; D = 5 SGD is among the shortest
    assert by[("fig6", None, 1600)] > by[("fig6", None, 1000)] > by[("fig4", 0.0, 300)] > by[("fig4", 0.0, 30)]
    assert by[("fig4", 0.0, 30)] > by[("fig4", 0.0, 5)]
    # the D = 100 runs that also compute F1 for Fig. 3 cost more than Fig. 4's D = 30 runs
    assert by[("fig3", 0.0, None)] > by[("fig4", 0.0, 30)]
    assert min(by.values()) == by[("fig4", 0.0, 5)]
