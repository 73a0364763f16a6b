"""Input validation helpers shared by the estimators (scikit-learn style)."""
from __future__ import annotations

import numbers
import os
import sys
import warnings

import numpy as np

from ..exceptions import SettingsError
from .setops import has_duplicates

#: ergmfit's own directory: warnings are attributed to the first frame outside it
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message, category=UserWarning):
    """``warnings.warn`` pointing at the user's line, not at ergmfit's.

    The warning is attributed to the first caller outside the ergmfit
    package, however deep inside ergmfit it is issued (Python >= 3.12:
    ``skip_file_prefixes``; before: a ``stacklevel`` counted from the
    frames), so ``python -W error`` tracebacks and the "file:line:" of the
    printed warning show the user's code.
    """
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=(_PACKAGE_DIR,))
        return
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def warns_at_callers_line(func):
    """Decorate an entry point (``ERGM.fit``, ``gof``, ...) so that every warning
    issued inside it -- by ergmfit at any depth, whatever ``stacklevel`` it
    used, or by numpy and scipy on ergmfit's behalf -- points at the line that
    called ergmfit, as :func:`warn` does.

    The warnings are collected while ``func`` runs and issued again, in order
    and through the caller's warning filters, when it returns or raises.
    """
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                return func(*args, **kwargs)
        finally:
            for w in caught:
                warn(w.message, w.category)
    return wrapper


#: statnet's argument names a user types from habit -> ergmfit's names for the same thing
#: (the first one a function takes is named in the error)
STATNET_ARGUMENTS = {
    "nsim": ("n", "n_sim"),
    "seed": ("random_state",),
    "basis": ("start", "network"),
    "coef": ("params",),
}


def checks_arguments(func):
    """Decorate a constructor a user calls (``Networks``, ``NetSeries``, ``EgoData``, ...)
    so that an unknown, missing or repeated argument is a :class:`SettingsError` naming
    it (with the closest argument name, and the ones it takes) instead of Python's bare
    TypeError from inside the package.

    Examples
    --------
    >>> class Panel:
    ...     @checks_arguments
    ...     def __init__(self, waves, directed=None):
    ...         self.waves = waves
    >>> Panel([1], directd=True)
    Traceback (most recent call last):
    ...
    ergmfit.exceptions.SettingsError: Panel() got an unknown argument 'directd' (did you mean 'directed'?); it takes waves, directed
    """
    import difflib
    import functools
    import inspect

    signature = inspect.signature(func)
    names = [n for n in signature.parameters if n not in ("self", "cls")]
    owner = (func.__qualname__.rsplit(".", 1)[0] if func.__name__ == "__init__"
             else func.__qualname__)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            signature.bind(*args, **kwargs)
        except TypeError as err:
            unknown = [k for k in kwargs if k not in signature.parameters]
            if unknown:
                ours = [n for n in STATNET_ARGUMENTS.get(unknown[0], ()) if n in names]
                close = ours or difflib.get_close_matches(unknown[0], names, n=1)
                hint = (f" (statnet's {unknown[0]!r} is {ours[0]!r} here)" if ours else
                        f" (did you mean {close[0]!r}?)" if close else "")
                raise SettingsError(f"{owner}() got an unknown argument {unknown[0]!r}{hint}; "
                                    f"it takes {', '.join(names)}") from None
            raise SettingsError(f"{owner}(): {err}; it takes {', '.join(names)}") from None
        return func(*args, **kwargs)
    return wrapper


def check_random_state(random_state) -> np.random.Generator:
    """A numpy Generator from None, an int, a SeedSequence or a Generator.

    The same seed always gives the same Generator stream.
    """
    if isinstance(random_state, numbers.Integral) and random_state < 0:
        raise SettingsError(f"random_state (a seed) must be a non-negative integer, got "
                            f"{int(random_state)}")
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise SettingsError(f"random_state must be None, an int or a numpy Generator, "
                        f"got {type(random_state).__name__}")


def seed_words(random_state) -> np.ndarray:
    """Four 64-bit words to seed a compiled PRNG, drawn from ``random_state``."""
    rng = check_random_state(random_state)
    return rng.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)


def check_params(params, labels, what="params") -> np.ndarray:
    """Parameters as a float vector in ``labels`` order.

    Accepts a sequence in order or a mapping ``{label: value}``; a wrong
    length, an unknown label, a value that is not a number or a non-finite
    value is a :class:`~ergmfit.exceptions.SettingsError` (a ValueError) naming it.
    """
    if isinstance(params, dict):
        seen = set()
        twice = sorted({lab for lab in labels if lab in seen or seen.add(lab)})
        if twice:
            raise SettingsError(f"{what}: the label(s) {twice} repeat in the model, so a dict "
                                f"cannot say which is which; give the values as a sequence "
                                f"in the order {list(labels)}")
        unknown = [k for k in params if k not in labels]
        if unknown:
            raise SettingsError(f"{what}: unknown label(s) {unknown}; the model's labels are "
                                f"{labels}")
        missing = [k for k in labels if k not in params]
        if missing:
            raise SettingsError(f"{what}: missing value(s) for {missing}")
        values = [params[k] for k in labels]
    else:
        values = params
        if hasattr(params, "index") and hasattr(params, "values") and not isinstance(params, np.ndarray):
            values = params.values  # pandas Series
    try:
        arr = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError, OverflowError):
        raise SettingsError(f"{what} must be numbers, one per statistic {labels}, got "
                            f"{_short(params)}") from None
    if not isinstance(params, dict) and arr.shape != (len(labels),):
        raise SettingsError(f"{what} must have {len(labels)} value(s), one per statistic "
                            f"{labels}, got {arr.size}")
    bad = [labels[k] for k in np.flatnonzero(~np.isfinite(arr))]
    if bad:
        raise SettingsError(f"{what}: non-finite value for {bad}")
    return arr


def _short(value, width=60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def check_index_set(values, n, what, units="variables") -> np.ndarray:
    """``values`` as an int64 array of distinct indices in 0..n-1, naming the
    problem otherwise (blocks, groups, monomials: ``what``; their ``units``).

    Examples
    --------
    >>> check_index_set([2, 0], 3, "block").tolist()
    [2, 0]
    """
    arr = np.asarray(values, dtype=np.int64).ravel()
    if arr.size == 0:
        raise ValueError(f"a {what} is empty")
    if arr.min() < 0 or arr.max() >= n:
        raise IndexError(f"{what} {units} must lie in 0..{n - 1}, got {arr.tolist()}")
    if has_duplicates(arr):
        raise ValueError(f"the {units} of a {what} must be distinct, got {arr.tolist()}")
    return arr


# the most proposals one simulate() call runs (burnin + n * interval): at some 10^7
# proposals a second, about a day of computing
MAX_SIMULATION_PROPOSALS = 10 ** 12


def whole_number(value, name, least):
    """``value`` as an int when it is a whole number >= ``least`` (also a float such as
    ``1e6``), else a SettingsError naming the setting ``name``.

    >>> whole_number(1e6, "n", 0)
    1000000
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float,
                                                                     np.floating)) \
            or not float(value).is_integer() or value < least:
        raise SettingsError(f"simulate: {name} must be a whole number >= {least}, got "
                            f"{value!r}")
    return int(value)


def format_bytes(n):
    """A number of bytes as people read it.

    >>> format_bytes(3 * 2 ** 30)
    '3.0 GiB'
    """
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024


def machine_memory():
    """This machine's physical memory in bytes (16 GiB where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2 ** 34


def check_simulation_work(n, burnin, interval, each_bytes, what, caller="simulate"):
    """A SettingsError up front when ``burnin + n * interval`` proposals exceed
    :data:`MAX_SIMULATION_PROPOSALS` or ``n`` draws of ``each_bytes`` (``what`` says
    of what) exceed this machine's memory."""
    proposals = burnin + n * interval
    if proposals > MAX_SIMULATION_PROPOSALS:
        raise SettingsError(
            f"{caller}: burnin + n x interval = {proposals:.3g} proposals, more than the "
            f"{MAX_SIMULATION_PROPOSALS:.0e} ergmfit runs in one call (about a day at 10^7 "
            "proposals a second); lower n or interval")
    need, have = n * float(each_bytes), machine_memory()
    if need > have:
        raise SettingsError(
            f"{caller}: n = {n:,} draws ({what} each) would take {format_bytes(need)}, more than "
            f"this machine's memory ({format_bytes(have)}); draw fewer, or in batches")
