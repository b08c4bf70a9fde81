"""Map furniture: the page's own stylesheet, the legend and the attribution line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from branca.element import MacroElement
from jinja2 import Template

from refuge_map.render._html import esc

Swatch = Literal["dot", "line", "dash", "fill"]

#: Styles of the elements the maps draw themselves (city markers, popups, legend).
PAGE_STYLE = """
.refuge-city { background: none; border: none; }
.refuge-city-dot { width: 12px; height: 12px; border-radius: 50%; border: 2px solid #fff;
  box-shadow: 0 0 2px #000; }
.refuge-city-label { position: absolute; left: 16px; top: -3px; white-space: nowrap;
  font: bold 12px sans-serif; color: #222; text-shadow: 0 0 3px #fff, 0 0 3px #fff; }
.refuge-popup table { border-collapse: collapse; font-size: 12px; margin-top: 4px; }
.refuge-popup th { text-align: left; padding: 1px 8px 1px 0; vertical-align: top;
  font-weight: normal; color: #555; }
.refuge-popup td { padding: 1px 0; }
.refuge-legend { position: fixed; top: 70px; right: 10px; z-index: 999; background: #fff;
  padding: 6px 10px; border-radius: 4px; box-shadow: 0 1px 5px rgba(0,0,0,.4);
  font: 12px sans-serif; line-height: 18px; max-width: 300px;
  max-height: calc(100% - 190px); overflow-y: auto; }
.leaflet-control-attribution { max-width: 62%; }
.refuge-legend b { display: block; margin-bottom: 2px; }
.refuge-swatch { display: inline-block; width: 18px; height: 10px; margin-right: 6px;
  vertical-align: middle; }
"""

_SWATCH_CSS: dict[str, str] = {
    "dot": "width:10px;height:10px;border-radius:50%;background:{c}",
    "line": "height:0;border-top:3px solid {c}",
    "dash": "height:0;border-top:2px dashed {c}",
    "fill": "background:{c};opacity:.6;border:1px solid {c}",
}


class PageStyle(MacroElement):
    """The stylesheet of the maps' own elements, in the page header (no external file)."""

    _template = Template(
        "{% macro header(this, kwargs) %}<style>{{ this.css }}</style>{% endmacro %}"
    )

    def __init__(self) -> None:
        super().__init__()
        self._name = "PageStyle"
        self.css = PAGE_STYLE


class Legend(MacroElement):
    """A fixed box in the map's corner: a title and one swatch and label per entry.

    Parameters
    ----------
    title
        The box's heading.
    entries
        (swatch shape, CSS colour, label) per line.
    note
        A line of text under the heading (e.g. the scenario's description).

    All text is escaped.
    """

    _template = Template("{% macro html(this, kwargs) %}{{ this.body }}{% endmacro %}")

    def __init__(
        self, title: str, entries: Sequence[tuple[Swatch, str, str]], *, note: str = ""
    ) -> None:
        super().__init__()
        self._name = "Legend"
        lines = "".join(
            f'<span class="refuge-swatch" style="{esc(_SWATCH_CSS[shape].format(c=color))}">'
            f"</span>{esc(label)}<br>"
            for shape, color, label in entries
        )
        note_html = f"<i>{esc(note)}</i><br>" if note else ""
        self.body = f'<div class="refuge-legend"><b>{esc(title)}</b>{note_html}{lines}</div>'


class Attribution(MacroElement):
    """Adds a line of (escaped) text to the map's attribution control."""

    _template = Template(
        "{% macro script(this, kwargs) %}"
        "{{ this._parent.get_name() }}.attributionControl.addAttribution({{ this.text|tojson }});"
        "{% endmacro %}"
    )

    def __init__(self, text: str) -> None:
        super().__init__()
        self._name = "Attribution"
        self.text = esc(text)
