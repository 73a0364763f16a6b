"""CPU seconds of the ergm.multi reference fits (samplk3w's N() models, lazega2l's L()
models) beside ergm.multi 0.1.2's, from tests/reference/statnet_multi.json
(``cpu_seconds_fit``: user + system CPU of the R process, same kind of machine).

    PYTHONPATH=. python benchmarks/bench_multi.py [--seeds 1 2]

Each row: the estimator, ergmfit's CPU seconds (process time, mean over the seeds for
MCMC-MLE), statnet's (mean over its seeds) and the ratio statnet / ergmfit.  The fits use
each estimator's defaults, as statnet's calls did (``MCMLE.maxit=30``); statnet's MCMC-MLE
calls skip the log-likelihood (``eval.loglik=FALSE``), and so do these (``eval_loglik=False``:
the bridge sampling would add about half again to the fit).
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    cases = json.loads((ROOT / "tests" / "reference" / "statnet_multi.json")
                       .read_text(encoding="utf-8"))["cases"]
    fits = [c for c in cases if c["kind"] == "fit"]
    ef.ERGM(DATASETS["samplk3w"](), "N(~edges)").fit(method="mple")   # imports, first calls
    print(f"{'model':28s} {'method':6s} {'ergmfit CPU s':>14s} {'statnet CPU s':>14s} "
          f"{'ratio':>7s}")
    for model in sorted({c["model"] for c in fits}):
        mine = [c for c in fits if c["model"] == model]
        m = ef.ERGM(DATASETS[mine[0]["dataset"]](), mine[0]["formula"].split("~", 1)[1].strip())
        for est, method, seeds in (("MPLE", "mple", [None]), ("MLE", "mcmle", args.seeds)):
            ref = np.mean([c["cpu_seconds_fit"] for c in mine if c["estimate"] == est])
            times = []
            for seed in seeds:
                t = time.process_time()
                m.fit(method=method, random_state=seed,
                      **({"eval_loglik": False} if method == "mcmle" else {}))
                times.append(time.process_time() - t)
            ours = float(np.mean(times))
            print(f"{model[6:]:28s} {method:6s} {ours:14.3f} {ref:14.3f} {ref / ours:7.1f}")


if __name__ == "__main__":
    main()
