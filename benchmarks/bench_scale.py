"""Sampling and MPLE on large sparse networks, from 10^3 to 10^6 nodes (issue #21).

Run by hand:  python benchmarks/bench_scale.py [--sizes 1000 4096 4097 10000 100000 1000000]
                                               [--proposals 10000000] [--no-mple]

For each n: a G(n, p = 10 / (n - 1)) graph (``networkx.fast_gnp_random_graph``,
seed 1; mean degree 10), the model ``edges + gwesp(0.5, fixed=TRUE)`` and tie/no-tie
proposals at theta = (logit p, 0).  Every n runs in a fresh subprocess (the edge list
is generated once by another subprocess and cached in the temporary directory, so
networkx never counts towards the peak), which prints

* set-up: CPU seconds of ``Network`` + ``ERGM`` + ``compiled()`` (the state and its
  caches, from the edge array);
* M proposals per CPU second (``MHSampler.run``; fewer proposals above 10^5 nodes,
  see ``--proposals`` and ``--max-seconds``);
* peak memory of that process (``resource.getrusage``, includes the interpreter,
  numpy and ergmfit, about 100 MB);
* the MPLE (``fit(model, "mple")``, case-control above 2^26 dyads) in another fresh
  subprocess: CPU seconds of the fit (the model built and the estimator's modules
  imported beforehand; the compiled state is built inside the fit) and peak memory.

Issue #21's targets: no drop of more than 2x between n = 1,000 and 10^5; >= 3 M/s at
10^5 and 1.5 M/s at 10^6; set-up < 3 CPU s and peak < 1 GB at 10^6; MPLE at 10^6 under
10 CPU s and 1 GB.
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

FORMULA = "edges + gwesp(0.5, fixed=TRUE)"
HERE = os.path.dirname(os.path.abspath(__file__))


def edges_path(n):
    return os.path.join(tempfile.gettempdir(), f"ergmfit_bench_gnp_{n}_deg10_seed1.npy")


def make_edges(n):
    import networkx as nx
    import numpy as np
    g = nx.fast_gnp_random_graph(n, 10.0 / (n - 1), seed=1)
    ties = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    np.save(edges_path(n), ties)


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _model(n):
    import numpy as np
    import ergmfit as ef
    ties = np.load(edges_path(n))
    c0 = time.process_time()
    net = ef.Network(n, ties, directed=False)
    model = ef.ERGM(net, FORMULA)
    return model, c0


def run_mcmc(n, proposals, max_seconds):
    import numpy as np
    from ergmfit.sampling import MHSampler, TieNoTie
    from ergmfit.utils.validation import seed_words
    model, c0 = _model(n)
    bm = model.compiled()
    setup = time.process_time() - c0
    p = 10.0 / (n - 1)
    theta = np.array([math.log(p / (1 - p)), 0.0])
    s = MHSampler(bm, TieNoTie(), seed_words(1))
    # a short probe sizes the run so that it takes about max_seconds at most
    c0 = time.process_time()
    s.run(theta, 20_000)
    probe = max(time.process_time() - c0, 1e-6) / 20_000
    steps = int(min(proposals, max(200_000, max_seconds / probe)))
    c0 = time.process_time()
    s.run(theta, steps)
    cpu = time.process_time() - c0
    return {"n": n, "ties": int(model.network.n_ties), "setup_s": setup,
            "proposals": steps, "mps": steps / cpu / 1e6, "peak_mb": peak_mb()}


def run_mple(n):
    from ergmfit.estimation import fit
    import ergmfit.estimation.mple.pseudolikelihood  # noqa: F401  (its scipy imports are not the fit's work)
    model, _ = _model(n)
    c0 = time.process_time()
    res = fit(model, "mple", random_state=1)
    return {"n": n, "mple_s": time.process_time() - c0, "mple_peak_mb": peak_mb(),
            "mple_params": [float(x) for x in res.params]}


def child(args):
    if args.child == "edges":
        make_edges(args.n)
        return
    out = run_mcmc(args.n, args.proposals, args.max_seconds) if args.child == "mcmc" \
        else run_mple(args.n)
    print(json.dumps(out))


def spawn(kind, n, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--n", str(n),
           "--proposals", str(args.proposals), "--max-seconds", str(args.max_seconds)]
    env = dict(os.environ)     # the child imports the ergmfit of this checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(HERE),
                                                      env.get("PYTHONPATH")]))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1]) if kind != "edges" else {}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+",
                    default=[1000, 4096, 4097, 10_000, 100_000, 1_000_000])
    ap.add_argument("--proposals", type=int, default=10_000_000,
                    help="proposals per n (capped by --max-seconds of CPU)")
    ap.add_argument("--max-seconds", type=float, default=10.0,
                    help="at most about this many CPU seconds of sampling per n")
    ap.add_argument("--no-mple", action="store_true")
    ap.add_argument("--json", action="store_true", help="one JSON line per n as well")
    ap.add_argument("--child", choices=("edges", "mcmc", "mple"), help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args)
        return 0
    print(f"{FORMULA}, G(n, 10/(n-1)) seed 1, tie/no-tie at theta = (logit p, 0)")
    print(f"{'n':>9} {'ties':>9} {'set-up CPU s':>12} {'M prop/CPU s':>12} {'proposals':>10} "
          f"{'peak MB':>8} {'MPLE CPU s':>10} {'MPLE MB':>8}")
    for n in args.sizes:
        if not os.path.exists(edges_path(n)):
            spawn("edges", n, args)
        r = spawn("mcmc", n, args) or {}
        m = {} if args.no_mple else (spawn("mple", n, args) or {})
        r.update(m)
        f = lambda k, fmt: format(r[k], fmt) if k in r else "-"
        print(f"{n:>9,} {f('ties', ','):>9} {f('setup_s', '.2f'):>12} {f('mps', '.2f'):>12} "
              f"{f('proposals', ','):>10} {f('peak_mb', '.0f'):>8} {f('mple_s', '.2f'):>10} "
              f"{f('mple_peak_mb', '.0f'):>8}", flush=True)
        if args.json:
            print(json.dumps(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
