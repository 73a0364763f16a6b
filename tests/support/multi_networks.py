"""The ergm.multi reference networks: samplk3w (Sampson's three waves as three networks,
network attribute wave = 1, 2, 3) and lazega2l (Lazega's advice and friendship layers)."""
import csv

import networkx as nx

import ergmfit as ef
from support.paths import REFERENCE


def samplk3w():
    return ef.Networks([ef.datasets.load(f"samplk{k}") for k in (1, 2, 3)],
                       attrs={"wave": [1, 2, 3]})


def lazega_multiplex():
    """The Lazega multiplex as one DiGraph whose edges carry 0/1 attributes advice,
    coworker, friendship."""
    g = nx.DiGraph()
    with open(REFERENCE / "families" / "lazega.multiplex.nodes.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            i = int(row.pop("id"))
            g.add_node(i, **{k: (int(v) if k in ("age", "seniority", "yrs_frm") else v)
                             for k, v in row.items()})
    with open(REFERENCE / "families" / "lazega.multiplex.edges.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            g.add_edge(int(row["source"]), int(row["target"]),
                       **{k: int(row[k]) for k in ("advice", "coworker", "friendship")})
    return g


def lazega2l():
    return ef.Layer(lazega_multiplex(), ["advice", "friendship"])


DATASETS = {"samplk3w": samplk3w, "lazega2l": lazega2l}
