"""Hot-loop figures for an A/B of two builds of the compiled modules (docs/build.md).

Run by hand, one process per workload, alternating the builds (the modules of each build copied
into the source tree in turn, or two clones on PYTHONPATH):

    python benchmarks/bench_build_ab.py WORKLOAD        # one of WORKLOADS, or "all"

Prints one line per workload: its name, its figure (M proposals per CPU s for the MH draws,
CPU s for the others; ``time.process_time``) and a sha256 prefix of its result (estimates,
statistics or drawn states), which must be equal for two builds of the same sources.
"""
import hashlib
import sys
import time

import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.mrf import IsingModel, PottsModel

MAGNOLIA = "edges + nodematch('Grade') + gwesp(0.25, fixed=True)"
DIXON = "edges + mutual + ttriple + gwesp(0.5, fixed=True) + gwidegree(0.5, fixed=True)"
MESA = "edges + nodefactor('Grade') + nodematch('Race') + gwesp(0.25, fixed=True)"
LAZEGA = "edges + nodematch('practice') + gwesp(0.693, fixed=True)"


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()[:12]


def mh(data, formula, proposals):
    model = ef.ERGM(ef.datasets.load_network(data), formula)
    theta = np.asarray(model.fit(method="mple").params, dtype=float)
    t = time.process_time()
    stats = model.simulate(theta, n=1, burnin=proposals, interval=1, output="stats",
                           random_state=1)
    cpu = time.process_time() - t
    return proposals / cpu / 1e6, digest(stats)


def mcmle():
    model = ef.ERGM(ef.datasets.load_network("faux.mesa.high"), MESA)
    t = time.process_time()
    fit = model.fit(method="mcmle", random_state=1)
    return time.process_time() - t, digest(fit.params)


def ee():
    model = ef.ERGM(ef.datasets.load_network("lazega"), LAZEGA)
    t = time.process_time()
    fit = model.fit(method="ee", random_state=1)
    return time.process_time() - t, digest(fit.params)


def mple40():
    net = ef.datasets.load_network("faux.magnolia.high")
    t = time.process_time()
    for _ in range(40):
        fit = ef.ERGM(net, MAGNOLIA).fit(method="mple")
    return time.process_time() - t, digest(fit.params)


def constrained():
    model = ef.ERGM(ef.datasets.load_network("faux.mesa.high"),
                    "edges + nodematch('Grade') + gwesp(0.25, fixed=True)")
    t = time.process_time()
    stats = model.simulate([-6.0, 1.5, 0.5], n=200, output="stats", constraints="~ degrees",
                           random_state=1)
    return time.process_time() - t, digest(stats)


def ising():
    m = IsingModel(nx.grid_2d_graph(50, 50))
    t = time.process_time()
    X = m.sample(3000, theta=[0.05, 0.3], random_state=1)
    return time.process_time() - t, digest(X)


def potts():
    m = PottsModel(nx.grid_2d_graph(30, 30), q=3)
    theta = np.r_[np.zeros(m.n_stats - 1), 0.5]
    t = time.process_time()
    X = m.sample(1500, theta=theta, random_state=1, method="gibbs", block_size=2)
    return time.process_time() - t, digest(X)


WORKLOADS = {
    "mh_magnolia": lambda: mh("faux.magnolia.high", MAGNOLIA, 2_000_000),
    "mh_dixon": lambda: mh("faux.dixon.high", DIXON, 1_000_000),
    "mcmle_mesa": mcmle,
    "ee_lazega": ee,
    "mple40_magnolia": mple40,
    "constrained_degrees": constrained,
    "ising_gibbs": ising,
    "potts_gibbs": potts,
}


def main(argv):
    names = list(WORKLOADS) if not argv or argv[0] == "all" else argv
    for name in names:
        figure, h = WORKLOADS[name]()
        print(f"{name} {figure:.4f} {h}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
