"""The ``lgekit`` command's contract: user errors in one line (exit 2), bugs with their traceback, -v anywhere."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import lgekit
import lgekit.cli
from lgekit._commands import _common
from lgekit._validation import InvalidParameterError
from lgekit.cli import main

COMMANDS = Path(lgekit.__file__).parent / "_commands"


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    """A 40-node ring with chords: every command runs on it in well under a second."""
    path = tmp_path_factory.mktemp("cli") / "ring.edgelist"
    n = 40
    path.write_text("".join(f"{i} {(i + 1) % n}\n{i} {(i + 3) % n}\n" for i in range(n)))
    return path


@pytest.fixture(scope="module")
def embedding_file(tmp_path_factory):
    import numpy as np

    path = tmp_path_factory.mktemp("cli") / "emb.npy"
    np.save(path, np.random.default_rng(0).normal(size=(40, 3)))
    return path


def _bug(*args, **kwargs):
    raise ValueError("a bug deep inside lgekit")


def _spectral_bug(monkeypatch):
    import lgekit.models.spectral

    monkeypatch.setattr(lgekit.models.spectral, "spectral_embedding", _bug)


def _split_bug(monkeypatch):
    import lgekit.evaluation

    monkeypatch.setattr(lgekit.evaluation, "sample_negative_pairs", _bug)


def _metric_bug(monkeypatch):
    import lgekit.metrics

    monkeypatch.setattr(lgekit.metrics, "roc_auc", _bug)


def _fit_bug(monkeypatch):
    monkeypatch.setattr(lgekit.models.LogisticEmbedding, "fit", _bug)


def _registry_bug(monkeypatch):
    import lgekit.datasets

    monkeypatch.setattr(lgekit.datasets, "registry", _bug)


# --------------------------------------------------------------------------- bugs show their traceback
@pytest.mark.parametrize("command, patch", [
    ("demo", _spectral_bug),
    ("evaluate", _metric_bug),
    ("evaluate-all-edges", _split_bug),
    ("fit", _fit_bug),
    ("datasets", _registry_bug),
])
def test_a_bug_propagates_instead_of_becoming_a_user_error(command, patch, graph_file, embedding_file, tmp_path,
                                                           monkeypatch, capsys):
    """A plain ValueError raised inside a command is a bug: main() lets it through (traceback, exit status 1).

    Before, cli.py turned every ValueError/TypeError/KeyError into "lgekit CMD: error: ..." with exit 2, which
    made bugs look like user mistakes.
    """
    patch(monkeypatch)
    argv = {
        "demo": ["demo", "--dataset", str(graph_file), "--dim", "4"],
        "evaluate": ["evaluate", str(embedding_file), str(graph_file)],
        "evaluate-all-edges": ["evaluate", str(embedding_file), str(graph_file)],
        "fit": ["fit", str(graph_file), "--model", "logistic", "--dim", "4", "--epochs", "1",
                "--out", str(tmp_path / "out")],
        "datasets": ["datasets", "list"],
    }[command]
    with pytest.raises(ValueError, match="a bug deep inside lgekit") as info:
        main(argv)
    assert not isinstance(info.value, InvalidParameterError)
    assert "error:" not in capsys.readouterr().err


def test_a_bug_prints_its_traceback_and_exits_1_from_the_script(graph_file):
    code = ("import sys, lgekit.models.spectral as s\n"
            "def bug(*a, **k):\n    raise ValueError('a bug deep inside lgekit')\n"
            "s.spectral_embedding = bug\n"
            "from lgekit.cli import main\n"
            f"sys.exit(main(['demo', '--dataset', {str(graph_file)!r}, '--dim', '4']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.rstrip().endswith("ValueError: a bug deep inside lgekit")
    assert "lgekit demo: error:" not in done.stderr


# --------------------------------------------------------------------------- user errors in one line
def _user_errors():
    from lgekit.datasets import DataFormatError, DatasetNotFoundError, DownloadError
    from lgekit.models import DivergenceError

    return [
        (_common.CommandError("--dim is too large"), "--dim is too large"),
        (InvalidParameterError("dim must be an int >= 1, got 0"), "dim must be an int >= 1, got 0"),
        (DataFormatError("field 1 is not a number", path="g.txt", line=3), "g.txt, line 3: field 1 is not a number"),
        (DatasetNotFoundError("long text", dataset="ppi", reason="not on disk", hint="To install it by hand: ..."),
         "data set 'ppi' is not available: not on disk\nTo install it by hand: ..."),
        (DownloadError("long text", dataset="ppi", reason="HTTP 404", hint="To install it by hand: ..."),
         "data set 'ppi' is not available: HTTP 404\nTo install it by hand: ..."),
        (DivergenceError("diverged at epoch 3: try a smaller lr"), "diverged at epoch 3: try a smaller lr"),
        (FileNotFoundError("no such file 'x.txt'"), "no such file 'x.txt'"),
        (PermissionError("output folder 'o' is not writable"), "output folder 'o' is not writable"),
        (MemoryError("needs 9 GB; lower dim"), "out of memory: needs 9 GB; lower dim"),
    ]


@pytest.mark.parametrize("index", range(9))
def test_user_facing_errors_are_one_line_with_exit_status_2(index, graph_file, monkeypatch, capsys):
    import lgekit.models.spectral

    error, message = _user_errors()[index]

    def raise_it(*args, **kwargs):
        raise error

    monkeypatch.setattr(lgekit.models.spectral, "spectral_embedding", raise_it)
    assert main(["demo", "--dataset", str(graph_file), "--dim", "4"]) == 2
    err = capsys.readouterr().err
    assert err == f"lgekit demo: error: {message}\n"


@pytest.mark.parametrize("argv, message", [
    (["demo", "--dim", "0"], "lgekit demo: error: --dim must be an int >= 1, got 0"),
    (["demo", "--test-fraction", "1.5"], "lgekit demo: error: --test-fraction must be a number in (0, 1), got 1.5"),
    (["fit", "G", "--model", "logistic", "--lam-r", "-1", "--out", "o"],
     "lgekit fit: error: --lam-r must be a finite number >= 0, got -1.0"),
    (["fit", "G", "--model", "hinge", "--lam-r", "0", "--out", "o"],
     "lgekit fit: error: --lam-r must be a finite number > 0, got 0.0"),
    (["fit", "G", "--model", "hinge", "--epochs", "-2", "--out", "o"],
     "lgekit fit: error: --epochs must be an int >= 0, got -2"),
    (["evaluate", "E", "G", "--train-ratio", "0"],
     "lgekit evaluate: error: --train-ratio must be a number in (0, 1), got 0.0"),
    (["datasets", "info", "citeseer"], "lgekit datasets: error: unknown data set 'citeseer'"),
])
def test_options_are_checked_before_any_work(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and "Traceback" not in err


def test_data_the_command_cannot_use_is_a_user_error(tmp_path, embedding_file, capsys):
    complete = tmp_path / "k4.txt"
    complete.write_text("0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
    assert main(["fit", str(complete), "--model", "logistic", "--out", str(tmp_path / "o")]) == 2
    assert "is complete (4 nodes, 6 edges): there is no non-edge" in capsys.readouterr().err
    ring = tmp_path / "ring.txt"
    ring.write_text("0 1\n1 2\n2 0\n")
    assert main(["evaluate", str(embedding_file), str(ring)]) == 2
    assert "has 40 rows but the graph has 3 nodes" in capsys.readouterr().err
    path = tmp_path / "path.txt"
    path.write_text("0 1\n1 2\n2 3\n3 4\n")
    for fraction, sides in (("0.05", "4 training and 0 test edges"), ("0.95", "0 training and 4 test edges")):
        assert main(["fit", str(path), "--model", "logistic", "--test-fraction", fraction, "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert f"split of the graph '{path}' (4 edges) leaves {sides}" in err, err
    assert main(["demo", "--dataset", str(path), "--dim", "2", "--test-fraction", "0.05"]) == 2
    assert "leaves 4 training and 0 test edges" in capsys.readouterr().err


def test_double_verbose_shows_the_traceback_of_a_user_error():
    for argv in (["-vv", "demo", "--dim", "0"], ["demo", "--dim", "0", "-vv"], ["-v", "demo", "-v", "--dim", "0"]):
        with pytest.raises(InvalidParameterError, match="--dim must be an int >= 1, got 0"):
            main(argv)


# --------------------------------------------------------------------------- -v anywhere
@pytest.mark.parametrize("argv, expected", [
    (["datasets", "list"], 0),
    (["-v", "datasets", "list"], 1),
    (["datasets", "-v", "list"], 1),
    (["datasets", "list", "-v"], 1),
    (["datasets", "list", "--verbose"], 1),
    (["-v", "datasets", "-v", "list", "-v"], 3),
    (["-vv", "datasets", "list"], 2),
    (["fit", "G", "--model", "logistic", "-vv", "--out", "o"], 2),
    (["--verbose", "theory", "bound", "-v"], 2),
])
def test_verbose_is_accepted_anywhere_and_counts_add_up(argv, expected, monkeypatch):
    seen = []
    for name in ("datasets", "fit", "theory"):
        module = __import__(f"lgekit._commands.{name}", fromlist=["run"])
        monkeypatch.setattr(module, "run", lambda args: seen.append(args.verbose) or 0)
    assert main(argv) == 0
    assert seen == [expected]


def test_every_command_help_lists_verbose(capsys):
    for argv in (["fit"], ["demo"], ["datasets"], ["datasets", "fetch"], ["reproduce"], ["theory"]):
        with pytest.raises(SystemExit):
            main(argv + ["--help"])
        assert "-v, --verbose" in capsys.readouterr().out, argv


def test_version_comes_from_the_version_module(capsys):
    from lgekit._version import __version__

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"lgekit {__version__}"


# --------------------------------------------------------------------------- layering
def test_command_error_belongs_to_the_commands():
    assert lgekit.cli.CommandError is _common.CommandError   # still importable from cli for old callers
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)


@pytest.mark.parametrize("module", ["_common", "datasets", "demo", "fit", "evaluate"])
def test_commands_do_not_import_the_cli(module):
    """cli imports the commands; a command importing cli back (even inside a function) is a hidden cycle."""
    tree = ast.parse((COMMANDS / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = "." * node.level + (node.module or "")
            assert target not in ("..cli", "lgekit.cli"), f"{module}.py imports {target}"
