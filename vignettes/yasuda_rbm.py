"""Yasuda et al., Table 1: composite likelihood of order k for an RBM.

Reproduces Sec. 3.1 of Yasuda, Kataoka, Waizumi & Tanaka, "Composite
Likelihood Estimation for Restricted Boltzmann Machines", with
``ergmfit.mrf.RBM`` (+-1 units):

* model: p(x, h) ∝ exp(sum_i a_i x_i + sum_j b_j h_j + sum_ij w_ij x_i h_j),
  x, h in {-1, +1}; visible likelihood p(x) ∝ exp(a.x) prod_j 2cosh(b_j + w_j.x)
  (eq. 7 and the line after eq. 8);
* data: per trial M = 70 visible vectors from a 5-visible / 17-hidden RBM with
  a_i = 0.1, b_j = -0.1, w_ij = 0.2 (the paper draws them by MCMC; we draw them
  exactly, by enumeration of the 32 visible states, i.e. the MCMC's limit);
* learner: 5 visible / 10 hidden; the first-, second- and third-order CL
  L_{F_k} (eq. 5: the mean over all k-subsets c of log p(x_c | x_-c)) and the
  exact log-likelihood L_ML (eq. 8, = L_{F_5}) are each maximised by plain
  gradient ascent, update rate 0.1, 50,000 iterations, from the SAME random
  initial parameters (per trial; the paper does not give their law: we draw
  them from N(0, 0.1^2), ``INIT_SD``) for the four methods, with the gradients of
  eqs. (10)-(12).  Eqs. (11)-(12) are the exact gradients of L_{F_k}; eq. (10)
  for the visible biases averages over the blocks containing i only
  (|F_k(i)|^-1 instead of Lambda_{F_k}), i.e. it is (n / k) times dL_{F_k}/da_i;
  we use eq. (10) as written (``ALPHA_RULE = "eq10"``; ``"exact"`` gives the
  plain gradient).  At k = n both are the ML gradient.
* Table 1: MAD (mean absolute difference) between the CL-k and the ML
  parameters after the 50,000 iterations, per group a / b / w, averaged over
  30 trials.  Because all four runs start from the same point and follow the
  same deterministic schedule, hidden unit j of one run corresponds to hidden
  unit j of the others (no permutation / sign matching is needed, and none is
  done -- as in the paper).
* Log-likelihoods: L_ML (eq. 8: per data point, on the TRAINING data, since
  Q is the empirical distribution of the 70 data) of each method's final
  parameters, averaged over the trials (paper: ML -1.741, CL1 -1.796,
  CL2 -1.742, CL3 -1.741); Figs. 1-2 (CL_k and L_ML against iterations).

Implementation.  With 5 visible units every quantity lives on the 32 visible
states: the data enter only through their empirical distribution Q(s), and a
block c of data point x has the 2^k completions forming an "orbit" of states.
So L_{F_k} = sum_s Q(s) log p*(s) - Lambda sum_c sum_orbits Q(orbit) logsumexp
over the orbit, and its gradient is sum_s w(s) d log p*(s) / d theta with
w(s) = Q(s) - Lambda sum_c Q(orbit_c(s)) p(s | orbit_c(s)).  All trials and all
four methods are advanced together as one numpy batch (:class:`StateSpaceRBM`);
``tests/mrf/test_rbm_composite_likelihood.py`` checks it against brute force and against
``RBM.composite_loglik``.  ``RBM.fit`` itself maximises with L-BFGS to
convergence, which is not the paper's fixed 50,000-step gradient ascent (the
ML estimate of an RBM on 70 points drifts to infinity along the unobserved
states, so where it "stops" depends on the schedule).

The data regime.  The paper's log-likelihoods (about -1.74 per point) cannot
come from equilibrium samples of the stated generator: its visible
distribution has entropy 0.79 (78% of the mass on x = -1...-1), 70 exact draws
hit ~5 distinct states and the empirical entropy is ~0.71, so no parameter
value gives a training L_ML above -0.71.  Two explanations are checked
numerically, each as its own experiment in the table (MADs and L_ML with
± standard errors over the trials; "paper within 2 s.e." counts where the
paper's number lies within our error bars):

1. more diverse data than the stated generator's equilibrium -- e.g. 70
   short Gibbs chains started at random (1-2 sweeps give an empirical
   entropy of 2.2-1.4), which "MCMC" does not exclude.  Stand-in: the ±1
   generator with w_ij = 0.15 (``W_ALT``), whose 70-point empirical entropy
   (~1.75) matches the paper's L_ML;
2. {0,1} visible units in the generator (hidden ±1, the stated a, b, w):
   its visible distribution has entropy 1.69 and 70 draws have an empirical
   entropy of ~1.5 (mean over data sets; sd 0.18), near the paper's L_ML of
   -1.74 (checked by ``generator01`` and the third experiment).

Neither is confirmed by the paper's text; the table shows which of the
paper's numbers each one reproduces within the error bars.  Full run (30
trials): explanation 1 matches the paper's L_ML (4 of 4 within 2 s.e.) and
the k = 1 MADs (3 of 3), but only 2 of 3 MADs at k = 2 and 1 of 3 at k = 3
(0.14-0.17 against the paper's 0.10-0.13); explanation 2 gives L_ML -1.43 ±
0.03 for these 30 data sets (the paper: -1.74) and matches 2 of 3 MADs at
k = 1 and none at k = 2 or 3.  So neither reproduces Table 1 as a whole.  With the stated
±1 generator (w = 0.2) the MADs decrease with k as in the paper but are
about half as large, and CL1/CL2 overfit the few distinct states (their
conditionals become nearly deterministic; L_ML peaks and then falls).

Environment: ``ERGMFIT_QUICK=1`` (3 trials, 5,000 iterations),
``ERGMFIT_FIGURES=dir`` or ``--out dir`` (where the figure and table go).
"""
import itertools
import os
import time

import numpy as np
from scipy import special

from ergmfit.mrf import RBM

QUICK = os.environ.get("ERGMFIT_QUICK", "") not in ("", "0")
#: where the figure and table go, set by main(): ``--out DIR``, else $ERGMFIT_FIGURES, else a
#: fresh temporary directory (vignettes/_output.py); never vignettes/figures/ unless asked
FIGDIR = None
N_VIS, N_HID, N_HID_GEN = 5, 10, 17
ALPHA0, BETA0, W0 = 0.1, -0.1, 0.2
M = 70
ORDERS = (1, 2, 3, N_VIS)               # CL1, CL2, CL3 and ML (= CL of order n)
N_TRIALS = 3 if QUICK else 30
N_ITER = 5000 if QUICK else 50000
RATE = 0.1
INIT_SD = 0.1                           # initial parameters ~ N(0, INIT_SD^2) (unspecified)
ALPHA_RULE = "eq10"
W_ALT = 0.15                            # second generator: data entropy ≈ the paper's -L_ML
N_JOBS = 2
N_TRACE = 60
#: base seed (the committed figures use 2012); ERGMFIT_SEED overrides it, to re-run every verdict on other seeds
SEED = int(os.environ.get("ERGMFIT_SEED") or 2012)

PAPER_MAD = {1: (0.377, 0.431, 0.360), 2: (0.223, 0.223, 0.192), 3: (0.128, 0.114, 0.103)}
NAMES = {1: "CL1", 2: "CL2", 3: "CL3", N_VIS: "ML"}
PAPER_LL = {"ML": -1.741, "CL1": -1.796, "CL2": -1.742, "CL3": -1.741}


class StateSpaceRBM:
    """+-1 RBM objectives on all 2^n visible states, batched over parameter vectors.

    Parameters
    ----------
    n_visible, n_hidden : int
        Layer sizes (``n_visible`` <= 12: the 2^n states are enumerated).

    Notes
    -----
    theta is laid out as in :class:`ergmfit.mrf.RBM`: [a (n_v), b (n_h),
    W (n_v * n_h, row-major)].  State s has x_i = +1 iff bit i of s is set.
    ``objective(theta, Q, k)`` returns L_{F_k} (Yasuda et al. eq. 5: mean over
    all k-subsets) and its gradient for a batch: theta (B, P), Q (B, 2^n)
    empirical distributions (rows summing to 1).
    """

    def __init__(self, n_visible, n_hidden):
        if not 1 <= n_visible <= 12:
            raise ValueError("n_visible must be in 1..12 (all 2^n states are enumerated)")
        self.n_visible, self.n_hidden = int(n_visible), int(n_hidden)
        n = self.n_visible
        s = np.arange(2 ** n)
        self.states = 2.0 * ((s[:, None] >> np.arange(n)) & 1) - 1.0   # (2^n, n)
        self._orbits = {}

    @property
    def n_params(self):
        return self.n_visible + self.n_hidden + self.n_visible * self.n_hidden

    def orbits(self, k):
        """(idx, inv): idx (|F_k|, 2^(n-k), 2^k) -- for block c, the states
        that agree outside c, grouped; inv (|F_k|, 2^n) -- position of state s
        in idx[c].ravel()."""
        if k not in self._orbits:
            n = self.n_visible
            if not 1 <= k <= n:
                raise ValueError(f"order k must be in 1..{n}, got {k}")
            idx = []
            for c in itertools.combinations(range(n), k):
                mask = sum(1 << i for i in c)
                rest = [s for s in range(2 ** n) if s & mask == 0]
                fill = [sum(1 << c[j] for j in range(k) if (t >> j) & 1) for t in range(2 ** k)]
                idx.append([[r | f for f in fill] for r in rest])
            idx = np.array(idx, dtype=np.int64)
            inv = np.argsort(idx.reshape(len(idx), -1), axis=1)
            self._orbits[k] = (idx, inv)
        return self._orbits[k]

    def unpack(self, theta):
        theta = np.atleast_2d(np.asarray(theta, dtype=float))
        nv, nh = self.n_visible, self.n_hidden
        return (theta[:, :nv], theta[:, nv:nv + nh],
                theta[:, nv + nh:].reshape(len(theta), nv, nh))

    def log_unnorm(self, theta):
        """log p*(s) for all states and the hidden tanh: (B, 2^n), (B, 2^n, n_h)."""
        a, b, W = self.unpack(theta)
        A = self.states @ W + b[:, None, :]                     # (B, 2^n, n_h)
        absA = np.abs(A)
        logcosh2 = absA + np.log1p(np.exp(-2.0 * absA))         # log 2cosh(A)
        return a @ self.states.T + logcosh2.sum(-1), np.tanh(A)

    def loglik(self, theta, Q):
        """L_ML = sum_s Q(s) log p(s) for each row: (B,)."""
        L, _ = self.log_unnorm(theta)
        return np.sum(Q * L, axis=1) - special.logsumexp(L, axis=1)

    def empirical(self, V):
        """Q(s): the histogram of the +-1 (or 0/1) rows of V over the 2^n states."""
        V = np.asarray(V)
        s = ((V > 0).astype(np.int64) << np.arange(self.n_visible)).sum(1)
        return np.bincount(s, minlength=2 ** self.n_visible) / len(V)

    def objective(self, theta, Q, k, alpha_rule="exact"):
        """(L_{F_k}, gradient) for a batch; ``alpha_rule="eq10"`` scales the
        visible-bias gradient by n / k (Yasuda et al. eq. 10 as written)."""
        theta = np.atleast_2d(np.asarray(theta, dtype=float))
        Q = np.atleast_2d(np.asarray(Q, dtype=float))
        B, n = len(theta), self.n_visible
        idx, inv = self.orbits(k)
        F = idx.shape[0]
        L, T = self.log_unnorm(theta)
        Lo = L[:, idx]                                          # (B, F, 2^(n-k), 2^k)
        mx = Lo.max(-1)
        E = np.exp(Lo - mx[..., None])
        Z = E.sum(-1)
        qo = Q[:, idx].sum(-1)                                  # Q of each orbit
        val = np.sum(Q * L, axis=1) - np.sum(qo * (mx + np.log(Z)), axis=(1, 2)) / F
        Pw = (E * (qo / Z)[..., None]).reshape(B, F, -1)        # Q(orbit) p(s | orbit)
        model = Pw[:, np.arange(F)[:, None], inv].sum(1) / F
        w = Q - model                                           # (B, 2^n)
        ga = w @ self.states
        if alpha_rule == "eq10":
            ga = ga * (n / k)
        elif alpha_rule != "exact":
            raise ValueError("alpha_rule must be 'exact' or 'eq10'")
        gb = np.einsum("bs,bsh->bh", w, T)
        gW = (self.states.T @ (w[:, :, None] * T)).reshape(B, -1)
        return val, np.concatenate([ga, gb, gW], axis=1)


def gradient_ascent(ss, theta0, Q, k, n_iter, rate, alpha_rule, trace_at=()):
    """Plain gradient ascent on L_{F_k} for a batch; returns theta and a trace
    of (iteration, L_{F_k}, L_ML) rows (each (B,)) at the iterations in trace_at."""
    theta = np.array(theta0, dtype=float)
    trace, marks = [], set(int(t) for t in trace_at)
    for t in range(n_iter + 1):
        val, g = ss.objective(theta, Q, k, alpha_rule)
        if t in marks:
            trace.append((t, val, ss.loglik(theta, Q)))
        if t < n_iter:
            theta += rate * g
    return theta, trace


def _ascent_task(theta0, Q, k, trace_at):
    ss = StateSpaceRBM(N_VIS, N_HID)
    t0 = time.perf_counter()
    th, tr = gradient_ascent(ss, theta0, Q, k, N_ITER, RATE, ALPHA_RULE, trace_at)
    return th, tr, time.perf_counter() - t0


def generator01(ss, w_gen):
    """The visible distribution of the 5/17 generator with {0,1} visible units
    (hidden +-1): p(x) ∝ exp(a.x) prod_j 2cosh(b_j + w_j.x), x in {0,1}^5,
    over ``ss.states`` (x = 1 where the +-1 state is +1)."""
    x01 = (ss.states > 0).astype(float)
    A = BETA0 + w_gen * x01.sum(1)
    L = ALPHA0 * x01.sum(1) + N_HID_GEN * (np.abs(A) + np.log1p(np.exp(-2 * np.abs(A))))
    return np.exp(L - special.logsumexp(L))


def experiment(w_gen, seed, coding="pm"):
    """Data for N_TRIALS trials from the 5/17 generator with weights ``w_gen``
    (``coding="01"``: {0,1} visible units in the generator, data drawn exactly
    from its visible distribution), the same random start per trial for CL1,
    CL2, CL3 and ML, and the four gradient ascents run as joblib tasks."""
    from joblib import Parallel, delayed
    rng = np.random.default_rng(seed)
    gen = RBM(N_VIS, N_HID_GEN)
    true = gen.pack(np.full(N_VIS, ALPHA0), np.full(N_HID_GEN, BETA0),
                    np.full((N_VIS, N_HID_GEN), w_gen))
    ss = StateSpaceRBM(N_VIS, N_HID)
    if coding == "01":
        p01 = generator01(ss, w_gen)
        Q = np.array([np.bincount(rng.choice(len(p01), M, p=p01), minlength=len(p01)) / M
                      for _ in range(N_TRIALS)])
    else:
        Q = np.array([ss.empirical(gen.sample(M, true, random_state=rng))
                      for _ in range(N_TRIALS)])
    theta0 = INIT_SD * rng.standard_normal((N_TRIALS, ss.n_params))
    trace_at = np.concatenate([[0], np.unique(np.round(np.geomspace(1, N_ITER, N_TRACE)))])
    out = Parallel(n_jobs=min(N_JOBS, len(ORDERS)))(
        delayed(_ascent_task)(theta0, Q, k, trace_at) for k in ORDERS)
    fits = {k: o[0] for k, o in zip(ORDERS, out)}
    traces = {k: o[1] for k, o in zip(ORDERS, out)}
    ptrue = generator01(ss, w_gen) if coding == "01" else np.exp(gen.score_samples(ss.states, true))
    H = -np.sum(np.where(Q > 0, Q * np.log(np.where(Q > 0, Q, 1.0)), 0.0), axis=1)
    nv, nh = N_VIS, N_HID
    groups = (slice(0, nv), slice(nv, nv + nh), slice(nv + nh, None))
    per_trial = {k: np.array([np.mean(np.abs(fits[k][:, g] - fits[N_VIS][:, g]), axis=1)
                              for g in groups]) for k in (1, 2, 3)}      # (3 groups, trials)
    res = dict(
        w_gen=w_gen, Q=Q, fits=fits, traces=traces, H=H.mean(),
        H_true=float(-(ptrue @ np.log(ptrue))), distinct=float(np.mean((Q > 0).sum(1))),
        mad_trials=per_trial,
        mad={k: per_trial[k].mean(1) for k in (1, 2, 3)},
        mad_se={k: per_trial[k].std(1, ddof=1) / np.sqrt(N_TRIALS) if N_TRIALS > 1
                else np.zeros(3) for k in (1, 2, 3)},
        ll={NAMES[k]: float(ss.loglik(fits[k], Q).mean()) for k in ORDERS},
        ll_se={NAMES[k]: float(ss.loglik(fits[k], Q).std(ddof=1) / np.sqrt(N_TRIALS))
               if N_TRIALS > 1 else 0.0 for k in ORDERS},
        H_se=float(H.std(ddof=1) / np.sqrt(N_TRIALS)) if N_TRIALS > 1 else 0.0, coding=coding,
        own={NAMES[k]: float(ss.objective(fits[k], Q, k)[0].mean()) for k in ORDERS},
        seconds={NAMES[k]: o[2] for k, o in zip(ORDERS, out)})
    print(f"generator w={w_gen} ({'{0,1}' if coding == '01' else '+-1'} visible): entropy of p(x) {res['H_true']:.3f}; {N_TRIALS} data sets of "
          f"M={M}: {res['distinct']:.1f} distinct states, empirical entropy {res['H']:.3f} "
          f"(so L_ML <= {-res['H']:.3f})")
    for name in res["ll"]:
        print(f"  {name}: {N_ITER} iterations x {N_TRIALS} trials in {res['seconds'][name]:.1f} s;"
              f" final L_ML {res['ll'][name]:.4f}, own objective {res['own'][name]:.4f}")
    return res


def main():
    t_start = time.perf_counter()
    global FIGDIR
    from _output import figures_dir
    FIGDIR = str(figures_dir("yasuda_rbm"))
    print(f"figure and table go to {FIGDIR}")
    main_res = experiment(W0, SEED)
    alt = experiment(W_ALT, SEED + 1)
    c01 = experiment(W0, SEED + 2, coding="01")

    # ---- table ------------------------------------------------------------------
    gnames = ("α", "β", "w")

    def within(res, k):
        """per group: is the paper's MAD within 2 s.e. of ours?"""
        return [abs(res["mad"][k][j] - PAPER_MAD[k][j]) <= 2 * res["mad_se"][k][j]
                for j in range(3)]

    def mad_row(res, k):
        ok = within(res, k)
        return ("/".join(f"{res['mad'][k][j]:.3f} ± {res['mad_se'][k][j]:.3f}" for j in range(3))
                + f": paper within 2 s.e. for {sum(ok)} of 3")

    def ll_row(res):
        ok = [abs(res["ll"][n] - PAPER_LL[n]) <= 2 * res["ll_se"][n] for n in PAPER_LL]
        return ("/".join(f"{res['ll'][n]:.3f} ± {res['ll_se'][n]:.3f}"
                         for n in ("ML", "CL1", "CL2", "CL3"))
                + f" (-entropy of the data {-res['H']:.3f} ± {res['H_se']:.3f}): paper within 2 "
                  f"s.e. for {sum(ok)} of 4")

    def falls_z(res):
        """Paired z of the fall MAD(k) - MAD(k+1), k = 1, 2, per group: the three MADs come
        from the same trial (same data, same start), so the test is on the per-trial
        differences, not on two independent error bars.  (2 steps, 3 groups)."""
        t = res["mad_trials"]
        z = np.full((2, 3), np.nan)
        if N_TRIALS > 1:
            for i, k in enumerate((1, 2)):
                d = t[k] - t[k + 1]                                   # (3 groups, trials)
                z[i] = d.mean(1) / (d.std(1, ddof=1) / np.sqrt(N_TRIALS))
        return z

    def falls(res):
        return bool(np.all(falls_z(res) > 2))

    def falls_row(res):
        z = falls_z(res)
        return ((f"{'reproduced' if falls(res) else 'not reproduced'}: paired z (per-trial "
                 "differences, α/β/w) k=1 vs 2: ") + "/".join(f"{x:.1f}" for x in z[0])
                + "; k=2 vs 3: " + "/".join(f"{x:.1f}" for x in z[1]))
    rows = []
    for k in (1, 2, 3):
        for j, g in enumerate(gnames):
            ok = within(main_res, k)[j]
            rows.append((f"Table 1: MAD {g}, k={k} (±1 generator, w = {W0}, {N_TRIALS} trials)",
                         f"{PAPER_MAD[k][j]:.3f}",
                         f"{main_res['mad'][k][j]:.3f} ± {main_res['mad_se'][k][j]:.3f}: "
                         + ("reproduced" if ok else "not reproduced")))
    for name in ("ML", "CL1", "CL2", "CL3"):
        rows.append((f"L_ML per data point (training data) after {N_ITER} it., {name}",
                     f"{PAPER_LL[name]:.3f}", f"{main_res['ll'][name]:.3f} ± "
                     f"{main_res['ll_se'][name]:.3f}: not reproduced (the data's entropy "
                     f"{main_res['H']:.3f} caps L_ML at {-main_res['H']:.3f})"))
    ll = main_res["ll"]
    rows.append(("ordering of final L_ML (Fig. 2)", "CL1 < CL2 <= CL3 ≈ ML",
                 " < ".join(f"{n} {ll[n]:.4f}" for n in sorted(ll, key=ll.get))))
    rows.append(("final L_{F_k} of each estimator (Fig. 1)", "CL1 > CL2 > CL3 > ML",
                 " > ".join(f"{n} {v:.4f}" for n, v in main_res["own"].items())))
    rows.append(("MAD falls with k (Table 1), ±1 generator, every group: paired z > 2 "
                 "for each step (the magnitudes: rows above)",
                 "k=1 > k=2 > k=3", falls_row(main_res)))
    for res, tag in ((alt, f"explanation 1: ±1 generator with w = {W_ALT} (entropy-matched)"),
                     (c01, f"explanation 2: {{0,1}} visible coding in the generator, w = {W0}")):
        rows.append((f"[{tag}] entropy of p(x) / of 70 data points", "(not given)",
                     f"{res['H_true']:.3f} / {res['H']:.3f} ± {res['H_se']:.3f}"))
        for k in (1, 2, 3):
            rows.append((f"[{tag}] MAD α/β/w, k={k}",
                         "/".join(f"{v:.3f}" for v in PAPER_MAD[k]), mad_row(res, k)))
        rows.append((f"[{tag}] L_ML ML / CL1 / CL2 / CL3",
                     "/".join(f"{PAPER_LL[n]:.3f}" for n in ("ML", "CL1", "CL2", "CL3")),
                     ll_row(res)))
    summary = {"quick": QUICK, "n_trials": N_TRIALS}
    for key, res in (("pm", main_res), ("alt", alt), ("c01", c01)):
        summary[key] = {"H": res["H"], "H_se": res["H_se"], "H_true": res["H_true"],
                        "ll": res["ll"], "ll_se": res["ll_se"], "falls": falls(res),
                        "falls_z": falls_z(res).tolist(),
                        "mad": {k: list(map(float, res["mad"][k])) for k in (1, 2, 3)},
                        "mad_se": {k: list(map(float, res["mad_se"][k])) for k in (1, 2, 3)}}
    import json
    with open(os.path.join(FIGDIR, "yasuda_rbm.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    lines = ["| quantity | paper | ergmfit |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    table = "\n".join(lines)

    # ---- figure -------------------------------------------------------------------
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5))
    x = np.arange(3)
    for a, res, title in ((ax[0, 0], main_res, f"Table 1, w_gen = {W0} (paper's setting)"),
                          (ax[0, 1], alt,
                           f"w_gen = {W_ALT} (entropy matched to the paper's L_ML)")):
        for j, g in enumerate(gnames):
            a.bar(x + (j - 1) * 0.27, [res["mad"][k][j] for k in (1, 2, 3)], 0.27,
                  yerr=[res["mad_se"][k][j] for k in (1, 2, 3)], capsize=3, label=g)
            a.plot(x + (j - 1) * 0.27, [PAPER_MAD[k][j] for k in (1, 2, 3)], "k_", ms=14,
                   mew=2, label="paper" if j == 0 else None)
        a.set_xticks(x, [f"k={k}" for k in (1, 2, 3)])
        a.set_ylabel(f"MAD from the ML estimate ({N_TRIALS} trials, ± s.e.)")
        a.set_title(title, fontsize=10)
        a.legend(fontsize=8)
    tr = main_res["traces"]
    for k in ORDERS:
        it = np.array([t for t, _, _ in tr[k][1:]])                # skip iteration 0 (log axis)
        ax[1, 0].plot(it, [v.mean() for _, v, _ in tr[k][1:]], label=NAMES[k])
        ax[1, 1].plot(it, [m.mean() for _, _, m in tr[k][1:]], label=NAMES[k])
    ax[1, 0].set_title("Fig. 1: L_{F_k} of each estimator (w_gen = %g)" % W0, fontsize=10)
    ax[1, 1].set_title("Fig. 2: true log-likelihood L_ML (w_gen = %g)" % W0, fontsize=10)
    for a in ax[1]:
        a.set_xscale("log")
        a.set_xlabel("gradient-ascent iteration")
        a.axhline(-main_res["H"], color="k", lw=0.8, ls=":", label="-entropy(Q) (max L_ML)")
        a.legend(fontsize=8)
    ax[1, 0].set_ylabel("objective per data point")
    ax[1, 1].set_ylabel("log-likelihood per data point (training)")
    ax[1, 1].set_ylim(-main_res["H"] - 0.6, -main_res["H"] + 0.05)
    fig.suptitle("Yasuda et al.: CL of order k vs exact ML, 5/10 RBM learning 70 points "
                 "from a 5/17 RBM")
    fig.tight_layout()
    path = os.path.join(FIGDIR, "yasuda_rbm.png")
    fig.savefig(path, dpi=110)

    print()
    print(table)
    with open(os.path.join(FIGDIR, "yasuda_rbm.md"), "w") as fh:
        fh.write(table + "\n")
    print(f"\nfigure: {path}\nwall time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
