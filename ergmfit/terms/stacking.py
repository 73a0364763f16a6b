"""One term holding several inner terms: the piece operators (``Sum``, ``F``, ``S``, ...)
and multi-attribute covariate terms share, kept apart from ``operators`` so that
term modules can use it without importing the operators (no import circle)."""
from __future__ import annotations

import numpy as np

from ._operators import LinearKernel
from .registry import Term


def stack(name, terms, labels=None, W=None):
    """One Term holding several inner terms (their statistics, or W times them)."""
    inner_labels = [lab for t in terms for lab in t.labels]
    true = np.concatenate([t.on_empty() for t in terms]) if terms else np.zeros(0)
    if W is None and len(terms) == 1:
        # the inner kernel itself: its own empty-graph convention (a nonlinear kernel's
        # exact value at the top level) carries over
        kernel, empty = terms[0].kernel, terms[0].empty
    else:
        # a linear combination adds up the inner changes from the true empty-graph values;
        # over a nonlinear term it is exact instead (0 declared, as the nonlinear terms)
        kernel = LinearKernel([t.kernel for t in terms], W,
                              np.concatenate([t.empty for t in terms]) if terms else None)
        if W is not None:
            true = np.asarray(W, dtype=float) @ true
        empty = np.zeros(len(true)) if kernel.exact_total else true
    term = Term(name, list(labels if labels is not None else inner_labels), kernel,
                empty=empty, dyad_independent=all(t.dyad_independent for t in terms))
    if not np.array_equal(true, term.empty):
        term.true_empty = true
    term.parts = (list(terms), None if W is None else np.asarray(W, dtype=float), None)
    return term
