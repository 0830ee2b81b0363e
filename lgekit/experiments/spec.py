"""What a figure's runs are: typed specs, the paper's settings, and the identity of a cell.

A *figure spec* (:class:`FigureSpec`) says which model is trained, with which
fixed parameters, over which grid, for how many epochs, what each run must
record (:class:`RecordSpec`), which claims of the paper the figure is judged
on and with which thresholds (fixed here, before any run).  Specs are frozen
dataclasses built from plain mappings by ``from_dict``, which rejects any key
it does not know, naming it and the accepted ones: a misspelt record key
cannot silently turn a metric off.

Each figure's spec lives in its own module (:mod:`~lgekit.experiments.figure1`
... :mod:`~lgekit.experiments.figure6`), beside its claim, rule and plot; this
module holds the types, the settings the figures share (below) and
:func:`cell_key`, the SHA-256 of a cell's canonical JSON configuration.
:func:`lgekit.experiments.plan.expand` turns a selection of specs into cells.

Figures 1-3 draw the same runs (SGD, D = 100, λr ∈ {0, 0.2, 0.6, 1}), the
D = 100 column of Figure 4 is those runs again, and Figure 5 at λr = 3 is
Figure 6 at D = 100: a run is identified by its configuration, so shared runs
are computed once, recording the union of what the figures drawing it need
(:func:`merge_records`; e.g. Micro/Macro-F1 only for the runs of Figure 3).

The parameters follow Gao et al. (2019), Section 3.2 (the SGD experiments of
Figures 1-4) and Section 4 (DCD, Figures 5-6): λ+ = 1, λ- = 0.03, four
uniformly drawn negative pairs per positive edge, 20% of the edges held out
for testing (link prediction scored by average precision), embeddings of
dimension D = 100 unless D is the varied parameter, 50 SGD epochs, 20 DCD
epochs and λr = 3 for DCD unless λr is the varied parameter.

References
----------
Y. Gao, C. Zhang, J. Peng, A. Parameswaran. The Importance of Norm
Regularization in Linear Graph Embedding: Theoretical Analysis and Empirical
Demonstration. ICLR 2019 (arXiv:1802.03560).
"""
import dataclasses
import hashlib
import json
import math
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path

from .. import datasets
from .verdict import CLAIMS

__all__ = [
    "DEFAULT_DATASET", "QUICK_DATASET_KWARGS", "SCHEMA_VERSION", "THRESHOLDS", "FULL_SEEDS", "QUICK_SEEDS",
    "SPLIT", "MODELS", "default_seeds", "sgd_lr_offset", "sgd_note", "FigureSpec", "RecordSpec", "Override",
    "merge_records", "canonical_json", "cell_key", "dataset_spec", "dataset_label", "SGD_RECORD", "DCD_RECORD",
    "LAM_R_SGD", "SGD_DIMS", "SGD_QUICK_DIMS", "SGD_FIXED", "DCD_FIXED", "SGD_QUICK", "OVERFIT", "RISE",
    "check_keys", "accepted_text",
]

#: bumped whenever what a cell computes changes, so old records are not reused
#: (2: the record spec's keys, the public callbacks, train AP on a sample; 3: the models' defaults changed
#: what a cell computes -- weighted graphs' edges drawn by weight (weighting="sample"), DCD's fixed inner
#: order -- so cells stored before are recomputed)
SCHEMA_VERSION = 3

#: the embedded default data set (no download): a BlogCatalog-shaped planted partition graph
DEFAULT_DATASET = "synthetic-blogcatalog"
#: ``--quick`` shrinks the embedded default to this (keyword arguments of ``lgekit.datasets.load``)
QUICK_DATASET_KWARGS = {"n_nodes": 1000, "seed": 0}

#: seeds per grid point when none are asked for: the full settings' verdicts are judged over 3 seeds, with
#: their spread in the report (issue #17); the quick mode is a smoke run of one seed
FULL_SEEDS = 3
QUICK_SEEDS = 1


def default_seeds(quick):
    """The number of seeds of a sweep that asks for none: :data:`QUICK_SEEDS` quick, :data:`FULL_SEEDS` full."""
    return QUICK_SEEDS if quick else FULL_SEEDS


#: how a cell's train/test split is drawn (the seed is the cell's seed)
SPLIT = {"test_fraction": 0.2, "negatives_per_positive": 4}

#: model names a spec may use (attributes of :mod:`lgekit.models`)
MODELS = ("LogisticEmbedding", "HingeEmbedding")


def accepted_text(keys):
    """The names ``keys``, sorted and comma-separated, for an error message."""
    return ", ".join(sorted(keys))


def check_keys(mapping, cls_or_keys, what):
    """Raise if ``mapping`` (a dict) has a key outside the accepted ones; returns the mapping."""
    if not isinstance(mapping, dict):
        raise TypeError(f"{what} must be a dict, got {type(mapping).__name__}: {mapping!r}")
    accepted = ([f.name for f in dataclasses.fields(cls_or_keys)] if isinstance(cls_or_keys, type)
                else list(cls_or_keys))
    unknown = [k for k in mapping if k not in accepted]
    if unknown:
        raise ValueError(f"unknown {what} key {unknown[0]!r}: accepted are {accepted_text(accepted)}")
    return mapping


def _int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}: {value!r}")
    return value


# ---------------------------------------------------------------------------- what a run records
@dataclass(frozen=True)
class RecordSpec:
    """What a run records besides the model's own history (objective, norms, gradient norms).

    Parameters
    ----------
    ap_every : int, default 0
        Test AP every ``ap_every`` epochs and after the last one
        (:class:`lgekit.callbacks.LinkPredictionCallback`); 0: never.
    train_ap : bool, default False
        With the test AP, the train AP on the callback's fixed sample of
        training pairs (seeded by the cell's seed).
    final_train_ap : bool, default False
        Train AP of the final embedding over every training pair.
    f1_epochs : tuple of int, default ()
        Micro/Macro-F1 of node classification after these numbers of
        completed epochs (:class:`lgekit.callbacks.NodeClassificationCallback`),
        when the graph has labels.
    exact_diagnostics : bool, default False
        The model's own diagnostics (objective, gradient norms) computed
        exactly, one more pass over the pairs every epoch, instead of
        estimated from a sample (the models' default): for a verdict that
        reads them (Figure 2's gradient norms).
    """

    ap_every: int = 0
    train_ap: bool = False
    final_train_ap: bool = False
    f1_epochs: tuple = ()
    exact_diagnostics: bool = False

    def __post_init__(self):
        object.__setattr__(self, "ap_every", _int(self.ap_every, "record ap_every", 0))
        _bool(self.train_ap, "record train_ap")
        _bool(self.final_train_ap, "record final_train_ap")
        _bool(self.exact_diagnostics, "record exact_diagnostics")
        if isinstance(self.f1_epochs, (str, bytes)) or not hasattr(self.f1_epochs, "__iter__"):
            raise TypeError(f"record f1_epochs must be a list of ints >= 1, got {self.f1_epochs!r}")
        epochs = tuple(sorted({_int(e, "each of record f1_epochs", 1) for e in self.f1_epochs}))
        object.__setattr__(self, "f1_epochs", epochs)
        if self.train_ap and not self.ap_every:
            raise ValueError("record train_ap=True needs ap_every >= 1: the train AP is recorded with the test AP")

    @classmethod
    def from_dict(cls, mapping):
        """Build from a mapping; an unknown key is a ``ValueError`` naming it and the accepted keys."""
        return cls(**check_keys(dict(mapping), cls, "record"))

    def updated(self, mapping):
        """A copy with the entries of ``mapping`` (keys checked as in :meth:`from_dict`)."""
        return dataclasses.replace(self, **check_keys(dict(mapping), type(self), "record"))

    def to_dict(self):
        out = {"ap_every": self.ap_every, "train_ap": self.train_ap, "final_train_ap": self.final_train_ap,
               "f1_epochs": list(self.f1_epochs)}
        if self.exact_diagnostics:      # absent when False: the cells of the figures that never ask keep their keys
            out["exact_diagnostics"] = True
        return out


def merge_records(a, b):
    """The union of two record specs: every metric either asks for, as often as either asks.

    ``ap_every`` takes the smaller positive period (0 = never), flags are
    or-ed, ``f1_epochs`` are united.  Accepts :class:`RecordSpec` or mappings;
    returns a :class:`RecordSpec`.
    """
    a = a if isinstance(a, RecordSpec) else RecordSpec.from_dict(a)
    b = b if isinstance(b, RecordSpec) else RecordSpec.from_dict(b)
    every = [v for v in (a.ap_every, b.ap_every) if v]
    return RecordSpec(ap_every=min(every) if every else 0, train_ap=a.train_ap or b.train_ap,
                      final_train_ap=a.final_train_ap or b.final_train_ap,
                      f1_epochs=tuple(sorted(set(a.f1_epochs) | set(b.f1_epochs))),
                      exact_diagnostics=a.exact_diagnostics or b.exact_diagnostics)


# ---------------------------------------------------------------------------- verdict thresholds
#: every threshold a verdict rule uses -> what it means (stated in the report beside its value)
THRESHOLDS = {
    "norm_growth_min": "the mean norm 'grows' when its last value is at least (1 + this) times its first",
    "vanish_ratio": "the gradient norm has 'vanished' when it ends at or below this fraction of its peak",
    "no_vanish_ratio": "... and clearly has not when it ends above this fraction of its peak",
    "overfit_drop": "a test-AP drop from the peak to the end of at least this much is overfitting",
    "no_overfit_drop": "... and a drop below this is no overfitting (between the two: inconclusive)",
    "early_fraction": "the test-AP peak must come within this fraction of the epochs",
    "min_peak_epoch": "the test AP must stay within no_overfit_drop of its peak until this many completed epochs "
                      "or later (the paper: it \"starts to drop after 5~20 epochs\"); an earlier drop is NOT "
                      "REPRODUCED",
    "rise_min": "the test AP 'rises' before its peak when the peak is at least this far (and noise_se standard "
                "errors) above the AP after epoch 1",
    "no_rise": "... and it does not rise when the peak is less than this above the AP after epoch 1 (NOT REPRODUCED)",
    "noise_se": "an effect must also exceed this many standard errors over seeds",
    "dims_above": "the claim covers the dimensions D above this",
    "poor_gap": "DCD is 'poor' near λr = 0 when its test AP there is below the best by at least this",
    "not_poor_gap": "... and not poor when within this of the best",
    "min_dim": "the claim covers the dimensions D at or above this",
    "insensitive_range": "test AP is 'insensitive' to D when its spread over the covered D is at most this",
    "sensitive_range": "... and sensitive when the spread exceeds this",
}


# ---------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Override:
    """Entries that replace a figure spec's ``params``, ``grid`` values or ``record`` fields.

    Parameters
    ----------
    params : dict
        Model parameters (merged over the spec's).
    grid : dict
        Grid parameter -> values (replaces that parameter's values; a new
        name adds a grid dimension).
    record : dict
        :class:`RecordSpec` fields.
    note : str, default ""
        Replaces the spec's note when not empty (what the quick mode changes
        in the reasons the note gives).
    """

    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    record: dict = field(default_factory=dict)
    note: str = ""

    def __post_init__(self):
        if not isinstance(self.note, str):
            raise TypeError(f"override note must be a str, got {self.note!r}")
        for part in ("params", "grid", "record"):
            if not isinstance(getattr(self, part), dict):
                raise TypeError(f"override {part} must be a dict, got {getattr(self, part)!r}")
        check_keys(self.record, RecordSpec, "record")
        for name, values in self.grid.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or not list(values):
                raise ValueError(f"grid {name!r} must be a non-empty list of values, got {values!r}")

    @classmethod
    def from_dict(cls, mapping, what="override"):
        """Build from ``{"params": ..., "grid": ..., "record": ...}`` (unknown keys rejected)."""
        if isinstance(mapping, Override):
            return mapping
        return cls(**check_keys(dict(mapping or {}), cls, what))


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the paper: the runs it needs and the claims it is judged on.

    Parameters
    ----------
    name : str
        ``"fig1"`` ... ``"fig6"``.
    paper : str
        How the paper names it (``"Figure 1"``).
    title : str
        Title; ``{param}`` fields are filled from the fixed parameters.
    model : str
        One of :data:`MODELS`.
    params : dict
        Fixed model parameters.
    grid : dict
        Parameter -> tuple of values; the cartesian product is taken.
    record : RecordSpec
        What every run records.
    claims : tuple of str
        The claims it is judged on (keys of :data:`lgekit.experiments.verdict.CLAIMS`).
    thresholds : dict
        Threshold name -> value, for those claims' rules: exactly the names
        their :attr:`~lgekit.experiments.verdict.Claim.reads` list.
    quick : Override
        Applied in quick mode.
    note : str, default ""
        Why a setting the paper leaves open was chosen (printed in the report
        under the figure's parameters).
    """

    name: str
    paper: str
    title: str
    model: str
    params: dict
    grid: dict
    record: RecordSpec
    claims: tuple = ()
    thresholds: dict = field(default_factory=dict)
    quick: Override = field(default_factory=Override)
    note: str = ""

    def __post_init__(self):
        if not isinstance(self.note, str):
            raise TypeError(f"note must be a str, got {type(self.note).__name__}: {self.note!r}")
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}, got {self.model!r}")
        if not isinstance(self.record, RecordSpec):
            object.__setattr__(self, "record", RecordSpec.from_dict(self.record))
        if not isinstance(self.quick, Override):
            object.__setattr__(self, "quick", Override.from_dict(self.quick, "quick"))
        object.__setattr__(self, "grid", {k: tuple(v) for k, v in self.grid.items()})
        object.__setattr__(self, "claims", tuple(self.claims))
        for claim in self.claims:
            if claim not in CLAIMS:
                raise ValueError(f"unknown claim {claim!r}: accepted are {accepted_text(CLAIMS)}")
        needed = {t for claim in self.claims for t in CLAIMS[claim].reads}
        check_keys(self.thresholds, sorted(needed), f"{self.name} threshold")
        missing = sorted(needed - set(self.thresholds))
        if missing:
            raise ValueError(f"{self.name}: thresholds {', '.join(missing)} are missing (fix every threshold in "
                             "advance, in the spec)")
        for key, value in self.thresholds.items():
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"{self.name} threshold {key} must be a finite number, got {value!r}")

    @classmethod
    def from_dict(cls, mapping):
        """Build from a plain mapping (unknown keys at any level are rejected, naming the accepted ones)."""
        mapping = dict(check_keys(dict(mapping), cls, "figure spec"))
        mapping["record"] = RecordSpec.from_dict(mapping.get("record", {}))
        mapping["quick"] = Override.from_dict(mapping.get("quick", {}), "quick")
        return cls(**mapping)

    def with_override(self, override):
        """A copy with ``override`` (an :class:`Override` or its mapping) applied."""
        override = Override.from_dict(override)
        params = dict(self.params, **override.params)
        grid = dict(self.grid)
        grid.update({k: tuple(v) for k, v in override.grid.items()})
        return dataclasses.replace(self, params=params, grid=grid, record=self.record.updated(override.record),
                                   note=override.note or self.note)

    def to_dict(self):
        """Plain JSON data (for plan.json)."""
        return {"name": self.name, "paper": self.paper, "title": self.title, "model": self.model,
                "params": dict(self.params), "grid": {k: list(v) for k, v in self.grid.items()},
                "record": self.record.to_dict(), "claims": list(self.claims), "thresholds": dict(self.thresholds),
                "quick": {"params": self.quick.params, "grid": self.quick.grid, "record": self.quick.record,
                          "note": self.quick.note},
                "note": self.note}


#: what SGD runs record: test AP every epoch (Figs 3-4), and Micro/Macro-F1 at a few epochs when the
#: graph carries labels (Fig 3); the model's own history gives the norms (Fig 1) and the
#: stochastic-gradient norms (Fig 2), exactly (Figure 2's verdict reads them; Figures 1-3 share their runs, so
#: the three ask alike and a run's cell is the same whichever of them a sweep draws)
SGD_RECORD = RecordSpec(ap_every=1, f1_epochs=(1, 2, 5, 10, 20, 50), exact_diagnostics=True)
#: what DCD runs record: train and test AP every epoch (so that a run that diverges shows what it
#: reached before), and the train AP over every training pair at the end (Figs 5-6)
DCD_RECORD = RecordSpec(ap_every=1, train_ap=True, final_train_ap=True)

LAM_R_SGD = (0.0, 0.2, 0.6, 1.0)
SGD_DIMS = (5, 10, 30, 100, 300)  # Figure 4's D
SGD_QUICK_DIMS = (5, 10, 30, 100)  # ... in quick mode


def sgd_lr_offset(dims=SGD_DIMS, reference_dim=100):
    r"""The offset :math:`c` of the paper's SGD schedule :math:`\gamma_t = (t + c)^{-1/2}` for these D.

    The paper fixes the schedule's form and the initial coordinates (uniform
    in [-0.1, 0.1], Appendix), not :math:`c`.  One step on pair (u, v)
    changes :math:`x_u\cdot x_v` by about
    :math:`\gamma_t\,g\,(\|x_u\|^2 + \|x_v\|^2)`, and at that initial scale
    :math:`\|x\|^2 \approx D \cdot 0.1^2/3` grows linearly with D.  With
    :math:`c = 1` (:math:`\gamma_0 = 1`) D = 100 trains on BlogCatalog but
    D = 300 diverges within 4 epochs (objective x14, test AP near 0.5;
    benchmarks/README.md).  So :math:`c` is chosen for the largest D: the
    first step at D = max(dims) moves :math:`x_u\cdot x_v` no more than
    :math:`c = 1` moves it at ``reference_dim``, i.e.
    :math:`\gamma_0 = \mathrm{reference\_dim} / \max D`,
    :math:`c = (\max D / \mathrm{reference\_dim})^2` (at least 1).  The same
    :math:`c` is used at every D and for Figures 1-4: Figure 4 compares
    dimensions, so the schedule must not change with D (a per-D :math:`c`
    would confound the step size with D), and Figures 1-3 draw Figure 4's
    D = 100 runs.

    Parameters
    ----------
    dims : iterable of int, default Figure 4's D
    reference_dim : int, default 100
        The D at which :math:`c = 1` is stable (the paper's default D).

    Returns
    -------
    float
        :math:`c`; 9.0 for Figure 4's D (:math:`\gamma_0 = 1/3`).

    Examples
    --------
    >>> sgd_lr_offset()
    9.0
    >>> sgd_lr_offset((5, 10, 30, 100))
    1.0
    """
    return max(1.0, (max(dims) / reference_dim) ** 2)


#: why Figures 1-4 use this c (the report prints it under each figure)
_SGD_NOTE_TEXT = ("SGD step γ_t = (t + c)^(-1/2), the paper's schedule (Sec. 3.2), which leaves c open; initial "
                  "coordinates uniform in [-0.1, 0.1] (the paper's Appendix). c = {c:g} = (max D / 100)^2 for {fig4} "
                  "largest D = {d}: with that init ||x||^2 grows with D and a step moves x_u·x_v by about "
                  "γ_t g (||x_u||^2 + ||x_v||^2), so γ_0 = 100 / max D keeps the first steps at D = {d} as large as "
                  "c = 1 makes them at D = 100 (with c = 1, D = 300 diverges on BlogCatalog within 4 epochs). One c "
                  "for every D "
                  "and for Figures 1-4, so that Figure 4 varies D alone and draws Figures 1-3's D = 100 runs "
                  "(measurements: benchmarks/README.md).")
#: lr = 1 and lr_offset = c make the model's step lr (t + c)^{-1/2} the paper's (t + c)^{-1/2}
SGD_FIXED = {"dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "epochs": 50, "n_threads": 1, "lr": 1.0,
             "lr_offset": sgd_lr_offset(), "init_scale": 0.1}
DCD_FIXED = {"dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "lam_r": 3.0, "epochs": 20, "n_threads": 1}


def sgd_note(quick=False):
    """Why Figures 1-4 use their step offset c, for the report; the quick mode's Figure 4 stops at a smaller D.

    Examples
    --------
    >>> "Figure 4's largest D = 300" in sgd_note(), "Figure 4's largest D" in sgd_note(quick=True)
    (True, False)
    """
    text = _SGD_NOTE_TEXT.format(c=sgd_lr_offset(), d=max(SGD_DIMS),
                                 fig4="the full setting's Figure 4 and its" if quick else "Figure 4's")
    if quick:
        text += (f" The quick mode keeps that c although its Figure 4 stops at D = {max(SGD_QUICK_DIMS)}, "
                 "so that a quick run is the start of a full one.")
    return text


SGD_QUICK = Override(params={"epochs": 20}, record={"f1_epochs": [1, 5, 20]}, note=sgd_note(quick=True))
#: Figs 3-4: overfitting is a drop of the test AP after an early peak, beyond seed noise
OVERFIT = {"overfit_drop": 0.01, "no_overfit_drop": 0.002, "early_fraction": 0.6, "noise_se": 2.0}
#: Fig 3 only: the paper's "starts to drop after 5~20 epochs" -- the test AP first rises for a few epochs; a
#: curve that peaks at epoch 1-4 and falls from there is not the paper's (Fig 4's claim is the drop alone)
RISE = {"min_peak_epoch": 5, "rise_min": 0.01, "no_rise": 0.002}


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
        For a folder that is not an ASU data set folder; a
        :class:`~lgekit.datasets.DataFormatError` for a local copy of a
        registered data set that is not the registry's
        (:func:`lgekit.datasets.check_local_copy`).
    """
    if dataset is None:
        dataset = DEFAULT_DATASET
    # only a str may be a registered name: any other path-like is a path
    source = datasets.resolve(dataset if isinstance(dataset, str) else Path(os.fspath(dataset)))
    if source.kind == "registered":
        folder = None if source.embedded else datasets.locate(source.name)
        if folder is not None:
            # the name keys the cells: a copy that is not the registry's is refused here, before a cell is
            # looked up under that name (a missing one is checked when it is downloaded)
            datasets.check_local_copy(source.name, folder)
        kwargs = dict(QUICK_DATASET_KWARGS) if source.name == DEFAULT_DATASET and quick else {}
        return {"name": source.name, "kwargs": kwargs}
    return {"path": str(source.path), "sha256": source.content_sha256()}


def dataset_label(spec):
    """A short human name for a data-set spec (for titles and the report)."""
    if "name" in spec:
        extra = ", ".join(f"{k}={v}" for k, v in sorted(spec.get("kwargs", {}).items()))
        return f"{spec['name']} ({extra})" if extra else spec["name"]
    return Path(spec["path"]).name
