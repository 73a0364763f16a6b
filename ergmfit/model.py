"""The user's model: a network and a formula."""
from __future__ import annotations

import numpy as np

from .exceptions import FormulaError
from .formula import parse_formula
from .network import NetworkState, as_network
from .terms.registry import build_term
from .terms._ergm import ERGMModel


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
        labels = [lab for t in self.terms for lab in t.labels]
        seen = set()
        for lab in labels:
            if lab in seen:
                raise FormulaError(f"the statistic {lab!r} appears twice in the formula; "
                                   "each term may be used once")
            seen.add(lab)
        self.labels = labels
        self._empty = (np.concatenate([t.empty for t in self.terms])
                       if self.terms else np.zeros(0))

    @property
    def n_params(self) -> int:
        return len(self.labels)

    @property
    def kernels(self) -> list:
        return [t.kernel for t in self.terms]

    @property
    def dyad_independent(self) -> bool:
        return all(t.dyad_independent for t in self.terms)

    def compiled(self, ties=None) -> ERGMModel:
        """The compiled model on a fresh copy of the observed ties (or ``ties``)."""
        state = NetworkState(self.network.n, self.network.directed,
                             self.network.ties if ties is None else ties)
        return ERGMModel(state, self.kernels)

    def statistics_vector(self, ties=None) -> np.ndarray:
        """Statistics of the observed network (or of ``ties``) in label order."""
        ties = self.network.ties if ties is None else np.asarray(ties, dtype=np.int64).reshape(-1, 2)
        empty = ERGMModel(NetworkState(self.network.n, self.network.directed), self.kernels)
        return self._empty + empty.add_ties_accumulate(np.ascontiguousarray(ties, dtype=np.int64))

    def statistics(self) -> dict:
        """Observed statistics as ``{label: value}``, with statnet's labels."""
        return dict(zip(self.labels, self.statistics_vector().tolist()))

    def __repr__(self):
        return f"ERGM({self.network!r}, {self.formula!r})"
