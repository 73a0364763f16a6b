"""Goodness of fit: observed versus simulated network summaries, as statnet's ``gof``.

A fitted (or any) model is simulated ``n_sim`` times; for every simulated
network and for the observed one we compute

* ``degree`` (undirected) -- the degree distribution: how many nodes have
  degree 0, 1, ..., n-1; for directed networks ``idegree`` / ``odegree``,
  the in- and out-degree distributions; for two-mode networks ``b1degree`` /
  ``b2degree``, the degree distributions of the mode-1 nodes (degree 0..n2) and of
  the mode-2 nodes (0..n1), statnet's ``b1degree``/``b2degree`` gof terms;
* ``espartners`` -- the edgewise shared partner distribution: how many ties
  have 0, 1, ..., n-2 shared partners.  Undirected: the shared partners of
  the tie {i, j} are the common neighbours of i and j.  Directed: statnet's
  default "OTP" (outgoing two-path, "transitive") partners -- k is a shared
  partner of the tie i->j iff i->k->j;
* ``dspartners`` -- the same over *all* dyads (unordered pairs if
  undirected, ordered pairs i != j if directed), tie or not;
* ``distance`` -- the minimum geodesic distance distribution: how many
  dyads are at distance 1, 2, ..., n-1, and how many are unreachable
  (``Inf``).  Undirected: unordered pairs; directed: ordered pairs with
  *directed* geodesics (a path i->...->j), so (i, j) and (j, i) may differ;
* ``model`` -- the model's own statistics.

(These are the definitions of ergm 4.4.0's ``gof``: its ``espartners`` and
``dspartners`` are the ``esp``/``dsp`` terms, whose directed default type is
OTP; its ``distance`` uses directed geodesics on a directed network and
counts each unordered pair once on an undirected one.)

Two-mode networks: statnet's default is ``b1degree + b2degree + espartners +
distance + model`` (ergm 4.4.0's test of the bipartite defaults; later versions
put ``dspartners`` for ``espartners``, which is 0 for every tie of a two-mode
network), and so is ours.  The other summaries read the network as a graph on all
its nodes, as ergm's ``ergm.geodistdist`` does (it counts "pairs" of the n nodes,
n - 1 lengths and Inf, with no two-mode case): ``distance`` counts every pair of
nodes, those within a mode too (at an even distance, or unreachable);
``dspartners`` every pair (shared partners exist within a mode only; ergm's ``dsp``
help says "dyads in the network" without a two-mode case, so whether its count of
0 partners on a bipartite network runs over all pairs is not documented -- ours
does); ``degree`` (still allowed) every node.  The count family's graph summaries of the nonzero
ties follow the same conventions; its ``value`` distribution counts the dyads
between the modes only (the dyads that may vary).

For each row the table gives the observed value, the minimum, mean and
maximum over the simulated networks, and statnet's Monte Carlo p-value::

    p = min(1, 2 * min(P(sim <= obs), P(sim >= obs)))

where P is the fraction of the *simulated* networks only (the observed
network is not counted in; with 100 simulations the p-values are multiples of
0.02, as in statnet's printed output).  Model statistics that are not whole
numbers are compared with a relative tolerance of 1e-9, so that a simulated
value equal to the observed one up to rounding counts as equal.

Rows after the last informative one (the last whose observed or any
simulated count is non-zero) are dropped; the distance block always ends
with its ``Inf`` row.

Simulation: one Metropolis-Hastings chain started at the observed network,
``burnin`` proposals, then one network every ``interval`` proposals (statnet's
defaults when the fit gives none: interval 1024, burn-in 16 x 1024).

Cost: degrees are O(n + m) per network; shared partners one sparse product
A @ A (O(sum of squared degrees)); geodesics a breadth-first search from every
node: O(n * m) per network.  Within each large connected component the search
runs from a block of sources at once, one sparse-times-dense product per
level; small components and long thin ones use ``scipy.sparse.csgraph``.
Measured: about 1 ms per network for ~200 nodes, 0.1 s for 2000 nodes and
4000 ties, 1 s for 5000 nodes and 10^4 ties, growing as n^2 beyond; memory
stays near 4 million matrix entries per block.  For networks beyond a few
thousand nodes leave ``distance`` out (``statistics="degree + espartners +
model"``).

>>> import ergmfit as ef
>>> m = ef.ERGM("flomarriage", "edges + triangle")
>>> res = gof(m, [-1.6766, 0.1609], n_sim=20, random_state=1)
>>> list(res.blocks)
['degree', 'espartners', 'distance', 'model']
>>> print(res)                                    # doctest: +SKIP
Goodness-of-fit for degree
...
"""
from __future__ import annotations

import math
import time
import warnings

import numpy as np

from .exceptions import FormulaError, SettingsError
from .gofgraph import (GraphSummaries, ValuedGraphSummaries,  # re-exported
                       degree_distribution, dsp_distribution, esp_distribution,
                       geodesic_distribution)
from .labeled import make_unique
from .sampling.multichain import chain_plan, run_summary_chains
from .utils.validation import checks_arguments

__all__ = ["gof", "GofResult", "GofBlock", "GofSummary", "GraphSummaries", "mc_pvalues",
           "gof_block", "mcmc_settings",
           "parse_gof_statistics", "degree_distribution", "esp_distribution",
           "dsp_distribution", "geodesic_distribution", "DEFAULT_BURNIN", "DEFAULT_INTERVAL"]

#: statnet's defaults when the fit has no MCMC settings of its own
DEFAULT_INTERVAL = 1024
DEFAULT_BURNIN = 16 * 1024

#: the summaries gof knows, in statnet's names
GOF_STATISTICS = ("degree", "idegree", "odegree", "b1degree", "b2degree", "espartners",
                  "dspartners", "distance", "model")

_ALIASES = {"deg": "degree", "ideg": "idegree", "odeg": "odegree", "indegree": "idegree",
            "outdegree": "odegree", "espart": "espartners", "esp": "espartners",
            "dspart": "dspartners", "dsp": "dspartners", "dist": "distance",
            "geodesic": "distance"}

#: block headers: "Goodness-of-fit for <title>"
TITLES = {"degree": "degree", "idegree": "in-degree", "odegree": "out-degree",
          "b1degree": "mode-1 degree", "b2degree": "mode-2 degree",
          "espartners": "edgewise shared partner", "dspartners": "dyadwise shared partner",
          "distance": "minimum geodesic distance", "model": "model statistics",
          "value": "dyad value"}

#: row-label prefixes (statnet's)
_PREFIX = {"degree": "degree", "idegree": "idegree", "odegree": "odegree",
           "b1degree": "b1degree", "b2degree": "b2degree",
           "espartners": "esp", "dspartners": "dsp", "value": "value"}


class GofTable:
    """What gof compares for a model family: the summaries it knows, its defaults
    (undirected, directed) and how one network's summaries are computed
    (``summaries(model)`` gives a callable ``(n, state, directed)`` whose result has
    ``compute(name)``; ``state`` is what ``model.chain_end`` returns).

    * binary ties: statnet's ``gof`` (degree, shared partners, distance, model);
    * count-valued dyads: the distribution of the dyad values (``value``) and the
      same graph summaries of the *nonzero* ties, with the model statistics.

    ``two_mode``: the defaults on a two-mode network (statnet's: the degrees by mode
    for ``degree``)."""

    def __init__(self, names, undirected, directed, summaries, two_mode=None):
        self.names, self.undirected, self.directed = tuple(names), undirected, directed
        self.summaries = summaries
        self.two_mode = undirected if two_mode is None else two_mode

    def defaults(self, directed, bipartite=False) -> list:
        return list(self.directed if directed else self.two_mode if bipartite
                    else self.undirected)


def _valued_summaries(model):
    """The count family's summaries, the value distribution up to the reference's
    largest value (unbounded: max(2 y_max, y_max + 10), the last row "or more")."""
    import functools
    ref = model.reference
    values = model.chain_end(model.compiled())[1]
    ymax = int(values.max()) if len(values) else 0
    top = int(ref.hi) if ref.hi is not None else max(2 * ymax, ymax + 10)
    # the zeros are counted over the dyads that may vary (a two-mode network's between modes)
    return functools.partial(ValuedGraphSummaries, max_value=top,
                             n_dyads=int(model.sample_space.n_free),
                             bipartite=model.network.bipartite)


def _binary_summaries(model):
    """The binary family's summaries (a two-mode network's degrees by mode need n1)."""
    import functools
    return functools.partial(GraphSummaries, bipartite=model.network.bipartite)


#: the gof table of each model family (``model.family.name``)
GOF_TABLES = {
    "binary": GofTable(GOF_STATISTICS, ("degree", "espartners", "distance", "model"),
                       ("idegree", "odegree", "espartners", "distance", "model"),
                       _binary_summaries,
                       ("b1degree", "b2degree", "espartners", "distance", "model")),
    "count": GofTable(("value",) + GOF_STATISTICS, ("value", "degree", "espartners", "model"),
                      ("value", "idegree", "odegree", "espartners", "model"),
                      _valued_summaries,
                      ("value", "b1degree", "b2degree", "espartners", "model")),
}

COLUMNS = ("obs", "min", "mean", "max", "MC p-value")


# ---------------------------------------------------------------------------
# p-values and tables
# ---------------------------------------------------------------------------
def mc_pvalues(obs, sim, rtol=1e-9) -> np.ndarray:
    """statnet's Monte Carlo p-values, one per column of ``sim``.

    ``p = min(1, 2 * min(mean(sim <= obs), mean(sim >= obs)))`` over the
    simulated values only; values within ``rtol`` (relative to
    max(1, |obs|)) of ``obs`` count as equal.

    >>> mc_pvalues([3], [[1], [2], [3], [4], [5]]).tolist()
    [1.0]
    >>> mc_pvalues([5], [[1], [2], [3], [4], [5]]).tolist()
    [0.4]
    """
    obs = np.asarray(obs, dtype=float).ravel()
    sim = np.asarray(sim, dtype=float).reshape(-1, obs.size)
    if sim.shape[0] == 0:
        return np.full(obs.size, np.nan)
    tol = rtol * np.maximum(1.0, np.abs(obs))
    diff = sim - obs
    lo = np.mean(diff <= tol, axis=0)
    hi = np.mean(diff >= -tol, axis=0)
    return np.minimum(1.0, 2.0 * np.minimum(lo, hi))


def _row_labels(name, size, open_end=False):
    if name == "distance":
        return [str(d) for d in range(1, size)] + ["Inf"]
    if open_end:        # the last row counts that value or more
        return [f"{_PREFIX[name]}{k}" for k in range(size - 1)] + [f"{_PREFIX[name]}{size - 1}+"]
    return [f"{_PREFIX[name]}{k}" for k in range(size)]


def _trim(name, labels, obs, sim):
    """Drop the rows after the last informative one (distance keeps its Inf row)."""
    if name == "model":
        return labels, obs, sim
    informative = (obs != 0) | np.any(sim != 0, axis=0)
    if name == "distance":
        body = informative[:-1]
        last = int(np.flatnonzero(body)[-1]) + 1 if body.any() else 0
        keep = list(range(last)) + [len(labels) - 1]
    else:
        last = int(np.flatnonzero(informative)[-1]) + 1 if informative.any() else 1
        keep = list(range(last))
    return [labels[k] for k in keep], obs[keep], sim[:, keep]


def _r_column(values, digits=7):
    """A numeric column as R prints a matrix column: common decimals, enough for
    ``digits`` significant digits of every value."""
    vals = [float(v) for v in values]
    dec = 0
    for v in vals:
        if math.isfinite(v) and v != 0:
            mant, exp = f"{abs(v):.{digits - 1}e}".split("e")
            sig = len(mant.replace(".", "").rstrip("0")) or 1
            dec = max(dec, sig - 1 - int(exp))
    dec = min(max(dec, 0), 15)
    out = []
    for v in vals:
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        else:
            s = f"{v:.{dec}f}"
            out.append("0" + s[2:] if s.startswith("-0") and float(s) == 0 else s)
    return out


def _r_matrix(row_labels, headers, columns):
    """Lines of an R-printed numeric matrix (row names left, columns right-aligned)."""
    w0 = max([len(r) for r in row_labels] + [0])
    widths = [max([len(h)] + [len(s) for s in col]) for h, col in zip(headers, columns)]
    lines = [" " * w0 + "".join(" " + h.rjust(w) for h, w in zip(headers, widths))]
    for k, lab in enumerate(row_labels):
        lines.append(lab.ljust(w0) + "".join(" " + col[k].rjust(w)
                                             for col, w in zip(columns, widths)))
    return lines


class GofBlock:
    """One group of gof statistics: its rows, observed values and simulations.

    Attributes
    ----------
    name : str
        ``degree``, ``idegree``, ``odegree``, ``espartners``, ``dspartners``,
        ``distance`` or ``model``.
    title : str
        As in the header "Goodness-of-fit for <title>".
    labels : list of str
        Row labels (``degree0``, ``esp3``, ``2``, ``Inf``, ``edges``, ...).
    obs : ndarray (k,)
    sim : ndarray (n_sim, k)
        One row per simulated network.
    min, mean, max, pvalue : ndarray (k,)
    """

    def __init__(self, name, labels, obs, sim):
        self.name = name
        self.title = TITLES[name]
        self.labels = [str(lab) for lab in labels]
        self.obs = np.asarray(obs, dtype=float).ravel()
        self.sim = np.asarray(sim, dtype=float).reshape(-1, self.obs.size)
        if len(self.labels) != self.obs.size:
            raise ValueError("one label per row is needed")
        self.pvalue = mc_pvalues(self.obs, self.sim)

    @property
    def n_sim(self) -> int:
        return self.sim.shape[0]

    @property
    def min(self) -> np.ndarray:
        return self.sim.min(axis=0) if self.n_sim else np.full(self.obs.size, np.nan)

    @property
    def max(self) -> np.ndarray:
        return self.sim.max(axis=0) if self.n_sim else np.full(self.obs.size, np.nan)

    @property
    def mean(self) -> np.ndarray:
        return self.sim.mean(axis=0) if self.n_sim else np.full(self.obs.size, np.nan)

    def __len__(self):
        return len(self.labels)

    def table(self) -> np.ndarray:
        """The (k, 5) table: obs, min, mean, max, MC p-value."""
        return np.column_stack([self.obs, self.min, self.mean, self.max, self.pvalue])

    def rows(self) -> list:
        """``[(label, obs, min, mean, max, p), ...]``."""
        return [(lab, *map(float, row)) for lab, row in zip(self.labels, self.table())]

    def text(self) -> str:
        """The block as statnet prints it (header line, blank line, table)."""
        cols = [_r_column(c) for c in self.table().T]
        lines = [f"Goodness-of-fit for {self.title} ", ""]
        lines += _r_matrix(self.labels, COLUMNS, cols)
        return "\n".join(lines)

    def to_dict(self, include_sim=True) -> dict:
        d = {"title": self.title, "rows": list(self.labels),
             "obs": _clean(self.obs), "min": _clean(self.min), "mean": _clean(self.mean),
             "max": _clean(self.max), "pvalue": _clean(self.pvalue)}
        if include_sim:
            d["sim"] = [_clean(r) for r in self.sim]
        return d

    def to_frame(self):
        """A pandas DataFrame indexed by row label (needs pandas)."""
        import pandas as pd
        return pd.DataFrame(self.table(), index=pd.Index(self.labels, name=self.name),
                            columns=list(COLUMNS))

    def __repr__(self):
        return f"<GofBlock {self.name}: {len(self)} rows, {self.n_sim} simulations>"


def gof_block(name, obs, sim, labels=None, open_end=False) -> "GofBlock":
    """The :class:`GofBlock` of the summary ``name`` (``degree``, ``espartners``, ...,
    ``model`` with its ``labels``): statnet's row labels, rows after the last informative
    one dropped; ``open_end``: the last row counts that value or more."""
    if labels is None:
        labels = _row_labels(name, np.asarray(obs).size, open_end=open_end)
    labels, o, sm = _trim(name, labels, np.asarray(obs), np.asarray(sim))
    return GofBlock(name, labels, o, sm)


def _clean(arr):
    """A JSON-ready list: whole floats as ints, non-finite as None."""
    out = []
    for v in np.asarray(arr, dtype=float).tolist():
        if not math.isfinite(v):
            out.append(None)
        elif v.is_integer() and abs(v) < 2 ** 53:
            out.append(int(v))
        else:
            out.append(v)
    return out


class GofSummary:
    """statnet's printed ``gof`` layout; ``str()`` gives the text."""

    def __init__(self, result):
        self.result = result

    def as_text(self) -> str:
        return "\n\n".join(b.text() for b in self.result.blocks.values())

    def __str__(self):
        return self.as_text()

    def __repr__(self):
        return self.as_text()

    def _repr_html_(self):
        import html
        return f"<pre>{html.escape(self.as_text())}</pre>"


class GofResult:
    """The outcome of :func:`gof`: one :class:`GofBlock` per group of statistics.

    Attributes
    ----------
    blocks : dict of str -> GofBlock
        In the order asked for (statnet's default: degree or in/out-degree,
        espartners, distance, model).  ``res["degree"]`` is ``res.blocks["degree"]``.
    n_sim, burnin, interval : int
    params : dict
        The parameters simulated from, ``{label: value}`` (a repeated label's later
        copies keyed ``label.1``, ... as in :attr:`pvalues`).
    formula : str
    directed : bool
    n_nodes : int
    acceptance_rate : float
    seconds : float
    interrupted : bool
        True when a Ctrl-C cut the simulation short (``n_sim`` then counts
        the networks finished).
    """

    interrupted = False

    def __init__(self, blocks, *, n_sim, burnin, interval, params, formula, directed,
                 n_nodes, acceptance_rate=float("nan"), seconds=0.0, proposal="auto"):
        self.blocks = {b.name: b for b in blocks}
        self.n_sim = int(n_sim)
        self.burnin = int(burnin)
        self.interval = int(interval)
        self.params = dict(params)
        self.formula = formula
        self.directed = bool(directed)
        self.n_nodes = int(n_nodes)
        self.acceptance_rate = float(acceptance_rate)
        self.seconds = float(seconds)
        self.proposal = proposal

    def __getitem__(self, name) -> GofBlock:
        name = _ALIASES.get(name, name)
        try:
            return self.blocks[name]
        except KeyError:
            raise KeyError(f"no gof block {name!r}; blocks are {list(self.blocks)}") from None

    def __iter__(self):
        return iter(self.blocks.values())

    def __contains__(self, name):
        return _ALIASES.get(name, name) in self.blocks

    @property
    def pvalues(self) -> dict:
        """``{block: {row label: MC p-value}}``.  A model statistic whose name repeats
        (statnet allows it) keeps every row: the later copies are keyed ``name.1``,
        ``name.2``, ... (R's ``make.unique``, as :meth:`ERGM.statistics`)."""
        return {name: dict(zip(make_unique(b.labels), b.pvalue.tolist()))
                for name, b in self.blocks.items()}

    def summary(self) -> GofSummary:
        return GofSummary(self)

    def __str__(self):
        return str(self.summary())

    def __repr__(self):
        return (f"<GofResult {self.formula!r}: blocks {list(self.blocks)}, "
                f"{self.n_sim} simulations>")

    def _repr_html_(self):
        """The notebook's display: one table per block (statnet's columns), Monte Carlo
        p-values below 0.05 in red."""
        import html

        from .results.htmltable import html_table
        head = (f"<p><b>Goodness of fit</b> of <code>{html.escape(str(self.formula))}</code>: "
                f"{self.n_sim} simulated networks"
                + (" (<b>interrupted</b>: fewer than asked)" if self.interrupted else "")
                + "</p>")
        tables = [html_table(COLUMNS, [(lab, row) for lab, row in zip(b.labels, b.table())],
                             index_name=b.name, caption=f"Goodness-of-fit for {b.title}",
                             flag=lambda col, v: col == "MC p-value" and v < 0.05)
                  for b in self.blocks.values()]
        return head + "\n".join(tables)

    def to_dict(self, include_sim=True) -> dict:
        """JSON-ready: settings and, per block, rows, obs, min, mean, max, pvalue (and sim)."""
        return {"model": self.formula, "n_nodes": self.n_nodes, "directed": self.directed,
                "params": {k: float(v) for k, v in self.params.items()},
                "n_sim": self.n_sim, "burnin": self.burnin, "interval": self.interval,
                "proposal": self.proposal,
                "acceptance_rate": (self.acceptance_rate
                                    if math.isfinite(self.acceptance_rate) else None),
                "seconds": self.seconds,
                "blocks": {name: b.to_dict(include_sim) for name, b in self.blocks.items()}}

    def to_frame(self):
        """One pandas DataFrame: columns block, statistic, obs, min, mean, max, MC p-value."""
        import pandas as pd
        frames = []
        for name, b in self.blocks.items():
            f = b.to_frame().reset_index().rename(columns={name: "statistic"})
            f.insert(0, "block", name)
            frames.append(f)
        return pd.concat(frames, ignore_index=True)

    def plot(self, path=None, **kwargs):
        """statnet's gof figure (needs matplotlib); see :func:`ergmfit.plotting.plot_gof`."""
        from .plotting import plot_gof
        return plot_gof(self, path=path, **kwargs)


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
def parse_gof_statistics(statistics, directed, table=None, bipartite=False) -> list:
    """The gof groups to compute, statnet's names, in order.

    ``statistics``: None (statnet's default: ``degree + espartners + distance
    + model``, directed ``idegree + odegree + espartners + distance + model``,
    two-mode ``b1degree + b2degree + espartners + distance + model``),
    a string like ``"~ degree + dspartners + model"``, or a list of names.
    ``table``: the family's :class:`GofTable` (default the binary one);
    ``bipartite``: the network is two-mode (``b1degree``/``b2degree`` need one).

    >>> parse_gof_statistics(None, False, bipartite=True)
    ['b1degree', 'b2degree', 'espartners', 'distance', 'model']
    """
    table = GOF_TABLES["binary"] if table is None else table
    if statistics is None:
        return table.defaults(directed, bipartite)
    if isinstance(statistics, str):
        text = statistics.strip()
        if text.startswith("~"):
            text = text[1:]
        items = [s.strip() for s in text.split("+")]
    else:
        items = [str(s).strip() for s in statistics]
    names = []
    for item in items:
        if not item:
            raise FormulaError(f"gof statistics {statistics!r}: an empty name; write them as "
                               "\"degree + espartners + distance + model\"")
        name = _ALIASES.get(item.lower(), item.lower())
        if name not in table.names:
            raise FormulaError(f"unknown gof statistic {item!r}; choose from "
                               f"{', '.join(table.names)}")
        if directed and name == "degree":
            raise FormulaError("gof statistic 'degree' is for undirected networks; "
                               "use 'idegree' and/or 'odegree' for a directed network")
        if not directed and name in ("idegree", "odegree"):
            raise FormulaError(f"gof statistic {name!r} is for directed networks; "
                               "use 'degree' for an undirected network")
        if not bipartite and name in ("b1degree", "b2degree"):
            raise FormulaError(f"gof statistic {name!r} is for two-mode (bipartite) "
                               "networks; use 'degree' for a one-mode network")
        if name not in names:
            names.append(name)
    return names


def mcmc_settings(burnin, interval, mcmc):
    """(burnin, interval): the arguments, else ``mcmc``'s (a fit's MCMC settings), else
    statnet's defaults (interval 1024, burn-in 16 x interval)."""
    mcmc = dict(mcmc or {})

    def pick(value, *keys):
        if value is not None:
            return value
        for k in keys:
            if mcmc.get(k) is not None:
                return mcmc[k]
        return None

    interval = pick(interval, "interval", "MCMC.interval", "mcmc_interval")
    burnin = pick(burnin, "burnin", "MCMC.burnin", "mcmc_burnin")
    interval = DEFAULT_INTERVAL if interval is None else int(interval)
    burnin = 16 * interval if burnin is None else int(burnin)   # statnet: MCMC.interval * 16
    if interval < 1 or burnin < 0:
        raise ValueError(f"need interval >= 1 and burnin >= 0, got interval={interval}, "
                         f"burnin={burnin}")
    return burnin, interval


@checks_arguments
def gof(model, params=None, n_sim=100, burnin=None, interval=None, statistics=None,
        random_state=None, verbose=False, mcmc=None, proposal="auto", n_chains=1, n_jobs=1,
        backend=None) -> GofResult:
    """Goodness of fit of ``model`` at ``params``, as statnet's ``gof``.

    Parameters
    ----------
    model : ERGM or ERGMResults
        The model (network + formula).  A results object may be passed
        instead, with ``params=None``: its model, parameters and MCMC
        settings (``info["mcmc"]``) are used.
    params : sequence or dict
        One value per statistic, in ``model.labels`` order (or ``{label: value}``);
        or an ``(n_sim, p)`` array, one row per simulated network (a
        posterior predictive check: network s is simulated at row s).
    n_sim : int
        Number of simulated networks (statnet's default 100).
    burnin, interval : int, optional
        MCMC proposals before the first network and between networks.  Default:
        taken from ``mcmc``; otherwise interval 1024 and burn-in 16 x interval.
    statistics : str or list, optional
        Which groups: ``degree`` (undirected), ``idegree``, ``odegree``
        (directed), ``b1degree``, ``b2degree`` (two-mode), ``espartners``,
        ``dspartners``, ``distance``, ``model``.
        Default: statnet's (see :func:`parse_gof_statistics`).
    random_state : int, Generator or None
        The same seed gives the same result (whatever ``n_jobs``).
    verbose : bool
        Progress on standard error.
    mcmc : dict, optional
        MCMC settings of a fit, ``{"burnin": B, "interval": I}`` (statnet's
        ``MCMC.burnin``/``MCMC.interval`` are accepted too).
    proposal : str
        MCMC proposal, as in :meth:`ERGM.simulate` ("auto" by default).
    n_chains : int
        Independent chains (each with its own burn-in) that share the
        ``n_sim`` networks, in order; the result depends on ``n_chains`` and
        the seed, not on ``n_jobs``.  One chain gives the networks a single
        chain always gave.
    n_jobs : int
        Processes (or dask workers) running the chains at once
        (:func:`ergmfit.runtime.parallel.parallel_map`; -1: every core).
    backend : str, optional
        joblib backend: "loky" (default), "threading", "multiprocessing" or
        "dask" (within a ``dask.distributed.Client``).

    With missing dyads the observed summaries are, as statnet's ``gof``, the
    means over ``n_sim`` networks drawn with only the missing dyads varying
    (given the observed ones, at the same parameters): an imputation average
    instead of the network with its missing dyads empty.

    Returns
    -------
    GofResult
        ``print(res)`` shows statnet's tables; ``res.plot("gof.png")`` its figure.
    """
    if params is None:
        fit = model
        if not hasattr(fit, "params"):
            raise ValueError("gof needs params (one value per statistic) for a model")
        params = fit.params
        if mcmc is None:
            mcmc = (getattr(fit, "info", None) or {}).get("mcmc")
        model = fit.rebuild_model() if hasattr(fit, "rebuild_model") else fit.model
    from .utils.validation import check_params
    rows = None
    if not isinstance(params, dict) and np.ndim(params) == 2:   # posterior predictive: one
        rows = np.asarray(params, dtype=float)                  # parameter row per network
        params, n_sim = rows.mean(axis=0), len(rows)
    theta = check_params(getattr(model, "_finite_offsets", lambda x: x)(params), model.labels)
    eta = model.eta(theta) if hasattr(model, "eta") else theta
    eta_rows = None if rows is None else np.array([model.eta(r) for r in rows])
    for name, value in (("n_sim", n_sim), ("n_chains", n_chains)):
        # int() cut 2.5 to 2 and said "invalid literal for int()" of a text
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, np.integer, float, np.floating)) or not float(value).is_integer():
            raise SettingsError(f"gof: {name} must be a whole number, got {value!r}")
        if value < 1:
            raise SettingsError(f"gof: {name} must be at least 1, got {int(value)}")
    n_sim, n_chains = int(n_sim), int(n_chains)
    burnin, interval = mcmc_settings(burnin, interval, mcmc)
    net = model.network
    table = GOF_TABLES[model.family.name]
    summaries = table.summaries(model)
    names = parse_gof_statistics(statistics, net.directed, table,
                                 getattr(net, "bipartite", None) is not None)
    if "model" in names and not model.labels:
        names.remove("model")
    # each simulated network keeps a row of at most n values per graph statistic (degree,
    # shared partners, distances, ...) and p model statistics
    from .utils.validation import check_simulation_work
    values = len(model.labels) * ("model" in names) + net.n * sum(nm != "model"
                                                                  for nm in names)
    check_simulation_work(n_sim, burnin, interval, 8.0 * values,
                          f"{values:,} summary values x 8 bytes", "gof")
    graph_names = [nm for nm in names if nm != "model"]
    want_model = "model" in names

    t0 = time.perf_counter()
    states, sizes, rng = chain_plan(random_state, n_sim, n_chains)
    sims, acceptance, interrupted = run_summary_chains(
        model, theta, eta, eta_rows, states, sizes, burnin, interval, summaries,
        graph_names, want_model, False, proposal, n_jobs, backend, verbose, t0)
    if interrupted:
        done = len(next(iter(sims.values()))) if sims else 0
        warnings.warn(f"gof was interrupted (Ctrl-C) after {done} of {n_sim} simulated networks: "
                      f"the tables compare the observed network with those {done}",
                      RuntimeWarning, stacklevel=2)
        n_sim = done
    space = getattr(model, "sample_space", None)
    obs = None
    if space is not None and space.n_missing:
        # statnet: the observed summaries average over draws of the missing dyads
        try:
            if interrupted:
                raise KeyboardInterrupt
            cstates = [np.random.default_rng(int(w)) for w in rng.integers(0, 2**63, n_chains)]
            cond, _, cut = run_summary_chains(model, theta, eta, eta_rows, cstates, sizes,
                                              burnin, interval, summaries, graph_names,
                                              want_model, True, proposal, n_jobs, backend,
                                              verbose, t0)
            obs = {nm: cond[nm].mean(axis=0) for nm in cond}
            if cut:
                warnings.warn(f"gof was interrupted (Ctrl-C) while imputing the missing dyads: the "
                              f"observed summaries average {len(next(iter(cond.values())))} "
                              f"imputations, not {n_sim}", RuntimeWarning, stacklevel=2)
        except KeyboardInterrupt:
            interrupted = True
            warnings.warn("gof was interrupted (Ctrl-C) before the missing dyads were imputed: "
                          "the observed summaries are those of the network with its missing "
                          "dyads empty", RuntimeWarning, stacklevel=2)
    if obs is None:
        obs_s = summaries(net.n, model.chain_end(model.compiled()), net.directed)
        obs = {nm: obs_s.compute(nm) for nm in graph_names}
        if want_model:
            obs["model"] = model.statistics_vector()

    blocks = [gof_block(nm, obs[nm], sims[nm],
                        list(getattr(model, "stat_labels", model.labels)) if nm == "model"
                        else None,
                        open_end=(nm == "value" and getattr(model, "reference", None) is not None
                                  and model.reference.hi is None)) for nm in names]
    res = GofResult(blocks, n_sim=n_sim, burnin=burnin, interval=interval,
                     params=dict(zip(make_unique(model.labels), theta.tolist())), formula=model.formula,
                     directed=net.directed, n_nodes=net.n,
                     acceptance_rate=acceptance,
                     seconds=time.perf_counter() - t0, proposal=proposal)
    res.interrupted = interrupted
    return res
