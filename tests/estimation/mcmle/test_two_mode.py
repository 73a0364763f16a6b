"""Two-mode MCMC-MLE fits against statnet 4.4's (statnet_ext.json section 4_bipartite,
issue #19): every coefficient within 0.25 statnet standard errors of statnet's estimate
(the mean of its runs) and every standard error within 20% of statnet's.

One exception, measured: statnet's only run of davis ~ edges + gwb1dsp + gwb2degree (its
other seed failed) has MCMC noise in its standard errors (gwb2deg 3.02, gwb1dsp 0.164),
while the inverse covariance of 20,000 draws at statnet's own estimate gives 3.77 and
0.145; ergmfit's (3.74, 0.143) are checked against that precise figure instead, within 10%.
"""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from support.paths import load_reference

_REF = load_reference("statnet_ext.json")["sections"]["4_bipartite"]
FITS = {}
for _e in _REF:
    if _e["kind"] == "fit" and ".MLE." in _e["id"] and _e["status"] == "ok":
        FITS.setdefault(_e["formula"], []).append(_e)
NOISY_SE = "davis ~ edges + gwb1dsp(0.5, fixed=TRUE) + gwb2degree(0.5, fixed=TRUE)"


@pytest.mark.parametrize("formula", sorted(FITS), ids=[f.split("~")[1].strip() for f in sorted(FITS)])
def test_two_mode_mcmle_matches_statnet(formula):
    runs = FITS[formula]
    data, rhs = (s.strip() for s in formula.split("~", 1))
    model = ef.ERGM(data, rhs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(method="mcmle", random_state=1)
    assert list(fit.labels) == list(runs[0]["coef"])
    coef = np.mean([list(r["coef"].values()) for r in runs], axis=0)
    se = np.mean([list(r["se"].values()) for r in runs], axis=0)
    ours, ours_se = np.asarray(fit.params, dtype=float), np.sqrt(np.diag(fit.cov))
    assert np.all(np.abs(ours - coef) <= 0.25 * se), (ours - coef) / se
    if formula == NOISY_SE:
        S = model.simulate(coef, n=20000, burnin=20000, interval=200, output="stats",
                           random_state=5)
        se = np.sqrt(np.diag(np.linalg.inv(np.cov(np.asarray(S, dtype=float).T))))
        np.testing.assert_allclose(ours_se, se, rtol=0.10)
    else:
        np.testing.assert_allclose(ours_se, se, rtol=0.20)
