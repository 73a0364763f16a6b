"""Learning with Blocks, Sec. 4.3: blocked CD on ERGMs simulated at a known θ.

Reproduces the one-sentence experiment that ends Sec. 4.3 of Asuncion, Liu,
Ihler & Smyth (2010), "Learning with Blocks: Composite Likelihood and
Contrastive Divergence" (AISTATS): "We also performed experiments on
simulated networks (which we sampled from ground truth parameters) and found
that BCD also performs well in these cases."  The paper gives no settings,
numbers or figure for it, so we run the protocol of its Lazega experiment
(Fig. 5, ``vignettes/learning_with_blocks.py``) on networks drawn at a known
θ, where the error is measured against the truth itself:

* model ``edges + kstar(2) + triangle`` on 36 nodes (630 dyads; the paper's
  Lazega size and statistics);
* two known θ (ours; the paper names none): **lazega** = the Lazega MLE of
  ``learning_with_blocks.py`` (-2.354, 0.0629, 0.0209), the parameters of
  the paper's own Fig. 5, near-degenerate (its MLE puts ~1.6 % of its mass
  on a near-complete mode; our draws are the sparse mode's, ~108 ties, and
  a draw with more than 250 ties would be redrawn and counted); and
  **unimodal** = (0, -0.2, 0.5), chosen because chains from the empty and
  from the complete graph end at the same ~100 ties and ~33 triangles (a
  Bernoulli graph of that density has ~29), so plain MCMC-MLE works;
* ``N_DRAWS`` = 8 networks per θ, each simulated from the empty graph
  (``ERGM.simulate``, 200,000 proposals of burn-in);
* estimators, each on every draw with ``N_SEEDS`` = 4 seeds (the draw is
  shared, so every comparison is paired by draw): Bn-CD1 for n = 1..4
  (``fit(method="bcd", block_size=n)``: uniform random blocks of n dyads,
  one random-scan blocked Gibbs update, i.e. stochastic composite
  likelihood of order n) and CD-4 = B1-CD4 (``steps=4``, the same cost per
  iteration as B4-CD1); each (a) at the paper's protocol -- 20,000 plain
  gradient steps from 0, step 0.001 / (1 + t / 5000) (the decay is ours: the
  paper says "gradually decreased") -- and (b) run to its fixed point
  (Newton-preconditioned Robbins-Monro from the MPLE, Rao-Blackwellised,
  ``LIMIT_ITER`` = 1,000,000 iterations, mean of the second half); the
  exact MPLE (B1-CD1's fixed point) and exact MCLE of order 2 over all
  198,135 dyad pairs (B2-CD1's) check those limits;
* the MLE: ``fit(method="mcmle")`` (statnet's algorithm) on every draw;
  where it fails (as it does on the Lazega network itself, whose chains run
  to the complete graph) the two-basin MCMC-MLE of
  ``learning_with_blocks.py``.  In the committed run plain MCMC-MLE
  converged on all 16 draws: the sparse-mode draws at the lazega θ are less
  clustered than Lazega (17-54 triangles against its 120).  The MLE is not
  the truth either: it is the best a single network allows, and its
  statistical standard error says how far from the truth any estimator must
  be.

The error is the paper's measure, the L1 distance to the true θ.  Each
verdict is a paired comparison within each draw, with that draw's Monte
Carlo error (the spread over seeds; beyond the Student t 97.5 % quantile
times the standard error of the difference a draw counts for or against a
claim, else as a tie), and it is said as "reproduced on k of m draws"; the
pooled line gives the mean difference over draws and its standard error
over draws.  The claims, read from Sec. 4.3 and Fig. 5:

1. L1 error falls with the block size, at the paper's protocol (B4-CD1
   against B1-CD1);
2. the same for the estimators themselves (their converged limits, the MCLE
   of order n);
3. "BCD also performs well": B4-CD1 is as accurate as the MLE (L1 error to
   the truth, pooled over draws), and "close to the MCMC-MLE" (within 2 of
   the MLE's statistical standard errors, per draw);
4. not claimed for ERGMs but the paper's point in Sec. 4.1: B4-CD1 beats
   CD-4 at equal cost per iteration.

Why the verdicts come out as they do (see the table): two dyads drawn
uniformly from the 630 share a node with probability 68 / 629, about 11 %,
so the composite likelihood of order 2 is nearly the pseudo-likelihood --
the exact MCLE of order 2 agrees with the MPLE to about 10^-3 on every
draw -- and the converged Bn-CD1 estimators for n <= 4 are nearly one
estimator (their L1 errors differ by less than their Monte Carlo error).
Along the paper's protocol, by contrast, a Bn-CD1 step can change up to n
dyads' worth of statistics, so with the same step size it moves away from θ = 0 about n times as fast:
what falls with the block size after 20,000 decaying steps is how far the
run has got, not where the estimator is going (CD-4, whose negative phase
also changes up to 4 dyads, keeps pace with B4-CD1).

The paper reports no timing for its ERGM runs; the CPU seconds of each
estimator are printed.  Fig. 2b of the paper (a visible Boltzmann machine
whose potentials' strength is swept from 0 to 1) is not an ERGM experiment
and is not reproduced here (``asuncion_vbm.py`` says why: the text does not
say how θ scales with the "strength" nor what is plotted).

Output: the table ``| quantity | paper | ergmfit |`` with the verdicts
(``asuncion_ergm.md``), the numbers (``asuncion_ergm.json``) and the figure
``asuncion_ergm.png`` (the L1 error along the paper's protocol, and the
per-draw errors of every estimator), in ``--out DIR``, else
``$ERGMFIT_FIGURES``, else a fresh temporary directory.

Run ``python vignettes/asuncion_ergm.py`` (about 7 CPU-minutes in two
processes; the committed run took 33 minutes at a machine load of 30),
``--quick`` (or ``ERGMFIT_QUICK=1``: 2 draws per θ, 2 seeds,
100,000-iteration limits, the MLE only for the unimodal θ; about 15
CPU-seconds).  ``--table-from JSON`` rewrites the table from a run's
``asuncion_ergm.json`` without refitting.  ``--seed N`` (or
``ERGMFIT_SEED=N``) offsets every seed: other data draws and other
algorithm seeds.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import networkx as nx
import numpy as np
from scipy import stats

import ergmfit as ef
from ergmfit.exceptions import DegenerateModelError

HERE = os.path.dirname(os.path.abspath(__file__))
#: where the figure and tables go, set by main() (vignettes/_output.py)
FIGDIR = None
FORMULA = "edges + kstar(2) + triangle"
N_NODES = 36                    # the paper's Lazega network
#: the known parameters (ours: the paper names none)
THETAS = {"lazega": (-2.35397, 0.06286, 0.02093),       # learning_with_blocks.REFERENCE
          "unimodal": (0.0, -0.2, 0.5)}
#: the sparse mode of the lazega θ: a draw with more ties is redrawn (and counted)
SPARSE_CAP = 250
N_DRAWS = 8
N_SEEDS = 4
N_ITER = 20000                  # the paper's run length
LR = 0.001                      # the paper's initial step
DECAY = 5000.0                  # ours: the paper says "gradually decreased"
LIMIT_ITER = 1_000_000
BURNIN = 200_000
#: (name, block size n, Gibbs steps m) of Bn-CDm
METHODS = (("B1-CD1", 1, 1), ("B2-CD1", 2, 1), ("B3-CD1", 3, 1), ("B4-CD1", 4, 1),
           ("CD-4", 1, 4))
NAMES = tuple(m[0] for m in METHODS)
TRACE = 100


def _seed(*words):
    return int(np.random.SeedSequence([abs(int(w)) for w in words]).generate_state(1)[0])


def draw_network(setting, draw, base_seed):
    """The ``draw``-th network simulated at THETAS[setting] from the empty graph, and the
    number of draws rejected because they left the sparse mode."""
    m0 = ef.ERGM(nx.empty_graph(N_NODES), FORMULA)
    rejected = 0
    for attempt in range(20):
        g = m0.simulate(THETAS[setting], n=1, burnin=BURNIN,
                        random_state=_seed(base_seed, 7, list(THETAS).index(setting), draw,
                                           attempt))[0]
        if g.number_of_edges() <= SPARSE_CAP:
            return g, rejected
        rejected += 1
    raise RuntimeError(f"{setting}: 20 draws in a row left the sparse mode")


def run_protocol(model, n, m, seed):
    """The paper's protocol: 20,000 plain gradient steps from 0."""
    fit = model.fit(method="bcd", block_size=n, steps=m, blocks="uniform", precondition=None,
                    init="zero", learning_rate=LR, decay=DECAY, n_iter=N_ITER, trace=TRACE,
                    random_state=seed)
    return (np.array(fit.info["trace_iterations"]), np.array(fit.info["trace"]),
            np.asarray(fit.params, dtype=float))


def run_limit(model, n, m, seed, n_iter):
    """Bn-CDm run to its fixed point (the MCLE of order n for m = 1)."""
    fit = model.fit(method="bcd", block_size=n, steps=m, blocks="uniform", rao_blackwell=True,
                    precondition="mple", n_iter=n_iter, average=0.5, random_state=seed)
    return np.asarray(fit.params, dtype=float)


def fit_mle(model, setting, seed, two_basin):
    """The MLE of one draw: ``method="mcmle"``; where it fails and ``two_basin``, the
    two-basin MCMC-MLE of learning_with_blocks.py.  Returns (θ, s.e., how, CPU s)."""
    t0 = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = model.fit(method="mcmle", random_state=seed)
        return (np.asarray(fit.params, dtype=float), np.asarray(fit.bse, dtype=float),
                "mcmle", time.process_time() - t0)
    except DegenerateModelError as exc:
        how = f"mcmle fails ({str(exc).split(':')[0].strip()})"
    if not two_basin:
        return None, None, how, time.process_time() - t0
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import learning_with_blocks as lwb
    rng = np.random.default_rng(seed)
    try:
        out = lwb.two_basin_mle(model, [-1.0, -0.1, 0.5], rng, coarse=14, final=4,
                                verbose=False)
        val = lwb.validate_mle(model, out, rng, verbose=False)
    except (RuntimeError, DegenerateModelError, np.linalg.LinAlgError) as exc:
        return None, None, how + f"; two-basin fails ({exc})", time.process_time() - t0
    return (np.asarray(out["theta"], dtype=float), np.asarray(val["se"], dtype=float),
            how + "; two-basin MCMC-MLE", time.process_time() - t0)


def run_draw(setting, draw, base_seed=0, n_seeds=N_SEEDS, limit_iter=LIMIT_ITER, mle=True,
             two_basin=True, mcle2=True):
    """Every estimator on the ``draw``-th network of ``setting``; a dict of numbers
    (``mcle2=False`` skips the exact MCLE of order 2, ~1 CPU s, for the tests)."""
    g, rejected = draw_network(setting, draw, base_seed)
    model = ef.ERGM(g, FORMULA)
    k = list(THETAS).index(setting)
    out = {"setting": setting, "draw": draw, "rejected": rejected,
           "stats": model.statistics_vector().tolist(), "protocol": {}, "trace": {},
           "limit": {}, "cpu": {}}
    t0 = time.process_time()
    out["mple"] = np.asarray(model.fit(method="mple").params, dtype=float)
    out["mcle2"] = (np.asarray(model.fit(method="mcle", block_size=2, cov="naive").params,
                               dtype=float) if mcle2 else None)
    out["cpu"]["exact MPLE + MCLE-2"] = time.process_time() - t0
    for j, (name, n, m) in enumerate(METHODS):
        t0 = time.process_time()
        runs = [run_protocol(model, n, m, _seed(base_seed, 1, k, draw, j, s))
                for s in range(n_seeds)]
        out["cpu"][f"{name} protocol"] = (time.process_time() - t0) / n_seeds
        out["protocol"][name] = np.array([r[2] for r in runs])
        out["trace_iterations"] = runs[0][0]
        out["trace"][name] = np.array([r[1] for r in runs])
        t0 = time.process_time()
        out["limit"][name] = np.array([run_limit(model, n, m, _seed(base_seed, 2, k, draw, j, s),
                                                 limit_iter) for s in range(n_seeds)])
        out["cpu"][f"{name} limit"] = (time.process_time() - t0) / n_seeds
    if mle:
        th, se, how, cpu = fit_mle(model, setting, _seed(base_seed, 3, k, draw), two_basin)
        out.update({"mle": th, "mle_se": se, "mle_how": how})
        out["cpu"]["MLE"] = cpu
    else:
        out.update({"mle": None, "mle_se": None, "mle_how": "not computed (quick mode)"})
    return out


# ---------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------
def l1(theta, truth):
    """L1 distance of each row of ``theta`` to ``truth``."""
    return np.abs(np.atleast_2d(theta) - np.asarray(truth)).sum(axis=1)


def paired_counts(diff, se, df):
    """Per draw: the difference ``diff`` (a - b; below 0: a better) against its Monte Carlo
    s.e. ``se``: (a better, b better, ties), beyond the two-sided 97.5 % Student t quantile
    with ``df`` degrees of freedom (a zero s.e. -- both exact -- counts any difference)."""
    diff, se = np.asarray(diff, dtype=float), np.asarray(se, dtype=float)
    tq = float(stats.t.ppf(0.975, df)) if df > 0 else np.inf
    lim = np.where(se > 0, tq * np.where(se > 0, se, 1.0), 0.0)
    a = int(np.sum(diff < -lim))
    b = int(np.sum(diff > lim))
    return a, b, len(diff) - a - b


def pooled(diff):
    """Mean over draws and its standard error over draws."""
    diff = np.asarray(diff, dtype=float)
    se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
    return float(diff.mean()), float(se)


def verdict(counts, pool, m):
    """'reproduced on k of m draws' when the claim holds on a majority of draws and the
    pooled mean is in its direction beyond 2 s.e.; otherwise 'not reproduced' with why."""
    k, rev, ties = counts
    mu, se = pool
    head = (f"holds beyond the MC error on {k} of {m} draws, reversed on {rev}, within the MC "
            f"error on {ties}")
    if k > m / 2 and mu < -2 * se:
        return f"reproduced on {k} of {m} draws", head
    if rev > m / 2 and mu > 2 * se:
        return f"not reproduced: reversed on {rev} of {m} draws", head
    if abs(mu) <= 2 * se:
        why = "pooled difference within 2 s.e. over draws"
    else:
        why = (f"pooled difference {'in' if mu < 0 else 'against'} the claim's direction but "
               f"on only {k} of {m} draws beyond the MC error")
    return f"not reproduced on {m - k} of {m} draws ({why})", head


def summarise(draws, setting):
    """The per-setting comparisons behind the table (numbers, counts, verdicts)."""
    truth = np.array(THETAS[setting])
    m = len(draws)
    S = draws[0]["protocol"]["B1-CD1"].shape[0]
    df2 = 2 * (S - 1)
    res = {"setting": setting, "truth": truth.tolist(), "n_draws": m, "n_seeds": S,
           "rejected": int(sum(d["rejected"] for d in draws))}
    # L1 errors: per draw, mean over seeds, and the s.e. of that mean
    for phase in ("protocol", "limit"):
        err = {name: np.array([l1(d[phase][name], truth) for d in draws]) for name in NAMES}
        res[phase] = {name: {"l1_draws": e.mean(axis=1).tolist(),
                             "l1_se_draws": (e.std(axis=1, ddof=1) / np.sqrt(S)).tolist(),
                             "mean": pooled(e.mean(axis=1))} for name, e in err.items()}
    res["mple_l1"] = [float(l1(d["mple"], truth)[0]) for d in draws]
    res["mcle2_l1"] = [float(l1(d["mcle2"], truth)[0]) for d in draws]
    # how far the paper's protocol still is from its own limit (L1)
    res["protocol_to_limit"] = {
        name: float(np.mean([l1(d["protocol"][name], d["limit"][name].mean(axis=0)).mean()
                             for d in draws])) for name in NAMES}
    # the limits against the exact MPLE (B1) and MCLE-2 (B2): max z over draws
    z = {}
    for name, key in (("B1-CD1", "mple"), ("B2-CD1", "mcle2")):
        zz = [np.abs(d["limit"][name].mean(axis=0) - d[key])
              / np.maximum(d["limit"][name].std(axis=0, ddof=1) / np.sqrt(S), 1e-12)
              for d in draws]
        z[name] = float(np.max(zz))
    res["limit_vs_exact_max_z"] = z
    # ... and the same differences in the MLE's statistical s.e. (where there is an MLE)
    res["limit_vs_exact_max_se"] = {
        name: float(np.max([np.abs(d["limit"][name].mean(axis=0) - d[key]) / d["mle_se"]
                            for d in draws if d["mle_se"] is not None] or [np.nan]))
        for name, key in (("B1-CD1", "mple"), ("B2-CD1", "mcle2"))}
    # 1. protocol: B4-CD1 vs B1-CD1 (independent seeds: two-sample s.e.)
    P = res["protocol"]
    d1 = np.subtract(P["B4-CD1"]["l1_draws"], P["B1-CD1"]["l1_draws"])
    s1 = np.hypot(P["B4-CD1"]["l1_se_draws"], P["B1-CD1"]["l1_se_draws"])
    c1 = paired_counts(d1, s1, df2)
    res["claim1"] = {"diff": d1.tolist(), "se": s1.tolist(), "counts": c1,
                     "pooled": pooled(d1), "verdict": verdict(c1, pooled(d1), m)}
    # 2. limits: B4-CD1's against the exact MPLE (B1-CD1's limit, no MC error)
    L = res["limit"]
    d2 = np.subtract(L["B4-CD1"]["l1_draws"], res["mple_l1"])
    s2 = np.asarray(L["B4-CD1"]["l1_se_draws"])
    c2 = paired_counts(d2, s2, S - 1)
    res["claim2"] = {"diff": d2.tolist(), "se": s2.tolist(), "counts": c2, "pooled": pooled(d2),
                     "verdict": verdict(c2, pooled(d2), m),
                     "spread_of_limits": float(np.mean(np.ptp(
                         [L[f"B{n}-CD1"]["l1_draws"] for n in (1, 2, 3, 4)], axis=0)))}
    # 2, exactly: the MCLE of order 2 (all dyad pairs) against the MPLE, no MC error
    d2x = np.subtract(res["mcle2_l1"], res["mple_l1"])
    c2x = paired_counts(d2x, np.zeros(m), 0)
    res["claim2_exact"] = {"diff": d2x.tolist(), "counts": c2x, "pooled": pooled(d2x),
                           "verdict": verdict(c2x, pooled(d2x), m)}
    # 3. B4-CD1 vs the MLE
    has = [d["mle"] is not None for d in draws]
    res["mle_how"] = [d["mle_how"] for d in draws]
    res["n_mle"] = int(sum(has))
    if any(has):
        ok = [d for d, h in zip(draws, has) if h]
        mle_l1 = np.array([l1(d["mle"], truth)[0] for d in ok])
        b4_l1 = np.array([l1(d["limit"]["B4-CD1"], truth).mean() for d in ok])
        b4p_l1 = np.array([l1(d["protocol"]["B4-CD1"], truth).mean() for d in ok])
        z_close = np.array([np.max(np.abs(d["limit"]["B4-CD1"].mean(axis=0) - d["mle"])
                                   / d["mle_se"]) for d in ok])
        z_mle_truth = np.array([np.max(np.abs(d["mle"] - truth) / d["mle_se"]) for d in ok])
        p3 = pooled(b4_l1 - mle_l1)
        res["claim3"] = {
            "mle_l1": mle_l1.tolist(), "b4_l1": b4_l1.tolist(), "b4_protocol_l1": b4p_l1.tolist(),
            "mle_l1_mean": pooled(mle_l1), "pooled_b4_minus_mle": p3,
            "pooled_b4protocol_minus_mle": pooled(b4p_l1 - mle_l1),
            "max_z_b4_to_mle": z_close.tolist(), "n_close": int(np.sum(z_close < 2)),
            "max_z_mle_to_truth": z_mle_truth.tolist(),
            "verdict_accuracy": ("reproduced (as accurate as the MLE within 2 s.e. over draws)"
                                 if p3[0] <= 2 * p3[1] else
                                 f"not reproduced: B4-CD1's L1 error exceeds the MLE's by "
                                 f"{p3[0]:.3f} ± {p3[1]:.3f}"),
            "verdict_close": (f"{'reproduced' if np.sum(z_close < 2) > len(ok) / 2 else 'not reproduced'}"
                              f" on {int(np.sum(z_close < 2))} of {len(ok)} draws")}
    # 4. B4-CD1 vs CD-4, protocol and limits
    for key, phase in (("claim4_protocol", "protocol"), ("claim4_limit", "limit")):
        Q = res[phase]
        d4 = np.subtract(Q["B4-CD1"]["l1_draws"], Q["CD-4"]["l1_draws"])
        s4 = np.hypot(Q["B4-CD1"]["l1_se_draws"], Q["CD-4"]["l1_se_draws"])
        c4 = paired_counts(d4, s4, df2)
        res[key] = {"diff": d4.tolist(), "se": s4.tolist(), "counts": c4, "pooled": pooled(d4),
                    "verdict": verdict(c4, pooled(d4), m)}
    res["cpu"] = {k: float(np.mean([d["cpu"].get(k, np.nan) for d in draws]))
                  for k in draws[0]["cpu"]}
    return res


def _fmt(pair, digits=3):
    return f"{pair[0]:+.{digits}f} ± {pair[1]:.{digits}f}"


def table(summaries, quick):
    """The ``| quantity | paper | ergmfit |`` rows."""
    rows = []
    for s in summaries:
        st = s["setting"]
        P, L = s["protocol"], s["limit"]
        tag = f"[{st} θ = {tuple(round(x, 4) for x in s['truth'])}, {s['n_draws']} draws × {s['n_seeds']} seeds]"
        rows.append((f"{tag} L1 error to the true θ after {N_ITER:,} it., step {LR} / (1 + t / "
                     f"{DECAY:g}) (decay ours)", "BCD performs well; error falls with the block "
                     "size (Fig. 5a on Lazega; no figure for simulated networks)",
                     " → ".join(f"{n} {P[n]['mean'][0]:.3f} ± {P[n]['mean'][1]:.3f}" for n in NAMES)
                     + f" (mean ± s.e. over draws); θ = 0 scores {float(np.abs(s['truth']).sum()):.3f}; "
                       f"runs still {min(s['protocol_to_limit'].values()):.2f}–"
                       f"{max(s['protocol_to_limit'].values()):.2f} (L1) from their own limits"))
        c = s["claim1"]
        rows.append((f"{tag} claim 1: B4-CD1 − B1-CD1, paper's protocol, paired by draw",
                     "higher-order blocks lead to more accurate estimates",
                     f"{_fmt(c['pooled'])} over draws; {c['verdict'][1]}: **{c['verdict'][0]}**"
                     f" -- but the runs are on average still {min(s['protocol_to_limit'].values()):.2f}"
                     f"–{max(s['protocol_to_limit'].values()):.2f} (L1) from their own limits: "
                     "this orders how far each schedule has moved from θ = 0 in 20,000 steps "
                     "(a block of n dyads moves about n times as fast), not the estimators "
                     "(claim 2)"))
        c = s["claim2"]
        rows.append((f"{tag} claim 2: the same at convergence (Bn-CD1's limit = MCLE of order n; "
                     f"B1's = exact MPLE)", "higher-order blocks lead to more accurate estimates",
                     " → ".join(f"{n} {L[n]['mean'][0]:.4f}" for n in NAMES[:4])
                     + f" (CD-4 {L['CD-4']['mean'][0]:.4f}; exact MPLE "
                       f"{np.mean(s['mple_l1']):.4f}, exact MCLE-2 {np.mean(s['mcle2_l1']):.4f}); "
                       f"B4 − MPLE {_fmt(c['pooled'], 4)} over draws (the four limits differ by "
                       f"{c['spread_of_limits']:.4f} on average); {c['verdict'][1]}: "
                       f"**{c['verdict'][0]}**; exact MCLE-2 − MPLE "
                       f"{_fmt(s['claim2_exact']['pooled'], 4)}: "
                       f"{s['claim2_exact']['verdict'][1]}: **{s['claim2_exact']['verdict'][0]}**"))
        if "claim3" in s:
            c = s["claim3"]
            rows.append((f"{tag} claim 3: B4-CD1 against the MLE ({s['n_mle']} of {s['n_draws']} "
                         f"draws: {sorted(set(s['mle_how']))[0]})",
                         "BCD also performs well; B4-CD1 close to the MCMC-MLE",
                         f"L1 error to the truth: MLE {c['mle_l1_mean'][0]:.3f} ± "
                         f"{c['mle_l1_mean'][1]:.3f}; B4-CD1 converged − MLE "
                         f"{_fmt(c['pooled_b4_minus_mle'])}, at the paper's protocol − MLE "
                         f"{_fmt(c['pooled_b4protocol_minus_mle'])}: **{c['verdict_accuracy']}**"
                         f" (converged); within 2 statistical s.e. of the MLE: max z "
                         f"{min(c['max_z_b4_to_mle']):.2f}–{max(c['max_z_b4_to_mle']):.2f}, "
                         f"**{c['verdict_close']}**; the MLE itself is up to "
                         f"{max(c['max_z_mle_to_truth']):.1f} s.e. from the truth"))
        else:
            rows.append((f"{tag} claim 3: B4-CD1 against the MLE", "BCD also performs well",
                         f"no MLE on any draw ({sorted(set(s['mle_how']))[0]}): no verdict"))
        for key, label in (("claim4_protocol", "paper's protocol"), ("claim4_limit", "converged")):
            c = s[key]
            rows.append((f"{tag} claim 4: B4-CD1 − CD-4, {label}, paired by draw",
                         "(Sec. 4.1, VBM) BCD beats CD-n at equal cost; not claimed for ERGMs",
                         f"{_fmt(c['pooled'], 4)} over draws; {c['verdict'][1]}: "
                         f"**{c['verdict'][0]}**"))
        cpu = s["cpu"]
        rows.append((f"{tag} CPU seconds per run", "not reported",
                     ", ".join(f"{k} {v:.2f}" for k, v in cpu.items())
                     + "; the B1-CD1 / B2-CD1 limits against the exact MPLE / MCLE-2: at most "
                     + " / ".join(f"{v:.3f}" for v in s["limit_vs_exact_max_se"].values())
                     + " of the MLE's s.e. apart in any parameter on any draw, max z (in s.e. "
                       f"over {s['n_seeds']} seeds) "
                     + " / ".join(f"{v:.1f}" for v in s["limit_vs_exact_max_z"].values())
                     + (f" (beyond the t quantile {stats.t.ppf(0.975, s['n_seeds'] - 1):.2f} on "
                        f"some draw: a small bias of the finite Robbins-Monro run, or a "
                        f"{s['n_seeds']}-seed s.e. that is small by chance; negligible against "
                        "the statistical error)"
                        if max(s["limit_vs_exact_max_z"].values())
                        > stats.t.ppf(0.975, s["n_seeds"] - 1) else "")))
    lines = ["| quantity | paper | ergmfit |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    notes = [
        "",
        f"{'Quick mode. ' if quick else ''}Model {FORMULA} on {N_NODES} nodes; networks simulated "
        f"at the known θ from the empty graph ({BURNIN:,} proposals of burn-in). Deviations from "
        "the paper, which gives no settings for this experiment: the two θ are ours (lazega = "
        "the Lazega MLE of learning_with_blocks.py, draws from its sparse mode only; unimodal = "
        "(0, -0.2, 0.5)); the protocol is the paper's Lazega one with our step decay; the "
        "converged limits and the MLE are added to separate the estimators from their "
        "schedules. Verdicts are paired by draw: a draw counts beyond the Student t 97.5 % "
        "quantile times the Monte Carlo s.e. of its difference (seeds), the pooled line is the "
        "mean over draws ± its s.e. over draws.",
    ]
    return "\n".join(lines + notes)


def figure(draws_by_setting, summaries, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colors = dict(zip(NAMES, ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]))
    k = len(summaries)
    fig, axes = plt.subplots(2, k, figsize=(5.5 * k, 8), squeeze=False)
    for col, s in enumerate(summaries):
        draws = draws_by_setting[s["setting"]]
        truth = np.array(s["truth"])
        ax = axes[0, col]
        it = draws[0]["trace_iterations"]
        for name in NAMES:
            E = np.array([[l1(tr, truth) for tr in d["trace"][name]] for d in draws])  # draws, seeds, T
            E = E.mean(axis=1)
            ax.plot(it, E.mean(axis=0), color=colors[name], label=name)
            ax.fill_between(it, E.min(axis=0), E.max(axis=0), color=colors[name], alpha=0.12, lw=0)
            ax.axhline(np.mean(s["limit"][name]["l1_draws"]), color=colors[name], ls=":", lw=1)
        if "claim3" in s:
            ax.axhline(s["claim3"]["mle_l1_mean"][0], color="k", ls="--", lw=1, label="MLE")
        ax.set_xlabel("iteration (paper's protocol)")
        ax.set_ylabel("L1 error to the true θ")
        ax.set_title(f"({'ab'[col]}) {s['setting']} θ: mean over {s['n_draws']} draws\n"
                     "(band: min-max over draws; dotted: converged limits)", fontsize=9)
        ax.legend(frameon=False, fontsize=8)
        ax = axes[1, col]
        x = np.arange(s["n_draws"])
        series = [(f"{n} limit", s["limit"][n]["l1_draws"], colors[n], "o") for n in NAMES]
        series.append(("exact MPLE", s["mple_l1"], "gray", "x"))
        if "claim3" in s:
            mle = np.full(s["n_draws"], np.nan)
            mle[[i for i, d in enumerate(draws) if d["mle"] is not None]] = s["claim3"]["mle_l1"]
            series.append(("MLE", mle, "k", "s"))
        w = 0.8 / len(series)
        for j, (lab, y, c, mk) in enumerate(series):
            ax.plot(x - 0.4 + (j + 0.5) * w, y, mk, color=c, ms=4, label=lab)
        ax.set_xticks(x)
        ax.set_xlabel("data draw")
        ax.set_ylabel("L1 error to the true θ")
        ax.set_title(f"({'cd'[col]}) {s['setting']} θ: per draw, converged estimators",
                     fontsize=9)
        ax.legend(frameon=False, fontsize=7, ncol=2)
    fig.suptitle("Blocked CD on ERGMs simulated at a known θ (Asuncion et al. 2010, Sec. 4.3)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _jsonable(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return x


def _table_from(path):
    """The table (and the json's summaries) again from a run's stored draws."""
    with open(path, encoding="utf-8") as fh:
        run = json.load(fh)
    draws = run["draws"]
    for d in draws:
        for key in ("mple", "mcle2", "mle", "mle_se"):
            d[key] = None if d[key] is None else np.asarray(d[key], dtype=float)
        for phase in ("protocol", "limit"):
            d[phase] = {k: np.asarray(v, dtype=float) for k, v in d[phase].items()}
    summaries = [summarise([d for d in draws if d["setting"] == st], st) for st in THETAS]
    text = table(summaries, run["quick"])
    print(text)
    with open(os.path.join(FIGDIR, "asuncion_ergm.md"), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    with open(os.path.join(FIGDIR, "asuncion_ergm.json"), "w", encoding="utf-8") as fh:
        json.dump(_jsonable({**run, "summaries": summaries}), fh, indent=1)
    return summaries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="2 draws, 2 seeds, short limits, no lazega MLE (also ERGMFIT_QUICK=1)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("ERGMFIT_SEED") or 0),
                    help="offset added to every seed (default: $ERGMFIT_SEED, else 0)")
    ap.add_argument("--draws", type=int, default=None, help=f"draws per θ (default {N_DRAWS})")
    ap.add_argument("--jobs", type=int, default=2, help="processes (joblib; default 2)")
    ap.add_argument("--table-from", metavar="JSON", default=None,
                    help="rewrite the table from a run's asuncion_ergm.json (no fits, no figure)")
    ap.add_argument("--out", metavar="DIR", default=None,
                    help="where the figure and tables go (default: $ERGMFIT_FIGURES, else a "
                         "fresh temporary directory)")
    args = ap.parse_args(argv)
    quick = args.quick or os.environ.get("ERGMFIT_QUICK", "") not in ("", "0")
    n_draws = args.draws or (2 if quick else N_DRAWS)
    n_seeds = 2 if quick else N_SEEDS
    limit_iter = 100_000 if quick else LIMIT_ITER
    t_start, cpu_start = time.time(), time.process_time()
    global FIGDIR
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from _output import figures_dir
    FIGDIR = str(figures_dir("asuncion_ergm", [] if args.out is None else ["--out", args.out]))
    print(f"figure and tables go to {FIGDIR}")
    if args.table_from:
        return _table_from(args.table_from)
    jobs = [(st, d) for st in THETAS for d in range(n_draws)]
    kw = dict(base_seed=args.seed, n_seeds=n_seeds, limit_iter=limit_iter)
    if args.jobs > 1:
        from joblib import Parallel, delayed
        outs = Parallel(n_jobs=args.jobs)(
            delayed(run_draw)(st, d, mle=not (quick and st == "lazega"), **kw) for st, d in jobs)
    else:
        outs = [run_draw(st, d, mle=not (quick and st == "lazega"), **kw) for st, d in jobs]
    by = {st: [o for o in outs if o["setting"] == st] for st in THETAS}
    for st, ds in by.items():
        for d in ds:
            print(f"{st} draw {d['draw']}: statistics {d['stats']}; MPLE "
                  f"{np.round(d['mple'], 3).tolist()}; MLE "
                  f"{None if d['mle'] is None else np.round(d['mle'], 3).tolist()} ({d['mle_how']})")
    summaries = [summarise(by[st], st) for st in THETAS]
    text = table(summaries, quick)
    print()
    print(text)
    figure(by, summaries, os.path.join(FIGDIR, "asuncion_ergm.png"))
    with open(os.path.join(FIGDIR, "asuncion_ergm.md"), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    with open(os.path.join(FIGDIR, "asuncion_ergm.json"), "w", encoding="utf-8") as fh:
        json.dump(_jsonable({"quick": quick, "seed": args.seed, "summaries": summaries,
                             "draws": [{k: v for k, v in o.items() if k != "trace"}
                                       for o in outs]}), fh, indent=1)
    print(f"\ndone in {time.time() - t_start:.0f} s ({time.process_time() - cpu_start:.0f} CPU-s "
          f"in this process); wrote {FIGDIR}/asuncion_ergm.png, .md, .json")
    return summaries


if __name__ == "__main__":
    main()
