# cython: language_level=3
from libc.stdint cimport int64_t
from ergmfit.core._model cimport BinaryModel


cdef class MonomialModel(BinaryModel):
    """Binary MRF whose statistics are weighted sums of monomials (see _models.pyx)."""
    cdef readonly bint pm1           # spins s = 2x - 1 (True) or s = x (False)
    cdef readonly int64_t n_mono
    cdef int64_t* m_off              # monomial t: variables m_var[m_off[t]:m_off[t+1]]
    cdef int64_t* m_var
    cdef int* m_stat                 # the statistic it contributes to
    cdef double* m_coef              # its coefficient
    cdef int64_t* v_off              # variable v: monomials v_mono[v_off[v]:v_off[v+1]]
    cdef int64_t* v_mono
    cdef unsigned char* x            # current state (0/1)
    cdef int64_t* on_list            # variables equal to 1
    cdef int64_t* on_pos             # position in on_list or -1
    cdef int64_t n_on_
