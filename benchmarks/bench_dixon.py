"""faux.dixon.high with MCMC-MLE (issue 22 item 1): the near-degenerate gwesp(0.5) model
and the directed tutorial's model, fitted by the default ``fit(method='mcmle')``.

Run by hand:  python benchmarks/bench_dixon.py [--seeds 1 2 3] [--model gwesp|tutorial|both]
              python benchmarks/bench_dixon.py --seeds 1 --model gwesp --eval-loglik

For each seed it prints the outcome (converged, or the error), the estimates and
their standard errors, the start (MPLE, or the fall-back's note), the iterations
and the CPU seconds of this process (the chains run in it: n_jobs=1) with the load
average beside them (the machine may be shared), and finally the spread of the
estimates over the seeds next to their standard errors.
"""
import argparse
import os
import time
import warnings

import numpy as np

import ergmfit as ef

MODELS = {
    "gwesp": ("edges + mutual + nodematch('grade') + nodematch('race') + nodematch('sex')"
              " + gwesp(0.5, fixed=TRUE)"),
    "tutorial": ("edges + mutual + nodematch('grade') + nodematch('race') + nodematch('sex')"
                 " + gwidegree(0.5, fixed=TRUE) + gwodegree(0.5, fixed=TRUE)"
                 " + dgwesp(0.25, fixed=TRUE, type='OTP')"),
}


def run(formula, seed, eval_loglik):
    model = ef.ERGM("faux.dixon.high", formula)
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = model.fit(method="mcmle", random_state=seed, verbose=False,
                            eval_loglik=eval_loglik)
        except ef.exceptions.ErgmfitError as exc:
            return None, time.process_time() - c0, f"{type(exc).__name__}: {exc}"
    return fit, time.process_time() - c0, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--model", choices=["gwesp", "tutorial", "both"], default="both")
    ap.add_argument("--eval-loglik", action="store_true")
    a = ap.parse_args()
    names = ["gwesp", "tutorial"] if a.model == "both" else [a.model]
    for name in names:
        print(f"\n== faux.dixon.high ~ {MODELS[name]}")
        fits = []
        for seed in a.seeds:
            fit, cpu, err = run(MODELS[name], seed, a.eval_loglik)
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
