# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the long tail of statnet's term list, compiled as one extension module.

Each compiled module costs about 1 CPU s of build (Cython and gcc) before its own code
(``docs/build.md``); these kernels are small and change rarely, so they share one module.
Their sources stay in separate files, included here:

- ``_census.pxi``: the triad census (``triadcensus``, ``balance``, ``simmelian``, ...);
- ``_cycles.pxi``: directed k-cycles (``cycle(k)`` on a directed network);
- ``_diversity.pxi``: neighbour diversity (``nodecovrange``, ``nodefactordistinct``, ...);
- ``_degfun.pxi``: functions of the degrees at a tie's ends (``degrange``, ``degreepopularity``, ...);
- ``_nonlinear.pxi``: nonlinear maps of other terms' statistics (``Exp``, ``Log``, ``Prod``,
  ``Taper``, ``degcor``, ...).
"""

include "_census.pxi"
include "_cycles.pxi"
include "_diversity.pxi"
include "_degfun.pxi"
include "_nonlinear.pxi"
