"""Where an MCMC-MLE fit (complete or missing data) starts: the exact MLE of a
dyad-independent model, the MPLE, contrastive divergence when the MPLE does not
exist, or the user's ``init`` (NaN decays of a curved model completed by the
curved MPLE)."""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError
from ...utils.validation import check_params
from ..common.curved import ran_off


def exact_mle_available(model, settings):
    """A dyad-independent model on all dyads: its likelihood is the pseudo-likelihood,
    so the MLE is the MPLE, exactly (statnet returns it too, without MCMC)."""
    space = getattr(model, "sample_space", None)
    return (bool(getattr(model, "dyad_independent", False)) and getattr(model, "terms", None)
            and not getattr(model, "curved", False)
            and space is not None and getattr(space, "kind", "") == "all"
            and not getattr(space, "n_missing", 0)
            and settings["init"] is None and settings["resume"] is None)


def exact_mle(model, settings):
    from ..mple.pseudolikelihood import MPLE
    res = MPLE(verbose=False).fit(model)
    res.method = "mle"
    res.warnings = list(res.warnings) + [
        "Note: the model is dyad-independent, so its likelihood is exact and the MLE is the "
        "MPLE; no MCMC was run (as statnet does)"]
    res.info["exact_mle"] = True
    res.info["call_method"] = "mcmle"
    return res


def _has_na(init):
    vals = list(init.values()) if isinstance(init, dict) else list(np.ravel(init))
    return any(v is None or (isinstance(v, float) and np.isnan(v)) for v in vals)


def start_theta(model, init, rng, completion=None):
    """The start of an MCMC-MLE fit (also the missing-data one): (θ, how it was
    found), ``how`` None for a given ``init`` (checked).  A curved model's ``init``
    with NaN (statnet's ``init=c(NA, NA, 0.7, ...)``) starts the curved MPLE there;
    no ``init``: :func:`initial_estimate`.  ``completion``: the random state of the
    MPLE's completion of missing dyads (None: its fixed one)."""
    if init is not None and getattr(model, "curved", False) and _has_na(init):
        from ..mple.pseudolikelihood import MPLE
        with warnings.catch_warnings():     # a ridge here is said later, if it matters
            warnings.simplefilter("ignore", ConvergenceWarning)
            res0 = MPLE(init=init, random_state=completion).fit(model)
        theta = np.asarray(res0.params, dtype=float)
        if ran_off(model, theta, res0.converged):      # its decay ran off: fixed-decay MPLE
            return np.asarray(res0.info["curved_start"], dtype=float), "MPLE (fixed decays)"
        return theta, "MPLE"
    if init is None:
        return initial_estimate(model, random_state=rng, completion=completion)
    return check_params(init, model.labels, "init"), None


def initial_estimate(model, random_state=None, completion=None):
    """Starting values: the MPLE, or -- when the MPLE does not exist
    (DegenerateModelError, e.g. separation) -- contrastive divergence
    (statnet's ``init.method = "CD"``).  Returns (theta, method name)."""
    from ..mple.pseudolikelihood import MPLE
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = MPLE(verbose=False, random_state=completion).fit(model)
        theta = np.asarray(res.params, dtype=float)
        if getattr(model, "curved", False) and ran_off(model, theta, res.converged):
            # the curved MPLE ran along a ridge: start from the best fixed-decay MPLE
            return np.asarray(res.info["curved_start"], dtype=float), "MPLE (fixed decays)"
        return theta, "MPLE"
    except DegenerateModelError:
        from ..contrastive.cd import CD
        return CD(random_state=random_state).start(model), "CD"
