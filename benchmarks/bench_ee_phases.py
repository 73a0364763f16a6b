"""CPU seconds per phase and peak memory of a short EE run on Epinions (issue #35 item 2).

Run by hand:  PYTHONPATH=. python benchmarks/bench_ee_phases.py [--ee-steps 10] [--profile N]
              [--cache-memory BYTES] [--formula "Arc + Reciprocity + ... + AltTwoPathsT"]
              [--repeat N]

EstimNet's short schedule (1 chain, ``ee_steps`` x 100 iterations of 1,000 IFD proposals, the
Algorithm S start) of ``Arc + AltInStars + AltOutStars + AltKTrianglesT`` on Epinions (75,879
nodes, 508,837 arcs), in this process (``n_jobs=1``), timed phase by phase in CPU seconds
(``time.process_time``):

* load: reading data/epinions.arcs.npz.xz;
* model: ``ERGM(net, formula)`` (parsing, the terms, their families' first import);
* statistics: ``ERGM(...).statistics_vector()`` (the observed statistics, from the empty graph);
* fit: ``model.fit(method="ee", ...)``, of which the EE loop is ``info['cpu_seconds_ee']``
  (the rest: the estimator's own set-up and state, Algorithm S, the standard errors'
  simulation);
* state: ``model.compiled()`` (the network state, its two-path counts if held), a diagnostic
  only, after the run: the fit builds its own state (counted in its set-up), so this phase is
  shown but counted neither in the whole run's CPU nor in its peak memory (a user's run is
  load, model, statistics and fit).

The whole run's CPU is the sum of load, model, statistics and fit: the interpreter's start
and ``import ergmfit`` (before the first phase) are not in it, but printed beside it (the
process's CPU seconds when the script's imports are done); its peak memory includes them.  Modules first imported inside a phase (the estimator's, numpy.random) count in that
phase, compiled from source where no bytecode cache exists (``PYTHONDONTWRITEBYTECODE``).

Peak memory is the process's ``ru_maxrss`` after each phase, beside its resident memory at the
phase's end (``RSS MB``: what the phase leaves; EstimNetDirected's 15 MB on the
same run is the yardstick; the limit of issue #35 is 5 times it, 75 MB).  The last line gives
the two figures of issue #35's check: proposals per CPU s of the whole run as a multiple of
EstimNetDirected's, and the run's peak memory.  The line before it splits the peak into the pages of mapped
files (the shared libraries: their figure depends on the page cache, 23 to 30 MB on the same
machine) and the run's own memory.  ``--profile N`` prints the N functions of
largest cumulative CPU time of the whole run (cProfile, timed by ``time.process_time``).
"""
import argparse
import resource
import sys
import time
import warnings

import ergmfit as ef

IMPORT_CPU = time.process_time()     # the interpreter's start and the imports above

FORMULA = "Arc + AltInStars + AltOutStars + AltKTrianglesT"
# EstimNetDirected's proposals per CPU s of its whole Epinions run and its peak memory
# (shared/reference/estimnet.md)
ESTIMNET_RATE = 17_600
ESTIMNET_MB = 15


def peak_mb():
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def rss_mb():
    """Resident memory of this process now, in MB (Linux; None elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize() / 2 ** 20
    except OSError:
        return None


def rss_split_mb():
    """(file-backed, anonymous) resident memory of this process now, in MB (Linux; (None,
    None) elsewhere): the pages of mapped files (the interpreter's, numpy's and OpenBLAS's
    shared libraries, ergmfit's extension modules) and the process's own."""
    try:
        with open("/proc/self/status") as fh:
            fields = dict(line.split(":", 1) for line in fh if line.startswith("Rss"))
        return (int(fields["RssFile"].split()[0]) / 1024.0,
                int(fields["RssAnon"].split()[0]) / 1024.0)
    except (OSError, KeyError, ValueError):
        return None, None


def run(ee_steps, seed, formula=FORMULA):
    phases = []

    def phase(name, fn):
        t0 = time.process_time()
        out = fn()
        phases.append((name, time.process_time() - t0, peak_mb(), rss_mb()))
        return out

    net = phase("load", lambda: ef.datasets.load_network("epinions"))
    model = phase("model", lambda: ef.ERGM(net, formula))
    phase("statistics", model.statistics_vector)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = phase("fit", lambda: model.fit(
            method="ee", random_state=seed, n_chains=1, n_jobs=1, ee_steps=ee_steps,
            proposal="ifd", sampler_steps=1000, se_samplesize=100, se_interval=1000))
    run_peak = peak_mb()
    file_mb, _ = rss_split_mb()
    state = phase("state", lambda: model.compiled().state)
    held, bound = getattr(state, "two_path_bytes", (None, None))
    budget = getattr(state, "cache_memory", None)
    del state
    loop = sum(fit.info["cpu_seconds_ee"])
    total = sum(c for name, c, _, _ in phases if name != "state")
    fit_cpu = next(c for name, c, _, _ in phases if name == "fit")
    print(f"{'phase':<12}{'CPU s':>8}{'peak MB':>9}{'RSS MB':>8}")
    for name, cpu, mb, now in phases:
        print(f"{name:<12}{cpu:>8.2f}{mb:>9.0f}" + (f"{now:>8.0f}" if now is not None else "")
              + ("  (diagnostic after the run, in neither total)" if name == "state" else ""))
        if name == "fit":
            print(f"{'  EE loop':<12}{loop:>8.2f}")
            print(f"{'  fit - loop':<12}{fit_cpu - loop:>8.2f}")
    rate = fit.info["proposals"] / total
    print(f"(not counted: interpreter start and imports {IMPORT_CPU:.2f} CPU s)")
    print(f"total {total:.2f} CPU s; fixed costs (all but the EE loop) {total - loop:.2f} s = "
          f"{(total - loop) / max(loop, 1e-9):.1f} x the loop; proposals {fit.info['proposals']:,}, "
          f"{rate:,.0f} per CPU s of the whole run "
          f"({rate / ESTIMNET_RATE:.1f} x EstimNetDirected's {ESTIMNET_RATE:,})")
    if held is not None:
        print(f"two-path counts of the state: {held / 2**20:.1f} MiB held "
              f"(bound if all held: {bound / 2**20:.0f} MiB; budget "
              f"{budget / 2**20:.0f} MiB: {'held' if held else 'counted on demand'})")
    print("estimates:", dict(zip(fit.labels, [round(float(v), 3) for v in fit.params])))
    if file_mb is not None:
        # the libraries' pages are mapped a page cache folio at a time: right after they are
        # written (a fresh pip install) the same libraries took 30 MB here, 23 MB once read
        # back (docs/guide/large_networks.md, "Epinions: the check on a new machine")
        print(f"of the peak: {file_mb:.1f} MB pages of mapped files (shared libraries; "
              f"depends on the page cache), {run_peak - file_mb:.1f} MB the run's own "
              "(anonymous) memory")
    # issue #35's check in one line: >= 30 x EstimNetDirected's rate, <= 5 x its peak memory
    print(f"issue 35 check: {rate / ESTIMNET_RATE:.1f} x EstimNetDirected's proposals per CPU s "
          f"of the whole run (goal >= 30), peak {run_peak:.1f} MB (goal <= "
          f"{5 * ESTIMNET_MB} MB = 5 x EstimNetDirected's {ESTIMNET_MB})")


def repeat(n, argv):
    """Run this benchmark ``n`` times in new processes with ``argv``; print each run's check
    line, then the range and median of its two figures."""
    import re
    import statistics
    import subprocess
    ratios, peaks = [], []
    for k in range(n):
        out = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True,
                             check=True).stdout
        line = next(x for x in out.splitlines() if x.startswith("issue 35 check"))
        print(f"run {k + 1}: {line}", flush=True)
        ratio, peak = re.search(r"check: ([0-9.]+) x .* peak ([0-9.]+) MB", line).groups()
        ratios.append(float(ratio))
        peaks.append(float(peak))
    print(f"{n} runs: {min(ratios):.1f}-{max(ratios):.1f} x EstimNetDirected's proposals per "
          f"CPU s of the whole run (median {statistics.median(ratios):.1f}, goal >= 30); peak "
          f"{min(peaks):.1f}-{max(peaks):.1f} MB (median {statistics.median(peaks):.1f}, goal "
          f"<= {5 * ESTIMNET_MB})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ee-steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", type=int, default=0, metavar="N")
    ap.add_argument("--cache-memory", type=int, default=None, metavar="BYTES",
                    help="bytes the held two-path counts may take (0: all on demand; "
                         "default: the 'auto' setting, 4 x the network state's own bytes, "
                         "at least 1 GiB; Epinions' four-term model holds per-arc counts)")
    ap.add_argument("--formula", default=FORMULA,
                    help=f"the model (default EstimNet's Epinions model, {FORMULA!r})")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run N times, each in a new process (the peak memory is a "
                         "process's), then print the range and median of the check's figures: "
                         "a machine's speed moves between runs of the same chain")
    args = ap.parse_args()
    if args.repeat > 1:
        argv, skip = [], False
        for a in sys.argv[1:]:          # the same arguments without --repeat N
            if skip or a.startswith("--repeat="):
                skip = False
                continue
            skip = a == "--repeat"
            if not skip:
                argv.append(a)
        repeat(args.repeat, argv)
        return
    if args.cache_memory is not None:
        from ergmfit.network import set_cache_memory
        set_cache_memory(args.cache_memory)
    if args.profile:
        import cProfile     # only when asked: the profiler's modules are not the run's memory
        import pstats
        prof = cProfile.Profile(time.process_time)
        prof.runcall(run, args.ee_steps, args.seed, args.formula)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile)
    else:
        run(args.ee_steps, args.seed, args.formula)


if __name__ == "__main__":
    main()
