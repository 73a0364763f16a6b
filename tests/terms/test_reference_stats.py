"""Every observed statistic statnet 4.4 printed for the bundled data, reproduced to 1e-9."""
import pytest

import ergmfit as ef
from support.paths import load_reference

EVALUATIONS = load_reference("statnet_stats.json")["evaluations"]
_NETS = {}


def _net(name):
    if name not in _NETS:
        _NETS[name] = ef.datasets.load_network(name)
    return _NETS[name]


@pytest.mark.parametrize("entry", EVALUATIONS, ids=[f"{e['dataset']}:{e['term']}" for e in EVALUATIONS])
def test_statnet_summary(entry):
    net = _net(entry["dataset"])
    assert net.directed == entry["directed"]
    stats = ef.ERGM(net, entry["term"]).statistics()
    assert list(stats) == list(entry["stats"]), "labels differ from statnet's"
    for label, want in entry["stats"].items():
        assert stats[label] == pytest.approx(want, rel=1e-9, abs=1e-12), label


def test_all_datasets_covered():
    # the reference file exercises these datasets; make sure none silently drops out
    assert {e["dataset"] for e in EVALUATIONS} >= {"lazega", "faux.mesa.high", "samplike"}
