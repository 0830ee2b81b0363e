"""What a model must never get silently wrong (issue 26): an interrupted fit, a fit continued on another
graph, and word2vec names."""
import os
import signal

import numpy as np
import pytest

from lgekit import Graph, HingeEmbedding, LogisticEmbedding
from lgekit.callbacks import Callback
from lgekit.datasets.generators import gnm_random_graph
from lgekit.models import DCDSolver, SGDSolver


@pytest.fixture(scope="module")
def graph():
    return gnm_random_graph(60, 240, seed=4)


def _records(model):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in model.history_]


MODELS = [
    (LogisticEmbedding, dict(lam_r=0.3)),
    (LogisticEmbedding, dict(lam_r=0.3, negatives="resample", dtype="float64")),
    (LogisticEmbedding, dict(lam_r=0.3, schedule="deterministic", n_threads=2, diagnostics=False)),
    (HingeEmbedding, dict(lam_r=1.0)),
]


class _InterruptAt(Callback):
    def __init__(self, epoch):
        self.epoch = epoch

    def on_epoch_end(self, model, epoch, record):
        if epoch == self.epoch:
            os.kill(os.getpid(), signal.SIGINT)


# ---------------------------------------------------------------------- item 5: Ctrl-C during fit
@pytest.mark.parametrize("cls, kw", MODELS)
@pytest.mark.parametrize("where", ["after the kernel", "in the record", "in a callback"])
def test_ctrl_c_during_fit_keeps_model_and_records_in_agreement(graph, monkeypatch, cls, kw, where):
    """The interrupt arrives while epoch 2 runs: the embedding has moved, so n_iter_ and history_ must say
    so, and resuming must give the uninterrupted fit bit for bit (the duals too, for DCD)."""
    uninterrupted = cls(dim=6, epochs=5, random_state=0, **kw).fit(graph)
    solver_class = SGDSolver if cls is LogisticEmbedding else DCDSolver
    callbacks = []
    if where == "after the kernel":
        # the kernel runs without the GIL: Python raises KeyboardInterrupt as soon as it returns
        run_epoch = solver_class.run_epoch

        def interrupted_epoch(self, epoch):
            status = run_epoch(self, epoch)
            if epoch == 2:
                os.kill(os.getpid(), signal.SIGINT)
            return status
        monkeypatch.setattr(solver_class, "run_epoch", interrupted_epoch)
    elif where == "in the record":
        epoch_record = solver_class.epoch_record

        def interrupted_record(self, epoch, status):
            if epoch == 2:
                os.kill(os.getpid(), signal.SIGINT)
            return epoch_record(self, epoch, status)
        monkeypatch.setattr(solver_class, "epoch_record", interrupted_record)
    else:
        callbacks = [_InterruptAt(2)]
    model = cls(dim=6, epochs=5, random_state=0, **kw)
    with pytest.raises(KeyboardInterrupt):
        model.fit(graph, callbacks=callbacks)
    assert model.n_iter_ == 3 and [r["epoch"] for r in model.history_] == [0, 1, 2]
    monkeypatch.undo()
    model.partial_fit(graph, epochs=2)
    np.testing.assert_array_equal(model.embedding_, uninterrupted.embedding_)
    assert _records(model) == _records(uninterrupted)
    if cls is HingeEmbedding:
        np.testing.assert_array_equal(model.dual_coef_, uninterrupted.dual_coef_)


def test_an_interrupt_between_fits_still_interrupts_and_a_user_handler_is_kept(graph):
    caught = []

    def handler(signum, frame):
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        model = LogisticEmbedding(dim=4, epochs=3, random_state=0).fit(graph, callbacks=[_InterruptAt(1)])
        assert caught == [signal.SIGINT] and model.n_iter_ == 3       # the user's handler decided: go on
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)


# ---------------------------------------------------------------------- item 2: partial_fit on another graph
def _named(graph, names, order=None):
    """``graph`` with node i named ``names[i]``, its nodes listed in ``order`` (a permutation of the names)."""
    edges = [(names[u], names[v]) for u, v in graph.edges().tolist()]
    return Graph.from_edges(edges, nodes=list(names) if order is None else list(order))


def _id_pairs(model):
    ids = model.node_ids_.tolist()
    return {frozenset((ids[u], ids[v])) for u, v in model.solver_.training_data().positives.tolist()}


@pytest.mark.parametrize("cls", [LogisticEmbedding, HingeEmbedding])
@pytest.mark.parametrize("names", [[f"n{i}" for i in range(60)], list(range(100, 160))])
def test_partial_fit_on_the_same_nodes_in_another_order_trains_each_nodes_own_row(graph, cls, names):
    g1 = _named(graph, names)
    rng = np.random.default_rng(1)
    g2 = _named(graph, names, order=[names[i] for i in rng.permutation(60)])
    assert not np.array_equal(g1.node_ids, g2.node_ids)
    model = cls(dim=4, epochs=2, lam_r=0.5, random_state=0).fit(g1)
    before = model.node_ids_.copy()
    model.partial_fit(g2, epochs=1)
    np.testing.assert_array_equal(model.node_ids_, before)
    ends = g2.node_ids[g2.edges()]
    edges = {frozenset(p) for p in zip(ends[:, 0].tolist(), ends[:, 1].tolist())}
    assert _id_pairs(model) == edges          # every trained pair joins the rows of its two ids
    row = {node: i for i, node in enumerate(before.tolist())}
    np.testing.assert_array_equal(model.transform(g2), model.embedding_[[row[i] for i in g2.node_ids.tolist()]])


def test_partial_fit_on_a_reordered_graph_resamples_negatives_among_its_non_edges(graph):
    names = [f"n{i}" for i in range(60)]
    g2 = _named(graph, names, order=names[::-1])
    model = LogisticEmbedding(dim=4, epochs=1, negatives="resample", random_state=0).fit(_named(graph, names))
    model.partial_fit(g2, epochs=2)
    ids = model.node_ids_
    neg = model.solver_.negatives
    assert not np.any(g2.has_edges(g2.index_of(np.column_stack([ids[neg[:, 0]], ids[neg[:, 1]]]).ravel()
                                               ).reshape(-1, 2)))


@pytest.mark.parametrize("change, new, missing", [
    ({"n3": "zz"}, "'zz'", "'n3'"),
    ({f"n{i}": f"m{i}" for i in range(60)}, "60 new id", "60 missing id"),
    ({"n0": 0}, "0", "'n0'"),
])
@pytest.mark.parametrize("how", ["partial_fit", "warm_start"])
def test_partial_fit_on_other_node_ids_is_refused_naming_them(graph, change, new, missing, how):
    names = [f"n{i}" for i in range(60)]
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0, warm_start=how == "warm_start")
    model.fit(_named(graph, names))
    other = _named(graph, [change.get(n, n) for n in names])
    emb = model.embedding_.copy()
    with pytest.raises(ValueError, match="X: its nodes are not the 60 nodes the model was fitted on") as info:
        model.partial_fit(other) if how == "partial_fit" else model.fit(other)
    assert new in str(info.value) and missing in str(info.value)
    np.testing.assert_array_equal(model.embedding_, emb)
    assert model.n_iter_ == 1


def test_partial_fit_on_a_directed_graph_matches_both_tables_by_id(graph):
    names = [f"n{i}" for i in range(60)]
    arcs = [(names[u], names[v]) for u, v in graph.edges().tolist()]
    g1 = Graph.from_edges(arcs, nodes=names, directed=True)
    g2 = Graph.from_edges(arcs, nodes=names[::-1], directed=True)
    model = LogisticEmbedding(dim=4, epochs=1, random_state=0).fit(g1)
    model.partial_fit(g2)
    n = len(model.node_ids_)
    ids = np.concatenate([model.node_ids_, model.context_node_ids_])
    trained = {(ids[u], ids[v]) for u, v in model.solver_.training_data().positives.tolist()}
    assert all(v >= n for _, v in model.solver_.positives.tolist())
    assert trained == set(arcs)
    with pytest.raises(ValueError, match="source / left nodes are not the 60 nodes"):
        model.partial_fit(Graph.from_edges(arcs + [("new", "n1")], directed=True))


# ---------------------------------------------------------------------- items 8 and 12: word2vec names
@pytest.mark.parametrize("a, b", [(1, "1"), (True, "True"), (None, "None"), ((1, 2), "(1, 2)")])
@pytest.mark.parametrize("binary", [False, True])
def test_word2vec_refuses_ids_whose_names_collide(tmp_path, a, b, binary):
    g = Graph.from_edges([(a, b), (b, "x"), ("x", a), ("x", "y")])
    model = LogisticEmbedding(dim=3, epochs=1, random_state=0).fit(g)
    path = tmp_path / "emb.txt"
    with pytest.raises(ValueError, match=r"node ids .* would both be named") as info:
        model.to_word2vec(path, binary=binary)
    assert repr(a) in str(info.value) and repr(b) in str(info.value)
    assert not path.exists()


@pytest.mark.parametrize("bad", ["a\udc80", "\ud800", "x\udfffy"])
@pytest.mark.parametrize("binary", [False, True])
def test_word2vec_refuses_a_surrogate_id_with_a_value_error(tmp_path, bad, binary):
    g = Graph.from_edges([(bad, "b"), ("b", "c"), ("c", "d")])
    model = HingeEmbedding(dim=3, epochs=1, random_state=0).fit(g)
    path = tmp_path / "emb.bin"
    with pytest.raises(ValueError, match="cannot be written as UTF-8") as info:
        model.to_word2vec(path, binary=binary)
    assert not isinstance(info.value, UnicodeError) and repr(bad) in str(info.value)
    assert not path.exists()
    model.save(tmp_path / "m.npz")             # a model file keeps such ids
    assert HingeEmbedding.load(tmp_path / "m.npz").node_ids_.tolist() == model.node_ids_.tolist()
