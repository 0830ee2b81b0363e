"""Progress of a sweep, wherever its output goes.

* On a terminal (``stream.isatty()``): a tqdm bar over the cells.
* In a Jupyter notebook: a notebook bar (``tqdm.auto``); a kernel's stderr is
  no terminal, so the notebook is recognised first.
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
import threading
import time

__all__ = ["PROGRESS_INTERVAL", "LineProgress", "progress_reporter"]

#: seconds between two lines of the plain-text progress
PROGRESS_INTERVAL = 5.0


def _duration(seconds):
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


class _Silent:
    def update(self, status, cost=0.0):
        pass

    def close(self):
        pass


class _Bar:
    """A tqdm bar (terminal or notebook) with the diverged/failed counts as its postfix."""

    def __init__(self, total, initial, stream):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, initial=initial, unit="cell", desc="cells", dynamic_ncols=True,
                        smoothing=0.1, file=stream)
        self.n_diverged = self.n_failed = 0

    def update(self, status, cost=0.0):
        self.n_diverged += status == "diverged"
        self.n_failed += status not in ("ok", "diverged")
        self.bar.update(1)
        self.bar.set_postfix_str(f"{self.n_diverged} diverged, {self.n_failed} failed", refresh=False)

    def close(self):
        self.bar.close()


class LineProgress:
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
        self.stream = sys.stderr if stream is None else stream
        self.interval = float(interval)
        self.clock = clock
        self.start = self.last = clock()
        self._shown = None  # cells done when the last line was written
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if heartbeat and self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="lgekit-progress", daemon=True)
            self._thread.start()

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

    def _emit(self, now):
        self.last = now
        self._shown = self.done
        print(self.line(now), file=self.stream, flush=True)

    def _maybe_emit(self):
        with self._lock:
            now = self.clock()
            if now - self.last >= self.interval:
                self._emit(now)

    def _beat(self):
        while not self._stop.wait(self.interval / 2):
            self._maybe_emit()

    def update(self, status, cost=0.0):
        """One more cell finished with ``status`` (estimated ``cost``)."""
        with self._lock:
            self.done += 1
            self.cost_done += float(cost)
            self.n_diverged += status == "diverged"
            self.n_failed += status not in ("ok", "diverged")
        self._maybe_emit()

    def close(self):
        """Stop the heartbeat and write the last line (unless the last line written says the same)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self._shown != self.done:
                self._emit(self.clock())


def _in_notebook():
    """Whether this process is a Jupyter kernel (where tqdm.auto draws a notebook bar)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - any failure means: not a kernel we can draw in
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


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
    isatty = getattr(stream, "isatty", None)
    if _in_notebook() or (isatty is not None and isatty()):
        return _Bar(total, initial, stream)
    return LineProgress(total, initial, remaining_cost=remaining_cost, stream=stream,
                        interval=PROGRESS_INTERVAL if interval is None else interval)
