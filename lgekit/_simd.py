"""Choosing a kernel build: the AVX2+FMA variant when the CPU has it, else the generic one.

setup.py compiles each training kernel twice (see ``SIMD_KERNELS`` there).
``LGEKIT_SIMD`` overrides the choice: ``auto`` (default), ``generic`` (always
the portable build, e.g. to compare results across machines) or ``avx2``
(fail loudly if that build is unavailable).

Both variants run the same code in the same order; FMA contracts
``a * b + c`` into one rounding, so results differ from the generic build in
the last bits.  Within one variant every reproducibility guarantee holds.
"""
import importlib
import os

from ._openmp import cpu_supports_avx2_fma

__all__ = ["load_kernel", "kernel_variant", "chosen_kernels"]

_CHOICES = ("auto", "generic", "avx2")

# module name -> the build load_kernel returned for it, for show_versions (the solvers hold the modules)
_chosen = {}


def _choice():
    choice = os.environ.get("LGEKIT_SIMD", "auto").strip().lower() or "auto"
    if choice not in _CHOICES:
        raise ValueError(f"LGEKIT_SIMD must be one of {_CHOICES}, got {choice!r}")
    return choice


def load_kernel(module):
    """Import ``module`` (e.g. ``"lgekit.models._sgd"``) or its ``_avx2`` build."""
    kernel = _load(module)
    _chosen[module] = kernel_variant(kernel)
    return kernel


def _load(module):
    choice = _choice()
    if choice != "generic":
        if cpu_supports_avx2_fma():
            try:
                return importlib.import_module(module + "_avx2")
            except ImportError:
                if choice == "avx2":
                    raise ImportError(f"LGEKIT_SIMD=avx2 but {module}_avx2 was not built "
                                      "(reinstall without LGEKIT_NO_SIMD, with a compiler that accepts -mavx2 -mfma)") from None
        elif choice == "avx2":
            raise ImportError("LGEKIT_SIMD=avx2 but this CPU lacks AVX2/FMA")
    return importlib.import_module(module)


def kernel_variant(module):
    """``"avx2"`` or ``"generic"``: which build :func:`load_kernel` picked for an imported kernel."""
    return "avx2" if module.__name__.endswith("_avx2") else "generic"


def chosen_kernels():
    """``{"_sgd": "avx2", ...}``: the build :func:`load_kernel` last returned for each kernel it loaded."""
    return {name.rsplit(".", 1)[-1]: variant for name, variant in sorted(_chosen.items())}
