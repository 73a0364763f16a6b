"""Log-likelihoods with missing dyads and offsets (#18), as statnet computes them:
bridge sampling from the dyad-independent submodel, offsets held fixed, with
missing dyads the observed-data log-likelihood (a constrained chain beside the
unconstrained one at every bridge point)."""
import warnings

import numpy as np

import ergmfit as ef
from ergmfit.sampling.space import var_pairs

from support import constraints_reference as cr


def _exact_mutual_loglik(Y, M, te, tm):
    """Observed-data log-likelihood of edges + mutual (dyads independent): each
    pair's probability summed over the states of its missing entries."""
    n = len(Y)
    logZ = np.log(1 + 2 * np.exp(te) + np.exp(2 * te + tm))
    tot = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            states = [te * (a + b) + tm * a * b for a in (0, 1) for b in (0, 1)
                      if (M[i, j] or a == Y[i, j]) and (M[j, i] or b == Y[j, i])]
            tot += np.logaddexp.reduce(states) - logZ
    return tot


def test_observed_data_loglik_equals_the_exact_one():
    # samplike.na10 ~ edges + mutual: its observed-data likelihood is exact by
    # enumerating each pair's missing entries.  (statnet's reference run reports
    # -148.13 here; the exact value at its estimate is -148.55.)
    e = next(x for x in cr.entries() if x["id"] == "s3.na.samplike_mutual.MLE.s101")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cr.fit(e, random_state=1, verbose=False)
    m = res.model
    n = m.network.n
    Y = np.zeros((n, n))
    for i, j in m.network.ties:
        Y[i, j] = 1
    M = np.zeros((n, n), bool)
    for i, j in var_pairs(n, True, m._missing):
        M[i, j] = True
    exact = _exact_mutual_loglik(Y, M, *np.asarray(res.params))
    assert res.loglik_kind == "bridge" and res.loglik_mcse > 0
    assert abs(res.loglik - exact) < 4 * res.loglik_mcse + 0.05, (res.loglik, exact)
    assert abs(res.aic - (-2 * res.loglik + 4)) < 1e-9


def test_offset_loglik_and_aic_as_statnet():
    # flomarriage ~ offset(edges) + triangle, offset.coef = -1.7: statnet's two runs
    # give -54.04 and -54.04 (AIC 110.08: one free coefficient)
    e = next(x for x in cr.entries() if x["id"] == "s3.offset.flomarriage.MLE.s101")
    res = cr.fit(e, random_state=1, verbose=False)
    assert abs(res.loglik - e["loglik"]) < 0.2
    assert abs(res.aic - e["aic"]) < 0.4
    mple = ef.ERGM("flomarriage", "offset(edges) + triangle").fit(method="mple",
                                                                   offset_coef=[-1.7])
    ref = next(x for x in cr.entries() if x["id"] == "s3.offset.flomarriage.MPLE")
    assert abs(mple.aic - ref["aic"]) < 1e-6


def test_infinite_offset_loglik_is_the_constrained_models():
    # a structural zero (-Inf) on a dyad-independent term: the reference submodel
    # holds it and the bridge never moves it, so the log-likelihood is that of the
    # model on the space without those dyads (statnet's fixedas constraint)
    import networkx as nx
    g = nx.Graph(ef.datasets.load("flomarriage"))
    nodes = list(g.nodes)
    indep = nx.maximal_independent_set(g, seed=1)
    nx.set_node_attributes(g, {v: int(v in indep) for v in nodes}, "z")
    m = ef.ERGM(g, "edges + offset(nodematch('z', diff=TRUE), 2) + gwesp(0.5, fixed=TRUE)")
    zero = [[u, v] for k, u in enumerate(indep) for v in indep[k + 1:]]
    c = ef.ERGM(g, "edges + nodematch('z', diff=TRUE, levels=-2) + gwesp(0.5, fixed=TRUE)",
                constraints=("~ fixedas(absent=zero)", {"zero": [tuple(p) for p in zero]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = m.fit(method="mcmle", offset_coef=[-np.inf], random_state=1, verbose=False)
        b = c.fit(method="mcmle", random_state=1, verbose=False)
    assert a.labels[2] == "offset(nodematch.z.1)" and a.params[2] == -np.inf
    np.testing.assert_allclose(np.delete(np.asarray(a.params), 2), np.asarray(b.params),
                               atol=0.25 * np.sqrt(np.diag(b.cov)).max())
    assert np.isfinite(a.loglik)
    assert abs(a.loglik - b.loglik) < 4 * np.hypot(a.loglik_mcse, b.loglik_mcse) + 0.1


def _mple_z(entry, seeds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = []
        for seed in seeds:
            r = cr.fit(entry, random_state=seed, verbose=False)
            out.append([(o - th) / entry["se"][lab] if entry["se"][lab] else 0.0
                        for lab, o, th, _, _ in cr.compare(entry, r)])
    return np.array(out)


def test_mple_with_missing_dyads_imputes_them_as_statnet():
    # statnet completes the missing dyads at random (at the observed density)
    # before its MPLE; the change statistics of the observed dyads then see the
    # completion.  Its reference MPLE lies inside the spread of ours over seeds
    # (leaving the missing dyads empty instead put it 0.35-1.19 s.e. away)
    e = next(x for x in cr.entries() if x["id"] == "s3.na.samplike_mutual_gwesp.MPLE")
    z = _mple_z(e, range(1, 21))
    assert np.all(z.std(axis=0) > 0.05)                     # the completion matters
    assert np.all(np.abs(z.mean(axis=0)) < 1.5 * z.std(axis=0) + 0.1), (z.mean(0), z.std(0))
    # the same seed gives the same MPLE; a dyad-independent model ignores the completion
    np.testing.assert_array_equal(_mple_z(e, [3]), _mple_z(e, [3]))
    d = next(x for x in cr.entries() if x["id"] == "s3.na.mesa_grade.MPLE")
    zd = _mple_z(d, [1, 2])
    np.testing.assert_array_equal(zd[0], zd[1])
    assert np.abs(zd).max() < 1e-5


def test_imputation_count_and_observed_ties():
    from ergmfit.estimation.mple.pseudolikelihood import impute_missing
    from ergmfit.sampling.space import dyad_vars
    e = next(x for x in cr.entries() if x["id"] == "s3.na.mesa_grade_gwesp.MPLE")
    m = cr.model(e)
    ties = impute_missing(m, 1)
    net, miss = m.network, m.sample_space.missing
    v = dyad_vars(net.n, net.directed, ties)
    obs = dyad_vars(net.n, net.directed, net.ties)
    assert set(obs) <= set(v)
    new = np.setdiff1d(v, obs)
    assert set(new) <= set(miss)
    d = len(obs) / (net.n_dyads - len(miss))
    assert len(new) == int(np.round(d * len(miss)))


def test_mple_without_random_state_is_reproducible():
    e = next(x for x in cr.entries() if x["id"] == "s3.na.samplike_mutual_gwesp.MPLE")
    m = cr.model(e)
    a, b = m.fit(method="mple"), m.fit(method="mple")
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
