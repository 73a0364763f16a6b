"""Fixed-seed fingerprints of every estimator: sha256 of each result's
params / standard errors / log-likelihood bytes (and of fixed-seed simulated
statistics), to check that a refactoring changes no number.

Usage::

    PYTHONPATH=. python benchmarks/fixed_seed_hashes.py                 # print
    PYTHONPATH=. python benchmarks/fixed_seed_hashes.py --record FILE   # store
    PYTHONPATH=. python benchmarks/fixed_seed_hashes.py --check FILE    # compare

The hashes are bit-exact, so they hold only on the machine (CPU, numpy/BLAS
build) that recorded them: ``FILE`` stores that machine's fingerprint, and
``--check`` says when the fingerprint differs (chaotic MCMC fits may then
differ without any change of code).  Every case runs in a few seconds.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import platform
import sys
import time
import warnings

import numpy as np


def fingerprint() -> dict:
    """What bit-identical floating point depends on: numpy's and scipy's
    versions and BLAS, the Python version and the CPU's SIMD features (those of
    ``numpy.show_runtime``).  Host names and kernel versions are left out."""
    import scipy
    try:
        from numpy._core import _multiarray_umath as umath     # numpy 2
    except ImportError:
        from numpy.core import _multiarray_umath as umath
    feats = getattr(umath, "__cpu_features__", {})
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        blas = f"{blas.get('name')} {blas.get('version')}"
    except (AttributeError, KeyError):
        blas = None
    return {"numpy": np.__version__, "scipy": scipy.__version__,
            "python": platform.python_version(), "machine": platform.machine(), "blas": blas,
            "simd_baseline": list(getattr(umath, "__cpu_baseline__", [])),
            "simd_found": sorted(k for k, v in feats.items() if v)}


def show_runtime() -> str:
    """``numpy.show_runtime()``'s text (stored beside the fingerprint, for a reader)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            np.show_runtime()
        except Exception:             # numpy < 1.24 has no show_runtime
            pass
    return buf.getvalue().strip()


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            a = np.nan
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()


def _fit_hash(res) -> str:
    return _digest(np.asarray(res.params), np.asarray(res.bse), res.loglik)


def _cases():
    import ergmfit as ef
    flo = ef.datasets.load("flomarriage")
    samp = ef.datasets.load("samplike")
    laz = ef.datasets.load("lazega")

    def fit(net, formula, method, seed=1, model_kw=None, **kw):
        return _fit_hash(ef.ERGM(net, formula, **(model_kw or {})).fit(
            method=method, random_state=seed, **kw))

    sn = list(samp.nodes)
    samp_missing = {"missing": [(sn[0], sn[1]), (sn[2], sn[3]), (sn[4], sn[5]), (sn[1], sn[7]),
                                (sn[8], sn[9])]}
    gw = "edges + gwesp(0.25, fixed=FALSE)"
    tri = "edges + triangle"
    c = {}
    c["mple/flo"] = lambda: fit(flo, "edges + kstar(2) + triangle", "mple")
    c["mple/samp_curved"] = lambda: fit(samp, "edges + mutual + gwesp(0.5, fixed=FALSE)",
                                        "mple")
    c["mple/laz"] = lambda: fit(laz, "edges + nodematch('practice') + gwesp(0.5, fixed=TRUE)",
                                "mple")
    c["mcmle/flo"] = lambda: fit(flo, tri, "mcmle", 2)
    c["mcmle/samp"] = lambda: fit(samp, "edges + mutual", "mcmle", 3)
    c["mcmle/flo_curved"] = lambda: fit(flo, gw, "mcmle", 4)
    c["mcmle/samp_missing"] = lambda: fit(
        samp, "edges + mutual", "mcmle", 5,
        model_kw=samp_missing)
    c["mcmle/samp_constrained"] = lambda: fit(samp, "mutual + ttriple", "mcmle", 6,
                                              constraints="~ edges")
    c["mcmle/flo_offset"] = lambda: fit(flo, "offset(edges) + triangle", "mcmle", 7,
                                        offset_coef=[-1.5])
    c["mple/flo_offset"] = lambda: fit(flo, "offset(edges) + kstar(2)", "mple", 7,
                                       offset_coef=[-1.5])
    c["mcmle/flo_target"] = lambda: fit(flo, tri, "mcmle", 8, target_stats=[25, 4])
    c["mple/flo_target"] = lambda: fit(flo, tri, "mple", 8, target_stats=[25, 4])
    c["cd/flo"] = lambda: fit(flo, tri, "cd", 9)
    c["cd/flo_curved"] = lambda: fit(flo, gw, "cd", 9)
    c["ee/flo"] = lambda: fit(flo, tri, "ee", 10)
    c["ee/samp_missing"] = lambda: fit(
        samp, "edges + mutual", "ee", 10,
        model_kw=samp_missing)
    c["ee/flo_curved"] = lambda: fit(flo, gw, "ee", 10)
    c["bcd/flo"] = lambda: fit(flo, tri, "bcd", 11)
    c["mcle/flo"] = lambda: fit(flo, tri, "mcle", 12)
    c["mcle/samp"] = lambda: fit(samp, "edges + mutual", "mcle", 12)
    c["bayes/flo"] = lambda: fit(flo, tri, "bayes", 13, main_iters=300, n_chains=2)
    c["bayes-pl/flo"] = lambda: fit(flo, tri, "bayes-pl", 14)

    def sim(net, formula, params, seed, **kw):
        return _digest(ef.ERGM(net, formula).simulate(params, n=20, random_state=seed,
                                                     output="stats", **kw))

    c["simulate/flo"] = lambda: sim(flo, tri, [-1.5, 0.2], 15)
    c["simulate/samp"] = lambda: sim(samp, "edges + mutual + gwesp(0.5, fixed=TRUE)",
                                     [-2.0, 1.5, 0.3], 16)

    def mrf(method, **kw):
        import networkx as nx
        from ergmfit.mrf import IsingModel
        true = IsingModel(nx.cycle_graph(6), tied=False, random_state=0)
        theta = np.linspace(-0.5, 0.7, true.n_stats)
        X = true.sample(200, theta=theta, random_state=1)
        m = IsingModel(nx.cycle_graph(6), tied=False, random_state=2).fit(X, method=method, **kw)
        return _digest(m.coef_)

    c["mrf/pl"] = lambda: mrf("pl")
    c["mrf/cl"] = lambda: mrf("cl", block_size=2)
    c["mrf/cd"] = lambda: mrf("cd", n_steps=2, n_iter=30, batch_size=50, sampler="mh")
    c["mrf/ee"] = lambda: mrf("ee")
    return c


def compute(only=None, verbose=True) -> dict:
    out = {}
    for name, case in _cases().items():
        if only and not any(o in name for o in only):
            continue
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out[name] = case()
            except Exception as e:            # an error is a result too (and must stay one)
                out[name] = f"error: {type(e).__name__}: {e}"
        if verbose:
            print(f"{name:28s} {out[name][:16]:18s} {time.perf_counter() - t:6.1f}s",
                  file=sys.stderr)
    return out


def load(path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check(path, verbose=True):
    """(fingerprint matches, {case: (recorded, now)} of the differing cases)."""
    rec = load(path)
    same_machine = rec["fingerprint"] == fingerprint()
    now = compute(verbose=verbose)
    diff = {k: (rec["hashes"].get(k), now.get(k)) for k in set(rec["hashes"]) | set(now)
            if rec["hashes"].get(k) != now.get(k)}
    return same_machine, diff


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", metavar="FILE")
    ap.add_argument("--check", metavar="FILE")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args(argv)
    if a.check:
        same, diff = check(a.check)
        if not same:
            print("note: this machine's fingerprint differs from the recorded one")
        for k, (r, n) in sorted(diff.items()):
            print(f"DIFFERS {k}: recorded {r} now {n}")
        print("all identical" if not diff else f"{len(diff)} case(s) differ")
        return 1 if diff else 0
    hashes = compute(a.only)
    if a.record:
        with open(a.record, "w", encoding="utf-8") as f:
            json.dump({"fingerprint": fingerprint(), "numpy_show_runtime": show_runtime(),
                       "hashes": hashes}, f, indent=1,
                      sort_keys=True)
            f.write("\n")
    else:
        for k, v in hashes.items():
            print(k, v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
