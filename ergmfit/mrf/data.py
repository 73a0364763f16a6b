"""Synthetic data for the MRF models.

* :func:`exact_sample` -- i.i.d. draws from p(x | theta) by enumeration (<= 20 variables).
* :func:`gibbs_sample` -- random-scan Gibbs draws with the shared
  :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` (larger models).
* :func:`chessboard` -- the 32x32 chessboard of Asuncion et al. (2010, sec. 4.2)
  with additive N(0, sigma^2) noise, as (y, x) pairs for :class:`~ergmfit.mrf.models.GridCRF`.
* :func:`segmentation_pairs` -- random label images made of smooth regions (a thresholded
  smoothed Gaussian field) with noisy observations, for CRF learning experiments
  (a synthetic stand-in for region-labelled scene images).
"""
from __future__ import annotations

import numpy as np

from ..utils.validation import check_random_state, seed_words
from . import exact as _exact

__all__ = ["exact_sample", "gibbs_sample", "chessboard", "chessboard_pairs", "segmentation_pairs",
           "random_theta"]


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


def segmentation_pairs(n_images, shape=(12, 12), length_scale=2.0, sigma=1.2,
                       random_state=None):
    """Label images of smooth random regions and their noisy observations.

    Each label image x in {-1, +1}^(rows x columns) is the sign of white
    noise smoothed by a Gaussian filter of standard deviation
    ``length_scale`` (pixels; periodic boundary), so neighbouring labels
    agree far more often than not and region sizes vary; its observation is
    y = x + N(0, sigma^2) pixel by pixel.  The label model is not a grid
    CRF, so a :class:`~ergmfit.mrf.models.GridCRF` fitted to the pairs is
    misspecified, as a CRF of real images is.  With sigma = 1.2 a pixel
    classified from its own y alone is wrong with probability
    Phi(-1/1.2) = 0.20.

    Parameters
    ----------
    n_images : int
        Number of (y, x) pairs.
    shape : (int, int)
        Rows and columns of each image.
    length_scale : float
        Smoothing scale of the latent field in pixels (> 0); larger: larger regions.
    sigma : float
        Standard deviation of the observation noise (>= 0).
    random_state : None, int or Generator

    Returns
    -------
    (Y, X) : arrays of shape (n_images, rows * columns), rows flattened row-major;
    X holds -1/+1.

    Examples
    --------
    >>> Y, X = segmentation_pairs(3, shape=(6, 8), random_state=0)
    >>> Y.shape, sorted(set(X.ravel().tolist()))
    ((3, 48), [-1, 1])
    """
    from scipy.ndimage import gaussian_filter
    def positive_int(k):
        return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) \
            and k >= 1
    if not positive_int(n_images):
        raise ValueError(f"n_images must be an integer >= 1, got {n_images!r}")
    if not (isinstance(shape, (tuple, list)) and len(shape) == 2
            and all(positive_int(k) for k in shape)):
        raise ValueError(f"shape must be (rows, columns) of positive integers, got {shape!r}")
    h, w = (int(k) for k in shape)
    for name, value, lo in (("length_scale", length_scale, "a positive"),
                            ("sigma", sigma, "a non-negative")):
        ok = isinstance(value, (int, float, np.integer, np.floating)) and \
            not isinstance(value, (bool, np.bool_)) and np.isfinite(value) and \
            (value > 0 if name == "length_scale" else value >= 0)
        if not ok:
            raise ValueError(f"{name} must be {lo} number, got {value!r}")
    rng = check_random_state(random_state)
    Z = gaussian_filter(rng.standard_normal((n_images, h, w)),
                        (0, float(length_scale), float(length_scale)), mode="wrap")
    X = np.where(Z > 0, 1, -1).reshape(int(n_images), h * w)
    Y = X + float(sigma) * rng.standard_normal(X.shape)
    return Y, X
