"""A curved term beside a ``Curve()`` term in one formula (issue #19): the parameterisation
composes block by block (the Jacobian is block-diagonal over the terms), the curved terms'
decays stay decays to the estimators, and the model equals the same model written without
Curve() -- same labels as statnet gives them, same MPLE, same MCMC-MLE with the same seed."""
import warnings

import numpy as np
import pytest

import ergmfit as ef
from ergmfit.terms.curved import CutoffWarning

H = ("Curve(~nodematch('practice') + nodematch('gender') + nodematch('office'), params=c('h'), "
     "map='rep')")
S = "Sum(list(~nodematch('practice'), ~nodematch('gender'), ~nodematch('office')), label='h')"
GWESP = "Curve(~gwesp(fixed=FALSE), params=c('w', 'a'), map='rep', minpar=c(-Inf, 0))"

PAIRS = [
    # a curved term beside a Curve() of linear terms
    ("lazega", f"edges + gwesp(fixed=FALSE) + {H} + nodecov('seniority')",
     f"edges + gwesp(fixed=FALSE) + {S} + nodecov('seniority')"),
    # a Curve() over a curved term (its decay fixed by the map) beside a curved term
    ("lazega", "edges + gwesp(fixed=FALSE) + nodematch('practice') + Curve(~gwdegree(fixed=FALSE),"
               " params='d', map=function(x, n, ...) c(x[1], 0.5), gradient='linear')",
     "edges + gwesp(fixed=FALSE) + nodematch('practice') + gwdegree(0.5, fixed=TRUE)"),
    # a Curve() reproducing gwesp's own map beside another curved term
    ("flomarriage", f"edges + gwdegree(fixed=FALSE) + {GWESP}",
     "edges + gwdegree(fixed=FALSE) + gwesp(fixed=FALSE)"),
]


@pytest.mark.parametrize("net, with_curve, without", PAIRS)
def test_curve_beside_a_curved_term_is_the_model_without_curve(net, with_curve, without):
    a, b = ef.ERGM(net, with_curve), ef.ERGM(net, without)
    assert a.curved
    if "Sum(" in without:         # the summary labels: the inner terms' own
        assert a.stat_labels == [lab for lab in b.stat_labels if lab != "Sum~h"][:-1] + \
            ["nodematch.practice", "nodematch.gender", "nodematch.office", "nodecov.seniority"]
    else:
        assert a.stat_labels[:len(a.stat_labels) - 30] == b.stat_labels[:len(a.stat_labels) - 30]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        th = np.asarray(b.fit(method="mple").params, dtype=float)
        np.testing.assert_allclose(a.eta(th) @ a.statistics_vector(),
                                   b.eta(th) @ b.statistics_vector(), rtol=1e-12)
        for kw in ({"method": "mple"}, {"method": "mcmle", "random_state": 1}):
            fa, fb = a.fit(**kw), b.fit(**kw)
            np.testing.assert_allclose(np.asarray(fa.params), np.asarray(fb.params),
                                       rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(fa.cov, fb.cov, rtol=1e-6, atol=1e-12)


def test_labels_of_a_curved_term_beside_curve():
    # lazega has ties with 7 shared partners and dyads with 8: both cut-offs truncate (expected)
    with pytest.warns(CutoffWarning) as rec:
        m = ef.ERGM("lazega", "edges + gwesp(fixed=FALSE, cutoff=3) + Curve(~gwdsp(fixed=FALSE, "
                              "cutoff=2), params=c('w', 'a'), map='rep', minpar=c(-Inf, 0))")
    assert sorted(str(w.message).split(":")[0] for w in rec) == ["term gwdsp", "term gwesp"]
    assert m.labels == ["edges", "gwesp", "gwesp.decay", "w", "a"]
    with pytest.warns(CutoffWarning) as rec:
        plain = ef.ERGM("lazega", "edges + gwesp(fixed=FALSE, cutoff=3) + gwdsp(fixed=FALSE, "
                                  "cutoff=2)")
    assert sorted(str(w.message).split(":")[0] for w in rec) == ["term gwdsp", "term gwesp"]
    assert m.stat_labels == plain.stat_labels and len(m.stat_labels) == 6   # the terms' own
    par = m.parameterisation
    assert par.decay_indices() == [2, 4]           # both decays are decays to the estimators
    th = np.array([-1.0, 0.4, 0.3, 0.8, 0.6])
    J = par.jacobian(th)                           # block-diagonal over the terms
    assert np.all(J[1:4, 3:] == 0) and np.all(J[4:, :3] == 0)
    np.testing.assert_allclose(J, plain.parameterisation.jacobian(th), rtol=1e-14)


@pytest.mark.parametrize("with_curve, oa, without, ob", [
    (f"edges + offset(gwesp(fixed=FALSE), 2) + {H}", [0.7],
     f"edges + gwesp(0.7, fixed=TRUE) + {S}", None),
    (f"edges + Offset(~gwesp(fixed=FALSE) + triangle, 0.2, which=3) + {H}", None,
     f"edges + gwesp(fixed=FALSE) + offset(triangle) + {S}", [0.2]),
])
def test_offsets_on_a_curved_term_beside_curve(with_curve, oa, without, ob):
    fa = ef.ERGM("lazega", with_curve).fit(method="mple", offset_coef=oa)
    fb = ef.ERGM("lazega", without).fit(method="mple", offset_coef=ob)
    ta, tb = np.asarray(fa.params), np.asarray(fb.params)
    free_a = [not lab.startswith("offset(") for lab in fa.labels]
    free_b = [not lab.startswith("offset(") for lab in fb.labels]
    np.testing.assert_allclose(ta[free_a], tb[free_b], rtol=1e-8)
