"""MCMC-MLE's second attempt, after a failure of its iterations (#22).

The first attempt starts at the MPLE.  When its iterations fail (a retryable
DegenerateModelError: a near-degenerate swing, a chain stuck at the empty or
complete graph, a sampler that ran away), the fit is redone once, with a chain
``FALLBACK_INTERVAL`` times longer and steps kept to ``FALLBACK_IS_ESS`` of the
sample's importance weights (a trust region four times tighter), from a start
that fits the failure:

* after a **swing** (the simulated networks jump from far fewer to far more
  ties than observed from one iteration to the next), from the Equilibrium
  Expectation estimate.  A swing means the MLE lies where the mean-value map is
  steep (near a phase transition of the model): a start a little off -- the
  MPLE, or contrastive divergence, whose short chains from the observed network
  see only the first moves away from it -- lands in a sparse or a dense phase,
  and persistent chains carry that phase along.  EE moves θ while its chain
  stays at the observed network, so it ends where the observed network is in
  equilibrium.  faux.dixon.high ``edges + mutual + nodematch('grade') +
  nodematch('race') + nodematch('sex') + gwesp(0.5, fixed=TRUE)``: at the MPLE
  (gwesp 1.09) a chain from the observed network (1,197 ties) falls to ~400
  ties, at CD's estimate (gwesp 1.26) it climbs to ~2,700; from EE's
  (gwesp 0.94) MCMC-MLE converged in 3 iterations, and the sample at its MLE
  (gwesp 0.92) is unimodal around the observed network.
* otherwise, from the contrastive-divergence estimate (it starts at the
  observed network and moves only as far as short chains from it allow).

A start the user gave (``init``) is kept.  Only when the second attempt fails
too is DegenerateModelError raised, naming both attempts, with advice for the
model.
"""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError, ErgmfitError
from ...utils.validation import check_random_state

FALLBACK_INTERVAL = 4
FALLBACK_IS_ESS = 0.2


def swing(exc):
    """Mark ``exc`` (a retryable DegenerateModelError) as a near-degenerate swing."""
    exc.swing = True
    return exc


def _ee_start(model, random_state):
    """The EE estimate (default settings), or None when EE cannot fit the model."""
    try:        # through the model (the EE module imports MCMC-MLE's: no import circle)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = model.fit(method="ee", random_state=random_state, verbose=False)
    except (ErgmfitError, NotImplementedError):
        return None
    from ...runtime.interrupts import was_interrupted
    if was_interrupted(res):
        # EE answers Ctrl-C with its partial fit; the user asked the whole fit to stop
        # (MCMLE.fit returns the first attempt's work), not to restart from a partial EE
        raise KeyboardInterrupt
    theta = np.asarray(res.params, dtype=float)
    from ..common.curved import ran_off
    if ran_off(model, theta, True):         # a decay EE ran off with is no start
        return None
    return theta if theta.shape == (len(model.labels),) and np.all(np.isfinite(theta)) else None


def _cd_start(model, random_state):
    from ..contrastive.cd import CD
    if model.family.name not in CD.supports.get("families", ()):
        return None             # CD does not fit this family (its supports declaration)
    try:
        return CD(random_state=random_state).start(model)
    except DegenerateModelError:
        return None


def fall_back(model, settings, first, core):
    """Fit again by ``core(model, **settings)`` (the iterations of MCMC-MLE with these settings) after
    ``first`` (a retryable DegenerateModelError), as the module docstring says.
    Returns (what core returned, a note saying what was done), or raises a
    DegenerateModelError naming both attempts and advice for this model."""
    s = dict(settings)
    how = []
    if s["init"] is None:
        rng = check_random_state(s["random_state"])
        start = None
        if getattr(first, "swing", False):
            start = _ee_start(model, rng)
            if start is not None:
                how.append("from the equilibrium-expectation (EE) estimate")
        if start is None:
            start = _cd_start(model, rng)
            if start is not None:
                how.append("from the contrastive-divergence estimate")
        s["init"] = start
    s["interval"] = FALLBACK_INTERVAL * int(s["interval"])
    s["min_is_ess"] = max(float(s["min_is_ess"]), FALLBACK_IS_ESS)
    how += [f"an MCMC interval of {s['interval']}",
            f"steps kept to {s['min_is_ess']:.0%} importance-sampling effective size"]
    what = ", ".join(how)
    try:
        return core(model, **s), (f"the first MCMC-MLE attempt failed ({first}); the fit was "
                                  f"restarted {what}")
    except DegenerateModelError as second:
        raise DegenerateModelError(
            f"MCMC-MLE failed twice. First: {first} Then, restarted {what}: {second} "
            + advice(model)) from None


def advice(model):
    """What to try for this model, after both attempts failed."""
    tips = []
    names = [lab.split("(")[0].split(".")[0] for lab in model.labels]
    if any(n in ("triangle", "kstar", "istar", "ostar", "ttriple", "ctriple", "cycle")
           for n in names):
        tips.append("replace triangle/k-star terms by their geometrically weighted forms")
    gw = [lab for lab in model.labels if lab.startswith(("gwesp", "dgwesp", "gwdsp", "dgwdsp"))]
    if gw:
        tips.append(f"a smaller decay of {', '.join(gw)} (decay 0 counts the ties with any "
                    "shared partner, the least degenerate form)")
    tips.append("more dyadic covariates (nodematch, nodefactor, edgecov) that explain the ties "
                "the dependence terms now must")
    tips.append("init= an estimate of a simpler nested model")
    return "Advice for this model: " + "; ".join(tips) + "."
