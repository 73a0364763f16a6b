"""Equilibrium Expectation, pieces of one chain (see :mod:`._ee_chain`): the
sample space's proposals, the simulation at the estimate in pieces (progress
and stop between them), the adaptive update's scales for curved models, and
workers deaf to SIGINT."""
from __future__ import annotations

import os

import numpy as np

from ...exceptions import CheckpointError, SettingsError
from ...sampling import make_proposal
from ...utils.longrun import read_npz
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


def _density_param(model, dens):
    """Position in θ of the density parameter whose statistic is at ``dens``
    (None if it is an offset: fixed, not in θ)."""
    if dens is None:
        return None
    off_s = off_t = 0
    for t in model.terms:
        if off_s == dens:
            mask = getattr(model.parameterisation, "mask", None)     # offsets
            if mask is None:
                return off_t
            return None if mask[off_t] else int(off_t - mask[:off_t].sum())
        off_s += len(t.labels)
        off_t += len(t.param_labels)      # a term's coefficients (curved, operator-wrapped)
    return None


def _free_density(model, dens, proposal, curved):
    """The density statistic's position for IFD, None if ``offset(edges)``
    fixes its coefficient (IFD, which estimates it from V, is then refused)."""
    if curved and dens is not None and _density_param(model, dens) is None:
        if proposal in ("ifd", "ifd-tnt"):
            raise SettingsError(f"proposal={proposal!r} estimates the edges coefficient "
                                "from its auxiliary parameter, but offset(edges) fixes it: use "
                                "proposal='tnt' (the default here)")
        return None
    return dens


def _constrained_space(model):
    """The model's constrained sample space (statnet's ``constraints=``), or None."""
    space = getattr(model, "sample_space", None)
    return space if space is not None and getattr(space, "constrained", False) else None


def _proposal(model, space, name, bm):
    """A compiled proposal by name; under constraints the space's own (it
    never leaves the constrained space: restricted tie/no-tie, or the degree
    preserving moves)."""
    if space is None:
        return make_proposal(name, bm)
    return space.proposal("auto" if name in ("tnt", None) else name, bm, model)


def _sim_sampler(model, bm, rng):
    from ...sampling._mh import MHSampler
    space = _constrained_space(model)
    if space is not None:
        return space.make_sampler(bm, space.proposal("auto", bm, model), seed_words(rng))
    return MHSampler(bm, make_proposal(getattr(model, "default_proposal", "tnt"), bm),
                     seed_words(rng))


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


#: the kind of a finished chain's saved standard-error simulation (``chain_K_sims.npz``)
SIMS_KIND = "ergmfit-ee-checkpoint-sims"


def _sims_name(chain):
    return f"chain_{chain}_sims.npz"


def _read_sims(directory, chain, outer_done):
    """(sims, interval, proposals, other arrays) a finished chain saved in
    ``directory``, or None (not saved, or not of this run's last state)."""
    path = os.path.join(directory, _sims_name(chain))
    if not os.path.exists(path):
        return None
    meta, arrays = read_npz(path, what="EE checkpoint")
    sims = arrays.get("sims")
    try:
        ok = (meta.get("kind") == SIMS_KIND and meta.get("chain") == chain
              and meta.get("outer_done") == outer_done and sims is not None
              and sims.ndim == 2 and np.all(np.isfinite(sims)))
        interval, proposals = int(meta["interval"]), int(meta["proposals"])
    except (KeyError, TypeError, ValueError, AttributeError):
        ok = False
    if not ok:
        raise CheckpointError(f"{path} is damaged: not the standard-error simulation of chain "
                              f"{chain} of this run")
    return (np.asarray(sims, dtype=float), interval, proposals,
            {k: np.asarray(v, dtype=float) for k, v in arrays.items() if k != "sims"})


def mple_start(model, rng, initial_estimate):
    """EE's ``init="mple"``: the MPLE.  A curved MPLE whose decay ran off along a
    ridge starts at the fixed-decay MPLE instead, as MCMC-MLE does
    (``initial_estimate``: :func:`.mcmle.initial_estimate`, passed in -- mcmle
    sits above this module; samplike ``edges + mutual + gwesp(fixed=FALSE)``: the
    curved MPLE's decay runs to 804)."""
    par = getattr(model, "parameterisation", None)
    if par is not None and not par.linear:
        return np.asarray(initial_estimate(model, random_state=rng)[0], dtype=float)
    from ..mple.pseudolikelihood import fit_mple
    return np.asarray(fit_mple(model, verbose=False).params, dtype=float)


def _ifd_runoff(par, chains):
    """(decay label, value) of a decay beyond its ridge (:data:`.curved.DECAY_RIDGE`)
    at the end of the first phase of ``chains`` (the median of its last quarter of
    rows: the rows inside an outer iteration of the "newton" update are not capped),
    else None."""
    from ..common.curved import decay_ridge
    worst = None
    for ch in chains:
        rows = np.asarray(ch["phases"][0]["theta_rows"], dtype=float)
        rows = rows[-max(1, len(rows) // 4):]
        for ps, _, curve in par.curved_terms if len(rows) else ():
            k = ps.start + 1
            top = float(np.median(rows[:, k]))
            if top > decay_ridge(curve) and (worst is None or top > worst[1]):
                worst = (par.param_labels[k], top)
    return worst


def refit_unconditional(model, cfg, chains, interrupted, run):
    """A curved model's IFD run whose decay ran off is done again with tie/no-tie
    proposals from the same start (``run(cfg)`` -> (chains, interrupted)).

    IFD samples given the tie count, so EE with IFD solves the likelihood
    *conditional* on it (module docstring of :mod:`.ee`).  That one may have no
    finite maximum in a decay: on samplike ``edges + mutual + gwesp(fixed=FALSE)``
    the conditional log-likelihood (fixed-decay fits under ``constraints="~edges"``)
    is -192.3, -191.9, -191.8, -191.7, -191.6 at decays 1, 1.75, 3, 5, 18, rising
    to an asymptote, and IFD-EE duly drifts the decay to 18 (800 from the curved
    MPLE).  The unconditional likelihood has its maximum at 1.75: there the large
    decays are near-degenerate (the tie count swings between empty and full
    graphs), which conditioning on the tie count hides.  Tie/no-tie EE from the
    fixed-decay MPLE lands at decay 1.70-1.75 (seeds 1-3), statnet's MCMC-MLE.
    Returns (cfg, chains, interrupted, note); note None when nothing was redone.
    The rerun is not checkpointed: a resumed run redoes it."""
    par = getattr(model, "parameterisation", None)
    if interrupted or par is None or par.linear or cfg["proposal"] not in ("ifd", "ifd-tnt"):
        return cfg, chains, interrupted, None
    off = _ifd_runoff(par, chains)
    if off is None:
        return cfg, chains, interrupted, None
    cfg = dict(cfg, proposal="tnt", checkpoint=None, resume=None)
    chains, interrupted = run(cfg)
    note = (f"Note: with IFD proposals EE solves the likelihood given the tie count, and "
            f"{off[0]} ran off to {off[1]:.3g}: given the tie count the likelihood keeps "
            f"rising along {off[0]} (no finite conditional maximum). EE was redone with "
            "tie/no-tie proposals (proposal='tnt') from the same start; these estimates "
            "are that run's.")
    again = None if interrupted else _ifd_runoff(par, chains)
    if again is not None:
        note += (f" Its {again[0]} ran off too (to {again[1]:.3g}): the likelihood is flat "
                 f"along {again[0]}; fix the decay (e.g. gwesp(1, fixed=TRUE)) or fit by "
                 "method='mcmle'.")
    return cfg, chains, interrupted, note
