"""Nearest neighbours (issue 35, item 9): ``lgekit.neighbours.top_k_scores`` and ``most_similar``.

Every answer is checked against a brute-force oracle: the dense score matrix, the query node's own
entry removed, each row sorted by (score descending, row ascending).  Integer-valued embeddings make
the float64 products exact, so ties are real ties and the tie policy is tested, not hoped for.  The
oracle check is shown to reject the plausible wrong versions: the other direction of a two-table
model, the opposite tie policy, keeping the query node, and a bare ``argpartition``.
"""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import cosine_similarity

import lgekit
from lgekit import LogisticEmbedding
from lgekit.neighbours import top_k_scores


# ----------------------------------------------------------------- the oracle and its check
def oracle(queries, candidates, k, exclude=None, cosine=False):
    """Brute force: every score, the excluded row dropped, sorted by (-score, row)."""
    s = (cosine_similarity(queries, candidates) if cosine
         else np.asarray(queries, float) @ np.asarray(candidates, float).T)
    rows, scores = [], []
    for i, row in enumerate(s):
        order = sorted((j for j in range(len(row)) if exclude is None or j != exclude[i]),
                       key=lambda j: (-row[j], j))[:k]
        rows.append(order)
        scores.append(row[order])
    return np.array(rows, dtype=np.int64).reshape(len(s), k), np.array(scores).reshape(len(s), k)


def check_against_oracle(got, want):
    """The check every test applies: the same rows in the same order, the same scores."""
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)


int_tables = hnp.arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 4)),
                        elements=st.integers(-2, 2).map(float))


# ----------------------------------------------------------------- top_k_scores
@settings(max_examples=60, deadline=None)
@given(x=int_tables, data=st.data())
def test_top_k_scores_matches_the_oracle_whatever_the_blocks(x, data):
    """Small integer entries make many exact ties; tiny blocks make many merges."""
    n = len(x)
    k = data.draw(st.integers(1, n - 1))
    block = data.draw(st.sampled_from([8, 24, 80, None]))
    exclude = np.arange(n)
    got = top_k_scores(x, x, k, exclude=exclude, block_bytes=block)
    check_against_oracle(got, oracle(x, x, k, exclude))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_top_k_scores_two_tables_and_cosine(data):
    dim = data.draw(st.integers(1, 4))
    x, y = (data.draw(hnp.arrays(np.float64, (data.draw(st.integers(1, 20)), dim),
                                 elements=st.integers(-2, 2).map(float))) for _ in range(2))
    k = data.draw(st.integers(1, len(y)))
    block = data.draw(st.sampled_from([16, None]))
    check_against_oracle(top_k_scores(x, y, k, block_bytes=block), oracle(x, y, k))
    # cosines are not exact in floating point (near-ties may swap): the scores must agree
    got = top_k_scores(x, y, k, by="cosine", block_bytes=block)
    np.testing.assert_allclose(got[1], oracle(x, y, k, cosine=True)[1], atol=1e-12)


def test_ties_go_to_the_earlier_row_and_the_wrong_policies_fail():
    x = np.ones((7, 3))              # every pair scores 3: all tied
    x[4] = 2.0                       # ... except with node 4 (6)
    got = top_k_scores(x, x, 3, exclude=np.arange(7), block_bytes=16)
    assert got[0].tolist()[0] == [4, 1, 2]          # node 0: 4 first (6), then the earliest of the tied
    assert got[0].tolist()[4] == [0, 1, 2]          # node 4 itself excluded
    want = oracle(x, x, 3, np.arange(7))
    check_against_oracle(got, want)
    # the wrong versions: later row first among ties; the query node kept; a bare argpartition
    s = x @ x.T
    later_first = np.array([sorted(range(7), key=lambda j: (-s[i, j], -j))[:4] for i in range(7)])
    later_first = np.array([[j for j in r if j != i][:3] for i, r in enumerate(later_first)])
    kept_self = np.array([sorted(range(7), key=lambda j: (-s[i, j], j))[:3] for i in range(7)])
    s_ex = s.copy()
    np.fill_diagonal(s_ex, -np.inf)
    bare = np.argpartition(-s_ex, 2, axis=1)[:, :3]
    for wrong in (later_first, kept_self, bare):
        with pytest.raises(AssertionError):
            check_against_oracle((wrong, np.take_along_axis(s, wrong, 1)), want)


def test_top_k_scores_errors_name_the_argument():
    x = np.eye(4)
    with pytest.raises(ValueError, match=r"k=4 exceeds the 3 candidates .* besides the query node itself"):
        top_k_scores(x, x, 4, exclude=np.arange(4))
    with pytest.raises(ValueError, match="k must be an int >= 1, got 0"):
        top_k_scores(x, x, 0)
    with pytest.raises(ValueError, match="by must be"):
        top_k_scores(x, x, 1, by="euclid")
    with pytest.raises(ValueError, match="same dimension"):
        top_k_scores(x, np.eye(3), 1)
    with pytest.raises(ValueError, match="exclude must hold candidate rows"):
        top_k_scores(x, x, 1, exclude=np.array([0, 1, 2, 9]))
    with pytest.raises(ValueError, match="non-finite"):
        top_k_scores(x * np.nan, x, 1)


# ----------------------------------------------------------------- most_similar on fitted models
@pytest.fixture(scope="module")
def karate_model():
    g = nx.relabel_nodes(nx.karate_club_graph(), {i: f"n{i}" for i in range(34)})
    return LogisticEmbedding(dim=8, epochs=5, random_state=0).fit(g)


def test_most_similar_one_table_returns_ids_and_scores_of_the_oracle(karate_model):
    m = karate_model
    for by in ("score", "cosine"):
        ids, scores = m.most_similar("n5", k=6, by=by)
        assert ids.shape == (6,) and "n5" not in ids.tolist()
        rows, want = oracle(m.embedding_[[5]], m.embedding_, 6, [5], cosine=by == "cosine")
        assert ids.tolist() == [f"n{j}" for j in rows[0]]
        np.testing.assert_allclose(scores, want[0], rtol=1e-6)
        if by == "score":
            np.testing.assert_allclose(m.score_pairs([["n5", i] for i in ids]), scores, rtol=1e-12)
    many, many_scores = m.most_similar(["n1", "n2"], k=3)
    assert many.shape == many_scores.shape == (2, 3)
    assert many[1].tolist() == m.most_similar("n2", k=3)[0].tolist()
    rows, _ = m.most_similar(5, k=3, index=True)
    assert rows.tolist() == [int(i[1:]) for i in m.most_similar("n5", k=3)[0]]


def test_most_similar_bad_input_is_a_clear_error(karate_model):
    m = karate_model
    with pytest.raises(KeyError, match=r"most_similar: unknown node id\(s\) \['nope'\]"):
        m.most_similar("nope")
    with pytest.raises(ValueError, match="k=40 exceeds the 33 candidates"):
        m.most_similar("n1", k=40)
    with pytest.raises(ValueError, match="direction='out'.*undirected"):
        m.most_similar("n1", direction="out")
    with pytest.raises(ValueError, match="by must be"):
        m.most_similar("n1", by="dot")
    with pytest.raises(ValueError, match=r"indices must lie in \[0, 34\)"):
        m.most_similar(34, index=True)
    with pytest.raises(NotFittedError):
        LogisticEmbedding().most_similar("n1")


@pytest.fixture(scope="module")
def directed_model():
    rng = np.random.default_rng(0)
    arcs = {(int(u), int(v)) for u, v in rng.integers(0, 30, size=(150, 2)) if u != v}
    arcs |= {(i, i + 1) for i in range(29)}
    g = lgekit.Graph.from_edges(sorted(arcs), directed=True, nodes=30)
    return LogisticEmbedding(dim=6, epochs=5, dtype="float64", random_state=1).fit(g)


def test_most_similar_direction_out_and_in_against_the_oracle(directed_model):
    m = directed_model
    x, y = m.embedding_, m.context_embedding_
    out_ids, out_scores = m.most_similar([3, 7], k=5, direction="out")
    in_ids, in_scores = m.most_similar([3, 7], k=5, direction="in")
    want_out = oracle(x[[3, 7]], y, 5, [3, 7])          # targets v of x_u . y_v
    want_in = oracle(y[[3, 7]], x, 5, [3, 7])           # sources w of x_w . y_u
    check_against_oracle((out_ids, out_scores), want_out)
    check_against_oracle((in_ids, in_scores), want_in)
    # a wrong-direction implementation (either swapped, or one table) fails the same check
    for wrong in (want_in, oracle(x[[3, 7]], x, 5, [3, 7]), oracle(y[[3, 7]], y, 5, [3, 7])):
        with pytest.raises(AssertionError):
            check_against_oracle(wrong, want_out)
    np.testing.assert_allclose(m.score_pairs([[3, v] for v in out_ids[0]]), out_scores[0], rtol=1e-12)
    np.testing.assert_allclose(m.score_pairs([[w, 3] for w in in_ids[0]]), in_scores[0], rtol=1e-12)
    with pytest.raises(ValueError, match="direction must be 'out'.*directed graph, got None"):
        m.most_similar(3)


def test_most_similar_bipartite_ranks_the_other_side_and_keeps_same_named_nodes():
    B = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]])
    g = lgekit.Graph.from_biadjacency(B)
    m = LogisticEmbedding(dim=3, epochs=3, dtype="float64", random_state=0).fit(g)
    ids, scores = m.most_similar(0, k=4, direction="out")       # left 0 against all 4 right nodes
    check_against_oracle((ids, scores), tuple(a[0] for a in oracle(m.embedding_[[0]], m.context_embedding_, 4)))
    assert 0 in ids.tolist()         # right node 0 is not the query (left node 0): nothing excluded
    ids, _ = m.most_similar(3, k=3, direction="in")             # right 3 against the 3 left nodes
    assert sorted(ids.tolist()) == [0, 1, 2]


@pytest.mark.slow
def test_most_similar_on_blogcatalog_is_the_oracle(data_dir):
    """The real graph, with blocks much smaller than the graph (many merges)."""
    g = lgekit.datasets.load("blogcatalog", data_home=data_dir)
    m = LogisticEmbedding(dim=16, epochs=2, random_state=0).fit(g)
    rows = np.array([0, 17, 5000, g.n_nodes - 1])
    got = top_k_scores(m.embedding_[rows], m.embedding_, 10, exclude=rows, block_bytes=8 * 64 * 1000)
    s = m.embedding_[rows].astype(np.float64) @ m.embedding_.astype(np.float64).T
    s[np.arange(len(rows)), rows] = -np.inf
    want = np.argsort(-s, axis=1, kind="stable")[:, :10]
    np.testing.assert_array_equal(got[0], want)
    ids, _ = m.most_similar(g.node_ids[rows].tolist(), k=10)
    np.testing.assert_array_equal(ids, g.node_ids[want])


def test_most_similar_survives_pickle_joblib_and_save(karate_model, directed_model, tmp_path):
    """The client paths a fitted model travels: pickle, joblib, save/load; the answers are the same."""
    import pickle

    import joblib

    for model, kw in ((karate_model, {}), (directed_model, {"direction": "in"})):
        node = model.node_ids_[3]
        want = model.most_similar(node, k=4, **kw)
        joblib.dump(model, tmp_path / "m.joblib")
        model.save(tmp_path / "m.npz")
        for back in (pickle.loads(pickle.dumps(model)), joblib.load(tmp_path / "m.joblib"),
                     LogisticEmbedding.load(tmp_path / "m.npz")):
            got = back.most_similar(node, k=4, **kw)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
