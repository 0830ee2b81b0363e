# cython: language_level=3
"""Inline helpers shared by every lgekit kernel: the RNG, BLAS-1 loops and a
numerically safe sigmoid / log-sigmoid.  Nothing here touches Python objects,
so all of it is usable inside ``nogil`` blocks.

RNG: SplitMix64 (Steele, Lea & Flood, OOPSLA 2014).  One 64-bit word of state,
passes BigCrush, and streams for threads/blocks are derived by
``rng_stream(seed, k)``, which makes deterministic parallel schedules easy: a
block's randomness depends on its index, never on which thread ran it.
"""
from libc.stdint cimport uint64_t, uint32_t
from libc.math cimport exp, log1p, fabs

ctypedef fused floating:
    float
    double


cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    """Advance a SplitMix64 state and return 64 random bits."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t rng_stream(uint64_t seed, uint64_t k) noexcept nogil:
    """Initial state of the k-th independent stream derived from ``seed``."""
    cdef uint64_t s = seed ^ (k * <uint64_t>0xD1B54A32D192ED03ULL)
    return rng_next(&s)


cdef inline double rng_uniform(uint64_t* state) noexcept nogil:
    """Uniform double in [0, 1) from the top 53 bits."""
    return (rng_next(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline uint64_t rng_below(uint64_t* state, uint64_t n) noexcept nogil:
    """Uniform integer in [0, n) for n < 2**32 (multiply-shift, bias < n / 2**32)."""
    return ((rng_next(state) >> 32) * n) >> 32


cdef inline floating dot(const floating* x, const floating* y, Py_ssize_t n) noexcept nogil:
    """x . y with four independent partial sums, so the compiler can keep
    several SIMD lanes busy without -ffast-math (the summation order is fixed,
    hence results are reproducible)."""
    cdef floating s0 = 0, s1 = 0, s2 = 0, s3 = 0
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        s0 += x[i] * y[i]
        s1 += x[i + 1] * y[i + 1]
        s2 += x[i + 2] * y[i + 2]
        s3 += x[i + 3] * y[i + 3]
        i += 4
    while i < n:
        s0 += x[i] * y[i]
        i += 1
    return (s0 + s1) + (s2 + s3)


cdef inline void axpy(floating a, const floating* x, floating* y, Py_ssize_t n) noexcept nogil:
    """y += a * x."""
    cdef Py_ssize_t i
    for i in range(n):
        y[i] += a * x[i]


cdef inline void scal(floating a, floating* x, Py_ssize_t n) noexcept nogil:
    """x *= a."""
    cdef Py_ssize_t i
    for i in range(n):
        x[i] *= a


cdef inline double sigmoid(double z) noexcept nogil:
    """1 / (1 + exp(-z)) without overflow for any finite z."""
    cdef double e
    if z >= 0:
        return 1.0 / (1.0 + exp(-z))
    e = exp(z)
    return e / (1.0 + e)


cdef inline double log_sigmoid(double z) noexcept nogil:
    """log(sigmoid(z)) = -log1p(exp(-z)), exact for large |z| of either sign."""
    if z >= 0:
        return -log1p(exp(-z))
    return z - log1p(exp(z))
