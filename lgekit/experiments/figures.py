"""The six figures: each one's module, and what the report reads from them.

Figure N is :mod:`lgekit.experiments.figureN` (``figure1`` ... ``figure6``):
its spec (``SPEC``, a :class:`~lgekit.experiments.spec.FigureSpec`), the claim
of the paper it is judged on (``CLAIM``, a
:class:`~lgekit.experiments.verdict.Claim`), the rule that judges it and its
plot, in one file.  This module gathers them by figure name
(:data:`FIGURES`) and by claim (:data:`RULES`), and draws and judges a figure
by name.
"""
from . import figure1, figure2, figure3, figure4, figure5, figure6
from .figure1 import norms_grow_slowing
from .figure2 import gradients_vanish
from .figure3 import small_lam_r_overfits
from .figure4 import lam0_overfits_every_dim
from .figure5 import dcd_poor_near_zero
from .figure6 import dcd_insensitive_to_dim
from .verdict import CLAIMS, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

__all__ = [
    "FIGURES", "CLAIMS", "RULES", "MODULES", "judge", "plot_figure", "REPRODUCED", "NOT_REPRODUCED", "INCONCLUSIVE",
    "norms_grow_slowing", "gradients_vanish", "small_lam_r_overfits", "lam0_overfits_every_dim",
    "dcd_poor_near_zero", "dcd_insensitive_to_dim",
]

#: figure name -> its module
MODULES = {module.SPEC.name: module for module in (figure1, figure2, figure3, figure4, figure5, figure6)}
#: figure name -> its spec (the full settings; :func:`lgekit.experiments.plan.effective_spec` applies quick mode)
FIGURES = {name: module.SPEC for name, module in MODULES.items()}
#: claim name -> its rule, ``rule(runs, thresholds=None) -> Verdict``
RULES = {
    "norms_grow_slowing": norms_grow_slowing, "gradients_vanish": gradients_vanish,
    "small_lam_r_overfits": small_lam_r_overfits, "lam0_overfits_every_dim": lam0_overfits_every_dim,
    "dcd_poor_near_zero": dcd_poor_near_zero, "dcd_insensitive_to_dim": dcd_insensitive_to_dim,
}


def judge(claim, runs, thresholds=None):
    """Apply the rule of ``claim`` to ``runs``.

    Parameters
    ----------
    claim : str
        A key of :data:`RULES`.
    runs : list of dict
        See :func:`lgekit.experiments.aggregate.runs_for_figure`.
    thresholds : dict, optional
        The figure spec's thresholds (default: those of :data:`FIGURES`);
        entries for other claims of the same figure are ignored.

    Returns
    -------
    Verdict
    """
    return RULES[claim](runs, thresholds)


def plot_figure(name, runs, spec, subtitle=""):
    """Draw figure ``name`` from ``runs``.

    Parameters
    ----------
    name : str
        ``"fig1"`` ... ``"fig6"``.
    runs : list of dict
        See :func:`lgekit.experiments.aggregate.runs_for_figure`.
    spec : FigureSpec
        The figure's effective spec (title, fixed parameters, thresholds).
    subtitle : str, default ""
        Printed under the title: the data set and the mode.

    Returns
    -------
    (matplotlib.figure.Figure, dict)
        The figure and the description of what was drawn.
    """
    fig, drawn = MODULES[name].plot(runs, spec, subtitle)
    drawn["figure"] = name
    drawn["title"] = spec.title
    drawn["subtitle"] = subtitle
    return fig, drawn
