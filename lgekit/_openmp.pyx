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

# What the CPU runs, read from CPUID the same way on every compiler (only the two instructions'
# spellings differ): AVX2 (leaf 7, EBX bit 5) and FMA (leaf 1, ECX bit 12), and whether the operating
# system saves the YMM registers on a context switch (OSXSAVE, ECX bit 27, then XCR0 bits 1-2 by
# XGETBV), without which AVX instructions fault even on a CPU that has them.  gcc's
# __builtin_cpu_supports checks the same bits but exists only in gcc and clang.
cdef extern from *:
    """
    #if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    #include <intrin.h>
    #define LGEKIT_X86 1
    static void lgekit_cpuid(int leaf, int sub, unsigned int r[4]) {
        int out[4];
        __cpuidex(out, leaf, sub);
        r[0] = (unsigned int)out[0]; r[1] = (unsigned int)out[1];
        r[2] = (unsigned int)out[2]; r[3] = (unsigned int)out[3];
    }
    static unsigned long long lgekit_xcr0(void) { return _xgetbv(0); }
    #elif (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    #include <cpuid.h>
    #define LGEKIT_X86 1
    static void lgekit_cpuid(int leaf, int sub, unsigned int r[4]) {
        __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
    }
    static unsigned long long lgekit_xcr0(void) {
        unsigned int lo, hi;
        /* the instruction, not the _xgetbv intrinsic: that one needs -mxsave on gcc */
        __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        return ((unsigned long long)hi << 32) | lo;
    }
    #endif

    #ifdef LGEKIT_X86
    static int lgekit_cpu_avx2_fma(void) {
        unsigned int r[4];
        lgekit_cpuid(0, 0, r);
        if (r[0] < 7) return 0;                        /* no leaf 7: no AVX2 */
        lgekit_cpuid(1, 0, r);
        if (!((r[2] >> 12) & 1u) || !((r[2] >> 27) & 1u)) return 0;   /* FMA, OSXSAVE */
        if ((lgekit_xcr0() & 6u) != 6u) return 0;      /* the OS saves XMM and YMM state */
        lgekit_cpuid(7, 0, r);
        return (r[1] >> 5) & 1u;                       /* AVX2 */
    }
    #else
    static int lgekit_cpu_avx2_fma(void) { return 0; }  /* not x86: only the generic kernels exist */
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
    """True when this CPU runs AVX2 and FMA instructions and the operating system enables them (x86 only)."""
    return bool(lgekit_cpu_avx2_fma())
