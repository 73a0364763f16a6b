"""Equilibrium Expectation's simulations (see :mod:`ergmfit.estimation.ee.chain`): the plan and the
pieces of the simulation at the estimate (progress and stop between them; its
checkpoint file is :class:`.checkpoint.EESimsState`), and the adaptive update's scales for curved models."""
from __future__ import annotations

import numpy as np

from ...sampling.space import sample_space_of
from ...utils.validation import seed_words


def sim_plan(cfg, L0):
    """The simulation at the estimate: (interval, burn-in, draws, proposals per
    progress unit, progress units).  A unit is one EE outer iteration's worth
    of proposals, so the progress bar moves at an even pace through it."""
    interval = int(cfg["se_interval"] or int(max(1024, min(L0 or 1024, 10000))))
    burn = int(cfg["se_burnin"] if cfg["se_burnin"] is not None else 16 * interval)
    n = int(cfg["se_samplesize"])
    unit = max(1, int(cfg["ee_inner_steps"]) * int(cfg["sampler_steps"]))
    per = max(1, unit // interval)
    units = -(-burn // unit) + -(-n // per)
    return interval, burn, n, unit, units if cfg["se"] == "simulate" else 0


def _sim_sampler(model, bm, rng):
    space = sample_space_of(model)
    return space.make_sampler(bm, space.proposal("auto", bm, model), seed_words(rng))


def _simulate(sampler, theta, n, burn, interval, unit, control, offset):
    """``n`` draws ``interval`` proposals apart after ``burn``, in pieces of
    about ``unit`` proposals: between pieces the progress goes to ``control``
    (``offset`` + pieces done) and a stop request raises KeyboardInterrupt.
    The draws equal one ``sampler.sample(theta, n, burn, interval)`` call."""
    q = len(sampler.delta)
    out = np.zeros((n, q))
    done = 0
    left = burn
    while left > 0:
        step = min(left, unit)
        sampler.sample(theta, 0, step, 1)
        left -= step
        done += 1
        _sim_tick(control, offset + done)
    per = max(1, unit // interval)
    i = 0
    while i < n:
        k = min(per, n - i)
        out[i:i + k] = sampler.sample(theta, k, 0, interval)
        i += k
        done += 1
        _sim_tick(control, offset + done)
    return out


def _sim_tick(control, done):
    if control is None:
        return
    control.report(done)
    if control.stop_requested():
        raise KeyboardInterrupt


def _curved_scales(sampler, par, theta, steps, m, dens_s):
    """D_k = m / Σ u_k² of the adaptive update of a curved model, u = J'(del − add)
    of ``steps`` batches of ``m`` proposals scored (not applied) on the
    observed network at η(θ) -- Algorithm S's scales, in the parameters'
    directions (J = ∂η/∂θ at the start θ; IFD's V is left alone)."""
    eta = np.array(par.eta(theta), dtype=float)
    if dens_s is not None:
        eta[dens_s] = 0.0
    J = par.jacobian(theta)
    D0 = np.zeros(par.n_params)
    for _ in range(steps):
        add, dele = sampler.run_batch(eta, m, apply=False, end_batch=False)
        u = J.T @ (np.asarray(dele) - np.asarray(add))
        D0 += u * u
    with np.errstate(divide="ignore"):
        return np.where(D0 > 0, m / D0, np.inf)
