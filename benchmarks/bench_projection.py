"""Throughput of the ``Project()`` / ``Proj1()`` kernel (issue #19), and the choice between
holding the projected tie values (the state's shared-partner counts, updated on every toggle)
and counting them on demand from the neighbour lists.

Run by hand:  python benchmarks/bench_projection.py [--quick]

For random two-mode networks of several sizes, prints change statistics + toggle + toggle back
per CPU second at uniformly random between-mode dyads, for
``edges + Proj1(~sum + nonzero + absdiff('x') + nodematch('g'))`` with the counts held and
counted on demand, and ``edges + gwb1dsp(0.5, fixed=TRUE)`` (the nearest existing kernel: the
same O(deg) shared-partner loop) beside them; then ``edges + Proj1(~transitiveweights)``.  CPU seconds (time.process_time) and the load
average are printed: the machine may be shared.
"""
import argparse
import os
import time

import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.terms import projection
from bench_kernels import rate   # benchmarks/ is on sys.path when run as a script


def two_mode(n1, n2, mean_deg1, rng):
    g = nx.Graph()
    for i in range(n1):
        g.add_node(i, bipartite=0, x=float(rng.normal()), g=int(rng.integers(3)))
    for j in range(n2):
        g.add_node(n1 + j, bipartite=1)
    p = mean_deg1 / n2
    B = rng.random((n1, n2)) < p
    g.add_edges_from((int(i), n1 + int(j)) for i, j in zip(*np.nonzero(B)))
    return g


def bench(g, n1, n2, formula, n_evals, rng, on_demand=None):
    if on_demand is not None:
        projection.ON_DEMAND = on_demand
    try:
        cm = ef.ERGM(g, formula).compiled()
    finally:
        projection.ON_DEMAND = None
    i = rng.integers(0, n1, size=n_evals)
    j = n1 + rng.integers(0, n2, size=n_evals)
    v = np.array([cm.var_of(int(a), int(b)) for a, b in zip(i, j)], dtype=np.int64)
    return rate(lambda: cm.change_and_flip(v, True), n_evals, clock=time.process_time)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer evaluations")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    proj = "edges + Proj1(~sum + nonzero + absdiff('x') + nodematch('g'))"
    gw = "edges + gwb1dsp(0.5, fixed=TRUE)"
    print(f"load average {os.getloadavg()[0]:.1f}; M (change + toggle + toggle back) per CPU s")
    print(f"{'n1':>6} {'n2':>6} {'deg1':>5} | {'Proj1 held':>10} {'on demand':>10} | "
          f"{'gwb1dsp':>8}")
    for n1, n2, d in [(50, 30, 10), (500, 200, 10), (2000, 1000, 5), (3000, 1000, 20), (5000, 3000, 5),
                     (5000, 5000, 20)]:
        n = 20_000 if args.quick else 200_000
        g = two_mode(n1, n2, d, rng)
        held = bench(g, n1, n2, proj, n, rng, on_demand=False)
        dem = bench(g, n1, n2, proj, n, rng, on_demand=True)
        ref = bench(g, n1, n2, gw, n, rng)
        print(f"{n1:>6} {n2:>6} {d:>5} | {held / 1e6:>10.3f} {dem / 1e6:>10.3f} | "
              f"{ref / 1e6:>8.3f}")
    # the valued triad term keeps a dense projected matrix: O(deg n_m^2) per toggle at worst
    print("\nedges + Proj1(~transitiveweights): K (change + toggle + toggle back) per CPU s")
    for n1, n2, d in [(50, 30, 10), (100, 50, 10), (200, 100, 10)]:
        g = two_mode(n1, n2, d, rng)
        r = bench(g, n1, n2, "edges + Proj1(~transitiveweights)", 2_000 if args.quick else 20_000,
                  rng)
        print(f"{n1:>6} {n2:>6} {d:>5} | {r / 1e3:>10.2f}")


if __name__ == "__main__":
    main()
