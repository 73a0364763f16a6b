"""Estimators: classes with their settings as constructor parameters.

``MPLE``, ``MCMLE``, ``CD``, ``EE``, ``BCD`` and ``MCLE`` each declare their
settings once (see :mod:`ergmfit.estimation.base`) and ``fit(model)``
returns an :class:`~ergmfit.results.ERGMResults`.  ``fit(model, method,
**settings)`` (what ``ERGM.fit`` calls) builds the estimator named
``method`` with ``settings`` -- checked when it is built: an unknown
setting names the valid ones -- and fits.

Examples
--------
>>> import ergmfit as ef
>>> from ergmfit.estimation import MPLE
>>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
>>> round(float(MPLE().fit(m).params["edges"]), 4)
-1.6094
"""
from __future__ import annotations

from .base import Estimator, Setting
from .registry import (estimator_class, make_estimator, methods, methods_supporting,  # noqa: F401
                       register, supports)

_CLASSES = {"MPLE": "mple", "MCMLE": "mcmle", "CD": "cd", "EE": "ee", "BCD": "bcd",
            "MCLE": "mcle"}


def get_estimator(method: str):
    """The estimator class (or registered function) called ``method``."""
    return estimator_class(method)


def fit(model, method: str = "mple", **settings):
    """Fit ``model`` with the estimator called ``method`` built with ``settings``."""
    from ..runtime import lost_interrupts
    with lost_interrupts():     # a Ctrl-C lost in a finalizer during the set-up is raised
        return make_estimator(method, **settings).fit(model)   # at the first loop's check


def __getattr__(name):
    # the classes load their modules on first use (MCMC-MLE pulls in scipy.optimize, ...)
    if name in _CLASSES:
        return estimator_class(_CLASSES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["fit", "methods", "methods_supporting", "supports", "register", "get_estimator", "make_estimator", "Estimator",
           "Setting"] + list(_CLASSES)
