"""MCLE under degree bounds (``bd``, #18): each block's conditional is the
unconstrained one restricted to the configurations that keep every degree
within its bounds (estimation/contrastive/blocks.degree_feasibility).  One block of
every dyad is the exact likelihood of the constrained model, so its MCLE is
the constrained MLE; checked against enumerating the constrained space.
Blocked CD under bd: tests/estimation/contrastive/test_bcd_bd.py."""
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import optimize, special

import ergmfit as ef
from ergmfit.estimation.contrastive.blocks import degree_feasibility
from ergmfit.exceptions import NetworkError
from ergmfit.sampling.space import var_pairs
from support.constrained_spaces import assert_masks_match_space


def _graph(directed=False):
    g = nx.cycle_graph(6, create_using=nx.DiGraph if directed else nx.Graph)
    g.add_edges_from([(0, 3), (1, 4)])
    return g


@pytest.mark.parametrize("directed,cons", [(False, "~ bd(maxout=3, minout=2)"),
                                           (True, "~ bd(maxout=2, minout=1, maxin=2, minin=1)")])
def test_feasible_configurations_are_those_inside_the_bounds(directed, cons):
    assert_masks_match_space(ef.ERGM(_graph(directed), "edges", constraints=cons))


def test_whole_block_mcle_under_bd_is_the_constrained_mle():
    g = nx.Graph()
    g.add_nodes_from(range(5))
    g.add_edges_from([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (1, 3)])
    m = ef.ERGM(g, "edges + triangle", constraints="~ bd(maxout=3)")
    M = m.compiled().n_vars
    S = []
    for bits in range(1 << M):
        ties = var_pairs(5, False, np.array([v for v in range(M) if bits >> v & 1], np.int64))
        try:
            m.sample_space.check(ties)
        except NetworkError:
            continue
        S.append(m.statistics_vector(ties))
    S, g_obs = np.array(S), m.statistics_vector()
    assert len(S) == 768          # of 1024 graphs

    def nll(th):
        return -(th @ g_obs - special.logsumexp(S @ th))
    mle = optimize.minimize(nll, np.zeros(2), method="BFGS", options={"gtol": 1e-10}).x
    w = np.exp(S @ mle - special.logsumexp(S @ mle))
    cov = np.linalg.inv((S * w[:, None]).T @ S - np.outer(w @ S, w @ S))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method="mcle", blocks=[list(range(M))], block_size=M, cov="exact")
    np.testing.assert_allclose(np.asarray(fit.params), mle, atol=1e-6)
    np.testing.assert_allclose(fit.cov, cov, rtol=1e-5)
    assert abs(fit.loglik + nll(mle)) < 1e-8
    # the bounds matter: the unconstrained MLE is elsewhere
    plain = ef.ERGM(g, "edges + triangle").fit(method="mcle", blocks=[list(range(M))],
                                                block_size=M, cov="none")
    assert np.max(np.abs(np.asarray(plain.params) - mle)) > 0.5
    # pairs: the Godambe variability by enumerating the space has mean score 0
    pair = m.fit(method="mcle", block_size=2, cov="exact")
    assert np.max(np.abs(pair.info["godambe"]["mean_score"])) < 1e-9
    assert np.all(np.isfinite(np.sqrt(np.diag(pair.cov))))
