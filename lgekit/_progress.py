"""Where progress output goes, and in what form: one place for every layer.

Long work (a fit's epochs, a sweep's cells) reports progress in the form that
suits the place its stream ends up in:

* a Jupyter kernel (recognised first: a kernel's stderr is no terminal): a
  notebook bar (``tqdm.notebook``), or a text bar when ipywidgets is missing;
* a terminal (``stream.isatty()``): a tqdm bar;
* anywhere else (a log file, a pipe, CI): one plain line every
  :data:`PROGRESS_INTERVAL` seconds, whether or not a step finished in the
  meantime (so a long step does not look like a hang), and a last line when
  the work ends::

      LogisticEmbedding: epochs 12/50 done, elapsed 3m05s, ETA 9m46s (objective 1.234e+05)

A sweep's display (:func:`sweep_progress`) counts cells and their outcomes::

      cells 12/34 done (2 reused; 1 diverged, 0 failed), elapsed 3m05s, ETA 4m10s

and weighs its ETA by the cells' estimated costs (the sweep starts the longest
cells first: counting cells would promise too early an end).

This module imports neither NumPy nor tqdm at import time and nothing of
lgekit: the estimators (``lgekit.models``) and the harness
(``lgekit.experiments``) both use it, and :data:`PROGRESS_INTERVAL` is read
when a display is made, so setting it reaches fits and sweeps alike.
"""
import sys
import threading
import time

__all__ = ["PROGRESS_INTERVAL", "CountLines", "PeriodicLines", "SweepLines", "display_for", "format_duration",
           "in_notebook", "notebook_widgets", "progress", "sweep_progress", "tqdm_bar", "write_line"]

#: seconds between two plain progress lines (read at every call: tests and scripts may change it)
PROGRESS_INTERVAL = 5.0


def format_duration(seconds):
    """``seconds`` as ``1h02m03s``, ``2m03s`` or ``3s`` (rounded to the second)."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def in_notebook():
    """Whether this process is a Jupyter kernel (JupyterLab, classic, VS Code, Colab...).

    Only an IPython already imported is asked (a plain script never imports
    it); a kernel's shell is a ``ZMQInteractiveShell`` or a subclass of it
    (Colab's), or runs under an ``IPKernelApp``.
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
        if shell is None:
            return False
        if any(cls.__name__ == "ZMQInteractiveShell" for cls in type(shell).__mro__):
            return True
        return "IPKernelApp" in getattr(shell, "config", {})
    except Exception:  # noqa: BLE001 - any failure means: not a kernel we can draw in
        return False


def display_for(stream):
    """``"notebook"``, ``"terminal"`` or ``"lines"``: the display that suits ``stream``."""
    if in_notebook():
        return "notebook"
    isatty = getattr(stream, "isatty", None)
    try:
        if isatty is not None and isatty():
            return "terminal"
    except (ValueError, OSError):  # a closed or detached stream: no bar can be drawn on it
        pass
    return "lines"


def notebook_widgets():
    """Whether tqdm can draw its notebook widget (it needs ipywidgets).

    Asked before a notebook bar is made: without the widgets, tqdm raises
    in the middle of building the bar, and the half-built bar's clean-up
    prints a second traceback.
    """
    from tqdm import notebook as tqdm_notebook  # lazy: only a bar on display needs tqdm (not verbose=0, not a log)

    return getattr(tqdm_notebook, "IProgress", None) is not None


def tqdm_bar(stream, *, notebook=None, **kwargs):
    """A tqdm bar on ``stream``: the notebook widget in a Jupyter kernel, else a text bar.

    Parameters
    ----------
    stream : file-like
        Where a text bar draws (a notebook bar draws in the cell's output).
    notebook : bool, optional
        Draw the notebook widget; default: :func:`in_notebook`.
    **kwargs
        Passed to tqdm (``total``, ``desc``, ``unit``, ``initial``...).

    Notes
    -----
    ``tqdm.notebook`` needs ipywidgets; without it the bar falls back to
    tqdm's text bar, which a notebook shows too (``tqdm.auto`` would raise
    instead).
    """
    if (in_notebook() if notebook is None else notebook) and notebook_widgets():
        from tqdm import notebook as tqdm_notebook  # lazy: only a bar on display needs tqdm (not verbose=0, not a log)

        try:
            return tqdm_notebook.tqdm(**kwargs)
        except ImportError:  # ipywidgets too old for tqdm
            pass
    from tqdm import std  # lazy: only a bar on display needs tqdm (not verbose=0, not a log)

    return std.tqdm(file=stream, dynamic_ncols=True, **kwargs)


def write_line(text, stream=None):
    """Write one line to ``stream`` (default ``sys.stderr``, looked up now) and flush it."""
    stream = sys.stderr if stream is None else stream
    print(text, file=stream, flush=True)


class PeriodicLines:
    """Plain progress lines: at most one every ``interval`` seconds, and one at the end.

    Subclasses say what a line reads (:meth:`line`) and call :meth:`_changed`
    after recording progress.  A daemon thread also writes a line every
    ``interval`` seconds while nothing finishes (``heartbeat``), so that a
    long step shows up in a log as time passing, not as a hang.

    Parameters
    ----------
    stream : file-like, optional
        Where the lines go (default ``sys.stderr``, looked up at construction).
    interval : float, optional
        Seconds between two lines (default :data:`PROGRESS_INTERVAL`).
    clock : callable
        Returns the time in seconds (``time.monotonic``; tests pass a fake).
    heartbeat : bool
        Run the heartbeat thread (tests that drive ``clock`` turn it off).
    """

    def __init__(self, *, stream=None, interval=None, clock=time.monotonic, heartbeat=True):
        self.stream = sys.stderr if stream is None else stream
        self.interval = float(PROGRESS_INTERVAL if interval is None else interval)
        self.clock = clock
        self.start = self.last = clock()
        self._shown = None  # the state (:meth:`_state`) when the last line was written
        self._closed = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if heartbeat and self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="lgekit-progress", daemon=True)
            self._thread.start()

    def line(self, now=None):  # pragma: no cover - overridden
        """The status line at ``now`` (default: the clock's time)."""
        raise NotImplementedError

    def _state(self):
        """What the last line must show for the closing line to be skipped (default: the line itself)."""
        return None

    def _emit(self, now):
        self.last = now
        self._shown = self._state()
        print(self.line(now), file=self.stream, flush=True)

    def _changed(self):
        """Progress was recorded: write a line if the last one is ``interval`` seconds old."""
        with self._lock:
            now = self.clock()
            if now - self.last >= self.interval:
                self._emit(now)

    def _beat(self):
        while not self._stop.wait(self.interval / 2):
            self._changed()

    def write(self, text):
        """Write a line of its own between the progress lines (they never cut one another)."""
        with self._lock:
            print(text, file=self.stream, flush=True)

    def close(self):
        """Stop the heartbeat and write the last line (unless the last line written says the same)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._closed = True
            if self._shown is None or self._shown != self._state():
                self._emit(self.clock())


class CountLines(PeriodicLines):
    """Periodic lines counting steps: ``DESC: UNITs D/T done, elapsed E, ETA R (POSTFIX)``.

    Parameters
    ----------
    total : int
        Steps planned.
    desc : str
        What is running (``"LogisticEmbedding"``).
    unit : str
        One step (``"epoch"``; an ``s`` is appended).
    **kwargs
        ``stream``, ``interval``, ``clock``, ``heartbeat`` of :class:`PeriodicLines`.

    Notes
    -----
    The ETA assumes the remaining steps take as long as the finished ones on
    average; the closing line says ``done`` when every step ran and
    ``stopped`` otherwise (an early stop, an error).
    """

    def __init__(self, total, *, desc, unit, **kwargs):
        self.total, self.done = int(total), 0
        self.desc, self.unit = desc, unit
        self.postfix = ""
        super().__init__(**kwargs)

    def _state(self):
        # a closing line that says "stopped" differs from the last periodic one at the same count
        return self.done, self._closed or self.done >= self.total

    def line(self, now=None):
        now = self.clock() if now is None else now
        elapsed = now - self.start
        if self.done >= self.total:
            eta = "done"
        elif self._closed:
            eta = "stopped"
        elif self.done == 0 or elapsed <= 0:
            eta = "ETA unknown"
        else:
            eta = "ETA " + format_duration(elapsed * (self.total - self.done) / self.done)
        postfix = f" ({self.postfix})" if self.postfix else ""
        return (f"{self.desc}: {self.unit}s {self.done}/{self.total} done, elapsed {format_duration(elapsed)}, "
                f"{eta}{postfix}")

    def update(self, n=1, postfix=None):
        """``n`` more steps finished; ``postfix`` (str) replaces the note at the end of the line."""
        with self._lock:
            self.done += int(n)
            if postfix is not None:
                self.postfix = postfix
        self._changed()


class _Silent:
    """Shows nothing (``enabled=False``)."""

    def update(self, *args, **kwargs):
        pass

    def write(self, text):
        pass

    def close(self):
        pass


class _BarProgress:
    """A tqdm bar behind the interface of :class:`CountLines`."""

    def __init__(self, bar, stream):
        from tqdm import notebook, std  # lazy: only a bar on display needs tqdm (not verbose=0, not a log)

        self.bar, self.stream = bar, stream
        # a text bar shares its stream with the lines written above it; a notebook widget does not
        self._text = isinstance(bar, std.tqdm) and not isinstance(bar, notebook.tqdm_notebook)

    def update(self, n=1, postfix=None):
        if postfix is not None:
            self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.update(n)

    def write(self, text):
        if self._text:
            self.bar.write(text, file=self.bar.fp)  # clears the bar, writes the line, redraws the bar below
        else:
            write_line(text, self.stream)  # beside the widget, on stderr (tqdm would send it to stdout)

    def close(self):
        self.bar.close()


def progress(total, *, desc, unit, enabled=True, stream=None, interval=None):
    """The progress display over ``total`` steps that suits where ``stream`` goes.

    Parameters
    ----------
    total : int
        Steps planned.
    desc, unit : str
        What runs and what one step is (``"LogisticEmbedding"``, ``"epoch"``).
    enabled : bool
        ``False``: nothing is shown.
    stream : file-like, optional
        Default ``sys.stderr`` (looked up at call time).
    interval : float, optional
        Seconds between plain lines (default :data:`PROGRESS_INTERVAL`, read now).

    Returns
    -------
    object
        With ``update(n=1, postfix=None)`` after steps finish, ``write(text)``
        for a line of its own (above a bar, between plain lines) and
        ``close()`` at the end.
    """
    if not enabled:
        return _Silent()
    stream = sys.stderr if stream is None else stream
    display = display_for(stream)
    if display != "lines":
        return _BarProgress(tqdm_bar(stream, notebook=display == "notebook", total=total, desc=desc, unit=unit),
                            stream)
    return CountLines(total, desc=desc, unit=unit, stream=stream, interval=interval)


class SweepLines(PeriodicLines):
    """Plain lines over a sweep's cells: done, reused, diverged and failed counts, and a cost-weighted ETA.

    Parameters
    ----------
    total : int
        Cells in the plan.
    initial : int
        Cells already finished before this sweep (reused from the store).
    remaining_cost : float
        The summed estimated cost of the cells this sweep runs (0: the ETA
        counts cells instead).
    **kwargs
        ``stream``, ``interval``, ``clock``, ``heartbeat`` of :class:`PeriodicLines`.
    """

    def __init__(self, total, initial=0, *, remaining_cost=0.0, **kwargs):
        self.total, self.initial, self.done = int(total), int(initial), int(initial)
        self.n_diverged = self.n_failed = 0
        self.cost_total, self.cost_done = float(remaining_cost), 0.0
        super().__init__(**kwargs)

    def _state(self):
        return self.done

    def line(self, now=None):
        now = self.clock() if now is None else now
        elapsed = now - self.start
        run = self.done - self.initial
        if self.done >= self.total:
            eta = "done"
        elif run == 0 or elapsed <= 0:
            eta = "ETA unknown"
        elif self.cost_total > 0 and self.cost_done > 0:
            eta = "ETA " + format_duration(elapsed * (self.cost_total - self.cost_done) / self.cost_done)
        else:
            eta = "ETA " + format_duration(elapsed * (self.total - self.done) / run)
        reused = f"{self.initial} reused; " if self.initial else ""
        return (f"cells {self.done}/{self.total} done ({reused}{self.n_diverged} diverged, {self.n_failed} failed), "
                f"elapsed {format_duration(elapsed)}, {eta}")

    def update(self, status, cost=0.0):
        """One more cell finished with ``status`` (estimated ``cost``)."""
        with self._lock:
            self.done += 1
            self.cost_done += float(cost)
            self.n_diverged += status == "diverged"
            self.n_failed += status not in ("ok", "diverged")
        self._changed()


class _SweepBar:
    """A tqdm bar over cells with the diverged/failed counts as its postfix."""

    def __init__(self, bar):
        self.bar = bar
        self.n_diverged = self.n_failed = 0

    def update(self, status, cost=0.0):
        self.n_diverged += status == "diverged"
        self.n_failed += status not in ("ok", "diverged")
        self.bar.update(1)
        self.bar.set_postfix_str(f"{self.n_diverged} diverged, {self.n_failed} failed", refresh=False)

    def write(self, text):
        self.bar.write(text)

    def close(self):
        self.bar.close()


def sweep_progress(total, initial=0, *, enabled=True, remaining_cost=0.0, stream=None, interval=None):
    """The progress display over a sweep's cells that suits where ``stream`` goes.

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
        Seconds between plain lines (default :data:`PROGRESS_INTERVAL`, read now).

    Returns
    -------
    object
        With ``update(status, cost)`` after each cell and ``close()`` at the end.
    """
    if not enabled:
        return _Silent()
    stream = sys.stderr if stream is None else stream
    display = display_for(stream)
    if display != "lines":
        return _SweepBar(tqdm_bar(stream, notebook=display == "notebook", total=total, initial=initial,
                                  unit="cell", desc="cells", smoothing=0.1))
    return SweepLines(total, initial, remaining_cost=remaining_cost, stream=stream, interval=interval)
