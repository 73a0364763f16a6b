"""Monte Carlo maximum likelihood (statnet's MCMC-MLE): the estimator
(:mod:`.estimator`), its missing-data form (:mod:`.missing`), the fallback when its
iterations fail (:mod:`.fallback`) and the bridge-sampling log-likelihood
(:mod:`.loglik`)."""
