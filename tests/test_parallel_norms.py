"""``row_norms`` of ``_sgd_diagnostics`` (the per-epoch mean norm on the epoch's threads) agrees with
NumPy's row norms, and does not depend on the thread count."""
import numpy as np
import pytest

from lgekit._simd import load_kernel

_sgd_diagnostics = load_kernel("lgekit.models._sgd_diagnostics")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_norms_match_numpy_for_any_thread_count(dtype):
    emb = np.random.default_rng(0).normal(size=(1003, 37)).astype(dtype)
    expected = np.sqrt(np.einsum("ij,ij->i", emb, emb, dtype=np.float64))
    got = [_sgd_diagnostics.row_norms(emb, t) for t in (1, 2, 3)]
    np.testing.assert_allclose(got[0], expected, rtol=1e-14)
    assert all(np.array_equal(g, got[0]) for g in got[1:])


def test_row_norms_of_an_empty_table():
    assert _sgd_diagnostics.row_norms(np.empty((0, 4)), 2).shape == (0,)
