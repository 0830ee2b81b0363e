"""``lgekit fit`` and ``lgekit evaluate``: files written, scores that agree, clear errors."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lgekit.cli import main


@pytest.fixture(scope="module")
def unlabelled_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("graph") / "ring.edgelist"
    n = 30
    path.write_text("".join(f"{i} {(i + 1) % n}\n{i} {(i + 2) % n}\n" for i in range(n)))
    return path


@pytest.mark.parametrize("model", ["logistic", "hinge"])
def test_fit_writes_embedding_history_and_evaluate_agrees(model, labelled_mat_file, tmp_path, capsys):
    out = tmp_path / "emb"
    code = main(["fit", str(labelled_mat_file), "--model", model, "--dim", "8", "--epochs", "3", "--lam-r", "1",
                 "--seed", "5", "--test-fraction", "0.25", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    for name in ("embedding.npz", "embedding.txt", "history.json", "fit.json"):
        assert (out / name).is_file()
    history = json.loads((out / "history.json").read_text())
    assert [h["epoch"] for h in history] == [0, 1, 2]
    assert all(0 <= h["test_ap"] <= 1 for h in history)
    info = json.loads((out / "fit.json").read_text())
    assert info["params"]["dim"] == 8 and info["params"]["lam_r"] == 1.0
    capsys.readouterr()

    scores = {}
    for name in ("embedding.npz", "embedding.txt"):
        assert main(["evaluate", str(out / name), str(labelled_mat_file), "--test-fraction", "0.25", "--seed", "5", "--json",
                     "--labels"]) == 0
        scores[name] = json.loads(capsys.readouterr().out)
    # the same split (fraction + seed) as fit: evaluate reproduces fit's final test AP
    assert scores["embedding.npz"]["ap"] == pytest.approx(info["final"]["test_ap"], abs=1e-12)
    # word2vec text keeps float32 exactly (9 significant digits)
    assert scores["embedding.txt"]["ap"] == pytest.approx(scores["embedding.npz"]["ap"], abs=1e-12)
    for key in ("auc", "micro_f1", "macro_f1"):
        assert 0 <= scores["embedding.npz"][key] <= 1


def test_fit_deterministic_schedule_same_embedding_on_two_threads(labelled_mat_file, tmp_path, capsys):
    outs = []
    for threads in (1, 2):
        out = tmp_path / f"emb{threads}"
        assert main(["fit", str(labelled_mat_file), "--model", "logistic", "--dim", "8", "--epochs", "2",
                     "--threads", str(threads), "--schedule", "deterministic", "--out", str(out)]) == 0, \
            capsys.readouterr().err
        assert json.loads((out / "fit.json").read_text())["params"]["schedule"] == "deterministic"
        outs.append(np.load(out / "embedding.npz")["embedding"])
    assert np.array_equal(outs[0], outs[1])


def test_evaluate_plain_text_output(labelled_mat_file, tmp_path, capsys):
    emb = np.random.default_rng(0).normal(size=(200, 4))
    np.save(tmp_path / "e.npy", emb)
    assert main(["evaluate", str(tmp_path / "e.npy"), str(labelled_mat_file)]) == 0
    out = capsys.readouterr().out
    assert "AP: " in out and "AUC: " in out and "uniform non-edges" in out


def test_evaluate_errors(labelled_mat_file, unlabelled_file, tmp_path, capsys):
    assert main(["evaluate", str(tmp_path / "missing.npz"), str(labelled_mat_file)]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("hello world\n")
    assert main(["evaluate", str(bad), str(labelled_mat_file)]) == 2
    assert "not a word2vec text file" in capsys.readouterr().err
    np.save(tmp_path / "short.npy", np.zeros((10, 3)))
    assert main(["evaluate", str(tmp_path / "short.npy"), str(labelled_mat_file)]) == 2
    assert "has 10 rows but the graph has 200 nodes" in capsys.readouterr().err
    w2v = tmp_path / "partial.txt"
    w2v.write_text("2 2\n0 1.0 0.0\n1 0.0 1.0\n")
    assert main(["evaluate", str(w2v), str(unlabelled_file)]) == 2
    assert "no vector for 28 of the graph's 30 nodes" in capsys.readouterr().err
    np.save(tmp_path / "ring.npy", np.ones((30, 2)))
    assert main(["evaluate", str(tmp_path / "ring.npy"), str(unlabelled_file), "--labels"]) == 2
    assert "carries no node labels" in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "ring.npy"), str(unlabelled_file), "--test-fraction", "1.5"]) == 2
    # the options' table (lgekit._validation): option name, what is accepted, value received
    assert "--test-fraction must be a number in (0, 1), got 1.5" in capsys.readouterr().err


def test_fit_errors(labelled_mat_file, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["fit", str(labelled_mat_file), "--model", "deepwalk", "--out", str(tmp_path)])
    assert "invalid choice: 'deepwalk'" in capsys.readouterr().err
    blocker = tmp_path / "f"
    blocker.write_text("")
    assert main(["fit", str(labelled_mat_file), "--model", "hinge", "--out", str(blocker / "x")]) == 2
    assert "is not writable" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "nope.edgelist"), "--model", "hinge", "--out", str(tmp_path / "o")]) == 2
    assert "nope.edgelist" in capsys.readouterr().err
    assert main(["fit", str(labelled_mat_file), "--model", "hinge", "--dim", "0", "--out", str(tmp_path / "o")]) == 2
    assert "dim must be" in capsys.readouterr().err


def test_fit_refuses_too_many_threads_with_exit_2_not_a_crash(labelled_mat_file, tmp_path, capsys):
    # issue #13 item 4: --threads 100000 ended in a segmentation fault (exit 139)
    assert main(["fit", str(labelled_mat_file), "--model", "logistic", "--threads", "100000",
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "--threads must be an int in [1, " in err and "got 100000" in err
    out = subprocess.run([sys.executable, "-m", "lgekit", "fit", str(labelled_mat_file), "--model", "hinge", "--threads",
                          "100000", "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr
    assert "--threads must be an int in [1, " in out.stderr and "Traceback" not in out.stderr


def test_fit_reports_divergence_with_its_cause(labelled_mat_file, tmp_path, capsys):
    out = tmp_path / "div"
    assert main(["fit", str(labelled_mat_file), "--model", "logistic", "--lam-r", "1e300", "--epochs", "3", "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert "training diverged" in err and "lam_r=1e+300 is too large" in err
    # nothing is published (issue 42): the history stays in the run's folder, which the message names
    assert not (out / "history.json").exists()
    kept = re.search(r"this run's history is in (\S+), removed by the next run", err).group(1)
    history = json.loads(Path(kept).read_text())
    assert history[-1]["diverged"] is True and history[-1]["divergence_reason"].startswith("non-finite")


def test_evaluate_refuses_crafted_npy_files_in_one_line(labelled_mat_file, tmp_path, capsys):
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**12, 2)})
    huge = tmp_path / "huge.npy"
    huge.write_bytes(buf.getvalue() + b"\0" * 80)   # claims 16 TB: refused before numpy allocates it
    pickled = tmp_path / "pickled.npy"
    np.save(pickled, np.array([object()]), allow_pickle=True)
    for path, message in ((huge, "declares shape (1000000000000, 2)"), (pickled, "never loaded")):
        assert main(["evaluate", str(path), str(labelled_mat_file)]) == 2
        err = capsys.readouterr().err
        assert path.name in err and message in err and "Traceback" not in err


def test_fit_lists_every_file_it_wrote(labelled_mat_file, tmp_path, capsys):
    out = tmp_path / "emb"
    assert main(["fit", str(labelled_mat_file), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out", str(out)]) == 0
    wrote = capsys.readouterr().out.splitlines()[-1]
    assert wrote.startswith("wrote ")
    # every file but the manifest (.lgekit-manifest.json: which files in the folder lgekit wrote) and the lock
    # file (.lock: one run writes into the folder at a time)
    assert sorted(name.rsplit("/", 1)[-1] for name in wrote[len("wrote "):].split(", ")) == sorted(
        p.name for p in out.iterdir() if p.name not in (".lgekit-manifest.json", ".lock"))


def test_fit_leaves_no_folder_when_the_graph_fails_to_load(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["fit", str(tmp_path / "missing.txt"), "--model", "logistic", "--out", str(out)]) == 2
    assert "missing.txt" in capsys.readouterr().err
    assert not out.exists()


def test_fit_with_ids_word2vec_cannot_hold_skips_only_that_file(tmp_path, capsys):
    edges = tmp_path / "names.csv"
    edges.write_text("source,target\nJean Valjean,Javert\nJavert,Fantine\nFantine,Jean Valjean\nCosette,Fantine\n")
    out = tmp_path / "emb"
    assert main(["fit", str(edges), "--model", "logistic", "--dim", "4", "--epochs", "1", "--out", str(out)]) == 0
    assert "no word2vec file written (embedding.npz has the ids)" in capsys.readouterr().out
    assert (out / "embedding.npz").is_file() and not (out / "embedding.txt").exists()


def test_the_command_line_starts_without_the_scientific_stack():
    # lgekit --version (and --help) must not pay for numpy, scipy or scikit-learn: import is lazy
    code = ("import sys, lgekit.cli; lgekit.cli.build_parser(); import lgekit; lgekit.__version__; "
            "print(sorted(m for m in ('numpy', 'scipy', 'sklearn', 'matplotlib', 'networkx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_fit_exposes_every_estimator_parameter():
    # generated from the estimators' tables: a parameter added to an estimator appears here by itself
    import argparse

    from lgekit import HingeEmbedding, LogisticEmbedding
    from lgekit._commands import fit as fit_command
    from lgekit.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    dests = {a.dest for a in sub.choices["fit"]._actions}
    for cls in (LogisticEmbedding, HingeEmbedding):
        exposed = set(cls().get_params()) - fit_command._SET_BY_THE_COMMAND
        assert exposed <= dests, f"{cls.__name__} parameters without an option: {sorted(exposed - dests)}"
        assert set(cls._parameter_constraints) == set(cls().get_params())


def test_fit_passes_model_parameters_and_refuses_the_wrong_model(labelled_mat_file, tmp_path, capsys):
    out = tmp_path / "emb"
    assert main(["fit", str(labelled_mat_file), "--model", "logistic", "--dim", "4", "--epochs", "1", "--lr", "0.5",
                 "--lr-offset", "3", "--order", "vertex", "--no-diagnostics", "--dtype", "float64",
                 "--out", str(out)]) == 0
    params = json.loads((out / "fit.json").read_text())["params"]
    assert (params["lr"], params["lr_offset"], params["order"], params["diagnostics"], params["dtype"]) == (
        0.5, 3.0, "vertex", False, "float64")
    summary = capsys.readouterr().out
    assert "mean norm" in summary and "objective" not in summary      # no objective recorded, none printed
    assert main(["fit", str(labelled_mat_file), "--model", "hinge", "--dim", "4", "--epochs", "1", "--no-diagnostics",
                 "--out", str(tmp_path / "dcd")]) == 0
    assert json.loads((tmp_path / "dcd" / "fit.json").read_text())["params"]["diagnostics"] is False
    record = json.loads((tmp_path / "dcd" / "history.json").read_text())
    record = record[-1] if isinstance(record, list) else record["history"][-1]
    assert "objective" not in record and "duality_gap" not in record and "n_alpha_zero" in record
    capsys.readouterr()
    assert main(["fit", str(labelled_mat_file), "--model", "hinge", "--lr", "0.5", "--out", str(tmp_path / "h")]) == 2
    assert "--lr applies to --model logistic, not to --model hinge" in capsys.readouterr().err
    assert main(["fit", str(labelled_mat_file), "--model", "logistic", "--lr", "0", "--out", str(tmp_path / "z")]) == 2
    assert "--lr must be a finite number > 0, got 0" in capsys.readouterr().err
    assert not (tmp_path / "h").exists() and not (tmp_path / "z").exists()
