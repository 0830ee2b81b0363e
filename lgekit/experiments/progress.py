"""Progress of a sweep, wherever its output goes.

Which display suits the stream is decided by :mod:`lgekit._progress`, shared
with the estimators' epochs:

* On a terminal (``stream.isatty()``): a tqdm bar over the cells.
* In a Jupyter notebook: a notebook bar; a kernel's stderr is no terminal, so
  the notebook is recognised first.
* Anywhere else (a log file, a pipe, CI): one plain line every
  :data:`PROGRESS_INTERVAL` seconds, whether or not a cell finished in the
  meantime (so a long cell does not look like a hang), and the final count at
  the end::

      cells 12/34 done (2 reused; 1 diverged, 0 failed), elapsed 3m05s, ETA 4m10s

The ETA weighs the cells by their estimated cost
(:func:`lgekit.experiments.specs.estimated_cost`), since the sweep starts the
longest ones first: counting cells would promise too early an end.
"""
import sys
import time

from .. import _progress
from .._progress import _Silent, format_duration as _duration

__all__ = ["PROGRESS_INTERVAL", "LineProgress", "progress_reporter"]

#: seconds between two lines of the plain-text progress
PROGRESS_INTERVAL = _progress.PROGRESS_INTERVAL


class _Bar:
    """A tqdm bar (terminal or notebook) with the diverged/failed counts as its postfix."""

    def __init__(self, total, initial, stream, notebook=None):
        self.bar = _progress.tqdm_bar(stream, notebook=notebook, total=total, initial=initial, unit="cell",
                                      desc="cells", smoothing=0.1)
        self.n_diverged = self.n_failed = 0

    def update(self, status, cost=0.0):
        self.n_diverged += status == "diverged"
        self.n_failed += status not in ("ok", "diverged")
        self.bar.update(1)
        self.bar.set_postfix_str(f"{self.n_diverged} diverged, {self.n_failed} failed", refresh=False)

    def close(self):
        self.bar.close()


class LineProgress(_progress.PeriodicLines):
    """Plain progress lines: at most one every ``interval`` seconds, and one at the end.

    Parameters
    ----------
    total : int
        Cells in the plan.
    initial : int
        Cells already finished before this sweep (reused from the store).
    remaining_cost : float
        The summed estimated cost of the cells this sweep runs (0: the ETA
        counts cells instead).
    stream : file-like
        Where the lines go.
    interval : float
        Seconds between two lines.
    clock : callable
        Returns the time in seconds (``time.monotonic``; tests pass a fake).
    heartbeat : bool
        Also write a line every ``interval`` seconds while no cell finishes
        (a daemon thread); tests that drive ``clock`` turn it off.
    """

    def __init__(self, total, initial=0, *, remaining_cost=0.0, stream=None, interval=PROGRESS_INTERVAL,
                 clock=time.monotonic, heartbeat=True):
        self.total, self.initial, self.done = int(total), int(initial), int(initial)
        self.n_diverged = self.n_failed = 0
        self.cost_total, self.cost_done = float(remaining_cost), 0.0
        super().__init__(stream=stream, interval=interval, clock=clock, heartbeat=heartbeat)

    def _state(self):
        return self.done

    def line(self, now=None):
        """The status line at ``now`` (default: the clock's time)."""
        now = self.clock() if now is None else now
        elapsed = now - self.start
        run = self.done - self.initial
        if self.done >= self.total:
            eta = "done"
        elif run == 0 or elapsed <= 0:
            eta = "ETA unknown"
        elif self.cost_total > 0 and self.cost_done > 0:
            eta = "ETA " + _duration(elapsed * (self.cost_total - self.cost_done) / self.cost_done)
        else:
            eta = "ETA " + _duration(elapsed * (self.total - self.done) / run)
        reused = f"{self.initial} reused; " if self.initial else ""
        return (f"cells {self.done}/{self.total} done ({reused}{self.n_diverged} diverged, {self.n_failed} failed), "
                f"elapsed {_duration(elapsed)}, {eta}")

    def update(self, status, cost=0.0):
        """One more cell finished with ``status`` (estimated ``cost``)."""
        with self._lock:
            self.done += 1
            self.cost_done += float(cost)
            self.n_diverged += status == "diverged"
            self.n_failed += status not in ("ok", "diverged")
        self._changed()


def progress_reporter(total, initial=0, *, enabled=True, remaining_cost=0.0, stream=None, interval=None):
    """The progress display that suits where ``stream`` goes.

    Parameters
    ----------
    total, initial : int
        Cells in the plan; cells already finished.
    enabled : bool
        ``False``: nothing is shown.
    remaining_cost : float
        Estimated cost of the cells to run (for the plain lines' ETA).
    stream : file-like, optional
        Default ``sys.stderr`` (looked up at call time).
    interval : float, optional
        Seconds between plain lines (default :data:`PROGRESS_INTERVAL`).

    Returns
    -------
    object
        With ``update(status, cost)`` after each cell and ``close()`` at the end.
    """
    if not enabled:
        return _Silent()
    stream = sys.stderr if stream is None else stream
    display = _progress.display_for(stream)
    if display != "lines":
        return _Bar(total, initial, stream, notebook=display == "notebook")
    return LineProgress(total, initial, remaining_cost=remaining_cost, stream=stream,
                        interval=PROGRESS_INTERVAL if interval is None else interval)
