"""The affine adjustment of the pseudo-likelihood (Bouranis, Friel & Maire 2017),
shared by ``method="bayes-pl"`` (:mod:`ergmfit.estimation.bayes.pseudo_posterior`) and the delayed acceptance
of ``method="bayes"`` (:mod:`ergmfit.estimation.bayes.exchange`)."""
from __future__ import annotations

import warnings

import numpy as np

from ...exceptions import DegenerateModelError

__all__ = ["adjustment", "adjusted_design"]


def adjustment(model, design, mcmle_settings=None, random_state=None, verbose=False):
    """The MPLE, the MLE and the matrix W of the adjustment (see :mod:`ergmfit.estimation.bayes.pseudo_posterior`)
    as a dict, with the MCMC-MLE fit under ``"mle_fit"``."""
    from ..mcmle.estimator import MCMLE
    from ..mple.pseudolikelihood import fit_design
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lf = fit_design(design, model.labels)
    settings = {"eval_loglik": False, "verbose": verbose}
    settings.update(mcmle_settings or {})
    mle = MCMLE(random_state=random_state, **settings).fit(model)
    if mle.info.get("interrupted"):
        # Ctrl-C during the MCMC-MLE: no posterior draw exists yet, so the fit ends here
        raise KeyboardInterrupt
    cov_model = np.asarray(mle.info.get("cov_model", mle.cov), dtype=float)
    if not (np.all(np.isfinite(mle.params)) and np.all(np.isfinite(cov_model))):
        raise DegenerateModelError("the adjusted pseudo-posterior needs a finite MLE and Fisher "
                                   "information, and the MCMC-MLE fit did not give them; use "
                                   "method='bayes'")
    H = np.linalg.inv(cov_model)
    H = 0.5 * (H + H.T)
    H_pl = design.hessian(lf.params)
    try:
        N = np.linalg.cholesky(H_pl)
        M = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        raise DegenerateModelError("the pseudo-likelihood or the likelihood is not strictly "
                                   "concave at its maximum; use method='bayes'") from None
    W = np.linalg.solve(N.T, M.T)
    return {"mple": np.asarray(lf.params, dtype=float), "mle": np.asarray(mle.params, float),
            "W": W, "H": H, "H_pl": H_pl, "mle_fit": mle}


def adjusted_design(design, adj):
    """The design rows in θ coordinates: η_r = X_r (mple + W (θ − mle)) + o_r = (X W)_r θ + c_r
    (o_r: the row's fixed part from offset terms, if any); returns (XW, c) as contiguous
    arrays."""
    XW = np.ascontiguousarray(design.X @ adj["W"])
    c = design.X @ (adj["mple"] - adj["W"] @ adj["mle"])
    if design.offset is not None:
        c = c + design.offset
    return XW, np.ascontiguousarray(c)
