"""Small R expressions over named arrays, parsed (never eval-ed): ergm.multi's layer logic
(``~advice & !friendship``), ``N()``'s ``subset`` (``~wave > 1``) and the variables of its
``lm`` design (``log(size)``).

Grammar (R's precedence): ``|``/``||`` < ``&``/``&&`` < ``!`` < comparisons
(``== != < > <= >=``) < ``+ -`` < ``* / %%`` < ``^`` < unary ``-`` < atoms: numbers,
strings, ``TRUE``/``FALSE``, names (backquoted or not), calls of ``xor``, ``abs``, ``log``,
``exp``, ``sqrt``, ``as.numeric``, ``I`` and ``(...)``.
"""
from __future__ import annotations

import re

import numpy as np

from ..exceptions import TermError

_TOKEN = re.compile(r"""\s*(?:
    (?P<num>\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
  | (?P<str>"[^"]*"|'[^']*')
  | (?P<name>`[^`]+`|[A-Za-z.][A-Za-z0-9._]*)
  | (?P<op>\|\||&&|==|!=|<=|>=|%%|[|&!<>+\-*/^(),])
)""", re.X)

#: how deeply an expression may nest (parentheses, calls, ``!``, ``^`` and unary signs)
MAX_DEPTH = 100

_FUNCS = {"abs": np.abs, "log": np.log, "exp": np.exp, "sqrt": np.sqrt,
          "as.numeric": lambda x: np.asarray(x, dtype=float), "I": lambda x: x}


def _tokens(text, what):
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise TermError(f"{what}: cannot read {text!r} at {text[pos:pos + 10]!r}")
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "name" and val.startswith("`"):
            val = val[1:-1]
        out.append((kind, val))
        pos = m.end()
    out.append(("end", ""))
    return out


class _Parser:
    def __init__(self, text, env, what):
        self.toks = _tokens(text, what)
        self.i = 0
        self.env = env
        self.what = what
        self.text = text
        self.names = []
        self.depth = 0

    def peek(self):
        return self.toks[self.i]

    def take(self, *ops):
        kind, val = self.toks[self.i]
        if kind == "op" and val in ops:
            self.i += 1
            return val
        return None

    def error(self, msg):
        text = self.text if len(self.text) <= 80 else self.text[:60] + "..."
        return TermError(f"{self.what}: {msg} in {text!r}")

    def parse(self):
        v = self.or_()
        if self.peek()[0] != "end":
            raise self.error(f"unexpected {self.peek()[1]!r}")
        return v

    def nest(self):
        """One level deeper (each recursive rule calls this); an error past MAX_DEPTH."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested more than {MAX_DEPTH} deep")

    def or_(self):
        self.nest()
        v = self.and_()
        while self.take("|", "||"):
            v = np.logical_or(v, self.and_())
        self.depth -= 1
        return v

    def and_(self):
        v = self.not_()
        while self.take("&", "&&"):
            v = np.logical_and(v, self.not_())
        return v

    def not_(self):
        if self.take("!"):
            self.nest()
            v = np.logical_not(self.not_())
            self.depth -= 1
            return v
        return self.cmp()

    def cmp(self):
        v = self.add()
        op = self.take("==", "!=", "<", ">", "<=", ">=")
        if op:
            w = self.add()
            v = {"==": np.equal, "!=": np.not_equal, "<": np.less, ">": np.greater,
                 "<=": np.less_equal, ">=": np.greater_equal}[op](v, w)
        return v

    def add(self):
        v = self.mul()
        while True:
            op = self.take("+", "-")
            if not op:
                return v
            w = self.mul()
            v = np.add(v, w) if op == "+" else np.subtract(v, w)

    def mul(self):
        v = self.pow()
        while True:
            op = self.take("*", "/", "%%")
            if not op:
                return v
            w = self.pow()
            with np.errstate(divide="ignore", invalid="ignore"):
                v = {"*": np.multiply, "/": np.divide, "%%": np.mod}[op](
                    np.asarray(v, dtype=float), np.asarray(w, dtype=float))

    def pow(self):
        v = self.unary()
        if self.take("^"):
            self.nest()
            with np.errstate(over="ignore", invalid="ignore"):
                v = np.power(np.asarray(v, dtype=float), self.pow())
            self.depth -= 1
        return v

    def unary(self):
        sign = self.take("-", "+")
        if sign:
            self.nest()
            v = self.unary()
            self.depth -= 1
            return np.negative(np.asarray(v, dtype=float)) if sign == "-" else v
        return self.atom()

    def atom(self):
        kind, val = self.peek()
        self.i += 1
        if kind == "num":
            return float(val)
        if kind == "str":
            return val[1:-1]
        if kind == "op" and val == "(":
            v = self.or_()
            if not self.take(")"):
                raise self.error("missing ')'")
            return v
        if kind == "name":
            if self.take("("):
                args = []
                if not self.take(")"):
                    args.append(self.or_())
                    while self.take(","):
                        args.append(self.or_())
                    if not self.take(")"):
                        raise self.error("missing ')'")
                if val == "xor" and len(args) == 2:
                    return np.logical_xor(args[0], args[1])
                if val in _FUNCS and len(args) == 1:
                    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                        return _FUNCS[val](args[0])
                raise self.error(f"the function {val}() is not supported (xor, "
                                 f"{', '.join(_FUNCS)})")
            if val in ("TRUE", "T"):
                return True
            if val in ("FALSE", "F"):
                return False
            if val not in self.env:
                have = ", ".join(repr(k) for k in self.env) or "none"
                raise self.error(f"unknown name {val!r} (known: {have})")
            self.names.append(val)
            return self.env[val]
        raise self.error(f"unexpected {val!r}" if val else "the expression ends too early")


def evaluate(text, env, what="expression"):
    """The value of the R expression ``text`` with the names of ``env`` bound to arrays.

    >>> import numpy as np
    >>> evaluate("a & !b", {"a": np.array([1, 1, 0]), "b": np.array([0, 1, 0])}).tolist()
    [True, False, False]
    """
    return _Parser(text, env, what).parse()


def names_in(text, env, what="expression") -> list:
    """The names of ``env`` that ``text`` uses, in order of appearance."""
    p = _Parser(text, env, what)
    p.parse()
    return list(dict.fromkeys(p.names))
