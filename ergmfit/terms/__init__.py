"""Model terms: one compiled kernel and one registration each (see :mod:`.registry`).

The table lives in :mod:`.registry`; each family module (dyadic, degree, triad, dtriad,
alternating, ...; ``registry.FAMILY_MODULES``) registers its terms when it is imported.
The families are imported when first needed: a look-up of a term name imports the
families that register it (``registry`` keeps the index), ``all_terms()`` imports them
all, and ``ergmfit.terms.<family>`` imports that family.  A model of EstimNet's
``Arc + AltInStars`` never imports the bipartite, valued or multilayer families.  The
registry never imports a family at its own import: the layers go registry <- families.
"""
import importlib

from .registry import Term, TermSpec, all_terms, build_term, get_term, register


def __getattr__(name):
    # ergmfit.terms.dyadic, ergmfit.terms.valued, ... as attributes, imported on first use
    if not name.startswith("__"):
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Term", "TermSpec", "all_terms", "build_term", "get_term", "register"]
