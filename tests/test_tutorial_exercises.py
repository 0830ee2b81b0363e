"""The tutorials' exercise checks grade: each rejects wrong answers a student would write, and passes the solution.

Every check cell of tutorials 01-07 opens with a ``grade_exercise_K(answer, ...)`` function that tests the
student's answer on a case where the right answer and the tempting wrong ones differ (a toy problem that is
not the notebook's data, so an answer that ignores its arguments shows), and checks the method where a value
cannot tell (the pairs a selection scores, the exception's origin, the stopping rule).  The notebook calls it
on the student's answer and then runs the exercise on the real data.

Here each grader is lifted out of its notebook without running the notebook: the namespace holds the
notebook's imports, its helper functions and its call-free constants (``_namespace``), the grader is defined
in it, and then

* the worked solution (its function and class definitions only, not its plots) passes, and
* at least two wrong answers, written as a student would write them, are each rejected with an
  ``AssertionError`` (the checks' way of failing in a notebook).

The contexts the graders need (a small graph, a split, a fitted model) are built small, so these tests are
fast; the notebooks themselves run the graders on their own data (``tests/test_tutorials.py``).
"""
import ast
import copy
import textwrap
from pathlib import Path

import numpy as np
import pytest

import lgekit
from lgekit import datasets, theory

jupytext = pytest.importorskip("jupytext", reason="tutorial tests need the 'tutorials' extra (jupytext, nbclient)")

TUTORIAL_DIR = Path(__file__).resolve().parent.parent / "tutorials"


def _tutorial(number):
    (path,) = TUTORIAL_DIR.glob(f"{number:02d}_*.py")
    return jupytext.read(path).cells


def _tags(cell):
    return set(cell.metadata.get("tags", []))


def _has_call(node):
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _run(nodes, ns):
    exec(compile(ast.Module(body=list(nodes), type_ignores=[]), "<tutorial>", "exec"), ns)


_NAMESPACES = {}


def _namespace(number):
    """The notebook's imports, functions, classes and call-free constants: what a grader may read."""
    if number not in _NAMESPACES:
        ns = {"__name__": f"tutorial_{number:02d}"}
        for cell in _tutorial(number):
            if cell.cell_type != "code" or _tags(cell) & {"solution", "exercise", "check"}:
                continue
            for node in ast.parse(cell.source).body:
                definition = isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))
                constant = isinstance(node, (ast.Assign, ast.AnnAssign)) and not _has_call(node)
                if definition or constant:
                    try:
                        _run([node], ns)
                    except (NameError, LookupError, AttributeError, TypeError):
                        pass               # a constant computed from the notebook's data: no grader reads it
        _NAMESPACES[number] = ns
    return dict(_NAMESPACES[number])


def _cells(number, tag):
    return [c for c in _tutorial(number) if tag in _tags(c)]


def _grader(number, k, **context):
    """grade_exercise_k of tutorial `number`, defined in a fresh copy of its namespace (plus `context`)."""
    ns = _namespace(number)
    ns.update(context)
    tree = ast.parse(_cells(number, "check")[k - 1].source)
    _run([n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.Import, ast.ImportFrom))], ns)
    return ns[f"grade_exercise_{k}"], ns


def _solution(number, k, ns):
    """The definitions of exercise k's worked solution, made in `ns`."""
    tree = ast.parse(_cells(number, "solution")[k - 1].source)
    _run([n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))], ns)
    return ns


def _answer(source, ns):
    """A student's answer, written in the notebook's namespace (so it may read the notebook's globals)."""
    _run(ast.parse(textwrap.dedent(source)).body, ns)
    return ns


def _grades(number, k, name, solution_or_source, *args, **context):
    """Run grade_exercise_k on an answer (None: the worked solution); return it, raising what it raises."""
    grade, ns = _grader(number, k, **context)
    if solution_or_source is None:
        _solution(number, k, ns)
    else:
        _answer(solution_or_source, ns)
    return grade(ns[name], *args)


def _rejects(number, k, name, source, *args, **context):
    with pytest.raises(AssertionError):
        _grades(number, k, name, source, *args, **context)


# ---------------------------------------------------------------- tutorial 01

OBJECTIVE_WRONG = {
    "sign of the negatives": """
        def objective(X, positives, negatives, lam_pos, lam_neg, lam_r):
            s_pos = (X[positives[:, 0]] * X[positives[:, 1]]).sum(1)
            s_neg = (X[negatives[:, 0]] * X[negatives[:, 1]]).sum(1)
            pos = lam_pos * np.logaddexp(0, -s_pos).sum()
            neg = lam_neg * np.logaddexp(0, -s_neg).sum()          # log sigma(s), not log sigma(-s)
            reg = lam_r * (X ** 2).sum()
            return pos + neg + reg, (pos, neg, reg)
        """,
    "penalty not squared": """
        def objective(X, positives, negatives, lam_pos, lam_neg, lam_r):
            s_pos = (X[positives[:, 0]] * X[positives[:, 1]]).sum(1)
            s_neg = (X[negatives[:, 0]] * X[negatives[:, 1]]).sum(1)
            pos = lam_pos * np.logaddexp(0, -s_pos).sum()
            neg = lam_neg * np.logaddexp(0, s_neg).sum()
            reg = lam_r * np.linalg.norm(X)
            return pos + neg + reg, (pos, neg, reg)
        """,
    "means, not sums": """
        def objective(X, positives, negatives, lam_pos, lam_neg, lam_r):
            s_pos = (X[positives[:, 0]] * X[positives[:, 1]]).sum(1)
            s_neg = (X[negatives[:, 0]] * X[negatives[:, 1]]).sum(1)
            pos = lam_pos * np.logaddexp(0, -s_pos).mean()
            neg = lam_neg * np.logaddexp(0, s_neg).mean()
            reg = lam_r * (X ** 2).sum()
            return pos + neg + reg, (pos, neg, reg)
        """,
    "the history's numbers, whatever the data": """
        def objective(X, positives, negatives, lam_pos, lam_neg, lam_r):
            return last["objective"], (last["loss_pos"], last["loss_neg"], last["reg"])
        """,
    "naive log of the sigmoid": """
        def objective(X, positives, negatives, lam_pos, lam_neg, lam_r):
            sig = lambda z: 1 / (1 + np.exp(-z))
            s_pos = (X[positives[:, 0]] * X[positives[:, 1]]).sum(1)
            s_neg = (X[negatives[:, 0]] * X[negatives[:, 1]]).sum(1)
            pos = -lam_pos * np.log(sig(s_pos)).sum()
            neg = -lam_neg * np.log(sig(-s_neg)).sum()
            reg = lam_r * (X ** 2).sum()
            return pos + neg + reg, (pos, neg, reg)
        """,
}
LAST_RECORD = {"objective": 915.3, "loss_pos": 78.6, "loss_neg": 836.7, "reg": 0.0}


def test_01_exercise_1_solution_passes():
    _grades(1, 1, "objective", None)


@pytest.mark.parametrize("wrong", OBJECTIVE_WRONG, ids=list(OBJECTIVE_WRONG))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_01_exercise_1_rejects(wrong):
    _rejects(1, 1, "objective", OBJECTIVE_WRONG[wrong], last=LAST_RECORD)


@pytest.fixture(scope="module")
def full_and_split():
    graph = datasets.erdos_renyi_graph(60, 0.15, seed=1)
    return graph, lgekit.split_edges(graph, seed=0)


HEURISTIC_WRONG = {
    "the full graph, not the training graph": """
        def heuristic_scores(train_graph, pairs):
            A = graph.to_scipy().tocsr()
            A.data[:] = 1.0
            common = np.asarray(A[pairs[:, 0]].multiply(A[pairs[:, 1]]).sum(axis=1)).ravel()
            degree = np.asarray(A.sum(axis=1)).ravel()
            return common, degree[pairs[:, 0]] * degree[pairs[:, 1]]
        """,
    "weights multiplied, not neighbours counted": """
        def heuristic_scores(train_graph, pairs):
            A = train_graph.to_scipy().tocsr()
            A2 = (A @ A).toarray()
            degree = np.asarray((A > 0).sum(axis=1)).ravel()
            return A2[pairs[:, 0], pairs[:, 1]], degree[pairs[:, 0]] * degree[pairs[:, 1]]
        """,
    "degree sum": """
        def heuristic_scores(train_graph, pairs):
            A = train_graph.to_scipy().tocsr()
            A.data[:] = 1.0
            common = np.asarray(A[pairs[:, 0]].multiply(A[pairs[:, 1]]).sum(axis=1)).ravel()
            d = train_graph.degrees
            return common, d[pairs[:, 0]] + d[pairs[:, 1]]
        """,
}


def test_01_exercise_2_solution_passes(full_and_split):
    graph, split = full_and_split
    _grades(1, 2, "heuristic_scores", None, graph=graph, split=split)


@pytest.mark.parametrize("wrong", HEURISTIC_WRONG, ids=list(HEURISTIC_WRONG))
def test_01_exercise_2_rejects(wrong, full_and_split):
    graph, split = full_and_split
    _rejects(1, 2, "heuristic_scores", HEURISTIC_WRONG[wrong], graph=graph, split=split)


PA_WRONG = {
    "degree sum": """
        def preferential_attachment(degrees, pairs):
            return degrees[pairs[:, 0]] + degrees[pairs[:, 1]]
        """,
    "the notebook's graph's degrees, not the argument": """
        def preferential_attachment(degrees, pairs):
            d = graph.degrees
            return d[pairs[:, 0]] * d[pairs[:, 1]]
        """,
}


def test_01_exercise_3_solution_passes():
    _grades(1, 3, "preferential_attachment", None)


@pytest.mark.parametrize("wrong", PA_WRONG, ids=list(PA_WRONG))
def test_01_exercise_3_rejects(wrong, full_and_split):
    _rejects(1, 3, "preferential_attachment", PA_WRONG[wrong], graph=full_and_split[0])


# ---------------------------------------------------------------- tutorial 02

FITTED_WRONG = {
    "threshold on the score, not on sigma": """
        class FittedFraction(Callback):
            def __init__(self, positives, negatives):
                self.positives, self.negatives = positives, negatives

            def on_epoch_end(self, model, epoch, record):
                X = model.embedding_
                record["fitted_pos"] = float(np.mean(metrics.pair_scores(X, self.positives) > 0.05))
                record["fitted_neg"] = float(np.mean(metrics.pair_scores(X, self.negatives) < -0.05))
        """,
    "the two sides swapped": """
        class FittedFraction(Callback):
            def __init__(self, positives, negatives):
                self.positives, self.negatives = positives, negatives

            def on_epoch_end(self, model, epoch, record):
                sig = lambda z: 1 / (1 + np.exp(-z))
                X = model.embedding_
                record["fitted_pos"] = float(np.mean(sig(metrics.pair_scores(X, self.positives)) < 0.05))
                record["fitted_neg"] = float(np.mean(sig(-metrics.pair_scores(X, self.negatives)) < 0.05))
        """,
    "counts, not fractions": """
        class FittedFraction(Callback):
            def __init__(self, positives, negatives):
                self.positives, self.negatives = positives, negatives

            def on_epoch_end(self, model, epoch, record):
                X = model.embedding_
                record["fitted_pos"] = int(np.sum(metrics.pair_scores(X, self.positives) > np.log(19)))
                record["fitted_neg"] = int(np.sum(metrics.pair_scores(X, self.negatives) < -np.log(19)))
        """,
    "the notebook's split, not the callback's pairs": """
        class FittedFraction(Callback):
            def __init__(self, positives, negatives):
                self.positives, self.negatives = positives, negatives

            def on_epoch_end(self, model, epoch, record):
                X = model.embedding_
                record["fitted_pos"] = float(np.mean(metrics.pair_scores(X, split.train_positives) > np.log(19)))
                record["fitted_neg"] = float(np.mean(metrics.pair_scores(X, split.train_negatives) < -np.log(19)))
        """,
}


def test_02_exercise_1_solution_passes():
    _grades(2, 1, "FittedFraction", None)


@pytest.mark.parametrize("wrong", FITTED_WRONG, ids=list(FITTED_WRONG))
def test_02_exercise_1_rejects(wrong):
    split = lgekit.split_edges(datasets.erdos_renyi_graph(30, 0.3, seed=2), seed=0)
    _rejects(2, 1, "FittedFraction", FITTED_WRONG[wrong], split=split)


GROWTH_WRONG = {
    "log c returned for c": """
        def fit_growth_laws(t, norm):
            b, a = np.polyfit(np.log(t), norm, 1)
            p, logc = np.polyfit(np.log(t), np.log(norm), 1)
            rms_log = np.sqrt(np.mean((norm - a - b * np.log(t)) ** 2))
            rms_pow = np.sqrt(np.mean((norm - np.exp(logc) * t ** p) ** 2))
            return {"log": (a, b, rms_log), "power": (logc, p, rms_pow)}
        """,
    "RMS of the power law in log units": """
        def fit_growth_laws(t, norm):
            b, a = np.polyfit(np.log(t), norm, 1)
            p, logc = np.polyfit(np.log(t), np.log(norm), 1)
            rms_log = np.sqrt(np.mean((norm - a - b * np.log(t)) ** 2))
            rms_pow = np.sqrt(np.mean((np.log(norm) - logc - p * np.log(t)) ** 2))
            return {"log": (a, b, rms_log), "power": (np.exp(logc), p, rms_pow)}
        """,
    "the power law fitted on t, not log t": """
        def fit_growth_laws(t, norm):
            b, a = np.polyfit(np.log(t), norm, 1)
            p, logc = np.polyfit(t, np.log(norm), 1)
            rms_log = np.sqrt(np.mean((norm - a - b * np.log(t)) ** 2))
            rms_pow = np.sqrt(np.mean((norm - np.exp(logc) * t ** p) ** 2))
            return {"log": (a, b, rms_log), "power": (np.exp(logc), p, rms_pow)}
        """,
}


def test_02_exercise_2_solution_passes():
    _grades(2, 2, "fit_growth_laws", None)


@pytest.mark.parametrize("wrong", GROWTH_WRONG, ids=list(GROWTH_WRONG))
def test_02_exercise_2_rejects(wrong):
    _rejects(2, 2, "fit_growth_laws", GROWTH_WRONG[wrong])


AP_AT_NORM_WRONG = {
    "no interpolation: the first epoch at or above the target": """
        def ap_at_norm(model, target):
            _, norm = series(model, "mean_norm")
            _, ap = series(model, "test_ap")
            above = np.nonzero(norm >= target)[0]
            if len(above) == 0 or target < norm[0]:
                return float("nan")
            return float(ap[above[0]])
        """,
    "np.interp over the whole run, no nan below the first record": """
        def ap_at_norm(model, target):
            _, norm = series(model, "mean_norm")
            _, ap = series(model, "test_ap")
            if target > norm.max():
                return float("nan")
            order = np.argsort(norm)
            return float(np.interp(target, norm[order], ap[order]))
        """,
    "the last crossing, not the first": """
        def ap_at_norm(model, target):
            _, norm = series(model, "mean_norm")
            _, ap = series(model, "test_ap")
            above = np.nonzero(norm >= target)[0]
            if len(above) == 0 or target < norm[0]:
                return float("nan")
            k = above[-1]
            return float(np.interp(target, norm[k - 1:k + 1], ap[k - 1:k + 1]))
        """,
}


def test_02_exercise_3_solution_passes():
    _grades(2, 3, "ap_at_norm", None)


@pytest.mark.parametrize("wrong", AP_AT_NORM_WRONG, ids=list(AP_AT_NORM_WRONG))
def test_02_exercise_3_rejects(wrong):
    _rejects(2, 3, "ap_at_norm", AP_AT_NORM_WRONG[wrong])
