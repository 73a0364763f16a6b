"""Directed k-cycles (statnet ``cycle(k)`` on a directed network).

A directed k-cycle is a set of k distinct nodes with ties v1→v2→…→vk→v1 (k = 2: a mutual
dyad).  Adding i→j closes one k-cycle per simple directed path j = v0 → v1 → … → v_{k−1} = i
of length k − 1 in the network.  The paths are enumerated by depth-first search over
out-neighbours from j up to length K − 2 (K = max k), avoiding i and the nodes already on
the path; each path end v with v→i closes a cycle of length (its length + 2).  Cost per
call: the number of simple directed paths of length ≤ K − 2 from j, O(d^(K−2)).
"""
from libc.stdlib cimport malloc, free

from ergmfit.network._state cimport NetworkState
from ergmfit.terms._kernel cimport TermKernel

cdef enum:
    _STACK = 32


cdef class DirectedCycleKernel(TermKernel):
    cdef int K             # longest cycle counted
    cdef int* want         # want[k] = output index of cycle length k, or -1 (k = 0 … K)

    def __cinit__(self, ks):
        cdef int t, k
        self.n_stats = len(ks)
        self.K = max(ks)
        self.want = <int*>malloc((self.K + 1) * sizeof(int))
        if self.want == NULL:
            raise MemoryError()
        for t in range(self.K + 1):
            self.want[t] = -1
        for t, k in enumerate(ks):
            if k < 2:
                raise ValueError("directed cycles have length at least 2")
            self.want[k] = t

    def __dealloc__(self):
        free(self.want)

    def __reduce__(self):
        return (DirectedCycleKernel, ([k for k in range(self.K + 1) if self.want[k] >= 0],))

    cdef void change(self, NetworkState s, int i, int j, double* out) noexcept nogil:
        cdef int stack_path[_STACK]
        cdef int* path = stack_path
        cdef int t
        for t in range(self.n_stats):
            out[t] = 0.0
        if self.want[2] >= 0 and s.has_tie(j, i):
            out[self.want[2]] = 1.0
        if self.K < 3:
            return
        if self.K > _STACK:
            path = <int*>malloc(self.K * sizeof(int))
            if path == NULL:
                return
        path[0] = j
        self._extend(s, path, 0, i, out)
        if path != stack_path:
            free(path)

    cdef void _extend(self, NetworkState s, int* path, int d, int i, double* out) noexcept nogil:
        # path[0..d] is a simple path from j avoiding i; extend it by one out-tie
        cdef int v = path[d]
        cdef int m = d + 1          # length of the extended path
        cdef int t, q, u, slot
        slot = self.want[m + 2]     # the path of length m plus u→i and i→j
        for t in range(s.out_deg[v]):
            u = s.out_nb[v][t]
            if u == i:
                continue
            for q in range(d + 1):
                if path[q] == u:
                    break
            else:
                if slot >= 0 and s.has_tie(u, i):
                    out[slot] += 1.0
                if m + 2 < self.K:
                    path[m] = u
                    self._extend(s, path, m, i, out)
