"""Feedback while an estimator fits (issue #16 item 5): what ``verbose`` shows, wherever stderr goes.

verbose=0 prints nothing; verbose=1 says when the preparation starts and ends,
then shows the epochs as a bar (terminal, notebook) or as a line every few
seconds (pipe, log); verbose=2 adds a printed line per epoch, visible without
any ``logging`` set-up.  ``lgekit fit`` shows the preparation and the epochs
by default.  The display is chosen by ``lgekit._progress``, which the sweeps'
progress (``lgekit._progress.sweep_progress``) shares.
"""
import io
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import networkx as nx
import pytest

import lgekit
from lgekit import _progress
from lgekit.models import HingeEmbedding, LogisticEmbedding

ROOT = Path(lgekit.__file__).resolve().parent.parent
MODELS = [LogisticEmbedding, HingeEmbedding]


def _graph():
    # a small connected graph with no edge attributes (weights are another item of the issue)
    return nx.Graph(nx.karate_club_graph().edges())


def _model(cls, **kw):
    return cls(dim=4, random_state=0, **kw)


class _Clock:
    def __init__(self):
        self.now = 50.0

    def __call__(self):
        return self.now


# ---------------------------------------------------------------------------- the estimators
@pytest.mark.parametrize("cls", MODELS)
def test_verbose_2_prints_every_epoch_to_stderr_without_logging(cls, capfd):
    """The old code only called logger.info, which nothing shows unless logging is set up."""
    model = _model(cls, epochs=3, verbose=2).fit(_graph())
    captured = capfd.readouterr()
    assert captured.out == ""
    name = cls.__name__
    lines = [line for line in captured.err.splitlines() if re.match(rf"{name}: epoch \d+: ", line)]
    assert len(lines) == 3
    for line, record in zip(lines, model.history_):
        m = re.fullmatch(rf"{name}: epoch (\d+): objective (\S+), mean norm (\S+), (\d+\.\d{{3}})s", line)
        assert m, line
        assert int(m[1]) == record["epoch"]
        assert m[2] == f"{record['objective']:.6g}" and m[3] == f"{record['mean_norm']:.4g}"


def test_verbose_2_epoch_lines_carry_the_callbacks_metrics(capfd):
    from lgekit import split_edges
    from lgekit.callbacks import LinkPredictionCallback
    from lgekit.datasets import planted_partition_graph

    split = split_edges(planted_partition_graph(n_nodes=60, n_labels=3, seed=1), test_fraction=0.2, seed=0)
    model = _model(HingeEmbedding, epochs=2, verbose=2)
    model.fit(split, callbacks=[LinkPredictionCallback(split, every=1, train=False)])
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if ": epoch " in line]
    assert [f"test_ap {r['test_ap']:.4f}" in line for line, r in zip(lines, model.history_)] == [True, True]
    # the split's sizes are announced before the preparation
    assert (f"preparing the training pairs of 60 nodes, {len(split.train_positives):,} training edges, "
            f"{len(split.train_negatives):,} given negatives ...") in err


@pytest.mark.parametrize("cls", MODELS)
def test_verbose_1_in_a_pipe_prints_preparation_and_periodic_lines(cls, monkeypatch, capfd):
    monkeypatch.setattr(_progress, "PROGRESS_INTERVAL", 0.0)  # a line per epoch, no heartbeat thread
    model = _model(cls, epochs=4, verbose=1).fit(_graph())
    err = capfd.readouterr().err.splitlines()
    name = cls.__name__
    n_pairs = (1 + model.negatives_per_positive) * 78 if hasattr(model, "negatives_per_positive") else None
    assert err[0] == f"{name}: preparing the training pairs of 34 nodes, 78 edges ..."
    ready = re.fullmatch(rf"{name}: ([\d,]+) training pairs on 34 nodes ready in \d+\.\ds", err[1])
    assert ready, err[1]
    if n_pairs is not None:
        assert int(ready[1].replace(",", "")) == n_pairs
    progress = err[2:]
    assert [line.split(" done")[0] for line in progress] == [f"{name}: epochs {k}/4" for k in range(1, 5)]
    assert all(", elapsed " in line for line in progress)
    assert all(", ETA " in line for line in progress[:-1])
    assert progress[-1].endswith(f", done (objective {model.history_[-1]['objective']:.5g})")
    assert not any(": epoch " in line for line in err)  # the per-epoch lines are verbose=2's


def test_verbose_1_heartbeat_lines_while_an_epoch_runs(monkeypatch, capfd):
    """In a log, a long epoch shows up as time passing: lines come while no epoch finishes."""
    import threading

    monkeypatch.setattr(_progress, "PROGRESS_INTERVAL", 0.02)
    model = _model(HingeEmbedding, epochs=2, verbose=1)
    # the epoch runs on the solver the model builds in fit (lgekit.models.Solver.run_epoch): slow its class down
    solver_class = type(model)._solver_class
    run_epoch = solver_class.run_epoch
    released = threading.Event()

    def slow_epoch(solver, epoch):
        released.wait(0.3)  # the heartbeat thread writes meanwhile
        return run_epoch(solver, epoch)

    monkeypatch.setattr(solver_class, "run_epoch", slow_epoch)
    model.fit(_graph())
    lines = [line for line in capfd.readouterr().err.splitlines() if "epochs 0/2 done" in line]
    assert len(lines) >= 3 and all(line.endswith("ETA unknown") for line in lines)


def test_an_early_stop_closes_with_a_stopped_line(monkeypatch, capfd):
    from lgekit.callbacks import Callback

    class StopAfterTwo(Callback):
        def on_epoch_end(self, model, epoch, record):
            return epoch == 1

    monkeypatch.setattr(_progress, "PROGRESS_INTERVAL", 0.0)
    _model(HingeEmbedding, epochs=6, verbose=2).fit(_graph(), callbacks=[StopAfterTwo()])
    err = capfd.readouterr().err.splitlines()
    assert "HingeEmbedding: stopped by a callback after epoch 1" in err
    assert re.fullmatch(r"HingeEmbedding: epochs 2/6 done, elapsed \d+s, stopped \(objective \S+\)", err[-1])


@pytest.mark.parametrize("display", ["lines", "terminal"])
def test_verbose_0_prints_nothing(display, monkeypatch, capfd):
    monkeypatch.setattr(_progress, "display_for", lambda stream: display)
    monkeypatch.setattr(_progress, "PROGRESS_INTERVAL", 0.0)
    model = _model(HingeEmbedding, epochs=3, verbose=0).fit(_graph())
    model.partial_fit(_graph(), epochs=2)
    assert capfd.readouterr() == ("", "")


def test_partial_fit_on_the_same_data_prepares_and_announces_once(monkeypatch, capfd):
    monkeypatch.setattr(_progress, "PROGRESS_INTERVAL", 0.0)
    g = _graph()
    model = _model(HingeEmbedding, verbose=1)
    for _ in range(3):
        model.partial_fit(g, epochs=1)
    err = capfd.readouterr().err.splitlines()
    # one preparation, and no epoch display for single-epoch calls (a bar per call would be noise)
    assert len(err) == 2 and "preparing" in err[0] and "ready in" in err[1]


def test_a_terminal_gets_a_tqdm_bar_and_the_epoch_lines_above_it(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    model = _model(HingeEmbedding, epochs=3, verbose=2).fit(_graph())
    text = stream.getvalue()
    assert "\r" in text and "3/3" in text and ("epoch/s" in text or "s/epoch" in text)  # tqdm's bar
    assert "HingeEmbedding: epochs 3/3 done" not in text  # no plain lines on a terminal
    for record in model.history_:
        assert f"HingeEmbedding: epoch {record['epoch']}: objective" in text


# ---------------------------------------------------------------------------- the notebook
class _FakeNotebookBar:
    """Stands for tqdm.notebook.tqdm (whose widget needs ipywidgets and a kernel)."""

    made = []

    def __init__(self, **kwargs):
        self.kwargs, self.n, self.closed, self.written = kwargs, 0, False, []
        _FakeNotebookBar.made.append(self)

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, text, refresh=True):
        self.postfix = text

    def write(self, text, file=None):
        self.written.append(text)

    def close(self):
        self.closed = True


@pytest.fixture
def fake_notebook(monkeypatch):
    import tqdm.notebook

    _FakeNotebookBar.made = []
    monkeypatch.setattr(tqdm.notebook, "tqdm", _FakeNotebookBar)
    monkeypatch.setattr(_progress, "in_notebook", lambda: True)
    monkeypatch.setattr(_progress, "notebook_widgets", lambda: True)  # as if ipywidgets were installed
    return _FakeNotebookBar.made


def test_in_a_kernel_the_estimator_draws_tqdms_notebook_bar(fake_notebook, capfd):
    """A kernel's stderr is no terminal: the old code showed nothing at verbose=1 in Jupyter."""
    model = _model(HingeEmbedding, epochs=3, verbose=2).fit(_graph())
    (bar,) = fake_notebook
    assert bar.kwargs["total"] == 3 and bar.kwargs["desc"] == "HingeEmbedding" and bar.kwargs["unit"] == "epoch"
    assert bar.n == 3 and bar.closed
    err = capfd.readouterr().err
    assert "epochs 3/3 done" not in err  # a bar, not the plain lines
    # the epoch lines go to stderr beside the widget (tqdm.write would send them to stdout)
    assert bar.written == [] and [f"HingeEmbedding: epoch {t}: objective" in err for t in range(3)] == [True] * 3
    assert model.n_iter_ == 3


def test_in_a_kernel_the_sweep_draws_the_notebook_bar_too(fake_notebook):
    bar = _progress.sweep_progress(4, 1, stream=io.StringIO())
    assert isinstance(bar.bar, _FakeNotebookBar) and bar.bar.kwargs["initial"] == 1
    bar.update("diverged")
    bar.close()
    assert bar.bar.n == 1 and bar.bar.postfix == "1 diverged, 0 failed"


@pytest.mark.parametrize("widgets", [False, True])
def test_without_working_ipywidgets_the_notebook_falls_back_to_a_text_bar(widgets, monkeypatch, capfd):
    import tqdm.notebook
    import tqdm.std

    def broken_widgets(**kwargs):
        raise ImportError("IProgress not found. Please update jupyter and ipywidgets.")

    monkeypatch.setattr(_progress, "notebook_widgets", lambda: widgets)  # missing, or there but failing
    monkeypatch.setattr(tqdm.notebook, "tqdm", broken_widgets)
    stream = io.StringIO()
    bar = _progress.tqdm_bar(stream, notebook=True, total=2, desc="x")
    assert type(bar) is tqdm.std.tqdm and bar.fp is not None
    bar.update(2)
    bar.close()
    assert "2/2" in stream.getvalue()


def test_no_ipywidgets_builds_no_half_notebook_bar(monkeypatch):
    """Without ipywidgets tqdm's notebook bar raises half-built, and its clean-up prints a second traceback
    ("Exception ignored in tqdm.__del__", seen in a real kernel): it must not be tried at all."""
    import tqdm.notebook
    import tqdm.std

    tried = []
    monkeypatch.setattr(tqdm.notebook, "IProgress", None)  # what tqdm.notebook holds without ipywidgets
    monkeypatch.setattr(tqdm.notebook, "tqdm", lambda **kwargs: tried.append(kwargs))
    monkeypatch.setattr(_progress, "in_notebook", lambda: True)
    shown = _progress.progress(2, desc="x", unit="epoch", stream=io.StringIO())
    assert type(shown.bar) is tqdm.std.tqdm and tried == []
    shown.close()


def test_the_real_notebook_bar_when_ipywidgets_is_installed(monkeypatch):
    pytest.importorskip("ipywidgets")
    import tqdm.notebook

    bar = _progress.tqdm_bar(io.StringIO(), notebook=True, total=2, desc="x")
    assert isinstance(bar, tqdm.notebook.tqdm)
    bar.close()


@pytest.mark.parametrize("shell_class, expected", [
    ("ZMQInteractiveShell", True),        # Jupyter's kernel
    ("Shell(ZMQInteractiveShell)", True),  # Colab's subclass
    ("TerminalInteractiveShell", False),   # the IPython terminal: a real terminal, a text bar
    (None, False),                         # IPython imported, no shell running
])
def test_the_kernel_is_recognised_by_its_shell(shell_class, expected, monkeypatch):
    if shell_class is None:
        shell = None
    else:
        base = type("ZMQInteractiveShell", (), {}) if "ZMQ" in shell_class else object
        shell = type(shell_class.split("(")[0], (base,), {"config": {}})()
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert _progress.in_notebook() is expected
    assert (_progress.display_for(io.StringIO()) == "notebook") is expected


def test_no_ipython_no_notebook(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not _progress.in_notebook()
    assert _progress.display_for(io.StringIO()) == "lines"


# ---------------------------------------------------------------------------- the plain lines
def test_count_lines_interval_eta_and_closing_line():
    clock, out = _Clock(), io.StringIO()
    lines = _progress.CountLines(10, desc="M", unit="epoch", stream=out, interval=5.0, clock=clock, heartbeat=False)
    clock.now += 2.0
    lines.update(postfix="objective 3")  # 2 s in: no line yet
    assert out.getvalue() == ""
    clock.now += 3.0
    lines.update()  # 5 s in, 2 of 10 done: 20 s to go
    clock.now += 1.0
    lines.update()
    clock.now += 60.0
    lines.close()
    assert out.getvalue().splitlines() == [
        "M: epochs 2/10 done, elapsed 5s, ETA 20s (objective 3)",
        "M: epochs 3/10 done, elapsed 1m06s, stopped (objective 3)",
    ]


def test_count_lines_does_not_repeat_the_last_line_when_done():
    clock, out = _Clock(), io.StringIO()
    lines = _progress.CountLines(2, desc="M", unit="epoch", stream=out, interval=0.0, clock=clock, heartbeat=False)
    lines.update()
    lines.update()
    lines.close()
    assert out.getvalue().splitlines() == ["M: epochs 1/2 done, elapsed 0s, ETA unknown",
                                           "M: epochs 2/2 done, elapsed 0s, done"]


def test_format_duration():
    assert [_progress.format_duration(s) for s in (0.4, 59.6, 61, 3600 + 61)] == ["0s", "1m00s", "1m01s", "1h01m01s"]


# ---------------------------------------------------------------------------- layering and the command line
def _env():
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_a_verbose_fit_imports_no_experiments_module():
    code = ("import sys, networkx as nx\n"
            "from lgekit.models import HingeEmbedding\n"
            "HingeEmbedding(dim=4, epochs=2, verbose=2, random_state=0).fit(nx.cycle_graph(12))\n"
            "print(sorted(m for m in sys.modules if m.startswith('lgekit.experiments')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "HingeEmbedding: epoch 1: objective" in done.stderr


@pytest.mark.parametrize("verbose", [[], ["-v"]])
def test_lgekit_fit_in_a_pipe_shows_the_load_preparation_and_epochs(verbose, tmp_path):
    edges = tmp_path / "ring.edgelist"
    n = 40
    edges.write_text("".join(f"{i} {(i + 1) % n}\n{i} {(i + 3) % n}\n" for i in range(n)))
    done = subprocess.run([sys.executable, "-m", "lgekit", "fit", str(edges), "--model", "hinge", "--epochs", "3",
                           "--dim", "4", "--out", str(tmp_path / "out"), *verbose],
                          capture_output=True, text=True, env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert any(line.startswith(f"loaded {edges}: 40 nodes, 80 edges in ") for line in err)
    assert "HingeEmbedding: preparing the training pairs of 40 nodes, 80 edges ..." in err
    assert any(re.fullmatch(r"HingeEmbedding: [\d,]+ training pairs on 40 nodes ready in \d+\.\ds", line)
               for line in err)
    assert re.fullmatch(r"HingeEmbedding: epochs 3/3 done, elapsed \d+s, done \(objective \S+\)", err[-1])
    epoch_lines = [line for line in err if line.startswith("HingeEmbedding: epoch ")]
    assert len(epoch_lines) == (3 if verbose else 0)
    assert "\r" not in done.stderr  # no bar redrawn in a log
    assert "wrote " in done.stdout  # the results stay on stdout
    # the command's verbosity is not saved with the model: loaded, it is as quiet as a new one
    from lgekit.models import BaseEmbedding

    assert BaseEmbedding.load(tmp_path / "out" / "embedding.npz").verbose == 0
