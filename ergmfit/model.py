"""The user's model: a network and a formula."""
from __future__ import annotations

import numpy as np

from .exceptions import ErgmfitError, FormulaError, NetworkError, ResultsFileError, SettingsError
from .formula import formula_rhs, network_names, parse_formula
from .labeled import make_unique
from .network import NetworkState, as_network, cache_budget
from .network.network import SMALL_NETWORK
from .network.values import na_flags
from .results import register_model_builder
from .utils.setops import in_sorted, unique_sorted
from .constraints import constraint_formula, parse_constraints, pairs_vars
from .families.binary import BINARY
from .families.count import CountFamily
from .families.countmodel import valued_network
from .network._countstate import CountState
from .terms.parameterisation import parameterisation_of
from .terms.offsets import offset_flags as _offset_flags, split_offsets  # noqa: F401
from .terms.registry import COUNT_STATE, build_term
from .terms.macros import expand_for
from .terms._ergm import ERGMModel
from .terms.wholecount import whole_counted, whole_counts
from .tapered import TaperingMixin
from .terms._valued import CountERGMModel
from .runtime.interrupts import stops_when_interrupted
from .sampling.chains import chain_draws
from .utils.validation import (check_params, check_random_state, check_simulation_work,
                               checks_arguments, format_bytes, seed_words, warn,
                               warns_at_callers_line, whole_number)

#: the settings of ``ERGM.fit`` that configure the model (:meth:`ERGM.configured`), in
#: that method's order, not the estimator
CONFIG_SETTINGS = ("constraints", "offset_coef", "target_stats", "tempering")


#: input types that are not networks -> the model class that takes them, registered by the
#: package that defines the type (ergmfit.temporal: NetSeries -> TemporalERGM; ergmfit.ego:
#: EgoData -> EgoERGM), so that ``ERGM(data, formula, ...)`` is the one front door without
#: this module importing them
INPUT_MODELS = {}


def register_input_model(input_type, model_class) -> None:
    """Make ``ERGM(x, ...)`` build a ``model_class`` when ``x`` is an ``input_type``."""
    INPUT_MODELS[input_type] = model_class


#: (test(data, args, kwargs), model class): a model class chosen by what the formula says
#: (ergmfit.temporal: tergm's operators on one network -> CrossSectionTERGM, for EGMME)
FORMULA_MODELS = []


def register_formula_model(test, model_class) -> None:
    """Make ``ERGM(data, formula)`` build a ``model_class`` when ``test(data, args,
    kwargs)`` (the constructor's arguments) is true."""
    FORMULA_MODELS.append((test, model_class))


class ERGM:
    """An exponential random graph model: a network and a formula.

    Parameters
    ----------
    network : networkx.Graph, networkx.DiGraph, Network, or str
        The observed network, or a bundled dataset name or file path.
    formula : str
        Terms joined by ``+``, statnet style: ``"edges + gwesp(0.25, fixed=TRUE)"``.
    directed : bool, optional
        Only for files whose directedness is not stated; must agree with a graph.
    constraints : str, list of str or (str, dict), optional
        statnet's constraint formula (``"~ bd(maxout=5) + blockdiag('school')"``,
        see :mod:`ergmfit.constraints`): the sample space of every fit,
        simulation and gof of this model (``fit``, ``simulate`` and ``gof``
        also take ``constraints=``).
    missing : list of node pairs, boolean matrix, or str, optional
        Unobserved dyads: pairs of node labels, an n x n matrix (True or NaN
        marks a missing dyad; a NaN matrix may hold the observed 0/1 values
        elsewhere) or the name of a boolean edge attribute (``na``); edges
        with ``na=True`` are unobserved dyads, not ties.  An edge attribute
        ``na`` is used by default.
    nodes : path, list of paths or DataFrame, optional
        The node file of an edge-list file (a CSV whose first column is the
        node id, the others node attributes; EstimNet attribute files for
        Pajek), as the command line's ``--nodes``; a node DataFrame for an
        edge-list DataFrame (see :func:`ergmfit.read_network`).
    response, reference : str, optional
        A count-valued model (statnet's ``response=`` and ``reference=~...``):
        ``response`` names the integer edge attribute, ``reference`` is
        ``"Poisson"`` (the default), ``"Binomial(3)"``, ``"Geometric"`` or
        ``"DiscUnif(a, b)"``.  Either makes ``ERGM(...)`` return a
        :class:`CountERGM` (the count family; still an ``ERGM``).

    Examples
    --------
    >>> import networkx as nx
    >>> m = ERGM(nx.path_graph(4), "edges + kstar(2) + triangle")
    >>> m.statistics()
    {'edges': 3.0, 'kstar2': 2.0, 'triangle': 0.0}
    """

    #: the model family (what a state is, its kernels, reference measure and proposals)
    family = BINARY

    #: what ``simulate(output=...)`` can return
    simulation_outputs = ("graphs", "networks", "stats")

    #: ``simulate`` arguments this kind of model does not take yet (a SettingsError)
    simulation_unavailable = ()

    def __new__(cls, *args, response=None, reference=None, **kwargs):
        # an ERGM with a response is a count-valued ERGM (the count family: CountERGM)
        if cls is ERGM and (response is not None or reference is not None):
            cls = CountERGM
            data = args[0] if args else kwargs.get("network")
            kind = next((k for k in INPUT_MODELS if isinstance(data, k)), None)
            if kind is not None:    # not "cannot make a network from a NetSeries"
                raise SettingsError(
                    f"a count-valued model (response={response!r}, reference={reference!r}) "
                    f"of {'an' if kind.__name__[0] in 'AEIOU' else 'a'} {kind.__name__} is not "
                    "available: its models are binary")
        # another input type picks its model class (NetSeries: TemporalERGM, an ERGM;
        # EgoData: EgoERGM, which builds its pseudo-population's ERGM itself)
        data = args[0] if args else kwargs.get("network")
        cls = next((c for test, c in FORMULA_MODELS if test(data, args, kwargs)), cls) \
            if cls is ERGM else cls     # e.g. tergm's operators on one network (EGMME, #32)
        for kind, model_class in (INPUT_MODELS.items() if cls is ERGM else ()):
            if isinstance(data, kind):
                if isinstance(model_class, type) and issubclass(model_class, ERGM):
                    cls = model_class
                    break
                return model_class(*args, response=response, reference=reference, **kwargs)
        if cls is ERGM and kwargs.get("tapered"):       # a tapered ERGM (#36) of a network
            cls = TaperedERGM
        elif cls is ERGM:
            tapering_only = [k for k in ("r", "tau", "centers") if k in kwargs]
            if tapering_only:
                raise FormulaError(f"{', '.join(tapering_only)}: tapering settings of a tapered "
                                   "ERGM; pass tapered=True with them")
        return super().__new__(cls)

    def __init__(self, network, formula, directed=None, weights="error", constraints=None,
                 missing=None, nodes=None, response=None,
                 reference=None, tapered=False, **unknown):
        if unknown:
            raise SettingsError(f"ERGM() got unknown argument(s) {sorted(unknown)}")
        if tapered:         # only a network's binary ERGM is tapered (TaperedERGM)
            raise SettingsError(f"tapered=True is not available for {type(self).__name__}")
        # statnet's ``net ~ terms``: a left-hand side must name the network given here
        formula = formula_rhs(formula, network_names(network))
        self.network, self._missing = missing_dyads(
            as_network(network, directed=directed, weights=weights, nodes=nodes), missing)
        self.formula = formula
        self.constraints = constraint_formula(constraints)
        self.terms, self._term_offset = formula_terms(self.network, formula)
        # a label may repeat (statnet allows it: summary() prints the name twice, ergm()
        # fits it); statistics() then makes the dict keys unique (see there), and a fit
        # refuses identical statistics as collinear
        self._empty = (np.concatenate([t.empty for t in self.terms])
                       if self.terms else np.zeros(0))
        self._set_structure()

    def _set_structure(self):
        # what every estimator asks the model for (see ergmfit.sampling.space
        # and ergmfit.terms.parameterisation)
        self.sample_space = parse_constraints(getattr(self, "constraints", None), self.network,
                                              getattr(self, "_missing", None))
        self.parameterisation = parameterisation_of(self.terms)
        self._set_offsets()

    def _set_offsets(self):
        # labels: one per coefficient (θ); stat_labels: one per canonical statistic
        # (what statistics() gives).  They differ only for curved terms.  Offset
        # terms (fixed coefficients) are labelled offset(...), as statnet does.
        is_off = getattr(self, "_term_offset", None) or [False] * len(self.terms)
        from .terms.offsets import which_mask
        # offset(term) in the formula, or offset() inside an operator that propagates it
        # (Sum() of one formula: the term's offset_mask, see .terms.offsets)
        masks = [which_mask(o if isinstance(o, str) else None, len(t.param_labels)) & bool(o)
                 | (getattr(t, "offset_mask", None) if getattr(t, "offset_mask", None)
                    is not None else False)
                 for t, o in zip(self.terms, is_off)]
        self.offset = np.array([m for ms in masks for m in ms], dtype=bool)
        self.labels = [f"offset({lab})" if o else lab for lab, o in
                       zip(self.parameterisation.param_labels, self.offset)]
        # a curved term's counts are offsets when all its parameters are
        stat_off = [m for t, ms in zip(self.terms, masks) for m in
                    (ms if len(ms) == len(t.labels) else [ms.all()] * len(t.labels)
                     if getattr(t, "offset_stat_mask", None) is None
                     else ms.all() | t.offset_stat_mask)]
        self.stat_labels = [f"offset({lab})" if o else lab for lab, o in
                            zip(self.parameterisation.stat_labels, stat_off)]

    @property
    def curved(self) -> bool:
        """True when a term is curved (its decay estimated: statnet's fixed=FALSE):
        the map η(θ) is not affine (:attr:`~ergmfit.terms.parameterisation.Parameterisation.affine`)."""
        return not self.parameterisation.affine

    @property
    def pilot_first_sample(self) -> bool:
        """True when MCMC-MLE draws its first sample as a pilot at the smallest
        interval, kept when it has the target effective size
        (``estimation.common.curved.first_sample_ok``): for curved models, and for
        families that ask for it (``ModelFamily.pilot_first_sample``, e.g. counts) and
        networks that do (``Networks.pilot_first_sample``: ensembles of small networks)."""
        return (self.curved or self.family.pilot_first_sample
                or getattr(self.network, "pilot_first_sample", False))

    @property
    def missing_dyads(self) -> list:
        """The unobserved dyads as node-label pairs."""
        from .sampling.space import pairs_list
        return pairs_list(self.network, self._missing) or []

    def with_constraints(self, constraints) -> "ERGM":
        """The same model on another sample space (``constraints``, statnet's syntax)."""
        import copy
        m = copy.copy(self)
        m.constraints = constraint_formula(constraints)
        m._set_structure()
        return m

    def eta(self, params) -> np.ndarray:
        """Natural parameters η(θ) of ``params`` (θ in ``labels`` order or a dict)."""
        return self.parameterisation.eta(check_params(self._finite_offsets(params), self.labels))

    def _finite_offsets(self, params):
        # an offset may be ±Inf (a structural zero): the sampler takes ±1e300; so may every
        # coefficient of a linear model (a fit's infinite estimate, #36: statnet simulates
        # from it on the face); NaN stays an error
        infinite_ok = self.offset if self.curved else np.ones(len(self.labels), dtype=bool)
        if not infinite_ok.any():
            return params
        from .terms.offsets import BIG
        if isinstance(params, dict):
            return {k: (float(np.clip(v, -BIG, BIG)) if k in self.labels
                        and infinite_ok[self.labels.index(k)] and isinstance(v, (int, float))
                        else v) for k, v in params.items()}
        try:
            arr = np.array(params, dtype=float)
        except (TypeError, ValueError, OverflowError):
            return params               # (check_params names the problem)
        return np.where(infinite_ok, np.clip(arr, -BIG, BIG), arr) \
            if arr.shape == infinite_ok.shape else params

    @property
    def n_params(self) -> int:
        return len(self.labels)

    @property
    def kernels(self) -> list:
        return [t.kernel for t in self.terms]

    @property
    def dyad_independent(self) -> bool:
        return all(t.dyad_independent for t in self.terms)

    @property
    def pair_independent(self) -> bool:
        """Whether every term's change statistic of a dyad reads no dyad outside its node
        pair (``Term.locality``); the likelihood is then a product over the node pairs
        (:mod:`ergmfit.estimation.common.pairstates`).

        >>> import ergmfit as ef
        >>> ef.ERGM(ef.datasets.load("samplk1"), "edges + mutual").pair_independent
        True
        """
        from .terms.registry import within_node_pair
        return within_node_pair(self.terms)

    def submodel(self, term_indices) -> "ERGM":
        """The model with only the given terms (same network)."""
        sub = ERGM.__new__(ERGM)
        sub.network = self.network
        sub.terms = [self.terms[k] for k in term_indices]
        sub.formula = " + ".join(_term_text(t) for t in sub.terms)
        sub._empty = (np.concatenate([t.empty for t in sub.terms]) if sub.terms else np.zeros(0))
        sub.constraints, sub._missing = self.constraints, self._missing
        sub._term_offset = None
        sub._set_structure()
        return sub

    def chain_end(self, cm):
        """Where a chain on the compiled model ``cm`` stands: what ``sampler(start=)``
        and ``statistics_vector()`` take back (a binary model: its ties)."""
        return cm.state.ties()

    def null_loglik(self, n_free) -> float:
        """The log-likelihood of ``n_free`` free dyads at θ = 0 (each tie 1/2)."""
        return -float(n_free) * np.log(2.0)

    def exact_loglik(self, theta) -> float | None:
        """The log-likelihood at ``theta`` computed exactly, or None where this model has
        no exact one (the MCMC-MLE then bridge-samples it).  A binary model independent
        across dyad pairs has it: every term's change statistic at (i, j) reads no dyad
        but (j, i) (``edges``, ``mutual``, dyadic covariates, tergm's operators over them:
        terms declaring ``pair_independent``), on a sample space of free dyads
        (:func:`ergmfit.estimation.mcmle.loglik.pair_independent_loglik`).

        Examples
        --------
        >>> import ergmfit as ef
        >>> m = ef.ERGM(ef.datasets.load("samplike"), "edges + mutual")
        >>> round(m.exact_loglik([0.0, 0.0]), 4)          # 306 free dyads: 306 log(1/2)
        -212.103
        >>> ef.ERGM(ef.datasets.load("samplike"), "edges + triangle").exact_loglik([0.0, 0.0])
        """
        from .estimation.mcmle.loglik import pair_independent_loglik
        return pair_independent_loglik(self, theta)

    def gof_of_fit(self, fit, n_sim=100, random_state=None, **kwargs):
        """The goodness of fit of ``fit`` (a fit of this model) when the model checks its
        fits its own way, else None: :meth:`ergmfit.results.ERGMResults.gof` then runs
        :func:`ergmfit.gof.gof` (a temporal model checks each transition,
        :meth:`ergmfit.temporal.model.TemporalERGM.gof_of_fit`).

        Examples
        --------
        >>> import ergmfit as ef
        >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
        >>> m.gof_of_fit(m.fit(method="mple")) is None
        True
        """
        return None

    def compiled(self, ties=None) -> ERGMModel:
        """The compiled model on a fresh copy of the observed ties (or ``ties``)."""
        net = self.network
        ties = net.ties if ties is None else _tie_rows(ties)
        if net.n <= SMALL_NETWORK:
            # a small network's two-path counts fit in the L1 cache: holding them
            # beats counting shared partners on demand (Lazega's MCMC-MLE 1.6x
            # faster; the same draws either way, the counts being exact)
            state = NetworkState(net.n, net.directed, ties, cache_degree=0.0)
        else:
            state = NetworkState(net.n, net.directed, ties)
        return ERGMModel(state, self.kernels)

    offset_coef = None      # coefficients of the offset terms (see configured())
    target_stats = None     # statistics fitted instead of the network's
    tempering = None        # parallel-tempered chains (configured(tempering=...))

    def statistics_vector(self, ties=None) -> np.ndarray:
        """Statistics of the observed network (or of ``ties``) in label order
        (the target statistics, if the model has them, when ``ties`` is None)."""
        if ties is None and self.target_stats is not None:
            return np.array(self.target_stats, dtype=float)
        if ties is None:
            # the observed statistics once per model, network, tie values and terms: at
            # Pokec's size they take as long as millions of EE proposals, and a fit asks
            # again (EE's start, its checkpoint's checks); a copy each time
            key = self._observed_key()
            memo = self.__dict__.get("_observed_statistics")
            if memo is not None and all(a is b for a, b in zip(memo[0][:3], key[:3])) \
                    and memo[0][3:] == key[3:]:
                return memo[1].copy()
        else:
            ties = _tie_rows(ties)
        out = self._accumulated(ties)     # a tie given twice: the count names it (ValueError)
        bad = [lab for lab, v in zip(self.stat_labels, out) if not np.isfinite(v)]
        if bad:
            from .exceptions import TermError
            # exp() of a large statistic overflows (Exp, Prod): statnet prints Inf
            exp = {lab for t in self.terms if t.name in ("Exp", "Prod") for lab in t.labels}
            if all(lab in exp for lab in bad):
                raise TermError(f"the statistic(s) {bad} overflow (exp of a large value; statnet "
                                "prints Inf): a model with them cannot be fitted or simulated")
            raise TermError(f"the statistic(s) {bad} are not finite: an attribute's values are too "
                            "large for floating point; rescale it")
        if ties is None:
            self._observed_statistics = (key, out.copy())
        return out

    def _observed_key(self):
        """What the memo of :meth:`statistics_vector` is valid for: the network, tie array
        and terms (by identity) and the ties' values (a CRC-32 of their bytes, so that a
        tie array changed in place is counted again)."""
        import zlib
        ties = np.ascontiguousarray(self.network.ties)
        return (self.network, self.network.ties, self.terms, ties.shape, ties.dtype.str,
                zlib.crc32(ties))

    def _remember_observed_statistics(self, values):
        """Fill the memo of :meth:`statistics_vector` with ``values`` counted elsewhere
        (e.g. read from a checkpoint whose ties match)."""
        self._observed_statistics = (self._observed_key(), np.array(values, dtype=float))

    def statistics(self) -> dict:
        """Observed statistics as ``{label: value}``, with statnet's labels (for a curved
        term its count vector, as statnet's ``summary()``; Inf where ``Exp``/``Prod``
        overflow, as statnet prints).

        A label may repeat (``edges + Label(~absdiff("x"), "edges", "replace")``): statnet's
        ``summary()`` then prints the name twice, but a dict holds each key once, so the
        second and later copies get R's ``make.unique`` suffixes ``.1``, ``.2``, ...
        (``{'edges': 20.0, 'edges.1': 1146.0}``); ``stat_labels`` and
        :meth:`statistics_vector` give statnet's names and the values in order."""
        from .exceptions import TermError
        try:
            vec = self.statistics_vector()
        except TermError as exc:
            if "overflow" not in str(exc):
                raise
            vec = self._accumulated(None)
        return dict(zip(make_unique(self.stat_labels), vec.tolist()))

    def _accumulated(self, ties):
        # the statistics of ``ties`` (the network's when None), from the empty graph
        ties = self.network.ties if ties is None else np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        kernels = self.kernels
        whole = whole_counted(self.network, kernels)
        if whole:
            # the directed alternating terms at large n: one pass over the two-paths
            # (ergmfit.terms.wholecount) instead of a two-path look-up per tie and term
            rest = [k for p, k in enumerate(kernels) if p not in whole]
            # no network state when every term is counted whole (Epinions' EstimNet model)
            rest_stats = self._accumulate_by_ties(ties, rest) if rest else np.zeros(0)
            sizes = [len(t.empty) for t in self.terms]
            starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
            out, r = self._empty.copy(), 0
            counted = whole_counts(self.network.n, ties, [kernels[p] for p in whole])
            for p in range(len(kernels)):
                lo, hi = starts[p], starts[p + 1]
                if p in whole:
                    out[lo] += counted[whole.index(p)]
                else:
                    out[lo:hi] += rest_stats[r:r + hi - lo]
                    r += hi - lo
            return out
        return self._empty + self._accumulate_by_ties(ties, kernels)

    def _accumulate_by_ties(self, ties, kernels):
        # the summed change statistics of ``kernels`` adding ``ties`` one by one to the empty graph
        empty = ERGMModel(NetworkState(self.network.n, self.network.directed, cache_memory=cache_budget(
            self.network.n, len(ties), self.network.directed)), kernels)
        empty.state.reserve_two_paths(ties)     # held counts: no map grows on the way
        return empty.add_ties_accumulate(np.ascontiguousarray(ties, dtype=np.int64))

    @property
    def default_proposal(self) -> str:
        """The proposal "auto" stands for (see :meth:`SampleSpace.default_proposal`)."""
        return self.sample_space.default_proposal(self)

    def sampler(self, params, proposal="auto", random_state=None, start=None):
        """A Metropolis-Hastings sampler (``MHSampler``) started at the observed
        network (or at ``start``: an (m, 2) tie array), and its compiled model."""
        if self.tempering is not None:       # parallel tempering (#36)
            from .sampling.tempered import tempered_sampler
            return tempered_sampler(self, params, proposal, random_state, start)
        space = self.sample_space
        space.resolve_proposal(proposal, self)                     # checks the name first
        check_params(self._finite_offsets(params), self.labels)
        if start is not None:
            space.check(start)
        cm = self.compiled(start)
        prop = space.proposal(proposal, cm, self)
        sampler = space.make_sampler(cm, prop, seed_words(random_state))
        # the runaway guard's ceiling is a multiple of the observed ties; its message names us
        sampler.set_guard(reference_ties=self.network.n_ties)
        sampler.description = self._guard_name()
        return sampler, cm

    def _guard_name(self):
        net = self.network
        return (f"the model '{self.formula}' ({net.n:,} nodes, {net.n_ties:,} observed ties)")

    @checks_arguments
    @warns_at_callers_line
    def simulate(self, params, n=1, burnin=16384, interval=1024, output="graphs",
                 proposal="auto", random_state=None, start=None, constraints=None,
                 n_chains=1, n_jobs=1, backend=None):
        """Draw networks from the model at ``params`` by Metropolis-Hastings.

        Parameters
        ----------
        params : sequence or dict
            One value per statistic, in ``labels`` order (or ``{label: value}``).
        n : int
            Number of networks (or statistic vectors) to return.
        burnin, interval : int
            Proposals before the first draw and between draws (statnet's
            ``MCMC.burnin`` and ``MCMC.interval``).
        output : {"graphs", "networks", "stats"}
            networkx graphs with the observed nodes and attributes,
            :class:`~ergmfit.network.Network` objects, or an ``(n, p)``
            array of statistics (columns as ``labels``).
            A count-valued model (:class:`CountERGM`) returns "graphs" whose
            edges (the nonzero dyads) carry the counts in the ``response``
            attribute, or "stats".
        proposal : {"auto", "tnt", "triadic", "random", "lifted-tnt", "lifted-triadic"}
            Tie/no-tie (good for sparse networks), tie/no-tie with triadic
            closure moves (mixes much faster for triangle-type terms),
            random toggles, or the lifted (non-reversible) forms of the
            first two, which keep adding (or removing) ties until a
            proposal is rejected; "auto" picks "lifted-triadic" for models
            with triangle-type terms and "lifted-tnt" otherwise.  A
            count-valued model takes "auto", "tnt" or "random" (see
            :class:`~ergmfit.families.CountFamily`).
        random_state : int, Generator or None
        start : array of ties, optional
            Start here instead of the observed network.
        n_chains, n_jobs, backend
            ``n_chains`` independent chains (each with its own burn-in) share the
            ``n`` draws, run by ``n_jobs`` processes (joblib; ``backend="dask"``
            within a dask Client); the result depends on the seed and
            ``n_chains``, not on ``n_jobs`` (:mod:`ergmfit.sampling.multichain`).
            ``start``, ``constraints``, ``n_chains``, ``n_jobs`` and ``backend`` are
            not available for count-valued models yet (a SettingsError).

        Raises
        ------
        SettingsError
            For a bad ``n``, ``burnin``, ``interval``, ``output`` or ``proposal``, and, up front,
            when the work cannot finish or its output cannot fit: more than
            :data:`ergmfit.utils.validation.MAX_SIMULATION_PROPOSALS` proposals (``burnin + n * interval``),
            or an output larger than this machine's memory (``n`` draws of ``8 p``
            bytes for ``output="stats"``, of about the observed network's size
            otherwise).
        DegenerateModelError
            When the chain runs away (a degenerate model filling the network):
            more ties than max(10^6, 4 x the observed ties), or 4 GiB more
            memory, checked every 2^16 proposals (for a count-valued model also
            values growing without bound under an improper model).  The message names the model
            and what to try; :func:`ergmfit.sampling.chains.runaway_guard`
            changes the limits (gof and every estimator's chains have them too).

        Examples
        --------
        >>> import networkx as nx
        >>> m = ERGM(nx.empty_graph(10), "edges")
        >>> S = m.simulate([0.0], n=5, output="stats", random_state=1)
        >>> S.shape
        (5, 1)
        """
        n, burnin, interval = _simulation_size(self, n, burnin, interval, output)
        given = [k for k, v, d in (("start", start, None), ("constraints", constraints, None),
                                   ("n_chains", n_chains, 1), ("n_jobs", n_jobs, 1),
                                   ("backend", backend, None))
                 if k in self.simulation_unavailable and v != d]
        if given:
            raise SettingsError(f"{', '.join(given)}= not available for {self.family.name}-valued "
                                "models yet")
        if n_chains != 1 or n_jobs != 1:    # independent chains, maybe in parallel (#22)
            from .sampling.multichain import simulate_chains
            return simulate_chains(self if constraints is None else
                                   self.with_constraints(constraints), params, n, burnin,
                                   interval, output, proposal, random_state, start, n_chains,
                                   n_jobs, backend)
        if constraints is not None:
            return self.with_constraints(constraints).simulate(
                params, n, burnin, interval, output, proposal, random_state, start)
        theta = self.eta(params)       # the sampler runs on the natural parameters
        sampler, cm = self.sampler(params, proposal, random_state, start)
        if output == "stats":
            return self.statistics_vector(start) + chain_draws(sampler, theta, n, burnin, interval)
        draws = chain_draws(sampler, theta, n, burnin, interval,
                            snapshot=lambda: self._snapshot(cm))
        return self._simulation_output(draws, output)

    def _snapshot(self, cm):
        """What one draw of ``simulate`` keeps of the compiled model's current state."""
        return self.network.with_ties(cm.state.ties())

    def _simulation_output(self, draws, output):
        """``simulate``'s return value from its snapshots (``output`` other than "stats")."""
        return draws if output == "networks" else [net.to_networkx() for net in draws]

    @warns_at_callers_line
    @stops_when_interrupted    # inside ef.stop_on_interrupt(): an interrupted fit raises
    def fit(self, method=None, random_state=None, verbose=False, **kwargs):
        """Fit the model; returns an :class:`~ergmfit.results.ERGMResults`.

        Parameters
        ----------
        method : {"mcmle", "mple", "cd", "ee", "bcd", "mcle", "bayes", "bayes-pl"}
            The estimator (see :mod:`ergmfit.estimation`); default ``"mcmle"``.
            Case-insensitive; statnet's ``"MLE"`` is ``"mcmle"``, and statnet's
            ``estimate=`` is accepted for ``method=``.
        random_state : int, Generator or None
            Seed of every random choice the estimator makes (statnet's ``seed``).
        verbose : bool
            Show progress.
        **kwargs
            Settings of the estimator.  statnet's ``control.ergm`` names
            (``**{"MCMC.samplesize": 4096}``, ``MCMC_samplesize=4096`` or
            ``control={"MCMC.samplesize": 4096}``) are taken under their ergmfit
            names, or answered with an error naming the ergmfit setting (see
            :mod:`ergmfit.statnet` and docs/statnet_mapping.md).

        Examples
        --------
        >>> import ergmfit as ef
        >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
        >>> round(float(m.fit(estimate="MPLE").params["edges"]), 4)
        -1.6094
        """
        from .estimation import make_estimator
        from .statnet import fit_call
        method, random_state, kwargs = fit_call(method, random_state, kwargs, _setting_names)
        config = {key: kwargs.pop(key, None) for key in CONFIG_SETTINGS}
        return self._estimate(make_estimator(method, random_state=random_state, verbose=verbose,
                                             **kwargs), **config)

    def _estimate(self, estimator, constraints=None, offset_coef=None, target_stats=None,
                  tempering=None):
        """Fit this model with ``estimator`` (an estimator object, its settings set): the
        one path of :meth:`fit` and of every estimator object's own ``fit(model)``
        (``Estimator.fit`` hands an outermost fit of a model to this method).

        The model is configured (a checkpoint's sample space when the estimator has a
        ``resume`` setting, then ``constraints``, ``offset_coef``, ``target_stats`` and
        ``tempering`` as :meth:`configured`), checked against the estimator's ``supports``
        (:func:`~ergmfit.estimation.registry.check_supports`) and fitted through
        :meth:`_fit` (the face of an MLE at infinity, target statistics, offsets); the
        results keep the model's :meth:`saved_spec`.  Subclasses that prepare more
        (:class:`~ergmfit.temporal.TemporalERGM`) override it and call this one.

        Examples
        --------
        >>> import ergmfit as ef
        >>> from ergmfit.estimation import MPLE
        >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + offset(triangle)")
        >>> fit = m._estimate(MPLE(), offset_coef=[0.5])
        >>> direct = MPLE().fit(m.configured(offset_coef=[0.5]))
        >>> float(fit.params["offset(triangle)"]), float(direct.params["offset(triangle)"])
        (0.5, 0.5)
        """
        from .estimation.base import support_checked
        from .estimation.registry import check_supports
        from .runtime import lost_interrupts
        with lost_interrupts():     # a Ctrl-C lost in a finalizer during the set-up is raised
            base = self             # at the first loop's check
            config = {"constraints": constraints, "offset_coef": offset_coef,
                      "target_stats": target_stats, "tempering": tempering}
            resume = estimator.get_params().get("resume")
            if resume is not None:       # the checkpoint's sample space (#18)
                from .constraints import resume_space
                config["resume"] = resume
                base = resume_space(self, config)
            model = base.configured(*(config[key] for key in CONFIG_SETTINGS))
            check_supports(estimator.supports, estimator.method, model,
                           getattr(estimator, "curved_refusal_note", None))
            with support_checked():     # the estimator's own fit does not check again
                res = model._fit(estimator)
        spec = model.saved_spec()
        if spec:
            res.diagnostics.sample_space = spec
        return res

    def _fit(self, estimator):
        """Fit this configured and checked model with ``estimator`` (an estimator object):
        on the face of the hull its MLE lies on (+/-Inf estimates, #36) when the estimator
        fits infinite estimates, from a network with the target statistics (as statnet)
        for the chains of a dyad-dependent model, and the free view of a model with offset
        terms (:func:`_fit_with_offsets`)."""
        model = self
        method = estimator.method
        face = _boundary_face(model, estimator)
        if face is not None:       # the MLE on a face of the hull: +/-Inf estimates (#36)
            return face.finish(_fit_with_offsets(face.model, estimator))
        if model.target_stats is not None and method != "mple" and not (
                model.dyad_independent and model.sample_space.dyad_independent):
            # as statnet: the chains start at a network with the target statistics
            import copy
            from .estimation.common.restricted import target_network
            model = copy.copy(model)
            rng = check_random_state(estimator.get_params().get("random_state"))
            model.network = model.network.with_ties(
                target_network(model, model.target_stats, rng))
            estimator = estimator.with_settings(random_state=rng)
        # the binary MPLE and btergm move offset columns into their logistic designs
        # themselves (estimator.folds_offsets); every other estimator (and the count
        # MPLE) fits the free view (_fit_with_offsets)
        if model.offset.any() and (not getattr(estimator, "folds_offsets", False)
                                   or model.curved
                                   or not model.family.logistic_pseudo_likelihood
                                   or model.parameterisation.fixed_coefficients() is not None):
            return _fit_with_offsets(model, estimator)
        return estimator.fit(model)

    def configured(self, constraints=None, offset_coef=None, target_stats=None,
                   tempering=None) -> "ERGM":
        """This model with other constraints, the coefficients of its offset
        terms, target statistics (statnet's ``target.stats``) and/or parallel-tempered
        chains (``tempering``: True, a dict of
        :class:`~ergmfit.sampling.tempered.Tempering`'s settings or a Tempering; see
        :func:`~ergmfit.sampling.tempered.with_tempering`)."""
        import copy
        m = self if constraints is None else self.with_constraints(constraints)
        if tempering is not None and tempering is not False:
            from .sampling.tempered import tempering_setting, with_tempering
            m = with_tempering(m, tempering_setting(tempering))
        if offset_coef is not None:
            m = copy.copy(m)
            coef = np.atleast_1d(np.asarray(offset_coef, dtype=float))
            if coef.shape != (int(self.offset.sum()),):
                raise FormulaError(f"offset_coef has {coef.size} value(s), but the model has "
                                   f"{int(self.offset.sum())} offset statistic(s)")
            if np.isnan(coef).any():
                raise FormulaError("offset_coef must not be NaN")
            m.offset_coef = coef
        if target_stats is not None:
            m = copy.copy(m)
            t = np.atleast_1d(np.asarray(target_stats, dtype=float))
            if t.shape != (len(self.stat_labels),) or not np.isfinite(t).all():
                raise FormulaError(f"target_stats needs {len(self.stat_labels)} finite value(s) "
                                   f"({', '.join(self.stat_labels)}), got {t.size}")
            m.target_stats = t
        return m

    def fit_features(self) -> frozenset:
        """What an estimator must declare in its ``supports`` to fit this model, besides
        its family (``self.family``): ``"constraints"`` (a constrained sample space),
        ``"missing"`` (unobserved dyads), ``"target_stats"``, ``"missing+target_stats"``,
        ``"curved"`` (statnet's fixed=FALSE) and ``"tempering"`` (parallel-tempered chains).
        :func:`~ergmfit.estimation.registry.check_supports` reads it before every fit.

        >>> import ergmfit as ef
        >>> g = ef.datasets.load("flomarriage")
        >>> sorted(ef.ERGM(g, "edges + gwesp", constraints="~ bd(maxout=7)").fit_features())
        ['constraints', 'curved']
        """
        space = self.sample_space
        missing = bool(space.n_missing)
        target = self.target_stats is not None
        return frozenset(name for name, needed in (
            ("constraints", space.constrained), ("missing", missing),
            ("target_stats", target), ("missing+target_stats", missing and target),
            ("curved", self.curved), ("tempering", self.tempering is not None)) if needed)

    def predict(self, params, dyads=None, compressed=False, **kwargs):
        """P(Y_ij = 1 | the rest of the network) at ``params`` for ``dyads``
        (node-label pairs; default every free dyad); see
        :func:`ergmfit.interpretation.predict`.

        >>> import networkx as nx
        >>> m = ERGM(nx.path_graph(4), "edges + triangle")
        >>> round(float(m.predict([-1.0, 0.5], dyads=[(0, 2)]).probability[0]), 4)
        0.3775
        """
        from .interpretation import predict
        return predict(self, params, dyads=dyads, compressed=compressed, **kwargs)

    @warns_at_callers_line
    def gof(self, params, n_sim=100, random_state=None, **kwargs):
        """Goodness of fit of ``params`` for this model (see :func:`ergmfit.gof.gof`)."""
        from .gof import gof as _gof
        model = self
        if kwargs.get("constraints") is not None:
            model = self.with_constraints(kwargs.pop("constraints"))
        kwargs.pop("constraints", None)
        return _gof(model, params, n_sim=n_sim, random_state=random_state, **kwargs)

    def saved_spec(self) -> dict:
        """What a results file keeps of the sample space and fixed settings:
        constraints, missing dyads, offset coefficients, target statistics
        (empty when there are none); :func:`rebuild_from_info` reads it back."""
        out = {}
        if self.constraints is not None:
            c = self.constraints
            out["constraints"] = ([c[0], {k: [list(map(_jsonable, p)) for p in v]
                                          for k, v in c[1].items()}]
                                  if isinstance(c, tuple) else c)
            out["space"] = self.sample_space.describe()
        if self._missing is not None:
            out["missing"] = [[_jsonable(u), _jsonable(v)] for u, v in self.missing_dyads]
        if self.offset_coef is not None:
            out["offset_coef"] = [float(v) for v in self.offset_coef]
        if self.target_stats is not None:
            out["target_stats"] = [float(v) for v in self.target_stats]
        if getattr(self, "tempering", None) is not None:
            from .sampling.tempered import tempering_spec
            out["tempering"] = tempering_spec(self.tempering)
        return out

    def __copy__(self):
        # a shallow copy shares the compiled kernels (pickling rebuilds them)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __reduce__(self):
        # kernels are compiled objects: rebuild from the network and the formula
        # (a model's sampler setting, e.g. parallel tempering, travels with it)
        return (_rebuild, (self.network, self.formula, self.constraints, self._missing),
                {"tempering": self.tempering} if getattr(self, "tempering", None) else None)

    def __repr__(self):
        return f"ERGM({self.network!r}, {self.formula!r})"



class TaperedERGM(TaperingMixin, ERGM):
    __doc__ = TaperingMixin.__doc__.split("\n\n", 1)[1]


class CountERGM(ERGM):
    """A count-valued ERGM (ergm.count): the integer edge attribute ``response`` of a
    network, a formula of valued terms and a reference measure.  ``ERGM(...,
    response=..., reference=...)`` makes one; it is an :class:`ERGM` of the count
    family (:class:`~ergmfit.families.CountFamily`).

    Parameters
    ----------
    network : networkx.Graph, networkx.DiGraph or Network
        The observed network; ``response`` names the edge attribute holding the
        counts (an absent dyad is 0).
    formula : str
        Valued terms joined by ``+``: ``"sum + nonzero + mutual(form='min')"``.
    response : str
        The edge attribute (statnet's ``response=``).
    reference : str or Reference
        ``"Poisson"`` (default), ``"Binomial(3)"``, ``"Geometric"``,
        ``"DiscUnif(a, b)"`` (a leading ``~`` is accepted, as statnet writes it).
    directed : bool, optional
        Only for inputs whose directedness is not stated.

    ``fit(method="mple")`` (the count pseudo-likelihood) and ``fit(method="mcmle")``
    (statnet's MCMC-MLE, started at the count MPLE) fit it, and ``"cd"``, ``"ee"``,
    ``"bayes"`` and ``"sa"``; the other estimators refuse the family by name (their
    ``supports["families"]``).  ``offset(term)`` fixes a coefficient at the value given
    as ``fit(..., offset_coef=[...])``, as in binary models.  On a two-mode network only
    the dyads between the modes vary (:class:`~ergmfit.families.count.CountDyads`).  ``statistics``,
    ``simulate`` and ``gof`` (the dyad value distribution, the degrees and shared
    partners of the nonzero ties, the model statistics) work.

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> g = nx.DiGraph()
    >>> g.add_edge(0, 1, weight=2); g.add_edge(1, 0, weight=3); g.add_edge(1, 2, weight=1)
    >>> m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="weight",
    ...             reference="Poisson")
    >>> isinstance(m, ef.ERGM)
    True
    >>> m.statistics()
    {'sum': 6.0, 'nonzero': 3.0, 'mutual.min': 2.0}
    >>> m.simulate([0.0, 0.0, 0.0], n=3, output="stats", random_state=1).shape
    (3, 3)
    """

    simulation_outputs = ("graphs", "stats")
    simulation_unavailable = ("start", "constraints", "n_chains", "n_jobs", "backend")

    def __init__(self, network, formula, directed=None, weights="error", constraints=None,
                 missing=None, nodes=None, response=None, reference=None, **unknown):
        if unknown:
            raise SettingsError(f"ERGM() got unknown argument(s) {sorted(unknown)}")
        given = [k for k, v in (("weights", weights), ("constraints", constraints),
                                ("missing", missing), ("nodes", nodes))
                 if v not in (None, "error")]
        if given:
            raise SettingsError(f"{', '.join(given)}= not available for count-valued models yet "
                                f"(response={response!r}, reference={reference!r})")
        if response is None:
            raise NetworkError("a count-valued model needs response=: the name of the edge "
                               "attribute holding the counts")
        if not isinstance(response, str):
            raise NetworkError(f"response must be an edge attribute name, got {response!r}")
        if not isinstance(formula, str):
            raise FormulaError(f"formula must be a string, got {type(formula).__name__}")
        formula = formula_rhs(formula, network_names(network))
        from .network.networks import Networks
        if isinstance(network, Networks):
            # its sample space would be every dyad of the combined network, those between
            # two networks included (as observed zeros): a silently wrong fit
            raise SettingsError(
                f"count-valued models of several networks ({type(network).__name__}, "
                f"response={response!r}) are not available yet: fit each network alone, or "
                "the binary multi-network model with N(~...)")
        family = CountFamily("Poisson" if reference is None else reference)
        net, dyads, values = valued_network(network, response, family.reference, directed)
        self._build(net, formula, response, family, dyads, values)

    def _build(self, network, formula, response, family, dyads, values, terms=None):
        self.family, self.reference, self.response = family, family.reference, response
        self.network, self._dyads, self._values = network, dyads, values
        self.formula = formula
        if terms is None:
            self.terms, self._term_offset = formula_terms(network, formula, COUNT_STATE)
        else:
            self.terms, self._term_offset = terms, None
        for t in self.terms:
            family.check_kernel(t)
        self.parameterisation = parameterisation_of(self.terms)
        # offset(term): labels offset(...), fixed coefficients given as fit(offset_coef=),
        # as in a binary model (ERGM._set_offsets, _fit_with_offsets)
        self._set_offsets()
        # every dyad free and observed (constraints and missing values: not yet)
        self.constraints, self._missing = None, None
        self.sample_space = family.sample_space(network)

    @property
    def default_proposal(self) -> str:
        return self.family.resolve_proposal("auto")

    def chain_end(self, cm):
        """Where a chain on the compiled model ``cm`` stands: its nonzero dyads and
        their values (what ``sampler(start=)`` and ``statistics_vector()`` take back)."""
        return cm.state.nonzero()

    def null_loglik(self, n_free=None) -> float | None:
        """The log-likelihood at θ = 0 (the reference measure alone): Σ_v log h(y_v)
        − n_free log Σ_k h(k) over the dyads; None for a reference without a
        finite total mass (Geometric).  Every nonzero dyad is free and observed: a count
        model has no constraints or missing dyads (its constructor, ``with_constraints``
        and an ``na`` edge attribute refuse them), so ``n_free`` (``fit_nobs``: the sample
        space's dyads, a two-mode network's between its modes) holds them all."""
        from scipy.special import logsumexp
        ref = self.reference
        n_free = self.network.n_dyads if n_free is None else int(n_free)
        top = ref.hi if ref.hi is not None else ref.lo + 4096
        log_h = ref.log_h(np.arange(ref.lo, top + 1))
        log_total = float(logsumexp(log_h))
        if ref.hi is None and log_h[-1] - log_total > -40:
            return None
        n_zero = n_free - len(self._values)
        obs = float(np.sum(ref.log_h(self._values))) + (n_zero * float(ref.log_h(0))
                                                         if n_zero else 0.0)
        return obs - n_free * log_total

    def exact_loglik(self, theta) -> None:
        """None: no exact log-likelihood of a count model here (the MCMC-MLE
        bridge-samples it; the binary pair-independent factorisation does not apply)."""
        return None

    def compiled(self, dyads=None, values=None) -> CountERGMModel:
        """The compiled model on a fresh copy of the observed values (or ``dyads``/``values``;
        ``dyads`` may be the pair (dyads, values) that :meth:`chain_end` returns)."""
        if isinstance(dyads, tuple):
            dyads, values = dyads
        if dyads is None:
            dyads, values = self._dyads, self._values
        else:
            dyads, values = _count_rows(dyads, values, self.network.n, self.network.directed,
                                        self.reference)
        state = CountState(self.network.n, self.network.directed, dyads, values)
        cm = CountERGMModel(state, self.kernels, self.reference.compiled())
        # only the sample space's dyads vary (a two-mode network's between its modes)
        free = self.sample_space.free_vars()
        if free is not None:
            from .sampling.space import dyad_vars
            out = ~np.isin(dyad_vars(self.network.n, self.network.directed, dyads), free)
            if out.any():
                i, j = (int(x) for x in np.asarray(dyads)[np.flatnonzero(out)[0]])
                raise ValueError(f"the dyad ({i}, {j}) has a value but lies outside the "
                                 f"model's sample space ({self.sample_space.describe()}): "
                                 "its value cannot vary")
            cm.restrict(free)
        return cm

    def statistics_vector(self, dyads=None, values=None) -> np.ndarray:
        """The statistics of the observed values (or of ``dyads``/``values``, or the pair
        :meth:`chain_end` returns), accumulated from change statistics on the empty network."""
        if isinstance(dyads, tuple):
            dyads, values = dyads
        if dyads is None:
            dyads, values = self._dyads, self._values
        else:
            dyads, values = _count_rows(dyads, values, self.network.n, self.network.directed,
                                        self.reference)
        empty = CountERGMModel(CountState(self.network.n, self.network.directed),
                               self.kernels, self.reference.compiled())
        on_empty = np.concatenate([t.on_empty() for t in self.terms]) if self.terms else \
            np.zeros(0)
        return on_empty + empty.accumulate(
            np.ascontiguousarray(dyads, dtype=np.int64).reshape(-1, 2),
            np.ascontiguousarray(values, dtype=np.int64).reshape(-1))

    def statistics(self) -> dict:
        """Observed statistics as ``{label: value}`` (statnet's labels)."""
        return dict(zip(make_unique(self.labels), self.statistics_vector().tolist()))

    def sampler(self, params, proposal="auto", random_state=None, start=None):
        """A Metropolis-Hastings sampler (``CountMHSampler``) started at the observed
        values, and its compiled model."""
        if getattr(self, "tempering", None) is not None:    # not silently untempered
            raise SettingsError("parallel tempering is not available for count-valued models")
        check_params(self._finite_offsets(params), self.labels)    # an offset may be -Inf
        prop = self.family.make_proposal(proposal)          # checks the name first
        if start is not None and not (isinstance(start, tuple) and len(start) == 2):
            raise SettingsError("start= of a count-valued model is the pair (dyads, values) "
                                "that chain_end() returns")
        cm = self.compiled(start)
        sampler = self.family.make_sampler(cm, prop, seed_words(random_state))
        sampler.set_guard(reference_ties=len(self._values))
        sampler.description = self._guard_name()
        return sampler, cm

    def _guard_name(self):
        return (f"the valued model '{self.formula}' ({self.network.n:,} nodes, "
                f"reference {self.reference.label})")

    def _snapshot(self, cm):
        return self._graph(*cm.state.nonzero())

    def _simulation_output(self, draws, output):
        return draws

    def _graph(self, dyads, values):
        g = self.network.with_ties(dyads).to_networkx()
        labels = self.network.labels
        for (i, j), y in zip(dyads.tolist(), values.tolist()):
            g.edges[labels[i], labels[j]][self.response] = int(y)
        return g

    def _not_yet(self, what):
        return ErgmfitError(f"{what} is not available for count-valued models yet (family "
                            f"'{self.family.name}', reference {self.reference.label}): "
                            "statistics() and simulate() are")

    def with_constraints(self, constraints):
        raise SettingsError("constraints= not available for count-valued models yet")

    def submodel(self, term_indices) -> "CountERGM":
        """The model with only the given terms (same network, values and reference)."""
        sub = object.__new__(CountERGM)
        terms = [self.terms[k] for k in term_indices]
        sub._build(self.network, " + ".join(_term_text(t) for t in terms), self.response,
                   self.family, self._dyads, self._values, terms=terms)
        return sub

    def predict(self, params, dyads=None, compressed=False, **kwargs):
        raise self._not_yet("predict()")

    def gof(self, params, n_sim=100, random_state=None, **kwargs):
        """Goodness of fit of ``params`` (see :func:`ergmfit.gof.gof`): the dyad value
        distribution, the degrees and shared partners of the nonzero ties and the
        model statistics, observed against simulated."""
        from .gof import gof as _gof
        if kwargs.get("constraints") is not None:
            raise SettingsError("constraints= not available for count-valued models yet")
        kwargs.pop("constraints", None)
        return _gof(self, params, n_sim=n_sim, random_state=random_state, **kwargs)

    def saved_spec(self) -> dict:
        """What a results file keeps to rebuild this model (:func:`rebuild_from_info`):
        the response, the reference and the nonzero dyads (node indices) with their
        values."""
        out = {"response": self.response, "reference": self.reference.label,
               "values": [[int(i), int(j), int(y)] for (i, j), y in
                          zip(self._dyads.tolist(), self._values.tolist())]}
        if self.offset_coef is not None:
            out["offset_coef"] = [float(v) for v in self.offset_coef]
        return out

    def __reduce__(self):
        return (_rebuild_count, (self.network, self.formula, self.response,
                                 self.reference, self._dyads, self._values))

    def __repr__(self):
        return (f"<CountERGM '{self.formula}' on {self.network.n} nodes, "
                f"response={self.response!r}, reference={self.reference.label}>")


def formula_terms(network, formula, state=None):
    """(terms, offset flags) of ``formula`` on ``network``: its ``offset(...)`` wrappers
    split off (:func:`~ergmfit.terms.offsets.split_offsets`), statnet's ``For()`` macro
    written out, each term built for ``state`` (None: binary ties; ``COUNT_STATE``: the
    valued terms).  Every family's model reads its formula here."""
    text, offset_texts = split_offsets(formula)
    calls = parse_formula(text)
    # For() is statnet's macro: its terms written out before any term is built
    calls, is_off = expand_for(network, calls, _offset_flags(calls, offset_texts))
    extra = {} if state is None else {"state": state}
    return [build_term(network, c.name, c.args, c.kwargs, **extra) for c in calls], is_off


def _tie_rows(ties, what="ties"):
    """``ties`` as an (m, 2) array of node indices, or a ValueError naming what is wrong
    with it: an array of another shape was read two numbers at a time (a (2, 3) array as
    three ties), and non-whole values cut to integers (0.5 as node 0)."""
    arr = np.asarray(ties)
    if arr.dtype.kind in "iu" and arr.ndim == 2 and arr.shape[1] == 2:
        return arr
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{what} must be an (m, 2) array of node pairs (one row per tie), "
                         f"got shape {arr.shape}")
    if arr.dtype.kind != "f":
        raise ValueError(f"{what} must hold node indices (integers), got dtype {arr.dtype}")
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        r = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"{what} must hold node indices (whole numbers): row {r} is "
                         f"({arr[r, 0]:g}, {arr[r, 1]:g})")
    return arr.astype(np.int64)


def _count_rows(dyads, values, n, directed, reference):
    """``dyads`` and ``values`` of a count-valued model as (m, 2) and (m,) int64 arrays, or
    a ValueError naming what is wrong: a shape, a node outside 0..n-1, a loop, a value that
    is not a whole number or lies outside ``reference``'s support (a NetworkError, as
    the network's own values), or a dyad given twice (both rows named; the count set the
    dyads one after another, so the last value silently won)."""
    d = _tie_rows(dyads, "dyads")
    if values is None:
        raise ValueError("dyads given without values: a count-valued model takes (dyads, values)")
    y = np.asarray(values)
    if y.ndim != 1 or len(y) != len(d):
        raise ValueError(f"{len(d)} dyads but values of shape {y.shape}: one value per dyad")
    if len(d) == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    if y.dtype.kind not in "iu":
        y = reference.check_values(y.tolist(), what="the values")
    y = np.ascontiguousarray(y, dtype=np.int64)
    d = np.ascontiguousarray(d, dtype=np.int64)
    wrong = np.flatnonzero((d < 0).any(axis=1) | (d >= n).any(axis=1) | (d[:, 0] == d[:, 1]))
    if len(wrong):
        r = int(wrong[0])
        raise ValueError(f"dyads row {r} is ({d[r, 0]}, {d[r, 1]}): not a dyad of a {n}-node "
                         f"network (nodes 0..{n - 1}, no loops)")
    out = (y < reference.lo) | ((y > reference.hi) if reference.hi is not None else False)
    if out.any():
        r = int(np.flatnonzero(out)[0])
        kind = "negative" if y[r] < 0 else "outside the support"
        raise NetworkError(f"values row {r} (dyad ({d[r, 0]}, {d[r, 1]})) is {kind}: {y[r]}; "
                           f"the reference {reference.label} takes values {reference.support}")
    a, b = (d[:, 0], d[:, 1]) if directed else (d.min(axis=1), d.max(axis=1))
    key = a * n + b
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order[1:]] == key[order[:-1]])
    if len(same):
        later = order[same + 1]
        bad = int(later.min())
        first = int(np.flatnonzero(key == key[bad])[0])
        kind = "directed" if directed else "undirected, in either order"
        raise ValueError(f"duplicate dyad ({d[bad, 0]}, {d[bad, 1]}) in dyads: rows {first} and "
                         f"{bad} are the same dyad ({kind}), with values {y[first]} and "
                         f"{y[bad]}; each dyad may appear once")
    return d, y


def _rebuild_count(network, formula, response, reference, dyads, values):
    formula = formula_rhs(formula, None)    # kept before left-hand sides were checked
    m = object.__new__(CountERGM)
    m._build(network, formula, response, CountFamily(reference), dyads, values)
    return m


def _term_text(term):
    args = ", ".join(f"{k}={v!r}" for k, v in term.args.items())
    return f"{term.name}({args})" if args else term.name


def _rebuild(network, formula, constraints=None, missing=None):
    m = ERGM(network, formula_rhs(formula, None))   # (a pickle's formula was accepted)
    if constraints is not None or missing is not None:
        m.constraints, m._missing = constraints, missing
        m._set_structure()
    return m


def _boundary_face(model, estimator):
    """The face the MLE lies on when ``estimator`` (an estimator object) fits infinite
    estimates (:func:`ergmfit.estimation.mple.boundary.boundary_face`), else None."""
    if not estimator.supports.get("infinite_estimates"):
        return None
    from .estimation.mple.boundary import boundary_face
    return boundary_face(model)


def _fit_with_offsets(model, estimator):
    """Fit the free coefficients of a model with offset terms with ``estimator`` (an
    estimator object that works through the model's parameterisation), then put the
    offsets back into the results (their standard errors 0, as statnet prints)."""
    import copy
    from .estimation import make_estimator
    from .terms.offsets import OffsetParameterisation
    if model.offset_coef is None:
        raise FormulaError("the model has offset terms: give their coefficients, "
                           "fit(..., offset_coef=[...])")
    free = copy.copy(model)
    free.parameterisation = OffsetParameterisation(model.parameterisation, model.offset,
                                                   model.offset_coef)
    free.labels = [lab for lab, o in zip(model.labels, model.offset) if not o]
    free.offset = np.zeros(len(free.labels), dtype=bool)
    init = estimator.given_params().get("init")
    if init is not None and not isinstance(init, (dict, str)):    # (not 'mple', 'S', ...)
        init = np.asarray(init, dtype=float)
        if init.shape == (model.n_params,):
            estimator = estimator.with_settings(init=init[~model.offset])
    method = estimator.method
    if model.offset.all() and method != "mple":
        # nothing to estimate: as statnet ("All terms are either offsets or extreme
        # values. No optimization is performed."), the fit holds the offsets; the
        # pseudo-likelihood path evaluates them without any estimation step
        warn(f"every coefficient of the model is an offset: nothing to estimate, so "
             f"method={method!r} is not run; the fit holds the offset coefficients (with "
             "the pseudo-likelihood at them, as fit(method='mple'))")
        res = free._fit(make_estimator("mple",
                                       random_state=estimator.get_params().get("random_state")))
        res.diagnostics.nothing_estimated = True
    else:
        res = free._fit(estimator)
    m = model.offset
    # (every per-parameter array of the fit: a posterior's draws too)
    res.put_offsets_back(m, model.offset_coef, model.labels)
    res.diagnostics.offset = dict(zip(make_unique(model.labels), map(bool, m)))
    res.model = model
    return res


def _setting_names(method):
    """The settings estimator ``method`` takes (None: a registered function without a table)."""
    from .estimation.base import Estimator
    from .estimation.registry import estimator_class
    cls = estimator_class(method)
    return cls.setting_names() if isinstance(cls, type) and issubclass(cls, Estimator) else None


def _jsonable(v):
    return v.item() if isinstance(v, np.generic) else v


def rebuild_from_info(network, formula, info=None):
    """The model a results file describes: ``ERGM(network, formula)`` with the
    constraints, missing dyads, offsets and target statistics saved in
    ``info["sample_space"]`` (see :meth:`ERGM.saved_spec`)."""
    spec = (info or {}).get("sample_space") or {}
    # the file's formula was accepted when it was fitted: a left-hand side then (before
    # they were checked against the network's name) is dropped, as it was then
    formula = formula_rhs(formula, None)
    if spec.get("series") is not None:          # a panel (TemporalERGM.saved_spec)
        return _rebuild_panel(formula, spec)
    if spec.get("response") is not None:        # a count-valued model (CountERGM.saved_spec)
        rows = np.asarray(spec.get("values") or [], dtype=np.int64).reshape(-1, 3)
        return _rebuild_count(network, formula, spec["response"], spec["reference"],
                              np.ascontiguousarray(rows[:, :2]), np.ascontiguousarray(rows[:, 2])
                              ).configured(None, spec.get("offset_coef"))
    cons = spec.get("constraints")
    if isinstance(cons, list):
        cons = (cons[0], {k: [tuple(p) for p in v] for k, v in cons[1].items()})
    missing = [tuple(p) for p in spec["missing"]] if spec.get("missing") else None
    taper = spec.get("tapering")
    m = ERGM(network, formula, constraints=cons, missing=missing) if taper is None else \
        TaperedERGM(network, formula, constraints=cons, missing=missing, r=taper["r"],
                    tau=taper["tau"], centers=taper["centers"])
    return m.configured(None, spec.get("offset_coef"), spec.get("target_stats"),
                        spec.get("tempering"))


def _rebuild_panel(formula, spec):
    """The temporal model of a results file (``spec["series"]``: the waves, transitions,
    constraints, missing dyads and edge covariates :meth:`TemporalERGM.saved_spec` kept;
    for EGMME's one cross-section, that network)."""
    from .network.series import NetSeries
    from .results.io import network_from_dict
    from .network.series import panel_constraints, panel_missing
    panel = spec["series"]
    if panel.get("dropped"):
        # since session 21 only what JSON cannot hold at all (a constraint's node label
        # such as an object); missing dyads and dyad constraints are kept in its terms
        raise ResultsFileError(f"the results file could not keep the panel's "
                               f"{', '.join(panel['dropped'])} (values JSON cannot hold): "
                               "refit the model")
    constraints = panel_constraints(panel.get("constraints"))
    if panel.get("cross_section") is not None:
        m = ERGM(network_from_dict(panel["cross_section"]), formula, constraints=constraints)
    else:
        waves = [network_from_dict(w) for w in panel["waves"]]
        series = NetSeries(waves, missing=panel_missing(waves, panel.get("missing")),
                           edge_covariates={k: [np.asarray(v, dtype=float) for v in mats]
                                            for k, mats in
                                            (panel.get("edge_covariates") or {}).items()})
        m = ERGM(series, formula, constraints=constraints, times=panel.get("times"))
    return m.configured(None, spec.get("offset_coef"), spec.get("target_stats"),
                        spec.get("tempering"))


register_model_builder(rebuild_from_info)


def missing_dyads(network, missing):
    """(network, missing variable indices or None) from a ``missing=`` argument;
    an ``na`` edge attribute marks unobserved dyads, whose edges are dropped."""
    from .sampling.space import dyad_vars
    na_attr = missing if isinstance(missing, str) else ("na" if missing is None else None)
    vars_ = []
    if na_attr is not None and na_attr in network.edge_attrs:
        flags = na_flags(network, na_attr)
        if flags.any():
            vars_.append(dyad_vars(network.n, network.directed, network.ties[flags]))
            net = network.with_ties(network.ties[~flags])
            net.edge_attrs = {a: [v for v, f in zip(vals, flags) if not f]
                              for a, vals in network.edge_attrs.items() if a != na_attr}
            network = net
    elif isinstance(missing, str):
        raise FormulaError(f"missing={missing!r}: the network has no edge attribute {missing!r}")
    elif missing is not None:
        arr = np.asarray(missing, dtype=object)
        if arr.ndim == 2 and arr.shape == (network.n, network.n) and network.n != 2:
            M = np.asarray(missing, dtype=float)
            mask = np.isnan(M) if np.isnan(M).any() else M != 0
            np.fill_diagonal(mask, False)
            i, j = np.nonzero(mask if network.directed else np.triu(mask | mask.T))
            vars_.append(dyad_vars(network.n, network.directed, np.stack([i, j], axis=1)))
        else:
            vars_.append(pairs_vars(network, missing, "missing"))
    if not vars_:
        return network, None
    miss = unique_sorted(np.concatenate(vars_))
    if len(miss) == 0:
        return network, None
    ties = dyad_vars(network.n, network.directed, network.ties)
    unobserved = in_sorted(ties, miss)
    if unobserved.any():
        # a tie on an unobserved dyad is not observed: drop it
        network = network.with_ties(network.ties[~unobserved])
    return network, miss


def _simulation_size(model, n, burnin, interval, output):
    """(n, burnin, interval) of a simulation as ints, checked: a SettingsError up front
    when the proposals or the output are beyond what can finish or fit (see
    :meth:`ERGM.simulate`)."""
    from .exceptions import SettingsError
    outputs = model.simulation_outputs
    if output not in outputs:
        raise SettingsError(f"output must be {', '.join(map(repr, outputs[:-1]))} or "
                            f"{outputs[-1]!r}, got {output!r}")
    n, burnin = whole_number(n, "n", 0), whole_number(burnin, "burnin", 0)
    interval = whole_number(interval, "interval", 1)
    net = model.network
    if output == "stats":
        each, what = 8.0 * len(model.labels), f"{len(model.labels)} statistics x 8 bytes"
    else:                         # ties (16 bytes each) and per-node overhead, about
        each = 16.0 * max(net.n_ties, 1) + (300.0 * net.n if output == "graphs" else 0) \
            + (250.0 * net.n_ties if output == "graphs" else 0) + 1000.0
        what = f"about {format_bytes(each)} for a network like the observed one"
    check_simulation_work(n, burnin, interval, each, what)
    return n, burnin, interval
