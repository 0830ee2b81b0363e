"""``lgekit.show_versions()``: what a bug report needs."""
import importlib
import platform
import sys

from ._version import __version__

__all__ = ["show_versions", "DEPENDENCIES"]

#: the packages a bug report (and a results store's environment record) lists with their versions
DEPENDENCIES = ("numpy", "scipy", "sklearn", "networkx", "matplotlib", "tqdm", "joblib",
                 "Cython", "hypothesis", "pytest", "dask", "distributed", "gensim")


def _kernel_variants():
    from ._simd import kernel_variant
    from .models import hinge, logistic

    return ", ".join(f"{m.__name__.rsplit('.', 1)[1].removesuffix('_avx2')}={kernel_variant(m)}" for m in (logistic._sgd, hinge._dcd))


def _versions():
    from ._openmp import max_threads, openmp_enabled

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
    """Print lgekit's version, its dependencies' versions and whether OpenMP is compiled in."""
    info = _versions()
    width = max(len(k) for k in info)
    for key, value in info.items():
        print(f"{key:>{width}}: {value if value is not None else 'not installed'}", file=file)
    return None
