"""A synthetic directed network of Pokec's size, degree spread and reciprocity (issue #35).

Pokec (SNAP soc-Pokec): 1,632,803 nodes, 30,622,564 arcs, mean out-degree 18.75, maximum
out-degree 8,763 and in-degree 13,733, about 54% of its arcs reciprocated.  This generator
draws a network with those margins at any ``--fraction`` of the size (the mean degree kept):

* each node gets an activity weight from a Pareto tail (exponent ``--alpha``, default 2.5,
  capped so that the largest expected degree is Pokec's maximum scaled by the fraction), the
  same weight for sending and receiving, with a little independent noise between the two;
* a share ``--reciprocity`` of the arcs comes in mutual pairs: mutual dyads are drawn with
  both ends proportional to the weights (Chung-Lu), the remaining arcs with the tail
  proportional to the out-weight and the head to the in-weight;
* self-loops and repeated dyads are dropped (so the counts come out slightly below the
  targets; the script prints what it made);
* with ``--closure SHARE`` (default 0: the network drawn before the option existed) that
  share of the arcs is placed afterwards by triadic closure (``closure_arcs``): a tail i drawn
  by its out-weight, a random out-neighbour j of i, a random out-neighbour k of j, the arc
  i -> k (a share ``--reciprocity`` of them as mutual pairs), until the network has about
  the target number of arcs.  Chung-Lu arcs close few triangles, and fewer per arc as the
  network grows; each closure arc closes at least one whatever the size.  At full size
  ``--closure 0.5`` gives an average clustering of 0.121 (Pokec, as recalled from SNAP's
  page and not checked: 0.109) and 17.1 M undirected triangles (Pokec, as recalled: 32.6 M);
  see docs/guide/large_networks.md.  ``--count`` prints the triangles, the transitivity and
  the average clustering (``triangles``, ``clustering``) after writing the file.

The network is written in SNAP's format (``# comments`` then ``tail<TAB>head`` per line,
gzip if the name ends in .gz), which ``benchmarks/pokec_run.py`` reads like the real
``soc-pokec-relationships.txt.gz``.  Arrays are int32 and drawn in chunks: the full size
needs about 1.5 GB (2.7 GB with ``--closure``).

    PYTHONPATH=. python benchmarks/pokec_synthetic.py OUT.txt.gz [--fraction 0.01] [--seed 1]
        [--closure 0.5] [--count]

For example, the clustered network at 1 % of the size (16,328 nodes, 306,041 arcs, 296,941
triangles; 1 CPU s) and at full size (30.6 M arcs; about 6 CPU minutes and 2.7 GB):

    PYTHONPATH=. python benchmarks/pokec_synthetic.py clu_p001.txt.gz --fraction 0.01 \
        --closure 0.5 --count
    PYTHONPATH=. python benchmarks/pokec_synthetic.py clu_full.txt.gz --closure 0.5
"""
import argparse
import gzip
import time

import numpy as np

POKEC_NODES = 1_632_803
POKEC_ARCS = 30_622_564
POKEC_MAX_OUT = 8_763
POKEC_RECIPROCITY = 0.54


def _draw(rng, cum, size):
    # indices drawn proportional to the weights whose cumulative sum is ``cum``
    return np.searchsorted(cum, rng.random(size) * cum[-1], side="right").astype(np.int32)


def pokec_like(n=POKEC_NODES, m=POKEC_ARCS, reciprocity=POKEC_RECIPROCITY, alpha=2.5,
               max_degree=POKEC_MAX_OUT, random_state=None, chunk=5_000_000, closure=0.0,
               passes=1):
    """Arcs (an (m', 2) int32 array, m' slightly below ``m``) of a synthetic directed network
    with ``n`` nodes, a Pareto(``alpha``) degree spread capped at about ``max_degree`` and a
    share ``reciprocity`` of the arcs in mutual pairs.

    With ``closure`` > 0 a share ``closure`` of the ``m`` arcs is placed by triadic closure
    after the others (see ``closure_arcs``): the network then closes a number of triangles per
    arc that does not fall with ``n``.  ``closure=0`` draws exactly what it drew before the
    option existed (the same random stream).

    Examples
    --------
    >>> arcs = pokec_like(10_000, 187_000, max_degree=200, random_state=1)
    >>> 170_000 < len(arcs) <= 187_000
    True
    >>> clustered = pokec_like(10_000, 187_000, max_degree=200, random_state=1, closure=0.5)
    >>> 170_000 < len(clustered) <= 187_000
    True
    >>> triangles(10_000, arcs), triangles(10_000, clustered)
    (58520, 126829)
    >>> round(clustering(10_000, arcs)[0], 3), round(clustering(10_000, clustered)[0], 3)
    (0.019, 0.124)
    """
    if not 0.0 <= closure < 1.0:
        raise ValueError(f"closure must be in [0, 1), got {closure!r}")
    rng = np.random.default_rng(random_state)
    mean = m / n
    w = (1.0 - rng.random(n)) ** (-1.0 / (alpha - 1.0))
    w = np.minimum(w * mean / w.mean(), max_degree)
    w_out = w * rng.lognormal(0.0, 0.3, n)
    w_in = w * rng.lognormal(0.0, 0.3, n)
    cum_w, cum_out, cum_in = np.cumsum(w), np.cumsum(w_out), np.cumsum(w_in)
    m_base = m if closure == 0 else int(round((1.0 - closure) * m))
    n_mutual = int(round(reciprocity * m_base / 2))
    n_single = m_base - 2 * n_mutual
    keys = []
    for count, tails, heads in ((n_mutual, cum_w, cum_w), (n_single, cum_out, cum_in)):
        for start in range(0, count, chunk):
            k = min(chunk, count - start)
            a, b = _draw(rng, tails, k), _draw(rng, heads, k)
            keep = a != b
            keys.append((a[keep].astype(np.int64) * n + b[keep], count is n_mutual))
    mutual = np.unique(np.concatenate([k for k, mut in keys if mut] or [np.zeros(0, np.int64)]))
    # a mutual dyad is one unordered pair: both orientations, each pair once
    lo, hi = np.minimum(mutual // n, mutual % n), np.maximum(mutual // n, mutual % n)
    mutual = np.unique(lo * n + hi)
    single = np.concatenate([k for k, mut in keys if not mut] or [np.zeros(0, np.int64)])
    del keys
    all_keys = np.unique(np.concatenate([mutual, (mutual % n) * n + mutual // n, single]))
    del mutual, single
    if closure > 0:
        all_keys = closure_arcs(rng, n, all_keys, cum_out, m, reciprocity, chunk, passes)
    return np.stack([all_keys // n, all_keys % n], axis=1).astype(np.int32)


def closure_arcs(rng, n, keys, cum_out, m, reciprocity, chunk=5_000_000, passes=1,
                 top_ups=3):
    """The sorted unique arc keys (tail * n + head) of ``keys`` plus arcs placed by triadic
    closure until there are about ``m``: a tail i drawn by its out-weight (``cum_out``), a
    random out-neighbour j of i and a random out-neighbour k of j, and the arc i -> k; a share
    ``reciprocity`` of these arcs come as mutual pairs (k -> i too).  Loops and arcs already
    present are dropped.  The closure arcs are placed in ``passes`` equal parts, each walking
    the network as the earlier parts left it (so later closures can close several triangles
    at once), and the last part's shortfall is drawn again up to ``top_ups`` times.  Each node
    thus closes a number of two-paths proportional to its weight, whatever ``n``.  Vectorised
    in chunks of ``chunk`` draws."""
    start_count = len(keys)
    for p in range(passes + top_ups):
        target = m if p >= passes - 1 else start_count + (m - start_count) * (p + 1) // passes
        short = target - len(keys)
        if short <= 0.001 * m:
            if p >= passes - 1:
                break
            continue
        heads = (keys % n).astype(np.int32)
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(keys // n, minlength=n), out=indptr[1:])
        deg = np.diff(indptr)
        # arcs to draw this pass: mutual pairs count twice
        n_pairs = int(round(reciprocity * short / 2))
        n_draw = short - n_pairs
        extra = [keys]
        for start in range(0, n_draw, chunk):
            k = min(chunk, n_draw - start)
            # the first n_pairs draws of the pass become mutual pairs
            mutual = start + np.arange(k) < n_pairs
            i = _draw(rng, cum_out, k)
            ok = deg[i] > 0
            i, mutual = i[ok], mutual[ok]
            j = heads[indptr[i] + (rng.random(len(i)) * deg[i]).astype(np.int64)]
            ok = deg[j] > 0
            i, j, mutual = i[ok], j[ok], mutual[ok]
            h = heads[indptr[j] + (rng.random(len(j)) * deg[j]).astype(np.int64)]
            ok = h != i
            i, h, mutual = i[ok].astype(np.int64), h[ok].astype(np.int64), mutual[ok]
            extra.append(i * n + h)
            extra.append(h[mutual] * n + i[mutual])
        del heads, indptr, deg
        keys = np.unique(np.concatenate(extra))
        del extra
    return keys


def describe(n, arcs):
    """Nodes, arcs, mean / max out- and in-degree and reciprocity (share of arcs reciprocated)."""
    key = arcs[:, 0].astype(np.int64) * n + arcs[:, 1]
    rev = arcs[:, 1].astype(np.int64) * n + arcs[:, 0]
    recip = np.isin(rev, key, assume_unique=True).mean() if len(arcs) else 0.0
    out_d = np.bincount(arcs[:, 0], minlength=n)
    in_d = np.bincount(arcs[:, 1], minlength=n)
    return {"nodes": n, "arcs": len(arcs), "mean_out_degree": len(arcs) / n,
            "max_out_degree": int(out_d.max()), "max_in_degree": int(in_d.max()),
            "isolates": int(((out_d + in_d) == 0).sum()), "reciprocity": float(recip)}


def _undirected(n, arcs):
    """The simple undirected graph of ``arcs`` (a pair joined if an arc joins it either way):
    its sorted unique keys lo * n + hi."""
    a, b = arcs[:, 0].astype(np.int64), arcs[:, 1].astype(np.int64)
    return np.unique(np.minimum(a, b) * n + np.maximum(a, b))


def triangles(n, arcs, block_wedges=20_000_000):
    """Undirected triangles of ``arcs`` (each triple of nodes joined pairwise, in either
    direction, counted once): each edge oriented from the lower to the higher (degree, id)
    rank, then for row blocks of that orientation L, sum((L_rows @ L) * L_rows), the blocks
    cut at about ``block_wedges`` oriented two-paths (scipy sparse; O(sum of oriented
    out-degree squared)).  At Pokec's size about a minute.

    >>> triangles(4, np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 2]]))
    1
    """
    import scipy.sparse as sp
    key = _undirected(n, arcs)
    u, v = key // n, key % n
    del key
    deg = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
    rank = np.empty(n, np.int64)
    rank[np.lexsort((np.arange(n), deg))] = np.arange(n)
    ru, rv = rank[u], rank[v]
    del u, v, rank
    lo, hi = np.minimum(ru, rv), np.maximum(ru, rv)
    del ru, rv
    L = sp.csr_matrix((np.ones(len(lo), np.int32), (lo, hi)), shape=(n, n))
    del lo, hi
    L.sum_duplicates()
    out = np.diff(L.indptr)
    wedges = np.zeros(n + 1)
    np.cumsum(np.bincount(np.repeat(np.arange(n), out), weights=out[L.indices], minlength=n),
              out=wedges[1:])
    total, start = 0, 0
    while start < n:
        stop = int(np.searchsorted(wedges, wedges[start] + block_wedges, side="right")) - 1
        stop = min(n, max(stop, start + 1))
        rows = L[start:stop]
        total += int((rows @ L).multiply(rows).sum())
        start = stop
    return total


def clustering(n, arcs, sample=20_000, random_state=0):
    """Average local clustering coefficient of the undirected graph of ``arcs`` (nodes of
    degree < 2 count as 0, as networkx and, as recalled, SNAP's figure) estimated from
    ``sample`` nodes drawn uniformly (all of them when ``sample`` >= n), with its standard
    error; and the transitivity 3 * triangles / connected triples needs ``triangles``.
    Returns (mean, standard error, sum over all nodes of d(d-1)/2)."""
    import scipy.sparse as sp
    key = _undirected(n, arcs)
    u, v = key // n, key % n
    del key
    A = sp.csr_matrix((np.ones(2 * len(u), np.int8), (np.concatenate([u, v]),
                                                      np.concatenate([v, u]))), shape=(n, n))
    del u, v
    deg = np.diff(A.indptr)
    pairs = float((deg * (deg - 1.0) / 2).sum())
    rng = np.random.default_rng(random_state)
    nodes = np.arange(n) if sample >= n else rng.choice(n, sample, replace=False)
    mark = np.zeros(n, bool)
    c = np.zeros(len(nodes))
    for x, i in enumerate(nodes):
        d = deg[i]
        if d < 2:
            continue
        nb = A.indices[A.indptr[i]:A.indptr[i + 1]]
        mark[nb] = True
        t = mark[A[nb].indices].sum() / 2.0
        mark[nb] = False
        c[x] = t / (d * (d - 1) / 2.0)
    se = c.std(ddof=1) / np.sqrt(len(c)) if sample < n else 0.0
    return float(c.mean()), float(se), pairs


def write_snap(path, n, arcs, comment):
    """Write ``arcs`` in SNAP's edge-list format (1-based ids, as SNAP's Pokec file)."""
    # formatted a million lines at a time and gzip level 6: the same bytes as np.savetxt's
    # "%d\t%d" lines, 3x less CPU than savetxt into gzip's default level 9 (about 45 against
    # 130 CPU s at Pokec's size)
    with (gzip.open(path, "wb", compresslevel=6) if str(path).endswith(".gz")
          else open(path, "wb")) as fh:
        fh.write(f"# {comment}\n# Nodes: {n} Edges: {len(arcs)}\n# FromNodeId\tToNodeId\n"
                 .encode())
        for start in range(0, len(arcs), 1_000_000):
            rows = (arcs[start:start + 1_000_000].astype(np.int64) + 1).tolist()
            fh.write("".join(["%d\t%d\n" % (t, h) for t, h in rows]).encode())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="SNAP edge list to write (.txt or .txt.gz)")
    ap.add_argument("--fraction", type=float, default=1.0,
                    help="share of Pokec's nodes and arcs (the mean degree is kept)")
    ap.add_argument("--reciprocity", type=float, default=POKEC_RECIPROCITY)
    ap.add_argument("--alpha", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--closure", type=float, default=0.0, metavar="SHARE",
                    help="share of the arcs placed by triadic closure (default 0: Chung-Lu "
                         "only, the network drawn before this option existed)")
    ap.add_argument("--count", action="store_true",
                    help="also print the undirected triangles, the transitivity and the "
                         "average clustering (from 20,000 nodes)")
    args = ap.parse_args()
    if not 0 <= args.closure < 1:
        ap.error("--closure must be in [0, 1)")
    if not 0 < args.fraction <= 1:
        ap.error("--fraction must be in (0, 1]")
    n = int(round(POKEC_NODES * args.fraction))
    m = int(round(POKEC_ARCS * args.fraction))
    t0 = time.process_time()
    arcs = pokec_like(n, m, args.reciprocity, args.alpha,
                      max(10.0, POKEC_MAX_OUT * args.fraction ** 0.5), args.seed,
                      closure=args.closure)
    print(f"drawn in {time.process_time() - t0:.1f} CPU s:", describe(n, arcs), flush=True)
    comment = f"synthetic Pokec-like network, fraction {args.fraction}, seed {args.seed}"
    if args.closure:
        comment += f", closure {args.closure}"
    write_snap(args.out, n, arcs, comment + " (benchmarks/pokec_synthetic.py)")
    print("wrote", args.out, flush=True)
    if args.count:
        t0 = time.process_time()
        tri = triangles(n, arcs)
        sample = min(n, 20_000)
        mean, se, pairs = clustering(n, arcs, sample=sample)
        print(f"undirected triangles {tri:,}, transitivity (3 triangles / connected triples) "
              f"{3 * tri / pairs:.5f}, average clustering {mean:.4f} (s.e. {se:.4f}, "
              f"{'all' if sample == n else f'{sample:,} of the'} nodes) in "
              f"{time.process_time() - t0:.1f} CPU s", flush=True)


if __name__ == "__main__":
    main()
