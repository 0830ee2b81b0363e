"""The solver objects (issue #15, item 3) and the preparation kernels they are built with (issue #14, item 2).

``model.solver_`` is the one place a fitted model keeps its training state; its documented interface
(``run_epoch``, ``diagnostics``, ``epoch_order``, ``epoch_negatives``, read-only pairs and
coefficients, ``state``/``set_state``) is what the benchmarks and the kernel tests use.  The
preparation kernels (``fill_pair_records``, ``pair_counts``, ``record_incidence``, the threaded
``sample_pairs``) are checked against plain NumPy / Python on random inputs.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding, reference
from lgekit._sampling import sample_pairs
from lgekit.callbacks import Callback, EarlyStopping, LinkPredictionCallback
from lgekit.models import DCDSolver, SGDSolver, Solver, TrainingData, _incidence, _schedules
from lgekit.models._solver import EpochOrder, EpochStatus
from lgekit.models._sgd_solver import SAMPLE_WINDOW

from splitmix import SplitMix64


@pytest.fixture(scope="module")
def split():
    g = lgekit.datasets.planted_partition_graph(n_nodes=200, n_labels=4, mean_degree=10, seed=5)
    return lgekit.split_edges(g, seed=1)


def fitted(split, **kw):
    kw = {"dim": 6, "epochs": 2, "lam_r": 0.3, "lr": 0.5, "dtype": "float64", "random_state": 3, **kw}
    return LogisticEmbedding(**kw).fit(split)


# ----------------------------------------------------------------- the interface
def test_estimators_keep_one_solver(split):
    model = fitted(split)
    assert isinstance(model.solver_, SGDSolver) and isinstance(model.solver_, Solver)
    assert model.solver_.embedding is model.embedding_             # updated in place
    hinge = HingeEmbedding(dim=4, epochs=1, random_state=0).fit(split)
    assert isinstance(hinge.solver_, DCDSolver) and hinge.solver_.embedding is hinge.embedding_
    # what used to be ~27 / ~16 private attributes of solver state is the solver's now
    for est in (model, hinge):
        private = {k for k in vars(est) if k.startswith("_")}
        assert private <= {"_dtype", "_rng", "_kernel_seed", "_data_source", "_id_lookup", "_run_start",
                           "_initial_score", "_divergence_reference", "_divergence_solver",
                           # what the training pairs were built with (a continued fit rebuilds the same ones)
                           "_pairs_options", "_reverse_seed"}, private
    # early stopping adds its validation split's seed and pairs (and the split given to fit, if one was)
    stopped = fitted(split, early_stopping=True, validation_fraction=0.3)
    private = {k for k in vars(stopped) if k.startswith("_")}
    assert private <= {"_dtype", "_rng", "_kernel_seed", "_data_source", "_id_lookup", "_run_start", "_initial_score",
                       "_divergence_reference", "_divergence_solver", "_pairs_options", "_reverse_seed",
                       "_validation_seed", "_validation_data"}, private


def test_sgd_solver_pairs_are_read_only_copies_of_the_training_pairs(split):
    solver = fitted(split, lam_pos=1.5, lam_neg=0.2).solver_
    m, k = len(split.train_positives), len(split.train_negatives)
    assert (solver.n_positives, solver.n_negatives, solver.n_pairs) == (m, k, m + k)
    np.testing.assert_array_equal(solver.positives, split.train_positives)
    np.testing.assert_array_equal(solver.negatives, split.train_negatives)
    np.testing.assert_array_equal(solver.pairs, np.vstack([split.train_positives, split.train_negatives]))
    np.testing.assert_array_equal(solver.coefficients, np.r_[np.full(m, 1.5), np.full(k, 0.2)])
    np.testing.assert_array_equal(solver.records["c"], np.r_[np.full(m, 1.5), np.full(k, -0.2)])
    counts = np.bincount(solver.pairs.ravel(), minlength=solver.n_nodes)
    np.testing.assert_array_equal(solver.pair_counts, counts)
    np.testing.assert_array_equal(solver.regulariser_factors,
                                  np.where(counts > 0, 2 * 0.3 / np.maximum(counts, 1), 0.0))
    assert solver.min_pair_count == counts[counts > 0].min()
    for name in ("positives", "negatives", "pairs", "coefficients", "records", "pair_counts",
                 "regulariser_factors", "positive_weights"):
        array = getattr(solver, name)
        assert not array.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    data = solver.training_data()
    assert isinstance(data, TrainingData) and data.positives.dtype == np.int64
    np.testing.assert_array_equal(data.negatives, split.train_negatives)


def test_run_epoch_follows_epoch_order_and_continues_a_fit(split):
    """Running the solver's next epoch by hand equals partial_fit, and equals the reference epoch fed
    the order the solver reports."""
    a, b = fitted(split), fitted(split)
    solver = a.solver_
    order = solver.epoch_order(2)
    assert isinstance(order, EpochOrder) and sorted(order.order.tolist()) == list(range(solver.n_pairs))
    expected = reference.sgd_edge_epoch(a.embedding_, solver.positives, solver.negatives, order.order,
                                        solver.learning_rate(2), weights=solver.positive_weights, lam_pos=1.0,
                                        lam_neg=0.03, lam_r=0.3)
    assert solver.run_epoch(2) is EpochStatus.OK
    b.partial_fit(split, epochs=1)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    np.testing.assert_allclose(a.embedding_, expected, rtol=0, atol=1e-12)
    record = solver.sampled_diagnostics(2)     # the default record, drawn from epoch 2's stream
    assert record == {k: v for k, v in b.history_[-1].items() if k in record}
    exact = solver.diagnostics()
    assert record["reg"] == exact["reg"] and record["mean_norm"] == exact["mean_norm"]


@pytest.mark.parametrize("schedule", ["hogwild", "deterministic"])
def test_epoch_order_of_a_resampling_epoch(split, schedule):
    model = fitted(split, negatives="resample", schedule=schedule)
    solver = model.solver_
    neg = solver.epoch_negatives(2)
    assert not np.any(split.train_graph.has_edges(neg)) and not np.any(neg[:, 0] == neg[:, 1])
    order = solver.epoch_order(2, neg)
    start = model.embedding_.copy()
    expected = reference.sgd_edge_epoch(start, solver.positives, neg, order.order, solver.learning_rate(2),
                                        lam_pos=1.0, lam_neg=0.03, lam_r=0.3)
    solver.run_epoch(2)
    np.testing.assert_array_equal(solver.negatives, neg)            # the drawn negatives are in place
    np.testing.assert_allclose(model.embedding_, expected, rtol=0, atol=1e-12)


def test_vertex_order_epoch_order(split):
    model = fitted(split, order="vertex", lr=0.02)
    solver = model.solver_
    order = solver.epoch_order(2)
    np.testing.assert_array_equal(order.order, _schedules.permutation(solver.n_nodes, solver.seed, 2))
    assert order.block_ptr.tolist() == [0, solver.n_nodes] and order.round_ptr.tolist() == [0, 1]


def test_non_finite_epoch_reports_its_status(split):
    model = fitted(split)
    model.embedding_[0, 0] = np.inf
    assert model.solver_.run_epoch(2) is EpochStatus.NONFINITE
    hinge = HingeEmbedding(dim=4, epochs=1, dtype="float64", random_state=0).fit(split)
    hinge.embedding_[:] = np.nan
    assert hinge.solver_.run_epoch(1) is EpochStatus.NONFINITE


def test_embedding_binding_is_checked(split):
    solver = fitted(split).solver_
    with pytest.raises(ValueError, match=r"keep the shape \(200, 6\) and dtype float64"):
        solver.embedding = np.zeros((200, 6), np.float32)
    with pytest.raises(ValueError, match="C-contiguous"):
        solver.embedding = np.zeros((6, 200)).T
    with pytest.raises(TypeError, match="2-D numpy array"):
        solver.embedding = [[0.0]]
    with pytest.raises(ValueError, match="n_threads must be an int >= 1, got 0"):
        solver.n_threads = 0
    with pytest.raises(ValueError, match="schedule must be one of"):
        solver.schedule = "fast"
    with pytest.raises(ValueError, match=r"SGDSolver has no state arrays, got \['alpha'\]"):
        solver.set_state({"alpha": np.zeros(3)})
    assert solver.state() == {}


def test_solver_rejects_mismatched_data(split):
    model = fitted(split)
    data = model.solver_.training_data()
    arguments = model._solver_arguments()
    with pytest.raises(ValueError, match="data has 200 nodes but the embedding has 5 rows"):
        SGDSolver(data, np.zeros((5, 6)), seed=1, **arguments)
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*64\)"):
        SGDSolver(data, np.zeros((200, 6)), seed=-1, **arguments)
    hinge = HingeEmbedding(dim=6, epochs=1, dtype="float64", random_state=0).fit(split)
    with pytest.raises(ValueError, match=r"alpha must have shape"):
        hinge.solver_.set_state({"alpha": np.zeros(3)})


def test_solvers_take_every_setting_from_the_estimator(split):
    """The estimator's parameter table is the one source of defaults: a solver has none of its own for
    what the estimator passes, and takes exactly the arguments the estimator gives it."""
    import inspect

    for model in (LogisticEmbedding(), HingeEmbedding()):
        parameters = inspect.signature(model._solver_class).parameters
        required = {name for name, p in parameters.items()
                    if p.kind is p.KEYWORD_ONLY and p.default is p.empty and name != "seed"}
        assert required == set(model._solver_arguments()), type(model).__name__
    model = fitted(split, weighting="scale")
    assert model.solver_.weighting == "scale" and model.solver_.key["weighting"] == "scale"
    assert LogisticEmbedding().weighting == HingeEmbedding().weighting == "sample"


def test_dcd_solver_keeps_duals_only_of_its_own_shape(split):
    """A state of other pairs (another graph) starts the duals from zero; of the same pairs, continues."""
    model = HingeEmbedding(dim=4, epochs=2, lam_r=1.0, dtype="float64", random_state=0).fit(split)
    data, arguments = model.solver_.training_data(), model._solver_arguments()
    alpha = model.solver_.state()["alpha"]
    same = DCDSolver(data, model.embedding_.copy(), seed=1, state={"alpha": alpha}, **arguments)
    np.testing.assert_array_equal(same.dual_coef, alpha)
    other = DCDSolver(data, model.embedding_.copy(), seed=1, state={"alpha": alpha[:3]}, **arguments)
    assert not np.any(other.dual_coef)


def test_dcd_solver_state_round_trip_and_early_stopping(split):
    model = HingeEmbedding(dim=4, epochs=2, lam_r=1.0, dtype="float64", random_state=0).fit(split)
    solver = model.solver_
    saved = solver.state()
    assert not np.shares_memory(saved["alpha"], solver.dual_coef)
    model.partial_fit(split, epochs=1)
    assert not np.array_equal(solver.dual_coef, saved["alpha"])
    solver.set_state(saved)
    np.testing.assert_array_equal(solver.dual_coef, saved["alpha"])
    with pytest.raises(ValueError, match="alpha must have shape"):
        solver.set_state({"alpha": np.zeros(2)})
    with pytest.raises(ValueError, match=r"unexpected state arrays \['beta'\]"):
        solver.set_state({"beta": np.zeros(2)})
    # EarlyStopping restores the best epoch's embedding AND duals through the solver's state
    stopper = EarlyStopping("objective", mode="min", patience=1)

    class Worse(Callback):
        def on_epoch_end(self, model, epoch, record):
            record["objective"] = float(epoch)          # the first epoch is the best one

    fresh = HingeEmbedding(dim=4, epochs=4, lam_r=1.0, dtype="float64", random_state=0)
    fresh.fit(split, callbacks=[Worse(), stopper])
    one = HingeEmbedding(dim=4, epochs=1, lam_r=1.0, dtype="float64", random_state=0).fit(split)
    assert stopper.best_epoch_ == 0 and fresh.best_epoch_ == 0
    np.testing.assert_array_equal(fresh.embedding_, one.embedding_)
    np.testing.assert_array_equal(fresh.dual_coef_, one.dual_coef_)


def test_planned_epochs_tell_callbacks_the_last_epoch(split):
    seen = []

    class Spy(Callback):
        def on_train_begin(self, model):
            seen.append(("begin", model.planned_epochs_))

        def on_epoch_end(self, model, epoch, record):
            seen.append((epoch, epoch == model.planned_epochs_[-1]))

    model = fitted(split, epochs=3)
    model.partial_fit(split, epochs=2, callbacks=[Spy()])
    assert seen == [("begin", range(3, 5)), (3, False), (4, True)]
    # LinkPredictionCallback evaluates every 4th epoch and the last planned one
    cb = LinkPredictionCallback(split, every=4, train=False)
    fit = fitted(split, epochs=6)
    fit.fit(split, callbacks=[cb])
    assert [r["epoch"] for r in fit.history_ if "test_ap" in r] == [3, 5]


def test_fit_without_diagnostics_builds_no_incidence_lists(split):
    lean = fitted(split, diagnostics=False).solver_
    assert lean._pos_incidence is None and lean._neg_incidence is None   # noqa: the memory it saves
    assert lean._sample_window is None
    # the sampled record: lists of its vertices alone for a window of epochs, then the whole lists
    sampled = fitted(split).solver_
    assert sampled._pos_incidence is None and sampled._sample_window[:2] == (0, SAMPLE_WINDOW)
    longer = fitted(split, epochs=SAMPLE_WINDOW + 1).solver_
    assert longer._pos_incidence is not None and longer._sample_window is None
    assert fitted(split, diagnostics="exact").solver_._pos_incidence is not None


@pytest.mark.parametrize("kw", [{}, {"weighting": "sample"}, {"weighting": "scale"}, {"lam_r_context": 0.7}])
def test_sampled_record_is_the_same_from_a_window_of_lists_and_from_the_whole_lists(kw):
    """The window's lists (the vertex samples' rows alone) hold those rows as the whole lists do: the sampled
    records are the same, bit for bit, for an unweighted, a weighted (drawn or scaled) and a directed graph
    with two lambda_r; the wrong version, rows of another window's vertices, gives other gradient norms."""
    if "lam_r_context" in kw:
        g = lgekit.datasets.planted_partition_graph(n_nodes=3000, n_labels=3, mean_degree=8, seed=4)
        graph = lgekit.Graph.from_edges(g.edges(), nodes=g.n_nodes, directed=True)
    else:
        g = lgekit.datasets.planted_partition_graph(n_nodes=3000, n_labels=3, mean_degree=8, seed=4)
        weights = np.random.default_rng(1).uniform(0.5, 2.0, len(g.edges())) if kw else None
        graph = lgekit.Graph.from_edges(g.edges(), weights=weights, nodes=g.n_nodes)
    model = LogisticEmbedding(dim=6, epochs=2, lr=0.3, random_state=3, **kw).fit(graph)
    solver = model.solver_
    window = solver._sample_window
    assert window is not None and solver._pos_incidence is None
    from_window = [solver.sampled_diagnostics(e) for e in range(window[0], window[1])]
    solver._incidence_lists()                             # the whole lists: the window is dropped
    assert solver._sample_window is None
    assert [solver.sampled_diagnostics(e) for e in range(window[0], window[1])] == from_window
    # teeth: epoch e's sample read from lists that hold only another window's rows
    solver._pos_incidence = solver._neg_incidence = None
    other_rows = solver._sample_lists(window[1] + 100)
    solver._sample_lists = lambda epoch: other_rows
    assert solver.sampled_diagnostics(window[0])["mean_grad_norm"] != from_window[0]["mean_grad_norm"]


# ----------------------------------------------------------------- the preparation kernels
pair_arrays = st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=0, max_size=300),
    st.integers(1, 4)))


@given(pair_arrays, st.sampled_from([np.int32, np.int64]), st.booleans())
def test_fill_pair_records_counts_and_incidence_match_numpy(case, dtype, weighted):
    n, pairs, threads = case
    pairs = np.array(pairs, dtype=dtype).reshape(-1, 2)
    k = len(pairs)
    w = np.linspace(0.5, 2.0, k) if weighted else None
    records = np.empty(k + 3, _incidence.PAIR_RECORD_DTYPE)
    records[:3] = (0, 0)
    pair_coef = _incidence.fill_pair_records(records, 3, pairs, 0.7, w, negative=not weighted)
    np.testing.assert_array_equal(records["u"][3:], pairs[:, 0])
    np.testing.assert_array_equal(records["v"][3:], pairs[:, 1])
    if weighted:                 # the coefficients come back, the same bits as NumPy's product
        np.testing.assert_array_equal(pair_coef, 0.7 * w)
    else:
        assert pair_coef is None
        pair_coef = np.full(k, -0.7)
    counts = np.zeros(n, np.int64)
    _incidence.pair_counts(records, 3, k + 3, counts, threads)
    np.testing.assert_array_equal(counts, np.bincount(pairs.ravel(), minlength=n))
    # the incidence lists: the same as build_incidence's, in the same order, with the coefficients
    indptr, nbr, coef = np.empty(n + 1, np.int64), np.empty(2 * k, np.int32), np.empty(2 * k)
    _incidence.record_incidence(records, 3, k + 3, indptr, nbr, coef, threads, pair_coef)
    ip, nb, src = np.empty(n + 1, np.int64), np.empty(2 * k, np.int32), np.empty(2 * k, np.int32)
    _incidence.build_incidence(np.ascontiguousarray(pairs, dtype=np.int32), n, ip, nb, src)
    np.testing.assert_array_equal(indptr, ip)
    np.testing.assert_array_equal(nbr, nb)
    np.testing.assert_array_equal(coef, pair_coef[src])
    # the lists of some rows alone: those rows as above, entry for entry, the others empty
    owners = (np.arange(n) % 3 == 1).astype(np.int8)
    o_indptr = np.empty(n + 1, np.int64)
    o_nbr, o_coef = _incidence.owned_incidence(records, 3, k + 3, owners, o_indptr, pair_coef)
    for x in range(n):
        kept = slice(o_indptr[x], o_indptr[x + 1])
        if owners[x]:
            np.testing.assert_array_equal(o_nbr[kept], nbr[indptr[x]:indptr[x + 1]])
            np.testing.assert_array_equal(o_coef[kept], coef[indptr[x]:indptr[x + 1]])
        else:
            assert o_indptr[x] == o_indptr[x + 1]
    assert len(o_nbr) == o_indptr[n] == sum(counts[owners == 1])


def test_owned_incidence_refuses_bad_owners():
    records = np.zeros(2, _incidence.PAIR_RECORD_DTYPE)
    with pytest.raises(ValueError, match="owners needs one entry per vertex"):
        _incidence.owned_incidence(records, 0, 2, np.ones(2, np.int8), np.empty(4, np.int64))
    with pytest.raises(ValueError, match="owners must be 0 or 1, got 2"):
        _incidence.owned_incidence(records, 0, 2, np.full(3, 2, np.int8), np.empty(4, np.int64))


def test_preparation_kernels_are_thread_independent_on_large_inputs():
    # enough pairs for several threads' slices (each thread takes >= 65,536)
    rng = np.random.default_rng(0)
    n, k = 5000, 300_000
    pairs = rng.integers(0, n, size=(k, 2))
    records = np.empty(k, _incidence.PAIR_RECORD_DTYPE)
    _incidence.fill_pair_records(records, 0, pairs, 1.0)
    results = []
    for threads in (1, 2, 4):
        counts = np.zeros(n, np.int64)
        _incidence.pair_counts(records, 0, k, counts, threads)
        indptr, nbr = np.empty(n + 1, np.int64), np.empty(2 * k, np.int32)
        _incidence.record_incidence(records, 0, k, indptr, nbr, None, threads)
        results.append((counts, indptr, nbr))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(results[0][0], np.bincount(pairs.ravel(), minlength=n))


def test_preparation_kernels_check_their_arguments():
    records = np.zeros(4, _incidence.PAIR_RECORD_DTYPE)
    with pytest.raises(ValueError, match="3 pairs from position 2 do not fit 4 records"):
        _incidence.fill_pair_records(records, 2, np.zeros((3, 2), np.int64), 1.0)
    with pytest.raises(ValueError, match="2 weights for 3 pairs"):
        _incidence.fill_pair_records(records, 0, np.zeros((3, 2), np.int64), 1.0, np.ones(2))
    with pytest.raises(ValueError, match=r"the range \[0, 5\) is not within 4 records"):
        _incidence.pair_counts(records, 0, 5, np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="nbr \\(and coef\\) need 8 entries"):
        _incidence.record_incidence(records, 0, 4, np.empty(3, np.int64), np.empty(7, np.int32))
    with pytest.raises(ValueError, match="coef needs pair_coef, the 4 records' coefficients"):
        _incidence.record_incidence(records, 0, 4, np.empty(3, np.int64), np.empty(8, np.int32), np.empty(8))


def python_sample_pairs(graph, n_pairs, seed, max_trials):
    """The sampler's definition: trial j takes draws 2j and 2j + 1 of rng_stream(seed, 0); the pairs are
    the accepted trials (u != v, not an edge), in order, canonicalised (min, max)."""
    rng, out, trials = SplitMix64(seed, 0), [], 0
    n = graph.n_nodes
    while len(out) < n_pairs:
        if max_trials >= 0 and trials >= max_trials:
            return None, -1
        trials += 1
        u, v = rng.below(n), rng.below(n)
        if u != v and not graph.has_edges([[u, v]])[0]:
            out.append((min(u, v), max(u, v)))
    return np.array(out, dtype=np.int64).reshape(-1, 2), trials


@settings(max_examples=40)
@given(st.integers(3, 30), st.integers(0, 2**64 - 1), st.integers(0, 60), st.integers(-1, 80),
       st.integers(2, 5))
def test_sample_pairs_is_the_sequential_sampler_for_any_thread_count(n, seed, n_pairs, max_trials, threads):
    g = lgekit.Graph.from_edges([(i, (i + 1) % n) for i in range(n)], nodes=n)
    expected, trials = python_sample_pairs(g, n_pairs, seed, max_trials)
    for t in (1, threads):
        pairs, got = sample_pairs(g.indptr, g.indices, n, n_pairs, seed, None, None, True, max_trials, t)
        assert got == trials
        if trials >= 0:
            np.testing.assert_array_equal(pairs, expected)


def test_sample_pairs_threads_on_many_blocks():
    # far more trials than one block of the threaded sampler (16,384): blocks must join in trial order
    g = lgekit.datasets.chung_lu_graph(lgekit.datasets.generators.powerlaw_expected_degrees(3000, mean_degree=20),
                                       seed=0)
    one = sample_pairs(g.indptr, g.indices, g.n_nodes, 100_000, 42, None, None, True, -1, 1)
    for threads in (2, 3):
        pairs, trials = sample_pairs(g.indptr, g.indices, g.n_nodes, 100_000, 42, None, None, True, -1, threads)
        np.testing.assert_array_equal(pairs, one[0])
        assert trials == one[1]
    capped = sample_pairs(g.indptr, g.indices, g.n_nodes, 100_000, 42, None, None, True, 50_000, 2)
    assert capped[1] == -1
