"""What ``lgekit fit`` leaves in its folder and says on the terminal (issue 26 item 7, issue 27 items 4 and 10)."""
import json
import subprocess
import sys

import pytest

from lgekit.cli import main


@pytest.fixture
def ring(tmp_path):
    path = tmp_path / "ring.txt"
    path.write_text("".join(f"{i} {(i + 1) % 30}\n{i} {(i + 4) % 30}\n" for i in range(30)))
    return path


def _fit(graph, out, *extra):
    return main(["fit", str(graph), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out", str(out), *extra])


def test_a_later_fit_removes_the_earlier_fits_files_it_does_not_write(ring, tmp_path, capsys):
    out = tmp_path / "emb"
    # directed first (two word2vec files), then undirected: context_embedding.txt would be stale
    assert _fit(ring, out, "--directed") == 0
    assert (out / "context_embedding.txt").is_file()
    assert _fit(ring, out) == 0
    assert "removed an earlier fit's" in capsys.readouterr().out
    assert not (out / "context_embedding.txt").exists() and (out / "embedding.txt").is_file()
    # ids that word2vec cannot hold: the earlier run's embedding.txt goes too (it described another graph)
    names = tmp_path / "names.csv"
    names.write_text("source,target\nJean Valjean,Javert\nJavert,Fantine\nFantine,Jean Valjean\nCosette,Fantine\n")
    assert _fit(names, out) == 0
    printed = capsys.readouterr().out
    assert "no word2vec file written" in printed and "embedding.txt" in printed
    assert not (out / "embedding.txt").exists()
    assert json.loads((out / "fit.json").read_text())["files"] == {
        "model": "embedding.npz", "history": "history.json", "record": "fit.json"}


def test_fit_never_removes_or_overwrites_the_users_files(ring, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "embedding.txt").write_text("my notes\n")
    assert _fit(ring, out) == 2
    err = capsys.readouterr().err
    assert "lgekit fit: error: " in err and "embedding.txt" in err and "--force" in err
    assert (out / "embedding.txt").read_text() == "my notes\n"
    # --force writes the names fit writes; a file of another name is kept
    (out / "context_embedding.txt").write_text("mine too\n")
    assert _fit(ring, out, "--force") == 0
    assert (out / "context_embedding.txt").read_text() == "mine too\n"
    assert (out / "embedding.txt").read_text() != "my notes\n"


def test_a_file_the_user_edited_after_a_fit_is_theirs(ring, tmp_path, capsys):
    out = tmp_path / "emb"
    assert _fit(ring, out, "--directed") == 0
    (out / "context_embedding.txt").write_text("edited by hand\n")
    # the next run does not write that name; it is no longer provably lgekit's: kept
    assert _fit(ring, out) == 0
    assert (out / "context_embedding.txt").read_text() == "edited by hand\n"


def test_split_is_a_deprecated_alias_of_test_fraction(ring, tmp_path, capsys):
    assert _fit(ring, tmp_path / "a", "--split", "0.25") == 0
    err = capsys.readouterr().err
    assert "note: --split is deprecated, use --test-fraction" in err
    assert _fit(ring, tmp_path / "b", "--test-fraction", "0.25") == 0
    assert "note: --split" not in capsys.readouterr().err
    a, b = (json.loads((tmp_path / d / "fit.json").read_text()) for d in "ab")
    assert a["test_fraction"] == b["test_fraction"] == 0.25 and a["final"] == b["final"]
    assert main(["evaluate", str(tmp_path / "a" / "embedding.npz"), str(ring), "--split", "0.25", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ap"] == pytest.approx(a["final"]["test_ap"], abs=1e-12)


def _run(*argv):
    return subprocess.run([sys.executable, "-m", "lgekit", *argv], capture_output=True, text=True, timeout=300)


def test_dropped_self_loops_are_one_plain_line(tmp_path):
    path = tmp_path / "loops.txt"
    path.write_text("0 0\n0 1\n1 2\n2 3\n3 4\n4 0\n2 2\n")
    done = _run("fit", str(path), "--model", "logistic", "--dim", "2", "--epochs", "1", "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "self-loop" in line]
    assert notes == [f"note: {path}: dropped 2 self-loop(s)"], done.stderr
    assert "GraphWarning" not in done.stderr and "warn" not in done.stderr


def test_a_registered_data_sets_self_loops_are_the_same_plain_line(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    done = _run("evaluate", str(tmp_path / "none.npy"), "email-eu-core")
    # the embedding is missing: the graph is not even loaded
    assert done.returncode == 2
    done = _run("fit", "email-eu-core", "--model", "logistic", "--dim", "2", "--epochs", "1",
                "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "self-loop" in line]
    assert len(notes) == 1 and notes[0].startswith("note: email-eu-core: ") and "dropped 642 self-loop(s)" in notes[0]


def test_a_divergence_is_reported_once(ring, tmp_path):
    done = _run("fit", str(ring), "--model", "logistic", "--lam-r", "1e300", "--epochs", "3", "--dim", "2",
                "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert done.stderr.count("diverged at epoch") == 1, done.stderr
    assert "WARNING" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("lgekit fit: error: training diverged")


def test_the_paper_preset_and_options_over_it(ring, tmp_path, capsys):
    from lgekit import _parameters

    assert _fit(ring, tmp_path / "p", "--preset", "paper") == 0
    params = json.loads((tmp_path / "p" / "fit.json").read_text())["params"]
    paper = _parameters.PRESETS["paper"]["params"]["logistic"]
    # --dim 4 and --epochs 1 on the line win over the preset's 100 and 50
    assert {k: params[k] for k in paper} == {**paper, "dim": 4, "epochs": 1}
    assert json.loads((tmp_path / "p" / "fit.json").read_text())["preset"] == "paper"
    with pytest.raises(SystemExit):
        _fit(ring, tmp_path / "q", "--preset", "fast")
    assert "invalid choice: 'fast'" in capsys.readouterr().err


def test_fit_help_shows_every_default(capsys):
    from lgekit import _parameters
    from lgekit._commands.fit import _SET_BY_THE_COMMAND

    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for model, cls in (("logistic", "LogisticEmbedding"), ("hinge", "HingeEmbedding")):
        for name in set(_parameters.DEFAULTS[cls]) - _SET_BY_THE_COMMAND:
            flag = "--" + name.replace("_", "-")
            assert flag in text, flag
    assert "lam_r: a finite number >= 0; default 0.3 (--model logistic), 3 (--model hinge)" in text
    assert "--test-fraction F" in text and "--preset {paper}" in text
