"""The mathematics of Gao et al. (ICLR 2019): spectral norms, Theorem 1, Claim 1, capacity.

* :mod:`lgekit.theory.rademacher` -- the random-sign matrix :math:`A_\\sigma`
  of Theorem 1, Monte Carlo estimates of :math:`E\\|A_\\sigma\\|_2`, the
  theorem's Erdős–Rényi pair model.
* :mod:`lgekit.theory.predictions` -- what the literature predicts for
  :math:`E\\|A_\\sigma\\|_2` (the paper's estimate, Bandeira–van Handel's,
  the sparse regime's) and rigorous upper bounds: formulas, no sampling.
* :mod:`lgekit.theory.sample` -- Theorem 1's training sample of an
  EdgeSplit laid out as :math:`A_\\sigma`: the conventions of an undirected
  sample, the :math:`|U| \\times |V|` matrix of a directed or bipartite one,
  and the :math:`\\mathbb E_\\sigma\\|A_\\sigma\\|_2` the theorem needs.
* :mod:`lgekit.theory.bounds` -- Theorem 1's right-hand side as printed
  (Section 3.1), why each :math:`A_\\sigma` is the right one, the norm
  threshold above which the bound is vacuous, and the measured gap.
* :mod:`lgekit.theory.planted` -- Theorem 1's statistical model with a known
  distribution: the sample size at which the bound becomes non-vacuous.
* :mod:`lgekit.theory.shattering` -- Claim 1 (Section 3.1): a d-regular
  graph's edges are shattered by d-dimensional embeddings; a lower bound on
  the norm needed; the adversarial regular graphs that test a construction.
* :mod:`lgekit.theory.capacity` -- fitting signed pairs (random edge labels)
  with and without a norm penalty.
* :mod:`lgekit.theory.reassembly` -- the same numbers a second time, from the
  paper's statements alone and with no helper of the modules above: what the
  checks' ``assembled-twice-agrees`` claims compare against.

Pure mathematics: nothing here trains an estimator, plots or judges.  The
checks that do -- tables, PASS/FAIL verdicts and figures, run by
``lgekit theory ...`` and ``theory/verify_*.py`` -- are in
:mod:`lgekit.experiments.checks`.
"""
from .rademacher import (
    PairPattern,
    SpectralNormConvergenceWarning,
    SpectralNormEstimate,
    dense_spectral_norm,
    erdos_renyi_pairs,
    expected_spectral_norm,
    rademacher_matrix,
    spectral_norm,
)
from .predictions import (
    bandeira_van_handel_bound,
    bandeira_van_handel_estimate,
    bbk_estimate,
    khintchine_bound,
    paper_estimate,
    sqrt_max_degree_estimate,
)
from .shattering import (
    ShatteringCheck,
    ShatteringError,
    adversarial_regular_graphs,
    check_shattering,
    polish_shattering,
    shattering_embedding,
    shattering_norm_lower_bound,
)
from .sample import (
    CONVENTIONS,
    Theorem1SpectralNorm,
    oriented_training_pairs,
    theorem1_pairs,
    theorem1_pattern,
    theorem1_sample,
    theorem1_spectral_norm,
)
from .bounds import (
    GeneralizationGap,
    Theorem1Bound,
    generalization_gap,
    logistic_loss_bound,
    nonvacuous_norm_threshold,
    norm_constants,
    theorem1_bound,
)
from .planted import PlantedPairDistribution
from .capacity import SignedFit, fit_signed_pairs, random_labelled_regular_graph
# The steps of the functions above, importable here as before (old code and tests import them from
# lgekit.theory) but not listed in __all__: a user calls the functions, not their steps.  Their home is the
# submodule that defines and exports them.
from .sample import ORIENTED, theorem1_sides  # noqa: F401
from .planted import planted_bound_rows, symmetric_sign_sum_norm  # noqa: F401
from .capacity import signed_pair_objective  # noqa: F401

#: what a user calls: the functions, the classes of their results, and the errors and warnings they raise
__all__ = [
    # A_sigma and its spectral norm (rademacher), the predictions it is compared against (predictions)
    "PairPattern",
    "SpectralNormEstimate",
    "SpectralNormConvergenceWarning",
    "rademacher_matrix",
    "spectral_norm",
    "dense_spectral_norm",
    "expected_spectral_norm",
    "erdos_renyi_pairs",
    "paper_estimate",
    "bandeira_van_handel_estimate",
    "sqrt_max_degree_estimate",
    "bbk_estimate",
    "khintchine_bound",
    "bandeira_van_handel_bound",
    # Theorem 1's training sample (sample)
    "CONVENTIONS",
    "Theorem1SpectralNorm",
    "theorem1_sample",
    "theorem1_pattern",
    "theorem1_pairs",
    "oriented_training_pairs",
    "theorem1_spectral_norm",
    # Theorem 1's bound (bounds, planted)
    "GeneralizationGap",
    "Theorem1Bound",
    "generalization_gap",
    "logistic_loss_bound",
    "norm_constants",
    "theorem1_bound",
    "nonvacuous_norm_threshold",
    "PlantedPairDistribution",
    # Claim 1 (shattering) and capacity
    "ShatteringCheck",
    "ShatteringError",
    "check_shattering",
    "shattering_embedding",
    "shattering_norm_lower_bound",
    "polish_shattering",
    "adversarial_regular_graphs",
    "SignedFit",
    "fit_signed_pairs",
    "random_labelled_regular_graph",
]
