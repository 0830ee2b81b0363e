"""The machine's limits that bound a fit: the threads worth starting and the memory left to allocate.

A fit asks before it allocates: :func:`max_n_threads` caps ``n_threads`` and
:func:`available_memory` is compared with the bytes a fit needs (the
estimators' memory check), so that a fit that cannot run fails at once, with
a message, instead of crashing or thrashing much later.
"""
import os

# defined at the foundation, where every file read is bounded by it too; re-exported for the estimators
from .._memory import MEMORY_ENV, available_memory, format_bytes, parse_bytes

__all__ = ["MAX_THREADS_PER_CPU", "MEMORY_ENV", "available_memory", "format_bytes", "max_n_threads",
           "parse_bytes"]

#: at most this many threads per CPU: beyond, OpenMP gains nothing and far beyond it crashes
MAX_THREADS_PER_CPU = 64


def max_n_threads():
    """The largest ``n_threads`` the estimators accept: 64 x ``os.cpu_count()``.

    Oversubscribing a CPU a few times can help a busy machine; tens of
    thousands of OpenMP threads exhaust the thread stacks and crash the
    process (``n_threads=100000`` ended in a segmentation fault).
    """
    return MAX_THREADS_PER_CPU * (os.cpu_count() or 1)
