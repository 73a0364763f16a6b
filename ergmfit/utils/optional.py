"""Questions about objects of optional libraries, asked without importing them.

``import ergmfit`` does not import networkx (nor scipy, pandas, matplotlib, dask): an object
can only be an instance of one of networkx's classes once networkx has been imported, so
these checks look the module up in ``sys.modules`` instead of importing it.
"""
from __future__ import annotations

import sys


def is_networkx_graph(obj):
    """True if ``obj`` is a networkx graph (any ``nx.Graph`` subclass), without importing
    networkx.

    Examples
    --------
    >>> import networkx as nx
    >>> is_networkx_graph(nx.DiGraph()), is_networkx_graph([(0, 1)])
    (True, False)
    """
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(obj, nx.Graph)
