"""Bayesian ERGMs: the exchange algorithm (:mod:`.exchange`, its state in
:mod:`.state`, the compiled :mod:`._bayes`), the adjusted pseudo-posterior
(:mod:`.pseudo_posterior`) and the adjustment it uses (:mod:`.adjustment`)."""
