"""Where an EE run starts (the MPLE, or MCMC-MLE's start when the MPLE does not
exist) and the unconditional refit after an IFD run."""
from __future__ import annotations

import numpy as np

from ...terms.parameter_steps import decay_ridge
from .chain import ee_update_for


def mple_start(model, rng, initial_estimate):
    """EE's ``init="mple"``: the MPLE.  A curved MPLE whose decay ran off along a
    ridge starts at the fixed-decay MPLE instead, as MCMC-MLE does
    (``initial_estimate``: :func:`ergmfit.estimation.mcmle.start.initial_estimate`, passed in -- mcmle
    sits above this module)."""
    update = ee_update_for(getattr(model, "parameterisation", None))
    return update.mple_start(model, rng, initial_estimate)


def _ifd_runoff(par, chains):
    """(decay label, value) of a decay beyond its ridge (:data:`ergmfit.terms.parameter_steps.DECAY_RIDGE`)
    at the end of the first phase of ``chains`` (the median of its last quarter of
    rows: the rows inside an outer iteration of the "newton" update are not capped),
    else None."""
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
    *conditional* on it, which may have no finite maximum in a decay
    (``docs/guide/estimators/ee_algorithm.md``, "Notes from runs").
    Returns (cfg, chains, interrupted, note); note None when nothing was redone.
    The rerun is not checkpointed: a resumed run redoes it."""
    par = getattr(model, "parameterisation", None)
    # a map without decays (θ = η) has none to run off: _ifd_runoff finds none
    if interrupted or par is None or cfg["proposal"] not in ("ifd", "ifd-tnt"):
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
