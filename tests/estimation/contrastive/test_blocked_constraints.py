"""Blocked CD and MCLE under constraints (#18): blocks of free dyads only
(dyad-set constraints), fixed dyads never toggled; degree constraints refused
with the reason."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError
from ergmfit.sampling._blocks import (BlockGibbsSampler, FreeOnly, StarBlocks, UniformBlocks)

FORM = "edges + nodematch('Sex') + nodefactor('Sex')"


@pytest.fixture(scope="module")
def mesa():
    return ef.datasets.load_network("faux.mesa.high")


@pytest.fixture(scope="module")
def ref(mesa):
    # MCMC-MLE under the same constraint: ties within grades only may vary
    m = ef.ERGM(mesa, FORM, constraints="~ blockdiag('Grade')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m, m.fit(method="mcmle", random_state=1)


@pytest.mark.parametrize("method,kw", [
    ("bcd", {}),
    ("mcle", {"block_size": 2, "blocks": "uniform", "n_blocks": 100_000, "cov": "naive"}),
])
def test_within_a_quarter_se_of_mcmle_under_blockdiag(ref, mesa, method, kw):
    m, mle = ref
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = m.fit(method=method, random_state=1, **kw)
    z = (np.asarray(fit.params) - np.asarray(mle.params)) / np.asarray(mle.bse)
    assert np.all(np.abs(z) < 0.25), z
    assert fit.nobs == m.sample_space.n_free == 4174
    # the constraint matters: the MLE on every dyad (= its MPLE) is ~8 s.e. away
    free_fit = ef.ERGM(mesa, FORM).fit(method="mple")
    assert abs(free_fit.params[0] - mle.params[0]) > 3 * mle.bse[0]


def test_mcle_of_order_one_is_the_constrained_mple(mesa):
    # a dyad-dependent model: order 1 over the free dyads is the MPLE over them
    m = ef.ERGM(mesa, "edges + gwesp(0.25, fixed=TRUE)", constraints="~ blockdiag('Grade')")
    a = m.fit(method="mple")
    b = m.fit(method="mcle", block_size=1, cov="naive")
    np.testing.assert_allclose(np.asarray(b.params), np.asarray(a.params), atol=1e-6)
    c = ef.ERGM(mesa, "edges + gwesp(0.25, fixed=TRUE)").fit(method="mple")
    assert abs(c.params[0] - a.params[0]) > 0.5


def test_fixed_dyads_are_never_toggled(mesa):
    m = ef.ERGM(mesa, "edges", constraints="~ blockdiag('Grade')")
    free = np.sort(m.sample_space.free_vars())
    for chooser in (UniformBlocks(m.compiled().n_vars, 4, free),
                    FreeOnly(StarBlocks(m.compiled(), 4), free)):
        assert all(np.isin(b, free).all() for b in chooser.draw(500, 1))
        bm = m.compiled()
        before = np.zeros(bm.n_vars, dtype=bool)
        before[bm.on_vars()] = True
        s = BlockGibbsSampler(bm, chooser, None, np.array([1, 2, 3, 4], dtype=np.uint64))
        s.run(np.array([2.0]), 20_000)              # dense: free dyads fill up
        after = np.zeros(bm.n_vars, dtype=bool)
        after[bm.on_vars()] = True
        fixed = np.setdiff1d(np.arange(bm.n_vars), free)
        assert np.array_equal(before[fixed], after[fixed])
        assert after[free].sum() > 2 * before[free].sum()


@pytest.mark.parametrize("method,cons,why", [
    (meth, cons, why) for meth in ("bcd", "mcle")
    for cons, why in (("~ degrees", "point mass"), ("~ edges", "number of ties"))])
# bd: MCLE (tests/estimation/contrastive/test_mcle_bd.py) and BCD (tests/estimation/contrastive/test_bcd_bd.py) take it
def test_degree_constraints_are_refused_with_the_reason(mesa, method, cons, why):
    m = ef.ERGM(mesa, FORM, constraints=cons)
    with pytest.raises(FormulaError, match=why):
        m.fit(method=method, random_state=1)
