"""Count-valued MCMC-MLE against ergm.count 4.1.1's fits (section 1_valued of the shared
reference file, the fits whose terms exist): the estimates, averaged over seeds, within
0.1 of statnet's standard error of statnet's (averaged over its seeds); the standard errors
within 15 %."""
import numpy as np
import pytest

import ergmfit as ef
from conftest import load_reference
from support.valued_networks import samptot

CASES = load_reference("statnet_valued_fits.json")["cases"]
DONE = {"sum", "nonzero", "mutual.min"}
FITS = [c for c in CASES if c["kind"] == "fit" and c.get("status") == "ok"
        and c["dataset"] == "samptot" and set(c["coef_names"]) <= DONE]
MODELS = sorted({c["model"] for c in FITS})


def _formula(case):
    return case["formula"].split("~", 1)[1].strip()


def test_a_reference_fit_applies():
    assert "v.fit.samptot_pois_mutual" in MODELS


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_mcmle_matches_ergm_count(model):
    cases = [c for c in FITS if c["model"] == model]
    labels = cases[0]["coef_names"]
    ref = cases[0]["reference"].lstrip("~")
    want = np.mean([[c["coef"][k] for k in labels] for c in cases], axis=0)
    se_want = np.mean([[c["se"][k] for k in labels] for c in cases], axis=0)
    m = ef.ERGM(samptot(), _formula(cases[0]), response="nominations", reference=ref)
    assert m.labels == labels
    fits = [m.fit("mcmle", random_state=s) for s in (1, 2, 3, 4)]
    got = np.mean([np.asarray(f.params, dtype=float) for f in fits], axis=0)
    se = np.mean([np.asarray(f.bse, dtype=float) for f in fits], axis=0)
    assert np.all(np.abs(got - want) < 0.1 * se_want), ((got - want) / se_want)
    assert np.all(np.abs(se / se_want - 1) < 0.15), se / se_want


def test_count_mple_is_near_ergm_count_mle():
    # fast check: the count MPLE (MCMC-MLE's start) of the reference model lies within
    # half a statnet standard error of statnet's MLE
    case = [c for c in FITS if c["model"] == "v.fit.samptot_pois_mutual"][0]
    m = ef.ERGM(samptot(), _formula(case), response="nominations", reference="Poisson")
    fit = m.fit("mple")
    want = np.array([case["coef"][k] for k in m.labels])
    se = np.array([case["se"][k] for k in m.labels])
    assert np.all(np.abs(np.asarray(fit.params, dtype=float) - want) < 0.5 * se)
