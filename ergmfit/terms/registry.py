"""The one table of model terms.

Every term is registered once, with its statnet name, aliases, the network
kinds it accepts, its arguments and defaults, and a builder that validates
the arguments against the network and returns a :class:`Term` (labels,
compiled kernel, empty-graph value).  The formula parser, the "did you
mean" error, ``ergmfit terms`` and the docs all read this table.

The table fills as it is read: a family module (``dyadic``, ``degree``, ...,
:data:`FAMILY_MODULES`) registers its terms when it is imported, and a look-up of a
name imports the families that register it (the index :mod:`._index`, generated from
the registrations and checked against them by ``tests/terms/test_lazy_families.py``);
:func:`all_terms`, a name not in the index (an unknown term, the "did you mean" list)
and :func:`load_all_families` import every family.  A model then imports only the
compiled kernels and Python modules its terms need.
"""
from __future__ import annotations

import difflib
import importlib
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..exceptions import TermError

REQUIRED = object()

UNDIRECTED = "undirected"
DIRECTED = "directed"
BOTH = "both"


@dataclass(frozen=True)
class Param:
    """One argument of a term: its statnet name and default."""

    name: str
    default: Any = REQUIRED
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass
class Term:
    """A term bound to a network: what the engine needs from it."""

    name: str
    labels: list
    kernel: Any
    empty: np.ndarray = None
    dyad_independent: bool = False
    args: dict = field(default_factory=dict)
    # curved terms (see .curved): coefficient labels, the map θ -> η and the
    # starting decay; linear terms have one coefficient per statistic
    param_labels: list = None
    curve: Any = None
    init_decay: Any = None
    # statnet's Offset() operator: (inner terms, mask of their parameters that are fixed,
    # the fixed values); the model then estimates the others (see parameterisation_of)
    fixed: Any = None
    # statnet's Curve() operator: its affine map (see .curvemap.curve_map)
    curve_map: Any = None
    # the statistics' value on the empty graph where ``empty`` is not it: nonlinear kernels
    # (Log, Exp, Prod) give their exact value at the top level and declare 0 there, but a
    # term built on them (Sum, Exp(~Log(...)), F, ...) needs the true value (.on_empty)
    true_empty: Any = None
    # the node attributes whose values at i and j alone give the change statistic of
    # (i, j) (empty: the same for every dyad, edges); None when it is not such a function.
    # Set from the registration (``register(cell_attrs=)``); attribute-cell designs read it
    cell_attrs: Any = None
    # count-valued terms: what the change statistic of a zero dyad (i, j) reads (a
    # :class:`ergmfit.terms.valued.ZeroDyadLocality`); None when not declared.  The count
    # MPLE groups the zero dyads by it (:class:`ergmfit.estimation.mple.count.RemoteZeros`)
    zero_locality: Any = None
    # what is certain about the statistics' range on any sample space (set from the
    # registration, ``register(bounds=)``; see BOUNDS): the face of a statistic at its
    # extreme (:mod:`ergmfit.estimation.mple.boundary`) reads it
    bounds: Any = None
    # the change statistic of a dyad i -> j reads no dyad but i -> j in the layers (an L()
    # term of dyad-independent terms): with ``dyad_independent``, what tells the node-pair
    # moves of stacked networks (``proposal="pairs"``) that no term couples the two
    # directions of a pair
    within_ordered_pair: bool = False
    # the dyads besides (i, j) that the change statistic of (i, j) reads, when they are all
    # in (i, j)'s node pair (one of READS: "pair" -- the reverse dyad (j, i) of the same
    # network or layer, ``mutual``; "node pair" -- the dyads of i and j in every layer,
    # both ways, ``L(~edges, ~a&b)``); None: not declared (other dyads, as ``triangle``).
    # Set from the registration (``register(reads=)``) or by an operator from its inner
    # terms; a dyad-independent term reads none (:attr:`locality`)
    reads: Any = None
    # statistics that are a function of one dyad's value summed over the dyads, on values
    # the term fixes itself (Project(): a projected tie's shared-partner count, 0 to the
    # other mode's size): ([(index of the statistic, kind, params)], ValueSupport), kind and
    # params as ``_coreterms.transform_value`` takes them.  The family's ``check_fit``
    # refuses one that is the same for every value (:meth:`ModelFamily.value_statistics`)
    value_stats: Any = None
    # an operator's term whose statistics are a function of those of inner terms: (inner
    # terms, W or None for the identity, how): how None -- W times them (``stack``: Sum,
    # Label, Offset, Passthrough, I, B, Curve, For); ("exp",) or ("log", log0) -- each
    # one's exp or log (Exp, Log); ("prod",) -- Π inner_j^W[i, j] (Prod).  The family's
    # constant-statistic check reads through it
    # (:meth:`ergmfit.families.base.ModelFamily.constant_statistics`)
    parts: Any = None

    @property
    def locality(self):
        """The dyads the change statistic of a dyad (i, j) reads besides (i, j): ``"dyad"``
        for none (dyad-independent), ``"pair"`` or ``"node pair"`` (the field ``reads``),
        or None for other dyads too.  A model whose every term reads within the node pair factorises over
        the node pairs (:func:`ergmfit.estimation.common.pairstates.pair_states`).

        >>> import ergmfit as ef
        >>> [t.locality for t in ef.ERGM(ef.datasets.load("samplk1"),
        ...                              "edges + mutual + triangle").terms]
        ['dyad', 'pair', None]
        """
        return "dyad" if self.dyad_independent else self.reads

    def on_empty(self) -> np.ndarray:
        """The statistics on the empty graph (``true_empty`` when set, else ``empty``)."""
        return self.empty if self.true_empty is None else np.asarray(self.true_empty, float)

    def __post_init__(self):
        if self.empty is None:
            self.empty = np.zeros(len(self.labels))
        self.empty = np.asarray(self.empty, dtype=float)
        if len(self.labels) != self.kernel.n_stats or len(self.empty) != len(self.labels):
            raise AssertionError(f"term {self.name}: labels, kernel and empty value disagree")
        if self.param_labels is None:
            self.param_labels = list(self.labels)


def curved_terms(terms) -> list:
    """The curved terms of a model, those inside ``Offset()`` included, in parameter order."""
    out = []
    for t in terms:
        if getattr(t, "fixed", None) is not None:
            out += curved_terms(t.fixed[0])
        elif getattr(t, "curve_terms", None) is not None:      # Curve(map="rep") over them
            out += curved_terms(t.curve_terms)
        elif getattr(t, "curve", None) is not None:
            out.append(t)
    return out


@dataclass
class TermSpec:
    """An entry of the term table."""

    name: str
    builder: Callable
    kinds: str = BOTH
    params: Sequence[Param] = ()
    aliases: Sequence[str] = ()
    family: str = ""
    doc: str = ""
    cell_attrs: Any = None
    bounds: Any = None
    reads: Any = None

    def cell_attributes(self, bound) -> list | None:
        """The node attributes that alone give the change statistic of a dyad (i, j),
        through their values at i and j, for the arguments ``bound``: ``cell_attrs=()``
        declares none (the statistic is the same for every dyad), ``cell_attrs="attr"`` the
        names the argument ``attr`` gives; None when the term declares nothing or the
        argument is not a name or list of names."""
        if self.cell_attrs is None:
            return None
        if not isinstance(self.cell_attrs, str):
            return list(self.cell_attrs)
        a = bound.get(self.cell_attrs)
        names = [a] if isinstance(a, str) else list(a) if isinstance(a, (list, tuple)) else []
        return names if names and all(isinstance(v, str) for v in names) else None

    def signature(self) -> str:
        parts = []
        for p in self.params:
            parts.append(p.name if p.required or p.name == "..." else f"{p.name}={p.default!r}")
        return f"{self.name}({', '.join(parts)})" if parts else self.name


_TERMS: list = []
_LOOKUP: dict = {}     # lower-case name or alias -> [TermSpec, ...] (one per network kind)

#: the modules of ergmfit.terms that register terms, in the order in which every family was
#: imported when the package imported them all: a name's entries in the table keep this
#: order (its first entry is what :func:`get_term` gives without a network kind)
FAMILY_MODULES = ("dyadic", "degree", "triad", "dtriad", "alternating", "degfun", "bipartite",
                  "operators", "interaction", "attrterms", "census", "nonlinear", "mixing",
                  "composed", "diversity", "projection", "multinet", "tapering", "valued",
                  "temporal")
_RANK = {m: k for k, m in enumerate(FAMILY_MODULES)}
_ALL_LOADED = []        # [True] once every family is imported
_IMPORT_LOCK = threading.RLock()


def _family_rank(spec) -> int:
    mod = getattr(spec.builder, "__module__", "") or ""
    return _RANK.get(mod.rsplit(".", 1)[-1], len(FAMILY_MODULES))


def load_all_families() -> None:
    """Import every term family (the whole table: :func:`all_terms`, ``ergmfit terms``, the
    docs); a model's look-ups import only the families its terms are in."""
    if _ALL_LOADED:
        return
    with _IMPORT_LOCK:
        for mod in FAMILY_MODULES:
            importlib.import_module(f"{__package__}.{mod}")
        _ALL_LOADED.append(True)


def _load_families_of(key, state) -> None:
    """Import the families that register the lower-case name ``key`` in table ``state``."""
    if _ALL_LOADED:
        return
    from ._index import INDEX
    mods = INDEX.get(state, {}).get(key, ())
    missing = [m for m in mods if f"{__package__}.{m}" not in sys.modules]
    if missing:
        with _IMPORT_LOCK:
            for mod in missing:
                importlib.import_module(f"{__package__}.{mod}")


def family_index() -> dict:
    """``{state: {lower-case name or alias: (family module, ...)}}`` of the whole table, in
    :data:`FAMILY_MODULES` order: what ``ergmfit/terms/_index.py`` holds (regenerate it with
    ``python -m ergmfit.terms._index`` after registering a term)."""
    load_all_families()
    out = {}
    for state, (terms, _) in _TABLES.items():
        table = {}
        for spec in terms:
            mod = spec.builder.__module__.rsplit(".", 1)[-1]
            for key in (spec.name, *spec.aliases):
                mods = table.setdefault(key.lower(), [])
                if mod not in mods:
                    mods.append(mod)
        out[state] = {k: tuple(sorted(v, key=lambda m: _RANK.get(m, len(FAMILY_MODULES))))
                      for k, v in sorted(table.items())}
    return out


_INDEX_DOC = '''"""Which term family module registers each term name (generated: do not edit by hand).

``{state: {lower-case name or alias: (module of ergmfit.terms, ...)}}``: the registry imports a
name's families on its first look-up, so that a model imports only the families of its terms.
After registering a term, regenerate this file from the registrations::

    PYTHONPATH=. python -c "from ergmfit.terms.registry import index_source; \\
        print(index_source(), end='')" > ergmfit/terms/_index.py

(``tests/terms/test_lazy_families.py`` checks it against them.)
"""
'''


def index_source() -> str:
    """The text of ``ergmfit/terms/_index.py`` from the registrations (:func:`family_index`)."""
    out = [_INDEX_DOC, "\nINDEX = {\n"]
    for state, table in family_index().items():
        out.append(f"    {state!r}: {{\n")
        out += [f"        {key!r}: {mods!r},\n" for key, mods in table.items()]
        out.append("    },\n")
    out.append("}\n")
    return "".join(out)

# The terms of count-valued models (ergm.count's valued terms: the state a term's kernel
# reads is the model family's, see ergmfit.families) are a table of their own: a name such
# as ``mutual`` means one thing on binary ties and another on counts.
BINARY_STATE = "binary"
COUNT_STATE = "count"
_VALUED_TERMS: list = []
_VALUED_LOOKUP: dict = {}
_TABLES = {BINARY_STATE: (_TERMS, _LOOKUP), COUNT_STATE: (_VALUED_TERMS, _VALUED_LOOKUP)}


def _table(state):
    try:
        return _TABLES[state]
    except KeyError:
        raise TermError(f"unknown model state {state!r}; expected one of {sorted(_TABLES)}") \
            from None


#: what a term may declare about the dyads its change statistic of (i, j) reads besides
#: (i, j) (``register(reads=)``): the reverse dyad (j, i) only, or the dyads of i and j in
#: every layer of a multilayer network (both ways)
READS = ("pair", "node pair")


def within_node_pair(terms) -> bool:
    """Whether the change statistic of every term's dyad (i, j) reads no dyad outside the
    node pair {i, j} (its layers, both ways): each is dyad-independent or declares
    ``reads`` (:data:`READS`).

    >>> import ergmfit as ef
    >>> g = ef.datasets.load("samplk1")
    >>> within_node_pair(ef.ERGM(g, "edges + mutual").terms)
    True
    >>> within_node_pair(ef.ERGM(g, "edges + gwesp(0.5, fixed=TRUE)").terms)
    False
    """
    return all(t.locality is not None for t in terms)


#: what a term may declare about its statistics' range, for every network of any sample
#: space: ``"count"`` -- each statistic counts something (0 is a lower bound);
#: ``"increasing"`` -- adding a tie never decreases a statistic (its values on the empty
#: and on the complete network are lower and upper bounds)
BOUNDS = ("count", "increasing")


def register(name, *, kinds=BOTH, params=(), aliases=(), family="", state=BINARY_STATE,
             cell_attrs=None, bounds=None, reads=None):
    """Decorator registering ``builder(net, **args) -> Term`` as a term.

    A name may be registered twice, once for undirected and once for
    directed networks (e.g. ``triangle``); the network picks the entry.
    ``state`` is the kind of model state the term's kernel reads: ``"binary"``
    (a ``TermKernel``) or ``"count"`` (a ``CountKernel``, valued terms).
    ``cell_attrs`` declares that the change statistic of a dyad (i, j) is a function of
    the values at i and j of some node attributes only: ``()`` of none (``edges``), a
    name (``"attr"``) of the attributes that argument names (:meth:`TermSpec.cell_attributes`;
    the exact design by attribute cells, :mod:`ergmfit.estimation.mple.cells`, reads it).
    ``bounds`` declares what is certain about the statistics' range (one of
    :data:`BOUNDS`; for a term with a curved form, of its fixed form): a statistic
    observed at such a bound is at its extreme (statnet's ``minval``/``maxval``).
    ``reads`` declares the dyads besides (i, j) that the change statistic of (i, j) reads,
    for every argument: one of :data:`READS` (``"pair"``: the reverse dyad only, as
    ``mutual``); left None for a dyad-independent term (``Term.dyad_independent``) and for
    terms that read other dyads.  An operator sets ``Term.reads`` from its inner terms.
    """
    if bounds is not None and bounds not in BOUNDS:
        raise AssertionError(f"term {name}: bounds={bounds!r} is not one of {BOUNDS}")
    if reads is not None and reads not in READS:
        raise AssertionError(f"term {name}: reads={reads!r} is not one of {READS}")
    terms, lookup = _table(state)

    def deco(builder):
        spec = TermSpec(name=name, builder=builder, kinds=kinds, params=tuple(params),
                        aliases=tuple(aliases), family=family,
                        doc=(builder.__doc__ or "").strip(), cell_attrs=cell_attrs,
                        bounds=bounds, reads=reads)
        for key in (name, *aliases):
            for other in lookup.get(key.lower(), []):
                if BOTH in (other.kinds, kinds) or other.kinds == kinds:
                    raise AssertionError(f"term name {key!r} registered twice for {kinds}")
            entries = lookup.setdefault(key.lower(), [])
            entries.append(spec)
            entries.sort(key=_family_rank)      # stable: the families' order, not the imports'
        terms.append(spec)
        return builder

    return deco


def all_terms(state=BINARY_STATE) -> list:
    """Every registered term of models with ``state`` (binary ties by default), sorted by
    name (a name may appear once per network kind).  Imports every term family."""
    load_all_families()
    return sorted(_table(state)[0], key=lambda s: (s.name.lower(), s.kinds))


#: what to write instead of a term the network's kind does not have (statnet users'
#: common mistakes): (term, the kind of the network) -> hint
KIND_HINTS = {
    ("kstar", DIRECTED): "on a directed network use ostar(k) (out-stars) or istar(k) (in-stars)",
    ("degree", DIRECTED): "on a directed network use odegree(d) or idegree(d)",
    ("gwdegree", DIRECTED): "on a directed network use gwodegree or gwidegree",
    ("mutual", UNDIRECTED): "every tie of an undirected network is mutual (edges counts them)",
    ("istar", UNDIRECTED): "on an undirected network use kstar(k)",
    ("ostar", UNDIRECTED): "on an undirected network use kstar(k)",
    ("idegree", UNDIRECTED): "on an undirected network use degree(d)",
    ("odegree", UNDIRECTED): "on an undirected network use degree(d)",
    ("gwidegree", UNDIRECTED): "on an undirected network use gwdegree",
    ("gwodegree", UNDIRECTED): "on an undirected network use gwdegree",
    ("ttriple", UNDIRECTED): "on an undirected network use triangle",
    ("ctriple", UNDIRECTED): "on an undirected network use triangle",
}

#: terms of a numeric attribute and their categorical counterparts ({a}: the attribute)
NUMERIC_HINTS = {
    "nodecov": "nodefactor('{a}') (a coefficient per level) or nodematch('{a}') (homophily)",
    "nodemain": "nodefactor('{a}') (a coefficient per level) or nodematch('{a}') (homophily)",
    "nodeicov": "nodeifactor('{a}') (a coefficient per level of the receiver)",
    "nodeocov": "nodeofactor('{a}') (a coefficient per level of the sender)",
    "absdiff": "nodematch('{a}') or nodemix('{a}')",
    "b1cov": "b1factor('{a}')",
    "b2cov": "b2factor('{a}')",
}


def _spelt(name, specs):
    """Whether one of ``specs`` is named ``name`` (or has it as an alias) as spelt."""
    return any(name == s.name or name in s.aliases for s in specs)


def get_term(name: str, directed=None, state=BINARY_STATE) -> TermSpec:
    """The spec of term ``name`` (case-insensitive, aliases accepted).

    With ``directed`` given, the entry for that kind of network; a term
    that exists only for the other kind raises a TermError saying so.
    ``state="count"`` looks the name up among the valued terms; a binary
    term named there raises a TermError saying so.
    """
    terms, lookup = _table(state)
    key = name.lower()
    _load_families_of(key, state)
    specs = lookup.get(key)
    if not specs and not _ALL_LOADED:
        load_all_families()         # a name the index does not know: the whole table
        specs = lookup.get(key)
    if specs and state == COUNT_STATE and not _spelt(name, specs):
        # found only case-insensitively: a binary term spelt exactly so is what was meant
        # (statnet's operator Sum(~f), not the valued sum(pow), which read "~f" as pow)
        _load_families_of(key, BINARY_STATE)
        if _spelt(name, _LOOKUP.get(key, [])):
            specs = None
    if not specs and state == COUNT_STATE:
        _load_families_of(key, BINARY_STATE)
    if not specs and state == COUNT_STATE and name.lower() in _LOOKUP:
        valued = ", ".join(sorted({s.name for s in _VALUED_TERMS}))
        raise TermError(f"term {name!r} is a term of binary networks and has no valued form: "
                        f"a count-valued model (response=..., reference=...) takes the valued "
                        f"terms ({valued}); the dyad-independent covariate terms among them "
                        "take form='sum' (Σ x_ij y_ij, the default) or form='nonzero', as in "
                        "statnet" + ("" if name[:1].isupper() or name == "offset" else
                                     f"; or wrap it in B(~{name}, form='nonzero') (evaluated "
                                     "on the binary network of the nonzero dyads; form='sum' "
                                     "for a dyad-independent term, form=~atleast(2) for "
                                     "another value criterion)"))
    if specs and directed is not None:
        want = DIRECTED if directed else UNDIRECTED
        fitting = [s for s in specs if s.kinds in (want, BOTH)]
        if not fitting:
            other = "directed" if want == UNDIRECTED else "undirected"
            hint = KIND_HINTS.get((specs[0].name.lower(), want))
            raise TermError(f"term {specs[0].name} is for {other} networks, but this network "
                            f"is {'directed' if directed else 'undirected'}"
                            + (f"; {hint}" if hint else ""))
        return fitting[0]
    spec = specs[0] if specs else None
    if spec is None:
        names = sorted({k for s in terms for k in (s.name, *s.aliases)})
        close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
        close += [k for k in difflib.get_close_matches(name.lower(), [k.lower() for k in names], n=5)
                  if k not in [c.lower() for c in close]]
        hint = f" Did you mean {', '.join(repr(c) for c in close[:5])}?" if close else ""
        raise TermError(f"unknown term {name!r}.{hint} (`ergmfit terms` lists them all)")
    return spec


def bind_arguments(spec: TermSpec, args: Sequence, kwargs: dict) -> dict:
    """Match positional and keyword arguments to the term's parameters."""
    names = [p.name for p in spec.params if p.name != "..."]
    dots = any(p.name == "..." for p in spec.params)   # R's ...: other named arguments
    if len(args) > len(names):
        raise TermError(f"term {spec.name}: takes at most {len(names)} argument(s) "
                        f"({spec.signature()}), got {len(args)}")
    # positional arguments take the parameters in order (also when written after named
    # ones, as R allows); one that lands on a parameter also given by name is an error
    bound = dict(zip(names, args))
    extra = {}
    lower = {n.lower(): n for n in names}
    for key, val in kwargs.items():
        real = lower.get(key.lower())
        if real is None:
            if dots:
                extra[key] = val
                continue
            raise TermError(f"term {spec.name}: unknown argument {key!r}; "
                            f"it takes {spec.signature()}")
        if real in bound:
            raise TermError(f"term {spec.name}: argument {real!r} given twice")
        bound[real] = val
    if dots:
        bound["..."] = extra
    for p in spec.params:
        if p.name not in bound and p.name != "...":
            if p.required:
                raise TermError(f"term {spec.name}: missing argument {p.name!r}; "
                                f"it takes {spec.signature()}")
            bound[p.name] = p.default
    return bound


INTERACTION = None     # builder of "a:b" (set by the operators family)
RESOLVE = None         # statnet's attribute/level specifications (set by .attrspec)


_NESTING = threading.local()     # operator terms being built, per thread


def build_term(net, name: str, args=(), kwargs=None, state=BINARY_STATE) -> Term:
    """Validate a term call against the network and build it (``state``: the model's
    kind of state, see :func:`register`).

    Operator terms (``Sum(~...)``, ``S(~...)``, ``Label(~...)``, ...) build their
    inner formulas through here: at most :data:`ergmfit.formula.MAX_DEPTH` of
    them nested in one another (a FormulaError beyond; Python's recursion limit
    would otherwise end the build with a RecursionError)."""
    from ..exceptions import FormulaError
    from ..formula import MAX_DEPTH
    if state != BINARY_STATE:
        if name == ":":
            raise TermError("interactions (a:b) of valued terms are not available")
        spec = get_term(name, directed=net.directed, state=state)
        return _build(spec, net, bind_arguments(spec, args, kwargs or {}))
    depth = getattr(_NESTING, "depth", 0)
    if depth >= MAX_DEPTH:
        raise FormulaError(f"the formula nests terms in operator terms more than {MAX_DEPTH} "
                           f"levels deep (at term {name}); ergmfit builds at most "
                           f"{MAX_DEPTH} levels")
    _NESTING.depth = depth + 1
    try:
        return _build_term(net, name, args, kwargs)
    finally:
        _NESTING.depth = depth


def _build_term(net, name, args, kwargs):
    if name == ":" and INTERACTION is None:
        importlib.import_module(f"{__package__}.interaction")     # sets INTERACTION
    if RESOLVE is None:
        importlib.import_module(f"{__package__}.attrspec")        # sets RESOLVE
    if name == ":" and INTERACTION is not None:
        try:
            return INTERACTION(net, *args)
        except (TypeError, ValueError) as exc:
            raise TermError(f"interaction: {exc}") from None
    spec = get_term(name, directed=net.directed)
    bound = bind_arguments(spec, args, kwargs or {})
    if RESOLVE is not None:             # ~expr attributes, COLLAPSE_SMALLEST, LARGEST, ...
        got = RESOLVE(net, spec, bound, _build)
        if isinstance(got, Term):       # a matrix attribute: the term once per column
            return got
        net, bound = got
    return _build(spec, net, bound)


def _build(spec, net, bound):
    try:
        term = spec.builder(net, **bound)
    except TermError as exc:
        hint = NUMERIC_HINTS.get(spec.name.lower())
        if hint and "must be numeric" in str(exc) and "For a categorical" not in str(exc):
            attr = bound.get("attr")
            attr = attr if isinstance(attr, str) else "attr"
            raise TermError(f"{exc}. For a categorical (text) attribute use "
                            + hint.format(a=attr)) from None
        raise
    except (TypeError, ValueError) as exc:
        raise TermError(f"term {spec.name}: {exc}") from None
    term.args = bound
    if spec.cell_attrs is not None or term.cell_attrs is None:
        # the registration's; a builder may set it from its inner terms (the valued B())
        term.cell_attrs = spec.cell_attributes(bound)
    term.bounds = spec.bounds
    if term.reads is None:
        term.reads = spec.reads
    return term


# -- helpers for builders ---------------------------------------------------

def format_number(x) -> str:
    """Numbers in labels as R prints them (15 significant digits)."""
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    s = f"{x:.15g}"
    return s


MAX_INT_ARG = 2**31 - 2     # counts such as k in kstar(k) or d in degree(d) are C ints


def as_int_list(value, what="k", minimum=0) -> list:
    """A term argument that may be an integer or a list of integers."""
    vals = value if isinstance(value, (list, tuple, np.ndarray)) else [value]
    out = []
    for v in vals:
        if (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating))
                or not np.isfinite(v) or not float(v).is_integer()):
            raise TermError(f"{what} must be an integer (or a list of integers), got {v!r}")
        v = int(v)
        if v < minimum:
            raise TermError(f"{what} must be at least {minimum}, got {v}")
        if v > MAX_INT_ARG:
            raise TermError(f"{what} = {v} is too large (at most {MAX_INT_ARG:,})")
        out.append(v)
    if not out:
        raise TermError(f"{what} must not be empty")
    return out


def as_bool(value, what) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TermError(f"{what} must be True or False, got {value!r}")


def as_float(value, what) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TermError(f"{what} must be a number, got {value!r}")
    v = float(value)
    if not np.isfinite(v):
        raise TermError(f"{what} must be finite, got {value!r}")
    return v
