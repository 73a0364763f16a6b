# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gwesp's change under a constrained move of a few toggles, without applying them
(the constrained sampler's shortcuts; see :mod:`._constrained`).

x is the network now, x' = x with the k toggles (ti[r], tj[r]) applied
(undirected: ti[r] < tj[r]).  gwesp = sum over ties e of w(sp(e)), so its
change is a sum over the ties whose shared-partner count or presence
changes: the toggled dyads, and ties (u, v) whose common neighbours gain or
lose some w through a toggle (u, w) or (v, w).
"""
from libc.math cimport expm1
from libc.stdint cimport uint64_t
from ergmfit.network._state cimport NetworkState


cdef inline int _dsp(NetworkState st, const int* ti, const int* tj, const uint64_t* keys,
                     int k, int u, int v) noexcept nogil:
    # sp(u, v) in x' minus sp(u, v) in x: only the w with a toggle (u, w) or
    # (v, w) can count differently (k <= MAX_TOGGLES)
    cdef int r, w, q, s = 0, ns = 0, xu, xv
    cdef int seen[2 * MAX_TOGGLES]
    cdef bint dup
    for r in range(k):
        if ti[r] == u or ti[r] == v:
            w = tj[r]
        elif tj[r] == u or tj[r] == v:
            w = ti[r]
        else:
            continue
        if w == u or w == v:
            continue
        dup = False
        for q in range(ns):
            if seen[q] == w:
                dup = True
                break
        if dup:
            continue
        seen[ns] = w
        ns += 1
        xu = _adj(st, u, w)
        xv = _adj(st, v, w)
        s -= xu & xv
        s += (xu ^ _toggle_at(keys, k, u, w)) & (xv ^ _toggle_at(keys, k, v, w))
    return s


cdef inline int _common(NetworkState st, int a, int b, int* out) noexcept nogil:
    # the common neighbours of a and b into out; -1 if more than GW_CAP
    cdef int t, v, m = 0, da, db
    cdef int* nba
    cdef int* nbb
    if st.odeg(a) > st.odeg(b):
        a, b = b, a
    da = st.odeg(a)
    db = st.odeg(b)
    nba = st.onb(a)
    nbb = st.onb(b)
    for t in range(da):
        v = nba[t]
        if v == b:
            continue
        if (in_list(nbb, db, v) if db <= 16 else st.has_tie(v, b)):
            if m == GW_CAP:
                return -1
            out[m] = v
            m += 1
    return m


cdef inline bint _push_pair(int* cand, int* nc, int a, int b) noexcept nogil:
    # add the pair {a, b} to the nc[0] pairs of cand unless there; False if full
    cdef int q
    if a > b:
        a, b = b, a
    for q in range(nc[0]):
        if cand[2 * q] == a and cand[2 * q + 1] == b:
            return True
    if nc[0] == GW_CAP:
        return False
    cand[2 * nc[0]] = a
    cand[2 * nc[0] + 1] = b
    nc[0] += 1
    return True


cdef inline double _gw_w(const GwPass* g, int j, int s) noexcept nogil:
    if s < g.len:
        return g.tab[j][s]
    return -g.ea[j] * expm1(s * g.l1r[j])

cdef inline void _gw_add(GwPass* g, int s0, int s1) noexcept nogil:
    # a tie whose count goes from s0 to s1 (-1: absent)
    cdef int j
    for j in range(g.n):
        g.d[j] += ((_gw_w(g, j, s1) if s1 >= 0 else 0.0) - (_gw_w(g, j, s0) if s0 >= 0 else 0.0))

cdef int gw_change(GwPass* g, NetworkState st, const int* ti, const int* tj, const bint* ton,
                   int k, const double* theta, double* lr) noexcept nogil:
    # the exact change of the gwesp kernels under the k toggles (k <= MAX_TOGGLES),
    # with no toggle applied: each into g.d, theta . change into lr; 1 when there
    # are too many shared partners to score this way (nothing done), else 0
    cdef int r, q, e, j, u, w, v, x, m, s0, ds
    cdef int nc = 0, ns
    cdef int nodes[2 * MAX_TOGGLES]
    cdef int cn[GW_CAP]
    cdef int cand[2 * GW_CAP]
    cdef uint64_t keys[MAX_TOGGLES]
    for j in range(g.n):
        g.d[j] = 0.0
    for r in range(k):
        keys[r] = _pair_key(ti[r], tj[r])
    for r in range(k):
        u = ti[r]
        w = tj[r]
        m = _common(st, u, w, cn)
        if m < 0:
            return 1
        # the toggled dyad: sp(u, w) = m now
        if ton[r]:
            _gw_add(g, m, -1)
        else:
            _gw_add(g, -1, m + _dsp(st, ti, tj, keys, k, u, w))
        # kept ties (x, v), x an end of the toggle and v a neighbour of both
        # ends in x (those in x' only are ends of toggles: below)
        for q in range(m):
            v = cn[q]
            if not _toggle_at(keys, k, u, v) and not _push_pair(cand, &nc, u, v):
                return 1
            if not _toggle_at(keys, k, w, v) and not _push_pair(cand, &nc, w, v):
                return 1
    ns = _ends(ti, tj, k, nodes)
    # kept ties between two ends of toggles (the common neighbours of a toggle's
    # ends in x' but not in x are among these)
    for q in range(ns):
        for e in range(q + 1, ns):
            x = nodes[q]
            v = nodes[e]
            if not _toggle_at(keys, k, x, v) and _adj(st, x, v):
                if not _push_pair(cand, &nc, x, v):
                    return 1
    for q in range(nc):
        x = cand[2 * q]
        v = cand[2 * q + 1]
        ds = _dsp(st, ti, tj, keys, k, x, v)
        if ds != 0:
            s0 = st.n_sp(x, v)
            _gw_add(g, s0, s0 + ds)
    lr[0] = 0.0
    for j in range(g.n):
        lr[0] += theta[g.off[j]] * g.d[j]
    return 0
