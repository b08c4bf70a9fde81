"""The time slider: leaflet-timedimension drawing a run's tracks up to the chosen moment."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from folium.elements import JSCSSMixin
from jinja2 import Template
from numpy.typing import NDArray

from refuge_map.render._html import PackedLayer, packed_json, script_json
from refuge_map.render.assets import SLIDER_CSS, SLIDER_JS, folium_links

#: Slider times start one day after the epoch: leaflet-timedimension sorts times as text and
#: cuts every feature before time 0. Its clock is the time since the killing (the files'
#: ``since_killing_s``), never the simulation's nominal dates.
BASE_MS = 86_400_000


class Track(NamedTuple):
    """One agent's line on the slider."""

    incident: int
    role: str
    lonlat: NDArray[np.float64]  # (n, 2) degrees
    times_ms: NDArray[np.int64]  # (n,) from `slider_times`
    popup: Sequence[str]  # `popup_parts`, escaped
    tooltip: str  # escaped


class TimeSlider(JSCSSMixin, PackedLayer):
    """Timestamped tracks on a time slider with play, step and speed controls, and a picker of
    the incidents to follow.

    Each `Track` is one agent's line with its times (from `slider_times`: counted from its
    incident's killing, so that every incident starts at 0). The slider shows the time since
    the killing ("3 h 05 min after the killing"); the page opens on the tracks of `followed` and
    the picker shows any one incident (or all of them).

    A thousand incidents are tens of thousands of points, so the page carries them compactly
    and rebuilds the GeoJSON features itself: coordinates in 1e-5 degrees (about 1 m) as the
    changes of each step from the step before (a steady walk along a road repeats its step),
    times in the run's time unit as the differences from the time before, both written in the
    Encoded Polyline Algorithm Format (`encode_deltas`); every distinct popup piece once
    (`refuge_map.render._html.popup_parts`); the whole gzipped when large
    (`refuge_map.render._html.packed_json`), unpacked by the browser when the page opens.

    Parameters
    ----------
    tracks
        One `Track` per agent.
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
            function decode(text) {  /* the Encoded Polyline Algorithm Format, summed */
                var out = [], value = 0, i = 0;
                while (i < text.length) {
                    var chunk, scale = 1, zigzag = 0;
                    do {
                        chunk = text.charCodeAt(i++) - 63;
                        zigzag += (chunk & 31) * scale;
                        scale *= 32;
                    } while (chunk >= 32);
                    value += zigzag % 2 ? -(zigzag + 1) / 2 : zigzag / 2;
                    out.push(value);
                }
                return out;
            }
            function features(packed) {
                return packed.tracks.map(function (t) {
                    var steps = decode(t[4]), ticks = decode(t[5]), coordinates = [];
                    var lat = 0, lon = 0;
                    for (var k = 0; k < steps.length; k += 2) {  /* steps to positions */
                        lat += steps[k];
                        lon += steps[k + 1];
                        coordinates.push([lon / 1e5, lat / 1e5]);
                    }
                    return {type: "Feature",
                            geometry: {type: "LineString", coordinates: coordinates},
                            properties: {
                                incident: t[0], role: packed.roles[t[1]],
                                popup: t[2].map(function (i) { return packed.texts[i]; }).join(""),
                                tooltip: packed.texts[t[3]],
                                times: ticks.map(function (n) {
                                    return {{ this.base_ms }} + n * packed.unit_ms;
                                })
                            }
                    };
                });
            }
            var all = [];
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
                tracks.addData(all.filter(function (f) {
                    var incident = f.properties.incident;
                    return choice === "all" ||
                        (choice === "" ? followed.indexOf(incident) >= 0 : incident === +choice);
                }));
            }
            var layer = L.timeDimension.layer.geoJson(
                tracks, {updateTimeDimension: false, addlastPoint: true});
            var picker = L.control({position: "bottomleft"});
            picker.onAdd = function () {
                var box = L.DomUtil.create("div", "leaflet-bar refuge-follow");
                box.innerHTML = "<label>Follow <select></select></label>";
                L.DomEvent.disableClickPropagation(box);
                box.querySelector("select").addEventListener("change", function (e) {
                    follow(e.target.value);
                    layer._update();
                });
                return box;
            };
            picker.addTo(map);
            refugeUnpack(data).then(function (packed) {
                all = features(packed);
                var incidents = [];
                all.forEach(function (f) {
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
                picker.getContainer().querySelector("select").innerHTML = options;
                follow("");
                layer._update();
            });
            return layer;
        })({{ this._parent.get_name() }}, {{ this.packed }}, {{ this.styles }},
           {{ this.followed }});
        {% endmacro %}
        """
    )
    default_js = folium_links(SLIDER_JS)
    default_css = folium_links(SLIDER_CSS)

    def __init__(
        self,
        tracks: list[Track],
        *,
        styles: dict[str, dict[str, Any]],
        period: str,
        name: str,
        followed: list[int],
    ) -> None:
        super().__init__(name=name, overlay=True, control=True, show=True)
        self._name = "TimeSlider"
        self.packed = packed_json(_pack(tracks))
        self.styles = script_json(styles)
        self.followed = script_json(followed)
        self.times = sorted({int(t) for track in tracks for t in track.times_ms})
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


def slider_times(since_killing_s: pd.Series, *, origin_s: NDArray[np.float64] | float) -> list[int]:
    """Times as the slider counts them: milliseconds after `origin_s` (each row's incident's
    first row, seconds since the killing: the killing itself to within a step), plus one day."""
    return (BASE_MS + np.rint((since_killing_s - origin_s) * 1000.0)).astype(np.int64).tolist()


def _pack(tracks: Sequence[Track]) -> dict[str, Any]:
    """The tracks as the page's script reads them (see `TimeSlider`): roles and texts once,
    then per track its incident, role, popup pieces, tooltip, coordinates and times."""
    texts: dict[str, int] = {}
    roles: dict[str, int] = {}
    ticks = [t - BASE_MS for track in tracks for t in track.times_ms.tolist()]
    unit_ms = math.gcd(*ticks) or 1
    coords, times = [], []
    for track in tracks:
        latlon = np.round(np.asarray(track.lonlat)[:, ::-1] * 1e5).astype(np.int64)
        coords.append(np.diff(latlon, axis=0, prepend=np.zeros((1, 2), np.int64)).ravel())
        times.append((np.asarray(track.times_ms) - BASE_MS) // unit_ms)
    rows = [
        [
            int(track.incident),
            roles.setdefault(track.role, len(roles)),
            [texts.setdefault(t, len(texts)) for t in track.popup],
            texts.setdefault(track.tooltip, len(texts)),
            coords_text,
            times_text,
        ]
        for track, coords_text, times_text in zip(
            tracks, encode_deltas(coords), encode_deltas(times), strict=True
        )
    ]
    return {"roles": list(roles), "texts": list(texts), "unit_ms": unit_ms, "tracks": rows}


def encode_deltas(arrays: Sequence[NDArray[np.int64]]) -> list[str]:
    """Each array's whole numbers as the differences from the previous one (its first from 0),
    written in the Encoded Polyline Algorithm Format (Google): each difference zigzagged to a
    natural number, in 5-bit groups, low first, each a character from ``?`` (63) on, ``+32`` for
    a group that has more to follow. Small steps take one or two characters. All the arrays'
    numbers are encoded in one pass, then cut into one text per array."""
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    values = np.concatenate([np.asarray(a, dtype=np.int64) for a in arrays] or [empty])
    steps = np.diff(values, prepend=0)
    firsts = (np.cumsum(lengths) - lengths)[lengths > 0]
    steps[firsts] = values[firsts]  # each array's first number from 0
    zigzag = np.where(steps < 0, -2 * steps - 1, 2 * steps)
    groups = np.ones(len(zigzag), dtype=np.int64)
    while (rest := zigzag >> (5 * groups)).any():
        groups += rest > 0
    width = int(groups.max(initial=1))
    place = np.arange(width)
    chunks = (zigzag[:, None] >> (5 * place)) & 31
    chunks += 63 + 32 * (place < groups[:, None] - 1)
    text = chunks[place < groups[:, None]].astype(np.uint8).tobytes().decode("ascii")
    cuts = np.r_[0, np.cumsum(groups)][np.r_[0, np.cumsum(lengths)]].tolist()
    return [text[start:end] for start, end in pairwise(cuts)]
