"""Build facts of the compiled kernels (is OpenMP in? how many threads?)."""

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


def openmp_enabled():
    """True when the kernels were compiled with OpenMP support."""
    return bool(lgekit_openmp_enabled())


def max_threads():
    """OpenMP's default thread count (1 without OpenMP)."""
    return int(lgekit_max_threads())
