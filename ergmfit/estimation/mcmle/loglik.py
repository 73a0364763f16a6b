"""The log-likelihood of a fitted ERGM: exactly for dyad-independent models, by
bridge sampling from the dyad-independent submodel otherwise (with the
observed-data form for missing dyads, offsets held fixed).

Used by :mod:`ergmfit.estimation.mcmle.estimator` (the fit's ``loglik``) and
:mod:`ergmfit.estimation.mcmle.missing`.
"""
from __future__ import annotations

import numpy as np

from ...sampling.chains import batch_means_cov, run_chains
from ...terms.offsets import model_offsets
from ..common.nobs import fit_nobs


def dyad_independent_loglik(model, theta):
    """Exact log-likelihood of the dyad-independent terms at ``theta`` (others at 0).

    Returns (loglik, theta0) where theta0 is the MLE of the dyad-independent
    submodel embedded in the full parameter vector (zeros elsewhere, but for
    the decays of curved terms, which keep ``theta``'s).  Offsets
    (``model.offset``, values in ``theta``; ``model.offset_coef`` as given,
    ±Inf included) stay fixed in the submodel.  With missing dyads or
    constraints the log-likelihood is over the free, observed dyads: for a
    dyad-independent model that is the observed-data log-likelihood.
    Returns None when no such reference exists: an infinite offset on a
    dyad-dependent term.
    """
    from ..mple.pseudolikelihood import MPLE
    theta = np.asarray(theta, dtype=float)
    p = len(theta)
    mask, coef = model_offsets(model)
    if mask.shape != (p,):
        mask = np.zeros(p, bool)
    given = np.array(theta)                      # offsets as given (±Inf kept)
    if mask.any() and coef is not None:
        given[mask] = coef
    idx, off, terms = [], 0, []
    theta0 = np.zeros(p)
    for j, t in enumerate(model.terms):
        k = len(getattr(t, "param_labels", None) or t.labels)
        sl = slice(off, off + k)
        if t.dyad_independent:
            idx.extend(range(off, off + k))
            terms.append(j)
        else:
            if mask[sl].any() and not np.all(np.isfinite(given[sl][mask[sl]])):
                return None
            if getattr(t, "curve", None) is not None:
                theta0[off + 1] = theta[off + 1]      # same decay, weight 0: η = 0 there
        off += k
    if not idx:                  # no dyad-independent term: the null model at θ = 0
        return fit_nobs(model)["null_loglik"], theta0
    sub = model.submodel(terms)
    sub_mask = mask[idx]
    if sub_mask.any():
        sub.offset = sub_mask
        sub.offset_coef = given[idx][sub_mask]
    if sub_mask.all():
        ll = _offsets_only_loglik(sub)
        theta0[idx] = theta[idx]
        return ll, theta0
    res = MPLE(verbose=False).fit(sub)
    theta0[idx] = np.where(sub_mask, theta[idx], np.asarray(res.params, dtype=float))
    return float(res.loglik), theta0


def pair_independent_loglik(model, theta):
    """Exact log-likelihood at ``theta`` of a model independent across node pairs, or None.

    A binary model whose every term's change statistic of (i, j) reads no dyad outside
    the node pair {i, j} (``edges``, ``mutual``, dyadic covariates, tergm's operators and
    ergm.multi's ``N()``/``L()`` over them: terms declaring ``reads``, see
    :attr:`ergmfit.terms.registry.Term.locality`; dyad-independent terms) factorises over
    the node pairs, each a categorical model of its joint states
    (:func:`ergmfit.estimation.common.pairstates.pair_states`).  The sum runs over the free
    dyads of the sample space (the blocks of a panel's transitions, a tergm CMLE's
    conditional log-likelihood).  None (bridge sampling applies) when a term does not
    declare it, the space has missing dyads or is not a set of free dyads, or a
    coefficient (an offset) is infinite.

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("samplk1"), "edges + mutual")
    >>> round(pair_independent_loglik(m, [0.0, 0.0]) / m.network.n_dyads, 6)   # log(1/2)
    -0.693147
    """
    from ..common.pairstates import pair_state_loglik
    model, theta = _full_model(model, theta)
    return pair_state_loglik(model, theta)


def _offsets_only_loglik(sub):
    """Log-likelihood of a dyad-independent model whose coefficients are all offsets."""
    from ..mple.pseudolikelihood import pseudo_design
    from ..common.restricted import offset_design
    # the MPLE's default design (its fixed case-control sample beyond max_dyads) over the
    # space's free, observed dyads
    design = pseudo_design(sub.compiled(), vars_=sub.sample_space.design_set())
    design, _, _ = offset_design(sub, design, list(sub.labels))
    return design.loglik(np.zeros(0))


def _full_model(model, theta):
    """(model, θ) in the coordinates of every coefficient: a fit's free-coefficient
    view (:class:`~ergmfit.terms.offsets.OffsetParameterisation`) unwrapped, its
    offsets marked in ``offset`` and ``offset_coef``."""
    par = model.parameterisation
    if par.fixed_coefficients() is None:
        return model, np.asarray(theta, dtype=float)
    import copy
    full = copy.copy(model)
    full.parameterisation = par.inner
    full.labels = list(par.inner.param_labels)
    mask, coef = par.fixed_coefficients()
    full.offset = mask.copy()
    full.offset_coef = coef.copy()
    return full, par.full(theta)


def bridge_loglik(model, theta, g_obs, starts, rng, bridges=16, samplesize=256, interval=1024,
                  burnin=None, n_jobs=1, proposal="auto", backend=None, cond=None,
                  cond_starts=None, cond_interval=None):
    """Log-likelihood at ``theta`` by bridge sampling from the dyad-independent submodel.

    Offsets stay at their values along the path (those of dyad-dependent terms
    move from 0, as their weights do).  With ``cond`` (the model on the space
    of the missing dyads given the observed ones, see
    :func:`ergmfit.estimation.mcmle.missing.conditional_model`) it is the
    observed-data log-likelihood (Handcock & Gile 2010): each bridge point
    also runs the constrained chain, and the derivative along the path is
    (η(θ) − η(θ0))·(E[g | observed] − E[g]).  Returns (loglik, its Monte
    Carlo s.e.), or (None, None) when the log-likelihood has no reference
    (an infinite offset on a dyad-dependent term)."""
    if cond is not None:
        cond, _ = _full_model(cond, theta)
    model, theta = _full_model(model, theta)
    ref = dyad_independent_loglik(model, theta)
    if ref is None:
        return None, None
    ll0, theta0 = ref
    par = model.parameterisation
    # the path θ0 + u (θ − θ0) keeps every decay at θ's, so η moves on a line
    # and d η / du = η(θ) − η(θ0)
    diff_theta = theta - theta0
    diff = par.eta(theta) - par.eta(theta0)
    burnin = 4 * interval if burnin is None else burnin
    total = 0.0
    sq = 0.0
    # from θ̂ towards θ0: the chains start in equilibrium at θ̂ and every bridge
    # point is a small move from the last, so a short burn-in suffices
    for k in reversed(range(bridges)):
        u = (k + 0.5) / bridges
        th = theta0 + u * diff_theta
        chains, starts, _ = run_chains(model, th, samplesize, burnin, interval, starts,
                                       n_chains=len(starts), n_jobs=n_jobs, random_state=rng,
                                       proposal=proposal, backend=backend)
        Z = [(c - g_obs) @ diff for c in chains]
        a = np.concatenate(Z)
        total += a.mean() / bridges
        sq += _batch_var(Z) / bridges**2
        if cond is not None:
            ci = interval if cond_interval is None else cond_interval
            chains_c, cond_starts, _ = run_chains(cond, th, samplesize, 4 * ci, ci, cond_starts,
                                                  n_chains=len(cond_starts), n_jobs=n_jobs,
                                                  random_state=rng, backend=backend)
            Zc = [(c - g_obs) @ diff for c in chains_c]
            total -= np.concatenate(Zc).mean() / bridges
            sq += _batch_var(Zc) / bridges**2
    # ℓ(θ) − ℓ(θ0) = −∫ diff·(E[z] − E[z | observed]) du  (z centred at the observed statistics)
    return ll0 - total, float(np.sqrt(sq))


def _batch_var(chains):
    """Batch-means variance of the mean of scalar chains (a list of 1-d arrays)."""
    return float(batch_means_cov([np.asarray(c, dtype=float)[:, None] for c in chains])[0, 0])
