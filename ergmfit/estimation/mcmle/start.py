"""Where an MCMC-MLE fit (complete or missing data) starts: the exact MLE of a
dyad-independent model, the MPLE, contrastive divergence when the MPLE does not
exist, or the user's ``init`` (NaN decays of a curved model completed by the
curved MPLE)."""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning, DegenerateModelError
from ...terms.parameterisation import model_parameterisation
from ...utils.validation import check_params
from ..common.curved import mple_start
from ..common.nobs import fit_nobs


def exact_mle_available(model, settings):
    """Whether the MLE is computed exactly, without MCMC (unless ``force_main``, statnet's
    ``force.main``, or an ``init`` or ``resume`` is given):

    - a dyad-independent model on all dyads: its likelihood is the pseudo-likelihood, so
      the MLE is the MPLE, exactly (statnet returns it too, without MCMC);
    - a model independent across node pairs (every term's change statistic reads within
      its node pair: ``Term.locality``) on a stacked network (``ef.Networks``,
      ``ef.Layer``) whose sample space is walked by node pairs: the likelihood is a product
      over the pairs' joint states (:mod:`ergmfit.estimation.common.pairstates`); where
      that solve fails (no MLE) the MCMC-MLE runs."""
    if settings["init"] is not None or settings["resume"] is not None \
            or settings.get("force_main"):
        return False
    if not getattr(model, "terms", None) or not model_parameterisation(model).affine:
        return False
    space = getattr(model, "sample_space", None)
    if space is None:
        return False
    if bool(getattr(model, "dyad_independent", False)) and space.moves_one_dyad:
        return True
    return "pairs" in space.proposals() and bool(getattr(model, "pair_independent", False))


def exact_mle(model, settings):
    """The exact MLE (see :func:`exact_mle_available`), or None where the node-pair solve
    finds none (the MCMC-MLE then runs)."""
    from ..mple.pseudolikelihood import MPLE
    if not (bool(getattr(model, "dyad_independent", False)) and model.sample_space.moves_one_dyad):
        return pair_state_result(model)
    res = MPLE(verbose=False).fit(model)
    res.method = "mle"
    res.warnings = list(res.warnings) + [
        "Note: the model is dyad-independent, so its likelihood is exact and the MLE is the "
        "MPLE; no MCMC was run (as statnet does)"]
    res.diagnostics.update({"exact_mle": True, "call_method": "mcmle"})
    return res


def pair_state_result(model):
    """The MCMC-MLE's results of a model independent across node pairs, computed exactly by
    :func:`~ergmfit.estimation.common.pairstates.pair_state_mle` (statnet's summary,
    "Maximum Likelihood Results", with an exact log-likelihood and no Monte Carlo part of
    the s.e.), or None where it finds no MLE."""
    import time
    from ...results import ERGMResults
    from ..common.pairstates import pair_state_mle
    t0, c0 = time.perf_counter(), time.process_time()
    fit = pair_state_mle(model)
    if fit is None:
        return None
    p = len(fit.theta)
    table = fit.table
    res = ERGMResults(
        fit.theta, fit.cov, model.labels, method="mle", loglik=fit.loglik, loglik_kind="exact",
        **fit_nobs(model), converged=True, n_iter=fit.iterations,
        seconds=time.perf_counter() - t0, cov_mc=np.zeros((p, p)), se_kind="exact",
        warnings=["Note: every term's change statistic reads only its node pair's dyads, so "
                  "the likelihood is a product over the node pairs' joint states and the MLE "
                  f"is exact (Newton's method on {table.n_pairs} pairs' tables of "
                  f"{table.D.shape[1]} states); no MCMC was run"],
        info={"exact_mle": True, "call_method": "mcmle",
              "pair_states": {"pairs": int(table.n_pairs), "dyads": int(table.n_dyads),
                              "states": int(table.D.shape[1]), "classes": int(len(table.D)),
                              "newton_iterations": int(fit.iterations),
                              "cpu_seconds": time.process_time() - c0}},
        formula=model.formula, network=model.network, model=model,
        dyad_independent=model.dyad_independent)
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
    if init is not None and not model_parameterisation(model).affine and _has_na(init):
        from ..mple.pseudolikelihood import MPLE
        with warnings.catch_warnings():     # a ridge here is said later, if it matters
            warnings.simplefilter("ignore", ConvergenceWarning)
            res0 = MPLE(init=init, random_state=completion).fit(model)
        return mple_start(model, res0)
    if init is None:
        return initial_estimate(model, random_state=rng, completion=completion)
    return check_params(init, model.labels, "init"), None


def initial_estimate(model, random_state=None, completion=None):
    """Starting values: the MPLE, or contrastive divergence (statnet's
    ``init.method = "CD"``) when the MPLE does not exist (DegenerateModelError,
    e.g. separation) or ignores the sample space: under a constraint that is not
    a set of free dyads (``degrees``, ``bd``, ``edges``, ``snowball``...) the
    pseudo-likelihood treats every free dyad as free to toggle alone (statnet's
    MPLE refuses such constraints unless ``MPLE.constraints.ignore=TRUE``), while
    CD runs the constrained chain.  Returns (theta, method name)."""
    from ..mple.pseudolikelihood import MPLE
    space = getattr(model, "sample_space", None)
    if space is not None and not space.dyad_independent:
        from ..contrastive.cd import CD
        return CD(random_state=random_state).start(model), "CD"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = MPLE(verbose=False, random_state=completion).fit(model)
        return mple_start(model, res)
    except DegenerateModelError:
        from ..contrastive.cd import CD
        return CD(random_state=random_state).start(model), "CD"


def nothing_to_estimate(model, settings, n_chains):
    """The MCMC-MLE of a model whose every coefficient is an offset: no iterations (as
    statnet: "All terms are either offsets or extreme values. No optimization is
    performed"); the fit holds no free coefficient and, with ``eval_loglik``, the
    log-likelihood at the offsets by bridge sampling (the observed-data one with
    missing dyads).  ``settings``: the MCMC-MLE's."""
    from ...results import ERGMResults
    from ...runtime import GuardedPhases
    from ...utils.validation import check_random_state
    from .loglik import bridge_loglik
    from .target import target_for
    msg = ("every coefficient of the model is an offset: nothing to estimate, no MCMC-MLE "
           "iteration was run")
    warnings.warn(msg, stacklevel=4)
    theta, g_obs = np.zeros(0), model.statistics_vector()
    loglik = loglik_se = None
    warn = [msg]
    exact = model.exact_loglik(theta) if settings["eval_loglik"] else None
    if exact is not None:                   # a model independent across dyad pairs
        loglik, loglik_se = exact, 0.0
    elif settings["eval_loglik"]:
        target = target_for(model)
        samplesize = settings.get("bridge_samplesize") or max(64, settings["samplesize"] // 8)
        guard = GuardedPhases()
        with guard.phase("loglik"):
            loglik, loglik_se = bridge_loglik(
                model, theta, g_obs, [None] * n_chains,
                check_random_state(settings["random_state"]),
                bridges=settings.get("bridges", 16), samplesize=samplesize,
                interval=settings["interval"], n_jobs=settings["n_jobs"],
                proposal=settings["proposal"], backend=settings["backend"],
                **target.loglik_args(None, n_chains))
        if guard.interrupted:
            loglik = loglik_se = None
            warn.append("interrupted by the user while bridge-sampling the log-likelihood: "
                        "its log-likelihood is NA")
    return ERGMResults(theta, np.zeros((0, 0)), [], method="mcmle", loglik=loglik,
                       loglik_kind=None if loglik is None else
                       "exact" if exact is not None else "bridge",
                       loglik_mcse=loglik_se, **fit_nobs(model), converged=True, n_iter=0,
                       se_kind="MCMC", warnings=warn,
                       info={"nothing_estimated": True, "loglik_mcse": loglik_se},
                       formula=model.formula, network=model.network, model=model,
                       dyad_independent=model.dyad_independent)
