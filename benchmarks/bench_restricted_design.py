"""CPU seconds of the MPLE design over a restricted sample space: a one-mode network with
missing dyads or a ``blockdiag`` constraint, and a two-mode network (the dyads between the
modes), each with dyad-independent terms and with a dyad-dependent one.

    python benchmarks/bench_restricted_design.py [--dyads 1e6 5e6] [--only missing,twomode]
                                                 [--profile] [--fit]

Each case builds ``pseudo_design(bm, vars_=space.design_vars())`` -- the design ``MPLE().fit``
builds on such a space, every free observed dyad visited -- after the model is compiled (the
compile, the space and its ``design_vars`` are timed apart: ``setup``).  ``--fit`` also times
``model.fit("mple")`` as a whole (one-mode dyad-independent models over every dyad, and
two-mode ones of attribute-cell terms, are counted by cells there, not by this design).
``--profile`` prints the top of a cProfile of each design build.  Networks: sparse G(n, p)
with mean degree about 6 and a 5-level node attribute, seed 1; the missing dyads are 10 %% of
the dyads drawn at random; ``blockdiag`` blocks are a second attribute's levels (the network
has 5x the dyads asked for, so that about as many are free).  Times are CPU
seconds of this process (time.process_time).
"""
import argparse
import cProfile
import io
import math
import pstats
import time
import warnings

import numpy as np

import ergmfit as ef
from ergmfit.estimation.mple.pseudolikelihood import pseudo_design

ONE_MODE = {"indep": "edges + nodematch('g') + nodefactor('g')",
            "dep": "edges + nodematch('g') + gwesp(0.25, fixed=TRUE)"}
TWO_MODE = {"indep": "edges + b1factor('g') + b2factor('g')",
            "dep": "edges + b1factor('g') + gwb1degree(0.5, fixed=TRUE)"}


def one_mode(n_dyads, rng):
    """An undirected sparse network with about ``n_dyads`` dyads, attributes 'g' and 'b' (5
    levels each, independent: 'b' makes the blocks of ``blockdiag``, where nodematch('g')
    would be edges)."""
    n = int(round((1 + math.sqrt(1 + 8 * n_dyads)) / 2))
    m = 3 * n
    i = rng.integers(0, n, m)
    j = rng.integers(0, n, m)
    keep = i != j
    ties = np.unique(np.sort(np.c_[i[keep], j[keep]], axis=1), axis=0)
    return ef.Network(n, ties, directed=False, node_attrs={"g": rng.integers(0, 5, n).tolist(),
                                                           "b": rng.integers(0, 5, n).tolist()})


def two_mode(n_dyads, rng):
    """A two-mode network of n1 x n2 ~ ``n_dyads`` dyads (n2 = 2 n1), attribute 'g'."""
    n1 = int(round(math.sqrt(n_dyads / 2)))
    n2 = 2 * n1
    m = 3 * (n1 + n2)
    ties = np.unique(np.c_[rng.integers(0, n1, m), n1 + rng.integers(0, n2, m)], axis=0)
    return ef.Network(n1 + n2, ties, directed=False, bipartite=n1,
                      node_attrs={"g": rng.integers(0, 5, n1 + n2).tolist()})


def models(case, n_dyads, kind):
    rng = np.random.default_rng(1)
    if case == "twomode":
        return ef.ERGM(two_mode(n_dyads, rng), TWO_MODE[kind])
    # blockdiag: 5 blocks of about n / 5 nodes leave about a fifth of the dyads free
    net = one_mode(n_dyads if case == "missing" else 5 * n_dyads, rng)
    if case == "missing":
        d = net.n_dyads
        pick = np.sort(rng.choice(d, d // 10, replace=False))
        # variable index -> (i, j), i < j, row by row
        n = net.n
        row0 = np.concatenate([[0], np.cumsum(np.arange(n - 1, 0, -1))])
        i = np.searchsorted(row0, pick, side="right") - 1
        j = pick - row0[i] + i + 1
        return ef.ERGM(net, ONE_MODE[kind], missing=np.c_[i, j])
    return ef.ERGM(net, ONE_MODE[kind], constraints="~ blockdiag('b')")


def run(case, n_dyads, kind, profile, fit):
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = models(case, n_dyads, kind)
        bm = model.compiled()
        vars_ = model.sample_space.design_vars()
    t1 = time.process_time()
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    d = pseudo_design(bm, vars_=vars_)
    if prof:
        prof.disable()
    t2 = time.process_time()
    line = (f"{case:8s} {kind:6s} {len(vars_):>10,d} free dyads  setup {t1 - t0:6.2f} s  "
            f"design {t2 - t1:6.2f} s  ({d.n_rows} rows, {d.n_on} ties)")
    if fit:
        t3 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit("mple")
        line += f"  fit {time.process_time() - t3:6.2f} s"
    print(line, flush=True)
    if prof:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(12)
        print(s.getvalue())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dyads", type=float, nargs="+", default=[1e6])
    ap.add_argument("--only", default="missing,blockdiag,twomode")
    ap.add_argument("--kinds", default="indep,dep")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--fit", action="store_true")
    args = ap.parse_args()
    # warm up the imports (scipy) outside the timings
    ef.ERGM(ef.Network(4, [(0, 1)], directed=False), "edges").fit("mple")
    for n_dyads in args.dyads:
        for case in args.only.split(","):
            for kind in args.kinds.split(","):
                run(case, int(n_dyads), kind, args.profile, args.fit)


if __name__ == "__main__":
    main()
