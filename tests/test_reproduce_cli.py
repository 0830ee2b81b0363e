"""``lgekit reproduce``: errors, crash-safe resume under SIGKILL, and the README's main command."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lgekit.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _env():
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# ---------------------------------------------------------------------------- errors
def test_unknown_figure(capsys, tmp_path):
    assert main(["reproduce", "7", "--out", str(tmp_path)]) == 2
    assert "unknown figure '7'" in capsys.readouterr().err


def test_unknown_dataset(capsys, tmp_path):
    assert main(["reproduce", "--dataset", "no-such-graph", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "lgekit reproduce: error:" in err and "no-such-graph" in err


def test_unwritable_out(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["reproduce", "6", "--out", str(blocker / "results")]) == 2
    assert "is not writable" in capsys.readouterr().err


def test_bad_seeds_and_jobs(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["reproduce", "--seeds", "0", "--out", str(tmp_path)])
    assert "expected a positive integer" in capsys.readouterr().err


def test_unreachable_scheduler(capsys, tmp_path):
    pytest.importorskip("distributed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    code = main(["reproduce", "6", "--out", str(tmp_path), "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--scheduler-timeout", "2"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 2" in err
    assert time.monotonic() - t0 < 30  # the timeout is honoured (no hang)


# ---------------------------------------------------------------------------- data set resolution (issue #13)
class _Stop(Exception):
    pass


def test_dataset_name_wins_over_a_local_file(tmp_path, monkeypatch, data_dir):
    """Item 11: ``--dataset facebook`` beside a file called ``facebook`` runs the registered data set."""
    from lgekit.experiments import report
    from lgekit.experiments.plan import expand

    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "facebook").write_text("0 1\n1 2\n2 3\n3 4\n4 0\n")  # a graph a cell can train on
    planned = []

    def fake_reproduce(figures, *, dataset, quick, **kwargs):  # stop before any cell runs
        planned.append(expand(figures, dataset=dataset, quick=quick).dataset)
        raise _Stop

    monkeypatch.setattr(report, "reproduce", fake_reproduce)
    for argv, expected in [(["--dataset", "facebook"], {"name": "facebook", "kwargs": {}}),
                           (["--dataset", "./facebook"], {"path": str((tmp_path / "facebook").resolve())})]:
        with pytest.raises(_Stop):
            main(["reproduce", "6", "--out", str(tmp_path / "out")] + argv)
        assert {k: v for k, v in planned[-1].items() if k != "sha256"} == expected


def _unreachable_facebook(monkeypatch, tmp_path):
    """The registered facebook data set, absent from every folder, downloadable only from a closed port."""
    import dataclasses

    from lgekit.datasets import _registry

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    entry = _registry.info("facebook")
    downloads = tuple(dataclasses.replace(d, urls=(f"http://127.0.0.1:{port}/facebook_combined.txt.gz",))
                      for d in entry.downloads)
    monkeypatch.setitem(_registry._BY_NAME, "facebook", dataclasses.replace(entry, downloads=downloads))
    monkeypatch.setenv("LGEKIT_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("offline", [False, True])
def test_unavailable_dataset_is_one_message_and_exit_2(tmp_path, monkeypatch, capsys, offline):
    """Item 14: a data set that cannot be downloaded (or may not be, offline) gives the hand-install hint,
    exit status 2, no traceback, and nothing written."""
    _unreachable_facebook(monkeypatch, tmp_path)
    if offline:
        monkeypatch.setenv("LGEKIT_OFFLINE", "1")
    else:
        monkeypatch.delenv("LGEKIT_OFFLINE", raising=False)
    out = tmp_path / "out"
    assert main(["reproduce", "--dataset", "facebook", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.out == ""
    assert captured.err.startswith("lgekit reproduce: error: ") and "'facebook'" in captured.err
    assert "To install it by hand:" in captured.err and "facebook_combined.txt" in captured.err
    assert ("LGEKIT_OFFLINE" in captured.err) == offline
    assert not out.exists()


# ---------------------------------------------------------------------------- kill -9 and resume
def _stored(out):
    folder = out / "cells"
    return sorted(p.stem for p in folder.glob("*.json") if not p.name.startswith(".")) if folder.is_dir() else []


# the runner at tiny scale: Figs 5-6 on a 150-node graph, 12 cells of ~0.1 s, in-process (the driver is the
# only writer of the store; the slow variant below kills the CLI with its worker processes)
_TINY_RUNNER = """
import sys
from lgekit.experiments.report import reproduce
reproduce(["fig5", "fig6"], dataset={"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}},
          out=sys.argv[1], quick=True, n_jobs=1, progress=False,
          overrides={"*": {"params": {"epochs": 4, "dim": 24}},
                     "fig5": {"grid": {"lam_r": [0.03, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]}},
                     "fig6": {"grid": {"dim": [8, 16, 32, 48, 64]}}})
print("done")
"""


def _kill_then_resume(cmd, out):
    """Start ``cmd``, SIGKILL its process group once 2+ cells are stored, rerun it; check the store."""
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while len(_stored(out)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert proc.poll() is None, "the sweep ended before it could be killed: " + proc.stderr.read().decode()[-2000:]
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its worker processes, at an arbitrary instant
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
    before = _stored(out)
    assert 2 <= len(before)
    snapshot = {}
    for key in before:  # whatever was stored is whole
        snapshot[key] = (out / "cells" / f"{key}.json").read_text()
        assert json.loads(snapshot[key])["key"] == key

    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    plan = json.loads((out / "plan.json").read_text())
    expected = sorted(plan["cells"])
    assert len(before) < len(expected), "killed after the last cell: nothing left to resume"
    assert _stored(out) == expected  # every cell exactly once (one file per key)
    assert not [p for p in (out / "cells").iterdir() if p.name.startswith(".")]  # no torn temporaries left
    lines = (out / "records.jsonl").read_text().splitlines()
    keys = [json.loads(line)["key"] for line in lines]
    assert sorted(keys) == expected and len(set(keys)) == len(keys)
    for key in before:  # cells finished before the kill were reused, not recomputed
        assert (out / "cells" / f"{key}.json").read_text() == snapshot[key]
    return done


def test_sigkill_mid_sweep_then_resume(tmp_path):
    """Kill the runner (a real subprocess) by SIGKILL mid-sweep; rerun completes it."""
    out = tmp_path / "res"
    _kill_then_resume([sys.executable, "-c", _TINY_RUNNER, str(out)], out)


@pytest.mark.slow
def test_sigkill_the_cli_then_resume(tmp_path):
    """The same through ``lgekit reproduce`` itself (quick Figs 5-6 on the embedded default)."""
    out = tmp_path / "res"
    done = _kill_then_resume([sys.executable, "-m", "lgekit", "reproduce", "5", "6", "--out", str(out),
                              "--jobs", "2"], out)
    n_reused = int(done.stdout.split(" cells: ")[1].split(" already done")[0])
    assert n_reused >= 2


# ---------------------------------------------------------------------------- the README's main command
@pytest.mark.slow
def test_readme_main_command_quick(tmp_path):
    """`lgekit reproduce` (quick, embedded default, all figures) as the README runs it, timed."""
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "lgekit", "reproduce", "--out", str(tmp_path)], env=_env(),
                          capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - t0
    assert done.returncode == 0, done.stderr[-3000:]
    for i in range(1, 7):
        assert (tmp_path / f"fig{i}.png").is_file() and (tmp_path / f"fig{i}.pdf").is_file()
    md = (tmp_path / "report.md").read_text()
    assert md.count("**Verdict:") == 6
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["mode"] == "quick" and len(summary["verdicts"]) == 6
    # stderr is a pipe here, as in CI: progress comes as plain lines, the last one complete
    n = len(json.loads((tmp_path / "plan.json").read_text())["cells"])
    lines = [line for line in done.stderr.splitlines() if line.startswith("cells ")]
    assert lines and lines[-1].startswith(f"cells {n}/{n} done") and "elapsed" in lines[-1]
    assert "\r" not in done.stderr  # no bar redrawn in the log
    print(f"lgekit reproduce (quick, default) wall time: {wall:.1f} s")


def test_a_weighted_graph_runs_the_paper_settings_without_divergence(tmp_path, capsys):
    # issue 17, item 7: on a weighted graph every SGD cell used to diverge in its first epoch.  The models'
    # default weighting="sample" draws edges by weight with unit steps (LINE), so the paper's settings run.
    import networkx as nx

    graph = nx.les_miserables_graph()                  # a classic weighted graph: co-appearances, 1 to 31
    path = tmp_path / "lesmis.tsv"
    path.write_text("source\ttarget\tweight\n"
                    + "".join(f"{u}\t{v}\t{d['weight']}\n" for u, v, d in graph.edges(data=True)))
    out = tmp_path / "out"
    assert main(["reproduce", "1", "2", "5", "--dataset", str(path), "--quick", "--jobs", "1",
                 "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status_counts"] == {"ok": 9} and not summary["all_diverged"]
    verdicts = {v["figure"]: v["verdict"] for v in summary["verdicts"]}
    assert set(verdicts) == {"fig1", "fig2", "fig5"} and "INCONCLUSIVE" not in verdicts.values(), verdicts
    report = (out / "report.md").read_text()
    assert "weighted (weights 1 to 31)" in report and "weighting='sample'" in report


# ---------------------------------------------------------------------------- damaged cells, a full disk (issue 26)
TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}}
TINY = {"*": {"params": {"epochs": 3, "dim": 12}}, "fig6": {"grid": {"dim": [8, 16, 24]}}}


@pytest.fixture
def tiny_cli(monkeypatch):
    """``lgekit reproduce 6`` runs Figure 6 at a tiny scale (3 cells of ~0.1 s)."""
    from lgekit.experiments import report

    expand = report.expand
    monkeypatch.setattr(report, "expand", lambda *a, **k: expand(*a, **dict(k, dataset=TINY_DATASET,
                                                                              overrides=TINY)))


def _cells(out):
    return sorted((out / "cells").glob("*.json"))


@pytest.mark.parametrize("damage", [b"\xff\xfe", b"[1,2,3]", b"null", b'"a string"', b"{}", b'{"key": 5}',
                                    b"{torn", b"", "another cell"])
def test_a_damaged_cell_is_recomputed_with_one_line(tmp_path, tiny_cli, capsys, caplog, damage):
    """Item 6: unreadable, malformed or mismatched cell files are recomputed, one warning line each.

    (The command line prints WARNING records on stderr, one line each; under pytest they reach caplog.)
    """
    out = tmp_path / "res"
    assert main(["reproduce", "6", "--out", str(out)]) == 0
    first, second = _cells(out)[:2]
    good = json.loads(first.read_text())
    first.write_bytes(second.read_bytes() if damage == "another cell" else damage)
    capsys.readouterr()
    caplog.clear()
    assert main(["reproduce", "6", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    lines = [r.getMessage() for r in caplog.records if first.name in r.getMessage()]
    assert len(lines) == 1 and "will be recomputed" in lines[0] and "\n" not in lines[0], lines
    assert "Traceback" not in captured.err
    assert "1 ok" in captured.out and "2 already done" in captured.out
    again = json.loads(first.read_text())
    assert again["key"] == good["key"] and again["history"] == good["history"]


@pytest.mark.parametrize("where, code", [("cell", "ENOSPC"), ("cell", "EDQUOT"), ("index", "ENOSPC"),
                                         ("report", "ENOSPC"), ("figure", "EFBIG")])
def test_a_full_disk_is_one_line_and_the_run_resumes(tmp_path, tiny_cli, monkeypatch, capsys, where, code):
    """Item 11: the write fails with ENOSPC (or EDQUOT): one line naming the folder and the errno, exit 2."""
    import errno as errno_module

    from lgekit import _output_folder

    out = tmp_path / "res"
    number = getattr(errno_module, code)
    full = OSError(number, os.strerror(number))
    calls = []
    mp = pytest.MonkeyPatch()  # undone before the resume, unlike tiny_cli's
    # every file of an output folder is created in its run's staging folder, named "<order>.<name>"
    wanted = {"cell": lambda n: re.fullmatch(r"[0-9a-f]{64}\.json", n) is not None,
              "index": lambda n: n == "records.jsonl", "report": lambda n: n == "report.html",
              "figure": lambda n: n.endswith(".pdf")}[where]
    real_create = _output_folder.OpenFolder.create

    def create(self, name, *args, **kwargs):
        base = name.split(".", 1)[1] if re.match(r"[0-9]{4,}\.", name) else name
        if wanted(base):
            calls.append(base)
            if len(calls) == 2:   # the second cell's record; the second write of a report's file
                raise full
        return real_create(self, name, *args, **kwargs)

    mp.setattr(_output_folder.OpenFolder, "create", create)
    if where in ("report", "figure", "index"):
        main(["reproduce", "6", "--out", str(out)])  # a first, whole run: the name is written once
        capsys.readouterr()
        (out / "cells" / _cells(out)[0].name).unlink()
    assert main(["reproduce", "6", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if not line.startswith("cells ")]  # beside the progress lines
    assert len(errors) == 1 and errors[0].startswith("lgekit reproduce: error: "), err
    assert f"cannot write into '{out}'" in err and f"errno {code}" in err and "run the same command again" in err
    mp.undo()
    stored = len(_cells(out))
    assert main(["reproduce", "6", "--out", str(out)]) == 0
    assert f"{stored} already done" in capsys.readouterr().out
    assert not list(out.rglob(".lgekit-tmp.*")) and not list(out.glob(".lgekit-run.*"))
