"""Smoke test of an installed lgekit (a wheel or an sdist), run from outside the source tree.

Used by .ci/run (the manylinux wheel, in a virtual environment without a C compiler) and by
cibuildwheel's test-command (every wheel of .github/workflows/wheels.yml).  It checks what a user
of a binary wheel relies on:

1. the package imports from the installation, not from a checkout;
2. ``lgekit.show_versions()`` reports OpenMP compiled in and which kernel builds were chosen;
3. a fit on a real graph: email-Eu-core from ``$LGEKIT_DATA`` when present, else the Les
   Miserables co-occurrence graph that networkx ships (a real graph, offline);
4. ``lgekit reproduce 1 --quick`` and ``lgekit theory rademacher --quick`` through the installed
   ``lgekit`` command.

Options: ``--no-compiler`` also asserts that no C compiler can be run (cc, gcc, clang, $CC), so
that the install just done cannot have compiled anything; ``--serial`` expects a build without
OpenMP instead.  Exit status 0 means every check passed; the first failure raises.
"""
import argparse
import io
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def step(message):
    print(f"smoke: {message}", flush=True)


def check_no_compiler():
    names = ["cc", "gcc", "clang", os.environ.get("CC", "cc").split()[0]]
    for name in dict.fromkeys(names):
        path = shutil.which(name)
        if path is None:
            continue
        try:
            ran = subprocess.run([path, "--version"], capture_output=True).returncode == 0
        except OSError:
            ran = False
        assert not ran, f"a C compiler is reachable ({name} -> {path}): this environment is meant to have none"
    step(f"no C compiler reachable ({', '.join(dict.fromkeys(names))}; CC={os.environ.get('CC')!r})")


def check_import():
    import lgekit

    location = Path(lgekit.__file__).resolve()
    assert PROJECT not in location.parents, (
        f"lgekit was imported from the checkout ({location}), not from the installation under test")
    step(f"imported lgekit {lgekit.__version__} from {location.parent}")
    return lgekit


def check_versions(lgekit, serial):
    text = io.StringIO()
    lgekit.show_versions(file=text)
    print(text.getvalue(), end="")
    info = dict(line.strip().split(": ", 1) for line in text.getvalue().splitlines() if ": " in line)
    expected = "False" if serial else "True"
    openmp = info.get("openmp", "").split(" ", 1)[0]
    assert openmp == expected, f"show_versions() says openmp: {info.get('openmp')}, expected {expected}"
    kernels = info.get("kernels", "")
    assert "_sgd=" in kernels and "_dcd=" in kernels, f"show_versions() names no kernel builds: {kernels!r}"
    from lgekit._openmp import cpu_supports_avx2_fma

    if sysconfig.get_platform().endswith(("x86_64", "amd64")) and cpu_supports_avx2_fma():
        # a wheel for x86-64 carries the AVX2 builds, and this CPU runs them
        assert "_sgd=avx2" in kernels, f"an AVX2 CPU got the generic kernels: {kernels!r}"
    step(f"openmp {openmp} ({info.get('openmp_max_threads')} threads), kernels {kernels}")


def real_graph(lgekit):
    data = os.environ.get("LGEKIT_DATA")
    if data and (Path(data) / "email-eu-core").is_dir():
        return "email-Eu-core", lgekit.datasets.load("email-eu-core")
    import networkx as nx

    return "Les Miserables (networkx)", lgekit.Graph.from_networkx(nx.les_miserables_graph())


def check_fit(lgekit):
    import numpy as np

    name, graph = real_graph(lgekit)
    split = lgekit.split_edges(graph, test_fraction=0.2, seed=0)
    started = time.perf_counter()
    model = lgekit.LogisticEmbedding(dim=32, lam_r=0.1, epochs=20, random_state=0).fit(split)
    seconds = time.perf_counter() - started
    assert np.isfinite(model.embedding_).all(), "the fitted embedding has non-finite entries"
    ap = model.score(split)
    # A real graph's held-out edges are far easier to rank than random pairs: AP well above the
    # 1/5 of a random ranking (4 negatives a positive) means the kernels trained something.
    assert ap > 0.5, f"test AP {ap:.3f} on {name}: the kernels did not learn"
    step(f"fit on {name} ({graph.n_nodes} nodes): test AP {ap:.3f}, {seconds:.1f} s")


def run_command(*args):
    # the installation's own script (not whichever lgekit comes first on PATH)
    command = shutil.which("lgekit", path=sysconfig.get_path("scripts"))
    assert command is not None, f"no lgekit command in {sysconfig.get_path('scripts')}: the entry point was not installed"
    started = time.perf_counter()
    result = subprocess.run([command, *args], capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"lgekit {' '.join(args)} exited {result.returncode}:\n{output}"
    step(f"lgekit {' '.join(args)}: OK ({time.perf_counter() - started:.0f} s)")
    return output


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compiler", action="store_true", help="also assert that no C compiler can run")
    parser.add_argument("--serial", action="store_true", help="expect a build without OpenMP")
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    step(f"Python {platform.python_version()} on {sysconfig.get_platform()}")
    if args.no_compiler:
        check_no_compiler()
    # From a folder of its own: the current folder comes first on sys.path, and a checkout there
    # would shadow the installation.
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        lgekit = check_import()
        check_versions(lgekit, args.serial)
        check_fit(lgekit)
        out = Path(tmp) / "reproduce"
        run_command("reproduce", "1", "--quick", "--out", str(out))
        assert (out / "fig1.png").is_file() and (out / "report.md").is_file(), f"no figure or report in {out}"
        output = run_command("theory", "rademacher", "--quick")
        assert not any(line.lstrip().startswith("FAIL") for line in output.splitlines()), f"a check failed:\n{output}"
    step("all checks passed")


if __name__ == "__main__":
    sys.exit(main())
