"""Fitted models: :class:`ERGMResults` (every estimator), :class:`BayesResults`
(posterior samples), their statnet-style summaries, the typed per-method
diagnostics (``fit.diagnostics``) and the results files (save/load).

* :mod:`ergmfit.results.ergm` -- :class:`ERGMResults` and its :class:`Summary`;
* :mod:`ergmfit.results.bayes` -- :class:`BayesResults` and :class:`BayesSummary`;
* :mod:`ergmfit.results.diagnostics` -- one dataclass per method family
  (:class:`MCMLEDiagnostics`, :class:`EEDiagnostics`, ...);
* :mod:`ergmfit.results.io` -- reading and writing results files.

>>> import ergmfit as ef
>>> fit = ef.ERGM(ef.datasets.load("flomarriage"), "edges").fit(method="mple")
>>> isinstance(fit, ERGMResults), type(fit.diagnostics).__name__
(True, 'MPLEDiagnostics')
"""
from ..labeled import LabeledArray, make_unique, require_pandas  # noqa: F401
from ..rformat import (format_pvalues, percent_label, r_format, r_round,  # noqa: F401
                       signif_stars)
from .bayes import BayesResults, BayesSummary, chain_ess, split_rhat
from .diagnostics import (DIAGNOSTICS, BCDDiagnostics, CDDiagnostics, Diagnostics,
                          EEDiagnostics, ExchangeDiagnostics, InfoView, MCLEDiagnostics,
                          MCMLEDiagnostics, MPLEDiagnostics, PosteriorDiagnostics,
                          PseudoPosteriorDiagnostics, SADiagnostics, EGMMEDiagnostics, diagnostics_class)
from .ergm import (FORMAT_VERSION, NAIVE_SE_WARNING, ERGMResults, Summary,
                   register_model_builder)
from .io import network_from_dict, network_to_dict, results_file_extension

__all__ = ["ERGMResults", "Summary", "BayesResults", "BayesSummary", "split_rhat", "chain_ess",
           "Diagnostics", "MPLEDiagnostics", "MCMLEDiagnostics", "CDDiagnostics",
           "BCDDiagnostics", "MCLEDiagnostics", "EEDiagnostics", "SADiagnostics", "EGMMEDiagnostics",
           "PosteriorDiagnostics", "ExchangeDiagnostics", "PseudoPosteriorDiagnostics",
           "DIAGNOSTICS", "diagnostics_class", "InfoView", "LabeledArray",
           "network_to_dict", "network_from_dict", "results_file_extension",
           "register_model_builder", "FORMAT_VERSION", "NAIVE_SE_WARNING", "format_pvalues",
           "r_format", "signif_stars"]
