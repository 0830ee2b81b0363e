"""``lgekit fit`` / ``lgekit evaluate`` on directed and bipartite graphs (issue 26 item 3, issue 27 item 5).

A two-table model is scored x_u . y_v; evaluate reads the kind from the model file or from fit.json beside
fit's word2vec files (or --directed / --bipartite for other files), and every file fit writes gives the test AP
that fit recorded for the same --test-fraction and --seed.
"""
import json

import numpy as np
import pytest

from lgekit.cli import main
from lgekit.models import BaseEmbedding


@pytest.fixture(scope="module")
def arcs_file(tmp_path_factory):
    """60 nodes, arcs mostly from a lower to a higher id: a direction to learn, so x_u . x_v would score worse."""
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 60, 700), rng.integers(0, 60, 700)
    keep = u != v
    arcs = np.column_stack([np.minimum(u, v), np.maximum(u, v)])[keep]
    flip = rng.random(len(arcs)) < 0.1
    arcs[flip] = arcs[flip][:, ::-1]
    path = tmp_path_factory.mktemp("two") / "arcs.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in arcs))
    return path


@pytest.fixture(scope="module")
def memberships_file(tmp_path_factory):
    """Users x groups, with ids that overlap between the sides (user 3 and group 3 are two nodes)."""
    rng = np.random.default_rng(1)
    lines = {f"{u}\t{g}\n" for u in range(50) for g in rng.choice(8, 2, replace=False) if (u + g) % 3}
    path = tmp_path_factory.mktemp("two") / "memberships.tsv"
    path.write_text("".join(sorted(lines)))
    return path


def _fit(graph, kind, out, seed="3"):
    return main(["fit", str(graph), f"--{kind}", "--model", "logistic", "--dim", "6", "--epochs", "4",
                 "--test-fraction", "0.25", "--seed", seed, "--out", str(out)])


def _evaluate(path, graph, *extra, seed="3"):
    return main(["evaluate", str(path), str(graph), "--test-fraction", "0.25", "--seed", seed, "--json", *extra])


@pytest.mark.parametrize("kind", ["directed", "bipartite"])
def test_every_file_fit_writes_evaluates_to_fits_test_ap(kind, arcs_file, memberships_file, tmp_path, capsys):
    graph = arcs_file if kind == "directed" else memberships_file
    out = tmp_path / "emb"
    assert _fit(graph, kind, out) == 0, capsys.readouterr().err
    record = json.loads((out / "fit.json").read_text())
    assert record["kind"] == kind
    assert record["files"] == {"model": "embedding.npz", "embedding": "embedding.txt",
                               "context_embedding": "context_embedding.txt", "history": "history.json",
                               "record": "fit.json"}
    capsys.readouterr()
    for name in ("embedding.npz", "embedding.txt", "context_embedding.txt", "fit.json", "history.json"):
        assert _evaluate(out / name, graph) == 0, (name, capsys.readouterr().err)
        scores = json.loads(capsys.readouterr().out)
        assert scores["kind"] == kind, name
        # the word2vec text holds float32 exactly (9 significant digits): the same scores, the same AP
        assert scores["ap"] == pytest.approx(record["final"]["test_ap"], abs=1e-12), name
        assert scores["train_ap"] == pytest.approx(record["final"]["train_ap"], abs=1e-12), name


def test_a_directed_model_is_not_scored_as_undirected(arcs_file, tmp_path, capsys):
    out = tmp_path / "emb"
    assert _fit(arcs_file, "directed", out) == 0
    record = json.loads((out / "fit.json").read_text())
    model = BaseEmbedding.load(out / "embedding.npz")
    # what the old evaluate computed: x_u . x_v on the graph loaded undirected
    np.save(tmp_path / "sources.npy", model.embedding_)
    capsys.readouterr()
    assert _evaluate(tmp_path / "sources.npy", arcs_file) == 0
    undirected = json.loads(capsys.readouterr().out)["ap"]
    assert undirected != pytest.approx(record["final"]["test_ap"], abs=1e-3)


def test_two_word2vec_files_one_per_table(arcs_file, memberships_file, tmp_path):
    for kind, graph in (("directed", arcs_file), ("bipartite", memberships_file)):
        out = tmp_path / kind
        assert _fit(graph, kind, out) == 0
        model = BaseEmbedding.load(out / "embedding.npz")
        for name, table, ids in (("embedding.txt", model.embedding_, model.node_ids_),
                                 ("context_embedding.txt", model.context_embedding_, model.context_node_ids_)):
            lines = (out / name).read_text().splitlines()
            assert lines[0] == f"{len(ids)} {table.shape[1]}"
            rows = {line.split()[0]: np.array(line.split()[1:], dtype=np.float32) for line in lines[1:]}
            assert sorted(rows) == sorted(str(i) for i in ids)       # plain ids: no "context:" prefix
            for i, node in enumerate(ids):
                np.testing.assert_array_equal(rows[str(node)], table[i])


def test_evaluate_a_model_files_word2vec_export_with_the_kind_option(arcs_file, memberships_file, tmp_path, capsys):
    """model.to_word2vec writes both tables in one file ('context:ID' rows); --directed / --bipartite say the kind."""
    for kind, graph in (("directed", arcs_file), ("bipartite", memberships_file)):
        out = tmp_path / kind
        assert _fit(graph, kind, out) == 0
        record = json.loads((out / "fit.json").read_text())
        both = tmp_path / f"{kind}-both.txt"
        BaseEmbedding.load(out / "embedding.npz").to_word2vec(both)
        capsys.readouterr()
        assert _evaluate(both, graph, f"--{kind}") == 0
        assert json.loads(capsys.readouterr().out)["ap"] == pytest.approx(record["final"]["test_ap"], abs=1e-12)
        # without the option the file does not say which kind of two-table model it is
        assert _evaluate(both, graph) == 2
        err = capsys.readouterr().err
        assert "holds two tables" in err and "pass --directed or --bipartite" in err


def test_kind_conflicts_and_missing_tables_are_one_line_errors(arcs_file, tmp_path, capsys):
    out = tmp_path / "emb"
    assert _fit(arcs_file, "directed", out) == 0
    capsys.readouterr()
    assert _evaluate(out / "embedding.npz", arcs_file, "--bipartite") == 2
    assert "records a model of a directed graph" in capsys.readouterr().err
    # one table cannot score x_u . y_v
    np.save(tmp_path / "one.npy", np.zeros((60, 3)))
    assert _evaluate(tmp_path / "one.npy", arcs_file, "--directed") == 2
    assert "holds one table" in capsys.readouterr().err
    # fit's folder without its target table
    (out / "context_embedding.txt").unlink()
    assert _evaluate(out / "embedding.txt", arcs_file) == 2
    err = capsys.readouterr().err
    assert "context_embedding.txt" in err and "is missing" in err and "Traceback" not in err
