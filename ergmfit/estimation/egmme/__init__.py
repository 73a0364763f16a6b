"""Equilibrium generalised method of moments of a dynamic model (tergm's EGMME)."""
from .estimator import EGMME

__all__ = ["EGMME"]
