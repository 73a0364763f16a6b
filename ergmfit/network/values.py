"""Cell values of network files and bundled data: the one rule every reader uses.

>>> [parse_value(t) for t in ["3", "-2", "1.5", "TRUE", "NA", "", "1_000", "x"]]
[3, -2, 1.5, True, None, None, '1_000', 'x']
"""
from __future__ import annotations


def parse_value(text: str):
    """An unquoted cell as a Python value: ``NA`` or empty -> None, ``TRUE``/``FALSE`` ->
    bool, whole numbers -> int, other numbers -> float, anything else stays text."""
    if text == "NA" or text == "":
        return None
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if "_" in text:                  # int("1_000") is 1000 in Python, not in a CSV file
        return text
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
