"""Equilibrium Expectation benchmarks (run by hand; the Epinions run is long).

    python benchmarks/bench_ee.py epinions [--chains 2 --jobs 2 --ee-steps 200 ...]
    python benchmarks/bench_ee.py mesa       # faux.mesa.high tutorial model vs statnet
    python benchmarks/bench_ee.py kstar      # Lazega edges + kstar(2) + triangle
    python benchmarks/bench_ee.py speed      # raw IFD proposals/s on Epinions
    python benchmarks/bench_ee.py rules --seeds 1 2 --ee-steps 217   # EstimNet's rule
    python benchmarks/bench_ee.py moments --theta=-13.837,1.316,0.991,3.188 --ee-steps 250 --seeds 1 2

``epinions`` fits EstimNetDirected's specification of Borisenko et al. (2019),
``Arc + AltInStars + AltOutStars + AltKTrianglesT`` (lambda 2), on the SNAP
who-trusts-whom network (75,879 nodes, 508,837 arcs) with IFD proposals.  By
default it runs the reference's own schedule and window, so that the two are
compared like for like: 218 outer iterations of 100 x 1,000 proposals (the
reference's last written row is t = 21,700), the estimate averaged over the rows
t = 10,100..21,700 (the R script's burn-in, ``--burnin 10001``), four chains
on two cores.  (AltKTrianglesT's window mean varies by 0.1-0.2 from run to run
on this schedule, for EstimNet's rule as for ergmfit's: the comparison run by run
and by simulation at each estimate is in docs/guide/estimators/ee_algorithm.md,
"ergmfit's EE and EstimNetDirected's".)  It prints: proposals per CPU-second of the EE loop, the wall time at which the
convergence t-ratios (computed as EstimNet's R script does, on the rows of
every outer iteration, over the last half of the run so far) first fall below
0.1 for every statistic and stay there, the peak memory (resource.getrusage)
of the main process and of each chain, and the estimates beside
EstimNetDirected's (../shared/reference/estimnet.md, section 8).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import warnings

import numpy as np

import ergmfit as ef
from ergmfit.estimation.ee.chain import t_ratios
from ergmfit.estimation.ee.estimator import EE

ESTIMNET = {  # Epinions, 1 chain, t = 10,100..21,700 (estimnet.md 8.2)
    "edges": (-13.837, 0.163, 0.039),
    "AltInStars(2)": (1.316, 0.066, -0.015),
    "AltOutStars(2)": (0.991, 0.243, -0.039),
    "AltKTrianglesT(2)": (3.188, 0.078, 0.041),
}
ESTIMNET_RATE = 17_600          # proposals per CPU second, same machine kind


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def time_to_t(traj, tol=0.1, key="seconds_per_outer"):
    """First time (s since EE start; wall or CPU by ``key``) from which the
    R-script t-ratios over the last half of the rows so far stay below ``tol``
    for every statistic."""
    dz = np.asarray(traj["dzA"])
    secs = np.asarray(traj.get(key) or [])
    n = min(len(dz), len(secs))
    ok = np.zeros(n, dtype=bool)
    for k in range(8, n):
        w = dz[k // 2:k + 1]
        ok[k] = np.all(np.abs(t_ratios(w)) < tol)
    for k in range(n):
        if ok[k:].all() and ok[k]:
            return float(secs[k]), k
    return None, None


def load_reference(name):
    import ast
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "reference", "statnet_fits.json")
    for f in json.load(open(path))["fits"]:
        if f["name"] == name:
            c, s = f["coef"], f["stderr"]
            c = ast.literal_eval(c) if isinstance(c, str) else c
            s = ast.literal_eval(s) if isinstance(s, str) else s
            return c, s
    raise KeyError(name)


def report_vs_statnet(fit, ref):
    c, s = ref
    print(f"{'term':<32}{'EE':>10}{'s.e.':>9}{'t-ratio':>9}{'statnet':>10}{'s.e.':>9}{'diff/se':>9}")
    for k, lab in enumerate(fit.labels):
        key = lab if lab in c else None
        cv = c.get(key, float("nan")) if key else float("nan")
        sv = s.get(key, float("nan")) if key else float("nan")
        print(f"{lab:<32}{fit.params[k]:>10.4f}{fit.bse[k]:>9.4f}"
              f"{fit.info['t_ratios'][lab]:>9.3f}{cv:>10.4f}{sv:>9.4f}"
              f"{(fit.params[k] - cv) / sv:>9.2f}")


def run_epinions(args):
    t0 = time.perf_counter()
    net = ef.datasets.load_network("epinions")
    model = ef.ERGM(net, "Arc + AltInStars + AltOutStars + AltKTrianglesT")
    print(f"loaded {net} in {time.perf_counter() - t0:.1f} s", flush=True)
    kw = dict(ee_steps=args.ee_steps, ee_inner_steps=args.inner, sampler_steps=args.m,
              s_steps=args.s_steps, update=args.update, proposal="ifd",
              se=args.se, se_samplesize=args.se_samplesize, se_interval=args.se_interval)
    if args.burnin is not None:
        kw["burnin"] = args.burnin if args.burnin < 1 else int(args.burnin)
    if args.learning_rate:
        lr = [float(x) for x in args.learning_rate.split(",")]
        kw["learning_rate"] = lr[0] if len(lr) == 1 else tuple(lr)
    print("settings:", kw, f"chains={args.chains} jobs={args.jobs}", flush=True)
    t1 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = EE(random_state=args.seed, verbose=args.verbose, n_chains=args.chains,
                 n_jobs=args.jobs, **kw).fit(model)
    wall = time.perf_counter() - t1
    info = fit.info
    print()
    print(fit.summary())
    print(f"wall time of the fit: {wall:.1f} s (chains: "
          + ", ".join(f"{s:.0f} s" for s in info["seconds_chains"]) + ")")
    rate = info["proposals_per_cpu_second"]
    print(f"EE loop: {info['proposals']:,} proposals; {rate:,.0f} proposals per CPU-second "
          f"({rate / ESTIMNET_RATE:.1f} x EstimNetDirected's {ESTIMNET_RATE:,}), "
          f"{info['proposals_per_second']:,.0f} per wall-second per chain; CPU "
          + ", ".join(f"{c:.0f} s" for c in info["cpu_seconds_ee"]))
    print(f"mean acceptance {info['acceptance']:.3f}")
    for c, traj in enumerate(info["trajectory"]):
        ts, k = time_to_t(traj)
        tc, _ = time_to_t(traj, key="cpu_seconds_per_outer")
        print(f"chain {c}: |t| < 0.1 for all statistics (R-script rows, last half) from "
              + (f"outer iteration {k + 1}: {ts:.0f} s wall, {tc:.0f} s CPU of EE"
                 if ts is not None else "never"))
    print(f"peak memory: main {peak_mb():.0f} MB; chains "
          + ", ".join(f"{v:.0f} MB" for v in info["maxrss_mb_chains"]))
    print("\nestimate vs EstimNetDirected (Epinions, 21,750 iterations):")
    print(f"{'term':<20}{'ergmfit':>10}{'s.e.':>9}{'t':>8}{'EstimNet':>10}{'s.e.':>8}"
          f"{'t':>8}{'diff/EN se':>12}")
    for k, lab in enumerate(fit.labels):
        e, se, t = ESTIMNET[lab]
        print(f"{lab:<20}{fit.params[k]:>10.3f}{fit.bse[k]:>9.3f}"
              f"{info['t_ratios'][lab]:>8.3f}{e:>10.3f}{se:>8.3f}{t:>8.3f}"
              f"{(fit.params[k] - e) / se:>12.2f}")
    en = info["estimnet"]
    print("EstimNet R-script s.e. of this run (pooled):",
          np.round(en["pooled_se"], 3).tolist())
    # EstimNet's figure is ONE chain averaged as its R script does; the like-for-like
    # comparison is with our single chains, each averaged the same way
    print("single chains, each averaged as EstimNet's R script does (estimate, R-script s.e.):")
    for c, ch in enumerate(en["chains"]):
        if "estimate" in ch:
            print(f"  chain {c}: " + "  ".join(
                f"{lab} {e:.3f} ({se:.3f})" for lab, e, se in zip(fit.labels, ch["estimate"], ch["se"])))
    if args.save:
        fit.save(args.save)
        print("saved", args.save)


def run_mesa(args):
    g = ef.datasets.load_network("faux.mesa.high")
    f = "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) + gwesp(0.25, fixed=TRUE)"
    model = ef.ERGM(g, f)
    ref = load_reference("d_faux.mesa.high_grade_gwesp0.25.MLE_precise.seed303")
    kw = {"ee_steps": args.ee_steps, "update": args.update}
    if args.init:
        kw["init"] = args.init
    if args.learning_rate:
        lr = [float(x) for x in args.learning_rate.split(",")]
        kw["learning_rate"] = lr[0] if len(lr) == 1 else tuple(lr)
    print("settings:", kw)
    for seed in args.seeds:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = EE(random_state=seed, n_chains=args.chains, n_jobs=args.jobs, **kw).fit(model)
        ee = np.array(fit.info["ee_estimates"][0])
        c, s = ref
        print("EE average before the final step, max |diff|/se:",
              round(float(np.max(np.abs((ee - np.array([c[k] for k in fit.labels]))
                                        / np.array([s[k] for k in fit.labels])))), 2),
              "| final step:", fit.info["polish"][0])
        print(f"\nfaux.mesa.high, seed {seed}: {time.perf_counter() - t:.1f} s, "
              f"converged={fit.converged}, {fit.info['proposals_per_second']:,.0f} proposals/s")
        report_vs_statnet(fit, ref)


def run_kstar(args):
    g = ef.datasets.load_network("lazega")
    model = ef.ERGM(g, "edges + kstar(2) + triangle")
    for seed in args.seeds:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = EE(random_state=seed).fit(model)
        print(f"\nLazega edges + kstar(2) + triangle, seed {seed}: {time.perf_counter() - t:.1f} s")
        print(fit.summary())
        print("EE estimate before the final MCMC-MLE step:", np.round(fit.info["ee_estimates"][0], 4))
        print("t-ratios of a simulation at the EE estimate:", fit.info["t_ratios_sim"])
        # does the estimate reproduce the observed statistics?
        S = model.simulate(fit.params, n=2000, burnin=200_000, interval=2000, output="stats",
                           random_state=seed)
        g_obs = model.statistics_vector()
        z = S - g_obs
        print("simulated at the estimate (2000 draws, interval 2000): mean - observed =",
              np.round(z.mean(axis=0), 2), " t =", np.round(z.mean(axis=0) / z.std(axis=0), 3))
        print("  simulated edges: min/median/max", np.min(S[:, 0]), np.median(S[:, 0]),
              np.max(S[:, 0]), " observed", g_obs[0])


def run_speed(args):
    from ergmfit.sampling._mh import MHSampler
    from ergmfit.sampling._proposals import IFD, ifd_correction
    from ergmfit.utils.validation import seed_words
    from ergmfit.estimation.ee._ee import ee_iterations
    net = ef.datasets.load_network("epinions")
    model = ef.ERGM(net, "Arc + AltInStars + AltOutStars + AltKTrianglesT")
    t = time.perf_counter()
    bm = model.compiled()
    print(f"compiled in {time.perf_counter() - t:.1f} s, peak {peak_mb():.0f} MB")
    L = len(bm.on_vars())
    corr = ifd_correction(bm.n_vars, L)
    theta = np.array([ESTIMNET[k][0] for k in model.labels])
    prop = IFD(V=theta[0] + corr)
    s = MHSampler(bm, prop, seed_words(1))
    th0 = theta.copy()
    th0[0] = 0.0
    c0 = time.process_time()
    for _ in range(20):
        s.run_batch(th0, 1000, apply=False)
    print(f"Algorithm S mode (scored on the observed graph): "
          f"{20000 / (time.process_time() - c0):,.0f} proposals/CPU-s")
    dz = np.zeros(4)
    n = 100
    bufs = [np.zeros((n, 4)), np.zeros((n, 4)), np.zeros(n), np.zeros(n)]
    for rep in range(5):
        c0 = time.process_time()
        ee_iterations(s, theta, dz, n, 1000, 0, 0.001, 0.01, 1e-9, np.ones(4), 0, corr, *bufs)
        dt = time.process_time() - c0
        print(f"EE at EstimNet's estimate: {n * 1000 / dt:,.0f} proposals/CPU-s "
              f"(acceptance {bufs[2].mean():.3f})")


def _epinions_sampler(theta_arc, seed):
    """Epinions' compiled model with an IFD sampler whose V gives ``theta_arc``."""
    from ergmfit.sampling._mh import MHSampler
    from ergmfit.sampling._proposals import IFD, ifd_correction
    from ergmfit.utils.validation import seed_words
    net = ef.datasets.load_network("epinions")
    model = ef.ERGM(net, "Arc + AltInStars + AltOutStars + AltKTrianglesT")
    bm = model.compiled()
    corr = ifd_correction(bm.n_vars, len(bm.on_vars()))
    prop = IFD(V=theta_arc + corr, K=0.1)
    return MHSampler(bm, prop, seed_words(seed)), prop, corr


def run_rules(args):
    """EstimNetDirected's EE rule replayed on ergmfit's sampler (Algorithm S, V reset
    to 0 at EE's start, theta updated after every m proposals with sign(0) = +1),
    averaged as its R script does (rows t = 0 mod 100, t > 10,000); compare with
    ``bench_ee.py epinions --chains 1 --seed S``."""
    from ergmfit.estimation.ee._ee import ee_iterations
    from ergmfit.estimation.ee.chain import algorithm_s
    a, c, m, n = 0.001, 0.01, args.m, args.ee_steps * args.inner
    for seed in args.seeds:
        s, prop, corr = _epinions_sampler(0.0, seed)
        c0 = time.process_time()
        theta, _, _ = algorithm_s(s, 4, np.array([False, True, True, True]), args.s_steps, m,
                                  0.1, prop, corr, 0)
        prop.V = 0.0                                # EstimNet: EE starts its own V at 0
        theta[0] = -corr
        dz, rows = np.zeros(4), np.zeros((n, 4))
        buf = [np.zeros((1, 4)), np.zeros((1, 4)), np.zeros(1), np.zeros(1)]
        for t in range(n):
            ee_iterations(s, theta, dz, 1, m, 0, 0.0, c, 1e-9, np.ones(4), 0, corr, *buf)
            theta[1:] -= np.where(dz[1:] >= 0, 1.0, -1.0) * a * np.maximum(np.abs(theta[1:]), c)
            rows[t] = theta
        t = np.arange(n)
        kept = rows[(t % args.inner == 0) & (t > 10_000)] if n > 10_100 else rows[n // 2:]
        print(f"EstimNet's rule, seed {seed}: {time.process_time() - c0:.0f} CPU s; theta at "
              f"t = {n - 1}: {np.round(rows[-1], 3).tolist()}; R-script estimate "
              f"({len(kept)} rows): {np.round(kept.mean(axis=0), 3).tolist()}", flush=True)


def run_moments(args):
    """EE's fixed point is E_theta[g | L] = g(x_obs): EE's IFD chain at a fixed theta
    (``--theta``, the update off), from the observed network; prints the mean of
    g(x_t) - g(x_obs) over the second half, its t = mean / sd and the end value."""
    from ergmfit.estimation.ee._ee import ee_iterations
    theta0 = np.array([float(x) for x in args.theta.split(",")])
    n = args.ee_steps * args.inner
    for seed in args.seeds:
        s, prop, corr = _epinions_sampler(theta0[0], seed)
        theta, dz, out = theta0.copy(), np.zeros(4), np.zeros((n, 4))
        c0 = time.process_time()
        for i in range(0, n, 1000):
            k = min(1000, n - i)
            buf = [np.zeros((k, 4)), np.zeros((k, 4)), np.zeros(k), np.zeros(k)]
            ee_iterations(s, theta, dz, k, args.m, 0, 0.0, 0.01, 1e-9, np.ones(4), 0, corr, *buf)
            out[i:i + k] = buf[1]
        z = out[n // 2:, 1:]
        print(f"theta {theta0.tolist()}, seed {seed}: {time.process_time() - c0:.0f} CPU s; "
              f"second half mean {np.round(z.mean(axis=0)).tolist()}, t "
              f"{np.round(z.mean(axis=0) / z.std(axis=0), 2).tolist()}, end "
              f"{np.round(out[-1, 1:]).tolist()}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("epinions", "mesa", "kstar", "speed", "rules", "moments"),
                    nargs="?",
                    default="epinions")
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ee-steps", type=int, default=218)
    ap.add_argument("--inner", type=int, default=100)
    ap.add_argument("--m", type=int, default=1000)
    ap.add_argument("--s-steps", type=int, default=100)
    ap.add_argument("--update", default="auto", help="auto (newton up to 10^6 variables, else borisenko), newton, borisenko, adaptive")
    ap.add_argument("--learning-rate", default=None, help="e.g. 0.01,0.001")
    ap.add_argument("--se", default="simulate")
    ap.add_argument("--burnin", type=float, default=10001,
                    help="a fraction of the run, or iterations (default: the R script's t > 10,000)")
    ap.add_argument("--se-samplesize", type=int, default=500)
    ap.add_argument("--se-interval", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", default=None, help="mesa: EE start, e.g. mple")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--save", default=None)
    ap.add_argument("--theta", default="-13.837,1.316,0.991,3.188",
                    help="moments: Arc,AltInStars,AltOutStars,AltKTrianglesT")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    {"epinions": run_epinions, "mesa": run_mesa, "kstar": run_kstar, "speed": run_speed,
     "rules": run_rules, "moments": run_moments}[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
