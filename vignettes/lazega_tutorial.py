"""The Lazega law firm: an ERGM session as a statnet user knows it.

Run from the repository root (after ``pip install ".[plot]"``)::

    python vignettes/lazega_tutorial.py

What it does, with the statnet call each step replaces:

1. the network and its attributes               (``lazega``, ``plot(lazega)``)
2. observed statistics, beside statnet's         (``summary(lazega ~ ...)``)
3. a degenerate model: edges + kstar(2) + triangle, as statnet meets it
4. the classic covariate specification fitted by MPLE, MCMC-MLE and -- when
   this build has it -- Equilibrium Expectation, side by side with statnet's
   fits of the same model (``ergm(lazega ~ ...)``)
5. MCMC diagnostics as trace plots                (``mcmc.diagnostics(fit)``)
6. goodness of fit, printed and drawn             (``gof(fit)``, ``plot(gof(fit))``)
7. saving the fit and reading it back             (``save(fit)``)

Figures are written (PNG) to the directory given by ``--out DIR``, else the
environment variable ``ERGMFIT_FIGURES``, else a fresh temporary directory
(``--out vignettes/figures`` refreshes the committed ones).  ``ERGMFIT_QUICK=1`` shrinks every
sample (a smoke test of a few seconds; its numbers are not estimates to
trust).  The full run takes about a minute or two.
"""
from __future__ import annotations

import pathlib
import tempfile
import time

import numpy as np

from _tutorial import (FIGURES, QUICK, SEED, ee_available, ef, figure, fit_and_report,
                       load_json, ours, section, short, side_by_side, statnet_fit, theirs)
from ergmfit import plotting
from ergmfit.results import ERGMResults

COVARIATE_MODEL = ("edges + gwesp(log(3), fixed=TRUE) + nodecov('seniority') + nodecov('practice')"
                   " + nodematch('practice') + nodematch('gender') + nodematch('office')")

# MCMC sizes: statnet's defaults, or small ones for the smoke test
MCMLE = dict(samplesize=256, maxit=6, eval_loglik=False) if QUICK else {}
EE = dict(s_steps=20, ee_steps=20, ee_inner_steps=20, se_samplesize=100) if QUICK else {}
N_SIM = 20 if QUICK else 100
N_TRACE = 100 if QUICK else 1000


def ee_trajectory(fit):
    """(iterations, theta, statistics minus observed) of the first EE chain, or None."""
    traj = fit.info.get("trajectory")
    try:
        chain = traj[0] if isinstance(traj, list) else traj
        theta = np.asarray(chain["theta"], dtype=float)
        dz = chain.get("dzA")
        dz = None if dz is None else np.asarray(dz, dtype=float)
        if theta.ndim != 2 or theta.shape[1] != len(fit.labels):
            return None
        if dz is not None and dz.shape != theta.shape:
            dz = None
        return np.asarray(chain.get("iteration", np.arange(len(theta)))), theta, dz
    except (KeyError, IndexError, TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------
def main():
    t_start = time.perf_counter()
    print(f"ergmfit {ef.__version__}: the Lazega law firm tutorial"
          + (" (ERGMFIT_QUICK: small samples, a smoke test)" if QUICK else ""))

    # 1. the data -----------------------------------------------------------
    section("1. The network")
    g = ef.datasets.load("lazega")
    info = ef.datasets.info("lazega")
    n, m_ties = g.number_of_nodes(), g.number_of_edges()
    print(f"{info.description}")
    print(f"source: {info.source}")
    print(f"{n} nodes, {m_ties} ties, density {2 * m_ties / (n * (n - 1)):.4f}, "
          f"{'directed' if g.is_directed() else 'undirected'}")
    attrs = sorted({a for _, d in g.nodes(data=True) for a in d})
    print(f"node attributes: {', '.join(attrs)}")
    for a in ("office", "practice", "gender"):
        values = [d[a] for _, d in g.nodes(data=True)]
        counts = {v: values.count(v) for v in sorted(set(values))}
        print(f"  {a:<9} " + ", ".join(f"{v}: {c}" for v, c in counts.items()))
    sen = np.array([d["seniority"] for _, d in g.nodes(data=True)], dtype=float)
    print(f"  seniority  min {sen.min():.0f}, mean {sen.mean():.1f}, max {sen.max():.0f}")
    plotting.draw_network(g, figure("lazega_network.png"), color_by="office",
                          title="Lazega law firm: co-work ties, coloured by office")

    # 2. observed statistics ---------------------------------------------------
    section("2. Observed statistics: summary(lazega ~ ...)")
    stats = load_json("statnet_stats.json")
    rows = [e for e in (stats or {}).get("evaluations", []) if e["dataset"] == "lazega"]
    if rows:
        print(f"{'term':<34} {'label':<32} {'ergmfit':>14} {'statnet':>14}")
        worst = 0.0
        for e in rows:
            ours_ = ef.ERGM(g, e["term"]).statistics()
            for lab, ref in e["stats"].items():
                val = ours_.get(lab, float("nan"))
                worst = max(worst, abs(val - ref) / max(1.0, abs(ref)))
                print(f"{e['term']:<34} {lab:<32} {val:>14.6g} {ref:>14.6g}")
        print(f"largest relative difference from statnet: {worst:.2g}")
    else:
        print("(tests/reference/statnet_stats.json not found: statnet's values are not shown)")
    model = ef.ERGM(g, COVARIATE_MODEL)
    print("\nThe covariate model's statistics:")
    for lab, val in model.statistics().items():
        print(f"  {lab:<30} {val:12.4f}")

    # 3. a degenerate model -------------------------------------------------------
    section("3. A degenerate model: edges + kstar(2) + triangle")
    print("statnet's MCMC-MLE of this model fails ('Unconstrained MCMC sampling did not mix at\n"
          "all'): the model puts almost all its probability on nearly empty and nearly complete\n"
          "graphs.  Its MPLE exists, and is printed beside statnet's:")
    degenerate = ef.ERGM(g, "edges + kstar(2) + triangle")
    mple_deg = fit_and_report(degenerate, "mple", parenthesised=False)
    side_by_side(degenerate.labels, {
        "ergmfit MPLE": ours(mple_deg),
        "statnet MPLE": theirs(statnet_fit("a_lazega_edges_kstar2_triangle.MPLE")),
    })
    ref = statnet_fit("a_lazega_edges_kstar2_triangle.MLE.seed101")
    if ref is not None:
        print(f"statnet MCMC-MLE: {ref['error']}")
    print("ergmfit's MCMC-MLE of the same model:")
    try:
        fit = degenerate.fit(method="mcmle", random_state=SEED, verbose=False,
                             **(dict(MCMLE, maxit=3) if QUICK else {"maxit": 20}))
        print(f"  ended without a degeneracy error (converged={fit.converged}); estimates:")
        side_by_side(degenerate.labels, {"ergmfit MCMC-MLE": ours(fit)})
    except ef.DegenerateModelError as exc:
        print(f"  DegenerateModelError: {exc}")
    print("The cure statnet users know: geometrically weighted terms (gwesp) instead of\n"
          "triangle and k-star terms -- the model of the next section.")

    # 4. the covariate model: MPLE, MCMC-MLE, EE --------------------------------------
    section("4. The classic covariate model, three estimators and statnet")
    print(f"formula: {COVARIATE_MODEL}\n")
    mple = fit_and_report(model, "mple", parenthesised=False)
    mcmle = fit_and_report(model, "mcmle", parenthesised=False, **MCMLE)
    columns = {"MPLE": ours(mple), "MCMC-MLE": ours(mcmle)}
    ee = None
    if ee_available():
        try:
            ee = fit_and_report(model, "ee", parenthesised=False, **EE)
            columns["EE"] = ours(ee)
        except Exception as exc:  # noqa: BLE001 - the EE estimator is new: report, go on
            print(f"  EE failed: {type(exc).__name__}: {exc}")
    else:
        print("  note: Equilibrium Expectation (method='ee') is not available in this build; "
              "its column is left out.")
    columns["statnet MPLE"] = theirs(statnet_fit("b1_lazega_sprh_gwesp_log3.MPLE"))
    columns["statnet MLE"] = theirs(statnet_fit("b1_lazega_sprh_gwesp_log3.MLE.seed101"))
    columns["statnet MLE (precise)"] = theirs(
        statnet_fit("b1_lazega_sprh_gwesp_log3.MLE_veryprecise.seed404"))
    print("\nEstimates (standard errors):")
    side_by_side(model.labels, columns)
    print("\nstatnet's summary(fit) of the MCMC-MLE, as ergmfit prints it:\n")
    print(mcmle.summary())
    if ee is not None:
        print("and of the EE fit (its last column is EE's convergence t-ratio):\n")
        print(ee.summary())

    # 5. MCMC diagnostics --------------------------------------------------------------
    section("5. MCMC diagnostics: mcmc.diagnostics(fit)")
    history = mcmle.info.get("history", [])
    if history:
        theta = np.array([h["theta"] for h in history])
        print(f"MCMC-MLE took {len(history)} iterations; step lengths (Hummel gamma): "
              + ", ".join(f"{h['gamma']:.2f}" for h in history))
        plotting.trace_plot(theta, labels=short(model.labels), final=np.asarray(mcmle.params),
                            path=figure("lazega_mcmle_theta.png"), xlabel="MCMC-MLE iteration",
                            title="MCMC-MLE: estimates by iteration and the final estimate")
    interval = mcmle.info.get("final_interval", 1024)
    S = model.simulate(mcmle.params, n=N_TRACE, interval=interval, burnin=16 * interval,
                       output="stats", random_state=SEED + 1)
    obs = model.statistics_vector()
    print(f"\nA chain of {N_TRACE} networks at the estimate (interval {interval}): "
          "mean minus observed, and t = (mean - observed) / sd")
    for lab, o, mu, sd in zip(model.labels, obs, S.mean(axis=0), S.std(axis=0)):
        t = (mu - o) / sd if sd > 0 else float("nan")
        print(f"  {lab:<30} {mu - o:10.3f}   t = {t:6.2f}")
    plotting.trace_plot(S, labels=short(model.labels), targets=obs, xlabel="draw",
                        path=figure("lazega_mcmc_statistics.png"), target_label="observed",
                        title="Statistics along the chain at the MCMC-MLE (dashed: observed)")
    if ee is not None:
        traj = ee_trajectory(ee)
        if traj is None:
            print("(this EE build keeps no trajectory in fit.info: no EE trace plot)")
        else:
            it, theta, dz = traj
            burnin = (ee.info.get("burnin_iterations") or [None])[0]
            ee_avg = (ee.info.get("ee_estimates") or [None])[0]
            polish = (ee.info.get("polish") or [None])[0]
            polished = bool(polish) and not polish.get("skipped", True)
            final_label = ("final estimate (EE average + MCMC-MLE polish step)" if polished
                           else "final estimate")
            plotting.trace_plot(theta, labels=short(model.labels), x=it, burnin=burnin,
                                targets=ee_avg, target_label="EE average of the kept iterations",
                                final=np.asarray(ee.params), final_label=final_label,
                                path=figure("lazega_ee_theta.png"), xlabel="EE iteration",
                                title="EE: the parameters along the run")
            if dz is not None:
                plotting.trace_plot(dz, labels=short(model.labels), x=it, start=burnin,
                                    targets=0.0, target_label="observed (0)",
                                    path=figure("lazega_ee_statistics.png"),
                                    xlabel="EE iteration",
                                    title="EE: statistics minus observed, kept iterations "
                                          "(after the burn-in)")

    # 6. goodness of fit ---------------------------------------------------------------
    section("6. Goodness of fit: gof(fit)")
    t0 = time.perf_counter()
    gof = mcmle.gof(n_sim=N_SIM, random_state=SEED + 2)
    print(f"({N_SIM} simulated networks, {time.perf_counter() - t0:.1f} s)\n")
    print(gof)
    gof.plot(figure("lazega_gof.png"))
    bad = {blk: [r for r, p in pv.items() if p < 0.05] for blk, pv in gof.pvalues.items()}
    bad = {k: v for k, v in bad.items() if v}
    print("rows with MC p-value < 0.05: " + ("; ".join(f"{k}: {', '.join(v)}" for k, v in
                                                       bad.items()) or "none"))

    # 7. saving -------------------------------------------------------------------------
    section("7. Saving the fit and reading it back")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "lazega_fit.json"
        mcmle.save(path)
        again = ERGMResults.load(path)
        same = str(again.summary()) == str(mcmle.summary())
        print(f"fit.save('{path.name}'): {path.stat().st_size} bytes; "
              f"ERGMResults.load() prints the same summary: {same}")
        g2 = again.gof(n_sim=5 if QUICK else 20, random_state=SEED + 3)
        print(f"and runs gof again from the file alone: blocks {list(g2.blocks)}")

    print(f"\nDone in {time.perf_counter() - t_start:.0f} s; figures in {FIGURES}")


if __name__ == "__main__":
    main()
