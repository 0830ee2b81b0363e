# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 7. Directed and bipartite graphs: two tables, and Theorem 1 in its own setting
#
# Notebooks 1-6 embedded undirected graphs with one vector per vertex and the
# symmetric score $x_u\cdot x_v$.  The paper's footnote 1 (Section 2) says how
# the directed case "is usually handled": *by associating each node with two
# embedding vectors for incoming and outgoing edges respectively, which is
# equivalent as learning embedding on a transformed undirected bipartite
# graph.*  An arc $u \to v$ is scored by
#
# $$ s(u, v) = x_u \cdot y_v, $$
#
# with $x_u$ the out-vector of $u$ (lgekit's `embedding_`) and $y_v$ the
# in-vector of $v$ (`context_embedding_`), and $s(u, v) \ne s(v, u)$ in
# general.  A bipartite graph (users and the groups they join, say) works the
# same way: a table for the left side and a table for the right side.
#
# Two questions for this notebook:
#
# 1. **Does the second table buy anything?**  On email-Eu-core (who e-mails
#    whom in a European research institution) we ask a question a symmetric
#    score cannot answer: *given a held-out arc, which way does it go?*  And
#    what must the objective ask for the model to learn it?
# 2. **What does Theorem 1 say now?**  Theorem 1 was *stated* for this case --
#    pairs $(a, b)$ from two vertex sets with separate norm budgets $C_U$ and
#    $C_V$.  Notebook 5 had to adapt it to one table; here it applies as
#    printed.
#
# `LGEKIT_TUTORIAL_FULL=1` trains longer, in more dimensions, and uses
# BlogCatalog's users x groups graph in the bipartite part.

# %%
import os

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

import lgekit
from lgekit import datasets, metrics, theory
from lgekit.models import LogisticEmbedding

FULL = os.environ.get("LGEKIT_TUTORIAL_FULL") == "1"
SEED = 0
DIM = 64 if FULL else 32
EPOCHS = 40 if FULL else 20
LAM_R = 0.1
N_DRAWS = 5 if FULL else 3
print(f"lgekit {lgekit.__version__}; full-size run: {FULL}")


def synthetic_directed_graph(n_nodes=1000, mean_degree=20, forward=0.85, seed=0):
    """A planted-partition graph whose edge {u, v}, u < v, becomes the arc u -> v with probability `forward`.

    The direction then follows a hidden node order (as e-mail tends to go from some senders to some
    receivers), which an out-/in-vector model can learn and a symmetric one cannot.
    """
    rng = np.random.default_rng(seed)
    base = datasets.planted_partition_graph(n_nodes=n_nodes, n_labels=10, mean_degree=mean_degree, seed=rng)
    edges = base.edges()
    flip = rng.random(len(edges)) >= forward
    arcs = np.where(flip[:, None], edges[:, ::-1], edges)
    return lgekit.Graph.from_edges(arcs, nodes=np.arange(base.n_nodes), directed=True, name="synthetic-directed")


def users_groups_graph(graph):
    """The bipartite users x groups graph of a labelled graph: one edge per (node, label) membership."""
    names = graph.label_names if graph.label_names is not None else np.arange(graph.n_labels)
    return lgekit.Graph.from_biadjacency(graph.labels, left_ids=graph.node_ids, right_ids=names,
                                         name=f"{graph.name}-groups")

# %% [markdown]
# ## 1. A directed graph, kept directed
#
# `datasets.load(..., directed=True)` keeps every arc as it is in the file
# (self-loops are dropped).  Without it the loader symmetrises, which is what
# notebooks 1-6 did.  If the data set is not on this machine, a synthetic
# directed graph stands in (a planted-partition graph whose edges mostly point
# "uphill" in a hidden node order, so there is a direction to learn).

# %%
try:
    graph = datasets.load("email-eu-core", directed=True, download=False)
except (FileNotFoundError, OSError) as exc:
    print(f"email-eu-core not found ({type(exc).__name__}): using a synthetic directed graph")
    graph = synthetic_directed_graph(seed=SEED)
print(graph, "| kind:", graph.kind)
reciprocated = graph.has_edges(graph.edges()[:, ::-1])
print(f"{reciprocated.mean():.1%} of the arcs have their reverse in the graph as well")


def claim(holds, what):
    """Assert a claim of the text on the graph it was written for (email-Eu-core, quick run); elsewhere report it.

    The prose describes the default run.  On the synthetic stand-in or the full-size graph the numbers differ,
    and a claim that does not hold there is printed instead of stopping the notebook.
    """
    if graph.name == "email-eu-core" and not FULL:
        assert holds, what
    elif not holds:
        print(f"[on {graph.name} the text's claim does not hold: {what}]")

# %% [markdown]
# `split_edges` keeps the kind: its positives are arcs $(u, v)$, and its
# negatives are pairs $(u, v)$, $u \ne v$, that are **not arcs**.  So the
# reverse $(v, u)$ of an arc without a reciprocal is a legitimate negative --
# which a symmetric score must get wrong on one side or the other.

# %%
split = lgekit.split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
direction_arcs, _ = split.direction_pairs()      # held-out arcs without a reciprocal, and their reverses
print(f"{len(split.train_positives):,} training arcs, {len(split.test_positives):,} held-out arcs, "
      f"{len(direction_arcs):,} of them without a reciprocal arc (the direction test set)")

# %% [markdown]
# ## 2. Two tables against one
#
# The same estimator, the same settings and seed, three times: twice on the
# directed split (two tables: free, and tied -- the default, explained below
# the table), once on the training arcs with their direction dropped (one
# table: the usual undirected model).  All are scored on the same held-out
# pairs:
#
# * **link AP** -- held-out arcs against held-out non-arcs (chance $= 1/5$);
# * **direction AP** -- a held-out arc $(u, v)$ without a reciprocal is linked
#   one way; which way?  With arcs independent and $P(u\to v) =
#   \sigma(s(u, v))$, the model's odds that it points $u \to v$ rather than
#   $v \to u$ are $\sigma(s_{uv})\sigma(-s_{vu}) / \sigma(s_{vu})\sigma(-s_{uv}) =
#   e^{s(u, v) - s(v, u)}$.  So each arc's log-odds $s(u, v) - s(v, u)$ is a
#   positive, its reverse's $s(v, u) - s(u, v)$ a negative
#   (`metrics.direction_average_precision`).  For the one-table model
#   $x_u\cdot x_v = x_v\cdot x_u$: every log-odds is 0, the precision is
#   $1/2$ at every threshold and the AP is **exactly 0.5**, by construction.

# %%
free = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, lam_tie=0.0, random_state=SEED).fit(split)
directed = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, random_state=SEED).fit(split)
undirected_graph = lgekit.Graph.from_edges(np.asarray(split.train_positives), nodes=np.arange(graph.n_nodes))
undirected = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, random_state=SEED).fit(undirected_graph)
print("directed model tables:", directed.embedding_.shape, directed.context_embedding_.shape)
print("undirected model has a context table:", getattr(undirected, "context_embedding_", None) is not None)

results = {}
for name, model, context in [("directed, free tables", free, free.context_embedding_),
                             ("directed, tied (default)", directed, directed.context_embedding_),
                             ("undirected (x_u . x_v)", undirected, None)]:
    results[name] = (
        metrics.average_precision(model.embedding_, split.test_positives, split.test_negatives, context=context),
        metrics.direction_average_precision(model.embedding_, split.test_positives, context=context, graph=graph),
    )
print(f"{'model':<24}{'link AP':>10}{'direction AP':>14}")
for name, (link, direction) in results.items():
    print(f"{name:<24}{link:>10.4f}{direction:>14.4f}")
(link_free, dir_free), (link_directed, dir_directed), (link_undirected, dir_undirected) = results.values()
print(f"the tie's weight here: lam_tie = r / (1 - r) = {directed.solver_.lam_tie:.3f}")
assert dir_directed > 0.55 and dir_undirected == 0.5
claim(link_undirected - link_free > 0.05, "two free tables lose link AP")
claim(link_directed - link_free > 0.05 and link_undirected - link_directed < 0.02, "the tie wins most of it back")
claim(abs(link_free - 0.74) < 0.01 and abs(link_directed - 0.86) < 0.01 and abs(link_undirected - 0.875) < 0.01,
      "link AP about 0.74, 0.86 and 0.875")
claim(dir_directed - dir_free > 0.03, "and the tie tells direction better too")

# %% [markdown]
# What the table shows (asserted): both directed models tell the direction
# of held-out arcs better than chance, which the undirected model cannot do
# at all -- its direction AP is exactly 0.5 (how much better, and against
# what, is part 3).  With two **free** tables the link AP is clearly
# *lower*, about 0.74 against 0.875 (asserted): the undirected model pools
# the evidence of both directions into one vector per node (a reciprocated
# pair counts once, and every arc informs both ends' single vector), while
# two free tables split it -- and 71 % of email-Eu-core's arcs are
# reciprocated, so most of what the two vectors of a node learn is the same
# thing, learnt twice from half the evidence.
#
# The default **ties** the tables.  Write node $u$'s two vectors as
# $x_u = z_u + w_u$, $y_u = z_u - w_u$: the score splits into a symmetric
# part and an antisymmetric part $w_u\cdot z_v - z_u\cdot w_v$, which is
# all that tells $u \to v$ from $v \to u$.  Only the one-way arcs inform $w$,
# yet $\lambda_r$ regularises it like $z$.  The tie adds
#
# $$\lambda_{\rm tie}\sum_u\|x_u - y_u\|^2 = 4\lambda_{\rm tie}\sum_u\|w_u\|^2,
#   \qquad \lambda_{\rm tie} = \frac{r}{1 - r},$$
#
# with $r$ the share of training arcs that are reciprocated: 0 on a graph
# without reciprocated arcs (two free tables), growing without bound as the
# graph becomes symmetric (one table).  The solver takes its proximal step
# after every epoch: each node keeps $x_u + y_u$ and shrinks $x_u - y_u$
# (the user guide's LogisticEmbedding page derives it, under "Ties"; the
# node biases of part 6 are left out of the tie).  Tied, the directed model
# comes within about 0.015 of the undirected model's link AP (0.86,
# asserted) and tells direction better than free tables.
# `benchmarks/bench_directed.py` measures these over three seeds at the
# defaults' $\lambda_r = 0.3$.
#
# **Claim: two tables score an arc and its reverse differently, mostly in
# the arc's favour.**  For each direction-test arc, the figure plots the
# score of the arc (vertical) against the score of its reverse (horizontal):
# the undirected model's points lie on the diagonal (the two scores are
# equal), the directed model's spread off it.

# %%
fwd = metrics.pair_scores(directed.embedding_, direction_arcs, context=directed.context_embedding_)
back = metrics.pair_scores(directed.embedding_, direction_arcs[:, ::-1].copy(), context=directed.context_embedding_)
u_fwd = metrics.pair_scores(undirected.embedding_, direction_arcs)
u_back = metrics.pair_scores(undirected.embedding_, direction_arcs[:, ::-1].copy())
fig, ax = plt.subplots(figsize=(5, 4.5))
ax.scatter(back, fwd, s=4, alpha=0.4, label="directed: x_u.y_v vs x_v.y_u")
ax.scatter(u_back, u_fwd, s=4, alpha=0.4, label="undirected: x_u.x_v vs x_v.x_u")
lim = [min(back.min(), fwd.min(), u_fwd.min()), max(back.max(), fwd.max(), u_fwd.max())]
ax.plot(lim, lim, "k:", lw=1)
ax.set_xlabel("score of the reverse (v, u)")
ax.set_ylabel("score of the held-out arc (u, v)")
ax.legend(fontsize=8)
ax.set_title(f"arc above its reverse for {np.mean(fwd > back):.0%} of the direction-test arcs", fontsize=9)
plt.show()
assert np.mean(fwd > back) > 0.5 and np.array_equal(u_fwd, u_back)

# %% [markdown]
# **What the figure shows** (asserted): the undirected model's points sit
# exactly on the diagonal; most of the directed model's points lie **above**
# it -- the held-out arc scores higher than its reverse, for the fraction
# given in the title.

# %% [markdown]
# ## 3. Asking the objective for direction
#
# **Claim: two tables make direction learnable; only the negatives make the
# objective ask for it.**  The simplest direction predictor reads degrees:
# node $u$'s "sender-ness" $r_u = (\text{out-degree} + 1) / (\text{in-degree}
# + 1)$ in the *training* arcs, an arc $(u, v)$ scored $\log r_u - \log r_v$.
# Against it, the same directed model twice.  With uniform negatives
# (`reverse_negatives=0`, "before") the objective is footnote 1's
#
# $$L_0 = -\lambda_+\sum_{(u,v)\in E_+}\log\sigma(x_u\cdot y_v)
#   - \lambda_-\sum_{(a,b)\in E_-}\log\sigma(-x_a\cdot y_b)
#   + \lambda_r\Big(\sum_u\|x_u\|^2 + \sum_v\|y_v\|^2\Big),$$
#
# and the reverse $(v, u)$ of a training arc is in $E_-$ only by chance,
# about $|E_-|/n^2$ of the time: nothing pushes $x_u\cdot y_v$ above
# $x_v\cdot y_u$ in particular.  With `reverse_negatives=`$\rho$ ("after";
# the default on a directed graph is $\rho = 0.35\,r$, 0.20 here) a share $\rho$ of each
# one-way training arc's $q = |E_-|/|E_+|$ negatives is its reverse, in place
# of as many uniform ones (an epoch costs the same):
#
# $$L_\rho = -\lambda_+\sum_{E_+}\log\sigma(x_u\cdot y_v)
#   - \lambda_-\sum_{E_-^{\rm unif}}\log\sigma(-x_a\cdot y_b)
#   - \lambda_-\,\rho q\!\!\sum_{u\to v\ \text{one-way}}\!\!\log\sigma(-x_v\cdot y_u)
#   + \lambda_r\Big(\sum_u\|x_u\|^2 + \sum_v\|y_v\|^2\Big).$$
#
# The held-out test is `split.direction_pairs()`: the held-out one-way arcs
# and their reverses (the split's link-prediction negatives stay uniform).

# %%
def sender_ratio_scores(train_arcs, n_nodes, arcs):
    """log r_u - log r_v for each arc (u, v), r = (out-degree + 1) / (in-degree + 1) in the training arcs."""
    out_deg = np.bincount(train_arcs[:, 0], minlength=n_nodes)
    in_deg = np.bincount(train_arcs[:, 1], minlength=n_nodes)
    log_r = np.log((out_deg + 1.0) / (in_deg + 1.0))
    return log_r[arcs[:, 0]] - log_r[arcs[:, 1]]


arcs, reverses = split.direction_pairs()
train_arcs = np.asarray(split.train_positives)
ap_degree = metrics.average_precision_from_scores(sender_ratio_scores(train_arcs, graph.n_nodes, arcs),
                                                  sender_ratio_scores(train_arcs, graph.n_nodes, reverses))
by_rho = {}
for rho in (0.0, None, 0.5):
    m = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, reverse_negatives=rho, random_state=SEED).fit(split)
    by_rho[rho] = (
        metrics.average_precision(m.embedding_, split.test_positives, split.test_negatives,
                                  context=m.context_embedding_),
        metrics.direction_average_precision(m.embedding_, arcs, context=m.context_embedding_, graph=graph),
    )
print(f"{'predictor':<44}{'link AP':>9}{'direction AP':>14}")
print(f"{'degree ratio (training arcs)':<44}{'-':>9}{ap_degree:>14.4f}")
for rho, (link, direction) in by_rho.items():
    shown = f"{0.35 * split.train_graph.reciprocity():.2f}  (default: 0.35 r)" if rho is None else f"{rho:g}"
    label = "directed, reverse_negatives=" + ("0  (before)" if rho == 0 else shown)
    print(f"{label:<44}{link:>9.4f}{direction:>14.4f}")
directions = [d for _, d in by_rho.values()]
links = [l for l, _ in by_rho.values()]
claim(directions[0] < directions[1] < directions[2], "direction AP rises with the share of reverse negatives")
claim(links[0] > links[1] > links[2], "link AP falls as the share of reverse negatives grows")
claim(directions[0] < ap_degree < directions[1], "the default share takes the embedding past the degree ratio")

# %% [markdown]
# **What the table shows** (asserted): asking for direction helps -- direction
# AP rises with $\rho$ -- and costs link AP as $\rho$ grows, which is why the
# default share is moderate (at this notebook's $\lambda_r = 0.1$ it costs more
# link AP than at the default $\lambda_r = 0.3$ that `benchmarks/bench_directed.py`
# runs).  With uniform negatives the embedding stays below the degree ratio;
# at the default share it passes it, narrowly (asserted on this split; over
# three seeds, 0.876 against 0.874 at $\lambda_r = 0.3$).  On email-Eu-core a
# per-node "sender-ness" is nearly all the direction signal: the degree ratio
# reads it from counts, and the model carries it in a pair of node-bias
# coordinates (`node_bias`, part 6).  The reverse pairs are what tells a
# one-way arc from a reciprocated one, so the default share grows with the
# share $r$ of reciprocated arcs; on a graph without any, the uniform
# negatives already make every reverse a non-arc.  On a graph whose arcs all
# point one way -- a growing citation-like network -- the same model tells
# direction almost perfectly:

# %%
citation = lgekit.Graph.from_networkx(nx.gnc_graph(1000, seed=SEED))
csplit = lgekit.split_edges(citation, test_fraction=0.2, seed=SEED)
cmodel = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=0.3, random_state=SEED).fit(csplit)
c_arcs, _ = csplit.direction_pairs()
ap_citation = metrics.direction_average_precision(cmodel.embedding_, c_arcs, context=cmodel.context_embedding_,
                                                  graph=citation)
print(f"networkx.gnc_graph(1000): {citation.kind}, {citation.n_edges:,} arcs, none reciprocated; "
      f"direction AP {ap_citation:.4f}")
assert ap_citation > 0.95

# %% [markdown]
# ## 4. Theorem 1, as printed
#
# Theorem 1 (Section 3.1) samples labelled pairs $(a_i, b_i, y_i)$ from two
# vertex sets and bounds every embedding with
# $\sum_{u\in U}\|x_u\|^2 \le C_U$ and $\sum_{v\in V}\|x_v\|^2 \le C_V$:
#
# $$
# \mathbb E\,l \le \hat l + \frac{2}{m+m'}\,\mathbb E_\sigma\|A_\sigma\|_2\sqrt{C_U C_V}
# + 4B\sqrt{\frac{2\ln(4/\delta)}{m+m'}} .
# $$
#
# For our directed model $U$ are the out-vectors (rows: sources) and $V$ the
# in-vectors (columns: targets); $A_\sigma$ is the $|U|\times|V| = n \times n$
# matrix with a random sign at (source, target) of every training arc and
# negative -- **not** symmetrised: $(u, v)$ and $(v, u)$ are different cells.
# `theory.theorem1_pattern` builds it, `theory.norm_constants` reads $C_U$ and
# $C_V$ off the two tables.

# %%
pattern, scale = theory.theorem1_pattern(split)
spec = theory.theorem1_spectral_norm(split, n_draws=N_DRAWS, seed=SEED)
C_U, C_V = theory.norm_constants(directed)
gap = theory.generalization_gap(directed, split, B=1.0)
m = len(split.train_positives) + len(split.train_negatives)
bound = theory.theorem1_bound(gap.train_loss, m, spec.value, C_U, C_V, B=1.0)
print(f"A_sigma: {pattern.shape[0]} x {pattern.shape[1]} ({spec.convention}), E||A_sigma|| = {spec.value:.2f}")
print(f"C_U = {C_U:.1f} (out-vectors), C_V = {C_V:.1f} (in-vectors)")
print(f"training loss {gap.train_loss:.4f}, held-out {gap.test_loss:.4f}, gap {gap.gap:.4f}")
print(f"bound {bound.rhs:.3f} = {bound.train_loss:.3f} + complexity {bound.complexity:.3f} "
      f"+ confidence {bound.confidence:.3f}; vacuous: {bound.is_vacuous(gap.trivial_loss)}")

# %% [markdown]
# As in notebook 5, at this sample size per vertex the bound is vacuous
# unless $\lambda_r$ is large; `lgekit theory directed` runs the whole
# $\lambda_r$ sweep on email-Eu-core and on BlogCatalog's users x groups graph.
#
# **Footnote 1's "transformed undirected bipartite graph".**  Put the $n$
# out-copies and the $n$ in-copies of the nodes into one vertex set of $2n$
# nodes and read every arc $u \to v$ as an undirected edge
# $\{u_{\rm out}, v_{\rm in}\}$.  Its symmetric sign matrix is the *dilation*
# $\begin{pmatrix}0 & A\\ A^\top & 0\end{pmatrix}$, whose singular values are
# those of $A$: with the same signs, the two spectral norms are equal.

# %%
pairs = theory.oriented_training_pairs(split)[0]
n = graph.n_nodes
dilation = theory.PairPattern(np.column_stack([pairs[:, 0], n + pairs[:, 1]]), shape=(2 * n, 2 * n),
                              kind="homogeneous")
signs = pattern.draw_signs(SEED)
norm_a, norm_dil = pattern.spectral_norm(signs, tol=1e-6)[0], dilation.spectral_norm(signs, tol=1e-6)[0]
print(f"||A|| = {norm_a:.6f}, ||dilation|| = {norm_dil:.6f}")
assert np.isclose(norm_a, norm_dil, rtol=1e-5)

# %% [markdown]
# ## 5. A bipartite graph
#
# A bipartite graph has two node sets with their own ids: node indices
# `0..n_left-1` are the left side, `n_left..n_nodes-1` the right side, and the
# model's `embedding_` has `n_left` rows, `context_embedding_` has `n_right`.
# Here: BlogCatalog's users on the left and the 39 interest groups they join
# on the right, an edge per membership (`users_groups_graph`, built with
# `Graph.from_biadjacency`); a 2000-node synthetic BlogCatalog stands in when
# the data set is absent.  A user is in very few groups (printed below), so
# many held-out memberships belong to users with little else to go on:
# expect a modest AP, above chance (asserted).

# %%
labelled, note = datasets.load_or_synthetic("blogcatalog", n_nodes=2000, seed=SEED)
if note:
    print(note)
members = users_groups_graph(labelled)
print(members, "| n_left:", members.n_left, "n_right:", members.n_right)
bsplit = lgekit.split_edges(members, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
bmodel = LogisticEmbedding(dim=16, epochs=EPOCHS, lam_r=LAM_R, random_state=SEED).fit(bsplit)
print(f"{members.n_edges / members.n_left:.2f} groups per user on average")
print("tables:", bmodel.embedding_.shape, bmodel.context_embedding_.shape)
bpattern, _ = theory.theorem1_pattern(bsplit)
print("A_sigma:", bpattern.shape, "| C_U, C_V =", tuple(round(c, 1) for c in theory.norm_constants(bmodel)))
# the held-out pairs as (left row, right row) of the two tables
test_pos = theory.theorem1_pairs(members, bsplit.test_positives)
test_neg = theory.theorem1_pairs(members, bsplit.test_negatives)
ap_members = metrics.average_precision(bmodel.embedding_, test_pos, test_neg, context=bmodel.context_embedding_)
print(f"held-out membership AP: {ap_members:.4f} (chance 0.2)")
claim(ap_members > 0.25, "the membership AP is above chance")

# %% [markdown]
# ## 6. Cora: what the degree rule knows, and what the model learns beyond it
#
# *(A separate section, added for issue 34.)*  Cora is a citation graph of
# 2,708 machine-learning papers: an arc $u \to v$ when paper $u$ cites
# paper $v$.  It is almost a DAG -- a paper cites older papers -- so the
# direction of an arc is nearly fixed by a per-node order, publication time,
# which the degree rule reads from the counts: a paper that cites many and
# is cited little is recent.  The LINQS file writes each line as
# `<cited> <citing>`; `datasets.load("cora", directed=True)` turns it round,
# so the arcs point citing $\to$ cited.  Without the file, a growing-network
# graph (`networkx.gnc_graph`, every arc one way) stands in and the claims
# below are only reported.
#
# Two tables can hold a per-node order exactly -- $x_u = (a_u, 1)$,
# $y_v = (1, -a_v)$ give $x_u\cdot y_v = a_u - a_v$ -- but plain SGD spreads
# it over every coordinate under one $\lambda_r$ and learns it poorly.  So on
# a directed graph `LogisticEmbedding` sets two of the `dim` columns aside as
# **node biases** (`node_bias=None` means on for a directed graph):
#
# $$x_u = (x'_u,\ b_u,\ \kappa), \qquad y_v = (y'_v,\ \kappa,\ c_v), \qquad
#   x_u\cdot y_v = x'_u\cdot y'_v + \kappa\,(b_u + c_v),$$
#
# with the constant coordinates held at $\kappa$ by the kernel.  The direction
# log-odds $s(u,v) - s(v,u)$ then contain $a_u - a_v$ with
# $a_u = \kappa(b_u - c_u)$: a learned Bradley-Terry order, next to what the
# free coordinates add.  On a directed graph the solver keeps the biases an
# order, $c_u = -b_u$ (a projection after every epoch), so they add
# $\kappa(b_u - b_v)$ to the score of $u \to v$ and nothing to a node's
# popularity, which the free coordinates carry.

# %%
try:
    cora = datasets.load("cora", directed=True, download=False)
except (FileNotFoundError, OSError) as exc:
    print(f"cora not found ({type(exc).__name__}): using networkx.gnc_graph(2708) instead")
    cora = lgekit.Graph.from_networkx(nx.gnc_graph(2708, seed=SEED), name="gnc-stand-in")
print(cora, f"| {cora.has_edges(cora.edges()[:, ::-1]).mean():.1%} of the arcs reciprocated")


def claim_cora(holds, what):
    """Assert a claim of part 6 on Cora (quick run); on the stand-in or the full-size run, report it."""
    if cora.name == "cora" and not FULL:
        assert holds, what
    elif not holds:
        print(f"[on {cora.name} the text's claim does not hold: {what}]")


cora_split = lgekit.split_edges(cora, test_fraction=0.2, negatives_per_positive=4, seed=SEED)
cora_arcs, cora_reverses = cora_split.direction_pairs()
cora_train = np.asarray(cora_split.train_positives)
degree_arcs = sender_ratio_scores(cora_train, cora.n_nodes, cora_arcs)
ap_cora_degree = metrics.average_precision_from_scores(degree_arcs, -degree_arcs)
cora_models = {label: LogisticEmbedding(dim=DIM, epochs=EPOCHS, node_bias=bias, random_state=SEED).fit(cora_split)
               for label, bias in (("without node biases", False), ("with node biases (default)", None))}
print(f"{'Cora predictor':<36}{'link AP':>9}{'direction AP':>14}")
print(f"{'degree rule (training arcs)':<36}{'-':>9}{ap_cora_degree:>14.4f}")
cora_rows = {}
for label, m in cora_models.items():
    cora_rows[label] = (
        metrics.average_precision(m.embedding_, cora_split.test_positives, cora_split.test_negatives,
                                  context=m.context_embedding_),
        metrics.direction_average_precision(m.embedding_, cora_arcs, context=m.context_embedding_, graph=cora))
    print(f"{label:<36}{cora_rows[label][0]:>9.4f}{cora_rows[label][1]:>14.4f}")
(link_plain, dir_plain), (link_bias, dir_bias) = cora_rows.values()
claim_cora(dir_plain < ap_cora_degree <= dir_bias, "the biases lift the direction AP past the degree rule")
claim_cora(link_plain - link_bias < 0.02, "and the link AP pays little for them")

# %% [markdown]
# **What the table shows** (asserted on Cora): without biases the model
# trails the degree rule by about 0.07 direction AP; with them it passes it,
# and its link AP gives up about 0.01 (asserted: less than 0.02): the order
# term $\kappa(b_u - b_v)$ is added to the score of every pair, linked or
# not, and a uniform non-arc is as likely as an arc to point down the order.
# Biases left free to carry popularity too ($b_u + c_u$) would cost far
# more, about 0.09 link AP over three seeds: a paper's popularity fitted from
# its one or two training arcs pushes down every pair of the papers that
# have none (`benchmarks/README.md`, "Direction: ties").  What did the biases learn, and what do
# the free coordinates add?  Split the learned log-odds into the bias part
# $a_u - a_v$ and the rest, and look at the arcs the degree rule cannot
# order: those whose two papers have the same (out+1)/(in+1) ratio in the
# training arcs -- for instance two papers that lost all their arcs to the
# held-out set.

# %%
model = cora_models["with node biases (default)"]
X, Y = model.embedding_, model.context_embedding_
kappa = X[0, -1]                                  # the constant coordinate of a source row
order = kappa * (X[:, -2] - Y[:, -1])             # a_u = kappa (b_u - c_u)
out_deg = np.bincount(cora_train[:, 0], minlength=cora.n_nodes)
in_deg = np.bincount(cora_train[:, 1], minlength=cora.n_nodes)
log_ratio = np.log((out_deg + 1.0) / (in_deg + 1.0))
log_odds = (np.einsum("ij,ij->i", X[cora_arcs[:, 0]], Y[cora_arcs[:, 1]])
            - np.einsum("ij,ij->i", X[cora_arcs[:, 1]], Y[cora_arcs[:, 0]]))
bias_part = order[cora_arcs[:, 0]] - order[cora_arcs[:, 1]]
rest = log_odds - bias_part
tied = degree_arcs == 0


def direction_ap(scores):
    return metrics.average_precision_from_scores(scores, -scores)


print(f"kappa = {kappa:g}; correlation of the learned order a_u with the degree rule's log ratio: "
      f"{np.corrcoef(order, log_ratio)[0, 1]:.3f}")
print(f"direction AP of the bias part alone {direction_ap(bias_part):.4f}, "
      f"of the free coordinates alone {direction_ap(rest):.4f}, together {direction_ap(log_odds):.4f}")
print(f"{tied.sum()} held-out arcs ({tied.mean():.1%}) the degree rule ties: "
      f"the model's direction AP on them {direction_ap(log_odds[tied]):.4f} (the rule's: 0.5)")
claim_cora(np.corrcoef(order, log_ratio)[0, 1] > 0.8, "the biases learn the degree rule's order")
claim_cora(direction_ap(log_odds[tied]) > 0.6, "the model orders arcs the degree rule ties")

# %% [markdown]
# **What it shows** (asserted on Cora): the learned order $a_u$ is, to a
# correlation of about 0.95, the degree rule's log ratio -- with uniform
# negatives every node is the source of as many negative pairs as any
# other, so a source bias grows with the log out-degree and a target bias
# with the log in-degree (the user guide's LogisticEmbedding page derives
# it, under "Node biases").
# That is what the degree rule knows, and the biases carry nearly all of
# the model's direction AP on their own; being fitted with the rest of the
# model rather than counted, they order a little better than the rule.
# The free coordinates alone are a much weaker direction predictor and add
# little to the biases overall, but they reach where the counts cannot: on
# the arcs the rule ties, the model is well above chance, because the
# vectors place a paper among the papers it cites and is cited by, which
# says something about its age when its own counts say nothing.
# `benchmarks/bench_directed.py` runs the same comparison over three seeds,
# with Bradley-Terry (which still beats the model on Cora, by about 0.003 in
# the median) and Salha et al.'s biased-negatives protocol, and on
# email-Eu-core, where the model passes the degree rule only with the tie of
# part 2 and the reverse negatives of part 3.

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (the price of asking).**  Part 3 showed three shares of
# reverse negatives.  Write `direction_tradeoff(split, graph, rhos)` that fits
# `LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, reverse_negatives=rho,
# random_state=SEED)` on `split` for each `rho` and returns a list of
# `(rho, link AP, direction AP)` (link AP: `metrics.average_precision` of the
# held-out arcs against the split's negatives; direction AP:
# `metrics.direction_average_precision` on `split.direction_pairs()[0]`).  The
# check cell runs it for $\rho \in \{0, 0.5\}$.  How much link AP does each
# point of direction AP cost?  Why does a large share hurt link prediction?

# %% tags=["exercise"]
def direction_tradeoff(split, graph, rhos):
    raise NotImplementedError("exercise 7.1: (rho, link AP, direction AP) for each share of reverse negatives")


# %% tags=["solution"]
def direction_tradeoff(split, graph, rhos):
    one_way, _ = split.direction_pairs()
    rows = []
    for rho in rhos:
        m = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, reverse_negatives=rho,
                              random_state=SEED).fit(split)
        link = metrics.average_precision(m.embedding_, split.test_positives, split.test_negatives,
                                         context=m.context_embedding_)
        direction = metrics.direction_average_precision(m.embedding_, one_way, context=m.context_embedding_,
                                                        graph=graph)
        rows.append((rho, link, direction))
    return rows
# Every reverse negative replaces a uniform one: half the negatives of a
# one-way arc at rho = 0.5 are its own reverse, so the model sees fewer of the
# non-arcs that link prediction ranks against, and its link AP falls while its
# direction AP rises.  The exchange rate is poor on email-Eu-core, where most
# arcs are reciprocated and the direction signal is a per-node degree ratio.

# %% tags=["check"]
def grade_exercise_1(direction_tradeoff, split, graph, rhos):
    """Exercise 1: each row (rho, link AP, direction AP) against a fit of the grader's own with the same settings.

    The model is deterministic for a given seed, so each AP must be reproduced exactly: an answer that does
    not pass ``reverse_negatives``, scores the link AP without the context table (x_u . x_v) or on the
    training pairs, or ranks pooled raw scores for the direction instead of each arc's log-odds differs.
    """
    rows = direction_tradeoff(split, graph, rhos)
    assert len(rows) == len(rhos), f"{len(rows)} rows for {len(rhos)} values of rho"
    one_way, _ = split.direction_pairs()
    for (rho, link, direction), want_rho in zip(rows, rhos):
        assert rho == want_rho, f"row for rho = {rho}, expected {want_rho} (in the order given)"
        m = LogisticEmbedding(dim=DIM, epochs=EPOCHS, lam_r=LAM_R, reverse_negatives=rho, random_state=SEED).fit(split)
        want_link = metrics.average_precision(m.embedding_, split.test_positives, split.test_negatives,
                                              context=m.context_embedding_)
        want_dir = metrics.direction_average_precision(m.embedding_, one_way, context=m.context_embedding_, graph=graph)
        assert np.isclose(link, want_link), f"rho = {rho}: link AP {link:.4f}, expected {want_link:.4f}"
        assert np.isclose(direction, want_dir), f"rho = {rho}: direction AP {direction:.4f}, expected {want_dir:.4f}"
    return rows


rows = grade_exercise_1(direction_tradeoff, split, graph, [0.0, 0.5])
for rho, link, direction in rows:
    print(f"rho = {rho:g}: link AP {link:.4f}, direction AP {direction:.4f}")
(_, link_0, dir_0), (_, link_5, dir_5) = rows
assert len(rows) == 2 and all(0 <= v <= 1 for row in rows for v in row[1:])
assert dir_5 > dir_0, "more reverse negatives must tell direction better"
claim(link_5 < link_0, "a large share of reverse negatives costs link AP")

# %% [markdown]
# **Exercise 2 (two budgets or one).**  Footnote 1's transform embeds the
# same pairs with one vector per node of the $|U| + |V|$ node graph, and
# notebook 5's one-table bound then has complexity
# $\frac{2}{m+m'}\cdot\frac{\|A_{\rm dil}\|}{2}(C_U + C_V) =
# \frac{\|A\|}{m+m'}(C_U + C_V)$.  Write `complexities(norm_a, m, C_U, C_V)`
# returning (two-budget complexity $\frac{2}{m+m'}\|A\|\sqrt{C_U C_V}$,
# one-budget complexity).  The check cell evaluates them for the bipartite
# model of part 5.  Which is smaller, always?  When are they equal?  Which
# side carries more squared norm per node, and why?

# %% tags=["exercise"]
def complexities(norm_a, m, C_U, C_V):
    raise NotImplementedError("exercise 7.2: the two-budget and the one-budget complexity terms")


# %% tags=["solution"]
def complexities(norm_a, m, C_U, C_V):
    return 2 * norm_a * np.sqrt(C_U * C_V) / m, norm_a * (C_U + C_V) / m
# 2 sqrt(C_U C_V) <= C_U + C_V (AM-GM): separate budgets are never worse, and
# equal only when C_U = C_V -- close to what the fit gives here, so the saving
# is small in total.  Per node the right side carries far more norm: each
# group vector takes part in hundreds of pairs, each user vector in a handful,
# so the gradient pushes the few group vectors much further.  lam_r_context
# (a separate lambda_r for the right table) moves the balance.

# %% tags=["check"]
def grade_exercise_2(complexities):
    """Exercise 2 with C_U != C_V, where the two terms differ (with equal budgets any of the two formulas,
    or both swapped, would pass), and once with C_U = C_V, where they must agree."""
    two_toy, one_toy = complexities(3.0, 10, 1.0, 9.0)
    assert np.isclose(two_toy, 2 * 3.0 * 3.0 / 10), f"two budgets, C_U = 1, C_V = 9: {two_toy}, expected 1.8"
    assert np.isclose(one_toy, 3.0 * 10.0 / 10), f"one budget, C_U = 1, C_V = 9: {one_toy}, expected 3.0"
    assert np.allclose(complexities(3.0, 10, 4.0, 4.0), (2.4, 2.4)), "equal budgets give equal terms"


grade_exercise_2(complexities)
bm = len(bsplit.train_positives) + len(bsplit.train_negatives)
bspec = theory.theorem1_spectral_norm(bsplit, n_draws=N_DRAWS, seed=SEED)
cu, cv = theory.norm_constants(bmodel)
two, one = complexities(bspec.value, bm, cu, cv)
print(f"C_U = {cu:.1f} over {members.n_left} left nodes, C_V = {cv:.1f} over {members.n_right} right nodes")
print(f"two budgets: {two:.4f}   one budget (footnote 1's transform): {one:.4f}   ratio {two / one:.4f}")
assert two <= one and cv / members.n_right > 10 * cu / members.n_left
claim(two / one > 0.95, "C_U and C_V are close enough that the saving is small in total")
