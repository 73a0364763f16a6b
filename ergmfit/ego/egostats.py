"""ergm.ego's ego statistics and their survey-design variance.

Each term of an egocentric model is a sum over the population's nodes of a per-node
contribution h(e_i) that the ego's own record (its attributes, its alters' attributes and
the ties among its alters) determines (Krivitsky & Morris 2017, section 3).  A tie is seen
from both of its ends, so tie-level terms count each tie as one half from each end.  The
population total is estimated by the weighted mean of h over the sample times the
population size N (``scaleto``); its variance is the survey variance of that mean
(Horvitz-Thompson linearisation, with replacement within strata, as R's ``survey::svymean``
computes it for the design ``egor`` attaches), times N².

References
----------
Krivitsky, P. N. and Morris, M. (2017). Inference for social network models from
egocentrically sampled data, with application to understanding persistent racial
disparities in HIV prevalence in the US. *Annals of Applied Statistics* 11(1), 427-455.
"""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import DataFormatError, TermError
from ..formula import parse_formula
from ..labeled import LazyPandas
from ..terms.registry import as_bool, format_number
from .data import EgoData

pd = LazyPandas("egocentric statistics")

__all__ = ["statistics", "EgoStatistics", "survey_vcov", "EGO_TERMS"]


# ---------------------------------------------------------------- attribute levels
def _levels(ego: EgoData, attr):
    """R's ``sort(unique(c(ego values, alter values)))``: the levels a term's labels use."""
    e, a = ego.ego_attribute(attr), ego.alter_attribute(attr)
    if pd.isna(e).any() or pd.isna(a).any():
        raise DataFormatError(f"attribute {attr!r} is missing for some egos or alters; "
                              f"ergm.ego's terms need it for everyone")
    vals = pd.unique(np.concatenate([e, a]).astype(object))
    try:
        return sorted(vals)
    except TypeError:                # mixed numbers and strings: R compares them as strings
        return sorted(vals, key=str)


def _codes(values, levels):
    index = {v: k for k, v in enumerate(levels)}
    return np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))


def _label(v):
    return format_number(v) if isinstance(v, (int, float, np.integer, np.floating)) \
        and not isinstance(v, bool) else str(v)


def _per_alter_sum(ego: EgoData, values):
    """Σ over each ego's alters of ``values`` (one per alter row), as a column per ego."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        return np.bincount(ego.alter_ego, weights=values, minlength=ego.n_egos)
    return np.stack([np.bincount(ego.alter_ego, weights=values[:, k], minlength=ego.n_egos)
                     for k in range(values.shape[1])], axis=1)


def _no_args(name, args, kwargs):
    if args or kwargs:
        raise TermError(f"ego term {name} takes no arguments")


def _unsupported(name, kwargs, allowed):
    extra = sorted(set(kwargs) - set(allowed))
    if extra:
        raise TermError(f"ego term {name}: argument(s) {', '.join(extra)} are not supported "
                        f"(ergmfit's ego terms take: {', '.join(allowed) or 'none'})")


def _one(name, args, kwargs, key, default=None, required=True):
    if len(args) > 1:
        raise TermError(f"ego term {name} takes one positional argument ({key})")
    if args and key in kwargs:
        raise TermError(f"ego term {name}: {key} given twice")
    if args:
        return args[0]
    if key in kwargs:
        return kwargs[key]
    if required:
        raise TermError(f"ego term {name} needs {key}")
    return default


def _attr_name(name, value):
    if not isinstance(value, str):
        raise TermError(f"ego term {name}: the attribute must be a name (a string), "
                        f"not {value!r}")
    return value


def _ints(name, value, what):
    vals = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or v < 0:
            raise TermError(f"ego term {name}: {what} must be whole numbers >= 0, not {v!r}")
        out.append(int(v))
    return out


# ---------------------------------------------------------------- the terms
# Each returns (labels, H) with H[i, k] ego i's contribution to statistic k.

def _edges(ego, args, kwargs):
    _no_args("edges", args, kwargs)
    return ["edges"], (ego.degrees / 2.0)[:, None]


def _nodefactor(ego, args, kwargs):
    _unsupported("nodefactor", kwargs, ["attr"])
    attr = _attr_name("nodefactor", _one("nodefactor", args, kwargs, "attr"))
    lev = _levels(ego, attr)
    e = _codes(ego.ego_attribute(attr), lev)
    a = _codes(ego.alter_attribute(attr), lev)
    L = len(lev)
    # each tie's two ends: the ego's level once per alter, and the alter's level
    H = (np.eye(L)[e] * ego.degrees[:, None] + _per_alter_sum(ego, np.eye(L)[a])) / 2.0
    return [f"nodefactor.{attr}.{_label(v)}" for v in lev[1:]], H[:, 1:]


def _nodematch(ego, args, kwargs):
    _unsupported("nodematch", kwargs, ["attr", "diff"])
    attr = _attr_name("nodematch", _one("nodematch", args, kwargs, "attr"))
    diff = as_bool(kwargs.get("diff", False), "ego term nodematch: diff")
    lev = _levels(ego, attr)
    e = _codes(ego.ego_attribute(attr), lev)
    a = _codes(ego.alter_attribute(attr), lev)
    same = (e[ego.alter_ego] == a).astype(float)
    if not diff:
        return [f"nodematch.{attr}"], (_per_alter_sum(ego, same) / 2.0)[:, None]
    H = _per_alter_sum(ego, np.eye(len(lev))[a] * same[:, None]) / 2.0
    return [f"nodematch.{attr}.{_label(v)}" for v in lev], H


def _nodemix(ego, args, kwargs):
    _unsupported("nodemix", kwargs, ["attr"])
    attr = _attr_name("nodemix", _one("nodemix", args, kwargs, "attr"))
    lev = _levels(ego, attr)
    L = len(lev)
    e = _codes(ego.ego_attribute(attr), lev)[ego.alter_ego]
    a = _codes(ego.alter_attribute(attr), lev)
    lo, hi = np.minimum(e, a), np.maximum(e, a)
    # statnet's cell order: the upper triangle column by column; the first cell is the base
    cells = [(i, j) for j in range(L) for i in range(j + 1)]
    column = {c: k for k, c in enumerate(cells)}
    which = np.fromiter((column[(x, y)] for x, y in zip(lo, hi)), dtype=np.int64,
                        count=len(lo))
    H = _per_alter_sum(ego, np.eye(len(cells))[which]) / 2.0
    labels = [f"mix.{attr}.{_label(lev[i])}.{_label(lev[j])}" for i, j in cells]
    return labels[1:], H[:, 1:]


def _by_levels(ego, name, by):
    if by is None:
        return None, None
    by = _attr_name(name, by)
    vals = ego.ego_attribute(by)
    if pd.isna(vals).any():
        raise DataFormatError(f"ego term {name}: attribute {by!r} is missing for some egos")
    lev = _levels(ego, by)
    return by, (lev, _codes(vals, lev))


def _degree(ego, args, kwargs):
    _unsupported("degree", kwargs, ["d", "by"])
    ds = _ints("degree", _one("degree", args, kwargs, "d"), "degrees d")
    by, levels = _by_levels(ego, "degree", kwargs.get("by"))
    if by is None:
        return ([f"degree{d}" for d in ds],
                np.stack([(ego.degrees == d) for d in ds], axis=1).astype(float))
    lev, code = levels
    labels, cols = [], []
    for k, v in enumerate(lev):          # statnet: levels outside, degrees inside
        for d in ds:
            labels.append(f"deg{d}.{by}{_label(v)}")
            cols.append((ego.degrees == d) & (code == k))
    return labels, np.stack(cols, axis=1).astype(float)


def _concurrent(ego, args, kwargs):
    _unsupported("concurrent", kwargs, ["by"])
    by = _one("concurrent", args, kwargs, "by", required=False)
    by, levels = _by_levels(ego, "concurrent", by)
    conc = ego.degrees >= 2
    if by is None:
        return ["concurrent"], conc.astype(float)[:, None]
    lev, code = levels
    return ([f"concurrent.{by}{_label(v)}" for v in lev],
            np.stack([conc & (code == k) for k in range(len(lev))], axis=1).astype(float))


def _decay(name, args, kwargs):
    _unsupported(name, kwargs, ["decay", "fixed"])
    decay = _one(name, args, kwargs, "decay")
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not math.isfinite(decay):
        raise TermError(f"ego term {name}: decay must be a finite number, not {decay!r}")
    if decay < 0:                   # as the network terms (e^-decay would overflow below)
        raise TermError(f"ego term {name}: decay must be non-negative, got {decay!r}")
    if not as_bool(kwargs.get("fixed", False), f"ego term {name}: fixed"):
        raise TermError(f"ego term {name}: only fixed=TRUE is supported for egocentric data "
                        f"(ergm.ego 1.0.1 likewise fits the curved form with a fixed decay); "
                        f"write {name}({format_number(decay)}, fixed=TRUE)")
    return float(decay)


def _geometric(counts, a):
    # e^a (1 - (1 - e^-a)^k); its limit k where e^a overflows (the binary terms' value)
    if a > 700.0:
        return np.asarray(counts, dtype=float)
    return math.exp(a) * (1.0 - (1.0 - math.exp(-a)) ** counts)


def _gwdegree(ego, args, kwargs):
    a = _decay("gwdegree", args, kwargs)
    return [f"gwdeg.fixed.{format_number(a)}"], _geometric(ego.degrees, a)[:, None]


def _partners(ego, name):
    if ego.shared_partners is None:
        raise DataFormatError(f"ego term {name} counts shared partners, which need the ties "
                              f"among each ego's alters: give EgoData(alter_ties=...)")
    return ego.shared_partners


def _esp(ego, args, kwargs):
    _unsupported("esp", kwargs, ["d"])
    ds = _ints("esp", _one("esp", args, kwargs, "d"), "partner counts d")
    sp = _partners(ego, "esp")
    H = _per_alter_sum(ego, np.stack([(sp == d) for d in ds], axis=1).astype(float)) / 2.0
    return [f"esp{d}" for d in ds], H


def _gwesp(ego, args, kwargs):
    a = _decay("gwesp", args, kwargs)
    sp = _partners(ego, "gwesp")
    return ([f"gwesp.fixed.{format_number(a)}"],
            (_per_alter_sum(ego, _geometric(sp, a)) / 2.0)[:, None])


#: ergm.ego's egocentric terms that ergmfit computes: name -> h(e_i) for every ego
EGO_TERMS = {"edges": _edges, "nodefactor": _nodefactor, "nodematch": _nodematch,
             "nodemix": _nodemix, "degree": _degree, "concurrent": _concurrent,
             "gwdegree": _gwdegree, "esp": _esp, "gwesp": _gwesp}


def ego_contributions(ego: EgoData, formula):
    """Labels and the per-ego contributions h(e_i) (one row per ego) of ``formula``'s terms."""
    labels, blocks = [], []
    for call in parse_formula(formula):
        fn = EGO_TERMS.get(call.name)
        if fn is None:
            raise TermError(f"term {call.name!r} has no egocentric form in ergmfit (ego terms: "
                            f"{', '.join(sorted(EGO_TERMS))})")
        lab, H = fn(ego, list(call.args), dict(call.kwargs))
        labels += lab
        blocks.append(np.asarray(H, dtype=float).reshape(ego.n_egos, len(lab)))
    if not blocks:
        raise TermError("the formula has no terms")
    return labels, np.hstack(blocks)


# ---------------------------------------------------------------- survey variance
def survey_vcov(H, weights, strata=None):
    """Variance matrix of the weighted mean Σ w h / Σ w of the rows of ``H``.

    The linearised (sandwich) variance of a ratio estimator under sampling with replacement
    within strata: with z_i = w_i (h_i - m) / Σ w, Σ_s n_s/(n_s-1) Σ_{i∈s} (z_i - z̄_s)(z_i - z̄_s)ᵀ.
    A stratum with one ego adds nothing (R's ``survey`` default, ``lonely.psu="fail"`` aside).
    """
    H = np.asarray(H, dtype=float)
    w = np.asarray(weights, dtype=float)
    total = w.sum()
    mean = (w[:, None] * H).sum(axis=0) / total
    Z = w[:, None] * (H - mean) / total
    groups = np.zeros(len(w), dtype=np.int64) if strata is None else np.asarray(strata)
    V = np.zeros((H.shape[1], H.shape[1]))
    for s in np.unique(groups):
        Zs = Z[groups == s]
        n = len(Zs)
        if n < 2:
            continue
        D = Zs - Zs.mean(axis=0)
        V += n / (n - 1.0) * (D.T @ D)
    return V


class EgoStatistics:
    """Estimated population statistics from an egocentric sample, with survey s.e.

    Attributes
    ----------
    labels : list of str
        statnet's statistic labels.
    stats : pandas.Series
        Weighted mean contribution × ``scaleto``.
    vcov : pandas.DataFrame
        Survey variance matrix of ``stats`` (None unless ``se=True``).
    se : pandas.Series
        Square roots of the diagonal of ``vcov`` (None unless ``se=True``).
    individual : numpy.ndarray
        The per-ego contributions h(e_i), one row per ego (ergm.ego's ``individual=TRUE``).
    scaleto : float
    """

    def __init__(self, labels, stats, vcov, individual, scaleto):
        self.labels = list(labels)
        self.stats = pd.Series(stats, index=self.labels)
        self.vcov = None if vcov is None else pd.DataFrame(vcov, index=self.labels,
                                                           columns=self.labels)
        self.se = None if vcov is None else pd.Series(np.sqrt(np.clip(np.diag(vcov), 0, None)),
                                                      index=self.labels)
        self.individual = individual
        self.scaleto = scaleto

    def __str__(self):
        from ..rformat import r_format
        if self.se is None:
            vals = r_format(self.stats.values)
            width = max(map(len, self.labels + vals))
            return "\n".join([" ".join(lab.rjust(width) for lab in self.labels),
                              " ".join(v.rjust(width) for v in vals)])
        # R prints a svystat as a matrix with the columns mean and SE
        mean, se = r_format(self.stats.values), r_format(self.se.values)
        lw = max(map(len, self.labels))
        mw, sw = max(map(len, mean + ["mean"])), max(map(len, se + ["SE"]))
        lines = [" " * lw + " " + "mean".rjust(mw) + " " + "SE".rjust(sw)]
        lines += [f"{lab.ljust(lw)} {m.rjust(mw)} {s.rjust(sw)}"
                  for lab, m, s in zip(self.labels, mean, se)]
        return "\n".join(lines)

    __repr__ = __str__


#: the largest population size statistics are scaled to (its square must stay finite)
MAX_SCALETO = 1e150


def statistics(ego: EgoData, formula, scaleto=None, se=False) -> EgoStatistics:
    """ergm.ego's ``summary(egor ~ formula, scaleto=, se=)``: population statistics.

    Parameters
    ----------
    ego : EgoData
    formula : str
        The model's right-hand side, in statnet's syntax (``"edges + degree(0:3)"``); the
        ego terms are those of :data:`EGO_TERMS`.
    scaleto : float, optional
        Population size N to scale the per-capita means to (default: the number of egos).
    se : bool
        Also compute the survey variance matrix and standard errors.

    Returns
    -------
    EgoStatistics

    Examples
    --------
    >>> import ergmfit as ef
    >>> ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    >>> s = ef.ego.statistics(ego, "edges + degree(0)", scaleto=205, se=True)
    >>> s.stats.round(6).tolist(), round(float(s.se["edges"]), 4)
    ([203.0, 57.0], 15.2022)
    """
    if not isinstance(ego, EgoData):
        raise DataFormatError(f"ego statistics need an EgoData, not {type(ego).__name__}")
    if scaleto is None:
        scaleto = ego.n_egos
    if isinstance(scaleto, bool) or not isinstance(scaleto, (int, float, np.integer,
                                                             np.floating)) \
            or not math.isfinite(scaleto) or scaleto <= 0:
        raise DataFormatError(f"scaleto must be a positive number, not {scaleto!r}")
    if scaleto > MAX_SCALETO:
        raise DataFormatError(f"scaleto = {scaleto:.4g} is too large: the variances "
                              f"(scaleto²) overflow floating point (at most {MAX_SCALETO:.0e})")
    labels, H = ego_contributions(ego, formula)
    w = ego.weights
    mean = (w[:, None] * H).sum(axis=0) / w.sum()
    vcov = survey_vcov(H, w, ego.strata) * float(scaleto) ** 2 if se else None
    return EgoStatistics(labels, mean * float(scaleto), vcov, H, float(scaleto))
