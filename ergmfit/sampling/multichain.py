"""Independent Markov chains for ``simulate`` and ``gof``, run one after the
other or in parallel (issue #22).

The draws are shared out among ``n_chains`` chains, each with its own
burn-in and seed; the seeds come from ``random_state`` in chain order, so the
result depends on the seed and ``n_chains`` but never on ``n_jobs`` (how many
processes or dask workers run the chains: :func:`ergmfit.runtime.parallel.parallel_map`).
Chain 0 draws its seed exactly as a single chain always has, so ``n_chains=1``
gives the draws a plain ``simulate``/``gof`` gives.
"""
from __future__ import annotations

import copy
import sys
import time

import numpy as np

from .chains import chain_draws, warn_interrupted_simulation


def chain_plan(random_state, n_draws, n_chains):
    """Per chain its random state and its number of draws (in order), and the
    generator left for further seeds.  Nothing here depends on ``n_jobs``."""
    from ..utils.validation import check_random_state, seed_words
    n_chains = int(n_chains)
    if n_chains < 1:
        raise ValueError(f"n_chains must be at least 1, got {n_chains}")
    rng = check_random_state(random_state)
    states = [copy.deepcopy(rng)]
    seed_words(rng)                      # what chain 0's sampler draws from its copy
    states += [np.random.default_rng(int(w)) for w in rng.integers(0, 2**63, n_chains - 1)]
    sizes = [len(a) for a in np.array_split(np.arange(int(n_draws)), n_chains)]
    return states, sizes, rng


def _simulate_chain(model, params, n, burnin, interval, stats, proposal, random_state, start,
                    control):
    # one chain (simulate's loop): statistics (n, p) or the tie arrays of its n
    # networks, and whether a Ctrl-C stopped it before its n draws
    theta = model.eta(params)
    sampler, cm = model.sampler(params, proposal, random_state, start)
    if stats:
        draws = model.statistics_vector(start) + chain_draws(sampler, theta, n, burnin, interval,
                                                             control=control)
    else:
        draws = chain_draws(sampler, theta, n, burnin, interval, snapshot=cm.state.ties,
                            control=control)
    return draws, len(draws) < n


def simulate_chains(model, params, n=1, burnin=16384, interval=1024, output="graphs",
                    proposal="auto", random_state=None, start=None, n_chains=1, n_jobs=1,
                    backend=None):
    """:meth:`ERGM.simulate` by ``n_chains`` independent chains on ``n_jobs``
    processes (or dask workers, ``backend="dask"``): the same arguments and
    output, the networks of chain 0 first.  A Ctrl-C stops the chains (those
    after an interrupted one do not start when they run one after another) and
    the draws finished by then are returned, with a warning, as by one chain."""
    from ..runtime import run_jobs
    if output not in ("graphs", "networks", "stats"):
        raise ValueError(f"output must be 'graphs', 'networks' or 'stats', got {output!r}")
    n, burnin, interval = int(n), int(burnin), int(interval)
    if n < 0 or burnin < 0 or interval < 1:
        raise ValueError("need n >= 0, burnin >= 0 and interval >= 1")
    states, sizes, _ = chain_plan(random_state, n, n_chains)
    jobs = [(model, params, k, burnin, interval, output == "stats", proposal, st, start)
            for st, k in zip(states, sizes) if k > 0]
    results, interrupted = run_jobs(_simulate_chain, jobs, n_jobs=n_jobs, backend=backend,
                                    is_interrupted=lambda res: res[1])
    parts = [draws for draws, _ in results]
    if interrupted:
        warn_interrupted_simulation(sum(len(part) for part in parts), n)
    if output == "stats":
        return (np.concatenate(parts) if parts
                else np.zeros((0, len(model.statistics_vector(start)))))
    nets = [model.network.with_ties(t) for part in parts for t in part]
    if output == "networks":
        return nets
    return [net.to_networkx() for net in nets]


def _summary_chain(model, theta, eta, rows, random_state, n_draws, burnin, interval,
                   summaries, graph_names, want_model, conditional=False, proposal="auto",
                   progress=None):
    """One chain of gof: ``n_draws`` networks after ``burnin`` proposals, one every
    ``interval``; their summaries (``summaries(n, ties, directed).compute(name)``
    for each of ``graph_names``, and the model's statistics when ``want_model``)
    as ``{name: (n_draws, size) array}``, and the
    chain's (accepted, proposed) counts.  ``conditional``: the chain toggles
    only the missing dyads (statnet's ``constraints + observed``).  ``rows``:
    one natural-parameter row per network (posterior predictive), else None."""
    from ..utils.validation import seed_words
    net = model.network
    if conditional:
        space = model.sample_space.conditional()
        cm = model.compiled()
        sampler = space.make_sampler(cm, space.proposal("auto", cm, model),
                                     seed_words(random_state))
    else:
        sampler, cm = model.sampler(theta, proposal, random_state)
    g0 = model.statistics_vector(model.chain_end(cm)) if want_model else None
    out = {nm: [] for nm in graph_names}
    if want_model:
        out["model"] = []
    def finished():
        return ({nm: np.array(v) for nm, v in out.items()},
                (int(sampler.n_accepted), int(sampler.n_proposed)))
    try:
        sampler.run(eta, burnin)            # the sampler runs on the natural parameters
        for s in range(n_draws):
            sampler.run(eta if rows is None else rows[s], interval)
            if graph_names:
                S = summaries(net.n, model.chain_end(cm), net.directed)
                for nm in graph_names:
                    out[nm].append(S.compute(nm))
            if want_model:
                out["model"].append(g0 + sampler.delta)
            if progress is not None:
                progress(s + 1)
    except KeyboardInterrupt:
        # Ctrl-C (the compiled sampler checks for it): the networks finished
        # so far go back with the interrupt
        raise ChainInterrupted(finished()) from None
    return finished()


class ChainInterrupted(KeyboardInterrupt):
    """Ctrl-C inside a chain of :func:`run_summary_chains`; ``part`` holds the
    summaries of the networks that chain finished."""

    def __init__(self, part):
        super().__init__()
        self.part = part


def run_summary_chains(model, theta, eta, rows, states, sizes, burnin, interval, summaries,
                       graph_names, want_model, conditional, proposal, n_jobs, backend, verbose,
                       t0):
    """gof's chains (one per entry of ``states``/``sizes``, see :func:`chain_plan`)
    through :func:`~ergmfit.runtime.parallel.parallel_map`: the summaries of all
    their networks in chain order, the acceptance rate, and whether a Ctrl-C
    cut the run short (chains run one after another then keep the networks
    finished; KeyboardInterrupt when there are none)."""
    from ..runtime import parallel_map
    n_sim = sum(sizes)
    step = max(1, n_sim // 10)
    offsets = np.cumsum([0] + sizes[:-1])
    what = "conditional networks (missing dyads)" if conditional else "networks"

    def progress_of(c):
        if not verbose or n_jobs != 1:
            return None

        def show(done):
            k = offsets[c] + done
            if k % step == 0 or k == n_sim:
                print(f"gof: simulated {k}/{n_sim} {what} ({time.perf_counter() - t0:.1f} s)",
                      file=sys.stderr)
        return show
    jobs = [(model, theta, eta, None if rows is None else rows[o:o + k], st, k, burnin, interval,
             summaries, graph_names, want_model, conditional, proposal, progress_of(c))
            for c, (st, k, o) in enumerate(zip(states, sizes, offsets)) if k > 0]
    names = list(graph_names) + (["model"] if want_model else [])
    interrupted = False
    if n_jobs == 1 or len(jobs) <= 1:
        # one chain after another: a Ctrl-C keeps every network finished so far
        parts = []
        for job in jobs:
            try:
                parts.append(_summary_chain(*job))
            except ChainInterrupted as exc:
                parts.append(exc.part)
                interrupted = True
                break
    else:
        parts = parallel_map(_summary_chain, jobs, n_jobs=n_jobs, backend=backend)
    parts = [p for p in parts if len(p[0][names[0]]) > 0] if names else parts
    if interrupted and not parts:
        raise KeyboardInterrupt
    sims = {nm: np.concatenate([p[0][nm] for p in parts]) for nm in names}
    acc = sum(p[1][0] for p in parts) / max(1, sum(p[1][1] for p in parts))
    return sims, acc, interrupted
