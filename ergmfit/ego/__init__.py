"""Egocentric ERGMs (ergm.ego): egocentric data, ego statistics with survey s.e., and fits
through a pseudo-population network."""
from .data import EgoData
from .model import EgoERGM, pseudo_population_counts
from .egostats import EGO_TERMS, EgoStatistics, ego_statistics, survey_vcov

#: ``ef.ego.statistics(ego, formula, scaleto=, se=)``: ergm.ego's ``summary(egor ~ ...)``
statistics = ego_statistics

__all__ = ["EgoData", "EgoStatistics", "ego_statistics", "statistics", "survey_vcov",
           "EGO_TERMS", "EgoERGM", "pseudo_population_counts"]
