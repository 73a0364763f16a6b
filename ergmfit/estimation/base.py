"""Estimators as objects, in scikit-learn's manner.

Every estimator is a class whose settings are declared once, in its
``SETTINGS`` table: a name, a default, a check and one line of
documentation.  From that table the class gets

* its constructor: ``MCMLE(maxit=30, samplesize=2048)`` (the signature that
  ``help()`` and IDEs show is generated from the table);
* validation when it is built: an unknown setting names the valid ones, a
  value out of range says which range is valid (:class:`SettingsError`);
* ``get_params()`` / ``set_params()`` (scikit-learn's protocol) and a
  ``repr`` that shows the settings that differ from their defaults;
* the "Settings" section of its docstring.

``fit(model)`` returns a results object.  :func:`make_estimator` builds an
estimator from a method name and keyword settings; ``ERGM.fit(method=...,
**settings)`` and the command line's ``--set KEY=VALUE`` go through it.

Examples
--------
>>> from ergmfit.estimation import MPLE, make_estimator
>>> MPLE(cov="godambe", n_sim=200)
MPLE(cov='godambe', n_sim=200)
>>> make_estimator("mple", maxiter=50).maxiter
50
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import numbers
import operator

import numpy as np

from ..exceptions import SettingsError
from ..runtime.interrupts import stops_when_interrupted
from ..utils.validation import warns_at_callers_line

_MISSING = object()


class Setting:
    """One estimator setting: its name, default, check and documentation.

    ``check(name, value)`` returns the value to store (normalised, e.g. an
    int) or raises :class:`SettingsError`; ``None`` accepts anything.
    """

    __slots__ = ("name", "default", "check", "doc")

    def __init__(self, name, default, check=None, doc=""):
        self.name = name
        self.default = default
        self.check = check
        self.doc = doc

    def validate(self, value):
        return value if self.check is None else self.check(self.name, value)

    def __repr__(self):
        return f"Setting({self.name!r}, {self.default!r})"


# -- checks ----------------------------------------------------------------
def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def integer(lo=None, hi=None, allow_none=False):
    """A check for an integer setting in [lo, hi] (floats with an integral value pass)."""
    def check(name, value):
        if value is None and allow_none:
            return None
        if isinstance(value, float) and np.isfinite(value) and value == int(value):
            value = int(value)
        if not _is_int(value):
            raise SettingsError(f"setting {name!r} must be an integer"
                                + (" or None" if allow_none else "") + f", got {value!r}")
        value = operator.index(value)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise SettingsError(f"setting {name!r} must be {_range_text(lo, hi)}, got {value}")
        return int(value)
    return check


def auto_or(check, what):
    """A check that takes ``"auto"`` (any case) or whatever ``check`` takes; a bad value's
    error says "must be <what> or 'auto'"."""
    def checked(name, value):
        if isinstance(value, str) and value.lower() == "auto":
            return "auto"
        try:
            return check(name, value)
        except SettingsError:
            raise SettingsError(f"setting {name!r} must be {what} or 'auto', "
                                f"got {value!r}") from None
    return checked


def number(lo=None, hi=None, lo_open=False, hi_open=False, allow_none=False, allow_inf=False):
    """A check for a finite real setting in [lo, hi] (or the open ends asked
    for; +inf too with ``allow_inf``)."""
    def check(name, value):
        if value is None and allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise SettingsError(f"setting {name!r} must be a number"
                                + (" or None" if allow_none else "") + f", got {value!r}")
        value = float(value)
        bad = (np.isnan(value) or (np.isinf(value) and not (allow_inf and value > 0))
               or (lo is not None and (value < lo or (lo_open and value == lo)))
               or (hi is not None and (value > hi or (hi_open and value == hi))))
        if bad:
            raise SettingsError(f"setting {name!r} must be a {'' if allow_inf else 'finite '}number "
                                f"{_range_text(lo, hi, lo_open, hi_open)}, got {value!r}")
        return value
    return check


def choice(*options, allow_none=False, lower=True):
    """A check for one of ``options`` (strings compared case-insensitively)."""
    def check(name, value):
        if value is None and allow_none:
            return None
        key = value.lower() if (lower and isinstance(value, str)) else value
        if isinstance(key, str) and key in options:
            return key
        shown = ", ".join(repr(o) for o in options) + (" or None" if allow_none else "")
        raise SettingsError(f"setting {name!r} must be one of {shown}, got {value!r}")
    return check


def boolean(name, value):
    """A check for a True/False setting (numpy booleans and 0/1 pass)."""
    if isinstance(value, (bool, np.bool_)) or (_is_int(value) and value in (0, 1)):
        return bool(value)
    raise SettingsError(f"setting {name!r} must be True or False, got {value!r}")


def optional_boolean(name, value):
    """A check for a True/False setting whose default None means "decided elsewhere" (a
    progress bar shown as ``verbose`` says, say)."""
    if value is None:
        return None
    try:
        return boolean(name, value)
    except SettingsError:
        raise SettingsError(f"setting {name!r} must be True, False or None, "
                            f"got {value!r}") from None


def _range_text(lo, hi, lo_open=False, hi_open=False):
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'>' if lo_open else '>='} {lo}"
    if hi is not None:
        return f"{'<' if hi_open else '<='} {hi}"
    return "valid"


#: joblib backends of the parallel estimators' ``backend`` setting
BACKENDS = ("loky", "threading", "multiprocessing", "dask")


def n_jobs_setting(name, value):
    """joblib's n_jobs: a non-zero integer (-1: all CPUs, -2: all but one, ...)."""
    value = integer()(name, value)
    if value == 0:
        raise SettingsError(f"setting {name!r} must be a non-zero integer (joblib's -1 uses "
                            "every CPU), got 0")
    if value < 0:
        # joblib's -k: every CPU but k - 1; below -cpu_count that is none at all
        # (joblib would quietly run one process)
        from joblib import cpu_count
        cpus = cpu_count()
        if value < -cpus:
            raise SettingsError(f"setting {name!r} = {value} asks for every CPU but {-value - 1}, "
                                f"and this machine has {cpus}: give -1..-{cpus} (joblib's count "
                                "from the end) or a positive number of processes")
    return value


# -- the base class ----------------------------------------------------------
COMMON_SETTINGS = (
    Setting("random_state", None, None, "Seed of every random choice (int, Generator or None)."),
    Setting("verbose", False, boolean, "Show progress."),
)


class Estimator:
    """Base class: settings from the ``SETTINGS`` table; ``fit(model)`` returns results.

    Subclasses set ``method`` (the name ``ERGM.fit`` knows them by) and
    ``SETTINGS`` (a tuple of :class:`Setting`), and implement ``fit``.  A
    ``_finish_settings()`` hook may check settings against each other.
    """

    method: str = ""
    SETTINGS: tuple = ()
    #: what the estimator fits (``ERGM.fit`` refuses the rest, naming it):
    #: curved terms (statnet's fixed=FALSE, through model.eta), constraints,
    #: missing dyads, target statistics, missing dyads with target statistics,
    #: and the model families
    supports = {"curved": False, "constraints": False, "missing": False, "target_stats": False,
                "missing+target_stats": False, "families": frozenset({"binary"})}
    #: what refusing a curved model says instead of naming the methods that fit curved
    #: terms (None: those methods; see :func:`curved_refusal`)
    curved_refusal_note = None
    #: whether the estimator fits a binary model's ``offset()`` terms itself, their columns
    #: moved into a fixed part of its logistic regressions' linear predictor
    #: (:func:`~ergmfit.estimation.common.restricted.offset_design`: the MPLE, btergm); if
    #: not, ``ERGM._fit`` hands it the model's free-coefficient view instead
    #: (:class:`~ergmfit.terms.offsets.OffsetParameterisation`)
    folds_offsets = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "fit" in cls.__dict__:
            cls.fit = _checked_fit(cls.__dict__["fit"])
        table = cls.settings_table()
        names = [s.name for s in table]
        dup = {n for n in names if names.count(n) > 1}
        if dup:  # a programming error, found when the class is defined
            raise TypeError(f"{cls.__name__}: settings declared twice: {sorted(dup)}")
        params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        params += [inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=s.default)
                   for s in table]
        cls.__init__ = _make_init(cls)
        cls.__init__.__signature__ = inspect.Signature(params)
        if cls.__doc__ and "Settings\n" not in cls.__doc__:
            lines = ["", "    Settings", "    --------"]
            for s in table:
                lines.append(f"    {s.name} : default {s.default!r}")
                if s.doc:
                    lines.append(f"        {s.doc}")
            cls.__doc__ = cls.__doc__.rstrip() + "\n" + "\n".join(lines) + "\n"

    @classmethod
    def settings_table(cls) -> tuple:
        """The settings of this estimator (its own, then ``random_state`` and ``verbose``)."""
        own = tuple(cls.SETTINGS)
        names = {s.name for s in own}
        return own + tuple(s for s in COMMON_SETTINGS if s.name not in names)

    @classmethod
    def setting_names(cls) -> list:
        return [s.name for s in cls.settings_table()]

    def _set(self, values: dict, partial: bool):
        table = {s.name: s for s in self.settings_table()}
        unknown = [k for k in values if k not in table]
        if unknown:
            import difflib
            close = [c for k in unknown for c in
                     difflib.get_close_matches(str(k).lower(), list(table), n=2, cutoff=0.7)]
            raise SettingsError(
                f"method {self.method!r} has no "
                + ("setting " if len(unknown) == 1 else "settings ")
                + ", ".join(repr(k) for k in unknown)
                + (f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else "")
                + "; its settings are: " + ", ".join(self.setting_names()))
        for name, s in table.items():
            if name in values:
                object.__setattr__(self, name, s.validate(values[name]))
            elif not partial:
                object.__setattr__(self, name, s.default)
        given = set(values) | (set(getattr(self, "_given", ())) if partial else set())
        object.__setattr__(self, "_given", given)
        self._finish_settings()

    def _finish_settings(self):
        """Checks across settings; override (raise SettingsError)."""

    # scikit-learn's protocol ----------------------------------------------
    def get_params(self, deep=True) -> dict:
        """The settings as ``{name: value}``."""
        return {name: getattr(self, name) for name in self.setting_names()}

    def given_params(self) -> dict:
        """The settings given to the constructor or ``set_params`` (not defaulted)."""
        return {name: getattr(self, name) for name in self.setting_names() if name in self._given}

    def set_params(self, **params):
        """Change settings (validated as in the constructor); returns ``self``."""
        self._set(params, partial=True)
        return self

    def with_settings(self, **settings) -> "Estimator":
        """A copy of this estimator with ``settings`` changed (validated as in
        :meth:`set_params`); this one is left as it is.

        >>> from ergmfit.estimation import MPLE
        >>> est = MPLE(maxiter=50)
        >>> est.with_settings(random_state=3), est
        (MPLE(maxiter=50, random_state=3), MPLE(maxiter=50))
        """
        import copy
        new = copy.copy(self)
        new._set(settings, partial=True)
        return new

    def fit(self, model):  # pragma: no cover - every subclass implements it
        raise NotImplementedError

    def __repr__(self):
        shown = []
        for s in self.settings_table():
            v = getattr(self, s.name, s.default)
            same = v is s.default
            if not same:
                try:
                    same = bool(np.all(v == s.default)) and type(v) is type(s.default)
                except (ValueError, TypeError):      # e.g. arrays of other shapes
                    same = False
            if not same:
                shown.append(f"{s.name}={v!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


def curved_refusal(method, model, able=None, note=None):
    """The message refusing a curved ``model`` to the estimator ``method``,
    which does not fit curved terms; ``able``: the methods that do; ``note``: the
    estimator's ``curved_refusal_note``, said instead of them."""
    curved = [t.name for t in getattr(model, "terms", ()) if getattr(t, "curve", None)]
    par = getattr(model, "parameterisation", None)
    if not curved and par is not None:      # inside an operator: the decays' labels
        curved = [str(model.labels[i]) for i in par.decay_indices()]
    use = (f"({note}); fix the decay" if note else
           f"; use method {able}, or fix the decay" if able else
           "; use a method that does (ergmfit.estimation.methods_supporting('curved')), "
           "or fix the decay")
    return (f"method {method!r} does not fit curved terms ({', '.join(curved)}: "
            f"fixed=FALSE, statnet's default) yet{' ' if note else ''}{use}, "
            f"e.g. {curved[0].split('~')[-1].split('.')[0] if curved else 'gwesp'}"
            "(0.5, fixed=TRUE)")


#: set while a fit runs whose model was checked against its estimator's ``supports``
#: (by ``ERGM.fit``, or by the outermost estimator object's ``fit``)
_SUPPORT_CHECKED = contextvars.ContextVar("ergmfit_support_checked", default=False)


@contextlib.contextmanager
def support_checked():
    """Mark the fits run inside as checked by
    :func:`~ergmfit.estimation.registry.check_supports` (``ERGM.fit``
    checked the model the user configured; the estimator it runs does not check again)."""
    token = _SUPPORT_CHECKED.set(True)
    try:
        yield
    finally:
        _SUPPORT_CHECKED.reset(token)


#: the check every estimator object's ``fit`` runs first,
#: :func:`ergmfit.estimation.registry.check_supports`: its messages name the methods that
#: fit what a model needs, from the estimator table, which loads every estimator (and so
#: this module): the table hands its check over when it loads (:func:`set_support_check`;
#: ``ergmfit.estimation`` loads it before any estimator can be built)
_support_check = None


def set_support_check(check):
    """Install ``check(supports, method, model, note=None, features=None)`` as the check
    every estimator object's ``fit`` runs (see :func:`_checked_fit`)."""
    global _support_check
    _support_check = check


def _checked_fit(fit):
    """``fit`` refusing, with a clear message, a model the estimator cannot fit
    (:func:`~ergmfit.estimation.registry.check_supports`, unless ``ERGM.fit`` or an outer
    estimator's fit checked it).

    An outermost fit of a model that prepares its fits (an ERGM: its offsets, target
    statistics, the face of an MLE at infinity, a checkpoint's sample space; see
    ``ERGM._estimate``) is handed to the model's ``_estimate(estimator)``: ``ERGM.fit``
    goes through that one method too, so ``E(**settings).fit(model)`` fits what
    ``model.fit(method=E.method, **settings)`` fits.  It checks the model and calls this
    ``fit`` again inside :func:`support_checked`, where the estimator's own fit runs."""
    @functools.wraps(fit)
    @warns_at_callers_line            # a ConvergenceWarning points at the user's fit() line
    @stops_when_interrupted           # inside ef.stop_on_interrupt(): an interrupted fit raises
    def checked(self, model, *args, **kwargs):
        if not _SUPPORT_CHECKED.get() and not args and not kwargs:
            estimate = getattr(model, "_estimate", None)
            if estimate is not None:       # the model prepares (and checks) its fits
                return estimate(self)
        if _SUPPORT_CHECKED.get():
            # a fit run by a checked one (ERGM.fit's estimator; an estimator's helper fit:
            # MCMC-MLE's MPLE start, its stochastic-approximation approach): the outer check
            # covered the model's space, target statistics and sampler, which the helper
            # only starts or adjusts; a curved model it cannot evaluate is still refused
            _support_check(self.supports, self.method, model, self.curved_refusal_note,
                           features=("curved",))
            return fit(self, model, *args, **kwargs)
        _support_check(self.supports, self.method, model, self.curved_refusal_note)
        with support_checked():
            return fit(self, model, *args, **kwargs)
    return checked


def _make_init(cls):
    def __init__(self, **settings):
        Estimator._set(self, settings, partial=False)
    __init__.__qualname__ = f"{cls.__name__}.__init__"
    __init__.__doc__ = f"Build a {cls.__name__} estimator; see the class docstring for the settings."
    return __init__
