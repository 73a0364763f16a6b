"""Count-valued ERGMs: MCMC-MLE CPU seconds beside ergm.count's, and the count MPLE on a
sparse 10^4-node Poisson network.

Run by hand:  PYTHONPATH=. python benchmarks/bench_count.py [--seeds 1 2 3 4] [--nodes 10000]
              PYTHONPATH=. python benchmarks/bench_count.py --ab OLD_TREE [--seeds ...]

1. MCMC-MLE on the Sampson panel's total (samptot: the number of waves in which i named
   j), for each samptot fit of section 1_valued of tests/reference/statnet_valued_fits.json,
   beside that fit's ``cpu_seconds_fit`` (ergm.count 4.1.1 on ergm 4.4.0, same kind of
   shared 2-core machine: compare ratios); both without the log-likelihood (the reference
   calls have ``eval.loglik=FALSE``).  Each model is fitted once untimed first (imports,
   first compilations), then once per seed.  The issue's check is the ``Binomial(3)``
   model with ``transitiveweights`` and ``cyclicalweights``: ergmfit >= 10x faster.
2. ``--ab OLD_TREE``: the same fits, interleaved A/B between this source tree and
   ``OLD_TREE`` (another checkout with its compiled modules, e.g. a copy of the tree
   before a change): each (model, seed) runs in a fresh process per tree, alternately,
   and the table prints both CPU times.
3. Count MPLE on a synthetic sparse Poisson network (``--nodes`` nodes, 5 nonzero dyads
   per node, values 1 + Poisson(0.7)): over every dyad (the zero dyads counted by
   attribute cell, ``ZeroCells``), with 20 bootstrap refits (an interval of 100 proposals
   per node between the simulated networks), then by a case-control sample of 100,000
   zero dyads, alone and with the bootstrap.  The issue's check: every dyad + bootstrap
   < 60 CPU s at 10^4 nodes.
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
    """{(formula, reference): [statnet CPU s of its seeds]} of the samptot fits."""
    with open(REFERENCE) as fh:
        cases = json.load(fh)["cases"]
    models = {}
    for c in cases:
        if c["kind"] == "fit" and c.get("status") == "ok" and c["dataset"] == "samptot":
            models.setdefault((c["formula"].split("~", 1)[1].strip(),
                               c["reference"].lstrip("~")), []).append(c["cpu_seconds_fit"])
    return models


def fit_cpu(formula, ref, seeds):
    """CPU seconds of one MCMC-MLE fit per seed (after an untimed warm-up fit)."""
    m = ef.ERGM(samptot(), formula, response="nominations", reference=ref)
    cpu = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit("mcmle", random_state=0, eval_loglik=False)
        for s in seeds:
            t = time.process_time()
            m.fit("mcmle", random_state=s, eval_loglik=False)    # statnet's: FALSE
            cpu.append(time.process_time() - t)
    return cpu


def bench_mcmle(seeds):
    print("MCMC-MLE on samptot (18 nodes, 306 dyads); warm fits, mean over seeds "
          f"{' '.join(map(str, seeds))}")
    print(f"{'model':100s} {'reference':12s} {'ergmfit CPU s':>14s} {'ergm.count CPU s':>17s} "
          f"{'ratio':>6s}")
    for (formula, ref), statnet in mcmle_cases().items():
        ours = float(np.mean(fit_cpu(formula, ref, seeds)))
        print(f"{formula:100s} {ref:12s} {ours:14.2f} {np.mean(statnet):17.2f} "
              f"{np.mean(statnet) / ours:6.1f}x")


def bench_ab(old_tree, seeds):
    """Interleaved A/B of the MCMC-MLE fits: this tree (new) and ``old_tree`` (old)."""
    import subprocess
    import sys
    new_tree = os.path.abspath(os.path.join(HERE, ".."))
    trees = {"new": new_tree, "old": os.path.abspath(old_tree)}
    print(f"Interleaved A/B, MCMC-MLE on samptot: new = {new_tree}, old = {trees['old']}")
    print(f"{'model':100s} {'reference':12s} {'old CPU s':>10s} {'new CPU s':>10s} "
          f"{'old/new':>8s} {'statnet/new':>12s}")
    for (formula, ref), statnet in mcmle_cases().items():
        cpu = {"new": [], "old": []}
        for s in seeds:
            for which in ("old", "new") if s % 2 else ("new", "old"):
                env = dict(os.environ, PYTHONPATH=trees[which])
                out = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--one", formula, ref, str(s)],
                    env=env, cwd=trees[which], capture_output=True, text=True, check=True)
                cpu[which].append(float(out.stdout.split()[-1]))
        o, n = np.mean(cpu["old"]), np.mean(cpu["new"])
        print(f"{formula:100s} {ref:12s} {o:10.2f} {n:10.2f} {o / n:7.2f}x "
              f"{np.mean(statnet) / n:11.1f}x")


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
                     ("every dyad + bootstrap (20 refits)",
                      {"cov": "bootstrap", "bootstrap": 20, "interval": 100 * n,
                       "burnin": 1000 * n}),
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
    ap.add_argument("--ab", metavar="OLD_TREE", help="interleaved A/B against this tree")
    ap.add_argument("--one", nargs=3, metavar=("FORMULA", "REFERENCE", "SEED"),
                    help=argparse.SUPPRESS)     # one timed fit (a process of --ab)
    args = ap.parse_args()
    if args.one:
        print(fit_cpu(args.one[0], args.one[1], [int(args.one[2])])[0])
        return
    if args.ab:
        bench_ab(args.ab, args.seeds)
        return
    bench_mcmle(args.seeds)
    bench_mple(args.nodes)


if __name__ == "__main__":
    main()
