"""What the tutorial vignettes share: their setup and small printing helpers.

``lazega_tutorial.py``, ``faux_mesa_tutorial.py`` and ``directed_tutorial.py``
are run as ``python vignettes/NAME.py``, so this directory is on ``sys.path``
and they ``from _tutorial import ...``.  Importing this module

* sets ``MPLBACKEND=Agg`` unless it is set already (figures go to files);
* imports ergmfit, from this source checkout when it is not installed;
* reads ``ERGMFIT_QUICK`` (small samples, a smoke test) into ``QUICK`` and
  the figures' directory into ``FIGURES`` (``_output.figures_dir``: ``--out
  DIR``, else ``ERGMFIT_FIGURES``, else a fresh temporary directory -- never
  the committed ``vignettes/figures/`` unless passed explicitly).
"""
from __future__ import annotations

import json
import math
import os
import pathlib
import re
import sys
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
os.environ.setdefault("MPLBACKEND", "Agg")
try:
    import ergmfit as ef
except ImportError:            # a source checkout that is not installed: use it in place
    sys.path.insert(0, str(ROOT))
    import ergmfit as ef

from ergmfit.estimation import get_estimator, methods

from _output import figures_dir

QUICK = os.environ.get("ERGMFIT_QUICK", "").strip() not in ("", "0")
FIGURES = figures_dir()
REFERENCE = ROOT / "tests" / "reference"
SEED = 1

__all__ = ["HERE", "ROOT", "ef", "QUICK", "FIGURES", "REFERENCE", "SEED",
           "short", "section", "figure", "load_json", "statnet_fit", "est_se",
           "side_by_side", "ours", "theirs", "fit_and_report", "ee_available"]


def short(labels):
    """Labels for figure axes: long decimals shortened (gwesp.fixed.1.0986...)."""
    return [re.sub(r"(\d+\.\d{3})\d{3,}", r"\1", lab) for lab in labels]


def section(title):
    print()
    print(title)
    print("=" * len(title))


def figure(name):
    """The path of figure ``name`` in FIGURES, saying where it goes."""
    path = FIGURES / name
    print(f"  figure: {path}")
    return path


def load_json(name):
    """tests/reference/``name`` read as JSON, or None when it is not there."""
    path = REFERENCE / name
    if not path.exists():
        return None
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def statnet_fit(name):
    """statnet's fit ``name`` from tests/reference/statnet_fits.json (or None).

    The record is returned as it is, a failed fit with its ``error``; ``theirs``
    makes a ``side_by_side`` column of it.
    """
    ref = load_json("statnet_fits.json")
    if ref is None:
        return None
    for f in ref["fits"]:
        if f["name"] == name:
            return f
    return None


def est_se(value, se):
    """``estimate (standard error)``, NA for what is missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "NA"
    if se is None or not math.isfinite(se):
        return f"{value: .4f} (  NA  )"
    return f"{value: .4f} ({se:.4f})"


def side_by_side(labels, columns):
    """Print estimates (standard errors) of several fits as one table.

    ``columns``: {title: (coef dict, se dict)} -- either may be None.
    """
    wl = max(len(lab) for lab in labels)
    cells = {t: [est_se(c.get(lab) if c else None, s.get(lab) if s else None) for lab in labels]
             for t, (c, s) in columns.items()}
    widths = {t: max(len(t), *(len(x) for x in col)) for t, col in cells.items()}
    print(" " * wl + "".join(f"  {t:>{widths[t]}}" for t in cells))
    for k, lab in enumerate(labels):
        print(f"{lab:<{wl}}" + "".join(f"  {cells[t][k]:>{widths[t]}}" for t in cells))


def ours(fit):
    """An ergmfit fit as a ``side_by_side`` column."""
    return fit.params.to_dict(), fit.bse.to_dict()


def theirs(ref):
    """A statnet fit record (``statnet_fit``) as a ``side_by_side`` column."""
    if ref is None or ref.get("error"):
        return None, None
    return ref["coef"], ref["stderr"]


def fit_and_report(model, method, *, parenthesised=True, **kwargs):
    """Fit, showing the warnings a user would see as one line each, then the time taken.

    The time is printed as ``  (mple: 0.1 s)``, or ``  mple: 0.1 s`` when
    ``parenthesised`` is false.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        fit = model.fit(method=method, random_state=SEED, verbose=False, **kwargs)
        seconds = time.perf_counter() - t0
    for w in caught:
        if issubclass(w.category, UserWarning):      # ConvergenceWarning is one
            print(f"  warning: {w.message}")
    timing = f"{method}: {seconds:.1f} s"
    print(f"  ({timing})" if parenthesised else f"  {timing}")
    return fit


def ee_available():
    """True when this build has a working Equilibrium Expectation estimator."""
    if "ee" not in methods():
        return False
    try:
        get_estimator("ee")
    except Exception:  # noqa: BLE001 - an estimator being written may not import yet
        return False
    return True
