"""Cell values of network files and bundled data, and missing attribute values: the one rule
every reader and every term uses.

>>> [parse_value(t) for t in ["3", "-2", "1.5", "TRUE", "NA", "", "1_000", "x"]]
[3, -2, 1.5, True, None, None, '1_000', 'x']
>>> [is_missing(v) for v in [None, float("nan"), "NA", "", 0, "x", False]]
[True, True, True, True, False, False, False]
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError


def parse_value(text: str):
    """An unquoted cell as a Python value: ``NA`` or empty -> None, ``TRUE``/``FALSE`` ->
    bool, whole numbers -> int, other numbers -> float, anything else stays text."""
    if text == "NA" or text == "":
        return None
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if "_" in text:                  # int("1_000") is 1000 in Python, not in a CSV file
        return text
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


#: texts that stand for a missing value (R's NA; what str() makes of a NaN)
MISSING_TEXTS = ("", "NA", "NaN", "nan")


def is_missing(v) -> bool:
    """Is ``v`` a missing attribute value (R's ``NA``)?

    None; a NaN of any numeric type (Python, numpy, Decimal); pandas' ``NA`` and ``NaT``
    and numpy's ``NaT``; the texts ``""``, ``"NA"``, ``"NaN"``, ``"nan"`` (what readers and
    ``str(nan)`` make of a missing cell).  A networkx node without the attribute arrives
    as None."""
    if v is None:
        return True
    if isinstance(v, str):
        return v.strip() in MISSING_TEXTS
    if isinstance(v, bool):
        return False
    if type(v).__name__ in ("NAType", "NaTType"):       # pandas.NA, pandas.NaT
        return True
    try:
        return bool(v != v)          # only NaN (and NaT) differ from themselves
    except Exception:                # arrays, objects whose != is not a truth value
        return False


def missing_error(name, labels, missing, bipartite=None) -> TermError:
    """The error for node attribute ``name`` missing on the nodes ``missing`` (indices).

    statnet stops in the same place: its ``ergm_get_vattr`` refuses an attribute with NAs
    ("Attribute ... has missing data, which is not currently supported by ergm"; ergm
    >= 3.11, statnet/ergm issues #101, #190, #206).  On a two-mode network an attribute
    defined on one mode only is the common case: the message then names the b1/b2 terms."""
    who = ", ".join(repr(labels[i]) for i in missing[:5]) + \
        (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    msg = (f"node attribute {name!r} is missing (None/NaN) for {len(missing)} node(s): "
           f"{who}. statnet refuses such an attribute as well (\"has missing data, which is "
           "not currently supported by ergm\"): give those nodes a value (for a category, "
           "e.g. 'unknown', which is then a level of its own), or drop them")
    if bipartite is not None:
        modes = {1 if i < bipartite else 2 for i in missing}
        if len(modes) == 1 and len(missing) == (bipartite if 1 in modes
                                                else len(labels) - bipartite):
            mode = modes.pop()
            msg += (f". It is defined on mode {3 - mode} only: on a two-mode network use a "
                    f"b{3 - mode}* term (b{3 - mode}factor, b{3 - mode}cov, "
                    f"b{3 - mode}nodematch, ...), which reads mode {3 - mode}'s values only")
    return TermError(msg)


def na_flags(network, attr="na") -> np.ndarray:
    """Which ties of ``network`` its edge attribute ``attr`` marks unobserved (statnet's
    ``na=TRUE``: a true value other than "FALSE", "0" or "NaN"), as a boolean array over
    ``network.ties`` (all False without the attribute).

    >>> import networkx as nx
    >>> from ergmfit.network import as_network
    >>> g = nx.Graph(); g.add_edge(0, 1, na=True); g.add_edge(1, 2, na="FALSE")
    >>> na_flags(as_network(g)).tolist()
    [True, False]
    """
    values = network.edge_attrs.get(attr)
    if values is None:
        return np.zeros(network.n_ties, dtype=bool)
    return np.array([bool(v) and str(v).upper() not in ("FALSE", "0", "NAN") for v in values],
                    dtype=bool)
