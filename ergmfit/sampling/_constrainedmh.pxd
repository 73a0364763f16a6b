# cython: language_level=3
cimport cython
from libc.stdint cimport int64_t
from ergmfit.sampling._kernelsets cimport KernelSet
from ergmfit.sampling._mh cimport MHSampler
from ergmfit.sampling._constrained cimport ConstrainedProposal
from ergmfit.sampling._gwpass cimport GwPass


@cython.final
cdef class ConstrainedSampler(MHSampler):
    cdef ConstrainedProposal cprop
    # the model's kernels: all, and split in two (see the module's docstring):
    # those whose change statistic reads no tie (dyadic covariates), the others
    cdef KernelSet kall
    cdef KernelSet kfree
    cdef KernelSet kdep
    cdef KernelSet kfree1            # kfree but the unit kernels (edges)
    cdef int* uoff                   # the unit kernels' columns
    cdef int nunit
    cdef readonly int64_t n_moves    # proposals that were a move (not "no move")
    cdef double* tbuf                # change statistics of each toggle of a move (+1 row)
    cdef int* ti
    cdef int* tj
    cdef bint* ton                   # whether each toggle is a tie now
    cdef int64_t* tp                 # its position among the free dyads
    # the toggles of journalled moves (the engine's journal holds one entry
    # per move: its offset here), so that _revert undoes whole moves
    cdef int64_t* mlog
    cdef int64_t mlog_n, mlog_cap
    # one-pass exact change of the dependent kernels (undirected, all of them
    # gwesp): see _gwpass.pyx
    cdef public bint one_pass
    cdef readonly bint dep_invariant  # the dependent kernels read no node label
    cdef GwPass gw
    cdef object _gwkeep
    cdef double _free_lr(self, const double* theta, int k) noexcept nogil
    cdef double _indep(self, const KernelSet* ks, const double* theta, int k) noexcept nogil
    cdef int _forward(self, const KernelSet* ks, const double* theta, int k,
                      double* lr) noexcept nogil
    cdef int _undo(self, int k) noexcept nogil
    cdef int _apply(self, int k, bint flip, int64_t* journal, int64_t* n_journal) noexcept nogil
    cdef int log_move(self, const int* ti, const int* tj, int k, int64_t* journal,
                      int64_t* n_journal) noexcept nogil
