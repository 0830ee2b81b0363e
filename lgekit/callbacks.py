"""Callbacks: objects called by an embedding model around its epochs (gensim style).

A model calls, in list order, ``on_train_begin(model)`` before the first
epoch, ``on_epoch_end(model, epoch, record)`` after every epoch and
``on_train_end(model)`` at the end.  ``record`` is the epoch's ``history_``
dict: a callback may add fields to it (they end up in ``model.history_``),
and returning True from ``on_epoch_end`` stops training after that epoch.
Put the callbacks that compute a metric before the ones that read it
(e.g. ``[LinkPredictionCallback(val, heldout_name="val"), EarlyStopping("val_ap")]``).

Stop on a VALIDATION split, never on the test split: an epoch chosen by the
test AP makes the test AP reported for it optimistic (the maximum of a noisy
curve over the data it is reported on).  The estimators' own
``early_stopping=True`` carves the validation split out of the training
graph and stops on it in one parameter; the callbacks below do the same by
hand, with :func:`lgekit.evaluation.validation_split`.

What a callback may read from the model: ``embedding_`` (updated in place
between epochs; with ``context_embedding_`` for a directed or bipartite
graph, whose pairs score ``x_u . y_v``: ``score_pairs(pairs, index=True)``),
``history_``, ``n_iter_``, ``planned_epochs_`` (a ``range`` of the epochs the running ``fit``/``partial_fit`` call plans: its last one is
``planned_epochs_[-1]``, set before ``on_train_begin``) and ``solver_``, whose
``state()``/``set_state()`` save and put back what, besides the embedding, an
epoch leaves behind (HingeEmbedding's duals).

Examples
--------
>>> import networkx as nx
>>> import lgekit
>>> from lgekit.callbacks import LinkPredictionCallback, EarlyStopping
>>> g = lgekit.Graph.from_networkx(nx.connected_caveman_graph(10, 8))     # 10 cliques of 8 in a ring
>>> split = lgekit.split_edges(g, test_fraction=0.2, seed=0)
>>> val = lgekit.evaluation.validation_split(split, validation_fraction=0.2, seed=1)  # of split.train_graph
>>> model = lgekit.LogisticEmbedding(dim=8, epochs=30, lam_r=0.1, random_state=0)
>>> _ = model.fit(val, callbacks=[LinkPredictionCallback(val, heldout_name="val"), EarlyStopping("val_ap", patience=3)])
>>> "val_ap" in model.history_[0]
True
>>> round(model.score(split), 2)          # the test split, looked at once, at the end
0.92
"""
import logging
import time
from numbers import Integral, Real
import warnings

import numpy as np

from ._simd import load_kernel
from ._validation import InstanceOf, Interval, Options, check_pairs, validate_params
from .datasets import as_labels
from .metrics import mrr_and_hits, node_classification_f1, ranks_from_scores, sample_candidates

# the AVX2 build when the CPU has it (same scores for float32 embeddings; lgekit._simd)
_scoring = load_kernel("lgekit._scoring")

__all__ = ["Callback", "LinkPredictionCallback", "NodeClassificationCallback", "EarlyStopping"]

logger = logging.getLogger(__name__)


_EVERY = [Interval(Integral, 1, None, closed="left")]


class Callback:
    """Base class: every hook does nothing."""

    def on_train_begin(self, model):
        """Called once before the first epoch of ``fit``/``partial_fit``."""

    def on_epoch_end(self, model, epoch, record):
        """Called after each epoch; add fields to ``record``; return True to stop."""
        return False

    def on_train_end(self, model):
        """Called once after the last epoch (also after a stop)."""

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


def _tables(model, copy=False):
    """The model's vector tables: ``embedding_``, and ``context_embedding_`` when it has two (a directed or
    bipartite graph); copies with ``copy``."""
    tables = [model.embedding_]
    if getattr(model, "context_embedding_", None) is not None:
        tables.append(model.context_embedding_)
    return [np.array(t, copy=True) for t in tables] if copy else tables


class LinkPredictionCallback(Callback):
    """Adds ``"train_ap"`` and ``"test_ap"`` (average precision of x_u . x_v) to the records.

    Parameters
    ----------
    split : EdgeSplit
        From :func:`lgekit.split_edges`: train AP ranks ``train_positives``
        against ``train_negatives``, test AP ``test_positives`` against
        ``test_negatives``.
    every : int, default 1
        Evaluate after epochs ``t`` with ``(t + 1) % every == 0`` (and always
        after the last epoch of a run).
    train : bool, default True
        Also compute the train AP.
    train_sample : int or None, default 20000
        Number of training pairs the train AP ranks: a uniform sample without
        replacement, drawn once (so every epoch ranks the same pairs), with
        positives and negatives in the split's proportion.  ``None``: all of
        them.  The training set is usually several times the test set; the
        standard error of an AP over 20,000 pairs is a few thousandths, below
        the epoch-to-epoch changes the curves show.
    seed : int, default 0
        Seed of that sample.
    heldout_name : str, default "test"
        Name of the held-out field, ``"<heldout_name>_ap"``: pass ``"val"``
        when the split is a validation split carved out of a training graph
        (for early stopping), so records say ``"val_ap"``.
    direction : bool, default False
        Also record ``"<heldout_name>_direction_ap"`` (a directed split only):
        the AP of each held-out one-way arc's log-odds ``s(u, v) - s(v, u)``
        against its reverse's (:func:`lgekit.metrics.direction_average_precision`), the
        direction task beside link prediction.  The arcs whose reverse is an
        arc of the full graph have no direction to tell and are left out
        (:meth:`lgekit.EdgeSplit.direction_pairs`, found once).
    ranking : int or None, default None
        Also record ``"<heldout_name>_mrr"`` and ``"<heldout_name>_hits@k"``
        for each ``k`` of ``hits_at`` (OGB's protocol,
        :func:`lgekit.metrics.link_ranking`): each held-out positive ranked
        against ``ranking`` negative targets for its source, drawn once from
        ``seed`` (the same every epoch) among the non-edges of the full
        graph, ties ranked ``"average"`` as OGB does.  ``None`` (the
        default): off, nothing added.  Costs ``ranking + 1`` pair scores per
        held-out positive an evaluation.
    hits_at : tuple of int, default (1, 10)
        The ``k`` of the Hits@k fields (with ``ranking``).

    Notes
    -----
    Each evaluated record also gets ``"eval_seconds"``: the wall time this
    callback took (scores and APs), so that a history shows what evaluation
    costs beside the epoch's ``"seconds"``.
    """

    def __init__(self, split, every=1, train=True, train_sample=20000, seed=0, heldout_name="test", direction=False,
                 ranking=None, hits_at=(1, 10)):
        for attr in ("train_positives", "train_negatives", "test_positives", "test_negatives"):
            if not hasattr(split, attr):
                raise TypeError(f"split must be an EdgeSplit (from lgekit.split_edges), "
                                f"got {type(split).__name__} without {attr!r}")
        validate_params({"every": _EVERY, "train": ["boolean"],
                         "train_sample": [Interval(Integral, 2, None, closed="left"), None],
                         "seed": [Interval(Integral, 0, None, closed="left")]},
                        {"every": every, "train": train, "train_sample": train_sample, "seed": seed},
                        caller=type(self).__name__)
        self.split = split
        self.every = int(every)
        self.train = bool(train)
        self.train_sample = None if train_sample is None else int(train_sample)
        self.seed = int(seed)
        if not isinstance(heldout_name, str) or not heldout_name.isidentifier():
            raise ValueError(f"heldout_name must be an identifier such as 'test' or 'val', got {heldout_name!r}")
        self.heldout_name = heldout_name
        validate_params({"direction": ["boolean"]}, {"direction": direction}, caller=type(self).__name__)
        if direction and getattr(split.graph, "kind", None) != "directed":
            raise ValueError(f"direction=True needs a directed split (arcs and their reverses), got a split of a "
                             f"{getattr(split.graph, 'kind', 'undirected')} graph")
        self.direction = bool(direction)
        self._direction_pairs = split.direction_pairs() if direction else None
        if direction and not len(self._direction_pairs[0]):
            raise ValueError("direction=True: every held-out arc of this split is reciprocated (or a self-loop), so "
                             "no arc has a direction to tell; hold out more arcs")
        validate_params({"ranking": [Interval(Integral, 1, None, closed="left"), None]}, {"ranking": ranking},
                        caller=type(self).__name__)
        self.ranking = None if ranking is None else int(ranking)
        hits_at = (hits_at,) if isinstance(hits_at, Integral) else tuple(hits_at)
        if not hits_at or any(isinstance(k, bool) or not isinstance(k, Integral) or k < 1 for k in hits_at):
            raise ValueError(f"hits_at must be a non-empty tuple of ints >= 1 (the k of Hits@k), got {hits_at!r}")
        self.hits_at = tuple(int(k) for k in hits_at)
        self._ranking_pairs = None
        self._train_pairs = None
        self._checked_pairs = None

    def _train_sample(self):
        """The training positives and negatives the train AP ranks (drawn on first use)."""
        if self._train_pairs is None:
            pos, neg = np.asarray(self.split.train_positives), np.asarray(self.split.train_negatives)
            total = len(pos) + len(neg)
            if self.train_sample is not None and self.train_sample < total:
                rng = np.random.default_rng(self.seed)
                k_pos = min(len(pos), max(1, round(self.train_sample * len(pos) / total)))
                k_neg = min(len(neg), max(1, self.train_sample - k_pos))
                pos = pos[np.sort(rng.choice(len(pos), k_pos, replace=False))]
                neg = neg[np.sort(rng.choice(len(neg), k_neg, replace=False))]
            self._train_pairs = (pos, neg)
        return self._train_pairs

    def _ranked_pairs(self):
        """The held-out positives and, per positive, ``ranking`` negative pairs (same source), in the
        split graph's indices (drawn on first use, filtered by the full graph's edges)."""
        if self._ranking_pairs is None:
            g = self.split.graph
            bipartite = getattr(g, "kind", None) == "bipartite"
            offset = g.n_left if bipartite else 0
            pos = np.array(self.split.test_positives, dtype=np.int64)
            rows = pos - np.array([0, offset])        # target rows counted within the target table
            w = sample_candidates(rows, g.n_nodes - offset, self.ranking, graph=g, exclude_self=not bipartite,
                                  seed=self.seed)
            neg = np.stack([np.repeat(pos[:, 0], w.shape[1]), w.ravel() + offset], axis=1)
            self._ranking_pairs = (pos, neg)
        return self._ranking_pairs

    def _checked(self, pos, neg, n_rows):
        """The pairs as the scoring kernels take them, checked once: the split does not change between
        epochs, so the per-epoch evaluation skips the validation and the int64 copies."""
        return check_pairs(pos, n_rows, "positives"), check_pairs(neg, n_rows, "negatives")

    def on_train_begin(self, model):
        self._checked_pairs = None

    def on_epoch_end(self, model, epoch, record):
        planned = getattr(model, "planned_epochs_", None)
        if (epoch + 1) % self.every and (planned is None or epoch + 1 != planned.stop):
            return False
        start = time.perf_counter()
        s = self.split
        # the scores, the positives' sort and the negatives' ranks run on the model's threads: at 16
        # threads a one-thread evaluation would take longer than the epoch it reports on
        threads = max(1, int(getattr(model, "n_threads", 1) or 1))
        if getattr(model, "context_embedding_", None) is None:
            emb = model.embedding_
            if self._checked_pairs is None:
                self._checked_pairs = [self._checked(*self._train_sample(), len(emb)) if self.train else None,
                                       self._checked(s.test_positives, s.test_negatives, len(emb))]

            def ap(pairs):
                return _scoring.average_precision_pairs(emb, emb, *pairs, n_threads=threads)
            train_pairs, test_pairs = self._checked_pairs
        else:
            # a directed or bipartite graph's model scores x_u . y_v: its own pair scores, by node index
            # (a bipartite graph's right nodes counted from 0 within their side, as score_pairs takes them)
            offset = s.graph.n_left if getattr(s.graph, "kind", None) == "bipartite" else 0

            def scores(pairs):
                pairs = np.array(pairs, dtype=np.int64)
                pairs[:, 1] -= offset
                return model.score_pairs(pairs, index=True)

            def ap(pairs):
                return _scoring.average_precision_scores(scores(pairs[0]), scores(pairs[1]), n_threads=threads)
            train_pairs = self._train_sample() if self.train else None
            test_pairs = (s.test_positives, s.test_negatives)
        if self.train:
            record["train_ap"] = ap(train_pairs)
        record[f"{self.heldout_name}_ap"] = ap(test_pairs)
        if self.ranking is not None:
            pos, neg = self._ranked_pairs()
            if getattr(model, "context_embedding_", None) is None:
                # one table: the kernel of pair_scores, on the model's threads
                pos_scores, neg_scores = (_scoring.pair_dots(model.embedding_, model.embedding_, pairs,
                                                             n_threads=threads) for pairs in (pos, neg))
            else:
                pos_scores, neg_scores = scores(pos), scores(neg)
            ranks = ranks_from_scores(pos_scores, neg_scores.reshape(len(pos), -1), ties="average")
            for name, value in mrr_and_hits(ranks, self.hits_at).items():
                record[f"{self.heldout_name}_{name}"] = value
        if self.direction:
            # each one-way arc's log-odds s(u, v) - s(v, u) against its negation, as
            # metrics.direction_average_precision ranks them by default
            forward, backward = (scores(pairs) for pairs in self._direction_pairs)
            record[f"{self.heldout_name}_direction_ap"] = _scoring.average_precision_scores(
                forward - backward, backward - forward, n_threads=threads)
        record["eval_seconds"] = record.get("eval_seconds", 0.0) + (time.perf_counter() - start)
        return False


class NodeClassificationCallback(Callback):
    """Adds ``"micro_f1"`` and ``"macro_f1"`` of one-vs-rest node classification to the records.

    Parameters
    ----------
    labels : Graph, networkx graph, label matrix or one class per node
        Node labels, any form of :func:`lgekit.datasets.as_labels`.
    every : int, default 5
        Evaluate after epochs ``t`` with ``(t + 1) % every == 0``.
    train_ratio : float, default 0.5
        Fraction of labelled nodes used to train the classifier.
    seed : int, default 0
        Seed of the node split (fixed, so epochs are comparable).
    **kwargs
        Passed on to :func:`lgekit.metrics.node_classification_f1`.
    """

    def __init__(self, labels, every=5, train_ratio=0.5, seed=0, **kwargs):
        labels = as_labels(labels).matrix   # the one reading (a Graph's, a networkx graph's, a matrix)
        validate_params({"every": _EVERY, "train_ratio": [Interval(Real, 0, 1, closed="neither")]},
                        {"every": every, "train_ratio": train_ratio}, caller=type(self).__name__)
        self.labels = labels
        self.every = int(every)
        self.train_ratio = train_ratio
        self.seed = seed
        self.kwargs = kwargs

    def on_epoch_end(self, model, epoch, record):
        if (epoch + 1) % self.every:
            return False
        scores = node_classification_f1(model.embedding_, self.labels, train_ratio=self.train_ratio,
                                        seed=self.seed, **self.kwargs)
        record["micro_f1"] = float(scores["micro_f1"])
        record["macro_f1"] = float(scores["macro_f1"])
        return False


class EarlyStopping(Callback):
    """Stop when a monitored record field stops improving; optionally restore the best embedding.

    The estimators' ``early_stopping=True`` is this callback built in, on a
    validation split it carves itself (scikit-learn's rule; see
    :ref:`Early stopping <guide-selection-early-stopping>` in the User Guide).  The callback
    watches any field, with Keras's rule (a gain below ``min_delta`` is no
    improvement and no new best).

    Parameters
    ----------
    monitor : str, default "val_ap"
        Record field to watch (added by an earlier callback, or a model field
        such as ``"objective"``).  Epochs whose record lacks it are ignored.
        The default is the validation AP that ``early_stopping=True`` and
        ``LinkPredictionCallback(val, heldout_name="val")`` record: a field of
        the test split (``"test_ap"``) would choose the epoch on the data the
        model is tested on.
    patience : int, default 5
        Stop after this many evaluated epochs without improvement.
    mode : {"max", "min"}, default "max"
    min_delta : float, default 0.0
        Smallest change that counts as an improvement.
    restore_best : bool, default True
        At the end of training copy the best epoch's embedding back into
        ``model.embedding_`` (the history keeps every epoch), together with
        the solver's state of that epoch (HingeEmbedding's dual variables),
        so that training continued with ``partial_fit`` starts from there.

    Attributes
    ----------
    best_epoch_ : int or None
    best_value_ : float or None
    stopped_epoch_ : int or None
        The epoch after which training was stopped (None if it ran out).
    """

    def __init__(self, monitor="val_ap", patience=5, mode="max", min_delta=0.0, restore_best=True):
        validate_params({"monitor": [InstanceOf(str, "a record field name (str)")],
                         "patience": [Interval(Integral, 1, None, closed="left")],
                         "mode": [Options(str, {"max", "min"})],
                         "min_delta": [Interval(Real, 0, None, closed="left")],
                         "restore_best": ["boolean"]},
                        {"monitor": monitor, "patience": patience, "mode": mode, "min_delta": min_delta,
                         "restore_best": restore_best}, caller=type(self).__name__)
        self.monitor = monitor
        self.patience = int(patience)
        self.mode = mode
        self.min_delta = float(min_delta)
        self.restore_best = bool(restore_best)

    def on_train_begin(self, model):
        self.best_epoch_ = None
        self.best_value_ = None
        self.stopped_epoch_ = None
        self._best_embedding = None
        self._best_state = None
        self._wait = 0
        self._seen = False

    def _improved(self, value):
        if self.best_value_ is None:
            return True
        if self.mode == "max":
            return value > self.best_value_ + self.min_delta
        return value < self.best_value_ - self.min_delta

    def on_epoch_end(self, model, epoch, record):
        value = record.get(self.monitor)
        if value is None:
            return False
        self._seen = True
        value = float(value)
        if np.isfinite(value) and self._improved(value):
            self.best_value_ = value
            self.best_epoch_ = epoch
            self._wait = 0
            if self.restore_best:
                self._best_embedding = _tables(model, copy=True)
                self._best_state = model.solver_.state()
            return False
        self._wait += 1
        if self._wait >= self.patience:
            self.stopped_epoch_ = epoch
            logger.info("early stopping after epoch %d: %s did not improve on %.6g (epoch %d) for %d epochs",
                        epoch, self.monitor, self.best_value_ if self.best_value_ is not None else float("nan"),
                        -1 if self.best_epoch_ is None else self.best_epoch_, self.patience)
            return True
        return False

    def on_train_end(self, model):
        if not self._seen:
            warnings.warn(f"EarlyStopping: no record had the field {self.monitor!r}; put the callback that "
                          "computes it (e.g. LinkPredictionCallback) before EarlyStopping", RuntimeWarning,
                          stacklevel=2)
            return
        if self.restore_best and self._best_embedding is not None and self.best_epoch_ != model.n_iter_ - 1:
            for table, best in zip(_tables(model), self._best_embedding):
                table[...] = best
            model.solver_.set_state(self._best_state)
            model.best_epoch_ = self.best_epoch_
        self._best_embedding = None
        self._best_state = None
