"""Computational checks of the theory of Gao et al. (ICLR 2019).

* :mod:`lgekit.theory.rademacher` -- the random-sign matrix :math:`A_\\sigma`
  of Theorem 1, Monte Carlo estimates of :math:`E\\|A_\\sigma\\|_2`, the
  theorem's Erdős–Rényi pair model and the predictions to compare with.
* :mod:`lgekit.theory.bounds` -- Theorem 1's right-hand side, its inputs
  (:math:`C_U, C_V, B`) from an embedding, and the measured generalization gap.
* :mod:`lgekit.theory.shattering` -- Claim 1: a d-regular graph's edges are
  shattered by d-dimensional embeddings; a lower bound on the norm needed.
* :mod:`lgekit.theory.capacity` -- fitting random edge labels with and without
  a norm penalty.

Each module has a ``verify_*`` function returning a :class:`TheoryReport`
(tables, PASS/FAIL claims and a figure); the ``theory/verify_*.py`` scripts
and ``lgekit theory ...`` print and save those reports.
"""
from ._report import Claim, TheoryReport, format_table
from .rademacher import (
    PairPattern,
    SpectralNormEstimate,
    bandeira_van_handel_estimate,
    bbk_estimate,
    erdos_renyi_pairs,
    expected_spectral_norm,
    khintchine_bound,
    paper_estimate,
    rademacher_matrix,
    spectral_norm,
    sqrt_max_degree_estimate,
)
from .shattering import (
    ShatteringCheck,
    ShatteringError,
    check_shattering,
    shattering_embedding,
    shattering_norm_lower_bound,
)
from .shattering import polish_shattering
from .bounds import (
    GeneralizationGap,
    Theorem1Bound,
    generalization_gap,
    logistic_loss_bound,
    norm_constants,
    theorem1_bound,
    training_sample_pairs,
)
from .capacity import SignedFit, fit_signed_pairs, random_labelled_regular_graph, signed_pair_objective
from .reports import (
    VERIFIERS,
    fit_log_trend,
    run_verifier,
    verify_bound,
    verify_capacity,
    verify_rademacher,
    verify_shattering,
)

__all__ = [
    "Claim",
    "TheoryReport",
    "format_table",
    "PairPattern",
    "SpectralNormEstimate",
    "bandeira_van_handel_estimate",
    "bbk_estimate",
    "erdos_renyi_pairs",
    "expected_spectral_norm",
    "khintchine_bound",
    "paper_estimate",
    "rademacher_matrix",
    "spectral_norm",
    "sqrt_max_degree_estimate",
    "ShatteringCheck",
    "ShatteringError",
    "check_shattering",
    "shattering_embedding",
    "shattering_norm_lower_bound",
    "GeneralizationGap",
    "Theorem1Bound",
    "generalization_gap",
    "logistic_loss_bound",
    "norm_constants",
    "theorem1_bound",
    "training_sample_pairs",
    "VERIFIERS",
    "fit_log_trend",
    "run_verifier",
    "verify_bound",
    "verify_capacity",
    "verify_rademacher",
    "verify_shattering",
    "SignedFit",
    "fit_signed_pairs",
    "random_labelled_regular_graph",
    "signed_pair_objective",
    "polish_shattering",
]
