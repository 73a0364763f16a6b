"""MPLE wall time on the reference models, beside statnet's and ergmx's.

Run by hand:  python benchmarks/bench_mple.py [--repeat 7] [--epinions]

For each model prints the best and median wall time of
``ergmfit.estimation.fit(model, "mple")`` (design over every dyad, the
logistic regression, the checks and the results object), the time to build
the model from the formula, the number of dyads and of distinct design rows.
statnet 4.4 and ergmx figures are the CPU seconds measured on the same kind
of machine (tests/reference/statnet_fits.json and the issue text); compare
ratios, the machine is shared.

* faux.magnolia.high ``edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)``
  (1,066,530 dyads): statnet 0.19 s, ergmx 0.06 s.
* faux.mesa.high ``edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE)
  + gwesp(0.25, fixed=TRUE)`` (13 terms, 20,910 dyads): statnet 0.13 s.
* with ``--epinions``: Epinions ``edges + mutual`` by case-control sampling
  (5.8e9 dyads; all 508,837 ties and 4.07e6 non-ties).
"""
import argparse
import time

import numpy as np

import ergmfit as ef
from ergmfit.estimation import fit

MODELS = [
    ("faux.magnolia.high", "edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)",
     {"statnet": 0.19, "ergmx": 0.06}),
    ("faux.mesa.high",
     "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE) + gwesp(0.25, fixed=TRUE)",
     {"statnet": 0.13}),
]


def bench(name, formula, ref, repeat):
    net = ef.datasets.load_network(name)
    t = time.perf_counter()
    model = ef.ERGM(net, formula)
    setup = time.perf_counter() - t
    fit(model, "mple")              # warm-up: imports, first-touch memory
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        res = fit(model, "mple")
        times.append(time.perf_counter() - t)
    best, med = min(times), float(np.median(times))
    refs = ", ".join(f"{k} {v:.2f} s" for k, v in ref.items())
    faster = all(best < v for v in ref.values())
    print(f"{name}: {formula}")
    print(f"  dyads {res.nobs:,}  distinct rows {res.info['design']['unique_rows']:,}  "
          f"terms {len(res.labels)}")
    print(f"  MPLE wall time: best {best:.4f} s, median {med:.4f} s  (model setup {setup:.4f} s)"
          f"  | {refs}  -> {'faster' if faster else 'NOT faster'}")
    return best


def bench_epinions():
    t = time.perf_counter()
    net = ef.datasets.load_network("epinions")
    load = time.perf_counter() - t
    model = ef.ERGM(net, "edges + mutual")
    t = time.perf_counter()
    res = fit(model, "mple", random_state=1)
    el = time.perf_counter() - t
    d = res.info["design"]
    print(f"epinions: edges + mutual, {d['n_vars']:.3g} dyads, case-control sample of "
          f"{d['n_on']:,} ties + {d['n_sampled']:,} non-ties")
    print(f"  MPLE wall time {el:.3f} s (load {load:.2f} s); estimates "
          + ", ".join(f"{k} {v:.4f}" for k, v in res.params.to_dict().items()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--epinions", action="store_true", help="also fit Epinions by sampling")
    args = ap.parse_args(argv)
    for name, formula, ref in MODELS:
        bench(name, formula, ref, args.repeat)
    if args.epinions:
        bench_epinions()


if __name__ == "__main__":
    main()
