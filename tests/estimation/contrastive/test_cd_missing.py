"""Contrastive divergence with missing dyads (#18): CD for a model with latent
variables -- each CD run starts at a completion of the missing dyads drawn
by a conditional chain at the current θ (estimation/contrastive/cd.py, _CompletedDraws)."""
import warnings

import numpy as np
import pytest

import ergmfit as ef

from support import constraints_reference as cr
from support.memory import traced_peak

ENTRY = "s3.na.samplike_mutual_gwesp.MLE.s101"     # 31 of 306 dyads missing


def _cd(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(method="cd", **kw)


def test_cd_with_missing_dyads_approaches_the_observed_data_mle():
    # refused before #18.  CD-n solves E[g(X_n) - g(Y)] = 0, Y a completion
    # given the observed dyads: with nsteps = 512 it lands within 0.25 statnet
    # s.e. of the observed-data MLE (seeds 1-2: at most 0.16), while CD of the
    # same network with the missing dyads as non-ties stays 0.34-0.41 s.e. off
    # on gwesp (it tends to that network's complete-data MLE)
    e = next(x for x in cr.entries() if x["id"] == ENTRY)
    m = cr.model(e)
    fit = _cd(m, random_state=1, nsteps=512)
    assert fit.converged
    for lab, ours, theirs, z, _ in cr.compare(e, fit):
        assert z < 0.25, (lab, ours, theirs, z)
    plain = _cd(ef.ERGM(m.network, m.formula), random_state=1, nsteps=512)
    assert cr.compare(e, plain)[2][3] > 0.3


def test_cd_with_missing_dyads_leaves_the_observed_state_and_holds_offsets():
    # an offset model goes through the same path (the conditional chain at η(θ)),
    # the fixed coefficient stays, and the run is reproducible
    e = next(x for x in cr.entries() if x["id"] == ENTRY)
    m0 = cr.model(e)
    m = ef.ERGM(m0.network, "offset(edges) + mutual + gwesp(0.5, fixed=TRUE)",
                missing=m0.missing_dyads)
    a = _cd(m, random_state=4, offset_coef=[-2.2])
    b = _cd(m, random_state=4, offset_coef=[-2.2])
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
    assert float(a.params[0]) == -2.2 and np.all(np.isfinite(np.asarray(a.params)))
    assert abs(float(a.params[1]) - e["coef"]["mutual"]) < 2 * e["se"]["mutual"]


def test_cd_with_missing_dyads_under_a_constraint():
    # the conditional chain walks the constrained space's missing dyads, on the
    # compiled network CD's constrained proposal walks too (it resynchronises
    # after the other's moves): within 0.15 s.e. of the constrained missing-data
    # MCMC-MLE (bd(maxout=9): 0.08)
    e = next(x for x in cr.entries() if x["id"] == ENTRY)
    m0 = cr.model(e)
    m = ef.ERGM(m0.network, m0.formula, missing=m0.missing_dyads, constraints="~ bd(maxout=9)")
    ref = m.fit(method="mcmle", random_state=1)
    fit = _cd(m, random_state=1, nsteps=512)
    z = np.abs(np.asarray(fit.params, float) - np.asarray(ref.params, float)) \
        / np.sqrt(np.diag(ref.cov))
    assert np.all(z < 0.15), z


def test_density_start_with_missing_dyads_never_lists_every_dyad():
    # the logit of the observed density over every dyad but the missing ones: the dyads were
    # listed (578 MB at 8,500 nodes, 75 GB at 10^5: MemoryError)
    from ergmfit.estimation.contrastive.cd import density_start
    n = 8500
    rng = np.random.default_rng(5)
    ties = np.unique(rng.integers(0, n, size=(30_000, 2)), axis=0)
    ties = ties[ties[:, 0] != ties[:, 1]]
    net = ef.Network(n, ties, True)
    miss = np.concatenate([rng.integers(0, n, size=(500, 2)), ties[:7]])
    m = ef.ERGM(net, "edges + mutual", missing=miss[miss[:, 0] != miss[:, 1]])
    bm = m.compiled()
    theta, peak = traced_peak(lambda: density_start(m, bm))
    D = n * (n - 1) - m.sample_space.n_missing
    L = m.network.n_ties
    assert theta[0] == pytest.approx(np.log(L / (D - L)), rel=1e-12)
    assert peak < 50 * 2 ** 20, f"peak {peak / 2**20:.0f} MB"
