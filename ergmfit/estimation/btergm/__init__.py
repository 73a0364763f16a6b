"""btergm: the pooled MPLE of a panel's transitions with bootstrap intervals over time steps
(Leifeld, Cranmer and Desmarais 2018)."""
from .estimator import BTERGM, BTERGMResults, percentile_interval

__all__ = ["BTERGM", "BTERGMResults", "percentile_interval"]
