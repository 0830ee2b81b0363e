"""The memory this process may still allocate, and byte counts in words.

Every large allocation asks first: a fit compares :func:`available_memory`
with the bytes it needs (:mod:`lgekit.models._machine`), and every file
lgekit reads is bounded by it before it is read (:mod:`lgekit._input_file`),
so that what cannot fit fails at once, with a message, instead of crashing
or thrashing much later.  Memory a command will need later (``lgekit fit``
writing its files after training) is set aside with :func:`reserved_memory`,
so that the checks made before it count it.
"""
import contextlib
import os
import re
import threading

try:
    import resource
except ImportError:  # pragma: no cover - not on POSIX (Windows): no rlimits to read
    resource = None

__all__ = ["MEMORY_ENV", "available_memory", "format_bytes", "parse_bytes", "reserved_memory"]

#: environment variable overriding the available memory (bytes, or with a K/M/G/T suffix)
MEMORY_ENV = "LGEKIT_AVAILABLE_MEMORY"

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

# (bytes, what for) set aside by reserved_memory, innermost last
_reserved = []
_reserved_guard = threading.Lock()


@contextlib.contextmanager
def reserved_memory(nbytes, why):
    """Inside the block, :func:`available_memory` is ``nbytes`` less, and says why.

    ``lgekit fit`` sets aside what writing its files takes while it trains,
    so that the model's memory check refuses a fit whose results could not
    be written, before training rather than after.

    Parameters
    ----------
    nbytes : int
    why : str
        What the memory is for, named in the messages of the checks
        (``"writing embedding.npz and embedding.txt"``).
    """
    entry = (int(nbytes), why)
    with _reserved_guard:
        _reserved.append(entry)
    try:
        yield
    finally:
        with _reserved_guard:
            _reserved.remove(entry)


def parse_bytes(text):
    """A number of bytes written as ``"123"``, ``"1.5G"``, ``"8 GiB"`` or ``"512MB"`` (binary units).

    Raises
    ------
    ValueError
        Naming ``$LGEKIT_AVAILABLE_MEMORY``, for any other text.
    """
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:I?B)?\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"${MEMORY_ENV} must be a number of bytes, optionally with a K/M/G/T suffix "
                         f"(e.g. 8G), got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def format_bytes(n):
    """``n`` bytes in words: ``"512 B"``, ``"1.5 GiB"``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def _read_int(path):
    try:
        with open(path) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _proc_status_bytes(field):
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def available_memory():
    """Memory this process can still allocate without swapping, as ``(bytes, source)``.

    The smallest of: ``MemAvailable`` of ``/proc/meminfo`` (else
    ``SC_AVPHYS_PAGES x SC_PAGE_SIZE``), the room left under a cgroup memory
    limit (v2 ``memory.max``, v1 ``memory.limit_in_bytes``) and under the
    soft ``RLIMIT_AS`` / ``RLIMIT_DATA`` limits.  The environment variable
    ``LGEKIT_AVAILABLE_MEMORY`` (bytes, or e.g. ``"2G"``) overrides them all.

    Returns
    -------
    (int, str) or (None, None)
        ``(None, None)`` when the platform tells nothing.  Memory set aside
        by :func:`reserved_memory` is taken off, and the source says so.
    """
    available, source = _available_memory()
    with _reserved_guard:
        held = list(_reserved)
    if available is None or not held:
        return available, source
    total = sum(n for n, _ in held)
    return max(available - total, 0), (f"{source}, less {format_bytes(total)} set aside for "
                                       + " and ".join(why for _, why in held))


def _available_memory():
    env = os.environ.get(MEMORY_ENV)
    if env:
        return parse_bytes(env), f"${MEMORY_ENV}"
    found = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append((int(line.split()[1]) * 1024, "MemAvailable in /proc/meminfo"))
                    break
    except (OSError, ValueError, IndexError):
        pass
    if not found:
        try:
            found.append((os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "free physical memory"))
        except (ValueError, OSError, AttributeError):
            pass
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        if limit is not None and usage is not None and limit < 2**60:  # "max" / 2**63-ish mean none
            found.append((max(limit - usage, 0), f"cgroup limit {limit_file}"))
    if resource is not None:
        for name, field in (("RLIMIT_AS", "VmSize"), ("RLIMIT_DATA", "VmData")):
            soft = resource.getrlimit(getattr(resource, name))[0]
            used = _proc_status_bytes(field)
            if soft != resource.RLIM_INFINITY and used is not None:
                found.append((max(soft - used, 0), f"the {name} limit"))
    if not found:
        return None, None
    return min(found, key=lambda item: item[0])
