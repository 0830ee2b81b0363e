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
