"""EE fit of a Pokec-sized directed network, checkpointed and resumable (issue #35 item 2).

    PYTHONPATH=. python benchmarks/pokec_run.py EDGES [--checkpoint DIR] [--resume]
        [--formula F] [--ee-steps 500] [--seed 1] [--stats-only]

``EDGES`` is a SNAP edge list (``# comments``, then ``tail<TAB>head`` per line; .gz read
directly): the real ``soc-pokec-relationships.txt.gz`` or one written by
``benchmarks/pokec_synthetic.py``.  The node ids are relabelled 0..n-1 in ascending order.

The run prints, per phase, CPU seconds and peak memory: the read, the model and its observed
statistics, the EE set-up (the chain's network state and Algorithm S, measured as the CPU
before the first outer iteration's report less that iteration), then one line per outer
iteration (``outer``: its CPU seconds, proposals per CPU s, θ and the dzA of its last inner
iteration) and at the end the summary with the convergence t-ratios.  Redirect it to a log.

With ``--checkpoint DIR`` EE saves its state every ``--checkpoint-every`` seconds (wall), and
``--resume`` continues the run saved there with the settings it was started with (the
trajectory goes on; the MH sampler draws a new stream).  The observed statistics are saved in
``DIR/observed_statistics.json`` with the SHA-256 of the relabelled tie array: a resumed run
on the same file takes them from there instead of counting them again (at Pokec's size they
cost as much as millions of EE proposals, see docs/guide/large_networks.md).  Ctrl-C, or
``kill -INT`` / ``kill -TERM`` of the Python process, stops EE after its current outer
iteration with a checkpoint written.

EE's settings are EstimNetDirected's (500 outer x 100 inner iterations of 1,000 proposals,
IFD, the Borisenko update) except the learning rate, whose "auto" value beyond 10^6 ties is
min(0.001, 1,000 / ties) (EE's ``sweep_step``; 3.3e-5 at Pokec's size, where 0.001 diverges):
``--learning-rate`` sets it.  ``--init FILE`` starts at the estimate another run saved with
``--save-estimate FILE`` (a fit of a smaller network drawn the same way), with Arc shifted by
the log of the density ratio and Reciprocity by its opposite (a mutual pair's log-odds kept);
``--init mple`` starts at the MPLE instead of Algorithm S (better from far; it needs every
arc's change statistics, cheap at 1 % of Pokec's size).  ``--stop-when-converged`` ends the
run at EE's own criterion, not before ``--min-ee-steps`` outer iterations; ``--burnin`` is
EE's.

The default model is the issue's: ``Arc + Reciprocity + AltInStars + AltOutStars +
AltKTrianglesT + AltTwoPathsT``.  Above 2^20 nodes (and wherever the held two-path counts
would take more than the cache budget, ``--cache-memory`` bytes or "auto") the kernels count
two-paths on demand.  The full size is a day-long job on 2 cores: run it under ``nice`` with
a memory cap (``prlimit --as=12000000000``), resume it across sessions.
"""
import argparse
import hashlib
import json
import math
import os
import resource
import signal
import time
import warnings

import numpy as np

FORMULA = "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT"
OBSERVED_FILE = "observed_statistics.json"


def peak_mb():
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def snap_nodes(path):
    """The node count of a SNAP file's ``# Nodes: N`` header line (None without one)."""
    import gzip
    import re
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as fh:
        for line in fh:
            if not line.startswith("#"):
                return None
            found = re.search(r"Nodes:\s*(\d+)", line)
            if found:
                return int(found.group(1))
    return None


def read_snap(path):
    """(n, arcs as a C-ordered (m, 2) int64 array of 0-based ids, the node labels ascending)
    of a SNAP edge list.

    Without a ``# Nodes: N`` header the nodes are the ids the arcs name, relabelled 0..n-1 in
    ascending order.  With one, the network has N nodes, isolates included (a node no arc names
    is still a node of SNAP's network and of the model's statistics, e.g. AltTwoPathsT's pairs):
    when the arcs name fewer than N ids, the ids are taken as SNAP numbers them, 1..N (Pokec's
    ``soc-pokec-relationships``), or 0..N-1 if id 0 occurs, and node k is id k + 1 (or k).  A
    header smaller than the ids the arcs name, or ids outside that range, is an error.

    The ids are relabelled in place through a presence map of the largest id
    (``ergmfit.datasets._relabel_in_place``), not by ``np.unique``'s sorted copies: at
    Pokec's size the read peaks near the tie array's own 0.5 GB plus pandas' columns."""
    import pandas as pd
    from ergmfit.datasets import _relabel_in_place
    declared = snap_nodes(path)
    df = pd.read_csv(path, sep="\t", comment="#", header=None, names=["tail", "head"],
                     dtype=np.int64, engine="c")
    arcs = np.empty((len(df), 2), dtype=np.int64)
    arcs[:, 0] = df["tail"].to_numpy()
    arcs[:, 1] = df["head"].to_numpy()
    del df
    if arcs.size and arcs.min() < 0:
        raise ValueError(f"{path}: a negative node id ({int(arcs.min())})")
    n, arcs, ids = _relabel_in_place(arcs)
    if declared is None or declared == n:
        return n, arcs, ids
    if declared < n:
        raise ValueError(f"{path}: its header says '# Nodes: {declared}' but its arcs name "
                         f"{n:,} distinct nodes")
    base = 0 if ids[0] == 0 else 1
    if ids[-1] > declared - 1 + base:
        raise ValueError(f"{path}: its header says '# Nodes: {declared}' (ids {base}.."
                         f"{declared - 1 + base}, isolates being the ids no arc names) but an "
                         f"arc names id {ids[-1]}")
    shift = np.asarray(ids, dtype=np.int64) - base       # rank -> node
    for a in range(0, len(arcs), 1 << 16):
        arcs[a:a + (1 << 16)] = shift[arcs[a:a + (1 << 16)]]
    return declared, arcs, list(range(base, declared + base))


def pokec_statistics(n, arcs, lam=2.0, block_paths=5e7, progress=None):
    """The observed statistics of the default model (``FORMULA``, decay ``lam``) counted by
    sparse matrix products: each block of rows i of the adjacency A times A gives the two-path
    counts L2(i, j) of those rows (blocks of about ``block_paths`` two-paths, so memory stays
    near 1 GB), summed through f(c) = lam (1 - (1 - 1/lam)^c): AltTwoPathsT over the pairs
    i != j, AltKTrianglesT over the arcs.  O(two-paths) work at about 30 ns each (1% of
    Pokec's size: 0.75 CPU s, against 10.8 s for the kernels' tie-by-tie count with two-paths
    on demand); equal to the kernels' values (tests/estimation/ee/test_ee_large_setup.py).
    ``progress``: a JSON file where the sums so far are saved after each block and from which
    a stopped count goes on (it belongs to one tie array: its SHA-256 is checked)."""
    import scipy.sparse as sp
    m = len(arcs)
    A = sp.csr_matrix((np.ones(m, np.int32), (arcs[:, 0], arcs[:, 1])), shape=(n, n))
    AT = A.T.tocsr()
    mutual = A.multiply(AT).tocsr()
    d_out, d_in, d_mut = np.diff(A.indptr), np.diff(AT.indptr), np.diff(mutual.indptr)
    n_mutual = mutual.nnz // 2
    del AT, mutual
    q = 1.0 - 1.0 / lam

    def alt_stars(d):
        d = d.astype(float)
        return float(np.sum(lam * d - lam * lam * (1.0 - q ** d)))
    paths = np.zeros(n)
    active = d_out > 0
    if m:
        paths[active] = np.add.reduceat(d_out[A.indices], A.indptr[:-1][active])
    f = lam * (1.0 - q ** np.arange(int(max(d_out.max(initial=0), d_in.max(initial=0))) + 2))
    cum = np.cumsum(paths)
    k_triangles = two_paths = 0.0
    start = 0
    digest = tie_digest(arcs) if progress else None
    if progress and os.path.exists(progress):
        with open(progress) as fh:
            saved = json.load(fh)
        if saved.get("ties_sha256") == digest and saved.get("block_paths") == block_paths:
            start, k_triangles, two_paths = (int(saved["start"]), float(saved["k_triangles"]),
                                             float(saved["two_paths"]))
    while start < n:
        stop = max(int(np.searchsorted(cum, (cum[start - 1] if start else 0.0) + block_paths,
                                       "right")), start + 1)
        rows = A[start:stop]
        counts = rows @ A
        two_paths += float(f[counts.data].sum())
        k_triangles += float(f[counts.multiply(rows).data].sum())
        start = stop
        if progress:
            tmp = progress + ".tmp"
            with open(tmp, "w") as fh:
                json.dump({"ties_sha256": digest, "block_paths": block_paths, "start": start,
                           "k_triangles": k_triangles, "two_paths": two_paths}, fh)
            os.replace(tmp, progress)
    two_paths -= float(f[d_mut].sum())      # i -> k -> i joins no pair of two nodes
    return np.array([m, n_mutual, alt_stars(d_in), alt_stars(d_out), k_triangles, two_paths])


def tie_digest(ties):
    """SHA-256 of a tie array's bytes (what the saved observed statistics belong to)."""
    return hashlib.sha256(np.ascontiguousarray(ties, dtype=np.int64).data).hexdigest()


def saved_observed(directory, model, digest):
    """The observed statistics saved in ``directory`` for this formula and tie array, or None."""
    path = os.path.join(directory, OBSERVED_FILE)
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        saved = json.load(fh)
    if saved.get("ties_sha256") != digest or saved.get("stat_labels") != model.stat_labels:
        return None
    values = np.asarray(saved["values"], dtype=float)
    return values if values.shape == (len(model.stat_labels),) else None


def save_observed(directory, model, digest, values):
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, "." + OBSERVED_FILE + ".tmp")
    with open(tmp, "w") as fh:
        json.dump({"ties_sha256": digest, "stat_labels": list(model.stat_labels),
                   "formula": model.formula, "values": [float(v) for v in values]}, fh)
    os.replace(tmp, os.path.join(directory, OBSERVED_FILE))


class OuterLog:
    """EE's callback: one line per outer iteration (CPU s, proposals per CPU s, θ, dzA)."""

    def __init__(self, proposals_per_outer, t_fit):
        self.per_outer = proposals_per_outer
        self.t_fit = t_fit
        self.last = None
        self.first_report = None

    def __call__(self, info):
        now = time.process_time()
        if self.last is None:
            self.first_report = now - self.t_fit
            cpu = float("nan")          # the first one includes the set-up (see main)
        else:
            cpu = now - self.last
        self.last = now
        rate = self.per_outer / cpu if cpu > 0 else float("nan")
        th = " ".join(f"{v:.5g}" for v in info["theta"])
        dz = " ".join(f"{v:.4g}" for v in info["dzA"])
        print(f"outer {info['outer']}/{info['n_outer']} cpu {cpu:.1f} s rate {rate:,.0f}/cpu-s "
              f"acc {info['acceptance']:.3f} rss {peak_mb():.0f} MB theta [{th}] dzA [{dz}]",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("edges")
    ap.add_argument("--formula", default=FORMULA)
    ap.add_argument("--checkpoint", default=None, metavar="DIR")
    ap.add_argument("--checkpoint-every", type=float, default=600.0, metavar="SECONDS")
    ap.add_argument("--resume", action="store_true", help="continue the run saved in --checkpoint")
    ap.add_argument("--ee-steps", type=int, default=500,
                    help="outer iterations (EstimNetDirected's default EEsteps, 500)")
    ap.add_argument("--sampler-steps", default="1000",
                    help="proposals per EE iteration: a number or 'auto' (EE's sampler_steps)")
    ap.add_argument("--learning-rate", type=float, default=None,
                    help="a of the Borisenko update (EE's learning_rate; default 'auto')")
    ap.add_argument("--burnin", type=float, default=None,
                    help="EE's burnin: a fraction in [0, 1) or iterations (default 'auto')")
    ap.add_argument("--stop-when-converged", action="store_true",
                    help="stop at EE's own convergence criterion (stop_when_converged)")
    ap.add_argument("--min-ee-steps", type=int, default=None, metavar="OUTER",
                    help="outer iterations before --stop-when-converged may stop (EE's "
                         "min_ee_steps, default 'auto': until the kept iterations span 100 "
                         "outer ones)")
    ap.add_argument("--init", default=None, metavar="JSON",
                    help="start at the estimate saved by --save-estimate of another run (a "
                         "smaller sample's fit): EE's init=values; or 'mple' (EE's "
                         "init='mple': the pseudo-likelihood estimate instead of Algorithm S)")
    ap.add_argument("--save-estimate", default=None, metavar="JSON",
                    help="write the estimate, its labels and the run's figures to this file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache-memory", type=int, default=None, metavar="BYTES")
    ap.add_argument("--sparse-statistics", action="store_true",
                    help="count the default formula's observed statistics by blocked sparse "
                         "products (pokec_statistics; an independent check, slower) instead of "
                         "ERGM.statistics_vector")
    ap.add_argument("--stats-only", action="store_true",
                    help="stop after the observed statistics (memory per arc of the set-up)")
    args = ap.parse_args()
    if args.resume and not args.checkpoint:
        ap.error("--resume needs --checkpoint DIR")
    if args.sparse_statistics and args.formula != FORMULA:
        ap.error("--sparse-statistics counts the default formula only")
    # a background job of a non-interactive shell starts with SIGINT ignored: make Ctrl-C,
    # kill -INT and kill -TERM stop EE cleanly (after its outer iteration, checkpointed)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    import ergmfit as ef
    if args.cache_memory is not None:
        from ergmfit.network import set_cache_memory
        set_cache_memory(args.cache_memory)
    from ergmfit.network._state import cache_budget
    base_mb = peak_mb()
    t0 = time.process_time()
    n, arcs, _ = read_snap(args.edges)
    t_read = time.process_time() - t0
    net = ef.Network(n, arcs, True)
    del arcs
    t_net = time.process_time() - t0 - t_read
    m = net.n_ties
    print(f"read {net} in {t_read:.1f} CPU s, Network in {t_net:.1f} CPU s; peak "
          f"{peak_mb():.0f} MB; two-path count budget {cache_budget(n, m, True) / 2**30:.2f} GiB "
          f"({'on demand: more than 2^20 nodes' if n > 2**20 else 'held if they fit'})",
          flush=True)
    t1 = time.process_time()
    model = ef.ERGM(net, args.formula)
    t_model = time.process_time() - t1
    digest = tie_digest(net.ties)
    stats = saved_observed(args.checkpoint, model, digest) if args.checkpoint else None
    t1 = time.process_time()
    if stats is not None:
        # the memo statistics_vector() keeps (ERGM.statistics_vector), filled from the file
        # whose tie digest matched: EE's start and its checkpoint's checks read it
        model._remember_observed_statistics(stats)
        how = f"read from {os.path.join(args.checkpoint, OBSERVED_FILE)} (tie SHA-256 matched)"
    elif args.sparse_statistics:
        if args.checkpoint:
            os.makedirs(args.checkpoint, exist_ok=True)
        stats = pokec_statistics(n, net.ties, progress=os.path.join(
            args.checkpoint, "observed_statistics.partial.json") if args.checkpoint else None)
        model._remember_observed_statistics(stats)
        how = "counted by sparse products (pokec_statistics)"
        if args.checkpoint:
            save_observed(args.checkpoint, model, digest, stats)
    else:
        stats = model.statistics_vector()
        how = ("counted by ERGM.statistics_vector (the alternating terms by whole-network "
               "counts, ergmfit.terms.wholecount)")
        if args.checkpoint:
            save_observed(args.checkpoint, model, digest, stats)
    t_stats = time.process_time() - t1
    print(f"model built in {t_model:.1f} CPU s; observed statistics {how} in {t_stats:.1f} CPU s; "
          f"peak {peak_mb():.0f} MB ({(peak_mb() - base_mb) * 2**20 / m:.0f} bytes per arc above "
          f"the interpreter's {base_mb:.0f} MB)", flush=True)
    for lab, v in zip(model.stat_labels, stats):
        print(f"  {lab:<22} {v:,.2f}")
    if args.stats_only:
        return
    kw = dict(method="ee", verbose=False)
    if args.checkpoint:
        kw.update(checkpoint=args.checkpoint, checkpoint_every=args.checkpoint_every)
    if args.resume:
        kw["resume"] = args.checkpoint
        with open(os.path.join(args.checkpoint, "meta.json")) as fh:
            steps = int(json.load(fh)["cfg"].get("sampler_steps", args.sampler_steps))
    else:
        steps = args.sampler_steps if args.sampler_steps == "auto" else int(args.sampler_steps)
        kw.update(random_state=args.seed, ee_steps=args.ee_steps, n_chains=1, n_jobs=1,
                  proposal="ifd", sampler_steps=steps)
        if args.learning_rate is not None:
            kw["learning_rate"] = args.learning_rate
        if args.burnin is not None:
            kw["burnin"] = args.burnin if args.burnin < 1 else int(args.burnin)
        if args.stop_when_converged:
            kw["stop_when_converged"] = True
        if args.min_ee_steps is not None:
            kw["min_ee_steps"] = args.min_ee_steps
        if args.init == "mple":
            kw["init"] = "mple"
        elif args.init:
            with open(args.init) as fh:
                saved = json.load(fh)
            if saved["labels"] != list(model.labels):
                ap.error(f"{args.init} holds an estimate of {saved['labels']}, not of "
                         f"{list(model.labels)}")
            init = [float(v) for v in saved["theta"]]
            if saved.get("n") and saved.get("arcs") and "edges" in saved["labels"]:
                # Arc shifted for density: θ_Arc - log(density) is what carries over between
                # sizes of one mean degree (IFD then starts V there; see large_networks.md)
                k = saved["labels"].index("edges")
                shift = math.log((m / (n * (n - 1.0)))
                                 / (saved["arcs"] / (saved["n"] * (saved["n"] - 1.0))))
                init[k] += shift
                # a mutual pair's odds θ_Arc + θ_Reciprocity kept: Reciprocity the other way
                if "mutual" in saved["labels"]:
                    init[saved["labels"].index("mutual")] -= shift
                print(f"start: {args.init} (n {saved['n']:,}, {saved['arcs']:,} arcs), Arc "
                      f"shifted by log(density ratio) {shift:+.3f}, Reciprocity by "
                      f"{-shift:+.3f}", flush=True)
            kw["init"] = init
        from ergmfit.estimation.ee.estimator import EE as _EE
        steps = _EE(**{k: v for k, v in kw.items() if k in _EE.chain_defaults()}
                    ).resolved_settings(model)["sampler_steps"]
        print(f"EE settings: sampler_steps {steps}", flush=True)
    from ergmfit.estimation.ee.estimator import EE
    t2 = time.process_time()
    log = OuterLog(steps * EE.chain_defaults()["ee_inner_steps"], t2)
    kw["callback"] = log
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = model.fit(**kw)
    except KeyboardInterrupt:
        print(f"interrupted before EE's first outer iteration finished, after "
              f"{time.process_time() - t2:.1f} CPU s: nothing of the chain to save "
              f"(the observed statistics are saved); start again", flush=True)
        raise SystemExit(130)
    t_fit = time.process_time() - t2
    loop = sum(fit.info["cpu_seconds_ee"])
    print(fit.summary())
    print(f"EE set-up (state, Algorithm S) and first outer iteration: "
          f"{log.first_report if log.first_report is not None else float('nan'):.1f} CPU s")
    print(f"fit {t_fit:.1f} CPU s, of which the EE loop {loop:.1f} s this session; converged: "
          f"{fit.converged}; interrupted: {fit.info.get('interrupted')}; peak {peak_mb():.0f} MB "
          f"= {(peak_mb() - base_mb) * 2**20 / m:.0f} bytes per arc", flush=True)
    if args.checkpoint:
        print("checkpoint:", os.path.abspath(args.checkpoint))
    if args.save_estimate:
        with open(args.save_estimate, "w") as fh:
            json.dump({"labels": list(model.labels), "theta": [float(v) for v in fit.params],
                       "converged": bool(fit.converged), "n": int(n), "arcs": int(m),
                       "t_ratios": fit.info.get("t_ratios"),
                       "proposals": fit.info.get("proposals"),
                       "iterations": fit.info.get("iterations"),
                       "cpu_seconds_ee": fit.info.get("cpu_seconds_ee"),
                       "settings": {k: v for k, v in fit.info["settings"].items()
                                    if isinstance(v, (int, float, str, type(None)))}}, fh,
                      indent=1)


if __name__ == "__main__":
    main()
