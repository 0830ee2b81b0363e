"""Linear graph embedding models: one estimator base, one module per model, one solver per model.

* estimators: :class:`LogisticEmbedding` (SGD, ``logistic.py``), :class:`HingeEmbedding` (DCD,
  ``hinge.py``), both on :class:`BaseEmbedding` (``_base.py``: validation, data, seeding, history,
  callbacks, divergence, model files);
* solvers (a fitted model's ``solver_``): :class:`SGDSolver` (``_sgd_solver.py``) and
  :class:`DCDSolver` (``_dcd_solver.py``), on the interface of :class:`Solver` (``_solver.py``);
* kernels: ``_sgd.pyx``, ``_sgd_diagnostics.pyx``, ``_dcd.pyx``, and the visiting orders and pair
  layouts of ``_schedules.pyx``.
"""
from ._base import BaseEmbedding, DivergenceError, TrainingData, available_memory, max_n_threads
from ._dcd_solver import DCDSolver
from ._sgd_solver import SGDSolver
from ._solver import EpochOrder, EpochStatus, Solver
from .hinge import HingeEmbedding
from .logistic import LogisticEmbedding

__all__ = ["BaseEmbedding", "DCDSolver", "DivergenceError", "EpochOrder", "EpochStatus", "HingeEmbedding",
           "LogisticEmbedding", "SGDSolver", "Solver", "TrainingData", "available_memory", "max_n_threads"]
