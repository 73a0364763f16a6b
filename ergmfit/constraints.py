"""statnet's constraint formulas, parsed (never eval-ed) into a sample space.

``"~ bd(maxout=5) + blockdiag('school')"`` becomes a
:class:`~ergmfit.sampling.space.ConstrainedSpace`: the dyads each
constraint leaves free are intersected, degree bounds are combined and a
preserved statistic is kept.  Constraints understood:

==========================================  ======================================================
``bd(maxout=, maxin=, minout=, minin=)``    degree bounds (undirected: the degree
                                            must satisfy both the out and in ones)
``edges``                                   the tie count is kept (swap a tie for a non-tie)
``degrees``                                 every degree kept (double-edge swaps; directed:
                                            head swaps and 3-cycle reversals)
``odegrees`` / ``idegrees``                 out- / in-degrees kept (directed networks)
``b1degrees`` / ``b2degrees``               the degrees of the first / second mode kept
                                            (two-mode networks)
``degreedist``                              the degree distribution kept (undirected)
``bd(attribs=, maxout=, ...)``              bounds on each node's ties to (out) / from (in)
                                            the nodes of each class of ``attribs`` (an (n, K)
                                            logical matrix by name, or a node attribute name)
``blockdiag(attr)``                         only dyads within a block of ``attr`` vary (the
                                            blocks need not be contiguous, as statnet's must)
``blocks(attr, levels2=)``                  dyads whose mixing type is in ``levels2`` (1-based
                                            indices in statnet's nodemix order, or TRUE) are fixed
``fixallbut(free)``                         only the listed dyads vary
``fixedas(present, absent)``                the listed dyads are fixed (at their observed values,
                                            which must agree)
``dyads(fix=~..., vary=~...)``              (also ``Dyads``) dyads with a nonzero change
                                            statistic of a ``fix`` term are fixed; with ``vary``,
                                            only dyads with a nonzero change statistic of a
                                            ``vary`` term vary
``observed``                                only the missing dyads vary
``snowball(zone)``                          conditional estimation of a snowball sample
                                            (ergmfit's; Pattison et al. 2013): ``zone`` names
                                            the node attribute of each node's wave (0: seeds);
                                            only dyads between nodes of the same or adjacent
                                            waves, neither in the last wave, vary, and every
                                            node of wave w >= 1 keeps a tie (either direction)
                                            to wave w - 1 (see :mod:`ergmfit.snowball`)
==========================================  ======================================================

Dyad lists (``free``, ``present``, ``absent``) are lists of node-label pairs,
given inline (``fixallbut([[1, 2], [2, 3]])``) or by name from a mapping:
``constraints=("~ fixallbut(free)", {"free": pairs})``.

Examples
--------
>>> import ergmfit as ef
>>> g = ef.datasets.load("flomarriage")
>>> space = parse_constraints("~ bd(maxout=6) + edges", ef.ERGM(g, "edges").network)
>>> space.describe()
'bd(maxout=6) + edges'
"""
from __future__ import annotations

import numpy as np

from .exceptions import FormulaError, NetworkError
from .formula import parse_formula
from .network.networks import LAYER_NAMES, NETWORK_ID, within_network_vars
from .sampling.space import (AllDyads, ConstrainedSpace, dyad_vars, group_pairs,
                             same_group_vars)
from .utils.setops import in_sorted, intersect_sorted, setdiff_sorted, unique_sorted

_PRESERVE_RANK = {"edges": 1, "odegrees": 2, "idegrees": 2, "b1degrees": 2, "b2degrees": 2,
                  "degreedist": 2, "degrees": 3}
# pairs of preserved statistics that together keep every degree
_MAKE_DEGREES = ({"odegrees", "idegrees"}, {"b1degrees", "b2degrees"})
_BIG = 1 << 30


def _split_tilde_args(text):
    """Replace ``name=~formula`` arguments by quoted strings (the formula
    parser has no ``~``), matching parentheses."""
    out, k = [], 0
    while k < len(text):
        if text[k] == "~" and k > 0 and text[:k].rstrip().endswith("="):
            depth, j = 0, k + 1
            while j < len(text):
                ch = text[j]
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif ch == "," and depth == 0:
                    break
                j += 1
            inner = text[k + 1:j].strip()
            if "'" in inner and '"' in inner:
                raise FormulaError("a constraint's formula argument may not mix ' and \" quotes")
            out.append(repr(inner))
            k = j
        else:
            out.append(text[k])
            k += 1
    return "".join(out)


def _strip(text):
    t = text.strip()
    if t.startswith("~"):
        t = t[1:].strip()
    return t


def _label_pairs_array(network, pairs, what):
    """:func:`label_pairs` of a (k, 2) integer array on a network with integer labels, by
    sorting (10^6 pairs: 2.4 CPU s through the dictionary); None where it does not apply."""
    if not (isinstance(pairs, np.ndarray) and pairs.ndim == 2 and pairs.shape[1] == 2
            and pairs.dtype.kind in "iu" and pairs.size):
        return None
    integer_labels = getattr(network, "integer_labels", None)
    labels = integer_labels() if integer_labels is not None else None
    if labels is None:
        return None
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    p = pairs.astype(np.int64)
    # the last node of a label, as the dictionary keeps it
    at = np.maximum(np.searchsorted(ordered, p, side="right") - 1, 0)
    known = ordered[at] == p
    if not known.all():
        r = int(np.flatnonzero(~known.all(axis=1))[0])
        bad = pairs[r, 0] if not known[r, 0] else pairs[r, 1]
        raise NetworkError(f"{what}: the node {bad!r} is not in the network")
    return order[at]


def label_pairs(network, pairs, what):
    fast = _label_pairs_array(network, pairs, what)
    if fast is not None:
        return fast
    index = {lab: k for k, lab in enumerate(network.labels)}
    out = []
    try:
        items = list(pairs)
    except TypeError:
        raise FormulaError(f"{what} must be a list of node pairs") from None
    if items and all(not isinstance(p, (list, tuple, np.ndarray)) for p in items):
        # a formula flattens [[1, 2], [3, 4]] (as R's c() does): read it in pairs
        if len(items) % 2:
            raise FormulaError(f"{what}: {len(items)} node labels do not make pairs")
        items = [tuple(items[k:k + 2]) for k in range(0, len(items), 2)]
    for p in items:
        try:
            u, v = p
        except (TypeError, ValueError):
            raise FormulaError(f"{what}: {p!r} is not a pair of nodes") from None
        if u not in index or v not in index:
            bad = u if u not in index else v
            raise NetworkError(f"{what}: the node {bad!r} is not in the network")
        out.append((index[u], index[v]))
    return np.array(out, dtype=np.int64).reshape(-1, 2)


#: the constraint names parse_constraints knows (statnet's spelling)
CONSTRAINT_NAMES = ("bd", "edges", "degrees", "odegrees", "idegrees", "b1degrees", "b2degrees",
                    "degreedist", "blockdiag", "blocks", "fixallbut", "fixedas", "dyads",
                    "observed", "snowball")


def unknown_constraint_message(name) -> str:
    """"unknown constraint ..." with the close names ("did you mean 'degrees'?")."""
    import difflib
    close = difflib.get_close_matches(str(name).lower(), CONSTRAINT_NAMES, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return (f"unknown constraint {name!r}.{hint} The constraints are: "
            + ", ".join(CONSTRAINT_NAMES))


def pairs_vars(network, pairs, what="dyads"):
    """Variable indices of a list of node-label pairs."""
    return unique_sorted(dyad_vars(network.n, network.directed, label_pairs(network, pairs, what)))


def _resolve(arg, names, what):
    if isinstance(arg, str):
        if arg not in names:
            raise FormulaError(f"{what}: no dyad list (or matrix) called {arg!r} was given; pass "
                               f"constraints=(formula, {{{arg!r}: [(u, v), ...]}})")
        return names[arg]
    return arg


def _attr(network, name, what):
    if not isinstance(name, str):
        raise FormulaError(f"{what} needs a node attribute name, got {name!r}")
    if name not in network.node_attrs:
        raise network._missing_attr(name)
    return np.asarray([str(v) for v in network.node_attrs[name]])


#: dyads whose change statistics ``dyads()`` computes at a time (its memory: this many rows)
CHANGE_CHUNK = 1 << 20


def _nonzero_change_vars(network, formula):
    """Variables where some term of ``formula`` has a nonzero change statistic, the
    change statistics computed ``CHANGE_CHUNK`` dyads at a time."""
    from .network import NetworkState
    from .sampling._constrained import change_rows
    from .terms._ergm import ERGMModel
    from .terms.registry import build_term
    terms = [build_term(network, c.name, c.args, c.kwargs)
             for c in parse_formula(_strip(formula))]
    if not all(t.dyad_independent for t in terms):
        raise FormulaError(f"dyads(): the terms of {formula!r} must be dyad-independent")
    cm = ERGMModel(NetworkState(network.n, network.directed, network.ties),
                   [t.kernel for t in terms])
    found = [np.zeros(0, np.int64)]
    for lo in range(0, network.n_dyads, CHANGE_CHUNK):
        vars_ = np.arange(lo, min(lo + CHANGE_CHUNK, network.n_dyads), dtype=np.int64)
        X, _ = change_rows(cm, vars_)
        found.append(vars_[(X != 0).any(axis=1)])
    return np.concatenate(found)


def _between_modes(network):
    """The dyads of a two-mode network (mode 1 to mode 2) as variable indices; None for a
    one-mode network.  Within-mode dyads do not exist (statnet's bipartite networks).
    Several networks stacked (a node attribute ``.NetworkID``:
    :class:`~ergmfit.network.networks.Networks`) have only the dyads within them."""
    within = within_network_vars(network)
    if within is not None:
        return within
    n1 = getattr(network, "bipartite", None)
    if n1 is None:
        return None
    # the dyad {a, b} (a < n1 <= b) is variable a n - a (a + 1) / 2 + b - a - 1: row a's
    # n - n1 dyads are consecutive, and the rows come in order (sorted, as dyad_vars numbers)
    n = network.n
    a = np.arange(n1, dtype=np.int64)
    first = a * n - a * (a + 1) // 2 + n1 - a - 1
    return (first[:, None] + np.arange(n - n1, dtype=np.int64)[None, :]).ravel()


def snowball_zones(network, name):
    """The waves of a snowball sample: node attribute ``name`` as whole numbers
    0, 1, ..., L (every wave present), checked; FormulaError / NetworkError otherwise."""
    if not isinstance(name, str):
        raise FormulaError(f"snowball(zone) needs a node attribute name, got {name!r}")
    if name not in network.node_attrs:
        raise network._missing_attr(name)
    raw = np.asarray(network.node_attrs[name], dtype=object)
    try:
        zone = np.array([float(v) for v in raw])
    except (TypeError, ValueError):
        raise NetworkError(f"snowball({name!r}): the waves must be whole numbers 0, 1, ...; "
                           f"got {raw[:3].tolist()}...") from None
    if not np.isfinite(zone).all() or (zone != np.round(zone)).any() or (zone < 0).any():
        raise NetworkError(f"snowball({name!r}): the waves must be whole numbers 0, 1, ...")
    zone = zone.astype(np.int64)
    present = np.unique(zone)
    if present[0] != 0 or len(present) != present[-1] + 1:
        raise NetworkError(f"snowball({name!r}): the waves present are {present.tolist()}; a "
                           "snowball sample has every wave from 0 (the seeds) to the last")
    return zone


def snowball_space_parts(network, zone):
    """``(free_vars, attr_bounds, pinned)`` of the snowball constraint for waves
    ``zone`` (see :func:`snowball_zones`): the free dyads, the bound of one tie to
    the previous wave, and the ties that are a node's only one to the previous
    wave; NetworkError if the observed ties break the design."""
    n, directed = network.n, network.directed
    last = int(zone.max())
    if last == 0:
        raise NetworkError("snowball(): every node is a seed (wave 0): no wave is conditioned "
                           "on; use no constraint (or sample at least one wave)")
    t = np.asarray(network.ties, dtype=np.int64).reshape(-1, 2)
    gap = np.abs(zone[t[:, 0]] - zone[t[:, 1]]) >= 2
    if gap.any():
        i, j = t[np.flatnonzero(gap)[0]]
        raise NetworkError(f"snowball(): the tie ({network.labels[i]!r}, {network.labels[j]!r}) "
                           f"joins waves {zone[i]} and {zone[j]}; in a snowball sample ties join "
                           "nodes of the same or adjacent waves")
    members = [np.flatnonzero(zone == w) for w in range(last + 1)]
    blocks = []
    # free: dyads within a wave or between adjacent waves, both ends before the last wave;
    # a node of the last wave has ties outside the sample, so a dyad touching it has change
    # statistics the sample cannot compute: the last wave's ties to the wave before are fixed
    # too (Pattison et al. 2013; EstimNetDirected's conditional samplers)
    for a in range(last):
        for b in (a, a + 1) if a + 1 < last else (a,):
            i, j = np.meshgrid(members[a], members[b], indexing="ij")
            i, j = i.ravel(), j.ravel()
            keep = i != j
            if not directed and a == b:
                keep &= i < j
            i, j = i[keep], j[keep]
            blocks.append(np.column_stack([i, j]))
            if directed:
                blocks.append(np.column_stack([j, i]) if a != b else np.zeros((0, 2), np.int64))
    pairs = np.concatenate(blocks) if blocks else np.zeros((0, 2), np.int64)
    free = unique_sorted(dyad_vars(n, directed, pairs))
    onehot = zone[:, None] == np.arange(last + 1)[None, :]
    lo = np.zeros((n, last + 1), np.int64)
    inner = np.flatnonzero(zone > 0)
    lo[inner, zone[inner] - 1] = 1
    deg_prev = np.zeros(n, np.int64)
    np.add.at(deg_prev, t[:, 0], zone[t[:, 1]] == zone[t[:, 0]] - 1)
    np.add.at(deg_prev, t[:, 1], zone[t[:, 0]] == zone[t[:, 1]] - 1)
    lost = inner[deg_prev[inner] == 0]
    if len(lost):
        k = int(lost[0])
        raise NetworkError(f"snowball(): node {network.labels[k]!r} of wave {zone[k]} has no tie "
                           f"to wave {zone[k] - 1}; in a snowball sample each node of a wave "
                           "was reached through a tie to the wave before")
    hi = np.full((n, last + 1), _BIG, np.int64)
    # a node's only tie to the previous wave cannot be removed: pinned at the observed network
    # (only a node before the last wave: the last wave's ties are fixed already)
    back = (zone[t[:, 0]] - zone[t[:, 1]] == 1) & (deg_prev[t[:, 0]] == 1) & (zone[t[:, 0]] < last)
    back |= (zone[t[:, 1]] - zone[t[:, 0]] == 1) & (deg_prev[t[:, 1]] == 1) & (zone[t[:, 1]] < last)
    pinned = dyad_vars(n, directed, t[back])
    return free, (onehot, lo, hi, np.zeros_like(lo), hi.copy()), pinned


class _Builder:
    def __init__(self, network, missing, names):
        self.net = network
        self.missing = missing
        self.names = names
        self.free = _between_modes(network)
        n = network.n
        self.bounds = [np.zeros(n, np.int64), np.full(n, _BIG, np.int64),
                       np.zeros(n, np.int64), np.full(n, _BIG, np.int64)]
        self.has_bounds = False
        self.preserve = None
        self.attr_bounds = None
        self.attr_either = False
        self.pinned = None

    def restrict(self, vars_):
        vars_ = unique_sorted(np.asarray(vars_, dtype=np.int64))
        self.free = vars_ if self.free is None else intersect_sorted(self.free, vars_)

    def fix(self, vars_):
        base = np.arange(self.net.n_dyads, dtype=np.int64) if self.free is None else self.free
        self.free = setdiff_sorted(base, vars_)

    def keep(self, what):
        if what in ("odegrees", "idegrees") and not self.net.directed:
            raise FormulaError(f"{what} needs a directed network; use degrees")
        if what in ("b1degrees", "b2degrees") and getattr(self.net, "bipartite", None) is None:
            raise FormulaError(f"{what} needs a two-mode (bipartite) network; use degrees")
        if what == "degreedist" and self.net.directed:
            raise FormulaError("degreedist is implemented for undirected networks only; "
                               "for a directed network use degrees (or odegrees/idegrees)")
        cur = self.preserve
        if cur is None or cur == what or _PRESERVE_RANK[what] > _PRESERVE_RANK[cur]:
            self.preserve = what
        elif {cur, what} in _MAKE_DEGREES:
            self.preserve = "degrees"
        elif _PRESERVE_RANK[what] == _PRESERVE_RANK[cur]:
            raise FormulaError(f"the constraints {cur} and {what} cannot be combined")

    def add(self, call):
        name, args, kw = call.name, list(call.args), dict(call.kwargs)
        net = self.net
        if name == "bd":
            order = ["attribs", "maxout", "maxin", "minout", "minin"]
            if len(args) > len(order):
                raise FormulaError("bd() takes at most 5 arguments")
            kw.update(dict(zip(order, args)))
            bad = set(kw) - set(order)
            if bad:
                raise FormulaError(f"bd() has no argument {sorted(bad)[0]!r}; it takes "
                                   "maxout, maxin, minout, minin")
            if kw.get("attribs") is not None:
                self._attr_bounds(kw)
                return
            for key, k, op in (("minout", 0, np.maximum), ("maxout", 1, np.minimum),
                               ("minin", 2, np.maximum), ("maxin", 3, np.minimum)):
                val = kw.get(key)
                if val is None or (isinstance(val, float) and np.isnan(val)):
                    continue
                val = _degree_bounds(val, key, net.n)
                self.bounds[k] = op(self.bounds[k], val)
                self.has_bounds = True
        elif name in _PRESERVE_RANK:
            if args or kw:
                raise FormulaError(f"{name} takes no arguments")
            self.keep(name)
        elif name in ("idegreedist", "odegreedist"):
            raise FormulaError(f"the constraint {name} is not implemented; idegrees / odegrees "
                               "(every in- / out-degree kept) are the nearest")
        elif name == "blockdiag":
            if len(args) != 1 or kw:
                raise FormulaError("blockdiag(attr) takes one node attribute name")
            self.restrict(same_group_vars(net.n, net.directed, _attr(net, args[0], "blockdiag")))
        elif name == "blocks":
            self._blocks(args, kw)
        elif name == "fixallbut":
            if len(args) + len(kw) != 1 or (kw and "free.dyads" not in kw and "free" not in kw):
                raise FormulaError("fixallbut(free) takes one list of free dyads")
            free = _resolve(args[0] if args else next(iter(kw.values())), self.names, "fixallbut")
            self.restrict(pairs_vars(net, free, "fixallbut"))
        elif name == "fixedas":
            order = ["present", "absent"]
            kw.update(dict(zip(order, args)))
            if set(kw) - set(order):
                raise FormulaError("fixedas() takes present= and absent=")
            obs = unique_sorted(dyad_vars(net.n, net.directed, net.ties))
            for key in order:
                if kw.get(key) is None:
                    continue
                vs = pairs_vars(net, _resolve(kw[key], self.names, "fixedas"), "fixedas")
                wrong = np.flatnonzero(in_sorted(vs, obs) != (key == "present"))
                if len(wrong):
                    raise NetworkError(f"fixedas(): {len(wrong)} dyad(s) listed as {key} are "
                                       f"{'not ' if key == 'present' else ''}ties of the network")
                self.fix(vs)
        elif name in ("dyads", "Dyads"):
            if args or set(kw) - {"fix", "vary"}:
                raise FormulaError(f"{name}() takes fix=~terms and/or vary=~terms")
            if kw.get("vary") is not None:
                self.restrict(_nonzero_change_vars(net, kw["vary"]))
            if kw.get("fix") is not None:
                self.fix(_nonzero_change_vars(net, kw["fix"]))
        elif name == "snowball":
            if len(args) + len(kw) != 1 or (kw and "zone" not in kw):
                raise FormulaError("snowball(zone) takes one node attribute name: each node's "
                                   "wave (0 for the seeds)")
            if self.attr_bounds is not None:
                raise FormulaError("snowball() cannot be combined with bd(attribs=)")
            free, self.attr_bounds, self.pinned = snowball_space_parts(
                net, snowball_zones(net, args[0] if args else kw["zone"]))
            self.attr_either = bool(net.directed)
            self.restrict(free)
        elif name == "observed":
            if self.missing is None:
                raise FormulaError("the constraint 'observed' fixes every observed dyad, but the "
                                   "network has no missing dyads: nothing would vary")
            self.restrict(self.missing)
        else:
            raise FormulaError(unknown_constraint_message(name))

    def _attr_bounds(self, kw):
        """``bd(attribs=, maxout=, maxin=, minout=, minin=)``: bounds per node and class."""
        net, n = self.net, self.net.n
        if self.attr_bounds is not None:
            raise FormulaError("only one bd(attribs=...) may be given, and not with snowball()")
        att = kw["attribs"]
        if isinstance(att, str) and att not in self.names:
            vals = _attr(net, att, "bd(attribs=)")
            levels = sorted(set(vals.tolist()))
            att = np.array([[v == lev for lev in levels] for v in vals], dtype=bool)
        else:
            att = self._matrix(att, "attribs", None)
        if att.ndim != 2 or att.shape[0] != n or att.shape[1] < 1:
            raise FormulaError(f"bd(attribs=) must be a logical matrix of {n} rows (one per "
                               f"node) and one column per class, got shape {att.shape}")
        K = att.shape[1]
        bounds = [np.zeros((n, K), np.int64), np.full((n, K), _BIG, np.int64),
                  np.zeros((n, K), np.int64), np.full((n, K), _BIG, np.int64)]
        for key, k in (("minout", 0), ("maxout", 1), ("minin", 2), ("maxin", 3)):
            if kw.get(key) is None:
                continue
            val = self._matrix(kw[key], key, (n, K))
            bounds[k] = np.where(np.isnan(val), bounds[k], _whole_bounds(val))
        if not net.directed:
            lo, hi = np.maximum(bounds[0], bounds[2]), np.minimum(bounds[1], bounds[3])
            bounds = [lo, hi, lo, hi]
        self.attr_bounds = (att.astype(bool),) + tuple(np.minimum(b, _BIG) for b in bounds)

    def _matrix(self, val, what, shape):
        if isinstance(val, str):
            val = _resolve(val, self.names, f"bd({what}=)")
        try:
            arr = np.asarray(val, dtype=float)
        except (TypeError, ValueError):
            raise FormulaError(f"bd({what}=) must be a matrix of numbers") from None
        if shape is None:
            return arr
        if arr.ndim == 0:
            return np.full(shape, float(arr))
        if arr.shape != shape:
            raise FormulaError(f"bd({what}=) with attribs must be a number or a matrix of shape "
                               f"{shape} (one row per node, one column per class), got "
                               f"shape {arr.shape}")
        return arr

    def _blocks(self, args, kw):
        net = self.net
        order = ["attr", "levels", "levels2"]
        kw.update(dict(zip(order, args)))
        if set(kw) - set(order):
            raise FormulaError("blocks() takes attr, levels and levels2")
        a = _attr(net, kw.get("attr"), "blocks")
        levels = sorted(set(a.tolist())) if kw.get("levels") is None else [str(v) for v in kw["levels"]]
        lv2 = kw.get("levels2", False)
        # statnet's nodemix order: (row, col) pairs by column (undirected: row <= col)
        K = len(levels)
        types = [(levels[r], levels[c]) for c in range(K) for r in range(K)
                 if net.directed or r <= c]
        if lv2 is True:
            fixed_types = types
        elif lv2 is False or lv2 is None:
            fixed_types = []
        else:
            idx = [lv2] if np.isscalar(lv2) else list(lv2)
            if any(not isinstance(k, (int, np.integer)) or not 1 <= k <= len(types) for k in idx):
                raise FormulaError(f"blocks(levels2=): indices must lie in 1..{len(types)}")
            fixed_types = [types[k - 1] for k in idx]
        # the fixed dyads cell by cell (the nodes of level r to those of level c), not
        # from the n² pairs of the network
        nodes = {lv: np.flatnonzero(a == lv) for lv in set(levels)}
        fixed = [np.zeros(0, np.int64)]
        for r, c in fixed_types:
            rows, cols = nodes[r], nodes[c]
            if r == c:
                pairs = group_pairs(np.zeros(len(rows), np.int8),
                                    within=True if net.directed else "unordered")
                pairs = rows[pairs]
            else:
                pairs = np.stack([np.repeat(rows, len(cols)), np.tile(cols, len(rows))], axis=1)
            fixed.append(dyad_vars(net.n, net.directed, pairs))
        self.fix(np.concatenate(fixed))

    def space(self, spec):
        if (self.free is None and not self.has_bounds and self.preserve is None
                and self.attr_bounds is None):
            return AllDyads(self.net, self.missing)
        bounds = None
        if self.has_bounds:
            lo_o, hi_o, lo_i, hi_i = self.bounds
            if not self.net.directed:
                lo_o, hi_o = np.maximum(lo_o, lo_i), np.minimum(hi_o, hi_i)
                lo_i, hi_i = lo_o, hi_o
            bounds = tuple(np.minimum(b, _BIG) for b in (lo_o, hi_o, lo_i, hi_i))
        space = ConstrainedSpace(self.net, self.free, bounds, self.preserve, self.missing, spec,
                                 self.attr_bounds, self.attr_either, self.pinned,
                                 pair_layers=stacked_layers(self.net))
        space.check(self.net.ties)
        return space


def stacked_layers(network):
    """The layers of a stacked network (``ef.Layer``: their number; ``ef.Networks``: 1),
    for the node-pair moves of its sample space; None for any other network."""
    if NETWORK_ID not in network.node_attrs or getattr(network, "bipartite", None) is not None:
        return None
    names = network.graph_attrs.get(LAYER_NAMES)
    return len(names) if names else 1


def constraint_formula(constraints):
    """``constraints`` as ERGM keeps it: None, a formula string, or (formula, {name: dyad
    list}).  A list (or tuple) of constraint strings is one formula, its items joined
    with ``+`` (``["~bd(maxout=5)", "blockdiag('school')"]`` is
    ``"~ bd(maxout=5) + blockdiag('school')"``); anything else is a FormulaError.

    >>> constraint_formula(["~bd(maxout=5)", "~edges"])
    '~ bd(maxout=5) + edges'
    """
    if constraints is None or isinstance(constraints, str):
        return constraints
    if isinstance(constraints, tuple) and len(constraints) == 2 \
            and isinstance(constraints[1], dict):
        return (constraint_formula(constraints[0]), constraints[1])
    if isinstance(constraints, (list, tuple)) and constraints \
            and all(isinstance(c, str) for c in constraints):
        parts = [_strip(c) for c in constraints]
        return "~ " + " + ".join(p for p in parts if p not in ("", ".")) \
            if any(p not in ("", ".") for p in parts) else "~ ."
    raise FormulaError("constraints must be a formula string (\"~ bd(maxout=5) + edges\"), "
                       "a list of constraint strings, or (formula, {name: dyad list}); got "
                       f"{type(constraints).__name__} {_short_repr(constraints)}")


def _short_repr(value, n=60):
    text = repr(value)
    return text if len(text) <= n else text[:n] + "..."


def parse_constraints(constraints, network, missing=None):
    """The sample space of ``network`` under ``constraints``.

    Parameters
    ----------
    constraints : str, (str, dict), or None
        statnet's constraint formula (``"~ bd(maxout=5) + blockdiag('school')"``),
        optionally with a mapping of dyad-list names; None or ``"~ ."``: none.
    network : Network
    missing : int array, optional
        Missing dyads (variable indices).

    Raises
    ------
    FormulaError
        For an unknown or malformed constraint.
    NetworkError
        If the observed network lies outside the space (e.g. a degree above ``bd(maxout=)``).
    """
    names = {}
    constraints = constraint_formula(constraints)
    if isinstance(constraints, tuple):
        if len(constraints) != 2 or not isinstance(constraints[1], dict):
            raise FormulaError("constraints=(formula, {name: dyad list}) expected")
        constraints, names = constraints
    if constraints is None or _strip(constraints) in ("", "."):
        if getattr(network, "bipartite", None) is not None:
            return _Builder(network, missing, names).space("two-mode")
        if NETWORK_ID in network.node_attrs and len(set(network.node_attrs[NETWORK_ID])) > 1:
            return _Builder(network, missing, names).space(f'blockdiag("{NETWORK_ID}")')
        return AllDyads(network, missing)      # (one network: its blocks are every dyad)
    if not isinstance(constraints, str):
        raise FormulaError(f"constraints must be a formula string, got {type(constraints).__name__}")
    text = _split_tilde_args(_strip(constraints))
    builder = _Builder(network, missing, names)
    for call in parse_formula(text):
        builder.add(call)
    return builder.space(_strip(constraints).replace("\n", " "))


# ---------------------------------------------------------------------------
# checkpoints: the sample space an MCMC-MLE or EE checkpoint was written under
# ---------------------------------------------------------------------------
_SPACE_ITEMS = {"constraints": "constraints", "missing": "missing dyads",
                "offset_coef": "offset coefficients", "target_stats": "target statistics"}


def checkpoint_space(model) -> dict:
    """What an MCMC-MLE or EE checkpoint records of ``model``'s sample space:
    constraints, missing dyads, offset coefficients, target statistics (the
    model's :meth:`~ergmfit.ERGM.saved_spec`, with every item present)."""
    spec = model.saved_spec() if hasattr(model, "saved_spec") else {}
    return {k: spec.get(k) for k in _SPACE_ITEMS}


def _same(key, a, b):
    if a is None or b is None:
        return a is None and b is None
    if key == "missing":
        return {tuple(map(str, p)) for p in a} == {tuple(map(str, p)) for p in b}
    if key in ("offset_coef", "target_stats"):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        return a.shape == b.shape and bool(np.all((a == b) | np.isclose(a, b, rtol=1e-12)))
    return a == b


def check_checkpoint_space(saved, model, path):
    """Raise CheckpointError unless ``model`` samples the space recorded in a
    checkpoint (``saved``: its ``sample_space`` entry; None for a checkpoint
    written before they were recorded, which is not checked)."""
    from .exceptions import CheckpointError
    if saved is None:
        return
    now = checkpoint_space(model)
    for key, what in _SPACE_ITEMS.items():
        try:
            same = _same(key, saved.get(key), now.get(key))
        except (AttributeError, TypeError, ValueError) as exc:
            raise CheckpointError(f"cannot read {path}: a checkpoint with a damaged "
                                  f"sample_space entry ({type(exc).__name__}: {exc})") from None
        if not same:
            def show(v):
                if v is None:
                    return "none"
                if key == "missing":
                    return f"{len(v)} dyad(s)"
                return repr(v[0] if key == "constraints" and isinstance(v, list) else v)
            raise CheckpointError(
                f"the checkpoint {path} was written with {what} {show(saved.get(key))}, but this "
                f"fit has {show(now.get(key))}: a fit resumes in the sample space it was started "
                "in. Resume with the same settings, or leave them out (resume= alone restores "
                "the checkpoint's constraints, missing dyads, offsets and target statistics)")


def resume_space(model, kwargs):
    """The model a ``fit(..., resume=path)`` continues (an MCMC-MLE checkpoint
    file or an EE checkpoint directory): the checkpoint's
    constraints, offset coefficients and target statistics are put into
    ``kwargs`` where the call gives none, and its missing dyads into the model
    if it has none (anything given that differs is refused later, when the
    checkpoint is read).  An unreadable checkpoint is left to the estimator."""
    import copy
    import os
    from .exceptions import CheckpointError
    from .runtime import read_json
    try:
        path = os.fspath(kwargs["resume"])
    except TypeError:
        return model                       # not a path: the estimator says so
    if os.path.isdir(path):                # an EE checkpoint: its meta.json records the space
        path = os.path.join(path, "meta.json")
    try:
        saved = read_json(path)
    except CheckpointError:
        return model
    saved = saved.get("sample_space") if isinstance(saved, dict) else None
    if not isinstance(saved, dict):
        return model
    cons = saved.get("constraints")
    if isinstance(cons, list) and not (len(cons) == 2 and isinstance(cons[0], str)
                                       and isinstance(cons[1], dict)):
        return model                     # damaged: reading the checkpoint reports it
    if kwargs.get("constraints") is None and model.constraints is None and cons is not None:
        kwargs["constraints"] = ((cons[0], {k: [tuple(p) for p in v] for k, v in cons[1].items()})
                                 if isinstance(cons, list) else cons)
    for key in ("offset_coef", "target_stats"):
        if (kwargs.get(key) is None and getattr(model, key, None) is None
                and saved.get(key) is not None):
            kwargs[key] = saved[key]
    if (isinstance(saved.get("missing"), list) and saved["missing"]
            and getattr(model, "_missing", None) is None):
        model = copy.copy(model)
        model._missing = pairs_vars(model.network, saved["missing"], "the checkpoint's missing dyads")
        model._set_structure()
    return model


def _whole_bounds(arr):
    """Degree bounds (floats, NaN kept) as whole numbers within [-1, _BIG]: beyond any
    possible degree is no bound (``Inf``, ``1e308``), below 0 is below any degree; R's
    as.integer truncates fractions."""
    arr = np.trunc(np.clip(np.nan_to_num(arr, nan=-1.0), -1, _BIG))
    return arr.astype(np.int64)


def _degree_bounds(val, key, n):
    """bd()'s ``key`` (a number or one per node, NA for none) as n whole-number bounds."""
    try:
        arr = np.asarray(val, dtype=float)
    except (TypeError, ValueError):
        raise FormulaError(f"bd({key}=) must be a number or one number per node, got "
                           f"{val!r}") from None
    if arr.ndim > 1 or (arr.ndim == 1 and arr.size not in (1, n)):
        raise FormulaError(f"bd({key}=) must be a number or one number per node ({n}), got "
                           f"{arr.size} numbers")
    arr = np.where(np.isnan(arr), -1.0 if key.startswith("min") else float(_BIG), arr)
    return np.broadcast_to(_whole_bounds(arr), (n,))       # NA: no bound on that node

