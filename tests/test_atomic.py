import os
import re
import stat
import threading

import numpy as np
import pytest

from lgekit._atomic import atomic_path, atomic_write_text, temporary_target


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


# ---------------------------------------------------------------------------- issue #13, items 1 and 17
def test_umask_is_never_touched(tmp_path, monkeypatch):
    """Item 17: another thread creating files meanwhile must not see a zero umask, so it is never set."""
    def forbidden(mask):
        raise AssertionError(f"os.umask({mask:o}) called: it changes the umask of every thread")

    monkeypatch.setattr(os, "umask", forbidden)
    atomic_write_text(tmp_path / "a.txt", "x")
    with atomic_path(tmp_path / "m.npz") as tmp:
        np.savez(tmp, x=np.ones(1))
    assert (tmp_path / "a.txt").read_text() == "x" and (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o027])
def test_mode_follows_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "f.txt", "x")
        open(tmp_path / "plain.txt", "w").close()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)


def test_temporary_names_are_unmistakable(tmp_path):
    """Item 1: a temporary is .lgekit-tmp.<32 hex>.<target name>, ending with the target's suffix."""
    seen = []
    for name, suffix, end in [("fig3.pdf", None, ".fig3.pdf"), ("records.jsonl", None, ".records.jsonl"),
                              ("model", ".npz", ".model.npz"), ("model.npz", ".npz", ".model.npz"),
                              ("x" * 250 + ".pdf", None, ".x.pdf")]:
        with atomic_path(tmp_path / name, suffix=suffix) as tmp:
            seen.append(tmp.name)
            assert tmp.parent == tmp_path and tmp.name.endswith(end)
            assert re.fullmatch(r"\.lgekit-tmp\.[0-9a-f]{32}\..+", tmp.name)
            assert len(os.fsencode(tmp.name)) <= 255
            if len(name) < 100:
                assert temporary_target(tmp.name) == name + (suffix if suffix and not name.endswith(suffix) else "")
    assert len(set(seen)) == len(seen)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["fig3.pdf", "records.jsonl", "model", "model.npz",
                                                                 "x" * 250 + ".pdf"])


@pytest.mark.parametrize("name", [".fig3.pdf.k2j4x0q1.pdf", ".my.notes.txt", ".lgekit-tmp.abc.fig3.pdf",
                                  f".lgekit-tmp.{'A' * 32}.fig3.pdf", f".lgekit-tmp-{'a' * 32}.fig3.pdf",
                                  f"lgekit-tmp.{'a' * 32}.fig3.pdf", f".lgekit-tmp.{'a' * 32}."])
def test_temporary_target_rejects_look_alikes(name):
    assert temporary_target(name) is None


def test_concurrent_writers_in_threads(tmp_path):
    """Threads writing atomically side by side (as a Dask driver or a GUI might) each get their whole file."""
    def write(i):
        for j in range(20):
            atomic_write_text(tmp_path / f"t{i}.txt", f"{i}:{j}" * 100)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"t{i}.txt" for i in range(4)]
    assert all((tmp_path / f"t{i}.txt").read_text() == f"{i}:19" * 100 for i in range(4))
