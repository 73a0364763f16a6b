"""What an MCMC-MLE iteration aims its sample at, chosen once from the model's
sample space (:func:`target_for`).

Complete data (:class:`ObservedStatistics`): the observed statistics g(x_obs);
the information is Cov_θ[g]; the log-likelihood the complete-data one.

Missing dyads (:class:`ConditionalSample`, Handcock & Gile 2010, statnet's
``obs`` chain): each iteration also runs the chain on the missing dyads given
the observed ones (:meth:`~ergmfit.sampling.space.SampleSpace.conditional`)
at θ; its mean E_θ[g | observed] replaces g(x_obs), so the loop's fixed point
E_θ[g] = E_θ[g | observed] is the observed-data likelihood equation; the
information is Cov_θ[g] − Cov_θ[g | observed] (complete-data minus missing
information), and the bridge log-likelihood is the observed-data one (both
chains at every bridge point).

References
----------
Handcock, M. S. and Gile, K. J. (2010). Modeling social networks from sampled
data. Annals of Applied Statistics 4(1), 5-25.
"""
from __future__ import annotations

import numpy as np

from ...exceptions import CheckpointError

from ...sampling.chains import batch_means_cov, run_chains
from ...sampling.space import sample_space_of
from ..common.restricted import conditional_model
from ..common.stepping import is_weights
from .checkpoint import MCMLECheckpoint, MissingMCMLECheckpoint

__all__ = ["ObservedStatistics", "ConditionalSample", "target_for"]


class ObservedStatistics:
    """Complete data: the sample is centred on the observed statistics."""

    checkpoint = MCMLECheckpoint
    #: the random state of the MPLE's completion of missing dyads (none here)
    completes_start = False
    se_kind = "MCMC"

    def centre(self, model, state, rng, size, run):
        """The point the iteration's sample is centred on (no extra draws)."""
        return state.g_obs

    def information_correction(self, par, theta, move):
        """What the information loses to the missing dyads (None: nothing)."""
        return None

    def mc_variance(self, par, theta):
        """The Monte Carlo variance the centre adds to the score (None: none)."""
        return None

    def loglik_args(self, state, n_chains):
        """What the bridge-sampled log-likelihood needs beyond the model (nothing
        here); ``state`` None: before any iteration."""
        return {}

    def info(self, model):
        return {}

    def resume_state(self, state, rng):
        """What the checkpoint keeps beyond the loop state's saved fields."""
        return {}

    def restore(self, saved, state, n_chains, resume=None):
        """Go on from a checkpoint's extra fields (nothing here); returns the random
        generator to continue with (None: the fit's own)."""
        return None


class ConditionalSample:
    """Missing dyads: the sample is centred on the mean of the chain on the missing
    dyads given the observed ones (statnet's ``obs`` chain), run at each
    iteration's θ for ``obs_interval`` proposals between draws (None: a quarter of
    the adapted interval, at least 8)."""

    checkpoint = MissingMCMLECheckpoint
    completes_start = True
    se_kind = "naive"

    def __init__(self, model, obs_interval=None):
        self.model = conditional_model(model)
        self.space = model.sample_space
        self.obs_interval = None if obs_interval is None else int(obs_interval)
        self.starts = None          # the conditional chains' last states
        self.chains = None          # the last conditional sample
        self.sample_theta = None

    def _interval(self, state):
        return self.obs_interval or max(8, state.interval // 4)

    def centre(self, model, state, rng, size, run):
        oi = self._interval(state)
        self.chains, self.starts, _ = run_chains(
            self.model, state.theta, size, 4 * oi, oi, self.starts,
            **dict(run, proposal="auto"))
        self.sample_theta = state.theta.copy()
        return np.concatenate(self.chains).mean(axis=0)

    def information_correction(self, par, theta, move):
        """J'Cov[g | observed]J of the last conditional sample, importance-weighted by
        the move ``move`` of η from where it was drawn."""
        X = np.concatenate(self.chains)
        w = is_weights(X - X.mean(axis=0), move)
        XJ = par.times_jacobian(X, theta)
        d = XJ - w @ XJ
        return (d * w[:, None]).T @ d

    def mc_variance(self, par, theta):
        return batch_means_cov([par.times_jacobian(c - c.mean(axis=0), theta)
                                for c in self.chains])

    def loglik_args(self, state, n_chains):
        """The conditional chain's model, starts and interval (``state`` None: before
        any iteration, the interval ``obs_interval`` or bridge_loglik's default)."""
        interval = self.obs_interval if state is None else self._interval(state)
        return {"cond": self.model, "cond_starts": self.starts or [None] * n_chains,
                "cond_interval": interval}

    def info(self, model):
        return {"n_missing": model.sample_space.n_missing,
                "missing_data": "observed-data likelihood (Handcock & Gile 2010)"}

    def resume_state(self, state, rng):
        """The conditional chains' last states (the loop's own state, both chains'
        bookkeeping and the random stream, are the checkpoint's ``chains_state``)."""
        from .checkpoint import chain_list
        return {"missing_data_state": {"obs_interval": self.obs_interval,
                                       "starts_c": chain_list(self.starts, self.model)}}

    def restore(self, saved, state, n_chains, resume=None):
        """The conditional chains' states; from a checkpoint written before
        ``chains_state`` also the loop's state it kept here (then returns its random
        generator)."""
        from .checkpoint import read_chains
        st = saved.missing_data_state
        model = self.model
        old = saved.chains_state is None
        try:
            if old:
                state.starts = read_chains(st["starts_u"], model, self.space, n_chains,
                                           "unconditional")
            self.starts = read_chains(st["starts_c"], model, model.sample_space, n_chains,
                                      "conditional")
        except (TypeError, ValueError, OverflowError, AttributeError) as exc:
            raise CheckpointError(f"cannot resume from {resume}: its chains' states are "
                                  f"damaged ({type(exc).__name__}: {exc})") from None
        if state.starts is None or any(s is None for s in state.starts) or self.starts is None:
            state.starts, self.starts = [None] * n_chains, None
        self.obs_interval = st["obs_interval"]
        if not old:
            return None
        if st["rng"] is None or st["streak"] is None:
            raise CheckpointError(f"cannot resume from {resume}: its field 'missing_data_state' "
                                  "holds neither the chains' state nor the random stream (a "
                                  "damaged or tampered missing-data MCMC-MLE checkpoint)")
        state.streak, state.final = st["streak"], bool(st["final"])
        state.burnin, state.backtracks = st["burnin"], st["backtracks"]
        if st["guard_theta"] is not None:
            state.guard = (np.asarray(st["guard_theta"], float), np.asarray(st["guard_t"], float))
        return st["rng"]


def target_for(model, obs_interval=None):
    """The target of ``model``'s sample space: the conditional sample when it has
    missing dyads, else the observed statistics."""
    if sample_space_of(model).conditional() is not None:
        return ConditionalSample(model, obs_interval)
    return ObservedStatistics()
