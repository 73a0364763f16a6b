"""Dynamic simulation of a temporal ERGM forward in discrete time (tergm's
``simulate(..., time.slices=)`` in its discrete-time form).

Each step draws y_t from the model's conditional distribution p(y_t | y_{t-1}) by
Metropolis-Hastings on the one-transition model whose previous network is the current one,
or exactly for a model dyad-independent given y_{t-1} (one compiled model for the whole run:
:class:`~ergmfit.temporal.chain.DynamicChain`), then updates the tie ages: a tie present at both ends of a step ages by one step, a
tie that ends closes a spell (its duration: the steps it was present), a new tie starts one.

What it reports (as EpiModel's ``netdx``): the model's statistics of every transition, the
cross-sectional tie count, the persistence and formation rates of every step, and the
durations of the spells that started and ended within the run (ties present at the start are
left-censored, those present at the end right-censored: both are kept apart).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..utils.validation import check_simulation_work, whole_number


@dataclass
class DynamicSimulation:
    """The outcome of :meth:`TemporalERGM.simulate_dynamic`.

    Attributes
    ----------
    stats : ndarray (T, p)
        The model's statistics of each of the T simulated transitions (``labels`` order).
    labels : list of str
    n_ties : ndarray (T + 1,)
        Ties of the start network and of every simulated one.
    persistence, formation : ndarray (T,)
        Share of the previous ties kept / of the previous non-ties formed, per step.
    durations : ndarray
        Durations (steps) of the spells that began and ended within the run.
    censored_ages : ndarray
        Ages at the end of the run of the ties formed within it and still present.
    networks : list of Network
        The simulated networks (``keep_networks=True``), else empty.
    """
    stats: np.ndarray
    labels: list
    n_ties: np.ndarray
    persistence: np.ndarray
    formation: np.ndarray
    durations: np.ndarray
    censored_ages: np.ndarray
    networks: list = field(default_factory=list)

    @property
    def mean_duration(self) -> float:
        """Mean duration of the completed spells (NaN when none ended)."""
        return float(np.mean(self.durations)) if len(self.durations) else float("nan")


def simulate_dynamic(model, params, n_steps, burnin=None, start=None, random_state=None,
                     keep_networks=False, exact="auto"):
    """Simulate ``model`` (a TemporalERGM) forward ``n_steps`` steps from ``start`` (a wave
    of the model's nodes; default the series' last wave).  ``burnin``: Metropolis-Hastings
    proposals per step (default 16 per dyad).  ``exact``: step a model dyad-independent
    given the previous network exactly, without Metropolis-Hastings ("auto": when its
    terms allow it; see :class:`~ergmfit.temporal.chain.DynamicChain`, which runs the
    whole simulation on one compiled model)."""
    from ..network import as_network
    from ..network.series import NetSeries
    from .chain import DynamicChain
    n_steps = whole_number(n_steps, "n_steps", 1)
    if burnin is not None:
        burnin = whole_number(burnin, "burnin", 0)
    last = model.series.waves[-1]
    current = last if start is None else NetSeries([last, as_network(start)]).waves[1]
    n, directed = current.n, current.directed
    n_dyads = n * (n - 1) // (1 if directed else 2)
    chain = DynamicChain(model, start=current.ties, random_state=random_state,
                         proposals=burnin, exact=exact)
    # refused up front beyond a day's work: each step's proposals (an exact step's
    # work is about its ties), and the records kept
    per_step = max(current.n_ties, 1) if chain.exact else chain.proposals
    record = 8 * (len(model.stat_labels) + 4) + (16 * max(current.n_ties, 1) if keep_networks
                                                 else 0)
    check_simulation_work(n_steps, 0, per_step, record, "one step's record",
                          caller="simulate_dynamic")
    eta = model.eta(params)
    prev = np.array([current.n_ties])
    runs, nets = [], []
    for _ in range(n_steps if keep_networks else 1):
        runs.append(chain.run(eta, 1 if keep_networks else n_steps, ages=True))
        if keep_networks:
            nets.append(current.with_ties(chain.state.ties()))
        if runs[-1].interrupted:
            break
    stats = np.vstack([r.stats for r in runs])
    after = np.concatenate([r.n_ties for r in runs])
    formed = np.concatenate([r.formed for r in runs]).astype(float)
    dissolved = np.concatenate([r.dissolved for r in runs]).astype(float)
    before = np.concatenate([prev, after[:-1]]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        persist = np.where(before > 0, (before - dissolved) / before, np.nan)
        form = np.where(n_dyads > before, formed / (n_dyads - before), np.nan)
    return DynamicSimulation(stats, list(model.stat_labels), np.concatenate([prev, after]),
                             persist, form, np.array(chain.durations, float),
                             chain.censored_ages(), nets)
