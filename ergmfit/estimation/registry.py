"""The table of estimators: the name ``ERGM.fit(method=...)`` knows each by and
the ``"module:Class"`` it is loaded from (on first use)."""
from __future__ import annotations

import importlib

from ..exceptions import FormulaError, SettingsError
from .base import Estimator, curved_refusal, set_support_check

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


#: what a refusal adds after a method that fits missing dyads in its own way
_MISSING_NOTES = {"mcmle": "the observed-data likelihood, as statnet",
                  "mple": "which leaves the missing dyads out"}


def _methods_phrase(feature, family, notes=None, joiner="or"):
    """``"method='a', 'b' or 'c'"``: the estimators whose ``supports`` declare ``feature``
    and the model family ``family`` (a refusal's advice, read off the declarations so that it
    cannot drift from them), each with its note from ``notes``."""
    names = [m for m in methods_supporting(feature)
             if family in supports(m).get("families", frozenset({"binary"}))]
    if not names:
        return "no estimator (none declares it for this model family yet)"
    words = [repr(m) + (f" ({notes[m]})" if notes and m in notes else "") for m in names]
    listed = words[0] if len(words) == 1 else (", ".join(words[:-1]) + f" {joiner} " + words[-1])
    return "method=" + listed


def check_supports(declared, method, model, note=None, features=None):
    """Raise, naming the problem, unless the estimator called ``method``, whose
    ``supports`` declaration (:attr:`~ergmfit.estimation.base.Estimator.supports`) is
    ``declared``, fits ``model``: its family (``model.family``, and the family's own
    ``check_fit``), then what the model says it needs of an estimator
    (``model.fit_features()``: constraints, missing dyads, target statistics and both
    together, curved terms, parallel tempering).  ``ERGM.fit`` and every estimator
    object's ``fit`` run this one check.

    A model that declares no ``fit_features`` (an MRF of :mod:`ergmfit.mrf`, whose methods
    check their variables' family themselves) is not checked.

    Parameters
    ----------
    declared : dict
        The estimator's ``supports`` declaration.
    method : str
        The estimator's name (in the messages).
    model : ERGM or another model
    note : str, optional
        The estimator's ``curved_refusal_note`` (see
        :func:`~ergmfit.estimation.base.curved_refusal`).
    features : iterable of str, optional
        Check only these (``"families"`` and keys of ``declared``); None: all.

    Examples
    --------
    >>> import ergmfit as ef
    >>> g = ef.datasets.load("flomarriage")
    >>> a, b = list(g.nodes)[:2]
    >>> m = ef.ERGM(g, "edges", missing=[(a, b)])
    >>> check_supports(supports("mple"), "mple", m)          # fits missing dyads
    >>> check_supports(supports("bcd"), "bcd", m)
    Traceback (most recent call last):
    ...
    ergmfit.exceptions.FormulaError: method='bcd' with missing dyads is not implemented; \
use method='bayes', 'cd', 'ee', 'mcmle' (the observed-data likelihood, as statnet) \
or 'mple' (which leaves the missing dyads out)
    """
    needs = getattr(model, "fit_features", None)
    if needs is None:
        return
    wanted = set(needs())
    if features is not None:
        wanted &= set(features)
    if features is None or "families" in features:
        family = model.family
        families = declared.get("families", frozenset({"binary"}))
        if family.name not in families:
            ref = family.reference
            able = ", ".join(repr(m) for m in methods_supporting("families")
                             if family.name in supports(m).get("families", ()))
            raise SettingsError(
                f"method={method!r} does not fit this model (family {family.name!r}"
                + (f", reference {ref.label}" if ref is not None else "")
                + f"): its supports declaration lists the families {sorted(families)}; "
                + (f"methods for this family: {able}" if able else
                   "no estimator fits this family yet (statistics() and simulate() work)"))
        family.check_fit(model)     # e.g. a count statistic constant on the reference
    family_name = model.family.name        # every model with fit_features declares one
    if "constraints" in wanted and not declared.get("constraints"):
        raise FormulaError(f"method={method!r} under constraints is not implemented; use "
                           + _methods_phrase("constraints", family_name))
    if "missing" in wanted and not declared.get("missing"):
        raise FormulaError(f"method={method!r} with missing dyads is not implemented; use "
                           + _methods_phrase("missing", family_name, _MISSING_NOTES))
    if "missing+target_stats" in wanted and not declared.get("missing+target_stats"):
        raise FormulaError("missing dyads together with target_stats are implemented for "
                           + _methods_phrase("missing+target_stats", family_name, joiner="and")
                           + " only")
    if "target_stats" in wanted and not declared.get("target_stats"):
        raise FormulaError("target_stats is implemented for "
                           + _methods_phrase("target_stats", family_name, joiner="and")
                           + f", not {method!r}")
    if "curved" in wanted and not declared.get("curved"):
        able = ", ".join(repr(m) for m in methods_supporting("curved"))
        raise SettingsError(curved_refusal(method, model, able, note))
    if "tempering" in wanted and not declared.get("tempering"):
        able = ", ".join(repr(m) for m in methods_supporting("tempering"))
        raise SettingsError(f"method={method!r} does not draw its chains through the "
                            f"parallel-tempered sampler (tempering); methods that do: {able}. "
                            "Fit without tempering (simulate and gof take it)")


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

    @property
    def supports(self):
        return getattr(self.func, "supports", FUNCTION_SUPPORTS)

    @property
    def curved_refusal_note(self):
        return getattr(self.func, "curved_refusal_note", None)

    def fit(self, model):
        return self.func(model, **self.settings)

    def get_params(self, deep=True):
        return dict(self.settings)

    given_params = get_params

    def with_settings(self, **settings):
        """A copy with ``settings`` changed (this one is left as it is)."""
        return _FunctionEstimator(self.func, self.method, {**self.settings, **settings})


set_support_check(check_supports)     # every estimator object's fit runs it (base)
