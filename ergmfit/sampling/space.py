"""The sample space of a model: which dyads may vary, and which compiled
proposal walks them.

Every estimator, ``simulate`` and ``gof`` ask the model's
:class:`SampleSpace` for these two things instead of building them:

* ``free_dyads()`` -- the dyads whose pseudo-likelihood rows enter an MPLE
  design (``None``: every dyad of the network);
* ``proposal(name, bm)`` -- a fresh compiled Metropolis-Hastings proposal
  that never leaves the space, by name ("auto" picks the model's default);
* ``n_free`` -- the number of free dyads (the "degrees of freedom" of the
  null deviance).

The unconstrained space is every dyad of a one-mode network
(:class:`AllDyads`); statnet's constraints (``bd``, ``degrees``,
``blockdiag``, ... -- parsed by :mod:`ergmfit.constraints`) give a
:class:`ConstrainedSpace`: a set of free dyads (the others keep their
observed values), degree bounds and a preserved statistic, walked by the
compiled :class:`~ergmfit.sampling._constrained.ConstrainedProposal`.
Either may carry *missing* (unobserved) dyads: they vary in simulation,
leave the MPLE design, and are the only free dyads of the conditional chain
of the missing-data MCMC-MLE (:meth:`SampleSpace.conditional`).

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> m = ef.ERGM(nx.path_graph(4), "edges + triangle")
>>> m.sample_space
AllDyads(n=4, directed=False, n_free=6)
>>> m.sample_space.resolve_proposal("auto", m)
'lifted-triadic'
"""
from __future__ import annotations

import numpy as np

from ..exceptions import NetworkError, SettingsError
from ..utils.setops import in_sorted, intersect_sorted, setdiff_sorted, unique_sorted

# Statistics a constrained space may keep (the move that keeps each: _constrained.pyx).
PRESERVED = (None, "edges", "degrees", "odegrees", "idegrees", "b1degrees", "b2degrees",
             "degreedist")

# Proposals by name (see :func:`ergmfit.sampling.make_proposal`).
PROPOSALS = ("tnt", "triadic", "random", "lifted-tnt", "lifted-triadic")

# an attribute bound this large is none (``constraints._BIG``)
_NO_BOUND = 1 << 30

# Terms that count closed two-paths: the triadic proposals mix much faster for them.
_TRIADIC_TERMS = frozenset({"triangle", "ttriple", "ctriple", "transitive", "cycle"})


class SampleSpace:
    """Base class: the set of networks a model's variables range over."""

    kind = "abstract"
    constrained = False
    #: its sampler toggles one dyad per proposal (the compiled MH engine and the loops
    #: written for it); a constrained space's own moves may change several dyads at once
    #: and keep statistics (degrees, the tie count) fixed
    moves_one_dyad = True

    def __init__(self, network, missing=None):
        self.network = network
        # unobserved dyads, as sorted variable indices (None: none)
        self.missing = _vars_or_none(missing)

    @property
    def n_missing(self) -> int:
        return 0 if self.missing is None else len(self.missing)

    def free_vars(self):
        """The variables (dyad indices) a chain may toggle, sorted; None: all."""
        return None

    def design_vars(self):
        """The variables whose pseudo-likelihood rows enter an MPLE design
        (free and observed), sorted; None: every dyad."""
        v = self.design_set()
        return np.asarray(v) if isinstance(v, AllVarsExcept) else v

    def design_set(self):
        """:meth:`design_vars` without listing every dyad: None (every dyad), a sorted
        array, or, when every dyad but some (missing, pinned) is in the design, an
        :class:`AllVarsExcept` -- its length and positional indexing in O(excluded)
        memory, where the array would take 8 bytes a dyad (75 GB at 10^5 nodes)."""
        free = self.free_vars()
        if self.missing is None:
            return free
        if free is None:
            return AllVarsExcept(self.network.n_dyads, self.missing)
        return np.setdiff1d(free, self.missing, assume_unique=True)

    @property
    def dyad_independent(self) -> bool:
        """Whether the space is a set of free dyads only (no degree bounds or
        preserved statistics): then the MPLE design is restricted to it."""
        return True

    @property
    def toggles_design(self) -> bool:
        """Whether the toggle of any one design dyad alone, from the observed network,
        stays in the space (see :attr:`ConstrainedSpace.toggles_design`)."""
        return self.dyad_independent

    def make_sampler(self, cm, proposal, seed):
        """The Metropolis-Hastings engine that runs ``proposal`` on ``cm``."""
        from ._mh import MHSampler
        return MHSampler(cm, proposal, seed)

    def check(self, ties) -> None:
        """Raise NetworkError unless the network with ``ties`` lies in this space
        (every network on the nodes does, but in a :class:`ConstrainedSpace`)."""

    def conditional(self):
        """The space of the missing dyads given the observed ones (the
        second chain of the missing-data MCMC-MLE), or None without
        missing dyads."""
        if not self.n_missing:
            return None
        free = self.free_vars()
        free = self.missing if free is None else intersect_sorted(free, self.missing)
        return ConstrainedSpace(self.network, free_vars=free, spec="observed",
                                **self._degree_args())

    def _degree_args(self):
        return {}

    def to_dict(self) -> dict:
        return {"kind": self.kind, "missing": pairs_list(self.network, self.missing)}

    @property
    def n_free(self) -> int:
        """Number of dyads that may vary."""
        raise NotImplementedError

    def free_dyads(self):
        """The free dyads as an (m, 2) array of node indices, or ``None`` for all."""
        raise NotImplementedError

    def proposals(self) -> tuple:
        """Names of the proposals that walk this space."""
        return PROPOSALS

    def default_proposal(self, model) -> str:
        """"lifted-triadic" when a term counts closed two-paths (triangles,
        shared partners, alternating triangles), else "lifted-tnt".  The
        triadic moves play the part of statnet's ``sparse + .triadic``; the
        lifting (see :class:`~ergmfit.sampling.LiftedTriadicTNT`) gives more
        effective draws per CPU second than the reversible proposals: 1.7x
        on faux.magnolia.high, 1.1x on faux.mesa.high, 1.3x on samplike
        (``python benchmarks/bench_mcmle.py --mixing``).

        The choice does not depend on the network's size or density: on clustered
        networks the triadic moves give the most effective draws per CPU second at
        both sizes measured (1,000 and 10,000 nodes) and on faux.magnolia.high, and on a
        G(n, p) graph, where lifted tie/no-tie wins, the loss is of the same order or
        smaller than the other way round (``python benchmarks/bench_proposals.py``;
        the figures and the reasons in docs/guide/large_networks.md, "Which proposal
        at which size")."""
        triadic = any(getattr(t.kernel, "caches", 0) or t.name in _TRIADIC_TERMS
                      for t in getattr(model, "terms", ()))
        return "lifted-triadic" if triadic else "lifted-tnt"

    def resolve_proposal(self, name, model=None) -> str:
        """The proposal name ``name`` stands for ("auto": the default), checked."""
        if name is None or name == "auto":
            return self.default_proposal(model)
        if name not in self.proposals():
            raise SettingsError(f"proposal must be one of {self.proposals()} or 'auto', "
                                f"got {name!r}")
        return name

    def proposal(self, name="auto", bm=None, model=None):
        """A fresh compiled proposal called ``name`` that walks this space."""
        return make_proposal(self.resolve_proposal(name, model), bm)

    def contrastive_proposal(self, name="auto", bm=None, model=None):
        """The proposal of contrastive divergence's draws from the observed network:
        ``name``, or for "auto" the space's choice for them ("tnt" here, statnet's;
        a count space draws from each dyad's full conditional)."""
        return self.proposal("tnt" if name in (None, "auto") else name, bm, model)

    def describe(self) -> str:
        raise NotImplementedError

    def __repr__(self):
        net = self.network
        return (f"{type(self).__name__}(n={net.n}, directed={net.directed}, "
                f"n_free={self.n_free})")


class AllDyads(SampleSpace):
    """Every dyad of a one-mode network may vary (statnet's default, no constraints)."""

    kind = "all"

    @property
    def n_free(self) -> int:
        return int(self.network.n_dyads) - self.n_missing

    def free_dyads(self):
        v = self.design_vars()
        return None if v is None else var_pairs(self.network.n, self.network.directed, v)

    def describe(self) -> str:
        return "all dyads" + (f" ({self.n_missing} missing)" if self.missing is not None else "")


class AllVariables(SampleSpace):
    """Every variable of a model without a network may vary (an MRF's): what
    :func:`sample_space_of` answers for a model that has no ``sample_space``.
    Its proposals are made by name (:func:`make_proposal`); "auto" is the
    model's ``default_proposal`` ("tnt" if it has none)."""

    kind = "all"

    def __init__(self):
        super().__init__(None, None)

    def default_proposal(self, model) -> str:
        return getattr(model, "default_proposal", "tnt")

    @property
    def n_free(self) -> None:
        """None: the variables of a model without a network are not dyads, and a fit
        reports no ``nobs`` for them (:func:`~ergmfit.estimation.common.nobs.fit_nobs`)."""
        return None

    def describe(self) -> str:
        return "all variables"

    def __repr__(self):
        return "AllVariables()"


def sample_space_of(model) -> SampleSpace:
    """The sample space an estimator asks: ``model.sample_space``, or
    :class:`AllVariables` for a model without one (an MRF).

    >>> sample_space_of(object())
    AllVariables()
    """
    space = getattr(model, "sample_space", None)
    return AllVariables() if space is None else space


# ---------------------------------------------------------------------------
# Dyad indices
# ---------------------------------------------------------------------------
def dyad_vars(n, directed, pairs) -> np.ndarray:
    """Variable indices of (i, j) node-index pairs, as the compiled ERGM
    numbers dyads (directed: i*(n-1) + j - [j > i]; undirected: the
    row-major index of (min, max))."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    i, j = p[:, 0], p[:, 1]
    if len(p) and (i.min() < 0 or j.min() < 0 or i.max() >= n or j.max() >= n):
        raise NetworkError("a dyad refers to a node outside the network")
    if (i == j).any():
        raise NetworkError("a dyad joins a node to itself; dyads join two different nodes")
    if directed:
        return i * (n - 1) + j - (j > i)
    a, b = np.minimum(i, j), np.maximum(i, j)
    return a * n - a * (a + 1) // 2 + (b - a - 1)


def group_pairs(groups, within=True):
    """The node-index pairs (i, j), i != j, whose nodes are in the same group (``within``;
    each unordered pair once, i < j, when ``within`` is ``"unordered"``), built group by
    group: time and memory in the pairs returned, not in the n² pairs of the network.

    Parameters
    ----------
    groups : array-like
        Each node's group (a label, code or attribute value; equal values, one group).
    within : True or "unordered"
        Every ordered pair of a group (a directed network's dyads), or each unordered
        pair once (an undirected network's).

    Returns
    -------
    ndarray
        ``(n_pairs, 2)`` int64, group by group in the order of the groups' sorted values,
        and within a group in row-major order of the node indices.

    Examples
    --------
    >>> group_pairs(["a", "b", "a", "a"], within="unordered").tolist()
    [[0, 2], [0, 3], [2, 3]]
    >>> len(group_pairs([1, 1, 2, 2, 2]))
    8
    """
    if within not in (True, "unordered"):
        raise ValueError("within must be True or 'unordered'")
    _, code = np.unique(np.asarray(groups), return_inverse=True)
    code = code.ravel()
    order = np.argsort(code, kind="stable")         # each group's nodes ascending
    bounds = np.flatnonzero(np.diff(code[order])) + 1
    parts = []
    for nodes in np.split(order, bounds):
        k = len(nodes)
        if k < 2:
            continue
        if within == "unordered":
            i, j = np.triu_indices(k, 1)
        else:
            i, j = np.nonzero(~np.eye(k, dtype=bool))
        parts.append(np.stack([nodes[i], nodes[j]], axis=1))
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 2), np.int64)


def same_group_vars(n, directed, groups) -> np.ndarray:
    """The variable indices (sorted) of the dyads joining two nodes of the same group
    (``groups``: each node's group), built group by group (:func:`group_pairs`): what
    ``blockdiag`` and a stack of networks leave free, at any network size whose free
    dyads fit in memory.

    Examples
    --------
    >>> same_group_vars(4, False, ["a", "b", "a", "a"]).tolist()
    [1, 2, 5]
    """
    pairs = group_pairs(groups, within=True if directed else "unordered")
    return np.sort(dyad_vars(n, directed, pairs))


def var_pairs(n, directed, vars) -> np.ndarray:
    """The (i, j) pairs of variable indices (inverse of :func:`dyad_vars`)."""
    v = np.asarray(vars, dtype=np.int64)
    if directed:
        i = v // (n - 1)
        j = v - i * (n - 1)
        j = j + (j >= i)
        return np.stack([i, j], axis=1)
    starts = np.arange(n, dtype=np.int64) * n - np.arange(n, dtype=np.int64) * (np.arange(n) + 1) // 2
    i = np.searchsorted(starts, v, side="right") - 1
    j = v - starts[i] + i + 1
    return np.stack([i, j], axis=1)


class AllVarsExcept:
    """The variables ``0 .. n - 1`` except the sorted, distinct ``excluded`` ones: a sorted
    integer array that is never built.  ``len()``, positional indexing with an integer
    array (``v[k]``, the k-th smallest variable kept) and ``np.asarray(v)`` (the array
    itself) behave as the array's.

    Examples
    --------
    >>> v = AllVarsExcept(8, np.array([2, 3, 6]))
    >>> len(v), v[np.array([0, 1, 2, 4])].tolist(), np.asarray(v).tolist()
    (5, [0, 1, 4, 7], [0, 1, 4, 5, 7])
    """

    def __init__(self, n, excluded):
        self.n = int(n)
        self.excluded = np.asarray(excluded, dtype=np.int64)
        # kept variables below excluded[i]: excluded[i] - i, nondecreasing
        self._kept_before = self.excluded - np.arange(len(self.excluded), dtype=np.int64)

    def __len__(self):
        return self.n - len(self.excluded)

    def __getitem__(self, k):
        k = np.asarray(k, dtype=np.int64)
        if k.size and (k.min() < 0 or k.max() >= len(self)):
            raise IndexError(f"index out of range for {len(self)} variables")
        # the k-th kept variable is k plus the excluded ones at or below it
        return k + np.searchsorted(self._kept_before, k, side="right")

    def __array__(self, dtype=None, copy=None):
        keep = np.ones(self.n, dtype=bool)
        keep[self.excluded] = False
        out = np.flatnonzero(keep)
        return out if dtype is None else out.astype(dtype)

    def __repr__(self):
        return f"AllVarsExcept(n={self.n}, excluded={len(self.excluded)})"


def design_members(values, design) -> np.ndarray:
    """Which of ``values`` (variables) are in ``design``, a :meth:`SampleSpace.design_set`:
    None (every dyad), a sorted array, or an :class:`AllVarsExcept` (every dyad but its
    excluded ones), as a boolean mask, by binary search (never listing every dyad).

    >>> design_members([1, 2, 6], AllVarsExcept(8, np.array([2, 3]))).tolist()
    [True, False, True]
    >>> design_members([1, 2, 6], np.array([2, 6])).tolist()
    [False, True, True]
    """
    values = np.asarray(values, dtype=np.int64)
    if design is None:
        return np.ones(values.shape, dtype=bool)
    if isinstance(design, AllVarsExcept):
        return ~in_sorted(values, design.excluded)
    return in_sorted(values, np.asarray(design, dtype=np.int64))


def _vars_or_none(v):
    """The distinct variables of ``v``, sorted, as a new int64 array (np.unique's result);
    None stays None.  Sorted input (a two-mode network's between-mode dyads, 5 M of them)
    is only checked and copied: numpy's unique hashes every value first (0.6 CPU s a
    million)."""
    if v is None:
        return None
    v = np.array(v, dtype=np.int64).reshape(-1)
    if len(v) > 1 and not np.all(v[1:] > v[:-1]):
        v.sort()
        v = v[np.concatenate([[True], v[1:] != v[:-1]])]
    return v


def pairs_list(network, vars):
    if vars is None:
        return None
    return [[network.labels[int(i)], network.labels[int(j)]]
            for i, j in var_pairs(network.n, network.directed, vars)]


class ConstrainedSpace(SampleSpace):
    """Networks that agree with the observed one outside a set of free dyads,
    with optional degree bounds (``bd``) and a preserved statistic
    (``edges``, ``degrees``, ``odegrees``, ``idegrees``).

    Parameters
    ----------
    network : Network
    free_vars : int array or None
        Free dyads as variable indices (:func:`dyad_vars`); None: all.
    bounds : (lo_out, hi_out, lo_in, hi_in) int arrays of one value per node, or None
        Undirected networks use lo_out/hi_out for the degree.
    preserve : {None, "edges", "degrees", "odegrees", "idegrees", "b1degrees", "b2degrees",
                "degreedist"}
    missing : int array or None
        Unobserved dyads (variable indices).
    spec : str
        The constraint formula, for printing and saving.
    attr_bounds : (attribs, lo_out, hi_out, lo_in, hi_in) or None
        ``bd(attribs=)``: an (n, K) boolean matrix of the classes of the
        alters and (n, K) bounds on each node's ties to (out) / from (in) the
        nodes of each class (undirected: lo_out/hi_out).
    attr_either : bool
        Directed networks: ``attr_bounds``' lo_out/hi_out bound a node's arcs
        to and from each class counted together (lo_in/hi_in unused), as the
        ``snowball`` constraint needs (a tie in either direction to the
        previous wave).
    pinned : int array or None
        Free dyads that the bounds keep at their observed value at the
        observed network (a toggle of one alone leaves the space: the
        ``snowball`` constraint's only tie of a node to the previous wave).
        Their full conditional is degenerate, so they leave the MPLE design.
    pair_layers : int or None
        The network is stacked (``ef.Networks``, ``ef.Layer``): its number of layers
        (1 for stacked networks), for the node-pair moves (``proposal="pairs"``);
        None for any other network.
    """

    kind = "constrained"
    constrained = True
    moves_one_dyad = False

    def __init__(self, network, free_vars=None, bounds=None, preserve=None, missing=None,
                 spec="", attr_bounds=None, attr_either=False, pinned=None, pair_layers=None):
        super().__init__(network, missing)
        self.pair_layers = pair_layers
        self.pinned = _vars_or_none(pinned)
        self.attr_either = bool(attr_either) and bool(network.directed)
        self._free = _vars_or_none(free_vars)
        self.bounds = None if bounds is None else tuple(np.asarray(b, dtype=np.intc)
                                                       for b in bounds)
        if preserve not in PRESERVED:
            raise SettingsError(f"unknown preserved statistic {preserve!r}")
        self.preserve = preserve
        self.spec = spec
        self.attr_bounds = None if attr_bounds is None else (
            (np.asarray(attr_bounds[0], dtype=bool),)
            + tuple(np.asarray(b, dtype=np.intc) for b in attr_bounds[1:]))

    @property
    def n_free(self) -> int:
        v = self.design_set()
        return int(self.network.n_dyads) if v is None else len(v)

    def free_vars(self):
        return self._free

    def design_set(self):
        v = super().design_set()
        if self.pinned is None or not len(self.pinned):
            return v
        if v is None:
            return AllVarsExcept(self.network.n_dyads, self.pinned)
        if isinstance(v, AllVarsExcept):
            return AllVarsExcept(v.n, unique_sorted(np.concatenate([v.excluded, self.pinned])))
        return np.setdiff1d(v, self.pinned, assume_unique=True)

    def free_dyads(self):
        v = self.design_vars()
        return None if v is None else var_pairs(self.network.n, self.network.directed, v)

    @property
    def dyad_independent(self) -> bool:
        return self.bounds is None and self.preserve is None and self.attr_bounds is None

    @property
    def toggles_design(self) -> bool:
        """Whether the toggle of any one design dyad (:meth:`design_vars`) alone, from
        the observed network, stays in the space: a dyad-independent space, or the
        ``snowball`` constraint's (lower bounds only -- at least one tie to the previous
        wave --, and the ties whose removal would break one are ``pinned`` out of the
        design).  Then the MPLE design's rows are the observed network's neighbours in
        the space, as the existence checks need
        (:mod:`ergmfit.estimation.mple.existence`)."""
        if self.dyad_independent:
            return True
        if self.pinned is None or self.bounds is not None or self.preserve is not None:
            return False
        _, _, hi, _, hi_in = self.attr_bounds
        return bool(np.all(hi >= _NO_BOUND) and np.all(hi_in >= _NO_BOUND))

    def _degree_args(self):
        return {"bounds": self.bounds, "preserve": self.preserve,
                "attr_bounds": self.attr_bounds, "attr_either": self.attr_either,
                "pair_layers": self.pair_layers}

    def _pair_layers(self):
        """The layers of the node-pair moves ("pairs") on this space: the number of layers
        of a stacked network (1 for networks stacked by ``ef.Networks``) when the space is a
        set of free dyads (no degree bounds, no preserved statistic); None otherwise."""
        if not self.dyad_independent or self.pinned is not None and len(self.pinned):
            return None
        return self.pair_layers

    def proposals(self) -> tuple:
        return (("tnt", "pairs", "lifted-pairs") if self._pair_layers() is not None
                else ("tnt",))

    def default_proposal(self, model) -> str:
        """"lifted-pairs" (the lifted node-pair moves, ``ConstrainedProposal``'s mode 9:
        going up a set of a pair's absent dyads is added, going down a set of its ties
        removed, and the walk turns after a rejection) on stacked networks with no degree
        bounds or preserved statistic and a term coupling the two directions of a pair
        (``mutual``, triadic terms: :func:`pair_directions`); "pairs" (tie/no-tie on node
        pairs: a pair's dyads in a set of layers, one direction, the other or both; mode 8)
        on such layers whose terms keep to one direction; "tnt" otherwise (where "pairs"
        would move one dyad at a time, as "tnt" does).  docs/guide/multinetwork.md, "Speed", has
        the effective draws per CPU second on the ergm.multi reference models."""
        layers = self._pair_layers()
        if layers is None or (layers == 1 and (not self.network.directed
                                                or pair_directions(model) is not None)):
            return "tnt"
        # a term couples a pair's directions: the lifted moves (a pair's absent dyads added
        # in runs, its ties removed in runs), about 1.3 x the effective draws per CPU s of
        # "pairs" on Sampson's triad model; else each move keeps to the drawn direction
        return "pairs" if pair_directions(model) is not None else "lifted-pairs"

    def resolve_proposal(self, name, model=None) -> str:
        if name is None or name == "auto":
            return self.default_proposal(model)
        if name in self.proposals():
            return name
        raise SettingsError(f"the constrained sample space ({self.describe()}) is walked by its "
                            f"own proposals {self.proposals()}: use proposal='auto' or one of "
                            f"them (got {name!r})")

    def proposal(self, name="auto", bm=None, model=None):
        from ._constrained import ConstrainedProposal
        from ..terms._ergm import ERGMModel
        name = self.resolve_proposal(name, model)
        if not isinstance(bm, ERGMModel):
            raise SettingsError("a constrained sample space needs the model's compiled network "
                                "(ERGM.compiled())")
        if name == "pairs":
            return ConstrainedProposal(bm, "pairs", self._free, layers=self._pair_layers(),
                                       directions=pair_directions(model))
        if name == "lifted-pairs":
            return ConstrainedProposal(bm, "lifted-pairs", self._free,
                                       layers=self._pair_layers())
        return ConstrainedProposal(bm, self.preserve or "tnt", self._free, self.bounds,
                                   self.attr_bounds, getattr(self.network, "bipartite", None) or 0,
                                   attr_either=self.attr_either)

    def make_sampler(self, cm, proposal, seed):
        from ._constrained import ConstrainedSampler
        return ConstrainedSampler(cm, proposal, seed)

    def check(self, ties) -> None:
        """Raise NetworkError unless the network with ``ties`` lies in this space."""
        net = self.network
        # sorted arrays, not Python sets of every tie (0.3 CPU s and 170 MB a million ties)
        obs = unique_sorted(dyad_vars(net.n, net.directed, net.ties))
        new = unique_sorted(dyad_vars(net.n, net.directed, ties))
        changed = np.setxor1d(obs, new, assume_unique=True)
        if self._free is not None and len(changed):
            fixed = setdiff_sorted(changed, self._free)
            if len(fixed):
                i, j = var_pairs(net.n, net.directed, fixed[:1])[0]
                raise NetworkError(f"the dyad ({net.labels[i]!r}, {net.labels[j]!r}) is fixed by "
                                   f"the constraints ({self.describe()}) but differs from the "
                                   "observed network")
        t = np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        out_deg = np.bincount(t[:, 0], minlength=net.n)
        in_deg = np.bincount(t[:, 1], minlength=net.n)
        if not net.directed:
            out_deg = in_deg = out_deg + in_deg
        if self.bounds is not None:
            lo_o, hi_o, lo_i, hi_i = self.bounds
            bad = (out_deg < lo_o) | (out_deg > hi_o)
            if net.directed:
                bad |= (in_deg < lo_i) | (in_deg > hi_i)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise NetworkError(f"node {net.labels[k]!r} has degree {int(out_deg[k])}"
                                   + (f" (in-degree {int(in_deg[k])})" if net.directed else "")
                                   + f", outside the bounds of the constraints ({self.describe()})")
        if self.attr_bounds is not None:
            att, lo_o, hi_o, lo_i, hi_i = self.attr_bounds
            a = att.astype(np.int64)
            c_out = np.zeros(att.shape, dtype=np.int64)
            c_in = np.zeros(att.shape, dtype=np.int64)
            np.add.at(c_out, t[:, 0], a[t[:, 1]])
            if net.directed and not self.attr_either:
                np.add.at(c_in, t[:, 1], a[t[:, 0]])
            else:
                np.add.at(c_out, t[:, 1], a[t[:, 0]])
            bad = (c_out < lo_o) | (c_out > hi_o)
            separate = net.directed and not self.attr_either
            if separate:
                bad |= (c_in < lo_i) | (c_in > hi_i)
            if bad.any():
                k, c = (int(x) for x in np.argwhere(bad)[0])
                raise NetworkError(f"node {net.labels[k]!r} has {int(c_out[k, c])} ties to "
                                   + (f"(and {int(c_in[k, c])} from) " if separate else "")
                                   + f"the nodes of class {c + 1} of bd(attribs=), outside "
                                   f"the bounds of the constraints ({self.describe()})")
        if self.preserve is not None:
            o = net.ties
            oo = np.bincount(o[:, 0], minlength=net.n)
            oi = np.bincount(o[:, 1], minlength=net.n)
            if not net.directed:
                oo = oi = oo + oi
            n1 = getattr(net, "bipartite", None) or 0
            same = {"edges": len(t) == len(o),
                    "degrees": (oo == out_deg).all() and (oi == in_deg).all(),
                    "odegrees": (oo == out_deg).all(), "idegrees": (oi == in_deg).all(),
                    "b1degrees": (oo[:n1] == out_deg[:n1]).all(),
                    "b2degrees": (oo[n1:] == out_deg[n1:]).all(),
                    "degreedist": (np.sort(oo) == np.sort(out_deg)).all()}
            if not same[self.preserve]:
                raise NetworkError(f"the network does not keep the observed {self.preserve} "
                                   f"({self.describe()})")

    def describe(self) -> str:
        out = self.spec or "constrained"
        return out + (f" ({self.n_missing} missing)" if self.missing is not None else "")

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["spec"] = self.spec
        return d


def pair_directions(model):
    """The chances of the node-pair moves ("pairs") toggling a pair's drawn direction, the
    reverse one and both: the drawn direction only when no term of ``model`` couples the two
    directions of a pair (each dyad-independent, or an L() term of dyad-independent terms:
    moving both directions at once would only join two independent proposals), else None
    (``_constrained.PAIR_DIRECTIONS``)."""
    terms = getattr(model, "terms", None)
    if terms and all(t.dyad_independent or getattr(t, "within_ordered_pair", False)
                     for t in terms):
        return (1.0, 0.0, 0.0)
    return None


def make_proposal(name, bm=None):
    """A fresh Metropolis-Hastings proposal by name.

    "tnt" (tie/no-tie), "random" (random toggle), "triadic" (tie/no-tie with
    triadic-closure moves), "lifted-tnt" and "lifted-triadic" (their lifted,
    non-reversible forms: :class:`LiftedTriadicTNT`).  The triadic and lifted
    ones walk a network, so they need an ERGM's compiled model; pass ``bm``
    to have that checked.
    """
    from ..terms._ergm import ERGMModel
    from ._proposals import RandomToggle, TieNoTie
    from ._proposals import LiftedTriadicTNT, TriadicTNT
    makers = {"tnt": TieNoTie, "random": RandomToggle, "triadic": TriadicTNT,
              "lifted-tnt": lambda: LiftedTriadicTNT(0.0), "lifted-triadic": LiftedTriadicTNT}
    if name not in makers:
        raise ValueError(f"proposal must be one of {', '.join(map(repr, PROPOSALS))}, got {name!r}")
    if name not in ("tnt", "random") and bm is not None and not isinstance(bm, ERGMModel):
        raise ValueError(f"proposal {name!r} needs a network model (an ERGM); "
                         "use 'tnt' or 'random'")
    return makers[name]()
