"""EE's early stop (``stop_when_converged``) and its ``min_ee_steps="auto"`` default.

With the old default ``min_ee_steps=10`` a small fit started near its estimate stopped
"converged" after 11-25 outer iterations (samplike ``edges + mutual``, seeds 1-6, one
learning rate), when its t-ratio and drift tests had 8-20 rows to go on: the t-ratio of n
rows has a noise of about 1/√n, larger than ``t_tol`` = 0.1 below 100 rows, and EstimNet's
s.e. from such a trajectory came out at 0.7-16 for mutual.  ``"auto"`` waits until the
iterations kept after the burn-in span ceil(1 / t_tol²) outer iterations.
"""
import warnings

import pytest

from ergmfit.estimation.ee.chain import min_kept_outer
from ergmfit.exceptions import SettingsError

INNER = 100
START = [-1.75, 2.33]      # near the MLE of samplike edges + mutual: the tests settle at once


def _fit(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="ee", random_state=1, stop_when_converged=True,
                         learning_rate=0.01, ee_steps=400, ee_inner_steps=INNER,
                         se="none", init=START, **kw)


def test_auto_waits_for_a_kept_window_of_100_outer_iterations(samplike):
    # burn-in 0.2 of the (only) stage: 100 kept outer iterations need 125 done;
    # the old default (10) stopped this fit after 12 outer iterations
    res = _fit(samplike)
    done = res.info["iterations"][0]
    assert 125 * INNER <= done < 400 * INNER
    assert res.converged


def test_a_number_keeps_the_old_rule(samplike):
    # min_ee_steps=10 as before: the stop comes as soon as 8 kept rows pass the tests
    done = _fit(samplike, min_ee_steps=10).info["iterations"][0]
    assert 10 * INNER <= done <= 30 * INNER


def test_min_kept_outer():
    assert min_kept_outer({"min_ee_steps": "auto", "t_tol": 0.1}) == 100
    assert min_kept_outer({"min_ee_steps": "auto", "t_tol": 0.2}) == 25
    assert min_kept_outer({"min_ee_steps": 10, "t_tol": 0.1}) == 0


def test_bad_min_ee_steps_is_named(samplike):
    with pytest.raises(SettingsError, match="min_ee_steps"):
        samplike.fit(method="ee", min_ee_steps="soon")
