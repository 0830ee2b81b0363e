"""The parameter tables of the estimators: one declarative table per estimator, read by the
estimators' ``fit`` (``_parameter_constraints``) and by ``lgekit fit``, which generates its options
from them, so that the command line and the estimators cannot drift apart.

This module imports only :mod:`lgekit._validation` (no NumPy), so the command line can build its
parser without loading the scientific stack.
"""
from numbers import Integral, Real

from ._validation import DTypes, Grid, Interval, Options

__all__ = ["COMMON", "LOGISTIC", "HINGE", "LOGISTIC_CV", "HINGE_CV", "DEFAULTS", "PRESETS"]

#: the parameters every estimator shares (``lgekit.models.BaseEmbedding``)
COMMON = {
    "dim": [Interval(Integral, 1, None, closed="left")],
    "lam_pos": [Interval(Real, 0, None, closed="left")],
    "lam_neg": [Interval(Real, 0, None, closed="left")],
    "lam_r": [Interval(Real, 0, None, closed="left")],
    "epochs": [Interval(Integral, 0, None, closed="left")],
    "init_scale": [Interval(Real, 0, None, closed="left")],
    "dtype": [DTypes("float32", "float64")],
    "n_threads": [Interval(Integral, 1, None, closed="left")],
    "schedule": [Options(str, {"deterministic", "hogwild"})],   # LogisticEmbedding adds "blocks"
    "weighting": [Options(str, {"sample", "scale"})],
    "random_state": ["random_state"],
    "verbose": [Interval(Integral, 0, None, closed="left")],
    "warm_start": ["boolean"],
    # True is "sampled" (the default record); see lgekit.models._diagnostic_sample
    "diagnostics": [Options(str, {"sampled", "exact"}), "boolean"],
    # early stopping on a validation split of the training graph (lgekit.evaluation.validation_split),
    # scikit-learn's names and meanings; validation_tol is scikit-learn's tol (HingeEmbedding's tol is DCD's)
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    "validation_tol": [Interval(Real, 0, None, closed="left")],
}

#: ``lgekit.LogisticEmbedding`` (SGD)
LOGISTIC = {
    **COMMON,
    "lr": [Interval(Real, 0, None, closed="neither")],
    "lr_offset": [Interval(Real, 0, None, closed="neither")],
    "order": [Options(str, {"edge", "vertex"})],
    "negatives": [Options(str, {"fixed", "resample"})],
    # "blocks": the deterministic schedule's vertex-disjoint blocks without its barriers (edge order)
    "schedule": [Options(str, {"deterministic", "hogwild", "blocks"})],
    # the context table's lambda_r (directed / bipartite graphs); None: lam_r
    "lam_r_context": [Interval(Real, 0, None, closed="left"), None],
    # the share of a one-way arc's negatives that are its reverse (directed graphs); None: the directed default
    "reverse_negatives": [Interval(Real, 0, 1, closed="both"), None],
    # node biases on a constant coordinate (two tables, edge order); None: on for a directed graph
    "node_bias": ["boolean", None],
    # the tie between a directed graph's two tables; None: r / (1 - r), r the training arcs' reciprocity.  At
    # 1e12 a proximal step already leaves a 1e-12 share of x'_u - y'_u at the smallest step lr might take
    # (1e-12 * 4 * 1e12 > 1); beyond it, 4 lr_t lam_tie could overflow
    "lam_tie": [Interval(Real, 0, 1e12, closed="both"), None],
}

#: ``lgekit.HingeEmbedding`` (DCD): ``lam_r > 0``, beyond the common ``lam_r >= 0``, because the dual
#: box [0, lam / lam_r] of Eq. 4 needs it (and the context table's box the same of ``lam_r_context``)
HINGE = {
    **COMMON,
    "lam_r": [Interval(Real, 0, None, closed="neither")],
    "inner_passes": [Interval(Integral, 1, None, closed="left")],
    "inner_order": [Options(str, {"fixed", "random"})],
    "monotone": ["boolean"],
    "tol": [Interval(Real, 0, None, closed="left")],
    # the context table's lambda_r (directed / bipartite graphs); None: lam_r
    "lam_r_context": [Interval(Real, 0, None, closed="neither"), None],
}



def _cv_table(table, lam_r):
    """The table of a ``*CV`` estimator over ``table``: a grid of lambda_r in place of lambda_r (each value
    accepted by ``lam_r``), an optional grid of dims, the score, no warm start (a search starts afresh)."""
    out = {name: constraints for name, constraints in table.items() if name not in ("lam_r", "warm_start")}
    out.update({
        "lam_rs": [Grid(lam_r)],
        "dims": [Grid(Interval(Integral, 1, None, closed="left")), None],
        "scoring": [Options(str, ("ap", "micro_f1", "macro_f1"))],
    })
    return out


#: ``lgekit.LogisticEmbeddingCV``: ``lam_rs`` (and ``dims``) searched on a validation split
LOGISTIC_CV = _cv_table(LOGISTIC, LOGISTIC["lam_r"][0])
#: ``lgekit.HingeEmbeddingCV``
HINGE_CV = _cv_table(HINGE, HINGE["lam_r"][0])

#: the estimators' default parameter values, by class name: the one place they are written down (the
#: estimators' signatures must equal them, ``tests/test_defaults.py``), read by ``lgekit fit --help``
#: without importing NumPy.  LogisticEmbedding's ``lam_r = 0.3`` is the best median test AP over
#: BlogCatalog, PPI, Facebook and email-Eu-core in ``benchmarks/bench_defaults.py`` (see
#: ``benchmarks/README.md``); ``lam_r = 0`` overfits as the paper's Figure 3 shows.
DEFAULTS = {
    "LogisticEmbedding": {
        "dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "lam_r": 0.3, "epochs": 50, "lr": 1.0, "lr_offset": 1.0,
        "init_scale": 0.1, "order": "edge", "negatives": "fixed", "weighting": "sample", "dtype": "float32",
        "n_threads": 1, "schedule": "hogwild", "random_state": None, "verbose": 0, "warm_start": False,
        "diagnostics": "sampled", "lam_r_context": None, "reverse_negatives": None, "node_bias": None,
        "lam_tie": None, "early_stopping": False, "validation_fraction": 0.1, "n_iter_no_change": 5,
        "validation_tol": 1e-4,
    },
    "HingeEmbedding": {
        "dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "lam_r": 3.0, "epochs": 20, "inner_passes": 1,
        "inner_order": "fixed", "monotone": True, "weighting": "sample", "init_scale": 0.1, "tol": 1e-3,
        "dtype": "float32", "n_threads": 1, "schedule": "deterministic", "random_state": None, "verbose": 0,
        "warm_start": False, "diagnostics": "sampled", "lam_r_context": None, "early_stopping": False,
        "validation_fraction": 0.1, "n_iter_no_change": 5, "validation_tol": 1e-4,
    },
}


def _cv_defaults(name, lam_rs):
    """A ``*CV`` estimator's defaults: its estimator's, with the grid ``lam_rs`` for lambda_r, no grid of dims,
    link AP as the score, and early stopping on (each candidate stops on the validation pairs and the refit
    runs the best one's epochs)."""
    base = {k: v for k, v in DEFAULTS[name].items() if k not in ("lam_r", "warm_start")}
    return {**base, "lam_rs": lam_rs, "dims": None, "scoring": "ap", "early_stopping": True}


# the grids: around each estimator's default lambda_r, wide enough for the best value on every real graph in
# benchmarks/README.md ("Norms chosen by validation")
DEFAULTS["LogisticEmbeddingCV"] = _cv_defaults("LogisticEmbedding", (0.1, 0.2, 0.3, 0.6, 1.0))
DEFAULTS["HingeEmbeddingCV"] = _cv_defaults("HingeEmbedding", (1.0, 2.0, 3.0, 5.0, 10.0))

#: named parameter sets (``lgekit fit --preset NAME``): each has a description and, per ``--model``, the
#: parameters it sets (the others keep their defaults)
PRESETS = {
    "paper": {
        "description": "the paper's settings, as lgekit reproduce runs them (D = 100, lam_pos = 1, lam_neg = "
                       "0.03): for logistic, SGD unregularised, lam_r = 0, the end of Figures 1-3 that overfits "
                       "(step (t + 9)^-1/2, 50 epochs); for hinge, DCD at lam_r = 3, the regularised setting of "
                       "Figure 6 (20 epochs): DCD needs lam_r > 0, its dual box being [0, lam / lam_r] (Eq. 4), "
                       "and Figure 5 shows it very bad near 0",
        "params": {
            "logistic": {"dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "lam_r": 0.0, "epochs": 50, "lr": 1.0,
                         "lr_offset": 9.0, "init_scale": 0.1},
            "hinge": {"dim": 100, "lam_pos": 1.0, "lam_neg": 0.03, "lam_r": 3.0, "epochs": 20},
        },
    },
}
