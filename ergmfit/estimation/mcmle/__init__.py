"""Monte Carlo maximum likelihood (statnet's MCMC-MLE): the estimator
(:mod:`.estimator`) and its settings (:mod:`.settings`), its missing-data form
(:mod:`.missing`), where a fit starts (:mod:`.start`), the interval adapted to
the sample's effective size (:mod:`.interval`), the checkpoint
(:mod:`.checkpoint`), the fallback when the iterations fail (:mod:`.fallback`)
and the bridge-sampled log-likelihood (:mod:`.loglik`)."""
