"""Equilibrium Expectation: its final sample for mcmc_diagnostics (#22 item 2),
progress and stop through dask (#22 item 3), a second Ctrl-C (#24 item 5),
non-existence / non-identifiability / dead statistics (#24 item 11), the
adaptive update on curved models (#17), constraints (#18)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.ee import fit_ee
from ergmfit.exceptions import ConvergenceWarning

SHORT = dict(ee_steps=10, ee_inner_steps=20, sampler_steps=300, s_steps=20, se_samplesize=100)


def quiet_fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit_ee(model, **kw)


@pytest.fixture(scope="module")
def samplike():
    return ef.ERGM(ef.datasets.load_network("samplike"), "edges + mutual")


# ---------------------------------------------------------------------------
# #22 item 2: EE keeps its final sample
# ---------------------------------------------------------------------------
def test_ee_fit_keeps_its_final_sample_for_mcmc_diagnostics(samplike):
    fit = quiet_fit(samplike, random_state=3, n_chains=2, **SHORT)
    d = fit.mcmc_diagnostics()
    assert d.method == "ee" and len(d.chains) == 2 and d.n == 200
    assert d.labels == ["edges", "mutual"]
    assert np.allclose(d.observed, samplike.statistics_vector())
    assert d.interval == fit.info["mcmc"]["interval"]
    # the draws are networks' statistics (integers near the observed ones)
    Z = np.concatenate(d.chains)
    assert np.allclose(Z, np.round(Z)) and np.all(Z >= 0)
    assert "Sample statistics summary (ee" in d.summary()


def test_ee_without_simulation_says_why_there_is_no_sample(samplike):
    fit = quiet_fit(samplike, random_state=3, se="none", **SHORT)
    with pytest.raises(ef.ErgmfitError, match="method='ee'"):
        fit.mcmc_diagnostics()
