"""R's number formatting, as statnet's printed tables use it: ``format(x, digits=)``,
``format.pval`` and the significance stars of ``printCoefmat``.

>>> r_format([1.5, 10.25, 100.0], 4)
['  1.50', ' 10.25', '100.00']
>>> format_pvalues([0.5, 0.00001])
['0.5', '<1e-04']
>>> signif_stars(0.003)
'**'
"""
from __future__ import annotations

import math

import numpy as np


def _sig_and_exp(v: float, digits: int):
    """Significant digits R shows for v at ``digits`` (trailing zeros dropped), and its exponent."""
    s = f"{abs(v):.{digits - 1}e}"
    mant, exp = s.split("e")
    e = int(exp)
    mant = mant.replace(".", "").rstrip("0")
    return max(1, len(mant)), e


def _sci(v: float, mdig: int) -> str:
    s = f"{v:.{mdig}e}"
    mant, exp = s.split("e")
    e = int(exp)
    return f"{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"


def r_format(values, digits: int = 7) -> list:
    """Format numbers together as R's ``format(x, digits=digits)`` does:
    enough significant digits (at most ``digits``) for every element, a
    common number of decimals, fixed notation unless scientific is narrower,
    right-justified to a common width.  NaN prints as ``NA``."""
    vals = [float(v) for v in values]
    fin = [v for v in vals if math.isfinite(v)]
    out = []
    if fin:
        nsmall, maxsig, lo_e, hi_e = 0, 1, None, None
        for v in fin:
            if v == 0:
                continue
            sig, e = _sig_and_exp(v, digits)
            nsmall = max(nsmall, sig - 1 - e)
            maxsig = max(maxsig, sig)
            lo_e = e if lo_e is None else min(lo_e, e)
            hi_e = e if hi_e is None else max(hi_e, e)
        nsmall = min(max(nsmall, 0), 15)
        fixed = [f"{v:.{nsmall}f}" for v in fin]
        sci = [_sci(v, maxsig - 1) for v in fin]
        use_sci = max(map(len, fixed)) > max(map(len, sci))
        fmt = {}
        for v, f, s in zip(fin, fixed, sci):
            fmt[v] = s if use_sci else f
    for v in vals:
        if math.isnan(v):
            out.append("NA")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        else:
            out.append(fmt[v])
    w = max((len(s) for s in out), default=0)
    return [s.rjust(w) for s in out]


def percent_label(q: float) -> str:
    """R's confint column name of a quantile: 0.025 -> '2.5 %'."""
    return f"{100.0 * q:.3g} %"


def r_round(v: float, ndigits: int) -> float:
    return float(np.round(v, ndigits)) if math.isfinite(v) else v


def format_pvalues(pv, digits: int = 3, eps: float = 1e-4) -> list:
    """R's ``format.pval(pv, digits, eps)``: values below eps print as ``<1e-04``."""
    pv = [float(p) for p in pv]
    out = [""] * len(pv)
    ok = [k for k, p in enumerate(pv) if not math.isnan(p)]
    small = [k for k in ok if pv[k] < eps]
    big = [k for k in ok if pv[k] >= eps]
    rr = {}
    if big:
        # R formats p >= 1e-3 and smaller ones separately (the latter may go scientific)
        fix = [k for k in big if math.floor(math.log10(pv[k])) >= -3]
        nfix = [k for k in big if k not in fix]
        for group in (fix, nfix):
            if group:
                for k, s in zip(group, r_format([pv[k] for k in group], digits)):
                    rr[k] = s.strip()
    for k in big:
        out[k] = rr[k]
    if small:
        d = max(1, digits - 2)
        if big:
            nc = max(len(rr[k]) for k in big)
            if d > 1 and d + 6 > nc:
                d = max(1, nc - 7)
            sep = "" if (d == 1 and nc <= 6) else " "
        else:
            sep = "" if d == 1 else " "
        eps_s = r_format([eps], d)[0].strip()
        for k in small:
            out[k] = "<" + sep + eps_s
    for k, p in enumerate(pv):
        if math.isnan(p):
            out[k] = "NA"
    return out


def signif_stars(p: float) -> str:
    if not math.isfinite(p):
        return ""
    if p <= 0.001:
        return "***"
    if p <= 0.01:
        return "**"
    if p <= 0.05:
        return "*"
    if p <= 0.1:
        return "."
    return " "
