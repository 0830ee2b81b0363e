#!/usr/bin/env bash
# cibuildwheel's before-build on macOS: an OpenMP runtime (LLVM's libomp) for the architecture of the
# wheel being built, in ~/.lgekit-libomp, where pyproject.toml's [tool.cibuildwheel.macos]
# environment points the compiler and linker; delocate then copies libomp.dylib into the wheel.
# conda-forge's build is the one scikit-learn's wheels bundle: it targets macOS 11 for both
# architectures (Homebrew's bottles target the runner's own macOS version), and micromamba fetches
# it for the other architecture in a cross build (.github/workflows/wheels.yml installs micromamba
# with mamba-org/setup-micromamba; without it, Homebrew's libomp for the runner's own architecture).
set -euo pipefail
prefix="$HOME/.lgekit-libomp"
case "${ARCHFLAGS:-$(uname -m)}" in
    *arm64*) platform=osx-arm64 ;;
    *x86_64*) platform=osx-64 ;;
    *) echo "install_libomp_macos.sh: unknown architecture ${ARCHFLAGS:-$(uname -m)}" >&2; exit 1 ;;
esac
if [ -f "$prefix/lib/libomp.dylib" ] && [ "$(cat "$prefix/platform" 2>/dev/null)" = "$platform" ]; then
    exit 0
fi
rm -rf "$prefix"
if command -v micromamba >/dev/null; then
    micromamba create -y -q -p "$prefix" --platform "$platform" -c conda-forge "llvm-openmp>=17,<20"
else
    # the runner's Homebrew (same architecture as the runner only)
    brew install libomp
    mkdir -p "$prefix"
    ln -s "$(brew --prefix libomp)/include" "$prefix/include"
    ln -s "$(brew --prefix libomp)/lib" "$prefix/lib"
fi
echo "$platform" > "$prefix/platform"
