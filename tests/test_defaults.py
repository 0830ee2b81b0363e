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
    """``--preset paper`` is what ``lgekit reproduce`` trains (before its λr grid)."""
    from lgekit.experiments.specs import sgd_lr_offset

    paper = _parameters.PRESETS["paper"]["params"]
    assert paper["logistic"]["lr_offset"] == sgd_lr_offset() and paper["logistic"]["lam_r"] == 0.0
    for model, cls in (("logistic", LogisticEmbedding), ("hinge", HingeEmbedding)):
        # every preset value is one the estimator's parameter table accepts
        validate_params({k: cls._parameter_constraints[k] for k in paper[model]}, paper[model])
