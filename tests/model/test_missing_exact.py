"""A dyad-independent model with missing dyads (#18): its likelihood factorises
over the dyads and the missing ones sum out, so the observed-data MLE is the
logistic regression on the observed dyads -- statnet returns that MPLE as the
MLE, without MCMC, and so do we."""

import numpy as np
import pytest

from ergmfit.exceptions import ConvergenceWarning

from support import constraints_reference as cr


def test_dyad_independent_missing_data_mle_is_exact_as_statnet():
    e = next(x for x in cr.entries() if x["id"] == "s3.na.mesa_grade.MLE.s101")
    res = cr.fit(e, random_state=1)
    assert res.info["exact_mle"] and res.info["n_missing"] == 2091
    for lab, ours, theirs, z, se_ratio in cr.compare(e, res):
        assert z < 1e-6 and abs(se_ratio - 1) < 1e-4, (lab, ours, theirs)
    assert abs(res.loglik - e["loglik"]) < 1e-6
    # the same estimate whatever the seed: nothing random
    again = cr.fit(e, random_state=2)
    np.testing.assert_array_equal(np.asarray(again.params), np.asarray(res.params))


def test_missing_data_mcmle_iterates_as_the_complete_data_one():
    # the interval adapted to the effective sample size and two full steps, a
    # boosted last sample and its step (mcmle's rules): 4 iterations here, within
    # 0.1 statnet s.e. (statnet's Hotelling rule alone took 9, 0.18 s.e. off on
    # nodematch: the estimate is the last sample's θ, not its step)
    e = next(x for x in cr.entries() if x["id"] == "s3.na.mesa_grade_gwesp.MLE.s101")
    res = cr.fit(e, random_state=1, eval_loglik=False)
    assert res.converged and res.n_iter <= 5
    assert [h["interval"] for h in res.info["history"]][-1] < 1024
    for lab, ours, theirs, z, se_ratio in cr.compare(e, res):
        assert z < 0.1 and 0.9 < se_ratio < 1.1, (lab, ours, theirs, z, se_ratio)
    with pytest.warns(ConvergenceWarning):      # statnet's rule: 30 iterations here
        old = cr.fit(e, random_state=1, eval_loglik=False, termination="hotelling")
    for lab, ours, theirs, z, se_ratio in cr.compare(e, old):
        assert z < 0.25, (lab, ours, theirs)
