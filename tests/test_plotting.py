"""A picture of an embedding (issue 35, item 11): ``lgekit.plotting`` and ``lgekit fit --plot``."""
import json

import numpy as np
import pytest
import scipy.sparse as sp
from matplotlib.figure import Figure
from sklearn.decomposition import PCA

import lgekit
from lgekit.cli import main
from lgekit.datasets import planted_partition_graph
from lgekit.plotting import colour_labels, plot_embedding, project

# 5 nodes, 3 classes of sizes 1, 2, 3 (class 2 the largest)
MEMBERS = np.array([[1, 0, 1],     # labels 0 and 2: class 2 has more members -> 2
                    [0, 1, 1],     # 1 and 2 -> 2
                    [0, 1, 0],     # only 1
                    [0, 0, 1],
                    [0, 0, 0]])    # no label -> -1
HAND = [2, 2, 1, 2, -1]


def check_colours(classes):
    np.testing.assert_array_equal(classes, HAND)


def test_a_multilabel_node_takes_its_most_frequent_label_and_the_wrong_rules_fail():
    classes, note = colour_labels(sp.csr_matrix(MEMBERS), 5)
    check_colours(classes)
    assert "most frequent label" in note and "multi-label" in note
    first_label = np.where(MEMBERS.any(1), MEMBERS.argmax(1), -1)                  # the first of its labels
    rarest = np.array([min(np.flatnonzero(r), key=lambda c: MEMBERS[:, c].sum()) if r.any() else -1 for r in MEMBERS])
    for wrong in (first_label, rarest):
        with pytest.raises(AssertionError):
            check_colours(wrong)
    # of equal sizes, the smaller class index
    tie = np.array([[1, 1], [1, 1]])
    assert colour_labels(tie, 2)[0].tolist() == [0, 0]
    one = colour_labels(np.array([0, 2, -1]), 3)
    assert one[0].tolist() == [0, 2, -1] and "most frequent" not in one[1]


def test_plot_embedding_draws_every_node_at_its_pca_coordinates():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 6))
    labels = np.arange(60) % 4
    fig = plot_embedding(x, labels, seed=0)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    title = ax.get_title().splitlines()
    assert title[0] == "PCA of 60 nodes (6 dimensions)" and title[1] == "colour: the node's label"
    points = np.concatenate([c.get_offsets() for c in ax.collections])
    assert len(points) == 60
    want = PCA(n_components=2).fit_transform(x)
    # the same points up to the sign of each component (PCA's convention) and the drawing order
    got = np.sort(np.abs(points), axis=0)
    np.testing.assert_allclose(got, np.sort(np.abs(want), axis=0), atol=1e-10)
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == [f"label {c} (15)" for c in range(4)]
    assert ax.get_xlabel().startswith("PC1 (")


def test_tsne_is_the_same_picture_for_the_same_seed():
    x = np.random.default_rng(1).normal(size=(40, 5))
    a = project(x, "tsne", seed=3)[0]
    np.testing.assert_array_equal(a, project(x, "tsne", seed=3)[0])
    assert plot_embedding(x, method="tsne", seed=3).axes[0].get_title().startswith("t-SNE of 40 nodes")


def test_a_model_and_a_graph_are_taken_as_they_are():
    g = planted_partition_graph(n_nodes=150, n_labels=5, seed=0)
    model = lgekit.LogisticEmbedding(dim=4, epochs=2, random_state=0).fit(g)
    fig = plot_embedding(model, g, title="my title")
    title = fig.axes[0].get_title().splitlines()
    assert title[0] == "my title" and "most frequent label" in " ".join(title[1:])
    unlabelled = plot_embedding(model).axes[0]
    assert "no labels" in unlabelled.get_title() and unlabelled.get_legend() is None


def test_plot_errors_name_the_argument():
    x = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="method must be"):
        plot_embedding(x, method="umap")
    with pytest.raises(ValueError, match=r"labels has 3 rows \(one per node\) but the embedding has 10 rows"):
        plot_embedding(x, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"labels has 4 rows \(one per node\) but the embedding has 10 rows"):
        plot_embedding(x, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="at least 3 rows"):
        plot_embedding(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="n_colours must be"):
        plot_embedding(x, n_colours=1)


def test_fit_plot_writes_a_png_listed_as_lgekits(labelled_mat_file, tmp_path, capsys):
    out = tmp_path / "emb"
    args = ["fit", str(labelled_mat_file), "--model", "logistic", "--dim", "4", "--epochs", "2", "--out", str(out)]
    assert main(args + ["--plot"]) == 0, capsys.readouterr().err
    png = out / "embedding.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "fit.json").read_text())["files"]["plot"] == "embedding.png"
    assert "embedding.png" in json.loads((out / ".lgekit-manifest.json").read_text())["files"]
    assert str(png) in capsys.readouterr().out
    # a later fit without --plot removes the picture of the earlier one (it no longer shows this embedding)
    assert main(args) == 0
    assert not png.exists()
    assert "embedding.png" not in json.loads((out / ".lgekit-manifest.json").read_text())["files"]
    # a picture the user put there is theirs: refused, not overwritten
    png.write_bytes(b"mine")
    assert main(args + ["--plot"]) == 2
    assert png.read_bytes() == b"mine"
    with pytest.raises(SystemExit):
        main(args + ["--force", "--plot", "umap"])     # argparse: "invalid choice: 'umap' (choose from ...)"
