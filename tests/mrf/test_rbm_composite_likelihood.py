"""Composite likelihood of order k for the +-1 RBM (Yasuda et al.), against brute force.

The reference values enumerate the JOINT states (x, h) of the RBM directly --
p*(x, h) = exp(a.x + b.h + x'Wh), no log-cosh formula -- so they are
independent of ``RBM.log_unnorm`` / ``grad_log_unnorm`` and of the
state-space engine of ``vignettes/yasuda_rbm.py``, both of which are checked:

* L_{F_k} (eq. 5: mean over rows and over all k-subsets c of
  log p(x_c | x_-c)) and its gradient, k = 1, 2, 3, n;
* L_{F_n} = the exact log-likelihood; its gradient vs finite differences;
* Proposition 2: L_{F_1} >= L_{F_2} >= ... >= L_{F_n} = L_ML;
* eq. (10) as written: the visible-bias update averages over the blocks
  containing i, = (n / k) dL_{F_k}/da_i.

(``tests/mrf/test_models.py`` checks ``grad_log_unnorm`` by finite
differences and ``tests/mrf/test_estimators.py`` the ordering for n = 4 and
the CL_2 gradient with the model's own code; not repeated here.)
"""
import importlib.util
import itertools
import os

import numpy as np
import pytest
from scipy import special

from ergmfit.mrf.models import RBM
from support.paths import VIGNETTES

NV, NH = 5, 3
_VIG = VIGNETTES / "yasuda_rbm.py"


@pytest.fixture(scope="module")
def vignette():
    if not os.path.exists(_VIG):
        pytest.skip("vignettes/yasuda_rbm.py not present")
    spec = importlib.util.spec_from_file_location("yasuda_rbm_vignette", _VIG)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- brute force: joint enumeration of (x, h) ---------------------------------

def _joint(theta, nv, nh):
    """All joint states: X (2^nv, nv), log p*(x, h) (2^nv, 2^nh) and the joint
    sufficient statistics phi(x, h) = [x, h, vec(x h')] (2^nv, 2^nh, P)."""
    a = theta[:nv]
    b = theta[nv:nv + nh]
    W = theta[nv + nh:].reshape(nv, nh)
    X = np.array(list(itertools.product([-1.0, 1.0], repeat=nv)))
    Hs = np.array(list(itertools.product([-1.0, 1.0], repeat=nh)))
    E = np.array([[a @ x + b @ h + x @ W @ h for h in Hs] for x in X])
    phi = np.array([[np.concatenate([x, h, np.outer(x, h).ravel()]) for h in Hs] for x in X])
    return X, E, phi


def brute_cl(V, theta, k, nv=NV, nh=NH):
    """(L_{F_k}, gradient) by enumeration: for each row and each k-subset c,
    log sum_h p*(x, h) - log sum_{x'_c, h} p*(x', h) with x'_-c = x_-c, and
    gradient E[phi | x] - E[phi | x_-c] (posterior over (x_c, h))."""
    X, E, phi = _joint(theta, nv, nh)
    key = {tuple(x): s for s, x in enumerate(X)}
    subsets = list(itertools.combinations(range(nv), k))
    val, grad = 0.0, np.zeros(phi.shape[-1])
    for v in V:
        s = key[tuple(v)]
        num = special.logsumexp(E[s])
        g_num = np.exp(E[s] - num) @ phi[s]
        for c in subsets:
            rest = [i for i in range(nv) if i not in c]
            orbit = [t for t in range(len(X)) if np.all(X[t, rest] == v[rest])]
            Eo = E[orbit].ravel()
            den = special.logsumexp(Eo)
            val += num - den
            grad += g_num - np.exp(Eo - den) @ phi[orbit].reshape(len(Eo), -1)
    norm = len(V) * len(subsets)
    return val / norm, grad / norm


def brute_loglik(V, theta, nv=NV, nh=NH):
    X, E, _ = _joint(theta, nv, nh)
    key = {tuple(x): s for s, x in enumerate(X)}
    logZ = special.logsumexp(E)
    return float(np.mean([special.logsumexp(E[key[tuple(v)]]) - logZ for v in V]))


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(11)
    rbm = RBM(NV, NH)
    theta = rng.normal(0, 0.6, rbm.n_params)
    V = rng.choice([-1.0, 1.0], size=(12, NV))
    V[3] = V[0]                       # repeated rows count twice
    return rbm, theta, V


@pytest.mark.parametrize("k", [1, 2, 3, NV])
def test_rbm_composite_loglik_and_gradient_vs_brute_force(problem, k):
    rbm, theta, V = problem
    val, g = rbm.composite_loglik(V, theta, k, grad=True)
    bval, bg = brute_cl(V, theta, k)
    assert np.isclose(val, bval, rtol=1e-10, atol=1e-12)
    assert np.allclose(g, bg, rtol=1e-8, atol=1e-10)
    # 0/1 coding of the same data gives the same value
    assert np.isclose(rbm.composite_loglik((V + 1) / 2, theta, k), bval)


@pytest.mark.parametrize("k", [1, 2, 3, NV])
def test_state_space_engine_vs_brute_force(problem, vignette, k):
    _, theta, V = problem
    ss = vignette.StateSpaceRBM(NV, NH)
    Q = ss.empirical(V)
    rng = np.random.default_rng(k)
    theta2 = rng.normal(0, 0.6, theta.size)
    val, g = ss.objective(np.stack([theta, theta2]), np.stack([Q, Q]), k)
    for b, th in enumerate((theta, theta2)):
        bval, bg = brute_cl(V, th, k)
        assert np.isclose(val[b], bval, rtol=1e-10, atol=1e-12)
        assert np.allclose(g[b], bg, rtol=1e-8, atol=1e-10)
    assert np.allclose(ss.loglik(theta[None], Q[None]), brute_loglik(V, theta))


def test_cl_of_order_n_is_the_exact_loglik(problem, vignette):
    rbm, theta, V = problem
    ll = brute_loglik(V, theta)
    assert np.isclose(rbm.composite_loglik(V, theta, NV), ll, rtol=1e-12)
    assert np.isclose(rbm.loglik(V, theta), ll, rtol=1e-12)
    ss = vignette.StateSpaceRBM(NV, NH)
    assert np.isclose(ss.objective(theta, ss.empirical(V), NV)[0][0], ll, rtol=1e-12)


def test_exact_loglik_gradient_vs_finite_differences(problem, vignette):
    rbm, theta, V = problem
    _, g = rbm.composite_loglik(V, theta, NV, grad=True)
    ss = vignette.StateSpaceRBM(NV, NH)
    _, g2 = ss.objective(theta, ss.empirical(V), NV)
    h = 1e-5
    num = np.array([(brute_loglik(V, theta + h * e) - brute_loglik(V, theta - h * e)) / (2 * h)
                    for e in np.eye(theta.size)])
    assert np.allclose(g, num, atol=1e-7)
    assert np.allclose(g2[0], num, atol=1e-7)


def test_proposition_2_ordering_on_random_parameters(vignette):
    rng = np.random.default_rng(3)
    ss = vignette.StateSpaceRBM(NV, NH)
    for trial in range(4):
        theta = rng.normal(0, 1.0, ss.n_params)
        V = rng.choice([-1.0, 1.0], size=(15, NV))
        cl = [brute_cl(V, theta, k)[0] for k in range(1, NV + 1)]
        assert all(cl[k] <= cl[k - 1] + 1e-12 for k in range(1, NV)), cl
        assert cl[0] - cl[-1] > 1e-3                  # strict somewhere: not vacuous
        assert np.isclose(cl[-1], brute_loglik(V, theta))
        Q = ss.empirical(V)
        eng = [ss.objective(theta, Q, k)[0][0] for k in range(1, NV + 1)]
        assert np.allclose(eng, cl, rtol=1e-10)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_eq10_alpha_rule(problem, vignette, k):
    """Eq. (10): <x_i>_D - |F_k(i)|^-1 sum_{c ∋ i} <x_i>_c, by enumeration."""
    _, theta, V = problem
    X, E, _ = _joint(theta, NV, NH)
    Lx = special.logsumexp(E, axis=1)                 # log p*(x), hidden summed
    blocks = list(itertools.combinations(range(NV), k))
    want = np.zeros(NV)
    for i in range(NV):
        Fi = [c for c in blocks if i in c]
        acc = 0.0
        for c in Fi:
            rest = [j for j in range(NV) if j not in c]
            for v in V:
                orbit = [t for t in range(len(X)) if np.all(X[t, rest] == v[rest])]
                p = np.exp(Lx[orbit] - special.logsumexp(Lx[orbit]))
                acc += p @ X[orbit, i]
        want[i] = V[:, i].mean() - acc / (len(Fi) * len(V))
    ss = vignette.StateSpaceRBM(NV, NH)
    _, g = ss.objective(theta, ss.empirical(V), k, alpha_rule="eq10")
    assert np.allclose(g[0, :NV], want, atol=1e-12)
    _, g_exact = ss.objective(theta, ss.empirical(V), k)
    assert np.allclose(g_exact[0, :NV] * NV / k, want, atol=1e-12)
    assert np.allclose(g[0, NV:], g_exact[0, NV:])


def test_gradient_ascent_increases_objective_and_is_deterministic(vignette):
    ss = vignette.StateSpaceRBM(NV, NH)
    rng = np.random.default_rng(0)
    Q = ss.empirical(rng.choice([-1.0, 1.0], size=(30, NV)))[None].repeat(2, 0)
    th0 = 0.1 * rng.standard_normal((2, ss.n_params))
    for k in (1, 2, NV):
        th, tr = vignette.gradient_ascent(ss, th0, Q, k, 200, 0.1, "exact", trace_at=(0, 200))
        assert np.all(tr[1][1] > tr[0][1])
        th2, _ = vignette.gradient_ascent(ss, th0, Q, k, 200, 0.1, "exact")
        assert np.array_equal(th, th2)
    with pytest.raises(ValueError):
        ss.objective(th0, Q, 0)
    with pytest.raises(ValueError):
        ss.objective(th0, Q, 1, alpha_rule="bogus")
