"""Synthetic data for the MRF models.

* :func:`exact_sample` -- i.i.d. draws from p(x | theta) by enumeration (<= 20 variables).
* :func:`gibbs_sample` -- random-scan Gibbs draws with the shared
  :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` (larger models).
* :func:`chessboard` -- the 32x32 chessboard of Asuncion et al. (2010, sec. 4.2)
  with additive N(0, sigma^2) noise, as (y, x) pairs for :class:`~ergmfit.mrf.models.GridCRF`.
"""
from __future__ import annotations

import numpy as np

from ..utils.validation import check_random_state, seed_words
from . import exact as _exact

__all__ = ["exact_sample", "gibbs_sample", "chessboard", "chessboard_pairs", "random_theta"]


def exact_sample(bm_or_G, theta, n_samples, n_vars=None, random_state=None):
    """n_samples exact i.i.d. draws (0/1 rows) from p(x | theta)."""
    rng = check_random_state(random_state)
    G = bm_or_G if isinstance(bm_or_G, np.ndarray) else _exact.all_statistics(bm_or_G)
    n = int(round(np.log2(G.shape[0]))) if n_vars is None else int(n_vars)
    P = _exact.probabilities(G, theta)
    idx = rng.choice(len(P), size=int(n_samples), p=P / P.sum())
    return ((idx[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def gibbs_sample(bm, theta, n_samples, random_state=None, burnin=100, thin=1):
    """Draws by random-scan single-site Gibbs on the compiled model: ``burnin``
    sweeps (n_vars updates each), then one draw every ``thin`` sweeps."""
    from ..sampling._blocks import BlockGibbsSampler, Enumeration, UniformBlocks
    s = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 1), Enumeration(1),
                          seed_words(random_state))
    theta = np.asarray(theta, dtype=float)
    n = int(bm.n_vars)
    s.run(theta, burnin * n)
    out = np.empty((int(n_samples), n), dtype=np.uint8)
    for r in range(int(n_samples)):
        s.run(theta, thin * n)
        out[r] = bm.state()
    return out


def chessboard(size=32, squares=4, sigma=1.0, random_state=None):
    """(y, x): a size x size chessboard x in {-1, +1} with ``squares`` squares a
    side and its noisy observation y = x + N(0, sigma^2), both flattened row-major."""
    rng = check_random_state(random_state)
    r = np.arange(size) * squares // size
    x = np.where((r[:, None] + r[None, :]) % 2 == 0, 1.0, -1.0)
    y = x + sigma * rng.standard_normal(x.shape)
    return y.ravel(), x.ravel()


def chessboard_pairs(n_images, size=32, squares=4, sigma=1.0, random_state=None):
    """n_images independent noisy copies: (Y, X) arrays of shape (n_images, size^2)."""
    rng = check_random_state(random_state)
    pairs = [chessboard(size, squares, sigma, rng) for _ in range(int(n_images))]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def random_theta(p, scale=1.0, random_state=None):
    """Parameters drawn uniformly from [-scale, scale]."""
    return check_random_state(random_state).uniform(-scale, scale, size=int(p))
