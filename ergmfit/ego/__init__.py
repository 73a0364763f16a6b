"""Egocentric ERGMs (ergm.ego): egocentric data, ego statistics with survey s.e., and fits
through a pseudo-population network."""
from .data import EgoData
from .model import EgoERGM, pseudo_population_counts
from .egostats import EGO_TERMS, EgoStatistics, statistics, survey_vcov

__all__ = ["EgoData", "EgoStatistics", "statistics", "survey_vcov", "EGO_TERMS", "EgoERGM",
           "pseudo_population_counts"]
