"""Every bad file is one line, and a damaged cell is recomputed, never fatal (issue 42, triggers 8-12; item 3).

Each test is one of the issue's triggers: a traceback on the code before it (c2c7ce5), one line (or a
recomputed cell) now.
"""
import json
import logging
from pathlib import Path

import numpy as np
import pytest

from lgekit.cli import main

TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}}
TINY = {"*": {"params": {"epochs": 3, "dim": 12}}, "fig6": {"grid": {"dim": [8, 16, 24]}}}
DEEP = "[" * 200000 + "]" * 200000


@pytest.fixture
def ring(tmp_path):
    path = tmp_path / "ring.txt"
    path.write_text("".join(f"{i} {(i + 1) % 30}\n{i} {(i + 4) % 30}\n" for i in range(30)))
    return path


@pytest.fixture
def tiny_cli(monkeypatch):
    """``lgekit reproduce 6`` runs Figure 6 at a tiny scale (3 cells of ~0.1 s)."""
    from lgekit.experiments import report

    expand = report.expand
    monkeypatch.setattr(report, "expand", lambda *a, **k: expand(*a, **dict(k, dataset=TINY_DATASET,
                                                                              overrides=TINY)))


def _one_line(err):
    """One error line, ``lgekit COMMAND: error: ...``, and no traceback (progress lines aside)."""
    errors = [line for line in err.splitlines() if ": error: " in line]
    return len(errors) == 1 and errors[0].startswith("lgekit ") and "Traceback" not in err


def _fit(graph, out):
    return main(["fit", str(graph), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out", str(out)])


# ---------------------------------------------------------------------------- trigger 8
@pytest.mark.parametrize("shape", ["component", "path"])
def test_a_path_longer_than_the_file_system_allows_is_one_line(ring, tmp_path, capsys, tiny_cli, shape):
    """A name of 300 bytes (more than a component may have) or a path of 6,000 (more than a path may have), as
    --out of fit, theory and reproduce, and as fit's GRAPH."""
    long = str(tmp_path / ("a" * 300)) if shape == "component" else str(tmp_path) + "/c" * 3000
    for argv in (["fit", str(ring), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out", long],
                 ["theory", "capacity", "--quick", "--out", long],
                 ["reproduce", "6", "--jobs", "1", "--out", long],
                 ["fit", long, "--model", "logistic", "--out", str(tmp_path / "o")]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert _one_line(err), (argv[0], err[-2000:])
        assert "too long" in err or "long" in err
    assert not (tmp_path / "c").exists()


# ---------------------------------------------------------------------------- trigger 9
def test_a_deeply_nested_manifest_is_one_line(ring, tmp_path, capsys):
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    (out / ".lgekit-manifest.json").write_text(DEEP)
    capsys.readouterr()
    assert _fit(ring, out) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "nested more than" in err and "not an lgekit output folder" in err


def test_a_deeply_nested_fit_record_is_one_line(ring, tmp_path, capsys):
    out = tmp_path / "o"
    assert _fit(ring, out) == 0
    (out / "fit.json").write_text(DEEP)
    capsys.readouterr()
    assert main(["evaluate", str(out / "fit.json"), str(ring)]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "nested more than" in err and "fit.json" in err


def test_a_deeply_nested_cell_is_recomputed_not_fatal(tmp_path, tiny_cli, capsys, caplog):
    out = tmp_path / "res"
    assert main(["reproduce", "6", "--jobs", "1", "--out", str(out)]) == 0
    cell = sorted((out / "cells").glob("*.json"))[0]
    good = json.loads(cell.read_text())
    cell.write_text(DEEP)
    capsys.readouterr()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert main(["reproduce", "6", "--jobs", "1", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "1 ok" in captured.out and "2 already done" in captured.out
    named = [r.getMessage() for r in caplog.records if cell.name in r.getMessage()]
    assert len(named) == 1 and "nested more than" in named[0] and "recomputed" in named[0]
    assert json.loads(cell.read_text())["history"] == good["history"]


def test_the_depth_is_measured_without_parsing_and_strings_do_not_count():
    """The check's teeth: a depth count that ignored strings, or no count at all, would pass these wrongly."""
    from lgekit._json import JSONLimitError, json_depth, parse_json   # here: the triggers above run on any version

    assert json_depth('{"a": "[[[[[[[[", "b": [[1]]}') == 3
    assert json_depth('["\\\\", [["\\"[["]]]') == 3            # an escaped backslash, then an escaped quote
    assert parse_json('{"a": "' + "[" * 100 + '"}', what="x") == {"a": "[" * 100}
    with pytest.raises(JSONLimitError, match="x is nested more than 64"):
        parse_json("[" * 65 + "]" * 65, what="x")
    assert parse_json("[" * 64 + "]" * 64, what="x") is not None
    with pytest.raises(JSONLimitError, match="holds 11 bytes, more than the 10"):
        parse_json(b'{"a": "bc"}', what="x", max_bytes=10)


# ---------------------------------------------------------------------------- trigger 10
def test_a_folder_in_place_of_a_cell_file_is_not_fatal(tmp_path, tiny_cli, capsys, caplog):
    out = tmp_path / "res"
    assert main(["reproduce", "6", "--jobs", "1", "--out", str(out)]) == 0
    cell = sorted((out / "cells").glob("*.json"))[0]
    cell.unlink()
    cell.mkdir()
    (cell / "inside.txt").write_text("the user's")
    for _ in range(2):   # on every rerun
        capsys.readouterr()
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            code = main(["reproduce", "6", "--jobs", "1", "--out", str(out)])
        captured = capsys.readouterr()
        assert code == 0 and "Traceback" not in captured.err, captured.err[-2000:]
        assert "1 ok" in captured.out and "2 already done" in captured.out
        assert any(cell.name in r.getMessage() and "is a folder" in r.getMessage() for r in caplog.records)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["missing"] == [] and summary["status_counts"] == {"ok": 3}
    assert (cell / "inside.txt").read_text() == "the user's"


# ---------------------------------------------------------------------------- trigger 11
@pytest.mark.parametrize("make", ["folder", "fifo"])
def test_a_lock_that_is_no_file_is_one_line(ring, tmp_path, capsys, make):
    import os

    out = tmp_path / "o"
    out.mkdir()
    (out / ".lock").mkdir() if make == "folder" else os.mkfifo(out / ".lock")
    assert _fit(ring, out) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "'.lock'" in err and "not a regular file" in err


# ---------------------------------------------------------------------------- trigger 12
@pytest.mark.parametrize("kind", ["nan.npy", "inf.npz"])
def test_a_non_finite_embedding_is_one_line(ring, tmp_path, capsys, kind):
    x = np.random.default_rng(0).normal(size=(30, 4))
    x[3, 1] = np.nan if kind == "nan.npy" else np.inf
    path = tmp_path / kind
    if kind.endswith(".npy"):
        np.save(path, x)
    else:
        np.savez(path, embedding=x, node_ids=np.arange(30))
    assert main(["evaluate", str(path), str(ring)]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "non-finite" in err and "row 3, column 1" in err
