"""EpiModel's fast path (#32 item 7): a dyad-independent model fitted to
fractional target statistics with a structural-zero cell, exact by attribute
cells, at 20,000 nodes (statnet_families.json section 7, with its closed form)
and at 258,000 nodes (EpiModel's largest network).

Usage::

    PYTHONPATH=. python benchmarks/bench_dyadindep_targets.py [--nodes 258000]

Prints, per size: CPU seconds of ``fit(method="mple", target_stats=...)`` (and
of method="mcmle", which is the same exact solve), the peak resident memory of
the process, and the largest difference from the closed form (cell log-odds =
logit(target_cell / dyads_cell)), with the zero cell's coefficient (-Inf).

The network is built as the reference's rule says -- groups 1..4 with
probabilities .3, .3, .25, .15 and no ties -- with the group sizes the
reference records for 20,000 nodes (R's random numbers are not reproduced;
only the sizes matter), and with numpy's multinomial sizes for other sizes.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import warnings

import numpy as np
from scipy import special

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import ergmfit as ef                                    # noqa: E402
from ergmfit.network import Network                     # noqa: E402

REF = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "reference",
                   "statnet_families.json")
SHARES = np.array([.10, .20, .08, .10, .15, .05, .07, .05, 0.0])
CELLS = [(1, 1), (1, 2), (2, 2), (1, 3), (2, 3), (3, 3), (1, 4), (2, 4), (3, 4), (4, 4)]


def epi_network(sizes):
    grp = np.repeat(np.arange(1, 5), sizes)
    return Network(int(sum(sizes)), [], directed=False, node_attrs={"grp": grp.tolist()})


def targets(N):
    E = 0.6 * N
    ts = np.concatenate([[E], E * SHARES]) + 0.37
    ts[-1] = 0.0
    return ts


def closed_form(sizes, ts):
    """Cell log-odds = logit(target of the cell / dyads of the cell); edges = cell 1.1,
    mix.grp.a.b = cell a.b - cell 1.1 (the reference's exact_rule)."""
    sz = np.asarray(sizes, dtype=float)
    dyads = np.array([sz[a - 1] * (sz[a - 1] - 1) / 2 if a == b else sz[a - 1] * sz[b - 1]
                      for a, b in CELLS])
    cell_t = np.empty(10)
    cell_t[1:] = ts[1:]
    cell_t[0] = ts[0] - ts[1:].sum()
    with np.errstate(divide="ignore"):
        lo = special.logit(cell_t / dyads)
    return np.concatenate([[lo[0]], lo[1:] - lo[0]])


def run(sizes, methods=("mple", "mcmle")):
    N = int(sum(sizes))
    net = epi_network(sizes)
    m = ef.ERGM(net, "edges + nodemix('grp', levels2=-1)")
    ts = targets(N)
    exact = closed_form(sizes, ts)
    out = {"nodes": N}
    for method in methods:
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = m.fit(method=method, target_stats=ts)
        cpu = time.process_time() - t0
        p = np.asarray(fit.params)
        fin = np.isfinite(exact)
        out[method] = {"cpu_seconds": round(cpu, 3),
                       "max_abs_diff_closed_form": float(np.abs(p[fin] - exact[fin]).max()),
                       "zero_cell": float(p[-1]), "zero_cell_se": float(fit.bse[-1]),
                       "labels": list(fit.labels)}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out, fit, exact


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=258_000)
    args = ap.parse_args(argv)
    ref = None
    if os.path.exists(REF):
        with open(REF) as fh:
            ref = json.load(fh)["sections"]["7_dyadindep_targets"][0]
    sizes20k = ref["group_sizes"] if ref else [6037, 5981, 4897, 3085]
    res20, fit20, exact20 = run(sizes20k)
    print(json.dumps(res20, indent=1))
    if ref:
        ex = np.array([np.nan if v is None else v for v in ref["exact_coef"].values()])
        se = np.array(list(ref["se"].values()), dtype=float)
        p = np.asarray(fit20.params)
        fin = np.isfinite(ex)
        print("20k vs reference exact_coef: max |diff| =",
              f"{np.abs(p[fin] - ex[fin]).max():.3g};",
              "vs statnet's MCMC-MLE in its s.e.: max",
              f"{np.abs((p[fin] - np.array(list(ref['coef'].values()))[fin].astype(float)) / se[fin]).max():.3g}")
        print("statnet 4.4 CPU s at 20k:", ref["cpu_seconds_fit"])
    rng = np.random.default_rng(1)
    sizes = rng.multinomial(args.nodes, [.3, .3, .25, .15])
    res, fit, exact = run(sizes)
    print(json.dumps(res, indent=1))
    print(fit.summary())


if __name__ == "__main__":
    main()
