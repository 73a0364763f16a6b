"""MCMC-MLE of a model whose every coefficient is an offset (#38 item 7): nothing to
estimate.  Called directly (the front door ``ERGM.fit`` answers before any estimator
runs), the estimator used to divide by zero in its step length; now it returns the fit
with no free coefficient, as statnet ("No optimization is performed"), and the
log-likelihood at the offsets by bridge sampling."""
import copy
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.mcmle.estimator import MCMLE
from ergmfit.estimation.mcmle.missing import MissingDataMCMLE
from ergmfit.terms.offsets import OffsetParameterisation
from support.memory import traced_peak


def _offsets_only(formula, coef, **kw):
    """The model with its offsets fixed and no free coefficient (what ERGM.fit hands an
    estimator)."""
    m = ef.ERGM(ef.datasets.load("flomarriage"), formula, **kw).configured(offset_coef=coef)
    free = copy.copy(m)
    free.parameterisation = OffsetParameterisation(m.parameterisation, m.offset, m.offset_coef)
    free.labels, free.offset = [], np.zeros(0, dtype=bool)
    return free


def test_dyad_independent_offsets_give_the_exact_loglik():
    # edges alone at its MLE: the bridge from the dyad-independent submodel is exact
    p = 20 / 120
    model = _offsets_only("offset(edges)", [np.log(p / (1 - p))])
    with pytest.warns(UserWarning, match="nothing to estimate"):
        fit = MCMLE(random_state=1, samplesize=64).fit(model)
    assert fit.converged and fit.n_iter == 0 and fit.info["nothing_estimated"]
    assert len(np.asarray(fit.params)) == 0
    exact = 20 * np.log(p) + 100 * np.log(1 - p)
    assert fit.loglik == pytest.approx(exact, abs=1e-9)


@pytest.mark.parametrize("missing", [False, True])
def test_dependent_offsets_give_a_bridged_loglik(missing):
    nodes = list(ef.datasets.load("flomarriage").nodes)
    kw = {"missing": [(nodes[0], nodes[1])]} if missing else {}
    model = _offsets_only("offset(edges) + offset(triangle)", [-1.6, 0.1], **kw)
    est = MissingDataMCMLE if missing else MCMLE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = est(random_state=1, samplesize=256).fit(model)
    assert fit.info["nothing_estimated"] and np.isfinite(fit.loglik)
    # near the edges-only log-likelihood (triangle 0.1 changes little): -54.07
    assert abs(fit.loglik + 54.07) < 1.0


def test_pair_independent_offsets_give_the_exact_loglik_without_bridging():
    # edges + mutual is independent across dyad pairs: its log-likelihood is exact
    # (ERGM.exact_loglik), where the bridge was a Monte Carlo estimate of it
    m = ef.ERGM(ef.datasets.load("samplike"), "offset(edges) + offset(mutual)").configured(
        offset_coef=[-1.5, 2.0])
    free = copy.copy(m)
    free.parameterisation = OffsetParameterisation(m.parameterisation, m.offset, m.offset_coef)
    free.labels, free.offset = [], np.zeros(0, dtype=bool)
    with pytest.warns(UserWarning, match="nothing to estimate"):
        fit = MCMLE(random_state=1, samplesize=64).fit(free)
    assert fit.loglik == pytest.approx(free.exact_loglik(np.zeros(0)), abs=1e-9)
    assert fit.loglik_kind == "exact" and fit.info["loglik_mcse"] == 0.0


def test_offsets_only_loglik_with_missing_dyads_never_lists_every_dyad():
    # every dyad but the missing ones, never listed: 8,500 nodes traced 1,950 MB and 6.9 CPU s
    # before, 46 MB and 1.2 s; the loglik of edges at a fixed coefficient is exact
    from ergmfit.estimation.mcmle.loglik import _offsets_only_loglik
    n, theta = 8500, -7.5
    rng = np.random.default_rng(5)
    ties = np.unique(rng.integers(0, n, size=(30_000, 2)), axis=0)
    net = ef.Network(n, ties[ties[:, 0] != ties[:, 1]], True)
    miss = rng.integers(0, n, size=(500, 2))
    m = ef.ERGM(net, "offset(edges)", missing=miss[miss[:, 0] != miss[:, 1]]).configured(
        offset_coef=[theta])
    m.compiled()
    ll, peak = traced_peak(lambda: _offsets_only_loglik(m))
    D, L = n * (n - 1) - m.sample_space.n_missing, m.network.n_ties
    assert ll == pytest.approx(L * theta - D * np.log1p(np.exp(theta)), rel=1e-12)
    assert peak < 100 * 2 ** 20, f"peak {peak / 2**20:.0f} MB"
