"""Store safety (issue #13, items 1-3): user files survive, one run per folder, workers die with the driver."""
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lgekit._output_folder import MANIFEST_NAME, FolderNotOursError
from lgekit.experiments import engine
from lgekit.experiments.report import reproduce
from lgekit.experiments.store import ResultsStore

ROOT = Path(__file__).resolve().parent.parent

# the tiny run of test_reproduce_cli: Figs 5-6 on a 150-node graph, a dozen cells of ~0.1 s
TINY_DATASET = {"name": "synthetic-blogcatalog", "kwargs": {"n_nodes": 150, "seed": 1}}
TINY = {"*": {"params": {"epochs": 3, "dim": 12}},
        "fig5": {"grid": {"lam_r": [0.1, 1.0, 10.0]}}, "fig6": {"grid": {"dim": [8, 16]}}}


def _tiny(figures, out, **kw):
    return reproduce(figures, dataset=TINY_DATASET, out=out, quick=True, n_jobs=1, progress=False,
                     overrides=TINY, **kw)


_CHARS = st.sampled_from(list("abcxyz019_-.~ #+@ÄéЖ中") + ["lgekit", "tmp", "json", "pdf", "fig3", "records"])
_WORD = st.text(st.sampled_from(list("abcdefxyz0123456789_-")), min_size=1, max_size=12)
_HEX = st.text(st.sampled_from(list("0123456789abcdef")), min_size=0, max_size=40)
_TARGETS = st.sampled_from(["records.jsonl", "plan.json", "report.md", "report.html", "summary.json", "fig3.pdf",
                            "fig1.png", "notes.txt", "fig3.pdf.bak", "data.npz", ".bashrc", "a" * 64 + ".json"])
user_names = st.one_of(
    # anything a file may be called (one path component)
    st.lists(_CHARS, min_size=1, max_size=10).map("".join),
    # dotfiles with many dots, as the examples (.my.notes.txt, .zcompdump-host-5.8.1)
    st.lists(_WORD, min_size=1, max_size=5).map(lambda parts: "." + ".".join(parts)),
    # lgekit's temporaries of earlier versions and their look-alikes: a name proves nothing (issue 42)
    st.builds(lambda h, t: f".lgekit-tmp.{h}.{t}", _HEX, _TARGETS),
    st.builds(lambda h, t: f".lgekit-tmp.{'0' * 32}{h[:0]}.{t}", _HEX, _TARGETS),
    st.builds(lambda h, w: f".lgekit-tmp-{h}.{w}", _HEX, _WORD),
    # the backups: .<name>.<date><suffix>, as earlier versions named their temporaries
    st.builds(lambda t, w, s: f".{t}.{w}{s}", _TARGETS, _WORD, st.sampled_from(["", ".pdf", ".json", ".txt"])),
    # a run folder's look-alike that the manifest does not list
    st.builds(lambda h: f".lgekit-run.{h}", _HEX),
)


def _snapshot(folder):
    """Every file under ``folder`` (relative path -> bytes), the lock file and lgekit's manifest excepted."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob("*"))
            if p.is_file() and p.name not in (".lock", MANIFEST_NAME)}


def _plant_lookalikes(folder):
    """Files named as kill -9 left them in earlier versions (temporaries of a cell, the index, a figure)."""
    key = "0123456789abcdef" * 4
    planted = [folder / f".lgekit-tmp.{'1' * 32}.fig5.pdf", folder / f".lgekit-tmp.{'2' * 32}.records.jsonl",
               folder / "cells" / f".lgekit-tmp.{'3' * 32}.{key}.json", folder / ".fig6.png.ab_3x9zq.png",
               folder / "cells" / f".{key}.json.k2j4x0q1.json"]
    for path in planted:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"torn")
    return planted


# ---------------------------------------------------------------------------- item 1: user files survive
@given(names=st.lists(user_names, min_size=1, max_size=12, unique=True))
def test_a_run_removes_no_file_for_its_name(names):
    """Issue 42, trigger 1: whatever the user's files are called (an earlier version's temporary, a backup named
    like one), a run of the store into the folder removes none of them; only a leftover run the manifest lists."""
    names = [n for n in names if n not in (".", "..", ".lock", "cells") and "/" not in n and "\0" not in n]
    assume(names and len(os.fsencode(max(names, key=len))) < 250)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = ResultsStore(folder)
        for i, name in enumerate(names):
            for parent in (folder, folder / "cells"):
                (parent / name).write_bytes(f"user file {i}".encode())
        _plant_lookalikes(folder)
        before = _snapshot(folder)
        with store.lock(), store.output.run():
            store.put({"key": "ab" * 32, "config": {"x": 1}, "status": "ok"})
            store.write_index()
        after = _snapshot(folder)
        assert {k: v for k, v in after.items() if k not in ("records.jsonl", f"cells/{'ab' * 32}.json")} == before


def test_user_files_survive_reproduce(tmp_path):
    """``reproduce --out`` a folder holding the user's own files, dotfiles of every shape included.

    Without ``force`` the folder is refused and nothing changes; with it, the run writes its files and every
    file of the user's survives, byte for byte.
    """
    out = tmp_path / "home"
    out.mkdir()
    user = {name: f"mine: {name}".encode() for name in [
        ".my.notes.txt", ".zcompdump-host-5.8.1", ".fig3.pdf.notes.pdf", ".records.jsonl.bak.jsonl",
        ".lgekit-tmp", ".lgekit-tmp.notes.txt", f".lgekit-tmp.{'a' * 32}.notes.txt",
        f".lgekit-tmp.{'A' * 32}.plan.json",
        ".plan.json.1234567.json", "notes.txt", ".gitignore", "fig3.pdf.orig", ".git/config", ".git/.index.lock.x.y"]}
    for name, data in user.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    lookalikes = _plant_lookalikes(out)
    before = _snapshot(out)
    with pytest.raises(FolderNotOursError, match="is not empty and is not an lgekit output folder"):
        _tiny(["fig5", "fig6"], out)
    assert _snapshot(out) == before
    _tiny(["fig5", "fig6"], out, force=True)
    for name, data in user.items():
        assert (out / name).read_bytes() == data, name
    assert all(p.read_bytes() == b"torn" for p in lookalikes)   # a name proves nothing: they are the user's
    assert not list(out.glob(".lgekit-run.*"))


# ---------------------------------------------------------------------------- item 2: one run per folder
@contextlib.contextmanager
def _paused_in(phase):
    """Pause the run in ``phase`` ("sweep": computing its first cell; "figures": its first figure staged in its
    run's folder, not yet published); yields (paused, resume) events."""
    paused, resume = threading.Event(), threading.Event()
    mp = pytest.MonkeyPatch()
    if phase == "sweep":
        run_cell = engine.run_cell

        def slow_cell(*args, **kwargs):
            paused.set()
            assert resume.wait(60)
            return run_cell(*args, **kwargs)

        mp.setattr(engine, "run_cell", slow_cell)
    else:
        from lgekit.experiments import report

        save_figure = report.save_figure

        def slow_save_figure(*args, **kwargs):
            written = save_figure(*args, **kwargs)   # staged in the run's folder, not yet published
            if not paused.is_set():
                paused.set()
                assert resume.wait(60)
            return written

        mp.setattr(report, "save_figure", slow_save_figure)
    try:
        yield paused, resume
    finally:
        resume.set()
        mp.undo()


@pytest.mark.parametrize("phase", ["sweep", "figures"])
def test_second_run_on_a_busy_folder_changes_nothing(tmp_path, phase):
    """Run B starts while run A is in its sweep or drawing its figures: B is refused and writes nothing."""
    out = tmp_path / "res"
    first = {}

    def run_a():
        try:
            first["result"] = _tiny(["fig6"], out)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            first["error"] = exc

    with _paused_in(phase) as (paused, resume):
        a = threading.Thread(target=run_a)
        a.start()
        assert paused.wait(120), first
        before = _snapshot(out)
        if phase == "figures":  # A's figure is staged in its run's folder, which B must not remove
            assert [p.name for p in out.glob(".lgekit-run.*")]
        with pytest.raises(RuntimeError, match=f"another lgekit process is writing into '{re.escape(str(out))}'"):
            _tiny(["fig5"], out)
        assert _snapshot(out) == before  # plan.json included
        resume.set()
        a.join(120)
    assert "error" not in first, first.get("error")
    plan = json.loads((out / "plan.json").read_text())
    _check_consistent(out, plan, figures=["fig6"])


def _check_consistent(out, plan, figures):
    assert sorted(plan["figures"]) == figures
    stored = sorted(p.stem for p in (out / "cells").glob("*.json") if not p.name.startswith("."))
    assert set(plan["cells"]) <= set(stored)
    for key in plan["cells"]:
        assert json.loads((out / "cells" / f"{key}.json").read_text())["config"] == plan["cells"][key]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_cells"] == len(plan["cells"]) and summary["missing"] == []
    for name in figures:
        assert (out / f"{name}.png").stat().st_size > 0 and (out / f"{name}.pdf").stat().st_size > 0
    assert not list(out.rglob(".lgekit-tmp.*")) and not list(out.glob(".lgekit-run.*"))


_RUNNER = """
import sys
from lgekit.experiments.report import reproduce
try:
    reproduce([sys.argv[2]], dataset={dataset!r}, out=sys.argv[1], quick=True, n_jobs=1, progress=False,
              overrides={overrides!r})
except RuntimeError as exc:
    print(exc, file=sys.stderr)
    sys.exit(3)
"""


def _env():
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.slow  # two processes importing lgekit and drawing figures: ~20 s on 2 busy cores
def test_two_concurrent_processes_leave_a_consistent_folder(tmp_path):
    """Two real processes started together on one folder: one is refused (or they run one after the other);
    either way the plan, the cells and the outputs agree and no temporary is left."""
    out = tmp_path / "res"
    runner = _RUNNER.format(dataset=TINY_DATASET, overrides=TINY)
    procs = {fig: subprocess.Popen([sys.executable, "-c", runner, str(out), fig], env=_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for fig in ("fig5", "fig6")}
    done = {fig: (p.wait(300), p.communicate()) for fig, p in procs.items()}
    print("exit statuses:", {fig: code for fig, (code, _) in done.items()})
    for fig, (code, (_, err)) in done.items():
        assert code in (0, 3), err[-3000:]
        if code == 3:
            assert "another lgekit process is writing into" in err
    assert any(code == 0 for code, _ in done.values())
    plan = json.loads((out / "plan.json").read_text())
    (last,) = plan["figures"]
    assert done[last][0] == 0
    _check_consistent(out, plan, figures=[last])


# ---------------------------------------------------------------------------- item 3: workers die with the driver
# A reproduce-like sweep through the real engine (loky, two workers) whose cells never end: each marks that
# it started (pickled by value, as __main__ functions are) and then computes until killed.
_FOREVER = """
import os, sys, time
from pathlib import Path
from lgekit.experiments import engine
from lgekit.experiments.plan import expand

def forever(config, marks=sys.argv[2], **kwargs):  # a default: the worker's own sys.argv is loky's
    Path(marks, f"cell-{os.getpid()}").write_text("")
    while True:
        sum(i * i for i in range(10000))

engine.run_cell = forever
plan = expand(["fig6"], dataset=DATASET, quick=True, overrides=OVERRIDES)
engine.run_sweep(plan.cells, sys.argv[1], n_jobs=2, progress=False)
"""


def _proc_stat(pid):
    """(state, parent pid, start time) of ``pid`` from /proc, or None when it no longer exists."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[19])


def _descendants(pid):
    """{pid: start time} of every live descendant of ``pid``."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _proc_stat(int(entry.name))
            if stat is not None and stat[0] != "Z":
                children.setdefault(stat[1], []).append((int(entry.name), stat[2]))
    out, todo = {}, [pid]
    while todo:
        for child, start in children.get(todo.pop(), []):
            out[child] = start
            todo.append(child)
    return out


def _alive(pids):
    """Those of ``pids`` ({pid: start time}) still running (not a zombie, not a reused pid)."""
    out = []
    for pid, start in pids.items():
        stat = _proc_stat(pid)
        if stat is not None and stat[0] != "Z" and stat[2] == start:
            out.append(pid)
    return out


@pytest.mark.slow  # the driver and two workers import lgekit: 13-16 s on 2 busy cores, of which the exit < 1 s
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_workers_exit_when_the_driver_is_killed(tmp_path):
    from lgekit.models._machine import available_cores

    if available_cores() < 2:
        pytest.skip("needs 2 cores: with one, the engine runs cells in the driver itself")
    marks = tmp_path / "marks"
    marks.mkdir()
    script = _FOREVER.replace("DATASET", repr(TINY_DATASET)).replace("OVERRIDES", repr(TINY))
    driver = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "res"), str(marks)], env=_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    family = {}
    try:
        deadline = time.monotonic() + 120
        while len(list(marks.iterdir())) < 2 and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.poll() is None, driver.stderr.read().decode()[-3000:]
        assert len(list(marks.iterdir())) == 2, "the workers did not start their cells in time"
        family = _descendants(driver.pid)  # the loky workers and resource trackers
        workers = {int(p.name.split("-")[1]) for p in marks.iterdir()}
        assert workers <= set(family)
        os.kill(driver.pid, signal.SIGKILL)  # the driver only: its workers are left to notice
        driver.wait(30)
        t0 = time.monotonic()
        # the workers check every 0.5 s (engine.PARENT_POLL_SECONDS); the margin is for a loaded machine
        while _alive(family) and time.monotonic() - t0 < 15:
            time.sleep(0.05)
        elapsed = time.monotonic() - t0
        survivors = _alive(family)
        print(f"the driver's {len(family)} processes exited {elapsed:.2f} s after its kill -9")
        assert not survivors, f"{len(survivors)} of {len(family)} processes still run {elapsed:.1f} s after the kill"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)  # the session this test started, whatever is left of it
        driver.wait(30)
        driver.stderr.close()
