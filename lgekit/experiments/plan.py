"""From figure specs to cells: :func:`expand`, the :class:`Plan` it returns, and the cost that orders cells.

:func:`expand` turns a selection of figures (:data:`lgekit.experiments.figures.FIGURES`),
a data set, a number of seeds and a mode (quick or full) into a :class:`Plan`:
the distinct *cells* (one training run each, identified by
:func:`~lgekit.experiments.spec.cell_key`) and, for each figure, which cells
it draws and with which grid values.  :func:`estimated_cost` orders the cells
longest first.
"""
import dataclasses
import inspect
import itertools
import math
from dataclasses import dataclass, field

from .. import models
from .._version import __version__
from .figures import FIGURES
from .spec import SCHEMA_VERSION, SPLIT, Override, accepted_text, check_keys, cell_key, dataset_spec, merge_records

__all__ = ["Plan", "expand", "effective_spec", "resolve_figures", "estimated_cost"]


_ALIASES = {"all": None}
for _i in range(1, 7):
    _ALIASES[str(_i)] = f"fig{_i}"
    _ALIASES[f"fig{_i}"] = f"fig{_i}"
    _ALIASES[f"figure{_i}"] = f"fig{_i}"


def resolve_figures(names):
    """Normalise figure names (``1``, ``fig1``, ``figure1``, ``all``) to spec keys, in order.

    Parameters
    ----------
    names : list of str or None
        ``None`` or empty: all six.

    Returns
    -------
    list of str

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


def _check_overrides(overrides):
    """``{figure or "*": Override}`` from the mapping :func:`expand` accepts (keys checked)."""
    if overrides is None:
        return {}
    check_keys(overrides, ["*"] + list(FIGURES), "overrides figure")
    return {name: Override.from_dict(layer, f"overrides[{name!r}]") for name, layer in overrides.items()}


def effective_spec(name, *, quick=False, overrides=None):
    """The spec of figure ``name``: quick overrides applied when ``quick``, then ``overrides``.

    Parameters
    ----------
    name : str
        A key of :data:`FIGURES`.
    quick : bool
    overrides : dict or None
        As in :func:`expand`.

    Returns
    -------
    FigureSpec
        With the title formatted from the resulting fixed parameters (e.g.
        the number of epochs).
    """
    overrides = _check_overrides(overrides)
    spec = FIGURES[name]
    layers = ([spec.quick] if quick else []) + [overrides.get("*"), overrides.get(name)]
    for layer in layers:
        if layer is not None:
            spec = spec.with_override(layer)
    return dataclasses.replace(spec, title=spec.title.format(**spec.params))


def _check_model_params(spec):
    """Every fixed and grid parameter must be a parameter of the spec's model (no typo runs a default)."""
    cls = getattr(models, spec.model)
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    for part, names in (("params", spec.params), ("grid", spec.grid)):
        unknown = [k for k in names if k not in accepted]
        if unknown:
            raise ValueError(f"{spec.name}: unknown {part} key {unknown[0]!r} for {spec.model}: accepted are "
                             f"{accepted_text(accepted)}")
    if "random_state" in spec.params or "random_state" in spec.grid:
        raise ValueError(f"{spec.name}: random_state is set from the seeds (expand's seeds=), not in the spec")


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
        figure name -> effective :class:`FigureSpec` (quick overrides applied).
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
        """Plain JSON data (plan.json)."""
        return {"cells": self.cells, "figures": self.figures,
                "specs": {name: spec.to_dict() for name, spec in self.specs.items()},
                "dataset": self.dataset, "quick": self.quick, "seeds": self.seeds}


def _round_f1_epochs(epochs, n_epochs):
    return tuple(sorted({e for e in epochs if e <= n_epochs} | ({n_epochs} if epochs and n_epochs else set())))


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
        Per-figure overrides ``{"fig1": {"params": {...}, "grid": {...},
        "record": {...}}}`` applied last (used by tests to run specs at tiny
        scale), or the same under the key ``"*"`` for every figure.

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        For bad seeds, or an unknown key anywhere in ``overrides`` (figure,
        part, record field, model parameter): the message names it and the
        accepted keys.
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
    overrides = _check_overrides(overrides)
    specs = {name: effective_spec(name, quick=quick, overrides=overrides) for name in names}
    for spec in specs.values():
        _check_model_params(spec)
    data = dataset if isinstance(dataset, dict) else dataset_spec(dataset, quick=quick)
    plan = Plan(dataset=data, quick=bool(quick), seeds=seeds, specs=specs)
    pending = []  # (figure, entry, run configuration without its record, record)
    for name, spec in specs.items():
        grid_names = list(spec.grid)
        for values in itertools.product(*(spec.grid[g] for g in grid_names)):
            point = dict(zip(grid_names, values))
            for seed in seeds:
                params = dict(spec.params)
                params.update(point)
                params["random_state"] = seed
                record = dataclasses.replace(
                    spec.record, f1_epochs=_round_f1_epochs(spec.record.f1_epochs, params.get("epochs", 0)))
                run = {
                    "schema": SCHEMA_VERSION,
                    "lgekit": __version__,  # another release's results are never silently reused
                    "dataset": data,
                    "split": dict(SPLIT, seed=seed),
                    "model": spec.model,
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
        config = dict(run, record=merged[cell_key(run)].to_dict())
        key = cell_key(config)
        plan.cells[key] = config
        plan.figures[name].append(dict(entry, key=key))
    return plan


# ---------------------------------------------------------------------------- cost model
#: Relative costs, in units of one single-threaded SGD update of one training pair in one dimension.
#: Only their ratios matter: they order cells (longest first), they do not predict a time.  The timings
#: they come from are in benchmarks/README.md.
#: Per pair and epoch the model's update costs ``dim + offset``: the offset is the per-pair work that
#: does not depend on D (sampling, the sigmoid; for DCD the dual bookkeeping, larger).
_EPOCH_OFFSET = {"LogisticEmbedding": 25.0, "HingeEmbedding": 120.0}
#: preparing a fit, per pair (DCD builds its per-vertex sub-problems)
_PREPARE = {"LogisticEmbedding": 25.0, "HingeEmbedding": 400.0}
#: one link-prediction evaluation (test pairs and the train sample score x_u . x_v, then one sort), per
#: training pair: this x (dim + 25)
_AP_COST = 0.12
#: one node-classification evaluation (one-vs-rest logistic regressions on the vectors): this x dim
_F1_COST = 12.5


def estimated_cost(config):
    """A relative cost of a cell, to hand the longest cells out first.

    Parameters
    ----------
    config : dict
        A cell configuration (a ``Plan.cells`` value).

    Returns
    -------
    float
        The training pairs per positive edge (1 + negatives) x [the epochs x
        a per-pair update cost affine in the dimension D, plus the fit's
        preparation, plus the evaluations the record asks for: an AP every
        ``ap_every`` epochs, an F1 at each of ``f1_epochs``].  The number of
        positive edges is common to a plan's cells (one data set) and left
        out.  What the parameters do to the run is ignored (a run that
        diverges stops early).

    Notes
    -----
    Cost: O(1).  The weights are relative costs (see ``_EPOCH_OFFSET``); they
    order cells and are not a time estimate.
    """
    params = config["params"]
    record = config.get("record", {})
    model = config.get("model")
    dim = float(params.get("dim", 100))
    epochs = float(params.get("epochs", 1))
    pairs = 1.0 + float(config.get("split", SPLIT).get("negatives_per_positive", 4))
    cost = epochs * (dim + _EPOCH_OFFSET.get(model, 25.0)) + _PREPARE.get(model, 25.0)
    every = int(record.get("ap_every", 0) or 0)
    if every:
        cost += math.ceil(epochs / every) * _AP_COST * (dim + 25.0)
    cost += len(record.get("f1_epochs", ())) * _F1_COST * dim
    return pairs * cost
