"""Model formulas, parsed (never ``eval``-ed).

Grammar (statnet's right-hand side, with Python spellings accepted too)::

    formula := ['~'] term ('+' term)*
    term    := NAME ['(' [arg (',' arg)*] ')']
    arg     := [NAME '='] expr
    expr    := sum [':' sum]                     # 0:4 -> [0, 1, 2, 3, 4]
    sum     := product (('+' | '-') product)*
    product := unary (('*' | '/') unary)*
    unary   := ('-' | '+') unary | atom                # Inf is R's Inf
    atom    := NUMBER | STRING | TRUE | FALSE | NULL | NAME
             | '[' [expr (',' expr)*] ']' | 'c(' ... ')' | 'I(' expr ')'
             | LARGEST ['(' n ')'] | SMALLEST ['(' n ')'] | 'COLLAPSE_SMALLEST(' a, n, into ')'
             | 'rep(' x, times ')'
             | ('log' | 'exp' | 'sqrt') '(' expr ')' | '(' expr ')'

A bare NAME inside an argument is a string (``type=OTP``).

Limits (each a :class:`~ergmfit.exceptions.FormulaError` naming it): at most
``MAX_DEPTH`` (50) nested parentheses, brackets, ``c(...)`` or minus signs;
numbers within the range of floating-point numbers (whole numbers beyond
2**53 become floats, as in R); ranges ``a:b`` of at most a million numbers,
and at most ``MAX_VALUES`` (a million) for all ranges of a formula together;
digits are ASCII ``0-9``; string escapes are Python's (``\\n``, ``\\x41``,
``\\u00e9``, ``\\N{name}``), and a broken one is an error.

Examples
--------
>>> [c.name for c in parse_formula("edges + kstar(2) + gwesp(0.25, fixed=TRUE)")]
['edges', 'kstar', 'gwesp']
>>> parse_formula("degree(0:2)")[0].args
([0, 1, 2],)
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .exceptions import FormulaError

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_.][A-Za-z0-9_.]*)
  | (?P<op>==|!=|>=|<=|%>%|\|>|%[A-Za-z]*%|[~+\-*/(),=\[\]:!<>&|^{}\\])
""", re.VERBOSE)

_CONSTANTS = {"true": True, "t": True, "false": False, "f": False, "null": None, "none": None}
_FUNCS = {"log": math.log, "exp": math.exp, "sqrt": math.sqrt}
_MAX_RANGE = 1_000_000      # a range a:b longer than this is a typo, not a model
MAX_VALUES = 1_000_000      # numbers all lists and ranges of one formula expand to, together
MAX_DEPTH = 50              # nesting of parentheses, brackets, c(...) and unary minus
MAX_LENGTH = 100_000        # characters in a formula
MAX_INT = 2 ** 53           # larger whole numbers are kept as floats (as R does)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"',
            "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})"
                     r"|N\{([^}]*)\}|(.))", re.S)


@dataclass
class FormulaArg:
    """A formula given as a term argument (``~edges + triangle``, ``2 ~ triangle``,
    ``"mean" ~ nodematch("a")``, ``~absdiff("x") > 1``): its right-hand side as written and
    the left-hand side value (None without one).  Operator terms parse ``text`` as terms
    (:attr:`terms`) or as a dyad / node expression."""

    text: str
    lhs: object = None

    @property
    def terms(self) -> list:
        return parse_formula(self.text)

    @property
    def compact(self) -> str:
        """The text without blanks outside strings, as statnet prints it in labels."""
        return compact_text(self.text)


class AsIs(list):
    """R's ``I(...)`` around argument values: meant literally.  statnet reads numbers in
    ``levels=`` as indices into the sorted levels, but ``I(c(7, 9))`` as the level values
    7 and 9 (``nodes=I(k)``: node k of the whole network)."""


class RName(str):
    """A bare R name given as an argument value (``label=toupper``, ``attr=Grade``).  It is
    a str, read as the string is everywhere, except where statnet takes a function: there
    (``Label(~edges, toupper)``) it names one."""


@dataclass(frozen=True)
class LevelSelector:
    """statnet's ``LARGEST`` / ``SMALLEST`` level selections (``LARGEST(2)``, ``-SMALLEST``):
    the ``n`` most (least) frequent levels of the term's attribute, or all but those when
    ``negate``.  Resolved against the attribute when the term is built (.terms.attrspec)."""

    kind: str
    n: int = 1
    negate: bool = False

    def __neg__(self):
        return LevelSelector(self.kind, self.n, not self.negate)


@dataclass(frozen=True)
class CollapseSmallest:
    """statnet's ``COLLAPSE_SMALLEST(attr, n, into)``: the attribute with its ``n`` least
    frequent levels merged into one level ``into`` (resolved by .terms.attrspec)."""

    attr: object
    n: int
    into: object


@dataclass
class RCode:
    """An R expression ergmfit does not evaluate (``function(x, n, ...) c(x, 2*x)``)."""

    text: str


def compact_text(text):
    """``text`` without blanks outside strings, strings in double quotes: R's
    ``despace(deparse(...))``, which statnet's labels print (``F(nodematch("a"))~edges``
    also for ``~nodematch('a')``)."""
    out, quote, body = [], None, []
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                body.append(nxt if nxt == "'" and quote == "'" else ch + nxt)
                i += 2
                continue
            if ch == quote:
                out.append('"' + "".join(body) + '"')
                quote, body = None, []
            else:
                body.append('\\"' if ch == '"' and quote == "'" else ch)
        elif ch in "'\"":
            quote = ch
        elif not ch.isspace():
            out.append(ch)
        i += 1
    if quote:                      # an unterminated string (the parser refuses it anyway)
        out.append(quote + "".join(body))
    return "".join(out)


@dataclass
class TermCall:
    """One term of a formula as written: name, positional and keyword arguments."""

    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    text: str = ""


def tokenize(text):
    pos = 0
    out = []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            hint = (" (not the digit of a number: numbers are written with 0-9)"
                    if text[pos].isnumeric() else "")
            raise FormulaError(_where(text, pos, f"unexpected character {text[pos]!r}{hint}"))
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(), pos))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


def _where(text, pos, msg):
    return f"{msg} in formula at position {pos}:\n  {text}\n  {' ' * pos}^"


class FormulaParser:
    def __init__(self, text, networks=()):
        self.networks = frozenset(networks)     # names a left-hand side may give
        if len(text) > MAX_LENGTH:
            raise FormulaError(f"the formula is {len(text):,} characters long; at most "
                               f"{MAX_LENGTH:,} are read")
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0              # nesting of expressions being parsed
        self.values = 0             # numbers the ranges so far expanded to

    def _enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.error(f"the formula nests more than {MAX_DEPTH} levels deep")

    def _number(self, v, pos):
        """v as a number of bounded size: large whole numbers become floats, floats finite."""
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_INT:
            try:
                v = float(v)
            except OverflowError:
                v = math.inf
        if isinstance(v, float) and not math.isfinite(v):
            raise FormulaError(_where(self.text, pos, "a number in the formula is too large "
                                      "(beyond the range of floating-point numbers)"))
        return v

    def _string(self, body, pos):
        """The text of a quoted string, its backslash escapes resolved (never Python's decoder)."""
        if "\\" not in body:
            return body

        def one(m):
            hexa = m.group(1) or m.group(2) or m.group(3)
            if hexa:
                code = int(hexa, 16)
                if code > 0x10FFFF:
                    raise FormulaError(_where(self.text, pos, f"the escape '{m.group()}' is not "
                                              "a character"))
                return chr(code)
            if m.group(4) is not None:
                import unicodedata
                try:
                    return unicodedata.lookup(m.group(4))
                except KeyError:
                    raise FormulaError(_where(self.text, pos, f"unknown character name in "
                                              f"'{m.group()}'")) from None
            c = m.group(5)
            if c in _ESCAPES:
                return _ESCAPES[c]
            if c in "xuUN":
                raise FormulaError(_where(self.text, pos, f"incomplete escape '\\{c}' in a "
                                          "string (write '\\\\' for a backslash)"))
            return "\\" + c                   # an unknown escape stays as written, as in Python
        return _ESCAPE.sub(one, body)

    def peek(self):
        return self.toks[self.i]

    def take(self, value=None, kind=None):
        tok = self.toks[self.i]
        if (value is not None and tok[1] != value) or (kind is not None and tok[0] != kind):
            want = repr(value) if value is not None else kind
            got = "the end" if tok[0] == "end" else repr(tok[1])
            raise FormulaError(_where(self.text, tok[2], f"expected {want}, found {got}"))
        self.i += 1
        return tok

    def error(self, msg):
        raise FormulaError(_where(self.text, self.peek()[2], msg))

    def formula(self):
        if not self.text.strip():
            raise FormulaError("the formula is empty; write terms such as 'edges + triangle'")
        # optional "lhs ~": the network's name (statnet's ``net ~ terms``), one of those
        # the caller gave (``networks``); any other name is an error, not dropped
        # (``edges ~ triangle`` would otherwise fit ``triangle`` alone)
        if self.peek()[1] == "~":
            self.take("~")
        elif (self.toks[self.i][0] == "name" and len(self.toks) > 2
              and self.toks[self.i + 1][1] == "~"):
            self._check_lhs(self.toks[self.i][1])
            self.i += 2
        terms = self.product_term()
        while self.peek()[1] == "+":
            self.take("+")
            terms.extend(self.product_term())
        if self.peek()[0] != "end":
            self.error(f"expected '+' between terms, found {self.peek()[1]!r}")
        return terms

    def _check_lhs(self, name):
        """A left-hand side is accepted when it names the network the caller gave or, for a
        network object (no name given), any name that is not a term's (statnet's ``net ~``
        copied as it is); a term's name (``edges ~ triangle``) or another name than the given
        one is a :class:`FormulaError`."""
        if name in self.networks:
            return
        if self.networks or _is_term_name(name):
            raise FormulaError(self._lhs_message(name))

    def _lhs_message(self, name):
        rhs = self.text[self.toks[self.i + 2][2]:].strip() or "..."
        if not self.networks:
            return _where(self.text, self.toks[self.i][2],
                          f"the formula's left-hand side {name!r} is a term, not a network's "
                          f"name: write '{name} + {rhs}' (or '{rhs}')")
        given = ", ".join(map(repr, sorted(self.networks)))
        return _where(self.text, self.toks[self.i][2],
                      f"the formula's left-hand side {name!r} is not the network's name "
                      f"({given} given): the network is ERGM's own argument, so a formula is "
                      f"its terms: write '{rhs}' (or, if {name!r} is a term, '{name} + {rhs}')")

    def product_term(self):
        """``a``, ``a:b`` (interaction) or ``a*b`` (a + b + a:b), as a list of TermCalls."""
        out = [self.term()]
        while self.peek()[1] in (":", "*"):
            op = self.take()[1]
            right = self.term()
            last = out[-1]
            inter = TermCall(":", (last, right), {}, f"{last.text}:{right.text}")
            out = out[:-1] + ([last, right, inter] if op == "*" else [inter])
        return out

    def _capture(self):
        """The text from here to the next ',' or ')' outside brackets (tokens consumed)."""
        start = self.peek()[2]
        depth = 0
        while True:
            kind, val, pos = self.peek()
            if kind == "end":
                self.error("the formula ends inside an argument")
            if val in ("(", "[", "{"):
                depth += 1
            elif val in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
            elif val == "," and depth == 0:
                break
            self.i += 1
        return self.text[start:self.peek()[2]].strip()

    def _function(self, pos):
        """An R function, ``function(x) body`` or ``\\(x) body``, kept as its text (RCode);
        the tokens after its '(' are consumed up to the end of the body."""
        depth = 1                # skip the argument list, then the body
        while depth:
            kind, v = self.peek()[:2]
            if kind == "end":
                self.error("the formula ends inside a function")
            depth += v == "("
            depth -= v == ")"
            self.i += 1
        self._capture()
        return RCode(self.text[pos:self.peek()[2]].strip())

    def term(self):
        tok = self.peek()
        if tok[0] != "name":
            self.error("expected a term name" if tok[0] != "end" else
                       "expected a term name after '+'")
        start = tok[2]
        name = self.take(kind="name")[1]
        args, kwargs = [], {}
        if self.peek()[1] == "(":
            self.take("(")
            args, kwargs = self._call_args(name)
        return TermCall(name, tuple(args), kwargs, self.text[start:self.peek()[2]].strip())

    def expr(self):
        if self.peek()[1] == "~":
            self.take("~")
            return FormulaArg(self._capture())
        self._enter()
        lo = self.sum()
        while self.peek()[1] in ("%>%", "|>"):       # "x" %>% COLLAPSE_SMALLEST(2, 5)
            self.take()
            kind, val, pos = self.peek()
            if val != "COLLAPSE_SMALLEST" or self.toks[self.i + 1][1] != "(":
                self.error("only COLLAPSE_SMALLEST(n, into) can follow a pipe in an argument")
            self.i += 2
            args, kwargs = self._call_args(val)
            lo = self._collapse([lo] + args, kwargs, pos)
        if self.peek()[1] == "~":
            self.take("~")
            self.depth -= 1
            return FormulaArg(self._capture(), lhs=lo)
        if self.peek()[1] == ":":
            self.take(":")
            hi = self.sum()
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       and float(v).is_integer() for v in (lo, hi)):
                self.error("a range a:b needs whole numbers")
            lo, hi = int(lo), int(hi)
            if abs(hi - lo) > _MAX_RANGE:
                self.error(f"the range {lo}:{hi} is too long (at most {_MAX_RANGE:,} values)")
            self.values += abs(hi - lo) + 1
            if self.values > MAX_VALUES:
                self.error(f"the ranges of the formula expand to more than {MAX_VALUES:,} "
                           "numbers together")
            step = 1 if hi >= lo else -1
            lo = list(range(lo, hi + step, step))
        self.depth -= 1
        return lo

    def _arith(self, op, v, w, pos):
        a, b = self._num(v, op), self._num(w, op)
        try:
            out = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
        except OverflowError:
            out = math.inf
        return self._number(out, pos)

    def _num(self, v, op):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.error(f"'{op}' needs numbers")
        return v

    def sum(self):
        v = self.product()
        while self.peek()[1] in "+-" and self.peek()[0] == "op":
            op, pos = self.take()[1:]
            w = self.product()
            v = self._arith(op, v, w, pos)
        return v

    def product(self):
        v = self.unary()
        while self.peek()[1] in ("*", "/"):
            op, pos = self.take()[1:]
            w = self.unary()
            if op == "/" and self._num(w, op) == 0:
                self.error("division by zero")
            v = self._arith(op, v, w, pos)
        return v

    def unary(self):
        if self.peek()[1] == "-":
            self.take("-")
            self._enter()
            v = self.unary()
            self.depth -= 1
            if isinstance(v, LevelSelector):     # -LARGEST: all levels but the largest
                return -v
            if isinstance(v, list):          # -(2:3), -c(1, 2): statnet's "drop these levels"
                return [-self._num(x, "-") for x in v]
            return -self._num(v, "-")
        if self.peek()[1] == "+" and self.peek()[0] == "op":     # R's unary plus: +Inf
            self.take("+")
            self._enter()
            v = self.unary()
            self.depth -= 1
            return [self._num(x, "+") for x in v] if isinstance(v, list) else self._num(v, "+")
        return self.atom()

    def atom(self):
        kind, val, pos = self.peek()
        if kind == "num":
            self.take()
            f = float(val)
            if not math.isfinite(f):
                raise FormulaError(_where(self.text, pos, f"the number {val[:20]}... is too large"))
            if val.isdigit() and len(val) <= 16:
                return self._number(int(val), pos)
            return f
        if kind == "str":
            self.take()
            return self._string(val[1:-1], pos)
        if val == "[":
            self.take("[")
            return self._list("]")
        if val == "(":
            self.take("(")
            v = self.expr()
            self.take(")")
            return v
        if val == "\\" and self.toks[self.i + 1][1] == "(":     # R 4.1's lambda \(x) body
            self.i += 2
            return self._function(pos)
        if kind == "name":
            self.take()
            low = val.lower()
            if self.peek()[1] == "(":
                self.take("(")
                if low == "c":
                    return self._list(")")
                if low == "i":
                    v = self.expr()
                    self.take(")")
                    return AsIs(v) if isinstance(v, list) else AsIs([v])
                if val == "function":
                    return self._function(pos)
                if val in ("LARGEST", "SMALLEST"):
                    n = self.expr()
                    self.take(")")
                    if isinstance(n, bool) or not isinstance(n, (int, float)) or n < 1 \
                            or not float(n).is_integer():
                        raise FormulaError(_where(self.text, pos, f"{val}(n) needs a whole "
                                                  "number n >= 1"))
                    return LevelSelector(val, int(n))
                if val == "rep":                 # R's rep(x, times), rep(x, each=, length.out=)
                    return self._rep(*self._call_args(val), pos)
                if val == "COLLAPSE_SMALLEST":
                    args, kwargs = self._call_args(val)
                    return self._collapse(args, kwargs, pos)
                if val in ("list", "matrix", "rbind", "cbind"):
                    args, kwargs = self._call_args(val)
                    if val != "list":    # a matrix, evaluated where it is used (r_value)
                        return RCode(self.text[pos:self.toks[self.i - 1][2] + 1])
                    return kwargs if kwargs and not args else args + list(kwargs.values())
                if low in _FUNCS:
                    v = self._num(self.expr(), low)
                    self.take(")")
                    try:
                        out = _FUNCS[low](v)
                    except ValueError:
                        raise FormulaError(_where(self.text, pos, f"{low}({v}) is undefined")) from None
                    except OverflowError:
                        raise FormulaError(_where(self.text, pos, f"{low}({v}) is too large")) from None
                    return self._number(out, pos)
                raise FormulaError(_where(self.text, pos, f"unknown function {val!r} in an argument "
                                          "(log, exp, sqrt, c and I are understood)"))
            if low in _CONSTANTS and val in ("TRUE", "FALSE", "T", "F", "True", "False",
                                             "NULL", "None", "true", "false"):
                return _CONSTANTS[low]
            if val == "Inf":                 # R's Inf (statnet: to=+Inf, minpar=-Inf)
                return math.inf
            if val in ("LARGEST", "SMALLEST"):
                return LevelSelector(val)
            return RName(val)
        if kind == "end":
            self.error("the formula ends in the middle of an argument")
        self.error(f"unexpected {val!r}")

    def _rep(self, args, kwargs, pos):
        def count(v, what):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 \
                    or not float(v).is_integer() or v > _MAX_RANGE:
                raise FormulaError(_where(self.text, pos, f"rep(): {what} must be a whole "
                                          "number"))
            return int(v)
        if not args or len(args) > 2 or set(kwargs) - {"times", "each", "length.out"}:
            raise FormulaError(_where(self.text, pos, "rep(x, times) or rep(x, each=, "
                                      "length.out=) is understood"))
        x = args[0] if isinstance(args[0], list) else [args[0]]
        x = [v for v in x for _ in range(count(kwargs.get("each", 1), "each"))]
        times = args[1] if len(args) > 1 else kwargs.get("times", 1)
        if isinstance(times, list) and len(times) == len(x):
            out = [v for v, t in zip(x, times) for _ in range(count(t, "times"))]
        else:
            out = x * count(times, "times")
        if "length.out" in kwargs:
            k = count(kwargs["length.out"], "length.out")
            out = [out[i % len(out)] for i in range(k)] if out else []
        self.values += len(out)
        if self.values > MAX_VALUES:
            self.error(f"the formula's vectors expand to more than {MAX_VALUES:,} numbers")
        return out

    def _collapse(self, args, kwargs, pos):
        vals = args + [kwargs[k] for k in ("object", "n", "into") if k in kwargs]
        if len(vals) != 3 or isinstance(vals[1], bool) or not isinstance(vals[1], int) \
                or vals[1] < 1:
            raise FormulaError(_where(self.text, pos, "COLLAPSE_SMALLEST(attr, n, into) needs "
                                      "an attribute, a whole number n >= 1 and the new level"))
        return CollapseSmallest(vals[0], vals[1], vals[2])

    def _call_args(self, name):
        """Arguments of ``name(...)`` whose '(' is taken, up to and including ')'."""
        args, kwargs = [], {}
        if self.peek()[1] != ")":
            while True:
                if self.peek()[0] == "name" and self.toks[self.i + 1][1] == "=":
                    key = self.take(kind="name")[1]
                    self.take("=")
                    if key in kwargs:
                        self.error(f"argument {key!r} of {name} given twice")
                    kwargs[key] = self.expr()
                else:          # R matches positional arguments after the named ones
                    args.append(self.expr())
                if self.peek()[1] == ",":
                    self.take(",")
                    continue
                break
        self.take(")")
        return args, kwargs

    def _list(self, close):
        items = []
        if self.peek()[1] != close:
            while True:
                v = self.expr()
                if isinstance(v, list):
                    items.extend(v)
                else:
                    items.append(v)
                if self.peek()[1] == ",":
                    self.take(",")
                    continue
                break
        self.take(close)
        return items


def _is_term_name(name) -> bool:
    """Whether ``name`` is a registered term's name or alias in any state (the generated
    index: no term module is imported)."""
    from .terms._index import INDEX
    key = name.lower()
    return any(key in names for names in INDEX.values())


def parse_formula(text: str, networks=()) -> list:
    """Parse a formula into a list of :class:`TermCall`.

    Parameters
    ----------
    text : str
        The formula: terms joined by ``+``, optionally after ``~`` or ``NAME ~``.
    networks : iterable of str, optional
        The names a left-hand side ``NAME ~`` may give: those of the network the
        caller supplied (see :func:`network_names`); any other name is then an
        error naming it.  With none given (a network object has no name), any
        name that is not a term's is accepted (statnet's ``net ~ terms``), and a
        term's name is an error (``edges ~ triangle`` is a typo for ``edges +
        triangle``, not the model ``triangle``).

    Raises :class:`~ergmfit.exceptions.FormulaError` with the position of
    the problem.

    Examples
    --------
    >>> [c.name for c in parse_formula("lazega ~ edges", networks=["lazega"])]
    ['edges']
    >>> parse_formula("edges ~ triangle")
    Traceback (most recent call last):
    ...
    ergmfit.exceptions.FormulaError: the formula's left-hand side 'edges' is a term, ...
    >>> [c.name for c in parse_formula("g ~ edges")]
    ['edges']
    """
    if not isinstance(text, str):
        raise FormulaError(f"a formula must be a string, got {type(text).__name__}")
    return _splice(FormulaParser(text, networks).formula(), 0)


def formula_rhs(text, networks=()):
    """``text`` without its left-hand side (``"lazega ~ edges"`` -> ``"edges"``), checked as
    :func:`parse_formula` checks it: a ``NAME ~`` whose name is not one of ``networks`` is a
    :class:`~ergmfit.exceptions.FormulaError` naming it (``networks=None``: any name, for a
    formula accepted before, such as one a results file or a pickle kept).  Anything that
    is not a string, or has no left-hand side, is returned unchanged (the parser reports
    other problems).

    Examples
    --------
    >>> formula_rhs("lazega ~ edges + triangle", networks=network_names("lazega"))
    'edges + triangle'
    >>> formula_rhs("~ edges"), formula_rhs("edges"), formula_rhs("g ~ edges", None)
    ('~ edges', 'edges', 'edges')
    """
    if not isinstance(text, str) or len(text) > MAX_LENGTH or "~" not in text:
        return text
    try:
        toks = tokenize(text)
    except FormulaError:
        return text
    if len(toks) > 2 and toks[0][0] == "name" and toks[1][1] == "~":
        p = FormulaParser(text, networks or ())
        if networks is not None:
            p._check_lhs(toks[0][1])
        return text[toks[2][2]:].strip()
    return text


def network_names(data) -> tuple:
    """The names a formula's left-hand side may give for the network ``data``: the
    dataset name or file path the caller wrote (and the file's name without its folder
    and extensions: ``data/flo.csv.gz`` -> ``flo``); none for a network object, which
    has no name.

    Examples
    --------
    >>> network_names("data/flo.csv.gz")
    ('data/flo.csv.gz', 'flo')
    >>> network_names(None)
    ()
    """
    import os
    if isinstance(data, os.PathLike):
        data = os.fspath(data)
    if not isinstance(data, str):
        return ()
    base = os.path.basename(data.rstrip("/\\"))
    stem = base.split(".", 1)[0] if not base.startswith(".") else base
    return tuple(dict.fromkeys(v for v in (data, stem) if v))


def _splice(calls, depth):
    """statnet's ``I()`` term (in ergm 4.12's term index): ``I(~a + b)``, ``I("a + b")`` or
    ``I(c("a", "b"))`` stands for the terms it holds, written in its place."""
    if not any(c.name == "I" for c in calls):
        return calls
    if depth >= MAX_DEPTH:
        raise FormulaError(f"I() terms are nested more than {MAX_DEPTH} deep")
    out = []
    for c in calls:
        if c.name != "I":
            out.append(c)
            continue
        if len(c.args) != 1 or c.kwargs:
            raise FormulaError("I() takes one formula or character vector of terms, "
                               f"got {c.text!r}")
        arg = c.args[0]
        texts = [arg.text] if isinstance(arg, FormulaArg) else [arg] if isinstance(arg, str) \
            else arg if isinstance(arg, list) and arg and all(isinstance(v, str) for v in arg) \
            else None
        if texts is None:
            raise FormulaError("I() takes one formula or character vector of terms, "
                               f"got {c.text!r}")
        for t in texts:
            out.extend(_splice(FormulaParser(t).formula(), depth + 1))
    return out
