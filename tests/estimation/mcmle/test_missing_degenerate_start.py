"""Missing-data MCMC-MLE from a start in the other phase (#38 item 4): flomarriage
``edges + triangle`` with its first five dyads missing.  statnet's start, the MPLE on a
random completion of the missing dyads, is for some seeds near-degenerate (the completion
closes triangles: triangle 0.51 instead of 0.16) and the unconditional chain runs to the
complete graph.  The fit must notice that it makes no headway (a linear model as well as
a curved one) and restart from the EE estimate, not walk the edges coefficient down by
one per iteration until the chain falls to the empty graph and report that "triangle did
not vary"."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import DegenerateModelError

#: the MPLE on the random completion of seed 24 (the start that failed)
DEGENERATE_START = [-1.794, 0.512]


def _model():
    g = ef.datasets.load("flomarriage")
    nodes = list(g.nodes)
    pairs = [(nodes[i], nodes[j]) for i in range(len(nodes)) for j in range(i + 1, len(nodes))]
    return ef.ERGM(g, "edges + triangle", missing=pairs[:5])


def test_a_start_in_the_other_phase_is_said_not_as_a_flat_statistic():
    # from the start given (init= is the user's: no other start is tried), the fit stops
    # within a few iterations saying where the chain went (the empty graph), instead of
    # "triangle did not vary"
    m = _model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DegenerateModelError, match="stuck at the empty graph") as err:
            m.fit(method="mcmle", init=DEGENERATE_START, random_state=24, maxit=8)
    assert "did not vary" not in str(err.value)


def test_a_statistic_stuck_away_from_the_target_is_retryable():
    # a statistic constant in the sample at another value than the one aimed at (the
    # chain sits in another phase: seed 14's near-empty chain, no triangle) may be
    # avoided from another start: retryable (the fit is redone, see fallback); constant
    # at the target's value, the term itself is degenerate: not retryable
    from ergmfit.estimation.mcmle.estimator import check_degeneracy
    m = _model()
    D = m.network.n_dyads
    sample = [np.column_stack([np.arange(10, 20.0), np.zeros(10)])]
    with pytest.raises(DegenerateModelError, match="did not vary") as away:
        check_degeneracy(m, sample, D, centre=np.array([15.0, 3.0]))
    assert getattr(away.value, "retryable", False)
    with pytest.raises(DegenerateModelError, match="did not vary") as at:
        check_degeneracy(m, sample, D, centre=np.array([15.0, 0.0]))
    assert not getattr(at.value, "retryable", False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [14, 24, 27])
def test_seeds_that_failed_now_converge(seed):
    # each ~25 s: the first attempt stops after 4 iterations, EE then MCMC-MLE again
    m = _model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="mcmle", random_state=seed)
    assert fit.converged
    # the 27 seeds that converged directly gave edges -1.625..-1.640, triangle 0.143..0.181
    theta = np.asarray(fit.params)
    se = np.sqrt(np.diag(np.asarray(fit.cov)))
    assert abs(theta[0] - (-1.634)) < 0.5 * se[0] and abs(theta[1] - 0.166) < 0.5 * se[1]
