"""What a fit reports about its observations, one definition for every estimator:
statnet's ``nobs`` (the dyads the model's sample space lets vary and observes: a
two-mode network's between its modes, the free dyads of ``fixallbut``/``blockdiag``/
``Dyads()``, a panel's transitions, without missing ones) and the log-likelihood of the
null model over them (θ = 0: each tie 1/2 in a binary model, the reference measure alone
in a count model), from which the null deviance, AIC and BIC are read.

The count is the sample space's (:attr:`~ergmfit.sampling.space.SampleSpace.n_free`),
not an estimator's: an MPLE design's rows after an infinite offset decided some dyads,
a case-control sample of non-ties or a composite likelihood's blocks are how an estimator
reads the same observations.  statnet's ``logLikNull`` is "the log-probability of
observing the observed, unconstrained dyads" under the null model; offsets are not
constraints, so the dyads an infinite offset decides are counted (they add log 1 = 0 to
the log-likelihood), as are those an infinite estimate decides (statnet's summary of a
fit on a face, :class:`~ergmfit.estimation.mple.boundary.ModelFace`).

>>> import networkx as nx, ergmfit as ef
>>> from ergmfit.estimation.common.nobs import fit_nobs
>>> g = nx.complete_bipartite_graph(2, 3)        # 2 x 3 dyads between the modes
>>> fit_nobs(ef.ERGM(g, "edges"))["nobs"]
6
"""
from __future__ import annotations

from ...sampling.space import sample_space_of


def fit_nobs(model) -> dict:
    """``{"nobs": ..., "null_loglik": ...}``, the keyword arguments of
    :class:`~ergmfit.results.ERGMResults` every estimator passes: ``nobs`` the sample
    space's free, observed dyads (``sample_space.n_free``; None for a model without a
    network, whose variables :class:`~ergmfit.sampling.space.AllVariables` does not
    count), ``null_loglik`` the model's own ``null_loglik(nobs)`` (binary: -nobs log 2;
    counts: the reference measure's; None with ``nobs``).

    Parameters
    ----------
    model : ERGM or any model an estimator fits

    Examples
    --------
    >>> import ergmfit as ef
    >>> m = ef.ERGM(ef.datasets.load("samplike"), "edges", constraints="~ blockdiag('group')")
    >>> out = fit_nobs(m)
    >>> out["nobs"], round(float(out["null_loglik"]), 4)    # ordered pairs within groups
    (96, -66.5421)
    """
    nobs = sample_space_of(model).n_free
    return {"nobs": nobs, "null_loglik": None if nobs is None else model.null_loglik(nobs)}
