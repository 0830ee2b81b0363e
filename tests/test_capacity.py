"""Tests of lgekit.theory.capacity and of the theory scripts / command."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lgekit.cli import main
from lgekit.theory import (
    fit_signed_pairs,
    random_labelled_regular_graph,
    shattering_norm_lower_bound,
    signed_pair_objective,
)

ROOT = Path(__file__).resolve().parent.parent


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3))
    pairs = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [0, 7]])
    y = rng.choice([-1.0, 1.0], size=len(pairs))
    f, g = signed_pair_objective(X, pairs, y, lam_r=0.3)
    h = 1e-6
    num = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        E = np.zeros_like(X)
        E[idx] = h
        num[idx] = (signed_pair_objective(X + E, pairs, y, 0.3)[0] - signed_pair_objective(X - E, pairs, y, 0.3)[0]) / (2 * h)
    assert np.allclose(g, num, atol=1e-8)


def test_weights_are_multiplicities():
    # a pair listed k times and the same pair with weight k give the same objective, gradient and fit
    rng = np.random.default_rng(5)
    X = rng.normal(size=(6, 3))
    pairs = np.array([[0, 1], [1, 2], [2, 3], [4, 5]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    w = np.array([3, 1, 2, 5])
    rep = np.repeat(np.arange(4), w)
    f_rep, g_rep = signed_pair_objective(X, pairs[rep], y[rep], lam_r=0.2)
    f_w, g_w = signed_pair_objective(X, pairs, y, lam_r=0.2, weights=w)
    assert f_w == pytest.approx(f_rep) and np.allclose(g_w, g_rep)
    a = fit_signed_pairs(pairs[rep], y[rep], 6, 3, lam_r=0.05, seed=1, maxiter=200)
    b = fit_signed_pairs(pairs, y, 6, 3, lam_r=0.05, seed=1, maxiter=200, weights=w.astype(float))
    assert b.objective == pytest.approx(a.objective, rel=1e-6)
    with pytest.raises(ValueError, match="weights must be positive"):
        fit_signed_pairs(pairs, y, 6, 3, weights=[1.0, 0.0, 1.0, 1.0])


def test_fit_uses_the_same_objective():
    graph, y = random_labelled_regular_graph(40, 4, seed=1)
    fit = fit_signed_pairs(graph.edges(), y, graph.n_nodes, 4, lam_r=0.05, seed=2, maxiter=300)
    value, grad = signed_pair_objective(fit.embedding, graph.edges(), y, 0.05)
    assert fit.objective == pytest.approx(value)
    assert np.abs(grad).max() < 1e-4  # L-BFGS stopped at a stationary point


def test_dimension_d_memorises_random_labels():
    graph, y = random_labelled_regular_graph(120, 4, seed=3)
    fit = fit_signed_pairs(graph.edges(), y, graph.n_nodes, 4, lam_r=0.0, seed=4)
    assert fit.memorised and fit.min_margin > 1 and fit.loss < 1e-3


def test_penalty_above_threshold_prevents_memorisation_at_any_dimension():
    # any memorising X has mean ||x||^2 >= L (the lower bound), so its objective is >= lam_r * L >= ln 2
    # = objective of X = 0 once lam_r >= ln 2 / L: the optimum cannot memorise, whatever D.
    graph, y = random_labelled_regular_graph(120, 4, seed=3)
    lam = 1.2 * math.log(2) / shattering_norm_lower_bound(graph, y)
    fit = fit_signed_pairs(graph.edges(), y, graph.n_nodes, 64, lam_r=lam, seed=4)
    assert not fit.memorised
    assert fit.objective <= math.log(2) + 1e-9


def test_errors():
    pairs = np.array([[0, 1]])
    with pytest.raises(ValueError, match="labels"):
        fit_signed_pairs(pairs, [2], 2, 2)
    # 0/1 labels (the common wrong encoding) and fractions inside [-1, 1] are refused too, not only |y| > 1
    for inside in ([0], [0.5], [-0.25]):
        with pytest.raises(ValueError, match=r"labels must be \+1/-1"):
            fit_signed_pairs(pairs, inside, 2, 2)
    with pytest.raises(ValueError, match="dim"):
        fit_signed_pairs(pairs, [1], 2, 0)
    with pytest.raises(ValueError, match="lam_r"):
        fit_signed_pairs(pairs, [1], 2, 2, lam_r=-1)
    with pytest.raises(ValueError, match="index vertices"):
        fit_signed_pairs(pairs, [1], 1, 2)
    with pytest.raises(ValueError, match="even"):
        random_labelled_regular_graph(5, 3)


def test_cli_rejects_unknown_check(capsys):
    with pytest.raises(SystemExit) as info:
        main(["theory", "nonsense"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_cli_convention_only_for_the_bound(capsys):
    assert main(["theory", "shattering", "--convention", "random", "--quick"]) == 2
    assert "--convention applies to the bound check only" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["theory", "bound", "--convention", "upper"])
    assert info.value.code == 2 and "invalid choice" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rademacher", "bound", "shattering", "capacity"])
def test_script_quick_mode(tmp_path, name):
    # the scripts run against this source tree, not whatever copy of lgekit is installed
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(ROOT / "theory" / f"verify_{name}.py"), "--quick", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=600, env=env)
    lines = proc.stdout.strip().splitlines()
    verdicts = [line for line in lines if line.startswith(("PASS ", "FAIL ", "INCONCLUSIVE "))]
    assert verdicts, proc.stdout + proc.stderr
    assert verdicts == lines[-len(verdicts):]  # the claims end the output
    # INCONCLUSIVE (a claim the quick cells cannot decide) is printed, not a failure
    assert proc.returncode == (1 if any(v.startswith("FAIL") for v in verdicts) else 0)
    assert proc.returncode == 0, "\n".join(verdicts)
    png = tmp_path / f"{name}.png"
    assert png.stat().st_size > 1000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / f"{name}.txt").read_text().strip().endswith(verdicts[-1])


@pytest.mark.slow
def test_cli_runs_the_same_code(tmp_path, capsys):
    status = main(["theory", "shattering", "--quick", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "PASS claim1-random-labels" in out
    assert (tmp_path / "shattering.png").exists()


@pytest.mark.parametrize("name", ["rademacher", "bound", "shattering", "capacity"])
def test_scripts_share_one_main(name):
    # each script is its docstring and a call of the shared main: the logic lives in lgekit.experiments
    source = (ROOT / "theory" / f"verify_{name}.py").read_text()
    code = [line for line in source.split('"""')[-1].splitlines() if line.strip()]
    assert code == ["import sys", "from lgekit.experiments.checks import main",
                    'if __name__ == "__main__":', f'    sys.exit(main("{name}", description=__doc__))']


def test_script_help_names_the_check(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(ROOT / "theory" / "verify_bound.py"), "--help"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Check Theorem 1" in proc.stdout and "--convention" in proc.stdout and "bound.png" in proc.stdout
