"""CPU seconds of the ergm.multi reference fits (samplk3w's N() models, lazega2l's L()
models) beside ergm.multi 0.1.2's, from tests/reference/statnet_multi.json
(``cpu_seconds_fit``: user + system CPU of the R process, same kind of machine).

    PYTHONPATH=. python benchmarks/bench_multi.py [--seeds 1 2 3] [--rounds 1]

Each row: the estimator, ergmfit's CPU seconds (process time, median over the seeds and
rounds for MCMC-MLE; the seeds are interleaved across the models, so a change of the
machine's load hits every model alike), statnet's (mean over its two seeds) and the ratio
statnet / ergmfit.  The fits use each estimator's defaults, as statnet's calls did
(``MCMLE.maxit=30``); statnet's MCMC-MLE calls skip the log-likelihood
(``eval.loglik=FALSE``), and so do these (``eval_loglik=False``: the bridge sampling would
add about half again to the fit).

The work on each side, for MCMC-MLE rows: the iterations (statnet's from its printed
convergence messages), ergmfit's proposals (burn-ins left out) and the effective size of
its last sample (the smallest over the statistics), and the largest coefficient difference
in statnet standard errors (ergmfit's mean over the seeds against statnet's mean).
statnet 4.4's default MCMC-MLE (``control.ergm()``): the interval and sample size set
by ergm from the model (``MCMC.interval`` and ``MCMC.samplesize`` are NULL in its usage)
with an effective-size target (``MCMLE.effectiveSize``), burn-in 16 intervals, stopping
by its "confidence" rule (the sample size grows after each unconverged iteration, as its
printed messages show); no log-likelihood bridge.  ergmfit's: 1024 draws per iteration,
the interval from 1024 adapted to 64 effective draws (an ensemble of networks: a pilot
first sample at 256), Hummel's stopping rule and a last sample of up to ``last_boost`` (4)
times as many draws, as many as 4 x 64 effective draws need at its interval; a sample at
the interval floor (256) is drawn in parts and stops once it has its target
(docs/guide/multinetwork.md, "Speed").  The chains walk the within-network dyads by
node-pair moves (``proposal="pairs"``, the default on these spaces: a pair's dyads in a set
of layers, one direction, the other or both, at once); ``--proposal tnt`` runs the
single-toggle tie/no-tie of earlier sessions.

A model independent across node pairs (every term's change statistic reads only its node
pair's dyads: here Lazega's two models and Sampson's ``lm_wave``) has its MLE computed
exactly, without MCMC (:mod:`ergmfit.estimation.common.pairstates`; the row says
``exact``, its iterations are Newton's); ``--force-main`` runs the MCMC-MLE for them too.
The last columns: the largest |difference| in statnet s.e. and the range of the s.e. ratios
(ergmfit / statnet).
"""
import argparse
import json
import pathlib
import sys
import time

import numpy as np

import ergmfit as ef

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from support.multi_networks import DATASETS  # noqa: E402


def work(fit):
    """(iterations, proposals drawn after the burn-ins, smallest ESS of the last sample);
    an exact fit (no MCMC): its Newton iterations, 0 proposals, an infinite ESS."""
    if fit.info.get("exact_mle"):
        return fit.n_iter, 0, np.inf
    hist = [h for h in fit.info["history"] if not h.get("backtrack")]
    proposals = sum(int(h["interval"]) * int(h["samplesize"]) for h in fit.info["history"])
    return len(hist), proposals, float(hist[-1]["min_ess"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rounds", type=int, default=1,
                    help="repeat the interleaved MCMC-MLE fits this many times")
    ap.add_argument("--proposal", default="auto",
                    help="the MCMC-MLE chains' proposal (default: the sample space's)")
    ap.add_argument("--force-main", action="store_true",
                    help="run the MCMC-MLE also where the MLE is exact (statnet's force.main: "
                         "the models independent across node pairs)")
    args = ap.parse_args()
    cases = json.loads((ROOT / "tests" / "reference" / "statnet_multi.json")
                       .read_text(encoding="utf-8"))["cases"]
    fits = [c for c in cases if c["kind"] == "fit"]
    ef.ERGM(DATASETS["samplk3w"](), "N(~edges)").fit(method="mple")   # imports, first calls
    models = {}
    for name in sorted({c["model"] for c in fits}):
        mine = [c for c in fits if c["model"] == name]
        models[name] = (ef.ERGM(DATASETS[mine[0]["dataset"]](),
                                mine[0]["formula"].split("~", 1)[1].strip()), mine)
    cpu = {(name, how): [] for name in models for how in ("mple", "mcmle")}
    runs = {name: [] for name in models}
    for name, (m, _) in models.items():
        t = time.process_time()
        m.fit(method="mple")
        cpu[name, "mple"].append(time.process_time() - t)
    for _ in range(args.rounds):
        for seed in args.seeds:            # interleaved: every model at seed s, then s + 1
            for name, (m, _) in models.items():
                t = time.process_time()
                fit = m.fit(method="mcmle", random_state=seed, eval_loglik=False,
                            proposal=args.proposal,
                            **({"force_main": True} if args.force_main else {}))
                cpu[name, "mcmle"].append(time.process_time() - t)
                runs[name].append(fit)
    print(f"{'model':22s} {'method':6s} {'ergmfit CPU s':>13s} {'statnet CPU s':>13s} "
          f"{'ratio':>6s}  {'iter (statnet)':>14s} {'proposals':>10s} {'last ESS':>8s} "
          f"{'max |d|/se':>10s} {'se ratio':>10s}")
    for name, (m, mine) in models.items():
        for est, how in (("MPLE", "mple"), ("MLE", "mcmle")):
            ref = [c for c in mine if c["estimate"] == est]
            theirs = float(np.mean([c["cpu_seconds_fit"] for c in ref]))
            ours = float(np.median(cpu[name, how]))
            extra = ""
            if how == "mcmle":
                w = np.array([work(f) for f in runs[name]])
                labels = runs[name][0].labels
                coef = np.mean([np.asarray(f.params) for f in runs[name]], axis=0)
                ref_coef = np.mean([[c["coef"][k] for k in labels] for c in ref], axis=0)
                ref_se = np.mean([[c["se"][k] for k in labels] for c in ref], axis=0)
                its = "/".join(str(c["iterations"]) for c in ref)
                se = np.mean([np.asarray(f.bse) for f in runs[name]], axis=0)
                exact = "exact" if runs[name][0].info.get("exact_mle") else ""
                extra = (f"  {np.median(w[:, 0]):6.0f} ({its:>5s}) {np.median(w[:, 1]):10.3g} "
                         f"{np.median(w[:, 2]):8.0f} {np.max(np.abs(coef - ref_coef) / ref_se):10.3f}"
                         f" {np.min(se / ref_se):5.2f}-{np.max(se / ref_se):4.2f} {exact}")
            print(f"{name[6:]:22s} {how:6s} {ours:13.3f} {theirs:13.3f} {theirs / ours:6.1f}"
                  + extra)


if __name__ == "__main__":
    main()
