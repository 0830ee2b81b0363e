"""The diagnostic sample: which vertices and pairs an epoch's sampled diagnostics read, and the estimates.

An exact record of the objective and of the mean Eq. 2 gradient norm reads every training pair from both
ends, which costs about as much as the epoch it describes.  The sampled record (the estimators' default,
``diagnostics="sampled"``) reads a simple random sample instead, drawn without replacement from its own
stream of the solver's seed (so it never changes what the epochs draw, and one seed gives one record):

* the objective's loss parts from a sample of pairs: a total over N pairs is estimated by N times the
  sample mean, which is unbiased, with the standard error of simple random sampling
  ``N s / sqrt(k) * sqrt(1 - k / N)`` (s the sample's standard deviation, k its size; the last factor, the
  finite-population correction, makes the error 0 when the sample is the whole population);
* the mean gradient norm from a sample of vertices, each vertex's gradient computed exactly over all its
  pairs (a norm of a sum has no unbiased estimate from a sample of its terms): the sample mean, unbiased,
  with the same standard error divided by N;
* the regulariser and the mean norm exactly: they cost one pass over the n rows, not over the pairs.

The sample sizes are :data:`PAIR_FRACTION` of the pairs and :data:`VERTEX_FRACTION` of the vertices, at
least :data:`MIN_PAIRS` and :data:`MIN_VERTICES` (all of them on a small graph, where the record is then
exact).  The vertex sample dominates the cost: its gradients read about ``VERTEX_FRACTION`` of the pairs
twice, against the epoch's three vector operations a pair (``benchmarks/bench_diagnostics.py`` measures it).
"""
import math

import numpy as np

__all__ = ["DIAGNOSTICS", "diagnostics_mode", "sample_indices", "sample_size", "sample_rng", "total_estimate",
           "mean_estimate", "PAIR_FRACTION", "VERTEX_FRACTION", "MIN_PAIRS", "MIN_VERTICES"]

#: what the estimators' ``diagnostics`` parameter takes besides a bool (True is "sampled")
DIAGNOSTICS = ("sampled", "exact")

PAIR_FRACTION = 0.05
VERTEX_FRACTION = 0.04
MIN_PAIRS = 4096
MIN_VERTICES = 256

# the diagnostic sample's stream of the solver's seed: a constant apart from the epochs' streams
_STREAM = 0x6469_6167


def diagnostics_mode(diagnostics):
    """``"sampled"``, ``"exact"`` or None (no diagnostics) for the estimators' ``diagnostics`` value."""
    if isinstance(diagnostics, str):
        if diagnostics not in DIAGNOSTICS:
            raise ValueError(f"diagnostics must be one of {DIAGNOSTICS} or a bool, got {diagnostics!r}")
        return diagnostics
    return "sampled" if diagnostics else None


def sample_size(population, fraction, minimum):
    """``max(minimum, ceil(fraction * population))``, at most the population."""
    return int(min(population, max(minimum, math.ceil(fraction * population))))


def sample_rng(seed, epoch):
    """The diagnostic sample's generator for epoch ``epoch`` of a solver seeded with ``seed``."""
    return np.random.default_rng([int(seed) % 2**64, int(epoch), _STREAM])


def sample_indices(population, size, rng):
    """``size`` distinct indices of ``range(population)``, sorted (rows read in memory order), drawn
    uniformly without replacement; every index when ``size >= population``."""
    if size >= population:
        return np.arange(population, dtype=np.int64)
    return np.sort(rng.choice(population, size=size, replace=False, shuffle=False)).astype(np.int64)


def mean_estimate(values, population):
    """(mean, standard error) of a population's mean from a simple random sample ``values`` of it."""
    values = np.asarray(values, dtype=np.float64)
    k = len(values)
    if k == 0:
        return 0.0, 0.0
    mean = float(values.mean())
    if k >= population or k < 2:
        return mean, 0.0
    se = float(values.std(ddof=1)) / math.sqrt(k) * math.sqrt(1.0 - k / population)
    return mean, se


def total_estimate(values, population):
    """(total, standard error) of a population's total from a simple random sample ``values`` of it."""
    mean, se = mean_estimate(values, population)
    return population * mean, population * se
