"""statnet's level selection when a level is named by value (a string or ``I(...)``) that no
node has: statnet uses the given levels as they are (``ergm_attr_levels`` of a character or
AsIs spec returns it unchanged), so that level's statistic is 0, with its label and in the
given place.  Every term family taking ``levels``/``b1levels``/``b2levels`` behaves so; the
by=/attr= degree families now apply ``levels`` (concurrent/degrange ignored it silently)."""
import pytest

import ergmfit as ef
from ergmfit.exceptions import ErgmfitError

from support.change_stats import check_formula, random_network

MESA = "faux.mesa.high"


def stats(net, formula):
    return ef.ERGM(net, formula).statistics()


@pytest.mark.parametrize("formula, want", [
    ("nodefactor('Grade', levels=I(c(7, 13)))",
     {"nodefactor.Grade.7": 153, "nodefactor.Grade.13": 0}),
    ("nodefactor('Grade', levels=c('13', '7'))",
     {"nodefactor.Grade.13": 0, "nodefactor.Grade.7": 153}),
    ("nodematch('Grade', diff=TRUE, levels=c('13', '8'))",
     {"nodematch.Grade.13": 0, "nodematch.Grade.8": 33}),
    ("nodemix('Grade', levels=I(c(7, 13)))", {"mix.Grade.7.13": 0, "mix.Grade.13.13": 0}),
    ("degree(1, by='Grade', levels=I(c(7, 13)))", {"deg1.Grade7": 15, "deg1.Grade13": 0}),
    ("concurrent(by='Grade', levels=I(c(8, 13)))",
     {"concurrent.Grade8": 15, "concurrent.Grade13": 0}),
])
def test_absent_level_gives_zero_with_label(formula, want):
    assert stats(MESA, formula) == want


def test_absent_level_keeps_the_other_values():
    full = stats(MESA, "nodefactor('Grade', levels=TRUE) + gwdegree(0.5, fixed=TRUE, attr='Grade')"
                 " + degrange(1, by='Grade')")
    got = stats(MESA, "nodefactor('Grade', levels=I(c(12, 99))) + "
                "gwdegree(0.5, fixed=TRUE, attr='Grade', levels=I(c(99, 8)))"
                " + degrange(1, by='Grade', levels=c('10', '99'))")
    assert got == {"nodefactor.Grade.12": full["nodefactor.Grade.12"],
                   "nodefactor.Grade.99": 0,
                   "gwdeg0.5.Grade99": 0, "gwdeg0.5.Grade8": full["gwdeg0.5.Grade8"],
                   "deg1+.Grade10": full["deg1+.Grade10"], "deg1+.Grade99": 0}


def test_levels_on_by_terms_select_instead_of_being_ignored():
    # before: concurrent(by=, levels=) and degrange(by=, levels=) gave every level
    assert list(stats(MESA, "concurrent(by='Grade', levels=c(1, 2))")) == \
        ["concurrent.Grade7", "concurrent.Grade8"]
    assert list(stats(MESA, "degrange(1, by='Grade', levels=-1)")) == \
        [f"deg1+.Grade{g}" for g in range(8, 13)]
    with pytest.raises(ErgmfitError, match="give by="):
        ef.ERGM(MESA, "concurrent(levels=1)")
    with pytest.raises(ErgmfitError, match="homophily"):
        ef.ERGM(MESA, "degree(1, by='Grade', homophily=TRUE, levels=1)")


def test_two_mode_absent_levels():
    net = random_network(3, "bipartite")        # mode-1 'a' in 0..2, 'c' in u/v on both modes
    full = stats(net, "b1factor('a', levels=TRUE)")
    assert stats(net, "b1factor('a', levels=I(c(1, 5)))") == {
        "b1factor.a.1": full["b1factor.a.1"], "b1factor.a.5": 0}
    mix = stats(net, "nodemix('c', b1levels=c('u', 'w'), b2levels=I('v'), levels2=TRUE)")
    assert list(mix) == ["mix.c.u.v", "mix.c.w.v"] and mix["mix.c.w.v"] == 0
    assert stats(net, "b1nodematch('a', diff=TRUE, levels=I(7))") == {"b1nodematch.a.7": 0}
    assert stats(net, "b1concurrent(by='a', levels=I(9))") == {"b1concurrent.a9": 0}


@pytest.mark.parametrize("kind, formula", [
    ("undirected", "nodefactor('a', levels=I(c(2, 9))) + nodemix('a', levels=c('9', '0'))"
                   " + degree(1:2, by='a', levels=I(c(9, 1)))"),
    ("bipartite", "b2factor('c', levels=c('z', 'u')) + b1degree(1, by='a', levels=I(c(1, 9)))"),
])
def test_absent_level_toggles(kind, formula):
    # toggle differences equal full-statistic differences, toggling twice restores
    check_formula(random_network(5, kind), formula, 5)


def test_index_out_of_range_says_how_to_select_by_value():
    with pytest.raises(ErgmfitError, match=r"index 7 is out of range 1\.\.6.*I\(c\(\.\.\.\)\)"):
        ef.ERGM(MESA, "nodefactor('Grade', levels=c(7, 13))")
