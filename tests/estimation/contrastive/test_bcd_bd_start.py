"""Blocked CD under degree bounds (``bd``, #18) starts from and preconditions
with the constrained problem: the start is the MPLE under the bounds (the
dyads whose toggle breaks a bound leave the pseudo-likelihood, i.e. the
one-dyad-block MCLE under the bounds, checked against method="mcle"), not the
MPLE that ignores them (statnet's and ``method="mple"``'s), and a curved
model's step matrix is the constrained composite information through the
Jacobian, not the unconstrained curved MPLE's."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation.contrastive.bcd import _curved_information
from ergmfit.estimation.contrastive.blocks import bounded_pseudo_fit, degree_feasibility, feasible_toggles
from ergmfit.estimation.contrastive.mcle import composite_design, make_chooser

LAZEGA_CURVED = "edges + gwesp(fixed=FALSE) + nodematch('practice')"


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


@pytest.fixture(scope="module")
def samplike():
    return ef.ERGM(ef.datasets.load("samplike"), "edges + mutual", constraints="~ bd(maxout=6)")


@pytest.fixture(scope="module")
def lazega():
    return ef.ERGM(ef.datasets.load("lazega"), LAZEGA_CURVED, constraints="~ bd(maxout=15)")


def test_feasible_toggles_are_the_dyads_whose_toggle_keeps_the_bounds(samplike):
    bm = samplike.compiled()
    ok = feasible_toggles(degree_feasibility(samplike), bm)
    out = np.bincount(samplike.network.ties[:, 0], minlength=samplike.network.n)
    # samplike: out-degrees 3..6; a non-tie from a node at 6 is the only infeasible toggle
    assert len(ok) == bm.n_vars - sum(samplike.network.n - 1 - 6 for d in out if d == 6)
    assert len(ok) < bm.n_vars


@pytest.mark.parametrize("case,gap", [("samplike", 0.25), ("lazega", 0.02)])
def test_bd_start_and_step_matrix_are_the_constrained_ones(case, gap, request):
    """samplike edges + mutual, lazega's curved gwesp model: the start is the
    (curved) MPLE under the bounds, the one-dyad MCLE under them; not the MPLE
    ignoring bd."""
    m = request.getfixturevalue(case)
    f = _quiet(m.fit, method="bcd", n_iter=200, random_state=1)
    assert (f.info["init"], f.info["precondition"]) == ("mple_bounded", "mple_bounded")
    one = _quiet(m.fit, method="mcle", block_size=1, blocks="all", cov="none")
    np.testing.assert_allclose(f.info["init_params"], np.asarray(one.params), atol=1e-4)
    plain = np.asarray(_quiet(m.fit, method="mple").params)
    assert np.max(np.abs(np.asarray(f.info["init_params"]) - plain)) > gap
    if case == "samplike":      # statnet's MPLE ignores bd (s2.bd.samplike.MPLE)
        np.testing.assert_allclose(plain, [-1.76001077081866, 2.31962655875409], atol=1e-6)


def test_curved_information_is_the_jacobian_sandwich(lazega):
    bm = lazega.compiled()
    par = lazega.parameterisation
    blocks = make_chooser(bm, "uniform", 4).draw(300, np.random.default_rng(3))
    des = composite_design(bm, blocks, feasible=degree_feasibility(lazega))
    theta = np.array([-4.2, 1.1, 0.7, 0.6])
    J = par.jacobian(theta)
    np.testing.assert_allclose(_curved_information(des, par, theta),
                               J.T @ des.hessian(par.eta(theta)) @ J, rtol=1e-10, atol=1e-10)


def test_user_and_zero_starts_are_kept_under_bd(samplike):
    f = _quiet(samplike.fit, method="bcd", n_iter=50, init="zero", random_state=1)
    assert f.info["init"] == "zero" and f.info["init_params"] == [0.0, 0.0]
    f = _quiet(samplike.fit, method="bcd", n_iter=50, init=[-1.0, 2.0], random_state=1)
    assert f.info["init"] == "user" and f.info["init_params"] == [-1.0, 2.0]


def test_no_constrained_maximum_falls_back_to_the_mple(samplike, monkeypatch):
    from ergmfit.estimation.contrastive import bcd
    from ergmfit.exceptions import DegenerateModelError

    def fail(*a, **k):
        raise DegenerateModelError("no maximum")
    monkeypatch.setattr(bcd, "bounded_pseudo_fit", fail)
    f = _quiet(samplike.fit, method="bcd", n_iter=50, random_state=1)
    assert f.info["init"] == "mple"
    np.testing.assert_allclose(f.info["init_params"], [-1.76001077081866, 2.31962655875409],
                               atol=1e-6)


def test_bounded_pseudo_fit_matches_a_logistic_regression_on_the_feasible_dyads(samplike):
    bm = samplike.compiled()
    feas = degree_feasibility(samplike)
    from ergmfit.estimation.contrastive.bcd import _LinearSteps
    fit = _LinearSteps.design_fit          # θ = η: the logistic regression
    lf = bounded_pseudo_fit(fit, bm, samplike.labels, feas)
    plain = bounded_pseudo_fit(fit, bm, samplike.labels, lambda b, a: np.ones(
        (len(a), 2), dtype=bool))
    np.testing.assert_allclose(plain.params, [-1.76001077081866, 2.31962655875409], atol=1e-6)
    assert np.all(np.isfinite(lf.cov)) and not np.allclose(lf.params, plain.params)


def test_no_estimate_under_the_bounds_is_an_error_not_a_fit():
    """A 12-cycle under bd(maxout=2): every node is at its maximum, so no block
    configuration inside the bounds has more ties and the constrained composite
    likelihood rises for ever with the edges coefficient (MCLE and MCMC-MLE
    say so; BCD used to return edges = 4.0 as converged)."""
    import networkx as nx
    from ergmfit.exceptions import DegenerateModelError
    m = ef.ERGM(nx.cycle_graph(12), "edges", constraints="~ bd(maxout=2)")
    with pytest.raises(DegenerateModelError, match="no estimate under the degree bounds.*edges"):
        _quiet(m.fit, method="bcd", n_iter=2000, random_state=1)
    with pytest.raises(DegenerateModelError):
        _quiet(m.fit, method="mcle", block_size=4, n_blocks=500, random_state=1)
    # maxout=3: every node can take one more tie, the fit runs
    m = ef.ERGM(nx.cycle_graph(12), "edges", constraints="~ bd(maxout=3)")
    assert np.isfinite(_quiet(m.fit, method="bcd", n_iter=500, random_state=1).params[0])
