"""The parameter tables of the estimators: one declarative table per estimator, read by the
estimators' ``fit`` (``_parameter_constraints``) and by ``lgekit fit``, which generates its options
from them, so that the command line and the estimators cannot drift apart.

This module imports only :mod:`lgekit._validation` (no NumPy), so the command line can build its
parser without loading the scientific stack.
"""
from numbers import Integral, Real

from ._validation import DTypes, Interval, Options

__all__ = ["COMMON", "LOGISTIC", "HINGE"]

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
    "schedule": [Options(str, {"deterministic", "hogwild"})],
    "weighting": [Options(str, {"sample", "scale"})],
    "random_state": ["random_state"],
    "verbose": [Interval(Integral, 0, None, closed="left")],
    "warm_start": ["boolean"],
}

#: ``lgekit.LogisticEmbedding`` (SGD)
LOGISTIC = {
    **COMMON,
    "lr": [Interval(Real, 0, None, closed="neither")],
    "lr_offset": [Interval(Real, 0, None, closed="neither")],
    "order": [Options(str, {"edge", "vertex"})],
    "negatives": [Options(str, {"fixed", "resample"})],
    "diagnostics": ["boolean"],
    # the context table's lambda_r (directed / bipartite graphs); None: lam_r
    "lam_r_context": [Interval(Real, 0, None, closed="left"), None],
}

#: ``lgekit.HingeEmbedding`` (DCD); its ``lam_r > 0`` is checked by the estimator (the dual box
#: [0, lam / lam_r] of Eq. 4 needs it), beyond the common ``lam_r >= 0``
HINGE = {
    **COMMON,
    "inner_passes": [Interval(Integral, 1, None, closed="left")],
    "inner_order": [Options(str, {"fixed", "random"})],
    "monotone": ["boolean"],
    "tol": [Interval(Real, 0, None, closed="left")],
    # accepted for symmetry with LOGISTIC; HingeEmbedding takes only None or lam_r (checked by the estimator)
    "lam_r_context": [Interval(Real, 0, None, closed="left"), None],
}
