"""Build and CPU facts for the compiled kernels: OpenMP, thread count, AVX2+FMA."""

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int lgekit_openmp_enabled(void) { return 1; }
    static int lgekit_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int lgekit_openmp_enabled(void) { return 0; }
    static int lgekit_max_threads(void) { return 1; }
    #endif
    """
    int lgekit_openmp_enabled() noexcept nogil
    int lgekit_max_threads() noexcept nogil

cdef extern from *:
    """
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(_M_X64))
    static int lgekit_cpu_avx2_fma(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    #else
    static int lgekit_cpu_avx2_fma(void) { return 0; }
    #endif
    """
    int lgekit_cpu_avx2_fma() noexcept nogil


def openmp_enabled():
    """True when the kernels were compiled with OpenMP support."""
    return bool(lgekit_openmp_enabled())


def max_threads():
    """OpenMP's default thread count (1 without OpenMP)."""
    return int(lgekit_max_threads())


def cpu_supports_avx2_fma():
    """True when this CPU runs AVX2 and FMA instructions (x86-64 with GCC/Clang builds)."""
    return bool(lgekit_cpu_avx2_fma())
