"""Equilibrium expectation: the estimator (:mod:`.estimator`), one chain
(:mod:`.chain`, with the compiled :mod:`._ee` loop), the pooling of chains
(:mod:`.pool`), missing dyads (:mod:`.missing`), the proposals (:mod:`.proposals`),
the simulations (:mod:`.simulation`) and the start (:mod:`.start`)."""
