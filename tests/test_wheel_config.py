"""The wheel-building configuration (pyproject's [tool.cibuildwheel], .github/workflows/wheels.yml) is well formed.

It runs only on GitHub's runners; here we check what can be checked without them: the YAML and TOML
parse, every platform the project promises is built, and every script they name exists.
"""
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
yaml = pytest.importorskip("yaml", reason="PyYAML (the test extra) parses the workflow")


@pytest.fixture(scope="module")
def cibw():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]


@pytest.fixture(scope="module")
def workflow():
    return yaml.safe_load((ROOT / ".github" / "workflows" / "wheels.yml").read_text())


def test_every_promised_platform_is_built(cibw, workflow):
    matrix = workflow["jobs"]["wheels"]["strategy"]["matrix"]["include"]
    built = {entry["arch"] for entry in matrix}
    assert built == {"x86_64", "aarch64", "arm64", "AMD64"}
    assert set(cibw["linux"]["archs"]) == {"x86_64", "aarch64"}
    assert set(cibw["macos"]["archs"]) == {"x86_64", "arm64"}
    assert cibw["windows"]["archs"] == ["AMD64"]
    runners = {entry["os"].split("-")[0] for entry in matrix}
    assert runners == {"ubuntu", "macos", "windows"}


def test_each_wheel_and_the_sdist_run_the_smoke_test(cibw, workflow):
    assert ".ci/smoke_test.py" in cibw["test-command"]
    sdist_steps = " ".join(step.get("run", "") for step in workflow["jobs"]["sdist"]["steps"])
    assert "python -m build --sdist" in sdist_steps and ".ci/smoke_test.py" in sdist_steps


def test_named_scripts_exist():
    for script in (".ci/smoke_test.py", ".ci/install_libomp_macos.sh", ".ci/build_variant.sh", ".ci/run"):
        assert (ROOT / script).is_file(), script
    for script in (".ci/install_libomp_macos.sh", ".ci/build_variant.sh", ".ci/run"):
        assert (ROOT / script).stat().st_mode & 0o111, f"{script} is not executable"
        subprocess.run(["bash", "-n", str(ROOT / script)], check=True)


def test_macos_build_points_at_the_libomp_it_installs(cibw):
    assert "install_libomp_macos.sh" in cibw["macos"]["before-build"]
    prefix = "$HOME/.lgekit-libomp"
    assert prefix in (ROOT / ".ci" / "install_libomp_macos.sh").read_text().replace('"$HOME/.lgekit-libomp"', prefix)
    assert all(prefix in cibw["macos"]["environment"][name] for name in ("CPPFLAGS", "LDFLAGS"))


def test_smoke_test_script_parses_its_options():
    result = subprocess.run([sys.executable, str(ROOT / ".ci" / "smoke_test.py"), "--help"],
                            capture_output=True, text=True, check=True)
    assert "--no-compiler" in result.stdout and "--serial" in result.stdout
