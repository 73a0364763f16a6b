"""Estimators as objects; the model's sample space and parameterisation (issue #16)."""
import inspect

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.estimation import fit as fit_by_name
from ergmfit.estimation import make_estimator, methods
from ergmfit.estimation.base import Estimator, Setting, integer
from ergmfit.exceptions import SettingsError
from ergmfit.sampling.space import AllDyads
from ergmfit.terms.parameterisation import Identity, Parameterisation


@pytest.fixture(scope="module")
def flo():
    return ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle")


@pytest.mark.parametrize("method", ["mple", "cd", "bcd", "mcle"])
def test_every_estimator_is_an_object_with_declared_settings(method):
    est = make_estimator(method)
    assert isinstance(est, Estimator) and est.method == method
    names = type(est).setting_names()
    assert len(names) == len(set(names)) and {"random_state", "verbose"} <= set(names)
    # the constructor's signature is the settings table
    assert list(inspect.signature(type(est)).parameters) == names
    assert est.get_params() == {s.name: s.default for s in type(est).settings_table()}
    with pytest.raises(SettingsError, match=f"method '{method}' has no setting 'bogus'; "
                                            "its settings are: .*random_state"):
        make_estimator(method, bogus=1)


def test_out_of_range_settings_are_refused_when_built():
    with pytest.raises(SettingsError, match="'maxiter' must be >= 1, got 0"):
        make_estimator("mple", maxiter=0)
    with pytest.raises(SettingsError, match="'nsteps' must be an integer"):
        make_estimator("cd", nsteps="eight")
    with pytest.raises(SettingsError, match="'average' must be a finite number in \\[0, 1\\)"):
        make_estimator("bcd", average=1.0)
    with pytest.raises(SettingsError, match="unknown method 'mlee'"):
        make_estimator("mlee")          # ("mle" is statnet's name of mcmle)
    # old spellings of the errors still work for callers catching them
    with pytest.raises(ValueError):
        make_estimator("mple", cov="sandwich")
    with pytest.raises(TypeError):
        make_estimator("mple", no_such=1)


def test_get_set_params_and_repr():
    est = make_estimator("mple", cov="godambe", n_sim=50)
    assert repr(est) == "MPLE(cov='godambe', n_sim=50)"
    assert est.set_params(n_sim=60) is est and est.n_sim == 60
    with pytest.raises(SettingsError):
        est.set_params(n_sim=1)
    clone = type(est)(**est.get_params())
    assert clone.get_params() == est.get_params()


def test_fit_by_name_equals_the_object(flo):
    a = flo.fit(method="cd", random_state=3, maxit=5, nsteps=2)
    b = make_estimator("cd", random_state=3, maxit=5, nsteps=2).fit(flo)
    c = fit_by_name(flo, "cd", random_state=3, maxit=5, nsteps=2)
    assert np.array_equal(np.asarray(a.params), np.asarray(b.params))
    assert np.array_equal(np.asarray(b.params), np.asarray(c.params))


def test_a_subclass_declares_its_settings_once():
    class Dummy(Estimator):
        """A dummy."""
        method = "dummy"
        SETTINGS = (Setting("k", 3, integer(1), "a count"),)

        def fit(self, model):
            return self.k

    assert Dummy().fit(None) == 3 and Dummy(k=5).k == 5
    assert "k : default 3" in Dummy.__doc__
    with pytest.raises(TypeError, match="declared twice"):
        class Twice(Estimator):
            SETTINGS = (Setting("k", 1), Setting("k", 2))


def test_methods_are_listed():
    assert {"mple", "mcmle", "cd", "ee", "bcd", "mcle"} <= set(methods())


def test_model_owns_its_sample_space(flo):
    space = flo.sample_space
    assert isinstance(space, AllDyads) and space.free_dyads() is None
    assert space.n_free == flo.network.n_dyads == 120
    assert space.resolve_proposal("auto", flo) == "lifted-triadic"
    assert ef.ERGM(nx.path_graph(5), "edges").sample_space.resolve_proposal("auto") \
        == "lifted-tnt"
    with pytest.raises(SettingsError, match="proposal must be one of"):
        flo.simulate([-1.0, 0.0], n=1, proposal="gibbs")


class _Doubled(Identity):
    """η = 2θ: a non-identity map, to check that samplers get η(θ)."""
    linear = False

    def eta(self, theta):
        return 2.0 * super().eta(theta)

    def jacobian(self, theta):
        return 2.0 * np.eye(self.n_params)

    score = Parameterisation.score            # the general forms, through the Jacobian
    information = Parameterisation.information


def test_simulate_and_gof_run_on_eta():
    g = ef.datasets.load("flomarriage")
    plain = ef.ERGM(g, "edges + triangle")
    doubled = ef.ERGM(g, "edges + triangle")
    doubled.parameterisation = _Doubled(doubled.labels)
    theta = np.array([-0.8, 0.1])
    a = doubled.simulate(theta, n=20, output="stats", random_state=5)
    b = plain.simulate(2 * theta, n=20, output="stats", random_state=5)
    assert np.array_equal(a, b)
    ga = ef.gof.gof(doubled, theta, n_sim=5, random_state=1, statistics=["model"])
    gb = ef.gof.gof(plain, 2 * theta, n_sim=5, random_state=1, statistics=["model"])
    assert np.array_equal(ga.blocks["model"].sim, gb.blocks["model"].sim)
    assert ga.params == {"edges": -0.8, "triangle": 0.1}
    assert doubled.parameterisation.information(theta, np.eye(2)).tolist() == [[4, 0], [0, 4]]


def test_identity_map():
    par = Identity(["a", "b"])
    assert par.linear and par.n_params == par.n_stats == 2
    with pytest.raises(ValueError, match="2 value"):
        par.eta([1.0])
    z = np.array([[1.0, 2.0]])
    assert np.array_equal(par.score(np.zeros(2), z), z)
