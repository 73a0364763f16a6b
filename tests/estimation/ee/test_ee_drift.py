"""EE's drift test on trajectories of known dynamics (session 17, snow35g).

Under the Newton update θ relaxes at most at the learning rate a per iteration, so a
stationary trajectory has a memory of about 1 / a iterations (1,000 at a = 0.001).  The
drift test's Monte-Carlo s.e. of the two halves' means came from batch means with
⌊√m⌋-iteration batches (63 of a 4,000-iteration half), far shorter than that memory: it
understated the s.e. several-fold and called 65 % of stationary trajectories drifting
(snowball samples' conditional fits with every |t| < 0.02 reported ``converged=False``).
"""
import numpy as np
from scipy.signal import lfilter

from ergmfit.estimation.ee.pool import _chain_summary, _theta_memory, half_means_drift

A = 0.001


def _newton_like(seed, n=8000, p=2):
    """A stationary θ trajectory of the Newton update's dynamics: θ ← (1 - a) θ + a ε."""
    e = np.random.default_rng(seed).normal(size=(n + 4000, p))
    return lfilter([A], [1, -(1 - A)], e, axis=0)[4000:]


def _summary(theta, memory):
    n, p = theta.shape
    ch = {"labels": [f"t{k}" for k in range(p)], "theta_rows": theta,
          "dz_rows": np.random.default_rng(0).normal(size=(n, p)), "store_every": 1,
          "n_done": n, "stage_start": 0, "sims": None}
    return _chain_summary(ch, 0, 100, memory=memory)


def test_stationary_newton_trajectories_do_not_drift():
    flagged = sum(bool(np.any(_summary(_newton_like(s), 1 - A)["drift_z"] >= 3))
                  for s in range(20))
    assert flagged <= 2          # batch means alone (the old s.e.): 11 of 20


def test_a_trend_still_drifts():
    flagged = 0
    for s in range(20):
        th = _newton_like(s)
        th = th + 8 * th.std(axis=0) * np.linspace(0, 1, len(th))[:, None]
        flagged += bool(np.all(_summary(th, 1 - A)["drift_z"] >= 3))
    assert flagged >= 18


def test_memory_from_the_update():
    assert _theta_memory({"update": "newton", "learning_rate": (0.01, 0.001)}) == 1 - 0.001
    assert _theta_memory({"update": "newton", "learning_rate": 0.05}) == 1 - 0.05
    assert _theta_memory({"update": "borisenko", "learning_rate": 0.001}) == 0.0


def test_white_noise_unchanged_scale():
    # no memory: the AR(1) and batch-means s.e. agree, so z is a standard normal's size
    z = [half_means_drift(np.random.default_rng(s).normal(size=(400, 1)))[0][0]
         for s in range(200)]
    assert 0.05 <= np.mean(np.array(z) >= 1.96) <= 0.12
