"""Regenerate ``docs/errors.md``: the errors a user can meet, each triggered for real.

Run from the repository root::

    python docs/make_errors_table.py            # rewrites docs/errors.md
    python docs/make_errors_table.py --check    # exit 1 if docs/errors.md is out of date

Every entry of :data:`CASES` is a few lines of user code.  The script runs
each one, records the exception (or warning, or command-line error) it
produces and its exact message, checks that the message contains the
entry's key phrase, and writes the table.  ``tests/front/test_docs.py`` reads
the table back and checks that every listed case still raises the
documented class with a message containing the documented key phrase.

Code runs with ``ef`` (ergmfit), ``nx`` (networkx), ``np`` (numpy) and
``tmp`` (a fresh temporary directory, a ``pathlib.Path``) defined.
"""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass

HERE = pathlib.Path(__file__).resolve().parent
TARGET = HERE / "errors.md"


@dataclass(frozen=True)
class Case:
    """One way to get an error.

    ``kind`` is "error" (an exception escapes), "warning" (a warning is
    issued) or "cli" (``code`` is a command line; the error is the
    ``ergmfit: error: ...`` line and exit status 2).
    """

    id: str
    section: str
    situation: str
    code: str
    expect: str          # exception / warning class name, or "exit 2" for the CLI
    phrase: str          # a key phrase the message must contain
    kind: str = "error"


S_FORMULA = "Formulas"
S_TERMS = "Terms and their arguments"
S_NETWORK = "Networks"
S_FILES = "Files and tables"
S_FIT = "Fitting, simulation, goodness of fit"
S_OTHER = "Plots, results files, datasets"
S_CLI = "Command line"
S_MRF = "Markov random fields"

CASES = [
    # -- formulas -------------------------------------------------------------
    Case("empty-formula", S_FORMULA, "An empty formula",
         'ef.ERGM("flomarriage", "")', "FormulaError", "the formula is empty"),
    Case("missing-plus", S_FORMULA, "Two terms without `+`",
         'ef.ERGM("flomarriage", "edges triangle")', "FormulaError",
         "expected '+' between terms"),
    Case("double-plus", S_FORMULA, "A `+` too many",
         'ef.ERGM("flomarriage", "edges + + triangle")', "FormulaError",
         "expected a term name"),
    Case("unclosed-parenthesis", S_FORMULA, "A parenthesis not closed",
         'ef.ERGM("flomarriage", "edges + gwesp(0.25, fixed=TRUE")', "FormulaError",
         "expected ')', found the end"),
    Case("bad-character", S_FORMULA, "A character no formula uses",
         'ef.ERGM("flomarriage", "edges + trïangle")', "FormulaError",
         "unexpected character"),
    Case("unknown-function", S_FORMULA, "A function other than log, exp, sqrt, c, I",
         'ef.ERGM("flomarriage", "edges + gwesp(ln(2), fixed=TRUE)")', "FormulaError",
         "unknown function 'ln'"),
    Case("undefined-value", S_FORMULA, "An undefined value (log of a negative number)",
         'ef.ERGM("flomarriage", "edges + gwesp(log(-1), fixed=TRUE)")', "FormulaError",
         "is undefined"),
    Case("division-by-zero", S_FORMULA, "Division by zero in an argument",
         'ef.ERGM("flomarriage", "edges + gwesp(1/0, fixed=TRUE)")', "FormulaError",
         "division by zero"),
    Case("fractional-range", S_FORMULA, "A range `a:b` of non-whole numbers",
         'ef.ERGM("flomarriage", "edges + degree(0.5:2)")', "FormulaError",
         "a range a:b needs whole numbers"),
    Case("formula-too-deep", S_FORMULA, "Parentheses nested more than 50 deep",
         'ef.ERGM("flomarriage", "kstar(" + "(" * 200 + "2" + ")" * 200 + ")")', "FormulaError",
         "nests more than 50 levels deep"),
    Case("number-too-large", S_FORMULA, "A number beyond the range of floating-point numbers",
         'ef.ERGM("flomarriage", "edges + kstar(1e308 * 10)")', "FormulaError",
         "is too large"),
    Case("range-expansion", S_FORMULA, "Ranges that expand to more than a million numbers",
         'ef.ERGM("flomarriage", "degree(c(" + ",".join(["0:999999"] * 40) + "))")',
         "FormulaError", "expand to more than 1,000,000 numbers"),
    Case("bad-escape", S_FORMULA, "A backslash escape that is not one (`\\x`, `\\N{bogus}`)",
         'ef.ERGM("flomarriage", r"nodematch(\'name\\x\')")', "FormulaError",
         "incomplete escape"),
    Case("lookalike-digit", S_FORMULA, "A look-alike Unicode digit (`𝟐`) where a number goes",
         'ef.ERGM("flomarriage", "kstar(\U0001d7d0)")', "FormulaError",
         "unexpected character"),
    Case("repeated-statistic", S_FORMULA, "Coefficients given as a dict when a label "
         "repeats (statnet allows repeated labels; a dict cannot tell them apart)",
         'ef.ERGM("flomarriage", "edges + Label(~triangle, \'edges\', \'replace\')")'
         '.simulate({"edges": -1.5})', "SettingsError", "cannot say which is which"),
    Case("formula-not-string", S_FORMULA, "A formula that is not a string",
         'ef.ERGM("flomarriage", ["edges"])', "FormulaError", "a formula must be a string"),
    Case("lhs-not-the-network", S_FORMULA, "A left-hand side other than the dataset's name",
         'ef.ERGM("flomarriage", "lazega ~ edges")', "FormulaError",
         "is not the network's name"),
    Case("lhs-term-name", S_FORMULA, "A term's name as left-hand side (`edges ~ triangle`: "
         "a `+` typed as `~`)",
         'ef.ERGM(nx.florentine_families_graph(), "edges ~ triangle")', "FormulaError",
         "is a term, not a network's name"),
    # -- terms -----------------------------------------------------------------
    Case("unknown-term", S_TERMS, "A misspelt term",
         'ef.ERGM("flomarriage", "edges + triangel")', "TermError",
         "unknown term 'triangel'"),
    Case("unknown-argument", S_TERMS, "A misspelt argument name",
         'ef.ERGM("flomarriage", "edges + gwesp(0.25, fixd=TRUE)")', "TermError",
         "unknown argument 'fixd'"),
    Case("too-many-arguments", S_TERMS, "Too many arguments",
         'ef.ERGM("flomarriage", "edges + kstar(2, 3, 4, 5)")', "TermError", "takes at most"),
    Case("missing-argument", S_TERMS, "A required argument left out",
         'ef.ERGM("flomarriage", "edges + nodecov()")', "TermError",
         "missing argument 'attr'"),
    Case("argument-given-twice", S_TERMS, "An argument given by position and by name",
         'ef.ERGM("flomarriage", "edges + kstar(2, k=3)")', "TermError", "given twice"),
    Case("wrong-argument-type", S_TERMS, "An argument of the wrong type",
         'ef.ERGM("flomarriage", "edges + gwesp(0.25, fixed=\'yes\')")', "TermError",
         "fixed must be True or False"),
    Case("argument-out-of-range", S_TERMS, "An argument out of its range",
         'ef.ERGM("flomarriage", "edges + kstar(-1)")', "TermError", "k must be at least"),
    Case("curved-decay-negative", S_TERMS, "A negative decay (fixed or the start of a curved term)",
         'ef.ERGM("flomarriage", "edges + gwesp(-0.5)")', "TermError",
         "decay must be at least 0"),
    Case("directed-term-undirected-graph", S_TERMS,
         "A directed-only term on an undirected network",
         'ef.ERGM("flomarriage", "edges + mutual")', "TermError",
         "is for directed networks"),
    Case("undirected-term-directed-graph", S_TERMS,
         "An undirected-only term on a directed network",
         'ef.ERGM("samplike", "edges + kstar(2)")', "TermError",
         "use ostar(k) (out-stars) or istar(k)"),
    Case("missing-attribute", S_TERMS, "A node attribute the network does not have",
         'ef.ERGM("flomarriage", "edges + nodecov(\'age\')")', "TermError",
         "has no node attribute 'age'"),
    Case("non-numeric-attribute", S_TERMS, "A text attribute where a number is needed",
         'ef.ERGM("faux.mesa.high", "edges + nodecov(\'Race\')")', "TermError",
         "use nodefactor('Race')"),
    Case("nan-attribute", S_TERMS, "An attribute with missing values (None / NaN)",
         'g = nx.path_graph(3)\n'
         'nx.set_node_attributes(g, {0: 1.0, 1: float("nan"), 2: 3.0}, "age")\n'
         'ef.ERGM(g, "edges + nodecov(\'age\')")',
         "TermError", "is missing (None/NaN)"),
    Case("level-out-of-range", S_TERMS, "A level index that does not exist",
         'ef.ERGM("flomarriage", "edges + nodematch(\'wealth\', levels=c(999))")',
         "TermError", "out of range"),
    Case("missing-edge-covariate", S_TERMS, "`edgecov` of a matrix the network does not hold",
         'ef.ERGM("flomarriage", "edges + edgecov(\'x\')")', "TermError",
         "no network attribute or edge attribute 'x'"),
    Case("nodemix-too-many-cells", S_TERMS, "`nodemix` on an attribute with thousands of "
         "levels",
         'g = nx.empty_graph(1000)\nnx.set_node_attributes(g, {v: str(v) for v in g}, "a")\n'
         'ef.ERGM(g, \'nodemix("a")\')', "TermError", "cells are supported"),
    Case("operators-too-deep", S_TERMS, "Operator terms nested more than 50 deep",
         'ef.ERGM("flomarriage", "Sum(~" * 60 + "edges" + ", \\"x\\")" * 60)', "TermError",
         "more than 50 levels deep"),
    Case("node-expression-index", S_TERMS, "`x[k]` in a node expression outside 1..n",
         'ef.ERGM("faux.mesa.high", "S(~edges, ~Grade[1e20] > 1)")', "TermError",
         "must be a whole number from 1 to 205"),
    Case("label-regex-unsupported", S_TERMS, "A `gsub` pattern outside the supported "
         "regular expressions (back-references, look-arounds, `(a*)*`)",
         'ef.ERGM("flomarriage", \'Label(~edges, ~gsub("(a*)*", "x", .))\')', "TermError",
         "can match the empty text"),
    Case("label-too-much-work", S_TERMS, "A label function that would build huge labels or "
         "match for too long",
         'ef.ERGM("flomarriage", "Label(~edges, ~" + \'gsub("", "xyzw", \' * 7 + "."\n'
         '        + ")" * 7 + ")")', "TermError", "the label function"),
    Case("label-not-a-string", S_TERMS, "A number as an operator's label (`Sum`, `Prod`)",
         'ef.ERGM("flomarriage", "Prod(~edges, 0)")', "TermError", "label must be a string"),
    Case("passthrough-label", S_TERMS, "`Passthrough(label=)` other than TRUE/FALSE (statnet's "
         "logical: TRUE names the statistics `Passthrough~<name>`)",
         'ef.ERGM("flomarriage", \'Passthrough(~edges, label="x")\')', "TermError",
         "label must be TRUE or FALSE"),
    Case("empty-interval", S_TERMS, "A valued term whose statistic is constant whatever the "
         "values (`ininterval(3, 1)`, `sum(pow=0)`)",
         'g = nx.DiGraph([(0, 1, {"n": 2}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "ininterval(3, 1)", response="n")', "TermError", "is empty"),
    Case("count-binary-term", S_TERMS, "A binary term in a count-valued model (a triangle "
         "count needs a binary network: statnet's `B()` gives one)",
         'g = nx.DiGraph([(0, 1, {"n": 2}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "sum + ttriple", response="n")', "TermError",
         "B(~ttriple, form='nonzero')"),
    Case("count-b-sum-dependent", S_TERMS, "`B(~f, form=\"sum\")` over a dyad-dependent "
         "term (Σ x_ij y_ij needs dyad-independent terms, statnet's rule)",
         'g = nx.DiGraph([(0, 1, {"n": 2}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "sum + B(~ttriple, form=\'sum\')", response="n")', "TermError",
         "needs dyad-independent terms"),
    Case("offset-inside-n", S_TERMS, "`offset()` inside `N()`'s formula (refused, as "
         "ergm.multi does: its coefficients are the `lm=` design's combinations)",
         'nets = ef.Networks([nx.path_graph(5), nx.cycle_graph(6)])\n'
         'ef.ERGM(nets, "N(~edges + offset(triangle))")', "TermError",
         "offset(N(~term))"),
    # -- networks ---------------------------------------------------------------
    Case("no-nodes", S_NETWORK, "A graph without nodes",
         'ef.ERGM(nx.Graph(), "edges")', "NetworkError", "the network has no nodes"),
    Case("self-loops", S_NETWORK, "Self-loops",
         'g = nx.path_graph(3)\ng.add_edge(1, 1)\nef.ERGM(g, "edges")',
         "NetworkError", "self-loop"),
    Case("multigraph", S_NETWORK, "A multigraph (repeated ties)",
         'ef.ERGM(nx.MultiGraph([(0, 1), (0, 1)]), "edges")', "NetworkError",
         "multigraphs are not supported"),
    Case("edge-weights", S_NETWORK, "Edge weights other than 1",
         'ef.ERGM(nx.Graph([(0, 1, {"weight": 2})]), "edges")', "NetworkError",
         "edge weights other than 1"),
    Case("directedness-mismatch", S_NETWORK, "`directed=` contradicting the graph",
         'ef.ERGM(nx.DiGraph([(0, 1), (1, 0)]), "edges", directed=False)', "NetworkError",
         "directedness is never converted silently"),
    Case("matrix-directedness", S_NETWORK, "An adjacency matrix without `directed=`",
         'ef.ERGM(np.array([[0, 1], [1, 0]]), "edges")', "NetworkError",
         "does not say whether the network is directed"),
    Case("matrix-asymmetric", S_NETWORK, "An asymmetric matrix declared undirected",
         'ef.ERGM(np.array([[0, 1], [0, 0]]), "edges", directed=False)', "NetworkError",
         "is not symmetric"),
    Case("matrix-not-square", S_NETWORK, "A matrix that is not square",
         'ef.ERGM(np.zeros((2, 3)), "edges", directed=False)', "NetworkError",
         "must be square"),
    Case("matrix-masked", S_NETWORK, "A masked numpy matrix with masked entries (the "
         "values under the mask are not read as ties)",
         'ef.ERGM(np.ma.masked_array([[0, 1], [1, 0]], mask=[[0, 1], [0, 0]]), "edges", '
         'directed=True)', "NetworkError", "ergmfit does not read masks"),
    Case("count-value-not-integer", S_NETWORK, "A count-valued model's edge value that is "
         "not a whole number (or negative, or outside the reference's values)",
         'g = nx.DiGraph([(0, 1, {"n": 2.5}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "sum", response="n", reference="Poisson")', "NetworkError",
         "needs integer values"),
    Case("matrix-weights", S_NETWORK, "A matrix with values other than 0/1",
         'ef.ERGM(np.array([[0, 2], [2, 0]]), "edges", directed=False)', "NetworkError",
         "non-binary value"),
    Case("matrix-diagonal", S_NETWORK, "A matrix with a nonzero diagonal",
         'ef.ERGM(np.array([[1, 1], [1, 0]]), "edges", directed=False)', "NetworkError",
         "nonzero diagonal entry"),
    Case("unknown-network-name", S_NETWORK, "A dataset name or path that does not exist",
         'ef.ERGM("flomariage", "edges")', "NetworkError",
         "is neither a bundled dataset nor an existing file"),
    Case("dataframe-directedness", S_NETWORK, "A pandas edge list without `directed=`",
         'import pandas as pd\n'
         'ef.ERGM(pd.DataFrame({"from": [1, 2], "to": [2, 3]}), "edges")',
         "NetworkError", "does not say whether the network is directed"),
    Case("dataframe-one-column", S_NETWORK, "A pandas edge list with one column",
         'import pandas as pd\n'
         'ef.ERGM(pd.DataFrame({"from": [1, 2]}), "edges", directed=True)',
         "DataFormatError", "needs at least two columns"),
    # -- files ------------------------------------------------------------------
    Case("csv-directedness", S_FILES, "An edge-list CSV without `directed=`",
         '(tmp / "ties.csv").write_text("source,target\\n1,2\\n2,3\\n")\n'
         'ef.read_network(tmp / "ties.csv")',
         "NetworkError", "does not say whether the network is directed"),
    Case("csv-ragged", S_FILES, "A CSV line with too few fields",
         '(tmp / "ties.csv").write_text("source,target\\n1,2\\n3\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=False)',
         "DataFormatError", "line 3: expected 2 field(s)"),
    Case("csv-empty", S_FILES, "An empty file",
         '(tmp / "ties.csv").write_text("")\n'
         'ef.read_network(tmp / "ties.csv", directed=True)',
         "DataFormatError", "is empty"),
    Case("csv-not-utf8", S_FILES, "A file that is not UTF-8",
         '(tmp / "ties.csv").write_bytes(b"source,target\\n\\xff,2\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=True)',
         "DataFormatError", "not UTF-8 text"),
    Case("csv-duplicate-tie", S_FILES, "A tie listed twice",
         '(tmp / "ties.csv").write_text("source,target\\n1,2\\n2,3\\n1,2\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=True)',
         "NetworkError", "repeats the tie"),
    Case("csv-pair-both-ways", S_FILES, "An undirected pair listed both ways with different "
         "values",
         '(tmp / "ties.csv").write_text("source,target,value\\n1,2,3\\n2,1,5\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=False)',
         "NetworkError", "the other way round with a different"),
    Case("csv-self-loop", S_FILES, "A self-loop in a file",
         '(tmp / "ties.csv").write_text("source,target\\n1,1\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=True)',
         "NetworkError", "self-loop"),
    Case("csv-weights", S_FILES, "A `weight` column with values other than 1",
         '(tmp / "ties.csv").write_text("source,target,weight\\n1,2,0.5\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=True)',
         "NetworkError", "is not 1"),
    Case("csv-node-missing", S_FILES, "An edge-list node missing from the node file",
         '(tmp / "ties.csv").write_text("source,target\\n1,2\\n")\n'
         '(tmp / "nodes.csv").write_text("id,age\\n1,30\\n")\n'
         'ef.read_network(tmp / "ties.csv", directed=True, nodes=tmp / "nodes.csv")',
         "NetworkError", "are not in the node file"),
    Case("graphml-malformed", S_FILES, "A malformed GraphML file",
         '(tmp / "g.graphml").write_text("<graphml><graph")\n'
         'ef.read_network(tmp / "g.graphml")',
         "DataFormatError", "is not a valid GraphML file"),
    Case("gml-malformed", S_FILES, "A GML file with an edge to an undefined node",
         '(tmp / "g.gml").write_text("graph [ node [ id 1 ] edge [ source 1 target 9 ] ]")\n'
         'ef.read_network(tmp / "g.gml")',
         "DataFormatError", "is not a valid GML file"),
    Case("pajek-vertex-range", S_FILES, "A Pajek tie to a vertex beyond `*vertices N`",
         '(tmp / "g.net").write_text("*Vertices 3\\n*Arcs\\n1 4\\n")\n'
         'ef.read_network(tmp / "g.net")',
         "DataFormatError", "is outside 1..3"),
    Case("pajek-no-vertices", S_FILES, "A Pajek file without `*vertices`",
         '(tmp / "g.net").write_text("*Arcs\\n1 2\\n")\n'
         'ef.read_network(tmp / "g.net")',
         "DataFormatError", "before *vertices"),
    Case("unknown-extension", S_FILES, "A file extension ergmfit does not know",
         '(tmp / "g.xyz").write_text("1 2\\n")\n'
         'ef.read_network(tmp / "g.xyz")',
         "NetworkError", "cannot tell the format"),
    Case("missing-file", S_FILES, "A file that does not exist",
         'ef.read_network(tmp / "nosuch.csv", directed=True)',
         "DataFormatError", "no such file"),
    Case("csv-invisible-character", S_FILES, "An invisible character (a byte-order mark or NUL "
         "in the middle of the file) in a node id",
         '(tmp / "ties.csv").write_text("source,target\\n1,2\\n\\ufeff1,3\\n", encoding="utf-8")\n'
         'ef.read_network(tmp / "ties.csv", directed=True)',
         "DataFormatError", "contains an invisible character"),
    Case("decompression-cap", S_FILES, "A compressed file that expands beyond "
         "`ergmfit.network.io.MAX_DECOMPRESSED_BYTES` (1 GiB)",
         'import gzip\n'
         'ef.network.io.MAX_DECOMPRESSED_BYTES = 2 ** 20    # 1 MiB, for the example\n'
         'try:\n'
         '    (tmp / "ties.csv.gz").write_bytes(gzip.compress(b"source,target\\n" + b"1,2\\n" * 10 ** 6))\n'
         '    ef.read_network(tmp / "ties.csv.gz", directed=True)\n'
         'finally:\n'
         '    ef.network.io.MAX_DECOMPRESSED_BYTES = 2 ** 30',
         "DataFormatError", "when decompressed"),
    Case("graphml-undeclared-node", S_FILES, "A GraphML edge to a node the file does not declare",
         '(tmp / "g.graphml").write_text(\'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\'\n'
         '    \'<graph edgedefault="undirected"><node id="a"/><edge source="a" target="b"/>\'\n'
         '    \'</graph></graphml>\')\n'
         'ef.read_network(tmp / "g.graphml")',
         "NetworkError", "is not declared as a <node>"),
    Case("graphml-duplicate-tie", S_FILES, "A GraphML tie listed twice",
         '(tmp / "g.graphml").write_text(\'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\'\n'
         '    \'<graph edgedefault="directed"><node id="a"/><node id="b"/>\'\n'
         '    \'<edge source="a" target="b"/><edge source="a" target="b"/></graph></graphml>\')\n'
         'ef.read_network(tmp / "g.graphml")',
         "NetworkError", "repeats the tie"),
    Case("too-many-nodes", S_NETWORK, "A network with more nodes than ergmfit handles (10 million)",
         'import scipy.sparse as sp\n'
         'ef.as_network(sp.coo_matrix((2 ** 40, 2 ** 40)), directed=True)',
         "NetworkError", "more than ergmfit handles"),
    # -- fitting ----------------------------------------------------------------
    Case("empty-graph", S_FIT,
         "Fitting a network without ties: 'edges' is at its smallest value, so its estimate is "
         "-Inf (a warning; statnet's summary names it too)",
         'ef.ERGM(nx.empty_graph(5), "edges").fit(method="mple")',
         "ConvergenceWarning", "is at its smallest attainable value", kind="warning"),
    Case("diverging-combination", S_FIT,
         "Only a combination of coefficients diverges (every tie within a group: edges -> "
         "-Inf and nodematch -> +Inf together); a single statistic at its extreme is fitted "
         "with a -Inf or +Inf estimate instead, as statnet does",
         'g = nx.Graph()\ng.add_nodes_from(range(6))\n'
         'nx.set_node_attributes(g, {i: i % 2 for i in range(6)}, "g")\n'
         'g.add_edges_from([(0, 2), (1, 3), (2, 4)])\n'
         'ef.ERGM(g, "edges + nodematch(\'g\')").fit(method="mple")',
         "DegenerateModelError", "does not exist"),
    Case("dyad-dependent-extreme", S_FIT,
         "A dyad-dependent statistic at its extreme (no triangles, triangle term): its "
         "estimate is -Inf and the others are fitted on the triangle-free networks, as statnet "
         "does (a warning)",
         'ef.ERGM(nx.cycle_graph(6), "edges + triangle").fit(method="mple")',
         "ConvergenceWarning", "is at its smallest attainable value", kind="warning"),
    Case("separation", S_FIT,
         "A combination of statistics at its extreme (the path on 8 nodes: no triangle, and "
         "the fewest two-stars a triangle-free network with its ties has), which statnet does "
         "not fit either",
         'ef.ERGM(nx.path_graph(8), "edges + kstar(2) + triangle").fit(method="mple")',
         "DegenerateModelError", "the maximum pseudo-likelihood estimate does not exist"),
    Case("no-variation", S_FIT, "A statistic that cannot change",
         'ef.ERGM("flomarriage", "edges + degree(20)").fit(method="mple")',
         "DegenerateModelError", "has no variation"),
    Case("constant-value-statistic", S_FIT, "A count statistic the same for every value "
         "the reference allows (`atleast(-1)` under Poisson; `Proj1(~atleast(0))`, also "
         "inside operators: `Label(~Proj1(~atleast(0)), \"x\")`)",
         'g = nx.DiGraph([(0, 1, {"n": 2}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "sum + atleast(-1)", response="n", reference="Poisson").fit(method="cd")',
         "DegenerateModelError", "the same for every dyad value"),
    Case("constant-b-criterion", S_FIT, "`B()` over a value criterion no allowed value "
         "passes (or every one does): `B(~edges, form=~atleast(3))` under `Binomial(2)` "
         "(its binary network is always empty), refused by every estimator",
         'g = nx.DiGraph([(0, 1, {"n": 2}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "sum + B(~edges, form=~atleast(3))", response="n",\n'
         '        reference="Binomial(2)").fit(method="cd")',
         "DegenerateModelError", "the same for every dyad value the reference Binomial(2)"),
    Case("count-start-outside-space", S_FIT, "A count chain started (`start=`) with a value "
         "on a dyad its sample space does not hold (within a mode of a two-mode network)",
         'g = nx.Graph()\n'
         'g.add_nodes_from([0, 1], bipartite=0); g.add_node(2, bipartite=1)\n'
         'g.add_edge(0, 2, n=1)\n'
         'ef.ERGM(g, "sum", response="n").sampler([0.0], start=(np.array([[0, 1]]), '
         'np.array([2])))',
         "ValueError", "lies outside the model's sample space"),
    Case("count-infinite-offset-unbounded", S_FIT, "An infinite offset coefficient (a "
         "structural zero) in the count MPLE, or MCMC-MLE's start, under an unbounded "
         "reference (Poisson, Geometric): bounded references and CD take it",
         'g = nx.DiGraph([(0, 1, {"n": 2}), (1, 2, {"n": 1})])\n'
         'ef.ERGM(g, "sum + offset(atleast(3))", response="n",\n'
         '        reference="Poisson").fit(method="mple", offset_coef=[-np.inf])',
         "SettingsError", "does not take an infinite offset coefficient"),
    Case("collinear", S_FIT, "Statistics that are combinations of each other",
         'ef.ERGM("flomarriage", "edges + kstar(1)").fit(method="mple")',
         "DegenerateModelError", "linearly dependent"),
    Case("degenerate-mcmc", S_FIT, "A degenerate model (sample stuck at the complete graph)",
         'm = ef.ERGM("flomarriage", "edges + triangle")\n'
         'm.fit(method="mcmle", init=[5.0, 5.0], random_state=1, verbose=False)',
         "DegenerateModelError", "Try geometrically weighted terms"),
    Case("not-converged", S_FIT, "MCMC-MLE stopped before convergence (a warning)",
         'm = ef.ERGM("flomarriage", "edges + triangle")\n'
         'm.fit(method="mcmle", maxit=1, random_state=1, verbose=False)',
         "ConvergenceWarning", "did not converge", kind="warning"),
    Case("unknown-method", S_FIT, "An estimator that does not exist",
         'ef.ERGM("flomarriage", "edges").fit(method="mpl")', "SettingsError",
         "unknown method 'mpl'"),
    Case("statnet-setting", S_FIT, "A statnet control.ergm name the method does not take",
         'ef.ERGM("flomarriage", "edges").fit(method="mple", **{"MCMC.samplesize": 1000})',
         "SettingsError", "statnet's MCMC.samplesize is ergmfit's setting 'samplesize'"),
    Case("unknown-constraint", S_FIT, "A misspelt constraint (statnet's ~degrees written ~degree)",
         'ef.ERGM("flomarriage", "edges").fit(method="mcmle", constraints="~degree")',
         "FormulaError", "Did you mean 'degrees'"),
    Case("unknown-setting", S_FIT, "A setting the estimator does not take",
         'ef.ERGM("flomarriage", "edges").fit(method="mple", samplesize=100)',
         "SettingsError", "has no setting"),
    Case("bad-setting-value", S_FIT, "A setting with a value it does not take",
         'ef.ERGM("flomarriage", "edges").fit(method="mple", cov="sandwich")', "SettingsError",
         "'cov' must be one of"),
    Case("params-length", S_FIT, "Parameters of the wrong length",
         'ef.ERGM("flomarriage", "edges + triangle").simulate([-1.5])', "SettingsError",
         "must have 2 value(s)"),
    Case("params-label", S_FIT, "Parameters with an unknown label",
         'ef.ERGM("flomarriage", "edges + triangle").simulate({"edge": -1.5, "triangle": 0.1})',
         "SettingsError", "unknown label(s) ['edge']"),
    Case("bad-random-state", S_FIT, "A seed that is not a number",
         'ef.ERGM("flomarriage", "edges").simulate([0.0], random_state="abc")', "SettingsError",
         "random_state must be None, an int or a numpy Generator"),
    Case("gof-unknown-statistic", S_FIT, "An unknown gof statistic",
         'fit = ef.ERGM("flomarriage", "edges").fit(method="mple")\n'
         'fit.gof(statistics="triads")',
         "FormulaError", "unknown gof statistic 'triads'"),
    Case("gof-degree-directed", S_FIT, "`degree` in gof of a directed network",
         'fit = ef.ERGM("samplike", "edges").fit(method="mple")\n'
         'fit.gof(statistics="degree + model")',
         "FormulaError", "use 'idegree' and/or 'odegree'"),
    Case("gof-bdegree-one-mode", S_FIT, "`b1degree`/`b2degree` in gof of a one-mode network "
         "(the degrees by mode of a two-mode network)",
         'fit = ef.ERGM("flomarriage", "edges").fit(method="mple")\n'
         'fit.gof(statistics="b1degree + model")',
         "FormulaError", "is for two-mode (bipartite) networks"),
    Case("resume-not-checkpoint", S_FIT, "Resuming EE from a directory without a checkpoint",
         'ef.ERGM("flomarriage", "edges").fit(method="ee", resume=tmp)', "CheckpointError",
         "is not an EE checkpoint of ergmfit"),
    Case("simulate-too-long", S_FIT, "A simulation that cannot finish: more than 10^12 "
         "proposals (`burnin + n * interval`)",
         'ef.ERGM("flomarriage", "edges").simulate([-1.0], n=10**12, output="stats")',
         "SettingsError", "proposals, more than the 1e+12"),
    Case("constraints-type", S_FIT, "`constraints=` that is neither a formula nor a list of "
         "constraint strings",
         'ef.ERGM("flomarriage", "edges").fit(method="mple", constraints=5)',
         "FormulaError", "constraints must be a formula string"),
    Case("bd-bound", S_FIT, "A `bd()` bound that is not a number or one number per node",
         'ef.ERGM("flomarriage", "edges").fit(method="mple",\n'
         '                                    constraints="~bd(maxout=c(1, 2))")',
         "FormulaError", "must be a number or one number per node"),
    Case("offsets-only", S_FIT, "A model whose every coefficient is an offset: nothing is "
         "estimated, the fit holds the offsets",
         'ef.ERGM("flomarriage", "offset(edges) + offset(kstar(2))").fit(\n'
         '    method="mcmle", offset_coef=[-1.5, 0.01])',
         "UserWarning", "nothing to estimate", kind="warning"),
    Case("checkpoint-not-a-file", S_FIT, "A checkpoint path where a FIFO or a device is",
         'import os\nos.mkfifo(tmp / "ck.json")\n'
         'ef.ERGM("flomarriage", "edges + kstar(2)").fit(method="mcmle",\n'
         '                                               checkpoint=str(tmp / "ck.json"))',
         "CheckpointError", "not a regular file"),
    Case("save-not-a-file", S_OTHER, "Saving results over a FIFO or a device",
         'import os\nos.mkfifo(tmp / "fit.json")\n'
         'ef.ERGM("flomarriage", "edges").fit(method="mple").save(tmp / "fit.json")',
         "SaveError", "is a FIFO (named pipe), not a regular file"),
    # -- Markov random fields ---------------------------------------------------------
    Case("mrf-unknown-method", S_MRF, "An MRF estimator that does not exist",
         'from ergmfit.mrf import IsingModel\n'
         'IsingModel(nx.path_graph(3)).fit(np.zeros((4, 3)), method="mle")', "SettingsError",
         "unknown method 'mle'"),
    Case("potts-state-range", S_MRF, "A Potts state outside 0..q-1",
         'from ergmfit.mrf import PottsModel\n'
         'PottsModel(nx.path_graph(3), q=3).fit(np.array([[0, 1, 3]]))', "ValueError",
         "the states must lie in 0..2"),
    Case("scl-lambda", S_MRF, "A selection probability outside (0, 1] in stochastic composite "
         "likelihood",
         'from ergmfit.mrf import BoltzmannMachine\n'
         'BoltzmannMachine(4).fit(np.zeros((5, 4)), method="scl", components=[("pl", 1, 1.5)])',
         "ValueError", "must lie in (0, 1]"),
    Case("junction-treewidth", S_MRF, "Exact inference on a model too wide for the junction tree",
         'from ergmfit.mrf import IsingModel\n'
         'IsingModel(nx.grid_2d_graph(25, 25)).log_partition([0.1, 0.2])', "ValueError",
         "treewidth is too large"),
    # -- other --------------------------------------------------------------------
    Case("missing-matplotlib", S_OTHER, "Drawing without matplotlib installed",
         'import sys\n'
         'sys.modules["matplotlib"] = None      # as if matplotlib were not installed\n'
         'from ergmfit.plotting import draw_network\n'
         'draw_network("flomarriage", tmp / "net.png")',
         "ImportError", "plotting needs matplotlib"),
    Case("plot-missing-attribute", S_OTHER, "Colouring a drawing by a missing attribute",
         'from ergmfit.plotting import draw_network\n'
         'draw_network("flomarriage", tmp / "net.png", color_by="age")',
         "TermError", "has no node attribute 'age'"),
    Case("results-extension", S_OTHER, "Saving results under an unknown extension",
         'fit = ef.ERGM("flomarriage", "edges").fit(method="mple")\n'
         'fit.save(tmp / "fit.pkl")',
         "ResultsFileError", "unknown results file type"),
    Case("save-failed", S_OTHER, "Saving results where they cannot be written (no such "
         "directory, disk full); a file already there is left unchanged",
         'fit = ef.ERGM("flomarriage", "edges").fit(method="mple")\n'
         'fit.save(tmp / "no-such-dir" / "fit.json")',
         "SaveError", "cannot save the results to"),
    Case("damaged-results", S_OTHER, "Loading a results file that is truncated, damaged or "
         "tampered with",
         'fit = ef.ERGM("flomarriage", "edges").fit(method="mple")\n'
         'fit.save(tmp / "fit.json")\n'
         'text = (tmp / "fit.json").read_text()\n'
         '(tmp / "fit.json").write_text(text[:40])     # cut off, as by a full disk\n'
         'ef.results.ERGMResults.load(tmp / "fit.json")',
         "ResultsFileError", "damaged results file"),
    Case("unknown-dataset", S_OTHER, "A bundled dataset that does not exist",
         'ef.datasets.load("florentine")', "ErgmfitError", "no bundled dataset 'florentine'"),
    # -- command line ------------------------------------------------------------------
    Case("cli-unknown-term", S_CLI, "A misspelt term on the command line",
         'ergmfit stats flomarriage "edges + triangel"', "exit 2",
         "ergmfit: error: unknown term 'triangel'", kind="cli"),
    Case("cli-csv-directedness", S_CLI, "An edge-list CSV without `--directed`/`--undirected`",
         'ergmfit stats {tmp}/ties.csv "edges"', "exit 2",
         "pass directed=True or directed=False (command line: --directed or --undirected)",
         kind="cli"),
    Case("cli-reference-without-response", S_CLI, "`--reference` (a count-valued model) "
         "without `--response`",
         'ergmfit stats {tmp}/ties.csv "sum" --directed --reference Poisson', "exit 2",
         "needs --response ATTR", kind="cli"),
    Case("cli-bad-setting", S_CLI, "An estimator setting it does not take",
         'ergmfit fit flomarriage "edges" --method mple --set samplesize=10', "exit 2",
         "ergmfit: error: method 'mple' has no setting", kind="cli"),
    Case("cli-save-failed", S_CLI, "`fit --save` to a path that cannot be written: the table "
         "is printed first, the save fails after it (exit status 3)",
         'ergmfit fit flomarriage "edges" --method mple --quiet --save {tmp}/no-dir/fit.json',
         "exit 3", "ergmfit: error: the fit above was not saved", kind="cli"),
]

#: files the command-line cases read ({tmp} is the temporary directory)
CLI_FILES = {"ties.csv": "source,target\n1,2\n2,3\n"}


# ---------------------------------------------------------------------------
# running a case
# ---------------------------------------------------------------------------
@dataclass
class Outcome:
    cls: str             # class name, "exit N" for the CLI, "" if nothing happened
    message: str


def _namespace(tmp):
    import networkx as nx
    import numpy as np

    import ergmfit as ef
    return {"ef": ef, "nx": nx, "np": np, "tmp": pathlib.Path(tmp), "__name__": "__errors__"}


@contextlib.contextmanager
def _isolated_modules(prefix="matplotlib"):
    """Undo any change a case makes to ``sys.modules[prefix...]``."""
    saved = {k: v for k, v in sys.modules.items() if k == prefix or k.startswith(prefix + ".")}
    try:
        yield
    finally:
        # drop only the blocked (None) entries a case put there; a real module that
        # was imported meanwhile stays, or later imports would load a second copy
        for k in [k for k in sys.modules if k == prefix or k.startswith(prefix + ".")]:
            if sys.modules[k] is None and k not in saved:
                del sys.modules[k]
        sys.modules.update(saved)


def _split_cli(code, tmp):
    import shlex
    argv = shlex.split(code.replace("{tmp}", str(tmp)))
    if argv[:1] != ["ergmfit"]:
        raise ValueError(f"a command-line case starts with 'ergmfit': {code!r}")
    return argv[1:]


def run_case(case: Case) -> Outcome:
    """Trigger ``case`` in a fresh temporary directory; what it raised, warned or printed."""
    with tempfile.TemporaryDirectory() as tmp:
        if case.kind == "cli":
            from ergmfit.cli import main
            for name, text in CLI_FILES.items():
                pathlib.Path(tmp, name).write_text(text, encoding="utf-8")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(_split_cli(case.code, tmp))
            lines = [ln for ln in err.getvalue().splitlines() if ln.startswith("ergmfit: error:")]
            msg = lines[0] if lines else err.getvalue().strip()
            return Outcome(f"exit {status}", msg.replace(str(tmp), "{tmp}"))
        ns = _namespace(tmp)
        with _isolated_modules(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(compile(case.code, f"<case {case.id}>", "exec"), ns)
            except Exception as exc:  # noqa: BLE001 - recording what the user sees
                return Outcome(type(exc).__name__, str(exc).replace(str(tmp), "{tmp}"))
        if case.kind == "warning":
            for w in caught:
                if w.category.__name__ == case.expect:
                    return Outcome(w.category.__name__, str(w.message))
            if caught:
                w = caught[0]
                return Outcome(w.category.__name__, str(w.message))
        return Outcome("", "")


def check(case: Case, outcome: Outcome) -> list:
    """Problems with ``outcome`` for ``case`` (empty if it is as documented)."""
    problems = []
    if outcome.cls != case.expect:
        problems.append(f"{case.id}: expected {case.expect}, got {outcome.cls or 'nothing'}"
                        f" ({outcome.message[:200]!r})")
    elif case.phrase not in outcome.message:
        problems.append(f"{case.id}: the message does not contain {case.phrase!r}: "
                        f"{outcome.message!r}")
    return problems


# ---------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------
INTRO = """\
# Errors and what they say

Every row below was produced by running the code under it with the installed
ergmfit (`python docs/make_errors_table.py` regenerates this page;
`tests/front/test_docs.py` checks that every case still raises the class shown with
a message containing the key phrase).

ergmfit's own exceptions all derive from `ergmfit.ErgmfitError`:

| class | raised for | also a |
| --- | --- | --- |
| `FormulaError` | a formula that does not parse; gof statistics | `ValueError` |
| `TermError` | a term that does not fit its arguments or the network (attributes, directedness) | `ValueError` |
| `NetworkError` | a network ergmfit cannot model as given (loops, weights, multigraphs, directedness) | `ValueError` |
| `DataFormatError` | a file or table that does not parse | `ValueError` |
| `DegenerateModelError` | a fit or simulation that is degenerate (no estimate exists, the sampler is stuck) | `RuntimeError` |
| `ResultsFileError` | a results file that is damaged, truncated, tampered with or of an unknown type | `ValueError` |
| `SaveError` | results that could not be written (the file already at the path is left unchanged) | `OSError` |
| `SettingsError` | an estimator setting that does not exist or lies out of its range (the message lists the valid settings or the range) | `ValueError`, `TypeError` |
| `ReadOnlyError` | a write to `fit.info`, the read-only view of `fit.diagnostics` (the message says where a field is set) | `TypeError` |

so `except ergmfit.ErgmfitError` catches every problem with the user's data
and model, and the estimator settings.
`ConvergenceWarning` (a `UserWarning`) marks a fit that did not converge.
On the command line every one of these prints one line
`ergmfit: error: <message>` on standard error and exits with status 2;
`ergmfit fit --save FILE` prints the table first and, if the save then
fails, exits with status 3.

In the code, `ef` is `ergmfit`, `nx` networkx, `np` numpy and `tmp` a
temporary directory (`pathlib.Path`).
"""


def _cell(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, line breaks as <br>."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("|", "\\|").replace("`", "&#96;")
    text = text.replace("*", "\\*").replace("_", "\\_")
    lines = text.split("\n")
    return "<br>".join(lines)


def render(results) -> str:
    """The page for ``[(case, outcome), ...]``."""
    out = [INTRO]
    sections = []
    for case, _ in results:
        if case.section not in sections:
            sections.append(case.section)
    out.append("## Contents\n")
    for s in sections:
        anchor = re.sub(r"[^a-z0-9 -]", "", s.lower()).replace(" ", "-")
        out.append(f"* [{s}](#{anchor})")
    out.append("")
    for s in sections:
        out.append(f"## {s}\n")
        out.append("| id | situation | raised | key phrase | message |")
        out.append("| --- | --- | --- | --- | --- |")
        for case, outcome in results:
            if case.section != s:
                continue
            raised = outcome.cls if case.kind != "cli" else outcome.cls.replace("exit", "exit status")
            if case.kind == "warning":
                raised += " (warning)"
            out.append(f"| [{case.id}](#{case.id}) | {case.situation.replace('|', chr(92) + '|')} "
                       f"| `{raised}` | `{case.phrase.replace('|', chr(92) + '|')}` "
                       f"| {_cell(outcome.message)} |")
        out.append("")
    out.append("## The code and the full messages\n")
    for case, outcome in results:
        out.append(f'<a id="{case.id}"></a>\n')
        out.append(f"### {case.id}\n")
        out.append(f"{case.situation}:\n")
        lang = "bash" if case.kind == "cli" else "python"
        out.append(f"```{lang}\n{case.code}\n```\n")
        label = {"cli": "prints on standard error and exits with status "
                        + outcome.cls.split()[-1],
                 "warning": f"warns `{outcome.cls}`"}.get(case.kind, f"raises `{outcome.cls}`")
        out.append(f"{label}:\n")
        out.append(f"```text\n{outcome.message}\n```\n")
    return "\n".join(out).rstrip() + "\n"


#: the row format tests/front/test_docs.py parses: | [id](#id) | situation | `class` | `phrase` | msg |
ROW = re.compile(r"^\| \[(?P<id>[a-z0-9-]+)\]\(#[a-z0-9-]+\) \| .*? \| `(?P<cls>[^`]+)` "
                 r"\| `(?P<phrase>(?:[^`\\]|\\.)+)` \| ")


def parse_page(text: str) -> dict:
    """``{id: (class, key phrase, kind)}`` of the rows of a generated page."""
    rows = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            cls = m.group("cls")
            kind = "error"
            if cls.endswith(" (warning)"):
                cls, kind = cls[:-len(" (warning)")], "warning"
            elif cls.startswith("exit status "):
                cls, kind = cls.replace("exit status", "exit"), "cli"
            rows[m.group("id")] = (cls, m.group("phrase").replace("\\|", "|"), kind)
    return rows


def run_all():
    results, problems = [], []
    for case in CASES:
        outcome = run_case(case)
        problems += check(case, outcome)
        results.append((case, outcome))
    return results, problems


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ids = [c.id for c in CASES]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        print(f"duplicate case ids: {sorted(dup)}", file=sys.stderr)
        return 1
    results, problems = run_all()
    for p in problems:
        print(f"make_errors_table: {p}", file=sys.stderr)
    if problems:
        return 1
    page = render(results)
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != page:
            print(f"{TARGET} is out of date: run python docs/make_errors_table.py",
                  file=sys.stderr)
            return 1
        print(f"{TARGET} is up to date ({len(CASES)} cases)")
        return 0
    TARGET.write_text(page, encoding="utf-8")
    print(f"wrote {TARGET} ({len(CASES)} cases)")
    return 0


if __name__ == "__main__":
    # run from a source checkout without installing: the repository root on the path
    root = str(HERE.parent)
    if root not in sys.path:
        try:
            import ergmfit  # noqa: F401
        except ImportError:
            sys.path.insert(0, root)
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())
