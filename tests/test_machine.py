"""The machine's cores, counted one way (issue 45): the estimators' thread limit and the sweeps' worker count
both read :func:`lgekit.models._machine.available_cores`, which respects the process's affinity mask (and a
container's CPU quota) where ``os.cpu_count()`` does not.  Checked in a child process pinned to one core, where
the wrong count (``os.cpu_count()``) would still say every core of the machine."""
import json
import os
import subprocess
import sys
import textwrap

import joblib
import pytest

import lgekit
from lgekit.experiments import engine
from lgekit.models import max_n_threads
from lgekit.models._machine import MAX_THREADS_PER_CPU, available_cores

PINNED = textwrap.dedent("""
    import json, os, sys
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    from lgekit.experiments import engine
    from lgekit.models import max_n_threads
    from lgekit.models._machine import available_cores
    print(json.dumps({"cores": available_cores(), "threads": max_n_threads(), "jobs": engine._check_jobs(None),
                      "cpu_count": os.cpu_count()}))
""")


def test_one_count_of_cores_for_threads_and_jobs():
    cores = available_cores()
    assert cores == max(1, joblib.cpu_count()) and cores >= 1
    assert max_n_threads() == MAX_THREADS_PER_CPU * cores
    assert engine._check_jobs(None) == engine._check_jobs(-1) == cores
    assert not hasattr(engine, "available_cores") or engine.available_cores is available_cores
    assert "available_cores" not in engine.__all__        # exported by the module that defines it, only


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs an affinity mask of at least 2 cores to pin a child process to one")
def test_a_process_pinned_to_one_core_counts_one():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(os.path.dirname(os.path.dirname(lgekit.__file__))),
                                                         os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", PINNED], capture_output=True, text=True, env=env, check=True,
                         timeout=120)
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts["cpu_count"] >= 2                         # what the wrong count would have used
    assert counts == {"cores": 1, "threads": MAX_THREADS_PER_CPU, "jobs": 1, "cpu_count": counts["cpu_count"]}
