"""Callbacks: hooks order, record fields, stopping, restoring the best embedding."""
import numpy as np
import pytest

import lgekit
from lgekit import LogisticEmbedding
from lgekit.callbacks import Callback, EarlyStopping, LinkPredictionCallback, NodeClassificationCallback
from lgekit.metrics import average_precision


@pytest.fixture(scope="module")
def labelled_graph():
    rng = np.random.default_rng(0)
    n, k = 80, 4
    block = np.repeat(np.arange(k), n // k)
    edges = [(u, v) for u in range(n) for v in range(u + 1, n)
             if rng.random() < (0.3 if block[u] == block[v] else 0.02)]
    return lgekit.Graph.from_edges(np.array(edges), nodes=n, labels={i: [int(block[i])] for i in range(n)})


@pytest.fixture(scope="module")
def split(labelled_graph):
    return lgekit.split_edges(labelled_graph, test_fraction=0.2, seed=1)


class Recorder(Callback):
    def __init__(self, stop_after=None, values=None):
        self.events = []
        self.stop_after = stop_after
        self.values = values

    def on_train_begin(self, model):
        self.events.append("begin")

    def on_epoch_end(self, model, epoch, record):
        self.events.append(epoch)
        if self.values is not None:
            record["score"] = self.values[epoch]
            record["snapshot"] = model.embedding_.copy()
        return self.stop_after is not None and epoch >= self.stop_after

    def on_train_end(self, model):
        self.events.append("end")


def model(**kw):
    kw.setdefault("dim", 8)
    kw.setdefault("epochs", 6)
    kw.setdefault("lam_r", 0.1)
    kw.setdefault("random_state", 0)
    return LogisticEmbedding(**kw)


def test_hooks_order_and_stop(split):
    rec = Recorder(stop_after=2)
    m = model().fit(split, callbacks=[rec])
    assert rec.events == ["begin", 0, 1, 2, "end"]
    assert m.n_iter_ == 3 and len(m.history_) == 3


def test_link_prediction_callback_values(split):
    m = model(epochs=4).fit(split, callbacks=[LinkPredictionCallback(split)])
    for r in m.history_:
        assert 0 <= r["train_ap"] <= 1 and 0 <= r["test_ap"] <= 1
    last = m.history_[-1]
    assert last["test_ap"] == average_precision(m.embedding_, split.test_positives, split.test_negatives)
    assert last["train_ap"] == average_precision(m.embedding_, split.train_positives, split.train_negatives)
    # a planted-partition graph: the embedding separates edges from non-edges well above chance (0.2)
    assert last["test_ap"] > 0.4


def test_link_prediction_every_k_and_last_epoch(split):
    m = model(epochs=5).fit(split, callbacks=[LinkPredictionCallback(split, every=2, train=False)])
    has = [("test_ap" in r, "train_ap" in r) for r in m.history_]
    assert has == [(False, False), (True, False), (False, False), (True, False), (True, False)]


def test_link_prediction_heldout_name_for_validation_splits(split):
    m = model(epochs=2).fit(split, callbacks=[LinkPredictionCallback(split, train=False, heldout_name="val")])
    assert all("val_ap" in r and "test_ap" not in r for r in m.history_)
    stopper = EarlyStopping(monitor="val_ap", patience=1)
    model(epochs=3).fit(split, callbacks=[LinkPredictionCallback(split, heldout_name="val"), stopper])
    with pytest.raises(ValueError, match="heldout_name"):
        LinkPredictionCallback(split, heldout_name="val ap")


def test_node_classification_callback(labelled_graph, split):
    cb = NodeClassificationCallback(labelled_graph, every=3)
    m = model(epochs=6).fit(split, callbacks=[cb])
    keyed = [r["epoch"] for r in m.history_ if "micro_f1" in r]
    assert keyed == [2, 5]
    last = m.history_[-1]
    assert 0 <= last["macro_f1"] <= 1 and 0 <= last["micro_f1"] <= 1
    # four equal blocks: chance micro-F1 is 0.25; the embedding recovers the blocks
    assert last["micro_f1"] > 0.5


def test_early_stopping_restores_best(split):
    values = [0.1, 0.5, 0.4, 0.3, 0.2, 0.9]
    rec = Recorder(values=values)
    stop = EarlyStopping(monitor="score", patience=3, restore_best=True)
    m = model(epochs=6).fit(split, callbacks=[rec, stop])
    # best at epoch 1, then three epochs without improvement: stops after epoch 4
    assert stop.best_epoch_ == 1 and stop.best_value_ == 0.5 and stop.stopped_epoch_ == 4
    assert m.n_iter_ == 5
    assert np.array_equal(m.embedding_, m.history_[1]["snapshot"])
    assert m.best_epoch_ == 1


def test_early_stopping_restores_hinge_duals_with_the_embedding(split):
    from lgekit import HingeEmbedding

    class DualRecorder(Recorder):
        def on_epoch_end(self, model, epoch, record):
            record["duals"] = model.dual_coef_.copy()
            return super().on_epoch_end(model, epoch, record)

    values = [0.1, 0.5, 0.4, 0.3, 0.2, 0.9]
    stop = EarlyStopping(monitor="score", patience=3, restore_best=True)
    m = HingeEmbedding(dim=8, lam_r=3.0, epochs=6, random_state=0).fit(split, callbacks=[DualRecorder(values=values),
                                                                                       stop])
    assert stop.best_epoch_ == 1 and m.n_iter_ == 5
    assert np.array_equal(m.embedding_, m.history_[1]["snapshot"])
    # the duals are those of the best epoch too (they moved afterwards), so partial_fit continues from there
    assert not np.array_equal(m.history_[1]["duals"], m.history_[4]["duals"])
    assert np.array_equal(m.dual_coef_, m.history_[1]["duals"])


def test_early_stopping_min_mode_without_restore(split):
    values = [5.0, 4.0, 4.5, 4.6, 3.0, 3.5]
    rec = Recorder(values=values)
    stop = EarlyStopping(monitor="score", mode="min", patience=2, restore_best=False)
    m = model(epochs=6).fit(split, callbacks=[rec, stop])
    assert stop.best_epoch_ == 1 and stop.stopped_epoch_ == 3
    assert np.array_equal(m.embedding_, m.history_[-1]["snapshot"])


def test_early_stopping_on_model_field(split):
    stop = EarlyStopping(monitor="objective", mode="min", patience=2)
    m = model(epochs=4).fit(split, callbacks=[stop])
    assert stop.best_epoch_ is not None and m.n_iter_ >= 1


def test_early_stopping_warns_when_field_missing(split):
    with pytest.warns(RuntimeWarning, match="no record had the field 'val_ap'"):
        model(epochs=2).fit(split, callbacks=[EarlyStopping()])


@pytest.mark.parametrize("kwargs, match", [
    (dict(patience=0), "patience must be an int >= 1, got 0"),
    (dict(mode="best"), "mode must be 'max' or 'min', got 'best'"),
    (dict(min_delta=-1.0), "min_delta must be a finite number >= 0, got -1.0"),
])
def test_early_stopping_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        EarlyStopping(**kwargs)


def test_bad_callback_parameters(labelled_graph, split):
    with pytest.raises(ValueError, match="every must be an int >= 1, got 0"):
        LinkPredictionCallback(split, every=0)
    with pytest.raises(TypeError, match="split must be an EdgeSplit"):
        LinkPredictionCallback(labelled_graph)
    with pytest.raises(ValueError, match="train_ratio must be a number in"):
        NodeClassificationCallback(labelled_graph, train_ratio=1.5)
    unlabelled = lgekit.Graph.from_edges([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="has no node labels"):
        NodeClassificationCallback(unlabelled)


def test_link_prediction_train_sample_is_fixed_and_proportional(split):
    cb = LinkPredictionCallback(split, train_sample=40, seed=3)
    pos, neg = cb._train_sample()
    assert len(pos) + len(neg) == 40
    ratio = len(split.train_positives) / (len(split.train_positives) + len(split.train_negatives))
    assert abs(len(pos) / 40 - ratio) <= 1 / 40 + 1e-12
    # drawn once: every epoch ranks the same pairs, and the same seed gives the same sample
    assert cb._train_sample()[0] is pos
    again = LinkPredictionCallback(split, train_sample=40, seed=3)._train_sample()
    assert np.array_equal(again[0], pos) and np.array_equal(again[1], neg)
    m = model(epochs=2).fit(split, callbacks=[cb])
    assert m.history_[-1]["train_ap"] == average_precision(m.embedding_, pos, neg)


def test_link_prediction_records_its_time(split):
    m = model(epochs=2).fit(split, callbacks=[LinkPredictionCallback(split)])
    assert all(r["eval_seconds"] > 0 for r in m.history_)


@pytest.mark.parametrize("bad", [0, 1, -5, 2.5, True, "all"])
def test_link_prediction_train_sample_validated(split, bad):
    with pytest.raises(ValueError, match="train_sample"):
        LinkPredictionCallback(split, train_sample=bad)
