"""Snowball conditional estimation (issue #35 item 3), run by hand.

    python benchmarks/bench_snowball.py synthetic [--seeds 1 2 3]
    python benchmarks/bench_snowball.py epinions [--samples 12 --n-seeds 10 --waves 1]

``synthetic`` simulates an undirected network of ``--n`` nodes from a known
``edges + gwesp(0.5, fixed=TRUE)`` theta, draws snowball samples, fits each
conditionally by EE and prints the combined estimate, its s.e. and
(estimate - truth) / s.e. for every seed.

``epinions`` fits EstimNetDirected's Epinions specification (``Arc +
AltInStars + AltOutStars + AltKTrianglesT``) from snowball samples, first with
one process, then on a dask ``LocalCluster`` of 2 workers (1 thread each),
and prints the combined estimates beside the full-network EE estimates of
EstimNetDirected (``bench_ee.py``'s reference), the wall and CPU seconds of
both runs and the parallel efficiency (T1 / (2 T2)).
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import ergmfit as ef

ESTIMNET = {  # Epinions, full network, EstimNetDirected EE (bench_ee.py)
    "edges": (-13.837, 0.163),
    "AltInStars(2)": (1.316, 0.066),
    "AltOutStars(2)": (0.991, 0.243),
    "AltKTrianglesT(2)": (3.188, 0.078),
}


def show(fit, truth=None):
    print(fit.summary())
    if truth is not None:
        for k, lab in enumerate(fit.labels):
            print(f"  {lab:<22} truth {truth[k]:>8.3f}  (est - truth)/se "
                  f"{(fit.params[k] - truth[k]) / fit.bse[k]:>6.2f}")


def run_synthetic(args):
    theta = np.array([args.edges, args.gwesp])
    for seed in args.seeds:
        t0 = time.process_time()
        g0 = ef.ERGM(ef.Network(args.n, np.zeros((0, 2)), False), "edges + gwesp(0.5, fixed=TRUE)")
        g = g0.simulate(theta, n=1, burnin=args.burnin, output="networks", random_state=seed)[0]
        net = ef.as_network(g) if not isinstance(g, ef.Network) else g
        print(f"seed {seed}: simulated {net.n} nodes, {net.n_ties} ties, mean degree "
              f"{2 * net.n_ties / net.n:.2f} in {time.process_time() - t0:.0f} CPU s", flush=True)
        samples = ef.snowball_samples(net, args.samples, n_seeds=args.n_seeds, waves=args.waves,
                                      random_state=seed + 100)
        print("  sample sizes:", [len(s.nodes) for s in samples], flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = ef.fit_snowball(samples, "edges + gwesp(0.5, fixed=TRUE)", method=args.method,
                                  random_state=seed + 200, n_jobs=args.jobs)
        show(fit, theta)
        print(f"  {fit.seconds:.0f} s wall, {fit.cpu_seconds:.0f} CPU s of fits", flush=True)


def run_epinions(args):
    net = ef.datasets.load_network("epinions")
    formula = "Arc + AltInStars + AltOutStars + AltKTrianglesT"
    samples = ef.snowball_samples(net, args.samples, n_seeds=args.n_seeds, waves=args.waves,
                                  random_state=args.seed)
    print("sample nodes:", [len(s.nodes) for s in samples], flush=True)
    settings = dict(method="ee", random_state=args.seed + 1, ee_steps=args.ee_steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        one = ef.fit_snowball(samples, formula, **settings)
        t1 = time.perf_counter() - t
        print(f"1 process: {t1:.1f} s wall, {one.cpu_seconds:.1f} CPU s of fits", flush=True)
        show(one)
        from distributed import Client, LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster):
            t = time.perf_counter()
            two = ef.fit_snowball(samples, formula, n_jobs=2, backend="dask", **settings)
            t2 = time.perf_counter() - t
    print(f"dask, 2 workers: {t2:.1f} s wall, {two.cpu_seconds:.1f} CPU s of fits; "
          f"speed-up {t1 / t2:.2f}, efficiency {t1 / (2 * t2):.2f}")
    print("same estimates on dask as in one process:", bool(np.allclose(one.params, two.params)))
    print(f"\n{'term':<20}{'snowball':>10}{'s.e.':>8}{'full EE':>10}{'s.e.':>8}{'diff/snow se':>14}")
    for k, lab in enumerate(one.labels):
        e, se = ESTIMNET[lab]
        print(f"{lab:<20}{one.params[k]:>10.3f}{one.bse[k]:>8.3f}{e:>10.3f}{se:>8.3f}"
              f"{(one.params[k] - e) / one.bse[k]:>14.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("synthetic", "epinions"))
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--edges", type=float, default=-7.0)
    ap.add_argument("--gwesp", type=float, default=1.0)
    ap.add_argument("--burnin", type=int, default=4_000_000)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--n-seeds", type=int, default=10)
    ap.add_argument("--waves", type=int, default=2)
    ap.add_argument("--method", default="ee")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--ee-steps", type=int, default=100)
    args = ap.parse_args()
    {"synthetic": run_synthetic, "epinions": run_epinions}[args.what](args)


if __name__ == "__main__":
    main()
