"""Robbins-Monro stochastic approximation (method="sa") against exact and MCMC-MLE fits."""
import math
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation import make_estimator
from ergmfit.exceptions import SettingsError


def _quiet(model, **settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="sa", **settings)


def test_edges_only_model_reaches_the_exact_mle():
    # the MLE of edges alone is logit(density): 20 ties among 120 dyads
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    exact = math.log(20 / 100)
    est = [float(_quiet(m, random_state=s).params["edges"]) for s in (1, 2, 3)]
    assert abs(np.mean(est) - exact) < 0.05, (est, exact)       # s.e. of the MLE: 0.24
    assert all(abs(e - exact) < 0.12 for e in est), est


@pytest.mark.slow
def test_seeds_averaged_within_a_tenth_of_a_standard_error_of_mcmc_mle():
    m = ef.ERGM(ef.datasets.load("samplike"), "edges + mutual + gwesp(0.5, fixed=TRUE)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = m.fit(method="mcmle", random_state=1)
    fits = [_quiet(m, random_state=s) for s in (1, 2, 3, 4)]
    est = np.mean([np.asarray(f.params) for f in fits], axis=0)
    z = (est - np.asarray(ref.params)) / np.asarray(ref.bse)
    assert np.all(np.abs(z) < 0.15), z
    for f in fits:
        ratio = np.asarray(f.bse) / np.asarray(ref.bse)
        assert np.all((ratio > 0.85) & (ratio < 1.15)), ratio
        assert set(f.info["t_ratios"]) == set(m.labels)


def test_same_seed_same_estimate_and_settings_checked():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    a, b = _quiet(m, random_state=7), _quiet(m, random_state=7)
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
    assert a.method == "sa" and a.info["start"] == "MPLE"
    with pytest.raises(SettingsError, match="gain"):
        make_estimator("sa", gain=2.0)


def test_curved_models_and_missing_dyads_are_refused_by_name():
    g = ef.datasets.load("flomarriage")
    with pytest.raises(Exception, match="sa"):
        ef.ERGM(g, "edges + gwesp(fixed=FALSE)").fit(method="sa", random_state=1)
    nodes = list(g.nodes)
    with pytest.raises(Exception, match="missing"):
        ef.ERGM(g, "edges", missing=[(nodes[0], nodes[1])]).fit(method="sa", random_state=1)


def test_offset_terms_are_held_and_the_free_coefficient_reaches_the_exact_mle():
    # dyad-independent: the MPLE with the offset is the exact MLE of the free coefficient
    # (SA had passed the free θ alone to the sampler: "theta must have 2 values")
    m = ef.ERGM(ef.datasets.load("flomarriage"), "offset(edges) + nodecov('wealth')")
    exact = m.fit(method="mple", offset_coef=[-2.5])
    fits = [_quiet(m, offset_coef=[-2.5], random_state=s) for s in (1, 2)]
    for f in fits:
        assert list(f.labels) == list(m.labels)
        assert float(np.asarray(f.params)[0]) == -2.5 and float(np.asarray(f.bse)[0]) == 0.0
        assert list(f.info["t_ratios"]) == ["nodecov.wealth"]
    est = np.mean([float(np.asarray(f.params)[1]) for f in fits])
    se = float(np.asarray(exact.bse)[1])
    assert abs(est - float(np.asarray(exact.params)[1])) < 0.2 * se, (est, exact.params, se)
