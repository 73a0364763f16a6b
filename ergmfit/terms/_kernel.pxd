# cython: language_level=3
from ergmfit.network._state cimport NetworkState

cdef class TermKernel:
    """Compiled side of a model term: its change statistic.

    change(s, i, j, out) writes into out[0:n_stats] (overwriting) the change
    g(x + ij) - g(x - ij) of the term's statistics when the dyad (i, j) goes
    from absent to present, computed from the state ``s`` whether or not
    (i, j) is present in it now.  For undirected networks i < j.  ``caches``
    names the two-path counts (CACHE_* flags of the state) it reads.
    ``counts_on_demand`` says that it reads them only for the shared partners
    of (i, j), so that a sparse network may count them on demand instead of
    holding them (see NetworkState); a kernel that reads them for every
    neighbour (gwdsp: O(degree) counts per change) leaves it False, and the
    state then holds the counts whatever the density.

    A ``stateful`` kernel (the operator terms: a filtered or symmetrised copy of the
    network, a running total) keeps memory of the network: ``bind(state)`` (Python) returns
    a copy set up for ``state`` as it is now, and the model calls ``toggled(s, i, j, added)``
    after every change of the tie (i, j), so the copy follows.  Stateless kernels ignore both.
    """
    cdef readonly int n_stats
    cdef readonly int caches
    cdef readonly bint counts_on_demand
    cdef readonly bint stateful
    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil
    cdef void toggled(self, NetworkState s, int i, int j, bint added) noexcept nogil
