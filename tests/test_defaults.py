"""The estimators' defaults are written once (lgekit/_parameters.py) and regularise (issue 27, item 4)."""
import inspect

import pytest

from lgekit import HingeEmbedding, LogisticEmbedding, _parameters
from lgekit._validation import validate_params
from lgekit.models.transductive import NodeEmbedding


@pytest.mark.parametrize("cls", [LogisticEmbedding, HingeEmbedding])
def test_the_signature_defaults_are_the_tables(cls):
    """``lgekit fit --help`` shows DEFAULTS without importing the estimators: they must not drift apart."""
    signature = {name: p.default for name, p in inspect.signature(cls).parameters.items()}
    assert signature == _parameters.DEFAULTS[cls.__name__]
    assert set(_parameters.DEFAULTS[cls.__name__]) == set(cls._parameter_constraints)


def test_the_default_logistic_model_is_regularised():
    """lam_r = 0 overfits (the paper's Figure 3); benchmarks/README.md has the grid the default comes from."""
    assert LogisticEmbedding().lam_r == pytest.approx(0.3)
    assert NodeEmbedding().get_params()["model"] is None      # None: LogisticEmbedding() with these defaults


def test_the_paper_preset_is_the_harness_setting():
    """``--preset paper`` is what ``lgekit reproduce`` trains (its fixed parameters, before its lambda_r grid)."""
    from lgekit.experiments.spec import DCD_FIXED, SGD_FIXED

    paper = _parameters.PRESETS["paper"]["params"]
    for model, harness in (("logistic", SGD_FIXED), ("hinge", DCD_FIXED)):
        fixed = {k: v for k, v in harness.items() if k != "n_threads"}     # the command's --threads
        assert {k: v for k, v in paper[model].items() if k in fixed} == fixed
    assert paper["logistic"]["lam_r"] == 0.0      # the unregularised end of Figures 1-3
    # hinge cannot be unregularised (DCD's dual box [0, lam / lam_r]): its preset is Figure 6's lam_r = 3, and the
    # description says so rather than calling both settings unregularised (issue 35 item 7)
    description = _parameters.PRESETS["paper"]["description"]
    assert paper["hinge"]["lam_r"] == 3.0 and "for hinge, DCD at lam_r = 3" in description
    assert "for logistic, SGD unregularised, lam_r = 0" in description
    for model, cls in (("logistic", LogisticEmbedding), ("hinge", HingeEmbedding)):
        # every preset value is one the estimator's parameter table accepts
        validate_params({k: cls._parameter_constraints[k] for k in paper[model]}, paper[model])
