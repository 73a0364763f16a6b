# cython: language_level=3
cimport cython
from libc.stdint cimport int64_t, uint64_t, uint8_t
cimport numpy as cnp
from ergmfit.core._random cimport RNG
from ergmfit.terms._ergm cimport ERGMModel
from ergmfit.network._state cimport NetworkState
from ergmfit.sampling._proposals cimport Proposal

from ergmfit.network._state cimport in_list
from ergmfit.sampling._kernelsets cimport KernelSet
from ergmfit.sampling._mh cimport MHSampler

# gwesp's change under a constrained move (_gwpass.pxi)
cdef enum:
    # the most toggles one fixed-size move makes (a directed 3-cycle reversal);
    # degreedist's neighbourhood swap makes up to 4 (n - 2)
    MAX_TOGGLES = 6
    GW_CAP = 64     # common neighbours / kept ties scored in one pass (more: toggle by toggle)


cdef struct GwPass:
    # a model's gwesp kernels: their number, first statistic and weight tables
    # w(s) = e^a (1 - r^s) for s < len (beyond: from ea = e^a, l1r = log r), and
    # the change of each under the last move scored (d)
    int n
    int len
    int* off
    double** tab
    double* ea
    double* l1r
    double* d


cdef int gw_change(GwPass* g, NetworkState st, const int* ti, const int* tj, const bint* ton,
                   int k, const double* theta, double* lr) noexcept nogil


cdef inline uint64_t _pair_key(int a, int b) noexcept nogil:
    if a > b:
        return (<uint64_t>b << 32) | <uint64_t>a
    return (<uint64_t>a << 32) | <uint64_t>b


cdef inline int _toggle_at(const uint64_t* keys, int k, int a, int b) noexcept nogil:
    # whether {a, b} is one of the k toggles (their keys; no branch per toggle)
    cdef int r, hit = 0
    cdef uint64_t key = _pair_key(a, b)
    for r in range(k):
        hit |= keys[r] == key
    return hit


cdef inline int _adj(NetworkState st, int a, int b) noexcept nogil:
    # x_ab: a scan of b's neighbours when they are few, else the state's lookup
    cdef int d = st.odeg(b)
    if d <= 8:
        return in_list(st.onb(b), d, a)
    return st.has_tie(a, b)


cdef inline int _ends(const int* ti, const int* tj, int k, int* nodes) noexcept nogil:
    # the distinct ends of the k toggles into nodes; their number
    cdef int r, e, q, x, ns = 0
    for r in range(k):
        for e in range(2):
            x = ti[r] if e == 0 else tj[r]
            for q in range(ns):
                if nodes[q] == x:
                    break
            else:
                nodes[ns] = x
                ns += 1
    return ns


cdef inline bint _meet(NetworkState st, int a, int b) noexcept nogil:
    # whether a and b have a common neighbour now (a scan of the shorter list)
    cdef int t, v, da = st.odeg(a), db = st.odeg(b)
    cdef int* nba
    cdef int* nbb
    if da > db:
        a, b = b, a
        da, db = db, da
    if da == 0:
        return False
    nba = st.onb(a)
    nbb = st.onb(b)
    for t in range(da):
        v = nba[t]
        if v != b and (in_list(nbb, db, v) if db <= 16 else st.has_tie(v, b)):
            return True
    return False


# (inline: called on every move that passes stage 1)
cdef inline bint gw_apart_now(NetworkState st, const int* ti, const int* tj, int k,
                              bint swap) noexcept nogil:
    # gwesp only: whether the k toggles can be shown not to meet.  A toggle's
    # change is 0 exactly when its ends have no common neighbour; if none has
    # one now, no two ends of toggles are tied other than by a toggle and no
    # three toggles make a triangle, then no toggle's ends gain a common
    # neighbour as the others are applied, so the change of gwesp at x (stage
    # 2), the exact change of the move and that of the reverse move are all 0:
    # stages 2 and 3 would accept without a draw, and are skipped.  (On the
    # swaps and tie-for-non-tie moves of the degree and edges constraints a tie
    # between ends, or a triangle of toggles, already gives some toggle a common
    # neighbour now; the two last checks are for moves in general, and skipped
    # when ``swap``: the move is a double-edge swap {a, b}, {c, d} -> {a, d}, {c, b}.
    # There the only pairs of ends that are not toggles are a-c and b-d: a tie
    # a-c makes a a common neighbour of c and b, a tie b-d makes b one of a and
    # d; and four toggles on four nodes in a cycle hold no triangle.)
    cdef int r, q, e, ns, x, v
    cdef int nodes[2 * MAX_TOGGLES]
    cdef uint64_t keys[MAX_TOGGLES]
    for r in range(k):
        if _meet(st, ti[r], tj[r]):
            return False
    if swap:
        return True
    for r in range(k):
        keys[r] = _pair_key(ti[r], tj[r])
    ns = _ends(ti, tj, k, nodes)
    for q in range(ns):
        for e in range(q + 1, ns):
            x = nodes[q]
            v = nodes[e]
            if _toggle_at(keys, k, x, v):
                # a toggle {x, v}: a triangle of toggles through it?
                for r in range(ns):
                    if (r != q and r != e and _toggle_at(keys, k, x, nodes[r])
                            and _toggle_at(keys, k, v, nodes[r])):
                        return False
            elif _adj(st, x, v):
                return False
    return True


@cython.final
cdef class ConstrainedProposal(Proposal):
    """Moves that never leave a constrained sample space; see _constrained.pyx."""
    cdef ERGMModel em
    cdef NetworkState st
    cdef readonly int mode
    cdef readonly bint all_free
    cdef readonly int64_t n_free
    cdef readonly int max_toggles
    cdef public bint delayed          # score multi-toggle moves by delayed acceptance
    cdef readonly bint relabel        # the last move exchanged two nodes' neighbourhoods
    cdef readonly bint swap           # the last move was an undirected double-edge swap
    cdef int n1                      # two-mode networks: the size of the first mode
    # node-pair moves (mode 8): the stacked layers (n_layers of base_n nodes each, layer m
    # holding nodes m*base_n ..) and the chances of toggling the drawn pair's direction,
    # its reverse, or both (directed)
    cdef readonly int base_n
    cdef readonly int n_layers
    cdef readonly double p_this
    cdef readonly double p_rev
    cdef readonly double p_both
    cdef readonly bint pairs_closed   # every dyad of a free dyad's pair (all layers, both
                                      # directions) is free: no look-ups to draw a move
    # log chances of mode 8's toggle sets by the free-tie count L (a direct-mapped table of
    # 64 slots keyed by L, as tie/no-tie's), for closed pairs of at most PAIR_CACHE_LAYERS
    # layers: (c_ab, c_ba, directions) -> log chance, NaN until computed
    # mode 8, when each node's free dyads are one run of nodes (but itself): the position
    # of the free dyad (i, j) is row0[i] + j - col0[i] - (directed and j > i), no look-up
    cdef int64_t* row0
    cdef int* col0
    cdef int64_t pq_key[64]
    cdef double* pq_log
    cdef int pq_w
    cdef double pair_log_chance(self, int cab, int cba, int64_t L, int dirs) noexcept nogil
    cdef bint pair_slot(self, int x, int y, int64_t* pos) noexcept nogil
    # the lifted node-pair moves (mode 9): the direction of the walk (+1 adds ties, -1
    # removes them) and whether the last move was accepted (the sampler sets it)
    cdef public int lift
    cdef public bint lift_ok
    cdef int lifted_pair_move(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                              double* lq) noexcept nogil
    cdef int* fij                    # the free dyads (i, j) in pairs, i < j when undirected
    # open-addressing table: [dyad key i*n + j, its position among the free dyads] pairs
    cdef int64_t* hkv
    cdef int64_t hmask
    cdef int64_t* onl                # positions of the free ties, n_free_on of them
    cdef int64_t* onpos              # position of each free dyad in onl, or -1
    cdef readonly int64_t n_free_on
    cdef int64_t seen_version
    # Hastings log-ratios of tie/no-tie by free-tie count (a small direct-mapped table)
    cdef int64_t lq_key[64]
    cdef double lq_del[64]
    cdef double lq_add[64]
    cdef bint has_bounds
    cdef int* lo_out
    cdef int* hi_out
    cdef int* lo_in
    cdef int* hi_in
    # bd(attribs=): K classes, attribs[i*K + k], bounds per (node, class)
    cdef int K
    cdef bint attr_either            # directed: count arcs to and from a class together
    cdef uint8_t* attribs
    cdef int* alo_out
    cdef int* ahi_out
    cdef int* alo_in
    cdef int* ahi_in
    # scratch of bounds_ok (zero between calls)
    cdef int* d_out
    cdef int* d_in
    cdef int* c_out
    cdef int* c_in
    cdef int* touched
    cdef object _keep                # numpy arrays behind the pointers

    cdef int propose_k(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                       double* lq) noexcept nogil
    cdef void toggled(self, int64_t k, bint now_on) noexcept nogil
    cdef void sync(self) noexcept nogil
    cdef int64_t find(self, int i, int j) noexcept nogil
    cdef bint free_at(self, int i, int j, int64_t* pos) noexcept nogil
    cdef void free_tie(self, RNG* rng, int* i, int* j, int64_t* pos) noexcept nogil
    cdef void free_tie_w(self, uint64_t w, int* i, int* j, int64_t* pos) noexcept nogil
    cdef void free_dyad(self, RNG* rng, int* i, int* j, int64_t* pos) noexcept nogil
    cdef bint bounds_ok(self, const int* ti, const int* tj, const bint* ton, int k) noexcept nogil
    cdef int flip(self, int i, int j, bint on, int64_t pos) noexcept nogil
    cdef int swap_moves(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp) noexcept nogil
    cdef int neighbour_swap(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp) noexcept nogil
    cdef int pair_move(self, RNG* rng, int* ti, int* tj, bint* ton, int64_t* tp,
                       double* lq) noexcept nogil


# the sampler of these proposals (_constrainedmh.pxi)

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
    # gwesp): see _gwpass.pxi
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
