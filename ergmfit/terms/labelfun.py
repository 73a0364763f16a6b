"""Label functions of statnet's ``Label(formula, label)``, read without evaluating R.

statnet's ``label=`` may be a function, or a purrr ``as_mapper``-style formula, through
which the inner terms' names are mapped (``pos`` is then not used).  ergmfit parses the
common forms and applies a fixed set of string functions to the names:

- a function name: ``toupper``, ``tolower``, ``identity``;
- a formula whose right-hand side is an expression in ``.`` (or ``.x``, ``..1``):
  ``~toupper(.)``, ``~paste0("net.", .)``, ``~paste(., "x", sep = "_")``;
- ``function(x) <the same expression in x>``, also with the body in braces
  (``function(x) {paste0("a.", x)}``), and R 4.1's lambda shorthand ``\\(x) <expression>``.

The expressions: string literals, the placeholder, and calls of ``toupper``, ``tolower``,
``paste0``, ``paste`` (with ``sep=``), ``gsub`` and ``sub`` (``pattern``, ``replacement``,
``x``, and ``fixed``, ``ignore.case``, ``perl``, ``useBytes`` given as TRUE/FALSE), nested
freely.  Anything else is refused with a TermError naming what is supported: no R code is
ever evaluated.

``gsub``/``sub`` with ``fixed=TRUE`` replace the literal text.  Otherwise the pattern is a
regular expression, run by :mod:`ergmfit.terms.labelregex`: an engine that finds the same
matches and groups as Python's ``re`` but whose work grows linearly with the pattern and
the label (``(a+)+$`` on a long data-derived label cannot blow up), with R's POSIX classes
(``[[:alpha:]]``, ``[[:digit:]]``, ``[[:space:]]``, ``[[:punct:]]``, ...); this agrees
with R's default (TRE, extended) and ``perl=TRUE`` regular expressions for the usual
patterns (literals, ``.``, classes, ``^``/``$``, groups, alternation, ``* + ? {m,n}``,
``\\d \\w \\s``).  In the replacement ``\\1`` ... ``\\9`` are the groups and ``\\0`` the
whole match, as in R.  Not covered (refused with a TermError): back-references,
look-arounds, a repeated part that can match the empty text (``(a*)*``), perl's case
conversions ``\\U \\L \\E`` in the replacement, POSIX collating elements ``[[.x.]]`` and
equivalence classes ``[[=x=]]``; patterns whose meaning differs between the engines are
run as Python would (an empty match at the end of the text: ``gsub("", "-", "ab")`` gives
``-a-b-`` where R gives ``-a-b``; TRE's leftmost-longest alternation, where Python takes
the first alternative that matches).

Work is bounded: one label function builds at most
:data:`ergmfit.terms.labelregex.MAX_OUTPUT` characters of labels (nested ``gsub("", ...)``
would otherwise multiply them) and spends at most
:data:`ergmfit.terms.labelregex.MAX_STEPS` steps of matching; beyond, it is refused with
a TermError.
"""
from __future__ import annotations

from ..exceptions import FormulaError, TermError
from ..formula import FormulaArg, RCode, RName, FormulaParser, tokenize
from .labelregex import Budget, Pattern, RegexError

SUPPORTED = ("a function name (toupper, tolower, identity), a formula such as "
             "~toupper(.) or ~paste0(\"prefix\", .), or function(x) <expression in x> "
             "(or R's lambda \\(x) <expression in x>); "
             "expressions may use string literals and toupper, tolower, paste0, paste(sep=), "
             "gsub and sub (fixed=, ignore.case=, perl=)")
_PLACEHOLDERS = (".", ".x", "..1")
_NAMED = {"toupper": lambda v: [s.upper() for s in v],
          "tolower": lambda v: [s.lower() for s in v],
          "identity": lambda v: list(v)}


def is_label_function(label) -> bool:
    """Is ``label`` (a parsed argument value) one of statnet's function forms?"""
    return isinstance(label, (FormulaArg, RCode)) or (isinstance(label, RName)
                                                      and label in _NAMED)


def label_function(label):
    """The mapping (list of names -> list of names) that ``label`` describes."""
    if isinstance(label, RName) and label in _NAMED:
        return _NAMED[label]
    if isinstance(label, FormulaArg):
        if label.lhs is not None:
            raise TermError(f"term Label: a label formula has no left-hand side; supported: "
                            f"{SUPPORTED}")
        text, names = label.text, _PLACEHOLDERS
    elif isinstance(label, RCode) and label.text.startswith(("function", "\\")):
        text, names = _function_body(label.text)
    else:
        raise TermError(f"term Label: the label {getattr(label, 'text', label)!r} is not "
                        f"supported; supported: {SUPPORTED}")
    expr = _Reader(text, names).read()

    def apply(labels):
        labels = list(labels)
        budget = Budget(input_chars=sum(map(len, labels)))
        try:
            return _broadcast(_eval(expr, labels, budget), len(labels))
        except RegexError as exc:
            raise TermError(f"term Label: the label function {text.strip()!r} is refused: "
                            f"{exc}") from None
    return apply


def _function_body(text):
    toks = tokenize(text)
    kinds = [(k, v) for k, v, _ in toks[:4]]
    if len(toks) < 5 or kinds[1] != ("op", "(") or kinds[2][0] != "name" or \
            kinds[3] != ("op", ")"):
        raise TermError(f"term Label: only a function of one argument is supported, got "
                        f"{text!r}; supported: {SUPPORTED}")
    return text[toks[4][2]:], (kinds[2][1],)


class _Reader:
    """expr := string | placeholder | '{' expr '}' | name '(' [arg {',' arg}] ')' ;
    arg := expr | 'sep' '=' string."""

    def __init__(self, text, names):
        self.text, self.names = text, names
        try:
            self.toks = tokenize(text)
        except FormulaError as exc:
            raise TermError(f"term Label: cannot read the label {text!r}: {exc}") from None
        self.i = 0

    def fail(self, what):
        raise TermError(f"term Label: in the label {self.text!r}, {what}; supported: "
                        f"{SUPPORTED}")

    def read(self):
        e = self.expr()
        if self.toks[self.i][0] != "end":
            self.fail(f"unexpected {self.toks[self.i][1]!r}")
        return e

    def take(self, val):
        if self.toks[self.i][1] != val:
            self.fail(f"expected {val!r}")
        self.i += 1

    def expr(self):
        kind, val, pos = self.toks[self.i]
        self.i += 1
        if kind == "str":
            return ("str", FormulaParser(self.text)._string(val[1:-1], pos))
        if kind == "name" and val in self.names:
            return ("arg",)
        if val == "{":                      # function(x) { body }
            e = self.expr()
            self.take("}")
            return e
        if kind == "name" and val in ("toupper", "tolower", "paste0", "paste"):
            self.take("(")
            args, sep = [], " " if val == "paste" else ""
            while self.toks[self.i][1] != ")":
                if self.toks[self.i][1] == "sep" and self.toks[self.i + 1][1] == "=":
                    if val != "paste":
                        self.fail("sep= is an argument of paste only")
                    self.i += 2
                    s = self.expr()
                    if s[0] != "str":
                        self.fail("sep= must be a string")
                    sep = s[1]
                else:
                    args.append(self.expr())
                if self.toks[self.i][1] == ",":
                    self.i += 1
                elif self.toks[self.i][1] != ")":
                    self.fail(f"unexpected {self.toks[self.i][1]!r}")
            self.i += 1
            if val in ("toupper", "tolower") and len(args) != 1:
                self.fail(f"{val}() takes one argument")
            if not args:
                self.fail(f"{val}() needs an argument")
            return (val, args, sep)
        if kind == "name" and val in ("gsub", "sub"):
            return self.substitution(val)
        if kind == "end":
            self.fail("the expression ends early")
        self.fail(f"{val!r} is not supported (the argument is {' or '.join(self.names)})")

    def substitution(self, fun):
        """``gsub``/``sub``(pattern, replacement, x, ignore.case, perl, fixed, useBytes)."""
        self.take("(")
        order = ["pattern", "replacement", "x", "ignore.case", "perl", "fixed", "useBytes"]
        got, positional = {}, 0
        while self.toks[self.i][1] != ")":
            kind, val, _ = self.toks[self.i]
            if kind == "name" and self.toks[self.i + 1][1] == "=":
                if val not in order:
                    self.fail(f"{fun}() has no argument {val!r}")
                name = val
                self.i += 2
            else:
                while positional < len(order) and order[positional] in got:
                    positional += 1
                if positional >= len(order):
                    self.fail(f"{fun}() takes at most {len(order)} arguments")
                name = order[positional]
            if name in got:
                self.fail(f"{fun}(): {name} is given twice")
            if name in ("pattern", "replacement", "x"):
                got[name] = self.expr()
                if name != "x" and got[name][0] != "str":
                    self.fail(f"{fun}(): {name} must be a string")
            else:
                flag = self.toks[self.i][1]
                if flag not in ("TRUE", "FALSE", "T", "F"):
                    self.fail(f"{fun}(): {name} must be TRUE or FALSE")
                got[name] = flag in ("TRUE", "T")
                self.i += 1
            if self.toks[self.i][1] == ",":
                self.i += 1
            elif self.toks[self.i][1] != ")":
                self.fail(f"unexpected {self.toks[self.i][1]!r}")
        self.i += 1
        missing = [a for a in ("pattern", "replacement", "x") if a not in got]
        if missing:
            self.fail(f"{fun}() needs {', '.join(missing)}")
        pattern, repl = got["pattern"][1], got["replacement"][1]
        count = 0 if fun == "gsub" else 1
        literal = got.get("fixed") or (pattern and not got.get("ignore.case") and not any(
            c in pattern for c in "\\.^$*+?{}[]|()") and "\\" not in repl)
        if literal:                       # fixed=TRUE, or a pattern without metacharacters
            def apply(v, budget):
                n = v.count(pattern) if count == 0 else min(v.count(pattern), 1)
                budget.spend_chars(len(v) + n * (len(repl) - len(pattern)))
                return v.replace(pattern, repl, -1 if count == 0 else 1)
        else:
            try:
                rx = Pattern(pattern, ignore_case=bool(got.get("ignore.case")))
            except RegexError as exc:
                self.fail(f"the pattern {pattern!r} is not a regular expression ergmfit "
                          f"can use: {exc}")
            template = self.replacement(repl, rx.groups)

            def apply(v, budget):
                return rx.sub(template, v, count, budget)
        return ("sub", [got["x"]], apply)

    def replacement(self, repl, groups):
        """R's replacement text as pieces: strings and group numbers (``\\0``: the match)."""
        out, k = [], 0
        while k < len(repl):
            ch = repl[k]
            if ch == "\\" and k + 1 < len(repl):
                nxt = repl[k + 1]
                if nxt.isdigit():
                    if int(nxt) > groups:
                        self.fail(f"the replacement refers to group {nxt}, but the pattern "
                                  f"has {groups}")
                    out.append(int(nxt))
                elif nxt in "ULE":
                    self.fail(f"perl's case conversion \\{nxt} in a replacement is not "
                              f"supported")
                else:
                    out.append(nxt)
                k += 2
            else:
                out.append(ch)
                k += 1
        return out


def _broadcast(v, n):
    return [v] * n if isinstance(v, str) else v


def _eval(e, labels, budget):
    if e[0] == "str":
        return e[1]
    if e[0] == "arg":
        return labels
    name, args, sep = e
    vals = [_eval(a, labels, budget) for a in args]
    if name == "sub":                     # gsub / sub: sep holds the substitution
        v = vals[0]
        return sep(v, budget) if isinstance(v, str) else [sep(s, budget) for s in v]
    if name in ("toupper", "tolower"):
        v = vals[0]
        f = str.upper if name == "toupper" else str.lower
        return f(v) if isinstance(v, str) else [f(s) for s in v]
    n = len(labels)
    if all(isinstance(v, str) for v in vals):
        budget.spend_chars(sum(map(len, vals)) + len(sep) * (len(vals) - 1))
        return sep.join(vals)
    budget.spend_chars(sum(len(v) * n if isinstance(v, str) else sum(map(len, v))
                           for v in vals) + len(sep) * (len(vals) - 1) * n)
    return [sep.join(v if isinstance(v, str) else v[k] for v in vals) for k in range(n)]
