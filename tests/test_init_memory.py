"""Memory of a fit (issue #13, item 5): the initialisation's peak stays near the embedding's size, and a fit
that cannot fit in memory fails at once with a MemoryError naming the parameter to lower."""
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import lgekit
from lgekit import HingeEmbedding, LogisticEmbedding
from lgekit.cli import main
from lgekit.models import available_memory

# the first 65,536 rows used to come from one float64 temporary; blocks of 16 MiB now
_MIB = 2**20


@pytest.fixture(scope="module")
def ring300():
    n = 300
    return lgekit.Graph.from_edges([(i, (i + 1) % n) for i in range(n)] + [(i, (i + 7) % n) for i in range(n)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("block_bytes", [8, 1000, 16 * _MIB])
def test_initialisation_draws_the_numbers_of_one_uniform_call(dtype, block_bytes):
    # drawing block by block (of any size, straight into the embedding for float64) keeps the stream of
    # the former rng.uniform(-s, s, size=(n, dim)): fits seeded before the change give the same models
    model = LogisticEmbedding(dim=37, init_scale=0.3, dtype=dtype)
    model._dtype = np.dtype(dtype)
    model._init_block_bytes = block_bytes
    emb = model._initial_embedding(53, np.random.default_rng(11))
    expected = np.random.default_rng(11).uniform(-0.3, 0.3, size=(53, 37)).astype(dtype)
    assert emb.dtype == np.dtype(dtype) and emb.flags.c_contiguous
    np.testing.assert_array_equal(emb, expected)


_PEAK_SCRIPT = textwrap.dedent("""
    import resource, sys
    import lgekit
    n, dim = 300, int(sys.argv[1])
    g = lgekit.Graph.from_edges([(i, (i + 1) % n) for i in range(n)] + [(i, (i + 7) % n) for i in range(n)])
    # warm up every code path (imports, kernels, the diagnostics' work arrays) on a narrow model
    lgekit.LogisticEmbedding(dim=8, epochs=0, random_state=0).fit(g)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    model = lgekit.{cls}(dim=dim, epochs=0, dtype="float32", random_state=0).fit(g)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) * 1024, model.embedding_.nbytes)
""")


@pytest.mark.parametrize("cls", ["LogisticEmbedding", "HingeEmbedding"])
def test_peak_memory_of_initialising_a_wide_float32_embedding(cls):
    # 300 x 100,000 float32 = 120 MB: the former float64 temporary of all rows made the peak 3x that
    # (embedding + 240 MB); now one 16 MiB float64 block at most, plus small fixed costs
    code = _PEAK_SCRIPT.replace("{cls}", cls)
    out = subprocess.run([sys.executable, "-c", code, "100000"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    growth, nbytes = map(int, out.stdout.split())
    assert nbytes == 300 * 100_000 * 4
    slack = 16 * _MIB + 8 * _MIB   # the float64 block, and allocator / page-table noise
    assert growth <= 1.2 * nbytes + slack, \
        f"peak grew by {growth / _MIB:.0f} MiB for a {nbytes / _MIB:.0f} MiB embedding"


@pytest.mark.parametrize("cls", [LogisticEmbedding, HingeEmbedding])
def test_embedding_larger_than_available_memory_fails_fast(ring300, monkeypatch, cls):
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1G")
    t0 = time.perf_counter()
    with pytest.raises(MemoryError) as info:
        cls(dim=10**7, epochs=1, random_state=0).fit(ring300)
    assert time.perf_counter() - t0 < 5
    msg = str(info.value)
    # how much is needed (300 x 1e7 float32 = 11.2 GiB, and two work rows), how much there is, what to lower
    assert "needs about 11.3 GiB" in msg and "11.2 GiB for the 300 x 10,000,000 float32 embedding" in msg
    assert "only 1.0 GiB is available ($LGEKIT_AVAILABLE_MEMORY)" in msg
    assert "lower dim (now 10000000)" in msg and "float32'" not in msg


def test_float64_advice_also_names_dtype(ring300, monkeypatch):
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "100M")
    with pytest.raises(MemoryError, match=r"lower dim \(now 100000\) or use dtype='float32' \(half the bytes\)"):
        LogisticEmbedding(dim=100_000, dtype="float64").fit(ring300)


def test_many_pairs_advice_names_the_negatives(ring300, monkeypatch):
    # 3,000 pairs of about 24 bytes each (the solver's records, order and incidence lists) do not fit in 50K
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "50K")
    with pytest.raises(MemoryError, match=r"for 3,000 training pairs\).*fewer negatives per edge"):
        LogisticEmbedding(dim=2).fit(ring300)


def test_fits_that_fit_are_not_refused(ring300, monkeypatch):
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "64M")
    model = LogisticEmbedding(dim=16, epochs=1, random_state=0).fit(ring300)
    assert model.embedding_.shape == (300, 16)


def test_limited_address_space_is_seen_without_the_override():
    # a real limit (RLIMIT_AS), no environment variable: the estimate is compared with it before allocating
    code = textwrap.dedent("""
        import os, resource
        import lgekit
        os.environ.pop("LGEKIT_AVAILABLE_MEMORY", None)
        with open("/proc/self/status") as fh:
            vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, resource.getrlimit(resource.RLIMIT_AS)[1]))
        n = 300
        g = lgekit.Graph.from_edges([(i, (i + 1) % n) for i in range(n)])
        try:
            lgekit.LogisticEmbedding(dim=10**7, random_state=0).fit(g)
        except MemoryError as exc:
            print(exc)
    """)
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc/self/status (Linux)")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "LGEKIT_AVAILABLE_MEMORY"})
    assert out.returncode == 0, out.stderr
    assert "needs about 11.3 GiB" in out.stdout and "RLIMIT_AS" in out.stdout, out.stdout + out.stderr
    assert time.perf_counter() - t0 < 60


@pytest.mark.parametrize("text, expected", [("1024", 1024), ("2K", 2048), ("1.5G", 3 * 2**29), ("8 GiB", 8 * 2**30),
                                            ("3m", 3 * _MIB)])
def test_memory_override_parsing(monkeypatch, text, expected):
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", text)
    assert available_memory() == (expected, "$LGEKIT_AVAILABLE_MEMORY")


def test_bad_memory_override_is_a_clear_error(ring300, monkeypatch):
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "lots")
    with pytest.raises(ValueError, match=r"\$LGEKIT_AVAILABLE_MEMORY must be a number of bytes.*got 'lots'"):
        LogisticEmbedding(dim=2).fit(ring300)


def test_available_memory_without_override_is_positive(monkeypatch):
    monkeypatch.delenv("LGEKIT_AVAILABLE_MEMORY", raising=False)
    value, source = available_memory()
    if value is not None:
        assert value > 0 and isinstance(source, str)


def test_fit_cli_reports_memory_in_one_line(tmp_path, monkeypatch, capsys):
    graph = tmp_path / "ring.edgelist"
    graph.write_text("".join(f"{i} {(i + 1) % 300}\n" for i in range(300)))
    monkeypatch.setenv("LGEKIT_AVAILABLE_MEMORY", "1G")
    assert main(["fit", str(graph), "--model", "logistic", "--dim", "10000000", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "out of memory" in err and "lower dim (now 10000000)" in err and "Traceback" not in err
