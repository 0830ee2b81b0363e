r"""The extras of a stacked two-table embedding, run by the SGD solver around its epochs.

A directed or bipartite graph trains one stacked table (``lgekit.reference.stack_tables``): rows
``0..n_source-1`` hold the source (left) vectors :math:`x_u`, the others the target (right) vectors
:math:`y_v`.  Two extras ride on it, each the computation of a function of ``lgekit.reference``'s
two-table section, which the tests certify them against:

* **node biases** (``node_bias``; :func:`lgekit.reference.bias_pins`): a source row holds its last
  coordinate at :math:`\kappa` (:data:`BIAS_CONSTANT`) and carries its bias :math:`b_u` in the one before,
  a target row the other way round, so that :math:`x_u\cdot y_v = x'_u\cdot y'_v + \kappa(b_u + c_v)`.
  The edge-order kernel holds the constant coordinates after every update (``edge_epoch``'s ``pinned``);
  on a directed graph the biases are then projected onto a node order, :math:`b_u + c_u = 0`
  (:func:`lgekit.reference.order_biases`), after every epoch;
* **the tie** (``lam_tie``; :func:`lgekit.reference.tie_penalty`): :math:`\lambda_{\mathrm{tie}}\sum_u
  \|x'_u - y'_u\|^2` between a directed graph's node's two vectors (their free coordinates), applied by
  its proximal step (:func:`lgekit.reference.tie_step`) at the end of every epoch, before the order.

Which graphs take which extra is said here (:func:`check_extras`, with the parameters' own errors) and checked
by the estimator when it validates its parameters against the graph, before it builds a solver.
"""
import numpy as np

from .._simd import load_kernel
from .._validation import InvalidParameterError

_sgd = load_kernel("lgekit.models._sgd")   # the tie's proximal step (tie_rows); the AVX2 build when the CPU has it

__all__ = ["BIAS_CONSTANT", "MAX_TIE_RECIPROCITY", "TwoTableExtras", "check_extras"]

#: kappa, the value of the constant coordinate that carries the node biases: the score gains kappa (b_u + c_v),
#: so the bias beta_u = kappa b_u is regularised by lam_r / kappa**2 (4 lam_r) and steps kappa**2 times as far
#: as a free coordinate.  0.5: with the tie and the order of a directed graph's biases, the direction AP passes
#: the degree rule on Cora on every seed measured; a larger kappa trades Cora's link AP for little more
#: direction, a smaller one the reverse (benchmarks/README.md, "Direction: ties", has the figures)
BIAS_CONSTANT = 0.5

#: the reciprocity at which ``lam_tie=None`` stops growing (r / (1 - r) = 999): a fully reciprocal graph ties its
#: tables all but completely instead of dividing by zero
MAX_TIE_RECIPROCITY = 0.999


def check_extras(node_bias, lam_tie, kind, order, dim):
    """Refuse the extras a graph of kind ``kind`` (``"undirected"``, ``"directed"``, ``"bipartite"``) cannot take.

    ``node_bias=True`` needs two tables, the edge order and ``dim >= 2``; ``lam_tie > 0`` needs a directed
    graph.  None (the graph's default) and False / 0 are always accepted.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, its value, what the graph lacks and what it accepts.
    """
    if node_bias:
        if kind not in ("directed", "bipartite"):
            raise InvalidParameterError(
                "node_bias=True needs two tables (a directed or bipartite graph): one table's x_u . x_v cannot "
                "carry a bias b_u + b_v on a constant coordinate; got an undirected graph",
                parameter="node_bias", value=node_bias, accepted="None or False for an undirected graph")
        if order != "edge":
            raise InvalidParameterError(
                f"node_bias=True needs order='edge' (the edge order's kernel holds the constant coordinate), got "
                f"order={order!r}", parameter="node_bias", value=node_bias, accepted="None or False with order='vertex'")
        if dim < 2:
            raise InvalidParameterError(
                f"node_bias=True needs dim >= 2 (a bias coordinate and a constant one), got dim={dim}",
                parameter="node_bias", value=node_bias, accepted="None or False with dim=1")
    if lam_tie is not None and lam_tie > 0 and kind != "directed":
        raise InvalidParameterError(
            f"lam_tie > 0 needs a directed graph: it ties a node's source vector to its target vector, and "
            f"{'a bipartite graph has no node on both sides' if kind == 'bipartite' else 'an undirected graph has one vector a node'}"
            f"; got lam_tie={lam_tie!r}", parameter="lam_tie", value=lam_tie,
            accepted="None or 0 for an undirected or bipartite graph")


class TwoTableExtras:
    """A stacked table's node biases and tie, resolved for one graph (``node_bias`` / ``lam_tie`` None: the
    graph's defaults) and applied to the table in place.

    Parameters
    ----------
    node_bias : bool or None
        None: on for a directed graph with the edge order and ``dim >= 2``.
    lam_tie : float >= 0 or None
        None: :math:`r / (1 - r)` for a directed graph, ``r`` the training arcs'
        :meth:`~lgekit.Graph.reciprocity` (capped at :data:`MAX_TIE_RECIPROCITY`), 0 otherwise.
    graph : Graph
        The training graph (its ``kind``, and its reciprocity for the default tie).
    order : {"edge", "vertex"}
    shape : (int, int)
        The stacked table's rows and columns.
    n_source : int or None
        Rows of the first table (None: one table, no extras).

    The values are the estimator's, checked against the graph already (:func:`check_extras`, called by
    ``LogisticEmbedding`` when it validates its parameters); this class does not check them again.
    """

    def __init__(self, *, node_bias, lam_tie, graph, order, shape, n_source):
        kind = getattr(graph, "kind", None) if n_source is not None else "undirected"
        n_rows, self.dim = shape
        self.n_source = n_source
        # row n_source + u is node u's target vector: the tie and the order pair those rows
        self._directed = kind == "directed" and n_source is not None and 2 * n_source == n_rows
        if node_bias is None:
            node_bias = kind == "directed" and order == "edge" and self.dim >= 2
        self.pins = None
        if node_bias:
            self.pins = np.full(n_rows, self.dim - 1, np.int32)
            self.pins[n_source:] = self.dim - 2
        if lam_tie is None:
            r = min(graph.reciprocity(), MAX_TIE_RECIPROCITY) if self._directed else 0.0
            lam_tie = r / (1.0 - r)
        self.lam_tie = float(lam_tie)
        # a directed graph's biases are a node order, c_u = -b_u (see order_biases); a bipartite graph's are free
        self.biases_are_an_order = self.pins is not None and self._directed

    @property
    def node_bias(self):
        """Whether the rows carry node biases on a constant coordinate (the kernel's ``pinned``: :attr:`pins`)."""
        return self.pins is not None

    @property
    def free_columns(self):
        """How many leading columns the tie pulls together: all but the node biases' two."""
        return self.dim - 2 if self.pins is not None else self.dim

    def settings_in_force(self):
        """What ``lam_tie`` and ``node_bias`` resolved to, and whether the biases are an order."""
        return {"lam_tie": self.lam_tie, "node_bias": self.node_bias, "biases_are_an_order": self.biases_are_an_order}

    def project(self, table):
        """Put the constant coordinates of the node biases to :data:`BIAS_CONSTANT` (the constraint the kernel
        keeps), in place; a no-op without node biases."""
        if self.pins is not None:
            table[:self.n_source, self.dim - 1] = BIAS_CONSTANT
            table[self.n_source:, self.dim - 2] = BIAS_CONSTANT

    def epoch_end(self, table, step, n_threads):
        """The proximal steps that close an epoch of step ``step``: the tie, then the order of the biases."""
        self.tie_step(table, step, n_threads)
        self.order_biases(table)

    def tie_step(self, table, step, n_threads):
        r"""The tie's proximal step at step size ``step``, in place (:func:`lgekit.reference.tie_step`).

        The minimiser of :math:`\tfrac12\|X - X_0\|^2 + \mathrm{step}\,\lambda_{\mathrm{tie}}\sum_u
        \|x'_u - y'_u\|^2` keeps :math:`x'_u + y'_u` and shrinks :math:`x'_u - y'_u` by
        :math:`1 / (1 + 4\,\mathrm{step}\,\lambda_{\mathrm{tie}})`.  A no-op without a tie.
        """
        if self.lam_tie <= 0:
            return
        share = 1.0 - 1.0 / (1.0 + 4.0 * step * self.lam_tie)     # the share of x' - y' removed
        _sgd.tie_rows(table, self.n_source, self.free_columns, share, n_threads)

    def order_biases(self, table):
        r"""Project a directed graph's node biases onto a node order, in place: :math:`b_u + c_u = 0`.

        The Euclidean projection keeps :math:`a_u = (b_u - c_u)/2` and sets :math:`b_u = a_u`,
        :math:`c_u = -a_u`, so that the biases add :math:`\kappa(a_u - a_v)` to the score of
        :math:`u \to v` (:func:`lgekit.reference.order_biases`).  A no-op without node biases or for a
        bipartite graph.
        """
        if not self.biases_are_an_order:
            return
        ns, D = self.n_source, self.dim
        order = (table[:ns, D - 2] - table[ns:, D - 1]) * 0.5
        table[:ns, D - 2] = order
        table[ns:, D - 1] = -order

    def _tie_halves(self, table):
        """(x', y'): views of the source rows' and the target rows' free coordinates (the tied ones)."""
        ns, free = self.n_source, self.free_columns
        return table[:ns, :free], table[ns:, :free]

    def tie_penalty(self, table):
        """lam_tie * sum_u ||x'_u - y'_u||^2 (float64; :func:`lgekit.reference.tie_penalty`), 0 without a tie."""
        if self.lam_tie <= 0:
            return 0.0
        x, y = self._tie_halves(table)
        diff = x.astype(np.float64) - y
        return self.lam_tie * float(np.einsum("ij,ij->", diff, diff))

    def add_tie_gradient(self, table, grad, gnorm, vertices=None):
        """Add the tie's gradient, +-2 lam_tie (x'_u - y'_u), to the rows ``vertices`` (all: None) of ``grad``
        and put their norms in ``gnorm``."""
        ns = self.n_source
        x, y = self._tie_halves(table)
        rows = np.arange(len(table)) if vertices is None else np.asarray(vertices, np.int64)
        node = np.where(rows < ns, rows, rows - ns)
        sign = np.where(rows < ns, 2.0, -2.0) * self.lam_tie
        grad[rows, :x.shape[1]] += sign[:, None] * (x[node].astype(np.float64) - y[node])
        gnorm[rows] = np.sqrt(np.einsum("ij,ij->i", grad[rows], grad[rows]))
