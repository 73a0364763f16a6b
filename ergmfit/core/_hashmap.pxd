# cython: language_level=3
"""Open-addressing hash maps used by the compiled network state.

Two kinds, both linear probing with backward-shift deletion (no
tombstones, so a long MCMC run never degrades the table):

* ``TieMap``: int64 key -> int64 value in one 16-byte slot (a network's
  ties -> their index in the flat tie list: a look-up and the index it
  needs for a removal are one cache line; also the MPLE's small samples).
* ``CountMap``: int64 key -> small positive count, packed into one 64-bit
  slot so that the two-path caches of a 10^5-node network stay compact
  (about 8 bytes per slot instead of 16).
"""
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    # splitmix64 finaliser: keys are i*n+j, far from uniform.
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111eb
    x ^= x >> 31
    return x


# --------------------------------------------------------------------------
# TieMap: int64 key >= 0 -> int64 value, key and value in one 16-byte slot
# --------------------------------------------------------------------------
cdef struct TieSlot:
    int64_t key          # -1 marks an empty slot
    int64_t val

cdef struct TieMap:
    TieSlot* slots
    uint64_t mask
    int shift            # 64 - log2(number of slots)
    int64_t size

cdef inline uint64_t tiemap_home(const TieMap* m, int64_t key) noexcept nogil:
    # Fibonacci hashing: the top bits of key * 2^64 / phi (one multiplication;
    # spreads the keys i * n + j of a network's ties evenly)
    return (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15) >> m.shift

cdef inline int tiemap_init(TieMap* m, int64_t expected) noexcept nogil:
    # load factor at most 1/2 up to ``expected`` keys (the table grows at 3/4)
    cdef uint64_t cap = 16
    cdef uint64_t k
    cdef int bits = 4
    while cap < <uint64_t>(2 * expected + 2):
        cap <<= 1
        bits += 1
    m.slots = <TieSlot*>malloc(cap * sizeof(TieSlot))
    if m.slots == NULL:
        return -1
    for k in range(cap):
        m.slots[k].key = -1
    m.mask = cap - 1
    m.shift = 64 - bits
    m.size = 0
    return 0

cdef inline void tiemap_free(TieMap* m) noexcept nogil:
    free(m.slots)
    m.slots = NULL; m.size = 0; m.mask = 0

cdef inline TieSlot* tiemap_find(const TieMap* m, int64_t key) noexcept nogil:
    """The slot of ``key``, NULL if absent."""
    cdef uint64_t i = tiemap_home(m, key)
    cdef int64_t k
    while True:
        k = m.slots[i].key
        if k == key:
            return &m.slots[i]
        if k == -1:
            return NULL
        i = (i + 1) & m.mask

cdef inline int tiemap_put(TieMap* m, int64_t key, int64_t val) noexcept nogil:
    """Set the value of ``key`` (added if absent); -1 when memory runs out."""
    cdef uint64_t i
    cdef int64_t k
    cdef TieMap bigger
    if <uint64_t>(4 * (m.size + 1)) > 3 * (m.mask + 1):
        if tiemap_init(&bigger, <int64_t>(m.mask + 1)) != 0:
            return -1
        for i in range(m.mask + 1):
            if m.slots[i].key != -1:
                tiemap_put(&bigger, m.slots[i].key, m.slots[i].val)
        tiemap_free(m)
        m[0] = bigger
    i = tiemap_home(m, key)
    while True:
        k = m.slots[i].key
        if k == key or k == -1:
            if k == -1:
                m.slots[i].key = key
                m.size += 1
            m.slots[i].val = val
            return 0
        i = (i + 1) & m.mask

cdef inline void tiemap_del_slot(TieMap* m, TieSlot* slot) noexcept nogil:
    """Remove the entry in ``slot`` (from tiemap_find): backward-shift deletion."""
    cdef uint64_t i = <uint64_t>(slot - m.slots)
    cdef uint64_t j = i
    cdef uint64_t home
    cdef int64_t k
    while True:
        j = (j + 1) & m.mask
        k = m.slots[j].key
        if k == -1:
            break
        home = tiemap_home(m, k)
        if (i <= j and i < home and home <= j) or (i > j and (home > i or home <= j)):
            continue
        m.slots[i] = m.slots[j]
        i = j
    m.slots[i].key = -1
    m.size -= 1


# --------------------------------------------------------------------------
# CountMap: slot = ((key + 1) << COUNT_BITS) | count ; 0 = empty
# --------------------------------------------------------------------------
cdef enum:
    COUNT_BITS = 20
    COUNT_MASK = 1048575   # (1 << COUNT_BITS) - 1: counts are at most n - 2

cdef struct CountMap:
    uint64_t* slots
    uint64_t mask
    int64_t size

cdef inline int countmap_init(CountMap* m, int64_t expected) noexcept nogil:
    cdef uint64_t cap = 16
    while cap * 3 < <uint64_t>(4 * expected + 4):
        cap <<= 1
    m.slots = <uint64_t*>calloc(cap, sizeof(uint64_t))
    if m.slots == NULL:
        return -1
    m.mask = cap - 1
    m.size = 0
    return 0

cdef inline void countmap_free(CountMap* m) noexcept nogil:
    free(m.slots)
    m.slots = NULL; m.size = 0; m.mask = 0

cdef inline int64_t countmap_get(const CountMap* m, int64_t key) noexcept nogil:
    cdef uint64_t tag = <uint64_t>(key + 1)
    cdef uint64_t i = mix64(tag) & m.mask
    cdef uint64_t s
    while True:
        s = m.slots[i]
        if s == 0:
            return 0
        if (s >> COUNT_BITS) == tag:
            return <int64_t>(s & COUNT_MASK)
        i = (i + 1) & m.mask

cdef inline int _countmap_grow(CountMap* m) noexcept nogil:
    cdef uint64_t* old = m.slots
    cdef uint64_t oldcap = m.mask + 1
    cdef uint64_t cap = oldcap * 2
    cdef uint64_t i, j, s
    m.slots = <uint64_t*>calloc(cap, sizeof(uint64_t))
    if m.slots == NULL:
        m.slots = old
        return -1
    m.mask = cap - 1
    for i in range(oldcap):
        s = old[i]
        if s != 0:
            j = mix64(s >> COUNT_BITS) & m.mask
            while m.slots[j] != 0:
                j = (j + 1) & m.mask
            m.slots[j] = s
    free(old)
    return 0

cdef inline void _countmap_remove_at(CountMap* m, uint64_t i) noexcept nogil:
    cdef uint64_t j = i
    cdef uint64_t home, s
    while True:
        j = (j + 1) & m.mask
        s = m.slots[j]
        if s == 0:
            break
        home = mix64(s >> COUNT_BITS) & m.mask
        if (i <= j and i < home and home <= j) or (i > j and (home > i or home <= j)):
            continue
        m.slots[i] = s
        i = j
    m.slots[i] = 0
    m.size -= 1

cdef inline int countmap_add(CountMap* m, int64_t key, int delta) noexcept nogil:
    """Add ``delta`` to the count of ``key``; a count reaching 0 is removed.

    Returns -1 when memory runs out.
    """
    cdef uint64_t tag = <uint64_t>(key + 1)
    cdef uint64_t i, s
    cdef int64_t c
    if 4 * (<uint64_t>m.size + 1) > 3 * (m.mask + 1):
        if _countmap_grow(m) != 0:
            return -1
    i = mix64(tag) & m.mask
    while True:
        s = m.slots[i]
        if s == 0:
            if delta > 0:
                m.slots[i] = (tag << COUNT_BITS) | <uint64_t>delta
                m.size += 1
            return 0
        if (s >> COUNT_BITS) == tag:
            c = <int64_t>(s & COUNT_MASK) + delta
            if c <= 0:
                _countmap_remove_at(m, i)
            else:
                m.slots[i] = (tag << COUNT_BITS) | <uint64_t>c
            return 0
        i = (i + 1) & m.mask
