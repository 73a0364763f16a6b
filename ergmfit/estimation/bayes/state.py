"""Parts of the exchange algorithm (:mod:`ergmfit.estimation.bayes.exchange`): the first stages of
delayed acceptance, the completed networks of missing dyads and the
checkpoint reader."""
from __future__ import annotations

import os

import numpy as np

from ...exceptions import CheckpointError
from ...utils.longrun import read_npz

_CHECKPOINT_KIND = "ergmfit-bayes-checkpoint"


#: delayed='auto' uses the Gaussian first stage only when the pilot's whitened
#: statistics are this close to Gaussian (largest |skewness|, |excess kurtosis|):
#: its error at r posterior sds is about skewness x r^3 / 6 (the next cumulant);
#: the values measured on example models are in bayes_algorithm.md, "Tuning notes".
GAUSS_MAX_SKEW, GAUSS_MAX_KURT = 0.35, 1.0


class _GaussStage:
    """The first stage of delayed acceptance (``delayed='auto'``/``'pilot'``):
    the prior times the Gaussian approximation of the likelihood at θ0 from a
    pilot chain there, log L(θ) − log L(θ0) ≈ −(θ−θ0)·m − (θ−θ0)'S(θ−θ0)/2
    (m, S: the mean and covariance of g(x) − g(y) at θ0; the cumulant
    expansion of log Z): a Gaussian N(mu, prec^-1).  The second stage divides
    by its ratio, so the posterior is exact whatever its accuracy; the closer
    it is, the fewer auxiliary networks are drawn for proposals the exchange
    test would reject."""

    def __init__(self, prec, mu):
        self.prec = np.ascontiguousarray(prec, dtype=float)
        self.mu = np.ascontiguousarray(mu, dtype=float)

    @classmethod
    def fit(cls, prior, moments, mode="auto"):
        """The stage from a pilot's moments (``bayes._moments``), or None when
        ``mode`` is 'auto' and they are too far from Gaussian."""
        theta0, mean, cov, skew, kurt = moments
        if mode == "auto" and not (skew <= GAUSS_MAX_SKEW and kurt <= GAUSS_MAX_KURT):
            return None
        P = prior.precision
        prec = P + cov
        return cls(prec, np.linalg.solve(prec, P @ prior.mean + cov @ theta0 - mean))

    def logpdf(self, theta) -> float:
        d = np.asarray(theta, dtype=float) - self.mu
        return -0.5 * float(d @ self.prec @ d)


class _Surrogate:
    """The adjusted pseudo-likelihood of a model (:mod:`ergmfit.estimation.bayes.adjustment`) as the
    first stage of delayed acceptance."""

    def __init__(self, model, rng, verbose=False):
        from .adjustment import adjusted_design, adjustment
        from ..mple.pseudolikelihood import pseudo_design
        design = pseudo_design(model.compiled(), random_state=rng)
        adj = adjustment(model, design, None, rng, verbose)
        self.XW, self.c = adjusted_design(design, adj)
        self.s = np.ascontiguousarray(design.s, dtype=float)
        self.n = np.ascontiguousarray(design.n, dtype=float)

    def loglik(self, theta) -> float:
        e = self.XW @ theta + self.c
        return float(self.s @ e - self.n @ np.logaddexp(0.0, e))


class _Imputer:
    """The completed networks of the chains when dyads are missing: one
    sampler per chain on the space of the missing dyads given the observed
    ones (:func:`~ergmfit.estimation.mcmle.missing.conditional_model`), each with
    its own network; ``gx[h]`` is g(x_h) − g(y0), y0 the network as given.
    ``starts`` (a checkpoint's completions: one tie array per chain, with
    ``gx``) starts every chain's network where it was saved."""

    def __init__(self, model, H, steps, rng, starts=None, gx=None):
        from ..mcmle.missing import conditional_model
        cond = conditional_model(model)
        zero = np.zeros(model.n_params)
        made = [cond.sampler(zero, "auto", rng, start=None if starts is None else starts[h])
                for h in range(H)]
        self.samplers = [smp for smp, _ in made]
        self.states = [cm.state for _, cm in made]
        self.steps = int(model.sample_space.n_missing if steps is None else steps)
        self.gx = np.zeros((H, len(model.stat_labels))) if gx is None else np.array(gx)
        self.base = self.gx.copy()      # g(x_h) - g(y0) when the chain's sampler started

    def update(self, theta, eta=None):
        """One imputation step of every chain's network at its θ_h."""
        for h, smp in enumerate(self.samplers):
            smp.run(theta[h] if eta is None else eta(theta[h]), self.steps)
            self.gx[h] = self.base[h] + smp.delta

    def arrays(self):
        """The completions for a checkpoint: every chain's ties, stacked, and counts."""
        ties = [np.asarray(st.ties(), dtype=np.int64).reshape(-1, 2) for st in self.states]
        return {"completion_ties": np.concatenate(ties), "completion_counts":
                np.array([len(t) for t in ties], dtype=np.int64), "completion_gx": self.gx}


def _read_checkpoint(path, model, H, n_total):
    meta, z = read_npz(os.fspath(path), what="Bayes checkpoint")
    if meta.get("kind") != _CHECKPOINT_KIND or not {"theta", "out", "accepted"} <= set(z):
        raise CheckpointError(f"cannot resume: {path} is not a Bayes checkpoint of ergmfit")
    theta, done, accepted = z["theta"], z["out"], z["accepted"]
    if meta.get("labels") != list(model.labels):
        raise CheckpointError(f"cannot resume: the checkpoint {path} is for the coefficients "
                              f"{meta.get('labels')}, the model has {list(model.labels)}")
    if theta.shape != (H, model.n_params) or meta.get("n_total") != n_total:
        raise CheckpointError(
            f"cannot resume: the checkpoint {path} has {theta.shape[0]} chains and "
            f"{meta.get('n_total')} iterations; the settings ask for {H} and {n_total}")
    out = np.empty((n_total, H, model.n_params))
    out[:len(done)] = done
    state = {"theta": np.array(theta), "out": out,
             "accepted": np.array(accepted, dtype=np.int64), "it": int(meta["it"]),
             "rng": meta["rng"], "aux_iters": meta.get("aux_iters")}
    if "stage_prec" in z:               # the first stage of delayed acceptance
        state["stage_prec"], state["stage_mu"] = np.array(z["stage_prec"]), np.array(z["stage_mu"])
    if "completion_ties" in z:          # missing dyads: every chain's completed network
        counts = np.asarray(z["completion_counts"], dtype=np.int64)
        if counts.shape != (H,) or z["completion_gx"].shape != (H, len(model.stat_labels)):
            raise CheckpointError(f"cannot resume: the completions in {path} do not fit "
                                  "the model")
        state["completions"] = np.split(np.asarray(z["completion_ties"], dtype=np.int64),
                                        np.cumsum(counts)[:-1])
        state["completion_gx"] = np.array(z["completion_gx"])
    return state
