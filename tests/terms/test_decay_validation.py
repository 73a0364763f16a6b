"""Every geometrically weighted term rejects a negative decay alike (#24 item 5: gwdegree
accepted one while gwesp refused it)."""
import pytest

import ergmfit as ef


@pytest.mark.parametrize("net, term", [
    ("flomarriage", "gwdegree"), ("flomarriage", "gwesp"), ("flomarriage", "gwdsp"),
    ("flomarriage", "gwnsp"), ("samplike", "gwidegree"), ("samplike", "gwodegree"),
    ("samplike", "dgwesp"), ("samplike", "dgwdsp"),
])
@pytest.mark.parametrize("fixed", ["TRUE", "FALSE"])
def test_negative_decay_is_refused(net, term, fixed):
    with pytest.raises(ef.TermError, match=rf"term {term}: decay must be"):
        ef.ERGM(net, f"edges + {term}(-0.5, fixed={fixed})")
