"""The refuge network: cities, zones, hydrography and roads loaded together, and its queries."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geopandas as gpd
import networkx as nx
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from pyproj import CRS

import refuge_data
from geo._errors import DataFileError, ParameterError
from geo.asylum import DEFAULT_BOUGH_OPINION, ZONE_KINDS, Asylum, BoughOpinion
from geo.crs import REGION_CRS, WGS84, check_finite, to_metric
from geo.designation import ALL_SIX, DesignationTimeline, as_timeline
from geo.hydrography import land_sides, read_hydrography, side_of_jordan
from geo.places import CITY_IDS, Candidates, choose_sites, read_places, town_extents
from geo.roads import RoadRouter, Route, Way, build_road_graph, graph_to_gdfs, read_roads
from geo.zones import (
    DEFAULT_CUBIT,
    DEFAULT_TECHUM_CUBITS,
    TechumMode,
    resolve_cubit,
    resolve_techum_cubits,
    techum_zones,
)

DATA_FILES = ("places.geojson", "hydrography.geojson", "roads.geojson")


def default_data_dir() -> Path:
    """The shipped data folder, or the folder named by the ``REFUGE_MAP_DATA`` variable
    (`refuge_data.data_dir`)."""
    return refuge_data.data_dir()


@dataclass(frozen=True)
class Location:
    """Where positions stand: the city index (into `RefugeNetwork.city_ids`, -1 for none) and
    the zone kind (``"city"``, ``"techum"`` or ``"outside"``). Scalars for a scalar query."""

    city: Any
    kind: Any


@dataclass(frozen=True)
class Reach:
    """Distance (metres) from positions to the nearest protecting asylum, and which city."""

    dist_m: Any
    city: Any


@dataclass
class RefugeNetwork:
    """The six cities of refuge as geography, in the metric CRS `crs`.

    Build it with `load_network`. Attributes are GeoDataFrames in `crs` (use `layers()` for
    WGS84 copies) and the road graph.
    """

    cities: gpd.GeoDataFrame
    zones: gpd.GeoDataFrame
    hydrography: gpd.GeoDataFrame
    land: gpd.GeoDataFrame
    places: gpd.GeoDataFrame
    roads: nx.MultiGraph
    designation: DesignationTimeline
    options: dict[str, Any]
    crs: CRS = REGION_CRS
    _asylum: Asylum = field(init=False, repr=False)
    _router: RoadRouter = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._asylum = Asylum(self.cities.geometry.to_numpy(), self.zones.geometry.to_numpy())
        self._router = RoadRouter(self.roads)

    @property
    def city_ids(self) -> tuple[str, ...]:
        """City ids in the order of the city indices the queries return."""
        return tuple(self.cities.index)

    @property
    def asylum(self) -> Asylum:
        """The prepared zone predicate in metric coordinates (for simulations)."""
        return self._asylum

    @property
    def router(self) -> RoadRouter:
        """The road router in metric coordinates (for simulations and analyses)."""
        return self._router

    def active(self, t: ArrayLike | None = None) -> NDArray[np.bool_]:
        """Whether the cities protect at time(s) `t` (Mishnah Makkot 2:4: all six or none)."""
        return self.designation.active(t)

    def city_xy(
        self,
        x: NDArray[np.float64],
        y: NDArray[np.float64],
        *,
        bough_x: NDArray[np.float64] | None = None,
        bough_y: NDArray[np.float64] | None = None,
        at_trunk: NDArray[np.bool_] | bool = False,
        t: ArrayLike | None = None,
        bough_opinion: BoughOpinion | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
        """Index of the city protecting each metric position (-1: none), and the position
        (trunk or bough) that decided it. Same arguments as `locate`, in metres."""
        opinion = bough_opinion or self.options["bough_opinion"]
        city, dx, dy = self._asylum.deciding_position(
            x, y, bough_x, bough_y, at_trunk=at_trunk, opinion=opinion
        )
        active = self.active(t)
        if not np.all(active):
            city = np.where(active, city, -1)
        return city, dx, dy

    def locate_xy(
        self, x: NDArray[np.float64], y: NDArray[np.float64], **kwargs: Any
    ) -> tuple[NDArray[np.intp], NDArray[np.int8]]:
        """`locate` on metric coordinates: city indices and zone-kind codes (`ZONE_KINDS`)."""
        city, dx, dy = self.city_xy(x, y, **kwargs)
        return city, self._asylum.kind_of(city, dx, dy)

    def in_asylum_xy(self, x: NDArray[np.float64], y: NDArray[np.float64], **kwargs: Any) -> Any:
        """`in_asylum` on metric coordinates (the simulation's per-step test)."""
        return self.city_xy(x, y, **kwargs)[0] >= 0

    def locate(
        self,
        lon: ArrayLike,
        lat: ArrayLike,
        *,
        bough_lon: ArrayLike | None = None,
        bough_lat: ArrayLike | None = None,
        at_trunk: ArrayLike = False,
        t: ArrayLike | None = None,
        bough_opinion: BoughOpinion | None = None,
    ) -> Location:
        """Which city's asylum each position is in, and whether in the town or its techum.

        Parameters
        ----------
        lon, lat
            WGS84 degrees (scalars or arrays). For a person in a tree, the trunk's position.
        bough_lon, bough_lat
            For a person in a tree, the bough's position (NaN where a person is not in a
            tree). Under the default opinion the bough alone decides (Mishnah Makkot 2:7).
        at_trunk
            The person stands at the trunk rather than in the boughs (matters to Rava and
            Rambam; see `geo.asylum.BOUGH_OPINIONS`).
        t
            A time on the designation timeline; the zones protect only once all six cities
            are designated (Mishnah Makkot 2:4). None: after the whole timeline.
        bough_opinion
            Overrides the network's reading of the bough rule.

        Returns
        -------
        Location
            City index (-1 for none) and zone kind, scalars for scalar input.

        Raises
        ------
        QueryError
            If a coordinate is NaN or infinite.
        ParameterError
            For an unknown bough opinion.
        """
        scalar = np.ndim(lon) == 0 and np.ndim(lat) == 0
        x, y, bx, by = _metric_query(lon, lat, bough_lon, bough_lat)
        city, kind = self.locate_xy(
            x,
            y,
            bough_x=bx,
            bough_y=by,
            at_trunk=np.asarray(at_trunk, dtype=bool),
            t=t,
            bough_opinion=bough_opinion,
        )
        kinds = ZONE_KINDS[kind]
        if scalar:
            return Location(int(city[0]), str(kinds[0]))
        return Location(city, kinds)

    def in_asylum(
        self,
        lon: ArrayLike,
        lat: ArrayLike,
        *,
        bough_lon: ArrayLike | None = None,
        bough_lat: ArrayLike | None = None,
        **kwargs: Any,
    ) -> Any:
        """Whether each position is protected (a bool for a scalar query). Same arguments as
        `locate`; the zone kind is not computed."""
        x, y, bx, by = _metric_query(lon, lat, bough_lon, bough_lat)
        if "at_trunk" in kwargs:
            kwargs["at_trunk"] = np.asarray(kwargs["at_trunk"], dtype=bool)
        protected = self.in_asylum_xy(x, y, bough_x=bx, bough_y=by, **kwargs)
        return bool(protected[0]) if np.ndim(lon) == 0 and np.ndim(lat) == 0 else protected

    def route(self, lon: float, lat: float, city: str) -> Route:
        """The shortest road route from a position to `city`'s asylum (off-road leg included).

        Raises
        ------
        ParameterError
            For an unknown city.
        QueryError
            For a non-finite coordinate.
        """
        _check_city(city)
        x, y = to_metric(lon, lat)
        return self._router.route(float(x), float(y), city)

    def way_to_asylum_xy(
        self,
        x: NDArray[np.float64],
        y: NDArray[np.float64],
        *,
        t: ArrayLike | None = None,
        cities: tuple[str, ...] | None = None,
    ) -> Way:
        """The way from metric positions to the nearest protecting asylum, in two parts.

        Off-road to the nearest road, then by road to the gate of a zone. Positions inside a
        zone are at 0; where the off-road leg itself crosses into a zone, the way ends there,
        on the leg (``road_m`` 0). Before the network is active (Mishnah Makkot 2:4) nothing
        protects: ``inf`` and city ``""``. `cities` restricts the targets (e.g. to ask what
        the three beyond the Jordan alone would have covered; such a subset is treated as
        protecting, whatever the law says about it).

        Raises
        ------
        ParameterError
            For an unknown city.
        QueryError
            For a non-finite coordinate.
        """
        for city in cities or ():
            _check_city(city)
        way = self._router.way_to_gates(x, y, cities)
        offroad, road = way.offroad_m.copy(), way.road_m.copy()
        city = np.asarray(way.city, dtype=object)
        targets = set(cities or self.city_ids)
        is_target = np.r_[[cid in targets for cid in self.city_ids], False]  # [-1]: no zone
        ids = np.array([*self.city_ids, ""], dtype=object)
        here = self._asylum.zone_of(x, y)
        inside = is_target[here]
        foot_zone = self._asylum.zone_of(way.foot_x, way.foot_y)
        entered = is_target[foot_zone] & ~inside
        if entered.any():
            zone = foot_zone[entered]
            px, py = x[entered], y[entered]
            fx, fy = way.foot_x[entered], way.foot_y[entered]
            share = self._asylum.entry_along(px, py, fx, fy, zone)
            offroad[entered] = share * np.hypot(fx - px, fy - py)
            road[entered] = 0.0
            city[entered] = ids[zone]
        offroad[inside], road[inside] = 0.0, 0.0
        city[inside] = ids[here[inside]]
        if cities is None:
            inactive = ~np.broadcast_to(self.active(t), offroad.shape)
            offroad[inactive], road[inactive], city[inactive] = math.inf, math.inf, ""
        return Way(offroad, road, city.astype(str), way.foot_x, way.foot_y)

    def distance_to_asylum(
        self,
        lon: ArrayLike,
        lat: ArrayLike,
        *,
        t: ArrayLike | None = None,
        cities: tuple[str, ...] | None = None,
    ) -> Reach:
        """Distance (off-road leg plus roads) to the nearest protecting asylum, vectorized.

        WGS84 positions; see `way_to_asylum_xy` for the way and the arguments. Scalars for a
        scalar query.
        """
        x, y = to_metric(np.atleast_1d(lon), np.atleast_1d(lat))
        way = self.way_to_asylum_xy(x, y, t=t, cities=cities)
        dist, city = way.offroad_m + way.road_m, np.asarray(way.city, dtype=object)
        if np.ndim(lon) == 0 and np.ndim(lat) == 0:
            return Reach(float(dist[0]), str(city[0]))
        return Reach(dist, city)

    def layers(self) -> dict[str, gpd.GeoDataFrame]:
        """Every layer as a WGS84 GeoDataFrame, by layer name (for files and maps)."""
        cities = self.cities.drop(columns=["site"])
        sites = gpd.GeoDataFrame(
            self.cities.drop(columns="geometry"), geometry="site", crs=self.crs
        ).rename_geometry("geometry")
        nodes, edges = graph_to_gdfs(self.roads)
        frames = {
            "cities": cities,
            "sites": sites,
            "zones": self.zones,
            "candidates": self.places[self.places["feature_kind"] != "reference_point"],
            "limits": self.places[self.places["feature_kind"] == "reference_point"],
            "hydrography": self.hydrography,
            "land": self.land,
            "roads": edges,
            "road_nodes": nodes,
        }
        return {name: _to_file_frame(frame) for name, frame in frames.items()}

    def summary(self) -> pd.DataFrame:
        """One row per city: side, identification, confidence, designation, zone size."""
        table = self.cities[
            ["name", "side", "modern_identification", "confidence", "alternatives", "designated_at"]
        ].copy()
        table["town_ha"] = (self.cities.geometry.area / 1e4).round(1)
        table["zone_km2"] = (self.zones.geometry.area / 1e6).round(2)
        return pd.DataFrame(table)

    def _repr_html_(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"<p><b>RefugeNetwork</b> ({options})</p>" + self.summary().to_html()


def _metric_query(
    lon: ArrayLike, lat: ArrayLike, bough_lon: ArrayLike | None, bough_lat: ArrayLike | None
) -> tuple[
    NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.float64] | None
]:
    """Project a query to metres; NaN bough coordinates (not in a tree) stay NaN."""
    x, y = to_metric(np.atleast_1d(lon), np.atleast_1d(lat))
    if bough_lon is None or bough_lat is None:
        return x, y, None, None
    blon, blat = np.broadcast_arrays(
        np.atleast_1d(np.asarray(bough_lon, dtype=float)),
        np.atleast_1d(np.asarray(bough_lat, dtype=float)),
    )
    absent = np.isnan(blon) | np.isnan(blat)
    check_finite(np.where(absent, 0.0, blon), "bough_lon")
    check_finite(np.where(absent, 0.0, blat), "bough_lat")
    bx, by = to_metric(np.where(absent, 0.0, blon), np.where(absent, 0.0, blat))
    bx[absent], by[absent] = np.nan, np.nan
    return x, y, bx, by


def _check_city(city: str) -> None:
    if city not in CITY_IDS:
        raise ParameterError(f"unknown city; valid {CITY_IDS}", field="city", value=city)


def _to_file_frame(frame: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """A WGS84 copy with plain columns that any file format takes: lists and sets as text,
    infinite times (designated from the start, or never) as missing."""
    out = frame.to_crs(WGS84).reset_index()
    for column in out.columns:
        if column == out.geometry.name:
            continue
        if pd.api.types.is_float_dtype(out[column]):
            out[column] = out[column].where(np.isfinite(out[column]))
        elif out[column].dtype == object:
            out[column] = out[column].map(
                lambda v: v if v is None or isinstance(v, str | int | float) else str(v)
            )
    return out


def load_network(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    cubit_m: float | str = DEFAULT_CUBIT,
    techum: TechumMode = "squared",
    techum_cubits: float | str = DEFAULT_TECHUM_CUBITS,
    candidates: Candidates = "best",
    designated: Any = ALL_SIX,
    bough_opinion: BoughOpinion = DEFAULT_BOUGH_OPINION,
) -> RefugeNetwork:
    """Load and validate the network from a data folder.

    Parameters
    ----------
    data_dir
        Folder with ``places.geojson``, ``hydrography.geojson`` and ``roads.geojson``
        (default: the shipped data, see `default_data_dir`).
    cubit_m
        The cubit in metres, or a preset of `geo.zones.CUBIT_PRESETS` (default ``"naeh"``,
        48 cm, RULES.md §10).
    techum
        ``"squared"`` (default: the town squared to the four directions, Mishnah Eruvin 5:1,
        Eruvin 56a) or ``"round"`` (a plain buffer).
    techum_cubits
        Breadth of the boundary in cubits or a preset of `geo.zones.TECHUM_CUBIT_PRESETS`
        (default ``"sabbath"``: 2,000 cubits, Numbers 35:5; Mishnah Makkot 2:7).
    candidates
        ``"best"`` or a mapping city id -> candidate site id.
    designated
        The designated cities (a set of ids) or a designation timeline (see
        `geo.designation.as_timeline`); default all six.
    bough_opinion
        The reading of the tree-bough rule (`geo.asylum.BOUGH_OPINIONS`).

    Raises
    ------
    DataFileError
        For a missing or invalid data file (naming the file, field and value).
    ParameterError
        For an invalid option.
    """
    folder = Path(data_dir) if data_dir is not None else default_data_dir()
    for name in DATA_FILES:
        if not (folder / name).is_file():
            raise DataFileError("data file not found", source=str(folder / name))
    cubit = resolve_cubit(cubit_m)
    breadth_cubits = resolve_techum_cubits(techum_cubits)
    if not math.isfinite(cubit * breadth_cubits):
        raise ParameterError(
            "the boundary's breadth (techum_cubits x cubit_m) is no finite distance",
            field="cubit_m",
            value=cubit_m,
        )
    timeline = as_timeline(designated)
    places = read_places(folder / "places.geojson")
    sites = choose_sites(places, candidates)
    hydrography = read_hydrography(folder / "hydrography.geojson")
    land = land_sides(hydrography)
    cities = _city_table(sites, land, timeline)
    zones = _zone_table(cities, breadth_m=breadth_cubits * cubit, mode=techum)
    zones["cubit_m"], zones["techum_cubits"] = cubit, breadth_cubits
    roads = build_road_graph(
        read_roads(folder / "roads.geojson"), zones.assign(site=cities["site"])
    )
    options = {
        "cubit_m": cubit,
        "techum": techum,
        "techum_cubits": breadth_cubits,
        "candidates": candidates if isinstance(candidates, str) else dict(candidates),
        "bough_opinion": bough_opinion,
        # the designation timeline, "t: cities; ..." (Mishnah Makkot 2:4: all six, or none)
        "designated": "; ".join(
            f"{event.t:g}: {', '.join(sorted(event.cities))}" for event in timeline.events
        ),
    }
    return RefugeNetwork(
        cities=cities,
        zones=zones,
        hydrography=hydrography,
        land=land,
        places=places.to_crs(REGION_CRS),
        roads=roads,
        designation=timeline,
        options=options,
    )


def _city_table(
    sites: gpd.GeoDataFrame, land: gpd.GeoDataFrame, timeline: DesignationTimeline
) -> gpd.GeoDataFrame:
    """One row per city: names, side of the Jordan, identification, site and town extent."""
    site_points = sites.geometry.to_crs(REGION_CRS)
    cities = gpd.GeoDataFrame(
        {
            "name": sites["name"],
            "hebrew_name": sites.get("hebrew_name"),
            "side": side_of_jordan(site_points, land),
            "site_id": sites["site_id"],
            "modern_identification": sites.get("modern_identification"),
            "rank": sites["rank"],
            "confidence": sites["confidence"],
            "alternatives": sites["alternatives"],
            "designated_at": pd.Series(timeline.designation_times()),
            "town_area_source": sites.get("town_area_source"),
            "site": site_points,
        },
        geometry=town_extents(sites),
        crs=REGION_CRS,
    )
    cities.index.name = "city"
    return cities


def _zone_table(
    cities: gpd.GeoDataFrame, *, breadth_m: float, mode: TechumMode
) -> gpd.GeoDataFrame:
    zones = gpd.GeoDataFrame(
        {"name": cities["name"], "techum": mode, "breadth_m": breadth_m},
        geometry=techum_zones(cities.geometry, breadth_m=breadth_m, mode=mode),
        crs=REGION_CRS,
    )
    zones.index.name = "city"
    return zones
