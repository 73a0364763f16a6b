"""The table of estimators: the name ``ERGM.fit(method=...)`` knows each by and
the ``"module:Class"`` it is loaded from (on first use)."""
from __future__ import annotations

import importlib

from ..exceptions import SettingsError
from .base import Estimator

_ESTIMATORS = {
    "mple": "ergmfit.estimation.mple.pseudolikelihood:MPLE",
    "mcmle": "ergmfit.estimation.mcmle.estimator:MCMLE",
    "bcd": "ergmfit.estimation.contrastive.bcd:BCD",
    "mcle": "ergmfit.estimation.contrastive.mcle:MCLE",
    "cd": "ergmfit.estimation.contrastive.cd:CD",
    "ee": "ergmfit.estimation.ee.estimator:EE",
    "bayes": "ergmfit.estimation.bayes.exchange:Bayes",
    "bayes-pl": "ergmfit.estimation.bayes.pseudo_posterior:BayesPL",
    "sa": "ergmfit.estimation.sa.robbins_monro:SA",
    "egmme": "ergmfit.estimation.egmme.estimator:EGMME",
}
#: what a plain registered function ``f(model, **settings)`` is taken to support
FUNCTION_SUPPORTS = {"curved": True}


def methods() -> list:
    """Names of the available estimators."""
    return sorted(_ESTIMATORS)


def register(name: str, target) -> None:
    """Make ``ERGM.fit(method=name)`` use ``target``: an :class:`Estimator`
    subclass, a ``"module:Class"`` string, or a function ``f(model, **settings)``."""
    _ESTIMATORS[str(name).lower()] = target


def estimator_class(method: str):
    """The estimator class (or registered function) called ``method``."""
    key = str(method).lower()
    if key not in _ESTIMATORS:
        raise SettingsError(f"unknown method {method!r}; the methods are: "
                            + ", ".join(repr(m) for m in methods()))
    target = _ESTIMATORS[key]
    if isinstance(target, str):
        mod, name = target.split(":")
        target = getattr(importlib.import_module(mod), name)
    return target


def supports(method: str) -> dict:
    """What the estimator called ``method`` fits (its ``supports`` declaration)."""
    cls = estimator_class(method)
    return getattr(cls, "supports", FUNCTION_SUPPORTS)


def methods_supporting(feature: str) -> list:
    """Names of the estimators that declare ``feature`` (e.g. ``"curved"``)."""
    out = []
    for m in methods():
        try:
            ok = supports(m).get(feature, False)
        except (SettingsError, ImportError, AttributeError):   # a broken registration
            continue
        if ok:
            out.append(m)
    return out


def make_estimator(method: str, **settings):
    """The estimator called ``method`` built with ``settings`` (validated;
    statnet's method and ``control.ergm`` names understood, see :mod:`ergmfit.statnet`)."""
    from ..statnet import resolve_method, translate_settings
    method = resolve_method(method)
    cls = estimator_class(method)
    if isinstance(cls, type) and issubclass(cls, Estimator):
        return cls(**translate_settings(method, settings, cls.setting_names()))
    return _FunctionEstimator(cls, method, settings)


class _FunctionEstimator:
    """A registered plain function ``f(model, **settings)`` (no settings table)."""

    def __init__(self, func, method, settings):
        self.func, self.method, self.settings = func, method, dict(settings)

    def fit(self, model):
        return self.func(model, **self.settings)

    def get_params(self, deep=True):
        return dict(self.settings)
