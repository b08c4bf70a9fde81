"""Map layers beyond the six: the 48 Levitical cities, the "miklat" signposts and the bridges."""

from __future__ import annotations

import geopandas as gpd

from geo import WGS84, RefugeNetwork
from geo.prescribed_roads import ROAD_WIDTH_CUBITS, ROAD_WIDTH_SOURCE
from refuge_map._cells import as_float
from refuge_map.render._controls import Swatch
from refuge_map.render._html import esc, popup_parts
from refuge_map.render._markers import Marker, MarkerLayer, lat_lon
from refuge_map.render._style import BRIDGE, LEVITICAL, SIGNPOST


def levitical_layers(
    network: RefugeNetwork,
) -> tuple[list[MarkerLayer], list[tuple[Swatch, str, str]]]:
    """The Levitical cities (where the data folder has them), the signposts and the bridges,
    each a layer of the layer control (those that have any), and their legend entries."""
    layers: list[MarkerLayer] = []
    entries: list[tuple[Swatch, str, str]] = []
    if network.levitical is not None:
        # on at the start where the 42 receive manslayers too (refuges="levitical", Makkot 10a:
        # they are then cities of the network, of kind "levitical")
        shown = bool((network.cities["kind"] == "levitical").any())
        layers.append(_levitical_layer(network.levitical.to_crs(WGS84), show=shown))
        entries.append(("dot", LEVITICAL, "Levitical city (Joshua 21)"))
    signs = network.signposts().to_crs(WGS84)
    if len(signs):
        layers.append(_signpost_layer(signs))
        entries.append(("dot", SIGNPOST, "signpost 'miklat' (Makkot 10b)"))
    bridges = network.bridges().to_crs(WGS84)
    if len(bridges):
        layers.append(_bridge_layer(bridges, network.options["cubit_m"]))
        entries.append(("dot", BRIDGE, "bridge (Rambam, Rotzeach 8:5)"))
    return layers, entries


def _levitical_layer(cities: gpd.GeoDataFrame, *, show: bool) -> MarkerLayer:
    markers: list[Marker] = []
    for city in cities.itertuples(index=False):
        refuge = "yes, one of the six" if city.city_of_refuge else "no: refuge only with intent"
        rows = [
            ("tribe", city.tribe),
            ("Levites", city.family_name),
            ("verse", city.verse),
            ("city of refuge", refuge),
            ("identification", f"{city.modern_identification} (score {city.openbible_score})"),
            ("candidates", city.identifications),
            ("how chosen", city.choice),
            ("source", city.source),
            ("licence", city.license),
        ]
        tip = f"{esc(city.name)} ({esc(city.verse)})"
        markers.append((*lat_lon(city.geometry), popup_parts(str(city.name), rows), tip))
    style = {"radius": 5, "color": LEVITICAL, "fillOpacity": 0.7, "className": "refuge-levitical"}
    return MarkerLayer(
        markers, style=style, name="Levitical cities (48)", show=show, cluster_color=LEVITICAL
    )


def _signpost_layer(signs: gpd.GeoDataFrame) -> MarkerLayer:
    markers: list[Marker] = []
    for sign in signs.itertuples(index=False):
        rows = [
            ("points", f"{sign.compass} ({sign.bearing_deg:.0f}°)"),
            ("leads to", sign.city),
            ("by road", f"{as_float(sign.dist_m) / 1000:.1f} km"),
            ("source", sign.source),
        ]
        tip = f"{esc(sign.reads)} → {esc(sign.compass)}, {esc(sign.city)}"
        markers.append((*lat_lon(sign.geometry), popup_parts("miklat", rows), tip))
    style = {"radius": 4, "color": SIGNPOST, "fillOpacity": 0.9, "className": "refuge-signpost"}
    return MarkerLayer(
        markers, style=style, name="Signposts: miklat", show=False, cluster_color=SIGNPOST
    )


def _bridge_layer(bridges: gpd.GeoDataFrame, cubit_m: float) -> MarkerLayer:
    markers: list[Marker] = []
    width = f"{ROAD_WIDTH_CUBITS:g} cubits ({ROAD_WIDTH_CUBITS * cubit_m:.1f} m)"
    for bridge in bridges.itertuples(index=False):
        rows = [
            ("road", bridge.road),
            ("river", bridge.river),
            ("road width", width),
            ("width source", ROAD_WIDTH_SOURCE),
            ("source", bridge.source),
        ]
        tip = f"bridge over {esc(bridge.river)}"
        markers.append((*lat_lon(bridge.geometry), popup_parts("bridge", rows), tip))
    style = {"radius": 4, "color": BRIDGE, "fillOpacity": 0.9, "className": "refuge-bridge"}
    return MarkerLayer(markers, style=style, name="Bridges", show=False, cluster_color=BRIDGE)
