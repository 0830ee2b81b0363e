"""Linear graph embedding models: one estimator base, one module per model, one solver per model.

* estimators: :class:`LogisticEmbedding` (SGD, ``logistic.py``), :class:`HingeEmbedding` (DCD,
  ``hinge.py``), both on :class:`BaseEmbedding` (``_base.py``: fit, partial_fit, transform, score,
  history, callbacks);
* what they train on: :class:`TrainingData` and the two tables' :class:`TableLayout`
  (``_training_data.py``); model files and word2vec export (``_model_file.py``); divergence
  (``_divergence.py``); the machine's limits (``_machine.py``);
* :class:`LogisticEmbeddingCV`, :class:`HingeEmbeddingCV` (``cv.py``): lambda_r (and dim) chosen on a
  validation split of the training graph, then refitted (scikit-learn's ``*CV`` pattern);
* :class:`NodeEmbedding` (``transductive.py``): an estimator holding the graph and taking node ids
  as ``X``, so that scikit-learn's model selection can tune it on node labels;
* solvers (a fitted model's ``solver_``): :class:`SGDSolver` (``_sgd_solver.py``) and
  :class:`DCDSolver` (``_dcd_solver.py``), on the interface of :class:`Solver` (``_solver.py``);
* kernels: ``_sgd.pyx``, ``_sgd_diagnostics.pyx``, ``_dcd.pyx``, ``_dcd_diagnostics.pyx``, the training
  pairs as they read them (``_incidence.pyx``) and the visiting orders of ``_schedules.pyx``; a stacked
  table's node biases and tie (``_two_tables.py``).
"""
from ._base import BaseEmbedding
from ._dcd_solver import DCDSolver
from ._divergence import DivergenceError
from ._machine import available_memory, max_n_threads
from ._model_file import read_word2vec, write_word2vec
from ._sgd_solver import SGDSolver
from ._solver import Solver
from ._training_data import TableLayout, TrainingData
from .cv import HingeEmbeddingCV, LogisticEmbeddingCV
from .hinge import HingeEmbedding
from .logistic import LogisticEmbedding
from .transductive import NodeEmbedding

# What a user calls: the estimators, their error, the solvers a fitted model holds (``solver_``) and what
# they train on, the machine's limits and the word2vec reader and writer.  The file formats' internals
# (the model file's checked readers, the epoch's status and order) stay in their private modules
# (``_model_file.py``, ``_solver.py``), the *CV estimators' shared mixin (``EmbeddingCV``) in ``cv.py``;
# tests/test_public_api.py pins this list.
__all__ = ["BaseEmbedding", "DCDSolver", "DivergenceError", "HingeEmbedding", "HingeEmbeddingCV",
           "LogisticEmbedding", "LogisticEmbeddingCV", "NodeEmbedding", "SGDSolver", "Solver", "TableLayout",
           "TrainingData", "available_memory", "max_n_threads", "read_word2vec", "write_word2vec"]
