"""Running one cell: load the data set, split it, fit the model with the public recording callbacks.

:func:`run_cell` is what a worker process executes; it is a pure function of
the cell configuration (single-threaded, seeded), never raises for a failing
run, and returns a plain-JSON record::

    {"key", "config", "status": "ok" | "diverged" | "error",
     "history": [per-epoch dicts, "epoch" 0-based, without wall times],
     "metrics": {final and summary metrics},
     "diverged_epoch": int or None,
     "error": None, {"type", "message", "traceback"} (error) or
              {"type": "DivergenceError", "message", "reason"} (diverged),
     "dataset": {n_nodes, n_edges, n_train_edges, n_test_edges, has_labels[, weights: [min, max]]},
     "versions": {...},
     "timings": {"load", "split", "fit", "evaluate", "total" seconds, "epoch_seconds": [...],
                 "eval_seconds": [...], "started", "finished" (Unix times), "host", "pid", "engine"}}

What a cell records (its ``record`` spec) is computed by the callbacks of
:mod:`lgekit.callbacks` (:func:`recording_callbacks`): test and train AP by
:class:`~lgekit.callbacks.LinkPredictionCallback`, F1 by
:class:`~lgekit.callbacks.NodeClassificationCallback` at chosen epochs
(:class:`AtEpochs`).

Everything that legitimately differs from one execution to the next (wall
times, host, process) is under ``"timings"``, so two records of the same cell
compare equal after :func:`lgekit.experiments.store.strip_timings`.

Data sets and splits are cached per process (a worker that runs many cells on
the same graph loads and splits it once per seed).  A worker that cannot see
the data (a Dask cluster that shares no file system or environment with the
driver) is handed the graph the driver loaded: ``run_cell(config, graph=...)``.
"""
import contextlib
import functools
import importlib.metadata
import json
import logging
import os
import platform
import socket
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from .. import datasets, models
from .._json import to_json_safe
from .._openmp import openmp_enabled
from .._show_versions import DEPENDENCIES
from .._version import __version__
from ..callbacks import Callback, LinkPredictionCallback, NodeClassificationCallback
from ..evaluation import split_edges
from ..metrics import average_precision, roc_auc
from ..models import DivergenceError
from .spec import MODELS, RecordSpec, canonical_json, cell_key

__all__ = ["run_cell", "load_dataset", "make_model", "recording_callbacks", "AtEpochs", "MODELS", "DataChangedError",
           "graph_recipe"]

logger = logging.getLogger(__name__)


class DataChangedError(ValueError):
    """A data file's content is not the content the sweep was planned on (its cells are keyed by that hash)."""


@functools.lru_cache(maxsize=2)
def _load_dataset(spec_json):
    spec = json.loads(spec_json)
    if "name" in spec:
        # a registered data set: its files are checked against the registry's SHA-256 by the loader
        return datasets.load(spec["name"], **spec.get("kwargs", {}))
    # a Path, never a str: datasets.load reads a str that is a registered name as that data set.  The content is
    # hashed before and after it is read and both must be the plan's: the cells are stored under that hash, so a
    # file changed since the plan (or while it is read) must not give results stored as the planned data's
    path = Path(spec["path"])
    _check_planned_content(path, spec.get("sha256"))
    graph = datasets.load(path)
    _check_planned_content(path, spec.get("sha256"))
    return graph


def _check_planned_content(path, planned):
    if planned is None:
        return
    found = datasets.resolve(path).content_sha256()
    if found != planned:
        raise DataChangedError(f"the data file {str(path)!r} changed since the sweep was planned (its SHA-256 is now "
                               f"{found[:12]}..., the plan's {planned[:12]}...): its cells are stored under the "
                               "planned content's hash, so this cell is not computed on other data; run the command "
                               "again to plan on the file as it is now")


#: canonical data-set spec -> the Graph the driver shipped with the cell (kept for the next cells of this worker)
_shipped = {}


def _graph(spec_json):
    shipped = _shipped.get(spec_json)
    return shipped if shipped is not None else _load_dataset(spec_json)


def graph_recipe(graph):
    """``graph`` itself: how the Dask engine sends a graph to the workers, as the result of a task.

    A graph handed to ``client.scatter`` lives only on the workers: when the
    worker holding it dies (``kill -9``, out of memory), the nanny starts a
    new one, and every cell that needed the graph fails ("already
    forgotten").  As the result of this task, the scheduler keeps the graph
    in the task's arguments and computes it again on a new worker when the
    one holding it is lost: the data is sent again, and the cells compute.
    """
    return graph


def load_dataset(spec):
    """The Graph of a data-set spec (cached per process)."""
    return _load_dataset(canonical_json(spec))


@functools.lru_cache(maxsize=4)
def _split(spec_json, split_json):
    return split_edges(_graph(spec_json), **json.loads(split_json))


def make_model(name, params):
    """Instantiate model ``name`` (one of :data:`MODELS`) with ``params``."""
    if name not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {name!r}")
    cls = getattr(models, name, None)
    if cls is None:
        raise ImportError(f"lgekit.models.{name} is not available in this installation")
    return cls(**params)


class AtEpochs(Callback):
    """Call a callback's ``on_epoch_end`` only after chosen numbers of completed epochs.

    :class:`~lgekit.callbacks.NodeClassificationCallback` evaluates every
    ``every`` epochs; Figure 3 samples the F1 at log-spaced epochs
    (1, 2, 5, 10, 20, 50), which no period gives.  This wrapper supplies that
    one piece and leaves the evaluation to the public callback (built with
    ``every=1``).  It also adds its wall time to the record's
    ``"eval_seconds"``, as :class:`~lgekit.callbacks.LinkPredictionCallback`
    does for its own.

    Parameters
    ----------
    callback : Callback
        Evaluates whenever it is called.
    epochs : iterable of int
        Numbers of completed epochs (1-based) after which to call it.
    """

    def __init__(self, callback, epochs):
        self.callback = callback
        self.epochs = frozenset(int(e) for e in epochs)

    def on_train_begin(self, model):
        self.callback.on_train_begin(model)

    def on_epoch_end(self, model, epoch, record):
        if epoch + 1 not in self.epochs:
            return False
        start = time.perf_counter()
        stop = self.callback.on_epoch_end(model, epoch, record)
        record["eval_seconds"] = record.get("eval_seconds", 0.0) + (time.perf_counter() - start)
        return stop

    def on_train_end(self, model):
        self.callback.on_train_end(model)


def recording_callbacks(split, record, labels=None, seed=0):
    """The public callbacks that record what a cell's ``record`` spec asks for.

    Parameters
    ----------
    split : EdgeSplit
    record : RecordSpec or dict
        See :class:`lgekit.experiments.spec.RecordSpec` (a dict is checked:
        an unknown key raises).
    labels : sparse matrix or None
        Node labels; without them no F1 is recorded.
    seed : int
        Seed of the train-AP sample and of the F1's node split (the cell's seed).

    Returns
    -------
    list of Callback
    """
    if not isinstance(record, RecordSpec):
        record = RecordSpec.from_dict(record)
    callbacks = []
    if record.ap_every:
        callbacks.append(LinkPredictionCallback(split, every=record.ap_every, train=record.train_ap, seed=seed))
    if record.f1_epochs and labels is not None:
        callbacks.append(AtEpochs(NodeClassificationCallback(labels, every=1, train_ratio=0.5, seed=seed),
                                  record.f1_epochs))
    return callbacks


_DISTRIBUTIONS = {"sklearn": "scikit-learn"}


@functools.lru_cache(maxsize=1)
def _versions():
    """The data of ``lgekit.show_versions()``, read from package metadata (no imports: cheap per worker).

    ``openmp_max_threads`` is left out: it is an execution setting (Dask
    workers pin it), not a version.
    """
    info = {"lgekit": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
            "openmp": bool(openmp_enabled())}
    for name in DEPENDENCIES:
        try:
            info[name] = importlib.metadata.version(_DISTRIBUTIONS.get(name, name))
        except importlib.metadata.PackageNotFoundError:
            info[name] = None
    return info


def _clean_history(history):
    """Split the per-epoch wall times out of the history (they go to ``timings``).

    Returns the history without them, the epochs' seconds and the
    evaluations' seconds (0 for an epoch without evaluation).
    """
    clean, seconds, evaluation = [], [], []
    for rec in history:
        rec = dict(rec)
        seconds.append(rec.pop("seconds", None))
        evaluation.append(rec.pop("eval_seconds", 0.0))
        clean.append(rec)
    return clean, seconds, evaluation


def _summary_metrics(history, final):
    out = dict(final)
    test = [(r["epoch"], r["test_ap"]) for r in history if r.get("test_ap") is not None]
    if test:
        best_epoch, best = max(test, key=lambda t: (t[1], -t[0]))
        out["peak_test_ap"] = best
        out["peak_epoch"] = best_epoch + 1  # completed epochs
        out["last_recorded_test_ap"] = test[-1][1]
    if history:
        out["final_mean_norm"] = history[-1].get("mean_norm")
    return out


class _Capture(logging.Handler):
    """Collects the warnings a cell's run logs (kept in its record instead of flooding the terminal)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        if len(self.messages) < 20:
            self.messages.append(f"{record.levelname} {record.name}: {record.getMessage()}")


@contextlib.contextmanager
def _captured_warnings():
    """Capture ``warnings`` and WARNING+ log records of the lgekit loggers during a cell."""
    handler = _Capture()
    lg = logging.getLogger("lgekit")
    old_propagate = lg.propagate
    lg.addHandler(handler)
    lg.propagate = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield handler.messages
            for w in caught[:20]:
                handler.messages.append(f"{w.category.__name__}: {w.message}")
    finally:
        lg.removeHandler(handler)
        lg.propagate = old_propagate


def run_cell(config, *, verbose=0, engine="local", graph=None):
    """Run one cell and return its record (never raises for a failing run).

    Parameters
    ----------
    config : dict
        A cell configuration from :func:`lgekit.experiments.plan.expand`.
    graph : Graph, optional
        The graph of ``config["dataset"]`` as the driver loaded it
        (:func:`load_dataset`): the worker uses it instead of loading the data
        set itself, which it may not be able to see.
    verbose : int
        ``>= 2`` shows the model's per-epoch progress.
    engine : str
        Recorded under ``timings`` (which engine ran the cell).

    Returns
    -------
    dict
        The record (plain JSON data; see the module docstring).
    """
    started = time.time()
    t_start = time.perf_counter()
    timings = {"started": started, "host": socket.gethostname(), "pid": os.getpid(), "engine": engine,
               "python": platform.python_implementation()}
    record = {"key": cell_key(config), "config": config, "status": "error", "history": [],
              "metrics": {}, "diverged_epoch": None, "error": None, "dataset": {},
              "versions": _versions()}
    messages = []
    try:
        with threadpool_limits(limits=1), _captured_warnings() as messages:  # single-threaded: reproducible
            t0 = time.perf_counter()
            spec_json = canonical_json(config["dataset"])
            if graph is not None and _shipped.get(spec_json) is not graph:
                _shipped.clear()  # one data set at a time: a plan's cells share one
                _shipped[spec_json] = graph
                _split.cache_clear()
            graph = _graph(spec_json)
            timings["load"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            split = _split(spec_json, canonical_json(config["split"]))
            timings["split"] = time.perf_counter() - t0
            labels = graph.labels if getattr(graph, "labels", None) is not None else None
            record["dataset"] = {
                "n_nodes": int(graph.n_nodes), "n_edges": int(graph.n_edges),
                "n_train_edges": int(len(split.train_positives)),
                "n_test_edges": int(len(split.test_positives)),
                "has_labels": labels is not None,
            }
            if graph.is_weighted:
                weights = graph.edge_weights()
                record["dataset"]["weights"] = [float(weights.min()), float(weights.max())]
            params = dict(config["params"])
            params["verbose"] = 1 if verbose >= 2 else 0
            rec_spec = RecordSpec.from_dict(config.get("record", {}))
            if rec_spec.exact_diagnostics:
                params["diagnostics"] = "exact"
            model = make_model(config["model"], params)
            seed = int(config["split"].get("seed", 0))
            callbacks = recording_callbacks(split, rec_spec, labels, seed=seed)
            t0 = time.perf_counter()
            try:
                model.fit(split, callbacks=callbacks)
                history = model.history_
                record["status"] = "ok"
            except DivergenceError as exc:
                history = exc.history or getattr(model, "history_", [])
                record["status"] = "diverged"
                record["diverged_epoch"] = None if exc.epoch is None else int(exc.epoch)
                record["error"] = {"type": "DivergenceError", "message": str(exc),
                                   "reason": getattr(exc, "reason", None)}
            fit_seconds = time.perf_counter() - t0
            history, epoch_seconds, eval_seconds = _clean_history(history)
            timings["fit"] = fit_seconds - sum(eval_seconds)
            t0 = time.perf_counter()
            final = {}
            if record["status"] == "ok":
                emb = model.embedding_
                final["test_ap"] = average_precision(emb, split.test_positives, split.test_negatives)
                final["test_auc"] = roc_auc(emb, split.test_positives, split.test_negatives)
                if rec_spec.final_train_ap:
                    final["train_ap"] = average_precision(emb, split.train_positives, split.train_negatives)
                final["n_iter"] = int(model.n_iter_)
                norms = np.sqrt(np.einsum("ij,ij->i", emb, emb, dtype=np.float64))
                final["max_norm"] = float(norms.max())
            timings["evaluate"] = time.perf_counter() - t0 + sum(eval_seconds)
            timings["epoch_seconds"] = epoch_seconds
            timings["eval_seconds"] = eval_seconds
            record["history"] = history
            record["metrics"] = _summary_metrics(history, final)
    except Exception as exc:  # any failure becomes an error record; the sweep goes on
        record["status"] = "error"
        record["error"] = {"type": type(exc).__name__, "message": str(exc),
                           "traceback": traceback.format_exc()}
    record["warnings"] = list(dict.fromkeys(messages))
    timings["finished"] = time.time()
    timings["total"] = time.perf_counter() - t_start
    record["timings"] = timings
    return to_json_safe(record)
