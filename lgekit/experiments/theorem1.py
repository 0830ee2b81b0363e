r"""Theorem 1 on trained embeddings: the one :math:`\lambda_r` sweep of the bound and directed checks.

For each :math:`\lambda_r` of a grid, :func:`fit_across_lam_r` trains
:class:`~lgekit.models.LogisticEmbedding` on a split and measures what
Theorem 1 (Gao et al., ICLR 2019, Section 3.1) speaks of: the norm budgets
:math:`C_U, C_V` (:func:`lgekit.theory.norm_constants`; two tables for a
directed or bipartite graph, one otherwise), the clipped training and held-out
losses (:func:`lgekit.theory.generalization_gap`) and the bound's right-hand
side (:func:`lgekit.theory.theorem1_bound`).  ``lgekit theory bound`` and
``lgekit theory directed`` build their tables from these measurements, and
judge what the penalty does along the grid with :func:`penalty_claims`.
"""
import dataclasses
import logging
import time

from ..models import DivergenceError, LogisticEmbedding
from ..theory import generalization_gap, norm_constants, theorem1_bound
from .verdict import Verdict

__all__ = ["Theorem1Fit", "fit_across_lam_r", "penalty_claims"]

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class Theorem1Fit:
    """One :math:`\\lambda_r` of the sweep.

    Attributes
    ----------
    lam_r : float
    model : LogisticEmbedding or None
        ``None`` when the fit diverged (then every measurement is ``None``).
    C_U, C_V : float
        Total squared norms of the two tables (equal for one table).
    gap : lgekit.theory.GeneralizationGap
    bound : lgekit.theory.Theorem1Bound
    started : float
        ``time.perf_counter()`` when the fit began: a caller that measures
        more (e.g. an AP) reports the whole time with :meth:`seconds`.
    """

    lam_r: float
    model: object = None
    C_U: float = None
    C_V: float = None
    gap: object = None
    bound: object = None
    started: float = 0.0

    def seconds(self):
        """Seconds since the fit began."""
        return time.perf_counter() - self.started


def fit_across_lam_r(split, lam_rs, *, spectral, B, delta, dim, epochs, lam_pos, lam_neg, lr_offset, seed,
                     n_threads=1, label=""):
    r"""Train at each :math:`\lambda_r` and measure Theorem 1's terms; yields one :class:`Theorem1Fit` each.

    Parameters
    ----------
    split : lgekit.EdgeSplit
    lam_rs : sequence of float
    spectral : float
        :math:`\mathbb E\|A_\sigma\|_2` as it enters the theorem (its scale applied).
    B, delta : float
        The loss's clip and the confidence of the bound.
    dim, epochs, lam_pos, lam_neg, lr_offset, n_threads
        :class:`~lgekit.models.LogisticEmbedding`'s parameters.
    seed : int
        Its ``random_state``: the same at every :math:`\lambda_r`, so that the
        fits differ by the penalty alone.
    label : str
        Names the graph in the warning of a diverged fit.

    Yields
    ------
    Theorem1Fit
        A diverged fit (:class:`lgekit.DivergenceError`) is logged and yielded
        with ``model=None``; the sweep goes on.
    """
    m = int(len(split.train_positives) + len(split.train_negatives))
    for lam in lam_rs:
        model = LogisticEmbedding(dim=dim, lam_pos=lam_pos, lam_neg=lam_neg, lam_r=float(lam), epochs=epochs,
                                  lr_offset=lr_offset, random_state=seed, n_threads=n_threads)
        started = time.perf_counter()
        try:
            model.fit(split)
        except DivergenceError as exc:
            logger.warning("%s, lam_r=%g diverged at epoch %s", label, lam, exc.epoch)
            yield Theorem1Fit(float(lam), started=started)
            continue
        C_U, C_V = norm_constants(model)
        gap = generalization_gap(model, split, B=B)
        bound = theorem1_bound(gap.train_loss, m, spectral, C_U, C_V, B, delta=delta)
        yield Theorem1Fit(float(lam), model, C_U, C_V, gap, bound, started)


def penalty_claims(rows, suffix=""):
    r"""What the penalty does along the :math:`\lambda_r` grid, judged from one graph's rows.

    Parameters
    ----------
    rows : list of dict
        One per :math:`\lambda_r`, in grid order, of the fits that did not
        diverge: ``"lam_r"``, ``"bound"``, ``"complexity"``, ``"gap"``,
        ``"trivial loss"`` (the bound is vacuous at or above it, as
        :meth:`lgekit.theory.Theorem1Bound.is_vacuous` says).
    suffix : str, default ""
        Appended to each claim's name (``"[email-eu-core]"``).

    Returns
    -------
    dict
        ``"vacuous"``: the bound at :math:`\lambda_r = 0` is at or above the
        zero embedding's loss (``vacuous-without-regularization``);
        ``"complexity"``: the complexity term falls strictly along the grid
        (``complexity-falls-with-lam_r``); ``"gap"``: the measured gap at the
        largest :math:`\lambda_r` is below that at 0 (``gap-shrinks-with-lam_r``).
        Each a PASS/FAIL :class:`~lgekit.experiments.verdict.Verdict`.
    """
    r0 = next((r for r in rows if r["lam_r"] == 0), None)
    vacuous = Verdict.check(
        f"vacuous-without-regularization{suffix}", r0 is not None and r0["bound"] >= r0["trivial loss"],
        f"lam_r=0: bound {r0['bound']:.3f} (complexity {r0['complexity']:.3f}) vs trivial loss "
        f"{r0['trivial loss']:.3f}" if r0 else "lam_r=0 missing or diverged")
    comp = [r["complexity"] for r in rows]
    complexity = Verdict.check(
        f"complexity-falls-with-lam_r{suffix}", len(comp) >= 2 and all(b < a for a, b in zip(comp, comp[1:])),
        "complexity along lam_r: " + ", ".join(f"{r['lam_r']:g}: {r['complexity']:.3g}" for r in rows))
    if r0 is not None and len(rows) >= 2:
        gap = Verdict.check(f"gap-shrinks-with-lam_r{suffix}", rows[-1]["gap"] < r0["gap"],
                            f"measured gap lam_r=0: {r0['gap']:.4f}, lam_r={rows[-1]['lam_r']:g}: "
                            f"{rows[-1]['gap']:.4f}")
    else:
        gap = Verdict.check(f"gap-shrinks-with-lam_r{suffix}", False, "lam_r=0 or a second lam_r missing or diverged")
    return {"vacuous": vacuous, "complexity": complexity, "gap": gap}
