"""``lgekit.show_versions()``: what a bug report needs."""
import importlib
import platform
import sys

from ._openmp import max_threads, openmp_enabled
from ._simd import chosen_kernels
from ._version import __version__

__all__ = ["show_versions", "DEPENDENCIES"]

#: the packages a bug report (and a results store's environment record) lists with their versions
DEPENDENCIES = ("numpy", "scipy", "sklearn", "networkx", "matplotlib", "tqdm", "joblib",
                 "Cython", "hypothesis", "pytest", "dask", "distributed", "gensim")


def _kernel_variants():
    # imported here, not at the top: lgekit's __init__ loads this module lazily, and importing the
    # models is what loads (and so chooses) the kernel builds
    from . import models  # noqa: F401

    return ", ".join(f"{name}={variant}" for name, variant in chosen_kernels().items())


def _versions():
    info = {
        "lgekit": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "openmp": openmp_enabled(),
        "openmp_max_threads": max_threads(),
        "kernels": _kernel_variants(),
    }
    for name in DEPENDENCIES:
        try:
            module = importlib.import_module(name)
            info[name] = getattr(module, "__version__", "installed")
        except ImportError:
            info[name] = None
    return info


def show_versions(file=None):
    """Print lgekit's version, its dependencies' versions, whether OpenMP is compiled in and which kernels run.

    Parameters
    ----------
    file : file-like, optional
        Where to print (default: standard output).

    Notes
    -----
    ``openmp: False`` marks a serial build (a compiler without OpenMP, or
    ``LGEKIT_NO_OPENMP=1`` at install): every fit runs on one thread, whatever
    ``n_threads`` says.  ``kernels`` names the build of each training kernel
    in use, ``avx2`` or ``generic`` (see ``LGEKIT_SIMD`` in the README).
    """
    info = _versions()
    notes = {"openmp": "" if info["openmp"] else " (a serial build: every fit runs on one thread)"}
    width = max(len(k) for k in info)
    for key, value in info.items():
        print(f"{key:>{width}}: {value if value is not None else 'not installed'}{notes.get(key, '')}", file=file)
