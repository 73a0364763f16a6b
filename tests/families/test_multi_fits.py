"""Fits of N() and L() models against ergm.multi 0.1.2 (tests/reference/statnet_multi.json):
the MPLE is deterministic and equals statnet's (coefficients, s.e., log-likelihood); the
MCMC-MLE, averaged over seeds, lies within 0.1 statnet s.e. of statnet's seed average with
s.e. within 15 % (slow).

``N(~edges + mutual, lm=~wave)`` on Sampson's waves is a dyad-independent model of the
dyads' four states, so its MLE is exact (:func:`_exact_dyad_mle`): ergmfit's MCMC-MLE is
compared with it, and statnet's two MCMC-MLEs are themselves up to 0.11 s.e. from it
(N(1)~mutual 2.179 and 2.122 against 2.077): its seed average is no 0.1-s.e. reference.
"""
import numpy as np
import pytest
from scipy.optimize import minimize

import ergmfit as ef
from conftest import load_reference
from support.multi_networks import DATASETS

CASES = load_reference("statnet_multi.json")["cases"]
FITS = [c for c in CASES if c["kind"] == "fit"]
MPLES = [c for c in FITS if c["estimate"] == "MPLE"]
MODELS = sorted({c["model"] for c in FITS})


def _model(case):
    return ef.ERGM(DATASETS[case["dataset"]](), case["formula"].split("~", 1)[1].strip())


@pytest.mark.parametrize("case", MPLES, ids=[c["id"] for c in MPLES])
def test_mple_equals_ergm_multi(case):
    m = _model(case)
    fit = m.fit(method="mple")
    labels = case["coef_names"]
    assert m.labels == labels
    se = np.array([case["se"][k] for k in labels])
    np.testing.assert_allclose(np.asarray(fit.params, float),
                               [case["coef"][k] for k in labels], atol=1e-4 * se.min())
    np.testing.assert_allclose(np.asarray(fit.bse, float), se, rtol=1e-3)
    assert fit.loglik == pytest.approx(case["loglik"], abs=1e-6)
    assert m.sample_space.n_free == case["null_df"]


def _exact_dyad_mle():
    """The MLE of N(~edges + mutual, lm=~wave) on samplk1..3 (wave 1, 2, 3): each dyad is
    null, one of two asymmetric states (weight e^te) or mutual (e^(2 te + tm)) on its own."""
    stats = [ef.ERGM(ef.datasets.load(f"samplk{k}"), "edges + mutual").statistics()
             for k in (1, 2, 3)]
    dyads = 18 * 17 / 2

    def nll(p):
        out = 0.0
        for wave, s in zip((1, 2, 3), stats):
            te, tm = p[0] + p[1] * wave, p[2] + p[3] * wave
            out -= s["edges"] * te + s["mutual"] * tm - dyads * np.log(
                1 + 2 * np.exp(te) + np.exp(2 * te + tm))
        return out
    return minimize(nll, [-2.0, 0.0, 2.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_mcmle_within_a_tenth_of_a_standard_error(model):
    cases = [c for c in FITS if c["model"] == model and c["estimate"] == "MLE"]
    labels = cases[0]["coef_names"]
    ref = np.mean([[c["coef"][k] for k in labels] for c in cases], axis=0)
    ref_se = np.mean([[c["se"][k] for k in labels] for c in cases], axis=0)
    if model == "m.fit.samplk3w_lm_wave":
        ref = _exact_dyad_mle()
    m = _model(cases[0])
    fits = [m.fit(method="mcmle", random_state=seed) for seed in (1, 2, 3, 4)]
    est = np.mean([np.asarray(f.params, float) for f in fits], axis=0)
    se = np.mean([np.asarray(f.bse, float) for f in fits], axis=0)
    assert np.all(np.abs(est - ref) <= 0.1 * ref_se), (est - ref) / ref_se
    assert np.all(np.abs(se / ref_se - 1) <= 0.15), se / ref_se


def test_exact_reference_of_the_wave_model_is_the_mple_neighbourhood():
    # the exact MLE of the dyad-independent wave model, against which the MCMC-MLE is
    # checked, lies within 0.01 s.e. of the (different) MPLE, and statnet's MCMC-MLEs
    # scatter around it by up to 0.11 s.e.
    case = [c for c in MPLES if c["model"] == "m.fit.samplk3w_lm_wave"][0]
    labels = case["coef_names"]
    mle = _exact_dyad_mle()
    se = np.array([case["se"][k] for k in labels])
    assert np.all(np.abs(mle - [case["coef"][k] for k in labels]) < 0.01 * se)
    m = _model(case)
    # the score of the exact MLE: expected statistics equal observed ones (no MCMC)
    from ergmfit.terms.multinet import design_matrix
    X, _ = design_matrix(m.network, "wave")
    te, tm = X @ mle[[0, 1]], X @ mle[[2, 3]]
    z = 1 + 2 * np.exp(te) + np.exp(2 * te + tm)
    edges = 153 * (2 * np.exp(te) + 2 * np.exp(2 * te + tm)) / z
    mutual = 153 * np.exp(2 * te + tm) / z
    expected = np.concatenate([X.T @ edges, X.T @ mutual])
    np.testing.assert_allclose(expected, list(m.statistics().values()), atol=1e-6)


def test_an_ensemble_of_small_networks_starts_with_a_pilot_sample():
    # Sampson's three waves (918 dyads) have 441-467 effective draws of the slowest
    # statistic at the default interval 1024: the first sample is a pilot at the smallest
    # interval (256), kept when it has the target effective size (it has, here).  Layers
    # share their nodes and a NetSeries' transitions set their own first interval: no pilot.
    m = _model([c for c in MPLES if c["model"] == "m.fit.samplk3w_lm_wave"][0])
    assert m.pilot_first_sample
    assert not ef.ERGM(DATASETS["lazega2l"](), "L(~edges, ~advice)").pilot_first_sample
    series = ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])
    assert not ef.ERGM(series, "Form(~edges) + Persist(~edges)").pilot_first_sample
    for seed in (1, 2):
        # force_main: the model's exact MLE (over node pairs) would run no chain at all
        first = m.fit(method="mcmle", random_state=seed, eval_loglik=False,
                      force_main=True).info["history"][0]
        assert first["interval"] == 256 and first["ess"] >= 64 and first["min_ess"] >= 32
