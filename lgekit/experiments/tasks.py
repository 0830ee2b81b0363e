"""Running one cell: load the data set, split it, fit the model with recording callbacks.

:func:`run_cell` is what a worker process executes; it is a pure function of
the cell configuration (single-threaded, seeded), never raises for a failing
run, and returns a plain-JSON record::

    {"key", "config", "status": "ok" | "diverged" | "error",
     "history": [per-epoch dicts, "epoch" 0-based, without wall times],
     "metrics": {final and summary metrics},
     "diverged_epoch": int or None, "error": None or {"type", "message", "traceback"},
     "dataset": {n_nodes, n_edges, n_train_edges, n_test_edges, has_labels},
     "versions": {...},
     "timings": {"load", "split", "fit", "evaluate", "total" seconds, "epoch_seconds": [...],
                 "started", "finished" (Unix times), "host", "pid", "engine"}}

Everything that legitimately differs from one execution to the next (wall
times, host, process) is under ``"timings"``, so two records of the same cell
compare equal after :func:`lgekit.experiments.store.strip_timings`.

Data sets and splits are cached per process (a worker that runs many cells on
the same graph loads and splits it once per seed).
"""
import contextlib
import functools
import logging
import os
import platform
import socket
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

from .specs import canonical_json, cell_key
from .store import to_json_safe

__all__ = ["run_cell", "load_dataset", "make_model", "MODELS"]

logger = logging.getLogger(__name__)

#: model names a spec may use -> attribute of :mod:`lgekit.models`
MODELS = ("LogisticEmbedding", "HingeEmbedding")


@functools.lru_cache(maxsize=2)
def _load_dataset(spec_json):
    import json

    from .. import datasets

    spec = json.loads(spec_json)
    if "name" in spec:
        return datasets.load(spec["name"], **spec.get("kwargs", {}))
    # a Path, never a str: datasets.load reads a str that is a registered name as that data set
    return datasets.load(Path(spec["path"]))


def load_dataset(spec):
    """The Graph of a data-set spec (cached per process)."""
    return _load_dataset(canonical_json(spec))


@functools.lru_cache(maxsize=4)
def _split(spec_json, split_json):
    import json

    from ..evaluation import split_edges

    graph = _load_dataset(spec_json)
    return split_edges(graph, **json.loads(split_json))


def make_model(name, params):
    """Instantiate model ``name`` (one of :data:`MODELS`) with ``params``."""
    from .. import models

    if name not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {name!r}")
    cls = getattr(models, name, None)
    if cls is None:
        raise ImportError(f"lgekit.models.{name} is not available in this installation")
    return cls(**params)


class _Recorder:
    """Adds metrics to the history at chosen epochs (``record`` part of a cell).

    ``test_ap_every`` / ``train_ap_every``: every k-th epoch (0: never);
    ``f1_epochs``: after these numbers of completed epochs (1-based), when the
    graph has labels.  The last epoch always gets the link-prediction metrics
    that are recorded at all.
    """

    def __init__(self, split, record, n_epochs, labels, f1_seed):
        self.split = split
        self.test_every = int(record.get("test_ap_every", 0))
        self.train_every = int(record.get("train_ap_every", 0))
        self.f1_epochs = set(record.get("f1_epochs", [])) if labels is not None else set()
        self.labels = labels
        self.n_epochs = n_epochs
        self.f1_seed = f1_seed
        self.seconds = 0.0

    @staticmethod
    def _due(every, done, last):
        return every > 0 and (done % every == 0 or last)

    def on_train_begin(self, model):
        pass

    def on_epoch_end(self, model, epoch, record):
        from ..metrics import average_precision, node_classification_f1

        t0 = time.perf_counter()
        done = epoch + 1
        last = done == self.n_epochs
        emb = model.embedding_
        s = self.split
        if self._due(self.test_every, done, last):
            record["test_ap"] = average_precision(emb, s.test_positives, s.test_negatives)
        if self._due(self.train_every, done, last):
            record["train_ap"] = average_precision(emb, s.train_positives, s.train_negatives)
        if done in self.f1_epochs:
            f1 = node_classification_f1(emb, self.labels, train_ratio=0.5, seed=self.f1_seed)
            record["micro_f1"] = f1["micro_f1"]
            record["macro_f1"] = f1["macro_f1"]
        self.seconds += time.perf_counter() - t0
        return False

    def on_train_end(self, model):
        pass


_DISTRIBUTIONS = {"sklearn": "scikit-learn"}


@functools.lru_cache(maxsize=1)
def _versions():
    """The data of ``lgekit.show_versions()``, read from package metadata (no imports: cheap per worker).

    ``openmp_max_threads`` is left out: it is an execution setting (Dask
    workers pin it), not a version.
    """
    import importlib.metadata
    import sys

    from .. import __version__
    from .._openmp import openmp_enabled
    from .._show_versions import _DEPENDENCIES

    info = {"lgekit": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
            "openmp": bool(openmp_enabled())}
    for name in _DEPENDENCIES:
        try:
            info[name] = importlib.metadata.version(_DISTRIBUTIONS.get(name, name))
        except importlib.metadata.PackageNotFoundError:
            info[name] = None
    return info


def _clean_history(history):
    """Split the per-epoch wall times out of the history (they go to ``timings``)."""
    clean, seconds = [], []
    for rec in history:
        rec = dict(rec)
        seconds.append(rec.pop("seconds", None))
        clean.append(rec)
    return clean, seconds


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


def run_cell(config, *, verbose=0, engine="local"):
    """Run one cell and return its record (never raises for a failing run).

    Parameters
    ----------
    config : dict
        A cell configuration from :func:`lgekit.experiments.specs.expand`.
    verbose : int
        ``>= 2`` shows the model's per-epoch progress.
    engine : str
        Recorded under ``timings`` (which engine ran the cell).

    Returns
    -------
    dict
        The record (plain JSON data; see the module docstring).
    """
    from threadpoolctl import threadpool_limits

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
            graph = _load_dataset(spec_json)
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
            params = dict(config["params"])
            params["verbose"] = 1 if verbose >= 2 else 0
            model = make_model(config["model"], params)
            rec_spec = config.get("record", {})
            recorder = _Recorder(split, rec_spec, params.get("epochs", 0), labels,
                                 f1_seed=int(config["split"].get("seed", 0)))
            t0 = time.perf_counter()
            from ..models import DivergenceError

            try:
                model.fit(split, callbacks=[recorder])
                history = model.history_
                record["status"] = "ok"
            except DivergenceError as exc:
                history = exc.history or getattr(model, "history_", [])
                record["status"] = "diverged"
                record["diverged_epoch"] = None if exc.epoch is None else int(exc.epoch)
                record["error"] = {"type": "DivergenceError", "message": str(exc)}
            timings["fit"] = time.perf_counter() - t0 - recorder.seconds
            t0 = time.perf_counter()
            final = {}
            if record["status"] == "ok":
                from ..metrics import average_precision, roc_auc

                emb = model.embedding_
                final["test_ap"] = average_precision(emb, split.test_positives, split.test_negatives)
                final["test_auc"] = roc_auc(emb, split.test_positives, split.test_negatives)
                if rec_spec.get("final_train_ap") or rec_spec.get("train_ap_every"):
                    final["train_ap"] = average_precision(emb, split.train_positives, split.train_negatives)
                final["n_iter"] = int(model.n_iter_)
                norms = np.sqrt(np.einsum("ij,ij->i", emb, emb, dtype=np.float64))
                final["max_norm"] = float(norms.max())
            timings["evaluate"] = time.perf_counter() - t0 + recorder.seconds
            history, epoch_seconds = _clean_history(history)
            timings["epoch_seconds"] = epoch_seconds
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
