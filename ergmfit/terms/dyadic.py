"""Dyad-independent terms: edges, mutual, nodal and dyadic covariates.

Every term here is a sum over ties of a value that depends on the dyad
only, so each is ``dyad_independent`` and its change statistic is that
value (O(1) in the kernels of :mod:`._coreterms` (`_dyadic.pxi`)).  Definitions, argument
semantics and coefficient labels follow statnet ``ergm`` 4.4.

Categorical attributes (``nodefactor``, ``nodematch``, ``nodemix``, ...)
----------------------------------------------------------------------
The levels of an attribute are its distinct values sorted as R sorts them:
numbers numerically, ``False < True``, strings alphabetically
(case-insensitively first, lower case before upper case on ties, as in an
English locale).  If any value is a string the attribute is treated as a
character vector (numbers become their R text, e.g. ``7``, ``2.5``).
Labels print levels as R's ``as.character`` does (``TRUE``, ``8``, ``Hisp``;
floats with 15 significant digits, ``1e+05`` for the float 100000.0 while
the integer 100000 prints ``100000``).  ``attr`` may be a
list of attribute names: their values are pasted with ``.`` as statnet
does (``nodefactor(c("Sex", "Race"))`` -> ``nodefactor.Sex.Race.F.Black``).

A level selection (``levels``, ``keep``, ``levels2``, ``nodes``) is read as
statnet reads it:

* ``NULL`` / ``None`` or ``TRUE``: every level;
* positive whole numbers: 1-based indices into the sorted levels, in the
  given order (``levels=c(1, 3)``);
* negative whole numbers: every level except those (``levels=-1`` drops
  the first, ``levels=c(-1, -2)`` the first two; statnet's ``-(1:2)`` is
  not understood by the formula parser);
* strings: the levels whose label is that text (``levels=c("F")``, and,
  for numeric attributes, ``levels=c("7", "8")``: statnet's ``I(c(7, 8))``
  -- our formula parser drops ``I()``, so bare numbers are always
  indices);
* a list of ``TRUE``/``FALSE`` (recycled): logical indexing.

Differences from statnet: a selection naming a level the attribute does not
have, an index out of range, repeated levels, or a selection that leaves no
level at all is a :class:`TermError` (statnet keeps absent levels as
statistics that are always 0, or returns a term without statistics);
functions, formulas and ``COLLAPSE_SMALLEST`` level specifications are not
supported.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..exceptions import TermError
from ..formula import AsIs
from ..utils.optional import is_networkx_graph
from ._coreterms import AttrDyadTriadKernel
from ._operators import ProductKernel
from . import twomode
from ._coreterms import (AbsDiffCatKernel, AbsDiffKernel, DenseEdgeCovKernel, EdgesKernel,
                      FactorKernel, MatchKernel, MutualKernel, NodeCovKernel,
                      SparseEdgeCovKernel)
from .registry import BOTH, DIRECTED, UNDIRECTED, Param, Term, as_bool, as_float, register

_FAMILY = "dyad-independent"
_COV = "nodal and dyadic covariates"

# ends of a tie read by the nodal kernels (see _dyadic.pxi)
_BOTH_ENDS, _HEAD, _TAIL = 0, 1, 2


@register("edges", kinds=BOTH, aliases=("Arc", "Edge"), family="dyad-independent",
          cell_attrs=())
def edges(net):
    """Number of ties (statnet ``edges``; EstimNet ``Arc`` / ``Edge``)."""
    return Term("edges", ["edges"], EdgesKernel(), dyad_independent=True)


# ---------------------------------------------------------------------------
# R-style values, levels and level selection
# ---------------------------------------------------------------------------

def r_double(x) -> str:
    """A double as R's ``as.character`` prints it (15 significant digits,
    scientific notation when that is not longer: ``1e+05``, ``0.1``, ``2.5``)."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    mant, exp = f"{abs(x):.14e}".split("e")
    exp = int(exp)
    digits = mant.replace(".", "").rstrip("0") or "0"
    sign = "-" if x < 0 else ""
    sci = sign + digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + \
        f"e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    decimals = max(0, len(digits) - 1 - exp)
    fixed = sign + f"{abs(x):.{decimals}f}"
    return fixed if len(fixed) <= len(sci) else sci


def _norm(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    return str(v)


def _r_text(v) -> str:
    """R's as.character of one normalised value."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return r_double(v)
    return v


def _collate(s: str):
    # English-locale order: letters case-insensitively, lower case first on ties
    return (s.casefold(), s.swapcase())


def _column(vals):
    """Normalised values of one attribute and its R type."""
    vals = [_norm(v) for v in vals]
    if any(isinstance(v, str) for v in vals):
        return [_r_text(v) for v in vals], "character"
    if all(isinstance(v, bool) for v in vals):
        return vals, "logical"
    if any(isinstance(v, float) for v in vals):
        return [float(v) for v in vals], "double"
    return [int(v) for v in vals], "integer"


class Levels:
    """A categorical node attribute: its sorted levels and each node's level.

    ``name`` is the attribute name as it appears in labels, ``values`` the
    sorted distinct values, ``labels`` their R text, ``code[i]`` the index
    of node i's value in ``values``.
    """

    def __init__(self, net, attr, term):
        names = [attr] if isinstance(attr, str) else attr
        if not isinstance(names, (list, tuple)) or not names or \
                not all(isinstance(a, str) for a in names):
            raise TermError(f"term {term}: attr must be an attribute name (or a list of names), "
                            f"got {attr!r}")
        cols = [_column(net.node_attribute(a)) for a in names]
        if len(cols) == 1:
            vals, kind = cols[0]
        else:
            vals = [".".join(_r_text(c[0][i]) for c in cols) for i in range(net.n)]
            kind = "character"
        uniq = set(vals)
        key = _collate if kind == "character" else None
        self.values = sorted(uniq, key=key)
        self.labels = [_r_text(v) for v in self.values]
        index = {v: k for k, v in enumerate(self.values)}
        self.code = np.array([index[v] for v in vals], dtype=np.intc)
        self.name = ".".join(names)
        self.kind = kind

    def __len__(self):
        return len(self.values)

    def listing(self) -> str:
        shown = ", ".join(self.labels[:20]) + (", ..." if len(self.labels) > 20 else "")
        return f"the levels of {self.name!r}, sorted, are: {shown}"

    def select(self, term, argname, spec) -> list:
        """``select_levels`` over these levels, where a level named by value (a string,
        or ``I(...)``) that no node has is kept, as statnet keeps it: it is appended to
        the levels (no node's code points at it), so its statistic is 0 with its label."""
        absent = []
        sel = select_levels(term, argname, self.labels, spec, self.listing(), absent=absent)
        if absent:
            self.labels = self.labels + absent
            self.values = self.values + absent
        return sel


def select_levels(term, argname, labels, spec, listing="", absent=None) -> list:
    """0-based indices of the levels chosen by a statnet level selection.

    ``labels`` are the level labels in sorted order; see the module
    docstring for the forms of ``spec``.  Raises TermError for anything
    statnet would reject or that would give a meaningless statistic.
    Levels named by value (strings, ``I(...)``) that are not in ``labels``:
    an error, unless ``absent`` is a list, which then receives them (in
    order) and they get the indices ``len(labels)``, ``len(labels) + 1``, …
    (statnet uses such levels as given: their statistics are 0).
    """
    n = len(labels)
    where = f"term {term}: {argname}={spec!r}"
    hint = f" ({listing})" if listing else ""
    if spec is None:
        return list(range(n))
    items = list(spec) if isinstance(spec, (list, tuple, np.ndarray)) else [spec]
    if not items:
        raise TermError(f"{where} is empty{hint}")
    items = [_norm(v) if isinstance(v, (numbers.Number, np.generic)) else v for v in items]
    by_value = isinstance(spec, AsIs) or all(isinstance(v, str) for v in items)
    if by_value:      # strings or I(...): level values, not indices (statnet)
        lookup = {lab: k for k, lab in enumerate(labels)}
        texts = [v if isinstance(v, str) else _r_text(v) for v in items]
        missing = [t for t in dict.fromkeys(texts) if t not in lookup]
        if missing and absent is None:
            raise TermError(f"{where}: no level {missing[0]!r}{hint}")
        for t in missing:
            lookup[t] = n + len(absent)
            absent.append(t)
        out = [lookup[t] for t in texts]
    elif all(isinstance(v, bool) for v in items):
        out = [k for k in range(n) if items[k % len(items)]]
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        if not all(float(v).is_integer() for v in items):
            raise TermError(f"{where}: level indices must be whole numbers (to select levels "
                            f"by value give them as strings, e.g. {argname}=c('7', '8')){hint}")
        ints = [int(v) for v in items]
        pos = [v for v in ints if v > 0]
        neg = [v for v in ints if v < 0]
        if pos and neg:
            raise TermError(f"{where}: cannot mix positive (keep) and negative (drop) indices")
        if pos:
            bad = [v for v in pos if v > n]
            if bad:
                raise TermError(f"{where}: index {bad[0]} is out of range 1..{n}{hint}; numbers "
                                f"are level indices in statnet: to select levels by value write "
                                f"{argname}=I(c(...)) or give them as strings")
            out = [v - 1 for v in pos]
        else:
            drop = {-v - 1 for v in neg}
            out = [k for k in range(n) if k not in drop]
    else:
        raise TermError(f"{where}: give level indices (numbers), level names (strings), "
                        f"TRUE/FALSE, or NULL{hint}")
    if len(set(out)) != len(out):
        raise TermError(f"{where} selects a level twice{hint}")
    return out


def _nonempty(term, argname, spec, sel, listing):
    if not sel:
        raise TermError(f"term {term}: {argname}={spec!r} leaves no level, so the term would "
                        f"have no statistic ({listing})")
    return sel


def _base_drop(term, base, argname="levels"):
    """statnet's deprecated ``base`` (indices to drop) as a level selection (0 = keep all)."""
    vals = list(base) if isinstance(base, (list, tuple)) else [base]
    if not vals or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           and float(v).is_integer() for v in vals):
        raise TermError(f"term {term}: base must be whole level indices, got {base!r}")
    drop = [-abs(int(v)) for v in vals if int(v) != 0]
    spec = "NULL" if not drop else (str(drop[0]) if len(drop) == 1 else
                                    "c(" + ", ".join(map(str, drop)) + ")")
    warnings.warn(f"term {term}: 'base' is deprecated in statnet; select with "
                  f"{argname}={spec} instead", DeprecationWarning, stacklevel=5)
    return drop or None


def _base_levels(term, base, levels, default, argname="levels"):
    """The level selection when the deprecated ``base`` may be given (levels wins)."""
    if base is None or (not isinstance(base, (bool, list, tuple)) and base == 1) \
            or not (type(levels) is type(default) and levels == default):
        return levels
    return _base_drop(term, base, argname)


def _numeric_attr(net, attr, term):
    if not isinstance(attr, str):
        raise TermError(f"term {term}: attr must be the name of one numeric node attribute, "
                        f"got {attr!r}")
    try:
        return net.node_attribute(attr, numeric=True)
    except TermError as exc:
        raise TermError(f"term {term}: {exc}") from None


def _levels(net, attr, term):
    try:
        return Levels(net, attr, term)
    except TermError as exc:
        msg = str(exc)
        raise TermError(msg if msg.startswith("term ") else f"term {term}: {msg}") from None


# ---------------------------------------------------------------------------
# mutual
# ---------------------------------------------------------------------------

@register("mutual", kinds=DIRECTED, aliases=("Reciprocity",), family=_FAMILY,
          params=[Param("same", None), Param("by", None), Param("diff", False),
                  Param("keep", None), Param("levels", None)], bounds="increasing",
          reads="pair")
def mutual(net, same=None, by=None, diff=False, keep=None, levels=None):
    """Number of mutual dyads: Σ_{i<j} x_ij x_ji.

    statnet ``mutual`` (label ``mutual``); EstimNet ``Reciprocity``.
    Change statistic of i->j: x_ji.  ``same=attr``: mutual dyads whose ends share a
    level (``mutual.<attr>``; with ``diff``: ``mutual.same.<attr>.<level>``); ``by=attr``:
    per level, each mutual dyad counted for each end (``mutual.by.<attr>.<level>``).

    Example: ``edges + mutual``.
    """
    if same is not None or by is not None:
        return _mutual_attr(net, same, by, diff, keep, levels)
    if diff is not False or keep is not None or levels is not None:
        raise TermError("term mutual: diff, keep and levels need same= or by=")
    # x_ij's change statistic depends on x_ji: dyad-dependent (as statnet says), but on
    # no other dyad (reads="pair": the exact likelihood over node pairs, common.pairstates)
    return Term("mutual", ["mutual"], MutualKernel(), dyad_independent=False)


def _codes(net, term, attr, diff, levels):
    """Per-node statistic codes (-1: not counted) and the labels' level names."""
    lv = _levels(net, attr, term)
    sel = _nonempty(term, "levels", levels,
                    lv.select(term, "levels", levels), lv.listing())
    stat = np.full(len(lv), -1, dtype=np.intc)
    stat[sel] = np.arange(len(sel), dtype=np.intc)
    return lv, stat[lv.code].astype(np.intc), [lv.labels[k] for k in sel]


def _mutual_attr(net, same, by, diff, keep, levels):
    """mutual(same=, diff=) / mutual(by=) (called by dyadic.mutual)."""
    if same is not None and by is not None:
        raise TermError("term mutual: give same or by, not both")
    diff = as_bool(diff, "term mutual: diff")
    spec = keep if keep is not None else levels
    if by is not None:
        lv, code, labs = _codes(net, "mutual", by, True, spec)
        return Term("mutual", [f"mutual.by.{lv.name}.{lab}" for lab in labs],
                    AttrDyadTriadKernel(code, len(labs), "mutual_by", True))
    lv, code, labs = _codes(net, "mutual", same, diff, spec)
    labels = [f"mutual.same.{lv.name}.{lab}" for lab in labs] if diff else [f"mutual.{lv.name}"]
    return Term("mutual", labels, AttrDyadTriadKernel(code, len(labels), "mutual_same", diff))


# ---------------------------------------------------------------------------
# quantitative nodal covariates
# ---------------------------------------------------------------------------

def covariate_columns(term, attr, one):
    """statnet's numeric covariate terms over several attributes (``nodecov(c("a", "b"))``:
    its ``multiple="matrix"``): one statistic per attribute, labelled ``<term>.<name>``,
    stacked into one Term; ``one(name)`` builds the Term of one attribute."""
    if isinstance(attr, (list, tuple)) and len(attr) > 1 and \
            all(isinstance(a, str) for a in attr):
        from .stacking import stack
        return stack(term, [one(a) for a in attr])
    return one(attr[0] if isinstance(attr, (list, tuple)) and len(attr) == 1 else attr)


def _cov_term(net, term, attr, end):
    return covariate_columns(term, attr, lambda a: Term(
        term, [f"{term}.{a}"], NodeCovKernel(_numeric_attr(net, a, term), end),
        dyad_independent=True))


@register("nodecov", kinds=BOTH, aliases=("nodemain",), family=_COV, params=[Param("attr")],
          cell_attrs="attr")
def nodecov(net, attr):
    """Main effect of a numeric node attribute: Σ_{ties (i,j)} (x_i + x_j).

    statnet ``nodecov`` / ``nodemain`` (label ``nodecov.<attr>``), for
    undirected and directed networks (for an arc i->j both ends count).
    Several attributes (``nodecov(c("a", "b"))``): one statistic each,
    ``nodecov.a``, ``nodecov.b``, as statnet.

    Example: ``edges + nodecov('wealth')``.
    """
    return _cov_term(net, "nodecov", attr, _BOTH_ENDS)


@register("nodeicov", kinds=DIRECTED, aliases=("ContinuousReceiver",), family=_COV,
          params=[Param("attr")], cell_attrs="attr")
def nodeicov(net, attr):
    """Receiver effect of a numeric attribute: Σ_{arcs i->j} x_j.

    statnet ``nodeicov`` (label ``nodeicov.<attr>``); EstimNet
    ``ContinuousReceiver``.

    Example: ``edges + nodeicov('age')``.
    """
    return _cov_term(net, "nodeicov", attr, _HEAD)


@register("nodeocov", kinds=DIRECTED, aliases=("ContinuousSender",), family=_COV,
          params=[Param("attr")], cell_attrs="attr")
def nodeocov(net, attr):
    """Sender effect of a numeric attribute: Σ_{arcs i->j} x_i.

    statnet ``nodeocov`` (label ``nodeocov.<attr>``); EstimNet
    ``ContinuousSender``.

    Example: ``edges + nodeocov('age')``.
    """
    return _cov_term(net, "nodeocov", attr, _TAIL)


@register("absdiff", kinds=BOTH, family=_COV, params=[Param("attr"), Param("pow", 1)],
          cell_attrs="attr")
def absdiff(net, attr, pow=1):
    """Heterophily on a numeric attribute: Σ_{ties (i,j)} |x_i − x_j|^pow.

    statnet ``absdiff`` (label ``absdiff.<attr>``; with ``pow`` ≠ 1,
    ``absdiff<pow>.<attr>``, e.g. ``absdiff2.wealth``, as statnet pastes it).

    Example: ``edges + absdiff('wealth')``.
    """
    p = as_float(pow, "absdiff: pow")
    x = _numeric_attr(net, attr, "absdiff")
    label = f"absdiff.{attr}" if p == 1 else f"absdiff{r_double(p)}.{attr}"
    return Term("absdiff", [label], AbsDiffKernel(x, p), dyad_independent=True)


# ---------------------------------------------------------------------------
# categorical nodal covariates
# ---------------------------------------------------------------------------

def _factor(net, term, attr, base, levels, mode):
    lv = _levels(net, attr, term)
    levels = _base_levels(term, base, levels, -1)
    sel = _nonempty(term, "levels", levels,
                    lv.select(term, "levels", levels), lv.listing())
    stat = np.full(len(lv), -1, dtype=np.intc)
    stat[sel] = np.arange(len(sel), dtype=np.intc)
    labels = [f"{term}.{lv.name}.{lv.labels[k]}" for k in sel]
    return Term(term, labels, FactorKernel(stat[lv.code], len(sel), mode), dyad_independent=True)


_FACTOR_PARAMS = [Param("attr"), Param("base", 1), Param("levels", -1)]


@register("nodefactor", kinds=BOTH, family=_COV, params=_FACTOR_PARAMS, cell_attrs="attr")
def nodefactor(net, attr, base=1, levels=-1):
    """Factor main effect: one statistic per kept level ℓ,
    Σ_{ties (i,j)} ([a_i = ℓ] + [a_j = ℓ]) (both ends of an arc count).

    statnet ``nodefactor`` (labels ``nodefactor.<attr>.<level>``).  By
    default (``levels=-1``) the first sorted level is dropped; ``levels``
    follows statnet's level selection (module docstring); the deprecated
    ``base=k`` drops level k (``base=0`` keeps all).

    Example: ``edges + nodefactor('Grade')`` gives ``nodefactor.Grade.8``, ...
    """
    return _factor(net, "nodefactor", attr, base, levels, _BOTH_ENDS)


@register("nodeifactor", kinds=DIRECTED, family=_COV, params=_FACTOR_PARAMS, cell_attrs="attr")
def nodeifactor(net, attr, base=1, levels=-1):
    """Factor receiver effect: per kept level ℓ, Σ_{arcs i->j} [a_j = ℓ].

    statnet ``nodeifactor`` (labels ``nodeifactor.<attr>.<level>``),
    first level dropped by default, ``levels`` as for ``nodefactor``.

    Example: ``edges + nodeifactor('group')``.
    """
    return _factor(net, "nodeifactor", attr, base, levels, _HEAD)


@register("nodeofactor", kinds=DIRECTED, family=_COV, params=_FACTOR_PARAMS, cell_attrs="attr")
def nodeofactor(net, attr, base=1, levels=-1):
    """Factor sender effect: per kept level ℓ, Σ_{arcs i->j} [a_i = ℓ].

    statnet ``nodeofactor`` (labels ``nodeofactor.<attr>.<level>``),
    first level dropped by default, ``levels`` as for ``nodefactor``.

    Example: ``edges + nodeofactor('group')``.
    """
    return _factor(net, "nodeofactor", attr, base, levels, _TAIL)


@register("nodematch", kinds=BOTH, aliases=("match", "Matching"), family=_COV,
          params=[Param("attr"), Param("diff", False), Param("keep", None),
                  Param("levels", None)], cell_attrs="attr")
def nodematch(net, attr, diff=False, keep=None, levels=None):
    """Homophily: ties whose two ends share a (selected) level.

    ``diff=FALSE``: Σ_{ties (i,j)} [a_i = a_j ∈ L] (label
    ``nodematch.<attr>``); ``diff=TRUE``: one statistic per level ℓ ∈ L,
    Σ_{ties} [a_i = a_j = ℓ] (labels ``nodematch.<attr>.<level>``).  L is
    every level unless ``levels`` (statnet level selection, module
    docstring) or the deprecated ``keep`` (1-based indices into the sorted
    levels) restricts it.  statnet ``nodematch`` / ``match``; EstimNet
    ``Matching``.

    Example: ``edges + nodematch('gender', diff=TRUE)``.
    """
    diff = as_bool(diff, "nodematch: diff")
    lv = _levels(net, attr, "nodematch")
    if keep is not None and levels is not None:
        raise TermError("term nodematch: give levels or keep (deprecated), not both")
    argname, spec = ("keep", keep) if keep is not None else ("levels", levels)
    sel = _nonempty("nodematch", argname, spec,
                    lv.select("nodematch", argname, spec),
                    lv.listing())
    code = np.full(len(lv), -1, dtype=np.intc)
    code[sel] = np.arange(len(sel), dtype=np.intc)
    if diff:
        labels = [f"nodematch.{lv.name}.{lv.labels[k]}" for k in sel]
    else:
        labels = [f"nodematch.{lv.name}"]
    return Term("nodematch", labels, MatchKernel(code[lv.code], len(labels), diff),
                dyad_independent=True)


@register("absdiffcat", kinds=BOTH, family=_COV,
          params=[Param("attr"), Param("base", None), Param("levels", None)], cell_attrs="attr")
def absdiffcat(net, attr, base=None, levels=None):
    """One statistic per distinct nonzero value d of |x_i − x_j| over all
    pairs of nodes: the number of ties with |x_i − x_j| = d.

    statnet ``absdiffcat`` (labels ``absdiff.<attr>.<d>``); ``levels``
    selects among the sorted differences (statnet level selection); the
    deprecated ``base`` drops the given indices.

    Example: ``edges + absdiffcat('Grade')``.
    """
    x = _numeric_attr(net, attr, "absdiffcat")
    integer = all(isinstance(_norm(v), (int, bool)) for v in net.node_attrs[attr])
    u = np.unique(x)
    d = np.unique(np.abs(u[:, None] - u[None, :]))
    d = d[d > 0]
    if not len(d):
        raise TermError(f"term absdiffcat: node attribute {attr!r} has a single value, so "
                        "there is no nonzero difference")
    labels_all = [str(int(v)) if integer else r_double(v) for v in d]
    if base is not None and levels is None:
        levels = _base_drop("absdiffcat", base)
    listing = f"the nonzero differences of {attr!r} are: {', '.join(labels_all[:20])}"
    sel = _nonempty("absdiffcat", "levels", levels,
                    select_levels("absdiffcat", "levels", labels_all, levels, listing), listing)
    stat = np.full(len(d), -1, dtype=np.intc)
    stat[sel] = np.arange(len(sel), dtype=np.intc)
    labels = [f"absdiff.{attr}.{labels_all[k]}" for k in sel]
    return Term("absdiffcat", labels, AbsDiffCatKernel(x, d, stat, len(sel)),
                dyad_independent=True)


# ---------------------------------------------------------------------------
# node-specific effects
# ---------------------------------------------------------------------------

def _node_effect(net, term, base, nodes, mode):
    nodes = _base_levels(term, base, nodes, -1, "nodes")
    labels_all = [str(k + 1) for k in range(net.n)]
    listing = f"nodes are numbered 1..{net.n}"
    sel = _nonempty(term, "nodes", nodes, select_levels(term, "nodes", labels_all, nodes, listing),
                    listing)
    code = np.full(net.n, -1, dtype=np.intc)
    code[sel] = np.arange(len(sel), dtype=np.intc)
    labels = [f"{term}{k + 1}" for k in sel]
    return Term(term, labels, FactorKernel(code, len(sel), mode), dyad_independent=True)


_NODE_PARAMS = [Param("base", 1), Param("nodes", -1)]


@register("sender", kinds=DIRECTED, family=_COV, params=_NODE_PARAMS)
def sender(net, base=1, nodes=-1):
    """Out-degree of each selected node k: Σ_j x_kj (one statistic per node).

    statnet ``sender`` (labels ``sender<k>``, k the 1-based node index);
    ``nodes`` selects nodes as a level selection (default ``-1``: all but
    node 1).

    Example: ``edges + sender``.
    """
    return _node_effect(net, "sender", base, nodes, _TAIL)


@register("receiver", kinds=DIRECTED, family=_COV, params=_NODE_PARAMS)
def receiver(net, base=1, nodes=-1):
    """In-degree of each selected node k: Σ_i x_ik (labels ``receiver<k>``).

    statnet ``receiver``; ``nodes`` as for ``sender``.

    Example: ``edges + receiver``.
    """
    return _node_effect(net, "receiver", base, nodes, _HEAD)


@register("sociality", kinds=UNDIRECTED, family=_COV,
          params=[Param("attr", None), Param("base", 1), Param("levels", None),
                  Param("nodes", -1)])
def sociality(net, attr=None, base=1, levels=None, nodes=-1):
    """Degree of each selected node k (labels ``sociality<k>``); ``nodes`` as for
    ``sender``.

    With ``attr`` (deprecated in statnet but documented), node k's statistic counts only
    its ties to nodes with the same value of ``attr``, that value one of ``levels`` (a
    statnet level selection; NULL: every value), so a node whose own value is not
    selected has 0: Σ_j x_kj [a_k = a_j ∈ L].  Labels ``sociality<k>.<attr>``.

    Example: ``edges + sociality``, ``sociality(attr="Sex", levels=2)``.
    """
    if attr is None:
        if levels is not None:
            raise TermError("term sociality: levels selects values of attr=; give attr= too")
        return _node_effect(net, "sociality", base, nodes, _BOTH_ENDS)
    nodes_term = _node_effect(net, "sociality", base, nodes, _BOTH_ENDS)
    lv, code, _ = _codes(net, "sociality", attr, False, levels)
    same = MatchKernel(code, 1, False)
    # per selected node, ties to a node of the same selected level: the product of the
    # node indicator changes and the match change (both dyad-independent)
    return Term("sociality", [f"{lab}.{lv.name}" for lab in nodes_term.labels],
                ProductKernel(nodes_term.kernel, same), dyad_independent=True)


# ---------------------------------------------------------------------------
# dyadic covariate
# ---------------------------------------------------------------------------

def _csr(n, rows, cols, data):
    order = np.lexsort((cols, rows))
    rows, cols, data = rows[order], cols[order], data[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, rows + 1, 1)
    return np.cumsum(indptr), cols.astype(np.intc), data.astype(np.float64)


def _as_float_values(vals, what):
    out = np.empty(len(vals))
    for k, v in enumerate(vals):
        if v is None or isinstance(v, str) or not isinstance(v, (numbers.Real, np.bool_)):
            raise TermError(f"term edgecov: {what} must be numeric, but it has the value {v!r}")
        out[k] = float(v)
    bad = ~np.isfinite(out)
    if bad.any():
        raise TermError(f"term edgecov: {what} has {int(bad.sum())} missing or infinite "
                        "value(s) (NaN/inf); fill them first")
    return out


def _edgecov_kernel(net, obj, what):
    """A kernel for an n x n covariate (dense, scipy sparse, or nested lists); on a two-mode
    network also statnet's n1 x n2 form (mode-1 rows, mode-2 columns)."""
    n = net.n
    try:
        import scipy.sparse as sp
    except ImportError:     # pragma: no cover - scipy is a dependency
        sp = None
    if sp is not None and sp.issparse(obj):
        m = sp.csr_matrix(obj)
        if twomode.is_block(net, m.shape):
            m = twomode.sparse(net, m)
        if m.shape != (n, n):
            raise TermError(f"term edgecov: {what} has shape {m.shape}, but the network has "
                            f"{n} nodes: it must be {twomode.expected_shape(net)}")
        if not (np.issubdtype(m.dtype, np.number) or m.dtype == bool):
            raise TermError(f"term edgecov: {what} must be numeric, got dtype {m.dtype}")
        m = m.astype(np.float64)
        if not np.all(np.isfinite(m.data)):
            raise TermError(f"term edgecov: {what} has missing or infinite values (NaN/inf)")
        if not net.directed and (m - m.T).count_nonzero():
            _warn_asymmetric(what)
        m.sum_duplicates()
        m.sort_indices()
        return SparseEdgeCovKernel(m.indptr.astype(np.int64), m.indices, m.data)
    try:
        arr = np.asarray(obj)
    except Exception:
        raise TermError(f"term edgecov: {what} is not a matrix ({type(obj).__name__})") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TermError(f"term edgecov: {what} must be a numeric matrix; it has non-numeric "
                            "entries") from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TermError(f"term edgecov: {what} must be a numeric matrix, got dtype {arr.dtype}")
    if twomode.is_block(net, arr.shape):
        arr = np.asarray(arr, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise TermError(f"term edgecov: {what} has missing or infinite values (NaN/inf)")
        if n > twomode.DENSE_MAX_N:
            return _edgecov_kernel(net, twomode.sparse(net, arr), what)
        return DenseEdgeCovKernel(twomode.dense(net, arr))
    if arr.shape != (n, n):
        raise TermError(f"term edgecov: {what} has shape {arr.shape}, but the network has {n} "
                        f"nodes: it must be {twomode.expected_shape(net)}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    off = ~np.eye(n, dtype=bool)
    if not np.all(np.isfinite(arr[off])):
        raise TermError(f"term edgecov: {what} has missing or infinite values (NaN/inf) "
                        "off the diagonal")
    if not net.directed and not np.array_equal(arr[off], arr.T[off]):
        _warn_asymmetric(what)
    return DenseEdgeCovKernel(arr)


def _warn_asymmetric(what):
    warnings.warn(f"term edgecov: {what} is not symmetric; for an undirected network the value "
                  "x[i, j] with i < j (upper triangle, node order) is used, as statnet does",
                  UserWarning, stacklevel=5)


def _graph_covariate(net, g, attrname, what):
    index = {lab: k for k, lab in enumerate(net.labels)}
    rows, cols, vals = [], [], []
    for u, v, d in g.edges(data=True):
        if u not in index or v not in index:
            raise TermError(f"term edgecov: {what} has a tie ({u!r}, {v!r}) between nodes "
                            "that are not in the network")
        if attrname is None:
            val = 1.0
        elif attrname not in d:
            have = sorted({k for _, _, dd in g.edges(data=True) for k in dd})
            raise TermError(f"term edgecov: the ties of {what} have no attribute {attrname!r}; "
                            f"they have: {', '.join(map(repr, have)) or 'none'}")
        else:
            val = d[attrname]
        a, b = index[u], index[v]
        pairs = [(a, b)]
        if not net.directed:
            pairs = [(min(a, b), max(a, b))]
        elif not g.is_directed():
            pairs = [(a, b), (b, a)]
        for r, c in pairs:
            rows.append(r); cols.append(c); vals.append(val)
    data = _as_float_values(vals, f"the tie attribute {attrname!r} of {what}")
    return SparseEdgeCovKernel(*_csr(net.n, np.array(rows, dtype=np.int64),
                                     np.array(cols, dtype=np.int64), data))


@register("edgecov", kinds=BOTH, family=_COV,
          params=[Param("x"), Param("attrname", None)])
def edgecov(net, x, attrname=None):
    """Dyadic covariate: Σ_{ties (i,j)} y_ij for a fixed n x n matrix y.

    ``x`` names a network-level attribute (``g.graph[x]``) holding a numeric
    n x n matrix (numpy array, nested lists, scipy sparse matrix; rows and
    columns in node order), or a graph whose ties (valued by their
    attribute ``attrname``, or 1) give y; or it names an edge attribute of
    the network, and then y_ij is that attribute's value on the observed tie
    (i, j) and 0 on every other dyad (statnet ``edgecov(nw, "attr")``).
    For undirected networks y_ij with i < j (the upper triangle) is used,
    as statnet does; an asymmetric matrix gives a warning.  statnet
    ``edgecov`` (label ``edgecov.<x>``, or ``edgecov.<attrname>``).

    Example: ``edges + edgecov('distance')`` with ``g.graph['distance'] = D``.
    """
    if not isinstance(x, str):
        if attrname is not None:
            raise TermError("term edgecov: attrname applies when x names a graph")
        return Term("edgecov", ["edgecov"], _edgecov_kernel(net, x, "the covariate matrix"),
                    dyad_independent=True)
    if attrname is not None and not isinstance(attrname, str):
        raise TermError(f"term edgecov: attrname must be a name, got {attrname!r}")
    label = f"edgecov.{attrname if attrname is not None else x}"
    if x in net.graph_attrs:
        obj = net.graph_attrs[x]
        what = f"the network attribute {x!r}"
        if is_networkx_graph(obj):
            kernel = _graph_covariate(net, obj, attrname, what)
        elif attrname is not None:
            raise TermError(f"term edgecov: attrname={attrname!r} applies only when {what} is a "
                            "graph; it is a matrix")
        else:
            kernel = _edgecov_kernel(net, obj, what)
    elif x in net.edge_attrs:
        if attrname is not None:
            raise TermError(f"term edgecov: attrname applies only when {x!r} names a graph "
                            "(a network attribute)")
        data = _as_float_values(list(net.edge_attrs[x]), f"the edge attribute {x!r}")
        ties = net.ties
        kernel = SparseEdgeCovKernel(*_csr(net.n, ties[:, 0].astype(np.int64),
                                           ties[:, 1].astype(np.int64), data))
    else:
        g_have = ", ".join(repr(a) for a in sorted(net.graph_attrs)) or "none"
        e_have = ", ".join(repr(a) for a in sorted(net.edge_attrs)) or "none"
        raise TermError(f"term edgecov: the network has no network attribute or edge attribute "
                        f"{x!r}; its network attributes are: {g_have}; its edge attributes "
                        f"are: {e_have}")
    return Term("edgecov", [label], kernel, dyad_independent=True)
