"""EE fit of a Pokec-sized directed network, checkpointed and resumable (issue #35 item 2).

    PYTHONPATH=. python benchmarks/pokec_run.py EDGES [--checkpoint DIR] [--resume]
        [--formula F] [--ee-steps 200] [--seed 1] [--stats-only]

``EDGES`` is a SNAP edge list (``# comments``, then ``tail<TAB>head`` per line; .gz read
directly): the real ``soc-pokec-relationships.txt.gz`` or one written by
``benchmarks/pokec_synthetic.py``.  The node ids are relabelled 0..n-1 in sorted order.
The run prints CPU seconds and peak memory per phase (read, model and observed statistics,
EE with its start) and the memory per arc; with ``--checkpoint DIR`` EE saves its state every
``--checkpoint-every`` seconds, and ``--resume`` continues the run saved there (after a crash
or a Ctrl-C) with the settings it was started with.

The default model is the issue's: ``Arc + Reciprocity + AltInStars + AltOutStars +
AltKTrianglesT + AltTwoPathsT``.  Above 2^20 nodes (and wherever the held two-path counts
would take more than ``--cache-memory`` bytes) the kernels count two-paths on demand.
Do not run the full size on a shared machine: it is a day-long job on 2 cores.
"""
import argparse
import os
import resource
import time
import warnings

import numpy as np

FORMULA = "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT"


def peak_mb():
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def read_snap(path):
    """(n, arcs as an (m, 2) int64 array of 0-based ids, the original ids) of a SNAP edge list."""
    import pandas as pd
    df = pd.read_csv(path, sep=r"\s+", comment="#", header=None, names=["tail", "head"],
                     dtype=np.int64, engine="c")
    arcs = df.to_numpy()
    del df
    ids, inv = np.unique(arcs, return_inverse=True)
    return len(ids), inv.reshape(arcs.shape).astype(np.int64), ids


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("edges")
    ap.add_argument("--formula", default=FORMULA)
    ap.add_argument("--checkpoint", default=None, metavar="DIR")
    ap.add_argument("--checkpoint-every", type=float, default=600.0, metavar="SECONDS")
    ap.add_argument("--resume", action="store_true", help="continue the run saved in --checkpoint")
    ap.add_argument("--ee-steps", type=int, default=200)
    ap.add_argument("--sampler-steps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache-memory", type=int, default=None, metavar="BYTES")
    ap.add_argument("--stats-only", action="store_true",
                    help="stop after the observed statistics (memory per arc of the set-up)")
    args = ap.parse_args()
    if args.resume and not args.checkpoint:
        ap.error("--resume needs --checkpoint DIR")
    import ergmfit as ef
    if args.cache_memory is not None:
        from ergmfit.network import set_cache_memory
        set_cache_memory(args.cache_memory)
    base_mb = peak_mb()
    t0 = time.process_time()
    n, arcs, _ = read_snap(args.edges)
    net = ef.Network(n, arcs, True)
    del arcs
    t_read = time.process_time() - t0
    m = net.num_ties if hasattr(net, "num_ties") else len(net.ties)
    print(f"read {net} in {t_read:.1f} CPU s; peak {peak_mb():.0f} MB", flush=True)
    model = ef.ERGM(net, args.formula)
    t1 = time.process_time()
    stats = model.statistics_vector()
    t_stats = time.process_time() - t1
    print(f"observed statistics in {t_stats:.1f} CPU s; peak {peak_mb():.0f} MB "
          f"({(peak_mb() - base_mb) * 2**20 / m:.0f} bytes per arc above the interpreter's "
          f"{base_mb:.0f} MB)", flush=True)
    for lab, v in zip(model.stat_labels, stats):
        print(f"  {lab:<22} {v:,.2f}")
    if args.stats_only:
        return
    kw = dict(method="ee", verbose=True)
    if args.checkpoint:
        kw.update(checkpoint=args.checkpoint, checkpoint_every=args.checkpoint_every)
    if args.resume:
        kw["resume"] = args.checkpoint
    else:
        kw.update(random_state=args.seed, ee_steps=args.ee_steps, n_chains=1, n_jobs=1,
                  proposal="ifd", sampler_steps=args.sampler_steps)
    t2 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(**kw)
    t_fit = time.process_time() - t2
    loop = sum(fit.info["cpu_seconds_ee"])
    print(fit.summary())
    rate = (f"{fit.info['proposals_per_cpu_second']:,.0f} proposals per CPU s" if loop > 0.5
            else "no EE iterations left to run")
    print(f"fit {t_fit:.1f} CPU s, of which the EE loop {loop:.1f} s ({rate}); converged: "
          f"{fit.converged}; peak {peak_mb():.0f} MB = "
          f"{(peak_mb() - base_mb) * 2**20 / m:.0f} bytes per arc")
    if args.checkpoint:
        print("checkpoint:", os.path.abspath(args.checkpoint))


if __name__ == "__main__":
    main()
