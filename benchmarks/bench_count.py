"""Count-valued ERGMs: MCMC-MLE CPU seconds beside ergm.count's, and the count MPLE on a
sparse 10^4-node Poisson network.

Run by hand:  PYTHONPATH=. python benchmarks/bench_count.py [--seeds 1 2 3 4] [--nodes 10000]

1. MCMC-MLE on the Sampson panel's total (samptot: the number of waves in which i named
   j), for each fit of section 1_valued of tests/reference/statnet_valued_fits.json whose
   terms exist here, beside that fit's ``cpu_seconds_fit`` (ergm.count 4.1.1 on ergm
   4.4.0, same kind of shared 2-core machine: compare ratios); both without the
   log-likelihood (the reference calls have ``eval.loglik=FALSE``).  The issue's Sampson
   ``Binomial(3)`` model needs ``transitiveweights`` and ``cyclicalweights``; until those
   terms exist the script also fits the nearest model, ``sum + nonzero + mutual.min``
   under ``Binomial(3)``, which has no statnet reference time.
2. Count MPLE on a synthetic sparse Poisson network (``--nodes`` nodes, 5 nonzero dyads
   per node, values 1 + Poisson(0.7)): over every dyad, then by a case-control sample of
   100,000 zero dyads, then with 20 bootstrap refits (sampled designs, an interval of 100
   proposals per node between the simulated networks).
"""
import argparse
import json
import os
import time
import warnings

import networkx as nx
import numpy as np

import ergmfit as ef

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "tests", "reference", "statnet_valued_fits.json")
DONE = {"sum", "nonzero", "mutual.min"}


def samptot():
    waves = [ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)]
    g = nx.DiGraph()
    g.add_nodes_from(waves[0].nodes(data=True))
    for w in waves:
        for u, v in w.edges():
            if g.has_edge(u, v):
                g.edges[u, v]["nominations"] += 1
            else:
                g.add_edge(u, v, nominations=1)
    return g


def mcmle_cases():
    with open(REFERENCE) as fh:
        cases = json.load(fh)["cases"]
    fits = [c for c in cases if c["kind"] == "fit" and c.get("status") == "ok"
            and c["dataset"] == "samptot" and set(c["coef_names"]) <= DONE]
    models = {}
    for c in fits:
        models.setdefault((c["formula"].split("~", 1)[1].strip(), c["reference"].lstrip("~")),
                          []).append(c["cpu_seconds_fit"])
    models.setdefault(("sum + nonzero + mutual(form=\"min\")", "Binomial(3)"), [])
    return models


def bench_mcmle(seeds):
    g = samptot()
    print("MCMC-MLE on samptot (18 nodes, 306 dyads)")
    print(f"{'model':52s} {'reference':12s} {'ergmfit CPU s':>14s} {'ergm.count CPU s':>17s}")
    for (formula, ref), statnet in mcmle_cases().items():
        m = ef.ERGM(g, formula, response="nominations", reference=ref)
        cpu = []
        for s in seeds:
            t = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.fit("mcmle", random_state=s, eval_loglik=False)    # statnet's: FALSE
            cpu.append(time.process_time() - t)
        theirs = f"{np.mean(statnet):.2f} ({len(statnet)} seeds)" if statnet else "-"
        print(f"{formula:52s} {ref:12s} {np.mean(cpu):14.2f} {theirs:>17s}")


def sparse_poisson(n, seed=1):
    """5 n distinct node pairs drawn uniformly, valued 1 + Poisson(0.7)."""
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < 5 * n:
        ij = rng.integers(0, n, size=(5 * n, 2))
        ij = ij[ij[:, 0] != ij[:, 1]]
        pairs.update(map(tuple, np.sort(ij, axis=1).tolist()))
    pairs = sorted(pairs)
    rng.shuffle(pairs)
    pairs = pairs[:5 * n]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(((i, j, int(1 + y)) for (i, j), y in
                               zip(pairs, rng.poisson(0.7, size=len(pairs)))), weight="weight")
    return g


def bench_mple(n):
    m = ef.ERGM(sparse_poisson(n), "sum + nonzero", response="weight", reference="Poisson")
    print(f"\nCount MPLE, sparse Poisson network: {n:,} nodes, {5 * n:,} nonzero dyads, "
          f"{n * (n - 1) // 2:,} dyads, 'sum + nonzero'")
    for what, kw in (("every dyad", {}),
                     ("case-control, 100,000 zero dyads", {"sample_size": 100_000}),
                     ("case-control + bootstrap (20 refits)",
                      {"sample_size": 100_000, "cov": "bootstrap", "bootstrap": 20,
                       "interval": 100 * n, "burnin": 1000 * n})):
        t = time.process_time()
        fit = m.fit("mple", random_state=1, **kw)
        print(f"  {what:40s} {time.process_time() - t:7.2f} CPU s   coef "
              f"{np.round(np.asarray(fit.params, dtype=float), 4).tolist()}  s.e. "
              f"{np.round(np.asarray(fit.bse, dtype=float), 4).tolist()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--nodes", type=int, default=10_000)
    args = ap.parse_args()
    bench_mcmle(args.seeds)
    bench_mple(args.nodes)


if __name__ == "__main__":
    main()
