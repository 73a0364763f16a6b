"""Python-level set-up of the MRF block kernels of :mod:`ergmfit.mrf._models`: node groups of
one-hot (Potts) blocks, the Gray-code levels of their walk, the adjacency of an interaction graph
and the grid-shaped blocks of Asuncion et al. (2010, Fig. 4).

Pure numpy, run once per kernel or block list (never per draw); kept out of the compiled module,
where the same code would be about 70 kB of C for gcc (docs/build.md).
"""
import numpy as np

from ergmfit.utils.validation import check_index_set


def _groups_csr(n_vars, groups, allow_none):
    """(group_of, offsets, members, none) with every ungrouped variable a
    singleton group that allows 'none' (a free binary variable)."""
    groups = [np.asarray(g, dtype=np.int64).ravel() for g in groups]
    if n_vars < 1:
        raise ValueError("need at least one variable")
    G = len(groups)
    if np.ndim(allow_none) == 0:
        none = np.full(G, bool(allow_none))
    else:
        none = np.asarray(allow_none, dtype=bool).ravel()
        if none.shape[0] != G:
            raise ValueError(f"allow_none needs one value per group ({G}), got {none.shape[0]}")
    group_of = np.full(n_vars, -1, dtype=np.int64)
    for c, g in enumerate(groups):
        check_index_set(g, n_vars, "group")
        if np.any(group_of[g] >= 0):
            raise ValueError(f"the groups overlap (variable(s) "
                             f"{g[group_of[g] >= 0].tolist()} in two groups)")
        if g.size == 1 and not none[c]:
            raise ValueError("a one-variable group without allow_none has a single state")
        group_of[g] = c
    free_vars = np.flatnonzero(group_of < 0)
    for v in free_vars:
        group_of[v] = len(groups)
        groups.append(np.array([v], dtype=np.int64))
    none = np.concatenate([none, np.ones(free_vars.size, dtype=bool)])
    sizes = np.array([g.size for g in groups], dtype=np.int64)
    off = np.zeros(len(groups) + 1, dtype=np.int64)
    off[1:] = np.cumsum(sizes)
    members = np.ascontiguousarray(np.concatenate(groups), dtype=np.int64)
    return group_of, off, members, none.astype(np.uint8)


def gray_levels(L, lv0=None):
    """The levels of m units in the N = prod(L) configurations of the walk of
    :class:`~ergmfit.mrf._models.OneHotEnumeration`: the reflected mixed-radix Gray code with unit
    0 fastest, offset by the start levels ``lv0`` (mod L).  An (N, m) array."""
    L = np.asarray(L, dtype=np.int64).ravel()
    lv0 = np.zeros_like(L) if lv0 is None else np.asarray(lv0, dtype=np.int64).ravel()
    N = int(np.prod(L)) if L.size else 1
    t = np.arange(N, dtype=np.int64)
    out = np.empty((N, L.size), dtype=np.int64)
    P = 1
    for u in range(L.size):
        r = t // P
        d = r % L[u]
        odd = (r // L[u]) % 2 == 1
        d[odd] = L[u] - 1 - d[odd]
        out[:, u] = (lv0[u] + d) % L[u]
        P *= int(L[u])
    return out


def _csr(n_vars, edges):
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if e.size and (e.min() < 0 or e.max() >= n_vars):
        raise IndexError(f"edge endpoints must lie in 0..{n_vars - 1}")
    e = e[e[:, 0] != e[:, 1]]
    both = np.concatenate([e, e[:, ::-1]]) if e.size else e
    if both.size:
        both = np.unique(both, axis=0)
    deg = np.bincount(both[:, 0], minlength=n_vars) if both.size else np.zeros(n_vars, np.int64)
    off = np.zeros(n_vars + 1, dtype=np.int64)
    off[1:] = np.cumsum(deg)
    nb = np.ascontiguousarray(both[:, 1] if both.size else np.zeros(0, np.int64), dtype=np.int64)
    return off, nb


def interaction_edges(model):
    """The interaction graph of a MonomialModel or LinearMRF: the pairs of
    variables that share a monomial (an (E, 2) int64 array)."""
    mons = model.monomials()[0] if callable(getattr(model, "monomials", None)) else model.monomials
    pairs = set()
    for m in mons:
        m = [int(v) for v in np.asarray(m).ravel()]
        for a in range(len(m)):
            for b in range(a + 1, len(m)):
                pairs.add((min(m[a], m[b]), max(m[a], m[b])))
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


# ---------------------------------------------------------------------------
# Grid shapes (Asuncion et al. 2010, Fig. 4)
# ---------------------------------------------------------------------------
_BASE_SHAPES = {
    "-": [(0, 0), (0, 1), (0, 2)],
    "L": [(0, 0), (1, 0), (1, 1)],
    "T": [(0, 0), (0, 1), (0, 2), (1, 1)],
    "+": [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],
    "H": [(0, 0), (1, 0), (2, 0), (1, 1), (0, 2), (1, 2), (2, 2)],
    ".": [(0, 0)],
    "|": [(0, 0), (1, 0)],
}


def shape_orientations(shape):
    """The distinct orientations (rotations by 90 degrees) of a shape, each a
    sorted tuple of (row, col) offsets normalised to start at (0, 0)."""
    cells = _BASE_SHAPES[shape] if isinstance(shape, str) else [tuple(c) for c in shape]
    out = []
    cur = [tuple(c) for c in cells]
    for _ in range(4):
        r0 = min(r for r, c in cur)
        c0 = min(c for r, c in cur)
        norm = tuple(sorted((r - r0, c - c0) for r, c in cur))
        if norm not in out:
            out.append(norm)
        cur = [(c, -r) for r, c in cur]
    return out


def grid_placements(height, width, shapes):
    """All placements of all orientations of ``shapes`` in a height x width
    grid (row-major variable indices): a list of int64 arrays."""
    blocks = []
    for sh in shapes:
        for o in shape_orientations(sh):
            hr = max(r for r, c in o) + 1
            wc = max(c for r, c in o) + 1
            for r in range(height - hr + 1):
                for c in range(width - wc + 1):
                    blocks.append(np.array([(r + dr) * width + (c + dc) for dr, dc in o],
                                           dtype=np.int64))
    return blocks
