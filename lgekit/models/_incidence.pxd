# cython: language_level=3
"""Contract of the training pairs as the kernels read them (see _incidence.pyx): the pair record, and
two C structs a ``nogil`` kernel reads, each filled from its Python bundle of arrays (gensim's config
struct): ``PairSet`` from a ``PairRecords``, the records an edge-order epoch visits with the rule that
gives each its coefficient, and ``Incidence`` from an ``IncidenceLists``, every vertex's partners.

A struct holds pointers into the bundle's arrays: it is valid while the bundle is (the kernels fill one
at a call's start and drop it at its end)."""
from libc.stdint cimport int32_t, int64_t


cdef packed struct PairRec:
    # One training pair as the solver stores it (8 bytes).  Its coefficient is not stored: it is a
    # function of the record's index p (``lam_pos * weight[p]`` for the positives, p < n_pos, and
    # ``-lam_neg`` for the negatives), which the edge-order kernel evaluates as it reads the pair.
    int32_t u
    int32_t v


cdef struct PairSet:
    # The training pairs of an edge-order epoch: records 0..n_pos-1 are the positives, the rest negatives.
    const PairRec* records
    Py_ssize_t n_pairs
    Py_ssize_t n_pos
    const double* pos_coef      # the n_pos positives' coefficients, or NULL: every positive has lam_pos
    double lam_pos
    double lam_neg              # every negative's coefficient (it enters the loss with the opposite sign)


cdef struct Incidence:
    # Every vertex's partners: vertex u's positive partners are pos_nbr[pos_ptr[u]:pos_ptr[u + 1]], its
    # negative partners neg_nbr[neg_ptr[u]:neg_ptr[u + 1]] (a pair is listed at both of its ends).
    Py_ssize_t n_vertices
    const int64_t* pos_ptr
    const int32_t* pos_nbr      # NULL when there is no positive entry
    const double* pos_coef      # each positive entry's coefficient, or NULL: every one is pos_scale
    double pos_scale
    const int64_t* neg_ptr
    const int32_t* neg_nbr      # NULL when there is no negative entry
    double lam_neg              # every negative entry's coefficient


cdef int read_pairs(object pairs, PairSet* out) except -1
cdef int read_incidence(object lists, Py_ssize_t n_vertices, Incidence* out) except -1
