"""Ranking metrics of link prediction (issue 35, item 10): MRR and Hits@k, OGB's protocol.

Hand-computed ranks first (every tie policy), then the plausible wrong versions shown rejected by
the same check (no +1, ties ignored, ties broken by position), OGB's own formulas (its MRR with the
average rank; its Hits@K against shared negatives, which is the pessimistic rank), the exact
"all candidates" ranking against a brute-force oracle (raw and filtered), the sampled candidates
(deterministic from the seed, never a forbidden target) and the callback's fields.
"""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import lgekit
from lgekit.callbacks import LinkPredictionCallback
from lgekit.metrics import link_ranking, mrr_and_hits, ranks_from_scores, sample_candidates

POS = [2.0, 1.0, 5.0]
NEG = [[3.0, 2.0, 0.0],      # one above, one tied
       [1.0, 1.0, 1.0],      # all three tied
       [0.0, 0.0, 0.0]]      # none above
HAND = {"optimistic": [2, 1, 1], "pessimistic": [3, 4, 1], "average": [2.5, 2.5, 1]}


def check_ranks(got, ties):
    np.testing.assert_array_equal(got, HAND[ties])


@pytest.mark.parametrize("ties", sorted(HAND))
def test_ranks_by_hand_for_each_tie_policy(ties):
    check_ranks(ranks_from_scores(POS, NEG, ties=ties), ties)


def test_mrr_and_hits_by_hand():
    got = mrr_and_hits(ranks_from_scores(POS, NEG), ks=(1, 2, 3))
    assert got == pytest.approx({"mrr": (1 / 2.5 + 1 / 2.5 + 1) / 3, "hits@1": 1 / 3, "hits@2": 1 / 3,
                                 "hits@3": 1.0})
    pess = mrr_and_hits(ranks_from_scores(POS, NEG, ties="pessimistic"), ks=(3,))
    assert pess == pytest.approx({"mrr": (1 / 3 + 1 / 4 + 1) / 3, "hits@3": 2 / 3})


def test_the_wrong_versions_fail_the_hand_check():
    pos, neg = np.array(POS), np.array(NEG)
    no_plus_one = (neg > pos[:, None]).sum(axis=1)                               # 0-based ranks
    ties_ignored = 1 + (neg > pos[:, None]).sum(axis=1)      # the optimistic rank where "average" was asked
    by_position = 1 + np.argmax(np.argsort(-np.column_stack([pos, neg]), axis=1, kind="stable") == 0, axis=1)
    for wrong in (no_plus_one, ties_ignored, by_position):
        with pytest.raises(AssertionError):
            check_ranks(wrong, "average")


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_ogb_formulas(data):
    """OGB's _eval_mrr (rank = 1 + (#> + #>=) / 2) and its shared-negative Hits@K (a hit when the positive
    beats the K-th best negative strictly), written out as OGB writes them."""
    p = data.draw(st.integers(1, 8))
    m = data.draw(st.integers(1, 8))
    ints = st.integers(-3, 3).map(float)
    pos = data.draw(hnp.arrays(np.float64, p, elements=ints))
    neg = data.draw(hnp.arrays(np.float64, (p, m), elements=ints))
    ogb_rank = 0.5 * ((neg > pos[:, None]).sum(1) + (neg >= pos[:, None]).sum(1)) + 1
    np.testing.assert_array_equal(ranks_from_scores(pos, neg), ogb_rank)
    assert mrr_and_hits(ranks_from_scores(pos, neg), ks=(1,))["mrr"] == pytest.approx(np.mean(1 / ogb_rank))
    shared = neg[0]
    for k in range(1, m + 1):
        kth = np.sort(shared)[-k]
        ogb_hits = np.mean(pos > kth)
        got = mrr_and_hits(ranks_from_scores(pos, shared, ties="pessimistic"), ks=(k,))[f"hits@{k}"]
        assert got == pytest.approx(ogb_hits)


def brute_ranks(x, y, pos_pairs, allowed, ties):
    """Every allowed target of each source, scored densely."""
    s = x @ y.T
    out = []
    for i, (u, v) in enumerate(pos_pairs):
        negs = s[u][allowed[i]]
        out.append(ranks_from_scores([s[u, v]], negs[None, :], ties=ties)[0])
    return np.array(out)


@pytest.fixture(scope="module")
def karate():
    g = lgekit.Graph.from_networkx(nx.karate_club_graph())
    split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    model = lgekit.LogisticEmbedding(dim=8, epochs=5, dtype="float64", random_state=0).fit(split)
    return g, split, model


@pytest.mark.parametrize("filtered", [False, True])
def test_all_candidates_against_the_oracle(karate, filtered):
    g, split, model = karate
    x = np.round(model.embedding_ * 4)        # integers: real ties, exact products
    pos = split.test_positives
    adj = g.to_scipy("csr").toarray().astype(bool)
    allowed = np.ones((len(pos), g.n_nodes), dtype=bool)
    for i, (u, v) in enumerate(pos):
        allowed[i, [u, v]] = False
        if filtered:
            allowed[i, adj[u]] = False
    for ties in ("average", "pessimistic", "optimistic"):
        want = mrr_and_hits(brute_ranks(x, x, pos, allowed, ties), ks=(1, 5))
        got = link_ranking(x, pos, candidates="all", graph=g if filtered else None, ties=ties, ks=(1, 5))
        assert {k: got[k] for k in want} == pytest.approx(want)
        assert got["n_candidates"] == allowed.sum(1).min()
    # the raw and the filtered setting differ here: a check that mixed them up would be caught
    raw = link_ranking(x, pos, candidates="all", ks=(1, 5))
    assert raw["mrr"] != link_ranking(x, pos, candidates="all", graph=g, ks=(1, 5))["mrr"]


def test_sampled_candidates_are_seeded_and_never_forbidden(karate):
    g, split, _ = karate
    pos = split.test_positives
    adj = g.to_scipy("csr").toarray().astype(bool)
    w = sample_candidates(pos, g.n_nodes, 50, graph=g, seed=3)
    assert w.shape == (len(pos), 50)
    np.testing.assert_array_equal(w, sample_candidates(pos, g.n_nodes, 50, graph=g, seed=3))
    assert not np.array_equal(w, sample_candidates(pos, g.n_nodes, 50, graph=g, seed=4))
    for (u, v), row in zip(pos, w):
        assert not np.isin(row, [u, v]).any() and not adj[u, row].any()
    raw = sample_candidates(pos, g.n_nodes, 200, seed=3)     # without the graph: linked targets can be drawn
    assert any(adj[u, row].any() for (u, _), row in zip(pos, raw))
    # a source whose every target is forbidden is an error, not a hang
    star = lgekit.Graph.from_edges([(0, 1), (0, 2)], nodes=3)
    with pytest.raises(ValueError, match="source 0 .* has no target left"):
        sample_candidates([[0, 1]], 3, 5, graph=star)


def test_sampled_ranking_is_the_scores_of_its_candidates(karate):
    g, split, model = karate
    x = model.embedding_
    pos = split.test_positives
    got = link_ranking(x, pos, candidates=30, graph=g, seed=7, ks=(1, 10))
    w = sample_candidates(pos, g.n_nodes, 30, graph=g, seed=7)
    s = x @ x.T
    ranks = ranks_from_scores(s[pos[:, 0], pos[:, 1]], s[pos[:, [0]], w])
    assert {k: got[k] for k in ("mrr", "hits@1", "hits@10")} == pytest.approx(mrr_and_hits(ranks, (1, 10)))


def test_two_tables_rank_targets_of_the_source():
    rng = np.random.default_rng(0)
    x, y = rng.integers(-2, 3, (6, 3)).astype(float), rng.integers(-2, 3, (6, 3)).astype(float)
    pos = np.array([[0, 1], [2, 5], [4, 3]])
    allowed = np.ones((3, 6), dtype=bool)
    for i, (u, v) in enumerate(pos):
        allowed[i, [u, v]] = False
    want = mrr_and_hits(brute_ranks(x, y, pos, allowed, "average"), ks=(2,))
    got = link_ranking(x, pos, context=y, candidates="all", ks=(2,))
    assert got["mrr"] == pytest.approx(want["mrr"]) and got["hits@2"] == pytest.approx(want["hits@2"])
    wrong = mrr_and_hits(brute_ranks(y, x, pos, allowed, "average"), ks=(2,))     # the tables swapped
    assert wrong["mrr"] != pytest.approx(got["mrr"])


def test_ranking_errors_name_the_argument(karate):
    g, split, model = karate
    x, pos = model.embedding_, split.test_positives
    with pytest.raises(ValueError, match="ties must be"):
        ranks_from_scores(POS, NEG, ties="random")
    with pytest.raises(ValueError, match=r"negative_scores must have shape \(3, m\)"):
        ranks_from_scores(POS, [[1.0], [2.0]])
    with pytest.raises(ValueError, match="ks must be a positive int"):
        mrr_and_hits([1.0], ks=(0,))
    with pytest.raises(ValueError, match="candidates must be a positive int .* or 'all', got 'some'"):
        link_ranking(x, pos, candidates="some")
    with pytest.raises(ValueError, match="candidates must be a positive int"):
        link_ranking(x, pos, candidates=0)
    with pytest.raises(TypeError, match="graph must be an lgekit.Graph, an EdgeSplit, .*; got float"):
        link_ranking(x, pos, graph=3.0)
    with pytest.raises(ValueError, match="ranking must be"):
        LinkPredictionCallback(split, ranking=0)
    with pytest.raises(ValueError, match="hits_at must be"):
        LinkPredictionCallback(split, ranking=5, hits_at=(0,))


def test_callback_ranking_is_off_by_default_and_matches_link_ranking(karate):
    g, split, _ = karate
    plain = lgekit.LogisticEmbedding(dim=8, epochs=2, random_state=0).fit(
        split, callbacks=[LinkPredictionCallback(split)])
    assert not any("mrr" in k or "hits" in k for k in plain.history_[-1])
    model = lgekit.LogisticEmbedding(dim=8, epochs=2, random_state=0).fit(
        split, callbacks=[LinkPredictionCallback(split, ranking=25, hits_at=(3,), seed=5)])
    rec = model.history_[-1]
    want = link_ranking(model.embedding_, split.test_positives, candidates=25, graph=g, seed=5, ks=(3,))
    assert rec["test_mrr"] == pytest.approx(want["mrr"]) and rec["test_hits@3"] == pytest.approx(want["hits@3"])


def test_callback_ranking_on_a_directed_split():
    rng = np.random.default_rng(1)
    arcs = sorted({(int(u), int(v)) for u, v in rng.integers(0, 40, (300, 2)) if u != v})
    g = lgekit.Graph.from_edges(arcs, directed=True, nodes=40)
    split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    model = lgekit.LogisticEmbedding(dim=6, epochs=2, random_state=0).fit(
        split, callbacks=[LinkPredictionCallback(split, ranking=10, seed=2)])
    want = link_ranking(model.embedding_, split.test_positives, context=model.context_embedding_, candidates=10,
                        graph=g, seed=2, ks=(1, 10))
    assert model.history_[-1]["test_mrr"] == pytest.approx(want["mrr"])
    assert model.history_[-1]["test_hits@10"] == pytest.approx(want["hits@10"])


@pytest.mark.slow
def test_ranking_on_blogcatalog(data_dir):
    g = lgekit.datasets.load("blogcatalog", data_home=data_dir)
    split = lgekit.split_edges(g, test_fraction=0.1, seed=0)
    model = lgekit.LogisticEmbedding(dim=16, epochs=3, random_state=0).fit(
        split, callbacks=[LinkPredictionCallback(split, train=False, ranking=100, hits_at=(10,))])
    rec = model.history_[-1]
    want = link_ranking(model.embedding_, split.test_positives, candidates=100, graph=g, ks=(10,))
    assert rec["test_mrr"] == pytest.approx(want["mrr"])
    assert want["mrr"] > 2 * float(np.mean(1 / np.arange(1, 102)))     # better than a random order of 101


def test_bipartite_ranks_right_nodes_and_the_callback_agrees():
    """A bipartite split's pairs are (left, n_left + right): candidates are right nodes, the filter the biadjacency,
    and no node is its own candidate (left 3 and right 3 are two nodes)."""
    rng = np.random.default_rng(0)
    B = (rng.random((12, 15)) < 0.2).astype(int)
    for i in range(15):
        B[i % 12, i] = 1
    g = lgekit.Graph.from_biadjacency(B)
    split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
    model = lgekit.LogisticEmbedding(dim=4, epochs=2, dtype="float64", random_state=0).fit(
        split, callbacks=[LinkPredictionCallback(split, ranking=8, seed=2)])
    pos = split.test_positives - np.array([0, g.n_left])
    x, y = model.embedding_, model.context_embedding_
    want = link_ranking(x, pos, context=y, candidates=8, graph=g, seed=2, ks=(1, 10))
    assert model.history_[-1]["test_mrr"] == pytest.approx(want["mrr"])
    allowed = ~B[pos[:, 0]].astype(bool)             # right nodes not linked to the source (the positive included)
    oracle = mrr_and_hits(brute_ranks(x, y, pos, allowed, "average"), ks=(1, 10))
    got = link_ranking(x, pos, context=y, candidates="all", graph=g, ks=(1, 10))
    assert {k: got[k] for k in oracle} == pytest.approx(oracle)
    with pytest.raises(ValueError, match=r"sources must lie in \[0, 12\) \(the graph's left nodes\), got 12"):
        sample_candidates([[12, 0]], 15, 3, graph=g)
