"""The time slider: leaflet-timedimension drawing a run's tracks up to the chosen moment."""

from __future__ import annotations

from typing import Any

import pandas as pd
from folium.elements import JSCSSMixin
from folium.map import Layer
from jinja2 import Template

from refuge_map.render._html import script_json
from refuge_map.render.assets import SLIDER_CSS, SLIDER_JS, folium_links

#: Slider times start one day after the epoch: leaflet-timedimension sorts times as text and
#: cuts every feature before time 0, so it counts from the killing, not the nominal dates.
BASE_MS = 86_400_000


class TimeSlider(JSCSSMixin, Layer):
    """Timestamped tracks on a time slider with play, step and speed controls, and a picker of
    the incidents to follow.

    Each feature is a LineString whose ``properties`` hold ``times`` (from `slider_times`:
    counted from its incident's killing, so that every incident starts at 0), ``incident``,
    ``role`` (a key of `styles`), ``popup`` and ``tooltip`` (escaped HTML). The slider shows the
    time since the killing ("3 h 05 min after the killing"); the page opens on the tracks of
    `followed` and the picker shows any one incident (or all of them). The data is written as
    compact JSON.

    Parameters
    ----------
    features
        The GeoJSON features.
    styles
        Per role: ``style`` (the line) and ``head`` (the circle marking its last position).
    period
        The slider's step as an ISO 8601 duration (e.g. ``"PT2M"``).
    name
        The layer's name in the layer control.
    followed
        The incidents whose tracks the page opens on.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        {{ this._parent.get_name() }}.timeDimension = L.timeDimension({
            times: {{ this.times|tojson }},
            currentTime: {{ this.times[0] }},
            period: {{ this.period|tojson }}
        });
        {{ this._parent.get_name() }}.addControl(new (L.Control.TimeDimension.extend({
            _getDisplayDateFormat: function (date) {
                var minutes = Math.round((date.getTime() - {{ this.base_ms }}) / 60000);
                var days = Math.floor(minutes / 1440), h = Math.floor(minutes % 1440 / 60);
                var m = minutes % 60;
                return (days ? days + " d " : "") + h + " h " + (m < 10 ? "0" : "") + m +
                    " min after the killing";
            }
        }))({{ this.control_options|tojson }}));
        var {{ this.get_name() }} = (function (map, data, styles, followed) {
            var tracks = L.geoJson(null, {
                pointToLayer: function (feature, latlng) {
                    return L.circleMarker(latlng, styles[feature.properties.role].head);
                },
                style: function (feature) {
                    var role = styles[feature.properties.role];
                    return feature.geometry.type === "Point" ? role.head : role.style;
                },
                onEachFeature: function (feature, layer) {
                    layer.bindPopup(feature.properties.popup);
                    layer.bindTooltip(feature.properties.tooltip);
                }
            });
            function follow(choice) {
                tracks.clearLayers();
                tracks.addData(data.features.filter(function (f) {
                    var incident = f.properties.incident;
                    return choice === "all" ||
                        (choice === "" ? followed.indexOf(incident) >= 0 : incident === +choice);
                }));
            }
            follow("");
            var layer = L.timeDimension.layer.geoJson(
                tracks, {updateTimeDimension: false, addlastPoint: true});
            var picker = L.control({position: "bottomleft"});
            picker.onAdd = function () {
                var box = L.DomUtil.create("div", "leaflet-bar refuge-follow");
                var incidents = [];
                data.features.forEach(function (f) {
                    if (incidents.indexOf(f.properties.incident) < 0) {
                        incidents.push(f.properties.incident);
                    }
                });
                var options = '<option value="">the first ' + followed.length +
                    ' incidents</option><option value="all">every incident (' +
                    incidents.length + ')</option>';
                incidents.sort(function (a, b) { return a - b; }).forEach(function (i) {
                    options += '<option value="' + i + '">incident ' + i + '</option>';
                });
                box.innerHTML = '<label>Follow <select>' + options + '</select></label>';
                L.DomEvent.disableClickPropagation(box);
                box.querySelector("select").addEventListener("change", function (e) {
                    follow(e.target.value);
                    layer._update();
                });
                return box;
            };
            picker.addTo(map);
            return layer;
        })({{ this._parent.get_name() }}, {{ this.data }}, {{ this.styles }},
           {{ this.followed }});
        {% endmacro %}
        """
    )
    default_js = folium_links(SLIDER_JS)
    default_css = folium_links(SLIDER_CSS)

    def __init__(
        self,
        features: list[dict[str, Any]],
        *,
        styles: dict[str, dict[str, Any]],
        period: str,
        name: str,
        followed: list[int],
    ) -> None:
        super().__init__(name=name, overlay=True, control=True, show=True)
        self._name = "TimeSlider"
        self.data = script_json({"type": "FeatureCollection", "features": features})
        self.styles = script_json(styles)
        self.followed = script_json(followed)
        self.times = sorted({t for f in features for t in f["properties"]["times"]})
        self.base_ms = BASE_MS
        self.period = period
        self.control_options = {
            "position": "bottomleft",
            "autoPlay": False,
            "loopButton": False,
            "timeSliderDragUpdate": True,
            "speedSlider": True,
            "playerOptions": {"transitionTime": 200, "loop": False, "startOver": True},
        }


def slider_times(times: pd.Series, *, origin: pd.Series | pd.Timestamp) -> list[int]:
    """Times as the slider counts them: milliseconds after `origin` (each row's killing),
    plus one day."""
    return (BASE_MS + (times - origin) // pd.Timedelta(milliseconds=1)).astype(int).tolist()
