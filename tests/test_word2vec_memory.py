"""Memory bounds that hold (issue 42, triggers 13-14; item 4).

The word2vec reader's and writer's peak memory is measured per byte (tracemalloc, which sees NumPy's
buffers, and a subprocess's peak resident memory for an 8,000,000-line file), the fit's estimate covers what
``lgekit fit`` writes, and a declared ``.mat`` shape is priced per node before anything is allocated.  Each
trigger test fails on the code before it (c2c7ce5).
"""
import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import lgekit
from lgekit.cli import main

ROOT = Path(lgekit.__file__).resolve().parent.parent   # the source tree under test, for the subprocesses
MiB = 1 << 20
# what the reader may take per byte of its file (lgekit.models._model_file.WORD2VEC_READ_BYTES_PER_BYTE), and
# the block of lines it holds at a time on top of that
READ_BOUND = 8
READ_BLOCK = 2 * MiB


def _peak(fn, *args):
    """``(result, the peak memory fn allocated)``, NumPy's buffers included."""
    tracemalloc.start()
    try:
        result = fn(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _word2vec_file(path, n, name="{i}"):
    """The issue's file: ``n 1``, then lines ``i 1`` (the fewest bytes a vector can take)."""
    with open(path, "w") as fh:
        fh.write(f"{n} 1\n")
        for lo in range(0, n, 100_000):
            fh.write("".join(f"{name.format(i=i)} 1\n" for i in range(lo, min(n, lo + 100_000))))
    return path


def _reader():
    """The word2vec reader ``lgekit evaluate`` uses (the command's private one before issue 42), its imports
    done (they are no part of what reading takes)."""
    import lgekit.models  # noqa: F401 - imported by the reader when it first runs
    from lgekit._commands import evaluate

    return getattr(evaluate, "_read_word2vec")


# ---------------------------------------------------------------------------- trigger 13: the reader
@pytest.mark.parametrize("name", ["{i}", "node-{i}"])
def test_the_word2vec_reader_stays_under_its_bound_per_byte(tmp_path, name):
    path = _word2vec_file(tmp_path / "w.txt", 100_000, name)
    (vectors, ids), peak = _peak(_reader(), path)
    size = path.stat().st_size
    print(f"{name}: {peak / size:.2f} bytes of memory per byte of a {size:,}-byte file")
    assert vectors.shape == (100_000, 1) and len(ids) == 100_000
    assert peak <= READ_BOUND * size + READ_BLOCK
    from lgekit.models._model_file import WORD2VEC_READ_BYTES_PER_BYTE   # the bound the file is checked against
    assert WORD2VEC_READ_BYTES_PER_BYTE == READ_BOUND


_RSS = """
import sys
from pathlib import Path
from lgekit._commands.evaluate import _read_word2vec

def status(field):
    return int(next(l.split()[1] for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(field)))

before = status("VmRSS:")
vectors, ids = _read_word2vec(sys.argv[1])
print(status("VmHWM:") - before, vectors.shape[0])
"""


@pytest.mark.slow  # an 8,000,000-line (79 MB) file, read in a subprocess: ~35 s on 2 busy cores
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak resident memory from /proc")
def test_an_8_million_line_word2vec_file_reads_within_its_bound(tmp_path):
    """The issue's file had 8,000,000 lines (the reader took 48 bytes a byte); each of these names its own node."""
    path = _word2vec_file(tmp_path / "w.txt", 8_000_000)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", _RSS, str(path)], env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    grown_kib, rows = map(int, done.stdout.split())
    size = path.stat().st_size
    print(f"peak resident memory grew {grown_kib * 1024 / size:.2f} bytes per byte of the {size:,}-byte file")
    assert rows == 8_000_000 and grown_kib * 1024 <= READ_BOUND * size + READ_BLOCK


def test_a_header_that_announces_more_than_the_file_holds_is_refused_before_allocating(tmp_path, capsys):
    path = tmp_path / "lie.txt"
    path.write_text("8000000000 100\n1 0.5 " + "0 " * 99 + "\n")
    with pytest.raises(ValueError, match="announces 8,000,000,000 vectors"):
        _reader()(path)


def test_what_a_word2vec_file_needs_is_priced_before_it_is_allocated(tmp_path, monkeypatch):
    """A 15 kB file whose rows take more than its size suggests (one id of 3,000 characters among 1,000, 8
    numbers a row): within the size bound, refused from its first pass, before the rows are allocated."""
    path = tmp_path / "w.txt"
    path.write_text("1000 8\n" + "".join(f"{'x' * 3000 if i == 0 else i} " + "1 " * 8 + "\n" for i in range(1000)))
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", str(9 * path.stat().st_size))
    with pytest.raises(ValueError, match=r"reading it needs \d+\.\d KiB \(1,000 vectors of 8 .* available"):
        _reader()(path)
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1M")
    vectors, ids = _reader()(path)
    assert vectors.shape == (1000, 8) and ids[0] == "x" * 3000 and ids[1] == "1"


# ---------------------------------------------------------------------------- trigger 13: the writers
def test_the_word2vec_writer_holds_a_block_not_the_text(tmp_path):
    from lgekit.models._model_file import write_word2vec

    x = np.random.default_rng(0).normal(size=(2000, 500))
    _, peak = _peak(write_word2vec, tmp_path / "big.txt", x, [str(i) for i in range(2000)])
    text = (tmp_path / "big.txt").stat().st_size
    print(f"writing {text:,} bytes of text took {peak:,} bytes of memory")
    assert peak <= text / 4
    from lgekit.models._model_file import WRITE_PEAK_BYTES
    assert peak <= WRITE_PEAK_BYTES


def test_saving_a_model_file_stays_under_the_write_bound(tmp_path):
    from lgekit.models import LogisticEmbedding
    from lgekit.models._model_file import WRITE_PEAK_BYTES

    model = LogisticEmbedding(dim=2, epochs=1, random_state=0).fit(np.array([[0, 1], [1, 2], [2, 3]]))
    model.embedding_ = np.random.default_rng(0).normal(size=(100_000, 64))   # a 51 MB table
    model.node_ids_ = np.arange(100_000)
    model._id_lookup = None
    with open(tmp_path / "m.npz", "wb") as fh:
        _, peak = _peak(model.save, fh)
    print(f"saving a {model.embedding_.nbytes:,}-byte embedding took {peak:,} bytes of memory")
    assert peak <= WRITE_PEAK_BYTES


def test_the_fit_estimate_counts_what_fit_writes(tmp_path, monkeypatch, capsys):
    """Training a ring of 30 nodes fits in 20 MiB; writing its results (a model file through numpy.savez's
    buffer, the word2vec text a block at a time) does not: refused before training, naming the writing."""
    ring = tmp_path / "ring.txt"
    ring.write_text("".join(f"{i} {(i + 1) % 30}\n" for i in range(30)))
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "20M")
    trained = []
    real_fit = lgekit.models.LogisticEmbedding.fit
    monkeypatch.setattr(lgekit.models.LogisticEmbedding, "fit",
                        lambda self, *a, **k: trained.append(1) or real_fit(self, *a, **k))
    assert main(["fit", str(ring), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out",
                 str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "out of memory" in err and "set aside for writing embedding.npz" in err and "Traceback" not in err
    assert not (tmp_path / "o" / "embedding.npz").exists()
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "80M")
    assert main(["fit", str(ring), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out",
                 str(tmp_path / "o")]) == 0


# ---------------------------------------------------------------------------- trigger 14
@pytest.fixture(scope="module")
def wide_mat(tmp_path_factory):
    """A compressed .mat declaring a 5,000,000 x 5,000,000 adjacency with 2 entries (the issue's, a tenth)."""
    import scipy.io
    import scipy.sparse as sp

    n = 5_000_000
    path = tmp_path_factory.mktemp("mat") / "wide.mat"
    scipy.io.savemat(path, {"network": sp.csc_matrix((np.ones(2), ([0, 1], [1, 0])), shape=(n, n))},
                     do_compression=True)
    return path


def test_a_declared_matrix_is_priced_per_node_before_it_is_read(wide_mat, monkeypatch):
    """Its 2 entries take bytes, its 5,000,000 nodes take ~45 bytes each (measured: tracemalloc's peak below):
    refused from the declared shape when that is more than the memory left."""
    assert wide_mat.stat().st_size < 100_000
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "180M")
    with pytest.raises(lgekit.datasets.DataFormatError, match=r"5000000x5000000 sparse matrix of 2 entries .*"
                                                              r"for each of its 5,000,000 nodes"):
        lgekit.datasets.load(wide_mat)
    monkeypatch.delenv("LGEKIT_AVAILABLE_MEMORY")
    graph, peak = _peak(lgekit.datasets.load, wide_mat)
    from lgekit.datasets._loaders import MAT_BYTES_PER_NODE
    print(f"loading took {peak / graph.n_nodes:.1f} bytes a node")
    assert graph.n_nodes == 5_000_000 and peak <= MAT_BYTES_PER_NODE * graph.n_nodes


def test_a_fit_short_of_memory_for_its_nodes_says_so(wide_mat, tmp_path, monkeypatch, capsys):
    """5,000,000 nodes and one edge: the memory goes to the per-node arrays, not to the training pairs."""
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "300M")
    assert main(["fit", str(wide_mat), "--model", "logistic", "--dim", "2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "out of memory" in err and "for the 5,000,000 nodes' arrays" in err and "fewer nodes" in err
    assert "use fewer training pairs" not in err and "Traceback" not in err
