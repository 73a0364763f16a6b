"""Shared pieces of the network readers: reading and decompressing files (streamed,
capped), text checks, directedness and weight rules, and the tie clean-up every
edge list goes through.  Private: the public entry points are in :mod:`ergmfit.network.io`."""
from __future__ import annotations

import bz2
import gzip
import io as _io
import lzma
import numbers
import os
import re

import numpy as np

from ..exceptions import DataFormatError, NetworkError
from ..utils.validation import warn as _warn


_COMPRESSED = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


_INT_TEXT = re.compile(r"[+-]?[0-9]+")


_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")


#: characters that do not show: controls, format characters (BOM, zero-width, bidi marks)
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
                        "\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


class _Locs:
    """Lazy "where" strings for rows (built only for an error message)."""

    def __init__(self, prefix, keys, as_repr=False):
        self.prefix, self.keys, self.as_repr = prefix, keys, as_repr

    def __getitem__(self, r):
        key = self.keys[r]
        return f"{self.prefix} {key!r}" if self.as_repr else f"{self.prefix} {key}"

    def __len__(self):
        return len(self.keys)


#: a compressed file that expands more than this many times (beyond RATIO_FLOOR bytes)
#: is refused as a decompression bomb: real edge lists compress 3-20 fold
MAX_COMPRESSION_RATIO = 100
RATIO_FLOOR = 2 ** 20


def _bomb(where, out, packed):
    """A decompression-bomb error when ``out`` bytes came from ``packed`` compressed bytes."""
    if out > RATIO_FLOOR and out > MAX_COMPRESSION_RATIO * max(packed, 1):
        raise DataFormatError(
            f"{where} expands more than {MAX_COMPRESSION_RATIO} times when decompressed "
            f"({packed:,} compressed bytes gave {out:,} and more): refused as a decompression "
            "bomb (ergmfit.network._common.MAX_COMPRESSION_RATIO); decompress it yourself if "
            "it really is such a file")


def _read_bytes(path, cap):
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise DataFormatError(f"no such file: {path!r}") from None
    except OSError as exc:
        raise DataFormatError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    ext = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else ""
    if ext in _COMPRESSED:
        raw = _decompress(raw, ext, os.path.basename(path), cap)
    return raw


def _binary_lines(path, where, cap):
    """The lines of a file as bytes (decompressed if .gz/.bz2/.xz, capped), one at a time."""
    path = os.fspath(path)
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise DataFormatError(f"no such file: {path!r}") from None
    except OSError as exc:
        raise DataFormatError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    ext = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else ""
    with fh:
        if ext not in _COMPRESSED:
            try:
                yield from fh
            except OSError as exc:
                raise DataFormatError(f"cannot read {path!r}: {exc.strerror or exc}") from None
            return
        total = 0
        try:
            with _COMPRESSED[ext](fh, "rb") as z:
                while True:
                    line = z.readline(cap + 1 - total)
                    if not line:
                        break
                    total += len(line)
                    _bomb(where, total, fh.tell())
                    if total > cap:
                        raise DataFormatError(
                            f"{where} expands to more than {cap // 2 ** 20:,} MiB when "
                            "decompressed (ergmfit.network.io.MAX_DECOMPRESSED_BYTES); "
                            "decompress it yourself if it really is that large")
                    yield line
        except DataFormatError:
            raise
        except Exception as exc:  # corrupt archive of any kind
            raise DataFormatError(f"{where} is not a valid .{ext} file: {exc}") from None


def _text_lines(path, where, cap):
    """The lines of a UTF-8 text file without their line breaks (\\r\\n, \\r or \\n), streamed;
    a byte-order mark at the start is dropped, a byte that is not UTF-8 is an error naming
    its line."""
    lineno = 0
    first = True
    for raw in _binary_lines(path, where, cap):
        try:
            line = raw.decode("utf-8-sig" if first else "utf-8")
        except UnicodeDecodeError as exc:
            line_of = lineno + 1 + raw[:exc.start].count(b"\r")
            raise DataFormatError(f"{where}, line {line_of}: not UTF-8 text (byte "
                                  f"0x{raw[exc.start]:02x}); save the file as UTF-8") from None
        first = False
        if line.endswith("\n"):
            line = line[:-1]
            if line.endswith("\r"):
                line = line[:-1]
        if "\r" in line:
            parts = line.split("\r")
            lineno += len(parts)
            yield from parts
        else:
            lineno += 1
            yield line


def _decompress(raw, ext, where, cap):
    """The bytes of a compressed file, read in chunks and refused beyond ``cap`` bytes."""
    out = bytearray()
    try:
        with _COMPRESSED[ext](_io.BytesIO(raw), "rb") as fh:
            while True:
                chunk = fh.read(min(1 << 20, cap + 1 - len(out)))
                if not chunk:
                    break
                out += chunk
                _bomb(where, len(out), len(raw))
                if len(out) > cap:
                    raise DataFormatError(
                        f"{where} expands to more than {cap // 2 ** 20:,} MiB when decompressed "
                        "(ergmfit.network.io.MAX_DECOMPRESSED_BYTES); decompress it yourself "
                        "if it really is that large")
    except DataFormatError:
        raise
    except Exception as exc:  # corrupt archive of any kind
        raise DataFormatError(f"{where} is not a valid .{ext} file: {exc}") from None
    return bytes(out)


def _decode(raw, where):
    if not raw.strip():
        raise DataFormatError(f"{where} is empty")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise DataFormatError(f"{where}, line {line}: not UTF-8 text (byte "
                              f"0x{raw[exc.start]:02x}); save the file as UTF-8") from None


def _check_visible(text, what):
    """An error naming ``what`` if ``text`` holds a character one cannot see (BOM, NUL, ...)."""
    m = _INVISIBLE.search(text)
    if m is not None:
        import unicodedata
        c = m.group()
        name = unicodedata.name(c, "a control character")
        hint = (" (a file pasted into another leaves its byte-order mark)" if c == "\ufeff"
                else "")
        raise DataFormatError(f"{what} {text!r} contains an invisible character, {name} "
                              f"(U+{ord(c):04X}); remove it{hint}")


def _check_names(names, where, lineno):
    at = f"{where}, line {lineno}" if lineno is not None else where
    seen = set()
    for k, name in enumerate(names):
        if not str(name).strip():
            raise DataFormatError(f"{at}: column {k + 1} of the header has no name")
        if isinstance(name, str):
            _check_visible(name, f"{at}: the column name")
        if name in seen:
            raise DataFormatError(f"{at}: the column name {name!r} appears twice in the header")
        seen.add(name)


def _check_choice(value, what, allowed):
    if value not in allowed:
        raise NetworkError(f"{what} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def _need_directed(directed, what):
    if directed is None:
        raise NetworkError(f"{what} does not say whether the network is directed: pass "
                           "directed=True or directed=False (command line: --directed or "
                           "--undirected)")
    if isinstance(directed, (bool, np.bool_)) or directed in (0, 1):
        return bool(directed)
    raise NetworkError(f"directed must be True or False, got {directed!r}")


def _agree(actual, directed, what):
    if directed is None:
        return
    want = _need_directed(directed, what)
    if want != actual:
        kind = "directed" if actual else "undirected"
        raise NetworkError(f"{what} is {kind}, but directed={want} was given; directedness is "
                           "never converted silently")


def _no_file_options(nodes, fmt, what):
    if nodes is not None or fmt is not None:
        raise NetworkError(f"nodes= and fmt= apply to files only, not to {what}")


def _is_sparse(x):
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - scipy is a dependency
        return False
    return sp.issparse(x)


def _is_dataframe(x):
    return type(x).__name__ == "DataFrame" and type(x).__module__.startswith("pandas")


def _scalar(v):
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    return v


def _is_one(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v == 1


def _handle_weights(names, cols, locs, weights):
    out_names, out_cols = [], []
    for name, col in zip(names, cols):
        if name.strip().lower() != "weight" or weights == "keep":
            out_names.append(name)
            out_cols.append(col)
            continue
        bad = next((r for r, v in enumerate(col) if not _is_one(v)), None)
        if bad is not None:
            _weights_problem(weights, f"{locs[bad]}: the weight {col[bad]!r} is not 1")
    return out_names, out_cols


def _weights_problem(weights, what, matrix=False):
    if weights == "ignore":
        tie = "every nonzero entry" if matrix else "every listed edge"
        _warn(f"{what}; weights are ignored ({tie} is a tie): ergmfit models binary "
                      "ties")
        return
    tie = "every nonzero entry" if matrix else "every listed edge"
    raise NetworkError(f"{what}; ergmfit models binary ties. Threshold or drop the weights "
                       f"first, or pass weights='ignore' (command line: --weights ignore) to "
                       f"treat {tie} as a tie")


def _clean_ties(t, h, n, directed, duplicates, locs, labels, attrs=()):
    """Indices of the ties to keep after the loop and duplicate checks.  ``attrs``:
    ``(name, column)`` of the edge attributes, one value per listed tie: an undirected
    pair listed both ways with different values is an error under ``duplicates="error"``
    (keeping one listing would drop a value)."""
    m = len(t)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    loops = np.flatnonzero(t == h)
    if len(loops):
        k = int(loops[0])
        raise NetworkError(f"{locs[k]}: self-loop at node {labels[t[k]]!r}; ERGMs here have no "
                           "loops: remove the line")
    arrow = "->" if directed else "--"
    keys = t * n + h
    first = _first_occurrences(keys)
    if len(first) < m:
        dup = _first_repeat(keys)
        if duplicates == "error":
            k, j = dup
            raise NetworkError(f"{locs[k]} repeats the tie {labels[t[k]]!r} {arrow} "
                               f"{labels[h[k]]!r} of {locs[j]}; a network holds each tie once "
                               "(a count-valued one too: its value is one number): "
                               "remove the repeated lines, or pass duplicates='merge' "
                               "(command line: --duplicates merge) to keep one")
        _warn(f"{m - len(first)} tie(s) are listed more than once (e.g. {locs[dup[0]]}); "
                      "each was kept once, with the first listing's attributes")
    keep = first
    if not directed:
        lo = np.minimum(t[keep], h[keep])
        hi = np.maximum(t[keep], h[keep])
        ukeys = lo * n + hi
        _, ufirst, inv = np.unique(ukeys, return_index=True, return_inverse=True)
        if len(ufirst) < len(keep):
            if duplicates == "error":
                _check_reverse_values(keep, ufirst[inv.ravel()], attrs, locs, labels, t, h)
            k, j = _first_repeat(ukeys)
            _warn(f"{len(keep) - len(ufirst)} tie(s) of the undirected network are listed "
                          f"in both directions (e.g. {locs[keep[j]]} and {locs[keep[k]]}); an "
                          "undirected network has one tie per pair, so each was kept once, with "
                          "the first listing's attributes")
            keep = keep[np.sort(ufirst)]
    return keep


def _check_reverse_values(keep, first_of, attrs, locs, labels, t, h):
    # keep[r] repeats the pair of keep[first_of[r]] (reversed) where first_of[r] != r:
    # the earliest such listing whose attribute values differ from the first's is an error
    if not attrs:
        return
    later = np.flatnonzero(first_of != np.arange(len(keep)))
    for r in later:
        k, j = int(keep[r]), int(keep[first_of[r]])
        for name, col in attrs:
            if not _same_value(col[k], col[j]):
                raise NetworkError(
                    f"{locs[k]} lists the pair {labels[t[k]]!r} -- {labels[h[k]]!r} of "
                    f"{locs[j]} the other way round with a different {name!r} "
                    f"({col[k]!r}, there {col[j]!r}); an undirected network has one value per "
                    "pair: remove one line, or pass duplicates='merge' (command line: "
                    "--duplicates merge) to keep the first")


def _same_value(a, b):
    # equal, or both missing (None, NaN)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return bool(a == b)


def _first_occurrences(keys):
    _, idx = np.unique(keys, return_index=True)
    return np.sort(idx)


def _first_repeat(keys):
    """(position of the earliest repeated key, position of its first occurrence)."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    same = np.flatnonzero(sk[1:] == sk[:-1]) + 1
    reps = order[same]
    k = int(reps.min())
    key = keys[k]
    j = int(np.flatnonzero(keys == key)[0])
    return k, j
