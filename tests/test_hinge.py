"""HingeEmbedding: the estimator around the DCD kernel (fast tests, small graphs)."""
import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone

from lgekit import Graph, HingeEmbedding, split_edges
from lgekit.models import BaseEmbedding, DivergenceError
from lgekit.models._node_vectors import NodeVectors
from lgekit.models.hinge import pair_csr

PER_EPOCH_KEYS = {"epoch", "seconds", "objective", "loss_pos", "loss_neg", "reg", "mean_norm", "diverged",
                  "duality_gap", "max_violation", "n_alpha_zero", "n_alpha_free", "n_alpha_bound"}


def planted_graph(n=120, k=4, p_in=0.25, p_out=0.01, seed=0):
    g = nx.planted_partition_graph(k, n // k, p_in, p_out, seed=seed)
    return Graph.from_networkx(g)


@pytest.fixture(scope="module")
def split():
    return split_edges(planted_graph(), seed=0)


def objective_numpy(X, model, split):
    X = X.astype(np.float64)
    pos, neg = split.train_positives, split.train_negatives
    w = split.train_graph.edge_weights()
    sp = np.einsum("ij,ij->i", X[pos[:, 0]], X[pos[:, 1]])
    sn = np.einsum("ij,ij->i", X[neg[:, 0]], X[neg[:, 1]])
    loss_pos = model.lam_pos * np.sum(w * np.maximum(0, 1 - sp))
    loss_neg = model.lam_neg * np.sum(np.maximum(0, 1 + sn))
    reg = model.lam_r / 2 * np.sum(X * X)
    return loss_pos, loss_neg, reg


def test_is_one_base_subclass():
    assert issubclass(HingeEmbedding, BaseEmbedding)
    for name in ("fit", "partial_fit", "transform", "score_pairs", "save", "load", "to_word2vec"):
        # inherited, not copied: training from the base, the fitted vectors' exits from its NodeVectors part
        defined_in = next(c for c in HingeEmbedding.__mro__ if name in vars(c))
        assert defined_in is (BaseEmbedding if name in ("fit", "partial_fit") else NodeVectors), (name, defined_in)


def test_history_diagnostics_are_consistent(split):
    model = HingeEmbedding(dim=16, lam_r=1.0, epochs=4, dtype="float64", random_state=0).fit(split)
    assert len(model.history_) == model.n_iter_ == 4
    n_entries = 2 * (len(split.train_positives) + len(split.train_negatives))
    for r in model.history_:
        assert PER_EPOCH_KEYS <= set(r)
        assert r["objective"] == pytest.approx(r["loss_pos"] + r["loss_neg"] + r["reg"], rel=1e-12)
        assert r["n_alpha_zero"] + r["n_alpha_free"] + r["n_alpha_bound"] == n_entries
        assert r["duality_gap"] >= -1e-9 and r["max_violation"] >= 0
    # the last record describes the returned embedding
    lp, ln, reg = objective_numpy(model.embedding_, model, split)
    last = model.history_[-1]
    assert last["loss_pos"] == pytest.approx(lp, rel=1e-10)
    assert last["loss_neg"] == pytest.approx(ln, rel=1e-10)
    assert last["reg"] == pytest.approx(reg, rel=1e-10)
    assert last["mean_norm"] == pytest.approx(np.linalg.norm(model.embedding_, axis=1).mean(), rel=1e-10)
    alpha, upper = model.dual_coef_, model.pair_csr_.upper
    assert np.all((alpha >= 0) & (alpha <= upper))
    assert last["n_alpha_bound"] == np.count_nonzero(alpha == upper)


@pytest.mark.parametrize("schedule, n_threads", [("deterministic", 1), ("deterministic", 3), ("hogwild", 1)])
def test_without_diagnostics_the_same_embedding_and_the_counts_alone(split, schedule, n_threads):
    """diagnostics=False: no objective and no certificates (the epoch computes none: without the safeguard
    they would cost a dot product per pair), the same embedding and duals, the same counts."""
    params = dict(dim=12, lam_r=1.0, epochs=3, dtype="float64", random_state=0, schedule=schedule, n_threads=n_threads)
    full = HingeEmbedding(**params).fit(split)
    lean = HingeEmbedding(**params, diagnostics=False).fit(split)
    np.testing.assert_array_equal(lean.embedding_, full.embedding_)
    np.testing.assert_array_equal(lean.dual_coef_, full.dual_coef_)
    objective_keys = {"objective", "loss_pos", "loss_neg", "reg", "objective_se", "loss_pos_se", "loss_neg_se",
                      "duality_gap", "duality_gap_se", "max_violation"}
    for a, b in zip(lean.history_, full.history_):
        assert not objective_keys & set(a) and objective_keys <= set(b)
        assert {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items()
                                                                 if k not in objective_keys | {"seconds"}}
    # switched on between calls, the next record has the objective again (a setting, not a rebuild)
    lean.set_params(diagnostics=True).partial_fit(split)
    assert objective_keys <= set(lean.history_[-1])


def test_x_u_is_the_dual_combination_of_its_partners(split):
    # after a sequential epoch the last vertex visited satisfies x_u = sum alpha s x_v exactly
    # (no neighbour moved after it); in general x_u was built from the neighbours of its visit
    model = HingeEmbedding(dim=8, lam_r=1.0, epochs=2, dtype="float64", schedule="hogwild", random_state=3)
    model.fit(split)
    csr, X, a = model.pair_csr_, model.embedding_, model.dual_coef_
    # rebuild every x_u from the duals and the final vectors: vertices whose partners were all
    # visited before them in the last epoch must match; count them to keep the test honest
    order = model.solver_.epoch_order(1).order
    position = np.empty(len(order), int)
    position[order] = np.arange(len(order))
    checked = 0
    for u in range(X.shape[0]):
        ks = np.arange(csr.indptr[u], csr.indptr[u + 1])
        if len(ks) and np.all(position[csr.nbr[ks]] < position[u]):
            w = (a[ks] * csr.sign[ks]) @ X[csr.nbr[ks]]
            np.testing.assert_allclose(X[u], w, rtol=1e-12, atol=1e-12)
            checked += 1
    assert checked >= 1


def test_many_inner_passes_solve_each_block(split):
    model = HingeEmbedding(dim=8, lam_r=1.0, epochs=3, inner_passes=2000, tol=1e-9, dtype="float64",
                           random_state=0).fit(split)
    for r in model.history_:
        assert r["max_violation"] <= 1e-6          # LIBLINEAR's rule stops at 1e-9 seen during the pass
        assert abs(r["duality_gap"]) <= 1e-6


def test_objective_not_increasing_with_exact_blocks(split):
    # exact block minimisation is plain block coordinate descent: L never increases
    model = HingeEmbedding(dim=8, lam_r=1.0, epochs=6, inner_passes=2000, tol=1e-10, dtype="float64",
                           random_state=1).fit(split)
    obj = [r["objective"] for r in model.history_]
    assert np.all(np.diff(obj) <= 1e-8 * np.abs(obj[1:]))


def test_same_seed_same_model_and_different_seed_differs(split):
    a = HingeEmbedding(dim=8, epochs=3, random_state=7).fit(split)
    b = HingeEmbedding(dim=8, epochs=3, random_state=7).fit(split)
    c = HingeEmbedding(dim=8, epochs=3, random_state=8).fit(split)
    assert np.array_equal(a.embedding_, b.embedding_)
    assert np.array_equal(a.dual_coef_, b.dual_coef_)
    assert not np.array_equal(a.embedding_, c.embedding_)
    h = HingeEmbedding(dim=8, epochs=3, schedule="hogwild", random_state=7)
    assert np.array_equal(h.fit(split).embedding_, clone(h).fit(split).embedding_)


def strip_seconds(history):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in history]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_deterministic_schedule_identical_for_any_thread_count(dtype):
    data = split_edges(planted_graph(n=400, p_in=0.1, seed=2), seed=1)
    fits = [HingeEmbedding(dim=12, epochs=3, inner_passes=2, dtype=dtype, n_threads=t, random_state=5).fit(data)
            for t in (1, 2, 3)]
    for other in fits[1:]:
        assert np.array_equal(fits[0].embedding_, other.embedding_)
        assert np.array_equal(fits[0].dual_coef_, other.dual_coef_)
        assert strip_seconds(fits[0].history_) == strip_seconds(other.history_)
    assert fits[0].solver_.n_colors > 1


def test_partial_fit_continues_exactly(split):
    full = HingeEmbedding(dim=8, epochs=5, random_state=2).fit(split)
    part = HingeEmbedding(dim=8, epochs=3, random_state=2).fit(split)
    part.partial_fit(split, epochs=2)
    assert part.n_iter_ == 5
    assert np.array_equal(full.embedding_, part.embedding_)
    assert strip_seconds(full.history_) == strip_seconds(part.history_)


def test_save_load_keeps_the_duals_and_continues_exactly(split, tmp_path):
    full = HingeEmbedding(dim=8, epochs=4, random_state=4).fit(split)
    part = HingeEmbedding(dim=8, epochs=2, random_state=4).fit(split)
    part.save(tmp_path / "m.npz")
    loaded = HingeEmbedding.load(tmp_path / "m.npz")
    assert isinstance(loaded, HingeEmbedding) and loaded.get_params() == part.get_params()
    np.testing.assert_array_equal(loaded.dual_coef_, part.dual_coef_)
    loaded.partial_fit(split, epochs=2)
    assert np.array_equal(loaded.embedding_, full.embedding_)


def test_graph_networkx_and_scipy_inputs():
    g = nx.karate_club_graph()
    a = HingeEmbedding(dim=4, epochs=2, random_state=0).fit(g)
    b = HingeEmbedding(dim=4, epochs=2, random_state=0).fit(Graph.from_networkx(g, weight="weight"))
    assert np.array_equal(a.embedding_, b.embedding_)
    c = HingeEmbedding(dim=4, epochs=2, random_state=0).fit(nx.to_scipy_sparse_array(g, weight=None))
    assert c.embedding_.shape == (34, 4)
    # weighted karate: the weights enter the box bounds
    pos = a.pair_csr_.sign > 0
    assert len(np.unique(a.pair_csr_.upper[pos])) > 1


def test_score_pairs_and_transform(split):
    model = HingeEmbedding(dim=6, epochs=2, random_state=0).fit(split)
    pairs = split.test_positives[:5]
    ids = model.node_ids_[pairs]
    X = model.embedding_.astype(np.float64)
    np.testing.assert_allclose(model.score_pairs(ids), np.sum(X[pairs[:, 0]] * X[pairs[:, 1]], axis=1),
                               rtol=1e-6)
    assert model.transform(ids[:, 0]).shape == (5, 6)


def test_callbacks_and_early_stopping(split):
    from lgekit.callbacks import EarlyStopping, LinkPredictionCallback
    model = HingeEmbedding(dim=8, epochs=6, lam_r=1.0, random_state=0)
    model.fit(split, callbacks=[LinkPredictionCallback(split), EarlyStopping("test_ap", patience=2)])
    assert all("test_ap" in r for r in model.history_)
    chance = len(split.test_positives) / (len(split.test_positives) + len(split.test_negatives))
    # a random ranking has AP ~ chance (0.2 here, sd ~0.02 with ~100 test edges); the planted
    # communities are learnable, though this small graph is hard for every model (SGD: ~0.5)
    assert max(r["test_ap"] for r in model.history_) > 1.5 * chance


def test_divergence_is_reported_not_crashed():
    g = nx.karate_club_graph()
    # Algorithm 1 as printed (no safeguard) can diverge; the default cannot (tests/test_dcd_inner_order.py)
    model = HingeEmbedding(dim=8, lam_r=1e-3, epochs=30, random_state=0, inner_order="random", monotone=False)
    with pytest.raises(DivergenceError, match=r"diverged at epoch \d+.*lam_r") as info:
        model.fit(g)
    err = info.value
    assert isinstance(err, FloatingPointError)
    assert 0 <= err.epoch < 30 and len(err.history) == err.epoch + 1
    assert err.history[-1]["diverged"] and not any(r["diverged"] for r in err.history[:-1])
    assert model.history_[-1]["diverged"]
    # the same settings with a reasonable lam_r train fine: a sweep survives
    model.set_params(lam_r=1.0).fit(g)
    assert not model.history_[-1]["diverged"]


def test_pair_csr_layout_keeps_every_occurrence():
    pos = np.array([[0, 1], [1, 2]])
    neg = np.array([[0, 2], [2, 0], [1, 0]])             # a repeat (reversed) and an edge as a negative
    csr = pair_csr(3, pos, neg, positive_weights=[2.0, 1.0], lam_pos=1.0, lam_neg=0.5, lam_r=2.0)
    assert csr.indptr.tolist() == [0, 4, 7, 10]
    assert csr.nbr[:4].tolist() == [1, 1, 2, 2] and csr.sign[:4].tolist() == [1, -1, -1, -1]
    assert csr.upper[:4].tolist() == [1.0, 0.25, 0.25, 0.25]
    with pytest.raises(ValueError, match="self-pairs"):
        pair_csr(3, pos, np.array([[1, 1]]))
    with pytest.raises(ValueError, match=r"indices in \[0, 3\)"):
        pair_csr(3, pos, np.array([[1, 3]]))


@pytest.mark.parametrize("params,err,match", [
    (dict(lam_r=0.0), ValueError, "lam_r must be a finite number > 0"),
    (dict(lam_r=-1.0), ValueError, "lam_r"),
    (dict(inner_passes=0), ValueError, "inner_passes"),
    (dict(inner_passes=1.5), TypeError, "inner_passes"),
    (dict(tol=-1.0), ValueError, "tol"),
    (dict(tol="a"), TypeError, "tol"),
    (dict(dim=0), ValueError, "dim"),
    (dict(schedule="random"), ValueError, "schedule"),
    (dict(dtype="int8"), ValueError, "dtype"),
    (dict(n_threads=0), ValueError, "n_threads"),
    (dict(n_threads=100000), ValueError, r"n_threads must be an int in \[1, \d+\] .*got 100000"),  # was a segfault
])
def test_bad_parameters(params, err, match):
    with pytest.raises(err, match=match):
        HingeEmbedding(**params).fit(nx.path_graph(4))


def test_edge_cases():
    with pytest.raises(ValueError, match="no edges"):
        HingeEmbedding().fit(nx.empty_graph(3))
    g = nx.path_graph(5)
    g.add_node(99)                                        # isolated: only negative pairs
    model = HingeEmbedding(dim=3, epochs=2, random_state=0).fit(g)
    assert np.all(np.isfinite(model.embedding_))
    assert model.history_[-1]["duality_gap"] >= -1e-9
