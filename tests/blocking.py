"""The tests' guard against a call that blocks (a FIFO opened for reading, a device read to its end).

Import as ``from blocking import ends_within`` (the tests folder is on the path, as for ``splitmix``)."""
import threading

__all__ = ["ends_within"]


def ends_within(seconds, call):
    """``{"value": ...}`` or ``{"error": ...}`` of ``call()``, run in a thread; the test fails if the call has
    not returned or raised within ``seconds`` (the thread is a daemon: a blocked one does not hold up pytest)."""
    outcome = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still reading after {seconds} s: the call blocks"
    return outcome
