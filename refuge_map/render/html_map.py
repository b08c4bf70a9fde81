"""The refuge network as a folium map: cities, towns, Sabbath boundaries, roads, water, land."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, cast

import folium
import geopandas as gpd
import pandas as pd
import shapely
import xyzservices
from branca.element import Figure
from folium.map import Layer
from shapely.geometry.base import BaseGeometry

from geo import CUBIT_PRESETS, TECHUM_CUBIT_PRESETS, RefugeNetwork
from geo.asylum import KIND_CITATIONS
from geo.zones import TECHUM_MODES, techum_zones
from refuge_map._cells import as_float, as_geometry
from refuge_map.errors import RefugeError
from refuge_map.render import _style as style
from refuge_map.render._controls import Attribution, Legend, PageStyle, Swatch
from refuge_map.render._coverage import CoverageLayer, coverage_legend, coverage_name
from refuge_map.render._html import (
    CircleMarker,
    GeoJsonShape,
    Html,
    Popup,
    Tooltip,
    cited,
    esc,
    hours,
    is_missing,
    link,
    popup_table,
)
from refuge_map.render._markers import lat_lon
from refuge_map.render._sea import SEA_SOURCE, sea_polygon
from refuge_map.render.assets import MAP_CSS, MAP_JS, folium_links
from refuge_map.render.levitical_layers import levitical_layers
from refuge_map.render.run_files import RunFiles, read_run_files
from refuge_map.render.run_layers import add_run_layers

LegendEntry = tuple[Swatch, str, str]

#: The map pane of the cities' names (`_city_layer`).
CITY_NAMES = "refuge-city-names"


def network_map(
    network: RefugeNetwork,
    *,
    run: RunFiles | str | os.PathLike[str] | None = None,
    tiles: str | None = None,
    coverage: gpd.GeoDataFrame | None = None,
) -> folium.Map:
    """The network (and optionally a simulation run) as an interactive folium map.

    Every layer can be switched in the layer control; popups and tooltips show the data's
    strings escaped. Without tiles the coast, the Jordan, the lakes and the two sides of the
    land give the map its context, and the page needs no network but its pinned scripts (see
    `save_map` for a page that needs none at all).

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    run
        A run folder (or `read_run_files` of it): its tracks on a time slider, its events and
        trees.
    tiles
        A basemap by xyzservices name (e.g. ``"OpenStreetMap"``, ``"CartoDB positron"``), or
        None for none.
    coverage
        Cells of the coverage field in WGS84 with ``p_asylum`` and ``time_h``
        (`refuge_map.coverage.coverage_layer`, or `read_coverage_file`): a choropleth of the
        chance to reach asylum alive, in the layer control (switched on without a run).

    Returns
    -------
    folium.Map
        Shows inline in a notebook; write it with `save_map`.

    Raises
    ------
    RefugeError
        For an unknown tiles name, or a run folder that cannot be read.
    """
    loaded = run if isinstance(run, RunFiles | None) else read_run_files(run)
    return draft_map(network, tiles=tiles, coverage=coverage).finish(loaded)


def draft_map(
    network: RefugeNetwork, *, tiles: str | None = None, coverage: gpd.GeoDataFrame | None = None
) -> MapDraft:
    """The layers of `network_map` that no run changes, built ahead of the run (`refuge demo`
    drafts its map while the run goes on): `MapDraft.finish` makes the map.

    Raises
    ------
    RefugeError
        For an unknown tiles name.
    """
    basemap = None
    if tiles is not None:
        basemap = folium.TileLayer(_tile_provider(tiles), name=f"Basemap: {tiles}")
    layers, entries = _network_layers(network)
    levitical, levitical_entries = levitical_layers(network)
    field = None
    if coverage is not None:
        field = CoverageLayer(coverage, name=coverage_name(coverage), show=True)
    return MapDraft(
        network,
        basemap,
        [*layers, *levitical],
        [*_network_legend(), *entries, *levitical_entries],
        field,
    )


@dataclass
class MapDraft:
    """A map's layers that no run changes, drawn (`draft_map`) and not yet framed.

    Attributes
    ----------
    network
        The network drawn.
    basemap
        Its tiles, if any.
    layers
        The network's layers, bottom to top.
    entries
        Their legend entries.
    coverage
        The coverage field's layer, if any.
    """

    network: RefugeNetwork
    basemap: folium.TileLayer | None
    layers: list[Layer]
    entries: list[LegendEntry]
    coverage: CoverageLayer | None

    def finish(self, run: RunFiles | None = None) -> folium.Map:
        """The map: framed on the run's points (without a run, on the land), the drafted
        layers, the run's and the legend. A draft makes one map: its layers go into it."""
        framed = _landmarks(self.network) if run is None else _points(run.trajectories)
        fmap = _base_map(framed, self.basemap)
        for layer in self.layers:
            layer.add_to(fmap)
        entries = list(self.entries)
        if self.coverage is not None:
            self.coverage.show = run is None  # the field is the map's subject without a run
            self.coverage.add_to(fmap)
            entries += coverage_legend()
        title, note = "The cities of refuge", ""
        if run is not None:
            entries += add_run_layers(fmap, run)
            note = str(run.scenario.get("description", ""))
            title = f"The cities of refuge: {run.scenario.get('name') or 'a simulated run'}"
        cast(Figure, fmap.get_root()).title = esc(title)  # a Map's root; branca writes it unescaped
        Legend("What the map shows", entries, note=note).add_to(fmap)
        Attribution(style.ATTRIBUTION).add_to(fmap)
        folium.LayerControl(collapsed=True).add_to(fmap)
        return fmap


def _landmarks(network: RefugeNetwork) -> gpd.GeoSeries:
    """The six sites and the limits of the land (from Dan to Beersheba)."""
    return gpd.GeoSeries(
        [*network.cities["site"], *network.places.geometry[_is_limit(network.places)]],
        crs=network.crs,
    )


def _points(tracks: pd.DataFrame) -> gpd.GeoSeries:
    """The corners of the box around a run's points (WGS84): what frames the map."""
    lon, lat = tracks["lon"], tracks["lat"]
    return gpd.GeoSeries(
        shapely.points([lon.min(), lon.max()], [lat.min(), lat.max()]), crs="EPSG:4326"
    )


def _base_map(framed: gpd.GeoSeries, basemap: folium.TileLayer | None) -> folium.Map:
    """An empty map framed on `framed`, with a scale bar, `basemap` and the page's own styles."""
    # folium passes max_zoom to tiles only; the map's own zoom range (which the clusters of
    # events need) goes in as Leaflet options.
    fmap = folium.Map(tiles=None, control_scale=True, zoom_start=8, maxZoom=18, minZoom=6)
    fmap.default_js = folium_links(MAP_JS)
    fmap.default_css = folium_links(MAP_CSS)
    if basemap is not None:
        basemap.add_to(fmap)
    left, bottom, right, top = framed.to_crs("EPSG:4326").total_bounds
    fmap.fit_bounds([[bottom, left], [top, right]], padding=(40, 40))
    PageStyle().add_to(fmap)
    # above the markers and their clusters, below tooltips (650) and popups (700)
    folium.map.CustomPane(CITY_NAMES, z_index=640).add_to(fmap)
    return fmap


def _tile_provider(name: str) -> xyzservices.TileProvider:
    """The xyzservices provider of a tiles name (``"OpenStreetMap"`` is its Mapnik style)."""
    query = "OpenStreetMap Mapnik" if name.lower() == "openstreetmap" else name
    try:
        return xyzservices.providers.query_name(query)
    except ValueError:
        raise RefugeError(
            "unknown tiles name (an xyzservices provider, e.g. OpenStreetMap, or none)",
            field="tiles",
            value=name,
        ) from None


def _is_limit(places: gpd.GeoDataFrame) -> Any:
    return places["feature_kind"] == "reference_point"


def _network_layers(network: RefugeNetwork) -> tuple[list[Layer], list[LegendEntry]]:
    """The network's layers, bottom to top; the legend entries of the zones they draw."""
    layers = network.layers()
    drawn = _background_layers(network)
    zone_layers = _zone_layers(network)
    drawn += [
        *(layer for layer, _ in zone_layers),
        _town_layer(layers["cities"]),
        _road_layer(layers["roads"]),
        _limit_layer(layers["limits"]),
        _candidate_layer(layers["candidates"]),
        _city_layer(network),
    ]
    return drawn, [entry for _, entry in zone_layers]


def _network_legend() -> list[LegendEntry]:
    return [
        ("dot", style.SIDE_COLORS["west"], "city of refuge, west of the Jordan"),
        ("dot", style.SIDE_COLORS["east"], "city of refuge, beyond the Jordan"),
        ("fill", style.TOWN, "town extent"),
        ("line", style.ROAD, "road (schematic)"),
        ("line", style.WATER, "Jordan, lakes, coast"),
        ("dot", style.LIMIT, "limits of the land (Dan, Beersheba...)"),
    ]


#: Decimal places of the drawn coordinates: 1e-5 degrees is about 1 m.
DECIMALS = 5


def _shape(
    geometry: BaseGeometry, path_style: dict[str, Any], popup: str, tooltip: str
) -> GeoJsonShape:
    """One geometry with a fixed style, an (already escaped) popup and a tooltip; coordinates
    to `DECIMALS` places."""
    return GeoJsonShape(
        shapely.geometry.mapping(shapely.transform(geometry, lambda xy: xy.round(DECIMALS))),
        style_function=lambda _: path_style,
        # folium annotates only GeoJsonPopup, yet GeoJson adds any Popup (its isinstance check)
        popup=Popup(popup, max_width=380),  # type: ignore[arg-type]
        tooltip=Tooltip(esc(tooltip)),
    )


#: One drawn shape: its geometry (WGS84), Leaflet path style, popup and tooltip (escaped).
Shape = tuple[BaseGeometry, dict[str, Any], str, str]


def background(network: RefugeNetwork) -> dict[str, list[Shape]]:
    """The map's background, bottom to top, by layer name: the sea to the edge of the view,
    the land by side of the Jordan, the Jordan, the lakes and the coast. The HTML map and the
    explorer (`refuge_map.explore`) draw the same shapes."""
    layers = network.layers()
    water = pd.concat([layers["hydrography_lines"], layers["hydrography_polygons"]])
    return {
        SEA_LAYER: _sea_shapes(layers["hydrography_lines"]),  # the coast is a line
        "The land, by side of the Jordan": _land_shapes(layers["land"]),
        "Jordan, lakes and coast": _hydrography_shapes(water),
    }


#: The sea's layer: not in the layer control (it is the page's background).
SEA_LAYER = "The Mediterranean"


def _sea_shapes(hydrography: gpd.GeoDataFrame) -> list[Shape]:
    """The Mediterranean drawn to the edge of the view (`_sea.sea_polygon`)."""
    sea = sea_polygon(hydrography)
    if sea is None:
        return []
    path_style = {
        "color": style.WATER,
        "weight": 0,
        "fillColor": style.LAKE_FILL,
        "fillOpacity": 1,
        "className": "refuge-sea",
    }
    popup = popup_table("Mediterranean Sea", [("coast", SEA_SOURCE)])
    return [(sea, path_style, popup, "Mediterranean Sea")]


def _land_shapes(land: gpd.GeoDataFrame) -> list[Shape]:
    shapes = []
    for side in land.to_crs("EPSG:4326").itertuples(index=False):
        fill = style.LAND_COLORS.get(str(side.side), "#eeeeee")
        popup = popup_table(str(side.name), [("side", side.side)])
        path_style = {"color": fill, "weight": 0, "fillColor": fill, "fillOpacity": 0.8}
        shapes.append((as_geometry(side.geometry), path_style, popup, str(side.name)))
    return shapes


def _hydrography_shapes(hydrography: gpd.GeoDataFrame) -> list[Shape]:
    shapes = []
    for water in hydrography.to_crs("EPSG:4326").itertuples(index=False):
        lake = water.feature_type == "lake"
        path_style = {
            "color": style.WATER,
            "weight": 1 if lake else 2.5,
            "fillColor": style.LAKE_FILL,
            "fillOpacity": 0.7 if lake else 0,
            "className": "refuge-water",
        }
        popup = popup_table(
            str(water.name),
            [
                ("kind", water.feature_type),
                ("description", water.description),
                ("source", water.source),
                ("licence", water.license),
            ],
            title_he=water.hebrew_name,
        )
        shapes.append((as_geometry(water.geometry), path_style, popup, str(water.name)))
    return shapes


def _background_layers(network: RefugeNetwork) -> list[Layer]:
    layers: list[Layer] = []
    for name, shapes in background(network).items():
        layer = folium.FeatureGroup(name=name, control=name != SEA_LAYER)
        for shape in shapes:
            _shape(*shape).add_to(layer)
        layers.append(layer)
    return layers


def _zone_layers(network: RefugeNetwork) -> list[tuple[folium.FeatureGroup, LegendEntry]]:
    """Both shapes of the Sabbath boundary: the network's own (filled), the other (dashed)."""
    chosen = str(network.options["techum"])
    breadth_m = float(network.zones["breadth_m"].iloc[0])
    towns = network.cities.geometry
    out = []
    for mode in sorted(TECHUM_MODES, key=lambda m: m != chosen):
        zones = (
            network.zones.geometry
            if mode == chosen
            else techum_zones(towns, breadth_m=breadth_m, mode=mode)
        )
        label = f"Sabbath boundary, {mode}: {_opinion_label(network.options)}"
        if mode != chosen:
            label += " (for comparison)"
        layer = folium.FeatureGroup(name=f"Sabbath boundary, {mode} ({breadth_m:,.0f} m)")
        path_style = {
            **style.ZONE_STYLES[mode],
            "fillOpacity": 0.25 if mode == chosen else 0,
            "dashArray": None if mode == chosen else "6 4",
            "className": f"refuge-zone refuge-zone-{mode}",
        }
        lonlat = zones.to_crs("EPSG:4326").items()
        for (city, zone), area_m2 in zip(lonlat, zones.area, strict=True):
            name = str(network.cities.at[city, "name"])
            popup = popup_table(
                f"{name}: Sabbath boundary ({mode})",
                [
                    ("opinion", _opinion_label(network.options)),
                    ("area", f"{area_m2 / 1e6:.2f} km²"),
                    ("rule", cited(KIND_CITATIONS["techum"])),
                ],
            )
            _shape(zone, path_style, popup, f"{name}: {mode} boundary").add_to(layer)
        swatch: Swatch = "fill" if mode == chosen else "dash"
        out.append((layer, (swatch, path_style["color"], label)))
    return out


def _opinion_label(options: dict[str, Any]) -> str:
    """``"2,000 cubits (sabbath) × 0.48 m (naeh) = 960 m"``."""
    cubit, cubits = float(options["cubit_m"]), float(options["techum_cubits"])
    return (
        f"{cubits:,.0f} cubits ({_preset_name(TECHUM_CUBIT_PRESETS, cubits)}) × "
        f"{cubit:g} m ({_preset_name(CUBIT_PRESETS, cubit)}) = {cubits * cubit:,.0f} m"
    )


def _preset_name(presets: dict[str, float], value: float) -> str:
    names = [name for name, v in presets.items() if math.isclose(v, value)]
    return names[0] if names else "custom"


def _town_layer(cities: gpd.GeoDataFrame) -> folium.FeatureGroup:
    layer = folium.FeatureGroup(name="Town extents")
    path_style = {"color": style.TOWN, "weight": 1, "fillColor": style.TOWN, "fillOpacity": 0.6}
    for city in cities.itertuples(index=False):
        popup = popup_table(
            f"{city.name}: the town",
            [("site", city.modern_identification), ("extent", city.town_area_source)],
            title_he=city.hebrew_name,
        )
        _shape(as_geometry(city.geometry), path_style, popup, f"{city.name}: town").add_to(layer)
    return layer


def _road_layer(roads: gpd.GeoDataFrame) -> folium.FeatureGroup:
    layer = folium.FeatureGroup(name="Roads")
    path_style = {"color": style.ROAD, "weight": 2.5, "opacity": 0.9, "className": "refuge-road"}
    for road in roads.itertuples(index=False):
        km, walk_s = as_float(road.length_m) / 1000, as_float(road.walk_s)
        popup = popup_table(
            str(road.name),
            [
                ("length", f"{km:.1f} km"),
                ("walking time", hours(walk_s)),
                ("route", road.route),
                ("source", road.source),
                ("licence", road.license),
            ],
        )
        tooltip = f"{road.name}: {km:.1f} km, {hours(walk_s)} on foot"
        _shape(as_geometry(road.geometry), path_style, popup, tooltip).add_to(layer)
    return layer


def _point_layer(
    points: gpd.GeoDataFrame, name: str, color: str, *, show: bool = True
) -> folium.FeatureGroup:
    """Small circles for gazetteer points (limits of the land, proposed sites)."""
    layer = folium.FeatureGroup(name=name, show=show)
    for place in points.itertuples(index=False):
        popup = popup_table(
            str(place.name),
            [
                ("identification", place.modern_identification),
                ("proposed for", place.candidate_of),
                ("OpenBible score", _score(place.openbible_score)),
                ("source", place.source),
                ("gazetteer", _gazetteer_links(dict(zip(points.columns, place, strict=True)))),
            ],
            title_he=place.hebrew_name,
        )
        CircleMarker(
            list(lat_lon(place.geometry)),
            radius=4,
            color=color,
            fill=True,
            fill_opacity=0.8,
            popup=Popup(popup, max_width=380),
            tooltip=Tooltip(esc(place.name)),
        ).add_to(layer)
    return layer


def _limit_layer(limits: gpd.GeoDataFrame) -> folium.FeatureGroup:
    return _point_layer(limits, "Limits of the land and landmarks", style.LIMIT)


def _candidate_layer(candidates: gpd.GeoDataFrame) -> folium.FeatureGroup:
    others = candidates[candidates["feature_kind"] == "candidate_identification"]
    return _point_layer(others, "Other proposed sites", style.CANDIDATE, show=False)


def _city_layer(network: RefugeNetwork) -> folium.FeatureGroup:
    """The six cities (and any added, Deuteronomy 19:8-9): a marker at each site, labelled, with
    everything known in its popup (the 42 Levitical cities have their own layer)."""
    layer = folium.FeatureGroup(name="Cities of refuge")
    cities = network.cities[network.cities["kind"] == "refuge"]
    sites = cities["site"].to_crs("EPSG:4326")
    for city, row in cities.iterrows():
        color = style.SIDE_COLORS.get(str(row["side"]), style.OTHER)
        where, popup = list(lat_lon(sites[city])), city_popup(network, str(city), row)
        dot = f'<div class="refuge-city-dot" style="background:{color}"></div>'
        tooltip = Tooltip(esc(row["name"]))
        _city_marker(where, dot, "refuge-city", 16, popup, tooltip=tooltip).add_to(layer)
        # The name in its own pane above the markers: the clusters of a run's events gather at
        # the cities (where the flights end) and would hide it. The dot stays under them (a
        # cluster marks the place as well); the name opens the same popup, and is no tab stop.
        name = f'<div class="refuge-city-label">{esc(style.short_name(str(row["name"])))}</div>'
        _city_marker(
            where, name, "refuge-city-name", 0, popup, pane=CITY_NAMES, keyboard=False
        ).add_to(layer)
    return layer


def _city_marker(
    where: list[float], html: str, class_name: str, size: int, popup: str, **options: Any
) -> folium.Marker:
    """A marker of a city drawn by `html` in a `size`-pixel box centred on the site, opening
    the city's `popup` (`options`: folium.Marker's)."""
    icon = folium.DivIcon(
        html=html, class_name=class_name, icon_size=(size, size), icon_anchor=(size // 2,) * 2
    )
    return folium.Marker(where, icon=icon, popup=Popup(popup, max_width=420), **options)


def city_popup(network: RefugeNetwork, city: str, row: Any) -> str:
    """A city's popup (escaped HTML; `row` its row of ``network.cities``): names,
    identification and its OpenBible score, alternatives, side, designation, sources linked to
    Sefaria and the place to its gazetteers (Pleiades, OpenBible.info)."""
    places = network.places
    own = places[(places["city"] == city) & (places["feature_kind"] == "city_of_refuge")]
    refs = own["biblical_refs"].iloc[0] if len(own) else None
    pairing = own["talmud_pairing"].iloc[0] if len(own) else None
    others = places[(places["city"] == city) & (places["id"] != row["site_id"])]
    alternatives = "; ".join(
        f"{p.modern_identification} (OpenBible score {_score(p.openbible_score)}"
        + "".join(f"; {flag}" for flag in p.site_flags)
        + ")"
        for p in others.itertuples(index=False)
    )
    return popup_table(
        str(row["name"]),
        [
            ("identification", f"{row['modern_identification']} (rank {row['rank']})"),
            ("OpenBible score", _score(row["openbible_score"])),
            ("alternatives", alternatives or "none recorded"),
            ("side", _side_label(str(row["side"]))),
            ("designation", _designation_label(float(row["designated_at"]))),
            ("scripture", cited(_as_text(refs))),
            ("paired with", cited(pairing)),
            ("rule", cited(KIND_CITATIONS["city"])),
            ("gazetteer", _gazetteer_links(own.iloc[0] if len(own) else {})),
        ],
        title_he=row["hebrew_name"],
    )


def _score(value: Any) -> str:
    """OpenBible's score of an identification (-1000..1000), or why there is none."""
    return "none (not in OpenBible)" if pd.isna(value) else f"{int(value)} of 1000"


#: The gazetteers of the places: Pleiades by its id; OpenBible.info's modern site, whose
#: coordinates the places take (data/README.md).
PLEIADES = "https://pleiades.stoa.org/places/"
OPENBIBLE = "https://www.openbible.info/geo/modern/"


def _gazetteer_links(place: Any) -> Html:
    """Links to the place's entries in Pleiades and OpenBible.info, by the ids its row holds
    (links only: nothing is fetched); "none recorded" for a place with neither."""
    pleiades, openbible = place.get("pleiades_id"), place.get("openbible_modern_id")
    links = []
    if not is_missing(pleiades):
        links.append(link(f"Pleiades {pleiades}", f"{PLEIADES}{pleiades}"))
    if not is_missing(openbible):
        links.append(link(f"OpenBible.info {openbible}", f"{OPENBIBLE}{openbible}/"))
    return Html(" · ".join(links) or "none recorded")


def _as_text(value: Any) -> str | None:
    """A cell that may hold a list (of references) as one line of text; None if empty."""
    if is_missing(value):
        return None
    if isinstance(value, str):
        return value
    return "; ".join(map(str, value)) or None


def _side_label(side: str) -> str:
    return {"west": "west of the Jordan", "east": "beyond the Jordan (east)"}.get(side, side)


def _designation_label(designated_at: float) -> str:
    if designated_at == -math.inf:
        return "designated from the start"
    if designated_at == math.inf:
        return "not designated"
    return f"designated in year {designated_at:g} of the timeline"
