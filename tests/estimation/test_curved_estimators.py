"""EE, BCD and MCLE on curved models (issue #17): each goes through the map
θ -> η(θ) (sampling / composite likelihood in the canonical statistics,
steps and information in θ through the Jacobian).

Reference: statnet's MCMC-MLE of the Lazega curved model, mean of 3 runs,
edges -7.35 (s.e. 0.78), gwesp 0.90 (0.30), gwesp.decay 0.785 (0.22).

Tolerances:
* EE estimates the MLE (its last step is an MCMC-MLE step through the map):
  within 0.5 statnet s.e. (a shortened run, 40 outer iterations; the default
  run of 200 lands within 0.1 s.e., see the commit message).
* MCLE and BCD maximise composite likelihoods, whose maxima are MPLE-like:
  on this model the curved MPLE is 0.33, 0.79 and 0.83 s.e. from the MLE for
  edges, gwesp and the decay, so they are held to 1 s.e. of statnet's MLE
  (what they are *exactly* checked against is the curved MPLE: order-1 MCLE
  is the pseudo-likelihood, and B1-CD1 is stochastic MPLE).
"""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.terms.parameterisation import Curved

LAZEGA = ("edges + gwesp + nodecov('seniority') + nodecov('practice') + "
          "nodematch('practice') + nodematch('gender') + nodematch('office')")
STATNET = {"edges": (-7.35, 0.78), "gwesp": (0.90, 0.30), "gwesp.decay": (0.785, 0.22)}


@pytest.fixture(scope="module")
def lazega():
    return ef.ERGM("lazega", LAZEGA)


@pytest.fixture(scope="module")
def lazega_mple(lazega):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lazega.fit(method="mple")


def _within(fit, k):
    for lab, (est, se) in STATNET.items():
        got = fit.params[fit.labels.index(lab)]
        assert abs(got - est) < k * se, (lab, got, est, se)


def test_ee_curved_lazega_near_statnet(lazega):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = lazega.fit(method="ee", random_state=1, ee_steps=40, se_samplesize=400)
    assert fit.labels[:3] == ["edges", "gwesp", "gwesp.decay"]
    _within(fit, 0.5)
    # standard errors from J'CJ at the estimate: statnet's within 25%
    for lab, (_, se) in STATNET.items():
        assert 0.75 * se < fit.bse[fit.labels.index(lab)] < 1.25 * se
    assert not fit.info["polish"][0]["skipped"]
    assert fit.params[2] >= 0.0


def test_ee_density_position_when_a_curved_term_precedes_edges():
    from ergmfit.estimation.ee.estimator import EE
    m = ef.ERGM("lazega", "gwesp + edges")
    cfg = EE().resolved_settings(m)
    assert cfg["dens"] == len(m.terms[0].labels)        # after the ESP counts
    assert cfg["dens_theta"] == 2                         # after gwesp, gwesp.decay
    assert m.labels[cfg["dens_theta"]] == "edges"


def test_ee_curved_term_before_edges_gives_the_same_fit():
    """IFD's density parameter sits at θ[2] but statistic 30 in 'gwesp + edges'
    (after the ESP counts): the fit is that of 'edges + gwesp', reordered."""
    fits = []
    for formula in ("edges + gwesp + nodematch('practice')",
                    "gwesp + edges + nodematch('practice')"):
        m = ef.ERGM("lazega", formula)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = m.fit(method="ee", random_state=1, ee_steps=8, se="none", polish=False)
        fits.append(dict(zip(f.labels, f.params)))
    for lab, v in fits[0].items():
        assert abs(fits[1][lab] - v) < 1e-8, (lab, v, fits[1][lab])
    assert -6 < fits[0]["edges"] < -2


def _one_outer_both_ways(update, atol):
    """One outer iteration of the linear update (compiled) and of the curved
    one on the identity written as a Curved map, same sampler seed: equal."""
    from ergmfit.estimation.ee._ee import ee_iterations
    from ergmfit.estimation.ee.chain import _CurvedEE, _inverse_cov
    from ergmfit.sampling._mh import MHSampler
    from ergmfit.sampling._proposals import TieNoTie
    m = ef.ERGM("samplike", "edges + mutual + nodematch('group')")
    ce = _CurvedEE(Curved(m.terms), None, None)
    theta0 = np.array([-1.5, 2.0, 1.0])
    S = m.simulate(theta0, n=200, output="stats", random_state=3)
    inner, rate = 30, 0.01
    cfg = {"min_theta": 0.01, "aca_ee": 1e-9}
    rows = []
    for curved in (False, True):
        sampler = MHSampler(m.compiled(), TieNoTie(), np.array([1, 2, 3, 4], dtype=np.uint64))
        th, dzA = theta0.copy(), np.zeros(3)
        out = (np.zeros((inner, 3)), np.zeros((inner, 3)), np.zeros(inner), np.zeros(inner))
        if curved and update == "newton":
            ce.outer(sampler, th, dzA, inner, 100, rate, ce.cov(S, False), False, 0.0, cfg, *out)
        elif curved:
            ce.outer_borisenko(sampler, th, dzA, inner, 100, rate, False, 0.0, cfg, *out)
        else:
            P = _inverse_cov(S, np.ones(3, dtype=bool)) if update == "newton" else None
            ee_iterations(sampler, th, dzA, inner, 100, 2 if P is not None else 0, rate, 0.01,
                          1e-9, np.ones(3), -1, 0.0, *out, P)
        rows.append((out[0], out[1], dzA))
    for a, b in zip(rows[0], rows[1]):
        np.testing.assert_allclose(b, a, rtol=0, atol=atol)
    assert np.ptp(rows[0][0], axis=0).max() > 0.01          # θ did move


def test_ee_curved_update_equals_linear_on_a_linear_map():
    """θ ← θ − a (J'CJ)⁻¹ J' dzA with J = I is the linear "newton" update."""
    _one_outer_both_ways("newton", 1e-9)


def test_ee_curved_borisenko_equals_linear_on_a_linear_map():
    """θ_k ← θ_k − a max(|θ_k|, c) sign((J'dzA)_k) with J = I is Borisenko's update."""
    _one_outer_both_ways("borisenko", 1e-12)


def test_mcle_curved_order1_is_the_curved_mple(lazega, lazega_mple):
    fit = lazega.fit(method="mcle", block_size=1, cov="none")
    assert fit.converged
    np.testing.assert_allclose(fit.params, lazega_mple.params, rtol=0, atol=1e-5)


def test_mcle_curved_lazega(lazega):
    fit = lazega.fit(method="mcle", blocks="uniform", n_blocks=3000, random_state=1, n_sim=60,
                     burnin=4096, interval=512)
    assert fit.converged
    _within(fit, 1.0)
    assert np.all(np.isfinite(fit.bse)) and fit.bse.shape == (8,)
    # the score at the estimate is in θ (8 values) and 0 there
    assert len(fit.info["score_at_estimate"]) == 8
    assert np.max(np.abs(fit.info["score_at_estimate"])) < 1e-3


def test_mcle_curved_path_on_a_linear_map_equals_linear():
    m = ef.ERGM("samplike", "edges + mutual + nodematch('group')")
    init = [-1.0, 1.0, 0.5]
    lin = m.fit(method="mcle", block_size=2, cov="none", init=init).params
    m.parameterisation = Curved(m.terms)                  # the identity, as a Curved map
    assert m.curved
    cur = m.fit(method="mcle", block_size=2, cov="none", init=init).params
    np.testing.assert_allclose(cur, lin, rtol=0, atol=1e-6)


def test_bcd_curved_lazega(lazega, lazega_mple):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = lazega.fit(method="bcd", block_size=1, random_state=1, average=0.5)
    _within(fit, 1.0)
    # B1-CD1 is stochastic MPLE: within 0.25 (MPLE) s.e. of the curved MPLE (seed 1: 0.14)
    d = np.abs(fit.params - lazega_mple.params) / lazega_mple.bse
    assert d.max() < 0.25, d
    assert fit.params[2] >= 0.0


def test_bcd_curved_chunk_on_a_linear_map_equals_bcd_loop():
    from ergmfit.estimation.contrastive.bcd import _curved_chunk
    from ergmfit.estimation.contrastive.mcle import make_chooser
    from ergmfit.sampling._blocks import Enumeration, bcd_loop
    m = ef.ERGM("samplike", "edges + mutual + nodematch('group')")
    par = Curved(m.terms)
    bm = m.compiled()
    chooser = make_chooser(bm, "uniform", 3)
    rates = np.full(50, 0.01)
    P = np.diag([1.0, 0.5, 2.0])
    theta = np.array([-1.0, 1.0, 0.5])
    seed = np.array([5, 6, 7, 8], dtype=np.uint64)
    a = bcd_loop(bm, chooser, Enumeration(3), theta, rates, 1, 1, False, P, 1, 10, 1e6, seed)
    b = _curved_chunk(bm, chooser, Enumeration(3), theta, rates, 1, 1, False, P, 1, 10, 1e6,
                      seed, par)
    for k in ("theta", "trace", "average", "grad_mean"):
        np.testing.assert_allclose(b[k], a[k], rtol=0, atol=1e-12)
    assert np.abs(a["theta"] - theta).max() > 1e-3
