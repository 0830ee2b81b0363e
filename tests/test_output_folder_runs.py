"""An output folder holds one finished run (issue 42, triggers 1-7; items 1 and 2).

A run writes its files into a staging folder inside ``--out`` (held by descriptor) and publishes them
together; a failed or killed run leaves the previous run's files exactly as they were, plus at most its
own run folder, which the manifest lists and the next run removes.  Nothing is removed for its name.
Each test is one of the issue's triggers, shown failing on the code before it (c2c7ce5).
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import lgekit.models
from lgekit._output_folder import MANIFEST_NAME, OutputFolder
from lgekit.cli import main
from lgekit.experiments.report import reproduce

# the source tree under test (the one imported here), which the subprocesses import too
ROOT = Path(lgekit.models.__file__).resolve().parent.parent.parent
TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}}
TINY = {"*": {"params": {"epochs": 3, "dim": 12}}, "fig6": {"grid": {"dim": [8, 16]}}}
FIT_FILES = ("embedding.npz", "embedding.txt", "history.json", "fit.json")

posix_only = pytest.mark.skipif(os.name != "posix", reason="symbolic links, signals and resource limits")


@pytest.fixture
def ring(tmp_path):
    path = tmp_path / "ring.txt"
    path.write_text("".join(f"{i} {(i + 1) % 30}\n{i} {(i + 4) % 30}\n" for i in range(30)))
    return path


def _fit(graph, out, *extra, dim=4):
    return main(["fit", str(graph), "--model", "logistic", "--dim", str(dim), "--epochs", "2", "--test-fraction",
                 "0.2", "--out", str(out), *extra])


def _files(folder, names=FIT_FILES):
    return {name: (Path(folder) / name).read_bytes() for name in names if (Path(folder) / name).exists()}


def _run_folders(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith(".lgekit-run."))


def _one_line(err):
    lines = [line for line in err.splitlines() if line.startswith("lgekit ")]
    return len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in err


# ---------------------------------------------------------------------------- trigger 1
def test_reproduce_never_removes_a_users_file_for_its_name(tmp_path):
    """The user's copies named like an earlier version's temporaries survive a plain rerun and a forced one."""
    out = tmp_path / "R"
    reproduce(["fig6"], dataset=TINY_DATASET, out=out, quick=True, n_jobs=1, progress=False, overrides=TINY)
    copies = {".report.md.20240101.md": b"my copy of the report", ".fig1.png.20240101.png": b"my figure",
              ".records.jsonl.20240101.jsonl": b"my records"}
    for name, data in copies.items():
        (out / name).write_bytes(data)
    reproduce(["fig6"], dataset=TINY_DATASET, out=out, quick=True, n_jobs=1, progress=False, overrides=TINY)
    assert _files(out, copies) == copies
    copies[".summary.json.backup_1.json"] = b"my summary"
    (out / ".summary.json.backup_1.json").write_bytes(b"my summary")
    reproduce(["fig6"], dataset=TINY_DATASET, out=out, quick=True, n_jobs=1, progress=False, overrides=TINY,
              force=True)
    assert _files(out, copies) == copies
    assert _run_folders(out) == []


# ---------------------------------------------------------------------------- trigger 2
@posix_only
def test_an_out_swapped_for_a_symlink_mid_run_sends_nothing_there(ring, tmp_path, monkeypatch):
    """`mv OUT OUT.real; ln -s /victim OUT` after the lock is taken: every file still goes to the folder the run
    opened (now OUT.real), none to the victim."""
    victim = tmp_path / "victim"
    victim.mkdir()
    out = tmp_path / "OUT"
    real_fit = lgekit.models.LogisticEmbedding.fit

    def fit_then_swap(self, *args, **kwargs):
        fitted = real_fit(self, *args, **kwargs)
        out.rename(tmp_path / "OUT.real")
        out.symlink_to(victim, target_is_directory=True)
        return fitted

    monkeypatch.setattr(lgekit.models.LogisticEmbedding, "fit", fit_then_swap)
    assert _fit(ring, out) == 0
    assert list(victim.iterdir()) == []
    assert set(FIT_FILES) <= {p.name for p in (tmp_path / "OUT.real").iterdir()}
    assert OutputFolder(tmp_path / "OUT.real", command="lgekit fit").owned() == sorted(FIT_FILES)


@posix_only
def test_a_folder_swapped_for_a_symlink_every_half_millisecond_leaks_nothing(ring, tmp_path, capsys):
    """The issue's loop: --out renamed away and replaced by a link to the victim, and back, every 0.5 ms, across
    six fits.  Each fit succeeds into a real folder or fails in one line; nothing ever lands in the victim."""
    import threading
    import time

    victim = tmp_path / "victim"
    victim.mkdir()
    out, away = tmp_path / "OUT", tmp_path / "OUT.real"
    out.mkdir()
    stop = threading.Event()

    def swap():
        while not stop.is_set():
            try:
                if out.is_symlink():
                    out.unlink()
                    away.rename(out)
                else:
                    out.rename(away)
                    out.symlink_to(victim, target_is_directory=True)
            except OSError:
                pass
            time.sleep(0.0005)

    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        codes = [_fit(ring, out, "--seed", str(seed)) for seed in range(6)]
    finally:
        stop.set()
        swapper.join()
    err = capsys.readouterr().err
    assert set(codes) <= {0, 2} and "Traceback" not in err, err[-3000:]
    assert list(victim.iterdir()) == []


# ---------------------------------------------------------------------------- trigger 3
@posix_only
def test_a_file_renamed_onto_a_stale_name_after_its_check_is_not_deleted(ring, tmp_path, monkeypatch, capsys):
    """An earlier fit's embedding.png is stale for a fit without --plot; the user renames a file onto that name
    just after lgekit checked it: the user's file stays, and lgekit does not claim to have removed it."""
    out = tmp_path / "o"
    assert _fit(ring, out, "--plot") == 0
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"the user's picture")
    real = OutputFolder._sha256_at

    def then_rename(*args):
        digest = real(*args)
        if args[-1] == "embedding.png" and mine.exists():   # lgekit has just checked embedding.png
            mine.rename(out / "embedding.png")
        return digest

    monkeypatch.setattr(OutputFolder, "_sha256_at", staticmethod(then_rename))
    capsys.readouterr()
    assert _fit(ring, out) == 0
    assert (out / "embedding.png").read_bytes() == b"the user's picture"
    assert "removed" not in capsys.readouterr().out


@posix_only
def test_a_file_renamed_onto_a_name_while_it_is_written_is_not_replaced(ring, tmp_path, monkeypatch, capsys):
    """The user renames a file onto embedding.npz while lgekit writes it: nothing is published (one line), the
    user's file stays, and the earlier fit's other files are as they were."""
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    earlier = _files(out)
    mine = tmp_path / "mine.npz"
    mine.write_bytes(b"the user's model")
    real_save = lgekit.models.BaseEmbedding.save

    def save_while_the_user_renames(self, target):
        mine.rename(out / "embedding.npz")
        return real_save(self, target)

    monkeypatch.setattr(lgekit.models.BaseEmbedding, "save", save_while_the_user_renames)
    capsys.readouterr()
    assert _fit(ring, out, "--seed", "3") == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "'embedding.npz'" in err and "did not write" in err
    assert (out / "embedding.npz").read_bytes() == b"the user's model"
    assert {k: v for k, v in _files(out).items() if k != "embedding.npz"} == {
        k: v for k, v in earlier.items() if k != "embedding.npz"}
    assert _run_folders(out) == []


# ---------------------------------------------------------------------------- trigger 4
@posix_only
def test_a_fit_the_disk_refuses_midway_leaves_the_earlier_fit_whole(ring, tmp_path):
    """A fit of dim 1000 into a folder holding a dim-4 fit, on a disk that refuses files past 400 kB (the
    model file fits, the word2vec file does not): one line, and every file is still the earlier fit's."""
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    earlier = _files(out)
    limit = 400_000
    code = (f"import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
            "from lgekit.cli import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "fit", str(ring), "--model", "logistic", "--dim", "1000",
                           "--epochs", "2", "--test-fraction", "0.2", "--seed", "3", "--out", str(out)],
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    assert _one_line(done.stderr) and "File too large (errno EFBIG)" in done.stderr
    assert _files(out) == earlier
    assert _run_folders(out) == []
    assert main(["evaluate", str(out / "fit.json"), str(ring), "--test-fraction", "0.2"]) == 0


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), MPLBACKEND="Agg")


# A command run in a subprocess that kills itself (SIGKILL) at a chosen point, the same way in any version of
# lgekit: after the archive of the model file is written (numpy.savez), or once a name is put in place (by
# os.replace, os.rename or os.link, whichever the version uses).
_KILLED = textwrap.dedent("""
    import os, signal, sys
    import numpy
    point, target = sys.argv[1], sys.argv[2]

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    if point == "savez":
        real_savez = numpy.savez

        def savez(*args, **kwargs):
            real_savez(*args, **kwargs)
            die()

        numpy.savez = savez
    else:
        for name in ("replace", "rename", "link"):
            def wrapped(src, dst, *args, _real=getattr(os, name), **kwargs):
                result = _real(src, dst, *args, **kwargs)
                if os.fsdecode(dst).endswith(target):
                    die()
                return result

            setattr(os, name, wrapped)
    from lgekit.cli import main
    sys.exit(main(sys.argv[3:]))
""")


def _killed_fit(ring, out, point, target="", *extra):
    done = subprocess.run([sys.executable, "-c", _KILLED, point, target, "fit", str(ring), "--model", "logistic",
                           "--epochs", "2", "--test-fraction", "0.2", "--out", str(out), *extra],
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])


def _evaluate_ap(capsys, target, ring, seed=0):
    capsys.readouterr()
    code = main(["evaluate", str(target), str(ring), "--test-fraction", "0.2", "--seed", str(seed), "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out)["ap"] if code == 0 else None), captured.err


@posix_only
@pytest.mark.slow  # a subprocess importing lgekit and training, killed: ~5 s on 2 busy cores
def test_a_fit_killed_while_publishing_is_never_read_as_one_run(ring, tmp_path, capsys):
    """kill -9 right after embedding.npz is put in place: evaluate never scores a model with another's files
    (fit.json names the content of each file: refused in one line), and the next run into the folder finishes
    the publication, so that every file is the killed fit's."""
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    _killed_fit(ring, out, "link", "embedding.npz", "--dim", "16", "--seed", "3")
    code_record, ap_record, err = _evaluate_ap(capsys, out / "fit.json", ring)
    _, ap_text, _ = _evaluate_ap(capsys, out / "embedding.txt", ring)
    # either refused (a folder of two runs), or the two files agree on one model
    assert (code_record == 2 and "two runs" in err and _one_line(err)) or ap_record == ap_text
    with OutputFolder(out, command="lgekit fit").lock():   # the next run into the folder
        pass
    info = json.loads((out / "fit.json").read_text())
    model = lgekit.models.BaseEmbedding.load(out / "embedding.npz")
    assert info["seed"] == 3 and model.get_params()["random_state"] == 3 and model.embedding_.shape[1] == 16
    _, ap_record, _ = _evaluate_ap(capsys, out / "fit.json", ring, seed=3)
    _, ap_text, _ = _evaluate_ap(capsys, out / "embedding.txt", ring, seed=3)
    assert ap_record == ap_text == info["final"]["test_ap"]
    assert _run_folders(out) == [] and not list(out.glob(".lgekit-tmp.*"))


# ---------------------------------------------------------------------------- trigger 5
def test_a_diverged_fit_leaves_the_earlier_fit_as_it_was(ring, tmp_path, capsys):
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    earlier = _files(out)
    capsys.readouterr()
    assert _fit(ring, out, "--lr", "1e30", "--lam-r", "0") == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "training diverged" in err
    assert _files(out) == earlier
    # this run's history, in its run folder, named in the message; removed by the next run into the folder
    kept = Path(re.search(r"this run's history is in (\S+), removed by the next run", err).group(1))
    assert json.loads(kept.read_text())[-1]["diverged"] is True
    assert _run_folders(out) == [kept.parent.name]
    assert _fit(ring, out) == 0
    assert _run_folders(out) == []


# ---------------------------------------------------------------------------- trigger 6
def test_fit_writes_nothing_outside_its_folder(ring, tmp_path, monkeypatch):
    """No scratch copy in $TMPDIR: a fit works when the temporary folder is unusable, and leaves nothing there."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-tmp"))
    assert _fit(ring, tmp_path / "o") == 0
    assert not (tmp_path / "no-such-tmp").exists()
    assert set(FIT_FILES) <= {p.name for p in (tmp_path / "o").iterdir()}


def test_fit_streams_the_word2vec_tables_as_to_word2vec_writes_them(ring, tmp_path):
    """The tables fit writes without a scratch copy are byte for byte what model.to_word2vec writes (one table;
    two tables: its source rows, and its context rows without their prefix)."""
    for kind in ([], ["--directed"]):
        out = tmp_path / f"o{len(kind)}"
        assert _fit(ring, out, *kind) == 0
        model = lgekit.models.BaseEmbedding.load(out / "embedding.npz")
        model.to_word2vec(tmp_path / "both.txt")
        lines = (tmp_path / "both.txt").read_text().splitlines(keepends=True)
        n = len(model.node_ids_)
        dim = model.embedding_.shape[1]
        assert (out / "embedding.txt").read_text() == f"{n} {dim}\n" + "".join(lines[1:1 + n])
        if kind:
            rest = lines[1 + n:]
            assert (out / "context_embedding.txt").read_text() == f"{len(rest)} {dim}\n" + "".join(
                line[len("context:"):] for line in rest)


# ---------------------------------------------------------------------------- trigger 7
@posix_only
@pytest.mark.slow  # three subprocesses importing lgekit and training, killed: ~15 s on 2 busy cores
def test_killed_saves_leave_at_most_one_leftover_which_the_next_run_removes(ring, tmp_path):
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    earlier = _files(out)
    for seed in (1, 2, 3):
        _killed_fit(ring, out, "savez", "", "--dim", "8", "--seed", str(seed))
        assert _files(out) == earlier
        assert len(_run_folders(out)) <= 1 and not list(out.glob(".lgekit-tmp.*"))
    assert _fit(ring, out, "--seed", "5") == 0
    assert _run_folders(out) == [] and not list(out.glob(".lgekit-tmp.*"))
    assert json.loads((out / "fit.json").read_text())["seed"] == 5


# ---------------------------------------------------------------------------- what holds with it
def test_a_run_folder_is_listed_before_it_is_made_and_proves_nothing_else(tmp_path, monkeypatch):
    """A run killed while it writes leaves its folder, listed in the manifest: the next run removes it; a folder
    named like one that the manifest does not list is the user's, and stays, whatever is inside."""
    folder = OutputFolder(tmp_path, command="lgekit fit")
    folder.write_text("a.txt", "A")
    fake = tmp_path / (".lgekit-run." + "0" * 32)
    fake.mkdir()
    (fake / "mine.txt").write_text("the user's")
    monkeypatch.setattr(OutputFolder, "_close_run", lambda self, run, publish: None)   # killed: nothing after
    with folder.run() as staging:
        listed = json.loads((tmp_path / MANIFEST_NAME).read_text())["runs"]
        assert staging.name in listed and listed[staging.name]["state"] == "writing"
        folder.write_text("a.txt", "B")
    monkeypatch.undo()
    assert (tmp_path / "a.txt").read_text() == "A" and (staging / "0001.a.txt").read_text() == "B"
    with OutputFolder(tmp_path, command="lgekit theory").lock():   # the next run into the folder, any command
        pass
    assert not staging.exists() and (fake / "mine.txt").read_text() == "the user's"
    assert _run_folders(tmp_path) == [fake.name] and (tmp_path / "a.txt").read_text() == "A"


def test_a_published_file_is_the_one_written_and_listed_with_its_hash(tmp_path):
    folder = OutputFolder(tmp_path, command="lgekit fit")
    data = np.arange(10).tobytes()
    with folder.run():
        with folder.writing("x.bin") as fh:
            fh.write(data)
        assert not (tmp_path / "x.bin").exists()     # staged, not yet published
        assert folder.read_bytes("x.bin") == data
    listed = json.loads((tmp_path / MANIFEST_NAME).read_text())
    assert listed["files"]["x.bin"]["sha256"] == [hashlib.sha256(data).hexdigest()] and listed["runs"] == {}
    assert (tmp_path / "x.bin").read_bytes() == data
