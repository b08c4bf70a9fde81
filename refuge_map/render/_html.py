"""Escaped HTML for popups, tooltips and the legend: every data string goes through `esc`."""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import folium
from branca.element import Element, Figure, MacroElement
from folium.map import Layer

#: What `script_json` escapes so that data cannot end a script or open a comment in it.
_SCRIPT_ESCAPES = (
    ("</", "\\u003c/"),
    ("<!", "\\u003c!"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)
_JINJA_OPENING = re.compile(r"\{(?=[{%#])")


class Html(str):
    """Text that is already safe HTML (built here from escaped pieces): `popup_parts` keeps it."""

    __slots__ = ()


#: Sefaria's names of the books the package cites (and their abbreviations in the data).
_BIBLE = {
    "Genesis": "Genesis", "Gen": "Genesis", "Exodus": "Exodus", "Exod": "Exodus",
    "Leviticus": "Leviticus", "Lev": "Leviticus", "Numbers": "Numbers", "Num": "Numbers",
    "Deuteronomy": "Deuteronomy", "Deut": "Deuteronomy", "Joshua": "Joshua", "Josh": "Joshua",
    "1 Chr": "I_Chronicles", "1 Chronicles": "I_Chronicles",
}  # fmt: skip
#: Rambam's laws the package cites, by the short name it uses, as Sefaria names them.
_RAMBAM = {"Rotzeach": "Mishneh_Torah,_Murderer_and_the_Preservation_of_Life"}
_TRACTATES = "Makkot|Eruvin|Sanhedrin|Bekhorot|Zevachim|Sotah|Bava Kamma|Shabbat"
_BOOKS = "|".join(sorted((re.escape(b) for b in _BIBLE), key=len, reverse=True))
_VERSES = r"(\d+):(\d+(?:-\d+)?)"
#: A reference in running text: Mishnah or Tosefta, a Bible verse, a Talmud folio, Rambam.
_REFERENCE = re.compile(
    rf"(?P<mishnah>(?P<work>Mishnah|Tosefta) (?P<tractate>[A-Z][a-z]+(?: [A-Z][a-z]+)?) {_VERSES})"
    rf"|(?P<bible>\b(?P<book>{_BOOKS}) (?P<bc>\d+):(?P<bv>\d+(?:-\d+)?))"
    rf"|(?P<talmud>\b(?P<t>{_TRACTATES}) (?P<folio>\d+[ab](?:-[ab])?))"
    rf"|(?P<rambam>Rambam, (?P<law>{'|'.join(_RAMBAM)}) (?P<rc>\d+):(?P<rv>\d+(?:-\d+)?))"
)
SEFARIA = "https://www.sefaria.org/"


def sefaria_url(match: re.Match[str]) -> str:
    """The Sefaria page of a reference `_REFERENCE` matched (``Mishnah Makkot 2:7`` ->
    ``https://www.sefaria.org/Mishnah_Makkot.2.7``)."""
    if match["mishnah"]:
        ref = f"{match['work']}_{match['tractate'].replace(' ', '_')}.{match[4]}.{match[5]}"
    elif match["bible"]:
        ref = f"{_BIBLE[match['book']]}.{match['bc']}.{match['bv']}"
    elif match["talmud"]:
        ref = f"{match['t'].replace(' ', '_')}.{match['folio'].split('-')[0]}"
    else:
        ref = f"{_RAMBAM[match['law']]}.{match['rc']}.{match['rv']}"
    return SEFARIA + ref


def cited(text: Any) -> Html | None:
    """`text` escaped, with every reference in it linked to its text on Sefaria (a link only:
    nothing is fetched); None for a missing value."""
    return None if is_missing(text) else _linked(str(text))


@lru_cache(maxsize=4096)
def _linked(raw: str) -> Html:
    """`cited` of a text (a run's thousands of events cite a few dozen rules)."""
    out, last = [], 0
    for match in _REFERENCE.finditer(raw):
        out.append(esc(raw[last : match.start()]))
        out.append(link(match[0], sefaria_url(match)))
        last = match.end()
    out.append(esc(raw[last:]))
    return Html("".join(out))


def link(text: str, url: str) -> str:
    """An escaped link that opens in a new tab."""
    return f'<a href="{esc(url)}" target="_blank" rel="noopener">{esc(text)}</a>'


def esc(value: Any) -> str:
    """`value` as text that is inert in HTML and inside a JavaScript template literal.

    folium puts popup and tooltip HTML between backticks, so besides ``<>&"'`` the characters
    ```` ` ````, ``$`` and ``\\`` become character references too.
    """
    return _escaped(str(value))


@lru_cache(maxsize=65536)
def _escaped(text: str) -> str:
    """`esc` of a text (popups repeat their labels and many values thousands of times)."""
    escaped = html.escape(text, quote=True)
    return escaped.replace("`", "&#96;").replace("$", "&#36;").replace("\\", "&#92;")


def is_missing(value: Any) -> bool:
    """Whether a table cell holds nothing worth showing (None, NaN, empty text)."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and not value.strip()


def popup_table(title: str, rows: Iterable[tuple[str, Any]], *, title_he: Any = None) -> str:
    """A popup: a bold title (and a Hebrew title, right to left) over a two-column table.

    Labels and values are escaped here (an `Html` value is kept as it is); rows with a missing
    value are left out.
    """
    return "".join(popup_parts(title, rows, title_he=title_he))


def popup_parts(title: str, rows: Iterable[tuple[str, Any]], *, title_he: Any = None) -> list[str]:
    """`popup_table` in pieces that join to it: the opening with the title and the first label,
    then each value followed by the markup between it and the next label, the closing last.
    Many popups share every piece but their values (a label, a rule, a citation), so a layer
    stores each distinct piece once and a popup as a list of indices.
    """
    head = f"<b>{esc(title)}</b>"
    if not is_missing(title_he):
        head += f' <span dir="rtl" lang="he">{esc(title_he)}</span>'
    parts = [f'<div class="refuge-popup">{head}<table>']
    for label, value in rows:
        if is_missing(value):
            continue
        parts[-1] += f"<tr><th>{esc(label)}</th><td>"
        parts += [value if isinstance(value, Html) else esc(value), "</td></tr>"]
    parts[-1] += "</table></div>"
    return parts


def hours(seconds: float) -> str:
    """A duration as ``"7 h 41 min"``."""
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min"


def since_killing(seconds: float) -> str:
    """Seconds after the killing as a teacher says them: ``"3 h 05 min after the killing"``,
    ``"2 d 4 h after the killing"``, ``"3.2 years after the killing"``."""
    minutes = round(seconds / 60)
    if minutes < 0:
        return f"{hours(-minutes * 60)} before the killing"
    days, rest = divmod(minutes, 1440)
    if days >= 365:
        return f"{days / 365.25:.1f} years after the killing"
    if days:
        return f"{days} d {rest // 60} h after the killing"
    return f"{hours(minutes * 60)} after the killing"


def script_json(value: Any) -> str:
    """`value` as compact JSON that is safe inside a ``<script>`` element.

    Nothing in it can end the script or open a comment (``</`` and ``<!`` become ``\\u003c/``
    and ``\\u003c!``), nor can it open a Jinja tag (folium renders it through Jinja), and the
    line separators U+2028 and U+2029 are escaped; there are no
    spaces after separators: a run's map carries hundreds of thousands of numbers.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for raw, escaped in _SCRIPT_ESCAPES:
        text = text.replace(raw, escaped)
    # branca reads a rendered script as a Jinja template again: no "{{", "{%" or "{#" may
    # remain (they occur only inside strings, where "\u007b" is the same character).
    return _JINJA_OPENING.sub(r"\\u007b", text)


#: A data block of a page whose JSON is longer than this (bytes) is carried gzipped (see
#: `packed_json`): a thousand incidents' tracks, events and coverage cells are 1.7 MB of JSON,
#: 0.5 MB gzipped in base64; smaller blocks (a few incidents') stay readable JSON.
PACK_OVER_BYTES = 16_384

#: The page's side of `packed_json` (once per page, `add_unpack_script`): ``refugeUnpack(data)``
#: gives a Promise of the data, gunzipped by the browser's own DecompressionStream (nothing is
#: fetched); ``<html data-refuge-unpacking>`` counts the blocks not yet unpacked and drawn (0
#: when all are), for whoever waits on them.
UNPACK_JS = """
function refugeUnpack(data) {  /* a block over PACK_OVER_BYTES comes gzipped, in base64 */
    var root = document.documentElement;
    root.dataset.refugeUnpacking = +(root.dataset.refugeUnpacking || 0) + 1;
    var done = function () { root.dataset.refugeUnpacking -= 1; };
    if (typeof data !== "string") {
        return Promise.resolve(data).finally(function () { setTimeout(done); });
    }
    var bytes = Uint8Array.from(atob(data), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse)
        .finally(function () { setTimeout(done); });
}
"""


def packed_json(value: Any) -> str:
    """`value` as a script's data for `UNPACK_JS`'s ``refugeUnpack``: its `script_json` if that
    is at most `PACK_OVER_BYTES` long, else a JSON string of the compact JSON gzipped (no
    timestamp: the same value gives the same page) in base64.

    Level 6, not 9: the demo's map is 1.4% larger (417 against 411 KB gzipped) and its blocks
    pack in half the time (0.036 against 0.079 s)."""
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if len(raw) <= PACK_OVER_BYTES:  # else its `script_json`, never shorter, is too long too
        text = script_json(value)
        if len(text.encode()) <= PACK_OVER_BYTES:
            return text
    packed = gzip.compress(raw.encode(), compresslevel=6, mtime=0)
    return json.dumps(base64.b64encode(packed).decode("ascii"))


def add_unpack_script(element: MacroElement) -> None:
    """Put `UNPACK_JS` into the page of `element` (once, however many elements ask)."""
    _page(element).script.add_child(Element(UNPACK_JS), name="refuge_unpack")


def _page(element: Element) -> Figure:
    """The page `element` renders in (the root of a folium Map: a Figure)."""
    root = element.get_root()
    assert isinstance(root, Figure), "render the element in a page (a folium Map's Figure)"
    return root


class _Rendered(Element):
    """Text already rendered, put into the page as it is."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def render(self, **kwargs: Any) -> str:
        """The text, as branca's ``Element(text)`` gives it (Jinja drops a last newline)."""
        return self.text.removesuffix("\n")


class _RenderedMacros(MacroElement):
    """A `MacroElement` whose macros' output goes into the page as it is: branca would read each
    output as a Jinja template and render it again, which for a layer of megabytes of data was
    most of the page's rendering time (and `script_json` leaves no Jinja in the data)."""

    # branca types `render` as giving text; a MacroElement's gives none (its output goes
    # into the page), as `MacroElement.render` does
    def render(self, **kwargs: Any) -> None:  # type: ignore[override]
        """Put the header, html and script macros' output into the page; render the children."""
        _render_macros(self, kwargs)


def _render_macros(element: MacroElement, kwargs: dict[str, Any]) -> None:
    """`_RenderedMacros.render` of `element`; a child that renders as a plain `MacroElement`
    does (folium's ``ElementAddToElement`` of every layer) is rendered so too."""
    root = _page(element)
    macros = element._template.module.__dict__
    for part, home in (("header", root.header), ("html", root.html), ("script", root.script)):
        if part in macros:
            home.add_child(_Rendered(macros[part](element, kwargs)), name=element.get_name())
    for child in element._children.values():
        if isinstance(child, MacroElement) and type(child).render is MacroElement.render:
            _render_macros(child, kwargs)
        else:
            child.render(**kwargs)


class GeoJsonShape(folium.GeoJson, _RenderedMacros):
    """A folium `GeoJson` whose script goes into the page as it is (`_RenderedMacros`): a map
    draws a few hundred shapes, each with a `Popup` and a `Tooltip` of the kinds below (their
    Jinja compilations of rendered text were a third of the map's rendering)."""


# folium types Marker.render with no keyword arguments (the page passes none)
class CircleMarker(folium.CircleMarker, _RenderedMacros):  # type: ignore[misc]
    """A folium `CircleMarker` whose script goes into the page as it is (`_RenderedMacros`)."""


class Tooltip(folium.Tooltip, _RenderedMacros):
    """A folium `Tooltip` whose script goes into the page as it is (`_RenderedMacros`)."""


class Popup(folium.Popup):
    """A folium `Popup` whose script goes into the page as it is (as `_RenderedMacros`)."""

    # (no text either: see `_RenderedMacros.render`)
    def render(self, **kwargs: Any) -> None:  # type: ignore[override]
        """Render the popup's parts, then put its script into the page (`folium.Popup.render`
        with branca's ``Element(text)``, a Jinja template of the text, as `_Rendered`)."""
        for child in self._children.values():
            child.render(**kwargs)
        _page(self).script.add_child(
            _Rendered(self._template.render(this=self, kwargs=kwargs)), name=self.get_name()
        )


class PackedLayer(Layer, _RenderedMacros):
    """A layer whose data go into its script as `packed_json`, which the page's `UNPACK_JS`
    unpacks (put into the page with the layer)."""

    # (no text either: see `_RenderedMacros.render`)
    def render(self, **kwargs: Any) -> None:  # type: ignore[override]
        """Render into the page, with the page's ``refugeUnpack`` (`add_unpack_script`)."""
        add_unpack_script(self)
        super().render(**kwargs)


def unpacked_json(text: str) -> Any:
    """What the page's ``unpack`` gives for a `packed_json` text (for tests and tools)."""
    value = json.loads(text)
    if isinstance(value, str):
        return json.loads(gzip.decompress(base64.b64decode(value)))
    return value
