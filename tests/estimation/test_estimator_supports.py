"""Estimators declare what they fit (``supports``), ERGM.fit reads it, and
MCMC-MLE itself picks its missing-data form from the model (issue #31)."""
import re
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation import Estimator, methods, register, supports
from ergmfit.estimation.registry import _ESTIMATORS
from ergmfit.exceptions import FormulaError, SettingsError

FEATURES = {"curved", "constraints", "missing", "target_stats", "missing+target_stats", "families"}
#: declared by the estimators that have it, absent (False) elsewhere: fitting a model whose
#: MLE lies on a face of the hull, with +/-Inf estimates (#36; ERGM.fit asks for it), and
#: drawing the chains through the parallel-tempered sampler (#36, fit(tempering=...))
OPTIONAL_FEATURES = {"infinite_estimates", "tempering"}


@pytest.mark.parametrize("method", methods())
def test_every_estimator_declares_what_it_supports(method):
    s = supports(method)
    assert FEATURES <= set(s) <= FEATURES | OPTIONAL_FEATURES
    assert "binary" in s["families"]


class _Plain(Estimator):
    """A test estimator that supports nothing beyond linear binary models."""
    method = "plain-test"

    def fit(self, model):  # pragma: no cover - refused before it runs
        raise AssertionError("should have been refused")


@pytest.fixture
def plain():
    register("plain-test", _Plain)
    yield
    _ESTIMATORS.pop("plain-test", None)


@pytest.mark.parametrize("make, error, text", [
    (lambda g: ef.ERGM(g, "edges", constraints="~ edges"), FormulaError, "under constraints"),
    (lambda g: ef.ERGM(g, "edges", missing=[tuple(list(g.nodes)[:2])]), FormulaError,
     "with missing dyads"),
    (lambda g: ef.ERGM(g, "edges + gwesp"), SettingsError, "does not fit curved terms"),
])
def test_the_model_refuses_what_an_estimator_does_not_declare(plain, make, error, text):
    m = make(ef.datasets.load("flomarriage"))
    with pytest.raises(error, match=text):
        m.fit(method="plain-test")


def test_tempering_refused_unless_declared(plain):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    with pytest.raises(SettingsError, match="parallel-tempered sampler.*'mcmle'"):
        m.fit(method="plain-test", tempering=True)
    with pytest.raises(SettingsError, match="parallel-tempered"):
        m.fit(method="cd", tempering={"n_temps": 3})


def test_target_stats_refused_unless_declared(plain):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    with pytest.raises(FormulaError, match="target_stats is implemented for"):
        m.fit(method="plain-test", target_stats=[20])


@pytest.mark.parametrize("feature, make, kwargs", [
    ("constraints", lambda g: ef.ERGM(g, "edges", constraints="~ edges"), {}),
    ("missing", lambda g: ef.ERGM(g, "edges", missing=[tuple(list(g.nodes)[:2])]), {}),
    ("target_stats", lambda g: ef.ERGM(g, "edges"), {"target_stats": [20]}),
])
def test_refusals_name_exactly_the_methods_that_declare_the_feature(plain, feature, make,
                                                                      kwargs):
    # the advice is read off the declarations: a newly declared method appears in it, and a
    # method that does not declare the feature (here the test estimator itself) never does
    m = make(ef.datasets.load("flomarriage"))
    with pytest.raises(FormulaError) as err:
        m.fit(method="plain-test", **kwargs)
    text = str(err.value).split("implemented", 1)[1]
    named = set(re.findall(r"'([a-z+-]+)'", text)) - {"plain-test"}
    declared = {m for m in methods() if supports(m).get(feature)
                and "binary" in supports(m)["families"]}
    assert named == declared


def test_mcmle_estimator_fits_missing_dyads_itself():
    from ergmfit.estimation import MCMLE
    g = ef.datasets.load("flomarriage")
    m = ef.ERGM(g, "edges + triangle", missing=[tuple(list(g.nodes)[:2])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = MCMLE(random_state=3, maxit=3, eval_loglik=False).fit(m)
        through = m.fit(method="mcmle", random_state=3, maxit=3, eval_loglik=False)
    assert "missing_data" in direct.info
    np.testing.assert_array_equal(np.asarray(direct.params), np.asarray(through.params))


def test_missing_only_setting_refused_without_missing_dyads():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with pytest.raises(SettingsError, match="obs_interval"):
        m.fit(method="mcmle", obs_interval=8)
