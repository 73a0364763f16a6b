"""ergm.ego's fit: an ERGM for the population an egocentric sample was drawn from.

The egocentric estimate of the per-capita statistics m (the weighted mean of the egos'
contributions, :mod:`ergmfit.ego.egostats`) fixes the target statistics of a
*pseudo-population* network: each ego stands for round(N' w_i / Σw) nodes carrying its
attributes, and an ERGM on those N' nodes is fitted to the targets N' m (statnet's
``target.stats``).  The size offset ``netsize.adj`` (an edges term with coefficient
-log(N'/N)) carries the estimate from N' nodes to the population size N, so the coefficients
refer to a network of N nodes with the sample's per-capita mean degree (Krivitsky, Handcock
& Morris 2011).  The covariance of the estimate is the survey variance of m carried through
the inverse per-capita information, I₁⁻¹ V(m) I₁⁻¹ with I₁ = I(θ)/N' (Krivitsky & Morris
2017, section 4).

References
----------
Krivitsky, P. N. and Morris, M. (2017). Inference for social network models from
egocentrically sampled data. *Annals of Applied Statistics* 11(1), 427-455.
Krivitsky, P. N., Handcock, M. S. and Morris, M. (2011). Adjusting for network size and
composition effects in exponential-family random graph models. *Statistical Methodology*
8(4), 319-339.
"""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import DataFormatError, DegenerateModelError, SettingsError
from ..formula import parse_formula
from ..model import ERGM, register_input_model
from ..network.network import MAX_NODES
from .data import EgoData
from .egostats import ego_contributions, survey_vcov

__all__ = ["EgoERGM", "pseudo_population_counts"]

#: pseudo-populations larger than this are fitted by EE (equilibrium expectation) by default,
#: smaller ones by MCMC-MLE as ergm.ego does
EE_FROM_PPOPSIZE = 10_000
#: EE's outer iterations for an egocentric fit (EE's own default is 200): at N' = 100,000 the
#: degree model's edges coefficient still drifted between the two halves of a 200-step
#: trajectory at one seed in three (docs/egocentric.md, "Convergence")
EE_STEPS = 400
#: the share of EE's trajectory dropped as burn-in (EE's own default at this size is 10,000
#: of the 40,000 inner steps): with a quarter dropped, the edges coefficient's kept
#: trajectory still trended at one seed in four at N' = 100,000
EE_BURNIN = 0.5
#: draws of the simulation at the EE estimate (the information the survey s.e. need), and
#: their spacing as a share of the pseudo-population size (at least 10,000 proposals); at
#: half a pseudo-population apart the s.e. at N' = 20,000 were up to 67 % off the MCMC-MLE's
#: at N' = 2,000 (3 of 3 seeds beyond 35 %; one apart: 0 of 3, at most 27 %)
EE_SE_SAMPLESIZE = 500
EE_SE_INTERVAL_PER_NODE = 1.0

#: statnet's label of the size offset
NETSIZE_LABEL = "offset(netsize.adj)"


def pseudo_population_counts(weights, ppopsize, ppop_wt="round", random_state=None):
    """How many pseudo-population nodes each ego stands for.

    ``ppop_wt="round"`` (ergm.ego's default): round(N' w_i / Σw), rounding halves to even as
    R does (the N' used is the sum).  ``"sample"``: N' egos drawn with replacement with
    probabilities w_i / Σw (a multinomial draw; exactly N' nodes, an ego may get none).

    Examples
    --------
    >>> pseudo_population_counts([1.0, 1.0, 2.0], 10).tolist()
    [2, 2, 5]
    >>> int(pseudo_population_counts([1.0, 1.0, 2.0], 10, "sample", random_state=1).sum())
    10
    """
    w = np.asarray(weights, dtype=float)
    if ppop_wt == "round":
        return np.round(ppopsize * w / w.sum()).astype(np.int64)
    if ppop_wt == "sample":
        from ..utils.validation import check_random_state
        rng = check_random_state(random_state)
        return rng.multinomial(int(round(ppopsize)), w / w.sum()).astype(np.int64)
    raise SettingsError(f"ppop_wt must be 'round' or 'sample' (ergm.ego's ppop.wt), not "
                        f"{ppop_wt!r}")


class EgoERGM:
    """An ERGM fitted to an egocentric sample, as ergm.ego does (``ef.ERGM(ego_data, ...)``).

    Parameters
    ----------
    ego : EgoData
    formula : str
        Ego terms (see :data:`ergmfit.ego.EGO_TERMS`), statnet's syntax.
    popsize : float
        Size N of the population network (ergm.ego's ``popsize``, default 1: the
        coefficients then refer to a network of one node, i.e. the edges coefficient carries
        the -log N' offset).
    ppopsize : "auto", "samp", "pop" or int
        Size N' of the pseudo-population (ergm.ego's ``ppopsize``): "auto" is "pop" when
        ``popsize`` is not 1 and "samp" otherwise; "samp" is the number of egos and "pop" is
        N, each times ``ppopsize_mul``; a number sets N' directly.
    ppopsize_mul : float
        Multiplier of the "samp"/"pop" size.
    ppop_wt : {"round", "sample"}
        How egos become pseudo-population nodes (ergm.ego's ``ppop.wt``): each ego
        round(N' w_i / Σw) times, or N' egos drawn with replacement in proportion to the
        weights (see :func:`pseudo_population_counts`).
    random_state : int, Generator or None
        For ``ppop_wt="sample"`` only.

    Notes
    -----
    Sampling weights enter both the target statistics and the pseudo-population (each ego's
    share of its nodes), and the survey variance; see docs/egocentric.md for where this
    differs from ergm.ego 1.0.1.

    Examples
    --------
    >>> import ergmfit as ef
    >>> ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    >>> m = ef.ERGM(ego, "edges + nodematch('Sex')", popsize=205)
    >>> m.ppopsize, m.netsize_offset
    (205, 0.0)
    >>> fit = m.fit()
    >>> [round(float(v), 3) for v in fit.params]
    [0.0, -4.989, 0.634]
    """

    def __init__(self, ego, formula, popsize=1, ppopsize="auto", ppopsize_mul=1.0,
                 ppop_wt="round", random_state=None, response=None, reference=None,
                 **unknown):
        if unknown:
            raise SettingsError(f"ERGM(EgoData(...), ...) does not take {sorted(unknown)} "
                                f"(it takes popsize, ppopsize, ppopsize_mul, ppop_wt, "
                                f"random_state)")
        if response is not None or reference is not None:
            raise SettingsError("egocentric ERGMs are binary: response= and reference= do "
                                "not apply")
        if not isinstance(ego, EgoData):
            raise DataFormatError(f"an egocentric ERGM needs an EgoData, not "
                                  f"{type(ego).__name__}")
        if isinstance(popsize, bool) or not isinstance(popsize, (int, float, np.integer,
                                                                 np.floating)) \
                or not math.isfinite(popsize) or popsize <= 0:
            raise SettingsError(f"popsize must be a positive number (the population size), "
                                f"not {popsize!r}")
        self.ego = ego
        self.formula = formula
        self.popsize = float(popsize)
        self.stat_labels, self.contributions = ego_contributions(ego, formula)
        w = ego.weights
        #: per-capita statistics (the weighted mean contribution) and their survey variance
        self.per_capita = (w[:, None] * self.contributions).sum(axis=0) / w.sum()
        self.per_capita_vcov = survey_vcov(self.contributions, w, ego.strata)
        target = self._ppopsize(ppopsize, ppopsize_mul)
        if not target <= MAX_NODES:       # refused before the copies are counted and built
            raise SettingsError(f"the pseudo-population would have {target:.4g} nodes, more "
                                f"than the {MAX_NODES:,} of a network; give a smaller ppopsize "
                                f"(ergm.ego's ppopsize=; the coefficients still refer to "
                                f"popsize)")
        self.ego_copies = pseudo_population_counts(w, target, ppop_wt, random_state)
        self.ppopsize = int(self.ego_copies.sum())
        if self.ppopsize < 2:
            raise SettingsError(f"the pseudo-population has {self.ppopsize} node(s); raise "
                                f"ppopsize or ppopsize_mul")
        #: -log(N'/N), the fixed coefficient of the size offset
        self.netsize_offset = -math.log(self.ppopsize / self.popsize) + 0.0
        self.labels = [NETSIZE_LABEL] + list(self.stat_labels)
        self.target_stats = self.per_capita * self.ppopsize

    def _ppopsize(self, ppopsize, mul):
        if isinstance(ppopsize, str):
            kind = ppopsize.lower()
            if kind == "auto":
                kind = "pop" if self.popsize != 1 else "samp"
            if kind == "pop":
                return self.popsize * float(mul)
            if kind == "samp":
                return self.ego.n_egos * float(mul)
            raise SettingsError(f"ppopsize must be 'auto', 'samp', 'pop' or a number, "
                                f"not {ppopsize!r}")
        if isinstance(ppopsize, bool) or not isinstance(ppopsize, (int, float, np.integer)) \
                or not ppopsize >= 2:
            raise SettingsError(f"ppopsize must be a number >= 2, not {ppopsize!r}")
        return float(ppopsize)

    # ------------------------------------------------------------------ pseudo-population
    def pseudo_population(self, start_ties=None):
        """The pseudo-population network: N' nodes, ego i copied ``ego_copies[i]`` times with
        its attributes; no ties, or ``start_ties``."""
        from ..network import Network
        rows = np.repeat(np.arange(self.ego.n_egos), self.ego_copies)
        attrs = {str(c): list(self.ego.egos[c].to_numpy()[rows])
                 for c in self.ego.egos.columns if c != self.ego.ego_id}
        ties = np.zeros((0, 2), dtype=np.int64) if start_ties is None else start_ties
        return Network(self.ppopsize, ties, directed=False, node_attrs=attrs)

    def start_ties(self, rng):
        """A start for the MCMC fit near the targets: every pseudo-population node gets its
        ego's ties, each to a random node of the type (attributes) of the alter, by matching
        the tie ends of type A wanting B with those of B wanting A; unmatched ends, loops and
        repeated ties are dropped.  The degrees and mixing are then close to the sample's
        and the chain that meets the targets exactly (statnet's SAN) starts nearby."""
        # the attributes the formula names (the mixing the start should have)
        named = {v for call in parse_formula(self.formula)
                 for v in list(call.args) + list(call.kwargs.values()) if isinstance(v, str)}
        cols = [c for c in self.ego.egos.columns
                if c in named and c != self.ego.ego_id and c in self.ego.alters.columns]
        key_ego = self.ego.egos[cols].astype(str).agg("\x1f".join, axis=1) if cols else \
            np.full(self.ego.n_egos, "")
        key_alter = self.ego.alters[cols].astype(str).agg("\x1f".join, axis=1) if cols else \
            np.full(len(self.ego.alters), "")
        _, code = np.unique(np.concatenate([np.asarray(key_ego), np.asarray(key_alter)]),
                            return_inverse=True)
        ego_type, alter_type = code[:self.ego.n_egos], code[self.ego.n_egos:]
        first_node = np.concatenate([[0], np.cumsum(self.ego_copies)[:-1]])
        # the tie ends: one per (copy of an ego, alter of that ego)
        copies = self.ego_copies[self.ego.alter_ego]
        alter_row = np.repeat(np.arange(len(self.ego.alter_ego)), copies)
        offset = np.arange(len(alter_row)) - np.repeat(np.cumsum(copies) - copies, copies)
        node = first_node[self.ego.alter_ego][alter_row] + offset
        own = ego_type[self.ego.alter_ego][alter_row]
        want = alter_type[alter_row]
        order = rng.permutation(len(node))
        node, own, want = node[order], own[order], want[order]
        n_types = int(code.max()) + 1
        pool = own * n_types + want
        sort = np.argsort(pool, kind="stable")
        bounds = np.searchsorted(pool[sort], np.arange(n_types * n_types + 1))
        ends, used = [], np.zeros(len(node), dtype=bool)
        for a in range(n_types):
            for b in range(a, n_types):
                x = sort[bounds[a * n_types + b]:bounds[a * n_types + b + 1]]
                if a == b:
                    k = len(x) // 2
                    x, y = x[:k], x[k:2 * k]
                else:
                    y = sort[bounds[b * n_types + a]:bounds[b * n_types + a + 1]]
                    k = min(len(x), len(y))
                    x, y = x[:k], y[:k]
                used[x] = used[y] = True
                ends.append(np.stack([node[x], node[y]], axis=1))
        # the ends left over (types whose counts do not balance) pair at random: degrees kept
        rest = rng.permutation(np.flatnonzero(~used))
        k = len(rest) // 2
        ends.append(np.stack([node[rest[:k]], node[rest[k:2 * k]]], axis=1))
        ties = np.concatenate(ends) if ends else np.zeros((0, 2), dtype=np.int64)
        ties = np.sort(ties[ties[:, 0] != ties[:, 1]], axis=1)
        return np.unique(ties, axis=0).astype(np.int64)

    def near_targets(self, rng):
        """The pseudo-population ERGM on a network whose statistics are (nearly) the targets,
        and a start θ for its fit: :meth:`start_ties`, the MPLE there (θ), and statnet's SAN
        (a chain steered to the targets) started at that θ, so that a large sparse network's
        chain stays near the targets' density instead of starting from θ = 0."""
        import warnings

        from ..estimation.common.restricted import target_network
        from ..exceptions import ConvergenceWarning
        model = self.network_model(self.start_ties(rng))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            theta = np.asarray(model.fit(method="mple", random_state=rng).params, dtype=float)
        ties = target_network(model, self.target_stats, rng, theta=theta,
                              steps=max(16, self.ppopsize // 2000))
        return self.network_model(ties), theta

    def network_model(self, start_ties=None):
        """The ERGM on the pseudo-population.  With an edges term the size offset (ergm.ego's
        ``offset(netsize.adj)``, an edges term with a fixed coefficient) is folded into the
        edges coefficient, the same model; without one it is ``offset(edges)``."""
        formula = self.formula if self._has_edges else f"offset(edges) + {self.formula}"
        return ERGM(self.pseudo_population(start_ties), formula)

    @property
    def _has_edges(self):
        return "edges" in self.stat_labels

    @property
    def dyad_independent(self) -> bool:
        return self.network_model().dyad_independent

    # ------------------------------------------------------------------ fit
    def fit(self, method=None, random_state=None, verbose=False, **kwargs):
        """Fit as ergm.ego: the pseudo-population ERGM at the target statistics, with the
        size offset fixed, and the survey covariance of the estimate.

        Parameters
        ----------
        method : {"exact", "mple", "mcmle", "ee"} or None
            None: the exact MLE on dyad classes for dyad-independent models; otherwise
            MCMC-MLE at the target statistics (as ergm.ego), or EE (equilibrium expectation,
            on a network at the targets) when the pseudo-population has more than
            ``EE_FROM_PPOPSIZE`` (10,000) nodes.  Both start at the MPLE of a network
            near the targets (:meth:`near_targets`).
        random_state : int, Generator or None
        **kwargs
            Settings of the estimator.

        Returns
        -------
        ERGMResults
            With statnet's labels (``offset(netsize.adj)`` first); ``cov`` is ergm.ego's
            covariance; ``ego_info`` holds ``popsize``, ``ppopsize``, the per-capita
            statistics ``m`` and their survey variance ``v``, and the network model's own
            covariance ``ergm_cov``.
        """
        model = self.network_model()
        if method is None:
            method = ("exact" if model.dyad_independent
                      else "ee" if self.ppopsize > EE_FROM_PPOPSIZE else "mcmle")
        if method == "exact":
            self._check_method("exact", model)
            return self._survey_results(self._exact_by_types(model), "exact")
        from ..estimation import make_estimator
        return self._estimate(make_estimator(method, random_state=random_state,
                                             verbose=verbose, **kwargs), model)

    def _check_method(self, method, model):
        """A SettingsError for a method this model's network model cannot be fitted by."""
        if method == "ee" and (model.dyad_independent or not self._has_edges):
            raise SettingsError("method='ee' is for dyad-dependent egocentric models with an "
                                "edges term (dyad-independent ones get the exact MLE)")
        if method == "exact" and not model.dyad_independent:
            raise SettingsError("method='exact' needs a dyad-independent model; use 'mcmle'")
        if not self._has_edges and method not in ("mple", "exact"):
            raise SettingsError("an egocentric model without an edges term is fitted by "
                                "method='exact' or 'mple' only (if it is dyad-independent); "
                                "add edges to the formula")

    def _estimate(self, estimator, model=None):
        """Fit with ``estimator`` (an estimator object, its settings set) as ergm.ego: the
        one path of :meth:`fit` (every method but ``"exact"``) and of an estimator
        object's own ``fit(model)`` (``Estimator.fit`` hands a model's outermost fit to
        its ``_estimate``).  ``model``: the network model, if built already.

        Settings the estimator was not given get this model's defaults (``init``: the
        MPLE near the targets; EE's proposal, steps, burn-in and standard errors).
        """
        from ..utils.validation import check_random_state
        model = self.network_model() if model is None else model
        method = estimator.method
        self._check_method(method, model)
        rng = check_random_state(estimator.get_params().get("random_state"))
        given = estimator.given_params()
        defaults = {}
        target_gap = None
        if self._has_edges:
            if not model.dyad_independent:
                model, theta0 = self.near_targets(rng)
                defaults["init"] = theta0
            if method == "ee":
                # EE fits the network's statistics: the one near_targets found
                target_gap = model.statistics_vector(model.network.ties) - self.target_stats
                # the information at the estimate from a simulation there (EstimNet's
                # own s.e. are not the covariance of the statistics the survey step needs);
                # its draws one pseudo-population size of proposals apart: at 100,000 nodes
                # the s.e. then agree with an MCMC-MLE fit at 2,000 nodes (docs/egocentric.md)
                defaults.update(proposal=ee_proposal(model), ee_steps=EE_STEPS,
                                burnin=EE_BURNIN, se="simulate",
                                se_interval=max(10_000,
                                                int(EE_SE_INTERVAL_PER_NODE * self.ppopsize)),
                                se_samplesize=EE_SE_SAMPLESIZE)
            config = {} if method == "ee" else {"target_stats": self.target_stats}
        else:
            config = {"target_stats": np.concatenate([[0.0], self.target_stats]),
                      "offset_coef": [self.netsize_offset]}
        estimator = estimator.with_settings(
            random_state=rng, **{k: v for k, v in defaults.items() if k not in given})
        res = model._estimate(estimator, **config)
        return self._survey_results(res, method, target_gap)

    def _survey_results(self, res, method, target_gap=None):
        """The network model's fit ``res`` as ergm.ego's results (statnet's labels, the
        survey covariance; see :meth:`fit`)."""
        # the information is that of the model, not of the Monte Carlo error of an MCMC fit
        model_cov = np.asarray(res.cov, dtype=float)
        if res.cov_mc is not None and np.all(np.isfinite(res.cov_mc)):
            model_cov = model_cov - np.asarray(res.cov_mc, dtype=float)
        if self._has_edges:
            # the offset was folded into edges: unfold it
            edges = self.stat_labels.index("edges")
            params = np.concatenate([[self.netsize_offset], np.asarray(res.params, float)])
            params[1 + edges] -= self.netsize_offset
            p = len(self.stat_labels)
            ergm_cov = np.zeros((p + 1, p + 1))
            ergm_cov[1:, 1:] = model_cov
        else:
            params = np.asarray(res.params, dtype=float)
            ergm_cov = np.array(model_cov, dtype=float)
            ergm_cov[0, :] = ergm_cov[:, 0] = 0.0
        info = _information(ergm_cov[1:, 1:])
        cov = np.zeros_like(ergm_cov)
        if info is not None:
            inv_pc = np.linalg.inv(info / self.ppopsize)
            cov[1:, 1:] = inv_pc @ self.per_capita_vcov @ inv_pc
        else:
            cov[1:, 1:] = np.nan
        res.labels = list(self.labels)
        res.params = params
        res.cov = cov
        res.cov_mc = None           # as ergm.ego: the survey covariance has no MCMC part
        res.formula = self.formula
        res.se_kind = "ergm.ego: survey variance of the targets through the inverse information"
        res.ego_info = {"popsize": self.popsize, "ppopsize": self.ppopsize,
                        "m": dict(zip(self.stat_labels, self.per_capita)),
                        "v": self.per_capita_vcov, "ergm_cov": ergm_cov,
                        "netsize_offset": self.netsize_offset}
        if method == "ee":
            res.ego_info["target_gap"] = dict(zip(self.stat_labels, target_gap))
        return res

    def _exact_by_types(self, model):
        """The exact MLE of a dyad-independent model at the targets, on dyad classes.

        Dyad-independent ego terms (edges, nodefactor, nodematch, nodemix) see a dyad only
        through its two nodes' attributes, so the N'(N'-1)/2 dyads fall into classes by the
        (unordered) pair of ego types; the change statistics of each class come from a tie
        between two representatives in a small network, and Newton's method solves
        Σ_c n_c p_c x_c = t on the classes (the log-likelihood is concave).  Time and memory
        grow with the number of types squared, not with N'."""
        import time

        from ..estimation.common.nobs import fit_nobs
        from ..network import Network
        from ..results import ERGMResults
        start = time.process_time()
        cols = [c for c in self.ego.egos.columns if c != self.ego.ego_id]
        if cols:
            key = self.ego.egos[cols].astype(str).agg("\x1f".join, axis=1).to_numpy()
            _, codes = np.unique(key, return_inverse=True)
        else:
            codes = np.zeros(self.ego.n_egos, dtype=np.int64)
        T = int(codes.max()) + 1
        count = np.bincount(codes, weights=self.ego_copies, minlength=T)
        first = np.array([np.flatnonzero(codes == k)[0] for k in range(T)])
        # two representatives of each type: nodes 2k and 2k+1
        attrs = {str(c): list(np.repeat(self.ego.egos[c].to_numpy()[first], 2)) for c in cols}
        small = ERGM(Network(2 * T, np.zeros((0, 2), dtype=np.int64), directed=False,
                             node_attrs=attrs), model.formula)
        empty = np.zeros((0, 2), dtype=np.int64)
        g0 = small.statistics_vector(empty)
        pairs = [(a, b) for a in range(T) for b in range(a, T)]
        X = np.array([small.statistics_vector(np.array([[2 * a, 2 * b + (a == b)]]))
                      for a, b in pairs]) - g0
        n = np.array([count[a] * (count[a] - 1) / 2 if a == b else count[a] * count[b]
                      for a, b in pairs])
        X, n = X[n > 0], n[n > 0]
        free = ~np.asarray(model.offset, dtype=bool)
        target = (self.target_stats if self._has_edges
                  else np.concatenate([[0.0], self.target_stats]))
        theta = np.zeros(len(free))
        theta[~free] = self.netsize_offset
        theta[free], info, loglik, iters = _logistic_at_targets(
            X[:, free], X[:, ~free] @ theta[~free], n, (target - g0)[free],
            [lab for lab, f in zip(model.labels, free) if f])
        p = len(free)
        cov = np.zeros((p, p))
        cov[np.ix_(free, free)] = np.linalg.inv(info)
        return ERGMResults(theta, cov, model.labels, method="mple", loglik=loglik,
                           loglik_kind="exact", **fit_nobs(model), n_iter=iters,
                           seconds=time.process_time() - start, se_kind="exact information",
                           formula=model.formula, model=model, dyad_independent=True)

    def gof(self, fit, nsim=100, max_degree=None, random_state=None, **kwargs):
        """ergm.ego's ``gof(fit, GOF="degree")``: the egos' degree distribution beside that
        of networks simulated from ``fit`` (see :func:`ergmfit.ego.gof.ego_degree_gof`)."""
        from .gof import ego_degree_gof
        return ego_degree_gof(self, fit, nsim=nsim, max_degree=max_degree,
                              random_state=random_state, **kwargs)

    def statistics(self, scaleto=None, se=False):
        """ergm.ego's ``summary(egor ~ formula, scaleto=, se=)`` (default scale: popsize)."""
        from .egostats import statistics
        return statistics(self.ego, self.formula,
                          scaleto=self.popsize if scaleto is None else scaleto, se=se)


def ee_proposal(model):
    """EE's proposal for the pseudo-population model: "triadic" (tie/no-tie with triadic
    closure) when a term counts closed two-paths, else "ifd" (EE's own).

    IFD proposes uniformly random dyads: in a sparse network of N' nodes a random dyad
    closes a two-path with probability about (two-paths)/(N'^2/2), 6e-5 at N' = 100,000,
    so EE sees triangles destroyed and almost never made, and pushes the gwesp coefficient
    up without bound (26 million at N' = 20,000; the simulation at that estimate fills
    the network).  Triadic moves propose the closures at the rate the model needs them
    (docs/egocentric.md, "Large pseudo-populations")."""
    from ..sampling.space import sample_space_of
    default = sample_space_of(model).default_proposal(model)
    return "triadic" if default.endswith("triadic") else "ifd"


def _information(cov):
    """The information matrix from the network model's covariance (its inverse), or None
    if that is not invertible."""
    if not np.all(np.isfinite(cov)):
        return None
    try:
        return np.linalg.inv(cov)
    except np.linalg.LinAlgError:
        return None


register_input_model(EgoData, EgoERGM)


def _logistic_at_targets(X, offset, n, t, labels, tol=1e-12, maxiter=200):
    """Maximise θ·t - Σ_c n_c log(1 + exp(x_c θ + o_c)) by damped Newton steps: the MLE of a
    dyad-independent ERGM whose dyad classes c (n_c dyads, change statistics x_c) must
    reproduce the statistics t.  Returns θ, the information, the log-likelihood and the
    number of steps."""
    from scipy.special import expit, log1p

    def loglik(th):
        eta = X @ th + offset
        return float(th @ t - np.sum(n * (np.maximum(eta, 0) + log1p(np.exp(-np.abs(eta))))))

    # a target at the smallest or largest value the pseudo-population allows: no MLE
    low = np.where((X >= 0).all(axis=0), 0.0, -np.inf)
    high = np.where((X >= 0).all(axis=0), (n[:, None] * X).sum(axis=0), np.inf)
    at_edge = [lab for lab, v, lo, hi in zip(labels, t, low, high)
               if v <= lo + 1e-9 * max(1.0, abs(lo) if np.isfinite(lo) else 1.0)
               or v >= hi - 1e-9 * max(1.0, abs(hi) if np.isfinite(hi) else 1.0)]
    if at_edge:
        raise DegenerateModelError(
            f"the egocentric MLE does not exist: the target of {', '.join(at_edge)} is the "
            f"smallest or largest value the pseudo-population allows (e.g. no ties of a "
            f"mixing cell in the sample; statnet's coefficient would be -Inf): remove the "
            f"statistic (nodemix(levels2=) / nodematch(levels=) are not supported yet)")
    theta = np.zeros(X.shape[1])
    cur = loglik(theta)
    for it in range(1, maxiter + 1):
        prob = expit(X @ theta + offset)
        score = t - X.T @ (n * prob)
        info = (X * (n * prob * (1 - prob))[:, None]).T @ X
        try:
            step = np.linalg.solve(info, score)
        except np.linalg.LinAlgError:
            raise DegenerateModelError(f"the egocentric model's statistics are collinear on "
                                       f"the pseudo-population ({', '.join(labels)}): drop a "
                                       f"term") from None
        size = 1.0
        while True:
            new = loglik(theta + size * step)
            if new >= cur - 1e-12 * abs(cur) or size < 1e-10:
                break
            size /= 2
        theta, cur = theta + size * step, new
        if np.max(np.abs(score) / np.maximum(1.0, np.abs(t))) < tol or \
                np.max(np.abs(size * step)) < 1e-13:
            break
    if not np.all(np.abs(theta) < 50):
        raise DegenerateModelError(f"the egocentric MLE does not exist: a target statistic "
                                   f"lies on the boundary of what the pseudo-population can "
                                   f"have (coefficients {dict(zip(labels, theta.round(2)))})")
    prob = expit(X @ theta + offset)
    info = (X * (n * prob * (1 - prob))[:, None]).T @ X
    return theta, info, cur, it
