"""Linear-chain CRF and its stochastic composite likelihood (ergmfit.mrf.chain_crf):
window conditionals, gradients, likelihood and Viterbi against brute-force enumeration of
the label sequences; the estimators' special cases, selection, stationarity, recovery of
a known theta on data drawn exactly; the data generator; bad input."""
import itertools
import warnings

import numpy as np
import pytest
from scipy import sparse, special

from ergmfit.exceptions import SettingsError
from ergmfit.mrf import ChainCRF, ChainStochasticCompositeLikelihood
from ergmfit.mrf.chain_crf import (ChainObjective, _component_windows, _forward_backward,
                                   _forward_backward_log, chain_components, check_documents,
                                   window_cost)
from ergmfit.mrf.data import sentiment_documents


# ---------------------------------------------------------------------------
# independent reference code (enumeration of label sequences)
# ---------------------------------------------------------------------------
def joint_score(f, y, W, tau):
    return sum(W[y[t]] @ f[t] for t in range(len(y))) + \
        sum(tau[y[t - 1], y[t]] for t in range(1, len(y)))


def log_cond(f, y, A, W, tau):
    """log p(y_A | y_-A) by listing the q^|A| relabellings of A."""
    q = W.shape[0]
    vals = []
    for c in itertools.product(range(q), repeat=len(A)):
        z = np.array(y).copy()
        z[list(A)] = c
        vals.append(joint_score(f, z, W, tau))
    return joint_score(f, y, W, tau) - special.logsumexp(vals)


def small_docs(seed=0, q=3, d=4, lengths=(1, 2, 5, 4, 3)):
    rng = np.random.default_rng(seed)
    F = [rng.normal(size=(n, d)) for n in lengths]
    Y = [rng.integers(0, q, n) for n in lengths]
    return F, Y


def exact_chain_sample(F, W, tau, rng):
    """Label sequences drawn exactly by enumeration (short documents)."""
    q = W.shape[0]
    out = []
    for f in F:
        seqs = list(itertools.product(range(q), repeat=len(f)))
        s = np.array([joint_score(f, np.array(c), W, tau) for c in seqs])
        p = np.exp(s - special.logsumexp(s))
        out.append(np.array(seqs[rng.choice(len(seqs), p=p)], dtype=np.int64))
    return out


# ---------------------------------------------------------------------------
@pytest.mark.parametrize("comp", [("pl", 1), ("window", 2), ("window", 3), ("full",)])
@pytest.mark.parametrize("seed", [0, 1])
def test_window_objective_and_gradient_against_enumeration(comp, seed):
    F, Y = small_docs(seed)
    q, d = 3, 4
    crf = ChainCRF(q, d)
    theta = np.random.default_rng(10 + seed).normal(size=crf.n_params)
    W, tau = crf.unpack(theta)
    data = check_documents(F, Y, q, d)
    c = chain_components([comp])[0]
    doc, start, length = _component_windows(c, data)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, len(doc))
    obj = ChainObjective(data, [(doc, start, length, w)])
    v, g = obj.value_grad(theta)
    ref = sum(wi * log_cond(F[i], Y[i], range(s, s + n), W, tau)
              for wi, i, s, n in zip(w, doc, start, length))
    assert v == pytest.approx(ref, abs=1e-9)
    eps = 1e-6
    num = np.array([(obj.value_grad(theta + eps * e, False)[0]
                     - obj.value_grad(theta - eps * e, False)[0]) / (2 * eps)
                    for e in np.eye(len(theta))])
    assert np.max(np.abs(g - num)) < 1e-6


def test_windows_of_a_component():
    F, Y = small_docs()
    data = check_documents(F, Y, 3, 4)
    doc, start, length = _component_windows(chain_components([("window", 2)])[0], data)
    # lengths 1, 2, 5, 4, 3 -> windows 1 (the whole short document), 1, 4, 3, 2
    assert np.bincount(doc).tolist() == [1, 1, 4, 3, 2]
    assert length.tolist() == [1] + [2] * 10
    assert window_cost(length, 3).tolist() == [3.0] + [15.0] * 10


def test_likelihood_sums_to_one_and_matches_enumeration():
    q, d = 2, 3
    crf = ChainCRF(q, d)
    rng = np.random.default_rng(3)
    theta = rng.normal(size=crf.n_params)
    W, tau = crf.unpack(theta)
    f = rng.normal(size=(4, d))
    seqs = [np.array(c) for c in itertools.product(range(q), repeat=4)]
    ll = crf.score_samples([f] * len(seqs), seqs, theta)
    assert np.exp(special.logsumexp(ll)) == pytest.approx(1.0, abs=1e-12)
    assert ll[5] == pytest.approx(log_cond(f, seqs[5], range(4), W, tau), abs=1e-10)


def test_viterbi_matches_enumeration():
    F, Y = small_docs(2)
    crf = ChainCRF(3, 4)
    theta = np.random.default_rng(4).normal(size=crf.n_params)
    W, tau = crf.unpack(theta)
    for f, path in zip(F, crf.predict(F, theta)):
        best = max(itertools.product(range(3), repeat=len(f)),
                   key=lambda c: joint_score(f, np.array(c), W, tau))
        assert tuple(path.tolist()) == best


# the log-space path warns of nothing: off-mask entries (copies that can be huge) are not exponentiated
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_scaled_forward_backward_equals_log_space_and_falls_back():
    rng = np.random.default_rng(5)
    U = rng.normal(size=(6, 7, 4)) * 3
    mask = np.arange(7)[None, :] < np.array([1, 7, 3, 5, 2, 7])[:, None]
    U *= mask[:, :, None]
    tau = rng.normal(size=(4, 4))
    for a, b in zip(_forward_backward(U, mask, tau), _forward_backward_log(U, mask, tau)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    tau_far = tau.copy()
    tau_far[0, 0] = 2000.0                   # scaled steps underflow: the log-space result
    for a, b in zip(_forward_backward(U, mask, tau_far), _forward_backward_log(U, mask, tau_far)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_estimators_special_cases_and_stationarity():
    F, Y = small_docs(6, lengths=(3, 4, 5, 2, 6, 3, 4))
    crf = ChainCRF(3, 4)
    a = crf.fit(F, Y, method="exact", sigma2=2.0, gtol=1e-9).coef_
    b = crf.fit(F, Y, method="scl", components=[("full",)], sigma2=2.0, gtol=1e-9).coef_
    np.testing.assert_allclose(a, b, atol=1e-6)
    c = crf.fit(F, Y, method="pl", sigma2=2.0, gtol=1e-9).coef_
    d = crf.fit(F, Y, method="scl", components=[("pl", 1, 1.0, 1.0)], sigma2=2.0,
                gtol=1e-9).coef_
    np.testing.assert_allclose(c, d, atol=1e-6)
    # stationarity of the regularised SCL objective at the estimate (all lambda = 1)
    data = check_documents(F, Y, 3, 4)
    comps = chain_components([("pl", 1, 1.0, 0.5), ("window", 2, 1.0, 2.0)])
    crf.fit(F, Y, method="scl", components=comps, sigma2=2.0, gtol=1e-9)
    wins = []
    for comp in comps:
        doc, start, length = _component_windows(comp, data)
        wins.append((doc, start, length, np.full(len(doc), comp.beta)))
    _, g = ChainObjective(data, wins, 2.0).value_grad(crf.coef_)
    assert np.max(np.abs(g)) < 1e-5 * len(Y)
    assert crf.converged_ and crf.cost_ == pytest.approx(
        np.mean([window_cost(1, 3) * len(y) + window_cost(2, 3) * max(len(y) - 1, 1)
                 for y in Y]))


def test_selection_is_random_reproducible_and_counted():
    F, Y = sentiment_documents(30, mean_sentences=4, vocabulary=20, lexicon=5, random_state=1)
    crf = ChainCRF(5, 21)
    # a few iterations suffice: the selection, its reproducibility and its cost are checked
    kw = dict(components=[("pl", 1), ("full", 0.5, 2.0)], sigma2=1.0, store_selection=True,
              maxiter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r1 = ChainStochasticCompositeLikelihood(random_state=7, **kw).fit(crf, F, Y)
        r2 = ChainStochasticCompositeLikelihood(random_state=7, **kw).fit(crf, F, Y)
        r3 = ChainStochasticCompositeLikelihood(random_state=8, **kw).fit(crf, F, Y)
    np.testing.assert_array_equal(np.asarray(r1.params), np.asarray(r2.params))
    assert not np.array_equal(r1.info["selection"][1], r3.info["selection"][1])
    n_lab = sum(len(y) for y in Y)
    assert r1.info["n_selected"][0] == n_lab
    z = r1.info["selection"][1]
    assert r1.info["n_selected"][1] == int(z.sum()) and 0 < z.sum() < 30
    lengths = np.array([len(y) for y in Y])
    expect = (window_cost(1, 5) * n_lab + np.sum(window_cost(lengths[z], 5))) / 30
    assert r1.info["cost"] == pytest.approx(expect)
    # per component: all windows of a document in or out together
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r4 = ChainStochasticCompositeLikelihood(random_state=7, selection="component",
                                                components=[("window", 2, 0.5)], maxiter=5,
                                                store_selection=True).fit(crf, F, Y)
    data = crf.observations(F, Y)
    doc, _, _ = _component_windows(chain_components([("window", 2)])[0], data)
    zz = r4.info["selection"][0]
    for i in range(30):
        assert len(set(zz[doc == i].tolist())) == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recovers_theta_from_exact_draws(seed):
    """Consistency: 600 documents drawn exactly from a known CRF; the SCL mixture
    (PL1 + FL at lambda 0.5), PL1 and the MLE without penalty land near theta (their
    sampling s.d. here is about 0.1; the tolerance 0.45 is over 4 of them)."""
    q, d = 2, 2
    crf = ChainCRF(q, d)
    W = np.array([[0.0, 0.0], [1.0, -0.5]])
    tau = np.array([[0.8, 0.0], [0.0, 0.8]])
    rng = np.random.default_rng(100 + seed)
    F = [rng.normal(size=(4, d)) for _ in range(600)]
    Y = exact_chain_sample(F, W, tau, rng)
    # identified contrasts: w1 - w0 and tau00 + tau11 - tau01 - tau10
    for method, kw in (("scl", dict(components=[("pl", 1), ("full", 0.5)])), ("pl", {}),
                       ("exact", {})):
        est = crf.fit(F, Y, method=method, sigma2=None, random_state=seed, gtol=1e-8,
                      **kw)
        Wh, th = est.unpack()
        assert np.max(np.abs((Wh[1] - Wh[0]) - (W[1] - W[0]))) < 0.45, (method, Wh)
        assert abs(th[0, 0] + th[1, 1] - th[0, 1] - th[1, 0] - 1.6) < 0.45, (method, th)


def test_sentiment_documents_sizes_and_checks():
    F, Y = sentiment_documents(20, vocabulary=200, lexicon=20, random_state=0)
    assert len(F) == len(Y) == 20
    assert all(sparse.issparse(f) and f.shape == (len(y), 201) for f, y in zip(F, Y))
    assert all(np.all(f.toarray()[:, -1] == 1) for f in F)
    words = np.mean([f[:, :-1].sum(axis=1).mean() for f in F])
    assert 10 < words < 15
    F2, Y2 = sentiment_documents(20, vocabulary=200, lexicon=20, random_state=0)
    assert all(np.array_equal(a, b) for a, b in zip(Y, Y2))
    with pytest.raises(ValueError, match="lexicon"):
        sentiment_documents(2, vocabulary=10, lexicon=20)
    with pytest.raises(ValueError, match="stay"):
        sentiment_documents(2, stay=1.0)


def test_bad_input_is_named_and_input_untouched():
    F, Y = small_docs()
    crf = ChainCRF(3, 4)
    F0 = [f.copy() for f in F]
    Y0 = [y.copy() for y in Y]
    crf.fit(F, Y, method="pl")
    assert all(np.array_equal(a, b) for a, b in zip(F, F0))
    assert all(np.array_equal(a, b) for a, b in zip(Y, Y0))
    with pytest.raises(ValueError, match="labels must lie in 0..2"):
        crf.fit(F, [y + 3 for y in Y])
    with pytest.raises(ValueError, match="feature rows but"):
        crf.fit(F, [np.append(y, 0) for y in Y])
    with pytest.raises(ValueError, match="4 columns"):
        crf.fit([f[:, :2] for f in F], Y)
    with pytest.raises(ValueError, match="one of each per document"):
        crf.fit(F, Y[:2])
    with pytest.raises(ValueError, match="flat array"):
        crf.fit(F[:1], Y[0])
    with pytest.raises(SettingsError, match="lambda must lie in"):
        crf.fit(F, Y, method="scl", components=[("full", 0.0)])
    with pytest.raises(SettingsError, match="use \\('window', 2\\)"):
        crf.fit(F, Y, method="scl", components=[("pl", 2)])
    with pytest.raises(SettingsError, match="sigma2"):
        crf.fit(F, Y, method="scl", sigma2=-1.0)
    with pytest.raises(SettingsError, match="no setting 'components'"):
        crf.fit(F, Y, method="exact", components=[("pl", 1)])
    with pytest.raises(ValueError, match="not fitted"):
        ChainCRF(3, 4).predict(F)
    with pytest.raises(ValueError, match="theta needs"):
        crf.score_samples(F, Y, theta=np.zeros(3))
    with pytest.raises(ValueError, match="n_states"):
        ChainCRF(1, 4)


def test_unpenalised_fit_on_separable_data_warns():
    F = [np.array([[1.0], [-1.0]])] * 3
    Y = [np.array([1, 0])] * 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ChainCRF(2, 1).fit(F, Y, method="pl", sigma2=None, maxiter=200)
    assert any("no finite maximum" in str(w.message) for w in caught)
