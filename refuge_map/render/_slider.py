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
#: cuts every feature before time 0, so it cannot take the (pre-1970) nominal dates of a run.
_BASE_MS = 86_400_000


class TimeSlider(JSCSSMixin, Layer):
    """Timestamped tracks on a time slider with play, step and speed controls.

    Each feature is a LineString whose ``properties`` hold ``times`` (from `slider_times`),
    ``role`` (a key of `styles`), ``popup`` and ``tooltip`` (escaped HTML). The slider shows the
    run's own date and time (UTC, as the tz-naive times are written), starting at the first
    time. The data is written as compact JSON.

    Parameters
    ----------
    features
        The GeoJSON features.
    times
        Every time the features hold, as written (tz-naive datetimes).
    styles
        Per role: ``style`` (the line) and ``head`` (the circle marking its last position).
    period
        The slider's step as an ISO 8601 duration (e.g. ``"PT2M"``).
    name
        The layer's name in the layer control.
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
                return moment.utc(date.getTime() + {{ this.origin_ms }}).format("YYYY-MM-DD HH:mm");
            }
        }))({{ this.control_options|tojson }}));
        var {{ this.get_name() }}_styles = {{ this.styles }};
        var {{ this.get_name() }} = L.timeDimension.layer.geoJson(
            L.geoJson({{ this.data }}, {
                pointToLayer: function (feature, latlng) {
                    var role = {{ this.get_name() }}_styles[feature.properties.role];
                    return L.circleMarker(latlng, role.head);
                },
                style: function (feature) {
                    var role = {{ this.get_name() }}_styles[feature.properties.role];
                    return feature.geometry.type === "Point" ? role.head : role.style;
                },
                onEachFeature: function (feature, layer) {
                    layer.bindPopup(feature.properties.popup);
                    layer.bindTooltip(feature.properties.tooltip);
                }
            }),
            {updateTimeDimension: false, addlastPoint: true}
        );
        {% endmacro %}
        """
    )
    default_js = folium_links(SLIDER_JS)
    default_css = folium_links(SLIDER_CSS)

    def __init__(
        self,
        features: list[dict[str, Any]],
        times: pd.Series,
        *,
        styles: dict[str, dict[str, Any]],
        period: str,
        name: str,
    ) -> None:
        super().__init__(name=name, overlay=True, control=True, show=True)
        self._name = "TimeSlider"
        self.data = script_json({"type": "FeatureCollection", "features": features})
        self.styles = script_json(styles)
        self.times = sorted(set(slider_times(times, origin=times.min())))
        self.origin_ms = _ms(times.min()) - _BASE_MS
        self.period = period
        self.control_options = {
            "position": "bottomleft",
            "autoPlay": False,
            "loopButton": False,
            "timeSliderDragUpdate": True,
            "speedSlider": True,
            "playerOptions": {"transitionTime": 200, "loop": False, "startOver": True},
        }


def slider_times(times: pd.Series, *, origin: pd.Timestamp) -> list[int]:
    """Times as the slider counts them: milliseconds after `origin`, plus one day."""
    return (_BASE_MS + (times - origin) // pd.Timedelta(milliseconds=1)).astype(int).tolist()


def _ms(time: pd.Timestamp) -> int:
    """A tz-naive time as milliseconds since the epoch (read as UTC)."""
    return int((time - pd.Timestamp(0)) // pd.Timedelta(milliseconds=1))
