"""The user's model: a network and a formula."""
from __future__ import annotations

import numpy as np

from .exceptions import FormulaError
from .formula import parse_formula
from .network import NetworkState, as_network
from .sampling.space import AllDyads
from .terms.parameterisation import parameterisation_of
from .terms.registry import build_term
from .terms._ergm import ERGMModel
from .utils.validation import check_params, check_random_state, seed_words


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

    Examples
    --------
    >>> import networkx as nx
    >>> m = ERGM(nx.path_graph(4), "edges + kstar(2) + triangle")
    >>> m.statistics()
    {'edges': 3.0, 'kstar2': 2.0, 'triangle': 0.0}
    """

    def __init__(self, network, formula, directed=None, weights="error"):
        self.network = as_network(network, directed=directed, weights=weights)
        self.formula = formula
        calls = parse_formula(formula)
        self.terms = [build_term(self.network, c.name, c.args, c.kwargs) for c in calls]
        for labels, what in (([lab for t in self.terms for lab in t.labels], "statistic"),
                             ([lab for t in self.terms for lab in t.param_labels], "coefficient")):
            seen = set()
            for lab in labels:
                if lab in seen:
                    raise FormulaError(f"the {what} {lab!r} appears twice in the formula; "
                                       "each term may be used once")
                seen.add(lab)
        self._empty = (np.concatenate([t.empty for t in self.terms])
                       if self.terms else np.zeros(0))
        self._set_structure()

    def _set_structure(self):
        # what every estimator asks the model for (see ergmfit.sampling.space
        # and ergmfit.terms.parameterisation)
        self.sample_space = AllDyads(self.network)
        self.parameterisation = parameterisation_of(self.terms)
        # labels: one per coefficient (θ); stat_labels: one per canonical statistic
        # (what statistics() gives).  They differ only for curved terms.
        self.labels = list(self.parameterisation.param_labels)
        self.stat_labels = list(self.parameterisation.stat_labels)

    @property
    def curved(self) -> bool:
        """True when a term is curved (its decay estimated: statnet's fixed=FALSE)."""
        return not self.parameterisation.linear

    def eta(self, params) -> np.ndarray:
        """Natural parameters η(θ) of ``params`` (θ in :attr:`labels` order or a dict)."""
        return self.parameterisation.eta(check_params(params, self.labels))

    @property
    def n_params(self) -> int:
        return len(self.labels)

    @property
    def kernels(self) -> list:
        return [t.kernel for t in self.terms]

    @property
    def dyad_independent(self) -> bool:
        return all(t.dyad_independent for t in self.terms)

    def submodel(self, term_indices) -> "ERGM":
        """The model with only the given terms (same network)."""
        sub = ERGM.__new__(ERGM)
        sub.network = self.network
        sub.terms = [self.terms[k] for k in term_indices]
        sub.formula = " + ".join(_term_text(t) for t in sub.terms)
        sub._empty = (np.concatenate([t.empty for t in sub.terms]) if sub.terms else np.zeros(0))
        sub._set_structure()
        return sub

    def compiled(self, ties=None) -> ERGMModel:
        """The compiled model on a fresh copy of the observed ties (or ``ties``)."""
        state = NetworkState(self.network.n, self.network.directed,
                             self.network.ties if ties is None else ties)
        return ERGMModel(state, self.kernels)

    def statistics_vector(self, ties=None) -> np.ndarray:
        """Statistics of the observed network (or of ``ties``) in label order."""
        ties = self.network.ties if ties is None else np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        empty = ERGMModel(NetworkState(self.network.n, self.network.directed), self.kernels)
        out = self._empty + empty.add_ties_accumulate(np.ascontiguousarray(ties, dtype=np.int64))
        bad = [lab for lab, v in zip(self.stat_labels, out) if not np.isfinite(v)]
        if bad:
            from .exceptions import TermError
            raise TermError(f"the statistic(s) {bad} are not finite: an attribute's values are too "
                            "large for floating point; rescale it")
        return out

    def statistics(self) -> dict:
        """Observed statistics as ``{label: value}``, with statnet's labels (for a curved
        term its count vector, as statnet's ``summary()``)."""
        return dict(zip(self.stat_labels, self.statistics_vector().tolist()))

    @property
    def default_proposal(self) -> str:
        """The proposal "auto" stands for (see :meth:`SampleSpace.default_proposal`)."""
        return self.sample_space.default_proposal(self)

    def sampler(self, params, proposal="auto", random_state=None, start=None):
        """A Metropolis-Hastings sampler (``MHSampler``) started at the observed
        network (or at ``start``: an (m, 2) tie array), and its compiled model."""
        from .sampling import MHSampler
        prop = self.sample_space.proposal(proposal, model=self)   # checks the name first
        check_params(params, self.labels)
        cm = self.compiled(start)
        return MHSampler(cm, prop, seed_words(random_state)), cm

    def simulate(self, params, n=1, burnin=16384, interval=1024, output="graphs",
                 proposal="auto", random_state=None, start=None):
        """Draw networks from the model at ``params`` by Metropolis-Hastings.

        Parameters
        ----------
        params : sequence or dict
            One value per statistic, in :attr:`labels` order (or ``{label: value}``).
        n : int
            Number of networks (or statistic vectors) to return.
        burnin, interval : int
            Proposals before the first draw and between draws (statnet's
            ``MCMC.burnin`` and ``MCMC.interval``).
        output : {"graphs", "networks", "stats"}
            networkx graphs with the observed nodes and attributes,
            :class:`~ergmfit.network.Network` objects, or an ``(n, p)``
            array of statistics (columns as :attr:`labels`).
        proposal : {"auto", "tnt", "triadic", "random", "lifted-tnt", "lifted-triadic"}
            Tie/no-tie (good for sparse networks), tie/no-tie with triadic
            closure moves (mixes much faster for triangle-type terms),
            random toggles, or the lifted (non-reversible) forms of the
            first two, which keep adding (or removing) ties until a
            proposal is rejected; "auto" picks "lifted-triadic" for models
            with triangle-type terms and "lifted-tnt" otherwise.
        random_state : int, Generator or None
        start : array of ties, optional
            Start here instead of the observed network.

        Examples
        --------
        >>> import networkx as nx
        >>> m = ERGM(nx.empty_graph(10), "edges")
        >>> S = m.simulate([0.0], n=5, output="stats", random_state=1)
        >>> S.shape
        (5, 1)
        """
        if output not in ("graphs", "networks", "stats"):
            raise ValueError(f"output must be 'graphs', 'networks' or 'stats', got {output!r}")
        n, burnin, interval = int(n), int(burnin), int(interval)
        if n < 0 or burnin < 0 or interval < 1:
            raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
        theta = self.eta(params)       # the sampler runs on the natural parameters
        sampler, cm = self.sampler(params, proposal, random_state, start)
        g0 = self.statistics_vector(start)
        if output == "stats":
            return g0 + sampler.sample(theta, n, burnin, interval)
        sampler.run(theta, burnin)
        nets = []
        for _ in range(n):
            sampler.run(theta, interval)
            nets.append(self.network.with_ties(cm.state.ties()))
        if output == "networks":
            return nets
        return [net.to_networkx() for net in nets]

    def fit(self, method="mcmle", random_state=None, verbose=False, **kwargs):
        """Fit the model; returns an :class:`~ergmfit.results.ERGMResults`.

        Parameters
        ----------
        method : {"mple", "mcmle", "cd", "ee", "bcd", "mcle"}
            The estimator (see :mod:`ergmfit.estimation`).
        random_state : int, Generator or None
            Seed of every random choice the estimator makes.
        verbose : bool
            Show progress.
        **kwargs
            Settings of the estimator.
        """
        from .estimation import fit as _fit
        return _fit(self, method, random_state=random_state, verbose=verbose, **kwargs)

    def gof(self, params, n_sim=100, random_state=None, **kwargs):
        """Goodness of fit of ``params`` for this model (see :func:`ergmfit.gof.gof`)."""
        from .gof import gof as _gof
        return _gof(self, params, n_sim=n_sim, random_state=random_state, **kwargs)

    def __reduce__(self):
        # kernels are compiled objects: rebuild from the network and the formula
        return (_rebuild, (self.network, self.formula))

    def __repr__(self):
        return f"ERGM({self.network!r}, {self.formula!r})"


def _term_text(term):
    args = ", ".join(f"{k}={v!r}" for k, v in term.args.items())
    return f"{term.name}({args})" if args else term.name


def _rebuild(network, formula):
    return ERGM(network, formula)
