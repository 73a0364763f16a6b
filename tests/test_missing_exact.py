"""A dyad-independent model with missing dyads (#18): its likelihood factorises
over the dyads and the missing ones sum out, so the observed-data MLE is the
logistic regression on the observed dyads -- statnet returns that MPLE as the
MLE, without MCMC, and so do we."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import constraints_reference as cr  # noqa: E402


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
