# cython: language_level=3
"""Declarations of ``_intrinsics.h``: prefetch hints, the AVX2+FMA dot products and pair update, and
the flush-to-zero mode (``lgk_ftz_begin`` / ``lgk_ftz_end``) the SGD kernels run in.

``LGK_AVX2_DOT`` / ``LGK_AVX2_DOT_F64`` / ``LGK_AVX2_UPDATE`` are 1 in the AVX2 build of a kernel and 0 in the generic
one; callers test them first and fall back to their plain loops.
"""

cdef extern from "_intrinsics.h":
    void LGK_PREFETCH(const void* p) noexcept nogil
    void LGK_PREFETCHW(const void* p) noexcept nogil
    bint LGK_AVX2_DOT
    float lgk_dotf_avx2(const float* x, const float* y, Py_ssize_t n) noexcept nogil
    bint LGK_AVX2_DOT_F64
    double lgk_dotf_f64_avx2(const float* x, const float* y, Py_ssize_t n) noexcept nogil
    bint LGK_AVX2_UPDATE
    void lgk_pair_updatef_avx2(float* xu, float* xv, float au, float av, float k, Py_ssize_t n) noexcept nogil
    unsigned int lgk_ftz_begin() noexcept nogil
    void lgk_ftz_end(unsigned int old) noexcept nogil
