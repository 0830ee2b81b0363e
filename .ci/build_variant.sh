#!/usr/bin/env bash
# Build the kernels with another toolchain in a throw-away copy of the commit under test, then run
# the kernel and reference tests against that build.  Used by .ci/run (issue 25: the kernels must
# build and pass with clang + libomp, which macOS uses, and with OpenMP absent).
#
#   .ci/build_variant.sh NAME EXPECT [VAR=VALUE ...]
#
# NAME labels the output; EXPECT is "openmp" or "serial" (what show_versions() must report);
# the VAR=VALUE pairs are the build's environment (CC=clang, LGEKIT_NO_OPENMP=1, ...).
set -euo pipefail
name=$1 expect=$2
shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

git -C "$root" archive HEAD | tar -x -C "$work"
# setup.py needs setuptools >= 77 (pyproject's license field); the rest comes from the CI Python
python3 -m venv --system-site-packages "$work/.venv"
"$work/.venv/bin/python" -m pip install -q "setuptools>=77"

started=$SECONDS
(cd "$work" && env "$@" "$work/.venv/bin/python" setup.py -q build_ext --inplace 2>&1 | grep "lgekit build:")
echo "$name build ($*): $((SECONDS - started)) s"

cd "$work"
export PYTHONPATH="$work"
env "$@" "$work/.venv/bin/python" - "$work" "$expect" <<'PY'
import io, sys
import lgekit
work, expect = sys.argv[1:]
assert lgekit.__file__.startswith(work), f"imported {lgekit.__file__}, not the {work} build"
text = io.StringIO()
lgekit.show_versions(file=text)
print(text.getvalue(), end="")
openmp = [line.split(": ", 1)[1] for line in text.getvalue().splitlines() if line.strip().startswith("openmp:")][0]
assert openmp.startswith("True" if expect == "openmp" else "False (a serial build"), openmp
PY
if [ "$expect" = openmp ] && [[ " $* " == *" CC=clang "* ]]; then
    # clang's -fopenmp links LLVM's runtime, not gcc's
    ldd lgekit/models/_sgd.*.so | grep -q "libomp" || { echo "$name: the kernels do not link libomp"; exit 1; }
fi
started=$SECONDS
"$work/.venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/test_sgd_kernel.py tests/test_dcd_kernel.py tests/test_reference.py tests/test_two_tables.py tests/test_simd.py \
    tests/test_kernel_contracts.py tests/test_kernel_sources.py
echo "$name kernel tests: $((SECONDS - started)) s"
