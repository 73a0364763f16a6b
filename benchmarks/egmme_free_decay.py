"""EGMME with a free gwesp decay on a process whose coefficients are known.

Run by hand:  PYTHONPATH=. python benchmarks/egmme_free_decay.py [--nodes 24]
              [--theta -5.0 1.0 0.5] [--gen-seed 3] [--seeds 1 2] [--short]

1. A cross-section of ``Form(~edges + gwesp(0.5, fixed=FALSE)) + Persist(~edges)`` at
   ``--theta`` (edges, gwesp, decay) and log 9 (mean tie life 10): ``--nodes`` nodes,
   2,000 time steps from the empty network (chain seed ``--gen-seed``).
2. Its cross-sectional curved MLE (``edges + gwesp(0.5, fixed=FALSE)``, MCMC-MLE): what the
   one network says about the decay.
3. EGMME of the dynamic model with ``Persist(~offset(edges))`` at log 9, default targets
   (their curved statistics, docs/egmme.md), at each of ``--seeds``: estimate, s.e.,
   final t-ratios, convergence, CPU s, and the distance from ``--theta`` in s.e.
   ``--short``: the test suite's short settings (200 steps per iteration, 4 + 2
   iterations, final run 600 steps).

docs/egmme.md ('A free decay') has the figures.
"""
import argparse
import time
import warnings

import networkx as nx
import numpy as np

import ergmfit as ef
from ergmfit.temporal.chain import DynamicChain

SHORT = dict(steps=200, burnin=20, n_iter=4, n_average=2, final_steps=600, fd_steps=300)


def cross_section(n, theta, seed, steps=2000):
    m = ef.ERGM(nx.empty_graph(n), "Form(~edges + gwesp(0.5, fixed=FALSE)) + Persist(~edges)")
    chain = DynamicChain(m, cross="edges", random_state=seed)
    chain.run(m.eta(np.r_[theta, np.log(9)]), steps)
    g = nx.empty_graph(n)
    g.add_edges_from(map(tuple, chain.state.ties().tolist()))
    return g


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=24)
    ap.add_argument("--theta", type=float, nargs=3, default=[-5.0, 1.0, 0.5])
    ap.add_argument("--gen-seed", type=int, default=3)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--short", action="store_true")
    a = ap.parse_args()
    truth = np.array(a.theta)
    g = cross_section(a.nodes, truth, a.gen_seed)
    print(f"{a.nodes} nodes, process {truth}, log 9: {g.number_of_edges()} ties")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st = ef.ERGM(g, "edges + gwesp(0.5, fixed=FALSE)").fit(method="mcmle", random_state=1)
    print(f"cross-sectional curved MLE {np.round(np.asarray(st.params), 3)} "
          f"s.e. {np.round(np.asarray(st.bse), 3)}")
    m = ef.ERGM(g, "Form(~edges + gwesp(0.5, fixed=FALSE)) + Persist(~offset(edges))")
    for s in a.seeds:
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = m.fit(method="egmme", offset_coef=[np.log(9)], random_state=s,
                        **(SHORT if a.short else {}))
        sec = time.process_time() - t0
        est, se = np.asarray(fit.params)[:3], np.asarray(fit.bse)[:3]
        print(f"seed {s}: {sec:6.1f} CPU s  coef {est.round(3)}  s.e. {se.round(3)}  "
              f"t {np.round(list(fit.info['t_ratios'].values()), 3)}  "
              f"converged {fit.converged}  |coef - truth| / s.e. "
              f"{(np.abs(est - truth) / se).round(2)}")


if __name__ == "__main__":
    main()
