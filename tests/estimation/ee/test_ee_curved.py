"""EE on curved models: parameter values as init, standard errors that belong to the
estimate reported after the final MCMC-MLE step, CD from a start with a curved weight at 0;
and a curved model whose likelihood given the tie count has no finite maximum in the decay
(samplike ``edges + mutual + gwesp(fixed=FALSE)``): IFD's decay runs off, EE is redone with
tie/no-tie proposals (ee.start.refit_unconditional)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.ee.start import mple_start
from ergmfit.estimation.mcmle.start import initial_estimate
from ergmfit.exceptions import SettingsError
from ergmfit.sampling.chains import run_chains

CURVED = "edges + gwesp(fixed=FALSE) + nodematch('practice')"


def _ee(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="ee", verbose=False, **kw)


def test_init_values_of_a_curved_model():
    # an array of the curved parameters' length used to raise a bare ValueError
    # (an array compared with "S"); now it is the start, as a list is
    m = ef.ERGM("lazega", CURVED)
    start = np.array([-4.0, 1.0, 0.8, 0.5])
    fit = _ee(m, init=start, random_state=1, ee_steps=20, polish=False)
    assert fit.info["settings"]["init"] == "user"
    assert fit.info["settings"]["init_theta"] == start.tolist()
    for bad in (np.array([-4.0, 1.0, 0.5]), np.zeros(len(m.stat_labels))):
        with pytest.raises(SettingsError, match="init must have 4 value\\(s\\), one per "
                                                "parameter .* got %d" % bad.size):
            _ee(m, init=bad, random_state=1, ee_steps=20)


def test_init_values_of_a_curved_model_with_missing_dyads():
    g = ef.datasets.load("lazega")
    v = list(g.nodes)
    m = ef.ERGM(g, CURVED, missing=[(v[0], v[1]), (v[2], v[5]), (v[7], v[9])])
    assert m.sample_space.n_missing == 3
    fit = _ee(m, init=np.array([-4.0, 1.0, 0.8, 0.5]), random_state=1, ee_steps=20,
              polish=False)
    assert fit.info["settings"]["init"] == "user"


@pytest.mark.slow
def test_standard_errors_belong_to_the_estimate_after_the_final_step():
    # seed 3: the final MCMC-MLE step moves the decay from EE's 0.91 to 0.69; the
    # s.e. were those of the sample at EE's estimate (nodematch 0.31, gwesp.decay
    # 0.24).  Now they come from a simulation at the estimate reported: within
    # 15 % of a long chain's there (0.46, 0.35, 0.16, 0.16), and the final sample
    # is that simulation (its information gives the model part of the covariance)
    m = ef.ERGM("lazega", CURVED)
    par = m.parameterisation
    fit = _ee(m, random_state=3)
    est = np.asarray(fit.params, dtype=float)
    pol = fit.info["polish"][0]
    assert not pol["skipped"] and abs(pol["step"][2]) > 0.1
    Z = np.concatenate(fit.mcmc_sample["chains"]) - m.statistics_vector()
    model_cov = np.linalg.inv(par.information(est, np.cov(Z, rowvar=False)))
    np.testing.assert_allclose(fit.cov - fit.cov_mc, model_cov, rtol=1e-6, atol=1e-10)
    g = run_chains(m, est, 2000, 16384, 1024, None, n_chains=1,
                   random_state=np.random.default_rng(7))[0][0]
    long_se = np.sqrt(np.diag(np.linalg.inv(par.information(est, np.cov(g, rowvar=False)))))
    ratio = np.sqrt(np.diag(model_cov)) / long_se
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    # the simulated t-ratios are those at the estimate reported
    assert max(abs(v) for v in fit.info["t_ratios_sim"].values()) < 0.6


def test_curved_cd_from_the_density_start_moves_the_weights():
    # CD starts with gwesp's weight at 0, where the decay is not identified: the
    # importance-sampling maximiser moved the decay by ~20 and the step, scaled
    # to move it by 0.25, left the weights at ~1e-3 -- every iteration again, the
    # decay running to 15.5 in 60 iterations (seeds 1-3, nsteps=256).  With the
    # decay held within 0.25 and the weights maximised given it (curved.DecayBox),
    # CD converges in 7-16 iterations near the MCMC-MLE (decay 0.77, seeds 1-3)
    m = ef.ERGM("lazega", CURVED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="cd", nsteps=256, random_state=1, verbose=False)
    th = np.asarray(fit.params, dtype=float)
    assert fit.converged and fit.n_iter < 40
    assert 0.5 < th[1] < 1.5 and 0.4 < th[2] < 1.5, th


# ---------------------------------------------------------------------------
# a decay that runs off under IFD
# ---------------------------------------------------------------------------
FORMULA = "edges + mutual + gwesp(fixed=FALSE)"
# MCMC-MLE of this model (ergmfit, seeds 1-3 agree): estimate and s.e.
MCMLE = np.array([-2.17, 2.23, 0.125, 1.75])
MCMLE_SE = np.array([0.32, 0.42, 0.14, 2.4])


def test_ee_starts_at_the_fixed_decay_mple_when_the_curved_mple_runs_off():
    m = ef.ERGM("samplike", FORMULA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theta = mple_start(m, np.random.default_rng(1), initial_estimate)
    # the curved MPLE's decay runs to ~804; the fixed-decay MPLE's best grid decay is 2
    assert theta[3] == 2.0
    assert abs(theta[1] - 2.23) < 0.05


@pytest.mark.slow
def test_ee_on_a_curved_model_whose_conditional_mle_runs_off_refits_unconditionally():
    m = ef.ERGM("samplike", FORMULA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="ee", random_state=2)
    est = np.array(list(fit.coef.values()))
    # before: the decay ran to 804 (from the curved MPLE) or 18 (from the fixed-decay
    # MPLE) and EE did not converge, with NA standard errors
    assert fit.converged
    assert np.all(np.abs(est - MCMLE) < 0.5 * MCMLE_SE), est
    assert np.all(np.isfinite(np.sqrt(np.diag(fit.cov))))
    note = fit.info["fallback"]
    assert note is not None and "ran off" in note and "proposal='tnt'" in note
    assert any("given the tie count" in w for w in fit.warnings)
    assert fit.info["settings"]["proposal"] == "tnt"


def test_ifd_tnt_adaptive_with_a_curved_term_before_edges():
    # the tie/no-tie phase gives the density parameter a step size: it indexed the θ-vector
    # of scales by the density *statistic's* position (16 here, past θ's 3 entries: an
    # IndexError); the scale belongs to the density *parameter* (position 2)
    m = ef.ERGM("samplike", "gwesp(0.5, fixed=FALSE) + edges")
    fit = _ee(m, random_state=1, proposal="ifd-tnt", update="adaptive", ee_steps=5,
              ee_inner_steps=10, sampler_steps=100, tnt_steps=5, se="none", polish=False,
              n_chains=1)
    assert fit.info["settings"]["dens"] == 16 and fit.info["settings"]["dens_theta"] == 2
    tnt = np.asarray(fit.info["trajectory"][0]["phases"][1]["theta"])
    assert np.all(np.isfinite(tnt))
    assert np.ptp(tnt[:, 2]) > 0        # the edges coefficient has a step size: it moves
