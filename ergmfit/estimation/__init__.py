"""Estimators.  ``fit(model, method, **kwargs)`` dispatches by name.

Each estimator is a function ``f(model, **kwargs) -> ERGMResults`` named in
``_ESTIMATORS`` as ``"module:function"`` (imported on first use).  To add
one (e.g. "mcmle", "cd", "ee", "bcd", "mcle"), add its entry here.
"""
from __future__ import annotations

import importlib

_ESTIMATORS = {
    "mple": "ergmfit.estimation.mple:fit_mple",
    "mcmle": "ergmfit.estimation.mcmle:fit_mcmle",
    "bcd": "ergmfit.estimation.bcd:fit_bcd",
    "mcle": "ergmfit.estimation.mcle:fit_mcle",
    "cd": "ergmfit.estimation.cd:fit_cd",
    "ee": "ergmfit.estimation.ee:fit_ee",
}


def methods() -> list:
    """Names of the available estimators."""
    return sorted(_ESTIMATORS)


def register(name: str, target) -> None:
    """Make ``fit(model, name)`` call ``target`` (a callable or ``"module:function"``)."""
    _ESTIMATORS[str(name).lower()] = target


def get_estimator(method: str):
    key = str(method).lower()
    if key not in _ESTIMATORS:
        raise ValueError(f"unknown method {method!r}; the methods are: "
                         + ", ".join(repr(m) for m in methods()))
    target = _ESTIMATORS[key]
    if isinstance(target, str):
        mod, func = target.split(":")
        target = getattr(importlib.import_module(mod), func)
    return target


def fit(model, method: str = "mple", **kwargs):
    """Fit ``model`` with the estimator called ``method``; keyword
    arguments go to the estimator (see e.g. :class:`ergmfit.estimation.mple.MPLE`)."""
    estimator = get_estimator(method)
    try:
        return estimator(model, **kwargs)
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        bad = str(exc).split("argument")[-1].strip()
        raise ValueError(f"method {method!r} has no setting {bad}; its settings are: "
                         + ", ".join(_settings(estimator))) from None


def _settings(estimator):
    import inspect
    import sys
    names = []
    # fit_X(model, **kwargs) hands its settings to X's class or core function
    module = sys.modules.get(getattr(estimator, "__module__", ""), None)
    core = [obj for key, obj in vars(module).items()
            if callable(obj) and (key.endswith("_core") or key in ("MPLE", "BCD", "MCLE"))] \
        if module is not None else []
    targets = [estimator] + core
    for target in targets:
        try:
            sig = inspect.signature(target)
        except (TypeError, ValueError):
            continue
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                continue
            if p.kind is p.VAR_POSITIONAL:
                continue
            if p.name not in ("model", "self") and p.name not in names:
                names.append(p.name)
    return names or ["(see the estimator's documentation)"]


__all__ = ["fit", "methods", "register", "get_estimator"]
