"""Fits of N() and L() models against ergm.multi 0.1.2 (tests/reference/statnet_multi.json):
the MPLE is deterministic and equals statnet's (coefficients, s.e., log-likelihood); the
MCMC-MLE, averaged over seeds, lies within 0.1 statnet s.e. of statnet's seed average with
s.e. within 15 % (slow)."""
import numpy as np
import pytest

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


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_mcmle_within_a_tenth_of_a_standard_error(model):
    cases = [c for c in FITS if c["model"] == model and c["estimate"] == "MLE"]
    labels = cases[0]["coef_names"]
    ref = np.mean([[c["coef"][k] for k in labels] for c in cases], axis=0)
    ref_se = np.mean([[c["se"][k] for k in labels] for c in cases], axis=0)
    m = _model(cases[0])
    fits = [m.fit(method="mcmle", random_state=seed) for seed in (1, 2, 3, 4)]
    est = np.mean([np.asarray(f.params, float) for f in fits], axis=0)
    se = np.mean([np.asarray(f.bse, float) for f in fits], axis=0)
    assert np.all(np.abs(est - ref) <= 0.1 * ref_se), (est - ref) / ref_se
    assert np.all(np.abs(se / ref_se - 1) <= 0.15), se / ref_se
