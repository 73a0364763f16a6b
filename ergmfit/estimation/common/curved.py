"""What the likelihood estimators do when a curved fit (``gwesp(fixed=FALSE)``, ...)
is in trouble, and MCMC-MLE's pilot sample.

The maths of fitting through a curved map η(θ) -- the curved importance-sampling
and pseudo-likelihood steps, the box of the parameters, start values, decay
messages -- belongs to the model layer: :mod:`ergmfit.terms.parameter_steps`,
reached through the model's
:class:`~ergmfit.terms.parameterisation.Parameterisation` (``par.is_step``,
``par.projector``, ...).  Here: MCMC-MLE's pilot sample at the smallest interval
(:func:`first_sample_ok`), and, when a fit fails, what happened in plain words
and what to try (:func:`degenerate_sample`, :func:`check_runoff`,
:func:`restart`).
"""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError
from ...terms.curved import fixed_term
from ...terms.parameter_steps import MAX_DECAY_STEP, decay_ridge, projector


def first_interval(interval, min_interval):
    """The MCMC interval of a curved MCMC-MLE fit's first sample: the smallest one
    (a pilot, see :func:`first_sample_ok`)."""
    return min(int(interval), int(min_interval))


def first_sample_ok(par, theta, chains, target_ess, min_share):
    """Whether a curved fit's first sample, drawn at the smallest interval, has the
    effective draws every MCMC-MLE sample aims at (``target_ess`` multivariate, and
    ``min_share`` of it for every direction of θ): the rule by which the interval
    adapts would not lengthen it.  Otherwise the pilot is forgotten and the first
    sample drawn as without it (same start, burn-in and random numbers: the fit is
    the one a linear model's rule gives).  On the Lazega model the pilot at 256 has
    100-180 effective draws (at 1024 the sample had 350-530, for a target of 64); on
    faux.mesa.high gwesp + gwdegree it has ~20 and is forgotten."""
    from ...sampling.chains import effective_sizes, multivariate_ess
    proj = projector(par, theta)
    zp = [proj(c) for c in chains]
    return (multivariate_ess(zp) >= target_ess
            and float(effective_sizes(zp).min()) >= min_share * target_ess)


# --- when a curved fit fails: what happened, in plain words, and what to try (#17 item 3)

TRIADIC = ("triangle", "kstar", "istar", "ostar", "ttriple", "ctriple", "cycle", "twopath",
           "tripercycle", "transitive", "m2star", "b1star", "b2star")
GW_PREFIXES = ("gw", "dgw", "altkstar")

# a decay moved by (nearly) MAX_DECAY_STEP, the same way, this many iterations running:
# it is running off (a legitimate fit starts within a few steps of its MLE)
RUNOFF_STEPS = 8
# the step towards the observed statistics stayed below this share, with the sample
# farther than STALL_T sample sd from them, this many iterations running: stalled
STALL_GAMMA, STALL_T, STALL_ITERS = 0.05, 5.0, 3


def gw_advice(model, if_gw=""):
    """The 'use geometrically weighted terms' advice, only for a model with triangle
    or k-star terms and no geometrically weighted term; ``if_gw`` for a model that
    has GW terms; "" otherwise."""
    labels = [str(lab) for lab in model.labels]
    if any(lab.startswith(GW_PREFIXES) for lab in labels):
        return if_gw
    if any(lab.startswith(TRIADIC) for lab in labels):
        return ("geometrically weighted terms (gwesp, gwdsp, gwdegree) instead of triangle or "
                "k-star terms, ")
    return ""


def _path(par, history, theta):
    """Per curved term: (weight label, decay label, curve, decays over the iterations)."""
    thetas = [h["theta"] for h in history if not h.get("backtrack")] + [list(theta)]
    out = []
    for ps, _, curve in par.curved_terms:
        d = [float(t[ps.start + 1]) for t in thetas]
        out.append((par.param_labels[ps.start], par.param_labels[ps.start + 1], curve, d))
    return out


def ran_off(model, theta, converged):
    """A fit (an MPLE, EE) is no start: not ``converged``, or a decay beyond its ridge."""
    return (not converged) or any(theta[ps.start + 1] > decay_ridge(c)
                                  for ps, _, c in model.parameterisation.curved_terms)


def mple_start(model, res):
    """A start from the MPLE fit ``res``: (θ, how it was found).  Its estimate, unless
    the MPLE offers a fixed-decay start (``info["curved_start"]``, a curved model's)
    and :func:`ran_off`: then that start (the curved MPLE ran along a ridge)."""
    theta = np.asarray(res.params, dtype=float)
    fixed_decays = res.info.get("curved_start")
    if fixed_decays is not None and ran_off(model, theta, res.converged):
        return np.asarray(fixed_decays, dtype=float), "MPLE (fixed decays)"
    return theta, "MPLE"


def _sane(curve, path, history):
    """The last decay before things went wrong: at the last iteration whose sample was
    near the observed statistics (every |t| <= 3), else the start -- and never one
    beyond the ridge (then the usual start, 0.5 or λ = 2)."""
    good = [k for k, h in enumerate(h for h in history if not h.get("backtrack"))
            if "t_mean" in h and np.max(np.abs(h["t_mean"])) <= 3]
    for v in ([path[good[-1]]] if good else []) + [path[0]]:
        if curve.decay_lower < v <= decay_ridge(curve) or (v == curve.decay_lower == 0.0):
            return v
    return 0.5 if curve.decay_name == "decay" else 2.0


def _describe_paths(paths):
    parts = []
    for _, d_lab, _, d in paths:
        if len(d) > 1 and abs(d[-1] - d[0]) > 1e-3:
            parts.append(f"{d_lab} went from {d[0]:.3g} to {d[-1]:.3g} in {len(d) - 1} "
                         "iteration(s)")
        else:
            parts.append(f"{d_lab} = {d[-1]:.3g}")
    return "; ".join(parts)


def expert_advice(par, paths, history, running=None):
    """What a statnet expert would try for a curved fit in trouble: fix each decay at
    its last sane value (a ``running`` decay -- its label -- at its start, the others
    where they are), start lower (init=), or more MCMC."""
    fixes, inits = [], []
    for w_lab, d_lab, curve, d in paths:
        if running is None:
            v = _sane(curve, d, history)
        else:
            v = _sane(curve, [d[0] if d_lab == running else d[-1]], [])
        fixes.append(fixed_term(curve, w_lab, float(v)))
        low = 0.5 if curve.decay_name == "decay" else 2.0
        moved = running is None or d_lab == running
        inits.append(f"{d_lab}={(min(v, low) if v > 0 else low) if moved else v:.3g}")
    return (f"What to try: fix the decay at its last sane value ({', '.join(fixes)}); or "
            f"start the decay elsewhere with init= (NaN for the other parameters, e.g. "
            f"{', '.join(inits)}); or more MCMC (a larger interval and samplesize)")


def _t_summary(model, chains, g_obs, D):
    """'the simulated networks have 570 ties on average (observed 115 of 630 dyads); ...'"""
    S = np.concatenate(chains)
    labels = list(model.stat_labels)
    facts = []
    if "edges" in labels:
        k = labels.index("edges")
        facts.append(f"the simulated networks have {S[:, k].mean():.0f} ties on average "
                     f"(observed {g_obs[k]:.0f}, of {D} dyads)")
    for ps, ss, curve in model.parameterisation.curved_terms:
        zero = np.all(S[:, ss] == 0)
        if zero and np.any(g_obs[ss] != 0):
            first, last = labels[ss.start], labels[ss.stop - 1]
            if "deg" in first:
                why = f"every node has degree 0 or above the cutoff {curve.K}"
            elif curve.decay_name == "lambda":
                why = "no node has a degree in 1 .. the cutoff"
            else:
                why = f"no pair has between 1 and {curve.K} (the cutoff) shared partners"
            facts.append(f"the counts {first} .. {last} of "
                         f"{model.parameterisation.param_labels[ps.start]} are 0 in every draw "
                         f"(observed total {g_obs[ss].sum():.0f}): {why}")
    return "; ".join(facts)


def _theta_text(par, theta):
    return ", ".join(f"{lab} {v:.3g}" for lab, v in zip(par.param_labels, theta))


def degenerate_sample(model, exc, chains, g_obs, D, history, theta):
    """A curved fit's sample did not vary or stuck at the empty/complete graph
    (``exc`` from check_degeneracy): the same error with what happened in plain words
    (the sample against the observed statistics, the decays' paths) and the expert's
    advice instead of the generic one."""
    par = model.parameterisation
    if not par.curved_terms:        # no decay to tell about: the error as it was
        return exc
    paths = _path(par, history, theta)
    facts = _t_summary(model, chains, g_obs, D)
    head = str(exc).split(":")[0]
    new = DegenerateModelError(
        f"{head}: the curved model is degenerate at ({_theta_text(par, theta)}) -- "
        f"{facts or 'the sample does not vary'}. {_describe_paths(paths)}. "
        + expert_advice(par, paths, history))
    for key in ("retryable", "swing"):
        if getattr(exc, key, False):
            setattr(new, key, True)
    new.decay_start = [d[0] for _, _, _, d in paths]
    return new


# the decays a failed default start is retried from (statnet's users' usual choice)
RESTART_DECAY = {"decay": 0.5, "lambda": 2.0}


def restart(model, settings, first, core, mple):
    """After ``first`` (a DegenerateModelError of a curved fit from the default start:
    a degenerate sample or a stall, with its start decays in ``first.decay_start``),
    fit once more by ``core(model, **settings)`` from the fixed-decay MPLE with every
    decay at RESTART_DECAY -- what a statnet expert tries first (``mple``: the MPLE
    estimator class, passed in by the caller: this module stays below ``mple`` in the
    import graph).  samplike
    ``edges + mutual + gwesp(fixed=FALSE)``: the default start (decay 2, the best
    fixed-decay pseudo-likelihood of the grid) stalls in the almost empty mode; from
    decay 0.5, seeds 1-5 converge to gwesp.decay 1.75-1.81.  Returns (what core
    returned, a note, how the fit started); raises ``first`` when its start had those
    decays already, or a DegenerateModelError naming both attempts."""
    par = model.parameterisation
    init = np.full(len(model.labels), np.nan)
    for ps, _, curve in par.curved_terms:
        init[ps.start + 1] = RESTART_DECAY[curve.decay_name]
    decays = init[par.decay_indices()]
    if np.allclose(decays, first.decay_start):
        raise first
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            start = np.asarray(mple(init=init, verbose=False).fit(model).info["curved_start"],
                               dtype=float)
    except (DegenerateModelError, KeyError):
        raise first from None
    what = ", ".join(f"{par.param_labels[k]} {v:g}" for k, v in zip(par.decay_indices(), decays))
    s = dict(settings, init=start)
    try:
        out = core(model, **s)
    except DegenerateModelError as second:
        raise DegenerateModelError(f"{first} -- Restarted from the fixed-decay MPLE at {what}: "
                                   f"{second}") from None
    return out, (f"the fit from the default start failed ({str(first).split('. ')[0]}); it was "
                 f"restarted from the fixed-decay MPLE at {what}"), \
        f"MPLE (fixed decays {what}, after a failed start)"


def check_runoff(model, history, theta, chains=None, g_obs=None, D=None):
    """Raise DegenerateModelError, fast, when a curved MCMC-MLE fit runs off: a decay
    beyond its ridge, a decay moved the same way at the largest step allowed
    RUNOFF_STEPS iterations running, or steps towards the observed statistics that
    stay near 0 with the sample far from them (a chain fallen into another mode of
    a bimodal model).  ``history``: the iterations' records, ``theta`` the next θ;
    ``chains`` (the last sample's canonical statistics), ``g_obs`` and ``D`` (dyads)
    describe the sample in the message."""
    par = model.parameterisation
    if par.linear:      # η = θ: no decay to run off; its swings are the oscillation guard's
        return
    paths = _path(par, history, theta)
    recs = [h for h in history if not h.get("backtrack")]
    why = running = None
    for w_lab, d_lab, curve, d in paths:
        steps = np.diff(d)[-RUNOFF_STEPS:]
        if d[-1] > decay_ridge(curve):
            why = (f"{d_lab} ran off: it went from {d[0]:.3g} to {d[-1]:.3g} in {len(d) - 1} "
                   f"iteration(s), beyond {decay_ridge(curve):.3g}, where {w_lab} counts every "
                   "shared partner or degree alike (a triangle/k-star-like term)")
        elif len(steps) == RUNOFF_STEPS and (np.all(steps > 0.8 * MAX_DECAY_STEP)
                                             or np.all(steps < -0.8 * MAX_DECAY_STEP)):
            way = "rising" if steps[-1] > 0 else "falling"
            why = (f"{d_lab} is running off: it went from {d[0]:.3g} to {d[-1]:.3g} in "
                   f"{len(d) - 1} iterations, the last {RUNOFF_STEPS} all at the largest step "
                   f"allowed ({MAX_DECAY_STEP}) and still {way}: the likelihood has a ridge "
                   f"along {d_lab}")
            w = float(theta[par.param_labels.index(w_lab)])
            if abs(w) < 0.1:
                why += (f" ({w_lab} = {w:.3g}: with a weight near 0 its decay is hardly "
                        "identified; dropping the term is an option too)")
        if why:
            running = d_lab
            break
    if why is None and len(recs) >= STALL_ITERS:
        last = recs[-STALL_ITERS:]
        if all(h["gamma"] < STALL_GAMMA and "t_mean" in h
               and np.max(np.abs(h["t_mean"])) > STALL_T for h in last):
            facts = _t_summary(model, chains, g_obs, D) if chains is not None else ""
            why = (f"MCMC-MLE stalled: in iterations {last[0]['iteration']}-"
                   f"{last[-1]['iteration']} the sample stayed far from the observed "
                   f"network -- {facts or 'its means more than 5 sd away'} -- and the step "
                   f"towards it was at most {max(h['gamma'] for h in last):.1%} of the way")
            near = [h for h in recs[:-STALL_ITERS]
                    if "t_mean" in h and np.max(np.abs(h["t_mean"])) <= 3]
            if near:
                why += (f"; at iteration {near[-1]['iteration']}, at nearly the same "
                        "parameters, the sample was near the observed network: the model is "
                        "bimodal (near-degenerate) there, and the chain fell into the other mode")
            why += f". {_describe_paths(paths)}"
    if why is not None:
        exc = DegenerateModelError(f"{why}. At ({_theta_text(par, theta)}). "
                                   + expert_advice(par, paths, history, running))
        if running is None:         # a stall: another start may avoid the other mode
            exc.decay_start = [d[0] for _, _, _, d in paths]
        raise exc
