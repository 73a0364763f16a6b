"""The adjusted pseudo-posterior (method="bayes-pl", Bergm's bergmC)."""
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.bayes.pseudo_posterior import adjustment
from ergmfit.estimation.mple.pseudolikelihood import pseudo_design
from ergmfit.exceptions import SettingsError
from ergmfit.results.bayes import BayesResults
from support.bayes import BERGM


def test_the_adjustment_has_the_likelihoods_mode_and_curvature():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + kstar(2) + triangle")
    design = pseudo_design(m.compiled())
    adj = adjustment(m, design, random_state=1)
    W = adj["W"]
    # the adjusted log-likelihood l(θ) = log PL(mple + W (θ - mle)):
    # its gradient vanishes at the MLE and its curvature there is the Fisher information
    assert np.allclose(W.T @ design.score(adj["mple"]), 0, atol=1e-6)
    np.testing.assert_allclose(W.T @ design.hessian(adj["mple"]) @ W, adj["H"], rtol=1e-8)
    # dyad-dependent: the pseudo-likelihood is more curved than the likelihood
    assert np.linalg.det(adj["H_pl"]) > np.linalg.det(adj["H"])


@pytest.mark.parametrize("formula", sorted(BERGM))
def test_adjusted_posterior_sds_match_bergm(formula):
    ref = BERGM[formula]
    m = ef.ERGM(ef.datasets.load("flomarriage"), formula)
    fit = m.fit(method="bayes-pl", random_state=1)
    assert isinstance(fit, BayesResults) and fit.method == "bayes-pl"
    assert fit.draws.shape == (40000, m.n_params)
    sd = np.array(ref["sd"])
    assert np.all(np.abs(np.asarray(fit.bse) / sd - 1) < 0.2), fit.bse
    # the adjusted posterior has the posterior's mode; its mean differs from the
    # exact posterior mean by the skewness the Gaussian-curvature match leaves out
    assert np.all(np.abs(np.asarray(fit.params) - ref["mean"]) < 0.6 * sd), fit.params
    assert 0.15 < fit.acceptance_rate < 0.5
    assert "Adjusted pseudo-posterior" in str(fit.summary())


def test_bayes_pl_settings():
    with pytest.raises(SettingsError, match="dict of MCMC-MLE settings"):
        ef.estimation.make_estimator("bayes-pl", mcmle=3)
    with pytest.raises(SettingsError, match="its settings are"):
        ef.estimation.make_estimator("bayes-pl", aux_iters=10)


# the inner MCMC-MLE's 2 iterations do not converge (expected: the Ctrl-C is the point)
@pytest.mark.filterwarnings("ignore:MCMC-MLE did not converge in 2 iterations")
def test_ctrl_c_during_the_inner_mcmle_ends_the_fit(monkeypatch):
    # the adjustment's MCMC-MLE returns an interrupted fit on Ctrl-C; the pseudo-posterior
    # then has no draw to return and must not go on sampling as if nothing happened
    # (it did: the user's Ctrl-C was swallowed)
    from ergmfit.estimation.mcmle.estimator import MCMLE
    real_fit = MCMLE.fit

    def interrupted_fit(self, model, *args, **kwargs):
        res = real_fit(self, model, *args, **kwargs)
        res.diagnostics.interrupted = True
        return res
    monkeypatch.setattr(MCMLE, "fit", interrupted_fit)
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")
    with pytest.raises(KeyboardInterrupt):
        m.fit(method="bayes-pl", random_state=1, main_iters=200,
              mcmle=dict(maxit=2, samplesize=256))



def test_an_offset_is_held_and_the_free_coefficient_sampled():
    # before session 24 any offset was a matmul shape error in the adjustment. With
    # offset(triangle) at 0, the model is edges alone: the posterior of edges must be
    # edges-only's (same seed: the same draws), and the offset's column is 0 in every draw
    import networkx as nx
    g = nx.florentine_families_graph()
    with_offset = ef.ERGM(g, "edges + offset(triangle)").fit(
        "bayes-pl", offset_coef=[0.0], random_state=3)
    alone = ef.ERGM(g, "edges").fit("bayes-pl", random_state=3)
    assert with_offset.labels == ["edges", "offset(triangle)"]
    np.testing.assert_allclose(np.asarray(with_offset.params)[0], np.asarray(alone.params)[0],
                               atol=0.05)
    np.testing.assert_allclose(with_offset.params[1], 0.0)
    # a non-zero offset moves edges the other way (more triangles credited, fewer edges)
    shifted = ef.ERGM(g, "edges + offset(triangle)").fit(
        "bayes-pl", offset_coef=[0.5], random_state=3)
    assert shifted.params[0] < alone.params[0] - 0.05
    assert shifted.params[1] == 0.5
