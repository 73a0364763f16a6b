"""The state of an MCMC-MLE fit between two iterations, declared once: the loop
works on it, and the checkpoint (:mod:`ergmfit.estimation.mcmle.checkpoint`) keeps the fields declared
``saved`` here."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ...runtime.checkpoint import array, integer, record

__all__ = ["MCMLEState", "saved_fields"]

#: the most iterations a checkpoint's history may hold
MAX_HISTORY = 2 ** 20


def saved(spec):
    """The metadata of a state field that the checkpoint keeps, stored and checked
    as ``spec`` (a :class:`~ergmfit.runtime.checkpoint.Field`)."""
    return {"saved": spec}


def saved_fields(state_class) -> dict:
    """The checkpoint fields (name -> Field) of a dataclass's ``saved`` fields."""
    return {f.name: f.metadata["saved"] for f in dataclasses.fields(state_class)
            if "saved" in f.metadata}


def _history(value, dims):
    """The iteration records of a resumed fit: what ``_check_oscillation`` reads back."""
    if not isinstance(value, list) or not all(isinstance(h, dict) for h in value):
        raise ValueError("not a list of iteration records")
    if len(value) > MAX_HISTORY:
        raise ValueError(f"a list of {len(value)} iteration records, more than {MAX_HISTORY}")
    p = dims["p"]
    for h in value:
        for key, kind in (("t_mean", float), ("bistable", bool), ("ess_each", float)):
            v = h.get(key)
            if v is not None and (not isinstance(v, list) or len(v) != p or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x)
                    if kind is float else isinstance(x, bool) for x in v)):
                raise ValueError(f"a list of iteration records one of whose {key!r} is not "
                                 f"{p} {'numbers' if kind is float else 'true/false values'}")
    return value


@dataclass
class MCMLEState:
    """Where an MCMC-MLE fit stands between two iterations (and, once finished,
    the estimate's pieces).  The fields declared ``saved`` (``theta``, ``interval``,
    ``history``, with how a checkpoint stores and checks them) are what the
    checkpoint keeps (:class:`~ergmfit.estimation.mcmle.checkpoint.MCMLECheckpoint`
    derives its fields from them); the rest is the bookkeeping of the running fit."""

    theta: np.ndarray = field(metadata=saved(array("float64", ("p",))))
    interval: int = field(metadata=saved(integer(1, "max_interval")))
    history: list = field(default_factory=list, metadata=saved(record(_history)))
    burnin: int = 0
    init_method: str = "user"
    starts: list = None             # the chains' last states (None: the observed network)
    pilot: int = None               # curved: the configured interval, while the first
                                    # sample is a pilot at the smallest one
    iteration: int = 0              # the iteration running (or last run), counted over the
                                    # fit (a resumed fit's earlier iterations included)
    n_before: int = 0               # records of a resumed fit's earlier iterations
    streak: int = 0                 # consecutive iterations with gamma == 1
    guard: tuple = None             # (θ of the last accepted sample, its standardised mean)
    backtracks: int = 0             # consecutive halvings of an overshooting step
    redraws: int = 0                # consecutive samples redrawn unused (.burnin)
    approached: bool = False        # the start was moved once (.burnin.approach)
    capped_warned: bool = False     # the interval reached max_interval (warned once)
    final: bool = False             # the iteration running is the boosted last one
    min_ess_share: float = None     # every statistic's share of target_ess in a step's
                                    # sample (MCMLE._min_ess_share, set by MCMLE._start)
    pool_samples: int = 1           # the samples a step is taken on (MCMLE._pool_samples)
    settled: dict = field(default_factory=dict)  # the sample's burn-in parts (._settle)
    pool: list = field(default_factory=list)     # (η, statistics) of the last settled
                                                 # samples stepped on (.pooling)
    chains_z: list = None           # the last sample, centred at the observed statistics
    sample_theta: np.ndarray = None  # where the last sample was drawn
    converged: bool = False
    interrupted: bool = False
    # the estimate's pieces (set by MCMLE._estimate and MCMLE._loglik)
    cov: np.ndarray = None
    cov_model: np.ndarray = None
    cov_mc: np.ndarray = None
    loglik: float = None
    loglik_se: float = None
    loglik_kind: str = "bridge"     # or "exact" (the model's own, MCMLE._loglik)
    loglik_interrupted: bool = False
    interrupted_in: str = None      # the phase a Ctrl-C ended ("iterations", "covariance", ...)
    seconds: float = 0.0
    cpu_seconds: dict = field(default_factory=dict)   # CPU seconds of this process by phase
    g_obs: np.ndarray = None        # the observed statistics
    centre: np.ndarray = None       # what the last sample is centred at (.target)
    target: object = None           # what the samples aim at (.target.target_for)
    rng: object = None              # the fit's random generator (a resumed fit: the
                                    # checkpoint's stream)
    resume_note: str = None         # a resume that could not go on exactly: why
    resumed_from: str = None        # the checkpoint an exact resume went on from

    @property
    def chains(self):
        """The last sample's chains of statistics (None before the first sample)."""
        return None if self.chains_z is None else [c + self.centre for c in self.chains_z]
