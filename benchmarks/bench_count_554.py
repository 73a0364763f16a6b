"""The 284-node Binomial(4) model with the 17-coefficient shape of statnet/ergm issue 554,
fitted by MCMC-MLE on a seeded synthetic network.

Run by hand:  PYTHONPATH=. python benchmarks/bench_count_554.py [--seeds 1 2] [--profile]

statnet/ergm issue 554 ("running for almost a week") fitted a directed 284 x 284 count
matrix under ``reference=~Binomial(4)`` with

    sum(pow=1) + mutual("min") + nodeicovar(transform="sqrt") + nodeocovar(transform="sqrt")
    + transitiveweights("min", "max", "min") + nodefactor("capital", levels=-1)
    + nodecov("gdp") + nodecov("dl") + nodecov("bci") + nodecov("pop") + nodecov("policy")
    + nodecov("government") + edgecov(distance) + edgecov(history) + edgecov(region)

15 terms; with a four-level ``capital`` (``levels=-1`` drops the first) they have 17
coefficients.  The issue's data are not public, so ``issue554_network`` draws a network of the
same shape: node covariates (``capital`` with 4 levels, six standardised continuous
covariates), three dyadic covariates (a distance, a binary history, a binary same-region),
and values Binomial(4, p_ij) with logit p_ij from the covariates, sender/receiver effects and
a latent space (which gives reciprocity and transitive weights, as real flows have).  ergmfit
needs ``center=`` for ``nodeicovar``/``nodeocovar`` (statnet's has no default either in
ergm 4.4: the issue's call predates it); we use ``center=True``.

Prints the network's summary, then per seed: CPU seconds of ``fit("mcmle")`` (without the
log-likelihood, as the issue's call did not ask for it), MCMC-MLE iterations, whether it
converged, the largest |t| of the final convergence check, and one line per iteration
(Hummel's step length γ, interval, draws, multivariate and smallest univariate effective
size, burn-in parts, largest |t| of the sample from the data).  The package's criterion is
statnet's Hummel rule: γ = 1 twice, then a last sample boosted to 4 x 64 *multivariate*
effective draws (session 17; it asked 256 of every statistic before, which at the
strength statistics' 2.5 x 10^6 proposals per effective draw near the data was 6.4 x 10^8
proposals for the last sample alone; at the smallest interval the last sample keeps 256 of
every statistic, session 18).  ``--checkpoint DIR`` writes each seed's
checkpoint to ``DIR/seedN.json`` after every iteration and resumes from it when it exists
(a long run on a shared machine can be continued; the CPU s printed are this process's).  The issue's check: converged
in < 10 CPU minutes.  From the MPLE the first sample's chains drift, so the fit moves its
start once by stochastic approximation (the count family's ``drift_start``; the iteration
record says ``moved_start``) and goes on from there.  Each seed's line also
gives the 1-minute load average before and after (the machine is shared: CPU s, not wall
time, is the figure), the estimate's largest |t| of the last sample and the largest
difference between seeds in units of the first seed's standard errors.  ``--profile`` runs one fit under
cProfile and prints the top entries.  ``--drift`` instead measures, from each start (count
MPLE, CD, EE, stochastic approximation from the MPLE), how far a chain from the observed
network moves: the statistics after 10^5 and 3 x 10^6 proposals beside the observed
ones (docs/valued_terms.md, "MCMC-MLE of the issue-554 model").
``--relax`` instead tests the near-critical reading of that drift (session 16): a chain at
the start stochastic approximation gives (from the MPLE) runs from the observed network for
6 x 10^7 proposals (a draw every 10^5): the statistics' distance from the data over time,
where the burn-in test (``burnin_cut``) ends its burn-in, each statistic's integrated
autocorrelation time in the settled tail (proposals per effective draw, which sets the cost
of every MCMC-MLE sample there), and the last sample's cost by the multivariate effective
size (statnet's measure, the package's rule since session 17) and by the slowest statistic.
``--sa-start N`` (session 18) fits from another start instead of the default: the count
MPLE, then stochastic approximation from it with ``phase2_min=N`` (the default start's move
uses SA's default, 7 + p), then MCMC-MLE from that estimate (``init=``) at ``--interval``
proposals between draws (default 65,536: the interval the slow node-strength statistics
need); it prints each stage's CPU s and the iterations.
``--mix CPU`` (session 19) compares proposals where the fit needs them: at the SA start
of ``--sa-start`` (phase2_min=200, seed 1), one chain per proposal from the observed network
for CPU seconds each (a draw every 10^5 proposals; tie/no-tie, the node-strength move
``strength`` with share 0.3 and 8 dyads, the row resample ``row`` with share 0.001 and tilt
3): proposals per CPU s, acceptance, CPU s per effective draw of ``nodeicovar`` and
``nodeocovar`` and of the median node's out-strength (Σ_j √y_ij) in the later two thirds,
and how often a node's out- or in-strength crosses between below 110 and above 180 (the
bistable nodes: docs/valued_terms.md, session 19), per 100 CPU s.
``--min-ess-share X`` (session 20) fits with that per-statistic floor instead of the count
family's (0 since session 20: statnet's multivariate rule alone; 0.5 before).  ``--init FILE``
(session 20) starts the fit at the ``theta`` of a JSON file (e.g. a checkpoint of an earlier,
longer run) instead of the MPLE: the cost of the fit from near the MLE, where its last sample
is drawn.
``--pool K`` (session 21) steps on the last K samples' pooled draws (MCMC-MLE's
``pool_samples``; the count family's default since session 22 is 4, so ``--pool 1`` is the
unpooled fit).  Session 22 (the streak counts Hummel's γ, printed beside the step taken
when the trust region shortened it; the noise floor divided among the pooled samples;
``--seeds 2`` then ``--seeds 1`` with ``--pool 4``, one process at a time, load 2.2–4.8):

=====  =========  ==========  =========  =====================================
seed   CPU s      iterations  converged  largest |t| of the last sample
=====  =========  ==========  =========  =====================================
2      514.1      16          yes        0.74 (first γ = 1 streak: it. 14–15)
1      579.6      15          yes        0.63 (start at |t| 24: 304 CPU s to |t| 6)
=====  =========  ==========  =========  =====================================

The seeds' estimates differ by at most 0.28 of their combined s.e.  At session 21's load
(5–13) CPU s run about 1.2–1.3 x higher (docs/valued_terms.md, session 22).
Session 23, on main ``0c1a71c`` (the branch's fit after the ``B()``/two-mode merges and the
``DyadicFormKernel`` speed fix; default settings, ``--seeds 1`` and ``--seeds 2`` in two
processes at once on the idle machine, load 1.4–2.1; the same iterations and γ as above):
seed 1 562.1 CPU s (15 iterations), seed 2 490.4 CPU s (16), both converged, with the
estimates of the table's runs to the digits printed (the same chains).
``--rate N`` instead times N Metropolis-Hastings proposals (the default proposal) at the count
MPLE, of the whole model and of the model without ``transitiveweights``, in CPU s (run it
alternately from two trees for an A/B).
"""
import argparse
import json
import os
import time
import warnings

import networkx as nx
import numpy as np

import ergmfit as ef

N_NODES = 284
TRIALS = 4
FORMULA = ('sum(pow=1) + mutual("min") + nodeicovar(center=True, transform="sqrt") '
           '+ nodeocovar(center=True, transform="sqrt") + transitiveweights("min", "max", "min") '
           '+ nodefactor("capital", levels=-1) + nodecov("gdp") + nodecov("dl") + nodecov("bci") '
           '+ nodecov("pop") + nodecov("policy") + nodecov("government") + edgecov("distance") '
           '+ edgecov("history") + edgecov("region")')


def issue554_network(n=N_NODES, seed=554):
    """A directed count network shaped like ergm issue 554's (values 0..4, seeded)."""
    rng = np.random.default_rng(seed)
    capital = rng.integers(0, 4, size=n)
    covs = {name: rng.standard_normal(n) for name in
            ("gdp", "dl", "bci", "pop", "policy", "government")}
    position = rng.standard_normal((n, 2))
    region_of = rng.integers(0, 8, size=n)
    distance = np.sqrt(((position[:, None, :] - position[None, :, :]) ** 2).sum(-1))
    distance += 0.5 * rng.random((n, n))
    distance = (distance + distance.T) / 2
    history = (rng.random((n, n)) < 0.1).astype(float)
    region = (region_of[:, None] == region_of[None, :]).astype(float)
    sender, receiver = 0.6 * rng.standard_normal(n), 0.6 * rng.standard_normal(n)
    logit = (-1.6 + sender[:, None] + receiver[None, :] - 1.2 * distance
             + 0.8 * history + 0.5 * region + 0.2 * covs["gdp"][:, None]
             + 0.15 * covs["pop"][None, :] + 0.1 * (capital[:, None] == 0))
    p = 1 / (1 + np.exp(-logit))
    values = rng.binomial(TRIALS, p)
    np.fill_diagonal(values, 0)
    for m in (distance, history, region):
        np.fill_diagonal(m, 0)
    g = nx.DiGraph(distance=distance, history=history, region=region)
    for i in range(n):
        g.add_node(i, capital=f"c{capital[i]}", **{k: float(v[i]) for k, v in covs.items()})
    for i, j in zip(*np.nonzero(values)):
        g.add_edge(int(i), int(j), count=int(values[i, j]))
    return g


def model():
    return ef.ERGM(issue554_network(), FORMULA, response="count",
                   reference=f"Binomial({TRIALS})")


def sa_start(m, seed, phase2_min):
    """The count MPLE, then stochastic approximation from it with ``phase2_min`` draws in
    its first subphase; returns (θ, CPU s of the MPLE, CPU s of the SA)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.process_time()
        mple = np.asarray(m.fit("mple").params, dtype=float)
        t_mple = time.process_time() - t
        fit = m.fit("sa", init=mple, random_state=seed, phase2_min=phase2_min, phase3=50)
        return np.asarray(fit.params, dtype=float), t_mple, time.process_time() - t - t_mple


def fit_once(m, seed, checkpoint=None, **kw):
    kw = dict(kw)
    if checkpoint is not None:
        os.makedirs(checkpoint, exist_ok=True)
        kw["checkpoint"] = os.path.join(checkpoint, f"seed{seed}.json")
        if os.path.exists(kw["checkpoint"]):
            kw["resume"] = kw["checkpoint"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.process_time()
        fit = m.fit("mcmle", random_state=seed, eval_loglik=False, **kw)
        return fit, time.process_time() - t


def history_lines(hist):
    """One line per MCMC-MLE iteration record."""
    for h in hist:
        what = ("redraw" if "redraw" in h else "back" if h.get("backtrack") else
                f"γ {h.get('gamma', float('nan')):.3f}")
        hummel = h.get("hummel_gamma")
        if hummel is not None and hummel != h.get("gamma"):
            what += f" (Hummel {hummel:.3f})"
        t = h.get("t_mean")
        yield (f"  it {h.get('iteration')}: {what:9s} interval {h.get('interval'):>9,} "
               f"draws {h.get('samplesize'):>5} ESS mv {h.get('ess', float('nan')):7.1f} "
               f"min {h.get('min_ess', float('nan')):7.1f} burn-in parts "
               f"{h.get('burnin_parts', 0)} max|t| "
               f"{max(abs(x) for x in t) if t else float('nan'):6.2f}"
               + (" moved start" if h.get("moved_start") else ""))


def proposal_rates(n_proposals):
    """Proposals per CPU s at the count MPLE: the whole model, and without
    ``transitiveweights`` (its coefficient dropped); both chains start at the observed
    network after 2,000 untimed proposals."""
    g = issue554_network()
    full = ef.ERGM(g, FORMULA, response="count", reference=f"Binomial({TRIALS})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theta = np.asarray(full.fit("mple").params, dtype=float)
    drop = full.labels.index("transitiveweights.min.max.min")
    rest = ef.ERGM(g, FORMULA.replace('+ transitiveweights("min", "max", "min") ', ''),
                   response="count", reference=f"Binomial({TRIALS})")
    for name, m, th in (("whole model", full, theta),
                        ("without transitiveweights", rest, np.delete(theta, drop))):
        m.simulate(th, n=1, burnin=2000, interval=1, output="stats", random_state=1)
        t = time.process_time()
        m.simulate(th, n=1, burnin=n_proposals, interval=1, output="stats", random_state=1)
        cpu = time.process_time() - t
        print(f"{name:27s} {n_proposals:,} proposals in {cpu:.2f} CPU s: "
              f"{n_proposals / cpu / 1e3:.0f}k per CPU s")


def start_drift():
    """The chain's drift from the observed network at each start (see the module docstring)."""
    from ergmfit.estimation.contrastive.cd import CD
    m = model()
    g = m.statistics_vector()
    shown = [m.labels.index(k) for k in ("sum", "mutual.min", "nodeicovar",
                                         "transitiveweights.min.max.min")]
    print("observed", " ".join(f"{m.labels[k]}={g[k]:.0f}" for k in shown))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        starts = {}
        for name, how in (("MPLE", lambda: m.fit("mple").params),
                          ("CD", lambda: CD(random_state=1).start(m)),
                          ("EE", lambda: m.fit("ee", random_state=1, polish=False,
                                               se="none").params),
                          ("SA", lambda: m.fit("sa", random_state=1).params)):
            t = time.process_time()
            starts[name] = np.asarray(how(), dtype=float)
            print(f"{name} start: {time.process_time() - t:.1f} CPU s")
        for name, theta in starts.items():
            S = m.simulate(theta, n=30, burnin=0, interval=100_000, output="stats",
                           random_state=1)
            print(f"{name:5s} after 0.1M: " + " ".join(f"{S[0, k]:.0f}" for k in shown)
                  + "   after 3M: " + " ".join(f"{S[-1, k]:.0f}" for k in shown))


def iact(x):
    """Integrated autocorrelation time of the series ``x`` (in draws): 1 + 2 x the sum of
    its autocorrelations up to the first below 0.05."""
    x = np.asarray(x, float) - np.mean(x)
    n = len(x)
    f = np.fft.rfft(x, 2 * n)
    ac = np.fft.irfft(f * np.conj(f))[:n]
    if ac[0] <= 0:
        return float("nan")
    ac = ac / ac[0]
    s = 1.0
    for k in range(1, n // 3):
        if ac[k] < 0.05:
            break
        s += 2 * ac[k]
    return s


def relaxation(n_draws=600, every=100_000):
    """The near-critical reading tested (see the module docstring)."""
    from ergmfit.estimation.mcmle.burnin import approach, burnin_cut
    m = model()
    g = m.statistics_vector()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.process_time()
        mple = np.asarray(m.fit("mple").params, dtype=float)
        theta, _ = approach(m, "sa", mple, np.random.default_rng(1))
        print(f"count MPLE and SA start: {time.process_time() - t:.1f} CPU s")
    t = time.process_time()
    S = m.simulate(theta, n=n_draws, burnin=0, interval=every, output="stats", random_state=2)
    cpu = time.process_time() - t
    cut = burnin_cut([S])
    tail = S[cut if cut is not None else n_draws // 2:]
    sd = tail.std(axis=0)
    at = sorted({k for k in (0, 9, 19, 39, 79, 119, 199, 299, 399, 499) if k < n_draws}
                | {n_draws - 1})
    print(f"{n_draws * every:.1e} proposals in {cpu:.1f} CPU s; burn-in test: "
          + (f"ends after draw {cut}" if cut is not None else "never passes")
          + "; (statistic - observed) / sd of the tail after "
          + ", ".join(f"{(k + 1) * every / 1e6:g}" for k in at) + " x 10^6 proposals:")
    for j, lab in enumerate(m.labels):
        z = (S[:, j] - g[j]) / sd[j]
        print(f"  {lab[:30]:30s} " + " ".join(f"{z[k]:+5.1f}" for k in at)
              + f"   IACT {iact(tail[:, j]) * every:9.2e} proposals")
    from ergmfit.sampling.chains import effective_sizes, multivariate_ess
    uni, mv = float(effective_sizes([tail]).min()), multivariate_ess([tail])
    print(f"tail of {len(tail)} draws: slowest statistic {uni:.1f} effective draws, "
          f"multivariate {mv:.1f}; the last sample's 256 effective draws: "
          f"{256 * len(tail) * every / uni:.2e} proposals of every statistic (the rule "
          f"before session 17), {256 * len(tail) * every / mv:.2e} multivariate (statnet's)")


def crossings(x, lo=110.0, hi=180.0):
    """How often the series ``x`` passes from below ``lo`` to above ``hi`` or back."""
    state, count = None, 0
    for v in x:
        now = 0 if v < lo else 1 if v > hi else None
        if now is not None:
            count += state is not None and now != state
            state = now
    return count


def mixing(cpu_budget, every=100_000):
    """Proposals compared at the SA start (see the module docstring)."""
    from ergmfit.sampling._proposals import CountRowResample, CountStrength, CountTNT
    from ergmfit.utils.validation import seed_words
    m = model()
    theta, t_mple, t_sa = sa_start(m, 1, 200)
    print(f"SA start (phase2_min=200, seed 1): MPLE {t_mple:.1f} + SA {t_sa:.1f} CPU s")
    g0 = m.statistics_vector()
    cols = [m.labels.index("nodeicovar"), m.labels.index("nodeocovar")]
    for name, make in (("tnt", CountTNT), ("strength 0.3/8", lambda: CountStrength(0.3, 8)),
                       ("row 0.001/3", lambda: CountRowResample(0.001, 3.0))):
        sampler = m.family.make_sampler(m.compiled(), make(), seed_words(7))
        state = sampler.model.state
        stats, r_out, r_in = [], [], []
        t0 = time.process_time()
        while time.process_time() - t0 < cpu_budget:
            sampler.run(theta, every)
            stats.append(g0 + sampler.delta)
            root = np.sqrt(state.to_dense())
            r_out.append(root.sum(1))
            r_in.append(root.sum(0))
        cpu = time.process_time() - t0
        S, RO, RI = np.array(stats), np.array(r_out), np.array(r_in)
        per, tail = cpu / len(S), len(S) // 3
        node = np.median([iact(RO[tail:, u]) for u in range(RO.shape[1])])
        cross = sum(crossings(R[:, u]) for R in (RO, RI) for u in range(R.shape[1]))
        print(f"{name:15s} {len(S) * every / cpu / 1e3:5.0f}k proposals per CPU s, acceptance "
              f"{sampler.n_accepted / sampler.n_proposed:.3f}; CPU s per effective draw: "
              f"nodeicovar {iact(S[tail:, cols[0]]) * per:5.2f}, nodeocovar "
              f"{iact(S[tail:, cols[1]]) * per:5.2f}, median node's out-strength "
              f"{node * per:4.2f}; strength crossings {cross} in {cpu:.0f} CPU s "
              f"({100 * cross / cpu:.0f} per 100)", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--rate", type=int, metavar="N", help="time N proposals at the MPLE")
    ap.add_argument("--drift", action="store_true", help="the chain's drift from each start")
    ap.add_argument("--relax", action="store_true",
                    help="relaxation at the SA start vs autocorrelation once settled")
    ap.add_argument("--sa-start", type=int, metavar="N",
                    help="start from SA (phase2_min=N) after the MPLE, MCMC-MLE at --interval")
    ap.add_argument("--interval", type=int, default=65536,
                    help="the MCMC-MLE interval with --sa-start")
    ap.add_argument("--mix", type=float, metavar="CPU",
                    help="compare proposals at the SA start, CPU seconds per chain")
    ap.add_argument("--checkpoint", metavar="DIR",
                    help="checkpoint each seed's fit in DIR (and resume from it)")
    ap.add_argument("--min-ess-share", type=float, metavar="X",
                    help="the MCMC-MLE per-statistic floor (default: the count family's)")
    ap.add_argument("--pool", type=int, metavar="K",
                    help="MCMC-MLE's pool_samples: step on the last K samples' draws")
    ap.add_argument("--init", metavar="FILE",
                    help="start at the 'theta' of this JSON file (an earlier run's checkpoint)")
    args = ap.parse_args()
    if args.mix:
        mixing(args.mix)
        return
    if args.relax:
        relaxation()
        return
    if args.drift:
        start_drift()
        return
    if args.rate:
        proposal_rates(args.rate)
        return
    t = time.process_time()
    m = model()
    build = time.process_time() - t
    g = issue554_network()
    vals = np.array([d["count"] for _, _, d in g.edges(data=True)])
    print(f"issue-554-shaped network: {g.number_of_nodes()} nodes, {len(vals)} nonzero of "
          f"{N_NODES * (N_NODES - 1)} dyads, values {np.bincount(vals, minlength=5)[1:].tolist()}"
          f" (1..4), model build {build:.2f} CPU s")
    print(f"{len(m.labels) if hasattr(m, 'labels') else '?'} coefficients: {FORMULA}")
    if args.profile:
        import cProfile
        import pstats
        pr = cProfile.Profile()
        pr.enable()
        fit, cpu = fit_once(m, args.seeds[0])
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(25)
        print(f"profiled fit: {cpu:.1f} CPU s")
        return
    fits = []
    for s in args.seeds:
        load = os.getloadavg()[0]
        kw = {}
        if args.min_ess_share is not None:
            kw["min_ess_share"] = args.min_ess_share
        if args.pool:
            kw["pool_samples"] = args.pool
        if args.init:
            with open(args.init) as fh:
                kw["init"] = np.asarray(json.load(fh)["theta"], dtype=float)
        if args.sa_start:
            kw["init"], t_mple, t_sa = sa_start(m, s, args.sa_start)
            kw["interval"] = args.interval
            print(f"seed {s}: count MPLE {t_mple:.1f} CPU s, SA (phase2_min={args.sa_start}) "
                  f"{t_sa:.1f} CPU s; MCMC-MLE from there at interval {args.interval:,}")
        fit, cpu = fit_once(m, s, args.checkpoint, **kw)
        info = fit.info
        hist = info.get("history", [])
        redraws = sum("redraw" in h for h in hist)
        print(f"seed {s}: start {info.get('init_method')}")
        print(f"seed {s}: {cpu:8.1f} CPU s (load {load:.1f} -> {os.getloadavg()[0]:.1f}), "
              f"iterations {getattr(fit, 'n_iter', None)} ({redraws} redrawn samples), "
              f"converged {fit.converged}, final interval {info.get('final_interval')}, "
              f"phases { {k: round(v, 1) for k, v in info.get('cpu_seconds', {}).items()}}")
        parts = [h.get("burnin_parts", 0) for h in hist]
        print(f"seed {s}: burn-in run on in {sum(parts)} parts over {sum(p > 0 for p in parts)} "
              f"samples ({sum(h.get('burnin_draws', 0) for h in hist):,} draws dropped); "
              f"largest |t| of the last sample "
              f"{max(abs(x) for x in (hist[-1] if hist else {}).get('t_mean', [float('nan')])):.2f}")
        for line in history_lines(hist):
            print(line)
        print(f"seed {s}: coef {np.round(np.asarray(fit.params, float), 3).tolist()}")
        print(f"seed {s}: s.e. {np.round(np.asarray(fit.bse, float), 3).tolist()}")
        fits.append(fit)
    if len(fits) > 1:
        est = np.array([np.asarray(f.params, float) for f in fits])
        se = np.asarray(fits[0].bse, float)
        print(f"largest difference between seeds: {np.max(np.ptp(est, axis=0) / se):.2f} "
              f"s.e. (of seed {args.seeds[0]})")


if __name__ == "__main__":
    main()
