"""The command line's --also / --network-attr (several networks) and --layers."""
import json

from ergmfit.cli import main
from support.paths import REFERENCE


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_and_fit_of_stacked_networks(capsys):
    waves = ["samplk1", "--also", "samplk2", "--also", "samplk3", "--network-attr",
             "wave=1,2,3"]
    code, out, _ = _run(capsys, "stats", *waves[:1], "N(~edges + mutual, lm=~wave)",
                        *waves[1:], "--json")
    assert code == 0
    assert json.loads(out) == {"N(1)~edges": 168, "N(wave)~edges": 337, "N(1)~mutual": 44,
                               "N(wave)~mutual": 89}
    code, out, _ = _run(capsys, "fit", "samplk1", "N(~edges + mutual, lm=~wave)", *waves[1:],
                        "--method", "mple", "--json")
    res = json.loads(out)
    assert code == 0 and res["n_nodes"] == 54
    assert abs(res["coef"]["N(1)~mutual"] - 2.07631410109908) < 1e-6


def test_layers_from_an_edge_list(capsys):
    fam = REFERENCE / "families"
    code, out, _ = _run(capsys, "stats", str(fam / "lazega.multiplex.edges.csv"), "--nodes",
                        str(fam / "lazega.multiplex.nodes.csv"), "--directed", "--layers",
                        "advice,friendship", "L(~edges, ~advice&!friendship)", "--json")
    assert code == 0 and json.loads(out) == {"L(advice&!friendship)~edges": 534}


def test_bad_network_attribute_is_a_clear_error(capsys):
    code, _, err = _run(capsys, "stats", "samplk1", "N(~edges)", "--also", "samplk2",
                        "--network-attr", "wave=1")
    assert code != 0 and "'wave' has 1 value(s) for 2 networks" in err
    code, _, err = _run(capsys, "stats", "samplk1", "N(~edges)", "--network-attr", "wave")
    assert code != 0 and "NAME=V1,V2" in err
