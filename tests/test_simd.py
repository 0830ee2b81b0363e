"""The AVX2+FMA kernel builds agree with the generic builds, and the choice is controllable."""
import importlib
import io
import platform
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lgekit
from lgekit import _simd
from lgekit._openmp import cpu_supports_avx2_fma
from lgekit.datasets import planted_partition_graph
from lgekit.models import _dcd_solver, _sgd_solver


def _variant_or_skip(name):
    if not cpu_supports_avx2_fma():
        pytest.skip("this CPU has no AVX2/FMA: only the generic kernels run here")
    try:
        return importlib.import_module(name + "_avx2")
    except ImportError:
        pytest.skip("AVX2 kernels were not built (LGEKIT_NO_SIMD or the compiler lacks -mavx2 -mfma)")


@pytest.fixture(scope="module")
def split():
    g = planted_partition_graph(n_nodes=300, n_labels=5, mean_degree=12, seed=3)
    return lgekit.split_edges(g, seed=0)


@pytest.mark.parametrize("module, attrs, estimator", [
    (_sgd_solver, ("_sgd", "_sgd_diagnostics"),
     lambda: lgekit.LogisticEmbedding(dim=16, lam_r=0.1, epochs=3, dtype="float64", random_state=0)),
    (_dcd_solver, ("_dcd", "_dcd_diagnostics"), lambda: lgekit.HingeEmbedding(dim=16, lam_r=3.0, epochs=3, dtype="float64", random_state=0)),
])
def test_avx2_build_matches_generic_build(monkeypatch, split, module, attrs, estimator):
    # the solvers hold the kernel modules they run: swap every one of them between the two builds
    builds = {attr: (importlib.import_module(f"lgekit.models.{attr}"), _variant_or_skip(f"lgekit.models.{attr}"))
              for attr in attrs}
    for attr, (generic, _) in builds.items():
        monkeypatch.setattr(module, attr, generic)
    reference = estimator().fit(split)
    for attr, (_, fast) in builds.items():
        monkeypatch.setattr(module, attr, fast)
    result = estimator().fit(split)
    # Same operations in the same order; FMA only changes the rounding of a*b+c
    # (one rounding instead of two, <= 1 ulp per operation).  Over 3 epochs of
    # ~1e4 updates on entries of size ~1 the drift stays far below 1e-9.
    np.testing.assert_allclose(result.embedding_, reference.embedding_, rtol=0, atol=1e-9)
    assert reference.history_[-1]["objective"] == pytest.approx(result.history_[-1]["objective"], rel=1e-9)
    assert all(generic is not fast for generic, fast in builds.values())


@given(st.integers(1, 70), st.integers(1, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_avx2_pair_scores_of_float32_rows_are_the_generic_bits(dim, n_pairs, seed):
    # a product of two floats is exact in a double, so the AVX2 build's fused multiply-adds round as
    # the generic build's multiply-then-add: the float32 scores (and so every AP) are the same bits,
    # for every width (the 8-wide steps and the tail) and any thread count
    fast = _variant_or_skip("lgekit._scoring")
    generic = importlib.import_module("lgekit._scoring")
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((9, dim)) * rng.choice([1e-3, 1.0, 1e3])).astype(np.float32)
    y = rng.standard_normal((9, dim)).astype(np.float32)
    pairs = rng.integers(0, 9, (n_pairs, 2)).astype(np.int64)
    expected = generic.pair_dots(x, y, pairs, 1)
    np.testing.assert_array_equal(fast.pair_dots(x, y, pairs, 1), expected)
    np.testing.assert_array_equal(fast.pair_dots(x, y, pairs, 3), expected)
    exact = np.einsum("ij,ij->i", x[pairs[:, 0]].astype(np.float64), y[pairs[:, 1]].astype(np.float64))
    np.testing.assert_allclose(expected, exact, rtol=1e-12, atol=1e-12 * np.abs(exact).max())


def test_metrics_and_callbacks_use_the_chosen_scoring_build():
    from lgekit import callbacks
    from lgekit.metrics import _link

    assert _link._scoring is callbacks._scoring
    assert _simd.chosen_kernels()["_scoring"] == _simd.kernel_variant(_link._scoring)


def test_generic_choice_and_bad_value(monkeypatch):
    # the builds these loads record are undone after the test: show_versions reports what the solvers loaded
    monkeypatch.setattr(_simd, "_chosen", dict(_simd._chosen))
    monkeypatch.setenv("LGEKIT_SIMD", "generic")
    assert _simd.kernel_variant(_simd.load_kernel("lgekit.models._sgd")) == "generic"
    monkeypatch.setenv("LGEKIT_SIMD", "sse9")
    with pytest.raises(ValueError, match="LGEKIT_SIMD must be one of"):
        _simd.load_kernel("lgekit.models._sgd")


def test_auto_picks_avx2_when_available(monkeypatch):
    _variant_or_skip("lgekit.models._sgd")
    monkeypatch.setattr(_simd, "_chosen", dict(_simd._chosen))
    monkeypatch.setenv("LGEKIT_SIMD", "auto")
    assert _simd.kernel_variant(_simd.load_kernel("lgekit.models._sgd")) == "avx2"


def test_cpu_detection_agrees_with_the_kernel_of_linux():
    # lgekit._openmp reads CPUID and XCR0 itself (one code path for gcc, clang and MSVC); Linux's
    # flags list says the same thing (it drops avx2/fma when the OS does not save YMM state).
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.is_file() or platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("needs Linux on x86-64 (/proc/cpuinfo) to compare against")
    flags = set()
    for line in cpuinfo.read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    assert cpu_supports_avx2_fma() == ({"avx2", "fma"} <= flags)


def test_show_versions_names_the_builds_the_solvers_run():
    text = io.StringIO()
    lgekit.show_versions(file=text)
    lines = dict(line.strip().split(": ", 1) for line in text.getvalue().splitlines())
    expected = {"_sgd": _simd.kernel_variant(_sgd_solver._sgd), "_dcd": _simd.kernel_variant(_dcd_solver._dcd)}
    shown = dict(item.split("=") for item in lines["kernels"].split(", "))
    assert {name: shown[name] for name in expected} == expected
    openmp = lines["openmp"]
    assert openmp == "True" or openmp.startswith("False (a serial build")
