"""Terms statnet defines from other terms, built here as compositions of existing kernels
(no new per-toggle code): the inner terms run on the model's network or on a derived
network (:class:`._operators.SubnetKernel`: the ties between nodes of one level, the
mutual ties), and nonlinear ones through :class:`._coreterms.TransformKernel`.

* ``tripercent(attr, diff, levels)`` = 100 T / (T + S), T the triangles and S the two-stars
  not in a triangle (S = kstar2 − 3T), 0 when T + S = 0; with ``attr`` on the ties between
  nodes of one level (``diff``: per level).  statnet 4.4 rounds the ratio to single
  precision before multiplying by 100; ergmfit does the same, so the values are equal.
* ``simmelianties`` = 2 × the mutual dyads in at least one Simmelian triad (three mutual
  dyads): ``transitiveties`` of the mutual ("strong") symmetrisation, each dyad counting
  its two ties.
* ``transitiveties(attr)`` / ``cyclicalties(attr)`` on a directed network: the plain
  statistic on the ties between nodes of the same level (all three nodes share it).
* ``cycle(k, semi=TRUE)`` on a directed network: the k-cycles of the weak symmetrisation
  (semicycles); directed cycles have their own kernel (:class:`._coreterms.DirectedCycleKernel`).
* ``Prod(formulas, label)``: Π_f S_f^w_f elementwise (statnet: Exp(~Sum(~Log(f), label)),
  labels ``Exp~Sum~<label>``).  ergmfit computes the product directly; statnet 4.4's
  summary goes through Log's −1/√ε for 0 while it adds the ties one by one and loses about
  eight digits (12585.99987 for 203 × 62 on faux.mesa.high; its help page warns of the
  loss of precision), so ergmfit's value is the exact product, within 2e-8 of statnet's.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import TermError
from ..formula import parse_formula
from ._coreterms import TransformKernel
from ._operators import SubnetKernel
from .dyadic import _codes
from .registry import BOTH, DIRECTED, UNDIRECTED, Param, Term, as_bool, build_term, register

FAMILY = "compositions"


def same_level_mask(code, level=None):
    """n x n mask of the pairs i != j whose codes agree and are counted (>= 0), or are
    ``level``."""
    code = np.asarray(code)
    ok = code >= 0 if level is None else code == level
    mask = (code[:, None] == code[None, :]) & ok[:, None] & ok[None, :]
    np.fill_diagonal(mask, False)
    return mask.astype(np.uint8).ravel()


def _build(net, texts):
    return [build_term(net, c.name, c.args, c.kwargs) for c in parse_formula(" + ".join(texts))]


def on_filter(net, names, mask):
    """A SubnetKernel running the terms ``names`` (call texts) on the ties ``mask`` keeps."""
    terms = _build(net, names)
    return SubnetKernel([t.kernel for t in terms], "filter", net.n, mask=mask, aux_n=net.n,
                        aux_directed=net.directed)


def on_symmetrised(net, names, rule):
    from ..network import Network
    und = Network(net.n, np.zeros((0, 2), dtype=np.int64), False)
    terms = _build(und, names)
    return SubnetKernel([t.kernel for t in terms], "sym", net.n, rule=rule, aux_n=net.n,
                        aux_directed=False)


@register("tripercent", kinds=UNDIRECTED,
          params=[Param("attr", None), Param("diff", False), Param("levels", None)],
          family=FAMILY)
def tripercent(net, attr=None, diff=False, levels=None):
    """Triangle percentage: 100 T / (T + S), T the triangles, S the two-stars not in a
    triangle, 0 if T + S = 0 (in single precision, as statnet 4.4); with ``attr`` only the
    triples whose three nodes share a level (``tripercent.<attr>``), ``diff``: per level
    (``tripercent.<attr>.<level>``)."""
    diff = as_bool(diff, "term tripercent: diff")
    inner = ["triangle", "kstar(2)"]
    if attr is None:
        if diff or levels is not None:
            raise TermError("term tripercent: diff and levels need attr")
        kernels = [t.kernel for t in _build(net, inner)]
        labels = ["tripercent"]
    else:
        lv, code, labs = _codes(net, "tripercent", attr, diff, levels)
        if diff:
            kernels = [on_filter(net, inner, same_level_mask(code, k)) for k in range(len(labs))]
            labels = [f"tripercent.{lv.name}.{lab}" for lab in labs]
        else:
            kernels = [on_filter(net, inner, same_level_mask(code))]
            labels = [f"tripercent.{lv.name}"]
    kernel = TransformKernel(kernels, "tripercent", np.zeros(2 * len(labels)), 0.0, len(labels))
    return Term("tripercent", labels, kernel)


@register("simmelianties", kinds=DIRECTED, family=FAMILY)
def simmelianties(net):
    """Ties in Simmelian triads (three mutual dyads): every tie i→j whose dyad is mutual and
    shares a mutual partner k with it (label ``simmelianties``)."""
    from ._operators import LinearKernel
    kernel = LinearKernel([on_symmetrised(net, ["transitiveties"], "strong")], np.array([[2.0]]))
    return Term("simmelianties", ["simmelianties"], kernel)


def typed_ties(net, name, attr, levels, plain):
    """transitiveties / cyclicalties with attr on a directed network."""
    lv, code, _ = _codes(net, name, attr, False, levels)
    return Term(name, [f"{name}.{lv.name}"], on_filter(net, [plain], same_level_mask(code)))


@register("cycle", kinds=DIRECTED, params=[Param("k"), Param("semi", False)],
          family=FAMILY, bounds="count")
def cycle_directed(net, k, semi=False):
    """Directed k-cycles v1→v2→…→vk→v1 (2 ≤ k ≤ n; cycle2 = mutual dyads), one statistic
    per k (labels ``cycle<k>``); ``semi=TRUE``: semicycles, the k-cycles (3 ≤ k ≤ n) of the
    network with directions ignored (labels ``semicycle<k>``)."""
    from .registry import as_int_list
    semi = as_bool(semi, "term cycle: semi")
    ks = as_int_list(k, what="term cycle: k", minimum=3 if semi else 2)
    if len(set(ks)) != len(ks):
        raise TermError(f"term cycle: the values of k must be distinct, got {ks}")
    if max(ks) > net.n:
        raise TermError(f"term cycle: k must be at most the number of nodes ({net.n}), "
                        f"got {max(ks)}")
    if semi:
        kernel = on_symmetrised(net, [f"cycle(c({', '.join(map(str, ks))}))"], "weak")
        return Term("cycle", [f"semicycle{v}" for v in ks], kernel)
    from ._coreterms import DirectedCycleKernel
    return Term("cycle", [f"cycle{v}" for v in ks], DirectedCycleKernel(ks))


@register("Prod", kinds=BOTH, params=[Param("formulas"), Param("label", None)], family=FAMILY)
def prod_operator(net, formulas, label=None):
    """Elementwise product of formulas with equally many statistics, each raised to its
    left-hand side (``Prod(list(~f, 2 ~ g))``, ``"prod" ~ f``, ``"geomean" ~ f``); labels
    ``Exp~Sum~<label>`` as statnet's (Exp(~Sum(~Log(f), label))); the exact product."""
    from .operators import formula_labels, keep_first_curvature, sum_labels, weighted_formulas
    sizes = []
    terms, W = weighted_formulas(net, formulas, "Prod", ("prod", "geomean"), "power", sizes)
    width = W.shape[0]

    def named(groups, k):
        # statnet's Exp(~Sum(~Log(f), label)): Sum's labels (and its rules for ``label``:
        # a string, strings, I, identity or a label function) over the Log()s, after "Exp~"
        logs = [["Log~" + lab for lab in group] for group in groups]
        return ["Exp~" + v for v in sum_labels("Prod", label, logs, k, "Sum~")]
    labels = named(formula_labels(terms, sizes), width)
    empty = np.concatenate([t.on_empty() for t in terms])
    kernel = TransformKernel([t.kernel for t in terms], "prod", empty, 0.0, width, W)
    # its value on the empty graph, for terms built on it (the kernel is exact at the top)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        true = np.array([np.prod([v ** w for v, w in zip(empty, row) if w != 0])
                         for row in np.asarray(W, dtype=float)])
    # as Exp(~Sum(~Log(f))): a curved first formula keeps its parameters and map
    first = terms[:sizes[0]]
    pgroups = [[lab for t in first for lab in t.param_labels]]
    term = Term("Prod", labels, kernel, true_empty=true,
                parts=(terms, np.asarray(W, dtype=float), ("prod",)))
    return keep_first_curvature("Prod", term, first,
                                width, lambda names: named(pgroups, len(names)),
                                vector_label=isinstance(label, list) and len(label) > 1)


def _check_shape(M, rows, cols):
    if M.shape != (len(rows), len(cols)):
        raise TermError(f"term attrcov: mat must be {len(rows)} x {len(cols)} (rows: the levels "
                        f"{', '.join(map(str, rows.labels))}; columns: the levels "
                        f"{', '.join(map(str, cols.labels))}), got {M.shape[0]} x {M.shape[1]}")


@register("attrcov", kinds=BOTH, params=[Param("attr"), Param("mat")], family=FAMILY)
def attrcov(net, attr, mat):
    """Σ over ties (i, j) of mat[level of i, level of j], ``mat`` a levels × levels matrix
    (levels of ``attr`` in sorted order; ``matrix(...)`` in the formula, or the name of a
    network attribute holding it); undirected ties read it from the lower-numbered node; on a
    two-mode network its rows are the levels of the mode-1 nodes and its columns those of
    the mode-2 nodes, as statnet's (label ``attrcov.<attr>``).  statnet 4.6+; an edgecov of
    the level matrix."""
    from ..formula import RCode
    from .curvemap import r_value
    from .dyadic import _edgecov_kernel, _levels
    if isinstance(mat, RCode):
        try:
            M = np.atleast_2d(np.asarray(r_value(mat.text, {}), dtype=float))
        except (ValueError, SyntaxError, TypeError):
            raise TermError(f"term attrcov: cannot read the matrix {mat.text!r}") from None
    elif isinstance(mat, str) and mat in net.graph_attrs:
        M = np.atleast_2d(np.asarray(net.graph_attrs[mat], dtype=float))
    else:
        raise TermError("term attrcov: mat must be a matrix(...) or the name of a network "
                        f"attribute holding one, got {mat!r}")
    if net.bipartite is not None:
        # two-mode: rows are the levels of mode 1's nodes, columns those of mode 2's (statnet)
        from .degfun import classes
        (lv1, c1), (lv2, c2) = (classes(net, attr, "attrcov", m) for m in (1, 2))
        _check_shape(M, lv1, lv2)
        n1 = net.bipartite
        X = np.zeros((net.n, net.n))
        X[:n1, n1:] = M[np.asarray(c1[:n1])[:, None], np.asarray(c2[n1:])[None, :]]
        X[n1:, :n1] = X[:n1, n1:].T
        lv = lv1
    else:
        lv = _levels(net, attr, "attrcov")
        _check_shape(M, lv, lv)
        code = np.asarray(lv.code)
        X = M[code[:, None], code[None, :]]
        if not net.directed:
            X = np.triu(X, 1) + np.triu(X, 1).T          # the lower-numbered node's row
    return Term("attrcov", [f"attrcov.{lv.name}"],
                _edgecov_kernel(net, X, f"attrcov's matrix of {lv.name}"), dyad_independent=True)
