"""Early stopping on a validation split of the training graph: the validation pairs' average precision
after every epoch, scikit-learn's rule for when to stop, and the best epoch's tables, put back at the end.

The estimator (:class:`~lgekit.models.BaseEmbedding`, ``early_stopping=True``) carves the validation
split out of the training graph (:func:`lgekit.evaluation.validation_split`), trains on the rest, and
hands this monitor the validation pairs as rows of the table the solver trains (for two tables, the
stacked rows ``(u, n_source + v)``, so that one dot product scores :math:`x_u \\cdot y_v`).
"""
import math

import numpy as np

from .._simd import load_kernel

__all__ = ["ValidationMonitor"]

# the AVX2 build when the CPU has it (lgekit._simd)
_scoring = load_kernel("lgekit._scoring")


class ValidationMonitor:
    """The validation AP of every epoch of one ``fit``, when to stop, and the best epoch's tables.

    The rule is scikit-learn's (``MLPClassifier``, ``SGDClassifier`` with
    ``early_stopping=True``): an epoch whose score is not at least ``tol``
    above the best so far counts as one without improvement, one that is
    resets the count; the fit stops once ``n_iter_no_change`` epochs in a
    row count, and any epoch better than the best (by however little)
    becomes the best, whose tables (and solver state: HingeEmbedding's
    duals) :meth:`restore` puts back.

    Parameters
    ----------
    positives, negatives : int64 array of shape (k, 2)
        Validation pairs, rows of the trained table.
    n_iter_no_change : int >= 1
    tol : float >= 0

    Attributes
    ----------
    scores : list of float
        The validation AP after each epoch of this fit.
    best_score : float
        The best of them (or the starting tables' score, see :meth:`start`);
        ``-inf`` before any.
    best_epoch : int or None
        Its epoch (0-based, as ``history_``'s ``"epoch"``).
    """

    def __init__(self, positives, negatives, *, n_iter_no_change, tol):
        self.positives = np.ascontiguousarray(positives, dtype=np.int64)
        self.negatives = np.ascontiguousarray(negatives, dtype=np.int64)
        self.n_iter_no_change = int(n_iter_no_change)
        self.tol = float(tol)
        self.scores = []
        self.best_score = -math.inf
        self.best_epoch = None
        self._best_table = None
        self._best_state = None
        self._no_improvement = 0

    def score(self, table, n_threads=1):
        """The average precision of the validation pairs under ``table`` (scores ``table[u] . table[v]``)."""
        return float(_scoring.average_precision_pairs(table, table, self.positives, self.negatives,
                                                      n_threads=max(1, int(n_threads))))

    def start(self, score, epoch, table, solver):
        """A continued fit (``warm_start``): the tables it starts from, of ``epoch``, score ``score`` and are
        the best until an epoch beats them."""
        self.best_score, self.best_epoch = float(score), int(epoch)
        self._keep(table, solver)

    def update(self, epoch, score, table, solver):
        """Record epoch ``epoch``'s ``score``; keep its tables when it is the best.  Returns True to stop."""
        score = float(score)
        self.scores.append(score)
        # NaN never counts as an improvement (compared the other way round it would reset the count)
        if score >= self.best_score + self.tol:
            self._no_improvement = 0
        else:
            self._no_improvement += 1
        if score > self.best_score:
            self.best_score, self.best_epoch = score, int(epoch)
            self._keep(table, solver)
        return self._no_improvement >= self.n_iter_no_change

    def _keep(self, table, solver):
        if self._best_table is None or self._best_table.shape != table.shape:
            self._best_table = np.empty_like(table)
        np.copyto(self._best_table, table)
        self._best_state = solver.state()

    def restore(self, table, solver, last_epoch):
        """Put the best epoch's tables and solver state back into ``table`` and ``solver`` (nothing to do
        when the best epoch is ``last_epoch``, the one they hold).  Returns the best epoch."""
        if self._best_table is not None and self.best_epoch != last_epoch:
            np.copyto(table, self._best_table)
            solver.set_state(self._best_state)
        self._best_table = self._best_state = None
        return self.best_epoch
