"""Shared test configuration.

* Slow tests (``@pytest.mark.slow``) run with ``--runslow`` or
  ``LGEKIT_RUN_SLOW=1`` (CI sets it); otherwise they are skipped.
* Real data sets are found through ``LGEKIT_DATA`` or ``../shared/data``;
  tests that need them use the ``data_dir`` fixture and skip with a reason
  when neither exists.
* Hypothesis runs a deterministic profile by default; set
  ``HYPOTHESIS_PROFILE=random`` for randomized exploration.
"""
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "deterministic", derandomize=True, max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "random", derandomize=False, max_examples=300, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def _run_slow(config):
    return config.getoption("--runslow") or os.environ.get("LGEKIT_RUN_SLOW", "0") not in ("", "0")


def pytest_collection_modifyitems(config, items):
    if _run_slow(config):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow or LGEKIT_RUN_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def find_data_dir():
    """The real-data folder: $LGEKIT_DATA, else ``shared/data`` beside the project root (``PROJECT_ROOT/../shared/data``,
    whatever the current folder), else None."""
    env = os.environ.get("LGEKIT_DATA")
    if env:
        # absolute, so that a test that changes the working folder still finds a relative LGEKIT_DATA
        return Path(env).resolve() if Path(env).is_dir() else None
    candidate = PROJECT_ROOT.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


def _data_missing_reason():
    env = os.environ.get("LGEKIT_DATA")
    where = (f"LGEKIT_DATA={env} is not a folder" if env else
             f"LGEKIT_DATA is not set and {PROJECT_ROOT.parent / 'shared' / 'data'} (../shared/data beside the "
             "project root) does not exist")
    from lgekit.datasets import registry  # as below: conftest imports lgekit where it uses it
    folders = ", ".join(f"{entry.folder}/" for entry in registry().values() if not entry.embedded)
    return (f"{_DATA_REASON}: {where}; set LGEKIT_DATA to a folder laid out like ../shared/data "
            f"({folders}; `lgekit datasets list` shows what is found where), or run `lgekit datasets fetch all`")


# every skip for missing data starts with this, so the summary can count them under one line
_DATA_REASON = "real data sets not found"


@pytest.fixture(scope="session")
def data_dir():
    path = find_data_dir()
    if path is None:
        pytest.skip(_data_missing_reason())
    return path


def pytest_terminal_summary(terminalreporter):
    """One line for every test skipped for want of the real data, instead of one per test.

    Those skips leave the "skipped" tally (which ``-ra`` lists test by test)
    for a tally of their own, "skipped (no real data)" in the last line, with
    the reason said once above it.
    """
    stats = terminalreporter.stats
    data = [rep for rep in stats.get("skipped", []) if _DATA_REASON in str(rep.longrepr)]
    if not data:
        return
    stats["skipped"] = [rep for rep in stats["skipped"] if rep not in data]
    if not stats["skipped"]:
        del stats["skipped"]
    stats["skipped (no real data)"] = data
    terminalreporter.write_sep("-", "real data")
    terminalreporter.write_line(f"{len(data)} test(s) skipped: {_data_missing_reason()}")


@pytest.fixture(scope="module")
def labelled_mat_file(tmp_path_factory):
    """A 200-node labelled BlogCatalog-shaped graph saved as a .mat file (network + group)."""
    import scipy.io
    import scipy.sparse as sp

    from lgekit.datasets import planted_partition_graph

    g = planted_partition_graph(n_nodes=200, n_labels=5, seed=3)
    path = tmp_path_factory.mktemp("graph") / "tiny.mat"
    scipy.io.savemat(path, {"network": sp.csc_matrix(g.to_scipy()), "group": sp.csc_matrix(g.labels)})
    return path
