"""statnet's ``For()`` as the macro it is: the formula once per value of its loop variables,
with the variable replaced by the value -- the terms written out.

A ``For()`` term of the model's own formula is expanded before any term is built
(:func:`expand_for`, called by :class:`ergmfit.model.ERGM`), so what it writes out is
treated exactly as if the user had written it: ``Offset()`` and ``Curve()`` terms are
top-level terms with their fixed or mapped parameters, and ``offset()`` inside the loop
formula fixes the written-out terms (statnet's For help: "This operator evaluates the
formula given to it, substituting the specified loop counter variable with each element
in a sequence").  Inside another operator's formula ``For()`` is a term
(:func:`.operators.for_operator`) built from the same expansion (:func:`for_texts`).

>>> _substitute('nodematch(.) + absdiff(a, pow=.)', ".", "Sex")
'nodematch("Sex") + absdiff(a, pow="Sex")'
"""
from __future__ import annotations

import itertools
import re

from ..exceptions import TermError
from ..formula import FormulaArg, RCode, parse_formula
from .dyadic import _levels
from .offsets import offset_flags, split_offsets
from .registry import bind_arguments, get_term

_FOR_LEVELS = re.compile(r'\s*(?:function\s*\(\s*(\w+)\s*\)\s*)?sort\(\s*unique\(\s*([\w.]+)\s*'
                         r'%v%\s*["\']([^"\']+)["\']\s*\)\s*\)\s*')
MAX_DEPTH = 50          # For() inside For() inside ... (as formula.MAX_DEPTH)


def _for_values(net, spec):
    """A For() loop's values: a vector, or the sorted levels of an attribute written as
    ``~sort(unique(.%v%"attr"))`` or ``function(nw) sort(unique(nw %v% "attr"))``."""
    if isinstance(spec, (FormulaArg, RCode)):
        m = _FOR_LEVELS.fullmatch(spec.text)
        ok = m and ((isinstance(spec, FormulaArg) and m.group(1) is None and m.group(2) in
                     (".", ".nw")) or (isinstance(spec, RCode) and m.group(1) == m.group(2)))
        if not ok:
            raise TermError(f"term For: cannot evaluate {spec.text!r} (vectors, "
                            "~sort(unique(.%v%\"attr\")) and function(nw) sort(unique(nw %v% "
                            "\"attr\")) are understood)")
        return _levels(net, m.group(3), "For").labels
    return spec if isinstance(spec, list) else [spec]


def _substitute(text, name, value):
    """``text`` with the loop variable ``name`` (outside strings) replaced by ``value``."""
    lit = f'"{value}"' if isinstance(value, str) else repr(value)
    word = re.escape(name)
    pattern = re.compile(r"(\"[^\"]*\"|'[^']*')|(?<![A-Za-z0-9_.])%s(?![A-Za-z0-9_.])" % word)
    return pattern.sub(lambda m: m.group(1) or lit, text)


def for_texts(net, formula, loops):
    """The formula texts a For() loop writes out, in statnet's order (the first loop
    variable the outermost): ``formula`` a FormulaArg, ``loops`` {variable: values}."""
    if not isinstance(formula, FormulaArg):
        raise TermError(f"term For: the formula must be a formula such as ~nodematch(.), got "
                        f"{formula!r}")
    loops = dict(loops or {})
    if not loops:
        raise TermError("term For: give the values as . = c(...)")
    names = list(loops)
    values = [_for_values(net, loops[k]) for k in names]
    out = []
    for combo in itertools.product(*values):
        text = formula.text
        for name, v in zip(names, combo):
            text = _substitute(text, name, v)
        out.append(text)
    return out


def expand_for(net, calls, flags, depth=0):
    """``calls`` (a parsed formula) and their ``offset()`` flags with every ``For()`` call
    replaced by the calls it writes out (their own ``offset()`` flags read from the loop
    formula; ``offset(For(...))`` fixes all of them).  A For() under ``offset(For(...),
    which)`` stays one term (which indexes its parameters together), as does one that
    writes out no term."""
    if not any(c.name == "For" for c in calls):
        return calls, flags
    if depth >= MAX_DEPTH:
        raise TermError(f"term For: For() terms are nested more than {MAX_DEPTH} deep")
    out_calls, out_flags = [], []
    for c, flag in zip(calls, flags):
        if c.name != "For" or isinstance(flag, str):
            out_calls.append(c)
            out_flags.append(flag)
            continue
        bound = bind_arguments(get_term("For", directed=net.directed), c.args, c.kwargs)
        texts = for_texts(net, bound["formula"], bound["..."])
        if not texts:
            out_calls.append(c)
            out_flags.append(flag)
            continue
        text, offs = split_offsets(" + ".join(texts))
        inner = parse_formula(text)
        inner_flags = [flag or f for f in offset_flags(inner, offs)]
        inner, inner_flags = expand_for(net, inner, inner_flags, depth + 1)
        out_calls.extend(inner)
        out_flags.extend(inner_flags)
    return out_calls, out_flags
