"""Equilibrium Expectation with missing dyads: the observed-data likelihood.

The observed-data likelihood equation (Handcock & Gile 2010) is
E_θ[g(Y)] = E_θ[g(Y) | Y_obs]: the target of EE's update is no longer the
observed statistics but the conditional mean over the completions of the
missing dyads.  So a second, *conditional* chain runs beside EE's chain:
tie/no-tie restricted to the missing dyads (the model's
:meth:`~ergmfit.sampling.space.SampleSpace.conditional` space; under
constraints, the constrained space's missing dyads), started at the observed
network with its missing dyads empty.  Before every EE iteration it makes
``max(8, m // 4)`` proposals at the current θ (as the missing-data MCMC-MLE
gives its conditional chain a quarter of the interval), and the change of its
statistics is taken off dzA, so that dzA = g(x_t) − g(y_t): the unconditional
chain's statistics minus the conditional chain's.  EE's update then drives
θ to where the two means agree, the observed-data likelihood equation; the
trajectory average is the observed-data MLE.

At the estimate both chains are simulated: the draws of the unconditional
chain minus the mean of the conditional chain's are the sample whose mean
checks convergence and which the final MCMC-MLE step uses (as in
:mod:`ergmfit.estimation.mcmle.missing`), and the Fisher information is the observed-data one,
Cov(g) − Cov(g | Y_obs) (complete-data minus missing information).

**IFD.**  The conditional chain is tie/no-tie restricted to the missing
dyads (exact on a dyad subset; under a dyad-set constraint, on its missing
free dyads).  EE's own chain may use IFD (its default with an ``edges``
term), which holds the tie count in a band {L, L + 1} and recovers the
density parameter as θ_edges = V − log((D − L) / (L + 1)).  Without missing
dyads L is the observed tie count; with them the tie count of the complete
network is unknown, so the band *follows the completion*: before every
iteration the next accepted IFD move is made an add while the chain has
fewer ties than the conditional chain's completion y_t (dzA_edges < 0) and
a delete while it has more (:func:`._ee.ifd_follow`), and θ_edges is taken
with the band's current L.  The IFD estimate is then, as without missing
dyads, conditional on the density -- now that of the completed network,
E[L(Y) | Y_obs] -- and the final MCMC-MLE step (``polish``: the
unconditional tie/no-tie simulation at the estimate against the
conditional mean) takes it to the observed-data MLE.

**Curved models and offsets** (an offset model is fitted through
:class:`~ergmfit.terms.offsets.OffsetParameterisation`, EE's curved path):
both chains run at the same natural parameters η(θ) -- the conditional
chain moves before every iteration of EE's curved update at the η that
iteration samples at -- so dzA = g(x_t) − g(y_t) is in the canonical
statistics, mapped to the parameters' directions by the same Jacobian.
The simulation at the estimate runs both chains at η(θ̂), and the Fisher
information is J'(Cov(g) − Cov(g | Y_obs))J.  Fixed coefficients stay
fixed (a −Inf offset enters both samplers as −1e300: a toggle that would
change its statistic is never accepted, in either chain).

A checkpoint saves the conditional chain's state (the completion of the
missing dyads) beside the chain's own, and a resumed chain continues both.
"""
from __future__ import annotations

import numpy as np

from ...exceptions import CheckpointError, NetworkError
from ...sampling.space import sample_space_of


class CompleteData:
    """The conditional chain of a model without missing dyads: nothing to
    complete, so EE's compiled iterations run as they are, the simulation at the
    estimate keeps its statistics and a checkpoint holds no completion."""

    @staticmethod
    def check_cfg(cfg) -> None:
        """Every EE setting runs as it is."""

    @staticmethod
    def centred(model, draws, theta, n, interval, rng):
        """A simulation's ``draws`` of g at ``theta`` centred at the observed
        statistics, and no conditional covariance: (draws - g(y_obs), None)."""
        return draws - model.statistics_vector(), None

    @property
    def iterations(self):
        """:func:`._ee.ee_iterations` itself."""
        from ._ee import ee_iterations
        return ee_iterations

    def adjust(self, out, est, n_sim, interval):
        """Nothing to take off: the observed network is the whole network."""

    def saved_arrays(self) -> dict:
        """The arrays a chain checkpoint stores for this chain: none."""
        return {}


#: the conditional chain of every model without missing dyads
COMPLETE_DATA = CompleteData()


def conditional_chain_kind(model):
    """:class:`ConditionalChain` when the model's sample space has a conditional
    space (missing dyads: :meth:`~ergmfit.sampling.space.SampleSpace.conditional`),
    else :data:`COMPLETE_DATA`; both answer ``check_cfg`` and ``centred``."""
    if sample_space_of(model).conditional() is None:
        return COMPLETE_DATA
    return ConditionalChain


def conditional_chain(model, rng, saved=None):
    """A :class:`ConditionalChain` for a model with missing dyads, else
    :data:`COMPLETE_DATA`; ``saved`` (a chain checkpoint): continued from its
    completion."""
    if conditional_chain_kind(model) is COMPLETE_DATA:
        return COMPLETE_DATA
    y_on = None if saved is None else saved["arrays"].get("y_on")
    if saved is not None and y_on is None:
        raise CheckpointError("cannot resume: the EE checkpoint has no state of the conditional "
                              "chain over the missing dyads (written without missing dyads?)")
    return ConditionalChain(model, rng, y_on)


class ConditionalChain:
    """The conditional chain over the missing dyads beside an EE chain."""

    @staticmethod
    def check_cfg(cfg) -> None:
        """The settings EE runs with on a model with missing dyads (``cfg`` in
        place): Algorithm S's start becomes the MPLE."""
        if isinstance(cfg["init"], str) and cfg["init"] == "S":     # (not parameter values)
            # Algorithm S scores moves at the observed network, whose missing dyads
            # are empty: start at the MPLE instead (statnet's start, the missing
            # dyads left out)
            cfg["init"] = "mple"

    @staticmethod
    def centred(model, draws, theta, n, interval, rng):
        """A simulation's ``draws`` of g at ``theta`` minus the mean of a conditional
        chain's ``n`` draws (a quarter of ``interval`` apart, after 4 of those, seeded
        by ``rng``), and that chain's covariance Cov(g | Y_obs)."""
        from ...sampling.chains import run_chains
        from ..common.restricted import conditional_model
        ic = max(8, int(interval) // 4)
        c = run_chains(conditional_model(model), theta, n, 4 * ic, ic, None, n_chains=1,
                       random_state=rng)[0][0]
        q = draws.shape[1]
        return draws - c.mean(axis=0), np.cov(c, rowvar=False).reshape(q, q)

    def __init__(self, model, rng, y_on=None):
        from ..common.restricted import conditional_model
        self.model = conditional_model(model)
        p = len(model.labels)
        start = None
        if y_on is not None:            # a checkpoint's completion: checked against the space
            from ...sampling.space import var_pairs
            net = model.network
            y_on = np.asarray(y_on)
            if y_on.ndim != 1 or np.any((y_on < 0) | (y_on >= net.n_dyads)) or \
                    np.any(y_on != np.round(y_on)):
                raise CheckpointError("cannot resume: the EE checkpoint's conditional chain "
                                      "state is damaged")
            start = var_pairs(net.n, net.directed, y_on.astype(np.int64))
        try:
            self.sampler, self.bm = self.model.sampler(np.zeros(p), random_state=rng,
                                                       start=start)
        except NetworkError as exc:
            raise CheckpointError(f"cannot resume: the EE checkpoint's completion of the "
                                  f"missing dyads is outside their space ({exc})") from None

    def iterations(self, sampler, theta, dzA, n_iter, m, update, a, c, aca, D, dens, arc_corr,
                   theta_out, dz_out, acc_out, v_out, P=None):
        """:func:`._ee.ee_iterations` with the conditional chain moved before
        every iteration (at the same θ, natural parameters) and its
        statistics' change taken off dzA (in place).  With IFD (``dens`` >= 0)
        the band of IFD's tie count follows the completion's and the density
        parameter is taken with the band's tie count (module docstring)."""
        from ...sampling._proposals import IFD, ifd_correction
        from ._ee import ee_iterations, ifd_follow
        m_c = max(8, m // 4)
        cond = self.sampler
        follow = dens >= 0 and isinstance(sampler.proposal, IFD)
        for i in range(n_iter):
            d0 = np.array(cond.delta, dtype=float)
            cond.run(theta, m_c)
            dzA -= np.asarray(cond.delta, dtype=float) - d0
            if follow:
                arc_corr = ifd_correction(*ifd_follow(sampler, float(dzA[dens])))
            ee_iterations(sampler, theta, dzA, 1, m, update, a, c, aca, D, dens, arc_corr,
                          theta_out[i:i + 1], dz_out[i:i + 1], acc_out[i:i + 1],
                          v_out[i:i + 1], P)
        return n_iter

    def adjust(self, out, est, n_sim, interval):
        """The simulation at the estimate ``out["sims"]`` (g(x_i) − g(y_t))
        becomes g(x_i) minus the conditional mean, and ``out["cond_cov"]``
        holds the conditional covariance Cov(g | Y_obs) at ``est`` (the
        natural parameters η(θ̂) of a curved or offset model)."""
        ic = max(8, int(interval) // 4)
        d_t = np.array(self.sampler.delta, dtype=float)            # g(y_t) - g(y_0)
        # sample() gives g(y_j) - g(y_0): minus d_t, relative to y_t
        draws = self.sampler.sample(np.asarray(est, dtype=float), int(n_sim), 4 * ic, ic) - d_t
        out["sims"] = out["sims"] - draws.mean(axis=0)
        p = draws.shape[1]
        out["cond_cov"] = np.cov(draws, rowvar=False).reshape(p, p)
        out["proposals_sim"] = int(out.get("proposals_sim", 0)) + 4 * ic + int(n_sim) * ic

    def saved_arrays(self) -> dict:
        """The arrays a chain checkpoint stores for this chain: the completion."""
        return {"y_on": self.bm.on_vars()}
