"""Reference measures h(y) of count-valued ERGMs, with statnet's names and spellings."""
from __future__ import annotations

import decimal
import numbers
import re
from dataclasses import dataclass

import numpy as np

from ..exceptions import ErgmfitError, NetworkError


class ReferenceError(ErgmfitError, ValueError):
    """An unknown or malformed reference measure."""


@dataclass(frozen=True)
class Reference:
    """A reference measure of one dyad value on the integers lo..hi (hi None: unbounded).

    Use the constructors :func:`Poisson`, :func:`Binomial`, :func:`Geometric`,
    :func:`DiscUnif`, or :func:`parse_reference` for statnet's spellings.
    """

    name: str
    lo: int = 0
    hi: int | None = None
    trials: int = 0

    @property
    def label(self) -> str:
        """statnet's spelling: ``Poisson``, ``Binomial(3)``, ``DiscUnif(0, 5)``."""
        if self.name == "Binomial":
            return f"Binomial({self.trials})"
        if self.name == "DiscUnif":
            return f"DiscUnif({self.lo}, {self.hi})"
        return self.name

    @property
    def support(self) -> str:
        return f"{self.lo}..{'' if self.hi is None else self.hi}" if self.hi is not None \
            else f"{self.lo}, {self.lo + 1}, ..."

    def log_h(self, y):
        """log h(y) as a float array (-inf outside the support)."""
        from scipy.special import gammaln
        y = np.asarray(y, dtype=float)
        inside = (y >= self.lo) & (True if self.hi is None else (y <= self.hi))
        if self.name == "Poisson":
            out = -gammaln(y + 1)
        elif self.name == "Binomial":
            t = float(self.trials)
            out = gammaln(t + 1) - gammaln(np.clip(y, 0, t) + 1) - gammaln(t - np.clip(y, 0, t) + 1)
        else:
            out = np.zeros_like(y)
        return np.where(inside, out, -np.inf)

    def mean_coefficient(self, mean) -> float:
        """The b whose i.i.d. law h(y) e^(b y) on the support has mean ``mean`` (moved
        0.01 inside the support's ends): log(mean) under Poisson, log(mean / (1 + mean))
        under Geometric, logit(mean / trials) under Binomial, a root for DiscUnif.

        >>> round(Poisson().mean_coefficient(2.0), 6), round(Binomial(4).mean_coefficient(2.0), 6)
        (0.693147, 0.0)
        """
        top = np.inf if self.hi is None else self.hi
        if top <= self.lo:
            return 0.0
        m = float(min(max(mean, self.lo + 0.01), top - 0.01))
        if self.name == "Poisson":
            return float(np.log(m))
        if self.name == "Geometric":
            return float(np.log(m / (1.0 + m)))
        if self.name == "Binomial":
            return float(np.log(m / (self.trials - m)))
        from scipy.optimize import brentq
        y = np.arange(self.lo, self.hi + 1, dtype=float)
        lh = self.log_h(y)

        def excess(b):
            w = lh + b * y
            w = np.exp(w - w.max())
            return float(w @ y / w.sum()) - m
        return float(brentq(excess, -60.0, 60.0))

    def compiled(self):
        """The compiled :class:`~ergmfit.core._model.ReferenceMeasure`."""
        from ..core._model import ReferenceMeasure
        return ReferenceMeasure(self.name, self.lo, self.hi, self.trials)

    def check_values(self, values, what="the response", where=None) -> np.ndarray:
        """``values`` as an int64 array; a NetworkError for a value that is not an
        integer or lies outside the support.  ``where(k)``, when given, names the place
        of value ``k`` in the message (``"the edge (2, 3)"``).

        >>> Poisson().check_values([2, 0.0]).tolist()
        [2, 0]
        >>> Poisson().check_values([1, -1], where=lambda k: f"row {k}")
        Traceback (most recent call last):
        ...
        ergmfit.exceptions.NetworkError: the response has the negative value -1 (row 1): \
the reference Poisson takes values 0, 1, ...
        """
        at = (lambda k: "") if where is None else (lambda k: f" ({where(k)})")
        vals = list(values)
        out = np.zeros(len(vals), dtype=np.int64)
        for k, v in enumerate(vals):
            if not _is_whole(v):
                shown = (f"the text {_short(v)}" if isinstance(v, str)
                         else f"the value {_short(v)}")
                raise NetworkError(f"{what} has {shown}{at(k)}: a count-valued model "
                                   f"(reference {self.label}) needs integer values")
            if abs(int(v)) > MAX_COUNT:
                raise NetworkError(f"{what} has the value {_short(v)}{at(k)}, too large for a "
                                   f"count (at most 2^62)")
            out[k] = int(v)
        bad = np.flatnonzero((out < self.lo) | ((out > self.hi) if self.hi is not None
                                                 else False))
        if len(bad):
            k = int(bad[0])
            shown, why = ((f"the negative value {int(out[k])}", "") if out[k] < 0 else
                          (f"the value {int(out[k])}", ", outside the support"))
            raise NetworkError(f"{what} has {shown}{at(k)}{why}: the reference {self.label} "
                               f"takes values {self.support}")
        return out


def Poisson() -> Reference:
    """h(y) = 1/y! on 0, 1, 2, ... (ergm.count's ``~Poisson``)."""
    return Reference("Poisson")


def Geometric() -> Reference:
    """h(y) = 1 on 0, 1, 2, ... (ergm.count's ``~Geometric``)."""
    return Reference("Geometric")


def Binomial(trials) -> Reference:
    """h(y) = C(trials, y) on 0..trials (ergm.count's ``~Binomial(trials)``)."""
    t = _int(trials, "Binomial: trials")
    if t < 1:
        raise ReferenceError(f"Binomial: trials must be at least 1, got {trials!r}")
    return Reference("Binomial", 0, t, t)


def DiscUnif(a, b) -> Reference:
    """h(y) = 1 on a..b (ergm's ``~DiscUnif(a, b)``)."""
    lo, hi = _int(a, "DiscUnif: a"), _int(b, "DiscUnif: b")
    if lo < 0 or hi <= lo:
        raise ReferenceError(f"DiscUnif(a, b) needs 0 <= a < b for counts, got ({a!r}, {b!r})")
    return Reference("DiscUnif", lo, hi)


#: the largest count (a dyad value, a Binomial's trials or a DiscUnif bound) ergmfit holds
MAX_COUNT = 2 ** 62


def _short(v) -> str:
    """``repr(v)``, cut to 30 characters (a number of 400 digits is not echoed whole)."""
    text = repr(v)
    return text if len(text) <= 30 else f"{text[:12]}...{text[-6:]} ({len(text)} characters)"


def _is_whole(v) -> bool:
    """Whether ``v`` is a whole number (an int, or a finite float without a fraction);
    a Python int of any size is one (no float conversion that could overflow)."""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    if isinstance(v, numbers.Rational):          # Fraction(3, 1) is 3
        return v.denominator == 1
    if isinstance(v, decimal.Decimal):           # Decimal("2") is 2; Decimal("NaN") is not
        return v.is_finite() and v == v.to_integral_value()
    return isinstance(v, (float, np.floating)) and bool(np.isfinite(v)) and float(v).is_integer()


def _int(v, what):
    if not _is_whole(v):
        raise ReferenceError(f"{what} must be an integer, got {v!r}")
    if abs(int(v)) > MAX_COUNT:
        raise ReferenceError(f"{what} is {_short(v)}, too large for a count (at most 2^62)")
    return int(v)


_MAKERS = {"poisson": (Poisson, ()), "geometric": (Geometric, ()),
           "binomial": (Binomial, ("trials",)), "discunif": (DiscUnif, ("a", "b"))}
_CALL = re.compile(r"^\s*~?\s*([A-Za-z]+)\s*(?:\((.*)\))?\s*$")
_ARG = re.compile(r"^\s*(?:([A-Za-z_.]+)\s*=\s*)?([+-]?\d+(?:\.0*)?)[Ll]?\s*$")


def parse_reference(spec) -> Reference:
    """A reference measure from statnet's spellings (parsed, never evaluated).

    ``"Poisson"``, ``"~Poisson"``, ``"Geometric"``, ``"Binomial(3)"``,
    ``"~Binomial(trials=3)"``, ``"DiscUnif(0, 5)"``, or a :class:`Reference`.

    Examples
    --------
    >>> parse_reference("~Binomial(3)").label
    'Binomial(3)'
    >>> parse_reference("Poisson").hi is None
    True
    """
    if isinstance(spec, Reference):
        return spec
    if not isinstance(spec, str):
        raise ReferenceError(f"reference must be a string such as 'Poisson' or 'Binomial(3)', "
                             f"got {type(spec).__name__}")
    m = _CALL.match(spec)
    known = "Poisson, Geometric, Binomial(trials), DiscUnif(a, b)"
    if m is None or m.group(1).lower() not in _MAKERS:
        raise ReferenceError(f"unknown reference {spec!r}; the count references are {known}")
    maker, names = _MAKERS[m.group(1).lower()]
    args = [] if m.group(2) is None or not m.group(2).strip() else m.group(2).split(",")
    if len(args) != len(names):
        raise ReferenceError(f"reference {spec!r}: {maker.__name__} takes {len(names)} "
                             f"argument(s) ({known})")
    vals = {}
    for k, a in enumerate(args):
        am = _ARG.match(a)
        if am is None:
            raise ReferenceError(f"reference {spec!r}: {a.strip()!r} is not an integer")
        name = names[k] if am.group(1) is None else am.group(1)
        if name not in names:        # statnet's names: Binomial(trials), DiscUnif(a, b)
            raise ReferenceError(f"reference {spec!r}: {maker.__name__} has no argument "
                                 f"{name!r}; its arguments: {', '.join(names)}")
        if name in vals:
            raise ReferenceError(f"reference {spec!r}: argument {name!r} given twice")
        vals[name] = int(am.group(2).split(".")[0])    # '3.0' is 3; no float rounding
    return maker(*(vals[n] for n in names))
