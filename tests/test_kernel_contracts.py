"""The contracts between the kernels and their solvers (issue 45): the epoch status the kernels return and
its Python mirror, the schedule names, the input bundles the kernels read into their C structs (a wrong
shape is a clear error, never a read past an array), and the stacked table's extras against their NumPy
reference.  Each check is shown failing on the wrong version it exists to catch.
"""
import enum
import importlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lgekit
from lgekit import reference
from lgekit._validation import InvalidParameterError
from lgekit.models import _dcd, _dcd_diagnostics, _incidence, _schedules, _sgd, _sgd_diagnostics
from lgekit.models._solver import EpochStatus
from lgekit.models._dcd_solver import pair_csr
from lgekit.models._two_tables import BIAS_CONSTANT, TwoTableExtras, check_extras


# ----------------------------------------------------------------- the epoch status
def mirror_mismatches(kernel_values, mirror):
    """How the Python enum ``mirror`` differs from the kernel's ``{name: value}`` (empty: it mirrors it)."""
    python_values = {member.name: int(member.value) for member in mirror}
    return sorted(set(kernel_values.items()) ^ set(python_values.items()))


def _builds(name):
    """The kernel module ``name`` in every build there is (the generic one, and the AVX2 copy when built)."""
    builds = [importlib.import_module(name)]
    try:
        builds.append(importlib.import_module(name + "_avx2"))
    except ImportError:
        pass
    return builds


@pytest.mark.parametrize("kernel", _builds("lgekit.models._sgd"), ids=lambda m: m.__name__)
def test_epoch_status_mirrors_the_kernels_enum(kernel):
    assert mirror_mismatches(kernel.EPOCH_STATUS, EpochStatus) == []
    assert kernel.EPOCH_STATUS == {"OK": 0, "NONFINITE": 1, "OUT_OF_MEMORY": 2}


def test_the_mirror_check_catches_a_missing_or_renumbered_member():
    # the wrong versions: the Python enum before the kernels' enum named their out-of-memory exit, and one
    # whose values drifted from the .pxd's
    Missing = enum.IntEnum("Missing", {"OK": 0, "NONFINITE": 1})
    Drifted = enum.IntEnum("Drifted", {"OK": 0, "NONFINITE": 2, "OUT_OF_MEMORY": 1})
    assert mirror_mismatches(_sgd.EPOCH_STATUS, Missing) == [("OUT_OF_MEMORY", 2)]
    assert len(mirror_mismatches(_sgd.EPOCH_STATUS, Drifted)) == 4
    with pytest.raises(ValueError):
        EpochStatus(3)                          # a value the kernels do not return is refused, not passed on


OUT_OF_MEMORY_SCRIPT = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import lgekit
    from lgekit.models import _incidence, _sgd

    g = lgekit.datasets.planted_partition_graph(n_nodes=200, n_labels=4, mean_degree=8, seed=0)
    model = lgekit.LogisticEmbedding(dim=8, epochs=1, random_state=0).fit(g)
    solver = model.solver_
    pairs = np.ascontiguousarray(solver.pairs)
    records = np.empty(len(pairs), _incidence.PAIR_RECORD_DTYPE)
    _incidence.fill_pair_records(records, 0, pairs, 1.0)
    emb = np.array(model.embedding_)
    before = emb.copy()
    # the address space capped 1 GiB above what the process maps now: the kernel's per-thread buffers for
    # a million threads (8 GB) cannot be allocated, whatever the machine's overcommit policy
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + 2**30, resource.RLIM_INFINITY))
    status = _sgd.edge_epoch(emb, _incidence.PairRecords(records, solver.n_positives, None, 1.0, 0.03),
                             np.zeros(len(emb)), np.empty(len(pairs), np.int32), 1, 0, 0.1, 10**6)
    print("kernel", status, _sgd.EPOCH_STATUS["OUT_OF_MEMORY"], bool(np.array_equal(emb, before)))
    solver.n_threads = 10**6
    try:
        solver.run_epoch(1)
    except MemoryError as error:
        print("solver MemoryError", str(error).split(":")[0])
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="caps the address space through /proc and RLIMIT_AS")
def test_out_of_memory_is_a_status_and_the_solver_raises_memory_error():
    """An epoch whose work space cannot be allocated returns OUT_OF_MEMORY with the embedding untouched, and
    the solver turns it into a MemoryError (run in a child process whose address space is capped)."""
    result = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY_SCRIPT], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.split("\n")
    assert "kernel 2 2 True" in lines                   # OUT_OF_MEMORY, and nothing was updated
    assert "solver MemoryError edge_epoch" in lines


# ----------------------------------------------------------------- the schedules
def _toy_epoch_inputs(n=30, seed=0):
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, n, (120, 2)).astype(np.int32)
    pairs = np.ascontiguousarray(pairs[pairs[:, 0] != pairs[:, 1]])
    records = np.empty(len(pairs), _incidence.PAIR_RECORD_DTYPE)
    _incidence.fill_pair_records(records, 0, pairs, 1.0)
    emb = rng.uniform(-0.3, 0.3, (n, 4))
    return pairs, _incidence.PairRecords(records, 40, None, 1.0, 0.5), emb


def test_the_schedules_by_name():
    assert _schedules.SCHEDULES == ("hogwild", "deterministic", "blocks")       # the enum's order
    pairs, _, _ = _toy_epoch_inputs()
    det = _schedules.edge_order(pairs, 30, 4, 5, 1, "deterministic", 2)
    blocks = _schedules.edge_order(pairs, 30, 4, 5, 1, "blocks", 2)
    hog = _schedules.edge_order(pairs, 30, 4, 5, 1, "hogwild", 2)
    assert all(np.array_equal(a, b) for a, b in zip(det, blocks))             # the same blocks
    assert np.array_equal(hog[0], _schedules.permutation(len(pairs), 5, 1)) and len(hog[1]) == 2
    assert not np.array_equal(det[0], hog[0])


@pytest.mark.parametrize("call", ["edge_epoch", "vertex_epoch", "edge_order"])
def test_an_unknown_schedule_is_refused_by_name(call):
    """The wrong version, a flag read as "anything else is deterministic", would run "blocky" silently."""
    pairs, records, emb = _toy_epoch_inputs()
    n = len(emb)
    with pytest.raises(ValueError, match=rf"{call}: schedule must be one of \('hogwild', 'deterministic', 'blocks'\), "
                                         r"got 'blocky'"):
        if call == "edge_epoch":
            _sgd.edge_epoch(emb, records, np.zeros(n), np.empty(len(pairs), np.int32), 1, 0, 0.1, 1, "blocky")
        elif call == "vertex_epoch":
            _sgd.vertex_epoch(emb, _lists(pairs, n), 0.1, np.empty((1, 4)), np.arange(n, dtype=np.int32), 0.1, 1,
                              "blocky")
        else:
            _schedules.edge_order(pairs, n, 4, 1, 0, "blocky")


def test_the_vertex_order_refuses_the_blocks_schedule():
    pairs, _, emb = _toy_epoch_inputs()
    with pytest.raises(ValueError, match="vertex_epoch: schedule must be 'deterministic' or 'hogwild'"):
        _sgd.vertex_epoch(emb, _lists(pairs, len(emb)), 0.1, np.empty((1, 4)), np.arange(len(emb), dtype=np.int32),
                          0.1, 1, "blocks")


# ----------------------------------------------------------------- the input bundles
def _lists(pairs, n, pos=40, lam_pos=1.0, lam_neg=0.5):
    """The IncidenceLists of ``pairs`` (the first ``pos`` positive) over n vertices."""
    out = []
    for part in (pairs[:pos], pairs[pos:]):
        indptr, nbr, src = np.empty(n + 1, np.int64), np.empty(2 * len(part), np.int32), np.empty(2 * len(part), np.int32)
        _incidence.build_incidence(np.ascontiguousarray(part), n, indptr, nbr, src)
        out += [indptr, nbr]
    return _incidence.IncidenceLists(out[0], out[1], np.empty(0), out[2], out[3], lam_pos, lam_neg)


def test_the_vertex_kernels_read_their_lists_as_a_bundle():
    """One IncidenceLists carries the seven inputs: the vertex epoch with it is the reference's."""
    pairs, _, emb = _toy_epoch_inputs()
    n, order = len(emb), _schedules.permutation(len(emb), 3, 0)
    out = emb.copy()
    assert _sgd.vertex_epoch(out, _lists(pairs, n), 0.2, np.empty((1, 4)), order, 0.05) == _sgd.EPOCH_STATUS["OK"]
    ref = reference.sgd_vertex_epoch(emb, pairs[:40], pairs[40:], order, 0.05, lam_pos=1.0, lam_neg=0.5, lam_r=0.2)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("field, value, message", [
    ("pos_indptr", np.zeros(5, np.int64), r"pos_indptr and neg_indptr need n \+ 1 = 31 entries, got 5"),
    ("neg_indptr", np.full(31, 10**6, np.int64), r"the pointers end at .* beyond the"),
    ("pos_coef", np.ones(3), r"pos_coef needs one entry per positive partner \(80\) or none, got 3"),
])
def test_wrong_incidence_lists_are_a_clear_error(field, value, message):
    """The wrong version, the pointers taken as they come, reads past the arrays (a crash, or garbage)."""
    pairs, _, emb = _toy_epoch_inputs()
    lists = _lists(pairs, len(emb))._replace(**{field: value})
    outs = [np.empty(len(emb)) for _ in range(4)]
    with pytest.raises(ValueError, match="lists: " + message):
        _sgd_diagnostics.diagnostics(emb, lists, 0.1, np.empty((1, 4)), *outs)
    with pytest.raises(ValueError, match="lists: " + message):
        _sgd.vertex_epoch(emb, lists, 0.1, np.empty((1, 4)), np.arange(len(emb), dtype=np.int32), 0.1)


@pytest.mark.parametrize("change, message", [
    (dict(n_pos=200), r"pairs: n_pos must be in \[0, 11[0-9]\] \(the records\), got 200"),
    (dict(pos_coef=np.ones(7)), r"pairs: pos_coef has 7 entries for 40 positives"),
])
def test_wrong_pair_records_are_a_clear_error(change, message):
    pairs, records, emb = _toy_epoch_inputs()
    with pytest.raises(ValueError, match=message):
        _sgd.edge_epoch(emb, records._replace(**change), np.zeros(len(emb)), np.empty(len(pairs), np.int32), 1, 0, 0.1)


def test_a_wrong_pair_csr_is_a_clear_error():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    csr = pair_csr(6, [[0, 1], [2, 3], [4, 5]], [[0, 2]])
    alpha, sq = np.zeros(len(csr.nbr)), np.einsum("ij,ij->i", X, X)
    rule, order, blocks = _dcd.VisitRule(1, 0.0), np.arange(6, dtype=np.int32), np.array([0, 6], np.int64)
    assert _dcd.dcd_epoch(X.copy(), sq.copy(), csr, alpha.copy(), order, blocks, rule, 1, 1) == -1
    with pytest.raises(ValueError, match=r"csr: inconsistent pair CSR for 6 vertices: indptr has 7 entries .* alpha 3"):
        _dcd.dcd_epoch(X.copy(), sq.copy(), csr, np.zeros(3), order, blocks, rule, 1, 1)
    with pytest.raises(ValueError, match=r"csr: indptr ends at 99, beyond the 8 entries"):
        _dcd_diagnostics.vertex_certificates(X, csr._replace(indptr=np.r_[csr.indptr[:-1], 99]), alpha, 1)


# ----------------------------------------------------------------- the stacked table's extras
def _directed(n=7, seed=0):
    rng = np.random.default_rng(seed)
    arcs = {(i, i + 1) for i in range(n - 1)} | {tuple(a) for a in rng.integers(0, n, (10, 2)) if a[0] != a[1]}
    return lgekit.Graph.from_edges(sorted(arcs), directed=True, nodes=n)


def test_the_extras_are_the_references_two_table_steps():
    g, D = _directed(), 5
    n = g.n_nodes
    extras = TwoTableExtras(node_bias=None, lam_tie=None, graph=g, order="edge", shape=(2 * n, D), n_source=n)
    assert extras.node_bias and extras.biases_are_an_order                   # a directed graph's defaults
    r = g.reciprocity()
    assert extras.lam_tie == pytest.approx(r / (1 - r)) and extras.free_columns == D - 2
    assert np.array_equal(extras.pins, reference.bias_pins(n, n, D))
    Z = np.random.default_rng(1).normal(size=(2 * n, D))
    extras.project(Z)
    assert np.all(Z[:n, D - 1] == BIAS_CONSTANT) and np.all(Z[n:, D - 2] == BIAS_CONSTANT)
    assert extras.tie_penalty(Z) == pytest.approx(reference.tie_penalty(Z[:n], Z[n:], extras.lam_tie, D - 2), rel=1e-12)
    X, Y = reference.order_biases(*reference.tie_step(Z[:n], Z[n:], 0.3, extras.lam_tie, D - 2))
    # the wrong version, a tie that pulls the bias coordinates together too, ends elsewhere
    wrong = np.vstack(reference.order_biases(*reference.tie_step(Z[:n], Z[n:], 0.3, extras.lam_tie)))
    extras.epoch_end(Z, 0.3, 2)                                              # the tie, then the order
    np.testing.assert_allclose(Z, np.vstack([X, Y]), rtol=0, atol=1e-12)
    assert not np.allclose(Z, wrong, rtol=0, atol=1e-6)


def test_a_bipartite_graphs_biases_are_free_and_untied():
    B = lgekit.Graph.from_biadjacency(np.eye(3) + np.eye(3, k=1))
    extras = TwoTableExtras(node_bias=True, lam_tie=None, graph=B, order="edge", shape=(6, 4), n_source=3)
    assert extras.node_bias and not extras.biases_are_an_order and extras.lam_tie == 0.0
    Z = np.random.default_rng(2).normal(size=(6, 4))
    before = Z.copy()
    extras.epoch_end(Z, 0.5, 1)
    assert np.array_equal(Z, before)                                         # no tie, no order


@pytest.mark.parametrize("node_bias, lam_tie, kind, order, dim, parameter, message", [
    (True, None, "undirected", "edge", 4, "node_bias", "node_bias=True needs two tables"),
    (True, None, "directed", "vertex", 4, "node_bias", "node_bias=True needs order='edge'"),
    (True, None, "bipartite", "edge", 1, "node_bias", r"node_bias=True needs dim >= 2 .* got dim=1"),
    (None, 0.5, "undirected", "edge", 4, "lam_tie", "an undirected graph has one vector a node"),
    (False, 0.5, "bipartite", "edge", 4, "lam_tie", "a bipartite graph has no node on both sides"),
])
def test_check_extras_refuses_what_the_graph_cannot_take(node_bias, lam_tie, kind, order, dim, parameter, message):
    """The parameters' own errors, raised where the parameters meet the graph (before any solver exists)."""
    with pytest.raises(InvalidParameterError, match=message) as info:
        check_extras(node_bias, lam_tie, kind, order, dim)
    assert info.value.parameter == parameter


@pytest.mark.parametrize("node_bias, lam_tie, kind, order, dim", [
    (None, None, "undirected", "vertex", 1), (False, 0.0, "undirected", "edge", 4), (True, 2.0, "directed", "edge", 2),
    (None, 0, "bipartite", "vertex", 3), (True, None, "bipartite", "edge", 2),
])
def test_check_extras_accepts_what_the_graph_can_take(node_bias, lam_tie, kind, order, dim):
    check_extras(node_bias, lam_tie, kind, order, dim)
