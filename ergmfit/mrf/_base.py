"""scikit-learn's estimator protocol for the MRF models, without depending on scikit-learn.

Every MRF model keeps its constructor arguments unchanged as attributes of the
same names and computes everything it derives from them (variables, labels,
monomials, edges) in ``_build``, which the constructor and :meth:`set_params`
call.  So ``get_params`` / ``set_params`` / ``sklearn.base.clone`` work, and a
clone is an unfitted model with the same parameters.

Where scikit-learn is installed the models inherit from
``sklearn.base.BaseEstimator`` (its ``get_params``, ``set_params``, ``repr``,
tags), else from :class:`ParamsMixin`, a small stand-in with the same
``get_params`` / ``set_params`` semantics.
"""
from __future__ import annotations

import inspect

import numpy as np

__all__ = ["ParamsMixin", "MRFEstimator", "HAVE_SKLEARN", "row_weights", "whole_count"]


class ParamsMixin:
    """``get_params`` / ``set_params`` from the constructor's named parameters
    (the scikit-learn protocol, for when scikit-learn is not installed).

    >>> class A(ParamsMixin):
    ...     def __init__(self, k=1, tol=0.5):
    ...         self.k, self.tol = k, tol
    >>> A(k=3).get_params()
    {'k': 3, 'tol': 0.5}
    >>> A().set_params(tol=0.1)
    A(tol=0.1)
    """

    @classmethod
    def _get_param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for p in inspect.signature(init).parameters.values():
            if p.name == "self" or p.kind == p.VAR_KEYWORD:
                continue
            if p.kind == p.VAR_POSITIONAL:
                raise TypeError(f"{cls.__name__}.__init__ must not take *args "
                                "(the estimator protocol names every parameter)")
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep=True):
        """The constructor parameters as a dict (``deep``: also those of nested
        estimators, as ``name__param``)."""
        out = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params):
        """Set constructor parameters (``name`` or ``nested__name``); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            key, delim, sub = key.partition("__")
            if key not in valid:
                raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}; "
                                 f"the parameters are {sorted(self._get_param_names())}")
            if delim:
                nested.setdefault(key, {})[sub] = value
            else:
                setattr(self, key, value)
                valid[key] = value
        for key, sub in nested.items():
            valid[key].set_params(**sub)
        return self

    def __repr__(self):
        sig = inspect.signature(type(self).__init__).parameters
        args = []
        for key in self._get_param_names():
            value = getattr(self, key, None)
            default = sig[key].default if key in sig else inspect.Parameter.empty
            try:
                same = default is not inspect.Parameter.empty and bool(value == default)
            except Exception:      # arrays, graphs: always shown
                same = False
            if not same:
                args.append(f"{key}={value!r}")
        return f"{type(self).__name__}({', '.join(args)})"


try:                                   # scikit-learn is optional
    from sklearn.base import BaseEstimator as _Base
    HAVE_SKLEARN = True
except ImportError:                    # pragma: no cover - depends on the environment
    _Base = ParamsMixin
    HAVE_SKLEARN = False


class MRFEstimator(_Base):
    """Base of the MRF models: the estimator protocol plus ``_build``, which
    derives the model from its parameters and runs again after ``set_params``
    (dropping any fit)."""

    def _build(self):                  # overridden by the models
        pass

    def set_params(self, **params):
        super().set_params(**params)
        if params:
            for key in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
                delattr(self, key)     # fitted attributes belong to the old parameters
            self._build()
        return self


def whole_count(value, name, least=0):
    """``value`` as an int when it is a whole number >= ``least`` (also a float such as
    ``1e3``), else a ValueError naming ``name``: 2.5 samples were 2, and a negative burn-in
    none.

    >>> whole_count(1e3, "n_samples")
    1000
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.integer, float, np.floating)) or not np.isfinite(value) \
            or not float(value).is_integer() or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")
    return int(value)


def row_weights(weights, n, what="sample_weight", positive_total=True):
    """``weights`` (one per row of n observations; None: ones) as floats, or a ValueError
    naming what is wrong: not one per row, not finite, negative, or (``positive_total``)
    all 0.  A negative weight or a zero total gave an estimate (0 for every parameter)
    without a word.

    >>> row_weights([1, 2], 2).tolist()
    [1.0, 2.0]
    """
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"{what} needs one weight per observation ({n}), got shape "
                         f"{w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = int(np.flatnonzero(~np.isfinite(w) | (w < 0))[0])
        raise ValueError(f"{what} must be finite and non-negative: weight {bad} is {w[bad]}")
    if positive_total and n and not w.any():
        raise ValueError(f"{what}: every weight is 0, no observation to fit")
    return w


def _to01(X, n=None):
    X = np.atleast_2d(np.asarray(X))
    if n is not None and X.shape[1] != n:
        raise ValueError(f"X must have {n} columns (one per variable), got {X.shape[1]}")
    if X.size and X.min() < 0:
        if not np.all(np.isin(X, (-1, 1))):
            raise ValueError("X must hold 0/1 values or -1/+1 spins")
        return (X > 0).astype(np.uint8)
    if not np.all(np.isin(X, (0, 1))):
        raise ValueError("X must hold 0/1 values or -1/+1 spins")
    return X.astype(np.uint8)
