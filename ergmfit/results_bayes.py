"""Where :class:`~ergmfit.results.BayesResults` lived before the results
package: kept so that ``from ergmfit.results_bayes import BayesResults`` still
works.  The code is :mod:`ergmfit.results.bayes`."""
from .results.bayes import BayesResults, BayesSummary, chain_ess, split_rhat

__all__ = ["BayesResults", "BayesSummary", "split_rhat", "chain_ess"]
