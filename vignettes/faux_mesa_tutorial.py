"""faux.mesa.high: statnet's ERGM tutorial model, simulation and goodness of fit.

Run from the repository root (after ``pip install ".[plot]"``)::

    python vignettes/faux_mesa_tutorial.py

The statnet tutorial ("Introduction to ERGMs") builds up a model of the
simulated Add Health school ``faux.mesa.high`` (205 students, 203 friendship
ties) in three steps; this script takes the same steps in ergmfit, with the R
call each one replaces:

1. the network, its attributes and the grade mixing matrix
   (``mixingmatrix(mesa, "Grade")``, ``plot(mesa, vertex.col = "Grade")``)
2. a Bernoulli model, then grade homophily -- dyad-independent, so the MPLE is
   the MLE (``ergm(mesa ~ edges + nodefactor("Grade") + nodematch("Grade",
   diff = TRUE))``)
3. the tutorial model with GWESP, by MCMC-MLE, beside statnet's fit
   (``ergm(mesa ~ ... + gwesp(0.25, fixed = TRUE))``)
4. simulation from the fit (``simulate(fit, nsim = 10)``)
5. goodness of fit (``gof(fit)``, ``plot(gof(fit))``)

Figures go to ``--out DIR``, ``$ERGMFIT_FIGURES`` or a fresh temporary directory; ``ERGMFIT_QUICK=1``
shrinks the samples to a smoke test.  The full run takes a minute or two.
"""
from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np

from _tutorial import (FIGURES, QUICK, SEED, ef, figure, fit_and_report, ours, section,
                       side_by_side, statnet_fit)
from ergmfit import plotting

TUTORIAL_MODEL = ("edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE)"
                  " + gwesp(0.25, fixed=TRUE)")
MCMLE = dict(samplesize=128, maxit=3, eval_loglik=False) if QUICK else {}
N_SIM = 20 if QUICK else 100
N_NETWORKS = 3 if QUICK else 10


def mixing_matrix(g, attr):
    levels = sorted({d[attr] for _, d in g.nodes(data=True)})
    idx = {v: k for k, v in enumerate(levels)}
    M = np.zeros((len(levels), len(levels)), dtype=int)
    for u, v in g.edges():
        a, b = idx[g.nodes[u][attr]], idx[g.nodes[v][attr]]
        M[a, b] += 1
        if a != b:
            M[b, a] += 1
    return levels, M


def main():
    t_start = time.perf_counter()
    print(f"ergmfit {ef.__version__}: the faux.mesa.high tutorial"
          + (" (ERGMFIT_QUICK: small samples, a smoke test)" if QUICK else ""))

    # 1. data ------------------------------------------------------------------
    section("1. The network")
    g = ef.datasets.load("faux.mesa.high")
    info = ef.datasets.info("faux.mesa.high")
    n, m_ties = g.number_of_nodes(), g.number_of_edges()
    print(f"{info.description}; licence: {info.licence}")
    print(f"{n} nodes, {m_ties} ties, density {2 * m_ties / (n * (n - 1)):.5f}; "
          f"isolates: {sum(1 for v in g if g.degree(v) == 0)}")
    for a in ("Grade", "Race", "Sex"):
        values = [d[a] for _, d in g.nodes(data=True)]
        print(f"  {a:<6} " + ", ".join(f"{v}: {values.count(v)}" for v in sorted(set(values))))
    levels, M = mixing_matrix(g, "Grade")
    print("\nmixingmatrix(mesa, 'Grade') -- ties between grades (undirected, symmetric):")
    print("      " + "".join(f"{lv:>5}" for lv in levels))
    for lv, row in zip(levels, M):
        print(f"{lv:>5} " + "".join(f"{x:>5}" for x in row))
    plotting.draw_network(g, figure("faux_mesa_network.png"), color_by="Grade", labels=False,
                          title="faux.mesa.high, coloured by grade")

    # 2. dyad-independent models ----------------------------------------------------
    section("2. Dyad-independent models (the MPLE is the MLE)")
    m1 = ef.ERGM(g, "edges")
    fit1 = fit_and_report(m1, "mple")
    print(fit1.summary())
    p = 1 / (1 + math.exp(-float(fit1.params["edges"])))
    print(f"edges coefficient {float(fit1.params['edges']):.4f}: "
          f"tie probability logit^-1 = {p:.5f} = the density\n")
    m2 = ef.ERGM(g, "edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE)")
    print("summary(mesa ~ edges + nodefactor('Grade') + nodematch('Grade', diff=TRUE)):")
    for lab, val in m2.statistics().items():
        print(f"  {lab:<22} {val:6.0f}")
    fit2 = fit_and_report(m2, "mple")
    print(fit2.summary())

    # 3. the tutorial model -------------------------------------------------------------
    section("3. The tutorial model with GWESP, by MCMC-MLE")
    model = ef.ERGM(g, TUTORIAL_MODEL)
    print(f"formula: {TUTORIAL_MODEL}")
    mple = fit_and_report(model, "mple")
    fit = fit_and_report(model, "mcmle", **MCMLE)
    print(fit.summary())
    cols = {"ergmfit MPLE": ours(mple), "ergmfit MCMC-MLE": ours(fit)}
    for title, name in (("statnet MPLE", "d_faux.mesa.high_grade_gwesp0.25.MPLE"),
                        ("statnet MLE", "d_faux.mesa.high_grade_gwesp0.25.MLE.seed101")):
        ref = statnet_fit(name)
        if ref is not None and not ref.get("error"):
            cols[title] = (ref["coef"], ref["stderr"])
            if title == "statnet MLE" and not QUICK:
                print(f"statnet's MCMC-MLE took {ref['wall_seconds']:.0f} s "
                      f"(ergmfit's: {fit.seconds:.0f} s)")
    print("\nEstimates (standard errors) beside statnet's:")
    side_by_side(model.labels, cols)
    print("\nReading it as the tutorial does: ties are more likely within a grade (nodematch,\n"
          "strongest in grade 7), and a positive GWESP coefficient says friends of friends\n"
          "become friends beyond what grade homophily explains.")

    # 4. simulation ------------------------------------------------------------------------
    section("4. Simulating from the fit: simulate(fit, nsim = ...)")
    sims = fit.simulate(n=N_NETWORKS, random_state=SEED + 1)
    obs_tri = sum(nx.triangles(g).values()) // 3
    print(f"{len(sims)} networks drawn from the fitted model (networkx graphs with the "
          "students' attributes):")
    print(f"  {'':>10} {'ties':>6} {'triangles':>10} {'isolates':>9} {'max degree':>11}")
    print(f"  {'observed':>10} {g.number_of_edges():>6} {obs_tri:>10} "
          f"{sum(1 for v in g if g.degree(v) == 0):>9} {max(d for _, d in g.degree()):>11}")
    for k, s in enumerate(sims, 1):
        tri = sum(nx.triangles(s).values()) // 3
        iso = sum(1 for v in s if s.degree(v) == 0)
        print(f"  {'sim ' + str(k):>10} {s.number_of_edges():>6} {tri:>10} {iso:>9} "
              f"{max(d for _, d in s.degree()):>11}")
    S = model.simulate(fit.params, n=N_SIM, output="stats", random_state=SEED + 2,
                       interval=fit.info.get("final_interval", 1024))
    obs = model.statistics_vector()
    print(f"\nsimulate(..., output = 'stats'): {N_SIM} networks, the model's statistics")
    print(f"  {'statistic':<22} {'observed':>10} {'sim mean':>10} {'sim sd':>9}")
    for lab, o, mu, sd in zip(model.labels, obs, S.mean(axis=0), S.std(axis=0)):
        print(f"  {lab:<22} {o:10.2f} {mu:10.2f} {sd:9.2f}")
    plotting.draw_network(sims[0], figure("faux_mesa_simulated.png"), color_by="Grade",
                          labels=False, title="a network simulated from the fitted model")

    # 5. goodness of fit ---------------------------------------------------------------------
    section("5. Goodness of fit: gof(fit)")
    t0 = time.perf_counter()
    gof = fit.gof(n_sim=N_SIM, random_state=SEED + 3)
    print(f"({N_SIM} simulated networks, {time.perf_counter() - t0:.1f} s)\n")
    print(gof)
    gof.plot(figure("faux_mesa_gof.png"),
             main="faux.mesa.high: goodness of fit of the tutorial model")
    bad = {blk: [r for r, pv in pvs.items() if pv < 0.05] for blk, pvs in gof.pvalues.items()}
    bad = {k: v for k, v in bad.items() if v}
    print("rows with MC p-value < 0.05: " + ("; ".join(f"{k}: {', '.join(v)}" for k, v in
                                                       bad.items()) or "none"))
    print(f"\nDone in {time.perf_counter() - t_start:.0f} s; figures in {FIGURES}")


if __name__ == "__main__":
    main()
