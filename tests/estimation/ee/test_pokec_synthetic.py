"""The Pokec-like generator of issue #35 (``benchmarks/pokec_synthetic.py``): its triadic
closure option raises the triangles and the clustering and keeps the other margins, its
default draws what it drew before the option, and its triangle and clustering counts agree
with networkx."""
import hashlib

import networkx as nx
import numpy as np
import pytest

from support.paths import BENCHMARKS, load_script


@pytest.fixture(scope="module")
def gen():
    return load_script(BENCHMARKS / "pokec_synthetic.py")


def test_closure_zero_draws_the_network_drawn_before_the_option(gen):
    # the SHA-256 of the default's arcs, recorded with the generator before --closure existed
    arcs = gen.pokec_like(2000, 37000, max_degree=120, random_state=1)
    assert hashlib.sha256(arcs.tobytes()).hexdigest() == \
        "83e15b4898dc71da6873669758b580ec76d8488b77f42621bea524beef77ba80"
    np.testing.assert_array_equal(
        gen.pokec_like(2000, 37000, max_degree=120, random_state=1, closure=0.0), arcs)


def test_closure_raises_triangles_and_clustering_and_keeps_the_margins(gen):
    n, m = 1000, 18000
    plain = gen.pokec_like(n, m, max_degree=80, random_state=1)
    closed = gen.pokec_like(n, m, max_degree=80, random_state=1, closure=0.5)
    a, b = gen.describe(n, plain), gen.describe(n, closed)
    assert gen.triangles(n, closed) > 1.3 * gen.triangles(n, plain)      # 22,429 / 14,973
    assert gen.clustering(n, closed)[0] > 2 * gen.clustering(n, plain)[0]   # 0.183 / 0.082
    assert 0.97 * m < b["arcs"] <= m                 # the closure fills up to m arcs
    assert abs(b["reciprocity"] - a["reciprocity"]) < 0.03
    for key in ("max_out_degree", "max_in_degree"):
        assert 0.8 < b[key] / a[key] < 1.25
    assert len(np.unique(closed[:, 0].astype(np.int64) * n + closed[:, 1])) == len(closed)
    assert (closed[:, 0] != closed[:, 1]).all()
    # the same seed draws the same network
    np.testing.assert_array_equal(
        gen.pokec_like(n, m, max_degree=80, random_state=1, closure=0.5), closed)


def test_closure_share_is_checked(gen):
    with pytest.raises(ValueError, match="closure"):
        gen.pokec_like(100, 500, max_degree=20, random_state=1, closure=1.0)


@pytest.mark.parametrize("closure", [0.0, 0.4])
def test_triangles_and_clustering_agree_with_networkx(gen, closure):
    n = 400
    arcs = gen.pokec_like(n, 4000, max_degree=60, random_state=3, closure=closure)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(arcs.tolist())
    assert gen.triangles(n, arcs, block_wedges=500) == sum(nx.triangles(g).values()) // 3
    mean, se, pairs = gen.clustering(n, arcs)
    assert mean == pytest.approx(nx.average_clustering(g), abs=1e-12) and se == 0.0
    assert pairs == sum(d * (d - 1) / 2 for _, d in g.degree())
