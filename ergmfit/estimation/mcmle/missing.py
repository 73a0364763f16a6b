"""MCMC-MLE of the observed-data likelihood of a network with missing dyads
(Handcock & Gile 2010, statnet's default when a network has ``NA`` dyads).

The observed-data log-likelihood of θ is log Z_obs(θ) − log Z(θ), Z_obs
summing over the completions of the missing dyads given the observed ones.
Its score is E_θ[g | observed] − E_θ[g].  The fit is MCMC-MLE's one loop
(:class:`~ergmfit.estimation.mcmle.estimator.MCMLE`) handed the missing-data
target (:class:`~ergmfit.estimation.mcmle.target.ConditionalSample`): each
iteration also runs the chain on the missing dyads given the observed ones at
θ and aims the step at its mean; the information is Cov_θ[g] − Cov_θ[g |
observed]; the bridge log-likelihood is the observed-data one.  A
dyad-independent model on every dyad has an exact observed-data MLE: the
logistic regression on the observed dyads (the MPLE), returned without MCMC.

``checkpoint=path`` also keeps both chains' last states, the step's
bookkeeping and the random generator
(:class:`~ergmfit.estimation.mcmle.checkpoint.MissingMCMLECheckpoint`):
``resume=path`` goes on with the checkpoint's random stream (``random_state``
is not used), so a resumed fit returns what the uninterrupted fit would have.
"""
from __future__ import annotations

from ..common.restricted import conditional_model  # noqa: F401 (its home was here)
from .estimator import MissingDataMCMLE  # noqa: F401 (the name users and tests call)
