"""faux.dixon.high with MCMC-MLE (issue 22 item 1): the near-degenerate gwesp(0.5) model
and the directed tutorial's model, fitted by the default ``fit(method='mcmle')``.

Run by hand:  python benchmarks/bench_dixon.py [--seeds 1 2 3] [--model gwesp|tutorial|both]
              python benchmarks/bench_dixon.py --seeds 1 --model gwesp --eval-loglik

For each seed it prints the outcome (converged, or the error), the estimates and
their standard errors, the start (MPLE, or the fall-back's note), the iterations
and the CPU seconds of this process (the chains run in it: n_jobs=1) with the load
average beside them (the machine may be shared), and finally the spread of the
estimates over the seeds next to their standard errors.

Measured (this checkout after 63c6103, eval_loglik=False, machine shared, load 6-10):
  gwesp(0.5):  every seed's first attempt (from the MPLE) swings; the fall-back from EE
               converges.  seed 1: 165 CPU s, seed 2: 211, seed 3: 251;
               edges -5.7284/-5.7287/-5.7301 (s.e. 0.062), mutual 1.984/1.982/1.984 (0.12),
               nodematch.grade 1.186/1.187/1.186 (0.053), .race 0.783/0.782/0.784 (0.052),
               .sex 0.227/0.228/0.229 (0.048), gwesp 0.917/0.917/0.917 (0.036).
  tutorial:    the same path; seed 1: 48 CPU s, seed 2: 43, seed 3: 35; edges -5.811/-5.810/
               -5.809 (0.08), gwidegree 0.523/0.525/0.518 (0.21), gwodegree -0.838/-0.838/
               -0.842 (0.17), dgwesp 1.177/1.178/1.177 (0.06).
  Before (CD start in the fall-back): DegenerateModelError or > 20 min (see #22's notes).
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

# this checkout's ergmfit (built in place), not an installed copy
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ergmfit as ef  # noqa: E402

MODELS = {
    "gwesp": ("edges + mutual + nodematch('grade') + nodematch('race') + nodematch('sex')"
              " + gwesp(0.5, fixed=TRUE)"),
    "tutorial": ("edges + mutual + nodematch('grade') + nodematch('race') + nodematch('sex')"
                 " + gwidegree(0.5, fixed=TRUE) + gwodegree(0.5, fixed=TRUE)"
                 " + dgwesp(0.25, fixed=TRUE, type='OTP')"),
}


def run(formula, seed, eval_loglik, verbose=False):
    model = ef.ERGM("faux.dixon.high", formula)
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = model.fit(method="mcmle", random_state=seed, verbose=verbose,
                            eval_loglik=eval_loglik)
        except ef.exceptions.ErgmfitError as exc:
            return None, time.process_time() - c0, f"{type(exc).__name__}: {exc}"
    return fit, time.process_time() - c0, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--model", choices=["gwesp", "tutorial", "both"], default="both")
    ap.add_argument("--eval-loglik", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="MCMC-MLE's progress bars")
    a = ap.parse_args()
    print(f"ergmfit from {os.path.dirname(ef.__file__)}")
    names = ["gwesp", "tutorial"] if a.model == "both" else [a.model]
    for name in names:
        print(f"\n== faux.dixon.high ~ {MODELS[name]}")
        fits = []
        for seed in a.seeds:
            fit, cpu, err = run(MODELS[name], seed, a.eval_loglik, a.verbose)
            load = os.getloadavg()[0]
            if err:
                print(f"seed {seed}: FAILED after {cpu:.0f} CPU s (load {load:.1f}): {err[:400]}")
                continue
            fits.append(fit)
            se = np.sqrt(np.diag(np.asarray(fit.cov)))
            start = fit.info.get("fallback") or f"start {fit.info.get('init_method')}"
            print(f"seed {seed}: converged={fit.converged}, {fit.n_iter} iterations, "
                  f"{cpu:.0f} CPU s (load {load:.1f}); {start[:160]}{'...' if len(start) > 160 else ''}")
            for lab, p, s in zip(fit.labels, np.asarray(fit.params), se):
                print(f"    {lab:<24} {p:9.4f} ({s:.4f})")
        if len(fits) > 1:
            P = np.array([np.asarray(f.params) for f in fits])
            se = np.array([np.sqrt(np.diag(np.asarray(f.cov))) for f in fits]).mean(axis=0)
            print("spread over seeds (max - min) / mean s.e.: "
                  + ", ".join(f"{lab} {(P[:, k].max() - P[:, k].min()) / se[k]:.2f}"
                              for k, lab in enumerate(fits[0].labels)))


if __name__ == "__main__":
    main()
