"""ergm.multi's operators on stacked networks: ``N()`` (several networks, an ``lm``-style
design over network-level attributes) and ``L()`` (layer logic on a multilayer network).

``N(~f, lm=~x, subset=~expr)`` on :class:`~ergmfit.network.networks.Networks`: the
statistics of ``f`` computed per network and combined through the network-level design
matrix X of ``lm`` (default ``~1``: the plain sum over networks), statistic s and design
column k giving ``sum_b X[b, k] f_s(network b)``, labelled ``N(<column>)~<label>`` with
R's column names (``N(1)`` for the intercept, ``N(wave)``, ``N(factor(size)3)``, ...).
The kernel scales the sub-formula's change of a toggle in network b by row b of X
(:class:`._coreterms.NetworkDesignKernel`, source `_multinet.pxi`).

``L(~f, ~logic)`` on :class:`~ergmfit.network.networks.Layers`: the statistics of ``f`` on
the logical layer where ``logic`` of the layers' ties holds (``~advice``,
``~advice&friendship``, ``~advice&!friendship``, ``~xor(a, b)``, ...), labelled
``L(<logic>)~<label>``; a list of logics sums the statistics (statnet's ``L(f, list(...))``).

The inner terms are evaluated on the combined network (``N``) or on one layer's node set
(``L``): a term whose statistic is a sum over the dyads, nodes or triads of a network
(every counting term of ergm) gives the per-network values exactly; a term normalised by
the network's size (``density``, ``meandeg``) or a nonlinear operator would not, and is
refused.

References
----------
Krivitsky, P. N., Koehly, L. M. and Marcum, C. S. (2020). Exponential-family random graph
models for multi-layer networks. Psychometrika 85, 630-659.

Krivitsky, P. N., Coletti, P. and Hens, N. (2023). A tale of two datasets:
representativeness and generalisability of inference for samples of networks. JASA
118(544), 2213-2224.
"""
from __future__ import annotations

import re
import threading

import numpy as np

from ..exceptions import TermError
from ..formula import FormulaArg, RCode, compact_text
from ..network.networks import stacked_view
from . import _coreterms
from ._coreterms import (LAYER_SP_KINDS, LAYER_SP_TYPES, LAYER_STAR_TYPES, DyadLayerKernel,
                        LayerLogicKernel, NetworkDesignKernel, SharedPartnerLayerKernel,
                        TwoStarLayerKernel)
from .netexpr import evaluate
from .curvemap import curve_leaves, keep_curvature
from .operators import build_formula
from .registry import BOTH, Param, Term, format_number, register
from .stacking import stack

FAMILY = "multinet"

#: kernels whose change statistic reads no tie of the network (edges, node and dyadic
#: covariates; ``mutual`` reads the reverse tie and is not one of them): an L() term of
#: them keeps no logical layer, and the constrained sampler scores them first (its
#: factorised stage, ``sampling/_constrainedmh.pxi``)
TIE_FREE_KERNELS = tuple(getattr(_coreterms, name) for name in (
    "EdgesKernel", "NodeCovKernel", "AbsDiffKernel", "FactorKernel", "MatchKernel", "MixKernel",
    "AbsDiffCatKernel", "DenseEdgeCovKernel", "SparseEdgeCovKernel"))

#: terms whose statistic is normalised by the network's size: not a sum over networks
_SIZE_NORMALISED = frozenset({"density", "meandeg"})
_IN_N = threading.local()       # N() terms whose inner formula is being built, per thread


# -- the network-level design of N() --------------------------------------------------

def _split_top(text, seps):
    """Split ``text`` at the top-level characters of ``seps`` (outside brackets and
    strings): [(sign, piece), ...] with sign the separator before the piece."""
    out, depth, quote, start, sign = [], 0, None, 0, "+"
    for k, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'`":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in seps:
            out.append((sign, text[start:k]))
            sign, start = ch, k + 1
    out.append((sign, text[start:]))
    return out


def _levels(values):
    vals = [v for v in values]
    if all(isinstance(v, (bool, np.bool_)) for v in vals):
        return [False, True]
    try:
        return sorted(set(vals))
    except TypeError:
        return sorted(set(vals), key=str)


def _level_text(v):
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float, np.number)):
        return format_number(v)
    return str(v)


def _variable(piece, env, what):
    """One lm variable: (column values (B, k), column name suffixes or None for numeric,
    its text)."""
    text = compact_text(piece.strip())
    m = re.fullmatch(r"(?:as\.)?factor\((.+)\)", text)
    if m:
        vals = np.asarray(evaluate(m.group(1), env, what), dtype=object)
        return vals, True, text
    vals = evaluate(piece, env, what)
    arr = np.asarray(vals, dtype=object)
    if arr.ndim == 0:
        arr = np.full(len(next(iter(env.values()))), arr.item(), dtype=object)
    factor = not all(isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))
                     for v in arr)
    return arr, factor, text


def design_matrix(net, lm, what="N()"):
    """(X, column names) of the lm formula text ``lm`` over the network-level attributes of
    ``net`` (and ``.NetworkID``/``.NetworkName``), with R's ``model.matrix`` rules:
    an intercept unless ``0``/``-1``; numeric variables as they are; a text, logical or
    ``factor()`` variable as indicators of its sorted levels, the first dropped when the
    model has an intercept (or an earlier factor); ``a:b`` products of numeric variables.

    >>> import networkx as nx, ergmfit as ef
    >>> nets = ef.Networks([nx.path_graph(3)] * 3, attrs={"wave": [1, 2, 3]})
    >>> X, names = design_matrix(nets, "wave")
    >>> X.tolist(), names
    ([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]], ['1', 'wave'])
    """
    B = len(net.blocks)
    env = _network_env(net)
    intercept, cols, names, had_factor = True, [], [], False
    for sign, piece in _split_top(lm, "+-"):
        p = piece.strip()
        if not p:
            if sign == "-" or not cols and sign == "+" and p == "":
                continue
            continue
        if p in ("0", "1"):
            intercept = (p == "1") if sign == "+" else (p != "1")
            continue
        if sign == "-":
            raise TermError(f"{what}: lm=~{lm}: removing the term {p!r} is not supported "
                            "(only -1)")
        parts = [_variable(q, env, what) for _, q in _split_top(p, ":")]
        if len(parts) > 1:
            if any(f for _, f, _ in parts):
                raise TermError(f"{what}: lm=~{lm}: interactions with factors are not "
                                "supported; interactions of numeric variables are")
            col = np.prod([np.asarray(v, dtype=float) for v, _, _ in parts], axis=0)
            cols.append(col)
            names.append(":".join(t for _, _, t in parts))
            continue
        vals, factor, text = parts[0]
        if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in vals):
            raise TermError(f"{what}: the network attribute in lm=~{lm} ({text}) is missing "
                            "for some networks; select the others with subset=")
        if not factor:
            cols.append(np.asarray(vals, dtype=float))
            names.append(text)
            continue
        levels = _levels(vals)
        keep = levels if not intercept and not had_factor else levels[1:]
        had_factor = True
        for lev in keep:
            cols.append(np.array([1.0 if v == lev else 0.0 for v in vals]))
            names.append(f"{text}{_level_text(lev)}")
    if intercept:
        cols.insert(0, np.ones(B))
        names.insert(0, "1")
    if not cols:
        raise TermError(f"{what}: lm=~{lm} gives no column")
    X = np.column_stack(cols).astype(float)
    bad = [nm for nm, col in zip(names, X.T) if not np.all(np.isfinite(col))]
    if bad:
        raise TermError(f"{what}: lm=~{lm}: the column(s) {bad} are not finite for some "
                        "networks (a division by 0, a log of 0 or a number too large)")
    return X, names


def _network_env(net):
    """The network-level attributes as arrays (float where every value is a number), with
    ``.NetworkID`` (1, 2, ...) and ``.NetworkName``."""
    env = {}
    for a, v in net.network_attrs.items():
        numeric = all(isinstance(x, (int, float, np.number)) and not isinstance(x, (bool, np.bool_))
                      for x in v)
        env[a] = np.asarray(v, dtype=float if numeric else object)
    env[".NetworkID"] = np.arange(1, len(net.blocks) + 1, dtype=float)
    env[".NetworkName"] = np.asarray([b.name for b in net.blocks], dtype=object)
    return env


def _subset(net, subset, what):
    if subset is True or subset is None:
        return np.ones(len(net.blocks), dtype=bool)
    text = subset.text if isinstance(subset, FormulaArg) else subset
    if not isinstance(text, str):
        raise TermError(f"{what}: subset must be TRUE or an expression (~wave > 1), got "
                        f"{subset!r}")
    env = _network_env(net)
    keep = np.broadcast_to(np.asarray(evaluate(text, env, f"{what} subset"), dtype=bool),
                           (len(net.blocks),))
    return np.array(keep)


def _check_inner(terms, what):
    """Refuse inner terms that are not sums over networks (layers); curved terms pass."""
    for t in terms:
        if t.name in _SIZE_NORMALISED:
            raise TermError(f"{what}: {t.name} is normalised by the network's size, so it is "
                            "not a sum over networks; use edges (and the lm design) instead")
        if getattr(t.kernel, "exact_total", False):
            raise TermError(f"{what}: the nonlinear term {t.name} cannot be evaluated per "
                            "network here")
        if getattr(t, "fixed", None) is not None or getattr(t, "curve_map", None) is not None:
            raise TermError(f"{what}: Offset() and Curve() inside it are not supported "
                            f"({t.name}); put {what[:-2]}() inside them instead")


def _per_block_empty(net, terms, f, rows):
    """sum_b rows[b] * (the inner statistics of network b when empty): zero for counting
    terms of ties; nodes without ties (isolates, degree(0)) count per network."""
    inner = np.concatenate([t.on_empty() for t in terms]) if terms else np.zeros(0)
    if not inner.any():
        return np.zeros((len(inner), rows.shape[1]))
    labels = [lab for t in terms for lab in t.labels]
    out = np.zeros((len(inner), rows.shape[1]))
    for b in range(len(net.blocks)):
        sub = build_formula(net.block_network(b), f)
        if [lab for t in sub for lab in t.labels] != labels:
            raise TermError("N(): the inner terms give other statistics on a single network "
                            f"(network {b + 1}) than on all of them, and have nonzero values "
                            "on the empty network; not supported")
        out += np.outer(np.concatenate([t.on_empty() for t in sub]), rows[b])
    return out


@register("N", kinds=BOTH, params=[Param("formula"), Param("lm", None),
                                   Param("subset", True), Param("weights", 1),
                                   Param("contrasts", None), Param("offset", 0),
                                   Param("label", None)], family=FAMILY)
def n_operator(net, formula, lm=None, subset=True, weights=1, contrasts=None, offset=0,
               label=None):
    """ergm.multi's ``N(formula, lm=~1, subset=TRUE, offset=0)`` on ``ef.Networks([...])``:
    the statistics of ``formula`` on each network, combined through the network-level design
    ``lm`` (default: summed). Labels ``N(1)~edges``, ``N(wave)~edges``, ...

    Network b's coefficients of ``formula`` are ``X[b] @ theta + offset[b]`` (X the ``lm``
    design): ``offset`` is a number, one per network, or a (networks x parameters of
    ``formula``) matrix, as statnet's.  With curved terms inside (``gwesp(fixed=FALSE)``) or
    an offset the term holds every network's statistics and maps the coefficients to each
    network's; its parameters are ``N(<column>)~gwesp``, ``N(<column>)~gwesp.decay``.
    ``weights`` is reserved by statnet (it refuses any other value) and so here."""
    if getattr(_IN_N, "depth", 0):
        # ergm.multi evaluates N()'s formula on each network alone, where an inner N() has
        # no networks to combine; here it would silently be N() of the whole set again
        raise TermError("N(): N() inside another N()'s formula is not a model (the inner "
                        "formula is evaluated on each network alone, which has no networks "
                        "to combine); put the terms in one N(~...), with lm= for "
                        "network-level effects")
    net = stacked_view(net) or net
    if not hasattr(net, "blocks"):
        raise TermError("N() needs several networks: ef.ERGM(ef.Networks([g1, g2, ...]), "
                        "'N(~edges)')")
    if not isinstance(formula, FormulaArg):
        raise TermError(f"N(): the formula must be a formula such as ~edges, got {formula!r}")
    if not (isinstance(weights, (int, float)) and not isinstance(weights, bool)
            and weights == 1):
        raise TermError("N(): weights= is reserved in statnet (ergm.multi refuses any value "
                        "but 1: networks cannot be given sampling weights); leave it out")
    if contrasts is not None or label is not None:
        raise TermError("N(): contrasts= and label= are not supported (use factor() in lm= "
                        "and the default labels)")
    if lm is None:
        lm_text = "1"
    elif isinstance(lm, FormulaArg):
        lm_text = lm.text
    else:
        raise TermError(f"N(): lm must be a formula such as ~wave, got {lm!r}")
    from .offsets import split_offsets
    if split_offsets(formula.text)[1]:
        # ergm.multi refuses it ("The ERGM 'formula=' argument of an 'N()' operator may not
        # have offsets", its issue 4): the inner coefficients are the lm's combinations
        raise TermError(f"N(): offset() inside N()'s formula ({formula.compact}) is refused, as "
                        "ergm.multi does: the coefficients of N()'s formula are combinations "
                        "of the lm= design's; fix one with offset() around the operator "
                        "(offset(N(~term)), offset(N(~term, lm=~x), which)) or give each "
                        "network's fixed part with N(~term, offset=...)")
    X, cols = design_matrix(net, lm_text)
    keep = _subset(net, subset, "N()")[:, None]
    X = X * keep
    _IN_N.depth = getattr(_IN_N, "depth", 0) + 1
    try:
        terms = build_formula(net, formula)
    finally:
        _IN_N.depth -= 1
    _check_inner(terms, "N()")
    leaves = curve_leaves("N", terms)
    _advise_within(terms, lambda call: f"N(~{call}" + (f", lm=~{lm_text})" if lm is not None
                                                         else ")"))
    params = [lab for t in terms for lab in t.param_labels]
    # a network outside subset= is not affected by the term at all, its offset included
    offsets = _offset_matrix(offset, len(net.blocks), params) * keep
    labels = [f"N({c})~{lab}" for t in terms for lab in t.labels for c in cols]
    one_column = X.shape[1] == 1 and np.isin(X, (0.0, 1.0)).all()
    if offsets.any() or (leaves is not None and not one_column):
        return _per_network_term(net, terms, formula, X, cols, offsets, leaves)
    # every network (of the subset) has the same coefficients: the summed statistics,
    # curved terms keeping their parameters (N(1)~gwesp, N(1)~gwesp.decay)
    kernel = NetworkDesignKernel([t.kernel for t in terms], net.block_of, X)
    empty = _per_block_empty(net, terms, formula, X).reshape(-1)
    term = Term("N", labels, kernel, empty=empty,
                dyad_independent=all(t.dyad_independent for t in terms))
    term.reads = _reads_within(terms)
    return keep_curvature("N", term, terms, lambda names: [f"N({cols[0]})~{n}" for n in names])


def _reads_within(terms):
    """What the change statistic of a dyad of one network reads, N() over ``terms``: the
    widest of theirs (``Term.reads``), None when one reads other dyads."""
    loc = [t.locality for t in terms]
    if any(x is None for x in loc):
        return None
    return "node pair" if "node pair" in loc else "pair" if "pair" in loc else None


def _advise_within(terms, wrap):
    """Make the advice to fix a curved inner term's decay a call that parses: the inner
    term with its decay fixed (:func:`~ergmfit.terms.curved.fixed_term`) inside the
    operator, ``wrap(inner call)`` (``N(~gwesp(0.5, fixed=TRUE), lm=~wave)``), not the
    operator's parameter label with arguments glued on (``N(wave)~gwesp(0.5, fixed=TRUE)``).
    Sets the ``fixed_form`` of the inner terms' own curves (built for this operator)."""
    from .curved import fixed_term
    for leaf in curve_leaves("", terms) or []:
        if leaf.curve is not None:
            leaf.curve.fixed_form = wrap(fixed_term(leaf.curve, leaf.param_labels[0],
                                                    "{decay}"))


def _offset_matrix(offset, B, params):
    """statnet's ``offset``: a number, one per network, or a (networks x parameters)
    matrix (an R ``matrix(..., nrow=B)`` is read column by column), as a B x p array."""
    p = len(params)
    vals = offset if isinstance(offset, list) else [offset]
    if isinstance(offset, RCode) or not vals or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        raise TermError(f"N(): offset must be a number, one number per network or a "
                        f"networks x parameters matrix, got {offset!r}")
    vals = np.asarray(vals, dtype=float)
    if not np.isfinite(vals).all():
        raise TermError("N(): offset must be finite")
    if len(vals) == 1:
        return np.full((B, p), vals[0])
    if len(vals) == B:
        return np.repeat(vals[:, None], p, axis=1)
    if len(vals) == B * p:
        return vals.reshape(p, B).T
    raise TermError(f"N(): offset has {len(vals)} values; give 1, one per network ({B}) or "
                    f"one per network and parameter ({B} x {p} = {B * p}: the parameters "
                    f"are {', '.join(params)})")


def _per_network_term(net, terms, formula, X, cols, offsets, leaves):
    """N() over curved terms or with an offset: the statistics of every network
    (``N[<network>]~<label>``) and the map theta -> each network's coefficients
    ``inner.eta(X[b] @ theta + offset[b])``."""
    from .parameterisation import Curved
    from types import SimpleNamespace
    B, K = X.shape
    inner = Curved(leaves if leaves is not None else
                   [SimpleNamespace(param_labels=list(t.labels), labels=list(t.labels),
                                    curve=None) for t in terms])
    p, q = inner.n_params, inner.n_stats
    kernel = NetworkDesignKernel([t.kernel for t in terms], net.block_of, np.eye(B))
    names = [b.name for b in net.blocks]
    labels = [f"N[{nm}]~{lab}" for t in terms for lab in t.labels for nm in names]
    empty = _per_block_empty(net, terms, formula, np.eye(B)).reshape(-1)

    def psi(theta):              # (B, p): each network's parameters of the inner model
        return X @ np.asarray(theta, dtype=float).reshape(p, K).T + offsets

    def eta(theta):
        out = np.empty((q, B))
        for b, row in enumerate(psi(theta)):
            out[:, b] = inner.eta(row)
        return out.reshape(-1)

    def jac(theta):
        out = np.zeros((q, B, p, K))
        for b, row in enumerate(psi(theta)):
            out[:, b, :, :] = inner.jacobian(row)[:, :, None] * X[b][None, None, :]
        return out.reshape(q * B, p * K)

    lower = np.full(p * K, -np.inf)
    if K == 1 and np.all(X == 1) and not offsets.any():
        lower = np.asarray(inner.lower_bounds(), dtype=float)
    term = Term("N", labels, kernel, empty=empty,
                dyad_independent=all(t.dyad_independent for t in terms))
    term.reads = _reads_within(terms)
    term.param_labels = [f"N({c})~{lab}" for lab in inner.param_labels for c in cols]
    term.curve_map = {"map": {"eta": eta, "jac": jac, "affine": leaves is None},
                      "lower": lower, "upper": np.full(p * K, np.inf), "why": None}
    return term


# -- layer logic ------------------------------------------------------------------

def layer_table(net, text, what="L()"):
    """The truth table of the layer logic ``text`` over the layers of ``net``: entry
    ``bits`` (bit m = a tie in layer m) is 1 where the logic holds."""
    L = len(net.blocks)
    codes = np.arange(1 << L)
    env = {str(b.name): (codes >> m) & 1 for m, b in enumerate(net.blocks)}
    try:
        val = evaluate(text, env, f"{what} layer logic")
    except TermError as exc:
        raise TermError(f"{exc}; the layers are {', '.join(map(str, env))}") from None
    table = np.broadcast_to(np.asarray(val, dtype=float) != 0, codes.shape).astype(np.uint8)
    if table[0]:
        raise TermError(f"{what}: the layer logic ~{text} holds where no layer has a tie; "
                        "the logical layer would be dense and is not supported")
    return table


@register("L", kinds=BOTH, params=[Param("formula"), Param("Ls")], family=FAMILY)
def l_operator(net, formula, Ls):
    """ergm.multi's ``L(formula, Ls)`` on ``ef.Layer(...)``: the statistics of ``formula``
    on the logical layer ``Ls`` (``~advice``, ``~advice&!friendship``, ...; a list sums
    them). Labels ``L(advice&!friendship)~edges``."""
    net = stacked_view(net) or net
    if not hasattr(net, "layer_names"):
        raise TermError("L() needs a multilayer network: ef.ERGM(ef.Layer({...}), "
                        "'L(~edges, ~advice)')")
    if not isinstance(formula, FormulaArg):
        raise TermError(f"L(): the formula must be a formula such as ~edges, got {formula!r}")
    logics = Ls if isinstance(Ls, list) else [Ls]
    if not logics or not all(isinstance(x, FormulaArg) for x in logics):
        raise TermError(f"L(): Ls must be a layer logic formula (~advice&friendship) or a "
                        f"list of them, got {Ls!r}")
    base = net.base_network
    kernels, inner_labels, kernel_tables = [], None, []
    for lg in logics:
        terms = build_formula(base, formula)
        _check_inner(terms, "L()")
        kernel_tables.append(layer_table(net, lg.text))
        kernels.append(_one_layer_kernel(net, formula, terms, kernel_tables[-1]) or
                       LayerLogicKernel([t.kernel for t in terms], base.n, len(net.blocks),
                                        kernel_tables[-1], base.directed,
                                        all(type(t.kernel) in TIE_FREE_KERNELS for t in terms)))
        inner_labels = [lab for t in terms for lab in t.labels]
        # every layer empty: the logical layer is empty (table[0] == 0), the base values
        inner_empty = np.concatenate([t.on_empty() for t in terms])
    prefix = "L(" + ",".join(lg.compact for lg in logics) + ")"
    labels = [f"{prefix}~{lab}" for lab in inner_labels]
    p = len(inner_labels)
    if len(kernels) == 1:
        term = Term("L", labels, kernels[0], empty=inner_empty,
                    dyad_independent=all(t.dyad_independent for t in terms)
                    and len(_layers_used(kernel_tables)) <= 1)
    else:
        inner = [Term("L", labels, k, empty=inner_empty) for k in kernels]
        term = stack("L", inner, labels, np.hstack([np.eye(p)] * len(kernels)))
    term.within_ordered_pair = all(t.dyad_independent for t in terms)
    # a dyad of a logical layer reads the node pair's dyads in the layers of the logic
    term.reads = ("node pair" if all(t.locality in ("dyad", "pair") for t in terms)
                  else None)
    # curved inner terms keep their parameters: L(advice)~gwesp, L(advice)~gwesp.decay
    ls_text = (f"~{logics[0].text}" if not isinstance(Ls, list)
               else "c(" + ", ".join(f"~{lg.text}" for lg in logics) + ")")
    _advise_within(terms, lambda call: f"L(~{call}, {ls_text})")
    return keep_curvature("L", term, terms, lambda names: [f"{prefix}~{n}" for n in names])


def _one_layer_kernel(net, formula, terms, table):
    """The kernel of ``formula`` on a logic that is one observed layer m (``~advice``): the
    inner terms on the stacked network itself, their changes kept for toggles in layer m's
    block only (``N()``'s design kernel with the indicator of m) -- no logical copy of the
    layer to keep beside the model's network.  None for any other logic, or when the inner
    terms are not the same on the stacked network (other statistics or empty values)."""
    codes = np.arange(len(table))
    single = [m for m in range(len(net.blocks))
              if np.array_equal(table, ((codes >> m) & 1).astype(table.dtype))]
    if not single:
        return None
    X = np.zeros((len(net.blocks), 1))
    X[single[0], 0] = 1.0
    stacked = build_formula(net, formula)
    if [lab for t in stacked for lab in t.labels] != [lab for t in terms for lab in t.labels]:
        return None
    try:
        empty = _per_block_empty(net, stacked, formula, X).reshape(-1)
    except TermError:
        return None
    if not np.allclose(empty, np.concatenate([t.on_empty() for t in terms])):
        return None
    return NetworkDesignKernel([t.kernel for t in stacked], net.block_of, X)


def _layers_used(tables):
    """The layers whose tie changes some truth table (the others do not matter)."""
    used = set()
    for table in tables:
        codes = np.arange(len(table))
        m = 0
        while (1 << m) < len(table):
            if (table[codes] != table[codes ^ (1 << m)]).any():
                used.add(m)
            m += 1
    return used


# -- cross-layer dyad terms ------------------------------------------------------------

def _logics(net, Ls, what, default_all=False):
    """The layer logics of ``Ls`` (a formula or a list of them; ``~.`` every layer when
    ``default_all``) as (compact texts, truth tables over the layer bits)."""
    if not hasattr(net, "layer_names"):
        raise TermError(f"{what} needs a multilayer network: ef.ERGM(ef.Layer({{...}}), ...)")
    items = Ls if isinstance(Ls, list) else [Ls]
    if not items or not all(isinstance(x, FormulaArg) for x in items):
        raise TermError(f"{what}: Ls must be a layer logic formula (~advice&friendship) or a "
                        f"list of them (c(~advice, ~friendship)), got {Ls!r}")
    if default_all and len(items) == 1 and items[0].text.strip() == ".":
        codes = np.arange(1 << len(net.blocks))
        return list(map(str, net.layer_names)), [((codes >> m) & 1).astype(np.uint8)
                                                 for m in range(len(net.blocks))]
    return [lg.compact for lg in items], [layer_table(net, lg.text, what) for lg in items]


def _dyad_term(name, net, label, value, within_ordered_pair):
    """One statistic summing ``value(forward bits, backward bits)`` (directed) or
    ``value(bits, bits)`` (undirected) over the dyads of the layers' node set.

    Not dyad-independent: the change statistic of a layer's dyad (i, j) reads the node
    pair's dyads in the other layers (so the MPLE is not the MLE, the dyad-independent
    reference of the bridge-sampled log-likelihood leaves it out, and interactions refuse
    it), but it reads no dyad outside the node pair (``reads="node pair"``: the model is
    still a product over node pairs, fitted exactly).  ``within_ordered_pair``: whether
    ``value`` reads only the forward bits' (i -> j's layers) change, so that the node-pair
    moves need not move the reverse direction (:func:`ergmfit.sampling.space.pair_directions`)."""
    L, base = len(net.blocks), net.base_network
    codes = np.arange(1 << L)
    if net.directed:
        fwd, bwd = np.meshgrid(codes, codes, indexing="xy")      # x = fwd | bwd << L
        table = value(fwd.reshape(-1), bwd.reshape(-1))
    else:
        table = value(codes, codes)
    table = np.asarray(table, dtype=float)
    term = Term(name, [label], DyadLayerKernel(base.n, L, table, net.directed),
                dyad_independent=False, reads="node pair")
    term.within_ordered_pair = bool(within_ordered_pair)
    return term


_MAX_DYAD_LAYERS = 8


def _check_layer_count(net, what):
    if len(net.blocks) > _MAX_DYAD_LAYERS:
        raise TermError(f"{what}: at most {_MAX_DYAD_LAYERS} layers are supported (the "
                        f"network has {len(net.blocks)})")


@register("mutualL", kinds=BOTH, params=[Param("same", None), Param("diff", False),
                                         Param("by", None), Param("keep", None),
                                         Param("Ls", None)], family=FAMILY)
def mutual_layers(net, same=None, diff=False, by=None, keep=None, Ls=None):
    """ergm.multi's ``mutualL(Ls=c(~L1, ~L2))``: the number of dyads where a tie in logical
    layer L1 reciprocates a tie in L2, and vice versa, i.e. the sum over dyads {i, j} of
    L1(i->j) L2(j->i) + L1(j->i) L2(i->j) (a dyad with mutual ties in both adds 2); one
    formula is replicated (``Ls=~a`` counts twice the mutual dyads of layer a).  Directed
    layers only.  Label ``mutualL(<L1>,<L2>)``.

    References
    ----------
    Krivitsky, P. N., Koehly, L. M. and Marcum, C. S. (2020). Exponential-family random
    graph models for multi-layer networks. Psychometrika 85, 630-659.

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> a, b = nx.DiGraph([(0, 1), (1, 0)]), nx.DiGraph([(1, 0)])
    >>> ef.ERGM(ef.Layer({"a": a, "b": b}), "mutualL(Ls=c(~a, ~b))").statistics()
    {'mutualL(a,b)': 1.0}
    """
    net = stacked_view(net) or net
    if same is not None or by is not None or diff is not False or keep is not None:
        raise TermError("mutualL: same=, by=, diff= and keep= are not implemented; use "
                        "L(~mutual(same=...), ~layer) for one layer")
    if Ls is None:
        raise TermError("mutualL needs Ls: the layer logics, mutualL(Ls=c(~advice, "
                        "~friendship)) (L(~mutual, ~advice) counts within one layer)")
    names, tables = _logics(net, Ls, "mutualL")
    if not net.directed:
        raise TermError("mutualL: the layers must be directed (mutuality of undirected ties "
                        "is their edges)")
    if len(tables) == 1:
        names, tables = names * 2, tables * 2
    if len(tables) != 2:
        raise TermError(f"mutualL: Ls takes one or two layer logics, got {len(tables)}")
    _check_layer_count(net, "mutualL")
    t1, t2 = (np.asarray(t, dtype=float) for t in tables)
    return _dyad_term("mutualL", net, f"mutualL({names[0]},{names[1]})",
                      lambda f, b: t1[f] * t2[b] + t1[b] * t2[f], within_ordered_pair=False)


@register("CMBL", kinds=BOTH, params=[Param("Ls", None)], family=FAMILY)
def cmb_layers(net, Ls=None):
    """ergm.multi's ``CMBL(Ls=~.)`` (Conway-Maxwell-Binomial dependence among layers): the
    sum over the dyads (ordered pairs in a directed network) of log(E! (R-E)! / R!), E the
    number of the R logical layers of ``Ls`` (default: every layer) with a tie there.  A
    positive coefficient makes a dyad's layers agree.  Label ``CMBL(<L1>,<L2>,...)``.

    References
    ----------
    Krivitsky, P. N., Koehly, L. M. and Marcum, C. S. (2020). Exponential-family random
    graph models for multi-layer networks. Psychometrika 85, 630-659.

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> a, b = nx.path_graph(3), nx.Graph([(0, 1)])
    >>> b.add_node(2)
    >>> ef.ERGM(ef.Layer({"a": a, "b": b}), "CMBL").statistics()    # one dyad with E = 1
    {'CMBL(a,b)': -0.6931471805599453}
    """
    from math import comb, log
    net = stacked_view(net) or net
    names, tables = _logics(net, FormulaArg(".") if Ls is None else Ls, "CMBL",
                            default_all=True)
    R = len(tables)
    if R < 2:
        raise TermError(f"CMBL: Ls needs at least two layer logics, got {R}")
    _check_layer_count(net, "CMBL")
    count = np.sum([np.asarray(t, dtype=np.int64) for t in tables], axis=0)  # E per code
    cmb = np.array([-log(comb(R, e)) for e in range(R + 1)])     # log(E!(R-E)!/R!)
    per_code = cmb[count]
    value = (lambda f, b: per_code[f] + per_code[b]) if net.directed else \
        (lambda f, b: per_code[f])
    return _dyad_term("CMBL", net, f"CMBL({','.join(names)})", value, within_ordered_pair=True)


# -- shared partners on layers (ergm.multi's despL, ddspL, dnspL, dgwespL, ...) ----------

_SP_PARAMS = [Param("type", "OTP"), Param("L.base", None), Param("Ls.path", None),
              Param("L.in_order", False)]
_SP_COUNT = {"edge": "esp", "dyad": "dsp", "nonedge": "nsp"}


def _sp_setup(net, name, kind, type, kw):
    """(type, base table, path tables, in_order, label text) of a shared-partner layer
    term."""
    from .registry import as_bool
    net = stacked_view(net) or net
    if not hasattr(net, "layer_names"):
        raise TermError(f"{name} needs a multilayer network: ef.ERGM(ef.Layer({{...}}), ...)")
    _check_layer_count(net, name)
    t = "UTP" if not net.directed else str(type).upper()
    if t not in LAYER_SP_TYPES or (net.directed and t == "UTP"):
        raise TermError(f"{name}: type must be one of OTP, ITP, OSP, ISP (RTP is not "
                        f"implemented on layers), got {type!r}")
    if kw.get("Ls.path") is None:
        raise TermError(f"{name} needs Ls.path: the layer logic(s) of the two-path ties, "
                        f"e.g. {name}(..., Ls.path=c(~advice, ~friendship))")
    paths, path_tables = _logics(net, kw["Ls.path"], name)
    call = [f"Ls.path=~{paths[0]}" if len(paths) == 1
            else "Ls.path=c(" + ", ".join(f"~{p}" for p in paths) + ")"]
    if len(path_tables) == 1:
        paths, path_tables = paths * 2, path_tables * 2
    if len(path_tables) != 2:
        raise TermError(f"{name}: Ls.path takes one or two layer logics, got "
                        f"{len(path_tables)}")
    in_order = as_bool(kw.get("L.in_order", False), f"term {name}: L.in_order")
    if in_order and not net.directed:
        raise TermError(f"{name}: L.in_order=TRUE needs directed layers")
    base_text, base_table = None, np.zeros(len(path_tables[0]), dtype=np.uint8)
    if kind == "dyad":
        if kw.get("L.base") is not None:
            raise TermError(f"{name}: counts every dyad; L.base does not apply")
    else:
        if kw.get("L.base") is None:
            raise TermError(f"{name} needs L.base: the layer logic of the tie whose partners "
                            f"are counted, e.g. L.base=~advice")
        (base_text,), (base_table,) = _logics(net, kw["L.base"], name)
        call.insert(0, f"L.base=~{base_text}")
    if in_order:
        call.append("L.in_order=TRUE")
    where = ("" if base_text is None else f"{base_text}|") + ",".join(paths) + \
        (";ordered" if in_order else "")
    typed = f".{t}" if net.directed else ""
    if net.directed:
        call.insert(0, f'type="{t}"')
    return net, t, base_table, path_tables, in_order, f"{typed}({where})", ", ".join(call)


def _sp_term(net, name, kind, t, tb, paths, in_order, H, labels, empty_rows=True):
    n = net.base_network.n
    kernel = SharedPartnerLayerKernel(n, len(net.blocks), LAYER_SP_TYPES[t],
                                      LAYER_SP_KINDS[kind], tb, paths[0], paths[1], in_order,
                                      H, net.directed)
    n_pairs = n * (n - 1) / (1 if net.directed else 2)
    empty = (0.0 if kind == "edge" else n_pairs) * H[0]
    return Term(name, labels, kernel, empty=empty)


def _sp_counts(net, name, kind, d, type, kw):
    from .registry import as_int_list
    net, t, tb, paths, in_order, where, _ = _sp_setup(net, name, kind, type, kw)
    ds = as_int_list(d, f"term {name}: d", minimum=0)
    if len(set(ds)) != len(ds):
        raise TermError(f"term {name}: the values of d must be distinct, got {ds}")
    n = net.base_network.n
    H = np.zeros((max(n - 1, 1), len(ds)))
    for col, v in enumerate(ds):
        if v < len(H):
            H[v, col] = 1.0
    return _sp_term(net, name, kind, t, tb, paths, in_order, H,
                    [f"{_SP_COUNT[kind]}L{where}{v}" for v in ds])


def _sp_gw(net, name, kind, decay, fixed, cutoff, type, kw):
    from .curved import GeometricWeights, curve_length, make_curved, start_decay
    from .registry import as_bool, as_float
    net, t, tb, paths, in_order, where, call = _sp_setup(net, name, kind, type, kw)
    n = net.base_network.n
    prefix = f"gw{_SP_COUNT[kind]}L{where}"
    if not as_bool(fixed, f"term {name}: fixed"):
        K = curve_length(name, cutoff, n - 2)
        H = np.zeros((max(n - 1, 1), K))
        H[np.arange(1, K + 1), np.arange(K)] = 1.0
        stats = [f"{_SP_COUNT[kind]}L{where}#{v}" for v in range(1, K + 1)]
        counts = _sp_term(net, name, kind, t, tb, paths, in_order, H, stats)
        curve = GeometricWeights(K)
        # its label is not its call: advice to fix the decay names the call
        curve.fixed_form = f"{name}({{decay}}, fixed=TRUE, {call})"
        return make_curved(name, counts, stats, [prefix, f"{prefix}.decay"], curve,
                           start_decay(name, decay))
    if decay is None:
        raise TermError(f"term {name}: decay is required with fixed=TRUE, e.g. "
                        f"{name}(0.5, fixed=TRUE, ...)")
    a = as_float(decay, f"term {name}: decay")
    if a < 0:
        raise TermError(f"term {name}: decay must be non-negative, got {format_number(a)}")
    k = np.arange(max(n - 1, 1), dtype=float)
    H = (np.exp(a) * (1.0 - (1.0 - np.exp(-a)) ** k))[:, None]
    return _sp_term(net, name, kind, t, tb, paths, in_order, H,
                    [f"{prefix}.fixed.{format_number(a)}"])


def _register_sp(kind, count_name, gw_name):
    count_doc = (f"ergm.multi's ``{count_name}(d, type='OTP', L.base=, Ls.path=, "
                 f"L.in_order=FALSE)``: the number of "
                 + {"edge": "ties of the logical layer L.base",
                    "dyad": "dyads (ordered pairs when directed)",
                    "nonedge": "pairs without a tie in L.base"}[kind]
                 + " with exactly d partners, a partner k's two ties with the pair being in "
                 "the layer logics Ls.path (one logic: both ties in it; two: one tie in "
                 "each, the first incident on the pair's first node with L.in_order=TRUE, "
                 "either way round otherwise).  Types OTP, ITP, OSP, ISP as ergm's "
                 "(undirected: UTP).  Labels ``" + _SP_COUNT[kind] + "L.OTP(<base>|<L1>,<L2>)"
                 "<d>`` (ergmfit's).")

    @register(count_name, kinds=BOTH, params=[Param("d")] + (
        [p for p in _SP_PARAMS if p.name != "L.base"] if kind == "dyad" else _SP_PARAMS),
        aliases=(count_name[1:],), family=FAMILY)
    def counts(net, d, type="OTP", **kw):
        return _sp_counts(net, count_name, kind, d, type, kw)

    @register(gw_name, kinds=BOTH, params=[Param("decay", None), Param("fixed", False),
                                           Param("cutoff", 30)] + (
        [p for p in _SP_PARAMS if p.name != "L.base"] if kind == "dyad" else _SP_PARAMS),
        aliases=(gw_name[1:],), family=FAMILY)
    def gw(net, decay=None, fixed=False, cutoff=30, type="OTP", **kw):
        return _sp_gw(net, gw_name, kind, decay, fixed, cutoff, type, kw)

    counts.__doc__ = count_doc
    gw.__doc__ = (f"ergm.multi's ``{gw_name}(decay, fixed=FALSE, cutoff=30, ...)``: the "
                  f"geometrically weighted form of ``{count_name}`` (weights e^a (1 - (1 - "
                  f"e^-a)^k)); curved (``fixed=FALSE``: the counts 1 .. cutoff, coefficients "
                  f"and decay) or fixed.")


_register_sp("edge", "despL", "dgwespL")
_register_sp("dyad", "ddspL", "dgwdspL")
_register_sp("nonedge", "dnspL", "dgwnspL")


@register("twostarL", kinds=BOTH, params=[Param("Ls"), Param("type", None),
                                          Param("distinct", True)], family=FAMILY)
def twostar_layers(net, Ls, type=None, distinct=True):
    """ergm.multi's ``twostarL(Ls=c(~L1, ~L2), type, distinct=TRUE)``: the number of pairs
    of ties at a node i, the first in logical layer L1 and the second in L2 -- ``"out"``:
    i->j, i->k; ``"in"``: j->i, k->i; ``"path"``: j->i, i->k; undirected (``type`` ignored,
    ``"any"``): i-j, i-k -- with j != k when ``distinct`` (the two ties neither the same
    dyad nor reciprocal).  The pairs are ordered (first tie in L1, second in L2), so with
    L1 = L2 each two-star counts twice.  Label ``twostarL(<L1>,<L2>).<type>`` (ergmfit's).

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> a, b = nx.Graph([(0, 1)]), nx.Graph([(0, 2)])
    >>> a.add_node(2); b.add_node(1)
    >>> ef.ERGM(ef.Layer({"a": a, "b": b}), "twostarL(c(~a, ~b))").statistics()
    {'twostarL(a,b).any': 1.0}
    """
    from .registry import as_bool
    net = stacked_view(net) or net
    names, tables = _logics(net, Ls, "twostarL")
    if len(tables) == 1:
        names, tables = names * 2, tables * 2
    if len(tables) != 2:
        raise TermError(f"twostarL: Ls takes two layer logics (or one, replicated), got "
                        f"{len(tables)}")
    _check_layer_count(net, "twostarL")
    if net.directed:
        if type not in ("out", "in", "path"):
            raise TermError(f"twostarL: on directed layers type must be 'out', 'in' or "
                            f"'path' ('any' is for undirected layers), got {type!r}")
        kind = type
    else:
        kind = "any"
    kernel = TwoStarLayerKernel(net.base_network.n, len(net.blocks), LAYER_STAR_TYPES[kind],
                                tables[0], tables[1],
                                as_bool(distinct, "term twostarL: distinct"), net.directed)
    return Term("twostarL", [f"twostarL({names[0]},{names[1]}).{kind}"], kernel)
