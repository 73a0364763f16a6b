"""Missing (unobserved) dyads: MPLE leaves them out, MCMC-MLE maximises the
observed-data likelihood (Handcock & Gile 2010) as statnet does."""

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.exceptions import FormulaError

from support import constraints_reference as cr
from support.memory import traced_peak


@pytest.mark.parametrize("entry_id", ["s3.na.samplike_mutual.MLE.s101",
                                      "s3.na.mesa_grade.MLE.s101",
                                      "s3.na.samplike_mutual_gwesp.MLE.s101"])
def test_observed_data_mcmle_matches_statnet(entry_id):
    e = next(x for x in cr.entries() if x["id"] == entry_id)
    res = cr.fit(e, random_state=1)
    assert res.info["n_missing"] == e["missing"]["n_na_dyads"]
    assert res.nobs == e["null_df"]
    for lab, ours, theirs, z, se_ratio in cr.compare(e, res):
        assert z < 0.25, (lab, ours, theirs)
        assert 0.8 < se_ratio < 1.2, (lab, se_ratio)


def test_mcmle_without_missing_dyads_is_the_plain_fit():
    g = ef.datasets.load("flomarriage")
    a = ef.ERGM(g, "edges + triangle", missing=[]).fit(method="mcmle", random_state=3)
    b = ef.ERGM(g, "edges + triangle").fit(method="mcmle", random_state=3)
    np.testing.assert_array_equal(np.asarray(a.params), np.asarray(b.params))
    np.testing.assert_array_equal(a.cov, b.cov)


def test_missing_dyads_change_the_fit_and_are_counted():
    e = next(x for x in cr.entries() if x["id"] == "s3.na.samplike_mutual.MPLE")
    m = cr.model(e)
    assert m.sample_space.n_missing == 31 and len(m.missing_dyads) == 31
    assert "31 missing" in m.sample_space.describe()
    res = m.fit(method="mple")
    assert res.nobs == 275
    # the missing dyads are neither ties nor non-ties: a plain fit of the same ties differs
    plain = ef.ERGM(m.network, "edges + mutual").fit(method="mple")
    assert abs(float(plain.params[0]) - float(res.params[0])) > 1e-3


def test_other_estimators_refuse_missing_dyads():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle", missing=[(1, 9)])
    for method in ("bcd", "mcle"):          # (CD takes them since #18: tests/estimation/contrastive/test_cd_missing.py)
        with pytest.raises(FormulaError, match="missing dyads"):
            m.fit(method=method)


def test_summary_reports_missing_dyads_and_constraints():
    m = ef.ERGM(ef.datasets.load("flomarriage"), "edges + triangle", missing=[(1, 9), (2, 6)],
                constraints="~ bd(maxout=6)")
    text = str(m.fit(method="mple").summary())
    assert "Missing dyads: 2" in text and "Constraints: ~ bd(maxout=6)" in text
    assert "Missing dyads" not in str(ef.ERGM(ef.datasets.load("flomarriage"), "edges")
                                      .fit(method="mple").summary())


def test_missing_dyads_are_found_among_many_ties_without_sorting_them_all():
    # the ties on missing dyads leave the network; np.isin sorted every tie with its index
    # (1.1-1.3 CPU s and 240 MB more resident at 10^7 ties), a screen of the few missing
    # dyads does not
    from ergmfit.sampling.space import dyad_vars
    n = 200_000
    rng = np.random.default_rng(11)
    k = np.unique(rng.integers(0, n * n, size=2_000_000))
    i, j = k // n, k % n
    net = ef.Network(n, np.column_stack([i, j])[i != j], True)
    miss = rng.integers(0, n, size=(300, 2))
    miss = miss[miss[:, 0] != miss[:, 1]]
    miss = miss[~np.isin(dyad_vars(n, True, miss), dyad_vars(n, True, net.ties))]
    assert np.array_equal(ef.ERGM(net, "edges", missing=np.concatenate(
        [miss, net.ties[::400_000]])).network.ties, np.delete(net.ties, np.s_[::400_000], 0))
    m, peak = traced_peak(lambda: ef.ERGM(net, "edges", missing=miss))
    assert m.network is net and m.sample_space.n_missing == len(miss)
    assert peak < 64 * 2 ** 20, f"peak {peak / 2**20:.0f} MB"
