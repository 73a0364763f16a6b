"""Blocked CD under degree bounds (``bd``, issue #18): how many iterations and
CPU seconds BCD needs to settle, and where it settles, beside the MCMC-MLE.

    PYTHONPATH=. python benchmarks/bench_bcd_bd.py [--cases lazega_curved mesa_fixed ...]
                                                   [--seeds 1 2 3] [--modes before after]

Two starts and step matrices are compared on the same seeds:

* ``before`` (the code before this benchmark): the start is the MPLE, which
  ignores ``bd`` as statnet's does; a curved model's step matrix is
  (M / n) times the inverse unconstrained curved pseudo-likelihood
  information (a linear model's was already the constrained one below).
  Reproduced exactly by passing that start as ``init=`` and that matrix as
  ``precondition=``.
* ``after`` (the default now): the start is the MPLE restricted to the
  bounds (:func:`ergmfit.estimation.contrastive.blocks.bounded_pseudo_fit`), the step
  matrix C H_C^-1 from the constrained composite information of C blocks
  (J' H_C J for a curved model).

For each case, mode and seed, one BCD fit with the default settings (B4-CD1,
uniform blocks, 200 passes over the dyads) keeps a fine trace.  Columns:

* ``start``: the start's largest distance from the target, in MCMC-MLE s.e.;
* ``@5% @10% @25% @50%``: the same for the iterate after that share of
  the run; ``end``: for the estimate;
* ``it→0.25``: the first iteration after which every later trace point stays
  within 0.25 MCMC-MLE s.e. of the target in every coefficient;
* ``CPU→0.25``: the setup CPU s (start and step matrix, an ``n_iter=1`` fit;
  ``before`` adds the MPLE it now gets from outside) plus the loop's CPU s per
  iteration times ``it→0.25``; ``CPU``: the fit (``before``: plus that MPLE);
* ``z_mle``: the estimate's largest distance from the MCMC-MLE (s.e.).

The target is where BCD (m = 1 Gibbs step) settles: the mean of the
Polyak averages (last half) of ``--ref-factor`` times longer ``after`` runs
on seeds 101 and 102 (the maximum composite likelihood of the 4-blocks;
``method="mcle"`` would need over 10^6 blocks, 8 GB, on faux.mesa.high).
The load average is printed beside the figures.
"""
import argparse
import os
import time
import warnings

import numpy as np

import ergmfit as ef

CASES = {
    "lazega_curved": ("lazega", "edges + gwesp(fixed=FALSE) + nodematch('practice')",
                      "~ bd(maxout=15)"),
    "lazega_fixed": ("lazega", "edges + gwesp(0.693, fixed=TRUE) + nodematch('practice')",
                     "~ bd(maxout=15)"),
    "mesa_curved": ("faux.mesa.high", "edges + gwesp(fixed=FALSE) + nodematch('Grade')",
                    "~ bd(maxout=13)"),
    "mesa_fixed": ("faux.mesa.high", "edges + gwesp(0.25, fixed=TRUE) + nodematch('Grade')",
                   "~ bd(maxout=13)"),
    "samplike": ("samplike", "edges + mutual", "~ bd(maxout=6)"),
    "samplike_gwesp": ("samplike", "edges + mutual + gwesp(0.5, fixed=TRUE)",
                        "~ bd(maxout=6)"),
}


def settled(trace_it, trace, target, se, tol=0.25):
    """First trace iteration after which every point is within tol s.e."""
    ok = np.all(np.abs((np.asarray(trace) - target) / se) <= tol, axis=1)
    bad = np.flatnonzero(~ok)
    if len(bad) == 0:
        return 0
    if bad[-1] == len(ok) - 1:
        return None
    return int(trace_it[bad[-1] + 1])


def before_settings(m):
    """The start and step matrix BCD used before under bd: the MPLE ignoring
    the bounds; a curved model's step matrix from its unconstrained curved
    pseudo-likelihood information (a linear model's: "mple", which was
    already the constrained composite information at the start)."""
    mple = m.fit(method="mple")
    init = np.asarray(mple.params, dtype=float)
    if not m.curved:
        return {"init": init}
    M = m.compiled().n_vars
    return {"init": init, "precondition": (M / 4.0) * np.asarray(mple.cov, dtype=float)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--modes", nargs="+", default=["before", "after"])
    ap.add_argument("--ref-factor", type=int, default=4)
    ap.add_argument("--trace", type=int, default=2000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    shares = (0.05, 0.1, 0.25, 0.5)
    for name in args.cases:
        ds, formula, cons = CASES[name]
        m = ef.ERGM(ef.datasets.load(ds), formula, constraints=cons)
        mle = m.fit(method="mcmle", random_state=1)
        theta_mle = np.asarray(mle.params, dtype=float)
        se = np.sqrt(np.diag(mle.cov))
        ref = []
        for s in (101, 102):
            n_ref = args.ref_factor * max(20000, int(np.ceil(200 * m.compiled().n_vars / 4)))
            f = m.fit(method="bcd", random_state=s, trace=0, average=0.5, n_iter=n_ref)
            ref.append(np.asarray(f.params, dtype=float))
        target = np.mean(ref, axis=0)
        print(f"\n{name}: {ds} ~ {formula}, constraints {cons}   load {os.getloadavg()[0]:.1f}")
        print("  MCMC-MLE " + "  ".join(f"{lab} {v:.4f} ({s:.4f})" for lab, v, s in
                                        zip(m.labels, theta_mle, se)))
        print("  target   " + "  ".join(f"{v:.4f}" for v in target)
              + f"   (seeds 101/102 differ by {np.max(np.abs((ref[0] - ref[1]) / se)):.2f} s.e.)")
        print(f"  {'mode':6s} {'seed':>4s} {'start':>6s} " + " ".join(
            f"{'@' + format(q, '.0%'):>5s}" for q in shares) + f" {'end':>5s} {'it→0.25':>9s} "
            f"{'n_iter':>8s} {'CPU→0.25':>8s} {'CPU':>6s} {'setup':>6s} {'z_mle':>6s}  load")
        for mode in args.modes:
            t = time.process_time()
            kw = before_settings(m) if mode == "before" else {}
            outside = time.process_time() - t     # what the old fit computed inside
            for s in args.seeds:
                t = time.process_time()
                m.fit(method="bcd", n_iter=1, random_state=s, **kw)
                setup = time.process_time() - t + outside
                t = time.process_time()
                f = m.fit(method="bcd", random_state=s, trace=args.trace, **kw)
                cpu = time.process_time() - t + outside
                est = np.asarray(f.params, dtype=float)
                n_iter = f.info["n_iter"]
                its = np.asarray(f.info["trace_iterations"])
                tr = np.asarray(f.info["trace"])
                dist = np.max(np.abs((tr - target) / se), axis=1)
                at = [dist[np.searchsorted(its, q * n_iter)] for q in shares]
                it = settled(its, tr, target, se)
                per_it = max(cpu - setup, 0.0) / n_iter
                cpu_to = setup + per_it * it if it is not None else float("nan")
                print(f"  {mode:6s} {s:4d} {dist[0]:6.2f} " + " ".join(f"{v:5.2f}" for v in at)
                      + f" {dist[-1]:5.2f} {it if it is not None else 'never':>9} {n_iter:8d} "
                      f"{cpu_to:8.2f} {cpu:6.2f} {setup:6.2f} "
                      f"{np.max(np.abs((est - theta_mle) / se)):6.2f}  {os.getloadavg()[0]:.1f}",
                      flush=True)


if __name__ == "__main__":
    main()
