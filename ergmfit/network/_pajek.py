"""Pajek (``.net`` / ``.paj``) files as EstimNetDirected writes them.

The rules are in :mod:`ergmfit.network.io`'s documentation."""
from __future__ import annotations

from array import array
import re

import numpy as np

from ..exceptions import DataFormatError, NetworkError
from ..utils.validation import warn as _warn
from .network import MAX_NODES, Network
from .values import parse_value as _parse_value
from ._common import (_INT_TEXT, _LINE_BREAK, _Locs, _agree, _clean_ties, _need_directed, _scalar,
                      _weights_problem)


_PAJ_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


def _pajek_tokens(line):
    return [(m.group(1), True) if m.group(1) is not None else (m.group(2), False)
            for m in _PAJ_TOKEN.finditer(line)]


def _pajek_int(tok, loc, what):
    if not _INT_TEXT.fullmatch(tok):
        raise DataFormatError(f"{loc}: expected {what} (a whole number), found {tok!r}")
    return int(tok)


def _read_pajek(lines, where, directed, weights, duplicates, attr_files):
    """The network of a Pajek file given as its lines (an iterable, read once; a str is
    split into lines)."""
    if isinstance(lines, str):
        lines = _LINE_BREAK.split(lines)
    rd = _LineReader(lines)
    n = None
    section = None
    kinds = set()
    vlabels = {}
    tails, heads, linenos, wvals = array("q"), array("q"), array("q"), []
    node_attrs = {}

    def loc(lineno):
        return f"{where}, line {lineno}"

    def vertex(tok, lineno):
        v = int(tok) if tok.isdigit() and tok.isascii() else _pajek_int(tok, loc(lineno),
                                                                         "a vertex number")
        if not 1 <= v <= n:
            raise DataFormatError(f"{loc(lineno)}: vertex {v} is outside 1..{n} (the file has "
                                  f"*vertices {n})")
        return v - 1

    for lineno, raw, line in rd.content():
        if line.startswith("*"):
            parts = line[1:].split(None, 1)
            key = parts[0].lower() if parts else ""
            rest = parts[1] if len(parts) > 1 else ""
            if key == "network":
                if n is None:
                    continue
                _warn(f"{loc(lineno)}: the file holds more than one network; only the "
                              "first was read")
                break
            if key == "vertices":
                if n is not None:
                    raise DataFormatError(f"{loc(lineno)}: a second *vertices line")
                toks = rest.split()
                if not toks:
                    raise DataFormatError(f"{loc(lineno)}: *vertices needs the number of vertices")
                n = _pajek_int(toks[0], loc(lineno), "the number of vertices")
                if len(toks) > 1:
                    raise NetworkError(f"{loc(lineno)}: '*vertices {rest}' declares a two-mode "
                                       "(bipartite) network, which ergmfit does not support yet")
                if n < 1:
                    raise NetworkError(f"{loc(lineno)}: *vertices {n}: the network has no nodes")
                if n > MAX_NODES:
                    raise NetworkError(f"{loc(lineno)}: *vertices {n} is more nodes than ergmfit "
                                       f"handles (at most {MAX_NODES:,})")
                section = "vertices"
                continue
            if key in ("arcs", "edges", "arcslist", "edgeslist"):
                if n is None:
                    raise DataFormatError(f"{loc(lineno)}: *{parts[0]} before *vertices")
                section = key
                kinds.add("arcs" if key.startswith("arcs") else "edges")
                continue
            if key in ("partition", "vector"):
                if n is None:
                    raise DataFormatError(f"{loc(lineno)}: *{parts[0]} before the network")
                name = rest.strip().strip('"').strip() or f"{key}{len(node_attrs) + 1}"
                name = re.sub(r"\.(clu|vec)$", "", name, flags=re.I)
                _read_pajek_block(rd, n, name, key, node_attrs, where)
                section = None
                continue
            if key == "matrix":
                raise DataFormatError(f"{loc(lineno)}: Pajek *matrix sections are not supported; "
                                      "write the ties as *arcs or *edges")
            raise DataFormatError(f"{loc(lineno)}: unknown Pajek section {line.split()[0]!r} "
                                  "(expected *vertices, *arcs or *edges)")
        if section is None:
            raise DataFormatError(f"{loc(lineno)}: expected '*vertices N' before {line[:20]!r}")
        toks = _pajek_tokens(line) if '"' in line else [(t, False) for t in line.split()]
        if section == "vertices":
            v = vertex(toks[0][0], lineno)
            if v in vlabels:
                raise DataFormatError(f"{loc(lineno)}: vertex {v + 1} is listed twice")
            if len(toks) > 1:
                tok, quoted = toks[1]
                lab = tok if quoted or not _INT_TEXT.fullmatch(tok) else int(tok)
            else:
                lab = v + 1
            vlabels[v] = lab
        elif section in ("arcs", "edges"):
            if len(toks) < 2:
                raise DataFormatError(f"{loc(lineno)}: expected two vertex numbers 'i j', found "
                                      f"{line[:40]!r}")
            tails.append(vertex(toks[0][0], lineno))
            heads.append(vertex(toks[1][0], lineno))
            linenos.append(lineno)
            if len(toks) > 2:
                wtok = toks[2][0]
                if wtok != "1":
                    try:
                        w = float(wtok)
                    except ValueError:
                        raise DataFormatError(f"{loc(lineno)}: expected a weight after 'i j', "
                                              f"found {wtok!r}") from None
                    if w != 1:
                        wvals.append((len(tails) - 1, w))
        else:  # arcslist / edgeslist
            a = vertex(toks[0][0], lineno)
            for tok, _ in toks[1:]:
                tails.append(a)
                heads.append(vertex(tok, lineno))
                linenos.append(lineno)
    if not rd.any_text:
        raise DataFormatError(f"{where} is empty")
    if n is None:
        raise DataFormatError(f"{where}: no '*vertices N' line: not a Pajek network file")
    if len(kinds) > 1:
        raise DataFormatError(f"{where} mixes *arcs and *edges; ergmfit needs all ties of one "
                              "kind (arcs: directed, edges: undirected)")
    if kinds:
        file_directed = kinds == {"arcs"}
        _agree(file_directed, directed, f"{where} (it has *{kinds.pop()})")
        directed = file_directed
    else:
        directed = _need_directed(directed, f"{where} (it has no *arcs or *edges section)")
    locs = _Locs(f"{where}, line", linenos)
    bad = wvals[0] if wvals else None
    if bad is not None:
        _weights_problem(weights, f"{locs[bad[0]]}: the weight {_scalar(bad[1])!r} is not 1")
    labels = list(range(1, n + 1))
    if len(vlabels) == n and len(set(vlabels.values())) == n:
        labels = [vlabels[k] for k in range(n)]
    elif vlabels and len(set(vlabels.values())) < len(vlabels):
        _warn(f"{where}: vertex labels are not unique, so the nodes are labelled 1..{n}")
    if attr_files:
        for name, (fname, vals) in attr_files.items():
            if len(vals) != n:
                raise DataFormatError(f"{fname}: attribute {name!r} has {len(vals)} value(s) for "
                                      f"the {n} vertices of {where}")
            if name in node_attrs:
                raise DataFormatError(f"node attribute {name!r} is given both in {where} and in "
                                      f"{fname}")
            node_attrs[name] = vals
    t = np.frombuffer(tails, dtype=np.int64)
    h = np.frombuffer(heads, dtype=np.int64)
    keep = _clean_ties(t, h, n, directed, duplicates, locs, labels)
    ties = np.stack([t[keep], h[keep]], axis=1) if len(keep) else np.zeros((0, 2), np.int64)
    return Network(n, ties, directed, labels=labels, node_attrs=node_attrs)


class _LineReader:
    """Lines read one at a time, with their numbers; one line can be put back."""

    def __init__(self, lines):
        self._it = iter(lines)
        self._back = None
        self.lineno = 0
        self.any_text = False

    def next(self):
        if self._back is not None:
            line, self._back = self._back, None
            return line
        line = next(self._it, None)
        if line is not None:
            self.lineno += 1
        return line

    def push(self, line):
        self._back = line

    def content(self):
        """``(line number, line, stripped line)`` of each line that is not blank or a ``%``
        comment; ``any_text`` says whether a line was not blank."""
        while True:
            raw = self.next()
            if raw is None:
                return
            line = raw.strip()
            if line:
                self.any_text = True
            if line and not line.startswith("%"):
                yield self.lineno, raw, line


def _read_pajek_block(rd, n, name, key, node_attrs, where):
    """A *partition / *vector block: '*vertices N' then N values (the next line is put back)."""
    vals = []
    count = None
    for lineno, raw, line in rd.content():
        if count is None:
            toks = line.split()
            if len(toks) < 2 or toks[0].lower() != "*vertices":
                raise DataFormatError(f"{where}, line {lineno}: expected '*vertices {n}' after "
                                      f"*{key} {name}")
            count = _pajek_int(toks[1], f"{where}, line {lineno}", "the number of vertices")
            if count != n:
                raise DataFormatError(f"{where}, line {lineno}: *{key} {name} has {count} "
                                      f"vertices, the network {n}")
            continue
        if len(vals) == n or line.startswith("*"):
            rd.push(raw)
            break
        vals.append(_parse_value(line.split()[0]))
    if len(vals) != n:
        raise DataFormatError(f"{where}: *{key} {name} has {len(vals)} value(s) for {n} vertices")
    if name in node_attrs:
        raise DataFormatError(f"{where}: two *{key} blocks named {name!r}")
    node_attrs[name] = vals
