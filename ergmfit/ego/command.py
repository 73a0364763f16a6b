"""``ergmfit ego``: egocentric statistics with survey s.e., or an ergm.ego fit, from CSV files
in egor's layout (the command line's front; the table printing is the results' own)."""
from __future__ import annotations

import json

import numpy as np

from .data import EgoData


def configure(p):
    """The arguments of ``ergmfit ego``."""
    p.add_argument("egos", metavar="EGOS", help="CSV: one row per ego (id, attributes, weight)")
    p.add_argument("alters", metavar="ALTERS", help="CSV: one row per ego-alter tie "
                                                    "(ego id, alter attributes)")
    p.add_argument("formula", metavar="FORMULA",
                   help="ego terms, statnet style, e.g. \"edges + nodematch('sex') + degree(0:2)\"")
    p.add_argument("--alter-ties", metavar="CSV",
                   help="ties among each ego's alters (ego id, two alter ids): esp, gwesp")
    p.add_argument("--ego-id", default="egoID", help="the ego id column (default egoID)")
    p.add_argument("--alter-id", default="alterID", help="the alter id column (default alterID)")
    p.add_argument("--weights", metavar="COLUMN", help="the egos' sampling-weight column")
    p.add_argument("--strata", metavar="COLUMN", help="the egos' stratum column")
    p.add_argument("--popsize", type=float, default=None,
                   help="population size N: the statistics are scaled to it and a fit "
                        "refers to it (ergm.ego's popsize / scaleto)")
    p.add_argument("--fit", action="store_true",
                   help="fit the model as ergm.ego (default: print the statistics)")
    p.add_argument("--ppop-wt", choices=("round", "sample"), default="round",
                   help="pseudo-population: each ego round(N' w/sum w) times, or N' egos "
                        "drawn in proportion to the weights (ergm.ego's ppop.wt)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed of an MCMC fit (and of --ppop-wt sample)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args, print_table, format_value):
    """Run ``ergmfit ego``; ``print_table`` and ``format_value`` are the command line's."""
    ego = EgoData(args.egos, args.alters, alter_ties=args.alter_ties, ego_id=args.ego_id,
                  alter_id=args.alter_id, weights=args.weights, strata=args.strata)
    if args.fit:
        from .model import EgoERGM
        rng = np.random.default_rng(args.seed)
        fit = EgoERGM(ego, args.formula, popsize=1 if args.popsize is None
                      else args.popsize, ppop_wt=args.ppop_wt,
                      random_state=rng).fit(random_state=rng)
        if args.json:
            print(json.dumps({"coef": dict(zip(fit.labels, map(float, fit.params))),
                              "se": dict(zip(fit.labels, map(float, fit.bse))),
                              "popsize": fit.ego_info["popsize"],
                              "ppopsize": fit.ego_info["ppopsize"]}))
        else:
            print(fit.summary())
        return 0
    from .egostats import statistics
    s = statistics(ego, args.formula, scaleto=args.popsize, se=True)
    if args.json:
        print(json.dumps({"stats": {k: float(v) for k, v in s.stats.items()},
                          "se": {k: float(v) for k, v in s.se.items()},
                          "vcov": np.asarray(s.vcov).tolist(), "scaleto": s.scaleto}))
        return 0
    print_table(["statistic", "mean", "SE"],
                [[lab, format_value(m), format_value(e)]
                 for lab, m, e in zip(s.labels, s.stats, s.se)], right=(1, 2))
    return 0
