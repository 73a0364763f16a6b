# cython: language_level=3
"""Open-addressing hash maps used by the compiled network state.

Two kinds, both linear probing with backward-shift deletion (no
tombstones, so a long MCMC run never degrades the table):

* ``TieMap``: int64 key -> value below 2^32 in one 8-byte slot (a network's
  ties -> their index in the flat tie list: a look-up and the index it
  needs for a removal are one cache line; also the MPLE's small samples);
  only the key's bits beyond its home slot are stored (see below).
* ``CountMap``: int64 key -> small positive count, packed into one 64-bit
  slot so that the two-path caches of a 10^5-node network stay compact
  (about 8 bytes per slot instead of 16).
"""
from libc.stdint cimport int64_t, uint64_t, uint32_t
from libc.stdlib cimport calloc, free, malloc

cdef extern from *:
    """
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    #include <stdint.h>
    /* Ask for transparent huge pages on the 2 MiB-aligned interior of a large, freshly
       allocated table (a hint only: no effect on its contents or where anything is put).
       A probe of a table of hundreds of MiB is one random access; with 4 KiB pages nearly
       every one also misses the TLB and walks the page tables. */
    static void ergmfit_hint_hugepages(void* p, size_t bytes) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        const uintptr_t huge = (uintptr_t)1 << 21;
        uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
        uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
        if (bytes >= 4 * huge && e > a)
            (void)madvise((void*)a, (size_t)(e - a), MADV_HUGEPAGE);
    #else
        (void)p; (void)bytes;
    #endif
    }
    """
    void ergmfit_hint_hugepages(void* p, size_t bytes) noexcept nogil

cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    # splitmix64 finaliser: keys are i*n+j, far from uniform.
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111eb
    x ^= x >> 31
    return x


# --------------------------------------------------------------------------
# TieMap: int64 key >= 0 -> value < 2^32, in one 8-byte slot
# --------------------------------------------------------------------------
# Keys below 2^L (L from the bound given to tiemap_init) are hashed by a bijection of
# [0, 2^L) (multiplication by an odd constant modulo 2^L: Fibonacci hashing in L-bit words);
# the top ``bits`` bits of the hash are the key's home slot and only the other
# ``rbits = L - bits`` bits (at most TIE_REM_BITS; the table is made larger where the keys
# are longer) are stored, with the distance d from the home slot to the slot the key lies in
# (linear probing, d < TIE_MAX_DISP): tag = rem << 8 | (d + 1), 0 = empty.  (slot, tag)
# determines the key, so the map is exact in 8 bytes a slot instead of 16 (Epinions' tie map:
# 8 MiB instead of 16; the same scheme as the MPLE's compact set).
cdef enum:
    TIE_REM_BITS = 24       # key bits stored besides the home slot's
    TIE_MAX_DISP = 255      # d + 1 fits in the tag's low byte

cdef struct TieSlot:
    uint32_t tag         # 0 marks an empty slot; else rem << 8 | (d + 1)
    uint32_t val

cdef struct TieMap:
    TieSlot* slots
    uint64_t mask
    int64_t size
    int kbits            # keys < 2^kbits (as asked at tiemap_init)
    int L                # hash width: max(kbits, log2(slots))
    int rbits            # L - log2(slots): key bits stored in the tag
    uint64_t kmask       # 2^L - 1

cdef inline uint64_t _tie_hash(const TieMap* m, int64_t key) noexcept nogil:
    return (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15) & m.kmask

cdef inline uint64_t tiemap_home(const TieMap* m, int64_t key) noexcept nogil:
    # the top bits of the key's L-bit hash (spreads the keys i * n + j of a network's ties)
    return _tie_hash(m, key) >> m.rbits

cdef inline int _tiemap_alloc(TieMap* m, int bits, int kbits) noexcept nogil:
    cdef uint64_t cap
    if bits < kbits - TIE_REM_BITS:
        bits = kbits - TIE_REM_BITS
    cap = <uint64_t>1 << bits
    m.slots = <TieSlot*>calloc(cap, sizeof(TieSlot))
    if m.slots == NULL:
        return -1
    ergmfit_hint_hugepages(m.slots, cap * sizeof(TieSlot))
    m.mask = cap - 1
    m.size = 0
    m.kbits = kbits
    m.L = kbits if kbits > bits else bits
    m.rbits = m.L - bits
    m.kmask = (<uint64_t>1 << m.L) - 1 if m.L < 64 else <uint64_t>0xFFFFFFFFFFFFFFFF
    return 0

cdef inline int tiemap_init(TieMap* m, int64_t expected, int64_t key_bound) noexcept nogil:
    # load factor at most 1/2 up to ``expected`` keys (the table grows at 3/4); keys lie in
    # 0..key_bound - 1
    cdef uint64_t cap = 16
    cdef int bits = 4, kbits = 1
    while cap < <uint64_t>(2 * expected + 2):
        cap <<= 1
        bits += 1
    while kbits < 63 and (<uint64_t>1 << kbits) < <uint64_t>key_bound:
        kbits += 1
    return _tiemap_alloc(m, bits, kbits)

cdef inline void tiemap_free(TieMap* m) noexcept nogil:
    free(m.slots)
    m.slots = NULL; m.size = 0; m.mask = 0

cdef inline TieSlot* tiemap_find(const TieMap* m, int64_t key) noexcept nogil:
    """The slot of ``key``, NULL if absent."""
    cdef uint64_t h = _tie_hash(m, key)
    cdef uint64_t i = h >> m.rbits
    cdef uint32_t want = <uint32_t>(((h & ((<uint64_t>1 << m.rbits) - 1)) << 8) | 1)
    cdef uint32_t t
    cdef int d
    for d in range(TIE_MAX_DISP):
        t = m.slots[i].tag
        if t == want:
            return &m.slots[i]
        if t == 0:
            return NULL
        want += 1
        i = (i + 1) & m.mask
    return NULL

cdef inline int64_t tiemap_key_at(const TieMap* m, uint64_t i) noexcept nogil:
    # the key held in the (occupied) slot i
    cdef uint32_t t = m.slots[i].tag
    cdef uint64_t home = (i - <uint64_t>((t & 255) - 1)) & m.mask
    cdef uint64_t h = (home << m.rbits) | <uint64_t>(t >> 8)
    return <int64_t>((h * <uint64_t>0xF1DE83E19937733D) & m.kmask)

cdef inline int _tiemap_grow(TieMap* m) noexcept nogil:
    # the same keys in a table of twice the slots
    cdef TieMap bigger
    cdef uint64_t i
    cdef int bits = m.L - m.rbits
    if _tiemap_alloc(&bigger, bits + 1, m.kbits) != 0:
        return -1
    for i in range(m.mask + 1):
        if m.slots[i].tag != 0:
            if tiemap_put(&bigger, tiemap_key_at(m, i), m.slots[i].val) != 0:
                tiemap_free(&bigger)
                return -1
    tiemap_free(m)
    m[0] = bigger
    return 0

cdef inline int tiemap_put(TieMap* m, int64_t key, int64_t val) noexcept nogil:
    """Set the value of ``key`` (added if absent); -1 when memory runs out."""
    cdef uint64_t h, i
    cdef uint32_t want, t
    cdef int d
    if <uint64_t>(4 * (m.size + 1)) > 3 * (m.mask + 1):
        if _tiemap_grow(m) != 0:
            return -1
    while True:
        h = _tie_hash(m, key)
        i = h >> m.rbits
        want = <uint32_t>(((h & ((<uint64_t>1 << m.rbits) - 1)) << 8) | 1)
        for d in range(TIE_MAX_DISP):
            t = m.slots[i].tag
            if t == want or t == 0:
                if t == 0:
                    m.slots[i].tag = want
                    m.size += 1
                m.slots[i].val = <uint32_t>val
                return 0
            want += 1
            i = (i + 1) & m.mask
        # a run of TIE_MAX_DISP slots from the key's home: a larger table spreads it
        if _tiemap_grow(m) != 0:
            return -1

cdef inline void tiemap_del_slot(TieMap* m, TieSlot* slot) noexcept nogil:
    """Remove the entry in ``slot`` (from tiemap_find): backward-shift deletion (an entry
    after the hole moves into it when its home is not after the hole)."""
    cdef uint64_t i = <uint64_t>(slot - m.slots)
    cdef uint64_t j = i
    cdef uint64_t dist
    cdef uint32_t t
    while True:
        j = (j + 1) & m.mask
        t = m.slots[j].tag
        if t == 0:
            break
        dist = (j - i) & m.mask
        if <uint64_t>((t & 255) - 1) < dist:
            continue
        m.slots[i].tag = t - <uint32_t>dist
        m.slots[i].val = m.slots[j].val
        i = j
    m.slots[i].tag = 0
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
    ergmfit_hint_hugepages(m.slots, cap * sizeof(uint64_t))
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
    ergmfit_hint_hugepages(m.slots, cap * sizeof(uint64_t))
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
