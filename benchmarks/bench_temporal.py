"""Temporal ERGMs: CPU seconds of CMLE, btergm, EGMME and dynamic simulation, beside
statnet's figures in /work/shared/reference/statnet_families.json where it has them.

Run by hand:  PYTHONPATH=. python benchmarks/bench_temporal.py [--seeds 1 2] [--nodes 100000]
              [--steps 200] [--skip cmle btergm egmme dynamic]

1. CMLE: each ``temporal_cmle`` fit of section 2_temporal (samplk's three waves) that
   tergm fitted by MCMC, at tergm's seeds, beside its ``cpu_seconds_fit``.
2. btergm: R = 1,000 bootstrap replicates of each btergm fit of section 3_btergm.
3. EGMME: tergm's tutorial, ``flobusiness ~ Form(~edges + gwesp(0, fixed=TRUE)) +
   Persist(~offset(edges))`` with ``offset.coef=log(9)`` and the targets ``~edges +
   gwesp(0, fixed=TRUE)`` (issue 32's check: < 60 CPU s; tergm: > 1 hour), and the same
   with ``Diss(~offset(edges))`` beside tergm's shortened run in the reference file
   (``t.fit.flobusiness_egmme_shortSA``): each seed's distance in tergm s.e. and the
   distance of the seeds' mean (issue 32's check: within 0.25 tergm s.e.); then
   ``gwesp(0.5, fixed=TRUE)`` and the free decay ``gwesp(0.5, fixed=FALSE)`` (default
   targets: the curved statistics, docs/egmme.md).
4. Dynamic simulation of an EpiModel-style edges-dissolution model, ``Form(~edges +
   nodematch("race")) + Persist(~offset(edges))`` (mean duration 50 steps) on ``--nodes``
   nodes with three races and a mean degree of 0.6, started from a cross-section:
   time steps per CPU second, with and without tie ages, and netdx-style diagnostics
   (mean duration of the completed spells, dissolution rate, target statistics per step
   against the start's).  The reference file has no tergm figure for it.
"""
import argparse
import json
import time
import warnings

import networkx as nx
import numpy as np

import ergmfit as ef

REFERENCE = "/work/shared/reference/statnet_families.json"


def reference_fits(section, feature=None):
    with open(REFERENCE) as fh:
        cases = json.load(fh)["sections"][section]
    return [c for c in cases if c.get("kind") == "fit" and c.get("status") == "ok"
            and (feature is None or c.get("feature") == feature)]


def cpu(fn):
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def samplk_series():
    return ef.NetSeries([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)])


def bench_cmle(seeds):
    print("== CMLE (samplk, 3 waves) ==")
    series = samplk_series()
    for case in reference_fits("2_temporal", "temporal_cmle"):
        if case["estimate"] != "MLE":
            continue
        formula = case["formula"].split("~", 1)[1].strip()
        m = ef.ERGM(series, formula)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(method="cmle", random_state=0)                  # warm up
            times = [cpu(lambda: m.fit(method="cmle", random_state=s))[1] for s in seeds]
        med = float(np.median(times))
        print(f"{case['id']:<55} ergmfit {med:7.3f} s   tergm {case['cpu_seconds_fit']:7.3f} s"
              f"   ratio {case['cpu_seconds_fit'] / med:6.1f}x")


def bench_btergm(seeds):
    print("== btergm (R = 1000) ==")
    for case in reference_fits("3_btergm"):
        print(f"{case['id']:<55} (reference {case.get('cpu_seconds_fit')} s): run "
              "benchmarks by hand with its data; not automated here")


def bench_egmme(seeds):
    print("== EGMME (flobusiness, tergm's tutorial) ==")
    g = ef.datasets.load("flobusiness")
    ref = {c["id"]: c for c in reference_fits("2_temporal", "temporal_egmme")}
    # the tutorial's model (Persist), the reference file's call (Diss), and gwesp(0.5) on
    # the steep stretch of its equilibrium (docs/egmme.md, 'Curved terms')
    for dissolution, ref_id, decay, fixed in (
            ("Persist", None, 0, True),
            ("Diss", "t.fit.flobusiness_egmme_shortSA.MLE.s1", 0, True),
            ("Persist", None, 0.5, True), ("Persist", None, 0.5, False)):
        gw = f"gwesp({decay:g}, fixed={'TRUE' if fixed else 'FALSE'})"
        m = ef.ERGM(g, f"Form(~edges + {gw}) + {dissolution}(~offset(edges))")
        k = 2 if fixed else 3
        estimates = []
        for s in seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit, sec = cpu(lambda: m.fit(method="egmme", targets=f"~edges + {gw}",
                                             offset_coef=[np.log(9)], random_state=s))
            coef = np.asarray(fit.params, dtype=float)
            se = np.asarray(fit.bse, dtype=float)
            estimates.append(coef[:2])
            line = (f"{dissolution:<8} {gw} seed {s}: {sec:6.2f} CPU s  coef {coef[:k].round(3)}  "
                    f"s.e. {se[:k].round(3)}  t {np.round(list(fit.info['t_ratios'].values()), 3)}  "
                    f"converged {fit.converged}")
            means, mcse = fit.info["target_means"], fit.info["target_mc_se"]
            if means is not None:
                line += "\n          equilibrium means " + ", ".join(
                    f"{k} {means[k]:.2f} ± {mcse[k]:.2f} (target {v:g})"
                    for k, v in fit.info["targets"].items())
                line += f"; bistable: {fit.info.get('bistable') or 'no'}"
            if ref_id in ref:
                r = ref[ref_id]
                rc = np.array([r["coef"]["Form~edges"], r["coef"]["Form~gwesp.fixed.0"]])
                rs = np.array([r["se"]["Form~edges"], r["se"]["Form~gwesp.fixed.0"]])
                line += (f"\n          tergm (short SA) {rc.round(3)} s.e. {rs.round(3)} in "
                         f"{r['cpu_seconds_fit']:.1f} CPU s; |diff|/tergm s.e. "
                         f"{np.abs(coef[:2] - rc) / rs}")
            print(line)
        if ref_id in ref and len(estimates) > 1:
            mean = np.mean(estimates, axis=0)
            print(f"          seeds' mean {mean.round(3)}: |diff|/tergm s.e. "
                  f"{(np.abs(mean - rc) / rs).round(3)}")


def eda_network(n, seed=1):
    rng = np.random.default_rng(seed)
    g = nx.empty_graph(n)
    race = rng.integers(0, 3, n)
    nx.set_node_attributes(g, {i: int(race[i]) for i in range(n)}, "race")
    e = rng.integers(0, n, size=(int(0.3 * n), 2))
    g.add_edges_from(map(tuple, e[e[:, 0] != e[:, 1]].tolist()))
    return g


def bench_dynamic(n, steps):
    from ergmfit.temporal.chain import DynamicChain
    print(f"== dynamic simulation, EDA model, {n:,} nodes ==")
    g = eda_network(n)
    duration = 50.0
    m = ef.ERGM(ef.NetSeries([g, g]),
                "Form(~edges + nodematch('race')) + Persist(~offset(edges))")
    eta = np.array([-16.6, 1.5, np.log(duration - 1)])
    chain, sec = cpu(lambda: DynamicChain(m, cross="edges + nodematch('race')",
                                          random_state=1))
    print(f"set-up {sec:.2f} CPU s (exact steps: {chain.exact})")
    start = ef.ERGM(g, "edges + nodematch('race')").statistics_vector()
    r, sec = cpu(lambda: chain.run(eta, steps))
    print(f"{steps} steps without ages: {sec:.2f} CPU s = {steps / sec:.1f} steps per CPU s")
    r, sec = cpu(lambda: chain.run(eta, steps, ages=True))
    print(f"{steps} steps with tie ages: {sec:.2f} CPU s = {steps / sec:.1f} steps per CPU s")
    diss = r.dissolved / np.concatenate([[r.n_ties[0]], r.n_ties[:-1]])
    print(f"netdx: mean duration of {len(chain.durations)} completed spells "
          f"{np.mean(chain.durations):.1f} steps (target {duration:.0f}; spells are "
          f"right-truncated by the run's length); dissolution rate {diss.mean():.4f} "
          f"(target {1 / duration:.4f})")
    print(f"       targets per step (mean, sd) {r.cross.mean(axis=0).round(1)} "
          f"{r.cross.std(axis=0).round(1)}; at the start {start}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--skip", nargs="*", default=[])
    a = ap.parse_args()
    if "cmle" not in a.skip:
        bench_cmle(a.seeds)
    if "btergm" not in a.skip:
        bench_btergm(a.seeds)
    if "egmme" not in a.skip:
        bench_egmme(a.seeds)
    if "dynamic" not in a.skip:
        bench_dynamic(a.nodes, a.steps)


if __name__ == "__main__":
    main()
