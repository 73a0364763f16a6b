"""Curved gw* terms whose observed network exceeds the cut-off: ergmfit gives statnet 4.4's
truncated counts with a CutoffWarning at model set-up (statnet >= 4.5 stops, ergm #485);
the two-mode gwb* terms' curved forms are curved (coefficients <term>, <term>.decay)."""
import warnings

import networkx as nx
import numpy as np
import pytest

import ergmfit as ef
from ergmfit.network import as_network
from ergmfit.terms.curved import CutoffWarning, degree_max, partner_max

FMH = "faux.mesa.high"


def last_nonzero(values):
    nz = np.flatnonzero(np.asarray(values))
    return int(nz[-1]) if len(nz) else -1


def random_graph(seed, n=14, p=0.35, directed=False):
    return nx.gnp_random_graph(n, p, seed=seed, directed=directed)


@pytest.mark.parametrize("seed", range(4))
def test_observed_maxima_equal_the_counts(seed):
    g = random_graph(seed)
    n = g.number_of_nodes()
    net = as_network(g)
    full = f"0:{n - 2}"
    for kind, term in [("edge", "esp"), ("dyad", "dsp"), ("nonedge", "nsp")]:
        counts = ef.ERGM(g, f"{term}({full})").statistics_vector()
        assert partner_max(net, kind) == last_nonzero(counts), (kind, seed)
    assert degree_max(net) == last_nonzero(ef.ERGM(g, f"degree(0:{n - 1})").statistics_vector())
    d = random_graph(seed, p=0.3, directed=True)
    dnet = as_network(d)
    for typ in ("OTP", "ITP", "RTP", "OSP", "ISP"):
        for kind, term in [("edge", "desp"), ("dyad", "ddsp"), ("nonedge", "dnsp")]:
            counts = ef.ERGM(d, f'{term}({full}, type="{typ}")').statistics_vector()
            assert partner_max(dnet, kind, typ) == last_nonzero(counts), (typ, kind, seed)
    for ends, term in [("in", "idegree"), ("out", "odegree")]:
        counts = ef.ERGM(d, f"{term}(0:{n - 1})").statistics_vector()
        assert degree_max(dnet, ends) == last_nonzero(counts)


def test_two_mode_maxima():
    davis = as_network(ef.datasets.load("davis"))
    m = ef.ERGM("davis", "b1dsp(0:14) + b2dsp(0:18)").statistics_vector()
    assert partner_max(davis, "b1") == last_nonzero(m[:15]) == 7
    assert partner_max(davis, "b2") == last_nonzero(m[15:]) == 9
    deg = ef.ERGM("davis", "b1degree(0:14) + b2degree(0:18)").statistics_vector()
    assert degree_max(davis, "b1") == last_nonzero(deg[:15])
    assert degree_max(davis, "b2") == last_nonzero(deg[15:])


@pytest.mark.parametrize("net, formula, text", [
    (FMH, "gwesp(cutoff=3)", r"gwesp: a tie .* 5 shared partners, above the cut-off 3"),
    (FMH, "gwdsp(cutoff=3)", r"gwdsp: a dyad .* 5 shared partners, above the cut-off 3"),
    (FMH, "gwnsp(cutoff=2)", r"gwnsp: a dyad without a tie .* 4 shared partners"),
    (FMH, "gwdegree(cutoff=5)", r"gwdegree: a node .* 13 ties, above the cut-off 5"),
    ("samplike", "gwidegree(cutoff=7)", r"gwidegree: a node .* 11 in-ties, above the cut-off 7"),
    ("samplike", "gwodegree(cutoff=3)", r"gwodegree: .* 6 out-ties"),
    ("samplike", 'dgwesp(cutoff=2, type="RTP")', r"dgwesp: a tie .* 3 RTP partners"),
    ("samplike", "gwesp(cutoff=3)", r"gwesp: a tie .* 5 OTP partners"),
    ("davis", "gwb1dsp(cutoff=3)", r"gwb1dsp: a pair of mode-1 nodes .* 7 shared partners"),
    ("davis", "gwb2degree(cutoff=4)", r"gwb2degree: a mode-2 node .* 14 ties, above the cut-off 4"),
])
def test_a_warning_names_the_term_and_the_cutoff(net, formula, text):
    with pytest.warns(CutoffWarning, match=text + ".*statnet >= 4.5 stops"):
        ef.ERGM(net, formula)


def test_no_warning_within_the_cutoff_nor_per_toggle():
    with warnings.catch_warnings():
        warnings.simplefilter("error", CutoffWarning)
        ef.ERGM(FMH, "gwesp(cutoff=5) + gwdegree(cutoff=13) + gwesp(0.5, fixed=TRUE, cutoff=2)")
        ef.ERGM("davis", "gwb1dsp() + gwb2degree()")
    with pytest.warns(CutoffWarning):
        m = ef.ERGM(FMH, "edges + gwesp(cutoff=3)")
    with warnings.catch_warnings():       # the fit and its simulations: no further warning
        warnings.simplefilter("error", CutoffWarning)
        m.fit(method="mple")
        m.simulate([-6.0, 1.0, 0.5], n=2, random_state=1, burnin=2000, interval=500,
                   output="stats")


def test_two_mode_gw_terms_are_curved():
    for term, stat in [("gwb1degree", "gwb1deg"), ("gwb2degree", "gwb2deg"),
                       ("gwb1dsp", "gwb1dsp"), ("gwb2dsp", "gwb2dsp")]:
        m = ef.ERGM("davis", f"{term}()")
        assert m.labels == [term, f"{term}.decay"] and m.curved
        # η(1, α) · counts = the fixed-decay statistic (no count above the cut-off)
        fixed = ef.ERGM("davis", f"{term}(0.7, fixed=TRUE)").statistics_vector()
        value = m.parameterisation.eta([1.0, 0.7]) @ m.statistics_vector()
        np.testing.assert_allclose(value, fixed, rtol=1e-12, err_msg=stat)


def test_fixed_gwb_dsp_with_a_cutoff_warns_of_the_412_difference():
    # statnet 4.4 truncates gwb1dsp/gwb2dsp(fixed=TRUE, cutoff=k) too (termsnum's row F);
    # 4.12 ignores cutoff there: the warning says so and names cutoff=Inf
    with pytest.warns(CutoffWarning, match=r"gwb1dsp: .* 7 shared partners, above the cut-off 3"
                                           r".*statnet >= 4.5 ignores cutoff.*cutoff=Inf"):
        ef.ERGM("davis", "gwb1dsp(0.5, TRUE, 3)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CutoffWarning)
        ef.ERGM("davis", "gwb1dsp(0.5, TRUE) + gwb1dsp(0.5, TRUE, Inf) + gwb2dsp(0.5, TRUE, 9)")
