"""Model terms: one compiled kernel and one registration each (see :mod:`.registry`).

The table lives in :mod:`.registry`; each family module (dyadic, degree,
triad, dtriad, alternating) registers its terms when it is imported, and this
package imports them all, so any import of ``ergmfit.terms.registry`` (which
imports this package first) sees the full table.  The registry never imports
a family: the layers go registry <- families <- this package.
"""
from .registry import Term, TermSpec, all_terms, build_term, get_term, register
from . import dyadic, degree, triad, dtriad, alternating  # noqa: F401,E402  (registration)
from . import degfun, bipartite, operators, interaction, attrterms, census, nonlinear, mixing, composed, diversity, projection  # noqa: F401,E402  (registration)
from . import multinet  # noqa: F401,E402  (registration of ergm.multi's N() and L())
from . import tapering  # noqa: F401,E402  (registration of Taper)
from . import valued  # noqa: F401,E402  (registration of the count-valued terms)
from . import temporal  # noqa: F401,E402  (registration of tergm's operators)

__all__ = ["Term", "TermSpec", "all_terms", "build_term", "get_term", "register"]
