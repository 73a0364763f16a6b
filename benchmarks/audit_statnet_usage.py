"""Adversarial audit of ergmfit's statnet term language (issue #19), as statnet users write it.

For each usage line of statnet ergm 4.12's term help pages (and the attribute / level
specifications of its ``nodal_attributes`` page) the formula is run through
``ergmfit.ERGM(g, formula).statistics()`` on a bundled network and checked:

* accepted?  -- ergmfit builds the term (no error);
* value ok?  -- equal to a value computed here from the help page's definition with
  numpy / networkx (never by ergmfit), or to a value statnet's own test suite prints
  (``tests/testthat`` of statnet/ergm; those rows say "statnet test");
* label ok?  -- equal to the labels statnet gives (its convention on the help pages,
  ``../shared/reference/statnet_ext.json``, or statnet's tests); "-" where no statnet
  label is known (the value is still checked).

Run:  python benchmarks/audit_statnet_usage.py [--failures]
Prints one row per usage and the totals.  Not a test (tests/terms/test_attribute_specs.py holds the
regression tests of the defects this audit found).
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import sys

import networkx as nx
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
import ergmfit as ef  # noqa: E402
from support.statnet_testnets import bipnw, bipnw2, two_mode_covariates, unnw  # noqa: E402  (statnet's test networks, from R's RNG)

# ---------------------------------------------------------------------------------------
# networks and independent helpers
# ---------------------------------------------------------------------------------------

G = {name: ef.datasets.load(name) for name in
     ("faux.mesa.high", "samplike", "flomarriage", "lazega", "davis", "faux.desert.high")}
FMH, SL, FLO, LAZ, DAV = (G[k] for k in ("faux.mesa.high", "samplike", "flomarriage",
                                         "lazega", "davis"))
# a deterministic attribute with ties among level counts (statnet's test-level-select idea)
for i, v in enumerate(FLO.nodes):
    FLO.nodes[v]["x"] = [1, 11, 2, 3, 2, 11, 2, 11, 3, 1, 2, 11, 2, 11, 2, 3][i]


def A(g):
    return nx.to_numpy_array(g, nodelist=list(g.nodes), dtype=float)


def att(g, a):
    return [g.nodes[v][a] for v in g.nodes]


def num(g, a):
    return np.array(att(g, a), dtype=float)


def pairs(g):
    """Ordered (directed) or i<j (undirected) dyads with a tie, as index pairs."""
    X = A(g)
    n = len(X)
    if g.is_directed():
        return [(i, j) for i in range(n) for j in range(n) if X[i, j]]
    return [(i, j) for i in range(n) for j in range(i + 1, n) if X[i, j]]


def levels_sorted(vals):
    u = set(vals)
    if all(isinstance(v, str) for v in u):
        return sorted(u, key=lambda s: (s.casefold(), s.swapcase()))
    return sorted(u)


def lab(v):
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def sp_counts(g, kind):
    """Shared-partner counts: esp per tie, dsp per dyad, nsp per non-tie (undirected)."""
    X = A(g)
    n = len(X)
    S = X @ X
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            if kind == "esp" and X[i, j]:
                out.append(S[i, j])
            elif kind == "dsp":
                out.append(S[i, j])
            elif kind == "nsp" and not X[i, j]:
                out.append(S[i, j])
    return np.array(out)


def dir_sp(g, typ):
    """Directed shared partners of every ordered pair (i, j) (statnet's type codes)."""
    X = A(g)
    if typ == "OTP":
        return X @ X             # i->k->j
    if typ == "ITP":
        return (X @ X).T         # j->k->i
    if typ == "RTP":
        M = X * X.T
        return M @ M
    if typ == "OSP":
        return X @ X.T           # i->k<-j
    if typ == "ISP":
        return X.T @ X           # i<-k->j
    raise ValueError(typ)


def gw(counts, alpha):
    return float(np.sum(np.exp(alpha) * (1 - (1 - np.exp(-alpha)) ** counts)))


def undirected_cycles(g, k):
    return sum(1 for c in nx.simple_cycles(g, length_bound=k) if len(c) == k)


def subgraph_stats(g, keep):
    h = g.subgraph([v for v, k in zip(g.nodes, keep) if k])
    return h.number_of_edges(), sum(nx.triangles(h).values()) / 3


# ---------------------------------------------------------------------------------------
# the cases: (network, formula, expected {label: value} or [values], source)
# ---------------------------------------------------------------------------------------

def cases():
    X = A(FMH)
    E = pairs(FMH)
    grade, sex, race = att(FMH, "Grade"), att(FMH, "Sex"), att(FMH, "Race")
    deg = X.sum(1)
    n = len(X)
    out = []

    def add(g, f, exp, src="definition"):
        out.append((g, f, exp, src))

    # -- nodematch / nodefactor / nodecov / absdiff / nodemix with every argument -----
    gl = levels_sorted(grade)
    match = {lv: sum(1 for i, j in E if grade[i] == grade[j] == lv) for lv in gl}
    add(FMH, 'nodematch("Grade")', {"nodematch.Grade": sum(match.values())})
    add(FMH, 'nodematch("Grade", diff=TRUE)', {f"nodematch.Grade.{lv}": match[lv] for lv in gl})
    add(FMH, 'nodematch("Grade", diff=TRUE, keep=c(1, 2))',
        {f"nodematch.Grade.{lv}": match[lv] for lv in gl[:2]})
    add(FMH, 'nodematch("Grade", diff=TRUE, levels=-1)',
        {f"nodematch.Grade.{lv}": match[lv] for lv in gl[1:]})
    add(FMH, 'nodematch("Grade", levels=I(c(7, 9)))', {"nodematch.Grade": match[7] + match[9]})
    add(FMH, 'nodematch("Race")', 103, "statnet test")
    add(FMH, 'nodematch(~Grade, levels=3:4)', {"nodematch.Grade": match[9] + match[10]})
    add(FMH, 'nodematch(~Grade>9)', {"nodematch.Grade>9": sum(1 for i, j in E if
                                                            (grade[i] > 9) == (grade[j] > 9))})
    add(FMH, 'nodematch(function(x) x %v% "Sex", diff=TRUE)', [sum(1 for i, j in E if
        sex[i] == sex[j] == s) for s in ("F", "M")])
    add(FMH, 'nodematch(c("Sex", "Race"))', {"nodematch.Sex.Race": sum(
        1 for i, j in E if sex[i] == sex[j] and race[i] == race[j])})
    nf = {lv: sum(deg[i] for i in range(n) if grade[i] == lv) for lv in gl}
    add(FMH, 'nodefactor("Grade")', {f"nodefactor.Grade.{lv}": nf[lv] for lv in gl[1:]})
    add(FMH, 'nodefactor("Grade", levels=TRUE)', {f"nodefactor.Grade.{lv}": nf[lv] for lv in gl})
    add(FMH, 'nodefactor("Grade", levels=I(c(7, 9)))',
        {f"nodefactor.Grade.{lv}": nf[lv] for lv in (7, 9)})
    add(FMH, 'nodefactor("Grade", base=1)', {f"nodefactor.Grade.{lv}": nf[lv] for lv in gl[1:]})
    cnt = {lv: grade.count(lv) for lv in gl}
    big = max(gl, key=lambda lv: cnt[lv])
    small = min(gl, key=lambda lv: cnt[lv])
    add(FMH, 'nodefactor("Grade", levels=LARGEST)', {f"nodefactor.Grade.{big}": nf[big]})
    add(FMH, 'nodefactor("Grade", levels=SMALLEST)', {f"nodefactor.Grade.{small}": nf[small]})
    add(FMH, 'nodefactor("Grade", levels=-LARGEST)',
        {f"nodefactor.Grade.{lv}": nf[lv] for lv in gl if lv != big})
    two = sorted(gl, key=lambda lv: -cnt[lv])[:2]
    add(FMH, 'nodefactor("Grade", levels=LARGEST(2))',
        {f"nodefactor.Grade.{lv}": nf[lv] for lv in gl if lv in two})
    rl = levels_sorted(race)
    rc = {lv: race.count(lv) for lv in rl}
    small3 = sorted(rl, key=lambda lv: rc[lv])[:3]
    coll = ["BWO" if r in small3 else r for r in race]
    cl = levels_sorted(coll)
    add(FMH, 'nodefactor(COLLAPSE_SMALLEST("Race", 3, "BWO"))',
        {f"nodefactor.Race.{lv}": sum(deg[i] for i in range(n) if coll[i] == lv) for lv in cl[1:]})
    add(FMH, 'nodefactor("Race" %>% COLLAPSE_SMALLEST(3, "BWO"), levels=TRUE)',
        {f"nodefactor.Race.{lv}": sum(deg[i] for i in range(n) if coll[i] == lv) for lv in cl})
    add(FMH, 'nodefactor(~Grade>9)', {"nodefactor.Grade>9.TRUE": sum(deg[i] for i in range(n)
                                                                    if grade[i] > 9)})
    add(FMH, 'nodefactor(function(x) x %v% "Sex", levels=-(4:5))', [235, 171], "statnet test")
    # statnet's test-level-select idea on flomarriage with ties among the level counts
    xv = att(FLO, "x")
    dflo = A(FLO).sum(1)
    xl = levels_sorted(xv)
    xf = {lv: sum(dflo[i] for i in range(len(xv)) if xv[i] == lv) for lv in xl}
    xc = {lv: xv.count(lv) for lv in xl}
    asc = sorted(xl, key=lambda lv: xc[lv])          # stable: ties in level order
    for spec, keep in (("SMALLEST", asc[:1]), ("SMALLEST(2)", asc[:2]), ("LARGEST", asc[-1:]),
                       ("LARGEST(2)", asc[-2:]), ("-SMALLEST", asc[1:]), ("-LARGEST(2)", asc[:-2])):
        add(FLO, f'nodefactor("x", levels={spec})',
            {f"nodefactor.x.{lv}": xf[lv] for lv in xl if lv in keep})
    gnum = np.array(grade, dtype=float)
    add(FMH, 'nodecov("Grade")', {"nodecov.Grade": sum(gnum[i] + gnum[j] for i, j in E)})
    add(FMH, 'nodecov(~Grade^2)', {"nodecov.Grade^2": sum(gnum[i] ** 2 + gnum[j] ** 2 for i, j in E)})
    m = gnum.mean()
    add(FMH, 'nodecov(~abs(Grade-mean(Grade)))', {"nodecov.abs(Grade-mean(Grade))": sum(
        abs(gnum[i] - m) + abs(gnum[j] - m) for i, j in E)})
    add(FMH, 'nodecov(~poly(Grade, 2, raw=TRUE))', [sum(gnum[i] + gnum[j] for i, j in E),
                                                    sum(gnum[i] ** 2 + gnum[j] ** 2 for i, j in E)])
    add(FMH, 'absdiff("Grade")', {"absdiff.Grade": 79}, "statnet test")
    add(FMH, 'absdiff(~Grade, pow=2)', {"absdiff2.Grade": 195}, "statnet test")
    add(FMH, 'absdiff(function(x) x %v% "Grade")', [79], "statnet test")
    add(FMH, 'absdiffcat("Grade")', [15, 15, 7, 2, 1], "statnet test")
    add(FMH, 'absdiffcat(function(x) x %v% "Grade", levels=-(4:5))', [15, 15, 7], "statnet test")
    add(FMH, 'smalldiff("Grade", 2)', {"smalldiff.Grade2": 193}, "statnet test")
    add(FMH, 'nodemix("Grade")', [0, 33, 0, 2, 23, 1, 4, 7, 9, 1, 2, 6, 1, 17, 1, 1, 4, 5, 5, 6],
        "statnet test")
    add(FMH, 'nodemix("Race", levels2=-1)', [8, 53, 13, 41, 46, 0, 1, 0, 0, 5, 22, 10, 0, 4],
        "statnet test")
    sm = {(a, b): sum(1 for i, j in E if {sex[i], sex[j]} == {a, b} and
                      (a != b or sex[i] == a)) for a, b in (("F", "F"), ("F", "M"), ("M", "M"))}
    add(FMH, 'nodemix("Sex", levels2=TRUE)', {"mix.Sex.F.F": sm["F", "F"], "mix.Sex.F.M": sm["F", "M"],
                                              "mix.Sex.M.M": sm["M", "M"]})
    add(FMH, 'nodemix("Sex", levels2=matrix(c(TRUE, FALSE, FALSE, TRUE), 2, 2))',
        {"mix.Sex.F.F": sm["F", "F"], "mix.Sex.M.M": sm["M", "M"]})
    add(FMH, 'mm("Sex")', {"mm[Sex=F,Sex=M]": sm["F", "M"], "mm[Sex=M,Sex=M]": sm["M", "M"]})
    add(FMH, 'mm(c("Sex", "Race"), levels2=I(list(list(row="F.Hisp", col="F.Hisp"))))',
        {"mm[Sex.Race=F.Hisp,Sex.Race=F.Hisp]": sum(
            1 for i, j in E if sex[i] == sex[j] == "F" and race[i] == race[j] == "Hisp")})

    # -- degree family -------------------------------------------------------------------
    add(FMH, 'degree(0:3)', {f"degree{d}": int(np.sum(deg == d)) for d in range(4)})
    add(FMH, 'degree(1:2, by="Sex")', {f"deg{d}.Sex{s}": sum(1 for i in range(n) if deg[i] == d and
                                       sex[i] == s) for s in ("F", "M") for d in (1, 2)})
    hdeg = np.array([sum(1 for j in range(n) if X[i, j] and sex[j] == sex[i]) for i in range(n)])
    add(FMH, 'degree(1:2, by="Sex", homophily=TRUE)',
        {f"deg{d}.homophily.Sex": int(np.sum(hdeg == d)) for d in (1, 2)})
    add(FMH, 'degree(1, by="Grade", levels=I(c(7, 12)))',
        {f"deg1.Grade{g_}": sum(1 for i in range(n) if deg[i] == 1 and grade[i] == g_) for g_ in (7, 12)})
    add(FMH, 'degree(1:2, by=~Grade>9)', {f"deg{d}.Grade>9{lab(b)}": sum(
        1 for i in range(n) if deg[i] == d and (grade[i] > 9) == b) for b in (False, True) for d in (1, 2)})
    add(FMH, 'degrange(2)', {"deg2+": int(np.sum(deg >= 2))})
    add(FMH, 'degrange(1, 3)', {"deg1to3": int(np.sum((deg >= 1) & (deg < 3)))})
    add(FMH, 'concurrent', {"concurrent": int(np.sum(deg >= 2))})
    add(FMH, 'concurrent(by="Sex")', {f"concurrent.Sex{s}": sum(1 for i in range(n) if deg[i] >= 2
                                                                and sex[i] == s) for s in ("F", "M")})
    add(FMH, 'kstar(2)', {"kstar2": float(np.sum(deg * (deg - 1) / 2))})
    add(FMH, 'kstar(2, attr="Sex")', {"kstar2.Sex": float(np.sum(hdeg * (hdeg - 1) / 2))})
    add(FMH, 'isolates', {"isolates": int(np.sum(deg == 0))})
    add(FMH, 'isolatededges', {"isolatededges": 4}, "statnet test")
    add(FMH, 'gwdegree(0.5, fixed=TRUE)', {"gwdeg.fixed.0.5": gw(deg[deg > 0], 0.5)})
    add(FMH, 'gwdegree(0.5, TRUE, "Sex")', [gw(
        np.array([deg[i] for i in range(n) if sex[i] == s and deg[i] > 0]), 0.5) for s in ("F", "M")])
    sdeg = A(SL)
    ind, outd = sdeg.sum(0), sdeg.sum(1)
    add(SL, 'gwidegree(.1, TRUE, "group")', [7.715119, 4.408762, 7.734290], "statnet test")
    add(SL, 'gwodegree(.1, TRUE, ~group)', [7.735906, 4.419631, 7.736070], "statnet test")
    add(SL, 'gwidegree(.3, fixed=TRUE)', {"gwideg.fixed.0.3": gw(ind[ind > 0], .3)})
    add(SL, 'gwodegree(0, fixed=TRUE)', [18], "statnet test")
    add(SL, 'idegree(0:2)', {f"idegree{d}": int(np.sum(ind == d)) for d in range(3)})
    add(SL, 'odegrange(5:8)', [12, 5, 0, 0], "statnet test")
    add(SL, 'idegrange(5:8, by="group", homophily=TRUE)', [5, 3, 0, 0], "statnet test")
    add(SL, 'istar(2, function(x) x %v% "group")', [100], "statnet test")
    add(SL, 'ostar(2, "group")', {"ostar2.group": 88}, "statnet test")
    add(SL, 'idegree1.5', {"idegree1.5": float(np.sum(ind ** 1.5))})
    add(SL, 'sender(nodes=-(2:16))', {"sender1": outd[0], "sender17": outd[16], "sender18": outd[17]})
    add(SL, 'receiver(base=2)', {f"receiver{k + 1}": ind[k] for k in range(18) if k != 1})
    add(FMH, 'sociality(nodes=1:3)', {f"sociality{k}": deg[k - 1] for k in (1, 2, 3)})
    # the help page: only ties between nodes of the same attr value, that value one of
    # levels; one statistic per node but the first (nodes=-1); labels not shown there
    add(FMH, 'sociality(attr="Sex", levels=2)', [hdeg[k] if sex[k] == "M" else 0.0
                                                 for k in range(1, n)])

    # -- triads and shared partners --------------------------------------------------------
    tri = sum(nx.triangles(FMH).values()) / 3
    add(FMH, 'triangle', {"triangle": tri})
    add(FMH, 'triangles(function(x) x %v% "Race")', [18], "statnet test")
    add(FMH, 'triangle("Race", diff=FALSE, levels=-2)', [15], "statnet test")
    add(FMH, 'triangle("Sex", diff=TRUE)', {f"triangle.Sex.{s}": subgraph_stats(
        FMH, [x == s for x in sex])[1] for s in ("F", "M")})
    esp = sp_counts(FMH, "esp")
    add(FMH, 'esp(0:3)', {f"esp{d}": int(np.sum(esp == d)) for d in range(4)})
    dsp = sp_counts(FMH, "dsp")
    add(FMH, 'dsp(0:2)', {f"dsp{d}": int(np.sum(dsp == d)) for d in range(3)})
    nsp = sp_counts(FMH, "nsp")
    add(FMH, 'nsp(1:2)', {f"nsp{d}": int(np.sum(nsp == d)) for d in (1, 2)})
    add(FMH, 'gwesp(0.25, fixed=TRUE)', {"gwesp.fixed.0.25": gw(esp, 0.25)})
    # cutoff has no effect with fixed=TRUE (statnet/ergm issue #506)
    add(FMH, 'gwesp(0.25, fixed=TRUE, cutoff=2)', {"gwesp.fixed.0.25": gw(esp, 0.25)})
    add(FMH, 'gwdsp(0.5, fixed=TRUE)', {"gwdsp.fixed.0.5": gw(dsp, 0.5)})
    add(FMH, 'gwnsp(0.5, fixed=TRUE)', {"gwnsp.fixed.0.5": gw(nsp, 0.5)})
    add(FMH, 'gwesp(0.5, fixed=FALSE, cutoff=4)', {f"esp#{d}": int(np.sum(esp == d)) for d in range(1, 5)})
    add(FMH, 'twopath', {"twopath": float(np.sum(deg * (deg - 1) / 2))})
    add(FMH, 'cycle(3:6)', [62, 80, 138, 270], "statnet test")
    add(FMH, 'cycle(4)', {"cycle4": undirected_cycles(FMH, 4)})
    add(FMH, 'balance', [40139], "statnet test")
    tc = [0, 0, 0, 0]
    for a, b, c in itertools.combinations(range(n), 3):
        tc[int(X[a, b] + X[a, c] + X[b, c])] += 1
    add(FMH, 'triadcensus', {f"triadcensus.{k}": tc[k] for k in (1, 2, 3)})
    add(FMH, 'triadcensus(levels=c(0, 2))', {"triadcensus.0": tc[0], "triadcensus.2": tc[2]})
    S = A(SL)
    tcd = nx.triadic_census(SL)
    names = ["012", "102", "021D", "021U", "021C", "111D", "111U", "030T", "030C", "201",
             "120D", "120U", "120C", "210", "300"]
    add(SL, 'triadcensus', {f"triadcensus.{k}": tcd[k] for k in names})
    add(SL, 'triadcensus(levels=c("012", "102"))', {"triadcensus.012": tcd["012"],
                                                    "triadcensus.102": tcd["102"]})
    add(SL, 'triadcensus(3)', [12], "statnet test")
    for typ in ("OTP", "ITP", "RTP", "OSP", "ISP"):
        spm = dir_sp(SL, typ)
        ties = spm[S > 0]
        add(SL, f'dgwesp(0.5, fixed=TRUE, type="{typ}")', {f"gwesp.{typ}.fixed.0.5": gw(ties, 0.5)})
        add(SL, f'gwesp(0.5, fixed=TRUE, type="{typ}")', {f"gwesp.{typ}.fixed.0.5": gw(ties, 0.5)})
        add(SL, f'desp(1:2, type="{typ}")', {f"esp.{typ}{d}": int(np.sum(ties == d)) for d in (1, 2)})
        iu = ~np.eye(18, dtype=bool)         # directed: ordered pairs, every type
        add(SL, f'ddsp(1:2, type="{typ}")', {f"dsp.{typ}{d}": int(np.sum(spm[iu] == d)) for d in (1, 2)})
        nt = spm[iu & (S == 0)]
        add(SL, f'dgwnsp(0.5, fixed=TRUE, type="{typ}")', {f"gwnsp.{typ}.fixed.0.5": gw(nt, 0.5)})
    add(SL, 'cycle(2:6)', [28, 39, 111, 260, 651], "statnet test")
    add(SL, 'cycle(3:7, semi=TRUE)', [57, 216, 787, 2908, 10508], "statnet test")
    add(SL, 'ttriple', {"ttriple": 154}, "statnet test")
    add(SL, 'ttriad("group", diff=TRUE)', [26, 14, 81], "statnet test")
    add(SL, 'ctriple(function(x) x %v% "group")', [34], "statnet test")
    add(SL, 'ctriad(~group, diff=TRUE)', [8, 4, 22], "statnet test")
    add(SL, 'cyclicalties(attr=function(x) x %v% "group")', [55], "statnet test")
    add(SL, 'transitiveties', {"transitiveties": 69}, "statnet test")
    add(SL, 'intransitive', {"intransitive": 224}, "statnet test")
    add(SL, 'm2star', {"m2star": 378}, "statnet test")
    add(SL, 'simmelian', {"simmelian": 8}, "statnet test")
    add(SL, 'simmelianties', {"simmelianties": 32}, "statnet test")
    add(SL, 'nearsimmelian', {"nearsimmelian": 18}, "statnet test")
    add(SL, 'threetrail', [2103, 2326, 1749, 1897], "statnet test")
    add(SL, 'threetrail(levels=2)', [2326], "statnet test")
    add(SL, 'mutual', {"mutual": 28}, "statnet test")
    add(SL, 'mutual(same=function(x) x %v% "group")', [23], "statnet test")
    add(SL, 'mutual(same="group", diff=TRUE)', [8, 4, 11], "statnet test")
    add(SL, 'mutual(same="group", levels=2)', [4], "statnet test")
    add(SL, 'asymmetric', {"asymmetric": 32}, "statnet test")
    add(SL, 'asymmetric(function(x) x %v% "group", diff=TRUE)', [7, 2, 8], "statnet test")
    add(SL, 'asymmetric(~group, diff=TRUE, keep=1:2)', [7, 2], "statnet test")
    add(SL, 'meandeg', [4.888889], "statnet test")
    add(FMH, 'density', [0.009708274], "statnet test")
    sgrp = att(SL, "group")
    add(SL, 'idegree(1:3, "group")', [0, 2, 1, 0, 1, 2, 0, 0, 2], "statnet test")
    add(SL, 'odegree(4:5, ~group, TRUE)', [6, 3], "statnet test")
    add(SL, 'diff("cloisterville", dir="h-t", sign.action="abs")', {
        "diff.abs.cloisterville": float(np.sum(S * np.abs(np.subtract.outer(
            num(SL, "cloisterville"), num(SL, "cloisterville")))))})
    cv = num(SL, "cloisterville")
    th = np.subtract.outer(cv, cv)
    add(SL, 'diff("cloisterville")', {"diff.t-h.cloisterville": float(np.sum(S * th))})
    # label not confirmed (statnet 4.4 reference: diff.t-h.<a>, diff2.abs.<a> only)
    add(SL, 'diff("cloisterville", pow=2, sign.action="posonly")',
        [float(np.sum(S * np.where(th > 0, th, 0) ** 2))])
    add(SL, 'nodeocov("cloisterville")', {"nodeocov.cloisterville": float(np.sum(S.sum(1) * cv))})
    add(SL, 'nodeicov(~cloisterville*2)', {"nodeicov.cloisterville*2": float(np.sum(S.sum(0) * cv * 2))})
    add(SL, 'nodemix(function(x) x %v% "group")', None)

    # -- operators -----------------------------------------------------------------------
    keepF = [(i, j) for i, j in E if sex[i] == sex[j]]
    hF = nx.Graph(keepF)
    add(FMH, 'F(~edges + triangle, ~nodematch("Sex"))', {
        'F(nodematch("Sex"))~edges': len(keepF),
        'F(nodematch("Sex"))~triangle': sum(nx.triangles(hF).values()) / 3})
    add(FMH, 'NodematchFilter(~edges + triangle, attrname="Sex")', {
        'NodematchFilter(Sex)~edges': len(keepF),
        'NodematchFilter(Sex)~triangle': sum(nx.triangles(hF).values()) / 3})
    add(FMH, 'NodematchFilter(~edges + triangle, "Sex")', {
        'NodematchFilter(Sex)~edges': len(keepF),
        'NodematchFilter(Sex)~triangle': sum(nx.triangles(hF).values()) / 3})
    e9, t9 = subgraph_stats(FMH, [x > 9 for x in grade])
    add(FMH, 'S(~edges + triangle, ~Grade>9)', {"S(Grade>9)~edges": e9, "S(Grade>9)~triangle": t9})
    add(FMH, 'Sum(~edges + triangle, label="et")', {"Sum~et1": len(E), "Sum~et2": tri})
    add(FMH, 'Sum(c(1, 2) ~ edges + triangle, label="w")', {"Sum~w1": len(E), "Sum~w2": 2 * tri})
    add(FMH, 'Sum(list(~edges, 2 ~ triangle), label="e_2t")', {"Sum~e_2t": len(E) + 2 * tri})
    add(FMH, 'Offset(~edges + triangle, c(-2, 0.5), which=1)', {"edges": len(E), "triangle": tri})
    add(FMH, 'Label(~edges + triangle, c("E", "T"))', {"E(edges)": len(E), "T(triangle)": tri})
    add(FMH, 'Log(~edges + triangle)', {"Log~edges": math.log(len(E)), "Log~triangle": math.log(tri)})
    add(FMH, 'Exp(~density)', {"Exp~density": math.exp(len(E) / (n * (n - 1) / 2))})
    add(FMH, 'B(~edges, form="sum")', {"B(sum)~edges": len(E)})
    add(FMH, 'nodecov("Grade"):nodematch("Sex")', {"nodecov.Grade:nodematch.Sex": sum(
        (gnum[i] + gnum[j]) for i, j in E if sex[i] == sex[j])})
    add(FMH, 'I(~edges + triangle)', {"edges": len(E), "triangle": tri})
    SW = ((S + S.T) > 0).astype(float)
    SS = S * S.T
    add(SL, 'Symmetrize(~edges + triangle, rule="weak")', {
        "Symmetrize(weak)~edges": SW.sum() / 2, "Symmetrize(weak)~triangle": np.trace(SW @ SW @ SW) / 6})
    add(SL, 'Symmetrize(~edges + triangle, "strong")', {
        "Symmetrize(strong)~edges": SS.sum() / 2, "Symmetrize(strong)~triangle": np.trace(SS @ SS @ SS) / 6})
    add(SL, 'Symmetrize(~edges, "upper")', {"Symmetrize(upper)~edges": np.triu(S, 1).sum()})
    add(SL, 'Symmetrize(~edges, "lower")', {"Symmetrize(lower)~edges": np.tril(S, -1).sum()})
    add(SL, 'F(~edges + mutual, ~nodematch("group"))', {
        'F(nodematch("group"))~edges': sum(1 for i, j in pairs(SL) if sgrp[i] == sgrp[j]),
        'F(nodematch("group"))~mutual': sum(1 for i, j in pairs(SL) if i < j and S[j, i]
                                           and sgrp[i] == sgrp[j])})
    # two-mode
    D = A(DAV)
    n1 = sum(1 for v in DAV.nodes if DAV.nodes[v]["bipartite"] == 0)
    B_ = D[:n1, n1:]
    add(DAV, 'b1degree(1:3)', {f"b1degree{d}": int(np.sum(B_.sum(1) == d)) for d in (1, 2, 3)})
    add(DAV, 'b2star(2)', {"b2star2": float(np.sum(B_.sum(0) * (B_.sum(0) - 1) / 2))})
    add(DAV, 'gwb1degree(0.5, fixed=TRUE)', {"gwb1deg.fixed.0.5": gw(B_.sum(1)[B_.sum(1) > 0], 0.5)})
    add(DAV, 'b1dsp(0:2)', {f"b1dsp{d}": int(np.sum(np.triu(B_ @ B_.T, 1)[np.triu_indices(n1, 1)] == d))
                            for d in range(3)})
    add(DAV, 'isolatededges', {"isolatededges": int(sum(1 for i in range(n1) for j in range(B_.shape[1])
                                                        if B_[i, j] and B_[i].sum() == 1 and B_[:, j].sum() == 1))})
    out += more_cases()
    out += gw_sp_cases()
    out += statnet_test_cases()
    out += nodemix_level_cases()
    out += diversity_cases()
    out += sum_cases()
    out += starmix_cases()
    out += nested_cases()
    out += hamming_cases()
    return out


def hamming_cases():
    """test-term-hamming.R's forms (weights from cov, attrname) and two-mode n1 x n2
    covariates, on a small random two-mode network."""
    g, X, Wm, _ = two_mode_covariates()
    Y = A(g)[:6, 6:]
    G["random two-mode (hamming)"] = g
    diff = (X != Y)
    return [(g, f, e, "statnet test (definition)") for f, e in [
        ('hamming("X")', {"hamming.X": float(diff.sum())}),
        ('hamming("X", "W")', {"hamming.X": float(np.sum(Wm * diff))}),
        ('hamming("X", cov="R")', {"hamming.X": float(np.sum(X * diff))}),
        ('hamming("X", "R", "w3")', {"hamming.X": float(np.sum(3 * X * diff))}),
        ('dyadcov("W")', {"dyadcov.W": float(np.sum(Wm * Y))}),
        ('edgecov("W")', {"edgecov.W": float(np.sum(Wm * Y))}),
    ]]


def nested_cases():
    """Operators over nonlinear operators, and R's indexing in Offset(which=)."""
    ln20 = math.log(20)
    d = A(FLO).sum(1)
    return [
        (FLO, 'Sum(2 ~ Log(~edges), "x")', {"Sum~x": 2 * ln20}, "definition"),
        (FLO, "Passthrough(~Log(~edges) + edges)", {"Log~edges": ln20, "edges": 20}, "definition"),
        (FLO, "Exp(~Log(~edges))", {"Exp~Log~edges": 20.0}, "definition"),
        (FLO, "Log(~Exp(~density))", {"Log~Exp~density": 20 / 120}, "definition"),
        (FLO, "Offset(~edges + triangle + kstar(2), c(-2, 1), which=-2)",
         {"edges": 20, "triangle": 3, "kstar2": float(np.sum(d * (d - 1) / 2))}, "definition"),
    ]


def starmix_cases():
    """test-term-bipartite.R on bipnw2 (the rows without its rbinom 'Color'), and the
    remaining diversity / degree-power terms from their definitions."""
    b2 = bipnw2()
    G["bipnw2"] = b2
    out = [(b2, f, e, "statnet test") for f, e in [
        ('b1starmix(2, "Letter")', [9, 4, 7, 4]), ('b1starmix(1, "Letter", base=2)', [36, 39, 40]),
        ('b1starmix(1, "Letter", diff=FALSE)', [75, 75]),
        ('b1starmix(1, "Letter", base=2, diff=FALSE)', [75]),
        ('b1twostar("Letter")', [9, 4, 15, 17, 7, 4]),
        ('b1twostar(function(x) x %v% "Letter", levels2=-(2:4))', [9, 7, 4]),
        ('b2starmix(2, "Letter")', [6, 8, 3, 6]), ('b2starmix(1, "Letter", base=2)', [36, 39, 40]),
        ('b2starmix(1, "Letter", diff=FALSE)', [71, 79]),
        ('b2starmix(1, "Letter", base=2, diff=FALSE)', [71]),
        ('b2twostar("Letter")', [6, 3, 16, 16, 8, 6]), ("b2twostar(~Letter, levels2=-(2:4))", [6, 8, 6]),
    ]]
    X = A(FLO)
    c = [k % 5 for k in range(len(X))]
    for i, v in enumerate(FLO.nodes):
        FLO.nodes[v]["c"] = c[i]
    out.append((FLO, 'nodefactordistinct("c")', {"nodefactordistinct.c": sum(
        len({c[j] for j in range(len(X)) if X[i, j]}) for i in range(len(X)))}, "definition"))
    S = A(SL)
    out.append((SL, "odegree1.5", {"odegree1.5": float(np.sum(S.sum(1) ** 1.5))}, "definition"))
    D = A(DAV)
    n1 = 18
    grp = [DAV.nodes[v]["group"] for v in list(DAV.nodes)[:n1]]
    out.append((DAV, 'b2factordistinct("group")', {"b2factordistinct.group": sum(
        len({grp[i] for i in range(n1) if D[i, j]}) for j in range(n1, len(D)))}, "definition"))
    return out


def sum_cases():
    """test-term-Sum.R on flomarriage (its offset() rows are listed separately)."""
    f = 'c(1, .5, rep(2, 4)) ~ edges + absdiff("wealth") + gwesp(cutoff=4)'
    vals = [20, 573, 14, 2, 0, 0]
    inner = ["edges", "absdiff.wealth", "esp#1", "esp#2", "esp#3", "esp#4"]
    rows = [
        (f"Sum({f}, identity)", dict(zip(["Sum~" + v for v in inner], vals))),
        (f'Sum({f}, "x")', dict(zip([f"Sum~x{k}" for k in range(1, 7)], vals))),
        (f"Sum({f}, I)", dict(zip(inner, vals))),
        ('Sum(c(1, .5, rep(2, 4)) ~ edges + offset(absdiff("wealth")) + gwesp(cutoff=4), identity)',
         dict(zip(["Sum~edges", "offset(Sum~absdiff.wealth)"] + ["Sum~" + v for v in inner[2:]], vals))),
        ('Sum(c(1, .5) ~ edges + absdiff("wealth"), I)', {"edges": 20, "absdiff.wealth": 573}),
        ('Sum(c(~absdiff("wealth"), ~absdiff("wealth")), "")', [2292]),
        ('Sum(c(~absdiff("wealth"), 0.5 ~ absdiff("wealth")), "")', [1719]),
        ('Sum(c(~edges + absdiff("wealth"), ~edges + absdiff("wealth")), '
         'function(x) I(paste(x[[1]], x[[2]])))',
         {"edges edges": 40, "absdiff.wealth absdiff.wealth": 2292}),
        ('Sum(c(~edges + absdiff("wealth"), 0.5 ~ edges + absdiff("wealth")), c("a", "a"))', [30, 1719]),
        ('Sum(c(~edges + absdiff("wealth"), rbind(.5, 0) ~ edges), "")', {"Sum~1": 30, "Sum~2": 1146}),
        ('Sum("sum" ~ edges + absdiff("wealth"), "") + Sum("mean" ~ edges + absdiff("wealth"), "")',
         [1166, 583]),
        ('Prod(c(~edges + absdiff("wealth"), ~edges + absdiff("wealth")), "")', [400, 1146 ** 2]),
        ('Prod(c(~edges + absdiff("wealth"), 0.5 ~ edges + absdiff("wealth")), "")',
         [20 ** 1.5, 1146 ** 1.5]),
    ]
    out = [(FLO, f, e, "statnet test") for f, e in rows]
    # over a curved formula Sum keeps its parameters (statnet's param_names in test-term-Sum.R)
    out.append((FLO, rows[3][0].replace("identity)", '"x")'),
                dict(zip(["Sum~x1", "offset(Sum~x2)"] + [f"Sum~x{k}" for k in range(3, 7)], vals)),
                "statnet test; coefficients", ["Sum~x1", "offset(Sum~x2)", "Sum~x3", "Sum~x4"]))
    esp = [7, 1, 0, 0]                   # flomarriage esp(1:4), the counts Sum doubles above
    out.append((FLO, "Passthrough(~gwesp(cutoff=4))", {f"esp#{k}": v for k, v in
                zip(range(1, 5), esp)}, "definition; coefficients keep the curved pair",
                ["gwesp", "gwesp.decay"]))
    out.append((FLO, 'Label(~gwesp(cutoff=4), "L")', {f"L(esp#{k})": v for k, v in
                zip(range(1, 5), esp)}, "definition; coefficients keep the curved pair",
                ["L(gwesp)", "L(gwesp.decay)"]))
    # a name given to two different statistics twice: statistics() (and gof's p-values,
    # results' coef dicts) key the later copy name.1 (R's make.unique)
    out.append((FLO, 'edges + Label(~absdiff("wealth"), "edges", "replace") + '
                     'Sum("sum"~edges+kstar(2), "") + Sum("mean"~edges+triangle, "")',
                {"edges": 20, "edges.1": 1146, "Sum~": 67, "Sum~.1": 11.5},
                "definition; keys make.unique"))
    # test-term-For.R
    w3 = {"absdiff.wealth": 1146, "absdiff2.wealth": 91570, "absdiff3.wealth": 8588334}
    p3 = {"absdiff.priorates": 638, "absdiff2.priorates": 26756, "absdiff3.priorates": 1289504}
    grp = {"nodematch.group.Loyal": 23, "nodematch.group.Outcasts": 10, "nodematch.group.Turks": 30}
    out += [
        (FLO, 'For(~absdiff("wealth", pow=.), . = 1:3)', w3, "statnet test"),
        (SL, 'For(~nodematch("group", levels=., diff=TRUE), . = ~sort(unique(.%v%"group")))', grp,
         "statnet test"),
        (SL, 'For(~nodematch("group", levels=., diff=TRUE), . = function(nw) '
             'sort(unique(nw%v%"group")))', grp, "statnet test"),
        (FLO, 'For(~absdiff(a, pow=.), a = c("wealth", "priorates"), . = 1:3)', {**w3, **p3},
         "statnet test"),
        (FLO, 'For(. = 1:3, a = c("wealth", "priorates"), ~absdiff(a, pow=.))',
         {k: v for pair in zip(w3.items(), p3.items()) for k, v in pair}, "statnet test"),
    ]
    # For is a macro (its help: the formula evaluated once per value): Offset()/Curve()
    # inside it are the terms written out (session 6b; before: refused)
    Fm = A(FMH)
    same = {a: float(np.sum(np.triu(Fm, 1) * np.equal.outer(att(FMH, a), att(FMH, a))))
            for a in ("Sex", "Race")}
    out += [
        (FMH, 'edges + For(~Offset(~nodematch(.), -1), . = c("Sex", "Race"))',
         {"edges": float(np.triu(Fm, 1).sum()), "offset(nodematch.Sex)": same["Sex"],
          "offset(nodematch.Race)": same["Race"]}, "definition; For written out", ["edges"]),
        (FMH, 'For(~Curve(~nodematch(.), params="h", map="rep"), . = c("Sex", "Race"))',
         {"nodematch.Sex": same["Sex"], "nodematch.Race": same["Race"]},
         "definition; For written out", ["h", "h"]),
    ]
    return out


def diversity_cases():
    """test-term-diversity.R and test-term-attrcov.R definitions on random networks."""
    rng = np.random.default_rng(1)
    out = []
    n = 60
    g = nx.gnm_random_graph(n, 200, seed=2, directed=True)
    a = rng.permutation(np.repeat(np.arange(1, 11), 6))
    w = rng.normal(size=n)
    for v in g.nodes:
        g.nodes[v].update(a=int(a[v]), w=float(w[v]), grp="xyz"[v % 3])
    md = rng.random((10, 10))
    g.graph["md"] = md
    G["random directed (diversity)"] = g
    X = A(g)
    spread = lambda vals: (max(vals) - min(vals)) if vals else 0.0      # noqa: E731
    out += [
        (g, "attrcov(~a, md)", {"attrcov.a": sum(md[a[i] - 1, a[j] - 1] for i, j in g.edges)}),
        (g, 'nodeocovrange("w")', {"nodeocovrange.w": sum(spread([w[j] for j in range(n) if X[i, j]])
                                                          for i in range(n))}),
        (g, 'nodeicovrange("w")', {"nodeicovrange.w": sum(spread([w[j] for j in range(n) if X[j, i]])
                                                          for i in range(n))}),
        (g, 'nodeofactordistinct("grp")', {"nodeofactordistinct.grp": sum(
            len({"xyz"[j % 3] for j in range(n) if X[i, j]}) for i in range(n))}),
        (g, 'nodeifactordistinct("grp")', {"nodeifactordistinct.grp": sum(
            len({"xyz"[j % 3] for j in range(n) if X[j, i]}) for i in range(n))}),
    ]
    b = nx.Graph()
    n1, n2 = 20, 30
    b.add_nodes_from((v, {"bipartite": int(v >= n1)}) for v in range(n1 + n2))
    while b.number_of_edges() < 80:
        b.add_edge(int(rng.integers(0, n1)), int(rng.integers(n1, n1 + n2)))
    av = list(rng.permutation(np.resize(np.arange(1, 4), n1))) + \
        list(rng.permutation(np.resize(np.arange(1, 6), n2)))
    x1, x2 = rng.normal(size=n1), rng.normal(size=n2)
    for v in b.nodes:
        b.nodes[v].update(a=int(av[v]), b1=float(x1[v]) if v < n1 else None,
                          b2=float(x2[v - n1]) if v >= n1 else None)
    mb = rng.random((3, 5))
    b.graph["mb"] = mb
    G["random two-mode (diversity)"] = b
    Bm = A(b)[:n1, n1:]
    out += [
        (b, 'attrcov("a", mb)', {"attrcov.a": sum(mb[av[min(i, j)] - 1, av[max(i, j)] - 1]
                                                 for i, j in b.edges)}),
        (b, 'b1covrange("b2")', {"b1covrange.b2": sum(spread([x2[j] for j in range(n2) if Bm[i, j]])
                                                      for i in range(n1))}),
        (b, 'b2covrange("b1")', {"b2covrange.b1": sum(spread([x1[i] for i in range(n1) if Bm[i, j]])
                                                      for j in range(n2))}),
    ]
    return [(gg, f, e, "statnet test (definition)") for gg, f, e in out]


def _mix_index(rows, cols, sym):
    """statnet's cell numbers: column-major over the rows x cols table (sym: the upper
    triangle with the diagonal, mirrored)."""
    m = np.zeros((rows, cols), dtype=int)
    k = 1
    for j in range(cols):
        for i in range(j + 1 if sym else rows):
            m[i, j] = k
            k += 1
    return m + m.T - np.diag(np.diag(m)) if sym else m


def nodemix_level_cases():
    """test-nodemix.R's level/levels2 selections (its networks are SAN draws; the same
    selections on a random network here, values from its cell-numbering definition)."""
    out = []
    rng = np.random.default_rng(5)
    for kind in ("undirected", "directed", "bipartite"):
        n, bip = 120, 40
        if kind == "bipartite":
            g = nx.Graph()
            g.add_nodes_from((v, {"bipartite": int(v >= bip)}) for v in range(n))
            while g.number_of_edges() < 300:
                g.add_edge(int(rng.integers(0, bip)), int(rng.integers(bip, n)))
            va = [k % 5 + 1 for k in range(bip)] + [k % 7 + 1 for k in range(n - bip)]
            m_ind = _mix_index(5, 7, False)
        else:
            g = nx.gnm_random_graph(n, 300, seed=3, directed=kind == "directed")
            va = [k % 6 + 1 for k in range(n)]
            m_ind = _mix_index(6, 6, kind == "undirected")
        for v in g.nodes:
            g.nodes[v]["vattr"] = va[v]
        G[f"random {kind}"] = g
        st = np.zeros(m_ind.max())
        for a, b in g.edges:
            st[m_ind[va[a] - 1, va[b] - 1] - 1] += 1
        if kind == "bipartite":
            sel = np.unique(m_ind[np.ix_([0, 1, 3, 4], [0, 1, 3, 4, 6])])
            l2, l2w = [34, 23, 11, 6, 3, 9, 19, 25, 28, 30], [16, 4, 12, 3, 19, 17, 8]
            lev = "b1levels=c(1, 2, 4, 5), b2levels=-c(3, 6)"
        else:
            sel = np.unique(m_ind[np.ix_([0, 1, 3, 5], [0, 1, 3, 5])])
            l2 = [1, 15, 6, 3, 7, 4, 20, 18] if kind == "undirected" else \
                [1, 15, 33, 3, 27, 24, 30, 18, 5, 9, 11]
            l2w = [8, 2, 7, 6, 4] if kind == "undirected" else [8, 12, 7, 6, 14, 4, 3]
            lev = "levels=-c(5, 3)"
        c = lambda v: "c(" + ", ".join(map(str, v)) + ")"      # noqa: E731
        out += [(g, 'nodemix("vattr", levels2=TRUE)', list(st), "statnet test (definition)"),
                (g, f'nodemix("vattr", levels2={c(l2)})', list(st[np.array(l2) - 1]),
                 "statnet test (definition)"),
                (g, f'nodemix("vattr", {lev}, levels2=TRUE)', list(st[sel - 1]),
                 "statnet test (definition)"),
                (g, f'nodemix("vattr", {lev}, levels2={c(l2w)})',
                 list(st[sel[np.array(l2w) - 1] - 1]), "statnet test (definition)")]
    return out


def statnet_test_cases():
    """Values statnet's tests/testthat/test-term-{bipartite,undirected}.R print, on their
    networks rebuilt from R's random numbers (tests/support/statnet_testnets.py)."""
    b, u, fmh = bipnw(), unnw(), FMH
    G["bipnw"], G["unnw"] = b, u
    t = "statnet test"
    rows = [
        (u, "degcrossprod", [56.30102]), (u, "degcor", [-0.09789041]),
        (u, "tripercent", [29.19463]), (u, 'tripercent("Pet")', [29.09091]),
        (u, "tripercent(~Pet)", [29.09091]),
        (b, "b1concurrent", [12]), (b, 'b1concurrent("Letter")', [4, 5, 3]),
        (b, 'b1cov("Cost")', [121]), (b, "b1cov(~Cost)", [121]),
        (b, "b1cov(~poly(Cost, 2, raw=TRUE))", [121, 283]),
        (b, "b1degrange(from=c(1, 2), to=c(Inf, Inf))", [42, 12]),
        (b, 'b1degrange(from=c(1, 2), to=c(Inf, Inf), by="Letter", homophily=FALSE)',
         [13, 4, 13, 5, 16, 3]),
        (b, 'b1degrange(from=c(1, 2), to=c(Inf, Inf), by=function(x) x %v% "Letter", '
            'homophily=TRUE)', [19, 3]),
        (b, "b1degree(1:3)", [30, 8, 2]), (b, 'b1degree(2:4, by="Letter")', [2, 1, 1, 3, 1, 1, 3, 0, 0]),
        (b, "b1dsp(0)", [4900]), (b, "b1dsp(1:3)", [49, 1, 0]),
        (b, 'b1factor("Letter")', [21, 19]), (b, "b1factor(~Letter, levels=-3)", [20, 21]),
        (b, "b1mindegree(1:3)", [42, 12, 4]), (b, "b1sociality(nodes=94:96)", [4, 4, 2]),
        (b, "b1star(1:2)", [60, 26]), (b, 'b1star(2:3, function(x) x %v% "Letter")', [3, 0]),
        (b, "b2concurrent", [20]), (b, 'b2concurrent(function(x) x %v% "Letter")', [8, 6, 6]),
        (b, 'b2cov("Cost")', [129]),
        (b, "b2degrange(from=c(1, 2), to=c(Inf, Inf))", [26, 20]),
        (b, 'b2degrange(from=c(1, 2), to=c(Inf, Inf), by=function(x) x %v% "Letter", '
            'homophily=FALSE)', [9, 8, 10, 6, 7, 6]),
        (b, "b2degrange(from=c(1, 2), to=c(Inf, Inf), by=~Letter, homophily=TRUE)", [19, 3]),
        (b, "b2degree(1:3)", [6, 9, 8]), (b, 'b2degree(2:4, by="Letter")', [3, 2, 3, 3, 3, 0, 3, 3, 0]),
        (b, "b2dsp(0)", [381]), (b, "b2dsp(1:3)", [24, 1, 0]),
        (b, "b2mindegree(1:3)", [26, 20, 11]), (b, 'b2factor("Letter")', [19, 16]),
        (b, "b2factor(~Letter, levels=-3)", [25, 19]), (b, "b2sociality(nodes=2:6)", [2, 3, 2, 3, 1]),
        (b, "b2star(1:2)", [60, 51]), (b, 'b2star(2:3, function(x) x %v% "Letter")', [3, 0]),
        (b, "gwb1degree(.3, fixed=TRUE)", {"gwb1deg.fixed.0.3": 45.4137}),
        (b, "gwb1degree(.1, TRUE, ~Letter)", [13.39962, 13.49479, 16.28549]),
        (b, 'gwb1degree(.1, fixed=TRUE, attr="Letter")', [13.39962, 13.49479, 16.28549]),
        (b, "gwb1dsp", [49, 1] + [0] * 27), (b, "gwb1dsp(.3, TRUE)", [50.25918]),
        # statnet 4.4's test (4.12 ignores cutoff with fixed=TRUE: cutoff=Inf gives 50.259)
        (b, "gwb1dsp(.3, TRUE, 1)", [49]), (b, "gwb1dsp(.3, TRUE, Inf)", [50.25918]),
        (b, "gwb2degree(.3, fixed=TRUE)", [31.97479]),
        (b, "gwb2degree(.1, TRUE, ~Letter)", [9.809166, 10.598143, 7.598143]),
        (b, "gwb2dsp", [24, 1] + [0] * 28), (b, "gwb2dsp(.3, TRUE)", [25.25918]),
        (b, "gwb2dsp(.3, TRUE, 1)", [24]),
        (b, 'nodemix("Letter", levels2=TRUE)', [9, 8, 8, 7, 7, 5, 4, 6, 6]),
        (b, 'smalldiff("Cost", 1)', [48]),
        (fmh, "altkstar(1, fixed=TRUE)", [258]), (fmh, "concurrent", [97]),
        (fmh, 'concurrent(by=function(x) x %v% "Grade")', [35, 15, 18, 8, 13, 8]),
        (fmh, "concurrentties", [258]), (fmh, 'concurrentties(by="Grade")', [103, 51, 36, 19, 31, 18]),
        (fmh, "cyclicalties", [120]), (fmh, 'cyclicalties("Race")', [40]),
        (fmh, "transitiveties", [120]), (fmh, 'transitiveties("Race")', [40]),
        (fmh, "degree(2:3)", [30, 28]),
        (fmh, 'degree(1:3, function(x) x %v% "Grade")', [15, 9, 9, 9, 4, 2, 11, 5, 9, 9, 4, 2, 5, 5, 4, 2, 3, 2]),
        (fmh, 'degree(4:5, by="Sex", homophily=TRUE)', [10, 3]),
        (fmh, "degrange(1:3)", [148, 97, 67]), (fmh, 'degrange(1:3, by="Sex", homophily=TRUE)', [122, 65, 36]),
        (fmh, "degree1.5", [795.7458]), (fmh, "gwdegree(.3, fixed=TRUE)", [178.4312]),
        (fmh, 'gwdegree(.1, fixed=TRUE, attr=function(x) x %v% "Grade")',
         [53.58148, 25.53534, 30.83418, 17.79934, 19.31326, 10.80933]),
        (fmh, "kstar(1:3)", [406, 659, 1010]), (fmh, 'kstar(2, "Grade")', [466]),
        (fmh, "opentriad", [473]), (fmh, "sociality(nodes=-(2:203))", [13, 3, 1]),
    ]
    out = [(g, f, e, t) for g, f, e in rows]
    # test-operators.R (values from its definitions, labels as it names them)
    W = num(FLO, "wealth")
    Af = A(FLO)
    ad = np.abs(np.subtract.outer(W, W))[np.triu(Af, 1) > 0]
    for op, fn in (("==", lambda x: x == 93), ("<", lambda x: x < 5), ("!=", lambda x: x != 5),
                   ("<=", lambda x: x <= 5), (">", lambda x: x > 5), (">=", lambda x: x >= 5)):
        k = fn(ad)
        out.append((FLO, f'F(~edges + absdiff("wealth"), ~absdiff("wealth") {op} 5)'.replace(
            " 5)", " 93)" if op == "==" else " 5)"), {
            f'F(absdiff("wealth"){op}{93 if op == "==" else 5})~edges': float(k.sum()),
            f'F(absdiff("wealth"){op}{93 if op == "==" else 5})~absdiff.wealth': float(ad[k].sum())},
            "statnet test"))
    Sm = A(SL)
    out += [
        (SL, 'Symmetrize(~edges, "strong") + Symmetrize(~edges, "weak") + Symmetrize(~edges, '
             '"lower") + Symmetrize(~edges, "upper")',
         [np.sum(Sm * Sm.T) / 2, np.sum((Sm + Sm.T) > 0) / 2, np.sum(np.tril(Sm, -1)),
          np.sum(np.triu(Sm, 1))], "statnet test"),
        (SL, "S(~edges, ~c(2, 5, 6, 10, 14))", [Sm[np.ix_([1, 4, 5, 9, 13], [1, 4, 5, 9, 13])].sum()],
         "statnet test"),
        (FLO, "S(~edges, ~c(2, 5, 6, 10, 14))", [Af[np.ix_([1, 4, 5, 9, 13], [1, 4, 5, 9, 13])].sum() / 2],
         "statnet test"),
        (SL, "S(~edges, I(c(1, 2, 3, 4, 5)) ~ I(c(6, 7, 8, 9)))", [Sm[:5, 5:9].sum()], "statnet test"),
        (FLO, 'Label(~edges + absdiff("wealth"), "abc")', {"abc(edges)": 20, "abc(absdiff.wealth)": 1146},
         "statnet test"),
        (FLO, 'Label(~edges + absdiff("wealth"), "abc", "prepend")',
         {"abcedges": 20, "abcabsdiff.wealth": 1146}, "statnet test"),
        (FLO, 'Label(~edges + absdiff("wealth"), c("abc", "def"), "append")',
         {"edgesabc": 20, "absdiff.wealthdef": 1146}, "statnet test"),
        (FLO, 'Label(~edges + absdiff("wealth"), c("abc", "def"), "replace")',
         {"abc": 20, "def": 1146}, "statnet test"),
        (FLO, 'Label(~edges + absdiff("wealth"), ~gsub(".", "!", ., fixed=TRUE))',
         {"edges": 20, "absdiff!wealth": 1146}, "statnet test"),
        (FLO, 'edges:absdiff("wealth") + absdiff("wealth"):edges', [1146, 1146], "statnet test"),
        (FLO, 'edges*absdiff("wealth") + absdiff("wealth")*edges', [20, 1146, 1146, 1146, 20, 1146],
         "statnet test"),
        (FLO, 'Passthrough(~edges + degree(0) + absdiff("wealth"))', [20, 1, 1146], "statnet test"),
    ]
    # test-term-mm.R (labels as statnet prints them)
    grades = ["7", "8", "9", "10", "11", "12"]
    mmg = [0, 33, 0, 2, 23, 1, 4, 7, 9, 1, 2, 6, 1, 17, 1, 1, 4, 5, 5, 6]
    cells = [(a, b) for j, b in enumerate(grades) for a in grades[:j + 1]][1:]
    races = ["Black", "Hisp", "NatAm", "Other", "White"]
    mmr = [0, 8, 53, 13, 41, 46, 0, 1, 0, 0, 5, 22, 10, 0, 4]
    rcells = [(a, b) for j, b in enumerate(races) for a in races[:j + 1]]
    out += [(g, f, e, "statnet test") for g, f, e in [
        (FMH, 'mm("Grade")', {f"mm[Grade={a},Grade={b}]": v for (a, b), v in zip(cells, mmg)}),
        (FMH, "mm(~Grade >= 10, levels=-1, levels2=NULL)", {"mm[Grade>=10=TRUE,Grade>=10=TRUE]": 43}),
        (b, 'mm("Letter")', {"mm[Letter=b,Letter=a]": 8, "mm[Letter=c,Letter=a]": 8,
                             "mm[Letter=a,Letter=b]": 7, "mm[Letter=b,Letter=b]": 7,
                             "mm[Letter=c,Letter=b]": 5, "mm[Letter=a,Letter=c]": 4,
                             "mm[Letter=b,Letter=c]": 6, "mm[Letter=c,Letter=c]": 6}),
        (FMH, 'mm("Race", levels2=-1)', {f"mm[Race={a},Race={b}]": v
                                         for (a, b), v in list(zip(rcells, mmr))[1:]}),
        (FMH, 'mm("Race", levels2=cbind(2, 3))', {"mm[Race=Hisp,Race=NatAm]": 41}),
        # M <- matrix(TRUE, 5, 5); M[1,1] <- M[3,2] <- M[2,3] <- FALSE; fmh.mm.Race[M[upper.tri]]
        (FMH, 'mm("Race", levels2=matrix(c(F,T,T,T,T, T,T,F,T,T, T,F,T,T,T, T,T,T,T,T, '
              'T,T,T,T,T), 5, 5))',
         {f"mm[Race={a},Race={b}]": v for k, ((a, b), v) in enumerate(zip(rcells, mmr))
          if k not in (0, 4)}),
        (FMH, "mm(.~Grade)", {"mm[.,Grade=8]": 75, "mm[.,Grade=9]": 65, "mm[.,Grade=10]": 36,
                              "mm[.,Grade=11]": 49, "mm[.,Grade=12]": 28}),
        (FMH, "mm(.~Grade, levels=I(c(7, 6, 9, 8)), levels2=TRUE)", [153, 0, 65, 75]),
        (FMH, 'mm("Grade", levels=I(c(7, 6, 9, 8)), levels2=TRUE)',
         {"mm[Grade=7,Grade=7]": 75, "mm[Grade=7,Grade=6]": 0, "mm[Grade=6,Grade=6]": 0,
          "mm[Grade=7,Grade=9]": 0, "mm[Grade=6,Grade=9]": 0, "mm[Grade=9,Grade=9]": 23,
          "mm[Grade=7,Grade=8]": 0, "mm[Grade=6,Grade=8]": 0, "mm[Grade=9,Grade=8]": 2,
          "mm[Grade=8,Grade=8]": 33}),
    ]]
    # test-term-b12nodematch.R (its 28-node two-mode network is written out there)
    el1 = [17, 20, 22, 26, 19, 24, 16, 22, 18, 23, 28, 20, 22, 23, 17, 21, 25, 21, 27, 16, 19, 18,
           23, 26, 16]
    el2 = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 9, 10, 10, 11, 11, 4, 2]
    my = nx.Graph()
    for v in range(1, 29):
        my.add_node(v, bipartite=0 if v <= 15 else 1, names="abc"[(v > 10) + (v > 20)])
    my.add_edges_from(zip(el1, el2))
    G["mynw"] = my
    out += [(my, f, e, "statnet test") for f, e in [
        ("b1nodematch(~names, beta=1)", [12]),
        ('b1nodematch(function(x) x %v% "names", beta=0)', [9]),
        ('b2nodematch("names", beta=1)', [7]),
        ('b2nodematch(function(x) x %v% "names", beta=0)', [7]),
        ("b1nodematch(~names, diff=TRUE, levels=1, beta=1)", [12]),
        ('b1nodematch(function(x) x %v% "names", diff=TRUE, keep=1, beta=0)', [9]),
        ('b2nodematch("names", diff=TRUE, levels=2, beta=1)', [5]),
        ('b2nodematch(function(x) x %v% "names", diff=TRUE, keep=2, beta=0)', [5]),
        ('b1nodematch("names", diff=TRUE, alpha=0)', [10, 0]),
        ('b1nodematch(function(x) x %v% "names", diff=FALSE, alpha=0)', [10]),
        ("b2nodematch(~names, diff=TRUE, alpha=0)", [2, 4]),
        ('b2nodematch(function(x) x %v% "names", diff=FALSE, alpha=0)', [6]),
    ]]
    return out


def gw_sp_cases():
    """statnet/ergm tests/testthat/test-term-gw-sp.R (statnet's printed values and labels)."""
    dix, fmh = ef.datasets.load("faux.dixon.high"), FMH
    G["faux.dixon.high"] = dix
    t = "statnet test"
    out = [
        (dix, 'dgwdsp(fixed=F, type="OTP", cutoff=5)',
         dict(zip([f"dsp.OTP#{k}" for k in range(1, 6)], [4871, 1077, 228, 53, 17])), t),
        (dix, 'dgwdsp(fixed=T, type="OTP", decay=0.1)', {"gwdsp.OTP.fixed.0.1": 6379.609}, t),
        (dix, 'ddsp(type="OTP", d=2)', {"dsp.OTP2": 1077}, t),
        (dix, 'ddsp(type="ITP", d=2)', {"dsp.ITP2": 1077}, t),
        (dix, 'ddsp(type="OSP", d=2)', {"dsp.OSP2": 948}, t),
        (dix, 'ddsp(type="ISP", d=2)', {"dsp.ISP2": 1132}, t),
        (dix, 'ddsp(type="RTP", d=1:2)', {"dsp.RTP1": 1096, "dsp.RTP2": 96}, t),
        (dix, 'dgwesp(fixed=F, type="OTP", cutoff=5)',
         dict(zip([f"esp.OTP#{k}" for k in range(1, 6)], [516, 222, 65, 21, 3])), t),
        (dix, 'dgwesp(fixed=T, type="OTP", decay=0.1)', {"gwesp.OTP.fixed.0.1": 857.4225}, t),
        (dix, 'desp(type="OTP", d=2)', {"esp.OTP2": 222}, t),
        (dix, 'desp(type="ITP", d=2)', {"esp.ITP2": 185}, t),
        (dix, 'desp(type="OSP", d=2)', {"esp.OSP2": 215}, t),
        (dix, 'desp(type="ISP", d=2)', {"esp.ISP2": 228}, t),
        (dix, 'desp(type="RTP", d=1:3)', {"esp.RTP1": 309, "esp.RTP2": 39, "esp.RTP3": 2}, t),
        (dix, 'dgwesp(fixed=T, decay=0.1, type="RTP")', {"gwesp.RTP.fixed.0.1": 353.9198}, t),
        (dix, 'dgwnsp(fixed=F, type="OTP", cutoff=5)',
         dict(zip([f"nsp.OTP#{k}" for k in range(1, 6)], [4355, 855, 163, 32, 14])), t),
        (dix, 'dgwnsp(fixed=T, type="OTP", decay=0.1)', {"gwnsp.OTP.fixed.0.1": 5522.186}, t),
        (dix, 'dnsp(type="OTP", d=2)', {"nsp.OTP2": 855}, t),
        (dix, 'dnsp(type="ITP", d=2)', {"nsp.ITP2": 892}, t),
        (dix, 'dnsp(type="OSP", d=2)', {"nsp.OSP2": 733}, t),
        (dix, 'dnsp(type="ISP", d=2)', {"nsp.ISP2": 904}, t),
        # the d-forms on an undirected network ("Undirect tests")
        (fmh, 'dgwdsp(fixed=F, cutoff=6)', dict(zip([f"dsp#{k}" for k in range(1, 7)],
                                                     [431, 75, 23, 1, 1, 0])), t),
        (fmh, 'dgwdsp(fixed=T, decay=0.1)', {"gwdsp.fixed.0.1": 540.7445}, t),
        (fmh, 'ddsp(d=2)', {"dsp2": 75}, t),
        (fmh, 'dgwesp(fixed=F, cutoff=6)', dict(zip([f"esp#{k}" for k in range(1, 7)],
                                                     [70, 36, 13, 0, 1, 0])), t),
        (fmh, 'dgwesp(fixed=T, decay=0.1)', {"gwesp.fixed.0.1": 124.8859}, t),
        (fmh, 'desp(d=2)', {"esp2": 36}, t),
        (fmh, 'dgwnsp(fixed=F, cutoff=5)', dict(zip([f"nsp#{k}" for k in range(1, 6)],
                                                     [361, 39, 10, 1, 0])), t),
        (fmh, 'dgwnsp(fixed=T, decay=0.1)', {"gwnsp.fixed.0.1": 415.8586}, t),
        (fmh, 'dnsp(d=2)', {"nsp2": 39}, t),
    ]
    return out


def more_cases():
    """Arguments the statnet 4.4 reference runs never exercise (levels/keep on the triad and
    dyad terms, in/out factors, two-mode levels, dyadic covariates)."""
    out = []

    def add(g, f, exp, src="definition"):
        out.append((g, f, exp, src))

    D = G["faux.desert.high"]
    X = A(D)
    n = len(X)
    race = att(D, "race")
    rl = levels_sorted(race)
    ind, outd = X.sum(0), X.sum(1)
    X2 = X @ X

    nz = np.argwhere(X)
    ttrip = {lv: 0 for lv in rl}
    ctrip = {lv: 0 for lv in rl}
    tties = {lv: 0 for lv in rl}
    cties = {lv: 0 for lv in rl}
    for i, j in nz:
        for k in range(n):
            if race[i] == race[j] == race[k]:
                if X[j, k] and X[i, k]:
                    ttrip[race[i]] += 1
                if X[j, k] and X[k, i]:
                    ctrip[race[i]] += 1
        ks = [k for k in range(n) if race[k] == race[i] == race[j]]
        if any(X[i, k] and X[k, j] for k in ks):
            tties[race[i]] += 1
        if any(X[j, k] and X[k, i] for k in ks):
            cties[race[i]] += 1
    ctrip = {lv: v // 3 for lv, v in ctrip.items()}
    sel = rl[1:3]
    add(D, 'ttriple("race", diff=TRUE, levels=2:3)', {f"ttriple.race.{lv}": ttrip[lv] for lv in sel})
    add(D, 'ttriple("race", levels=2:3)', {"ttriple.race": sum(ttrip[lv] for lv in sel)})
    add(D, 'ctriple("race", diff=TRUE, levels=-1)', {f"ctriple.race.{lv}": ctrip[lv] for lv in rl[1:]})
    add(D, 'triangle("race", diff=TRUE, levels=I(c("B", "W")))',
        {f"triangle.race.{lv}": ttrip[lv] + ctrip[lv] for lv in ("B", "W")})
    add(D, 'transitiveties("race", levels=2)', {"transitiveties.race": tties[rl[1]]})
    add(D, 'cyclicalties("race", levels=-1)', {"cyclicalties.race": sum(cties[lv] for lv in rl[1:])})
    tcd = nx.triadic_census(D)
    # the help page names the triad types 120D, 030T, 120U, 300, but statnet's own test
    # prints transitive = ttriple = 154 on samplike: the count of transitive triples
    add(SL, 'transitive', {"transitive": 154}, "statnet test")
    M = X * X.T
    mut = {lv: sum(1 for i in range(n) for j in range(i + 1, n) if M[i, j] and race[i] == race[j] == lv)
           for lv in rl}
    add(D, 'mutual(same="race", diff=TRUE, levels=-1)', {f"mutual.same.race.{lv}": mut[lv] for lv in rl[1:]})
    add(D, 'mutual(same="race", keep=2)', {"mutual.race": mut[rl[1]]})
    byc = {lv: sum((race[i] == lv) + (race[j] == lv) for i in range(n) for j in range(i + 1, n) if M[i, j])
           for lv in rl}
    add(D, 'mutual(by="race", levels=2:3)', {f"mutual.by.race.{lv}": byc[lv] for lv in rl[1:3]})
    asy = {lv: sum(1 for i in range(n) for j in range(i + 1, n) if X[i, j] + X[j, i] == 1
                   and race[i] == race[j] == lv) for lv in rl}
    add(D, 'asymmetric("race", diff=TRUE, levels=2:3)', {f"asymmetric.race.{lv}": asy[lv] for lv in rl[1:3]})
    add(D, 'nodeifactor("race")', {f"nodeifactor.race.{lv}": sum(ind[k] for k in range(n) if race[k] == lv)
                                   for lv in rl[1:]})
    add(D, 'nodeofactor("race", levels=I(c("W", "B")))', {f"nodeofactor.race.{lv}": sum(
        outd[k] for k in range(n) if race[k] == lv) for lv in ("W", "B")})
    gr = num(D, "grade")
    add(D, 'nodeicov("grade")', {"nodeicov.grade": float(np.sum(ind * gr))})
    add(D, 'nodeocov(~grade>9)', {"nodeocov.grade>9": float(np.sum(outd * (gr > 9)))})
    add(D, 'idegree(1:2, by="race", homophily=TRUE)', {f"ideg{d}.homophily.race": int(np.sum(
        np.array([sum(X[j, i] for j in range(n) if race[j] == race[i]) for i in range(n)]) == d))
        for d in (1, 2)})
    add(D, 'odegree(0, by="race", levels=I("W"))', {"odeg0.raceW": sum(
        1 for k in range(n) if outd[k] == 0 and race[k] == "W")})
    add(D, 'istar(2, "race")', {"istar2.race": float(sum(
        math.comb(int(sum(X[j, i] for j in range(n) if race[j] == race[i])), 2) for i in range(n)))})
    two = float(sum(X2[i, k] for i in range(n) for k in range(n) if i != k))
    add(D, 'm2star', {"m2star": two})
    add(D, 'twopath', {"twopath": two})
    add(D, 'triadcensus(c("030T", "300"))', {"triadcensus.030T": tcd["030T"], "triadcensus.300": tcd["300"]})
    add(D, 'threetrail(keep=c(1, 4))', None)
    # dyadic covariates given as a network attribute (statnet: a matrix in the formula's environment)
    C = np.arange(n * n, dtype=float).reshape(n, n) % 7
    D.graph["C"] = C
    add(D, 'edgecov("C")', {"edgecov.C": float(np.sum(X * C))})
    Cs = ((C + C.T) > 6).astype(float)
    np.fill_diagonal(Cs, 0)
    D.graph["Cs"] = Cs
    add(D, 'hamming("Cs")', {"hamming.Cs": float(np.sum(X != Cs) - 0)})
    # a symmetric covariate: the help page does not say which of x_ij, x_ji a dyad takes
    add(D, 'dyadcov("Cs")', {"dyadcov.Cs.mutual": float(sum(Cs[i, j] for i in range(n) for j in range(
        i + 1, n) if X[i, j] and X[j, i])), "dyadcov.Cs.utri": float(sum(
            Cs[i, j] for i in range(n) for j in range(i + 1, n) if X[i, j] and not X[j, i])),
        "dyadcov.Cs.ltri": float(sum(Cs[i, j] for i in range(n) for j in range(i + 1, n)
                                     if X[j, i] and not X[i, j]))})
    U = A(FMH)
    nu = len(U)
    Nb = np.zeros((nu, nu))
    gradef = att(FMH, "Grade")
    for i in range(nu):
        for j in range(nu):
            Nb[i, j] = float(i != j and abs(gradef[i] - gradef[j]) <= 1)
    FMH.graph["near"] = Nb
    add(FMH, 'localtriangle("near")', {"localtriangle.near": float(sum(
        1 for a, b, c in itertools.combinations(range(nu), 3) if U[a, b] and U[a, c] and U[b, c]
        and Nb[a, b] and Nb[a, c] and Nb[b, c]))})
    add(FMH, 'attrcov("Sex", matrix(c(1, 2, 2, 5), 2, 2))', {"attrcov.Sex": float(sum(
        {("F", "F"): 1, ("F", "M"): 2, ("M", "F"): 2, ("M", "M"): 5}[(att(FMH, "Sex")[i], att(FMH, "Sex")[j])]
        for i, j in pairs(FMH)))})
    degU = U.sum(1)
    nbr_rng = [np.ptp([gradef[j] for j in range(nu) if U[i, j]]) if degU[i] > 0 else 0 for i in range(nu)]
    add(FMH, 'nodecovrange("Grade")', {"nodecovrange.Grade": float(np.sum(nbr_rng))})
    add(FMH, 'opentriad', {"opentriad": float(np.sum(degU * (degU - 1) / 2) -
                                              3 * sum(nx.triangles(FMH).values()) / 3)})
    add(FMH, 'degree1.5', {"degree1.5": float(np.sum(degU ** 1.5))})
    lam = 2.0
    add(FMH, 'altkstar(2, fixed=TRUE)', {"altkstar.2": float(sum(
        (-1) ** k * np.sum([math.comb(int(d), k) for d in degU]) / lam ** (k - 2) for k in range(2, int(degU.max()) + 1)))})
    ed = [(degU[i], degU[j]) for i, j in pairs(FMH)]
    # half the mean over ties of d_i d_j: statnet 4.4's value (its reference run), though
    # the help page says "the mean"
    add(FMH, 'degcrossprod', {"degcrossprod": float(np.mean([a * b for a, b in ed])) / 2},
        "statnet 4.4 reference")
    # two-mode
    Bn = G["davis"]
    Db = A(Bn)
    n1 = 18
    Bm = Db[:n1, n1:]
    grp = [Bn.nodes[v]["group"] for v in list(Bn.nodes)[:n1]]
    gl = levels_sorted(grp)
    add(Bn, 'b1factor("group", levels=TRUE)', {f"b1factor.group.{lv}": float(sum(
        Bm[i].sum() for i in range(n1) if grp[i] == lv)) for lv in gl})
    add(Bn, 'b1factor("group", base=2)', {f"b1factor.group.{lv}": float(sum(
        Bm[i].sum() for i in range(n1) if grp[i] == lv)) for lv in gl if lv != gl[1]})
    add(Bn, 'b1concurrent(by="group")', {f"b1concurrent.group{lv}": sum(
        1 for i in range(n1) if grp[i] == lv and Bm[i].sum() >= 2) for lv in gl})
    add(Bn, 'b2degree(3:4)', {f"b2degree{d}": int(np.sum(Bm.sum(0) == d)) for d in (3, 4)})
    add(Bn, 'gwb1dsp(0.5, fixed=TRUE)', {"gwb1dsp.fixed.0.5": gw((Bm @ Bm.T)[np.triu_indices(n1, 1)], 0.5)})
    add(Bn, 'gwb2dsp(0.5, fixed=TRUE)', {"gwb2dsp.fixed.0.5": gw((Bm.T @ Bm)[np.triu_indices(Bm.shape[1], 1)], 0.5)})
    add(Bn, 'b1mindegree(3)', None)
    # the curved two-mode gw* terms have statnet's curved pair of coefficients (session 6;
    # before: one linear coefficient per count). A cut-off below the observed counts warns.
    # Project(): CMP = sum over projected dyads of log(y!) (session 6; was refused)
    y1 = (Bm @ Bm.T)[np.triu_indices(n1, 1)]
    add(Bn, 'Proj1(~CMP)', {"Proj1~CMP": float(sum(math.lgamma(v + 1) for v in y1))})
    # Project(): nodecovar (session 6b; was refused): sum_i sum_{j<k} z_ij z_ik / (n - 2),
    # z the projected values centred by their mean over the dyads (its help page)
    Y1 = Bm @ Bm.T
    Z1 = Y1 - Y1[~np.eye(n1, dtype=bool)].mean()
    cov1 = sum((Z1[i, np.arange(n1) != i].sum() ** 2 - (Z1[i, np.arange(n1) != i] ** 2).sum())
               / 2 / (n1 - 2) for i in range(n1))
    add(Bn, 'Proj1(~nodecovar(TRUE))', {"Proj1~nodecovar": float(cov1)})
    # S() on a two-mode network: tails of mode 1, heads of mode 2, indices within each mode
    # (its help: "recycled to ... the size of the appropriate bipartition"; session 6b)
    add(Bn, 'S(~edges, c(1, 2, 3, 4, 5) ~ c(1, 2, 3, 4))', {
        "S(c(1,2,3,4,5)~c(1,2,3,4))~edges": float(Bm[:5, :4].sum())})
    b2sp = (Bm.T @ Bm)[np.triu_indices(Bm.shape[1], 1)]
    out.append((Bn, 'gwb2dsp(cutoff=3)', {f"b2dsp#{k}": int(np.sum(b2sp == k)) for k in (1, 2, 3)},
                "definition; coefficients curved", ["gwb2dsp", "gwb2dsp.decay"]))
    out.append((Bn, 'gwb1degree(fixed=FALSE)', {f"gwb1degree#{k}": int(np.sum(Bm.sum(1) == k))
                                                for k in range(1, 15)},
                "statnet 4.4 reference; coefficients curved", ["gwb1degree", "gwb1degree.decay"]))
    add(Bn, 'b1factor("group", levels=LARGEST)', {f"b1factor.group.{lv}": float(sum(
        Bm[i].sum() for i in range(n1) if grp[i] == lv)) for lv in gl
        if lv == sorted(gl, key=lambda v: grp.count(v))[-1]})
    return out


# ---------------------------------------------------------------------------------------

def check(g, f, exp, coef_labels=None):
    try:
        m = ef.ERGM(g, f)
        st = m.statistics()
    except Exception as exc:          # noqa: BLE001 - the audit records any refusal
        return False, None, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:90]}", {}
    labels, vals = list(st), np.array(list(st.values()), dtype=float)
    if coef_labels is not None and m.labels != coef_labels:      # the coefficients' names
        return True, None, False, f"coefficients {m.labels}", st
    if exp is None:
        return True, None, None, "", st
    if isinstance(exp, dict):
        ev = np.array(list(exp.values()), dtype=float)
        label_ok = labels == list(exp)
    else:
        ev = np.atleast_1d(np.array(exp, dtype=float))
        label_ok = None
    value_ok = len(ev) == len(vals) and np.allclose(vals, ev, rtol=1e-6, atol=1e-6)
    return True, bool(value_ok), label_ok, "", st


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--failures", action="store_true", help="print only rows that fail")
    args = ap.parse_args(argv)
    rows = cases()
    names = {id(v): k for k, v in G.items()}
    n_acc = n_val = n_lab = n_lab_known = n_val_known = 0
    n_pass = 0
    print(f"{'network':15s} {'usage':62s} acc  value label  source / note")
    for g, f, exp, src, *coef in rows:       # coef: the coefficients' names, where checked
        acc, vok, lok, err, st = check(g, f, exp, *coef)
        n_acc += acc
        if vok is not None:
            n_val_known += 1
            n_val += vok
        if lok is not None:
            n_lab_known += 1
            n_lab += lok
        ok = acc and vok is not False and lok is not False
        n_pass += ok
        if args.failures and ok:
            continue
        mark = lambda b: "-" if b is None else ("yes" if b else "NO")   # noqa: E731
        note = err or src
        if acc and (vok is False or lok is False):
            note += f"  got {dict(list(st.items())[:4])}"
        print(f"{names[id(g)]:15s} {f[:62]:62s} {mark(acc):4s} {mark(vok):5s} {mark(lok):5s}  {note}")
    print(f"\n{len(rows)} usages: {n_acc} accepted, values {n_val}/{n_val_known} equal, "
          f"labels {n_lab}/{n_lab_known} equal; {n_pass} pass every check")


if __name__ == "__main__":
    main()
