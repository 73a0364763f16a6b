"""The temporal ERGM of a NetSeries: tergm's conditional model of each wave given the one
before, over the transitions of the panel.

``ERGM(NetSeries([...]), formula)`` builds a :class:`TemporalERGM`: an ERGM on the
block-diagonal network of the transitions (:meth:`NetSeries.combined`), every block carrying
its previous network, on the sample space of the within-block dyads (statnet's
``blockdiag``).  Its likelihood is the product over the transitions of p(y_t | y_{t-1}), so
every static estimator fits it unchanged: ``method="cmle"`` is the MCMC-MLE (exact logistic
regression when the model is dyad-independent given the previous networks, as tergm's),
``method="cmple"`` the MPLE; other methods (``"ee"``, ``"bayes"``, ...) work as well.
``method="btergm"`` is btergm's pooled MPLE with bootstrap intervals
(:mod:`ergmfit.estimation.btergm`).
"""
from __future__ import annotations

import numpy as np

from ..exceptions import FormulaError, NetworkError, SettingsError
from ..model import CONFIG_SETTINGS, ERGM, missing_dyads, register_input_model
from ..network.series import NetSeries
from ..runtime.interrupts import stops_when_interrupted
from ..sampling.space import dyad_vars, var_pairs

#: tergm's estimate= names and what they are here
TEMPORAL_METHODS = {"cmle": "mcmle", "cmple": "mple"}
DISSOLUTION_OPERATORS = ("Persist", "Diss")
#: ergm 4's control.ergm() sample size of an MCMC-MLE iteration, which tergm's CMLE uses
#: (control.tergm's CMLE.ergm): MCMLE.samplesize.per_theta draws per coefficient, at least
#: MCMLE.samplesize.min
CMLE_SAMPLESIZE_PER_COEF, CMLE_SAMPLESIZE_MIN = 32, 256
#: ergm 4's MCMLE.confidence.boost: the last sample is at most this many times larger
CMLE_LAST_BOOST = 2
#: statnet's starting interval, the CMLE's largest starting interval
CMLE_MAX_INTERVAL = 1024
#: tergm's summary headers
TEMPORAL_HEADERS = {"cmle": "Conditional Maximum Likelihood Results:",
                    "cmple": "Conditional Maximum Pseudolikelihood Results:"}


class TemporalERGM(ERGM):
    """A temporal ERGM (tergm's CMLE model) of the transitions of a :class:`NetSeries`.

    Parameters
    ----------
    series : NetSeries
        The panel.
    formula : str
        tergm 4's operator syntax (``"Form(~edges + mutual) + Persist(~edges)"``); a term
        outside an operator is evaluated on the later wave of each transition (as
        ``Cross``), as tergm does.
    constraints : str, optional
        Further constraints (statnet's syntax), within the blocks of the transitions.
    times : list of int, optional
        The later waves (0-based, each ≥ 1) of the modelled transitions, each from the wave
        before it; default all.  tergm's ``times=`` lists the networks spanned instead
        (1-based): its ``times=1:3`` is ``times=[1, 2]`` here.

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> s = ef.NetSeries([nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)])
    >>> m = ef.ERGM(s, "Form(~edges) + Diss(~edges)")
    >>> m.statistics()
    {'Form~edges': 15.0, 'Diss~edges': -7.0}
    """

    def __init__(self, series, formula, constraints=None, times=None, directed=None,
                 **kwargs):
        if not isinstance(series, NetSeries):
            raise NetworkError("TemporalERGM needs a NetSeries")
        unknown = sorted(set(kwargs) - {"weights", "missing", "nodes"})
        if unknown:
            raise SettingsError(f"ERGM(NetSeries(...), ...) does not take {unknown}")
        given = sorted(k for k in ("missing", "nodes") if kwargs.get(k) is not None)
        if given:
            raise SettingsError(f"{given}: give a panel's missing dyads and node files to "
                                "NetSeries(...), not to ERGM(...)")
        self.series = series
        self.times = series.transitions(times, first=1 if times is None else 0)
        self._default_times = times is None
        net = series.combined(self.times)
        missing = self._missing_pairs(net)
        # the sample space: the dyads within the blocks (the Networks container's), and
        # the user's constraints within them
        super().__init__(net, formula, constraints=constraints, missing=missing)
        self.user_constraints = constraints

    def _missing_pairs(self, net):
        # each wave's unobserved dyads, as pairs of the combined network's node labels
        if self.series.missing is None:
            return None
        pairs = []
        for t in self.times:
            if self.series.missing[t] is None:
                continue
            wave = self.series.waves[t]
            _, miss = missing_dyads(wave, self.series.missing[t])
            if miss is None:
                continue
            for i, j in var_pairs(wave.n, wave.directed, miss).tolist():
                pairs.append(((t, wave.labels[i]), (t, wave.labels[j])))
        return pairs or None

    def _check_dissolution(self):
        # Persist()/Diss() on transitions whose previous networks have no ties: nothing can
        # persist or dissolve, the coefficients do not exist
        ops = [t for t in self.terms if getattr(t, "temporal_operator", None)
               in DISSOLUTION_OPERATORS]
        if not ops:
            return
        empty = [t - 1 for t in self.times if t > 0 and self.series.waves[t - 1].n_ties == 0]
        if len(empty) == len(self.times):
            waves = ", ".join(str(w) for w in empty)
            raise FormulaError(
                f"{ops[0].name}() models the dissolution of ties, but the previous wave(s) "
                f"{waves} of every transition have no ties: no tie can persist or dissolve, so "
                f"its coefficients ({', '.join(ops[0].param_labels)}) do not exist; drop "
                f"{ops[0].name}() or use transitions whose earlier wave has ties")

    @stops_when_interrupted    # inside ef.stop_on_interrupt(): raises after the tergm header
    def fit(self, method=None, random_state=None, verbose=False, **kwargs):
        """Fit the model: ``method="cmle"`` (default; tergm's CMLE: the MCMC-MLE of the
        transitions, exact for a model dyad-independent given the previous networks),
        ``"cmple"`` (tergm's CMPLE), ``"btergm"`` (btergm's pooled MPLE with bootstrap
        intervals over the transitions: settings ``R``, ``n_jobs``, ``level``; see
        :class:`ergmfit.estimation.btergm.BTERGM`) or any static method (``"mple"``,
        ``"mcmle"``, ``"ee"``, ...) on the transitions; settings as :meth:`ERGM.fit`.

        Examples
        --------
        >>> import networkx as nx
        >>> import ergmfit as ef
        >>> s = ef.NetSeries([nx.path_graph(6), nx.cycle_graph(6), nx.star_graph(5)])
        >>> fit = ef.ERGM(s, "Form(~edges) + Persist(~edges)").fit(method="cmle")
        >>> round(float(fit.params["Form~edges"]), 4)     # log(4 / 15): 4 of 19 non-ties formed
        -1.3218
        """
        name = method if method is not None else kwargs.pop("estimate", None)
        name = "cmle" if name is None else str(name).lower()
        if name == "btergm":        # (not a static method: its settings go to BTERGM)
            from ..estimation.btergm import BTERGM
            config = {key: kwargs.pop(key, None) for key in CONFIG_SETTINGS}
            return self._estimate(BTERGM(random_state=random_state, **kwargs), **config)
        if name == "cmle" and self.exact_cmle_available(kwargs):
            # the conditional likelihood of a model dyad-independent given the previous
            # networks is its pseudo-likelihood: the CMLE is the CMPLE, exactly (as tergm)
            kwargs, unused = _exact_cmle_settings(kwargs)
            res = super().fit("mple", random_state=random_state, verbose=verbose, **kwargs)
            res.method = "mle"
            res.diagnostics.set("exact_mle", True)
            res.warnings = list(res.warnings) + [
                "Note: the model is dyad-independent given the previous networks, so its "
                "conditional likelihood is exact and the CMLE is the CMPLE; no MCMC was run "
                "(as tergm does)" + (f"; the MCMC setting(s) {', '.join(map(repr, unused))} "
                                     "were not used" if unused else "")]
        else:
            if name == "cmle":
                kwargs = {**self.cmle_sampling(), **kwargs}
            res = super().fit(TEMPORAL_METHODS.get(name, name), random_state=random_state,
                              verbose=verbose, **kwargs)
        if name in TEMPORAL_METHODS:
            # tergm's title: "Monte Carlo ..." when the CMLE ran MCMC
            header = TEMPORAL_HEADERS[name]
            if name == "cmle" and not res.info.get("exact_mle"):
                header = "Monte Carlo " + header
            res.diagnostics.update({"temporal_estimate": name.upper(),
                                    "summary_header": header, "call_method": name})
        return res

    def _estimate(self, estimator, **config):
        """:meth:`ERGM._estimate` (the one path of :meth:`fit` and of an estimator
        object's ``fit(model)``) after the checks of a panel model: dissolution terms
        need transitions with ties (``_check_dissolution``); btergm
        (``estimator.method == "btergm"``) models every wave, wave 0 included, when no
        term looks back and the transitions were not chosen."""
        self._check_dissolution()
        model = self
        if estimator.method == "btergm" and self._default_times and not self.reads_previous:
            model = TemporalERGM(self.series, self.formula, self.user_constraints,
                                 times=list(range(self.series.n_waves))).configured(
                None, self.offset_coef, self.target_stats, self.tempering)
        return ERGM._estimate(model, estimator, **config)

    def cmle_sampling(self) -> dict:
        """The MCMC-MLE settings of ``method="cmle"`` (settings given to :meth:`fit` win).

        tergm's CMLE runs ergm 4's MCMC-MLE with ``control.ergm()``'s defaults: about
        ``MCMLE.effectiveSize = 64`` effective draws per iteration from
        ``max(MCMLE.samplesize.min, MCMLE.samplesize.per_theta x coefficients)`` = max(256,
        32 p) draws, a last sample at most ``MCMLE.confidence.boost = 2`` times larger.  The
        same effort here: ``samplesize`` max(256, 32 p), ``last_boost`` 2 (``method="mcmle"``
        keeps the static defaults: 1024 draws, a last sample 4 times larger).  A panel of
        small networks has few free dyads (Sampson's two transitions: 612), and a chain
        forgets its start in a few sweeps over them: the first interval is half a sweep (a
        power of 2 between 64 and statnet's 1024), from which the iterations adapt it to the
        target effective size as usual.  See docs/temporal.md (CMLE speed).

        Examples
        --------
        >>> import ergmfit as ef
        >>> s = ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])
        >>> ef.ERGM(s, "Form(~edges + mutual) + Persist(~edges)").cmle_sampling()
        {'samplesize': 256, 'last_boost': 2, 'interval': 256}
        """
        p = len(self.labels)
        half_sweep = max(1, int(self.sample_space.n_free) // 2)
        interval = 2 ** int(np.floor(np.log2(half_sweep)))
        return {"samplesize": max(CMLE_SAMPLESIZE_MIN, CMLE_SAMPLESIZE_PER_COEF * p),
                "last_boost": CMLE_LAST_BOOST,
                "interval": int(min(CMLE_MAX_INTERVAL, max(64, interval)))}

    def simulate_dynamic(self, params, n_steps=10, burnin=None, start=None, random_state=None,
                         keep_networks=False):
        """Simulate the model forward ``n_steps`` discrete time steps from ``start`` (default
        the series' last wave): each step draws y_t given y_{t-1}; returns a
        :class:`~ergmfit.temporal.dynamics.DynamicSimulation` with the statistics of every
        transition, tie counts, persistence and formation rates and the spells' durations
        (EpiModel's ``netdx`` diagnostics).  ``burnin``: Metropolis-Hastings proposals per
        step (default 16 per free dyad).

        Examples
        --------
        >>> import networkx as nx
        >>> import ergmfit as ef
        >>> s = ef.NetSeries([nx.gnp_random_graph(20, 0.1, seed=k) for k in range(2)])
        >>> m = ef.ERGM(s, "Form(~edges) + Persist(~edges)")
        >>> sim = m.simulate_dynamic([-3.0, 2.0], n_steps=5, random_state=1)
        >>> sim.stats.shape, len(sim.n_ties)
        ((5, 2), 6)
        """
        from .dynamics import simulate_dynamic
        return simulate_dynamic(self, params, n_steps, burnin=burnin, start=start,
                                random_state=random_state, keep_networks=keep_networks)

    def dynamic_chain(self, cross=None, start=None, proposals=None, random_state=None,
                      exact="auto"):
        """The model's dynamic process as one compiled chain (see
        :class:`~ergmfit.temporal.chain.DynamicChain`), following the cross-sectional
        statistics of the formula ``cross``."""
        from .chain import DynamicChain
        return DynamicChain(self, cross=cross, start=start, proposals=proposals,
                            random_state=random_state, exact=exact)

    def transition_model(self, wave, formula):
        """The one-transition model ``wave → wave`` of ``formula`` (this model's
        constraints): what a dynamic chain runs on."""
        return TemporalERGM(NetSeries([wave, wave]), formula, constraints=self.user_constraints)

    def operator_formula(self, operator) -> str:
        """The formula inside ``operator(~...)`` of the model's formula ("" if none)."""
        from .formulas import operator_formula
        return operator_formula(self.formula, operator)

    def cross_section_model(self, formula):
        """The static model ``formula`` on the last wave (EGMME's targets)."""
        return ERGM(self.series.waves[-1], formula)

    def cross_section_statistics(self, formula):
        """(values, labels) of the statistics ``formula`` on the last wave (EGMME's
        targets on the observed cross-section)."""
        static = self.cross_section_model(formula)
        return np.asarray(static.statistics_vector(), dtype=float), list(static.stat_labels)

    def equilibrium_start(self):
        """EGMME's default start (see :func:`ergmfit.temporal.formulas.formation_start`)."""
        from .formulas import formation_start
        return formation_start(self)

    @property
    def reads_previous(self) -> bool:
        """Whether a term reads the previous networks (temporal operators, memory, delrecip)."""
        return any(getattr(t, "temporal_operator", None) or getattr(t, "reads_previous", False)
                   for t in self.terms)

    def exact_cmle_available(self, settings=None) -> bool:
        """Whether the CMLE is exact logistic regression: every term dyad-independent given
        the previous networks, not curved, the sample space free dyads only (the blocks and
        dyad constraints), no missing dyads and no ``init``."""
        settings = settings or {}
        space = self.sample_space
        return (self.dyad_independent and not self.curved and space.dyad_independent
                and not space.n_missing and settings.get("init") is None
                and self.target_stats is None)

    def on_waves(self, times, series=None):
        """This model (formula and constraints) on the transitions into the waves ``times``
        of ``series`` (default this model's panel)."""
        return TemporalERGM(self.series if series is None else series, self.formula,
                            self.user_constraints, times=list(times))

    def gof_on_waves(self, fit, target=None, series=None, **settings):
        """Goodness of fit of ``fit`` (of this model) on target waves, in or out of sample:
        :func:`ergmfit.temporal.heldout_gof`.  ``fit.gof()`` of any fit of this model (CMLE,
        CMPLE, btergm, ...) is this, per transition: each fitted wave against networks
        simulated given the wave before it, as tergm checks a CMLE transition by
        transition (not the transitions pooled into one block-diagonal network).

        Examples
        --------
        >>> import networkx as nx
        >>> import ergmfit as ef
        >>> s = ef.NetSeries([nx.gnp_random_graph(10, 0.3, seed=k) for k in range(3)])
        >>> fit = ef.ERGM(s, "Form(~edges) + Persist(~edges)").fit(method="cmle")
        >>> sorted(fit.gof(n_sim=5, random_state=1).waves)
        [1, 2]
        """
        from .heldout import heldout_gof
        return heldout_gof(fit, target=target, series=series, **settings)

    def gof_of_fit(self, fit, n_sim=100, random_state=None, **kwargs):
        """``fit.gof()`` of a fit of this model: :meth:`gof_on_waves`, transition by
        transition (the base model's hook, :meth:`ergmfit.ERGM.gof_of_fit`)."""
        return self.gof_on_waves(fit, n_sim=n_sim, random_state=random_state, **kwargs)

    def with_constraints(self, constraints):
        return TemporalERGM(self.series, self.formula,
                            constraints=constraints if constraints is not None
                            else self.user_constraints, times=self.times)

    def __reduce__(self):
        return (TemporalERGM, (self.series, self.formula, self.user_constraints, self.times))

    def saved_spec(self) -> dict:
        """:meth:`ERGM.saved_spec` and the panel (``"series"``: its waves, the transitions
        fitted, the user's constraints, the waves' missing dyads and edge covariates): a
        results file rebuilds this model from them (:func:`ergmfit.model.rebuild_from_info`,
        the static models' path), not an ERGM of the combined network it holds.

        Kept in JSON's terms: a wave's missing dyads as index pairs (``{"pairs": [[i, j],
        ...]}``, however they were given: node-label pairs, a NaN or boolean matrix) or
        the name of the edge attribute marking them; dyad constraints ``(formula, {name:
        pairs})`` as ``{"formula": ..., "dyads": ...}``.  What still is not JSON (a node
        label JSON cannot hold in a constraint's pairs) is listed under ``"dropped"`` and
        rebuilding then says so."""
        import json
        from ..results import network_to_dict
        out = super().saved_spec()
        s = self.series
        panel = {"waves": [network_to_dict(w) for w in s.waves],
                 "times": None if self._default_times else [int(t) for t in self.times]}
        missing = None if s.missing is None else [_missing_entry(w, v)
                                                  for w, v in zip(s.waves, s.missing)]
        for key, value in (("constraints", _constraints_entry(self.user_constraints)),
                           ("missing", missing),
                           ("edge_covariates", {k: [np.asarray(m).tolist() for m in v]
                                                for k, v in s.edge_covariates.items()})):
            if value:
                try:
                    json.dumps(value, allow_nan=False)
                    panel[key] = value
                except (TypeError, ValueError):
                    panel.setdefault("dropped", []).append(key)
        out["series"] = panel
        return out

    def __repr__(self):
        return f"ERGM({self.series!r}, {self.formula!r})"


def _exact_cmle_settings(settings):
    """(settings for the MPLE, names left out) of an exact CMLE: the MCMC-MLE's own settings
    (``samplesize``, statnet's ``MCMC.samplesize``, ...) are not used, as tergm ignores its
    MCMC controls there; a setting neither estimator takes is an error naming ``'cmle'``
    (not the MPLE's "method 'mple' has no setting 'samplesize' (did you mean
    'sample_size'?)", another setting)."""
    from ..estimation.registry import estimator_class
    from ..statnet import statnet_name
    extra = {"constraints", "offset_coef", "target_stats", "tempering", "control", "estimate"}
    mple = set(estimator_class("mple").setting_names()) | extra
    mcmle = set(estimator_class("mcmle").setting_names()) | extra
    keep, unused = {}, []
    settings = dict(settings)
    control = settings.pop("control", None)
    if isinstance(control, dict):               # statnet's control = control.ergm(...)
        kept, unused = _exact_cmle_settings(control)
        if kept:
            keep["control"] = kept
    elif control is not None:
        keep["control"] = control               # the MPLE says what control= takes
    for key, value in settings.items():
        spec = statnet_name(key) if key not in mple | mcmle else None
        names = set(spec.keywords) if spec is not None else {key}
        if names <= mple or (spec is not None and not names <= mcmle):
            keep[key] = value                   # the MPLE's, or a statnet name it answers
        elif names <= mcmle:
            unused.append(key)
        else:
            raise SettingsError(f"method 'cmle' has no setting {key!r}; its settings are "
                                f"those of 'mcmle': {', '.join(sorted(mcmle - extra))}")
    return keep, unused


register_input_model(NetSeries, TemporalERGM)


def _plain(v):
    """A numpy scalar as the Python one (JSON takes it); anything else as it is."""
    return v.item() if isinstance(v, np.generic) else v


def _missing_entry(wave, missing):
    """One wave's ``missing=`` as a results file keeps it: None, the edge attribute's name,
    or ``{"pairs": [[i, j], ...]}`` (node indices of the wave) for pairs or a matrix."""
    if missing is None or isinstance(missing, str):
        return missing
    _, miss = missing_dyads(wave, missing)
    return {"pairs": [] if miss is None else var_pairs(wave.n, wave.directed, miss).tolist()}


def _constraints_entry(constraints):
    """The user's constraints as a results file keeps them: a formula (or formulas) as it
    is; ``(formula, {name: node-label pairs})`` as ``{"formula", "dyads"}``."""
    if isinstance(constraints, tuple) and len(constraints) == 2 \
            and isinstance(constraints[1], dict):
        return {"formula": constraints[0],
                "dyads": {str(k): [[_plain(u), _plain(v)] for u, v in pairs]
                          for k, pairs in constraints[1].items()}}
    return constraints
