"""Map furniture: the page's own stylesheet, the legend and the attribution line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from branca.element import MacroElement
from jinja2 import Template

from refuge_map.render._html import esc
from refuge_map.render._style import LAND_BEYOND

Swatch = Literal["dot", "line", "dash", "fill"]

#: Styles of the elements the maps draw themselves (city markers, popups, legend); the page's
#: background is the land beyond the data's region.
PAGE_STYLE = f"""
.leaflet-container {{ background: {LAND_BEYOND}; }}
.refuge-city, .refuge-city-name {{ background: none; border: none; }}
.refuge-city-dot {{ width: 12px; height: 12px; border-radius: 50%; border: 2px solid #fff;
  box-shadow: 0 0 2px #000; }}
.refuge-city-label {{ position: absolute; left: 8px; top: -11px; white-space: nowrap;
  font: bold 12px sans-serif; color: #222; text-shadow: 0 0 3px #fff, 0 0 3px #fff; }}
.refuge-popup table {{ border-collapse: collapse; font-size: 12px; margin-top: 4px; }}
.refuge-popup th {{ text-align: left; padding: 1px 8px 1px 0; vertical-align: top;
  font-weight: normal; color: #555; }}
.refuge-popup td {{ padding: 1px 0; }}
.refuge-legend {{ position: fixed; top: 80px; left: 10px; z-index: 999; background: #fff;
  padding: 4px 8px; border-radius: 4px; box-shadow: 0 1px 5px rgba(0,0,0,.4);
  font: 12px sans-serif; line-height: 17px; max-width: 250px;
  max-height: calc(100% - 230px); overflow-y: auto; }}
.refuge-legend summary {{ cursor: pointer; font-weight: bold; }}
.refuge-legend:not([open]) {{ max-width: none; }}
/* Leaflet's own size (folium sets the container's font to 1rem, which made them 16 px: the
   attribution three lines high over the map's corner) */
.leaflet-control-attribution, .leaflet-control-scale-line {{ font-size: 12px; }}
.leaflet-control-attribution {{ max-width: 62%; }}
.refuge-popup a {{ color: #0a58ca; }}
.refuge-cluster div {{ width: 100%; height: 100%; border-radius: 50%; color: #fff;
  font: bold 12px/26px sans-serif; text-align: center; border: 2px solid #fff;
  box-shadow: 0 0 3px #000; text-shadow: 0 0 2px #000; box-sizing: border-box;
  display: flex; align-items: center; justify-content: center; }}
.refuge-follow {{ background: #fff; padding: 3px 6px; font: 12px sans-serif; }}
.refuge-swatch {{ display: inline-block; width: 18px; height: 10px; margin-right: 6px;
  vertical-align: middle; }}
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
    """A box in the map's upper left corner (over the sea, away from the cities' labels) that
    a click on its title folds up: the title, and one swatch and label per entry.

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
        self.body = (
            f'<details class="refuge-legend" open><summary>{esc(title)}</summary>'
            f"{note_html}{lines}</details>"
        )


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
