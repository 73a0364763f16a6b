"""A regular-expression engine for the ``gsub``/``sub`` of label functions that cannot blow up.

Python's ``re`` backtracks: ``(a+)+$`` on a (data-derived) label of 30 ``a`` and a ``b``
takes minutes.  This engine reads the subset of R's patterns that label functions use and
matches them with a *memoised* backtracking search (the "bit-state" search of RE2): the
search tries the alternatives in the same order as Python's ``re`` (greedy, lazy, leftmost
alternative first) and so finds the same match and the same groups, but it enters each
(instruction, position) pair at most once per search, so one search costs at most
``len(program) * (len(text) + 1)`` steps.  A second state reaching a pair already
entered would fail the same way the first did (without back-references what follows
does not depend on the groups).

Supported: literals and escaped characters (``\\.``, ``\\t``, ``\\xhh``), ``.``,
bracket classes with ranges, negation and POSIX classes (``[[:alpha:]]``, ...),
``\\d \\w \\s \\D \\W \\S``, anchors ``^ $ \\A \\Z \\b \\B``, groups ``( )`` and
``(?: )``, alternation, and the quantifiers ``* + ? {m} {m,} {m,n} {,n}`` with their lazy
forms (``*?`` ...).  Refused with :class:`RegexError` naming the problem:
back-references, look-arounds, inline flags, named and atomic groups, possessive
quantifiers, and a repeated part that can match the empty text (``(a*)*``: there the
engines disagree on the groups).  Work is bounded: a pattern of at most
:data:`MAX_PATTERN` characters and :data:`MAX_PROGRAM` instructions once its counted
repeats are written out, and a budget of steps shared by all the substitutions of one
label function (:class:`Budget`), beyond which the label function is refused instead
of running on.
"""
from __future__ import annotations

MAX_PATTERN = 1000          # characters of a pattern
MAX_PROGRAM = 20000         # instructions once counted repeats {m,n} are written out
MAX_REPEAT = 1000           # the largest m, n of {m,n}
MAX_STEPS = 600_000         # search steps of all substitutions of one label function
                            #   (about a second in CPython: a search costs SEARCH_STEPS more)
MAX_OUTPUT = 300_000        # characters built by one label function
SEARCH_STEPS = 8            # the cost of starting one search, in steps
STEPS_PER_CHAR = 50         # more steps per character of the labels mapped
CHARS_PER_CHAR = 4          # more output characters per character of the labels mapped

_CHAR, _SPLIT, _JMP, _SAVE, _ASSERT, _MATCH = range(6)


class RegexError(ValueError):
    """A pattern outside the supported subset, or work beyond the bounds."""


class Budget:
    """Search steps and output characters left to one label function: ``MAX_STEPS`` and
    ``MAX_OUTPUT``, plus ``STEPS_PER_CHAR`` steps and ``CHARS_PER_CHAR`` characters per
    character of the labels it maps (``input_chars``), so that a model of very many
    labels can still be relabelled while a formula alone cannot blow up."""

    def __init__(self, steps=MAX_STEPS, chars=MAX_OUTPUT, input_chars=0):
        self.steps = steps + STEPS_PER_CHAR * input_chars
        self.chars = self.char_limit = chars + CHARS_PER_CHAR * input_chars
        self.step_limit = self.steps

    def spend_chars(self, n):
        self.chars -= n
        if self.chars < 0:
            raise RegexError(f"the labels would grow beyond {self.char_limit} characters")


# ---------------------------------------------------------------------------
# character predicates
# ---------------------------------------------------------------------------
def _is_word(c):
    return c.isalnum() or c == "_"


_CLASS_ESCAPES = {"d": str.isdecimal, "w": _is_word, "s": str.isspace}
_POSIX = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
          "lower": "a-z", "space": " \t\n\r\f\v", "blank": " \t",
          "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "xdigit": "0-9A-Fa-f",
          "cntrl": "\x00-\x1f\x7f", "print": "\x20-\x7e", "graph": "\x21-\x7e",
          "word": "a-zA-Z0-9_"}
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}


def _ranges_of(spec):
    """POSIX class text (``a-zA-Z``, listed characters) as (lo, hi) ranges."""
    out, k = [], 0
    while k < len(spec):
        if k + 2 < len(spec) and spec[k + 1] == "-":
            out.append((spec[k], spec[k + 2]))
            k += 3
        else:
            out.append((spec[k], spec[k]))
            k += 1
    return out


def _set_pred(negate, ranges, preds, icase):
    ranges, preds = tuple(ranges), tuple(preds)

    def inside(c):
        return any(lo <= c <= hi for lo, hi in ranges) or any(p(c) for p in preds)

    if icase:
        def test(c):
            return inside(c) or inside(c.lower()) or inside(c.upper())
    else:
        test = inside
    return (lambda c: not test(c)) if negate else test


def _literal_pred(ch, icase):
    if icase:
        low, up = ch.lower(), ch.upper()
        return lambda c: c == ch or c.lower() == low or c.upper() == up
    return lambda c: c == ch


# ---------------------------------------------------------------------------
# parser: pattern -> tree
# ---------------------------------------------------------------------------
class _Parser:
    def __init__(self, pattern, icase):
        self.p, self.k, self.icase, self.groups = pattern, 0, icase, 0

    def fail(self, what):
        raise RegexError(f"{what} (at position {self.k} of the pattern {self.p!r})")

    def peek(self, n=1):
        return self.p[self.k:self.k + n]

    def parse(self):
        tree = self.alternation()
        if self.k < len(self.p):
            self.fail("unbalanced parenthesis")
        return tree

    def alternation(self):
        branches = [self.sequence()]
        while self.peek() == "|":
            self.k += 1
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def sequence(self):
        items = []
        while self.k < len(self.p) and self.peek() not in "|)":
            atom = self.atom()
            items.append(self.quantified(atom))
        return ("cat", items)

    def quantified(self, atom):
        while True:
            c = self.peek()
            if c in ("*", "+", "?"):
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
                self.k += 1
            elif c == "{" and self._counted() is not None:
                lo, hi, length = self._counted()
                self.k += length
            else:
                return atom
            if atom[0] in ("bol", "eol", "assert"):
                self.fail("nothing to repeat")
            greedy = True
            if self.peek() == "?":
                greedy = False
                self.k += 1
            elif self.peek() == "+":
                self.fail("possessive quantifiers are not supported")
            if hi is not None and hi < lo:
                self.fail("min repeat greater than max repeat")
            if max(lo, hi or 0) > MAX_REPEAT:
                self.fail(f"a repeat count above {MAX_REPEAT}")
            if (hi is None or hi > 1) and _nullable(atom):
                self.fail("a repeated part that can match the empty text (as in (a*)*) "
                          "is not supported")
            atom = ("rep", atom, lo, hi, greedy)
            if self.peek() in ("*", "+", "?") or (self.peek() == "{"
                                                 and self._counted() is not None):
                self.fail("multiple repeat")

    def _counted(self):
        """{m}, {m,}, {m,n}, {,n} at the cursor: (m, n, length) or None (a literal '{')."""
        end = self.p.find("}", self.k)
        if end < 0:
            return None
        body = self.p[self.k + 1:end]
        lo_s, comma, hi_s = body.partition(",")
        if not (lo_s.isdigit() or (comma and lo_s == "")) or (hi_s and not hi_s.isdigit()):
            return None
        lo = int(lo_s) if lo_s else 0
        hi = (int(hi_s) if hi_s else None) if comma else lo
        return lo, hi, end - self.k + 1

    def atom(self):
        c = self.p[self.k]
        self.k += 1
        if c == "(":
            if self.peek() == "?":
                if self.peek(2) != "?:":
                    self.fail("look-arounds, inline flags, named and atomic groups are not "
                              "supported; use ( ) or (?: )")
                self.k += 2
                inner = self.alternation()
                self._close()
                return inner
            self.groups += 1
            index = self.groups
            inner = self.alternation()
            self._close()
            return ("group", index, inner)
        if c in "*+?":
            self.fail("nothing to repeat")
        if c == "{" and self._counted_here() is not None:
            self.fail("nothing to repeat")
        if c == ".":
            return ("char", lambda ch: ch != "\n")
        if c == "^":
            return ("bol",)
        if c == "$":
            return ("eol",)
        if c == "[":
            return ("char", self.bracket())
        if c == "\\":
            return self.escape()
        return ("char", _literal_pred(c, self.icase))

    def _counted_here(self):
        self.k -= 1
        try:
            return self._counted()
        finally:
            self.k += 1

    def _close(self):
        if self.peek() != ")":
            self.fail("missing ), unterminated subpattern")
        self.k += 1

    def escape(self):
        if self.k >= len(self.p):
            self.fail("bad escape (end of pattern)")
        c = self.p[self.k]
        self.k += 1
        if c in _CLASS_ESCAPES:
            return ("char", _CLASS_ESCAPES[c])
        if c in "DWS":
            f = _CLASS_ESCAPES[c.lower()]
            return ("char", lambda ch: not f(ch))
        if c in "AZbB":
            return ("assert", c)
        if c.isdigit():
            self.fail("back-references are not supported")
        return ("char", _literal_pred(self._escaped_char(c), self.icase))

    def _escaped_char(self, c):
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c]
        if c == "x":
            digits = self.p[self.k:self.k + 2]
            if len(digits) != 2 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                self.fail("incomplete escape \\x")
            self.k += 2
            return chr(int(digits, 16))
        if c.isascii() and c.isalnum():
            self.fail(f"bad escape \\{c}")
        return c

    def bracket(self):
        negate = self.peek() == "^"
        if negate:
            self.k += 1
        ranges, preds, first = [], [], True
        while True:
            if self.k >= len(self.p):
                self.fail("unterminated character set")
            c = self.p[self.k]
            if c == "]" and not first:
                self.k += 1
                break
            first = False
            if self.peek(2) in ("[.", "[="):
                self.fail("POSIX collating elements and equivalence classes are not supported")
            if self.peek(2) == "[:":
                end = self.p.find(":]", self.k + 2)
                name = self.p[self.k + 2:end] if end > 0 else ""
                if name not in _POSIX:
                    self.fail(f"unknown POSIX class [:{name}:]")
                ranges.extend(_ranges_of(_POSIX[name]))
                self.k = end + 2
                continue
            lo = self._set_char()
            if callable(lo):
                preds.append(lo)
                continue
            if self.peek() == "-" and self.peek(2) != "-]" and self.k + 1 < len(self.p) \
                    and self.p[self.k + 1] != "]":
                self.k += 1
                hi = self._set_char()
                if callable(hi):
                    self.fail("bad character range")
                if hi < lo:
                    self.fail(f"bad character range {lo}-{hi}")
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        return _set_pred(negate, ranges, preds, self.icase)

    def _set_char(self):
        """One character of a bracket class, or a predicate for \\d \\w \\s ..."""
        c = self.p[self.k]
        self.k += 1
        if c != "\\":
            return c
        if self.k >= len(self.p):
            self.fail("bad escape (end of pattern)")
        e = self.p[self.k]
        self.k += 1
        if e in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[e]
        if e in "DWS":
            f = _CLASS_ESCAPES[e.lower()]
            return lambda ch: not f(ch)
        if e.isdigit():
            self.fail("back-references are not supported")
        return self._escaped_char(e)


def _nullable(node):
    kind = node[0]
    if kind == "char":
        return False
    if kind in ("bol", "eol", "assert"):
        return True
    if kind == "cat":
        return all(_nullable(n) for n in node[1])
    if kind == "alt":
        return any(_nullable(n) for n in node[1])
    if kind == "group":
        return _nullable(node[2])
    return node[2] == 0 or _nullable(node[1])           # rep


# ---------------------------------------------------------------------------
# compiler: tree -> program
# ---------------------------------------------------------------------------
class _Compiler:
    def __init__(self):
        self.prog = []

    def emit(self, *ins):
        self.prog.append(list(ins))
        if len(self.prog) > MAX_PROGRAM:
            raise RegexError(f"the pattern is too large once its counted repeats are written "
                             f"out (more than {MAX_PROGRAM} steps)")
        return len(self.prog) - 1

    def node(self, n):
        kind = n[0]
        if kind == "char":
            self.emit(_CHAR, n[1])
        elif kind in ("bol", "eol"):
            self.emit(_ASSERT, kind)
        elif kind == "assert":
            self.emit(_ASSERT, n[1])
        elif kind == "cat":
            for item in n[1]:
                self.node(item)
        elif kind == "group":
            self.emit(_SAVE, 2 * n[1])
            self.node(n[2])
            self.emit(_SAVE, 2 * n[1] + 1)
        elif kind == "alt":
            jumps = []
            for branch in n[1][:-1]:
                split = self.emit(_SPLIT, None, None)
                self.prog[split][1] = len(self.prog)
                self.node(branch)
                jumps.append(self.emit(_JMP, None))
                self.prog[split][2] = len(self.prog)
            self.node(n[1][-1])
            for j in jumps:
                self.prog[j][1] = len(self.prog)
        else:
            self.repeat(*n[1:])

    def _optional(self, body, greedy):
        split = self.emit(_SPLIT, None, None)
        self.node(body)
        first, later = split + 1, len(self.prog)
        self.prog[split][1:] = [first, later] if greedy else [later, first]
        return split

    def repeat(self, body, lo, hi, greedy):
        for _ in range(lo):
            self.node(body)
        if hi is None:                          # L: split(body, exit); body; jmp L
            split = self.emit(_SPLIT, None, None)
            self.node(body)
            self.emit(_JMP, split)
            first, later = split + 1, len(self.prog)
            self.prog[split][1:] = [first, later] if greedy else [later, first]
            return
        splits = []
        for _ in range(hi - lo):                # nested optionals: (body (body ...)?)?
            split = self.emit(_SPLIT, None, None)
            splits.append(split)
            self.node(body)
        end = len(self.prog)
        for split in splits:
            self.prog[split][1:] = [split + 1, end] if greedy else [end, split + 1]


class Pattern:
    """A compiled pattern: :meth:`sub` as ``re.sub`` (Python 3.7+ empty-match rules)."""

    def __init__(self, pattern, ignore_case=False):
        if len(pattern) > MAX_PATTERN:
            raise RegexError(f"the pattern has {len(pattern)} characters, more than the "
                             f"{MAX_PATTERN} supported")
        parser = _Parser(pattern, ignore_case)
        tree = parser.parse()
        self.groups = parser.groups
        comp = _Compiler()
        comp.emit(_SAVE, 0)
        comp.node(tree)
        comp.emit(_SAVE, 1)
        comp.emit(_MATCH)
        self.prog = [tuple(ins) for ins in comp.prog]

    def search(self, text, start, must_advance, budget):
        """The groups (list of 2 * (groups + 1) positions, -1 unset) of the leftmost match
        at or after ``start`` (not an empty one at ``start`` if ``must_advance``), or None."""
        prog, n = self.prog, len(text)
        width = n + 1
        visited = set()
        caps = [-1] * (2 * self.groups + 2)
        steps, limit = SEARCH_STEPS, budget.steps
        for s in range(start, n + 1):
            stack = [(0, s)]
            while stack:
                item = stack.pop()
                if len(item) == 3:                     # undo a SAVE on backtracking
                    caps[item[1]] = item[2]
                    continue
                pc, pos = item
                while True:
                    key = pc * width + pos
                    if key in visited:
                        break
                    visited.add(key)
                    steps += 1
                    if steps > limit:
                        raise RegexError(f"the substitutions need more than "
                                         f"{budget.step_limit} steps of matching")
                    op = prog[pc]
                    kind = op[0]
                    if kind == _CHAR:
                        if pos < n and op[1](text[pos]):
                            pc += 1
                            pos += 1
                            continue
                        break
                    if kind == _SPLIT:
                        stack.append((op[2], pos))
                        pc = op[1]
                        continue
                    if kind == _JMP:
                        pc = op[1]
                        continue
                    if kind == _SAVE:
                        stack.append((None, op[1], caps[op[1]]))
                        caps[op[1]] = pos
                        pc += 1
                        continue
                    if kind == _ASSERT:
                        if _holds(op[1], text, pos, n):
                            pc += 1
                            continue
                        break
                    if must_advance and pos == start:  # _MATCH
                        break
                    budget.steps -= steps
                    return caps
        budget.steps -= steps
        return None

    def sub(self, template, text, count, budget):
        """``text`` with the matches replaced by ``template`` (strings and group numbers),
        the first ``count`` of them (0: all)."""
        out, pos, done, must_advance = [], 0, 0, False
        while pos <= len(text) and (count == 0 or done < count):
            caps = self.search(text, pos, must_advance, budget)
            if caps is None:
                break
            s, e = caps[0], caps[1]
            piece = "".join(p if isinstance(p, str) else
                            (text[caps[2 * p]:caps[2 * p + 1]] if caps[2 * p] >= 0 else "")
                            for p in template)
            out.append(text[pos:s])
            out.append(piece)
            budget.spend_chars((s - pos) + len(piece))
            done += 1
            must_advance = e == s
            pos = e
        out.append(text[pos:])
        budget.spend_chars(len(text) - pos)
        return "".join(out)


def _holds(kind, text, pos, n):
    if kind == "bol" or kind == "A":
        return pos == 0
    if kind == "eol":
        return pos == n or (pos == n - 1 and text[pos] == "\n")
    if kind == "Z":
        return pos == n
    before = pos > 0 and _is_word(text[pos - 1])
    after = pos < n and _is_word(text[pos])
    return (before != after) if kind == "b" else (before == after)
