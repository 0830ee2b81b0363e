"""Divergence: when a fit has gone wrong, and the error that ends it.

After every epoch the estimator checks the record (:func:`divergence_reason`);
the first check that fires ends the run with :class:`DivergenceError`, whose
message names the parameter to change when the cause is clear.
"""
import math

import numpy as np

__all__ = ["DivergenceError", "divergence_reason", "MAX_MEAN_NORM", "OBJECTIVE_FACTOR", "NORM_GROWTH",
           "NORM_GROWTH_ALONE", "GROWTH_EPOCHS"]

# The default thresholds of the checks, written once: the estimators' ``divergence_*`` class attributes take
# them, and the user guide prints them from there ("When a fit diverges").
#: a mean row norm above this is divergence (``divergence_max_mean_norm``)
MAX_MEAN_NORM = 1e8
#: an objective above this many times its reference is divergence (``divergence_objective_factor``)
OBJECTIVE_FACTOR = 10.0
#: a mean norm growing at least this much per epoch while the objective rises (``divergence_norm_growth``)
NORM_GROWTH = 1.5
#: ... or this much per epoch, without objectives in the records (``divergence_norm_growth_alone``)
NORM_GROWTH_ALONE = 2.0
#: for this many epochs in a row (``divergence_growth_epochs``)
GROWTH_EPOCHS = 3


class DivergenceError(FloatingPointError):
    """Training produced non-finite values, exploding norms or a blown-up objective.

    Attributes
    ----------
    epoch : int
        The epoch (0-based index ``t``) at which divergence was detected.
    history : list of dict
        The history records so far; the last one has ``"diverged": True``
        and ``"divergence_reason"``.  The estimator keeps them as
        ``history_`` too, so a parameter sweep can mark the run as diverged
        instead of crashing.
    reason : str or None
        Which check fired (the :ref:`User Guide <guide-estimators-divergence>`
        says what each means).
    parameter : str or None
        The parameter the advice names (``"lr"``, ``"lam_r"``,
        ``"init_scale"``), when the cause is clear.
    """

    def __init__(self, message, epoch=None, history=None, reason=None, parameter=None):
        super().__init__(message)
        self.epoch = epoch
        self.history = [] if history is None else history
        self.reason = reason
        self.parameter = parameter


def divergence_reason(record, history, *, max_mean_norm, objective_factor, reference, norm_growth,
                      norm_growth_alone, growth_epochs):
    """Which divergence check the epoch ``record`` (not yet in ``history``) fails, in words, or None.

    The checks, in order (a threshold of None disables its check): a
    non-finite objective, loss part or mean norm (or ``record["diverged"]``);
    a mean norm above ``max_mean_norm``; an objective above
    ``objective_factor`` times ``reference``; a mean norm that grew by at
    least ``norm_growth`` in each of the last ``growth_epochs`` epochs while
    the objective rose in each, or, without objectives in the records, by
    ``norm_growth_alone``.  See "When a fit diverges" in the
    :ref:`User Guide <guide-estimators-divergence>`.
    """
    keys = ("objective", "loss_pos", "loss_neg", "reg", "mean_norm")
    bad = [k for k in keys if record.get(k) is not None and not np.isfinite(record[k])]
    if record.get("diverged") or bad:
        return f"non-finite values ({', '.join(bad) or 'in the embedding'})"
    norm, objective = record["mean_norm"], record.get("objective")
    limit = max_mean_norm
    if limit is not None and norm > limit:
        return f"the mean norm {norm:.3g} exceeds divergence_max_mean_norm={limit:g}"
    factor, ref = objective_factor, reference
    if factor is not None and ref and objective is not None and objective > factor * ref:
        return (f"the objective {objective:.4g} is more than {factor:g}x its reference {ref:.4g} (the larger "
                "of the objectives of the starting and of the all-zero embedding)")
    k = growth_epochs
    recent = history[len(history) - k:] + [record] if k and len(history) >= k else []
    if recent and all(r.get("mean_norm") is not None for r in recent):
        norms = [r["mean_norm"] for r in recent]
        growth = min(b / a if a > 0 else math.inf for a, b in zip(norms, norms[1:]))
        objectives = [r.get("objective") for r in recent]
        shown = " -> ".join(f"{v:.3g}" for v in norms)
        if all(v is not None for v in objectives):
            rate = norm_growth
            if rate is not None and growth >= rate and all(b > a for a, b in zip(objectives, objectives[1:])):
                return (f"the mean norm grew at least {rate:g}x per epoch for {k} epochs ({shown}) while the "
                        f"objective rose ({' -> '.join(f'{v:.4g}' for v in objectives)})")
        elif norm_growth_alone is not None and growth >= norm_growth_alone:
            return (f"the mean norm grew at least {norm_growth_alone:g}x per epoch for {k} "
                    f"epochs ({shown})")
    return None
