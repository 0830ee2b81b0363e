# cython: language_level=3
"""Inline helpers shared by every lgekit kernel: the RNG, BLAS-1 loops, a
numerically safe sigmoid / log-sigmoid, and the status an epoch returns.
Nothing here touches Python objects, so all of it is usable inside ``nogil``
blocks.

RNG: SplitMix64 (Steele, Lea & Flood, OOPSLA 2014).  One 64-bit word of state,
passes BigCrush, and streams for threads/blocks are derived by
``rng_stream(seed, k)``, which makes deterministic parallel schedules easy: a
block's randomness depends on its index, never on which thread ran it.
"""
from libc.stdint cimport uint64_t, uint32_t
from libc.math cimport exp, log1p, fabs, fmin
from lgekit._intrinsics cimport LGK_AVX2_DOT, lgk_dotf_avx2

ctypedef fused floating:
    float
    double


cdef enum EpochStatus:
    # What a training kernel's epoch returns; ``lgekit.models.EpochStatus`` is its Python mirror (the kernels
    # export the values as ``EPOCH_STATUS``, and tests/test_kernel_contracts.py checks that the two agree).
    EPOCH_OK = 0                # the epoch ran to its end
    EPOCH_NONFINITE = 1         # a score was not finite: the epoch stopped before the update that met it
    EPOCH_OUT_OF_MEMORY = 2     # the epoch's work space could not be allocated: nothing was updated


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


cdef inline void rng_below2(uint64_t* state, uint64_t n0, uint64_t n1, uint64_t* j0, uint64_t* j1) noexcept nogil:
    """Two uniform integers, in [0, n0) and [0, n1) (n0, n1 < 2**32), from ONE 64-bit draw: its
    high and low halves, each by multiply-shift as in rng_below (SplitMix64's output bits are all
    equally good).  Half the generator's work in the shuffles' inner loops."""
    cdef uint64_t z = rng_next(state)
    j0[0] = ((z >> 32) * n0) >> 32
    j1[0] = ((z & <uint64_t>0xFFFFFFFFULL) * n1) >> 32


cdef inline floating dot(const floating* x, const floating* y, Py_ssize_t n) noexcept nogil:
    """x . y with 16 fixed partial sums (four SSE / two AVX registers of floats): the
    additions no longer wait on each other's latency, without -ffast-math, and the
    summation order is fixed, so results are reproducible."""
    if floating is float:
        if LGK_AVX2_DOT:
            return lgk_dotf_avx2(x, y, n)
    cdef floating s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0
    cdef floating s8 = 0, s9 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s14 = 0, s15 = 0
    cdef Py_ssize_t i = 0
    while i + 16 <= n:
        s0 += x[i] * y[i]
        s1 += x[i + 1] * y[i + 1]
        s2 += x[i + 2] * y[i + 2]
        s3 += x[i + 3] * y[i + 3]
        s4 += x[i + 4] * y[i + 4]
        s5 += x[i + 5] * y[i + 5]
        s6 += x[i + 6] * y[i + 6]
        s7 += x[i + 7] * y[i + 7]
        s8 += x[i + 8] * y[i + 8]
        s9 += x[i + 9] * y[i + 9]
        s10 += x[i + 10] * y[i + 10]
        s11 += x[i + 11] * y[i + 11]
        s12 += x[i + 12] * y[i + 12]
        s13 += x[i + 13] * y[i + 13]
        s14 += x[i + 14] * y[i + 14]
        s15 += x[i + 15] * y[i + 15]
        i += 16
    while i + 4 <= n:
        s0 += x[i] * y[i]
        s1 += x[i + 1] * y[i + 1]
        s2 += x[i + 2] * y[i + 2]
        s3 += x[i + 3] * y[i + 3]
        i += 4
    while i < n:
        s0 += x[i] * y[i]
        i += 1
    return (((s0 + s4) + (s8 + s12)) + ((s1 + s5) + (s9 + s13))) + (((s2 + s6) + (s10 + s14)) + ((s3 + s7) + (s11 + s15)))


cdef inline void axpy(floating a, const floating* x, floating* y, Py_ssize_t n) noexcept nogil:
    """y += a * x."""
    cdef Py_ssize_t i
    for i in range(n):
        y[i] += a * x[i]


cdef inline double sigmoid(double z) noexcept nogil:
    """1 / (1 + exp(-z)) without overflow for any finite z."""
    cdef double e
    if z >= 0:
        return 1.0 / (1.0 + exp(-z))
    e = exp(z)
    return e / (1.0 + e)


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #include <math.h>
    /* e^x for float x <= 0, inlined (a call to libm's expf costs more than the rest of an SGD step's
       scalar work): Cody-Waite reduction x = k ln2 + r with |r| <= ln2 / 2 (ln2 split in a part
       exact in float and a correction), a degree-6 Taylor polynomial for e^r (truncation
       < |r|^7 / 7! <= 1.2e-7 relative) and 2^k written into the exponent bits.  Inputs below
       -87 are clamped (e^-87 = 1.6e-38, the bottom of float's normal range). */
    static inline float lgk_expf_nonpos(float x) {
        float k, r, r2, p, scale;
        int32_t bits;
        if (x < -87.0f) x = -87.0f;
        k = (float)(int32_t)(x * 1.44269504f - 0.5f);           /* round(x / ln2), x <= 0 */
        r = (x - k * 0.693359375f) - k * -2.12194440e-4f;
        r2 = r * r;                                               /* Estrin: a shorter dependency */
        p = (1.0f + r) + r2 * ((0.5f + r * 0.16666667f)                  /* chain than Horner's */
              + r2 * ((0.041666667f + r * 0.0083333333f) + r2 * 0.0013888889f));
        bits = ((int32_t)k + 127) << 23;
        memcpy(&scale, &bits, sizeof scale);
        return p * scale;
    }
    /* sigma(z) = 1 / (1 + e^-|z|) for z >= 0 and e^-|z| / (1 + e^-|z|) below, with the numerator
       chosen by a bit mask, not a branch: in SGD the sign of z follows the data, and a mispredicted
       branch there flushes the update that follows it. */
    static inline float lgk_sigmoidf(float z) {
        float e = lgk_expf_nonpos(-fabsf(z)), one = 1.0f, num;
        uint32_t eb, ob, m = (uint32_t)0 - (uint32_t)(z >= 0.0f);
        memcpy(&eb, &e, sizeof eb);
        memcpy(&ob, &one, sizeof ob);
        eb = (ob & m) | (eb & ~m);
        memcpy(&num, &eb, sizeof num);
        return num / (one + e);
    }
    /* log sigma(z) = min(z, 0) - log1p(e), e = e^-|z| in (0, 1], in single precision and inlined
       (the loss diagnostics take it once per training pair; libm's double exp and log1p cost
       twice the rest of the pass).  log1p(e) = 2 atanh(w) with w = e / (2 + e) in (0, 1/3],
       summed as 2 w (1 + w^2/3 + ... + w^14/15): truncation < (1/9)^8 / 17 = 1.4e-9 relative, and
       no cancellation for tiny e (log1p(e) ~ e stays exact where log(1 + e) would round to 0).
       Branch-free, so that a loop over a buffer of scores vectorises. */
    static inline float lgk_log_sigmoidf(float z) {
        float e = lgk_expf_nonpos(-fabsf(z));
        float w = e / (2.0f + e), w2 = w * w, w4 = w2 * w2, w8 = w4 * w4;
        float p = ((1.0f + w2 * 0.33333333f) + w4 * (0.2f + w2 * 0.14285714f))
                  + w8 * ((0.11111111f + w2 * 0.090909091f) + w4 * (0.076923077f + w2 * 0.066666667f));
        return fminf(z, 0.0f) - 2.0f * w * p;
    }
    """
    float lgk_expf_nonpos(float x) noexcept nogil
    float lgk_sigmoidf(float z) noexcept nogil
    float lgk_log_sigmoidf(float z) noexcept nogil


cdef inline float sigmoidf(float z) noexcept nogil:
    """Single-precision sigmoid, without overflow for any finite z (relative error below 4e-7)."""
    return lgk_sigmoidf(z)


cdef inline double log_sigmoid(double z) noexcept nogil:
    """log(sigmoid(z)) = min(z, 0) - log1p(exp(-|z|)), exact for large |z| of either sign, and
    without a branch on z (the SGD diagnostics call it on data-dependent signs)."""
    return fmin(z, 0.0) - log1p(exp(-fabs(z)))


cdef inline float log_sigmoidf(float z) noexcept nogil:
    """Single-precision log(sigmoid(z)) for any finite z (relative error about 3e-7; see above)."""
    return lgk_log_sigmoidf(z)


cdef inline floating sigmoid_fused(floating z) noexcept nogil:
    """sigmoid in the precision of z: ``sigmoidf`` for float, ``sigmoid`` for double."""
    if floating is float:
        return sigmoidf(z)
    else:
        return sigmoid(z)
