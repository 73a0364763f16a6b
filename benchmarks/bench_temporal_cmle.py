"""tergm's CMLE on Sampson's panel: ergmfit's CPU seconds beside tergm's.

Run by hand:  PYTHONPATH=. python benchmarks/bench_temporal_cmle.py [--seeds 1 2 3] [--profile]

For every ``temporal_cmle`` fit of tests/reference/statnet_temporal.json (tergm 4.1.1,
``estimate="CMLE"`` or ``"CMPLE"``, ``times=1:3`` on samplk1-3; the same kind of shared 2-core
machine: compare ratios), ergmfit fits the same formula with the same method once untimed
(imports, first compilations), then once per seed, and the table prints the median CPU
seconds (``time.process_time``, this process: the fits run in one process) beside tergm's
``cpu_seconds_fit`` (the mean of its seeds where it has several) and the ratio.  Both
include the log-likelihood (tergm's default ``eval.loglik=TRUE``): tergm bridge-samples it
for every dyad-dependent model; ergmfit computes it exactly for a model independent across
dyad pairs (the mutual and Cross/Change models: ``TemporalERGM.exact_loglik``) and
bridge-samples the others.  ``--bridge`` bridge-samples every one (the work tergm does).
The issue's check: CMLE >= 10x tergm.

``--profile``: where the time of one fit of each dyad-dependent CMLE goes (cProfile,
cumulative), to stderr.
"""
import argparse
import json
import os
import statistics
import sys
import time
import warnings

import ergmfit as ef

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "tests", "reference", "statnet_temporal.json")
METHODS = {"MLE": "cmle", "MPLE": "cmple"}


def panel():
    return ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])


def formula(case):
    return case["formula"].split("~", 1)[1].strip().replace("TRUE", "True")


def reference_fits():
    """{(formula, method): [tergm CPU s, ...]} of the temporal CMLE/CMPLE cases."""
    with open(REFERENCE) as fh:
        cases = json.load(fh)["cases"]
    out = {}
    for c in cases:
        if c.get("feature") == "temporal_cmle" and c.get("status", "ok") == "ok":
            out.setdefault((formula(c), METHODS[c["estimate"]]), []).append(
                float(c["cpu_seconds_fit"]))
    return out


def cpu_fit(series, form, method, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.process_time()
        ef.ERGM(series, form).fit(method, random_state=seed)
        return time.process_time() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--bridge", action="store_true",
                    help="bridge-sample every log-likelihood (no exact pair likelihood)")
    args = ap.parse_args(argv)
    if args.bridge:
        from ergmfit.temporal.model import TemporalERGM
        TemporalERGM.exact_loglik = None
    series = panel()
    print(f"{'method':6} {'ergmfit s':>9} {'tergm s':>8} {'ratio':>6}  formula")
    for (form, method), ref in reference_fits().items():
        cpu_fit(series, form, method, 0)                      # untimed warm-up
        ours = statistics.median(cpu_fit(series, form, method, s) for s in args.seeds)
        tergm = statistics.mean(ref)
        print(f"{method:6} {ours:9.3f} {tergm:8.3f} {tergm / ours:6.1f}x  {form}", flush=True)
    if args.profile:
        import cProfile
        import pstats
        for (form, method) in reference_fits():
            model = ef.ERGM(series, form)
            if method != "cmle" or model.exact_cmle_available():
                continue
            prof = cProfile.Profile()
            prof.runcall(model.fit, method, random_state=1)
            print(f"\n== {form}", file=sys.stderr)
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()
