"""The sweep engine: run cells locally (joblib/loky processes) or on Dask, store each as it finishes.

Every cell is an independent task, a pure function of its configuration
(:func:`lgekit.experiments.tasks.run_cell`); the driver (this process) is the
only writer of the results store, so the same code path serves local
processes, a ``distributed.LocalCluster`` and a remote Dask cluster whose
workers do not share our file system.

Thread budget: cells are single-threaded (``n_threads=1`` in every spec,
BLAS/OpenMP pools limited to one thread inside the task with threadpoolctl),
which makes a cell's record bit-for-bit a function of its configuration
whichever engine ran it, and lets ``n_jobs`` cells share ``n_jobs`` cores
without oversubscription: the engine never runs more local processes than
the machine has cores.

Driver death: local worker processes watch their parent (:func:`exit_with_parent`)
and exit about :data:`PARENT_POLL_SECONDS` after the driver's death, even by
``kill -9``, instead of computing cells nobody will store.  (The workers of a
``--scheduler local`` Dask cluster already do: distributed watches their parent.)
"""
import logging
import os
import threading
import time
import warnings
import traceback
from dataclasses import dataclass, field

from .._progress import sweep_progress
from ..models._machine import available_cores
from .plan import estimated_cost
from .store import ResultsStore
from .spec import canonical_json, cell_key
from .tasks import graph_recipe, load_dataset, run_cell

__all__ = ["SweepResult", "run_sweep", "dispatch_order", "driver_graphs", "exit_with_parent",
           "SchedulerUnreachable"]

logger = logging.getLogger(__name__)

#: seconds to wait for a Dask scheduler before giving up
SCHEDULER_TIMEOUT = 10
#: how often a local worker checks that the driver that started it is still alive
PARENT_POLL_SECONDS = 0.5


class SchedulerUnreachable(ConnectionError):
    """The Dask scheduler given by address did not answer in time."""


@dataclass
class SweepResult:
    """What a sweep did.

    Attributes
    ----------
    n_cells : int
        Cells in the plan.
    n_skipped : int
        Cells already finished in the store (resume).
    n_ok, n_diverged, n_error : int
        Outcomes of the cells run now.
    errors : list of dict
        ``{"key", "model", "params", "type", "message", "traceback"}`` per failed cell.
    seconds : float
        Wall time of the sweep.
    engine : str
    """

    n_cells: int = 0
    n_skipped: int = 0
    n_ok: int = 0
    n_diverged: int = 0
    n_error: int = 0
    errors: list = field(default_factory=list)
    seconds: float = 0.0
    engine: str = "local"

    @property
    def n_run(self):
        return self.n_ok + self.n_diverged + self.n_error

    def summary(self):
        return (f"{self.n_cells} cells: {self.n_skipped} already done, {self.n_ok} ok, "
                f"{self.n_diverged} diverged, {self.n_error} failed ({self.engine}, {self.seconds:.1f} s)")


def _check_jobs(n_jobs):
    cores = available_cores()
    if n_jobs is None:
        return cores
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int):
        raise TypeError(f"n_jobs must be a positive int or None, got {type(n_jobs).__name__}: {n_jobs!r}")
    if n_jobs == -1:
        return cores
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive int, -1 (all cores) or None, got {n_jobs}")
    if n_jobs > cores:
        logger.warning("n_jobs=%d exceeds the %d available cores; using %d", n_jobs, cores, cores)
        return cores
    return n_jobs


def dispatch_order(cells):
    """The keys of ``cells`` in the order they are handed to workers: longest estimated cost first.

    With ``n`` workers a sweep ends when its last cell does; starting the
    longest cells first leaves short ones for the tail, where they fill the
    workers that finish early (the longest-processing-time rule), instead of
    one long cell running alone at the end.  Ties are broken by key, so the
    order is a function of the plan.  Records do not depend on it: cells are
    independent and stored by key.

    Parameters
    ----------
    cells : dict
        key -> configuration.

    Returns
    -------
    list of str
    """
    return sorted(cells, key=lambda key: (-estimated_cost(cells[key]), key))


def _crash_record(key, config, exc):
    """An error record for a cell whose worker died (the task itself could not report)."""
    return {
        "key": key, "config": config, "status": "error", "history": [], "metrics": {},
        "error": {"type": type(exc).__name__, "message": str(exc),
                  "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))},
        "timings": {"finished": time.time()},
    }


def _parent_is_gone(parent, driver):
    """Whether the process that started this one has died (this one was reparented)."""
    if os.getppid() != parent:
        return True
    if parent != driver:  # started through an intermediary: the driver itself must still exist
        try:
            os.kill(driver, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # pragma: no cover - alive, owned by someone else (pid reused)
            return False
    return False


def exit_with_parent(driver_pid, interval=PARENT_POLL_SECONDS):
    """Worker initializer: end this worker process as soon as the driver ``driver_pid`` is gone.

    Parameters
    ----------
    driver_pid : int
        The pid of the process running the sweep.
    interval : float
        Seconds between two checks.

    Notes
    -----
    A process whose parent dies is re-parented (to init or the nearest
    subreaper), so ``os.getppid()`` changes: that POSIX rule detects the
    driver's death however it died, ``kill -9`` included, where loky's own
    pipes would only be noticed after the cell in progress (minutes with the
    paper's settings).  A daemon thread checks it every ``interval`` seconds
    and calls ``os._exit``; it runs while the cell computes, as the kernels
    release the GIL and Python code yields it every few milliseconds.  Nothing
    is lost that could have been kept: only the driver writes records.
    """
    parent = os.getppid()

    def watch():
        while not _parent_is_gone(parent, driver_pid):
            time.sleep(interval)
        os._exit(1)

    if _parent_is_gone(parent, driver_pid):  # the driver died before this worker started
        os._exit(1)
    threading.Thread(target=watch, name="lgekit-exit-with-parent", daemon=True).start()


def _iter_local(todo, n_jobs, verbose):
    """Yield records as local worker processes finish them (``n_jobs`` > 1)."""
    from joblib import Parallel, delayed, parallel_config  # lazy: joblib starts no pool for a one-job sweep

    # backend parameters are the documented way (joblib >= 1.3) to give loky workers an initializer
    with parallel_config(backend="loky", initializer=exit_with_parent, initargs=(os.getpid(),)):
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered", max_nbytes=None,
                            pre_dispatch="n_jobs")
    records = parallel(delayed(run_cell)(config, verbose=verbose, engine="loky") for key, config in todo)
    try:
        for record in records:
            yield record
    finally:
        # a sweep stopped early (an error storing a record, Ctrl-C) cancels the cells still running;
        # joblib says so in a UserWarning about its input iterator, which is no advice to our user:
        # the command's own message says what is stored and how to resume
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*tasks which were still being processed by the workers "
                                                      r"have been cancelled", category=UserWarning)
            records.close()


def connect(scheduler, n_jobs, timeout=SCHEDULER_TIMEOUT):
    """A ``distributed.Client`` for ``scheduler`` ("local" or an address) and the cluster it owns.

    Raises
    ------
    ImportError
        When dask/distributed are not installed (the message says how to install them).
    SchedulerUnreachable
        When the scheduler at the address does not answer within ``timeout`` seconds.
    """
    try:
        import distributed  # optional: the Dask engine's extra (lgekit[dist]), imported only to use it
    except ImportError:
        raise ImportError(
            "the Dask engine needs dask and distributed: python3 -m pip install 'lgekit[dist]' "
            "(or: python3 -m pip install dask distributed)"
        ) from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler == "local":
        cluster = distributed.LocalCluster(
            n_workers=n_jobs, threads_per_worker=1, processes=True, dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        return distributed.Client(cluster), cluster
    address = scheduler if "://" in scheduler else f"tcp://{scheduler}"
    try:
        client = distributed.Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachable(
            f"cannot reach the Dask scheduler at {address} within {timeout} s ({type(exc).__name__}); "
            "check the address, or use --scheduler local to start a cluster on this machine"
        ) from None
    return client, None


def driver_graphs(todo):
    """The graph of each data set the cells of ``todo`` use, loaded here, on the driver.

    Returns
    -------
    dict
        Canonical data-set spec -> Graph.  A data set the driver cannot load
        raises here, before any cell is sent.
    """
    specs = {}
    for _, config in todo:
        specs.setdefault(canonical_json(config["dataset"]), config["dataset"])
    return {spec_json: load_dataset(spec) for spec_json, spec in specs.items()}


def _iter_dask(todo, graphs, scheduler, n_jobs, verbose, timeout):
    """Yield records as Dask workers finish them.

    The driver has loaded each data set once (``graphs``, :func:`driver_graphs`)
    and sends the graph to the workers as the result of a task
    (:func:`~lgekit.experiments.tasks.graph_recipe`): a worker need not see
    the data (no shared file system, no ``LGEKIT_DATA``, no network), none
    downloads it again, and when a worker dies the scheduler sends the graph
    again to the worker that replaces it (scattered data would be lost with
    it, and every cell after it fail).
    """
    client, cluster = connect(scheduler, n_jobs, timeout)
    try:
        from distributed import as_completed  # lazy: distributed is an optional dependency

        with warnings.catch_warnings():
            # the graph travels inside its task on purpose (see graph_recipe): not a mistake to warn about
            warnings.filterwarnings("ignore", message=".*[Ll]arge object.*", category=UserWarning)
            shipped = {spec_json: client.submit(graph_recipe, graph, key=f"lgekit-graph-{cell_key(spec_json)}",
                                                pure=False)
                       for spec_json, graph in graphs.items()}
        # a higher priority runs first: the scheduler keeps the longest-first order of ``todo``
        futures = [client.submit(run_cell, config, verbose=verbose, engine="dask",
                                 graph=shipped[canonical_json(config["dataset"])],
                                 key=f"lgekit-cell-{key}", pure=False, priority=len(todo) - i)
                   for i, (key, config) in enumerate(todo)]
        by_key = {f.key: (key, config) for f, (key, config) in zip(futures, todo)}
        for future in as_completed(futures):
            key, config = by_key[future.key]
            try:
                yield future.result()
            except Exception as exc:  # a worker died, the task could not even report
                yield _crash_record(key, config, exc)
            future.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _guard(records, result):
    """Re-raise a failure of the execution machinery itself (not of a cell) with what to do next."""
    try:
        yield from records
    except (KeyboardInterrupt, SchedulerUnreachable, ImportError):
        raise
    except Exception as exc:
        raise RuntimeError(
            f"the {result.engine} workers failed ({type(exc).__name__}: {exc}); the {result.n_run} cells "
            "finished so far are stored: run the same command again to resume"
        ) from exc


def _store(record, store, result, bar, costs):
    """Store one record as it arrives, count its outcome, log it and advance the progress display."""
    store.put(record)
    status = record.get("status")
    if status == "ok":
        result.n_ok += 1
    elif status == "diverged":
        result.n_diverged += 1
    else:
        result.n_error += 1
        err = record.get("error") or {}
        result.errors.append({"key": record["key"], "model": record["config"]["model"],
                              "params": record["config"]["params"], **err})
    params = record["config"]["params"]
    logger.info("%s %s dim=%s lam_r=%s seed=%s: %s in %.1f s", record["key"][:10], record["config"]["model"],
                params.get("dim"), params.get("lam_r"), params.get("random_state"), status,
                (record.get("timings") or {}).get("total", 0.0))
    bar.update(status, costs.get(record["key"], 0.0))


def run_sweep(cells, store, *, n_jobs=None, scheduler=None, force=False, verbose=0, progress=True,
              timeout=SCHEDULER_TIMEOUT):
    """Run every cell not yet finished in ``store``; store each record as soon as it arrives.

    Parameters
    ----------
    cells : dict
        key -> configuration (``Plan.cells``).
    store : ResultsStore or path
        Its :meth:`~ResultsStore.lock` is held for the sweep (re-entered if the
        caller already holds it through this store).
    n_jobs : int or None
        Local worker processes (default: all cores, never more).  With Dask:
        the number of workers of a ``--scheduler local`` cluster.
    scheduler : None, "local" or str
        ``None``: joblib/loky processes on this machine.  ``"local"``: start a
        ``distributed.LocalCluster``.  Otherwise a Dask scheduler address
        (``tcp://HOST:PORT``) whose workers have lgekit installed.  With Dask
        the data set is loaded here and its graph sent to the workers, which
        need not see the data.
    force : bool
        Recompute cells that already have a record.
    verbose : int
        Passed to the models (per-epoch output) when >= 2.
    progress : bool
        Show progress on stderr: a bar on a terminal or in a notebook, a
        line every few seconds otherwise (:func:`lgekit._progress.sweep_progress`).
    timeout : float
        Seconds to wait for a Dask scheduler given by address.

    Returns
    -------
    SweepResult

    Notes
    -----
    A cell that raises :class:`lgekit.models.DivergenceError` is a result
    (status ``"diverged"``, history so far); any other exception becomes an
    ``"error"`` record with its traceback, the other cells go on, and error
    cells are retried by the next run.  Records are written by this process
    only, atomically, so killing the sweep at any instant loses at most the
    cells in flight (and the index of this run, rebuilt by the next).
    """
    if not isinstance(store, ResultsStore):
        store = ResultsStore(store)
    n_jobs = _check_jobs(n_jobs)
    result = SweepResult(n_cells=len(cells), engine="local" if scheduler is None else f"dask:{scheduler}")
    start = time.perf_counter()
    # one run of the output folder: the cells are stored as they finish, the index published at the end
    with store.lock(), store.output.run():
        done = set() if force else (store.finished_keys() & set(cells))
        result.n_skipped = len(done)
        todo = [(key, cells[key]) for key in dispatch_order(cells) if key not in done]
        if todo:
            costs = {key: estimated_cost(config) for key, config in todo}
            bar = sweep_progress(len(cells), len(done), enabled=progress, remaining_cost=sum(costs.values()))
            try:
                if scheduler is None and n_jobs == 1:
                    # in this process, called from here: reproduce -> run_sweep -> run_cell -> fit
                    for _, config in todo:
                        _store(run_cell(config, verbose=verbose, engine="local"), store, result, bar, costs)
                else:
                    records = (_iter_local(todo, n_jobs, verbose) if scheduler is None
                               else _iter_dask(todo, driver_graphs(todo), scheduler, n_jobs, verbose, timeout))
                    for record in _guard(records, result):
                        _store(record, store, result, bar, costs)
            finally:
                bar.close()
        store.write_index()
    result.seconds = time.perf_counter() - start
    return result
