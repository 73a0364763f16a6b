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
``paste0`` and ``paste`` (with ``sep=``), nested freely.  Anything else is refused with a
TermError naming what is supported: no R code is ever evaluated.
"""
from __future__ import annotations

from ..exceptions import FormulaError, TermError
from ..formula import FormulaArg, RCode, RName, _Parser, _tokenize

SUPPORTED = ("a function name (toupper, tolower, identity), a formula such as "
             "~toupper(.) or ~paste0(\"prefix\", .), or function(x) <expression in x> "
             "(or R's lambda \\(x) <expression in x>); "
             "expressions may use string literals and toupper, tolower, paste0, paste(sep=)")
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
    return lambda labels: _broadcast(_eval(expr, list(labels)), len(labels))


def _function_body(text):
    toks = _tokenize(text)
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
            self.toks = _tokenize(text)
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
            return ("str", _Parser(self.text)._string(val[1:-1], pos))
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
        if kind == "end":
            self.fail("the expression ends early")
        self.fail(f"{val!r} is not supported (the argument is {' or '.join(self.names)})")


def _broadcast(v, n):
    return [v] * n if isinstance(v, str) else v


def _eval(e, labels):
    if e[0] == "str":
        return e[1]
    if e[0] == "arg":
        return labels
    name, args, sep = e
    vals = [_eval(a, labels) for a in args]
    if name in ("toupper", "tolower"):
        v = vals[0]
        f = str.upper if name == "toupper" else str.lower
        return f(v) if isinstance(v, str) else [f(s) for s in v]
    if all(isinstance(v, str) for v in vals):
        return sep.join(vals)
    n = len(labels)
    return [sep.join(v if isinstance(v, str) else v[k] for v in vals) for k in range(n)]
