"""LogisticEmbedding on BlogCatalog reproduces the paper's Section 3.2 behaviour (slow).

Setting of the paper (Figures 1-3): 80/20 edge split, D=100, 4 uniform negatives per edge,
lam_pos=1, lam_neg=0.03, edge order, lr=1, lr_offset=1, 50 epochs, init uniform in [-0.1, 0.1].
Three fits share one split: lam_r = 0 (no regularisation), 0.6 (the paper's good value) and 3.

What the paper shows and we assert:
* with lam_r = 0.6 the best test AP is at least 0.87;
* with lam_r = 0 the model overfits: test AP peaks within the first 20 epochs and ends at least
  0.03 below its peak, while the training AP exceeds 0.97, and the average norm keeps rising
  with shrinking increments (Figure 2: the norm keeps growing, more and more slowly);
* larger lam_r gives smaller final norms.
"""
import numpy as np
import pytest

import lgekit
from lgekit.callbacks import LinkPredictionCallback
from lgekit.metrics import average_precision

pytestmark = pytest.mark.slow

EPOCHS = 50


@pytest.fixture(scope="module")
def split(data_dir):
    graph = lgekit.datasets.load("blogcatalog", data_home=data_dir)
    return lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=0)


def _fit(split, lam_r, track):
    model = lgekit.LogisticEmbedding(dim=100, lam_pos=1.0, lam_neg=0.03, lam_r=lam_r, epochs=EPOCHS, lr=1.0,
                                     lr_offset=1.0, init_scale=0.1, order="edge", random_state=0,
                                     n_threads=1)  # reproducible bit for bit
    callbacks = [LinkPredictionCallback(split, train=False)] if track else []
    model.fit(split, callbacks=callbacks)
    model.final_train_ap_ = average_precision(model.embedding_, split.train_positives, split.train_negatives)
    return model


@pytest.fixture(scope="module")
def fits(split):
    return {lam_r: _fit(split, lam_r, track=lam_r in (0.0, 0.6)) for lam_r in (0.0, 0.6, 3.0)}


def _report(model):
    h = model.history_
    return "  ".join(f"{r['epoch']}:{r.get('test_ap', float('nan')):.4f}/{r['mean_norm']:.3f}" for r in h)


def test_regularised_model_reaches_paper_ap(fits):
    model = fits[0.6]
    test_ap = np.array([r["test_ap"] for r in model.history_])
    assert test_ap.max() >= 0.87, _report(model)
    # with lam_r = 0.6 there is no overfitting collapse: the end is within 0.01 of the best
    assert test_ap[-1] >= test_ap.max() - 0.01, _report(model)


def test_unregularised_model_overfits(fits):
    model = fits[0.0]
    test_ap = np.array([r["test_ap"] for r in model.history_])
    peak = int(np.argmax(test_ap))
    assert peak < 20, _report(model)
    assert test_ap[-1] <= test_ap[peak] - 0.03, _report(model)
    assert model.final_train_ap_ > 0.97, (model.final_train_ap_, _report(model))
    # and the regularised model generalises better at the end
    assert fits[0.6].history_[-1]["test_ap"] > test_ap[-1] + 0.03


def test_unregularised_norm_keeps_rising_with_shrinking_increments(fits):
    norms = np.array([r["mean_norm"] for r in fits[0.0].history_])
    steps = np.diff(norms)
    assert np.all(steps[1:] > 0), steps  # rising after the first epoch (epoch 0 -> 1 may settle the init)
    # shrinking increments: the mean increment of each third of the run (after the first epoch) is
    # below the previous third's.  (Thirds, not blocks of 10 epochs: between epochs 10 and 30 the
    # norm grows almost linearly, and the means of those two blocks differ by a few percent, in an
    # order that depends on the seed: 0.0394 < 0.0403 with random_state=0 and this build, the
    # other way round with seeds 1 and 2; the thirds were 0.106 > 0.040 > 0.029 with all three.)
    third = (len(steps) - 1) // 3
    thirds = [steps[1 + k * third:1 + (k + 1) * third].mean() for k in range(3)]
    assert thirds[0] > thirds[1] > thirds[2], thirds
    assert norms[-1] > 1.5 * norms[0]


def test_larger_lam_r_gives_smaller_norms(fits):
    final = [fits[lam_r].history_[-1]["mean_norm"] for lam_r in (0.0, 0.6, 3.0)]
    assert final[0] > final[1] > final[2], final


def test_diagnostics_are_consistent(fits):
    for model in fits.values():
        h = model.history_
        assert len(h) == EPOCHS and model.n_iter_ == EPOCHS
        assert not any(r["diverged"] for r in h)
        assert h[-1]["mean_norm"] == pytest.approx(np.linalg.norm(model.embedding_, axis=1).mean(), rel=1e-6)
        # the objective is computed on the training pairs: it decreases overall
        assert h[-1]["objective"] < h[0]["objective"]
        # the Eq. 4 gradient norm shrinks as SGD converges with a decaying step
        assert h[-1]["mean_grad_norm"] < h[0]["mean_grad_norm"]
