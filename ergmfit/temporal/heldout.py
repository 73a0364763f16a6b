"""Goodness of fit of a temporal fit on chosen waves, in or out of sample (btergm's
``gof(fit, target=..., formula=...)``).

For each target wave t, the fitted formula is rebuilt on the transition t-1 → t of a
:class:`~ergmfit.network.series.NetSeries` (its lagged terms, ``memory``, ``delrecip``,
``Form``/``Persist``..., reading wave t-1), networks are simulated at the fitted
coefficients given wave t-1, and wave t is compared with them:

* statnet's gof tables (degree, shared partners, geodesic distances, the model statistics)
  of wave t against the simulated networks (:func:`ergmfit.gof.gof`);
* tie prediction (btergm's ``rocpr``): each free dyad's predicted probability is the share
  of the simulated networks holding it, scored against wave t by the area under the ROC
  curve and under the precision-recall curve (average precision), next to a random
  predictor's (0.5, and the density of wave t).

A wave that was not fitted (say the panel's last, left out of the fit) makes this an
out-of-sample prediction check.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import SettingsError
from ..network.series import NetSeries
from ..sampling.space import dyad_vars, var_pairs
from ..utils.validation import check_random_state


def roc_auc(scores, outcomes) -> float:
    """Area under the ROC curve of ``scores`` predicting the 0/1 ``outcomes``: the
    probability that a random tie scores above a random non-tie (ties count one half);
    NaN without ties or without non-ties.

    Examples
    --------
    >>> roc_auc([0.9, 0.8, 0.3, 0.1], [1, 0, 1, 0])
    0.75
    """
    from scipy.stats import rankdata
    s = np.asarray(scores, dtype=float)
    y = np.asarray(outcomes, dtype=bool)
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(s)                      # average ranks: ties count one half
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def average_precision(scores, outcomes) -> float:
    """Area under the precision-recall curve as average precision: the mean, over the ties,
    of the precision among the dyads scoring at least as high (dyads of equal score enter
    together); NaN without ties.

    Examples
    --------
    >>> average_precision([0.9, 0.8, 0.3, 0.1], [1, 0, 1, 0])
    0.8333333333333333
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(outcomes, dtype=bool)
    if not y.any():
        return float("nan")
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last = np.r_[s[1:] != s[:-1], True]      # the end of each run of equal scores
    hits = np.cumsum(y)[last]
    seen = np.flatnonzero(last) + 1
    new = np.diff(np.r_[0, hits])
    return float(np.sum(new * hits / seen) / y.sum())


class WaveGof:
    """The fit of one target wave: ``gof`` (a :class:`ergmfit.gof.GofResult`),
    ``tie_probability`` (per free dyad, ``pairs`` the node-index pairs, ``observed`` the
    wave's ties on them), ``roc_auc``, ``pr_auc`` and the random predictor's ``pr_random``."""

    def __init__(self, wave, gof, pairs, tie_probability, observed):
        self.wave = wave
        self.gof = gof
        self.pairs = pairs
        self.tie_probability = tie_probability
        self.observed = observed
        self.roc_auc = roc_auc(tie_probability, observed)
        self.pr_auc = average_precision(tie_probability, observed)
        self.pr_random = float(np.mean(observed)) if len(observed) else float("nan")


class HeldoutGof:
    """The goodness of fit of a temporal fit on target waves (:func:`heldout_gof`):
    ``waves[t]`` a :class:`WaveGof` per target wave; ``print`` shows the tie-prediction
    table and every wave's gof tables."""

    def __init__(self, waves, fitted_times):
        self.waves = waves
        self.fitted_times = list(fitted_times)

    def __getitem__(self, wave) -> WaveGof:
        return self.waves[wave]

    def prediction_table(self) -> str:
        """Per target wave: in or out of sample, AUC-ROC and AUC-PR with the random
        predictor's."""
        lines = ["Tie prediction (share of simulated networks holding each dyad):",
                 f"{'wave':>5} {'sample':>7} {'AUC-ROC':>8} {'AUC-PR':>8} "
                 f"{'ROC rand':>8} {'PR rand':>8}"]
        for t, w in self.waves.items():
            where = "in" if t in self.fitted_times else "out"
            lines.append(f"{t:>5} {where:>7} {w.roc_auc:8.4f} {w.pr_auc:8.4f} "
                         f"{0.5:8.4f} {w.pr_random:8.4f}")
        return "\n".join(lines)

    def __str__(self):
        parts = [self.prediction_table()]
        for t, w in self.waves.items():
            parts.append(f"\n== wave {t} ==\n{w.gof}")
        return "\n".join(parts)

    def __repr__(self):
        return (f"HeldoutGof(waves={list(self.waves)}, "
                f"roc_auc={[round(w.roc_auc, 4) for w in self.waves.values()]})")


def heldout_gof(fit, target=None, series=None, n_sim=100, statistics=None, burnin=None,
                interval=None, proposal="auto", random_state=None) -> HeldoutGof:
    """Goodness of fit of a temporal fit on the target waves (btergm's ``gof`` with
    ``target=``): simulate each target wave t from the fitted coefficients given wave t-1,
    compare wave t with the simulations (statnet's gof tables) and score the simulated tie
    probabilities against it (AUC-ROC, AUC-PR).

    Parameters
    ----------
    fit : ERGMResults
        A fit of a :class:`~ergmfit.temporal.TemporalERGM` (``method="btergm"``, ``"cmle"``,
        ...).
    target : int or list of int, optional
        The waves (0-based indices of ``series``) to check; default the fitted waves (an
        in-sample check).  A wave reading the previous one (lagged terms) needs t ≥ 1.
    series : NetSeries, optional
        The panel holding the target waves and the waves before them; default the fitted
        one.  Give the whole panel to check a wave left out of the fit.
    n_sim : int
        Simulated networks per target wave (btergm's ``nsim``).
    statistics, burnin, interval, proposal
        As in :func:`ergmfit.gof.gof`.
    random_state : int, Generator or None
        Seed; the same seed gives the same result.

    Returns
    -------
    HeldoutGof

    References
    ----------
    Leifeld, Cranmer and Desmarais (2018), Temporal exponential random graph models with
    btergm: estimation and bootstrap confidence intervals, Journal of Statistical
    Software 83(6).

    Examples
    --------
    >>> import networkx as nx
    >>> import ergmfit as ef
    >>> from ergmfit.temporal.heldout import heldout_gof
    >>> waves = [nx.gnp_random_graph(12, 0.2, seed=s) for s in range(5)]
    >>> panel = ef.NetSeries(waves)
    >>> fit = ef.ERGM(ef.NetSeries(waves[:4]), "edges + memory").fit(
    ...     method="btergm", R=50, random_state=1)
    >>> res = heldout_gof(fit, target=4, series=panel, n_sim=20, random_state=2)
    >>> sorted(res.waves), 0.0 <= res[4].roc_auc <= 1.0
    ([4], True)
    """
    from ..gof import gof
    model = getattr(fit, "model", None)
    if not callable(getattr(model, "on_waves", None)):
        raise SettingsError("heldout_gof needs the fit of a temporal model "
                            "(ERGM(NetSeries(...), formula).fit(...))")
    series = model.series if series is None else series
    if not isinstance(series, NetSeries):
        raise SettingsError(f"series must be a NetSeries, got {type(series).__name__}")
    if series.directed != model.series.directed:
        raise SettingsError("series is " + ("directed" if series.directed else "undirected")
                            + " but the fit's panel is not")
    targets = list(model.times) if target is None else \
        [target] if np.ndim(target) == 0 else list(target)
    if not targets:
        raise SettingsError("target names no wave")
    for t in targets:
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) \
                or not 0 <= t < series.n_waves:
            raise SettingsError(f"target wave {t!r} is not a wave of the series (0 to "
                                f"{series.n_waves - 1})")
        if t == 0 and model.reads_previous:
            raise SettingsError("target wave 0 has no previous wave, but the model reads "
                                "the previous network: give target waves from 1 on")
    n_sim = int(n_sim)
    if n_sim < 1:
        raise SettingsError(f"n_sim must be at least 1, got {n_sim}")
    rng = check_random_state(random_state)
    fitted_times = model.times if series is model.series else []
    labels = list(model.labels)
    waves = {}
    for t in dict.fromkeys(int(t) for t in targets):
        sub = model.on_waves([t], series)
        if list(sub.labels) != labels:
            raise SettingsError(f"the formula on wave {t} of series has the statistics "
                                f"{list(sub.labels)}, the fit {labels}: give a series with "
                                "the fitted covariates")
        seeds = rng.integers(0, 2**63, size=2)
        res = gof(sub, params=np.asarray(fit.params, dtype=float), n_sim=n_sim,
                  statistics=statistics, burnin=burnin, interval=interval,
                  proposal=proposal, random_state=int(seeds[0]))
        pairs, prob, observed = _tie_probabilities(sub, fit.params, n_sim, res.burnin,
                                                   res.interval, proposal, int(seeds[1]))
        waves[t] = WaveGof(t, res, pairs, prob, observed)
    return HeldoutGof(waves, fitted_times)


def _tie_probabilities(model, params, n_sim, burnin, interval, proposal, seed):
    # each free dyad's share of n_sim simulated networks holding it, and its observed value
    net = model.network
    space = model.sample_space
    dvars = space.design_vars()
    if dvars is None:
        dvars = np.arange(net.n_dyads, dtype=np.int64)
    pairs = var_pairs(net.n, net.directed, dvars)
    sims = model.simulate(np.asarray(params, dtype=float), n=n_sim, burnin=burnin,
                          interval=interval, output="networks", proposal=proposal,
                          random_state=seed)
    counts = np.zeros(net.n_dyads)
    for s in sims:
        if len(s.ties):
            np.add.at(counts, dyad_vars(net.n, net.directed, s.ties),
                      1.0)
    observed = np.zeros(net.n_dyads, dtype=bool)
    if len(net.ties):
        observed[dyad_vars(net.n, net.directed, net.ties)] = True
    return pairs, counts[dvars] / n_sim, observed[dvars]

