"""EE-loop proposal rate of the Pokec model at any size, without the observed statistics
(issue #35 item 2; docs/guide/large_networks.md, "Pokec's size").

    PYTHONPATH=. python benchmarks/pokec_rate.py EDGES [BATCHES] [FORMULA]

Reads the SNAP edge list as ``pokec_run.py`` does, compiles the model's network state (at
Pokec's size two-paths are counted on demand) and runs ``BATCHES`` (default 10) IFD batches of
1,000 applied proposals at a θ near the one the 1 % run reached, printing the CPU seconds,
proposals per CPU s and peak memory of each.  ``FORMULA`` (default ``pokec_run.FORMULA``)
may drop terms to see what each costs; θ keeps its first entries.
"""
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pokec_run import FORMULA, read_snap  # noqa: E402


def main():
    import ergmfit as ef
    from ergmfit.sampling._mh import MHSampler
    from ergmfit.sampling._proposals import IFD, ifd_correction
    from ergmfit.utils.validation import seed_words

    def rss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n, arcs, _ = read_snap(sys.argv[1])
    net = ef.Network(n, arcs, True)
    del arcs
    model = ef.ERGM(net, sys.argv[3] if len(sys.argv) > 3 else FORMULA)
    t = time.process_time()
    bm = model.compiled()
    print(f"compiled state ({net.n_ties:,} ties) {time.process_time() - t:.1f} CPU s, "
          f"peak {rss():.0f} MB", flush=True)
    corr = ifd_correction(int(bm.n_vars), int(len(bm.on_vars())))
    sampler = MHSampler(bm, IFD(V=-8.43 + corr, K=0.1), seed_words(np.random.default_rng(1)))
    # edges 0 under IFD (V carries the density), the rest near the 1 % run's θ
    theta = np.array([0.0, 7.98, 0.008, 0.008, 0.40, 0.013])[:len(model.labels)]
    for batch in range(int(sys.argv[2]) if len(sys.argv) > 2 else 10):
        t = time.process_time()
        sampler.run_batch(theta, 1000, apply=True)
        c = time.process_time() - t
        print(f"batch {batch} 1000 proposals {c:.2f} CPU s = {1000 / c:,.0f} per CPU s; "
              f"peak {rss():.0f} MB", flush=True)


if __name__ == "__main__":
    main()
