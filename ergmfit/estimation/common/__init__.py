"""Pieces shared by several estimators: the curved step (one for every likelihood
estimator), the importance-sampling steps (Hummel, trust region, Hotelling test), the
restricted and target-statistics designs and starts, where the density term sits
(:mod:`.density`), and the Ctrl-C guard of worker processes.  Nothing here imports a
method's sub-package."""
