"""How many bytes network states may spend on held two-path counts.

Kernels of triangle and two-path terms (``gwesp``, ``AltKTrianglesT``, ``AltTwoPathsT``, ...)
read the number of two-paths between two nodes at every proposal.  A network state holds those
counts when they fit in its budget and counts them on demand from the neighbour lists
otherwise: the same statistics either way, less memory and slower change statistics at high
degree on demand.  What is held follows the terms: every pair's counts where a term reads any
pair's (``AltTwoPathsT``, ``gwesp``, ...) and they fit; one count per arc (4 bytes an arc)
where a term reads arcs' counts only (``AltKTrianglesT``) and every pair's are not held.  The
budget is a process-wide setting read when a state is built.  See
``docs/guide/large_networks.md`` ("Memory").
"""
from contextlib import contextmanager

from ._state import cache_budget, set_cache_memory

__all__ = ["cache_memory", "set_cache_memory", "cache_budget"]


@contextmanager
def cache_memory(nbytes):
    """Build network states under a two-path count budget of ``nbytes`` inside a ``with``
    block, and restore the previous setting after it (also after an error).

    Parameters
    ----------
    nbytes : int or "auto"
        Bytes the held two-path counts of each state built inside the block may take (0:
        count every two-path on demand, the least memory), or ``"auto"`` (the default
        setting: 4 times the state's own memory, at least 1 GiB); see
        :func:`set_cache_memory`.

    Examples
    --------
    >>> import ergmfit as ef
    >>> from ergmfit.network import cache_memory
    >>> net = ef.datasets.load("flomarriage")
    >>> with cache_memory(0):                      # on demand: least memory
    ...     low = ef.ERGM(net, "edges + gwesp(0.5, fixed=TRUE)").statistics_vector()
    >>> held = ef.ERGM(net, "edges + gwesp(0.5, fixed=TRUE)").statistics_vector()
    >>> bool((low == held).all())
    True
    """
    old = set_cache_memory(nbytes)
    try:
        yield
    finally:
        set_cache_memory(old)
