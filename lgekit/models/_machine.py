"""The machine's limits that bound a fit: the threads worth starting and the memory left to allocate.

A fit asks before it allocates: :func:`max_n_threads` caps ``n_threads`` and
:func:`available_memory` is compared with the bytes a fit needs (the
estimators' memory check), so that a fit that cannot run fails at once, with
a message, instead of crashing or thrashing much later.
"""
import joblib

# defined at the foundation, where every file read is bounded by it too; re-exported for the estimators
from .._memory import MEMORY_ENV, available_memory, format_bytes, parse_bytes

__all__ = ["MAX_THREADS_PER_CPU", "MEMORY_ENV", "available_cores", "available_memory", "format_bytes",
           "max_n_threads", "parse_bytes"]

#: at most this many threads per CPU: beyond, OpenMP gains nothing and far beyond it crashes
MAX_THREADS_PER_CPU = 64


def available_cores():
    """The CPU cores this process may use, at least 1: the one count of cores in lgekit.

    :func:`joblib.cpu_count` (scikit-learn's): the machine's CPUs, fewer when
    the process's affinity mask or its container's CPU quota (cgroups) allows
    fewer.  The estimators' thread limit (:func:`max_n_threads`) and the
    sweeps' worker count (``n_jobs``) both read it.
    """
    return max(1, int(joblib.cpu_count()))


def max_n_threads():
    """The largest ``n_threads`` the estimators accept: 64 x :func:`available_cores`.

    Oversubscribing a CPU a few times can help a busy machine; tens of
    thousands of OpenMP threads exhaust the thread stacks and crash the
    process (``n_threads=100000`` ended in a segmentation fault).
    """
    return MAX_THREADS_PER_CPU * available_cores()
