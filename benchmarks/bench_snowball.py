"""Snowball conditional estimation (issue #35 item 3), run by hand.

    python benchmarks/bench_snowball.py synthetic [--seeds 1 2 3]
    python benchmarks/bench_snowball.py epinions [--samples 10 --n-seeds 20 --waves 2
                                                  --random-states 1 2 --method ee|mple
                                                  --model 4|6 --full-mple SEED
                                                  --workers 2 --dask-repeats 2 --timing-only]
    python benchmarks/bench_snowball.py directed [--n 10000 --theta=-7,-0.3,-0.3,2.0
                                                  --designs 10x20x2 10x5x3 --random-states 1 2
                                                  --methods mple ee --ee-steps 40 --full-ee-fit]
    python benchmarks/bench_snowball.py directed --timing-only --designs 20x5x3
                                                  --ee-steps 40 --dask-repeats 3
    python benchmarks/bench_snowball.py directed --start NET.pkl --burnin 0 ...
    python benchmarks/bench_snowball.py full --model 6 --ee-steps 150 --chains 2 --jobs 2
                                             --save FIT.pkl   (checkpoint FIT.pkl.ckpt)

``--ee-steps 200`` (20,000 iterations) lets a small sample's conditional EE finish relaxing
after the learning rate drops to 0.001 (about 1,000 iterations); at 40 (4,000 iterations) the
kept window still holds that relaxation and EE rightly says "not converged"
(``docs/guide/snowball.md``, "EE's convergence call on small conditional fits").
``--start`` starts the chain from a saved network (a pickle of (ties, n)) instead of the empty
one; with ``--burnin 0`` that network is the one sampled.

    python benchmarks/bench_snowball.py hubs --theta=-10.78,1.635,1.682,0.508 --burnin 1000000
                                             --designs 10x20x2 --random-states 1 2 --methods mple

``hubs`` checks the method around hubs: Epinions' own snowball samples, every sample's free
dyads redrawn from the conditional model at ``--theta`` (``--burnin`` proposals of the
snowball sampler from the observed sample), fitted back conditionally and combined against
theta; and the change statistics of the first two samples' free dyads against the whole
network's.

``full`` fits the whole Epinions network by EE with ``--model`` (EstimNet's schedule of
``bench_ee.py epinions``), checkpointed and resumable; the saved fit is a ``--full-ee``
reference for ``epinions``.

``--timing-only`` (``directed``) runs 1 and 2 workers each on a fresh ``LocalCluster`` (one
worker too, so both pay a fresh worker's costs), in interleaved rounds (1, 2 / 2, 1 / ...), and
prints the CPU s of the fits and of the whole worker processes per worker beside the wall time.
It first says how many of the design's samples have a conditional MPLE (EE's start): a sample
without one stops at once and is left out, so the timing measures the others only.  On the
default network (10,000 nodes, 2 x 10^7 proposals: session 16's, ``docs/guide/snowball.md``)
design 20x5x3 gives 20 of 20 at random states 1 and 2; the papers' 20x20x2 gives 15 and 19 (its
two-wave samples' free ties often close no transitive two-path: AltKTrianglesT at its least over
the sample's space, no conditional MLE); a 3,000-node network drawn with 4 x 10^6 proposals (the
defaults before session 21) has 19 transitive triangles in all and gives 5 of 20.

``directed`` is issue #35's check on a network whose theta is known: the Epinions
model (``--model``) simulated on ``--n`` nodes (default 10,000) from ``--theta`` (from the empty
network, ``--burnin`` proposals, default 2 x 10^7; 13 CPU s), fitted whole (MPLE; EE with ``--full-ee-fit``)
and from snowball samples of every ``--designs`` (SAMPLESxSEEDSxWAVES) and
random state by every ``--methods`` (conditional MPLE, conditional EE from the
MPLE), combined; each combination beside the truth and the whole-network fits
("within": |difference| <= the combined s.e.), for EE also the combination of
every sample with a finite estimate (EE's own criterion leaves out samples whose
|t| is 0.1-0.3), and a count over all cases at the end.  ``--timing-only``
instead times the conditional EE fits of the first design's samples on a dask
``LocalCluster`` with 1 and 2 workers, alternated ``--dask-repeats`` times (wall
time, CPU s per worker, load; the efficiency from both).

``synthetic`` simulates an undirected network of ``--n`` nodes from a known
``edges + gwesp(0.5, fixed=TRUE)`` theta, draws snowball samples, fits each
conditionally by EE and prints the combined estimate, its s.e. and
(estimate - truth) / s.e. for every seed.

``epinions`` fits EstimNetDirected's Epinions specification (``Arc +
AltInStars + AltOutStars + AltKTrianglesT``; ``--model 6`` adds Reciprocity and
AltTwoPathsT, issue #35's model, for which no full-network reference is stored)
from snowball samples of the
papers' design (all seeds drawn at once among all nodes; 10 samples of 20
seeds and 2 waves by default), at every ``--random-states`` value: the sample
and inner-wave sizes, the inner ties that close a transitive two-path (what
AltKTrianglesT learns from), each sample's fit (EE by default, with the
settings of a model of the sample's free size; ``--method mple`` for the
conditional MPLE), the samples left out and why, and the combined estimates
with Cochran's Q and the random-effects (DerSimonian-Laird) combination beside
the full-network EE fits (ergmfit's own, and EstimNetDirected's partial run) and,
with ``--full-mple``, the full-network MPLE, per parameter "within"
(|difference| <= the combined s.e.), "2 se" or "OUT", for both combinations.  Then it times the samples on a dask
``LocalCluster`` (1 thread per worker) with 1 and 2 workers, alternated
``--dask-repeats`` times, printing wall time, CPU seconds per worker, the load
average, and the efficiency T1 / (2 T2) of the medians.  (With one worker joblib takes its
sequential path: the samples run in this process, so T1 is plain serial fitting, without dask's
overhead; the CPU seconds "per worker" are then this process's.)
The figures of the last run are in ``docs/guide/snowball.md`` ("Epinions").
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import ergmfit as ef

ESTIMNET = {  # Epinions, full network, EstimNetDirected EE (bench_ee.py)
    "edges": (-13.837, 0.163),
    "AltInStars(2)": (1.316, 0.066),
    "AltOutStars(2)": (0.991, 0.243),
    "AltKTrianglesT(2)": (3.188, 0.078),
}

# ergmfit's own full-network EE on Epinions, the committed run of
# vignettes/figures/epinions_ee_paper.md (Borisenko et al.'s settings, 500,000 x 1,000 IFD
# proposals; mean over the second half and its Monte-Carlo s.e., not a statistical s.e.;
# AltKTrianglesT still drifts there).  Pass --full-ee PATH for a fit saved by
# `bench_ee.py epinions --save PATH` instead.
ERGMFIT_FULL_EE = {
    "edges": (-13.869, 0.003),
    "AltInStars(2)": (1.347, 0.001),
    "AltOutStars(2)": (1.011, 0.001),
    "AltKTrianglesT(2)": (2.583, 0.004),
}


FORMULAS = {
    # EstimNetDirected's Epinions specification (the full-network references above)
    "4": "Arc + AltInStars + AltOutStars + AltKTrianglesT",
    # issue #35's model (EstimNetDirected's directed structural specification)
    "6": "Arc + Reciprocity + AltInStars + AltOutStars + AltKTrianglesT + AltTwoPathsT",
}


def show(fit, truth=None):
    print(fit.summary())
    if truth is not None:
        for k, lab in enumerate(fit.labels):
            print(f"  {lab:<22} truth {truth[k]:>8.3f}  (est - truth)/se "
                  f"{(fit.params[k] - truth[k]) / fit.bse[k]:>6.2f}")


def run_synthetic(args):
    theta = np.array([args.edges, args.gwesp])
    for seed in args.seeds:
        t0 = time.process_time()
        g0 = ef.ERGM(ef.Network(args.n, np.zeros((0, 2)), False), "edges + gwesp(0.5, fixed=TRUE)")
        g = g0.simulate(theta, n=1, burnin=args.burnin, output="networks", random_state=seed)[0]
        net = ef.as_network(g) if not isinstance(g, ef.Network) else g
        print(f"seed {seed}: simulated {net.n} nodes, {net.n_ties} ties, mean degree "
              f"{2 * net.n_ties / net.n:.2f} in {time.process_time() - t0:.0f} CPU s", flush=True)
        samples = ef.snowball_samples(net, args.samples, n_seeds=args.n_seeds, waves=args.waves,
                                      random_state=seed + 100)
        print("  sample sizes:", [len(s.nodes) for s in samples], flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = ef.fit_snowball(samples, "edges + gwesp(0.5, fixed=TRUE)", method=args.method,
                                  random_state=seed + 200, n_jobs=args.jobs)
        show(fit, theta)
        print(f"  {fit.seconds:.0f} s wall, {fit.cpu_seconds:.0f} CPU s of fits", flush=True)


def _design(samples):
    """Per sample: nodes, inner-wave nodes and their ties, free dyads (the sample's space)."""
    rows = []
    for s in samples:
        last = s.n_waves - 1
        t = np.asarray(s.network.ties, dtype=np.int64).reshape(-1, 2)
        inner = s.zones < last
        free = t[inner[t[:, 0]] & inner[t[:, 1]]]
        # ties among the inner waves that close a two-path i -> w -> j (w anywhere in the
        # sample): those carry AltKTrianglesT's information
        from scipy import sparse
        n = len(s.nodes)
        a = sparse.csr_matrix((np.ones(len(t)), (t[:, 0], t[:, 1])), shape=(n, n))
        rows_i = np.unique(free[:, 0])
        two = (a[rows_i] @ a).tocsr()
        where = np.searchsorted(rows_i, free[:, 0])
        closing = int(sum(two[w, j] > 0 for w, j in zip(where.tolist(), free[:, 1].tolist())))
        rows.append(dict(nodes=n, ties=int(s.network.n_ties), inner=int(inner.sum()),
                         inner_ties=len(free), closing=closing))
    return rows


def _within(d, se):
    return "within" if abs(d) <= se else ("2 se" if abs(d) <= 2 * se else "OUT")


def compare(fit, full, rows_out):
    """The combined estimate (fixed and random effects) beside the full-network fits;
    'within' per parameter (|difference| <= the combined s.e.)."""
    print(f"\n{'term':<18}{'snowball':>9}{'comb.se':>8}{'Q':>7}{'p(Q)':>6}{'RE':>8}{'RE se':>7} | "
          + " | ".join(f"{name:>40}" for name in full))
    for k, lab in enumerate(fit.labels):
        b, se = float(fit.params[k]), float(fit.bse[k])
        rb, rse = float(fit.re_params[k]), float(fit.re_bse[k])
        cells = []
        for name, ref in full.items():
            if lab not in ref:
                cells.append(f"{'-':>40}")
                continue
            e, es = ref[lab]
            d, rd = b - e, rb - e
            z = d / np.hypot(se, es) if np.isfinite(es) else float("nan")
            cells.append(f"{e:>7.3f} ({es:.3f}) d/se {d / se:>+6.1f} {_within(d, se):>6} "
                         f"RE {rd / rse:>+5.1f} {_within(rd, rse):>6}")
            rows_out.append(dict(term=lab, snowball=b, se=se, q=float(fit.q[k]),
                                 q_p=float(fit.q_pvalue[k]), re=rb, re_se=rse, ref=name,
                                 ref_est=e, ref_se=es, diff_over_se=d / se,
                                 re_diff_over_se=rd / rse, z_both=z))
        print(f"{lab:<18}{b:>9.3f}{se:>8.3f}{float(fit.q[k]):>7.1f}"
              f"{float(fit.q_pvalue[k]):>6.3f}{rb:>8.3f}{rse:>7.3f} | " + " | ".join(cells))


def _load(s):
    import os
    return os.getloadavg()[0]


def _process_cpu():
    """This process's CPU seconds since it started (user + system), on a worker."""
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _fit_on_dask(samples, formula, settings, n_workers, detail=None):
    """fit_snowball of the samples on a fresh LocalCluster of ``n_workers`` worker processes
    (1 thread each; one worker too, so one and two workers are measured alike).  Returns the
    fit, the wall time and the CPU s of the fits per worker (busiest first); ``detail`` (a
    dict) also gets each worker process's whole CPU s over the run (``worker_cpu``: its
    fits, unpickling the samples, the imports, dask's own work), and its CPU s from its start
    to the end of the run (``worker_cpu_total``: with the worker's start-up), and this
    process's CPU s over the run (``main_cpu``: the client and the in-process scheduler)."""
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.wait_for_workers(n_workers)
        before = client.run(_process_cpu)
        main = time.process_time()
        t = time.perf_counter()
        fit = ef.fit_snowball(samples, formula, n_jobs=-1, backend="dask", **settings)
        wall = time.perf_counter() - t
        main = time.process_time() - main
        after = client.run(_process_cpu)
    per_worker = {}
    for r in fit.samples:
        per_worker[r["pid"]] = per_worker.get(r["pid"], 0.0) + r["cpu_seconds"]
    if detail is not None:
        detail["worker_cpu"] = sorted((after[w] - before[w] for w in after), reverse=True)
        detail["worker_cpu_total"] = sorted(after.values(), reverse=True)
        detail["main_cpu"] = main
        detail["tasks"] = sorted(np.bincount(np.unique([r["pid"] for r in fit.samples],
                                                       return_inverse=True)[1]).tolist(),
                                 reverse=True)
    return fit, wall, sorted(per_worker.values(), reverse=True)


def full_network_references(args):
    """{name: {label: (estimate, s.e.)}}: ergmfit's own full-network EE (bench_ee.py) and
    EstimNetDirected's partial run."""
    out = {}
    if args.full_ee:
        from ergmfit.results.ergm import ERGMResults
        f = ERGMResults.load(args.full_ee)
        out["ergmfit full EE (" + args.full_ee.split("/")[-1] + ")"] = {
            lab: (float(f.params[k]), float(f.bse[k])) for k, lab in enumerate(f.labels)}
    elif args.model == "4":
        out["ergmfit full EE (vignette, MC s.e.)"] = ERGMFIT_FULL_EE
    if args.model == "4":
        out["EstimNet (partial run)"] = ESTIMNET
    return out


def run_epinions(args):
    import subprocess
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    net = ef.datasets.load_network("epinions")
    formula = FORMULAS[args.model]
    # each sample's space is its inner waves' dyads (10^4-10^5): EE's "auto" settings read
    # that (since session 15), so a sample gets the schedule of a model of its free size
    # (Newton update, learning rates (0.01, 0.001), burn-in 0.2, the MCMC-MLE polish)
    settings = dict(method="ee", update=args.update, ee_steps=args.ee_steps, init=args.init,
                    se_samplesize=args.se_samplesize, se_interval=args.se_interval)
    if args.method != "ee":      # e.g. the conditional MPLE of every sample (seconds each)
        settings = dict(method=args.method)
    full = full_network_references(args)
    if args.full_mple:
        # the same estimator on the whole network (case-control MPLE above 10^4 nodes): the
        # gap between it and the conditional MPLE is the samples', not the estimator's
        t = time.process_time()
        f = ef.ERGM(net, formula).fit(method="mple", random_state=args.full_mple)
        full["ergmfit full-network MPLE"] = {lab: (float(f.params[k]), float("nan"))
                                             for k, lab in enumerate(f.labels)}
        print(f"full-network MPLE (random_state {args.full_mple}, "
              f"{time.process_time() - t:.0f} CPU s): "
              + ", ".join(f"{lab} {float(f.params[k]):.3f}" for k, lab in enumerate(f.labels)),
              flush=True)
    print(f"design: {args.samples} samples of {args.n_seeds} seeds, {args.waves} waves (seeds "
          "drawn at once among all nodes, as Stivala et al. 2016 / EstimNetDirected); fit per "
          f"sample: {settings}")
    rows_out = []
    first = None
    saved = []
    for rs in ([] if args.timing_only else args.random_states):
        samples = ef.snowball_samples(net, args.samples, n_seeds=args.n_seeds, waves=args.waves,
                                      random_state=rs)
        d = _design(samples)
        print(f"\nrandom_state {rs}: sample nodes {[r['nodes'] for r in d]}; inner-wave nodes "
              f"{[r['inner'] for r in d]}; their ties {[r['inner_ties'] for r in d]}, of which in a "
              f"transitive triangle {[r['closing'] for r in d]}",
              flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if args.workers:
                fit, t1, cpu = _fit_on_dask(samples, formula,
                                            dict(settings, random_state=rs + 1000), args.workers)
                where = f"dask, {args.workers} workers (CPU s per worker {[round(c) for c in cpu]})"
            else:
                t = time.perf_counter()
                fit = ef.fit_snowball(samples, formula, random_state=rs + 1000, **settings)
                t1, where = time.perf_counter() - t, "1 process"
        print(f"{where}: {t1:.0f} s wall, {fit.cpu_seconds:.0f} CPU s of fits (per sample "
              + ", ".join(f"{r['cpu_seconds']:.0f}" for r in fit.samples) + ")")
        print(fit.summary())
        print(f"combined: {fit.n_used} of {len(samples)} samples; left out: {fit.left_out() or 'none'}")
        compare(fit, full, rows_out)
        if first is None:
            first = (samples, fit)
        if args.save_fits:       # every random state's combination, for later comparisons
            import pickle
            saved.append(dict(random_state=rs, labels=fit.labels, estimates=fit.estimates,
                              std_errors=fit.std_errors, used=fit.used,
                              samples=[{k: v for k, v in r.items() if k != "labels"}
                                       for r in fit.samples], settings=settings))
            with open(args.save_fits, "wb") as fh:
                pickle.dump(saved, fh)
    if args.dask_repeats:
        if first is None:
            samples = ef.snowball_samples(net, args.samples, n_seeds=args.n_seeds,
                                          waves=args.waves, random_state=args.random_states[0])
            serial = None
        else:
            samples, serial = first
        if args.dask_samples:
            samples = samples[:args.dask_samples]
        print(f"\ndask LocalCluster (1 thread per worker), {len(samples)} samples of "
              f"random_state {args.random_states[0]}, 1 and 2 workers alternated "
              f"{args.dask_repeats} times:")
        times = {1: [], 2: []}
        for rep in range(args.dask_repeats):
            for nw in (1, 2):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    load0 = _load(None)
                    # timing only: every sample's fit counts, converged or not
                    fit, wall, cpu = _fit_on_dask(samples, formula,
                                                  dict(settings, random_state=
                                                       args.random_states[0] + 1000,
                                                       require_converged=False), nw)
                times[nw].append(wall)
                serial = fit if serial is None else serial
                same = all(np.allclose(a["params"], b["params"], equal_nan=True)
                           for a, b in zip(fit.samples, serial.samples))
                print(f"  {nw} worker(s): {wall:.0f} s wall; CPU s per worker "
                      f"{[round(c) for c in cpu]}; load {load0:.1f} -> {_load(None):.1f}; "
                      f"estimates as in the first run: {same}", flush=True)
        t1, t2 = np.median(times[1]), np.median(times[2])
        print(f"median wall: 1 worker {t1:.0f} s, 2 workers {t2:.0f} s; speed-up "
              f"{t1 / t2:.2f}, efficiency T1/(2 T2) = {t1 / (2 * t2):.2f} (each repeat: "
              + ", ".join(f"{a / (2 * b):.2f}" for a, b in zip(times[1], times[2])) + ")")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.save:
        import json
        with open(args.save, "w") as fh:
            json.dump(rows_out, fh, indent=1)


def _parse_design(text):
    """'10x20x2' -> (samples, seeds, waves)."""
    a, b, c = (int(x) for x in text.lower().split("x"))
    return a, b, c


def _time_dask(net, formula, args):
    """1 against 2 dask workers, both on fresh LocalClusters (worker processes, 1 thread
    each), ``--dask-repeats`` interleaved rounds (1, 2 / 2, 1 / 1, 2 ...), on the conditional
    EE fits of the samples of the first design and random state: wall time, CPU s of the
    fits and of the whole worker processes per worker, this process's CPU s, the load; the
    efficiency from wall time and from CPU s."""
    n_samples, n_seeds, waves = _parse_design(args.designs[0])
    rs = args.random_states[0]
    samples = ef.snowball_samples(net, n_samples, n_seeds=n_seeds, waves=waves, random_state=rs)
    settings = dict(method="ee", init="mple", ee_steps=args.ee_steps, random_state=rs + 1000,
                    require_converged=False)
    # a sample without a conditional MPLE (EE's start) stops at once and is left out: say how
    # many the timing measures (a design of such samples times a few fits, not the design)
    from ergmfit.exceptions import SettingsError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            check = ef.fit_snowball(samples, formula, method="mple", random_state=rs + 1000)
            missing = [k + 1 for k, r in enumerate(check.samples) if r.get("error")]
        except SettingsError:          # not one sample to combine
            missing = list(range(1, len(samples) + 1))
    print(f"{len(samples) - len(missing)} of {len(samples)} samples have a conditional MPLE"
          + (f"; WARNING: samples {missing} have none (the existence check: the change "
             "statistics separate the observed ties from the non-ties), stop at once and are "
             "left out, so the timing measures the others only (choose a design whose "
             "samples all have one, e.g. 20x5x3 on the default network)" if missing else ""),
          flush=True)
    print(f"dask LocalCluster (fresh for every run; worker processes, 1 thread each): "
          f"{n_samples} samples (design {args.designs[0]}, random_state {rs}), conditional EE "
          f"of {args.ee_steps * 100:,} iterations each; 1 and 2 workers in "
          f"{args.dask_repeats} interleaved rounds", flush=True)
    runs = {1: [], 2: []}
    first = None
    for rep in range(args.dask_repeats):
        for nw in ((1, 2) if rep % 2 == 0 else (2, 1)):
            load0 = _load(None)
            detail = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit, wall, cpu = _fit_on_dask(samples, formula, settings, nw, detail)
            first = fit if first is None else first
            same = all(np.allclose(a["params"], b["params"], equal_nan=True)
                       for a, b in zip(fit.samples, first.samples))
            load1 = _load(None)
            runs[nw].append(dict(wall=wall, fits=cpu, load=(load0, load1), **detail))
            print(f"  round {rep + 1}, {nw} worker(s): {wall:.1f} s wall; CPU s of the fits per "
                  f"worker {[round(c, 2) for c in cpu]} (sum {sum(cpu):.2f}; tasks "
                  f"{detail['tasks']}); worker processes over the run "
                  f"{[round(c, 2) for c in detail['worker_cpu']]} (since their start "
                  f"{[round(c, 2) for c in detail['worker_cpu_total']]}); this process "
                  f"{detail['main_cpu']:.2f}; load {load0:.1f} -> {load1:.1f}; estimates as in "
                  f"the first run: {same}", flush=True)
    eff = [a["wall"] / (2 * b["wall"]) for a, b in zip(runs[1], runs[2])]
    eff_fit = [sum(a["fits"]) / (2 * max(b["fits"])) for a, b in zip(runs[1], runs[2])]
    eff_proc = [sum(a["worker_cpu"]) / (2 * max(b["worker_cpu"]))
                for a, b in zip(runs[1], runs[2])]
    more = [sum(b["worker_cpu"]) / sum(a["worker_cpu"]) - 1 for a, b in zip(runs[1], runs[2])]
    share = [max(b["worker_cpu"]) / sum(b["worker_cpu"]) for b in runs[2]]
    print(f"wall efficiency T1 / (2 T2) per round {[round(e, 3) for e in eff]}, median "
          f"{np.median(eff):.3f}")
    print(f"from the CPU s of the fits (one worker's total / (2 x the busier of two)) "
          f"{[round(e, 3) for e in eff_fit]}, median {np.median(eff_fit):.3f}")
    print(f"from the worker processes' CPU s over the run (the same, with unpickling, imports "
          f"and dask's work) {[round(e, 3) for e in eff_proc]}, median {np.median(eff_proc):.3f}"
          f"; two workers' CPU over one's {[f'{m:+.1%}' for m in more]}; the busier worker's "
          f"share {[f'{x:.1%}' for x in share]}")


def _conditional_fit(samples, formula, method, rs, args, what):
    """fit_snowball of the samples by `method` (EE from the conditional MPLE), printed."""
    settings = dict(method=method)
    if method == "ee":
        settings.update(init="mple", ee_steps=args.ee_steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ef.fit_snowball(samples, formula, random_state=rs + 1000, n_jobs=args.jobs,
                              **settings)
    print(f"-- conditional {method.upper()}{what}: {fit.cpu_seconds:.0f} CPU s of fits; "
          f"combined {fit.n_used} of {len(samples)}; left out: {fit.left_out() or 'none'}")
    return fit


def run_directed(args):
    """Issue #35's check on a network with a known theta: the Epinions model (``--model``)
    simulated on ``--n`` nodes, fitted whole (EE with the "auto" settings, and MPLE) and from
    snowball samples (conditional MPLE and EE, combined), every design and random state."""
    import subprocess
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    formula = FORMULAS[args.model]
    theta = np.array([float(x) for x in args.theta.split(",")])
    if args.start:
        # a saved network (pickle of (ties, n)), e.g. a hub-heavy draw of an earlier chain
        import pickle
        with open(args.start, "rb") as fh:
            ties, n = pickle.load(fh)
        start = ef.Network(int(n), np.asarray(ties, dtype=np.int64), True)
    else:
        start = ef.Network(args.n, np.zeros((0, 2), dtype=np.int64), True)
    empty = ef.ERGM(start, formula)
    t0 = time.process_time()
    net = (empty.simulate(theta, n=1, burnin=args.burnin, output="networks",
                          random_state=args.seed)[0] if args.burnin > 0 else start)
    model = ef.ERGM(net, formula)
    deg = np.bincount(np.asarray(net.ties).ravel(), minlength=net.n)
    print(f"simulated at theta {theta.tolist()} (seed {args.seed}, burn-in {args.burnin:,}): "
          f"{net.n} nodes, {net.n_ties} arcs, mean total degree {deg.mean():.2f}, median "
          f"{np.median(deg):.0f}, max {deg.max()}; statistics "
          f"{np.round(model.statistics_vector(), 1).tolist()}; "
          f"{time.process_time() - t0:.0f} CPU s", flush=True)
    labels = list(model.labels)
    truth = {lab: (float(theta[k]), 0.0) for k, lab in enumerate(labels)}
    full = {"truth": truth}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.process_time()
        f = model.fit(method="mple", random_state=args.seed)
        full["full MPLE"] = {lab: (float(f.params[k]), float(f.bse[k]))
                             for k, lab in enumerate(labels)}
        print(f"full-network MPLE ({time.process_time() - t:.0f} CPU s): "
              + ", ".join(f"{lab} {float(f.params[k]):.3f} ({float(f.bse[k]):.3f})"
                          for k, lab in enumerate(labels)), flush=True)
        if args.full_ee_fit:
            t = time.process_time()
            f = model.fit(method="ee", random_state=args.seed, init="mple")
            full["full EE"] = {lab: (float(f.params[k]), float(f.bse[k]))
                               for k, lab in enumerate(labels)}
            print(f"full-network EE (auto settings, MPLE start; "
                  f"{time.process_time() - t:.0f} CPU s, converged {f.converged}): "
                  + ", ".join(f"{lab} {float(f.params[k]):.3f} ({float(f.bse[k]):.3f})"
                              for k, lab in enumerate(labels)), flush=True)
    rows_out = []
    if args.timing_only:
        _time_dask(net, formula, args)
        return
    for design in args.designs:
        n_samples, n_seeds, waves = _parse_design(design)
        for rs in args.random_states:
            samples = ef.snowball_samples(net, n_samples, n_seeds=n_seeds, waves=waves,
                                          random_state=rs)
            d = _design(samples)
            print(f"\ndesign {design} (samples x seeds x waves), random_state {rs}: sample "
                  f"nodes {[r['nodes'] for r in d]}; inner-wave nodes {[r['inner'] for r in d]}; "
                  f"their ties {[r['inner_ties'] for r in d]}", flush=True)
            for method in args.methods:
                fit = _conditional_fit(samples, formula, method, rs, args, "")
                print("   per-sample " + labels[-1] + ": "
                      + ", ".join(f"{e:.2f}" for e in fit.estimates[:, -1]))
                before = len(rows_out)
                compare(fit, full, rows_out)
                for r in rows_out[before:]:
                    r.update(design=design, random_state=rs, method=method)
                finite = np.isfinite(fit.estimates).all(axis=1) & (fit.std_errors > 0).all(axis=1)
                if finite.sum() > fit.n_used:
                    # EE's criterion (every |t| < 0.1, no drift) leaves out samples whose
                    # chains match the observed statistics to |t| 0.1-0.3 (EstimNet's 0.3):
                    # the combination of every sample with a finite estimate beside it
                    every = ef.meta_analysis(fit.estimates, fit.std_errors, labels)
                    print(f"-- conditional {method.upper()}, every sample with a finite "
                          f"estimate ({every.n_used}), converged or not:")
                    before = len(rows_out)
                    compare(every, full, rows_out)
                    for r in rows_out[before:]:
                        r.update(design=design, random_state=rs, method=method + " (all)")
    if rows_out:
        print("\nsummary: |combined - reference| <= 1 / 2 combined s.e. (fixed effects; "
              "random effects)")
        keys = sorted({(r["method"], r["ref"]) for r in rows_out})
        for method, ref in keys:
            rr = [r for r in rows_out if r["method"] == method and r["ref"] == ref]
            z = np.abs([r["diff_over_se"] for r in rr])
            zr = np.abs([r["re_diff_over_se"] for r in rr])
            print(f"  conditional {method:<5} vs {ref:<10}: {int((z <= 1).sum())} / "
                  f"{int((z <= 2).sum())} of {len(z)} ({int((zr <= 1).sum())} / "
                  f"{int((zr <= 2).sum())}); median |d|/se {np.median(z):.2f} "
                  f"({np.median(zr):.2f})")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.save:
        import json
        with open(args.save, "w") as fh:
            json.dump(rows_out, fh, indent=1)


def run_hubs(args):
    """Hubs: Epinions' own snowball samples (its hubs in their inner waves), every sample's
    free dyads redrawn from the conditional model at a known ``--theta`` (the snowball
    sampler, ``--burnin`` proposals from the observed sample), fitted back conditionally by
    every ``--methods`` and combined, against theta; first, the change statistics of every
    free dyad of the first two samples against the whole network's (they must be equal)."""
    import subprocess
    from ergmfit.sampling.space import dyad_vars, var_pairs
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    formula = FORMULAS[args.model]
    theta = np.array([float(x) for x in args.theta.split(",")])
    net = ef.datasets.load_network("epinions")
    deg = np.bincount(np.asarray(net.ties).ravel(), minlength=net.n)
    full = ef.ERGM(net, formula).compiled()
    n_samples, n_seeds, waves = _parse_design(args.designs[0])
    rows_out = []
    for rs in args.random_states:
        samples = ef.snowball_samples(net, n_samples, n_seeds=n_seeds, waves=waves,
                                      random_state=rs)
        for s in samples[:2]:
            m = s.model(formula)
            v = m.sample_space.free_vars()
            pairs = var_pairs(s.network.n, True, v)
            diff = np.abs(m.compiled().change_matrix(v)
                          - full.change_matrix(dyad_vars(net.n, True, s.nodes[pairs]))).max()
            hub = deg[s.nodes[pairs]].max(axis=1)
            print(f"random_state {rs}: {len(v)} free dyads, {int((hub >= 1000).sum())} touching "
                  f"a node of total degree >= 1000 (max {hub.max()}); largest |sample - whole "
                  f"network| change statistic {diff:.3g}", flush=True)
        redrawn = []
        for k, s in enumerate(samples):
            m = s.model(formula)
            g = m.simulate(theta, n=1, burnin=args.burnin, output="networks",
                           random_state=1000 + 17 * rs + k)[0]
            redrawn.append(ef.snowball.SnowballSample(g, s.nodes, s.zones, s.zone_attr))
            print(f"  sample {k + 1}: arcs {s.network.n_ties} -> {g.n_ties} after redrawing",
                  flush=True)
        labels = list(ef.ERGM(samples[0].network, formula).labels)
        truth = {"truth": {lab: (float(theta[k]), 0.0) for k, lab in enumerate(labels)}}
        for method in args.methods:
            fit = _conditional_fit(redrawn, formula, method, rs, args, " of the redrawn samples")
            before = len(rows_out)
            compare(fit, truth, rows_out)
            for r in rows_out[before:]:
                r.update(random_state=rs, method=method)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def run_full(args):
    """The whole Epinions network fitted by EE with ``--model`` (the reference the snowball
    combination is checked against): EstimNet's Borisenko schedule of ``bench_ee.py
    epinions`` (IFD proposals, ``--ee-steps`` x 100 iterations of 1,000 proposals, burn-in
    10,001, the s.e. from ``--se-samplesize`` draws ``--se-interval`` apart), ``--chains``
    chains on ``--jobs`` processes, checkpointed to ``--save``.ckpt (resumable); the fit is
    saved to ``--save`` for ``epinions --full-ee PATH``."""
    import os
    import subprocess
    from ergmfit.estimation.ee.estimator import EE
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    net = ef.datasets.load_network("epinions")
    model = ef.ERGM(net, FORMULAS[args.model])
    ckpt = args.save + ".ckpt" if args.save else None
    kw = dict(ee_steps=args.ee_steps, ee_inner_steps=100, sampler_steps=1000, s_steps=100,
              proposal="ifd", burnin=10001, se_samplesize=args.se_samplesize,
              se_interval=args.se_interval, n_chains=args.chains, n_jobs=args.jobs,
              random_state=args.seed)
    if ckpt and os.path.exists(ckpt):       # resume with the checkpoint's own settings
        kw = dict(resume=ckpt, checkpoint=ckpt, checkpoint_every=60.0)
    elif ckpt:
        kw.update(checkpoint=ckpt, checkpoint_every=60.0)
    print("settings:", kw, flush=True)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = EE(**kw).fit(model)
    print(fit.summary())
    print(f"wall {time.perf_counter() - t:.0f} s; EE CPU s per chain "
          + ", ".join(f"{c:.0f}" for c in fit.info["cpu_seconds_ee"])
          + f"; converged {fit.converged}; t-ratios {fit.info.get('t_ratios')}")
    if args.save:
        fit.save(args.save)
        print("saved", args.save)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("synthetic", "epinions", "directed", "hubs", "full"))
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=None,
                    help="nodes of the simulated network (synthetic 3,000; directed 10,000)")
    ap.add_argument("--edges", type=float, default=-7.0)
    ap.add_argument("--gwesp", type=float, default=1.0)
    ap.add_argument("--burnin", type=int, default=None,
                    help="proposals of the simulation (directed 2 x 10^7; else 4 x 10^6)")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--n-seeds", type=int, default=20)
    ap.add_argument("--waves", type=int, default=2)
    ap.add_argument("--method", default="ee")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--chains", type=int, default=2, help="full: EE chains")
    ap.add_argument("--ee-steps", type=int, default=40)
    ap.add_argument("--update", default="auto",
                    help="EE's update for each sample ('auto': by its free dyads, Newton)")
    ap.add_argument("--init", default="mple", help="EE's start for each sample: S or mple")
    ap.add_argument("--model", choices=sorted(FORMULAS), default="4",
                    help="4: EstimNetDirected's Epinions terms (with full-network "
                         "references); 6: issue #35's six terms")
    ap.add_argument("--full-mple", type=int, default=None, metavar="SEED",
                    help="also fit the whole network by (case-control) MPLE at this seed")
    ap.add_argument("--se-samplesize", type=int, default=200)
    ap.add_argument("--se-interval", type=int, default=2000)
    ap.add_argument("--random-states", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--full-ee", default=None,
                    help="a full-network fit saved by bench_ee.py epinions --save PATH")
    ap.add_argument("--workers", type=int, default=0,
                    help="fit the samples on a dask LocalCluster of this many workers (0: in "
                         "this process)")
    ap.add_argument("--dask-repeats", type=int, default=2)
    ap.add_argument("--timing-only", action="store_true",
                    help="only the dask 1 vs 2 workers timing (samples of the first random "
                         "state)")
    ap.add_argument("--dask-samples", type=int, default=None,
                    help="time dask on the first k samples only")
    ap.add_argument("--theta", default="-7,-0.3,-0.3,2.0",
                    help="directed: the true theta of --model (comma-separated)")
    ap.add_argument("--start", default=None,
                    help="directed: start the chain from this saved network (a pickle of "
                         "(ties, n)) instead of the empty one; --burnin 0 uses it as it is")
    ap.add_argument("--designs", nargs="+", default=["10x20x2"],
                    help="directed: sample designs SAMPLESxSEEDSxWAVES")
    ap.add_argument("--methods", nargs="+", default=["mple", "ee"],
                    help="directed: the conditional estimators of every sample")
    ap.add_argument("--full-ee-fit", dest="full_ee_fit", action="store_true",
                    help="directed: also fit the whole simulated network by EE")
    ap.add_argument("--save", default=None, help="write the comparison rows as JSON here")
    ap.add_argument("--save-fits", default=None,
                    help="epinions: pickle every random state's per-sample fits here")
    args = ap.parse_args()
    # directed: session 16's network (the guide's figures), whose samples of design 20x5x3
    # all have a conditional estimate; 3,000 nodes at 4 x 10^6 proposals (these defaults
    # until session 21) drew a network with 19 transitive triangles in all
    if args.n is None:
        args.n = 10_000 if args.what == "directed" else 3000
    if args.burnin is None:
        args.burnin = 20_000_000 if args.what == "directed" else 4_000_000
    {"synthetic": run_synthetic, "epinions": run_epinions,
     "directed": run_directed, "hubs": run_hubs, "full": run_full}[args.what](args)


if __name__ == "__main__":
    main()
