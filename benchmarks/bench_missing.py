"""A missing-data MCMC-MLE of faux.mesa.high against the complete-data fit
(issue #18: within 3x of the complete-data fit).

    python benchmarks/bench_missing.py [--seeds 1 2 3] [--no-loglik]

faux.mesa.high.na10 (statnet's reference network: 10 % of the dyads
unobserved, tests/reference/ext) is fitted twice per seed: once with its
missing dyads marked (the observed-data likelihood, two chains) and once
with the same ties and no dyad missing (the plain MCMC-MLE).  CPU seconds of
this process (time.process_time), the load average beside them.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

import ergmfit as ef

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from support import constraints_reference as cr  # noqa: E402

MODELS = {"edges + nodematch('Grade')": "s3.na.mesa_grade.MLE.s101",
          "edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)": "s3.na.mesa_grade_gwesp.MLE.s101"}


def one(model, seed, eval_loglik):
    c = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = model.fit(method="mcmle", random_state=seed, eval_loglik=eval_loglik)
    return time.process_time() - c, res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--no-loglik", action="store_true")
    args = ap.parse_args()
    entries = {e["id"]: e for e in cr.entries()}
    # warm up: the estimators' imports (scipy) are not timed
    e = entries[next(iter(MODELS.values()))]
    ef.ERGM(cr.network(e), "edges", missing=cr.missing(e)).fit(method="mple")
    for formula, eid in MODELS.items():
        e = entries[eid]
        net, miss = cr.network(e), cr.missing(e)
        full = ef.ERGM(net, formula)
        part = ef.ERGM(net, formula, missing=miss)
        print(f"{formula}: {part.sample_space.n_missing} missing dyads of {net.n_dyads}")
        ratios = []
        for seed in args.seeds:
            tf, rf = one(full, seed, not args.no_loglik)
            tm, rm = one(part, seed, not args.no_loglik)
            load = os.getloadavg()[0]
            if rf.info.get("exact_mle") and rm.info.get("exact_mle"):
                print(f"  seed {seed}: dyad-independent, both exact (the MPLE, no MCMC): "
                      f"complete {tf:.3f}, missing {tm:.3f} CPU s, load {load:.1f}")
                continue
            ratios.append(tm / tf)
            print(f"  seed {seed}: complete {tf:6.2f} CPU s ({rf.n_iter} it), missing "
                  f"{tm:6.2f} CPU s ({rm.n_iter} it), ratio {tm / tf:4.2f}, load {load:.1f}")
        if ratios:
            print(f"  median ratio {np.median(ratios):.2f} (target <= 3)")


if __name__ == "__main__":
    main()
