"""Dynamic simulation of a temporal ERGM forward in discrete time (tergm's
``simulate(..., time.slices=)`` in its discrete-time form).

Each step draws y_t from the model's conditional distribution p(y_t | y_{t-1}) by
Metropolis-Hastings on the one-transition model whose previous network is the current one
(the compiled sampler and the temporal kernels; Python only hands over the network between
steps), then updates the tie ages: a tie present at both ends of a step ages by one step, a
tie that ends closes a spell (its duration: the steps it was present), a new tie starts one.

What it reports (as EpiModel's ``netdx``): the model's statistics of every transition, the
cross-sectional tie count, the persistence and formation rates of every step, and the
durations of the spells that started and ended within the run (ties present at the start are
left-censored, those present at the end right-censored: both are kept apart).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..utils.validation import check_random_state, check_simulation_work, whole_number

#: the work of one step's model build, counted as this many proposals
STEP_COST = 10_000


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
                     keep_networks=False):
    """Simulate ``model`` (a TemporalERGM) forward ``n_steps`` steps from ``start`` (a wave
    of the model's nodes; default the series' last wave).  ``burnin``: Metropolis-Hastings
    proposals per step (default 16 per free dyad)."""
    from ..network import as_network
    from ..network.series import NetSeries
    rng = check_random_state(random_state)
    n_steps = whole_number(n_steps, "n_steps", 1)
    if burnin is not None:
        burnin = whole_number(burnin, "burnin", 0)
    last = model.series.waves[-1]
    current = last if start is None else NetSeries([last, as_network(start)]).waves[1]
    n, directed = current.n, current.directed
    n_dyads = n * (n - 1) // (1 if directed else 2)

    def keys(ties):
        return set((ties[:, 0] * n + ties[:, 1]).tolist()) if len(ties) else set()

    # refused up front beyond a day's work: each step's proposals, plus its model build
    # (about a millisecond, some STEP_COST proposals' worth)
    per_step = (16 * n_dyads if burnin is None else burnin) + STEP_COST
    record = 8 * (len(model.stat_labels) + 4) + (16 * max(current.n_ties, 1) if keep_networks
                                                 else 0)
    check_simulation_work(n_steps, 0, per_step, record, "one step's record",
                          caller="simulate_dynamic")
    born = {k: None for k in keys(current.ties)}      # None: present at the start
    stats, n_ties, persist, form, durations, nets = [], [current.n_ties], [], [], [], []
    for step in range(n_steps):
        one = type(model)(NetSeries([current, current]), model.formula,
                          constraints=model.user_constraints)
        if burnin is None:
            burnin_step = 16 * int(one.sample_space.n_free or n_dyads)
        else:
            burnin_step = int(burnin)
        drawn = one.simulate(params, n=1, burnin=burnin_step, output="networks",
                             random_state=rng)[0]
        nxt = current.with_ties(drawn.ties)
        stats.append(one.statistics_vector(drawn.ties))
        before, after = set(born), keys(nxt.ties)
        kept = before & after
        persist.append(len(kept) / len(before) if before else np.nan)
        form.append(len(after - before) / (n_dyads - len(before))
                    if n_dyads > len(before) else np.nan)
        for k in before - after:
            if born[k] is not None:
                durations.append(step - born[k])
            del born[k]
        for k in after - before:
            born[k] = step
        n_ties.append(nxt.n_ties)
        if keep_networks:
            nets.append(nxt)
        current = nxt
    ages = [n_steps - b for b in born.values() if b is not None]
    return DynamicSimulation(np.array(stats), list(model.stat_labels), np.array(n_ties),
                             np.array(persist), np.array(form), np.array(durations, float),
                             np.array(ages, float), nets)
