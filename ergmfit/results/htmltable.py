"""HTML tables for the notebook display of results (``_repr_html_``): plain HTML, no
pandas or Jupyter needed to build them.

>>> print(html_table(["obs", "p"], [("edges", [20, 0.5])], index_name="term"))
<table class="ergmfit">
<thead><tr><th>term</th><th>obs</th><th>p</th></tr></thead>
<tbody>
<tr><th>edges</th><td>20</td><td>0.5</td></tr>
</tbody>
</table>
"""
from __future__ import annotations

import html
import math

__all__ = ["html_table", "html_number"]


def html_number(value, digits=4) -> str:
    """``value`` as a table cell: ``digits`` significant digits, ``NA`` for NaN, ``Inf``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return html.escape(str(value))
    if math.isnan(v):
        return "NA"
    if math.isinf(v):
        return "Inf" if v > 0 else "-Inf"
    return f"{v:.{digits}g}"


def html_table(columns, rows, index_name="", caption=None, digits=4, flag=None) -> str:
    """An HTML table: a header row (``index_name`` and ``columns``), then one row per
    ``(label, values)`` of ``rows``.  ``flag(column, value)`` true marks the cell
    (``class="flag"``, shown in red: e.g. a p-value below 0.05)."""
    out = ['<table class="ergmfit">']
    if caption:
        out.append(f"<caption>{html.escape(str(caption))}</caption>")
    out.append("<thead><tr>" + f"<th>{html.escape(str(index_name))}</th>"
               + "".join(f"<th>{html.escape(str(c))}</th>" for c in columns) + "</tr></thead>")
    out.append("<tbody>")
    for label, values in rows:
        cells = []
        for c, v in zip(columns, values):
            marked = flag is not None and flag(c, v)
            style = ' class="flag" style="color:#b00000;font-weight:bold"' if marked else ""
            cells.append(f"<td{style}>{html_number(v, digits)}</td>")
        out.append(f"<tr><th>{html.escape(str(label))}</th>" + "".join(cells) + "</tr>")
    out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)
