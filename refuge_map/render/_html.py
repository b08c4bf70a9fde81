"""Escaped HTML for popups, tooltips and the legend: every data string goes through `esc`."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable
from typing import Any

#: What `script_json` escapes so that data cannot end a script or open a comment in it.
_SCRIPT_ESCAPES = (
    ("</", "\\u003c/"),
    ("<!", "\\u003c!"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def esc(value: Any) -> str:
    """`value` as text that is inert in HTML and inside a JavaScript template literal.

    folium puts popup and tooltip HTML between backticks, so besides ``<>&"'`` the characters
    ```` ` ````, ``$`` and ``\\`` become character references too.
    """
    text = html.escape(str(value), quote=True)
    return text.replace("`", "&#96;").replace("$", "&#36;").replace("\\", "&#92;")


def is_missing(value: Any) -> bool:
    """Whether a table cell holds nothing worth showing (None, NaN, empty text)."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and not value.strip()


def popup_table(title: str, rows: Iterable[tuple[str, Any]], *, title_he: Any = None) -> str:
    """A popup: a bold title (and a Hebrew title, right to left) over a two-column table.

    Labels and values are escaped here; rows with a missing value are left out.
    """
    return "".join(popup_parts(title, rows, title_he=title_he))


def popup_parts(title: str, rows: Iterable[tuple[str, Any]], *, title_he: Any = None) -> list[str]:
    """`popup_table` in pieces that join to it: the opening with the title, one piece per row,
    the closing. Many popups share pieces (a rule, a citation), so a layer can store each once.
    """
    head = f"<b>{esc(title)}</b>"
    if not is_missing(title_he):
        head += f' <span dir="rtl" lang="he">{esc(title_he)}</span>'
    cells = [
        f"<tr><th>{esc(label)}</th><td>{esc(value)}</td></tr>"
        for label, value in rows
        if not is_missing(value)
    ]
    return [f'<div class="refuge-popup">{head}<table>', *cells, "</table></div>"]


def hours(seconds: float) -> str:
    """A duration as ``"7 h 41 min"``."""
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min"


def script_json(value: Any) -> str:
    """`value` as compact JSON that is safe inside a ``<script>`` element.

    Nothing in it can end the script or open a comment (``</`` and ``<!`` become ``\\u003c/``
    and ``\\u003c!``), and the line separators U+2028 and U+2029 are escaped; there are no
    spaces after separators: a run's map carries hundreds of thousands of numbers.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for raw, escaped in _SCRIPT_ESCAPES:
        text = text.replace(raw, escaped)
    return text
