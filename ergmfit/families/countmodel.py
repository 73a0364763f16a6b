"""The model of the count family: a valued network, a valued formula and a reference.

``ergmfit.ERGM(g, formula, response=..., reference=...)`` returns a
:class:`CountERGM` (statnet's ``ergm(y ~ ..., response=, reference=~...)``).
"""
from __future__ import annotations

import numpy as np

from ..exceptions import ErgmfitError, FormulaError, NetworkError, SettingsError
from ..formula import parse_formula
from ..network import as_network
from ..network.network import Network
from ..network._countstate import CountState
from ..terms._countergm import CountERGMModel
from ..terms.registry import COUNT_STATE, build_term
from ..runtime import ctrl_c_flag
from ..utils.validation import check_params, seed_words, warn
from .count import CountFamily


class CountERGM:
    """A count-valued ERGM: the integer edge attribute ``response`` of a network,
    a formula of valued terms and a reference measure.

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

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> g = nx.DiGraph()
    >>> g.add_edge(0, 1, weight=2); g.add_edge(1, 0, weight=3); g.add_edge(1, 2, weight=1)
    >>> m = ef.ERGM(g, "sum + nonzero + mutual(form='min')", response="weight",
    ...             reference="Poisson")
    >>> m.statistics()
    {'sum': 6.0, 'nonzero': 3.0, 'mutual.min': 2.0}
    >>> m.simulate([0.0, 0.0, 0.0], n=3, output="stats", random_state=1).shape
    (3, 3)
    """

    def __init__(self, network, formula, response=None, reference="Poisson", directed=None,
                 **binary_only):
        given = [k for k, v in binary_only.items()
                 if k in ("weights", "constraints", "missing") and v not in (None, "error")]
        unknown = [k for k in binary_only if k not in ("weights", "constraints", "missing")]
        if unknown:
            raise SettingsError(f"ERGM() got unknown argument(s) {unknown}")
        if given:
            raise SettingsError(f"{', '.join(given)}= not available for count-valued models yet "
                                f"(response={response!r}, reference={reference!r})")
        if response is None:
            raise NetworkError("a count-valued model needs response=: the name of the edge "
                               "attribute holding the counts")
        if not isinstance(response, str):
            raise NetworkError(f"response must be an edge attribute name, got {response!r}")
        self.family = CountFamily("Poisson" if reference is None else reference)
        self.reference = self.family.reference
        self.response = response
        self.network, self._dyads, self._values = _valued_network(network, response,
                                                                  self.reference, directed)
        if not isinstance(formula, str):
            raise FormulaError(f"formula must be a string, got {type(formula).__name__}")
        self.formula = formula
        self.terms = [build_term(self.network, c.name, c.args, c.kwargs, state=COUNT_STATE)
                      for c in parse_formula(formula)]
        for t in self.terms:
            self.family.check_kernel(t)
        self.labels = [lab for t in self.terms for lab in t.labels]
        self.stat_labels = list(self.labels)

    # -- the model's interface ------------------------------------------------
    @property
    def n_params(self) -> int:
        return len(self.labels)

    @property
    def kernels(self) -> list:
        return [t.kernel for t in self.terms]

    @property
    def dyad_independent(self) -> bool:
        return all(t.dyad_independent for t in self.terms)

    def compiled(self, dyads=None, values=None) -> CountERGMModel:
        """The compiled model on a fresh copy of the observed values (or ``dyads``/``values``)."""
        if dyads is None:
            dyads, values = self._dyads, self._values
        state = CountState(self.network.n, self.network.directed, dyads, values)
        return CountERGMModel(state, self.kernels, self.reference.compiled())

    def statistics_vector(self, dyads=None, values=None) -> np.ndarray:
        """The statistics of the observed values (or of ``dyads``/``values``), accumulated
        from change statistics on the empty network."""
        if dyads is None:
            dyads, values = self._dyads, self._values
        empty = CountERGMModel(CountState(self.network.n, self.network.directed),
                               self.kernels, self.reference.compiled())
        return empty.accumulate(np.ascontiguousarray(dyads, dtype=np.int64).reshape(-1, 2),
                                np.ascontiguousarray(values, dtype=np.int64).reshape(-1))

    def statistics(self) -> dict:
        """Observed statistics as ``{label: value}`` (statnet's labels)."""
        return dict(zip(self.labels, self.statistics_vector().tolist()))

    def sampler(self, params, proposal="auto", random_state=None):
        """A Metropolis-Hastings sampler (``CountMHSampler``) started at the observed
        values, and its compiled model."""
        check_params(params, self.labels)
        cm = self.compiled()
        sampler = self.family.make_sampler(cm, self.family.make_proposal(proposal),
                                           seed_words(random_state))
        sampler.set_guard(reference_ties=len(self._values))
        sampler.description = (f"the valued model '{self.formula}' ({self.network.n:,} nodes, "
                               f"reference {self.reference.label})")
        return sampler, cm

    def simulate(self, params, n=1, burnin=16384, interval=1024, output="graphs",
                 proposal="auto", random_state=None):
        """Draw valued networks from the model at ``params`` by Metropolis-Hastings.

        Parameters
        ----------
        params : sequence or dict
            One value per statistic, in ``labels`` order (or ``{label: value}``).
        n : int
            Number of draws.
        burnin, interval : int
            Proposals before the first draw and between draws.
        output : {"graphs", "stats"}
            networkx graphs whose edges (the nonzero dyads) carry the counts in
            the ``response`` attribute, or an ``(n, p)`` array of statistics.
        proposal : {"auto", "tnt", "random"}
            See :class:`~ergmfit.families.CountFamily`.
        random_state : int, Generator or None
        """
        if output not in ("graphs", "stats"):
            raise ValueError(f"output must be 'graphs' or 'stats', got {output!r}")
        n, burnin, interval = int(n), int(burnin), int(interval)
        if n < 0 or burnin < 0 or interval < 1:
            raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
        theta = np.asarray(check_params(params, self.labels), dtype=float)
        sampler, cm = self.sampler(theta, proposal, random_state)
        g0 = self.statistics_vector()
        rows, graphs, done = [], [], 0
        try:
            with ctrl_c_flag() as ctrl_c:
                if output == "stats":
                    step = max(1, 2 ** 20 // interval)
                    while done < n:
                        k = min(step, n - done)
                        rows.append(sampler.sample(theta, k, burnin if done == 0 else 0,
                                                   interval))
                        done += k
                        ctrl_c.check()
                else:
                    sampler.run(theta, burnin)
                    for _ in range(n):
                        sampler.run(theta, interval)
                        graphs.append(self._graph(*cm.state.nonzero()))
                        done += 1
                        ctrl_c.check()
        except KeyboardInterrupt:
            warn(f"simulate was interrupted by the user after {done} of {n} draws: only the "
                 f"{done} finished draws are returned")
        if output == "stats":
            return g0 + (np.vstack(rows) if rows else np.zeros((0, len(g0))))
        return graphs

    def _graph(self, dyads, values):
        g = self.network.with_ties(dyads).to_networkx()
        labels = self.network.labels
        for (i, j), y in zip(dyads.tolist(), values.tolist()):
            g.edges[labels[i], labels[j]][self.response] = int(y)
        return g

    def fit(self, *args, **kwargs):
        """Not available yet: count-valued estimators (MCMC-MLE, CD, count MPLE) are to come."""
        raise ErgmfitError(f"fit() is not available for count-valued models yet (family "
                           f"'{self.family.name}', reference {self.reference.label}): "
                           "statistics() and simulate() are")

    def __repr__(self):
        net = self.network
        return (f"<CountERGM '{self.formula}' on {net.n} nodes, response={self.response!r}, "
                f"reference={self.reference.label}>")


def _valued_network(network, response, reference, directed):
    """The network (nodes and attributes), its nonzero dyads and their counts."""
    import networkx as nx
    if isinstance(network, nx.Graph):
        net = Network.from_networkx(network, weights="keep")
    else:
        net = as_network(network, directed=directed)
    if response not in net.edge_attrs and net.n_ties == 0:     # no edges: every count is 0
        empty = np.zeros((0, 2), dtype=np.int64)
        if reference.lo > 0:
            raise NetworkError(f"the reference {reference.label} excludes 0, but the network "
                               "has no edges")
        return net, empty, np.zeros(0, dtype=np.int64)
    if response not in net.edge_attrs:
        have = sorted(net.edge_attrs)
        raise NetworkError(f"the network has no edge attribute {response!r} (response=); "
                           f"its edge attributes: {have if have else 'none'}")
    raw = net.edge_attrs[response]
    missing = [k for k, v in enumerate(raw) if v is None]
    if missing:
        i, j = net.ties[missing[0]]
        raise NetworkError(f"the edge ({net.labels[i]!r}, {net.labels[j]!r}) has no value of "
                           f"{response!r}: every edge of a count-valued network needs one")
    values = reference.check_values(raw, what=f"the edge attribute {response!r}")
    keep = values != 0
    n_dyads = net.n * (net.n - 1) // (1 if net.directed else 2)
    if reference.lo > 0 and int(keep.sum()) < n_dyads:
        raise NetworkError(f"the reference {reference.label} excludes 0, but "
                           f"{n_dyads - int(keep.sum())} dyad(s) have no edge (value 0)")
    dyads = np.ascontiguousarray(net.ties[keep], dtype=np.int64).reshape(-1, 2)
    return net.with_ties(dyads), dyads, np.ascontiguousarray(values[keep])
