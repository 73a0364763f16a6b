"""Change-statistic and toggle throughput, and the memory of the Epinions state.

Run by hand:  python benchmarks/bench_kernels.py [--quick]

Prints, for faux.magnolia.high ``edges + nodematch('Grade') + gwesp(0.25, fixed=True)``, for
faux.dixon.high's directed GW terms (``gwesp + dgwesp(OSP) + dgwdsp(ISP) + ttriple +
transitiveties``) and for Epinions ``Arc + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT``:
  * change-statistic evaluations per second at uniformly random dyads of the observed network;
  * change statistics + toggle + toggle back per second (the state changes and is restored, so
    the network stays the observed one and the figure does not drift);
  * for Epinions, the compiled memory of the state with its two-path cache and the process RSS.
"""
import argparse
import resource
import time

import numpy as np

import ergmfit as ef


def rss_mb():
    """Current resident memory (VmRSS) of this process, in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def rate(fn, count, repeat=3, clock=time.perf_counter):
    """count / the best of ``repeat`` timings of fn() on ``clock``, and that time."""
    best = np.inf
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return count / best, best


def bench(name, net, formula, n_evals, rng):
    t = time.perf_counter()
    model = ef.ERGM(net, formula)
    cm = model.compiled()
    setup = time.perf_counter() - t
    v = rng.integers(0, cm.n_vars, size=n_evals, dtype=np.int64)
    on = cm.on_vars()
    v_on = on[rng.integers(0, len(on), size=n_evals)]
    chunk = min(n_evals, 1_000_000)

    def evals(vs):
        def f():
            for s in range(0, len(vs), chunk):
                cm.change_matrix(vs[s:s + chunk])
        return f

    r_eval, _ = rate(evals(v), n_evals)
    r_eval_on, _ = rate(evals(v_on), n_evals)
    r_flip, _ = rate(lambda: cm.change_and_flip(v, True), n_evals)
    print(f"\n{name}: {formula}")
    print(f"  nodes {net.n:,}, ties {net.n_ties:,}, statistics {cm.n_stats}; "
          f"model + state + caches built in {setup:.2f} s")
    print(f"  change statistics, random dyads : {r_eval / 1e6:8.2f} M evaluations/s")
    print(f"  change statistics, present ties : {r_eval_on / 1e6:8.2f} M evaluations/s")
    print(f"  change + toggle + toggle back   : {r_flip / 1e6:8.2f} M/s (random dyads)")
    return cm


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer evaluations")
    args = ap.parse_args()
    rng = np.random.default_rng(1)

    mag = ef.datasets.load_network("faux.magnolia.high")
    bench("faux.magnolia.high", mag, "edges + nodematch('Grade') + gwesp(0.25, fixed=True)",
          2_000_000 if args.quick else 20_000_000, rng)

    # directed GW terms with their two-path caches on a real directed network
    dixon = ef.datasets.load_network("faux.dixon.high")
    bench("faux.dixon.high", dixon, "gwesp(0.5, fixed=TRUE) + dgwesp(0.5, fixed=TRUE, type='OSP')"
          " + dgwdsp(0.5, fixed=TRUE, type='ISP') + ttriple + transitiveties",
          200_000 if args.quick else 2_000_000, rng)

    before = rss_mb()
    t = time.perf_counter()
    epi = ef.datasets.load_network("epinions")
    load = time.perf_counter() - t
    cm = bench("epinions", epi, "Arc + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT",
               20_000 if args.quick else 200_000, rng)
    state = cm.state
    print(f"  loaded in {load:.2f} s; cache pairs {state.cache_sizes()}")
    print(f"  compiled state incl. caches     : {state.memory_bytes() / 2**20:8.1f} MB")
    print(f"  process RSS now                 : {rss_mb():8.1f} MB (before loading epinions: "
          f"{before:.1f} MB; peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MB)")


if __name__ == "__main__":
    main()
