"""Model terms: one compiled kernel and one registration each (see :mod:`.registry`)."""
from .registry import Term, TermSpec, all_terms, build_term, get_term, register

__all__ = ["Term", "TermSpec", "all_terms", "build_term", "get_term", "register"]
