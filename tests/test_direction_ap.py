"""Direction AP (can the scores tell an arc from its reverse?) and link-prediction AP with two tables.

Hypothesis: a scorer that puts every arc above every reverse gives exactly 1;
any one-table (symmetric) scorer gives exactly 0.5; the default score is each
arc's log-odds s(u, v) - s(v, u), "raw" pools the raw scores.  Hand-computed examples
for the filtering of reciprocated arcs and for the two-table pair scores;
every input error names its argument.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import lgekit
from lgekit.metrics import (
    average_precision,
    average_precision_from_scores,
    direction_average_precision,
    pair_scores,
)
from lgekit.evaluation import non_reciprocal_arcs


@st.composite
def acyclic_arcs(draw, max_nodes=12):
    """Distinct arcs u -> v with u < v (no arc has its reverse among them), and the node count."""
    n = draw(st.integers(2, max_nodes))
    cells = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                         min_size=1, max_size=30))
    arcs = sorted({(min(u, v), max(u, v)) for u, v in cells})
    return n, np.array(arcs, dtype=np.int64)


def _uphill_tables(n):
    # x_u = (1, u), y_v = (v, -1): x_u . y_v = v - u, positive on every uphill arc and negative on its reverse
    idx = np.arange(n, dtype=np.float64)
    return np.column_stack([np.ones(n), idx]), np.column_stack([idx, -np.ones(n)])


@given(acyclic_arcs())
def test_perfect_asymmetric_scorer_gives_one(case):
    n, arcs = case
    x, y = _uphill_tables(n)
    assert direction_average_precision(x, arcs, context=y) == 1.0
    # swapping the tables reverses every direction: every reverse now outranks every arc, so at any
    # positive's threshold all k negatives are counted and the precision is at most k / (k + k)
    assert direction_average_precision(y, arcs, context=x) <= 0.5


@given(acyclic_arcs(), st.data())
def test_symmetric_scorer_gives_one_half(case, data):
    n, arcs = case
    x = data.draw(arrays(np.float64, (n, data.draw(st.integers(1, 4))),
                         elements=st.floats(-10, 10, allow_nan=False, width=64)))
    # one table: x_u . x_v = x_v . x_u bit for bit, so every arc ties with its reverse: precision 1/2 everywhere
    assert direction_average_precision(x, arcs) == 0.5
    assert direction_average_precision(x, arcs, context=x.copy()) == 0.5
    assert direction_average_precision(x, arcs, score="raw") == 0.5


@given(acyclic_arcs(), st.data())
def test_direction_ap_is_the_ap_of_each_arcs_log_odds_against_its_negation(case, data):
    n, arcs = case
    shape = (n, 3)
    elements = st.floats(-5, 5, allow_nan=False, width=64)
    x = data.draw(arrays(np.float64, shape, elements=elements))
    y = data.draw(arrays(np.float64, shape, elements=elements))
    from sklearn.metrics import average_precision_score

    fwd = pair_scores(x, arcs, context=y)
    back = pair_scores(x, arcs[:, ::-1].copy(), context=y)
    labels = np.r_[np.ones(len(arcs)), np.zeros(len(arcs))]
    # default: the model's log-odds s(u, v) - s(v, u) that the arc points u -> v, against its negation
    expected = average_precision_from_scores(fwd - back, back - fwd)
    assert direction_average_precision(x, arcs, context=y) == expected
    assert expected == pytest.approx(average_precision_score(labels, np.r_[fwd - back, back - fwd]), abs=1e-12)
    # "raw": the pooled raw scores of the arcs against those of the reverses
    raw = average_precision(x, arcs, arcs[:, ::-1].copy(), context=y)
    assert direction_average_precision(x, arcs, context=y, score="raw") == raw
    assert raw == pytest.approx(average_precision_score(labels, np.r_[fwd, back]), abs=1e-12)


def test_log_odds_compares_each_pair_with_its_own_reverse_and_raw_pools_them():
    # arc 0 -> 1 has long vectors (scores 10 one way, 9 the other); arc 2 -> 3 short ones (1 and 0):
    # both point the right way, but pooled, the reverse 1 -> 0 (9) outranks the arc 2 -> 3 (1)
    x = np.array([[10.0, 0.0], [9.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    y = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    arcs = [[0, 1], [2, 3]]
    assert direction_average_precision(x, arcs, context=y) == 1.0
    assert direction_average_precision(x, arcs, context=y, score="raw") < 1.0
    with pytest.raises(ValueError, match="score must be 'log_odds'"):
        direction_average_precision(x, arcs, context=y, score="difference")


def test_graph_drops_reciprocated_arcs_and_self_loops():
    with pytest.warns(lgekit.GraphWarning, match=r"dropped 1 self-loop"):
        g = lgekit.Graph.from_edges([(0, 1), (1, 0), (1, 2), (2, 3), (3, 3)], directed=True)
    np.testing.assert_array_equal(non_reciprocal_arcs(g, [[0, 1], [1, 2], [2, 3], [3, 3]]), [[1, 2], [2, 3]])
    x, y = _uphill_tables(4)
    # (0, 1) is reciprocated in the graph: with graph= it is dropped, without it is an ordinary arc
    assert direction_average_precision(x, [[0, 1], [1, 2]], context=y, graph=g) == 1.0
    # (1, 0) alone would be a wrong-way arc for the uphill scorer; the graph says its direction is no question
    assert direction_average_precision(x, [[1, 0], [1, 2]], context=y, graph=g) == 1.0
    assert direction_average_precision(x, [[1, 0], [1, 2]], context=y) < 1.0


def test_input_errors_name_the_argument():
    x, y = _uphill_tables(4)
    with pytest.raises(ValueError, match="self-loop"):
        direction_average_precision(x, [[1, 1]], context=y)
    with pytest.raises(ValueError, match="its reverse are both in arcs"):
        direction_average_precision(x, [[0, 1], [1, 0]], context=y)
    with pytest.raises(ValueError, match="at least one arc"):
        direction_average_precision(x, np.empty((0, 2), dtype=np.int64), context=y)
    with pytest.raises(ValueError, match="integer"):
        direction_average_precision(x, [[0.0, 1.0]], context=y)
    with pytest.raises(ValueError, match="arcs"):
        direction_average_precision(x, [[0, 7]], context=y)
    with pytest.raises(ValueError, match="context must have the embedding's shape"):
        direction_average_precision(x, [[0, 1]], context=y[:3])
    undirected = lgekit.Graph.from_edges([(0, 1), (1, 2), (2, 3)])
    with pytest.raises(ValueError, match="directed graph"):
        direction_average_precision(x, [[0, 1]], context=y, graph=undirected)
    with pytest.raises(ValueError, match="directed graph"):
        non_reciprocal_arcs(undirected, [[0, 1]])
    with pytest.raises(TypeError, match="lgekit.Graph"):
        non_reciprocal_arcs({}, [[0, 1]])
    directed = lgekit.Graph.from_edges([(0, 1), (1, 2)], directed=True)
    with pytest.raises(ValueError, match="3 nodes but the embedding has 4 rows"):
        direction_average_precision(x, [[0, 1]], context=y, graph=directed)
    both = lgekit.Graph.from_edges([(0, 1), (1, 0), (2, 3)], directed=True)
    with pytest.raises(ValueError, match="no direction to tell"):
        direction_average_precision(x, [[0, 1]], context=y, graph=both)
    with pytest.raises(ValueError, match="non-finite"):
        direction_average_precision(np.full((4, 2), np.nan), [[0, 1]])


def test_two_table_scores_for_a_bipartite_right_table():
    x = np.array([[1.0, 0.0], [0.0, 2.0]])              # two left nodes
    y = np.array([[3.0, 1.0], [1.0, 1.0], [0.0, 5.0]])  # three right nodes, indexed within the side
    np.testing.assert_array_equal(pair_scores(x, [[0, 2], [1, 0], [1, 2]], context=y), [0.0, 2.0, 10.0])
    assert average_precision(x, [[1, 2]], [[0, 2], [1, 1]], context=y) == 1.0
    with pytest.raises(ValueError, match=r"pairs must hold node indices in \[0, 3\)"):
        pair_scores(x, [[0, 3]], context=y)
    with pytest.raises(ValueError, match="column 1 indexes the context's 2 rows"):
        pair_scores(y, [[0, 2]], context=x)
    with pytest.raises(ValueError, match="column 0 indexes the embedding's 2 rows"):
        pair_scores(x, [[2, 0]], context=y)
    with pytest.raises(ValueError, match="context must have the embedding's shape"):
        pair_scores(x, [[0, 0]], context=np.ones((3, 3)))


def test_direction_ap_of_the_uphill_scorer_equals_the_from_scores_value():
    x, y = _uphill_tables(5)
    arcs = np.array([[0, 4], [1, 2], [3, 4]])
    fwd = pair_scores(x, arcs, context=y)
    back = pair_scores(x, arcs[:, ::-1].copy(), context=y)
    assert direction_average_precision(x, arcs, context=y) == average_precision_from_scores(fwd, back) == 1.0


def test_email_eu_core_undirected_model_is_at_chance(data_dir):
    g = lgekit.datasets.load("email-eu-core", directed=True, data_home=data_dir)
    split = lgekit.split_edges(g, seed=0)
    arcs = non_reciprocal_arcs(g, split.test_positives)
    assert 0 < len(arcs) < len(split.test_positives)      # email-Eu-core has many reciprocated arcs
    x = np.random.default_rng(0).standard_normal((g.n_nodes, 8))
    assert direction_average_precision(x, split.test_positives, graph=g) == 0.5


# -- lgekit fit --directed / --bipartite --------------------------------------------------------------------------
def _fit(argv):
    from lgekit import cli

    return cli.main(["fit", *argv])


def test_fit_directed_keeps_the_arcs_and_reports_direction_ap(tmp_path, capsys):
    import json

    rng = np.random.default_rng(0)
    # 60 nodes, arcs mostly uphill: a direction to learn
    u = rng.integers(0, 60, 600)
    v = rng.integers(0, 60, 600)
    keep = u != v
    arcs = np.column_stack([np.minimum(u, v), np.maximum(u, v)])[keep]
    flip = rng.random(len(arcs)) < 0.1
    arcs[flip] = arcs[flip][:, ::-1]
    path = tmp_path / "arcs.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in arcs))
    out = tmp_path / "out"
    assert _fit([str(path), "--directed", "--model", "logistic", "--split", "0.2", "--epochs", "3",
                 "--out", str(out)]) == 0
    info = json.loads((out / "fit.json").read_text())
    assert info["kind"] == "directed"
    assert 0.0 <= info["final"]["test_direction_ap"] <= 1.0
    assert "test_direction_ap" in capsys.readouterr().out
    # without --directed the same file is undirected: no direction to report
    assert _fit([str(path), "--model", "logistic", "--split", "0.2", "--epochs", "2", "--out", str(tmp_path / "u")]) == 0
    info = json.loads((tmp_path / "u" / "fit.json").read_text())
    assert info["kind"] == "undirected" and "test_direction_ap" not in info["final"]


def test_fit_bipartite_and_the_exclusive_flags(tmp_path, capsys):
    import json

    path = tmp_path / "memberships.tsv"
    path.write_text("".join(f"user{i}\tgroup{i % 4}\n" for i in range(40)) + "".join(
        f"user{i}\tgroup{(i + 1) % 4}\n" for i in range(0, 40, 3)))
    out = tmp_path / "out"
    assert _fit([str(path), "--bipartite", "--model", "logistic", "--split", "0.2", "--epochs", "3",
                 "--out", str(out)]) == 0
    info = json.loads((out / "fit.json").read_text())
    assert info["kind"] == "bipartite" and 0.0 <= info["final"]["test_ap"] <= 1.0
    with pytest.raises(SystemExit) as exc:
        _fit([str(path), "--bipartite", "--directed", "--model", "logistic", "--out", str(out)])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
