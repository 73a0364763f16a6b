"""Equilibrium Expectation on Epinions (75,879 nodes, 508,837 arcs).

The specification of Borisenko, Byshkin & Lomi (2019), as EstimNetDirected
writes it: Arc + AltInStars + AltOutStars + AltKTrianglesT (lambda = 2),
fitted with IFD proposals and the Borisenko update, two chains in parallel.

    python vignettes/epinions_ee.py [--chains 2] [--jobs 2] [--ee-steps 200]

A progress bar shows the outer iterations of all chains; Ctrl-C stops the
run and prints the estimates of the trajectory so far (marked as not
converged).  The default schedule (200 x 100 iterations of 1,000 proposals
per chain, EstimNet's learning rate 0.001 for a network this large) needs
about 70 CPU-seconds of EE per chain, a few minutes in all on 2 free cores.
AltKTrianglesT keeps moving slowly with longer runs (about 3.05 after 20,000
iterations, 2.86 averaged over iterations 80,000-150,000) while the other
three parameters stay put: the network relaxes away from the observed one far
more slowly than theta settles.  ``benchmarks/bench_ee.py`` compares with
EstimNetDirected's run on its own schedule and window.
"""
import argparse
import time

import numpy as np

import ergmfit as ef

# EstimNetDirected 3.8.9 on the same data (1 chain, t = 10,100..21,700; R-script s.e.)
ESTIMNET = {"edges": (-13.837, 0.163), "AltInStars(2)": (1.316, 0.066),
            "AltOutStars(2)": (0.991, 0.243), "AltKTrianglesT(2)": (3.188, 0.078)}


def main():
    ap = argparse.ArgumentParser(description="EE on Epinions")
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ee-steps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    t0 = time.perf_counter()
    net = ef.datasets.load_network("epinions")          # fast loader, no networkx graph
    model = ef.ERGM(net, "Arc + AltInStars + AltOutStars + AltKTrianglesT")
    print(f"{net}; observed statistics:")
    for lab, v in model.statistics().items():
        print(f"  {lab:<20} {v:,.2f}")

    fit = model.fit(method="ee", random_state=args.seed, verbose=True,
                    n_chains=args.chains, n_jobs=args.jobs, ee_steps=args.ee_steps,
                    proposal="ifd",                      # EstimNet's sampler
                    se_samplesize=500, se_interval=10_000)
    elapsed = time.perf_counter() - t0

    print(fit.summary())
    print(f"total time {elapsed / 60:.1f} min; EE loop "
          f"{fit.info['proposals_per_cpu_second']:,.0f} proposals per CPU-second "
          f"({fit.info['proposals_per_second']:,.0f} per wall-second per chain); "
          f"converged: {fit.converged}")
    print(f"\n{'term':<20}{'ergmfit':>10}{'s.e.':>8}{'t':>8}   {'EstimNet':>9}{'s.e.':>8}")
    for lab in fit.labels:
        e, se = ESTIMNET[lab]
        print(f"{lab:<20}{fit.params[lab]:>10.3f}{fit.bse[lab]:>8.3f}"
              f"{fit.info['t_ratios'][lab]:>8.3f}   {e:>9.3f}{se:>8.3f}")
    traj = np.array(fit.info["trajectory"][0]["theta"])
    print("\nchain 0, theta every 10 outer iterations:")
    for k in range(0, len(traj), 10):
        print(f"  {k:>4}", np.round(traj[k], 3))


if __name__ == "__main__":
    main()
