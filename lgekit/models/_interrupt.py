"""Ctrl-C during a fit: held back until the running epoch is recorded."""
import signal
import threading

__all__ = ["DeferredInterrupt"]


class DeferredInterrupt:
    """Ctrl-C (SIGINT) held back while an epoch and its bookkeeping run, raised once they are done.

    The kernels run without the GIL, so an interrupt cannot stop an epoch:
    Python raises KeyboardInterrupt only after the kernel returns, in the
    middle of the epoch's bookkeeping, which would leave the embedding one
    epoch ahead of ``n_iter_`` and ``history_`` (and a resumed fit would
    repeat that epoch's step and random stream).  Holding the signal until
    the epoch is recorded keeps model and records in agreement, so that
    ``partial_fit`` resumes exactly where an uninterrupted fit would be.
    Only the main thread receives signals, and a handler the user installed
    is left alone.
    """

    def __init__(self):
        self.pending = False
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._hold)
        return self

    def _hold(self, signum, frame):
        self.pending = True

    def release(self):
        """Raise KeyboardInterrupt if one was held back (the epoch is recorded by now)."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False
