"""benchmarks/bench_time_to_quality.py measures what it says (issues 44 and 46): the early-stopping and CV rows
stop on their validation split, never on the test AP that times them; "AP kept" is the fitted model's test AP,
read after the fit, not the best the curve saw; the summary sets each variant against its own model's default."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import lgekit
from lgekit.datasets import planted_partition_graph

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_time_to_quality.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_time_to_quality", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def split():
    return lgekit.split_edges(planted_partition_graph(n_nodes=300, n_labels=4, seed=1), test_fraction=0.2, seed=0)


def test_the_rows_are_the_models_with_early_stopping_and_the_cv_estimators(bench):
    configs = bench.early_stopping_configs()
    assert configs["SGD, early stopping"] == (lgekit.LogisticEmbedding, {"early_stopping": True})
    assert configs["DCD, early stopping"] == (lgekit.HingeEmbedding, {"early_stopping": True})
    assert configs["SGD CV"] == (lgekit.LogisticEmbeddingCV, {}) and configs["DCD CV"] == (lgekit.HingeEmbeddingCV, {})
    assert {bench.family(name) for name in configs} == {"SGD", "DCD"}


@pytest.mark.parametrize("name", ["SGD, early stopping", "DCD, early stopping", "SGD CV"])
def test_the_timer_reads_the_test_ap_but_never_decides_the_stop(bench, split, name):
    """The same fit without the timing callback runs the same epochs to the same tables: the wrong version, a
    timer that stops a fit once its test AP falls, would change both."""
    cls, params = bench.early_stopping_configs()[name]
    run = bench.timed_fit(cls, {**params, "dim": 16}, split, 1)
    plain = cls(random_state=0, n_threads=1, dim=16, **params).fit(split)
    assert run.epochs == bench.epochs_run(plain)
    assert run.kept == lgekit.metrics.average_precision(plain.embedding_, split.test_positives, split.test_negatives)
    assert len(run.curve) == (plain.epochs_ if hasattr(plain, "epochs_") else plain.n_iter_)


def test_ap_kept_is_the_fitted_models_not_the_best_the_curve_saw(bench, split):
    cls, params = bench.early_stopping_configs()["SGD, early stopping"]
    run = bench.timed_fit(cls, {**params, "dim": 16}, split, 1)
    aps = [ap for _, ap in run.curve]
    kept_epoch = int(run.epochs.split("epoch ")[1].split()[0])
    # the model holds the tables of the epoch its validation AP chose: that epoch's test AP, bit for bit ...
    assert run.kept == aps[kept_epoch]
    # ... which on this graph is not the curve's best (the wrong version, max(curve), reads the test split to
    # choose the epoch) nor its last (the epochs run after the best are undone)
    assert run.kept < max(aps) and kept_epoch != int(np.argmax(aps)) and kept_epoch < len(aps) - 1
    assert run.seconds >= run.curve[-1][0]


def test_each_variant_is_set_against_its_own_models_default(bench):
    def runs(kept, seconds):
        return [bench.Run([(seconds, kept)], seconds, kept, "x")] * 3
    found = bench.against_defaults("g", {("SGD", 1): runs(0.80, 1.0), ("DCD", 1): runs(0.70, 4.0),
                                         ("SGD, early stopping", 1): runs(0.79, 0.5),
                                         ("DCD CV", 1): runs(0.72, 8.0)}, 1)
    assert "| g | SGD, early stopping | x | 0.7900 (-0.0100) | 0.50 (0.50x) |" in found
    # the wrong version, against the other model's (or the first) default, would give +0.0200 and 8.00x
    assert "| g | DCD CV | x | 0.7200 (+0.0200) | 8.00 (2.00x) |" in found


def test_a_level_never_reached_reads_as_a_dash(bench):
    curve = [(0.1, 0.5), (0.2, 0.7)]
    assert bench.time_to(curve, 0.6) == 0.2 and np.isnan(bench.time_to(curve, 0.9))
    assert bench.epoch_to(curve, 0.9) == "-" and bench._fmt(bench.time_to(curve, 0.9)) == "-"


def test_a_timer_that_stopped_on_the_test_ap_would_be_caught(bench, split, monkeypatch):
    """The wrong version of the timer: it stops the fit the first time the test AP falls.  The check above
    (same epochs and tables as a fit without the timer) fails on it."""
    class Stopping(bench.TestAPTimer):
        def on_epoch_end(self, model, epoch, record):
            super().on_epoch_end(model, epoch, record)
            return len(self.curve) > 1 and self.curve[-1][1] < self.curve[-2][1]

    monkeypatch.setattr(bench, "TestAPTimer", Stopping)
    cls, params = bench.early_stopping_configs()["SGD, early stopping"]
    run = bench.timed_fit(cls, {**params, "dim": 16}, split, 1)
    plain = cls(random_state=0, n_threads=1, dim=16, **params).fit(split)
    assert run.epochs != bench.epochs_run(plain)


def test_the_early_stopping_cost_runs_on_a_real_graph(bench, data_dir, monkeypatch):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    found = bench.early_stopping_cost("email-eu-core", rounds=1, epochs=2)
    assert list(found) == ["validation_split", "SGD, 2 epochs", "SGD, 2 epochs, early stopping", "DCD, 2 epochs",
                           "DCD, 2 epochs, early stopping"]
    assert all(np.isfinite(v) and v >= 0 for v in found.values())
