"""Stochastic composite likelihood, Fig. 1: asymptotic variance on a Boltzmann machine.

Reproduces Sec. 7.1 of Dillon & Lebanon (2009), "Statistical and
Computational Tradeoffs in Stochastic Composite Likelihood", with
``ergmfit.mrf.scl``:

* model: the Boltzmann machine p(x) ∝ exp(sum_{i<j} θ_ij x_i x_j),
  x ∈ {0,1}^5 (no biases), i.e. ``IsingModel`` on the complete graph K5 with
  0/1 coding, free couplings and no fields; θ has half its 10 components +1
  and half -1 (the paper does not say which: we alternate the signs in
  lexicographic pair order, and check the conclusions on random sign
  patterns);
* estimators: full likelihood (FL), pseudo-likelihood PL1 (|A_j| = 1) and
  the stochastic mixtures α PL2 + (1-α) PL1, α PL3 + (1-α) PL2,
  α PL4 + (1-α) PL3: every object (A, A^c) of the higher order is selected
  with probability α, every object of the lower order with 1 - α, β = 1
  (:func:`ergmfit.mrf.scl.pl_mixture`);
* Fig. 1: the asymptotic variance relative to the ML's (inverse Fisher),
  summarised by the trace (left) and determinant (middle) ratios, against
  α; computed exactly by enumeration
  (:func:`ergmfit.mrf.scl.scl_asymptotic_variance`).  Right: the trace
  ratio against the expected cost, sum_j λ_j 2^|A_j| configurations per
  observation (the tradeoff the paper discusses).

Two variance formulas are drawn.  Solid: the paper's Proposition 3 as
printed, Σ = Var(sum_j β_j λ_j V_j) (eq. 14); it depends on λ and β only
through λβ, so it is also the exact variance of the *deterministic* mixture
with weights β = (1-α, α).  Dashed: the exact variance of the stochastic
estimator, Σ = Var(sum_j β_j Z_j V_j), which adds sum_j λ_j(1-λ_j)β_j² E[V_j V_j']
for the randomness of the selection (the proof's own line
Var(W_ij) = λ_j Var(V_j) before eq. 14 gives this term).  A Monte-Carlo run
of the estimator (fits on simulated data, a fresh selection each time)
decides between them.  Finally, one SCL fit on simulated data is compared
with the truth.

The paper's figure carries no numbers in its text; the table states its
claims (a)-(e) beside our numbers.

Environment: ``ERGMFIT_QUICK=1`` (small settings for the smoke test),
``ERGMFIT_FIGURES=dir`` or ``--out dir`` (where the figure and table go).
"""
import itertools
import os
import time

import numpy as np

from ergmfit.mrf import IsingModel
from ergmfit.mrf.scl import fit_scl, pl_mixture, scl_asymptotic_variance

QUICK = os.environ.get("ERGMFIT_QUICK", "") not in ("", "0")
#: where the figure and table go, set by main(): ``--out DIR``, else $ERGMFIT_FIGURES, else a
#: fresh temporary directory (vignettes/_output.py); never vignettes/figures/ unless asked
FIGDIR = None
M = 5
ALPHAS = np.linspace(0.0, 1.0, 11 if QUICK else 41)
N_PATTERNS = 4 if QUICK else 40           # random sign patterns for the robustness check
N_MC, R_MC = 2000, (12 if QUICK else 80)   # Monte-Carlo: observations per fit, replications
ALPHAS_MC = [0.3] if QUICK else [0.1, 0.3, 0.5, 0.8]
N_SIM = 5000                               # the simulation check
SEED = 2009
MIXES = [(1, 2), (2, 3), (3, 4)]


def make_model():
    pairs = list(itertools.combinations(range(M), 2))
    return IsingModel((M, pairs), coding="01", tied=False, fields=False)


def curves(model, theta, alphas, formula):
    """trace and det ratios (and cost) of each mixture along alpha."""
    out = {}
    for lo, hi in MIXES:
        rows = []
        for a in alphas:
            v = scl_asymptotic_variance(model, theta, pl_mixture(a, lo, hi), formula=formula)
            rows.append((v["trace_ratio"], v["det_ratio"], v["cost"]))
        out[(lo, hi)] = np.array(rows)
    return out


def monotone(y, tol=1e-12):
    return bool(np.all(np.diff(y) <= tol))


def claims(model, theta, alphas):
    """The paper's claims (c)-(e) for one theta, under both formulas."""
    res = {}
    for formula in ("paper", "exact"):
        c = curves(model, theta, alphas, formula)
        ends = [c[(1, 2)][0, 0]] + [c[m][-1, 0] for m in MIXES]      # PL1, PL2, PL3, PL4
        gains = -np.diff(ends + [1.0])
        res[formula] = {
            "ordered": bool(np.all(np.diff(ends) < 0)),
            "monotone": all(monotone(c[m][:, 0]) and monotone(c[m][:, 1]) for m in MIXES),
            "diminishing": bool(np.all(np.diff(gains[:3]) < 0)),
            "pl1_worst": bool(max(np.max(c[m][:, 0]) for m in MIXES) <= ends[0] + 1e-12),
        }
    return res


def main():
    t_start = time.perf_counter()
    global FIGDIR
    from _output import figures_dir
    FIGDIR = str(figures_dir("dillon_lebanon_scl"))
    print(f"figure and table go to {FIGDIR}")
    model = make_model()
    theta = np.array([1.0 if q % 2 == 0 else -1.0 for q in range(model.n_stats)])
    print(f"Boltzmann machine, m = {M}, {model.n_stats} couplings: "
          + ", ".join(f"{lab}={t:+.0f}" for lab, t in zip(model.labels, theta)))

    # ---- Fig. 1: asymptotic variance relative to the ML -----------------
    paper = curves(model, theta, ALPHAS, "paper")
    exact = curves(model, theta, ALPHAS, "exact")
    pl1 = scl_asymptotic_variance(model, theta, [("pl", 1)])
    fl = scl_asymptotic_variance(model, theta, [("full", 1.0)])
    ends = {"PL1": pl1}
    for k in (2, 3, 4):
        ends[f"PL{k}"] = scl_asymptotic_variance(model, theta, [("pl", k)])
    ends["FL"] = fl
    print("\nendpoints (trace ratio, det ratio, cost per observation):")
    for name, v in ends.items():
        print(f"  {name:4s} {v['trace_ratio']:.4f}  {v['det_ratio']:.4f}  {v['cost']:.0f}")
    # the paper's curves = the exact variance of the deterministic mixture beta = (1-a, a)
    a = 0.35
    det_mix = scl_asymptotic_variance(model, theta, [("pl", 1, 1.0, 1 - a), ("pl", 2, 1.0, a)])
    eq14 = scl_asymptotic_variance(model, theta, pl_mixture(a, 1, 2), formula="paper")
    same_as_det = bool(np.allclose(det_mix["cov"], eq14["cov"], rtol=1e-10))
    for (lo, hi) in MIXES:
        p, e = paper[(lo, hi)], exact[(lo, hi)]
        i = int(np.argmax(e[:, 0]))
        print(f"  α PL{hi} + (1-α) PL{lo}: eq. 14 trace {p[0, 0]:.4f} → {p[-1, 0]:.4f} "
              f"(monotone: {monotone(p[:, 0])}); exact trace peaks at α = {ALPHAS[i]:.3f}: "
              f"{e[i, 0]:.4f}, det peak {np.max(e[:, 1]):.3g}")

    # ---- robustness: random sign patterns --------------------------------
    rng = np.random.default_rng(SEED)
    cnt = {f: {k: 0 for k in ("ordered", "monotone", "diminishing", "pl1_worst")}
           for f in ("paper", "exact")}
    for _ in range(N_PATTERNS):
        th = np.array([1.0] * 5 + [-1.0] * 5)
        rng.shuffle(th)
        r = claims(model, th, ALPHAS[::2] if not QUICK else ALPHAS)
        for f in r:
            for k in r[f]:
                cnt[f][k] += int(r[f][k])
    print(f"\nclaims on {N_PATTERNS} random sign patterns: {cnt}")

    # ---- Monte Carlo: which variance formula is the estimator's? --------
    # Each replication: new data X, new selection Z; the SCL estimate and, on
    # the same X, the deterministic mixture (lambda = 1, beta = (1-a, a)) whose
    # variance is eq. 14.  Given X the difference of the two is the selection
    # noise, so n tr Var(difference) / tr I^-1 estimates (exact - eq. 14):
    # zero if eq. 14 were the SCL's variance.
    tr_ml = np.trace(fl["cov_ml"])

    def ratio(E):
        return N_MC * np.trace(np.cov(E.T)) / tr_ml

    def batch_se(E, nb=max(2, min(10, R_MC // 4))):
        b = [ratio(part) for part in np.array_split(E, nb)]
        return np.std(b, ddof=1) / np.sqrt(nb)

    mc = {}
    t0 = time.perf_counter()
    for alpha in ALPHAS_MC:
        comps = pl_mixture(alpha, 1, 2)
        det_comps = [("pl", 1, 1.0, 1.0 - alpha), ("pl", 2, 1.0, alpha)]
        v_exact = scl_asymptotic_variance(model, theta, comps, formula="exact")
        v_paper = scl_asymptotic_variance(model, theta, comps, formula="paper")
        est, est_det, sand = [], [], []
        for r in range(R_MC):
            X = model.sample(N_MC, theta=theta, random_state=rng)
            insts = model._instances(X)
            f = fit_scl(insts, model.labels, components=comps, random_state=rng,
                        cov="sandwich" if r < 10 else "none")
            est.append(f["theta"])
            est_det.append(fit_scl(insts, model.labels, components=det_comps,
                                   cov="none")["theta"])
            if f["cov"] is not None:
                sand.append(np.trace(f["cov"]) * N_MC / tr_ml)
        est, est_det = np.array(est), np.array(est_det)
        mc[alpha] = {"scl": (ratio(est), batch_se(est)),
                     "det": (ratio(est_det), batch_se(est_det)),
                     "sel": (ratio(est - est_det), batch_se(est - est_det)),
                     "exact": v_exact["trace_ratio"], "paper": v_paper["trace_ratio"],
                     "sandwich": float(np.mean(sand))}
        q = mc[alpha]
        print(f"\nMonte Carlo, α = {alpha} PL2 + (1-α) PL1 ({R_MC} replications, n = {N_MC}),"
              f" n tr Var / tr I^-1:\n"
              f"  SCL {q['scl'][0]:.3f} ± {q['scl'][1]:.3f} (exact formula {q['exact']:.3f}, "
              f"eq. 14 {q['paper']:.3f}; mean sandwich {q['sandwich']:.3f})\n"
              f"  deterministic mixture {q['det'][0]:.3f} ± {q['det'][1]:.3f} (eq. 14 "
              f"{q['paper']:.3f})\n"
              f"  SCL - deterministic (selection noise) {q['sel'][0]:.3f} ± {q['sel'][1]:.3f} "
              f"(exact - eq. 14 = {q['exact'] - q['paper']:.3f}; eq. 14 implies 0)")
    print(f"  ({time.perf_counter() - t0:.1f} s)")

    # ---- simulation check ------------------------------------------------
    X = model.sample(N_SIM, theta=theta, random_state=rng)
    comps = pl_mixture(0.5, 1, 2)
    f = fit_scl(model._instances(X), model.labels, components=comps, random_state=SEED)
    sd = np.sqrt(np.diag(scl_asymptotic_variance(model, theta, comps)["cov"]) / N_SIM)
    z = (f["theta"] - theta) / sd
    z_sand = (f["theta"] - theta) / np.sqrt(np.diag(f["cov"]))
    print(f"\nSCL fit (0.5 PL2 + 0.5 PL1, n = {N_SIM}): max |θ̂ - θ| = "
          f"{np.max(np.abs(f['theta'] - theta)):.3f}, max |z| = {np.max(np.abs(z)):.2f} "
          f"(asymptotic sd), {np.max(np.abs(z_sand)):.2f} (sandwich sd); "
          f"realised cost {f['extra']['cost']:.1f} configurations per observation")
    ml = model.fit(X, method="exact").coef_

    # ---- figure ----------------------------------------------------------
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 5.4))
    colors = {(1, 2): "C0", (2, 3): "C1", (3, 4): "C2"}
    for m in MIXES:
        lab = f"α PL{m[1]} + (1-α) PL{m[0]}"
        for j in (0, 1):
            ax[j].plot(ALPHAS, paper[m][:, j], "-", color=colors[m], label=lab + " (eq. 14)")
            ax[j].plot(ALPHAS, exact[m][:, j], "--", color=colors[m],
                       label=lab + " (with selection variance)")
        ax[2].plot(paper[m][:, 2], paper[m][:, 0], "-", color=colors[m])
        ax[2].plot(exact[m][:, 2], exact[m][:, 0], "--", color=colors[m])
    for j, key in ((0, "trace_ratio"), (1, "det_ratio")):
        ax[j].axhline(pl1[key], color="k", ls=":", lw=1, label="PL1")
        ax[j].axhline(1.0, color="k", lw=1, label="FL (ML)")
        ax[j].set_xlabel("α (selection probability of the higher-order objects)")
    ax[0].set_ylabel("tr(asymptotic variance) / tr(inverse Fisher)")
    ax[1].set_ylabel("det(asymptotic variance) / det(inverse Fisher)")
    ax[1].set_yscale("log")
    ax[0].set_ylim(0.99, max(1.1, float(np.max([exact[m][:, 0] for m in MIXES]))) + 0.01)
    am = np.array(ALPHAS_MC)
    ax[0].errorbar(am, [mc[a]["paper"] + mc[a]["sel"][0] for a in am],
                   yerr=[2 * mc[a]["sel"][1] for a in am], fmt="ks", ms=4, lw=1, capsize=3,
                   label="eq. 14 + Monte-Carlo selection noise (± 2 se)")
    ax[2].plot([ends[k]["cost"] for k in ends], [ends[k]["trace_ratio"] for k in ends], "ks")
    for k in ends:
        ax[2].annotate(k, (ends[k]["cost"], ends[k]["trace_ratio"]), fontsize=8,
                       xytext=(3, 3), textcoords="offset points")
    ax[2].set_xlabel("expected cost: Σ_j λ_j 2^|A_j| configurations per observation")
    ax[2].set_ylabel("trace ratio")
    ax[2].set_ylim(ax[0].get_ylim())
    fig.suptitle("Dillon & Lebanon 2009, Fig. 1: Boltzmann machine, m = 5 "
                 "(solid: eq. 14 as printed; dashed: with the selection variance)")
    handles, labels = ax[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    path = os.path.join(FIGDIR, "dillon_lebanon_scl.png")
    fig.savefig(path, dpi=110)

    # ---- table -----------------------------------------------------------
    tr = {k: ends[k]["trace_ratio"] for k in ends}
    de = {k: ends[k]["det_ratio"] for k in ends}
    order = " > ".join(f"{k} {tr[k]:.4f}" for k in ends)
    gains = [tr["PL1"] - tr["PL2"], tr["PL2"] - tr["PL3"], tr["PL3"] - tr["PL4"]]
    pk = {m: (ALPHAS[int(np.argmax(exact[m][:, 0]))], float(np.max(exact[m][:, 0])))
          for m in MIXES}
    mono_p = all(monotone(paper[m][:, 0]) and monotone(paper[m][:, 1]) for m in MIXES)
    rows = [
        ("(a) PL1: fastest, least accurate", "fastest but least accurate",
         f"cost {pl1['cost']:.0f} (the least); trace ratio {tr['PL1']:.4f}, det "
         f"ratio {de['PL1']:.3f}; the largest of all eq.-14 curves: "
         f"{'yes' if max(np.max(paper[m][:, 0]) for m in MIXES) <= tr['PL1'] + 1e-12 else 'no'}"),
        ("(b) FL: slowest, most accurate", "slowest but the most accurate",
         f"ratio 1 (inverse Fisher); cost {fl['cost']:.0f} vs PL2/PL3/PL4 "
         f"{ends['PL2']['cost']:.0f}/{ends['PL3']['cost']:.0f}/{ends['PL4']['cost']:.0f}: at "
         "m = 5, C(m,k) 2^k > 2^m for k ≥ 2, FL is the slowest only for larger m"),
        ("(c) higher-order components reduce the variance", "yes",
         f"trace ratio {order}"),
        ("(d) variance decreases with α", "yes (Fig. 1)",
         f"eq. 14 as printed: {'monotone decreasing' if mono_p else 'NOT monotone'} in all "
         f"three mixtures (trace and det); with the selection variance: NOT monotone, peaks "
         + ", ".join(f"PL{m[1]}/PL{m[0]} {v:.4f} at α={a:.2f}" for m, (a, v) in pk.items())),
        ("(e) PL4 very close to the ML; diminishing returns", "yes",
         f"PL4 trace ratio {tr['PL4']:.4f}, det ratio {de['PL4']:.3f}; gains "
         + " > ".join(f"{g:.4f}" for g in gains)),
        ("eq. 14 curves = exact variance of the deterministic mixture β = (1-α, α)",
         "(not stated)", f"{'yes' if same_as_det else 'no'} (α = {a})"),
        (f"claims on {N_PATTERNS} random ±1 sign patterns (eq. 14 / exact)",
         "(one pattern)",
         f"ordered PL1>PL2>PL3>PL4: {cnt['paper']['ordered']}/{cnt['exact']['ordered']}; "
         f"monotone in α: {cnt['paper']['monotone']}/{cnt['exact']['monotone']}; diminishing "
         f"returns: {cnt['paper']['diminishing']}/{cnt['exact']['diminishing']}"),
        (f"Monte Carlo ({R_MC} replications of n={N_MC} per α, PL2/PL1): n·tr Var(θ̂)/tr I⁻¹ "
         "of the SCL; of the deterministic mixture β=(1-α, α)",
         "eq. 14: " + ", ".join(f"{mc[a]['paper']:.3f}" for a in ALPHAS_MC),
         "SCL " + ", ".join(f"α={a}: {mc[a]['scl'][0]:.3f}±{mc[a]['scl'][1]:.3f} (exact "
                            f"{mc[a]['exact']:.3f}, sandwich {mc[a]['sandwich']:.3f})"
                            for a in ALPHAS_MC)
         + "; deterministic " + ", ".join(f"{mc[a]['det'][0]:.3f}±{mc[a]['det'][1]:.3f}"
                                          for a in ALPHAS_MC)),
        ("Monte Carlo: selection noise n·tr Var(θ̂_SCL - θ̂_det)/tr I⁻¹ (same data)",
         "0 (implied by eq. 14)",
         ", ".join(f"α={a}: {mc[a]['sel'][0]:.4f}±{mc[a]['sel'][1]:.4f} (exact - eq. 14 = "
                   f"{mc[a]['exact'] - mc[a]['paper']:.4f})" for a in ALPHAS_MC)),
        (f"SCL fit on {N_SIM} simulated cases (0.5 PL2 + 0.5 PL1)", "consistent (Prop. 2)",
         f"largest error {np.max(np.abs(f['theta'] - theta)):.3f} (ML "
         f"{np.max(np.abs(ml - theta)):.3f}), largest z-score (asymptotic sd) "
         f"{np.max(np.abs(z)):.2f}, (sandwich sd) {np.max(np.abs(z_sand)):.2f}, "
         f"over {len(theta)} coefficients"),
    ]
    lines = ["| quantity | paper | ergmfit |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    table = "\n".join(lines)
    print()
    print(table)
    with open(os.path.join(FIGDIR, "dillon_lebanon_scl.md"), "w") as fh:
        fh.write(table + "\n")
    print(f"\nfigure: {path}  ({time.perf_counter() - t_start:.1f} s)")


if __name__ == "__main__":
    main()
