"""The MRF models follow scikit-learn's estimator protocol (issue #22 item 6):
constructor parameters kept unchanged (get_params / set_params / clone),
``score``, ``RBM.transform`` (hidden-unit probabilities), and draws in the
coding of the data of the fit -- with scikit-learn and without it."""
import itertools
import os
import subprocess
import tempfile
import sys
import textwrap

import numpy as np
import pytest

import ergmfit
from ergmfit.mrf import RBM, BoltzmannMachine, GridCRF, IsingModel, PottsModel
from ergmfit.mrf._base import ParamsMixin

PATH3 = (3, [(0, 1), (1, 2)])


def models():
    return [RBM(8, 2, random_state=3),
            IsingModel(PATH3, coding="01", tied=(True, False), random_state=1),
            BoltzmannMachine(4, higher_order=[(0, 1, 2)], coding="pm1"),
            GridCRF((3, 4)),
            PottsModel(PATH3, q=3, tied=False)]


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_sklearn_clone(model):
    base = pytest.importorskip("sklearn.base")
    assert isinstance(model, base.BaseEstimator)
    c = base.clone(model)
    assert type(c) is type(model) and c is not model
    p, q = model.get_params(), c.get_params()
    assert p.keys() == q.keys() and all(p[k] == q[k] for k in p)    # clone deep-copies
    assert getattr(c, "labels", None) == getattr(model, "labels", None)


def test_rbm_clone_refits_identically():
    base = pytest.importorskip("sklearn.base")
    V = np.random.default_rng(0).integers(0, 2, (40, 4))
    a = RBM(4, 2, random_state=5).fit(V, method="pl")
    b = base.clone(a)
    assert not hasattr(b, "coef_")                       # a clone is not fitted
    np.testing.assert_array_equal(b.fit(V, method="pl").coef_, a.coef_)


def test_params_are_the_constructor_arguments_unchanged():
    tied = (True, False)
    m = IsingModel(PATH3, coding="01", tied=tied)
    assert m.get_params()["tied"] is tied and m.get_params()["graph"] is PATH3
    assert m.labels == ["field", "coupling0.1", "coupling1.2"]
    assert GridCRF((3, 4)).get_params()["edge_features"] is None
    assert sorted(RBM(8, 2).get_params()) == ["n_hidden", "n_visible", "random_state", "verbose"]


def test_set_params_rebuilds_and_drops_the_fit():
    X = np.random.default_rng(1).integers(0, 2, (200, 3))
    m = IsingModel(PATH3).fit(X, method="pl")
    assert m.coef_.shape == (2,)
    assert m.set_params(tied=False) is m
    assert m.labels == ["field0", "field1", "field2", "coupling0.1", "coupling1.2"]
    assert not hasattr(m, "coef_")
    assert m.fit(X, method="pl").coef_.shape == (5,)
    r = RBM(3, 2).set_params(n_hidden=4)
    assert r.n_params == 3 + 4 + 12
    with pytest.raises(ValueError, match="(?i)invalid parameter 'n_hiden'"):
        RBM(3, 2).set_params(n_hiden=4)
    with pytest.raises(ValueError, match="n_hidden must be an integer"):
        RBM(3, 2.5)


def rbm_problem():
    rng = np.random.default_rng(7)
    r = RBM(4, 2, random_state=0)
    theta = 0.6 * rng.standard_normal(r.n_params)
    V01 = rng.integers(0, 2, (30, 4))
    return r, theta, V01


def test_rbm_score_and_transform_against_brute_force():
    r, theta, V01 = rbm_problem()
    a, b, W = r.unpack(theta)
    S = 2.0 * V01 - 1.0
    # brute force over all (v, h): log p(v) and P(h_j = +1 | v)
    states_v = np.array(list(itertools.product([-1.0, 1.0], repeat=4)))
    states_h = np.array(list(itertools.product([-1.0, 1.0], repeat=2)))
    energy = lambda v, h: a @ v + b @ h + v @ W @ h      # noqa: E731
    logZ = np.log(sum(np.exp(energy(v, h)) for v in states_v for h in states_h))
    logp = [np.log(sum(np.exp(energy(v, h)) for h in states_h)) - logZ for v in S]
    assert np.isclose(r.score(V01, theta=theta), np.mean(logp))
    assert np.isclose(r.score(S, theta=theta), np.mean(logp))            # either coding
    ph = []
    for v in S:
        w = np.array([np.exp(energy(v, h)) for h in states_h])
        ph.append([(w * (states_h[:, j] > 0)).sum() / w.sum() for j in range(2)])
    np.testing.assert_allclose(r.transform(V01, theta=theta), ph)
    r.coef_ = theta
    assert r.transform(S).shape == (30, 2)
    with pytest.raises(ValueError, match="4 columns"):
        r.transform(V01[:, :3])


def test_samples_in_the_coding_of_the_fit():
    r, theta, V01 = rbm_problem()
    r.fit(V01, method="pl")
    assert r.data_coding_ == "01" and set(np.unique(r.sample(50, random_state=0))) <= {0, 1}
    r.fit(2 * V01 - 1, method="pl")
    assert set(np.unique(r.sample(50, random_state=0))) == {-1, 1}
    assert set(np.unique(r.sample(50, random_state=0, coding="01"))) == {0, 1}
    assert set(np.unique(RBM(4, 2).sample(50, theta, random_state=0))) == {-1, 1}  # unfitted
    # the linear MRFs likewise
    X = np.random.default_rng(2).integers(0, 2, (100, 3))
    m = IsingModel(PATH3).fit(X, method="pl")
    assert set(np.unique(m.sample(40, random_state=1))) == {0, 1}
    m.fit(2 * X - 1, method="pl")
    draws = m.sample(40, random_state=1)
    assert set(np.unique(draws)) == {-1, 1}
    np.testing.assert_array_equal(draws, 2 * m.sample(40, random_state=1, coding="01").astype(int) - 1)
    assert np.isfinite(m.score(draws))


def test_params_mixin_alone():
    class Est(ParamsMixin):
        def __init__(self, k=1, inner=None):
            self.k, self.inner = k, inner

    e = Est(k=3, inner=Est(k=4))
    assert e.get_params(deep=False) == {"inner": e.inner, "k": 3}
    assert e.get_params()["inner__k"] == 4
    e.set_params(inner__k=5, k=6)
    assert e.k == 6 and e.inner.k == 5
    assert repr(Est(k=2)) == "Est(k=2)"
    with pytest.raises(ValueError, match="invalid parameter"):
        e.set_params(j=1)


def test_without_sklearn_the_local_mixin_serves():
    """In a process where scikit-learn cannot be imported the models fall back
    on ParamsMixin, with the same get_params / set_params / clone by hand."""
    code = textwrap.dedent("""
        import sys
        sys.modules["sklearn"] = None          # import sklearn -> ImportError
        import numpy as np
        from ergmfit.mrf import RBM, IsingModel, _base
        assert not _base.HAVE_SKLEARN and RBM.__mro__[2] is _base.ParamsMixin
        r = RBM(8, 2, random_state=1)
        c = type(r)(**r.get_params())
        assert c.get_params() == r.get_params() and repr(c) == "RBM(n_hidden=2, n_visible=8, random_state=1)"
        m = IsingModel((3, [(0, 1)]), tied=False).set_params(tied=True)
        assert m.labels == ["field", "coupling"], m.labels
        V = np.random.default_rng(0).integers(0, 2, (30, 8))
        r.fit(V, method="pl")
        assert r.sample(5, random_state=0).min() == 0 and r.transform(V).shape == (30, 2)
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ergmfit.__file__)))
    # cwd outside the checkout: `python -c` puts the cwd first on sys.path, and the
    # checkout's sources are not built when the tests run against an installed package
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120, cwd=tempfile.gettempdir())
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
