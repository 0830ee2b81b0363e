"""The paper's Figures 1-6 as plain data, and their expansion into cells.

A *figure spec* is a dict that says which model is trained, with which fixed
parameters, over which grid, for how many epochs and what each run must record.
:func:`expand` turns a selection of specs, a data set, a number of seeds and a
mode (quick or full) into a :class:`Plan`: the distinct *cells* (one training
run each, identified by the SHA-256 of its canonical JSON configuration) and,
for each figure, which cells it draws and with which grid values.

Figures 1-3 draw the same runs (SGD, D = 100, λr ∈ {0, 0.2, 0.6, 1}), the
D = 100 column of Figure 4 is those runs again, and Figure 5 at λr = 3 is
Figure 6 at D = 100: a run is identified by its configuration, so shared runs
are computed once, recording the union of what the figures drawing it need
(:func:`merge_records`; e.g. Micro/Macro-F1 only for the runs of Figure 3).

The parameters follow Gao et al. (2019), Sections 5.1-5.2: λ+ = 1, λ- = 0.03,
four uniformly drawn negative pairs per positive edge, 20% of the edges held
out for testing (link prediction scored by average precision), embeddings of
dimension D = 100 unless D is the varied parameter, 50 SGD epochs, 20 DCD
epochs and λr = 3 for DCD unless λr is the varied parameter.

References
----------
Y. Gao, C. Zhang, J. Peng, A. Parameswaran. The Importance of Norm
Regularization in Linear Graph Embedding: Theoretical Analysis and Empirical
Demonstration. ICLR 2019 (arXiv:1802.03560).
"""
import copy
import hashlib
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__

__all__ = [
    "FIGURES", "DEFAULT_DATASET", "QUICK_DATASET_KWARGS", "SCHEMA_VERSION",
    "Plan", "canonical_json", "cell_key", "dataset_spec", "expand", "resolve_figures",
]

#: bumped whenever what a cell computes changes, so old records are not reused
SCHEMA_VERSION = 1

#: the embedded default data set (no download): a BlogCatalog-shaped planted partition graph
DEFAULT_DATASET = "synthetic-blogcatalog"
#: ``--quick`` shrinks the embedded default to this (keyword arguments of ``lgekit.datasets.load``)
QUICK_DATASET_KWARGS = {"n_nodes": 1000, "seed": 0}

#: how a cell's train/test split is drawn (the seed is the cell's seed)
SPLIT = {"test_fraction": 0.2, "negatives_per_positive": 4}

#: what every SGD run records: test AP every epoch (Figs 3-4), and Micro/Macro-F1 at a few
#: epochs when the graph carries labels (Fig 3); the model's own history gives the
#: norms (Fig 1) and the stochastic-gradient norms (Fig 2)
_SGD_RECORD = {"test_ap_every": 1, "train_ap_every": 0, "f1_epochs": [1, 2, 5, 10, 20, 50]}
#: what every DCD run records: train and test AP at the end (Figs 5-6)
_DCD_RECORD = {"test_ap_every": 0, "train_ap_every": 0, "final_train_ap": True, "f1_epochs": []}

_LAM_R_SGD = [0.0, 0.2, 0.6, 1.0]
_SGD_FIXED = {"dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "epochs": 50, "n_threads": 1}
_DCD_FIXED = {"dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "lam_r": 3.0, "epochs": 20, "n_threads": 1}

#: The six figures. ``grid`` maps parameter -> values (the cartesian product is taken);
#: ``quick`` overrides ``params``/``grid``/``record`` entries in quick mode.
FIGURES = {
    "fig1": {
        "paper": "Figure 1",
        "title": "Average L2 norm of the embedding vectors per epoch (SGD, D = {dim})",
        "model": "LogisticEmbedding",
        "params": dict(_SGD_FIXED),
        "grid": {"lam_r": _LAM_R_SGD},
        "record": _SGD_RECORD,
        "quick": {"params": {"epochs": 20}, "record": {"f1_epochs": [1, 5, 20]}},
        "claims": ["norms_grow_slowing"],
    },
    "fig2": {
        "paper": "Figure 2",
        "title": "Average stochastic-gradient norm (Eq. 4) per epoch (SGD, D = {dim})",
        "model": "LogisticEmbedding",
        "params": dict(_SGD_FIXED),
        "grid": {"lam_r": _LAM_R_SGD},
        "record": _SGD_RECORD,
        "quick": {"params": {"epochs": 20}, "record": {"f1_epochs": [1, 5, 20]}},
        "claims": ["gradients_vanish"],
    },
    "fig3": {
        "paper": "Figure 3",
        "title": "Test AP per epoch, and Micro/Macro-F1 at a few epochs (SGD, D = {dim})",
        "model": "LogisticEmbedding",
        "params": dict(_SGD_FIXED),
        "grid": {"lam_r": _LAM_R_SGD},
        "record": _SGD_RECORD,
        "quick": {"params": {"epochs": 20}, "record": {"f1_epochs": [1, 5, 20]}},
        "claims": ["small_lam_r_overfits"],
    },
    "fig4": {
        "paper": "Figure 4",
        "title": "Test AP per epoch for several dimensions D, one panel per λr (SGD)",
        "model": "LogisticEmbedding",
        "params": dict(_SGD_FIXED),
        "grid": {"lam_r": _LAM_R_SGD, "dim": [5, 10, 30, 100, 300]},
        "record": dict(_SGD_RECORD, f1_epochs=[]),
        "quick": {"params": {"epochs": 20}, "grid": {"lam_r": [0.0, 1.0], "dim": [5, 10, 30, 100]}},
        "claims": ["lam0_overfits_every_dim"],
    },
    "fig5": {
        "paper": "Figure 5",
        "title": "DCD: train and test AP against λr (D = {dim}, {epochs} epochs)",
        "model": "HingeEmbedding",
        "params": dict(_DCD_FIXED),
        "grid": {"lam_r": [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]},
        "record": _DCD_RECORD,
        "quick": {"params": {"epochs": 10}, "grid": {"lam_r": [0.01, 0.1, 1.0, 10.0, 100.0]}},
        "claims": ["dcd_poor_near_zero"],
    },
    "fig6": {
        "paper": "Figure 6",
        "title": "DCD: test AP against the dimension D (λr = {lam_r:g}, {epochs} epochs)",
        "model": "HingeEmbedding",
        "params": dict(_DCD_FIXED),
        "grid": {"dim": [10, 30, 100, 300, 1000, 1600]},
        "record": _DCD_RECORD,
        "quick": {"params": {"epochs": 10}, "grid": {"dim": [10, 30, 100, 300]}},
        "claims": ["dcd_insensitive_to_dim"],
    },
}

_ALIASES = {"all": None}
for _i in range(1, 7):
    _ALIASES[str(_i)] = f"fig{_i}"
    _ALIASES[f"fig{_i}"] = f"fig{_i}"
    _ALIASES[f"figure{_i}"] = f"fig{_i}"


def resolve_figures(names):
    """Normalise figure names (``1``, ``fig1``, ``figure1``, ``all``) to spec keys, in order.

    Raises
    ------
    ValueError
        For a name that is none of these (the message lists what is accepted).
    """
    if not names:
        return list(FIGURES)
    out = []
    for name in names:
        key = str(name).strip().lower().replace("-", "").replace("_", "").replace(" ", "")
        if key not in _ALIASES:
            raise ValueError(
                f"unknown figure {name!r}: accepted are 1-6, fig1-fig6 or all"
            )
        resolved = list(FIGURES) if _ALIASES[key] is None else [_ALIASES[key]]
        out.extend(r for r in resolved if r not in out)
    return sorted(out)


def canonical_json(obj):
    """The canonical JSON text of ``obj``: sorted keys, no whitespace, floats as repr."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def cell_key(config):
    """The SHA-256 (hex) of a cell configuration's canonical JSON: the cell's identity."""
    return hashlib.sha256(canonical_json(config).encode("utf-8")).hexdigest()


def dataset_spec(dataset=None, *, quick=False):
    """The data-set part of a cell configuration.

    Parameters
    ----------
    dataset : str, path or None
        A registered name or a path, resolved by :func:`lgekit.datasets.resolve`,
        the rule of :func:`lgekit.datasets.load`: a string that is a
        registered name (case-insensitive, aliases allowed) always means the
        data set, even when a file of that name exists; a ``pathlib.Path``,
        or a string that is no registered name, is a path (a local file
        called ``facebook`` is ``"./facebook"`` or ``Path("facebook")``).
        ``None`` is the embedded default (shrunk to
        :data:`QUICK_DATASET_KWARGS` when ``quick``).
    quick : bool

    Returns
    -------
    dict
        ``{"name": registered name, "kwargs": {...}}`` for a registered data
        set, or ``{"path": absolute path, "sha256": content hash}`` for a file
        or a folder (:meth:`lgekit.datasets.DatasetSource.content_sha256`: the
        hash covers each file the loader reads), so an edited data set is
        never mistaken for the old one.

    Raises
    ------
    FileNotFoundError
        When ``dataset`` is neither a registered name nor an existing path.
    ValueError
        For a folder that is not an ASU data set folder.
    """
    from .. import datasets

    if dataset is None:
        dataset = DEFAULT_DATASET
    # only a str may be a registered name: any other path-like is a path
    source = datasets.resolve(dataset if isinstance(dataset, str) else Path(os.fspath(dataset)))
    if source.kind == "registered":
        kwargs = dict(QUICK_DATASET_KWARGS) if source.name == DEFAULT_DATASET and quick else {}
        return {"name": source.name, "kwargs": kwargs}
    return {"path": str(source.path), "sha256": source.content_sha256()}


def dataset_label(spec):
    """A short human name for a data-set spec (for titles and the report)."""
    if "name" in spec:
        extra = ", ".join(f"{k}={v}" for k, v in sorted(spec.get("kwargs", {}).items()))
        return f"{spec['name']} ({extra})" if extra else spec["name"]
    return Path(spec["path"]).name


def _merge(base, override):
    out = copy.deepcopy(base)
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key].update(copy.deepcopy(value))
        else:
            out[key] = copy.deepcopy(value)
    return out


def effective_spec(name, *, quick=False, overrides=None):
    """The spec of figure ``name``: quick overrides applied when ``quick``, then ``overrides``.

    ``overrides`` is as in :func:`expand`.  The title is formatted with the
    resulting fixed parameters (e.g. the number of epochs).
    """
    spec = copy.deepcopy(FIGURES[name])
    quick_overrides = spec.pop("quick", {})
    overrides = overrides or {}
    layers = ([quick_overrides] if quick else []) + [overrides.get("*"), overrides.get(name)]
    for layer in layers:
        for part in ("params", "grid", "record"):
            if layer and part in layer:
                spec[part] = _merge(spec[part], layer[part])
    spec["title"] = spec["title"].format(**spec["params"])
    return spec


@dataclass
class Plan:
    """What a sweep will compute and draw.

    Attributes
    ----------
    cells : dict
        key -> configuration (plain JSON data), one entry per distinct run.
    figures : dict
        figure name -> list of ``{"key": ..., "seed": ..., **grid values}``.
    specs : dict
        figure name -> effective spec (quick overrides applied).
    dataset : dict
        the data-set spec shared by every cell.
    quick : bool
    seeds : list of int
    """

    cells: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    specs: dict = field(default_factory=dict)
    dataset: dict = field(default_factory=dict)
    quick: bool = False
    seeds: list = field(default_factory=list)

    def to_dict(self):
        return {"cells": self.cells, "figures": self.figures, "specs": self.specs,
                "dataset": self.dataset, "quick": self.quick, "seeds": self.seeds}


def _round_f1_epochs(epochs, n_epochs):
    return sorted({int(e) for e in epochs if 1 <= int(e) <= n_epochs} | ({n_epochs} if epochs else set()))


def merge_records(a, b):
    """The union of two ``record`` specs: every metric either asks for, as often as either asks.

    ``*_every`` take the smaller positive period (0 = never), flags are or-ed,
    ``f1_epochs`` are united.
    """
    out = {}
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if key.endswith("_every"):
            positive = [int(v) for v in (x, y) if v]
            out[key] = min(positive) if positive else 0
        elif key == "f1_epochs":
            out[key] = sorted(set(x or []) | set(y or []))
        elif isinstance(x, bool) or isinstance(y, bool):
            out[key] = bool(x) or bool(y)
        else:
            out[key] = x if x is not None else y
    return out


def expand(figures=None, *, dataset=None, seeds=1, quick=False, overrides=None):
    """Expand figure specs into cells.

    Parameters
    ----------
    figures : list of str or None
        Figure names (see :func:`resolve_figures`); ``None`` means all six.
    dataset : str, path, dict or None
        Data set (see :func:`dataset_spec`), or an already built data-set spec.
    seeds : int or list of int
        ``n`` means seeds ``0 .. n-1``.  Each seed draws its own train/test
        split and its own initialisation.
    quick : bool
        Apply each spec's ``quick`` overrides (fewer epochs, fewer grid points).
    overrides : dict or None
        Per-figure overrides ``{"fig1": {"params": {...}, "grid": {...}}}``
        applied last (used by tests to run specs at tiny scale), or the same
        under the key ``"*"`` for every figure.

    Returns
    -------
    Plan
    """
    names = resolve_figures(figures)
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ValueError(f"seeds must be a positive int or a list of ints, got {seeds}")
        seeds = list(range(seeds))
    else:
        seeds = [int(s) for s in seeds]
        if not seeds:
            raise ValueError("seeds must not be empty")
    data = dataset if isinstance(dataset, dict) else dataset_spec(dataset, quick=quick)
    plan = Plan(dataset=data, quick=bool(quick), seeds=seeds)
    overrides = overrides or {}
    pending = []  # (figure, entry, run configuration without its record, record)
    for name in names:
        spec = effective_spec(name, quick=quick, overrides=overrides)
        plan.specs[name] = spec
        grid_names = list(spec["grid"])
        for values in itertools.product(*(spec["grid"][g] for g in grid_names)):
            point = dict(zip(grid_names, values))
            for seed in seeds:
                params = dict(spec["params"])
                params.update(point)
                params["random_state"] = seed
                record = dict(spec["record"])
                record["f1_epochs"] = _round_f1_epochs(record.get("f1_epochs", []), params["epochs"])
                run = {
                    "schema": SCHEMA_VERSION,
                    "lgekit": __version__,  # another release's results are never silently reused
                    "dataset": data,
                    "split": dict(SPLIT, seed=seed),
                    "model": spec["model"],
                    "params": params,
                }
                pending.append((name, dict(point, seed=seed), run, record))
    # one cell per distinct run; it records the union of what the figures drawing it need
    merged = {}
    for _, _, run, record in pending:
        run_key = cell_key(run)
        merged[run_key] = merge_records(merged[run_key], record) if run_key in merged else record
    for name in names:
        plan.figures[name] = []
    for name, entry, run, _ in pending:
        config = dict(run, record=merged[cell_key(run)])
        key = cell_key(config)
        plan.cells[key] = config
        plan.figures[name].append(dict(entry, key=key))
    return plan


def estimated_cost(config):
    """A rough relative cost of a cell (epochs x dimension), to start long cells first."""
    params = config["params"]
    return float(params.get("epochs", 1)) * float(params.get("dim", 1)) * (
        1.0 + 0.1 * len(config["record"].get("f1_epochs", [])))
