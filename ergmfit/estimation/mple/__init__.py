"""Maximum pseudo-likelihood: the change-statistics design (:mod:`.pseudolikelihood`,
built by the compiled :mod:`._mple`) and the existence of the MLE read off it
(:mod:`.existence`)."""
