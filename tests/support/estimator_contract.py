"""The settings checks of the estimator contract, shared by the ERGM estimators'
(``tests/contracts/test_estimators.py``) and the MRF estimators'
(``tests/contracts/test_mrf_estimators.py``) generated tests: each takes an
estimator class (and what the test file knows of it) and asserts."""
import inspect

import pytest

from ergmfit.exceptions import SettingsError

#: settings of a fit of flomarriage ``edges + triangle`` in well under a second, by method (the
#: contract's small fits; also the cheap settings of the estimators' nobs test)
SMALL = {
    "mple": {},
    "mcmle": dict(maxit=2, samplesize=256, interval=256, burnin=2048, eval_loglik=False),
    "cd": dict(maxit=5, nsteps=2),
    "bcd": dict(n_iter=100),
    "mcle": dict(blocks="random", n_blocks=200, cov="naive"),
    "ee": dict(ee_steps=10, ee_inner_steps=20, sampler_steps=300, s_steps=20, se_samplesize=100),
    "bayes": dict(burnin=5, main_iters=20, aux_iters=300, n_chains=2),
    "bayes-pl": dict(burnin=50, main_iters=200, n_chains=2, mcmle=dict(maxit=2, samplesize=256)),
    "sa": dict(burnin=512, interval=256, phase1=10, n_subphases=2, phase2_min=5, phase3=50),
    "egmme": dict(proposals=256, burnin=5, steps=30, n_iter=2, n_average=1, final_steps=30,
                  fd_steps=20),
}


class NotASetting:
    """A value no setting accepts."""

    def __repr__(self):
        return "<not a setting>"


def check_settings_table_is_the_signature(cls):
    """The settings table is the constructor's keyword-only signature (same names and
    defaults, random_state and verbose among them); defaults are not shown by repr; each
    setting is documented in the class docstring."""
    table = cls.settings_table()
    params = inspect.signature(cls).parameters
    assert list(params) == [s.name for s in table]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    assert [p.default for p in params.values()] == [s.default for s in table]
    assert {"random_state", "verbose"} <= set(params)
    assert repr(cls()) == f"{cls.__name__}()"
    for s in table:
        assert f"{s.name} : default" in cls.__doc__


def check_default_passes_its_own_check(cls, name):
    s = {s.name: s for s in cls.settings_table()}[name]
    assert s.validate(s.default) == s.default or s.default is None


def check_get_params_set_params_round_trip(cls, settings):
    """get_params/set_params round trip from an estimator built with ``settings``."""
    est = cls(random_state=5, **settings)
    params = est.get_params()
    assert list(params) == cls.setting_names()
    assert cls(**params).get_params() == params        # a clone has the same settings
    fresh = cls()
    assert fresh.set_params(**params) is fresh and fresh.get_params() == params
    for name, value in params.items():                 # setting a value again changes nothing
        fresh.set_params(**{name: value})
    assert fresh.get_params() == params


def check_a_bad_value_is_refused(cls, name):
    """A bad value of the typed setting ``name`` is refused naming it, when the
    estimator is built and by set_params (which then keeps the old value)."""
    for bad in (NotASetting(), float("nan")):
        with pytest.raises(SettingsError, match=repr(name)):
            cls(**{name: bad})
        est = cls()
        before = est.get_params()[name]
        with pytest.raises(SettingsError, match=repr(name)):
            est.set_params(**{name: bad})
        assert est.get_params()[name] is before or est.get_params()[name] == before


def check_an_unknown_setting_names_the_valid_ones(make, cls):
    """``make(**settings)`` (a registry's or a method table's constructor) refuses an
    unknown setting naming every valid one; so does set_params."""
    with pytest.raises(SettingsError, match="no setting 'bogus'") as err:
        make(bogus=1)
    for name in cls.setting_names():
        assert name in str(err.value)
    with pytest.raises(SettingsError, match="no setting 'bogus'"):
        make().set_params(bogus=1)
