"""Parallel tempering: Metropolis-Hastings chains on a ladder of temperatures that swap
states, so that the cold chain crosses between the modes of a bimodal model.

Replica k runs the model's own compiled sampler at β_k η (β_0 = 1 > β_1 > ... > β_{K-1} > 0:
the flattened density exp(β_k η·g(y))).  After every sweep (``sweep`` proposals in each
replica, compiled) neighbours k, k+1 try to exchange their states, accepted with probability

    min(1, exp((β_k − β_{k+1}) (η·g(y_{k+1}) − η·g(y_k)))),

the Metropolis ratio of the swap on the product of the replicas' distributions (Geyer 1991;
Hukushima & Nemoto 1996): the joint chain leaves Π_k p_{β_k}(y_k) invariant, so the cold
replica's draws have the model's exact distribution.  The replicas' states stay where they
are (compiled, in place); what is swapped is the temperature each one runs at, and the draws
come from whichever replica holds β = 1.  The swap step is Python, once per sweep of
thousands of proposals; every proposal stays compiled.

A model gets tempering through one setting, :func:`with_tempering` (``model.tempering``),
or ``fit(..., tempering=...)`` (True, or a dict of :class:`Tempering`'s settings), which
fits that copy and keeps the setting with the results (a saved fit reloads it): its
``sampler()`` then returns a :class:`TemperedSampler`, so ``simulate``, ``gof``,
``fit.simulate``/``fit.gof`` and the estimators that draw through ``sampler(...).sample``
(MCMC-MLE -- an MLE method for near-degenerate models whose chains cross the modes --,
the s.e. and log-likelihood chains) use it without knowing.  Moves that run a chain and undo it
(contrastive divergence, the EE and Bayes exchange moves) are refused with a clear error.

References
----------
Geyer, C. J. (1991). Markov chain Monte Carlo maximum likelihood. Computing Science and
Statistics: Proc. 23rd Symposium on the Interface, 156-163.
Hukushima, K. and Nemoto, K. (1996). Exchange Monte Carlo method and application to spin
glass simulations. J. Phys. Soc. Japan 65(6): 1604-1608.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..exceptions import SettingsError
from ..utils.validation import check_random_state


#: the most replicas (temperatures) of one tempered sampler
MAX_REPLICAS = 1000


@dataclass(frozen=True)
class Tempering:
    """The setting of parallel tempering: the temperature ladder and the sweep length.

    Parameters
    ----------
    betas : sequence of float, optional
        Inverse temperatures, the first 1 (the cold chain), decreasing, all > 0.
        Default: ``n_temps`` values geometric from 1 down to ``min_beta``.
    n_temps : int
        Number of replicas (default 8).
    min_beta : float
        The hottest inverse temperature (default 0.5).
    sweep : int
        Proposals of each replica between swap attempts (default 256).

    Examples
    --------
    >>> Tempering(n_temps=3, min_beta=0.25).ladder().tolist()
    [1.0, 0.5, 0.25]
    """

    betas: tuple = None
    n_temps: int = 8
    min_beta: float = 0.5
    sweep: int = 256

    def ladder(self) -> np.ndarray:
        """The inverse temperatures, cold first (checked)."""
        if self.betas is not None:
            try:
                b = np.asarray(self.betas, dtype=float).ravel()
            except (TypeError, ValueError):
                raise SettingsError(f"tempering: betas must be numbers, got "
                                    f"{self.betas!r:.60}") from None
            if b.size > MAX_REPLICAS:
                raise SettingsError(f"tempering: {b.size:,} betas, more than the "
                                    f"{MAX_REPLICAS:,} replicas ergmfit runs")
        else:
            if isinstance(self.n_temps, bool) or not isinstance(self.n_temps, (int, np.integer)) \
                    or not 1 <= self.n_temps <= MAX_REPLICAS:
                raise SettingsError(f"tempering: n_temps must be an integer in "
                                    f"1..{MAX_REPLICAS:,} (each replica is a sampler with its "
                                    f"own network), got {self.n_temps!r}")
            if not (isinstance(self.min_beta, (int, float)) and 0 < self.min_beta <= 1):
                raise SettingsError(f"tempering: min_beta must be in (0, 1], got "
                                    f"{self.min_beta!r}")
            b = np.geomspace(1.0, float(self.min_beta), int(self.n_temps)) \
                if self.n_temps > 1 else np.ones(1)
        if b.size < 1 or not np.isfinite(b).all() or b[0] != 1.0 or (b <= 0).any() or \
                (np.diff(b) >= 0).any():
            raise SettingsError(f"tempering: betas must start at 1 and decrease strictly, all "
                                f"> 0, got {b.tolist()}")
        if isinstance(self.sweep, bool) or not isinstance(self.sweep, (int, np.integer)) or \
                self.sweep < 1:
            raise SettingsError(f"tempering: sweep must be an integer >= 1, got {self.sweep!r}")
        return b


def tempering_setting(value) -> Tempering:
    """The :class:`Tempering` a ``fit(tempering=...)`` / results-file value stands for:
    True (the defaults), a dict of Tempering's settings or a Tempering.

    >>> tempering_setting({"n_temps": 3, "min_beta": 0.25}).ladder().tolist()
    [1.0, 0.5, 0.25]
    """
    if value is True:
        return Tempering()
    if isinstance(value, Tempering):
        return value
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"betas", "n_temps", "min_beta", "sweep"})
        if unknown:
            raise SettingsError(f"tempering: unknown setting(s) {unknown}; the settings are "
                                "betas, n_temps, min_beta and sweep")
        got = dict(value)
        if got.get("betas") is not None:
            got["betas"] = tuple(float(b) for b in got["betas"])
        return Tempering(**got)
    raise SettingsError(f"tempering must be True, a dict of Tempering's settings (betas, "
                        f"n_temps, min_beta, sweep) or a Tempering, got {value!r}")


def tempering_spec(tempering) -> dict:
    """What a results file keeps of a :class:`Tempering` (:func:`tempering_setting` reads it)."""
    return {"betas": None if tempering.betas is None else [float(b) for b in tempering.betas],
            "n_temps": int(tempering.n_temps), "min_beta": float(tempering.min_beta),
            "sweep": int(tempering.sweep)}


def with_tempering(model, tempering=None, **settings):
    """A copy of ``model`` whose chains are parallel-tempered (``model`` is not changed).

    Parameters
    ----------
    model : ERGM
    tempering : Tempering, optional
        The ladder and sweep; or give :class:`Tempering`'s parameters as keywords.

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> m = with_tempering(ef.ERGM(nx.cycle_graph(6), "edges + triangle"), n_temps=4)
    >>> m.simulate([-1.0, 0.5], n=3, output="stats", random_state=1).shape
    (3, 2)
    """
    if not callable(getattr(model, "sampler", None)):
        raise SettingsError(f"with_tempering: model must be an ERGM, not "
                            f"{type(model).__name__}")
    if tempering is None:
        tempering = Tempering(**settings)
    elif settings:
        raise SettingsError("with_tempering: give a Tempering or its settings, not both")
    tempering.ladder()                                     # checked up front
    out = copy.copy(model)
    out.tempering = tempering
    return out


class _ColdModel:
    """The compiled model of the replica at β = 1 (what ``model.sampler`` returns beside
    the sampler: ``cm.state`` is the cold chain's state)."""

    def __init__(self, owner):
        self._owner = owner

    def __getattr__(self, name):
        return getattr(self._owner.cold_model, name)


class TemperedSampler:
    """Parallel tempering over the model's own compiled samplers (see the module).

    Built by ``model.sampler()`` for a model with ``tempering`` set; the interface of
    :class:`ergmfit.sampling._mh.MHSampler` for drawing (``sample``, ``run``,
    ``acceptance_rate``, ``set_guard``), with the draws of the cold chain.

    Attributes
    ----------
    betas : ndarray
        The inverse temperatures.
    swap_rates : ndarray
        Accepted fraction of the swap attempts between each pair of neighbouring
        temperatures.
    """

    def __init__(self, replicas, models, betas, sweep, rng):
        self.replicas = list(replicas)
        self.models = list(models)
        self.betas = np.asarray(betas, dtype=float)
        self.sweep = int(sweep)
        self.rng = rng
        K = len(self.replicas)
        self.temp_of = np.arange(K)           # replica r runs at betas[temp_of[r]]
        self.deltas = np.zeros((K, self.models[0].n_stats))     # g(y_r) - g(start)
        self.swaps_tried = np.zeros(max(K - 1, 0))
        self.swaps_done = np.zeros(max(K - 1, 0))
        self.model = _ColdModel(self)
        self.description = None

    @property
    def cold(self) -> int:
        return int(np.flatnonzero(self.temp_of == 0)[0])

    @property
    def cold_model(self):
        return self.models[self.cold]

    @property
    def delta(self) -> np.ndarray:
        """The cold chain's g(y_t) − g(y_0) (as ``MHSampler.delta``)."""
        return self.deltas[self.cold].copy()

    @property
    def swap_rates(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return self.swaps_done / self.swaps_tried

    @property
    def n_accepted(self) -> int:
        """Accepted proposals of all replicas."""
        return sum(int(r.n_accepted) for r in self.replicas)

    @property
    def n_proposed(self) -> int:
        """Proposals of all replicas."""
        return sum(int(r.n_proposed) for r in self.replicas)

    @property
    def acceptance_rate(self) -> float:
        """Accepted fraction of the proposals of all replicas (the cold chain's moves
        between replicas are the swaps: :attr:`swap_rates`)."""
        return self.n_accepted / self.n_proposed if self.n_proposed else float("nan")

    def set_guard(self, *args, **kwargs):
        for r in self.replicas:
            r.set_guard(*args, **kwargs)

    def _advance(self, eta, steps):
        """``steps`` proposals of every replica, with a swap round after each sweep."""
        while steps > 0:
            k = min(self.sweep, steps)
            for r, s in enumerate(self.replicas):
                self.deltas[r] = s.sample(self.betas[self.temp_of[r]] * eta, 1, 0, k)[0]
            steps -= k
            self._swap(eta)

    def _swap(self, eta):
        K = len(self.replicas)
        if K < 2:
            return
        energy = self.deltas @ eta                       # η·g(y_r) − η·g(start)
        at = np.empty(K, dtype=int)
        at[self.temp_of] = np.arange(K)                 # replica holding each temperature
        # even pairs, then odd pairs: every neighbour pair is tried every two sweeps
        for first in (0, 1):
            for k in range(first, K - 1, 2):
                a, b = at[k], at[k + 1]
                log_r = (self.betas[k] - self.betas[k + 1]) * (energy[b] - energy[a])
                self.swaps_tried[k] += 1
                if log_r >= 0 or self.rng.random() < np.exp(log_r):
                    at[k], at[k + 1] = b, a
                    self.swaps_done[k] += 1
        self.temp_of[at] = np.arange(K)

    def run(self, theta, steps):
        """Advance every replica by ``steps`` proposals, with a swap round after each
        sweep."""
        eta = np.ascontiguousarray(theta, dtype=float)
        self._advance(eta, int(steps))

    def sample(self, theta, n, burnin, interval):
        """The cold chain's statistics g(y_t) − g(y_0) after ``burnin`` proposals and then
        every ``interval`` proposals (of each replica), as an (n, p) array."""
        eta = np.ascontiguousarray(theta, dtype=float)
        if n < 0 or burnin < 0 or interval < 1:
            raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
        out = np.zeros((n, self.deltas.shape[1]))
        self._advance(eta, int(burnin))
        for s in range(n):
            self._advance(eta, int(interval))
            out[s] = self.deltas[self.cold]
        return out

    def _refuse(self, what):
        raise SettingsError(f"tempered sampling draws MCMC samples (simulate, gof, MCMC-MLE); "
                            f"{what} runs and undoes short chains, which tempering does not "
                            "apply to: use the model without tempering for it")

    def run_batch(self, *args, **kwargs):
        self._refuse("an EE / stochastic-approximation batch move (run_batch)")

    def cd_sample(self, *args, **kwargs):
        self._refuse("contrastive divergence (cd_sample)")


def tempered_sampler(model, params, proposal="auto", random_state=None, start=None):
    """The :class:`TemperedSampler` of ``model`` (whose ``tempering`` is set) and its cold
    compiled model: one replica per temperature, each the model's own sampler."""
    ladder = model.tempering.ladder()
    rng = check_random_state(random_state)
    plain = copy.copy(model)
    plain.tempering = None
    made = [plain.sampler(params, proposal, rng, start) for _ in ladder]
    sampler = TemperedSampler([s for s, _ in made], [cm for _, cm in made], ladder,
                              model.tempering.sweep, rng)
    return sampler, sampler.model
