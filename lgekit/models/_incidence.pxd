# cython: language_level=3
"""Contract of the training pairs as the kernels store them (see _incidence.pyx): the pair record."""
from libc.stdint cimport int32_t


cdef packed struct PairRec:
    # One training pair as the solver stores it (8 bytes).  Its coefficient is not stored: it is a
    # function of the record's index p (``lam_pos * weight[p]`` for the positives, p < n_pos, and
    # ``-lam_neg`` for the negatives), which the edge-order kernel evaluates as it reads the pair.
    int32_t u
    int32_t v
