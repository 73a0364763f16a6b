"""Proposals per CPU second of the constrained proposals beside unconstrained
tie/no-tie, on faux.magnolia.high (issue #18: within 2x of TNT).

    python benchmarks/bench_constraints.py [--steps 2000000]

Each sampler runs at the MPLE of ``edges + gwesp(0.25, fixed=TRUE) +
nodematch('Grade')`` (so that acceptance rates are realistic) from the
observed network.  Moves of several toggles are scored in stages (see
``ergmfit/sampling/_constrained.pyx``): the terms whose change statistic reads
no tie (here edges and nodematch) first, then delayed acceptance on the others
(gwesp); the "edges + gwesp" row has no such term to screen with, and the
"no delayed acc." rows score every move by plain Metropolis-Hastings, here
(gwesp the only term that reads ties) with gwesp's exact change computed in one
pass with no toggle applied.  degreedist's neighbourhood exchanges relabel two
nodes, which leaves gwesp unchanged: only nodematch scores them.

Columns: ``proposals/CPU s`` counts every draw of the proposal, including
"no move" draws (a swap whose new ties exist already or whose four nodes are
not distinct: the chain stays, which keeps the chain exact); ``moves/CPU s``
counts only the real moves.  The latter is the figure to set beside statnet's
``degrees`` proposal: its documentation describes CondDegreeTetrad (undirected
``constraints=~degrees``) as selecting two ties with no node in common whose
swapped pairs are not ties, i.e. every statnet proposal is a 4-toggle swap.
Both are compared with tie/no-tie, where every proposal is a 1-toggle move.
"""
import argparse
import time

import numpy as np

import ergmfit as ef

FORMULA = "edges + gwesp(0.25, fixed=TRUE) + nodematch('Grade')"


def rate(model, theta, proposal, steps, delayed=None):
    """(proposals, moves) per CPU s and the acceptance rate of ``steps`` steps."""
    sampler, _ = model.sampler(theta, proposal=proposal, random_state=1)
    if delayed is not None:
        sampler.proposal.delayed = delayed
    sampler.run(theta, steps // 10)
    moves0 = getattr(sampler, "n_moves", None)
    t = time.process_time()
    sampler.run(theta, steps)
    dt = time.process_time() - t
    moves = steps if moves0 is None else sampler.n_moves - moves0
    return steps / dt, moves / dt, sampler.acceptance_rate


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2_000_000)
    ap.add_argument("--only", default=None,
                    help="comma-separated constraint rows to run (e.g. 'degrees,degreedist'); "
                         "tie/no-tie always runs (the reference)")
    args = ap.parse_args()
    only = None if args.only is None else [w.strip() for w in args.only.split(",")]

    def wanted(cons):
        return only is None or cons.strip("~ ") in only
    g = ef.datasets.load("faux.magnolia.high")
    base = ef.ERGM(g, FORMULA)
    theta = np.asarray(base.fit(method="mple").params, dtype=float)
    maxdeg = int(np.bincount(base.network.ties.ravel()).max())
    ref, _, acc = rate(base, theta, "tnt", args.steps)
    print(f"{'space':36s} {'proposals/CPU s':>16s} {'vs TNT':>7s} {'moves/CPU s':>13s} "
          f"{'vs TNT':>7s} {'accept':>7s}")

    def row(name, r, mv, acc):
        print(f"{name:36s} {r:16,.0f} {r / ref:7.2f} {mv:13,.0f} {mv / ref:7.2f} {acc:7.3f}")

    row("all dyads, tnt", ref, ref, acc)
    for cons in (f"~ bd(maxout={maxdeg})", "~ degrees", "~ edges", "~ blockdiag('Grade')",
                 "~ degreedist"):
        if not wanted(cons):
            continue
        row(cons, *rate(base.with_constraints(cons), theta, "auto", args.steps))
    if only is not None:
        return
    # a model with no tie-free term but edges (whose changes cancel in a swap)
    plain = ef.ERGM(g, "edges + gwesp(0.25, fixed=TRUE)")
    th2 = np.asarray(plain.fit(method="mple").params, dtype=float)
    row("~ degrees, edges + gwesp", *rate(plain.with_constraints("~ degrees"), th2, "auto",
                                          args.steps))
    # the same multi-toggle moves scored toggle by toggle (no delayed acceptance)
    for cons in ("~ degrees", "~ edges"):
        row(cons + " (no delayed acc.)",
            *rate(base.with_constraints(cons), theta, "auto", args.steps, delayed=False))


if __name__ == "__main__":
    main()
