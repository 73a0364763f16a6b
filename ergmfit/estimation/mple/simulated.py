"""The simulation-based standard errors of a pseudo-likelihood estimate, for every family
(binary and count MPLE): one chain of networks simulated from the fit
(:func:`simulated_states`), the Godambe sandwich over their pseudo-scores
(:func:`godambe`) and the parametric bootstrap that refits on them (:func:`bootstrap`).

What differs between the families is passed in as a function: how the design's
pseudo-score is read off a simulated state (``score``), how a simulated state becomes one
refit's arguments (``replicate``) and how that refit is done (``refit``).
"""
from __future__ import annotations

import sys

import numpy as np

from .bootstrap import bootstrap_covariance


def simulated_states(model, theta, est, rng, count):
    """Yield the compiled model at ``count`` states simulated from ``theta``, then the sampler.

    ``theta`` holds all the model's coefficients (offsets included): its sampler
    (``model.sampler(theta, proposal=, random_state=)``) runs at their natural parameters
    ``model.eta(theta)``, ``est.burnin`` proposals from the observed network, then
    ``est.interval`` proposals before each state.  The state yielded is the sampler's own
    compiled model: read it before asking for the next one.  With ``est.verbose`` the
    progress goes to stderr every tenth of ``count``.

    Parameters
    ----------
    model : a model with ``sampler()`` (an :class:`~ergmfit.ERGM`, binary or count)
    theta : array of the model's coefficients
    est : the estimator's settings (``proposal``, ``burnin``, ``interval``, ``verbose``)
    rng : numpy Generator (seeds the sampler)
    count : number of states

    Examples
    --------
    >>> import ergmfit as ef
    >>> from ergmfit.estimation.mple.pseudolikelihood import MPLE
    >>> m = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    >>> est = MPLE(burnin=100, interval=10)
    >>> it = simulated_states(m, [-1.6], est, np.random.default_rng(1), 3)
    >>> ties = [int(next(it).n_on_vars()) for _ in range(3)]     # each state's edge count
    >>> len(ties), all(0 <= t <= 120 for t in ties)
    (3, True)
    >>> 0 < next(it).acceptance_rate <= 1
    True
    """
    if not hasattr(model, "sampler"):
        raise TypeError("simulation-based standard errors need a model with a sampler() "
                        "method (e.g. an ERGM)")
    sampler, cm = model.sampler(theta, proposal=est.proposal, random_state=rng)
    eta = model.eta(theta) if hasattr(model, "eta") else theta
    sampler.run(eta, est.burnin)
    step = max(1, count // 10)
    for k in range(count):
        sampler.run(eta, est.interval)
        if est.verbose and (k + 1) % step == 0:
            print(f"  simulated {k + 1} of {count} networks", file=sys.stderr)
        yield cm
    yield sampler      # last item: the sampler, for diagnostics


def _chain_info(est, sampler) -> dict:
    return {"burnin": est.burnin, "interval": est.interval, "proposal": est.proposal,
            "acceptance_rate": sampler.acceptance_rate}


def godambe(model, theta, Hinv, score, est, rng):
    """The sandwich H^-1 J H^-1 of a pseudo-likelihood fit, and its info dict.

    J is the mean outer product of the pseudo-scores ``score(cm)`` (the fitted
    coefficients' pseudo-score at the simulated state ``cm``) over ``est.n_sim`` networks
    simulated from ``theta`` (all the model's coefficients, :func:`simulated_states`);
    ``Hinv`` is the inverse pseudo-Hessian at the observed network.  The info dict holds
    ``n_sim``, ``burnin``, ``interval``, ``proposal``, ``acceptance_rate`` and
    ``mean_score`` (zero in expectation).

    Examples
    --------
    Edges only: the pseudo-score is the likelihood's, ties - 120 p on Florence's 120 dyads,
    and the sandwich estimates the exact (naive) variance:

    >>> import ergmfit as ef
    >>> from ergmfit.estimation.mple.pseudolikelihood import MPLE
    >>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit("mple")
    >>> theta = np.asarray(fit.params, dtype=float)
    >>> p = 1 / (1 + np.exp(-theta[0]))
    >>> cov, info = godambe(fit.model, theta, np.asarray(fit.cov),
    ...                     lambda cm: [cm.n_on_vars() - 120 * p],
    ...                     MPLE(n_sim=300, burnin=1000, interval=50), np.random.default_rng(1))
    >>> bool(0.8 < np.sqrt(cov[0, 0]) / fit.bse["edges"] < 1.2), info["n_sim"]
    (True, 300)
    """
    n_sim = est.n_sim
    U = np.empty((n_sim, Hinv.shape[0]))
    it = simulated_states(model, theta, est, rng, n_sim)
    for r in range(n_sim):
        U[r] = score(next(it))
    sampler = next(it)
    J = U.T @ U / n_sim
    cov = Hinv @ J @ Hinv
    info = {"n_sim": n_sim, **_chain_info(est, sampler), "mean_score": U.mean(axis=0).tolist()}
    return 0.5 * (cov + cov.T), info


def bootstrap(model, theta, replicate, refit, est, rng, what="MPLE"):
    """The parametric bootstrap: the covariance of a fit's refits on networks simulated from
    ``theta``, and its info dict.

    ``est.bootstrap`` (else ``est.n_sim``) = B networks are simulated in turn (one chain,
    :func:`simulated_states`); ``replicate(cm)`` turns the current state into the arguments
    of one refit (a tuple; anything random -- a case-control sample, a seed -- drawn there,
    from ``rng``, in the networks' order) and ``refit(*args)`` returns the refit's parameters
    (None when that fit does not exist or does not converge).  With ``est.n_jobs`` = 1 each
    refit runs as soon as its network is drawn (one network's arguments held at a time);
    otherwise every network's arguments are drawn first and the refits run in parallel
    (:func:`~ergmfit.runtime.parallel.parallel_map`: ``refit`` and its arguments must
    pickle), with the same numbers.  The info dict holds ``B``, ``n_failed``, ``burnin``,
    ``interval``, ``proposal``, ``acceptance_rate`` and the ``estimates``.

    Examples
    --------
    Edges only, whose MPLE is the log-odds of the ties among Florence's 120 dyads (its
    s.e. at -1.6 about 0.25):

    >>> import ergmfit as ef
    >>> from ergmfit.estimation.mple.pseudolikelihood import MPLE
    >>> flo = ef.ERGM(ef.datasets.load("flomarriage"), "edges")
    >>> log_odds = lambda ties: [np.log(ties / (120 - ties))]
    >>> cov, info = bootstrap(flo, [-1.6], lambda cm: (cm.n_on_vars(),), log_odds,
    ...                       MPLE(bootstrap=100, burnin=1000, interval=50),
    ...                       np.random.default_rng(1))
    >>> info["B"], info["n_failed"], bool(0.2 < np.sqrt(cov[0, 0]) < 0.3)
    (100, 0, True)
    """
    from ...runtime.parallel import parallel_map
    B = est.bootstrap if est.bootstrap is not None else est.n_sim
    n_jobs = getattr(est, "n_jobs", 1)
    it = simulated_states(model, theta, est, rng, B)
    if n_jobs == 1:
        fits = [refit(*replicate(next(it))) for _ in range(B)]
    else:
        fits = parallel_map(refit, [replicate(next(it)) for _ in range(B)], n_jobs=n_jobs)
    sampler = next(it)
    cov, draws, failed = bootstrap_covariance(fits, what=what)
    info = {"B": B, "n_failed": failed, **_chain_info(est, sampler),
            "estimates": draws.tolist()}
    return cov, info
