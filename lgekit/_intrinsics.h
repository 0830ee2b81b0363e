/* The SIMD and prefetch intrinsics of lgekit's kernels, in one place (declared for Cython in
   _intrinsics.pxd).

   setup.py compiles each training kernel twice, once for generic x86-64 and once with
   -mavx2 -mfma (/arch:AVX2 with MSVC; lgekit._simd picks one at import time), so everything AVX2 here sits behind
   LGK_HAVE_AVX2_FMA (below) and has a LGK_AVX2_* flag the Cython code tests before calling it; the
   generic build compiles the plain loops of _common.pxd and _sgd.pyx instead.  Each function
   computes exactly what the plain loop it replaces computes, element by element and in the same
   order, so the two builds differ only where FMA contracts a * b + c into one rounding. */
#ifndef LGEKIT_INTRINSICS_H
#define LGEKIT_INTRINSICS_H

#include <stddef.h>
#include <math.h>

/* MSVC's C compiler spells inline __inline (plain inline only in C++ or /std:c11). */
#if defined(_MSC_VER) && !defined(__cplusplus)
#define LGK_INLINE __inline
#else
#define LGK_INLINE inline
#endif

/* AVX2 with FMA: gcc and clang define __FMA__ under -mfma; MSVC defines only __AVX2__ under
   /arch:AVX2, which also lets it emit FMA (every AVX2 CPU has FMA3, and lgekit._simd checks both). */
#if defined(__AVX2__) && (defined(__FMA__) || defined(_MSC_VER))
#define LGK_HAVE_AVX2_FMA 1
#endif

/* Prefetch hints: a no-op where the compiler has neither form (they never change a result). */
#if defined(__GNUC__) || defined(__clang__)
#define LGK_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 3)
#define LGK_PREFETCHW(p) __builtin_prefetch((const void*)(p), 1, 3)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
/* _MM_HINT_T0 is __builtin_prefetch's locality 3; x86 has no portable write hint, a read one does */
#define LGK_PREFETCH(p) _mm_prefetch((const char*)(p), _MM_HINT_T0)
#define LGK_PREFETCHW(p) _mm_prefetch((const char*)(p), _MM_HINT_T0)
#else
#define LGK_PREFETCH(p) ((void)0)
#define LGK_PREFETCHW(p) ((void)0)
#endif

#ifdef LGK_HAVE_AVX2_FMA
#include <immintrin.h>
/* dot() below for floats, in the same order (s0..s7 are the lanes of a, s8..s15 those of b,
   the same tails and the same final tree), with the horizontal sum done in vector registers:
   gcc's own vectorisation of dot() ends in 15 scalar additions and 20 shuffles on the
   critical path of every SGD step. */
#define LGK_AVX2_DOT 1
static LGK_INLINE float lgk_dotf_avx2(const float* x, const float* y, Py_ssize_t n) {
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    __m128 lo, t;
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {          /* two steps of the loop below, unrolled */
        a = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), b);
        a = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16), a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24), b);
    }
    for (; i + 16 <= n; i += 16) {
        a = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), b);
    }
    lo = _mm256_castps256_ps128(a);
    for (; i + 4 <= n; i += 4)
        lo = _mm_fmadd_ps(_mm_loadu_ps(x + i), _mm_loadu_ps(y + i), lo);
    for (; i < n; i++)
        lo = _mm_move_ss(lo, _mm_fmadd_ss(_mm_load_ss(x + i), _mm_load_ss(y + i), lo));
    /* lane j: A_j = (s_j + s_{j+4}) + (s_{j+8} + s_{j+12}); then (A0 + A1) + (A2 + A3) */
    t = _mm_add_ps(_mm_add_ps(lo, _mm256_extractf128_ps(a, 1)),
                   _mm_add_ps(_mm256_castps256_ps128(b), _mm256_extractf128_ps(b, 1)));
    t = _mm_add_ps(t, _mm_movehdup_ps(t));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehl_ps(t, t)));
}
#else
#define LGK_AVX2_DOT 0
#define lgk_dotf_avx2(x, y, n) (0.0f)   /* never called: dot() tests LGK_AVX2_DOT first */
#endif

#ifdef LGK_HAVE_AVX2_FMA
#include <immintrin.h>
/* _scoring's _dot_f64 for floats: sum_j x[j] y[j] in float64, in its eight partial sums s_j (j mod 8;
   s0..s3 the lanes of a, s4..s7 those of b), its tail into s0 and its final tree
   ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)).  The product of two floats is exact in a double
   (24 + 24 bits < 53), so an FMA there rounds as the multiply-then-add does: bit for bit the
   generic build's scores, four lanes at a time where gcc converts and multiplies element by element. */
#define LGK_AVX2_DOT_F64 1
static LGK_INLINE double lgk_dotf_f64_avx2(const float* x, const float* y, Py_ssize_t n) {
    __m256d a = _mm256_setzero_pd(), b = _mm256_setzero_pd();
    __m256 xv, yv;
    double lo[4], hi[4];
    Py_ssize_t j = 0;
    for (; j + 8 <= n; j += 8) {
        xv = _mm256_loadu_ps(x + j);
        yv = _mm256_loadu_ps(y + j);
        a = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xv)),
                            _mm256_cvtps_pd(_mm256_castps256_ps128(yv)), a);
        b = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1)),
                            _mm256_cvtps_pd(_mm256_extractf128_ps(yv, 1)), b);
    }
    _mm256_storeu_pd(lo, a);
    _mm256_storeu_pd(hi, b);
    for (; j < n; j++)
        lo[0] += (double)x[j] * (double)y[j];
    return ((lo[0] + hi[0]) + (lo[1] + hi[1])) + ((lo[2] + hi[2]) + (lo[3] + hi[3]));
}
#else
#define LGK_AVX2_DOT_F64 0
#define lgk_dotf_f64_avx2(x, y, n) (0.0)   /* never called: _dot_f64 tests LGK_AVX2_DOT_F64 first */
#endif

#ifdef LGK_HAVE_AVX2_FMA
/* _pair_update for floats, written out so that the D % 8 tail takes one 4-wide step instead of
   gcc's run-time alias checks and scalar loop.  Same arithmetic, element by element, as gcc's
   contraction of the loop below: x_u = fma(au, a, k b), x_v = fma(av, b, k a) from the old
   a = x_u, b = x_v. */
#define LGK_AVX2_UPDATE 1
static LGK_INLINE void lgk_pair_updatef_avx2(float* xu, float* xv, float au, float av, float k, Py_ssize_t n) {
    __m256 vau = _mm256_set1_ps(au), vav = _mm256_set1_ps(av), vk = _mm256_set1_ps(k), a, b;
    __m128 a4, b4;
    __m256 c, d, e, f, g, h;
    Py_ssize_t i = 0;
    /* four vectors of each row a step: fewer loop instructions (2-4% faster epochs at D=100) */
    for (; i + 32 <= n; i += 32) {
        a = _mm256_loadu_ps(xu + i);
        b = _mm256_loadu_ps(xv + i);
        c = _mm256_loadu_ps(xu + i + 8);
        d = _mm256_loadu_ps(xv + i + 8);
        e = _mm256_loadu_ps(xu + i + 16);
        f = _mm256_loadu_ps(xv + i + 16);
        g = _mm256_loadu_ps(xu + i + 24);
        h = _mm256_loadu_ps(xv + i + 24);
        _mm256_storeu_ps(xu + i, _mm256_fmadd_ps(vau, a, _mm256_mul_ps(vk, b)));
        _mm256_storeu_ps(xv + i, _mm256_fmadd_ps(vav, b, _mm256_mul_ps(vk, a)));
        _mm256_storeu_ps(xu + i + 8, _mm256_fmadd_ps(vau, c, _mm256_mul_ps(vk, d)));
        _mm256_storeu_ps(xv + i + 8, _mm256_fmadd_ps(vav, d, _mm256_mul_ps(vk, c)));
        _mm256_storeu_ps(xu + i + 16, _mm256_fmadd_ps(vau, e, _mm256_mul_ps(vk, f)));
        _mm256_storeu_ps(xv + i + 16, _mm256_fmadd_ps(vav, f, _mm256_mul_ps(vk, e)));
        _mm256_storeu_ps(xu + i + 24, _mm256_fmadd_ps(vau, g, _mm256_mul_ps(vk, h)));
        _mm256_storeu_ps(xv + i + 24, _mm256_fmadd_ps(vav, h, _mm256_mul_ps(vk, g)));
    }
    for (; i + 8 <= n; i += 8) {
        a = _mm256_loadu_ps(xu + i);
        b = _mm256_loadu_ps(xv + i);
        _mm256_storeu_ps(xu + i, _mm256_fmadd_ps(vau, a, _mm256_mul_ps(vk, b)));
        _mm256_storeu_ps(xv + i, _mm256_fmadd_ps(vav, b, _mm256_mul_ps(vk, a)));
    }
    if (i + 4 <= n) {
        a4 = _mm_loadu_ps(xu + i);
        b4 = _mm_loadu_ps(xv + i);
        _mm_storeu_ps(xu + i, _mm_fmadd_ps(_mm256_castps256_ps128(vau), a4, _mm_mul_ps(_mm256_castps256_ps128(vk), b4)));
        _mm_storeu_ps(xv + i, _mm_fmadd_ps(_mm256_castps256_ps128(vav), b4, _mm_mul_ps(_mm256_castps256_ps128(vk), a4)));
        i += 4;
    }
    for (; i < n; i++) {
        float a1 = xu[i], b1 = xv[i];
        xu[i] = fmaf(au, a1, k * b1);
        xv[i] = fmaf(av, b1, k * a1);
    }
}
#else
#define LGK_AVX2_UPDATE 0
#define lgk_pair_updatef_avx2(xu, xv, au, av, k, n) ((void)0)   /* never called */
#endif

/* Subnormal numbers cost 100+ cycles an operation on x86 (a microcode assist), and SGD makes
   them as soon as scores saturate: sigma(-s) of a large score times a coordinate lands below
   the normal range, and an epoch of a blown-up embedding then costs many times a fresh one's
   (benchmarks/bench_sgd.py, row 'epoch, norms x30').  Flush-to-zero and denormals-are-zero change results only below
   the smallest normal number (1.2e-38 in float, 2.2e-308 in double), where they are zero to
   the update's precision anyway.  The mode is per thread: each kernel sets it for its own
   work and restores the caller's mode after, so nothing else in the process sees it. */
#if defined(__SSE__) || defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
static LGK_INLINE unsigned int lgk_ftz_begin(void) {
    unsigned int old = _mm_getcsr();
    _mm_setcsr(old | 0x8040u);       /* FTZ (bit 15) | DAZ (bit 6) */
    return old;
}
static LGK_INLINE void lgk_ftz_end(unsigned int old) { _mm_setcsr(old); }
#else
static LGK_INLINE unsigned int lgk_ftz_begin(void) { return 0u; }   /* other CPUs: IEEE subnormals */
static LGK_INLINE void lgk_ftz_end(unsigned int old) { (void)old; }
#endif

#endif  /* LGEKIT_INTRINSICS_H */
