"""Which files in an output folder are lgekit's (issue 26, item 1): only those are replaced or removed."""
import json

import pytest

from lgekit._output_folder import MANIFEST_NAME, FolderNotOursError, OutputFolder
from lgekit.cli import main
from lgekit.experiments.report import reproduce

TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}}
TINY = {"*": {"params": {"epochs": 3, "dim": 12}}, "fig6": {"grid": {"dim": [8, 16]}},
        "fig5": {"grid": {"lam_r": [0.1, 10.0]}}}


def _tiny(figures, out, **kw):
    return reproduce(figures, dataset=TINY_DATASET, out=out, quick=True, n_jobs=1, progress=False,
                     overrides=TINY, **kw)


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------- the concept
@pytest.mark.parametrize("user", [
    {"fig2.png": b"mine", "fig12.pdf": b"mine", "report.md": b"notes"},  # the issue's example
    {"notes.txt": b"x"},
    {".hidden": b"x"},
    {"sub/deep.txt": b"x"},
    {"cells/abc.json": b"{}"},                                             # a 'cells' of the user's
    {MANIFEST_NAME: b'{"format": "something else", "files": {"notes.txt": "0"}}', "notes.txt": b"x"},
    {MANIFEST_NAME: b"\xff\xfe", "notes.txt": b"x"},                      # a damaged manifest proves nothing
])
def test_a_folder_of_the_users_is_refused(tmp_path, user):
    for name, data in user.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    before = _files(tmp_path)
    with pytest.raises(FolderNotOursError, match="not empty and is not an lgekit output folder.*--force"):
        OutputFolder(tmp_path, subfolders=("cells",))
    assert _files(tmp_path) == before


def test_empty_new_and_own_folders_are_claimed(tmp_path):
    OutputFolder(tmp_path / "new" / "deeper")
    (tmp_path / "empty").mkdir()
    folder = OutputFolder(tmp_path / "empty", subfolders=("cells",))
    folder.write_text("a.txt", "A")
    again = OutputFolder(tmp_path / "empty", subfolders=("cells",))  # its manifest makes it ours
    assert again.owned() == ["a.txt"]
    # a folder holding only lgekit's leftovers (lock, temporaries, an empty cells/) counts as empty
    left = tmp_path / "left"
    (left / "cells").mkdir(parents=True)
    (left / ".lock").write_text("")
    (left / f".lgekit-tmp.{'0' * 32}.report.md").write_text("torn")
    OutputFolder(left, subfolders=("cells",))
    # and so does one holding another lgekit output folder (lgekit theory's theory/ in reproduce's)
    outer = tmp_path / "outer"
    OutputFolder(outer / "theory").write_text("bound.txt", "x")
    OutputFolder(outer)


def test_only_provably_own_files_are_removed_or_replaced(tmp_path):
    folder = OutputFolder(tmp_path)
    folder.write_text("fig1.png", "ours 1")
    folder.write_text("fig2.png", "ours 2")
    folder.write_text("fig3.png", "ours 3")
    (tmp_path / "fig2.png").write_text("the user changed it")        # no longer ours
    (tmp_path / "fig4.png").write_text("the user's own")             # never ours
    (tmp_path / "fig3.png").unlink()                                  # gone
    folder = OutputFolder(tmp_path)
    assert folder.owned() == ["fig1.png"]
    assert folder.remove_stale(keep=set()) == ["fig1.png"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name not in (MANIFEST_NAME, ".lock")) == ["fig2.png",
                                                                                                  "fig4.png"]
    for name in ("fig2.png", "fig4.png"):
        with pytest.raises(FolderNotOursError, match=f"would overwrite '{name}'.*--force"):
            folder.write_text(name, "new")
        assert (tmp_path / name).read_text() != "new"
    OutputFolder(tmp_path, force=True).write_text("fig4.png", "forced")
    assert (tmp_path / "fig4.png").read_text() == "forced" and OutputFolder(tmp_path).owns("fig4.png")


def test_a_run_killed_while_publishing_is_finished_by_the_next(tmp_path, monkeypatch):
    """The journal is written before the first file is linked into place: whenever the process dies after it,
    the next run into the folder finishes the publication, and every file is the new run's and ours."""
    folder = OutputFolder(tmp_path)
    folder.write_text("report.md", "old")
    folder.write_text("summary.json", "old")
    import lgekit._output_folder as of

    real, linked = of.OutputFolder._install, []

    def install(self, *args):  # the process dies after the first file is in place
        if linked:
            raise KeyboardInterrupt
        linked.append(real(self, *args))

    monkeypatch.setattr(of.OutputFolder, "_install", install)
    with pytest.raises(KeyboardInterrupt):
        with folder.run():
            folder.write_text("report.md", "new")
            folder.write_text("summary.json", "new")
    monkeypatch.undo()
    assert (tmp_path / "report.md").read_text() == "new" and (tmp_path / "summary.json").read_text() == "old"
    nxt = OutputFolder(tmp_path)
    with nxt.lock():
        pass
    assert (tmp_path / "report.md").read_text() == "new" and (tmp_path / "summary.json").read_text() == "new"
    assert nxt.owned() == ["report.md", "summary.json"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".lgekit-run.")]


def test_names_stay_inside_the_folder(tmp_path):
    folder = OutputFolder(tmp_path)
    for bad in ("../x", "/etc/passwd", "", MANIFEST_NAME):
        with pytest.raises(ValueError, match="name must"):
            folder.write_text(bad, "x")


# ---------------------------------------------------------------------------- reproduce --out
def test_reproduce_refuses_the_issues_folder_and_force_keeps_the_users_files(tmp_path, capsys):
    out = tmp_path / "mypaper"
    out.mkdir()
    (out / "fig2.png").write_text("mine")
    (out / "fig12.pdf").write_text("mine")
    (out / "report.md").write_text("notes")
    before = _files(out)
    assert main(["reproduce", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an lgekit output folder" in err and "--force" in err
    assert _files(out) == before
    _tiny(["fig6"], out, force=True)
    assert (out / "fig2.png").read_text() == "mine" and (out / "fig12.pdf").read_text() == "mine"
    assert (out / "report.md").read_text().startswith("# Reproducing")  # forced: the name it writes
    manifest = json.loads((out / MANIFEST_NAME).read_text())["files"]
    assert "fig2.png" not in manifest and {"fig6.png", "fig6.pdf", "report.md"} <= set(manifest)


def test_reproduce_removes_its_own_stale_figures_only(tmp_path):
    out = tmp_path / "res"
    _tiny(["fig5", "fig6"], out)
    (out / "fig5.pdf").write_bytes(b"the user edited this figure")
    _, outputs = _tiny(["fig6"], out)
    assert outputs.removed == ["fig5.png"]
    assert (out / "fig5.pdf").read_bytes() == b"the user edited this figure"


def test_reproduce_refuses_to_overwrite_a_report_the_user_edited(tmp_path):
    """Checked before the sweep: nothing is computed, nothing is written."""
    out = tmp_path / "res"
    _tiny(["fig6"], out)
    (out / "report.md").write_text("my notes on the run")
    (out / "fig5.png").write_text("mine")
    before = _files(out)
    with pytest.raises(FolderNotOursError, match="would overwrite 'report.md'"):
        _tiny(["fig6"], out)
    with pytest.raises(FolderNotOursError, match="would overwrite 'report.md', 'fig5.png'"):
        _tiny(["fig5", "fig6"], out)
    assert _files(out) == before
