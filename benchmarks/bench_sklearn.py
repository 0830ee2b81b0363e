"""scikit-learn interplay on a real graph (issue 35, items 2 and 3): F1 scorers and pickle sizes.

* **F1**: one ``GridSearchCV`` point whose one split is the one ``node_classification_f1`` draws
  (train ratio 0.5), scored by ``top_k_f1_scorer`` (micro, macro) and by scikit-learn's thresholded
  ``"f1_micro"``/``"f1_macro"``, against ``node_classification_f1`` on the same embedding.
* **Sizes**: a fitted model's ``save()`` file, its pickle, the pickle of its whole state (what pickle
  kept before issue 35: the solver and the training data), and the ``joblib.dump`` of a
  ``NodeEmbedding`` + one-vs-rest pipeline.

Usage::

    LGEKIT_DATA=../shared/data python3 benchmarks/bench_sklearn.py [--dataset blogcatalog] [--epochs 20]
"""
import argparse
import os
import pickle
import tempfile
import time

import joblib
import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline

from lgekit import HingeEmbedding, LogisticEmbedding, datasets
from lgekit.metrics import node_classification_f1, node_classification_split, top_k_f1_scorer
from lgekit.models.transductive import NodeEmbedding


def mb(n_bytes):
    return f"{n_bytes / 2**20:.1f} MB"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="blogcatalog")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--dim", type=int, default=100)
    args = parser.parse_args(argv)
    graph = datasets.load(args.dataset)
    print(f"{args.dataset}: {graph.n_nodes:,} nodes, {graph.n_edges:,} edges, {graph.labels.shape[1]} labels")
    model = LogisticEmbedding(dim=args.dim, epochs=args.epochs, random_state=0)
    t0 = time.perf_counter()
    fitted = clone(model).fit(graph)     # model stays unfitted: the pipelines below hold it as a parameter
    print(f"fit: {time.perf_counter() - t0:.1f} s")

    expected = node_classification_f1(fitted.embedding_, graph.labels, train_ratio=0.5, seed=0)
    labelled, y, train, test, classifier_seed = node_classification_split(graph, 0.5, 0)
    split = (train, test)
    pipe = make_pipeline(NodeEmbedding(model, graph=graph),
                         OneVsRestClassifier(LogisticRegression(solver="liblinear", random_state=classifier_seed)))
    scoring = {"top_k_micro": top_k_f1_scorer("micro"), "top_k_macro": top_k_f1_scorer("macro"),
               "f1_micro": "f1_micro", "f1_macro": "f1_macro"}
    search = GridSearchCV(pipe, {"nodeembedding__model__lam_r": [model.lam_r]}, scoring=scoring, cv=[split],
                          refit=False).fit(np.asarray(graph.node_ids)[labelled].reshape(-1, 1), y)
    print("\n| score | micro-F1 | macro-F1 |\n|---|---|---|")
    print(f"| node_classification_f1 (top-k) | {expected['micro_f1']:.4f} | {expected['macro_f1']:.4f} |")
    r = search.cv_results_
    print(f"| GridSearchCV, top_k_f1_scorer | {r['mean_test_top_k_micro'][0]:.4f} | "
          f"{r['mean_test_top_k_macro'][0]:.4f} |")
    print(f"| GridSearchCV, \"f1_micro\"/\"f1_macro\" (thresholded) | {r['mean_test_f1_micro'][0]:.4f} | "
          f"{r['mean_test_f1_macro'][0]:.4f} |")

    print("\n| model | save() file | pickle | pickle of the whole state (before) |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, estimator in (("LogisticEmbedding", fitted),
                                ("HingeEmbedding", HingeEmbedding(dim=args.dim, epochs=2, random_state=0).fit(graph))):
            saved = os.path.getsize(estimator.save(os.path.join(tmp, "m.npz")))
            everything = len(pickle.dumps(BaseEstimator.__getstate__(estimator)))
            print(f"| {name} | {mb(saved)} | {mb(len(pickle.dumps(estimator)))} | {mb(everything)} |")
        node_pipe = make_pipeline(NodeEmbedding(model, graph=graph), OneVsRestClassifier(LogisticRegression()))
        node_pipe.fit(np.asarray(graph.node_ids)[labelled].reshape(-1, 1), y)
        path = os.path.join(tmp, "pipe.joblib")
        joblib.dump(node_pipe, path)
        print(f"\njoblib.dump of the NodeEmbedding + one-vs-rest pipeline: {mb(os.path.getsize(path))}; its parts "
              f"pickled alone: the graph parameter {mb(len(pickle.dumps(graph)))}, the fitted model "
              f"{mb(len(pickle.dumps(node_pipe[0].model_)))}, the classifier {mb(len(pickle.dumps(node_pipe[1])))}; "
              f"with the model's whole state (before) the model alone is "
              f"{mb(len(pickle.dumps(BaseEstimator.__getstate__(node_pipe[0].model_))))}")


if __name__ == "__main__":
    main()
