"""EE of a curved model whose likelihood given the tie count has no finite maximum
in the decay (samplike ``edges + mutual + gwesp(fixed=FALSE)``): IFD's decay runs
off, EE is redone with tie/no-tie proposals (_ee_parts.refit_unconditional)."""
import warnings

import numpy as np

import ergmfit as ef
from ergmfit.estimation.ee.start import mple_start
from ergmfit.estimation.mcmle.start import initial_estimate

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
