"""The last MCMC sample is saved and loaded with the results (#22), without pickle."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import ResultsFileError
from ergmfit.results import ERGMResults


@pytest.fixture(scope="module")
def flo_fit():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    return m.fit(method="mcmle", random_state=1, verbose=False, eval_loglik=False)


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_mcmc_sample_is_saved_and_loaded(flo_fit, tmp_path, ext):
    # #22: the last sample travels with the results, so the diagnostics work after load
    path = tmp_path / f"fit{ext}"
    flo_fit.save(path)
    back = ERGMResults.load(path)
    s, t = flo_fit.mcmc_sample, back.mcmc_sample
    assert t["labels"] == s["labels"] and t["interval"] == s["interval"]
    assert len(t["chains"]) == len(s["chains"])
    for a, b in zip(s["chains"], t["chains"]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(t["observed"], s["observed"])
    assert str(back.mcmc_diagnostics()) == str(flo_fit.mcmc_diagnostics())


def test_damaged_sample_is_reported(flo_fit, tmp_path):
    import json
    path = tmp_path / "fit.json"
    flo_fit.save(path)
    d = json.loads(path.read_text())
    d["mcmc_sample"]["chains"][0] = [[1.0]]
    path.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="damaged"):
        ERGMResults.load(path)


def test_ee_sample_is_saved_too(tmp_path):
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="ee", random_state=1, verbose=False, ee_steps=20, se_samplesize=200)
    if fit.mcmc_sample is None:
        pytest.skip("this EE fit keeps no sample")
    fit.save(tmp_path / "ee.npz")
    back = ERGMResults.load(tmp_path / "ee.npz")
    assert str(back.mcmc_diagnostics()) == str(fit.mcmc_diagnostics())
