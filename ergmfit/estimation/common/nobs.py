"""What a fit reports about its observations: statnet's ``nobs`` (the dyads the model's
sample space lets vary and observes: a two-mode network's between its modes, the free
dyads of ``fixallbut``/``blockdiag``, without missing ones) and the log-likelihood of the
null model over them (θ = 0: each tie 1/2 in a binary model, the reference measure alone
in a count model), from which the null deviance, AIC and BIC are read.

>>> import networkx as nx, ergmfit as ef
>>> from ergmfit.estimation.common.nobs import fit_nobs
>>> g = nx.complete_bipartite_graph(2, 3)        # 2 x 3 dyads between the modes
>>> fit_nobs(ef.ERGM(g, "edges"))["nobs"]
6
"""
from __future__ import annotations


def fit_nobs(model) -> dict:
    """``{"nobs": ..., "null_loglik": ...}`` for :class:`~ergmfit.results.ERGMResults`:
    ``nobs`` the sample space's free, observed dyads (``sample_space.n_free``; a model
    without a sample space: its network's ``n_dyads``, None without a network), and
    ``null_loglik`` the model's own ``null_loglik(nobs)`` ("auto", the binary
    -nobs log 2, for a model that has none)."""
    space = getattr(model, "sample_space", None)
    net = getattr(model, "network", None)
    nobs = None
    if space is not None:
        try:
            nobs = int(space.n_free)
        except NotImplementedError:          # a space that does not count its dyads
            nobs = None
    if nobs is None:
        nobs = getattr(net, "n_dyads", None)
    null = getattr(model, "null_loglik", None)
    return {"nobs": nobs,
            "null_loglik": null(nobs) if callable(null) and nobs is not None else "auto"}
