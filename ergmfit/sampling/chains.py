"""Independent Metropolis-Hastings chains, run in-process or in parallel with joblib.

The same seed gives the same draws whatever ``n_jobs`` is: every chain gets
its own seed, drawn up front from ``random_state``.  To run on a dask
cluster, pass ``backend="dask"`` (with a ``dask.distributed.Client``) or wrap
the call in ``joblib.parallel_config(backend="dask")``.
"""
from __future__ import annotations

import numpy as np

import contextlib

from ..exceptions import SettingsError
from ..runtime import ctrl_c_flag, parallel_map
from ..utils.validation import check_random_state, warn
from . import _mh


@contextlib.contextmanager
def runaway_guard(factor="keep", min_ties="keep", memory="keep", min_value="keep",
                  min_total="keep"):
    """Change the runaway guard of every Metropolis-Hastings chain in a ``with`` block.

    Every chain (``simulate``, gof, MCMC-MLE, CD, EE, Bayes, the s.e.
    simulations) stops with :class:`~ergmfit.exceptions.DegenerateModelError`
    when its tie count passes ``max(min_ties, factor x the observed ties)``
    or the process's peak memory grows by ``memory`` bytes during the chain
    (checked in the compiled loop every 2^16 proposals).  Defaults:
    ``factor=4``, ``min_ties=1_000_000``, ``memory=4 GiB``; ``None`` switches
    a part off.  Parallel workers (``n_jobs``) get the settings in force.

    Count-valued models with an unbounded reference (Poisson, Geometric) have
    two more ceilings, for an improper model whose values climb without bound:
    a dyad value above ``max(min_value, factor x the largest observed value)``
    stops the chain at once, a sum of the values above ``max(min_total, factor
    x the observed sum)`` within 2^16 proposals.  Defaults: ``min_value=10_000``,
    ``min_total=1_000_000``.

    >>> import networkx as nx, ergmfit as ef
    >>> m = ef.ERGM(nx.empty_graph(30), "edges")
    >>> with runaway_guard(factor=None):          # no tie ceiling
    ...     S = m.simulate([3.0], n=1, output="stats", random_state=1)
    """
    new = {}
    for key, val in (("factor", factor), ("min_ties", min_ties), ("memory", memory),
                     ("min_value", min_value), ("min_total", min_total)):
        if isinstance(val, str) and val == "keep":
            continue
        if val is not None:
            try:
                ok = float(val) >= 0
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise SettingsError(f"runaway_guard: {key} must be a number >= 0 or None, "
                                    f"got {val!r}")
        new[key] = val
    old = dict(_mh.RUNAWAY_GUARD)
    _mh.RUNAWAY_GUARD.update(new)
    try:
        yield dict(_mh.RUNAWAY_GUARD)
    finally:
        _mh.RUNAWAY_GUARD.clear()
        _mh.RUNAWAY_GUARD.update(old)


def _chain_job(model, theta, n, burnin, interval, start, seed, proposal, until=None):
    sampler, cm = model.sampler(theta, proposal=proposal, random_state=seed, start=start)
    g0 = model.statistics_vector(start)
    eta = model.eta(theta) if hasattr(model, "eta") else theta   # natural parameters
    if until is None:
        stats = g0 + sampler.sample(eta, n, burnin, interval)
    else:       # in parts (the same draws as one call), stopping when until[1](stats)
        rows, done = [], 0
        while done < n:
            k = min(until[0], n - done)
            rows.append(sampler.sample(eta, k, burnin if done == 0 else 0, interval))
            done += k
            stats = g0 + np.vstack(rows)
            if done < n and until[1](stats):
                break
    return stats, model.chain_end(cm), sampler.acceptance_rate


def chain_draws(sampler, theta, n, burnin, interval, snapshot=None, control=None):
    """``n`` draws of one Metropolis-Hastings chain: ``burnin`` proposals, then one
    draw every ``interval`` proposals (the loop behind every model's ``simulate``).

    The chain runs in pieces (the same draws as one call): a Ctrl-C between two
    pieces ends it with a warning, and the draws finished by then are returned.

    Parameters
    ----------
    sampler : MHSampler or CountMHSampler
        A sampler of :mod:`ergmfit.sampling._mh` (its model's state advances in place).
    theta : array
        The natural parameters the sampler runs at.
    n, burnin, interval : int
        Checked by the caller (:func:`ergmfit.utils.validation.check_simulation_work`).
    snapshot : callable, optional
        Called after each draw's proposals; its results are the draws (networks).
        Without it, the draws are the statistics g(x_t) - g(x_0).
    control : ergmfit.runtime.JobControl, optional
        The chain is a job of :func:`ergmfit.runtime.run_jobs`: it also stops when
        the run asks it to (a Ctrl-C in the parent), and the caller, who sees
        fewer than ``n`` draws, gives the warning.

    Returns
    -------
    (k, p) array of statistic changes, or the list of ``snapshot()`` results;
    k = n unless interrupted.

    Examples
    --------
    >>> import networkx as nx, ergmfit as ef
    >>> m = ef.ERGM(nx.empty_graph(10), "edges")
    >>> sampler, cm = m.sampler([0.0], random_state=1)
    >>> chain_draws(sampler, [0.0], 3, 100, 10).shape
    (3, 1)
    """
    theta = np.asarray(theta, dtype=float)
    rows, draws, done = [], [], 0
    try:
        with ctrl_c_flag() as ctrl_c:

            def check():
                ctrl_c.check()
                if control is not None and control.stop_requested():
                    raise KeyboardInterrupt
            if snapshot is None:
                step = max(1, 2 ** 20 // interval)
                while done < n:
                    k = min(step, n - done)
                    rows.append(sampler.sample(theta, k, burnin if done == 0 else 0, interval))
                    done += k
                    check()
            else:
                sampler.run(theta, burnin)
                for _ in range(n):
                    sampler.run(theta, interval)
                    draws.append(snapshot())
                    done += 1
                    check()
    except KeyboardInterrupt:
        if control is None:
            warn_interrupted_simulation(done, n)
    if snapshot is not None:
        return draws
    return np.vstack(rows) if rows else np.zeros((0, sampler.model.n_stats))


def warn_interrupted_simulation(done, n):
    """The warning of a simulation that a Ctrl-C ended after ``done`` of ``n`` draws."""
    warn(f"simulate was interrupted by the user after {done} of {n} draws: only the "
         f"{done} finished draws are returned")


def chain_seeds(random_state, n_chains):
    """One integer seed per chain, reproducible from ``random_state``."""
    rng = check_random_state(random_state)
    return [int(s) for s in rng.integers(0, 2**63 - 1, size=n_chains)]


def run_chains(model, theta, n, burnin, interval, starts=None, n_chains=1, n_jobs=1,
               random_state=None, proposal="auto", backend=None, until=None):
    """Draw ``n`` statistic vectors from ``n_chains`` chains at ``theta``.

    Parameters
    ----------
    model : ERGM
    theta : array
    n : int
        Total draws, split as evenly as possible over the chains.
    burnin, interval : int
        Proposals before the first draw of each chain, and between draws.
    starts : list of tie arrays, optional
        Where each chain starts (default: the observed network).
    n_jobs : int
        Parallel processes (joblib); 1 runs in this process.
    backend : str, optional
        joblib backend (see :func:`ergmfit.runtime.parallel.parallel_map`).
    until : (int, callable), optional
        ``(part, enough)``: each chain draws in parts of ``part`` draws (the same draws as
        one run) and stops after the first part at which ``enough(its statistics)`` is
        true (a picklable callable; used by MCMC-MLE's samples at the smallest interval).

    Returns
    -------
    stats : list of (n_c, p) arrays, absolute statistics of each chain
    ends : list of tie arrays, the last state of each chain
    acceptance : list of float
    """
    if starts is None:
        starts = [None] * n_chains
    if len(starts) != n_chains:
        raise ValueError("need one start per chain")
    sizes = [n // n_chains + (1 if c < n % n_chains else 0) for c in range(n_chains)]
    seeds = chain_seeds(random_state, n_chains)
    jobs = [(model, np.asarray(theta, dtype=float), sizes[c], burnin, interval, starts[c],
             seeds[c], proposal, until) for c in range(n_chains)]
    out = parallel_map(_chain_job, jobs, n_jobs=n_jobs if n_chains > 1 else 1, backend=backend)
    return [o[0] for o in out], [o[1] for o in out], [o[2] for o in out]


def batch_means_cov(chains, n_batches=None):
    """Covariance of the overall mean of the draws, by batch means within each chain.

    ``chains`` is a list of (n_c, p) arrays.  Batches of floor(sqrt(n_c))
    draws, or ``n_batches`` batches per chain (longer batches, for chains
    whose autocorrelation outlasts sqrt(n_c) draws); the result estimates
    Var(mean of all draws).
    """
    p = chains[0].shape[1]
    total = sum(len(c) for c in chains)
    mean = np.concatenate(chains).mean(axis=0)
    acc = np.zeros((p, p))
    nb_total = 0
    for c in chains:
        m = len(c)
        b = max(1, int(np.floor(np.sqrt(m))) if n_batches is None else m // int(n_batches))
        a = m // b
        if a < 2:
            continue
        bm = c[: a * b].reshape(a, b, p).mean(axis=1) - mean
        acc += b * (bm.T @ bm)
        nb_total += a
    if nb_total <= len(chains):
        d = np.concatenate(chains) - mean
        return (d.T @ d) / max(total - 1, 1) / total
    sigma = acc / (nb_total - len(chains))          # long-run covariance of one draw
    return sigma / total


def integrated_autocorrelation_time(x):
    """Integrated autocorrelation time of one series (Geyer's initial
    monotone positive sequence), in draws; 1 for independent draws."""
    n = len(x)
    x = x - x.mean()
    v = x @ x / n
    if n < 4 or v <= 0:
        return 1.0
    f = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n] / (n * v)
    m = (n - 1) // 2
    pairs = acf[: 2 * m].reshape(m, 2).sum(axis=1)       # Gamma_k = rho_2k + rho_2k+1
    pos = np.flatnonzero(pairs <= 0)
    pairs = pairs[: pos[0]] if len(pos) else pairs
    if len(pairs) == 0:
        return 1.0
    pairs = np.minimum.accumulate(pairs)                    # monotone
    return max(1.0, 2.0 * pairs.sum() - 1.0)


def multivariate_ess(chains):
    """Multivariate effective sample size of the draws, summed over chains.

    Vats, Flegal & Jones (2019) define it as n (det Λ / det Σ)^(1/p), Λ the
    covariance of one draw and Σ the long-run (asymptotic) covariance: the
    geometric mean of the effective sizes over all directions.  statnet's
    adaptive MCMC (``MCMC.effectiveSize``) measures its target in this way.
    Here the draws are rotated to the principal components of Λ, each
    component gets Geyer's univariate effective size (as
    :func:`effective_sizes`), and their geometric mean is returned: by
    Hadamard's inequality never above the Vats-Flegal-Jones value, and
    robust where short batch means are not.  Directions that do not vary
    are left out; a sample that does not vary at all gives its size.

    A statistic that never comes back to a value it has left in some chain
    (it changes once, or only drifts; the rule of :func:`effective_sizes`)
    is whitened on its own, before the principal components of the others
    (which are taken of their parts not explained by it): its direction then
    has its runs of equal values, and counts at most one draw per run, as in
    :func:`effective_sizes`.  (A principal component mixes it with the other
    statistics, whose noise hides its single change from Geyer's sequence:
    a size near n for a statistic that changed once.)  Any whitening keeps
    the Hadamard bound above.

    >>> import numpy as np
    >>> x = np.zeros((1000, 1)); x[-1] = 1.0          # one change, in the last draw
    >>> multivariate_ess([x])
    2.0
    """
    Z = np.concatenate(chains)
    n = len(Z)
    if n < 4:
        return float(n)
    mean = Z.mean(axis=0)
    cov = np.atleast_2d(np.cov(Z, rowvar=False))
    stuck = _never_back(chains)
    if stuck:
        rot, n_stuck = _whiten_stuck_first(cov, stuck)
        if rot is None:
            return float(n)
    else:
        w, vecs = np.linalg.eigh(cov)
        keep = w > 1e-12 * max(float(w.max()), 0.0)
        if not keep.any():
            return float(n)
        rot, n_stuck = vecs[:, keep] / np.sqrt(w[keep]), 0
    ess = np.zeros(rot.shape[1])
    for c in chains:
        y = (c - mean) @ rot
        for k in range(y.shape[1]):
            geyer = len(y) / integrated_autocorrelation_time(y[:, k])
            ess[k] += _run_bound(y[:, k], geyer) if k < n_stuck else geyer
    return float(np.exp(np.mean(np.log(ess))))


def _never_back(chains):
    """The columns that :func:`effective_sizes` bounds by their runs in some chain (they
    never come back to a value they have left, in fewer runs than Geyer's size)."""
    stuck = []
    for k in range(chains[0].shape[1]):
        for c in chains:
            col = c[:, k]
            starts = np.flatnonzero(col[1:] != col[:-1]) + 1
            if len(starts) == 0 or len(starts) + 1 >= len(col):
                continue                        # constant, or a new value at every draw
            values = col[np.concatenate(([0], starts))]
            if len(np.unique(values)) != len(values):
                continue                        # a value comes back: the usual case
            geyer = len(col) / integrated_autocorrelation_time(col)
            if _run_bound(col, geyer) < geyer:
                stuck.append(k)
                break
    return stuck


def _whiten_stuck_first(cov, stuck):
    """A whitening matrix (p, m) of the covariance ``cov`` whose first columns are the
    ``stuck`` statistics, each standardised after taking out the ones before it (Gram-Schmidt
    in ``cov``'s inner product), then the principal components of the other statistics'
    parts not explained by them; directions that do not vary are left out.  Returns the
    matrix (None if nothing varies) and the number of stuck directions kept."""
    p = cov.shape[0]
    scale = max(float(np.max(np.diag(cov))), 0.0)
    cols = []
    for k in stuck:
        v = np.zeros(p)
        v[k] = 1.0
        for u in cols:
            v -= u * (u @ cov @ v)
        var = float(v @ cov @ v)
        if var > 1e-12 * max(float(cov[k, k]), 1e-300) and cov[k, k] > 1e-12 * scale:
            cols.append(v / np.sqrt(var))
    rest = [k for k in range(p) if k not in stuck]
    B = np.eye(p)[:, rest]
    if cols:
        U = np.column_stack(cols)
        B = B - U @ (U.T @ cov @ B)
    parts = []
    if rest:
        w, vecs = np.linalg.eigh(np.atleast_2d(B.T @ cov @ B))
        keep = w > 1e-12 * max(float(w.max()), scale * 1e-12, 0.0)
        if keep.any():
            parts.append(B @ vecs[:, keep] / np.sqrt(w[keep]))
    if not cols and not parts:
        return None, 0
    return np.column_stack(cols + parts), len(cols)


def _run_bound(col, ess):
    """``ess`` of the column ``col``, at most its number of runs (maximal
    stretches of one value) when no value comes back once the chain has left it."""
    starts = np.flatnonzero(col[1:] != col[:-1]) + 1
    if len(starts) + 1 >= ess:
        return ess                      # (the usual case: many runs)
    values = col[np.concatenate(([0], starts))]
    return float(len(values)) if len(np.unique(values)) == len(values) else ess


def effective_sizes(chains):
    """Effective sample size of each statistic, summed over chains
    (autocorrelation time by Geyer's initial monotone sequence).

    A statistic that never comes back to a value it has left (it changes
    once, or only drifts) counts at most one draw per run of equal values
    in a chain: its draws show no return, so no mixing.  (Geyer's sequence
    alone gives n/k for a chain whose last k draws differ from the rest:
    n after a single change in its last draw.)  A statistic that does not
    vary at all counts every draw (there is nothing to estimate; callers that
    need variation check it themselves).

    >>> import numpy as np
    >>> x = np.zeros((1000, 1)); x[-1] = 1.0          # one change, in the last draw
    >>> effective_sizes([x])
    array([2.])
    """
    p = chains[0].shape[1]
    ess = np.zeros(p)
    for c in chains:
        for k in range(p):
            col = c[:, k]
            if col.std() > 0:
                ess[k] += _run_bound(col, len(col) / integrated_autocorrelation_time(col))
            else:
                ess[k] += len(col)
    return ess
