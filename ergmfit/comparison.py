"""Comparing fits: likelihood-ratio tests, AIC/BIC and side-by-side tables.

``compare(fit1, fit2, ...)`` gives a :class:`Comparison`: the
log-likelihood, degrees of freedom, AIC and BIC of each fit, the
likelihood-ratio test of each fit against the one before it (as R's
``anova(fit1, fit2)``), and a coefficient table in the manner of R's
``texreg`` -- estimates with standard errors in parentheses and
significance stars, one column per fit, AIC/BIC/log-likelihood/dyads at the
bottom -- as text, HTML, LaTeX or Markdown.

A likelihood-ratio test needs two fits of nested models on the same network
and sample space with comparable log-likelihoods: exact, or estimated by
bridge sampling (statnet's MCMC-MLE log-likelihood).  Where that does not
hold -- different networks, no log-likelihood, a pseudo-likelihood, models
that are not nested -- the test is not made and :attr:`Comparison.lr_tests`
says why; :meth:`Comparison.lr_test` raises an error naming the reason.

Examples
--------
>>> import ergmfit as ef
>>> g = ef.datasets.load("flomarriage")
>>> f1 = ef.ERGM(g, "edges").fit(method="mple")
>>> f2 = ef.ERGM(g, "edges + nodecov('wealth')").fit(method="mple")
>>> cmp = ef.compare(f1, f2)
>>> t = cmp.lr_tests[0]
>>> round(t["lr"], 3), t["df"], round(t["p"], 4)
(5.026, 1, 0.025)
>>> print(cmp.to_markdown().splitlines()[0])
|  | Model 1 | Model 2 |
"""
from __future__ import annotations

import html
import math


from .exceptions import ErgmfitError
from .rformat import signif_stars

_LOGLIK_TESTABLE = ("exact", "bridge")


class Comparison:
    """Several fits side by side (build with :func:`compare`).

    Attributes
    ----------
    fits : list of ERGMResults
    names : list of str
        Column names (``"Model 1"``, ... unless given).
    rows : list of dict
        One per fit: name, loglik, loglik_kind, df (estimated coefficients,
        offsets left out), aic, bic, nobs.
    lr_tests : list of dict
        One per consecutive pair (fit k-1, fit k): ``models``, ``lr`` (twice
        the log-likelihood difference, larger model minus smaller), ``df``,
        ``p`` (chi-square upper tail; NaN when no test is made) and
        ``note`` (why not, or a caveat; "" when none).
    """

    def __init__(self, fits, names=None, digits=3):
        fits = list(fits)
        if len(fits) < 1:
            raise ErgmfitError("compare() needs at least one fit")
        from .results import ERGMResults
        for k, f in enumerate(fits):
            if not isinstance(f, ERGMResults):
                raise ErgmfitError(f"compare(): argument {k + 1} is a {type(f).__name__}, not a "
                                   "fit (ERGMResults)")
        if names is None:
            names = [f"Model {k + 1}" for k in range(len(fits))]
        names = [str(n) for n in names]
        if len(names) != len(fits):
            raise ErgmfitError(f"compare(): {len(names)} names for {len(fits)} fits")
        self.fits, self.names, self.digits = fits, names, int(digits)
        self.rows = [{"name": nm, "loglik": f.loglik, "loglik_kind": f.loglik_kind,
                      "df": f.n_free, "aic": f.aic, "bic": f.bic, "nobs": f.nobs}
                     for nm, f in zip(names, fits)]
        self.lr_tests = [self._test(a, b) for a, b in zip(range(len(fits) - 1),
                                                          range(1, len(fits)))]

    # -- likelihood-ratio tests ---------------------------------------------
    def _why_not(self, a, b):
        """Why fits a and b (indices) cannot be compared by a likelihood ratio, or ""."""
        fa, fb = self.fits[a], self.fits[b]
        na, nb = self.names[a], self.names[b]
        for nm, f in ((na, fa), (nb, fb)):
            if f.loglik is None:
                return f"{nm} has no log-likelihood (its method does not compute one)"
            if f.loglik_kind not in _LOGLIK_TESTABLE:
                return (f"{nm}'s log-likelihood is a {f.loglik_kind or 'unknown'} likelihood: a "
                        "ratio of pseudo-likelihoods is not chi-square distributed")
        why = _different_data(fa, fb)
        if why:
            return f"{na} and {nb} are fits {why}"
        small, big = (fa, fb) if fa.n_free <= fb.n_free else (fb, fa)
        if not set(small.labels) <= set(big.labels):
            extra = sorted(set(small.labels) - set(big.labels))
            return (f"the models are not nested (the smaller one has {extra[:3]}, the larger "
                    "one does not)")
        if small.n_free == big.n_free:
            return "the models have the same number of coefficients: nothing to test"
        return ""

    def _test(self, a, b):
        why = self._why_not(a, b)
        out = {"models": (self.names[a], self.names[b]), "lr": float("nan"),
               "df": None, "p": float("nan"), "note": why}
        if why:
            return out
        fa, fb = self.fits[a], self.fits[b]
        small, big = (fa, fb) if fa.n_free <= fb.n_free else (fb, fa)
        lr = 2.0 * (big.loglik - small.loglik)
        df = big.n_free - small.n_free
        from scipy.special import chdtrc

        out.update(lr=float(lr), df=int(df), p=float(chdtrc(df, max(lr, 0.0))))
        if "bridge" in (fa.loglik_kind, fb.loglik_kind):
            out["note"] = "log-likelihoods estimated by bridge sampling (Monte Carlo error)"
        if lr < 0:
            out["note"] = ("the larger model has the smaller log-likelihood (an estimate that "
                           "did not converge, or Monte Carlo error)")
        return out

    def lr_test(self, a=0, b=1) -> dict:
        """The likelihood-ratio test of fit ``a`` against fit ``b`` (indices or
        names); raises :class:`~ergmfit.ErgmfitError` naming the reason when
        the fits cannot be compared so."""
        a, b = self._index(a), self._index(b)
        why = self._why_not(a, b)
        if why:
            raise ErgmfitError(f"no likelihood-ratio test of {self.names[a]} against "
                               f"{self.names[b]}: {why}")
        if abs(a - b) == 1:
            return self.lr_tests[min(a, b)]
        return self._test(a, b)

    def _index(self, key):
        if isinstance(key, str):
            if key not in self.names:
                raise ErgmfitError(f"no fit called {key!r}; the fits are {self.names}")
            return self.names.index(key)
        k = int(key)
        if not 0 <= k < len(self.fits):
            raise ErgmfitError(f"fit index {k} outside 0..{len(self.fits) - 1}")
        return k

    # -- the coefficient table ------------------------------------------------
    @property
    def labels(self) -> list:
        """The union of the coefficient labels, in order of first appearance."""
        seen = []
        for f in self.fits:
            for lab in f.labels:
                if lab not in seen:
                    seen.append(lab)
        return seen

    def _cells(self):
        """(rows, bottom): rows of (label, [estimate cells], [s.e. cells]) and the
        bottom rows (name, [cells])."""
        d = self.digits
        rows = []
        for lab in self.labels:
            est, se = [], []
            for f in self.fits:
                if lab not in f.labels:
                    est.append(("", ""))
                    se.append("")
                    continue
                k = f.labels.index(lab)
                b, s, p = float(f.params[k]), float(f.bse[k]), float(f.pvalues[k])
                est.append((_num(b, d), signif_stars(p) if math.isfinite(p) else ""))
                se.append(f"({_num(s, d)})" if math.isfinite(s) else "")
            rows.append((lab, est, se))
        bottom = [("AIC", [_num(r["aic"], d) for r in self.rows]),
                  ("BIC", [_num(r["bic"], d) for r in self.rows]),
                  ("Log Likelihood", [_num(r["loglik"], d) for r in self.rows]),
                  ("Num. dyads", ["" if r["nobs"] is None else str(r["nobs"])
                                  for r in self.rows])]
        return rows, bottom

    STARS_NOTE = "***p < 0.001; **p < 0.01; *p < 0.05"

    def to_text(self) -> str:
        """The coefficient table as plain text (texreg's ``screenreg``)."""
        rows, bottom = self._cells()
        body = []
        for lab, est, se in rows:
            body.append([lab] + [e + (" " + s if s else "") for e, s in est])
            body.append([""] + se)
        foot = [[nm] + cells for nm, cells in bottom]
        head = [""] + self.names
        table = [head] + body + foot
        w = [max(len(r[c]) for r in table) for c in range(len(head))]

        def line(r):
            return "  ".join([r[0].ljust(w[0])] + [r[c].rjust(w[c]) for c in range(1, len(r))])
        rule = "=" * len(line(head))
        _line = line

        def line(r):                                  # noqa: F811 - no trailing blanks
            return _line(r).rstrip()
        thin = "-" * len(rule)
        out = [rule, line(head), thin] + [line(r) for r in body] + [thin]
        out += [line(r) for r in foot] + [rule, self.STARS_NOTE]
        return "\n".join(out) + "\n"

    def to_markdown(self) -> str:
        """The coefficient table as a Markdown (pipe) table."""
        rows, bottom = self._cells()

        def cell(s):
            return s.replace("|", "\\|").replace("*", "\\*")
        out = ["|  | " + " | ".join(cell(n) for n in self.names) + " |",
               "|---|" + "---:|" * len(self.names)]
        for lab, est, se in rows:
            out.append(f"| {cell(lab)} | " + " | ".join(
                cell(e) + (("<sup>" + cell(s) + "</sup>") if s else "") for e, s in est) + " |")
            out.append("|  | " + " | ".join(se) + " |")
        for nm, cells in bottom:
            out.append(f"| {nm} | " + " | ".join(cells) + " |")
        out.append("")
        out.append(cell(self.STARS_NOTE))
        return "\n".join(out) + "\n"

    def to_html(self) -> str:
        """The coefficient table as an HTML ``<table>`` (texreg's ``htmlreg``)."""
        rows, bottom = self._cells()
        e = html.escape
        out = ['<table class="ergmfit-compare">', "<thead><tr><th></th>"
               + "".join(f"<th>{e(n)}</th>" for n in self.names) + "</tr></thead>", "<tbody>"]
        for lab, est, se in rows:
            out.append(f"<tr><td>{e(lab)}</td>" + "".join(
                f'<td style="text-align:right">{e(v)}'
                + (f"<sup>{e(s)}</sup>" if s else "") + "</td>" for v, s in est) + "</tr>")
            out.append("<tr><td></td>" + "".join(
                f'<td style="text-align:right">{e(s)}</td>' for s in se) + "</tr>")
        for k, (nm, cells) in enumerate(bottom):
            style = ' style="border-top:1px solid"' if k == 0 else ""
            out.append(f"<tr{style}><td>{e(nm)}</td>" + "".join(
                f'<td style="text-align:right">{e(c)}</td>' for c in cells) + "</tr>")
        out.append("</tbody>")
        out.append(f'<tfoot><tr><td colspan="{len(self.names) + 1}">'
                   f"<sup>***</sup>p &lt; 0.001; <sup>**</sup>p &lt; 0.01; "
                   f"<sup>*</sup>p &lt; 0.05</td></tr></tfoot>")
        out.append("</table>")
        return "\n".join(out) + "\n"

    def to_latex(self) -> str:
        """The coefficient table as a LaTeX ``tabular`` (texreg's ``texreg``;
        plain LaTeX, no package needed)."""
        rows, bottom = self._cells()
        t = _tex
        ncol = len(self.names)
        out = ["\\begin{tabular}{l " + "c " * ncol + "}", "\\hline",
               " & " + " & ".join(t(n) for n in self.names) + " \\\\", "\\hline"]
        for lab, est, se in rows:
            out.append(t(lab) + " & " + " & ".join(
                (f"${v}" + (f"^{{{s}}}" if s else "") + "$") if v else "" for v, s in est)
                + " \\\\")
            out.append(" & " + " & ".join(f"${s}$" if s else "" for s in se) + " \\\\")
        out.append("\\hline")
        for nm, cells in bottom:
            out.append(t(nm) + " & " + " & ".join(f"${c}$" if c else "" for c in cells)
                       + " \\\\")
        out.append("\\hline")
        out.append(f"\\multicolumn{{{ncol + 1}}}{{l}}{{\\scriptsize{{$^{{***}}p<0.001$; "
                   "$^{**}p<0.01$; $^{*}p<0.05$}}")
        out.append("\\end{tabular}")
        return "\n".join(out) + "\n"

    # -- the likelihood table -------------------------------------------------
    def anova_lines(self) -> list:
        """The fits' log-likelihoods, df, AIC, BIC and the likelihood-ratio tests, as lines."""
        d = self.digits
        head = ["", "df", "loglik", "AIC", "BIC", "LR", "LR df", "Pr(>Chi)"]
        table = [head]
        for k, r in enumerate(self.rows):
            t = self.lr_tests[k - 1] if k else None
            lr = "" if t is None or not math.isfinite(t["lr"]) else _num(t["lr"], d)
            table.append([r["name"], str(r["df"]), _num(r["loglik"], d), _num(r["aic"], d),
                          _num(r["bic"], d), lr, "" if t is None or t["df"] is None
                          else str(t["df"]),
                          "" if t is None or not math.isfinite(t["p"]) else f"{t['p']:.4g}"])
        w = [max(len(r[c]) for r in table) for c in range(len(head))]
        lines = ["  ".join([r[0].ljust(w[0])] + [r[c].rjust(w[c]) for c in range(1, len(r))])
                 .rstrip() for r in table]
        notes = [f"{t['models'][0]} vs {t['models'][1]}: {t['note']}" for t in self.lr_tests
                 if t["note"]]
        kinds = {r["loglik_kind"] for r in self.rows if r["loglik"] is not None}
        if "pseudo" in kinds:
            notes.append("log-pseudo-likelihoods: their AIC and BIC compare pseudo-likelihoods")
        return lines + ([""] + notes if notes else [])

    def __str__(self):
        return "\n".join(["Likelihood-ratio tests (each fit against the one before):"]
                         + self.anova_lines() + ["", "Coefficients:", self.to_text()])

    def __repr__(self):
        return self.__str__()

    def _repr_html_(self):
        return (f"<pre>{html.escape(chr(10).join(self.anova_lines()))}</pre>" + self.to_html())


def compare(*fits, names=None, digits=3) -> Comparison:
    """Compare fits: log-likelihoods, df, AIC, BIC, likelihood-ratio tests and a
    side-by-side coefficient table (see :class:`Comparison`).

    Parameters
    ----------
    *fits : ERGMResults
        In order; each is tested against the one before (as R's ``anova``).
    names : list of str, optional
        Column names (default ``"Model 1"``, ``"Model 2"``, ...).
    digits : int
        Decimals in the tables.

    Examples
    --------
    >>> import ergmfit as ef
    >>> g = ef.datasets.load("flomarriage")
    >>> f1 = ef.ERGM(g, "edges").fit(method="mple")
    >>> f2 = ef.ERGM(g, "edges + nodecov('wealth')").fit(method="mple")
    >>> print(ef.compare(f1, f2, names=["null", "wealth"]).to_text())
    ======================================
                          null      wealth
    --------------------------------------
    edges           -1.609 ***  -2.595 ***
                       (0.245)     (0.536)
    nodecov.wealth                 0.011 *
                                   (0.005)
    --------------------------------------
    AIC                110.135     107.109
    BIC                112.922     112.684
    Log Likelihood     -54.067     -51.554
    Num. dyads             120         120
    ======================================
    ***p < 0.001; **p < 0.01; *p < 0.05
    <BLANKLINE>
    """
    if len(fits) == 1 and isinstance(fits[0], (list, tuple)):
        fits = tuple(fits[0])
    return Comparison(fits, names=names, digits=digits)


def _different_data(fa, fb) -> str:
    """"" when fa and fb are fits to the same network and sample space, else
    what differs ("on different networks", ...)."""
    if fa.nobs != fb.nobs:
        return f"on different numbers of dyads ({fa.nobs} and {fb.nobs})"
    na, nb = fa.network, fb.network
    if na is not None and nb is not None:
        for key in ("n", "directed", "bipartite"):
            if na.get(key) != nb.get(key):
                return f"on different networks ({key} {na.get(key)!r} and {nb.get(key)!r})"
        ta = sorted(map(tuple, na.get("ties", ())))
        tb = sorted(map(tuple, nb.get("ties", ())))
        if ta != tb:
            return "on different networks (their ties differ)"
    sa = fa.diagnostics.sample_space or {}
    sb = fb.diagnostics.sample_space or {}
    for key in ("constraints", "missing"):
        if sa.get(key) != sb.get(key):
            return f"on different sample spaces ({key} differ)"
    return ""


def _num(v, digits) -> str:
    if v is None:
        return ""
    v = float(v)
    if not math.isfinite(v):
        return "" if math.isnan(v) else ("Inf" if v > 0 else "-Inf")
    s = f"{v:.{digits}f}"
    return "0." + "0" * digits if s == "-0." + "0" * digits else s


def _tex(s) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}"}
    return "".join(repl.get(c, c) for c in str(s))


__all__ = ["compare", "Comparison"]
