"""fit.mcmc_diagnostics(): statnet's mcmc.diagnostics numbers and plots of the kept sample."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.diagnostics import MCMCDiagnostics, geweke, split_rhat
from ergmfit.exceptions import ErgmfitError


@pytest.fixture(scope="module")
def flo_fit():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    return m.fit(method="mcmle", random_state=1, verbose=False, eval_loglik=False)


def test_mcmle_keeps_last_sample(flo_fit):
    s = flo_fit.mcmc_sample
    assert s["labels"] == ["edges", "triangle"]
    assert np.allclose(s["observed"], [20, 3])
    # the last sample, as drawn (its size is the estimator's: interval.final_sample_size)
    assert sum(len(c) for c in s["chains"]) == flo_fit.info["history"][-1]["samplesize"] >= 1024
    d = flo_fit.mcmc_diagnostics()
    # centred on the observed statistics: at the MLE the sample mean is near 0
    assert np.all(np.abs(d.mean) < 3 * d.ts_se + 1e-9)
    assert np.all(d.ess > 500) and np.all(np.abs(d.rhat - 1) < 0.05)
    assert 0 < d.geweke_joint_p <= 1
    text = str(d)
    for piece in ("Sample statistics summary", "Time-series SE", "Lag 0", "Joint P-value"):
        assert piece in text
    assert list(d.to_frame().columns) == ["mean", "sd", "naive_se", "ts_se", "ess",
                                          "geweke_z", "geweke_p", "rhat"]


def test_diagnostics_plot(flo_fit, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "diag.png"
    flo_fit.mcmc_diagnostics().plot(path)
    assert path.stat().st_size > 1000


def test_no_sample_is_a_clear_error():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    with pytest.raises(ErgmfitError, match="keeps no MCMC sample"):
        m.fit(method="mple").mcmc_diagnostics()


def test_drift_is_flagged():
    rng = np.random.default_rng(0)
    n = 2000
    stationary = rng.normal(size=n)
    drifting = rng.normal(size=n) + np.linspace(0, 4, n)       # a chain still burning in
    assert abs(geweke(stationary)) < 3 and abs(geweke(drifting)) > 5
    assert abs(split_rhat([stationary]) - 1) < 0.02 and split_rhat([drifting]) > 1.3
    d = MCMCDiagnostics([np.column_stack([stationary, drifting])], [0, 0], ["a", "b"])
    assert d.geweke_p[0] > 0.01 and d.geweke_p[1] < 1e-6 and d.geweke_joint_p < 1e-6
    ar = 0.9 * np.concatenate([[0], rng.normal(size=n - 1)])    # AR(1) with rho 0.9
    for t in range(1, n):
        ar[t] += 0.9 * ar[t - 1]
    d = MCMCDiagnostics([ar[:, None]], [0], ["ar"])
    assert 0.85 < d.autocorr[1, 0] < 0.95 and d.ess[0] < n / 10
