"""Stochastic approximation (Robbins-Monro, Snijders 2002): statnet's
``control.ergm(main.method = "Robbins-Monro")``."""
