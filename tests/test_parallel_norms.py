"""``row_sqnorms`` of ``_scoring`` (the solvers' per-epoch squared norms on the epoch's threads: DCD's
partner norms, a record's mean norm) agrees with NumPy's, is each row's pair score x_u . x_u, and does
not depend on the thread count."""
import numpy as np
import pytest

from lgekit._simd import load_kernel

_scoring = load_kernel("lgekit._scoring")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_sqnorms_match_numpy_for_any_thread_count(dtype):
    emb = np.random.default_rng(0).normal(size=(1003, 37)).astype(dtype)
    expected = np.einsum("ij,ij->i", emb, emb, dtype=np.float64)
    got = [_scoring.row_sqnorms(emb, t) for t in (1, 2, 3)]
    np.testing.assert_allclose(got[0], expected, rtol=1e-14)
    assert all(np.array_equal(g, got[0]) for g in got[1:])
    diagonal = np.repeat(np.arange(len(emb), dtype=np.int64), 2).reshape(-1, 2)
    np.testing.assert_array_equal(got[0], _scoring.pair_dots(emb, emb, diagonal, 1))


def test_row_sqnorms_of_empty_tables():
    assert _scoring.row_sqnorms(np.empty((0, 4)), 2).shape == (0,)
    np.testing.assert_array_equal(_scoring.row_sqnorms(np.empty((3, 0), np.float32), 2), np.zeros(3))
