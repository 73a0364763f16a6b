"""The count MPLE of a dyad-dependent model on a sparse 10^4-node Poisson network, and its
bootstrap standard errors (#33: count MPLE + bootstrap s.e. in < 60 CPU s).

Run by hand:  PYTHONPATH=. python benchmarks/bench_count_mple.py [--nodes 10000] [--boot 20]
              PYTHONPATH=. python benchmarks/bench_count_mple.py --ab OLD_TREE [--repeats 3]

The network is ``bench_count.sparse_poisson`` (5 nonzero dyads per node, values
1 + Poisson(0.7), undirected).  The model: ``sum + nonzero + nodecovar(center=TRUE) +
transitiveweights`` (statnet's defaults "min", "max", "min"); ``--formula`` another.
1. The MPLE over every dyad (CPU s), then with ``cov="bootstrap"``: ``--boot`` networks
   simulated from the MPLE (burn-in 10 x, interval 4 x the number of nonzero dyads
   proposals: each nonzero dyad is proposed about twice per interval), each refitted.
2. ``--ab OLD_TREE``: the MPLE alone (with ``--ab-bootstrap``: the MPLE and its ``--boot``
   bootstrap refits, as in 1.), interleaved A/B between this tree and ``OLD_TREE`` (a
   checkout with its compiled modules), each run a fresh process, ``--repeats`` times
   each; prints every CPU time and the medians.
"""
import argparse
import os
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

FORMULA = "sum + nonzero + nodecovar(center=TRUE) + transitiveweights"


def model(n, formula):
    import ergmfit as ef
    from bench_count import sparse_poisson
    return ef.ERGM(sparse_poisson(n), formula, response="weight", reference="Poisson")


def bootstrap_settings(n, boot):
    """The bootstrap settings of the benchmark (burn-in 50 n, interval 20 n proposals)."""
    return {"cov": "bootstrap", "bootstrap": boot, "burnin": 50 * n, "interval": 20 * n}


def one_fit(n, formula, **kw):
    m = model(n, formula)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.process_time()
        fit = m.fit("mple", random_state=1, **kw)
        return time.process_time() - t, fit


def bench(n, formula, boot):
    cpu, fit = one_fit(n, formula)
    print(f"Count MPLE, sparse Poisson network: {n:,} nodes, {5 * n:,} nonzero dyads, "
          f"{n * (n - 1) // 2:,} dyads\nmodel: {formula}")
    print(f"  MPLE                      {cpu:7.2f} CPU s  rows {fit.info['design']['n_rows']:,}"
          f"  coef {np.round(np.asarray(fit.params, dtype=float), 4).tolist()}")
    kw = bootstrap_settings(n, boot)
    cpu, fit = one_fit(n, formula, **kw)
    print(f"  MPLE + bootstrap ({boot:d})     {cpu:7.2f} CPU s  s.e. "
          f"{np.round(np.asarray(fit.bse, dtype=float), 4).tolist()}  "
          f"(burn-in {kw['burnin']:,}, interval {kw['interval']:,})")


def bench_ab(old_tree, n, formula, repeats, boot=None):
    trees = {"new": os.path.abspath(os.path.join(HERE, "..")), "old": os.path.abspath(old_tree)}
    cpu = {"new": [], "old": []}
    for r in range(repeats):
        for which in ("old", "new") if r % 2 else ("new", "old"):
            env = dict(os.environ, PYTHONPATH=trees[which], PYTHONDONTWRITEBYTECODE="1")
            extra = [] if boot is None else ["--ab-bootstrap", "--boot", str(boot)]
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one",
                                  "--nodes", str(n), "--formula", formula] + extra,
                                 env=env, cwd=trees[which], capture_output=True, text=True,
                                 check=True)
            cpu[which].append(float(out.stdout.split()[-1]))
            print(f"  {which}: {cpu[which][-1]:.2f} CPU s", flush=True)
    what = "MPLE alone" if boot is None else f"MPLE + bootstrap ({boot})"
    print(f"A/B, {what}, {n:,} nodes, {formula}: old median {np.median(cpu['old']):.2f}, "
          f"new median {np.median(cpu['new']):.2f} CPU s "
          f"({np.median(cpu['old']) / np.median(cpu['new']):.1f}x)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--boot", type=int, default=20)
    ap.add_argument("--formula", default=FORMULA)
    ap.add_argument("--ab", metavar="OLD_TREE")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ab-bootstrap", action="store_true",
                    help="A/B the MPLE with its --boot bootstrap refits")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    boot = args.boot if args.ab_bootstrap else None
    if args.one:
        kw = {} if boot is None else bootstrap_settings(args.nodes, boot)
        print(one_fit(args.nodes, args.formula, **kw)[0])
    elif args.ab:
        bench_ab(args.ab, args.nodes, args.formula, args.repeats, boot)
    else:
        bench(args.nodes, args.formula, args.boot)


if __name__ == "__main__":
    main()
