"""Proposals per CPU second of the constrained proposals beside unconstrained
tie/no-tie, on faux.magnolia.high (issue #18: within 2x of TNT).

    python benchmarks/bench_constraints.py [--steps 2000000]

Each sampler runs at the MPLE of ``edges + gwesp(0.25, fixed=TRUE) +
nodematch('Grade')`` (so that acceptance rates are realistic) from the
observed network.  Moves of several toggles are scored by delayed acceptance
(see ``ergmfit/sampling/_constrained.pyx``); the last rows score them toggle by
toggle for comparison.
"""
import argparse
import time

import numpy as np

import ergmfit as ef

FORMULA = "edges + gwesp(0.25, fixed=TRUE) + nodematch('Grade')"


def rate(model, theta, proposal, steps, delayed=None):
    sampler, _ = model.sampler(theta, proposal=proposal, random_state=1)
    if delayed is not None:
        sampler.proposal.delayed = delayed
    sampler.run(theta, steps // 10)
    t = time.process_time()
    sampler.run(theta, steps)
    return steps / (time.process_time() - t), sampler.acceptance_rate


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2_000_000)
    args = ap.parse_args()
    g = ef.datasets.load("faux.magnolia.high")
    base = ef.ERGM(g, FORMULA)
    theta = np.asarray(base.fit(method="mple").params, dtype=float)
    maxdeg = int(np.bincount(base.network.ties.ravel()).max())
    ref, _ = rate(base, theta, "tnt", args.steps)
    print(f"{'space':34s} {'proposals/CPU s':>16s} {'vs TNT':>7s} {'accept':>7s}")
    print(f"{'all dyads, tnt':34s} {ref:16,.0f} {1.0:7.2f}")
    for cons in (f"~ bd(maxout={maxdeg})", "~ degrees", "~ edges", "~ blockdiag('Grade')",
                 "~ degreedist"):
        r, acc = rate(base.with_constraints(cons), theta, "auto", args.steps)
        print(f"{cons:34s} {r:16,.0f} {r / ref:7.2f} {acc:7.3f}")
    # the same multi-toggle moves scored toggle by toggle (no delayed acceptance)
    for cons in ("~ degrees", "~ edges"):
        r, acc = rate(base.with_constraints(cons), theta, "auto", args.steps, delayed=False)
        print(f"{cons + ' (no delayed acc.)':34s} {r:16,.0f} {r / ref:7.2f} {acc:7.3f}")


if __name__ == "__main__":
    main()
