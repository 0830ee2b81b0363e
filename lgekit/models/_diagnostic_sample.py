"""The diagnostic sample: which vertices and pairs an epoch's sampled diagnostics read, and the estimates.

An exact record of the objective and of the mean Eq. 2 gradient norm reads every training pair from both
ends, which costs about as much as the epoch it describes.  The sampled record (the estimators' default,
``diagnostics="sampled"``) reads a random sample instead (:func:`sample_indices`), drawn from its own
stream of the solver's seed (so it never changes what the epochs draw, and one seed gives one record):

* the objective's loss parts from a sample of the pairs: a total over N pairs is estimated by N times the
  sample mean, which is unbiased, with the standard error of simple random sampling
  ``N s / sqrt(k) * sqrt(1 - k / N)`` (s the sample's standard deviation, k its size; the last factor, the
  finite-population correction, makes the error 0 when the sample is the whole population);
* the mean gradient norm from a sample of vertices, each vertex's gradient computed exactly over all its
  pairs (a norm of a sum has no unbiased estimate from a sample of its terms): the sample mean, unbiased,
  with the same standard error divided by N;
* the regulariser and the mean norm exactly: they cost one pass over the n rows, not over the pairs;
* DCD's block certificates (duality gap, largest projected gradient) from a sample of vertices, computed
  at their visits during the epoch (they cost a pass over a vertex's pairs there): the sample mean of the
  gaps, unbiased, and the largest violation in the sample.

The standard error of an estimate depends on the sample's size, not on the population's, so the pair
samples have a fixed expected size: :data:`PAIR_SAMPLE` pairs for each of the logistic objective's two
loss parts, :data:`DCD_PAIR_SAMPLE` pairs for the hinge objective (one sample for both parts; its epoch
costs about three of SGD's).  The gradient norms need a share of the vertices, :data:`VERTEX_FRACTION`
(at least :data:`MIN_VERTICES`), since each vertex's gradient is a sum over its own pairs.  A population
no larger than its sample is read whole, and the record is then exact (standard errors 0).
``benchmarks/bench_diagnostics.py`` measures what the sampled record costs against the epoch.
"""
import math

import numpy as np

__all__ = ["diagnostics_mode", "sample_indices", "sample_rng", "total_estimate",
           "mean_estimate", "PAIR_SAMPLE", "DCD_PAIR_SAMPLE", "VERTEX_FRACTION", "MIN_VERTICES"]

PAIR_SAMPLE = 8192
DCD_PAIR_SAMPLE = 65536
VERTEX_FRACTION = 0.02
MIN_VERTICES = 256

# the diagnostic sample's stream of the solver's seed: a constant apart from the epochs' streams
_STREAM = 0x6469_6167


def diagnostics_mode(diagnostics):
    """``"sampled"``, ``"exact"`` or None (no diagnostics) for the estimators' ``diagnostics`` value.

    The value is one the parameter table (``lgekit._parameters``: ``"sampled"``, ``"exact"`` or a bool) has
    accepted; a bad one is refused there, by ``fit``, naming the parameter and what it accepts.
    """
    if isinstance(diagnostics, str):
        return diagnostics
    return "sampled" if diagnostics else None


def sample_rng(seed, epoch, part=0):
    """The diagnostic sample's generator for epoch ``epoch`` of a solver seeded with ``seed``; ``part`` > 0
    gives independent generators for samples drawn at other moments (DCD's certified vertices, drawn
    before the epoch runs)."""
    return np.random.default_rng([int(seed) % 2**64, int(epoch), _STREAM] + ([int(part)] if part else []))


def sample_indices(population, fraction, minimum, rng):
    """A simple random sample of ``range(population)``, sorted: about ``max(fraction * population,
    minimum)`` indices, every index when that is the whole population.

    Each index is taken independently with that probability p (a Bernoulli sample, drawn as the running
    sums of geometric gaps: time and memory O(p N), no pass over the population and no permutation of
    it).  Given its size k, such a sample is a uniformly random k-subset, so the simple-random-sampling
    estimates below, taken with the size drawn, are unbiased.
    """
    p = min(1.0, max(float(fraction), minimum / population if population else 1.0))
    if p >= 1.0:
        return np.arange(population, dtype=np.int64)
    if p <= 0.0:
        return np.zeros(0, dtype=np.int64)
    expected = p * population
    chunks, last = [], -1
    while last < population - 1:
        # a gap past the population ends the sample: clipped there, the running sums cannot overflow
        gaps = np.minimum(rng.geometric(p, size=int(expected + 6 * math.sqrt(expected) + 16)), population)
        idx = last + np.cumsum(gaps, dtype=np.int64)
        chunks.append(idx)
        last = int(idx[-1])
    idx = np.concatenate(chunks)
    return idx[:np.searchsorted(idx, population)]


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
