"""Synthetic data for the MRF models.

* :func:`exact_sample` -- i.i.d. draws from p(x | theta) by enumeration (<= 20 variables).
* :func:`gibbs_sample` -- random-scan Gibbs draws with the shared
  :class:`~ergmfit.sampling._blocks.BlockGibbsSampler` (larger models).
* :func:`chessboard` -- the 32x32 chessboard of Asuncion et al. (2010, sec. 4.2)
  with additive N(0, sigma^2) noise, as (y, x) pairs for :class:`~ergmfit.mrf.models.GridCRF`.
* :func:`segmentation_pairs` -- random label images made of smooth regions (a thresholded
  smoothed Gaussian field) with noisy observations, for CRF learning experiments
  (a synthetic stand-in for region-labelled scene images).
* :func:`sentiment_documents` -- documents of sentences with 5-level sentiment labels that
  flow from sentence to sentence and bag-of-words features, for chain CRFs (a synthetic
  stand-in for Mao & Lebanon's local-sentiment data).
"""
from __future__ import annotations

import numpy as np

from ..utils.validation import check_random_state, seed_words
from . import exact as _exact
from ._base import whole_count

__all__ = ["exact_sample", "gibbs_sample", "chessboard", "chessboard_pairs", "segmentation_pairs",
           "random_theta", "sentiment_documents"]


def exact_sample(bm_or_G, theta, n_samples, n_vars=None, random_state=None):
    """n_samples exact i.i.d. draws (0/1 rows) from p(x | theta)."""
    rng = check_random_state(random_state)
    G = bm_or_G if isinstance(bm_or_G, np.ndarray) else _exact.all_statistics(bm_or_G)
    n = int(round(np.log2(G.shape[0]))) if n_vars is None else int(n_vars)
    P = _exact.probabilities(G, theta)
    idx = rng.choice(len(P), size=whole_count(n_samples, "n_samples"), p=P / P.sum())
    return ((idx[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def gibbs_sample(bm, theta, n_samples, random_state=None, burnin=100, thin=1):
    """Draws by random-scan single-site Gibbs on the compiled model: ``burnin``
    sweeps (n_vars updates each), then one draw every ``thin`` sweeps."""
    from ..sampling._blocks import BlockGibbsSampler, Enumeration, UniformBlocks
    n_samples = whole_count(n_samples, "n_samples")
    burnin, thin = whole_count(burnin, "burnin"), whole_count(thin, "thin", 1)
    s = BlockGibbsSampler(bm, UniformBlocks(bm.n_vars, 1), Enumeration(1),
                          seed_words(random_state))
    theta = np.asarray(theta, dtype=float)
    n = int(bm.n_vars)
    s.run(theta, burnin * n)
    out = np.empty((n_samples, n), dtype=np.uint8)
    for r in range(n_samples):
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


def sentiment_documents(n_docs=249, mean_sentences=30.5, mean_words=12.3, vocabulary=12633,
                        n_states=5, stay=0.7, signal=0.15, lexicon=300, bias=True,
                        random_state=None):
    """Documents of sentences with sentiment labels and bag-of-words features.

    A synthetic stand-in, at its sizes, for the local-sentiment data of Mao &
    Lebanon (2007) used by Dillon & Lebanon (2009, Sec. 7.2): 249 documents
    of 30.5 sentences on average, 12.3 words per sentence on average, a
    vocabulary of 12,633 words and five labels (very negative .. very
    positive).  Per document:

    * the number of sentences is 1 + a negative binomial count (a Poisson
      with a Gamma(4) mean, so lengths vary) with mean ``mean_sentences``;
    * the labels flow: the first is drawn with probabilities
      (0.15, 0.2, 0.3, 0.2, 0.15) (for 5 states; else uniform), and each next
      one stays with probability ``stay`` or moves to another state r with
      probability proportional to exp(-|r - s|) (a neighbouring level is the
      likeliest move);
    * a sentence has 1 + Poisson(``mean_words`` - 1) words; each word is, with
      probability ``signal``, drawn from its label's lexicon (``lexicon``
      words of the vocabulary, chosen at random once per call, Zipf-
      distributed within it) and otherwise from a Zipf distribution over the
      whole vocabulary (exponent 1.07, as word frequencies roughly are).

    Parameters
    ----------
    n_docs, mean_sentences, mean_words, vocabulary, n_states : sizes (see above)
    stay : float in [0, 1) -- probability that a label repeats the previous one
    signal : float in [0, 1] -- share of words drawn from the label's lexicon
    lexicon : int -- words per label lexicon (<= vocabulary)
    bias : bool -- append a constant feature (column ``vocabulary``)
    random_state : None, int or Generator

    Returns
    -------
    (F, Y) : lists of length n_docs; F[i] a scipy CSR matrix (sentences x
    features) of word counts (plus the constant), Y[i] an int64 array of labels
    0..n_states-1.

    Examples
    --------
    >>> F, Y = sentiment_documents(3, vocabulary=50, lexicon=10, random_state=0)
    >>> len(F), F[0].shape[1], F[0].shape[0] == len(Y[0])
    (3, 51, True)
    """
    from scipy import sparse

    def count(name, v, lo):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
        return int(v)

    def real(name, v, lo, hi, hi_open=False):
        ok = isinstance(v, (int, float, np.integer, np.floating)) and \
            not isinstance(v, (bool, np.bool_)) and np.isfinite(v) and lo <= v <= hi and \
            not (hi_open and v == hi)
        if not ok:
            raise ValueError(f"{name} must be a number in [{lo}, {hi}{')' if hi_open else ']'}, "
                             f"got {v!r}")
        return float(v)
    n_docs = count("n_docs", n_docs, 1)
    vocabulary = count("vocabulary", vocabulary, 1)
    n_states = count("n_states", n_states, 2)
    lexicon = count("lexicon", lexicon, 1)
    if lexicon > vocabulary:
        raise ValueError(f"lexicon ({lexicon}) cannot exceed the vocabulary ({vocabulary})")
    mean_sentences = real("mean_sentences", mean_sentences, 1, np.inf, hi_open=True)
    mean_words = real("mean_words", mean_words, 1, np.inf, hi_open=True)
    stay = real("stay", stay, 0, 1, hi_open=True)
    signal = real("signal", signal, 0, 1)
    rng = check_random_state(random_state)
    ranks = np.arange(1, vocabulary + 1, dtype=float)
    background = ranks ** -1.07
    background /= background.sum()
    lex = [rng.choice(vocabulary, size=lexicon, replace=False) for _ in range(n_states)]
    lex_p = np.arange(1, lexicon + 1, dtype=float) ** -1.07
    lex_p /= lex_p.sum()
    s = np.arange(n_states)
    move = np.exp(-np.abs(s[:, None] - s[None, :]).astype(float))
    np.fill_diagonal(move, 0.0)
    move /= move.sum(axis=1, keepdims=True)
    trans = stay * np.eye(n_states) + (1 - stay) * move
    first = np.array([0.15, 0.2, 0.3, 0.2, 0.15]) if n_states == 5 else \
        np.full(n_states, 1.0 / n_states)
    d = vocabulary + (1 if bias else 0)
    F, Y = [], []
    for _ in range(n_docs):
        T = 1 + rng.poisson(rng.gamma(4.0, (mean_sentences - 1) / 4.0))
        y = np.empty(T, dtype=np.int64)
        y[0] = rng.choice(n_states, p=first)
        for t in range(1, T):
            y[t] = rng.choice(n_states, p=trans[y[t - 1]])
        n_words = 1 + rng.poisson(mean_words - 1, size=T)
        rows = np.repeat(np.arange(T), n_words)
        from_lex = rng.random(len(rows)) < signal
        words = rng.choice(vocabulary, size=len(rows), p=background)
        k = int(from_lex.sum())
        if k:
            pick = rng.choice(lexicon, size=k, p=lex_p)
            lab = y[rows[from_lex]]
            words[from_lex] = np.array([lex[a][b] for a, b in zip(lab, pick)], dtype=np.int64)
        M = sparse.csr_matrix((np.ones(len(rows)), (rows, words)), shape=(T, d))
        M.sum_duplicates()
        if bias:
            M = M.tolil()
            M[:, vocabulary] = 1.0
            M = M.tocsr()
        F.append(M)
        Y.append(y)
    return F, Y
