"""benchmarks/bench_peers.py measures what it says (issue 43): a method's peak RSS is its own process's, not the
parent's it was started from; a method that cannot be imported is left out with the reason; the method table
takes new rows through its hook."""
import importlib.util
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from lgekit.datasets import planted_partition_graph

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_peers.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_peers", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_a_child_reports_its_own_peak_memory_not_its_parents(bench, tmp_path):
    g = planted_partition_graph(n_nodes=200, n_labels=3, seed=0)
    path = tmp_path / "train.npz"
    sp.save_npz(path, g.to_scipy().tocsr())
    ballast = np.ones(400 * 2**20 // 8)          # the parent holds 400 MiB when it starts the child
    embedding, cost = bench.run_child("lgekit", path, tmp_path, 4, 0, "/nonexistent")
    assert embedding.shape == (200, 4) and cost["cpu_s"] > 0
    parent = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert parent > 400 and cost["peak_rss_mib"] < parent - 200
    # the wrong measurement, a child's ru_maxrss, carries the parent's size over fork and exec
    probe = subprocess.run([sys.executable, "-c", "import resource; "
                            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"],
                           capture_output=True, text=True, check=True)
    assert float(probe.stdout) > 400 > cost["peak_rss_mib"]
    assert ballast.sum() > 0


def test_a_method_that_cannot_be_imported_is_left_out_saying_why(bench):
    status = bench.availability(["lgekit", "ProNE"], "/nonexistent/python")
    assert status["lgekit"] is None
    assert status["ProNE"].startswith("no peers environment at /nonexistent/python")


def test_new_rows_come_through_the_hook(bench):
    @bench.method("zeros", environment="lgekit", package="numpy")
    def zeros(adjacency, dim, seed):
        return np.zeros((adjacency.shape[0], dim))

    assert bench.METHODS["zeros"].embed is zeros and list(bench.METHODS)[0] == "lgekit"
    with pytest.raises(ValueError, match="environment must be 'lgekit' or 'peers'"):
        bench.method("x", environment="conda", package="numpy")
