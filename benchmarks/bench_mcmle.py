"""Metropolis-Hastings throughput and whole MCMC-MLE fits (issue 4's benchmark).

Run by hand:  python benchmarks/bench_mcmle.py [--seeds 1 2 3]
              python benchmarks/bench_mcmle.py --mixing   (proposals compared, ~5 min)
              python benchmarks/bench_mcmle.py --speed    (proposals per CPU s only, ~30 s)
              python benchmarks/bench_mcmle.py --curved [--models lazega] --seeds 1 2 3
                  (curved fits beside their fixed-decay forms and statnet's times)

For the faux.mesa.high tutorial model and faux.magnolia.high
``edges + nodematch('Grade') + gwesp(0.25, fixed=True)`` it prints
  * MH proposals per CPU second at the MLE, for each proposal (tnt, triadic and
    their lifted forms; the fits use lifted-triadic), and the effective sample
    size per million proposals of the slowest statistic;
  * the wall and CPU time of the whole MCMC-MLE fit, split into the MPLE start,
    the MCMC-MLE iterations and the bridge-sampled log-likelihood (statnet
    computes it by default too), and its estimates.  Library imports are done
    before the clock starts.
With ``--mixing`` it compares the proposals instead: for five models at their MLE
(statnet's, from ../shared/reference/statnet_fits.json when available), the effective
sample size of the slowest statistic per million proposals and per CPU second,
averaged over chains with seeds 1-4.
Reference (statnet_fits.json, same machine type): statnet 4.4 ~4.3 M proposals per CPU s on
magnolia; its MCMC-MLE took 54-70 CPU s (mesa) and 69 (magnolia); ergmx 6.5 M/s, 12 s and 5.5 s.
"""
import argparse
import time

import numpy as np

import ergmfit as ef
from ergmfit.sampling.chains import effective_sizes

MODELS = {
    "faux.mesa.high": "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) + gwesp(0.25, fixed=TRUE)",
    "faux.magnolia.high": "edges + nodematch('Grade') + gwesp(0.25, fixed=True)",
}


# (data, formula, MLE, interval) for --mixing; the MLEs are statnet's runs with seed 101
# (faux.magnolia.high: ours, statnet's file has no fit of it)
MIXING = {
    "faux.magnolia.high": ("faux.magnolia.high", MODELS["faux.magnolia.high"],
                           [-8.7299, 2.7508, 1.9033], 2500),
    "faux.mesa.high": ("faux.mesa.high", MODELS["faux.mesa.high"],
                       [-10.2564, 1.4373, 2.1512, 2.5033, 2.2928, 2.8976, 5.8936, 3.2163, 1.6044,
                        1.0654, 1.7921, 0.9252, 1.4735], 1000),
    "lazega gwesp": ("lazega", "edges + gwesp(log(3), fixed=TRUE) + nodecov('seniority') + "
                     "nodecov('practice') + nodematch('practice') + nodematch('gender') + "
                     "nodematch('office')",
                     [-7.018643, 0.587128, 0.024817, 0.399783, 0.773848, 0.74216, 1.158312], 250),
    "flomarriage": ("flomarriage", "edges + triangle", [-1.6911, 0.1826], 50),
    "samplike": ("samplike", "edges + mutual", [-1.7299, 2.2595], 50),
}


def cpu():
    return time.process_time()


def run_mixing(n=8000, seeds=(1, 2, 3, 4)):
    from ergmfit.sampling import MHSampler, make_proposal
    from ergmfit.utils.validation import seed_words
    print("effective sample size of the slowest statistic at the MLE "
          f"({n} draws per chain, mean over seeds {list(seeds)})")
    print(f"{'model':20s}{'proposal':>16s}{'ESS per M':>11s}{'ESS per CPU s':>15s}{'M/s':>7s}")
    for name, (data, formula, theta, interval) in MIXING.items():
        m = ef.ERGM(ef.datasets.load_network(data), formula)
        theta = np.asarray(theta, dtype=float)
        for prop in ("tnt", "triadic", "lifted-tnt", "lifted-triadic"):
            per_m, per_s, rate = [], [], []
            for seed in seeds:
                s = MHSampler(m.compiled(), make_proposal(prop), seed_words(seed))
                s.run(theta, 50 * interval)
                c = cpu()
                S = s.sample(theta, n, 0, interval)
                dt = cpu() - c
                e = effective_sizes([S]).min()
                per_m.append(e / (n * interval / 1e6))
                per_s.append(e / dt)
                rate.append(n * interval / dt / 1e6)
            print(f"{name:20s}{prop:>16s}{np.mean(per_m):11.1f}{np.mean(per_s):15.0f}"
                  f"{np.mean(rate):7.2f}", flush=True)


def run_speed(repeats=3):
    """MH proposals per CPU second at the MLEs of MIXING (no fits), best of ``repeats``."""
    from ergmfit.sampling import MHSampler, make_proposal
    from ergmfit.utils.validation import seed_words
    print(f"M proposals per CPU s (best of {repeats} runs of 10^7 proposals)")
    for name in ("faux.magnolia.high", "faux.mesa.high", "lazega gwesp"):
        data, formula, theta, _ = MIXING[name]
        m = ef.ERGM(ef.datasets.load_network(data), formula)
        theta = np.asarray(theta, dtype=float)
        row = []
        for prop in ("tnt", "lifted-triadic"):
            best = 0.0
            for r in range(repeats):
                s = MHSampler(m.compiled(), make_proposal(prop), seed_words(r + 1))
                s.run(theta, 10**6)
                c = cpu()
                s.sample(theta, 1000, 0, 10**4)
                best = max(best, 10**7 / (cpu() - c) / 1e6)
            row.append(f"{prop} {best:6.2f}")
        print(f"  {name:20s}" + "   ".join(row), flush=True)


# curved models (#17) beside the same models with the decays fixed.  statnet 4.4's CPU
# seconds for the Lazega fit (init gwesp.decay 0.7, seeds 101/202/303) from
# ../shared/reference/statnet_ext.json: its fit ran with eval.loglik=FALSE and its
# log-likelihood was timed apart, so our fit without the bridge log-likelihood is compared
# with statnet's fit, and ours with it with statnet's fit + log-likelihood.  statnet has no
# reference fit of the mesa model.
LAZEGA_COV = ("edges + {gw} + nodecov('seniority') + nodecov('practice') + "
              "nodematch('practice') + nodematch('gender') + nodematch('office')")
STATNET_LAZEGA = {"fit": (5.262, 8.531, 4.771), "loglik": (0.616, 0.629, 0.561)}
CURVED = [
    ("faux.mesa.high", "edges + nodematch('Grade') + gwesp(fixed=FALSE) + gwdegree(fixed=FALSE)",
     None, "edges + nodematch('Grade') + gwesp(0.5, fixed=TRUE) + gwdegree(0.5, fixed=TRUE)",
     None),
    ("lazega", LAZEGA_COV.format(gw="gwesp(fixed=FALSE)"), [np.nan, np.nan, 0.7] + [np.nan] * 5,
     LAZEGA_COV.format(gw="gwesp(0.7, fixed=TRUE)"), STATNET_LAZEGA),
]


def _timed_fit(model, seed, init):
    """(fit, CPU s of the whole fit, CPU s without the bridge log-likelihood)."""
    import warnings
    c = cpu()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(method="mcmle", random_state=seed, init=init)
    total = cpu() - c
    return fit, total, total - fit.info["cpu_seconds"]["loglik"]


def run_curved(seeds, models=None):
    """CPU seconds per MCMC-MLE fit of the curved models and of their fixed-decay forms,
    fitted in turn for each seed (so the ratio curved / fixed is measured under the same
    load); the load average is printed beside the figures."""
    import os
    import warnings
    # imports and first calls (scipy's solvers, ...) before any clock starts
    m = ef.ERGM(ef.datasets.load_network("lazega"), CURVED[1][1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(method="mcmle", random_state=0, init=CURVED[1][2], maxit=1)
    for data, curved, init, fixed, statnet in CURVED:
        if models and data not in models:
            continue
        mc = ef.ERGM(ef.datasets.load_network(data), curved)
        mf = ef.ERGM(ef.datasets.load_network(data), fixed)
        rows = []
        load = os.getloadavg()[0]
        for seed in seeds:
            fc, tc, oc = _timed_fit(mc, seed, init)
            ff, tf, of = _timed_fit(mf, seed, None)
            rows.append((tc, oc, tf, of))
            decays = {k: round(float(v), 3) for k, v in zip(mc.labels, fc.params)
                      if k.endswith(".decay")}
            print(f"  {data} seed {seed}: curved CPU {tc:5.2f} s ({oc:5.2f} without the "
                  f"log-likelihood), {fc.n_iter} iterations, converged {fc.converged} {decays}; "
                  f"fixed-decay {tf:5.2f} s ({of:5.2f}); curved / fixed {tc / tf:4.2f}",
                  flush=True)
        tc, oc, tf, of = (np.array(c) for c in zip(*rows))
        med = np.median
        print(f"{data}: CPU s per fit over seeds {seeds} (load average {load:.1f} -> "
              f"{os.getloadavg()[0]:.1f}): curved median {med(tc):.2f} (min {tc.min():.2f}, "
              f"max {tc.max():.2f}), without the log-likelihood {med(oc):.2f}; fixed-decay "
              f"median {med(tf):.2f} ({med(of):.2f}); curved / fixed median "
              f"{med(tc / tf):.2f}", flush=True)
        if statnet:
            sf = np.array(statnet["fit"])
            st = sf + np.array(statnet["loglik"])
            print(f"  statnet 4.4 fit (eval.loglik=FALSE) {', '.join(map(str, sf))} s, median "
                  f"{med(sf):.2f}: {med(sf) / med(oc):.1f}x our fit without the log-likelihood"
                  f"\n  statnet 4.4 fit + log-likelihood {', '.join(f'{v:.3f}' for v in st)} s,"
                  f" median {med(st):.2f}: {med(st) / med(tc):.1f}x our fit with it", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--mixing", action="store_true", help="compare the proposals' mixing instead")
    ap.add_argument("--speed", action="store_true", help="proposals per CPU second only")
    ap.add_argument("--curved", action="store_true",
                    help="curved models beside their fixed-decay forms (seeds: --seeds)")
    ap.add_argument("--models", nargs="+", default=None,
                    help="with --curved: only these data sets (faux.mesa.high, lazega)")
    args = ap.parse_args()
    if args.curved:
        run_curved(args.seeds, args.models)
        return
    if args.mixing:
        run_mixing()
        return
    if args.speed:
        run_speed()
        return
    import ergmfit.estimation.mcmle.estimator  # noqa: F401  (import scipy etc. before timing)
    for data, formula in MODELS.items():
        m = ef.ERGM(ef.datasets.load_network(data), formula)
        print(f"\n{data}: {formula}")
        fits = []
        for seed in args.seeds:
            w, c = time.perf_counter(), cpu()
            fit = m.fit(method="mcmle", random_state=seed, verbose=False)
            fits.append(fit)
            ph = fit.info["cpu_seconds"]
            props = sum(h["samplesize"] * h["interval"] for h in fit.info["history"])
            print(f"  MCMC-MLE seed {seed}: wall {time.perf_counter() - w:6.2f} s, "
                  f"CPU {cpu() - c:6.2f} s (MPLE {ph['start']:.2f}, iterations {ph['iterations']:.2f}, "
                  f"bridge log-likelihood {ph['loglik']:.2f}); {fit.n_iter} iterations, "
                  f"~{props / 1e6:.1f} M proposals before the bridge, "
                  f"final interval {fit.info['final_interval']}, converged {fit.converged}, "
                  f"log-likelihood {fit.loglik:.2f} (MC s.e. {fit.info['loglik_mcse']:.2f})")
        theta = np.asarray(fits[0].params)
        for prop in ("tnt", "triadic", "lifted-tnt", "lifted-triadic"):
            s, cm = m.sampler(theta, proposal=prop, random_state=1)
            s.run(theta, 2_000_000)
            c = cpu()
            S = s.sample(theta, 2000, 0, 5000)
            dt = cpu() - c
            ess = effective_sizes([S]).min()
            print(f"  {prop:14s}: {10e6 / dt / 1e6:6.2f} M proposals per CPU s, acceptance "
                  f"{s.acceptance_rate:.3f}, ESS of the slowest statistic {ess / 10:.1f} per M "
                  f"proposals = {ess / dt:.0f} per CPU s")
        print("  estimates (first seed):")
        for lab, v, se in zip(m.labels, fits[0].params, fits[0].bse):
            print(f"    {lab:24s} {v:10.4f} ({se:.4f})")


if __name__ == "__main__":
    main()
