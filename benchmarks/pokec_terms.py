"""Where the Pokec model's change statistics spend their time (issue #35; docs/guide/
large_networks.md, "Session 17").

    PYTHONPATH=. python benchmarks/pokec_terms.py EDGES [N] [TERMS]

Reads the SNAP edge list as ``pokec_run.py`` does, draws ``N`` (default 1,000) uniform arcs
(IFD's deletes, degree-biased) and ``N`` uniform non-arcs (its adds), and prints:

* the work of ``AltTwoPathsT``'s change on demand (entries scanned, a tie-map probe counted as
  16): each v's list against the fixed end's marks only ("lists", the old kernel), the cheaper
  of that and the arcs from each w of the fixed end's list ("min", ``NetworkState.otp_row``),
  and the share of the work in the heaviest 1 % and 10 % of proposals;
* microseconds per change statistic of each term alone (comma-separated ``TERMS``, default the
  six Pokec terms), every two-path count on demand (Python call overhead about 1.3 us included).
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pokec_run import FORMULA, read_snap  # noqa: E402

R = 16      # MARK_RATIO: a probe costs about this many entries scanned


def side_costs(vl, fl, deg_v, deg_w):
    """Work of one row: each v of vl scanned against fl's marks, or each w of fl's list."""
    a = np.minimum(deg_v[vl], R * len(fl)).sum() + len(fl)
    b = np.minimum(deg_w[fl], R * len(vl)).sum() + len(vl)
    return a, min(a, b)


def main():
    import ergmfit as ef
    from ergmfit.network import cache_memory
    n, arcs, _ = read_snap(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    terms = (sys.argv[3] if len(sys.argv) > 3 else FORMULA.replace(" ", "").replace("+", ",")
             ).split(",")
    net = ef.Network(n, arcs, True)
    a = np.asarray(arcs, dtype=np.int64)
    rng = np.random.default_rng(5)
    dels = a[rng.integers(0, len(a), count)]
    keys = set((a[:, 0] * n + a[:, 1]).tolist())
    adds = []
    while len(adds) < count:
        i, j = (int(x) for x in rng.integers(0, n, 2))
        if i != j and i * n + j not in keys:
            adds.append((i, j))
    adds = np.array(adds)
    outd, ind = np.bincount(a[:, 0], minlength=n), np.bincount(a[:, 1], minlength=n)
    optr, iptr = np.r_[0, np.cumsum(outd)], np.r_[0, np.cumsum(ind)]
    onb = a[np.argsort(a[:, 0], kind="stable"), 1]
    inb = a[np.argsort(a[:, 1], kind="stable"), 0]
    for kind, dyads in (("delete", dels), ("add", adds)):
        w = []
        for i, j in dyads:
            f = side_costs(onb[optr[j]:optr[j + 1]], onb[optr[i]:optr[i + 1]], ind, outd)
            b = side_costs(inb[iptr[i]:iptr[i + 1]], inb[iptr[j]:iptr[j + 1]], outd, ind)
            w.append((f[0] + b[0], f[1] + b[1]))
        w = np.array(w, dtype=float)
        top = np.sort(w[:, 0])[::-1]
        print(f"{kind}: AltTwoPathsT work per change, lists {w[:, 0].mean():,.0f}, "
              f"min {w[:, 1].mean():,.0f}; heaviest 1 % {top[:max(1, count // 100)].sum() / top.sum():.2f}"
              f" and 10 % {top[:max(1, count // 10)].sum() / top.sum():.2f} of the lists' work")
    with cache_memory(0):
        for term in terms:
            change = ef.ERGM(net, term).compiled().dyad_change_stats
            for kind, dyads in (("delete", dels), ("add", adds)):
                t = time.process_time()
                for i, j in dyads:
                    change(int(i), int(j))
                t = time.process_time() - t
                print(f"{term:16s} {kind:6s} {1e6 * t / len(dyads):9.1f} us per change", flush=True)


if __name__ == "__main__":
    main()
