"""``lgekit datasets list`` says where each data set was found, or how to get it (issue 27, item 9)."""
import re

import pytest

from lgekit.cli import main


def _row(out, name):
    return next(line for line in out.splitlines() if line.startswith(name + " "))


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A scratch folder, with the user cache pointed inside it (empty until a test copies a data set there)."""
    monkeypatch.setenv("LGEKIT_CACHE", str(tmp_path / "cache"))
    return tmp_path


def test_list_names_the_source_of_each_data_set(data_dir, mirror, monkeypatch, capsys):
    monkeypatch.setenv("LGEKIT_DATA", str(data_dir))
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"ppi\s+3,890\s+37,845\s+50\s+" + re.escape(str(data_dir / "ppi")) + r"\s+\$LGEKIT_DATA$",
                     _row(out, "ppi"))
    assert f"$LGEKIT_DATA: {data_dir}" in out
    assert f"the user cache ($LGEKIT_CACHE): {mirror / 'cache'} (does not exist)" in out
    assert "embedded (generated)" in _row(out, "synthetic-blogcatalog")


def test_list_says_what_is_missing_and_how_to_get_it(mirror, monkeypatch, capsys):
    monkeypatch.setenv("LGEKIT_DATA", str(mirror / "nothing-here"))
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    row = _row(out, "blogcatalog")
    assert "no (lgekit datasets fetch blogcatalog)" in row and row.endswith("missing")
    assert f"$LGEKIT_DATA: {mirror / 'nothing-here'} (does not exist)" in out
    assert "`lgekit datasets fetch NAME` downloads it" in out and "set LGEKIT_DATA" in out


def test_list_finds_the_cache_and_data_home(data_dir, mirror, monkeypatch, capsys):
    import shutil

    cache = mirror / "cache"
    shutil.copytree(data_dir / "facebook", cache / "facebook")
    monkeypatch.setenv("LGEKIT_DATA", str(mirror / "nothing-here"))
    assert main(["datasets", "list"]) == 0
    row = _row(capsys.readouterr().out, "facebook")
    assert str(cache / "facebook") in row and row.endswith("the user cache")
    assert main(["datasets", "list", "--data-home", str(cache)]) == 0
    out = capsys.readouterr().out
    assert _row(out, "facebook").endswith("--data-home") and _row(out, "ppi").endswith("missing")
    assert f"--data-home: {cache}" in out and "$LGEKIT_DATA" not in out.split("looked for")[1]


def test_without_lgekit_data_the_checkout_folder_is_named(monkeypatch, mirror, capsys):
    monkeypatch.delenv("LGEKIT_DATA", raising=False)
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert "$LGEKIT_DATA: not set" in out
    from lgekit.datasets import search_path

    if len(search_path()) == 2:    # a source checkout with ../shared/data beside it
        assert f"../shared/data beside the lgekit source checkout: {search_path()[0]}" in out


def test_tests_without_the_data_skip_with_one_reason(tmp_path):
    """Without the real data, pytest says why once (tests/conftest.py), not once per test."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "LGEKIT_DATA": str(tmp_path / "absent"), "LGEKIT_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "list",
                           str(Path(__file__).relative_to(root))], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("real data sets not found") == 1, done.stdout
    assert f"LGEKIT_DATA={tmp_path / 'absent'} is not a folder" in done.stdout
    assert "2 skipped (no real data)" in done.stdout and "SKIPPED" not in done.stdout
