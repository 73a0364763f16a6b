"""Goodness of fit of an egocentric fit (ergm.ego's ``gof(fit, GOF="degree")``).

The egos' degree distribution (the weighted share of egos with degree k) beside the degree
distributions of networks simulated from the fitted model on the pseudo-population (the
share of its nodes with degree k), with ergm's Monte Carlo p-value: twice the smaller tail
share of simulated values at or beyond the observed one, capped at 1.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import SettingsError
from ..labeled import LazyPandas

pd = LazyPandas("egocentric goodness of fit")

__all__ = ["ego_degree_gof"]


def ego_degree_gof(ego_model, fit, nsim=100, max_degree=None, burnin=None, interval=None,
                   random_state=None):
    """Degree goodness of fit of ``fit`` (from ``ego_model.fit()``).

    Parameters
    ----------
    ego_model : EgoERGM
    fit : ERGMResults
        Its fit (``fit.ego_info`` present).
    nsim : int
        Networks simulated on the pseudo-population.
    max_degree : int or None
        Largest degree listed (default: the largest seen); higher degrees are pooled in the
        last row.
    burnin, interval : int or None
        Of the simulation (default 16 intervals; interval max(1024, N')).
    random_state : int, Generator or None

    Returns
    -------
    pandas.DataFrame
        One row per degree: ``obs`` (weighted share of egos), ``min``, ``mean``, ``max`` of the
        simulated shares, and ``p`` (MC p-value).

    Examples
    --------
    >>> import ergmfit as ef
    >>> ego = ef.EgoData.from_network(ef.datasets.load("faux.mesa.high"))
    >>> m = ef.ERGM(ego, "edges + nodematch('Sex')", popsize=205)
    >>> table = m.gof(m.fit(), nsim=20, random_state=1)
    >>> list(table.columns)
    ['obs', 'min', 'mean', 'max', 'p']
    """
    from ..utils.validation import check_random_state
    if getattr(fit, "ego_info", None) is None:
        raise SettingsError("gof of an egocentric fit needs the result of EgoERGM.fit()")
    if isinstance(nsim, bool) or not isinstance(nsim, (int, np.integer)) or nsim < 1:
        raise SettingsError(f"nsim must be a positive integer, not {nsim!r}")
    rng = check_random_state(random_state)
    model = ego_model.network_model()
    params = np.asarray(fit.params, dtype=float)
    if ego_model._has_edges:       # the size offset folded back into edges, as fitted
        theta = params[1:].copy()
        theta[ego_model.stat_labels.index("edges")] += ego_model.netsize_offset
    else:
        theta = params
    interval = max(1024, ego_model.ppopsize) if interval is None else int(interval)
    burnin = 16 * interval if burnin is None else int(burnin)
    start = None if model.dyad_independent else ego_model.start_ties(rng)
    nets = model.simulate(theta, n=nsim, burnin=burnin, interval=interval, output="networks",
                          random_state=rng, start=start)
    n = ego_model.ppopsize
    sim_deg = [np.bincount(np.asarray(net.ties, dtype=np.int64).ravel(), minlength=n)
               for net in nets]
    w = ego_model.ego.weights
    obs_deg = ego_model.ego.degrees
    top = int(max(obs_deg.max(), max(d.max() for d in sim_deg))) if max_degree is None \
        else int(max_degree)
    obs = np.bincount(np.minimum(obs_deg, top), weights=w, minlength=top + 1) / w.sum()
    sim = np.array([np.bincount(np.minimum(d, top), minlength=top + 1) / n for d in sim_deg])
    p = np.minimum(1.0, 2 * np.minimum((sim >= obs - 1e-12).mean(axis=0),
                                       (sim <= obs + 1e-12).mean(axis=0)))
    index = [f"degree{k}" for k in range(top)] + [f"degree{top}" + ("+" if max_degree else "")]
    return pd.DataFrame({"obs": obs, "min": sim.min(axis=0), "mean": sim.mean(axis=0),
                         "max": sim.max(axis=0), "p": p}, index=index)
