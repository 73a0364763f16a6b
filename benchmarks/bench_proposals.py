"""Effective sample size per CPU second of each Metropolis-Hastings proposal,
across network sizes (issue #35 item 5: which proposal should "auto" pick?).

Run by hand:  python benchmarks/bench_proposals.py [--sizes 1000 10000 100000]
                  [--models gnp homophily] [--seeds 1 2 3]
                  [--proposals tnt triadic lifted-tnt lifted-triadic]
                  [--sweeps 200] [--draws 400]

Two models, each on a sparse network of n nodes (mean degree about 10):

* ``gnp``: a G(n, p = 10 / (n - 1)) graph (drawn with numpy, seed 1) and
  ``edges + gwesp(0.5, fixed=TRUE)`` at the graph's MPLE (``fit(method="mple",
  random_state=1)``; case-control above 2^26 dyads): the issue's model.  A G(n, p)
  graph has about 167 triangles whatever n, so the MPLE's gwesp coefficient is near
  0 and the chain is stationary near the observed graph.
* ``homophily``: a planted-partition graph (groups of 25 nodes, a tie inside a
  group with probability 0.3, between groups 3 / (n - 25): mean degree about 10,
  about 2.5 n triangles, nearly all inside the groups, as in a school or workplace
  network) and ``edges + nodematch('group') + gwesp(0.5, fixed=TRUE)`` at its MPLE
  (its gwesp coefficient is near 0 too: the groups explain the triangles).  Here a
  uniformly drawn dyad almost never falls inside a group at large n, a dyad closing
  a two-path mostly does: the case for the triadic moves.

For every (model, n, seed) each proposal runs one chain from the observed network
(the proposals in turn, their order rotated from seed to seed, so that a change
in the machine's load spreads over all of them): a burn-in of 10 sweeps, not
timed (a sweep is as many proposals as the network has ties), then ``draws``
draws ``sweeps * ties / draws`` proposals apart, timed in CPU seconds
(``time.process_time``).  Printed per proposal, the medians over the seeds of

* M proposals per CPU s;
* the effective sample size (ESS) per CPU s of each statistic: Geyer's initial
  monotone sequence estimator of the integrated autocorrelation time
  (:func:`ergmfit.sampling.chains.effective_sizes`, the one ergmfit's MCMC
  diagnostics report), per chain;
* the smallest of them, the figure that bounds an MCMC-MLE step's precision,
  and its ratio to the present default's.

The ESS estimate needs the chain to be many autocorrelation times long: the
``tau`` column (autocorrelation time of the slowest statistic, in draws) should
stay well below ``draws / 20``; raise ``--sweeps`` where it does not.  The
``drift`` column (the largest distance between the means of the two halves of a
chain's draws, in batch-means standard errors, over the seeds) flags a chain that
has not mixed.  Session 13's figures came from ``--models gnp --sizes 1000 10000
--proposals tnt lifted-tnt lifted-triadic``, ``--models gnp --sizes 100000 --seeds
1 2 --sweeps 100 --draws 300`` (same proposals) and ``--models homophily --sizes
1000 10000 --sweeps 800`` (same proposals; the reversible ``triadic`` once at 1,000).
The figures and what was decided from them: docs/guide/large_networks.md, "Which
proposal at which size".
"""
import argparse
import time

import numpy as np

import ergmfit as ef
from ergmfit.sampling import MHSampler, make_proposal
from ergmfit.sampling.chains import batch_means_cov, effective_sizes
from ergmfit.utils.validation import seed_words

FORMULAS = {"gnp": "edges + gwesp(0.5, fixed=TRUE)",
            "homophily": "edges + nodematch('group') + gwesp(0.5, fixed=TRUE)"}
PROPOSALS = ("tnt", "triadic", "lifted-tnt", "lifted-triadic")
GROUP_SIZE, P_WITHIN, MEAN_BETWEEN = 25, 0.3, 3.0


def gnp_ties(n, mean_degree=10.0, seed=1):
    """The ties of a G(n, p) graph, p = mean_degree / (n - 1): a binomial number of
    distinct uniform pairs (exactly G(n, p)), drawn with numpy."""
    rng = np.random.default_rng(seed)
    n_pairs = n * (n - 1) // 2
    m = rng.binomial(n_pairs, mean_degree / (n - 1))
    keys = np.zeros(0, dtype=np.int64)
    while len(keys) < m:
        i = rng.integers(0, n, size=2 * (m - len(keys)) + 16)
        j = rng.integers(0, n, size=len(i))
        keep = i != j
        a, b = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
        keys = np.unique(np.concatenate([keys, a * n + b]))
    keys = rng.permutation(keys)[:m]
    return np.stack([keys // n, keys % n], axis=1)


def planted_partition_ties(n, seed=1):
    """(ties, group of each node): groups of GROUP_SIZE nodes, a tie inside a group
    with probability P_WITHIN, between groups MEAN_BETWEEN / (n - GROUP_SIZE)."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) // GROUP_SIZE
    iu, ju = np.triu_indices(GROUP_SIZE, 1)
    starts = np.arange(0, n, GROUP_SIZE)
    i = (starts[:, None] + iu[None, :]).ravel()
    j = (starts[:, None] + ju[None, :]).ravel()
    ok = j < n
    i, j = i[ok], j[ok]
    inside = rng.random(len(i)) < P_WITHIN
    within = np.stack([i[inside], j[inside]], axis=1)
    between = gnp_ties(n, MEAN_BETWEEN * (n - 1) / (n - GROUP_SIZE), seed=seed + 1)
    between = between[group[between[:, 0]] != group[between[:, 1]]]
    return np.concatenate([within, between]), group


def build(model_name, n):
    """(ERGM, theta): the model at its MPLE (``random_state=1``)."""
    if model_name == "gnp":
        net = ef.Network(n, gnp_ties(n), directed=False)
    else:
        ties, group = planted_partition_ties(n)
        net = ef.Network(n, ties, directed=False, node_attrs={"group": group})
    m = ef.ERGM(net, FORMULAS[model_name])
    return m, np.asarray(m.fit(method="mple", random_state=1).params, dtype=float)


def one_chain(model, theta, proposal, seed, sweeps, draws):
    """(proposals per CPU s, ESS per statistic, CPU s, drift in s.e., tau in draws)."""
    L = max(int(model.network.n_ties), 1)
    s = MHSampler(model.compiled(), make_proposal(proposal), seed_words(seed))
    s.run(theta, 10 * L)
    interval = max(1, sweeps * L // draws)
    c0 = time.process_time()
    S = s.sample(theta, draws, 0, interval)
    cpu = time.process_time() - c0
    ess = effective_sizes([S])
    h = draws // 2
    se = np.sqrt(np.diag(batch_means_cov([S[:h]])) + np.diag(batch_means_cov([S[h:]])))
    drift = np.max(np.abs(S[:h].mean(0) - S[h:].mean(0)) / np.where(se > 0, se, np.inf))
    return draws * interval / cpu, ess, cpu, float(drift), float(draws / ess.min())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--models", nargs="+", default=list(FORMULAS),
                    choices=list(FORMULAS))
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--proposals", nargs="+", default=list(PROPOSALS), choices=PROPOSALS)
    ap.add_argument("--sweeps", type=int, default=200,
                    help="proposals per chain (timed), in units of the network's tie count")
    ap.add_argument("--draws", type=int, default=400)
    args = ap.parse_args(argv)
    for model_name in args.models:
        for n in args.sizes:
            c0 = time.process_time()
            model, theta = build(model_name, n)
            default = model.default_proposal
            g = model.statistics_vector()
            print(f"\n{model_name}: n = {n:,}, ties {model.network.n_ties:,}, statistics "
                  f"{np.round(g, 1).tolist()}, theta {np.round(theta, 4).tolist()} "
                  f"(set-up {time.process_time() - c0:.1f} CPU s); default {default!r}",
                  flush=True)
            res = {p: [] for p in args.proposals}
            for k, seed in enumerate(args.seeds):
                order = args.proposals[k % len(args.proposals):] + \
                    args.proposals[:k % len(args.proposals)]
                for p in order:
                    res[p].append(one_chain(model, theta, p, seed, args.sweeps, args.draws))
            labels = model.labels
            print(f"{'proposal':>15s} {'M/CPU s':>8s} "
                  + " ".join(f"{'ESS/s ' + lab[:14]:>20s}" for lab in labels)
                  + f" {'min ESS/s':>10s} {'vs dflt':>8s} {'tau':>6s} {'drift':>6s} {'CPU s':>6s}")
            min_default = None
            rows = []
            for p in args.proposals:
                r = res[p]
                rate = np.median([x[0] for x in r]) / 1e6
                ess_s = np.median([x[1] / x[2] for x in r], axis=0)
                min_s = np.median([(x[1] / x[2]).min() for x in r])
                rows.append((p, rate, ess_s, min_s, np.median([x[4] for x in r]),
                             max(x[3] for x in r), np.median([x[2] for x in r])))
                if p == default:
                    min_default = min_s
            for p, rate, ess_s, min_s, tau, drift, cpu in rows:
                rel = min_s / min_default if min_default else float("nan")
                print(f"{p:>15s} {rate:8.2f} " + " ".join(f"{e:20.1f}" for e in ess_s)
                      + f" {min_s:10.1f} {rel:8.2f} {tau:6.1f} {drift:6.1f} {cpu:6.1f}",
                      flush=True)


if __name__ == "__main__":
    main()
