# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of statnet's core terms and of the long tail of its term list, compiled as one
extension module.

Each compiled module costs about 1 CPU s of build (Cython and gcc) before its own code
(``docs/build.md``); these kernels share one module. Their sources stay in separate files,
included here:

- ``_dyadic.pxi``: dyad-independent terms (``edges``, ``mutual``, nodal and dyadic covariates,
  mixing);
- ``_degree.pxi``: degree and star terms (``degree``, ``kstar``, ``gwdegree``, ...);
- ``_triad.pxi``: undirected triangles and shared partners (``triangle``, ``gwesp``, ...);
- ``_dtriad.pxi``: directed triads and shared partners (``ttriple``, ``ctriple``, ``dgwesp``, ...);
- ``_alternating.pxi``: alternating k-triangles and two-paths of directed networks;
- ``_attrtriad.pxi``: attribute-dependent triad and dyad terms;
- ``_bipartite.pxi``: two-mode shared partners, matching and star mixing;
- ``_census.pxi``: the triad census (``triadcensus``, ``balance``, ``simmelian``, ...);
- ``_cycles.pxi``: directed k-cycles (``cycle(k)`` on a directed network);
- ``_diversity.pxi``: neighbour diversity (``nodecovrange``, ``nodefactordistinct``, ...);
- ``_degfun.pxi``: functions of the degrees at a tie's ends (``degrange``, ``degreepopularity``, ...);
- ``_nonlinear.pxi``: nonlinear maps of other terms' statistics (``Exp``, ``Log``, ``Prod``,
  ``Taper``, ``degcor``, ...);
- ``_temporal.pxi``: tergm's temporal operators (``Form``, ``Persist``, ``Diss``, ``Cross``,
  ``Change``);
- ``_multinet.pxi``: ergm.multi's operators on stacked networks (``N()``, layer terms);
- ``_projection.pxi``: statnet's ``Project(formula, mode)`` (valued terms of a two-mode
  network's one-mode projection; also the value transforms ``TRANSFORMS`` the valued terms use).
"""

include "_dyadic.pxi"
include "_degree.pxi"
include "_triad.pxi"
include "_dtriad.pxi"
include "_alternating.pxi"
include "_attrtriad.pxi"
include "_bipartite.pxi"
include "_census.pxi"
include "_cycles.pxi"
include "_diversity.pxi"
include "_degfun.pxi"
include "_nonlinear.pxi"
include "_temporal.pxi"
include "_multinet.pxi"
include "_projection.pxi"
