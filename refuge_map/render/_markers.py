"""Many circle markers as one toggleable layer of clusters: compact data, drawn by one loop in
the page, gathered (Leaflet.markercluster) into discs that give their count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from folium.elements import JSCSSMixin
from jinja2 import Template

from refuge_map._cells import as_point
from refuge_map.render._html import PackedLayer, packed_json, script_json
from refuge_map.render.assets import CLUSTER_CSS, CLUSTER_JS, folium_links

#: (lat, lon, popup HTML in pieces, tooltip HTML) of one marker; all text already escaped.
Marker = tuple[float, float, Sequence[str], str]


def lat_lon(geometry: object) -> tuple[float, float]:
    """(lat, lon) of a point geometry in WGS84 (a table's cell: TypeError if not a point)."""
    point = as_point(geometry)
    return point.y, point.x


#: From this zoom on every marker stands alone (a town's streets).
UNCLUSTERED_ZOOM = 13


class MarkerLayer(JSCSSMixin, PackedLayer):
    """Circle markers of one style, each with its popup and tooltip, in the layer control;
    nearby markers are gathered into a disc of the layer's colour that gives their count (a
    click zooms in), so that a thousand events read as a few numbers.

    A folium `CircleMarker` per event writes a dozen lines of script each; this writes one
    array and one loop, and every distinct piece of text once (a popup is its pieces joined,
    see `popup_parts`), gzipped when large (`packed_json`), so that thousands of events stay
    light.

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
    cluster_color
        The colour of the layer's count discs.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (data, color) {
            var group = L.markerClusterGroup({
                showCoverageOnHover: false,
                disableClusteringAtZoom: {{ this.unclustered_zoom }},
                iconCreateFunction: function (cluster) {
                    var n = cluster.getChildCount();
                    var size = n < 10 ? 26 : n < 100 ? 32 : 40;
                    return L.divIcon({
                        html: '<div style="background:' + color + '">' + n + "</div>",
                        className: "refuge-cluster {{ this.style_class }}-cluster",
                        iconSize: L.point(size, size)
                    });
                }
            });
            refugeUnpack(data).then(function (packed) {
                var texts = packed.texts;
                group.addLayers(packed.markers.map(function (m) {
                    return L.circleMarker([m[0], m[1]], {{ this.style }})
                        .bindPopup(m[2].map(function (i) { return texts[i]; }).join(""),
                                   {maxWidth: 380})
                        .bindTooltip(texts[m[3]]);
                }));
            });
            return group;
        })({{ this.data }}, {{ this.color }});
        {% endmacro %}
        """
    )

    default_js = folium_links(CLUSTER_JS)
    default_css = folium_links(CLUSTER_CSS)

    def __init__(
        self,
        markers: Sequence[Marker],
        *,
        style: dict[str, Any],
        name: str,
        show: bool,
        cluster_color: str,
    ) -> None:
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "MarkerLayer"
        texts: dict[str, int] = {}  # each distinct text once, by first appearance

        def index(text: str) -> int:
            return texts.setdefault(text, len(texts))

        rows = [
            [lat, lon, [index(t) for t in popup], index(tip)] for lat, lon, popup, tip in markers
        ]
        self.data = packed_json({"texts": list(texts), "markers": rows})
        self.style = script_json(style)
        self.color = script_json(cluster_color)
        self.style_class = str(style.get("className", "refuge-marker")).split()[-1]
        self.unclustered_zoom = UNCLUSTERED_ZOOM
