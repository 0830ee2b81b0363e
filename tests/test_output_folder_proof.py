"""An output folder is lgekit's only as far as it can prove it (issue 33, items 1-4, 11-13).

Every path lgekit deletes or overwrites is a regular file inside the folder (no symbolic link on the way),
listed in the manifest by the command that wrote it, with the hash it wrote; one writer at a time per
folder.  Each test below is a hostile folder (or a hostile run) that an earlier version mishandled.
"""
import errno
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lgekit.models
import lgekit.models._node_vectors
from lgekit._output_folder import MANIFEST_NAME, FolderLockedError, FolderNotOursError, OutputFolder
from lgekit.cli import main
from lgekit.experiments.report import reproduce
from lgekit.experiments.store import ResultsStore

ROOT = Path(__file__).resolve().parent.parent
TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}}
TINY = {"*": {"params": {"epochs": 3, "dim": 12}}, "fig6": {"grid": {"dim": [8, 16]}}}

posix_only = pytest.mark.skipif(os.name != "posix", reason="symbolic links and flock")


@pytest.fixture
def ring(tmp_path):
    path = tmp_path / "ring.txt"
    path.write_text("".join(f"{i} {(i + 1) % 30}\n{i} {(i + 4) % 30}\n" for i in range(30)))
    return path


@pytest.fixture
def no_training(monkeypatch):
    """Fail the test if a model is trained: the refusals below must come before the work."""
    trained = []

    def fit(self, *args, **kwargs):
        trained.append(type(self).__name__)
        raise AssertionError("trained before the folder was checked")

    for cls in (lgekit.models.LogisticEmbedding, lgekit.models.HingeEmbedding):
        monkeypatch.setattr(cls, "fit", fit)
    return trained


def _fit(graph, out, *extra):
    return main(["fit", str(graph), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out", str(out), *extra])


def _sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _manifest(folder, files, version=1):
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / MANIFEST_NAME).write_text(json.dumps(
        {"format": "lgekit output folder manifest", "version": version, "files": files}))


def _outside(tmp_path):
    """A folder outside every output folder, with two files of the user's in it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "victim.txt").write_text("the user's data\n")
    (elsewhere / "v2.txt").write_text("more of the user's data\n")
    return elsewhere


def _one_line(err, trained=False):
    """The error is one line, ``lgekit COMMAND: error: ...``, and no traceback.

    Before it, fit's progress line "loaded GRAPH: ..." and, once trained, the model's progress.
    """
    lines = err.splitlines()
    if not trained:
        lines = [line for line in lines if not line.startswith("loaded ")]
    else:
        lines = lines[-1:]
    return (len(lines) == 1 and lines[0].startswith("lgekit ") and ": error: " in lines[0]
            and "Traceback" not in err and sum(": error: " in line for line in err.splitlines()) == 1)


# ---------------------------------------------------------------------------- item 1: symlinks and "*"
@posix_only
def test_the_issues_crafted_folder_deletes_nothing_outside_it(ring, tmp_path, capsys, no_training):
    """A symlink to another folder and a manifest listing files behind it, one with the "*" wildcard."""
    elsewhere = _outside(tmp_path)
    out = tmp_path / "D"
    out.mkdir()
    (out / "link").symlink_to(elsewhere, target_is_directory=True)
    _manifest(out, {"link/victim.txt": ["*"], "link/v2.txt": [_sha(elsewhere / "v2.txt")]})
    assert _fit(ring, out) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "not an lgekit output folder" in err and "'*'" in err
    assert sorted(p.name for p in elsewhere.iterdir()) == ["v2.txt", "victim.txt"]
    assert not no_training


@posix_only
@pytest.mark.parametrize("version", [1, 2])
def test_a_listed_file_behind_a_symlink_is_never_ours(ring, tmp_path, capsys, version):
    """The same folder with a well-formed manifest (real hashes; fit as the writer, or of an earlier
    version that names none): the fit runs, and deletes nothing behind the links (not inside the folder)."""
    elsewhere = _outside(tmp_path)
    out = tmp_path / "D"
    out.mkdir()
    (out / "link").symlink_to(elsewhere, target_is_directory=True)
    (out / "alias.txt").symlink_to(elsewhere / "victim.txt")
    hashes = {name: [_sha(elsewhere / Path(name).name.replace("alias", "victim"))]
              for name in ("link/victim.txt", "link/v2.txt", "alias.txt")}
    _manifest(out, hashes if version == 1 else {n: {"writer": "lgekit fit", "sha256": h} for n, h in hashes.items()},
              version=version)
    folder = OutputFolder(out, command="lgekit fit")
    assert folder.owned() == []
    assert not folder.owns("link/v2.txt") and not folder.owns("alias.txt")
    assert _fit(ring, out) == 0
    assert "removed" not in capsys.readouterr().out
    assert sorted(p.name for p in elsewhere.iterdir()) == ["v2.txt", "victim.txt"]
    assert (out / "link").is_symlink() and (out / "alias.txt").is_symlink()


@posix_only
def test_nothing_is_written_through_a_symlinked_subfolder(tmp_path):
    elsewhere = _outside(tmp_path)
    folder = OutputFolder(tmp_path / "D")
    (tmp_path / "D" / "sub").symlink_to(elsewhere, target_is_directory=True)
    for force in (False, True):
        folder.force = force
        with pytest.raises(FolderNotOursError, match="'sub/new.txt'.*symbolic link"):
            folder.write_text("sub/new.txt", "x")
        with pytest.raises(FolderNotOursError, match="symbolic link"):
            folder.check_writable(["sub/new.txt"])
    assert sorted(p.name for p in elsewhere.iterdir()) == ["v2.txt", "victim.txt"]


@pytest.mark.parametrize("hashes, why", [
    (["*"], "'\\*'"),                       # the undocumented wildcard: any content
    (["0" * 63], "not a SHA-256"),
    ([], "no hash"),
    ({"writer": "lgekit fit"}, "no hash"),
    ({"writer": 3, "sha256": ["0" * 64]}, "writer"),
    (7, "neither"),
])
def test_a_manifest_entry_without_a_real_hash_proves_nothing(tmp_path, hashes, why):
    out = tmp_path / "D"
    _manifest(out, {"a.txt": hashes}, version=2 if isinstance(hashes, dict) else 1)
    (out / "a.txt").write_text("anything")
    with pytest.raises(FolderNotOursError, match=f"not an lgekit output folder.*{why}"):
        OutputFolder(out)
    assert (out / "a.txt").read_text() == "anything"
    # forced: the folder is written into, and still nothing it holds is lgekit's
    assert OutputFolder(out, force=True).remove_stale(keep=()) == []
    assert (out / "a.txt").read_text() == "anything"


# ---------------------------------------------------------------------------- item 2: each command its own files
def test_fit_into_a_reproduce_folder_keeps_every_result(ring, tmp_path, capsys):
    out = tmp_path / "res"
    reproduce(["fig6"], dataset=TINY_DATASET, out=out, quick=True, n_jobs=1, progress=False, overrides=TINY)
    results = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name not in (MANIFEST_NAME, ".lock")}
    assert {"report.md", "report.html", "fig6.png", "fig6.pdf", "records.jsonl", "plan.json",
            "summary.json"} <= set(results)
    assert _fit(ring, out) == 0
    assert "removed" not in capsys.readouterr().out
    assert {name: (out / name).read_bytes() for name in results} == results
    manifest = json.loads((out / MANIFEST_NAME).read_text())["files"]
    assert manifest["report.md"]["writer"] == "lgekit reproduce"
    assert manifest["embedding.npz"]["writer"] == "lgekit fit"
    # and a later fit still cleans up its own: directed (two tables), then undirected
    assert _fit(ring, out, "--directed") == 0
    assert _fit(ring, out) == 0
    assert "removed an earlier fit's" in capsys.readouterr().out and not (out / "context_embedding.txt").exists()
    assert {name: (out / name).read_bytes() for name in results} == results


def test_fit_into_a_theory_folder_keeps_its_report(ring, tmp_path, capsys):
    out = tmp_path / "theory"
    theory = OutputFolder(out, command="lgekit theory")   # what lgekit theory claims its folder as
    theory.write_text("bound.txt", "PASS ...\n")
    theory.write_bytes("bound.png", b"\x89PNG...")
    assert _fit(ring, out) == 0
    assert (out / "bound.txt").read_text() == "PASS ...\n" and (out / "bound.png").read_bytes() == b"\x89PNG..."


def test_a_manifest_of_an_earlier_version_is_never_cleaned_up(ring, tmp_path, capsys):
    """Version 1 manifests say no writer: their files are lgekit's, of no known command: never removed."""
    out = tmp_path / "old"
    out.mkdir()
    (out / "report.md").write_text("# Reproducing\n")
    (out / "context_embedding.txt").write_text("2 4\n")
    _manifest(out, {"report.md": [_sha(out / "report.md")],
                    "context_embedding.txt": _sha(out / "context_embedding.txt")})
    assert _fit(ring, out) == 0
    assert (out / "report.md").exists() and (out / "context_embedding.txt").exists()
    # a name the command writes itself may be rewritten (lgekit wrote it; its commands write disjoint names)
    assert OutputFolder(out, command="lgekit reproduce").owns("report.md")


def test_another_commands_file_is_not_overwritten_without_force(tmp_path):
    OutputFolder(tmp_path, command="lgekit theory").write_text("x.txt", "theirs")
    fit = OutputFolder(tmp_path, command="lgekit fit")
    with pytest.raises(FolderNotOursError, match="would overwrite 'x.txt' \\(written by lgekit theory\\)"):
        fit.write_text("x.txt", "mine")
    assert fit.remove("x.txt") is False and (tmp_path / "x.txt").read_text() == "theirs"
    assert OutputFolder(tmp_path, command="lgekit theory").owns("x.txt")   # still listed as theory's


# ---------------------------------------------------------------------------- item 3: cells/ as a symlink
@posix_only
def test_a_cells_symlink_to_outside_is_refused(tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "res"
    OutputFolder(out)                                        # a valid, empty manifest
    (out / "cells").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(FolderNotOursError, match="'cells'.*symbolic link"):
        ResultsStore(out)
    assert main(["reproduce", "6", "--out", str(out), "--jobs", "1"]) == 2
    assert _one_line(capsys.readouterr().err)
    assert list(elsewhere.iterdir()) == []
    # with --force too: force overwrites lgekit's names inside the folder, it never writes outside
    with pytest.raises(FolderNotOursError, match="symbolic link"):
        ResultsStore(out, force=True)


@posix_only
def test_a_cells_symlink_made_after_the_claim_is_refused_at_the_lock(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = ResultsStore(tmp_path / "res")
    (tmp_path / "res" / "cells").rmdir()
    (tmp_path / "res" / "cells").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(FolderNotOursError, match="symbolic link"):
        with store.lock():
            pass
    assert list(elsewhere.iterdir()) == []


# ---------------------------------------------------------------------------- item 4: one writer per folder
@posix_only
def test_fit_is_refused_while_another_run_writes_the_folder(ring, tmp_path, capsys, no_training):
    out = tmp_path / "emb"
    holder = OutputFolder(out, command="lgekit reproduce")   # a reproduce run holds the folder (the same lock)
    with holder.lock():
        assert _fit(ring, out) == 2
        err = capsys.readouterr().err
        assert _one_line(err) and f"another lgekit process is writing into {str(out)!r}" in err
        with holder.lock():  # re-entrant for its holder
            pass
    assert not no_training
    assert sorted(p.name for p in out.iterdir()) == sorted([".lock", MANIFEST_NAME])


@posix_only
def test_the_lock_is_per_folder_object(tmp_path):
    a, b = OutputFolder(tmp_path), OutputFolder(tmp_path)
    with a.lock():
        with pytest.raises(FolderLockedError, match="another lgekit process is writing"):
            with b.lock():
                pass
        with pytest.raises(RuntimeError):          # what callers of ResultsStore.lock caught before
            with ResultsStore(tmp_path).lock():
                pass
    with b.lock():
        pass


def test_a_writer_that_claimed_first_does_not_drop_a_later_writers_files(tmp_path):
    """The manifest is read again when the lock is taken: a folder object made earlier lists what was
    written since, instead of saving its stale copy over it."""
    a = OutputFolder(tmp_path, command="lgekit fit")
    b = OutputFolder(tmp_path, command="lgekit fit")
    with b.lock():
        b.write_text("b.txt", "B")
    with a.lock():
        a.write_text("a.txt", "A")
    assert OutputFolder(tmp_path, command="lgekit fit").owned() == ["a.txt", "b.txt"]


@posix_only
def test_a_lock_file_that_is_a_symlink_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = OutputFolder(tmp_path / "D")
    (tmp_path / "D" / ".lock").unlink()    # the claim made it (under the lock); a link put in its place
    (tmp_path / "D" / ".lock").symlink_to(elsewhere / "created")
    with pytest.raises(FolderNotOursError, match="'.lock'.*not a regular file"):
        with folder.lock():
            pass
    assert list(elsewhere.iterdir()) == []


_FIT = ["-m", "lgekit", "fit", "{graph}", "--model", "logistic", "--dim", "16", "--epochs", "60", "--seed", "{seed}",
        "--out", "{out}"]


@posix_only
@pytest.mark.slow  # two processes importing lgekit and training for a second or two, three times: ~40 s
def test_two_fits_at_once_never_mix_their_outputs(tmp_path):
    """The issue's probe: two fits (seeds 1 and 2) into one folder at once.  Each is refused before training
    or runs alone; the folder's files are always one run's (seed, model and manifest agree)."""
    n = 2000
    ring = tmp_path / "ring.txt"
    ring.write_text("".join(f"{i} {(i + 1) % n}\n{i} {(i + 7) % n}\n" for i in range(n)))
    out = tmp_path / "DC"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for trial in range(3):
        procs = [subprocess.Popen([sys.executable] + [a.format(graph=ring, seed=seed, out=out) for a in _FIT],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for seed in (1, 2)]
        done = [(p.wait(300), *p.communicate()) for p in procs]
        print("trial", trial, "exit statuses", [code for code, _, _ in done])
        assert all(code in (0, 2) for code, _, _ in done), done
        assert any(code == 0 for code, _, _ in done), done
        for code, _, err in done:
            if code == 2:
                assert _one_line(err.splitlines()[-1] + "\n") and "another lgekit process is writing" in err
                assert "epoch" not in err.lower()      # refused before training
        winner = [seed for seed, (code, _, _) in zip((1, 2), done) if code == 0][-1]
        info = json.loads((out / "fit.json").read_text())
        model = lgekit.models.BaseEmbedding.load(out / "embedding.npz")
        if sum(code == 0 for code, _, _ in done) == 1:
            assert info["seed"] == winner
        assert model.get_params()["random_state"] == info["seed"]
        assert OutputFolder(out, command="lgekit fit").owned() == sorted(info["files"].values())


# ---------------------------------------------------------------------------- item 11: a full disk
@pytest.mark.parametrize("where", ["model", "table"])
def test_fit_on_a_full_disk_is_one_line(ring, tmp_path, capsys, monkeypatch, where):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if where == "model":
        monkeypatch.setattr(lgekit.models._node_vectors, "write_model_file", full)
    else:
        monkeypatch.setattr(OutputFolder, "write_text", full)
    out = tmp_path / "emb"
    assert _fit(ring, out) == 2
    err = capsys.readouterr().err
    assert _one_line(err, trained=True)
    assert f"cannot write into {str(out)!r}: No space left on device (errno ENOSPC)" in err
    assert not list(out.glob(".lgekit-tmp.*"))


# ---------------------------------------------------------------------------- item 12: names leaving the folder
@pytest.mark.parametrize("name", ["../outside.txt", "{abs}", "a/../../outside.txt", "./x", "a//b", "x\0y", ""])
def test_manifest_names_leaving_the_folder_are_refused_before_training(ring, tmp_path, capsys, no_training, name):
    outside = tmp_path / "outside.txt"
    outside.write_text("the user's\n")
    name = name.format(abs=outside)
    out = tmp_path / "D"
    _manifest(out, {name: [_sha(outside)]})
    assert _fit(ring, out) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "not an lgekit output folder" in err and MANIFEST_NAME in err
    assert outside.read_text() == "the user's\n" and not no_training


# ---------------------------------------------------------------------------- item 13: a graph no cell can fit
@pytest.mark.parametrize("edges, why", [("1 2\n", "complete"), ("1 2\n3 4\n", "leaves 2 training and 0 test")])
def test_reproduce_refuses_a_graph_no_cell_can_use_in_one_line(tmp_path, capsys, no_training, edges, why):
    path = tmp_path / "tiny.txt"
    path.write_text(edges)
    out = tmp_path / "res"
    assert main(["reproduce", "6", "--dataset", str(path), "--out", str(out), "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and why in err and str(path) in err
    assert not out.exists() and not no_training


@posix_only
def test_the_manifest_is_created_under_the_lock_when_two_runs_claim_a_folder_at_once(tmp_path):
    """A run that claims a folder while another holds its lock creates nothing there (the holder claimed it and
    writes the manifest); once the lock is free, it adopts the manifest the other wrote."""
    holder = OutputFolder(tmp_path, command="lgekit fit")
    with holder.lock():
        (tmp_path / MANIFEST_NAME).unlink()   # the holder's manifest, not yet written again
        holder.files = {}
        late = OutputFolder(tmp_path, command="lgekit fit")
        assert not (tmp_path / MANIFEST_NAME).exists()
        holder.write_text("first.txt", "the other run's")
    with late.lock():
        assert late.owned() == ["first.txt"]
    assert OutputFolder(tmp_path, command="lgekit fit").owned() == ["first.txt"]
    assert not list(tmp_path.glob(".lgekit-tmp.*"))


@posix_only
def test_a_folder_swapped_for_a_symlink_after_the_proof_redirects_nothing(tmp_path, monkeypatch):
    """The file is moved aside into the run's folder through one folder descriptor, then hashed and deleted
    there: a link swapped in on the way after the move cannot send the deletion outside."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "D"
    folder = OutputFolder(out, command="lgekit fit")
    (out / "sub").mkdir()
    folder.write_text("sub/f.txt", "same content")
    (elsewhere / "f.txt").write_text("same content")     # the user's file, identical bytes
    real = OutputFolder._sha256_at

    def then_swap(where, base):
        digest = real(where, base)
        if base.startswith("earlier.") and not (out / "sub").is_symlink():   # the copy moved aside, just proved
            (out / "sub").rename(out / "sub.real")
            (out / "sub").symlink_to(elsewhere, target_is_directory=True)
        return digest

    monkeypatch.setattr(OutputFolder, "_sha256_at", staticmethod(then_swap))
    assert folder.remove("sub/f.txt") is True
    assert (elsewhere / "f.txt").read_text() == "same content"
    assert not (out / "sub.real" / "f.txt").exists()     # ours, deleted where it was proved


@posix_only
def test_theory_is_refused_while_another_run_writes_its_folder(tmp_path, capsys, monkeypatch):
    from lgekit.experiments import checks

    ran = []
    monkeypatch.setitem(checks.VERIFIERS, "capacity", lambda **kw: ran.append(kw))
    out = tmp_path / "theory"
    with OutputFolder(out, command="lgekit fit").lock():
        assert main(["theory", "capacity", "--quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "another lgekit process is writing into" in err and not ran
