"""Scores of an embedding: link prediction (AP, ROC-AUC of ``x_u . x_v``, or
``x_u . y_v`` with a second table; MRR and Hits@k of each positive ranked against
negatives for its source, OGB's protocol), direction prediction on a directed graph
(AP of telling an arc from its reverse) and node classification (Micro/Macro-F1
of one-vs-rest logistic regression, the DeepWalk ``scoring.py`` protocol).

The package's modules, one question each: :mod:`._link` (is there a link? pair scores, AP, ROC-AUC, the
edge-feature classifier), :mod:`._direction` (which way does it go?), :mod:`._classification` (node labels)
and :mod:`._ranking` (MRR, Hits@k); :mod:`._embedding` reads an embedding for all of them.  Every public
name is imported from here (``from lgekit.metrics import average_precision``).
"""
from ._classification import (
    NodeClassificationSplit,
    TopKF1Scorer,
    node_classification_f1,
    node_classification_split,
    top_k_f1,
    top_k_f1_scorer,
)
from ._direction import direction_average_precision
from ._embedding import check_embedding  # noqa: F401 (not in __all__: lgekit.plotting reads an embedding with it)
from ._link import (
    LinkPredictionFeatures,
    average_precision,
    average_precision_from_scores,
    edge_classifier_scores,
    link_prediction_features,
    pair_scores,
    roc_auc,
)
from ._ranking import link_ranking, mrr_and_hits, ranks_from_scores, sample_candidates

# The metrics and their result classes.  The tables of accepted values (``TIES``, ``EDGE_OPERATORS``) stay in
# their modules and the error messages list them; ``non_reciprocal_arcs`` is :mod:`lgekit.evaluation`'s.
# tests/test_public_api.py pins this list.
__all__ = ["pair_scores", "average_precision", "average_precision_from_scores", "roc_auc",
           "direction_average_precision", "node_classification_f1", "top_k_f1",
           "top_k_f1_scorer", "TopKF1Scorer", "ranks_from_scores", "mrr_and_hits", "sample_candidates", "link_ranking",
           "NodeClassificationSplit", "node_classification_split",
           "LinkPredictionFeatures", "link_prediction_features", "edge_classifier_scores"]
