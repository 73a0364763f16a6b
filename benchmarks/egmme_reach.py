"""Can the equilibrium of tergm's reference EGMME model reach flobusiness's targets?

Run by hand:  PYTHONPATH=. python benchmarks/egmme_reach.py [--dissolution Diss|Persist]

``flobusiness ~ Form(~edges + gwesp(0, fixed=TRUE)) + Diss(~offset(edges))`` at the offset
log(9) (a tie persists with probability 0.1 per step whatever the formation model: the
union y⁻ ∪ y holds a previous tie either way) against the targets edges = 15, gwesp(0) = 12
(12 of the 15 edges have a shared partner: 0.8).  For each formation gwesp coefficient θ_g
of a grid, bisection on θ_e finds where the equilibrium mean of edges is 15 (600 time steps
after 100, from the observed network, per probe); at that point a longer run (2,000 steps)
gives the mean gwesp(0), its Monte Carlo s.e. (20 batch means), the share of edges with a
shared partner, and the shares of the time steps with at most half / at least twice the
observed edges (both >= 5 %: a bistable equilibrium, see ``egmme.estimator.bistable``).
The table is in docs/egmme.md ("When the targets are out of reach").
"""
import argparse
import time
import warnings

import numpy as np

import ergmfit as ef
from ergmfit.temporal.chain import DynamicChain


def equilibrium(m, theta_e, theta_g, offset, steps, seed=1):
    chain = DynamicChain(m, cross="edges + gwesp(0, fixed=TRUE)", random_state=seed)
    eta = np.array([theta_e, theta_g, offset])
    chain.run(eta, 100)
    return chain.run(eta, steps).cross


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dissolution", default="Diss", choices=["Diss", "Persist"])
    ap.add_argument("--gwesp", type=float, nargs="+", default=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    a = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    g = ef.datasets.load("flobusiness")
    m = ef.ERGM(g, f"Form(~edges + gwesp(0, fixed=TRUE)) + {a.dissolution}(~offset(edges))")
    t0 = time.process_time()
    print(f"{'theta_g':>7} {'theta_e':>8} {'edges':>6} {'gwesp':>6} {'+-':>5} {'share':>6} "
          f"{'<=7.5':>6} {'>=30':>6}")
    for tg in a.gwesp:
        lo, hi = -tg - 8.0, -tg + 4.0          # mean edges ~0 at lo, > 15 at hi
        for _ in range(9):
            mid = 0.5 * (lo + hi)
            if equilibrium(m, mid, tg, np.log(9), 600)[:, 0].mean() < 15.0:
                lo = mid
            else:
                hi = mid
        te = 0.5 * (lo + hi)
        T = equilibrium(m, te, tg, np.log(9), 2000, seed=2)
        e, w = T[:, 0], T[:, 1]
        se = w.reshape(20, -1).mean(axis=1).std(ddof=1) / np.sqrt(20)
        print(f"{tg:7.2f} {te:8.3f} {e.mean():6.2f} {w.mean():6.2f} {se:5.2f} "
              f"{w.mean() / max(e.mean(), 1e-9):6.3f} {np.mean(e <= 7.5):6.2f} "
              f"{np.mean(e >= 30):6.2f}", flush=True)
    print(f"CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
