"""Fixed-seed hashes of binary simulations and fits, to compare two builds (same draws?).

Run by hand in each build and diff the outputs:
    PYTHONPATH=. python benchmarks/fixed_seed_hashes.py > after.txt

Each line: data | formula | what | seed | proposal | the first 16 hex digits of the
SHA-256 of the statistics (simulations: 50 draws, tnt / random / auto) or of the
estimates (MCMC-MLE, CD, EE fits).  The numbers depend on this CPU's floating point,
so the hashes are for A/B comparisons on one machine, not for the test suite.
"""
import hashlib

import numpy as np

import ergmfit as ef

SIMULATIONS = [
    ("flomarriage", "edges + triangle", [-1.6, 0.1]),
    ("samplike", "edges + mutual", [-1.7, 2.2]),
    ("faux.mesa.high", "edges + nodematch('Grade') + gwesp(0.25, fixed=TRUE)", [-6.0, 1.5, 1.0]),
]
FITS = [("flomarriage", "edges + triangle"), ("samplike", "edges + mutual")]


def digest(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(np.asarray(a, dtype=float)).tobytes()).hexdigest()[:16]


def main():
    for data, f, th in SIMULATIONS:
        m = ef.ERGM(data, f)
        for s in (1, 2):
            for prop in ("auto", "tnt", "random"):
                S = m.simulate(th, n=50, burnin=2000, interval=200, output="stats",
                               random_state=s, proposal=prop)
                print(data, f, "sim", s, prop, digest(S), sep=" | ")
    for data, f in FITS:
        for meth in ("mcmle", "cd", "ee"):
            r = ef.ERGM(data, f).fit(method=meth, random_state=1)
            print(data, f, meth, 1, "", digest(r.params), sep=" | ", flush=True)


if __name__ == "__main__":
    main()
