"""lgekit against its peers on the same link-prediction split, by both protocols, and node classification (issue 43).

Per graph (BlogCatalog, PPI, Facebook; ``lgekit.datasets.load``) and per seed ``s``, one
``lgekit.split_edges(graph, test_fraction=0.2, seed=s)`` (4 uniform non-edges per held-out edge,
leak-checked); every method embeds the split's **training graph** (dimension 128, seed ``s``, one
thread), each in its own process, and the parent scores the embedding three ways:

* **dot AP**: the held-out edges against the test negatives ranked by ``x_u . x_v``
  (``lgekit.metrics.average_precision``; lgekit's and the paper's protocol; chance 0.2);
* **LR AP / LR AUC**: node2vec's protocol, ``lgekit.metrics.edge_classifier_scores`` with the Hadamard
  operator: a logistic regression on edge features learns from training pairs only (training edges and
  as many sampled training non-edges, none a test pair, leak-checked) and ranks the same test pairs;
* **micro-F1 / macro-F1**: ``lgekit.metrics.node_classification_f1(embedding, graph)`` (train ratio 0.5,
  seed 0; DeepWalk's protocol) of the same embedding, on the labelled graphs (Facebook has no labels).

lgekit's rows: ``LogisticEmbedding(dim, random_state=seed)`` at its defaults (**lgekit**, the baseline of
the goals below), and the estimator that chooses its lambda_r on a validation split of the training graph
(issue 44): **lgekit CV**, ``LogisticEmbeddingCV(dim, random_state=seed)`` at its defaults (link AP on
the validation pairs), and on the labelled graphs **lgekit CV micro-F1** / **lgekit CV macro-F1**
(``scoring="micro_f1"`` / ``"macro_f1"``), given the labels of the TRAINING nodes of the node
classification above only -- the nodes ``node_classification_split(graph, 0.5, seed=0)`` trains the
classifier on, every other row 0, checked before the method sees them (``training_labels``,
``check_training_labels_only``): labels of the nodes the F1 is tested on would choose lambda_r on test
data.

One row is no embedding: **degree product**, the score ``d_u d_v`` of the training degrees (what the dot
AP gives for knowing degrees alone).  CPU seconds are those of the embedding call in the
child (user + system, ``resource.getrusage``), the method's package imported before the clock starts
(a session imports a library once; lgekit's ``lgekit.models`` brings scikit-learn and SciPy's
modules, about 0.6 s, the peers' packages about 1 s each; a JIT compilation at the first call, as
node2vec's numba, is counted), peak RSS that child's whole life (``VmHWM``: the
interpreter, the libraries and the training graph included; not ``ru_maxrss``, which Linux carries over
from the parent that started the child); the table gives medians over the seeds, which
run in alternating order (seed ``s`` starts with method ``s mod k``).  Every child runs on one thread
(``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ``NUMBA_NUM_THREADS`` = 1 and
``threadpoolctl``), so the CPU seconds compare like with like.

**The peers are benchmark-only** and never lgekit dependencies.  karateclub 1.3.3 pins numpy < 1.23 and
pandas <= 1.3.5, which have no wheels for Python >= 3.11, and calls ``networkx.adj_matrix`` (gone in
networkx 3); pecanpy's numba build wants numpy < 2.  They install into a separate virtual environment
(these versions installed from PyPI on Python 3.11: numpy 1.26.4, networkx 2.8.8, gensim 4.4.0,
pecanpy 2.0.9, nodevectors 0.1.23 with csrgraph 0.1.28, karateclub 1.3.3 without its pins)::

    python3 -m venv /tmp/peers-venv
    /tmp/peers-venv/bin/pip install "numpy<2" scipy scikit-learn threadpoolctl gensim pecanpy nodevectors \\
        "networkx==2.8.8" python-louvain pygsp six
    /tmp/peers-venv/bin/pip install --no-deps karateclub

Peers and their settings: **ProNE** and **GGVec** (nodevectors; their defaults, GGVec on one thread; neither
takes a seed: ProNE's randomized SVD draws from NumPy's global state, seeded here, GGVec's numba loop is
not reproducible); **NetMF** (karateclub; its defaults: window 2 (``order``), 10 iterations, one negative,
``seed``); **node2vec** (pecanpy ``SparseOTF``, p = q = 1, 10 walks of 80 per node, window 10, one word2vec
epoch, ``random_state=seed``).  lgekit: ``LogisticEmbedding(dim, random_state=seed)`` at its defaults.
A method whose package does not import in its environment is left out, and the script says why; a method
that takes labels is left out of an unlabelled graph.

Adding a method (the hook): register a function ``embed(adjacency, dim, seed) -> (n, dim) array`` with
:func:`method`, naming the environment that runs it (``"lgekit"``: this Python; ``"peers"``: the peers'
environment) and the module it needs; with ``labels=True`` it is called ``embed(adjacency, dim, seed,
labels)``, ``labels`` the training nodes' label matrix (scipy CSR, one row per node, the rows of the
nodes the F1 is tested on all 0)::

    @method("lgekit CV", environment="lgekit", package="lgekit.models")
    def lgekit_cv(adjacency, dim, seed):
        ...   # adjacency: the training graph, a symmetric 0/1 scipy CSR matrix, one row per node

``embed`` may also return ``(embedding, notes)``, ``notes`` a dict of numbers (what it chose: the CV rows
give ``lambda_r`` and ``epochs``), kept in the run's row and printed under the table.

**The oracle** (``--oracle``): ``LogisticEmbedding`` at each lambda_r of ``ORACLE_LAM_RS`` (the defaults
otherwise), and per metric the one best on the TEST split: chosen on test data, so not a result but the
most any choice of lambda_r by validation could reach -- where it stays below the best peer, a goal is out
of reach of the choice.

**The goals** (issue 44, item 4), printed after each labelled graph's table for every ``lgekit CV`` row:
its micro- and macro-F1 against the best peer's (the peer with the highest median), its dot AP against
the default lgekit row's, its CPU time against the default row's of the same seed.  Each is decided
seed by seed, not on the medians alone: **met** where the CV row is at least the other on every seed
(at most 5x the CPU time), **missed** where it is below on every seed, **inconclusive** where the
seeds disagree.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_peers.py [--graphs blogcatalog ppi facebook]
        [--seeds 3] [--dim 128] [--methods lgekit "lgekit CV" ProNE ...]
        [--peers-python /tmp/peers-venv/bin/python] [--json results.json] [--reuse earlier.json] [--oracle]
"""
import argparse
import dataclasses
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.sparse as sp

# the peers' environment runs this file as a child: it has NumPy and SciPy, not lgekit, so lgekit and every
# embedding library are imported inside the functions that use them
PEERS_PYTHON = os.environ.get("LGEKIT_PEERS_PYTHON", "/tmp/peers-venv/bin/python")
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}
COLUMNS = ("dot AP", "LR AP", "LR AUC", "micro-F1", "macro-F1", "CPU s", "peak RSS MiB")
#: node classification's protocol (``score``): the classifier's training nodes are those of
#: ``node_classification_split(graph, F1_TRAIN_RATIO, F1_SEED)``, the same on every seed of the split
F1_TRAIN_RATIO, F1_SEED = 0.5, 0
#: issue 44's goal: the CV estimator in at most this many times one default fit's CPU time
CPU_GOAL = 5.0


@dataclasses.dataclass(frozen=True)
class Method:
    """An embedding method: ``embed(adjacency, dim, seed[, labels])``, the environment that runs it, the module it
    needs, and whether it takes the training nodes' labels."""

    embed: Callable
    environment: str
    package: str
    labels: bool = False


#: method name -> Method, in the tables' order (lgekit first)
METHODS = {}


def method(name, environment, package, labels=False):
    """Register ``embed(adjacency, dim, seed) -> (n, dim) array`` under ``name`` (the hook for new rows); with
    ``labels=True``, ``embed(adjacency, dim, seed, labels)``, given the training nodes' labels."""
    if environment not in ("lgekit", "peers"):
        raise ValueError(f"environment must be 'lgekit' or 'peers', got {environment!r}")
    if not isinstance(labels, bool):
        raise TypeError(f"labels must be True or False, got {labels!r}")

    def register(embed):
        METHODS[name] = Method(embed, environment, package, labels)
        return embed
    return register


@method("lgekit", environment="lgekit", package="lgekit.models")
def lgekit_logistic(adjacency, dim, seed):
    from lgekit import LogisticEmbedding, datasets
    return LogisticEmbedding(dim=dim, random_state=seed, n_threads=1).fit(datasets.as_graph(adjacency)).embedding_


def _chosen(model):
    """A fitted ``*CV`` estimator's embedding and what it chose (the notes of its row)."""
    return model.embedding_, {"lambda_r": float(model.lam_r_), "epochs": int(model.epochs_)}


@method("lgekit CV", environment="lgekit", package="lgekit.models")
def lgekit_cv(adjacency, dim, seed):
    from lgekit import LogisticEmbeddingCV, datasets
    return _chosen(LogisticEmbeddingCV(dim=dim, random_state=seed, n_threads=1).fit(datasets.as_graph(adjacency)))


def _lgekit_cv_f1(scoring):
    def embed(adjacency, dim, seed, labels):
        from lgekit import LogisticEmbeddingCV, datasets
        model = LogisticEmbeddingCV(dim=dim, random_state=seed, n_threads=1, scoring=scoring)
        return _chosen(model.fit(datasets.as_graph(adjacency), y=labels))
    return embed


method("lgekit CV micro-F1", environment="lgekit", package="lgekit.models", labels=True)(_lgekit_cv_f1("micro_f1"))
method("lgekit CV macro-F1", environment="lgekit", package="lgekit.models", labels=True)(_lgekit_cv_f1("macro_f1"))

#: the oracle's rows (``--oracle``, left out otherwise): LogisticEmbedding at each fixed lambda_r, the defaults
#: otherwise; ``oracle`` picks the best of them on the TEST split, per metric: what no choice on validation can beat
ORACLE_LAM_RS = (0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 1.0)
ORACLE = {f"lgekit lambda_r={lam:g}": lam for lam in ORACLE_LAM_RS}


def _lgekit_fixed(lam_r):
    def embed(adjacency, dim, seed):
        from lgekit import LogisticEmbedding, datasets
        model = LogisticEmbedding(dim=dim, lam_r=lam_r, random_state=seed, n_threads=1)
        return model.fit(datasets.as_graph(adjacency)).embedding_
    return embed


for _name, _lam in ORACLE.items():
    method(_name, environment="lgekit", package="lgekit.models")(_lgekit_fixed(_lam))


@method("ProNE", environment="peers", package="nodevectors")
def prone(adjacency, dim, seed):
    from nodevectors import ProNE
    np.random.seed(seed)   # its randomized SVD draws from NumPy's global state (random_state=None)
    return ProNE(n_components=dim, verbose=False).fit_transform(adjacency)


@method("GGVec", environment="peers", package="nodevectors")
def ggvec(adjacency, dim, seed):
    from nodevectors import GGVec
    np.random.seed(seed)   # no seed parameter; its numba loop is not reproducible anyway
    return GGVec(n_components=dim, threads=1, verbose=False).fit_transform(adjacency)


@method("NetMF", environment="peers", package="karateclub")
def netmf(adjacency, dim, seed):
    import networkx as nx
    from karateclub import NetMF
    graph = nx.from_scipy_sparse_matrix(adjacency)   # networkx 2.8: nodes 0..n-1, karateclub's indexing
    model = NetMF(dimensions=dim, seed=seed)
    model.fit(graph)
    return model.get_embedding()


@method("node2vec", environment="peers", package="pecanpy.pecanpy")
def node2vec(adjacency, dim, seed):
    from pecanpy.pecanpy import SparseOTF
    g = SparseOTF(p=1, q=1, workers=1, verbose=False, random_state=seed)
    g.set_node_ids([str(i) for i in range(adjacency.shape[0])])
    g.indptr = adjacency.indptr.astype(np.uint32)
    g.indices = adjacency.indices.astype(np.uint32)
    g.data = np.ones(adjacency.nnz, dtype=np.float32)
    return g.embed(dim=dim, num_walks=10, walk_length=80, window_size=10, epochs=1)


# ---------------------------------------------------------------------- the child: one embedding, measured
def child(name, adjacency_path, out_path, dim, seed, labels_path=None, preimport=True):
    """Embed the training graph at ``adjacency_path`` with method ``name`` (given the training labels at
    ``labels_path`` when it takes them); print its CPU seconds, peak RSS and the modules first imported
    while the clock ran.  ``preimport``: import the method's package before the clock starts (a session
    imports a library once; False only to show what the clock would otherwise count)."""
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)
    except ImportError:
        pass  # the environment variables above still hold the libraries to one thread
    adjacency = sp.load_npz(adjacency_path).tocsr()
    m = METHODS[name]
    if m.labels and labels_path is None:
        raise SystemExit(f"{name} takes the training nodes' labels, but none were given")
    extra = (sp.load_npz(labels_path).tocsr(),) if m.labels else ()
    if preimport:
        importlib.import_module(m.package)
    loaded = set(sys.modules)
    before, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    result = m.embed(adjacency, dim, seed, *extra)
    after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
    embedding, notes = result if isinstance(result, tuple) else (result, {})
    embedding = np.asarray(embedding, dtype=np.float64)
    if embedding.shape != (adjacency.shape[0], dim):
        raise SystemExit(f"{name} returned shape {embedding.shape}, expected {(adjacency.shape[0], dim)}")
    np.save(out_path, embedding)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # packages first imported while the clock ran (not the further submodules a JIT loads at its first call)
    imported = sorted({module.split(".")[0] for module in set(sys.modules) - loaded}
                      - {module.split(".")[0] for module in loaded})
    print(json.dumps({"cpu_s": cpu, "wall_s": wall, "peak_rss_mib": peak_rss_mib(), "imported": imported,
                      "notes": notes}))


def peak_rss_mib():
    """This process's peak resident set (``VmHWM``), MiB.  Not ``ru_maxrss``: Linux carries that across
    ``fork`` and ``execve``, so a child started by a large parent would report the parent's size."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # not Linux: the closest there is


def python_of(m, peers_python):
    return sys.executable if m.environment == "lgekit" else peers_python


def availability(names, peers_python):
    """``{name: None (runs) or why not}``: each method's package imported in its environment."""
    out = {}
    for name in names:
        m = METHODS[name]
        python = python_of(m, peers_python)
        if not Path(python).exists():
            out[name] = (f"no peers environment at {python} (install it as this script's docstring says, or set "
                         "LGEKIT_PEERS_PYTHON / --peers-python)")
            continue
        done = subprocess.run([python, "-c", f"import {m.package}"], capture_output=True, text=True,
                              env={**os.environ, **ONE_THREAD})
        lines = done.stderr.strip().splitlines()
        out[name] = None if done.returncode == 0 else f"import {m.package} failed: {lines[-1] if lines else '?'}"
    return out


def run_child(name, adjacency_path, folder, dim, seed, peers_python, labels_path=None):
    """One embedding in its own process: ``(embedding, {"cpu_s", "wall_s", "peak_rss_mib", "imported", "notes"})``;
    ``labels_path``:
    the training labels (``write_training_labels``) for a method that takes them."""
    out = Path(folder) / f"{name}-{seed}.npy"
    python = python_of(METHODS[name], peers_python)
    env = {**os.environ, **ONE_THREAD, "PYTHONWARNINGS": "ignore"}
    extra = [str(labels_path)] if labels_path is not None else []
    done = subprocess.run([python, os.path.abspath(__file__), "--child", name, str(adjacency_path), str(out),
                           str(dim), str(seed), *extra], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return np.load(out), json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------- the parent: split, run, score
def degree_product_ap(split):
    """AP of the held-out edges against the test negatives scored by the product of training degrees."""
    from lgekit.metrics import average_precision_from_scores
    degree = np.bincount(split.train_positives.ravel(), minlength=split.graph.n_nodes).astype(np.float64)
    score = lambda pairs: degree[pairs[:, 0]] * degree[pairs[:, 1]]  # noqa: E731
    return average_precision_from_scores(score(split.test_positives), score(split.test_negatives))


def score(embedding, split, graph, max_train_edges):
    """The table's columns (but time and memory) for one embedding."""
    from lgekit import metrics
    row = {"dot AP": metrics.average_precision(embedding, split.test_positives, split.test_negatives)}
    lr = metrics.edge_classifier_scores(embedding, split, "hadamard", seed=0, max_train_edges=max_train_edges)
    row.update({"LR AP": lr["average_precision"], "LR AUC": lr["roc_auc"]})
    if graph.labels is not None:
        f1 = metrics.node_classification_f1(embedding, graph, train_ratio=F1_TRAIN_RATIO, seed=F1_SEED)
        row.update({"micro-F1": f1["micro_f1"], "macro-F1": f1["macro_f1"]})
    return row


# ---------------------------------------------------------------------- the labels a method may see
def training_labels(graph):
    """``graph.labels`` kept on the classifier's training nodes of ``score``'s node classification (those of
    ``node_classification_split(graph, F1_TRAIN_RATIO, F1_SEED)``), every other row 0: scipy CSR, one row per
    node.  What a method that chooses by node-classification F1 may see."""
    from lgekit.metrics import node_classification_split
    nodes = node_classification_split(graph, F1_TRAIN_RATIO, F1_SEED)
    keep = np.zeros(graph.n_nodes)
    keep[nodes.labelled[nodes.train]] = 1.0
    labels = (sp.diags(keep) @ sp.csr_matrix(graph.labels)).tocsr()
    labels.eliminate_zeros()
    return labels


def check_training_labels_only(labels, graph):
    """Raise ``ValueError`` unless ``labels`` (one row per node of ``graph``) holds no label of a node that
    ``score``'s node classification tests on."""
    from lgekit.metrics import node_classification_split
    labels = sp.csr_matrix(labels)
    expected = (graph.n_nodes, sp.csr_matrix(graph.labels).shape[1])
    if labels.shape != expected:
        raise ValueError(f"labels: shape {labels.shape}, expected the graph's label matrix's {expected} (one row "
                         "per node, one column per class)")
    nodes = node_classification_split(graph, F1_TRAIN_RATIO, F1_SEED)
    carrying = np.flatnonzero(np.asarray(abs(labels).sum(axis=1)).ravel() > 0)
    tested = np.intersect1d(carrying, nodes.labelled[nodes.test])
    if tested.size:
        raise ValueError(f"labels: {tested.size} node(s) that node classification tests on (train_ratio "
                         f"{F1_TRAIN_RATIO}, seed {F1_SEED}) carry labels, e.g. node {tested[0]}; a method may see the "
                         "labels of the classifier's training nodes only (training_labels(graph))")


def write_training_labels(graph, folder):
    """``training_labels(graph)``, checked, saved in ``folder``; returns the file's path."""
    labels = training_labels(graph)
    check_training_labels_only(labels, graph)
    path = Path(folder) / "training-labels.npz"
    sp.save_npz(path, labels, compressed=False)
    return path


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run_graph(graph, name, names, seeds, dim, peers_python, max_train_edges, folder):
    """``{method: [row per seed]}`` on ``graph`` (called ``name``); a method that takes labels is left out of an
    unlabelled graph."""
    import lgekit
    log(f"{name}: {graph.n_nodes:,} nodes, {graph.n_edges:,} edges")
    if graph.labels is None:
        for m in [m for m in names if METHODS[m].labels]:
            print(f"left out on {name}: {m}: it chooses by node-classification F1, and {name} has no labels")
        names = [m for m in names if not METHODS[m].labels]
        labels_path = None
    else:
        labels_path = write_training_labels(graph, folder)
    rows = {m: [] for m in ["degree product", *names]}
    for seed in range(seeds):
        split = lgekit.split_edges(graph, test_fraction=0.2, seed=seed)
        path = Path(folder) / f"{name}-{seed}.npz"
        sp.save_npz(path, split.train_graph.to_scipy().tocsr(), compressed=False)
        rows["degree product"].append({"dot AP": degree_product_ap(split)})
        order = names[seed % len(names):] + names[:seed % len(names)]    # alternating: each seed starts elsewhere
        for m in order:
            embedding, cost = run_child(m, path, folder, dim, seed, peers_python,
                                        labels_path if METHODS[m].labels else None)
            row = score(embedding, split, graph, max_train_edges)
            row.update({"CPU s": cost["cpu_s"], "peak RSS MiB": cost["peak_rss_mib"], **cost.get("notes", {})})
            rows[m].append(row)
            log(f"{name} seed {seed} {m}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items())
                + (f"; imported while timed: {', '.join(cost['imported'])}" if cost.get("imported") else ""))
    return rows


def table(name, rows):
    lines = [f"\n{name} (medians over {max(len(r) for r in rows.values())} seeds)\n",
             "| method | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for m, runs in rows.items():
        cells = []
        for col in COLUMNS:
            values = [r[col] for r in runs if col in r]
            fmt = "{:.0f}" if col == "peak RSS MiB" else "{:.1f}" if col == "CPU s" else "{:.3f}"
            cells.append(fmt.format(statistics.median(values)) if values else "")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    for m, runs in rows.items():
        noted = sorted({k for r in runs for k in r if k not in COLUMNS})
        if noted:
            lines.append(f"\n{m}, seed by seed: " + "; ".join(
                f"{k} " + "/".join(f"{r[k]:g}" if k in r else "-" for r in runs) for k in noted))
    return "\n".join(lines)


def by_seed(values, holds, seeds_needed=3):
    """A goal's verdict from one value a seed: "met" where ``holds`` is true on every seed, "missed" where on
    none, else "inconclusive" (so are fewer than ``seeds_needed`` seeds: the goal is a median over 3)."""
    ok = [bool(holds(v)) for v in values]
    if len(ok) < seeds_needed:
        return f"inconclusive ({len(ok)} seed(s), the goal asks for {seeds_needed})"
    if all(ok):
        return "met"
    if not any(ok):
        return "missed"
    return f"inconclusive (holds on {sum(ok)} of {len(ok)} seeds)"


def goals(rows):
    """Issue 44's goals for every ``lgekit CV`` row of one graph's ``{method: [row per seed]}``:
    ``[(row, goal, median figures, verdict)]``.  The CV row's micro-/macro-F1 against the best peer's
    (the peer of the highest median on that metric; only the peers' environment's methods are peers),
    its dot AP against the default lgekit row's, and its CPU seconds over the default row's, seed by seed."""
    peers = [m for m in rows if m in METHODS and METHODS[m].environment == "peers"]
    out = []
    for cv in [m for m in rows if m.startswith("lgekit CV")]:
        for col in ("micro-F1", "macro-F1"):
            have = [m for m in peers if rows[m] and all(col in r for r in rows[m])]
            if not have or not all(col in r for r in rows[cv]):
                continue
            best = max(have, key=lambda m: statistics.median(r[col] for r in rows[m]))
            diff = [c[col] - p[col] for c, p in zip(rows[cv], rows[best])]
            out.append((cv, f"{col} >= the best peer's ({best})",
                        f"{statistics.median(r[col] for r in rows[cv]):.4f} vs "
                        f"{statistics.median(r[col] for r in rows[best]):.4f} (" + _signed(diff) + ")",
                        by_seed(diff, lambda d: d >= 0)))
        if "lgekit" in rows:
            diff = [c["dot AP"] - d["dot AP"] for c, d in zip(rows[cv], rows["lgekit"])]
            out.append((cv, "dot AP >= the default's",
                        f"{statistics.median(r['dot AP'] for r in rows[cv]):.4f} vs "
                        f"{statistics.median(r['dot AP'] for r in rows['lgekit']):.4f} (" + _signed(diff) + ")",
                        by_seed(diff, lambda d: d >= 0)))
            ratio = [c["CPU s"] / d["CPU s"] for c, d in zip(rows[cv], rows["lgekit"])]
            out.append((cv, f"CPU s <= {CPU_GOAL:g}x one default fit's (same seed)",
                        f"{statistics.median(ratio):.2f}x (" + ", ".join(f"{r:.2f}" for r in ratio) + ")",
                        by_seed(ratio, lambda r: r <= CPU_GOAL)))
    return out


def oracle(rows):
    """Per metric (dot AP, micro-F1, macro-F1): ``(row, median, per-seed values)`` of the fixed-lambda_r row
    (``ORACLE``) of the highest median on the TEST split -- a choice made on test data, so an upper bound of
    what a choice of lambda_r on validation reaches, never a result.  {} when no such row ran."""
    fixed = [m for m in rows if m in ORACLE]
    out = {}
    for col in ("dot AP", "micro-F1", "macro-F1"):
        have = [m for m in fixed if rows[m] and all(col in r for r in rows[m])]
        if have:
            best = max(have, key=lambda m: statistics.median(r[col] for r in rows[m]))
            out[col] = (best, statistics.median(r[col] for r in rows[best]), [r[col] for r in rows[best]])
    return out


def oracle_table(name, rows):
    """The oracle against the best peer, per metric, as a markdown table ("" without the ``--oracle`` rows)."""
    found = oracle(rows)
    if not found:
        return ""
    peers = [m for m in rows if m in METHODS and METHODS[m].environment == "peers"]
    lines = [f"\n{name}: the oracle, lambda_r chosen on the TEST split per metric (not a result: the most a choice "
             "on validation can reach)\n", "| metric | oracle's lambda_r | oracle | best peer | oracle >= best peer |",
             "|---|---|---|---|---|"]
    for col, (row, median, values) in found.items():
        have = [m for m in peers if rows[m] and all(col in r for r in rows[m])]
        if not have:
            lines.append(f"| {col} | {ORACLE[row]:g} | {median:.4f} | | |")
            continue
        best = max(have, key=lambda m: statistics.median(r[col] for r in rows[m]))
        diff = [v - r[col] for v, r in zip(values, rows[best])]
        lines.append(f"| {col} | {ORACLE[row]:g} | {median:.4f} | {best} "
                     f"{statistics.median(r[col] for r in rows[best]):.4f} | {by_seed(diff, lambda d: d >= 0)} "
                     f"({_signed(diff)}) |")
    return "\n".join(lines)


def _signed(differences):
    return ", ".join(f"{d:+.4f}" for d in differences)


def merge_reused(rows, earlier, source):
    """Add to this run's ``rows`` (one graph's) the rows of ``earlier`` (the same graph's in a ``--json`` file of
    an earlier run) of the methods not run now; returns their names.  Refused (``SystemExit``) unless the
    earlier run had the same seeds and the same splits, checked by the degree product's AP on every seed
    (it reads only the split)."""
    if not earlier:
        return []
    now, then = [r["dot AP"] for r in rows["degree product"]], [r["dot AP"] for r in earlier["degree product"]]
    if len(now) != len(then) or any(abs(a - b) > 1e-12 for a, b in zip(now, then)):
        raise SystemExit(f"--reuse {source}: its splits are not this run's (degree product AP per seed "
                         f"{_signed(then)} against {_signed(now)}); rerun every method, or reuse a run of the same "
                         "graphs, seeds and script")
    reused = [m for m in earlier if m not in rows]
    for m in reused:
        rows[m] = earlier[m]
    return reused


def goals_table(name, rows):
    """The goals of ``goals(rows)`` as a markdown table ("" when no CV row ran)."""
    found = goals(rows)
    if not found:
        return ""
    lines = [f"\n{name}: issue 44's goals (medians, the per-seed differences; verdicts seed by seed)\n",
             "| row | goal | median | verdict |", "|---|---|---|---|"]
    lines += [f"| {row} | {goal} | {figures} | {verdict} |" for row, goal, figures, verdict in found]
    return "\n".join(lines)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--child":
        name, adjacency_path, out_path, dim, seed = argv[1:6]
        return child(name, adjacency_path, out_path, int(dim), int(seed), argv[6] if len(argv) > 6 else None)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["blogcatalog", "ppi", "facebook"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--methods", nargs="+", default=None, help=f"default: all of {list(METHODS)}")
    parser.add_argument("--peers-python", default=PEERS_PYTHON)
    parser.add_argument("--max-train-edges", type=int, default=100_000,
                        help="training edges the edge classifier learns from (a uniform sample; default 100,000)")
    parser.add_argument("--json", default=None, help="also write every run's row to this file")
    parser.add_argument("--oracle", action="store_true",
                        help=f"also LogisticEmbedding at each lambda_r of {list(ORACLE_LAM_RS)}, and the best of them "
                             "chosen on the TEST split per metric (an oracle: what no choice on validation can beat)")
    parser.add_argument("--reuse", default=None,
                        help="a --json file of an earlier run of the same graphs and seeds: its rows of the methods "
                             "not run now join the tables and goals (the splits checked to be the same)")
    args = parser.parse_args(argv)
    names = args.methods or [m for m in METHODS if m not in ORACLE or args.oracle]
    unknown = [m for m in names if m not in METHODS]
    if unknown:
        parser.error(f"unknown method(s) {unknown}; registered: {list(METHODS)}")
    status = availability(names, args.peers_python)
    for m, why in status.items():
        if why is not None:
            print(f"left out: {m}: {why}")
    names = [m for m in names if status[m] is None]
    print(f"methods: {', '.join(names)}; dim {args.dim}, {args.seeds} seeds, one thread each "
          f"({os.cpu_count()}-CPU host, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())})")
    import lgekit
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as folder:
        for name in args.graphs:
            graph_folder = Path(folder) / name
            graph_folder.mkdir()
            results[name] = run_graph(lgekit.datasets.load(name), name, names, args.seeds, args.dim,
                                      args.peers_python, args.max_train_edges, graph_folder)
            if args.reuse:
                reused = merge_reused(results[name], json.loads(Path(args.reuse).read_text()).get(name), args.reuse)
                print(f"{name}: the rows of {', '.join(reused) or 'no method'} are {args.reuse}'s")
            print(table(name, results[name]), flush=True)
            print(goals_table(name, results[name]), flush=True)
            print(oracle_table(name, results[name]), flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1))
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
