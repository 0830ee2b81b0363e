"""scikit-learn's own estimator checks (issue #37): the suite every scikit-learn-compatible library runs,
on lgekit's three estimators, with the checks that cannot apply declared, with their reason, in each
estimator's public ``ESTIMATOR_CHECKS_EXPECTED_FAILURES``.  A new scikit-learn release that adds a check
shows up here as a failing test; an expected failure that starts passing fails too (strict xfail).

``LogisticEmbedding`` and ``HingeEmbedding`` take a graph as ``X`` (``input_tags.two_d_array`` False):
the suite, which feeds samples x features matrices, skips them with a SkipTestWarning, as it skips
scikit-learn's own text and dict vectorizers; the checks that feed no data run on them below, and the
whole suite runs on them through ``NodeEmbedding``, whose ``X`` is node ids."""
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError, SkipTestWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils import estimator_checks as checks
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from lgekit import Graph, HingeEmbedding, LogisticEmbedding
from lgekit.models.transductive import NodeEmbedding


def _checks_graph(directed=False):
    """A ring with chords on the ids -40..79: the suite feeds small integers, negative ones too
    (check_positive_only_tag_during_fit), as the node ids of a NodeEmbedding's X."""
    ids = np.arange(-40, 80)
    rng = np.random.default_rng(0)
    chords = rng.choice(ids, size=(60, 2))
    edges = np.vstack([np.column_stack([ids, np.roll(ids, 1)]), chords[chords[:, 0] != chords[:, 1]]])
    return Graph.from_edges(edges, directed=directed)


GRAPH = _checks_graph()
ESTIMATORS = [
    NodeEmbedding(LogisticEmbedding(dim=4, epochs=2, random_state=0), graph=GRAPH, cache=False),
    NodeEmbedding(HingeEmbedding(dim=4, epochs=2, random_state=0), graph=GRAPH),
    NodeEmbedding(LogisticEmbedding(dim=3, epochs=2, random_state=0), graph=_checks_graph(directed=True),
                  table="both", cache=False),
    LogisticEmbedding(dim=4, epochs=2),
    HingeEmbedding(dim=4, epochs=2),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda e: e.ESTIMATOR_CHECKS_EXPECTED_FAILURES,
                         xfail_strict=True)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_expected_failures_are_few_and_explained():
    for estimator in (NodeEmbedding, LogisticEmbedding, HingeEmbedding):
        mapping = estimator.ESTIMATOR_CHECKS_EXPECTED_FAILURES
        assert len(mapping) <= 3
        assert all(name.startswith("check_") and len(reason) > 40 for name, reason in mapping.items())


# the suite's checks that feed no samples x features data: they apply to the graph estimators
DATA_FREE_CHECKS = ["check_estimator_cloneable", "check_estimator_repr", "check_no_attributes_set_in_init",
                    "check_parameters_default_constructible", "check_get_params_invariance", "check_set_params",
                    "check_do_not_raise_errors_in_init_or_set_params", "check_mixin_order", "check_valid_tag_types",
                    "check_estimator_tags_renamed", "check_transformers_unfitted", "check_estimators_unfitted"]


@pytest.mark.parametrize("name", DATA_FREE_CHECKS)
@pytest.mark.parametrize("estimator", [LogisticEmbedding(dim=4, epochs=2), HingeEmbedding(dim=4, epochs=2)],
                         ids=type)
def test_graph_estimators_pass_the_checks_that_feed_no_matrix(estimator, name):
    getattr(checks, name)(type(estimator).__name__, estimator)


@pytest.mark.parametrize("estimator", [LogisticEmbedding, HingeEmbedding])
def test_graph_estimators_declare_a_graph_as_input(estimator):
    tags = get_tags(estimator())
    assert tags.transformer_tags is not None and tags.transformer_tags.preserves_dtype == []
    assert not tags.input_tags.two_d_array and tags.input_tags.sparse and not tags.target_tags.required
    with pytest.warns(SkipTestWarning, match=f"Can't test estimator {estimator.__name__} which requires input"):
        results = check_estimator(estimator(), on_fail=None)
    assert {r["status"] for r in results} == {"passed"}
    # without the tags (as before issue #37) the suite cannot be run: "seems to be a Transformer, but the
    # `transformer_tags` tag is not set"
    untagged = type("Untagged", (estimator,), {"__sklearn_tags__": BaseEstimator.__sklearn_tags__})
    with warnings.catch_warnings(), pytest.raises(RuntimeError, match="`transformer_tags` tag is not set"):
        warnings.simplefilter("ignore")
        check_estimator(untagged(dim=4, epochs=2), on_fail=None)


@pytest.mark.parametrize("estimator", [LogisticEmbedding, HingeEmbedding])
def test_non_deterministic_only_where_threads_race(estimator):
    assert not get_tags(estimator(n_threads=2, schedule="deterministic")).non_deterministic
    assert get_tags(estimator(n_threads=2, schedule="hogwild")).non_deterministic
    assert not get_tags(estimator(n_threads=1, schedule="hogwild")).non_deterministic
    node = NodeEmbedding(estimator(n_threads=2, schedule="hogwild"), graph=GRAPH)
    assert get_tags(node).non_deterministic and not get_tags(NodeEmbedding(graph=GRAPH)).non_deterministic


# ------------------------------------------------------------------ NodeEmbedding, the fixes behind the suite
@pytest.fixture
def node():
    return NodeEmbedding(LogisticEmbedding(dim=3, epochs=2, random_state=0), graph=GRAPH, cache=False)


def test_several_id_columns_put_their_rows_side_by_side(node):
    X = np.array([[0, 5], [-3, 7], [12, 0]])
    out = node.fit(X).transform(X)
    assert out.shape == (3, 6) and node.n_features_in_ == 2 and node.n_features_out_ == 6
    np.testing.assert_array_equal(out[:, :3], node.model_.transform(X[:, 0]))
    np.testing.assert_array_equal(out[:, 3:], node.model_.transform(X[:, 1]))
    with pytest.raises(ValueError, match="X has 1 features, but NodeEmbedding is expecting 2 features"):
        node.transform(X[:, :1])
    assert list(node.get_feature_names_out()) == [f"x{i}_{j}" for i in range(2) for j in range(3)]


def test_set_output_pandas_names_the_columns(node):
    X = pd.DataFrame({"source": [0, 1, 2], "target": [3, 4, -5]}, index=["a", "b", "c"])
    out = node.set_output(transform="pandas").fit(X).transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.index) == ["a", "b", "c"]
    assert list(out.columns) == [f"{c}_{j}" for c in ("source", "target") for j in range(3)]
    assert list(node.feature_names_in_) == ["source", "target"]
    np.testing.assert_array_equal(out.to_numpy(), node.set_output(transform="default").transform(X))
    with pytest.raises(ValueError, match="input_features must equal feature_names_in_"):
        node.get_feature_names_out(["u", "v"])


def test_directed_both_tables_name_the_context_columns():
    node = NodeEmbedding(LogisticEmbedding(dim=2, epochs=1, random_state=0), graph=_checks_graph(directed=True),
                         table="both").fit([[0]])
    assert list(node.get_feature_names_out(["n"])) == ["n_0", "n_1", "n_context0", "n_context1"]


def test_column_transformer_embeds_one_column_and_scales_another(node):
    X = pd.DataFrame({"node": [0, 1, 2, 3, 4, 5], "age": [30.0, 40.0, 50.0, 20.0, 35.0, 45.0]})
    y = np.array([0, 1, 0, 1, 0, 1])
    ct = ColumnTransformer([("emb", node, ["node"]), ("num", StandardScaler(), ["age"])])
    pipe = make_pipeline(ct, LogisticRegression()).fit(X, y)
    names = list(pipe[0].get_feature_names_out())
    assert names == ["emb__node_0", "emb__node_1", "emb__node_2", "num__age"]
    assert pipe.predict(X).shape == (6,)
    features = clone(ct).set_output(transform="pandas").fit_transform(X, y)
    assert list(features.columns) == names
    own = clone(node).fit(X[["node"]]).transform(X[["node"]])
    np.testing.assert_array_equal(features[names[:3]].to_numpy(), own)


@pytest.mark.parametrize("X, error, match", [
    (np.array([[0.0], [np.nan]]), ValueError, "Input X contains NaN"),
    (np.array([[0.0], [np.inf]]), ValueError, "Input X contains infinity"),
    (sp.csr_matrix(np.array([[1], [2]])), TypeError, "Sparse data was passed"),
    (np.zeros((0, 1), dtype=int), ValueError, r"Found array with 0 sample\(s\)"),
    (np.array([[1 + 2j]]), ValueError, "Complex data not supported"),
    (np.array([[0.5]]), ValueError, "X: .*0.5"),
    (np.array([[1000]]), ValueError, "X: .*1000"),
])
def test_bad_x_is_refused_with_scikit_learns_messages(node, X, error, match):
    with pytest.raises(error, match=match):
        node.fit(X)


def test_integer_ids_that_arrive_as_floats_are_those_ids(node):
    node.fit([[1], [2]])
    np.testing.assert_array_equal(node.transform(np.array([[3.0], [-2.0]])), node.transform([[3], [-2]]))


def test_check_is_fitted_and_idempotent_fit(node):
    with pytest.raises(NotFittedError):
        check_is_fitted(node)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        node.transform([0])
    first = node.fit([0, 1]).transform([0, 5])
    check_is_fitted(node)
    assert not hasattr(node.fit([[0, 1]]), "feature_names_in_") and node.n_features_in_ == 2
    np.testing.assert_array_equal(node.fit([0, 1]).transform([0, 5]), first)     # cache=False: trained twice
    with pytest.raises(NotFittedError):
        check_is_fitted(LogisticEmbedding())
    check_is_fitted(LogisticEmbedding(dim=2, epochs=1, random_state=0).fit(GRAPH))
