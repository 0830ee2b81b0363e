"""Build the Cython kernels of lgekit.

Every ``lgekit/**/*.pyx`` is cythonized with the compiler directives set once
here.  ``LGEKIT_DEBUG=1`` turns bounds checks, wraparound and the C assertions
back on (and builds with ``-O0 -g``) for debugging a kernel.  OpenMP is used
when the compiler accepts ``-fopenmp``; otherwise the kernels build serially
and ``lgekit.show_versions()`` says so.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
DEBUG = os.environ.get("LGEKIT_DEBUG", "0") not in ("", "0")


def compiler_supports_openmp():
    """Try to compile and link a tiny OpenMP program with the default C compiler."""
    if os.environ.get("LGEKIT_NO_OPENMP", "0") not in ("", "0"):
        return False
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc.split()[0]) is None:
        return False
    source = "#include <omp.h>\nint main(void){return omp_get_max_threads() > 0 ? 0 : 1;}\n"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "t.c"
        src.write_text(source)
        result = subprocess.run(
            cc.split() + ["-fopenmp", str(src), "-o", str(Path(tmp) / "t")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return result.returncode == 0


OPENMP = compiler_supports_openmp()
compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
link_args = []
if OPENMP:
    compile_args.append("-fopenmp")
    link_args.append("-fopenmp")
if sys.platform != "win32":
    compile_args.append("-Wno-unreachable-code")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": not DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "embedsignature": True,
}

extensions = []
for pyx in sorted(HERE.glob("lgekit/**/*.pyx")):
    rel = pyx.relative_to(HERE)
    module = ".".join(rel.with_suffix("").parts)
    extensions.append(
        Extension(
            module,
            [str(rel)],
            include_dirs=[np.get_include(), str(HERE / "lgekit")],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
            + ([] if DEBUG else [("CYTHON_WITHOUT_ASSERTIONS", None)]),
            extra_compile_args=compile_args,
            extra_link_args=link_args,
        )
    )

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        quiet=True,
    ),
)
