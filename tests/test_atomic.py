import os
import stat

import numpy as np
import pytest

from lgekit._atomic import atomic_path, atomic_write_text


def test_atomic_write_replaces_whole_file_with_normal_permissions(tmp_path):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "first")
    atomic_write_text(target, "second")
    assert target.read_text() == "second"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "data.npz"
    np.savez(target, a=np.arange(3))
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_path(target) as tmp:
            np.savez(tmp, a=np.arange(5))
            raise RuntimeError("boom")
    assert np.load(target)["a"].tolist() == [0, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["data.npz"]


def test_suffix_kept_so_savez_writes_the_named_file(tmp_path):
    target = tmp_path / "model.npz"
    with atomic_path(target) as tmp:
        assert str(tmp).endswith(".npz")
        np.savez(tmp, x=np.ones(2))
    assert np.load(target)["x"].tolist() == [1.0, 1.0]


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        atomic_write_text(tmp_path / "nope" / "f.txt", "x")
