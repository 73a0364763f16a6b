"""A small directed network whose pairs share many partners (held two-path counts matter)."""
import numpy as np


def clustered_arcs(seed, n_core=300, m=2500):
    """Arcs among a core of ``n_core`` nodes (so that pairs share partners), a quarter of them
    reciprocated; no loops, no repeats."""
    rng = np.random.default_rng(seed)
    arcs = rng.integers(0, n_core, (m, 2))
    arcs = np.concatenate([arcs, arcs[: m // 4, ::-1]])
    arcs = arcs[arcs[:, 0] != arcs[:, 1]]
    return np.unique(arcs, axis=0)
