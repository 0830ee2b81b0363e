"""The Python twin of lgekit/_common.pxd's SplitMix64 RNG (Steele, Lea & Flood 2014), for tests that
replay a kernel's random choices.  Import as ``from splitmix import SplitMix64`` (see strategies.py)."""

MASK = (1 << 64) - 1


class SplitMix64:
    """``SplitMix64(seed, k)`` is the kernels' ``rng_stream(seed, k)``; ``next`` is ``rng_next``."""

    def __init__(self, seed, stream):
        s = (seed ^ ((stream * 0xD1B54A32D192ED03) & MASK)) & MASK
        self.state = s
        self.state = self.next()          # rng_stream returns rng_next(&s)

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        """``rng_below``: an integer in [0, n) by multiply-shift."""
        return ((self.next() >> 32) * n) >> 32


def fisher_yates(rng, n):
    """``fisher_yates`` of _schedules.pxd on ``range(n)`` from ``rng`` (a :class:`SplitMix64`): steps i = 1, 2, ...
    swap a[i] with a[j], j uniform in [0, i], two steps from one draw's two halves (``rng_below2``), a last
    odd step from its high half (``rng_below``)."""
    a = list(range(n))
    i = 1
    while i + 1 < n:
        z = rng.next()
        j0 = ((z >> 32) * (i + 1)) >> 32
        j1 = ((z & 0xFFFFFFFF) * (i + 2)) >> 32
        a[i], a[j0] = a[j0], a[i]
        a[i + 1], a[j1] = a[j1], a[i + 1]
        i += 2
    if i < n:
        j = rng.below(i + 1)
        a[i], a[j] = a[j], a[i]
    return a
