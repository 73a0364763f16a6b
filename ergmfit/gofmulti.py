"""Goodness of fit for several networks and for multilayer networks.

* :func:`gof_layers` -- a *layer-aware* gof: the degree and edgewise shared partner
  distributions of each layer (or of any logical layer: ``"advice&friendship"``,
  ``"advice|friendship"``) of an :func:`ergmfit.Layer` network, observed versus simulated,
  in the tables of :func:`ergmfit.gof.gof` (ergm.multi's ``gof`` has no per-layer
  summaries, and its ``gofN`` stops on layers: ergm.multi issue 30).
* :func:`gofN` -- per-network goodness of fit of an :func:`ergmfit.Networks` model
  (ergm.multi's ``gofN``): for every network and every statistic of a formula (default:
  the model's inner formulas), the observed value, the mean and standard deviation over
  networks simulated from the fit, and the Pearson residual (obs - mean) / sd.

Both simulate the whole model (one chain, as ``gof``) and summarise each simulated
network per layer / per network.

Examples
--------
>>> import networkx as nx
>>> import ergmfit as ef
>>> lay = ef.Layer({"a": nx.path_graph(6), "b": nx.cycle_graph(6)})
>>> m = ef.ERGM(lay, "L(~edges, ~a) + L(~edges, ~b) + L(~edges, ~a&b)")
>>> res = gof_layers(m, [-1.0, -0.5, 1.0], n_sim=10, random_state=1)
>>> list(res.blocks)[:3]
['a: degree', 'a: espartners', 'b: degree']
>>> nets = ef.Networks([nx.path_graph(5), nx.star_graph(4)])
>>> tab = gofN(ef.ERGM(nets, "N(~edges)"), [-0.7], n_sim=20, random_state=1)
>>> list(tab.table.columns)
['network', 'statistic', 'obs', 'mean', 'sd', 'pearson']
"""
from __future__ import annotations

import numpy as np

from .exceptions import ErgmfitError
from .gof import GofResult, gof_block, mcmc_settings
from .gofgraph import GraphSummaries
from .network.networks import stacked_view

__all__ = ["gof_layers", "gofN", "GofNResult"]


def _model_and_params(model, params, mcmc):
    if params is None:
        fit = model
        if not hasattr(fit, "params"):
            raise ErgmfitError("needs params (one value per statistic) for a model, or a fit")
        params = fit.params
        if mcmc is None:
            mcmc = (getattr(fit, "info", None) or {}).get("mcmc")
        model = fit.rebuild_model() if hasattr(fit, "rebuild_model") else fit.model
    return model, params, mcmc


def _simulate(model, params, n_sim, burnin, interval, mcmc, random_state):
    burnin, interval = mcmc_settings(burnin, interval, mcmc)
    nets = model.simulate(params, n=int(n_sim), burnin=burnin, interval=interval,
                          output="networks", random_state=random_state)
    return nets, burnin, interval


def _logical_ties(net, table):
    """The ties of the logical layer with truth table ``table`` (base-node indices)."""
    base_n, L = net.base_network.n, len(net.blocks)
    bits = {}
    for i, j in net.ties.tolist():
        m = i // base_n
        key = (i % base_n, j % base_n)
        bits[key] = bits.get(key, 0) | (1 << m)
    out = [k for k, b in bits.items() if table[b]]
    return np.array(sorted(out), dtype=np.int64).reshape(-1, 2)


def gof_layers(model, params=None, layers=None, n_sim=100, burnin=None, interval=None,
               statistics=("degree", "espartners"), random_state=None, mcmc=None):
    """Layer-aware goodness of fit: degree and shared-partner distributions per layer.

    Parameters
    ----------
    model : ERGM or results
        A model of an :func:`ergmfit.Layer` network (or its fit, with ``params=None``).
    params : sequence or dict, optional
        The parameters to simulate at (default: the fit's).
    layers : list of str, optional
        Layers or layer-logic expressions (``"advice&friendship"``, ``"advice|friendship"``,
        ``"advice&!friendship"``); default: every layer.
    n_sim, burnin, interval, random_state, mcmc
        As :func:`ergmfit.gof.gof` (statnet's defaults).
    statistics : sequence of str
        Among ``degree`` (``idegree`` and ``odegree`` on a directed network), ``idegree``,
        ``odegree``, ``espartners``, ``dspartners``, ``distance``.

    Returns
    -------
    GofResult
        One block per layer and statistic, named ``"<layer>: <statistic>"`` (titles
        "<statistic title> in layer <layer>"); ``print`` and ``to_frame`` as ``gof``'s.
    """
    from .terms.multinet import layer_table
    model, params, mcmc = _model_and_params(model, params, mcmc)
    net = stacked_view(model.network) or model.network
    if not hasattr(net, "layer_names"):
        raise ErgmfitError("gof_layers needs a model of a multilayer network (ef.Layer(...)); "
                           "for one network use ergmfit.gof.gof")
    layers = list(net.layer_names) if layers is None else [str(x) for x in layers]
    tables = {lay: layer_table(net, lay, "gof_layers") for lay in layers}
    names = []
    for s in statistics:
        s = {"deg": "degree", "esp": "espartners", "dsp": "dspartners"}.get(s, s)
        if s == "degree" and net.directed:
            names += ["idegree", "odegree"]
        else:
            names.append(s)
    names = list(dict.fromkeys(names))
    sims, burnin, interval = _simulate(model, params, n_sim, burnin, interval, mcmc,
                                       random_state)
    base_n, directed = net.base_network.n, net.directed

    def summaries(n):
        out = {}
        for lay, table in tables.items():
            g = GraphSummaries(base_n, _logical_ties(n, table), directed)
            for s in names:
                out[(lay, s)] = g.compute(s)
        return out

    obs = summaries(net)
    sim = [summaries(n) for n in sims]
    blocks = []
    for lay in layers:
        for s in names:
            # the same length for every network: the layer's node count
            block = gof_block(s, obs[(lay, s)], np.array([x[(lay, s)] for x in sim]))
            block.name = f"{lay}: {s}"
            block.title = f"{block.title} in layer {lay}"
            blocks.append(block)
    return GofResult(blocks, n_sim=len(sims), burnin=burnin, interval=interval,
                     params=dict(zip(model.labels, np.asarray(model.eta(params)).tolist()))
                     if not isinstance(params, dict) else dict(params),
                     formula=model.formula, directed=directed, n_nodes=base_n)


class GofNResult:
    """Per-network goodness of fit (:func:`gofN`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per network and statistic: ``network`` (its name), ``statistic``,
        ``obs``, ``mean``, ``sd`` (over the simulated networks) and ``pearson``
        ((obs - mean) / sd; NaN where sd is 0).
    sims : ndarray
        The statistics of every simulated network, shape (n_sim, n_networks, p).
    obs : ndarray
        Shape (n_networks, p).
    labels : list of str
    n_sim : int
    """

    def __init__(self, names, labels, obs, sims):
        import pandas as pd
        self.labels = list(labels)
        self.obs = np.asarray(obs, float)
        self.sims = np.asarray(sims, float)
        self.n_sim = len(self.sims)
        mean = self.sims.mean(axis=0)
        sd = self.sims.std(axis=0, ddof=1) if self.n_sim > 1 else np.zeros_like(mean)
        with np.errstate(divide="ignore", invalid="ignore"):
            res = np.where(sd > 0, (self.obs - mean) / np.where(sd > 0, sd, 1), np.nan)
        rows = [(names[b], lab, self.obs[b, k], mean[b, k], sd[b, k], res[b, k])
                for b in range(len(names)) for k, lab in enumerate(self.labels)]
        self.table = pd.DataFrame(rows, columns=["network", "statistic", "obs", "mean", "sd",
                                                 "pearson"])

    def summary(self):
        """Per statistic: the mean and variance of the Pearson residuals over the networks
        (about 0 and 1 for a model that fits) and the network with the largest |residual|."""
        t = self.table.dropna(subset=["pearson"])
        g = t.groupby("statistic", sort=False)["pearson"]
        out = g.agg(["mean", "var"]).rename(columns={"mean": "mean_pearson",
                                                     "var": "var_pearson"})
        worst = t.loc[t["pearson"].abs().groupby(t["statistic"], sort=False).idxmax()]
        out["worst_network"] = worst.set_index("statistic")["network"]
        return out

    def __repr__(self):
        return (f"<GofNResult: {self.obs.shape[0]} networks x {len(self.labels)} statistics, "
                f"{self.n_sim} simulations>")


def _inner_formula(model):
    """The model's inner formulas of N(): '~f1 + ~f2' joined, or the formula itself."""
    from .formula import parse_formula
    parts = []
    for c in parse_formula(model.formula):
        if c.name == "N" and c.args:
            parts.append(c.args[0].text)
        else:
            parts.append(None)
    if parts and all(p is not None for p in parts):
        return " + ".join(parts)
    return model.formula


def gofN(model, params=None, formula=None, n_sim=100, burnin=None, interval=None,
         random_state=None, mcmc=None):
    """Per-network goodness of fit of a model of :func:`ergmfit.Networks` (ergm.multi's
    ``gofN``): observed statistics of each network against their simulated distribution.

    Parameters
    ----------
    model : ERGM or results
        A model of several networks (or its fit, with ``params=None``).
    params : sequence or dict, optional
        The parameters to simulate at (default: the fit's).
    formula : str, optional
        The statistics to check on each network (default: the formulas inside the
        model's ``N()`` terms, or the model's formula).
    n_sim, burnin, interval, random_state, mcmc
        As :func:`ergmfit.gof.gof`.

    Returns
    -------
    GofNResult
        ``.table`` (network, statistic, obs, mean, sd, pearson) and ``.summary()``.

    References
    ----------
    Krivitsky, P. N., Coletti, P. and Hens, N. (2023). A tale of two datasets:
    representativeness and generalisability of inference for samples of networks. JASA.
    """
    from .model import ERGM
    model, params, mcmc = _model_and_params(model, params, mcmc)
    net = stacked_view(model.network) or model.network
    if not hasattr(net, "blocks"):
        raise ErgmfitError("gofN needs a model of several networks (ef.Networks([...]))")
    formula = _inner_formula(model) if formula is None else formula
    subs = [ERGM(net.block_network(b), formula) for b in range(len(net.blocks))]
    labels = subs[0].labels
    for b, s in enumerate(subs):
        if s.labels != labels:
            raise ErgmfitError(f"gofN: the formula {formula!r} gives other statistics on "
                               f"network {b + 1} ({s.labels}) than on network 1 ({labels})")
    sims, _, _ = _simulate(model, params, n_sim, burnin, interval, mcmc, random_state)

    def per_network(n):
        out = []
        for b, blk in enumerate(net.blocks):
            keep = (n.ties[:, 0] >= blk.start) & (n.ties[:, 0] < blk.stop)
            out.append(subs[b].statistics_vector(n.ties[keep] - blk.start))
        return out

    obs = per_network(net)
    return GofNResult([b.name for b in net.blocks], labels, obs,
                      [per_network(n) for n in sims])
