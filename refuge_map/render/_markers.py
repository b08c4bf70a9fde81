"""Many circle markers as one toggleable layer: compact data, drawn by one loop in the page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from folium.map import Layer
from jinja2 import Template

from refuge_map.render._html import script_json

#: (lat, lon, popup HTML in pieces, tooltip HTML) of one marker; all text already escaped.
Marker = tuple[float, float, Sequence[str], str]


class MarkerLayer(Layer):
    """Circle markers of one style, each with its popup and tooltip, in the layer control.

    A folium `CircleMarker` per event writes a dozen lines of script each; this writes one
    array and one loop, and every distinct piece of text once (a popup is its pieces joined,
    see `popup_parts`), so that thousands of events stay light.

    Parameters
    ----------
    markers
        One `Marker` per circle (popup pieces and tooltip escaped by the caller).
    style
        Leaflet path options of every circle (radius, colours, ``className``).
    name
        The layer's name in the layer control.
    show
        Whether the layer is switched on when the page opens.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (texts, markers) {
            function text(i) { return texts[i]; }
            return L.featureGroup(markers.map(function (m) {
                return L.circleMarker([m[0], m[1]], {{ this.style }})
                    .bindPopup(m[2].map(text).join(""), {maxWidth: 380})
                    .bindTooltip(texts[m[3]]);
            }));
        })({{ this.texts }}, {{ this.markers }});
        {% endmacro %}
        """
    )

    def __init__(
        self, markers: Sequence[Marker], *, style: dict[str, Any], name: str, show: bool
    ) -> None:
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "MarkerLayer"
        texts: dict[str, int] = {}  # each distinct text once, by first appearance

        def index(text: str) -> int:
            return texts.setdefault(text, len(texts))

        rows = [
            [lat, lon, [index(t) for t in popup], index(tip)] for lat, lon, popup, tip in markers
        ]
        self.texts = script_json(list(texts))
        self.markers = script_json(rows)
        self.style = script_json(style)
